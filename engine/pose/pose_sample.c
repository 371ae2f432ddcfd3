/* Sampling: a clip's pose at any time, two stored frames interpolated (pose.h). */
#include "pose_kernels.h"

#include <stdlib.h>

#ifdef POSE_PAIRS
/* sample_joints two joints at a time, each half of every register doing what sample_joints does to one
 * joint, step for step; an odd last joint goes through sample_joints. */
PAIR_TARGET static void sample_joints_pairs(const joint_pose *a, const joint_pose *b, float t, int count,
                                            joint_pose *out)
{
    __m256 t8 = _mm256_set1_ps(t), one_minus_t8 = _mm256_set1_ps(1.0f - t), sign_bit = _mm256_set1_ps(-0.0f);
    int i = 0;
    for (; i + 1 < count; i += 2) {
        __m256 ra = load_pair(a[i].rotation, a[i + 1].rotation), rb = load_pair(b[i].rotation, b[i + 1].rotation);
        __m256 sign = _mm256_and_ps(dot_all_lanes_pairs(ra, rb), sign_bit);
        __m256 rotation = _mm256_add_ps(_mm256_mul_ps(one_minus_t8, ra), _mm256_xor_ps(_mm256_mul_ps(t8, rb), sign));
        rotation = _mm256_div_ps(rotation, _mm256_sqrt_ps(dot_all_lanes_pairs(rotation, rotation)));
        __m256 pa = load_pair(a[i].position, a[i + 1].position), pb = load_pair(b[i].position, b[i + 1].position);
        __m256 position = _mm256_add_ps(pa, _mm256_mul_ps(t8, _mm256_sub_ps(pb, pa)));
        store_pair(rotation, out[i].rotation, out[i + 1].rotation);
        store_pair(position, out[i].position, out[i + 1].position);
    }
    if (i < count)
        sample_joints(a + i, b + i, t, 1, out + i);
}
#endif

#ifdef POSE_PAIRS
/* pose_kernels.h: found once, before main (libgcc's processor features are found first). */
static bool quads_available;

__attribute__((constructor)) static void find_quads(void)
{
    __builtin_cpu_init();
    quads_available = __builtin_cpu_supports("x86-64-v4") && !getenv("MARIONETTE_POSE_NO_QUADS");
}

bool pose_has_quads(void)
{
    return quads_available;
}

/* Four joints a turn in 512-bit registers where the processor has AVX-512 (x86-64-v4), each 128-bit lane
 * worked on as sample_joints_pairs works on each half: the same arithmetic, so the same bits. */
QUAD_TARGET static void sample_joints_quads(const joint_pose *a, const joint_pose *b, float t, int count,
                                            joint_pose *out)
{
    __m512 t16 = _mm512_set1_ps(t), one_minus_t16 = _mm512_set1_ps(1.0f - t), sign_bit = _mm512_set1_ps(-0.0f);
    int i = 0;
    for (; i + 3 < count; i += 4) {
        __m512 ra, pa, rb, pb;
        load_joints_quad(a + i, &ra, &pa);
        load_joints_quad(b + i, &rb, &pb);
        __m512 sign = _mm512_and_ps(dot_all_lanes_quads(ra, rb), sign_bit);
        __m512 rotation = _mm512_add_ps(_mm512_mul_ps(one_minus_t16, ra), _mm512_xor_ps(_mm512_mul_ps(t16, rb), sign));
        rotation = _mm512_div_ps(rotation, _mm512_sqrt_ps(dot_all_lanes_quads(rotation, rotation)));
        __m512 position = _mm512_add_ps(pa, _mm512_mul_ps(t16, _mm512_sub_ps(pb, pa)));
        store_joints_quad(out + i, rotation, position);
    }
    if (i < count)
        sample_joints_pairs(a + i, b + i, t, count - i, out + i);
}
#endif

/* ---- sample ---- */

/* Which two stored frames surround `time`, and how far between them it lies. Both loop conventions and
 * the one-shot clamp reduce to this; the joint loop then never looks at time again. */
typedef struct frame_pair {
    int first;
    int second;
    float alpha; /* 0 at first, 1 at second */
} frame_pair;

static inline frame_pair find_frames(const clip *c, float time, bool loop)
{
    frame_pair pair = {0, 0, 0.0f};
    int last = c->frame_count - 1;
    if (last == 0)
        return pair; /* one frame: a still pose whatever the time */

    float frame = time * c->frame_rate;
    if (loop) {
        /* Doom 3 rule: frame `last` repeats frame 0, so the cycle has `last` steps and wraps onto frame 0
         * when it reaches it. Tutorials' rule: `last + 1` steps, the final one from frame `last` back to 0. */
        int steps = c->last_frame_is_first ? last : last + 1;
        /* fmodf is exact and keeps the sign of time. A time already inside the cycle, as the controller
         * gives it, is its own remainder: skipping the call there saves a tenth of a sample's cost. */
        if (!(frame >= 0.0f && frame < (float)steps))
            frame = fmodf(frame, (float)steps);
        if (frame < 0.0f)
            frame += (float)steps;
        /* -tiny + steps rounds to steps itself; that is the start of the next cycle. */
        if (!(frame < (float)steps))
            frame = 0.0f;
        pair.first = (int)frame;
        pair.alpha = frame - (float)pair.first;
        pair.second = pair.first + 1 > last ? 0 : pair.first + 1;
        return pair;
    }

    if (!(frame > 0.0f))
        return pair; /* before the start: hold frame 0 */
    if (!(frame < (float)last)) {
        pair.first = pair.second = last; /* played once: hold the last frame */
        return pair;
    }
    pair.first = (int)frame;
    pair.second = pair.first + 1;
    pair.alpha = frame - (float)pair.first;
    return pair;
}

POSE_STAGE bool pose_sample_range(const clip *c, float time, bool loop, int first_joint, int joint_count,
                                  joint_pose *out)
{
    if (!c || !out || !c->frames || first_joint < 0 || joint_count <= 0 || first_joint >= c->joint_count ||
        joint_count > c->joint_count - first_joint || c->frame_count <= 0 || !(c->frame_rate > 0.0f) ||
        !isfinite(c->frame_rate) || !isfinite(time))
        return false;
    frame_pair pair = find_frames(c, time, loop);
    const joint_pose *a = c->frames + (ptrdiff_t)pair.first * c->joint_count + first_joint;
    const joint_pose *b = c->frames + (ptrdiff_t)pair.second * c->joint_count + first_joint;
#ifdef POSE_PAIRS
    if (joint_count > 3 && pose_has_quads()) {
        sample_joints_quads(a, b, pair.alpha, joint_count, out);
        return true;
    }
    if (joint_count > 1 && pose_has_pairs()) {
        sample_joints_pairs(a, b, pair.alpha, joint_count, out);
        return true;
    }
#endif
    sample_joints(a, b, pair.alpha, joint_count, out);
    return true;
}

bool pose_sample(const clip *c, float time, bool loop, joint_pose *out)
{
    return c && pose_sample_range(c, time, loop, 0, c->joint_count, out);
}

bool pose_sample_joint(const clip *c, float time, bool loop, int joint, joint_pose *out)
{
    return pose_sample_range(c, time, loop, joint, 1, out);
}

bool pose_sample_bounds(const clip *c, float time, bool loop, float out[2][3])
{
    if (!c || !out || !c->bounds || c->frame_count <= 0 || !(c->frame_rate > 0.0f) || !isfinite(c->frame_rate) ||
        !isfinite(time))
        return false;
    frame_pair pair = find_frames(c, time, loop);
    for (int corner = 0; corner < 2; ++corner)
        for (int k = 0; k < 3; ++k) {
            float a = c->bounds[pair.first][corner][k], b = c->bounds[pair.second][corner][k];
            out[corner][k] = a + pair.alpha * (b - a);
        }
    return true;
}
