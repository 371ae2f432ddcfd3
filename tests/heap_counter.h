/* heap_counter: counts every heap call the code under test makes, for the "no per-frame allocation"
 * checks. A test that includes this must be linked with the heap functions wrapped: in tests/CMakeLists.txt
 * call marionette_count_heap(test_name). Calls from shared libraries (SDL, Mesa, libc itself) are not
 * wrapped and not counted: only our code, which is the code the rule is about. Include once per test. */
#ifndef MARIONETTE_HEAP_COUNTER_H
#define MARIONETTE_HEAP_COUNTER_H

#include <stddef.h>
#include <string.h>

static long heap_calls;
/* Blocks our code allocated (strdup included) and has not freed: its change between two equal situations
 * is what leaks. Blocks other libraries hand us to free would skew it; our code takes none. */
static long heap_calls_live;
/* Bytes asked for (all blocks, freed or not) and the largest single request: what a reader's memory bound
 * (md5.h) is checked against. Reset them before the call being measured. */
static size_t heap_bytes_requested;
static size_t heap_largest_request;

static inline void heap_note_request(size_t size)
{
    heap_bytes_requested += size;
    if (size > heap_largest_request)
        heap_largest_request = size;
}

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *pointer, size_t size);
void *__real_aligned_alloc(size_t alignment, size_t size);
void __real_free(void *pointer);
char *__real_strdup(const char *text);
char *__wrap_strdup(const char *text);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *pointer, size_t size);
void *__wrap_aligned_alloc(size_t alignment, size_t size);
void __wrap_free(void *pointer);

void *__wrap_malloc(size_t size)
{
    ++heap_calls;
    heap_note_request(size);
    void *block = __real_malloc(size);
    heap_calls_live += block != NULL;
    return block;
}

void *__wrap_calloc(size_t count, size_t size)
{
    ++heap_calls;
    heap_note_request(size != 0 && count > (size_t)-1 / size ? (size_t)-1 : count * size);
    void *block = __real_calloc(count, size);
    heap_calls_live += block != NULL;
    return block;
}

void *__wrap_realloc(void *pointer, size_t size)
{
    ++heap_calls;
    heap_note_request(size);
    void *block = __real_realloc(pointer, size);
    heap_calls_live += !pointer && block;
    heap_calls_live -= pointer && size == 0 && !block;
    return block;
}

void *__wrap_aligned_alloc(size_t alignment, size_t size)
{
    ++heap_calls;
    heap_note_request(size);
    void *block = __real_aligned_alloc(alignment, size);
    heap_calls_live += block != NULL;
    return block;
}

char *__wrap_strdup(const char *text)
{
    ++heap_calls;
    heap_note_request(strlen(text) + 1);
    char *copy = __real_strdup(text);
    heap_calls_live += copy != NULL;
    return copy;
}

void __wrap_free(void *pointer)
{
    heap_calls_live -= pointer != NULL;
    __real_free(pointer);
}

#endif
