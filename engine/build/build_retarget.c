/* A clip made for one skeleton, baked for another through the two skeletons' joint maps (retarget.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "../pose/pose.h"
#include "build_internal.h"
#include "retarget.h"

/* The role each role hangs from, and the one its bone points to (for laying the rest bones along each
 * other); -1 for none. */
static const int role_parent[RETARGET_ROLE_COUNT] = {
    [RETARGET_ROOT] = -1,
    [RETARGET_HIPS] = RETARGET_ROOT,
    [RETARGET_SPINE] = RETARGET_HIPS,
    [RETARGET_SPINE2] = RETARGET_SPINE,
    [RETARGET_CHEST] = RETARGET_SPINE2,
    [RETARGET_NECK] = RETARGET_CHEST,
    [RETARGET_HEAD] = RETARGET_NECK,
    [RETARGET_UPPER_LEG_L] = RETARGET_HIPS,
    [RETARGET_LOWER_LEG_L] = RETARGET_UPPER_LEG_L,
    [RETARGET_FOOT_L] = RETARGET_LOWER_LEG_L,
    [RETARGET_TOE_L] = RETARGET_FOOT_L,
    [RETARGET_UPPER_LEG_R] = RETARGET_HIPS,
    [RETARGET_LOWER_LEG_R] = RETARGET_UPPER_LEG_R,
    [RETARGET_FOOT_R] = RETARGET_LOWER_LEG_R,
    [RETARGET_TOE_R] = RETARGET_FOOT_R,
    [RETARGET_SHOULDER_L] = RETARGET_CHEST,
    [RETARGET_UPPER_ARM_L] = RETARGET_SHOULDER_L,
    [RETARGET_LOWER_ARM_L] = RETARGET_UPPER_ARM_L,
    [RETARGET_HAND_L] = RETARGET_LOWER_ARM_L,
    [RETARGET_SHOULDER_R] = RETARGET_CHEST,
    [RETARGET_UPPER_ARM_R] = RETARGET_SHOULDER_R,
    [RETARGET_LOWER_ARM_R] = RETARGET_UPPER_ARM_R,
    [RETARGET_HAND_R] = RETARGET_LOWER_ARM_R,
};
static const int role_child[RETARGET_ROLE_COUNT] = {
    [RETARGET_ROOT] = -1,
    [RETARGET_HIPS] = RETARGET_SPINE,
    [RETARGET_SPINE] = RETARGET_SPINE2,
    [RETARGET_SPINE2] = RETARGET_CHEST,
    [RETARGET_CHEST] = RETARGET_NECK,
    [RETARGET_NECK] = RETARGET_HEAD,
    [RETARGET_HEAD] = -1,
    [RETARGET_UPPER_LEG_L] = RETARGET_LOWER_LEG_L,
    [RETARGET_LOWER_LEG_L] = RETARGET_FOOT_L,
    [RETARGET_FOOT_L] = RETARGET_TOE_L,
    [RETARGET_TOE_L] = -1,
    [RETARGET_UPPER_LEG_R] = RETARGET_LOWER_LEG_R,
    [RETARGET_LOWER_LEG_R] = RETARGET_FOOT_R,
    [RETARGET_FOOT_R] = RETARGET_TOE_R,
    [RETARGET_TOE_R] = -1,
    [RETARGET_SHOULDER_L] = RETARGET_UPPER_ARM_L,
    [RETARGET_UPPER_ARM_L] = RETARGET_LOWER_ARM_L,
    [RETARGET_LOWER_ARM_L] = RETARGET_HAND_L,
    [RETARGET_HAND_L] = -1,
    [RETARGET_SHOULDER_R] = RETARGET_UPPER_ARM_R,
    [RETARGET_UPPER_ARM_R] = RETARGET_LOWER_ARM_R,
    [RETARGET_LOWER_ARM_R] = RETARGET_HAND_R,
    [RETARGET_HAND_R] = -1,
};

static bool active(const retarget_spec *spec, int role)
{
    return spec->source_map.joints[role] >= 0 && spec->target_map.joints[role] >= 0;
}

/* The nearest role above (or below, along the bone) that both maps have; -1 for none. */
static int active_parent(const retarget_spec *spec, int role)
{
    int r = role_parent[role];
    while (r >= 0 && !active(spec, r))
        r = role_parent[r];
    return r;
}
static int active_child(const retarget_spec *spec, int role)
{
    int r = role_child[role];
    while (r >= 0 && !active(spec, r))
        r = role_child[r];
    return r;
}

static float leg_length(const skeleton *s, const retarget_map *map, int upper)
{
    int a = map->joints[upper], b = map->joints[upper + 1], c = map->joints[upper + 2];
    if (a < 0 || b < 0 || c < 0 || a >= s->joint_count || b >= s->joint_count || c >= s->joint_count)
        return 0.0f;
    return glm_vec3_distance(s->bind_object[a].position, s->bind_object[b].position) +
           glm_vec3_distance(s->bind_object[b].position, s->bind_object[c].position);
}

float retarget_travel_scale(const skeleton *source, const skeleton *target, const retarget_spec *spec)
{
    float from = leg_length(source, &spec->source_map, RETARGET_UPPER_LEG_L) +
                 leg_length(source, &spec->source_map, RETARGET_UPPER_LEG_R);
    float to = leg_length(target, &spec->target_map, RETARGET_UPPER_LEG_L) +
               leg_length(target, &spec->target_map, RETARGET_UPPER_LEG_R);
    if (!(from > 0.0f) || !(to > 0.0f) || !isfinite(to / from))
        return 0.0f;
    return to / from;
}

/* The turn taking unit vector a onto unit vector b by the shortest arc (about any axis perpendicular to a
 * when they are opposite). */
static void turn_between(const vec3 a, const vec3 b, versor out)
{
    float d = glm_vec3_dot((float *)a, (float *)b);
    vec3 axis;
    if (d < -0.999999f) {
        vec3 x = {1.0f, 0.0f, 0.0f}, y = {0.0f, 1.0f, 0.0f};
        glm_vec3_cross((float *)a, fabsf(a[0]) < 0.9f ? x : y, axis);
        glm_vec3_normalize(axis);
        glm_quat_init(out, axis[0], axis[1], axis[2], 0.0f);
        return;
    }
    glm_vec3_cross((float *)a, (float *)b, axis);
    glm_quat_init(out, axis[0], axis[1], axis[2], 1.0f + d);
    glm_quat_normalize(out);
}

/* The change of axes from the source file to the target file: canonical forward, left, up of one onto the
 * other's. */
static void axes_turn(const retarget_spec *spec, versor out, mat3 change)
{
    vec3 s[3], t[3];
    glm_vec3_copy((float *)spec->source_forward, s[0]);
    glm_vec3_copy((float *)spec->source_up, s[2]);
    glm_vec3_cross(s[2], s[0], s[1]);
    glm_vec3_copy((float *)spec->target_forward, t[0]);
    glm_vec3_copy((float *)spec->target_up, t[2]);
    glm_vec3_cross(t[2], t[0], t[1]);
    for (int column = 0; column < 3; ++column)
        for (int row = 0; row < 3; ++row)
            change[column][row] = t[0][row] * s[0][column] + t[1][row] * s[1][column] + t[2][row] * s[2][column];
    glm_mat3_quat(change, out);
    glm_quat_normalize(out);
}

static bool map_fits(const retarget_map *map, const skeleton *s, const char *which, diag *err)
{
    for (int r = 0; r < RETARGET_ROLE_COUNT; ++r) {
        if (map->joints[r] >= s->joint_count)
            return diag_set(err, "retarget", 0, "the %s map's %s is joint %d, past the last joint %d", which,
                            retarget_role_name((retarget_role)r), map->joints[r], s->joint_count - 1);
        if (map->joints[r] < 0 && retarget_role_required((retarget_role)r))
            return diag_set(err, "retarget", 0, "the %s map has no %s", which, retarget_role_name((retarget_role)r));
    }
    return true;
}

/* What the bake works out once. Each target joint that plays something (a role, or a joint paired below one:
 * fingers, a jaw) has its source joint, the fixed turn laying its rest bone along the source's, and the
 * joint its place hangs from (its anchor: the role above it, or its parent; -1 for the joints that carry the
 * travel, the root and hips). order lists them, anchors first. */
typedef struct bake_setup {
    versor change, change_inverse;
    mat3 change_matrix;
    float travel;
    int *source;      /* per target joint: its source joint, or -1 */
    int *anchor;      /* per target joint */
    versor *align;    /* per target joint */
    versor *source_bind_inverse; /* per target joint: its source joint's bind rotation, inverted */
    int *order;
    int count;
} bake_setup;

bool build_children(const skeleton *s, int **first, int **next)
{
    size_t n = (size_t)s->joint_count;
    *first = malloc(n * sizeof **first);
    *next = malloc(n * sizeof **next);
    if (!*first || !*next)
        return false;
    for (size_t j = 0; j < n; ++j)
        (*first)[j] = (*next)[j] = -1;
    for (int j = s->joint_count - 1; j >= 0; --j)
        if (s->parents[j] >= 0) {
            (*next)[j] = (*first)[s->parents[j]];
            (*first)[s->parents[j]] = j;
        }
    return true;
}

/* Pair the joints below a played pair that no role took: children of the target joint with children of the
 * source joint, the two whose rest bones (from the parent, in target axes) point most alike first, while they
 * point within 60 degrees of each other. Joints in target order, so a pair's parent is paired before it. */
static bool pair_the_rest(const skeleton *from, const skeleton *to, bake_setup *b, unsigned char *taken)
{
    int *to_first = NULL, *to_next = NULL, *from_first = NULL, *from_next = NULL;
    bool ok = build_children(to, &to_first, &to_next) && build_children(from, &from_first, &from_next);
    for (int t = 0; ok && t < to->joint_count; ++t) {
        int a = b->source[t], children = 0;
        for (int tc = a >= 0 ? to_first[t] : -1; tc >= 0 && children <= 64; tc = to_next[tc])
            ++children;
        if (a < 0 || children > 64) /* pairing is cubic in the children: a real joint has a handful */
            continue;
        for (;;) {
            float best = 0.5f;
            int best_t = -1, best_s = -1;
            for (int tc = to_first[t]; tc >= 0; tc = to_next[tc]) {
                if (b->source[tc] >= 0)
                    continue;
                vec3 target_bone;
                glm_vec3_sub((float *)to->bind_object[tc].position, (float *)to->bind_object[t].position, target_bone);
                for (int sc = from_first[a]; sc >= 0; sc = from_next[sc]) {
                    if (taken[sc])
                        continue;
                    vec3 source_bone;
                    glm_vec3_sub((float *)from->bind_object[sc].position, (float *)from->bind_object[a].position,
                                 source_bone);
                    glm_mat3_mulv(b->change_matrix, source_bone, source_bone);
                    float lengths = glm_vec3_norm(source_bone) * glm_vec3_norm(target_bone);
                    float cosine = lengths > 0.0f ? glm_vec3_dot(source_bone, target_bone) / lengths : 1.0f;
                    if (cosine > best) {
                        best = cosine;
                        best_t = tc;
                        best_s = sc;
                    }
                }
            }
            if (best_t < 0)
                break;
            b->source[best_t] = best_s;
            b->anchor[best_t] = t;
            glm_quat_copy(b->align[t], b->align[best_t]);
            taken[best_s] = 1;
        }
    }
    free(to_first);
    free(to_next);
    free(from_first);
    free(from_next);
    return ok;
}

static bool setup_bake(const skeleton *from, const skeleton *to, const retarget_spec *spec, bake_setup *b)
{
    size_t n = (size_t)to->joint_count;
    b->source = malloc(n * sizeof *b->source);
    b->anchor = malloc(n * sizeof *b->anchor);
    b->align = malloc(n * sizeof *b->align);
    b->source_bind_inverse = malloc(n * sizeof *b->source_bind_inverse);
    b->order = malloc(n * sizeof *b->order);
    unsigned char *taken = calloc((size_t)from->joint_count, 1);
    unsigned char *listed = calloc(n, 1);
    if (!b->source || !b->anchor || !b->align || !b->source_bind_inverse || !b->order || !taken || !listed) {
        free(taken);
        free(listed);
        return false;
    }
    axes_turn(spec, b->change, b->change_matrix);
    glm_quat_inv(b->change, b->change_inverse);
    b->travel = retarget_travel_scale(from, to, spec);
    for (size_t t = 0; t < n; ++t) {
        b->source[t] = b->anchor[t] = -1;
        glm_quat_identity(b->align[t]);
    }
    b->count = 0;
    for (int r = 0; r < RETARGET_ROLE_COUNT; ++r) {
        if (!active(spec, r))
            continue;
        int a = spec->source_map.joints[r], t = spec->target_map.joints[r];
        int parent = active_parent(spec, r);
        b->source[t] = a;
        taken[a] = 1;
        b->anchor[t] = parent < 0 || r == RETARGET_HIPS ? -1 : spec->target_map.joints[parent];
        b->order[b->count++] = t;
        listed[t] = 1;
        /* A foot flat in its rest pose stays flat: feet and toes are not laid along the source's (a foot's
         * bone to its toe slopes as its rig has it; turning it would tilt the sole off the ground). */
        bool level = r == RETARGET_FOOT_L || r == RETARGET_FOOT_R || r == RETARGET_TOE_L || r == RETARGET_TOE_R;
        int child = r == RETARGET_ROOT || level ? -1 : active_child(spec, r);
        if (child < 0) {
            if (parent >= 0 && r != RETARGET_HIPS && !level)
                glm_quat_copy(b->align[spec->target_map.joints[parent]], b->align[t]);
            continue;
        }
        vec3 source_bone, target_bone;
        glm_vec3_sub((float *)from->bind_object[spec->source_map.joints[child]].position,
                     (float *)from->bind_object[a].position, source_bone);
        glm_mat3_mulv(b->change_matrix, source_bone, source_bone);
        glm_vec3_sub((float *)to->bind_object[spec->target_map.joints[child]].position,
                     (float *)to->bind_object[t].position, target_bone);
        if (glm_vec3_norm(source_bone) > 0.0f && glm_vec3_norm(target_bone) > 0.0f) {
            glm_vec3_normalize(source_bone);
            glm_vec3_normalize(target_bone);
            turn_between(target_bone, source_bone, b->align[t]);
        }
    }
    bool paired = pair_the_rest(from, to, b, taken);
    for (size_t t = 0; paired && t < n; ++t) {
        if (b->source[t] >= 0)
            glm_quat_inv((float *)from->bind_object[b->source[t]].rotation, b->source_bind_inverse[t]);
        if (b->source[t] >= 0 && !listed[t])
            b->order[b->count++] = (int)t;
    }
    free(taken);
    free(listed);
    return paired;
}

static void free_bake(bake_setup *b)
{
    free(b->source);
    free(b->anchor);
    free(b->align);
    free(b->source_bind_inverse);
    free(b->order);
}

/* One frame: source's object pose (source_object) into target's local pose (out), through the object
 * transforms the played joints should have (world, delta: each one's turn from its bind pose) and the bind
 * pose relative to the parent (rest_local) for the rest. */
static void bake_frame(const skeleton *from, const skeleton *to, const bake_setup *b, const joint_pose *rest_local,
                       const joint_pose *source_object, joint_pose *world, versor *delta, joint_pose *out)
{
    for (int i = 0; i < b->count; ++i) {
        int t = b->order[i], a = b->source[t];
        versor turned, q;
        glm_quat_mul((float *)source_object[a].rotation, (float *)b->source_bind_inverse[t], turned);
        glm_quat_mul((float *)b->change, turned, q);
        glm_quat_mul(q, (float *)b->change_inverse, q);
        glm_quat_mul(q, (float *)b->align[t], delta[t]);
        joint_pose *w = &world[t];
        glm_quat_mul(delta[t], (float *)to->bind_object[t].rotation, w->rotation);
        glm_quat_normalize(w->rotation);
        int anchor = b->anchor[t];
        vec3 offset;
        if (anchor < 0) {
            /* The travel: the source joint's displacement from its bind pose, in target axes and leg lengths. */
            glm_vec3_sub((float *)source_object[a].position, (float *)from->bind_object[a].position, offset);
            glm_mat3_mulv((vec3 *)b->change_matrix, offset, offset);
            glm_vec3_scale(offset, b->travel, offset);
            glm_vec3_add((float *)to->bind_object[t].position, offset, w->position);
        } else {
            /* The target's own bone, turned as the joint it hangs from turned. */
            glm_vec3_sub((float *)to->bind_object[t].position, (float *)to->bind_object[anchor].position, offset);
            glm_quat_rotatev(delta[anchor], offset, offset);
            glm_vec3_add(world[anchor].position, offset, w->position);
        }
        w->unused = 0.0f;
    }
    for (int j = 0; j < to->joint_count; ++j) {
        int p = to->parents[j];
        joint_pose *l = &out[j];
        if (b->source[j] < 0) {
            *l = rest_local[j];
            if (p < 0) {
                world[j] = *l;
            } else {
                glm_quat_mul(world[p].rotation, l->rotation, world[j].rotation);
                glm_quat_normalize(world[j].rotation);
                glm_quat_rotatev(world[p].rotation, l->position, world[j].position);
                glm_vec3_add(world[j].position, world[p].position, world[j].position);
            }
            continue;
        }
        if (p < 0) {
            *l = world[j];
            continue;
        }
        versor inverse;
        glm_quat_inv(world[p].rotation, inverse);
        glm_quat_mul(inverse, world[j].rotation, l->rotation);
        glm_quat_normalize(l->rotation);
        vec3 offset;
        glm_vec3_sub(world[j].position, world[p].position, offset);
        glm_quat_rotatev(inverse, offset, l->position);
        l->unused = 0.0f;
    }
}

/* The turn about up taking the way a bind pose faces to the way its clips face. */
static void facing_turn(const float bind_forward[3], const float forward[3], versor out)
{
    vec3 a, b;
    glm_vec3_copy((float *)bind_forward, a);
    glm_vec3_copy((float *)forward, b);
    if (!(glm_vec3_norm(a) > 0.0f) || !(glm_vec3_norm(b) > 0.0f)) {
        glm_quat_identity(out);
        return;
    }
    glm_vec3_normalize(a);
    glm_vec3_normalize(b);
    turn_between(a, b, out);
}

/* A copy of s whose bind pose is turned by turn about the origin (bind_object only: the bake reads no more). */
static bool turned_skeleton(const skeleton *s, const versor turn, skeleton *out)
{
    *out = *s;
    out->inverse_bind = NULL;
    joint_pose *bind = malloc((size_t)s->joint_count * sizeof *bind);
    out->bind_object = bind;
    if (!bind)
        return false;
    for (int j = 0; j < s->joint_count; ++j) {
        glm_quat_mul((float *)turn, (float *)s->bind_object[j].rotation, bind[j].rotation);
        glm_quat_normalize(bind[j].rotation);
        glm_quat_rotatev((float *)turn, (float *)s->bind_object[j].position, bind[j].position);
        bind[j].unused = 0.0f;
    }
    return true;
}

bool build_retargeted_clip(const clip *source, const skeleton *source_skeleton, const skeleton *target_skeleton,
                           const retarget_spec *spec, clip **out, diag *err)
{
    if (!out)
        return diag_set(err, "retarget", 0, "no clip to fill");
    *out = NULL;
    if (!source || !source->frames || source->frame_count <= 0 || !source_skeleton || !target_skeleton || !spec ||
        target_skeleton->joint_count <= 0)
        return diag_set(err, "retarget", 0, "no clip or skeleton to retarget");
    if (!clip_fits_skeleton(source, source_skeleton, "retarget", err))
        return false;
    if (!map_fits(&spec->source_map, source_skeleton, "source", err) ||
        !map_fits(&spec->target_map, target_skeleton, "target", err))
        return false;
    if (!(retarget_travel_scale(source_skeleton, target_skeleton, spec) > 0.0f))
        return diag_set(err, "retarget", 0, "a leg has no length in a bind pose");
    /* Both bind poses turned to face as their clips do; the source's frames turned with its bind pose. */
    versor source_turn, target_turn;
    facing_turn(spec->source_bind_forward, spec->source_forward, source_turn);
    facing_turn(spec->target_bind_forward, spec->target_forward, target_turn);
    skeleton from = {0}, to = {0};
    bake_setup setup = {0};
    size_t from_joints = (size_t)source->joint_count, to_joints = (size_t)target_skeleton->joint_count;
    size_t frames = (size_t)source->frame_count;
    clip *c = calloc(1, sizeof *c);
    joint_pose *source_object = malloc(from_joints * sizeof *source_object);
    joint_pose *world = malloc(to_joints * sizeof *world);
    joint_pose *rest_local = malloc(to_joints * sizeof *rest_local);
    versor *delta = malloc(to_joints * sizeof *delta);
    bool ok = c && source_object && world && rest_local && delta &&
              turned_skeleton(source_skeleton, source_turn, &from) && turned_skeleton(target_skeleton, target_turn, &to) &&
              setup_bake(&from, &to, spec, &setup);
    if (ok) {
        /* Timing (frame count, rate, loop convention, durations) is source's. */
        c->joint_count = target_skeleton->joint_count;
        c->frame_count = source->frame_count;
        c->frame_rate = source->frame_rate;
        c->last_frame_is_first = source->last_frame_is_first;
        c->loop_duration = source->loop_duration;
        c->once_duration = source->once_duration;
        c->frames = malloc(frames * to_joints * sizeof *c->frames);
        c->bounds = malloc(frames * sizeof *c->bounds);
        c->bytes = sizeof *c + frames * to_joints * sizeof *c->frames + frames * sizeof *c->bounds;
        ok = c->frames && c->bounds && build_copy_hierarchy(c, target_skeleton->joint_count, target_skeleton->names, target_skeleton->parents);
    }
    for (size_t j = 0; ok && j < to_joints; ++j) {
        int p = target_skeleton->parents[j];
        const joint_pose *bind = &to.bind_object[j];
        if (p < 0) {
            rest_local[j] = *bind;
            continue;
        }
        const joint_pose *parent = &to.bind_object[p];
        versor inverse;
        glm_quat_inv((float *)parent->rotation, inverse);
        glm_quat_mul(inverse, (float *)bind->rotation, rest_local[j].rotation);
        glm_quat_normalize(rest_local[j].rotation);
        vec3 offset;
        glm_vec3_sub((float *)bind->position, (float *)parent->position, offset);
        glm_quat_rotatev(inverse, offset, rest_local[j].position);
        rest_local[j].unused = 0.0f;
    }
    for (size_t f = 0; ok && f < frames; ++f) {
        pose_to_object(source->parents, source->joint_count, source->frames + f * from_joints, source_object);
        for (size_t j = 0; j < from_joints; ++j) {
            glm_quat_mul(source_turn, source_object[j].rotation, source_object[j].rotation);
            glm_quat_rotatev(source_turn, source_object[j].position, source_object[j].position);
        }
        bake_frame(&from, &to, &setup, rest_local, source_object, world, delta, c->frames + f * to_joints);
        float (*box)[3] = c->bounds[f];
        glm_vec3_copy(world[0].position, box[0]);
        glm_vec3_copy(world[0].position, box[1]);
        for (size_t j = 1; j < to_joints; ++j) {
            glm_vec3_minv(box[0], world[j].position, box[0]);
            glm_vec3_maxv(box[1], world[j].position, box[1]);
        }
    }
    free(source_object);
    free(world);
    free(rest_local);
    free(delta);
    free_bake(&setup);
    free(from.bind_object);
    free(to.bind_object);
    if (!ok) {
        clip_free(c);
        return diag_set(err, "retarget", 0, "out of memory");
    }
    *out = c;
    return true;
}
