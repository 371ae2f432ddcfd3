/* anim_foot_lock: see anim_foot_lock.h. */
#include "anim_foot_lock.h"

#include <math.h>
#include <string.h>

#include "animator.h"

/* ---- which feet the body plants ---- */

void anim_foot_lock_planted_shares(const anim_controller *controller, int foot_count, float *shares)
{
    anim_foot_lock_planted_shares_ahead(controller, foot_count, 0.0f, shares, NULL);
}

/* The feet a clip of a blend plants at a phase of the blend (bit f: foot f). A clip keeping its own time
 * counts only for the feet it plants at every frame, as the controller does not say where that time is. */
static unsigned blend_clip_plants(const anim_clip *entry, bool in_phase, double phase, int foot_count)
{
    if (!in_phase)
        return entry->planted_always;
    double time = phase * (entry->loop ? entry->clip->loop_duration : entry->clip->once_duration);
    return anim_feet_planted_mask_at(entry, entry->planted, foot_count, time);
}

/* Add weight to the share of each foot in mask. */
static void add_shares(float *shares, int foot_count, unsigned mask, float weight)
{
    for (int f = 0; f < foot_count; ++f)
        if ((mask >> f) & 1u)
            shares[f] += weight;
}

void anim_foot_lock_planted_shares_ahead(const anim_controller *controller, int foot_count, float seconds,
                                         float *shares, float *ahead)
{
    for (int f = 0; f < foot_count; ++f) {
        shares[f] = 0.0f;
        if (ahead)
            ahead[f] = 0.0f;
    }
    int layers = anim_controller_layer_count(controller, ANIMATOR_BODY_CHANNEL);
    for (int k = 0; k < layers; ++k) {
        anim_layer_info layer;
        float weights[ANIM_BLEND_MAX_CLIPS];
        int count = anim_controller_layer_weighted(controller, ANIMATOR_BODY_CHANNEL, k, &layer, weights);
        if (count < 0 || !(layer.weight > 0.0f))
            continue;
        double later = (double)seconds * (layer.speed > 0.0f ? layer.speed : 0.0f);
        if (!layer.blend) {
            if (layer.clip) {
                add_shares(shares, foot_count, anim_feet_planted_mask_at(layer.clip, layer.clip->planted, foot_count, layer.time),
                           layer.weight);
                if (ahead)
                    add_shares(ahead, foot_count,
                               anim_feet_planted_mask_at(layer.clip, layer.clip->planted, foot_count, layer.time + later),
                               layer.weight);
            }
            continue;
        }
        /* The clips in phase set the pace: while they carry weight, the others (an idle keeping its own
         * time) stand still under a body that moves, and do not count. Looking ahead, the phase moves on at
         * the weighted mean of their cycles' lengths. */
        unsigned in_phase = anim_blend_clips_in_phase(layer.blend);
        float paced = 0.0f;
        double cycle = 0.0;
        for (int i = 0; i < count; ++i)
            if (((in_phase >> i) & 1u) && weights[i] > 0.0f) {
                const anim_clip *entry = layer.blend->clips[i];
                paced += weights[i];
                cycle += weights[i] * (entry->loop ? entry->clip->loop_duration : entry->clip->once_duration);
            }
        double phase = layer.cycles - floor(layer.cycles);
        double phase_later = layer.cycles + (paced > 0.0f && cycle > 0.0 ? later * paced / cycle : 0.0);
        phase_later -= floor(phase_later);
        for (int i = 0; i < count; ++i) {
            bool clip_in_phase = (in_phase >> i) & 1u;
            if (!(weights[i] > 0.0f) || (paced > 0.0f && !clip_in_phase))
                continue;
            const anim_clip *entry = layer.blend->clips[i];
            float share = layer.weight * weights[i] / (paced > 0.0f ? paced : 1.0f);
            add_shares(shares, foot_count, blend_clip_plants(entry, clip_in_phase, phase, foot_count), share);
            if (ahead)
                add_shares(ahead, foot_count, blend_clip_plants(entry, clip_in_phase, phase_later, foot_count),
                           share);
        }
    }
}

/* ---- between the entity's file space, its canonical frame and the world ---- */

/* The entity's frame this step, worked out once per call: turn[r][i] is how much of file axis i goes into
 * world axis r (the axes' signed permutation into canonical, canonical (x forward, y left, z up) into GL's
 * (x, z, -y), then the heading's turn about Y), a rotation, so world = position + scale * turn * file and
 * file = turn^T (world - position) / scale: a few multiplications per point instead of the axes' lookups,
 * which cost more than the rest of a conversion (the foot lock converts five points a step). */
typedef struct entity_frame {
    float turn[3][3];
    float position[3];
    float scale;
} entity_frame;

static entity_frame frame_of(const anim_foot_lock_input *input)
{
    float c = cosf(input->placement.heading), s = sinf(input->placement.heading);
    const float canonical_to_world[3][3] = {{c, -s, 0.0f}, {0.0f, 0.0f, 1.0f}, {-s, -c, 0.0f}};
    entity_frame frame = {.scale = input->scale > 0.0f ? input->scale : 1.0f};
    for (int i = 0; i < 3; ++i) {
        bool same = input->axes.sign[0] == 0; /* no change of axes at all */
        int file_axis = same ? i : input->axes.from[i];
        float sign = same || input->axes.sign[i] > 0 ? 1.0f : -1.0f;
        for (int r = 0; r < 3; ++r)
            frame.turn[r][file_axis] = sign * canonical_to_world[r][i];
        frame.position[i] = input->placement.position[i];
    }
    return frame;
}

/* Written out, not as loops over the axes: GCC -O2 kept the loops, and five points a step go through these. */
void anim_placement_world(const anim_placement *placement, const anim_axes *axes, float scale, mat4 out)
{
    anim_foot_lock_input input = {.placement = *placement, .axes = *axes, .scale = scale};
    entity_frame frame = frame_of(&input);
    for (int c = 0; c < 3; ++c) {
        for (int r = 0; r < 3; ++r)
            out[c][r] = frame.turn[r][c] * frame.scale;
        out[c][3] = 0.0f;
        out[3][c] = frame.position[c];
    }
    out[3][3] = 1.0f;
}

static inline void file_to_world(const entity_frame *frame, const float file[3], float world[3])
{
    const float(*t)[3] = frame->turn;
    float x = file[0] * frame->scale, y = file[1] * frame->scale, z = file[2] * frame->scale;
    float wx = frame->position[0] + (t[0][0] * x + t[0][1] * y + t[0][2] * z);
    float wy = frame->position[1] + (t[1][0] * x + t[1][1] * y + t[1][2] * z);
    float wz = frame->position[2] + (t[2][0] * x + t[2][1] * y + t[2][2] * z);
    world[0] = wx;
    world[1] = wy;
    world[2] = wz;
}

/* A world direction in file axes (no translation, no scale). */
static inline void direction_to_file(const entity_frame *frame, const float world[3], float file[3])
{
    const float(*t)[3] = frame->turn;
    float fx = t[0][0] * world[0] + t[1][0] * world[1] + t[2][0] * world[2];
    float fy = t[0][1] * world[0] + t[1][1] * world[1] + t[2][1] * world[2];
    float fz = t[0][2] * world[0] + t[1][2] * world[1] + t[2][2] * world[2];
    file[0] = fx;
    file[1] = fy;
    file[2] = fz;
}

static void world_to_file(const entity_frame *frame, const float world[3], float file[3])
{
    float relative[3] = {world[0] - frame->position[0], world[1] - frame->position[1], world[2] - frame->position[2]};
    direction_to_file(frame, relative, file);
    for (int i = 0; i < 3; ++i)
        file[i] /= frame->scale;
}

/* The length of (x, z). Not hypotf: its care for overflow costs a libm call per foot and step, and these are
 * differences of finite positions in metres (a square that overflows reads as infinitely far, which is
 * what any test against a reach makes of it anyway). */
static float horizontal_length(float x, float z)
{
    return sqrtf(x * x + z * z);
}

/* Metres of correction below which the leg is left as animated. */
#define ANIM_FOOT_LOCK_NEGLIGIBLE 5e-5f

/* The larger and the smaller of two finite numbers, inline: fmaxf and fminf are libm calls (they must
 * handle NaN), ten a step here, and nothing compared below is NaN (the inputs are checked finite). */
static inline float larger(float a, float b)
{
    return a > b ? a : b;
}

static inline float smaller(float a, float b)
{
    return a < b ? a : b;
}

static float smoothstep(float t)
{
    return t * t * (3.0f - 2.0f * t);
}

/* ---- the stage ---- */

static bool input_valid(const anim_foot_lock_input *input)
{
    if (!input->skeleton || (input->leg_count > 0 && (!input->legs || !input->planted_shares)) ||
        input->leg_count < 0 || input->leg_count > ANIM_FEET_MAX || !(input->dt >= 0.0f) || !isfinite(input->dt) ||
        !isfinite(input->placement.heading))
        return false;
    for (int k = 0; k < 3; ++k)
        if (!isfinite(input->placement.position[k]))
            return false;
    return true;
}

/* Move one foot's lock on by a step: lock, hold, let go, fade. animated is the ankle's world position as the
 * animation has it. */
static void foot_step(const anim_foot_lock_input *input, float share, const float animated[3],
                      anim_foot_lock_foot *foot)
{
    bool planted = share >= ANIM_FOOT_LOCK_PLANTED_SHARE;
    if (foot->held && !planted)
        foot->held = 0;
    if (!foot->held && planted && !foot->waiting) {
        /* Where the foot is shown now (the fading lock's pull included), so that locking moves nothing. */
        float pull = smoothstep(foot->weight);
        for (int k = 0; k < 2; ++k) {
            float from = animated[2 * k];
            foot->at[k] = from + pull * (foot->at[k] - from);
        }
        foot->weight = 1.0f;
        foot->held = 1;
    }
    if (foot->weight > 0.0f) {
        /* The correction shown: all of it while held, less while fading. */
        float reach = input->settings.reach;
        float shown = smoothstep(foot->weight) * horizontal_length(foot->at[0] - animated[0], foot->at[1] - animated[2]);
        if (shown > 2.0f * reach) {
            *foot = (anim_foot_lock_foot){0}; /* a teleport: no fade across it */
            return;
        }
        if (shown > reach && foot->held) {
            foot->held = 0;
            foot->waiting = 1;
        }
    }
    if (!foot->held && foot->weight > 0.0f) {
        foot->weight -= input->dt / input->settings.release_seconds;
        if (!(foot->weight > 0.0f)) {
            foot->weight = 0.0f;
            foot->waiting = 0;
        }
    }
}

int anim_foot_lock_pelvis(const skeleton *skeleton, const pose_ik_chain *legs, int leg_count)
{
    if (!skeleton || !legs || leg_count <= 0 || leg_count > ANIM_FEET_MAX)
        return -1;
    for (int f = 0; f < leg_count; ++f)
        if (legs[f].hip < 0 || legs[f].hip >= skeleton->joint_count)
            return -1;
    if (leg_count == 1)
        return skeleton->parents[legs[0].hip] >= 0 ? skeleton->parents[legs[0].hip] : legs[0].hip;
    /* The deepest common ancestor of the hips: walk the deeper (higher index, as parents come first) up. */
    int a = legs[0].hip, b = legs[1].hip;
    while (a != b && a >= 0 && b >= 0) {
        if (a > b)
            a = skeleton->parents[a];
        else
            b = skeleton->parents[b];
    }
    return a == b ? a : -1;
}

/* Whether joint descends from (or is) ancestor; parents come before their children. */
static bool in_branch(const int *parents, int joint, int ancestor)
{
    while (joint > ancestor)
        joint = parents[joint];
    return joint == ancestor;
}

/* Leg length in metres, from the pose's hip, knee and ankle. */
static float leg_length(const joint_pose *object, const pose_ik_chain *leg, float scale)
{
    const float *hip = object[leg->hip].position, *knee = object[leg->knee].position;
    const float *ankle = object[leg->ankle].position;
    float ax = knee[0] - hip[0], ay = knee[1] - hip[1], az = knee[2] - hip[2];
    float bx = ankle[0] - knee[0], by = ankle[1] - knee[1], bz = ankle[2] - knee[2];
    return (sqrtf(ax * ax + ay * ay + az * az) + sqrtf(bx * bx + by * by + bz * bz)) * scale;
}

/* rotation turned by strength of the shortest arc from up to normal (both file axes), in place. */
static void tilt_rotation(const float up[3], const float normal[3], float strength, float rotation[4])
{
    float cross[3] = {up[1] * normal[2] - up[2] * normal[1], up[2] * normal[0] - up[0] * normal[2],
                      up[0] * normal[1] - up[1] * normal[0]};
    float dot = up[0] * normal[0] + up[1] * normal[1] + up[2] * normal[2];
    /* (cross, 1 + dot) normalized is the arc (a unit quaternion, half its angle); from none, (0, 0, 0, 2)
     * of about the same length, it is taken by strength and normalized (nlerp): continuous, and the whole
     * arc at 1. */
    float q[4] = {strength * cross[0], strength * cross[1], strength * cross[2],
                  (1.0f - strength) * 2.0f + strength * (1.0f + dot)};
    float length = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(length > 0.0f))
        return;
    for (int k = 0; k < 4; ++k)
        q[k] /= length;
    const float *r = rotation;
    float out[4] = {q[3] * r[0] + q[0] * r[3] + q[1] * r[2] - q[2] * r[1],
                    q[3] * r[1] - q[0] * r[2] + q[1] * r[3] + q[2] * r[0],
                    q[3] * r[2] + q[0] * r[1] - q[1] * r[0] + q[2] * r[3],
                    q[3] * r[3] - q[0] * r[0] - q[1] * r[1] - q[2] * r[2]};
    memcpy(rotation, out, sizeof out);
}

/* One foot's plan for this step, in the world. */
typedef struct foot_plan {
    float animated[3]; /* the ankle as animated, before the pelvis drops */
    float target[3];   /* where the lock puts it (the pelvis's drop not counted) */
    float placed_y;    /* the height the placement puts it at */
    float placed;      /* smoothstep of the placement's strength */
    float lock;        /* smoothstep of the lock's weight */
    float normal[3];   /* the ground's under the target */
} foot_plan;

bool anim_foot_lock_apply(const anim_foot_lock_input *input, anim_foot_lock_state *state, joint_pose *object)
{
    if (!input || !state || !object || !input_valid(input))
        return false;
    const anim_foot_lock_settings *settings = &input->settings;
    bool lock_on = settings->enabled && settings->release_seconds > 0.0f && settings->reach > 0.0f;
    if (!lock_on)
        for (int f = 0; f < ANIM_FEET_MAX; ++f) {
            float ik = state->feet[f].ik;
            state->feet[f] = (anim_foot_lock_foot){.ik = ik};
        }
    bool placing = settings->ik || state->pelvis_drop > 0.0f;
    for (int f = 0; f < ANIM_FEET_MAX; ++f)
        placing |= state->feet[f].ik > 0.0f;
    if (!lock_on && !placing)
        return true;
    const skeleton *s = input->skeleton;
    entity_frame frame = frame_of(input);
    float scale = input->scale > 0.0f ? input->scale : 1.0f;
    foot_plan plans[ANIM_FEET_MAX];
    bool valid[ANIM_FEET_MAX] = {false};
    for (int f = 0; f < input->leg_count; ++f) {
        const pose_ik_chain *leg = &input->legs[f];
        if (leg->ankle < 0 || leg->ankle >= s->joint_count)
            continue;
        valid[f] = true;
        anim_foot_lock_foot *foot = &state->feet[f];
        foot_plan *plan = &plans[f];
        file_to_world(&frame, object[leg->ankle].position, plan->animated);
        if (lock_on)
            foot_step(input, input->planted_shares[f], plan->animated, foot);
        bool planted = input->planted_shares[f] >= ANIM_FOOT_LOCK_PLANTED_SHARE ||
                       (input->planted_soon && input->planted_soon[f] >= ANIM_FOOT_LOCK_PLANTED_SHARE);
        float step = input->dt / ANIM_FOOT_IK_FADE_SECONDS;
        foot->ik = settings->ik && planted ? smaller(1.0f, foot->ik + step) : larger(0.0f, foot->ik - step);
        plan->lock = foot->weight > 0.0f ? smoothstep(foot->weight) : 0.0f;
        plan->placed = smoothstep(foot->ik);
        const float *a = plan->animated;
        /* Held at the lock point, as high above the ground there as the animated ankle is above the ground
         * under it. */
        plan->target[0] = a[0] + plan->lock * (foot->at[0] - a[0]);
        plan->target[2] = a[2] + plan->lock * (foot->at[1] - a[2]);
        plan->target[1] = a[1];
        if (plan->lock > 0.0f) {
            ground_sample under_lock = ground_at(input->ground, foot->at[0], foot->at[1]);
            ground_sample under_ankle = ground_at(input->ground, a[0], a[2]);
            plan->target[1] += plan->lock * (under_lock.height - under_ankle.height);
        }
        plan->normal[0] = 0.0f, plan->normal[1] = 1.0f, plan->normal[2] = 0.0f;
        if (plan->placed > 0.0f) {
            /* On the ground under the foot, as far from it along its normal as the animation has it above
             * flat ground. */
            ground_sample under = ground_at(input->ground, plan->target[0], plan->target[2]);
            memcpy(plan->normal, under.normal, sizeof plan->normal);
            /* Flat: a division by 1 skipped (the same bits). */
            float above = a[1] - input->placement.position[1];
            plan->placed_y = under.height + (under.normal[1] == 1.0f ? above : above / under.normal[1]);
        }
    }

    /* The pelvis: toward the drop the feet being placed need, at most ANIM_FOOT_IK_PELVIS_SPEED, and at
     * once at least as low as a foot needs to reach its target now. */
    int pelvis = input->pelvis_known ? input->pelvis : anim_foot_lock_pelvis(s, input->legs, input->leg_count);
    float drop = 0.0f;
    if (pelvis >= 0 && placing) {
        float wanted = 0.0f, needed = 0.0f;
        for (int f = 0; f < input->leg_count; ++f) {
            const foot_plan *plan = &plans[f];
            if (!valid[f] || !(plan->placed > 0.0f))
                continue;
            const pose_ik_chain *leg = &input->legs[f];
            float hip[3];
            file_to_world(&frame, object[leg->hip].position, hip);
            float reach = ANIM_FOOT_IK_STRETCH * leg_length(object, leg, scale);
            float across = horizontal_length(hip[0] - plan->target[0], hip[2] - plan->target[2]);
            /* As far below the animation as the placement puts it, or further where the leg would not
             * reach: what the foot needs once placed fully. */
            wanted = larger(wanted, plan->target[1] - plan->placed_y);
            if (across < reach) {
                float upright = sqrtf(reach * reach - across * across);
                wanted = larger(wanted, hip[1] - plan->placed_y - upright);
                /* A foot placed fully (planted) must reach at once; a foot fading in or out may fall short
                 * for a moment (its leg straight toward the target) while the pelvis catches up. */
                if (plan->placed >= 1.0f)
                    needed = larger(needed, hip[1] - plan->placed_y - upright);
            }
        }
        float most = ANIM_FOOT_IK_PELVIS_SPEED * input->dt;
        drop = smaller(larger(wanted, state->pelvis_drop - most), state->pelvis_drop + most);
        drop = larger(drop, needed);
        drop = drop < ANIM_FOOT_LOCK_NEGLIGIBLE ? 0.0f : drop;
    }
    state->pelvis_drop = drop;
    if (drop > 0.0f) {
        float down_world[3] = {0.0f, -drop / scale, 0.0f}, down[3];
        direction_to_file(&frame, down_world, down);
        for (int j = pelvis; j < s->joint_count; ++j)
            if (in_branch(s->parents, j, pelvis))
                for (int k = 0; k < 3; ++k)
                    object[j].position[k] += down[k];
    }

    static const float up_world[3] = {0.0f, 1.0f, 0.0f};
    float up[3];
    direction_to_file(&frame, up_world, up);
    for (int f = 0; f < input->leg_count; ++f) {
        if (!valid[f])
            continue;
        const pose_ik_chain *leg = &input->legs[f];
        foot_plan *plan = &plans[f];
        /* The foot now, the pelvis's drop included when it hangs from it; the lock's target drops with it,
         * the placement's does not. */
        float lowered = pelvis >= 0 && in_branch(s->parents, leg->ankle, pelvis) ? drop : 0.0f;
        float shown_y = plan->animated[1] - lowered;
        plan->target[1] -= lowered;
        if (plan->placed > 0.0f)
            plan->target[1] += plan->placed * (plan->placed_y - plan->target[1]);
        float dx = plan->target[0] - plan->animated[0], dy = plan->target[1] - shown_y,
              dz = plan->target[2] - plan->animated[2];
        bool tilted = plan->placed > 0.0f && plan->normal[1] < 1.0f;
        const pose_ik_leg *prepared = input->prepared ? &input->prepared[f] : NULL;
        bool ready = prepared && prepared->moved_count > 0 && prepared->joint_count == s->joint_count;
        /* A correction under a twentieth of a millimetre is not worth a solve: a standing crowd's feet are
         * held exactly where the animation has them. A foot on an IK target always is: its leg is bent to
         * meet it, which the clips' blend does not keep. */
        bool detached = ready ? prepared->detached : pose_ik_ankle_detached(s->parents, s->joint_count, leg);
        if (!tilted && !detached && dx * dx + dy * dy + dz * dz < ANIM_FOOT_LOCK_NEGLIGIBLE * ANIM_FOOT_LOCK_NEGLIGIBLE)
            continue;
        float target[3];
        world_to_file(&frame, plan->target, target);
        float rotation[4];
        memcpy(rotation, object[leg->ankle].rotation, sizeof rotation);
        if (tilted) {
            float normal[3];
            direction_to_file(&frame, plan->normal, normal);
            tilt_rotation(up, normal, plan->placed, rotation);
        }
        if (ready)
            pose_ik_two_bone_leg(prepared, target, rotation, 1.0f, object);
        else
            pose_ik_two_bone_object(s->parents, s->joint_count, leg, target, rotation, 1.0f, object);
    }
    return true;
}
