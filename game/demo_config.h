/* demo_config: the demo's own settings from config/demo.ini (the player's body and speeds, how crowds are
 * spawned, the camera, the window), read at start and again on reload. A file with mistakes gives every
 * one of them as file:line and leaves the last good settings alone. Knows nothing of SDL, GL or
 * characters.ini: the character names it holds are checked by the caller against the loaded characters. */
#ifndef MARIONETTE_DEMO_CONFIG_H
#define MARIONETTE_DEMO_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "world/ground.h"

enum {
    DEMO_CONFIG_BODIES_MAX = 8, /* character types one crowd mix can name */
    DEMO_CONFIG_NAME_MAX = 64,  /* as ANIM_NAME_MAX: a character name from characters.ini */
};

/* One entry of the crowd's body mix: "robot 1". */
typedef struct demo_config_body {
    char character[DEMO_CONFIG_NAME_MAX];
    float weight; /* >= 0; a body is drawn with probability weight / sum of weights */
} demo_config_body;

typedef struct demo_config {
    struct {
        char character[DEMO_CONFIG_NAME_MAX]; /* default "mannequin" */
        int character_line;                   /* demo.ini's line that named it; 0: the default */
        float walk_speed;                     /* m/s, default 1.4 */
        float run_speed;                      /* m/s, default 3.5; at least walk_speed */
    } player;
    struct {
        int count;                 /* characters one press of the spawn key adds, default 100 */
        float spacing;             /* metres between spawn spots, default 1.6 */
        int body_count;            /* entries in bodies, 1..DEMO_CONFIG_BODIES_MAX */
        demo_config_body bodies[DEMO_CONFIG_BODIES_MAX]; /* default mannequin 1, robot 1 */
        int mix_line;              /* demo.ini's line of the mix; 0: the default */
        float wander_radius;       /* metres around each member's home, default 6 */
        float wave_chance;         /* probability per idle pause, default 0.3 */
        float celebrate_chance;    /* probability per idle pause, default 0.1 */
        float run_chance;          /* probability that a walk to a new spot is a run, default 0.3 */
        int max;                   /* cap on the crowd's size, default 20000 */
        uint64_t seed;             /* default 1 */
        bool lod;                  /* features by significance (crowd.h), default true */
        float lod_near_pixels;     /* members at least this tall on screen are near, default 90 */
        float lod_far_pixels;      /* members shorter than this are far, default 36 */
        float lod_hysteresis;      /* share past a boundary before a member changes tier, default 0.15 */
    } crowd;
    struct {
        float distance; /* metres from the player, default 6 */
        float pitch;    /* degrees above the horizon, default 20 */
        float yaw;      /* degrees around the player, default 0 */
    } camera;
    struct {
        ground_kind ground;  /* GROUND_FLAT, GROUND_SLOPE, GROUND_HILLS or GROUND_STEPS, default flat */
        float slope_degrees; /* GROUND_SLOPE: 0 to 45, rising toward +x, default 20 */
    } world;
    struct {
        int width, height; /* pixels, default 1280 x 720 */
        bool vsync;        /* default true */
    } window;
    struct {
        bool levels_of_detail;  /* coarser meshes for far characters, default true */
        float lod_error_pixels; /* how far a level may shift the surface on screen, pixels, default 0.5 */
        bool stand_ins;         /* the hundred-triangle stand-in for the smallest on screen, default true */
        float stand_in_pixels;  /* characters at most this tall on screen may be the stand-in, default 48 */
        bool skin_once;         /* skin near characters once for shadow and picture, default false */
        float light_spin;       /* degrees a second the light turns about the vertical, 0 to 360, default 0 */
    } render;
    struct {
        bool player;            /* the player looks at the camera, default true */
        float crowd_distance;   /* metres: crowd members this near the player look at its head, default 5; 0 none */
    } look;
} demo_config;

/* The values the shipped config/demo.ini documents; a key left out of the file keeps its default. */
demo_config demo_config_defaults(void);

/* Read path into *out. Every problem (an unreadable file, a line the ini reader rejects, an unknown section
 * or key, a value that is not a number, out of its range, an empty or malformed mix) goes to errors (may be
 * NULL) as file:line. On any problem *out is left untouched and false is returned, so the caller keeps
 * running on its last good settings. */
bool demo_config_load(const char *path, demo_config *out, diag_list *errors);

#endif
