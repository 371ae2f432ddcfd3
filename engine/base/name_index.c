#include "name_index.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t name_index_hash(const char *text)
{
    uint32_t hash = 2166136261u; /* FNV-1a: names are short, and this needs no table */
    for (const unsigned char *c = (const unsigned char *)text; *c; ++c)
        hash = (hash ^ *c) * 16777619u;
    return hash;
}

int name_index_find(const name_index *index, const void *items, name_index_name_of name_of, const char *name)
{
    if (index->capacity == 0)
        return -1;
    uint32_t mask = (uint32_t)index->capacity - 1;
    for (uint32_t slot = name_index_hash(name) & mask;; slot = (slot + 1) & mask) {
        int item = index->slots[slot] - 1;
        if (item < 0)
            return -1;
        if (strcmp(name_of(items, item), name) == 0)
            return item;
    }
}

static void name_index_place(name_index *index, const char *name, int item)
{
    uint32_t mask = (uint32_t)index->capacity - 1;
    uint32_t slot = name_index_hash(name) & mask;
    while (index->slots[slot] != 0)
        slot = (slot + 1) & mask;
    index->slots[slot] = item + 1;
}

bool name_index_add(name_index *index, const void *items, name_index_name_of name_of, int count)
{
    if (count <= 0 || count > INT32_MAX / 4)
        return false;
    if (count * 2 > index->capacity) { /* at most half full: probes stay short */
        int capacity = index->capacity ? index->capacity * 2 : 16;
        int *slots = calloc((size_t)capacity, sizeof *slots);
        if (!slots)
            return false;
        free(index->slots);
        *index = (name_index){.slots = slots, .capacity = capacity};
        for (int i = 0; i < count - 1; ++i)
            name_index_place(index, name_of(items, i), i);
    }
    name_index_place(index, name_of(items, count - 1), count - 1);
    return true;
}

void name_index_free(name_index *index)
{
    free(index->slots);
    *index = (name_index){0};
}
