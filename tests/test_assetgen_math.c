/* The generator's small shared pieces: the number printer (6 decimals, never -0.000000), the
 * double-precision rotations, smoothstep, and the rig's left/right mirror. */
#include <stdlib.h>

#include "assetgen/md5_text.h"
#include "assetgen/rig.h"
#include "assetgen/shape_math.h"
#include "check.h"

/* What md5_text_print_number writes for value. */
static const char *printed(double value, char *out, size_t size)
{
    FILE *f = fmemopen(out, size, "w");
    if (!f)
        return "";
    md5_text_print_number(f, value);
    fclose(f);
    return out;
}

static void test_number_printer(void)
{
    char text[64];
    CHECK(strcmp(printed(0.5, text, sizeof text), "0.500000") == 0);
    CHECK(strcmp(printed(-1.25, text, sizeof text), "-1.250000") == 0);
    CHECK(strcmp(printed(-0.0, text, sizeof text), "0.000000") == 0);
    CHECK(strcmp(printed(-0.0000004, text, sizeof text), "0.000000") == 0);
    CHECK(strcmp(printed(-0.0000006, text, sizeof text), "-0.000001") == 0);
    CHECK(md5_text_millionths(-1.25) == -1250000);
    CHECK(md5_text_millionths(0.0000005) == 1);
    CHECK(md5_text_millionths(-0.0000005) == -1);

    char buffer[64] = "";
    FILE *f = fmemopen(buffer, sizeof buffer, "w");
    CHECK(f != NULL);
    if (f) {
        md5_text_print_millionths(f, -1250000);
        fputc(' ', f);
        md5_text_print_millionths(f, -4);
        fclose(f);
    }
    CHECK(strcmp(buffer, "-1.250000 -0.000004") == 0);
}

static void test_rotations(void)
{
    const double z_axis[3] = {0.0, 0.0, 1.0}, x_axis[3] = {1.0, 0.0, 0.0};
    double quarter[4], rotated[3];
    shape_rotation_about(z_axis, SHAPE_PI / 2.0, quarter);
    shape_rotation_apply(quarter, x_axis, rotated);
    CHECK_NEAR(rotated[0], 0.0, 1e-12);
    CHECK_NEAR(rotated[1], 1.0, 1e-12);
    CHECK_NEAR(rotated[2], 0.0, 1e-12);

    double half[4], inverse[4], both[4], back[3];
    shape_rotation_multiply(quarter, quarter, half); /* two quarter turns: x -> -x */
    shape_rotation_apply(half, x_axis, rotated);
    CHECK_NEAR(rotated[0], -1.0, 1e-12);
    shape_rotation_inverse(quarter, inverse);
    shape_rotation_multiply(inverse, quarter, both);
    shape_rotation_apply(both, x_axis, back);
    CHECK_NEAR(back[0], 1.0, 1e-12);
    CHECK_NEAR(back[1], 0.0, 1e-12);

    double cross[3];
    shape_cross(x_axis, (const double[3]){0.0, 1.0, 0.0}, cross);
    CHECK(cross[0] == 0.0 && cross[1] == 0.0 && cross[2] == 1.0);
    double unit[3];
    shape_normalize((const double[3]){3.0, 0.0, 4.0}, z_axis, unit);
    CHECK_NEAR(unit[0], 0.6, 1e-15);
    CHECK_NEAR(unit[2], 0.8, 1e-15);
    shape_normalize((const double[3]){0.0, 0.0, 0.0}, z_axis, unit);
    CHECK(unit[0] == 0.0 && unit[1] == 0.0 && unit[2] == 1.0);
}

static void test_smoothstep(void)
{
    CHECK(shape_smoothstep(1.0, 2.0, 0.5) == 0.0);
    CHECK(shape_smoothstep(1.0, 2.0, 2.5) == 1.0);
    CHECK_NEAR(shape_smoothstep(1.0, 2.0, 1.5), 0.5, 1e-15);
    CHECK_NEAR(shape_smoothstep(0.0, 1.0, 0.25), 0.15625, 1e-15);
    CHECK(shape_clamp01(-3.0) == 0.0 && shape_clamp01(7.0) == 1.0);
}

static void test_rig_mirror(void)
{
    for (int joint = 0; joint < RIG_JOINT_COUNT; ++joint) {
        int mirror = rig_mirror(joint);
        CHECK(mirror >= 0 && mirror < RIG_JOINT_COUNT);
        CHECK(rig_mirror(mirror) == joint);
        const double *a = rig_joints[joint].position, *b = rig_joints[mirror].position;
        CHECK(a[0] == b[0] && a[1] == -b[1] && a[2] == b[2]);
        const char *name = rig_joints[joint].name;
        size_t length = strlen(name);
        if (length > 2 && name[length - 2] == '.') {
            CHECK(mirror != joint);
            CHECK(strncmp(name, rig_joints[mirror].name, length - 1) == 0);
        } else {
            CHECK(mirror == joint);
        }
    }
    CHECK(rig_find("upperarm.R") == RIG_UPPERARM_R);
    CHECK(rig_find("tail") == -1);
}

int main(void)
{
    RUN(test_number_printer);
    RUN(test_rotations);
    RUN(test_smoothstep);
    RUN(test_rig_mirror);
    return check_report();
}
