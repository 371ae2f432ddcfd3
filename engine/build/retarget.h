/* retarget: playing a clip made for one humanoid skeleton on another. Two parts:
 *   - the joint map: which joint of a skeleton plays each role of a humanoid (hips, spine, legs, arms,
 *     head), found from the skeleton's structure in its bind pose (two chains that reach the ground on
 *     either side of one joint are the legs, the chain that reaches the top is the spine, the chains that
 *     reach furthest sideways from it are the arms), so joint names in any language or rig convention do
 *     not matter; names only pick the head among the joints above the neck. Any role may be given instead.
 *   - the bake (build_retargeted_clip): every frame of the source clip turned into a frame of the target
 *     skeleton, once at load (the cache shares the result, as it does additive clips):
 *       * each mapped joint turns in object space by what its source joint turned from its own bind pose
 *         (rotations relative to each skeleton's rest pose), after a fixed turn that lays the target's
 *         rest bone along the source's (so an arm at rest straight out follows one at rest hanging at 45
 *         degrees; not for feet and toes, which stay as level as their rest pose has them), with the change
 *         of axes between the two files (up and forward) applied;
 *       * the hips (and a root joint above them) move by the source's travel times the ratio of the leg
 *         lengths (target over source), so a longer-legged body strides further and its feet do not slide;
 *         every other mapped joint keeps the target's own bone lengths;
 *       * joints with no role keep their bind pose relative to their parent.
 * Knows nothing of files, of the cache or of the animation config. */
#ifndef MARIONETTE_RETARGET_H
#define MARIONETTE_RETARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/diag.h"
#include "../model/clip.h"
#include "../model/model.h"

typedef enum retarget_role {
    RETARGET_ROOT, /* the topmost joint above the hips, when the hips are not a root: carries travel */
    RETARGET_HIPS,
    RETARGET_SPINE,
    RETARGET_SPINE2,
    RETARGET_CHEST, /* where the arms branch off */
    RETARGET_NECK,
    RETARGET_HEAD,
    RETARGET_UPPER_LEG_L,
    RETARGET_LOWER_LEG_L,
    RETARGET_FOOT_L,
    RETARGET_TOE_L,
    RETARGET_UPPER_LEG_R,
    RETARGET_LOWER_LEG_R,
    RETARGET_FOOT_R,
    RETARGET_TOE_R,
    RETARGET_SHOULDER_L,
    RETARGET_UPPER_ARM_L,
    RETARGET_LOWER_ARM_L,
    RETARGET_HAND_L,
    RETARGET_SHOULDER_R,
    RETARGET_UPPER_ARM_R,
    RETARGET_LOWER_ARM_R,
    RETARGET_HAND_R,
    RETARGET_ROLE_COUNT
} retarget_role;

/* How a role's joint was found. */
typedef enum retarget_found {
    RETARGET_NONE = 0,      /* no joint plays it */
    RETARGET_BY_STRUCTURE,  /* from the bind pose's shape */
    RETARGET_BY_NAME,       /* from the joint's name */
    RETARGET_GIVEN          /* given by the caller (characters.ini map.ROLE) */
} retarget_found;

/* A skeleton's joint per role: joints[r] is a joint index, or -1. All 4-byte members: the map is part of a
 * cache key as it is. */
typedef struct retarget_map {
    int32_t joints[RETARGET_ROLE_COUNT];
} retarget_map;

/* "found by structure", "found by name", "given" or "none": how, as the files and md5tool say it. */
const char *retarget_found_name(retarget_found how);

/* "hips", "upper_leg.L", ...: the role's name in characters.ini (map.NAME) and in messages. */
const char *retarget_role_name(retarget_role role);
/* The role named, or -1. */
int retarget_role_from_name(const char *name);
/* The roles a map must have to be played: the hips and both legs (upper leg, lower leg, foot). */
bool retarget_role_required(retarget_role role);

/* A map with every role at -1. */
retarget_map retarget_map_empty(void);

/* The map of model's skeleton, its file's up and forward axes (unit vectors along a file axis, forward
 * perpendicular to up) saying which way is up and which side is left. The bind pose may face another way than
 * the clips do (some exporters turn it a quarter): forward is tried first, then turned about up a quarter at a
 * time, keeping the way that maps along which the toes point furthest (the first that maps when no toes
 * tell); bind_forward (may be NULL)
 * gets the way the bind pose was found to face. Roles set in given (>= 0) are taken as they are; the others
 * are found (found[r] says how; it may be NULL). False with err set when a joint is given for two roles, a
 * given joint is out of range, or a required role is neither given nor found ("no two legs..."); out is
 * filled as far as it got either way. */
bool retarget_map_find(const model *m, const float up[3], const float forward[3], const retarget_map *given,
                       retarget_map *out, retarget_found found[RETARGET_ROLE_COUNT], float bind_forward[3],
                       diag *err);

/* Everything a bake depends on besides the clip and the two skeletons: the two maps, the two files' axes (up,
 * and forward as the clips face) and the way each bind pose faces (retarget_map_find's bind_forward: a bind
 * pose facing elsewhere is turned about up to face forward before anything is compared). All 4-byte members,
 * no padding: a cache key as it is. */
typedef struct retarget_spec {
    retarget_map source_map;
    retarget_map target_map;
    float source_up[3], source_forward[3], source_bind_forward[3];
    float target_up[3], target_forward[3], target_bind_forward[3];
} retarget_spec;

/* The target's leg length over the source's (upper leg to lower leg to foot in the bind pose, the two legs
 * averaged): what the source's travel and speeds are multiplied by. 0 when a leg is missing or of length 0. */
float retarget_travel_scale(const skeleton *source, const skeleton *target, const retarget_spec *spec);

/* A new clip (free with clip_free) for target's skeleton playing source's frames (source fits
 * source_skeleton), as the header says. Timing is source's; bounds are the target joints' box per frame.
 * False, *out NULL and err filled (file "retarget") when a map lacks a required role, names a joint out of
 * range, the clip does not fit source_skeleton, the legs have no length, or memory runs out. */
bool build_retargeted_clip(const clip *source, const skeleton *source_skeleton, const skeleton *target_skeleton,
                           const retarget_spec *spec, clip **out, diag *err);

#endif
