/* build: raw data (raw.h, from any reader) -> the runtime's immutable model and clip, in one place
 * whatever the file format: inverse bind matrices, the cut to SKIN_MAX_INFLUENCES weights a vertex and
 * its renormalising, skin_reach, bind normals and bounds; a clip's loop convention, durations, bounds and
 * reach. Its messages name file:line from the positions the raw data carries, and go to the same diag and
 * diag_list the reader used. Also the one step that makes runtime data from runtime data: an additive
 * clip's deltas, baked once at load (build_additive_clip).
 * Knows nothing of file formats, of reading files, of GL or of the cache. */
#ifndef MARIONETTE_BUILD_H
#define MARIONETTE_BUILD_H

#include <stdbool.h>

#include "../base/diag.h"
#include "../model/clip.h"
#include "../model/model.h"
#include "raw.h"

/* How far a clip's joint may get from the origin: the translation lengths of its chain added up, each the
 * longest that joint has in any frame. A bound on every pose sampled or blended from the clip, whatever the
 * rotations; far below FLT_MAX (3.4e38) so the pose stage's arithmetic stays finite, far above any real
 * character (real clips reach under 1e4). */
#define BUILD_REACH_MAX 1e30

/* A new model (free with model_free) from raw, which is left as it was: building the same raw twice
 * gives two equal models. On failure *out is NULL and err says why. `warnings` may be NULL. */
bool build_model(const raw_model *raw, model **out, diag *err, diag_list *warnings);

/* A new clip (free with clip_free) from raw. Takes over raw's frames, names, parents and bounds (a clip's
 * frames may be 64 times its file's size: holding them twice would pass the readers' heap bound), so raw
 * is built once; raw_clip_free still frees what is left. Without bounds in raw, each frame's box is that
 * of its joints' positions. */
bool build_clip(raw_clip *raw, clip **out, diag *err, diag_list *warnings);

/* A new clip (free with clip_free) holding, for every frame of source, its difference from frame
 * reference_frame of reference (which may be source itself: "its own first frame"), per joint in its
 * parent's space (pose_additive_delta: rotation inverse(reference) * frame, translation frame - reference),
 * so that sampling it gives deltas and the per-frame path (pose_add) never subtracts anything. Its timing
 * (frame count, rate, loop convention, durations), hierarchy and bounds are copies of source's: it
 * depends on neither clip once made. False, *out NULL and err filled (file "additive") when the reference
 * has another hierarchy (joint count, names or parents), reference_frame is outside 0 .. reference's
 * frame_count - 1, a clip has no frames, or memory runs out. */
bool build_additive_clip(const clip *source, const clip *reference, int reference_frame, clip **out, diag *err);

/* The frame rates a clip may be played at instead of its file's (clips.ini frame_rate, new-character --rate). */
#define BUILD_FRAME_RATE_MIN 1.0f
#define BUILD_FRAME_RATE_MAX 1000.0f

/* A new clip (free with clip_free): a copy of source played at frame_rate frames a second instead of its own
 * (its durations scaled to match; frames, bounds, loop convention and hierarchy the same). For a file whose
 * frameRate is not the rate its game plays it at (a Sauerbraten model at 24 played at 125). False, *out NULL
 * and err filled (file "frame_rate") for a rate outside BUILD_FRAME_RATE_MIN..MAX or when memory runs out. */
bool build_retimed_clip(const clip *source, float frame_rate, clip **out, diag *err);

#endif
