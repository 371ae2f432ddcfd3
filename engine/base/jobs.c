/* jobs: see jobs.h. One mutex and two condition variables hand each loop to the workers; within a loop the
 * chunks are claimed from one 64-bit atomic that holds the loop's generation (high half) beside the next
 * item (low half), by compare-and-swap, so a worker claims only chunks of the loop it was handed: one that
 * wakes late, after its loop has ended and another begun, finds another generation and claims nothing.
 * The caller therefore waits for the chunks that were claimed, not for every worker to report: `done`
 * counts finished items (release), read by the caller with acquire, so it sees the workers' writes. A
 * worker that never woke in time (the other core busy with another process) costs the loop nothing: the
 * caller runs the chunks itself and returns. The caller spins a little for a chunk still running on a
 * worker (most often finishing as the caller finishes its own), then sleeps until the worker that ends the
 * last chunk wakes it: a worker holding a chunk while another process has its core must not cost the caller
 * a core of spinning.
 * Such a worker still costs the loop its wait: it took a chunk, lost its core to the other process, and the
 * caller, done with every other chunk, waits for it until the scheduler gives the core back (milliseconds).
 * So the caller times each loop: when it waited longer than doing the workers' items itself would have
 * taken (its own time per item, times theirs), the workers cost more than they gave, and the next loops run
 * on the caller alone, chunk by chunk: 4, then 8, 16... up to 256 while the loops that try the workers
 * again keep losing, back to 4 after one that wins. With the other core busy, two threads then cost about
 * what one does; with it free, a loop's wait is at most a chunk and the workers are never left out. */
#include "jobs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define JOBS_SPIN_PAUSE() _mm_pause()
#else
#define JOBS_SPIN_PAUSE() ((void)0)
#endif

/* With no chunk size given, each thread gets about this many chunks: enough for a thread that was late
 * to start to be evened out by the others, few enough that claiming costs nothing. */
enum { JOBS_CHUNKS_PER_THREAD = 4 };
/* How long the caller spins for a chunk still running on a worker before it sleeps: about one chunk of a
 * crowd update (64 members at ~1 us). */
static const long JOBS_SPIN_NANOSECONDS = 50000;
/* Loops run on the caller alone after one where the workers cost more than they gave: the first time, and
 * the most (doubling in between while the loops that try them again keep losing). */
enum { JOBS_ALONE_FIRST = 4, JOBS_ALONE_MOST = 256 };

typedef struct jobs_worker {
    struct jobs *jobs;
    int index; /* 1..threads-1 */
    pthread_t thread;
} jobs_worker;

struct jobs {
    int threads;
    int started; /* workers running */
    jobs_worker *workers;
    pthread_mutex_t mutex;
    pthread_cond_t work_ready, work_done;

    /* The loop in progress; written under the mutex before generation moves on. */
    unsigned long generation;
    bool quit;
    jobs_function *function;
    void *context;
    int count, chunk;
    atomic_int done;      /* items of this loop finished */
    bool caller_sleeping; /* the caller waits on work_done; under the mutex */

    /* (generation mod 2^32) << 32 | the next item not yet claimed (below 2^31: counts are ints). */
    atomic_ullong claim;

    /* The caller's alone: loops still to run without the workers, how many the next losing loop sends
     * there, and the counts jobs_figures reports. Only the caller reads and writes these. */
    int alone_left, alone_next;
    jobs_figures figures;
};

static inline unsigned long long jobs_claim_value(unsigned long generation, long long item)
{
    return ((unsigned long long)(generation & 0xffffffffu) << 32) | (unsigned long long)item;
}

/* Claim and run chunks of the loop of `generation` until none is left; each chunk's items are added to
 * `done` when it has run, and to *ran (may be NULL). True when this thread ran the loop's last items (done
 * reached count). */
static bool jobs_run_chunks(jobs *jobs, unsigned long generation, jobs_function *function, void *context, int count,
                            int chunk, int worker, int *ran)
{
    unsigned long long tag = jobs_claim_value(generation, 0);
    unsigned long long seen = atomic_load_explicit(&jobs->claim, memory_order_relaxed);
    bool last = false;
    for (;;) {
        if ((seen & 0xffffffff00000000ull) != tag)
            return last; /* another loop's: this one is over */
        long long begin = (long long)(seen & 0xffffffffull);
        if (begin >= count)
            return last;
        long long end = begin + chunk < count ? begin + chunk : count;
        if (!atomic_compare_exchange_weak_explicit(&jobs->claim, &seen, jobs_claim_value(generation, end),
                                                   memory_order_relaxed, memory_order_relaxed))
            continue; /* seen was reloaded */
        function(context, (int)begin, (int)end, worker);
        int items = (int)(end - begin);
        if (ran)
            *ran += items;
        last = atomic_fetch_add_explicit(&jobs->done, items, memory_order_acq_rel) + items == count;
        seen = atomic_load_explicit(&jobs->claim, memory_order_relaxed);
    }
}

static void *jobs_worker_main(void *argument)
{
    jobs_worker *self = argument;
    jobs *jobs = self->jobs;
    unsigned long seen = 0;
    pthread_mutex_lock(&jobs->mutex);
    for (;;) {
        while (jobs->generation == seen && !jobs->quit)
            pthread_cond_wait(&jobs->work_ready, &jobs->mutex);
        if (jobs->quit)
            break;
        seen = jobs->generation;
        jobs_function *function = jobs->function;
        void *context = jobs->context;
        int count = jobs->count, chunk = jobs->chunk;
        pthread_mutex_unlock(&jobs->mutex);
        bool last = jobs_run_chunks(jobs, seen, function, context, count, chunk, self->index, NULL);
        pthread_mutex_lock(&jobs->mutex);
        if (last && jobs->caller_sleeping)
            pthread_cond_signal(&jobs->work_done);
    }
    pthread_mutex_unlock(&jobs->mutex);
    return NULL;
}

jobs *jobs_create(int threads)
{
    if (threads < 1 || threads > JOBS_THREADS_MAX)
        return NULL;
    jobs *created = calloc(1, sizeof *created);
    if (!created)
        return NULL;
    created->threads = threads;
    created->alone_next = JOBS_ALONE_FIRST;
    atomic_init(&created->claim, 0);
    atomic_init(&created->done, 0);
    if (threads == 1)
        return created;
    created->workers = calloc((size_t)threads - 1, sizeof *created->workers);
    if (!created->workers || pthread_mutex_init(&created->mutex, NULL) != 0) {
        free(created->workers);
        free(created);
        return NULL;
    }
    pthread_cond_init(&created->work_ready, NULL);
    pthread_cond_init(&created->work_done, NULL);
    for (int w = 0; w < threads - 1; ++w) {
        jobs_worker *worker = &created->workers[w];
        worker->jobs = created;
        worker->index = w + 1;
        if (pthread_create(&worker->thread, NULL, jobs_worker_main, worker) != 0) {
            jobs_destroy(created); /* joins the ones that did start */
            return NULL;
        }
        /* Workers only read `started` under the mutex, after the first loop's broadcast. */
        pthread_mutex_lock(&created->mutex);
        created->started++;
        pthread_mutex_unlock(&created->mutex);
    }
    return created;
}

void jobs_destroy(jobs *jobs)
{
    if (!jobs)
        return;
    if (jobs->threads > 1) {
        pthread_mutex_lock(&jobs->mutex);
        jobs->quit = true;
        pthread_cond_broadcast(&jobs->work_ready);
        int started = jobs->started;
        pthread_mutex_unlock(&jobs->mutex);
        for (int w = 0; w < started; ++w)
            pthread_join(jobs->workers[w].thread, NULL);
        pthread_cond_destroy(&jobs->work_ready);
        pthread_cond_destroy(&jobs->work_done);
        pthread_mutex_destroy(&jobs->mutex);
    }
    free(jobs->workers);
    free(jobs);
}

int jobs_thread_count(const jobs *jobs)
{
    return jobs ? jobs->threads : 1;
}

int jobs_processor_count(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online < 1 ? 1 : online > JOBS_THREADS_MAX ? JOBS_THREADS_MAX : (int)online;
}

static long long jobs_nanoseconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000ll + now.tv_nsec;
}

/* true when the loop's items were all done within JOBS_SPIN_NANOSECONDS. */
static bool jobs_spin_for_done(jobs *jobs, int count)
{
    long long deadline = 0;
    for (int round = 0;; ++round) {
        if (atomic_load_explicit(&jobs->done, memory_order_acquire) >= count)
            return true;
        JOBS_SPIN_PAUSE();
        if (round % 64 == 0) {
            long long now = jobs_nanoseconds_now();
            if (deadline == 0)
                deadline = now + JOBS_SPIN_NANOSECONDS;
            else if (now >= deadline)
                return false;
        }
    }
}

/* After a loop with the workers: the caller ran `own` of `count` items in `working` ns and then waited
 * `waited` ns for the rest. Lost when that wait was longer than running the workers' items itself would
 * have taken; then the next loops go to the caller alone (see the top of this file). */
static void jobs_judge_loop(jobs *jobs, int count, int own, long long working, long long waited)
{
    if (own <= 0 || own >= count) /* the workers took all of it, or none: nothing lost to them */
        return;
    double alone = (double)working / own * (count - own);
    if ((double)waited <= alone) {
        jobs->alone_next = JOBS_ALONE_FIRST;
        return;
    }
    jobs->figures.loops_lost++;
    jobs->alone_left = jobs->alone_next;
    jobs->alone_next = jobs->alone_next * 2 < JOBS_ALONE_MOST ? jobs->alone_next * 2 : JOBS_ALONE_MOST;
}

void jobs_parallel_for(jobs *jobs, int count, int chunk, jobs_function *function, void *context)
{
    if (count <= 0 || !function)
        return;
    int threads = jobs_thread_count(jobs);
    if (chunk < 1) {
        chunk = count / (threads * JOBS_CHUNKS_PER_THREAD);
        chunk = chunk < 1 ? 1 : chunk;
    }
    if (threads == 1 || count <= chunk) {
        function(context, 0, count, 0);
        return;
    }
    jobs->figures.loops++;
    if (jobs->alone_left > 0) {
        jobs->alone_left--;
        jobs->figures.loops_alone++;
        for (int begin = 0; begin < count; begin += chunk)
            function(context, begin, count - begin < chunk ? count : begin + chunk, 0);
        return;
    }
    long long started = jobs_nanoseconds_now();
    pthread_mutex_lock(&jobs->mutex);
    unsigned long generation = ++jobs->generation;
    jobs->function = function;
    jobs->context = context;
    jobs->count = count;
    jobs->chunk = chunk;
    atomic_store_explicit(&jobs->done, 0, memory_order_relaxed);
    /* Release: a worker that claims from this generation (by a later compare-and-swap on claim) then
     * reads the loop as written here; it also reads it under the mutex. */
    atomic_store_explicit(&jobs->claim, jobs_claim_value(generation, 0), memory_order_release);
    pthread_cond_broadcast(&jobs->work_ready);
    pthread_mutex_unlock(&jobs->mutex);

    int own = 0;
    jobs_run_chunks(jobs, generation, function, context, count, chunk, 0, &own);
    long long own_done = jobs_nanoseconds_now();

    /* Only claimed chunks are waited for: when every item is done no worker holds a chunk of this loop,
     * and a worker that has not claimed one never will (the generation moves on with the next loop). */
    if (!jobs_spin_for_done(jobs, count)) {
        pthread_mutex_lock(&jobs->mutex);
        jobs->caller_sleeping = true;
        while (atomic_load_explicit(&jobs->done, memory_order_acquire) < count)
            pthread_cond_wait(&jobs->work_done, &jobs->mutex);
        jobs->caller_sleeping = false;
        pthread_mutex_unlock(&jobs->mutex);
    }
    jobs_judge_loop(jobs, count, own, own_done - started, jobs_nanoseconds_now() - own_done);
}

void jobs_get_figures(const jobs *jobs, jobs_figures *figures)
{
    if (figures)
        *figures = jobs ? jobs->figures : (jobs_figures){0};
}
