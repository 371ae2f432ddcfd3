/* look: what the demo's characters look at, in the world. The player looks at the camera, crowd members
 * near the player at the player's head (anim_look turns their heads; this module only finds the points):
 * world points into an entity's object space (the pose's: file units and axes) and back, and where an
 * entity's head is in the world.
 * Knows nothing of SDL, GL, the camera or the crowd: it is given a character, its placement and points. */
#ifndef MARIONETTE_LOOK_H
#define MARIONETTE_LOOK_H

#include <stdbool.h>

#include <cglm/cglm.h>

#include "anim/animator.h"

/* The matrix that takes an entity's object space to the world: placement (mover_world, Y up) times the
 * turn from MD5's Z up to Y up times the character's import, as gfx draws it. */
void look_object_to_world_matrix(const anim_character *character, mat4 placement, mat4 out);

/* A world point in the object space of an entity of character placed by placement. */
void look_world_to_object(const anim_character *character, mat4 placement, const float world[3], float object[3]);

/* An object-space point of such an entity in the world. */
void look_object_to_world(const anim_character *character, mat4 placement, const float object[3], float world[3]);

/* Where the entity's head is in the world (its look-at chain's head joint, in the pose as shown): false
 * when its character has no look-at chain. */
bool look_head_world(const animator *animator, mat4 placement, float world[3]);

#endif
