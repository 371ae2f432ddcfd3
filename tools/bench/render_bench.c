/* render_bench: issue 5's benchmark. N animated characters (mannequins and robots on a grid, each with its
 * own clip, phase and speed) drawn headless for F frames, once the default way (every palette in one
 * buffer, which gfx_submit copies into while it is mapped; one instanced draw per mesh) and once the naive
 * way (gfx_bench_begin_naive_frame .. gfx_bench_end_naive_frame: per entity its own uniform upload and a draw
 * call per mesh). Per frame the CPU animation (sample, object space, palette) is timed apart from the
 * rendering (submit, gfx_end_frame or gfx_bench_end_naive_frame, glFinish so the GPU work is inside the
 * timing).
 * Medians over the frames after a warm-up. The frame loop allocates nothing.
 *
 *   render_bench [--entities N ...] [--frames F] [--warmup W] [--size W H] [--no-shadows] [--no-gpu-timer]
 *                [--assets DIR] [--skin-once] [--lod-pixels P|off] [--skinning linear|dual_quaternion] [--no-maps]
 *                [--no-naive]
 *                [--ground flat|hills|steps]
 *
 * Shadows are on by default, as the demo draws: both ways then draw every entity twice (shadow map, then
 * the picture); --no-shadows measures the picture alone. --no-gpu-timer makes no GL timer queries (to
 * measure what they cost). --skin-once skins the instanced way's full-detail entities once for both passes
 * (gfx_frame_desc.skin_once). The bodies have the demo's levels of detail, chosen with the default budget (half a
 * pixel) unless --lod-pixels says otherwise (off: every entity whole); the naive way always draws them whole.
 * --skinning dual_quaternion skins the instanced way's entities with dual quaternions (pose_dual_quaternion_palette
 * on the CPU, half the palette bytes; the vertex shader's other branch); the naive way skins linearly only.
 * --no-naive measures the instanced way alone. The bodies are dressed as the demo's characters are: their
 * textures, normal maps and specular maps (assets/textures); --no-maps draws them without the maps
 * (gfx_frame_desc.no_maps: the same textures bound, the shader's flat normal and default highlight).
 * --ground draws the demo's uneven ground (game/ground_mesh) instead of the flat one, the entities standing
 * on its heights: what the ground mesh costs a frame.
 *
 * Ends with one line per N:
 *   render: 1000 entities, instanced 45.2 ms/frame, naive 612.0 ms/frame, 13.5x
 * then the frame budget, one line per N and way, in the HUD's words (bench_budget.h): draw calls, GPU time
 * per pass (medians of the timer queries' figures seen while timed; they lag a few frames), triangles of
 * every pass and of the shadow, instances per level of detail in the picture and in the shadow:
 *   budget: 1 entities instanced, 3 draw calls; gpu  25.10 ms: shadow 2.60  ground 20.20  characters 2.30
 *     overlay 0.00; triangles 10,624 (shadow 5,312)  LOD 1/0/0/0/0  shadow LOD 1/0/0/0/0
 * (one line) or "gpu  time not available" where the driver has no timer queries (or --no-gpu-timer). */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "bench_budget.h"
#include "bench_common.h"
#include "gfx/gfx.h"
#include "build/build_lod.h"
#include "build/loader.h"
#include "gfx/gfx_bench.h"
#include "md5/md5.h"
#include "platform/platform.h"
#include "platform/platform_image.h"
#include "pose/pose.h"
#include "ground_mesh.h"
#include "scene.h"

#ifndef MARIONETTE_SOURCE_DIR
#define MARIONETTE_SOURCE_DIR "."
#endif

enum { MAX_COUNTS = 16, MAX_JOINTS = 64, CLIP_COUNT = 6 };

typedef struct entity {
    gfx_mesh mesh;
    const model *body;
    const clip *clip;
    float phase, speed;
    mat4 world;
    mat4 palette[MAX_JOINTS];
    pose_dual_quaternion dual_quaternions[MAX_JOINTS];
} entity;

typedef struct frame_times {
    double anim, submit, end_frame, finish, render; /* medians, milliseconds; render = submit+end+finish */
    gfx_stats stats;
} frame_times;

static double now_ms(void)
{
    return 1000.0 * bench_seconds_now();
}

static int usage(void)
{
    fprintf(stderr, "usage: render_bench [--entities N ...] [--frames F] [--warmup W] [--size W H] [--no-shadows] "
                    "[--no-gpu-timer] [--assets DIR]\n"
                    "       [--skin-once] [--lod-pixels P|off] [--skinning linear|dual_quaternion] [--no-maps]\n"
                    "       [--no-naive] [--ground flat|hills|steps]\n");
    return 2;
}

static bool parse_int(const char *text, int minimum, int *out)
{
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (!text[0] || *end || value < minimum || value > 1000000)
        return false;
    *out = (int)value;
    return true;
}

static model *load_model(const char *assets, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/models/%s.md5mesh", assets, name);
    model *m = NULL;
    diag err;
    if (!loader_load_md5_model(path, &m, &err, NULL)) {
        fprintf(stderr, "render_bench: %s:%d: %s\n", err.file, err.line, err.message);
        return NULL;
    }
    return m;
}

static clip *load_clip(const char *assets, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/clips/%s.md5anim", assets, name);
    clip *c = NULL;
    diag err;
    if (!loader_load_md5_clip(path, &c, &err, NULL)) {
        fprintf(stderr, "render_bench: %s:%d: %s\n", err.file, err.line, err.message);
        return NULL;
    }
    return c;
}

/* The camera that sees the whole grid of `side` x `side` characters 1.5 m apart, centred on the origin. */
static gfx_frame_desc grid_camera(int side, int width, int height)
{
    float extent = 1.5f * (float)side;
    gfx_frame_desc frame = {.width = width, .height = height};
    vec3 eye = {0.55f * extent + 4.0f, 0.45f * extent + 3.0f, 0.35f * extent + 2.0f};
    glm_lookat(eye, (vec3){0.0f, 0.5f, 0.0f}, (vec3){0.0f, 1.0f, 0.0f}, frame.view);
    glm_perspective(glm_rad(50.0f), (float)width / (float)height, 0.1f, 4.0f * extent + 50.0f, frame.projection);
    glm_vec3_copy(eye, frame.camera_position);
    return frame;
}

/* What the command line sets on every frame: shadows, skin once, the level-of-detail budget. */
typedef struct frame_options {
    bool shadows, skin_once;
    bool no_maps; /* gfx_frame_desc.no_maps: the bodies' normal and specular maps off (loaded all the same) */
    pose_skinning skinning; /* of the instanced way */
    float lod_pixels; /* gfx_frame_desc.lod_error_pixels: 0 the default, -1 off */
} frame_options;

static frame_times run_mode(entity *entities, int count, bool naive, frame_options options, int warmup, int frames,
                            int width, int height, double *scratch, bench_budget *budget)
{
    joint_pose object[MAX_JOINTS];
    double *anim = scratch, *submit = scratch + frames, *end = scratch + 2 * frames,
           *finish = scratch + 3 * frames, *render = scratch + 4 * frames;
    gfx_frame_desc frame = grid_camera((int)ceil(sqrt((double)count)), width, height);
    frame.no_shadows = !options.shadows;
    frame.skin_once = options.skin_once;
    frame.no_maps = options.no_maps;
    frame.lod_error_pixels = options.lod_pixels;
    frame_times out = {0};
    bool dual = !naive && options.skinning == POSE_SKINNING_DUAL_QUATERNION;
    bench_budget_start(budget);
    for (int f = 0; f < warmup + frames; ++f) {
        float time = (float)f / 60.0f;
        double t0 = now_ms();
        for (int i = 0; i < count; ++i) {
            entity *e = &entities[i];
            const skeleton *s = &e->body->skeleton;
            if (!pose_sample(e->clip, e->phase + e->speed * time, true, object) ||
                !pose_to_object(s->parents, s->joint_count, object, object) ||
                !(dual ? pose_dual_quaternion_palette(object, s->bind_object, s->joint_count,
                                                      e->dual_quaternions)
                       : pose_palette(object, (const mat4 *)s->inverse_bind, s->joint_count, e->palette))) {
                fprintf(stderr, "render_bench: posing entity %d failed\n", i);
                exit(1);
            }
        }
        double t1 = now_ms();
        if (naive)
            gfx_bench_begin_naive_frame(&frame);
        else
            gfx_begin_frame(&frame);
        for (int i = 0; i < count; ++i) {
            entity *e = &entities[i];
            gfx_instance instance = {.mesh = e->mesh, .palette = (const mat4 *)e->palette,
                                     .joint_count = e->body->skeleton.joint_count,
                                     .skinning = dual ? POSE_SKINNING_DUAL_QUATERNION : POSE_SKINNING_LINEAR,
                                     .dual_quaternions = e->dual_quaternions};
            glm_mat4_copy(e->world, instance.world);
            if (!gfx_submit(&instance)) {
                fprintf(stderr, "render_bench: %s\n", gfx_last_error());
                exit(1);
            }
        }
        double t2 = now_ms();
        platform_begin_frame();
        if (naive)
            gfx_bench_end_naive_frame();
        else
            gfx_end_frame();
        double t3 = now_ms();
        gfx_finish();
        double t4 = now_ms();
        if (f >= warmup) {
            int k = f - warmup;
            anim[k] = t1 - t0, submit[k] = t2 - t1, end[k] = t3 - t2, finish[k] = t4 - t3, render[k] = t4 - t1;
            gfx_stats stats = gfx_frame_stats();
            bench_budget_add(budget, &stats);
        }
    }
    const char *errors = gfx_check_errors();
    if (errors) {
        fprintf(stderr, "render_bench: GL errors: %s\n", errors);
        exit(1);
    }
    out.stats = gfx_frame_stats();
    out.anim = bench_median(anim, frames);
    out.submit = bench_median(submit, frames);
    out.end_frame = bench_median(end, frames);
    out.finish = bench_median(finish, frames);
    out.render = bench_median(render, frames);
    return out;
}

int main(int argc, char **argv)
{
    /* glibc's heap trimming makes llvmpipe page-fault on large per-frame uploads (docs/headless-gl.md). */
    mallopt(M_TRIM_THRESHOLD, 1 << 30);

    int counts[MAX_COUNTS] = {100, 1000}, count_total = 2, frames = 60, warmup = 5, width = 1280, height = 720;
    bool counts_given = false, gpu_timer = true, no_naive = false;
    frame_options options = {.shadows = true};
    const char *assets = MARIONETTE_SOURCE_DIR "/assets";
    ground surface = {.kind = GROUND_FLAT};
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--entities") == 0) {
            if (!counts_given)
                count_total = 0, counts_given = true;
            if (a + 1 >= argc)
                return usage();
            while (a + 1 < argc && argv[a + 1][0] != '-') {
                if (count_total == MAX_COUNTS || !parse_int(argv[a + 1], 1, &counts[count_total]))
                    return usage();
                ++count_total, ++a;
            }
        } else if (strcmp(argv[a], "--frames") == 0 && a + 1 < argc) {
            if (!parse_int(argv[++a], 1, &frames))
                return usage();
        } else if (strcmp(argv[a], "--warmup") == 0 && a + 1 < argc) {
            if (!parse_int(argv[++a], 0, &warmup))
                return usage();
        } else if (strcmp(argv[a], "--size") == 0 && a + 2 < argc) {
            if (!parse_int(argv[a + 1], 1, &width) || !parse_int(argv[a + 2], 1, &height))
                return usage();
            a += 2;
        } else if (strcmp(argv[a], "--no-shadows") == 0) {
            options.shadows = false;
        } else if (strcmp(argv[a], "--skin-once") == 0) {
            options.skin_once = true;
        } else if (strcmp(argv[a], "--no-maps") == 0) {
            options.no_maps = true;
        } else if (strcmp(argv[a], "--lod-pixels") == 0 && a + 1 < argc) {
            if (!bench_parse_lod_pixels(argv[++a], &options.lod_pixels))
                return usage();
        } else if (strcmp(argv[a], "--skinning") == 0 && a + 1 < argc) {
            if (!pose_skinning_parse(argv[++a], &options.skinning))
                return usage();
        } else if (strcmp(argv[a], "--no-naive") == 0) {
            no_naive = true;
        } else if (strcmp(argv[a], "--no-gpu-timer") == 0) {
            gpu_timer = false;
        } else if (strcmp(argv[a], "--assets") == 0 && a + 1 < argc) {
            assets = argv[++a];
        } else if (strcmp(argv[a], "--ground") == 0 && a + 1 < argc) {
            surface.kind = ground_kind_from_name(argv[++a]);
            if (surface.kind != GROUND_FLAT && surface.kind != GROUND_HILLS && surface.kind != GROUND_STEPS)
                return usage();
        } else {
            return usage();
        }
    }
    if (count_total == 0)
        return usage();
    int most = 0;
    for (int i = 0; i < count_total; ++i)
        most = counts[i] > most ? counts[i] : most;

    diag err;
    if (!platform_setup(&(platform_desc){.width = width, .height = height, .headless = true}, &err)) {
        fprintf(stderr, "render_bench: no OpenGL 3.3 context: %s\n", err.message);
        return 1;
    }
    static const char *const clip_names[CLIP_COUNT] = {"walk", "run", "idle", "wave", "celebrate", "jump"};
    model *bodies[2] = {load_model(assets, "mannequin"), load_model(assets, "robot")};
    clip *clips[CLIP_COUNT] = {0};
    bool loaded = bodies[0] && bodies[1];
    for (int c = 0; c < CLIP_COUNT; ++c)
        loaded = (clips[c] = load_clip(assets, clip_names[c])) != NULL && loaded;
    if (!loaded || bodies[0]->skeleton.joint_count > MAX_JOINTS || bodies[1]->skeleton.joint_count > MAX_JOINTS)
        return 1;
    /* One frame in 4 timed by the GPU timer (a timed frame flushes after each pass, which llvmpipe pays
     * for): the medians of the frame times are those of untimed frames. */
    if (!gfx_setup(&(gfx_desc){.instance_capacity = most, .palette_capacity = most * MAX_JOINTS, .gpu_timer_every = 4,
                               .no_gpu_timer = !gpu_timer},
                   &err)) {
        fprintf(stderr, "render_bench: %s\n", err.message);
        return 1;
    }
    if (!ground_mesh_upload(&surface)) {
        fprintf(stderr, "render_bench: the ground: %s\n", gfx_last_error());
        return 1;
    }
    /* The bodies dressed as the demo dresses them: their images read and decoded through the scene's way. */
    image_cache *images = image_cache_create(&(image_cache_desc){.decode = platform_image_decode});
    enum { MOST_PARTS = 16 }; /* skin_meshes of a body: the demo's have one or two */
    const image *held[2][3 * MOST_PARTS] = {{0}};
    gfx_mesh meshes[2] = {{0}, {0}};
    char textures[1024];
    snprintf(textures, sizeof textures, "%s/textures", assets);
    for (int b = 0; images && b < 2 && bodies[b]->mesh_count <= MOST_PARTS; ++b) {
        /* Levels of detail as the demo makes them. */
        model_lods *lods = NULL;
        if (!build_lods(bodies[b], NULL, &lods, &err))
            fprintf(stderr, "render_bench: no levels of detail: %s\n", err.message);
        /* Its images as the demo's characters find them (`textures = ../assets/textures`): the texture, the
         * normal map and the specular map of each mesh (none where there is none). */
        char model_path[1024];
        static loader_images found[MOST_PARTS];
        const char *paths[3][MOST_PARTS];
        snprintf(model_path, sizeof model_path, "%s/models/%s.md5mesh", assets, b ? "robot" : "mannequin");
        for (int i = 0; i < bodies[b]->mesh_count; ++i) {
            loader_find_images(model_path, bodies[b]->meshes[i].shader, textures, &found[i]);
            paths[0][i] = found[i].texture[0] ? found[i].texture : NULL;
            paths[1][i] = found[i].normal_map[0] ? found[i].normal_map : NULL;
            paths[2][i] = found[i].specular_map[0] ? found[i].specular_map : NULL;
        }
        meshes[b] = scene_make_mapped_mesh(
            images, &(gfx_mesh_desc){.model = bodies[b], .label = b ? "robot" : "mannequin", .lods = lods},
            paths[0], paths[1], paths[2], held[b], &err, NULL);
        model_lods_free(lods);
    }
    entity *entities = aligned_alloc(16, (size_t)most * sizeof *entities);
    double *scratch = malloc((size_t)frames * 5 * sizeof *scratch);
    bench_budget budget;
    bool budget_made = bench_budget_create(&budget, frames);
    if (!meshes[0].id || !meshes[1].id || !entities || !scratch || !budget_made) {
        fprintf(stderr, "render_bench: setup failed\n");
        return 1;
    }

    printf("render_bench: %dx%d, %d frames after %d warm-up, GL: %s\n", width, height, frames, warmup,
           gfx_renderer_name());
    double summary[MAX_COUNTS][2];
    static char budget_lines[MAX_COUNTS][2][640];
    for (int n = 0; n < count_total; ++n) {
        int count = counts[n], side = (int)ceil(sqrt((double)count));
        for (int i = 0; i < count; ++i) {
            entity *e = &entities[i];
            int body = (i + i / side) % 2;
            e->mesh = meshes[body];
            e->body = bodies[body];
            e->clip = clips[(i * 7 + i / 3) % CLIP_COUNT];
            e->phase = 0.173f * (float)i;
            e->speed = 0.8f + 0.4f * (float)((i * 37) % 11) / 10.0f;
            float x = 1.5f * ((float)(i % side) - 0.5f * (float)(side - 1));
            float z = 1.5f * ((float)(i / side) - 0.5f * (float)(side - 1));
            glm_translate_make(e->world, (vec3){x, ground_at(&surface, x, z).height, z});
            glm_rotate_y(e->world, glm_rad((float)((i * 53) % 360)), e->world);
        }
        for (int mode = 0; mode < (no_naive ? 1 : 2); ++mode) {
            frame_times t =
                run_mode(entities, count, mode == 1, options, warmup, frames, width, height, scratch, &budget);
            char label[64];
            snprintf(label, sizeof label, "%d entities %s", count, mode ? "naive" : "instanced");
            bench_budget_line(&budget, label, budget_lines[n][mode], sizeof budget_lines[n][mode]);
            printf("  %5d entities %-9s render %8.2f ms/frame (submit %.2f, end_frame %.2f, glFinish %.2f), "
                   "animation (CPU) %.2f ms/frame; %d draw calls, %d palette uploads (%s, %.2f MB copied), "
                   "%d matrices (%.2f MB, %s skinning)\n",
                   count, mode ? "naive" : "instanced", t.render, t.submit, t.end_frame, t.finish, t.anim,
                   t.stats.draw_calls, t.stats.palette_uploads, t.stats.palettes_mapped ? "mapped" : "staged",
                   (double)t.stats.palette_bytes_copied / 1e6, t.stats.palette_matrices,
                   (double)t.stats.palette_bytes / 1e6,
                   pose_skinning_name(mode ? POSE_SKINNING_LINEAR : options.skinning));
            summary[n][mode] = t.render;
        }
        fflush(stdout);
    }
    for (int n = 0; n < count_total; ++n) {
        if (no_naive)
            printf("render: %d entities, instanced %.1f ms/frame (%s skinning)\n", counts[n], summary[n][0],
                   pose_skinning_name(options.skinning));
        else
            printf("render: %d entities, instanced %.1f ms/frame, naive %.1f ms/frame, %.1fx\n", counts[n],
                   summary[n][0], summary[n][1], summary[n][1] / summary[n][0]);
    }
    for (int n = 0; n < count_total; ++n)
        printf("%s\n%s%s", budget_lines[n][0], no_naive ? "" : budget_lines[n][1], no_naive ? "" : "\n");

    bench_budget_free(&budget);
    free(scratch);
    free(entities);
    gfx_shutdown();
    platform_shutdown();
    model_free(bodies[0]), model_free(bodies[1]);
    for (int c = 0; c < CLIP_COUNT; ++c)
        clip_free(clips[c]);
    return 0;
}
