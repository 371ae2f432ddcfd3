/* jobs: see jobs.h. One mutex and two condition variables hand each loop to the workers and collect them
 * again; within a loop the chunks are claimed with one atomic counter, so threads that run faster take
 * more chunks. Everything a loop needs is written under the mutex before the workers are woken. Each
 * worker reports back by a release increment of `finished`, which the caller reads with acquire, so the
 * caller sees all their writes (no data race for ThreadSanitizer to find). The caller first spins a few
 * tens of microseconds for the reports: the workers are then most often finishing their last chunk, and
 * sleeping on a condition variable would add a futex sleep and a wake-up (tens of microseconds on a
 * virtual machine) to every loop; a worker that is late (still waking up) makes it sleep after all. */
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
/* How long the caller spins for the workers' reports before it sleeps: about one chunk of a crowd update
 * (64 members at ~0.7 us). */
static const long JOBS_SPIN_NANOSECONDS = 50000;

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
    atomic_int finished;  /* workers done with this generation */
    bool caller_sleeping; /* the caller waits on work_done; under the mutex */

    /* The next item not yet claimed. 64 bits: each thread may add a chunk past count once. */
    atomic_llong next_item;
};

static void jobs_run_chunks(jobs *jobs, jobs_function *function, void *context, int count, int chunk, int worker)
{
    for (;;) {
        long long begin = atomic_fetch_add_explicit(&jobs->next_item, chunk, memory_order_relaxed);
        if (begin >= count)
            return;
        long long end = begin + chunk < count ? begin + chunk : count;
        function(context, (int)begin, (int)end, worker);
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
        jobs_run_chunks(jobs, function, context, count, chunk, self->index);
        atomic_fetch_add_explicit(&jobs->finished, 1, memory_order_release);
        pthread_mutex_lock(&jobs->mutex);
        if (jobs->caller_sleeping)
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
    atomic_init(&created->next_item, 0);
    atomic_init(&created->finished, 0);
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

/* true when every worker reported within JOBS_SPIN_NANOSECONDS. */
static bool jobs_spin_for_reports(jobs *jobs)
{
    long long deadline = 0;
    for (int round = 0;; ++round) {
        if (atomic_load_explicit(&jobs->finished, memory_order_acquire) >= jobs->started)
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
    pthread_mutex_lock(&jobs->mutex);
    jobs->function = function;
    jobs->context = context;
    jobs->count = count;
    jobs->chunk = chunk;
    atomic_store_explicit(&jobs->finished, 0, memory_order_relaxed);
    atomic_store_explicit(&jobs->next_item, 0, memory_order_relaxed);
    jobs->generation++;
    pthread_cond_broadcast(&jobs->work_ready);
    pthread_mutex_unlock(&jobs->mutex);

    jobs_run_chunks(jobs, function, context, count, chunk, 0);

    /* Every worker reports, even one that found nothing left: none may still be reading this loop's
     * function and counter when the next loop sets them. `started` only changes in jobs_create. */
    if (jobs_spin_for_reports(jobs))
        return;
    pthread_mutex_lock(&jobs->mutex);
    jobs->caller_sleeping = true;
    while (atomic_load_explicit(&jobs->finished, memory_order_acquire) < jobs->started)
        pthread_cond_wait(&jobs->work_done, &jobs->mutex);
    jobs->caller_sleeping = false;
    pthread_mutex_unlock(&jobs->mutex);
}
