/* Blend spaces as the demo plays them: the shipped locomotion blend (config/states.ini) loads sorted and
 * synced; at a clip's point the controller shows that clip bit for bit; sweeping the point moves the pose
 * continuously and the weights always sum to 1; the blend's ground speed is each clip's own at its point;
 * an animator follows the speed parameter, keeps the idle on its own clock, allocates nothing per update and
 * carries on through a hot reload without a jump; the additive `lean` blend rests at turn_rate 0 (the walk
 * bit for bit) and leans the trunk into the turn otherwise; a rest's weights in 1D and 2D; a prepared blend
 * (anim_blend_prepare, as the loader leaves every blend) gives the same bits as the same blend made by hand;
 * every mistake in a [blend NAME] section is one line at file:line. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "anim/config/anim_config.h"
#include "anim/animator.h"
#include "animator_fixture.h"
#include "check.h"
#include "pose/pose.h"
#include "heap_counter.h"
#include "test_files.h"

#define CHARACTERS MARIONETTE_SOURCE_DIR "/config/characters.ini"
#define CLIPS MARIONETTE_SOURCE_DIR "/config/clips.ini"
#define MANNEQUIN MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh"

static anim_config *load(cache *c)
{
    diag_list errors = {0};
    anim_config *config = anim_config_load(CHARACTERS, c, &errors);
    test_print_diags(&errors);
    CHECK(config != NULL && errors.total == 0);
    diag_list_free(&errors);
    return config;
}

static const anim_blend *locomotion_of(const anim_character *character)
{
    int index = anim_config_find_blend(character, "locomotion");
    CHECK(index >= 0);
    return index >= 0 ? &character->blends[index] : NULL;
}

/* The largest angle (degrees) between the joint rotations of two poses. */
static double largest_angle(const joint_pose *a, const joint_pose *b, int count)
{
    double largest = 0.0;
    for (int i = 0; i < count; ++i) {
        double dot = 0.0;
        for (int k = 0; k < 4; ++k)
            dot += (double)a[i].rotation[k] * b[i].rotation[k];
        double angle = 2.0 * acos(fmin(1.0, fabs(dot))) * 180.0 / GLM_PI;
        largest = fmax(largest, angle);
    }
    return largest;
}

static void test_shipped_blend_loads(void)
{
    cache *c = cache_create();
    anim_config *config = load(c);
    const anim_character *mannequin = config ? anim_config_find_character(config, "mannequin") : NULL;
    const anim_blend *blend = mannequin ? locomotion_of(mannequin) : NULL;
    if (blend) {
        CHECK(blend->dimensions == 1 && blend->count == 3 && blend->loop && !blend->additive);
        const char *order[] = {"idle", "walk", "run"};
        const float at[] = {0.0f, 1.4f, 3.5f};
        for (int i = 0; i < 3; ++i)
            CHECK(strcmp(blend->clips[i]->name, order[i]) == 0 && blend->points[i][0] == at[i]);
        CHECK(blend->parameters[0] == state_machine_find_parameter(&mannequin->machine, "speed") &&
              blend->parameters[1] == -1);
        CHECK(blend->sync_group >= 0 && strcmp(mannequin->sync_group_names[blend->sync_group], "locomotion") == 0);
        CHECK(anim_blend_valid(blend));
        CHECK(!anim_blend_clip_in_phase(blend, 0) && anim_blend_clip_in_phase(blend, 1) &&
              anim_blend_clip_in_phase(blend, 2));
        CHECK(anim_blend_clips_in_phase(blend) == 6u); /* walk and run */
        /* Ground speed: each clip's own at its point; 0 standing; in between, the blended stride over the
         * blended cycle. */
        float weights[ANIM_BLEND_MAX_CLIPS];
        float speeds[] = {0.0f, 0.7f, 1.4f, 2.45f, 3.5f, 5.0f};
        for (int i = 0; i < 6; ++i) {
            float point[2] = {speeds[i], 0.0f};
            anim_blend_weights(blend, point, weights);
            CHECK_NEAR(weights[0] + weights[1] + weights[2], 1.0, 1e-6);
            float ground = anim_blend_ground_speed(blend, weights);
            printf("  speed %.2f m/s: weights %.3f %.3f %.3f, cycle %.3f s, ground speed %.4f m/s\n", speeds[i],
                   weights[0], weights[1], weights[2], anim_blend_duration(blend, weights), ground);
            if (i == 0)
                CHECK(ground == 0.0f);
            else if (speeds[i] <= 1.4f)
                CHECK_NEAR(ground, speeds[i], 1e-5); /* the idle holds no stride and no cycle of the walk's */
            else if (speeds[i] >= 3.5f)
                CHECK_NEAR(ground, 3.5, 1e-5);
            else
                CHECK(ground > 1.4f && ground < 3.5f);
        }
    }
    anim_config_free(config);
    cache_destroy(c);
}

/* At walk's point the blend is the walk, bit for bit; sweeping the point at a fixed phase moves every joint
 * continuously. */
static void test_blend_pose(void)
{
    cache *c = cache_create();
    anim_config *config = load(c);
    const anim_character *mannequin = config ? anim_config_find_character(config, "mannequin") : NULL;
    const anim_blend *blend = mannequin ? locomotion_of(mannequin) : NULL;
    if (!blend) {
        anim_config_free(config);
        cache_destroy(c);
        return;
    }
    const skeleton *s = &mannequin->model->skeleton;
    anim_controller_desc desc = {.skeleton = s};
    anim_controller *blended = anim_controller_create(&desc), *plain = anim_controller_create(&desc);
    const anim_clip *walk = &mannequin->clips[anim_config_find_clip(mannequin, "walk")];
    float at_walk[2] = {1.4f, 0.0f};
    CHECK(anim_controller_play_blend(blended, 0, blend, at_walk, 0.0f, NULL));
    CHECK(anim_controller_play(plain, 0, walk, 0.0f, NULL));
    for (int i = 0; i < 20; ++i) {
        CHECK(anim_controller_update(blended, 1.0 / 60.0, NULL) && anim_controller_update(plain, 1.0 / 60.0, NULL));
        CHECK(memcmp(anim_controller_object_pose(blended), anim_controller_object_pose(plain),
                     sizeof(joint_pose) * (size_t)s->joint_count) == 0);
    }
    anim_layer_info info;
    CHECK(anim_controller_layer(blended, 0, 0, &info) && info.blend == blend && info.clip == walk);

    /* Sweep 0 -> 4 m/s in 1 cm/s steps without moving time: no joint turns more than a degree a step. */
    joint_pose before[128], after[128];
    int count = s->joint_count < 128 ? s->joint_count : 128;
    double worst = 0.0;
    float point[2] = {0.0f, 0.0f};
    CHECK(anim_controller_set_blend_point(blended, 0, blend, point));
    CHECK(anim_controller_local_pose(blended, before));
    for (int step = 1; step <= 400; ++step) {
        point[0] = step * 0.01f;
        CHECK(anim_controller_set_blend_point(blended, 0, blend, point));
        CHECK(anim_controller_local_pose(blended, after));
        worst = fmax(worst, largest_angle(before, after, count));
        memcpy(before, after, sizeof before);
        float weights[ANIM_BLEND_MAX_CLIPS], together[ANIM_BLEND_MAX_CLIPS];
        CHECK(anim_controller_layer_blend_weights(blended, 0, 0, weights) == 3);
        CHECK_NEAR(weights[0] + weights[1] + weights[2], 1.0, 1e-6);
        /* The one-call query gives what the two separate ones give, but for a blend's lead clip and time,
         * which it leaves out. */
        anim_layer_info alone, both;
        CHECK(anim_controller_layer(blended, 0, 0, &alone));
        CHECK(anim_controller_layer_weighted(blended, 0, 0, &both, together) == 3);
        CHECK(memcmp(weights, together, 3 * sizeof weights[0]) == 0);
        CHECK(alone.clip != NULL && both.clip == NULL && both.time == 0.0);
        CHECK(both.blend == alone.blend && both.weight == alone.weight && both.cycles == alone.cycles &&
              both.speed == alone.speed && both.fade == alone.fade && both.finished == alone.finished);
        for (int k = 0; k < 3; ++k)
            CHECK(weights[k] >= 0.0f && isfinite(weights[k]));
    }
    printf("  sweeping the speed 0 -> 4 m/s by 1 cm/s: a joint turns at most %.3f degrees a step\n", worst);
    CHECK(worst < 1.0);
    /* A clip layer has no blend weights; a layer that is not there, nothing at all. */
    anim_layer_info info_plain;
    float untouched[ANIM_BLEND_MAX_CLIPS] = {-1.0f};
    CHECK(anim_controller_layer_weighted(plain, 0, 0, &info_plain, untouched) == 0 && untouched[0] == -1.0f);
    CHECK(info_plain.clip != NULL && info_plain.blend == NULL);
    CHECK(anim_controller_layer_weighted(plain, 0, 5, &info_plain, untouched) == -1);
    CHECK(anim_controller_layer_weighted(plain, 7, 0, &info_plain, untouched) == -1);
    /* Bad arguments change nothing. */
    float nan_point[2] = {NAN, 0.0f};
    CHECK(!anim_controller_set_blend_point(blended, 0, blend, nan_point));
    CHECK(!anim_controller_play_blend(blended, 0, blend, nan_point, 0.0f, NULL));
    CHECK(!anim_controller_play_blend(blended, 0, NULL, point, 0.0f, NULL));
    anim_controller_destroy(blended);
    anim_controller_destroy(plain);
    anim_config_free(config);
    cache_destroy(c);
}

/* An animator in the locomotion state follows the speed: walk's weight is speed / 1.4 up to the walk; the
 * idle keeps its own clock while the walk's phase runs; updates allocate nothing; a reload in the middle of
 * the blend keeps the pose bit for bit. */
static void test_animator_follows_the_speed(void)
{
    fixture shipped;
    bool opened = fixture_open(&shipped, CHARACTERS);
    CHECK(shipped.diagnostics == 0);
    if (!opened) {
        fixture_close(&shipped);
        return;
    }
    cache *c = shipped.cache;
    const anim_character *mannequin = shipped.character;
    animator *a = shipped.animator;
    CHECK(strcmp(animator_state_name(a), "locomotion") == 0);
    long before = heap_calls;
    float weights[ANIM_BLEND_MAX_CLIPS];
    for (int step = 0; step <= 200; ++step) {
        float speed = 3.5f * step / 200.0f;
        CHECK(animator_set_number(a, "speed", speed));
        CHECK(animator_update(a, 1.0 / 60.0, NULL));
        const anim_controller *controller = animator_controller(a);
        int top = anim_controller_layer_count(controller, 0) - 1;
        CHECK(anim_controller_layer_blend_weights(controller, 0, top, weights) == 3);
        if (speed <= 1.4f)
            CHECK_NEAR(weights[1], speed / 1.4f, 1e-5);
        else
            CHECK_NEAR(weights[2], (speed - 1.4f) / 2.1f, 1e-5);
    }
    CHECK(heap_calls == before);
    printf("  animator bytes with the blend playing: %zu (%d joints)\n", animator_bytes(a),
           mannequin->model->skeleton.joint_count);
    CHECK(animator_bytes(a) <= 4096);

    /* Half walk, half run, mid-cycle: reload and compare the next poses with an animator left alone. */
    CHECK(animator_set_number(a, "speed", 2.45f));
    CHECK(animator_update(a, 0.37, NULL));
    animator *control = animator_create(mannequin);
    CHECK(animator_set_number(control, "speed", 2.45f));
    /* The control reaches the same place the same way. */
    for (int step = 0; step <= 200; ++step) {
        CHECK(animator_set_number(control, "speed", 3.5f * step / 200.0f));
        CHECK(animator_update(control, 1.0 / 60.0, NULL));
    }
    CHECK(animator_set_number(control, "speed", 2.45f));
    CHECK(animator_update(control, 0.37, NULL));
    anim_config *again = load(c);
    const anim_character *reloaded = again ? anim_config_find_character(again, "mannequin") : NULL;
    bool kept = false;
    CHECK(reloaded && animator_rebind(a, reloaded, &kept) && kept);
    int joints = mannequin->model->skeleton.joint_count;
    for (int i = 0; i < 10; ++i) {
        CHECK(animator_update(a, 1.0 / 60.0, NULL) && animator_update(control, 1.0 / 60.0, NULL));
        CHECK(memcmp(anim_controller_object_pose(animator_controller(a)),
                     anim_controller_object_pose(animator_controller(control)),
                     sizeof(joint_pose) * (size_t)joints) == 0);
    }
    animator_destroy(control);
    anim_config_free(again);
    fixture_close(&shipped);
}

/* The step's pose reuses each blend layer's weights from the step's advance (anim_controller.c keeps them
 * for evaluating the pose, shifted when faded-out layers are dropped); the inspection call works them out
 * afresh. Through crossfades between the 1D locomotion blend and the 2D strafe blend (layers dropped as
 * fades end), with the lean blend and the breath on the overlay, the two give the same pose bit for bit. */
static void test_step_weights_match_fresh_weights(void)
{
    fixture shipped;
    bool opened = fixture_open(&shipped, CHARACTERS);
    CHECK(shipped.diagnostics == 0);
    const anim_character *mannequin = shipped.character;
    animator *a = shipped.animator;
    int same = 0, steps = 0, most_layers = 0;
    for (int step = 0; opened && step < 600; ++step) {
        bool strafe = (step / 90) % 2 == 1;
        CHECK(animator_set_number(a, "speed", 0.4f + 2.5f * (float)((step / 40) % 3) / 2.0f));
        animator_set_number(a, "turn_rate", (float)((step / 25) % 5 - 2) * 40.0f);
        animator_set_number(a, "forward", strafe ? 1.0f : 0.0f);
        animator_set_number(a, "left", strafe ? (float)((step / 30) % 3 - 1) * 1.2f : 0.0f);
        animator_set_bool(a, "strafe", strafe);
        CHECK(animator_update(a, 1.0 / 60.0, NULL));
        const anim_controller *controller = animator_controller(a);
        const skeleton *s = &mannequin->model->skeleton;
        joint_pose local[64], object[64];
        CHECK(s->joint_count <= 64 && anim_controller_local_pose(controller, local));
        CHECK(pose_to_object(s->parents, s->joint_count, local, object));
        size_t bytes = sizeof(joint_pose) * (size_t)s->joint_count;
        same += memcmp(object, anim_controller_object_pose(controller), bytes) == 0;
        int layers = anim_controller_layer_count(controller, 0);
        most_layers = layers > most_layers ? layers : most_layers;
        ++steps;
    }
    printf("  %d steps through blend crossfades (up to %d body layers): %d poses the same from the step's weights\n",
           steps, most_layers, same);
    CHECK(same == steps && most_layers >= 2);
    fixture_close(&shipped);
}

/* How far the trunk leans sideways, in degrees: the angle of spine.01 -> neck, in object space (Z up, +Y the
 * character's left), from upright; positive: to the left. */
static double trunk_roll(const skeleton *s, const joint_pose *object)
{
    int spine = -1, neck = -1;
    for (int i = 0; i < s->joint_count; ++i) {
        spine = strcmp(s->names[i], "spine.01") == 0 ? i : spine;
        neck = strcmp(s->names[i], "neck") == 0 ? i : neck;
    }
    if (spine < 0 || neck < 0)
        return NAN;
    double dy = object[neck].position[1] - object[spine].position[1];
    double dz = object[neck].position[2] - object[spine].position[2];
    return atan2(dy, dz) * 180.0 / GLM_PI;
}

/* The shipped `lean` blend (config/states.ini): lean_right and lean_left, additive one-shots, over turn_rate.
 * Added from spine.01 over a walk: at turn_rate 0 the rest has all the weight (every joint within 0.5 degree
 * of the walk alone, the whole time, also once the leans would hold their full lean); at 90 (turning left) the trunk
 * rolls left by about the clips' 15 degrees, at -90 as far right, at 45 about half as far left. */
static void test_lean_blend(void)
{
    cache *c = cache_create();
    anim_config *config = load(c);
    const anim_character *mannequin = config ? anim_config_find_character(config, "mannequin") : NULL;
    int index = mannequin ? anim_config_find_blend(mannequin, "lean") : -1;
    CHECK(index >= 0);
    if (index < 0) {
        anim_config_free(config);
        cache_destroy(c);
        return;
    }
    const anim_blend *lean = &mannequin->blends[index];
    CHECK(lean->dimensions == 1 && lean->count == 2 && lean->additive && !lean->loop);
    CHECK(strcmp(lean->clips[0]->name, "lean_right") == 0 && lean->points[0][0] == -90.0f);
    CHECK(strcmp(lean->clips[1]->name, "lean_left") == 0 && lean->points[1][0] == 90.0f);
    CHECK(lean->has_rest && lean->rest[0] == 0.0f && anim_blend_valid(lean));
    /* The rest takes its share: none of either lean going straight, half of one at 45 degrees a second. */
    float weights[ANIM_BLEND_MAX_CLIPS], previous[2] = {1.0f, 0.0f};
    for (float rate = -120.0f; rate <= 120.0f; rate += 0.5f) {
        anim_blend_weights(lean, (float[2]){rate, 0.0f}, weights);
        float expected_left = rate > 0.0f ? fminf(rate / 90.0f, 1.0f) : 0.0f;
        float expected_right = rate < 0.0f ? fminf(-rate / 90.0f, 1.0f) : 0.0f;
        CHECK_NEAR(weights[1], expected_left, 1e-6);
        CHECK_NEAR(weights[0], expected_right, 1e-6);
        CHECK(fabsf(weights[0] - previous[0]) <= 0.5f / 90.0f + 1e-6f &&
              fabsf(weights[1] - previous[1]) <= 0.5f / 90.0f + 1e-6f);
        previous[0] = weights[0];
        previous[1] = weights[1];
    }
    int turn_rate = state_machine_find_parameter(&mannequin->machine, "turn_rate");
    CHECK(turn_rate >= 0 && lean->parameters[0] == turn_rate);

    const skeleton *s = &mannequin->model->skeleton;
    const anim_clip *walk = &mannequin->clips[anim_config_find_clip(mannequin, "walk")];
    anim_controller_desc desc = {.skeleton = s};
    const float rates[] = {0.0f, 90.0f, -90.0f, 45.0f};
    double rolls[4] = {0};
    for (int r = 0; r < 4; ++r) {
        anim_controller *plain = anim_controller_create(&desc), *leaning = anim_controller_create(&desc);
        float point[2] = {rates[r], 0.0f};
        CHECK(anim_controller_play(plain, 0, walk, 0.0f, NULL) && anim_controller_play(leaning, 0, walk, 0.0f, NULL));
        CHECK(anim_controller_mask_branch(leaning, 1, "spine.01", 1.0f));
        CHECK(anim_controller_play_blend(leaning, 1, lean, point, 0.0f, NULL));
        double worst = 0.0, roll = 0.0;
        for (int step = 0; step < 60; ++step) {
            CHECK(anim_controller_update(plain, 1.0 / 60.0, NULL) && anim_controller_update(leaning, 1.0 / 60.0, NULL));
            const joint_pose *with = anim_controller_object_pose(leaning);
            const joint_pose *without = anim_controller_object_pose(plain);
            worst = fmax(worst, largest_angle(with, without, s->joint_count));
            roll = trunk_roll(s, with) - trunk_roll(s, without); /* the last: the lean held, 0.5 s on */
        }
        rolls[r] = roll;
        printf("  lean blend at turn_rate %g: trunk roll %+.2f degrees, a joint differs from the walk by up to %.2f\n",
               (double)rates[r], roll, worst);
        /* At the rest the lean adds nothing at all: the walk, bit for bit (largest_angle reads a few
         * hundredths of a degree even then: acos near 1 of a float dot product). */
        if (r == 0)
            CHECK(memcmp(anim_controller_object_pose(leaning), anim_controller_object_pose(plain),
                         sizeof(joint_pose) * (size_t)s->joint_count) == 0);
        anim_controller_destroy(plain);
        anim_controller_destroy(leaning);
    }
    CHECK(rolls[0] == 0.0);
    CHECK(rolls[1] > 8.0 && rolls[1] < 20.0);
    CHECK_NEAR(rolls[2], -rolls[1], 1.0);
    CHECK(rolls[3] > 0.35 * rolls[1] && rolls[3] < 0.65 * rolls[1]);
    anim_config_free(config);
    cache_destroy(c);
}

/* Each mistake of a [blend NAME] section: the line it is reported at, and words of the message. */
/* Every shipped blend (1D, 2D, with a rest) comes prepared from the loader, and what it derives changes no
 * result: weights, duration, ground speed and phase, bit for bit against a copy that is not prepared, over
 * a sweep of points past both ends of every axis (and a NaN, which reads as 0). */
static void test_prepared_blends_match(void)
{
    cache *c = cache_create();
    anim_config *config = load(c);
    const anim_character *mannequin = config ? anim_config_find_character(config, "mannequin") : NULL;
    int checked = 0, with_rest = 0, planes = 0;
    for (int b = 0; mannequin && b < mannequin->blend_count; ++b) {
        const anim_blend *prepared = &mannequin->blends[b];
        if (prepared->count == 0)
            continue;
        CHECK(prepared->prepared);
        anim_blend by_hand = *prepared;
        by_hand.prepared = false;
        memset(&by_hand.derived, 0xff, sizeof by_hand.derived); /* not to be read */
        unsigned in_phase = anim_blend_clips_in_phase(prepared);
        CHECK(in_phase == anim_blend_clips_in_phase(&by_hand) && in_phase >> prepared->count == 0);
        for (int i = 0; i < prepared->count; ++i) {
            CHECK(anim_blend_clip_in_phase(prepared, i) == anim_blend_clip_in_phase(&by_hand, i));
            CHECK(anim_blend_clip_in_phase(prepared, i) == (bool)((in_phase >> i) & 1u));
        }
        for (int step = -1; step <= 40; ++step) {
            for (int across = 0; across <= (prepared->dimensions == 2 ? 40 : 0); ++across) {
                float point[2] = {step < 0 ? NAN : -6.0f + 0.3f * (float)step, -6.0f + 0.3f * (float)across};
                float a[ANIM_BLEND_MAX_CLIPS] = {0}, h[ANIM_BLEND_MAX_CLIPS] = {0};
                anim_blend_weights(prepared, point, a);
                anim_blend_weights(&by_hand, point, h);
                CHECK(memcmp(a, h, sizeof(float) * (size_t)prepared->count) == 0);
                double duration_a = anim_blend_duration(prepared, a), duration_h = anim_blend_duration(&by_hand, h);
                CHECK(memcmp(&duration_a, &duration_h, sizeof duration_a) == 0);
                float speed_a = anim_blend_ground_speed(prepared, a), speed_h = anim_blend_ground_speed(&by_hand, h);
                CHECK(memcmp(&speed_a, &speed_h, sizeof speed_a) == 0);
                ++checked;
            }
        }
        with_rest += prepared->has_rest;
        planes += prepared->dimensions == 2;
    }
    CHECK(checked > 1000 && with_rest >= 1 && planes >= 1); /* the sweep reached each kind */
    anim_config_free(config);
    cache_destroy(c);
}

static void test_blend_mistakes(void)
{
    static const char machine[] = "[machine]\nstart = s\n[parameters]\nspeed = number 0\nside = number 0\n"
                                  "flag = bool false\n";
    static const struct {
        const char *blend; /* after `machine`, from line 7 */
        int line;
        const char *words;
    } cases[] = {
        {"[blend b]\nclip.walk = 1\n", 7, "has no 'parameters'"},
        {"[blend b]\nparameters = flag\nclip.walk = 1\n", 8, "must be number parameters; 'flag'"},
        {"[blend b]\nparameters = speed side extra\nclip.walk = 1\n", 8, "one number parameter"},
        {"[blend b]\nparameters = speed\nclip.nothing = 1\n", 9, "unknown clip 'nothing'"},
        {"[blend b]\nparameters = speed\nclip.walk = 1 2\n", 9, "needs one position (X)"},
        {"[blend b]\nparameters = speed side\nclip.walk = 1\n", 9, "needs a point (X Y)"},
        {"[blend b]\nparameters = speed\nclip.walk = 2000\n", 9, "-1000 to 1000"},
        {"[blend b]\nparameters = speed\nclip.walk = 0x10\n", 9, "must be a number"},
        {"[blend b]\nparameters = speed\nclip.walk = 1\nclip.run = 1\n", 7, "are both at 1"},
        {"[blend b]\nparameters = speed side\nclip.walk = 1 1\nclip.run = 1 1\n", 7, "the same point"},
        {"[blend b]\nparameters = speed\nclip.walk = 1\nclip.jump = 2\n", 7, "mixes a cycle and a one-shot"},
        {"[blend b]\nparameters = speed\n", 7, "has no clips"},
        {"[blend walk]\nparameters = speed\nclip.run = 1\n", 7, "has the name of a clip"},
        {"[blend b]\nparameters = speed\nsample = 1\n", 9, "sample"},
        {"[blend b]\nparameters = speed\nclip.lean_left = 0\nclip.walk = 1\n", 7, "mixes"},
        {"[blend b]\nparameters = speed\nclip.walk = 1\nrest = 0\n", 10, "only an additive blend has a rest"},
        {"[blend b]\nparameters = speed\nclip.lean_left = 1\nclip.lean_right = -1\nrest = 1\n", 11,
         "the rest (1) is at a clip's point"},
        {"[blend b]\nparameters = speed\nclip.lean_left = 1\nrest = 0 0\n", 10, "rest must be one position"},
        {"[blend b]\nparameters = speed side\nclip.lean_left = 1 0\nrest = 0 nan\n", 10, "rest must be a point"},
        {"[blend b]\nparameters = speed\nclip.lean_left = 1\nrest = 5000\n", 10, "-1000 to 1000"},
    };
    char folder[512], path[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, "blend_mistakes"));
    snprintf(path, sizeof path, "%s/states.ini", folder);
    cache *c = cache_create();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        char text[1024];
        snprintf(text, sizeof text, "%s%s[state s]\nclip = b\n", machine, cases[i].blend);
        test_write_file(path, text);
        diag_list errors = {0};
        anim_config *config = anim_config_load_character("mannequin", MANNEQUIN, CLIPS, path, c, &errors);
        CHECK(config == NULL && errors.count >= 1);
        char where[640];
        snprintf(where, sizeof where, "states.ini:%d: ", cases[i].line);
        bool found = false;
        for (int e = 0; e < errors.count; ++e)
            found = found || (strstr(errors.items[e].message, cases[i].words) && strstr(errors.items[e].message, where)) ||
                    (errors.items[e].line == cases[i].line && strstr(errors.items[e].message, cases[i].words));
        if (!found) {
            fprintf(stderr, "  case %zu: expected line %d with \"%s\"; got:\n", i, cases[i].line, cases[i].words);
            test_print_diags(&errors);
        }
        CHECK(found);
        anim_config_free(config);
        diag_list_free(&errors);
    }
    /* loop on a blend state, and a blend that is fine. */
    char text[1024];
    snprintf(text, sizeof text, "%s[blend b]\nparameters = speed\nclip.walk = 1.4\nclip.run = 3.5\n[state s]\nclip = b\n"
             "loop = false\n", machine);
    test_write_file(path, text);
    diag_list errors = {0};
    anim_config *config = anim_config_load_character("mannequin", MANNEQUIN, CLIPS, path, c, &errors);
    CHECK(config == NULL && errors.count == 1 && errors.items[0].line == 13 &&
          strstr(errors.items[0].message, "loop does not apply to blend 'b'"));
    diag_list_free(&errors);
    snprintf(text, sizeof text, "%s[blend b]\nparameters = speed side\nclip.walk = 1.4 0\nclip.walk_left = 0 1.4\n"
             "clip.idle = 0 0\n[state s]\nclip = b\nrate_from = speed\n", machine);
    test_write_file(path, text);
    config = anim_config_load_character("mannequin", MANNEQUIN, CLIPS, path, c, &errors);
    test_print_diags(&errors);
    CHECK(config != NULL && errors.count == 0);
    const anim_character *character = config ? anim_config_character(config, 0) : NULL;
    CHECK(character && character->blend_count == 1 && character->blends[0].dimensions == 2 &&
          character->machine.states[0].blend == 0);
    anim_config_free(config);
    diag_list_free(&errors);
    cache_destroy(c);
}

/* A 2D additive blend with its rest at the centre of four clips: nothing at the rest, each clip alone at
 * its point, the clips' weights never above 1 in sum, and continuous (gradient bands with one more point). */
static void test_rest_in_2d(void)
{
    anim_blend blend = {.dimensions = 2, .count = 4, .additive = true, .has_rest = true,
                        .points = {{1.0f, 0.0f}, {-1.0f, 0.0f}, {0.0f, 1.0f}, {0.0f, -1.0f}}};
    float weights[ANIM_BLEND_MAX_CLIPS], previous = 0.0f;
    anim_blend_weights(&blend, (float[2]){0.0f, 0.0f}, weights);
    CHECK(weights[0] == 0.0f && weights[1] == 0.0f && weights[2] == 0.0f && weights[3] == 0.0f);
    for (int i = 0; i < 4; ++i) {
        anim_blend_weights(&blend, blend.points[i], weights);
        CHECK_NEAR(weights[i], 1.0, 1e-6);
    }
    double largest_step = 0.0;
    for (int step = 0; step <= 400; ++step) { /* through the rest along a diagonal */
        float t = -1.5f + 3.0f * (float)step / 400.0f;
        anim_blend_weights(&blend, (float[2]){t, 0.5f * t}, weights);
        float sum = weights[0] + weights[1] + weights[2] + weights[3];
        CHECK(sum >= -1e-6f && sum <= 1.0f + 1e-6f);
        if (step > 0)
            largest_step = fmax(largest_step, fabs(sum - previous));
        previous = sum;
    }
    printf("  2D rest: the clips' total weight changes by at most %.4f per 0.0075 step\n", largest_step);
    CHECK(largest_step < 0.05);
}

int main(void)
{
    RUN(test_shipped_blend_loads);
    RUN(test_blend_pose);
    RUN(test_animator_follows_the_speed);
    RUN(test_step_weights_match_fresh_weights);
    RUN(test_lean_blend);
    RUN(test_rest_in_2d);
    RUN(test_prepared_blends_match);
    RUN(test_blend_mistakes);
    return check_report();
}
