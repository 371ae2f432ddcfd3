/* bench anim: measures one entity's animation controller update, as a crowd runs it every frame: a walk
 * to run crossfade in flight on the body (synced, each step firing footsteps) with a wave masked over the
 * right arm, so every update advances three layers, samples them, blends the body, blends the overlay
 * through its mask and writes the object pose. The entities start at different times so they do not
 * share cache lines of the same frames. Controllers are all created before timing starts; the update
 * allocates nothing. Reads the generated assets (run from the repository root, or give the files).
 * A second case runs the same with the wave as an additive layer (baked against its first frame, added
 * through the mask with pose_add), the cost of an additive layer beside an ordinary overlay's.
 * A third plays the demo's 2D strafe blend (config/states.ini: idle and the walk and run in four
 * directions, 9 clips) on the body instead of the crossfade, each entity at its own point of the plane
 * (speeds 0.5 to 3.5 m/s in every direction, so 2 to 4 clips carry weight), under the same wave.
 * A fourth runs the third and then bends both legs with pose_ik_two_bone_object, as foot IK and the foot lock
 * do for planted feet: each ankle to a point a twentieth of the way up to its hip, keeping its animated
 * rotation. The difference between the two is what the IK solves cost an entity. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim_controller.h"
#include "anim/config/anim_config.h"
#include "build/build.h"
#include "build/loader.h"
#include "cache/cache.h"
#include "md5/md5.h"
#include "pose/pose_ik.h"

enum {
    BENCH_RUNS = 15,
    BENCH_DEFAULT_CHARACTERS = 1000,
    BENCH_MAX_CHARACTERS = 1000000,
    BENCH_WORK_PER_RUN = 20000, /* entity updates per run: milliseconds, well above clock resolution */
};

#define BENCH_FRAME_SECONDS (1.0 / 60.0)

static const char bench_usage[] =
    "usage: md5tool bench anim [MESH WALK RUN WAVE] [--characters N] [--config DIR]  (default: the generated "
    "assets/ and config/)";

/* The 2D case: the blend of this name of the first character of the config. */
#define BENCH_BLEND "strafe"

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

/* What a case plays: each entity's state at the start of a run, and the one-shot overlay kept going. */
typedef struct bench_case {
    const char *label;
    const anim_clip *body[2];  /* the crossfade's clips, walk then run; or NULL */
    const anim_blend *blend;   /* or this blend space on the body */
    const anim_clip *overlay;  /* on channel 1, masked to the right arm */
    const pose_ik_chain *legs; /* bent after each update (NULL: none) */
    int leg_count;
} bench_case;

/* Each leg's ankle pulled a twentieth of the way to its hip, keeping its rotation: the work of a planted
 * foot held a little above where the animation puts it. */
static void bend_legs(const skeleton *s, const bench_case *c, joint_pose *object)
{
    for (int f = 0; f < c->leg_count; ++f) {
        const pose_ik_chain *leg = &c->legs[f];
        float target[3], rotation[4];
        for (int k = 0; k < 3; ++k)
            target[k] = object[leg->ankle].position[k] +
                        0.05f * (object[leg->hip].position[k] - object[leg->ankle].position[k]);
        memcpy(rotation, object[leg->ankle].rotation, sizeof rotation);
        pose_ik_two_bone_object(s->parents, s->joint_count, leg, target, rotation, 1.0f, object);
    }
}

/* A point of the blend's plane for entity `index`: speeds 0.5 to 3.5 m/s, directions all round (the golden
 * angle apart, so neighbours differ), in the blend's (forward, left) frame. */
static void blend_point(int index, float point[2])
{
    double speed = 0.5 + 3.0 * (double)((index * 7) % 13) / 12.0;
    double direction = 2.399963229728653 * index;
    point[0] = (float)(speed * cos(direction));
    point[1] = (float)(speed * sin(direction));
}

/* The entities' state at the start of a run: each has played walk (or the blend) for a while, started the
 * crossfade to run (a 1000 s fade, so it stays in flight for the whole measurement) and the wave. */
static bool start_entity(anim_controller *controller, const bench_case *c, int index)
{
    static const float frames_apart = 7.0f;
    float point[2] = {0.0f, 0.0f};
    bool body;
    if (c->blend) {
        blend_point(index, point);
        body = anim_controller_play_blend(controller, 0, c->blend, point, 0.0f, NULL);
    } else {
        body = anim_controller_play(controller, 0, c->body[0], 0.0f, NULL);
    }
    if (!anim_controller_mask_branch(controller, 1, "clavicle.R", 1.0f) || !body ||
        !anim_controller_update(controller, (double)index * frames_apart / 60.0, NULL))
        return false;
    if (!c->blend && !anim_controller_play(controller, 0, c->body[1], 1000.0f, NULL))
        return false;
    return anim_controller_play(controller, 1, c->overlay, 0.0f, NULL) &&
           anim_controller_set_ground_speed(controller, 0, c->blend ? hypotf(point[0], point[1]) : 2.0f);
}

/* Clips the body samples: a clip layer's, and a blend layer's clips that carry weight. */
static int body_clips(const anim_controller *controller)
{
    int clips = 0, layers = anim_controller_layer_count(controller, 0);
    for (int k = 0; k < layers; ++k) {
        float weights[ANIM_BLEND_MAX_CLIPS];
        int count = anim_controller_layer_blend_weights(controller, 0, k, weights);
        if (count == 0)
            ++clips;
        for (int i = 0; i < count; ++i)
            clips += weights[i] > 0.0f;
    }
    return clips;
}

static int measure(const skeleton *s, const bench_case *c, int character_count)
{
    anim_controller **controllers = calloc((size_t)character_count, sizeof *controllers);
    if (!controllers)
        return 1;
    int status = 1;
    long long clips_sampled = 0;
    for (int i = 0; i < character_count; ++i) {
        controllers[i] = anim_controller_create(&(anim_controller_desc){.skeleton = s});
        if (!controllers[i] || !start_entity(controllers[i], c, i)) {
            fprintf(stderr, "bench anim: could not set up entity %d\n", i);
            goto done;
        }
        clips_sampled += body_clips(controllers[i]);
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
                if (c->legs)
                    bend_legs(s, c, anim_controller_object_pose_to_edit(controllers[i]));
            }
        double seconds = bench_seconds_now() - start;
        per_entity[run] = seconds / ((double)frames * character_count) * 1e6;
        /* Keep the one-shot wave going: restart it where it finished, outside the timing. */
        for (int i = 0; i < character_count; ++i)
            if (anim_controller_finished(controllers[i], 1))
                anim_controller_play(controllers[i], 1, c->overlay, 0.0f, &(anim_play_options){.restart = true});
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
    printf("%s: %.3f us/entity (%d entities, %d joints, %d layers", c->label, bench_median(per_entity, BENCH_RUNS),
           character_count, s->joint_count, layers);
    if (c->blend)
        printf(", a %d-clip blend with %.1f of them weighted on average", c->blend->count,
               (double)clips_sampled / character_count);
    if (c->legs)
        printf(", %d leg%s bent", c->leg_count, c->leg_count == 1 ? "" : "s");
    printf(")\n");
    status = 0;

done:
    for (int i = 0; i < character_count; ++i)
        anim_controller_destroy(controllers[i]);
    free(controllers);
    return status;
}

/* The 2D case, on the config's first character and its blend BENCH_BLEND with its own wave clip. */
static int measure_blend(const char *config_folder, int character_count)
{
    char characters[4096];
    snprintf(characters, sizeof characters, "%s/characters.ini", config_folder);
    cache *shared = cache_create();
    diag_list errors = {0};
    anim_config *config = shared ? anim_config_load(characters, shared, &errors) : NULL;
    int status = 1;
    const anim_character *character = config ? anim_config_character(config, 0) : NULL;
    int blend = character ? anim_config_find_blend(character, BENCH_BLEND) : -1;
    const anim_clip *wave = NULL;
    for (int i = 0; character && i < character->clip_count; ++i)
        if (strcmp(character->clips[i].name, "wave") == 0)
            wave = &character->clips[i];
    if (blend < 0 || !wave) {
        for (int i = 0; i < errors.count; ++i)
            fprintf(stderr, "%s:%d: %s\n", errors.items[i].file, errors.items[i].line, errors.items[i].message);
        fprintf(stderr, "bench anim: %s: no character with a [blend " BENCH_BLEND "] and a clip 'wave'\n", characters);
    } else {
        bench_case c = {.label = "anim, 2D blend " BENCH_BLEND, .blend = &character->blends[blend], .overlay = wave};
        status = measure(&character->model->skeleton, &c, character_count);
        if (status == 0 && character->leg_count > 0) {
            bench_case bent = c;
            bent.label = "anim, 2D blend " BENCH_BLEND " + foot IK";
            bent.legs = character->legs;
            bent.leg_count = character->leg_count;
            status = measure(&character->model->skeleton, &bent, character_count);
        }
    }
    diag_list_free(&errors);
    anim_config_free(config);
    cache_destroy(shared);
    return status;
}

int bench_anim_main(int argc, char **argv)
{
    const char *files[4];
    int file_count = 0;
    int character_count = BENCH_DEFAULT_CHARACTERS;
    const char *config_folder = "config";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--characters") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], BENCH_MAX_CHARACTERS, &character_count))
                goto usage;
        } else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            config_folder = argv[++i];
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
    bench_case crossfade = {.label = "anim", .body = {&library[0], &library[1]}, .overlay = &library[2]};
    status = measure(&m->skeleton, &crossfade, character_count);
    clip *wave_deltas = NULL;
    if (status == 0 && build_additive_clip(clips[2], clips[2], 0, &wave_deltas, &err)) {
        anim_clip additive = {.name = "wave_additive", .clip = wave_deltas, .sync_group = -1, .additive = true};
        bench_case additive_case = {.label = "anim, wave additive", .body = {&library[0], &library[1]},
                                    .overlay = &additive};
        status = measure(&m->skeleton, &additive_case, character_count);
        clip_free(wave_deltas);
    } else if (status == 0) {
        goto failed;
    }
    if (status == 0)
        status = measure_blend(config_folder, character_count);
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
