/* md5tool feet: see md5tool_feet.h. Output:
 *   text:  a line per case (speed, direction, contacts, the worst drift in mm and which foot, how far a
 *          planted foot was from its standing height, the weights' worst error from 1, NaN or not), then
 *          the worst case of all
 *   --json: one object: the rate and seconds, every case, the worst case, and the totals. */
#include "md5tool_feet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim_feet.h"
#include "base/json.h"
#include "pose/pose.h"
#include "md5tool_common.h"

enum { FEET_MAX_SPEEDS = 1000, FEET_MAX_DIRECTIONS = 360, FEET_MAX_RATE = 10000 };

/* The weights of a blend must sum to 1 within this, or the case fails. */
#define FEET_WEIGHT_TOLERANCE 1e-6

bool feet_settings_for(const anim_character *character, const char *state_name, feet_settings *out, diag *error)
{
    const state_machine_definition *machine = &character->machine;
    *out = (feet_settings){
        .state = state_name ? state_machine_find_state(machine, state_name) : machine->start_state,
        .velocity_parameters = {-1, -1},
        .speed_parameters = {-1, -1},
        .rate_hz = 60.0,
        .settle_seconds = 2.0,
        .measure_seconds = 4.0,
        .lock = character->foot_lock.enabled,
    };
    if (out->state < 0 || out->state >= machine->state_count)
        return diag_set(error, "states.ini", 0, "character '%s' has no state '%s'", character->name,
                        state_name ? state_name : "(start)");
    const state_machine_state *state = &machine->states[out->state];
    if (state->blend >= 0) {
        const anim_blend *blend = &character->blends[state->blend];
        out->two_dimensional = blend->dimensions == 2;
        if (out->two_dimensional) {
            out->velocity_parameters[0] = blend->parameters[0];
            out->velocity_parameters[1] = blend->parameters[1];
        } else {
            out->speed_parameters[0] = blend->parameters[0];
        }
    }
    if (state->rate_parameter >= 0 && state->rate_parameter != out->speed_parameters[0] &&
        state->rate_parameter != out->velocity_parameters[0] && state->rate_parameter != out->velocity_parameters[1])
        out->speed_parameters[1] = state->rate_parameter;
    /* The feet the engine found (anim_feet.h); others are named with --feet. */
    for (int i = 0; i < character->leg_count; ++i)
        out->feet[i] = character->legs[i].ankle;
    out->foot_count = character->leg_count;
    return true;
}

/* ---- where clips plant their feet ---- */

/* A joint's position in canonical space (Z up, +X forward, metres), in the entity's frame. */
static void joint_canonical(const anim_character *character, const joint_pose *pose, int joint, vec3 out)
{
    glm_mat4_mulv3((vec4 *)character->import, (float *)pose[joint].position, 1.0f, out);
}

bool feet_plants_find(const anim_character *character, const feet_settings *settings, feet_plants *out)
{
    *out = (feet_plants){.clip_count = character->clip_count, .foot_count = settings->foot_count};
    out->planted = calloc((size_t)character->clip_count * (size_t)settings->foot_count, sizeof *out->planted);
    if (!out->planted)
        return false;
    const state_machine_state *state = &character->machine.states[settings->state];
    const anim_blend *blend = state->blend >= 0 ? &character->blends[state->blend] : NULL;
    int count = blend ? blend->count : 1;
    for (int i = 0; i < count; ++i) {
        int index = blend ? (int)(blend->clips[i] - character->clips) : state->clip;
        if (index < 0 || index >= character->clip_count || out->planted[index * settings->foot_count])
            continue;
        const anim_clip *entry = &character->clips[index];
        /* One block per clip, its feet after one another as anim_feet_find_contacts writes them; the
         * first foot's slot owns it. */
        unsigned char *planted = malloc((size_t)entry->clip->frame_count * (size_t)settings->foot_count);
        if (!planted ||
            !anim_feet_find_contacts(entry, &character->model->skeleton, settings->feet, settings->foot_count, planted)) {
            free(planted);
            feet_plants_free(out);
            return false;
        }
        for (int f = 0; f < settings->foot_count; ++f)
            out->planted[index * settings->foot_count + f] = planted + (size_t)f * (size_t)entry->clip->frame_count;
    }
    return true;
}

void feet_plants_free(feet_plants *plants)
{
    if (plants->planted && plants->foot_count > 0)
        for (int i = 0; i < plants->clip_count * plants->foot_count; i += plants->foot_count)
            free(plants->planted[i]);
    free(plants->planted);
    *plants = (feet_plants){0};
}

bool feet_plants_at(const feet_plants *plants, const anim_character *character, int clip_index, int foot,
                    double time)
{
    if (clip_index < 0 || clip_index >= plants->clip_count || foot < 0 || foot >= plants->foot_count)
        return false;
    /* the clip's block starts at its first foot's flags */
    return anim_feet_planted_at(&character->clips[clip_index], plants->planted[clip_index * plants->foot_count], foot,
                                time);
}

/* Clip i of a blend layer plays at its phase (the blend's cycles) or, out of phase, on a clock of its own
 * that the controller does not show: then the foot counts as planted only if the clip plants it always
 * (an idle's feet). */
static bool blend_clip_planted(const feet_plants *plants, const anim_character *character, const anim_layer_info *layer,
                               int i, int foot)
{
    const anim_clip *entry = layer->blend->clips[i];
    int index = (int)(entry - character->clips);
    if (anim_blend_clip_in_phase(layer->blend, i)) {
        double phase = layer->cycles - floor(layer->cycles);
        return feet_plants_at(plants, character, index, foot, phase * (entry->loop ? entry->clip->loop_duration
                                                                                    : entry->clip->once_duration));
    }
    for (int frame = 0; frame < entry->clip->frame_count; ++frame)
        if (!feet_plants_at(plants, character, index, foot, frame / (double)entry->clip->frame_rate))
            return false;
    return true;
}

/* Every clip carrying weight in the body has the foot planted. */
static bool foot_planted(const feet_plants *plants, const anim_character *character, const anim_controller *controller,
                         int foot)
{
    int layers = anim_controller_layer_count(controller, ANIMATOR_BODY_CHANNEL);
    bool any = false;
    for (int k = 0; k < layers; ++k) {
        anim_layer_info layer;
        if (!anim_controller_layer(controller, ANIMATOR_BODY_CHANNEL, k, &layer))
            return false;
        if (layer.weight <= FEET_PLANT_WEIGHT)
            continue;
        if (!layer.blend) {
            if (!layer.clip || !feet_plants_at(plants, character, (int)(layer.clip - character->clips), foot, layer.time))
                return false;
            any = true;
            continue;
        }
        float weights[ANIM_BLEND_MAX_CLIPS];
        int count = anim_controller_layer_blend_weights(controller, ANIMATOR_BODY_CHANNEL, k, weights);
        for (int i = 0; i < count; ++i) {
            if (layer.weight * weights[i] <= FEET_PLANT_WEIGHT)
                continue;
            if (!blend_clip_planted(plants, character, &layer, i, foot))
                return false;
            any = true;
        }
    }
    return any;
}

/* ---- measuring ---- */

/* One foot's contact in progress. */
typedef struct foot_contact {
    bool planted;
    double began;        /* seconds into the measurement */
    double low[2], high[2];
} foot_contact;

static void contact_end(foot_contact *contact, int foot, feet_case *out)
{
    if (contact->planted) {
        double drift = hypot(contact->high[0] - contact->low[0], contact->high[1] - contact->low[1]);
        ++out->contacts;
        if (drift > out->worst_drift || out->worst_foot < 0) {
            out->worst_drift = drift;
            out->worst_foot = foot;
            out->worst_time = contact->began;
        }
    }
    contact->planted = false;
}

static bool pose_finite(const joint_pose *pose, int joint_count)
{
    for (int j = 0; j < joint_count; ++j)
        for (int k = 0; k < 4; ++k)
            if (!isfinite(pose[j].rotation[k]) || (k < 3 && !isfinite(pose[j].position[k])))
                return false;
    return true;
}

/* Every blend layer of the body: the largest |sum of its weights - 1|; NaN weights make it infinite. */
static double blend_weight_error(const anim_controller *controller)
{
    double worst = 0.0;
    int layers = anim_controller_layer_count(controller, ANIMATOR_BODY_CHANNEL);
    for (int k = 0; k < layers; ++k) {
        float weights[ANIM_BLEND_MAX_CLIPS];
        int count = anim_controller_layer_blend_weights(controller, ANIMATOR_BODY_CHANNEL, k, weights);
        if (count == 0)
            continue;
        double sum = 0.0;
        for (int i = 0; i < count; ++i)
            sum += weights[i];
        double error = isfinite(sum) ? fabs(sum - 1.0) : INFINITY;
        worst = fmax(worst, error);
    }
    return worst;
}

static void set_velocity(animator *animator, const feet_settings *settings, double speed, double direction)
{
    const state_machine_definition *machine = &animator_character(animator)->machine;
    /* Indices into the character's own machine, checked when the settings were made: these cannot fail. */
    for (int i = 0; i < settings->set_count; ++i) {
        const state_machine_parameter *p = &machine->parameters[settings->set_parameters[i]];
        if (p->type == STATE_MACHINE_BOOL)
            animator_set_bool(animator, p->name, settings->set_values[i] != 0.0f);
        else if (p->type == STATE_MACHINE_NUMBER)
            animator_set_number(animator, p->name, settings->set_values[i]);
    }
    double velocity[2] = {speed * cos(direction), speed * sin(direction)};
    for (int i = 0; i < 2; ++i) {
        if (settings->velocity_parameters[i] >= 0)
            animator_set_number(animator, machine->parameters[settings->velocity_parameters[i]].name,
                                (float)velocity[i]);
        if (settings->speed_parameters[i] >= 0)
            animator_set_number(animator, machine->parameters[settings->speed_parameters[i]].name, (float)speed);
    }
}

/* A leg's joints in the world (canonical frame of the entity, moved by its travel). */
typedef struct feet_leg_points {
    vec3 hip, knee, ankle;
} feet_leg_points;

static feet_leg_points leg_points(const anim_character *character, const joint_pose *pose, const pose_ik_chain *leg)
{
    feet_leg_points points;
    joint_canonical(character, pose, leg->hip, points.hip);
    joint_canonical(character, pose, leg->knee, points.knee);
    joint_canonical(character, pose, leg->ankle, points.ankle);
    return points;
}

/* The knee's hinge (thigh x shin): the lock must keep it pointing the way the animation's does. */
static void knee_hinge(const feet_leg_points *points, vec3 out)
{
    vec3 thigh, shin;
    glm_vec3_sub((float *)points->hip, (float *)points->knee, thigh);
    glm_vec3_sub((float *)points->ankle, (float *)points->knee, shin);
    glm_vec3_cross(thigh, shin, out);
}

/* The knee shown bends the other way than the animated one (past straight), by more than FEET_KNEE_FLIP
 * degrees, where the animated one bends by at least that much (a straight leg has no side to keep). */
#define FEET_KNEE_FLIP 1.0f
static bool knee_flipped(const feet_leg_points *animated, const vec3 hinge_animated, const feet_leg_points *shown,
                         const vec3 hinge_shown)
{
    float animated_lengths = glm_vec3_distance((float *)animated->hip, (float *)animated->knee) *
                             glm_vec3_distance((float *)animated->ankle, (float *)animated->knee);
    float shown_lengths = glm_vec3_distance((float *)shown->hip, (float *)shown->knee) *
                          glm_vec3_distance((float *)shown->ankle, (float *)shown->knee);
    float least = sinf(glm_rad(FEET_KNEE_FLIP));
    float animated_bend = glm_vec3_norm((float *)hinge_animated);
    if (!(animated_bend > least * animated_lengths) || !(shown_lengths > 0.0f))
        return false;
    /* The shown knee's bend measured about the animated hinge: negative is the other way. */
    return glm_vec3_dot((float *)hinge_shown, (float *)hinge_animated) / animated_bend < -least * shown_lengths;
}

bool feet_measure(const anim_character *character, const feet_settings *settings, const feet_plants *plants,
                  double speed, double direction, feet_case *out)
{
    *out = (feet_case){.speed = speed, .direction = direction, .reached_state = true, .worst_foot = -1,
                       .finite = true};
    /* The lock as asked, whatever characters.ini says: a copy of the character that differs only there
     * (its clips, blends and machine are the same arrays, so clip indices below still hold). */
    anim_character locked = *character;
    locked.foot_lock.enabled = settings->lock;
    animator *animator = animator_create(&locked);
    if (!animator)
        return false;
    set_velocity(animator, settings, speed, direction);
    double dt = 1.0 / settings->rate_hz;
    /* The entity moves at the velocity in its own frame, which is the world's here (facing +X, from the
     * origin): what the demo's mover does at a steady speed. */
    double velocity[2] = {speed * cos(direction), speed * sin(direction)};
    int settle_steps = (int)lround(settings->settle_seconds * settings->rate_hz);
    int measure_steps = (int)lround(settings->measure_seconds * settings->rate_hz);
    const anim_controller *controller = animator_controller(animator);
    int joint_count = character->model->skeleton.joint_count;
    foot_contact contacts[FEET_MAX_FEET] = {{0}};
    double bind_height[FEET_MAX_FEET];
    for (int f = 0; f < settings->foot_count; ++f) {
        vec3 bind;
        joint_canonical(character, character->model->skeleton.bind_object, settings->feet[f], bind);
        bind_height[f] = bind[2];
    }
    vec3 last_correction[ANIM_FEET_MAX] = {{0}};
    for (int step = 0; step < settle_steps + measure_steps; ++step) {
        if (!animator_update(animator, dt, NULL)) {
            out->finite = false;
            break;
        }
        double travelled[2] = {velocity[0] * (step + 1) * dt, velocity[1] * (step + 1) * dt};
        /* The legs as animated, then as locked: canonical (x, y) is the world's (x, -z) facing +X. */
        feet_leg_points animated[ANIM_FEET_MAX];
        for (int l = 0; l < character->leg_count; ++l)
            animated[l] = leg_points(character, anim_controller_object_pose(controller), &character->legs[l]);
        anim_placement placement = {.position = {(float)travelled[0], 0.0f, (float)-travelled[1]}};
        if (!animator_lock_feet(animator, &placement, NULL, (float)dt))
            out->finite = false;
        int measured = step - settle_steps; /* steps into the measurement, negative while settling */
        const joint_pose *pose = anim_controller_object_pose(controller);
        for (int l = 0; l < character->leg_count && settings->lock; ++l) {
            feet_leg_points shown = leg_points(character, pose, &character->legs[l]);
            vec3 correction, hinge_animated, hinge_shown;
            glm_vec3_sub(shown.ankle, animated[l].ankle, correction);
            knee_hinge(&animated[l], hinge_animated);
            knee_hinge(&shown, hinge_shown);
            if (measured < 0) {
                glm_vec3_copy(correction, last_correction[l]);
                continue;
            }
            out->knee_flips += knee_flipped(&animated[l], hinge_animated, &shown, hinge_shown);
            out->worst_correction = fmax(out->worst_correction, glm_vec3_norm(correction));
            out->worst_correction_step =
                fmax(out->worst_correction_step, glm_vec3_distance(correction, last_correction[l]));
            glm_vec3_copy(correction, last_correction[l]);
        }
        if (measured < 0)
            continue;
        if (animator_state(animator) != settings->state)
            out->reached_state = false;
        if (!pose_finite(pose, joint_count))
            out->finite = false;
        double weight_error = blend_weight_error(controller);
        if (!isfinite(weight_error))
            out->finite = false;
        out->weight_error = fmax(out->weight_error, weight_error);
        for (int f = 0; f < settings->foot_count; ++f) {
            foot_contact *contact = &contacts[f];
            if (!foot_planted(plants, character, controller, f)) {
                contact_end(contact, f, out);
                continue;
            }
            vec3 foot;
            joint_canonical(character, pose, settings->feet[f], foot);
            double at[2] = {foot[0] + travelled[0], foot[1] + travelled[1]};
            out->worst_height = fmax(out->worst_height, fabs(foot[2] - bind_height[f]));
            if (!contact->planted)
                *contact = (foot_contact){.planted = true, .began = measured * dt,
                                          .low = {at[0], at[1]}, .high = {at[0], at[1]}};
            for (int k = 0; k < 2; ++k) {
                contact->low[k] = fmin(contact->low[k], at[k]);
                contact->high[k] = fmax(contact->high[k], at[k]);
            }
        }
    }
    for (int f = 0; f < settings->foot_count; ++f)
        contact_end(&contacts[f], f, out);
    animator_destroy(animator);
    return true;
}

/* ---- the command ---- */

typedef struct feet_arguments {
    const char *config_folder;
    const char *character;
    const char *state;
    const char *sets[FEET_MAX_SETS];
    int set_count;
    const char *feet;
    long long speeds, directions;
    double top_speed; /* < 0: the blend's farthest point */
    double rate, seconds;
    double max_drift_mm; /* < 0: no bound */
    int lock;            /* --lock: 1 on, 0 off, -1 the character's (characters.ini foot_lock) */
    bool json;
} feet_arguments;

static const char feet_synopsis[] =
    "md5tool feet CONFIG_DIR [--character NAME] [--state NAME] [--set NAME=VALUE]... [--speeds N] "
    "[--directions N] [--top-speed M] [--rate HZ] [--seconds S] [--feet JOINT,JOINT] [--lock on|off] "
    "[--max-drift MM] [--json]";

/* Returns 0, or the exit status of the usage error it printed. */
static int parse_feet_arguments(int argc, char **argv, feet_arguments *a)
{
    *a = (feet_arguments){.speeds = 20, .directions = -1, .top_speed = -1.0, .rate = 60.0, .seconds = 4.0,
                          .max_drift_mm = -1.0, .lock = -1};
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        const char *value = has_value ? argv[i + 1] : "";
        if (strcmp(arg, "--json") == 0) {
            a->json = true;
            continue;
        }
        if (arg[0] != '-' || arg[1] != '-') {
            if (a->config_folder)
                return usage_error("feet: unexpected argument '%s' (one CONFIG_DIR)", arg);
            a->config_folder = arg;
            continue;
        }
        if (!has_value)
            return usage_error("feet: %s needs a value", arg);
        ++i;
        if (strcmp(arg, "--character") == 0) {
            a->character = value;
        } else if (strcmp(arg, "--state") == 0) {
            a->state = value;
        } else if (strcmp(arg, "--feet") == 0) {
            a->feet = value;
        } else if (strcmp(arg, "--set") == 0) {
            if (a->set_count == FEET_MAX_SETS)
                return usage_error("feet: at most %d --set", FEET_MAX_SETS);
            if (!strchr(value, '='))
                return usage_error("feet: --set needs NAME=VALUE, not '%s'", value);
            a->sets[a->set_count++] = value;
        } else if (strcmp(arg, "--speeds") == 0) {
            if (!parse_count(value, 1, FEET_MAX_SPEEDS, &a->speeds))
                return usage_error("feet: --speeds needs a whole number from 1 to %d", FEET_MAX_SPEEDS);
        } else if (strcmp(arg, "--directions") == 0) {
            if (!parse_count(value, 1, FEET_MAX_DIRECTIONS, &a->directions))
                return usage_error("feet: --directions needs a whole number from 1 to %d", FEET_MAX_DIRECTIONS);
        } else if (strcmp(arg, "--top-speed") == 0) {
            if (!parse_finite(value, &a->top_speed) || !(a->top_speed >= 0.0 && a->top_speed <= 1000.0))
                return usage_error("%s", "feet: --top-speed needs a speed in m/s from 0 to 1000");
        } else if (strcmp(arg, "--rate") == 0) {
            if (!parse_finite(value, &a->rate) || !(a->rate >= 1.0 && a->rate <= FEET_MAX_RATE))
                return usage_error("feet: --rate needs a number of steps per second from 1 to %d", FEET_MAX_RATE);
        } else if (strcmp(arg, "--seconds") == 0) {
            if (!parse_finite(value, &a->seconds) || !(a->seconds >= 0.1 && a->seconds <= 600.0))
                return usage_error("%s", "feet: --seconds needs a number of seconds from 0.1 to 600");
        } else if (strcmp(arg, "--lock") == 0) {
            if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0)
                return usage_error("feet: --lock needs on or off, not '%s'", value);
            a->lock = strcmp(value, "on") == 0;
        } else if (strcmp(arg, "--max-drift") == 0) {
            if (!parse_finite(value, &a->max_drift_mm) || !(a->max_drift_mm >= 0.0 && a->max_drift_mm <= 1e6))
                return usage_error("%s", "feet: --max-drift needs millimetres from 0 to 1000000");
        } else {
            return usage_error("feet: unknown option '%s'", arg);
        }
    }
    if (!a->config_folder)
        return usage_error("feet needs a config folder: %s", feet_synopsis);
    return 0;
}

/* The arguments that need the character: --set, --feet, --directions against the state's blend. Returns
 * 0, or the exit status of the error it printed. */
static int apply_character_arguments(const feet_arguments *a, const anim_character *character, feet_settings *settings)
{
    const state_machine_definition *machine = &character->machine;
    for (int i = 0; i < a->set_count; ++i) {
        char name[ANIM_NAME_MAX];
        const char *equals = strchr(a->sets[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(equals - a->sets[i]), a->sets[i]);
        int parameter = state_machine_find_parameter(machine, name);
        if (parameter < 0)
            return usage_error("feet: character '%s' has no parameter '%s'", character->name, name);
        const char *value = equals + 1;
        double number = 0.0;
        if (machine->parameters[parameter].type == STATE_MACHINE_BOOL) {
            if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0)
                return usage_error("feet: '%s' is a bool: true or false, not '%s'", name, value);
            number = strcmp(value, "true") == 0;
        } else if (machine->parameters[parameter].type != STATE_MACHINE_NUMBER || !parse_finite(value, &number)) {
            return usage_error("feet: '%s' is not a number parameter, or '%s' is not a number", name, value);
        }
        settings->set_parameters[settings->set_count] = parameter;
        settings->set_values[settings->set_count++] = (float)number;
    }
    if (a->feet) {
        settings->foot_count = 0;
        for (const char *cursor = a->feet; *cursor;) {
            size_t length = strcspn(cursor, ",");
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)length, cursor);
            int joint = skeleton_find_joint(&character->model->skeleton, name);
            if (joint < 0 || settings->foot_count == FEET_MAX_FEET)
                return usage_error("feet: --feet names 1 to %d joints of the skeleton; '%s' is not one", FEET_MAX_FEET,
                                   name);
            for (int other = 0; other < settings->foot_count; ++other)
                if (settings->feet[other] == joint) /* measured twice, it would count each drift twice */
                    return usage_error("feet: --feet names '%s' twice; each foot once", name);
            settings->feet[settings->foot_count++] = joint;
            cursor += length + (cursor[length] == ',');
        }
    }
    if (settings->foot_count == 0)
        return usage_error("feet: character '%s' has no feet the engine finds (foot.L and foot.R, or *foot* / *ankle* joints with a leg): "
                           "name them with --feet JOINT,JOINT",
                           character->name);
    if (a->directions > 1 && !settings->two_dimensional)
        return usage_error("feet: state '%s' plays no 2D blend: it moves forward only (--directions 1)",
                           machine->states[settings->state].name);
    settings->rate_hz = a->rate;
    settings->measure_seconds = a->seconds;
    if (a->lock >= 0)
        settings->lock = a->lock == 1;
    return 0;
}

/* The fastest the state is made for: its blend's farthest point from standing (2D) or its last (1D), or its
 * clip's ground speed. */
static double state_top_speed(const anim_character *character, const feet_settings *settings)
{
    const state_machine_state *state = &character->machine.states[settings->state];
    if (state->blend < 0)
        return state->clip >= 0 ? character->clips[state->clip].ground_speed * character->scale : 0.0;
    const anim_blend *blend = &character->blends[state->blend];
    double top = 0.0;
    for (int i = 0; i < blend->count; ++i)
        top = fmax(top, hypot(blend->points[i][0], blend->points[i][1]));
    return top;
}

static void print_case_text(const feet_settings *settings, const anim_character *character, const feet_case *c)
{
    printf("speed %.3f m/s direction %5.1f deg: ", c->speed, c->direction * 180.0 / GLM_PI);
    if (c->worst_foot >= 0)
        printf("%d contacts, worst drift %.2f mm (%s, from %.3f s), planted within %.1f mm of its height", c->contacts,
               c->worst_drift * 1000.0, character->model->skeleton.names[settings->feet[c->worst_foot]], c->worst_time,
               c->worst_height * 1000.0);
    else
        printf("no contact");
    if (settings->lock)
        printf(", lock moved an ankle %.1f mm at most, %.2f mm in a step, %d knee flips", c->worst_correction * 1000.0,
               c->worst_correction_step * 1000.0, c->knee_flips);
    printf(", weights sum to 1 within %.1e%s%s\n", c->weight_error, c->finite ? "" : ", NaN",
           c->reached_state ? "" : ", left the state");
}

static void json_case(json_writer *w, const feet_settings *settings, const anim_character *character, const feet_case *c)
{
    json_object_begin(w);
    json_key(w, "speed");
    json_number(w, c->speed);
    json_key(w, "direction_degrees");
    json_number(w, c->direction * 180.0 / GLM_PI);
    json_key(w, "contacts");
    json_integer(w, c->contacts);
    json_key(w, "worst_drift_mm");
    json_number(w, c->worst_drift * 1000.0);
    json_key(w, "worst_foot");
    json_string(w, c->worst_foot >= 0 ? character->model->skeleton.names[settings->feet[c->worst_foot]] : NULL);
    json_key(w, "worst_contact_began");
    json_number(w, c->worst_time);
    json_key(w, "worst_height_mm");
    json_number(w, c->worst_height * 1000.0);
    json_key(w, "weight_error");
    json_number(w, c->weight_error);
    json_key(w, "finite");
    json_bool(w, c->finite);
    json_key(w, "reached_state");
    json_bool(w, c->reached_state);
    json_key(w, "knee_flips");
    json_integer(w, c->knee_flips);
    json_key(w, "worst_correction_mm");
    json_number(w, c->worst_correction * 1000.0);
    json_key(w, "worst_correction_step_mm");
    json_number(w, c->worst_correction_step * 1000.0);
    json_object_end(w);
}

int command_feet(int argc, char **argv)
{
    feet_arguments a;
    int status = parse_feet_arguments(argc, argv, &a);
    if (status)
        return status;
    md5tool_config loaded;
    feet_case *cases = NULL;
    feet_plants plants = {0};
    status = EXIT_INVALID;
    if (!md5tool_config_open(a.config_folder, a.character, &loaded))
        goto done;
    const anim_character *character = loaded.character;
    feet_settings settings;
    diag error;
    if (!feet_settings_for(character, a.state, &settings, &error)) {
        char text[DIAG_TEXT_MAX];
        diag_format(&error, text, sizeof text);
        fprintf(stderr, "%s\n", text);
        goto done;
    }
    status = apply_character_arguments(&a, character, &settings);
    if (status)
        goto done;
    status = EXIT_INVALID;
    long long directions = a.directions > 0 ? a.directions : settings.two_dimensional ? 16 : 1;
    double top = a.top_speed >= 0.0 ? a.top_speed : state_top_speed(character, &settings);
    int count = (int)(a.speeds * directions);
    cases = calloc((size_t)count, sizeof *cases);
    if (!cases || !feet_plants_find(character, &settings, &plants)) {
        fprintf(stderr, "feet: out of memory\n");
        goto done;
    }
    int worst = 0;
    bool failed = false;
    for (int i = 0; i < count; ++i) {
        long long s = i / directions, d = i % directions;
        double speed = a.speeds > 1 ? top * (double)s / (double)(a.speeds - 1) : top;
        double direction = 2.0 * GLM_PI * (double)d / (double)directions;
        if (!feet_measure(character, &settings, &plants, speed, direction, &cases[i])) {
            fprintf(stderr, "%s: cannot animate character '%s'\n", loaded.characters_path, character->name);
            goto done;
        }
        if (cases[i].worst_drift > cases[worst].worst_drift)
            worst = i;
        failed |= !cases[i].finite || !cases[i].reached_state || cases[i].weight_error > FEET_WEIGHT_TOLERANCE ||
                  cases[i].knee_flips > 0 ||
                  (a.max_drift_mm >= 0.0 && cases[i].worst_drift * 1000.0 > a.max_drift_mm);
        if (!a.json)
            print_case_text(&settings, character, &cases[i]);
    }
    double weight_error = 0.0, correction = 0.0, correction_step = 0.0;
    int knee_flips = 0;
    bool finite = true, reached = true;
    int unmeasured = 0; /* cases in which no foot was planted long enough for a step to see it */
    for (int i = 0; i < count; ++i) {
        unmeasured += cases[i].worst_foot < 0;
        weight_error = fmax(weight_error, cases[i].weight_error);
        correction = fmax(correction, cases[i].worst_correction);
        correction_step = fmax(correction_step, cases[i].worst_correction_step);
        knee_flips += cases[i].knee_flips;
        finite &= cases[i].finite;
        reached &= cases[i].reached_state;
    }
    const char *state_name = character->machine.states[settings.state].name;
    if (a.json) {
        json_writer w = json_writer_start(stdout);
        json_object_begin(&w);
        json_key(&w, "character");
        json_string(&w, character->name);
        json_key(&w, "state");
        json_string(&w, state_name);
        json_key(&w, "lock");
        json_bool(&w, settings.lock);
        json_key(&w, "rate_hz");
        json_number(&w, settings.rate_hz);
        json_key(&w, "seconds");
        json_number(&w, settings.measure_seconds);
        json_key(&w, "cases");
        json_array_begin(&w);
        for (int i = 0; i < count; ++i)
            json_case(&w, &settings, character, &cases[i]);
        json_array_end(&w);
        json_key(&w, "worst");
        json_case(&w, &settings, character, &cases[worst]);
        json_key(&w, "cases_without_contact");
        json_integer(&w, unmeasured);
        json_key(&w, "weight_error");
        json_number(&w, weight_error);
        json_key(&w, "finite");
        json_bool(&w, finite);
        json_key(&w, "reached_state");
        json_bool(&w, reached);
        json_key(&w, "knee_flips");
        json_integer(&w, knee_flips);
        json_key(&w, "worst_correction_mm");
        json_number(&w, correction * 1000.0);
        json_key(&w, "worst_correction_step_mm");
        json_number(&w, correction_step * 1000.0);
        json_object_end(&w);
        putchar('\n');
    } else {
        printf("%s in state %s, foot lock %s, %d cases (%lld speeds 0 to %.3f m/s x %lld directions) at %g Hz, %g s "
               "each: worst drift %.2f mm (speed %.3f m/s, direction %.1f deg), %d cases without a contact; weights sum "
               "to 1 within %.1e; %s%s\n",
               character->name, state_name, settings.lock ? "on" : "off", count, a.speeds, top, directions,
               settings.rate_hz,
               settings.measure_seconds, cases[worst].worst_drift * 1000.0, cases[worst].speed,
               cases[worst].direction * 180.0 / GLM_PI, unmeasured, weight_error, finite ? "no NaN" : "NaN seen",
               reached ? "" : "; the machine left the state (set its way in with --set)");
        if (settings.lock)
            printf("the lock moved an ankle %.1f mm at most and %.2f mm at most in one step; %d knee flips\n",
                   correction * 1000.0, correction_step * 1000.0, knee_flips);
    }
    status = failed ? EXIT_INVALID : EXIT_SUCCESS;
done:
    feet_plants_free(&plants);
    free(cases);
    md5tool_config_close(&loaded);
    return status;
}
