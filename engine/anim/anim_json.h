/* anim_json: an animated entity's step as JSON keys (state, transition, channels and their layers, events,
 * root motion), shared by md5tool trace and the demo's --trace so both speak the same format.
 * Writes keys into an object the caller has opened; knows nothing of how steps are driven. */
#ifndef MARIONETTE_ANIM_JSON_H
#define MARIONETTE_ANIM_JSON_H

#include "../base/json.h"
#include "animator.h"

/* Keys: state, time_in_state, transition (null or {from, to, fade}), channels ([{channel, weight,
 * layers: [{clip, time, cycles, speed, weight, finished}]}]), events ([{name, clip, channel, cycle,
 * weight, step_fraction}]), events_dropped, root ({translation, yaw_degrees, share: root_motion_share}). */
void anim_json_write_step(json_writer *w, const animator *animator, const animator_update_result *update);

/* An entity's pose as docs/trace.md's "An entity in poses" spells it, keys into an object the caller has open:
 * character, world (its whole transform at placement, anim_placement_world), heading_degrees, joints (the
 * final object pose in world space: joint_count of them, joints their indices, -1 written as null, or
 * joints NULL: the first joint_count in order), with_stages: stages (each of animator_stages's poses, null
 * where stages is NULL), feet (each leg's planted share, lock, placement, ankle and the ground under it) and
 * pelvis_drop. ground may be NULL (flat). */
/* The pose's numbers are written to this many decimal places (json_fixed): micrometres, and quaternion parts
 * to 1e-6; about ten times cheaper than json_number, and a pose has a few hundred numbers. */
enum { ANIM_JSON_POSE_DECIMALS = 6 };

void anim_json_write_pose(json_writer *w, const animator *animator, const anim_placement *placement,
                          const ground *ground, const int *joints, int joint_count, const animator_stages *stages,
                          bool with_stages);

#endif
