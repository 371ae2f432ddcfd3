/* raw clip -> clip: the reach check, the loop convention and durations, bounds when the file has none. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "build_internal.h"

/* How far from the origin a joint can get in any pose made of this clip's frames: its chain's translation
 * lengths added up, each the longest that joint has in any frame. Rotations (blended or not) never
 * lengthen a translation, and a blend of translations is no longer than the longest, so this bounds every
 * sampled and blended pose, not only the frames; BUILD_REACH_MAX keeps it far enough from FLT_MAX for the
 * pose stage's arithmetic (a rotation's intermediates, the difference of two frames) to stay finite.
 * Finite local values can still add up to infinity down a chain: such a pose stretched the body to
 * infinity and defeated culling (and fuzz_md5anim found one 2e38 translation overflowing in a rotation).
 * A pass of its own after the frames, kept out of the reader's loop. */
static __attribute__((noinline)) bool check_reach(build_report *r, const clip *c, const size_t *frame_at)
{
    /* The largest magnitude of any translation component: for finite floats without their signs the
     * bit patterns order as the values do. A chain is at most joint_count long and each link at most
     * sqrt(3) x that, so while it is small no reach can pass the limit: real clips stop here. */
    uint32_t largest_bits = 0;
    size_t poses = (size_t)c->frame_count * (size_t)c->joint_count;
    for (size_t i = 0; i < poses; ++i)
        for (int k = 0; k < 3; ++k) {
            uint32_t bits;
            memcpy(&bits, &c->frames[i].position[k], sizeof bits);
            bits &= 0x7fffffffu;
            largest_bits = bits > largest_bits ? bits : largest_bits;
        }
    float largest;
    memcpy(&largest, &largest_bits, sizeof largest);
    if ((double)largest * 1.75 * c->joint_count <= BUILD_REACH_MAX)
        return true;
    double *longest = calloc(2 * (size_t)c->joint_count, sizeof *longest);
    if (!longest)
        return build_fail(r, BUILD_NO_POSITION, "out of memory");
    double *reach = longest + c->joint_count;
    bool ok = true;
    for (int f = 0; f < c->frame_count && ok; ++f) {
        const joint_pose *local = &c->frames[(size_t)f * (size_t)c->joint_count];
        for (int j = 0; j < c->joint_count && ok; ++j) {
            const float *t = local[j].position;
            double length = sqrt((double)t[0] * t[0] + (double)t[1] * t[1] + (double)t[2] * t[2]);
            if (length > longest[j])
                longest[j] = length;
            reach[j] = (c->parents[j] >= 0 ? reach[c->parents[j]] : 0.0) + longest[j];
            if (reach[j] > BUILD_REACH_MAX)
                ok = build_fail(r, frame_at ? frame_at[f] : BUILD_NO_POSITION,
                                "frame %d: joint %d '%s' can be %g units from the origin (its chain's "
                                "translations add up to more than %g)",
                                f, j, c->names[j], reach[j], BUILD_REACH_MAX);
        }
    }
    free(longest);
    return ok;
}

static bool same_pose(const joint_pose *a, const joint_pose *b)
{
    float same_sign = 0.0f, opposite_sign = 0.0f, position = 0.0f;
    for (int k = 0; k < 4; ++k) {
        same_sign = fmaxf(same_sign, fabsf(a->rotation[k] - b->rotation[k]));
        opposite_sign = fmaxf(opposite_sign, fabsf(a->rotation[k] + b->rotation[k]));
    }
    for (int k = 0; k < 3; ++k)
        position = fmaxf(position, fabsf(a->position[k] - b->position[k]));
    return position <= CLIP_LOOP_TOLERANCE && fminf(same_sign, opposite_sign) <= CLIP_LOOP_TOLERANCE;
}

/* Loop convention (clip.h): the Doom 3 rule when the last frame repeats the first. Root joints are left
 * out of the comparison when there are other joints: they carry the character's travel, and a root-motion
 * cycle ends one stride further on (and, in a turn, facing elsewhere) than it started. */
static void set_durations(clip *c)
{
    const joint_pose *first = c->frames;
    const joint_pose *last = &c->frames[(size_t)(c->frame_count - 1) * (size_t)c->joint_count];
    bool only_roots = true;
    for (int j = 0; j < c->joint_count; ++j)
        only_roots = only_roots && c->parents[j] < 0;
    c->last_frame_is_first = true;
    for (int j = 0; j < c->joint_count && c->last_frame_is_first; ++j)
        if (only_roots || c->parents[j] >= 0)
            c->last_frame_is_first = same_pose(&first[j], &last[j]);
    float cycle_frames = (float)(c->last_frame_is_first ? c->frame_count - 1 : c->frame_count);
    if (c->frame_count == 1)
        cycle_frames = 0.0f; /* nothing to cycle through: a pose held forever */
    c->loop_duration = cycle_frames / c->frame_rate;
    c->once_duration = (float)(c->frame_count - 1) / c->frame_rate;
}

/* For a format without bounds: each frame's box is that of its joints in object space (within
 * BUILD_REACH_MAX of the origin, so finite). */
static bool measure_joint_bounds(build_report *r, clip *c)
{
    c->bounds = malloc((size_t)c->frame_count * sizeof *c->bounds);
    joint_pose *object = build_alloc_aligned((size_t)c->joint_count * sizeof *object);
    if (!c->bounds || !object) {
        free(object);
        return build_fail(r, BUILD_NO_POSITION, "out of memory for %d frames", c->frame_count);
    }
    for (int f = 0; f < c->frame_count; ++f) {
        const joint_pose *local = &c->frames[(size_t)f * (size_t)c->joint_count];
        float (*box)[3] = c->bounds[f];
        for (int j = 0; j < c->joint_count; ++j) {
            int parent = c->parents[j];
            object[j] = local[j];
            if (parent >= 0) {
                vec3 rotated;
                glm_quat_rotatev(object[parent].rotation, (float *)local[j].position, rotated);
                glm_vec3_add(object[parent].position, rotated, object[j].position);
                glm_quat_mul(object[parent].rotation, (float *)local[j].rotation, object[j].rotation);
            }
            for (int k = 0; k < 3; ++k) {
                float value = object[j].position[k];
                box[0][k] = j == 0 ? value : fminf(box[0][k], value);
                box[1][k] = j == 0 ? value : fmaxf(box[1][k], value);
            }
        }
    }
    free(object);
    return true;
}

bool build_copy_hierarchy(clip *c, int joint_count, char *const *names, const int *parents)
{
    size_t joints = (size_t)joint_count;
    c->names = calloc(joints, sizeof *c->names);
    c->parents = malloc(joints * sizeof *c->parents);
    if (!c->names || !c->parents)
        return false;
    memcpy(c->parents, parents, joints * sizeof *c->parents);
    c->bytes += joints * (sizeof *c->names + sizeof *c->parents);
    for (size_t j = 0; j < joints; ++j) {
        c->names[j] = strdup(names && names[j] ? names[j] : "");
        if (!c->names[j])
            return false;
        c->bytes += strlen(c->names[j]) + 1;
    }
    return true;
}

bool build_retimed_clip(const clip *source, float frame_rate, clip **out, diag *err)
{
    *out = NULL;
    if (!source || !source->frames || source->frame_count <= 0)
        return diag_set(err, "frame_rate", 0, "no clip to play at another rate");
    if (!(frame_rate >= BUILD_FRAME_RATE_MIN && frame_rate <= BUILD_FRAME_RATE_MAX))
        return diag_set(err, "frame_rate", 0, "a frame rate must be %g to %g frames a second, not %g",
                        (double)BUILD_FRAME_RATE_MIN, (double)BUILD_FRAME_RATE_MAX, (double)frame_rate);
    size_t joints = (size_t)source->joint_count, frames = (size_t)source->frame_count;
    clip *c = calloc(1, sizeof *c);
    if (!c)
        return diag_set(err, "frame_rate", 0, "out of memory");
    *c = *source; /* the same sizes: bytes as the source's */
    c->names = NULL;
    c->parents = NULL;
    c->frames = malloc(frames * joints * sizeof *c->frames);
    c->bounds = source->bounds ? malloc(frames * sizeof *c->bounds) : NULL;
    c->moving = NULL;
    size_t words = ((size_t)source->joint_count + 63) / 64;
    if (source->moving)
        c->moving = malloc(words * sizeof *c->moving);
    bool ok = c->frames && (c->bounds || !source->bounds) && (c->moving || !source->moving) &&
              build_copy_hierarchy(c, source->joint_count, source->names, source->parents);
    c->bytes = source->bytes;
    if (!ok) {
        clip_free(c);
        return diag_set(err, "frame_rate", 0, "out of memory");
    }
    memcpy(c->frames, source->frames, frames * joints * sizeof *c->frames);
    if (c->bounds)
        memcpy(c->bounds, source->bounds, frames * sizeof *c->bounds);
    if (c->moving)
        memcpy(c->moving, source->moving, words * sizeof *c->moving);
    /* The same frames at another pace: every duration scales, nothing else changes. */
    float stretch = source->frame_rate / frame_rate;
    c->frame_rate = frame_rate;
    c->loop_duration = source->loop_duration * stretch;
    c->once_duration = source->once_duration * stretch;
    *out = c;
    return true;
}

bool build_clip(raw_clip *raw, clip **out, diag *err, diag_list *warnings)
{
    *out = NULL;
    build_report r = build_report_start(&raw->source, err, warnings);
    clip *c = calloc(1, sizeof *c);
    if (!c)
        return build_fail(&r, BUILD_NO_POSITION, "out of memory");
    size_t joints = (size_t)raw->joint_count, frames = (size_t)raw->frame_count;
    c->joint_count = raw->joint_count;
    c->frame_count = raw->frame_count;
    c->frame_rate = raw->frame_rate;
    c->names = raw->names;
    c->parents = raw->parents;
    c->frames = raw->frames;
    c->bounds = raw->bounds;
    raw->names = NULL;
    raw->parents = NULL;
    raw->frames = NULL;
    raw->bounds = NULL;
    c->bytes = sizeof *c + joints * (sizeof *c->names + sizeof *c->parents) +
               frames * (joints * sizeof *c->frames + sizeof *c->bounds);
    for (int j = 0; j < c->joint_count; ++j)
        c->bytes += strlen(c->names[j]) + 1;
    if (!check_reach(&r, c, raw->frame_at) || (!c->bounds && !measure_joint_bounds(&r, c))) {
        clip_free(c);
        return false;
    }
    set_durations(c);
    build_pass_notes(&r, &raw->trailing_notes);
    *out = c;
    return true;
}
