/* crowd: see crowd.h. Members live in one array of plain records (grown at spawn time, never in update);
 * each record points at its own animator and at its shared character. */
#include "crowd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/prefetch.h"
#include "body.h"
#include "crowd_spots.h"
#include "look.h"
#include "parameter_binding.h"

enum {
    CROWD_CAPACITY_LIMIT = 1000000,
    /* Members per chunk of a parallel update: some tens of microseconds of work, so claiming a chunk costs
     * nothing beside it, and small enough that threads finish together although members differ in cost
     * (a gesture overlay adds a layer). */
    CROWD_UPDATE_CHUNK = 64,
    /* Character types in use at once: a member names its use in 16 bits that fit its record's padding. */
    CROWD_CHARACTER_USES_MAX = 65535,
};

/* The wander behaviour's constants. */
#define CROWD_DEFAULT_SPACING 1.6f
#define CROWD_DEFAULT_WALK_SPEED 1.4f
#define CROWD_DEFAULT_RUN_SPEED 3.5f
#define CROWD_PAUSE_MIN_SECONDS 1.0f
#define CROWD_PAUSE_MAX_SECONDS 4.0f
/* A gesture waits until the member has stood still this long, so the state machine is back in its
 * standing state (waves and celebrations start from there) and the gesture does not start mid-stride. */
#define CROWD_GESTURE_DELAY_SECONDS 0.4f
/* A pause with a gesture lasts until the gesture has played out, but never more than this beyond the
 * pause's own length, in case the state machine went somewhere else. */
#define CROWD_GESTURE_WAIT_MAX_SECONDS 8.0f
/* Arriving: the wanted speed falls as sqrt(2 a d), a gentle brake of a = 2 m/s^2 (a walk slows over the
 * last half metre, a run over the last three), and the trip ends within this distance of the target. */
#define CROWD_ARRIVAL_DECELERATION 2.0f
#define CROWD_ARRIVAL_RADIUS 0.2f
/* A trip that takes this many times its straight-line time (plus a few seconds to turn and brake) is
 * abandoned: a pause and a new target are better than circling. */
#define CROWD_TRIP_PATIENCE 2.0f
#define CROWD_TRIP_EXTRA_SECONDS 3.0f

typedef enum crowd_activity {
    CROWD_PAUSING,    /* standing: maybe a gesture, then a new trip */
    CROWD_TRAVELLING, /* walking or running to target */
} crowd_activity;

typedef enum crowd_gesture {
    CROWD_GESTURE_NONE,
    CROWD_GESTURE_WAVE,
    CROWD_GESTURE_CELEBRATE,
} crowd_gesture;

/* The gestures' triggers a member pulls (config/states.ini), in the order of crowd_needs; the body's
 * parameters (speed, strafe, forward, left, turn, turn_rate...) are body.h's, as the player's. */
typedef enum crowd_parameter {
    CROWD_PARAMETER_WAVE,
    CROWD_PARAMETER_CELEBRATE,
    CROWD_PARAMETER_COUNT,
} crowd_parameter;

static const parameter_binding_need crowd_needs[CROWD_PARAMETER_COUNT] = {
    [CROWD_PARAMETER_WAVE] = {"wave", STATE_MACHINE_TRIGGER, false},
    [CROWD_PARAMETER_CELEBRATE] = {"celebrate", STATE_MACHINE_TRIGGER, false},
};

/* The trigger for each gesture. */
static const crowd_parameter crowd_gesture_triggers[] = {
    [CROWD_GESTURE_WAVE] = CROWD_PARAMETER_WAVE,
    [CROWD_GESTURE_CELEBRATE] = CROWD_PARAMETER_CELEBRATE,
};

/* What a member does, as its spawn's desc said. */
typedef struct crowd_behaviour {
    float wander_radius;
    float wave_chance, celebrate_chance, run_chance;
    float walk_speed, run_speed;
} crowd_behaviour;

typedef struct crowd_member {
    animator *animator;
    const anim_character *character;
    mover mover;
    float home_x, home_z;
    float target_x, target_z;
    float cruise_speed;        /* of the current trip, m/s */
    float timer;               /* pausing: seconds of pause left; travelling: seconds before giving up */
    float gesture_delay;       /* pausing: seconds of standing still before the gesture fires */
    crowd_gesture gesture;     /* pausing: the gesture still to fire */
    int gesture_state;         /* the state the gesture started from, while it plays; -1 otherwise */
    crowd_activity activity;
    crowd_behaviour behaviour;
    uint64_t random;           /* the member's own random sequence, so members do not depend on each other */
    float pending_dt;          /* animation time not yet given to the animator (level of detail) */
    float root_motion_share;   /* of the body its clips moved in the last animator update (mover_blend) */
    float turn_rate;           /* degrees per second, followed every step (mover_turn_rate_follow) */
    uint8_t lod_phase;         /* which of every 2 or 4 steps this member animates on, so they take turns */
    uint8_t tier;              /* crowd_tier at the last update (the hysteresis starts from it) */
    uint16_t use;              /* its character's entry in crowd.characters (found again on every rebind) */
} crowd_member;

/* A character type in use: how many members use it, for the memory figures, and the handles of the
 * parameters the members drive, found once per type (on its first spawn and on every rebind) rather than
 * by name every step. */
typedef struct crowd_character_use {
    const anim_character *character;
    int members;
    state_machine_param parameters[CROWD_PARAMETER_COUNT];
    state_machine_param body[BODY_PARAMETER_COUNT];
} crowd_character_use;

struct crowd {
    int capacity;
    int count, allocated;
    crowd_member *members;
    int character_count, character_allocated;
    crowd_character_use *characters;
    mover_params mover_params;
    uint64_t random;
    jobs *jobs; /* not owned; NULL: update on the calling thread */
    const ground *ground; /* not owned; what the members stand on (NULL: flat) */
    crowd_lod lod;
    bool lod_on;
    crowd_look look;
    bool look_on;
    bool one_by_one; /* crowd_set_pairs(false) */
    bool feet_paused; /* crowd_set_feet_paused */
    bool additive_paused; /* crowd_set_additive_paused */
    unsigned step_count;
    int poses_updated;         /* animator updates in the last crowd_update */
    int tier_counts[CROWD_TIER_COUNT]; /* members per tier after the last crowd_update */
};

/* ---------------------------------------------------------------------------------------------------- */
/* Random numbers: splitmix64, small and good enough for behaviour, and the same on every platform.     */

static uint64_t crowd_random_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static float crowd_random_unit(uint64_t *state)
{
    return (float)(crowd_random_next(state) >> 40) * (1.0f / 16777216.0f);
}

static float crowd_random_between(uint64_t *state, float low, float high)
{
    return low + (high - low) * crowd_random_unit(state);
}

/* ---------------------------------------------------------------------------------------------------- */
/* Lifetime                                                                                              */

crowd *crowd_create(int capacity, uint64_t seed)
{
    if (capacity < 1 || capacity > CROWD_CAPACITY_LIMIT)
        return NULL;
    crowd *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->capacity = capacity;
    c->mover_params = mover_default_params();
    c->random = seed;
    return c;
}

void crowd_clear(crowd *crowd)
{
    if (!crowd)
        return;
    for (int i = 0; i < crowd->count; ++i)
        animator_destroy(crowd->members[i].animator);
    crowd->count = 0;
    crowd->character_count = 0;
}

void crowd_destroy(crowd *crowd)
{
    if (!crowd)
        return;
    crowd_clear(crowd);
    free(crowd->members);
    free(crowd->characters);
    free(crowd);
}

/* ---------------------------------------------------------------------------------------------------- */
/* Character uses                                                                                        */

/* Count a member of `character` and give it its use (member->use). A type new to the crowd has its
 * parameters found, and what it lacks reported to problems (may be NULL). False when out of memory. */
static bool crowd_use_character(crowd *crowd, crowd_member *member, diag_list *problems)
{
    for (int i = 0; i < crowd->character_count; ++i) {
        if (crowd->characters[i].character == member->character) {
            crowd->characters[i].members++;
            member->use = (uint16_t)i;
            return true;
        }
    }
    if (crowd->character_count == CROWD_CHARACTER_USES_MAX)
        return false;
    if (crowd->character_count == crowd->character_allocated) {
        int allocated = crowd->character_allocated ? crowd->character_allocated * 2 : 4;
        crowd_character_use *characters = realloc(crowd->characters, (size_t)allocated * sizeof *characters);
        if (!characters)
            return false;
        crowd->characters = characters;
        crowd->character_allocated = allocated;
    }
    crowd_character_use *use = &crowd->characters[crowd->character_count];
    *use = (crowd_character_use){.character = member->character, .members = 1};
    body_bind(member->character, use->body, problems);
    parameter_binding_resolve(member->character, crowd_needs, CROWD_PARAMETER_COUNT, use->parameters, problems);
    member->use = (uint16_t)crowd->character_count++;
    return true;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Spawn spots                                                                                           */

/* Is (x, z) within the spawn's clear corridor (crowd_spawn_desc.clear_*)? */
static bool crowd_in_corridor(const crowd_spawn_desc *desc, float x, float z)
{
    if (!(desc->clear_radius > 0.0f))
        return false;
    float ax = desc->center_x, az = desc->center_z, dx = desc->clear_x - ax, dz = desc->clear_z - az;
    float length2 = dx * dx + dz * dz;
    float t = length2 > 0.0f ? ((x - ax) * dx + (z - az) * dz) / length2 : 0.0f;
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    float px = ax + t * dx - x, pz = az + t * dz - z;
    return px * px + pz * pz < desc->clear_radius * desc->clear_radius;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Spawning                                                                                              */

static bool crowd_chance_valid(float chance)
{
    return chance >= 0.0f && chance <= 1.0f;
}

static bool crowd_desc_valid(const crowd_spawn_desc *desc)
{
    if (desc->body_count < 1 || desc->body_count > CROWD_BODIES_MAX)
        return false;
    float total = 0.0f;
    for (int b = 0; b < desc->body_count; ++b) {
        const crowd_body *body = &desc->bodies[b];
        if (!(body->weight >= 0.0f) || !isfinite(body->weight))
            return false;
        if (body->weight > 0.0f && (!body->character || body->character->machine.state_count == 0))
            return false;
        total += body->weight;
    }
    return total > 0.0f && isfinite(total) && isfinite(desc->center_x) && isfinite(desc->center_z) &&
           isfinite(desc->clear_x) && isfinite(desc->clear_z) && desc->clear_radius >= 0.0f &&
           desc->clear_radius <= 100.0f &&
           desc->spacing >= 0.0f && isfinite(desc->spacing) && desc->wander_radius >= 0.0f &&
           isfinite(desc->wander_radius) && crowd_chance_valid(desc->wave_chance) &&
           crowd_chance_valid(desc->celebrate_chance) && crowd_chance_valid(desc->run_chance) &&
           desc->walk_speed >= 0.0f && isfinite(desc->walk_speed) && desc->run_speed >= 0.0f &&
           isfinite(desc->run_speed);
}

static const anim_character *crowd_draw_body(const crowd_spawn_desc *desc, uint64_t *random)
{
    float total = 0.0f;
    for (int b = 0; b < desc->body_count; ++b)
        total += desc->bodies[b].weight;
    float pick = crowd_random_unit(random) * total;
    const anim_character *chosen = NULL;
    for (int b = 0; b < desc->body_count; ++b) {
        if (desc->bodies[b].weight <= 0.0f)
            continue;
        chosen = desc->bodies[b].character; /* the last body with weight catches rounding at the top */
        if (pick < desc->bodies[b].weight)
            break;
        pick -= desc->bodies[b].weight;
    }
    return chosen;
}

static void crowd_begin_pause(crowd_member *member)
{
    const crowd_behaviour *behaviour = &member->behaviour;
    member->activity = CROWD_PAUSING;
    member->timer = crowd_random_between(&member->random, CROWD_PAUSE_MIN_SECONDS, CROWD_PAUSE_MAX_SECONDS);
    float roll = crowd_random_unit(&member->random);
    member->gesture = roll < behaviour->wave_chance                                  ? CROWD_GESTURE_WAVE
                      : roll < behaviour->wave_chance + behaviour->celebrate_chance ? CROWD_GESTURE_CELEBRATE
                                                                                     : CROWD_GESTURE_NONE;
    member->gesture_delay = CROWD_GESTURE_DELAY_SECONDS;
    member->gesture_state = -1;
}

static void crowd_begin_trip(crowd_member *member)
{
    const crowd_behaviour *behaviour = &member->behaviour;
    /* Uniform over the disk around home: the square root spreads the radius so the middle is not crowded. */
    float angle = crowd_random_between(&member->random, -GLM_PIf, GLM_PIf);
    float radius = behaviour->wander_radius * sqrtf(crowd_random_unit(&member->random));
    bool run = crowd_random_unit(&member->random) < behaviour->run_chance;
    member->target_x = member->home_x + radius * cosf(angle);
    member->target_z = member->home_z + radius * sinf(angle);
    member->cruise_speed = run ? behaviour->run_speed : behaviour->walk_speed;
    float distance = hypotf(member->target_x - member->mover.x, member->target_z - member->mover.z);
    member->timer = CROWD_TRIP_PATIENCE * distance / member->cruise_speed + CROWD_TRIP_EXTRA_SECONDS;
    member->activity = CROWD_TRAVELLING;
}

/* Start the body channel's clip at a random point of its cycle, so a crowd spawned at once is not in step.
 * One update of the animator does it: in the start state with no speed, no transition can fire. */
static void crowd_random_start_phase(crowd_member *member)
{
    anim_layer_info layer = {0};
    const anim_controller *controller = animator_controller(member->animator);
    int top = anim_controller_layer_count(controller, ANIMATOR_BODY_CHANNEL) - 1;
    if (top < 0 || !anim_controller_layer(controller, ANIMATOR_BODY_CHANNEL, top, &layer) || !layer.clip)
        return;
    const clip *clip = layer.clip->clip;
    float duration = layer.clip->loop ? clip->loop_duration : clip->once_duration;
    float offset = crowd_random_unit(&member->random) * duration;
    if (offset > 0.0f)
        animator_update(member->animator, offset, NULL);
}

static bool crowd_grow(crowd *crowd, int needed)
{
    if (needed <= crowd->allocated)
        return true;
    int allocated = crowd->allocated ? crowd->allocated : (crowd->capacity < 64 ? crowd->capacity : 64);
    while (allocated < needed)
        allocated = allocated > crowd->capacity / 2 ? crowd->capacity : allocated * 2;
    crowd_member *members = realloc(crowd->members, (size_t)allocated * sizeof *members);
    if (!members)
        return false;
    crowd->members = members;
    crowd->allocated = allocated;
    return true;
}

int crowd_spawn(crowd *crowd, int count, const crowd_spawn_desc *desc)
{
    if (!crowd || !desc || count <= 0 || !crowd_desc_valid(desc))
        return 0;
    if (count > crowd->capacity - crowd->count)
        count = crowd->capacity - crowd->count;
    if (count == 0 || !crowd_grow(crowd, crowd->count + count))
        return 0;
    float spacing = desc->spacing > 0.0f ? desc->spacing : CROWD_DEFAULT_SPACING;
    crowd_behaviour behaviour = {
        .wander_radius = desc->wander_radius,
        .wave_chance = desc->wave_chance,
        .celebrate_chance = desc->celebrate_chance,
        .run_chance = desc->run_chance,
        .walk_speed = desc->walk_speed > 0.0f ? desc->walk_speed : CROWD_DEFAULT_WALK_SPEED,
        .run_speed = desc->run_speed > 0.0f ? desc->run_speed : CROWD_DEFAULT_RUN_SPEED,
    };

    crowd_spot_index taken;
    if (!crowd_spot_index_create(&taken, spacing, crowd->count + 1 + count)) {
        crowd_spot_index_free(&taken);
        return 0;
    }
    crowd_spot_index_add(&taken, desc->center_x, desc->center_z); /* the player stands there */
    for (int i = 0; i < crowd->count; ++i)
        crowd_spot_index_add(&taken, crowd->members[i].home_x, crowd->members[i].home_z);

    int added = 0;
    long long cell = 0;
    /* Each taken spot blocks at most a few grid spots, so the spiral always finds `count` free ones; the
     * bound only guards against a bug turning into an endless loop. */
    long long cell_limit = 16LL * (crowd->count + 1 + count) + 64;
    while (added < count && cell < cell_limit) {
        long long cell_x, cell_z;
        crowd_spiral_cell(cell++, &cell_x, &cell_z);
        float x = desc->center_x + (float)cell_x * spacing, z = desc->center_z + (float)cell_z * spacing;
        if (crowd_spot_taken(&taken, x, z) || crowd_in_corridor(desc, x, z))
            continue;
        crowd_member *member = &crowd->members[crowd->count];
        *member = (crowd_member){
            .character = NULL,
            .mover = {.x = x, .z = z},
            .home_x = x,
            .home_z = z,
            .gesture_state = -1,
            .behaviour = behaviour,
            .random = crowd_random_next(&crowd->random),
            .lod_phase = (uint8_t)(crowd->count & 3),
        };
        member->character = crowd_draw_body(desc, &member->random);
        member->mover.heading = crowd_random_between(&member->random, -GLM_PIf, GLM_PIf);
        mover_settle(&member->mover, crowd->ground);
        member->animator = animator_create(member->character);
        if (!member->animator || !crowd_use_character(crowd, member, desc->problems)) {
            animator_destroy(member->animator);
            break;
        }
        crowd_random_start_phase(member);
        /* The start state's clip alone plays: the whole body is its own or the mover's until the first update. */
        member->root_motion_share = animator_moved_by_clip(member->animator) ? 1.0f : 0.0f;
        crowd_begin_pause(member);
        crowd_spot_index_add(&taken, x, z);
        crowd->count++;
        added++;
    }
    crowd_spot_index_free(&taken);
    return added;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Update                                                                                                */

/* A pausing member after its move: the gesture fires once it stands still, and the pause ends when its time
 * is up and the gesture has played out. */
static void crowd_update_pause(crowd_member *member, const crowd_character_use *use, float dt)
{
    if (member->gesture != CROWD_GESTURE_NONE && member->mover.speed == 0.0f) {
        member->gesture_delay -= dt;
        if (member->gesture_delay <= 0.0f) {
            state_machine_param trigger = use->parameters[crowd_gesture_triggers[member->gesture]];
            if (animator_param_set_trigger(member->animator, trigger))
                member->gesture_state = animator_state(member->animator);
            member->gesture = CROWD_GESTURE_NONE;
        }
    }
    if (member->timer > 0.0f || member->gesture != CROWD_GESTURE_NONE)
        return;
    /* A gesture plays out: the pause goes on until the state machine is back where the gesture began. */
    bool gesture_playing = member->gesture_state >= 0 && animator_state(member->animator) != member->gesture_state &&
                           member->timer > -CROWD_GESTURE_WAIT_MAX_SECONDS;
    if (!gesture_playing)
        crowd_begin_trip(member);
}

/* What a member wants this step: standing while it pauses; on a trip, towards its target at its cruising
 * speed, slowing to arrive (*arrived when it is there or its time is up: it stands, and pauses after). */
static body_wish crowd_wish(crowd_member *member, bool *arrived)
{
    *arrived = false;
    if (member->activity == CROWD_PAUSING)
        return (body_wish){0};
    float to_x = member->target_x - member->mover.x, to_z = member->target_z - member->mover.z;
    float distance = hypotf(to_x, to_z);
    if (distance < CROWD_ARRIVAL_RADIUS || member->timer <= 0.0f) {
        *arrived = true;
        return (body_wish){0};
    }
    float wanted = fminf(member->cruise_speed, sqrtf(2.0f * CROWD_ARRIVAL_DECELERATION * distance));
    return (body_wish){.x = to_x / distance * wanted, .z = to_z / distance * wanted};
}

typedef struct crowd_step {
    crowd *crowd;
    float dt;
    int poses[JOBS_THREADS_MAX]; /* per worker, summed after: no shared counter between threads */
    int tiers[JOBS_THREADS_MAX][CROWD_TIER_COUNT];
} crowd_step;

/* The tier boundary `boundary` as the member in tier `current` sees it, for a measure that grows with
 * significance (pixels): a tier above the boundary (more significant) keeps its place down to boundary *
 * (1 - hysteresis), one below it needs boundary * (1 + hysteresis). A measure that shrinks with it (distance)
 * passes -hysteresis. */
static float crowd_boundary(float boundary, int current, int above, float hysteresis)
{
    return boundary * (current <= above ? 1.0f - hysteresis : 1.0f + hysteresis);
}

/* The member's tier now (crowd.h: features by significance), from the one it was in. */
static crowd_tier crowd_member_significance(const crowd *crowd, const crowd_member *member)
{
    if (!crowd->lod_on)
        return CROWD_TIER_NEAR;
    const crowd_lod *lod = &crowd->lod;
    int current = member->tier;
    float h = lod->hysteresis;
    float dx = member->mover.x - lod->viewer_x, dz = member->mover.z - lod->viewer_z;
    float distance = sqrtf(dx * dx + dz * dz);
    if (distance <= crowd_boundary(lod->full_rate_distance, current, CROWD_TIER_NEAR, -h))
        return CROWD_TIER_NEAR;
    if (!lod->has_view)
        return distance <= crowd_boundary(lod->half_rate_distance, current, CROWD_TIER_MIDDLE, -h) ? CROWD_TIER_MIDDLE
                                                                                                   : CROWD_TIER_FAR;
    /* Out of sight: the feet and a point above the head both outside one side of the view, with a margin of
     * a character's size, or both behind the viewer. */
    const mover *body = &member->mover;
    float tall = member->character && member->character->height_m > 0.0f ? member->character->height_m : 1.8f;
    vec4 feet, head;
    glm_mat4_mulv((vec4 *)lod->view_projection, (vec4){body->x, body->y, body->z, 1.0f}, feet);
    glm_mat4_mulv((vec4 *)lod->view_projection, (vec4){body->x, body->y + tall, body->z, 1.0f}, head);
    if (feet[3] <= 0.0f && head[3] <= 0.0f)
        return CROWD_TIER_HIDDEN;
    for (int axis = 0; axis < 2; ++axis) {
        float margin = 1.2f;
        if ((feet[axis] > margin * feet[3] && head[axis] > margin * head[3]) ||
            (feet[axis] < -margin * feet[3] && head[axis] < -margin * head[3]))
            return CROWD_TIER_HIDDEN;
    }
    if (!(lod->viewport_height > 0.0f)) /* no size on screen to go by: by distance, as without a view */
        return distance <= crowd_boundary(lod->half_rate_distance, current, CROWD_TIER_MIDDLE, -h) ? CROWD_TIER_MIDDLE
                                                                                                   : CROWD_TIER_FAR;
    if (feet[3] <= 0.0f || head[3] <= 0.0f)
        return CROWD_TIER_NEAR; /* across the viewer's plane: as close as it gets */
    float pixels = fabsf(head[1] / head[3] - feet[1] / feet[3]) * 0.5f * lod->viewport_height;
    if (pixels >= crowd_boundary(lod->near_pixels, current, CROWD_TIER_NEAR, h))
        return CROWD_TIER_NEAR;
    return pixels >= crowd_boundary(lod->far_pixels, current, CROWD_TIER_MIDDLE, h) ? CROWD_TIER_MIDDLE : CROWD_TIER_FAR;
}

/* How many steps a tier's animation waits between updates. */
static const unsigned crowd_tier_interval[CROWD_TIER_COUNT] = {1, 2, 4, 4};

/* The member's look-at target for its next animation update: the crowd's, when it is near enough. */
static void crowd_aim_member(const crowd *crowd, crowd_member *member)
{
    const crowd_look *look = &crowd->look;
    float dx = member->mover.x - look->target[0], dz = member->mover.z - look->target[2];
    if (!crowd->look_on || dx * dx + dz * dz > look->distance * look->distance) {
        animator_look_at(member->animator, NULL);
        return;
    }
    mat4 placement;
    float object[3];
    mover_world(&member->mover, placement);
    look_world_to_object(member->character, placement, look->target, object);
    animator_look_at(member->animator, object);
}

/* One member's step, around its animation update: what begin_member found for end_member. */
typedef struct member_step {
    mover before;          /* the mover before this step's move */
    crowd_tier tier;       /* the member's significance this step */
    unsigned interval;     /* its animation's: animated every 1st, 2nd or 4th step */
    bool animated;         /* this step */
    float animated_dt;     /* the time the animation catches up by */
} member_step;

/* A member's step up to its animation update: it wanders on (body_move, as the player moves), and when it is
 * animated this step the animation is told what its body did (body_tell) and where to look. */
static void begin_member(crowd_step *step, crowd_member *member, member_step *work)
{
    const crowd_character_use *use = &step->crowd->characters[member->use];
    member->timer -= step->dt;
    bool arrived;
    body_wish wish = crowd_wish(member, &arrived);
    /* The turn rate is followed every step, animated or not, so the level of detail does not change the lean. */
    body_move(&member->mover, &step->crowd->mover_params, &wish, false, step->dt, &member->turn_rate, &work->before);
    if (arrived)
        crowd_begin_pause(member);
    else if (member->activity == CROWD_PAUSING)
        crowd_update_pause(member, use, step->dt);
    /* Features by significance: the walk keeps moving every step; the animation of members further down
     * catches up every 2nd or 4th step with the time it missed (events and transitions included, as the
     * animator is frame-rate independent), and leaves out what their size on screen would not show. */
    member->pending_dt += step->dt;
    crowd_tier tier = crowd_member_significance(step->crowd, member);
    member->tier = (uint8_t)tier;
    work->tier = tier;
    work->interval = crowd_tier_interval[tier];
    work->animated = (step->crowd->step_count + member->lod_phase) % work->interval == 0;
    work->animated_dt = member->pending_dt;
    if (work->animated) {
        body_tell(member->animator, use->body, &work->before, &member->mover, &wish, false, member->turn_rate);
        if (tier <= CROWD_TIER_MIDDLE)
            crowd_aim_member(step->crowd, member);
        else
            animator_look_at(member->animator, NULL);
        animator_set_additive(member->animator, tier <= CROWD_TIER_MIDDLE && !step->crowd->additive_paused);
    }
}

/* The rest of the member's step once its animation is updated (`updated`, with `result`, when it was): the
 * clip's share of the move, the ground, the feet (body_land). */
static void end_member(crowd_step *step, crowd_member *member, const member_step *work, bool updated,
                       const animator_update_result *result)
{
    if (work->animated)
        member->pending_dt = 0.0f;
    /* Feet locked in the near tier only: a member posed every 2nd or 4th step is too small on screen to
     * show a sliding foot. Posed in a lower tier, it lets go at once (unseen), so that coming back it does
     * not start from old locks; its animator is at hand then, not on the steps it skips. Between animation
     * updates the mover's part of the move keeps the last share, and the clip's travel comes with the next
     * update. Paused feet: measuring, the stage left out, its state kept. */
    bool lock = work->animated && !step->crowd->feet_paused && work->tier == CROWD_TIER_NEAR;
    body_land(member->animator, &work->before, &member->mover, updated ? &result->animation : NULL,
              &member->root_motion_share, step->crowd->ground, lock, work->animated_dt);
    if (work->animated && !step->crowd->feet_paused && work->tier != CROWD_TIER_NEAR)
        animator_unlock_feet(member->animator);
}

/* Members [begin, end): each touches only its own record and animator, so chunks run on any thread. They go
 * in groups of CROWD_GROUP, stage by stage: every member of the group begins (wandering, the body's move, the
 * parameters), then the animated ones update stage by stage too (animator_update_group: every state machine,
 * every controller, the poses to object space four or two at a time in 512- or 256-bit registers where the
 * processor has them, every look-at), then every member ends (the body's landing, the feet). Each member's
 * own steps keep their order, so the result is the one-by-one result bit for bit; a stage's code stays in
 * the caches across the group instead of taking turns with the others'. */
enum { CROWD_GROUP = 16 };
_Static_assert((int)CROWD_GROUP <= (int)ANIMATOR_GROUP_MAX, "a group's animations update together");

static void crowd_update_members(void *context, int begin, int end, int worker)
{
    crowd_step *step = context;
    /* Counted here and added once at the end: neighbouring workers' slots in `step` share a cache line, so
     * a count written per member would hand that line from core to core all through the loop. */
    int poses = 0, tiers[CROWD_TIER_COUNT] = {0};
    crowd_member *members = step->crowd->members;
    for (int i = begin; i < end; i += CROWD_GROUP) {
        int count = end - i < CROWD_GROUP ? end - i : CROWD_GROUP;
        /* The two groups after this one: each member's animator is its own allocation, so the group update
         * asks for their memory while this group works (animator_update_group's `ahead`). */
        const animator *ahead[2 * CROWD_GROUP];
        int ahead_count = 0;
        for (int k = i + CROWD_GROUP; k < end && ahead_count < 2 * CROWD_GROUP; ++k)
            ahead[ahead_count++] = members[k].animator;
        /* The records of the group after those, read next time round for their animators (a load here
         * that missed was a tenth of this function's time). */
        int after = i + 3 * CROWD_GROUP;
        if (after < end)
            prefetch_range(&members[after],
                           sizeof *members * (size_t)(end - after < CROWD_GROUP ? end - after : CROWD_GROUP), true);
        member_step work[CROWD_GROUP];
        for (int k = 0; k < count; ++k)
            begin_member(step, &members[i + k], &work[k]);
        /* The animated ones, in order: their animators, their time, their results. */
        animator *animated[CROWD_GROUP];
        double dt[CROWD_GROUP];
        animator_update_result results[CROWD_GROUP];
        int result_of[CROWD_GROUP], n = 0;
        for (int k = 0; k < count; ++k) {
            result_of[k] = work[k].animated ? n : -1;
            if (work[k].animated) {
                animated[n] = members[i + k].animator;
                dt[n++] = work[k].animated_dt;
            }
        }
        unsigned updated = 0;
        if (step->crowd->one_by_one) {
            animator_update_group(NULL, NULL, NULL, 0, ahead, ahead_count);
            for (int m = 0; m < n; ++m)
                updated |= (unsigned)animator_update(animated[m], dt[m], &results[m]) << m;
        } else {
            updated = animator_update_group(animated, dt, results, n, ahead, ahead_count);
        }
        for (int k = 0; k < count; ++k) {
            int m = result_of[k];
            end_member(step, &members[i + k], &work[k], m >= 0 && ((updated >> m) & 1u), m >= 0 ? &results[m] : NULL);
            poses += work[k].animated;
            ++tiers[work[k].tier];
        }
    }
    step->poses[worker] += poses;
    for (int t = 0; t < CROWD_TIER_COUNT; ++t)
        step->tiers[worker][t] += tiers[t];
}

void crowd_update(crowd *crowd, float dt)
{
    if (!crowd || !(dt > 0.0f) || !isfinite(dt))
        return;
    crowd_step step = {crowd, dt, {0}, {{0}}};
    jobs_parallel_for(crowd->jobs, crowd->count, CROWD_UPDATE_CHUNK, crowd_update_members, &step);
    crowd->poses_updated = 0;
    for (int t = 0; t < CROWD_TIER_COUNT; ++t)
        crowd->tier_counts[t] = 0;
    for (int w = 0; w < JOBS_THREADS_MAX; ++w) {
        crowd->poses_updated += step.poses[w];
        for (int t = 0; t < CROWD_TIER_COUNT; ++t)
            crowd->tier_counts[t] += step.tiers[w][t];
    }
    ++crowd->step_count;
}

void crowd_set_lod(crowd *crowd, const crowd_lod *lod)
{
    if (!crowd)
        return;
    crowd->lod_on = lod != NULL;
    if (lod) {
        crowd->lod = *lod;
        if (!(crowd->lod.full_rate_distance >= 0.0f))
            crowd->lod.full_rate_distance = 0.0f;
        if (!(crowd->lod.half_rate_distance >= crowd->lod.full_rate_distance))
            crowd->lod.half_rate_distance = crowd->lod.full_rate_distance;
        if (!(crowd->lod.far_pixels >= 0.0f))
            crowd->lod.far_pixels = 0.0f;
        if (!(crowd->lod.near_pixels >= crowd->lod.far_pixels))
            crowd->lod.near_pixels = crowd->lod.far_pixels;
        crowd->lod.hysteresis = crowd->lod.hysteresis >= 0.0f ? fminf(crowd->lod.hysteresis, 0.5f) : 0.0f;
    }
}

void crowd_tier_counts(const crowd *crowd, int counts[CROWD_TIER_COUNT])
{
    for (int t = 0; t < CROWD_TIER_COUNT; ++t)
        counts[t] = crowd ? crowd->tier_counts[t] : 0;
}

const char *crowd_tier_name(crowd_tier tier)
{
    static const char *const names[CROWD_TIER_COUNT] = {"near", "middle", "far", "hidden"};
    return tier >= 0 && tier < CROWD_TIER_COUNT ? names[tier] : "?";
}

crowd_tier crowd_member_tier(const crowd *crowd, int i)
{
    return crowd && i >= 0 && i < crowd->count ? (crowd_tier)crowd->members[i].tier : CROWD_TIER_NEAR;
}

void crowd_set_look(crowd *crowd, const crowd_look *look)
{
    if (!crowd)
        return;
    crowd->look_on = look && isfinite(look->target[0]) && isfinite(look->target[1]) && isfinite(look->target[2]) &&
                     look->distance > 0.0f;
    if (crowd->look_on)
        crowd->look = *look;
}

int crowd_poses_updated(const crowd *crowd)
{
    return crowd ? crowd->poses_updated : 0;
}

void crowd_set_jobs(crowd *crowd, jobs *jobs)
{
    if (crowd)
        crowd->jobs = jobs;
}

void crowd_set_pairs(crowd *crowd, bool pairs)
{
    if (crowd)
        crowd->one_by_one = !pairs;
}

void crowd_set_feet_paused(crowd *crowd, bool paused)
{
    if (crowd)
        crowd->feet_paused = paused;
}

void crowd_set_additive_paused(crowd *crowd, bool paused)
{
    if (crowd)
        crowd->additive_paused = paused;
}

void crowd_set_ground(crowd *crowd, const ground *ground)
{
    if (!crowd)
        return;
    crowd->ground = ground;
    for (int i = 0; i < crowd->count; ++i)
        mover_settle(&crowd->members[i].mover, ground);
}

/* ---------------------------------------------------------------------------------------------------- */
/* Hot reload                                                                                            */

static void crowd_remove(crowd *crowd, int index)
{
    animator_destroy(crowd->members[index].animator);
    crowd->members[index] = crowd->members[--crowd->count];
}

int crowd_rebind(crowd *crowd, const anim_config *new_config, diag_list *problems)
{
    if (!crowd)
        return 0;
    int removed = 0;
    for (int i = 0; i < crowd->count;) {
        crowd_member *member = &crowd->members[i];
        const anim_character *character =
            new_config ? anim_config_find_character(new_config, member->character->name) : NULL;
        if (!character || !animator_rebind(member->animator, character, NULL)) {
            crowd_remove(crowd, i); /* the last member moved into i: look at i again */
            removed++;
            continue;
        }
        member->character = character;
        ++i;
    }
    /* Every use now names the new config's characters (or none); count them afresh, and find their
     * parameters again: the new state machines may have reordered them. */
    crowd->character_count = 0;
    for (int i = 0; i < crowd->count;) {
        if (crowd_use_character(crowd, &crowd->members[i], problems)) {
            ++i;
        } else {
            crowd_remove(crowd, i); /* out of memory for the list: better one member fewer than a wrong HUD */
            removed++;
        }
    }
    return removed;
}

/* ---------------------------------------------------------------------------------------------------- */
/* Inspection                                                                                            */

int crowd_count(const crowd *crowd)
{
    return crowd ? crowd->count : 0;
}

int crowd_capacity(const crowd *crowd)
{
    return crowd ? crowd->capacity : 0;
}

static const crowd_member *crowd_member_at(const crowd *crowd, int index)
{
    return crowd && index >= 0 && index < crowd->count ? &crowd->members[index] : NULL;
}

void crowd_world(const crowd *crowd, int index, mat4 out)
{
    const crowd_member *member = crowd_member_at(crowd, index);
    if (member)
        mover_world(&member->mover, out);
    else
        glm_mat4_identity(out);
}

const animator *crowd_animator(const crowd *crowd, int index)
{
    const crowd_member *member = crowd_member_at(crowd, index);
    return member ? member->animator : NULL;
}

void crowd_capture_stages(crowd *crowd, int index, const animator_stages *stages)
{
    const crowd_member *member = crowd_member_at(crowd, index);
    if (member)
        animator_capture_stages(member->animator, stages);
}

const anim_character *crowd_character(const crowd *crowd, int index)
{
    const crowd_member *member = crowd_member_at(crowd, index);
    return member ? member->character : NULL;
}

const mover *crowd_mover(const crowd *crowd, int index)
{
    const crowd_member *member = crowd_member_at(crowd, index);
    return member ? &member->mover : NULL;
}

bool crowd_home(const crowd *crowd, int index, float *home_x, float *home_z)
{
    const crowd_member *member = crowd_member_at(crowd, index);
    if (!member)
        return false;
    *home_x = member->home_x;
    *home_z = member->home_z;
    return true;
}

crowd_memory_figures crowd_memory(const crowd *crowd)
{
    crowd_memory_figures figures = {.record_bytes = sizeof(crowd_member)};
    if (!crowd)
        return figures;
    figures.entity_count = crowd->count;
    for (int i = 0; i < crowd->count; ++i) {
        figures.entity_bytes += animator_bytes(crowd->members[i].animator) + sizeof(crowd_member);
        animator_memory parts = animator_memory_parts(crowd->members[i].animator);
        figures.animator_records += parts.record;
        figures.controller_layers += parts.controller.layers;
        figures.object_poses += parts.controller.object_pose;
        figures.snapshots += parts.controller.snapshots;
        figures.masks += parts.controller.masks;
    }
    figures.bytes_per_entity = crowd->count ? figures.entity_bytes / (size_t)crowd->count : 0;

    /* Shared data, each model and clip once: character types may share a mesh, and types sharing a clip
     * library share its clips (the cache loads a file once). The lists are short: a few types of a few
     * dozen clips, so comparing against everything counted before is cheap and needs no memory. */
    figures.unique_characters = crowd->character_count;
    for (int c = 0; c < crowd->character_count; ++c) {
        const anim_character *character = crowd->characters[c].character;
        bool model_seen = false;
        for (int earlier = 0; earlier < c && !model_seen; ++earlier)
            model_seen = crowd->characters[earlier].character->model == character->model;
        if (!model_seen && character->model) {
            figures.unique_models++;
            figures.shared_bytes += character->model->bytes;
        }
        for (int k = 0; k < character->clip_count; ++k) {
            const clip *clip = character->clips[k].clip;
            bool clip_seen = false;
            for (int earlier = 0; earlier <= c && !clip_seen; ++earlier) {
                const anim_character *other = crowd->characters[earlier].character;
                int other_count = earlier == c ? k : other->clip_count;
                for (int j = 0; j < other_count && !clip_seen; ++j)
                    clip_seen = other->clips[j].clip == clip;
            }
            if (!clip_seen && clip) {
                figures.unique_clips++;
                figures.shared_bytes += clip->bytes;
            }
        }
    }
    return figures;
}
