/* A character's import (characters.ini scale or height, up, forward): md5tool convert makes Doom-scale
 * variants of our mannequin and its clips in other axes, and loaded with `height = 1.8` and their axes
 * they stand, pose, move and report speeds exactly as the original scaled to 1.8 m. Mistakes in the keys
 * are reported at their lines, and a character of an implausible height is warned about, not refused.
 * The `skinning` key beside them: its words, and its mistakes at their lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "anim/config/anim_config.h"
#include "anim/animator.h"
#include "build/loader.h"
#include "check.h"
#include "pose/pose.h"
#include "test_files.h"

#define ASSETS MARIONETTE_SOURCE_DIR "/assets"
static const double DOOM_UNITS_PER_METRE = 39.37;

static bool is_identity(const mat4 m)
{
    for (int column = 0; column < 4; ++column)
        for (int row = 0; row < 4; ++row)
            if (m[column][row] != (column == row ? 1.0f : 0.0f))
                return false;
    return true;
}

static bool run_md5tool(const char *arguments)
{
    char command[4096];
    snprintf(command, sizeof command, "'%s' %s", MARIONETTE_MD5TOOL, arguments);
    return system(command) == 0;
}

/* The skinned vertices of a character's pose (object pose given), moved by its import into canonical
 * metres. Returns a malloc'ed array of the model's first mesh's vertex_count points. */
static float (*skinned_imported(const anim_character *character, const joint_pose *object))[3]
{
    const model *m = character->model;
    const skin_mesh *mesh = &m->meshes[0];
    mat4 *palette = malloc((size_t)m->skeleton.joint_count * sizeof *palette);
    float (*points)[3] = malloc((size_t)mesh->vertex_count * sizeof *points);
    float (*normals)[3] = malloc((size_t)mesh->vertex_count * sizeof *normals);
    bool skinned = palette && points && normals &&
                   pose_palette(object, (const mat4 *)m->skeleton.inverse_bind, m->skeleton.joint_count, palette) &&
                   pose_skin_cpu(mesh, (const mat4 *)palette, m->skeleton.joint_count, points, normals);
    CHECK(skinned);
    free(normals);
    if (!skinned) {
        free(palette);
        free(points);
        return NULL;
    }
    for (int v = 0; v < mesh->vertex_count; ++v) {
        vec4 point = {points[v][0], points[v][1], points[v][2], 1.0f}, moved;
        glm_mat4_mulv((vec4 *)character->import, point, moved);
        glm_vec3_copy(moved, points[v]);
    }
    free(palette);
    return points;
}

/* The largest distance between corresponding vertices, the original's scaled by `scale`. */
static double largest_difference(float (*converted)[3], float (*original)[3], int count, double scale)
{
    double largest = 0.0;
    for (int v = 0; v < count; ++v) {
        double d2 = 0.0;
        for (int k = 0; k < 3; ++k) {
            double d = converted[v][k] - original[v][k] * scale;
            d2 += d * d;
        }
        largest = fmax(largest, sqrt(d2));
    }
    return largest;
}

static double lowest_up(float (*points)[3], int count)
{
    double low = INFINITY;
    for (int v = 0; v < count; ++v)
        low = fmin(low, points[v][2]);
    return low;
}

/* One variant: the mannequin, walk and walk_root_motion converted to Doom units in these axes. */
static void check_converted_variant(const char *up, const char *forward)
{
    char folder[512], mesh[600], walk[600], walk_root[600], characters[600], clips_original[600], clips_doom[600],
        states[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, "import"));
    CHECK(test_paths_in(folder, sizeof mesh, mesh, "doom.md5mesh", walk, "walk.md5anim", walk_root,
                        "walk_root_motion.md5anim", characters, "characters.ini", clips_original, "clips_original.ini",
                        clips_doom, "clips_doom.ini", states, "states.ini", NULL));
    char arguments[2048];
    const char *sources[] = {ASSETS "/models/mannequin.md5mesh", ASSETS "/clips/walk.md5anim",
                             ASSETS "/clips/walk_root_motion.md5anim"};
    const char *targets[] = {mesh, walk, walk_root};
    for (int i = 0; i < 3; ++i) {
        snprintf(arguments, sizeof arguments, "convert '%s' '%s' --scale %g --up %s --forward %s", sources[i],
                 targets[i], DOOM_UNITS_PER_METRE, up, forward);
        CHECK(run_md5tool(arguments));
    }
    char text[4096];
    snprintf(text, sizeof text,
             "[original]\nmesh = %s/models/mannequin.md5mesh\nclips = clips_original.ini\nstates = states.ini\n\n"
             "[doom]\nmesh = doom.md5mesh\nclips = clips_doom.ini\nstates = states.ini\nheight = 1.8\nup = %s\n"
             "forward = %s\n",
             ASSETS, up, forward);
    test_write_file(characters, text);
    /* The same clips; speeds in each file's units per second. */
    snprintf(text, sizeof text,
             "[walk]\nfile = %s/clips/walk.md5anim\nloop = true\nspeed = 1.4\n"
             "[walk_root_motion]\nfile = %s/clips/walk_root_motion.md5anim\nloop = true\nspeed = 1.4\n"
             "root_motion = true\n",
             ASSETS, ASSETS);
    test_write_file(clips_original, text);
    snprintf(text, sizeof text,
             "[walk]\nfile = walk.md5anim\nloop = true\nspeed = %.6f\n"
             "[walk_root_motion]\nfile = walk_root_motion.md5anim\nloop = true\nspeed = %.6f\nroot_motion = true\n",
             1.4 * DOOM_UNITS_PER_METRE, 1.4 * DOOM_UNITS_PER_METRE);
    test_write_file(clips_doom, text);
    test_write_file(states, "[machine]\nstart = walk\n[parameters]\nspeed = number\n"
                            "[state walk]\nclip = walk\nrate_from = speed\n"
                            "[state glide]\nclip = walk_root_motion\nmoved_by = clip\n"
                            "[walk -> glide]\nwhen = speed > 10\nfade = 0\n");

    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(characters, cache, &errors);
    test_print_diags(&errors);
    CHECK(config != NULL);
    CHECK(errors.total == 0);
    const anim_character *original = anim_config_find_character(config, "original");
    const anim_character *doom = anim_config_find_character(config, "doom");
    CHECK(original && doom);
    if (!original || !doom) {
        anim_config_free(config);
        cache_destroy(cache);
        diag_list_free(&errors);
        return;
    }
    /* The original needs no import; the variant is scaled to stand 1.8 m tall. */
    CHECK(original->scale == 1.0f);
    CHECK(is_identity(original->import));
    CHECK(original->height_m > 1.5f && original->height_m < 2.1f);
    double shrink = 1.8 / original->height_m; /* the doom variant, imported, is the original times this */
    CHECK_NEAR(doom->height_m, 1.8, 1e-3);
    CHECK_NEAR(doom->scale, shrink / DOOM_UNITS_PER_METRE, shrink / DOOM_UNITS_PER_METRE * 1e-4);
    CHECK_NEAR(doom->scale * DOOM_UNITS_PER_METRE, 1.0, 0.05);
    printf("  up %s forward %s: original %.4f m tall; doom scale %.6f (1/%.3f), %.4f m tall\n", up, forward,
           (double)original->height_m, (double)doom->scale, 1.0 / doom->scale, (double)doom->height_m);

    /* The rotation takes the file's forward to +X and its up to +Z. */
    int up_axis, up_sign, forward_axis, forward_sign;
    CHECK(anim_axis_parse(up, &up_axis, &up_sign) && anim_axis_parse(forward, &forward_axis, &forward_sign));
    vec4 file_up = {0}, file_forward = {0}, turned;
    file_up[up_axis] = (float)up_sign;
    file_forward[forward_axis] = (float)forward_sign;
    glm_mat4_mulv((vec4 *)doom->rotation, file_up, turned);
    CHECK(turned[0] == 0.0f && turned[1] == 0.0f && turned[2] == 1.0f);
    glm_mat4_mulv((vec4 *)doom->rotation, file_forward, turned);
    CHECK(turned[0] == 1.0f && turned[1] == 0.0f && turned[2] == 0.0f);

    /* Bind pose and a sampled pose: the imported variant's vertices are the original's times shrink. */
    int count = original->model->meshes[0].vertex_count;
    CHECK(doom->model->meshes[0].vertex_count == count);
    int joints = original->model->skeleton.joint_count;
    joint_pose *local = malloc((size_t)joints * sizeof *local), *object = malloc((size_t)joints * sizeof *object);
    float (*a)[3] = skinned_imported(doom, doom->model->skeleton.bind_object);
    float (*b)[3] = skinned_imported(original, original->model->skeleton.bind_object);
    CHECK(a && b && local && object);
    if (a && b) {
        double bind_difference = largest_difference(a, b, count, shrink);
        CHECK(bind_difference < 1e-3);
        /* Feet on the ground: the lowest point is where the original's is (on the floor). */
        CHECK_NEAR(lowest_up(a, count), lowest_up(b, count) * shrink, 1e-3);
        CHECK(fabs(lowest_up(a, count)) < 0.01);
        printf("  bind pose: largest difference %.2g m, lowest point %.4f m\n", bind_difference, lowest_up(a, count));
    }
    free(a);
    free(b);
    int walk_doom = anim_config_find_clip(doom, "walk"), walk_original = anim_config_find_clip(original, "walk");
    if (local && object && walk_doom >= 0 && walk_original >= 0) {
        pose_sample(doom->clips[walk_doom].clip, 0.37f, true, local);
        pose_to_object(doom->model->skeleton.parents, joints, local, object);
        a = skinned_imported(doom, object);
        pose_sample(original->clips[walk_original].clip, 0.37f, true, local);
        pose_to_object(original->model->skeleton.parents, joints, local, object);
        b = skinned_imported(original, object);
        double sampled_difference = a && b ? largest_difference(a, b, count, shrink) : INFINITY;
        CHECK(sampled_difference < 1e-3);
        printf("  walk at 0.37 s: largest difference %.2g m\n", sampled_difference);
        free(a);
        free(b);
    }

    /* Played by the animator: the in-place walk keeps its height in the file's axes (the floor of a Y-up
     * file is X and Z), rate_from plays both at the same rate for the same speed in m/s, and root motion
     * comes out in metres along +X. */
    int walking = state_machine_find_state(&doom->machine, "walk");
    CHECK(walking >= 0);
    if (walking >= 0)
        CHECK_NEAR(doom->machine.states[walking].rate_reference, 1.4 * shrink, 1e-4);
    animator *players[2] = {animator_create(original), animator_create(doom)};
    CHECK(players[0] && players[1]);
    float speeds[] = {1.0f, 20.0f}; /* walk in place at 1 m/s, then glide with root motion */
    for (int phase = 0; phase < 2 && players[0] && players[1]; ++phase) {
        animator_update_result results[2];
        for (int p = 0; p < 2; ++p)
            animator_set_number(players[p], "speed", speeds[phase]);
        for (int step = 0; step < 20; ++step)
            for (int p = 0; p < 2; ++p)
                animator_update(players[p], 1.0 / 60.0, &results[p]);
        CHECK(strcmp(animator_state_name(players[1]), phase == 0 ? "walk" : "glide") == 0);
        float (*poses[2])[3];
        for (int p = 0; p < 2; ++p)
            poses[p] = skinned_imported(p == 0 ? original : doom,
                                        anim_controller_object_pose(animator_controller(players[p])));
        double played_difference = poses[0] && poses[1] ? largest_difference(poses[1], poses[0], count, shrink)
                                                         : INFINITY;
        CHECK(played_difference < 1e-3);
        for (int k = 0; k < 3; ++k)
            CHECK_NEAR(results[1].animation.translation[k], results[0].animation.translation[k] * shrink, 1e-5);
        CHECK_NEAR(results[1].animation.yaw, results[0].animation.yaw, 1e-5);
        if (phase == 1)
            CHECK(results[0].animation.translation[0] > 0.005f); /* root motion really moved it forward */
        printf("  played (%s): largest difference %.2g m, root motion %.5f m vs %.5f m\n",
               phase == 0 ? "walk in place" : "root motion", played_difference,
               (double)results[1].animation.translation[0], (double)results[0].animation.translation[0]);
        free(poses[0]);
        free(poses[1]);
    }
    animator_destroy(players[0]);
    animator_destroy(players[1]);
    free(local);
    free(object);
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
}

static void test_converted_mannequin_matches_the_original(void)
{
    check_converted_variant("+Y", "+Z");
    check_converted_variant("-x", "y"); /* lowercase, unsigned, and negative axes */
}

/* Load a characters.ini of `text` (mannequin paths filled in) and return what it reported. */
static anim_config *load_text(const char *text, cache *cache, diag_list *errors, char *path, size_t size)
{
    char folder[512], clips[600], states[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, "import_keys"));
    CHECK(test_paths_in(folder, size, path, "characters.ini", NULL));
    CHECK(test_paths_in(folder, sizeof clips, clips, "clips.ini", states, "states.ini", NULL));
    test_write_file(path, text);
    test_write_file(clips, "[idle]\nfile = " ASSETS "/clips/idle.md5anim\nloop = true\n");
    test_write_file(states, "[machine]\nstart = idle\n[state idle]\nclip = idle\n");
    return anim_config_load(path, cache, errors);
}

#define CHARACTER(NAME) "[" NAME "]\nmesh = " ASSETS "/models/mannequin.md5mesh\nclips = clips.ini\nstates = states.ini\n"

static void check_message(const diag_list *errors, int index, const char *path, int line, const char *message)
{
    CHECK(index < errors->count);
    if (index >= errors->count)
        return;
    CHECK(strcmp(errors->items[index].file, path) == 0);
    CHECK(errors->items[index].line == line);
    CHECK(strcmp(errors->items[index].message, message) == 0);
    if (errors->items[index].line != line || strcmp(errors->items[index].message, message) != 0)
        fprintf(stderr, "  expected %d: %s\n  found    %d: %s\n", line, message, errors->items[index].line,
                errors->items[index].message);
}

static void test_import_keys_are_checked_at_their_lines(void)
{
    cache *cache = cache_create();
    char path[600];
    diag_list errors = {0};
    /* Lines: 1 [a] .. 4 states, 5 height, 6 scale; 7 [b] .. 10, 11 scale, 12 [c] .. 15, 16 height, 17 [d] ..
     * 20, 21 up, 22 forward, 23 [e] .. 26, 27 up, 28 [f] .. 31, 32 forward, 33 up, 34 [g] .. 37, 38 scale. */
    anim_config *config = load_text(CHARACTER("a") "height = 1.8\nscale = 2\n" CHARACTER("b") "scale = 0\n"
                                    CHARACTER("c") "height = 200\n" CHARACTER("d") "up = +Y\nforward = -y\n"
                                    CHARACTER("e") "up = w\n" CHARACTER("f") "forward = +Z\nup = Z\n"
                                    CHARACTER("g") "scale = 1m\n",
                                    cache, &errors, path, sizeof path);
    CHECK(config == NULL);
    CHECK(errors.count == 7);
    test_print_diags(&errors);
    check_message(&errors, 0, path, 6, "character [a] has both 'scale' and 'height': give one (height sets the scale)");
    check_message(&errors, 1, path, 11, "'scale' must be 0.0001 to 10000, not 0");
    check_message(&errors, 2, path, 16, "'height' must be 0.05 to 100, not 200");
    check_message(&errors, 3, path, 22, "'forward' (-Y) must be perpendicular to 'up' (+Y)");
    check_message(&errors, 4, path, 27, "'up' must be one of +X -X +Y -Y +Z -Z, not 'w'");
    check_message(&errors, 5, path, 32, "'forward' (+Z) must be perpendicular to 'up' (+Z)");
    check_message(&errors, 6, path, 38, "'scale' must be a number, not '1m'");
    anim_config_free(config);
    diag_list_clear(&errors);

    /* Every accepted spelling; and the defaults are the canonical axes, scale 1. */
    config = load_text(CHARACTER("plain") CHARACTER("spelled") "up = z\nforward = X\nscale = 1\n"
                       CHARACTER("y_up") "up = y\nforward = -x\nscale = 0.5\n",
                       cache, &errors, path, sizeof path);
    test_print_diags(&errors);
    CHECK(config != NULL);
    CHECK(errors.total == 0);
    const anim_character *plain = anim_config_find_character(config, "plain");
    const anim_character *spelled = anim_config_find_character(config, "spelled");
    const anim_character *y_up = anim_config_find_character(config, "y_up");
    CHECK(plain && spelled && y_up);
    if (plain && spelled && y_up) {
        CHECK(plain->scale == 1.0f && is_identity(plain->import));
        CHECK(is_identity(spelled->import));
        /* up +Y, forward -X: left = up x forward = +Z; canonical (x, y, z) = (-x, z, y) of the file. */
        CHECK(y_up->axes.from[0] == 0 && y_up->axes.sign[0] == -1);
        CHECK(y_up->axes.from[1] == 2 && y_up->axes.sign[1] == 1);
        CHECK(y_up->axes.from[2] == 1 && y_up->axes.sign[2] == 1);
        CHECK(y_up->import[0][0] == -0.5f && y_up->import[2][1] == 0.5f && y_up->import[1][2] == 0.5f);
        CHECK_NEAR(glm_mat4_det((vec4 *)y_up->rotation), 1.0, 0.0); /* a turn, never a mirror */
    }
    anim_config_free(config);
    diag_list_free(&errors);
    cache_destroy(cache);
}

/* characters.ini's `skinning`, beside the import keys: linear unless it says dual_quaternion, any other word
 * an error at its line; the shipped file skins the robot with dual quaternions. */
static void test_skinning_key(void)
{
    cache *cache = cache_create();
    char path[600];
    diag_list errors = {0};
    /* Lines: 1 [a] .. 4 states, 5 skinning; 6 [b] .. 9, 10 skinning; 11 [c] .. 14, 15 skinning. */
    anim_config *config = load_text(CHARACTER("a") "skinning = dq\n" CHARACTER("b") "skinning = linear\n"
                                    CHARACTER("c") "skinning = Dual_Quaternion\n",
                                    cache, &errors, path, sizeof path);
    CHECK(config == NULL);
    CHECK(errors.count == 2);
    test_print_diags(&errors);
    check_message(&errors, 0, path, 5, "'skinning' must be linear or dual_quaternion, not 'dq'");
    check_message(&errors, 1, path, 15, "'skinning' must be linear or dual_quaternion, not 'Dual_Quaternion'");
    diag_list_clear(&errors);

    config = load_text(CHARACTER("plain") CHARACTER("linear") "skinning = linear\n" CHARACTER("dual")
                       "skinning = dual_quaternion\n", cache, &errors, path, sizeof path);
    CHECK(config != NULL && errors.total == 0);
    const anim_character *plain = anim_config_find_character(config, "plain");
    const anim_character *linear = anim_config_find_character(config, "linear");
    const anim_character *dual = anim_config_find_character(config, "dual");
    CHECK(plain && plain->skinning == POSE_SKINNING_LINEAR);
    CHECK(linear && linear->skinning == POSE_SKINNING_LINEAR);
    CHECK(dual && dual->skinning == POSE_SKINNING_DUAL_QUATERNION);
    anim_config_free(config);

    config = anim_config_load(MARIONETTE_SOURCE_DIR "/config/characters.ini", cache, &errors);
    CHECK(config != NULL);
    const anim_character *robot = anim_config_find_character(config, "robot");
    const anim_character *mannequin = anim_config_find_character(config, "mannequin");
    CHECK(robot && robot->skinning == POSE_SKINNING_DUAL_QUATERNION);
    CHECK(mannequin && mannequin->skinning == POSE_SKINNING_LINEAR);
    anim_config_free(config);
    diag_list_free(&errors);
    cache_destroy(cache);
}

/* The foot lock's keys (characters.ini foot_lock, foot_lock_release, foot_lock_reach, foot_ik): each mistake
 * at its line with its range; given, they reach the character; left out, the lock is on with its defaults
 * and foot IK off. */
static void test_foot_lock_keys(void)
{
    cache *cache = cache_create();
    char path[600];
    diag_list errors = {0};
    /* Lines: 1 [a] .. 4, 5 foot_lock; 6 [b] .. 9, 10 release; 11 [c] .. 14, 15 reach, 16 release, 17 ik. */
    anim_config *config = load_text(CHARACTER("a") "foot_lock = yes\n" CHARACTER("b") "foot_lock_release = 2\n"
                                    CHARACTER("c") "foot_lock_reach = 0\nfoot_lock_release = nan\nfoot_ik = maybe\n",
                                    cache, &errors, path, sizeof path);
    test_print_diags(&errors);
    CHECK(config == NULL);
    CHECK(errors.count == 5);
    check_message(&errors, 0, path, 5, "'foot_lock' must be true or false, not 'yes'");
    check_message(&errors, 1, path, 10, "'foot_lock_release' must be 0.01 to 1, not 2");
    check_message(&errors, 2, path, 15, "'foot_lock_reach' must be 0.01 to 2, not 0");
    check_message(&errors, 3, path, 16, "'foot_lock_release' must be a number, not 'nan'");
    check_message(&errors, 4, path, 17, "'foot_ik' must be true or false, not 'maybe'");
    anim_config_free(config);
    diag_list_clear(&errors);

    config = load_text(CHARACTER("plain") CHARACTER("off") "foot_lock = false\nfoot_ik = true\n" CHARACTER("tuned")
                       "foot_lock_release = 0.3\nfoot_lock_reach = 0.5\n",
                       cache, &errors, path, sizeof path);
    test_print_diags(&errors);
    CHECK(config != NULL && errors.total == 0);
    const anim_character *plain = config ? anim_config_find_character(config, "plain") : NULL;
    const anim_character *off = config ? anim_config_find_character(config, "off") : NULL;
    const anim_character *tuned = config ? anim_config_find_character(config, "tuned") : NULL;
    CHECK(plain && off && tuned);
    if (plain && off && tuned) {
        CHECK(plain->foot_lock.enabled && plain->foot_lock.release_seconds == ANIM_FOOT_LOCK_RELEASE_DEFAULT &&
              plain->foot_lock.reach == ANIM_FOOT_LOCK_REACH_DEFAULT);
        CHECK(!plain->foot_lock.ik && !tuned->foot_lock.ik);
        CHECK(!off->foot_lock.enabled && off->foot_lock.ik);
        CHECK(tuned->foot_lock.enabled && tuned->foot_lock.release_seconds == 0.3f && tuned->foot_lock.reach == 0.5f);
    }
    anim_config_free(config);
    diag_list_free(&errors);
    cache_destroy(cache);
}

/* characters.ini `legs`: hip knee ankle per leg, each joint the parent of the next; given, they are the
 * character's legs (the order it gives); left out, found by name; every mistake at its line. */
static void test_legs_key(void)
{
    cache *cache = cache_create();
    char path[600];
    diag_list errors = {0};
    /* Lines: 1 [a] .. 4, 5 legs; 6 [b] .. 9, 10; 11 [c] .. 14, 15; 16 [d] .. 19, 20; 21 [e] .. 24, 25; [f] 30. */
    anim_config *config = load_text(CHARACTER("a") "legs = thigh.L shin.L\n" CHARACTER("b") "legs = thigh.L shin.L toe.L\n"
                                    CHARACTER("c") "legs = thigh.L shin.L knee.L\n"
                                    CHARACTER("d") "legs = thigh.L shin.L foot.L thigh.R shin.R foot.R thigh.L shin.L foot.L\n"
                                    CHARACTER("e") "legs = thigh.L shin.L foot.L thigh.L shin.L foot.L\n"
                                    CHARACTER("f") "legs = thigh.L shin.L hand.L\n",
                                    cache, &errors, path, sizeof path);
    test_print_diags(&errors);
    CHECK(config == NULL);
    CHECK(errors.count == 6);
    /* A joint outside the leg is taken for a foot on an IK target only beyond the knee: not a hand. */
    check_message(&errors, 5, path, 30,
                  "'legs': 'thigh.L shin.L hand.L' is not a hip, its child and its grandchild (each joint the parent "
                  "of the next), nor a hip, its child and a foot beyond the knee that hangs outside the leg (from an "
                  "IK target)");
    /* The same leg twice (it was accepted, and two solves bent one knee each step). */
    check_message(&errors, 4, path, 25, "'legs': joint 'thigh.L' is in two legs; each leg needs joints of its own");
    check_message(&errors, 0, path, 5, "'legs' names 3 joints per leg (hip knee ankle), not 2");
    check_message(&errors, 1, path, 10,
                  "'legs': 'thigh.L shin.L toe.L' is not a hip, its child and its grandchild (each joint the parent "
                  "of the next), nor a hip, its child and a foot beyond the knee that hangs outside the leg (from an "
                  "IK target)");
    check_message(&errors, 2, path, 15, "'legs': the skeleton has no joint 'knee.L'");
    check_message(&errors, 3, path, 20, "'legs' names at most 2 legs of 3 joints (hip knee ankle)");
    anim_config_free(config);
    diag_list_clear(&errors);

    config = load_text(CHARACTER("found") CHARACTER("right_first") "legs = thigh.R shin.R foot.R thigh.L shin.L foot.L\n"
                       CHARACTER("one") "legs = thigh.L shin.L foot.L\n",
                       cache, &errors, path, sizeof path);
    test_print_diags(&errors);
    CHECK(config != NULL && errors.total == 0);
    const anim_character *found = config ? anim_config_find_character(config, "found") : NULL;
    const anim_character *right_first = config ? anim_config_find_character(config, "right_first") : NULL;
    const anim_character *one = config ? anim_config_find_character(config, "one") : NULL;
    CHECK(found && right_first && one);
    if (found && right_first && one) {
        const skeleton *s = &found->model->skeleton;
        CHECK(found->leg_count == 2 && strcmp(s->names[found->legs[0].ankle], "foot.L") == 0 &&
              strcmp(s->names[found->legs[1].ankle], "foot.R") == 0);
        CHECK(right_first->leg_count == 2 && right_first->legs[0].ankle == found->legs[1].ankle &&
              right_first->legs[0].knee == found->legs[1].knee && right_first->legs[0].hip == found->legs[1].hip &&
              right_first->legs[1].ankle == found->legs[0].ankle);
        CHECK(one->leg_count == 1 && one->legs[0].ankle == found->legs[0].ankle);
        /* The pelvis the foot IK lowers, found once at load: the hips both thighs hang from; for one leg,
         * its thigh's parent. */
        CHECK(found->pelvis >= 0 && strcmp(s->names[found->pelvis], "hips") == 0 && right_first->pelvis == found->pelvis);
        CHECK(one->pelvis == anim_foot_lock_pelvis(s, one->legs, 1) && one->pelvis == found->pelvis);
        /* The contacts follow the legs given: the one-legged character's left foot plants as the found one's. */
        int idle = anim_config_find_clip(one, "idle");
        CHECK(idle >= 0);
        if (idle >= 0) {
            const anim_clip *a = &one->clips[idle], *b = &found->clips[anim_config_find_clip(found, "idle")];
            CHECK(a->planted && b->planted && memcmp(a->planted, b->planted, (size_t)a->clip->frame_count) == 0);
        }
    }
    anim_config_free(config);
    diag_list_free(&errors);
    cache_destroy(cache);
}

static void test_implausible_height_is_a_warning(void)
{
    cache *cache = cache_create();
    char path[600];
    diag_list errors = {0};
    /* Lines: 1 [person] .. 4; 5 [giant] .. 8, 9 scale; 10 [doll] .. 13, 14 scale. */
    anim_config *config = load_text(CHARACTER("person") CHARACTER("giant") "scale = 33.4\n"
                                    CHARACTER("doll") "scale = 0.1\n",
                                    cache, &errors, path, sizeof path);
    CHECK(config != NULL); /* still loads and plays */
    CHECK(anim_config_warning_count(config) == 2);
    CHECK(errors.count == 2);
    const anim_character *person = anim_config_find_character(config, "person");
    const anim_character *giant = anim_config_find_character(config, "giant");
    CHECK(person && giant && anim_config_find_character(config, "doll"));
    if (person && giant) {
        double height = person->height_m; /* file units: the mannequin is in metres */
        CHECK_NEAR(giant->height_m, 33.4 * height, 1e-3);
        char expected[DIAG_MESSAGE_MAX];
        snprintf(expected, sizeof expected,
                 "warning: character 'giant' stands %.3g m tall (bind pose); scale = %.3g would make it 1.8 m",
                 33.4 * height, 1.8 / height);
        check_message(&errors, 0, path, 5, expected);
        snprintf(expected, sizeof expected,
                 "warning: character 'doll' stands %.3g m tall (bind pose); scale = %.3g would make it 1.8 m", 0.1 * height,
                 1.8 / height);
        check_message(&errors, 1, path, 10, expected);
        char line[DIAG_TEXT_MAX];
        diag_format(&errors.items[0], line, sizeof line);
        printf("  %s\n", line);
        /* 60.2 m for the example in characters.ini: the numbers as the message rounds them. */
        CHECK_STR_CONTAINS(line, "stands 60.");
    }
    anim_config_free(config);
    diag_list_free(&errors);
    cache_destroy(cache);
}

/* md5tool convert: a malformed input is reported at its line and leaves no output; axes that are not
 * perpendicular are a usage error. */
static void test_convert_refuses_bad_input(void)
{
    char folder[512], bad[600], out[600], messages[600], command[4096];
    CHECK(test_make_temp_folder(folder, sizeof folder, "convert"));
    CHECK(test_paths_in(folder, sizeof bad, bad, "bad.md5mesh", out, "out.md5mesh", messages, "messages.txt", NULL));
    test_write_file(bad, "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 0\n"
                         "joints {\n\t\"root\" -1 ( 0 0 0 ) ( 0 0 x )\n}\n");
    snprintf(command, sizeof command, "'%s' convert '%s' '%s' --scale 2 2> '%s'", MARIONETTE_MD5TOOL, bad, out,
             messages);
    int status = system(command);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    char *text = test_read_file(messages, NULL);
    char expected[1400];
    snprintf(expected, sizeof expected, "md5tool convert: %s:6: expected a number, found 'x'\n", bad);
    CHECK(text && strcmp(text, expected) == 0);
    if (text && strcmp(text, expected) != 0)
        fprintf(stderr, "  said: %s", text);
    free(text);
    CHECK(access(out, F_OK) != 0);

    snprintf(command, sizeof command, "'%s' convert '%s' '%s' --up +Y --forward -y 2> '%s'", MARIONETTE_MD5TOOL,
             ASSETS "/models/mannequin.md5mesh", out, messages);
    status = system(command);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    text = test_read_file(messages, NULL);
    CHECK_STR_CONTAINS(text, "--forward -y must be perpendicular to --up +Y");
    free(text);
    CHECK(access(out, F_OK) != 0);
}

/* md5tool convert never loses a file: IN == OUT with a mistake leaves the file as it was (it was deleted: the
 * output was opened over the input and removed on failure); IN == OUT that converts replaces it; a write that
 * fails (a file size limit, as a full disk looks) says why in one line and leaves the old output; and a scale
 * that takes the file past the reader's limits is refused, not written for `md5tool check` to refuse. */
static void test_convert_never_loses_a_file(void)
{
    char folder[512], bad[600], good[600], out[600], far[600], messages[600], command[4096];
    CHECK(test_make_temp_folder(folder, sizeof folder, "convert_safe"));
    CHECK(test_paths_in(folder, sizeof bad, bad, "bad.md5mesh", good, "good.md5mesh", out, "out.md5mesh", far,
                        "far.md5anim", messages, "messages.txt", NULL));
    static const char broken[] = "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 0\n"
                                 "joints {\n\t\"root\" -1 ( 0 0 0 ) ( 0 0 x )\n}\n";
    test_write_file(bad, broken);
    snprintf(command, sizeof command, "'%s' convert '%s' '%s' --scale 2 2> '%s'", MARIONETTE_MD5TOOL, bad, bad,
             messages);
    int status = system(command);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    char *text = test_read_file(bad, NULL);
    CHECK(text && strcmp(text, broken) == 0);
    free(text);

    /* In place. */
    char *mannequin = test_read_file(ASSETS "/models/mannequin.md5mesh", NULL);
    test_write_file(good, mannequin ? mannequin : "");
    snprintf(command, sizeof command, "'%s' convert '%s' '%s' --scale 2 2> '%s'", MARIONETTE_MD5TOOL, good, good,
             messages);
    status = system(command);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    text = test_read_file(good, NULL);
    CHECK(text && mannequin && strcmp(text, mannequin) != 0 && strstr(text, "md5tool convert --scale 2"));
    free(text);

    /* A write that fails: the shell's file size limit (512-byte blocks) is far below the mesh's size. */
    test_write_file(out, "the old output\n");
    snprintf(command, sizeof command, "ulimit -f 8 && trap '' XFSZ && '%s' convert '%s' '%s' --scale 2 2> '%s'",
             MARIONETTE_MD5TOOL, ASSETS "/models/mannequin.md5mesh", out, messages);
    status = system(command);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    text = test_read_file(messages, NULL);
    CHECK_STR_CONTAINS(text, "out.md5mesh: cannot write: File too large; the file is left as it was");
    CHECK(text && strchr(text, '\n') == text + strlen(text) - 1); /* one line */
    free(text);
    text = test_read_file(out, NULL);
    CHECK(text && strcmp(text, "the old output\n") == 0);
    free(text);

    /* A clip valid as written (joints 2e26 from the origin) that --scale 10000 takes past the reader's 1e30. */
    test_write_file(far, "MD5Version 10\ncommandline \"\"\nnumFrames 2\nnumJoints 1\nframeRate 24\n"
                         "numAnimatedComponents 0\nhierarchy {\n\t\"root\" -1 0 0\n}\nbounds {\n\t( 0 0 0 ) ( 1 1 1 )\n"
                         "\t( 0 0 0 ) ( 1 1 1 )\n}\nbaseframe {\n\t( 2e26 0 0 ) ( 0 0 0 )\n}\nframe 0 {\n}\nframe 1 {\n}\n");
    char far_out[600];
    CHECK(test_paths_in(folder, sizeof far_out, far_out, "far_out.md5anim", NULL));
    clip *input = NULL;
    diag error;
    CHECK(loader_load_clip(far, &input, &error, NULL)); /* the input itself is fine to the reader */
    clip_free(input);
    snprintf(command, sizeof command, "'%s' convert '%s' '%s' --scale 10000 2> '%s'", MARIONETTE_MD5TOOL, far,
             far_out, messages);
    status = system(command);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    text = test_read_file(messages, NULL);
    CHECK_STR_CONTAINS(text, "the converted file would be refused");
    free(text);
    CHECK(access(far_out, F_OK) != 0);
    free(mannequin);
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    CHECK(system(command) == 0);
}

int main(void)
{
    RUN(test_converted_mannequin_matches_the_original);
    RUN(test_import_keys_are_checked_at_their_lines);
    RUN(test_skinning_key);
    RUN(test_foot_lock_keys);
    RUN(test_legs_key);
    RUN(test_implausible_height_is_a_warning);
    RUN(test_convert_refuses_bad_input);
    RUN(test_convert_never_loses_a_file);
    return check_report();
}
