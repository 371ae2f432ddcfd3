/* anim_additive: bakes an additive clip at load time: every frame of a clip as its difference from a
 * reference pose (pose_additive_delta), so that sampling the baked clip gives deltas directly and the
 * per-frame path (pose_add) never subtracts anything. Runs once per clip, never per frame.
 * Knows nothing of ini files, the cache, the controller or GL. */
#ifndef MARIONETTE_ANIM_ADDITIVE_H
#define MARIONETTE_ANIM_ADDITIVE_H

#include <stdbool.h>

#include "../base/diag.h"
#include "../model/clip.h"

/* Fill out with source's deltas from frame reference_frame of reference (which may be source itself:
 * "its own first frame"). out's timing (frame count, rate, loop convention, durations) is source's; its
 * names, parents and bounds point at source's (borrowed: source must outlive out, and out must be freed
 * with anim_additive_free, not clip_free); its frames are its own, frame_count * joint_count deltas.
 * False, out zeroed, err filled (file "additive"), when the reference has another hierarchy (joint count,
 * names or parents), reference_frame is outside 0 .. reference's frame_count - 1, or memory runs out. */
bool anim_additive_bake(const clip *source, const clip *reference, int reference_frame, clip *out, diag *err);

/* Frees what anim_additive_bake allocated (the deltas); out is zeroed. NULL is fine. */
void anim_additive_free(clip *baked);

#endif
