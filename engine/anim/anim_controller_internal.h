/* anim_controller_internal: what the controller's files share (anim_controller.c: creation, playing and
 * inspection; anim_controller_evaluate.c: snapshots and the pose of the layers; anim_controller_update.c: root
 * motion, events and the step). Not for use outside engine/anim. */
#ifndef MARIONETTE_ANIM_CONTROLLER_INTERNAL_H
#define MARIONETTE_ANIM_CONTROLLER_INTERNAL_H

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

typedef struct anim_channel {
    anim_layer layers[ANIM_CHANNEL_LAYERS];
    short layer_count;
    bool weight_target;     /* overlays fade towards 0 or 1 */
    bool snapshot_additive; /* the frozen snapshot holds deltas (it froze a channel of additive clips) */
    float weight;        /* overlay channels fade as a whole; channel 0 is always 1 */
    float weight_rate;   /* weight per second */
    float amount;        /* overlays: anim_controller_set_overlay_weight, 0..1 (1 at creation) */
    anim_snapshot_joint *snapshot;
    const float *mask;   /* overlays only: the controller's own (the block's end) or, with shared masks, the
                          * caller's; NULL: none yet, the channel shows nothing */
} anim_channel;

struct anim_controller {
    const skeleton *skeleton;
    int joint_count;
    float time_scale;
    anim_channel channels[ANIM_CHANNEL_COUNT];
    joint_pose *object; /* skeletons over ANIM_PASS_JOINTS: first the local pose on its way there */
    uint32_t bytes;     /* anim_controller_bytes: a controller is far below 4 GB (its joints are counted) */
    bool additive_off;  /* anim_controller_set_additive(false): the additive overlays are not added */
    bool shared_masks;  /* anim_controller_desc.shared_masks */
};

/* ---- small helpers ---- */

static inline bool valid_channel(const anim_controller *controller, int channel)
{
    return controller && channel >= 0 && channel < ANIM_CHANNEL_COUNT;
}

static inline bool valid_fade(float seconds)
{
    return seconds >= 0.0f && isfinite(seconds);
}

/* A whole number of cycles as a long long: defined for any double (NaN gives 0). */
static inline long long cycle_count(double cycles)
{
    if (!(cycles > -ANIM_CYCLE_COUNT_LIMIT))
        return cycles < 0.0 ? (long long)-ANIM_CYCLE_COUNT_LIMIT : 0;
    return (long long)fmin(cycles, ANIM_CYCLE_COUNT_LIMIT);
}

/* A double as a float, saturated at the largest finite float instead of the undefined conversion. */
static inline float saturate_float(double value)
{
    if (!(fabs(value) <= FLT_MAX))
        return isnan(value) ? 0.0f : value > 0.0 ? FLT_MAX : -FLT_MAX;
    return (float)value;
}

/* Seconds per cycle: a loop's cycle, or a one-shot's run to its last frame. */
static inline double clip_duration(const anim_clip *clip)
{
    return clip->loop ? clip->clip->loop_duration : clip->clip->once_duration;
}

static inline bool layer_is_snapshot(const anim_layer *layer)
{
    return !layer->clip && !layer->blend;
}

static inline bool layer_loops(const anim_layer *layer)
{
    return layer->clip ? layer->clip->loop : layer->blend && layer->blend->loop;
}

static inline int layer_sync_group(const anim_layer *layer)
{
    return layer->clip ? layer->clip->sync_group : layer->blend ? layer->blend->sync_group : -1;
}

static inline bool layer_finished(const anim_layer *layer)
{
    return !layer_is_snapshot(layer) && !layer_loops(layer) && layer->cycles >= 1.0;
}

/* Where in its cycle: a loop's phase in [0, 1), a one-shot's position 0..1. Every clip of a blend is here. */
static inline double layer_phase(const anim_layer *layer)
{
    return layer_loops(layer) ? layer->cycles - floor(layer->cycles) : fmin(layer->cycles, 1.0);
}

/* A blend layer's weights per clip at its point (anim_blend_weights); nothing for another layer. Worked out
 * once per layer where several things need them: they are a good part of a step's cost in a crowd. */
static inline void layer_blend_weights(const anim_layer *layer, float weights[ANIM_BLEND_MAX_CLIPS])
{
    if (layer->blend)
        anim_blend_weights(layer->blend, layer->point, weights);
}

/* Seconds per cycle: the clip's, or the blend's at its point (0 for the snapshot); weights as
 * layer_blend_weights gives them. */
static inline double layer_duration(const anim_layer *layer, const float weights[ANIM_BLEND_MAX_CLIPS])
{
    if (layer->clip)
        return clip_duration(layer->clip);
    return layer->blend ? anim_blend_duration(layer->blend, weights) : 0.0;
}

/* The clip whose marks a layer fires and whose name it shows: its clip, or its blend's heaviest. */
static inline const anim_clip *layer_lead_clip(const anim_layer *layer, const float weights[ANIM_BLEND_MAX_CLIPS])
{
    if (!layer->blend)
        return layer->clip;
    return layer->blend->clips[anim_blend_heaviest(layer->blend, weights)];
}

/* Weight of each layer in its channel, given each layer's fade: the top layer has its fade, and each
 * layer below shares what the layers above leave, so the weights sum to 1 by construction. */
static inline void stack_weights(const float *fades, int layer_count, float *weights)
{
    float remaining = 1.0f;
    for (int i = layer_count - 1; i >= 0; --i) {
        float fade = i == 0 ? 1.0f : fades[i];
        weights[i] = remaining * fade;
        remaining *= 1.0f - fade;
    }
}

static inline void current_weights(const anim_channel *channel, float *weights)
{
    float fades[ANIM_CHANNEL_LAYERS];
    for (int i = 0; i < channel->layer_count; ++i)
        fades[i] = channel->layers[i].fade;
    stack_weights(fades, channel->layer_count, weights);
}

/* ---- root helpers (sampling strips the root as root motion reads it) ---- */

static inline double wrap_angle(double angle)
{
    while (angle > GLM_PI)
        angle -= 2.0 * GLM_PI;
    while (angle <= -GLM_PI)
        angle += 2.0 * GLM_PI;
    return angle;
}

/* The heading of a rotation: where it turns the +X axis (the way the character faces), seen from above. */
static inline double heading_of(const float q[4])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    return atan2(2.0 * (x * y + w * z), 1.0 - 2.0 * (y * y + z * z));
}

/* The file axis of canonical axis k (0 forward, 1 left, 2 up) of a clip's character: the floor of a Y-up
 * file is not its X and Y. */
static inline int file_axis(const anim_clip *clip, int k)
{
    return clip->import_axes.sign[0] != 0 ? clip->import_axes.from[k] : k;
}

/* A root rotation in canonical axes (and back): turning the axes turns the quaternion's axis; w stays. */
static inline void rotation_to_canonical(const anim_clip *clip, const float in[4], float out[4])
{
    anim_axes_to_canonical(&clip->import_axes, in, out);
    out[3] = in[3];
}

static inline void rotation_from_canonical(const anim_clip *clip, const float in[4], float out[4])
{
    anim_axes_from_canonical(&clip->import_axes, in, out);
    out[3] = in[3];
}

/* Where clip i of a blend layer is: the layer's cycles for a clip in phase, else its own loops at the
 * layer's `seconds`. */
static inline double blend_clip_cycles(const anim_layer *layer, int i, double cycles, double seconds)
{
    if (anim_blend_clip_in_phase(layer->blend, i))
        return cycles;
    double duration = clip_duration(layer->blend->clips[i]);
    return duration > 0.0 ? seconds / duration : 0.0;
}

static inline double cycles_phase(bool loop, double cycles)
{
    return loop ? cycles - floor(cycles) : fmin(cycles, 1.0);
}

/* What the clip's root mode leaves of the root in a sampled pose: in place, its height and turn; root
 * motion, its height and tilt, since the entity carries the travel and the heading. */
static inline void strip_root(const anim_clip *clip, joint_pose *pose)
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

/* A channel's blend layers' weights at their points, as advance_channel works them out for the step (row k
 * for layer k; rows of other layers unused), so that evaluating the pose does not work them out again. A
 * NULL table: each stage works out its own. */
typedef float channel_blend_weights[ANIM_CHANNEL_LAYERS][ANIM_BLEND_MAX_CLIPS];

/* ---- across the files ---- */

/* Whether a layer of the channel gives deltas (anim_controller_evaluate.c). */
bool controller_layer_additive(const anim_channel *channel, const anim_layer *layer);
/* The local pose of the layers as they stand (anim_controller_evaluate.c: see there). */
void controller_evaluate_local(const anim_controller *controller, const channel_blend_weights *known, bool additive,
                               joint_pose *out);
/* Freeze what the channel shows into its snapshot (anim_controller_evaluate.c). */
void controller_freeze_channel(const anim_controller *controller, anim_channel *channel);

#endif
