/* An additive clip from two built clips: every frame as its difference from a reference pose. */
#include <stdlib.h>
#include <string.h>

#include "../pose/pose.h"
#include "build.h"
#include "build_internal.h"

/* The same joints in the same order under the same parents: a delta taken against another skeleton's
 * pose would twist joints that have nothing to do with each other. */
static bool same_hierarchy(const clip *a, const clip *b, diag *err)
{
    if (a->joint_count != b->joint_count)
        return diag_set(err, "additive", 0, "the reference has %d joints, the clip %d", b->joint_count,
                        a->joint_count);
    for (int i = 0; i < a->joint_count; ++i) {
        bool names_differ = a->names && b->names && a->names[i] && b->names[i] && strcmp(a->names[i], b->names[i]) != 0;
        if (names_differ || a->parents[i] != b->parents[i])
            return diag_set(err, "additive", 0, "the reference's joint %d (%s) differs from the clip's (%s)", i,
                            b->names && b->names[i] ? b->names[i] : "?", a->names && a->names[i] ? a->names[i] : "?");
    }
    return true;
}

/* A joint adds nothing when, in every frame, its delta moves it by nothing and turns it by at most
 * ADDITIVE_STILL_TURN radians (a delta of a joint the clip does not animate is identity up to rounding).
 * Skipping such a joint changes a pose by less than that turn. */
#define ADDITIVE_STILL_TURN 2e-6f

static bool joint_still(const clip *c, int joint)
{
    for (int f = 0; f < c->frame_count; ++f) {
        const joint_pose *delta = &c->frames[(size_t)f * (size_t)c->joint_count + (size_t)joint];
        const float *q = delta->rotation;
        if (delta->position[0] != 0.0f || delta->position[1] != 0.0f || delta->position[2] != 0.0f ||
            !(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] <= 0.25f * ADDITIVE_STILL_TURN * ADDITIVE_STILL_TURN))
            return false;
    }
    return true;
}

/* The still joints: those at either end of the skeleton order (a lean or a breath moves the spine and
 * leaves the legs and the left arm's hand below it alone) and, in the moving bitset, every one (a breath
 * leaves the forearms and hands alone between the two clavicles). False when out of memory. */
static bool find_still_joints(clip *c)
{
    size_t words = ((size_t)c->joint_count + 63) / 64;
    c->moving = calloc(words, sizeof *c->moving);
    if (!c->moving)
        return false;
    c->bytes += words * sizeof *c->moving;
    for (int j = 0; j < c->joint_count; ++j)
        if (!joint_still(c, j))
            c->moving[j / 64] |= (uint64_t)1 << (j % 64);
    c->still_first = c->still_last = 0;
    while (c->still_first < c->joint_count && !clip_joint_moves(c, c->still_first))
        ++c->still_first;
    while (c->still_first + c->still_last < c->joint_count && !clip_joint_moves(c, c->joint_count - 1 - c->still_last))
        ++c->still_last;
    return true;
}

/* The hierarchy and bounds of source, copied into c (which owns them from then on, for clip_free). */
static bool copy_hierarchy(const clip *source, clip *c)
{
    size_t frames = (size_t)source->frame_count;
    if (!build_copy_hierarchy(c, source->joint_count, source->names, source->parents))
        return false;
    if (source->bounds) {
        c->bounds = malloc(frames * sizeof *c->bounds);
        if (!c->bounds)
            return false;
        memcpy(c->bounds, source->bounds, frames * sizeof *c->bounds);
        c->bytes += frames * sizeof *c->bounds;
    }
    return true;
}

bool build_additive_clip(const clip *source, const clip *reference, int reference_frame, clip **out, diag *err)
{
    if (!out)
        return diag_set(err, "additive", 0, "no clip to fill");
    *out = NULL;
    if (!source || !reference || !source->frames || !reference->frames || !source->parents || !reference->parents ||
        source->joint_count <= 0 || source->frame_count <= 0)
        return diag_set(err, "additive", 0, "the clip or its reference has no frames");
    if (!same_hierarchy(source, reference, err))
        return false;
    if (reference_frame < 0 || reference_frame >= reference->frame_count)
        return diag_set(err, "additive", 0, "reference frame %d is outside 0 to %d", reference_frame,
                        reference->frame_count - 1);
    clip *c = calloc(1, sizeof *c);
    if (!c)
        return diag_set(err, "additive", 0, "out of memory");
    /* Timing (frame count, rate, loop convention, durations) is source's. */
    *c = *source;
    c->names = NULL;
    c->parents = NULL;
    c->bounds = NULL;
    c->moving = NULL;
    size_t joints = (size_t)source->joint_count;
    size_t count = (size_t)source->frame_count * joints;
    c->frames = malloc(sizeof *c->frames * count);
    c->bytes = sizeof *c + sizeof *c->frames * count;
    if (!c->frames || !copy_hierarchy(source, c)) {
        clip_free(c);
        return diag_set(err, "additive", 0, "out of memory");
    }
    const joint_pose *reference_pose = reference->frames + (size_t)reference_frame * joints;
    for (int f = 0; f < source->frame_count; ++f)
        pose_additive_delta(reference_pose, source->frames + (size_t)f * joints, source->joint_count,
                            c->frames + (size_t)f * joints);
    if (!find_still_joints(c)) {
        clip_free(c);
        return diag_set(err, "additive", 0, "out of memory");
    }
    *out = c;
    return true;
}
