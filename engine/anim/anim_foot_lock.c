/* anim_foot_lock: see anim_foot_lock.h. */
#include "anim_foot_lock.h"

#include <math.h>
#include <string.h>

#include "animator.h"

/* ---- which feet the body plants ---- */

/* The clip plants the foot at every frame: a clip keeping its own time in a blend counts only then, as the
 * controller does not say where that time is. */
static bool planted_throughout(const anim_clip *entry, int foot)
{
    if (!entry->planted || !entry->clip || entry->clip->frame_count <= 0)
        return false;
    const unsigned char *flags = entry->planted + (size_t)foot * (size_t)entry->clip->frame_count;
    return memchr(flags, 0, (size_t)entry->clip->frame_count) == NULL;
}

void anim_foot_lock_planted_shares(const anim_controller *controller, int foot_count, float *shares)
{
    for (int f = 0; f < foot_count; ++f)
        shares[f] = 0.0f;
    int layers = anim_controller_layer_count(controller, ANIMATOR_BODY_CHANNEL);
    for (int k = 0; k < layers; ++k) {
        anim_layer_info layer;
        if (!anim_controller_layer(controller, ANIMATOR_BODY_CHANNEL, k, &layer) || !(layer.weight > 0.0f))
            continue;
        if (!layer.blend) {
            for (int f = 0; f < foot_count && layer.clip; ++f)
                if (anim_feet_planted_at(layer.clip, layer.clip->planted, f, layer.time))
                    shares[f] += layer.weight;
            continue;
        }
        float weights[ANIM_BLEND_MAX_CLIPS];
        int count = anim_controller_layer_blend_weights(controller, ANIMATOR_BODY_CHANNEL, k, weights);
        double phase = layer.cycles - floor(layer.cycles);
        /* The clips in phase set the pace: while they carry weight, the others (an idle keeping its own
         * time) stand still under a body that moves, and do not count. */
        float paced = 0.0f;
        for (int i = 0; i < count; ++i)
            if (anim_blend_clip_in_phase(layer.blend, i) && weights[i] > 0.0f)
                paced += weights[i];
        for (int i = 0; i < count; ++i) {
            bool in_phase = anim_blend_clip_in_phase(layer.blend, i);
            if (!(weights[i] > 0.0f) || (paced > 0.0f && !in_phase))
                continue;
            const anim_clip *entry = layer.blend->clips[i];
            double time = phase * (entry->loop ? entry->clip->loop_duration : entry->clip->once_duration);
            float share = layer.weight * weights[i] / (paced > 0.0f ? paced : 1.0f);
            for (int f = 0; f < foot_count; ++f)
                if (in_phase ? anim_feet_planted_at(entry, entry->planted, f, time) : planted_throughout(entry, f))
                    shares[f] += share;
        }
    }
}

/* ---- between the entity's file space, its canonical frame and the world ---- */

/* The placement's heading as a turn, found once per call. */
typedef struct heading_turn {
    float c, s;
} heading_turn;

static void file_to_world(const anim_foot_lock_input *input, heading_turn turn, const float file[3], float world[3])
{
    float canonical[3];
    anim_axes_to_canonical(&input->axes, file, canonical);
    float scale = input->scale > 0.0f ? input->scale : 1.0f;
    float c = turn.c, s = turn.s;
    float x = canonical[0] * scale, y = canonical[1] * scale, z = canonical[2] * scale;
    /* canonical (x forward, y left, z up) is GL's (x, z, -y), then turned about Y by the heading */
    world[0] = input->placement.position[0] + c * x - s * y;
    world[1] = input->placement.position[1] + z;
    world[2] = input->placement.position[2] - s * x - c * y;
}

static void world_to_file(const anim_foot_lock_input *input, heading_turn turn, const float world[3], float file[3])
{
    float c = turn.c, s = turn.s;
    float dx = world[0] - input->placement.position[0], dz = world[2] - input->placement.position[2];
    float scale = input->scale > 0.0f ? input->scale : 1.0f;
    float canonical[3] = {(c * dx - s * dz) / scale, -(s * dx + c * dz) / scale,
                          (world[1] - input->placement.position[1]) / scale};
    anim_axes_from_canonical(&input->axes, canonical, file);
}

/* Metres of correction below which the leg is left as animated. */
#define ANIM_FOOT_LOCK_NEGLIGIBLE 5e-5f

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
        float shown = smoothstep(foot->weight) * hypotf(foot->at[0] - animated[0], foot->at[1] - animated[2]);
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

bool anim_foot_lock_apply(const anim_foot_lock_input *input, anim_foot_lock_state *state, joint_pose *object)
{
    if (!input || !state || !object || !input_valid(input))
        return false;
    if (!input->settings.enabled || !(input->settings.release_seconds > 0.0f) || !(input->settings.reach > 0.0f)) {
        *state = (anim_foot_lock_state){0};
        return true;
    }
    const skeleton *s = input->skeleton;
    heading_turn turn = {cosf(input->placement.heading), sinf(input->placement.heading)};
    for (int f = 0; f < input->leg_count; ++f) {
        const pose_ik_chain *leg = &input->legs[f];
        if (leg->ankle < 0 || leg->ankle >= s->joint_count)
            continue;
        anim_foot_lock_foot *foot = &state->feet[f];
        float animated[3];
        file_to_world(input, turn, object[leg->ankle].position, animated);
        foot_step(input, input->planted_shares[f], animated, foot);
        if (!(foot->weight > 0.0f))
            continue;
        /* Held at the lock point, as high above the ground there as the animated ankle is above the ground
         * under it. */
        ground_sample under_lock = ground_at(input->ground, foot->at[0], foot->at[1]);
        ground_sample under_ankle = ground_at(input->ground, animated[0], animated[2]);
        float target_world[3] = {foot->at[0], animated[1] + under_lock.height - under_ankle.height, foot->at[1]};
        /* A correction under a twentieth of a millimetre is not worth a solve: a standing crowd's feet are
         * held exactly where the animation has them. */
        float dx = target_world[0] - animated[0], dy = target_world[1] - animated[1], dz = target_world[2] - animated[2];
        if (dx * dx + dy * dy + dz * dz < ANIM_FOOT_LOCK_NEGLIGIBLE * ANIM_FOOT_LOCK_NEGLIGIBLE)
            continue;
        float target[3];
        world_to_file(input, turn, target_world, target);
        float rotation[4];
        memcpy(rotation, object[leg->ankle].rotation, sizeof rotation);
        pose_ik_two_bone_object(s->parents, s->joint_count, leg, target, rotation, smoothstep(foot->weight), object);
    }
    return true;
}
