/* jobs: a small job system on POSIX threads for data-parallel loops: persistent workers started once,
 * and jobs_parallel_for splitting [0, count) into chunks that the workers and the calling thread take
 * in turn, returning when every chunk is done. Nothing is allocated per call.
 * Knows nothing of what the loops do (animation, rendering): it runs functions on index ranges. */
#ifndef MARIONETTE_JOBS_H
#define MARIONETTE_JOBS_H

enum { JOBS_THREADS_MAX = 64 };

typedef struct jobs jobs;

/* Runs the items [begin, end). worker is 0 for the calling thread and 1..threads-1 for the workers, so a
 * function can keep per-worker scratch; it never changes while one call of the function runs. */
typedef void jobs_function(void *context, int begin, int end, int worker);

/* `threads` in 1..JOBS_THREADS_MAX counts the calling thread: threads - 1 workers are started here and
 * wait for work. 1 starts none (every loop runs inline). NULL when threads is out of range or a thread or
 * memory cannot be had. */
jobs *jobs_create(int threads);
/* Stops and joins the workers. NULL is fine. */
void jobs_destroy(jobs *jobs);
/* What jobs_create was given; 1 for NULL. */
int jobs_thread_count(const jobs *jobs);
/* The number of processors online (at least 1), the usual `threads` for jobs_create. */
int jobs_processor_count(void);

/* Call fn on consecutive ranges of at most `chunk` items (< 1: the count split evenly, a few chunks per
 * thread) covering [0, count) exactly once, on the workers and the calling thread, and return when all
 * have finished; what the calls wrote is then visible to the caller. jobs NULL, one thread, or a count
 * that fits one chunk: fn(context, 0, count, 0) inline. count <= 0 calls nothing. Calls must not overlap:
 * one caller at a time, and fn must not call jobs_parallel_for on the same jobs. Allocates nothing.
 * Each loop goes either to the workers and the caller or to the caller alone (fn(context, 0, count, 0), as
 * with one thread), whichever has been faster for loops of fn (timed per item, a few functions
 * remembered), and now and then the other way to time it again: with the cores busy with other processes,
 * more threads then cost about what one does. Which thread runs an item never changes what a loop computes
 * when fn keeps its results per item. */
void jobs_parallel_for(jobs *jobs, int count, int chunk, jobs_function *fn, void *context);

/* What a jobs has done since jobs_create, for benchmarks: loops it could split (those of one thread and
 * those that fit one chunk not counted) and how many of them ran on the caller alone. */
typedef struct jobs_figures {
    long long loops, loops_alone;
} jobs_figures;
/* Zeros for NULL. */
void jobs_get_figures(const jobs *jobs, jobs_figures *figures);

#endif
