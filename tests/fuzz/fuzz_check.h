/* fuzz_check: what the fuzz targets assert about a result besides "no crash": the promises the headers
 * make (indices in range, numbers finite, quaternions unit, one-line messages). A broken promise aborts
 * with a message, which libFuzzer reports as a crash and saves the input for.
 * Harness code only: engine code never aborts on bad input. */
#ifndef MARIONETTE_FUZZ_CHECK_H
#define MARIONETTE_FUZZ_CHECK_H

#include <math.h>
#include <sanitizer/allocator_interface.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "model/joint_pose.h"

#define FUZZ_REQUIRE(expr)                                                               \
    do {                                                                                 \
        if (!(expr)) {                                                                   \
            fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__, #expr);   \
            abort();                                                                     \
        }                                                                                \
    } while (0)

static inline bool fuzz_finite(const float *values, int count)
{
    for (int i = 0; i < count; ++i)
        if (!isfinite(values[i]))
            return false;
    return true;
}

/* Finite position, unit rotation (what every stage writes and reads), padding 0. */
static inline bool fuzz_joint_pose_ok(const joint_pose *pose)
{
    const float *q = pose->rotation;
    float length_squared = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    return fuzz_finite(q, 4) && fuzz_finite(pose->position, 3) && fabsf(length_squared - 1.0f) < 1e-3f;
}

/* A diag a loader filled in: it names a file and says something on one line. */
static inline bool fuzz_diag_ok(const diag *d)
{
    return d->file[0] != '\0' && d->message[0] != '\0' && d->line >= 0 && strchr(d->message, '\n') == NULL;
}

static inline bool fuzz_diag_list_ok(const diag_list *list)
{
    if (list->count < 0 || list->count > DIAG_LIST_KEEP || list->total < list->count)
        return false;
    for (int i = 0; i < list->count; ++i)
        if (!fuzz_diag_ok(&list->items[i]))
            return false;
    return true;
}

/* Heap use, from the sanitizer allocator's hooks (every malloc and free of the process, libFuzzer's too):
 * fuzz_heap_start() before a parse and fuzz_heap_peak() after it give the most bytes live at once in
 * between, above what was live at the start. What md5.h promises about memory is checked with it. */
static long long fuzz_heap_live, fuzz_heap_high, fuzz_heap_base;

static void fuzz_heap_on_malloc(const volatile void *block, size_t size)
{
    (void)block;
    fuzz_heap_live += (long long)size;
    if (fuzz_heap_live > fuzz_heap_high)
        fuzz_heap_high = fuzz_heap_live;
}

static void fuzz_heap_on_free(const volatile void *block)
{
    if (block)
        fuzz_heap_live -= (long long)__sanitizer_get_allocated_size((const void *)block);
}

static inline void fuzz_heap_start(void)
{
    static bool installed;
    if (!installed)
        installed = __sanitizer_install_malloc_and_free_hooks(fuzz_heap_on_malloc, fuzz_heap_on_free) != 0;
    FUZZ_REQUIRE(installed);
    fuzz_heap_base = fuzz_heap_high = fuzz_heap_live;
}

static inline size_t fuzz_heap_peak(void)
{
    return (size_t)(fuzz_heap_high - fuzz_heap_base);
}

/* FNV-1a of the input: a value per input for choices (sample times) that must repeat when it is replayed. */
static inline unsigned fuzz_hash(const unsigned char *data, size_t size)
{
    unsigned hash = 2166136261u;
    for (size_t i = 0; i < size; ++i)
        hash = (hash ^ data[i]) * 16777619u;
    return hash;
}

#endif
