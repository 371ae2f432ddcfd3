#include "anim_blend.h"

#include <math.h>
#include <string.h>

static double anim_blend_clip_duration(const anim_clip *clip)
{
    return clip->loop ? clip->clip->loop_duration : clip->clip->once_duration;
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
    return blend->dimensions == 1 ? blend_space_1d_valid(xs, blend->count)
                                  : blend_space_2d_valid((const float(*)[2])blend->points, blend->count);
}

void anim_blend_weights(const anim_blend *blend, const float point[2], float weights[ANIM_BLEND_MAX_CLIPS])
{
    float x = isfinite(point[0]) ? point[0] : 0.0f, y = isfinite(point[1]) ? point[1] : 0.0f;
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
    double in_phase = 0.0, in_phase_weight = 0.0, all = 0.0;
    for (int i = 0; i < blend->count; ++i) {
        double part = weights[i] * anim_blend_clip_duration(blend->clips[i]);
        all += part;
        if (anim_blend_clip_in_phase(blend, i)) {
            in_phase += part;
            in_phase_weight += weights[i];
        }
    }
    return in_phase_weight > 0.0 ? in_phase / in_phase_weight : all;
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
