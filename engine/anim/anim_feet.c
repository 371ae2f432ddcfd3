#include "anim_feet.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../pose/pose.h"

/* ---- which joints are feet ---- */

static bool contains_word(const char *name, const char *word)
{
    size_t length = strlen(word);
    for (const char *at = name; *at; ++at) {
        size_t k = 0;
        while (k < length && at[k] && tolower((unsigned char)at[k]) == word[k])
            ++k;
        if (k == length)
            return true;
    }
    return false;
}

static bool names_a_foot(const char *name)
{
    return contains_word(name, "foot") || contains_word(name, "ankle");
}

static bool leg_of(const skeleton *s, int foot, pose_ik_chain *out)
{
    if (foot < 0 || s->parents[foot] < 0 || s->parents[s->parents[foot]] < 0)
        return false;
    *out = (pose_ik_chain){.hip = s->parents[s->parents[foot]], .knee = s->parents[foot], .ankle = foot};
    return true;
}

bool anim_feet_leg_fits(const skeleton *s, const pose_ik_chain *chain)
{
    if (!s || !chain || chain->hip < 0 || chain->knee < 0 || chain->ankle < 0 || chain->hip >= s->joint_count ||
        chain->knee >= s->joint_count || chain->ankle >= s->joint_count || s->parents[chain->knee] != chain->hip)
        return false;
    if (s->parents[chain->ankle] == chain->knee)
        return true;
    if (!pose_ik_ankle_detached(s->parents, s->joint_count, chain))
        return false;
    const joint_pose *bind = s->bind_object;
    float dot = 0.0f;
    for (int k = 0; k < 3; ++k)
        dot += (bind[chain->hip].position[k] - bind[chain->knee].position[k]) *
               (bind[chain->ankle].position[k] - bind[chain->knee].position[k]);
    return dot < 0.0f;
}

int anim_feet_find_legs(const skeleton *s, pose_ik_chain legs[ANIM_FEET_MAX])
{
    if (!s || !legs)
        return 0;
    if (leg_of(s, skeleton_find_joint(s, "foot.L"), &legs[0]) && leg_of(s, skeleton_find_joint(s, "foot.R"), &legs[1]))
        return 2;
    int count = 0;
    for (int j = 0; j < s->joint_count && count < ANIM_FEET_MAX; ++j) {
        if (!names_a_foot(s->names[j]))
            continue;
        bool below_a_foot = false;
        for (int a = s->parents[j]; a >= 0 && !below_a_foot; a = s->parents[a])
            below_a_foot = names_a_foot(s->names[a]);
        if (!below_a_foot && leg_of(s, j, &legs[count]))
            ++count;
    }
    return count;
}

/* ---- when a clip plants them ---- */

/* A file-space position in canonical metres, the character's import applied. */
static void to_canonical(const anim_clip *entry, const float in[3], double out[3])
{
    float turned[3];
    anim_axes_to_canonical(&entry->import_axes, in, turned);
    double scale = entry->import_scale > 0.0f ? entry->import_scale : 1.0;
    for (int k = 0; k < 3; ++k)
        out[k] = turned[k] * scale;
}

/* Degrees a joint is tilted from its bind orientation: how far the file's up axis, carried by the
 * rotation from bind to now, leaves up. */
static double tilt_degrees(const anim_clip *entry, const float bind_rotation[4], const float rotation[4])
{
    versor bind_inverse, relative;
    glm_quat_inv((float *)bind_rotation, bind_inverse);
    glm_quat_mul((float *)rotation, bind_inverse, relative);
    float up_canonical[3] = {0.0f, 0.0f, 1.0f};
    vec3 up, turned;
    anim_axes_from_canonical(&entry->import_axes, up_canonical, up);
    glm_quat_rotatev(relative, up, turned);
    return acos(fmin(1.0, fmax(-1.0, (double)glm_vec3_dot(up, turned)))) * 180.0 / GLM_PI;
}

/* A foot's horizontal velocity at a frame from its positions (track: one per frame) on the frames either
 * side: across the seam of a cycle, up to the ends of a one-shot. */
static void foot_velocity(double (*track)[3], int frames, int cycle, bool cyclic, float frame_rate, int frame,
                          double out[2])
{
    int before = cyclic ? (frame - 1 + cycle) % cycle : frame > 0 ? frame - 1 : frame;
    int after = cyclic ? (frame + 1) % cycle : frame + 1 < frames ? frame + 1 : frame;
    double span = (cyclic ? 2 : after - before) / (double)frame_rate;
    for (int k = 0; k < 2; ++k)
        out[k] = span > 0.0 ? (track[after][k] - track[before][k]) / span : 0.0;
}

bool anim_feet_find_contacts(const anim_clip *entry, const skeleton *s, const int *feet, int foot_count,
                             unsigned char *planted)
{
    if (!entry || !entry->clip || !s || !planted || (foot_count > 0 && !feet) || foot_count < 0 ||
        entry->clip->joint_count != s->joint_count)
        return false;
    for (int i = 0; i < foot_count; ++i)
        if (feet[i] < 0 || feet[i] >= s->joint_count)
            return false;
    const clip *c = entry->clip;
    int frames = c->frame_count, joints = s->joint_count;
    /* Only the feet and their ancestors are taken to object space: a sub-skeleton of those joints in
     * skeleton order (parents still before children), so pose_to_object gives the feet the very same
     * values as on the whole skeleton, at a fraction of the work (a config load does every clip). The
     * ints: the chain's joints, each joint's place in the chain (-1: not in it), the chain's parents as
     * places, each foot's place. */
    int *chain = malloc(sizeof *chain * ((size_t)joints * 3 + (size_t)foot_count + 1));
    joint_pose *pose = malloc(sizeof *pose * (size_t)joints);
    double (*at)[3] = malloc(sizeof *at * (size_t)frames * (size_t)(foot_count ? foot_count : 1));
    unsigned char *low = malloc((size_t)frames * (size_t)(foot_count ? foot_count : 1));
    bool ok = chain && pose && at && low;
    int chain_length = 0;
    int *place = ok ? chain + joints : NULL, *chain_parents = ok ? chain + 2 * joints : NULL,
        *foot_place = ok ? chain + 3 * joints : NULL;
    if (ok) {
        for (int j = 0; j < joints; ++j)
            place[j] = -1;
        for (int f = 0; f < foot_count; ++f)
            for (int j = feet[f]; j >= 0 && place[j] < 0; j = s->parents[j])
                place[j] = 0;
        for (int j = 0; j < joints; ++j)
            if (place[j] == 0)
                chain[chain_length] = j, place[j] = chain_length++;
        for (int k = 0; k < chain_length; ++k)
            chain_parents[k] = s->parents[chain[k]] < 0 ? -1 : place[s->parents[chain[k]]];
        for (int f = 0; f < foot_count; ++f)
            foot_place[f] = place[feet[f]];
    }
    for (int frame = 0; frame < frames && ok; ++frame) {
        const joint_pose *local = c->frames + (size_t)frame * (size_t)joints;
        for (int k = 0; k < chain_length; ++k)
            pose[k] = local[chain[k]];
        pose_to_object(chain_parents, chain_length, pose, pose);
        for (int f = 0; f < foot_count; ++f) {
            const joint_pose *foot = &pose[foot_place[f]];
            to_canonical(entry, foot->position, at[f * frames + frame]);
            low[f * frames + frame] =
                tilt_degrees(entry, s->bind_object[feet[f]].rotation, foot->rotation) <= ANIM_FEET_PLANT_TILT;
        }
    }
    /* Low: near the lowest the foot gets in the clip. The floor, not the bind pose: a run may never bring
     * the ankle down to its standing height (boneman's stays 9 mm above it). */
    for (int f = 0; f < foot_count && ok; ++f) {
        double lowest = INFINITY;
        for (int frame = 0; frame < frames; ++frame)
            lowest = fmin(lowest, at[f * frames + frame][2]);
        for (int frame = 0; frame < frames; ++frame)
            low[f * frames + frame] = low[f * frames + frame] && at[f * frames + frame][2] <= lowest + ANIM_FEET_PLANT_HEIGHT;
    }
    /* Frames in a cycle: a last frame that repeats the first is not one of them. */
    bool cyclic = entry->loop && frames > 1;
    int cycle = c->last_frame_is_first && frames > 1 ? frames - 1 : frames;
    cyclic = cyclic && cycle > 1;
    /* The floor under the clip: still, or at the clip's ground speed against the mean motion of the feet
     * on it (an in-place walk's planted feet travel backwards at its speed). The direction is taken first
     * from every low frame, then again from the frames found planted with it: the low frames include a
     * foot landing and lifting, whose motion would turn the floor a degree or two, and at a run's speed a
     * degree is 0.06 m/s, more than ANIM_FEET_PLANT_SPEED. */
    double floor_velocity[2] = {0.0, 0.0};
    double speed = anim_clip_ground_speed_metres(entry);
    bool moving_floor = speed > 0.0 && entry->root_mode == ANIM_ROOT_IN_PLACE;
    for (int pass = 0; pass < 3 && ok; ++pass) {
        double mean[2] = {0.0, 0.0};
        for (int f = 0; f < foot_count && moving_floor; ++f)
            for (int frame = 0; frame < frames; ++frame) {
                if (!low[f * frames + frame] || (pass > 0 && !planted[f * frames + frame]))
                    continue;
                double velocity[2];
                foot_velocity(at + (size_t)f * (size_t)frames, frames, cycle, cyclic, c->frame_rate, frame, velocity);
                mean[0] += velocity[0];
                mean[1] += velocity[1];
            }
        double length = hypot(mean[0], mean[1]);
        if (length > 0.0) {
            floor_velocity[0] = speed * mean[0] / length;
            floor_velocity[1] = speed * mean[1] / length;
        }
        for (int f = 0; f < foot_count; ++f)
            for (int frame = 0; frame < frames; ++frame) {
                double velocity[2];
                foot_velocity(at + (size_t)f * (size_t)frames, frames, cycle, cyclic, c->frame_rate, frame, velocity);
                planted[f * frames + frame] =
                    low[f * frames + frame] &&
                    hypot(velocity[0] - floor_velocity[0], velocity[1] - floor_velocity[1]) <= ANIM_FEET_PLANT_SPEED;
            }
    }
    free(chain);
    free(pose);
    free(at);
    free(low);
    return ok;
}

unsigned char anim_feet_planted_always(const unsigned char *planted, int frame_count, int foot_count)
{
    unsigned char bits = 0;
    if (!planted || frame_count <= 0)
        return 0;
    for (int f = 0; f < foot_count && f < ANIM_FEET_MAX; ++f)
        if (!memchr(planted + (size_t)f * (size_t)frame_count, 0, (size_t)frame_count))
            bits |= (unsigned char)(1u << f);
    return bits;
}

/* The frames on either side of `time` seconds into the clip, clamped to its frames. */
static void frames_around(const clip *c, double time, int *below, int *above)
{
    double frame = time * c->frame_rate;
    int low = (int)floor(frame), high = (int)ceil(frame);
    *below = low < 0 ? 0 : low >= c->frame_count ? c->frame_count - 1 : low;
    *above = high < 0 ? 0 : high >= c->frame_count ? c->frame_count - 1 : high;
}

bool anim_feet_planted_at(const anim_clip *entry, const unsigned char *planted, int foot, double time)
{
    if (!entry || !entry->clip || !planted || foot < 0 || !isfinite(time))
        return false;
    const clip *c = entry->clip;
    int below, above;
    frames_around(c, time, &below, &above);
    const unsigned char *flags = planted + (size_t)foot * (size_t)c->frame_count;
    return flags[below] && flags[above];
}

unsigned anim_feet_planted_mask_at(const anim_clip *entry, const unsigned char *planted, int foot_count, double time)
{
    if (!entry || !entry->clip || !planted || !isfinite(time))
        return 0;
    const clip *c = entry->clip;
    int below, above;
    frames_around(c, time, &below, &above);
    unsigned mask = 0;
    for (int f = 0; f < foot_count && f < ANIM_FEET_MAX; ++f) {
        const unsigned char *flags = planted + (size_t)f * (size_t)c->frame_count;
        if (flags[below] && flags[above])
            mask |= 1u << f;
    }
    return mask;
}
