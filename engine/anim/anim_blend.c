#include "anim_blend.h"

#include <math.h>
#include <string.h>

static double anim_blend_clip_duration(const anim_clip *clip)
{
    return clip->loop ? clip->clip->loop_duration : clip->clip->once_duration;
}

/* The points blend_space weighs: the clips', and the rest's where the blend has one, at its place in the
 * order (1D points stay sorted). *rest_index (may be NULL) is where the rest went, or -1. The count. */
static int blend_points(const anim_blend *blend, float points[ANIM_BLEND_MAX_CLIPS][2], int *rest_index)
{
    int count = 0, rest = -1;
    for (int i = 0; i < blend->count && count < ANIM_BLEND_MAX_CLIPS; ++i) {
        if (blend->has_rest && rest < 0 && blend->dimensions == 1 && blend->rest[0] < blend->points[i][0]) {
            rest = count;
            points[count][0] = blend->rest[0];
            points[count++][1] = blend->rest[1];
        }
        if (count < ANIM_BLEND_MAX_CLIPS) {
            points[count][0] = blend->points[i][0];
            points[count++][1] = blend->points[i][1];
        }
    }
    if (blend->has_rest && rest < 0 && count < ANIM_BLEND_MAX_CLIPS) {
        rest = count;
        points[count][0] = blend->rest[0];
        points[count++][1] = blend->rest[1];
    }
    if (rest_index)
        *rest_index = rest;
    return count;
}

/* The points blend_space weighs, as anim_blend_derived keeps them. */
static void derive_space(const anim_blend *blend, anim_blend_derived *out)
{
    out->point_count = blend_points(blend, out->points, &out->rest_index);
    for (int i = 0; i < out->point_count; ++i)
        out->xs[i] = out->points[i][0];
}

bool anim_blend_valid(const anim_blend *blend)
{
    if (!blend || (blend->dimensions != 1 && blend->dimensions != 2) || blend->count < 1 ||
        blend->count > ANIM_BLEND_MAX_CLIPS)
        return false;
    for (int i = 0; i < blend->count; ++i) {
        const anim_clip *clip = blend->clips[i];
        if (!clip || !clip->clip || clip->loop != blend->loop || clip->additive != blend->additive ||
            !isfinite(blend->points[i][0]) || !isfinite(blend->points[i][1]) ||
            !(anim_blend_clip_duration(clip) >= 0.0))
            return false;
    }
    if (blend->has_rest && (!blend->additive || blend->count >= ANIM_BLEND_MAX_CLIPS || !isfinite(blend->rest[0]) ||
                            !isfinite(blend->rest[1])))
        return false;
    anim_blend_derived space;
    derive_space(blend, &space);
    return blend->dimensions == 1 ? blend_space_1d_valid(space.xs, space.point_count)
                                  : blend_space_2d_valid((const float(*)[2])space.points, space.point_count);
}

/* Whether clip i keeps the blend's phase (anim_blend_clip_in_phase), worked out from the fields. */
static bool derive_in_phase(const anim_blend *blend, int i)
{
    return !blend->loop || blend->sync_group < 0 || blend->clips[i]->sync_group == blend->sync_group;
}

/* Clip i's terms in anim_blend_derived (its in_phase bit starts clear). One function for
 * anim_blend_prepare and for blends made by hand, so that both give the same bits. */
static void derive_clip(const anim_blend *blend, int i, anim_blend_derived *out)
{
    const anim_clip *clip = blend->clips[i];
    double duration = anim_blend_clip_duration(clip);
    bool in_phase = derive_in_phase(blend, i);
    out->durations[i] = duration;
    if (in_phase)
        out->in_phase |= 1u << i;
    out->travel[i][0] = out->travel[i][1] = 0.0;
    float speed = anim_clip_ground_speed_metres(clip);
    if (!(speed > 0.0f) || !in_phase)
        return;
    /* The direction of its point; one at the origin (or a 1D point at 0) travels along +x. */
    double dx = blend->points[i][0], dy = blend->dimensions == 2 ? blend->points[i][1] : 0.0;
    double length = sqrt(dx * dx + dy * dy);
    if (!(length > 0.0)) {
        dx = 1.0;
        dy = 0.0;
        length = 1.0;
    }
    double reach = speed * duration / length;
    out->travel[i][0] = reach * dx;
    out->travel[i][1] = reach * dy;
}

void anim_blend_prepare(anim_blend *blend)
{
    if (!blend)
        return;
    blend->prepared = false;
    if (!anim_blend_valid(blend))
        return;
    anim_blend_derived derived = {0};
    derive_space(blend, &derived);
    for (int i = 0; i < blend->count; ++i)
        derive_clip(blend, i, &derived);
    blend->derived = derived;
    blend->prepared = true;
}

void anim_blend_weights(const anim_blend *blend, const float point[2], float weights[ANIM_BLEND_MAX_CLIPS])
{
    float x = isfinite(point[0]) ? point[0] : 0.0f, y = isfinite(point[1]) ? point[1] : 0.0f;
    anim_blend_derived own;
    const anim_blend_derived *space = &blend->derived;
    if (!blend->prepared) {
        derive_space(blend, &own);
        space = &own;
    }
    /* With a rest, blend_space weighs it too and its weight is left out. */
    float all[ANIM_BLEND_MAX_CLIPS];
    float *out = space->rest_index >= 0 ? all : weights;
    if (blend->dimensions == 1)
        blend_space_1d_weights(space->xs, space->point_count, x, out);
    else
        blend_space_2d_weights((const float(*)[2])space->points, space->point_count, x, y, out);
    if (space->rest_index >= 0)
        for (int i = 0, k = 0; i < space->point_count && k < blend->count; ++i)
            if (i != space->rest_index)
                weights[k++] = all[i];
}

int anim_blend_heaviest(const anim_blend *blend, const float weights[ANIM_BLEND_MAX_CLIPS])
{
    int heaviest = 0;
    for (int i = 1; i < blend->count; ++i)
        if (weights[i] > weights[heaviest])
            heaviest = i;
    return heaviest;
}

bool anim_blend_clip_in_phase(const anim_blend *blend, int i)
{
    if (blend->prepared)
        return (blend->derived.in_phase >> i) & 1u;
    return derive_in_phase(blend, i);
}

unsigned anim_blend_clips_in_phase(const anim_blend *blend)
{
    if (blend->prepared)
        return blend->derived.in_phase;
    unsigned in_phase = 0;
    for (int i = 0; i < blend->count; ++i)
        in_phase |= (unsigned)derive_in_phase(blend, i) << i;
    return in_phase;
}

/* The clip terms of a blend: its own when prepared, else worked out into *own. */
static const anim_blend_derived *clip_terms(const anim_blend *blend, anim_blend_derived *own)
{
    if (blend->prepared)
        return &blend->derived;
    own->in_phase = 0;
    for (int i = 0; i < blend->count; ++i)
        derive_clip(blend, i, own);
    return own;
}

/* anim_blend_duration from the clip terms. */
static double duration_of(const anim_blend *blend, const anim_blend_derived *terms,
                          const float weights[ANIM_BLEND_MAX_CLIPS])
{
    double in_phase = 0.0, in_phase_weight = 0.0, all = 0.0, all_weight = 0.0, plain = 0.0;
    for (int i = 0; i < blend->count; ++i) {
        double duration = terms->durations[i], part = weights[i] * duration;
        all += part;
        all_weight += weights[i];
        plain += duration;
        if ((terms->in_phase >> i) & 1u) {
            in_phase += part;
            in_phase_weight += weights[i];
        }
    }
    return in_phase_weight > 0.0 ? in_phase / in_phase_weight
           : all_weight > 0.0    ? all / all_weight
                                 : plain / blend->count;
}

double anim_blend_duration(const anim_blend *blend, const float weights[ANIM_BLEND_MAX_CLIPS])
{
    anim_blend_derived own;
    return duration_of(blend, clip_terms(blend, &own), weights);
}

float anim_blend_ground_speed(const anim_blend *blend, const float weights[ANIM_BLEND_MAX_CLIPS])
{
    anim_blend_derived own;
    const anim_blend_derived *terms = clip_terms(blend, &own);
    double stride[2] = {0.0, 0.0};
    for (int i = 0; i < blend->count; ++i) {
        if (!(weights[i] > 0.0f))
            continue;
        stride[0] += weights[i] * terms->travel[i][0];
        stride[1] += weights[i] * terms->travel[i][1];
    }
    double duration = duration_of(blend, terms, weights);
    double speed = duration > 0.0 ? sqrt(stride[0] * stride[0] + stride[1] * stride[1]) / duration : 0.0;
    return isfinite(speed) ? (float)speed : 0.0f;
}
