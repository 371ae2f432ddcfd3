/* md5tool new-character, the measuring half: roles from file names, the body's axes and feet, ground
 * speeds and the overlay's branch. See md5tool_new_character.h. */
#include "md5tool_new_character.h"

#include "build/retarget.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "anim/anim_clip.h"
#include "pose/pose.h"

/* The height the body is scaled to, and the limits of characters.ini's scale key. */
#define TARGET_HEIGHT_METRES 1.8f
#define SCALE_MIN 0.0001f
#define SCALE_MAX 10000.0f

/* ---- roles ------------------------------------------------------------------------------------------ */

static const char *const role_names[NEW_CHARACTER_ROLE_COUNT] = {
    [NEW_CHARACTER_ROLE_UNKNOWN] = "unknown", [NEW_CHARACTER_ROLE_IDLE] = "idle",
    [NEW_CHARACTER_ROLE_WALK] = "walk",       [NEW_CHARACTER_ROLE_RUN] = "run",
    [NEW_CHARACTER_ROLE_JUMP] = "jump",       [NEW_CHARACTER_ROLE_TURN_LEFT] = "turn_left",
    [NEW_CHARACTER_ROLE_TURN_RIGHT] = "turn_right", [NEW_CHARACTER_ROLE_OVERLAY] = "overlay",
    [NEW_CHARACTER_ROLE_PAIN] = "pain",       [NEW_CHARACTER_ROLE_DEATH] = "death",
    [NEW_CHARACTER_ROLE_DEAD] = "dead",       [NEW_CHARACTER_ROLE_WALK_BACK] = "walk_back",
    [NEW_CHARACTER_ROLE_STRAFE_LEFT] = "strafe_left", [NEW_CHARACTER_ROLE_STRAFE_RIGHT] = "strafe_right",
};

const char *new_character_role_name(new_character_role role)
{
    return (int)role >= 0 && role < NEW_CHARACTER_ROLE_COUNT ? role_names[role] : "unknown";
}

/* The header's table, in the order it is tried. Turns are decided apart: they need a side. */
static const struct {
    new_character_role role;
    const char *words[8];
} role_table[] = {
    {NEW_CHARACTER_ROLE_IDLE, {"idle", "stand", "breath"}},
    {NEW_CHARACTER_ROLE_WALK, {"walk", "forward"}},
    {NEW_CHARACTER_ROLE_RUN, {"run", "sprint", "jog"}},
    {NEW_CHARACTER_ROLE_JUMP, {"jump"}},
    {NEW_CHARACTER_ROLE_UNKNOWN, {"turn"}}, /* placeholder row: see guess_turn */
    {NEW_CHARACTER_ROLE_OVERLAY, {"wave", "attack", "gesture", "shoot", "punch", "throw"}},
    {NEW_CHARACTER_ROLE_PAIN, {"pain", "hit", "flinch"}},
    {NEW_CHARACTER_ROLE_DEATH, {"death", "dying", "die"}},
    {NEW_CHARACTER_ROLE_DEAD, {"dead"}},
    {NEW_CHARACTER_ROLE_WALK_BACK, {"backward", "back"}},
    {NEW_CHARACTER_ROLE_STRAFE_LEFT, {"left"}},
    {NEW_CHARACTER_ROLE_STRAFE_RIGHT, {"right"}},
};

/* The file name without folder and extension. */
static void file_stem(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    size_t length = dot && dot != name ? (size_t)(dot - name) : strlen(name);
    snprintf(out, size, "%.*s", (int)(length < size ? length : size - 1), name);
}

/* How many characters of a clip's stem are the mesh's stem and the separators after it (0 when the clip's
 * name does not start with it, or is nothing else). */
static size_t mesh_prefix_length(const char *clip_stem, const char *mesh_path)
{
    if (!mesh_path)
        return 0;
    char mesh_stem[256];
    file_stem(mesh_path, mesh_stem, sizeof mesh_stem);
    size_t length = strlen(mesh_stem);
    if (length == 0 || strncasecmp(clip_stem, mesh_stem, length) != 0)
        return 0;
    while (clip_stem[length] && strchr("_-. ", clip_stem[length]))
        ++length;
    return clip_stem[length] ? length : 0;
}

static void lower_case(char *text)
{
    for (; *text; ++text)
        *text = (char)tolower((unsigned char)*text);
}

/* A side word in a turn's name: "left", or l/r standing alone between separators ("turn_l", "l.turn"). */
static bool names_side(const char *name, const char *word, char letter)
{
    if (strstr(name, word))
        return true;
    for (const char *at = strchr(name, letter); at; at = strchr(at + 1, letter)) {
        bool alone_before = at == name || !isalnum((unsigned char)at[-1]);
        bool alone_after = !isalnum((unsigned char)at[1]);
        if (alone_before && alone_after)
            return true;
    }
    return false;
}

void new_character_clip_name(const char *clip_path, const char *mesh_path, char *out, size_t size)
{
    char stem[256];
    file_stem(clip_path, stem, sizeof stem);
    snprintf(out, size, "%s", stem + mesh_prefix_length(stem, mesh_path));
}

new_character_role new_character_guess_role(const char *clip_path, const char *mesh_path)
{
    if (!clip_path)
        return NEW_CHARACTER_ROLE_UNKNOWN;
    char name[256];
    new_character_clip_name(clip_path, mesh_path, name, sizeof name);
    lower_case(name);
    for (size_t row = 0; row < sizeof role_table / sizeof role_table[0]; ++row) {
        bool found = false;
        for (int w = 0; w < 8 && role_table[row].words[w] && !found; ++w)
            found = strstr(name, role_table[row].words[w]) != NULL;
        if (!found)
            continue;
        if (strcmp(role_table[row].words[0], "turn") != 0)
            return role_table[row].role;
        bool left = names_side(name, "left", 'l'), right = names_side(name, "right", 'r');
        if (left != right)
            return left ? NEW_CHARACTER_ROLE_TURN_LEFT : NEW_CHARACTER_ROLE_TURN_RIGHT;
        return NEW_CHARACTER_ROLE_UNKNOWN;
    }
    return NEW_CHARACTER_ROLE_UNKNOWN;
}

/* ---- the body: axes, height, feet --------------------------------------------------------------------- */

static bool name_contains_any(const char *name, const char *const *words)
{
    char lowered[ANIM_NAME_MAX * 2];
    snprintf(lowered, sizeof lowered, "%s", name);
    lower_case(lowered);
    for (; *words; ++words)
        if (strstr(lowered, *words))
            return true;
    return false;
}

static const char *const foot_words[] = {"foot", "ankle", "toe", "heel", NULL};
static const char *const arm_words[] = {"shoulder", "clavicle", "upperarm", "humerus", "arm", NULL};

static float horizontal_distance(const new_character_body *body, const float a[3], const float b[3])
{
    float sum = 0.0f;
    for (int k = 0; k < 3; ++k)
        if (k != body->up_axis)
            sum += (a[k] - b[k]) * (a[k] - b[k]);
    return sqrtf(sum);
}

static float height_of(const new_character_body *body, const float p[3])
{
    return body->up_sign * p[body->up_axis];
}

/* Mark each foot's joints: the foot's top joint and every joint below it. */
static void mark_feet(const skeleton *s, new_character_body *body)
{
    for (int j = 0; j < s->joint_count; ++j) {
        body->foot_of[j] = -1;
        for (int k = 0; k < body->foot_count; ++k)
            if (body->foot_root[k] == j)
                body->foot_of[j] = k;
        if (body->foot_of[j] < 0 && s->parents[j] >= 0)
            body->foot_of[j] = body->foot_of[s->parents[j]];
    }
}

/* Two feet: joints named foot/ankle/toe/heel whose parent is not (the top of each foot chain); with more
 * than two such chains, the lowest two that stand apart. Otherwise the lowest leaf joint and the lowest
 * other leaf standing apart from it. */
/* A joint that may be a foot: by name, the top of a run of joints named foot, ankle, toe or heel; without
 * names, a leaf (no children). */
static bool foot_candidate(const skeleton *s, int j, bool by_name)
{
    if (by_name) {
        int parent = s->parents[j];
        return name_contains_any(s->names[j], foot_words) && (parent < 0 || !name_contains_any(s->names[parent], foot_words));
    }
    for (int child = j + 1; child < s->joint_count; ++child)
        if (s->parents[child] == j)
            return false;
    return true;
}

static void find_feet(const skeleton *s, const joint_pose *bind, new_character_body *body)
{
    int n = s->joint_count;
    float apart = 0.05f * body->height;
    int roots[2] = {-1, -1};
    body->feet_by_name = false;
    for (int pass = 0; pass < 2; ++pass) {
        bool by_name = pass == 0;
        roots[0] = roots[1] = -1;
        for (int j = 0; j < n; ++j) {
            if (!foot_candidate(s, j, by_name))
                continue;
            float h = height_of(body, bind[j].position);
            if (roots[0] < 0 || h < height_of(body, bind[roots[0]].position)) {
                if (roots[0] >= 0 && horizontal_distance(body, bind[roots[0]].position, bind[j].position) > apart)
                    roots[1] = roots[0];
                roots[0] = j;
            } else if (horizontal_distance(body, bind[roots[0]].position, bind[j].position) > apart &&
                       (roots[1] < 0 || h < height_of(body, bind[roots[1]].position))) {
                roots[1] = j;
            }
        }
        /* roots[1] may have been taken when a lower joint near it came later: check it stands apart. */
        if (roots[0] >= 0 && roots[1] >= 0 &&
            horizontal_distance(body, bind[roots[0]].position, bind[roots[1]].position) > apart) {
            body->feet_by_name = by_name;
            break;
        }
        roots[0] = roots[1] = -1;
    }
    body->foot_count = roots[1] >= 0 ? 2 : 0;
    body->foot_root[0] = roots[0];
    body->foot_root[1] = roots[1];
    mark_feet(s, body);
}

/* Up from the skeleton, not the box: the feet (joints named foot, ankle, toe or heel with no such parent) or,
 * without names, the leaves (joints with no children: toes and claws, but also a head, hands, a tail) lie at
 * one end of the up axis. For Y and Z, where their mean falls within the joints' extent (0 the low end, 1 the
 * high); the axis where it is nearest an end is up, the sign pointing away from them. A long, low creature's
 * claws are at the bottom of its height (Z) and spread along its length (Y), where the box's longer extent
 * would stand it on its side. False when neither axis has them within the outer quarter of its extent (a
 * biped's fingers pull the leaves' mean to the middle): then the box decides. */
static bool up_from_feet(const skeleton *s, const joint_pose *pose, int *axis, float *sign)
{
    int n = s->joint_count;
    float low[3] = {INFINITY, INFINITY, INFINITY}, high[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int j = 0; j < n; ++j)
        for (int k = 0; k < 3; ++k) {
            low[k] = fminf(low[k], pose[j].position[k]);
            high[k] = fmaxf(high[k], pose[j].position[k]);
        }
    for (int pass = 0; pass < 2; ++pass) {
        float sum[3] = {0};
        int count = 0;
        for (int j = 0; j < n; ++j) {
            if (!foot_candidate(s, j, pass == 0))
                continue;
            for (int k = 0; k < 3; ++k)
                sum[k] += pose[j].position[k];
            ++count;
        }
        if (count < 2)
            continue;
        float best = 0.0f;
        for (int k = 1; k <= 2; ++k) {
            float extent = high[k] - low[k];
            if (!(extent > 0.0f))
                continue;
            float at = (sum[k] / (float)count - low[k]) / extent;
            if (fabsf(at - 0.5f) > best) {
                best = fabsf(at - 0.5f);
                *axis = k;
                *sign = at < 0.5f ? 1.0f : -1.0f;
            }
        }
        return best >= 0.25f;
    }
    return false;
}

/* The skinned mesh's box in a pose; a mesh without vertices falls back on the joints. False when memory
 * runs out. */
/* A humanoid stands one way only: up is the axis (of the six, +Z first) along which its bind pose maps as
 * one (retarget_map_find: two legs reaching the ground below its hips, a spine up to the top), whatever its
 * joints are called. False when none does (a creature, a prop). */
static bool up_from_humanoid(const model *m, int *axis, float *sign, int *forward_axis, float *forward_sign)
{
    static const int order[6][2] = {{2, 1}, {1, 1}, {2, -1}, {1, -1}, {0, 1}, {0, -1}};
    for (int k = 0; k < 6; ++k) {
        float up[3] = {0.0f, 0.0f, 0.0f}, forward[3] = {0.0f, 0.0f, 0.0f};
        up[order[k][0]] = (float)order[k][1];
        forward[(order[k][0] + 1) % 3] = 1.0f;
        retarget_map map;
        diag error;
        float facing[3];
        if (retarget_map_find(m, up, forward, NULL, &map, NULL, facing, &error)) {
            *axis = order[k][0];
            *sign = (float)order[k][1];
            for (int a = 0; a < 3; ++a)
                if (facing[a] != 0.0f) {
                    *forward_axis = a;
                    *forward_sign = facing[a] > 0.0f ? 1.0f : -1.0f;
                }
            return true;
        }
    }
    return false;
}

static bool pose_extent(const model *m, const joint_pose *pose, float low[3], float high[3])
{
    const skeleton *s = &m->skeleton;
    int n = s->joint_count;
    for (int k = 0; k < 3; ++k) {
        low[k] = INFINITY;
        high[k] = -INFINITY;
    }
    mat4 *palette = malloc((size_t)(n > 0 ? n : 1) * sizeof *palette);
    bool ok = palette && pose_palette(pose, (const mat4 *)s->inverse_bind, n, palette);
    int points = 0;
    for (int i = 0; ok && i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        size_t count = (size_t)(mesh->vertex_count > 0 ? mesh->vertex_count : 1);
        float (*positions)[3] = malloc(count * sizeof *positions), (*normals)[3] = malloc(count * sizeof *normals);
        ok = positions && normals && pose_skin_cpu(mesh, (const mat4 *)palette, n, positions, normals);
        for (int v = 0; ok && v < mesh->vertex_count; ++v, ++points)
            for (int k = 0; k < 3; ++k) {
                low[k] = fminf(low[k], positions[v][k]);
                high[k] = fmaxf(high[k], positions[v][k]);
            }
        free(positions);
        free(normals);
    }
    free(palette);
    for (int j = 0; points == 0 && j < n; ++j)
        for (int k = 0; k < 3; ++k) {
            low[k] = fminf(low[k], pose[j].position[k]);
            high[k] = fmaxf(high[k], pose[j].position[k]);
        }
    if (!(high[0] >= low[0]))
        for (int k = 0; k < 3; ++k)
            low[k] = high[k] = 0.0f;
    return ok;
}

bool new_character_study_body(const model *m, const clip *reference, const new_character_axes *given,
                              new_character_body *out)
{
    const skeleton *s = &m->skeleton;
    int n = s->joint_count;
    *out = (new_character_body){.up_axis = 2, .up_sign = 1.0f, .forward_axis = 0, .forward_sign = 1.0f,
                                .joint_count = n, .foot_root = {-1, -1}};
    if (reference && !clip_fits_skeleton(reference, s, "", NULL))
        reference = NULL;
    out->from_clip = reference != NULL;
    out->foot_of = malloc((size_t)(n > 0 ? n : 1) * sizeof *out->foot_of);
    joint_pose *pose = malloc((size_t)(n > 0 ? n : 1) * sizeof *pose);
    if (!out->foot_of || !pose) {
        free(pose);
        return false;
    }
    if (reference)
        pose_to_object(s->parents, n, reference->frames, pose);
    else
        memcpy(pose, s->bind_object, (size_t)n * sizeof *pose);

    float low[3], high[3];
    if (!pose_extent(m, pose, low, high)) {
        free(pose);
        return false;
    }
    out->up_axis = high[1] - low[1] > high[2] - low[2] ? 1 : 2;
    int feet_axis = 2;
    float feet_sign = 1.0f;
    int humanoid_forward = -1;
    float humanoid_forward_sign = 1.0f;
    out->up_from_humanoid = up_from_humanoid(m, &feet_axis, &feet_sign, &humanoid_forward, &humanoid_forward_sign);
    out->up_from_feet = !out->up_from_humanoid && up_from_feet(s, pose, &feet_axis, &feet_sign);
    if (out->up_from_humanoid || out->up_from_feet) {
        out->up_axis = feet_axis;
        out->up_sign = feet_sign;
    }
    out->up_given = given && given->up_axis >= 0;
    if (out->up_given) {
        out->up_axis = given->up_axis;
        out->up_sign = given->up_sign;
    }
    out->height = high[out->up_axis] - low[out->up_axis];
    /* The axes come from the clip (a bind pose may face elsewhere, or be a T pose), but the height that the
     * scale is for is the bind pose's, as characters.ini's `height` measures it: the written scale then
     * stands the loaded character exactly 1.8 m tall. */
    float bind_low[3], bind_high[3];
    if (reference && pose_extent(m, s->bind_object, bind_low, bind_high) &&
        bind_high[out->up_axis] > bind_low[out->up_axis])
        out->height = bind_high[out->up_axis] - bind_low[out->up_axis];
    float scale = out->height > 0.0f ? TARGET_HEIGHT_METRES / out->height : 1.0f;
    out->scale = fminf(fmaxf(scale, SCALE_MIN), SCALE_MAX);

    /* Feet at the top of the extent mean the body stands on its head in file space: up is the other way. */
    find_feet(s, pose, out);
    if (!out->up_given && !out->up_from_feet && out->foot_count == 2 && out->feet_by_name) {
        float middle = 0.5f * (low[out->up_axis] + high[out->up_axis]);
        float feet = 0.5f * (pose[out->foot_root[0]].position[out->up_axis] +
                             pose[out->foot_root[1]].position[out->up_axis]);
        if (feet > middle) {
            out->up_sign = -1.0f;
            find_feet(s, pose, out);
        }
    }

    /* Toes ahead of ankles: the horizontal reach from each foot's top joint to its farthest joint. */
    out->forward_axis = out->up_axis == 0 ? 1 : 0;
    float reach[3] = {0};
    for (int j = 0; j < s->joint_count; ++j) {
        int k = out->foot_of[j];
        if (k < 0 || j == out->foot_root[k])
            continue;
        const float *ankle = pose[out->foot_root[k]].position, *toe = pose[j].position;
        float farthest = 0.0f;
        for (int other = 0; other < s->joint_count; ++other)
            if (out->foot_of[other] == k)
                farthest = fmaxf(farthest, horizontal_distance(out, ankle, pose[other].position));
        if (horizontal_distance(out, ankle, toe) < farthest)
            continue;
        for (int a = 0; a < 3; ++a)
            if (a != out->up_axis)
                reach[a] += toe[a] - ankle[a];
    }
    int first = out->up_axis == 0 ? 1 : 0, second = out->up_axis == 2 ? 1 : 2;
    int along = fabsf(reach[first]) >= fabsf(reach[second]) ? first : second;
    int across = along == first ? second : first;
    if (fabsf(reach[along]) > 0.02f * out->height && fabsf(reach[along]) >= 2.0f * fabsf(reach[across])) {
        out->forward_axis = along;
        out->forward_sign = reach[along] > 0.0f ? 1.0f : -1.0f;
        out->forward_from_feet = true;
    }
    /* No toes to tell (a creature's claws are single joints): a head well ahead of the root, along the ground,
     * faces the way it is ahead. A biped's head is above its root and says nothing. */
    static const char *const head_words[] = {"head", NULL};
    for (int j = 0; !out->forward_from_feet && j < s->joint_count; ++j) {
        if (!name_contains_any(s->names[j], head_words))
            continue;
        float ahead[3] = {0};
        for (int a = 0; a < 3; ++a)
            ahead[a] = a == out->up_axis ? 0.0f : pose[j].position[a] - pose[0].position[a];
        int first_axis = out->up_axis == 0 ? 1 : 0, second_axis = out->up_axis == 2 ? 1 : 2;
        int most = fabsf(ahead[first_axis]) >= fabsf(ahead[second_axis]) ? first_axis : second_axis;
        int least = most == first_axis ? second_axis : first_axis;
        if (fabsf(ahead[most]) > 0.25f * out->height && fabsf(ahead[most]) >= 2.0f * fabsf(ahead[least])) {
            out->forward_axis = most;
            out->forward_sign = ahead[most] > 0.0f ? 1.0f : -1.0f;
            out->forward_from_head = true;
        }
        break;
    }
    /* Nothing above told (toes that are single joints, no head named so): the way a humanoid's bind pose
     * faces, by its toes (retarget_map_find). */
    if (!out->forward_from_feet && !out->forward_from_head && out->up_from_humanoid && humanoid_forward >= 0 &&
        humanoid_forward != out->up_axis) {
        out->forward_axis = humanoid_forward;
        out->forward_sign = humanoid_forward_sign;
        out->forward_from_humanoid = true;
    }
    out->forward_given = given && given->forward_axis >= 0;
    if (out->forward_given) {
        out->forward_axis = given->forward_axis;
        out->forward_sign = given->forward_sign;
        out->forward_from_feet = false;
    }
    free(pose);
    return true;
}

void new_character_body_free(new_character_body *body)
{
    if (!body)
        return;
    free(body->foot_of);
    body->foot_of = NULL;
}

/* ---- measuring clips ---------------------------------------------------------------------------------- */

/* Object-space poses of every frame: frame f's joints at [f * joint_count]. NULL when memory runs out. */
static joint_pose *object_frames(const clip *c)
{
    size_t n = (size_t)c->joint_count, count = (size_t)c->frame_count * n;
    joint_pose *out = malloc((count ? count : 1) * sizeof *out);
    for (int f = 0; out && f < c->frame_count; ++f)
        pose_to_object(c->parents, c->joint_count, &c->frames[(size_t)f * n], &out[(size_t)f * n]);
    return out;
}

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The lowest joint of foot k in one frame's object pose. */
static int lowest_joint_of_foot(const new_character_body *body, const joint_pose *pose, int k)
{
    int lowest = -1;
    for (int j = 0; j < body->joint_count; ++j)
        if (body->foot_of[j] == k &&
            (lowest < 0 || height_of(body, pose[j].position) < height_of(body, pose[lowest].position)))
            lowest = j;
    return lowest;
}

bool new_character_measure_speed(const model *m, const new_character_body *body, const clip *c,
                                 new_character_speed *out)
{
    *out = (new_character_speed){.foot_down_at_start = -1};
    if (!clip_fits_skeleton(c, &m->skeleton, "", NULL) || body->joint_count != c->joint_count)
        return false;
    joint_pose *frames = object_frames(c);
    float *samples = malloc((size_t)c->frame_count * sizeof *samples);
    if (!frames || !samples) {
        free(frames);
        free(samples);
        return false;
    }
    size_t n = (size_t)c->joint_count;
    int last = c->frame_count - 1;
    out->root_travel = horizontal_distance(body, frames[0].position, frames[(size_t)last * n].position);
    if (body->foot_count == 2) {
        /* 15% into the cycle: past a walk's double support, still inside a run's stance. */
        const joint_pose *start = &frames[(size_t)lroundf(0.15f * (float)last) * n];
        int low0 = lowest_joint_of_foot(body, start, 0), low1 = lowest_joint_of_foot(body, start, 1);
        out->foot_down_at_start = height_of(body, start[low0].position) <= height_of(body, start[low1].position) ? 0 : 1;
    }
    float slide[3] = {0};
    if (out->root_travel > 0.1f * body->height && c->once_duration > 0.0f) {
        out->method = NEW_CHARACTER_SPEED_ROOT_MOTION;
        out->speed = out->root_travel / c->once_duration;
        for (int a = 0; a < 3; ++a)
            slide[a] = a == body->up_axis ? 0.0f : frames[(size_t)last * n].position[a] - frames[0].position[a];
    } else if (body->foot_count == 2 && last > 0) {
        float ground = INFINITY;
        for (int f = 0; f <= last; ++f)
            for (int k = 0; k < 2; ++k) {
                const joint_pose *pose = &frames[(size_t)f * n];
                ground = fminf(ground, height_of(body, pose[lowest_joint_of_foot(body, pose, k)].position));
            }
        float contact = ground + 0.04f * body->height;
        for (int f = 0; f < last; ++f) {
            const joint_pose *now = &frames[(size_t)f * n], *next = &frames[(size_t)(f + 1) * n];
            int low[2] = {lowest_joint_of_foot(body, now, 0), lowest_joint_of_foot(body, now, 1)};
            int down = height_of(body, now[low[0]].position) <= height_of(body, now[low[1]].position) ? 0 : 1;
            int next0 = lowest_joint_of_foot(body, next, 0), next1 = lowest_joint_of_foot(body, next, 1);
            int down_next = height_of(body, next[next0].position) <= height_of(body, next[next1].position) ? 0 : 1;
            /* The same joint in both frames: the lowest joint switching from heel to toe is not a slide. */
            int j = low[down];
            if (down != down_next || height_of(body, now[j].position) > contact)
                continue;
            samples[out->samples++] = horizontal_distance(body, now[j].position, next[j].position) * c->frame_rate;
            for (int a = 0; a < 3; ++a) /* the body travels against its planted foot's slide */
                slide[a] -= a == body->up_axis ? 0.0f : next[j].position[a] - now[j].position[a];
        }
        if (out->samples >= 2) {
            qsort(samples, (size_t)out->samples, sizeof *samples, compare_floats);
            float median = out->samples % 2 ? samples[out->samples / 2]
                                            : 0.5f * (samples[out->samples / 2 - 1] + samples[out->samples / 2]);
            /* Under 2% of the height per second is a foot shuffling in place, not a gait. */
            if (median > 0.02f * body->height) {
                out->method = NEW_CHARACTER_SPEED_PLANTED_FOOT;
                out->speed = median;
            }
        }
    }
    float length = sqrtf(slide[0] * slide[0] + slide[1] * slide[1] + slide[2] * slide[2]);
    for (int a = 0; a < 3 && out->method != NEW_CHARACTER_SPEED_NONE && length > 0.0f; ++a)
        out->direction[a] = slide[a] / length;
    free(frames);
    free(samples);
    return true;
}

/* The angle in radians between two unit quaternions, either sign. */
static float rotation_angle(const float a[4], const float b[4])
{
    float dot = fabsf(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
    return 2.0f * acosf(fminf(dot, 1.0f));
}

int new_character_overlay_root(const model *m, const new_character_body *body, const clip *overlay,
                               const clip *reference)
{
    const skeleton *s = &m->skeleton;
    int n = s->joint_count;
    if (!clip_fits_skeleton(overlay, s, "", NULL) || (reference && !clip_fits_skeleton(reference, s, "", NULL)) ||
        body->joint_count != n || n <= 0)
        return -1;
    float *motion = calloc((size_t)n, sizeof *motion), *branch = calloc((size_t)n, sizeof *branch);
    int *children = calloc((size_t)n, sizeof *children), *depth = calloc((size_t)n, sizeof *depth);
    bool *holds_foot = calloc((size_t)n, sizeof *holds_foot);
    int chosen = -1;
    if (!motion || !branch || !children || !depth || !holds_foot)
        goto done;
    const joint_pose *rest = reference ? reference->frames : overlay->frames;
    for (int f = 0; f < overlay->frame_count; ++f)
        for (int j = 0; j < n; ++j)
            motion[j] += rotation_angle(overlay->frames[(size_t)f * (size_t)n + (size_t)j].rotation, rest[j].rotation) /
                         (float)overlay->frame_count;
    for (int j = 0; j < n; ++j) {
        branch[j] = motion[j];
        holds_foot[j] = body->foot_of[j] >= 0;
        depth[j] = s->parents[j] >= 0 ? depth[s->parents[j]] + 1 : 0;
        if (s->parents[j] >= 0)
            children[s->parents[j]]++;
    }
    /* Parents come before their children, so walking backwards sums each branch before its parent reads it. */
    for (int j = n - 1; j >= 0; --j)
        if (s->parents[j] >= 0) {
            branch[s->parents[j]] += branch[j];
            holds_foot[s->parents[j]] = holds_foot[s->parents[j]] || holds_foot[j];
        }
    float upper = 0.0f;
    for (int j = 0; j < n; ++j)
        if (!holds_foot[j])
            upper += motion[j];
    for (int j = 0; j < n; ++j) {
        if (holds_foot[j] || branch[j] < 0.6f * upper)
            continue;
        if (chosen < 0 || depth[j] > depth[chosen] || (depth[j] == depth[chosen] && branch[j] > branch[chosen]))
            chosen = j;
    }
    if (chosen < 0 || upper <= 1e-4f) {
        /* Nothing above the legs moves: the first arm-named chain, else the upper body's top joint. */
        chosen = -1;
        for (int j = 0; j < n && chosen < 0; ++j)
            if (!holds_foot[j] && name_contains_any(s->names[j], arm_words))
                chosen = j;
        for (int j = 0; j < n && chosen < 0; ++j)
            if (!holds_foot[j] && children[j] > 0)
                chosen = j;
        if (chosen < 0)
            chosen = 0;
    }
    /* Up to where the branch leaves the body, then to the top of an arm-named chain. */
    while (s->parents[chosen] >= 0 && !holds_foot[s->parents[chosen]] && children[s->parents[chosen]] == 1)
        chosen = s->parents[chosen];
    while (s->parents[chosen] >= 0 && !holds_foot[s->parents[chosen]] &&
           name_contains_any(s->names[s->parents[chosen]], arm_words))
        chosen = s->parents[chosen];
done:
    free(motion);
    free(branch);
    free(children);
    free(depth);
    free(holds_foot);
    return chosen;
}
