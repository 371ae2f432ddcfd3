/* crowd_bench: issue 7's benchmark. N wandering crowd members of the real config/ (the demo's body mix,
 * spacing, wander radius and chances from demo.ini), updated on T threads and drawn headless. Per frame it
 * times apart:
 *   update  everything before the GPU: one 60 Hz crowd step (wander, mover, animator: sample, blend,
 *           object space) and every visible member's skin palette written straight into gfx's upload
 *           buffer (scene_write_crowd_palettes), both on the jobs;
 *   render  the rest: handing out the palette slots (scene_queue_crowd: culling, on the calling thread;
 *           its gfx_reserve orphans and maps gfx's palette buffer), gfx_end_frame (which unmaps it) and
 *           glFinish, so the GPU's work is inside.
 * Before the timed frames the crowd wanders for a few simulated seconds (so the members are spread over
 * idle, walk, run and gestures, not all in their first pause), then a few untimed frames let the buffers
 * grow to size; the timed loop allocates nothing. Medians over the timed frames.
 *
 *   crowd_bench --characters N [N ...] [--threads T] [--frames F] [--warmup W] [--wander-seconds S]
 *               [--size W H] [--no-render] [--config DIR]
 *               [--lod-pixels P|off] [--lod-level L] [--no-stand-ins] [--no-shadows] [--skin-once]
 *               [--skinning as_characters|linear|dual_quaternion]
 *               [--look-at METRES] [--one-by-one] [--alternate feet|additive|pairs]
 *
 * The mesh levels of detail are the demo's (each body's levels made when its mesh is), chosen with a
 * budget of half a pixel (the stand-in under 48 pixels tall) unless --lod-pixels says otherwise (off:
 * every character whole); --lod-level draws every character at one level; --no-stand-ins keeps the
 * farthest at the last mesh level; --skin-once skins full-detail members once for both passes
 * (gfx_frame_desc.skin_once). --skinning skins every member one way (scene.skinning, the demo's skin_blend
 * key; default as characters.ini says): a dual-quaternion member's palette is half the bytes.
 * --look-at METRES: members within METRES of the crowd's centre turn their heads to a point 1.6 m above
 * it, as the demo's crowd watches the player (crowd_set_look); a large METRES makes every member look.
 * --one-by-one animates the members one at a time instead of in groups (crowd_set_pairs; the same result),
 * to measure what the groups bring.
 * --alternate STAGE measures what one stage costs in one run: every other timed frame runs without it
 * (feet: the foot lock and foot IK, crowd_set_feet_paused, their state kept; additive: the additive layers'
 * sampling and adding, crowd_set_additive_paused, the layers still advancing; pairs: members one by one), and
 * a line gives the medians of the frames with and without it and their ratio. The two kinds of frame take
 * turns a few milliseconds apart, so whatever else the machine does falls on both: on a shared machine whose
 * runs spread by a fifth, the ratio repeats within a percent or two. The other figures are then those of
 * the frames with the stage.
 * --lod turns on features by significance (crowd.h) as the demo sets them at its defaults (demo.ini's near
 * and far pixels and hysteresis), seen from the demo's starting camera (behind the crowd's centre, a
 * 1280x720 window): the line per N then gives the members per tier; without --render a hidden member
 * gets no palette, as the renderer would cull it.
 * --no-render needs no GL: the palettes go to a buffer of the benchmark's own (the same bytes written).
 * Run headless with SDL_VIDEODRIVER=offscreen. Ends with one line per N:
 *   crowd: 10000 characters, 2 threads, update 6.1 ms/frame (0.61 us/character), render 812 ms/frame
 * (with --no-render, in place of the render figure: the update's CPU time a frame over all threads, which
 * compares two builds on a busy machine better than the wall's time does, the wall counting time others
 * had the cores)
 * then (rendering) the frame budget, one line per N, in the HUD's words (bench_budget.h): draw calls, GPU
 * time per pass (medians of the timer queries' figures seen while timed; they lag a few frames), triangles
 * of every pass and of the shadow, instances per level of detail in the picture and in the shadow:
 *   budget: 1000 characters, 5 draw calls; gpu  480.12 ms: shadow 60.10  ground 40.00  characters 380.00
 *     overlay 0.02; triangles 10,624,000 (shadow 5,312,000)  LOD 1000/0/0/0/0  shadow LOD 1000/0/0/0/0
 * (one line) or "gpu  time not available" where the driver has no timer queries. */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "bench_budget.h"
#include "bench_common.h"
#include "base/jobs.h"
#include "cache/cache.h"
#include "crowd.h"
#include "camera.h"
#include "demo_config.h"
#include "gfx/gfx.h"
#include "platform/platform.h"
#include "scene.h"

#ifndef MARIONETTE_SOURCE_DIR
#define MARIONETTE_SOURCE_DIR "."
#endif

enum { MAX_COUNTS = 16 };
enum { ALTERNATE_NONE, ALTERNATE_FEET, ALTERNATE_ADDITIVE, ALTERNATE_PAIRS };
static const float STEP_SECONDS = 1.0f / 60.0f;

typedef struct bench_options {
    int counts[MAX_COUNTS], count_total;
    int threads, frames, warmup, width, height;
    float wander_seconds;
    bool render;
    bool lod;                       /* features by significance (crowd_set_lod) at the demo's defaults */
    bool one_by_one;                /* crowd_set_pairs(false) */
    float lod_pixels;               /* mesh levels of detail: gfx_frame_desc.lod_error_pixels (-1: off) */
    int lod_force;                  /* gfx_frame_desc.lod_force_level */
    bool no_stand_ins, no_shadows, skin_once;
    scene_skinning skinning;        /* --skinning: scene.skinning, as the demo's skin_blend key sets it */
    float look_metres;              /* crowd_set_look's distance around the centre; 0: no look-at */
    int alternate;                  /* --alternate: ALTERNATE_NONE, _FEET, _ADDITIVE or _PAIRS */
    const char *config_dir;
} bench_options;

typedef struct frame_medians {
    double update, render;          /* the two figures of the summary line */
    double update_cpu;              /* --no-render: CPU ms a frame, all threads (bench_cpu_seconds_now) */
    double crowd_update, palettes;  /* update = crowd_update + palettes */
    double queue, end_frame;        /* render = queue + end_frame (gfx_end_frame and glFinish) */
    gfx_stats stats;
    int grows;                      /* gfx buffer grows during the timed frames: 0 when nothing allocated */
    double poses;                   /* poses computed per step, mean over the timed frames */
    int tiers[CROWD_TIER_COUNT];    /* members per significance tier after the last frame (crowd.h) */
    crowd_memory_figures memory;    /* the crowd's memory, by part */
    double with_stage, without_stage; /* --alternate: the update's medians over the frames with and without */
} frame_medians;

static double now_ms(void)
{
    return 1000.0 * bench_seconds_now();
}

static int usage(void)
{
    fprintf(stderr, "usage: crowd_bench --characters N [N ...] [--threads T] [--frames F] [--warmup W] "
                    "[--wander-seconds S] [--size W H] [--no-render] [--lod] [--config DIR]\n"
                    "       [--lod-pixels P|off] [--lod-level L] [--no-stand-ins] [--no-shadows] [--skin-once]\n"
                    "       [--skinning as_characters|linear|dual_quaternion] [--look-at METRES] [--one-by-one]\n"
                    "       [--alternate feet|additive|pairs]\n");
    return 2;
}

static bool parse_int(const char *text, int minimum, int maximum, int *out)
{
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (!text[0] || *end || value < minimum || value > maximum)
        return false;
    *out = (int)value;
    return true;
}

static bool parse_options(int argc, char **argv, bench_options *o)
{
    *o = (bench_options){.threads = 1, .frames = 30, .warmup = 3, .width = 1280, .height = 720,
                         .wander_seconds = 5.0f, .render = true, .config_dir = MARIONETTE_SOURCE_DIR "/config"};
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--characters") == 0) {
            if (a + 1 >= argc)
                return false;
            while (a + 1 < argc && argv[a + 1][0] != '-') {
                if (o->count_total == MAX_COUNTS || !parse_int(argv[a + 1], 1, 1000000, &o->counts[o->count_total]))
                    return false;
                ++o->count_total, ++a;
            }
        } else if (strcmp(argv[a], "--threads") == 0 && a + 1 < argc) {
            if (!parse_int(argv[++a], 1, JOBS_THREADS_MAX, &o->threads))
                return false;
        } else if (strcmp(argv[a], "--frames") == 0 && a + 1 < argc) {
            if (!parse_int(argv[++a], 1, 100000, &o->frames))
                return false;
        } else if (strcmp(argv[a], "--warmup") == 0 && a + 1 < argc) {
            if (!parse_int(argv[++a], 0, 100000, &o->warmup))
                return false;
        } else if (strcmp(argv[a], "--wander-seconds") == 0 && a + 1 < argc) {
            int seconds;
            if (!parse_int(argv[++a], 0, 3600, &seconds))
                return false;
            o->wander_seconds = (float)seconds;
        } else if (strcmp(argv[a], "--size") == 0 && a + 2 < argc) {
            if (!parse_int(argv[a + 1], 1, 16384, &o->width) || !parse_int(argv[a + 2], 1, 16384, &o->height))
                return false;
            a += 2;
        } else if (strcmp(argv[a], "--lod") == 0) {
            o->lod = true;
        } else if (strcmp(argv[a], "--lod-pixels") == 0 && a + 1 < argc) {
            if (!bench_parse_lod_pixels(argv[++a], &o->lod_pixels))
                return false;
        } else if (strcmp(argv[a], "--lod-level") == 0 && a + 1 < argc) {
            /* Every character at level L, 0 to 4 (clamped to its mesh's levels). */
            int level;
            if (!parse_int(argv[++a], 0, GFX_LOD_LEVELS - 1, &level))
                return false;
            o->lod_force = level + 1;
        } else if (strcmp(argv[a], "--no-stand-ins") == 0) {
            o->no_stand_ins = true;
        } else if (strcmp(argv[a], "--no-shadows") == 0) {
            o->no_shadows = true;
        } else if (strcmp(argv[a], "--skin-once") == 0) {
            o->skin_once = true;
        } else if (strcmp(argv[a], "--skinning") == 0 && a + 1 < argc) {
            static const char *const words[SCENE_SKINNING_COUNT] = {"as_characters", "linear", "dual_quaternion"};
            const char *word = argv[++a];
            o->skinning = SCENE_SKINNING_COUNT;
            for (int k = 0; k < SCENE_SKINNING_COUNT; ++k)
                if (strcmp(word, words[k]) == 0)
                    o->skinning = (scene_skinning)k;
            if (o->skinning == SCENE_SKINNING_COUNT)
                return false;
        } else if (strcmp(argv[a], "--look-at") == 0 && a + 1 < argc) {
            int metres;
            if (!parse_int(argv[++a], 1, 1000000, &metres))
                return false;
            o->look_metres = (float)metres;
        } else if (strcmp(argv[a], "--one-by-one") == 0) {
            o->one_by_one = true;
        } else if (strcmp(argv[a], "--alternate") == 0 && a + 1 < argc) {
            ++a;
            if (strcmp(argv[a], "feet") == 0)
                o->alternate = ALTERNATE_FEET;
            else if (strcmp(argv[a], "additive") == 0)
                o->alternate = ALTERNATE_ADDITIVE;
            else if (strcmp(argv[a], "pairs") == 0)
                o->alternate = ALTERNATE_PAIRS;
            else
                return false;
        } else if (strcmp(argv[a], "--no-render") == 0) {
            o->render = false;
        } else if (strcmp(argv[a], "--config") == 0 && a + 1 < argc) {
            o->config_dir = argv[++a];
        } else {
            return false;
        }
    }
    /* Frames alternate in pairs of one with and one without: at least one of each. */
    return o->count_total > 0 && (o->alternate == ALTERNATE_NONE || o->frames >= 2);
}

static void print_problems(const diag_list *problems)
{
    for (int i = 0; i < problems->count; ++i) {
        char line[DIAG_TEXT_MAX];
        diag_format(&problems->items[i], line, sizeof line);
        fprintf(stderr, "crowd_bench: %s\n", line);
    }
}

/* demo.ini's crowd settings as a spawn desc, centred on the origin; 0 bodies when the mix names an unknown
 * character. */
static crowd_spawn_desc spawn_desc(const demo_config *settings, const anim_config *config)
{
    crowd_spawn_desc desc = {
        .spacing = settings->crowd.spacing,
        .wander_radius = settings->crowd.wander_radius,
        .wave_chance = settings->crowd.wave_chance,
        .celebrate_chance = settings->crowd.celebrate_chance,
        .run_chance = settings->crowd.run_chance,
    };
    for (int i = 0; i < settings->crowd.body_count && i < CROWD_BODIES_MAX; ++i) {
        const anim_character *character = anim_config_find_character(config, settings->crowd.bodies[i].character);
        if (!character) {
            fprintf(stderr, "crowd_bench: demo.ini's crowd mix names \"%s\", which characters.ini does not have\n",
                    settings->crowd.bodies[i].character);
            desc.body_count = 0;
            return desc;
        }
        desc.bodies[desc.body_count++] = (crowd_body){character, settings->crowd.bodies[i].weight};
    }
    return desc;
}

/* A camera from above one corner that sees the whole crowd: `extent` metres across, centred on the origin. */
static gfx_frame_desc crowd_camera(float extent, int width, int height)
{
    gfx_frame_desc frame = {.width = width, .height = height, .light_direction = {0.55f, -1.0f, -0.45f}};
    vec3 eye = {0.55f * extent + 4.0f, 0.45f * extent + 3.0f, 0.35f * extent + 2.0f};
    glm_lookat(eye, (vec3){0.0f, 0.5f, 0.0f}, (vec3){0.0f, 1.0f, 0.0f}, frame.view);
    glm_perspective(glm_rad(50.0f), (float)width / (float)height, 0.1f, 4.0f * extent + 50.0f, frame.projection);
    glm_vec3_copy(eye, frame.camera_position);
    return frame;
}

/* No-render runs: a palette slot per member in a buffer of our own, where gfx's upload buffer would be. */
typedef struct own_palettes {
    mat4 *matrices;
    scene_palette_slot *destinations;
    scene_palette_slot *shown;      /* with --lod: the destinations of members not hidden (the others' empty) */
    size_t bytes;                   /* what the crowd's palettes take, as gfx would upload them */
} own_palettes;

/* A member's room in matrices, as gfx gives it: two dual quaternions to a matrix. */
static size_t own_matrices(const scene *scene, const anim_character *character)
{
    size_t joints = (size_t)character->model->skeleton.joint_count;
    return scene_character_skinning(scene, character) == POSE_SKINNING_DUAL_QUATERNION ? (joints + 1) / 2 : joints;
}

static bool own_palettes_create(own_palettes *own, const crowd *crowd, const scene *scene)
{
    int count = crowd_count(crowd);
    size_t matrices = 0;
    for (int i = 0; i < count; ++i)
        matrices += own_matrices(scene, crowd_character(crowd, i));
    own->matrices = aligned_alloc(64, matrices * sizeof(mat4));
    own->destinations = malloc((size_t)count * sizeof *own->destinations);
    own->shown = malloc((size_t)count * sizeof *own->shown);
    if (!own->matrices || !own->destinations || !own->shown)
        return false;
    size_t next = 0;
    for (int i = 0; i < count; ++i) {
        const anim_character *character = crowd_character(crowd, i);
        if (scene_character_skinning(scene, character) == POSE_SKINNING_DUAL_QUATERNION)
            own->destinations[i] = (scene_palette_slot){.dual_quaternions =
                                                            (pose_dual_quaternion *)(own->matrices + next)};
        else
            own->destinations[i] = (scene_palette_slot){.matrices = own->matrices + next};
        next += own_matrices(scene, character);
    }
    own->bytes = next * sizeof(mat4);
    return true;
}

static void own_palettes_free(own_palettes *own)
{
    free(own->matrices);
    free(own->destinations);
    free(own->shown);
}

/* One frame; the four parts' times in milliseconds. */
static void run_frame(crowd *crowd, scene *scene, jobs *jobs, const gfx_frame_desc *frame, const own_palettes *own,
                      bool lod, double parts[4])
{
    double t0 = now_ms();
    crowd_update(crowd, STEP_SECONDS);
    double t1 = now_ms();
    if (!frame) {
        /* With significance on, a hidden member (out of the demo's view) would be culled and get no palette,
         * as the renderer does with the view it draws: here it gets none either. */
        const scene_palette_slot *destinations = own->destinations;
        if (lod) {
            for (int i = 0; i < crowd_count(crowd); ++i)
                own->shown[i] = crowd_member_tier(crowd, i) == CROWD_TIER_HIDDEN ? (scene_palette_slot){0}
                                                                                 : own->destinations[i];
            destinations = own->shown;
        }
        scene_write_crowd_palettes(crowd, destinations, crowd_count(crowd), jobs);
        double t2 = now_ms();
        parts[0] = t1 - t0, parts[1] = t2 - t1, parts[2] = parts[3] = 0.0;
        return;
    }
    gfx_begin_frame(frame);
    scene->submitted = 0;
    int members = scene_queue_crowd(scene, crowd, NULL);
    double t2 = now_ms();
    scene_write_crowd_palettes(crowd, scene->crowd_palettes, members, jobs);
    double t3 = now_ms();
    platform_begin_frame();
    gfx_end_frame();
    gfx_finish();
    double t4 = now_ms();
    parts[0] = t1 - t0, parts[1] = t3 - t2, parts[2] = t2 - t1, parts[3] = t4 - t3;
}

static bool measure(int count, const bench_options *o, const crowd_spawn_desc *desc, uint64_t seed, scene *scene,
                    jobs *jobs, double *scratch, bench_budget *budget, frame_medians *out)
{
    crowd *crowd = crowd_create(count, seed);
    if (!crowd || crowd_spawn(crowd, count, desc) != count) {
        fprintf(stderr, "crowd_bench: could not spawn %d characters\n", count);
        crowd_destroy(crowd);
        return false;
    }
    crowd_set_jobs(crowd, jobs);
    own_palettes own = {0};
    if (!o->render && !own_palettes_create(&own, crowd, scene)) {
        fprintf(stderr, "crowd_bench: out of memory for %d palettes\n", count);
        own_palettes_free(&own);
        crowd_destroy(crowd);
        return false;
    }
    float extent = desc->spacing * ceilf(sqrtf((float)count)) + 2.0f * desc->wander_radius;
    gfx_frame_desc frame_desc = crowd_camera(extent, o->width, o->height);
    frame_desc.lod_error_pixels = o->lod_pixels;
    frame_desc.lod_force_level = o->lod_force;
    frame_desc.no_stand_ins = o->no_stand_ins;
    frame_desc.no_shadows = o->no_shadows;
    frame_desc.skin_once = o->skin_once;
    const gfx_frame_desc *frame = o->render ? &frame_desc : NULL;
    if (o->lod) {
        /* Features by significance as the demo sets them at its defaults (demo.ini, demo_config_defaults), seen
         * from the demo's starting camera: behind the player at the crowd's centre, in a window of the
         * demo's size. The bench's own camera, which frames the whole crowd, only draws. */
        demo_config defaults = demo_config_defaults();
        camera demo_camera;
        camera_params camera_setup = camera_default_params();
        camera_init(&demo_camera, &camera_setup, (float[3]){0.0f, 0.0f, 0.0f});
        demo_camera.distance = defaults.camera.distance;
        demo_camera.pitch_degrees = defaults.camera.pitch;
        demo_camera.yaw_degrees = defaults.camera.yaw;
        camera_snap(&demo_camera, (float[3]){0.0f, 0.0f, 0.0f});
        mat4 view, projection;
        vec3 eye;
        camera_matrices(&demo_camera, (float)defaults.window.width / (float)defaults.window.height, view, projection,
                        eye);
        crowd_lod lod = {.viewer_x = eye[0], .viewer_z = eye[2], .full_rate_distance = 12.0f,
                         .half_rate_distance = 30.0f, .has_view = true,
                         .viewport_height = (float)defaults.window.height,
                         .near_pixels = defaults.crowd.lod_near_pixels, .far_pixels = defaults.crowd.lod_far_pixels,
                         .hysteresis = defaults.crowd.lod_hysteresis};
        glm_mat4_mul(projection, view, lod.view_projection);
        crowd_set_lod(crowd, &lod);
    }
    crowd_set_pairs(crowd, !o->one_by_one);
    if (o->look_metres > 0.0f)
        crowd_set_look(crowd, &(crowd_look){.target = {0.0f, 1.6f, 0.0f}, .distance = o->look_metres});
    long poses = 0;

    int wander_steps = (int)(o->wander_seconds / STEP_SECONDS + 0.5f);
    for (int step = 0; step < wander_steps; ++step)
        crowd_update(crowd, STEP_SECONDS);
    double *parts[4] = {scratch, scratch + o->frames, scratch + 2 * o->frames, scratch + 3 * o->frames};
    int grows_before = 0;
    double cpu_start = 0.0;
    bench_budget_start(budget);
    for (int f = 0; f < o->warmup + o->frames; ++f) {
        if (f == o->warmup) {
            grows_before = o->render ? gfx_frame_stats().buffer_grows : 0;
            cpu_start = bench_cpu_seconds_now();
        }
        double times[4];
        bool without = o->alternate != ALTERNATE_NONE && f % 2 == 1;
        if (o->alternate == ALTERNATE_FEET)
            crowd_set_feet_paused(crowd, without);
        else if (o->alternate == ALTERNATE_ADDITIVE)
            crowd_set_additive_paused(crowd, without);
        else if (o->alternate == ALTERNATE_PAIRS)
            crowd_set_pairs(crowd, !without && !o->one_by_one);
        run_frame(crowd, scene, jobs, frame, &own, o->lod, times);
        if (f >= o->warmup)
            poses += crowd_poses_updated(crowd);
        if (f >= o->warmup)
            for (int p = 0; p < 4; ++p)
                parts[p][f - o->warmup] = times[p];
        if (f >= o->warmup && o->render) {
            gfx_stats stats = gfx_frame_stats();
            bench_budget_add(budget, &stats);
        }
    }
    double cpu_seconds = bench_cpu_seconds_now() - cpu_start;
    *out = (frame_medians){0};
    /* Without rendering the timed loop is the update alone, so the process's CPU time is the update's. */
    out->update_cpu = o->render ? 0.0 : 1000.0 * cpu_seconds / o->frames;
    double *totals = scratch + 4 * o->frames;
    int frames = o->frames;
    if (o->alternate != ALTERNATE_NONE) {
        /* Timed frame f ran without the stage when f + warmup is odd: their updates' median apart, then the
         * frames with it moved to the front, for the figures below. */
        int with = 0, without = 0;
        for (int f = 0; f < o->frames; ++f) {
            double update = parts[0][f] + parts[1][f];
            if ((f + o->warmup) % 2 == 1) {
                totals[without++] = update;
            } else {
                for (int p = 0; p < 4; ++p)
                    parts[p][with] = parts[p][f];
                ++with;
            }
        }
        out->without_stage = bench_median(totals, without);
        frames = with;
    }
    for (int f = 0; f < frames; ++f)
        totals[f] = parts[0][f] + parts[1][f];
    out->update = bench_median(totals, frames);
    out->with_stage = out->update;
    for (int f = 0; f < frames; ++f)
        totals[f] = parts[2][f] + parts[3][f];
    out->render = bench_median(totals, frames);
    out->crowd_update = bench_median(parts[0], frames);
    out->palettes = bench_median(parts[1], frames);
    out->queue = bench_median(parts[2], frames);
    out->end_frame = bench_median(parts[3], frames);
    out->poses = (double)poses / o->frames;
    crowd_tier_counts(crowd, out->tiers);
    out->memory = crowd_memory(crowd);
    if (o->render) {
        out->stats = gfx_frame_stats();
        out->grows = out->stats.buffer_grows - grows_before;
    } else {
        out->stats.palette_bytes = own.bytes;
    }
    own_palettes_free(&own);
    crowd_destroy(crowd);
    return true;
}

int main(int argc, char **argv)
{
    /* glibc's heap trimming makes llvmpipe page-fault on large per-frame uploads (docs/headless-gl.md). */
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    bench_options o;
    if (!parse_options(argc, argv, &o))
        return usage();
    int most = 0;
    for (int i = 0; i < o.count_total; ++i)
        most = o.counts[i] > most ? o.counts[i] : most;

    char characters_path[1024], settings_path[1024];
    snprintf(characters_path, sizeof characters_path, "%s/characters.ini", o.config_dir);
    snprintf(settings_path, sizeof settings_path, "%s/demo.ini", o.config_dir);
    demo_config settings = demo_config_defaults();
    diag_list problems = {0};
    bool settings_read = demo_config_load(settings_path, &settings, &problems);
    print_problems(&problems);
    diag_list_free(&problems);
    if (!settings_read)
        return 1;

    diag err;
    if (o.render) {
        if (!platform_setup(&(platform_desc){.width = o.width, .height = o.height, .headless = true}, &err)) {
            fprintf(stderr, "crowd_bench: no OpenGL 3.3 context (SDL_VIDEODRIVER=offscreen?): %s\n", err.message);
            return 1;
        }
        /* One frame in 4 timed by the GPU timer (a timed frame flushes after each pass, which llvmpipe pays
         * for): the medians of the frame times are those of untimed frames. */
        if (!gfx_setup(&(gfx_desc){.instance_capacity = most, .palette_capacity = most * 32, .gpu_timer_every = 4},
                       &err)) {
            fprintf(stderr, "crowd_bench: %s\n", err.message);
            return 1;
        }
    }
    cache *cache = cache_create();
    anim_config *config = anim_config_load(characters_path, cache, &problems);
    print_problems(&problems);
    diag_list_free(&problems);
    crowd_spawn_desc desc = config ? spawn_desc(&settings, config) : (crowd_spawn_desc){0};
    scene scene = {.skinning = o.skinning};
    bool ready = config && desc.body_count > 0;
    if (ready && o.render && !scene_sync(&scene, config, &err, NULL)) {
        fprintf(stderr, "crowd_bench: %s: %s\n", err.file, err.message);
        ready = false;
    }
    jobs *jobs = ready ? jobs_create(o.threads) : NULL;
    double *scratch = malloc((size_t)o.frames * 5 * sizeof *scratch);
    bench_budget budget;
    bool budget_made = bench_budget_create(&budget, o.frames);
    if (!ready || !jobs || !scratch || !budget_made) {
        fprintf(stderr, "crowd_bench: setup failed\n");
        return 1;
    }

    printf("crowd_bench: %d threads (%d processors online), %d frames after %d warm-up and %.0f s of wandering, "
           "%s\n",
           o.threads, jobs_processor_count(), o.frames, o.warmup, (double)o.wander_seconds,
           o.render ? gfx_renderer_name() : "no rendering");
    frame_medians results[MAX_COUNTS];
    static char budget_lines[MAX_COUNTS][640];
    for (int n = 0; n < o.count_total; ++n) {
        jobs_figures pool_before, pool_after;
        jobs_get_figures(jobs, &pool_before);
        if (!measure(o.counts[n], &o, &desc, settings.crowd.seed, &scene, jobs, scratch, &budget, &results[n]))
            return 1;
        jobs_get_figures(jobs, &pool_after);
        char label[64];
        snprintf(label, sizeof label, "%d characters", o.counts[n]);
        bench_budget_line(&budget, label, budget_lines[n], sizeof budget_lines[n]);
        const frame_medians *r = &results[n];
        printf("  %6d characters: update %.2f ms (crowd step %.2f, palettes %.2f; %.0f poses computed a step); "
               "skinning %s, palettes %.2f MB a frame",
               o.counts[n], r->update, r->crowd_update, r->palettes, r->poses, scene_skinning_name(o.skinning),
               (double)r->stats.palette_bytes / 1e6);
        if (o.lod)
            printf("; members near %d, middle %d, far %d, hidden %d", r->tiers[CROWD_TIER_NEAR],
                   r->tiers[CROWD_TIER_MIDDLE], r->tiers[CROWD_TIER_FAR], r->tiers[CROWD_TIER_HIDDEN]);
        if (o.render)
            printf(", render %.2f ms (queue %.2f, end_frame + glFinish %.2f); %d drawn, %d culled, %d buffer grows "
                   "while timed; palettes %s (%.2f MB copied)",
                   r->render, r->queue, r->end_frame, r->stats.instances, r->stats.culled, r->grows,
                   r->stats.palettes_mapped ? "mapped" : "staged", (double)r->stats.palette_bytes_copied / 1e6);
        printf("\n");
        const crowd_memory_figures *m = &r->memory;
        double members = m->entity_count > 0 ? (double)m->entity_count : 1.0;
        printf("  %6d characters: memory %.0f B a member: its record %zu, animator record %.0f, controller %.0f "
               "(layers %.0f, object pose %.0f, snapshots %.0f, masks %.0f); shared %.1f KB (%d models, %d clips)\n",
               o.counts[n], (double)m->entity_bytes / members, m->record_bytes, (double)m->animator_records / members,
               (double)(m->controller_layers + m->object_poses + m->snapshots + m->masks) / members,
               (double)m->controller_layers / members, (double)m->object_poses / members,
               (double)m->snapshots / members, (double)m->masks / members, (double)m->shared_bytes / 1024.0,
               m->unique_models, m->unique_clips);
        if (o.alternate != ALTERNATE_NONE) {
            double with = r->with_stage, without = r->without_stage;
            printf("  %6d characters: %s: update %.3f ms with it, %.3f without (medians of alternate frames): "
                   "%.3fx the update without it; ",
                   o.counts[n],
                   o.alternate == ALTERNATE_FEET       ? "foot lock and foot IK"
                   : o.alternate == ALTERNATE_ADDITIVE ? "additive layers sampled and added"
                                                       : "members two by two",
                   with, without, with / without);
            if (with >= without)
                printf("it takes %.1f%% of the update\n", 100.0 * (with - without) / with);
            else
                printf("it saves %.1f%% of the update without it\n", 100.0 * (without - with) / without);
        }
        /* The job pool's loops over the whole run (wandering and warm-up included), and how many ran on the
         * calling thread alone: each goes the way that has been faster (jobs.h). */
        if (o.threads > 1)
            printf("  %6d characters: pool: %lld loops, %lld of them on the calling thread alone (the faster way, "
                   "or trying it)\n",
                   o.counts[n], pool_after.loops - pool_before.loops, pool_after.loops_alone - pool_before.loops_alone);
        fflush(stdout);
    }
    for (int n = 0; n < o.count_total; ++n) {
        const frame_medians *r = &results[n];
        printf("crowd: %d characters, %d thread%s, update %.2f ms/frame (%.3f us/character), ", o.counts[n],
               o.threads, o.threads == 1 ? "" : "s", r->update, 1000.0 * r->update / o.counts[n]);
        if (o.render)
            printf("render %.1f ms/frame\n", r->render);
        else
            printf("update CPU %.2f ms/frame (all threads), render not run (--no-render)\n", r->update_cpu);
    }
    for (int n = 0; n < o.count_total && o.render; ++n)
        printf("%s\n", budget_lines[n]);
    if (o.render) {
        const char *errors = gfx_check_errors();
        if (errors)
            fprintf(stderr, "crowd_bench: GL errors: %s\n", errors);
    }

    bench_budget_free(&budget);
    free(scratch);
    jobs_destroy(jobs);
    scene_free(&scene);
    anim_config_free(config);
    cache_destroy(cache);
    if (o.render) {
        gfx_shutdown();
        platform_shutdown();
    }
    return 0;
}
