#include "raster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool raster_target_create(raster_target *target, int width, int height)
{
    *target = (raster_target){0};
    if (width <= 0 || height <= 0 || width > 16384 || height > 16384)
        return false;
    size_t pixels = (size_t)width * (size_t)height;
    target->color = malloc(pixels * 3);
    target->depth = malloc(pixels * sizeof *target->depth);
    if (!target->color || !target->depth) {
        raster_target_free(target);
        return false;
    }
    target->width = width;
    target->height = height;
    return true;
}

void raster_target_free(raster_target *target)
{
    free(target->color);
    free(target->depth);
    *target = (raster_target){0};
}

void raster_clear(raster_target *target, const uint8_t color[3])
{
    size_t pixels = (size_t)target->width * (size_t)target->height;
    for (size_t i = 0; i < pixels; ++i) {
        memcpy(target->color + 3 * i, color, 3);
        /* Beyond the far plane (1), so the first surface drawn anywhere always wins. */
        target->depth[i] = INFINITY;
    }
}

/* ---- projection ------------------------------------------------------------------------------------- */

/* A vertex after projection: pixel coordinates (x right, y down, pixel centres at .5), clip z / w for the
 * depth test, and 1 / w to undo the perspective when interpolating. */
typedef struct screen_vertex {
    float x, y, z;
    float inverse_w;
} screen_vertex;

/* False when the point is at or behind the camera plane (only a perspective matrix has such points). */
static bool project(const raster_target *target, const raster_camera *camera, const float position[3],
                    screen_vertex *out)
{
    vec4 world = {position[0], position[1], position[2], 1.0f}, clip;
    /* cglm's parameters are not const-qualified, but glm_mat4_mulv only reads the matrix. */
    glm_mat4_mulv((vec4 *)camera->view_projection, world, clip);
    if (!(clip[3] > 1e-6f))
        return false;
    float inverse_w = 1.0f / clip[3];
    out->x = (clip[0] * inverse_w + 1.0f) * 0.5f * (float)target->width;
    out->y = (1.0f - clip[1] * inverse_w) * 0.5f * (float)target->height;
    out->z = clip[2] * inverse_w;
    out->inverse_w = inverse_w;
    return true;
}

/* Twice the signed area of the triangle (a, b, p) in pixel coordinates. With y pointing down the image,
 * it is positive when a, b, p turn clockwise as the viewer sees them. */
static float edge_function(const screen_vertex *a, const screen_vertex *b, float px, float py)
{
    return (b->x - a->x) * (py - a->y) - (b->y - a->y) * (px - a->x);
}

/* ---- surface colour --------------------------------------------------------------------------------- */

static int wrap(int value, int size)
{
    int remainder = value % size;
    return remainder < 0 ? remainder + size : remainder;
}

static void texel(const raster_texture *texture, int x, int y, float out[3])
{
    const uint8_t *p = texture->pixels + 3 * ((size_t)wrap(y, texture->height) * (size_t)texture->width +
                                              (size_t)wrap(x, texture->width));
    for (int c = 0; c < 3; ++c)
        out[c] = p[c] / 255.0f;
}

/* Texture colour at (u, v), v = 0 at the top row as stored; 0..1 per channel. */
static void sample_texture(const raster_texture *texture, float u, float v, bool bilinear, float out[3])
{
    float x = u * (float)texture->width, y = v * (float)texture->height;
    if (!bilinear) {
        texel(texture, (int)floorf(x), (int)floorf(y), out);
        return;
    }
    /* Texel centres sit at .5: blend the four whose centres surround (x, y). */
    x -= 0.5f;
    y -= 0.5f;
    float x0 = floorf(x), y0 = floorf(y), fx = x - x0, fy = y - y0;
    float top_left[3], top_right[3], bottom_left[3], bottom_right[3];
    texel(texture, (int)x0, (int)y0, top_left);
    texel(texture, (int)x0 + 1, (int)y0, top_right);
    texel(texture, (int)x0, (int)y0 + 1, bottom_left);
    texel(texture, (int)x0 + 1, (int)y0 + 1, bottom_right);
    for (int c = 0; c < 3; ++c) {
        float top = top_left[c] + (top_right[c] - top_left[c]) * fx;
        float bottom = bottom_left[c] + (bottom_right[c] - bottom_left[c]) * fx;
        out[c] = top + (bottom - top) * fy;
    }
}

/* The stand-in for a missing texture: 8 x 8 squares over the uv square, so a mesh without its image still
 * shows its shape, its shading and roughly how its uvs are laid out. */
static void placeholder_checker(float u, float v, float out[3])
{
    static const float light[3] = {0.86f, 0.82f, 0.74f}, dark[3] = {0.62f, 0.58f, 0.52f};
    bool odd = ((int)floorf(u * 8.0f) + (int)floorf(v * 8.0f)) & 1;
    memcpy(out, odd ? dark : light, sizeof light);
}

/* ---- triangles -------------------------------------------------------------------------------------- */

/* What one triangle needs beyond its projected corners: the mesh's per-vertex attributes by index. */
typedef struct triangle_corners {
    screen_vertex screen[3];
    uint32_t index[3];
} triangle_corners;

/* The normal map's normal at a pixel: its texel decoded ((value - 128) / 127 each), carried from the tangent
 * frame (tangent made at right angles to the normal, bitangent w * cross(normal, tangent)) into world space.
 * A texel of 128 128 255 gives the normal back exactly. */
static void mapped_normal(const raster_mesh *mesh, const raster_shading *shading, float u, float v,
                          const vec4 tangent, vec3 normal)
{
    float texel_value[3];
    sample_texture(mesh->normal_map, u, v, shading->bilinear, texel_value);
    float x = (texel_value[0] * 255.0f - 128.0f) / 127.0f, y = (texel_value[1] * 255.0f - 128.0f) / 127.0f;
    float z = (texel_value[2] * 255.0f - 128.0f) / 127.0f;
    if (x == 0.0f && y == 0.0f)
        return; /* flat: the normal as it is, bit for bit */
    vec3 t, b;
    glm_vec3_copy((float *)tangent, t);
    glm_vec3_muladds(normal, -glm_vec3_dot(normal, t), t);
    glm_vec3_normalize(t);
    glm_vec3_cross(normal, t, b);
    glm_vec3_scale(b, tangent[3] < 0.0f ? -1.0f : 1.0f, b);
    vec3 mapped = {0.0f, 0.0f, 0.0f};
    glm_vec3_muladds(t, x, mapped);
    glm_vec3_muladds(b, y, mapped);
    glm_vec3_muladds(normal, z, mapped);
    glm_vec3_normalize(mapped);
    glm_vec3_copy(mapped, normal);
}

static void shade_pixel(const raster_mesh *mesh, const raster_shading *shading, const vec3 light,
                        const triangle_corners *corners, const float weights[3], uint8_t out[3])
{
    vec3 normal = {0.0f, 0.0f, 0.0f}, position = {0.0f, 0.0f, 0.0f};
    vec4 tangent = {0.0f, 0.0f, 0.0f, 0.0f};
    float u = 0.0f, v = 0.0f;
    for (int k = 0; k < 3; ++k) {
        uint32_t i = corners->index[k];
        glm_vec3_muladds((float *)mesh->normals[i], weights[k], normal);
        glm_vec3_muladds((float *)mesh->positions[i], weights[k], position);
        if (mesh->tangents)
            glm_vec4_muladds((float *)mesh->tangents[i], weights[k], tangent);
        if (mesh->uvs) {
            u += weights[k] * mesh->uvs[i][0];
            v += weights[k] * mesh->uvs[i][1];
        }
    }
    /* Interpolated unit normals are shorter than 1 between corners; Lambert needs unit length. */
    glm_vec3_normalize(normal);
    if (mesh->normal_map && mesh->tangents && mesh->uvs)
        mapped_normal(mesh, shading, u, v, tangent, normal);

    float albedo[3];
    if (mesh->texture)
        sample_texture(mesh->texture, u, v, shading->bilinear, albedo);
    else
        placeholder_checker(u, v, albedo);
    float diffuse = glm_vec3_dot(normal, (float *)light);
    float brightness = shading->ambient + (1.0f - shading->ambient) * (diffuse > 0.0f ? diffuse : 0.0f);
    float highlight = 0.0f;
    if (shading->highlight && diffuse > 0.0f) {
        vec3 to_eye, halfway;
        glm_vec3_sub((float *)shading->eye, position, to_eye);
        glm_vec3_normalize(to_eye);
        glm_vec3_add((float *)light, to_eye, halfway);
        glm_vec3_normalize(halfway);
        float strength = 0.25f;
        if (mesh->specular_map && mesh->uvs) {
            float shine[3];
            sample_texture(mesh->specular_map, u, v, shading->bilinear, shine);
            strength = shine[0];
        }
        float facing = glm_vec3_dot(normal, halfway);
        highlight = facing > 0.0f ? strength * powf(facing, 32.0f) : 0.0f;
    }
    for (int c = 0; c < 3; ++c) {
        float value = (albedo[c] * brightness + highlight) * 255.0f + 0.5f;
        out[c] = (uint8_t)(value > 255.0f ? 255.0f : value < 0.0f ? 0.0f : value);
    }
}

static void draw_triangle(raster_target *target, const raster_mesh *mesh, const raster_shading *shading,
                          const vec3 light, const triangle_corners *corners)
{
    const screen_vertex *a = &corners->screen[0], *b = &corners->screen[1], *c = &corners->screen[2];
    float area = edge_function(a, b, c->x, c->y);
    if (area == 0.0f || !isfinite(area))
        return;
    bool clockwise = area > 0.0f;
    bool front = shading->front_face == RASTER_FRONT_CLOCKWISE ? clockwise : !clockwise;
    if (shading->cull_back_faces && !front)
        return;

    /* Pixels whose centres lie in the triangle's bounding box, clipped to the target. */
    int x_min = (int)floorf(fminf(a->x, fminf(b->x, c->x)));
    int x_max = (int)ceilf(fmaxf(a->x, fmaxf(b->x, c->x)));
    int y_min = (int)floorf(fminf(a->y, fminf(b->y, c->y)));
    int y_max = (int)ceilf(fmaxf(a->y, fmaxf(b->y, c->y)));
    x_min = x_min < 0 ? 0 : x_min;
    y_min = y_min < 0 ? 0 : y_min;
    x_max = x_max >= target->width ? target->width - 1 : x_max;
    y_max = y_max >= target->height ? target->height - 1 : y_max;

    for (int y = y_min; y <= y_max; ++y) {
        float py = (float)y + 0.5f;
        for (int x = x_min; x <= x_max; ++x) {
            float px = (float)x + 0.5f;
            /* Barycentric weights: each corner's share is the area of the opposite sub-triangle. Dividing
             * by the signed area makes them positive inside whichever way the triangle turns. */
            float screen_weights[3] = {edge_function(b, c, px, py) / area, edge_function(c, a, px, py) / area,
                                       edge_function(a, b, px, py) / area};
            if (screen_weights[0] < 0.0f || screen_weights[1] < 0.0f || screen_weights[2] < 0.0f)
                continue;
            /* Projected depth is linear on the screen; anything outside near..far is clipped per pixel. */
            float z = screen_weights[0] * a->z + screen_weights[1] * b->z + screen_weights[2] * c->z;
            size_t pixel = (size_t)y * (size_t)target->width + (size_t)x;
            if (z < -1.0f || z > 1.0f || z > target->depth[pixel])
                continue;
            /* Attributes are linear in world space, not on the screen: weight by 1/w and renormalize
             * (a no-op for orthographic cameras, where w is 1 everywhere). */
            float weights[3], sum = 0.0f;
            for (int k = 0; k < 3; ++k) {
                weights[k] = screen_weights[k] * corners->screen[k].inverse_w;
                sum += weights[k];
            }
            for (int k = 0; k < 3; ++k)
                weights[k] /= sum;
            target->depth[pixel] = z;
            shade_pixel(mesh, shading, light, corners, weights, target->color + 3 * pixel);
        }
    }
}

bool raster_draw_mesh(raster_target *target, const raster_camera *camera, const raster_mesh *mesh,
                      const raster_shading *shading)
{
    if (!mesh->positions || !mesh->normals || !mesh->triangles || mesh->vertex_count < 0 ||
        mesh->triangle_count < 0)
        return false;
    const raster_texture *images[3] = {mesh->texture, mesh->normal_map, mesh->specular_map};
    for (int i = 0; i < 3; ++i)
        if (images[i] && (!images[i]->pixels || images[i]->width <= 0 || images[i]->height <= 0))
            return false;
    vec3 light;
    glm_vec3_copy((float *)shading->light_direction, light);
    glm_vec3_normalize(light);

    for (int t = 0; t < mesh->triangle_count; ++t) {
        triangle_corners corners;
        bool visible = true;
        for (int k = 0; k < 3 && visible; ++k) {
            uint32_t index = mesh->triangles[t][k];
            corners.index[k] = index;
            visible = index < (uint32_t)mesh->vertex_count &&
                      project(target, camera, mesh->positions[index], &corners.screen[k]);
        }
        if (visible)
            draw_triangle(target, mesh, shading, light, &corners);
    }
    return true;
}

/* ---- lines, grid, rectangles ------------------------------------------------------------------------ */

void raster_draw_line(raster_target *target, const raster_camera *camera, const vec3 from, const vec3 to,
                      const uint8_t color[3], bool depth_test)
{
    screen_vertex a, b;
    if (!project(target, camera, from, &a) || !project(target, camera, to, &b))
        return;
    /* One step per pixel along the longer axis, so the line has no gaps. */
    float dx = b.x - a.x, dy = b.y - a.y;
    float length = fmaxf(fabsf(dx), fabsf(dy));
    if (!isfinite(length) || length > 65536.0f)
        return;
    int steps = (int)ceilf(length);
    for (int i = 0; i <= steps; ++i) {
        float t = steps ? (float)i / (float)steps : 0.0f;
        int x = (int)floorf(a.x + dx * t), y = (int)floorf(a.y + dy * t);
        if (x < 0 || y < 0 || x >= target->width || y >= target->height)
            continue;
        size_t pixel = (size_t)y * (size_t)target->width + (size_t)x;
        float z = a.z + (b.z - a.z) * t;
        /* A small allowance toward the viewer so a line lying on a surface is not hidden by it. */
        if (depth_test && (z < -1.0f || z > 1.0f || z > target->depth[pixel] + 1e-3f))
            continue;
        memcpy(target->color + 3 * pixel, color, 3);
    }
}

void raster_draw_point(raster_target *target, const raster_camera *camera, const vec3 position, int size,
                       const uint8_t color[3])
{
    screen_vertex point;
    if (!project(target, camera, position, &point) || !(fabsf(point.x) < 65536.0f && fabsf(point.y) < 65536.0f))
        return;
    int x = (int)floorf(point.x) - size / 2, y = (int)floorf(point.y) - size / 2;
    raster_fill_rectangle(target, x, y, size, size, color);
}

void raster_draw_ground_grid(raster_target *target, const raster_camera *camera, const vec3 center,
                             float half_size, float spacing, const uint8_t color[3])
{
    if (!(spacing > 0.0f) || !(half_size > 0.0f))
        return;
    int lines_each_side = (int)fminf(floorf(half_size / spacing), 1000.0f);
    for (int k = -lines_each_side; k <= lines_each_side; ++k) {
        float offset = (float)k * spacing;
        vec3 along_x_from = {center[0] - half_size, center[1] + offset, center[2]};
        vec3 along_x_to = {center[0] + half_size, center[1] + offset, center[2]};
        vec3 along_y_from = {center[0] + offset, center[1] - half_size, center[2]};
        vec3 along_y_to = {center[0] + offset, center[1] + half_size, center[2]};
        raster_draw_line(target, camera, along_x_from, along_x_to, color, true);
        raster_draw_line(target, camera, along_y_from, along_y_to, color, true);
    }
}

void raster_fill_rectangle(raster_target *target, int x, int y, int width, int height, const uint8_t color[3])
{
    int x_end = x + width > target->width ? target->width : x + width;
    int y_end = y + height > target->height ? target->height : y + height;
    for (int row = y < 0 ? 0 : y; row < y_end; ++row)
        for (int column = x < 0 ? 0 : x; column < x_end; ++column)
            memcpy(target->color + 3 * ((size_t)row * (size_t)target->width + (size_t)column), color, 3);
}

void raster_copy(raster_target *target, int x, int y, const raster_target *source)
{
    /* The columns of source that land inside target, the same for every row. */
    int first = x < 0 ? -x : 0;
    int last = x + source->width > target->width ? target->width - x : source->width;
    if (first >= last)
        return;
    for (int row = 0; row < source->height; ++row) {
        int target_row = y + row;
        if (target_row < 0 || target_row >= target->height)
            continue;
        memcpy(target->color + 3 * ((size_t)target_row * (size_t)target->width + (size_t)(x + first)),
               source->color + 3 * ((size_t)row * (size_t)source->width + (size_t)first),
               3 * (size_t)(last - first));
    }
}

/* ---- text ------------------------------------------------------------------------------------------- */

/* A hand-made 5x7 font: seven rows per glyph, top first, the five low bits of each row are its pixels
 * with the leftmost in bit 4. */
typedef struct glyph {
    char character;
    uint8_t rows[7];
} glyph;

static const glyph font[] = {
    {' ', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}}, {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}},
    {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}}, {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}},
    {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}}, {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}},
    {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}}, {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}},
    {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}}, {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}},
    {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}}, {'A', {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}},
    {'B', {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E}}, {'C', {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E}},
    {'D', {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C}}, {'E', {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F}},
    {'F', {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10}}, {'G', {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F}},
    {'H', {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}}, {'I', {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'J', {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C}}, {'K', {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}},
    {'L', {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}}, {'M', {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11}},
    {'N', {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11}}, {'O', {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}},
    {'P', {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10}}, {'Q', {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D}},
    {'R', {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}}, {'S', {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E}},
    {'T', {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}}, {'U', {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}},
    {'V', {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04}}, {'W', {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A}},
    {'X', {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11}}, {'Y', {0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04}},
    {'Z', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F}}, {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}},
    {',', {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08}}, {':', {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00}},
    {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}}, {'_', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F}},
    {'/', {0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x10}}, {'(', {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}},
    {')', {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}}, {'=', {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}},
    {'+', {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}}, {'%', {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03}},
    {'#', {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A}},
};

/* Drawn for characters the font lacks, so a missing glyph is visible rather than silently skipped. */
static const glyph unknown_glyph = {'?', {0x1F, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1F}};

static const glyph *glyph_for(char character)
{
    if (character >= 'a' && character <= 'z')
        character = (char)(character - 'a' + 'A');
    for (size_t i = 0; i < sizeof font / sizeof font[0]; ++i)
        if (font[i].character == character)
            return &font[i];
    return &unknown_glyph;
}

int raster_draw_text(raster_target *target, int x, int y, int scale, const char *text, const uint8_t color[3])
{
    scale = scale < 1 ? 1 : scale;
    for (; *text; ++text, x += 6 * scale) {
        const glyph *g = glyph_for(*text);
        for (int row = 0; row < 7; ++row)
            for (int column = 0; column < 5; ++column)
                if (g->rows[row] & (0x10 >> column))
                    raster_fill_rectangle(target, x + column * scale, y + row * scale, scale, scale, color);
    }
    return x;
}
