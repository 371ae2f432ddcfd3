/* anim_character: one character type, everything its entities share (its model, clip library, state
 * machine, blends, import, legs, look-at and foot settings), as anim_config loads it from characters.ini and
 * the files it names. Its own header: the animator, the crowd, the renderer's scene and the tools use the
 * type without the config loader. Immutable once loaded. */
#ifndef MARIONETTE_ANIM_CHARACTER_H
#define MARIONETTE_ANIM_CHARACTER_H

#include <cglm/cglm.h>

#include "../cache/cache.h"
#include "../pose/pose_dq.h"
#include "anim_blend.h"
#include "anim_clip.h"
#include "anim_feet.h"
#include "anim_foot_lock.h"
#include "anim_look.h"
#include "state_machine.h"

/* One character type: everything its entities share. */
typedef struct anim_character {
    char name[ANIM_NAME_MAX];          /* the section in characters.ini: "mannequin" */
    const char *mesh_path;             /* the .md5mesh as resolved, for messages */
    cache_model_handle model_handle;
    const model *model;
    /* One per model->meshes: the image a renderer should draw that skin mesh with, found by the texture
     * search (md5.h) with this character's overrides and textures folder; NULL for none (a placeholder). */
    const char *const *texture_paths;
    /* The same for its maps (characters.ini normal_map.SHADER and specular_map.SHADER overrides, or found beside
     * the texture by their suffixes, loader_find_map): a normal map in tangent space (skin_mesh.tangents), a
     * specular map; NULL for none (flat, and the default highlight). */
    const char *const *normal_map_paths;
    const char *const *specular_map_paths;
    int clip_count;
    const anim_clip *clips;            /* the clip library, in the order of clips.ini */
    int sync_group_count;
    const char (*sync_group_names)[ANIM_NAME_MAX]; /* anim_clip.sync_group indexes these */
    state_machine_definition machine;  /* state_count 0 when loaded without a states file */
    int blend_count;
    const anim_blend *blends;          /* states.ini's [blend NAME] sections, in their order */
    /* Per joint of its skeleton: the overlay mask of the branch from that joint (1 on it and its descendants,
     * 0 elsewhere) where a state's overlay_root is that joint, else NULL; its entities share them. NULL
     * altogether (a character made by hand, or out of memory): each entity keeps its own copies. */
    const float *const *branch_masks;
    /* The import (characters.ini scale or height, up, forward): the mesh and clips stay as their files
     * have them, shared in the cache; an entity's model matrix is its placement times `import`, which
     * takes file space to the engine's canonical MD5 space (Z up, facing +X, metres). */
    float scale;                       /* file units to metres (resolved from `height` when given that) */
    anim_axes axes;                    /* file axes to canonical; anim_axes_canonical() for up +Z, forward +X */
    mat4 rotation;                     /* the same as a matrix: canonical = rotation * file */
    mat4 import;                       /* scale * rotation */
    float height_m;                    /* the bind pose's height after import, metres: the skinned mesh's
                                        * extent along the up axis (0 without a model) */
    /* Its legs, found by name and hierarchy (anim_feet.h); each clip says when it plants their feet
     * (anim_clip.planted). 0 to ANIM_FEET_MAX. */
    int leg_count;
    pose_ik_chain legs[ANIM_FEET_MAX];
    pose_ik_leg ik_legs[ANIM_FEET_MAX]; /* the same legs made ready for its skeleton (pose_ik_leg_prepare);
                                         * one that could not be (a branch of over POSE_IK_LEG_JOINTS
                                         * joints) is all zero, and is bent the general way */
    int pelvis; /* the joint the foot IK lowers (anim_foot_lock_pelvis of the legs), -1 without legs */
    /* characters.ini `skinning`: how its vertices follow its joints (linear blend unless it says
     * dual_quaternion); a renderer may override it for every character at once (the demo's toggle). */
    pose_skinning skinning;
    /* Its look-at (characters.ini look, look_chain, look_shares, look_yaw, look_pitch, look_speed; the
     * chain found by name when not given): look.chain.joint_count 0 when it has none. */
    anim_look_settings look;
    /* characters.ini foot_lock, foot_lock_release, foot_lock_reach: planted feet held where they planted
     * (anim_foot_lock.h); on by default. foot_ik: feet placed on the ground under them; off by default. */
    anim_foot_lock_settings foot_lock;
} anim_character;

#endif
