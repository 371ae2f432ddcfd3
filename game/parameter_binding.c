/* parameter_binding: see parameter_binding.h. */
#include "parameter_binding.h"

#include <stdio.h>
#include <string.h>

/* As states.ini spells the types. */
static const char *parameter_binding_type_name(state_machine_parameter_type type)
{
    switch (type) {
    case STATE_MACHINE_NUMBER: return "number";
    case STATE_MACHINE_BOOL: return "bool";
    case STATE_MACHINE_TRIGGER: return "trigger";
    }
    return "?";
}

/* Add the report unless the list holds it already: the player and the crowd drive the same names. */
static void parameter_binding_report(diag_list *problems, const diag *report)
{
    for (int i = 0; i < problems->count; ++i)
        if (problems->items[i].line == report->line && strcmp(problems->items[i].file, report->file) == 0 &&
            strcmp(problems->items[i].message, report->message) == 0)
            return;
    diag_list_add_copy(problems, report);
}

int parameter_binding_resolve(const anim_character *character, const parameter_binding_need *needs, int count,
                              state_machine_param *handles, diag_list *problems)
{
    const state_machine_definition *machine = character ? &character->machine : NULL;
    int unmet = 0;
    for (int i = 0; i < count; ++i) {
        const parameter_binding_need *need = &needs[i];
        handles[i] = state_machine_param_find(machine, need->name, need->type);
        if (!machine || state_machine_param_valid(handles[i]))
            continue;
        int index = state_machine_find_parameter(machine, need->name);
        if (index < 0 && need->optional)
            continue;
        ++unmet;
        if (!problems)
            continue;
        char has[64] = "does not have";
        if (index >= 0)
            snprintf(has, sizeof has, "declares as a %s", parameter_binding_type_name(machine->parameters[index].type));
        diag report;
        diag_set(&report, "states.ini", 0,
                 "warning: the demo sets parameter '%s' (%s), which the state machine of '%s' %s; it is ignored",
                 need->name, parameter_binding_type_name(need->type), character->name, has);
        parameter_binding_report(problems, &report);
    }
    return unmet;
}
