/* test_gfx: the GL renderer, headless (SDL offscreen driver, EGL, Mesa llvmpipe without a GPU).
 * GPU skinning captured from the real vertex shader matches pose_skin_cpu; a posed character stands where
 * the camera says, upright, not inside-out (culling with the MD5 winding changes nothing that faces the
 * camera, flipping the front face does); 1 and 200 instances cost the same draw calls; palettes written
 * straight into the mapped GPU buffer draw the same picture as palettes copied in, also when the buffer
 * grows while mapped and when the driver's mapping fails (GLEW's entry points replaced); the frame budget
 * (triangles per pass, levels, GPU time per pass from timer queries) adds up; no GL errors.
 * Every picture is saved under the build folder as gfx_*.png to be looked at. No GL context is a failure:
 * the project's setup installs Mesa, whose llvmpipe driver renders without a GPU. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <GL/glew.h>

#include "check.h"
#include "heap_counter.h"
#include "png.h"
#include "test_files.h"
#include "gfx/gfx.h"
#include "build/loader.h"
#include "gfx/gfx_bench.h"
#include "gfx/gfx_capture.h"
#include "image/image.h"
#include "md5/md5.h"
#include "platform/platform.h"
#include "platform/platform_image.h"
#include "pose/pose.h"
#include "ground_mesh.h"
#include "scene.h"
#include "test_limb.h"

enum { IMAGE_WIDTH = 512, IMAGE_HEIGHT = 512 };

#define MODEL_HEIGHT 1.8f

static const float BACKGROUND[4] = {0.2f, 0.4f, 0.6f, 1.0f};

/* ---- Assets and poses ---------------------------------------------------------------------------------- */

static model *load_model(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/assets/models/%s.md5mesh", MARIONETTE_SOURCE_DIR, name);
    model *m = NULL;
    diag err;
    if (!loader_load_md5_model(path, &m, &err, NULL)) {
        char message[DIAG_TEXT_MAX];
        diag_format(&err, message, sizeof message);
        fprintf(stderr, "%s\n", message);
        return NULL;
    }
    /* The bodies' shaders say "../textures/NAME.tga", which the model alone does not follow out of its
     * folder: the images are found as a character with `textures = ../assets/textures` finds them. */
    for (int i = 0; i < m->mesh_count; ++i) {
        char texture[512];
        if (!m->meshes[i].texture_path &&
            md5_find_texture_in_folder(MARIONETTE_SOURCE_DIR "/assets/textures", m->meshes[i].shader, texture,
                                       sizeof texture, NULL))
            m->meshes[i].texture_path = strdup(texture);
    }
    return m;
}

static clip *load_clip(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/assets/clips/%s.md5anim", MARIONETTE_SOURCE_DIR, name);
    clip *c = NULL;
    diag err;
    if (!loader_load_md5_clip(path, &c, &err, NULL)) {
        char message[DIAG_TEXT_MAX];
        diag_format(&err, message, sizeof message);
        fprintf(stderr, "%s\n", message);
        return NULL;
    }
    return c;
}

/* The clip at `time` on the model's skeleton: object-space joints and skin matrices. */
static bool pose_at(const model *m, const clip *c, float time, joint_pose *object, mat4 *palette)
{
    return pose_sample(c, time, true, object) &&
           pose_to_object(m->skeleton.parents, m->skeleton.joint_count, object, object) &&
           pose_palette(object, (const mat4 *)m->skeleton.inverse_bind, m->skeleton.joint_count, palette);
}

static int find_joint(const model *m, const char *name)
{
    for (int i = 0; i < m->skeleton.joint_count; ++i)
        if (strcmp(m->skeleton.names[i], name) == 0)
            return i;
    return -1;
}

/* ---- Shared state -------------------------------------------------------------------------------------- */

static model *mannequin, *robot;
static clip *walk, *run, *idle, *wave, *celebrate, *jump;
static gfx_mesh mannequin_mesh, robot_mesh;
enum { MAX_JOINTS = 64 };

static void save_picture(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", MARIONETTE_BUILD_DIR, name);
    diag err;
    bool saved = platform_save_png(path, &err);
    CHECK(saved);
    if (saved)
        printf("  picture: %s\n", path);
    else
        fprintf(stderr, "%s: %s\n", err.file, err.message);
}

/* A camera at eye looking at target; the frame desc everything here uses. */
static gfx_frame_desc camera_frame(vec3 eye, vec3 target, float field_of_view_degrees)
{
    gfx_frame_desc frame = {.width = IMAGE_WIDTH, .height = IMAGE_HEIGHT};
    glm_lookat(eye, target, (vec3){0.0f, 1.0f, 0.0f}, frame.view);
    glm_perspective(glm_rad(field_of_view_degrees), (float)IMAGE_WIDTH / (float)IMAGE_HEIGHT, 0.1f, 100.0f,
                    frame.projection);
    glm_vec3_copy(eye, frame.camera_position);
    glm_vec4_copy((float *)BACKGROUND, frame.clear_color);
    return frame;
}

/* A frame ended by `end_frame` (gfx_end_frame, or gfx_bench_end_naive_frame for a naive frame), then no GL
 * errors. */
static void end_frame_checked_by(void (*end_frame)(void))
{
    platform_begin_frame();
    end_frame();
    const char *errors = gfx_check_errors();
    CHECK(errors == NULL);
    if (errors)
        fprintf(stderr, "GL errors after a frame: %s\n", errors);
}

static void end_frame_checked(void)
{
    end_frame_checked_by(gfx_end_frame);
}

/* Meshes dressed as the demo dresses them: images read through an image cache (gfx reads no file) and
 * handed to gfx as pixels, held until the mesh is destroyed (destroy_dressed). */
static image_cache *images;
enum { DRESSED_MAX = 16, DRESSED_PARTS = 16 };
static struct {
    uint32_t id;
    const image *held[DRESSED_PARTS];
    int count;
} dressed[DRESSED_MAX];

static gfx_mesh make_dressed(gfx_mesh_desc desc, const char *const *paths, diag *err, diag_list *warnings)
{
    int slot = -1;
    for (int i = 0; i < DRESSED_MAX && slot < 0; ++i)
        if (dressed[i].id == 0)
            slot = i;
    CHECK(slot >= 0 && desc.model && desc.model->mesh_count <= DRESSED_PARTS);
    if (slot < 0 || !desc.model || desc.model->mesh_count > DRESSED_PARTS)
        return (gfx_mesh){0};
    gfx_mesh mesh = scene_make_dressed_mesh(images, &desc, paths, dressed[slot].held, err, warnings);
    if (mesh.id != 0) {
        dressed[slot].id = mesh.id;
        dressed[slot].count = desc.model->mesh_count;
    }
    return mesh;
}

static void destroy_dressed(gfx_mesh mesh)
{
    gfx_destroy_mesh(mesh);
    for (int i = 0; i < DRESSED_MAX; ++i) {
        if (mesh.id != 0 && dressed[i].id == mesh.id) {
            scene_release_images(images, dressed[i].held, dressed[i].count);
            dressed[i].id = 0;
        }
    }
}

/* gfx set up again with these capacities, and both meshes made again (their handles change). */
static void setup_again(gfx_desc desc)
{
    destroy_dressed(mannequin_mesh);
    destroy_dressed(robot_mesh);
    gfx_shutdown();
    diag err;
    CHECK(gfx_setup(&desc, &err));
    mannequin_mesh = make_dressed((gfx_mesh_desc){.model = mannequin, .label = "mannequin"}, NULL, &err, NULL);
    robot_mesh = make_dressed((gfx_mesh_desc){.model = robot, .label = "robot"}, NULL, &err, NULL);
    CHECK(mannequin_mesh.id != 0 && robot_mesh.id != 0);
}

/* Draw one character at the origin (identity world: standing, facing +X). */
static void draw_one(const gfx_frame_desc *frame, gfx_mesh mesh, const mat4 *palette, int joint_count)
{
    gfx_begin_frame(frame);
    gfx_instance instance = {.mesh = mesh, .palette = palette, .joint_count = joint_count};
    glm_mat4_identity(instance.world);
    bool submitted = gfx_submit(&instance);
    CHECK(submitted);
    if (!submitted)
        fprintf(stderr, "%s\n", gfx_last_error());
    end_frame_checked();
}

/* World point -> pixel (top row 0), as the frame's camera sees it. */
static void project(const gfx_frame_desc *frame, const vec3 world, float pixel[2])
{
    mat4 view_projection;
    glm_mat4_mul((vec4 *)frame->projection, (vec4 *)frame->view, view_projection);
    vec4 clip_space;
    glm_mat4_mulv(view_projection, (vec4){world[0], world[1], world[2], 1.0f}, clip_space);
    pixel[0] = (clip_space[0] / clip_space[3] * 0.5f + 0.5f) * (float)frame->width;
    pixel[1] = (1.0f - (clip_space[1] / clip_space[3] * 0.5f + 0.5f)) * (float)frame->height;
}

/* MD5-space point of a model placed with an identity world -> GL world, the way gfx places it. */
static void md5_to_world(const float md5[3], vec3 world)
{
    mat4 turn;
    gfx_z_up_to_y_up(turn);
    glm_mat4_mulv3(turn, (float *)md5, 1.0f, world);
}

static bool is_background(const uint8_t *rgba, int x, int y)
{
    const uint8_t *p = rgba + 4 * ((size_t)y * IMAGE_WIDTH + (size_t)x);
    for (int c = 0; c < 3; ++c)
        if (abs((int)p[c] - (int)lroundf(BACKGROUND[c] * 255.0f)) > 2)
            return false;
    return true;
}

/* Pixels of two pictures differing by more than 2 levels in some channel; the largest difference, and the
 * pixels of a that are not background. */
static size_t count_differing_pixels(const uint8_t *a, const uint8_t *b, int *largest, size_t *foreground)
{
    size_t differing = 0;
    *largest = 0;
    *foreground = 0;
    for (size_t i = 0; i < (size_t)IMAGE_WIDTH * IMAGE_HEIGHT; ++i) {
        int worst = 0;
        for (int c = 0; c < 4; ++c) {
            int difference = abs((int)a[4 * i + c] - (int)b[4 * i + c]);
            worst = difference > worst ? difference : worst;
        }
        differing += worst > 2;
        *largest = worst > *largest ? worst : *largest;
        *foreground += !is_background(a, (int)(i % IMAGE_WIDTH), (int)(i / IMAGE_WIDTH));
    }
    return differing;
}

/* ---- (1) GPU skinning against the CPU reference -------------------------------------------------------- */

/* One part skinned by the GPU (captured) against the CPU's skinning of it: positions within 1e-4 of the
 * model's height, normals within 1e-4, and the pose really moving the mesh (a capture of the bind pose
 * would pass too). Frees the four arrays. `what` says which skinning and pose, for the printed line. */
static void compare_skinning(const skin_mesh *s, bool captured, const diag *err, float (*cpu_positions)[3],
                             float (*cpu_normals)[3], float (*gpu_positions)[3], float (*gpu_normals)[3],
                             const char *what)
{
    CHECK(captured);
    if (!captured)
        fprintf(stderr, "%s: %s\n", err->file, err->message);
    double largest = 0.0, largest_normal = 0.0, largest_moved = 0.0;
    for (int v = 0; captured && v < s->vertex_count; ++v) {
        for (int k = 0; k < 3; ++k) {
            largest = fmax(largest, fabs((double)gpu_positions[v][k] - cpu_positions[v][k]));
            largest_normal = fmax(largest_normal, fabs((double)gpu_normals[v][k] - cpu_normals[v][k]));
            largest_moved = fmax(largest_moved, fabs((double)cpu_positions[v][k] - s->positions[v][k]));
        }
    }
    printf("  GPU vs CPU %s: %d vertices, largest difference %.3g m (normals %.3g); the pose moves vertices up "
           "to %.3g m from bind\n",
           what, s->vertex_count, largest, largest_normal, largest_moved);
    CHECK(largest <= 1e-4 * MODEL_HEIGHT);
    CHECK(largest_normal <= 1e-4);
    CHECK(largest_moved > 0.05);
    free(cpu_positions);
    free(cpu_normals);
    free(gpu_positions);
    free(gpu_normals);
}

static void check_skinning(const model *m, gfx_mesh mesh, const clip *c, float time)
{
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS];
    CHECK(m->skeleton.joint_count <= MAX_JOINTS);
    CHECK(pose_at(m, c, time, object, palette));
    for (int part = 0; part < m->mesh_count; ++part) {
        const skin_mesh *s = &m->meshes[part];
        float(*cpu_positions)[3] = malloc((size_t)s->vertex_count * sizeof *cpu_positions);
        float(*cpu_normals)[3] = malloc((size_t)s->vertex_count * sizeof *cpu_normals);
        float(*gpu_positions)[3] = malloc((size_t)s->vertex_count * sizeof *gpu_positions);
        float(*gpu_normals)[3] = malloc((size_t)s->vertex_count * sizeof *gpu_normals);
        CHECK(pose_skin_cpu(s, (const mat4 *)palette, m->skeleton.joint_count, cpu_positions, cpu_normals));
        diag err;
        bool captured = gfx_capture_skinning(mesh, part, (const mat4 *)palette, m->skeleton.joint_count,
                                             gpu_positions, gpu_normals, &err);
        char what[64];
        snprintf(what, sizeof what, "skinning at %.2f s", (double)time);
        compare_skinning(s, captured, &err, cpu_positions, cpu_normals, gpu_positions, gpu_normals, what);
    }
}

static void test_gpu_skinning_matches_cpu(void)
{
    check_skinning(mannequin, mannequin_mesh, walk, 0.3f);
    check_skinning(mannequin, mannequin_mesh, celebrate, 1.1f);
    check_skinning(robot, robot_mesh, run, 0.2f);
    CHECK(gfx_check_errors() == NULL);
}

/* The tangent frames the vertex shader skins (captured by transform feedback) are the CPU reference's,
 * linear blend and dual quaternions: within 1e-4, the handedness exactly. */
static void test_gpu_tangents_match_cpu(void)
{
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS];
    pose_dual_quaternion quaternions[MAX_JOINTS];
    const model *bodies[2] = {mannequin, robot};
    const gfx_mesh meshes[2] = {mannequin_mesh, robot_mesh};
    for (int b = 0; b < 2; ++b) {
        const model *m = bodies[b];
        int joints = m->skeleton.joint_count;
        CHECK(pose_at(m, b ? run : walk, 0.37f, object, palette));
        CHECK(pose_dual_quaternion_palette(object, m->skeleton.bind_object, joints, quaternions));
        for (int dual = 0; dual < 2; ++dual) {
            const skin_mesh *mesh = &m->meshes[0];
            int n = mesh->vertex_count;
            float(*positions)[3] = malloc((size_t)n * sizeof *positions), (*normals)[3] = malloc((size_t)n * sizeof *normals);
            float(*cpu)[4] = malloc((size_t)n * sizeof *cpu), (*gpu)[4] = malloc((size_t)n * sizeof *gpu);
            bool skinned = dual ? pose_skin_cpu_dual_quaternion(mesh, quaternions, joints, positions, normals) &&
                                      pose_skin_cpu_dual_quaternion_tangents(mesh, quaternions, joints, cpu)
                                : pose_skin_cpu(mesh, (const mat4 *)palette, joints, positions, normals) &&
                                      pose_skin_cpu_tangents(mesh, (const mat4 *)palette, joints,
                                                             (const float(*)[3])normals, cpu);
            diag err;
            bool captured = gfx_capture_tangents(meshes[b], 0, dual ? (const void *)quaternions : (const void *)palette,
                                                 dual ? POSE_SKINNING_DUAL_QUATERNION : POSE_SKINNING_LINEAR, joints,
                                                 gpu, &err);
            CHECK(skinned && captured);
            double worst = 0.0;
            int handedness_differs = 0;
            for (int v = 0; skinned && captured && v < n; ++v) {
                for (int k = 0; k < 3; ++k)
                    worst = fmax(worst, fabs((double)cpu[v][k] - gpu[v][k]));
                handedness_differs += cpu[v][3] != gpu[v][3];
            }
            printf("  %s tangents, %s: GPU against CPU at most %.2g apart, handedness %d differ\n", m == robot ? "robot" : "mannequin",
                   dual ? "dual quaternions" : "linear blend", worst, handedness_differs);
            CHECK(worst < 1e-4 && handedness_differs == 0);
            free(positions);
            free(normals);
            free(cpu);
            free(gpu);
        }
    }
}

/* ---- (2) A posed character stands where the camera expects it ------------------------------------------ */

/* Normal and specular maps: a flat normal map (128 128 255 everywhere) draws the picture without maps pixel
 * for pixel; one leaning along the tangent changes it, as does a specular map; frame.no_maps draws a mapped
 * mesh as one without; a map of another size than its mesh's image is not used, said at the shader line. */
static void test_normal_and_specular_maps(void)
{
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS];
    CHECK(pose_at(mannequin, walk, 0.3f, object, palette));
    gfx_frame_desc frame = camera_frame((vec3){2.4f, 1.2f, 1.2f}, (vec3){0.0f, 1.0f, 0.0f}, 40.0f);
    frame.hide_ground = true;
    enum { MAP = 4 };
    static uint8_t flat[MAP * MAP * 4], leaning[MAP * MAP * 4], shiny[MAP * MAP * 4], albedo[MAP * MAP * 4];
    for (int i = 0; i < MAP * MAP; ++i) {
        memcpy(flat + 4 * i, (const uint8_t[4]){128, 128, 255, 255}, 4);
        memcpy(leaning + 4 * i, (const uint8_t[4]){200, 128, 232, 255}, 4);
        memcpy(shiny + 4 * i, (const uint8_t[4]){255, 255, 255, 255}, 4);
        memcpy(albedo + 4 * i, (const uint8_t[4]){180, 150, 120, 255}, 4);
    }
    gfx_image colour = {.rgba = albedo, .width = MAP, .height = MAP, .key = 0};
    gfx_image flat_map = {.rgba = flat, .width = MAP, .height = MAP};
    gfx_image leaning_map = {.rgba = leaning, .width = MAP, .height = MAP};
    gfx_image shiny_map = {.rgba = shiny, .width = MAP, .height = MAP};
    gfx_image small_map = {.rgba = flat, .width = 2, .height = 2};
    CHECK(mannequin->mesh_count == 1);
    diag err;
    diag_list warnings = {0};
    gfx_mesh plain = gfx_make_mesh(&(gfx_mesh_desc){.model = mannequin, .images = &colour}, &err, &warnings);
    gfx_mesh flat_mesh = gfx_make_mesh(&(gfx_mesh_desc){.model = mannequin, .images = &colour, .normal_maps = &flat_map},
                                       &err, &warnings);
    gfx_mesh leaning_mesh = gfx_make_mesh(
        &(gfx_mesh_desc){.model = mannequin, .images = &colour, .normal_maps = &leaning_map}, &err, &warnings);
    gfx_mesh shiny_mesh = gfx_make_mesh(
        &(gfx_mesh_desc){.model = mannequin, .images = &colour, .specular_maps = &shiny_map}, &err, &warnings);
    CHECK(warnings.total == 0);
    gfx_mesh small_mesh = gfx_make_mesh(
        &(gfx_mesh_desc){.model = mannequin, .images = &colour, .normal_maps = &small_map, .path = "m.md5mesh"}, &err,
        &warnings);
    CHECK(warnings.total == 1);
    if (warnings.count == 1)
        CHECK_STR_CONTAINS(warnings.items[0].message, "its normal map is 2 x 2 pixels, its image 4 x 4: drawn without it");
    CHECK(plain.id && flat_mesh.id && leaning_mesh.id && shiny_mesh.id && small_mesh.id);
    size_t bytes = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4;
    uint8_t *reference = malloc(bytes), *picture = malloc(bytes);
    int joints = mannequin->skeleton.joint_count;
    draw_one(&frame, plain, (const mat4 *)palette, joints);
    CHECK(platform_read_pixels(reference));
    draw_one(&frame, flat_mesh, (const mat4 *)palette, joints);
    CHECK(platform_read_pixels(picture));
    CHECK(memcmp(reference, picture, bytes) == 0);
    draw_one(&frame, small_mesh, (const mat4 *)palette, joints);
    CHECK(platform_read_pixels(picture));
    CHECK(memcmp(reference, picture, bytes) == 0);
    int largest = 0;
    size_t foreground = 0;
    draw_one(&frame, leaning_mesh, (const mat4 *)palette, joints);
    CHECK(platform_read_pixels(picture));
    save_picture("gfx_normal_map.png");
    size_t leaning_differ = count_differing_pixels(reference, picture, &largest, &foreground);
    draw_one(&frame, shiny_mesh, (const mat4 *)palette, joints);
    CHECK(platform_read_pixels(picture));
    size_t shiny_differ = count_differing_pixels(reference, picture, &largest, &foreground);
    gfx_frame_desc off = frame;
    off.no_maps = true;
    draw_one(&off, leaning_mesh, (const mat4 *)palette, joints);
    CHECK(platform_read_pixels(picture));
    CHECK(memcmp(reference, picture, bytes) == 0);
    printf("  maps: flat and no_maps as without; a leaning normal map changes %zu pixels, a specular map %zu, of "
           "%zu\n", leaning_differ, shiny_differ, foreground);
    CHECK(foreground > 5000 && leaning_differ > foreground / 4 && shiny_differ > 100);
    gfx_destroy_mesh(plain);
    gfx_destroy_mesh(flat_mesh);
    gfx_destroy_mesh(leaning_mesh);
    gfx_destroy_mesh(shiny_mesh);
    gfx_destroy_mesh(small_mesh);
    diag_list_free(&warnings);
    free(reference);
    free(picture);
}

static void test_character_placement(void)
{
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS];
    const float time = 0.3f;
    CHECK(pose_at(mannequin, walk, time, object, palette));

    /* In front of the character (it faces +X), at chest height. */
    gfx_frame_desc frame = camera_frame((vec3){3.6f, 1.0f, 0.0f}, (vec3){0.0f, 0.9f, 0.0f}, 40.0f);
    frame.hide_ground = true;
    draw_one(&frame, mannequin_mesh, (const mat4 *)palette, mannequin->skeleton.joint_count);
    save_picture("gfx_placement_front.png");
    uint8_t *rgba = malloc((size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4);
    CHECK(platform_read_pixels(rgba));

    int head = find_joint(mannequin, "head"), left_foot = find_joint(mannequin, "foot.L"),
        right_foot = find_joint(mannequin, "foot.R"), hips = find_joint(mannequin, "hips");
    CHECK(head >= 0 && left_foot >= 0 && right_foot >= 0 && hips >= 0);
    const int joints[4] = {head, hips, left_foot, right_foot};
    float pixels[4][2];
    for (int i = 0; i < 4; ++i) {
        vec3 world;
        md5_to_world(object[joints[i]].position, world);
        project(&frame, world, pixels[i]);
        int x = (int)pixels[i][0], y = (int)pixels[i][1];
        printf("  joint %s at world (%.2f %.2f %.2f), pixel (%d, %d)\n", mannequin->skeleton.names[joints[i]],
               (double)world[0], (double)world[1], (double)world[2], x, y);
        CHECK(x >= 0 && x < IMAGE_WIDTH && y >= 0 && y < IMAGE_HEIGHT);
        if (x >= 0 && x < IMAGE_WIDTH && y >= 0 && y < IMAGE_HEIGHT)
            CHECK(!is_background(rgba, x, y));
        if (i == 0)
            CHECK(world[1] > 1.4f && world[1] < 1.9f); /* upright in Y-up world: the head is high */
        if (i >= 2)
            CHECK(world[1] < 0.3f);                   /* and the feet are low */
    }
    /* Upright in the picture too: the head above the hips above the feet (rows count down). */
    CHECK(pixels[0][1] < pixels[1][1] && pixels[1][1] < pixels[2][1] && pixels[1][1] < pixels[3][1]);
    /* The corners and the space above the head are background. */
    CHECK(is_background(rgba, 0, 0));
    CHECK(is_background(rgba, IMAGE_WIDTH - 1, 0));
    CHECK(is_background(rgba, 0, IMAGE_HEIGHT - 1));
    CHECK(is_background(rgba, IMAGE_WIDTH - 1, IMAGE_HEIGHT - 1));
    vec3 above_head = {0.0f, 2.2f, 0.0f};
    float above[2];
    project(&frame, above_head, above);
    CHECK(is_background(rgba, (int)above[0], (int)above[1]));

    /* The same with the ground, and from the side and the back, to look at. */
    frame.hide_ground = false;
    draw_one(&frame, mannequin_mesh, (const mat4 *)palette, mannequin->skeleton.joint_count);
    save_picture("gfx_walk_front.png");
    gfx_frame_desc side = camera_frame((vec3){0.6f, 1.3f, 3.6f}, (vec3){0.0f, 0.9f, 0.0f}, 40.0f);
    draw_one(&side, mannequin_mesh, (const mat4 *)palette, mannequin->skeleton.joint_count);
    save_picture("gfx_walk_side.png");
    gfx_frame_desc back = camera_frame((vec3){-3.6f, 1.2f, 0.4f}, (vec3){0.0f, 0.9f, 0.0f}, 40.0f);
    CHECK(pose_at(robot, walk, time, object, palette));
    draw_one(&back, robot_mesh, (const mat4 *)palette, robot->skeleton.joint_count);
    save_picture("gfx_robot_back.png");
    gfx_frame_desc robot_front = camera_frame((vec3){3.0f, 1.4f, 1.2f}, (vec3){0.0f, 0.9f, 0.0f}, 40.0f);
    draw_one(&robot_front, robot_mesh, (const mat4 *)palette, robot->skeleton.joint_count);
    save_picture("gfx_robot_front.png");
    free(rgba);
}

/* ---- (3) Winding and culling --------------------------------------------------------------------------- */

typedef struct culled_picture {
    float *depth;
    uint8_t *rgba;
} culled_picture;

static culled_picture draw_with_culling(gfx_culling culling, const mat4 *palette, const char *picture)
{
    gfx_frame_desc frame = camera_frame((vec3){3.0f, 1.5f, 1.5f}, (vec3){0.0f, 0.9f, 0.0f}, 40.0f);
    frame.hide_ground = true;
    frame.culling = culling;
    /* The light comes from behind the camera, so what faces the camera is lit and inner sides are not. */
    glm_vec3_copy((vec3){-3.0f, -1.5f, -1.5f}, frame.light_direction);
    draw_one(&frame, mannequin_mesh, palette, mannequin->skeleton.joint_count);
    save_picture(picture);
    culled_picture out = {malloc((size_t)IMAGE_WIDTH * IMAGE_HEIGHT * sizeof(float)),
                          malloc((size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4)};
    CHECK(platform_read_depth(out.depth));
    CHECK(platform_read_pixels(out.rgba));
    return out;
}

static double brightness(const uint8_t *rgba, size_t pixel)
{
    const uint8_t *p = rgba + 4 * pixel;
    return (p[0] + p[1] + p[2]) / (3.0 * 255.0);
}

static void test_winding_and_culling(void)
{
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS];
    CHECK(pose_at(mannequin, walk, 0.55f, object, palette));
    culled_picture none = draw_with_culling(GFX_CULLING_NONE, (const mat4 *)palette, "gfx_culling_none.png");
    culled_picture back = draw_with_culling(GFX_CULLING_BACK_FACES, (const mat4 *)palette,
                                            "gfx_culling_back_faces.png");
    culled_picture front = draw_with_culling(GFX_CULLING_FRONT_FACES, (const mat4 *)palette,
                                             "gfx_culling_front_faces_inside_out.png");
    size_t covered = 0, back_differs = 0, front_differs = 0, front_farther = 0;
    double lit_back = 0.0, lit_front = 0.0;
    for (size_t i = 0; i < (size_t)IMAGE_WIDTH * IMAGE_HEIGHT; ++i) {
        if (none.depth[i] >= 1.0f)
            continue;
        ++covered;
        back_differs += back.depth[i] != none.depth[i];
        front_differs += front.depth[i] != none.depth[i];
        front_farther += front.depth[i] > none.depth[i];
        lit_back += brightness(back.rgba, i);
        lit_front += brightness(front.rgba, i);
    }
    printf("  %zu character pixels; culling back faces changes %zu depths, culling front faces %zu (%zu "
           "farther); mean brightness %.3f vs inside-out %.3f\n",
           covered, back_differs, front_differs, front_farther, lit_back / (double)covered,
           lit_front / (double)covered);
    CHECK(covered > 5000);
    /* Culling the faces that point away changes nothing the camera sees (closed parts). */
    CHECK(back_differs <= covered / 1000);
    /* Culling the wrong side shows the far, inner walls: most depths grow, and they are unlit. */
    CHECK(front_farther > covered * 8 / 10);
    CHECK(lit_back > 1.3 * lit_front);
    free(none.depth), free(none.rgba), free(back.depth), free(back.rgba), free(front.depth), free(front.rgba);
}

/* ---- (4) Batching: draw calls do not grow with instances ----------------------------------------------- */

static void draw_grid(int count, const mat4 *palette, int joint_count)
{
    gfx_frame_desc frame = camera_frame((vec3){14.0f, 9.0f, 10.0f}, (vec3){-4.0f, 0.5f, -4.0f}, 45.0f);
    gfx_begin_frame(&frame);
    int side = (int)ceil(sqrt((double)count));
    for (int i = 0; i < count; ++i) {
        gfx_instance instance = {.mesh = mannequin_mesh, .palette = palette, .joint_count = joint_count,
                                 .tint = {0.6f + 0.4f * (float)(i % 3) / 2.0f, 0.8f, 1.0f - 0.1f * (float)(i % 4), 1.0f}};
        glm_translate_make(instance.world, (vec3){-1.0f * (float)(i % side), 0.0f, -1.0f * (float)(i / side)});
        CHECK(gfx_submit(&instance));
    }
    end_frame_checked();
}

static void test_draw_calls_do_not_grow_with_instances(void)
{
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS];
    CHECK(pose_at(mannequin, idle, 1.0f, object, palette));
    int joints = mannequin->skeleton.joint_count;

    draw_grid(1, (const mat4 *)palette, joints);
    gfx_stats one = gfx_frame_stats();
    draw_grid(200, (const mat4 *)palette, joints);
    gfx_stats many = gfx_frame_stats();
    save_picture("gfx_200_instances.png");
    printf("  1 instance: %d draw calls; 200 instances: %d draw calls, %d matrices, %d buffer grows\n",
           one.draw_calls, many.draw_calls, many.palette_matrices, many.buffer_grows);
    /* The ground (the cell where shadows fall, and the rest), the mannequin and the mannequin into the
     * shadow map. */
    CHECK(one.draw_calls == 4);
    CHECK(one.shadow_draw_calls == 1 && many.shadow_draw_calls == 1);
    CHECK(many.draw_calls == one.draw_calls);
    CHECK(many.instances == 200);
    CHECK(many.palette_matrices == 200 * joints);
    CHECK(many.buffer_grows == 0); /* within the default capacity of 256: nothing allocated */

    /* A second mesh costs one more draw call, however many instances of it. */
    gfx_frame_desc frame = camera_frame((vec3){4.0f, 1.5f, 0.0f}, (vec3){0.0f, 0.9f, 0.0f}, 50.0f);
    gfx_begin_frame(&frame);
    for (int i = 0; i < 6; ++i) {
        bool is_robot = i % 2 == 1;
        gfx_instance instance = {.mesh = is_robot ? robot_mesh : mannequin_mesh, .palette = (const mat4 *)palette,
                                 .joint_count = joints};
        glm_translate_make(instance.world, (vec3){-1.5f * (float)(i / 2), 0.0f, is_robot ? 0.7f : -0.7f});
        CHECK(gfx_submit(&instance));
    }
    end_frame_checked();
    CHECK(gfx_frame_stats().draw_calls == 6); /* ground 2, 2 meshes in the picture, 2 in the shadow map */
}

/* Past the capacity given at setup the buffers grow (and say so in the stats), and the picture is the
 * same as within capacity. */
static void test_buffers_grow_past_capacity(void)
{
    setup_again((gfx_desc){.instance_capacity = 16, .palette_capacity = 100});
    size_t bytes = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4;
    uint8_t *growing = malloc(bytes), *steady = malloc(bytes);

    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS];
    CHECK(pose_at(mannequin, idle, 1.0f, object, palette));
    draw_grid(200, (const mat4 *)palette, mannequin->skeleton.joint_count);
    gfx_stats grown = gfx_frame_stats();
    CHECK(platform_read_pixels(growing));
    save_picture("gfx_200_instances_grown.png");
    draw_grid(200, (const mat4 *)palette, mannequin->skeleton.joint_count);
    gfx_stats again = gfx_frame_stats();
    CHECK(platform_read_pixels(steady));
    int largest = 0;
    size_t foreground = 0, differing = count_differing_pixels(steady, growing, &largest, &foreground);
    printf("  from capacity 16 instances / 100 matrices: %d buffer grows, %d draw calls; %zu of %zu pixels "
           "differ from the next, steady frame (largest %d)\n",
           grown.buffer_grows, grown.draw_calls, differing, foreground, largest);
    CHECK(grown.buffer_grows > 0);
    CHECK(grown.draw_calls == 4);
    CHECK(again.buffer_grows == grown.buffer_grows); /* grown once, then steady */
    /* The palettes grew while mapped (gfx_submit copies into the mapping), keeping those written before. */
    CHECK(grown.palettes_mapped && grown.palette_bytes_copied == 0);
    CHECK(foreground > 20000 && largest == 0);
    free(growing);
    free(steady);
}

/* ---- Misuse is refused in words ------------------------------------------------------------------------ */

static void test_misuse_is_reported(void)
{
    mat4 palette[MAX_JOINTS];
    gfx_instance instance = {.mesh = mannequin_mesh, .palette = (const mat4 *)palette, .joint_count = 3};
    glm_mat4_identity(instance.world);
    CHECK(!gfx_submit(&instance));
    CHECK_STR_CONTAINS(gfx_last_error(), "outside");
    gfx_frame_desc frame = camera_frame((vec3){3.0f, 1.0f, 0.0f}, (vec3){0.0f, 0.9f, 0.0f}, 40.0f);
    gfx_begin_frame(&frame);
    CHECK(!gfx_submit(&instance));
    CHECK_STR_CONTAINS(gfx_last_error(), "palette has 3 joints");
    instance.mesh = (gfx_mesh){12345};
    CHECK(!gfx_submit(&instance));
    CHECK_STR_CONTAINS(gfx_last_error(), "not alive");
    end_frame_checked();

    /* A missing texture gives the placeholder and a warning, not an error. */
    char saved_path_marker = 0;
    char *texture_path = mannequin->meshes[0].texture_path;
    mannequin->meshes[0].texture_path = &saved_path_marker; /* "" cannot be loaded */
    diag err;
    diag_list warnings = {0};
    gfx_mesh placeholder = make_dressed((gfx_mesh_desc){.model = mannequin, .label = "no texture"}, NULL, &err,
                                         &warnings);
    mannequin->meshes[0].texture_path = texture_path;
    CHECK(placeholder.id != 0);
    CHECK(warnings.total == 1);
    if (warnings.count > 0)
        CHECK_STR_CONTAINS(warnings.items[0].message, "placeholder");
    diag_list_free(&warnings);
    joint_pose object[MAX_JOINTS];
    CHECK(pose_at(mannequin, wave, 1.2f, object, palette));
    gfx_frame_desc look = camera_frame((vec3){3.0f, 1.4f, 1.0f}, (vec3){0.0f, 0.9f, 0.0f}, 40.0f);
    draw_one(&look, placeholder, (const mat4 *)palette, mannequin->skeleton.joint_count);
    save_picture("gfx_placeholder_texture.png");
    destroy_dressed(placeholder);
    CHECK(gfx_mesh_joint_count(placeholder) == 0); /* the stale handle is refused */
}

/* ---- Textures shared by file, and bounded ---------------------------------------------------------------- */

/* An .md5mesh of one joint and `blocks` empty mesh blocks, each with the shader `shader`. */
static void write_blocks_mesh(const char *path, int blocks, const char *shader)
{
    char text[4096];
    int length = snprintf(text, sizeof text,
                          "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes %d\n"
                          "joints {\n\t\"root\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n}\n", blocks);
    for (int b = 0; b < blocks; ++b)
        length += snprintf(text + length, sizeof text - (size_t)length,
                           "mesh {\n\tshader \"%s\"\n\tnumverts 0\n\tnumtris 0\n\tnumweights 0\n}\n", shader);
    test_write_file(path, text);
}

static bool write_png(const char *path, int width, int height)
{
    uint8_t *pixels = calloc((size_t)width * (size_t)height, 3);
    for (int i = 0; pixels && i < width * height; ++i)
        pixels[3 * i] = 200; /* red */
    diag err;
    bool ok = pixels && png_write_rgb(path, pixels, width, height, &err);
    free(pixels);
    return ok;
}

/* A PNG whose header claims width x height and that ends right after it: no pixel data at all. */
static bool write_lying_png(const char *path, uint32_t width, uint32_t height)
{
    uint8_t header[33] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    for (int k = 0; k < 4; ++k) {
        header[16 + k] = (uint8_t)(width >> (24 - 8 * k));
        header[20 + k] = (uint8_t)(height >> (24 - 8 * k));
    }
    header[24] = 8; /* bit depth */
    header[25] = 2; /* RGB */
    return test_write_bytes(path, header, sizeof header);
}

static gfx_mesh make_mesh_from(const char *mesh_path, const char *const *texture_paths, diag_list *warnings,
                               model **loaded)
{
    diag err;
    *loaded = NULL;
    CHECK(loader_load_md5_model(mesh_path, loaded, &err, NULL));
    if (!*loaded)
        return (gfx_mesh){0};
    gfx_mesh mesh = make_dressed((gfx_mesh_desc){.model = *loaded, .label = "blocks", .path = mesh_path},
                                 texture_paths, &err, warnings);
    CHECK(mesh.id != 0);
    return mesh;
}

static double seconds_since(struct timespec start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec);
}

/* Eight mesh blocks naming one image decode and upload it once; a second model (another spelling of the
 * path, as a character's texture_paths give it) shares it; it is deleted with its last user. */
static void test_textures_are_shared_by_file(void)
{
    char folder[512], image[600], mesh_a[600], mesh_b[600], other_spelling[700];
    CHECK(test_make_temp_folder(folder, sizeof folder, "gfx_textures"));
    CHECK(test_paths_in(folder, 600, image, "shared.png", mesh_a, "a.md5mesh", mesh_b, "b.md5mesh", NULL));
    snprintf(other_spelling, sizeof other_spelling, "%s/./shared.png", folder);
    CHECK(write_png(image, 8, 4));
    write_blocks_mesh(mesh_a, 8, "shared.png");
    write_blocks_mesh(mesh_b, 2, "shared");

    gfx_stats before = gfx_frame_stats();
    diag_list warnings = {0};
    model *model_a, *model_b;
    gfx_mesh a = make_mesh_from(mesh_a, NULL, &warnings, &model_a);
    gfx_stats after_a = gfx_frame_stats();
    CHECK(after_a.textures_loaded == before.textures_loaded + 1);
    CHECK(after_a.textures == before.textures + 1);
    CHECK(after_a.texture_bytes == before.texture_bytes + 8 * 4 * 4);
    const char *const spelled[2] = {other_spelling, other_spelling};
    gfx_mesh b = make_mesh_from(mesh_b, spelled, &warnings, &model_b);
    gfx_stats after_b = gfx_frame_stats();
    CHECK(warnings.total == 0);
    CHECK(after_b.textures_loaded == after_a.textures_loaded);
    CHECK(after_b.textures == after_a.textures);
    CHECK(after_b.texture_bytes == after_a.texture_bytes);

    destroy_dressed(a);
    CHECK(gfx_frame_stats().textures == after_a.textures); /* b still draws with it */
    destroy_dressed(b);
    CHECK(gfx_frame_stats().textures == before.textures);
    CHECK(gfx_frame_stats().texture_bytes == before.texture_bytes);

    model_free(model_b);

    /* An image edited in place is a new version: a mesh made after the edit draws the new pixels, while one
     * made before keeps the old upload until it goes. */
    a = make_mesh_from(mesh_a, NULL, &warnings, &model_b);
    CHECK(write_png(image, 16, 16));
    model *model_c;
    gfx_mesh c = make_mesh_from(mesh_a, NULL, &warnings, &model_c);
    CHECK(gfx_frame_stats().textures == before.textures + 2);
    CHECK(gfx_frame_stats().texture_bytes == before.texture_bytes + 8 * 4 * 4 + 16 * 16 * 4);
    destroy_dressed(a);
    destroy_dressed(c);
    CHECK(warnings.total == 0);
    diag_list_free(&warnings);
    model_free(model_a);
    model_free(model_b);
    model_free(model_c);
    CHECK(gfx_frame_stats().textures == before.textures);
}

/* A 2 x 2 BMP (24-bit, rows padded to 4 bytes) and TGA (24-bit, uncompressed), written by hand: the
 * formats other than PNG (written by tools/common/png.h) decode through their own headers' sizes. */
static void test_texture_formats_load(void)
{
    char folder[512], mesh_path[600], bmp[600], tga[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, "gfx_texture_formats"));
    CHECK(test_paths_in(folder, 600, mesh_path, "one.md5mesh", bmp, "small.bmp", tga, "small.tga", NULL));
    write_blocks_mesh(mesh_path, 1, "whatever");
    uint8_t bmp_bytes[54 + 2 * 8] = {'B', 'M', [2] = sizeof bmp_bytes, [10] = 54, [14] = 40, [18] = 2, [22] = 2,
                                     [26] = 1, [28] = 24};
    memset(bmp_bytes + 54, 0x80, 2 * 8);
    CHECK(test_write_bytes(bmp, bmp_bytes, sizeof bmp_bytes));
    uint8_t tga_bytes[18 + 4 * 3] = {[2] = 2, [12] = 2, [14] = 2, [16] = 24};
    memset(tga_bytes + 18, 0x40, 4 * 3);
    CHECK(test_write_bytes(tga, tga_bytes, sizeof tga_bytes));
    const char *images[] = {bmp, tga};
    for (int i = 0; i < 2; ++i) {
        gfx_stats before = gfx_frame_stats();
        const char *const paths[1] = {images[i]};
        diag_list warnings = {0};
        model *loaded;
        gfx_mesh mesh = make_mesh_from(mesh_path, paths, &warnings, &loaded);
        test_print_diags(&warnings);
        CHECK(warnings.total == 0);
        CHECK(gfx_frame_stats().textures_loaded == before.textures_loaded + 1);
        CHECK(gfx_frame_stats().texture_bytes == before.texture_bytes + 2 * 2 * 4);
        destroy_dressed(mesh);
        model_free(loaded);
        diag_list_free(&warnings);
    }
}

/* Refusals: each one warning at the mesh's shader line, the placeholder drawn, nothing decoded. */
static void check_refused(const char *mesh_path, const char *image, const char *expected)
{
    gfx_stats before = gfx_frame_stats();
    const char *const paths[1] = {image};
    diag_list warnings = {0};
    model *loaded;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    gfx_mesh mesh = make_mesh_from(mesh_path, paths, &warnings, &loaded);
    CHECK(seconds_since(start) < 1.0); /* decoding 16384 x 16384 takes tens of seconds */
    CHECK(warnings.total == 1);
    if (warnings.count == 1) {
        CHECK(strcmp(warnings.items[0].file, mesh_path) == 0);
        CHECK(warnings.items[0].line == 9); /* the shader line */
        CHECK_STR_CONTAINS(warnings.items[0].message, expected);
        CHECK_STR_CONTAINS(warnings.items[0].message, "placeholder");
        printf("  refused: %s\n", warnings.items[0].message);
    }
    gfx_stats after = gfx_frame_stats();
    CHECK(after.textures_loaded == before.textures_loaded);
    CHECK(after.texture_bytes == before.texture_bytes);
    destroy_dressed(mesh);
    model_free(loaded);
    diag_list_free(&warnings);
}

static void test_textures_are_bounded(void)
{
    char folder[512], mesh_path[600], wide[600], lying[600], too_many_bytes[600], fifo[600], text[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, "gfx_texture_limits"));
    CHECK(test_paths_in(folder, 600, mesh_path, "one.md5mesh", wide, "wide.png", lying, "lying.png",
                        too_many_bytes, "bytes.png", fifo, "fifo.png", text, "text.png", NULL));
    write_blocks_mesh(mesh_path, 1, "whatever");
    CHECK(write_png(wide, 16384, 16)); /* a real image, a few hundred bytes on disk */
    struct stat info;
    CHECK(stat(wide, &info) == 0 && info.st_size < 16384);
    check_refused(mesh_path, wide, "16384 x 16 pixels, beyond the 8192 x 8192 limit");
    /* A header claiming a picture of 4 billion pixels a side, 33 bytes on disk: refused before decoding. */
    CHECK(write_lying_png(lying, 0xfffffff0u, 0xfffffff0u));
    check_refused(mesh_path, lying, "beyond the 8192 x 8192 limit");
    CHECK(write_lying_png(too_many_bytes, 8192, 4096)); /* within the sides, 128 MiB decoded */
    check_refused(mesh_path, too_many_bytes, "128 MiB decoded, beyond the 64 MiB");
    /* The other formats' headers, each lying the same way: a JPEG's frame after another segment, a BMP's
     * info header, a TGA's (no signature: known by its extension). */
    char jpeg[600], bmp[600], tga[600];
    CHECK(test_paths_in(folder, 600, jpeg, "lying.jpg", bmp, "lying.bmp", tga, "lying.tga", NULL));
    const uint8_t jpeg_bytes[] = {0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 'J', 'F', 0xff, 0xc0, 0x00, 0x11, 8,
                                  0x4e, 0x20, 0x4e, 0x20, 3}; /* 20000 x 20000 */
    CHECK(test_write_bytes(jpeg, jpeg_bytes, sizeof jpeg_bytes));
    check_refused(mesh_path, jpeg, "JPEG of 20000 x 20000 pixels, beyond the 8192 x 8192 limit");
    uint8_t bmp_bytes[54] = {'B', 'M'};
    bmp_bytes[14] = 40;                                              /* BITMAPINFOHEADER */
    bmp_bytes[18] = 0x10, bmp_bytes[19] = 0x27;                      /* width 10000 */
    bmp_bytes[22] = 0xf0, bmp_bytes[23] = 0xd8, bmp_bytes[24] = 0xff, bmp_bytes[25] = 0xff; /* height -10000 */
    CHECK(test_write_bytes(bmp, bmp_bytes, sizeof bmp_bytes));
    check_refused(mesh_path, bmp, "BMP of 10000 x 10000 pixels, beyond the 8192 x 8192 limit");
    uint8_t tga_bytes[18] = {0, 0, 2};
    tga_bytes[12] = 0xff, tga_bytes[13] = 0xff, tga_bytes[14] = 0xff, tga_bytes[15] = 0xff; /* 65535 x 65535 */
    tga_bytes[16] = 24;
    CHECK(test_write_bytes(tga, tga_bytes, sizeof tga_bytes));
    check_refused(mesh_path, tga, "TGA of 65535 x 65535 pixels, beyond the 8192 x 8192 limit");
    test_write_file(text, "not really an image");
    check_refused(mesh_path, text, "not a PNG, JPEG, BMP or .tga image");
    check_refused(mesh_path, folder, "is a folder, not a file");
    /* A FIFO with no writer: opening it would block forever. */
    CHECK(mkfifo(fifo, 0600) == 0);
    check_refused(mesh_path, fifo, "not a regular file");
    remove(fifo);
}

/* The budget of all images held (the image cache's, counting mipmaps): an image that would pass it is
 * refused, and loads once room is made. Images of 16 x 16 and 16 x 32 take 1 and 2 KiB at their base
 * level, 1364 and 2732 bytes with their mipmaps: a budget of 3 KiB held both when mipmaps went uncounted. */
static void test_texture_budget(void)
{
    char folder[512], mesh_path[600], small[600], large[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, "gfx_texture_budget"));
    CHECK(test_paths_in(folder, 600, mesh_path, "one.md5mesh", small, "small.png", large, "large.png", NULL));
    write_blocks_mesh(mesh_path, 1, "whatever");
    CHECK(write_png(small, 16, 16));
    CHECK(write_png(large, 16, 32));
    CHECK(image_mipmapped_bytes(16, 16) == 1364 && image_mipmapped_bytes(16, 32) == 2732);
    image_cache *everything = images;
    images = image_cache_create(&(image_cache_desc){.budget_bytes = 3 * 1024, .decode = platform_image_decode});
    CHECK(images != NULL);
    const char *const small_paths[1] = {small};
    diag_list warnings = {0};
    model *small_model;
    gfx_mesh held = make_mesh_from(mesh_path, small_paths, &warnings, &small_model);
    CHECK(warnings.total == 0);
    CHECK(image_cache_get_stats(images).bytes == 1364);
    check_refused(mesh_path, large, "(2 KiB decoded, 2 KiB with its mipmaps) would take the textures held past "
                                    "their budget of 3 KiB");
    destroy_dressed(held);
    CHECK(image_cache_get_stats(images).bytes == 0);
    const char *const large_paths[1] = {large};
    model *large_model;
    gfx_stats before = gfx_frame_stats();
    gfx_mesh now_fits = make_mesh_from(mesh_path, large_paths, &warnings, &large_model);
    CHECK(warnings.total == 0); /* a refusal for the budget is not remembered: room was made */
    CHECK(gfx_frame_stats().texture_bytes == before.texture_bytes + 16 * 32 * 4);
    CHECK(image_cache_get_stats(images).bytes == 2732);
    destroy_dressed(now_fits);
    model_free(small_model);
    model_free(large_model);
    diag_list_free(&warnings);
    image_cache_destroy(images);
    images = everything;
}

/* gfx reads no file: a mesh whose skin_mesh names a real image on disk, made without images, draws the
 * placeholder and uploads nothing; the same pixels given as a gfx_image upload once, shared by key. */
static void test_gfx_reads_no_file(void)
{
    char folder[512], mesh_path[600], picture[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, "gfx_reads_no_file"));
    CHECK(test_paths_in(folder, 600, mesh_path, "one.md5mesh", picture, "real.png", NULL));
    CHECK(write_png(picture, 4, 4));
    write_blocks_mesh(mesh_path, 2, "real.png");
    diag err;
    model *loaded = NULL;
    CHECK(loader_load_md5_model(mesh_path, &loaded, &err, NULL));
    if (!loaded)
        return;
    CHECK(loaded->meshes[0].texture_path && strstr(loaded->meshes[0].texture_path, "real.png"));
    gfx_stats before = gfx_frame_stats();
    diag_list warnings = {0};
    gfx_mesh bare = gfx_make_mesh(&(gfx_mesh_desc){.model = loaded, .label = "bare", .path = mesh_path}, &err,
                                  &warnings);
    CHECK(bare.id != 0);
    CHECK(warnings.total == 0);
    CHECK(gfx_frame_stats().textures_loaded == before.textures_loaded);
    CHECK(gfx_frame_stats().textures == before.textures);
    uint8_t pixels[4 * 4 * 4];
    memset(pixels, 0x7f, sizeof pixels);
    gfx_image given[2] = {{.rgba = pixels, .width = 4, .height = 4, .key = 0xfeedu},
                          {.rgba = pixels, .width = 4, .height = 4, .key = 0xfeedu}};
    gfx_mesh dressed_by_hand = gfx_make_mesh(&(gfx_mesh_desc){.model = loaded, .label = "given", .images = given},
                                             &err, &warnings);
    CHECK(dressed_by_hand.id != 0);
    CHECK(gfx_frame_stats().textures_loaded == before.textures_loaded + 1); /* two parts, one key: one upload */
    CHECK(gfx_frame_stats().texture_bytes == before.texture_bytes + 4 * 4 * 4);
    /* Pixels of no size are the placeholder, with a warning. */
    gfx_image empty[2] = {{.rgba = pixels, .width = 0, .height = 4}, {0}};
    gfx_mesh nothing = gfx_make_mesh(&(gfx_mesh_desc){.model = loaded, .label = "empty", .images = empty}, &err,
                                     &warnings);
    CHECK(nothing.id != 0);
    CHECK(warnings.total == 1);
    if (warnings.count == 1)
        CHECK_STR_CONTAINS(warnings.items[0].message, "empty: an image of 0 x 4 pixels; using the placeholder");
    CHECK(gfx_frame_stats().textures_loaded == before.textures_loaded + 1);
    gfx_destroy_mesh(bare);
    gfx_destroy_mesh(dressed_by_hand);
    gfx_destroy_mesh(nothing);
    CHECK(gfx_frame_stats().textures == before.textures);
    diag_list_free(&warnings);
    model_free(loaded);
}

/* ---- A crowd to look at -------------------------------------------------------------------------------- */

static void test_crowd(void)
{
    const clip *clips[6] = {walk, run, idle, wave, celebrate, jump};
    enum { SIDE = 5, COUNT = SIDE * SIDE };
    static mat4 palettes[COUNT][MAX_JOINTS];
    joint_pose object[MAX_JOINTS];
    gfx_frame_desc frame = camera_frame((vec3){9.0f, 4.5f, 6.5f}, (vec3){0.0f, 0.6f, 0.0f}, 45.0f);
    gfx_begin_frame(&frame);
    for (int i = 0; i < COUNT; ++i) {
        bool is_robot = (i + i / SIDE) % 2 == 1;
        const model *m = is_robot ? robot : mannequin;
        const clip *c = clips[i % 6];
        CHECK(pose_at(m, c, 0.37f * (float)i, object, palettes[i]));
        gfx_instance instance = {.mesh = is_robot ? robot_mesh : mannequin_mesh,
                                 .palette = (const mat4 *)palettes[i],
                                 .joint_count = m->skeleton.joint_count};
        if (i % 7 == 3)
            glm_vec4_copy((vec4){1.0f, 0.7f, 0.6f, 1.0f}, instance.tint);
        glm_translate_make(instance.world,
                           (vec3){1.6f * (float)(i % SIDE - SIDE / 2), 0.0f, 1.6f * (float)(i / SIDE - SIDE / 2)});
        /* Most face the camera's side (+X, a little +Z); a few turn away to show their backs. */
        glm_rotate_y(instance.world, glm_rad(i % 5 == 4 ? 180.0f : 10.0f * (float)(i % 4)), instance.world);
        CHECK(gfx_submit(&instance));
    }
    end_frame_checked();
    save_picture("gfx_crowd.png");
    gfx_stats stats = gfx_frame_stats();
    printf("  crowd: %d instances, %d draw calls\n", stats.instances, stats.draw_calls);
    CHECK(stats.instances == COUNT && stats.draw_calls == 6);
}

/* ---- The naive baseline (render_bench): same picture, a draw call per entity ----------------------------- */

typedef enum draw_path { PATH_INSTANCED, PATH_NAIVE, PATH_CPU_SKINNING } draw_path;

/* draw_small_scene's six poses: every clip on alternating bodies, at times step, 2 step, ... */
static void pose_small_scene(float step, mat4 (*palettes)[MAX_JOINTS])
{
    const clip *clips[6] = {walk, run, idle, wave, celebrate, jump};
    joint_pose object[MAX_JOINTS];
    for (int i = 0; i < 6; ++i)
        CHECK(pose_at(i % 2 ? robot : mannequin, clips[i], step * (float)(i + 1), object, palettes[i]));
}

/* draw_small_scene's character i: alternating bodies in rows, each turned, every third tinted. */
static gfx_instance small_scene_instance(int i, const mat4 (*palettes)[MAX_JOINTS])
{
    bool is_robot = i % 2 == 1;
    gfx_instance instance = {.mesh = is_robot ? robot_mesh : mannequin_mesh, .palette = palettes[i % 6],
                             .joint_count = (is_robot ? robot : mannequin)->skeleton.joint_count};
    if (i % 3 == 2)
        glm_vec4_copy((vec4){1.0f, 0.7f, 0.6f, 1.0f}, instance.tint);
    glm_translate_make(instance.world, (vec3){-1.2f * (float)(i % 4), 0.0f, 0.9f * (float)(i / 4) - 1.5f});
    glm_rotate_y(instance.world, glm_rad(25.0f * (float)i), instance.world);
    return instance;
}

/* A few posed, tinted, overlapping characters of both meshes, drawn the default, naive or CPU skinning way. */
static void draw_small_scene(draw_path path, int count, const mat4 (*palettes)[MAX_JOINTS])
{
    gfx_frame_desc frame = camera_frame((vec3){7.0f, 3.0f, 4.0f}, (vec3){0.0f, 0.8f, 0.0f}, 45.0f);
    frame.cpu_skinning = path == PATH_CPU_SKINNING;
    if (path == PATH_NAIVE)
        gfx_bench_begin_naive_frame(&frame);
    else
        gfx_begin_frame(&frame);
    for (int i = 0; i < count; ++i) {
        gfx_instance instance = small_scene_instance(i, palettes);
        CHECK(gfx_submit(&instance));
    }
    end_frame_checked_by(path == PATH_NAIVE ? gfx_bench_end_naive_frame : gfx_end_frame);
}

static void test_naive_path_matches_instanced(void)
{
    static mat4 palettes[6][MAX_JOINTS];
    pose_small_scene(0.41f, palettes);
    size_t bytes = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4;
    uint8_t *instanced = malloc(bytes), *naive = malloc(bytes);

    draw_small_scene(PATH_INSTANCED, 8, (const mat4(*)[MAX_JOINTS])palettes);
    gfx_stats instanced_stats = gfx_frame_stats();
    CHECK(platform_read_pixels(instanced));
    draw_small_scene(PATH_NAIVE, 8, (const mat4(*)[MAX_JOINTS])palettes);
    gfx_stats naive_stats = gfx_frame_stats();
    CHECK(platform_read_pixels(naive));
    save_picture("gfx_naive_path.png");

    int largest = 0;
    size_t foreground = 0, differing = count_differing_pixels(instanced, naive, &largest, &foreground);
    printf("  naive vs instanced, 8 characters: %zu of %zu pixels differ by more than 2 (largest %d); draw calls "
           "%d vs %d, palette uploads %d vs %d\n",
           differing, foreground, largest, naive_stats.draw_calls, instanced_stats.draw_calls,
           naive_stats.palette_uploads, instanced_stats.palette_uploads);
    CHECK(foreground > 20000);                          /* there is a picture to compare */
    CHECK(differing <= (size_t)IMAGE_WIDTH * IMAGE_HEIGHT / 2000);
    /* The naive way draws (and uploads) each entity twice: into the shadow map, then the picture; the
     * ground is two draws (where shadows fall, and the rest). */
    CHECK(instanced_stats.draw_calls == 6 && instanced_stats.palette_uploads == 1);
    CHECK(naive_stats.draw_calls == 2 + 2 * 8 && naive_stats.palette_uploads == 2 * 8);
    CHECK(naive_stats.instances == 8 && naive_stats.palette_matrices == instanced_stats.palette_matrices);
    /* The default way writes the palettes straight into the mapped buffer; the naive way copies each
     * palette into a uniform, twice. */
    CHECK(instanced_stats.palettes_mapped && instanced_stats.palette_bytes_copied == 0);
    CHECK(!naive_stats.palettes_mapped &&
          naive_stats.palette_bytes_copied == 2 * (size_t)naive_stats.palette_matrices * sizeof(mat4));

    /* The naive path's draw calls and uploads grow with entities; the default path's do not. */
    draw_small_scene(PATH_NAIVE, 1, (const mat4(*)[MAX_JOINTS])palettes);
    gfx_stats naive_one = gfx_frame_stats();
    draw_small_scene(PATH_NAIVE, 50, (const mat4(*)[MAX_JOINTS])palettes);
    gfx_stats naive_fifty = gfx_frame_stats();
    draw_small_scene(PATH_INSTANCED, 50, (const mat4(*)[MAX_JOINTS])palettes);
    gfx_stats instanced_fifty = gfx_frame_stats();
    printf("  naive: 1 entity %d draw calls, 50 entities %d (%d uploads); instanced 50 entities: %d\n",
           naive_one.draw_calls, naive_fifty.draw_calls, naive_fifty.palette_uploads, instanced_fifty.draw_calls);
    CHECK(naive_one.draw_calls == 4 && naive_one.palette_uploads == 2);
    CHECK(naive_fifty.draw_calls == 102 && naive_fifty.palette_uploads == 100);
    CHECK(instanced_fifty.draw_calls == 6 && instanced_fifty.palette_uploads == 1);
    free(instanced);
    free(naive);
}

/* ---- The CPU skinning path: the reference, switchable per frame, the same picture ----------------------- */

static void test_cpu_skinning_matches_gpu(void)
{
    static mat4 palettes[6][MAX_JOINTS];
    pose_small_scene(0.53f, palettes);
    size_t bytes = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4;
    uint8_t *gpu = malloc(bytes), *cpu = malloc(bytes);

    draw_small_scene(PATH_INSTANCED, 8, (const mat4(*)[MAX_JOINTS])palettes);
    gfx_stats gpu_stats = gfx_frame_stats();
    CHECK(platform_read_pixels(gpu));
    draw_small_scene(PATH_CPU_SKINNING, 8, (const mat4(*)[MAX_JOINTS])palettes);
    gfx_stats cpu_stats = gfx_frame_stats();
    CHECK(platform_read_pixels(cpu));
    save_picture("gfx_cpu_skinning.png");

    int largest = 0;
    size_t foreground = 0, differing = count_differing_pixels(gpu, cpu, &largest, &foreground);
    int vertices = 0;
    for (int i = 0; i < 8; ++i) {
        const model *m = i % 2 ? robot : mannequin;
        for (int p = 0; p < m->mesh_count; ++p)
            vertices += m->meshes[p].vertex_count;
    }
    printf("  CPU vs GPU skinning, 8 characters: %zu of %zu pixels differ by more than 2 (largest %d); "
           "%d vertices skinned on the CPU; draw calls %d vs %d\n",
           differing, foreground, largest, cpu_stats.cpu_skinned_vertices, cpu_stats.draw_calls,
           gpu_stats.draw_calls);
    CHECK(foreground > 20000);
    CHECK(differing <= (size_t)IMAGE_WIDTH * IMAGE_HEIGHT / 2000);
    CHECK(cpu_stats.cpu_skinned_vertices == vertices);
    CHECK(gpu_stats.cpu_skinned_vertices == 0);
    CHECK(cpu_stats.draw_calls == gpu_stats.draw_calls); /* batched the same way */

    /* Switching back and forth per frame keeps working: the next GPU frame is the GPU picture again. */
    draw_small_scene(PATH_INSTANCED, 8, (const mat4(*)[MAX_JOINTS])palettes);
    CHECK(platform_read_pixels(cpu));
    CHECK(memcmp(cpu, gpu, bytes) == 0);
    free(gpu);
    free(cpu);
}

/* ---- Shadows: a skinned depth pass, so the shadow follows the pose and the entity ------------------------ */

enum { SHADOW_PIXELS_MAX = IMAGE_WIDTH * IMAGE_HEIGHT };

/* The characters' size for draw_for_shadows: a world scale, as an import to metres gives. Above 1 the
 * instance also gets its bounds, which gfx fits the shadow to. */
static float shadow_scale = 1.0f;
static void instance_bounds(const model *m, const clip *c, float time, float out[2][3]);

/* Seen from above at a slant, lit from the side so shadows fall beside the character on open ground. */
static gfx_frame_desc shadow_frame(void)
{
    gfx_frame_desc frame = camera_frame((vec3){5.0f, 9.0f, 0.5f}, (vec3){0.0f, 0.0f, 0.0f}, 40.0f);
    glm_vec3_copy((vec3){-0.2f, -1.0f, 0.9f}, frame.light_direction);
    return frame;
}

/* Draw the character (or nothing, when c is NULL) and read colour and depth back. */
static void draw_for_shadows(const model *m, gfx_mesh mesh, const clip *c, float time, float x, bool shadows,
                             uint8_t *rgba, float *depth)
{
    gfx_frame_desc frame = shadow_frame();
    frame.no_shadows = !shadows;
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS];
    gfx_begin_frame(&frame);
    if (c) {
        CHECK(pose_at(m, c, time, object, palette));
        gfx_instance instance = {.mesh = mesh, .palette = (const mat4 *)palette, .joint_count = m->skeleton.joint_count};
        glm_translate_make(instance.world, (vec3){x, 0.0f, 0.0f});
        if (shadow_scale != 1.0f) {
            glm_scale_uni(instance.world, shadow_scale);
            instance_bounds(m, c, time, instance.bounds);
        }
        CHECK(gfx_submit(&instance));
    }
    end_frame_checked();
    CHECK(platform_read_pixels(rgba));
    CHECK(platform_read_depth(depth));
}

typedef struct shadow_mask {
    int count;
    double centroid[2]; /* pixels */
    uint8_t *inside;    /* per pixel: 1 in shadow */
} shadow_mask;

/* The pixels of open ground (the depth of the empty scene: no character in front) that the shadow
 * darkens: shadowed picture against the same picture without shadows. */
static shadow_mask find_shadow(const model *m, gfx_mesh mesh, const clip *c, float time, float x,
                               const float *empty_depth, const char *picture)
{
    size_t pixels = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT;
    uint8_t *lit = malloc(pixels * 4), *shadowed = malloc(pixels * 4);
    float *depth = malloc(pixels * sizeof *depth);
    shadow_mask mask = {.inside = calloc(pixels, 1)};
    draw_for_shadows(m, mesh, c, time, x, false, lit, depth);
    draw_for_shadows(m, mesh, c, time, x, true, shadowed, depth);
    if (picture)
        save_picture(picture);
    for (size_t i = 0; i < pixels; ++i) {
        bool ground = fabsf(depth[i] - empty_depth[i]) < 1e-6f && empty_depth[i] < 1.0f;
        int darker = 0;
        for (int k = 0; k < 3; ++k)
            darker += (int)lit[4 * i + k] - (int)shadowed[4 * i + k];
        if (ground && darker > 30) {
            mask.inside[i] = 1;
            ++mask.count;
            mask.centroid[0] += (double)(i % IMAGE_WIDTH);
            mask.centroid[1] += (double)(i / IMAGE_WIDTH);
        }
    }
    if (mask.count > 0) {
        mask.centroid[0] /= mask.count;
        mask.centroid[1] /= mask.count;
    }
    free(lit);
    free(shadowed);
    free(depth);
    return mask;
}

static void test_shadows_follow_the_pose(void)
{
    size_t pixels = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT;
    uint8_t *rgba = malloc(pixels * 4);
    float *empty_depth = malloc(pixels * sizeof *empty_depth);
    draw_for_shadows(mannequin, mannequin_mesh, NULL, 0.0f, 0.0f, true, rgba, empty_depth);

    shadow_mask standing = find_shadow(mannequin, mannequin_mesh, idle, 1.0f, 0.0f, empty_depth, "gfx_shadow_idle.png");
    shadow_mask cheering = find_shadow(mannequin, mannequin_mesh, celebrate, 1.0f, 0.0f, empty_depth,
                                       "gfx_shadow_celebrate.png");
    shadow_mask moved = find_shadow(mannequin, mannequin_mesh, idle, 1.0f, 1.0f, empty_depth, NULL);
    shadow_mask robot_shadow = find_shadow(robot, robot_mesh, idle, 1.0f, 0.0f, empty_depth, "gfx_shadow_robot.png");

    /* The shadow lies on the side the light goes to, a character's length (light 48 degrees from vertical:
     * the shadow of a 1.8 m body is about 1.7 m long) from the feet. */
    gfx_frame_desc frame = shadow_frame();
    float feet[2], shadow_way[2];
    project(&frame, (vec3){0.0f, 0.0f, 0.0f}, feet);
    project(&frame, (vec3){-0.2f, 0.0f, 0.9f}, shadow_way);
    double toward[2] = {shadow_way[0] - feet[0], shadow_way[1] - feet[1]};
    double along = ((standing.centroid[0] - feet[0]) * toward[0] + (standing.centroid[1] - feet[1]) * toward[1]) /
                   sqrt(toward[0] * toward[0] + toward[1] * toward[1]);
    double metre = sqrt(toward[0] * toward[0] + toward[1] * toward[1]) / sqrt(0.2 * 0.2 + 0.9 * 0.9);

    /* A different pose casts a different shadow: the depth pass is skinned, not the bind pose. */
    int changed = 0;
    for (size_t i = 0; i < pixels; ++i)
        changed += standing.inside[i] != cheering.inside[i];
    /* Moving the character 1 m moves the shadow with it. */
    float one_metre_on[2];
    project(&frame, (vec3){1.0f, 0.0f, 0.0f}, one_metre_on);
    double moved_by[2] = {moved.centroid[0] - standing.centroid[0], moved.centroid[1] - standing.centroid[1]};
    double expected[2] = {one_metre_on[0] - feet[0], one_metre_on[1] - feet[1]};

    printf("  shadow pixels: idle %d (centroid %.2f m from the feet toward the light's way), celebrate %d "
           "(%d pixels changed), robot %d; 1 m to the side moves the shadow (%.1f, %.1f) px, expected "
           "(%.1f, %.1f)\n",
           standing.count, along / metre, cheering.count, changed, robot_shadow.count, moved_by[0], moved_by[1],
           expected[0], expected[1]);
    CHECK(standing.count > 1000);
    CHECK(along / metre > 0.4 && along / metre < 1.6);
    CHECK(changed > standing.count / 10);
    CHECK(robot_shadow.count > standing.count); /* the robot is bulkier */
    CHECK(fabs(moved_by[0] - expected[0]) < 0.2 * fabs(expected[0]) + 3.0);
    CHECK(fabs(moved_by[1] - expected[1]) < 0.2 * fabs(expected[1]) + 3.0);
    CHECK(abs(moved.count - standing.count) < standing.count / 5);
    free(standing.inside);
    free(cheering.inside);
    free(moved.inside);
    free(robot_shadow.inside);
    free(rgba);
    free(empty_depth);
}

/* A character scaled to 3.6 m (as a characters.ini scale or height may) casts its whole shadow: the
 * shadow map is fitted to its height, not to a human's 2 m. Twice as tall, four times the shadow. */
static void test_tall_character_casts_its_whole_shadow(void)
{
    size_t pixels = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT;
    uint8_t *rgba = malloc(pixels * 4);
    float *empty_depth = malloc(pixels * sizeof *empty_depth);
    draw_for_shadows(mannequin, mannequin_mesh, NULL, 0.0f, 0.0f, true, rgba, empty_depth);
    shadow_mask human = find_shadow(mannequin, mannequin_mesh, idle, 1.0f, 0.0f, empty_depth, NULL);
    shadow_scale = 2.0f;
    shadow_mask tall = find_shadow(mannequin, mannequin_mesh, idle, 1.0f, 0.0f, empty_depth, "gfx_shadow_tall.png");
    shadow_scale = 1.0f;
    printf("  shadow pixels: 1.8 m %d, 3.6 m %d (%.2f times)\n", human.count, tall.count,
           (double)tall.count / (human.count ? human.count : 1));
    CHECK(human.count > 1000);
    /* Cut at 2 m, it was 3.4 times. The edge is about two texels soft (texels of two pixels at the nearest
     * caster), which adds relatively more to the smaller shadow: 3.7 times. */
    CHECK(tall.count > 3.6 * human.count && tall.count < 4.2 * human.count);
    free(human.inside);
    free(tall.inside);
    free(rgba);
    free(empty_depth);
}

/* Uneven ground (gfx_set_ground): drawn at its heights, and the character's shadow falls on it, shorter
 * where the ground rises toward where it falls; misuse is refused and keeps the ground drawn before; NULL
 * gives back the flat ground, pixel for pixel. */
static void test_shadows_fall_on_uneven_ground(void)
{
    size_t pixels = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT;
    uint8_t *rgba = malloc(pixels * 4);
    float *flat_depth = malloc(pixels * sizeof *flat_depth), *slope_depth = malloc(pixels * sizeof *slope_depth),
          *depth = malloc(pixels * sizeof *depth);
    draw_for_shadows(mannequin, mannequin_mesh, NULL, 0.0f, 0.0f, true, rgba, flat_depth);
    shadow_mask on_flat = find_shadow(mannequin, mannequin_mesh, idle, 1.0f, 0.0f, flat_depth, NULL);

    /* 20 degrees up toward +z, where the light (-0.2, -1, 0.9) throws the shadow; through the feet. */
    ground slope = {.kind = GROUND_SLOPE, .slope_degrees = 20.0f, .uphill = {0.0f, 1.0f}};
    ground_mesh mesh;
    CHECK(ground_mesh_build(&mesh, &slope));
    gfx_ground_desc desc = ground_mesh_desc(&mesh);
    CHECK(gfx_set_ground(&desc));
    draw_for_shadows(mannequin, mannequin_mesh, NULL, 0.0f, 0.0f, true, rgba, slope_depth);
    int moved = 0, ground_pixels = 0;
    for (size_t i = 0; i < pixels; ++i) {
        ground_pixels += flat_depth[i] < 1.0f;
        moved += flat_depth[i] < 1.0f && fabsf(slope_depth[i] - flat_depth[i]) > 1e-4f;
    }
    CHECK(moved > ground_pixels / 2);
    shadow_mask on_slope = find_shadow(mannequin, mannequin_mesh, idle, 1.0f, 0.0f, slope_depth,
                                       "gfx_shadow_slope.png");
    gfx_frame_desc frame = shadow_frame();
    float feet[2];
    project(&frame, (vec3){0.0f, 0.0f, 0.0f}, feet);
    double flat_reach = hypot(on_flat.centroid[0] - feet[0], on_flat.centroid[1] - feet[1]);
    double slope_reach = hypot(on_slope.centroid[0] - feet[0], on_slope.centroid[1] - feet[1]);
    printf("  shadow on a 20 degree rise: %d pixels, centroid %.1f px from the feet (flat: %d, %.1f px)\n",
           on_slope.count, slope_reach, on_flat.count, flat_reach);
    CHECK(on_slope.count > 1000);
    CHECK(slope_reach < flat_reach);

    /* Misuse: refused in words, the slope kept. */
    gfx_ground_vertex three[3] = {{{0, 0, 0}, {0, 1, 0}}, {{1, 0, 0}, {0, 1, 0}}, {{0, 0, 1}, {0, 1, 0}}};
    uint32_t past[3] = {0, 1, 5}, good[4] = {0, 1, 2, 0};
    gfx_ground_tile whole = {0, 3}, beyond = {3, 3};
    CHECK(!gfx_set_ground(&(gfx_ground_desc){three, 3, past, 3, &whole, 1}));
    CHECK_STR_CONTAINS(gfx_last_error(), "past the 3 vertices");
    CHECK(!gfx_set_ground(&(gfx_ground_desc){three, 3, good, 4, &whole, 1}));
    CHECK_STR_CONTAINS(gfx_last_error(), "whole triangles");
    CHECK(!gfx_set_ground(&(gfx_ground_desc){three, 3, good, 3, &beyond, 1}));
    CHECK_STR_CONTAINS(gfx_last_error(), "tile 0");
    CHECK(!gfx_set_ground(&(gfx_ground_desc){three, 3, good, 3, NULL, 0}));
    three[1].position[1] = NAN;
    CHECK(!gfx_set_ground(&(gfx_ground_desc){three, 3, good, 3, &whole, 1}));
    CHECK_STR_CONTAINS(gfx_last_error(), "not finite");
    draw_for_shadows(mannequin, mannequin_mesh, NULL, 0.0f, 0.0f, true, rgba, depth);
    CHECK(memcmp(depth, slope_depth, pixels * sizeof *depth) == 0);

    /* Back to flat: the picture before, exactly. */
    CHECK(gfx_set_ground(NULL));
    draw_for_shadows(mannequin, mannequin_mesh, NULL, 0.0f, 0.0f, true, rgba, depth);
    CHECK(memcmp(depth, flat_depth, pixels * sizeof *depth) == 0);
    ground_mesh_free(&mesh);
    free(on_flat.inside);
    free(on_slope.inside);
    free(rgba);
    free(flat_depth);
    free(slope_depth);
    free(depth);
}

/* ---- Culling with the pose's bounds --------------------------------------------------------------------- */

/* The box gfx_instance.bounds wants: the clip's bounds at that time grown by the model's skin reach. */
static void instance_bounds(const model *m, const clip *c, float time, float out[2][3])
{
    CHECK(pose_sample_bounds(c, time, true, out));
    for (int k = 0; k < 3; ++k) {
        out[0][k] -= m->skin_reach;
        out[1][k] += m->skin_reach;
    }
}

/* A grid of idle mannequins, with or without bounds; the camera sees part of it. */
static gfx_stats draw_culling_grid(bool with_bounds, gfx_frame_desc frame, uint8_t *rgba)
{
    joint_pose object[MAX_JOINTS];
    static mat4 palettes[4][MAX_JOINTS];
    float bounds[4][2][3];
    for (int k = 0; k < 4; ++k) {
        CHECK(pose_at(mannequin, k % 2 ? walk : idle, 0.3f * (float)k, object, palettes[k]));
        instance_bounds(mannequin, k % 2 ? walk : idle, 0.3f * (float)k, bounds[k]);
    }
    gfx_begin_frame(&frame);
    for (int i = 0; i < 100; ++i) {
        gfx_instance instance = {.mesh = mannequin_mesh, .palette = (const mat4 *)palettes[i % 4],
                                 .joint_count = mannequin->skeleton.joint_count};
        if (with_bounds)
            memcpy(instance.bounds, bounds[i % 4], sizeof instance.bounds);
        glm_translate_make(instance.world, (vec3){2.0f * (float)(i % 10) - 9.0f, 0.0f, 2.0f * (float)(i / 10) - 9.0f});
        glm_rotate_y(instance.world, glm_rad(37.0f * (float)i), instance.world);
        CHECK(gfx_submit(&instance));
    }
    end_frame_checked();
    CHECK(platform_read_pixels(rgba));
    return gfx_frame_stats();
}

static void test_culling_with_pose_bounds(void)
{
    size_t bytes = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4;
    uint8_t *all = malloc(bytes), *culled = malloc(bytes);

    /* Culling is conservative: the same picture with and without it, fewer instances drawn. A fixed shadow
     * sphere keeps the shadow map the same in both (a fitted one would fit the drawn instances). */
    gfx_frame_desc frame = camera_frame((vec3){3.0f, 2.0f, 3.0f}, (vec3){-1.0f, 0.8f, -1.0f}, 45.0f);
    frame.shadow_radius = 16.0f;
    gfx_stats without = draw_culling_grid(false, frame, all);
    gfx_stats with = draw_culling_grid(true, frame, culled);
    save_picture("gfx_culling_grid.png");
    int largest = 0;
    size_t foreground = 0, differing = count_differing_pixels(all, culled, &largest, &foreground);
    printf("  culling: %d of 100 instances culled, %d drawn; %zu pixels differ from drawing all (largest %d)\n",
           with.culled, with.instances, differing, largest);
    CHECK(without.culled == 0 && without.instances == 100);
    CHECK(with.culled > 50 && with.culled + with.instances == 100);
    CHECK(differing == 0);
    CHECK(foreground > 10000);

    /* An instance beside the view is culled, unless its shadow falls into the view. */
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS];
    CHECK(pose_at(mannequin, idle, 1.0f, object, palette));
    gfx_instance beside = {.mesh = mannequin_mesh, .palette = (const mat4 *)palette,
                           .joint_count = mannequin->skeleton.joint_count};
    instance_bounds(mannequin, idle, 1.0f, beside.bounds);
    glm_translate_make(beside.world, (vec3){0.0f, 0.0f, 4.0f});
    gfx_frame_desc side = camera_frame((vec3){4.0f, 1.5f, 0.0f}, (vec3){0.0f, 0.9f, 0.0f}, 50.0f);
    glm_vec3_copy((vec3){0.0f, -0.4f, -1.0f}, side.light_direction); /* low sun: long shadows toward -Z */
    side.no_shadows = true;
    gfx_begin_frame(&side);
    CHECK(gfx_submit(&beside));
    end_frame_checked();
    gfx_stats no_shadow = gfx_frame_stats();
    side.no_shadows = false;
    gfx_begin_frame(&side);
    CHECK(gfx_submit(&beside));
    end_frame_checked();
    gfx_stats long_shadow = gfx_frame_stats();
    CHECK(platform_read_pixels(culled));
    save_picture("gfx_culling_shadow_in_view.png");
    /* Behind the camera, shadow or not: culled. */
    glm_translate_make(beside.world, (vec3){8.0f, 0.0f, 0.0f});
    gfx_begin_frame(&side);
    CHECK(gfx_submit(&beside));
    end_frame_checked();
    gfx_stats behind = gfx_frame_stats();
    /* The kept instance's shadow is really in the picture: it differs from the empty scene. */
    gfx_begin_frame(&side);
    end_frame_checked();
    CHECK(platform_read_pixels(all));
    size_t shadow_pixels = count_differing_pixels(all, culled, &largest, &foreground);
    printf("  beside the view: culled %d without shadows, %d with a shadow reaching into view (%zu pixels "
           "darkened); behind the camera: culled %d\n",
           no_shadow.culled, long_shadow.culled, shadow_pixels, behind.culled);
    CHECK(shadow_pixels > 500);
    CHECK(no_shadow.culled == 1 && no_shadow.instances == 0);
    CHECK(long_shadow.culled == 0 && long_shadow.instances == 1);
    CHECK(behind.culled == 1);
    free(all);
    free(culled);
}

/* ---- Debug views --------------------------------------------------------------------------------------- */

/* Whether a pixel within `radius` of (x, y) has this colour (+-40 per channel). */
static bool colour_near(const uint8_t *rgba, float x, float y, int radius, const int colour[3])
{
    for (int dy = -radius; dy <= radius; ++dy) {
        for (int dx = -radius; dx <= radius; ++dx) {
            int px = (int)lroundf(x) + dx, py = (int)lroundf(y) + dy;
            if (px < 0 || py < 0 || px >= IMAGE_WIDTH || py >= IMAGE_HEIGHT)
                continue;
            const uint8_t *p = rgba + 4 * ((size_t)py * IMAGE_WIDTH + (size_t)px);
            if (abs(p[0] - colour[0]) <= 40 && abs(p[1] - colour[1]) <= 40 && abs(p[2] - colour[2]) <= 40)
                return true;
        }
    }
    return false;
}

static size_t count_colour(const uint8_t *rgba, const int colour[3])
{
    size_t count = 0;
    for (size_t i = 0; i < (size_t)IMAGE_WIDTH * IMAGE_HEIGHT; ++i)
        count += abs(rgba[4 * i] - colour[0]) <= 30 && abs(rgba[4 * i + 1] - colour[1]) <= 30 &&
                 abs(rgba[4 * i + 2] - colour[2]) <= 30;
    return count;
}

static void test_debug_views(void)
{
    size_t bytes = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4;
    uint8_t *rgba = malloc(bytes);
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS];
    CHECK(pose_at(mannequin, wave, 1.2f, object, palette));
    float bounds[2][3];
    instance_bounds(mannequin, wave, 1.2f, bounds);
    const skeleton *s = &mannequin->skeleton;
    int roots = 0;
    for (int j = 0; j < s->joint_count; ++j)
        roots += s->parents[j] < 0;

    gfx_frame_desc frame = camera_frame((vec3){3.2f, 1.4f, 0.8f}, (vec3){0.0f, 0.9f, 0.0f}, 50.0f);
    gfx_instance instance = {.mesh = mannequin_mesh, .palette = (const mat4 *)palette, .joint_count = s->joint_count};
    glm_mat4_identity(instance.world);
    const vec4 red = {1.0f, 0.0f, 0.0f, 1.0f}, yellow = {1.0f, 1.0f, 0.0f, 1.0f};
    const int red_rgb[3] = {255, 0, 0}, yellow_rgb[3] = {255, 255, 0}, normal_rgb[3] = {51, 230, 255};

    gfx_begin_frame(&frame);
    CHECK(gfx_submit(&instance));
    end_frame_checked();
    gfx_stats plain = gfx_frame_stats();
    CHECK(platform_read_pixels(rgba));
    size_t cyan_before = count_colour(rgba, normal_rgb);

    frame.debug_normals = true;
    gfx_begin_frame(&frame);
    CHECK(gfx_submit(&instance));
    gfx_debug_skeleton(instance.world, s, object, (float *)red);
    gfx_debug_box(instance.world, bounds, (float *)yellow);
    end_frame_checked();
    gfx_stats debug = gfx_frame_stats();
    CHECK(platform_read_pixels(rgba));
    save_picture("gfx_debug_views.png");

    int expected_lines = (s->joint_count - roots) + 3 * s->joint_count + 12;
    size_t cyan = count_colour(rgba, normal_rgb);
    printf("  debug views: %d lines (expected %d), %d draw calls (plain %d), %zu normal-coloured pixels "
           "(%zu without)\n",
           debug.debug_lines, expected_lines, debug.draw_calls, plain.draw_calls, cyan, cyan_before);
    CHECK(debug.debug_lines == expected_lines && debug.debug_lines_dropped == 0);
    /* One draw for all lines, one per skin_mesh for the normals. */
    CHECK(debug.draw_calls == plain.draw_calls + 1 + mannequin->mesh_count);
    CHECK(cyan > 2000 && cyan_before < 50);
    /* Every joint is drawn where it is, over the mesh (no depth test), and the box's corners too. */
    int joints_seen = 0;
    for (int j = 0; j < s->joint_count; ++j) {
        vec3 world;
        float pixel[2];
        md5_to_world(object[j].position, world);
        project(&frame, world, pixel);
        joints_seen += colour_near(rgba, pixel[0], pixel[1], 1, red_rgb);
    }
    int corners_seen = 0;
    for (int c = 0; c < 8; ++c) {
        float corner[3] = {bounds[c & 1][0], bounds[(c >> 1) & 1][1], bounds[(c >> 2) & 1][2]};
        vec3 world;
        float pixel[2];
        md5_to_world(corner, world);
        project(&frame, world, pixel);
        bool inside = pixel[0] >= 0 && pixel[1] >= 0 && pixel[0] < IMAGE_WIDTH && pixel[1] < IMAGE_HEIGHT;
        corners_seen += !inside || colour_near(rgba, pixel[0], pixel[1], 1, yellow_rgb);
    }
    printf("  %d of %d joints and %d of 8 box corners found in the picture\n", joints_seen, s->joint_count,
           corners_seen);
    /* Joints hidden under another joint's cross or a box edge are the only misses allowed. */
    CHECK(joints_seen >= s->joint_count - 3);
    CHECK(corners_seen == 8);
    free(rgba);
}

/* ---- Palettes written straight into the upload buffer (gfx_submit_palette) ------------------------------ */

/* Driver faults, given by wrapping GLEW's entry points (plain function pointers) for the frames that
 * need them; with FAULT_NONE the wrappers only pass the calls on. */
typedef enum driver_fault {
    FAULT_NONE,
    FAULT_NO_MAPPING,            /* glMapBufferRange gives NULL */
    FAULT_NO_MAPPING_PAST_START, /* only for a range past the buffer's start: growth while mapped */
    FAULT_MISALIGNED,            /* a pointer 4 bytes into the real mapping: not 16-byte aligned */
    FAULT_LOST,                  /* glUnmapBuffer gives GL_FALSE: the contents were lost */
} driver_fault;

static driver_fault fault;
static int faults_given;
static PFNGLMAPBUFFERRANGEPROC real_map_buffer_range;
static PFNGLUNMAPBUFFERPROC real_unmap_buffer;

static void *GLAPIENTRY faulty_map_buffer_range(GLenum target, GLintptr offset, GLsizeiptr length, GLbitfield access)
{
    if (fault == FAULT_NO_MAPPING || (fault == FAULT_NO_MAPPING_PAST_START && offset > 0)) {
        ++faults_given;
        return NULL;
    }
    char *mapped = real_map_buffer_range(target, offset, length, access);
    if (fault == FAULT_MISALIGNED && mapped) {
        ++faults_given;
        return mapped + 4;
    }
    return mapped;
}

static GLboolean GLAPIENTRY faulty_unmap_buffer(GLenum target)
{
    GLboolean kept = real_unmap_buffer(target);
    if (fault != FAULT_LOST)
        return kept;
    ++faults_given;
    return GL_FALSE;
}

/* From now on the driver gives `given` (FAULT_NONE: behaves); faults_given counts them. */
static void give_fault(driver_fault given)
{
    if (!real_map_buffer_range) {
        real_map_buffer_range = __glewMapBufferRange;
        real_unmap_buffer = __glewUnmapBuffer;
        __glewMapBufferRange = faulty_map_buffer_range;
        __glewUnmapBuffer = faulty_unmap_buffer;
    }
    fault = given;
    faults_given = 0;
}

/* draw_small_scene's characters through gfx_submit_palette (which does not read instance.palette), one
 * culled behind the camera, with room for `reserved` instances made first (gfx_reserve). When all fit,
 * the palettes are written after every submit in reverse order, as the jobs might: no slot moves. Past
 * the reservation a submit may grow the buffer, moving the slots handed out before, so each palette is
 * written as soon as its slot is handed out, as scene_submit does. Returns how many slots came back. */
static int draw_small_scene_into_slots(draw_path path, int count, int reserved, const mat4 (*palettes)[MAX_JOINTS])
{
    enum { MOST = 64 };
    int most_joints = mannequin->skeleton.joint_count > robot->skeleton.joint_count ? mannequin->skeleton.joint_count
                                                                                      : robot->skeleton.joint_count;
    bool write_at_once = reserved < count + 1;
    gfx_frame_desc frame = camera_frame((vec3){7.0f, 3.0f, 4.0f}, (vec3){0.0f, 0.8f, 0.0f}, 45.0f);
    frame.cpu_skinning = path == PATH_CPU_SKINNING;
    gfx_begin_frame(&frame);
    CHECK(gfx_reserve(reserved, reserved * most_joints));
    mat4 *destinations[MOST] = {0};
    int given = 0;
    for (int i = 0; i < count && i < MOST; ++i) {
        gfx_instance instance = small_scene_instance(i, palettes);
        destinations[i] = gfx_submit_palette(&instance);
        given += destinations[i] != NULL;
        if (write_at_once && destinations[i])
            memcpy(destinations[i], instance.palette, (size_t)instance.joint_count * sizeof(mat4));
    }
    /* Far behind the camera, with bounds: culled, no slot. */
    gfx_instance behind = {.mesh = mannequin_mesh, .joint_count = mannequin->skeleton.joint_count,
                           .bounds = {{-0.5f, -0.5f, 0.0f}, {0.5f, 0.5f, 1.8f}}};
    glm_translate_make(behind.world, (vec3){40.0f, 0.0f, 25.0f});
    CHECK(gfx_submit_palette(&behind) == NULL);
    CHECK(gfx_frame_stats().culled == 1);
    for (int i = count - 1; i >= 0 && !write_at_once; --i) {
        gfx_instance instance = small_scene_instance(i, palettes);
        if (destinations[i])
            memcpy(destinations[i], instance.palette, (size_t)instance.joint_count * sizeof(mat4));
    }
    end_frame_checked();
    return given;
}

/* The picture in the framebuffer against `reference`: the largest difference of a channel (0: the very
 * same picture), printed with `what`. */
static int compare_with(const uint8_t *reference, const char *what)
{
    uint8_t *rgba = malloc((size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4);
    CHECK(platform_read_pixels(rgba));
    int largest = 0;
    size_t foreground = 0, differing = count_differing_pixels(reference, rgba, &largest, &foreground);
    printf("  %s: %zu of %zu pixels differ (largest %d)\n", what, differing, foreground, largest);
    free(rgba);
    return largest;
}

static void test_palette_slots_draw_the_same_picture(void)
{
    /* Start from tiny buffers so the reservation has to grow them: a slot handed out before a growth would
     * dangle (AddressSanitizer would say so) and the picture would be wrong. */
    setup_again((gfx_desc){.instance_capacity = 1, .palette_capacity = 8});
    static mat4 palettes[6][MAX_JOINTS];
    pose_small_scene(0.41f, palettes);
    size_t bytes = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4;
    uint8_t *copied = malloc(bytes), *written = malloc(bytes);
    const draw_path paths[2] = {PATH_INSTANCED, PATH_CPU_SKINNING};
    for (int p = 0; p < 2; ++p) {
        int grows_before = gfx_frame_stats().buffer_grows;
        CHECK(draw_small_scene_into_slots(paths[p], 8, 9, (const mat4(*)[MAX_JOINTS])palettes) == 8);
        gfx_stats slot_stats = gfx_frame_stats();
        CHECK(platform_read_pixels(written));
        if (p == 0) {
            save_picture("gfx_palette_slots.png");
            CHECK(slot_stats.buffer_grows > grows_before); /* the reservation did grow the buffers */
        }
        draw_small_scene(paths[p], 8, (const mat4(*)[MAX_JOINTS])palettes);
        gfx_stats copy_stats = gfx_frame_stats();
        CHECK(platform_read_pixels(copied));
        int largest = 0;
        size_t foreground = 0, differing = count_differing_pixels(copied, written, &largest, &foreground);
        printf("  %s: palettes written into their slots vs copied by gfx_submit: %zu of %zu pixels differ "
               "(largest %d); %d vs %d matrices, %d vs %d palette uploads, %s, %zu bytes copied\n",
               p ? "CPU skinning" : "GPU skinning", differing, foreground, largest, slot_stats.palette_matrices,
               copy_stats.palette_matrices, slot_stats.palette_uploads, copy_stats.palette_uploads,
               slot_stats.palettes_mapped ? "mapped" : "staged", slot_stats.palette_bytes_copied);
        CHECK(foreground > 20000);
        CHECK(largest == 0); /* the same matrices in the same places: the very same picture */
        CHECK(slot_stats.instances == 8 && slot_stats.palette_matrices == copy_stats.palette_matrices);
        CHECK(slot_stats.palette_uploads == 1 && slot_stats.draw_calls == copy_stats.draw_calls);
        /* GPU skinning writes into the mapped buffer, whether through a slot or gfx_submit's copy; the CPU
         * path reads the palettes back, so it stages them and copies them in. */
        size_t matrix_bytes = (size_t)slot_stats.palette_matrices * sizeof(mat4);
        CHECK(slot_stats.palettes_mapped == (p == 0) && copy_stats.palettes_mapped == (p == 0));
        CHECK(slot_stats.palette_bytes_copied == (p == 0 ? 0 : matrix_bytes));
        CHECK(copy_stats.palette_bytes_copied == (p == 0 ? 0 : matrix_bytes));
        CHECK(!slot_stats.palettes_lost);
    }
    free(copied);
    free(written);

    /* Misuse: NULL and a message, as gfx_submit gives false. */
    gfx_instance instance = {.mesh = mannequin_mesh, .joint_count = mannequin->skeleton.joint_count};
    glm_mat4_identity(instance.world);
    CHECK(gfx_submit_palette(&instance) == NULL);
    CHECK_STR_CONTAINS(gfx_last_error(), "gfx_submit_palette outside");
    CHECK(!gfx_reserve(4, 100));
    CHECK_STR_CONTAINS(gfx_last_error(), "gfx_reserve outside");
    gfx_frame_desc frame = camera_frame((vec3){3.0f, 1.0f, 0.0f}, (vec3){0.0f, 0.9f, 0.0f}, 40.0f);
    gfx_begin_frame(&frame);
    CHECK(!gfx_reserve(-1, 10));
    CHECK_STR_CONTAINS(gfx_last_error(), "negative");
    CHECK(!gfx_reserve(1 << 30, 0));
    CHECK_STR_CONTAINS(gfx_last_error(), "too many");
    instance.joint_count = 3;
    CHECK(gfx_submit_palette(&instance) == NULL);
    CHECK_STR_CONTAINS(gfx_last_error(), "palette has 3 joints");
    CHECK(gfx_submit_palette(NULL) == NULL);
    CHECK_STR_CONTAINS(gfx_last_error(), "no instance");
    end_frame_checked();
    CHECK(gfx_frame_stats().instances == 0);
}

/* The copy path's picture of the small scene: gfx_submit with the mapping refused, so the frame stages
 * its palettes and copies them in. */
static void draw_small_scene_copied(const mat4 (*palettes)[MAX_JOINTS], uint8_t *rgba)
{
    give_fault(FAULT_NO_MAPPING);
    draw_small_scene(PATH_INSTANCED, 8, palettes);
    gfx_stats stats = gfx_frame_stats();
    CHECK(faults_given > 0);
    give_fault(FAULT_NONE);
    CHECK(!stats.palettes_mapped && stats.instances == 8);
    CHECK(stats.palette_bytes_copied == (size_t)stats.palette_matrices * sizeof(mat4));
    CHECK(platform_read_pixels(rgba));
}

/* Submits past a small reservation from small capacities (16 instances, 100 matrices) grow the palette
 * buffer while it is mapped, twice (100 -> 200 -> 400 matrices, 8 characters of 31 joints): the palettes
 * written before each growth are kept (copied on the GPU), so the picture is the copy path's. */
static void test_palettes_grow_while_mapped(void)
{
    static mat4 palettes[6][MAX_JOINTS];
    pose_small_scene(0.29f, palettes);
    const mat4(*poses)[MAX_JOINTS] = (const mat4(*)[MAX_JOINTS])palettes;
    uint8_t *copied = malloc((size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4);
    gfx_desc small = {.instance_capacity = 16, .palette_capacity = 100};

    setup_again(small);
    draw_small_scene_copied(poses, copied);
    setup_again(small);
    CHECK(draw_small_scene_into_slots(PATH_INSTANCED, 8, 2, poses) == 8);
    gfx_stats grown = gfx_frame_stats();
    CHECK(compare_with(copied, "grown while mapped (twice) vs copied") == 0);
    save_picture("gfx_palettes_grown_while_mapped.png");
    printf("  grown while mapped: %d buffer grows, %d matrices, %s, %zu bytes copied\n", grown.buffer_grows,
           grown.palette_matrices, grown.palettes_mapped ? "mapped" : "staged", grown.palette_bytes_copied);
    CHECK(grown.buffer_grows == 2 && grown.palettes_mapped && grown.palette_bytes_copied == 0);
    CHECK(grown.instances == 8 && grown.palette_matrices == 8 * mannequin->skeleton.joint_count);
    CHECK(draw_small_scene_into_slots(PATH_INSTANCED, 8, 2, poses) == 8);
    CHECK(gfx_frame_stats().buffer_grows == grown.buffer_grows); /* grown to size: the next frame maps it whole */
    CHECK(compare_with(copied, "the next frame, no growth, vs copied") == 0);

    /* The same growth, but the driver refuses to map the rest of the bigger buffer: the palettes written
     * so far are read back into the staging and the frame ends on the copy path, same picture. */
    setup_again(small);
    give_fault(FAULT_NO_MAPPING_PAST_START);
    CHECK(draw_small_scene_into_slots(PATH_INSTANCED, 8, 2, poses) == 8);
    gfx_stats fallen_back = gfx_frame_stats();
    CHECK(faults_given == 1); /* the first growth failed to map; the second grew the staging */
    give_fault(FAULT_NONE);
    CHECK(compare_with(copied, "growth whose mapping failed, finished in the staging, vs copied") == 0);
    CHECK(!fallen_back.palettes_mapped && fallen_back.instances == 8);
    CHECK(fallen_back.palette_bytes_copied == (size_t)fallen_back.palette_matrices * sizeof(mat4));
    free(copied);
}

/* What the driver may do to a mapping: refuse it or give it misaligned (the frame stages its palettes
 * instead, same picture), or lose what was written (the frame is drawn without its characters and says
 * so; the next frame is whole again). No GL errors in any of them (end_frame_checked), nor after a frame
 * left unended while mapped. */
static void test_mapping_faults(void)
{
    static mat4 palettes[6][MAX_JOINTS];
    pose_small_scene(0.67f, palettes);
    const mat4(*poses)[MAX_JOINTS] = (const mat4(*)[MAX_JOINTS])palettes;
    size_t bytes = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4;
    uint8_t *copied = malloc(bytes), *empty = malloc(bytes);
    draw_small_scene_copied(poses, copied);
    draw_small_scene(PATH_INSTANCED, 0, poses);
    CHECK(platform_read_pixels(empty));

    give_fault(FAULT_MISALIGNED);
    CHECK(draw_small_scene_into_slots(PATH_INSTANCED, 8, 9, poses) == 8);
    gfx_stats misaligned = gfx_frame_stats();
    CHECK(faults_given == 1);
    give_fault(FAULT_NONE);
    CHECK(compare_with(copied, "misaligned mapping, staged instead, vs copied") == 0);
    CHECK(!misaligned.palettes_mapped && misaligned.palette_bytes_copied > 0 && misaligned.instances == 8);

    give_fault(FAULT_LOST);
    CHECK(draw_small_scene_into_slots(PATH_INSTANCED, 8, 9, poses) == 8);
    gfx_stats lost = gfx_frame_stats();
    CHECK(faults_given == 1);
    give_fault(FAULT_NONE);
    save_picture("gfx_palettes_lost.png");
    printf("  palettes lost: %d instances drawn, %d draw calls; \"%s\"\n", lost.instances, lost.draw_calls,
           gfx_last_error());
    CHECK(lost.palettes_lost && lost.instances == 0);
    CHECK(lost.draw_calls == 1 && lost.shadow_draw_calls == 0); /* the ground alone */
    CHECK_STR_CONTAINS(gfx_last_error(), "lost the contents of the mapped palette buffer");
    CHECK(compare_with(empty, "palettes lost vs the scene without characters") == 0);
    CHECK(compare_with(copied, "palettes lost vs copied") > 0);

    CHECK(draw_small_scene_into_slots(PATH_INSTANCED, 8, 9, poses) == 8);
    gfx_stats next = gfx_frame_stats();
    CHECK(next.palettes_mapped && !next.palettes_lost && next.instances == 8);
    CHECK(compare_with(copied, "the frame after, mapped, vs copied") == 0);

    /* A frame begun over one left unended (and mapped) drops that mapping: no GL error, the same picture. */
    gfx_begin_frame(&(gfx_frame_desc){.width = IMAGE_WIDTH, .height = IMAGE_HEIGHT});
    gfx_instance abandoned = small_scene_instance(0, poses);
    CHECK(gfx_submit(&abandoned));
    CHECK(draw_small_scene_into_slots(PATH_INSTANCED, 8, 9, poses) == 8);
    CHECK_STR_CONTAINS(gfx_last_error(), "previous frame was not ended");
    CHECK(gfx_frame_stats().palettes_mapped && gfx_frame_stats().instances == 8);
    CHECK(compare_with(copied, "after an unended frame, vs copied") == 0);
    free(copied);
    free(empty);
}


/* ---- Levels of detail ---------------------------------------------------------------------------------- */

/* Hand-made levels of the mannequin (the build step's own are tested in test_lod): level 0 every triangle
 * in reverse order, level 1 the first half, level 2 a stand-in of the first 10, with the given errors. */
static model_lods *hand_made_levels(const model *m, float error_1, float error_2)
{
    model_lods *lods = calloc(1, sizeof *lods);
    lods->mesh_count = m->mesh_count;
    lods->meshes = calloc((size_t)m->mesh_count, sizeof *lods->meshes);
    lods->level_count = 3;
    lods->last_is_stand_in = true;
    lods->error[1] = error_1;
    lods->error[2] = error_2;
    for (int i = 0; i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        int counts[3] = {mesh->triangle_count, mesh->triangle_count / 2,
                         mesh->triangle_count < 10 ? mesh->triangle_count : 10};
        for (int l = 0; l < 3; ++l) {
            lods->meshes[i].triangle_count[l] = counts[l];
            lods->meshes[i].triangles[l] = malloc((size_t)(counts[l] ? counts[l] : 1) * sizeof(uint32_t[3]));
            for (int t = 0; t < counts[l]; ++t)
                memcpy(lods->meshes[i].triangles[l][t], mesh->triangles[l == 0 ? counts[0] - 1 - t : t],
                       sizeof(uint32_t[3]));
            lods->triangles[l] += counts[l];
        }
    }
    return lods;
}

/* One mannequin at `distance` metres in front of the camera, with the given options; returns the stats. */
static gfx_stats draw_at_distance(gfx_mesh mesh, const mat4 *palette, float distance, gfx_frame_desc options,
                                  gfx_lod_memory *memory)
{
    gfx_frame_desc frame = camera_frame((vec3){distance, 1.0f, 0.0f}, (vec3){0.0f, 0.9f, 0.0f}, 40.0f);
    frame.shadow_radius = options.shadow_radius;
    frame.lod_error_pixels = options.lod_error_pixels;
    frame.stand_in_pixels = options.stand_in_pixels;
    frame.lod_force_level = options.lod_force_level;
    frame.no_stand_ins = options.no_stand_ins;
    frame.lod_colors = options.lod_colors;
    frame.no_shadows = options.no_shadows;
    gfx_begin_frame(&frame);
    gfx_instance instance = {.mesh = mesh, .palette = palette, .joint_count = mannequin->skeleton.joint_count,
                             .lod = memory};
    glm_mat4_identity(instance.world);
    CHECK(gfx_submit(&instance));
    end_frame_checked();
    return gfx_frame_stats();
}

static void test_levels_of_detail(void)
{
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS];
    CHECK(pose_at(mannequin, idle, 1.0f, object, palette));
    const mat4 *p = (const mat4 *)palette;
    /* Level 1 strays 1 cm, the stand-in 20 cm. */
    model_lods *lods = hand_made_levels(mannequin, 0.01f, 0.2f);
    diag err;
    gfx_mesh plain = gfx_make_mesh(&(gfx_mesh_desc){.model = mannequin, .label = "plain"}, &err, NULL);
    gfx_mesh levelled = gfx_make_mesh(&(gfx_mesh_desc){.model = mannequin, .label = "levelled", .lods = lods}, &err, NULL);
    CHECK(plain.id != 0 && levelled.id != 0);
    int full = lods->triangles[0], half = lods->triangles[1], stand_in = lods->triangles[2];

    /* Near, level 0: the reordered full mesh draws the same picture as the file's order. */
    size_t bytes = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4;
    uint8_t *file_order = malloc(bytes), *reordered = malloc(bytes);
    gfx_stats near_plain = draw_at_distance(plain, p, 3.0f, (gfx_frame_desc){0}, NULL);
    CHECK(platform_read_pixels(file_order));
    gfx_stats near = draw_at_distance(levelled, p, 3.0f, (gfx_frame_desc){0}, NULL);
    CHECK(platform_read_pixels(reordered));
    int largest = 0;
    size_t foreground = 0, differing = count_differing_pixels(file_order, reordered, &largest, &foreground);
    printf("  near: level %s, %lld triangles (shadow %lld); %zu of %zu pixels differ from the unlevelled mesh\n",
           near.lod_instances[0] == 1 ? "0" : "?", (long long)near.triangles, (long long)near.shadow_triangles,
           differing, foreground);
    CHECK(near_plain.lod_instances[0] == 1 && near_plain.triangles == 2 * full);
    CHECK(near.lod_instances[0] == 1);
    /* The shadow map around one character has millimetre texels: level 1's centimetre would shadow the
     * body itself, so the shadow keeps level 0, and the picture is the unlevelled one. */
    CHECK(near.shadow_lod_instances[0] == 1 && near.shadow_triangles == full);
    CHECK(near.triangles == 2 * full);
    CHECK(foreground > 5000);
    CHECK(differing == 0);
    /* A map 80 m across (4 cm texels) cannot tell level 1 from level 0: the shadow is drawn at level 1. */
    gfx_stats wide = draw_at_distance(levelled, p, 3.0f, (gfx_frame_desc){.shadow_radius = 40.0f}, NULL);
    CHECK(wide.lod_instances[0] == 1 && wide.shadow_lod_instances[1] == 1);
    CHECK(wide.triangles == full + half && wide.shadow_triangles == half);

    /* Far, stand-ins aside: 1 cm projects under half a pixel at 60 m, 20 cm does not: level 1 (its shadow
     * too, in a fine map). */
    gfx_stats far = draw_at_distance(levelled, p, 60.0f, (gfx_frame_desc){.stand_in_pixels = -1.0f}, NULL);
    CHECK(far.lod_instances[1] == 1 && far.shadow_lod_instances[1] == 1);
    CHECK(far.triangles == 2 * half && far.shadow_triangles == half);
    /* With stand-ins, the 1.8 m mannequin stands 21 pixels tall there, under 0.75 of 48: the stand-in,
     * whatever its error; 30 pixels tall is not (over 0.75 x 30), 36 is. */
    CHECK(draw_at_distance(levelled, p, 60.0f, (gfx_frame_desc){0}, NULL).lod_instances[2] == 1);
    CHECK(draw_at_distance(levelled, p, 60.0f, (gfx_frame_desc){.stand_in_pixels = 20.0f}, NULL).lod_instances[1] == 1);
    CHECK(draw_at_distance(levelled, p, 60.0f, (gfx_frame_desc){.stand_in_pixels = 36.0f}, NULL).lod_instances[2] == 1);
    /* Very far, the stand-in; with stand-ins off, level 1 at most, in both passes. */
    gfx_stats very_far = draw_at_distance(levelled, p, 99.0f, (gfx_frame_desc){.lod_error_pixels = 30.0f}, NULL);
    CHECK(very_far.lod_instances[2] == 1);
    /* 99 m is beyond the shadow distance (40 m): no shadow pass at all. */
    CHECK(very_far.shadow_lod_instances[2] == 0 && very_far.triangles == stand_in);
    gfx_stats no_stand_in =
        draw_at_distance(levelled, p, 99.0f, (gfx_frame_desc){.lod_error_pixels = 30.0f, .no_stand_ins = true}, NULL);
    CHECK(no_stand_in.lod_instances[1] == 1 && no_stand_in.triangles == half);
    /* Level of detail off: level 0 at any distance. Forced: the level asked for (clamped). */
    CHECK(draw_at_distance(levelled, p, 60.0f, (gfx_frame_desc){.lod_error_pixels = -1.0f}, NULL).lod_instances[0] == 1);
    CHECK(draw_at_distance(levelled, p, 3.0f, (gfx_frame_desc){.lod_force_level = 2}, NULL).lod_instances[1] == 1);
    CHECK(draw_at_distance(levelled, p, 3.0f, (gfx_frame_desc){.lod_force_level = 9}, NULL).lod_instances[2] == 1);
    /* Without shadows no shadow triangles. */
    gfx_stats unshadowed = draw_at_distance(levelled, p, 3.0f, (gfx_frame_desc){.no_shadows = true}, NULL);
    CHECK(unshadowed.triangles == full && unshadowed.shadow_triangles == 0);

    /* Hysteresis through the entity's memory: find the distance where level 1 starts, then step just
     * inside it; an entity that was at level 0 stays there, one without memory switches. */
    float switch_distance = 0.0f;
    for (float distance = 3.0f; distance < 100.0f && switch_distance == 0.0f; distance += 0.5f)
        if (draw_at_distance(levelled, p, distance, (gfx_frame_desc){0}, NULL).lod_instances[1] == 1)
            switch_distance = distance;
    CHECK(switch_distance > 3.0f);
    gfx_lod_memory memory = {0};
    CHECK(draw_at_distance(levelled, p, switch_distance - 1.0f, (gfx_frame_desc){0}, &memory).lod_instances[0] == 1);
    CHECK(memory.known && memory.level == 0);
    CHECK(draw_at_distance(levelled, p, switch_distance + 0.5f, (gfx_frame_desc){0}, &memory).lod_instances[0] == 1);
    CHECK(draw_at_distance(levelled, p, switch_distance + 0.5f, (gfx_frame_desc){0}, NULL).lod_instances[1] == 1);
    /* Far enough past the band it switches, and remembers it. */
    CHECK(draw_at_distance(levelled, p, switch_distance * 1.5f, (gfx_frame_desc){0}, &memory).lod_instances[1] == 1);
    CHECK(memory.level == 1);

    /* One instanced draw per (mesh, level): 30 mannequins at three distances are 3 groups. */
    gfx_frame_desc frame = camera_frame((vec3){3.0f, 1.0f, 0.0f}, (vec3){0.0f, 0.9f, 0.0f}, 40.0f);
    frame.no_shadows = true;
    frame.lod_force_level = 0;
    gfx_begin_frame(&frame);
    for (int i = 0; i < 30; ++i) {
        gfx_instance instance = {.mesh = levelled, .palette = p, .joint_count = mannequin->skeleton.joint_count};
        glm_translate_make(instance.world, (vec3){-(float)(i % 3 == 0 ? 0 : i % 3 == 1 ? 40 : 90), 0.0f,
                                                  0.3f * (float)(i / 3)});
        CHECK(gfx_submit(&instance));
    }
    end_frame_checked();
    gfx_stats crowd = gfx_frame_stats();
    printf("  30 mannequins at 3, 43 and 93 m: levels %d/%d/%d, %d draw calls\n", crowd.lod_instances[0],
           crowd.lod_instances[1], crowd.lod_instances[2], crowd.draw_calls);
    CHECK(crowd.lod_instances[0] + crowd.lod_instances[1] + crowd.lod_instances[2] == 30);
    int groups = (crowd.lod_instances[0] > 0) + (crowd.lod_instances[1] > 0) + (crowd.lod_instances[2] > 0);
    CHECK(groups >= 2);
    CHECK(crowd.draw_calls == 1 + groups); /* the ground, then one per group */

    /* Levels that do not fit the model are refused in words. */
    lods->mesh_count = mannequin->mesh_count + 1;
    gfx_mesh wrong = gfx_make_mesh(&(gfx_mesh_desc){.model = mannequin, .label = "wrong", .lods = lods}, &err, NULL);
    CHECK(wrong.id == 0);
    CHECK_STR_CONTAINS(err.message, "levels of detail");
    lods->mesh_count = mannequin->mesh_count;
    uint32_t kept = lods->meshes[0].triangles[1][0][0];
    lods->meshes[0].triangles[1][0][0] = (uint32_t)mannequin->meshes[0].vertex_count;
    wrong = gfx_make_mesh(&(gfx_mesh_desc){.model = mannequin, .label = "wrong", .lods = lods}, &err, NULL);
    CHECK(wrong.id == 0);
    CHECK_STR_CONTAINS(err.message, "level 1");
    lods->meshes[0].triangles[1][0][0] = kept;

    gfx_destroy_mesh(plain);
    gfx_destroy_mesh(levelled);
    model_lods_free(lods);
    free(file_order);
    free(reordered);
}

/* Skin once: both passes drawn from one transform-feedback capture give the picture of skinning in each
 * pass, pixel for pixel; only groups whose level uses most of the mesh are captured. */
static void draw_skin_once_scene(gfx_mesh mesh, const mat4 *palette, bool skin_once, int force_level)
{
    gfx_frame_desc frame = camera_frame((vec3){6.0f, 3.0f, 5.0f}, (vec3){-1.0f, 0.8f, -1.0f}, 45.0f);
    frame.skin_once = skin_once;
    frame.lod_force_level = force_level;
    gfx_begin_frame(&frame);
    for (int i = 0; i < 12; ++i) {
        gfx_instance instance = {.mesh = mesh, .palette = palette, .joint_count = mannequin->skeleton.joint_count,
                                 .tint = {1.0f, 0.9f - 0.05f * (float)i, 0.8f, 1.0f}};
        glm_translate_make(instance.world, (vec3){-1.2f * (float)(i % 4), 0.0f, -1.2f * (float)(i / 4)});
        glm_rotate_y(instance.world, 0.4f * (float)i, instance.world);
        CHECK(gfx_submit(&instance));
    }
    end_frame_checked();
}

static void test_skin_once_draws_the_same_picture(void)
{
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS];
    CHECK(pose_at(mannequin, walk, 0.4f, object, palette));
    size_t bytes = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4;
    uint8_t *each_pass = malloc(bytes), *once = malloc(bytes);
    int vertices = 0;
    for (int i = 0; i < mannequin->mesh_count; ++i)
        vertices += mannequin->meshes[i].vertex_count;

    draw_skin_once_scene(mannequin_mesh, (const mat4 *)palette, false, 0);
    gfx_stats plain = gfx_frame_stats();
    CHECK(platform_read_pixels(each_pass));
    draw_skin_once_scene(mannequin_mesh, (const mat4 *)palette, true, 0);
    gfx_stats captured = gfx_frame_stats();
    CHECK(platform_read_pixels(once));
    save_picture("gfx_skin_once.png");
    int largest = 0;
    size_t foreground = 0, differing = count_differing_pixels(each_pass, once, &largest, &foreground);
    printf("  skin once: %d vertices captured for 12 instances; %zu of %zu pixels differ from skinning in each "
           "pass (largest %d)\n", captured.skinned_once_vertices, differing, foreground, largest);
    CHECK(plain.skinned_once_vertices == 0);
    CHECK(captured.skinned_once_vertices == 12 * vertices);
    CHECK(captured.instances == 12 && captured.triangles == plain.triangles);
    CHECK(foreground > 20000);
    CHECK(differing == 0);

    /* A coarse level uses a fraction of the vertices: skinned in each pass, nothing captured. */
    model_lods *lods = hand_made_levels(mannequin, 0.01f, 0.2f);
    diag err;
    gfx_mesh levelled = gfx_make_mesh(&(gfx_mesh_desc){.model = mannequin, .label = "levelled", .lods = lods}, &err, NULL);
    CHECK(levelled.id != 0);
    draw_skin_once_scene(levelled, (const mat4 *)palette, true, 3);
    CHECK(gfx_frame_stats().skinned_once_vertices == 0);
    /* Level 0 of the levelled mesh is captured, and draws the unlevelled picture's characters. */
    draw_skin_once_scene(levelled, (const mat4 *)palette, true, 1);
    CHECK(gfx_frame_stats().skinned_once_vertices == 12 * vertices);
    /* Without shadows there is one pass: nothing to share. */
    gfx_frame_desc frame = camera_frame((vec3){6.0f, 3.0f, 5.0f}, (vec3){-1.0f, 0.8f, -1.0f}, 45.0f);
    frame.skin_once = true;
    frame.no_shadows = true;
    gfx_begin_frame(&frame);
    gfx_instance instance = {.mesh = mannequin_mesh, .palette = (const mat4 *)palette,
                             .joint_count = mannequin->skeleton.joint_count};
    glm_mat4_identity(instance.world);
    CHECK(gfx_submit(&instance));
    end_frame_checked();
    CHECK(gfx_frame_stats().skinned_once_vertices == 0);
    gfx_destroy_mesh(levelled);
    model_lods_free(lods);
    free(each_pass);
    free(once);
}

/* ---- The frame budget: triangles per pass, GPU time per pass ------------------------------------------- */

static long long model_triangles(const model *m)
{
    long long triangles = 0;
    for (int i = 0; i < m->mesh_count; ++i)
        triangles += m->meshes[i].triangle_count;
    return triangles;
}

/* Three mannequins and three robots, none culled (no bounds), at level 0 (level of detail off), the
 * default way or the naive way. */
static gfx_stats draw_budget_scene(bool shadows, bool naive, const mat4 *palette, const mat4 *robot_palette)
{
    gfx_frame_desc frame = camera_frame((vec3){4.0f, 1.5f, 0.0f}, (vec3){0.0f, 0.9f, 0.0f}, 50.0f);
    frame.no_shadows = !shadows;
    frame.lod_error_pixels = -1.0f;
    if (naive)
        gfx_bench_begin_naive_frame(&frame);
    else
        gfx_begin_frame(&frame);
    for (int i = 0; i < 6; ++i) {
        bool is_robot = i % 2 == 1;
        gfx_instance instance = {.mesh = is_robot ? robot_mesh : mannequin_mesh,
                                 .palette = is_robot ? robot_palette : palette,
                                 .joint_count = (is_robot ? robot : mannequin)->skeleton.joint_count};
        glm_translate_make(instance.world, (vec3){-1.5f * (float)(i / 2), 0.0f, is_robot ? 0.7f : -0.7f});
        CHECK(gfx_submit(&instance));
    }
    end_frame_checked_by(naive ? gfx_bench_end_naive_frame : gfx_end_frame);
    return gfx_frame_stats();
}

static void test_frame_budget(void)
{
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS], robot_palette[MAX_JOINTS];
    CHECK(pose_at(mannequin, idle, 1.0f, object, palette));
    CHECK(pose_at(robot, walk, 0.5f, object, robot_palette));
    long long picture = 3 * model_triangles(mannequin) + 3 * model_triangles(robot);
    CHECK(picture > 1000);

    /* Triangles: instances x their mesh's triangles, once per pass; the level histogram counts instances. */
    for (int naive = 0; naive < 2; ++naive) {
        gfx_stats lit = draw_budget_scene(true, naive, (const mat4 *)palette, (const mat4 *)robot_palette);
        gfx_stats unlit = draw_budget_scene(false, naive, (const mat4 *)palette, (const mat4 *)robot_palette);
        printf("  %s: %lld triangles (%lld shadow) with shadows, %lld without; levels %d/%d, shadow %d/%d\n",
               naive ? "naive" : "instanced", (long long)lit.triangles, (long long)lit.shadow_triangles,
               (long long)unlit.triangles, lit.lod_instances[0], lit.lod_instances[1], lit.shadow_lod_instances[0],
               lit.shadow_lod_instances[1]);
        CHECK(lit.triangles == 2 * picture);
        CHECK(lit.shadow_triangles == picture);
        CHECK(unlit.triangles == picture);
        CHECK(unlit.shadow_triangles == 0);
        CHECK(lit.lod_instances[0] == 6 && lit.shadow_lod_instances[0] == 6);
        CHECK(unlit.lod_instances[0] == 6 && unlit.shadow_lod_instances[0] == 0);
        for (int level = 1; level < GFX_LOD_LEVELS; ++level)
            CHECK(lit.lod_instances[level] == 0 && lit.shadow_lod_instances[level] == 0);
    }

    /* GPU time: where the driver has timestamp queries (GL 3.3 core has them; llvmpipe does), figures
     * arrive within a few frames without anyone waiting, each pass >= 0, adding up to the frame. */
    GLint bits = 0;
    glGetQueryiv(GL_TIMESTAMP, GL_QUERY_COUNTER_BITS, &bits);
    setup_again((gfx_desc){0}); /* a fresh timer: no figures yet */
    gfx_stats stats = gfx_frame_stats();
    CHECK(!stats.gpu_timed);
    int frames = 0;
    for (; frames < 30 && !stats.gpu_timed; ++frames) {
        stats = draw_budget_scene(true, false, (const mat4 *)palette, (const mat4 *)robot_palette);
        gfx_overlay_begin(); /* nothing drawn: the overlay's marks alone */
        gfx_overlay_end();
    }
    float passes = stats.gpu_shadow_ms + stats.gpu_ground_ms + stats.gpu_characters_ms + stats.gpu_overlay_ms;
    printf("  timestamp bits %d: GPU figures after %d frames: frame %.3f ms = shadow %.3f + ground %.3f + "
           "characters %.3f + overlay %.3f\n", bits, frames, (double)stats.gpu_frame_ms, (double)stats.gpu_shadow_ms,
           (double)stats.gpu_ground_ms, (double)stats.gpu_characters_ms, (double)stats.gpu_overlay_ms);
    CHECK(stats.gpu_timed == (bits > 0));
    if (bits > 0) {
        CHECK(frames <= 12); /* a few frames late: however far the driver lets the CPU run ahead */
        CHECK(stats.gpu_shadow_ms >= 0.0f && stats.gpu_ground_ms >= 0.0f && stats.gpu_characters_ms >= 0.0f &&
              stats.gpu_overlay_ms >= 0.0f);
        CHECK(stats.gpu_frame_ms > 0.0f && stats.gpu_frame_ms < 10000.0f);
        CHECK(fabsf(passes - stats.gpu_frame_ms) <= 0.01f + 0.001f * stats.gpu_frame_ms);
    }

    /* Steady frames with the timer allocate nothing. */
    long before = heap_calls;
    for (int i = 0; i < 20; ++i) {
        stats = draw_budget_scene(i % 2 == 0, false, (const mat4 *)palette, (const mat4 *)robot_palette);
        gfx_overlay_begin();
        gfx_overlay_end();
    }
    printf("  20 timed frames: %ld heap calls from our code\n", heap_calls - before);
    CHECK(heap_calls == before);
    CHECK(stats.gpu_timed == (bits > 0));

    /* Switched off: never timed, the counts still kept. */
    setup_again((gfx_desc){.no_gpu_timer = true});
    for (int i = 0; i < 8; ++i)
        stats = draw_budget_scene(true, false, (const mat4 *)palette, (const mat4 *)robot_palette);
    CHECK(!stats.gpu_timed && stats.gpu_frame_ms == 0.0f);
    CHECK(stats.triangles == 2 * picture);
    setup_again((gfx_desc){0});
}

/* A GPU far behind: while no result is available the figures stay as they were, nothing waits (no result is
 * read), and once the ring of query sets is full the frames go untimed instead of reusing a set still in
 * flight; when the GPU catches up the figures move again. GLEW's entry points stand in for the driver. */
static bool gpu_behind;
static int timestamps_issued, results_read;
static PFNGLGETQUERYOBJECTIVPROC real_get_query_objectiv;
static PFNGLGETQUERYOBJECTUI64VPROC real_get_query_objectui64v;
static PFNGLQUERYCOUNTERPROC real_query_counter;

static void GLAPIENTRY slow_get_query_objectiv(GLuint id, GLenum name, GLint *value)
{
    if (gpu_behind && name == GL_QUERY_RESULT_AVAILABLE) {
        *value = 0;
        return;
    }
    real_get_query_objectiv(id, name, value);
}

static void GLAPIENTRY counted_get_query_objectui64v(GLuint id, GLenum name, GLuint64 *value)
{
    ++results_read;
    real_get_query_objectui64v(id, name, value);
}

static void GLAPIENTRY counted_query_counter(GLuint id, GLenum target)
{
    ++timestamps_issued;
    real_query_counter(id, target);
}

static void test_frame_budget_waits_for_nothing(void)
{
    GLint bits = 0;
    glGetQueryiv(GL_TIMESTAMP, GL_QUERY_COUNTER_BITS, &bits);
    if (bits <= 0) {
        printf("  no timestamp queries here: nothing to wait for\n");
        return;
    }
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS], robot_palette[MAX_JOINTS];
    CHECK(pose_at(mannequin, idle, 1.0f, object, palette));
    CHECK(pose_at(robot, walk, 0.5f, object, robot_palette));
    real_get_query_objectiv = __glewGetQueryObjectiv;
    real_get_query_objectui64v = __glewGetQueryObjectui64v;
    real_query_counter = __glewQueryCounter;
    __glewGetQueryObjectiv = slow_get_query_objectiv;
    __glewGetQueryObjectui64v = counted_get_query_objectui64v;
    __glewQueryCounter = counted_query_counter;

    setup_again((gfx_desc){.gpu_timer_every = 1}); /* every frame timed: the ring fills */
    gfx_stats stats = {0};
    for (int frames = 0; frames < 30 && !stats.gpu_timed; ++frames)
        stats = draw_budget_scene(true, false, (const mat4 *)palette, (const mat4 *)robot_palette);
    CHECK(stats.gpu_timed);
    /* Everything in flight done and read: the ring is free but for the set of the frame just drawn. */
    glFinish();
    stats = draw_budget_scene(true, false, (const mat4 *)palette, (const mat4 *)robot_palette);
    gfx_stats before = stats;

    gpu_behind = true;
    timestamps_issued = results_read = 0;
    bool kept = true;
    for (int i = 0; i < 10; ++i) {
        stats = draw_budget_scene(i % 2 == 0, false, (const mat4 *)palette, (const mat4 *)robot_palette);
        kept = kept && stats.gpu_timed && stats.gpu_frame_ms == before.gpu_frame_ms &&
               stats.gpu_shadow_ms == before.gpu_shadow_ms;
    }
    int issued_while_behind = timestamps_issued, read_while_behind = results_read;
    gpu_behind = false;
    timestamps_issued = results_read = 0;
    for (int i = 0; i < 10; ++i)
        stats = draw_budget_scene(true, false, (const mat4 *)palette, (const mat4 *)robot_palette);
    printf("  GPU behind for 10 frames: %d timestamps issued, %d results read, figures %s; caught up: %d issued, "
           "%d read, frame %.3f ms (before %.3f)\n", issued_while_behind, read_while_behind, kept ? "kept" : "changed",
           timestamps_issued, results_read, (double)stats.gpu_frame_ms, (double)before.gpu_frame_ms);
    CHECK(kept);
    CHECK(read_while_behind == 0);
    /* The ring's 4 sets filled (the open one and 3 free: 3 or 4 frames of 5 marks), then frames went
     * untimed: not 10 frames' worth. */
    CHECK(issued_while_behind >= 3 * 5 && issued_while_behind <= 4 * 5);
    CHECK(timestamps_issued >= 5 && results_read > 0); /* timed again, figures read again */
    CHECK(stats.gpu_timed);

    /* One frame in 5 timed: over 20 frames 4 of them issue their 5 marks, the others none (no flush). */
    setup_again((gfx_desc){.gpu_timer_every = 5});
    timestamps_issued = 0;
    for (int i = 0; i < 20; ++i)
        stats = draw_budget_scene(true, false, (const mat4 *)palette, (const mat4 *)robot_palette);
    printf("  one frame in 5 timed: %d timestamps over 20 frames\n", timestamps_issued);
    CHECK(timestamps_issued == 4 * 5);
    CHECK(stats.gpu_timed);
    /* Out of range is refused in words. */
    diag err;
    destroy_dressed(mannequin_mesh);
    destroy_dressed(robot_mesh);
    gfx_shutdown();
    CHECK(!gfx_setup(&(gfx_desc){.gpu_timer_every = 1001}, &err));
    CHECK_STR_CONTAINS(err.message, "gpu_timer_every");
    CHECK(gfx_setup(&(gfx_desc){0}, &err));
    mannequin_mesh = make_dressed((gfx_mesh_desc){.model = mannequin, .label = "mannequin"}, NULL, &err, NULL);
    robot_mesh = make_dressed((gfx_mesh_desc){.model = robot, .label = "robot"}, NULL, &err, NULL);
    CHECK(mannequin_mesh.id != 0 && robot_mesh.id != 0);

    __glewGetQueryObjectiv = real_get_query_objectiv;
    __glewGetQueryObjectui64v = real_get_query_objectui64v;
    __glewQueryCounter = real_query_counter;
}

/* The shadow pass draws only the instances whose shadow can reach the fitted map: characters far beyond
 * the shadow distance are drawn in the picture but not into the shadow map. */
static void test_far_characters_cast_no_shadow(void)
{
    joint_pose object[MAX_JOINTS];
    mat4 palette[MAX_JOINTS];
    CHECK(pose_at(mannequin, idle, 1.0f, object, palette));
    float bounds[2][3];
    memcpy(bounds, mannequin->bind_bounds, sizeof bounds);
    for (int k = 0; k < 3; ++k)
        bounds[0][k] -= 0.3f, bounds[1][k] += 0.3f;
    gfx_frame_desc frame = camera_frame((vec3){4.0f, 1.6f, 0.0f}, (vec3){-20.0f, 0.5f, 0.0f}, 45.0f);
    gfx_begin_frame(&frame);
    for (int i = 0; i < 21; ++i) {
        gfx_instance instance = {.mesh = mannequin_mesh, .palette = (const mat4 *)palette,
                                 .joint_count = mannequin->skeleton.joint_count};
        memcpy(instance.bounds, bounds, sizeof bounds);
        /* One near the camera, twenty 70 to 89 m down the view (past the 40 m shadow distance). */
        float x = i == 0 ? 0.0f : -70.0f - (float)(i - 1);
        glm_translate_make(instance.world, (vec3){x, 0.0f, 0.6f * (float)(i % 5) - 1.2f});
        CHECK(gfx_submit(&instance));
    }
    end_frame_checked();
    gfx_stats stats = gfx_frame_stats();
    int drawn = 0, cast = 0;
    for (int l = 0; l < GFX_LOD_LEVELS; ++l)
        drawn += stats.lod_instances[l], cast += stats.shadow_lod_instances[l];
    printf("  21 characters, 20 of them past the shadow distance: %d drawn, %d into the shadow map\n", drawn, cast);
    CHECK(stats.instances == 21 && drawn == 21);
    CHECK(cast == 1);
}

/* ---- Dual-quaternion skinning: the vertex shader against the CPU reference, on every path ----------------- */

static bool dual_quaternion_pose_at(const model *m, const clip *c, float time, pose_dual_quaternion *out)
{
    joint_pose object[MAX_JOINTS];
    return pose_sample(c, time, true, object) &&
           pose_to_object(m->skeleton.parents, m->skeleton.joint_count, object, object) &&
           pose_dual_quaternion_palette(object, m->skeleton.bind_object, m->skeleton.joint_count, out);
}

/* The GPU's dual-quaternion skinning of every part against pose_skin_cpu_dual_quaternion, to the tolerance
 * check_skinning holds linear blend to. */
static void check_dual_quaternion_skinning(const model *m, gfx_mesh mesh, const pose_dual_quaternion *palette,
                                           const char *label)
{
    for (int part = 0; part < m->mesh_count; ++part) {
        const skin_mesh *s = &m->meshes[part];
        size_t bytes = (size_t)s->vertex_count * sizeof(float[3]);
        float(*cpu_positions)[3] = malloc(bytes), (*cpu_normals)[3] = malloc(bytes);
        float(*gpu_positions)[3] = malloc(bytes), (*gpu_normals)[3] = malloc(bytes);
        CHECK(pose_skin_cpu_dual_quaternion(s, palette, m->skeleton.joint_count, cpu_positions, cpu_normals));
        diag err;
        bool captured = gfx_capture_dual_quaternion_skinning(mesh, part, palette, m->skeleton.joint_count,
                                                             gpu_positions, gpu_normals, &err);
        char what[96];
        snprintf(what, sizeof what, "dual-quaternion skinning, %s", label);
        compare_skinning(s, captured, &err, cpu_positions, cpu_normals, gpu_positions, gpu_normals, what);
    }
}

static limb twisted_limb;
static gfx_mesh limb_mesh;

static void test_dual_quaternion_gpu_matches_cpu(void)
{
    pose_dual_quaternion palette[MAX_JOINTS];
    CHECK(dual_quaternion_pose_at(mannequin, walk, 0.3f, palette));
    check_dual_quaternion_skinning(mannequin, mannequin_mesh, palette, "mannequin walking");
    CHECK(dual_quaternion_pose_at(mannequin, celebrate, 1.1f, palette));
    check_dual_quaternion_skinning(mannequin, mannequin_mesh, palette, "mannequin celebrating");
    CHECK(dual_quaternion_pose_at(robot, run, 0.2f, palette));
    check_dual_quaternion_skinning(robot, robot_mesh, palette, "robot running");
    joint_pose object[2];
    limb_twist(&twisted_limb, 150.0f, object);
    CHECK(pose_dual_quaternion_palette(object, twisted_limb.bind_object, 2, palette));
    check_dual_quaternion_skinning(&twisted_limb.model, limb_mesh, palette, "limb twisted 150 degrees");
}

/* draw_small_scene's characters, scaled by 1.3 (as a character's import scales it: outside the dual
 * quaternion), each skinned with dual quaternions where `dual_every` divides its index (1: all, 0: none). */
static void draw_dual_quaternion_scene(bool cpu_skinning, bool skin_once, int dual_every,
                                       const mat4 (*palettes)[MAX_JOINTS],
                                       const pose_dual_quaternion (*dual_quaternions)[MAX_JOINTS])
{
    gfx_frame_desc frame = camera_frame((vec3){7.0f, 3.0f, 4.0f}, (vec3){0.0f, 0.8f, 0.0f}, 45.0f);
    frame.cpu_skinning = cpu_skinning;
    frame.skin_once = skin_once;
    gfx_begin_frame(&frame);
    for (int i = 0; i < 8; ++i) {
        gfx_instance instance = small_scene_instance(i, palettes);
        glm_scale_uni(instance.world, 1.3f);
        if (dual_every > 0 && i % dual_every == 0) {
            instance.skinning = POSE_SKINNING_DUAL_QUATERNION;
            instance.dual_quaternions = dual_quaternions[i % 6];
        }
        CHECK(gfx_submit(&instance));
    }
    end_frame_checked();
}

static void compare_pictures(const uint8_t *a, const uint8_t *b, const char *what, size_t most_differing)
{
    int largest = 0;
    size_t foreground = 0, differing = count_differing_pixels(a, b, &largest, &foreground);
    printf("  %s: %zu of %zu pixels differ by more than 2 (largest %d)\n", what, differing, foreground, largest);
    CHECK(foreground > 20000);
    CHECK(differing <= most_differing);
}

/* Every path follows each instance's mode: the vertex shader (picture and shadow), the CPU path and skin
 * once draw one picture of dual-quaternion characters, also mixed with linear ones in one frame; and the
 * mode is really used: the dual-quaternion picture is not the linear one. Half the palette bytes. */
static void test_dual_quaternion_paths_draw_the_same_picture(void)
{
    static mat4 palettes[6][MAX_JOINTS];
    static pose_dual_quaternion dual_quaternions[6][MAX_JOINTS];
    pose_small_scene(0.53f, palettes);
    const clip *clips[6] = {walk, run, idle, wave, celebrate, jump};
    for (int i = 0; i < 6; ++i)
        CHECK(dual_quaternion_pose_at(i % 2 ? robot : mannequin, clips[i], 0.53f * (float)(i + 1), dual_quaternions[i]));
    const mat4(*linear)[MAX_JOINTS] = (const mat4(*)[MAX_JOINTS])palettes;
    const pose_dual_quaternion(*dual)[MAX_JOINTS] = (const pose_dual_quaternion(*)[MAX_JOINTS])dual_quaternions;
    size_t bytes = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4;
    uint8_t *gpu = malloc(bytes), *other = malloc(bytes), *linear_picture = malloc(bytes);
    size_t tolerance = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT / 2000;

    draw_dual_quaternion_scene(false, false, 0, linear, dual);
    gfx_stats linear_stats = gfx_frame_stats();
    CHECK(platform_read_pixels(linear_picture));
    draw_dual_quaternion_scene(false, false, 1, linear, dual);
    gfx_stats dual_stats = gfx_frame_stats();
    CHECK(platform_read_pixels(gpu));
    save_picture("gfx_dual_quaternion.png");
    printf("  palettes of 8 characters: linear %d matrices (%zu bytes), dual quaternions %d (%zu bytes)\n",
           linear_stats.palette_matrices, linear_stats.palette_bytes, dual_stats.palette_matrices,
           dual_stats.palette_bytes);
    int half = 0;
    for (int i = 0; i < 8; ++i)
        half += ((i % 2 ? robot : mannequin)->skeleton.joint_count + 1) / 2;
    CHECK(dual_stats.palette_matrices == half);
    CHECK(dual_stats.palette_bytes == (size_t)half * sizeof(mat4));
    CHECK(2 * dual_stats.palette_bytes <= linear_stats.palette_bytes + 8 * sizeof(mat4));

    /* Not the linear picture: the bodies' shoulders and elbows bulge a little where linear blend pinches. */
    int largest = 0;
    size_t foreground = 0, differing = count_differing_pixels(gpu, linear_picture, &largest, &foreground);
    printf("  dual quaternions vs linear blend: %zu pixels differ\n", differing);
    CHECK(differing > 100);

    draw_dual_quaternion_scene(true, false, 1, linear, dual);
    gfx_stats cpu_stats = gfx_frame_stats();
    CHECK(platform_read_pixels(other));
    compare_pictures(gpu, other, "dual quaternions, CPU path vs vertex shader", tolerance);
    CHECK(cpu_stats.cpu_skinned_vertices > 0);

    draw_dual_quaternion_scene(false, true, 1, linear, dual);
    gfx_stats once_stats = gfx_frame_stats();
    CHECK(platform_read_pixels(other));
    compare_pictures(gpu, other, "dual quaternions, skin once vs each pass", 0);
    CHECK(once_stats.skinned_once_vertices > 0);

    /* Every other character linear: on the GPU and on the CPU, one picture. */
    draw_dual_quaternion_scene(false, false, 2, linear, dual);
    CHECK(platform_read_pixels(gpu));
    draw_dual_quaternion_scene(true, false, 2, linear, dual);
    CHECK(platform_read_pixels(other));
    compare_pictures(gpu, other, "linear and dual quaternions in one frame, CPU path vs vertex shader", tolerance);
    free(gpu);
    free(other);
    free(linear_picture);
}

static void test_dual_quaternion_misuse_is_reported(void)
{
    static pose_dual_quaternion dual_quaternions[MAX_JOINTS];
    static mat4 palette[MAX_JOINTS];
    CHECK(dual_quaternion_pose_at(mannequin, walk, 0.2f, dual_quaternions));
    gfx_instance instance = {.mesh = mannequin_mesh, .joint_count = mannequin->skeleton.joint_count,
                             .skinning = POSE_SKINNING_DUAL_QUATERNION};
    glm_mat4_identity(instance.world);
    gfx_frame_desc frame = camera_frame((vec3){3.0f, 1.0f, 0.0f}, (vec3){0.0f, 0.9f, 0.0f}, 40.0f);
    gfx_begin_frame(&frame);
    /* A matrix slot is the wrong size for dual quaternions, and the other way round. */
    CHECK(gfx_submit_palette(&instance) == NULL);
    CHECK_STR_CONTAINS(gfx_last_error(), "skinned dual_quaternion, not linear");
    CHECK(!gfx_submit(&instance));
    CHECK_STR_CONTAINS(gfx_last_error(), "no palette");
    instance.skinning = POSE_SKINNING_LINEAR;
    instance.palette = (const mat4 *)palette;
    CHECK(gfx_submit_dual_quaternions(&instance) == NULL);
    CHECK_STR_CONTAINS(gfx_last_error(), "skinned linear, not dual_quaternion");
    instance.skinning = (pose_skinning)7;
    CHECK(!gfx_submit(&instance));
    CHECK_STR_CONTAINS(gfx_last_error(), "neither linear nor dual quaternion");
    instance.skinning = POSE_SKINNING_DUAL_QUATERNION;
    instance.dual_quaternions = dual_quaternions;
    pose_dual_quaternion *slot = gfx_submit_dual_quaternions(&instance);
    CHECK(slot != NULL);
    if (slot)
        memcpy(slot, dual_quaternions, (size_t)instance.joint_count * sizeof *slot);
    end_frame_checked();
    CHECK(gfx_frame_stats().instances == 1);
    /* The benchmark's naive frames skin linearly only, and each kind of frame is ended by its own end: the
     * other refuses it and leaves it open. */
    gfx_bench_begin_naive_frame(&frame);
    CHECK(!gfx_submit(&instance));
    CHECK_STR_CONTAINS(gfx_last_error(), "linearly only");
    gfx_end_frame();
    CHECK_STR_CONTAINS(gfx_last_error(), "end it with gfx_bench_end_naive_frame");
    end_frame_checked_by(gfx_bench_end_naive_frame);
    gfx_bench_end_naive_frame();
    CHECK_STR_CONTAINS(gfx_last_error(), "gfx_bench_end_naive_frame without gfx_bench_begin_naive_frame");
    gfx_begin_frame(&frame);
    gfx_bench_end_naive_frame();
    CHECK_STR_CONTAINS(gfx_last_error(), "begun by gfx_begin_frame: end it with gfx_end_frame");
    end_frame_checked();
}

/* Silhouette pixels (not background) in column x of a picture. */
static int column_thickness(const uint8_t *rgba, int x)
{
    int count = 0;
    for (int y = 0; y < IMAGE_HEIGHT; ++y)
        count += !is_background(rgba, x, y);
    return count;
}

/* The twisting limb (test_limb.h) twisted 150 degrees about its own axis, seen from the side with the
 * ground hidden: linear blend pinches it to a thread at the joint, dual quaternions keep it whole. The
 * pair is docs/skinning_twist_linear.png and docs/skinning_twist_dual_quaternion.png. */
static void test_twisted_limb_pictures(void)
{
    pose_dual_quaternion dual_quaternions[2];
    mat4 palette[2];
    joint_pose object[2];
    limb_twist(&twisted_limb, 150.0f, object);
    CHECK(pose_palette(object, (const mat4 *)twisted_limb.inverse_bind, 2, palette));
    CHECK(pose_dual_quaternion_palette(object, twisted_limb.bind_object, 2, dual_quaternions));
    gfx_frame_desc frame = camera_frame((vec3){1.0f, 1.35f, 2.2f}, (vec3){1.0f, 1.0f, 0.0f}, 50.0f);
    frame.hide_ground = true;
    frame.no_shadows = true;
    frame.culling = GFX_CULLING_NONE; /* the tube is open at both ends */
    size_t bytes = (size_t)IMAGE_WIDTH * IMAGE_HEIGHT * 4;
    uint8_t *pictures[2] = {malloc(bytes), malloc(bytes)};
    for (int mode = 0; mode < 2; ++mode) {
        gfx_begin_frame(&frame);
        gfx_instance instance = {.mesh = limb_mesh, .joint_count = 2, .palette = (const mat4 *)palette};
        if (mode == 1) {
            instance.skinning = POSE_SKINNING_DUAL_QUATERNION;
            instance.dual_quaternions = dual_quaternions;
        }
        glm_mat4_identity(instance.world);
        CHECK(gfx_submit(&instance));
        end_frame_checked();
        CHECK(platform_read_pixels(pictures[mode]));
        save_picture(mode == 0 ? "gfx_twist_linear.png" : "gfx_twist_dual_quaternion.png");
    }
    /* Thickness on screen at the joint (x = 1 m) against the untwisted end (x = 0.2 m). */
    float joint_pixel[2], end_pixel[2];
    vec3 joint_world, end_world;
    md5_to_world((float[3]){1.0f, 0.0f, LIMB_HEIGHT}, joint_world);
    md5_to_world((float[3]){0.2f, 0.0f, LIMB_HEIGHT}, end_world);
    project(&frame, joint_world, joint_pixel);
    project(&frame, end_world, end_pixel);
    int linear_joint = column_thickness(pictures[0], (int)joint_pixel[0]);
    int dual_joint = column_thickness(pictures[1], (int)joint_pixel[0]);
    int end = column_thickness(pictures[1], (int)end_pixel[0]);
    printf("  limb twisted 150 degrees, thickness on screen at the joint: linear %d pixels, dual quaternions %d; "
           "%d at the untwisted end\n", linear_joint, dual_joint, end);
    CHECK(end > 40);
    CHECK(dual_joint >= end * 9 / 10);
    CHECK(linear_joint <= end / 2);
    free(pictures[0]);
    free(pictures[1]);
}

int main(void)
{
    diag err;
    if (!platform_setup(&(platform_desc){.width = IMAGE_WIDTH, .height = IMAGE_HEIGHT, .headless = true}, &err)) {
        fprintf(stderr, "test_gfx: no OpenGL 3.3 context: %s\n", err.message);
        return 1;
    }
    mannequin = load_model("mannequin");
    robot = load_model("robot");
    walk = load_clip("walk");
    run = load_clip("run");
    idle = load_clip("idle");
    wave = load_clip("wave");
    celebrate = load_clip("celebrate");
    jump = load_clip("jump");
    CHECK(mannequin && robot && walk && run && idle && wave && celebrate && jump);
    images = image_cache_create(&(image_cache_desc){.decode = platform_image_decode});
    bool ready = images && mannequin && robot && walk && run && idle && wave && celebrate && jump &&
                 gfx_setup(&(gfx_desc){0}, &err);
    CHECK(ready);
    if (ready) {
        diag_list warnings = {0};
        mannequin_mesh = make_dressed((gfx_mesh_desc){.model = mannequin, .label = "mannequin"}, NULL, &err, &warnings);
        robot_mesh = make_dressed((gfx_mesh_desc){.model = robot, .label = "robot"}, NULL, &err, &warnings);
        CHECK(mannequin_mesh.id != 0 && robot_mesh.id != 0);
        CHECK(warnings.total == 0); /* both real textures load */
        diag_list_free(&warnings);
        CHECK(gfx_mesh_joint_count(mannequin_mesh) == mannequin->skeleton.joint_count);

        RUN(test_gpu_skinning_matches_cpu);
        RUN(test_gpu_tangents_match_cpu);
        RUN(test_character_placement);
        RUN(test_winding_and_culling);
        RUN(test_draw_calls_do_not_grow_with_instances);
        RUN(test_misuse_is_reported);
        RUN(test_crowd);
        RUN(test_textures_are_shared_by_file);
        RUN(test_textures_are_bounded);
        RUN(test_texture_formats_load);
        RUN(test_texture_budget);
        RUN(test_gfx_reads_no_file);
        RUN(test_naive_path_matches_instanced);
        RUN(test_cpu_skinning_matches_gpu);
        RUN(test_shadows_follow_the_pose);
        RUN(test_tall_character_casts_its_whole_shadow);
        RUN(test_shadows_fall_on_uneven_ground);
        RUN(test_culling_with_pose_bounds);
        RUN(test_debug_views);
        RUN(test_normal_and_specular_maps);
        RUN(test_buffers_grow_past_capacity);
        RUN(test_palette_slots_draw_the_same_picture);
        RUN(test_palettes_grow_while_mapped);
        RUN(test_mapping_faults);
        RUN(test_levels_of_detail);
        RUN(test_skin_once_draws_the_same_picture);
        limb_make(&twisted_limb);
        limb_mesh = gfx_make_mesh(&(gfx_mesh_desc){.model = &twisted_limb.model, .label = "limb"}, &err, NULL);
        CHECK(limb_mesh.id != 0);
        RUN(test_dual_quaternion_gpu_matches_cpu);
        RUN(test_dual_quaternion_paths_draw_the_same_picture);
        RUN(test_dual_quaternion_misuse_is_reported);
        RUN(test_twisted_limb_pictures);
        gfx_destroy_mesh(limb_mesh);
        RUN(test_far_characters_cast_no_shadow);
        RUN(test_frame_budget);
        RUN(test_frame_budget_waits_for_nothing);
        CHECK(gfx_check_errors() == NULL);
        gfx_shutdown();
    }
    image_cache_destroy(images);
    platform_shutdown();
    model_free(mannequin), model_free(robot);
    clip_free(walk), clip_free(run), clip_free(idle), clip_free(wave), clip_free(celebrate), clip_free(jump);
    return check_report();
}
