#include "animator.h"
#include "anim_prefetch_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../base/prefetch.h"
#include "../pose/pose.h"
#include "config/anim_config.h"

/* The overlay the current state asked for, and where it plays. Kept apart from the controller's own
 * bookkeeping because the controller cannot say which state put a clip on a channel or whether it was
 * already stopped. */
typedef struct animator_overlay {
    int clip;       /* index into the character's clips; -1 when the state has no overlay */
    int blend;      /* index into the character's blends when the overlay is one (clip is its first), or -1 */
    int root_joint; /* the branch it drives */
    int channel;    /* 1 or 2: the two overlay channels take turns, see animator.h */
    bool playing;   /* started and not yet stopped */
    bool finished;  /* a one-shot overlay reached its end; stays set while states keep this overlay */
    float fade;     /* the fade it came in with, reused to fade it out when it finishes */
} animator_overlay;

struct animator {
    const anim_character *character;
    anim_controller *controller;
    state_machine_instance instance;
    animator_overlay overlay;
    float time_scale;
    anim_look_state look; /* 36 bytes: what it looks at, and how far it has turned to it */
    anim_foot_lock_state feet; /* animator_lock_feet */
    const animator_stages *capture; /* animator_capture_stages, or NULL */
};

/* ---- small helpers ---- */

static const state_machine_state *current_state(const animator *animator)
{
    return &animator->character->machine.states[animator->instance.state];
}

static int other_overlay_channel(int channel)
{
    return channel == 1 ? 2 : 1;
}

static const anim_blend *blend_at(const anim_character *character, int index)
{
    return index >= 0 && index < character->blend_count ? &character->blends[index] : NULL;
}

/* Where the parameters put a blend now: its x parameter's value, and its y parameter's in 2D. */
static void blend_point(const animator *animator, const anim_blend *blend, float point[2])
{
    const state_machine_definition *machine = &animator->character->machine;
    for (int axis = 0; axis < 2; ++axis) {
        int parameter = blend->parameters[axis];
        point[axis] = parameter >= 0 && parameter < machine->parameter_count ? animator->instance.values[parameter] : 0.0f;
    }
}

/* What a channel's top layer plays, and its normalized position: loops completed plus phase for a cycle,
 * 0..1 for a one-shot; -1 when the channel plays nothing. */
typedef struct animator_top_layer {
    const anim_clip *clip;   /* NULL for a blend or nothing */
    const anim_blend *blend; /* NULL for a clip or nothing */
    double cycles;
    double duration;         /* seconds per cycle now */
} animator_top_layer;

static animator_top_layer top_layer(const anim_controller *controller, int channel)
{
    anim_layer_info info;
    int count = anim_controller_layer_count(controller, channel);
    if (count == 0 || !anim_controller_layer(controller, channel, count - 1, &info))
        return (animator_top_layer){.cycles = -1.0};
    animator_top_layer top = {.clip = info.blend ? NULL : info.clip, .blend = info.blend, .cycles = info.cycles};
    double phase = info.clip && (info.blend ? info.blend->loop : info.clip->loop) ? info.cycles - floor(info.cycles)
                                                                                    : fmin(info.cycles, 1.0);
    top.duration = phase > 0.0 ? info.time / phase : 0.0;
    return top;
}

/* `end` for the state machine: the state is a one-shot and its clip, on top of the body, has played once.
 * A looping clip in a state with loop = false counts as ended after one cycle (it keeps cycling on screen
 * until a transition takes the entity elsewhere). */
static bool state_clip_finished(const animator *animator)
{
    const state_machine_state *state = current_state(animator);
    if (state->loop)
        return false;
    animator_top_layer top = top_layer(animator->controller, ANIMATOR_BODY_CHANNEL);
    bool state_plays = state->blend >= 0 ? top.blend == blend_at(animator->character, state->blend)
                                         : top.clip == &animator->character->clips[state->clip];
    return state_plays && top.cycles >= 1.0;
}

/* ---- overlays ---- */

/* Point the overlay channel's mask at one branch only: the character's mask of that branch, shared by its
 * entities, or (a character without them) everything else off first in the controller's own, since
 * anim_controller_mask_branch leaves the joints outside the branch as they were. */
static bool mask_overlay(animator *animator, int channel, int root_joint)
{
    const skeleton *skeleton = &animator->character->model->skeleton;
    if (root_joint < 0 || root_joint >= skeleton->joint_count)
        return false;
    if (anim_controller_masks_shared(animator->controller)) /* the character's own copy, shared */
        return animator->character->branch_masks[root_joint] &&
               anim_controller_share_mask(animator->controller, channel, animator->character->branch_masks[root_joint]);
    return anim_controller_mask_branch(animator->controller, channel, skeleton->names[0], 0.0f) &&
           anim_controller_mask_branch(animator->controller, channel, skeleton->names[root_joint], 1.0f);
}

static void stop_overlay(animator *animator, float fade)
{
    if (animator->overlay.playing)
        anim_controller_stop(animator->controller, animator->overlay.channel, fade);
    animator->overlay.playing = false;
}

/* Give the entity the overlay of the state it just entered, over `fade` seconds. */
static void enter_overlay(animator *animator, const state_machine_state *state, float fade)
{
    animator_overlay *overlay = &animator->overlay;
    bool same = overlay->clip >= 0 && overlay->clip == state->overlay_clip && overlay->blend == state->overlay_blend &&
                overlay->root_joint == state->overlay_root_joint;
    if (same)
        return; /* it carries on across the transition, finished or not */
    stop_overlay(animator, fade);
    overlay->clip = overlay->blend = -1;
    overlay->finished = false;
    if (state->overlay_clip < 0 || state->overlay_clip >= animator->character->clip_count)
        return;

    int channel = other_overlay_channel(overlay->channel);
    anim_play_options options = {.restart = true};
    if (!mask_overlay(animator, channel, state->overlay_root_joint))
        return;
    const anim_blend *blend = blend_at(animator->character, state->overlay_blend);
    float point[2];
    if (blend)
        blend_point(animator, blend, point);
    if (blend ? !anim_controller_play_blend(animator->controller, channel, blend, point, fade, &options)
              : !anim_controller_play(animator->controller, channel, &animator->character->clips[state->overlay_clip],
                                      fade, &options))
        return;
    *overlay = (animator_overlay){
        .clip = state->overlay_clip,
        .blend = blend ? state->overlay_blend : -1,
        .root_joint = state->overlay_root_joint,
        .channel = channel,
        .playing = true,
        .fade = fade,
    };
}

/* The controller holds a finished one-shot's last frame for ever; an ordinary overlay is meant to go away
 * (an arm frozen in its last pose over a walking body). An additive one's last frame is a difference the
 * body below keeps moving under, so it stays: a lean that grows to its full angle and holds it. */
static void fade_out_finished_overlay(animator *animator)
{
    animator_overlay *overlay = &animator->overlay;
    if (!overlay->playing || !overlay->finished)
        return;
    const anim_blend *blend = blend_at(animator->character, overlay->blend);
    if (blend ? blend->additive : animator->character->clips[overlay->clip].additive)
        return;
    stop_overlay(animator, overlay->fade > 0.0f ? overlay->fade : ANIMATOR_OVERLAY_FADE_OUT_SECONDS);
}

/* ---- entering states ---- */

static state_machine_result current_playback(const animator *animator);

/* Play the current state's clip or blend on the body. */
static void play_state_body(animator *animator, float fade, const anim_play_options *options)
{
    const state_machine_state *state = current_state(animator);
    const anim_blend *blend = blend_at(animator->character, state->blend);
    if (blend) {
        float point[2];
        blend_point(animator, blend, point);
        anim_controller_play_blend(animator->controller, ANIMATOR_BODY_CHANNEL, blend, point, fade, options);
    } else {
        anim_controller_play(animator->controller, ANIMATOR_BODY_CHANNEL, &animator->character->clips[state->clip],
                             fade, options);
    }
}

/* Play the current state's clip or blend on the body with `fade`, and its overlay. */
static void enter_state(animator *animator, float fade, float speed_scale, bool restart)
{
    const state_machine_state *state = current_state(animator);
    anim_play_options options = {.speed = speed_scale, .restart = restart, .moves_entity = state->moved_by_clip};
    play_state_body(animator, fade, &options);
    /* play() reads a speed of 0 as "as authored"; a rate_from state at a standstill really means 0. */
    if (speed_scale == 0.0f)
        anim_controller_set_speed(animator->controller, ANIMATOR_BODY_CHANNEL, 0.0f);
    enter_overlay(animator, state, fade);
    /* A channel the overlay just took keeps its last weight until the next update: give it the state's. */
    if (animator->overlay.playing)
        anim_controller_set_overlay_weight(animator->controller, animator->overlay.channel,
                                           current_playback(animator).overlay_weight);
}

/* The current state's speed scale now: a blend state's from its blend's ground speed at the point the
 * parameters give (its reference moves with the point), any other as the state machine reports it. */
static float blend_speed_scale(const animator *animator, float machine_speed_scale)
{
    const state_machine_state *state = current_state(animator);
    const anim_blend *blend = blend_at(animator->character, state->blend);
    if (!blend || state->rate_parameter < 0)
        return machine_speed_scale;
    float point[2], weights[ANIM_BLEND_MAX_CLIPS];
    blend_point(animator, blend, point);
    anim_blend_weights(blend, point, weights);
    return state_machine_state_rate(&animator->character->machine, &animator->instance, state,
                                    anim_blend_ground_speed(blend, weights));
}

/* The current state's playback now, as state_machine_step would report it. The state machine keeps its
 * formula to itself, so ask it: a step of 0 seconds through a copy of the machine without transitions
 * changes nothing and reports the state's playback. Used on creation and reload, never per update. */
static state_machine_result current_playback(const animator *animator)
{
    state_machine_definition machine = animator->character->machine;
    machine.transition_count = 0;
    state_machine_instance probe = animator->instance;
    state_machine_result result;
    state_machine_step(&machine, &probe, 0.0f, (state_machine_clip_status){0}, &result);
    result.speed_scale = blend_speed_scale(animator, result.speed_scale);
    return result;
}

static float current_speed_scale(const animator *animator)
{
    return current_playback(animator).speed_scale;
}

/* ---- creation ---- */

static bool character_usable(const anim_character *character)
{
    const state_machine_definition *machine = character ? &character->machine : NULL;
    if (!machine || !character->model || machine->state_count <= 0 || !machine->states ||
        machine->start_state < 0 || machine->start_state >= machine->state_count)
        return false;
    for (int i = 0; i < machine->state_count; ++i) {
        const state_machine_state *state = &machine->states[i];
        if (state->clip < 0 || state->clip >= character->clip_count ||
            (state->blend >= 0 && !anim_blend_valid(blend_at(character, state->blend))) ||
            (state->overlay_blend >= 0 && !anim_blend_valid(blend_at(character, state->overlay_blend))))
            return false;
    }
    return true;
}

static anim_controller *create_controller(const anim_character *character)
{
    anim_controller_desc desc = {.skeleton = &character->model->skeleton, .shared_masks = character->branch_masks != NULL};
    return anim_controller_create(&desc);
}

animator *animator_create(const anim_character *character)
{
    if (!character_usable(character))
        return NULL;
    animator *created = calloc(1, sizeof *created);
    if (!created)
        return NULL;
    created->controller = create_controller(character);
    if (!created->controller) {
        free(created);
        return NULL;
    }
    created->character = character;
    created->time_scale = 1.0f;
    created->overlay = (animator_overlay){.clip = -1, .blend = -1, .root_joint = -1, .channel = 2};
    state_machine_instance_init(&character->machine, &created->instance);
    enter_state(created, 0.0f, current_speed_scale(created), false);
    /* A clip that does not fit the skeleton is refused by play(): the entity would stand in bind pose. */
    if (anim_controller_layer_count(created->controller, ANIMATOR_BODY_CHANNEL) == 0) {
        animator_destroy(created);
        return NULL;
    }
    /* Poses of the start state at time 0 rather than the bind pose, so the first step does not jump. */
    anim_controller_update(created->controller, 0.0, NULL);
    return created;
}

void animator_destroy(animator *animator)
{
    if (!animator)
        return;
    anim_controller_destroy(animator->controller);
    free(animator);
}

/* Memory hints for loops over many animators, two steps an entity (or a group) apart, each reading only
 * what the one before brought in: the line that leads to the rest (read nothing); then the animator, its
 * controller's layer state and the pose the update writes (it reads the first line, and the character, which
 * every entity of a type shares). For reading poses only: the line, then the pose. They change nothing;
 * NULL is ignored. */
static void prefetch_handle(const animator *animator)
{
    prefetch_range(animator, sizeof animator->controller + offsetof(struct animator, controller), false);
}

static int joints_of(const animator *animator)
{
    return animator->character->model->skeleton.joint_count;
}

static void prefetch_state(const animator *animator)
{
    if (!animator)
        return;
    prefetch_range(animator, sizeof *animator, true);
    anim_controller_prefetch(animator->controller, joints_of(animator));
}

/* animator_update_group's hints for the k-th entity of the group ahead (its state) and of the one after (its
 * first line). */
static void prefetch_ahead(const animator *const *ahead, int ahead_count, int k)
{
    if (k + ANIMATOR_GROUP_MAX < ahead_count)
        prefetch_handle(ahead[k + ANIMATOR_GROUP_MAX]);
    if (k < ahead_count)
        prefetch_state(ahead[k]);
}

void animator_object_poses(const animator *const *animators, int count, const joint_pose **poses)
{
    for (int i = 0; animators && poses && i < count; ++i) {
        if (i + 3 < count)
            prefetch_handle(animators[i + 3]);
        if (i + 1 < count && animators[i + 1])
            anim_controller_prefetch_object(animators[i + 1]->controller, joints_of(animators[i + 1]));
        poses[i] = animators[i] ? anim_controller_object_pose(animators[i]->controller) : NULL;
    }
}

size_t animator_bytes(const animator *animator)
{
    return animator ? sizeof *animator + anim_controller_bytes(animator->controller) : 0;
}

animator_memory animator_memory_parts(const animator *animator)
{
    animator_memory parts = {0};
    if (animator) {
        parts.record = sizeof *animator;
        parts.controller = anim_controller_memory_parts(animator->controller);
    }
    return parts;
}

/* ---- parameters ---- */

bool animator_set_number(animator *animator, const char *name, float value)
{
    return animator && state_machine_set_number(&animator->character->machine, &animator->instance, name, value);
}

bool animator_set_bool(animator *animator, const char *name, bool value)
{
    return animator && state_machine_set_bool(&animator->character->machine, &animator->instance, name, value);
}

bool animator_set_trigger(animator *animator, const char *name)
{
    return animator && state_machine_set_trigger(&animator->character->machine, &animator->instance, name);
}

bool animator_get(const animator *animator, const char *name, float *value)
{
    return animator && state_machine_get(&animator->character->machine, &animator->instance, name, value);
}

state_machine_param animator_param_find(const animator *animator, const char *name,
                                        state_machine_parameter_type type)
{
    return animator ? state_machine_param_find(&animator->character->machine, name, type) : STATE_MACHINE_PARAM_NONE;
}

bool animator_param_set_number(animator *animator, state_machine_param param, float value)
{
    return animator &&
           state_machine_param_set_number(&animator->character->machine, &animator->instance, param, value);
}

bool animator_param_set_bool(animator *animator, state_machine_param param, bool value)
{
    return animator && state_machine_param_set_bool(&animator->character->machine, &animator->instance, param, value);
}

bool animator_param_set_trigger(animator *animator, state_machine_param param)
{
    return animator && state_machine_param_set_trigger(&animator->character->machine, &animator->instance, param);
}

void animator_set_time_scale(animator *animator, float time_scale)
{
    if (!animator || !(time_scale >= 0.0f) || !isfinite(time_scale))
        return;
    animator->time_scale = time_scale;
    anim_controller_set_time_scale(animator->controller, time_scale);
}

void animator_set_additive(animator *animator, bool on)
{
    if (animator)
        anim_controller_set_additive(animator->controller, on);
}

/* ---- update ---- */

/* animator_update up to its controller's step: the state machine's step and what it asks of the controller
 * (a transition, the blend points, the rate, the overlay's weight). */
static void decide(animator *animator, double dt, animator_update_result *result)
{
    /* What the clips did in the last update is what the state machine decides on now. */
    animator_overlay *overlay = &animator->overlay;
    if (overlay->playing && anim_controller_finished(animator->controller, overlay->channel))
        overlay->finished = true;
    state_machine_clip_status status = {
        .clip_finished = state_clip_finished(animator),
        .overlay_finished = overlay->finished,
    };
    /* The controller scales its own dt; the state machine gets the same scaled time. */
    float machine_dt = (float)(dt * animator->time_scale);
    state_machine_step(&animator->character->machine, &animator->instance, machine_dt, status, &result->decision);

    const state_machine_state *state = current_state(animator);
    result->decision.speed_scale = blend_speed_scale(animator, result->decision.speed_scale);
    if (result->decision.fired) {
        enter_state(animator, result->decision.fade, result->decision.speed_scale,
                    result->decision.from == result->decision.to);
    } else if (state->loop && anim_controller_finished(animator->controller, ANIMATOR_BODY_CHANNEL)) {
        /* loop = true on a one-shot clip: it starts over each time it ends. */
        enter_state(animator, 0.0f, result->decision.speed_scale, true);
    }
    /* Blend points follow the parameters every step (the weights move continuously with them). */
    const anim_blend *blend = blend_at(animator->character, state->blend);
    float point[2];
    if (blend) {
        blend_point(animator, blend, point);
        anim_controller_set_blend_point(animator->controller, ANIMATOR_BODY_CHANNEL, blend, point);
    }
    if (state->rate_parameter >= 0)
        anim_controller_set_speed(animator->controller, ANIMATOR_BODY_CHANNEL, result->decision.speed_scale);
    fade_out_finished_overlay(animator);
    if (overlay->playing) {
        anim_controller_set_overlay_weight(animator->controller, overlay->channel, result->decision.overlay_weight);
        const anim_blend *overlay_blend = blend_at(animator->character, overlay->blend);
        if (overlay_blend) {
            blend_point(animator, overlay_blend, point);
            anim_controller_set_blend_point(animator->controller, overlay->channel, overlay_blend, point);
        }
    }
}

/* After the animation's pose, before anyone makes a palette of it. */
static void look(animator *animator, double dt)
{
    const skeleton *skeleton = &animator->character->model->skeleton;
    anim_look_step(&animator->look, &animator->character->look, skeleton->parents, skeleton->joint_count,
                   anim_controller_object_pose_to_edit(animator->controller), (float)(dt * animator->time_scale));
}

/* ---- stages, for a trace ---- */

static const char *const animator_stage_names[ANIMATOR_STAGE_COUNT] = {"blend", "additive", "look", "foot_lock",
                                                                      "foot_ik"};

const char *animator_stage_name(animator_stage stage)
{
    return stage >= 0 && stage < ANIMATOR_STAGE_COUNT ? animator_stage_names[stage] : "?";
}

void animator_capture_stages(animator *animator, const animator_stages *stages)
{
    if (animator)
        animator->capture = stages;
}

static void capture_copy(const animator *animator, animator_stage stage)
{
    joint_pose *to = animator->capture->poses[stage];
    if (to)
        memcpy(to, anim_controller_object_pose(animator->controller),
               (size_t)animator->character->model->skeleton.joint_count * sizeof *to);
}

/* Before look-at: the controller's pose, and the same without its additive layers. */
static void capture_before_look(const animator *animator)
{
    if (!animator->capture)
        return;
    capture_copy(animator, ANIMATOR_STAGE_ADDITIVE);
    joint_pose *blend = animator->capture->poses[ANIMATOR_STAGE_BLEND];
    const skeleton *skeleton = &animator->character->model->skeleton;
    if (blend && anim_controller_local_pose_without_additive(animator->controller, blend))
        pose_to_object(skeleton->parents, skeleton->joint_count, blend, blend);
}

static void capture_after_look(const animator *animator)
{
    if (!animator->capture)
        return;
    capture_copy(animator, ANIMATOR_STAGE_LOOK);
    capture_copy(animator, ANIMATOR_STAGE_FOOT_LOCK);
    capture_copy(animator, ANIMATOR_STAGE_FOOT_IK);
}

bool animator_update(animator *animator, double dt, animator_update_result *result)
{
    if (!animator || !(dt >= 0.0) || !isfinite(dt))
        return false;
    animator_update_result local;
    if (!result)
        result = &local;
    decide(animator, dt, result);
    if (!anim_controller_update(animator->controller, dt, &result->animation))
        return false;
    capture_before_look(animator);
    look(animator, dt);
    capture_after_look(animator);
    return true;
}

/* Whether two animators' skeletons turn to object space with the same parents. */
static bool same_hierarchy(const skeleton *a, const skeleton *b)
{
    size_t bytes = sizeof *a->parents * (size_t)a->joint_count;
    return a->joint_count == b->joint_count && (a->parents == b->parents || memcmp(a->parents, b->parents, bytes) == 0);
}

unsigned animator_update_pair(animator *a, double dt_a, animator_update_result *result_a, animator *b, double dt_b,
                              animator_update_result *result_b)
{
    bool valid = a && b && a != b && dt_a >= 0.0 && isfinite(dt_a) && dt_b >= 0.0 && isfinite(dt_b);
    const skeleton *skeleton = valid ? &a->character->model->skeleton : NULL;
    if (!valid || skeleton->joint_count > ANIMATOR_PAIR_JOINTS ||
        !same_hierarchy(skeleton, &b->character->model->skeleton))
        return (unsigned)animator_update(a, dt_a, result_a) | (unsigned)animator_update(b, dt_b, result_b) << 1;
    animator_update_result local_a, local_b;
    result_a = result_a ? result_a : &local_a;
    result_b = result_b ? result_b : &local_b;
    decide(a, dt_a, result_a);
    decide(b, dt_b, result_b);
    joint_pose pose_a[ANIMATOR_PAIR_JOINTS], pose_b[ANIMATOR_PAIR_JOINTS];
    if (!anim_controller_update_local(a->controller, dt_a, &result_a->animation, pose_a) ||
        !anim_controller_update_local(b->controller, dt_b, &result_b->animation, pose_b) ||
        !pose_to_object_pair(skeleton->parents, skeleton->joint_count, pose_a, pose_b,
                             anim_controller_object_pose_to_edit(a->controller),
                             anim_controller_object_pose_to_edit(b->controller)))
        return 0; /* not reached: the arguments were checked */
    capture_before_look(a);
    capture_before_look(b);
    look(a, dt_a);
    look(b, dt_b);
    capture_after_look(a);
    capture_after_look(b);
    return 3u;
}

/* The local poses of up to four animators whose skeletons share a hierarchy (`which` of the group) to their
 * object poses: four at once, else two and one. */
static void turn_to_object(animator *const *animators, joint_pose (*poses)[ANIMATOR_PAIR_JOINTS], const int *which,
                           int count)
{
    const skeleton *s = &animators[which[0]]->character->model->skeleton;
    if (count == 4) {
        const joint_pose *local[4];
        joint_pose *object[4];
        for (int k = 0; k < 4; ++k) {
            local[k] = poses[which[k]];
            object[k] = anim_controller_object_pose_to_edit(animators[which[k]]->controller);
        }
        pose_to_object_quad(s->parents, s->joint_count, local, object);
        return;
    }
    int k = 0;
    for (; k + 1 < count; k += 2)
        pose_to_object_pair(s->parents, s->joint_count, poses[which[k]], poses[which[k + 1]],
                            anim_controller_object_pose_to_edit(animators[which[k]]->controller),
                            anim_controller_object_pose_to_edit(animators[which[k + 1]]->controller));
    if (k < count)
        pose_to_object(s->parents, s->joint_count, poses[which[k]],
                       anim_controller_object_pose_to_edit(animators[which[k]]->controller));
}

unsigned animator_update_group(animator *const *animators, const double *dt, animator_update_result *results, int count,
                               const animator *const *ahead, int ahead_count)
{
    /* The group after this one in full, the one after that its first line: they arrive while this one works,
     * asked for an entity at a time as this group's state machines step, so that the requests do not queue. */
    ahead_count = ahead ? (ahead_count < 2 * ANIMATOR_GROUP_MAX ? ahead_count : 2 * ANIMATOR_GROUP_MAX) : 0;
    if (!animators || !dt || count <= 0 || count > ANIMATOR_GROUP_MAX) {
        for (int k = 0; k < ANIMATOR_GROUP_MAX; ++k)
            prefetch_ahead(ahead, ahead_count, k);
        return 0;
    }
    animator_update_result local[ANIMATOR_GROUP_MAX];
    animator_update_result *result = results ? results : local;
    /* 32 KB for sixteen 64-joint local poses: the stages between sampling and object space run on them. */
    joint_pose poses[ANIMATOR_GROUP_MAX][ANIMATOR_PAIR_JOINTS];
    unsigned grouped = 0, updated = 0;
    for (int k = 0; k < count; ++k) {
        animator *a = animators[k];
        if (!a)
            continue;
        if (!(dt[k] >= 0.0) || !isfinite(dt[k]) || a->character->model->skeleton.joint_count > ANIMATOR_PAIR_JOINTS)
            updated |= (unsigned)animator_update(a, dt[k], &result[k]) << k; /* refused, or on its own */
        else
            grouped |= 1u << k;
    }
    for (int k = 0; k < ANIMATOR_GROUP_MAX; ++k) {
        prefetch_ahead(ahead, ahead_count, k);
        if (k < count && ((grouped >> k) & 1u))
            decide(animators[k], dt[k], &result[k]);
    }
    for (int k = 0; k < count; ++k)
        if ((grouped >> k) & 1u)
            anim_controller_update_local(animators[k]->controller, dt[k], &result[k].animation, poses[k]);
    /* To object space four by four where neighbours share a hierarchy (pose_to_object_quad), what is left
     * two by two, as animator_update_pair, and one alone. */
    int waiting[4], waiting_count = 0;
    for (int k = 0; k <= count; ++k) {
        if (k < count && !((grouped >> k) & 1u))
            continue;
        const skeleton *s = k < count ? &animators[k]->character->model->skeleton : NULL;
        if (waiting_count > 0 && (!s || !same_hierarchy(&animators[waiting[0]]->character->model->skeleton, s))) {
            turn_to_object(animators, poses, waiting, waiting_count);
            waiting_count = 0;
        }
        if (!s)
            break;
        waiting[waiting_count++] = k;
        if (waiting_count == 4) {
            turn_to_object(animators, poses, waiting, waiting_count);
            waiting_count = 0;
        }
    }
    for (int k = 0; k < count; ++k)
        if ((grouped >> k) & 1u) {
            capture_before_look(animators[k]);
            look(animators[k], dt[k]);
            capture_after_look(animators[k]);
        }
    return updated | grouped;
}

void animator_look_at(animator *animator, const float *target)
{
    if (animator)
        anim_look_set_target(&animator->look, target);
}

float animator_look_weight(const animator *animator)
{
    return animator ? anim_look_weight(&animator->look) : 0.0f;
}

bool animator_look_target(const animator *animator, float target[3])
{
    if (!animator || !animator->look.has_target)
        return false;
    memcpy(target, animator->look.target, sizeof animator->look.target);
    return true;
}

/* ---- inspection ---- */

const anim_character *animator_character(const animator *animator)
{
    return animator ? animator->character : NULL;
}

const anim_controller *animator_controller(const animator *animator)
{
    return animator ? animator->controller : NULL;
}

const state_machine_instance *animator_instance(const animator *animator)
{
    return animator ? &animator->instance : NULL;
}

int animator_state(const animator *animator)
{
    return animator ? animator->instance.state : -1;
}

const char *animator_state_name(const animator *animator)
{
    return animator ? current_state(animator)->name : NULL;
}

int animator_overlay_channel(const animator *animator)
{
    return animator ? animator->overlay.channel : -1;
}

bool animator_moved_by_clip(const animator *animator)
{
    return animator && current_state(animator)->moved_by_clip;
}

/* ---- hot reload ---- */

/* Put a channel's only layer at `cycles`. The controller has no call to set a layer's position, so the
 * layer advances there in one update of one second at the speed that covers exactly that distance, with
 * every other channel held still; the events and root motion of that update are thrown away. */
static void seek_channel(anim_controller *controller, int channel, double cycles)
{
    animator_top_layer top = top_layer(controller, channel);
    double duration = top.clip ? (top.clip->loop ? top.clip->clip->loop_duration : top.clip->clip->once_duration)
                               : top.duration;
    for (int other = 0; other < ANIM_CHANNEL_COUNT; ++other)
        anim_controller_set_speed(controller, other, 0.0f);
    anim_controller_set_speed(controller, channel, (float)(cycles * duration));
    anim_controller_update(controller, 1.0, NULL);
}

/* The same-named clip of the new character, or NULL. */
static const anim_clip *find_clip(const anim_character *character, const anim_clip *old_clip)
{
    int index = old_clip ? anim_config_find_clip(character, old_clip->name) : -1;
    return index >= 0 ? &character->clips[index] : NULL;
}

static const anim_clip *lookup_clip_by_name(void *character, const anim_clip *old_clip)
{
    return find_clip(character, old_clip);
}

/* The same-named blend of the new character, or NULL. */
static const anim_blend *find_blend(const anim_character *character, const anim_blend *old_blend)
{
    return old_blend ? blend_at(character, anim_config_find_blend(character, old_blend->name)) : NULL;
}

static const anim_blend *lookup_blend_by_name(void *character, const anim_blend *old_blend)
{
    return find_blend(character, old_blend);
}

/* Whether a state of the new character plays what one of the old played, by name: the same clip, or a
 * blend of the same name. */
static bool same_playable(const anim_character *old_character, int old_clip, int old_blend,
                          const anim_character *character, int new_clip, int new_blend)
{
    if (old_clip < 0 || new_clip < 0)
        return old_clip < 0 && new_clip < 0;
    if (old_blend >= 0 || new_blend >= 0)
        return old_blend >= 0 && new_blend >= 0 &&
               find_blend(character, &old_character->blends[old_blend]) == &character->blends[new_blend];
    return find_clip(character, &old_character->clips[old_clip]) == &character->clips[new_clip];
}

/* The reload that changes nothing on screen: the state survives with the same clip and overlay (by name
 * and branch), the skeleton's hierarchy is the same, and every clip the controller is playing (fading
 * ones included) is still in the library. The controller then keeps all its layers, times and fades
 * and only points them at the new library's clips. */
static bool rebind_in_place(animator *animator, const anim_character *character, const state_machine_instance *instance)
{
    const anim_character *old_character = animator->character;
    const state_machine_state *old_state = current_state(animator);
    const state_machine_state *new_state = &character->machine.states[instance->state];
    bool same_clip = same_playable(old_character, old_state->clip, old_state->blend, character, new_state->clip,
                                   new_state->blend);
    bool same_overlay = same_playable(old_character, old_state->overlay_clip, old_state->overlay_blend, character,
                                      new_state->overlay_clip, new_state->overlay_blend) &&
                        (old_state->overlay_clip < 0 || old_state->overlay_root_joint == new_state->overlay_root_joint);
    /* Who moves the entity belongs to the layers: a state that changed it needs its layer played anew. */
    same_clip = same_clip && old_state->moved_by_clip == new_state->moved_by_clip;
    bool shared = anim_controller_masks_shared(animator->controller);
    if (!same_clip || !same_overlay || shared != (character->branch_masks != NULL) ||
        !anim_controller_retarget(animator->controller, &character->model->skeleton, lookup_clip_by_name,
                                  lookup_blend_by_name, (void *)character))
        return false;
    /* Shared masks are the old character's: each overlay channel takes the new one's mask of the same branch
     * (none when no state of it plays an overlay there any more: that channel was fading out). */
    for (int channel = 1; shared && channel < ANIM_CHANNEL_COUNT; ++channel) {
        const float *mask = anim_controller_mask(animator->controller, channel);
        int root = 0, joints = character->model->skeleton.joint_count;
        while (mask && root < joints && old_character->branch_masks[root] != mask)
            ++root;
        anim_controller_share_mask(animator->controller, channel,
                                   mask && root < joints ? character->branch_masks[root] : NULL);
    }
    animator->character = character;
    animator->instance = *instance;
    if (animator->overlay.blend >= 0) {
        const anim_blend *overlay = find_blend(character, &old_character->blends[animator->overlay.blend]);
        animator->overlay.blend = overlay ? (int)(overlay - character->blends) : -1;
        animator->overlay.clip = overlay ? anim_config_find_clip(character, overlay->clips[0]->name) : -1;
    } else if (animator->overlay.clip >= 0) {
        const anim_clip *overlay = find_clip(character, &old_character->clips[animator->overlay.clip]);
        animator->overlay.clip = overlay ? (int)(overlay - character->clips) : -1;
    }
    anim_controller_set_speed(animator->controller, ANIMATOR_BODY_CHANNEL, current_speed_scale(animator));
    return true;
}

/* A reload that changes the legs (or the skeleton under them) lets every foot go at once: the old locks
 * belong to other joints. */
static void rebind_feet(animator *animator, const anim_character *old_character, const anim_character *character)
{
    if (old_character->leg_count != character->leg_count ||
        memcmp(old_character->legs, character->legs, sizeof character->legs[0] * (size_t)character->leg_count) != 0)
        animator->feet = (anim_foot_lock_state){0};
}

bool animator_rebind(animator *animator, const anim_character *character, bool *kept_state)
{
    if (kept_state)
        *kept_state = false;
    if (!animator || !character_usable(character))
        return false;
    rebind_feet(animator, animator->character, character);
    state_machine_instance remapped;
    if (state_machine_instance_remap(&animator->character->machine, &animator->instance, &character->machine,
                                     &remapped) &&
        rebind_in_place(animator, character, &remapped)) {
        if (kept_state)
            *kept_state = true;
        return true;
    }
    anim_controller *controller = create_controller(character);
    if (!controller)
        return false;

    /* Read everything needed from the old controller and character before they are let go. */
    double body_cycles = top_layer(animator->controller, ANIMATOR_BODY_CHANNEL).cycles;
    double overlay_cycles = -1.0;
    if (animator->overlay.playing)
        overlay_cycles = top_layer(animator->controller, animator->overlay.channel).cycles;
    animator_overlay old_overlay = animator->overlay;
    const anim_character *old_character = animator->character;
    state_machine_instance instance;
    bool kept = state_machine_instance_remap(&animator->character->machine, &animator->instance,
                                             &character->machine, &instance);

    anim_controller_destroy(animator->controller);
    animator->controller = controller;
    animator->character = character;
    animator->instance = instance;
    animator->overlay = (animator_overlay){.clip = -1, .blend = -1, .root_joint = -1, .channel = 2};
    const state_machine_state *state = current_state(animator);
    float speed_scale = current_speed_scale(animator);

    /* The body: the state's clip or blend, at the phase the old top layer had. Cycles (whole loops) restart
     * at 0. */
    play_state_body(animator, 0.0f, &(anim_play_options){.moves_entity = state->moved_by_clip});
    bool body_loops = state->blend >= 0 ? character->blends[state->blend].loop : character->clips[state->clip].loop;
    if (kept && body_cycles > 0.0)
        seek_channel(controller, ANIMATOR_BODY_CHANNEL, body_loops ? body_cycles - floor(body_cycles) : fmin(body_cycles, 1.0));

    /* The overlay: carried over when the state still has one of the same clip (or blend) name and root. */
    bool same_overlay = kept && state->overlay_clip >= 0 && old_overlay.clip >= 0 &&
                        same_playable(old_character, old_overlay.clip, old_overlay.blend, character,
                                      state->overlay_clip, state->overlay_blend);
    if (same_overlay && !old_overlay.playing) {
        /* It finished and faded out before the reload: it stays that way. */
        animator->overlay = (animator_overlay){.clip = state->overlay_clip, .blend = state->overlay_blend,
                                               .root_joint = state->overlay_root_joint,
                                               .channel = old_overlay.channel, .finished = true,
                                               .fade = old_overlay.fade};
    } else if (state->overlay_clip >= 0) {
        enter_overlay(animator, state, 0.0f);
        bool overlay_loops = state->overlay_blend >= 0 ? character->blends[state->overlay_blend].loop
                                                       : character->clips[state->overlay_clip].loop;
        if (same_overlay && overlay_cycles > 0.0 && animator->overlay.playing)
            seek_channel(controller, animator->overlay.channel,
                         overlay_loops ? overlay_cycles - floor(overlay_cycles) : fmin(overlay_cycles, 1.0));
        animator->overlay.finished = same_overlay && old_overlay.finished;
        animator->overlay.fade = old_overlay.fade;
    }

    anim_controller_set_speed(controller, ANIMATOR_BODY_CHANNEL, speed_scale);
    anim_controller_set_speed(controller, animator->overlay.channel, 1.0f);
    anim_controller_set_time_scale(controller, animator->time_scale);
    anim_controller_update(controller, 0.0, NULL); /* the restored poses, for inspection before the next update */
    if (kept_state)
        *kept_state = kept;
    return true;
}

bool animator_lock_feet(animator *animator, const anim_placement *placement, const ground *ground, float dt)
{
    if (!animator || !placement || !(dt >= 0.0f) || !isfinite(dt))
        return false;
    const anim_character *character = animator->character;
    float shares[ANIM_FEET_MAX] = {0}, soon[ANIM_FEET_MAX] = {0};
    if (character->foot_lock.enabled || character->foot_lock.ik)
        anim_foot_lock_planted_shares_ahead(animator->controller, character->leg_count, ANIM_FOOT_IK_FADE_SECONDS,
                                            shares, character->foot_lock.ik ? soon : NULL);
    anim_foot_lock_input input = {
        .skeleton = &character->model->skeleton,
        .legs = character->legs,
        .prepared = character->ik_legs,
        .leg_count = character->leg_count,
        .pelvis_known = true,
        .pelvis = character->pelvis,
        .planted_shares = shares,
        .planted_soon = soon,
        .scale = character->scale,
        .axes = character->axes,
        .placement = *placement,
        .ground = ground,
        .dt = dt * animator->time_scale,
        .settings = character->foot_lock,
    };
    joint_pose *lock_only = animator->capture ? animator->capture->poses[ANIMATOR_STAGE_FOOT_LOCK] : NULL;
    if (lock_only) {
        /* The lock alone: the same solve on copies, with nothing placed on the ground (no placement fading,
         * no pelvis drop); the real state is stepped below as ever. */
        anim_foot_lock_state copy = animator->feet;
        anim_foot_lock_input alone = input;
        alone.settings.ik = false;
        alone.planted_soon = NULL;
        copy.pelvis_drop = 0.0f;
        for (int f = 0; f < ANIM_FEET_MAX; ++f)
            copy.feet[f].ik = 0.0f;
        memcpy(lock_only, anim_controller_object_pose(animator->controller),
               (size_t)character->model->skeleton.joint_count * sizeof *lock_only);
        anim_foot_lock_apply(&alone, &copy, lock_only);
    }
    bool applied = anim_foot_lock_apply(&input, &animator->feet, anim_controller_object_pose_to_edit(animator->controller));
    if (animator->capture)
        capture_copy(animator, ANIMATOR_STAGE_FOOT_IK);
    return applied;
}

void animator_unlock_feet(animator *animator)
{
    if (animator)
        animator->feet = (anim_foot_lock_state){0};
}

const anim_foot_lock_state *animator_foot_lock(const animator *animator)
{
    return animator ? &animator->feet : NULL;
}
