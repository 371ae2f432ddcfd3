/* bench parse: how fast the md5 parser turns text into models and clips. Files are read into memory once
 * so the disk is not measured; a pass parses and builds every file (loader_parse_md5_model / loader_parse_md5_clip,
 * warnings collected as a loader would), freeing the results outside the timed part; a run is as many
 * passes as make it last 10 ms, and reports the time per pass. Without files it
 * measures the synthetic workload (synth.h defaults: a 33-joint, 6000-vertex mesh and a 300-frame clip).
 * MB here is 10^6 bytes. */
#include "bench.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/file.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "synth.h"

enum { BENCH_PARSE_DEFAULT_RUNS = 15, BENCH_PARSE_MAX_RUNS = 1000, BENCH_PARSE_MAX_PASSES = 100000 };

/* A run repeats the whole set of files until it lasts at least this long, so that small files are timed
 * well above the clock's resolution and the noise of one system call. */
#define BENCH_PARSE_MIN_RUN_SECONDS 0.01

static const char bench_parse_usage[] = "usage: md5tool bench parse [--runs N] [FILE.md5mesh|FILE.md5anim...]";

typedef struct bench_input {
    const char *name;
    bool is_mesh;
    char *text;
    size_t size;
} bench_input;

static bool bench_parse_has_extension(const char *path, const char *extension)
{
    size_t length = strlen(path), extension_length = strlen(extension);
    return length > extension_length && strcasecmp(path + length - extension_length, extension) == 0;
}

/* Parse every input once; the time it took, or a negative value after printing the parser's error. */
static double bench_parse_run(const bench_input *inputs, int count, diag_list *warnings)
{
    double elapsed = 0.0;
    diag_list_clear(warnings);
    for (int i = 0; i < count; ++i) {
        model *m = NULL;
        clip *c = NULL;
        diag err = {0};
        double start = bench_seconds_now();
        bool ok = inputs[i].is_mesh
                      ? loader_parse_md5_model(inputs[i].text, inputs[i].size, inputs[i].name, &m, &err, warnings)
                      : loader_parse_md5_clip(inputs[i].text, inputs[i].size, inputs[i].name, &c, &err, warnings);
        elapsed += bench_seconds_now() - start;
        model_free(m);
        clip_free(c);
        if (!ok) {
            char text[DIAG_TEXT_MAX];
            diag_format(&err, text, sizeof text);
            fprintf(stderr, "%s\n", text);
            return -1.0;
        }
    }
    return elapsed;
}

int bench_parse_main(int argc, char **argv)
{
    int runs = BENCH_PARSE_DEFAULT_RUNS;
    bench_input *inputs = calloc((size_t)(argc > 2 ? argc : 2), sizeof *inputs);
    int count = 0;
    int status = 0;
    if (!inputs) {
        fprintf(stderr, "md5tool: out of memory\n");
        return 1;
    }

    for (int i = 1; i < argc && status == 0; ++i) {
        if (strcmp(argv[i], "--runs") == 0) {
            char *end = NULL;
            long value = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *end != '\0' || value < 1 || value > BENCH_PARSE_MAX_RUNS) {
                fprintf(stderr, "md5tool: --runs needs a number from 1 to %d; %s\n", BENCH_PARSE_MAX_RUNS,
                        bench_parse_usage);
                status = 2;
            }
            runs = (int)value;
            ++i;
            continue;
        }
        bench_input *input = &inputs[count];
        input->name = argv[i];
        input->is_mesh = bench_parse_has_extension(argv[i], ".md5mesh");
        if (!input->is_mesh && !bench_parse_has_extension(argv[i], ".md5anim")) {
            fprintf(stderr, "%s: not an .md5mesh or .md5anim file; %s\n", argv[i], bench_parse_usage);
            status = 2;
            break;
        }
        diag err = {0};
        if (!file_read_all(argv[i], LOADER_MAX_FILE_BYTES, &input->text, &input->size, &err)) {
            char text[DIAG_TEXT_MAX];
            diag_format(&err, text, sizeof text);
            fprintf(stderr, "%s\n", text);
            status = 1;
            break;
        }
        ++count;
    }

    if (status == 0 && count == 0) {
        /* The synthetic workload, generated in memory so the figure needs no assets. */
        inputs[0] = (bench_input){.name = "synth.md5mesh", .is_mesh = true};
        inputs[1] = (bench_input){.name = "synth.md5anim", .is_mesh = false};
        inputs[0].text = synth_mesh_text(&(synth_params){0}, &inputs[0].size);
        inputs[1].text = synth_anim_text(&(synth_params){0}, &inputs[1].size);
        count = 2;
        if (!inputs[0].text || !inputs[1].text) {
            fprintf(stderr, "md5tool: out of memory generating the synthetic workload\n");
            status = 1;
        }
    }

    double *seconds = status == 0 ? calloc((size_t)runs, sizeof *seconds) : NULL;
    if (status == 0 && !seconds) {
        fprintf(stderr, "md5tool: out of memory\n");
        status = 1;
    }
    size_t total_bytes = 0;
    for (int i = 0; i < count; ++i)
        total_bytes += inputs[i].size;
    double megabytes = (double)total_bytes / 1e6;

    diag_list warnings = {0};
    int passes = 1;
    if (status == 0) {
        /* Warm-up and calibration together: double the passes until a run lasts long enough. The first
         * pass also faults in the allocator's pages and warms the caches, so run 1 is not an outlier. */
        for (;;) {
            double elapsed = 0.0;
            for (int pass = 0; pass < passes && elapsed >= 0.0; ++pass) {
                double one = bench_parse_run(inputs, count, &warnings);
                elapsed = one < 0.0 ? one : elapsed + one;
            }
            if (elapsed < 0.0)
                status = 1;
            if (elapsed < 0.0 || elapsed >= BENCH_PARSE_MIN_RUN_SECONDS || passes >= BENCH_PARSE_MAX_PASSES)
                break;
            passes *= 2;
        }
    }
    if (status == 0) {
        printf("bench parse: %d file%s, %.3g MB (10^6 bytes), parse + build timed, free excluded; "
               "warm-up, then %d runs of %d pass%s over all files\n",
               count, count == 1 ? "" : "s", megabytes, runs, passes, passes == 1 ? "" : "es");
        for (int i = 0; i < count; ++i)
            printf("  %s: %zu bytes (%s)\n", inputs[i].name, inputs[i].size, inputs[i].is_mesh ? "mesh" : "anim");
    }
    for (int run = 0; run < runs && status == 0; ++run) {
        seconds[run] = 0.0;
        for (int pass = 0; pass < passes && status == 0; ++pass) {
            double elapsed = bench_parse_run(inputs, count, &warnings);
            if (elapsed < 0.0)
                status = 1;
            seconds[run] += elapsed;
        }
        /* Per pass, so every figure is comparable whatever the pass count. */
        seconds[run] /= passes;
        if (status == 0)
            printf("  run %2d: %10.4f ms  %8.1f MB/s\n", run + 1, seconds[run] * 1e3,
                   seconds[run] > 0.0 ? megabytes / seconds[run] : 0.0);
    }
    if (status == 0) {
        if (warnings.total > 0)
            printf("  (the parser reported %d warning%s per run)\n", warnings.total,
                   warnings.total == 1 ? "" : "s");
        double median = bench_median(seconds, runs);
        printf("parse: %.1f MB/s (%.3g MB, median of %d)\n", median > 0.0 ? megabytes / median : 0.0, megabytes,
               runs);
    }

    diag_list_free(&warnings);
    free(seconds);
    for (int i = 0; i < count; ++i)
        free(inputs[i].text);
    free(inputs);
    return status;
}
