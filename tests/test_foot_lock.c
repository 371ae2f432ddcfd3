/* anim_foot_lock: the stage's rules on a small two-legged skeleton in canonical axes (Z up, +X forward):
 * a planted foot locks where it is and stays there in the world while the body moves and turns; it lets
 * go with a fade (no step larger than the fade allows), again for reach and at once for a teleport; a foot
 * planting again while it fades locks where it is shown; heights follow the ground; weight 0 and a
 * disabled lock change nothing; misuse is refused; the import (scale, axes) is honoured. The planted
 * shares are checked on the shipped mannequin's clips. */
#include <math.h>
#include <string.h>

#include "anim/animator.h"
#include "anim/config/anim_config.h"
#include "anim/anim_foot_lock.h"
#include "check.h"
#include "heap_counter.h"
#include "pose/pose.h"

enum { JOINTS = 7, PELVIS = 0, HIP_L = 1, KNEE_L = 2, ANKLE_L = 3, HIP_R = 4, KNEE_R = 5, ANKLE_R = 6 };

static int parents[JOINTS] = {-1, 0, 1, 2, 0, 4, 5};
static const pose_ik_chain legs[2] = {{.hip = HIP_L, .knee = KNEE_L, .ankle = ANKLE_L},
                                      {.hip = HIP_R, .knee = KNEE_R, .ankle = ANKLE_R}};

static void set_pitch(joint_pose *joint, float radians)
{
    joint->rotation[0] = 0.0f;
    joint->rotation[1] = sinf(0.5f * radians);
    joint->rotation[2] = 0.0f;
    joint->rotation[3] = cosf(0.5f * radians);
}

/* Standing with knees a little bent, the left foot `stride` metres forward of the right, in object space
 * (file units = metres * scale_back, canonical axes). */
static void make_pose(float stride, float scale_back, joint_pose object[JOINTS])
{
    joint_pose local[JOINTS];
    memset(local, 0, sizeof local);
    for (int j = 0; j < JOINTS; ++j)
        local[j].rotation[3] = 1.0f;
    local[PELVIS].position[2] = 0.95f;
    for (int side = 0; side < 2; ++side) {
        const pose_ik_chain *leg = &legs[side];
        local[leg->hip].position[1] = side == 0 ? 0.1f : -0.1f;
        float swing = side == 0 ? stride : -stride;
        set_pitch(&local[leg->hip], -0.2f - swing);
        local[leg->knee].position[2] = -0.45f;
        set_pitch(&local[leg->knee], 0.4f);
        local[leg->ankle].position[2] = -0.42f;
        set_pitch(&local[leg->ankle], -0.2f + swing);
    }
    for (int j = 0; j < JOINTS; ++j)
        for (int k = 0; k < 3; ++k)
            local[j].position[k] *= scale_back;
    pose_to_object(parents, JOINTS, local, object);
}

typedef struct rig {
    skeleton skeleton;
    float shares[2];
    anim_foot_lock_input input;
    anim_foot_lock_state state;
} rig;

static void rig_init(rig *r)
{
    memset(r, 0, sizeof *r);
    r->skeleton.joint_count = JOINTS;
    r->skeleton.parents = parents;
    r->input = (anim_foot_lock_input){
        .skeleton = &r->skeleton, .legs = legs, .leg_count = 2, .planted_shares = r->shares, .scale = 1.0f,
        .axes = anim_axes_canonical(), .dt = 1.0f / 60.0f, .settings = anim_foot_lock_defaults()};
}

/* A joint of object space in the world, through the rig's placement (as anim_foot_lock.h defines it). */
static void to_world(const rig *r, const float file[3], float world[3])
{
    const anim_placement *p = &r->input.placement;
    float x = file[0] * r->input.scale, y = file[1] * r->input.scale, z = file[2] * r->input.scale;
    float c = cosf(p->heading), s = sinf(p->heading);
    world[0] = p->position[0] + c * x - s * y;
    world[1] = p->position[1] + z;
    world[2] = p->position[2] - s * x - c * y;
}

static float horizontal(const float a[3], const float b[3])
{
    return hypotf(a[0] - b[0], a[2] - b[2]);
}

/* Held: the body walks 20 cm and turns 10 degrees while the left foot is planted; the ankle stays put in the
 * world within 0.1 mm, its height as animated, and the knee keeps bending forward. The right foot, not
 * planted, is left as animated bit for bit. */
static void test_planted_foot_stays(void)
{
    rig r;
    rig_init(&r);
    r.shares[0] = 1.0f;
    joint_pose object[JOINTS], animated[JOINTS];
    make_pose(0.1f, 1.0f, object);
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    float planted[3];
    to_world(&r, object[ANKLE_L].position, planted);
    CHECK(r.state.feet[0].held && r.state.feet[0].weight == 1.0f && !r.state.feet[1].held);
    float worst = 0.0f, worst_height = 0.0f;
    bool knee_forward = true, right_untouched = true;
    for (int step = 1; step <= 30; ++step) {
        r.input.placement.position[0] = 0.2f * step / 30.0f;
        r.input.placement.heading = glm_rad(10.0f) * step / 30.0f;
        make_pose(0.1f, 1.0f, object);
        memcpy(animated, object, sizeof object);
        CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
        float shown[3];
        to_world(&r, object[ANKLE_L].position, shown);
        worst = fmaxf(worst, horizontal(shown, planted));
        worst_height = fmaxf(worst_height, fabsf(object[ANKLE_L].position[2] - animated[ANKLE_L].position[2]));
        /* the knee ahead of the line from hip to ankle, as animated */
        float hip_x = object[HIP_L].position[0], ankle_x = object[ANKLE_L].position[0];
        float t = (object[HIP_L].position[2] - object[KNEE_L].position[2]) /
                  (object[HIP_L].position[2] - object[ANKLE_L].position[2]);
        knee_forward &= object[KNEE_L].position[0] > hip_x + t * (ankle_x - hip_x);
        right_untouched &= memcmp(&object[HIP_R], &animated[HIP_R], 3 * sizeof object[0]) == 0;
    }
    printf("  held through 20 cm and 10 degrees: %.3f mm at worst, height within %.3f mm\n", worst * 1000.0f,
           worst_height * 1000.0f);
    CHECK(worst <= 1e-4f);
    CHECK(worst_height <= 1e-4f);
    CHECK(knee_forward && right_untouched);
}

/* Lifted: the correction fades out over release_seconds, never growing, never jumping more than the fade's
 * steepest step (smoothstep: 1.5 x correction x dt / release), then nothing is left. Planted again while
 * fading, the foot locks where it is shown. */
static void test_release_fades_and_relocks_where_shown(void)
{
    rig r;
    rig_init(&r);
    r.shares[0] = 1.0f;
    joint_pose object[JOINTS], animated[JOINTS];
    make_pose(0.1f, 1.0f, object);
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    /* the body moves 6 cm away while held */
    r.input.placement.position[0] = 0.06f;
    make_pose(0.1f, 1.0f, object);
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    make_pose(0.1f, 1.0f, animated);
    float full = 0.0f;
    {
        float a[3], b[3];
        to_world(&r, object[ANKLE_L].position, a);
        to_world(&r, animated[ANKLE_L].position, b);
        full = horizontal(a, b);
    }
    CHECK(fabsf(full - 0.06f) < 1e-4f);
    r.shares[0] = 0.2f; /* lifts */
    float last = full, largest_step = 0.0f;
    bool never_grew = true;
    int steps = 0;
    while (r.state.feet[0].weight > 0.0f && steps < 100) {
        make_pose(0.1f, 1.0f, object);
        CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
        float a[3], b[3];
        to_world(&r, object[ANKLE_L].position, a);
        to_world(&r, animated[ANKLE_L].position, b);
        float now = horizontal(a, b);
        never_grew &= now <= last + 1e-6f;
        largest_step = fmaxf(largest_step, last - now);
        last = now;
        ++steps;
    }
    float release = r.input.settings.release_seconds;
    printf("  released in %d steps, largest step %.2f mm of a %.1f mm correction\n", steps, largest_step * 1000.0f,
           full * 1000.0f);
    CHECK(steps == (int)ceilf(release * 60.0f - 1e-3f));
    CHECK(never_grew && last < 1e-6f);
    CHECK(largest_step <= 1.5f * full * r.input.dt / release + 1e-4f);

    /* Half-way through another fade, the foot plants again: it locks where it is shown, so nothing moves. */
    rig_init(&r);
    r.shares[0] = 1.0f;
    make_pose(0.1f, 1.0f, object);
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    r.input.placement.position[0] = 0.06f;
    r.shares[0] = 0.0f;
    for (int i = 0; i < 3; ++i) {
        make_pose(0.1f, 1.0f, object);
        CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    }
    float before[3], after[3];
    to_world(&r, object[ANKLE_L].position, before);
    CHECK(r.state.feet[0].weight > 0.0f && r.state.feet[0].weight < 1.0f);
    r.shares[0] = 1.0f;
    make_pose(0.1f, 1.0f, object);
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    to_world(&r, object[ANKLE_L].position, after);
    printf("  locked again mid-fade: moved %.3f mm\n", horizontal(before, after) * 1000.0f);
    CHECK(r.state.feet[0].held && horizontal(before, after) <= 1e-3f);
}

/* Reach: past reach a held foot lets go with the fade and waits for it to end before locking again; past
 * twice reach (a teleport) every lock goes at once. */
static void test_reach_and_teleport(void)
{
    rig r;
    rig_init(&r);
    r.shares[0] = r.shares[1] = 1.0f;
    joint_pose object[JOINTS];
    make_pose(0.1f, 1.0f, object);
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    float reach = r.input.settings.reach;
    int steps = 0;
    while (r.state.feet[0].held && steps < 1000) {
        r.input.placement.position[0] += 0.01f;
        make_pose(0.1f, 1.0f, object);
        CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
        ++steps;
    }
    CHECK(fabsf(0.01f * steps - reach) <= 0.011f);
    CHECK(r.state.feet[0].waiting && r.state.feet[0].weight > 0.0f && r.state.feet[0].weight < 1.0f);
    /* still planted, it does not lock again while fading */
    make_pose(0.1f, 1.0f, object);
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    CHECK(!r.state.feet[0].held);
    for (int i = 0; i < 60 && !r.state.feet[0].held; ++i) {
        make_pose(0.1f, 1.0f, object);
        CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    }
    CHECK(r.state.feet[0].held); /* the fade ended, the next step locked it where it stands */

    /* A teleport of 10 m: let go this very step, the pose as animated. */
    r.input.placement.position[2] += 10.0f;
    joint_pose animated[JOINTS];
    make_pose(0.1f, 1.0f, object);
    memcpy(animated, object, sizeof object);
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    CHECK(memcmp(object, animated, sizeof object) == 0);
    CHECK(r.state.feet[0].weight == 0.0f && r.state.feet[1].weight == 0.0f);
}

/* The height follows the ground: on a 20 degree slope rising forward, a foot locked and held while the body
 * moves back 10 cm is held at the same height above the surface where it planted as the animated ankle is
 * above the surface under it. */
static void test_height_follows_the_ground(void)
{
    rig r;
    rig_init(&r);
    ground slope = {.kind = GROUND_SLOPE, .slope_degrees = 20.0f, .uphill = {1.0f, 0.0f}};
    r.input.ground = &slope;
    r.shares[0] = 1.0f;
    joint_pose object[JOINTS];
    make_pose(0.1f, 1.0f, object);
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    float planted[3];
    to_world(&r, object[ANKLE_L].position, planted);
    r.input.placement.position[0] = -0.1f;
    make_pose(0.1f, 1.0f, object);
    float animated[3];
    to_world(&r, object[ANKLE_L].position, animated);
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    float shown[3];
    to_world(&r, object[ANKLE_L].position, shown);
    float above_shown = shown[1] - ground_at(&slope, shown[0], shown[2]).height;
    float above_animated = animated[1] - ground_at(&slope, animated[0], animated[2]).height;
    CHECK(horizontal(shown, planted) <= 1e-4f);
    CHECK(fabsf(above_shown - above_animated) <= 1e-4f);
}

/* The import: a body in centimetres with up +Y in its file holds its foot in the world as well. */
static void test_import(void)
{
    rig r;
    rig_init(&r);
    r.input.scale = 0.01f;
    CHECK(anim_axes_make(1, 1, 0, 1, &r.input.axes)); /* up +Y, forward +X */
    r.shares[0] = 1.0f;
    joint_pose object[JOINTS];
    /* The canonical pose turned into the file's axes and units. */
    joint_pose canonical[JOINTS];
    make_pose(0.1f, 100.0f, canonical);
    for (int j = 0; j < JOINTS; ++j) {
        object[j] = canonical[j];
        anim_axes_from_canonical(&r.input.axes, canonical[j].position, object[j].position);
        anim_axes_from_canonical(&r.input.axes, canonical[j].rotation, object[j].rotation);
    }
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    float planted_canonical[3];
    anim_axes_to_canonical(&r.input.axes, object[ANKLE_L].position, planted_canonical);
    float planted[3];
    to_world(&r, planted_canonical, planted);
    r.input.placement.position[0] = 0.05f;
    for (int j = 0; j < JOINTS; ++j) {
        object[j] = canonical[j];
        anim_axes_from_canonical(&r.input.axes, canonical[j].position, object[j].position);
        anim_axes_from_canonical(&r.input.axes, canonical[j].rotation, object[j].rotation);
    }
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    float shown_canonical[3], shown[3];
    anim_axes_to_canonical(&r.input.axes, object[ANKLE_L].position, shown_canonical);
    to_world(&r, shown_canonical, shown);
    printf("  imported body (cm, up +Y): held within %.3f mm\n", horizontal(shown, planted) * 1000.0f);
    CHECK(horizontal(shown, planted) <= 1e-4f);
}

/* The import with foot IK: on a slope rising to the side, turned 30 degrees, the body in centimetres with
 * up +Y is placed (pelvis lowered, foot tilted to the slope) exactly as the same body in metres and
 * canonical axes: every joint at the same place in the world and turned the same, step after step. */
static void test_import_with_foot_ik(void)
{
    ground slope = {.kind = GROUND_SLOPE, .slope_degrees = 20.0f, .uphill = {0.6f, 0.8f}};
    rig plain, imported;
    rig_init(&plain);
    rig_init(&imported);
    imported.input.scale = 0.01f;
    CHECK(anim_axes_make(1, 1, 0, 1, &imported.input.axes)); /* up +Y, forward +X */
    rig *rigs[2] = {&plain, &imported};
    for (int k = 0; k < 2; ++k) {
        rigs[k]->input.ground = &slope;
        rigs[k]->input.settings.ik = true;
        rigs[k]->input.planted_soon = rigs[k]->shares;
        rigs[k]->input.placement.heading = 0.5235988f;
        rigs[k]->shares[0] = 1.0f;
    }
    double worst_position = 0.0, worst_turn = 0.0, pelvis_drop = 0.0;
    for (int step = 0; step < 20; ++step) {
        joint_pose object[2][JOINTS], canonical[JOINTS];
        make_pose(0.1f, 1.0f, object[0]);
        make_pose(0.1f, 100.0f, canonical);
        for (int j = 0; j < JOINTS; ++j) {
            object[1][j] = canonical[j];
            anim_axes_from_canonical(&imported.input.axes, canonical[j].position, object[1][j].position);
            anim_axes_from_canonical(&imported.input.axes, canonical[j].rotation, object[1][j].rotation);
        }
        for (int k = 0; k < 2; ++k) {
            rigs[k]->input.placement.position[0] = 0.01f * (float)step;
            CHECK(anim_foot_lock_apply(&rigs[k]->input, &rigs[k]->state, object[k]));
        }
        for (int j = 0; j < JOINTS; ++j) {
            float back[3], a[3], b[3], rotation[4];
            anim_axes_to_canonical(&imported.input.axes, object[1][j].position, back);
            to_world(&plain, object[0][j].position, a);
            to_world(&imported, back, b);
            worst_position = fmax(worst_position, sqrt((double)(a[0] - b[0]) * (a[0] - b[0]) +
                                                       (double)(a[1] - b[1]) * (a[1] - b[1]) +
                                                       (double)(a[2] - b[2]) * (a[2] - b[2])));
            anim_axes_to_canonical(&imported.input.axes, object[1][j].rotation, rotation);
            rotation[3] = object[1][j].rotation[3];
            /* The stage leaves the rotations it turns unnormalized (to rounding): compare directions. */
            double dot = 0.0, length_a = 0.0, length_b = 0.0;
            for (int c = 0; c < 4; ++c) {
                dot += (double)rotation[c] * object[0][j].rotation[c];
                length_a += (double)rotation[c] * rotation[c];
                length_b += (double)object[0][j].rotation[c] * object[0][j].rotation[c];
            }
            worst_turn = fmax(worst_turn, 2.0 * acos(fmin(1.0, fabs(dot) / sqrt(length_a * length_b))));
        }
        pelvis_drop = fmax(pelvis_drop, plain.state.pelvis_drop);
    }
    printf("  imported body with foot IK on a side slope: %.2g m, %.2g rad from the canonical one; pelvis down %.1f mm\n",
           worst_position, worst_turn, pelvis_drop * 1000.0);
    CHECK(pelvis_drop > 0.001 && imported.state.pelvis_drop > 0.001f);
    CHECK(worst_position <= 1e-5 && worst_turn <= 1e-4);
}

/* Flat ground (ground_at's plane, answered inline) and a slope of 0 degrees (answered by the slope's own
 * code): no ground, a flat one and the level slope lock and place the feet the same, bit for bit. */
static void test_flat_ground_shortcut(void)
{
    ground flat = {.kind = GROUND_FLAT}, level_slope = {.kind = GROUND_SLOPE, .slope_degrees = 0.0f, .uphill = {1.0f, 0.0f}};
    const ground *grounds[3] = {NULL, &flat, &level_slope};
    rig rigs[3];
    for (int k = 0; k < 3; ++k) {
        rig_init(&rigs[k]);
        rigs[k].input.ground = grounds[k];
        rigs[k].input.settings.ik = true;
        rigs[k].input.planted_soon = rigs[k].shares;
        rigs[k].input.placement.heading = -0.4f;
        rigs[k].input.placement.position[1] = 0.02f; /* standing a little above the plane: placing moves feet */
    }
    int differences = 0, moved = 0;
    for (int step = 0; step < 40; ++step) {
        joint_pose object[3][JOINTS], animated[JOINTS];
        make_pose(0.1f + 0.002f * (float)step, 1.0f, animated);
        for (int k = 0; k < 3; ++k) {
            memcpy(object[k], animated, sizeof animated);
            rigs[k].shares[0] = step % 16 < 10 ? 1.0f : 0.0f;
            rigs[k].shares[1] = step % 16 >= 6 ? 1.0f : 0.0f;
            rigs[k].input.placement.position[0] = 0.012f * (float)step;
            CHECK(anim_foot_lock_apply(&rigs[k].input, &rigs[k].state, object[k]));
        }
        for (int k = 1; k < 3; ++k)
            differences += memcmp(object[k], object[0], sizeof animated) != 0 ||
                           memcmp(&rigs[k].state, &rigs[0].state, sizeof rigs[0].state) != 0;
        moved += memcmp(object[0], animated, sizeof animated) != 0;
    }
    CHECK(differences == 0);
    CHECK(moved >= 30);
}

/* Legs made ready once (pose_ik_leg_prepare, as a character's are) bend the legs as the general solve does,
 * bit for bit, and legs made for another skeleton (one with a toe the pose does not have) are not used. */
static void test_prepared_legs(void)
{
    ground slope = {.kind = GROUND_SLOPE, .slope_degrees = 20.0f, .uphill = {0.6f, 0.8f}};
    pose_ik_leg prepared[2], other[2];
    int longer_parents[JOINTS + 1] = {-1, 0, 1, 2, 0, 4, 5, ANKLE_L};
    for (int f = 0; f < 2; ++f) {
        CHECK(pose_ik_leg_prepare(parents, JOINTS, &legs[f], &prepared[f]));
        CHECK(pose_ik_leg_prepare(longer_parents, JOINTS + 1, &legs[f], &other[f]));
    }
    rig rigs[3];
    for (int k = 0; k < 3; ++k) {
        rig_init(&rigs[k]);
        rigs[k].input.ground = &slope;
        rigs[k].input.settings.ik = true;
        rigs[k].input.planted_soon = rigs[k].shares;
        rigs[k].input.placement.heading = 0.3f;
        rigs[k].shares[0] = 1.0f;
    }
    rigs[1].input.prepared = prepared;
    rigs[2].input.prepared = other;
    int differences = 0, bent = 0;
    for (int step = 0; step < 30; ++step) {
        joint_pose object[3][JOINTS + 1], animated[JOINTS]; /* + 1: a joint past the pose, to stay as it is */
        make_pose(0.1f, 1.0f, animated);
        for (int k = 0; k < 3; ++k) {
            memcpy(object[k], animated, sizeof animated);
            memset(&object[k][JOINTS], 0x5a, sizeof object[k][JOINTS]);
            rigs[k].shares[1] = step % 10 < 5 ? 1.0f : 0.0f;
            rigs[k].input.placement.position[0] = 0.01f * (float)step;
            CHECK(anim_foot_lock_apply(&rigs[k].input, &rigs[k].state, object[k]));
        }
        for (int k = 1; k < 3; ++k)
            differences += memcmp(object[k], object[0], sizeof object[0]) != 0 ||
                           memcmp(&rigs[k].state, &rigs[0].state, sizeof rigs[0].state) != 0;
        bent += memcmp(object[0], animated, sizeof animated) != 0;
    }
    CHECK(differences == 0);
    CHECK(bent >= 25);
}

/* Off, nothing changes and every lock goes; misuse changes nothing; nothing allocates. */
static void test_off_misuse_and_no_allocation(void)
{
    rig r;
    rig_init(&r);
    r.shares[0] = 1.0f;
    joint_pose object[JOINTS], before[JOINTS];
    make_pose(0.1f, 1.0f, object);
    long heap_before = heap_calls;
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    CHECK(heap_calls == heap_before);
    CHECK(r.state.feet[0].held);
    r.input.placement.position[0] = 0.05f;
    r.input.settings.enabled = false;
    make_pose(0.1f, 1.0f, object);
    memcpy(before, object, sizeof object);
    CHECK(anim_foot_lock_apply(&r.input, &r.state, object));
    CHECK(memcmp(object, before, sizeof object) == 0);
    anim_foot_lock_state zero = {0};
    CHECK(memcmp(&r.state, &zero, sizeof zero) == 0);

    r.input.settings.enabled = true;
    anim_foot_lock_state state_before = r.state;
    anim_foot_lock_input bad = r.input;
    bad.dt = -1.0f;
    CHECK(!anim_foot_lock_apply(&bad, &r.state, object));
    bad = r.input;
    bad.placement.position[1] = NAN;
    CHECK(!anim_foot_lock_apply(&bad, &r.state, object));
    bad = r.input;
    bad.leg_count = 3;
    CHECK(!anim_foot_lock_apply(&bad, &r.state, object));
    bad = r.input;
    bad.skeleton = NULL;
    CHECK(!anim_foot_lock_apply(&bad, &r.state, object));
    CHECK(!anim_foot_lock_apply(&r.input, NULL, object));
    CHECK(!anim_foot_lock_apply(&r.input, &r.state, NULL));
    CHECK(memcmp(object, before, sizeof object) == 0);
    CHECK(memcmp(&r.state, &state_before, sizeof state_before) == 0);
}

/* The shares on the shipped mannequin: standing (the idle clip), both feet wholly planted; walking (the
 * locomotion blend at the walk's point, its clips in phase), each foot planted exactly when the walk clip
 * plants it at the blend's phase. */
static void test_planted_shares_of_the_shipped_clips(void)
{
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(MARIONETTE_SOURCE_DIR "/config/characters.ini", cache, &errors);
    CHECK(config != NULL);
    const anim_character *character = config ? anim_config_find_character(config, "mannequin") : NULL;
    animator *a = character ? animator_create(character) : NULL;
    CHECK(a != NULL && character->leg_count == 2 && character->foot_lock.enabled);
    if (!a) {
        anim_config_free(config);
        cache_destroy(cache);
        diag_list_free(&errors);
        return;
    }
    float shares[2];
    for (int i = 0; i < 30; ++i)
        CHECK(animator_update(a, 1.0 / 60.0, NULL));
    anim_foot_lock_planted_shares(animator_controller(a), 2, shares);
    CHECK(shares[0] == 1.0f && shares[1] == 1.0f);
    CHECK(animator_set_number(a, "speed", 1.4f));
    for (int i = 0; i < 120; ++i)
        CHECK(animator_update(a, 1.0 / 60.0, NULL));
    int walk = anim_config_find_clip(character, "walk");
    CHECK(walk >= 0);
    int planted_steps[2] = {0, 0}, mismatches = 0, both_lifted = 0;
    for (int i = 0; i < 120 && walk >= 0; ++i) {
        CHECK(animator_update(a, 1.0 / 60.0, NULL));
        const anim_controller *controller = animator_controller(a);
        anim_foot_lock_planted_shares(controller, 2, shares);
        anim_layer_info layer;
        int top = anim_controller_layer_count(controller, ANIMATOR_BODY_CHANNEL) - 1;
        CHECK(anim_controller_layer(controller, ANIMATOR_BODY_CHANNEL, top, &layer) && layer.weight == 1.0f);
        const anim_clip *entry = &character->clips[walk];
        double time = (layer.cycles - floor(layer.cycles)) * entry->clip->loop_duration;
        for (int f = 0; f < 2; ++f) {
            bool planted = anim_feet_planted_at(entry, entry->planted, f, time);
            mismatches += planted != (shares[f] >= 0.999f);
            planted_steps[f] += planted;
        }
        both_lifted += shares[0] < 0.5f && shares[1] < 0.5f;
    }
    printf("  walking: feet planted %d and %d of 120 steps, %d mismatches, %d steps with both lifted\n",
           planted_steps[0], planted_steps[1], mismatches, both_lifted);
    CHECK(mismatches == 0 && planted_steps[0] > 20 && planted_steps[1] > 20);

    /* Standing again, the feet lock; a reload onto the same legs keeps the locks (nothing moves). */
    CHECK(animator_set_number(a, "speed", 0.0f));
    for (int i = 0; i < 60; ++i) {
        CHECK(animator_update(a, 1.0 / 60.0, NULL));
        CHECK(animator_lock_feet(a, &(anim_placement){.position = {0.0f, 0.0f, 0.0f}}, NULL, 1.0f / 60.0f));
    }
    anim_foot_lock_state before = *animator_foot_lock(a);
    CHECK(before.feet[0].held && before.feet[1].held);
    CHECK(animator_rebind(a, character, NULL));
    CHECK(memcmp(animator_foot_lock(a), &before, sizeof before) == 0);
    animator_destroy(a);
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
}

int main(void)
{
    RUN(test_planted_shares_of_the_shipped_clips);
    RUN(test_planted_foot_stays);
    RUN(test_release_fades_and_relocks_where_shown);
    RUN(test_reach_and_teleport);
    RUN(test_height_follows_the_ground);
    RUN(test_import);
    RUN(test_import_with_foot_ik);
    RUN(test_prepared_legs);
    RUN(test_flat_ground_shortcut);
    RUN(test_off_misuse_and_no_allocation);
    return check_report();
}
