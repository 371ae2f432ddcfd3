/* scene: see scene.h. */
#include "scene.h"

#include "look.h"
#include "platform/platform_image.h"
#include "pose/pose.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Members per chunk of the parallel palette writes: a palette is a fraction of a microsecond. */
enum { SCENE_PALETTE_CHUNK = 256 };

static const float SCENE_SKELETON_COLOR[4] = {1.0f, 0.25f, 0.2f, 1.0f};
static const float SCENE_POSE_BOX_COLOR[4] = {1.0f, 0.9f, 0.2f, 0.9f};
static const float SCENE_CULLING_BOX_COLOR[4] = {0.55f, 0.5f, 0.35f, 0.45f};
static const float SCENE_LOOK_TARGET_COLOR[4] = {1.0f, 0.6f, 0.1f, 1.0f};
#define SCENE_LOOK_FACING_METRES 0.4f
#define SCENE_LOOK_CROSS_METRES 0.06f
/* The foot IK view's: the held feet's contacts, the normal's length, the pelvis's drop. */
static const float SCENE_FOOT_CONTACT_COLOR[4] = {1.0f, 0.9f, 0.1f, 1.0f};
static const float SCENE_PELVIS_DROP_COLOR[4] = {1.0f, 0.2f, 0.9f, 1.0f};
#define SCENE_FOOT_NORMAL_METRES 0.15f

static int scene_model_index(const scene *s, const model *m)
{
    for (int i = 0; i < s->model_count; ++i)
        if (s->models[i] == m)
            return i;
    return -1;
}

gfx_mesh scene_mesh(const scene *s, const anim_character *character)
{
    for (int i = 0; i < s->character_count; ++i)
        if (s->characters[i] == character)
            return s->character_meshes[i] >= 0 ? s->meshes[s->character_meshes[i]] : (gfx_mesh){0};
    return (gfx_mesh){0};
}

pose_skinning scene_character_skinning(const scene *s, const anim_character *character)
{
    if (s->skinning == SCENE_SKINNING_LINEAR)
        return POSE_SKINNING_LINEAR;
    if (s->skinning == SCENE_SKINNING_DUAL_QUATERNION)
        return POSE_SKINNING_DUAL_QUATERNION;
    return character->skinning;
}

const char *scene_skinning_name(scene_skinning skinning)
{
    static const char *const names[SCENE_SKINNING_COUNT] = {"as characters.ini says", "linear", "dual quaternion"};
    return skinning >= 0 && skinning < SCENE_SKINNING_COUNT ? names[skinning] : "?";
}

bool scene_pose_bounds(scene *s, const animator *animator, float out[2][3])
{
    const anim_character *character = animator ? animator_character(animator) : NULL;
    const model *m = character ? character->model : NULL;
    if (!m || scene_model_index(s, m) < 0 || m->skeleton.joint_count > s->bounds_palette_joints)
        return false;
    const joint_pose *object = anim_controller_object_pose(animator_controller(animator));
    const mat4 *inverse_bind = (const mat4 *)m->skeleton.inverse_bind;
    int joints = m->skeleton.joint_count;
    if (scene_character_skinning(s, character) == POSE_SKINNING_DUAL_QUATERNION) {
        /* Half a matrix each: the room of the bounds palette holds them. */
        pose_dual_quaternion *palette = (pose_dual_quaternion *)s->bounds_palette;
        return pose_dual_quaternion_palette(object, m->skeleton.bind_object, joints, palette) &&
               pose_skinned_bounds_dual_quaternion(m->meshes, m->mesh_count, palette, joints, out);
    }
    return pose_palette(object, inverse_bind, joints, s->bounds_palette) &&
           pose_skinned_bounds(m->meshes, m->mesh_count, (const mat4 *)s->bounds_palette, joints, out);
}

/* FNV-1a over the image paths of a character and their files' stamps: equal keys, equal pictures. */
static unsigned long long scene_texture_key(const anim_character *character)
{
    unsigned long long hash = 14695981039346656037ull;
    const char *const *const lists[3] = {character->texture_paths, character->normal_map_paths,
                                         character->specular_map_paths};
    for (int k = 0; k < 3 * character->model->mesh_count; ++k) {
        const char *const *paths = lists[k / character->model->mesh_count];
        const char *path = paths ? paths[k % character->model->mesh_count] : NULL;
        struct stat status;
        long long stamp[4] = {-1, -1, -1, -1};
        if (path && stat(path, &status) == 0) {
            stamp[0] = (long long)status.st_mtim.tv_sec;
            stamp[1] = (long long)status.st_mtim.tv_nsec;
            stamp[2] = (long long)status.st_size;
            stamp[3] = (long long)status.st_ino;
        }
        const unsigned char *bytes = (const unsigned char *)(path ? path : "");
        for (size_t i = 0, length = strlen((const char *)bytes) + 1; i < length; ++i)
            hash = (hash ^ bytes[i]) * 1099511628211ull;
        for (size_t i = 0; i < sizeof stamp; ++i)
            hash = (hash ^ ((const unsigned char *)stamp)[i]) * 1099511628211ull;
    }
    return hash;
}

gfx_mesh scene_make_dressed_mesh(image_cache *images, const gfx_mesh_desc *desc, const char *const *texture_paths,
                                 const image **held, diag *err, diag_list *warnings)
{
    return scene_make_mapped_mesh(images, desc, texture_paths, NULL, NULL, held, err, warnings);
}

gfx_mesh scene_make_mapped_mesh(image_cache *images, const gfx_mesh_desc *desc, const char *const *texture_paths,
                                const char *const *normal_map_paths, const char *const *specular_map_paths,
                                const image **held, diag *err, diag_list *warnings)
{
    const model *m = desc->model;
    int count = m && m->mesh_count > 0 && m->meshes ? m->mesh_count : 0;
    bool mapped = normal_map_paths || specular_map_paths;
    gfx_image *pixels = calloc(count > 0 ? 3 * (size_t)count : 1, sizeof *pixels);
    if (!pixels) {
        diag_set(err, desc->label ? desc->label : "mesh", 0, "out of memory");
        return (gfx_mesh){0};
    }
    const char *label = desc->label ? desc->label : "mesh";
    for (int i = 0; i < count; ++i) {
        const skin_mesh *part = &m->meshes[i];
        const char *path = texture_paths ? texture_paths[i] : part->texture_path;
        /* Image problems are reported at the shader statement that names the image, when the file is known. */
        const char *where = desc->path ? desc->path : label;
        int line = desc->path ? part->shader_line : 0;
        held[i] = path ? image_cache_acquire(images, path, where, line, label, warnings) : NULL;
        if (!path)
            diag_list_add(warnings, where, line, "%s: shader \"%s\" names no image found; using the placeholder",
                          label, part->shader ? part->shader : "");
        if (held[i])
            pixels[i] = (gfx_image){.rgba = held[i]->rgba, .width = held[i]->width, .height = held[i]->height,
                                    .key = held[i]->id};
        /* The maps, when there are paths for them: a missing one is no message (drawn without), a refused
         * file is said by the image cache at the shader line. */
        const char *map_paths[2] = {normal_map_paths ? normal_map_paths[i] : NULL,
                                    specular_map_paths ? specular_map_paths[i] : NULL};
        for (int k = 0; mapped && k < 2; ++k) {
            const image **map = &held[(k + 1) * count + i];
            *map = map_paths[k] ? image_cache_acquire_as(images, map_paths[k], where, line, label,
                                                         k ? "specular map" : "normal map", "drawn without it",
                                                         warnings)
                                : NULL;
            if (*map)
                pixels[(k + 1) * count + i] = (gfx_image){.rgba = (*map)->rgba, .width = (*map)->width,
                                                          .height = (*map)->height, .key = (*map)->id};
        }
    }
    gfx_mesh_desc dressed = *desc;
    dressed.images = pixels;
    dressed.normal_maps = mapped ? pixels + count : NULL;
    dressed.specular_maps = mapped ? pixels + 2 * count : NULL;
    gfx_mesh mesh = gfx_make_mesh(&dressed, err, warnings);
    free(pixels);
    if (mesh.id == 0)
        scene_release_images(images, held, mapped ? 3 * count : count);
    return mesh;
}

void scene_release_images(image_cache *images, const image **held, int count)
{
    for (int i = 0; held && i < count; ++i) {
        image_cache_release(images, held[i]);
        held[i] = NULL;
    }
}

/* The mesh index for a character, made when no body dressed the same exists; -1 with err when it fails. */
static int scene_mesh_for(scene *s, cache *cache, const anim_character *character, diag *err, diag_list *warnings)
{
    unsigned long long key = scene_texture_key(character);
    for (int i = 0; i < s->model_count; ++i)
        if (s->models[i] == character->model && s->texture_keys[i] == key)
            return i;
    if (s->model_count == SCENE_MAX_MODELS) {
        diag_set(err, character->name, 0, "more than %d different bodies", SCENE_MAX_MODELS);
        return -1;
    }
    if (!s->images) {
        s->images = image_cache_create(&(image_cache_desc){.decode = platform_image_decode});
        if (!s->images) {
            diag_set(err, character->name, 0, "out of memory for the image cache");
            return -1;
        }
    }
    int parts = character->model->mesh_count;
    const image **held = calloc(parts > 0 ? 3 * (size_t)parts : 1, sizeof *held); /* images, then maps */
    if (!held) {
        diag_set(err, character->name, 0, "out of memory");
        return -1;
    }
    /* Levels of detail come from the cache (made there once per model) and live on the GPU only, so they are
     * let go once uploaded: a body that cannot have them (the simplifier refused it) draws whole at every
     * distance, with a warning. */
    diag lod_err;
    cache_lods_handle lods = cache_load_lods(cache, character->model_handle, NULL, &lod_err);
    if (!lods.id)
        diag_list_add(warnings, character->mesh_path ? character->mesh_path : character->name, lod_err.line,
                      "%s: no levels of detail (%s); drawn whole at every distance", character->name,
                      lod_err.message);
    gfx_mesh mesh = scene_make_mapped_mesh(s->images,
                                           &(gfx_mesh_desc){.model = character->model, .label = character->name,
                                                            .path = character->mesh_path,
                                                            .lods = cache_lods(cache, lods)},
                                           character->texture_paths, character->normal_map_paths,
                                           character->specular_map_paths, held, err, warnings);
    cache_release_lods(cache, lods);
    if (mesh.id == 0) {
        free(held);
        return -1;
    }
    s->mesh_images[s->model_count] = held;
    s->mesh_image_counts[s->model_count] = parts > 0 ? 3 * parts : 0;
    s->models[s->model_count] = character->model;
    s->texture_keys[s->model_count] = key;
    s->meshes[s->model_count] = mesh;
    return s->model_count++;
}

bool scene_sync(scene *s, const anim_config *config, diag *err, diag_list *warnings)
{
    int count = anim_config_character_count(config);
    if (count > s->character_capacity) {
        const anim_character **characters = realloc(s->characters, (size_t)count * sizeof *characters);
        if (characters)
            s->characters = characters;
        int *character_meshes = realloc(s->character_meshes, (size_t)count * sizeof *character_meshes);
        if (character_meshes)
            s->character_meshes = character_meshes;
        if (!characters || !character_meshes)
            return diag_set(err, "scene", 0, "out of memory");
        s->character_capacity = count;
    }
    s->character_count = 0;
    for (int c = 0; c < count; ++c) {
        const anim_character *character = anim_config_character(config, c);
        int index = scene_mesh_for(s, anim_config_cache(config), character, err, warnings);
        if (index < 0)
            return false; /* the meshes made so far stay; the characters not bound yet are not drawn */
        s->characters[s->character_count] = character;
        s->character_meshes[s->character_count++] = index;
        int joints = character->model->skeleton.joint_count;
        if (joints > s->bounds_palette_joints) {
            /* NULL (no memory) only costs the bounds view its pose box; the culling box is still drawn. */
            mat4 *palette = realloc(s->bounds_palette, (size_t)joints * sizeof *palette);
            if (palette) {
                s->bounds_palette = palette;
                s->bounds_palette_joints = joints;
            }
        }
    }
    /* Meshes no character draws with any more (a mesh file edited, a body removed, an image changed) go. */
    for (int i = 0; i < s->model_count;) {
        bool used = false;
        for (int c = 0; c < s->character_count && !used; ++c)
            used = s->character_meshes[c] == i;
        if (used) {
            ++i;
            continue;
        }
        gfx_destroy_mesh(s->meshes[i]);
        scene_release_images(s->images, s->mesh_images[i], s->mesh_image_counts[i]);
        free(s->mesh_images[i]);
        int last = --s->model_count;
        s->models[i] = s->models[last];
        s->texture_keys[i] = s->texture_keys[last];
        s->meshes[i] = s->meshes[last];
        s->mesh_images[i] = s->mesh_images[last];
        s->mesh_image_counts[i] = s->mesh_image_counts[last];
        for (int c = 0; c < s->character_count; ++c)
            if (s->character_meshes[c] == last)
                s->character_meshes[c] = i;
    }
    return true;
}

void scene_free(scene *s)
{
    for (int i = 0; i < s->model_count; ++i) {
        gfx_destroy_mesh(s->meshes[i]);
        free(s->mesh_images[i]); /* the cache below frees the images themselves */
    }
    image_cache_destroy(s->images);
    free(s->crowd_palettes);
    free(s->crowd_lods);
    free(s->bounds_palette);
    free(s->characters);
    free(s->character_meshes);
    memset(s, 0, sizeof *s);
}

void scene_model_world(const anim_character *character, mat4 placement, mat4 out)
{
    const anim_axes canonical = anim_axes_canonical();
    bool turned = character->axes.sign[0] != 0 && memcmp(&character->axes, &canonical, sizeof canonical) != 0;
    if (!turned && (character->scale == 1.0f || character->scale == 0.0f)) {
        glm_mat4_copy(placement, out); /* as before imports existed, bit for bit */
        return;
    }
    /* gfx_z_up_to_y_up, written out so that its zeros and ones are exact: (x, y, z) -> (x, z, -y). */
    mat4 turn = {{1, 0, 0, 0}, {0, 0, -1, 0}, {0, 1, 0, 0}, {0, 0, 0, 1}};
    mat4 unturn, turned_import, import_y_up;
    glm_mat4_transpose_to(turn, unturn);
    glm_mat4_mul(turn, (vec4 *)character->import, turned_import);
    glm_mat4_mul(turned_import, unturn, import_y_up);
    glm_mat4_mul(placement, import_y_up, out);
}

bool scene_culling_box(const animator *animator, mat4 placement, mat4 world, float bounds[2][3])
{
    const anim_character *character = animator_character(animator);
    /* The bounds, the pose and the mesh stay in the file's units and axes; the import goes in the matrix. */
    scene_model_world(character, placement, world);
    if (!anim_controller_bounds(animator_controller(animator), bounds))
        return false;
    for (int k = 0; k < 3; ++k) {
        bounds[0][k] -= character->model->skin_reach;
        bounds[1][k] += character->model->skin_reach;
    }
    return true;
}

/* The look-at view for an entity that looks at something or is turning back from it: a line from its head
 * along its face (cyan, dim to bright with the weight); while it has a target, a cross there and a line to
 * it (amber, faint while the target is out of reach and the weight at 0). */
static void scene_draw_look(const animator *animator, mat4 placement)
{
    const anim_character *character = animator_character(animator);
    const pose_aim_chain *chain = &character->look.chain;
    float target[3], weight = animator_look_weight(animator);
    bool has_target = animator_look_target(animator, target);
    if (chain->joint_count == 0 || (!has_target && weight <= 0.0f))
        return;
    const joint_pose *head = &anim_controller_object_pose(animator_controller(animator))[chain->joints[0]];
    float units = SCENE_LOOK_FACING_METRES / (character->scale > 0.0f ? character->scale : 1.0f);
    vec3 facing, ahead, head_world, ahead_world;
    glm_quat_rotatev((float *)head->rotation, (float *)chain->forward, facing);
    glm_vec3_scale(facing, units, facing);
    glm_vec3_add(facing, (float *)head->position, ahead);
    look_object_to_world(character, placement, head->position, head_world);
    look_object_to_world(character, placement, ahead, ahead_world);
    vec4 facing_color = {0.2f, 0.4f + 0.6f * weight, 0.5f + 0.5f * weight, 1.0f};
    gfx_debug_line(head_world, ahead_world, facing_color);
    if (!has_target)
        return;
    vec3 target_world;
    look_object_to_world(character, placement, target, target_world);
    vec4 sight_color = {1.0f, 0.6f, 0.1f, 0.15f + 0.5f * weight};
    gfx_debug_line(head_world, target_world, sight_color);
    gfx_debug_cross(target_world, SCENE_LOOK_CROSS_METRES, (float *)SCENE_LOOK_TARGET_COLOR);
}

/* The foot IK view: for each foot, a line from the ankle down to the ground under it and the ground's normal
 * there (green, brighter with the placement's strength; grey while the foot swings unplaced), a yellow cross
 * on the ground where a held foot is held (its contact), and a magenta line up from the pelvis as long as
 * it is lowered. */
static void scene_draw_feet(const animator *animator, mat4 placement, const ground *ground)
{
    const anim_character *character = animator_character(animator);
    const anim_foot_lock_state *state = animator_foot_lock(animator);
    const joint_pose *object = anim_controller_object_pose(animator_controller(animator));
    if (!state || !object)
        return;
    for (int f = 0; f < character->leg_count; ++f) {
        const anim_foot_lock_foot *foot = &state->feet[f];
        vec3 ankle;
        look_object_to_world(character, placement, object[character->legs[f].ankle].position, ankle);
        ground_sample under = ground_at(ground, ankle[0], ankle[2]);
        vec3 on_ground = {ankle[0], under.height, ankle[2]}, along_normal;
        glm_vec3_scale(under.normal, SCENE_FOOT_NORMAL_METRES, along_normal);
        glm_vec3_add(on_ground, along_normal, along_normal);
        float strength = foot->ik;
        vec4 color = {0.5f - 0.4f * strength, 0.5f + 0.5f * strength, 0.5f - 0.3f * strength, 1.0f};
        gfx_debug_line(ankle, on_ground, color);
        gfx_debug_line(on_ground, along_normal, color);
        if (!foot->held)
            continue;
        float height = ground_at(ground, foot->at[0], foot->at[1]).height;
        for (int axis = 0; axis < 3; axis += 2) {
            vec3 from = {foot->at[0], height, foot->at[1]}, to = {foot->at[0], height, foot->at[1]};
            from[axis] -= SCENE_LOOK_CROSS_METRES;
            to[axis] += SCENE_LOOK_CROSS_METRES;
            gfx_debug_line(from, to, (float *)SCENE_FOOT_CONTACT_COLOR);
        }
    }
    int pelvis = anim_foot_lock_pelvis(&character->model->skeleton, character->legs, character->leg_count);
    if (pelvis >= 0 && state->pelvis_drop > 0.0f) {
        vec3 hips, raised;
        look_object_to_world(character, placement, object[pelvis].position, hips);
        glm_vec3_copy(hips, raised);
        raised[1] += state->pelvis_drop;
        gfx_debug_line(hips, raised, (float *)SCENE_PELVIS_DROP_COLOR);
    }
}

/* Queue one entity with gfx and say where its palette goes, matrices or dual quaternions as the scene
 * skins its character (an empty slot when culled); its object pose in *object. false when it cannot be
 * drawn (no mesh for its body, no pose) or gfx refused it. */
static bool scene_queue(scene *s, const animator *animator, mat4 world, const scene_views *views,
                        const float tint[4], gfx_lod_memory *lod, const joint_pose **object,
                        scene_palette_slot *destination)
{
    *destination = (scene_palette_slot){0};
    const anim_character *character = animator_character(animator);
    const model *m = character->model;
    const anim_controller *controller = animator_controller(animator);
    const skeleton *skeleton = &m->skeleton;
    gfx_mesh mesh = scene_mesh(s, character);
    *object = anim_controller_object_pose(controller);
    /* What pose_palette refuses is refused here, before a slot is taken that would then stay unwritten. */
    if (mesh.id == 0 || !*object || !skeleton->inverse_bind || skeleton->joint_count <= 0)
        return false;
    gfx_instance instance = {.mesh = mesh, .joint_count = skeleton->joint_count, .lod = lod,
                             .skinning = scene_character_skinning(s, character)};
    scene_culling_box(animator, world, instance.world, instance.bounds); /* no box: all zero, never culled */
    if (tint)
        memcpy(instance.tint, tint, sizeof instance.tint);
    int culled_before = gfx_frame_stats().culled;
    if (instance.skinning == POSE_SKINNING_DUAL_QUATERNION)
        destination->dual_quaternions = gfx_submit_dual_quaternions(&instance);
    else
        destination->matrices = gfx_submit_palette(&instance);
    if (!destination->matrices && !destination->dual_quaternions && gfx_frame_stats().culled == culled_before)
        return false; /* refused, not culled: gfx_last_error says why */
    ++s->submitted;
    if (views && views->skeleton)
        gfx_debug_skeleton(instance.world, skeleton, *object, (float *)SCENE_SKELETON_COLOR);
    if (views && views->look_at)
        scene_draw_look(animator, world);
    if (views && views->foot_ik)
        scene_draw_feet(animator, world, views->ground);
    if (views && views->bounds) {
        /* Dim, the culling box: loose by design (clip bounds grown by the skin reach), it must never cut
         * a limb off. Bright, the box of this pose's skinned mesh. */
        gfx_debug_box(instance.world, instance.bounds, (float *)SCENE_CULLING_BOX_COLOR);
        float pose_box[2][3];
        if (scene_pose_bounds(s, animator, pose_box))
            gfx_debug_box(instance.world, pose_box, (float *)SCENE_POSE_BOX_COLOR);
    }
    return true;
}

static void scene_write_palette(const animator *animator, const joint_pose *object, const scene_palette_slot *slot)
{
    const skeleton *skeleton = &animator_character(animator)->model->skeleton;
    if (slot->dual_quaternions) /* from the bind pose itself: no inverse bind matrix is needed */
        pose_dual_quaternion_palette(object, skeleton->bind_object, skeleton->joint_count,
                                     slot->dual_quaternions);
    else if (slot->matrices)
        pose_palette(object, (const mat4 *)skeleton->inverse_bind, skeleton->joint_count, slot->matrices);
}

bool scene_submit(scene *s, const animator *animator, mat4 world, const scene_views *views, const float tint[4],
                  gfx_lod_memory *lod)
{
    const joint_pose *object;
    scene_palette_slot destination;
    if (!scene_queue(s, animator, world, views, tint, lod, &object, &destination))
        return false;
    scene_write_palette(animator, object, &destination);
    return true;
}

int scene_queue_crowd(scene *s, const crowd *crowd, const scene_views *views)
{
    int count = crowd_count(crowd);
    if (count > s->crowd_palette_capacity) {
        int capacity = s->crowd_palette_capacity ? s->crowd_palette_capacity : 64;
        while (capacity < count)
            capacity *= 2;
        scene_palette_slot *palettes = realloc(s->crowd_palettes, (size_t)capacity * sizeof *palettes);
        if (palettes)
            s->crowd_palettes = palettes;
        gfx_lod_memory *lods = realloc(s->crowd_lods, (size_t)capacity * sizeof *lods);
        if (lods)
            s->crowd_lods = lods;
        if (!palettes || !lods)
            return 0; /* the crowd is not drawn this frame; the next frame tries again */
        /* New members start with no level remembered. */
        memset(lods + s->crowd_palette_capacity, 0, (size_t)(capacity - s->crowd_palette_capacity) * sizeof *lods);
        s->crowd_palette_capacity = capacity;
    }
    int most_joints = 0;
    for (int i = 0; i < s->model_count; ++i)
        most_joints = s->models[i]->skeleton.joint_count > most_joints ? s->models[i]->skeleton.joint_count
                                                                        : most_joints;
    /* Every slot handed out must stay where it is until the palettes are written. */
    if ((long long)count * most_joints > INT_MAX || !gfx_reserve(count, count * most_joints))
        return 0;
    for (int i = 0; i < count; ++i) {
        mat4 world;
        const joint_pose *object;
        crowd_world(crowd, i, world);
        scene_queue(s, crowd_animator(crowd, i), world, views, NULL, &s->crowd_lods[i], &object,
                    &s->crowd_palettes[i]);
    }
    return count;
}

typedef struct scene_palette_work {
    const crowd *crowd;
    const scene_palette_slot *destinations;
} scene_palette_work;

static void scene_write_palettes(void *context, int begin, int end, int worker)
{
    (void)worker;
    const scene_palette_work *work = context;
    /* Each member's pose sits behind two pointers in its own allocation: a block's poses are found together
     * (animator_object_poses asks for the next ones' lines as it goes), then written. */
    enum { BLOCK = 16 };
    for (int first = begin; first < end; first += BLOCK) {
        int count = end - first < BLOCK ? end - first : BLOCK;
        const animator *animators[BLOCK];
        const joint_pose *poses[BLOCK];
        for (int k = 0; k < count; ++k)
            animators[k] = crowd_animator(work->crowd, first + k);
        animator_object_poses(animators, count, poses);
        for (int k = 0; k < count; ++k) {
            const scene_palette_slot *destination = &work->destinations[first + k];
            if (destination->matrices || destination->dual_quaternions)
                scene_write_palette(animators[k], poses[k], destination);
        }
    }
}

void scene_write_crowd_palettes(const crowd *crowd, const scene_palette_slot *destinations, int count, jobs *jobs)
{
    if (!destinations)
        return;
    scene_palette_work work = {crowd, destinations};
    count = count < crowd_count(crowd) ? count : crowd_count(crowd);
    jobs_parallel_for(jobs, count, SCENE_PALETTE_CHUNK, scene_write_palettes, &work);
}
