#include "bench_common.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

double bench_cpu_seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *values, int count)
{
    if (count <= 0)
        return 0.0;
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

bool bench_parse_lod_pixels(const char *text, float *out)
{
    if (strcmp(text, "off") == 0) {
        *out = -1.0f;
        return true;
    }
    char *end = NULL;
    float value = strtof(text, &end);
    if (end == text || *end || !(value >= 0.1f && value <= 100.0f))
        return false;
    *out = value;
    return true;
}
