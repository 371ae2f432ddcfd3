/* crowd: many characters wandering around the spots they were spawned on, each with its own animator and
 * mover while all of them share their characters' models, clips and state machines (one copy however big
 * the crowd). Memory is taken at create and spawn time only; crowd_update allocates nothing, runs on all
 * cores when given jobs and, for a given seed and sequence of time steps, always does the same thing
 * however many threads it runs on.
 * Knows nothing of SDL, GL, ini files or the player: the game passes positions, bodies and settings in. */
#ifndef MARIONETTE_CROWD_H
#define MARIONETTE_CROWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cglm/cglm.h>

#include "anim/config/anim_config.h"
#include "anim/animator.h"
#include "base/diag.h"
#include "base/jobs.h"
#include "mover.h"

enum { CROWD_BODIES_MAX = 8 };

typedef struct crowd crowd;

/* One body a spawn may draw: a character (with a state machine) and its weight (>= 0). */
typedef struct crowd_body {
    const anim_character *character;
    float weight;
} crowd_body;

/* How to place and drive the members one crowd_spawn adds. Zero means default where a default is named. */
typedef struct crowd_spawn_desc {
    int body_count;                       /* 1..CROWD_BODIES_MAX, weights not all 0 */
    crowd_body bodies[CROWD_BODIES_MAX];
    float center_x, center_z;             /* the spiral's middle: the player's position */
    float spacing;                        /* metres between spots (0: 1.6) */
    float wander_radius;                  /* metres a member strays from its home (0: stays there) */
    float wave_chance;                    /* probability per idle pause of a wave, 0..1 */
    float celebrate_chance;               /* probability per idle pause of a celebration instead, 0..1 */
    float run_chance;                     /* probability that a trip is run, not walked, 0..1 */
    float walk_speed, run_speed;          /* m/s (0: 1.4 and 3.5, the speeds the clips were made for) */
    /* A corridor kept free: no member's home within clear_radius metres of the segment from the center to
     * (clear_x, clear_z), the camera's place on the ground in the demo, so the camera does not land inside
     * the crowd with members hiding the player. clear_radius 0: none. */
    float clear_x, clear_z, clear_radius;
    /* Where a body new to the crowd whose state machine lacks a parameter the crowd drives (speed,
     * grounded, wave, celebrate; forward and left where it has strafe) or has it (or an optional one: turn,
     * turn_rate, strafe) with another type is reported, once (see parameter_binding.h); NULL: nowhere. */
    diag_list *problems;
} crowd_spawn_desc;

/* A crowd of at most `capacity` members (1..1000000); seed drives every random choice. NULL when the
 * capacity is out of range or memory runs out. */
crowd *crowd_create(int capacity, uint64_t seed);
void crowd_destroy(crowd *crowd);

/* Add up to `count` members on the free spots of a square spiral around (center_x, center_z), `spacing`
 * apart: a spot closer than `spacing` to a living member's home or to the center itself, or in the corridor
 * kept clear, is skipped, so a second spawn in the same place rings the first. Each member gets a body drawn from the mix by weight, a
 * random heading and a random start phase. Returns how many were added: fewer than count when the capacity
 * is reached, 0 when desc is invalid (no body with weight, a character without a state machine, a chance
 * outside 0..1, a negative or non-finite number, clear_radius over 100). Allocates (members, animators) here. */
int crowd_spawn(crowd *crowd, int count, const crowd_spawn_desc *desc);

/* Destroy every member; the capacity and the random sequence go on. */
void crowd_clear(crowd *crowd);

/* Advance every member by dt seconds (> 0; anything else changes nothing): the wander behaviour, then the
 * body step the player takes too (body.h: its mover, and its animator told speed, grounded, strafe, forward,
 * left, turn and turn_rate as the player's; a member never strafes, and turns in place where its states do
 * before walking off). Allocates nothing. With jobs set, the members
 * are updated in chunks on all the jobs' threads: a member's update touches only that member (its own
 * random sequence, mover and animator), so the result is bit for bit the serial one. */
void crowd_update(crowd *crowd, float dt);
/* The jobs crowd_update splits its members across (NULL: the calling thread alone). The crowd does not own
 * them: they must outlive it or be unset. */
void crowd_set_jobs(crowd *crowd, jobs *jobs);
/* Whether crowd_update animates its members in groups, stage by stage (animator_update_group: true, the
 * default) or one by one, for measuring what the groups bring (crowd_bench --one-by-one); the result is the
 * same, bit for bit. */
void crowd_set_pairs(crowd *crowd, bool pairs);
/* For measuring what the foot lock and foot IK cost (crowd_bench --alternate feet): while paused,
 * crowd_update skips that stage (animator_lock_feet) and leaves its state as it is, so the next step that
 * runs it goes on from there; the poses are then as animated. Not paused by default. */
void crowd_set_feet_paused(crowd *crowd, bool paused);
/* The same for the additive layers (crowd_bench --alternate additive): while paused, the members' animations
 * leave their additive overlays out of the pose (animator_set_additive), the overlays still advancing, so the
 * next step with them goes on from there. Not paused by default. */
void crowd_set_additive_paused(crowd *crowd, bool paused);

/* What the members stand on from now on (NULL: flat): each one's feet at the ground's height under it,
 * at once, at spawn and after every update; bodies stay upright. The crowd does not own it: it must
 * outlive the crowd or be replaced. */
void crowd_set_ground(crowd *crowd, const ground *ground);

/* Features by significance (the animation's level of detail), per member, as engines do for crowds. Each
 * member is in one tier, from how tall it stands on screen (with a view) or how far it is (without), and
 * each tier gets these features:
 *   tier     animated          foot lock and foot IK   look-at   additive overlays (leans, breath)
 *   near     every step        yes                     yes       yes
 *   middle   every 2nd step    no (let go)             yes       yes
 *   far      every 4th step    no                      no        no
 *   hidden   every 4th step    no                      no        no     (outside the view, or behind it)
 * Near: within full_rate_distance of the viewer on the ground, always (the quality guard: what the player
 * looks at gets everything), or at least near_pixels tall on screen; middle: at least far_pixels tall;
 * far: smaller. Without a view (has_view false): near within full_rate_distance, middle within
 * half_rate_distance, far beyond. A member's tier changes only once its measure is past the boundary by
 * `hysteresis` of it (0.15: 15% taller to move up, 15% shorter to move down), so one standing on a boundary
 * does not flicker between two. Its walk (the mover) moves every step; an animation that skips steps
 * catches up with the time it missed, so clips, events and transitions keep their timing, and members take
 * turns (a quarter of the far ones each step). Deterministic, and the same on any number of threads. NULL:
 * every member near (every feature, every step: the default). */
typedef enum crowd_tier {
    CROWD_TIER_NEAR,
    CROWD_TIER_MIDDLE,
    CROWD_TIER_FAR,
    CROWD_TIER_HIDDEN,
    CROWD_TIER_COUNT,
} crowd_tier;

typedef struct crowd_lod {
    float viewer_x, viewer_z;
    float full_rate_distance;   /* metres, e.g. 12 */
    float half_rate_distance;   /* metres, e.g. 30: without a view, the far tier's start */
    bool has_view;
    mat4 view_projection;
    float viewport_height;      /* pixels the view is tall, for the heights on screen (0: by distance only) */
    float near_pixels;          /* at least this tall on screen: near (e.g. 90) */
    float far_pixels;           /* under this: far (e.g. 36) */
    float hysteresis;           /* 0 to 0.5 (e.g. 0.15) */
} crowd_lod;
void crowd_set_lod(crowd *crowd, const crowd_lod *lod);

/* Look-at: members within `distance` metres of target (on the ground) turn their heads towards it, a world
 * point (the player's head, in the demo), within their characters' limits (anim_look.h); the others, and
 * every member with look NULL, look where their animation does, their heads fading back. A member's target
 * is set when its animation updates (level of detail); one with no target and its weight at 0 costs nothing. */
typedef struct crowd_look {
    float target[3];
    float distance; /* metres */
} crowd_look;
void crowd_set_look(crowd *crowd, const crowd_look *look);
/* Members in each tier after the last crowd_update (all near without level of detail); the name of a tier
 * ("near", "middle", "far", "hidden"). */
void crowd_tier_counts(const crowd *crowd, int counts[CROWD_TIER_COUNT]);
const char *crowd_tier_name(crowd_tier tier);
/* The tier member i was in at the last crowd_update (CROWD_TIER_NEAR out of range). */
crowd_tier crowd_member_tier(const crowd *crowd, int i);
/* Animator updates (poses computed) in the last crowd_update: the crowd's count without level of detail. */
int crowd_poses_updated(const crowd *crowd);

/* Hot reload, before the old config is freed: move each member to the same-named character of new_config
 * (animator_rebind). Members whose character is gone, or whose rebind fails, are removed (the order of
 * the others may change). The parameters the crowd drives are found again in the new state machines, and
 * what one lacks is reported to problems (may be NULL), as crowd_spawn does. Returns how many were
 * removed. */
int crowd_rebind(crowd *crowd, const anim_config *new_config, diag_list *problems);

/* For the renderer, the HUD and tests; index in 0..crowd_count-1 (NULL, or identity / false, otherwise). */
int crowd_count(const crowd *crowd);
int crowd_capacity(const crowd *crowd);
void crowd_world(const crowd *crowd, int index, mat4 out); /* mover_world of the member */
const animator *crowd_animator(const crowd *crowd, int index);
/* Member index's stages from its next update on (animator_capture_stages), NULL to stop; for the trace. */
void crowd_capture_stages(crowd *crowd, int index, const animator_stages *stages);
const anim_character *crowd_character(const crowd *crowd, int index);
const mover *crowd_mover(const crowd *crowd, int index);
bool crowd_home(const crowd *crowd, int index, float *home_x, float *home_z);

/* Memory figures for the HUD: what each member costs, and what all of them share. */
typedef struct crowd_memory_figures {
    int entity_count;
    size_t record_bytes;       /* the crowd's own record per member (mover, wander state, pointers) */
    size_t bytes_per_entity;   /* animator_bytes + record_bytes; the mean when bodies differ in joints */
    size_t entity_bytes;       /* the sum of that over all members */
    size_t shared_bytes;       /* model->bytes + clip->bytes of every model and clip in use, each once */
    int unique_characters;     /* character types in use */
    int unique_models;         /* distinct models (two types may share a mesh) */
    int unique_clips;          /* distinct clips (types sharing a clip library share its clips) */
    /* entity_bytes by part, over all members: the animators' records, their controllers' layers, object
     * poses, snapshots and masks (animator_memory_parts); with record_bytes times the count, entity_bytes. */
    size_t animator_records, controller_layers, object_poses, snapshots, masks;
} crowd_memory_figures;

crowd_memory_figures crowd_memory(const crowd *crowd);

#endif
