/* bench_common: what every benchmark shares (md5tool bench, render_bench, crowd_bench): a monotonic clock
 * and the median of repeated measurements. Knows nothing of what is measured. */
#ifndef MARIONETTE_BENCH_COMMON_H
#define MARIONETTE_BENCH_COMMON_H

#include <stdbool.h>

/* A monotonic clock in seconds, and the median of n values (sorts them in place; the median of an even
 * count is the mean of the middle two). */
double bench_seconds_now(void);
/* CPU seconds this process has used, all its threads together: on a busy machine, where the clock on
 * the wall also counts the time others had the cores, the figure that compares two builds. */
double bench_cpu_seconds_now(void);
double bench_median(double *values, int count);

/* The render benchmarks' `--lod-pixels P|off`: the level-of-detail budget, 0.1 to 100 pixels, or "off"
 * (-1: every character whole, gfx_frame_desc.lod_error_pixels' meaning). false for anything else. */
bool bench_parse_lod_pixels(const char *text, float *out);

#endif
