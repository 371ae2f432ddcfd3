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

/* Add message unless the list holds it already: the player and the crowd drive the same names. */
static void parameter_binding_report(diag_list *problems, const char *message)
{
    if (!problems)
        return;
    diag report;
    diag_set(&report, "states.ini", 0, "%s", message);
    for (int i = 0; i < problems->count; ++i)
        if (problems->items[i].line == 0 && strcmp(problems->items[i].file, report.file) == 0 &&
            strcmp(problems->items[i].message, report.message) == 0)
            return;
    diag_list_add_copy(problems, &report);
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
        char message[DIAG_MESSAGE_MAX];
        int written = snprintf(message, sizeof message, "warning: the demo sets parameter '%s' (%s), which the state "
                               "machine of '%s' ", need->name, parameter_binding_type_name(need->type),
                               character->name);
        size_t used = written > 0 && (size_t)written < sizeof message ? (size_t)written : strlen(message);
        if (index < 0)
            snprintf(message + used, sizeof message - used, "does not have; it is ignored");
        else
            snprintf(message + used, sizeof message - used, "declares as a %s; it is ignored",
                     parameter_binding_type_name(machine->parameters[index].type));
        parameter_binding_report(problems, message);
        ++unmet;
    }
    return unmet;
}
