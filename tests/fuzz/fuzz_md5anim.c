/* fuzz_md5anim: any bytes as an .md5anim. The parser must refuse with a one-line diag or give a clip that
 * keeps clip.h's promises (parents before children, finite unit frames, finite bounds and durations). The
 * clip is then bound to each of a few whole skeletons (clip_fits_skeleton: a quirk file, the mannequin, and
 * boneman when MARIONETTE_REAL_MD5 holds it) and sampled at ordinary and hostile times, looping and not;
 * every pose a stage accepts to make must be finite with unit rotations, on the fitting skeleton's hierarchy
 * through to skin matrices. */
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "pose/pose.h"

static model *fuzz_skeletons[3];
static int fuzz_skeleton_count;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* Boneman is third-party data the repository does not ship: without the setting, two skeletons. */
    const char *const paths[] = {
        MARIONETTE_TEST_DATA "/quirks/base.md5mesh",
        MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh",
        MARIONETTE_REAL_MD5[0] ? MARIONETTE_REAL_MD5 "/boneman/boneman.md5mesh" : NULL,
    };
    for (size_t i = 0; i < sizeof paths / sizeof *paths && paths[i]; ++i) {
        diag err;
        if (loader_load_md5_model(paths[i], &fuzz_skeletons[fuzz_skeleton_count], &err, NULL))
            fuzz_skeleton_count++;
        else
            fprintf(stderr, "fuzz_md5anim: no skeleton from %s: %s\n", paths[i], err.message);
    }
    return 0;
}

static void fuzz_check_clip(const clip *c)
{
    FUZZ_REQUIRE(c->joint_count >= 1 && c->frame_count >= 1);
    FUZZ_REQUIRE(isfinite(c->frame_rate) && c->frame_rate > 0.0f);
    /* 0 only for one frame: a pose held forever (md5_anim.c set_durations). */
    FUZZ_REQUIRE(isfinite(c->loop_duration) && c->loop_duration >= 0.0f);
    FUZZ_REQUIRE(c->loop_duration > 0.0f || c->frame_count == 1);
    FUZZ_REQUIRE(isfinite(c->once_duration) && c->once_duration >= 0.0f);
    for (int i = 0; i < c->joint_count; ++i)
        FUZZ_REQUIRE(c->names[i] != NULL && c->parents[i] >= -1 && c->parents[i] < i);
    for (int f = 0; f < c->frame_count; ++f) {
        FUZZ_REQUIRE(fuzz_finite(&c->bounds[f][0][0], 6));
        for (int j = 0; j < c->joint_count; ++j)
            FUZZ_REQUIRE(fuzz_joint_pose_ok(&c->frames[(size_t)f * (size_t)c->joint_count + (size_t)j]));
    }
}

/* Sample at `time`; a sample the stage accepts must be a good pose, and its per-joint and bounds variants
 * must agree with it. Then object space and skin matrices on `parents` (the clip's or a fitting skeleton's). */
static void fuzz_sample(const clip *c, float time, bool loop, const int *parents, const mat4 *inverse_bind,
                        joint_pose *local, joint_pose *object, mat4 *palette)
{
    if (!pose_sample(c, time, loop, local))
        return;
    for (int j = 0; j < c->joint_count; ++j)
        FUZZ_REQUIRE(fuzz_joint_pose_ok(&local[j]));
    joint_pose last;
    FUZZ_REQUIRE(pose_sample_joint(c, time, loop, c->joint_count - 1, &last));
    FUZZ_REQUIRE(memcmp(&last, &local[c->joint_count - 1], sizeof last) == 0);
    float bounds[2][3];
    if (pose_sample_bounds(c, time, loop, bounds))
        FUZZ_REQUIRE(fuzz_finite(&bounds[0][0], 6));
    if (!pose_to_object(parents, c->joint_count, local, object))
        return;
    for (int j = 0; j < c->joint_count; ++j)
        FUZZ_REQUIRE(fuzz_finite(object[j].position, 3) && fuzz_finite(object[j].rotation, 4));
    if (inverse_bind && pose_palette(object, inverse_bind, c->joint_count, palette))
        FUZZ_REQUIRE(fuzz_finite(&palette[0][0][0], 16 * c->joint_count));
}

static void fuzz_sample_everywhere(const clip *c, unsigned hash, const int *parents, const mat4 *inverse_bind)
{
    size_t count = (size_t)c->joint_count;
    joint_pose *local = aligned_alloc(16, count * sizeof *local);
    joint_pose *object = aligned_alloc(16, count * sizeof *object);
    mat4 *palette = aligned_alloc(16, count * sizeof *palette);
    FUZZ_REQUIRE(local && object && palette);
    /* A time of this input's own between two cycles before and three after, besides the edges. */
    float own = ((float)(hash % 10007u) / 2001.4f - 2.0f) * c->loop_duration;
    const float times[] = {0.0f, own, 0.5f * c->once_duration, c->once_duration, c->loop_duration,
                           -c->loop_duration, -1e-7f, 1e9f, -FLT_MAX, FLT_MAX, INFINITY, -INFINITY, NAN};
    for (size_t t = 0; t < sizeof times / sizeof *times; ++t)
        for (int loop = 0; loop < 2; ++loop)
            fuzz_sample(c, times[t], loop, parents, inverse_bind, local, object, palette);
    free(local);
    free(object);
    free(palette);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clip *c = NULL;
    diag err = {0};
    diag_list warnings = {0};
    fuzz_heap_start();
    bool ok = loader_parse_md5_clip((const char *)data, size, "fuzz.md5anim", &c, &err, &warnings);
    /* md5.h's memory promise: the parse's peak heap is bounded by the input's size, whatever it claims. */
    FUZZ_REQUIRE(fuzz_heap_peak() <= MD5_HEAP_BYTES_PER_BYTE * size + MD5_HEAP_BYTES_SLACK);
    FUZZ_REQUIRE(ok == (c != NULL));
    FUZZ_REQUIRE(fuzz_diag_list_ok(&warnings));
    if (!ok) {
        FUZZ_REQUIRE(fuzz_diag_ok(&err));
    } else {
        fuzz_check_clip(c);
        unsigned hash = fuzz_hash(data, size);
        fuzz_sample_everywhere(c, hash, c->parents, NULL);
        for (int i = 0; i < fuzz_skeleton_count; ++i) {
            const skeleton *s = &fuzz_skeletons[i]->skeleton;
            diag fit = {0};
            if (clip_fits_skeleton(c, s, "fuzz.md5anim", &fit)) {
                FUZZ_REQUIRE(c->joint_count == s->joint_count);
                fuzz_sample_everywhere(c, hash, s->parents, (const mat4 *)s->inverse_bind);
            } else {
                FUZZ_REQUIRE(fuzz_diag_ok(&fit));
            }
        }
    }
    clip_free(c);
    diag_list_free(&warnings);
    return 0;
}
