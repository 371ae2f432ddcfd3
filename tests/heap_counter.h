/* heap_counter: counts every heap call the code under test makes, for the "no per-frame allocation"
 * checks. A test that includes this must be linked with the heap functions wrapped: in tests/CMakeLists.txt
 * call marionette_count_heap(test_name). Calls from shared libraries (SDL, Mesa, libc itself) are not
 * wrapped and not counted: only our code, which is the code the rule is about. Include once per test. */
#ifndef MARIONETTE_HEAP_COUNTER_H
#define MARIONETTE_HEAP_COUNTER_H

#include <stddef.h>

static long heap_calls;

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *pointer, size_t size);
void *__real_aligned_alloc(size_t alignment, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *pointer, size_t size);
void *__wrap_aligned_alloc(size_t alignment, size_t size);

void *__wrap_malloc(size_t size)
{
    ++heap_calls;
    return __real_malloc(size);
}

void *__wrap_calloc(size_t count, size_t size)
{
    ++heap_calls;
    return __real_calloc(count, size);
}

void *__wrap_realloc(void *pointer, size_t size)
{
    ++heap_calls;
    return __real_realloc(pointer, size);
}

void *__wrap_aligned_alloc(size_t alignment, size_t size)
{
    ++heap_calls;
    return __real_aligned_alloc(alignment, size);
}

#endif
