/* prefetch: ask the processor to start loading memory that will be read (or written) soon, so that a loop
 * over many entities, each in its own allocation, does not wait on memory for every one of them: while it
 * works on one entity it asks for the next one's state. A hint only: it changes no value, and compilers
 * without __builtin_prefetch get nothing. Knows nothing of what the memory holds. */
#ifndef MARIONETTE_PREFETCH_H
#define MARIONETTE_PREFETCH_H

#include <stdbool.h>
#include <stddef.h>

enum { PREFETCH_LINE_BYTES = 64 }; /* the cache line of every x86-64 and most ARM64 processors */

/* bytes from p (p may be NULL: nothing); write when the memory is about to be written. */
static inline void prefetch_range(const void *p, size_t bytes, bool write)
{
#if defined(__GNUC__) || defined(__clang__)
    if (!p)
        return;
    const char *first = (const char *)((size_t)p & ~(size_t)(PREFETCH_LINE_BYTES - 1));
    const char *end = (const char *)p + bytes;
    for (const char *line = first; line < end; line += PREFETCH_LINE_BYTES) {
        if (write)
            __builtin_prefetch(line, 1);
        else
            __builtin_prefetch(line, 0);
    }
#else
    (void)p;
    (void)bytes;
    (void)write;
#endif
}

#endif
