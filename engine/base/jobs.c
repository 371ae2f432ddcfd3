/* jobs: see jobs.h. One mutex and two condition variables hand each loop to the workers and collect them
 * again; within a loop the chunks are claimed with one atomic counter, so threads that run faster take
 * more chunks. Everything a loop needs is written under the mutex before the workers are woken, and each
 * worker reports back under the mutex, so the caller sees all their writes (no data race for
 * ThreadSanitizer to find). */
#include "jobs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

/* With no chunk size given, each thread gets about this many chunks: enough for a thread that was late
 * to start to be evened out by the others, few enough that claiming costs nothing. */
enum { JOBS_CHUNKS_PER_THREAD = 4 };

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
    int finished; /* workers done with this generation */

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
        pthread_mutex_lock(&jobs->mutex);
        if (++jobs->finished == jobs->started)
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
    jobs->finished = 0;
    atomic_store_explicit(&jobs->next_item, 0, memory_order_relaxed);
    jobs->generation++;
    pthread_cond_broadcast(&jobs->work_ready);
    pthread_mutex_unlock(&jobs->mutex);

    jobs_run_chunks(jobs, function, context, count, chunk, 0);

    /* Every worker reports, even one that found nothing left: none may still be reading this loop's
     * function and counter when the next loop sets them. */
    pthread_mutex_lock(&jobs->mutex);
    while (jobs->finished < jobs->started)
        pthread_cond_wait(&jobs->work_done, &jobs->mutex);
    pthread_mutex_unlock(&jobs->mutex);
}
