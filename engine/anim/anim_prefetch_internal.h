/* anim_prefetch_internal: the memory hints the anim module's files give each other for loops over many
 * entities (animator_update_group, animator_object_poses); not for use outside engine/anim/. */
#ifndef MARIONETTE_ANIM_PREFETCH_INTERNAL_H
#define MARIONETTE_ANIM_PREFETCH_INTERNAL_H

#include "anim_controller.h"

/* Ask the processor to start loading what the next update reads and writes, so that a crowd's loop does not
 * wait on memory for every entity: the layer state and the object pose, one range of the controller's block
 * (the overlay masks are shared by a character's entities, and stay in the cache). Neither call reads the
 * controller: the caller knows the joint count from the character, so the hint never waits for memory itself.
 * anim_controller_prefetch_object: the object pose alone, for reading (a crowd's palettes). Hints: they change
 * nothing; NULL is ignored. */
void anim_controller_prefetch(const anim_controller *controller, int joint_count);
void anim_controller_prefetch_object(const anim_controller *controller, int joint_count);

#endif
