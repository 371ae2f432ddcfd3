/* scene: see scene.h. */
#include "scene.h"

#include "pose/pose.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Members per chunk of the parallel palette writes: a palette is a fraction of a microsecond. */
enum { SCENE_PALETTE_CHUNK = 256 };

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
    for (int c = 0; c < anim_config_character_count(config); ++c) {
        const anim_character *character = anim_config_character(config, c);
        if (scene_mesh(s, character->model).id != 0)
            continue;
        if (s->model_count == SCENE_MAX_MODELS)
            return diag_set(err, character->name, 0, "more than %d different bodies", SCENE_MAX_MODELS);
        gfx_mesh mesh = gfx_make_mesh(
            &(gfx_mesh_desc){.model = character->model, .label = character->name, .path = character->mesh_path}, err,
            warnings);
        if (mesh.id == 0)
            return false;
        s->models[s->model_count] = character->model;
        s->meshes[s->model_count++] = mesh;
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
    free(s->crowd_palettes);
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

/* Queue one entity with gfx and return where its palette goes (NULL when culled); its object pose in
 * *object. false when it cannot be drawn (no mesh for its body, no pose) or gfx refused it. */
static bool scene_queue(scene *s, const animator *animator, mat4 world, const scene_views *views,
                        const float tint[4], const joint_pose **object, mat4 **destination)
{
    *destination = NULL;
    const model *m = animator_character(animator)->model;
    const anim_controller *controller = animator_controller(animator);
    const skeleton *skeleton = &m->skeleton;
    gfx_mesh mesh = scene_mesh(s, m);
    *object = anim_controller_object_pose(controller);
    /* What pose_palette refuses is refused here, before a slot is taken that would then stay unwritten. */
    if (mesh.id == 0 || !*object || !skeleton->inverse_bind || skeleton->joint_count <= 0)
        return false;
    gfx_instance instance = {.mesh = mesh, .joint_count = skeleton->joint_count};
    /* The bounds, the pose and the mesh stay in the file's units and axes; the import goes in the matrix. */
    scene_model_world(animator_character(animator), world, instance.world);
    if (tint)
        memcpy(instance.tint, tint, sizeof instance.tint);
    if (anim_controller_bounds(controller, instance.bounds)) {
        for (int k = 0; k < 3; ++k) {
            instance.bounds[0][k] -= m->skin_reach;
            instance.bounds[1][k] += m->skin_reach;
        }
    }
    int culled_before = gfx_frame_stats().culled;
    *destination = gfx_submit_palette(&instance);
    if (!*destination && gfx_frame_stats().culled == culled_before)
        return false; /* refused, not culled: gfx_last_error says why */
    ++s->submitted;
    if (views && views->skeleton)
        gfx_debug_skeleton(instance.world, skeleton, *object, (float *)SCENE_SKELETON_COLOR);
    if (views && views->bounds)
        gfx_debug_box(instance.world, instance.bounds, (float *)SCENE_BOUNDS_COLOR);
    return true;
}

static void scene_write_palette(const animator *animator, const joint_pose *object, mat4 *destination)
{
    const skeleton *skeleton = &animator_character(animator)->model->skeleton;
    pose_palette(object, (const mat4 *)skeleton->inverse_bind, skeleton->joint_count, destination);
}

bool scene_submit(scene *s, const animator *animator, mat4 world, const scene_views *views, const float tint[4])
{
    const joint_pose *object;
    mat4 *destination;
    if (!scene_queue(s, animator, world, views, tint, &object, &destination))
        return false;
    if (destination)
        scene_write_palette(animator, object, destination);
    return true;
}

int scene_queue_crowd(scene *s, const crowd *crowd, const scene_views *views)
{
    int count = crowd_count(crowd);
    if (count > s->crowd_palette_capacity) {
        int capacity = s->crowd_palette_capacity ? s->crowd_palette_capacity : 64;
        while (capacity < count)
            capacity *= 2;
        mat4 **palettes = realloc(s->crowd_palettes, (size_t)capacity * sizeof *palettes);
        if (!palettes)
            return 0; /* the crowd is not drawn this frame; the next frame tries again */
        s->crowd_palettes = palettes;
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
        scene_queue(s, crowd_animator(crowd, i), world, views, NULL, &object, &s->crowd_palettes[i]);
    }
    return count;
}

typedef struct scene_palette_work {
    const crowd *crowd;
    mat4 *const *destinations;
} scene_palette_work;

static void scene_write_palettes(void *context, int begin, int end, int worker)
{
    (void)worker;
    const scene_palette_work *work = context;
    for (int i = begin; i < end; ++i) {
        if (!work->destinations[i])
            continue;
        const animator *animator = crowd_animator(work->crowd, i);
        scene_write_palette(animator, anim_controller_object_pose(animator_controller(animator)),
                            work->destinations[i]);
    }
}

void scene_write_crowd_palettes(const crowd *crowd, mat4 *const *destinations, int count, jobs *jobs)
{
    if (!destinations)
        return;
    scene_palette_work work = {crowd, destinations};
    count = count < crowd_count(crowd) ? count : crowd_count(crowd);
    jobs_parallel_for(jobs, count, SCENE_PALETTE_CHUNK, scene_write_palettes, &work);
}
