/* state_machine's parameter handles on a definition built by hand (no ini file): a handle is found by name
 * and type once, setting through it is the same as setting by name, and a handle that does not fit the
 * definition (none, out of range, another type after a reload) changes nothing. The machine's decisions
 * on the real config are tested in test_anim_config. */
#include <math.h>
#include <string.h>

#include "anim/state_machine.h"
#include "check.h"

/* speed (number), grounded (bool), jump (trigger), turn (number). */
static state_machine_definition make_definition(void)
{
    static const state_machine_state states[] = {{.name = "idle", .clip = 0, .loop = true, .rate = 1.0f,
                                                  .rate_parameter = -1, .rate_min = 1.0f, .rate_max = 1.0f,
                                                  .overlay_clip = -1, .overlay_root_joint = -1}};
    state_machine_definition definition = {
        .parameter_count = 4,
        .parameters = {{"speed", STATE_MACHINE_NUMBER, 0.0f},
                       {"grounded", STATE_MACHINE_BOOL, 1.0f},
                       {"jump", STATE_MACHINE_TRIGGER, 0.0f},
                       {"turn", STATE_MACHINE_NUMBER, 0.0f}},
        .state_count = 1,
        .states = states,
        .trigger_hold = 0.2f,
    };
    return definition;
}

static void test_find_gives_the_index_of_the_name_and_type(void)
{
    state_machine_definition definition = make_definition();
    CHECK(state_machine_param_find(&definition, "speed", STATE_MACHINE_NUMBER).index == 0);
    CHECK(state_machine_param_find(&definition, "grounded", STATE_MACHINE_BOOL).index == 1);
    CHECK(state_machine_param_find(&definition, "jump", STATE_MACHINE_TRIGGER).index == 2);
    CHECK(state_machine_param_find(&definition, "turn", STATE_MACHINE_NUMBER).index == 3);
    CHECK(state_machine_param_valid(state_machine_param_find(&definition, "turn", STATE_MACHINE_NUMBER)));
    /* Another type: none, as a typo would be. */
    CHECK(state_machine_param_find(&definition, "speed", STATE_MACHINE_BOOL).index == -1);
    CHECK(state_machine_param_find(&definition, "grounded", STATE_MACHINE_NUMBER).index == -1);
    CHECK(state_machine_param_find(&definition, "jump", STATE_MACHINE_BOOL).index == -1);
    /* Unknown names, a prefix, NULL. */
    CHECK(state_machine_param_find(&definition, "velocity", STATE_MACHINE_NUMBER).index == -1);
    CHECK(state_machine_param_find(&definition, "spee", STATE_MACHINE_NUMBER).index == -1);
    CHECK(state_machine_param_find(&definition, "", STATE_MACHINE_NUMBER).index == -1);
    CHECK(state_machine_param_find(&definition, NULL, STATE_MACHINE_NUMBER).index == -1);
    CHECK(state_machine_param_find(NULL, "speed", STATE_MACHINE_NUMBER).index == -1);
    CHECK(!state_machine_param_valid(STATE_MACHINE_PARAM_NONE));
}

static bool same_instance(const state_machine_instance *a, const state_machine_instance *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

static void test_a_handle_sets_what_the_name_sets(void)
{
    state_machine_definition definition = make_definition();
    state_machine_instance by_name, by_handle;
    state_machine_instance_init(&definition, &by_name);
    state_machine_instance_init(&definition, &by_handle);
    state_machine_param speed = state_machine_param_find(&definition, "speed", STATE_MACHINE_NUMBER);
    state_machine_param turn = state_machine_param_find(&definition, "turn", STATE_MACHINE_NUMBER);
    state_machine_param grounded = state_machine_param_find(&definition, "grounded", STATE_MACHINE_BOOL);
    state_machine_param jump = state_machine_param_find(&definition, "jump", STATE_MACHINE_TRIGGER);

    CHECK(state_machine_set_number(&definition, &by_name, "speed", 1.25f));
    CHECK(state_machine_param_set_number(&definition, &by_handle, speed, 1.25f));
    CHECK(state_machine_set_number(&definition, &by_name, "turn", -90.0f));
    CHECK(state_machine_param_set_number(&definition, &by_handle, turn, -90.0f));
    CHECK(state_machine_set_bool(&definition, &by_name, "grounded", false));
    CHECK(state_machine_param_set_bool(&definition, &by_handle, grounded, false));
    CHECK(same_instance(&by_name, &by_handle));
    CHECK(by_handle.values[0] == 1.25f && by_handle.values[3] == -90.0f && by_handle.values[1] == 0.0f);

    /* A trigger set again restarts its wait, both ways. */
    CHECK(state_machine_set_trigger(&definition, &by_name, "jump"));
    CHECK(state_machine_param_set_trigger(&definition, &by_handle, jump));
    state_machine_result result;
    state_machine_step(&definition, &by_name, 0.1f, (state_machine_clip_status){0}, &result);
    state_machine_step(&definition, &by_handle, 0.1f, (state_machine_clip_status){0}, &result);
    CHECK(by_handle.trigger_age[2] > 0.0f);
    CHECK(state_machine_set_trigger(&definition, &by_name, "jump"));
    CHECK(state_machine_param_set_trigger(&definition, &by_handle, jump));
    CHECK(by_handle.values[2] == 1.0f && by_handle.trigger_age[2] == 0.0f);
    CHECK(same_instance(&by_name, &by_handle));

    /* What one refuses the other refuses, and nothing changes. */
    state_machine_instance before = by_handle;
    CHECK(!state_machine_set_number(&definition, &by_name, "speed", NAN));
    CHECK(!state_machine_param_set_number(&definition, &by_handle, speed, NAN));
    CHECK(!state_machine_param_set_number(&definition, &by_handle, speed, INFINITY));
    CHECK(!state_machine_param_set_number(&definition, NULL, speed, 1.0f));
    CHECK(!state_machine_param_set_number(&definition, &by_handle, STATE_MACHINE_PARAM_NONE, 1.0f));
    CHECK(!state_machine_param_set_bool(&definition, &by_handle, STATE_MACHINE_PARAM_NONE, true));
    CHECK(!state_machine_param_set_trigger(&definition, &by_handle, STATE_MACHINE_PARAM_NONE));
    /* A handle of another type (kept across a reload that retyped the parameter), or past the end. */
    CHECK(!state_machine_param_set_number(&definition, &by_handle, grounded, 5.0f));
    CHECK(!state_machine_param_set_bool(&definition, &by_handle, speed, true));
    CHECK(!state_machine_param_set_trigger(&definition, &by_handle, speed));
    CHECK(!state_machine_param_set_number(&definition, &by_handle, (state_machine_param){4}, 5.0f));
    CHECK(!state_machine_param_set_number(&definition, &by_handle, (state_machine_param){STATE_MACHINE_MAX_PARAMETERS}, 5.0f));
    CHECK(!state_machine_param_set_number(NULL, &by_handle, speed, 5.0f));
    CHECK(same_instance(&before, &by_handle));
}

/* A reload that reorders the parameters: the handles found in the new definition land where the names are. */
static void test_handles_found_again_follow_a_reorder(void)
{
    state_machine_definition old_definition = make_definition();
    state_machine_definition new_definition = old_definition;
    new_definition.parameters[0] = old_definition.parameters[3]; /* turn, grounded, jump, speed */
    new_definition.parameters[3] = old_definition.parameters[0];
    state_machine_param old_speed = state_machine_param_find(&old_definition, "speed", STATE_MACHINE_NUMBER);
    state_machine_param new_speed = state_machine_param_find(&new_definition, "speed", STATE_MACHINE_NUMBER);
    CHECK(old_speed.index == 0 && new_speed.index == 3);
    state_machine_instance instance;
    state_machine_instance_init(&new_definition, &instance);
    CHECK(state_machine_param_set_number(&new_definition, &instance, new_speed, 2.5f));
    float value = 0.0f;
    CHECK(state_machine_get(&new_definition, &instance, "speed", &value) && value == 2.5f);
    CHECK(state_machine_get(&new_definition, &instance, "turn", &value) && value == 0.0f);
}

int main(void)
{
    RUN(test_find_gives_the_index_of_the_name_and_type);
    RUN(test_a_handle_sets_what_the_name_sets);
    RUN(test_handles_found_again_follow_a_reorder);
    return check_report();
}
