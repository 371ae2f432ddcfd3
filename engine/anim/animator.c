#include "animator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The overlay the current state asked for, and where it plays. Kept apart from the controller's own
 * bookkeeping because the controller cannot say which state put a clip on a channel or whether it was
 * already stopped. */
typedef struct animator_overlay {
    int clip;       /* index into the character's clips; -1 when the state has no overlay */
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

/* The normalized position of a channel's top layer: loops completed plus phase for a cycle, 0..1 for a
 * one-shot; -1 when the channel plays nothing. */
static double top_layer_cycles(const anim_controller *controller, int channel, const anim_clip **clip)
{
    anim_layer_info info;
    int count = anim_controller_layer_count(controller, channel);
    if (count == 0 || !anim_controller_layer(controller, channel, count - 1, &info)) {
        if (clip)
            *clip = NULL;
        return -1.0;
    }
    if (clip)
        *clip = info.clip;
    return info.cycles;
}

/* `end` for the state machine: the state is a one-shot and its clip, on top of the body, has played once.
 * A looping clip in a state with loop = false counts as ended after one cycle (it keeps cycling on screen
 * until a transition takes the entity elsewhere). */
static bool state_clip_finished(const animator *animator)
{
    const state_machine_state *state = current_state(animator);
    if (state->loop)
        return false;
    const anim_clip *top = NULL;
    double cycles = top_layer_cycles(animator->controller, ANIMATOR_BODY_CHANNEL, &top);
    return top == &animator->character->clips[state->clip] && cycles >= 1.0;
}

/* ---- overlays ---- */

/* Point the overlay channel's mask at one branch only: everything else off first, since
 * anim_controller_mask_branch leaves the joints outside the branch as they were. */
static bool mask_overlay(animator *animator, int channel, int root_joint)
{
    const skeleton *skeleton = &animator->character->model->skeleton;
    if (root_joint < 0 || root_joint >= skeleton->joint_count)
        return false;
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
    bool same = overlay->clip >= 0 && overlay->clip == state->overlay_clip &&
                overlay->root_joint == state->overlay_root_joint;
    if (same)
        return; /* it carries on across the transition, finished or not */
    stop_overlay(animator, fade);
    overlay->clip = -1;
    overlay->finished = false;
    if (state->overlay_clip < 0 || state->overlay_clip >= animator->character->clip_count)
        return;

    int channel = other_overlay_channel(overlay->channel);
    const anim_clip *clip = &animator->character->clips[state->overlay_clip];
    anim_play_options options = {.restart = true};
    if (!mask_overlay(animator, channel, state->overlay_root_joint) ||
        !anim_controller_play(animator->controller, channel, clip, fade, &options))
        return;
    *overlay = (animator_overlay){
        .clip = state->overlay_clip,
        .root_joint = state->overlay_root_joint,
        .channel = channel,
        .playing = true,
        .fade = fade,
    };
}

/* The controller holds a finished one-shot's last frame for ever; an overlay is meant to go away. */
static void fade_out_finished_overlay(animator *animator)
{
    animator_overlay *overlay = &animator->overlay;
    if (!overlay->playing || !overlay->finished)
        return;
    stop_overlay(animator, overlay->fade > 0.0f ? overlay->fade : ANIMATOR_OVERLAY_FADE_OUT_SECONDS);
}

/* ---- entering states ---- */

static state_machine_result current_playback(const animator *animator);

/* Play the current state's clip on the body with `fade`, and its overlay. */
static void enter_state(animator *animator, float fade, float speed_scale, bool restart)
{
    const state_machine_state *state = current_state(animator);
    const anim_clip *clip = &animator->character->clips[state->clip];
    anim_play_options options = {.speed = speed_scale, .restart = restart, .moves_entity = state->moved_by_clip};
    anim_controller_play(animator->controller, ANIMATOR_BODY_CHANNEL, clip, fade, &options);
    /* play() reads a speed of 0 as "as authored"; a rate_from state at a standstill really means 0. */
    if (speed_scale == 0.0f)
        anim_controller_set_speed(animator->controller, ANIMATOR_BODY_CHANNEL, 0.0f);
    enter_overlay(animator, state, fade);
    /* A channel the overlay just took keeps its last weight until the next update: give it the state's. */
    if (animator->overlay.playing)
        anim_controller_set_overlay_weight(animator->controller, animator->overlay.channel,
                                           current_playback(animator).overlay_weight);
}

/* The current state's speed scale now, as state_machine_step would report it. The state machine keeps its
 * formula to itself, so ask it: a step of 0 seconds through a copy of the machine without transitions
 * changes nothing and reports the state's playback. Used on creation and reload, never per update. */
static state_machine_result current_playback(const animator *animator)
{
    state_machine_definition machine = animator->character->machine;
    machine.transition_count = 0;
    state_machine_instance probe = animator->instance;
    state_machine_result result;
    state_machine_step(&machine, &probe, 0.0f, (state_machine_clip_status){0}, &result);
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
    for (int i = 0; i < machine->state_count; ++i)
        if (machine->states[i].clip < 0 || machine->states[i].clip >= character->clip_count)
            return false;
    return true;
}

static anim_controller *create_controller(const anim_character *character)
{
    anim_controller_desc desc = {.skeleton = &character->model->skeleton};
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
    created->overlay = (animator_overlay){.clip = -1, .root_joint = -1, .channel = 2};
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

size_t animator_bytes(const animator *animator)
{
    return animator ? sizeof *animator + anim_controller_bytes(animator->controller) : 0;
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

/* ---- update ---- */

bool animator_update(animator *animator, double dt, animator_update_result *result)
{
    if (!animator || !(dt >= 0.0) || !isfinite(dt))
        return false;
    animator_update_result local;
    if (!result)
        result = &local;

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
    if (result->decision.fired) {
        enter_state(animator, result->decision.fade, result->decision.speed_scale,
                    result->decision.from == result->decision.to);
    } else if (state->loop && anim_controller_finished(animator->controller, ANIMATOR_BODY_CHANNEL)) {
        /* loop = true on a one-shot clip: it starts over each time it ends. */
        enter_state(animator, 0.0f, result->decision.speed_scale, true);
    }
    if (state->rate_parameter >= 0)
        anim_controller_set_speed(animator->controller, ANIMATOR_BODY_CHANNEL, result->decision.speed_scale);
    fade_out_finished_overlay(animator);
    if (overlay->playing)
        anim_controller_set_overlay_weight(animator->controller, overlay->channel, result->decision.overlay_weight);

    return anim_controller_update(animator->controller, dt, &result->animation);
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
static void seek_channel(anim_controller *controller, int channel, const anim_clip *clip, double cycles)
{
    double duration = clip->loop ? clip->clip->loop_duration : clip->clip->once_duration;
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

/* The reload that changes nothing on screen: the state survives with the same clip and overlay (by name
 * and branch), the skeleton's hierarchy is the same, and every clip the controller is playing (fading
 * ones included) is still in the library. The controller then keeps all its layers, times and fades
 * and only points them at the new library's clips. */
static bool rebind_in_place(animator *animator, const anim_character *character, const state_machine_instance *instance)
{
    const anim_character *old_character = animator->character;
    const state_machine_state *old_state = current_state(animator);
    const state_machine_state *new_state = &character->machine.states[instance->state];
    const anim_clip *old_overlay = old_state->overlay_clip >= 0 ? &old_character->clips[old_state->overlay_clip] : NULL;
    const anim_clip *new_overlay = new_state->overlay_clip >= 0 ? &character->clips[new_state->overlay_clip] : NULL;
    /* Who moves the entity belongs to the layers: a state that changed it needs its layer played anew. */
    bool same_clip = find_clip(character, &old_character->clips[old_state->clip]) == &character->clips[new_state->clip] &&
                     old_state->moved_by_clip == new_state->moved_by_clip;
    bool same_overlay = old_overlay ? find_clip(character, old_overlay) == new_overlay &&
                                          old_state->overlay_root_joint == new_state->overlay_root_joint
                                    : new_overlay == NULL;
    if (!same_clip || !same_overlay ||
        !anim_controller_retarget(animator->controller, &character->model->skeleton, lookup_clip_by_name,
                                  (void *)character))
        return false;
    animator->character = character;
    animator->instance = *instance;
    if (animator->overlay.clip >= 0) {
        const anim_clip *overlay = find_clip(character, &old_character->clips[animator->overlay.clip]);
        animator->overlay.clip = overlay ? (int)(overlay - character->clips) : -1;
    }
    anim_controller_set_speed(animator->controller, ANIMATOR_BODY_CHANNEL, current_speed_scale(animator));
    return true;
}

bool animator_rebind(animator *animator, const anim_character *character, bool *kept_state)
{
    if (kept_state)
        *kept_state = false;
    if (!animator || !character_usable(character))
        return false;
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
    const anim_clip *old_body_clip = NULL, *old_overlay_clip = NULL;
    double body_cycles = top_layer_cycles(animator->controller, ANIMATOR_BODY_CHANNEL, &old_body_clip);
    double overlay_cycles = -1.0;
    if (animator->overlay.playing)
        overlay_cycles = top_layer_cycles(animator->controller, animator->overlay.channel, &old_overlay_clip);
    else if (animator->overlay.clip >= 0)
        old_overlay_clip = &animator->character->clips[animator->overlay.clip];
    animator_overlay old_overlay = animator->overlay;
    state_machine_instance instance;
    bool kept = state_machine_instance_remap(&animator->character->machine, &animator->instance,
                                             &character->machine, &instance);

    anim_controller_destroy(animator->controller);
    animator->controller = controller;
    animator->character = character;
    animator->instance = instance;
    animator->overlay = (animator_overlay){.clip = -1, .root_joint = -1, .channel = 2};
    const state_machine_state *state = current_state(animator);
    float speed_scale = current_speed_scale(animator);

    /* The body: the state's clip, at the phase the old top layer had. Cycles (whole loops) restart at 0. */
    const anim_clip *body_clip = &character->clips[state->clip];
    anim_controller_play(controller, ANIMATOR_BODY_CHANNEL, body_clip, 0.0f,
                         &(anim_play_options){.moves_entity = state->moved_by_clip});
    if (kept && body_cycles > 0.0)
        seek_channel(controller, ANIMATOR_BODY_CHANNEL, body_clip,
                     body_clip->loop ? body_cycles - floor(body_cycles) : fmin(body_cycles, 1.0));

    /* The overlay: carried over when the state still has one of the same clip name and root. */
    const anim_clip *new_overlay_clip = state->overlay_clip >= 0 ? &character->clips[state->overlay_clip] : NULL;
    bool same_overlay =
        kept && new_overlay_clip && old_overlay_clip && find_clip(character, old_overlay_clip) == new_overlay_clip;
    if (same_overlay && !old_overlay.playing) {
        /* It finished and faded out before the reload: it stays that way. */
        animator->overlay = (animator_overlay){.clip = state->overlay_clip, .root_joint = state->overlay_root_joint,
                                               .channel = old_overlay.channel, .finished = true,
                                               .fade = old_overlay.fade};
    } else if (new_overlay_clip) {
        enter_overlay(animator, state, 0.0f);
        if (same_overlay && overlay_cycles > 0.0 && animator->overlay.playing)
            seek_channel(controller, animator->overlay.channel, new_overlay_clip,
                         new_overlay_clip->loop ? overlay_cycles - floor(overlay_cycles) : fmin(overlay_cycles, 1.0));
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
