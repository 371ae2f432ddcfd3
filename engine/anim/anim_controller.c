#include "anim_controller.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/prefetch.h"
#include "../base/quat.h"
#include "../pose/pose.h"
#include "anim_blend.h"

/* How time is kept, and why.
 * A layer's position is `cycles`, a double: loops completed plus the phase within the current one (a
 * one-shot runs from 0 to 1 and stops). Sync groups lock phases, events are found by which whole cycles
 * a step crossed, and root motion adds whole strides for whole loops: all three read cycles directly.
 * Doubles keep a phase exact to about 1e-12 after a day of play, where float seconds would drift by
 * frames within minutes.
 *
 * Within one update everything moves linearly (fades rise at a constant rate, a layer's cycles at a
 * constant rate), so "where in the step" something happened is one number, step_fraction, comparable
 * across layers: events are ordered by it, and a layer faded out part way through a step stops firing
 * at that fraction. That is what makes the event sequence independent of the step size. */

/* A step over more whole loops than this adds no further strides of root motion: it only bounds the
 * work a nonsensical dt can cause. */
#define ANIM_MAX_LOOPS_PER_STEP 4096

/* How far one update may move a layer, in cycles, and how long a step may be, in seconds. A program may
 * pass any finite dt and speed (a file's rate is at most 100, anim_config.h); beyond these, a step's
 * events would be dropped (ANIM_EVENTS_MAX) and its root motion capped anyway, so cutting the step there
 * changes only a phase nobody could see. What it buys: cycles stay far below 2^53 after any run (a
 * billion updates at the cap reach 2^50), so every cycle count converts to a long long without overflow,
 * and every product of a rate and a step stays finite. */
#define ANIM_MAX_CYCLES_PER_STEP 1048576.0
#define ANIM_MAX_STEP_SECONDS 1.0e9
/* Cycle counts (a long long) are clamped to this before conversion; unreachable by the bounds above, it
 * keeps the conversion defined for any double. */
#define ANIM_CYCLE_COUNT_LIMIT 4.0e18

/* How poses are computed without a whole pose of scratch per entity, and why.
 * Every stage between sampling and local-to-object works joint by joint, so the local pose is built a
 * pass of up to ANIM_PASS_JOINTS joints at a time: each layer's slice is sampled into a buffer on the
 * stack (4 layers x 64 joints x 32 bytes = 8 KB, shared by every entity in turn), blended into the local
 * pose and overlaid there through the masks; the local pose is then turned into the entity's object pose.
 * One pass covers a whole humanoid, so no stage runs more often than before.
 * Per entity there is only the object pose, the frozen snapshots (16 bytes a joint, see below) and the
 * masks. */
enum { ANIM_PASS_JOINTS = 64 };

/* A frozen snapshot's joint in half the space of a joint_pose. The rotation keeps 15 bits a component
 * (error under 0.004 degrees once renormalized); the position is a 16-bit mantissa per axis with one
 * power-of-two scale per joint, so it keeps 1/32768 of the joint's largest coordinate (30 um on a 1 m
 * offset) whatever the model's units. Snapshots only show while a crossfade from an overflowed stack
 * is in flight, and then only under the layers fading in over them. */
typedef struct anim_snapshot_joint {
    int16_t rotation[4]; /* unit quaternion x, y, z, w in steps of 1/32767 */
    int16_t position[3]; /* in steps of 2^position_exponent */
    int16_t position_exponent;
} anim_snapshot_joint;

_Static_assert(sizeof(anim_snapshot_joint) == 16, "a snapshot joint is half a joint_pose");

#define ANIM_SNAPSHOT_ROTATION_STEPS 32767.0f /* per unit of a rotation component */

/* A layer plays a clip, a blend space, or (neither) the channel's frozen snapshot. A blend's clips in phase
 * (anim_blend_clip_in_phase) play at the layer's normalized phase (`cycles`), each over its own duration;
 * the others at `seconds`, their own time; all weighted at `point`. */
typedef struct anim_layer {
    const anim_clip *clip;   /* NULL for a blend or the snapshot */
    const anim_blend *blend; /* NULL for a clip or the snapshot */
    double cycles;
    double seconds;          /* a blend's time since play(), for its clips out of phase */
    float speed;
    float fade;       /* 0..1; the bottom layer of a channel counts as 1 whatever it holds */
    float fade_rate;  /* fade per second */
    float start;      /* cycles when play() put it in its channel, in [0, 1): which crossings it saw */
    float point[2];   /* a blend's point in its parameter space (anim_controller_set_blend_point) */
    bool moves_entity; /* anim_play_options.moves_entity; false for a snapshot */
} anim_layer;

_Static_assert(sizeof(anim_layer) == 64, "a layer is 64 bytes: the layer state is 896 bytes");

typedef struct anim_channel {
    anim_layer layers[ANIM_CHANNEL_LAYERS];
    short layer_count;
    bool weight_target;     /* overlays fade towards 0 or 1 */
    bool snapshot_additive; /* the frozen snapshot holds deltas (it froze a channel of additive clips) */
    float weight;        /* overlay channels fade as a whole; channel 0 is always 1 */
    float weight_rate;   /* weight per second */
    float amount;        /* overlays: anim_controller_set_overlay_weight, 0..1 (1 at creation) */
    anim_snapshot_joint *snapshot;
    float *mask;         /* overlays only */
} anim_channel;

_Static_assert(sizeof(anim_channel) == 288, "three channels and the controller's fields fill 896 bytes");

struct anim_controller {
    const skeleton *skeleton;
    int joint_count;
    float time_scale;
    anim_channel channels[ANIM_CHANNEL_COUNT];
    joint_pose *object; /* skeletons over ANIM_PASS_JOINTS: first the local pose on its way there */
    uint32_t bytes;     /* anim_controller_bytes: a controller is far below 4 GB (its joints are counted) */
    bool additive_off;  /* anim_controller_set_additive(false): the additive overlays are not added */
};

/* ---- small helpers ---- */

static bool valid_channel(const anim_controller *controller, int channel)
{
    return controller && channel >= 0 && channel < ANIM_CHANNEL_COUNT;
}

static bool valid_fade(float seconds)
{
    return seconds >= 0.0f && isfinite(seconds);
}

/* A whole number of cycles as a long long: defined for any double (NaN gives 0). */
static long long cycle_count(double cycles)
{
    if (!(cycles > -ANIM_CYCLE_COUNT_LIMIT))
        return cycles < 0.0 ? (long long)-ANIM_CYCLE_COUNT_LIMIT : 0;
    return (long long)fmin(cycles, ANIM_CYCLE_COUNT_LIMIT);
}

/* A double as a float, saturated at the largest finite float instead of the undefined conversion. */
static float saturate_float(double value)
{
    if (!(fabs(value) <= FLT_MAX))
        return isnan(value) ? 0.0f : value > 0.0 ? FLT_MAX : -FLT_MAX;
    return (float)value;
}

/* Seconds per cycle: a loop's cycle, or a one-shot's run to its last frame. */
static double clip_duration(const anim_clip *clip)
{
    return clip->loop ? clip->clip->loop_duration : clip->clip->once_duration;
}

static bool layer_is_snapshot(const anim_layer *layer)
{
    return !layer->clip && !layer->blend;
}

static bool layer_loops(const anim_layer *layer)
{
    return layer->clip ? layer->clip->loop : layer->blend && layer->blend->loop;
}

static int layer_sync_group(const anim_layer *layer)
{
    return layer->clip ? layer->clip->sync_group : layer->blend ? layer->blend->sync_group : -1;
}

static bool layer_finished(const anim_layer *layer)
{
    return !layer_is_snapshot(layer) && !layer_loops(layer) && layer->cycles >= 1.0;
}

/* Where in its cycle: a loop's phase in [0, 1), a one-shot's position 0..1. Every clip of a blend is here. */
static double layer_phase(const anim_layer *layer)
{
    return layer_loops(layer) ? layer->cycles - floor(layer->cycles) : fmin(layer->cycles, 1.0);
}

/* A blend layer's weights per clip at its point (anim_blend_weights); nothing for another layer. Worked out
 * once per layer where several things need them: they are a good part of a step's cost in a crowd. */
static void layer_blend_weights(const anim_layer *layer, float weights[ANIM_BLEND_MAX_CLIPS])
{
    if (layer->blend)
        anim_blend_weights(layer->blend, layer->point, weights);
}

/* Seconds per cycle: the clip's, or the blend's at its point (0 for the snapshot); weights as
 * layer_blend_weights gives them. */
static double layer_duration(const anim_layer *layer, const float weights[ANIM_BLEND_MAX_CLIPS])
{
    if (layer->clip)
        return clip_duration(layer->clip);
    return layer->blend ? anim_blend_duration(layer->blend, weights) : 0.0;
}

/* The clip whose marks a layer fires and whose name it shows: its clip, or its blend's heaviest. */
static const anim_clip *layer_lead_clip(const anim_layer *layer, const float weights[ANIM_BLEND_MAX_CLIPS])
{
    if (!layer->blend)
        return layer->clip;
    return layer->blend->clips[anim_blend_heaviest(layer->blend, weights)];
}

/* Weight of each layer in its channel, given each layer's fade: the top layer has its fade, and each
 * layer below shares what the layers above leave, so the weights sum to 1 by construction. */
static void stack_weights(const float *fades, int layer_count, float *weights)
{
    float remaining = 1.0f;
    for (int i = layer_count - 1; i >= 0; --i) {
        float fade = i == 0 ? 1.0f : fades[i];
        weights[i] = remaining * fade;
        remaining *= 1.0f - fade;
    }
}

static void current_weights(const anim_channel *channel, float *weights)
{
    float fades[ANIM_CHANNEL_LAYERS];
    for (int i = 0; i < channel->layer_count; ++i)
        fades[i] = channel->layers[i].fade;
    stack_weights(fades, channel->layer_count, weights);
}

/* ---- root motion ---- */

/* Where the root stands on the floor: its horizontal position and its heading (yaw about Z). Root
 * motion moves the entity by how this changes; what is left in the pose is the root's height and tilt. */
typedef struct root_frame {
    double x, y, yaw;
} root_frame;

static double wrap_angle(double angle)
{
    while (angle > GLM_PI)
        angle -= 2.0 * GLM_PI;
    while (angle <= -GLM_PI)
        angle += 2.0 * GLM_PI;
    return angle;
}

/* The heading of a rotation: where it turns the +X axis (the way the character faces), seen from above. */
static double heading_of(const float q[4])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    return atan2(2.0 * (x * y + w * z), 1.0 - 2.0 * (y * y + z * z));
}

/* The file axis of canonical axis k (0 forward, 1 left, 2 up) of a clip's character: the floor of a Y-up
 * file is not its X and Y. */
static int file_axis(const anim_clip *clip, int k)
{
    return clip->import_axes.sign[0] != 0 ? clip->import_axes.from[k] : k;
}

/* A root rotation in canonical axes (and back): turning the axes turns the quaternion's axis; w stays. */
static void rotation_to_canonical(const anim_clip *clip, const float in[4], float out[4])
{
    anim_axes_to_canonical(&clip->import_axes, in, out);
    out[3] = in[3];
}

static void rotation_from_canonical(const anim_clip *clip, const float in[4], float out[4])
{
    anim_axes_from_canonical(&clip->import_axes, in, out);
    out[3] = in[3];
}

/* The root frame at `seconds` into the clip, interpolated as pose_sample does but without wrapping:
 * the end of a cycle is the last frame itself, a stride further on than the first. (A clip in the
 * tutorials' loop convention has no frame for the end of its cycle; its last step holds still.) In the
 * canonical axes of the clip's character, in file units. */
static root_frame root_frame_at(const anim_clip *entry, double seconds)
{
    const clip *c = entry->clip;
    int last = c->frame_count - 1;
    double frame = seconds * c->frame_rate;
    frame = frame < 0.0 ? 0.0 : frame > last ? last : frame;
    int first = (int)frame;
    int second = first < last ? first + 1 : last;
    float alpha = (float)(frame - first);
    const joint_pose *a = &c->frames[(ptrdiff_t)first * c->joint_count];
    const joint_pose *b = &c->frames[(ptrdiff_t)second * c->joint_count];
    float rotation[4], position[3];
    quat_nlerp(a->rotation, b->rotation, alpha, rotation);
    for (int k = 0; k < 3; ++k)
        position[k] = a->position[k] + alpha * (b->position[k] - a->position[k]);
    anim_axes_to_canonical(&entry->import_axes, position, position);
    rotation_to_canonical(entry, rotation, rotation);
    root_frame out = {.x = position[0], .y = position[1], .yaw = heading_of(rotation)};
    return out;
}

/* from^-1 * to: the move from `from` to `to` seen from `from` (its forward is +X). */
static root_frame root_relative(root_frame from, root_frame to)
{
    double dx = to.x - from.x, dy = to.y - from.y, c = cos(from.yaw), s = sin(from.yaw);
    root_frame out = {.x = c * dx + s * dy, .y = -s * dx + c * dy, .yaw = wrap_angle(to.yaw - from.yaw)};
    return out;
}

/* first, then second seen from where first ends. */
static root_frame root_compose(root_frame first, root_frame second)
{
    double c = cos(first.yaw), s = sin(first.yaw);
    root_frame out = {
        .x = first.x + c * second.x - s * second.y,
        .y = first.y + s * second.x + c * second.y,
        .yaw = first.yaw + second.yaw,
    };
    return out;
}

/* The root's motion while a layer moves from cycles `from` to `to`, across any loop boundaries: the rest
 * of the first cycle, a whole stride per loop in between, and the start of the last. */
static root_frame clip_root_motion_in_file_units(const anim_clip *c, double from, double to)
{
    double duration = clip_duration(c);
    if (!c->loop || !(to > from))
        return root_relative(root_frame_at(c, fmin(from, 1.0) * duration), root_frame_at(c, fmin(to, 1.0) * duration));

    double first_cycle = floor(from), last_cycle = floor(to);
    root_frame start = root_frame_at(c, (from - first_cycle) * duration);
    root_frame end = root_frame_at(c, (to - last_cycle) * duration);
    if (first_cycle == last_cycle)
        return root_relative(start, end);

    root_frame cycle_start = root_frame_at(c, 0.0), cycle_end = root_frame_at(c, duration);
    root_frame stride = root_relative(cycle_start, cycle_end);
    root_frame motion = root_relative(start, cycle_end);
    double whole_loops = fmin(last_cycle - first_cycle - 1.0, ANIM_MAX_LOOPS_PER_STEP);
    for (int k = 0; k < (int)whole_loops; ++k)
        motion = root_compose(motion, stride);
    motion = root_compose(motion, root_relative(cycle_start, end));
    return motion;
}

/* The same in metres: the character's scale turns file units into metres. */
static root_frame clip_root_motion(const anim_clip *clip, double from, double to)
{
    root_frame motion = clip_root_motion_in_file_units(clip, from, to);
    if (clip->import_scale > 0.0f) {
        motion.x *= clip->import_scale;
        motion.y *= clip->import_scale;
    }
    return motion;
}

/* Where clip i of a blend layer is: the layer's cycles for a clip in phase, else its own loops at the
 * layer's `seconds`. */
static double blend_clip_cycles(const anim_layer *layer, int i, double cycles, double seconds)
{
    if (anim_blend_clip_in_phase(layer->blend, i))
        return cycles;
    double duration = clip_duration(layer->blend->clips[i]);
    return duration > 0.0 ? seconds / duration : 0.0;
}

static double cycles_phase(bool loop, double cycles)
{
    return loop ? cycles - floor(cycles) : fmin(cycles, 1.0);
}

/* Add weight times the root motion of a layer moving from cycles `from` to `to` (seconds from
 * `seconds_from` to `seconds_to`): its clip's if it is a root-motion clip, or each root-motion clip of its
 * blend by its weight in the blend. In-place clips add nothing. */
static void add_layer_root_motion(const anim_layer *layer, const float blend_weights[ANIM_BLEND_MAX_CLIPS],
                                  double from, double to, double seconds_from, double seconds_to, float weight,
                                  root_frame *sum)
{
    const anim_clip *only = layer->clip;
    static const float clip_weights[ANIM_BLEND_MAX_CLIPS] = {1.0f};
    const float *weights = layer->blend ? blend_weights : clip_weights;
    int count = layer->blend ? layer->blend->count : 1;
    for (int i = 0; i < count; ++i) {
        const anim_clip *clip = layer->blend ? layer->blend->clips[i] : only;
        if (!clip || clip->root_mode != ANIM_ROOT_MOTION || !(weights[i] > 0.0f))
            continue;
        root_frame motion = layer->blend ? clip_root_motion(clip, blend_clip_cycles(layer, i, from, seconds_from),
                                                            blend_clip_cycles(layer, i, to, seconds_to))
                                         : clip_root_motion(clip, from, to);
        double share = (double)weight * weights[i];
        sum->x += share * motion.x;
        sum->y += share * motion.y;
        sum->yaw += share * motion.yaw;
    }
}

/* What the clip's root mode leaves of the root in a sampled pose: in place, its height and turn; root
 * motion, its height and tilt, since the entity carries the travel and the heading. */
static void strip_root(const anim_clip *clip, joint_pose *pose)
{
    joint_pose *root = &pose[0];
    root->position[file_axis(clip, 0)] = 0.0f;
    root->position[file_axis(clip, 1)] = 0.0f;
    if (clip->root_mode != ANIM_ROOT_MOTION)
        return;
    versor upright;
    rotation_to_canonical(clip, root->rotation, upright);
    float half = (float)(-0.5 * heading_of(upright));
    versor unturn = {0.0f, 0.0f, sinf(half), cosf(half)};
    versor rotation;
    glm_quat_mul(unturn, upright, rotation);
    glm_quat_normalize(rotation);
    rotation_from_canonical(clip, rotation, root->rotation);
}

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

/* A channel's blend layers' weights at their points, as advance_channel works them out for the step (row k
 * for layer k; rows of other layers unused), so that evaluating the pose does not work them out again. A
 * NULL table: each stage works out its own. */
typedef float channel_blend_weights[ANIM_CHANNEL_LAYERS][ANIM_BLEND_MAX_CLIPS];

/* How many joints the pass starting at joint `first` covers. */
static int pass_joint_count(const anim_controller *controller, int first)
{
    int left = controller->joint_count - first;
    return left < ANIM_PASS_JOINTS ? left : ANIM_PASS_JOINTS;
}

/* Joints first .. first + count - 1 of one layer's pose: its clip sampled with the root handled, or the
 * channel's frozen snapshot. */
static bool layer_additive(const anim_channel *channel, const anim_layer *layer)
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
    if (base && layer_additive(channel, layer))
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
        additive += layer_additive(channel, &channel->layers[k]);
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
static void evaluate_local(const anim_controller *controller, const channel_blend_weights *known, bool additive,
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
            if (overlay->layer_count == 0 || overlay->weight == 0.0f || overlay->amount == 0.0f)
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
static void freeze_channel(const anim_controller *controller, anim_channel *channel)
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

/* ---- creation ---- */

anim_controller *anim_controller_create(const anim_controller_desc *desc)
{
    if (!desc || !desc->skeleton)
        return NULL;
    const skeleton *s = desc->skeleton;
    int joint_count = s->joint_count;
    if (joint_count <= 0 || !s->parents || !s->names || !s->bind_object)
        return NULL;
    for (int i = 0; i < joint_count; ++i)
        if (s->parents[i] < -1 || s->parents[i] >= i)
            return NULL;
    if (s->parents[0] != -1)
        return NULL;

    /* One block: the controller, the object pose (32-byte aligned for the pose stages), the snapshots,
     * then the masks. */
    size_t header = (sizeof(anim_controller) + 31) / 32 * 32;
    size_t pose_bytes = sizeof(joint_pose) * (size_t)joint_count;
    size_t snapshot_bytes = sizeof(anim_snapshot_joint) * (size_t)joint_count;
    size_t mask_bytes = sizeof(float) * (size_t)joint_count;
    size_t total = header + pose_bytes + snapshot_bytes * ANIM_CHANNEL_COUNT + mask_bytes * (ANIM_CHANNEL_COUNT - 1);
    total = (total + 31) / 32 * 32;
    char *block = aligned_alloc(32, total);
    if (!block)
        return NULL;
    memset(block, 0, total);

    anim_controller *controller = (anim_controller *)block;
    controller->skeleton = s;
    controller->joint_count = joint_count;
    controller->time_scale = 1.0f;
    controller->bytes = (uint32_t)total;
    char *cursor = block + header;
    controller->object = (joint_pose *)cursor;
    cursor += pose_bytes;
    for (int k = 0; k < ANIM_CHANNEL_COUNT; ++k, cursor += snapshot_bytes) {
        controller->channels[k].snapshot = (anim_snapshot_joint *)cursor;
        controller->channels[k].weight = k == 0 ? 1.0f : 0.0f;
        controller->channels[k].weight_target = k == 0;
        controller->channels[k].amount = 1.0f;
    }
    for (int k = 1; k < ANIM_CHANNEL_COUNT; ++k, cursor += mask_bytes)
        controller->channels[k].mask = (float *)cursor;

    /* Nothing plays yet: this writes the bind pose. */
    anim_controller_update(controller, 0.0, NULL);
    return controller;
}

static bool clip_has_joints(const anim_clip *clip, int joint_count)
{
    return clip && clip->clip && clip->clip->joint_count == joint_count;
}

bool anim_controller_retarget(anim_controller *controller, const skeleton *s, anim_clip_lookup lookup,
                              anim_blend_lookup blend_lookup, void *user)
{
    if (!controller || !s || !lookup || s->joint_count != controller->joint_count)
        return false;
    for (int i = 0; i < s->joint_count; ++i)
        if (s->parents[i] != controller->skeleton->parents[i])
            return false;
    /* Look every clip and blend up before changing anything: all or nothing. */
    const anim_clip *clips[ANIM_CHANNEL_COUNT][ANIM_CHANNEL_LAYERS] = {{NULL}};
    const anim_blend *blends[ANIM_CHANNEL_COUNT][ANIM_CHANNEL_LAYERS] = {{NULL}};
    for (int c = 0; c < ANIM_CHANNEL_COUNT; ++c) {
        const anim_channel *channel = &controller->channels[c];
        for (int k = 0; k < channel->layer_count; ++k) {
            const anim_layer *layer = &channel->layers[k];
            if (layer->clip) {
                clips[c][k] = lookup(user, layer->clip);
                if (!clip_has_joints(clips[c][k], s->joint_count))
                    return false;
            } else if (layer->blend) {
                /* A blend is replaced by one of the same shape, so the layer's point and phase mean the same. */
                const anim_blend *blend = blend_lookup ? blend_lookup(user, layer->blend) : NULL;
                if (!anim_blend_valid(blend) || blend->dimensions != layer->blend->dimensions ||
                    blend->loop != layer->blend->loop || blend->additive != layer->blend->additive)
                    return false;
                for (int i = 0; i < blend->count; ++i)
                    if (!clip_has_joints(blend->clips[i], s->joint_count))
                        return false;
                blends[c][k] = blend;
            } /* a snapshot holds a pose, not a clip */
        }
    }
    for (int c = 0; c < ANIM_CHANNEL_COUNT; ++c) {
        anim_channel *channel = &controller->channels[c];
        for (int k = 0; k < channel->layer_count; ++k) {
            if (channel->layers[k].clip)
                channel->layers[k].clip = clips[c][k];
            else if (channel->layers[k].blend)
                channel->layers[k].blend = blends[c][k];
        }
    }
    controller->skeleton = s;
    return true;
}

void anim_controller_prefetch(const anim_controller *controller)
{
    prefetch_range(controller, sizeof *controller, true);
}

void anim_controller_prefetch_pose(const anim_controller *controller)
{
    if (!controller)
        return;
    prefetch_range(controller->object, sizeof(joint_pose) * (size_t)controller->joint_count, true);
    for (int c = 1; c < ANIM_CHANNEL_COUNT; ++c)
        if (controller->channels[c].layer_count > 0)
            prefetch_range(controller->channels[c].mask, sizeof(float) * (size_t)controller->joint_count, false);
}

void anim_controller_prefetch_object_handle(const anim_controller *controller)
{
    if (controller)
        prefetch_range(&controller->object, sizeof controller->object, false);
}

void anim_controller_prefetch_object(const anim_controller *controller)
{
    if (controller)
        prefetch_range(controller->object, sizeof(joint_pose) * (size_t)controller->joint_count, false);
}

void anim_controller_destroy(anim_controller *controller)
{
    free(controller);
}

size_t anim_controller_bytes(const anim_controller *controller)
{
    return controller ? controller->bytes : 0;
}

/* ---- playing ---- */

static bool clip_fits(const anim_controller *controller, const anim_clip *playable)
{
    const clip *c = playable->clip;
    if (!c || c->joint_count != controller->joint_count || !c->frames || c->frame_count <= 0 ||
        !(c->frame_rate > 0.0f) || !c->parents)
        return false;
    for (int i = 0; i < c->joint_count; ++i)
        if (c->parents[i] != controller->skeleton->parents[i])
            return false;
    return true;
}

/* A looping clip or blend in a sync group starts at the phase of the heaviest layer of its group in the
 * channel. */
static double inherited_phase(const anim_channel *channel, const anim_layer *layer)
{
    int group = layer_sync_group(layer);
    if (!layer_loops(layer) || group < 0)
        return 0.0;
    float weights[ANIM_CHANNEL_LAYERS];
    current_weights(channel, weights);
    int leader = -1;
    for (int k = 0; k < channel->layer_count; ++k) {
        const anim_layer *other = &channel->layers[k];
        if (layer_loops(other) && layer_sync_group(other) == group && (leader < 0 || weights[k] > weights[leader]))
            leader = k;
    }
    if (leader < 0)
        return 0.0;
    double cycles = channel->layers[leader].cycles;
    return cycles - floor(cycles);
}

/* play() and play_blend(): `played` has the clip or the blend (and the point); the rest is filled here. */
static bool play_layer(anim_controller *controller, int channel_index, anim_layer played, float fade_seconds,
                       const anim_play_options *options)
{
    if (!valid_fade(fade_seconds))
        return false;
    bool additive = played.clip ? played.clip->additive : played.blend->additive;
    if (additive && channel_index == 0)
        return false; /* the body is the pose everything is added to */
    float speed = options && options->speed != 0.0f ? options->speed : 1.0f;
    if (!(speed >= 0.0f) || !isfinite(speed))
        return false;
    anim_channel *channel = &controller->channels[channel_index];
    bool overlay = channel_index > 0;
    float rate = fade_seconds > 0.0f ? 1.0f / fade_seconds : 0.0f;

    /* An overlay asked to play again fades back in from wherever its weight is. */
    if (overlay) {
        channel->weight_target = true;
        channel->weight_rate = rate;
        if (fade_seconds == 0.0f)
            channel->weight = 1.0f;
    }
    int count = channel->layer_count;
    anim_layer *top = count > 0 ? &channel->layers[count - 1] : NULL;
    bool moves_entity = options && options->moves_entity;
    if (top && top->clip == played.clip && top->blend == played.blend && !layer_finished(top) &&
        !(options && options->restart)) {
        top->moves_entity = moves_entity; /* it plays on for whoever asked last */
        return true;
    }

    anim_layer layer = played;
    double phase = inherited_phase(channel, &layer);
    layer.cycles = phase;
    layer.seconds = 0.0;
    layer.speed = speed;
    layer.fade = fade_seconds > 0.0f ? 0.0f : 1.0f;
    layer.fade_rate = rate;
    layer.start = (float)phase;
    layer.moves_entity = moves_entity;
    /* Nothing on screen to fade from: a body with no clip yet, or an overlay at weight 0 (which fades
     * in as a whole instead). */
    if (count == 0 || (overlay && channel->weight == 0.0f) || layer.fade == 1.0f) {
        layer.fade = 1.0f;
        channel->layers[0] = layer;
        channel->layer_count = 1;
        return true;
    }
    if (count == ANIM_CHANNEL_LAYERS) {
        /* Full: freeze what the channel shows into its snapshot and fade from that. */
        freeze_channel(controller, channel);
        channel->layers[0] = (anim_layer){.clip = NULL, .fade = 1.0f};
        count = 1;
    }
    channel->layers[count] = layer;
    channel->layer_count = count + 1;
    return true;
}

bool anim_controller_play(anim_controller *controller, int channel_index, const anim_clip *clip, float fade_seconds,
                          const anim_play_options *options)
{
    if (!valid_channel(controller, channel_index) || !clip || !clip_fits(controller, clip))
        return false;
    return play_layer(controller, channel_index, (anim_layer){.clip = clip}, fade_seconds, options);
}

static bool valid_point(const float point[2])
{
    return point && isfinite(point[0]) && isfinite(point[1]);
}

bool anim_controller_play_blend(anim_controller *controller, int channel_index, const anim_blend *blend,
                                const float point[2], float fade_seconds, const anim_play_options *options)
{
    if (!valid_channel(controller, channel_index) || !anim_blend_valid(blend) || !valid_point(point))
        return false;
    for (int i = 0; i < blend->count; ++i)
        if (!clip_fits(controller, blend->clips[i]))
            return false;
    anim_layer played = {.blend = blend, .point = {point[0], point[1]}};
    if (!play_layer(controller, channel_index, played, fade_seconds, options))
        return false;
    return anim_controller_set_blend_point(controller, channel_index, blend, point);
}

bool anim_controller_set_blend_point(anim_controller *controller, int channel, const anim_blend *blend,
                                     const float point[2])
{
    if (!valid_channel(controller, channel) || !blend || !valid_point(point))
        return false;
    anim_channel *c = &controller->channels[channel];
    for (int k = 0; k < c->layer_count; ++k) {
        if (c->layers[k].blend == blend) {
            c->layers[k].point[0] = point[0];
            c->layers[k].point[1] = point[1];
        }
    }
    return true;
}

bool anim_controller_stop(anim_controller *controller, int channel, float fade_seconds)
{
    if (!valid_channel(controller, channel) || channel == 0 || !valid_fade(fade_seconds))
        return false;
    anim_channel *c = &controller->channels[channel];
    c->weight_target = false;
    c->weight_rate = fade_seconds > 0.0f ? 1.0f / fade_seconds : 0.0f;
    if (fade_seconds == 0.0f) {
        c->weight = 0.0f;
        c->layer_count = 0;
    }
    return true;
}

bool anim_controller_set_mask(anim_controller *controller, int channel, const float *joint_weights)
{
    if (!valid_channel(controller, channel) || channel == 0 || !joint_weights)
        return false;
    for (int i = 0; i < controller->joint_count; ++i)
        if (!(joint_weights[i] >= 0.0f && joint_weights[i] <= 1.0f))
            return false;
    memcpy(controller->channels[channel].mask, joint_weights, sizeof(float) * (size_t)controller->joint_count);
    return true;
}

bool anim_controller_mask_branch(anim_controller *controller, int channel, const char *joint_name, float weight)
{
    if (!valid_channel(controller, channel) || channel == 0 || !joint_name || !(weight >= 0.0f && weight <= 1.0f))
        return false;
    const skeleton *s = controller->skeleton;
    int branch = -1;
    for (int i = 0; i < s->joint_count && branch < 0; ++i)
        if (s->names[i] && strcmp(s->names[i], joint_name) == 0)
            branch = i;
    if (branch < 0)
        return false;
    /* Parents come before children, so a descendant has a larger index and its parent chain meets the
     * branch's joint before going below it. */
    for (int i = branch; i < s->joint_count; ++i) {
        int ancestor = i;
        while (ancestor > branch)
            ancestor = s->parents[ancestor];
        if (ancestor == branch)
            controller->channels[channel].mask[i] = weight;
    }
    return true;
}

bool anim_controller_set_overlay_weight(anim_controller *controller, int channel, float weight)
{
    if (!valid_channel(controller, channel) || channel == 0 || !(weight >= 0.0f && weight <= 1.0f))
        return false;
    controller->channels[channel].amount = weight;
    return true;
}

float anim_controller_overlay_weight(const anim_controller *controller, int channel)
{
    return valid_channel(controller, channel) && channel > 0 ? controller->channels[channel].amount : 0.0f;
}

bool anim_controller_set_speed(anim_controller *controller, int channel, float speed)
{
    if (!valid_channel(controller, channel) || !(speed >= 0.0f) || !isfinite(speed))
        return false;
    anim_channel *c = &controller->channels[channel];
    for (int k = 0; k < c->layer_count; ++k)
        c->layers[k].speed = speed;
    return true;
}

bool anim_controller_set_ground_speed(anim_controller *controller, int channel, float meters_per_second)
{
    if (!valid_channel(controller, channel) || !(meters_per_second >= 0.0f) || !isfinite(meters_per_second))
        return false;
    anim_channel *c = &controller->channels[channel];
    for (int k = 0; k < c->layer_count; ++k) {
        anim_layer *layer = &c->layers[k];
        float ground_speed = 0.0f;
        if (layer->clip && layer->clip->ground_speed > 0.0f)
            ground_speed = anim_clip_ground_speed_metres(layer->clip);
        else if (layer->blend) {
            float weights[ANIM_BLEND_MAX_CLIPS];
            anim_blend_weights(layer->blend, layer->point, weights);
            ground_speed = anim_blend_ground_speed(layer->blend, weights);
        }
        if (ground_speed > 0.0f)
            layer->speed = saturate_float((double)meters_per_second / ground_speed); /* finite */
    }
    return true;
}

void anim_controller_set_time_scale(anim_controller *controller, float time_scale)
{
    if (controller && time_scale >= 0.0f && isfinite(time_scale))
        controller->time_scale = time_scale;
}

void anim_controller_set_additive(anim_controller *controller, bool on)
{
    if (controller)
        controller->additive_off = !on;
}

bool anim_controller_additive(const anim_controller *controller)
{
    return controller && !controller->additive_off;
}

/* ---- update ---- */

/* events_dropped grows by `more`, saturating at INT_MAX: a step over millions of cycles drops millions. */
static void count_dropped(anim_update_result *result, long long more)
{
    long long room = (long long)INT_MAX - result->events_dropped;
    result->events_dropped += (int)(more < room ? (more > 0 ? more : 0) : room);
}

/* Keep the earliest ANIM_EVENTS_MAX events of the step, in the order they happened (ties: the order
 * they were found, channel by channel and layer by layer, so the same input always gives the same
 * order). */
static void add_event(anim_update_result *result, anim_event event)
{
    int count = result->event_count;
    if (count == ANIM_EVENTS_MAX) {
        count_dropped(result, 1);
        if (!(event.step_fraction < result->events[count - 1].step_fraction))
            return;
        --count;
    }
    int at = count;
    while (at > 0 && result->events[at - 1].step_fraction > event.step_fraction) {
        result->events[at] = result->events[at - 1];
        --at;
    }
    result->events[at] = event;
    result->event_count = count + 1;
}

/* What one channel's layers do during one step, for the events: where each moves (cycles `from` to
 * `to`), the fraction of the step it stays visible, and its weight at both ends (channel weight
 * included; in between it changes linearly). */
typedef struct layer_step {
    const anim_layer *layers;
    const anim_clip *clips[ANIM_CHANNEL_LAYERS]; /* whose marks each fires: layer_lead_clip, NULL for a snapshot */
    int count;
    double from[ANIM_CHANNEL_LAYERS], to[ANIM_CHANNEL_LAYERS], life[ANIM_CHANNEL_LAYERS];
    float weight_before[ANIM_CHANNEL_LAYERS], weight_after[ANIM_CHANNEL_LAYERS];
    bool fresh[ANIM_CHANNEL_LAYERS]; /* its first step since play() */
} layer_step;

/* Phases closer than this (in cycles) are one moment: it absorbs rounding in frame / rate / duration and
 * in the shared phase of a sync group, nothing an author could mean. */
#define ANIM_PHASE_EPSILON 1e-6

/* Where a mark sits in its clip: a loop's normalized phase in [0, 1) (a mark on the last frame of a
 * Doom 3 cycle is the next cycle's first), a one-shot's position 0..1. */
static double mark_phase(const anim_clip *clip, int mark)
{
    double duration = clip_duration(clip);
    double at = duration > 0.0 ? (double)clip->events[mark].frame / clip->clip->frame_rate / duration : 0.0;
    return clip->loop ? at - floor(at) : fmin(fmax(at, 0.0), 1.0);
}

static float weight_at(const layer_step *step, int k, double fraction)
{
    return step->weight_before[k] + (float)fraction * (step->weight_after[k] - step->weight_before[k]);
}

/* Whether layer j crossed (or will cross, later in the step) the point `crossing` of its cycles while it
 * was in the channel and visible. In its first step the answer is exact (a crossing belongs to the step
 * with from <= crossing < until, so one at `from` is this step's); later, `start` tells within
 * ANIM_PHASE_EPSILON. A crossing in an earlier step was visible: a layer is cut short only in the step
 * that drops it. One past this step is taken to come. */
static bool crossed_in_channel(const layer_step *step, int j, double crossing)
{
    if (step->fresh[j] ? crossing < step->from[j] : crossing < (double)step->layers[j].start - ANIM_PHASE_EPSILON)
        return false; /* before play() put it here */
    double span = step->to[j] - step->from[j];
    double fraction = span > 0.0 ? (crossing - step->from[j]) / span : 0.0;
    return !(fraction >= 0.0 && fraction < 1.0) || fraction < step->life[j];
}

/* The footstep rule (anim_controller.h, "Events"): layer k crosses its mark `mark` a `fraction` into the
 * step. Marks of the same name in the other looping layers of its sync group, within
 * ANIM_EVENT_SAME_CONTACT of its phase, are the same contact: it fires once, at the crossing of its
 * newest member that crossed it while in the channel. Newest, not heaviest: which layer is newest
 * changes only when play() adds one (dropping takes older layers), so a contact is neither lost nor
 * doubled when the weights cross over. False: another layer fires this contact. True: `event` (layer
 * k's own) gets the summed weight of the members visible now and the clip and cycle of the heaviest. */
static bool contact_event(const layer_step *step, int k, int mark, double fraction, anim_event *event)
{
    const anim_clip *clip = step->clips[k];
    if (!clip->loop || clip->sync_group < 0)
        return true;
    double phase = mark_phase(clip, mark);
    double now_k = step->from[k] + fraction * (step->to[k] - step->from[k]);
    float heaviest = event->weight;
    for (int j = 0; j < step->count; ++j) {
        const anim_clip *other = step->clips[j];
        if (j == k || !other || !other->loop || other->sync_group != clip->sync_group || other->event_count <= 0 ||
            !other->events)
            continue;
        /* Its nearest mark of the same name, as an offset in cycles: > 0 before this one. */
        double offset = 1.0, other_phase = 0.0;
        for (int m = 0; m < other->event_count; ++m) {
            if (strcmp(other->events[m].name, clip->events[mark].name) != 0)
                continue;
            double d = phase - mark_phase(other, m);
            d -= floor(d + 0.5);
            if (fabs(d) < fabs(offset)) {
                offset = d;
                other_phase = mark_phase(other, m);
            }
        }
        if (!(fabs(offset) <= ANIM_EVENT_SAME_CONTACT + ANIM_PHASE_EPSILON))
            continue;
        if (fabs(offset) < ANIM_PHASE_EPSILON)
            offset = 0.0;
        /* Its crossing of that mark, as fire_events places it: a whole cycle count plus the phase. */
        double now_j = step->from[j] + fraction * (step->to[j] - step->from[j]);
        long long cycle_j = cycle_count(floor(now_j - offset - other_phase + 0.5));
        double crossing_j = (double)cycle_j + other_phase;
        bool j_crossed = crossed_in_channel(step, j, crossing_j);
        /* A newer member's crossing is the contact's. An older member's earlier one was, if this layer
         * was not here yet to take it: in this layer's first step, if it came in an earlier step. */
        if (j > k && j_crossed)
            return false;
        bool before_k = step->fresh[k] ? crossing_j < step->from[j]
                                       : now_k - offset < (double)step->layers[k].start - ANIM_PHASE_EPSILON;
        if (j < k && j_crossed && before_k)
            return false;
        if (!(fraction < step->life[j]))
            continue; /* faded out before now: it adds nothing */
        float weight = weight_at(step, j, fraction);
        event->weight += weight;
        if (weight > heaviest) {
            heaviest = weight;
            event->clip = other;
            event->cycle = cycle_j;
        }
    }
    return true;
}

/* Layer k's marks crossed during the step: a crossing is a mark at from <= time < from + life * (to -
 * from), where it faded out if it did during the step; a one-shot that reaches its end also fires the
 * marks on its last frame. */
static void fire_events(const layer_step *step, int k, int channel, anim_update_result *result)
{
    const anim_clip *clip = step->clips[k];
    double from = step->from[k], to = step->to[k], until = from + step->life[k] * (to - from);
    if (!(until > from) || clip->event_count <= 0 || !clip->events)
        return;
    bool reaches_end = !clip->loop && until >= 1.0;
    for (int e = 0; e < clip->event_count; ++e) {
        double at = mark_phase(clip, e);
        long long first = 0, last = 0;
        if (clip->loop) {
            first = cycle_count(ceil(from - at));
            last = cycle_count(ceil(until - at)) - 1;
        } else {
            bool crossed = at >= from && (at < until || reaches_end);
            last = crossed ? 0 : -1;
        }
        for (long long n = first; n <= last; ++n) {
            if (n - first >= ANIM_EVENTS_MAX) {
                count_dropped(result, last - n + 1);
                break;
            }
            /* In [0, 1] but for rounding of huge cycle counts: clamped, so it stays a fraction. */
            double fraction = fmin(fmax(((double)n + at - from) / (to - from), 0.0), 1.0);
            anim_event event = {
                .name = clip->events[e].name,
                .clip = clip,
                .channel = channel,
                .cycle = n,
                .weight = weight_at(step, k, fraction),
                .step_fraction = (float)fraction,
            };
            if (contact_event(step, k, e, fraction, &event))
                add_event(result, event);
        }
    }
}

/* Advance one channel by dt: fades, the channel's weight, each layer's cycles (sync groups together),
 * its events and (channel 0) the root motion of the layers that move the entity, with their summed weight
 * over the step in *root_motion_share; then drop the layers nothing is left of. */
static void advance_channel(anim_channel *channel, int channel_index, double dt, anim_update_result *result,
                            root_frame *root_motion, double *root_motion_share, channel_blend_weights blend_weights)
{
    int count = channel->layer_count;
    float fades_before[ANIM_CHANNEL_LAYERS], fades_after[ANIM_CHANNEL_LAYERS];
    double life[ANIM_CHANNEL_LAYERS]; /* fraction of the step each layer is still visible */
    for (int k = 0; k < count; ++k) {
        const anim_layer *layer = &channel->layers[k];
        fades_before[k] = layer->fade;
        fades_after[k] = (float)fmin(1.0, layer->fade + layer->fade_rate * dt);
        life[k] = 1.0;
    }
    /* A layer that completes its fade-in hides everything below it from that moment on. */
    for (int k = 1; k < count; ++k) {
        if (fades_before[k] >= 1.0f || !(fades_after[k] >= 1.0f))
            continue;
        double moment = (1.0 - fades_before[k]) / (channel->layers[k].fade_rate * dt);
        for (int below = 0; below < k; ++below)
            life[below] = fmin(life[below], moment);
    }
    float channel_before = channel->weight, channel_after = channel->weight;
    if (channel->weight < channel->weight_target)
        channel_after = (float)fmin(channel->weight_target, channel->weight + channel->weight_rate * dt);
    else if (channel->weight > channel->weight_target)
        channel_after = (float)fmax(channel->weight_target, channel->weight - channel->weight_rate * dt);
    if (channel_after == 0.0f && channel_before > 0.0f) {
        double moment = channel_before / (channel->weight_rate * dt);
        for (int k = 0; k < count; ++k)
            life[k] = fmin(life[k], moment);
    }
    channel->weight = channel_after;

    float weights_before[ANIM_CHANNEL_LAYERS], weights_after[ANIM_CHANNEL_LAYERS], average[ANIM_CHANNEL_LAYERS];
    stack_weights(fades_before, count, weights_before);
    stack_weights(fades_after, count, weights_after);
    for (int k = 0; k < count; ++k) {
        weights_before[k] *= channel_before;
        weights_after[k] *= channel_after;
        average[k] = 0.5f * (weights_before[k] + weights_after[k]);
        /* Every layer that moves the entity holds its share, travelling or not: a one-shot holding its
         * last frame keeps the entity still rather than handing it back to the game. */
        if (root_motion_share && channel->layers[k].moves_entity)
            *root_motion_share += average[k];
    }

    /* Cycles per second of each layer. The layers of a sync group share one rate, their weighted mean,
     * so their phases, equal when they started, stay equal. */
    double own_rates[ANIM_CHANNEL_LAYERS], rates[ANIM_CHANNEL_LAYERS];
    for (int k = 0; k < count; ++k) {
        const anim_layer *layer = &channel->layers[k];
        layer_blend_weights(layer, blend_weights[k]);
        double duration = layer_duration(layer, blend_weights[k]);
        own_rates[k] = rates[k] = duration > 0.0 ? layer->speed / duration : layer_is_snapshot(layer) ? 0.0 : INFINITY;
    }
    for (int k = 0; k < count; ++k) {
        int group = layer_sync_group(&channel->layers[k]);
        if (!layer_loops(&channel->layers[k]) || group < 0)
            continue;
        double weighted = 0.0, weight_sum = 0.0, plain = 0.0;
        int members = 0;
        for (int other = 0; other < count; ++other) {
            const anim_layer *o = &channel->layers[other];
            if (!layer_loops(o) || layer_sync_group(o) != group)
                continue;
            weighted += average[other] * own_rates[other];
            weight_sum += average[other];
            plain += own_rates[other];
            ++members;
        }
        rates[k] = weight_sum > 0.0 ? weighted / weight_sum : plain / members;
    }

    /* Where each layer moves, all first: a layer's events depend on what the others of its sync group do
     * in the same step. */
    layer_step step; /* its arrays are written below for the layers there are, and read only for them */
    step.layers = channel->layers;
    step.count = count;
    for (int k = 0; k < count; ++k) {
        const anim_layer *layer = &channel->layers[k];
        step.from[k] = step.to[k] = layer->cycles;
        step.life[k] = life[k];
        step.weight_before[k] = weights_before[k];
        step.weight_after[k] = weights_after[k];
        /* A layer fading in has fade 0 only until its first step (a cut replaces the whole stack). */
        step.fresh[k] = k > 0 && fades_before[k] == 0.0f;
        step.clips[k] = layer_lead_clip(layer, blend_weights[k]);
        if (layer_is_snapshot(layer))
            continue;
        step.to[k] = isinf(rates[k]) ? 1.0 : layer->cycles + fmin(rates[k] * dt, ANIM_MAX_CYCLES_PER_STEP);
        if (!layer_loops(layer))
            step.to[k] = fmin(step.to[k], 1.0);
    }
    for (int k = 0; k < count; ++k) {
        anim_layer *layer = &channel->layers[k];
        layer->fade = fades_after[k];
        double from = step.from[k], to = step.to[k];
        if (layer_is_snapshot(layer) || !(to > from))
            continue;
        if (result)
            fire_events(&step, k, channel_index, result);
        if (root_motion && layer->moves_entity && average[k] > 0.0f)
            add_layer_root_motion(layer, blend_weights[k], from, to, layer->seconds, layer->seconds + dt, average[k],
                                  root_motion);
    }
    for (int k = 0; k < count; ++k) {
        channel->layers[k].cycles = step.to[k];
        if (channel->layers[k].blend)
            channel->layers[k].seconds += dt;
    }

    /* Drop what no longer shows: everything under the highest fully faded-in layer, or the whole
     * overlay once it has faded out. */
    int lowest_visible = 0;
    for (int k = count - 1; k > 0 && lowest_visible == 0; --k)
        if (channel->layers[k].fade >= 1.0f)
            lowest_visible = k;
    if (lowest_visible > 0) {
        memmove(channel->layers, channel->layers + lowest_visible, sizeof(anim_layer) * (size_t)(count - lowest_visible));
        memmove(blend_weights, blend_weights + lowest_visible,
                sizeof *blend_weights * (size_t)(count - lowest_visible));
        channel->layer_count = count - lowest_visible;
    }
    if (channel_index > 0 && channel->weight == 0.0f && !channel->weight_target)
        channel->layer_count = 0;
}

/* The summed weight now of the body's layers that move the entity: a step of no time has no average. */
static double body_root_motion_share(const anim_channel *body)
{
    float weights[ANIM_CHANNEL_LAYERS];
    current_weights(body, weights);
    double share = 0.0;
    for (int k = 0; k < body->layer_count; ++k)
        if (body->layers[k].moves_entity)
            share += weights[k];
    return share;
}

/* anim_controller_update up to the local pose, which goes to `local`. */
static void update_local(anim_controller *controller, double dt, anim_update_result *result, joint_pose *local)
{
    if (result) {
        /* Every field but the event slots, which are written before event_count counts them: clearing
         * them all was a 700-byte memset per entity per step. */
        for (int k = 0; k < 3; ++k)
            result->translation[k] = 0.0f;
        result->yaw = result->root_motion_share = 0.0f;
        result->event_count = result->events_dropped = 0;
        for (int c = 0; c < ANIM_CHANNEL_COUNT; ++c)
            result->finished[c] = false;
    }
    dt = fmin(dt * controller->time_scale, ANIM_MAX_STEP_SECONDS);

    root_frame root_motion = {0.0, 0.0, 0.0};
    double root_motion_share = 0.0;
    channel_blend_weights blend_weights[ANIM_CHANNEL_COUNT]; /* the step's, for evaluate_local */
    if (dt > 0.0)
        for (int c = 0; c < ANIM_CHANNEL_COUNT; ++c)
            advance_channel(&controller->channels[c], c, dt, result, c == 0 ? &root_motion : NULL,
                            c == 0 ? &root_motion_share : NULL, blend_weights[c]);
    else
        root_motion_share = body_root_motion_share(&controller->channels[0]);
    if (result) {
        result->translation[0] = saturate_float(root_motion.x);
        result->translation[1] = saturate_float(root_motion.y);
        result->yaw = saturate_float(root_motion.yaw);
        result->root_motion_share = (float)fmin(fmax(root_motion_share, 0.0), 1.0); /* the weights' rounding */
        for (int c = 0; c < ANIM_CHANNEL_COUNT; ++c)
            result->finished[c] = anim_controller_finished(controller, c);
    }

    evaluate_local(controller, dt > 0.0 ? (const channel_blend_weights *)blend_weights : NULL,
                   !controller->additive_off, local);
}

bool anim_controller_update(anim_controller *controller, double dt, anim_update_result *result)
{
    if (!controller || !(dt >= 0.0) || !isfinite(dt))
        return false;
    /* Up to a pass of joints (every humanoid), the local pose goes on the stack and pose_to_object reads
     * it from there: that runs about 10% faster than turning the object buffer into object space in
     * place (md5tool bench anim), which bigger skeletons do instead, with the same result. */
    joint_pose local[ANIM_PASS_JOINTS];
    joint_pose *target = controller->joint_count <= ANIM_PASS_JOINTS ? local : controller->object;
    update_local(controller, dt, result, target);
    return pose_to_object(controller->skeleton->parents, controller->joint_count, target, controller->object);
}

bool anim_controller_update_local(anim_controller *controller, double dt, anim_update_result *result,
                                  joint_pose *local)
{
    if (!controller || !local || local == controller->object || !(dt >= 0.0) || !isfinite(dt))
        return false;
    update_local(controller, dt, result, local);
    return true;
}

/* ---- inspection ---- */

bool anim_controller_local_pose(const anim_controller *controller, joint_pose *out)
{
    if (!controller || !out)
        return false;
    evaluate_local(controller, NULL, !controller->additive_off, out);
    return true;
}

bool anim_controller_local_pose_without_additive(const anim_controller *controller, joint_pose *out)
{
    if (!controller || !out)
        return false;
    evaluate_local(controller, NULL, false, out);
    return true;
}

const joint_pose *anim_controller_object_pose(const anim_controller *controller)
{
    return controller ? controller->object : NULL;
}

joint_pose *anim_controller_object_pose_to_edit(anim_controller *controller)
{
    return controller ? controller->object : NULL;
}

/* Grow box (min xyz, max xyz) to hold another. */
static void bounds_add(float box[2][3], float other[2][3])
{
    for (int k = 0; k < 3; ++k) {
        box[0][k] = fminf(box[0][k], other[0][k]);
        box[1][k] = fmaxf(box[1][k], other[1][k]);
    }
}

/* One visible layer's bounds where the pose shows it: the clip's box at the layer's time, moved by the
 * root travel the controller strips (the entity carries that instead). When root motion also strips the
 * turn, the box is made square around the root, wide enough for any heading. */
static void clip_bounds(const anim_clip *entry, double phase, float out[2][3])
{
    const clip *c = entry->clip;
    float time = (float)(phase * clip_duration(entry));
    pose_sample_bounds(c, time, entry->loop, out);
    joint_pose root;
    pose_sample_joint(c, time, entry->loop, 0, &root);
    /* The floor's two axes, in the clip's file axes. */
    int ground[2] = {file_axis(entry, 0), file_axis(entry, 1)};
    for (int corner = 0; corner < 2; ++corner)
        for (int k = 0; k < 2; ++k)
            out[corner][ground[k]] -= root.position[ground[k]];
    if (entry->root_mode == ANIM_ROOT_MOTION) {
        float reach = 0.0f;
        for (int corner = 0; corner < 2; ++corner)
            for (int k = 0; k < 2; ++k)
                reach = fmaxf(reach, fabsf(out[corner][ground[k]]));
        reach *= sqrtf(2.0f); /* a corner of the box can swing onto an axis */
        out[0][ground[0]] = out[0][ground[1]] = -reach;
        out[1][ground[0]] = out[1][ground[1]] = reach;
    }
}

/* A layer's bounds: its clip's, or the union of its blend's clips that have a weight. */
static void layer_bounds(const anim_layer *layer, float box[2][3])
{
    double phase = layer_phase(layer);
    if (layer->clip) {
        float clip_box[2][3];
        clip_bounds(layer->clip, phase, clip_box);
        bounds_add(box, clip_box);
        return;
    }
    float weights[ANIM_BLEND_MAX_CLIPS];
    anim_blend_weights(layer->blend, layer->point, weights);
    for (int i = 0; i < layer->blend->count; ++i) {
        if (!(weights[i] > 0.0f))
            continue;
        float clip_box[2][3];
        clip_bounds(layer->blend->clips[i],
                    cycles_phase(layer->blend->loop, blend_clip_cycles(layer, i, layer->cycles, layer->seconds)),
                    clip_box);
        bounds_add(box, clip_box);
    }
}

bool anim_controller_bounds(const anim_controller *controller, float out[2][3])
{
    if (!controller || !out)
        return false;
    float box[2][3] = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    bool snapshot_visible = false;
    for (int c = 0; c < ANIM_CHANNEL_COUNT; ++c) {
        const anim_channel *channel = &controller->channels[c];
        if (!(channel->weight > 0.0f))
            continue;
        float weights[ANIM_CHANNEL_LAYERS];
        current_weights(channel, weights);
        for (int k = 0; k < channel->layer_count; ++k) {
            if (!(weights[k] > 0.0f))
                continue;
            /* A snapshot has no clip bounds, and an additive clip's bounds are of its raw frames, not of
             * what it adds to: the joints as shown cover both. */
            if (layer_is_snapshot(&channel->layers[k]) || layer_additive(channel, &channel->layers[k])) {
                snapshot_visible = true;
                continue;
            }
            layer_bounds(&channel->layers[k], box);
        }
    }
    /* A frozen snapshot (or the bind pose before any clip) has no clip bounds: use its joints, padded for
     * the flesh around them. */
    if (snapshot_visible || box[0][0] > box[1][0]) {
        for (int i = 0; i < controller->joint_count; ++i) {
            const float *p = controller->object[i].position;
            float joint_box[2][3];
            for (int k = 0; k < 3; ++k) {
                joint_box[0][k] = p[k] - ANIM_JOINT_BOUNDS_PADDING;
                joint_box[1][k] = p[k] + ANIM_JOINT_BOUNDS_PADDING;
            }
            bounds_add(box, joint_box);
        }
    }
    memcpy(out, box, sizeof box);
    return true;
}

int anim_controller_layer_count(const anim_controller *controller, int channel)
{
    return valid_channel(controller, channel) ? controller->channels[channel].layer_count : 0;
}

/* A layer as anim_layer_info says, with its blend's weights; a blend's lead clip and time only when `whole`
 * (they take the blend's duration). */
static int layer_info(const anim_controller *controller, int channel, int index, anim_layer_info *out,
                      float blend_weights[ANIM_BLEND_MAX_CLIPS], bool whole)
{
    if (!valid_channel(controller, channel) || !out || !blend_weights || index < 0 ||
        index >= controller->channels[channel].layer_count)
        return -1;
    const anim_channel *c = &controller->channels[channel];
    const anim_layer *layer = &c->layers[index];
    float weights[ANIM_CHANNEL_LAYERS];
    current_weights(c, weights);
    /* A blend's lead clip and time from one look at its weights. */
    const anim_clip *lead = layer->clip;
    double time = 0.0;
    if (layer->blend) {
        anim_blend_weights(layer->blend, layer->point, blend_weights);
        lead = NULL;
        if (whole) {
            lead = layer->blend->clips[anim_blend_heaviest(layer->blend, blend_weights)];
            time = layer_phase(layer) * anim_blend_duration(layer->blend, blend_weights);
        }
    } else if (!layer_is_snapshot(layer)) {
        time = layer_phase(layer) * clip_duration(layer->clip);
    }
    *out = (anim_layer_info){
        .clip = lead,
        .blend = layer->blend,
        .point = {layer->point[0], layer->point[1]},
        .time = time,
        .cycles = layer->cycles,
        .speed = layer->speed,
        .fade = layer->fade,
        .weight = weights[index],
        .finished = layer_finished(layer),
        .moves_entity = layer->moves_entity,
    };
    return layer->blend ? layer->blend->count : 0;
}

bool anim_controller_layer(const anim_controller *controller, int channel, int index, anim_layer_info *out)
{
    float blend_weights[ANIM_BLEND_MAX_CLIPS];
    return layer_info(controller, channel, index, out, blend_weights, true) >= 0;
}

int anim_controller_layer_weighted(const anim_controller *controller, int channel, int index, anim_layer_info *out,
                                   float blend_weights[ANIM_BLEND_MAX_CLIPS])
{
    return layer_info(controller, channel, index, out, blend_weights, false);
}

float anim_controller_channel_weight(const anim_controller *controller, int channel)
{
    return valid_channel(controller, channel) ? controller->channels[channel].weight : 0.0f;
}

bool anim_controller_finished(const anim_controller *controller, int channel)
{
    if (!valid_channel(controller, channel) || controller->channels[channel].layer_count == 0)
        return false;
    const anim_channel *c = &controller->channels[channel];
    return layer_finished(&c->layers[c->layer_count - 1]);
}

int anim_controller_layer_blend_weights(const anim_controller *controller, int channel, int index,
                                        float weights[ANIM_BLEND_MAX_CLIPS])
{
    if (!valid_channel(controller, channel) || !weights || index < 0 ||
        index >= controller->channels[channel].layer_count || !controller->channels[channel].layers[index].blend)
        return 0;
    const anim_layer *layer = &controller->channels[channel].layers[index];
    anim_blend_weights(layer->blend, layer->point, weights);
    return layer->blend->count;
}
