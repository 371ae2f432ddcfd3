/* clip: one animation (an .md5anim) baked for fast sampling by engine/build, immutable after load and
 * shared by every model whose skeleton has the same hierarchy. Local (parent-relative) poses, frame-major: frame f's joints are
 * frames[f * joint_count .. f * joint_count + joint_count - 1], so sampling between two frames reads two
 * contiguous blocks.
 *
 * Loop convention (see docs/md5-format.md): if the last frame equals the first within CLIP_LOOP_TOLERANCE
 * (positions and rotations, sign of a quaternion ignored; root joints are not compared unless the clip has
 * nothing else, since a root-motion cycle ends where it travelled to) the clip follows the Doom 3 rule, its last frame
 * is a copy of the first and a cycle lasts (frame_count - 1) / frame_rate. Otherwise it follows the
 * tutorials' rule: a cycle lasts frame_count / frame_rate and interpolates from the last frame back to the
 * first. Played once, a clip lasts (frame_count - 1) / frame_rate and holds its last frame.
 * Knows nothing of files, GL or models. */
#ifndef MARIONETTE_CLIP_H
#define MARIONETTE_CLIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"
#include "joint_pose.h"
#include "model.h"

#define CLIP_LOOP_TOLERANCE 1e-4f

typedef struct clip {
    int joint_count;
    int frame_count;          /* >= 1 */
    float frame_rate;         /* frames per second, > 0 */
    bool last_frame_is_first; /* Doom 3 loop convention detected */
    float loop_duration;      /* seconds per cycle when looping */
    float once_duration;      /* seconds until the last frame when played once */
    char **names;             /* hierarchy, joint_count names */
    int *parents;
    joint_pose *frames;       /* frame_count * joint_count local poses, unit quaternions */
    float (*bounds)[2][3];    /* per frame: min xyz, max xyz, object space */
    /* An additive clip (build_additive_clip): how many of its first and of its last joints, in skeleton
     * order, add nothing in any frame (their deltas are identity: see build_additive_clip), so a layer
     * adding it can skip them. 0 and 0 for an ordinary clip, and for one made without knowing. */
    int still_first, still_last;
    /* An additive clip: bit j % 64 of moving[j / 64] is set when joint j adds something in some frame
     * (it is not still, in the sense above), so a layer adding it can also skip the still joints between
     * the moving ones (a breath leaves the forearms and hands alone between the clavicles). NULL for an
     * ordinary clip: every joint between the still ends counts as moving. */
    uint64_t *moving;
    size_t bytes;             /* heap bytes this clip owns */
} clip;

void clip_free(clip *c);

/* Whether joint j (0 <= j < joint_count) of an additive clip adds something in some frame: its moving bit,
 * or for a clip without the bitset, whether it lies between the still ends. */
static inline bool clip_joint_moves(const clip *c, int j)
{
    if (c->moving)
        return (c->moving[j / 64] >> (j % 64)) & 1u;
    return j >= c->still_first && j < c->joint_count - c->still_last;
}

/* Does the clip's hierarchy match the skeleton (count, then names and parents in order)? On mismatch err
 * names the first differing joint. `clip_name` is used as the diag's file. */
bool clip_fits_skeleton(const clip *c, const skeleton *s, const char *clip_name, diag *err);

#endif
