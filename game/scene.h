/* scene: draws the demo's animated entities through gfx. Keeps one GPU mesh per model of the running
 * config and the images its characters draw it with (made once, shared by every entity so dressed), turns
 * each entity's pose into its skin palette and culling box, and adds the debug views (skeleton, bounds).
 * Palettes are written straight into gfx's upload buffer: the player's through scene_submit, the crowd's in
 * two halves, its slots handed out in order (scene_queue_crowd) and then filled on all cores
 * (scene_write_crowd_palettes). Nothing here allocates per frame.
 * It hands gfx the pixels: images are read through an image cache (engine/image, decoded by
 * platform_image), shared by file, and held as long as a mesh draws with them.
 * Knows nothing of SDL or input; gfx does the GL. */
#ifndef MARIONETTE_SCENE_H
#define MARIONETTE_SCENE_H

#include <stdbool.h>

#include <cglm/cglm.h>

#include "anim/config/anim_config.h"
#include "anim/animator.h"
#include "base/diag.h"
#include "base/jobs.h"
#include "crowd.h"
#include "gfx/gfx.h"
#include "image/image.h"
#include "pose/pose_dq.h"

enum { SCENE_MAX_MODELS = 16 };

typedef struct scene_views {
    bool skeleton;      /* F2: bones over the mesh */
    bool bounds;        /* F3: each entity's pose box (its skinned mesh, bright) and culling box (dim) */
    bool normals;       /* F4 */
    bool cpu_skinning;  /* G: the CPU reference path instead of the vertex shader */
    bool lod_colors;    /* F7: each character tinted by its level of detail */
    bool look_at;       /* T: each looking head's facing line and what it looks at */
    bool foot_ik;       /* I: held feet's contacts, the feet's targets on the ground, the pelvis's drop */
    bool no_maps;       /* M: every mesh drawn without its normal and specular maps */
    bool tangents;      /* N: each vertex's tangent frame (tangent, bitangent, normal) */
    const ground *ground; /* what the feet stand on, for the foot IK view (NULL: flat) */
} scene_views;

/* How every character is skinned: each as characters.ini says, or all one way (the demo's skin_blend key). */
typedef enum scene_skinning {
    SCENE_SKINNING_AS_CHARACTERS = 0, /* each character's `skinning` (linear unless it says dual_quaternion) */
    SCENE_SKINNING_LINEAR,            /* every character linear blend */
    SCENE_SKINNING_DUAL_QUATERNION,   /* every character dual quaternions */
    SCENE_SKINNING_COUNT
} scene_skinning;

/* Where one entity's palette goes this frame, in gfx's upload buffer: matrices for a linear entity, dual
 * quaternions for a dual-quaternion one (the other NULL); both NULL when it was culled or refused. */
typedef struct scene_palette_slot {
    mat4 *matrices;
    pose_dual_quaternion *dual_quaternions;
} scene_palette_slot;

typedef struct scene {
    /* One GPU mesh per body as dressed: a model and the images its character draws it with (two characters
     * on one body with their own textures get a mesh each). texture_keys tells the dressings apart: a hash
     * of the image paths and of their files' times and sizes, so an image edited on disk is uploaded anew. */
    int model_count;
    const model *models[SCENE_MAX_MODELS];
    unsigned long long texture_keys[SCENE_MAX_MODELS];
    gfx_mesh meshes[SCENE_MAX_MODELS];
    const image **mesh_images[SCENE_MAX_MODELS]; /* what meshes[i] draws with (NULL: the placeholder), */
    int mesh_image_counts[SCENE_MAX_MODELS];     /* 3 x its model's mesh_count of them (images, maps) */
    image_cache *images;    /* made by the first scene_sync */
    /* Which of those each character of the synced config draws with (an index into meshes). */
    int character_count, character_capacity;
    const anim_character **characters;
    int *character_meshes;
    /* Room for one palette of the largest skeleton, for the bounds view's pose box (sized in scene_sync;
     * NULL when there was no memory: only the culling box is drawn then). */
    mat4 *bounds_palette;
    int bounds_palette_joints;
    /* Per crowd member, this frame: where its palette goes in gfx's upload buffer, and which kind (none
     * when it was culled or could not be queued). Grown when the crowd has grown, so steady frames allocate
     * nothing. */
    scene_palette_slot *crowd_palettes;
    gfx_lod_memory *crowd_lods; /* per crowd member: the level of detail it was drawn at (hysteresis) */
    int crowd_palette_capacity; /* of both */
    int submitted;          /* this frame, for the HUD */
    scene_skinning skinning; /* set by the caller (the demo's toggle); zero: as characters.ini says */
} scene;

/* How the scene skins a character now: s->skinning, or the character's own choice. */
pose_skinning scene_character_skinning(const scene *s, const anim_character *character);
/* "as characters.ini says", "linear", "dual quaternion": for the HUD. */
const char *scene_skinning_name(scene_skinning skinning);

/* Make GPU meshes for every model of the config, as each character dresses it (anim_character.texture_paths),
 * that has none yet, and destroy those no character uses any more (after a reload). Texture problems go to
 * warnings (the mesh still draws with a placeholder). False with err when a mesh cannot be made (the old
 * meshes stay). */
bool scene_sync(scene *s, const anim_config *config, diag *err, diag_list *warnings);
void scene_free(scene *s);

/* A model's GPU mesh dressed with images read through `images`: texture_paths holds one image path per
 * model mesh (NULL: each skin_mesh's texture_path, found in the model's folder), and a mesh without one,
 * or whose image is refused, draws the placeholder, warned at its shader line in desc->path (desc gives
 * model, label and path; its images are filled here). held gets model->mesh_count entries, the images the
 * mesh draws with (NULL for the placeholder): give them back with scene_release_images once the mesh is
 * destroyed. {0} with err when gfx refuses the mesh (nothing is held then). */
gfx_mesh scene_make_dressed_mesh(image_cache *images, const gfx_mesh_desc *desc, const char *const *texture_paths,
                                 const image **held, diag *err, diag_list *warnings);
/* The same with the meshes' maps too (normal_map_paths, specular_map_paths: one per model mesh or NULL for
 * none, as anim_character has them; a map that is missing or refused is drawn without, the refusal warned at
 * the shader line). held gets 3 x model->mesh_count entries: the images, then the normal maps, then the
 * specular maps (NULL where there is none). */
gfx_mesh scene_make_mapped_mesh(image_cache *images, const gfx_mesh_desc *desc, const char *const *texture_paths,
                                const char *const *normal_map_paths, const char *const *specular_map_paths,
                                const image **held, diag *err, diag_list *warnings);
void scene_release_images(image_cache *images, const image **held, int count);

/* The mesh a character of the last synced config draws with, or {0}. */
gfx_mesh scene_mesh(const scene *s, const anim_character *character);

/* Queue one entity: its pose as its animator shows it, placed by world (as mover_world gives it). Culled by
 * gfx when out of sight (box from anim_controller_bounds grown by the model's skin reach). lod: the
 * entity's level-of-detail memory (kept by the caller, zeroed at first), or NULL. */
bool scene_submit(scene *s, const animator *animator, mat4 world, const scene_views *views, const float tint[4],
                  gfx_lod_memory *lod);

/* An entity's culling box as gfx gets it: world, its placement times its character's import
 * (scene_model_world), and bounds, the box of its current pose (anim_controller_bounds) grown by its body's
 * skin reach, in MD5 object space (gfx_instance.world and bounds; gfx turns MD5's Z up to Y up after
 * world). What the scene culls with and what a mouse click is tried against. False (bounds untouched) when
 * the controller has no box. */
bool scene_culling_box(const animator *animator, mat4 placement, mat4 world, float bounds[2][3]);

/* The box the bounds view draws bright for an entity: the skinned mesh of its current pose, exactly, skinned
 * as the scene skins it (pose_skinned_bounds or pose_skinned_bounds_dual_quaternion: the cost of CPU
 * skinning, paid only while the view is on), in MD5 object space as
 * gfx_instance.bounds. The dim one is the culling box, looser by design: the clip's bounds grown by the
 * body's skin reach. False when its body has no mesh here. Allocates nothing. */
bool scene_pose_bounds(scene *s, const animator *animator, float out[2][3]);

/* The world matrix gfx takes for an entity of this character: its placement in the Y-up world times the
 * character's import (characters.ini scale or height, up, forward). The import is given in canonical MD5
 * space and gfx turns MD5 data to Y up after the world matrix, so it goes in as T * import * T^-1 (T that
 * turn): a rotation and a uniform scale, as gfx_instance.world allows. scene_submit and the crowd apply
 * it; `world` above is the placement. */
void scene_model_world(const anim_character *character, mat4 placement, mat4 out);

/* The crowd, first half, on the calling thread: room in gfx for every member (gfx_reserve, so no slot
 * moves), then each member queued as scene_submit does (culling, debug views) with its palette slot kept
 * in s->crowd_palettes[member] (NULL when culled or refused). Returns how many entries it set: every
 * member, or 0 when there was no memory for them. Between gfx_begin_frame and gfx_end_frame. */
int scene_queue_crowd(scene *s, const crowd *crowd, const scene_views *views);
/* The crowd, second half: members 0..count-1 get their skin palette (pose_palette or
 * pose_dual_quaternion_palette of the animator's object pose, as the slot's kind says) written to
 * destinations[member] (an empty slot: skipped), split across jobs (NULL: the calling thread).
 * With s->crowd_palettes and scene_queue_crowd's count this fills the slots it handed out; a benchmark may
 * pass its own. The crowd must not change in between. Allocates nothing. */
void scene_write_crowd_palettes(const crowd *crowd, const scene_palette_slot *destinations, int count, jobs *jobs);

#endif
