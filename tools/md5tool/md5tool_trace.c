/* md5tool trace: see md5tool_trace.h for the script format. Output, one step per line:
 *   text:  t=0.5167 state=walk ch0=idle@0.517*0.933,walk@0.017*0.067 transition=idle->walk/0.25
 *          events=walk:footstep.L*0.000 root=0.0000,0.0000,0.000 rotation=1.23
 *          (channel layers bottom to top as clip@seconds*weight; overlays as ch1(weight)=...; events as
 *          clip:name*weight, one per foot contact (anim_controller.h, "Events"); empty channels,
 *          transitions, events and applied script commands are left out)
 *   --json: one object per step with the same facts spelled out. */
#include "md5tool_trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "anim/anim_json.h"
#include "base/json.h"
#include "md5tool_common.h"

enum { TRACE_MAX_TOKENS = 4, TRACE_DEFAULT_RATE = 60, TRACE_MAX_RATE = 10000 };

/* Steps at most this far past a command's time still count as "at" it, so 0.5 at 60 Hz is step 30
 * although 30 / 60.0 is not exactly 0.5. */
#define TRACE_TIME_TOLERANCE 1e-9

/* ---- the script ---- */

/* Split a line at spaces and tabs into at most TRACE_MAX_TOKENS words, ending it at a '#'. Returns the
 * word count, or TRACE_MAX_TOKENS + 1 when there are more. Writes NULs into line. */
static int split_words(char *line, char **words)
{
    char *comment = strchr(line, '#');
    if (comment)
        *comment = '\0';
    int count = 0;
    for (char *cursor = line;;) {
        while (*cursor == ' ' || *cursor == '\t' || *cursor == '\r')
            ++cursor;
        if (*cursor == '\0')
            return count;
        if (count == TRACE_MAX_TOKENS)
            return count + 1;
        words[count++] = cursor;
        while (*cursor && *cursor != ' ' && *cursor != '\t' && *cursor != '\r')
            ++cursor;
        if (*cursor)
            *cursor++ = '\0';
    }
}

/* One command from its words, checked against the machine; false with a message in error. */
static bool parse_command(char **words, int count, const state_machine_definition *machine, trace_command *command,
                          const char *path, int line, diag *error)
{
    double time;
    if (count > TRACE_MAX_TOKENS)
        return diag_set(error, path, line, "too many words (expected 'TIME set NAME VALUE', 'TIME trigger NAME' "
                                           "or 'TIME end')");
    if (!parse_finite(words[0], &time) || time < 0.0)
        return diag_set(error, path, line, "'%s' is not a time in seconds (a number >= 0)", words[0]);
    if (time > TRACE_TIME_MAX)
        return diag_set(error, path, line, "time %s is past the longest trace, %g s (an hour of animation)", words[0],
                        TRACE_TIME_MAX);
    *command = (trace_command){.time = time, .line = line};
    const char *verb = count > 1 ? words[1] : "";
    if (strcmp(verb, "end") == 0) {
        if (count != 2)
            return diag_set(error, path, line, "'end' takes nothing after it");
        command->kind = TRACE_END;
        return true;
    }
    bool is_set = strcmp(verb, "set") == 0, is_trigger = strcmp(verb, "trigger") == 0;
    if (!is_set && !is_trigger)
        return diag_set(error, path, line, "expected 'set', 'trigger' or 'end' after the time, not '%s'", verb);
    if (count != (is_set ? 4 : 3))
        return diag_set(error, path, line, is_set ? "expected 'TIME set NAME VALUE'" : "expected 'TIME trigger NAME'");
    int parameter = state_machine_find_parameter(machine, words[2]);
    if (parameter < 0)
        return diag_set(error, path, line, "the state machine has no parameter '%s'", words[2]);
    snprintf(command->name, sizeof command->name, "%s", words[2]);
    state_machine_parameter_type type = machine->parameters[parameter].type;
    if (is_trigger) {
        if (type != STATE_MACHINE_TRIGGER)
            return diag_set(error, path, line, "'%s' is not a trigger: use 'set %s VALUE'", words[2], words[2]);
        command->kind = TRACE_TRIGGER;
        return true;
    }
    if (type == STATE_MACHINE_TRIGGER)
        return diag_set(error, path, line, "'%s' is a trigger: use 'trigger %s'", words[2], words[2]);
    if (type == STATE_MACHINE_BOOL) {
        bool is_true = strcmp(words[3], "true") == 0;
        if (!is_true && strcmp(words[3], "false") != 0)
            return diag_set(error, path, line, "'%s' is a bool: its value is true or false, not '%s'", words[2],
                            words[3]);
        command->kind = TRACE_SET_BOOL;
        command->value = is_true ? 1.0f : 0.0f;
        return true;
    }
    double value;
    if (!parse_finite(words[3], &value))
        return diag_set(error, path, line, "'%s' is a number: '%s' is not a finite number", words[2], words[3]);
    command->kind = TRACE_SET_NUMBER;
    command->value = (float)value;
    return true;
}

bool trace_script_load(const char *path, const state_machine_definition *machine, trace_script *script, diag *error)
{
    *script = (trace_script){0};
    char *text = NULL;
    size_t size = 0;
    if (!file_read_all(path, TRACE_SCRIPT_MAX_FILE_BYTES, &text, &size, error))
        return false;
    /* A command per non-empty line at most, so the line count bounds the array. */
    size_t capacity = 1;
    for (size_t i = 0; i < size; ++i)
        capacity += text[i] == '\n';
    script->commands = calloc(capacity, sizeof *script->commands);
    bool ok = script->commands != NULL;
    if (!ok)
        diag_set(error, path, 0, "out of memory");

    int line = 1;
    bool ended = false;
    for (char *cursor = text; ok && cursor < text + size; ++line) {
        char *newline = strchr(cursor, '\n');
        if (newline)
            *newline = '\0';
        char *words[TRACE_MAX_TOKENS];
        int count = split_words(cursor, words);
        cursor = newline ? newline + 1 : text + size;
        if (count == 0)
            continue;
        trace_command *command = &script->commands[script->count];
        if (ended)
            ok = diag_set(error, path, line, "nothing may follow 'end'");
        else if (!parse_command(words, count, machine, command, path, line, error))
            ok = false;
        else if (script->count > 0 && command->time < script->commands[script->count - 1].time)
            ok = diag_set(error, path, line, "time %g comes before the previous command's %g: times never go back",
                          command->time, script->commands[script->count - 1].time);
        if (!ok)
            break;
        ended = command->kind == TRACE_END;
        script->end_time = command->time;
        ++script->count;
    }
    if (ok && !ended)
        ok = diag_set(error, path, line - 1 > 0 ? line - 1 : 1, "the script has no 'end' line (e.g. '3.0 end')");
    free(text);
    if (!ok)
        trace_script_free(script);
    return ok;
}

void trace_script_free(trace_script *script)
{
    if (!script)
        return;
    free(script->commands);
    *script = (trace_script){0};
}

/* ---- measuring ---- */

double trace_largest_rotation_change(const joint_pose *before, const joint_pose *after, int joint_count)
{
    double largest = 0.0;
    for (int j = 0; j < joint_count; ++j) {
        const float *a = before[j].rotation, *b = after[j].rotation;
        double dot = fabs((double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3]);
        /* The angle between two unit quaternions is twice the angle between them as 4D vectors; q and -q
         * are the same rotation, hence the absolute value. */
        double degrees = 2.0 * acos(fmin(dot, 1.0)) * 180.0 / GLM_PI;
        if (degrees > largest)
            largest = degrees;
    }
    return largest;
}

/* ---- stepping ---- */

bool trace_run_start(trace_run *run, animator *animator, const trace_script *script, double rate_hz)
{
    *run = (trace_run){0};
    const model *model = animator_character(animator)->model;
    if (!(rate_hz > 0.0))
        return false;
    int joint_count = model->skeleton.joint_count;
    run->previous_pose = malloc(sizeof(joint_pose) * (size_t)joint_count);
    if (!run->previous_pose)
        return false;
    run->animator = animator;
    run->script = script;
    run->step_seconds = 1.0 / rate_hz;
    return true;
}

void trace_run_finish(trace_run *run)
{
    free(run->previous_pose);
    run->previous_pose = NULL;
}

static void apply_command(animator *animator, const trace_command *command)
{
    /* The script was checked against this machine, so these cannot fail. */
    switch (command->kind) {
    case TRACE_SET_NUMBER: animator_set_number(animator, command->name, command->value); break;
    case TRACE_SET_BOOL: animator_set_bool(animator, command->name, command->value != 0.0f); break;
    case TRACE_TRIGGER: animator_set_trigger(animator, command->name); break;
    case TRACE_END: break;
    }
}

bool trace_run_step(trace_run *run, trace_step *step)
{
    /* Step k runs from k / rate to (k + 1) / rate: computed from k, not summed, so times do not drift. */
    double start = run->step * run->step_seconds;
    if (start >= run->script->end_time - TRACE_TIME_TOLERANCE)
        return false;
    *step = (trace_step){.time = (run->step + 1) * run->step_seconds, .applied_first = run->next_command};
    while (run->next_command < run->script->count &&
           run->script->commands[run->next_command].time <= start + TRACE_TIME_TOLERANCE)
        apply_command(run->animator, &run->script->commands[run->next_command++]);
    step->applied_count = run->next_command - step->applied_first;

    const anim_controller *controller = animator_controller(run->animator);
    int joint_count = animator_character(run->animator)->model->skeleton.joint_count;
    memcpy(run->previous_pose, anim_controller_object_pose(controller), sizeof(joint_pose) * (size_t)joint_count);
    if (!animator_update(run->animator, run->step_seconds, &step->update))
        return false;
    step->largest_rotation_change =
        trace_largest_rotation_change(run->previous_pose, anim_controller_object_pose(controller), joint_count);
    ++run->step;
    return true;
}

/* The pose each --json step carries: which joints, and the stage buffers. */
typedef struct trace_pose_out {
    int joint_count;
    int *joints;            /* indices, or NULL: all in order */
    animator_stages stages; /* poses[k] joint_count each when with_stages */
    joint_pose *storage;
    bool with_stages;
} trace_pose_out;

/* --joints against the character's skeleton; false after a usage line naming what it lacks. */
static bool trace_pose_out_make(const char *joints, bool stages, const anim_character *character,
                                trace_pose_out *out)
{
    *out = (trace_pose_out){.with_stages = stages};
    const skeleton *s = &character->model->skeleton;
    if (strcmp(joints, "all") == 0) {
        out->joint_count = s->joint_count;
    } else {
        out->joints = malloc((strlen(joints) + 1) * sizeof *out->joints);
        char *names = strdup(joints);
        bool ok = out->joints && names;
        for (char *cursor = names; ok && cursor;) {
            char *comma = strchr(cursor, ',');
            if (comma)
                *comma = '\0';
            int found = skeleton_find_joint(s, cursor);
            if (found < 0) {
                usage_error("trace: --joints: character '%s' has no joint '%s'", character->name, cursor);
                ok = false;
            }
            out->joints[out->joint_count++] = found;
            cursor = comma ? comma + 1 : NULL;
        }
        free(names);
        if (!ok)
            return false;
    }
    if (stages) {
        out->storage = calloc((size_t)ANIMATOR_STAGE_COUNT * (size_t)s->joint_count, sizeof *out->storage);
        if (!out->storage)
            return false;
        for (int k = 0; k < ANIMATOR_STAGE_COUNT; ++k)
            out->stages.poses[k] = out->storage + (size_t)k * (size_t)s->joint_count;
    }
    return true;
}

static void trace_pose_out_free(trace_pose_out *out)
{
    free(out->joints);
    free(out->storage);
    *out = (trace_pose_out){0};
}

/* ---- printing ---- */

static const char *clip_name(const anim_clip *clip)
{
    return clip ? clip->name : "(snapshot)";
}

static void print_command_text(const trace_command *command)
{
    switch (command->kind) {
    case TRACE_SET_NUMBER: printf("%s:%g", command->name, (double)command->value); break;
    case TRACE_SET_BOOL: printf("%s:%s", command->name, command->value != 0.0f ? "true" : "false"); break;
    case TRACE_TRIGGER: printf("%s!", command->name); break;
    case TRACE_END: printf("end"); break;
    }
}

static void print_step_text(const trace_run *run, const trace_step *step)
{
    const animator *animator = run->animator;
    const anim_controller *controller = animator_controller(animator);
    const state_machine_definition *machine = &animator_character(animator)->machine;
    printf("t=%.4f state=%s", step->time, animator_state_name(animator));
    for (int i = 0; i < step->applied_count; ++i) {
        fputs(i == 0 ? " set=" : ",", stdout);
        print_command_text(&run->script->commands[step->applied_first + i]);
    }
    for (int channel = 0; channel < ANIM_CHANNEL_COUNT; ++channel) {
        int count = anim_controller_layer_count(controller, channel);
        if (count == 0)
            continue;
        if (channel == 0)
            printf(" ch0=");
        else
            printf(" ch%d(%.3f)=", channel, (double)anim_controller_channel_weight(controller, channel));
        for (int k = 0; k < count; ++k) {
            anim_layer_info layer;
            anim_controller_layer(controller, channel, k, &layer);
            printf("%s%s@%.3f*%.3f", k ? "," : "", clip_name(layer.clip), layer.time, (double)layer.weight);
        }
    }
    const state_machine_result *decision = &step->update.decision;
    if (decision->fired)
        printf(" transition=%s->%s/%g", machine->states[decision->from].name, machine->states[decision->to].name,
               (double)decision->fade);
    const anim_update_result *animation = &step->update.animation;
    for (int i = 0; i < animation->event_count; ++i)
        printf("%s%s:%s*%.3f", i ? "," : " events=", clip_name(animation->events[i].clip), animation->events[i].name,
               (double)animation->events[i].weight);
    if (animation->events_dropped)
        printf(" events_dropped=%d", animation->events_dropped);
    printf(" root=%.4f,%.4f,%.3f share=%.3f rotation=%.2f\n", (double)animation->translation[0],
           (double)animation->translation[1], (double)animation->yaw * 180.0 / GLM_PI,
           (double)animation->root_motion_share, step->largest_rotation_change);
}

static void print_step_json(const trace_run *run, const trace_step *step, const trace_pose_out *pose)
{
    json_writer w = json_writer_start(stdout);
    json_object_begin(&w);
    json_key(&w, "time");
    json_number(&w, step->time);
    json_key(&w, "applied");
    json_array_begin(&w);
    for (int i = 0; i < step->applied_count; ++i) {
        const trace_command *command = &run->script->commands[step->applied_first + i];
        static const char *const kinds[] = {"set", "set", "trigger", "end"};
        json_object_begin(&w);
        json_key(&w, "line");
        json_integer(&w, command->line);
        json_key(&w, "command");
        json_string(&w, kinds[command->kind]);
        if (command->kind != TRACE_END) {
            json_key(&w, "name");
            json_string(&w, command->name);
        }
        if (command->kind == TRACE_SET_NUMBER) {
            json_key(&w, "value");
            json_number(&w, command->value);
        } else if (command->kind == TRACE_SET_BOOL) {
            json_key(&w, "value");
            json_bool(&w, command->value != 0.0f);
        }
        json_object_end(&w);
    }
    json_array_end(&w);

    anim_json_write_step(&w, run->animator, &step->update);
    json_key(&w, "largest_rotation_change_degrees");
    json_number(&w, step->largest_rotation_change);
    if (pose) {
        /* The character stands at the origin facing +X: its root motion is reported (root), not applied;
         * no foot lock runs, so the foot stages are the look stage. */
        anim_placement origin = {.heading = 0.0f};
        json_key(&w, "poses");
        json_array_begin(&w);
        json_object_begin(&w);
        json_key(&w, "entity");
        json_string(&w, "character");
        json_key(&w, "present");
        json_bool(&w, true);
        anim_json_write_pose(&w, run->animator, &origin, NULL, pose->joints, pose->joint_count,
                             pose->with_stages ? &pose->stages : NULL, pose->with_stages);
        json_object_end(&w);
        json_array_end(&w);
    }
    json_object_end(&w);
    putchar('\n');
}

/* ---- the command ---- */

typedef struct trace_arguments {
    const char *config_folder;
    const char *script_path;
    const char *character;
    bool json;
    double rate;
    const char *joints; /* --joints all|NAME,NAME: the pose in each step (docs/trace.md) */
    bool stages;        /* --stages: every stage's pose too */
} trace_arguments;


/* Returns 0, or the exit status of the usage error it printed. */
static int parse_trace_arguments(int argc, char **argv, trace_arguments *a)
{
    *a = (trace_arguments){.rate = TRACE_DEFAULT_RATE};
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(arg, "--json") == 0) {
            a->json = true;
        } else if (strcmp(arg, "--script") == 0) {
            if (!has_value)
                return usage_error("%s", "trace: --script needs a FILE");
            a->script_path = argv[++i];
        } else if (strcmp(arg, "--character") == 0) {
            if (!has_value)
                return usage_error("%s", "trace: --character needs a NAME");
            a->character = argv[++i];
        } else if (strcmp(arg, "--joints") == 0) {
            if (!has_value)
                return usage_error("%s", "trace: --joints needs all or NAME,NAME");
            a->joints = argv[++i];
        } else if (strcmp(arg, "--stages") == 0) {
            a->stages = true;
        } else if (strcmp(arg, "--rate") == 0) {
            if (!has_value || !parse_finite(argv[i + 1], &a->rate) || !(a->rate >= 1.0 && a->rate <= TRACE_MAX_RATE))
                return usage_error("trace: --rate needs a number of steps per second from 1 to %d", TRACE_MAX_RATE);
            ++i;
        } else if (arg[0] == '-' && arg[1] == '-') {
            return usage_error("trace: unknown option '%s'", arg);
        } else if (a->config_folder) {
            return usage_error("trace: unexpected argument '%s' (one CONFIG_DIR)", arg);
        } else {
            a->config_folder = arg;
        }
    }
    if (!a->config_folder || !a->script_path)
        return usage_error("%s", "trace needs a config folder and a script: md5tool trace CONFIG_DIR --script FILE "
                                 "[--json] [--character NAME] [--rate HZ] [--joints all|NAME,NAME] [--stages]");
    if ((a->joints || a->stages) && !a->json)
        return usage_error("%s", "trace: --joints and --stages write the pose into --json's steps: add --json");
    if (a->stages && !a->joints)
        a->joints = "all";
    return 0;
}

int command_trace(int argc, char **argv)
{
    trace_arguments a;
    int status = parse_trace_arguments(argc, argv, &a);
    if (status)
        return status;

    md5tool_config loaded;
    const anim_character *character = NULL;
    trace_script script = {0};
    animator *animator = NULL;
    trace_run run = {0};
    trace_pose_out pose = {0};
    diag error = {0};
    status = EXIT_INVALID;
    if (!md5tool_config_open(a.config_folder, a.character, &loaded))
        goto done;
    character = loaded.character;
    if (!trace_script_load(a.script_path, &character->machine, &script, &error)) {
        char text[DIAG_TEXT_MAX];
        diag_format(&error, text, sizeof text);
        fprintf(stderr, "%s\n", text);
        goto done;
    }
    if (a.joints && !trace_pose_out_make(a.joints, a.stages, character, &pose)) {
        status = EXIT_USAGE;
        goto done;
    }
    animator = animator_create(character);
    if (animator && a.stages)
        animator_capture_stages(animator, &pose.stages);
    if (!animator || !trace_run_start(&run, animator, &script, a.rate)) {
        fprintf(stderr, "%s: cannot animate character '%s'\n", loaded.characters_path, character->name);
        goto done;
    }
    trace_step step;
    while (trace_run_step(&run, &step)) {
        if (a.json)
            print_step_json(&run, &step, a.joints ? &pose : NULL);
        else
            print_step_text(&run, &step);
    }
    status = EXIT_SUCCESS;
done:
    trace_run_finish(&run);
    animator_destroy(animator);
    trace_pose_out_free(&pose);
    trace_script_free(&script);
    md5tool_config_close(&loaded);
    return status;
}
