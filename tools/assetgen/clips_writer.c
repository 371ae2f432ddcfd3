/* clips_writer: a clip plan sampled frame by frame and written as .md5anim text, with the fewest animated
 * components that reproduce every frame as written. Components are kept as the millionths they print as
 * (md5_text.h), so deciding which components are animated compares exactly what is written. */
#include "clips_internal.h"

#include <math.h>
#include <stdlib.h>

#include "md5_text.h"

#define BOUNDS_MARGIN 0.15 /* m added around the joints so the box contains the body's flesh */

/* A joint's six components as written: position, then the rotation's x, y, z with w <= 0 (MD5 readers
 * recover w as -sqrt(...), so a rotation with w > 0 is written as its negation, the same rotation). */
static void joint_components(const frame_pose *pose, int joint, long long out[6])
{
    const double *q = pose->rotation[joint];
    double length = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double sign = q[3] > 0.0 ? -1.0 : 1.0;
    for (int k = 0; k < 3; ++k) {
        out[k] = md5_text_millionths(pose->translation[joint][k]);
        out[3 + k] = md5_text_millionths(sign * q[k] / length);
    }
}

/* Pose of frame f: a cycle's last frame is its first again, with the root one cycle further on. */
static void plan_frame(const clip_plan *plan, int frame, frame_pose *pose)
{
    bool repeat_first = plan->recipe.cyclic && frame == plan->recipe.frame_count - 1;
    clips_plan_pose(plan, repeat_first ? 0.0 : (double)frame / plan->recipe.frame_rate, pose);
    if (repeat_first && plan->recipe.root_motion)
        for (int k = 0; k < 2; ++k)
            pose->translation[RIG_ROOT][k] +=
                plan->recipe.ground_speed * plan->recipe.direction[k] * clips_plan_duration(plan);
}

typedef long long joint_values[RIG_JOINT_COUNT][6];

static void write_text(FILE *out, const clip_plan *plan, const frame_pose *poses, joint_values *values,
                       joint_values *base, const int *flags)
{
    int frame_count = plan->recipe.frame_count, component_count = 0;
    for (int j = 0; j < RIG_JOINT_COUNT; ++j)
        for (int k = 0; k < 6; ++k)
            component_count += (flags[j] >> k) & 1;
    md5_text_print_header(out);
    fprintf(out, "numFrames %d\nnumJoints %d\nframeRate %d\nnumAnimatedComponents %d\n\n", frame_count,
            RIG_JOINT_COUNT, plan->recipe.frame_rate, component_count);

    fputs("hierarchy {\n", out);
    for (int j = 0, start = 0; j < RIG_JOINT_COUNT; ++j) {
        fprintf(out, "\t\"%s\" %d %d %d\n", rig_joints[j].name, rig_joints[j].parent, flags[j], start);
        for (int k = 0; k < 6; ++k)
            start += (flags[j] >> k) & 1;
    }
    fputs("}\n\nbounds {\n", out);
    for (int f = 0; f < frame_count; ++f) {
        long long low[3], high[3];
        for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
            double rotation[4], position[3];
            clips_pose_object(&poses[f], j, rotation, position);
            for (int k = 0; k < 3; ++k) {
                long long below = md5_text_millionths(position[k] - BOUNDS_MARGIN);
                long long above = md5_text_millionths(position[k] + BOUNDS_MARGIN);
                low[k] = j == 0 || below < low[k] ? below : low[k];
                high[k] = j == 0 || above > high[k] ? above : high[k];
            }
        }
        fputc('\t', out);
        md5_text_print_millionths_triple(out, low);
        fputc(' ', out);
        md5_text_print_millionths_triple(out, high);
        fputc('\n', out);
    }
    fputs("}\n\nbaseframe {\n", out);
    for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
        fputc('\t', out);
        md5_text_print_millionths_triple(out, &(*base)[j][0]);
        fputc(' ', out);
        md5_text_print_millionths_triple(out, &(*base)[j][3]);
        fputc('\n', out);
    }
    fputs("}\n", out);
    for (int f = 0; f < frame_count; ++f) {
        fprintf(out, "\nframe %d {\n", f);
        for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
            if (!flags[j])
                continue;
            fputc('\t', out);
            for (int k = 0; k < 6; ++k)
                if ((flags[j] >> k) & 1) {
                    md5_text_print_millionths(out, values[f][j][k]);
                    fputc(' ', out);
                }
            fputc('\n', out);
        }
        fputs("}\n", out);
    }
}

bool clips_write_plan(FILE *out, const clip_plan *plan)
{
    int frame_count = plan->recipe.frame_count;
    frame_pose *poses = malloc((size_t)frame_count * sizeof *poses);
    joint_values *values = malloc((size_t)frame_count * sizeof *values);
    if (!poses || !values) {
        free(poses);
        free(values);
        return false;
    }
    frame_pose bind;
    clips_pose_bind(&bind);
    joint_values base;
    for (int j = 0; j < RIG_JOINT_COUNT; ++j)
        joint_components(&bind, j, base[j]);
    /* Minimal flags: a component is animated only if some frame writes something else than the base. */
    int flags[RIG_JOINT_COUNT] = {0};
    for (int f = 0; f < frame_count; ++f) {
        plan_frame(plan, f, &poses[f]);
        for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
            joint_components(&poses[f], j, values[f][j]);
            for (int k = 0; k < 6; ++k)
                if (values[f][j][k] != base[j][k])
                    flags[j] |= 1 << k;
        }
    }
    write_text(out, plan, poses, values, &base, flags);
    free(poses);
    free(values);
    return !ferror(out);
}
