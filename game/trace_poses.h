/* trace_poses: the final pose in the demo's --trace (docs/trace.md): for the player and chosen crowd members,
 * every step, the entity's world transform, chosen joints (or all) in world space after the last stage and,
 * on request, after every stage (animator_stage: blend, additive, look, foot_lock, foot_ik), and each foot's
 * state (planted share, held by the lock, placed on the ground) with the ground's height and normal under it.
 * Off unless asked for; buffers are made at the start and grown only when a reload brings a larger skeleton.
 * Knows nothing of SDL, GL or keys. */
#ifndef MARIONETTE_TRACE_POSES_H
#define MARIONETTE_TRACE_POSES_H

#include <stdbool.h>

#include "anim/config/anim_config.h"
#include "base/diag.h"
#include "base/json.h"
#include "crowd.h"
#include "player.h"
#include "world/ground.h"

/* At most this many crowd members traced at once, and joints named. */
enum { TRACE_POSES_MEMBERS_MAX = 64, TRACE_POSES_JOINTS_MAX = 256 };

typedef struct trace_poses_options {
    const char *joints;  /* "all", or joint names separated by commas; NULL: no poses in the trace */
    const char *members; /* crowd member indices separated by commas (0 to max - 1), or NULL: the player only */
    bool stages;         /* every stage's pose, not only the last */
} trace_poses_options;

typedef struct trace_poses trace_poses;

/* Checked against every character of config (a joint name no character has is an error) and the crowd's
 * largest size (demo.ini max): NULL with one line in error ("--trace-joints: ...") when something is wrong or
 * memory runs out. */
trace_poses *trace_poses_create(const trace_poses_options *options, const anim_config *config, int crowd_max,
                                diag *error);
void trace_poses_destroy(trace_poses *poses);

/* Before a step: point the traced animators at their buffers (members come and go, a reload replaces
 * animators). */
void trace_poses_attach(trace_poses *poses, player *player, crowd *crowd);

/* After the step: the "poses" key and its array, into the step object the caller has open. */
void trace_poses_write(const trace_poses *poses, json_writer *w, const player *player, const crowd *crowd,
                       const ground *ground);

#endif
