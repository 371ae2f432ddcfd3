/* "No per-frame heap allocation in the animation path", checked: this test is linked with the heap
 * functions wrapped (-Wl,--wrap=...), counts every call the engine makes, and drives entities through
 * every kind of transition, overlay, event and root motion while the count must stay still. */
#include <stdlib.h>

#include "anim/anim_config.h"
#include "anim/animator.h"
#include "check.h"
#include "pose/pose.h"

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
    CHECK(heap_calls > 0); /* the wrapping works: loading did allocate */

    long before = heap_calls;
    animator_update_result result;
    int transitions = 0, events = 0;
    for (int step = 0; step < 60 * 20 && entities[ENTITIES - 1]; ++step) {
        double time = step / 60.0;
        for (int e = 0; e < ENTITIES; ++e) {
            animator *a = entities[e];
            /* A timeline that visits idle, walk, run, wave overlays, jumps, turns and celebrating. */
            float speed = time < 2 ? 0.0f : time < 5 ? 1.4f : time < 8 ? 3.5f : time < 10 ? 1.4f : 0.0f;
            animator_set_number(a, "speed", speed);
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
            CHECK(animator_update(a, 1.0 / 60.0, &result));
            transitions += result.decision.fired;
            events += result.animation.event_count;
            const anim_controller *controller = animator_controller(a);
            const skeleton *s = &anim_config_character(config, e)->model->skeleton;
            CHECK(pose_palette(anim_controller_object_pose(controller), (const mat4 *)s->inverse_bind,
                               s->joint_count, palette));
        }
    }
    CHECK(heap_calls == before);
    CHECK(transitions >= 2 * 8); /* the timeline really went places */
    CHECK(events > 20);

    free(palette);
    for (int e = 0; e < ENTITIES; ++e)
        animator_destroy(entities[e]);
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
}

int main(void)
{
    RUN(test_updates_never_allocate);
    return check_report();
}
