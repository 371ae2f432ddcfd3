/* bench pose: measures one character's per-frame pose work, the stages a crowd runs every frame:
 * sample two clips at different times, blend them 0.3 / 0.7, local to object, skin palette.
 * Without files it builds its own 33-joint skeleton and two 60-frame clips in memory, so the figure does
 * not depend on the parser or on assets. All buffers are allocated before timing starts. */
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "build/loader.h"
#include "md5/md5.h"
#include "pose/pose.h"

enum {
    BENCH_RUNS = 15,
    BENCH_DEFAULT_CHARACTERS = 1000,
    BENCH_MAX_CHARACTERS = 1000000,
    BENCH_MAX_THREADS = 256,
    /* Character-frames per run: enough that a run lasts milliseconds, well above clock resolution. */
    BENCH_WORK_PER_RUN = 20000,
    GENERATED_JOINTS = 33,
    GENERATED_FRAMES = 60,
};

#define BENCH_FRAME_SECONDS (1.0f / 60.0f)

static const char bench_usage[] = "usage: md5tool bench pose [MESH ANIM ANIM] [--characters N] [--threads T]";

/* ---- the generated workload ---- */

/* A humanoid-like hierarchy: parents come before children, as the pose stages require. */
static const struct {
    const char *name;
    int parent;
    float offset[3]; /* bind position relative to the parent, Z up */
} generated_joints[GENERATED_JOINTS] = {
    {"origin", -1, {0.0f, 0.0f, 0.0f}},
    {"hips", 0, {0.0f, 0.0f, 40.0f}},
    {"spine", 1, {0.0f, 0.0f, 6.0f}},
    {"spine1", 2, {0.0f, 0.0f, 6.0f}},
    {"spine2", 3, {0.0f, 0.0f, 6.0f}},
    {"neck", 4, {0.0f, 0.0f, 8.0f}},
    {"head", 5, {0.0f, 0.0f, 4.0f}},
    {"jaw", 6, {0.0f, 2.0f, 1.0f}},
    {"eye_left", 6, {1.5f, 3.0f, 3.0f}},
    {"eye_right", 6, {-1.5f, 3.0f, 3.0f}},
    {"clavicle_left", 4, {2.0f, 0.0f, 6.0f}},
    {"upper_arm_left", 10, {6.0f, 0.0f, 0.0f}},
    {"forearm_left", 11, {10.0f, 0.0f, 0.0f}},
    {"hand_left", 12, {9.0f, 0.0f, 0.0f}},
    {"thumb_left", 13, {1.0f, 1.5f, 0.0f}},
    {"fingers_left", 13, {3.0f, 0.0f, 0.0f}},
    {"fingertips_left", 15, {2.0f, 0.0f, 0.0f}},
    {"clavicle_right", 4, {-2.0f, 0.0f, 6.0f}},
    {"upper_arm_right", 17, {-6.0f, 0.0f, 0.0f}},
    {"forearm_right", 18, {-10.0f, 0.0f, 0.0f}},
    {"hand_right", 19, {-9.0f, 0.0f, 0.0f}},
    {"thumb_right", 20, {-1.0f, 1.5f, 0.0f}},
    {"fingers_right", 20, {-3.0f, 0.0f, 0.0f}},
    {"fingertips_right", 22, {-2.0f, 0.0f, 0.0f}},
    {"thigh_left", 1, {4.0f, 0.0f, -2.0f}},
    {"calf_left", 24, {0.0f, 0.0f, -18.0f}},
    {"foot_left", 25, {0.0f, 0.0f, -17.0f}},
    {"toes_left", 26, {0.0f, 5.0f, -2.0f}},
    {"thigh_right", 1, {-4.0f, 0.0f, -2.0f}},
    {"calf_right", 28, {0.0f, 0.0f, -18.0f}},
    {"foot_right", 29, {0.0f, 0.0f, -17.0f}},
    {"toes_right", 30, {0.0f, 5.0f, -2.0f}},
    {"weapon", 20, {-2.0f, 2.0f, 0.0f}},
};

/* Everything the generated workload owns, so one function can free it. */
typedef struct generated_workload {
    int parents[GENERATED_JOINTS];
    char *names[GENERATED_JOINTS];
    mat4 *inverse_bind;
    clip clips[2];
} generated_workload;

static void *allocate_aligned(size_t size)
{
    /* aligned_alloc wants a size that is a multiple of the alignment; 32 covers mat4 under AVX too. */
    size_t alignment = 32;
    size_t rounded = (size + alignment - 1) / alignment * alignment;
    return aligned_alloc(alignment, rounded ? rounded : alignment);
}

/* One clip: every joint swings about its own oblique axis with its own amplitude and phase (`speed`
 * cycles per clip) and the hips bob, so no joint is constant and sampling never meets identity shortcuts.
 * A Doom-3-style clip's last frame equals its first; the other one loops from its last frame back. */
static bool generate_clip(clip *c, int *parents, char **names, float speed, bool last_frame_is_first)
{
    int frame_count = GENERATED_FRAMES;
    memset(c, 0, sizeof *c);
    c->joint_count = GENERATED_JOINTS;
    c->frame_count = frame_count;
    c->frame_rate = 30.0f;
    c->last_frame_is_first = last_frame_is_first;
    c->loop_duration = (float)(last_frame_is_first ? frame_count - 1 : frame_count) / c->frame_rate;
    c->once_duration = (float)(frame_count - 1) / c->frame_rate;
    c->names = names;
    c->parents = parents;
    c->frames = allocate_aligned(sizeof(joint_pose) * (size_t)(frame_count * GENERATED_JOINTS));
    if (!c->frames)
        return false;
    c->bytes = sizeof(joint_pose) * (size_t)(frame_count * GENERATED_JOINTS);

    int period = last_frame_is_first ? frame_count - 1 : frame_count;
    for (int f = 0; f < frame_count; ++f) {
        float phase = 2.0f * (float)GLM_PI * (float)(f % period) / (float)period;
        for (int j = 0; j < GENERATED_JOINTS; ++j) {
            joint_pose *joint = &c->frames[f * GENERATED_JOINTS + j];
            vec3 axis = {sinf((float)j * 1.7f), cosf((float)j * 2.3f), 0.5f + 0.4f * sinf((float)j)};
            float angle = (0.2f + 0.03f * (float)(j % 7)) * speed * sinf(phase * speed + 0.4f * (float)j);
            glm_quatv(joint->rotation, angle, axis);
            for (int k = 0; k < 3; ++k)
                joint->position[k] = generated_joints[j].offset[k];
            if (j == 1)
                joint->position[2] += 2.0f * sinf(2.0f * phase); /* the hips bob */
            joint->unused = 0.0f;
        }
    }
    return true;
}

static void free_generated(generated_workload *w)
{
    free(w->inverse_bind);
    free(w->clips[0].frames);
    free(w->clips[1].frames);
}

static bool generate_workload(generated_workload *w)
{
    memset(w, 0, sizeof *w);
    for (int j = 0; j < GENERATED_JOINTS; ++j) {
        w->parents[j] = generated_joints[j].parent;
        w->names[j] = (char *)generated_joints[j].name; /* clip's names are not const; never written */
    }
    w->inverse_bind = allocate_aligned(sizeof(mat4) * GENERATED_JOINTS);
    if (!w->inverse_bind || !generate_clip(&w->clips[0], w->parents, w->names, 1.0f, true) ||
        !generate_clip(&w->clips[1], w->parents, w->names, 2.0f, false)) {
        free_generated(w);
        return false;
    }

    /* Bind pose: the offsets with no rotation. Its palette against identity inverse-binds is the bind
     * matrices themselves, whose rigid inverses are what a loaded model would carry. */
    joint_pose bind_local[GENERATED_JOINTS], bind_object[GENERATED_JOINTS];
    for (int j = 0; j < GENERATED_JOINTS; ++j) {
        memset(&bind_local[j], 0, sizeof bind_local[j]);
        bind_local[j].rotation[3] = 1.0f;
        memcpy(bind_local[j].position, generated_joints[j].offset, sizeof bind_local[j].position);
    }
    mat4 identities[GENERATED_JOINTS];
    for (int j = 0; j < GENERATED_JOINTS; ++j)
        glm_mat4_identity(identities[j]);
    /* C before C2x does not convert mat4 * to const mat4 * implicitly, hence the casts. */
    if (!pose_to_object(w->parents, GENERATED_JOINTS, bind_local, bind_object) ||
        !pose_palette(bind_object, (const mat4 *)identities, GENERATED_JOINTS, w->inverse_bind)) {
        free_generated(w);
        return false;
    }
    for (int j = 0; j < GENERATED_JOINTS; ++j)
        glm_inv_tr(w->inverse_bind[j]);
    return true;
}

/* ---- the measured work ---- */

/* What every character shares (immutable) and what each owns (written every frame). */
typedef struct crowd {
    const clip *clips[2];
    const int *parents;
    const mat4 *inverse_bind;
    int joint_count;
    int character_count;
    float *phases;          /* two per character: its time offset into each clip */
    joint_pose *local;      /* per character, joint_count each: the blended local pose */
    joint_pose *object;     /* per character */
    mat4 *palette;          /* per character */
} crowd;

/* Per-thread scratch for the two sampled poses, which do not outlive one character's frame. */
typedef struct worker {
    const crowd *crowd;
    int first_character;
    int end_character;
    int frames;
    joint_pose *sampled[2];
    bool ok;
} worker;

static void animate_characters(worker *w)
{
    const crowd *cr = w->crowd;
    int joints = cr->joint_count;
    static const float weights[2] = {0.3f, 0.7f};
    bool ok = true;
    for (int frame = 0; frame < w->frames; ++frame) {
        float time = (float)frame * BENCH_FRAME_SECONDS;
        for (int c = w->first_character; c < w->end_character; ++c) {
            joint_pose *local = cr->local + (size_t)c * (size_t)joints;
            joint_pose *object = cr->object + (size_t)c * (size_t)joints;
            mat4 *palette = cr->palette + (size_t)c * (size_t)joints;
            const joint_pose *layers[2] = {w->sampled[0], w->sampled[1]};
            ok &= pose_sample(cr->clips[0], time + cr->phases[2 * c], true, w->sampled[0]);
            ok &= pose_sample(cr->clips[1], time + cr->phases[2 * c + 1], true, w->sampled[1]);
            ok &= pose_blend(layers, weights, 2, joints, local);
            ok &= pose_to_object(cr->parents, joints, local, object);
            ok &= pose_palette(object, cr->inverse_bind, joints, palette);
        }
    }
    w->ok = ok;
}

static void *worker_main(void *argument)
{
    animate_characters(argument);
    return NULL;
}

/* One run: every thread animates its share of the crowd for `frames` frames. Returns wall seconds, or a
 * negative number if a stage refused its arguments or a thread could not start. */
static double run_once(worker *workers, int thread_count)
{
    double start = bench_seconds_now();
    if (thread_count == 1) {
        animate_characters(&workers[0]);
    } else {
        pthread_t threads[BENCH_MAX_THREADS];
        int started = 0;
        for (; started < thread_count; ++started)
            if (pthread_create(&threads[started], NULL, worker_main, &workers[started]) != 0)
                break;
        for (int t = 0; t < started; ++t)
            pthread_join(threads[t], NULL);
        if (started < thread_count)
            return -1.0;
    }
    double elapsed = bench_seconds_now() - start;
    for (int t = 0; t < thread_count; ++t)
        if (!workers[t].ok)
            return -1.0;
    return elapsed;
}

static bool parse_count(const char *text, int max, int *out)
{
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (!text[0] || *end || value < 1 || value > max)
        return false;
    *out = (int)value;
    return true;
}

/* The timed part: BENCH_RUNS runs after one to warm the caches, each run's figure, then the median. */
static int time_runs(worker *workers, int thread_count, int frames, int character_count, int joint_count)
{
    run_once(workers, thread_count);
    double per_character[BENCH_RUNS];
    for (int run = 0; run < BENCH_RUNS; ++run) {
        double seconds = run_once(workers, thread_count);
        if (seconds < 0.0) {
            fprintf(stderr, "bench pose: a pose stage refused its arguments or a thread did not start\n");
            return 1;
        }
        per_character[run] = seconds * 1e6 / ((double)frames * (double)character_count);
        printf("run %2d: %.3f us/character\n", run + 1, per_character[run]);
    }
    printf("pose: %.3f us/character (%d character%s, %d joints, 2 clips, %d thread%s)\n",
           bench_median(per_character, BENCH_RUNS), character_count, character_count == 1 ? "" : "s", joint_count,
           thread_count, thread_count == 1 ? "" : "s");
    return 0;
}

/* Allocate the crowd's buffers, share the characters out between the threads, and time them. */
static int measure(const clip *const clips[2], const int *parents, const mat4 *inverse_bind, int joint_count,
                   int character_count, int thread_count)
{
    size_t pose_bytes = sizeof(joint_pose) * (size_t)joint_count * (size_t)character_count;
    crowd cr = {
        .clips = {clips[0], clips[1]},
        .parents = parents,
        .inverse_bind = inverse_bind,
        .joint_count = joint_count,
        .character_count = character_count,
        .phases = malloc(sizeof(float) * 2 * (size_t)character_count),
        .local = allocate_aligned(pose_bytes),
        .object = allocate_aligned(pose_bytes),
        .palette = allocate_aligned(sizeof(mat4) * (size_t)joint_count * (size_t)character_count),
    };
    int frames = BENCH_WORK_PER_RUN / character_count > 1 ? BENCH_WORK_PER_RUN / character_count : 1;
    worker workers[BENCH_MAX_THREADS];
    memset(workers, 0, sizeof workers);
    bool allocated = cr.phases && cr.local && cr.object && cr.palette;
    for (int t = 0; t < thread_count; ++t) {
        workers[t].crowd = &cr;
        workers[t].first_character = (int)((long long)character_count * t / thread_count);
        workers[t].end_character = (int)((long long)character_count * (t + 1) / thread_count);
        workers[t].frames = frames;
        workers[t].sampled[0] = allocate_aligned(sizeof(joint_pose) * (size_t)joint_count);
        workers[t].sampled[1] = allocate_aligned(sizeof(joint_pose) * (size_t)joint_count);
        allocated = allocated && workers[t].sampled[0] && workers[t].sampled[1];
    }

    int status = 1;
    if (allocated) {
        /* Spread the crowd over both clips' cycles so characters do not all read the same frames. */
        for (int c = 0; c < character_count; ++c)
            for (int k = 0; k < 2; ++k)
                cr.phases[2 * c + k] = fmodf((float)c * (k ? 0.291f : 0.137f),
                                             clips[k]->loop_duration > 0.0f ? clips[k]->loop_duration : 1.0f);
        status = time_runs(workers, thread_count, frames, character_count, joint_count);
    } else {
        fprintf(stderr, "bench pose: out of memory for %d characters\n", character_count);
    }

    for (int t = 0; t < thread_count; ++t) {
        free(workers[t].sampled[0]);
        free(workers[t].sampled[1]);
    }
    free(cr.phases);
    free(cr.local);
    free(cr.object);
    free(cr.palette);
    return status;
}

/* Load a mesh and two clips, check the clips animate the mesh's skeleton, and measure them. */
static int measure_files(const char *mesh_path, const char *clip_paths[2], int character_count,
                         int thread_count)
{
    model *m = NULL;
    clip *loaded[2] = {NULL, NULL};
    diag err;
    bool ok = loader_load_md5_model(mesh_path, &m, &err, NULL);
    for (int k = 0; k < 2 && ok; ++k)
        ok = loader_load_md5_clip(clip_paths[k], &loaded[k], &err, NULL) &&
             clip_fits_skeleton(loaded[k], &m->skeleton, clip_paths[k], &err);
    int status = 1;
    if (ok) {
        const clip *clips[2] = {loaded[0], loaded[1]};
        status = measure(clips, m->skeleton.parents, (const mat4 *)m->skeleton.inverse_bind,
                         m->skeleton.joint_count, character_count, thread_count);
    } else {
        char message[DIAG_TEXT_MAX];
        diag_format(&err, message, sizeof message);
        fprintf(stderr, "%s\n", message);
    }
    clip_free(loaded[0]);
    clip_free(loaded[1]);
    model_free(m);
    return status;
}

int bench_pose_main(int argc, char **argv)
{
    const char *files[3];
    int file_count = 0;
    int character_count = BENCH_DEFAULT_CHARACTERS;
    int thread_count = 1;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--characters") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], BENCH_MAX_CHARACTERS, &character_count))
                goto usage;
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], BENCH_MAX_THREADS, &thread_count))
                goto usage;
        } else if (argv[i][0] == '-' || file_count == 3) {
            goto usage;
        } else {
            files[file_count++] = argv[i];
        }
    }
    if (file_count != 0 && file_count != 3)
        goto usage;

    if (file_count == 3)
        return measure_files(files[0], &files[1], character_count, thread_count);

    generated_workload w;
    if (!generate_workload(&w)) {
        fprintf(stderr, "bench pose: could not build the generated workload\n");
        return 1;
    }
    const clip *clips[2] = {&w.clips[0], &w.clips[1]};
    int status = measure(clips, w.parents, (const mat4 *)w.inverse_bind, GENERATED_JOINTS, character_count,
                         thread_count);
    free_generated(&w);
    return status;

usage:
    fprintf(stderr, "%s\n", bench_usage);
    return 2;
}
