/* states.ini: one character's state machine definition. [parameters], [state NAME] and [FROM -> TO]
 * sections may come in any order and refer to each other; a transition's `when` is a condition such as
 * "speed > 0.2 and grounded or jump", one state machine transition per alternative. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim_config_internal.h"

/* ---------------------------------------------------------------------------------------------------- */
/* states.ini                                                                                            */

static const char *const anim_config_machine_keys[] = {"start", "fade", "trigger_hold", NULL};
static const char *const anim_config_state_keys[] = {"clip",     "loop",    "rate",         "rate_from",      "rate_min",
                                                     "rate_max", "overlay", "overlay_root", "overlay_weight", "moved_by",
                                                     NULL};
static const char *const anim_config_transition_keys[] = {"when", "fade", "priority", "restart", NULL};
static const char *const anim_config_blend_keys[] = {"parameters", "clip.*", "rest", NULL};
static const char anim_config_blend_clip_prefix[] = "clip.";

typedef enum states_section_kind {
    STATES_SECTION_UNKNOWN,
    STATES_SECTION_MACHINE,
    STATES_SECTION_PARAMETERS,
    STATES_SECTION_STATE,
    STATES_SECTION_BLEND,
    STATES_SECTION_TRANSITION,
} states_section_kind;

/* "[state walk]" -> walk; "[idle -> walk]" -> idle, walk. */
static states_section_kind anim_config_states_section(const char *section_name, char *first, char *second)
{
    first[0] = second[0] = '\0';
    if (strcmp(section_name, "machine") == 0)
        return STATES_SECTION_MACHINE;
    if (strcmp(section_name, "parameters") == 0)
        return STATES_SECTION_PARAMETERS;
    char copy[ANIM_CONFIG_PATH_MAX];
    snprintf(copy, sizeof copy, "%s", section_name);
    if (strncmp(copy, "state ", 6) == 0 || strncmp(copy, "state\t", 6) == 0) {
        snprintf(first, ANIM_CONFIG_PATH_MAX, "%s", ini_trim(copy + 6));
        return STATES_SECTION_STATE;
    }
    if (strncmp(copy, "blend ", 6) == 0 || strncmp(copy, "blend\t", 6) == 0) {
        snprintf(first, ANIM_CONFIG_PATH_MAX, "%s", ini_trim(copy + 6));
        return STATES_SECTION_BLEND;
    }
    char *arrow = strstr(copy, "->");
    if (arrow) {
        *arrow = '\0';
        snprintf(first, ANIM_CONFIG_PATH_MAX, "%s", ini_trim(copy));
        snprintf(second, ANIM_CONFIG_PATH_MAX, "%s", ini_trim(arrow + 2));
        return STATES_SECTION_TRANSITION;
    }
    return STATES_SECTION_UNKNOWN;
}

static void anim_config_read_parameters(anim_config_loader *loader, const char *path, const ini_section *section,
                                        state_machine_definition *machine)
{
    for (int e = 0; e < section->entry_count; ++e) {
        const ini_entry *entry = &section->entries[e];
        if (!anim_config_check_name(loader, path, entry->line, "parameter", entry->key))
            continue;
        if (anim_config_is_reserved(entry->key) || strchr(entry->key, '.') || strchr(entry->key, '-') ||
            (entry->key[0] >= '0' && entry->key[0] <= '9')) {
            anim_config_report(loader, path, entry->line,
                               "'%s' cannot name a parameter (reserved word, or not usable in a condition)",
                               entry->key);
            continue;
        }
        if (machine->parameter_count == STATE_MACHINE_MAX_PARAMETERS) {
            anim_config_report(loader, path, entry->line, "too many parameters (at most %d)",
                               STATE_MACHINE_MAX_PARAMETERS);
            return;
        }
        char type[ANIM_NAME_MAX] = "", value[ANIM_NAME_MAX] = "", extra[2] = "";
        int fields = sscanf(entry->value, "%63s %63s %1s", type, value, extra);
        state_machine_parameter parameter = {0};
        snprintf(parameter.name, sizeof parameter.name, "%s", entry->key);
        ini_entry default_entry = {.key = entry->key, .value = value, .line = entry->line};
        bool ok = fields >= 1 && fields <= 2;
        bool flag = false;
        if (ok && strcmp(type, "number") == 0) {
            parameter.type = STATE_MACHINE_NUMBER;
            ok = fields == 1 ||
                 anim_config_parse_number(loader, path, &default_entry, ANIM_RANGE_PARAMETER_DEFAULT,
                                          &parameter.default_value);
            if (!ok)
                continue;
        } else if (ok && strcmp(type, "bool") == 0) {
            parameter.type = STATE_MACHINE_BOOL;
            ok = fields == 1 || anim_config_parse_bool(loader, path, &default_entry, &flag);
            if (!ok)
                continue;
            parameter.default_value = flag ? 1.0f : 0.0f;
        } else if (ok && strcmp(type, "trigger") == 0 && fields == 1) {
            parameter.type = STATE_MACHINE_TRIGGER;
        } else {
            ok = false;
        }
        if (!ok) {
            anim_config_report(loader, path, entry->line,
                               "parameter '%s' must be 'number [DEFAULT]', 'bool [true|false]' or 'trigger', not '%s'",
                               entry->key, entry->value);
            continue;
        }
        machine->parameters[machine->parameter_count++] = parameter;
    }
}

/* The clip named by entry, or -1 after saying which clips exist. */
static int anim_config_state_clip(anim_config_loader *loader, const char *path, const ini_entry *entry,
                                  const anim_character *character)
{
    int clip = anim_config_find_clip(character, entry->value);
    if (clip < 0) {
        char list[DIAG_MESSAGE_MAX / 2];
        anim_config_join_names(list, sizeof list, character->clips ? character->clips[0].name : "",
                               sizeof character->clips[0], character->clip_count);
        int stand_in = anim_config_first_loaded_clip(character);
        if (loader->partial && stand_in >= 0) {
            anim_config_report_stand_in(loader, path, entry->line,
                                        "unknown clip '%s' (the clip library has: %s); [%s] plays in its place",
                                        entry->value, list, character->clips[stand_in].name);
            return stand_in;
        }
        anim_config_report(loader, path, entry->line, "unknown clip '%s' (the clip library has: %s)", entry->value,
                           list);
    }
    return clip;
}

/* A number parameter named by a blend's `parameters`, or -1 after saying why. */
static int anim_config_blend_parameter(anim_config_loader *loader, const char *path, const ini_entry *entry,
                                       const state_machine_definition *machine, const char *name)
{
    int parameter = state_machine_find_parameter(machine, name);
    if (parameter < 0 || machine->parameters[parameter].type != STATE_MACHINE_NUMBER) {
        anim_config_report(loader, path, entry->line, "a blend's parameters must be number parameters; '%s' is not one",
                           name);
        return -1;
    }
    return parameter;
}

/* One `clip.NAME = X [Y]` line of a blend: the clip and its point, added to the blend. */
static void anim_config_read_blend_clip(anim_config_loader *loader, const char *path, const ini_entry *entry,
                                        const anim_character *character, anim_blend *blend)
{
    const char *name = entry->key + strlen(anim_config_blend_clip_prefix);
    int clip = anim_config_find_clip(character, name);
    if (clip < 0) {
        char list[DIAG_MESSAGE_MAX / 2];
        anim_config_join_names(list, sizeof list, character->clips ? character->clips[0].name : "",
                               sizeof character->clips[0], character->clip_count);
        anim_config_report(loader, path, entry->line, "blend '%s': unknown clip '%s' (the clip library has: %s)",
                           blend->name, name, list);
        return;
    }
    /* A partial load plays its stand-in where a clip's file failed, as a state would. */
    if (!character->clips[clip].clip && loader->partial && anim_config_first_loaded_clip(character) >= 0)
        clip = anim_config_first_loaded_clip(character);
    if (blend->count == ANIM_BLEND_MAX_CLIPS) {
        anim_config_report(loader, path, entry->line, "blend '%s': more than %d clips", blend->name,
                           ANIM_BLEND_MAX_CLIPS);
        return;
    }
    char words[3][32] = {"", "", ""};
    int count = sscanf(entry->value, "%31s %31s %31s", words[0], words[1], words[2]);
    if (count != blend->dimensions) {
        anim_config_report(loader, path, entry->line,
                           "blend '%s' has %d parameter%s, so clip '%s' needs %s, not '%s'", blend->name,
                           blend->dimensions, blend->dimensions == 1 ? "" : "s", name,
                           blend->dimensions == 1 ? "one position (X)" : "a point (X Y)", entry->value);
        return;
    }
    float point[2] = {0.0f, 0.0f};
    for (int axis = 0; axis < count; ++axis) {
        char range[64];
        if (!ini_parse_float(words[axis], &point[axis]) || !anim_config_in_range(ANIM_RANGE_BLEND_POINT, point[axis])) {
            anim_config_report(loader, path, entry->line, "blend '%s': clip '%s': '%s' must be a number from %s",
                               blend->name, name, words[axis],
                               anim_config_range_text(ANIM_RANGE_BLEND_POINT, range, sizeof range));
            return;
        }
    }
    blend->clips[blend->count] = &character->clips[clip];
    blend->points[blend->count][0] = point[0];
    blend->points[blend->count][1] = point[1];
    blend->count++;
}

/* Sort a 1D blend's clips by position (blend_space's line wants them so). Few clips: insertion sort. */
static void anim_config_sort_blend(anim_blend *blend)
{
    for (int i = 1; i < blend->count; ++i) {
        for (int j = i; j > 0 && blend->points[j - 1][0] > blend->points[j][0]; --j) {
            const anim_clip *clip = blend->clips[j];
            blend->clips[j] = blend->clips[j - 1];
            blend->clips[j - 1] = clip;
            float point[2] = {blend->points[j][0], blend->points[j][1]};
            blend->points[j][0] = blend->points[j - 1][0];
            blend->points[j][1] = blend->points[j - 1][1];
            blend->points[j - 1][0] = point[0];
            blend->points[j - 1][1] = point[1];
        }
    }
}

/* `rest = X [Y]`: an additive blend's point of no change (anim_blend.h), apart from every clip's. */
static void anim_config_read_blend_rest(anim_config_loader *loader, const char *path, const ini_entry *entry,
                                        anim_blend *blend)
{
    if (!blend->additive) {
        anim_config_report(loader, path, entry->line,
                           "blend '%s': only an additive blend has a rest (its clips are not additive)", blend->name);
        return;
    }
    if (blend->count >= ANIM_BLEND_MAX_CLIPS) {
        anim_config_report(loader, path, entry->line, "blend '%s': a rest and %d clips are more than %d points",
                           blend->name, blend->count, ANIM_BLEND_MAX_CLIPS);
        return;
    }
    char words[3][32] = {"", "", ""};
    int count = sscanf(entry->value, "%31s %31s %31s", words[0], words[1], words[2]);
    float point[2] = {0.0f, 0.0f};
    char range[64];
    anim_config_range_text(ANIM_RANGE_BLEND_POINT, range, sizeof range);
    bool numbers = count == blend->dimensions;
    for (int axis = 0; axis < count && numbers; ++axis)
        numbers = ini_parse_float(words[axis], &point[axis]) && anim_config_in_range(ANIM_RANGE_BLEND_POINT, point[axis]);
    if (!numbers) {
        anim_config_report(loader, path, entry->line, "blend '%s': rest must be %s, each a number from %s, not '%s'",
                           blend->name, blend->dimensions == 1 ? "one position (X)" : "a point (X Y)", range,
                           entry->value);
        return;
    }
    blend->has_rest = true;
    blend->rest[0] = point[0];
    blend->rest[1] = point[1];
    if (!anim_blend_valid(blend)) {
        anim_config_report(loader, path, entry->line, "blend '%s': the rest (%s) is at a clip's point", blend->name,
                           entry->value);
        blend->has_rest = false;
    }
}

/* [blend NAME]: parameters = X [Y], then clip.NAME = X [Y] per clip. Everything it finds wrong is reported
 * at its line; a blend with a mistake is left with count 0 and no state can play it. */
static void anim_config_read_blend(anim_config_loader *loader, const char *path, const ini_section *section,
                                   const anim_character *character, const state_machine_definition *machine,
                                   anim_blend *blend)
{
    int errors_before = loader->error_count;
    anim_config_check_keys(loader, path, section, anim_config_blend_keys);
    blend->parameters[0] = blend->parameters[1] = -1;
    blend->sync_group = -1;
    const ini_entry *entry = ini_find_entry(section, "parameters");
    if (!entry) {
        anim_config_report(loader, path, section->line,
                           "blend '%s' has no 'parameters': one number parameter (a line) or two (a plane)",
                           blend->name);
        return;
    }
    char names[2][ANIM_NAME_MAX] = {"", ""}, extra[2] = "";
    int words = sscanf(entry->value, "%63s %63s %1s", names[0], names[1], extra);
    if (words != 1 && words != 2) {
        anim_config_report(loader, path, entry->line,
                           "parameters must be one number parameter (a 1D blend) or two (2D: X Y), not '%s'",
                           entry->value);
        return;
    }
    blend->dimensions = words;
    for (int axis = 0; axis < words; ++axis)
        blend->parameters[axis] = anim_config_blend_parameter(loader, path, entry, machine, names[axis]);
    for (int e = 0; e < section->entry_count; ++e) {
        const ini_entry *clip_entry = &section->entries[e];
        if (strncmp(clip_entry->key, anim_config_blend_clip_prefix, strlen(anim_config_blend_clip_prefix)) == 0)
            anim_config_read_blend_clip(loader, path, clip_entry, character, blend);
    }
    if (blend->count == 0) {
        anim_config_report(loader, path, section->line, "blend '%s' has no clips: add 'clip.NAME = %s' lines",
                           blend->name, words == 1 ? "X" : "X Y");
        return;
    }
    blend->loop = blend->clips[0]->loop;
    blend->additive = blend->clips[0]->additive;
    for (int i = 1; i < blend->count; ++i) {
        if (blend->clips[i]->loop != blend->loop)
            anim_config_report(loader, path, section->line,
                               "blend '%s' mixes a cycle and a one-shot ('%s' and '%s'): its clips share one phase, "
                               "so they must all loop or all be one-shots (clips.ini loop)",
                               blend->name, blend->clips[0]->name, blend->clips[i]->name);
        if (blend->clips[i]->additive != blend->additive)
            anim_config_report(loader, path, section->line,
                               "blend '%s' mixes additive and ordinary clips ('%s' and '%s')", blend->name,
                               blend->clips[0]->name, blend->clips[i]->name);
    }
    /* The group its looping clips share, so a plain clip of that group crossfading with it keeps the step. */
    for (int i = 0; i < blend->count; ++i) {
        int group = blend->clips[i]->sync_group;
        if (group < 0)
            continue;
        if (blend->sync_group >= 0 && group != blend->sync_group) {
            blend->sync_group = -1;
            break;
        }
        blend->sync_group = group;
    }
    if (words == 1) {
        anim_config_sort_blend(blend);
        for (int i = 1; i < blend->count; ++i)
            if (blend->points[i][0] == blend->points[i - 1][0])
                anim_config_report(loader, path, section->line, "blend '%s': clips '%s' and '%s' are both at %g",
                                   blend->name, blend->clips[i - 1]->name, blend->clips[i]->name,
                                   (double)blend->points[i][0]);
    } else if (!blend_space_2d_valid((const float(*)[2])blend->points, blend->count)) {
        anim_config_report(loader, path, section->line,
                           "blend '%s': two clips are at the same point (each clip needs its own point)", blend->name);
    }
    const ini_entry *rest = ini_find_entry(section, "rest");
    if (rest && loader->error_count == errors_before)
        anim_config_read_blend_rest(loader, path, rest, blend);
    if (loader->error_count != errors_before)
        blend->count = 0;
    else
        anim_blend_prepare(blend);
}

/* What a state's `clip` or `overlay` names: a blend of this states.ini (*blend its index; the clip returned
 * is the blend's first), or a clip of the library (*blend -1). -1 after reporting. */
static int anim_config_state_playable(anim_config_loader *loader, const char *path, const ini_entry *entry,
                                      const anim_character *character, int *blend)
{
    *blend = anim_config_find_blend(character, entry->value);
    if (*blend < 0)
        return anim_config_state_clip(loader, path, entry, character);
    const anim_blend *found = &character->blends[*blend];
    if (found->count == 0) { /* its own mistake was reported at its section */
        *blend = -1;
        return -1;
    }
    return (int)(found->clips[0] - character->clips);
}

/* overlay_weight = PARAMETER [LOW HIGH]: a number parameter, mapped from [LOW, HIGH] (default 0 1) to the
 * overlay's weight 0..1. */
static void anim_config_read_overlay_weight(anim_config_loader *loader, const char *path, const ini_entry *entry,
                                            bool has_overlay, const state_machine_definition *machine,
                                            state_machine_state *state)
{
    char name[ANIM_NAME_MAX] = "", low_text[32] = "", high_text[32] = "", extra[2] = "";
    int words = sscanf(entry->value, "%63s %31s %31s %1s", name, low_text, high_text, extra);
    if (!has_overlay) {
        anim_config_report(loader, path, entry->line, "overlay_weight without an overlay clip");
        return;
    }
    if (words != 1 && words != 3) {
        anim_config_report(loader, path, entry->line,
                           "overlay_weight must be PARAMETER or PARAMETER LOW HIGH (a number parameter and the "
                           "values that map to weight 0 and 1), not '%s'", entry->value);
        return;
    }
    int parameter = state_machine_find_parameter(machine, name);
    if (parameter < 0 || machine->parameters[parameter].type != STATE_MACHINE_NUMBER) {
        anim_config_report(loader, path, entry->line, "overlay_weight needs a number parameter; '%s' is not one", name);
        return;
    }
    float low = 0.0f, high = 1.0f;
    if (words == 3) {
        const char *texts[2] = {low_text, high_text};
        float *values[2] = {&low, &high};
        for (int i = 0; i < 2; ++i) {
            char range[64];
            if (!ini_parse_float(texts[i], values[i]) || !anim_config_in_range(ANIM_RANGE_CONDITION, *values[i])) {
                anim_config_report(loader, path, entry->line, "overlay_weight: '%s' must be a number from %s",
                                   texts[i], anim_config_range_text(ANIM_RANGE_CONDITION, range, sizeof range));
                return;
            }
        }
        if (low == high) {
            anim_config_report(loader, path, entry->line,
                               "overlay_weight: LOW and HIGH are both %g; they must differ", (double)low);
            return;
        }
    }
    state->overlay_weighted = true;
    state->overlay_weight_parameter = parameter;
    state->overlay_weight_low = low;
    state->overlay_weight_high = high;
}

/* moved_by = mover | clip: who moves the entity in this state. The clip can only if it carries root motion. */
static void anim_config_read_moved_by(anim_config_loader *loader, const char *path, const ini_entry *entry,
                                      const anim_character *character, state_machine_state *state)
{
    if (strcmp(entry->value, "mover") == 0) {
        state->moved_by_clip = false;
    } else if (strcmp(entry->value, "clip") != 0) {
        anim_config_report(loader, path, entry->line, "moved_by must be mover or clip, not '%s'", entry->value);
    } else if (state->clip >= 0 && character->clips[state->clip].root_mode != ANIM_ROOT_MOTION) {
        anim_config_report(loader, path, entry->line,
                           "moved_by = clip needs a root-motion clip: '%s' has root_motion = false in the clip library",
                           character->clips[state->clip].name);
    } else {
        state->moved_by_clip = true;
    }
}

static void anim_config_read_state(anim_config_loader *loader, const char *path, const ini_section *section,
                                   const anim_character *character, const state_machine_definition *machine,
                                   state_machine_state *state)
{
    anim_config_check_keys(loader, path, section, anim_config_state_keys);
    state->clip = state->blend = state->rate_parameter = state->overlay_clip = state->overlay_blend =
        state->overlay_root_joint = -1;
    state->rate = 1.0f;
    state->rate_min = 0.0f;
    state->rate_max = INFINITY;
    const ini_entry *entry = ini_find_entry(section, "clip");
    const anim_blend *blend = NULL;
    if (!entry)
        anim_config_report(loader, path, section->line, "state '%s' has no 'clip'", state->name);
    else if ((state->clip = anim_config_state_playable(loader, path, entry, character, &state->blend)) >= 0) {
        blend = state->blend >= 0 ? &character->blends[state->blend] : NULL;
        state->loop = blend ? blend->loop : character->clips[state->clip].loop;
    }
    if (entry && state->clip >= 0 && (blend ? blend->additive : character->clips[state->clip].additive))
        anim_config_report(loader, path, entry->line,
                           "%s '%s' is additive (clips.ini): it can only be added as an overlay, not be the body",
                           blend ? "blend" : "clip", blend ? blend->name : character->clips[state->clip].name);
    bool flag;
    if ((entry = ini_find_entry(section, "loop")) && blend)
        anim_config_report(loader, path, entry->line,
                           "loop does not apply to blend '%s': its clips' own loop settings (clips.ini) decide",
                           blend->name);
    else if (entry && anim_config_parse_bool(loader, path, entry, &flag))
        state->loop = flag;
    if ((entry = ini_find_entry(section, "rate")))
        anim_config_parse_number(loader, path, entry, ANIM_RANGE_RATE, &state->rate);

    const ini_entry *rate_from = ini_find_entry(section, "rate_from");
    if (rate_from) {
        state->rate_parameter = state_machine_find_parameter(machine, rate_from->value);
        state->rate_min = 0.0f;
        state->rate_max = 4.0f;
        if (state->rate_parameter < 0 || machine->parameters[state->rate_parameter].type != STATE_MACHINE_NUMBER) {
            anim_config_report(loader, path, rate_from->line, "rate_from needs a number parameter; '%s' is not one",
                               rate_from->value);
        } else if (blend) {
            bool travels = false;
            for (int i = 0; i < blend->count; ++i)
                travels = travels || blend->clips[i]->ground_speed > 0.0f;
            if (!travels)
                anim_config_report(loader, path, rate_from->line,
                                   "rate_from needs a blend with a clip that travels; no clip of blend '%s' has a "
                                   "speed in the clip library", blend->name);
            /* rate_reference stays 0: the blend's ground speed at its point is the reference, every step. */
        } else if (state->clip >= 0 && !(character->clips[state->clip].ground_speed > 0.0f)) {
            anim_config_report(loader, path, rate_from->line,
                               "rate_from needs a clip that travels; clip '%s' has no speed in the clip library",
                               character->clips[state->clip].name);
        } else if (state->clip >= 0) {
            /* The game's speed parameter is in m/s; the clip's speed is in its file's units. */
            state->rate_reference = anim_clip_ground_speed_metres(&character->clips[state->clip]);
        }
    }
    const char *limits[] = {"rate_min", "rate_max"};
    float *limit_values[] = {&state->rate_min, &state->rate_max};
    for (int i = 0; i < 2; ++i) {
        if (!(entry = ini_find_entry(section, limits[i])))
            continue;
        if (!rate_from)
            anim_config_report(loader, path, entry->line, "%s only applies with rate_from", limits[i]);
        else
            anim_config_parse_number(loader, path, entry, ANIM_RANGE_RATE, limit_values[i]);
    }
    if (state->rate_min > state->rate_max)
        anim_config_report(loader, path, section->line, "state '%s': rate_min %g is above rate_max %g", state->name,
                           (double)state->rate_min, (double)state->rate_max);

    const ini_entry *overlay = ini_find_entry(section, "overlay");
    const ini_entry *overlay_root = ini_find_entry(section, "overlay_root");
    if (overlay)
        state->overlay_clip = anim_config_state_playable(loader, path, overlay, character, &state->overlay_blend);
    /* A blend over a branch is an additive layer (a lean by speed, a breath): one whose clips replace the
     * branch would play a second locomotion on the upper body, which nothing here is made for. */
    if (overlay && state->overlay_blend >= 0 && !character->blends[state->overlay_blend].additive) {
        anim_config_report(loader, path, overlay->line,
                           "overlay blend '%s' is not additive: a blend can be an overlay only when its clips are "
                           "additive (clips.ini); a replacing overlay is one clip",
                           character->blends[state->overlay_blend].name);
        state->overlay_clip = state->overlay_blend = -1;
    }
    if (overlay && !overlay_root)
        anim_config_report(loader, path, overlay->line,
                           "an overlay needs 'overlay_root': the joint whose branch it plays on, e.g. spine.01");
    if (overlay_root && !overlay)
        anim_config_report(loader, path, overlay_root->line, "overlay_root without an overlay clip");
    if (overlay_root && character->model) {
        state->overlay_root_joint = skeleton_find_joint(&character->model->skeleton, overlay_root->value);
        if (state->overlay_root_joint < 0)
            anim_config_report(loader, path, overlay_root->line,
                               "the model has no joint '%s' (names are case-sensitive, e.g. spine.01, clavicle.R)",
                               overlay_root->value);
    }
    if ((entry = ini_find_entry(section, "overlay_weight")))
        anim_config_read_overlay_weight(loader, path, entry, overlay != NULL, machine, state);
    if ((entry = ini_find_entry(section, "moved_by")))
        anim_config_read_moved_by(loader, path, entry, character, state);
}

static const char *anim_config_state_name(const void *states, int i)
{
    return ((const state_machine_state *)states)[i].name;
}

/* The state called name, or -1: a hash lookup (name_index over machine->states, filled as the states are
 * read), so a file at the limits (1024 states, 4096 transitions) loads in linear time. */
static int anim_config_find_state(const name_index *states_index, const state_machine_definition *machine,
                                  const char *name)
{
    return name_index_find(states_index, machine->states, anim_config_state_name, name);
}

/* The state index a transition section names, or STATE_MACHINE_ANY for `any` (only allowed as from). */
static int anim_config_transition_end(anim_config_loader *loader, const char *path, const ini_section *section,
                                      const state_machine_definition *machine, const name_index *states_index,
                                      const char *name, bool from)
{
    if (from && strcmp(name, "any") == 0)
        return STATE_MACHINE_ANY;
    int state = anim_config_find_state(states_index, machine, name);
    if (state < 0) {
        char list[DIAG_MESSAGE_MAX / 2];
        const char *first_name = machine->state_count ? machine->states[0].name : "";
        anim_config_report(loader, path, section->line, "unknown state '%s' in [%s] (states: %s%s)", name,
                           section->name, from ? "any, " : "",
                           anim_config_join_names(list, sizeof list, first_name, sizeof machine->states[0],
                                                  machine->state_count));
    }
    return state;
}

static bool anim_config_push_transition(anim_character_storage *storage, state_machine_definition *machine,
                                        const state_machine_transition *transition)
{
    if (machine->transition_count == storage->transition_capacity) {
        int capacity = storage->transition_capacity ? storage->transition_capacity * 2 : 16;
        state_machine_transition *grown = realloc(storage->transitions, (size_t)capacity * sizeof *grown);
        if (!grown)
            return false;
        storage->transitions = grown;
        storage->transition_capacity = capacity;
        machine->transitions = grown;
    }
    storage->transitions[machine->transition_count++] = *transition;
    return true;
}

/* False once the machine holds ANIM_CONFIG_TRANSITIONS_MAX transitions: reported at section's line, once
 * (*full remembers). */
static bool anim_config_transition_room(anim_config_loader *loader, const char *path, const ini_section *section,
                                        const state_machine_definition *machine, bool *full)
{
    if (machine->transition_count < ANIM_CONFIG_TRANSITIONS_MAX)
        return true;
    if (!*full)
        anim_config_report(loader, path, section->line,
                           "more than %d transitions (each 'or' alternative counts as one): the rest are not read",
                           ANIM_CONFIG_TRANSITIONS_MAX);
    *full = true;
    return false;
}

static void anim_config_read_transition(anim_config_loader *loader, const char *path, const ini_section *section,
                                        const char *from_name, const char *to_name, float default_fade,
                                        anim_character_storage *storage, state_machine_definition *machine,
                                        const name_index *states_index, bool *full)
{
    anim_config_check_keys(loader, path, section, anim_config_transition_keys);
    state_machine_transition transition = {.fade = default_fade};
    transition.from = anim_config_transition_end(loader, path, section, machine, states_index, from_name, true);
    transition.to = anim_config_transition_end(loader, path, section, machine, states_index, to_name, false);
    const ini_entry *entry;
    if ((entry = ini_find_entry(section, "fade")))
        anim_config_parse_number(loader, path, entry, ANIM_RANGE_FADE, &transition.fade);
    if ((entry = ini_find_entry(section, "priority")))
        anim_config_parse_integer(loader, path, entry, ANIM_RANGE_PRIORITY, &transition.priority);
    if ((entry = ini_find_entry(section, "restart")) &&
        anim_config_parse_bool(loader, path, entry, &transition.restart) && transition.from != STATE_MACHINE_ANY)
        anim_config_report(loader, path, entry->line,
                           "restart only applies to [any -> ...]; a [%s -> %s] transition always restarts when from "
                           "and to are the same", from_name, to_name);

    const ini_entry *when = ini_find_entry(section, "when");
    if (!when) {
        anim_config_report(loader, path, section->line, "transition [%s] has no 'when' (write 'when = true' to "
                           "always take it)", section->name);
        return;
    }
    state_machine_transition clauses[ANIM_CONFIG_MAX_OR];
    char error[DIAG_MESSAGE_MAX];
    int clause_count = anim_config_parse_condition(machine, when->value, clauses, error);
    if (clause_count == 0) {
        anim_config_report(loader, path, when->line, "bad condition '%s': %s", when->value, error);
        return;
    }
    if (transition.from < 0 && transition.from != STATE_MACHINE_ANY)
        return;
    for (int c = 0; c < clause_count; ++c) {
        for (int t = 0; t < clauses[c].term_count; ++t) {
            state_machine_term_kind kind = clauses[c].terms[t].kind;
            if (transition.from == STATE_MACHINE_ANY)
                continue;
            const state_machine_state *from = &machine->states[transition.from];
            /* A condition that can never hold is a mistake worth a message, not a silent dead transition. */
            if (kind == STATE_MACHINE_TERM_CLIP_END && from->loop)
                anim_config_report(loader, path, when->line,
                                   "'end' never happens: state '%s' loops (set loop = false on it for a one-shot)",
                                   from->name);
            if (kind == STATE_MACHINE_TERM_OVERLAY_END && from->overlay_clip < 0)
                anim_config_report(loader, path, when->line, "'overlay_end' never happens: state '%s' has no overlay",
                                   from->name);
        }
        if (transition.to < 0)
            continue;
        if (!anim_config_transition_room(loader, path, section, machine, full))
            return;
        state_machine_transition expanded = transition;
        expanded.term_count = clauses[c].term_count;
        memcpy(expanded.terms, clauses[c].terms, sizeof expanded.terms);
        if (!anim_config_push_transition(storage, machine, &expanded))
            anim_config_report(loader, path, section->line, "out of memory");
    }
}

/* Every state must be reachable from the start, or the user made a mistake (a typo in a transition's
 * section name, a forgotten transition). An `any` transition leads to its target from everywhere. */
static void anim_config_check_reachable(anim_config_loader *loader, const char *path,
                                        const state_machine_definition *machine, const int *state_lines)
{
    if (machine->start_state < 0 || machine->state_count <= 0)
        return;
    bool *reached = calloc((size_t)machine->state_count, sizeof *reached);
    if (!reached) {
        anim_config_report(loader, path, 0, "out of memory");
        return;
    }
    reached[machine->start_state] = true;
    /* A pass per step of the longest path: at most states x transitions, bounded by the file's limits. */
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < machine->transition_count; ++i) {
            const state_machine_transition *transition = &machine->transitions[i];
            bool from_reached = transition->from == STATE_MACHINE_ANY || reached[transition->from];
            if (from_reached && !reached[transition->to]) {
                reached[transition->to] = true;
                changed = true;
            }
        }
    }
    for (int s = 0; s < machine->state_count; ++s)
        if (!reached[s])
            anim_config_report(loader, path, state_lines[s],
                               "state '%s' cannot be reached from the start state '%s': no transition leads to it",
                               machine->states[s].name, machine->states[machine->start_state].name);
    free(reached);
}

/* Highest priority first; a stable insertion sort keeps the written order among equals. */
static void anim_config_sort_transitions(anim_character_storage *storage, int count)
{
    for (int i = 1; i < count; ++i) {
        state_machine_transition moving = storage->transitions[i];
        int slot = i;
        while (slot > 0 && storage->transitions[slot - 1].priority < moving.priority) {
            storage->transitions[slot] = storage->transitions[slot - 1];
            --slot;
        }
        storage->transitions[slot] = moving;
    }
}

_Static_assert((long long)ANIM_CONFIG_STATES_MAX * ANIM_CONFIG_TRANSITIONS_MAX + ANIM_CONFIG_STATES_MAX + 1 <= INT_MAX,
               "a machine at the states.ini limits must have room for its transition index in int offsets");

/* Each state's candidate transitions, so a step tries only those (state_machine_index). It takes
 * states + 1 + (transitions from a state) + states * (`any` transitions) ints: the shipped states.ini needs
 * a few hundred bytes, a file at the limits where every transition is an `any` one about 16 MiB. The index
 * only saves time: without memory for it the machine works the same, trying every transition each step,
 * so a failed allocation is not an error. */
static void anim_config_index_transitions(anim_character_storage *storage, state_machine_definition *machine)
{
    size_t ints = state_machine_index_ints(machine);
    if (ints == 0 || ints > SIZE_MAX / sizeof *storage->transition_index)
        return;
    storage->transition_index = malloc(ints * sizeof *storage->transition_index);
    if (storage->transition_index && !state_machine_index_build(machine, storage->transition_index, ints)) {
        free(storage->transition_index);
        storage->transition_index = NULL;
    }
}

/* A [blend NAME] section's name, checked and kept (its keys are read once the parameters are known). */
static void anim_config_add_blend(anim_config_loader *loader, const char *path, const ini_section *section,
                                  anim_character *character, anim_character_storage *storage, const char *name)
{
    if (!anim_config_check_name(loader, path, section->line, "blend", name))
        return;
    if (anim_config_find_blend(character, name) >= 0) {
        anim_config_report(loader, path, section->line, "duplicate blend '%s'", name);
        return;
    }
    if (anim_config_find_clip(character, name) >= 0) {
        anim_config_report(loader, path, section->line,
                           "blend '%s' has the name of a clip of the clip library: a state's 'clip = %s' would "
                           "be ambiguous", name, name);
        return;
    }
    if (character->blend_count == ANIM_CONFIG_BLENDS_MAX) {
        anim_config_report(loader, path, section->line, "more than %d blends", ANIM_CONFIG_BLENDS_MAX);
        return;
    }
    snprintf(storage->blends[character->blend_count].name, ANIM_NAME_MAX, "%.*s", ANIM_NAME_MAX - 1, name);
    character->blend_count++;
}

/* Each joint a state's overlay plays from gets its branch mask, once for the character: its entities point
 * their overlay channels there (anim_controller_share_mask) instead of keeping a copy each. Out of memory:
 * none, and the entities keep copies as before. */
static void anim_config_make_branch_masks(anim_character *character, anim_character_storage *storage)
{
    const skeleton *s = character->model ? &character->model->skeleton : NULL;
    const state_machine_definition *machine = &character->machine;
    if (!s || s->joint_count <= 0 || machine->state_count <= 0)
        return;
    int joints = s->joint_count, roots = 0;
    for (int i = 0; i < machine->state_count; ++i) {
        int root = machine->states[i].overlay_root_joint, earlier = 0;
        while (earlier < i && machine->states[earlier].overlay_root_joint != root)
            ++earlier;
        roots += root >= 0 && root < joints && earlier == i; /* each root once */
    }
    storage->branch_masks = calloc((size_t)joints, sizeof *storage->branch_masks);
    storage->branch_mask_block = calloc(roots > 0 ? (size_t)roots * (size_t)joints : 1, sizeof(float));
    if (!storage->branch_masks || !storage->branch_mask_block) {
        free(storage->branch_masks);
        free(storage->branch_mask_block);
        storage->branch_masks = NULL;
        storage->branch_mask_block = NULL;
        return;
    }
    float *next = storage->branch_mask_block;
    for (int i = 0; i < machine->state_count; ++i) {
        int root = machine->states[i].overlay_root_joint;
        if (root < 0 || root >= joints || storage->branch_masks[root])
            continue;
        anim_controller_branch_weights(s, root, next);
        storage->branch_masks[root] = next;
        next += joints;
    }
    character->branch_masks = (const float *const *)storage->branch_masks;
}

void anim_config_load_states(anim_config_loader *loader, anim_character *character, anim_character_storage *storage,
                             const char *path, const char *referrer, int referrer_line)
{
    ini_document document;
    if (!anim_config_read_document(loader, path, referrer, referrer_line, "states file", &document))
        return;
    int errors_before = loader->error_count;
    name_index states_index = {0};
    state_machine_definition *machine = &character->machine;
    *machine = (state_machine_definition){.start_state = -1, .trigger_hold = 0.2f};
    int section_count = document.section_count;
    states_section_kind *kinds = calloc((size_t)(section_count ? section_count : 1), sizeof *kinds);
    int *state_lines = calloc((size_t)(section_count ? section_count : 1), sizeof *state_lines);
    storage->states = calloc((size_t)(section_count ? section_count : 1), sizeof *storage->states);
    if (!kinds || !state_lines || !storage->states) {
        anim_config_report(loader, path, 0, "out of memory");
        goto done;
    }
    machine->states = storage->states;
    storage->blends = calloc((size_t)(section_count ? section_count : 1), sizeof *storage->blends);
    if (!storage->blends) {
        anim_config_report(loader, path, 0, "out of memory");
        goto done;
    }
    character->blends = storage->blends;

    /* Parameters and state names first: sections may come in any order and refer to each other. */
    const ini_section *machine_section = NULL;
    char first[ANIM_CONFIG_PATH_MAX], second[ANIM_CONFIG_PATH_MAX];
    bool states_full = false;
    for (int s = 0; s < section_count; ++s) {
        const ini_section *section = &document.sections[s];
        kinds[s] = anim_config_states_section(section->name, first, second);
        if (kinds[s] == STATES_SECTION_MACHINE) {
            machine_section = section;
            anim_config_check_keys(loader, path, section, anim_config_machine_keys);
        } else if (kinds[s] == STATES_SECTION_PARAMETERS) {
            anim_config_read_parameters(loader, path, section, machine);
        } else if (kinds[s] == STATES_SECTION_STATE) {
            if (!anim_config_check_name(loader, path, section->line, "state", first))
                continue;
            if (strcmp(first, "any") == 0) {
                anim_config_report(loader, path, section->line, "'any' cannot name a state: it means every state");
                continue;
            }
            if (anim_config_find_state(&states_index, machine, first) >= 0) {
                anim_config_report(loader, path, section->line, "duplicate state '%s'", first);
                continue;
            }
            if (machine->state_count == ANIM_CONFIG_STATES_MAX) {
                if (!states_full)
                    anim_config_report(loader, path, section->line, "more than %d states: the rest are not read",
                                       ANIM_CONFIG_STATES_MAX);
                states_full = true;
                continue;
            }
            snprintf(storage->states[machine->state_count].name, ANIM_NAME_MAX, "%.*s", ANIM_NAME_MAX - 1, first);
            if (!name_index_add(&states_index, machine->states, anim_config_state_name, machine->state_count + 1)) {
                anim_config_report(loader, path, section->line, "out of memory");
                continue;
            }
            state_lines[machine->state_count++] = section->line;
        } else if (kinds[s] == STATES_SECTION_BLEND) {
            anim_config_add_blend(loader, path, section, character, storage, first);
        } else if (kinds[s] == STATES_SECTION_UNKNOWN) {
            anim_config_report(loader, path, section->line,
                               "unknown section [%s]: expected [machine], [parameters], [state NAME], [blend NAME] or "
                               "[FROM -> TO]",
                               section->name);
        }
    }
    /* Blends once every parameter is known (states refer to blends, blends to parameters and clips). */
    for (int s = 0, blend = 0; s < section_count; ++s) {
        const ini_section *section = &document.sections[s];
        if (kinds[s] != STATES_SECTION_BLEND)
            continue;
        anim_config_states_section(section->name, first, second);
        if (blend < character->blend_count && strcmp(storage->blends[blend].name, first) == 0)
            anim_config_read_blend(loader, path, section, character, machine, &storage->blends[blend++]);
    }
    for (int s = 0, state = 0; s < section_count; ++s) {
        const ini_section *section = &document.sections[s];
        if (kinds[s] != STATES_SECTION_STATE)
            continue;
        anim_config_states_section(section->name, first, second);
        if (state < machine->state_count && strcmp(storage->states[state].name, first) == 0)
            anim_config_read_state(loader, path, section, character, machine, &storage->states[state++]);
    }

    float default_fade = 0.2f;
    const ini_entry *entry;
    if (!machine_section) {
        anim_config_report(loader, path, 0, "no [machine] section: it names the start state ('start = idle')");
    } else {
        if ((entry = ini_find_entry(machine_section, "fade")))
            anim_config_parse_number(loader, path, entry, ANIM_RANGE_FADE, &default_fade);
        if ((entry = ini_find_entry(machine_section, "trigger_hold")))
            anim_config_parse_number(loader, path, entry, ANIM_RANGE_TRIGGER_HOLD, &machine->trigger_hold);
        if (!(entry = ini_find_entry(machine_section, "start")))
            anim_config_report(loader, path, machine_section->line, "[machine] has no 'start' state");
        else if ((machine->start_state = anim_config_find_state(&states_index, machine, entry->value)) < 0)
            anim_config_report(loader, path, entry->line, "unknown start state '%s'", entry->value);
    }
    if (machine->state_count == 0)
        anim_config_report(loader, path, 0, "no states: expected [state NAME] sections");

    bool transitions_full = false;
    for (int s = 0; s < section_count && !transitions_full; ++s) {
        if (kinds[s] != STATES_SECTION_TRANSITION)
            continue;
        anim_config_states_section(document.sections[s].name, first, second);
        anim_config_read_transition(loader, path, &document.sections[s], first, second, default_fade, storage,
                                    machine, &states_index, &transitions_full);
    }
    anim_config_sort_transitions(storage, machine->transition_count);
    anim_config_index_transitions(storage, machine);
    /* Only a machine without other mistakes: a misspelt transition would make every later state unreachable. */
    if (loader->error_count == errors_before)
        anim_config_check_reachable(loader, path, machine, state_lines);
    anim_config_make_branch_masks(character, storage);
done:
    free(kinds);
    free(state_lines);
    name_index_free(&states_index);
    ini_document_free(&document);
}

