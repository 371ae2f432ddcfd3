/* anim_controller: one entity's animation playback, in the shape of id Tech 4's animator. Per entity it
 * holds only playback state (which clips play, their times, speeds and fade weights) and its output
 * object pose; the clips, their settings and the skeleton (bind pose included) are shared and never
 * written.
 * Knows nothing of SDL, GL, ini files or the state machine that drives it.
 *
 * Channels. Channel 0 is the full body: a stack of crossfading layers. Channels 1.. are overlays (an
 * upper-body wave over a walk): a stack of their own, blended over what is below with a per-joint mask,
 * the whole channel fading in and out with one weight.
 *
 * Additive. An overlay channel playing additive clips (anim_clip.additive: deltas from a reference pose,
 * clips.ini `additive`) adds them on top of everything below it (the body and lower overlay channels),
 * joint i by weight x overlay weight x mask[i] (pose_add): a lean or a breath over whatever plays. Its
 * layers crossfade as deltas; a crossfade between an additive clip and an ordinary one on one channel
 * blends "below plus the whole delta" with the ordinary pose, so nothing pops. The body (channel 0)
 * refuses additive clips: it is what they are added to.
 *
 * Crossfades never pop. play() puts the new clip on top of its channel's stack with fade 0, rising to 1
 * over the fade time; everything below keeps playing and is faded out as a group, so the channel is
 *   pose = lerp(... lerp(lerp(layer 0, layer 1, fade 1), layer 2, fade 2) ..., top, fade top)
 * and a play() that interrupts a fade still in flight starts from exactly the pose on screen. A layer
 * whose weight reaches 0 is dropped. If a channel's stack is full, what it shows is captured into a frozen
 * snapshot layer first (its clips then stop moving and stop giving root motion and events, but the pose
 * stays continuous: the snapshot is stored at 16 bytes a joint, within 0.004 degrees and ~1/32768 of each
 * joint's largest coordinate of what was on screen).
 *
 * Frame: anim_controller_update(dt) advances every layer (sync groups share one normalized phase),
 * fires events crossed during the step (one per foot contact however many layers carry it, see
 * "Events"), extracts the root motion of the layers that move the entity (anim_play_options.moves_entity)
 * and how much of it they move, samples and blends in local space, applies overlays, and writes the
 * object pose. No allocation after anim_controller_create; the sampling scratch and the local pose are
 * on the stack (about 10 KB), not in the entity. */
#ifndef MARIONETTE_ANIM_CONTROLLER_H
#define MARIONETTE_ANIM_CONTROLLER_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/joint_pose.h"
#include "../model/model.h"
#include "anim_blend.h"
#include "anim_clip.h"

enum {
    ANIM_CHANNEL_COUNT = 3,   /* 0: full body; 1 and 2: masked overlays */
    ANIM_CHANNEL_LAYERS = 4,  /* layers crossfading in one channel at once (a snapshot counts as one) */
    ANIM_EVENTS_MAX = 16,     /* events one update reports; more are counted in events_dropped */
};

typedef struct anim_controller anim_controller;

/* Zero means default everywhere. */
typedef struct anim_controller_desc {
    const skeleton *skeleton; /* required; shared and must outlive the controller */
    /* The overlay channels' masks are the caller's (anim_controller_share_mask) instead of copies in the
     * controller: the entities of one character point at its masks (anim_character.branch_masks), one copy
     * for a crowd instead of one each. anim_controller_set_mask and _mask_branch then refuse. */
    bool shared_masks;
} anim_controller_desc;

/* Memory per entity, all allocated here in one block: 88 bytes per joint (the object pose, 32; a frozen
 * snapshot per channel, 3 x 16; a mask weight per overlay channel, 2 x 4, none with shared masks) plus 896
 * bytes of layer state (12 layers of 64 bytes: a layer playing a blend space keeps only its point and a
 * clock for its clips out of phase, the weights are computed from the point; and whether its root motion
 * moves the entity). 31 joints: 3,648 bytes, 3,392 with shared masks; 33: 3,808 and 3,552. NULL when desc
 * or its skeleton is invalid or memory runs out. */
anim_controller *anim_controller_create(const anim_controller_desc *desc);
/* Hot reload: point every layer at the clip `lookup` returns for it (the same name in a newly loaded
 * library) and every blend layer at the blend `blend_lookup` returns, keeping layer times (as loops and
 * phase), blend points, fades, channel weights, masks and snapshots, so a reload in the middle of a
 * crossfade or a blend carries on without a jump. `s` is the new skeleton and must have the old one's
 * hierarchy (joint count, parents). Returns false and changes nothing when it does not, when a playing
 * clip has no counterpart, or a playing blend none of the same dimensions, looping and additivity
 * (blend_lookup may be NULL when no blend plays). */
typedef const anim_clip *(*anim_clip_lookup)(void *user, const anim_clip *old_clip);
typedef const anim_blend *(*anim_blend_lookup)(void *user, const anim_blend *old_blend);
bool anim_controller_retarget(anim_controller *controller, const skeleton *s, anim_clip_lookup lookup,
                              anim_blend_lookup blend_lookup, void *user);

void anim_controller_destroy(anim_controller *controller);
size_t anim_controller_bytes(const anim_controller *controller);
/* The same by part (all zero for NULL): they add up to anim_controller_bytes. */
typedef struct anim_controller_memory {
    size_t layers;      /* the controller's record: its channels' layers, fades, weights (32-byte rounded) */
    size_t object_pose; /* the pose the last update made, 32 bytes a joint */
    size_t snapshots;   /* each channel's frozen snapshot, 16 bytes a joint */
    size_t masks;       /* each overlay channel's mask, 4 bytes a joint (and the block's rounding) */
} anim_controller_memory;
anim_controller_memory anim_controller_memory_parts(const anim_controller *controller);

typedef struct anim_play_options {
    float speed;  /* playback speed scale, >= 0 (0 means 1; use anim_controller_set_speed for a stop) */
    bool restart; /* play even when this clip is already on top of the channel and not finished */
    /* Channel 0 only: the clip moves the entity. Its root motion (none for an in-place clip) goes into
     * anim_update_result's translation and yaw, and its weight into root_motion_share. false: the game
     * moves the entity, and a root-motion clip plays in place without handing its travel over. */
    bool moves_entity;
} anim_play_options;

/* Start `clip` on `channel` with a crossfade of fade_seconds (0: cut). options may be NULL.
 * A clip already on top of the channel and still playing is left alone unless options->restart, but for
 * options->moves_entity, which it takes at once.
 * A looping clip in a sync group takes the normalized phase of the heaviest layer of its group in the
 * channel, so feet stay in step. On an overlay channel that is faded out, the channel fades in instead.
 * False (nothing changes) on bad arguments or a clip whose hierarchy differs from the skeleton. */
bool anim_controller_play(anim_controller *controller, int channel, const anim_clip *clip, float fade_seconds,
                          const anim_play_options *options);

/* Blend spaces (anim_blend.h) play wherever a clip does, as one layer: its clips at one normalized phase,
 * weighted at `point` (x, y; y ignored in 1D). The layer's cycle lasts the weighted mean of its clips'
 * cycles; its events are those of its heaviest clip (with the layer's weight); its root motion is each
 * root-motion clip's by its weight; its bounds are the union of the clips with a weight. Crossfades, sync
 * groups (the blend's sync_group), masks and additive overlays work as for a clip. Same rules as play()
 * for a blend already on top; false also for an invalid blend (anim_blend_valid) or a non-finite point.
 * The point is not faded: set it every frame with anim_controller_set_blend_point as the parameters move
 * (the weights follow it continuously). */
bool anim_controller_play_blend(anim_controller *controller, int channel, const anim_blend *blend,
                                const float point[2], float fade_seconds, const anim_play_options *options);
/* Move every layer of the channel that plays `blend` to point. False for bad arguments. */
bool anim_controller_set_blend_point(anim_controller *controller, int channel, const anim_blend *blend,
                                     const float point[2]);

/* Fade an overlay channel out over fade_seconds; its layers are dropped when it reaches 0. Channel 0 is
 * the body and cannot be stopped (false). */
bool anim_controller_stop(anim_controller *controller, int channel, float fade_seconds);

/* Per-joint weights in [0, 1] of an overlay channel; all 0 at creation (an overlay shows nothing until
 * it is given a mask). False for a controller with shared masks. */
bool anim_controller_set_mask(anim_controller *controller, int channel, const float *joint_weights);

/* The overlay channel's mask is joint_weights (joint_count of them in [0, 1]) from now on: for a controller
 * with shared masks the caller's array itself, which must stay unchanged while the channel uses it (NULL:
 * none, the channel shows nothing); for one with its own masks, copied as anim_controller_set_mask does. */
bool anim_controller_share_mask(anim_controller *controller, int channel, const float *joint_weights);

/* Set mask weight `weight` on the joint named joint_name and all its descendants ("spine.02": the upper
 * body; "clavicle.R": the right arm), leaving other joints as they are. False if there is no such joint. */
bool anim_controller_mask_branch(anim_controller *controller, int channel, const char *joint_name, float weight);
/* The overlay channel's mask now (NULL: none), and whether the controller's masks are shared. */
const float *anim_controller_mask(const anim_controller *controller, int channel);
bool anim_controller_masks_shared(const anim_controller *controller);
/* The weights anim_controller_mask_branch(joint, 1) gives on an all-0 mask, into out (joint_count floats): 1 on
 * the joint and its descendants, 0 elsewhere. */
void anim_controller_branch_weights(const skeleton *s, int joint, float *out);

/* How much of an overlay channel shows, 0..1, on top of its fade (1 at creation): an additive layer's
 * weight from a game parameter (a lean by the turn rate), or an ordinary overlay at part strength. It
 * is not faded: set it every frame if it follows a parameter. 0 shows the pose below bit for bit. False
 * for channel 0 or a weight outside [0, 1] (NaN included). */
bool anim_controller_set_overlay_weight(anim_controller *controller, int channel, float weight);
float anim_controller_overlay_weight(const anim_controller *controller, int channel);

/* Speed scale of every layer of a channel (>= 0). */
bool anim_controller_set_speed(anim_controller *controller, int channel, float speed);

/* For locomotion: each layer of the channel whose clip travels (ground_speed > 0) plays at
 * meters_per_second / its ground speed in m/s (anim_clip_ground_speed_metres), and each blend layer at
 * meters_per_second / anim_blend_ground_speed at its point, so its feet do not slide at that speed; other
 * layers keep theirs. */
bool anim_controller_set_ground_speed(anim_controller *controller, int channel, float meters_per_second);

/* Scales every update's dt: 1 normal, 0.25 slow motion, 0 paused (times, fades, events and root motion all
 * stop). Single-stepping is anim_controller_update with the step's dt. */
void anim_controller_set_time_scale(anim_controller *controller, float time_scale);

/* Whether the additive overlays are added to the pose (true at creation): a caller that leaves them out for
 * an entity too small on screen to show a lean or a breath (the crowd's significance tiers) turns them off.
 * Their layers go on in time, fading and firing events as before, and show again where they would be. */
void anim_controller_set_additive(anim_controller *controller, bool on);
bool anim_controller_additive(const anim_controller *controller);

/* Events: one per contact, not one per layer.
 * A crossfade plays two clips at once, and both carry the marks of the same foot contact: walk's
 * footstep.L and run's footstep.L are one heel strike, and a game wants one footstep sound for it, as loud
 * as the body is in those clips. So within a channel, marks of the same name on looping layers of the same
 * sync group (whose phases are locked) that sit within ANIM_EVENT_SAME_CONTACT of a cycle of each other
 * are one contact, and it fires once:
 *   - when: at the crossing of its newest layer (the one play() added last) that crossed it while in the
 *     channel; with marks at the same phase (walk footstep.R@15 of 30 frames, run footstep.R@10.5 of 21)
 *     that is the moment of every member's crossing. Newest rather than heaviest so that nothing is lost
 *     or doubled when the weights cross over: which layer is newest changes only when play() adds one.
 *   - weight: the summed weight of the layers of that contact visible then, so a 50/50 walk/run fade
 *     gives one footstep at 1.0, and a walk at 0.3 fading in over idle gives one at 0.3.
 *   - clip and cycle: the heaviest of those layers' (the clip the contact mostly looks like).
 * A layer fading out at 0.01 adds 0.01 to the contact and fires nothing of its own. Everything else fires
 * once per crossing with its own layer's weight: one-shots (a jump's landing), clips without a sync group
 * or in different groups (idle -> wave fires both clips' marks), marks of another name, and marks further
 * apart than ANIM_EVENT_SAME_CONTACT (two contacts). A layer joining between two marks of one contact is
 * taken into account. With marks a little apart (not at the same phase) two things are left: when a full
 * stack is frozen into a snapshot, the frozen layers are forgotten, so a contact they fired may fire again
 * from the new layer; and a contact whose newest member is dropped (another clip finished fading in)
 * between the older member's mark and its own is lost. Put a contact's marks at the same phase. */
#define ANIM_EVENT_SAME_CONTACT 0.0625 /* cycles: a sixteenth, about 2 frames of a 30-frame walk cycle */

typedef struct anim_event {
    const char *name;       /* the mark's name, owned by the clip */
    const anim_clip *clip;  /* for a shared contact, the heaviest layer's clip */
    int channel;
    long long cycle;        /* loops completed by that layer when the mark was crossed (0 for one-shots) */
    float weight;           /* in the final pose then (channel weight included): the layer's, or for a
                             * shared contact the sum of its layers' (0..1); scale a sound's volume by it */
    float step_fraction;    /* where in this update it happened: 0 start, 1 end (for timing sounds) */
} anim_event;

typedef struct anim_update_result {
    /* Root motion of this step in the entity's own space (its +X forward, Z up), in metres: move the
     * entity by translation turned by its current facing, then turn it by yaw (radians, about Z, positive
     * left). The clip's file units and axes become these through its anim_clip's import_scale and axes.
     * The weighted sum over channel 0's layers played with moves_entity (their mean weight over the
     * step); in-place clips count with zero motion, and layers played without it not at all. */
    float translation[3];
    float yaw;
    /* How much of the entity the clips move, 0..1: the summed weight, over the step, of channel 0's layers
     * played with moves_entity, travelling or not (a finished one-shot holds the entity still). The game
     * moves the entity by its own displacement times (1 - root_motion_share), plus the root motion above,
     * so a crossfade between a clip the game moves and one that moves itself hands the body over without
     * a jump. A frozen snapshot counts as moved by the game. */
    float root_motion_share;
    /* Every event crossed during the step, in the order they happened, once per crossing (once per
     * contact, see "Events" above): a step over a loop boundary, or over several whole loops, fires each.
     * Fading layers fire too, with their weight, so a caller can skip faint ones (a footstep sound at
     * weight < 0.5, say). */
    int event_count;
    int events_dropped;     /* events past ANIM_EVENTS_MAX (the latest ones are dropped) */
    anim_event events[ANIM_EVENTS_MAX]; /* the first event_count; the rest are not written */
    /* The top layer of each channel is a one-shot holding its last frame. */
    bool finished[ANIM_CHANNEL_COUNT];
} anim_update_result;

/* Advance by dt seconds (>= 0, scaled by the time scale) and write the poses. result may be NULL. */
bool anim_controller_update(anim_controller *controller, double dt, anim_update_result *result);

/* anim_controller_update but for the last turn to object space: the step's local pose goes to `local`
 * (the skeleton's joint_count joints, the caller's), and the caller turns it into the object pose
 * (pose_to_object of the skeleton's parents into anim_controller_object_pose_to_edit) before anything
 * reads that, which gives what anim_controller_update gives, bit for bit. For a caller that turns several
 * entities' poses together (pose_to_object_pair). local must not be the controller's object pose. */
bool anim_controller_update_local(anim_controller *controller, double dt, anim_update_result *result,
                                  joint_pose *local);

/* The object-space pose written by the last update (the bind pose before the first), for pose_palette:
 * joint_count entries, owned by the controller, valid until the next update. */
const joint_pose *anim_controller_object_pose(const anim_controller *controller);
/* The same buffer, for the stages that rewrite the pose after the controller and before the palette
 * (look-at: anim_look; the foot lock: anim_foot_lock): what they write is what is drawn, until the next
 * update writes the pose again. anim_controller_local_pose and anim_controller_bounds know nothing of
 * such corrections. */
joint_pose *anim_controller_object_pose_to_edit(anim_controller *controller);

/* The local (parent-relative) pose, for blending further: not kept per entity (it would cost 32 bytes a
 * joint), but sampled again from the layers as they stand into out (joint_count entries). That is bit for
 * bit the pose the last update turned into object space, unless play, stop, a mask, an overlay weight
 * or a retarget has changed the layers since (the additive overlays added as anim_controller_set_additive
 * says). False on NULL arguments. */
bool anim_controller_local_pose(const anim_controller *controller, joint_pose *out);
/* The same without the additive overlays (the layers blended and the replacing overlays masked in, before
 * any lean or breath is added): what a trace shows as the blend stage. */
bool anim_controller_local_pose_without_additive(const anim_controller *controller, joint_pose *out);

/* The box (min xyz, max xyz, object space of the pose as shown) that holds the entity's current pose, for
 * culling: each visible layer's clip bounds (md5anim `bounds`, interpolated like the pose) moved by the
 * root travel the controller strips, all unioned. A root-motion layer's box is squared around the root so
 * any stripped turn stays inside. A visible frozen snapshot, or the bind pose before any clip, adds its
 * joints padded by ANIM_JOINT_BOUNDS_PADDING. */
#define ANIM_JOINT_BOUNDS_PADDING 0.3f
bool anim_controller_bounds(const anim_controller *controller, float out[2][3]);

/* Inspection, for state machines, HUDs and tests. Layers are listed bottom (oldest) to top (newest). */
typedef struct anim_layer_info {
    const anim_clip *clip;  /* NULL for a frozen snapshot; a blend's heaviest clip at its point */
    const anim_blend *blend; /* the blend space the layer plays, or NULL */
    float point[2];         /* a blend's point */
    double time;            /* seconds into the current cycle (one-shots: into the clip) */
    double cycles;          /* normalized position: loops completed + phase; one-shots 0..1 */
    float speed;
    float fade;             /* its own fade-in, 0..1 */
    float weight;           /* its share of the channel; a channel's weights sum to 1 */
    bool finished;          /* a one-shot holding its last frame */
    bool moves_entity;      /* played with anim_play_options.moves_entity */
} anim_layer_info;

int anim_controller_layer_count(const anim_controller *controller, int channel);
/* A blend layer's weight per clip of its blend at its point: the blend's clip count, 0 for another layer. */
int anim_controller_layer_blend_weights(const anim_controller *controller, int channel, int index,
                                        float weights[ANIM_BLEND_MAX_CLIPS]);
bool anim_controller_layer(const anim_controller *controller, int channel, int index, anim_layer_info *out);
/* Both of the above in one call, a blend's weights worked out once (the foot lock asks every step): out as
 * anim_controller_layer writes it, except that a blend layer's clip and time (its heaviest clip, and the
 * time that takes the blend's duration) are left NULL and 0: with the weights and the cycles the caller
 * has what they say. weights as anim_controller_layer_blend_weights does. Returns the blend's clip count,
 * 0 for a clip or a snapshot layer (weights untouched), -1 for bad arguments (nothing written). */
int anim_controller_layer_weighted(const anim_controller *controller, int channel, int index, anim_layer_info *out,
                                   float weights[ANIM_BLEND_MAX_CLIPS]);
float anim_controller_channel_weight(const anim_controller *controller, int channel);
bool anim_controller_finished(const anim_controller *controller, int channel);

#endif
