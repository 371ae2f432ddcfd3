/* Foot placement (foot IK, anim_foot_lock.h): the shipped mannequin walked along slopes of 10 to 30 degrees
 * (up, down and across) and over stairs of 25 cm risers, the stage run on its poses as animator_lock_feet
 * runs it, the body standing on the ground under it as the game's mover puts it. Checked every step:
 *   - a planted foot (at least ANIM_FOOT_LOCK_PLANTED_SHARE of the body plants it) has its ankle as far
 *     from the surface under it, along the normal, as the animation has it above flat ground, within 1 cm;
 *     on the slopes its toe too (on the stairs a toe may reach over a riser's edge); the same measure
 *     without the placement must be far off, so the check can fail;
 *   - each knee bends to the side the animation bends it (straight at most, never inverted);
 *   - the pelvis (anim_foot_lock_pelvis: `hips`) is never raised above where the animation has it;
 *   - no pop: no joint of the legs or the pelvis moves further in a step than POP_FACTOR times the
 *     fastest of them walking on flat ground, while feet plant and lift and while foot_ik is switched off
 *     and on again mid-walk;
 *   - every number finite, and nothing allocated.
 * The worst figures are printed. */
#include <math.h>
#include <string.h>

#include "anim/animator.h"
#include "anim/anim_foot_lock.h"
#include "anim/config/anim_config.h"
#include "check.h"
#include "heap_counter.h"

/* Steps walked, and the first measured: the body walks from the first step while the animation fades
 * from standing to walking, so the lock stretches the legs for a moment at the start. */
enum { JOINTS_MAX = 64, STEPS = 420, MEASURED_FROM = 60 };
static const float DT = 1.0f / 60.0f;
/* No pop: neither the pelvis nor a leg's joint moves faster in a step than POP_FACTOR times the fastest of
 * them in the same walk on flat ground (a swinging toe). A placement switched on or off at
 * once would move a foot by its whole correction in one step: up to 23 cm on the 30 degree slope. */
static const float POP_FACTOR = 1.2f;
static float flat_fastest;

typedef struct walk_figures {
    float worst_ankle, worst_toe, fastest, worst_raise, worst_unplaced;
    int planted_steps, inverted_knees, straight_knees, non_finite;
} walk_figures;

/* A point of the object pose (file space) in the world, where the body stands. */
static void to_world(const anim_character *character, const anim_placement *p, const float file[3], float world[3])
{
    float canonical[3];
    anim_axes_to_canonical(&character->axes, file, canonical);
    float x = canonical[0] * character->scale, y = canonical[1] * character->scale, z = canonical[2] * character->scale;
    float c = cosf(p->heading), s = sinf(p->heading);
    world[0] = p->position[0] + c * x - s * y;
    world[1] = p->position[1] + z;
    world[2] = p->position[2] - s * x - c * y;
}

/* Distance from the surface under a world point along its normal (exact for planes and treads). */
static float above_surface(const ground *g, const float world[3])
{
    ground_sample under = ground_at(g, world[0], world[2]);
    return (world[1] - under.height) * under.normal[1];
}

static int child_of(const skeleton *s, int parent)
{
    for (int j = parent + 1; j < s->joint_count; ++j)
        if (s->parents[j] == parent)
            return j;
    return -1;
}

static void bend_normal(const joint_pose *object, const pose_ik_chain *leg, float out[3])
{
    const float *h = object[leg->hip].position, *k = object[leg->knee].position, *a = object[leg->ankle].position;
    float u[3] = {k[0] - h[0], k[1] - h[1], k[2] - h[2]}, v[3] = {a[0] - k[0], a[1] - k[1], a[2] - k[2]};
    out[0] = u[1] * v[2] - u[2] * v[1];
    out[1] = u[2] * v[0] - u[0] * v[2];
    out[2] = u[0] * v[1] - u[1] * v[0];
}

/* Walk the mannequin on `ground` from (start_x, 0) along heading for STEPS steps at 1.4 m/s, switching foot_ik off from
 * `off_from` to `on_again` (steps; -1: never). */
static walk_figures walk(const anim_character *character, const ground *g, float start_x, float heading, int off_from,
                         int on_again)
{
    walk_figures figures = {0};
    const skeleton *s = &character->model->skeleton;
    CHECK(s->joint_count <= JOINTS_MAX);
    animator *a = animator_create(character);
    CHECK(a != NULL);
    if (!a || s->joint_count > JOINTS_MAX)
        return figures;
    int pelvis = anim_foot_lock_pelvis(s, character->legs, character->leg_count);
    int toes[ANIM_FEET_MAX];
    for (int f = 0; f < character->leg_count; ++f)
        toes[f] = child_of(s, character->legs[f].ankle);
    /* The joints the placement moves on their own: the pelvis (the body above it moves as it does) and the
     * legs. */
    bool moved_by_placement[JOINTS_MAX] = {false};
    for (int j = 0; j < s->joint_count; ++j) {
        moved_by_placement[j] = j == pelvis;
        for (int f = 0; f < character->leg_count; ++f)
            for (int up = j; up >= 0 && !moved_by_placement[j]; up = s->parents[up])
                moved_by_placement[j] = up == character->legs[f].hip;
    }
    anim_foot_lock_state placed_state = {0}, plain_state = {0};
    joint_pose animated[JOINTS_MAX], placed[JOINTS_MAX], plain[JOINTS_MAX];
    float last_world[JOINTS_MAX][3] = {{0}}, last_body_height = 0.0f;
    anim_placement placement = {.position = {start_x, 0.0f, 0.0f}, .heading = heading};
    CHECK(animator_set_number(a, "speed", 1.4f));
    long heap_before = heap_calls;
    for (int step = 0; step < STEPS; ++step) {
        CHECK(animator_update(a, DT, NULL));
        /* The mover: forward at the walk's speed once it walks, standing on the ground under the body. */
        {
            placement.position[0] += 1.4f * DT * cosf(heading);
            placement.position[2] -= 1.4f * DT * sinf(heading);
        }
        placement.position[1] = ground_at(g, placement.position[0], placement.position[2]).height;
        memcpy(animated, anim_controller_object_pose(animator_controller(a)), sizeof animated[0] * s->joint_count);
        memcpy(placed, animated, sizeof animated[0] * s->joint_count);
        memcpy(plain, animated, sizeof animated[0] * s->joint_count);
        float shares[ANIM_FEET_MAX] = {0}, soon[ANIM_FEET_MAX] = {0};
        anim_foot_lock_planted_shares_ahead(animator_controller(a), character->leg_count, ANIM_FOOT_IK_FADE_SECONDS,
                                            shares, soon);
        anim_foot_lock_input input = {
            .skeleton = s, .legs = character->legs, .leg_count = character->leg_count, .planted_shares = shares,
            .planted_soon = soon,
            .scale = character->scale, .axes = character->axes, .placement = placement, .ground = g, .dt = DT,
            .settings = character->foot_lock};
        input.settings.ik = !(step >= off_from && step < on_again);
        CHECK(anim_foot_lock_apply(&input, &placed_state, placed));
        input.settings.ik = false;
        CHECK(anim_foot_lock_apply(&input, &plain_state, plain));

        /* How far each joint moves this step, in the world; not across a step where the mover lifts or
         * drops the body onto a tread (the body itself jumps there, with or without the placement). */
        bool body_jumped = fabsf(placement.position[1] - last_body_height) > 0.02f;
        last_body_height = placement.position[1];
        for (int j = 0; j < s->joint_count; ++j) {
            if (!moved_by_placement[j])
                continue;
            float with[3], moved = 0.0f;
            to_world(character, &placement, placed[j].position, with);
            for (int k = 0; k < 3; ++k) {
                figures.non_finite += !isfinite(with[k]) || !isfinite(placed[j].rotation[k]);
                moved += (with[k] - last_world[j][k]) * (with[k] - last_world[j][k]);
            }
            if (step > MEASURED_FROM && !body_jumped) {
                figures.fastest = fmaxf(figures.fastest, sqrtf(moved));
            }
            memcpy(last_world[j], with, sizeof with);
        }
        float pelvis_now[3], pelvis_animated[3];
        to_world(character, &placement, placed[pelvis].position, pelvis_now);
        to_world(character, &placement, animated[pelvis].position, pelvis_animated);
        if (step >= MEASURED_FROM)
            figures.worst_raise = fmaxf(figures.worst_raise, pelvis_now[1] - pelvis_animated[1]);

        for (int f = 0; f < character->leg_count; ++f) {
            const pose_ik_chain *leg = &character->legs[f];
            float want[3], have[3];
            bend_normal(animated, leg, want);
            bend_normal(placed, leg, have);
            float wanted_length = sqrtf(want[0] * want[0] + want[1] * want[1] + want[2] * want[2]);
            /* a leg the animation holds nearly straight has no side to keep */
            /* Bent to the other side is inverted; straight (no side) is the most the solver allows. */
            float have_length = sqrtf(have[0] * have[0] + have[1] * have[1] + have[2] * have[2]);
            float dot = want[0] * have[0] + want[1] * have[1] + want[2] * have[2];
            if (wanted_length > 1e-4f && have_length > 1e-4f)
                figures.inverted_knees += dot < 0.0f;
            figures.straight_knees += have_length <= 1e-4f;
            /* Every planted step counts once foot_ik has been on for a fade: the placement looks ahead, and is
             * at full strength as the foot lands. */
            bool settled = step >= MEASURED_FROM && (off_from < 0 || step < off_from || step >= on_again + 12);
            if (!(shares[f] >= ANIM_FOOT_LOCK_PLANTED_SHARE) || !settled)
                continue;
            ++figures.planted_steps;
            int joints[2] = {leg->ankle, toes[f]};
            for (int i = 0; i < 2; ++i) {
                if (joints[i] < 0 || (i == 1 && g->kind == GROUND_STEPS))
                    continue;
                float animated_world[3], shown[3];
                to_world(character, &placement, animated[joints[i]].position, animated_world);
                to_world(character, &placement, placed[joints[i]].position, shown);
                float error = fabsf(above_surface(g, shown) - (animated_world[1] - placement.position[1]));
                float *worst = i == 0 ? &figures.worst_ankle : &figures.worst_toe;
                *worst = fmaxf(*worst, error);
                /* The same measure without the placement, to show it measures something. */
                float unplaced[3];
                to_world(character, &placement, plain[joints[i]].position, unplaced);
                float unplaced_error = above_surface(g, unplaced) - (animated_world[1] - placement.position[1]);
                figures.worst_unplaced = fmaxf(figures.worst_unplaced, fabsf(unplaced_error));
            }
        }
    }
    CHECK(heap_calls == heap_before);
    animator_destroy(a);
    return figures;
}

static bool figures_hold(const char *what, walk_figures f, float surface_bound)
{
    printf("  %-34s planted %3d steps: ankle within %.3f mm, toe %.3f mm (%.0f mm unplaced); fastest joint "
           "%.1f mm a step (flat "
           "%.1f); pelvis raised %.3f mm; %d inverted knees (%d straight), %d non-finite\n",
           what, f.planted_steps, f.worst_ankle * 1000.0f, f.worst_toe * 1000.0f, f.worst_unplaced * 1000.0f,
           f.fastest * 1000.0f,
           flat_fastest * 1000.0f, f.worst_raise * 1000.0f, f.inverted_knees, f.straight_knees, f.non_finite);
    return f.planted_steps > 60 && f.worst_ankle <= surface_bound && f.worst_toe <= surface_bound &&
           f.fastest <= POP_FACTOR * flat_fastest && f.worst_raise <= 1e-5f && f.inverted_knees == 0 &&
           f.non_finite == 0;
}

static anim_config *load(cache *cache, diag_list *errors, const anim_character **mannequin)
{
    anim_config *config = anim_config_load(MARIONETTE_SOURCE_DIR "/config/characters.ini", cache, errors);
    CHECK(config != NULL);
    *mannequin = config ? anim_config_find_character(config, "mannequin") : NULL;
    CHECK(*mannequin && (*mannequin)->leg_count == 2 && (*mannequin)->foot_lock.ik);
    return config;
}

static void test_slopes(void)
{
    cache *cache = cache_create();
    diag_list errors = {0};
    const anim_character *mannequin = NULL;
    anim_config *config = load(cache, &errors, &mannequin);
    if (mannequin) {
        CHECK(strcmp(mannequin->model->skeleton.names[anim_foot_lock_pelvis(&mannequin->model->skeleton,
                                                                            mannequin->legs, 2)],
                     "hips") == 0);
        ground flat = {.kind = GROUND_FLAT};
        flat_fastest = walk(mannequin, &flat, 0.0f, 0.0f, -1, -1).fastest;
        CHECK(flat_fastest > 0.02f && flat_fastest < 0.15f);
        float worst = 0.0f;
        for (int degrees = 10; degrees <= 30; degrees += 10) {
            static const float uphill[3][2] = {{1.0f, 0.0f}, {-1.0f, 0.0f}, {0.0f, 1.0f}};
            static const char *const names[3] = {"up", "down", "across"};
            for (int d = 0; d < 3; ++d) {
                ground slope = {.kind = GROUND_SLOPE, .slope_degrees = (float)degrees,
                                .uphill = {uphill[d][0], uphill[d][1]}};
                char what[64];
                snprintf(what, sizeof what, "%d degree slope, walking %s", degrees, names[d]);
                walk_figures f = walk(mannequin, &slope, 0.0f, 0.0f, -1, -1);
                CHECK(figures_hold(what, f, 0.01f));
                CHECK(degrees < 20 || f.worst_unplaced > 0.02f);
                worst = fmaxf(worst, fmaxf(f.worst_ankle, f.worst_toe));
            }
        }
        printf("  worst planted-foot distance on slopes up to 30 degrees: %.3f mm\n", worst * 1000.0f);
        /* Switched off and on again mid-walk, on the steepest slope: faded, no pop. */
        ground slope = {.kind = GROUND_SLOPE, .slope_degrees = 30.0f, .uphill = {1.0f, 0.0f}};
        CHECK(figures_hold("30 degrees, foot_ik off and on", walk(mannequin, &slope, 0.0f, 0.0f, 150, 250), 0.01f));
    }
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
}

static void test_steps(void)
{
    cache *cache = cache_create();
    diag_list errors = {0};
    const anim_character *mannequin = NULL;
    anim_config *config = load(cache, &errors, &mannequin);
    if (mannequin) {
        ground steps = {.kind = GROUND_STEPS, .steps = {.rise = 0.25f}};
        CHECK(ground_steps_used(&steps.steps).rise == 0.25f);
        /* From the floor's middle up the stair (it starts 1.5 m ahead) onto the landing, and from the
         * landing's middle back down it. */
        ground_steps used = ground_steps_used(&steps.steps);
        float landing_middle = 0.5f * used.landing + (float)used.count * used.run + 0.5f * used.landing;
        walk_figures up = walk(mannequin, &steps, 0.0f, 0.0f, -1, -1);
        CHECK(figures_hold("25 cm steps, up", up, 0.01f));
        CHECK(up.worst_unplaced > 0.1f);
        CHECK(figures_hold("25 cm steps, down", walk(mannequin, &steps, landing_middle, 3.14159265f, -1, -1),
                           0.01f));
    }
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
}

/* The stages a trace shows (animator_capture_stages), walking up the 30 degree slope with the lock and the
 * placement as animator_lock_feet runs them: capturing changes nothing (an animator without it ends each step
 * on the same bits); the foot IK stage is the pose drawn, bit for bit; the world transform the trace writes
 * (anim_placement_world) puts each joint where this test's own to_world does; the foot lock stage holds a
 * planted foot where the lock has it but does not place it (on the slope the placement moves it, by
 * centimetres at some step), and the blend stage differs from the additive stage only where the shipped
 * additive layers play (spine.01 up: the ankles equal). Nothing is allocated per step. */
static void test_captured_stages(void)
{
    cache *cache = cache_create();
    diag_list errors = {0};
    const anim_character *mannequin = NULL;
    anim_config *config = load(cache, &errors, &mannequin);
    if (!mannequin) {
        anim_config_free(config);
        cache_destroy(cache);
        diag_list_free(&errors);
        return;
    }
    const skeleton *s = &mannequin->model->skeleton;
    animator *traced = animator_create(mannequin), *plain = animator_create(mannequin);
    static joint_pose stage_poses[ANIMATOR_STAGE_COUNT][JOINTS_MAX];
    animator_stages stages;
    for (int k = 0; k < ANIMATOR_STAGE_COUNT; ++k)
        stages.poses[k] = stage_poses[k];
    animator_capture_stages(traced, &stages);
    ground slope = {.kind = GROUND_SLOPE, .slope_degrees = 30.0f, .uphill = {1.0f, 0.0f}};
    anim_placement placement = {.position = {0.0f, 0.0f, 0.0f}, .heading = 0.0f};
    CHECK(animator_set_number(traced, "speed", 1.4f) && animator_set_number(plain, "speed", 1.4f));
    int differing = 0, ik_differs = 0, blend_differs = 0, legs_differ = 0;
    float worst_world = 0.0f, largest_placement = 0.0f;
    long heap_before = heap_calls;
    for (int step = 0; step < STEPS; ++step) {
        CHECK(animator_update(traced, DT, NULL) && animator_update(plain, DT, NULL));
        placement.position[0] += 1.4f * DT;
        placement.position[1] = ground_at(&slope, placement.position[0], placement.position[2]).height;
        CHECK(animator_lock_feet(traced, &placement, &slope, DT) && animator_lock_feet(plain, &placement, &slope, DT));
        const joint_pose *drawn = anim_controller_object_pose(animator_controller(traced));
        size_t bytes = (size_t)s->joint_count * sizeof *drawn;
        differing += memcmp(drawn, anim_controller_object_pose(animator_controller(plain)), bytes) != 0;
        ik_differs += memcmp(drawn, stage_poses[ANIMATOR_STAGE_FOOT_IK], bytes) != 0;
        blend_differs += memcmp(stage_poses[ANIMATOR_STAGE_BLEND], stage_poses[ANIMATOR_STAGE_ADDITIVE], bytes) != 0;
        for (int f = 0; f < mannequin->leg_count; ++f) /* the additive layers play from spine.01 up */
            legs_differ += memcmp(&stage_poses[ANIMATOR_STAGE_BLEND][mannequin->legs[f].ankle],
                                  &stage_poses[ANIMATOR_STAGE_ADDITIVE][mannequin->legs[f].ankle], sizeof *drawn) != 0;
        mat4 world;
        anim_placement_world(&placement, &mannequin->axes, mannequin->scale, world);
        for (int j = 0; j < s->joint_count; ++j) {
            float expected[3];
            vec3 got;
            to_world(mannequin, &placement, drawn[j].position, expected);
            glm_mat4_mulv3(world, (float *)drawn[j].position, 1.0f, got);
            for (int k = 0; k < 3; ++k)
                worst_world = fmaxf(worst_world, fabsf(got[k] - expected[k]));
        }
        for (int f = 0; f < mannequin->leg_count; ++f) {
            int ankle = mannequin->legs[f].ankle;
            vec3 locked, placed;
            glm_mat4_mulv3(world, stage_poses[ANIMATOR_STAGE_FOOT_LOCK][ankle].position, 1.0f, locked);
            glm_mat4_mulv3(world, stage_poses[ANIMATOR_STAGE_FOOT_IK][ankle].position, 1.0f, placed);
            largest_placement = fmaxf(largest_placement, fabsf(placed[1] - locked[1]));
        }
    }
    CHECK(heap_calls == heap_before);
    printf("  captured stages: %d steps differ from the uncaptured animator, %d from the drawn pose; world joints "
           "within %.2g m of the test's transform; the placement moved a foot %.1f mm at most on 30 degrees\n",
           differing, ik_differs, (double)worst_world, (double)largest_placement * 1000.0);
    CHECK(differing == 0 && ik_differs == 0);
    CHECK(blend_differs > 0 && legs_differ == 0); /* the shipped breathe and lean add to the upper body only */
    CHECK(worst_world < 1e-5f);
    CHECK(largest_placement > 0.02f);
    CHECK(strcmp(animator_stage_name(ANIMATOR_STAGE_FOOT_LOCK), "foot_lock") == 0);
    animator_destroy(traced);
    animator_destroy(plain);
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
}

int main(void)
{
    RUN(test_slopes);
    RUN(test_steps);
    RUN(test_captured_stages);
    return check_report();
}
