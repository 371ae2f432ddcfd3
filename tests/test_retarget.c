/* Retargeting: the joint map found from a skeleton's structure (names in any language, any joint order,
 * any joint frames), the bake of a clip for another skeleton, and the cache sharing it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cglm/cglm.h>

#include "anim/config/anim_config.h"
#include "build/loader.h"
#include "anim/anim_feet.h"
#include "build/retarget.h"
#include "cache/cache.h"
#include "check.h"
#include "pose/pose.h"
#include "synth.h"
#include "test_data.h"
#include "test_files.h"

#define MANNEQUIN MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh"
#define ROBOT MARIONETTE_SOURCE_DIR "/assets/models/robot.md5mesh"
#define WALK MARIONETTE_SOURCE_DIR "/assets/clips/walk.md5anim"
#define TURN MARIONETTE_SOURCE_DIR "/assets/clips/turn_left.md5anim"

static const float up_z[3] = {0.0f, 0.0f, 1.0f}, forward_x[3] = {1.0f, 0.0f, 0.0f};

static model *load_model(const char *path)
{
    model *m = NULL;
    diag err;
    if (!loader_load_model(path, &m, &err, NULL))
        fprintf(stderr, "%s: %s\n", path, err.message);
    return m;
}

static clip *load_clip(const char *path)
{
    clip *c = NULL;
    diag err;
    if (!loader_load_clip(path, &c, &err, NULL))
        fprintf(stderr, "%s: %s\n", path, err.message);
    return c;
}

/* spec for a clip of `from` (our axes) played on `to` (up and forward of its file); false when a map fails. */
static bool make_spec(const model *from, const model *to, const float up[3], const float forward[3],
                      retarget_spec *spec, retarget_found found[RETARGET_ROLE_COUNT], diag *err)
{
    *spec = (retarget_spec){0};
    memcpy(spec->source_up, up_z, sizeof spec->source_up);
    memcpy(spec->source_forward, forward_x, sizeof spec->source_forward);
    memcpy(spec->target_up, up, sizeof spec->target_up);
    memcpy(spec->target_forward, forward, sizeof spec->target_forward);
    return retarget_map_find(from, up_z, forward_x, NULL, &spec->source_map, NULL, spec->source_bind_forward, err) &&
           retarget_map_find(to, up, forward, NULL, &spec->target_map, found, spec->target_bind_forward, err);
}

static const char *joint_name(const model *m, const retarget_map *map, retarget_role role)
{
    int j = map->joints[role];
    return j >= 0 ? m->skeleton.names[j] : "(none)";
}

static void test_our_skeleton_is_mapped(void)
{
    model *m = load_model(MANNEQUIN);
    CHECK(m != NULL);
    if (!m)
        return;
    retarget_map map;
    retarget_found found[RETARGET_ROLE_COUNT];
    diag err = {0};
    CHECK(retarget_map_find(m, up_z, forward_x, NULL, &map, found, NULL, &err));
    static const char *const expected[RETARGET_ROLE_COUNT] = {
        "root",       "hips",       "spine.01",  "spine.02", "spine.03",   "neck",       "head",      "thigh.L",
        "shin.L",     "foot.L",     "toe.L",     "thigh.R",  "shin.R",     "foot.R",     "toe.R",     "clavicle.L",
        "upperarm.L", "forearm.L",  "hand.L",    "clavicle.R", "upperarm.R", "forearm.R", "hand.R"};
    for (int r = 0; r < RETARGET_ROLE_COUNT; ++r) {
        const char *name = joint_name(m, &map, (retarget_role)r);
        if (strcmp(name, expected[r]) != 0)
            fprintf(stderr, "  role %s: %s, expected %s\n", retarget_role_name((retarget_role)r), name, expected[r]);
        CHECK(strcmp(name, expected[r]) == 0);
    }
    CHECK(found[RETARGET_HEAD] == RETARGET_BY_NAME);
    CHECK(found[RETARGET_UPPER_LEG_L] == RETARGET_BY_STRUCTURE);
    /* Turned in the file (up +Y, forward -Z), the same joints are found: only the bind pose's shape counts. */
    model_free(m);
}

/* A copy of m's skeleton with joints renamed (not English), reordered (children visited last to first), and
 * each joint's frame turned by its own rotation (another rest pose convention: the same places, other axes),
 * and no meshes. order[new] = old. */
static model *renamed_copy(const model *m, int *order)
{
    int n = m->skeleton.joint_count;
    int *stack = malloc(sizeof *stack * (size_t)n), top = 0, count = 0;
    int *new_index = malloc(sizeof *new_index * (size_t)n);
    for (int j = n - 1; j >= 0; --j)
        if (m->skeleton.parents[j] < 0)
            stack[top++] = j;
    while (top > 0) {
        int j = stack[--top];
        new_index[j] = count;
        order[count++] = j;
        for (int c = 0; c < n; ++c) /* pushed first to last: popped last to first */
            if (m->skeleton.parents[c] == j)
                stack[top++] = c;
    }
    model *copy = calloc(1, sizeof *copy);
    skeleton *s = &copy->skeleton;
    s->joint_count = n;
    s->names = calloc((size_t)n, sizeof *s->names);
    s->parents = malloc(sizeof *s->parents * (size_t)n);
    s->bind_object = calloc((size_t)n, sizeof *s->bind_object);
    s->inverse_bind = calloc((size_t)n, sizeof *s->inverse_bind);
    for (int k = 0; k < n; ++k) {
        int j = order[k];
        char name[32];
        snprintf(name, sizeof name, "gelenk_%02d", (k * 7) % n);
        s->names[k] = strdup(name);
        s->parents[k] = m->skeleton.parents[j] < 0 ? -1 : new_index[m->skeleton.parents[j]];
        s->bind_object[k] = m->skeleton.bind_object[j];
        versor turn;
        vec3 axis = {sinf((float)k), cosf(1.7f * (float)k), 0.5f};
        glm_vec3_normalize(axis);
        glm_quatv(turn, 0.3f + 0.2f * (float)(k % 5), axis);
        glm_quat_mul(m->skeleton.bind_object[j].rotation, turn, s->bind_object[k].rotation);
    }
    free(stack);
    free(new_index);
    return copy;
}

static void object_pose(const clip *c, int frame, joint_pose *out)
{
    pose_to_object(c->parents, c->joint_count, c->frames + (size_t)frame * (size_t)c->joint_count, out);
}

static void test_renamed_reordered_copy_plays_the_same_walk(void)
{
    model *m = load_model(MANNEQUIN);
    clip *walk = load_clip(WALK);
    CHECK(m && walk);
    if (!m || !walk)
        return;
    int n = m->skeleton.joint_count;
    int *order = malloc(sizeof *order * (size_t)n);
    model *copy = renamed_copy(m, order);
    int moved = 0;
    for (int k = 0; k < n; ++k)
        moved += order[k] != k;
    CHECK(moved > n / 2); /* the order did change */
    retarget_spec spec;
    diag err = {0};
    bool mapped = make_spec(m, copy, up_z, forward_x, &spec, NULL, &err);
    CHECK(mapped);
    if (!mapped)
        fprintf(stderr, "  %s\n", err.message);
    for (int r = 0; mapped && r < RETARGET_ROLE_COUNT; ++r)
        CHECK(spec.target_map.joints[r] >= 0 && order[spec.target_map.joints[r]] == spec.source_map.joints[r]);
    CHECK_NEAR(retarget_travel_scale(&m->skeleton, &copy->skeleton, &spec), 1.0, 1e-6);
    clip *baked = NULL;
    CHECK(build_retargeted_clip(walk, &m->skeleton, &copy->skeleton, &spec, &baked, &err));
    if (baked) {
        CHECK(clip_fits_skeleton(baked, &copy->skeleton, "baked", &err));
        CHECK(baked->frame_count == walk->frame_count && baked->frame_rate == walk->frame_rate);
        joint_pose *original = malloc(sizeof *original * (size_t)n), *played = malloc(sizeof *played * (size_t)n);
        double worst = 0.0, worst_turn = 0.0;
        for (int f = 0; f < walk->frame_count; ++f) {
            object_pose(walk, f, original);
            object_pose(baked, f, played);
            for (int k = 0; k < n; ++k) {
                int j = order[k];
                double d = glm_vec3_distance(original[j].position, played[k].position);
                if (d > worst && d > 0.001)
                    printf("    frame %d joint %s: %.4f\n", f, m->skeleton.names[j], d);
                worst = fmax(worst, d);
                /* The same turn from each one's bind pose. */
                versor a, b, inverse;
                glm_quat_inv(m->skeleton.bind_object[j].rotation, inverse);
                glm_quat_mul(original[j].rotation, inverse, a);
                glm_quat_inv(copy->skeleton.bind_object[k].rotation, inverse);
                glm_quat_mul(played[k].rotation, inverse, b);
                worst_turn = fmax(worst_turn, 1.0 - fabs((double)glm_quat_dot(a, b)));
            }
        }
        printf("  renamed copy: worst joint %.3g m, worst turn 1-|dot| %.3g\n", worst, worst_turn);
        CHECK(worst < 0.001);
        CHECK(worst_turn < 1e-6);
        free(original);
        free(played);
        clip_free(baked);
    }
    model_free(copy);
    model_free(m);
    clip_free(walk);
    free(order);
}

/* A body 1.5 times as large in a file with up +Y and forward -Z: the travel is 1.5 times as long and turned
 * into its axes. */
static void test_travel_scales_with_legs_and_axes(void)
{
    model *m = load_model(MANNEQUIN);
    clip *turn = load_clip(TURN);
    CHECK(m && turn);
    if (!m || !turn)
        return;
    int n = m->skeleton.joint_count;
    model *big = calloc(1, sizeof *big);
    big->skeleton = (skeleton){.joint_count = n, .names = m->skeleton.names, .parents = m->skeleton.parents};
    big->skeleton.bind_object = calloc((size_t)n, sizeof *big->skeleton.bind_object);
    /* file (x, y, z) of ours -> (y, z, x)... forward +X becomes -Z, left +Y becomes -X, up +Z becomes +Y. */
    versor to_file;
    mat3 axes = {{0.0f, 0.0f, -1.0f}, {-1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}};
    glm_mat3_quat(axes, to_file);
    for (int j = 0; j < n; ++j) {
        joint_pose *b = &big->skeleton.bind_object[j];
        glm_mat3_mulv(axes, m->skeleton.bind_object[j].position, b->position);
        glm_vec3_scale(b->position, 1.5f, b->position);
        glm_quat_mul(to_file, m->skeleton.bind_object[j].rotation, b->rotation);
    }
    const float up_y[3] = {0.0f, 1.0f, 0.0f}, forward_minus_z[3] = {0.0f, 0.0f, -1.0f};
    retarget_spec spec;
    diag err = {0};
    CHECK(make_spec(m, big, up_y, forward_minus_z, &spec, NULL, &err));
    for (int r = 0; r < RETARGET_ROLE_COUNT; ++r)
        CHECK(spec.target_map.joints[r] == spec.source_map.joints[r]);
    CHECK_NEAR(retarget_travel_scale(&m->skeleton, &big->skeleton, &spec), 1.5, 1e-5);
    clip *baked = NULL;
    CHECK(build_retargeted_clip(turn, &m->skeleton, &big->skeleton, &spec, &baked, &err));
    if (baked) {
        joint_pose *original = malloc(sizeof *original * (size_t)n), *played = malloc(sizeof *played * (size_t)n);
        double worst = 0.0;
        for (int f = 0; f < turn->frame_count; ++f) {
            object_pose(turn, f, original);
            object_pose(baked, f, played);
            for (int j = 0; j < n; ++j) {
                vec3 expected;
                glm_mat3_mulv(axes, original[j].position, expected);
                glm_vec3_scale(expected, 1.5f, expected);
                worst = fmax(worst, glm_vec3_distance(expected, played[j].position));
            }
        }
        printf("  1.5 times larger, other axes: worst joint %.3g units\n", worst);
        CHECK(worst < 0.0015);
        free(original);
        free(played);
        clip_free(baked);
    }
    free(big->skeleton.bind_object);
    free(big);
    model_free(m);
    clip_free(turn);
}

static void test_robot_and_refusals(void)
{
    model *m = load_model(MANNEQUIN), *robot = load_model(ROBOT);
    clip *walk = load_clip(WALK);
    CHECK(m && robot && walk);
    if (!m || !robot || !walk)
        return;
    retarget_map map;
    diag err = {0};
    CHECK(retarget_map_find(robot, up_z, forward_x, NULL, &map, NULL, NULL, &err));
    /* Two roles given one joint. */
    retarget_map given = retarget_map_empty();
    given.joints[RETARGET_FOOT_L] = given.joints[RETARGET_FOOT_R] = skeleton_find_joint(&m->skeleton, "foot.L");
    CHECK(!retarget_map_find(m, up_z, forward_x, &given, &map, NULL, NULL, &err));
    CHECK_STR_CONTAINS(err.message, "'foot.L' is given for two roles, foot.L and foot.R");
    /* A given joint wins over the found one, and the role that had it is left empty. */
    given = retarget_map_empty();
    given.joints[RETARGET_TOE_L] = skeleton_find_joint(&m->skeleton, "foot.L");
    CHECK(!retarget_map_find(m, up_z, forward_x, &given, &map, NULL, NULL, &err));
    CHECK_STR_CONTAINS(err.message, "no foot.L found");
    /* A clip of another skeleton. */
    retarget_spec spec;
    CHECK(make_spec(m, m, up_z, forward_x, &spec, NULL, &err));
    char folder[] = "/tmp/marionette_retarget_XXXXXX";
    CHECK(mkdtemp(folder) != NULL);
    char error[256];
    CHECK(synth_write_creature(folder, error, sizeof error));
    char creature_path[512], creature_clip[512];
    snprintf(creature_path, sizeof creature_path, "%s/creature.md5mesh", folder);
    snprintf(creature_clip, sizeof creature_clip, "%s/creature_idle.md5anim", folder);
    model *creature = load_model(creature_path);
    clip *other = load_clip(creature_clip);
    clip *baked = NULL;
    CHECK(other && !build_retargeted_clip(other, &m->skeleton, &m->skeleton, &spec, &baked, &err));
    CHECK(baked == NULL);
    /* A six-legged creature has no two legs below one joint: one line saying what to name. */
    CHECK(creature && !retarget_map_find(creature, up_z, forward_x, NULL, &map, NULL, NULL, &err));
    CHECK_STR_CONTAINS(err.message, "map.upper_leg.L");
    printf("  creature: %s\n", err.message);
    model_free(creature);
    clip_free(other);
    remove(creature_path);
    remove(creature_clip);
    rmdir(folder);
    model_free(m);
    model_free(robot);
    clip_free(walk);
}

static void test_cache_shares_one_bake(void)
{
    cache *c = cache_create();
    diag err = {0};
    cache_model_handle mannequin = cache_load_model(c, MANNEQUIN, &err, NULL);
    cache_model_handle robot = cache_load_model(c, ROBOT, &err, NULL);
    cache_clip_handle walk = cache_load_clip(c, WALK, mannequin, &err, NULL);
    CHECK(mannequin.id && robot.id && walk.id);
    retarget_spec spec;
    CHECK(make_spec(cache_model(c, mannequin), cache_model(c, robot), up_z, forward_x, &spec, NULL, &err));
    cache_clip_handle a = cache_load_retargeted_clip(c, walk, mannequin, robot, &spec, &err);
    cache_clip_handle b = cache_load_retargeted_clip(c, walk, mannequin, robot, &spec, &err);
    CHECK(a.id != 0 && a.id == b.id);
    CHECK(cache_get_stats(c).retargeted_clips == 1);
    /* Another map is another bake. */
    retarget_spec other = spec;
    other.target_map.joints[RETARGET_HEAD] = -1;
    cache_clip_handle d = cache_load_retargeted_clip(c, walk, mannequin, robot, &other, &err);
    CHECK(d.id != 0 && d.id != a.id && cache_get_stats(c).retargeted_clips == 2);
    /* An additive clip of a retargeted one is made, and kept apart from that of the file's own clip. */
    cache_clip_handle lean = cache_load_additive_clip(c, a, a, 0, &err);
    cache_clip_handle own = cache_load_additive_clip(c, walk, walk, 0, &err);
    CHECK(lean.id != 0 && own.id != 0 && lean.id != own.id);
    /* A retimed copy of a retargeted clip; every kind counts among the clips held (the demo's HUD shows it). */
    cache_clip_handle fast = cache_load_retimed_clip(c, a, 60.0f, &err);
    CHECK(fast.id != 0 && cache_clip(c, fast)->frame_rate == 60.0f &&
          cache_load_retimed_clip(c, a, 60.0f, &err).id == fast.id);
    cache_release_clip(c, fast);
    cache_stats held = cache_get_stats(c);
    CHECK(held.retimed_clips == 1 && held.clips == 1 && held.additive_clips == 2 && held.retargeted_clips == 2 &&
          held.all_clips == 6);
    cache_release_clip(c, fast);
    /* A retargeted clip cannot be retargeted again. */
    CHECK(cache_load_retargeted_clip(c, a, robot, mannequin, &spec, &err).id == 0);
    CHECK_STR_CONTAINS(err.message, "not of a clip read from a file");
    const clip *played = cache_clip(c, a);
    CHECK(played && played->joint_count == cache_model(c, robot)->skeleton.joint_count);
    cache_release_clip(c, a);
    CHECK(cache_get_stats(c).retargeted_clips == 2);
    cache_release_clip(c, b);
    CHECK(cache_get_stats(c).retargeted_clips == 1);
    cache_release_clip(c, d);
    CHECK(cache_get_stats(c).retargeted_clips == 0); /* the additive one holds no user of it */
    CHECK(cache_clip(c, lean) != NULL);
    cache_release_clip(c, lean);
    cache_release_clip(c, own);
    cache_release_clip(c, walk);
    cache_release_model(c, mannequin);
    cache_release_model(c, robot);
    cache_stats stats = cache_get_stats(c);
    CHECK(stats.entries == 0);
    cache_destroy(c);
}

/* boneman (Blender, IK rig: its feet hang from IK targets under the root, not from its shins; helper
 * joints beside the deforming ones), in its file's axes: up +Z, facing -Y. */
static void test_boneman_is_mapped_and_walks(void)
{
    model *m = load_model(BONEMAN "boneman.md5mesh"), *ours = load_model(MANNEQUIN);
    clip *walk = load_clip(WALK);
    CHECK(m && ours && walk);
    if (!m || !ours || !walk)
        return;
    retarget_spec spec;
    retarget_found found[RETARGET_ROLE_COUNT];
    diag err = {0};
    /* Its clips face +X; its bind pose faces -Y (a quarter turn), which the toes tell. */
    CHECK(make_spec(ours, m, up_z, forward_x, &spec, found, &err));
    CHECK(spec.target_bind_forward[1] == -1.0f);
    /* The same map given (as new-character writes it into characters.ini) finds the same facing: the toes
     * decide, not the first way tried (a given map fits every way). */
    float facing[3];
    retarget_map again;
    CHECK(retarget_map_find(m, up_z, forward_x, &spec.target_map, &again, NULL, facing, &err));
    CHECK(facing[0] == 0.0f && facing[1] == -1.0f && memcmp(&again, &spec.target_map, sizeof again) == 0);
    for (int r = 0; r < RETARGET_ROLE_COUNT; ++r)
        printf("  %-12s %s\n", retarget_role_name((retarget_role)r), joint_name(m, &spec.target_map, (retarget_role)r));
    clip *baked = NULL;
    CHECK(build_retargeted_clip(walk, &ours->skeleton, &m->skeleton, &spec, &baked, &err));
    /* The engine finds its feet's contacts in the borrowed walk (low, level, still over the moving floor):
     * what the foot lock and the trace's figures go by. */
    int feet[2] = {skeleton_find_joint(&m->skeleton, "LeftFoot"), skeleton_find_joint(&m->skeleton, "RightFoot")};
    anim_clip entry = {.clip = baked, .import_scale = 0.126687f, .import_axes = anim_axes_canonical(), .loop = true,
                       .root_mode = ANIM_ROOT_IN_PLACE,
                       .ground_speed = 1.4f * retarget_travel_scale(&ours->skeleton, &m->skeleton, &spec)};
    unsigned char *planted = baked ? malloc((size_t)baked->frame_count * 2) : NULL;
    int down[2] = {0, 0};
    if (planted && anim_feet_find_contacts(&entry, &m->skeleton, feet, 2, planted))
        for (int f = 0; f < baked->frame_count; ++f)
            for (int k = 0; k < 2; ++k)
                down[k] += planted[k * baked->frame_count + f];
    printf("  borrowed walk on boneman: LeftFoot planted %d, RightFoot %d of %d frames\n", down[0], down[1],
           baked ? baked->frame_count : 0);
    CHECK(down[0] >= 6 && down[1] >= 6);
    free(planted);
    clip_free(baked);
    model_free(m);
    model_free(ours);
    clip_free(walk);
}

/* A characters.ini of one character [who] on mesh, with extra keys, and a clips.ini of an idle of its own and
 * a walk made for `made_for`, in folder; the load's diags joined into text (one line each). NULL: it loaded. */
static char *load_borrowing(const char *folder, const char *mesh, const char *idle, const char *extra,
                            const char *made_for, const char *walk, char *text, size_t size)
{
    char path[700], body[4096];
    snprintf(path, sizeof path, "%s/characters.ini", folder);
    snprintf(body, sizeof body, "[who]\nmesh = %s\nclips = clips.ini\nstates = states.ini\n%s", mesh, extra);
    test_write_file(path, body);
    snprintf(path, sizeof path, "%s/clips.ini", folder);
    snprintf(body, sizeof body,
             "[idle]\nfile = %s\nloop = true\n\n[walk]\nfile = %s\nskeleton = %s\nloop = true\nspeed = 1.4\n",
             idle, walk, made_for);
    test_write_file(path, body);
    snprintf(path, sizeof path, "%s/states.ini", folder);
    test_write_file(path, "[machine]\nstart = idle\n\n[parameters]\nspeed = number 0\n\n[state idle]\nclip = idle\n\n"
                          "[state walk]\nclip = walk\n\n[idle -> walk]\nwhen = speed > 1\n");
    snprintf(path, sizeof path, "%s/characters.ini", folder);
    cache *c = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(path, c, &errors);
    text[0] = '\0';
    for (int i = 0; i < errors.count; ++i) {
        char line[DIAG_TEXT_MAX];
        diag_format(&errors.items[i], line, sizeof line);
        snprintf(text + strlen(text), size - strlen(text), "%s\n", line);
    }
    bool loaded = config != NULL;
    if (config) {
        const anim_character *who = anim_config_find_character(config, "who");
        int walk_index = who ? anim_config_find_clip(who, "walk") : -1;
        /* The walk is the character's skeleton's, at the source's speed times the legs' ratio. */
        CHECK(walk_index >= 0 && who->clips[walk_index].clip &&
              who->clips[walk_index].clip->joint_count == who->model->skeleton.joint_count);
    }
    anim_config_free(config);
    diag_list_free(&errors);
    cache_destroy(c);
    return loaded ? NULL : text;
}

/* The config's mistakes, each one line at its file:line, and the load refused whole (nothing half-made). */
static void test_config_mistakes(void)
{
    char folder[] = "/tmp/marionette_retarget_config_XXXXXX", text[8192], error[256];
    CHECK(mkdtemp(folder) != NULL);
    CHECK(synth_write_creature(folder, error, sizeof error));
    char creature[600], creature_idle[600];
    snprintf(creature, sizeof creature, "%s/creature.md5mesh", folder);
    snprintf(creature_idle, sizeof creature_idle, "%s/creature_idle.md5anim", folder);
    /* Works: the robot borrowing our walk, a role given. */
    CHECK(load_borrowing(folder, ROBOT, WALK, "map.head = head\n", MANNEQUIN, WALK, text, sizeof text) == NULL);
    if (text[0])
        printf("%s", text);
    /* A role naming a joint the mesh lacks; a role that does not exist; one joint for two roles. */
    CHECK_STR_CONTAINS(load_borrowing(folder, ROBOT, WALK, "map.foot.L = nosuch\n", MANNEQUIN, WALK, text, sizeof text),
                       "characters.ini:5: 'map.foot.L': the skeleton of");
    CHECK_STR_CONTAINS(text, "has no joint 'nosuch'");
    CHECK_STR_CONTAINS(load_borrowing(folder, ROBOT, WALK, "map.tail = hips\n", MANNEQUIN, WALK, text, sizeof text),
                       "characters.ini:5: 'map.tail': no role 'tail'; roles: root hips");
    CHECK_STR_CONTAINS(load_borrowing(folder, ROBOT, WALK, "map.foot.L = foot.L\nmap.foot.R = foot.L\n", MANNEQUIN,
                                      WALK, text, sizeof text),
                       "characters.ini:6: 'map.foot.R': joint 'foot.L' is map.foot.L already (line 5)");
    /* A skeleton with no legs: at its section, saying which keys to give; the clip says where to look. */
    CHECK_STR_CONTAINS(load_borrowing(folder, creature, creature_idle, "", MANNEQUIN, WALK, text, sizeof text),
                       "characters.ini:1: character [who] cannot play clips made for another skeleton: no hips found");
    CHECK_STR_CONTAINS(text, "clips.ini:7: clip [walk]: made for another skeleton, and [who] has no joint map");
    /* A clip that does not fit the skeleton it names: at its file line. */
    CHECK_STR_CONTAINS(load_borrowing(folder, ROBOT, WALK, "", creature, WALK, text, sizeof text),
                       "clips.ini:6: clip [walk]: ");
    CHECK_STR_CONTAINS(text, "skeleton has 23");
    /* The skeleton file missing: at the skeleton line. */
    CHECK_STR_CONTAINS(load_borrowing(folder, ROBOT, WALK, "", "/nonexistent/x.md5mesh", WALK, text, sizeof text),
                       "clips.ini:7: clip [walk]: skeleton: /nonexistent/x.md5mesh");
    static const char *const names[] = {"creature.md5mesh", "creature_idle.md5anim", "characters.ini", "clips.ini",
                                        "states.ini"};
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
        char path[700];
        snprintf(path, sizeof path, "%s/%s", folder, names[i]);
        remove(path);
    }
    rmdir(folder);
}

int main(int argc, char **argv)
{
    test_part part;
    int skip = test_data_start(argc, argv, &part);
    if (skip)
        return skip;
    if (part == TEST_PART_OWN) {
        RUN(test_our_skeleton_is_mapped);
        RUN(test_renamed_reordered_copy_plays_the_same_walk);
        RUN(test_travel_scales_with_legs_and_axes);
        RUN(test_robot_and_refusals);
        RUN(test_cache_shares_one_bake);
        RUN(test_config_mistakes);
    }
    if (part == TEST_PART_BONEMAN)
        RUN(test_boneman_is_mapped_and_walks);
    return check_report();
}
