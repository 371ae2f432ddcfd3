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

#endif
