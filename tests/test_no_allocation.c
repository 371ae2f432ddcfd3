/* "No per-frame heap allocation in the animation path", checked: this test is linked with the heap
 * functions wrapped (-Wl,--wrap=...), counts every call the engine makes, and drives entities through
 * every kind of transition, overlay, event and root motion (the turns in place move the entity), and the
 * 1D and 2D blend spaces (locomotion, strafe), while the count must stay still. Creation allocates once per controller (one block: the object pose, snapshots
 * and masks), and freezing a full stack into a snapshot or sampling the local pose again allocates
 * nothing; neither do additive layers (their deltas are baked at load), their overlay weights, their
 * snapshots or their crossfades with ordinary overlays, nor the shipped machine's breath, lean blend (its
 * point moving with turn_rate), flinch and 2D strafe blend; nor a dual-quaternion palette and skinning; nor
 * look-at, its target circling the entity so the head turns to it, follows it, and fades out behind and in
 * again; nor the foot lock after each step (the entities walk a path, so feet lock, hold, let go and are
 * cut by a teleport). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/config/anim_config.h"
#include "anim/animator.h"
#include "build/build.h"
#include "check.h"
#include "pose/pose.h"
#include "pose/pose_dq.h"
#include "world/ground.h"

#include "heap_counter.h"

enum { ENTITIES = 2 };

static void test_updates_never_allocate(void)
{
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(MARIONETTE_SOURCE_DIR "/config/characters.ini", cache, &errors);
    CHECK(config != NULL && errors.total == 0);
    animator *entities[ENTITIES] = {0};
    for (int e = 0; config && e < ENTITIES; ++e) {
        entities[e] = animator_create(anim_config_character(config, e));
        CHECK(entities[e] != NULL);
    }
    mat4 *palette = __real_aligned_alloc(32, 64 * sizeof(mat4));
    pose_dual_quaternion *dual_quaternions = __real_aligned_alloc(32, 64 * sizeof(pose_dual_quaternion));
    enum { SKINNED_MAX = 1 << 16 };
    float(*skinned)[3] = __real_malloc(2 * SKINNED_MAX * sizeof *skinned);
    CHECK(heap_calls > 0); /* the wrapping works: loading did allocate */

    long before = heap_calls;
    animator_update_result result;
    int transitions = 0, events = 0, strafing_waves = 0, flinches = 0, leaning_steps = 0, locked_steps = 0;
    int looking_steps = 0, fading_steps = 0, placed_steps = 0, lowered_steps = 0;
    float walked[ENTITIES] = {0};
    const ground stairs = {.kind = GROUND_STEPS, .steps = {.rise = 0.25f}};
    for (int step = 0; step < 60 * 24 && entities[ENTITIES - 1]; ++step) {
        double time = step / 60.0;
        for (int e = 0; e < ENTITIES; ++e) {
            animator *a = entities[e];
            /* A timeline that visits idle, walk, run, wave overlays, jumps, turns and celebrating, the
             * additive layers (the breath standing, the lean blend with its point swept by turn_rate moving,
             * the flinch walking and standing), then strafes round a circle (the 2D blend) and waves while
             * strafing. */
            float speed = time < 2 ? 0.0f : time < 5 ? 1.4f : time < 8 ? 3.5f : time < 10 ? 1.4f : time < 20 ? 0.0f : 2.0f;
            animator_set_number(a, "speed", speed);
            animator_set_number(a, "turn_rate", (float)(120.0 * sin(time * 1.3)));
            animator_set_bool(a, "strafe", time >= 20 && time < 23);
            animator_set_number(a, "forward", speed * (float)cos(time * 2.0));
            animator_set_number(a, "left", speed * (float)sin(time * 2.0));
            if (step == 60 * 21)
                animator_set_trigger(a, "wave");
            if (step == 510 || step == 60 * 16)
                animator_set_trigger(a, "hit");
            if (step == 60 * 3 || step == 60 * 11)
                animator_set_trigger(a, "wave");
            if (step == 60 * 6)
                animator_set_trigger(a, "jump");
            if (step == 60 * 14)
                animator_set_number(a, "turn", -90.0f);
            if (step == 60 * 15)
                animator_set_number(a, "turn", 0.0f);
            if (step == 60 * 17)
                animator_set_trigger(a, "celebrate");
            /* Two metres away at head height, going round once every 8 seconds. */
            float target[3] = {2.0f * (float)cos(time * 0.785), 2.0f * (float)sin(time * 0.785), 1.6f};
            animator_look_at(a, target);
            CHECK(animator_update(a, 1.0 / 60.0, &result));
            float weight = animator_look_weight(a);
            looking_steps += weight == 1.0f;
            fading_steps += weight > 0.0f && weight < 1.0f;
            /* Walked at the speed along +X, with a teleport half-way. */
            walked[e] += speed / 60.0f + (step == 60 * 12 ? 10.0f : 0.0f);
            /* On stairs, so the feet are placed (foot_ik) and the pelvis lowered every step. */
            anim_placement placement = {.position = {walked[e], ground_at(&stairs, walked[e], 0.0f).height, 0.0f},
                                        .heading = 0.0f};
            CHECK(animator_lock_feet(a, &placement, &stairs, 1.0f / 60.0f));
            const anim_foot_lock_state *placing = animator_foot_lock(a);
            placed_steps += placing->feet[0].ik > 0.0f || placing->feet[1].ik > 0.0f;
            lowered_steps += placing->pelvis_drop > 0.0f;
            const anim_foot_lock_state *lock = animator_foot_lock(a);
            locked_steps += lock->feet[0].held || lock->feet[1].held;
            transitions += result.decision.fired;
            flinches += result.decision.fired && strcmp(animator_state_name(a), "flinch") == 0;
            leaning_steps += strcmp(animator_state_name(a), "moving") == 0;
            events += result.animation.event_count;
            strafing_waves += strcmp(animator_state_name(a), "strafe_wave") == 0;
            const anim_controller *controller = animator_controller(a);
            const skeleton *s = &anim_config_character(config, e)->model->skeleton;
            CHECK(pose_palette(anim_controller_object_pose(controller), (const mat4 *)s->inverse_bind,
                               s->joint_count, palette));
            /* Dual-quaternion skinning too: the palette every step, the CPU reference now and then. */
            CHECK(pose_dual_quaternion_palette(anim_controller_object_pose(controller), s->bind_object,
                                               s->joint_count, dual_quaternions));
            const skin_mesh *mesh = &anim_config_character(config, e)->model->meshes[0];
            if (step % 120 == 0 && mesh->vertex_count <= SKINNED_MAX)
                CHECK(pose_skin_cpu_dual_quaternion(mesh, dual_quaternions, s->joint_count, skinned,
                                                    skinned + SKINNED_MAX));
        }
    }
    CHECK(heap_calls == before);
    CHECK(transitions >= 2 * 12); /* the timeline really went places */
    printf("  %d transitions, %d flinches, %d steps leaning, %d strafing and waving\n", transitions, flinches,
           leaning_steps, strafing_waves);
    CHECK(strafing_waves > 60);
    CHECK(flinches == 2 * 2 && leaning_steps > 60 * 4);
    CHECK(events > 20);
    printf("  %d steps looking, %d fading\n", looking_steps, fading_steps);
    CHECK(looking_steps > 60 * 10 && fading_steps > 60);
    printf("  %d steps with a foot locked, %d placed, %d with the pelvis lowered\n", locked_steps, placed_steps,
           lowered_steps);
    CHECK(locked_steps > 60 * 10);
    CHECK(placed_steps > 60 * 10 && lowered_steps > 60);

    free(palette);
    free(dual_quaternions);
    free(skinned);
    for (int e = 0; e < ENTITIES; ++e)
        animator_destroy(entities[e]);
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
}

static void test_controller_allocates_once(void)
{
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(MARIONETTE_SOURCE_DIR "/config/characters.ini", cache, &errors);
    CHECK(config != NULL && errors.total == 0);
    const anim_character *character = config ? anim_config_character(config, 0) : NULL;
    if (!character) {
        anim_config_free(config);
        cache_destroy(cache);
        diag_list_free(&errors);
        return;
    }
    const skeleton *s = &character->model->skeleton;
    joint_pose *local = __real_aligned_alloc(32, sizeof(joint_pose) * (size_t)s->joint_count);

    long before = heap_calls;
    anim_controller *controller = anim_controller_create(&(anim_controller_desc){.skeleton = s});
    CHECK(controller != NULL && heap_calls == before + 1);
    before = heap_calls;
    animator *entity = animator_create(character);
    CHECK(entity != NULL && heap_calls == before + 2); /* its record and its controller's block */

    /* Plays faster than the fades: the fifth freezes the stack into the snapshot. */
    before = heap_calls;
    int freezes = 0;
    anim_controller_mask_branch(controller, 1, s->names[0], 1.0f);
    for (int step = 0; controller && step < 60; ++step) {
        if (step % 3 == 0)
            anim_controller_play(controller, step % 2, &character->clips[(step / 3) % character->clip_count], 0.5f,
                                 &(anim_play_options){.restart = true, .moves_entity = step % 4 == 0});
        CHECK(anim_controller_update(controller, 1.0 / 60.0, NULL));
        anim_layer_info bottom;
        freezes += anim_controller_layer(controller, 0, 0, &bottom) && bottom.clip == NULL;
        CHECK(anim_controller_local_pose(controller, local));
    }
    CHECK(heap_calls == before);
    CHECK(freezes > 0);

    animator_destroy(entity);
    anim_controller_destroy(controller);
    free(local);
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
}

static void test_additive_layers_never_allocate(void)
{
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(MARIONETTE_SOURCE_DIR "/config/characters.ini", cache, &errors);
    CHECK(config != NULL && errors.total == 0);
    const anim_character *character = config ? anim_config_character(config, 0) : NULL;
    if (!character || character->clip_count < 2) {
        anim_config_free(config);
        cache_destroy(cache);
        diag_list_free(&errors);
        return;
    }
    /* Every clip of the library baked as an additive clip against the first clip's first frame. */
    int count = character->clip_count;
    clip **baked = calloc((size_t)count, sizeof *baked);
    anim_clip *additive = calloc((size_t)count, sizeof *additive);
    for (int i = 0; i < count; ++i) {
        diag err;
        CHECK(build_additive_clip(character->clips[i].clip, character->clips[0].clip, 0, &baked[i], &err));
        additive[i] = character->clips[i];
        additive[i].clip = baked[i];
        additive[i].additive = true;
        additive[i].root_mode = ANIM_ROOT_IN_PLACE;
    }
    const skeleton *s = &character->model->skeleton;
    anim_controller *controller = anim_controller_create(&(anim_controller_desc){.skeleton = s});
    anim_controller_play(controller, 0, &character->clips[0], 0.0f, NULL);
    anim_controller_mask_branch(controller, 1, s->names[0], 1.0f);
    anim_controller_mask_branch(controller, 2, s->names[s->joint_count / 2], 1.0f);

    long before = heap_calls;
    int freezes = 0;
    for (int step = 0; controller && step < 120; ++step) {
        /* Channel 2 crossfades additive clips faster than its fades (freezing deltas); channel 1 mixes
         * additive and ordinary clips. */
        if (step % 3 == 0)
            anim_controller_play(controller, 2, &additive[(step / 3) % count], 0.5f, &(anim_play_options){.restart = true});
        if (step % 7 == 0)
            anim_controller_play(controller, 1, step % 2 ? &additive[1] : &character->clips[1], 0.3f, NULL);
        anim_controller_set_overlay_weight(controller, 1, (float)(step % 10) / 9.0f);
        anim_controller_set_overlay_weight(controller, 2, (float)(step % 4) / 3.0f);
        CHECK(anim_controller_update(controller, 1.0 / 60.0, NULL));
        anim_layer_info bottom;
        freezes += anim_controller_layer(controller, 2, 0, &bottom) && bottom.clip == NULL;
    }
    CHECK(heap_calls == before);
    CHECK(freezes > 0);

    anim_controller_destroy(controller);
    for (int i = 0; i < count; ++i)
        clip_free(baked[i]);
    free(baked);
    free(additive);
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
}

/* The ground is asked for every character every step (its feet, the camera's eye, the foot IK): no kind
 * allocates, nor does listing its breaks into a caller's array. */
static void test_ground_queries_never_allocate(void)
{
    const ground kinds[] = {{.kind = GROUND_FLAT}, {.kind = GROUND_SLOPE, .slope_degrees = 20.0f},
                            {.kind = GROUND_HILLS}, {.kind = GROUND_STEPS}};
    float breaks[64], sum = 0.0f;
    long before = heap_calls;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        for (int i = 0; i < 1000; ++i)
            sum += ground_at(&kinds[k], 0.37f * (float)i - 150.0f, 0.11f * (float)i).height;
        sum += (float)ground_breaks(&kinds[k], 0, -30.0f, 30.0f, breaks, 64);
    }
    CHECK(heap_calls == before);
    CHECK(isfinite(sum));
}

int main(void)
{
    RUN(test_updates_never_allocate);
    RUN(test_controller_allocates_once);
    RUN(test_additive_layers_never_allocate);
    RUN(test_ground_queries_never_allocate);
    return check_report();
}
