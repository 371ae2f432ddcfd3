/* test_anim_controller: the per-entity controller against the generated mannequin and its clips (played
 * with the settings config/clips.ini gives them) and against small clips built in memory:
 *   - weights sum to 1 through fades; a crossfade's ends are the pure clips;
 *   - interrupting a fade in flight does not pop, at 30, 60 and 144 Hz: no joint turns in one step by
 *     more than the fastest of the clips involved does on its own, plus 1 degree;
 *   - walk and run in one sync group strike with the left foot together; a walk -> run crossfade fires one
 *     footstep per contact (not one per layer), at the times each clip alone strikes, weighted by both
 *     layers, also with marks a little apart; clips that are not one contact fire their own events;
 *   - a wave masked to the right arm leaves the legs as the walk has them and the arm as the wave;
 *   - additive (the wave baked against its first frame): weight 0 is the walk bit for bit, an identity
 *     clip within 1e-6, on its reference it is the wave within 1e-5, masked to the right arm the rest
 *     is the walk bit for bit, and a crossfade between it and the ordinary wave does not pop;
 *   - events: the same timeline at 30, 60 and 144 Hz (with one big step over several loops) fires the
 *     same sequence; each crossing of several whole loops fires;
 *   - root motion: the walk travels 1.4 m per cycle with planted feet still in the world, the turn turns
 *     90 degrees; in place strips the travel;
 *   - time scale 0 freezes everything; a one-shot holds its last frame and says it finished;
 *   - memory: 88 bytes a joint plus 512 (<= 4 KB); the local pose sampled again is bit for bit what the
 *     update showed; a snapshot keeps the pose to its 16-bit precision; a 100-joint skeleton, worked
 *     through in slices, gives exactly pose_sample's and pose_blend's numbers. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim_controller.h"
#include "check.h"
#include "build/build.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "pose/pose.h"
#include "synth.h"

#define ASSETS MARIONETTE_SOURCE_DIR "/assets/"
#define DEGREES(radians) ((radians) * 180.0 / GLM_PI)

static const double step_rates[] = {30.0, 60.0, 144.0};
enum { STEP_RATE_COUNT = sizeof step_rates / sizeof step_rates[0] };

/* ---- the generated clips, set up as config/clips.ini does ---- */

enum { IDLE, WALK, RUN, WALK_ROOT_MOTION, JUMP, WAVE, TURN_LEFT, CLIP_COUNT };

static const char *const clip_files[CLIP_COUNT] = {"idle", "walk", "run", "walk_root_motion", "jump", "wave",
                                                   "turn_left"};
static const anim_event_mark walk_marks[] = {{0.0f, "footstep.L"}, {15.0f, "footstep.R"}};
static const anim_event_mark run_marks[] = {{0.0f, "footstep.L"}, {10.5f, "footstep.R"}};

static model *mannequin;
static clip *clips[CLIP_COUNT];
static anim_clip library[CLIP_COUNT];

static bool load_assets(void)
{
    diag err;
    if (!loader_load_md5_model(ASSETS "models/mannequin.md5mesh", &mannequin, &err, NULL))
        return false;
    for (int i = 0; i < CLIP_COUNT; ++i) {
        char path[512];
        snprintf(path, sizeof path, ASSETS "clips/%s.md5anim", clip_files[i]);
        if (!loader_load_md5_clip(path, &clips[i], &err, NULL))
            return false;
        anim_clip *a = &library[i];
        snprintf(a->name, sizeof a->name, "%s", clip_files[i]);
        a->clip = clips[i];
        a->loop = i == IDLE || i == WALK || i == RUN || i == WALK_ROOT_MOTION;
        a->sync_group = i == WALK || i == RUN || i == WALK_ROOT_MOTION ? 0 : -1;
        a->ground_speed = i == RUN ? 3.5f : i == WALK || i == WALK_ROOT_MOTION ? 1.4f : 0.0f;
        a->root_mode = i == WALK_ROOT_MOTION || i == TURN_LEFT ? ANIM_ROOT_MOTION : ANIM_ROOT_IN_PLACE;
        if (i == WALK || i == WALK_ROOT_MOTION) {
            a->events = walk_marks;
            a->event_count = 2;
        } else if (i == RUN) {
            a->events = run_marks;
            a->event_count = 2;
        }
    }
    return true;
}

static anim_controller *new_controller(void)
{
    return anim_controller_create(&(anim_controller_desc){.skeleton = &mannequin->skeleton});
}

static int joint_count(void)
{
    return mannequin->skeleton.joint_count;
}

static int joint_named(const char *name)
{
    for (int i = 0; i < joint_count(); ++i)
        if (strcmp(mannequin->skeleton.names[i], name) == 0)
            return i;
    return -1;
}

/* Degrees between two rotations (q and -q the same). From the chord |a - b| = 2 sin(angle / 4) rather
 * than acos(dot), which is not 0 for equal inputs whose length rounds below 1. */
static double angle_between(const float a[4], const float b[4])
{
    double dot = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
    double sign = dot < 0.0 ? -1.0 : 1.0, chord2 = 0.0;
    for (int k = 0; k < 4; ++k)
        chord2 += (a[k] - sign * b[k]) * (a[k] - sign * b[k]);
    return DEGREES(4.0 * asin(fmin(1.0, sqrt(chord2) / 2.0)));
}

static double largest_difference(const joint_pose *a, const joint_pose *b, int first, int last)
{
    double largest = 0.0;
    for (int i = first; i <= last; ++i) {
        largest = fmax(largest, angle_between(a[i].rotation, b[i].rotation));
        for (int k = 0; k < 3; ++k)
            largest = fmax(largest, fabs((double)a[i].position[k] - b[i].position[k]));
    }
    return largest;
}

/* The controller's local pose (it keeps none: it samples it again), in a buffer of the test's that the
 * next call overwrites. */
static const joint_pose *local_pose(const anim_controller *controller)
{
    static joint_pose pose[64];
    CHECK(joint_count() <= 64 && anim_controller_local_pose(controller, pose));
    return pose;
}

static float total_weight(const anim_controller *controller, int channel)
{
    float total = 0.0f;
    for (int k = 0; k < anim_controller_layer_count(controller, channel); ++k) {
        anim_layer_info info;
        anim_controller_layer(controller, channel, k, &info);
        total += info.weight;
    }
    return total;
}

/* ---- creation ---- */

static void test_create_and_memory(void)
{
    CHECK(anim_controller_create(NULL) == NULL);
    CHECK(anim_controller_create(&(anim_controller_desc){0}) == NULL);
    anim_controller *controller = new_controller();
    CHECK(controller != NULL);
    size_t bytes = anim_controller_bytes(controller);
    printf("  memory per entity: %zu bytes for %d joints\n", bytes, joint_count());
    /* As the header says: 88 bytes a joint and 896 of layer state, rounded up to the 32-byte alignment. */
    CHECK(bytes == (896 + 88 * (size_t)joint_count() + 31) / 32 * 32);
    CHECK(bytes <= 4096);
    /* Before any clip: the bind pose, in object space as the mesh stores it. */
    const joint_pose *object = anim_controller_object_pose(controller);
    for (int i = 0; i < joint_count(); ++i)
        for (int k = 0; k < 3; ++k)
            CHECK_NEAR(object[i].position[k], mannequin->skeleton.bind_object[i].position[k], 1e-5);
    CHECK(!anim_controller_play(controller, 0, NULL, 0.0f, NULL));
    CHECK(!anim_controller_play(controller, ANIM_CHANNEL_COUNT, &library[WALK], 0.0f, NULL));
    CHECK(!anim_controller_play(controller, 0, &library[WALK], -1.0f, NULL));
    CHECK(!anim_controller_play(controller, 0, &library[WALK], 0.0f, &(anim_play_options){.speed = -1.0f}));
    CHECK(!anim_controller_stop(controller, 0, 0.2f));
    CHECK(!anim_controller_update(controller, -0.1, NULL));
    CHECK(!anim_controller_update(controller, NAN, NULL));
    CHECK(!anim_controller_mask_branch(controller, 1, "no such joint", 1.0f));
    anim_controller_destroy(controller);
}

/* ---- crossfades ---- */

static void test_weights_sum_to_one_through_fades(void)
{
    anim_controller *controller = new_controller();
    anim_controller_play(controller, 0, &library[IDLE], 0.0f, NULL);
    const struct {
        int step;
        int clip;
        float fade;
    } plays[] = {{10, WALK, 0.5f}, {25, RUN, 0.4f}, {32, IDLE, 0.3f}, {36, WALK, 0.3f}, {38, JUMP, 0.2f}};
    int next = 0, most_layers = 0;
    for (int step = 0; step < 120; ++step) {
        if (next < 5 && plays[next].step == step) {
            CHECK(anim_controller_play(controller, 0, &library[plays[next].clip], plays[next].fade, NULL));
            ++next;
        }
        CHECK(anim_controller_update(controller, 1.0 / 60.0, NULL));
        CHECK_NEAR(total_weight(controller, 0), 1.0f, 1e-6);
        if (anim_controller_layer_count(controller, 0) > most_layers)
            most_layers = anim_controller_layer_count(controller, 0);
    }
    CHECK(most_layers == ANIM_CHANNEL_LAYERS); /* the fifth play went through the snapshot */
    CHECK(anim_controller_layer_count(controller, 0) == 1);
    anim_controller_destroy(controller);
}

static void test_crossfade_ends_are_the_pure_clips(void)
{
    anim_controller *controller = new_controller();
    joint_pose *expected = malloc(sizeof(joint_pose) * (size_t)joint_count());
    anim_controller_play(controller, 0, &library[IDLE], 0.0f, NULL);
    for (int step = 0; step < 20; ++step)
        anim_controller_update(controller, 1.0 / 60.0, NULL);
    anim_layer_info info;
    anim_controller_layer(controller, 0, 0, &info);
    pose_sample(clips[IDLE], (float)info.time, true, expected);
    CHECK(memcmp(expected, local_pose(controller), sizeof(joint_pose) * (size_t)joint_count()) == 0);

    /* Just started, the new clip has no weight: still exactly the idle. */
    anim_controller_play(controller, 0, &library[WALK], 0.25f, NULL);
    anim_controller_update(controller, 0.0, NULL);
    CHECK(memcmp(expected, local_pose(controller), sizeof(joint_pose) * (size_t)joint_count()) == 0);
    anim_controller_update(controller, 0.1, NULL);
    CHECK(anim_controller_layer_count(controller, 0) == 2);

    /* Faded in: idle is dropped and the pose is exactly the walk. */
    anim_controller_update(controller, 0.2, NULL);
    CHECK(anim_controller_layer_count(controller, 0) == 1);
    anim_controller_layer(controller, 0, 0, &info);
    CHECK(info.clip == &library[WALK] && info.weight == 1.0f);
    pose_sample(clips[WALK], (float)info.time, true, expected);
    CHECK(memcmp(expected, local_pose(controller), sizeof(joint_pose) * (size_t)joint_count()) == 0);

    /* Playing the clip already on top changes nothing; restart starts it over. */
    CHECK(anim_controller_play(controller, 0, &library[WALK], 0.25f, NULL));
    CHECK(anim_controller_layer_count(controller, 0) == 1);
    CHECK(anim_controller_play(controller, 0, &library[WALK], 0.25f, &(anim_play_options){.restart = true}));
    CHECK(anim_controller_layer_count(controller, 0) == 2);
    free(expected);
    anim_controller_destroy(controller);
}

/* Each joint's largest per-step turn when the clip plays alone at this step rate, folded into largest[]. */
static void clip_own_largest_steps(int which, double dt, double *largest)
{
    joint_pose *a = malloc(sizeof(joint_pose) * (size_t)joint_count());
    joint_pose *b = malloc(sizeof(joint_pose) * (size_t)joint_count());
    const anim_clip *playable = &library[which];
    double duration = playable->loop ? clips[which]->loop_duration : clips[which]->once_duration;
    for (double t = 0.0; t < duration; t += dt / 4.0) {
        pose_sample(clips[which], (float)t, playable->loop, a);
        pose_sample(clips[which], (float)(t + dt), playable->loop, b);
        for (int i = 0; i < joint_count(); ++i)
            largest[i] = fmax(largest[i], angle_between(a[i].rotation, b[i].rotation));
    }
    free(a);
    free(b);
}

/* Interrupts at every step rate: walk->run interrupted by idle mid-fade, idle->walk interrupted by run
 * and then by walk again, and a burst of plays that overflows the stack into the snapshot. */
static void test_interrupts_do_not_pop(void)
{
    const struct {
        double at;
        int clip;
        float fade;
    } timeline[] = {
        {0.0, IDLE, 0.0f},  {1.0, WALK, 0.4f}, {2.5, RUN, 0.4f},  {2.7, IDLE, 0.5f}, {4.0, WALK, 0.5f},
        {4.25, RUN, 0.5f},  {4.5, WALK, 0.5f}, {6.0, RUN, 0.5f},  {6.1, WALK, 0.5f}, {6.2, IDLE, 0.6f},
        {6.3, RUN, 0.6f},   {6.4, IDLE, 0.6f},
    };
    int timeline_count = sizeof timeline / sizeof timeline[0];
    joint_pose *previous = malloc(sizeof(joint_pose) * (size_t)joint_count());
    double own[64], largest[64];
    for (int r = 0; r < STEP_RATE_COUNT; ++r) {
        double dt = 1.0 / step_rates[r];
        for (int i = 0; i < joint_count(); ++i)
            own[i] = largest[i] = 0.0;
        clip_own_largest_steps(IDLE, dt, own);
        clip_own_largest_steps(WALK, dt, own);
        clip_own_largest_steps(RUN, dt, own);
        anim_controller *controller = new_controller();
        int next = 0, steps = (int)lround(8.0 * step_rates[r]);
        for (int step = 0; step < steps; ++step) {
            double now = step * dt;
            bool fading = anim_controller_layer_count(controller, 0) > 1;
            while (next < timeline_count && timeline[next].at <= now + 1e-9) {
                anim_controller_play(controller, 0, &library[timeline[next].clip], timeline[next].fade, NULL);
                ++next;
                fading = true;
            }
            anim_controller_update(controller, dt, NULL);
            const joint_pose *now_pose = local_pose(controller);
            for (int i = 0; step > 0 && fading && i < joint_count(); ++i)
                largest[i] = fmax(largest[i], angle_between(previous[i].rotation, now_pose[i].rotation));
            memcpy(previous, now_pose, sizeof(joint_pose) * (size_t)joint_count()); /* what this step showed */
        }
        /* The brief's measure: the largest joint step against the fastest joint of the clips alone. Per
         * joint the fade itself can exceed a slow joint's own motion by a little (a spine crossing from
         * idle to walk in 0.4 s), which is a crossfade, not a pop; printed for reference. */
        double worst = 0.0, fastest_alone = 0.0, worst_joint_excess = -INFINITY;
        for (int i = 0; i < joint_count(); ++i) {
            worst = fmax(worst, largest[i]);
            fastest_alone = fmax(fastest_alone, own[i]);
            worst_joint_excess = fmax(worst_joint_excess, largest[i] - own[i]);
        }
        CHECK(worst <= fastest_alone + 1.0);
        printf("  %3.0f Hz: largest joint step in a fade %.2f degrees, clips alone %.2f (margin %.2f); "
               "per joint at most %.2f degrees over its own\n",
               step_rates[r], worst, fastest_alone, fastest_alone + 1.0 - worst, worst_joint_excess);
        anim_controller_destroy(controller);
    }
    free(previous);
}

/* The local pose is not stored but sampled again: it must be exactly what the update turned into the
 * object pose, through a crossfade, an overlay with a soft mask edge, and a frozen snapshot. */
static void test_local_pose_is_what_the_update_showed(void)
{
    anim_controller *controller = new_controller();
    joint_pose *object = malloc(sizeof(joint_pose) * (size_t)joint_count());
    CHECK(!anim_controller_local_pose(NULL, object) && !anim_controller_local_pose(controller, NULL));
    anim_controller_mask_branch(controller, 1, "spine.02", 0.5f);
    anim_controller_mask_branch(controller, 1, "clavicle.R", 1.0f);
    const struct {
        int step, channel, clip;
        float fade;
    } plays[] = {{1, 0, WALK, 0.0f},  {20, 0, RUN, 0.5f},  {25, 1, WAVE, 0.3f}, {30, 0, IDLE, 0.5f},
                 {34, 0, WALK, 0.5f}, {38, 0, RUN, 0.5f}, {40, 0, IDLE, 0.5f}};
    int next = 0, snapshot_steps = 0, checked = 0;
    for (int step = 0; step < 90; ++step) {
        while (next < 7 && plays[next].step == step) {
            anim_controller_play(controller, plays[next].channel, &library[plays[next].clip], plays[next].fade, NULL);
            ++next;
        }
        CHECK(anim_controller_update(controller, 1.0 / 60.0, NULL));
        anim_layer_info bottom;
        snapshot_steps += anim_controller_layer(controller, 0, 0, &bottom) && bottom.clip == NULL;
        CHECK(pose_to_object(mannequin->skeleton.parents, joint_count(), local_pose(controller), object));
        checked += memcmp(object, anim_controller_object_pose(controller), sizeof(joint_pose) * (size_t)joint_count()) == 0;
    }
    CHECK(snapshot_steps > 10); /* the burst really overflowed the stack */
    CHECK(checked == 90);
    free(object);
    anim_controller_destroy(controller);
}

/* A play on a full stack freezes what is on screen into a 16-byte-a-joint snapshot: the pose right after
 * (the new layer has no weight yet, so the snapshot is all that shows) is within the snapshot's precision
 * of the pose right before. */
static void test_snapshot_keeps_the_pose(void)
{
    anim_controller *controller = new_controller();
    joint_pose *before = malloc(sizeof(joint_pose) * (size_t)joint_count());
    anim_controller_play(controller, 0, &library[WALK], 0.0f, NULL);
    anim_controller_update(controller, 0.4, NULL);
    const int burst[] = {RUN, IDLE, JUMP, WALK_ROOT_MOTION};
    for (int k = 0; k < 4; ++k) {
        if (k == 3) {
            CHECK(anim_controller_layer_count(controller, 0) == ANIM_CHANNEL_LAYERS);
            memcpy(before, local_pose(controller), sizeof(joint_pose) * (size_t)joint_count());
        }
        anim_controller_play(controller, 0, &library[burst[k]], 0.5f, NULL);
        anim_controller_update(controller, k == 3 ? 0.0 : 0.05, NULL);
    }
    anim_layer_info frozen;
    CHECK(anim_controller_layer_count(controller, 0) == 2);
    CHECK(anim_controller_layer(controller, 0, 0, &frozen) && frozen.clip == NULL && frozen.weight == 1.0f);
    const joint_pose *after = local_pose(controller);
    double worst_angle = 0.0, worst_position = 0.0;
    for (int i = 0; i < joint_count(); ++i) {
        worst_angle = fmax(worst_angle, angle_between(before[i].rotation, after[i].rotation));
        float largest = fmaxf(fabsf(before[i].position[0]), fmaxf(fabsf(before[i].position[1]), fabsf(before[i].position[2])));
        for (int k = 0; k < 3; ++k) {
            double error = fabs((double)before[i].position[k] - after[i].position[k]);
            worst_position = fmax(worst_position, error);
            CHECK(error <= largest / 32767.0 + 1e-9);
        }
    }
    printf("  snapshot: largest change %.5f degrees, %.2g m (local)\n", worst_angle, worst_position);
    CHECK(worst_angle > 0.0 || worst_position > 0.0); /* it is stored compactly, not copied */
    CHECK(worst_angle < 0.004);
    free(before);
    anim_controller_destroy(controller);
}

/* A skeleton of more joints than the controller works through in one pass (64): the slices give the
 * same numbers. A lone clip is exactly pose_sample's, a crossfade exactly pose_blend's of its two layers,
 * an overlay masked to joints 50..99 (across the slices' border) leaves the rest alone, and the object
 * pose is the local pose in object space. */
static void test_big_skeleton_in_passes(void)
{
    enum { JOINTS = 100 };
    synth_params params = {.joints = JOINTS, .vertices = 300, .triangles = 300, .frames = 20, .seed = 5};
    size_t size = 0;
    char *text = synth_mesh_text(&params, &size);
    model *body = NULL;
    clip *parsed[2] = {NULL, NULL};
    diag err;
    CHECK(text && loader_parse_md5_model(text, size, "synth.md5mesh", &body, &err, NULL));
    free(text);
    for (int k = 0; k < 2; ++k) {
        params.seed = 5 + (uint64_t)k; /* same hierarchy, other motion */
        text = synth_anim_text(&params, &size);
        CHECK(text && loader_parse_md5_clip(text, size, "synth.md5anim", &parsed[k], &err, NULL));
        free(text);
    }
    if (!body || !parsed[0] || !parsed[1]) {
        model_free(body);
        clip_free(parsed[0]);
        clip_free(parsed[1]);
        return;
    }
    anim_clip playable[2] = {{.name = "first", .clip = parsed[0], .loop = true, .sync_group = -1},
                             {.name = "second", .clip = parsed[1], .loop = true, .sync_group = -1}};
    anim_controller *controller = anim_controller_create(&(anim_controller_desc){.skeleton = &body->skeleton});
    CHECK(anim_controller_bytes(controller) == (896 + 88 * (size_t)JOINTS + 31) / 32 * 32);
    static joint_pose local[JOINTS], expected[JOINTS], sampled[2][JOINTS], object[JOINTS];
    anim_layer_info layers[2];

    CHECK(anim_controller_play(controller, 0, &playable[0], 0.0f, NULL));
    CHECK(anim_controller_update(controller, 0.3, NULL));
    CHECK(anim_controller_layer(controller, 0, 0, &layers[0]));
    pose_sample(parsed[0], (float)layers[0].time, true, expected);
    expected[0].position[0] = expected[0].position[1] = 0.0f; /* in place: the root's travel is stripped */
    CHECK(anim_controller_local_pose(controller, local));
    CHECK(memcmp(local, expected, sizeof local) == 0);

    CHECK(anim_controller_play(controller, 0, &playable[1], 1.0f, NULL));
    CHECK(anim_controller_update(controller, 0.25, NULL));
    const joint_pose *poses[2] = {sampled[0], sampled[1]};
    float weights[2];
    for (int k = 0; k < 2; ++k) {
        CHECK(anim_controller_layer(controller, 0, k, &layers[k]));
        pose_sample(parsed[k], (float)layers[k].time, true, sampled[k]);
        sampled[k][0].position[0] = sampled[k][0].position[1] = 0.0f;
        weights[k] = layers[k].weight;
    }
    CHECK(weights[0] > 0.5f && weights[1] > 0.2f);
    pose_blend(poses, weights, 2, JOINTS, expected);
    CHECK(anim_controller_local_pose(controller, local));
    CHECK(memcmp(local, expected, sizeof local) == 0);

    float mask[JOINTS];
    for (int i = 0; i < JOINTS; ++i)
        mask[i] = i >= 50 ? 1.0f : 0.0f;
    CHECK(anim_controller_set_mask(controller, 1, mask));
    CHECK(anim_controller_play(controller, 1, &playable[0], 0.0f, NULL));
    CHECK(anim_controller_update(controller, 0.0, NULL));
    anim_layer_info overlay;
    CHECK(anim_controller_layer(controller, 1, 0, &overlay));
    pose_sample(parsed[0], (float)overlay.time, true, sampled[0]);
    memcpy(expected + 50, sampled[0] + 50, sizeof(joint_pose) * (JOINTS - 50));
    CHECK(anim_controller_local_pose(controller, local));
    CHECK(memcmp(local, expected, sizeof local) == 0);

    CHECK(pose_to_object(body->skeleton.parents, JOINTS, local, object));
    CHECK(memcmp(object, anim_controller_object_pose(controller), sizeof object) == 0);
    anim_controller_destroy(controller);
    model_free(body);
    clip_free(parsed[0]);
    clip_free(parsed[1]);
}

/* ---- sync groups ---- */

static void test_sync_keeps_feet_in_step(void)
{
    anim_controller *controller = new_controller();
    anim_controller_play(controller, 0, &library[WALK], 0.0f, NULL);
    for (int step = 0; step < 23; ++step)
        anim_controller_update(controller, 1.0 / 60.0, NULL);
    anim_controller_play(controller, 0, &library[RUN], 2.0f, NULL);
    anim_controller_set_ground_speed(controller, 0, 2.4f);
    int left_strikes = 0;
    for (int step = 0; step < 110; ++step) {
        anim_layer_info walk_before, run_before;
        anim_controller_layer(controller, 0, 0, &walk_before);
        anim_controller_layer(controller, 0, 1, &run_before);
        anim_update_result result;
        anim_controller_update(controller, 1.0 / 60.0, &result);
        anim_layer_info walk, run;
        CHECK(anim_controller_layer_count(controller, 0) == 2);
        anim_controller_layer(controller, 0, 0, &walk);
        anim_controller_layer(controller, 0, 1, &run);
        CHECK_NEAR(walk.cycles - floor(walk.cycles), run.cycles - floor(run.cycles), 1e-9);
        /* Each left heel strike is where both clips' cycles start: a whole cycle count at the event. */
        for (int e = 0; e < result.event_count; ++e) {
            if (strcmp(result.events[e].name, "footstep.L") != 0)
                continue;
            ++left_strikes;
            double f = result.events[e].step_fraction;
            double walk_at = walk_before.cycles + f * (walk.cycles - walk_before.cycles);
            double run_at = run_before.cycles + f * (run.cycles - run_before.cycles);
            CHECK_NEAR(walk_at, floor(walk_at + 0.5), 1e-6);
            CHECK_NEAR(run_at, floor(run_at + 0.5), 1e-6);
        }
    }
    CHECK(left_strikes >= 2);
    anim_controller_destroy(controller);
}

/* ---- one event per contact ---- */

typedef struct timed_event {
    const char *name;
    const anim_clip *clip;
    long long cycle;
    float weight;
    double time;
} timed_event;

enum { MAX_TIMED = 64 };

/* Plays `first` (speed first_speed), and at `switch_at` seconds `second` (speed second_speed) with a
 * fade of `fade` seconds (second NULL: first alone), for `seconds` at `rate`; records every event with
 * the time it happened. */
static int record_crossfade(const anim_clip *first, float first_speed, const anim_clip *second, float second_speed,
                            double switch_at, float fade, double seconds, double rate, timed_event *out)
{
    anim_controller *controller = new_controller();
    anim_controller_play(controller, 0, first, 0.0f, &(anim_play_options){.speed = first_speed});
    int count = 0;
    long long steps = llround(seconds * rate), switch_step = llround(switch_at * rate);
    for (long long step = 0; step < steps; ++step) {
        if (second && step == switch_step)
            anim_controller_play(controller, 0, second, fade, &(anim_play_options){.speed = second_speed});
        anim_update_result result;
        anim_controller_update(controller, 1.0 / rate, &result);
        CHECK(result.events_dropped == 0);
        for (int e = 0; e < result.event_count && count < MAX_TIMED; ++e)
            out[count++] = (timed_event){result.events[e].name, result.events[e].clip, result.events[e].cycle,
                                         result.events[e].weight,
                                         ((double)step + result.events[e].step_fraction) / rate};
    }
    anim_controller_destroy(controller);
    return count;
}

/* Issue 15: walk -> run in one sync group fired every footstep twice, once per layer. Walk at speed 1
 * and run at 0.7 both take 1 s a cycle, so each alone strikes at 0, 0.5, 1, ...: the crossfade must
 * strike at those same moments, once each, L and R in turn, with the weight of the whole body (walk's
 * and run's summed, 1), told as walk's while walk is heavier and as run's after. */
static void test_crossfade_fires_one_footstep_per_contact(void)
{
    static timed_event walk_alone[MAX_TIMED], run_alone[MAX_TIMED], fade[MAX_TIMED];
    for (int r = 0; r < STEP_RATE_COUNT; ++r) {
        double rate = step_rates[r];
        int walk_count = record_crossfade(&library[WALK], 1.0f, NULL, 0.0f, 0.0, 0.0f, 4.75, rate, walk_alone);
        int run_count = record_crossfade(&library[RUN], 0.7f, NULL, 0.0f, 0.0, 0.0f, 4.75, rate, run_alone);
        /* The fade starts a sixth into the second cycle and lasts 2.5 cycles: 5 contacts with both clips
         * visible, from run at 0.13 to run at 0.93, none at 50/50. */
        int count = record_crossfade(&library[WALK], 1.0f, &library[RUN], 0.7f, 7.0 / 6.0, 2.5f, 4.75, rate, fade);
        CHECK(walk_count == 10 && run_count == 10);
        CHECK(count == walk_count); /* the old rule gave 10 + the 5 contacts during the fade */
        for (int e = 0; e < count && e < walk_count && e < run_count; ++e) {
            CHECK(strcmp(fade[e].name, e % 2 == 0 ? "footstep.L" : "footstep.R") == 0);
            CHECK(strcmp(fade[e].name, walk_alone[e].name) == 0 && strcmp(fade[e].name, run_alone[e].name) == 0);
            CHECK_NEAR(fade[e].time, walk_alone[e].time, 1e-6);
            CHECK_NEAR(fade[e].time, run_alone[e].time, 1e-6);
            CHECK_NEAR(fade[e].time, 0.5 * e, 1e-6);
            CHECK_NEAR(fade[e].weight, 1.0, 1e-5);
            /* Run's weight at time t of the fade: (t - 7/6) / 2.5; the contact is the heavier clip's. */
            double run_weight = fmin(fmax((fade[e].time - 7.0 / 6.0) / 2.5, 0.0), 1.0);
            CHECK(fade[e].clip == (run_weight > 0.5 ? &library[RUN] : &library[WALK]));
        }
        /* The events keep the heavier layer's cycle count: walk's from its start, run's from where it
         * joined (its phase, 0 whole cycles). */
        CHECK(count >= 8 && fade[2].clip == &library[WALK] && fade[2].cycle == 1);
        CHECK(count >= 8 && fade[5].clip == &library[RUN] && fade[5].cycle == 1);
        CHECK(count >= 8 && fade[7].clip == &library[RUN] && fade[7].cycle == 2);
        /* Run starting right on a footstep (walk's R at 1.5 s, L at 2 s): that one is walk's, once. */
        for (int at = 3; at <= 4; ++at) {
            count = record_crossfade(&library[WALK], 1.0f, &library[RUN], 0.7f, 0.5 * at, 0.5f, 4.75, rate, fade);
            CHECK(count == walk_count);
            for (int e = 0; e < count; ++e) {
                CHECK(strcmp(fade[e].name, e % 2 == 0 ? "footstep.L" : "footstep.R") == 0);
                CHECK_NEAR(fade[e].time, 0.5 * e, 1e-6);
                CHECK_NEAR(fade[e].weight, 1.0, 1e-5);
            }
        }
    }
}

/* Marks a little apart (run's right heel at frame 10 of 21, 0.476 of a cycle, walk's at 0.5) are still
 * one contact: one per contact whichever clip is heavier, when the weights cross over, when run joins
 * between the two marks, and when walk comes back on top; at 30, 60 and 144 Hz. */
static void test_contact_marks_a_little_apart(void)
{
    static const anim_event_mark early_marks[] = {{0.0f, "footstep.L"}, {10.0f, "footstep.R"}};
    anim_clip early_run = library[RUN];
    early_run.events = early_marks;
    static timed_event events[MAX_TIMED];
    /* Switch moments: before the marks, between them (at 60 and 144 Hz: walk at 0.48, run's R already
     * past), right on walk's, after. */
    const double switches[] = {0.0, 0.25, 0.48, 0.5, 0.6, 0.99}; /* to the nearest step */
    for (int r = 0; r < STEP_RATE_COUNT; ++r) {
        for (size_t s = 0; s < sizeof switches / sizeof switches[0]; ++s) {
            double rate = step_rates[r];
            int count = record_crossfade(&library[WALK], 1.0f, &early_run, 0.7f, 1.0 + switches[s], 1.3f, 3.75, rate,
                                         events);
            CHECK(count == 8);
            for (int e = 0; e < count; ++e) {
                CHECK(strcmp(events[e].name, e % 2 == 0 ? "footstep.L" : "footstep.R") == 0);
                CHECK_NEAR(events[e].weight, 1.0, 1e-5);
                /* Each contact at walk's moment, or run's if run was there to take it (0.024 s sooner). */
                double expected = 0.5 * e;
                CHECK(fabs(events[e].time - expected) < 1e-6 || fabs(events[e].time - (expected - 0.5 / 21.0)) < 1e-6);
            }
            /* And back: run, with walk fading in over it. */
            count = record_crossfade(&early_run, 0.7f, &library[WALK], 1.0f, 1.0 + switches[s], 1.3f, 3.75, rate,
                                     events);
            CHECK(count == 8);
            for (int e = 0; e < count; ++e) {
                CHECK(strcmp(events[e].name, e % 2 == 0 ? "footstep.L" : "footstep.R") == 0);
                CHECK_NEAR(events[e].weight, 1.0, 1e-5);
            }
        }
    }
}

/* Clips that are not one contact fire their own marks: walk and run in different sync groups (their
 * phases are not locked) both fire, each with its own layer's weight; a loop and a one-shot too. */
static void test_unrelated_clips_fire_their_own_events(void)
{
    anim_clip walk_alone = library[WALK], run_alone = library[RUN];
    walk_alone.sync_group = 1;
    run_alone.sync_group = -1;
    static timed_event events[MAX_TIMED];
    int count = record_crossfade(&walk_alone, 1.0f, &run_alone, 0.7f, 7.0 / 6.0, 2.5f, 4.75, 60.0, events);
    int walk_count = 0, run_count = 0;
    for (int e = 0; e < count; ++e) {
        walk_count += events[e].clip == &walk_alone;
        run_count += events[e].clip == &run_alone;
        double run_weight = fmin(fmax((events[e].time - 7.0 / 6.0) / 2.5, 0.0), 1.0);
        CHECK_NEAR(events[e].weight, events[e].clip == &run_alone ? run_weight : 1.0 - run_weight, 1e-5);
    }
    /* Walk until its weight reaches 0 at 3.67 s; run (out of step, from phase 0) from 7/6 s, its first
     * footstep at weight 0. */
    CHECK(walk_count == 8 && run_count == 8 && count == 16);

    static const anim_event_mark idle_marks[] = {{0.0f, "breath"}};
    static const anim_event_mark wave_marks[] = {{0.0f, "wave.start"}, {20.0f, "wave.peak"}};
    anim_clip idle = library[IDLE], wave = library[WAVE];
    idle.events = idle_marks;
    idle.event_count = 1;
    wave.events = wave_marks;
    wave.event_count = 2;
    anim_controller *controller = new_controller();
    anim_controller_play(controller, 0, &idle, 0.0f, NULL);
    anim_update_result result;
    anim_controller_update(controller, 1.0 / 60.0, &result);
    CHECK(result.event_count == 1 && strcmp(result.events[0].name, "breath") == 0);
    /* Waving in over idle in the cycle's last 0.1 s: the next breath (faded to a weight below 0.1) and both
     * wave marks fire. */
    anim_controller_update(controller, clips[IDLE]->loop_duration - 1.0 / 60.0 - 0.1, &result);
    anim_controller_play(controller, 0, &wave, 0.11f, NULL);
    int breaths = 0, waves = 0;
    for (int step = 0; step < 90; ++step) {
        anim_controller_update(controller, 1.0 / 60.0, &result);
        for (int e = 0; e < result.event_count; ++e) {
            if (strcmp(result.events[e].name, "breath") == 0) {
                ++breaths;
                CHECK(result.events[e].weight > 0.0f && result.events[e].weight < 0.1f);
            } else {
                ++waves;
                CHECK(result.events[e].clip == &wave);
            }
        }
    }
    CHECK(breaths == 1 && waves == 2);
    anim_controller_destroy(controller);
}

/* ---- masks ---- */

/* Shared masks: the controller keeps the caller's array (no copy, none in its bytes), refuses to write masks of
 * its own, shows nothing on a channel without one; and the pose is bit for bit what an own mask of the same
 * weights gives. A controller with its own masks copies what share_mask gives it. */
static void test_shared_masks(void)
{
    int joints = joint_count();
    float *branch = malloc(sizeof(float) * (size_t)joints);
    anim_controller_branch_weights(&mannequin->skeleton, joint_named("clavicle.R"), branch);
    anim_controller *own = new_controller();
    anim_controller *shared =
        anim_controller_create(&(anim_controller_desc){.skeleton = &mannequin->skeleton, .shared_masks = true});
    CHECK(shared && anim_controller_masks_shared(shared) && !anim_controller_masks_shared(own));
    CHECK(anim_controller_bytes(own) - anim_controller_bytes(shared) >= 2u * (size_t)joints * sizeof(float));
    CHECK(!anim_controller_set_mask(shared, 1, branch));
    CHECK(!anim_controller_mask_branch(shared, 1, "clavicle.R", 1.0f));
    CHECK(anim_controller_mask(shared, 1) == NULL);
    /* A channel without a mask plays nothing over the body. */
    anim_controller_play(shared, 0, &library[WALK], 0.0f, NULL);
    anim_controller_play(shared, 1, &library[WAVE], 0.0f, NULL);
    anim_controller_play(own, 0, &library[WALK], 0.0f, NULL);
    anim_controller_play(own, 1, &library[WAVE], 0.0f, NULL); /* its own mask: all 0 at creation */
    anim_controller_update(shared, 0.3, NULL);
    anim_controller_update(own, 0.3, NULL);
    CHECK(memcmp(anim_controller_object_pose(shared), anim_controller_object_pose(own),
                 sizeof(joint_pose) * (size_t)joints) == 0);
    /* With the branch shared, the same as the branch masked the controller's own way. */
    CHECK(anim_controller_share_mask(shared, 1, branch) && anim_controller_mask(shared, 1) == branch);
    CHECK(anim_controller_mask_branch(own, 1, "clavicle.R", 1.0f));
    CHECK(memcmp(anim_controller_mask(own, 1), branch, sizeof(float) * (size_t)joints) == 0);
    for (int step = 0; step < 30; ++step) {
        anim_controller_update(shared, 1.0 / 30.0, NULL);
        anim_controller_update(own, 1.0 / 30.0, NULL);
        CHECK(memcmp(anim_controller_object_pose(shared), anim_controller_object_pose(own),
                     sizeof(joint_pose) * (size_t)joints) == 0);
    }
    /* Weights out of range are refused either way; own masks take a copy through share_mask. */
    branch[0] = 2.0f;
    CHECK(!anim_controller_share_mask(shared, 1, branch) && anim_controller_mask(shared, 1) == branch);
    branch[0] = 0.0f;
    CHECK(anim_controller_share_mask(own, 2, branch) && anim_controller_mask(own, 2) != branch);
    CHECK(!anim_controller_share_mask(shared, 0, branch)); /* the body has no mask */
    anim_controller_destroy(shared);
    anim_controller_destroy(own);
    free(branch);
}

static void test_wave_over_walk_through_a_mask(void)
{
    anim_controller *controller = new_controller();
    CHECK(anim_controller_mask_branch(controller, 1, "clavicle.R", 1.0f));
    anim_controller_play(controller, 0, &library[WALK], 0.0f, NULL);
    anim_controller_update(controller, 0.3, NULL);
    anim_controller_play(controller, 1, &library[WAVE], 0.2f, NULL);
    joint_pose *walk = malloc(sizeof(joint_pose) * (size_t)joint_count());
    joint_pose *wave = malloc(sizeof(joint_pose) * (size_t)joint_count());
    int clavicle = joint_named("clavicle.R"), fingers = joint_named("fingers.02.R");
    int thigh = joint_named("thigh.L"), toe = joint_named("toe.R");
    for (int step = 0; step < 60; ++step) {
        anim_controller_update(controller, 1.0 / 30.0, NULL);
        anim_layer_info walk_info, wave_info;
        anim_controller_layer(controller, 0, 0, &walk_info);
        anim_controller_layer(controller, 1, 0, &wave_info);
        pose_sample(clips[WALK], (float)walk_info.time, true, walk);
        pose_sample(clips[WAVE], (float)wave_info.time, false, wave);
        const joint_pose *local = local_pose(controller);
        CHECK(largest_difference(local, walk, thigh, toe) == 0.0); /* legs: the walk's, bit for bit */
        CHECK(largest_difference(local, walk, 0, clavicle - 1) == 0.0);
        float weight = anim_controller_channel_weight(controller, 1);
        CHECK(weight > 0.0f && weight <= 1.0f);
        if (weight == 1.0f)
            CHECK(largest_difference(local, wave, clavicle, fingers) == 0.0);
    }
    CHECK(anim_controller_channel_weight(controller, 1) == 1.0f);
    /* Stopped, the overlay fades out and the arm goes back to the walk. */
    anim_controller_stop(controller, 1, 0.25f);
    for (int step = 0; step < 10; ++step)
        anim_controller_update(controller, 1.0 / 30.0, NULL);
    CHECK(anim_controller_layer_count(controller, 1) == 0);
    anim_layer_info walk_info;
    anim_controller_layer(controller, 0, 0, &walk_info);
    pose_sample(clips[WALK], (float)walk_info.time, true, walk);
    CHECK(largest_difference(local_pose(controller), walk, 0, joint_count() - 1) == 0.0);
    free(walk);
    free(wave);
    anim_controller_destroy(controller);
}


/* ---- additive ---- */

/* Largest difference of rotation components (q and -q the same) and positions over joints first..last. */
static double component_difference(const joint_pose *a, const joint_pose *b, int first, int last)
{
    double largest = 0.0;
    for (int i = first; i <= last; ++i) {
        double dot = 0.0;
        for (int k = 0; k < 4; ++k)
            dot += (double)a[i].rotation[k] * b[i].rotation[k];
        double sign = dot < 0.0 ? -1.0 : 1.0;
        for (int k = 0; k < 4; ++k)
            largest = fmax(largest, fabs(a[i].rotation[k] - sign * b[i].rotation[k]));
        for (int k = 0; k < 3; ++k)
            largest = fmax(largest, fabs((double)a[i].position[k] - b[i].position[k]));
    }
    return largest;
}

/* The wave as an additive clip against its own first frame, as clips.ini `additive = first_frame` makes it. */
static bool make_additive(const clip *source, const clip *reference, int frame, clip **baked, anim_clip *entry,
                          const char *name)
{
    diag err;
    if (!build_additive_clip(source, reference, frame, baked, &err))
        return false;
    *entry = (anim_clip){.clip = *baked, .sync_group = -1, .additive = true};
    snprintf(entry->name, sizeof entry->name, "%s", name);
    return true;
}

/* Two controllers stepped together: `plain` plays walk alone, `added` the walk with an additive layer on
 * channel 1 masked to the branch at `branch`. */
static void play_walk_pair(anim_controller *plain, anim_controller *added, const anim_clip *additive,
                           const char *branch)
{
    anim_controller_play(plain, 0, &library[WALK], 0.0f, NULL);
    anim_controller_play(added, 0, &library[WALK], 0.0f, NULL);
    CHECK(anim_controller_mask_branch(added, 1, branch, 1.0f));
    CHECK(anim_controller_play(added, 1, additive, 0.0f, NULL));
}

static void test_additive_weight_zero_and_identity_change_nothing(void)
{
    clip *wave_deltas = NULL, *identity_deltas = NULL;
    anim_clip wave_additive, identity_additive;
    CHECK(make_additive(clips[WAVE], clips[WAVE], 0, &wave_deltas, &wave_additive, "wave_additive"));
    /* An identity clip: every frame the wave's first (its reference). */
    clip still = *clips[WAVE];
    size_t joints = (size_t)still.joint_count;
    joint_pose *frames = malloc(sizeof *frames * joints * (size_t)still.frame_count);
    for (int f = 0; f < still.frame_count; ++f)
        memcpy(frames + (size_t)f * joints, clips[WAVE]->frames, sizeof *frames * joints);
    still.frames = frames;
    CHECK(make_additive(&still, &still, 0, &identity_deltas, &identity_additive, "still_additive"));

    joint_pose *plain_pose = malloc(sizeof(joint_pose) * joints);
    const anim_clip *layers[2] = {&wave_additive, &identity_additive};
    for (int which = 0; which < 2; ++which) {
        anim_controller *plain = new_controller(), *added = new_controller();
        play_walk_pair(plain, added, layers[which], mannequin->skeleton.names[0]);
        /* The wave at weight 0 is the walk bit for bit; so is the identity clip at weight 1: its deltas
         * are identity to rounding (see test_pose), every joint of it is still (clip.h), and still joints
         * are not added at all. */
        CHECK(anim_controller_set_overlay_weight(added, 1, which == 0 ? 0.0f : 1.0f));
        double worst = 0.0;
        for (int step = 0; step < 40; ++step) {
            anim_controller_update(plain, 1.0 / 30.0, NULL);
            anim_controller_update(added, 1.0 / 30.0, NULL);
            memcpy(plain_pose, local_pose(plain), sizeof(joint_pose) * joints);
            const joint_pose *pose = local_pose(added);
            CHECK(memcmp(pose, plain_pose, sizeof(joint_pose) * joints) == 0);
            worst = fmax(worst, component_difference(pose, plain_pose, 0, joint_count() - 1));
        }
        CHECK(worst == 0.0);
        anim_controller_destroy(plain);
        anim_controller_destroy(added);
    }
    free(plain_pose);
    free(frames);
    clip_free(wave_deltas);
    clip_free(identity_deltas);
}

/* The wave's additive moves the right arm only: the joints before and after the moving ones in skeleton
 * order are still (build_additive_clip counts them), and an overlay over the whole body leaves them the
 * body's bit for bit while the arm moves. */
static void test_additive_still_joints_are_skipped(void)
{
    clip *deltas = NULL;
    anim_clip additive;
    CHECK(make_additive(clips[WAVE], clips[WAVE], 0, &deltas, &additive, "wave_additive"));
    int clavicle = joint_named("clavicle.R");
    CHECK(deltas->still_first > 0 && deltas->still_first <= clavicle);
    CHECK(deltas->still_last > 0 && deltas->still_first + deltas->still_last < deltas->joint_count);
    CHECK(clips[WAVE]->still_first == 0 && clips[WAVE]->still_last == 0); /* an ordinary clip: none */
    /* Every still joint really is: its delta is identity in every frame to ADDITIVE_STILL_TURN. */
    int moved_last = deltas->joint_count - 1 - deltas->still_last;
    for (int f = 0; f < deltas->frame_count; ++f)
        for (int j = 0; j < deltas->joint_count; ++j) {
            if (j >= deltas->still_first && j <= moved_last)
                continue;
            const joint_pose *delta = &deltas->frames[(size_t)f * (size_t)deltas->joint_count + (size_t)j];
            CHECK(fabsf(delta->rotation[0]) < 1e-6f && fabsf(delta->rotation[1]) < 1e-6f &&
                  fabsf(delta->rotation[2]) < 1e-6f && delta->position[0] == 0.0f);
        }
    anim_controller *plain = new_controller(), *added = new_controller();
    play_walk_pair(plain, added, &additive, mannequin->skeleton.names[0]);
    size_t bytes = sizeof(joint_pose) * (size_t)joint_count();
    joint_pose *plain_pose = malloc(bytes);
    double moved = 0.0;
    for (int step = 0; step < 40; ++step) {
        anim_controller_update(plain, 1.0 / 30.0, NULL);
        anim_controller_update(added, 1.0 / 30.0, NULL);
        memcpy(plain_pose, local_pose(plain), bytes);
        const joint_pose *pose = local_pose(added);
        CHECK(memcmp(pose, plain_pose, sizeof(joint_pose) * (size_t)deltas->still_first) == 0);
        CHECK(memcmp(pose + moved_last + 1, plain_pose + moved_last + 1,
                     sizeof(joint_pose) * (size_t)deltas->still_last) == 0);
        moved = fmax(moved, component_difference(pose, plain_pose, deltas->still_first, moved_last));
    }
    CHECK(moved > 0.05); /* the arm still waves */
    free(plain_pose);
    anim_controller_destroy(plain);
    anim_controller_destroy(added);
    clip_free(deltas);
}

/* Additive overlays turned off (anim_controller_set_additive, the crowd's far members): the pose is the one
 * without them bit for bit, while they go on in time; turned on again, the pose is the one that played them
 * all along, bit for bit. */
static void test_additive_off_and_on_again(void)
{
    clip *deltas = NULL;
    anim_clip additive;
    CHECK(make_additive(clips[WAVE], clips[WAVE], 0, &deltas, &additive, "wave_additive"));
    anim_controller *plain = new_controller(), *added = new_controller(), *toggled = new_controller();
    play_walk_pair(plain, added, &additive, mannequin->skeleton.names[0]);
    anim_controller_play(toggled, 0, &library[WALK], 0.0f, NULL);
    CHECK(anim_controller_mask_branch(toggled, 1, mannequin->skeleton.names[0], 1.0f));
    CHECK(anim_controller_play(toggled, 1, &additive, 0.0f, NULL));
    CHECK(anim_controller_additive(toggled) && !anim_controller_additive(NULL));
    size_t bytes = sizeof(joint_pose) * (size_t)joint_count();
    int off_differs = 0, on_differs = 0;
    double added_moved = 0.0;
    for (int step = 0; step < 60; ++step) {
        bool off = step >= 10 && step < 40;
        anim_controller_set_additive(toggled, !off);
        anim_controller_update(plain, 1.0 / 30.0, NULL);
        anim_controller_update(added, 1.0 / 30.0, NULL);
        anim_controller_update(toggled, 1.0 / 30.0, NULL);
        joint_pose expected[64], without[64];
        memcpy(expected, local_pose(off ? plain : added), bytes);
        memcpy(without, local_pose(plain), bytes);
        if (off)
            off_differs += memcmp(local_pose(toggled), expected, bytes) != 0;
        else
            on_differs += memcmp(local_pose(toggled), expected, bytes) != 0;
        added_moved = fmax(added_moved, component_difference(local_pose(added), without, 0, joint_count() - 1));
    }
    CHECK(off_differs == 0);
    CHECK(on_differs == 0);
    CHECK(added_moved > 0.05); /* the overlay does show when on */
    anim_controller_destroy(plain);
    anim_controller_destroy(added);
    anim_controller_destroy(toggled);
    clip_free(deltas);
}

/* Still joints between moving ones are skipped too (clip.h: moving): the wave with its hand and thumb held
 * at their first frame, but for a turn of a micro-radian (under ADDITIVE_STILL_TURN, so still; added, it
 * would change their bits), adds nothing there, and an overlay of it over the whole body leaves those
 * three joints the body's bit for bit while the forearm before them and the fingers after them move.
 * Three joints: the controller adds gaps of up to two still joints with the runs around them (cheaper
 * than another run). */
static void test_additive_still_joints_between_are_skipped(void)
{
    const clip *wave = clips[WAVE];
    int hand = joint_named("hand.R"), thumb_end = joint_named("thumb.02.R");
    CHECK(hand > 0 && thumb_end == hand + 2);
    size_t joints = (size_t)wave->joint_count;
    joint_pose *frames = malloc(sizeof *frames * joints * (size_t)wave->frame_count);
    memcpy(frames, wave->frames, sizeof *frames * joints * (size_t)wave->frame_count);
    float tremble[4] = {2.5e-7f, 0.0f, 0.0f, 1.0f}; /* half a micro-radian about x */
    for (int f = 1; f < wave->frame_count; ++f)
        for (int j = hand; j <= thumb_end; ++j) {
            joint_pose *held_joint = &frames[(size_t)f * joints + (size_t)j];
            *held_joint = wave->frames[j];
            glm_quat_mul((float *)wave->frames[j].rotation, tremble, held_joint->rotation);
        }
    clip held = *wave;
    held.frames = frames;
    clip *deltas = NULL;
    anim_clip additive;
    CHECK(make_additive(&held, &held, 0, &deltas, &additive, "held_wave"));
    CHECK(deltas->moving != NULL && clips[WAVE]->moving == NULL); /* an ordinary clip has no bitset */
    for (int j = hand; j <= thumb_end; ++j)
        CHECK(!clip_joint_moves(deltas, j));
    CHECK(clip_joint_moves(deltas, hand - 1) && clip_joint_moves(deltas, thumb_end + 1));
    /* The ends agree with the bitset. */
    for (int j = 0; j < deltas->joint_count; ++j)
        if (j < deltas->still_first || j >= deltas->joint_count - deltas->still_last)
            CHECK(!clip_joint_moves(deltas, j));
    CHECK(clip_joint_moves(deltas, deltas->still_first));
    CHECK(clip_joint_moves(deltas, deltas->joint_count - 1 - deltas->still_last));

    anim_controller *plain = new_controller(), *added = new_controller();
    play_walk_pair(plain, added, &additive, mannequin->skeleton.names[0]);
    size_t bytes = sizeof(joint_pose) * (size_t)joint_count();
    joint_pose *plain_pose = malloc(bytes);
    double before = 0.0, after = 0.0;
    for (int step = 0; step < 40; ++step) {
        anim_controller_update(plain, 1.0 / 30.0, NULL);
        anim_controller_update(added, 1.0 / 30.0, NULL);
        memcpy(plain_pose, local_pose(plain), bytes);
        const joint_pose *pose = local_pose(added);
        CHECK(memcmp(pose + hand, plain_pose + hand, sizeof(joint_pose) * (size_t)(thumb_end - hand + 1)) == 0);
        before = fmax(before, component_difference(pose, plain_pose, hand - 1, hand - 1));
        after = fmax(after, component_difference(pose, plain_pose, thumb_end + 1, thumb_end + 1));
    }
    printf("  held hand and thumb: the forearm moves up to %.3f, the first finger joint %.3f\n", before, after);
    CHECK(before > 0.01 && after > 0.001);
    free(plain_pose);
    free(frames);
    anim_controller_destroy(plain);
    anim_controller_destroy(added);
    clip_free(deltas);
}

static void test_additive_on_its_reference_reproduces_the_clip(void)
{
    /* The body holds the wave's first frame (the reference); the additive wave on top gives the wave. */
    clip *deltas = NULL;
    anim_clip additive;
    CHECK(make_additive(clips[WAVE], clips[WAVE], 0, &deltas, &additive, "wave_additive"));
    anim_controller *controller = new_controller();
    CHECK(anim_controller_play(controller, 0, &library[WAVE], 0.0f, NULL));
    CHECK(anim_controller_set_speed(controller, 0, 0.0f));
    CHECK(anim_controller_mask_branch(controller, 1, mannequin->skeleton.names[0], 1.0f));
    CHECK(anim_controller_play(controller, 1, &additive, 0.0f, NULL));
    CHECK(!anim_controller_play(controller, 0, &additive, 0.0f, NULL)); /* the body takes no deltas */
    joint_pose *wave = malloc(sizeof(joint_pose) * (size_t)joint_count());
    double worst = 0.0;
    for (int step = 0; step < 45; ++step) {
        anim_controller_update(controller, 1.0 / 30.0, NULL);
        anim_layer_info info;
        anim_controller_layer(controller, 1, 0, &info);
        pose_sample(clips[WAVE], (float)info.time, false, wave);
        const joint_pose *local = local_pose(controller);
        /* The root's horizontal position is stripped (in place) from both: compare its rotation and
         * height, and every other joint whole. */
        worst = fmax(worst, component_difference(local, wave, 1, joint_count() - 1));
        for (int k = 0; k < 4; ++k)
            worst = fmax(worst, fabs(local[0].rotation[k] - wave[0].rotation[k]));
        worst = fmax(worst, fabs(local[0].position[2] - wave[0].position[2]));
    }
    printf("  additive wave on its reference: largest difference from the wave %.2g\n", worst);
    CHECK(worst <= 1e-5);
    free(wave);
    anim_controller_destroy(controller);
    clip_free(deltas);
}

static void test_additive_mask_and_weight(void)
{
    clip *deltas = NULL;
    anim_clip additive;
    CHECK(make_additive(clips[WAVE], clips[WAVE], 0, &deltas, &additive, "wave_additive"));
    anim_controller *plain = new_controller(), *added = new_controller();
    play_walk_pair(plain, added, &additive, "clavicle.R");
    CHECK(anim_controller_overlay_weight(added, 1) == 1.0f);
    CHECK(!anim_controller_set_overlay_weight(added, 0, 0.5f));
    CHECK(!anim_controller_set_overlay_weight(added, 1, 1.5f));
    CHECK(!anim_controller_set_overlay_weight(added, 1, NAN));
    CHECK(!anim_controller_set_overlay_weight(added, 1, -0.1f));
    int clavicle = joint_named("clavicle.R"), hand = joint_named("hand.R");
    joint_pose *plain_pose = malloc(sizeof(joint_pose) * (size_t)joint_count());
    double outside = 0.0, inside = 0.0, previous_hand = -1.0, largest_jump = 0.0;
    for (int step = 0; step < 60; ++step) {
        /* The weight ramps 0 -> 1 and back over the steps, as a parameter would move it. */
        float weight = step < 30 ? (float)step / 29.0f : (float)(59 - step) / 29.0f;
        CHECK(anim_controller_set_overlay_weight(added, 1, weight));
        anim_controller_update(plain, 1.0 / 30.0, NULL);
        anim_controller_update(added, 1.0 / 30.0, NULL);
        memcpy(plain_pose, local_pose(plain), sizeof(joint_pose) * (size_t)joint_count());
        const joint_pose *pose = local_pose(added);
        for (int i = 0; i < joint_count(); ++i) {
            int ancestor = i;
            while (ancestor > clavicle)
                ancestor = mannequin->skeleton.parents[ancestor];
            double difference = component_difference(pose, plain_pose, i, i);
            if (ancestor == clavicle)
                inside = fmax(inside, difference);
            else
                outside = fmax(outside, difference);
        }
        double hand_turn = angle_between(pose[hand].rotation, plain_pose[hand].rotation);
        if (previous_hand >= 0.0)
            largest_jump = fmax(largest_jump, fabs(hand_turn - previous_hand));
        previous_hand = hand_turn;
        if (weight == 0.0f)
            CHECK(memcmp(pose, plain_pose, sizeof(joint_pose) * (size_t)joint_count()) == 0);
    }
    printf("  additive wave on the right arm: outside the branch %.2g, inside up to %.3g; hand's step %.2f degrees\n",
           outside, inside, largest_jump);
    CHECK(outside == 0.0); /* the rest of the body is the walk's, bit for bit */
    CHECK(inside > 0.05);  /* and the arm really moved */
    CHECK(largest_jump < 10.0);
    free(plain_pose);
    anim_controller_destroy(plain);
    anim_controller_destroy(added);
    clip_free(deltas);
}

/* The arm's overlay goes from the ordinary wave to the additive wave at 1/3 s and back at 7/6 s, with
 * 0.3 s crossfades, stepped at `rate`: the largest turn of any joint in one step. */
static double overlay_kind_crossfades(const anim_clip *additive, double rate)
{
    anim_controller *controller = new_controller();
    anim_controller_play(controller, 0, &library[WALK], 0.0f, NULL);
    anim_controller_mask_branch(controller, 1, "clavicle.R", 1.0f);
    anim_controller_play(controller, 1, &library[WAVE], 0.0f, NULL);
    joint_pose *previous = malloc(sizeof(joint_pose) * (size_t)joint_count());
    anim_controller_update(controller, 1.0 / rate, NULL);
    memcpy(previous, local_pose(controller), sizeof(joint_pose) * (size_t)joint_count());
    double largest = 0.0;
    int steps = (int)lround(2.0 * rate);
    for (int step = 0; step < steps; ++step) {
        if (step == (int)lround(rate / 3.0))
            CHECK(anim_controller_play(controller, 1, additive, 0.3f, NULL));
        if (step == (int)lround(rate * 7.0 / 6.0))
            CHECK(anim_controller_play(controller, 1, &library[WAVE], 0.3f, NULL));
        anim_controller_update(controller, 1.0 / rate, NULL);
        const joint_pose *pose = local_pose(controller);
        largest = fmax(largest, largest_difference(pose, previous, 1, joint_count() - 1));
        memcpy(previous, pose, sizeof(joint_pose) * (size_t)joint_count());
    }
    free(previous);
    anim_controller_destroy(controller);
    return largest;
}

static void test_additive_crossfades_with_an_ordinary_overlay(void)
{
    /* A crossfade between an additive clip and an ordinary one on one channel is continuous: a pop would
     * be the same jump at any step rate, while motion halves its step when the rate doubles. At 240 Hz
     * the largest step is under half the 60 Hz one. */
    clip *deltas = NULL;
    anim_clip additive;
    CHECK(make_additive(clips[WAVE], clips[WAVE], 0, &deltas, &additive, "wave_additive"));
    double at_60 = overlay_kind_crossfades(&additive, 60.0), at_240 = overlay_kind_crossfades(&additive, 240.0);
    printf("  ordinary <-> additive overlay crossfades: largest step %.2f at 60 Hz, %.2f at 240 Hz\n", at_60, at_240);
    CHECK(at_240 < 0.5 * at_60);
    clip_free(deltas);
}

static void test_additive_bake_refuses_mismatches(void)
{
    clip *baked = NULL;
    diag err;
    CHECK(!build_additive_clip(clips[WAVE], clips[WAVE], clips[WAVE]->frame_count, &baked, &err));
    CHECK(strstr(err.message, "reference frame") != NULL);
    CHECK(!build_additive_clip(clips[WAVE], clips[WAVE], -1, &baked, &err));
    clip other = *clips[WAVE];
    int parents[128];
    CHECK(other.joint_count <= 128);
    memcpy(parents, other.parents, sizeof(int) * (size_t)other.joint_count);
    parents[other.joint_count - 1] = 0; /* the last joint hangs from the root instead */
    other.parents = parents;
    CHECK(!build_additive_clip(clips[WAVE], &other, 0, &baked, &err));
    CHECK(strstr(err.message, "differs") != NULL);
    other.joint_count -= 1;
    CHECK(!build_additive_clip(clips[WAVE], &other, 0, &baked, &err));
    CHECK(strstr(err.message, "joints") != NULL);
    CHECK(baked == NULL);
    /* Against another clip's frame: the walk's first frame. The delta of walk frame 0 from itself is
     * identity; the wave's deltas are the wave's frames relative to it. */
    CHECK(build_additive_clip(clips[WALK], clips[WALK], 0, &baked, &err));
    if (!baked)
        return;
    CHECK(baked->frame_count == clips[WALK]->frame_count && baked->loop_duration == clips[WALK]->loop_duration);
    /* Its own copy of the hierarchy: it outlives the clip it was made from. */
    CHECK(baked->names != clips[WALK]->names && strcmp(baked->names[1], clips[WALK]->names[1]) == 0);
    CHECK(memcmp(baked->parents, clips[WALK]->parents, sizeof(int) * (size_t)baked->joint_count) == 0);
    CHECK(baked->frames[1].rotation[3] > 0.999999f);
    CHECK(baked->bytes > sizeof(joint_pose) * (size_t)baked->joint_count * (size_t)baked->frame_count);
    clip_free(baked);
}

/* ---- events ---- */

typedef struct recorded_event {
    const char *name;
    const anim_clip *clip;
    long long cycle;
} recorded_event;

enum { MAX_RECORDED = 256 };

/* One timeline played at `rate`: plays at times every rate lands on (multiples of 1/6 s, away from the
 * marks), and at 5 s one 2.5 s step over several loops. */
static int record_timeline(double rate, recorded_event *out)
{
    anim_controller *controller = new_controller();
    const struct {
        double at;
        int clip;
        float fade;
    } plays[] = {{0.0, WALK, 0.0f}, {7.0 / 6.0, RUN, 0.5f}, {17.0 / 6.0, IDLE, 0.5f}, {19.0 / 6.0, WALK, 0.5f},
                 {25.0 / 6.0, RUN, 0.3f}};
    int count = 0, next = 0, steps_per_second = (int)rate;
    long long step = 0;
    for (;;) {
        double now = (double)step / steps_per_second;
        if (now > 9.0)
            break;
        while (next < 5 && plays[next].at * steps_per_second <= (double)step + 1e-6) {
            anim_controller_play(controller, 0, &library[plays[next].clip], plays[next].fade, NULL);
            ++next;
        }
        bool big = step == 5 * steps_per_second;
        anim_update_result result;
        anim_controller_update(controller, big ? 2.5 : 1.0 / rate, &result);
        CHECK(result.events_dropped == 0);
        for (int e = 0; e < result.event_count && count < MAX_RECORDED; ++e)
            out[count++] = (recorded_event){result.events[e].name, result.events[e].clip, result.events[e].cycle};
        step += big ? (long long)(2.5 * steps_per_second) : 1;
    }
    anim_controller_destroy(controller);
    return count;
}

static void test_events_do_not_depend_on_the_step_rate(void)
{
    static recorded_event sequences[STEP_RATE_COUNT][MAX_RECORDED];
    int counts[STEP_RATE_COUNT];
    for (int r = 0; r < STEP_RATE_COUNT; ++r)
        counts[r] = record_timeline(step_rates[r], sequences[r]);
    printf("  %d events at each rate\n", counts[0]);
    CHECK(counts[0] > 20);
    for (int r = 1; r < STEP_RATE_COUNT; ++r) {
        CHECK(counts[r] == counts[0]);
        for (int e = 0; e < counts[0] && e < counts[r]; ++e) {
            CHECK(strcmp(sequences[r][e].name, sequences[0][e].name) == 0);
            CHECK(sequences[r][e].clip == sequences[0][e].clip);
            CHECK(sequences[r][e].cycle == sequences[0][e].cycle);
        }
    }
}

/* A one-joint clip built in memory: 11 frames at 10 fps, Doom 3 convention (a 1 s cycle). */
typedef struct tiny_clip {
    clip clip;
    joint_pose frames[11];
    int parents[1];
    char *names[1];
    anim_clip playable;
} tiny_clip;

static void make_tiny_clip(tiny_clip *t, bool loop, const anim_event_mark *marks, int mark_count)
{
    memset(t, 0, sizeof *t);
    t->parents[0] = -1;
    t->names[0] = "root";
    for (int f = 0; f < 11; ++f) {
        glm_quatv(t->frames[f].rotation, 0.1f * (float)(f % 10), (vec3){0.0f, 1.0f, 0.0f});
        t->frames[f].position[2] = 1.0f;
    }
    t->clip = (clip){.joint_count = 1, .frame_count = 11, .frame_rate = 10.0f, .last_frame_is_first = true,
                     .loop_duration = 1.0f, .once_duration = 1.0f, .names = t->names, .parents = t->parents,
                     .frames = t->frames};
    t->playable = (anim_clip){.name = "tiny", .clip = &t->clip, .loop = loop, .sync_group = -1,
                              .event_count = mark_count, .events = marks};
}

static void test_big_steps_fire_every_crossing(void)
{
    static const anim_event_mark marks[] = {{0.0f, "start"}, {2.5f, "quarter"}, {10.0f, "end"}};
    tiny_clip tiny;
    make_tiny_clip(&tiny, true, marks, 3);
    skeleton s = {.joint_count = 1, .names = tiny.names, .parents = tiny.parents, .bind_object = tiny.frames};
    anim_controller *controller = anim_controller_create(&(anim_controller_desc){.skeleton = &s});
    anim_controller_play(controller, 0, &tiny.playable, 0.0f, NULL);
    anim_update_result result;
    /* [0, 3.3): "start" and "end" (frame 10 is the next cycle's frame 0) at 0, 1, 2, 3; "quarter" at
     * 0.25 .. 3.25, in time order. */
    anim_controller_update(controller, 3.3, &result);
    static const char *const expected[] = {"start", "end", "quarter", "start", "end", "quarter", "start", "end",
                                           "quarter", "start", "end", "quarter"};
    static const int expected_cycles[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    CHECK(result.event_count == 12);
    for (int e = 0; e < result.event_count && e < 12; ++e) {
        CHECK(strcmp(result.events[e].name, expected[e]) == 0);
        CHECK(result.events[e].cycle == expected_cycles[e]);
    }
    CHECK(result.events_dropped == 0);
    /* More than fit: the earliest are kept, the rest counted. */
    anim_controller_update(controller, 100.0, &result);
    CHECK(result.event_count == ANIM_EVENTS_MAX);
    CHECK(result.events_dropped == 300 - ANIM_EVENTS_MAX);
    CHECK(result.events[0].cycle == 4 && strcmp(result.events[0].name, "start") == 0);
    anim_controller_destroy(controller);

    /* A one-shot fires its last frame's mark once, on arriving there. */
    make_tiny_clip(&tiny, false, marks, 3);
    controller = anim_controller_create(&(anim_controller_desc){.skeleton = &s});
    anim_controller_play(controller, 0, &tiny.playable, 0.0f, NULL);
    int fired = 0;
    for (int step = 0; step < 40; ++step) {
        anim_controller_update(controller, 1.0 / 30.0, &result);
        fired += result.event_count;
    }
    CHECK(fired == 3);
    anim_controller_destroy(controller);
}

/* ---- root motion ---- */

/* The clip moves the entity: its root motion and its share come back from each update. */
static const anim_play_options moving = {.moves_entity = true};

/* The entity: where it stands and which way it faces, moved by each update's root motion. */
typedef struct entity {
    double x, y, yaw;
} entity;

static void move_entity(entity *e, const anim_update_result *result)
{
    double c = cos(e->yaw), s = sin(e->yaw);
    e->x += c * result->translation[0] - s * result->translation[1];
    e->y += s * result->translation[0] + c * result->translation[1];
    e->yaw += result->yaw;
}

static void to_world(const entity *e, const float p[3], double out[2])
{
    double c = cos(e->yaw), s = sin(e->yaw);
    out[0] = e->x + c * p[0] - s * p[1];
    out[1] = e->y + s * p[0] + c * p[1];
}

/* Frames of the root-motion walk where a foot is planted, found from the data: its ankle within 5 mm of
 * its lowest, and moving less than 2 cm/s in the clip's world (the root travels in this clip). */
static void find_plants(int ankle, bool *planted)
{
    const clip *c = clips[WALK_ROOT_MOTION];
    joint_pose *object = malloc(sizeof(joint_pose) * (size_t)c->joint_count * (size_t)c->frame_count);
    float lowest = INFINITY;
    for (int f = 0; f < c->frame_count; ++f) {
        pose_to_object(c->parents, c->joint_count, &c->frames[f * c->joint_count], &object[f * c->joint_count]);
        lowest = fminf(lowest, object[f * c->joint_count + ankle].position[2]);
    }
    for (int f = 0; f + 1 < c->frame_count; ++f) {
        const float *p = object[f * c->joint_count + ankle].position, *q = object[(f + 1) * c->joint_count + ankle].position;
        double speed = hypot(q[0] - p[0], q[1] - p[1]) * c->frame_rate;
        planted[f] = p[2] < lowest + 0.005f && q[2] < lowest + 0.005f && speed < 0.02;
    }
    planted[c->frame_count - 1] = false;
    free(object);
}

static void test_root_motion_walk_travels_with_planted_feet(void)
{
    const int ankles[2] = {joint_named("foot.L"), joint_named("foot.R")};
    bool planted[2][64];
    int planted_frames = 0;
    for (int side = 0; side < 2; ++side) {
        find_plants(ankles[side], planted[side]);
        for (int f = 0; f < clips[WALK_ROOT_MOTION]->frame_count; ++f)
            planted_frames += planted[side][f];
    }
    CHECK(planted_frames >= 10);
    for (int r = 0; r < STEP_RATE_COUNT; ++r) {
        anim_controller *controller = new_controller();
        anim_controller_play(controller, 0, &library[WALK_ROOT_MOTION], 0.0f, &moving);
        entity e = {0.0, 0.0, 0.0};
        double plant_start[2][2] = {{0}}, worst_drift = 0.0;
        bool in_plant[2] = {false, false};
        int steps = (int)lround(3.0 * step_rates[r]);
        anim_update_result result;
        anim_controller_update(controller, 0.0, &result);
        for (int step = 0; step <= steps; ++step) {
            anim_layer_info info;
            anim_controller_layer(controller, 0, 0, &info);
            int frame = (int)floor(info.time * 30.0);
            for (int side = 0; side < 2; ++side) {
                double world[2];
                to_world(&e, anim_controller_object_pose(controller)[ankles[side]].position, world);
                bool now = planted[side][frame];
                if (now && !in_plant[side])
                    memcpy(plant_start[side], world, sizeof world);
                else if (now)
                    worst_drift = fmax(worst_drift, hypot(world[0] - plant_start[side][0], world[1] - plant_start[side][1]));
                in_plant[side] = now;
            }
            if (step < steps) {
                anim_controller_update(controller, 1.0 / step_rates[r], &result);
                move_entity(&e, &result);
            }
        }
        printf("  %3.0f Hz: 3 cycles travel %.5f m (expected 4.2), planted feet drift up to %.2f mm\n",
               step_rates[r], hypot(e.x, e.y), worst_drift * 1000.0);
        CHECK_NEAR(e.x, 4.2, 1e-3);
        CHECK_NEAR(e.y, 0.0, 1e-3);
        CHECK(worst_drift <= 0.01);
        /* The pose keeps the root on the entity: no travel left in it. */
        CHECK(local_pose(controller)[0].position[0] == 0.0f);
        anim_controller_destroy(controller);
    }
}

static void test_root_motion_turn_turns_ninety_degrees(void)
{
    for (int r = 0; r < STEP_RATE_COUNT; ++r) {
        anim_controller *controller = new_controller();
        anim_controller_play(controller, 0, &library[TURN_LEFT], 0.0f, &moving);
        entity e = {0.0, 0.0, 0.0};
        anim_update_result result;
        for (int step = 0; step < (int)lround(1.5 * step_rates[r]); ++step) {
            anim_controller_update(controller, 1.0 / step_rates[r], &result);
            move_entity(&e, &result);
        }
        printf("  %3.0f Hz: turned %.4f degrees, moved %.5f m\n", step_rates[r], DEGREES(e.yaw), hypot(e.x, e.y));
        CHECK_NEAR(DEGREES(e.yaw), 90.0, 0.05);
        CHECK(hypot(e.x, e.y) < 0.01);
        CHECK(result.finished[0]);
        /* The pose faces the entity's forward: the root's heading went to the entity. */
        const float *q = local_pose(controller)[0].rotation;
        CHECK_NEAR(2.0 * (q[0] * q[1] + q[3] * q[2]), 0.0, 1e-5);
        anim_controller_destroy(controller);
    }
}

static void test_in_place_strips_travel(void)
{
    anim_clip in_place = library[WALK_ROOT_MOTION];
    in_place.root_mode = ANIM_ROOT_IN_PLACE;
    anim_controller *controller = new_controller();
    anim_controller_play(controller, 0, &in_place, 0.0f, &moving);
    joint_pose *expected = malloc(sizeof(joint_pose) * (size_t)joint_count());
    for (int step = 0; step < 100; ++step) {
        anim_update_result result;
        anim_controller_update(controller, 1.0 / 60.0, &result);
        CHECK(result.translation[0] == 0.0f && result.translation[1] == 0.0f && result.yaw == 0.0f);
        const joint_pose *root = &local_pose(controller)[0];
        anim_layer_info info;
        anim_controller_layer(controller, 0, 0, &info);
        pose_sample(clips[WALK_ROOT_MOTION], (float)info.time, true, expected);
        CHECK(root->position[0] == 0.0f && root->position[1] == 0.0f);
        CHECK(root->position[2] == expected[0].position[2]); /* height kept */
    }
    free(expected);
    anim_controller_destroy(controller);
}

/* Who moves the entity. A root-motion clip played without moves_entity plays in place and hands nothing
 * over; one played with it gives its travel and a share of 1. A crossfade from it to an in-place walk
 * the game moves takes the share from 1 to 0 by the fade's rate, and the translation is exactly the moving
 * layer's own, times that share (the two walks share a sync group, so the moving layer keeps the phase
 * and rate it has alone). */
static void test_root_motion_share_follows_the_moving_layers(void)
{
    anim_controller *controller = new_controller();
    anim_update_result result;
    anim_controller_play(controller, 0, &library[WALK_ROOT_MOTION], 0.0f, NULL);
    anim_controller_update(controller, 0.1, &result);
    CHECK(result.translation[0] == 0.0f && result.yaw == 0.0f && result.root_motion_share == 0.0f);
    CHECK(local_pose(controller)[0].position[0] == 0.0f); /* still in place */
    anim_layer_info info;
    CHECK(anim_controller_layer(controller, 0, 0, &info) && !info.moves_entity);
    /* The same clip asked for again, now moving the entity: the layer plays on and takes the flag. */
    anim_controller_play(controller, 0, &library[WALK_ROOT_MOTION], 0.2f, &moving);
    CHECK(anim_controller_layer_count(controller, 0) == 1);
    CHECK(anim_controller_layer(controller, 0, 0, &info) && info.moves_entity);
    anim_controller_update(controller, 0.0, &result);
    CHECK(result.root_motion_share == 1.0f && result.translation[0] == 0.0f); /* no time, no travel */

    anim_controller *alone = new_controller();
    anim_controller_play(alone, 0, &library[WALK_ROOT_MOTION], 0.0f, &moving);
    anim_controller_update(alone, 0.1, NULL);
    anim_controller_play(controller, 0, &library[WALK], 0.5f, NULL);
    float previous_share = 1.0f, largest_change = 0.0f, worst_translation = 0.0f;
    int steps = 0;
    for (; steps < 60 && previous_share > 0.0f; ++steps) {
        anim_update_result reference;
        anim_controller_update(controller, 1.0 / 60.0, &result);
        anim_controller_update(alone, 1.0 / 60.0, &reference);
        CHECK(reference.root_motion_share == 1.0f && reference.translation[0] > 0.0f);
        CHECK(result.root_motion_share >= 0.0f && result.root_motion_share <= previous_share);
        largest_change = fmaxf(largest_change, previous_share - result.root_motion_share);
        for (int k = 0; k < 2; ++k)
            worst_translation = fmaxf(worst_translation, fabsf(result.translation[k] - result.root_motion_share *
                                                                                          reference.translation[k]));
        previous_share = result.root_motion_share;
    }
    printf("  moving walk -> in-place walk over 0.5 s: share 1 -> 0 in %d steps, at most %.4f a step; "
           "translation within %.2g m of share x the moving layer's\n",
           steps, largest_change, worst_translation);
    CHECK(previous_share == 0.0f);
    CHECK(steps >= 29 && steps <= 31);
    CHECK(largest_change <= 1.0f / 30.0f + 1e-5f); /* a 60 Hz step of a 0.5 s fade */
    CHECK(worst_translation < 1e-6f);
    CHECK(anim_controller_layer(controller, 0, 0, &info) && info.clip == &library[WALK] && !info.moves_entity);
    anim_controller_update(controller, 1.0 / 60.0, &result);
    CHECK(result.translation[0] == 0.0f && result.root_motion_share == 0.0f);

    /* A one-shot that moves the entity keeps its share after its end: it holds the entity where it left it. */
    anim_controller_play(controller, 0, &library[TURN_LEFT], 0.0f, &moving);
    anim_controller_update(controller, 2.0, &result);
    CHECK(result.finished[0] && result.root_motion_share == 1.0f);
    anim_controller_update(controller, 1.0 / 60.0, &result);
    CHECK(result.yaw == 0.0f && result.root_motion_share == 1.0f);
    anim_controller_destroy(alone);
    anim_controller_destroy(controller);
}

/* A character's import (characters.ini scale) on its clip entries: the speed in clips.ini is in file units
 * per second and root motion comes out in metres. */
static void test_import_scale_gives_metres(void)
{
    anim_clip doom_walk = library[WALK];
    doom_walk.ground_speed = 1.4f * 39.37f; /* inches per second */
    doom_walk.import_scale = 1.0f / 39.37f;
    anim_controller *controller = new_controller();
    anim_controller_play(controller, 0, &doom_walk, 0.0f, NULL);
    CHECK(anim_controller_set_ground_speed(controller, 0, 1.4f));
    anim_layer_info info;
    anim_controller_layer(controller, 0, 0, &info);
    CHECK_NEAR(info.speed, 1.0, 1e-5);
    anim_controller_destroy(controller);

    anim_clip halved = library[WALK_ROOT_MOTION];
    halved.import_scale = 0.5f;
    anim_controller *controllers[2] = {new_controller(), new_controller()};
    anim_controller_play(controllers[0], 0, &library[WALK_ROOT_MOTION], 0.0f, &moving);
    anim_controller_play(controllers[1], 0, &halved, 0.0f, &moving);
    for (int step = 0; step < 30; ++step) {
        anim_update_result results[2];
        for (int c = 0; c < 2; ++c)
            anim_controller_update(controllers[c], 1.0 / 60.0, &results[c]);
        CHECK_NEAR(results[1].translation[0], 0.5 * results[0].translation[0], 1e-7);
        CHECK_NEAR(results[1].translation[1], 0.5 * results[0].translation[1], 1e-7);
        CHECK(results[1].yaw == results[0].yaw);
        CHECK(results[0].translation[0] > 0.0f);
    }
    anim_controller_destroy(controllers[0]);
    anim_controller_destroy(controllers[1]);
}

/* ---- time ---- */

static void test_time_scale_zero_freezes_everything(void)
{
    anim_controller *controller = new_controller();
    anim_controller_mask_branch(controller, 1, "spine.02", 1.0f);
    anim_controller_play(controller, 0, &library[WALK_ROOT_MOTION], 0.0f, &moving);
    anim_controller_update(controller, 0.5, NULL);
    anim_controller_play(controller, 0, &library[RUN], 0.5f, NULL);
    anim_controller_play(controller, 1, &library[WAVE], 0.5f, NULL);
    anim_controller_update(controller, 0.1, NULL);
    joint_pose *frozen = malloc(sizeof(joint_pose) * (size_t)joint_count());
    memcpy(frozen, anim_controller_object_pose(controller), sizeof(joint_pose) * (size_t)joint_count());
    anim_layer_info before, after;
    anim_controller_layer(controller, 0, 1, &before);
    anim_controller_set_time_scale(controller, 0.0f);
    for (int step = 0; step < 30; ++step) {
        anim_update_result result;
        anim_controller_update(controller, 1.0 / 30.0, &result);
        CHECK(result.event_count == 0 && result.translation[0] == 0.0f && result.yaw == 0.0f);
    }
    CHECK(memcmp(frozen, anim_controller_object_pose(controller), sizeof(joint_pose) * (size_t)joint_count()) == 0);
    anim_controller_layer(controller, 0, 1, &after);
    CHECK(after.cycles == before.cycles && after.weight == before.weight);
    /* Slow motion: half the time scale, half the progress. */
    anim_controller_set_time_scale(controller, 0.5f);
    anim_controller_update(controller, 0.1, NULL);
    anim_controller_layer(controller, 0, 1, &after);
    CHECK_NEAR(after.fade - before.fade, 0.05 / 0.5, 1e-6);
    free(frozen);
    anim_controller_destroy(controller);
}

/* Culling bounds, grown by the body's skin_reach, hold the whole skinned body for both generated bodies, through
 * crossfades, an overlay, root motion travel and turn, and a jump; and stay tight (a box that held
 * everything by being huge would cull nothing). */
static void test_bounds_hold_the_skinned_bodies(void)
{
    model *robot = NULL;
    diag err;
    CHECK(loader_load_md5_model(ASSETS "models/robot.md5mesh", &robot, &err, NULL));
    if (!robot)
        return;
    model *bodies[2] = {mannequin, robot};
    int count = joint_count();
    mat4 *palette = aligned_alloc(32, sizeof(mat4) * (size_t)count);
    size_t most_vertices = 0;
    for (int b = 0; b < 2; ++b)
        for (int m = 0; m < bodies[b]->mesh_count; ++m)
            most_vertices = fmax(most_vertices, (size_t)bodies[b]->meshes[m].vertex_count);
    float(*positions)[3] = malloc(sizeof *positions * most_vertices);
    float(*normals)[3] = malloc(sizeof *normals * most_vertices);

    anim_controller *c = new_controller();
    int wave_channel = 1;
    anim_controller_mask_branch(c, wave_channel, "clavicle.R", 1.0f);
    float worst_outside = 0.0f, widest = 0.0f;
    int checked = 0;
    for (int step = 0; step < 60 * 12; ++step) {
        double t = step / 60.0;
        if (step == 0)
            anim_controller_play(c, 0, &library[IDLE], 0.0f, NULL);
        if (step == 60)
            anim_controller_play(c, 0, &library[WALK], 0.3f, NULL);
        if (step == 120)
            anim_controller_play(c, wave_channel, &library[WAVE], 0.2f, NULL);
        if (step == 150)
            anim_controller_play(c, 0, &library[RUN], 0.3f, NULL);
        if (step == 165) /* interrupts the walk -> run fade */
            anim_controller_play(c, 0, &library[WALK_ROOT_MOTION], 0.3f, NULL);
        if (step == 60 * 5)
            anim_controller_play(c, 0, &library[JUMP], 0.2f, NULL);
        if (step == 60 * 8)
            anim_controller_play(c, 0, &library[TURN_LEFT], 0.2f, NULL);
        CHECK(anim_controller_update(c, step == 0 ? 0.0 : 1.0 / 60.0, NULL));
        float box[2][3];
        CHECK(anim_controller_bounds(c, box));
        widest = fmaxf(widest, fmaxf(box[1][0] - box[0][0], box[1][1] - box[0][1]));
        if (step % 5 != 0)
            continue;
        for (int b = 0; b < 2; ++b) {
            CHECK(pose_palette(anim_controller_object_pose(c), (const mat4 *)bodies[b]->skeleton.inverse_bind,
                               count, palette));
            for (int m = 0; m < bodies[b]->mesh_count; ++m) {
                const skin_mesh *mesh = &bodies[b]->meshes[m];
                CHECK(pose_skin_cpu(mesh, (const mat4 *)palette, count, positions, normals));
                float reach = bodies[b]->skin_reach;
                for (int v = 0; v < mesh->vertex_count; ++v)
                    for (int k = 0; k < 3; ++k) {
                        worst_outside = fmaxf(worst_outside, box[0][k] - reach - positions[v][k]);
                        worst_outside = fmaxf(worst_outside, positions[v][k] - box[1][k] - reach);
                    }
                ++checked;
            }
        }
        (void)t;
    }
    printf("  bounds: worst vertex outside %.4f m, widest box %.2f m, skin reach %.3f / %.3f m, %d meshes checked\n",
           (double)worst_outside, (double)widest, (double)mannequin->skin_reach, (double)robot->skin_reach, checked);
    CHECK(checked > 200);
    CHECK(worst_outside <= 0.0f);
    CHECK(widest < 3.0f);
    anim_controller_destroy(c);
    free(positions);
    free(normals);
    free(palette);
    model_free(robot);
}

static void test_one_shot_holds_its_last_frame(void)
{
    anim_controller *controller = new_controller();
    anim_controller_play(controller, 0, &library[JUMP], 0.0f, NULL);
    joint_pose *last = malloc(sizeof(joint_pose) * (size_t)joint_count());
    pose_sample(clips[JUMP], clips[JUMP]->once_duration, false, last);
    last[0].position[0] = last[0].position[1] = 0.0f;
    anim_update_result result;
    bool finished_early = false;
    for (int step = 0; step < 59; ++step) {
        anim_controller_update(controller, 1.0 / 30.0, &result);
        finished_early |= result.finished[0];
    }
    CHECK(!finished_early);
    for (int step = 0; step < 30; ++step) {
        anim_controller_update(controller, 1.0 / 30.0, &result);
        CHECK(result.finished[0] && anim_controller_finished(controller, 0));
        CHECK(largest_difference(local_pose(controller), last, 0, joint_count() - 1) < 1e-6);
    }
    /* Played again after it finished, it starts over. */
    CHECK(anim_controller_play(controller, 0, &library[JUMP], 0.2f, NULL));
    CHECK(anim_controller_layer_count(controller, 0) == 2);
    free(last);
    anim_controller_destroy(controller);
}


/* ---- extreme rates and steps (issue 16) ---- */

/* The largest rate states.ini allows (anim_config.h, ANIM_CONFIG_RATE_MAX) on a clip with events, for many
 * steps, and then speeds and steps no file allows but a program may pass: each update keeps its event count
 * within ANIM_EVENTS_MAX, counts the rest without overflow (events_dropped never goes negative), and leaves
 * the layer at a finite position. The sanitizer build halts on any signed overflow or out-of-range
 * float-to-integer conversion on the way. */
static void test_extreme_rates_and_steps_stay_defined(void)
{
    static const struct {
        float speed;
        double dt;
        int steps;
    } cases[] = {
        {100.0f, 1.0 / 60.0, 2000},   /* ANIM_CONFIG_RATE_MAX: the largest rate a states.ini may give */
        {100.0f, 1.0e9, 50},          /* the longest step the controller takes (longer ones are cut to it) */
        {3.0e38f, 1.0 / 60.0, 200},   /* the largest float speed a program may set */
        {3.0e38f, 1.0e300, 50},       /* and the largest step */
        {1.0e-38f, 1.0e300, 50},      /* a tiny speed over a huge step */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        anim_controller *controller = new_controller();
        CHECK(anim_controller_play(controller, 0, &library[WALK], 0.0f, &(anim_play_options){.speed = cases[c].speed}));
        CHECK(anim_controller_play(controller, 0, &library[RUN], 0.5f, &(anim_play_options){.speed = cases[c].speed}));
        long long total_events = 0;
        for (int step = 0; step < cases[c].steps; ++step) {
            anim_update_result result;
            CHECK(anim_controller_update(controller, cases[c].dt, &result));
            CHECK(result.event_count >= 0 && result.event_count <= ANIM_EVENTS_MAX);
            CHECK(result.events_dropped >= 0);
            for (int e = 0; e < result.event_count; ++e)
                CHECK(result.events[e].step_fraction >= 0.0f && result.events[e].step_fraction <= 1.0f);
            CHECK(isfinite(result.translation[0]) && isfinite(result.translation[1]) && isfinite(result.yaw));
            total_events += result.event_count;
        }
        anim_layer_info layer;
        CHECK(anim_controller_layer(controller, 0, 0, &layer));
        CHECK(isfinite(layer.cycles) && layer.cycles > 0.0);
        CHECK(total_events > 0); /* a clip with two marks played for many cycles fires */
        anim_controller_destroy(controller);
    }
    /* At the largest rate a file allows, 60 steps a second still report every footstep of one layer: 100
     * times walk's cycle rate, two marks a cycle, at most a few dozen a step. */
    anim_controller *controller = new_controller();
    CHECK(anim_controller_play(controller, 0, &library[WALK], 0.0f, &(anim_play_options){.speed = 100.0f}));
    int fired = 0, dropped = 0;
    for (int step = 0; step < 60; ++step) {
        anim_update_result result;
        anim_controller_update(controller, 1.0 / 60.0, &result);
        fired += result.event_count;
        dropped += result.events_dropped;
    }
    anim_layer_info layer;
    CHECK(anim_controller_layer(controller, 0, 0, &layer));
    CHECK_NEAR((double)(fired + dropped), 2.0 * floor(layer.cycles), 2.0);
    anim_controller_destroy(controller);
}

int main(void)
{
    if (!load_assets()) {
        fprintf(stderr, "test_anim_controller: could not load the generated assets\n");
        return 1;
    }
    RUN(test_create_and_memory);
    RUN(test_weights_sum_to_one_through_fades);
    RUN(test_crossfade_ends_are_the_pure_clips);
    RUN(test_interrupts_do_not_pop);
    RUN(test_local_pose_is_what_the_update_showed);
    RUN(test_snapshot_keeps_the_pose);
    RUN(test_big_skeleton_in_passes);
    RUN(test_sync_keeps_feet_in_step);
    RUN(test_crossfade_fires_one_footstep_per_contact);
    RUN(test_contact_marks_a_little_apart);
    RUN(test_unrelated_clips_fire_their_own_events);
    RUN(test_wave_over_walk_through_a_mask);
    RUN(test_shared_masks);
    RUN(test_additive_weight_zero_and_identity_change_nothing);
    RUN(test_additive_still_joints_are_skipped);
    RUN(test_additive_off_and_on_again);
    RUN(test_additive_still_joints_between_are_skipped);
    RUN(test_additive_on_its_reference_reproduces_the_clip);
    RUN(test_additive_mask_and_weight);
    RUN(test_additive_crossfades_with_an_ordinary_overlay);
    RUN(test_additive_bake_refuses_mismatches);
    RUN(test_events_do_not_depend_on_the_step_rate);
    RUN(test_big_steps_fire_every_crossing);
    RUN(test_root_motion_walk_travels_with_planted_feet);
    RUN(test_root_motion_turn_turns_ninety_degrees);
    RUN(test_in_place_strips_travel);
    RUN(test_root_motion_share_follows_the_moving_layers);
    RUN(test_import_scale_gives_metres);
    RUN(test_time_scale_zero_freezes_everything);
    RUN(test_one_shot_holds_its_last_frame);
    RUN(test_bounds_hold_the_skinned_bodies);
    RUN(test_extreme_rates_and_steps_stay_defined);
    for (int i = 0; i < CLIP_COUNT; ++i)
        clip_free(clips[i]);
    model_free(mannequin);
    return check_report();
}
