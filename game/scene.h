/* scene: draws the demo's animated entities through gfx. Keeps one GPU mesh per model of the running
 * config (made once, shared by every entity of that body), turns each entity's pose into its skin palette
 * and culling box, and adds the debug views (skeleton, bounds). The player and every crowd member go
 * through scene_submit; nothing here allocates per frame.
 * Knows nothing of SDL or input; gfx does the GL. */
#ifndef MARIONETTE_SCENE_H
#define MARIONETTE_SCENE_H

#include <stdbool.h>

#include <cglm/cglm.h>

#include "anim/anim_config.h"
#include "anim/animator.h"
#include "base/diag.h"
#include "gfx/gfx.h"

enum { SCENE_MAX_MODELS = 16 };

typedef struct scene_views {
    bool skeleton;      /* F2: bones over the mesh */
    bool bounds;        /* F3: each entity's culling box */
    bool normals;       /* F4 */
    bool cpu_skinning;  /* G: the CPU reference path instead of the vertex shader */
} scene_views;

typedef struct scene {
    int model_count;
    const model *models[SCENE_MAX_MODELS];
    gfx_mesh meshes[SCENE_MAX_MODELS];
    int palette_capacity;   /* joints */
    mat4 *palette;          /* scratch for one entity's skin matrices (gfx copies them at submit) */
    int submitted;          /* this frame, for the HUD */
} scene;

/* Make GPU meshes for every model of the config that has none yet, and destroy those of models no
 * character uses any more (after a reload). Texture problems go to warnings (the mesh still draws with a
 * placeholder). False with err when a mesh cannot be made (the old meshes stay). */
bool scene_sync(scene *s, const anim_config *config, diag *err, diag_list *warnings);
void scene_free(scene *s);

/* The mesh of a model, or {0}. */
gfx_mesh scene_mesh(const scene *s, const model *m);

/* Queue one entity: its pose as its animator shows it, placed by world (as mover_world gives it). Culled by
 * gfx when out of sight (box from anim_controller_bounds grown by the model's skin reach). */
bool scene_submit(scene *s, const animator *animator, mat4 world, const scene_views *views, const float tint[4]);

#endif
