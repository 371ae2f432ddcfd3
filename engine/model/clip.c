#include "clip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void clip_free(clip *c)
{
    if (!c)
        return;
    if (c->names)
        for (int i = 0; i < c->joint_count; ++i)
            free(c->names[i]);
    free(c->names);
    free(c->parents);
    free(c->frames);
    free(c->bounds);
    free(c->moving);
    free(c);
}

/* Index of an earlier joint with the same name, or -1: says "duplicate" in the mismatch message, which
 * is the likeliest story when a clip's name differs from the skeleton's. */
static int earlier_joint_named(char *const *names, int before, const char *name)
{
    for (int i = 0; i < before; ++i)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

bool clip_fits_skeleton(const clip *c, const skeleton *s, const char *clip_name, diag *err)
{
    if (!c || !s)
        return diag_set(err, clip_name, 0, "no clip or no skeleton to match");
    /* With different counts, still name the first joint that differs: that is where to look. */
    char counts[64] = "";
    if (c->joint_count != s->joint_count)
        snprintf(counts, sizeof counts, "clip has %d joints, skeleton has %d; ", c->joint_count, s->joint_count);
    int shared = c->joint_count < s->joint_count ? c->joint_count : s->joint_count;
    for (int i = 0; i < shared; ++i) {
        bool same_name = strcmp(c->names[i], s->names[i]) == 0;
        if (same_name && c->parents[i] == s->parents[i])
            continue;
        if (!same_name) {
            int duplicate = earlier_joint_named(c->names, i, c->names[i]);
            char note[48] = "";
            if (duplicate >= 0)
                snprintf(note, sizeof note, " (a duplicate of joint %d)", duplicate);
            return diag_set(err, clip_name, 0, "%sjoint %d: clip has '%s'%s, skeleton has '%s'", counts, i,
                            c->names[i], note, s->names[i]);
        }
        return diag_set(err, clip_name, 0, "%sjoint %d '%s': clip's parent is %d, skeleton's is %d", counts, i,
                        c->names[i], c->parents[i], s->parents[i]);
    }
    if (c->joint_count < s->joint_count)
        return diag_set(err, clip_name, 0, "%sjoint %d '%s' of the skeleton is missing from the clip", counts,
                        shared, s->names[shared]);
    if (c->joint_count > s->joint_count)
        return diag_set(err, clip_name, 0, "%sjoint %d '%s' of the clip is not in the skeleton", counts, shared,
                        c->names[shared]);
    return true;
}
