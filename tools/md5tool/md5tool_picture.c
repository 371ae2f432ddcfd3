/* md5tool render and sheet: pictures of posed models drawn on the CPU with the software rasterizer, for
 * looking at characters before (and without) the GL renderer. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md5tool_common.h"
#include "png.h"
#include "pose/pose.h"
#include "raster.h"
#include "tga.h"

/* ---- pictures: render and sheet --------------------------------------------------------------------- */

/* Which way the camera looks at the character. The file's Z-up space is shown upright; the character is
 * assumed to face +X (the Doom 3 convention), so "front" puts the camera on +X looking back at it. */
typedef enum view_kind { VIEW_FRONT, VIEW_SIDE, VIEW_BACK, VIEW_THREE_QUARTER } view_kind;

static const char *const view_names[] = {"front", "side", "back", "three-quarter"};

static bool parse_view(const char *text, view_kind *out)
{
    for (int i = 0; i < (int)(sizeof view_names / sizeof view_names[0]); ++i)
        if (strcmp(text, view_names[i]) == 0) {
            *out = (view_kind)i;
            return true;
        }
    return false;
}

/* Unit vector from the character toward the camera, per view_kind. "side" looks from the character's
 * right (-Y), so it faces the right edge of the picture; "three-quarter" stands between front and right,
 * 20 degrees up (0.364 = tan 20 degrees times the unit horizontal length). */
static void view_direction(view_kind view, vec3 out)
{
    static const float directions[][3] = {
        [VIEW_FRONT] = {1.0f, 0.0f, 0.0f},
        [VIEW_SIDE] = {0.0f, -1.0f, 0.0f},
        [VIEW_BACK] = {-1.0f, 0.0f, 0.0f},
        [VIEW_THREE_QUARTER] = {0.7071f, -0.7071f, 0.364f},
    };
    glm_vec3_copy((float *)directions[view], out);
    glm_vec3_normalize(out);
}

/* An axis-aligned box in file space, grown point by point; empty until the first point. */
typedef struct box {
    vec3 min, max;
    bool empty;
} box;

static box box_empty(void)
{
    return (box){.empty = true};
}

static void box_add(box *b, const float point[3])
{
    if (b->empty) {
        glm_vec3_copy((float *)point, b->min);
        glm_vec3_copy((float *)point, b->max);
        b->empty = false;
        return;
    }
    glm_vec3_minv(b->min, (float *)point, b->min);
    glm_vec3_maxv(b->max, (float *)point, b->max);
}

/* How one picture is set up: an orthographic camera that frames a box in a width x height picture, and
 * the light and the ground grid that go with it. */
typedef struct picture_framing {
    raster_camera camera;
    vec3 eye;             /* where the camera is, for the highlight */
    vec3 light_direction; /* toward the light: from the camera's side, above and a little to the left */
    vec3 ground_center;   /* the grid lies under the framed box, at its lowest point */
    float ground_half_size, ground_spacing;
} picture_framing;

static picture_framing frame_box(box frame, view_kind view, int width, int height)
{
    picture_framing framing = {0};
    /* A model without vertices still gets a camera: on a point at the origin. */
    if (frame.empty)
        frame = (box){.empty = false};
    vec3 center, size, toward_camera, up = {0.0f, 0.0f, 1.0f}, eye, right;
    glm_vec3_center(frame.min, frame.max, center);
    glm_vec3_sub(frame.max, frame.min, size);
    float radius = fmaxf(glm_vec3_norm(size) * 0.5f, 1e-3f);
    view_direction(view, toward_camera);
    glm_vec3_scale(toward_camera, 2.0f * radius, eye);
    glm_vec3_add(center, eye, eye);
    mat4 view_matrix;
    glm_lookat(eye, center, up, view_matrix);
    glm_vec3_copy(eye, framing.eye);

    /* The grid reaches a little beyond the box; whole "spacing" squares around the centre. */
    framing.ground_half_size = fmaxf(size[0], size[1]) * 0.5f + radius * 0.3f;
    framing.ground_spacing = framing.ground_half_size / 4.0f;
    glm_vec3_copy((vec3){center[0], center[1], frame.min[2]}, framing.ground_center);

    /* Fit the box's 8 corners on screen (with a margin), keep pixels square, and put the near and far
     * planes around the box and the grid. The camera looks down view-space -Z. */
    float left = INFINITY, right_edge = -INFINITY, bottom = INFINITY, top = -INFINITY;
    float nearest = -INFINITY, farthest = INFINITY;
    for (int corner = 0; corner < 12; ++corner) {
        vec4 point = {corner & 1 ? frame.max[0] : frame.min[0], corner & 2 ? frame.max[1] : frame.min[1],
                      corner & 4 ? frame.max[2] : frame.min[2], 1.0f};
        if (corner >= 8) { /* the grid's corners: only for the depth range */
            point[0] = framing.ground_center[0] + (corner & 1 ? 1.0f : -1.0f) * framing.ground_half_size;
            point[1] = framing.ground_center[1] + (corner & 2 ? 1.0f : -1.0f) * framing.ground_half_size;
            point[2] = framing.ground_center[2];
        }
        vec4 in_view;
        glm_mat4_mulv(view_matrix, point, in_view);
        nearest = fmaxf(nearest, in_view[2]);
        farthest = fminf(farthest, in_view[2]);
        if (corner >= 8)
            continue;
        left = fminf(left, in_view[0]);
        right_edge = fmaxf(right_edge, in_view[0]);
        bottom = fminf(bottom, in_view[1]);
        top = fmaxf(top, in_view[1]);
    }
    float half_width = fmaxf((right_edge - left) * 0.5f, 1e-3f) * 1.08f;
    float half_height = fmaxf((top - bottom) * 0.5f, 1e-3f) * 1.08f;
    float aspect = (float)width / (float)height;
    if (half_width / half_height < aspect)
        half_width = half_height * aspect;
    else
        half_height = half_width / aspect;
    float middle_x = (left + right_edge) * 0.5f, middle_y = (bottom + top) * 0.5f;
    mat4 projection;
    glm_ortho(middle_x - half_width, middle_x + half_width, middle_y - half_height, middle_y + half_height,
              -nearest - radius * 0.1f, -farthest + radius * 0.1f, projection);
    glm_mat4_mul(projection, view_matrix, framing.camera.view_projection);

    glm_vec3_cross(up, toward_camera, right);
    glm_vec3_normalize(right);
    glm_vec3_copy(toward_camera, framing.light_direction);
    glm_vec3_muladds(up, 0.8f, framing.light_direction);
    glm_vec3_muladds(right, -0.4f, framing.light_direction);
    glm_vec3_normalize(framing.light_direction);
    return framing;
}

/* A model ready to be drawn in any pose: skinned positions and normals per mesh, the joints' object-space
 * pose for the skeleton overlay, and each mesh's texture (or none: the placeholder). Every buffer is
 * allocated once, so posing and drawing many frames allocates nothing. */
typedef struct picture_model {
    const model *model;
    float (**positions)[3];
    float (**normals)[3];
    float (**tangents)[4];
    joint_pose *object; /* the current pose in object space */
    pose_skinning skinning;
    /* Per mesh and image kind (texture, normal map, specular map): the image read, and what the rasterizer
     * samples; textures[k][i].pixels NULL: mesh i has none (the texture's place a checker). */
    tga_image *images[3];
    raster_texture *textures[3];
} picture_model;

enum { PICTURE_TEXTURE, PICTURE_NORMAL_MAP, PICTURE_SPECULAR_MAP };

static void picture_model_free(picture_model *picture)
{
    const model *m = picture->model;
    for (int i = 0; m && i < m->mesh_count; ++i) {
        if (picture->positions)
            free(picture->positions[i]);
        if (picture->normals)
            free(picture->normals[i]);
        if (picture->tangents)
            free(picture->tangents[i]);
        for (int k = 0; k < 3; ++k)
            if (picture->images[k])
                tga_image_free(&picture->images[k][i]);
    }
    free(picture->positions);
    free(picture->normals);
    free(picture->tangents);
    free(picture->object);
    for (int k = 0; k < 3; ++k) {
        free(picture->images[k]);
        free(picture->textures[k]);
    }
    *picture = (picture_model){0};
}

/* One image of a mesh into picture->textures[kind][i]; a path that is not a TGA, or a TGA that cannot be
 * read, is a warning on stderr and leaves it without. A map of another size than the texture is a warning
 * too, and is not used. */
static void load_image(picture_model *picture, const char *model_path, int i, int kind, const char *path)
{
    static const char *const names[3] = {"texture", "normal map", "specular map"};
    static const char *const instead[3] = {"drawing a placeholder", "drawing without it", "drawing without it"};
    diag err = {0};
    if (!has_extension(path, ".tga")) {
        fprintf(stderr, "%s: warning: mesh %d: %s %s is not a TGA image (md5tool reads TGA only); %s\n", model_path,
                i, names[kind], path, instead[kind]);
    } else if (!tga_load(path, &picture->images[kind][i], &err)) {
        char text[DIAG_TEXT_MAX];
        diag_format(&err, text, sizeof text);
        fprintf(stderr, "%s: warning: mesh %d: %s; %s\n", model_path, i, text, instead[kind]);
    } else if (kind != PICTURE_TEXTURE && picture->textures[PICTURE_TEXTURE][i].pixels &&
               (picture->images[kind][i].width != picture->textures[PICTURE_TEXTURE][i].width ||
                picture->images[kind][i].height != picture->textures[PICTURE_TEXTURE][i].height)) {
        fprintf(stderr, "%s: warning: mesh %d: %s %s is %d x %d, its texture %d x %d; %s\n", model_path, i,
                names[kind], path, picture->images[kind][i].width, picture->images[kind][i].height,
                picture->textures[PICTURE_TEXTURE][i].width, picture->textures[PICTURE_TEXTURE][i].height,
                instead[kind]);
        tga_image_free(&picture->images[kind][i]);
    } else {
        picture->textures[kind][i] = (raster_texture){.width = picture->images[kind][i].width,
                                                      .height = picture->images[kind][i].height,
                                                      .pixels = picture->images[kind][i].pixels};
    }
}

/* Loads each mesh's images: its texture found as a character's would be (the mesh's folder, then the shader's
 * file name in textures_dir, --textures, as a character's `textures` folder; may be NULL), and, unless
 * no_maps, its normal and specular maps beside it by their names (loader_find_map). A missing texture is a
 * warning on stderr, not an error: the mesh is drawn with the placeholder checker; a missing map is no
 * warning: the mesh is drawn without it. */
static void load_textures(picture_model *picture, const char *model_path, const char *textures_dir, bool no_maps)
{
    const model *m = picture->model;
    for (int i = 0; i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        loader_images found;
        loader_find_images(model_path, mesh->shader, textures_dir, &found);
        if (!found.texture[0])
            fprintf(stderr, "%s: warning: mesh %d: texture \"%s\" not found; drawing a placeholder\n", model_path, i,
                    mesh->shader ? mesh->shader : "");
        else
            load_image(picture, model_path, i, PICTURE_TEXTURE, found.texture);
        const char *maps[3] = {NULL, found.normal_map, found.specular_map};
        for (int kind = PICTURE_NORMAL_MAP; !no_maps && kind <= PICTURE_SPECULAR_MAP; ++kind)
            if (maps[kind][0])
                load_image(picture, model_path, i, kind, maps[kind]);
    }
}

static bool picture_model_init(picture_model *picture, const model *m, const char *model_path,
                               const char *textures_dir, bool no_maps)
{
    *picture = (picture_model){.model = m};
    size_t meshes = (size_t)(m->mesh_count ? m->mesh_count : 1);
    size_t joints = (size_t)(m->skeleton.joint_count ? m->skeleton.joint_count : 1);
    picture->positions = calloc(meshes, sizeof *picture->positions);
    picture->normals = calloc(meshes, sizeof *picture->normals);
    picture->tangents = calloc(meshes, sizeof *picture->tangents);
    bool ok = picture->positions && picture->normals && picture->tangents;
    for (int k = 0; k < 3; ++k) {
        picture->images[k] = calloc(meshes, sizeof *picture->images[k]);
        picture->textures[k] = calloc(meshes, sizeof *picture->textures[k]);
        ok = ok && picture->images[k] && picture->textures[k];
    }
    picture->object = malloc(joints * sizeof *picture->object);
    ok = ok && picture->object;
    for (int i = 0; ok && i < m->mesh_count; ++i) {
        size_t vertices = (size_t)(m->meshes[i].vertex_count ? m->meshes[i].vertex_count : 1);
        picture->positions[i] = malloc(vertices * sizeof *picture->positions[i]);
        picture->normals[i] = malloc(vertices * sizeof *picture->normals[i]);
        picture->tangents[i] = malloc(vertices * sizeof *picture->tangents[i]);
        ok = picture->positions[i] && picture->normals[i] && picture->tangents[i];
    }
    if (!ok) {
        fprintf(stderr, "md5tool: out of memory\n");
        picture_model_free(picture);
        return false;
    }
    load_textures(picture, model_path, textures_dir, no_maps);
    return true;
}

/* Skin every mesh with an object-space pose, or show the bind pose when object is NULL. */
static bool picture_model_pose(picture_model *picture, const joint_pose *object)
{
    const model *m = picture->model;
    const skeleton *s = &m->skeleton;
    if (!object) {
        memcpy(picture->object, s->bind_object, (size_t)s->joint_count * sizeof *picture->object);
        for (int i = 0; i < m->mesh_count; ++i) {
            memcpy(picture->positions[i], m->meshes[i].positions, (size_t)m->meshes[i].vertex_count * sizeof
                   *picture->positions[i]);
            memcpy(picture->normals[i], m->meshes[i].normals, (size_t)m->meshes[i].vertex_count * sizeof
                   *picture->normals[i]);
            memcpy(picture->tangents[i], m->meshes[i].tangents, (size_t)m->meshes[i].vertex_count * sizeof
                   *picture->tangents[i]);
        }
        return true;
    }
    memcpy(picture->object, object, (size_t)s->joint_count * sizeof *picture->object);
    return md5tool_skin_frames(m, picture->object, picture->skinning, picture->positions, picture->normals,
                               picture->tangents);
}

/* Grow b by the skinned vertices, and by the joints when the skeleton is drawn too. */
static void picture_model_bounds(const picture_model *picture, bool with_skeleton, box *b)
{
    const model *m = picture->model;
    for (int i = 0; i < m->mesh_count; ++i)
        for (int v = 0; v < m->meshes[i].vertex_count; ++v)
            box_add(b, picture->positions[i][v]);
    for (int j = 0; with_skeleton && j < m->skeleton.joint_count; ++j)
        box_add(b, picture->object[j].position);
}

static const uint8_t background_color[3] = {46, 52, 64};
static const uint8_t ground_color[3] = {96, 104, 118};
static const uint8_t skeleton_color[3] = {255, 200, 40};
static const uint8_t label_color[3] = {235, 235, 235};

static void picture_model_draw(const picture_model *picture, const picture_framing *framing, bool with_skeleton,
                               raster_target *target)
{
    const model *m = picture->model;
    raster_clear(target, background_color);
    raster_draw_ground_grid(target, &framing->camera, framing->ground_center, framing->ground_half_size,
                            framing->ground_spacing, ground_color);
    raster_shading shading = {.ambient = 0.3f, .cull_back_faces = true, .front_face = RASTER_FRONT_CLOCKWISE,
                              .bilinear = true, .highlight = true};
    glm_vec3_copy((float *)framing->light_direction, shading.light_direction);
    glm_vec3_copy((float *)framing->eye, shading.eye);
    for (int i = 0; i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        raster_mesh drawn = {
            .vertex_count = mesh->vertex_count,
            .triangle_count = mesh->triangle_count,
            .positions = (const float(*)[3])picture->positions[i],
            .normals = (const float(*)[3])picture->normals[i],
            .uvs = (const float(*)[2])mesh->uvs,
            .triangles = (const uint32_t(*)[3])mesh->triangles,
            .texture = picture->textures[PICTURE_TEXTURE][i].pixels ? &picture->textures[PICTURE_TEXTURE][i] : NULL,
            .tangents = (const float(*)[4])picture->tangents[i],
            .normal_map = picture->textures[PICTURE_NORMAL_MAP][i].pixels ? &picture->textures[PICTURE_NORMAL_MAP][i]
                                                                           : NULL,
            .specular_map = picture->textures[PICTURE_SPECULAR_MAP][i].pixels
                                ? &picture->textures[PICTURE_SPECULAR_MAP][i]
                                : NULL,
        };
        raster_draw_mesh(target, &framing->camera, &drawn, &shading);
    }
    if (!with_skeleton)
        return;
    /* Bones from each joint to its parent, seen through the body; a small square marks each joint. */
    const skeleton *s = &m->skeleton;
    for (int j = 0; j < s->joint_count; ++j) {
        if (s->parents[j] >= 0)
            raster_draw_line(target, &framing->camera, picture->object[s->parents[j]].position,
                             picture->object[j].position, skeleton_color, false);
        raster_draw_point(target, &framing->camera, picture->object[j].position, 3, skeleton_color);
    }
}

static bool write_png(const char *path, const raster_target *image)
{
    diag err = {0};
    if (png_write_rgb(path, image->color, image->width, image->height, &err))
        return true;
    char text[DIAG_TEXT_MAX];
    diag_format(&err, text, sizeof text);
    fprintf(stderr, "%s\n", text);
    return false;
}

/* Parses "--size W H" or "--cell W H" at argv[*i]; advances *i past the numbers. */
static bool parse_size(int argc, char **argv, int *i, int *width, int *height)
{
    long long w, h;
    if (*i + 2 >= argc || !parse_count(argv[*i + 1], 16, 8192, &w) || !parse_count(argv[*i + 2], 16, 8192, &h))
        return false;
    *width = (int)w;
    *height = (int)h;
    *i += 2;
    return true;
}

/* The options render and sheet share: --out FILE.png, --view V, --textures DIR and --no-maps. Returns true
 * when argv[*i] was one of them (moving *i past its value); *status is then 0, or the exit status of the usage
 * error printed. */
static bool picture_option(int argc, char **argv, int *i, const char **out_path, view_kind *view,
                           const char **textures_dir, bool *no_maps, int *status)
{
    const char *arg = argv[*i];
    *status = 0;
    if (strcmp(arg, "--no-maps") == 0) {
        *no_maps = true;
        return true;
    }
    if (strcmp(arg, "--textures") == 0) {
        if (*i + 1 >= argc)
            *status = usage_error("%s", "--textures needs a DIR");
        else
            *textures_dir = argv[++*i];
        return true;
    }
    if (strcmp(arg, "--out") == 0) {
        if (*i + 1 >= argc)
            *status = usage_error("%s", "--out needs a FILE.png");
        else
            *out_path = argv[++*i];
        return true;
    }
    if (strcmp(arg, "--view") == 0) {
        if (*i + 1 >= argc || !parse_view(argv[*i + 1], view))
            *status = usage_error("%s", "--view needs front, side, back or three-quarter");
        else
            ++*i;
        return true;
    }
    return false;
}

/* ---- render ----------------------------------------------------------------------------------------- */

int command_render(int argc, char **argv)
{
    pose_arguments a = {.add_weight = 1.0};
    const char *out_path = NULL;
    view_kind view = VIEW_THREE_QUARTER;
    int width = 512, height = 512;
    bool with_skeleton = false;
    const char *textures_dir = NULL;
    bool no_maps = false;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        int status = 0;
        if (picture_option(argc, argv, &i, &out_path, &view, &textures_dir, &no_maps, &status) ||
            pose_option("render", argc, argv, &i, &a, &status)) {
            if (status)
                return status;
        } else if (strcmp(arg, "--size") == 0) {
            if (!parse_size(argc, argv, &i, &width, &height))
                return usage_error("%s", "--size needs a width and a height, each from 16 to 8192");
        } else if (strcmp(arg, "--skeleton") == 0) {
            with_skeleton = true;
        } else if (!pose_positional("render", arg, &a, &status)) {
            return status;
        }
    }
    if (!out_path)
        return usage_error("%s", "render needs a MESH and --out FILE.png");
    int status = pose_arguments_check("render", &a);
    if (status)
        return status;

    posed p;
    picture_model picture = {0};
    raster_target image = {0};
    status = EXIT_INVALID;
    if (!pose_from_arguments(&a, &p) || !picture_model_init(&picture, p.mesh.model, a.mesh_path, textures_dir, no_maps))
        goto done;
    picture.skinning = a.skinning;
    if (!picture_model_pose(&picture, p.object)) {
        fprintf(stderr, "%s: skinning refused by the pose stages\n", a.mesh_path);
        goto done;
    }
    if (!raster_target_create(&image, width, height)) {
        fprintf(stderr, "md5tool: out of memory for a %d x %d image\n", width, height);
        goto done;
    }
    box frame = box_empty();
    picture_model_bounds(&picture, with_skeleton, &frame);
    picture_framing framing = frame_box(frame, view, width, height);
    picture_model_draw(&picture, &framing, with_skeleton, &image);
    if (write_png(out_path, &image)) {
        printf("wrote %s (%d x %d, %s view)\n", out_path, width, height, view_names[view]);
        status = EXIT_SUCCESS;
    }
done:
    raster_target_free(&image);
    picture_model_free(&picture);
    posed_free(&p);
    return status;
}

/* ---- sheet ------------------------------------------------------------------------------------------ */

/* "walk" from ".../walk.md5anim": the file name without folder and extension, for labels. */
static void short_name(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    size_t length = dot && dot > name ? (size_t)(dot - name) : strlen(name);
    snprintf(out, size, "%.*s", (int)length, name);
}

/* Time of key pose `column` of `columns`. A clip whose last frame repeats its first is a cycle: poses are
 * spread over one loop and the end, a copy of the start, is left out. Any other clip is shown played
 * once, from 0 to its last frame inclusive. */
static float key_pose_time(const clip *c, int column, int columns)
{
    if (c->last_frame_is_first)
        return c->loop_duration * (float)column / (float)columns;
    return columns > 1 ? c->once_duration * (float)column / (float)(columns - 1) : 0.0f;
}

int command_sheet(int argc, char **argv)
{
    const char *out_path = NULL;
    view_kind view = VIEW_THREE_QUARTER;
    int cell_width = 160, cell_height = 200;
    long long columns = 6;
    int first_mesh = 0, mesh_count = 0, first_anim = 0, anim_count = 0;
    bool after_separator = false;
    const char *textures_dir = NULL;
    bool no_maps = false;
    for (int i = 1; i < argc; ++i) {
        int status = 0;
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0 && !after_separator) {
            after_separator = true;
            first_anim = i + 1;
        } else if (after_separator) {
            ++anim_count;
        } else if (picture_option(argc, argv, &i, &out_path, &view, &textures_dir, &no_maps, &status)) {
            if (status)
                return status;
        } else if (strcmp(arg, "--cell") == 0) {
            if (!parse_size(argc, argv, &i, &cell_width, &cell_height))
                return usage_error("%s", "--cell needs a width and a height, each from 16 to 8192");
        } else if (strcmp(arg, "--columns") == 0) {
            if (i + 1 >= argc || !parse_count(argv[i + 1], 1, 64, &columns))
                return usage_error("%s", "--columns needs a whole number from 1 to 64");
            ++i;
        } else if (arg[0] == '-' && arg[1] == '-') {
            return usage_error("sheet: unknown option '%s'", arg);
        } else {
            if (mesh_count == 0)
                first_mesh = i;
            else if (first_mesh + mesh_count != i)
                return usage_error("%s", "sheet: give the meshes together, before --");
            ++mesh_count;
        }
    }
    if (!out_path || mesh_count == 0 || anim_count == 0)
        return usage_error("%s", "sheet needs --out FILE.png, at least one MESH, then -- and at least one ANIM");
    long long rows = (long long)mesh_count * anim_count;
    if (rows * cell_height > 65535 || columns * cell_width > 65535)
        return usage_error("sheet: %lld x %lld cells of %d x %d pixels is too large an image", rows, columns,
                           cell_width, cell_height);

    int status = EXIT_INVALID;
    loaded_file *meshes = calloc((size_t)mesh_count, sizeof *meshes);
    loaded_file *anims = calloc((size_t)anim_count, sizeof *anims);
    picture_model *pictures = calloc((size_t)mesh_count, sizeof *pictures);
    raster_target sheet = {0}, cell = {0};
    joint_pose *local = NULL, *object = NULL;
    int loaded_meshes = 0, loaded_anims = 0, ready_pictures = 0;
    if (!meshes || !anims || !pictures) {
        fprintf(stderr, "md5tool: out of memory\n");
        goto done;
    }
    for (; loaded_meshes < mesh_count; ++loaded_meshes)
        if (!load_file(argv[first_mesh + loaded_meshes], FILE_TYPE_MESH, &meshes[loaded_meshes])) {
            fprintf(stderr, "%s\n", meshes[loaded_meshes++].error);
            goto done;
        }
    for (; loaded_anims < anim_count; ++loaded_anims)
        if (!load_file(argv[first_anim + loaded_anims], FILE_TYPE_ANIM, &anims[loaded_anims])) {
            fprintf(stderr, "%s\n", anims[loaded_anims++].error);
            goto done;
        }
    /* Every clip must fit every mesh before anything is drawn: a sheet with holes would be misleading. */
    int most_joints = 1;
    for (int m = 0; m < mesh_count; ++m) {
        const skeleton *s = &meshes[m].model->skeleton;
        most_joints = s->joint_count > most_joints ? s->joint_count : most_joints;
        for (int c = 0; c < anim_count; ++c) {
            diag err = {0};
            if (!clip_fits_skeleton(anims[c].clip, s, anims[c].path, &err)) {
                char text[DIAG_TEXT_MAX];
                diag_format(&err, text, sizeof text);
                fprintf(stderr, "%s (does not fit %s)\n", text, meshes[m].path);
                goto done;
            }
        }
    }
    for (; ready_pictures < mesh_count; ++ready_pictures)
        if (!picture_model_init(&pictures[ready_pictures], meshes[ready_pictures].model, meshes[ready_pictures].path,
                                textures_dir, no_maps))
            goto done;
    local = malloc((size_t)most_joints * sizeof *local);
    object = malloc((size_t)most_joints * sizeof *object);
    if (!local || !object || !raster_target_create(&sheet, (int)columns * cell_width, (int)rows * cell_height) ||
        !raster_target_create(&cell, cell_width, cell_height)) {
        fprintf(stderr, "md5tool: out of memory\n");
        goto done;
    }

    int text_scale = cell_width >= 320 ? 2 : 1, line_height = 9 * text_scale;
    for (int c = 0; c < anim_count; ++c) {
        for (int m = 0; m < mesh_count; ++m) {
            int row = c * mesh_count + m;
            const clip *animation = anims[c].clip;
            const skeleton *s = &meshes[m].model->skeleton;
            picture_model *picture = &pictures[m];
            /* Two passes over the row: the first frames all its poses together, so the character keeps one
             * scale and one ground across the row and its motion shows; the second draws them. */
            box frame = box_empty();
            for (int pass = 0; pass < 2; ++pass) {
                picture_framing framing = {0};
                if (pass == 1) {
                    /* The labels take the top of the cell: frame the character below them. */
                    framing = frame_box(frame, view, cell_width, cell_height - 2 * line_height);
                }
                for (int column = 0; column < columns; ++column) {
                    float time = key_pose_time(animation, column, (int)columns);
                    if (!pose_sample(animation, time, animation->last_frame_is_first, local) ||
                        !pose_to_object(s->parents, s->joint_count, local, object) ||
                        !picture_model_pose(picture, object)) {
                        fprintf(stderr, "%s: the pose stages refused this clip at %g s\n", anims[c].path, (double)time);
                        goto done;
                    }
                    if (pass == 0) {
                        picture_model_bounds(picture, false, &frame);
                        continue;
                    }
                    /* The picture goes under the two label lines: a view into the cell's rows below them
                     * (rows are contiguous, so a later start and fewer rows make a smaller target). */
                    raster_target drawing = cell;
                    drawing.height = cell_height - 2 * line_height;
                    drawing.color = cell.color + 3 * (size_t)cell_width * (size_t)(2 * line_height);
                    raster_clear(&cell, background_color);
                    picture_model_draw(picture, &framing, false, &drawing);
                    char clip_name[64], mesh_name[64], label[160];
                    short_name(anims[c].path, clip_name, sizeof clip_name);
                    short_name(meshes[m].path, mesh_name, sizeof mesh_name);
                    /* The time first, so a narrow cell cuts the name rather than the time; a third decimal
                     * only where key poses are closer than a tenth of a second. */
                    int decimals = key_pose_time(animation, 1, (int)columns) < 0.1f ? 3 : 2;
                    snprintf(label, sizeof label, "%.*fs %s", decimals, (double)time, clip_name);
                    raster_draw_text(&cell, 3, 2, text_scale, label, label_color);
                    raster_draw_text(&cell, 3, 2 + line_height, text_scale, mesh_name, ground_color);
                    /* A one-pixel frame keeps neighbouring cells apart. */
                    raster_fill_rectangle(&cell, 0, cell_height - 1, cell_width, 1, ground_color);
                    raster_fill_rectangle(&cell, cell_width - 1, 0, 1, cell_height, ground_color);
                    raster_copy(&sheet, column * cell_width, row * cell_height, &cell);
                }
            }
        }
    }
    if (write_png(out_path, &sheet)) {
        printf("wrote %s (%lld rows x %lld columns of %d x %d cells, %s view)\n", out_path, rows, columns, cell_width,
               cell_height, view_names[view]);
        status = EXIT_SUCCESS;
    }
done:
    for (int m = 0; m < ready_pictures; ++m)
        picture_model_free(&pictures[m]);
    for (int m = 0; m < loaded_meshes; ++m)
        loaded_file_free(&meshes[m]);
    for (int c = 0; c < loaded_anims; ++c)
        loaded_file_free(&anims[c]);
    free(meshes);
    free(anims);
    free(pictures);
    free(local);
    free(object);
    raster_target_free(&sheet);
    raster_target_free(&cell);
    return status;
}
