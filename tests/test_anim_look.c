/* anim_look and characters.ini's look_* keys: the chain found by name and hierarchy, the keys read and
 * every mistake reported at its line, and look-at over time in an animator: the weight fades in for a
 * target within the limits and out for one behind, never jumps, leaves the pose bit for bit alone at 0, and
 * turns a real character's head onto the target without stretching its neck.
 * The part run as `test_anim_look --boneman` does the same on boneman (MARIONETTE_REAL_MD5, test_data.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cglm/cglm.h>

#include "anim/animator.h"
#include "anim/anim_look.h"
#include "anim/config/anim_config.h"
#include "check.h"
#include "test_data.h"
#include "test_files.h"

#define CONFIG MARIONETTE_SOURCE_DIR "/config"
#define DEGREES (GLM_PIf / 180.0f)

static char folder[1024];

static const char *joint_name(const anim_character *character, int joint)
{
    return character->model->skeleton.names[joint];
}

static void test_chain_by_name_and_hierarchy(void)
{
    /* Ours: root, hips, spine.01..03, neck, head, with an arm on spine.03. */
    char *ours_names[] = {"root", "hips", "spine.01", "spine.02", "spine.03", "neck", "head", "clavicle.L"};
    int ours_parents[] = {-1, 0, 1, 2, 3, 4, 5, 4};
    skeleton ours = {.joint_count = 8, .names = ours_names, .parents = ours_parents};
    int joints[POSE_AIM_JOINTS_MAX];
    CHECK(anim_look_find_chain(&ours, joints) == 4);
    CHECK(joints[0] == 6 && joints[1] == 5 && joints[2] == 4 && joints[3] == 3);

    /* Boneman's spelling (UpperNek, LowerNek), a jaw beside the head, and capitals. */
    char *bone_names[] = {"Main", "LowerSpine", "UpperSpine", "LowerNek", "UpperNek", "Jaw", "Head"};
    int bone_parents[] = {-1, 0, 1, 2, 3, 4, 4};
    skeleton bone = {.joint_count = 7, .names = bone_names, .parents = bone_parents};
    CHECK(anim_look_find_chain(&bone, joints) == 4);
    CHECK(joints[0] == 6 && joints[1] == 4 && joints[2] == 3 && joints[3] == 2);

    /* A head straight on the chest: the chain stops at the first joint that is neither neck nor spine. */
    char *short_names[] = {"pelvis", "Chest", "HeadBone", "HeadTop"};
    int short_parents[] = {-1, 0, 1, 2};
    skeleton stubby = {.joint_count = 4, .names = short_names, .parents = short_parents};
    CHECK(anim_look_find_chain(&stubby, joints) == 2);
    CHECK(joints[0] == 2 && joints[1] == 1);

    char *headless_names[] = {"root", "spine", "neck"};
    int headless_parents[] = {-1, 0, 1};
    skeleton headless = {.joint_count = 3, .names = headless_names, .parents = headless_parents};
    CHECK(anim_look_find_chain(&headless, joints) == 0);
}

static void test_default_shares(void)
{
    float shares[POSE_AIM_JOINTS_MAX];
    anim_look_default_shares(4, shares);
    CHECK_NEAR(shares[0], 0.4f, 1e-6);
    CHECK_NEAR(shares[1], 0.3f, 1e-6);
    CHECK_NEAR(shares[2], 0.2f, 1e-6);
    CHECK_NEAR(shares[3], 0.1f, 1e-6);
    anim_look_default_shares(2, shares);
    CHECK_NEAR(shares[0], 2.0f / 3.0f, 1e-6);
    CHECK_NEAR(shares[1], 1.0f / 3.0f, 1e-6);
    anim_look_default_shares(1, shares);
    CHECK(shares[0] == 1.0f);
}

/* The shipped characters: the chain found by name, the documented defaults. */
static void test_shipped_characters(void)
{
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(CONFIG "/characters.ini", cache, &errors);
    test_print_diags(&errors);
    CHECK(config != NULL && errors.total == 0);
    for (int c = 0; c < anim_config_character_count(config); ++c) {
        const anim_character *character = anim_config_character(config, c);
        const pose_aim_chain *chain = &character->look.chain;
        CHECK(chain->joint_count == 4);
        if (chain->joint_count != 4)
            continue;
        CHECK(strcmp(joint_name(character, chain->joints[0]), "head") == 0);
        CHECK(strcmp(joint_name(character, chain->joints[1]), "neck") == 0);
        CHECK(strcmp(joint_name(character, chain->joints[2]), "spine.03") == 0);
        CHECK(strcmp(joint_name(character, chain->joints[3]), "spine.02") == 0);
        float yaw = 0.0f, pitch = 0.0f;
        for (int k = 0; k < 4; ++k) {
            yaw += chain->yaw_limits[k];
            pitch += chain->pitch_limits[k];
        }
        CHECK_NEAR(yaw, ANIM_LOOK_DEFAULT_YAW_DEGREES * DEGREES, 1e-5);
        CHECK_NEAR(pitch, ANIM_LOOK_DEFAULT_PITCH_DEGREES * DEGREES, 1e-5);
        CHECK_NEAR(chain->yaw_limits[0], 0.4f * ANIM_LOOK_DEFAULT_YAW_DEGREES * DEGREES, 1e-5);
        CHECK(character->look.speed == ANIM_LOOK_DEFAULT_SPEED);
        /* Our bodies' joints are not turned in the bind pose: the face looks along +X, up is +Z. */
        CHECK_NEAR(chain->forward[0], 1.0f, 1e-6);
        CHECK_NEAR(chain->up[2], 1.0f, 1e-6);
    }
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
}

/* A characters.ini for the mannequin with `extra` lines in its section, loaded. */
static anim_config *load_with(cache *cache, const char *extra, diag_list *errors, char *path, size_t size)
{
    snprintf(path, size, "%s/characters.ini", folder);
    char text[4096];
    snprintf(text, sizeof text,
             "; test\n[mannequin]\nmesh = %s/assets/models/mannequin.md5mesh\nclips = %s/clips.ini\n"
             "states = %s/states.ini\n%s",
             MARIONETTE_SOURCE_DIR, CONFIG, CONFIG, extra);
    test_write_file(path, text);
    return anim_config_load(path, cache, errors);
}

static void test_keys(void)
{
    cache *cache = cache_create();
    diag_list errors = {0};
    char path[1100];
    anim_config *config = load_with(cache,
                                    "look_chain = head spine.03\nlook_shares = 0.75 0.25\nlook_yaw = 90\n"
                                    "look_pitch = 20\nlook_speed = 2.5\n",
                                    &errors, path, sizeof path);
    test_print_diags(&errors);
    const anim_character *character = anim_config_find_character(config, "mannequin");
    CHECK(character != NULL);
    if (character) {
        const pose_aim_chain *chain = &character->look.chain;
        CHECK(chain->joint_count == 2);
        CHECK(strcmp(joint_name(character, chain->joints[0]), "head") == 0);
        CHECK(strcmp(joint_name(character, chain->joints[1]), "spine.03") == 0);
        CHECK_NEAR(chain->yaw_limits[0], 0.75f * 90.0f * DEGREES, 1e-5);
        CHECK_NEAR(chain->yaw_limits[1], 0.25f * 90.0f * DEGREES, 1e-5);
        CHECK_NEAR(chain->pitch_limits[0], 0.75f * 20.0f * DEGREES, 1e-5);
        CHECK(character->look.speed == 2.5f);
    }
    /* An entity looking when a reload takes its character's look-at away stops looking at once. */
    animator *entity = character ? animator_create(character) : NULL;
    float ahead[3] = {2.0f, 0.3f, 1.6f};
    for (int step = 0; entity && step < 60; ++step) {
        animator_look_at(entity, ahead);
        CHECK(animator_update(entity, 1.0 / 60.0, NULL));
    }
    CHECK(entity && animator_look_weight(entity) == 1.0f);

    anim_config *without = load_with(cache, "look = false\n", &errors, path, sizeof path);
    const anim_character *plain = anim_config_find_character(without, "mannequin");
    CHECK(plain && plain->look.chain.joint_count == 0);
    if (entity && plain) {
        CHECK(animator_rebind(entity, plain, NULL));
        animator_look_at(entity, ahead);
        CHECK(animator_update(entity, 1.0 / 60.0, NULL));
        CHECK(animator_look_weight(entity) == 0.0f);
    }
    animator_destroy(entity);
    anim_config_free(config);
    anim_config_free(without);
    CHECK(errors.total == 0);
    cache_destroy(cache);
    diag_list_free(&errors);
}

/* Each mistake fails the load with one message at its line (line 6: the first line after the section's
 * four). */
static void test_mistakes_at_their_line(void)
{
    static const struct {
        const char *lines;
        int line;
        const char *message;
    } cases[] = {
        {"look_chain = head chin\n", 6, "the skeleton has no joint 'chin'"},
        {"look_chain = neck head\n", 6, "'head' is not an ancestor of 'neck'"},
        {"look_chain = head neck spine.03 spine.02 spine.01\n", 6, "at most 4 joints"},
        {"look_chain = \n", 6, "names no joint"},
        {"look_shares = 0.5 0.2 0.2 0.2\n", 6, "must add up to 1, not 1.1"},
        {"look_shares = 0.5 0.5\n", 6, "gives 2 numbers for the chain's 4 joints"},
        {"look_shares = 0.5 0.5 x 0\n", 6, "'look_shares' must be a number, not 'x'"},
        {"look_shares = 1.5 -0.5 0 0\n", 6, "'look_shares' must be 0 to 1, not 1.5"},
        {"\nlook_yaw = 200\n", 7, "'look_yaw' must be 0 to 170, not 200"},
        {"look_pitch = -1\n", 6, "'look_pitch' must be 0 to 80, not -1"},
        {"look_speed = 0\n", 6, "'look_speed' must be 0.1 to 50, not 0"},
        {"look = maybe\n", 6, "'look' must be true or false, not 'maybe'"},
        {"look_at = head\n", 6, "unknown key 'look_at'"},
    };
    cache *cache = cache_create();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        diag_list errors = {0};
        char path[1100];
        anim_config *config = load_with(cache, cases[i].lines, &errors, path, sizeof path);
        CHECK(config == NULL);
        bool found = false;
        for (int e = 0; e < errors.count; ++e)
            found = found || (errors.items[e].line == cases[i].line && strcmp(errors.items[e].file, path) == 0 &&
                              strstr(errors.items[e].message, cases[i].message));
        if (!found) {
            fprintf(stderr, "expected %s:%d: %s; got:\n", path, cases[i].line, cases[i].message);
            test_print_diags(&errors);
        }
        CHECK(found);
        anim_config_free(config);
        diag_list_free(&errors);
    }
    cache_destroy(cache);
}

static double distance3(const float a[3], const float b[3])
{
    return sqrt((double)(a[0] - b[0]) * (a[0] - b[0]) + (double)(a[1] - b[1]) * (a[1] - b[1]) +
                (double)(a[2] - b[2]) * (a[2] - b[2]));
}

/* Degrees between the head's forward and the line from the head to target. */
static double miss_degrees(const anim_character *character, const joint_pose *object, const float target[3])
{
    const pose_aim_chain *chain = &character->look.chain;
    const joint_pose *head = &object[chain->joints[0]];
    vec3 forward, to_target;
    glm_quat_rotatev((float *)head->rotation, (float *)chain->forward, forward);
    glm_vec3_sub((float *)target, (float *)head->position, to_target);
    glm_vec3_normalize(to_target);
    return acos(fmin(1.0, fmax(-1.0, (double)glm_vec3_dot(forward, to_target)))) / DEGREES;
}

/* A point `metres` from the character's head, `yaw` degrees to its left and `pitch` up, in its object space
 * (the file's axes, through its import). */
static void point_from_head(const anim_character *character, const joint_pose *object, float yaw, float pitch,
                            float metres, float out[3])
{
    float canonical[3] = {cosf(yaw * DEGREES) * cosf(pitch * DEGREES), sinf(yaw * DEGREES) * cosf(pitch * DEGREES),
                          sinf(pitch * DEGREES)}, file[3];
    anim_axes_from_canonical(&character->axes, canonical, file);
    const float *head = object[character->look.chain.joints[0]].position;
    float units = metres / (character->scale > 0.0f ? character->scale : 1.0f);
    for (int k = 0; k < 3; ++k)
        out[k] = head[k] + file[k] * units;
}

/* Two animators of one character in lock step, one looking: it turns to a target in front and to the left,
 * the weight rising smoothly to 1 (never faster than the eased fade allows), the head onto the target and
 * every bone its length; then a target behind: the weight falls smoothly to 0, and from then on the pose
 * is the other animator's bit for bit. */
static void check_look_over_time(const anim_character *character)
{
    animator *looking = animator_create(character), *plain = animator_create(character);
    CHECK(looking && plain && character->look.chain.joint_count > 0);
    if (!looking || !plain || character->look.chain.joint_count == 0) {
        animator_destroy(looking);
        animator_destroy(plain);
        return;
    }
    const skeleton *s = &character->model->skeleton;
    const float dt = 1.0f / 60.0f;
    float previous_weight = 0.0f, largest_step = 0.0f;
    float target[3];
    for (int step = 0; step < 120; ++step) {
        /* From the animated head, so the target stays where the animation would have the head look from. */
        point_from_head(character, anim_controller_object_pose(animator_controller(plain)), 35.0f, 10.0f, 2.0f,
                        target);
        animator_look_at(looking, target);
        CHECK(animator_update(looking, dt, NULL) && animator_update(plain, dt, NULL));
        float weight = animator_look_weight(looking);
        largest_step = fmaxf(largest_step, fabsf(weight - previous_weight));
        previous_weight = weight;
    }
    CHECK(previous_weight == 1.0f);
    /* The eased fade's steepest slope is 1.5 times the linear one. */
    CHECK(largest_step <= 1.5f * character->look.speed * dt + 1e-4f);
    const joint_pose *pose = anim_controller_object_pose(animator_controller(looking));
    const joint_pose *animated = anim_controller_object_pose(animator_controller(plain));
    double miss = miss_degrees(character, pose, target);
    printf("  %s: head %.2f degrees off a target 35 left, 10 up (%.1f before turning)\n", character->name, miss,
           miss_degrees(character, animated, target));
    CHECK(miss < 1.0);
    for (int j = 1; j < s->joint_count; ++j)
        CHECK_NEAR(distance3(pose[j].position, pose[s->parents[j]].position),
                   distance3(animated[j].position, animated[s->parents[j]].position), 1e-4 / character->scale);

    float behind[3];
    largest_step = 0.0f;
    int steps_to_zero = -1;
    for (int step = 0; step < 120; ++step) {
        point_from_head(character, anim_controller_object_pose(animator_controller(plain)), 170.0f, 0.0f, 2.0f,
                        behind);
        animator_look_at(looking, behind);
        CHECK(animator_update(looking, dt, NULL) && animator_update(plain, dt, NULL));
        float weight = animator_look_weight(looking);
        largest_step = fmaxf(largest_step, fabsf(weight - previous_weight));
        previous_weight = weight;
        if (weight == 0.0f && steps_to_zero < 0)
            steps_to_zero = step + 1;
    }
    CHECK(largest_step <= 1.5f * character->look.speed * dt + 1e-4f);
    CHECK(steps_to_zero > 0 && steps_to_zero <= (int)ceilf(1.0f / (character->look.speed * dt)) + 1);
    CHECK(memcmp(anim_controller_object_pose(animator_controller(looking)),
                 anim_controller_object_pose(animator_controller(plain)),
                 (size_t)s->joint_count * sizeof(joint_pose)) == 0);
    float where[3];
    CHECK(animator_look_target(looking, where) && memcmp(where, behind, sizeof where) == 0); /* out of reach */
    animator_look_at(looking, NULL);
    CHECK(animator_update(looking, dt, NULL));
    CHECK(!animator_look_target(looking, where));
    animator_destroy(looking);
    animator_destroy(plain);
}

static void test_look_over_time(void)
{
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(CONFIG "/characters.ini", cache, &errors);
    CHECK(config != NULL);
    for (int c = 0; c < anim_config_character_count(config); ++c)
        check_look_over_time(anim_config_character(config, c));
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
}

/* ---- boneman (MARIONETTE_REAL_MD5) ---- */

/* Boneman stands up +Z and faces -Y (its knees' pole targets are in front of it, at -Y). */
static void test_boneman(void)
{
    char path[1100], clips[1100], states[1100];
    snprintf(path, sizeof path, "%s/characters.ini", folder);
    snprintf(clips, sizeof clips, "%s/boneman_clips.ini", folder);
    snprintf(states, sizeof states, "%s/boneman_states.ini", folder);
    char text[4096];
    snprintf(text, sizeof text, "[idle]\nfile = %sboneman_idle.md5anim\nloop = true\n", BONEMAN);
    test_write_file(clips, text);
    test_write_file(states, "[machine]\nstart = idle\n[state idle]\nclip = idle\n");
    snprintf(text, sizeof text,
             "[boneman]\nmesh = %sboneman.md5mesh\nclips = boneman_clips.ini\nstates = boneman_states.ini\n"
             "height = 1.8\nup = +Z\nforward = -Y\n",
             BONEMAN);
    test_write_file(path, text);
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(path, cache, &errors);
    test_print_diags(&errors);
    const anim_character *boneman = anim_config_find_character(config, "boneman");
    CHECK(boneman != NULL);
    if (boneman) {
        const pose_aim_chain *chain = &boneman->look.chain;
        CHECK(chain->joint_count == 4);
        const char *expected[] = {"Head", "UpperNek", "LowerNek", "UpperSpine"};
        for (int k = 0; k < chain->joint_count && k < 4; ++k)
            CHECK(strcmp(joint_name(boneman, chain->joints[k]), expected[k]) == 0);
        check_look_over_time(boneman);
    }
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
}

int main(int argc, char **argv)
{
    test_part part;
    int skip = test_data_start(argc, argv, &part);
    if (skip)
        return skip;
    if (!test_make_temp_folder(folder, sizeof folder, part == TEST_PART_BONEMAN ? "anim_look_boneman" : "anim_look")) {
        fprintf(stderr, "test_anim_look: cannot make a folder for its files\n");
        return 1;
    }
    if (part == TEST_PART_OWN) {
        RUN(test_chain_by_name_and_hierarchy);
        RUN(test_default_shares);
        RUN(test_shipped_characters);
        RUN(test_keys);
        RUN(test_mistakes_at_their_line);
        RUN(test_look_over_time);
    }
    if (part == TEST_PART_BONEMAN)
        RUN(test_boneman);
    return check_report();
}
