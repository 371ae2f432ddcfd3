/* bench anim: measures one entity's animation controller update, as a crowd runs it every frame: a walk
 * to run crossfade in flight on the body (synced, each step firing footsteps) with a wave masked over the
 * right arm, so every update advances three layers, samples them, blends the body, blends the overlay
 * through its mask and writes the object pose. The entities start at different times so they do not
 * share cache lines of the same frames. Controllers are all created before timing starts; the update
 * allocates nothing. Reads the generated assets (run from the repository root, or give the files).
 * A second case runs the same with the wave as an additive layer (baked against its first frame, added
 * through the mask with pose_add), the cost of an additive layer beside an ordinary overlay's. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim_controller.h"
#include "build/build.h"
#include "build/loader.h"
#include "md5/md5.h"

enum {
    BENCH_RUNS = 15,
    BENCH_DEFAULT_CHARACTERS = 1000,
    BENCH_MAX_CHARACTERS = 1000000,
    BENCH_WORK_PER_RUN = 20000, /* entity updates per run: milliseconds, well above clock resolution */
};

#define BENCH_FRAME_SECONDS (1.0 / 60.0)

static const char bench_usage[] =
    "usage: md5tool bench anim [MESH WALK RUN WAVE] [--characters N]  (default: the generated assets/)";

static const char *const default_files[4] = {
    "assets/models/mannequin.md5mesh",
    "assets/clips/walk.md5anim",
    "assets/clips/run.md5anim",
    "assets/clips/wave.md5anim",
};

static bool parse_count(const char *text, int max, int *out)
{
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (!end || *end != '\0' || value < 1 || value > max)
        return false;
    *out = (int)value;
    return true;
}

/* The entities' state at the start of a run: each has played walk for a while, started the crossfade
 * to run (a 1000 s fade, so it stays in flight for the whole measurement) and the wave. */
static bool start_entity(anim_controller *controller, const anim_clip *library, int index)
{
    static const float frames_apart = 7.0f;
    if (!anim_controller_mask_branch(controller, 1, "clavicle.R", 1.0f) ||
        !anim_controller_play(controller, 0, &library[0], 0.0f, NULL) ||
        !anim_controller_update(controller, (double)index * frames_apart / 60.0, NULL))
        return false;
    return anim_controller_play(controller, 0, &library[1], 1000.0f, NULL) &&
           anim_controller_play(controller, 1, &library[2], 0.0f, NULL) &&
           anim_controller_set_ground_speed(controller, 0, 2.0f);
}

static int measure(const model *m, const anim_clip *library, int character_count, const char *label)
{
    anim_controller **controllers = calloc((size_t)character_count, sizeof *controllers);
    if (!controllers)
        return 1;
    int status = 1;
    for (int i = 0; i < character_count; ++i) {
        controllers[i] = anim_controller_create(&(anim_controller_desc){.skeleton = &m->skeleton});
        if (!controllers[i] || !start_entity(controllers[i], library, i)) {
            fprintf(stderr, "bench anim: could not set up entity %d\n", i);
            goto done;
        }
    }

    int frames = BENCH_WORK_PER_RUN / character_count;
    if (frames < 1)
        frames = 1;
    double per_entity[BENCH_RUNS];
    long long events = 0;
    anim_update_result result;
    for (int run = 0; run < BENCH_RUNS; ++run) {
        double start = bench_seconds_now();
        for (int frame = 0; frame < frames; ++frame)
            for (int i = 0; i < character_count; ++i) {
                anim_controller_update(controllers[i], BENCH_FRAME_SECONDS, &result);
                events += result.event_count;
            }
        double seconds = bench_seconds_now() - start;
        per_entity[run] = seconds / ((double)frames * character_count) * 1e6;
        /* Keep the one-shot wave going: restart it where it finished, outside the timing. */
        for (int i = 0; i < character_count; ++i)
            if (anim_controller_finished(controllers[i], 1))
                anim_controller_play(controllers[i], 1, &library[2], 0.0f, &(anim_play_options){.restart = true});
    }
    double fastest = per_entity[0], slowest = per_entity[0];
    for (int run = 1; run < BENCH_RUNS; ++run) {
        fastest = per_entity[run] < fastest ? per_entity[run] : fastest;
        slowest = per_entity[run] > slowest ? per_entity[run] : slowest;
    }
    int layers = anim_controller_layer_count(controllers[0], 0) + anim_controller_layer_count(controllers[0], 1);
    printf("entity update (advance + events + sample + blend + mask + to_object), %d frames x %d entities per "
           "run, %d runs: fastest %.3f, slowest %.3f us/entity; %lld events fired; %zu bytes per entity\n",
           frames, character_count, BENCH_RUNS, fastest, slowest, events, anim_controller_bytes(controllers[0]));
    printf("%s: %.3f us/entity (%d entities, %d joints, %d layers)\n", label, bench_median(per_entity, BENCH_RUNS),
           character_count, m->skeleton.joint_count, layers);
    status = 0;

done:
    for (int i = 0; i < character_count; ++i)
        anim_controller_destroy(controllers[i]);
    free(controllers);
    return status;
}

int bench_anim_main(int argc, char **argv)
{
    const char *files[4];
    int file_count = 0;
    int character_count = BENCH_DEFAULT_CHARACTERS;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--characters") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], BENCH_MAX_CHARACTERS, &character_count))
                goto usage;
        } else if (argv[i][0] == '-' || file_count == 4) {
            goto usage;
        } else {
            files[file_count++] = argv[i];
        }
    }
    if (file_count != 0 && file_count != 4)
        goto usage;
    if (file_count == 0)
        memcpy(files, default_files, sizeof files);

    model *m = NULL;
    clip *clips[3] = {NULL, NULL, NULL};
    diag err;
    int status = 1;
    if (!loader_load_md5_model(files[0], &m, &err, NULL))
        goto failed;
    for (int k = 0; k < 3; ++k)
        if (!loader_load_md5_clip(files[1 + k], &clips[k], &err, NULL) || !clip_fits_skeleton(clips[k], &m->skeleton, files[1 + k], &err))
            goto failed;

    /* Walk and run as config/clips.ini sets them up: one sync group, footsteps at the heel strikes. */
    static const anim_event_mark walk_marks[] = {{0.0f, "footstep.L"}, {15.0f, "footstep.R"}};
    static const anim_event_mark run_marks[] = {{0.0f, "footstep.L"}, {10.5f, "footstep.R"}};
    anim_clip library[3] = {
        {.name = "walk", .clip = clips[0], .loop = true, .ground_speed = 1.4f, .sync_group = 0, .event_count = 2,
         .events = walk_marks},
        {.name = "run", .clip = clips[1], .loop = true, .ground_speed = 3.5f, .sync_group = 0, .event_count = 2,
         .events = run_marks},
        {.name = "wave", .clip = clips[2], .loop = false, .sync_group = -1},
    };
    status = measure(m, library, character_count, "anim");
    clip *wave_deltas = NULL;
    if (status == 0 && build_additive_clip(clips[2], clips[2], 0, &wave_deltas, &err)) {
        library[2] = (anim_clip){.name = "wave_additive", .clip = wave_deltas, .sync_group = -1, .additive = true};
        status = measure(m, library, character_count, "anim, wave additive");
        clip_free(wave_deltas);
    } else if (status == 0) {
        goto failed;
    }
    goto done;

failed:
    fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.message);
done:
    for (int k = 0; k < 3; ++k)
        clip_free(clips[k]);
    model_free(m);
    return status;

usage:
    fprintf(stderr, "%s\n", bench_usage);
    return 2;
}
