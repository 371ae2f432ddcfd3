/* scene: see scene.h. */
#include "scene.h"

#include "pose/pose.h"

#include <stdlib.h>
#include <string.h>

static const float SCENE_SKELETON_COLOR[4] = {1.0f, 0.25f, 0.2f, 1.0f};
static const float SCENE_BOUNDS_COLOR[4] = {1.0f, 0.9f, 0.2f, 0.8f};

gfx_mesh scene_mesh(const scene *s, const model *m)
{
    for (int i = 0; i < s->model_count; ++i)
        if (s->models[i] == m)
            return s->meshes[i];
    return (gfx_mesh){0};
}

static bool config_uses(const anim_config *config, const model *m)
{
    for (int c = 0; c < anim_config_character_count(config); ++c)
        if (anim_config_character(config, c)->model == m)
            return true;
    return false;
}

bool scene_sync(scene *s, const anim_config *config, diag *err, diag_list *warnings)
{
    int joints = 0;
    for (int c = 0; c < anim_config_character_count(config); ++c) {
        const anim_character *character = anim_config_character(config, c);
        if (character->model->skeleton.joint_count > joints)
            joints = character->model->skeleton.joint_count;
        if (scene_mesh(s, character->model).id != 0)
            continue;
        if (s->model_count == SCENE_MAX_MODELS)
            return diag_set(err, character->name, 0, "more than %d different bodies", SCENE_MAX_MODELS);
        gfx_mesh mesh = gfx_make_mesh(&(gfx_mesh_desc){.model = character->model, .label = character->name},
                                      err, warnings);
        if (mesh.id == 0)
            return false;
        s->models[s->model_count] = character->model;
        s->meshes[s->model_count++] = mesh;
    }
    if (joints > s->palette_capacity) {
        mat4 *palette = realloc(s->palette, (size_t)joints * sizeof *palette);
        if (!palette)
            return diag_set(err, "scene", 0, "out of memory for a %d-joint palette", joints);
        s->palette = palette;
        s->palette_capacity = joints;
    }
    /* Models the config no longer names (a mesh file edited, a body removed) give their meshes back. */
    for (int i = 0; i < s->model_count;) {
        if (config_uses(config, s->models[i])) {
            ++i;
            continue;
        }
        gfx_destroy_mesh(s->meshes[i]);
        --s->model_count;
        s->models[i] = s->models[s->model_count];
        s->meshes[i] = s->meshes[s->model_count];
    }
    return true;
}

void scene_free(scene *s)
{
    for (int i = 0; i < s->model_count; ++i)
        gfx_destroy_mesh(s->meshes[i]);
    free(s->palette);
    memset(s, 0, sizeof *s);
}

bool scene_submit(scene *s, const animator *animator, mat4 world, const scene_views *views, const float tint[4])
{
    const model *m = animator_character(animator)->model;
    const anim_controller *controller = animator_controller(animator);
    const skeleton *skeleton = &m->skeleton;
    gfx_mesh mesh = scene_mesh(s, m);
    if (mesh.id == 0 || skeleton->joint_count > s->palette_capacity)
        return false;
    const joint_pose *object = anim_controller_object_pose(controller);
    if (!pose_palette(object, (const mat4 *)skeleton->inverse_bind, skeleton->joint_count, s->palette))
        return false;
    gfx_instance instance = {.mesh = mesh, .palette = (const mat4 *)s->palette, .joint_count = skeleton->joint_count};
    glm_mat4_copy(world, instance.world);
    if (tint)
        memcpy(instance.tint, tint, sizeof instance.tint);
    if (anim_controller_bounds(controller, instance.bounds)) {
        for (int k = 0; k < 3; ++k) {
            instance.bounds[0][k] -= m->skin_reach;
            instance.bounds[1][k] += m->skin_reach;
        }
    }
    if (!gfx_submit(&instance))
        return false;
    ++s->submitted;
    if (views && views->skeleton)
        gfx_debug_skeleton(world, skeleton, object, (float *)SCENE_SKELETON_COLOR);
    if (views && views->bounds)
        gfx_debug_box(world, instance.bounds, (float *)SCENE_BOUNDS_COLOR);
    return true;
}
