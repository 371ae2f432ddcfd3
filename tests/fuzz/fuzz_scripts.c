/* fuzz_scripts: any bytes as the two script formats: an input script (`marionette --script`: timed key
 * presses, wheel steps, drags, clicks) and a trace script (`md5tool trace --script`: timed parameter changes
 * for the state machine). The input is cut at 0x1e into the two files. The input script is checked as in
 * fuzz_settings (fuzz_input_script.h). The trace script is read against the shipped mannequin's state machine
 * (config/); it either loads, keeping the format's promises (commands in time order, every time within 0 to
 * TRACE_TIME_MAX, finite values, named parameters of the right type, one 'end' and it last), or is refused
 * with one line at a line of the file. A loaded script whose end is within 0.25 s is stepped to its end. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anim/config/anim_config.h"
#include "fuzz_check.h"
#include "fuzz_input_script.h"
#include "fuzz_parts.h"
#include "md5tool_trace.h"

enum { FUZZ_PART_COUNT = 2 };
static const char *const fuzz_part_names[FUZZ_PART_COUNT] = {"input.txt", "trace.txt"};

static char fuzz_folder[FUZZ_PATH_MAX];
static char fuzz_part_paths[FUZZ_PART_COUNT][FUZZ_PATH_MAX];
static cache *fuzz_cache;
static anim_config *fuzz_config;
static const anim_character *fuzz_character;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_clean_up(void)
{
    for (int i = 0; i < FUZZ_PART_COUNT; ++i)
        unlink(fuzz_part_paths[i]);
    rmdir(fuzz_folder);
    anim_config_free(fuzz_config);
    cache_destroy(fuzz_cache);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_make_folder(fuzz_folder, "scripts");
    for (int i = 0; i < FUZZ_PART_COUNT; ++i)
        snprintf(fuzz_part_paths[i], sizeof fuzz_part_paths[i], "%s/%s", fuzz_folder, fuzz_part_names[i]);
    fuzz_cache = cache_create();
    diag_list errors = {0};
    fuzz_config = anim_config_load(MARIONETTE_SOURCE_DIR "/config/characters.ini", fuzz_cache, &errors);
    diag_list_free(&errors);
    FUZZ_REQUIRE(fuzz_config != NULL);
    fuzz_character = anim_config_find_character(fuzz_config, "mannequin");
    FUZZ_REQUIRE(fuzz_character != NULL);
    atexit(fuzz_clean_up);
    return 0;
}

static void fuzz_check_trace_script(const trace_script *script, const state_machine_definition *machine)
{
    FUZZ_REQUIRE(script->count >= 1 && script->commands[script->count - 1].kind == TRACE_END);
    FUZZ_REQUIRE(script->end_time == script->commands[script->count - 1].time);
    double previous = 0.0;
    for (int i = 0; i < script->count; ++i) {
        const trace_command *command = &script->commands[i];
        FUZZ_REQUIRE(isfinite(command->time) && command->time >= previous && command->time <= TRACE_TIME_MAX);
        FUZZ_REQUIRE(command->line >= 1 && (i == 0 || command->line > script->commands[i - 1].line));
        FUZZ_REQUIRE(i == script->count - 1 || command->kind != TRACE_END);
        previous = command->time;
        if (command->kind == TRACE_END)
            continue;
        int parameter = state_machine_find_parameter(machine, command->name);
        FUZZ_REQUIRE(parameter >= 0);
        state_machine_parameter_type type = machine->parameters[parameter].type;
        FUZZ_REQUIRE(command->kind == TRACE_TRIGGER ? type == STATE_MACHINE_TRIGGER
                     : command->kind == TRACE_SET_BOOL ? type == STATE_MACHINE_BOOL &&
                                                            (command->value == 0.0f || command->value == 1.0f)
                                                       : type == STATE_MACHINE_NUMBER && isfinite(command->value));
    }
}

/* Stepped at 60 Hz to its end: every command applied once, in order, times growing. */
static void fuzz_step_trace(const trace_script *script)
{
    animator *animator = animator_create(fuzz_character);
    FUZZ_REQUIRE(animator != NULL);
    trace_run run;
    FUZZ_REQUIRE(trace_run_start(&run, animator, script, 60.0));
    trace_step step;
    int applied = 0, steps = 0;
    double last = 0.0;
    while (trace_run_step(&run, &step)) {
        FUZZ_REQUIRE(step.applied_first == applied && step.applied_count >= 0 && step.time > last);
        FUZZ_REQUIRE(isfinite(step.largest_rotation_change) && step.largest_rotation_change >= 0.0);
        applied += step.applied_count;
        last = step.time;
        FUZZ_REQUIRE(++steps <= 60);
    }
    FUZZ_REQUIRE(applied <= script->count);
    trace_run_finish(&run);
    animator_destroy(animator);
}

static void fuzz_trace(const char *path)
{
    const state_machine_definition *machine = &fuzz_character->machine;
    trace_script script;
    diag error = {0};
    if (trace_script_load(path, machine, &script, &error)) {
        fuzz_check_trace_script(&script, machine);
        if (script.end_time <= 0.25)
            fuzz_step_trace(&script);
        trace_script_free(&script);
    } else {
        FUZZ_REQUIRE(error.message[0] && strcmp(error.file, path) == 0 && error.line >= 0);
        FUZZ_REQUIRE(!strchr(error.message, '\n') && !strchr(error.message, '\r'));
        FUZZ_REQUIRE(script.commands == NULL && script.count == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write_parts(fuzz_part_paths, FUZZ_PART_COUNT, data, size);
    fuzz_input_script(fuzz_part_paths[0], fuzz_hash(data, size));
    fuzz_trace(fuzz_part_paths[1]);
    return 0;
}
