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

bool anim_blend_valid(const anim_blend *blend)
{
    if (!blend || (blend->dimensions != 1 && blend->dimensions != 2) || blend->count < 1 ||
        blend->count > ANIM_BLEND_MAX_CLIPS)
        return false;
    float xs[ANIM_BLEND_MAX_CLIPS];
    for (int i = 0; i < blend->count; ++i) {
        const anim_clip *clip = blend->clips[i];
        if (!clip || !clip->clip || clip->loop != blend->loop || clip->additive != blend->additive ||
            !isfinite(blend->points[i][0]) || !isfinite(blend->points[i][1]) ||
            !(anim_blend_clip_duration(clip) >= 0.0))
            return false;
        xs[i] = blend->points[i][0];
    }
    if (blend->has_rest) {
        if (!blend->additive || blend->count >= ANIM_BLEND_MAX_CLIPS || !isfinite(blend->rest[0]) ||
            !isfinite(blend->rest[1]))
            return false;
        float points[ANIM_BLEND_MAX_CLIPS][2];
        int count = blend_points(blend, points, NULL);
        for (int i = 0; i < count; ++i)
            xs[i] = points[i][0];
        return blend->dimensions == 1 ? blend_space_1d_valid(xs, count)
                                      : blend_space_2d_valid((const float(*)[2])points, count);
    }
    return blend->dimensions == 1 ? blend_space_1d_valid(xs, blend->count)
                                  : blend_space_2d_valid((const float(*)[2])blend->points, blend->count);
}

void anim_blend_weights(const anim_blend *blend, const float point[2], float weights[ANIM_BLEND_MAX_CLIPS])
{
    float x = isfinite(point[0]) ? point[0] : 0.0f, y = isfinite(point[1]) ? point[1] : 0.0f;
    if (blend->has_rest) {
        float points[ANIM_BLEND_MAX_CLIPS][2], xs[ANIM_BLEND_MAX_CLIPS], all[ANIM_BLEND_MAX_CLIPS];
        int rest, count = blend_points(blend, points, &rest);
        for (int i = 0; i < count; ++i)
            xs[i] = points[i][0];
        if (blend->dimensions == 1)
            blend_space_1d_weights(xs, count, x, all);
        else
            blend_space_2d_weights((const float(*)[2])points, count, x, y, all);
        for (int i = 0, k = 0; i < count && k < blend->count; ++i)
            if (i != rest)
                weights[k++] = all[i];
        return;
    }
    if (blend->dimensions == 1) {
        float xs[ANIM_BLEND_MAX_CLIPS];
        for (int i = 0; i < blend->count; ++i)
            xs[i] = blend->points[i][0];
        blend_space_1d_weights(xs, blend->count, x, weights);
    } else {
        blend_space_2d_weights((const float(*)[2])blend->points, blend->count, x, y, weights);
    }
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
    return !blend->loop || blend->sync_group < 0 || blend->clips[i]->sync_group == blend->sync_group;
}

double anim_blend_duration(const anim_blend *blend, const float weights[ANIM_BLEND_MAX_CLIPS])
{
    double in_phase = 0.0, in_phase_weight = 0.0, all = 0.0, all_weight = 0.0, plain = 0.0;
    for (int i = 0; i < blend->count; ++i) {
        double duration = anim_blend_clip_duration(blend->clips[i]), part = weights[i] * duration;
        all += part;
        all_weight += weights[i];
        plain += duration;
        if (anim_blend_clip_in_phase(blend, i)) {
            in_phase += part;
            in_phase_weight += weights[i];
        }
    }
    return in_phase_weight > 0.0 ? in_phase / in_phase_weight
           : all_weight > 0.0    ? all / all_weight
                                 : plain / blend->count;
}

float anim_blend_ground_speed(const anim_blend *blend, const float weights[ANIM_BLEND_MAX_CLIPS])
{
    double stride[2] = {0.0, 0.0};
    for (int i = 0; i < blend->count; ++i) {
        float speed = anim_clip_ground_speed_metres(blend->clips[i]);
        if (!(weights[i] > 0.0f) || !(speed > 0.0f) || !anim_blend_clip_in_phase(blend, i))
            continue;
        /* The direction of its point; one at the origin (or a 1D point at 0) travels along +x. */
        double dx = blend->points[i][0], dy = blend->dimensions == 2 ? blend->points[i][1] : 0.0;
        double length = sqrt(dx * dx + dy * dy);
        if (!(length > 0.0)) {
            dx = 1.0;
            dy = 0.0;
            length = 1.0;
        }
        double reach = weights[i] * speed * anim_blend_clip_duration(blend->clips[i]) / length;
        stride[0] += reach * dx;
        stride[1] += reach * dy;
    }
    double duration = anim_blend_duration(blend, weights);
    double speed = duration > 0.0 ? sqrt(stride[0] * stride[0] + stride[1] * stride[1]) / duration : 0.0;
    return isfinite(speed) ? (float)speed : 0.0f;
}
