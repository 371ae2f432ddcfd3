/* The job system: every index runs exactly once whatever the thread count and chunk size, in ranges no
 * longer than the chunk, with the results of the serial loop; the workers take part; thousands of calls in
 * a row; workers that wake late take nothing of the next loop; loops go the faster way, with the workers
 * or on the caller alone; one thread (or no jobs) runs inline on the caller; bad arguments; no heap call per loop (the
 * heap functions are wrapped and counted). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "base/jobs.h"
#include "check.h"
#include "heap_counter.h"

enum { ITEMS = 10007 }; /* prime: no chunk size divides it */

typedef struct visit_context {
    atomic_int visits[ITEMS];
    uint64_t results[ITEMS];
    atomic_int longest_range, bad_ranges, bad_workers;
    atomic_int ranges_on_worker[JOBS_THREADS_MAX];
    int chunk, threads;
    int rounds; /* of mixing per item: makes the work long enough for the workers to wake */
} visit_context;

static uint64_t mix(uint64_t value, int rounds)
{
    for (int r = 0; r < rounds; ++r) {
        value += 0x9E3779B97F4A7C15ull;
        value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ull;
        value ^= value >> 31;
    }
    return value;
}

static void visit(void *context, int begin, int end, int worker)
{
    visit_context *c = context;
    if (begin < 0 || end > ITEMS || begin >= end)
        atomic_fetch_add(&c->bad_ranges, 1);
    if (worker < 0 || worker >= c->threads) {
        atomic_fetch_add(&c->bad_workers, 1);
        worker = 0;
    }
    atomic_fetch_add(&c->ranges_on_worker[worker], 1);
    int length = end - begin, longest = atomic_load(&c->longest_range);
    while (length > longest && !atomic_compare_exchange_weak(&c->longest_range, &longest, length))
        continue;
    for (int i = begin; i < end; ++i) {
        atomic_fetch_add(&c->visits[i], 1);
        c->results[i] = mix((uint64_t)i, c->rounds);
    }
}

static visit_context context; /* large */

static void reset(int threads, int chunk, int rounds)
{
    memset(&context, 0, sizeof context);
    context.threads = threads;
    context.chunk = chunk;
    context.rounds = rounds;
}

static int items_visited_once(void)
{
    int once = 0;
    for (int i = 0; i < ITEMS; ++i)
        once += atomic_load(&context.visits[i]) == 1;
    return once;
}

static int results_equal_to_serial(void)
{
    int equal = 0;
    for (int i = 0; i < ITEMS; ++i)
        equal += context.results[i] == mix((uint64_t)i, context.rounds);
    return equal;
}

static void test_every_index_once_with_the_serial_results(void)
{
    const int thread_counts[] = {1, 2, 3, 4, 8};
    const int chunks[] = {0, 1, 7, 64, 1000, ITEMS, 2 * ITEMS};
    for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; ++t) {
        jobs *j = jobs_create(thread_counts[t]);
        CHECK(j != NULL);
        CHECK(jobs_thread_count(j) == thread_counts[t]);
        for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; ++k) {
            reset(thread_counts[t], chunks[k], 3);
            jobs_figures before, after;
            jobs_get_figures(j, &before);
            jobs_parallel_for(j, ITEMS, chunks[k], visit, &context);
            jobs_get_figures(j, &after);
            CHECK(items_visited_once() == ITEMS);
            CHECK(results_equal_to_serial() == ITEMS);
            CHECK(atomic_load(&context.bad_ranges) == 0);
            CHECK(atomic_load(&context.bad_workers) == 0);
            /* Inline (one thread), or a loop the pool ran on the caller alone (the second of a function: it
             * tries that way): one call for everything. */
            bool alone = after.loops_alone > before.loops_alone;
            CHECK(!alone || thread_counts[t] > 1);
            if (thread_counts[t] == 1 || alone)
                CHECK(atomic_load(&context.longest_range) == ITEMS && atomic_load(&context.ranges_on_worker[0]) == 1);
            else if (chunks[k] > 0)
                CHECK(atomic_load(&context.longest_range) <= chunks[k]);
            else /* the default splits the work: a few chunks per thread */
                CHECK(atomic_load(&context.longest_range) <= ITEMS / (thread_counts[t] * 2));
        }
        jobs_destroy(j);
    }
}

static void test_workers_take_part(void)
{
    jobs *j = jobs_create(2);
    CHECK(j != NULL);
    int worker_ranges = 0;
    for (int call = 0; call < 50; ++call) {
        reset(2, 64, 200); /* about 160 chunks of some tens of microseconds each */
        jobs_parallel_for(j, ITEMS, 64, visit, &context);
        CHECK(items_visited_once() == ITEMS);
        worker_ranges += atomic_load(&context.ranges_on_worker[1]);
    }
    printf("  ranges run by the worker over 50 loops: %d of %d\n", worker_ranges, 50 * ((ITEMS + 63) / 64));
    CHECK(worker_ranges > 0);
    jobs_destroy(j);
}

/* ---- many calls, no allocation ---- */

typedef struct sum_context {
    int64_t partial[JOBS_THREADS_MAX];
    int values[1000];
} sum_context;

static void add_up(void *context, int begin, int end, int worker)
{
    sum_context *c = context;
    for (int i = begin; i < end; ++i)
        c->partial[worker] += c->values[i];
}

static void test_many_calls_allocate_nothing(void)
{
    long at_create = heap_calls;
    jobs *j = jobs_create(4);
    CHECK(j != NULL);
    CHECK(heap_calls > at_create); /* the wrapping works: creating allocates */
    static sum_context sums;
    int64_t expected = 0;
    for (int i = 0; i < 1000; ++i) {
        sums.values[i] = i * 3 - 700;
        expected += sums.values[i];
    }
    long before = heap_calls;
    int right = 0;
    const int calls = 20000;
    for (int call = 0; call < calls; ++call) {
        memset(sums.partial, 0, sizeof sums.partial);
        int count = 1 + call % 1000;
        jobs_parallel_for(j, count, 1 + call % 97, add_up, &sums);
        int64_t total = 0, wanted = 0;
        for (int w = 0; w < JOBS_THREADS_MAX; ++w)
            total += sums.partial[w];
        for (int i = 0; i < count; ++i)
            wanted += sums.values[i];
        right += total == wanted;
    }
    CHECK(heap_calls == before);
    CHECK(right == calls);
    jobs_destroy(j);
}

/* ---- loops back to back, workers late ---- */

enum { LATE_ITEMS = 700 };

typedef struct late_context {
    atomic_int visits[LATE_ITEMS];
} late_context;

static void count_visit(void *context, int begin, int end, int worker)
{
    (void)worker;
    late_context *c = context;
    for (int i = begin; i < end; ++i)
        atomic_fetch_add(&c->visits[i], 1);
}

/* Loops back to back with more workers than cores, each loop on another context: a worker that wakes after
 * its loop ended (the caller ran the chunks itself and went on: it does not wait for a worker that claimed
 * nothing) must not take chunks of the next loop and run them with its old loop's function and context.
 * Every loop sees each of its items once, and no other loop's. */
static void test_late_workers_take_nothing_of_the_next_loop(void)
{
    jobs *j = jobs_create(8);
    CHECK(j != NULL);
    static late_context contexts[2];
    memset(contexts, 0, sizeof contexts);
    int wrong = 0;
    const int loops = 20000;
    for (int loop = 0; loop < loops; ++loop) {
        late_context *c = &contexts[loop % 2];
        int count = 1 + (loop * 37) % LATE_ITEMS;
        jobs_parallel_for(j, count, 1 + loop % 5, count_visit, c);
        for (int i = 0; i < LATE_ITEMS; ++i) {
            wrong += atomic_load(&c->visits[i]) != (i < count ? 1 : 0);
            atomic_store(&c->visits[i], 0);
        }
    }
    CHECK(wrong == 0);
    jobs_destroy(j);
    /* After the pool is gone nothing more may arrive. */
    int late = 0;
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < LATE_ITEMS; ++i)
            late += atomic_load(&contexts[k].visits[i]) != 0;
    CHECK(late == 0);
}

/* ---- the faster way: with the workers or on the caller alone ---- */

typedef struct timed_context {
    atomic_int visits[64];
    atomic_int worker_ranges, longest_range;
    long caller_nanoseconds, worker_nanoseconds; /* each item sleeps this long on the caller or a worker */
} timed_context;

static void timed_visit(void *context, int begin, int end, int worker)
{
    timed_context *c = context;
    struct timespec pause = {0, (end - begin) * (worker == 0 ? c->caller_nanoseconds : c->worker_nanoseconds)};
    nanosleep(&pause, NULL);
    if (worker != 0)
        atomic_fetch_add(&c->worker_ranges, 1);
    int longest = atomic_load(&c->longest_range);
    while (end - begin > longest && !atomic_compare_exchange_weak(&c->longest_range, &longest, end - begin))
        continue;
    for (int i = begin; i < end; ++i)
        atomic_fetch_add(&c->visits[i], 1);
}

/* One loop of 64 items in chunks of 8, each item sleeping as given; true when each item ran once, in ranges
 * of at most 8 when a worker took part and in one range of 64 when not. *on_workers: whether one did. */
static bool timed_loop(jobs *j, long caller_nanoseconds, long worker_nanoseconds, bool *on_workers)
{
    static timed_context c;
    memset(&c, 0, sizeof c);
    c.caller_nanoseconds = caller_nanoseconds;
    c.worker_nanoseconds = worker_nanoseconds;
    jobs_parallel_for(j, 64, 8, timed_visit, &c);
    bool once = true;
    for (int i = 0; i < 64; ++i)
        once &= atomic_load(&c.visits[i]) == 1;
    *on_workers = atomic_load(&c.worker_ranges) > 0;
    return once && atomic_load(&c.longest_range) == (*on_workers ? 8 : 64);
}

/* A worker that stalls (6 ms an item where the caller takes 0.25 ms: a worker whose core another process
 * took): the first two loops go with the workers (the first not timed: cold caches), the third is tried on
 * the caller alone (one range, worker 0), which is faster, so the next 63 stay there, and the 67th tries
 * the workers again. With workers as quick as the caller, the loops after the try go with the workers.
 * jobs_get_figures counts the loops. */
static void test_loops_go_the_faster_way(void)
{
    const long caller = 250000L, stalled = 6000000L;
    jobs *j = NULL;
    bool on_workers = false, every_item_once = true;
    /* The worker wakes within the caller's 16 ms of items and takes a chunk (on a loaded machine it may not
     * in time: then a new pool, as that second loop would time the workers as quick). */
    for (int attempt = 0; attempt < 5 && !on_workers; ++attempt) {
        jobs_destroy(j);
        j = jobs_create(2);
        CHECK(j != NULL);
        every_item_once &= timed_loop(j, caller, stalled, &on_workers);
        every_item_once &= timed_loop(j, caller, stalled, &on_workers);
    }
    CHECK(on_workers);
    jobs_figures figures;
    jobs_get_figures(j, &figures);
    CHECK(figures.loops == 2 && figures.loops_alone == 0);
    int loops_on_workers = 0;
    for (int loop = 3; loop <= 66; ++loop) {
        every_item_once &= timed_loop(j, caller, stalled, &on_workers);
        loops_on_workers += on_workers;
    }
    jobs_get_figures(j, &figures);
    CHECK(loops_on_workers == 0 && figures.loops == 66 && figures.loops_alone == 64);
    every_item_once &= timed_loop(j, caller, stalled, &on_workers); /* the 67th: the workers tried */
    jobs_get_figures(j, &figures);
    CHECK(figures.loops_alone == 64);
    printf("  stalled worker: %lld loops, %lld on the caller alone\n", figures.loops, figures.loops_alone);
    jobs_destroy(j);

    /* Workers as quick as the caller: the third loop tries the caller alone (twice as slow with two
     * threads), and the next ones go with the workers. */
    j = jobs_create(2);
    CHECK(j != NULL);
    loops_on_workers = 0;
    for (int loop = 1; loop <= 10; ++loop) {
        every_item_once &= timed_loop(j, caller, caller, &on_workers);
        loops_on_workers += loop >= 4 && on_workers;
    }
    jobs_get_figures(j, &figures);
    printf("  quick worker: %lld loops, %lld on the caller alone, %d of the last 7 with the worker taking part\n",
           figures.loops, figures.loops_alone, loops_on_workers);
    CHECK(figures.loops == 10 && figures.loops_alone == 1);
    CHECK(loops_on_workers >= 5);
    CHECK(every_item_once);
    jobs_destroy(j);

    jobs_get_figures(NULL, &figures);
    CHECK(figures.loops == 0 && figures.loops_alone == 0);
}

/* ---- one thread, no jobs, bad arguments ---- */

typedef struct inline_context {
    pthread_t caller;
    int calls, begin, end, worker;
    bool on_caller;
} inline_context;

static void record_call(void *context, int begin, int end, int worker)
{
    inline_context *c = context;
    c->calls++;
    c->begin = begin, c->end = end, c->worker = worker;
    c->on_caller = pthread_equal(pthread_self(), c->caller);
}

static void test_one_thread_runs_inline(void)
{
    jobs *one = jobs_create(1);
    CHECK(one != NULL);
    jobs *none = NULL;
    jobs *each[] = {one, none};
    for (int k = 0; k < 2; ++k) {
        inline_context c = {.caller = pthread_self()};
        jobs_parallel_for(each[k], 500, 7, record_call, &c);
        CHECK(c.calls == 1);
        CHECK(c.begin == 0 && c.end == 500 && c.worker == 0);
        CHECK(c.on_caller);
    }
    CHECK(jobs_thread_count(NULL) == 1);
    jobs_destroy(one);

    /* A loop that fits one chunk runs inline on the caller even with workers. */
    jobs *two = jobs_create(2);
    inline_context c = {.caller = pthread_self()};
    jobs_parallel_for(two, 40, 64, record_call, &c);
    CHECK(c.calls == 1 && c.begin == 0 && c.end == 40 && c.on_caller);
    jobs_destroy(two);
}

static void test_bad_arguments(void)
{
    CHECK(jobs_create(0) == NULL);
    CHECK(jobs_create(-3) == NULL);
    CHECK(jobs_create(JOBS_THREADS_MAX + 1) == NULL);
    CHECK(jobs_processor_count() >= 1 && jobs_processor_count() <= JOBS_THREADS_MAX);
    jobs *j = jobs_create(2);
    inline_context c = {.caller = pthread_self()};
    jobs_parallel_for(j, 0, 8, record_call, &c);
    jobs_parallel_for(j, -5, 8, record_call, &c);
    jobs_parallel_for(j, 100, 8, NULL, &c);
    CHECK(c.calls == 0);
    jobs_destroy(j);
    jobs_destroy(NULL);
}

int main(void)
{
    RUN(test_every_index_once_with_the_serial_results);
    RUN(test_workers_take_part);
    RUN(test_many_calls_allocate_nothing);
    RUN(test_late_workers_take_nothing_of_the_next_loop);
    RUN(test_loops_go_the_faster_way);
    RUN(test_one_thread_runs_inline);
    RUN(test_bad_arguments);
    return check_report();
}
