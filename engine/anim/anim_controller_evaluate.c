/* anim_controller: snapshots and the pose of the layers (see anim_controller_internal.h). */
#include "anim_controller_internal.h"

/* ---- snapshots ---- */

static void snapshot_store(const joint_pose *pose, int count, anim_snapshot_joint *out)
{
    for (int i = 0; i < count; ++i) {
        for (int k = 0; k < 4; ++k)
            out[i].rotation[k] =
                (int16_t)lrintf(fminf(fmaxf(pose[i].rotation[k], -1.0f), 1.0f) * ANIM_SNAPSHOT_ROTATION_STEPS);
        float largest = 0.0f;
        for (int k = 0; k < 3; ++k)
            largest = fmaxf(largest, fabsf(pose[i].position[k]));
        /* largest = f * 2^exponent with f in [0.5, 1): steps of 2^(exponent - 15) put it at f * 32768. */
        int exponent = 0;
        if (largest > 0.0f && isfinite(largest))
            frexpf(largest, &exponent);
        exponent = exponent - 15 < -126 ? -126 : exponent - 15; /* 2^-exponent stays a finite float */
        float steps_per_unit = ldexpf(1.0f, -exponent);
        for (int k = 0; k < 3; ++k) {
            float steps = pose[i].position[k] * steps_per_unit;
            out[i].position[k] = (int16_t)(isfinite(steps) ? lrintf(fminf(fmaxf(steps, -32767.0f), 32767.0f)) : 0);
        }
        out[i].position_exponent = (int16_t)exponent;
    }
}

static void snapshot_load(const anim_snapshot_joint *snapshot, int count, joint_pose *out)
{
    for (int i = 0; i < count; ++i) {
        float rotation[4], length2 = 0.0f;
        for (int k = 0; k < 4; ++k) {
            rotation[k] = snapshot[i].rotation[k];
            length2 += rotation[k] * rotation[k];
        }
        /* Stored from a unit rotation, whose largest component is at least 0.5: far from zero, except in
         * a snapshot never frozen (all zeros), which reads as no rotation. */
        if (!(length2 > 0.0f)) {
            rotation[3] = 1.0f;
            length2 = 1.0f;
        }
        float inverse_length = 1.0f / sqrtf(length2);
        for (int k = 0; k < 4; ++k)
            out[i].rotation[k] = rotation[k] * inverse_length;
        float step = ldexpf(1.0f, snapshot[i].position_exponent);
        for (int k = 0; k < 3; ++k)
            out[i].position[k] = snapshot[i].position[k] * step;
        out[i].unused = 0.0f;
    }
}

/* ---- evaluation ---- */

/* Joints first .. first + count - 1 of the skeleton's bind pose in local space, each joint relative to
 * its parent: what shows before any clip plays. Computed from the shared skeleton when needed rather
 * than kept per entity. */
static void bind_local(const skeleton *s, int first, int count, joint_pose *out)
{
    for (int i = first; i < first + count; ++i) {
        joint_pose *local = &out[i - first];
        const joint_pose *object = &s->bind_object[i];
        int parent = s->parents[i];
        if (parent < 0) {
            *local = *object;
            continue;
        }
        versor parent_inverse;
        glm_quat_inv((float *)s->bind_object[parent].rotation, parent_inverse);
        glm_quat_mul(parent_inverse, (float *)object->rotation, local->rotation);
        glm_quat_normalize(local->rotation);
        vec3 offset;
        glm_vec3_sub((float *)object->position, (float *)s->bind_object[parent].position, offset);
        glm_quat_rotatev(parent_inverse, offset, local->position);
        local->unused = 0.0f;
    }
}

typedef joint_pose pass_scratch[ANIM_CHANNEL_LAYERS][ANIM_PASS_JOINTS];


/* How many joints the pass starting at joint `first` covers. */
static int pass_joint_count(const anim_controller *controller, int first)
{
    int left = controller->joint_count - first;
    return left < ANIM_PASS_JOINTS ? left : ANIM_PASS_JOINTS;
}

/* Joints first .. first + count - 1 of one layer's pose: its clip sampled with the root handled, or the
 * channel's frozen snapshot. */
bool controller_layer_additive(const anim_channel *channel, const anim_layer *layer)
{
    return layer->clip ? layer->clip->additive : layer->blend ? layer->blend->additive : channel->snapshot_additive;
}

/* The joints a stage below works on: runs of joints of one pass, each run first[r] ..
 * first[r] + length[r] - 1, in increasing order with at least one joint between two runs (so a pass of 64
 * has at most 32; add_overlay's, more than ANIM_ADDITIVE_GAP apart, at most 16). A buffer given with them
 * holds joint origin + i at index i (origin at most the first run's first joint), so the joints between
 * the runs are left as they were. */
typedef struct joint_runs {
    int origin;
    int count;
    short first[ANIM_PASS_JOINTS / 2];
    short length[ANIM_PASS_JOINTS / 2];
} joint_runs;

/* Joints first .. first + count - 1 as one run, at index 0 of the buffers. */
static const joint_runs *one_run(joint_runs *runs, int first, int count)
{
    runs->origin = first;
    runs->count = 1;
    runs->first[0] = (short)first;
    runs->length[0] = (short)count;
    return runs;
}

/* Each run's joints set to no change (an additive identity). */
static void runs_identity(const joint_runs *runs, joint_pose *out)
{
    for (int r = 0; r < runs->count; ++r)
        for (int i = runs->first[r] - runs->origin, end = i + runs->length[r]; i < end; ++i)
            out[i] = (joint_pose){.rotation = {0.0f, 0.0f, 0.0f, 1.0f}};
}

/* The runs' joints of a clip at a phase of its cycle, with the root handled. */
static void sample_clip(const anim_clip *clip, double phase, const joint_runs *runs, joint_pose *out)
{
    float time = (float)(phase * clip_duration(clip));
    for (int r = 0; r < runs->count; ++r) {
        joint_pose *at = out + (runs->first[r] - runs->origin);
        pose_sample_range(clip->clip, time, clip->loop, runs->first[r], runs->length[r], at);
        if (runs->first[r] == 0)
            strip_root(clip, at); /* an additive clip's root keeps no horizontal delta either */
    }
}

/* The runs' joints of a blend layer: each clip with a weight at the layer's phase, blended by the weights
 * at its point. A clip that has it all is sampled straight into out (bit for bit the clip, as at one of
 * the blend's points). */
static void sample_blend(const anim_layer *layer, const joint_runs *runs, const float *known_weights, joint_pose *out)
{
    const anim_blend *blend = layer->blend;
    float own_weights[ANIM_BLEND_MAX_CLIPS], used_weights[ANIM_BLEND_MAX_CLIPS];
    const float *weights = known_weights;
    if (!weights) {
        anim_blend_weights(blend, layer->point, own_weights);
        weights = own_weights;
    }
    double phase = layer_phase(layer);
    int heaviest = anim_blend_heaviest(blend, weights);
    float rest = 1.0f; /* the rest's weight: what the clips leave (0 without a rest, to rounding) */
    for (int i = 0; i < blend->count; ++i)
        rest -= weights[i];
    if (blend->has_rest && !(weights[heaviest] > 0.0f)) { /* at the rest: no change */
        runs_identity(runs, out);
        return;
    }
    if (weights[heaviest] >= 1.0f) {
        sample_clip(blend->clips[heaviest],
                    cycles_phase(blend->loop, blend_clip_cycles(layer, heaviest, phase, layer->seconds)), runs, out);
        return;
    }
    joint_pose samples[ANIM_BLEND_MAX_CLIPS][ANIM_PASS_JOINTS];
    int used = 0;
    for (int i = 0; i < blend->count; ++i) {
        if (!(weights[i] > 0.0f))
            continue;
        sample_clip(blend->clips[i], cycles_phase(blend->loop, blend_clip_cycles(layer, i, phase, layer->seconds)),
                    runs, samples[used]);
        used_weights[used++] = weights[i];
    }
    if (blend->has_rest && rest > 0.0f && used < ANIM_BLEND_MAX_CLIPS) { /* the rest's no change, weighed in */
        runs_identity(runs, samples[used]);
        used_weights[used++] = rest;
    }
    for (int r = 0; r < runs->count; ++r) {
        int at = runs->first[r] - runs->origin;
        const joint_pose *poses[ANIM_BLEND_MAX_CLIPS];
        for (int u = 0; u < used; ++u)
            poses[u] = samples[u] + at;
        pose_blend(poses, used_weights, used, runs->length[r], out + at);
    }
}

/* The runs' joints of one layer's pose: its clip sampled with the root handled, or the channel's frozen
 * snapshot. An additive layer gives deltas; with a base (the pose below, indexed as out) it gives base
 * plus the whole delta instead, a pose that blends with ordinary layers. */
static void sample_layer(const anim_channel *channel, const anim_layer *layer, const joint_runs *runs,
                         const float *known_weights, const joint_pose *base, joint_pose *out)
{
    if (layer->blend)
        sample_blend(layer, runs, known_weights, out);
    else if (layer->clip)
        sample_clip(layer->clip, layer_phase(layer), runs, out);
    else
        for (int r = 0; r < runs->count; ++r)
            snapshot_load(channel->snapshot + runs->first[r], runs->length[r], out + (runs->first[r] - runs->origin));
    if (base && controller_layer_additive(channel, layer))
        for (int r = 0; r < runs->count; ++r) {
            int at = runs->first[r] - runs->origin;
            pose_add(base + at, out + at, 1.0f, NULL, runs->length[r], out + at);
        }
}

/* The runs' joints (of one pass) of the channel's pose now: each layer with a weight sampled into the
 * scratch, all blended into out. out may be scratch[0]; the scratch is indexed as out. */
static void evaluate_channel(const anim_channel *channel, const joint_runs *runs, const channel_blend_weights *known,
                             const joint_pose *base, pass_scratch scratch, joint_pose *out)
{
    float weights[ANIM_CHANNEL_LAYERS];
    current_weights(channel, weights);
    /* Most of the time one layer has it all: sample it straight into out, which also keeps it bit for
     * bit what the clip says. */
    for (int k = 0; k < channel->layer_count; ++k) {
        if (weights[k] == 1.0f) {
            sample_layer(channel, &channel->layers[k], runs, known ? (*known)[k] : NULL, base, out);
            return;
        }
    }
    for (int k = 0; k < channel->layer_count; ++k)
        if (weights[k] != 0.0f) /* pose_blend does not read poses without weight */
            sample_layer(channel, &channel->layers[k], runs, known ? (*known)[k] : NULL, base, scratch[k]);
    for (int r = 0; r < runs->count; ++r) {
        int at = runs->first[r] - runs->origin;
        const joint_pose *poses[ANIM_CHANNEL_LAYERS];
        for (int k = 0; k < channel->layer_count; ++k)
            poses[k] = scratch[k] + at;
        pose_blend(poses, weights, channel->layer_count, runs->length[r], out + at);
    }
}

/* Whether every layer of the channel that shows holds deltas (true), or none does (false); *mixed when
 * some do and some do not (a crossfade between an additive clip and an ordinary one). */
static bool channel_additive(const anim_channel *channel, bool *mixed)
{
    float weights[ANIM_CHANNEL_LAYERS];
    current_weights(channel, weights);
    int additive = 0, shown = 0;
    for (int k = 0; k < channel->layer_count; ++k) {
        if (weights[k] == 0.0f)
            continue;
        ++shown;
        additive += controller_layer_additive(channel, &channel->layers[k]);
    }
    *mixed = additive > 0 && additive < shown;
    return shown > 0 && additive == shown;
}

/* An additive overlay adds its deltas in runs of joints that move. Still joints between two runs are
 * added too (their deltas are identity to ADDITIVE_STILL_TURN, build_additive.c) when the gap is at most
 * this many joints: sampling and adding a joint costs less than the calls another run makes. */
#define ANIM_ADDITIVE_GAP 2

_Static_assert(ANIM_PASS_JOINTS == 64, "a pass's joints are one word of bits");

/* The lowest set bit of a nonzero word. */
static int lowest_bit(uint64_t bits)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(bits);
#else
    int i = 0;
    while (!((bits >> i) & 1u))
        ++i;
    return i;
#endif
}

/* Which of the pass's joints first .. first + count - 1 a clip's deltas move, bit i for joint first + i
 * (clip.h: clip_joint_moves). */
static uint64_t clip_moved_bits(const clip *c, int first, int count)
{
    uint64_t all = count >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << count) - 1;
    if (c->moving)
        return c->moving[first / 64] & all; /* a pass starts at a multiple of 64 joints */
    int low = c->still_first - first, high = c->joint_count - 1 - c->still_last - first;
    low = low > 0 ? low : 0;
    high = high < count - 1 ? high : count - 1;
    if (low > high)
        return 0;
    uint64_t up_to_high = high >= 63 ? ~(uint64_t)0 : ((uint64_t)1 << (high + 1)) - 1;
    return up_to_high & ~(((uint64_t)1 << low) - 1);
}

/* The joints of the pass an additive channel can change: the union, over its layers that show, of the
 * joints each clip moves (of a blend, its clips with weight at its point; a snapshot, all joints).
 * Elsewhere its deltas are identity, so adding them would only cost time; a channel at its blend's rest
 * changes none. */
static uint64_t channel_moved_bits(const anim_channel *channel, const channel_blend_weights *known, int first,
                                   int count)
{
    uint64_t all = count >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << count) - 1, bits = 0;
    float weights[ANIM_CHANNEL_LAYERS];
    current_weights(channel, weights);
    for (int k = 0; k < channel->layer_count; ++k) {
        if (weights[k] == 0.0f)
            continue;
        const anim_layer *layer = &channel->layers[k];
        int clips = layer->clip ? 1 : layer->blend ? layer->blend->count : 0;
        if (clips == 0) /* the snapshot */
            return all;
        float own_weights[ANIM_BLEND_MAX_CLIPS];
        const float *blend_weights = known ? (*known)[k] : own_weights;
        if (layer->blend && !known)
            anim_blend_weights(layer->blend, layer->point, own_weights);
        for (int i = 0; i < clips; ++i) {
            if (layer->blend && !(blend_weights[i] > 0.0f))
                continue; /* a clip without weight adds nothing; at a blend's rest none has any */
            bits |= clip_moved_bits(layer->clip ? layer->clip->clip : layer->blend->clips[i]->clip, first, count);
        }
    }
    return bits;
}

/* Add an additive overlay's deltas to the pass (joints first .. first + count - 1, at `pass`): the runs of
 * joints it moves under its mask, sampled together and added run by run. */
static void add_overlay(const anim_channel *overlay, const channel_blend_weights *known, int first, int count,
                        pass_scratch scratch, joint_pose *pass)
{
    const float *mask = overlay->mask + first;
    uint64_t bits = channel_moved_bits(overlay, known, first, count);
    for (uint64_t rest = bits; rest; rest &= rest - 1) { /* a joint at mask 0 keeps the pose below */
        int i = lowest_bit(rest);
        if (mask[i] == 0.0f)
            bits &= ~((uint64_t)1 << i);
    }
    joint_runs runs = {.origin = first};
    while (bits) {
        int low = lowest_bit(bits), high = low;
        while (high < 63 && (bits >> (high + 1)) != 0) {
            int gap = lowest_bit(bits >> (high + 1));
            if (gap > ANIM_ADDITIVE_GAP)
                break;
            high += gap + 1;
        }
        bits = high >= 63 ? 0 : bits & ~(((uint64_t)1 << (high + 1)) - 1);
        runs.first[runs.count] = (short)(first + low);
        runs.length[runs.count++] = (short)(high - low + 1);
    }
    if (runs.count == 0)
        return;
    evaluate_channel(overlay, &runs, known, NULL, scratch, scratch[0]);
    float weight = overlay->weight * overlay->amount;
    for (int r = 0; r < runs.count; ++r) {
        int at = runs.first[r] - first;
        pose_add(pass + at, scratch[0] + at, weight, mask + at, runs.length[r], pass + at);
    }
}

/* The local pose of the layers as they stand, a pass at a time: the body (the bind pose before any
 * clip), then each overlay over it through its mask, in channel order. An overlay of additive clips adds
 * its (blended) deltas: pose_add with the channel's weight and mask. A channel crossfading between
 * additive and ordinary clips turns each additive layer into the pose below plus its delta, and blends
 * like any overlay. */
void controller_evaluate_local(const anim_controller *controller, const channel_blend_weights *known, bool additive,
                           joint_pose *out)
{
    pass_scratch scratch;
    joint_runs runs;
    const anim_channel *body = &controller->channels[0];
    for (int first = 0; first < controller->joint_count; first += ANIM_PASS_JOINTS) {
        int count = pass_joint_count(controller, first);
        joint_pose *pass = out + first;
        if (body->layer_count > 0)
            evaluate_channel(body, one_run(&runs, first, count), known ? &known[0] : NULL, NULL, scratch, pass);
        else
            bind_local(controller->skeleton, first, count, pass);
        for (int c = 1; c < ANIM_CHANNEL_COUNT; ++c) {
            const anim_channel *overlay = &controller->channels[c];
            if (overlay->layer_count == 0 || overlay->weight == 0.0f || overlay->amount == 0.0f || !overlay->mask)
                continue;
            bool mixed = false;
            if (channel_additive(overlay, &mixed)) { /* only the joints its clips move */
                if (additive)
                    add_overlay(overlay, known ? &known[c] : NULL, first, count, scratch, pass);
                continue;
            }
            /* Only the joints the mask reaches: a joint at mask 0 keeps the body's pose bit for bit
             * (pose_blend_masked copies it), so sampling the overlay there would be wasted. */
            const float *mask = overlay->mask + first;
            int low = 0, high = count - 1;
            while (low <= high && mask[low] == 0.0f)
                ++low;
            while (high >= low && mask[high] == 0.0f)
                --high;
            if (low > high)
                continue;
            int reached = high - low + 1;
            float weight = overlay->weight * overlay->amount;
            evaluate_channel(overlay, one_run(&runs, first + low, reached), known ? &known[c] : NULL,
                             mixed ? pass + low : NULL, scratch, scratch[0]);
            pose_blend_masked(pass + low, scratch[0], mask + low, weight, reached, pass + low);
        }
    }
}

/* Freeze what the channel shows into its snapshot (the snapshot itself may be one of its layers: each
 * pass reads its slice before writing it). */
void controller_freeze_channel(const anim_controller *controller, anim_channel *channel)
{
    pass_scratch scratch;
    /* A channel of additive clips freezes its deltas. One crossfading between additive and ordinary clips
     * has no pose below it here: its additive layers are frozen over the bind pose, which shows only while
     * its new top layer fades in (a full stack of such crossfades is rare). */
    bool mixed = false;
    bool additive = channel_additive(channel, &mixed);
    joint_pose base[ANIM_PASS_JOINTS];
    for (int first = 0; first < controller->joint_count; first += ANIM_PASS_JOINTS) {
        int count = pass_joint_count(controller, first);
        if (mixed)
            bind_local(controller->skeleton, first, count, base);
        joint_runs runs;
        evaluate_channel(channel, one_run(&runs, first, count), NULL, mixed ? base : NULL, scratch, scratch[0]);
        snapshot_store(scratch[0], count, channel->snapshot + first);
    }
    channel->snapshot_additive = additive;
}
