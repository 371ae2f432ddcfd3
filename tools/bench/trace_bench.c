/* trace_bench: what the final pose in the trace costs a step (issue 34): the player of the real config/
 * walking and running (the shipped mannequin, foot lock and foot IK on), stepped at the demo's 120 Hz, with
 * its step alone, and with the trace's pose written after it (trace_poses_write into a JSON writer on
 * /dev/null): every joint, and every joint at every stage (the capture's copies and the extra foot-lock
 * solve included). The kinds of step take turns, step by step, so whatever else the machine does falls on
 * all of them; medians of each kind's time over the timed steps, and the differences. No GL.
 *
 *   trace_bench [--steps N] [--config DIR]
 *
 * Ends with one line:
 *   trace: player step 14.2 us; + pose, 31 joints 6.1 us; + every stage 24.0 us (median of 3000 steps each) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/config/anim_config.h"
#include "bench_common.h"
#include "cache/cache.h"
#include "crowd.h"
#include "player.h"
#include "trace_poses.h"

enum { KINDS = 3 };

int main(int argc, char **argv)
{
    int steps = 3000;
    const char *config_dir = MARIONETTE_SOURCE_DIR "/config";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            steps = atoi(argv[++i]);
            if (steps < 10 || steps > 1000000) {
                fprintf(stderr, "trace_bench: --steps must be 10 to 1000000\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            config_dir = argv[++i];
        } else {
            fprintf(stderr, "usage: trace_bench [--steps N] [--config DIR]\n");
            return 2;
        }
    }
    char characters[4096];
    snprintf(characters, sizeof characters, "%s/characters.ini", config_dir);
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(characters, cache, &errors);
    const anim_character *character = config ? anim_config_find_character(config, "mannequin") : NULL;
    player *players[KINDS] = {0};
    for (int k = 0; character && k < KINDS; ++k)
        players[k] = player_create(character, NULL, NULL);
    FILE *sink = fopen("/dev/null", "w");
    diag error = {0};
    trace_poses *joints = config ? trace_poses_create(&(trace_poses_options){.joints = "all"}, config, 1, &error) : NULL;
    trace_poses *stages =
        config ? trace_poses_create(&(trace_poses_options){.joints = "all", .stages = true}, config, 1, &error) : NULL;
    crowd *no_crowd = crowd_create(1, 1);
    if (!character || !players[KINDS - 1] || !sink || !joints || !stages || !no_crowd) {
        fprintf(stderr, "trace_bench: cannot set up: %s\n", errors.count ? errors.items[0].message : error.message);
        return 1;
    }
    trace_poses_attach(joints, players[1], no_crowd);
    trace_poses_attach(stages, players[2], no_crowd);
    trace_poses *writes[KINDS] = {NULL, joints, stages};
    double *times[KINDS];
    for (int k = 0; k < KINDS; ++k)
        times[k] = malloc((size_t)steps * sizeof *times[k]);
    const float dt = 1.0f / 120.0f;
    ground flat = {.kind = GROUND_FLAT};
    int warmup = 240;
    for (int s = -warmup; s < steps; ++s) {
        /* Walk, run, walk, stand: a few seconds each, over and over. */
        double t = (s + warmup) * (double)dt;
        double phase = t - 12.0 * (int)(t / 12.0);
        player_intent intent = {.move_forward = phase < 9.0 ? 1.0f : 0.0f, .run = phase >= 3.0 && phase < 6.0};
        for (int k = 0; k < KINDS; ++k) {
            double start = bench_cpu_seconds_now();
            player_step(players[k], &intent, 0.0f, dt, NULL);
            if (writes[k]) {
                json_writer w = json_writer_start(sink);
                json_object_begin(&w);
                trace_poses_write(writes[k], &w, players[k], no_crowd, &flat);
                json_object_end(&w);
            }
            if (s >= 0)
                times[k][s] = bench_cpu_seconds_now() - start;
        }
    }
    double median[KINDS];
    for (int k = 0; k < KINDS; ++k)
        median[k] = bench_median(times[k], steps) * 1e6;
    printf("trace: player step %.1f us; + pose, %d joints %.1f us; + every stage %.1f us (median of %d steps each, "
           "CPU time)\n", median[0], character->model->skeleton.joint_count, median[1] - median[0],
           median[2] - median[0], steps);
    for (int k = 0; k < KINDS; ++k) {
        free(times[k]);
        player_destroy(players[k]);
    }
    trace_poses_destroy(joints);
    trace_poses_destroy(stages);
    crowd_destroy(no_crowd);
    fclose(sink);
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
    return 0;
}
