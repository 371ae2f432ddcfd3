#include "anim_additive.h"

#include <stdlib.h>
#include <string.h>

#include "../pose/pose.h"

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

bool anim_additive_bake(const clip *source, const clip *reference, int reference_frame, clip *out, diag *err)
{
    if (!out)
        return diag_set(err, "additive", 0, "no clip to fill");
    memset(out, 0, sizeof *out);
    if (!source || !reference || !source->frames || !reference->frames || !source->parents || !reference->parents ||
        source->joint_count <= 0 || source->frame_count <= 0)
        return diag_set(err, "additive", 0, "the clip or its reference has no frames");
    if (!same_hierarchy(source, reference, err))
        return false;
    if (reference_frame < 0 || reference_frame >= reference->frame_count)
        return diag_set(err, "additive", 0, "reference frame %d is outside 0 to %d", reference_frame,
                        reference->frame_count - 1);
    size_t joints = (size_t)source->joint_count;
    size_t count = (size_t)source->frame_count * joints;
    joint_pose *frames = malloc(sizeof *frames * count);
    if (!frames)
        return diag_set(err, "additive", 0, "out of memory");
    const joint_pose *reference_pose = reference->frames + (size_t)reference_frame * joints;
    for (int f = 0; f < source->frame_count; ++f)
        pose_additive_delta(reference_pose, source->frames + (size_t)f * joints, source->joint_count,
                            frames + (size_t)f * joints);
    *out = *source;
    out->frames = frames;
    out->bytes = sizeof *frames * count;
    return true;
}

void anim_additive_free(clip *baked)
{
    if (!baked)
        return;
    free(baked->frames);
    memset(baked, 0, sizeof *baked);
}
