/* bench_common: what every benchmark shares (md5tool bench, render_bench, crowd_bench): a monotonic clock
 * and the median of repeated measurements. Knows nothing of what is measured. */
#ifndef MARIONETTE_BENCH_COMMON_H
#define MARIONETTE_BENCH_COMMON_H

/* A monotonic clock in seconds, and the median of n values (sorts them in place; the median of an even
 * count is the mean of the middle two). */
double bench_seconds_now(void);
double bench_median(double *values, int count);

#endif
