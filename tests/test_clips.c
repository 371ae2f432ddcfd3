/* test_clips: every generated clip (tools/assetgen/clips.c), written into memory and read back through
 * the engine's parser and pose stages, the way the demo will play it:
 *   - it parses without a warning, with the frame rate, frame count and loop convention of its recipe;
 *   - cyclic clips loop without a seam (neither a jump nor a kink where the cycle wraps);
 *   - no part of a sole ever goes below the floor, and knees only bend forward;
 *   - feet planted according to the recipe are flat on the floor and drift at most 1 cm in the world
 *     (in-place walk and run: the world slides by ground_speed * t; walk_root_motion: clip space);
 *   - walk and run start on the left heel, with the arms swinging against the legs;
 *   - wave moves only the right arm, so it can be layered over any other clip;
 *   - the bytes are the same on every run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assetgen/clips.h"
#include "assetgen/rig.h"
#include "check.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "pose/pose.h"
#include "test_files.h"

#define PI 3.14159265358979323846
#define FLOOR_TOLERANCE 1e-4      /* m: how far below z = 0 a sole point may be (6-decimal rounding) */
#define PLANT_DRIFT_MAX 0.01      /* m: horizontal spread of a planted foot in the world */
#define PLANT_HEIGHT_TOLERANCE 0.005 /* m: a planted foot is this close to its bind height */

/* ---- Generating and parsing ----------------------------------------------------------------------- */

static test_buffer generate_text(int index)
{
    test_buffer b;
    FILE *f = test_memory_open(&b);
    return test_memory_close(f, f && clips_write(f, index), &b);
}

/* The clip as the engine reads it; NULL (and a failed check) if it does not parse cleanly. */
static clip *generate_clip(int index)
{
    const clip_recipe *recipe = clips_recipe(index);
    test_buffer text = generate_text(index);
    char name[128];
    snprintf(name, sizeof name, "generated/%s.md5anim", recipe->name);
    clip *c = NULL;
    diag err = {0};
    diag_list warnings = {0};
    bool ok = loader_parse_md5_clip(text.bytes, text.size, name, &c, &err, &warnings);
    if (!ok)
        fprintf(stderr, "  %s:%d: %s\n", name, err.line, err.message);
    for (int i = 0; i < warnings.count; ++i)
        fprintf(stderr, "  warning %s:%d: %s\n", name, warnings.items[i].line, warnings.items[i].message);
    CHECK(ok);
    CHECK(warnings.total == 0);
    diag_list_free(&warnings);
    free(text.bytes);
    return ok ? c : NULL;
}

/* ---- Poses --------------------------------------------------------------------------------------- */

static void rig_parents(int parents[RIG_JOINT_COUNT])
{
    for (int j = 0; j < RIG_JOINT_COUNT; ++j)
        parents[j] = rig_joints[j].parent;
}

static double frame_time(const clip *c, int frame)
{
    return (double)frame / (double)c->frame_rate;
}

/* Object-space pose of one stored frame. Without the root's translation if asked: how a seam is judged
 * in a root-motion clip, whose root jumps back a stride when the cycle wraps, as it should. */
static void object_pose(const clip *c, const joint_pose *local, bool drop_root_translation, joint_pose *object)
{
    int parents[RIG_JOINT_COUNT];
    rig_parents(parents);
    memcpy(object, local, RIG_JOINT_COUNT * sizeof *object);
    if (drop_root_translation)
        memset(object[RIG_ROOT].position, 0, sizeof object[RIG_ROOT].position);
    CHECK(pose_to_object(parents, c->joint_count, object, object));
}

static void frame_object_pose(const clip *c, int frame, joint_pose *object)
{
    object_pose(c, &c->frames[(size_t)frame * (size_t)c->joint_count], false, object);
}

/* point (in the joint's frame) in object space */
static void joint_point(const joint_pose *joint, float x, float y, float z, vec3 out)
{
    versor rotation;
    vec3 point = {x, y, z};
    glm_vec4_copy((float *)joint->rotation, rotation);
    glm_quat_rotatev(rotation, point, out);
    glm_vec3_add(out, (float *)joint->position, out);
}

/* Lowest point of a foot's sole: the foot segment from the back of the heel to the ball (the toe joint),
 * at the ankle's bind height below the ankle, then the toe segment to the tip, at the toe joint's bind
 * height below it. Sampled every centimetre. */
static float sole_lowest(const joint_pose *object, int side)
{
    int foot = side == CLIPS_LEFT ? RIG_FOOT_L : RIG_FOOT_R, toe = side == CLIPS_LEFT ? RIG_TOE_L : RIG_TOE_R;
    double ball = rig_joints[RIG_TOE_L].position[0] - rig_joints[RIG_FOOT_L].position[0];
    double toe_height = rig_joints[RIG_TOE_L].position[2];
    float lowest = INFINITY;
    for (double x = -RIG_HEEL_BACK; x <= ball + 1e-9; x += 0.01) {
        vec3 point;
        joint_point(&object[foot], (float)x, 0.0f, (float)-RIG_ANKLE_HEIGHT, point);
        lowest = fminf(lowest, point[2]);
    }
    for (double x = 0.0; x <= RIG_TOE_TIP_FRONT - ball + 1e-9; x += 0.01) {
        vec3 point;
        joint_point(&object[toe], (float)x, 0.0f, (float)-toe_height, point);
        lowest = fminf(lowest, point[2]);
    }
    return lowest;
}

/* Angle in degrees between two rotations, sign of the quaternions ignored. */
static double rotation_step_degrees(const float a[4], const float b[4])
{
    double dot = fabs((double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3]);
    return 2.0 * acos(dot > 1.0 ? 1.0 : dot) * 180.0 / PI;
}

/* ---- Recipes and parsing ------------------------------------------------------------------------- */

static const char *const additive_names[] = {"lean_left", "lean_right", "breathe", "flinch"};

static bool is_additive(const char *name)
{
    for (size_t i = 0; i < sizeof additive_names / sizeof additive_names[0]; ++i)
        if (strcmp(name, additive_names[i]) == 0)
            return true;
    return false;
}

static void test_every_clip_parses_as_its_recipe_says(void)
{
    CHECK(clips_count() >= 9);
    CHECK(clips_recipe(-1) == NULL);
    CHECK(clips_recipe(clips_count()) == NULL);
    for (int i = 0; i < clips_count(); ++i) {
        const clip_recipe *recipe = clips_recipe(i);
        clip *c = generate_clip(i);
        if (!c)
            continue;
        CHECK(c->joint_count == RIG_JOINT_COUNT);
        CHECK(c->frame_rate == (float)recipe->frame_rate);
        CHECK(recipe->frame_rate == 24 || recipe->frame_rate == 30);
        CHECK(c->frame_count == recipe->frame_count);
        for (int j = 0; j < c->joint_count; ++j) {
            CHECK(strcmp(c->names[j], rig_joints[j].name) == 0);
            CHECK(c->parents[j] == rig_joints[j].parent);
        }
        /* Cyclic clips are written the Doom 3 way: the last frame repeats the first. */
        if (recipe->cyclic)
            CHECK(c->last_frame_is_first);
        if (strcmp(recipe->name, "idle") == 0)
            CHECK(c->loop_duration >= 3.0f);
        CHECK(recipe->root_motion == (strcmp(recipe->name, "walk_root_motion") == 0));
        clip_free(c);
    }
}

static const clip_recipe *find_recipe(const char *name, int *index)
{
    for (int i = 0; i < clips_count(); ++i)
        if (strcmp(clips_recipe(i)->name, name) == 0) {
            *index = i;
            return clips_recipe(i);
        }
    CHECK(!"clip missing from the library");
    *index = -1;
    return NULL;
}

static void test_library_has_the_demo_clips(void)
{
    const char *names[] = {"idle",      "walk",     "run",      "walk_root_motion", "jump",       "wave",
                           "turn_left", "turn_right", "walk_left", "walk_right",     "walk_back",  "run_left",
                           "run_right", "run_back", "lean_left", "lean_right",     "breathe",    "flinch"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        int index;
        find_recipe(names[i], &index);
    }
    int walk, run, root_motion;
    CHECK_NEAR(find_recipe("walk", &walk)->ground_speed, 1.4, 1e-9);
    CHECK_NEAR(find_recipe("run", &run)->ground_speed, 3.5, 1e-9);
    CHECK_NEAR(find_recipe("walk_root_motion", &root_motion)->ground_speed, 1.4, 1e-9);
}

static void test_bytes_are_the_same_every_run(void)
{
    for (int i = 0; i < clips_count(); ++i) {
        test_buffer first = generate_text(i), second = generate_text(i);
        CHECK(first.size == second.size && memcmp(first.bytes, second.bytes, first.size) == 0);
        CHECK(strstr(first.bytes, "-0.000000") == NULL);
        CHECK_STR_CONTAINS(first.bytes, "commandline \"generated by marionette assetgen\"");
        free(first.bytes);
        free(second.bytes);
    }
}

/* ---- Loops --------------------------------------------------------------------------------------- */

/* How far one pose is from another: the largest joint rotation change (degrees, local) and the largest
 * joint movement (m, object space). */
typedef struct pose_step {
    double degrees;
    double metres;
} pose_step;

static pose_step step_between(const joint_pose *local_a, const joint_pose *object_a, const joint_pose *local_b,
                              const joint_pose *object_b)
{
    pose_step step = {0.0, 0.0};
    for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
        step.degrees = fmax(step.degrees, rotation_step_degrees(local_a[j].rotation, local_b[j].rotation));
        float moved = glm_vec3_distance((float *)object_a[j].position, (float *)object_b[j].position);
        step.metres = fmax(step.metres, moved);
    }
    return step;
}

/* Sample the cycle through the engine at every frame time, then across the wrap: the steps into and out
 * of the wrap must be no larger than the ordinary steps, and the change of step (a kink) at the wrap no
 * larger than the ordinary changes. */
static void check_seamless_loop(const clip *c, const clip_recipe *recipe)
{
    int cycle = c->frame_count - 1;
    int samples = cycle + 2; /* frame times 0 .. cycle + 1: the last two are past the wrap */
    joint_pose *local = malloc((size_t)samples * RIG_JOINT_COUNT * sizeof *local);
    joint_pose *object = malloc((size_t)samples * RIG_JOINT_COUNT * sizeof *object);
    for (int k = 0; k < samples; ++k) {
        CHECK(pose_sample(c, (float)frame_time(c, k), true, &local[k * RIG_JOINT_COUNT]));
        object_pose(c, &local[k * RIG_JOINT_COUNT], recipe->root_motion, &object[k * RIG_JOINT_COUNT]);
    }
    pose_step steps[512];
    for (int k = 0; k + 1 < samples && k < 512; ++k)
        steps[k] = step_between(&local[k * RIG_JOINT_COUNT], &object[k * RIG_JOINT_COUNT],
                                &local[(k + 1) * RIG_JOINT_COUNT], &object[(k + 1) * RIG_JOINT_COUNT]);
    pose_step ordinary = {0.0, 0.0}, kink = {0.0, 0.0};
    for (int k = 0; k + 1 < cycle; ++k) {
        ordinary.degrees = fmax(ordinary.degrees, steps[k].degrees);
        ordinary.metres = fmax(ordinary.metres, steps[k].metres);
    }
    /* Steps cycle - 1 (into the wrap) and cycle (out of it) must look like any other. */
    pose_step seam = {fmax(steps[cycle - 1].degrees, steps[cycle].degrees),
                      fmax(steps[cycle - 1].metres, steps[cycle].metres)};
    CHECK(seam.degrees <= ordinary.degrees + 1e-3);
    CHECK(seam.metres <= ordinary.metres + 1e-4);
    for (int k = 1; k + 1 < cycle; ++k) {
        kink.degrees = fmax(kink.degrees, fabs(steps[k].degrees - steps[k - 1].degrees));
        kink.metres = fmax(kink.metres, fabs(steps[k].metres - steps[k - 1].metres));
    }
    double seam_kink_degrees = fabs(steps[cycle].degrees - steps[cycle - 1].degrees);
    double seam_kink_metres = fabs(steps[cycle].metres - steps[cycle - 1].metres);
    CHECK(seam_kink_degrees <= kink.degrees + 1e-3);
    CHECK(seam_kink_metres <= kink.metres + 1e-4);
    printf("  %-17s seam step %.3f deg %.4f m, largest ordinary step %.3f deg %.4f m\n", recipe->name,
           seam.degrees, seam.metres, ordinary.degrees, ordinary.metres);
    free(local);
    free(object);
}

static void test_cyclic_clips_loop_without_a_seam(void)
{
    for (int i = 0; i < clips_count(); ++i) {
        const clip_recipe *recipe = clips_recipe(i);
        if (!recipe->cyclic)
            continue;
        clip *c = generate_clip(i);
        if (!c)
            continue;
        check_seamless_loop(c, recipe);
        clip_free(c);
    }
}

/* ---- Feet and knees ------------------------------------------------------------------------------ */

static void test_soles_never_go_below_the_floor(void)
{
    for (int i = 0; i < clips_count(); ++i) {
        clip *c = generate_clip(i);
        if (!c)
            continue;
        float lowest = INFINITY;
        joint_pose object[RIG_JOINT_COUNT];
        for (int f = 0; f < c->frame_count; ++f) {
            frame_object_pose(c, f, object);
            for (int side = CLIPS_LEFT; side <= CLIPS_RIGHT; ++side) {
                float z = sole_lowest(object, side);
                CHECK(z >= -FLOOR_TOLERANCE);
                lowest = fminf(lowest, z);
            }
        }
        printf("  %-17s lowest sole point %.5f m\n", clips_recipe(i)->name, (double)lowest);
        clip_free(c);
    }
}

/* The knee sits in front of the line from hip to ankle, "in front" being where the pelvis faces. */
static void test_knees_bend_forward(void)
{
    for (int i = 0; i < clips_count(); ++i) {
        clip *c = generate_clip(i);
        if (!c)
            continue;
        joint_pose object[RIG_JOINT_COUNT];
        for (int f = 0; f < c->frame_count; ++f) {
            frame_object_pose(c, f, object);
            vec3 forward;
            joint_point(&object[RIG_HIPS], 1.0f, 0.0f, 0.0f, forward);
            glm_vec3_sub(forward, object[RIG_HIPS].position, forward);
            for (int side = CLIPS_LEFT; side <= CLIPS_RIGHT; ++side) {
                int offset = side == CLIPS_LEFT ? 0 : RIG_RIGHT_LEG_OFFSET;
                float *hip = object[RIG_THIGH_L + offset].position, *knee = object[RIG_SHIN_L + offset].position;
                float *ankle = object[RIG_FOOT_L + offset].position;
                vec3 line, to_knee, off_line;
                glm_vec3_sub(ankle, hip, line);
                glm_vec3_normalize(line);
                glm_vec3_sub(knee, hip, to_knee);
                glm_vec3_scale(line, glm_vec3_dot(to_knee, line), off_line);
                glm_vec3_sub(to_knee, off_line, off_line);
                CHECK(glm_vec3_dot(off_line, forward) >= -1e-3f);
            }
        }
        clip_free(c);
    }
}

/* Over every plant of the recipe: the foot is flat at its bind height and its ankle stays within
 * PLANT_DRIFT_MAX in the world. Returns the worst drift. */
static double check_plants(int index, const clip *c)
{
    const clip_recipe *recipe = clips_recipe(index);
    clips_plant plants[CLIPS_MAX_PLANTS];
    int plant_count = clips_plants(index, plants);
    double worst = 0.0;
    joint_pose object[RIG_JOINT_COUNT];
    for (int p = 0; p < plant_count; ++p) {
        int ankle = plants[p].side == CLIPS_LEFT ? RIG_FOOT_L : RIG_FOOT_R;
        double low[2] = {INFINITY, INFINITY}, high[2] = {-INFINITY, -INFINITY};
        int frames_in_plant = 0;
        for (int f = 0; f < c->frame_count; ++f) {
            double t = frame_time(c, f);
            if (t < plants[p].begin - 1e-9 || t > plants[p].end + 1e-9)
                continue;
            ++frames_in_plant;
            frame_object_pose(c, f, object);
            /* In-place clips with a ground speed: the world slides on under the character, along the
             * clip's direction of travel. */
            double travel = recipe->root_motion ? 0.0 : recipe->ground_speed * t;
            double world[2] = {object[ankle].position[0] + travel * recipe->direction[0],
                               object[ankle].position[1] + travel * recipe->direction[1]};
            for (int k = 0; k < 2; ++k) {
                low[k] = fmin(low[k], world[k]);
                high[k] = fmax(high[k], world[k]);
            }
            CHECK_NEAR(object[ankle].position[2], RIG_ANKLE_HEIGHT, PLANT_HEIGHT_TOLERANCE);
            float sole = sole_lowest(object, plants[p].side);
            CHECK(sole >= -FLOOR_TOLERANCE && sole <= PLANT_HEIGHT_TOLERANCE);
        }
        CHECK(frames_in_plant >= 2);
        double drift = frames_in_plant ? hypot(high[0] - low[0], high[1] - low[1]) : 0.0;
        CHECK(drift <= PLANT_DRIFT_MAX);
        worst = fmax(worst, drift);
    }
    return worst;
}

static void test_planted_feet_stay_put(void)
{
    for (int i = 0; i < clips_count(); ++i) {
        clip *c = generate_clip(i);
        if (!c)
            continue;
        clips_plant plants[CLIPS_MAX_PLANTS];
        int plant_count = clips_plants(i, plants);
        for (int p = 0; p < plant_count; ++p) {
            CHECK(plants[p].side == CLIPS_LEFT || plants[p].side == CLIPS_RIGHT);
            CHECK(plants[p].begin >= 0.0 && plants[p].begin < plants[p].end);
            CHECK(plants[p].end <= (double)c->once_duration + 1e-6);
        }
        /* Only wave and the additive sources leave the legs alone; every other clip stands on its feet. */
        CHECK(plant_count > 0 || strcmp(clips_recipe(i)->name, "wave") == 0 || is_additive(clips_recipe(i)->name));
        double worst = check_plants(i, c);
        printf("  %-17s %d plants, worst drift %.5f m\n", clips_recipe(i)->name, plant_count, worst);
        clip_free(c);
    }
}

/* Planted feet are found from the data too: where the ankle is at its bind height, it moves slower than
 * 0.1 m/s in the world, and the recipe must call that a plant (or the sole is on its way up or down). */
static const char *const gait_names[] = {"walk", "run", "walk_root_motion", "walk_left", "walk_right", "walk_back",
                                         "run_left", "run_right", "run_back"};

static void test_gait_contacts_agree_with_the_data(void)
{
    for (size_t n = 0; n < sizeof gait_names / sizeof gait_names[0]; ++n) {
        const char *const *names = gait_names;
        int index;
        const clip_recipe *recipe = find_recipe(names[n], &index);
        clip *c = recipe ? generate_clip(index) : NULL;
        if (!c)
            continue;
        clips_plant plants[CLIPS_MAX_PLANTS];
        int plant_count = clips_plants(index, plants);
        joint_pose before[RIG_JOINT_COUNT], object[RIG_JOINT_COUNT];
        int contact_frames[2] = {0, 0};
        for (int f = 1; f < c->frame_count; ++f) {
            frame_object_pose(c, f - 1, before);
            frame_object_pose(c, f, object);
            double t = frame_time(c, f);
            for (int side = CLIPS_LEFT; side <= CLIPS_RIGHT; ++side) {
                int ankle = side == CLIPS_LEFT ? RIG_FOOT_L : RIG_FOOT_R;
                double travel = recipe->root_motion ? 0.0 : recipe->ground_speed / c->frame_rate;
                double moved = hypot(object[ankle].position[0] - before[ankle].position[0] + travel * recipe->direction[0],
                                     object[ankle].position[1] - before[ankle].position[1] + travel * recipe->direction[1]);
                bool low = fabs(object[ankle].position[2] - RIG_ANKLE_HEIGHT) < PLANT_HEIGHT_TOLERANCE &&
                           fabs(before[ankle].position[2] - RIG_ANKLE_HEIGHT) < PLANT_HEIGHT_TOLERANCE;
                if (!low || moved * c->frame_rate > 0.1)
                    continue;
                ++contact_frames[side];
                bool in_recipe = false;
                for (int p = 0; p < plant_count; ++p)
                    in_recipe = in_recipe || (plants[p].side == side && t >= plants[p].begin - 1.5 / c->frame_rate &&
                                              t <= plants[p].end + 1.5 / c->frame_rate);
                CHECK(in_recipe);
            }
        }
        /* Both feet stand for a good part of the cycle. */
        CHECK(contact_frames[CLIPS_LEFT] >= 3 && contact_frames[CLIPS_RIGHT] >= 3);
        clip_free(c);
    }
}

static void test_gaits_start_on_the_left_heel(void)
{
    const char *names[] = {"walk", "run", "walk_root_motion"};
    for (int n = 0; n < 3; ++n) {
        int index;
        const clip_recipe *recipe = find_recipe(names[n], &index);
        clip *c = recipe ? generate_clip(index) : NULL;
        if (!c)
            continue;
        joint_pose object[RIG_JOINT_COUNT];
        /* Frame 0: the left heel is on the floor, the left foot in front. */
        frame_object_pose(c, 0, object);
        CHECK(sole_lowest(object, CLIPS_LEFT) <= 1e-3f);
        CHECK(object[RIG_FOOT_L].position[0] > object[RIG_FOOT_R].position[0] + 0.3f);
        /* Arms swing against the legs: the right hand is in front with the left leg. */
        CHECK(object[RIG_HAND_R].position[0] > object[RIG_HAND_L].position[0] + 0.1f);
        /* The frame before the cycle ends, the left foot was still coming down. */
        frame_object_pose(c, c->frame_count - 2, object);
        CHECK(sole_lowest(object, CLIPS_LEFT) > 2e-3f);
        /* The first plant of the cycle is the left foot's. */
        clips_plant plants[CLIPS_MAX_PLANTS];
        CHECK(clips_plants(index, plants) >= 2 && plants[0].side == CLIPS_LEFT);
        clip_free(c);
    }
}

static void test_run_has_flight_phases(void)
{
    int index;
    const clip_recipe *recipe = find_recipe("run", &index);
    clip *c = recipe ? generate_clip(index) : NULL;
    if (!c)
        return;
    joint_pose object[RIG_JOINT_COUNT];
    int flight_frames = 0;
    for (int f = 0; f + 1 < c->frame_count; ++f) {
        frame_object_pose(c, f, object);
        if (sole_lowest(object, CLIPS_LEFT) > 0.01f && sole_lowest(object, CLIPS_RIGHT) > 0.01f)
            ++flight_frames;
    }
    CHECK(flight_frames >= 2);
    clip_free(c);
}

/* ---- One-shots ----------------------------------------------------------------------------------- */

static bool is_right_arm(int joint)
{
    return joint >= RIG_CLAVICLE_R && joint <= RIG_FINGERS_2_R;
}

static void test_wave_moves_only_the_right_arm(void)
{
    int index;
    const clip_recipe *recipe = find_recipe("wave", &index);
    clip *c = recipe ? generate_clip(index) : NULL;
    if (!c)
        return;
    float highest_hand = -INFINITY;
    joint_pose object[RIG_JOINT_COUNT];
    for (int f = 0; f < c->frame_count; ++f) {
        const joint_pose *local = &c->frames[(size_t)f * RIG_JOINT_COUNT];
        for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
            if (is_right_arm(j))
                continue;
            double bind[3];
            rig_local_offset(j, bind);
            for (int k = 0; k < 3; ++k) {
                CHECK_NEAR(local[j].position[k], bind[k], 1e-6);
                CHECK_NEAR(local[j].rotation[k], 0.0, 1e-6);
            }
        }
        frame_object_pose(c, f, object);
        highest_hand = fmaxf(highest_hand, object[RIG_HAND_R].position[2]);
    }
    /* The hand really goes up: above the shoulder. */
    CHECK(highest_hand > rig_joints[RIG_UPPERARM_R].position[2] + 0.1);
    clip_free(c);
}

static void test_one_shots_start_and_end_standing(void)
{
    for (int i = 0; i < clips_count(); ++i) {
        const clip_recipe *recipe = clips_recipe(i);
        if (recipe->cyclic)
            continue;
        clip *c = generate_clip(i);
        if (!c)
            continue;
        joint_pose object[RIG_JOINT_COUNT];
        int frames[2] = {0, c->frame_count - 1};
        for (int e = 0; e < 2; ++e) {
            frame_object_pose(c, frames[e], object);
            CHECK(object[RIG_HEAD].position[2] > 1.5f);
            CHECK(sole_lowest(object, CLIPS_LEFT) < 1e-3f && sole_lowest(object, CLIPS_RIGHT) < 1e-3f);
        }
        clip_free(c);
    }
}

static void test_jump_leaves_the_floor(void)
{
    int index;
    const clip_recipe *recipe = find_recipe("jump", &index);
    clip *c = recipe ? generate_clip(index) : NULL;
    if (!c)
        return;
    float highest_sole = 0.0f;
    joint_pose object[RIG_JOINT_COUNT];
    for (int f = 0; f < c->frame_count; ++f) {
        frame_object_pose(c, f, object);
        highest_sole = fmaxf(highest_sole, fminf(sole_lowest(object, CLIPS_LEFT), sole_lowest(object, CLIPS_RIGHT)));
    }
    CHECK(highest_sole > 0.15f);
    clip_free(c);
}

static void test_turns_end_facing_ninety_degrees_round(void)
{
    const char *names[] = {"turn_left", "turn_right"};
    for (int n = 0; n < 2; ++n) {
        int index;
        const clip_recipe *recipe = find_recipe(names[n], &index);
        clip *c = recipe ? generate_clip(index) : NULL;
        if (!c)
            continue;
        joint_pose object[RIG_JOINT_COUNT];
        frame_object_pose(c, c->frame_count - 1, object);
        vec3 forward;
        joint_point(&object[RIG_ROOT], 1.0f, 0.0f, 0.0f, forward);
        CHECK_NEAR(forward[0], 0.0, 1e-4);
        CHECK_NEAR(forward[1], n == 0 ? 1.0 : -1.0, 1e-4);
        clip_free(c);
    }
}

/* ---- Locomotion in every direction (a 2D blend space's clips) ------------------------------------- */

#define DIRECTIONAL_DRIFT_MAX 0.002 /* m per plant: the limit for feet in a blend space */

typedef struct directional_gait {
    const char *name;
    const char *forward; /* the forward clip of the same gait */
    double direction[2];
} directional_gait;

static const directional_gait directional_gaits[] = {
    {"walk_left", "walk", {0.0, 1.0}}, {"walk_right", "walk", {0.0, -1.0}}, {"walk_back", "walk", {-1.0, 0.0}},
    {"run_left", "run", {0.0, 1.0}},   {"run_right", "run", {0.0, -1.0}},   {"run_back", "run", {-1.0, 0.0}},
};

/* Same cycle, speed and plant phases as the forward clip, so a blend keeps the feet in step; every plant
 * holds within 2 mm of the floor moving at the clip's speed in its direction. */
static void test_directional_gaits_line_up_with_the_forward_ones(void)
{
    for (size_t n = 0; n < sizeof directional_gaits / sizeof directional_gaits[0]; ++n) {
        const directional_gait *gait = &directional_gaits[n];
        int index, forward_index;
        const clip_recipe *recipe = find_recipe(gait->name, &index);
        const clip_recipe *forward = find_recipe(gait->forward, &forward_index);
        if (!recipe || !forward)
            continue;
        CHECK(recipe->cyclic && !recipe->root_motion);
        CHECK(recipe->frame_rate == forward->frame_rate && recipe->frame_count == forward->frame_count);
        CHECK_NEAR(recipe->ground_speed, forward->ground_speed, 1e-12);
        CHECK_NEAR(recipe->direction[0], gait->direction[0], 1e-12);
        CHECK_NEAR(recipe->direction[1], gait->direction[1], 1e-12);
        CHECK_NEAR(forward->direction[0], 1.0, 1e-12);
        clips_plant plants[CLIPS_MAX_PLANTS], forward_plants[CLIPS_MAX_PLANTS];
        int count = clips_plants(index, plants), forward_count = clips_plants(forward_index, forward_plants);
        CHECK(count == forward_count && count == 2);
        for (int p = 0; p < count && p < forward_count; ++p) {
            CHECK(plants[p].side == forward_plants[p].side);
            CHECK_NEAR(plants[p].begin, forward_plants[p].begin, 1e-9);
        }
        CHECK(plants[0].side == CLIPS_LEFT);
        clip *c = generate_clip(index);
        if (!c)
            continue;
        double worst = check_plants(index, c);
        CHECK(worst <= DIRECTIONAL_DRIFT_MAX);
        printf("  %-10s plants at %.3f (L) and %.3f (R) s like %s, worst drift %.5f m\n", gait->name,
               plants[0].begin, count > 1 ? plants[1].begin : -1.0, gait->forward, worst);
        clip_free(c);
    }
}

/* Side steps: the shoulders face forward on every frame while the pelvis opens towards the travel, and
 * the feet pass each other (each crosses the body's middle line). Backward: a planted foot moves forward
 * under the body. */
static void test_side_steps_face_forward_and_backward_steps_go_back(void)
{
    for (size_t n = 0; n < sizeof directional_gaits / sizeof directional_gaits[0]; ++n) {
        const directional_gait *gait = &directional_gaits[n];
        int index;
        const clip_recipe *recipe = find_recipe(gait->name, &index);
        clip *c = recipe ? generate_clip(index) : NULL;
        if (!c)
            continue;
        joint_pose object[RIG_JOINT_COUNT];
        double worst_chest_degrees = 0.0, pelvis_turn = 0.0, left_foot_y[2] = {INFINITY, -INFINITY};
        for (int f = 0; f < c->frame_count; ++f) {
            frame_object_pose(c, f, object);
            vec3 chest, hips;
            joint_point(&object[RIG_SPINE_3], 1.0f, 0.0f, 0.0f, chest);
            glm_vec3_sub(chest, object[RIG_SPINE_3].position, chest);
            joint_point(&object[RIG_HIPS], 1.0f, 0.0f, 0.0f, hips);
            glm_vec3_sub(hips, object[RIG_HIPS].position, hips);
            worst_chest_degrees = fmax(worst_chest_degrees, fabs(atan2(chest[1], chest[0])) * 180.0 / PI);
            pelvis_turn += atan2(hips[1], hips[0]) * 180.0 / PI / c->frame_count;
            left_foot_y[0] = fmin(left_foot_y[0], object[RIG_FOOT_L].position[1]);
            left_foot_y[1] = fmax(left_foot_y[1], object[RIG_FOOT_L].position[1]);
        }
        if (gait->direction[1] != 0.0) {
            CHECK(worst_chest_degrees <= 6.0);
            CHECK(pelvis_turn * gait->direction[1] >= 10.0);
            CHECK(left_foot_y[0] < -0.05 && left_foot_y[1] > 0.25);
            printf("  %-10s shoulders within %.2f deg of forward, pelvis turned %.1f deg, left ankle y %.3f..%.3f m\n",
                   gait->name, worst_chest_degrees, pelvis_turn, left_foot_y[0], left_foot_y[1]);
        } else {
            clips_plant plants[CLIPS_MAX_PLANTS];
            CHECK(clips_plants(index, plants) >= 1);
            joint_pose begin[RIG_JOINT_COUNT], end[RIG_JOINT_COUNT];
            frame_object_pose(c, (int)ceil(plants[0].begin * c->frame_rate - 1e-9), begin);
            frame_object_pose(c, (int)floor(plants[0].end * c->frame_rate + 1e-9), end);
            CHECK(end[RIG_FOOT_L].position[0] > begin[RIG_FOOT_L].position[0] + 0.2f);
        }
        clip_free(c);
    }
}

/* ---- Additive sources ----------------------------------------------------------------------------- */

static bool is_below_the_spine(int joint)
{
    return joint == RIG_ROOT || joint == RIG_HIPS || joint >= RIG_THIGH_L;
}

/* Frame 0 is the bind pose (their reference); root, hips and legs never move; the motion is what the
 * clip says it is. */
static void test_additive_sources_start_at_the_bind_pose(void)
{
    for (size_t n = 0; n < sizeof additive_names / sizeof additive_names[0]; ++n) {
        int index;
        const clip_recipe *recipe = find_recipe(additive_names[n], &index);
        clip *c = recipe ? generate_clip(index) : NULL;
        if (!c)
            continue;
        double largest_degrees = 0.0;
        for (int f = 0; f < c->frame_count; ++f) {
            const joint_pose *local = &c->frames[(size_t)f * RIG_JOINT_COUNT];
            for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
                double bind[3];
                rig_local_offset(j, bind);
                for (int k = 0; k < 3; ++k)
                    CHECK_NEAR(local[j].position[k], bind[k], 1e-6);
                const float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
                double degrees = rotation_step_degrees(local[j].rotation, identity);
                if (f == 0 || is_below_the_spine(j))
                    CHECK(degrees < 1e-3);
                largest_degrees = fmax(largest_degrees, degrees);
            }
        }
        joint_pose object[RIG_JOINT_COUNT];
        if (strcmp(recipe->name, "lean_left") == 0 || strcmp(recipe->name, "lean_right") == 0) {
            /* The full lean is held by the last frame: the head 0.1 m towards the turn. */
            frame_object_pose(c, c->frame_count - 1, object);
            double side = strcmp(recipe->name, "lean_left") == 0 ? 1.0 : -1.0;
            CHECK(object[RIG_HEAD].position[1] * side > 0.08);
            CHECK(!recipe->cyclic);
            printf("  %-10s head %.3f m to the side at the last frame\n", recipe->name, (double)object[RIG_HEAD].position[1]);
        } else if (strcmp(recipe->name, "breathe") == 0) {
            /* A slight, slow loop. */
            CHECK(recipe->cyclic && c->loop_duration >= 3.0f);
            CHECK(largest_degrees > 0.5 && largest_degrees < 5.0);
        } else if (strcmp(recipe->name, "flinch") == 0) {
            /* The head jerks back, and the clip ends at its reference pose again. */
            float head_x = 0.0f;
            for (int f = 0; f < c->frame_count; ++f) {
                frame_object_pose(c, f, object);
                head_x = fminf(head_x, object[RIG_HEAD].position[0]);
            }
            CHECK(head_x < -0.08f);
            CHECK(!recipe->cyclic && c->once_duration <= 1.0f);
            const joint_pose *last = &c->frames[(size_t)(c->frame_count - 1) * RIG_JOINT_COUNT];
            for (int j = 0; j < RIG_JOINT_COUNT; ++j)
                CHECK(rotation_step_degrees(last[j].rotation, (const float[4]){0.0f, 0.0f, 0.0f, 1.0f}) < 1e-3);
            printf("  %-10s head back %.3f m at most\n", recipe->name, (double)head_x);
        }
        clip_free(c);
    }
}

int main(void)
{
    RUN(test_every_clip_parses_as_its_recipe_says);
    RUN(test_library_has_the_demo_clips);
    RUN(test_bytes_are_the_same_every_run);
    RUN(test_cyclic_clips_loop_without_a_seam);
    RUN(test_soles_never_go_below_the_floor);
    RUN(test_knees_bend_forward);
    RUN(test_planted_feet_stay_put);
    RUN(test_gait_contacts_agree_with_the_data);
    RUN(test_gaits_start_on_the_left_heel);
    RUN(test_run_has_flight_phases);
    RUN(test_wave_moves_only_the_right_arm);
    RUN(test_one_shots_start_and_end_standing);
    RUN(test_jump_leaves_the_floor);
    RUN(test_turns_end_facing_ninety_degrees_round);
    RUN(test_directional_gaits_line_up_with_the_forward_ones);
    RUN(test_side_steps_face_forward_and_backward_steps_go_back);
    RUN(test_additive_sources_start_at_the_bind_pose);
    return check_report();
}
