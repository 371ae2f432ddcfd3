/* name_index: names to indices in constant time, an open-addressing hash over an array the caller owns
 * (an ini file's sections and keys, a state machine's states while it loads). The index holds only
 * indices; the names stay in the caller's items, read through a name_of function, so growing the items
 * array (realloc) does not stale it. Knows nothing of what the items are. */
#ifndef MARIONETTE_NAME_INDEX_H
#define MARIONETTE_NAME_INDEX_H

#include <stdbool.h>

typedef struct name_index {
    int *slots;   /* item index + 1, 0 for an empty slot */
    int capacity; /* a power of two, at least twice the count; 0 before the first add */
} name_index;

/* The name of items[i]. */
typedef const char *(*name_index_name_of)(const void *items, int i);

/* The index of the item called name, or -1. */
int name_index_find(const name_index *index, const void *items, name_index_name_of name_of, const char *name);

/* Add items[count - 1], already in items (which may have moved since the last add: the index holds no
 * pointers into it). Names are not checked for duplicates: find first. False when out of memory (the
 * index is then as it was). */
bool name_index_add(name_index *index, const void *items, name_index_name_of name_of, int count);

void name_index_free(name_index *index);

#endif
