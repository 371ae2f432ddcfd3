/* md5_write: .md5anim text from a clip (md5.h, md5_write_clip). The format's layout is docs/md5-format.md's;
 * what matters for readers: one statement a line, names quoted, a joint's components in the order
 * tx ty tz qx qy qz, and w left out (each reader takes it as -sqrt(1 - x^2 - y^2 - z^2)). */
#include "md5.h"

#include <string.h>

/* A name a quoted MD5 string can hold. */
static bool writable_name(const char *name)
{
    return name && !strpbrk(name, "\"\r\n");
}

/* q or -q (one rotation), whichever has w <= 0, as the readers rebuild w. */
static void stored_rotation(const float q[4], float out[3])
{
    float sign = q[3] > 0.0f ? -1.0f : 1.0f;
    for (int k = 0; k < 3; ++k)
        out[k] = sign * q[k];
}

static void write_components(FILE *out, const joint_pose *joint)
{
    float xyz[3];
    stored_rotation(joint->rotation, xyz);
    fprintf(out, "%.9g %.9g %.9g %.9g %.9g %.9g", (double)joint->position[0], (double)joint->position[1],
            (double)joint->position[2], (double)xyz[0], (double)xyz[1], (double)xyz[2]);
}

bool md5_write_clip(FILE *out, const raw_clip *clip, const char *commandline)
{
    if (!out || !clip || clip->joint_count <= 0 || clip->frame_count <= 0 || !clip->frames || !clip->bounds ||
        !clip->names || !clip->parents || (commandline && !writable_name(commandline)))
        return false;
    for (int j = 0; j < clip->joint_count; ++j)
        if (!writable_name(clip->names[j]) || clip->parents[j] < -1 || clip->parents[j] >= j)
            return false;
    int joints = clip->joint_count;
    fprintf(out, "MD5Version 10\ncommandline \"%s\"\n\nnumFrames %d\nnumJoints %d\nframeRate %.9g\n"
                 "numAnimatedComponents %d\n\nhierarchy {\n",
            commandline ? commandline : "", clip->frame_count, joints, (double)clip->frame_rate, 6 * joints);
    for (int j = 0; j < joints; ++j)
        fprintf(out, "\t\"%s\"\t%d 63 %d\n", clip->names[j], clip->parents[j], 6 * j);
    fputs("}\n\nbounds {\n", out);
    for (int f = 0; f < clip->frame_count; ++f) {
        float (*box)[3] = clip->bounds[f];
        fprintf(out, "\t( %.9g %.9g %.9g ) ( %.9g %.9g %.9g )\n", (double)box[0][0], (double)box[0][1],
                (double)box[0][2], (double)box[1][0], (double)box[1][1], (double)box[1][2]);
    }
    fputs("}\n\nbaseframe {\n", out);
    for (int j = 0; j < joints; ++j) {
        const joint_pose *joint = &clip->frames[j];
        float xyz[3];
        stored_rotation(joint->rotation, xyz);
        fprintf(out, "\t( %.9g %.9g %.9g ) ( %.9g %.9g %.9g )\n", (double)joint->position[0],
                (double)joint->position[1], (double)joint->position[2], (double)xyz[0], (double)xyz[1],
                (double)xyz[2]);
    }
    fputs("}\n", out);
    for (int f = 0; f < clip->frame_count; ++f) {
        fprintf(out, "\nframe %d {\n", f);
        for (int j = 0; j < joints; ++j) {
            fputc('\t', out);
            write_components(out, &clip->frames[(size_t)f * (size_t)joints + (size_t)j]);
            fputc('\n', out);
        }
        fputs("}\n", out);
    }
    return !ferror(out);
}
