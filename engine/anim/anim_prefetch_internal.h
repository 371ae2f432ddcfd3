/* anim_prefetch_internal: the memory hints the anim module's files give each other for loops over many
 * entities (animator_update_group, animator_object_poses); not for use outside engine/anim/. */
#ifndef MARIONETTE_ANIM_PREFETCH_INTERNAL_H
#define MARIONETTE_ANIM_PREFETCH_INTERNAL_H

#include "anim_controller.h"

/* Ask the processor to start loading what the next update reads and writes, so that a crowd's loop does not
 * wait on memory for every entity: anim_controller_prefetch for the layer state (it reads nothing of the
 * controller), then, an entity or so later, anim_controller_prefetch_pose for the object pose and the overlay
 * masks (it reads the layer state the first call brought in). Hints: they change nothing; NULL is ignored. */
void anim_controller_prefetch(const anim_controller *controller);
void anim_controller_prefetch_pose(const anim_controller *controller);
/* The same for a loop that only reads the object pose (a crowd's palettes): the line that says where the pose
 * is, then, an entity or so later, the pose itself, for reading. */
void anim_controller_prefetch_object_handle(const anim_controller *controller);
void anim_controller_prefetch_object(const anim_controller *controller);

#endif
