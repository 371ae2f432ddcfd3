/* parameter_binding: the state-machine parameters the game drives (the player's speed and jump, the crowd's
 * gestures), found by name once per character: when an entity is made and again after every hot reload,
 * as a reload may reorder or rename them. A step then sets them through handles, and a name the state
 * machine lacks (the game drives `speed`, a user's states.ini calls it `velocity`) is reported then, once,
 * instead of being ignored silently every frame.
 * Knows nothing of SDL, GL or ini files (it names states.ini in its messages only). */
#ifndef MARIONETTE_PARAMETER_BINDING_H
#define MARIONETTE_PARAMETER_BINDING_H

#include <stdbool.h>

#include "anim/anim_character.h"
#include "anim/state_machine.h"
#include "base/diag.h"

/* A parameter the game sets. */
typedef struct parameter_binding_need {
    const char *name;
    state_machine_parameter_type type;
    bool optional; /* only some characters have it (hit, die): reported only when it has another type */
} parameter_binding_need;

/* handles[i] = the handle of needs[i] in character's state machine (STATE_MACHINE_PARAM_NONE where it is
 * missing or of another type; all none for a NULL character). Each need not met goes to problems (may be
 * NULL) as a warning at "states.ini" without a line (the file has no line for a name it lacks), naming the
 * character; a message already in the list is not repeated (the player and the crowd drive the same
 * names). Returns how many needs were not met (optional ones that are missing not counted). */
int parameter_binding_resolve(const anim_character *character, const parameter_binding_need *needs, int count,
                              state_machine_param *handles, diag_list *problems);

#endif
