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
 * Such a worker still costs the loop its wait, and with another process busy on a core the scheduler
 * shares the cores among all three threads, so the caller too runs its chunks at a fraction of its speed
 * (measured: two threads 5% slower than one beside a busy process pinned to one core). So the pool times
 * its loops, as nanoseconds per item for each function it runs (a few kept, the least recently used
 * replaced), both ways: with the workers, and on the caller alone (one range, as one thread runs it). A
 * loop goes the way that has been faster, and every JOBS_TRY_EVERY-th loop of a function goes the other way,
 * so that a change (the other process gone, or back) shows at the next of those tries. With the cores
 * free the workers always win and the caller alone is tried once in a while; with the other core busy the
 * loops go to the caller when that is faster. */
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
/* Functions whose loops are timed (the least recently used is replaced); every JOBS_TRY_EVERY-th loop of
 * one goes the way that has been slower; each loop the way taken counts for a quarter of its figure
 * (JOBS_TIME_WEIGHT). */
enum { JOBS_KINDS = 8, JOBS_TRY_EVERY = 64 };
static const double JOBS_TIME_WEIGHT = 0.25;

/* What the pool knows of the loops of one function. */
typedef struct jobs_kind {
    jobs_function *function; /* NULL: a free entry */
    double with_workers, alone; /* nanoseconds per item, smoothed; 0: not timed yet */
    unsigned long loops;        /* of this function so far */
    unsigned long used;         /* the pool's loop count when last used */
} jobs_kind;

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

    /* The loops' times by function and the counts jobs_get_figures reports; only the caller reads and
     * writes these. */
    jobs_kind kinds[JOBS_KINDS];
    jobs_figures figures;
};

static inline unsigned long long jobs_claim_value(unsigned long generation, long long item)
{
    return ((unsigned long long)(generation & 0xffffffffu) << 32) | (unsigned long long)item;
}

/* Claim and run chunks of the loop of `generation` until none is left; each chunk's items are added to
 * `done` when it has run. True when this thread ran the loop's last items (done reached count). */
static bool jobs_run_chunks(jobs *jobs, unsigned long generation, jobs_function *function, void *context, int count,
                            int chunk, int worker)
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
        bool last = jobs_run_chunks(jobs, seen, function, context, count, chunk, self->index);
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

/* The entry of `function`, found or made (replacing the least recently used). */
static jobs_kind *jobs_kind_of(jobs *jobs, jobs_function *function)
{
    jobs_kind *oldest = &jobs->kinds[0];
    for (int k = 0; k < JOBS_KINDS; ++k) {
        if (jobs->kinds[k].function == function)
            return &jobs->kinds[k];
        if (jobs->kinds[k].used < oldest->used)
            oldest = &jobs->kinds[k];
    }
    *oldest = (jobs_kind){.function = function};
    return oldest;
}

/* Whether the way this loop of `kind` takes (its loops count this one) is a try of the other way: every
 * JOBS_TRY_EVERY-th loop, starting with the third (the first is not timed: it meets cold caches and memory
 * never touched, and the second times the workers). */
static bool jobs_kind_trying(const jobs_kind *kind)
{
    return kind->loops % JOBS_TRY_EVERY == 3;
}

/* Whether this loop runs on the caller alone: the way that has been faster (the workers until both have
 * been timed), or the other when trying. */
static bool jobs_kind_alone(const jobs_kind *kind)
{
    bool alone_faster = kind->alone > 0.0 && kind->with_workers > 0.0 && kind->alone < kind->with_workers;
    return alone_faster != jobs_kind_trying(kind);
}

/* A loop's time per item: the way taken loop after loop follows it smoothly (JOBS_TIME_WEIGHT); a try
 * stands for its way until the next, so one faster try is enough to change ways. */
static void jobs_kind_time(jobs_kind *kind, bool alone, long long nanoseconds, int count)
{
    if (kind->loops == 1)
        return;
    double *figure = alone ? &kind->alone : &kind->with_workers;
    double per_item = (double)nanoseconds / count;
    *figure = *figure > 0.0 && !jobs_kind_trying(kind) ? *figure + JOBS_TIME_WEIGHT * (per_item - *figure) : per_item;
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
    jobs_kind *kind = jobs_kind_of(jobs, function);
    kind->used = (unsigned long)++jobs->figures.loops;
    kind->loops++;
    long long started = jobs_nanoseconds_now();
    if (jobs_kind_alone(kind)) {
        /* As one thread would: one range, so a loop that reads ahead of its items does so throughout. */
        jobs->figures.loops_alone++;
        function(context, 0, count, 0);
        jobs_kind_time(kind, true, jobs_nanoseconds_now() - started, count);
        return;
    }
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

    jobs_run_chunks(jobs, generation, function, context, count, chunk, 0);

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
    jobs_kind_time(kind, false, jobs_nanoseconds_now() - started, count);
}

void jobs_get_figures(const jobs *jobs, jobs_figures *figures)
{
    if (figures)
        *figures = jobs ? jobs->figures : (jobs_figures){0};
}
