/* raster, png, tga and md5tool render/sheet: known shapes rasterized and their pixels checked; PNG files
 * decoded here with zlib alone (chunk by chunk, CRCs checked) so the writer cannot hide behind a reader
 * that shares its mistakes; TGA files written here byte by byte in both row orders and run-length
 * encoded; and the tool run on whole models, its pictures read back: the generated mannequin, and
 * (`--boneman`, `--assimp`: test_data.h) the third-party boneman and Maya cube. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include "check.h"
#include "build/loader.h"
#include "image/image.h"
#include "md5/md5.h"
#include "png.h"
#include "raster.h"
#include "test_data.h"
#include "tga.h"

#define MANNEQUIN MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh"
#define CLIPS MARIONETTE_SOURCE_DIR "/assets/clips/"
#define OTHER_SKELETON MARIONETTE_TEST_DATA "/quirks/base.md5anim" /* two joints */

static const uint8_t black[3] = {0, 0, 0};
static const uint8_t white[3] = {255, 255, 255};

/* ---- helpers ---------------------------------------------------------------------------------------- */

static const uint8_t *pixel_at(const raster_target *target, int x, int y)
{
    return target->color + 3 * ((size_t)y * (size_t)target->width + (size_t)x);
}

static bool is_color(const uint8_t *pixel, const uint8_t color[3])
{
    return memcmp(pixel, color, 3) == 0;
}

/* An orthographic camera looking down -Z at the square -1..1 x -1..1, depth -1..1 in view: the clip
 * space is the world, so a triangle's pixels can be predicted by hand. */
static raster_camera identity_camera(void)
{
    raster_camera camera;
    glm_mat4_identity(camera.view_projection);
    return camera;
}

/* Lit from the viewer (+Z), no ambient, culling as asked, and the placeholder checker at uv (0, 0). */
static raster_shading flat_shading(bool cull, raster_front_face front)
{
    return (raster_shading){.light_direction = {0.0f, 0.0f, 1.0f}, .ambient = 0.0f, .cull_back_faces = cull,
                            .front_face = front};
}

typedef struct triangle_mesh {
    float positions[3][3];
    float normals[3][3];
    float uvs[3][2];
    uint32_t triangle[1][3];
    raster_mesh mesh;
} triangle_mesh;

/* One triangle at depth z with all normals n; corners in the order given (their winding is what the
 * caller chooses). */
static void make_triangle(triangle_mesh *t, const float corners[3][2], float z, const float normal[3])
{
    for (int k = 0; k < 3; ++k) {
        t->positions[k][0] = corners[k][0];
        t->positions[k][1] = corners[k][1];
        t->positions[k][2] = z;
        memcpy(t->normals[k], normal, sizeof t->normals[k]);
        t->uvs[k][0] = t->uvs[k][1] = 0.01f;
        t->triangle[0][k] = (uint32_t)k;
    }
    t->mesh = (raster_mesh){.vertex_count = 3, .triangle_count = 1, .positions = (const float(*)[3])t->positions,
                            .normals = (const float(*)[3])t->normals, .uvs = (const float(*)[2])t->uvs,
                            .triangles = (const uint32_t(*)[3])t->triangle};
}

/* Clockwise as seen from +Z with y up: (-0.5, -0.5) -> (0, 0.5) -> (0.5, -0.5). */
static const float clockwise_corners[3][2] = {{-0.5f, -0.5f}, {0.0f, 0.5f}, {0.5f, -0.5f}};
static const float counter_clockwise_corners[3][2] = {{-0.5f, -0.5f}, {0.5f, -0.5f}, {0.0f, 0.5f}};
static const float facing_viewer[3] = {0.0f, 0.0f, 1.0f};

/* ---- rasterizer ------------------------------------------------------------------------------------- */

static void test_triangle_covers_inside_only(void)
{
    raster_target target;
    CHECK(raster_target_create(&target, 64, 64));
    raster_clear(&target, black);
    raster_camera camera = identity_camera();
    triangle_mesh t;
    make_triangle(&t, clockwise_corners, 0.0f, facing_viewer);
    raster_shading shading = flat_shading(false, RASTER_FRONT_CLOCKWISE);
    CHECK(raster_draw_mesh(&target, &camera, &t.mesh, &shading));
    /* World (0, 0) is pixel (32, 32); the triangle spans x 16..48, y (image) 16..48, apex at the top. */
    CHECK(!is_color(pixel_at(&target, 32, 32), black));
    CHECK(!is_color(pixel_at(&target, 32, 44), black));
    CHECK(is_color(pixel_at(&target, 2, 2), black));
    CHECK(is_color(pixel_at(&target, 18, 18), black)); /* left of the upper half: outside the slanted edge */
    CHECK(is_color(pixel_at(&target, 46, 18), black));
    CHECK(is_color(pixel_at(&target, 32, 52), black)); /* below the base */
    raster_target_free(&target);
}

static void test_depth_keeps_nearer(void)
{
    raster_target target;
    CHECK(raster_target_create(&target, 32, 32));
    raster_camera camera = identity_camera();
    triangle_mesh near_triangle, far_triangle;
    /* Same shape, different light so the colours differ: the near one is lit, the far one is not. */
    const float facing_away_from_light[3] = {1.0f, 0.0f, 0.0f};
    make_triangle(&near_triangle, clockwise_corners, -0.5f, facing_viewer);
    make_triangle(&far_triangle, clockwise_corners, 0.5f, facing_away_from_light);
    raster_shading shading = flat_shading(false, RASTER_FRONT_CLOCKWISE);

    /* Both orders: the result must not depend on which is drawn first. */
    for (int order = 0; order < 2; ++order) {
        raster_clear(&target, black);
        CHECK(raster_draw_mesh(&target, &camera, order ? &near_triangle.mesh : &far_triangle.mesh, &shading));
        CHECK(raster_draw_mesh(&target, &camera, order ? &far_triangle.mesh : &near_triangle.mesh, &shading));
        const uint8_t *centre = pixel_at(&target, 16, 16);
        CHECK(centre[0] > 100);                  /* the lit, nearer triangle */
        CHECK_NEAR(target.depth[16 * 32 + 16], -0.5, 1e-5);
    }
    raster_target_free(&target);
}

static void test_back_face_culling_follows_winding(void)
{
    raster_target target;
    CHECK(raster_target_create(&target, 32, 32));
    raster_camera camera = identity_camera();
    triangle_mesh clockwise, counter_clockwise;
    make_triangle(&clockwise, clockwise_corners, 0.0f, facing_viewer);
    make_triangle(&counter_clockwise, counter_clockwise_corners, 0.0f, facing_viewer);
    struct {
        const raster_mesh *mesh;
        raster_front_face front;
        bool cull;
        bool drawn;
    } cases[] = {
        {&clockwise.mesh, RASTER_FRONT_CLOCKWISE, true, true},     /* MD5: clockwise is the front */
        {&counter_clockwise.mesh, RASTER_FRONT_CLOCKWISE, true, false},
        {&clockwise.mesh, RASTER_FRONT_COUNTER_CLOCKWISE, true, false}, /* OpenGL's default */
        {&counter_clockwise.mesh, RASTER_FRONT_COUNTER_CLOCKWISE, true, true},
        {&counter_clockwise.mesh, RASTER_FRONT_CLOCKWISE, false, true}, /* no culling: both sides */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        raster_clear(&target, black);
        raster_shading shading = flat_shading(cases[i].cull, cases[i].front);
        CHECK(raster_draw_mesh(&target, &camera, cases[i].mesh, &shading));
        CHECK(is_color(pixel_at(&target, 16, 16), black) == !cases[i].drawn);
    }
    raster_target_free(&target);
}

/* The MD5 loader's outward normal of (a, b, c) is (c - a) x (b - a): for the clockwise triangle above it
 * must point at the viewer, or culling and lighting would disagree about which side is the front. */
static void test_md5_normal_of_clockwise_triangle_faces_viewer(void)
{
    vec3 a, b, c, ca, ba, normal;
    for (int k = 0; k < 2; ++k) {
        a[k] = clockwise_corners[0][k];
        b[k] = clockwise_corners[1][k];
        c[k] = clockwise_corners[2][k];
    }
    a[2] = b[2] = c[2] = 0.0f;
    glm_vec3_sub(c, a, ca);
    glm_vec3_sub(b, a, ba);
    glm_vec3_cross(ca, ba, normal);
    CHECK(normal[2] > 0.0f);
}

static void test_lambert_brighter_facing_light(void)
{
    raster_target target;
    CHECK(raster_target_create(&target, 16, 16));
    raster_camera camera = identity_camera();
    float brightness[2];
    const float tilted_60_degrees[3] = {0.8660254f, 0.0f, 0.5f};
    for (int i = 0; i < 2; ++i) {
        raster_clear(&target, black);
        triangle_mesh t;
        make_triangle(&t, clockwise_corners, 0.0f, i == 0 ? facing_viewer : tilted_60_degrees);
        raster_shading shading = flat_shading(true, RASTER_FRONT_CLOCKWISE);
        shading.ambient = 0.2f;
        CHECK(raster_draw_mesh(&target, &camera, &t.mesh, &shading));
        brightness[i] = pixel_at(&target, 8, 8)[0];
    }
    CHECK(brightness[0] > brightness[1]);
    /* ambient + (1 - ambient) * cos: 1.0 facing the light, 0.2 + 0.8 * 0.5 = 0.6 at 60 degrees. */
    CHECK_NEAR(brightness[1] / brightness[0], 0.6, 0.02);
    raster_target_free(&target);
}

/* A perspective camera works through the same matrix: a triangle in front of the eye is drawn, one behind
 * it (w < 0) is skipped rather than drawn mirrored. */
static void test_perspective_camera(void)
{
    raster_target target;
    CHECK(raster_target_create(&target, 32, 32));
    raster_camera camera;
    mat4 view, projection;
    glm_lookat((vec3){0.0f, 0.0f, 3.0f}, (vec3){0.0f, 0.0f, 0.0f}, (vec3){0.0f, 1.0f, 0.0f}, view);
    glm_perspective(glm_rad(60.0f), 1.0f, 0.1f, 100.0f, projection);
    glm_mat4_mul(projection, view, camera.view_projection);
    for (int behind = 0; behind < 2; ++behind) {
        raster_clear(&target, black);
        triangle_mesh t;
        make_triangle(&t, clockwise_corners, behind ? 5.0f : 0.0f, facing_viewer);
        raster_shading shading = flat_shading(false, RASTER_FRONT_CLOCKWISE);
        CHECK(raster_draw_mesh(&target, &camera, &t.mesh, &shading));
        CHECK(is_color(pixel_at(&target, 16, 16), black) == (bool)behind);
    }
    raster_target_free(&target);
}

/* MD5 texture coordinates run downward: t = 0 is the top row of the image as stored. A texture whose top
 * half is red and bottom half blue must show red where t is small. */
static void test_texture_t_zero_is_top_row(void)
{
    uint8_t pixels[4 * 4 * 3];
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
            uint8_t *p = pixels + 3 * (y * 4 + x);
            p[0] = y < 2 ? 255 : 0;
            p[1] = 0;
            p[2] = y < 2 ? 0 : 255;
        }
    raster_texture texture = {.width = 4, .height = 4, .pixels = pixels};
    raster_target target;
    CHECK(raster_target_create(&target, 32, 32));
    raster_camera camera = identity_camera();
    for (int half = 0; half < 2; ++half) {
        raster_clear(&target, black);
        triangle_mesh t;
        make_triangle(&t, clockwise_corners, 0.0f, facing_viewer);
        for (int k = 0; k < 3; ++k)
            t.uvs[k][1] = half == 0 ? 0.2f : 0.8f;
        t.mesh.texture = &texture;
        raster_shading shading = flat_shading(true, RASTER_FRONT_CLOCKWISE);
        CHECK(raster_draw_mesh(&target, &camera, &t.mesh, &shading));
        const uint8_t *centre = pixel_at(&target, 16, 16);
        CHECK(half == 0 ? centre[0] == 255 && centre[2] == 0 : centre[0] == 0 && centre[2] == 255);
    }
    raster_target_free(&target);
}

/* Normal mapping in the rasterizer: a texel of 128 128 255 is the interpolated normal itself (the picture
 * without a map, bit for bit); one leaning along the tangent (red) turns the surface toward a light on the
 * tangent's side and away from one on the other; green leans along the bitangent, w * cross(normal,
 * tangent), so a handedness of -1 turns it the other way. A specular map sets the highlight's strength. */
static uint8_t lit_albedo = 200;

static uint8_t lit_centre(const float light[3], const uint8_t texel_rgb[3], float handedness, bool highlight,
                          const uint8_t *shine)
{
    uint8_t normal_pixels[2 * 2 * 3], shine_pixels[2 * 2 * 3];
    for (int i = 0; i < 4; ++i) {
        memcpy(normal_pixels + 3 * i, texel_rgb ? texel_rgb : (const uint8_t[3]){128, 128, 255}, 3);
        memset(shine_pixels + 3 * i, shine ? *shine : 0, 3);
    }
    raster_texture normal_map = {.width = 2, .height = 2, .pixels = normal_pixels};
    raster_texture specular_map = {.width = 2, .height = 2, .pixels = shine_pixels};
    uint8_t white_pixels[2 * 2 * 3];
    memset(white_pixels, lit_albedo, sizeof white_pixels);
    raster_texture albedo = {.width = 2, .height = 2, .pixels = white_pixels};
    raster_target target;
    CHECK(raster_target_create(&target, 32, 32));
    raster_clear(&target, black);
    raster_camera camera = identity_camera();
    triangle_mesh t;
    make_triangle(&t, clockwise_corners, 0.0f, facing_viewer);
    float tangents[3][4];
    for (int k = 0; k < 3; ++k) {
        tangents[k][0] = 1.0f, tangents[k][1] = 0.0f, tangents[k][2] = 0.0f;
        tangents[k][3] = handedness;
    }
    t.mesh.texture = &albedo;
    t.mesh.tangents = (const float(*)[4])tangents;
    t.mesh.normal_map = texel_rgb ? &normal_map : NULL;
    t.mesh.specular_map = shine ? &specular_map : NULL;
    raster_shading shading = flat_shading(true, RASTER_FRONT_CLOCKWISE);
    memcpy(shading.light_direction, light, sizeof shading.light_direction);
    shading.highlight = highlight;
    shading.eye[2] = 10.0f;
    CHECK(raster_draw_mesh(&target, &camera, &t.mesh, &shading));
    uint8_t value = pixel_at(&target, 16, 16)[0];
    raster_target_free(&target);
    return value;
}

static void test_normal_and_specular_maps(void)
{
    const float toward_x[3] = {0.6f, 0.0f, 0.8f}, toward_y[3] = {0.0f, 0.6f, 0.8f};
    const uint8_t flat[3] = {128, 128, 255};
    const uint8_t lean_x[3] = {128 + 64, 128, 128 + 110}, lean_minus_x[3] = {128 - 64, 128, 128 + 110};
    const uint8_t lean_y[3] = {128, 128 + 64, 128 + 110};
    uint8_t plain = lit_centre(toward_x, NULL, 1.0f, false, NULL);
    CHECK(lit_centre(toward_x, flat, 1.0f, false, NULL) == plain);
    CHECK(lit_centre(toward_x, flat, 1.0f, true, NULL) == lit_centre(toward_x, NULL, 1.0f, true, NULL));
    uint8_t leaning_to = lit_centre(toward_x, lean_x, 1.0f, false, NULL);
    uint8_t leaning_away = lit_centre(toward_x, lean_minus_x, 1.0f, false, NULL);
    printf("  normal map: flat %d, leaning to the light %d, away %d\n", plain, leaning_to, leaning_away);
    CHECK(leaning_to > plain + 20 && leaning_away + 60 < plain);
    /* Green leans along the bitangent: +y for handedness +1 (a light there lights it more), -y for -1. */
    uint8_t up = lit_centre(toward_y, lean_y, 1.0f, false, NULL), down = lit_centre(toward_y, lean_y, -1.0f, false, NULL);
    CHECK(up > lit_centre(toward_y, NULL, 1.0f, false, NULL) + 20 && down + 60 < up);
    /* The highlight: seen from the front with the light there too, a specular map of 255 shines more than the
     * default (0.25), one of 0 not at all (a darker surface, so that nothing saturates). */
    const float front[3] = {0.0f, 0.0f, 1.0f};
    lit_albedo = 100;
    uint8_t dull = 0, bright = 255;
    uint8_t without = lit_centre(front, NULL, 1.0f, false, NULL), shiny = lit_centre(front, NULL, 1.0f, true, &bright);
    CHECK(lit_centre(front, NULL, 1.0f, true, &dull) == without);
    CHECK(lit_centre(front, NULL, 1.0f, true, NULL) > without && shiny > lit_centre(front, NULL, 1.0f, true, NULL));
    lit_albedo = 200;
}

static void test_lines_text_and_copy(void)
{
    raster_target target, small;
    CHECK(raster_target_create(&target, 32, 32));
    CHECK(raster_target_create(&small, 4, 4));
    raster_clear(&target, black);
    raster_camera camera = identity_camera();
    /* A horizontal line through the middle, drawn without a depth test. */
    raster_draw_line(&target, &camera, (vec3){-0.9f, 0.0f, 0.0f}, (vec3){0.9f, 0.0f, 0.0f}, white, false);
    CHECK(is_color(pixel_at(&target, 16, 16), white));
    CHECK(is_color(pixel_at(&target, 16, 10), black));
    /* "1" in the 5x7 font: its stem is column 2, rows 0-6, so (x + 2, y + 3) is lit and (x, y + 3) not. */
    raster_clear(&target, black);
    int end = raster_draw_text(&target, 4, 4, 1, "1", white);
    CHECK(end == 10);
    CHECK(is_color(pixel_at(&target, 6, 7), white));
    CHECK(is_color(pixel_at(&target, 4, 7), black));
    /* Copying clips at the target's edges instead of writing past them. */
    raster_clear(&small, white);
    raster_clear(&target, black);
    raster_copy(&target, 30, -2, &small);
    CHECK(is_color(pixel_at(&target, 31, 1), white));
    CHECK(is_color(pixel_at(&target, 29, 1), black));
    CHECK(is_color(pixel_at(&target, 31, 2), black));
    raster_target_free(&small);
    raster_target_free(&target);
}

/* The real cube from Maya: with MD5's clockwise front faces culled correctly, the surface seen at the
 * centre is the near side of the cube, the same one drawn with no culling at all; with the winding taken
 * the wrong way round only the inside of the far side would be left. */
static void test_culling_keeps_outside_of_real_cube(void)
{
    model *cube = NULL;
    diag err = {0};
    CHECK(loader_load_md5_model(ASSIMP_CUBE, &cube, &err, NULL));
    if (!cube)
        return;
    const skin_mesh *mesh = &cube->meshes[0];
    raster_mesh drawn = {.vertex_count = mesh->vertex_count, .triangle_count = mesh->triangle_count,
                         .positions = (const float(*)[3])mesh->positions, .normals = (const float(*)[3])mesh->normals,
                         .uvs = (const float(*)[2])mesh->uvs, .triangles = (const uint32_t(*)[3])mesh->triangles};
    /* Look from +X, a little above and to the side, at the cube (about 64 units across, centred near 0). */
    raster_camera camera;
    mat4 view, projection;
    glm_lookat((vec3){200.0f, -60.0f, 80.0f}, (vec3){0.0f, 0.0f, 0.0f}, (vec3){0.0f, 0.0f, 1.0f}, view);
    glm_ortho(-80.0f, 80.0f, -80.0f, 80.0f, 1.0f, 500.0f, projection);
    glm_mat4_mul(projection, view, camera.view_projection);
    raster_target target;
    CHECK(raster_target_create(&target, 64, 64));
    float centre_depth[3];
    const struct {
        bool cull;
        raster_front_face front;
    } modes[3] = {{false, RASTER_FRONT_CLOCKWISE}, {true, RASTER_FRONT_CLOCKWISE}, {true, RASTER_FRONT_COUNTER_CLOCKWISE}};
    for (int i = 0; i < 3; ++i) {
        raster_clear(&target, black);
        raster_shading shading = flat_shading(modes[i].cull, modes[i].front);
        CHECK(raster_draw_mesh(&target, &camera, &drawn, &shading));
        centre_depth[i] = target.depth[32 * 64 + 32];
    }
    CHECK(centre_depth[0] < 1.0f);
    CHECK(centre_depth[1] == centre_depth[0]);
    CHECK(centre_depth[2] > centre_depth[0] + 0.05f);
    raster_target_free(&target);
    model_free(cube);
}

/* ---- PNG, decoded by hand ---------------------------------------------------------------------------- */

static uint32_t big_endian_32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Decode a PNG as png.c writes it (8-bit RGB, filter 0, no interlace): check the signature, every
 * chunk's CRC and the IHDR fields, inflate the IDAT data and return the pixels (new buffer). */
static uint8_t *decode_our_png(const uint8_t *file, size_t size, int *width, int *height)
{
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (size < 8 || memcmp(file, signature, 8) != 0)
        return NULL;
    uint8_t *compressed = NULL, *pixels = NULL;
    size_t compressed_size = 0;
    bool header_ok = false, ended = false;
    for (size_t at = 8; at + 12 <= size && !ended;) {
        uint32_t length = big_endian_32(file + at);
        if (length > size - at - 12)
            break;
        const uint8_t *type = file + at + 4, *data = file + at + 8;
        uLong crc = crc32(crc32(0L, Z_NULL, 0), type, 4 + length);
        CHECK(crc == big_endian_32(data + length));
        if (memcmp(type, "IHDR", 4) == 0 && length == 13) {
            *width = (int)big_endian_32(data);
            *height = (int)big_endian_32(data + 4);
            header_ok = data[8] == 8 && data[9] == 2 && data[10] == 0 && data[11] == 0 && data[12] == 0;
        } else if (memcmp(type, "IDAT", 4) == 0) {
            uint8_t *grown = realloc(compressed, compressed_size + length + 1);
            if (!grown)
                break;
            compressed = grown;
            memcpy(compressed + compressed_size, data, length);
            compressed_size += length;
        } else if (memcmp(type, "IEND", 4) == 0) {
            ended = at + 12 + length == size;
        }
        at += 12 + (size_t)length;
    }
    CHECK(header_ok);
    CHECK(ended);
    if (header_ok && ended && compressed && *width > 0 && *height > 0) {
        size_t row = 1 + 3 * (size_t)*width;
        uLongf raw_size = (uLongf)(row * (size_t)*height);
        uint8_t *raw = malloc(raw_size);
        pixels = malloc(3 * (size_t)*width * (size_t)*height);
        if (raw && pixels && uncompress(raw, &raw_size, compressed, (uLong)compressed_size) == Z_OK &&
            raw_size == row * (size_t)*height) {
            for (int y = 0; y < *height; ++y) {
                CHECK(raw[(size_t)y * row] == 0);
                memcpy(pixels + (size_t)y * 3 * (size_t)*width, raw + (size_t)y * row + 1, row - 1);
            }
        } else {
            free(pixels);
            pixels = NULL;
        }
        free(raw);
    }
    free(compressed);
    return pixels;
}

static uint8_t *read_whole_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    uint8_t *data = NULL;
    *size = 0;
    if (fseek(file, 0, SEEK_END) == 0) {
        long length = ftell(file);
        if (length >= 0 && fseek(file, 0, SEEK_SET) == 0 && (data = malloc((size_t)length + 1)))
            *size = fread(data, 1, (size_t)length, file);
    }
    fclose(file);
    return data;
}

/* Reads a PNG file written by md5tool; NULL if it is missing or not what png.c writes. */
static uint8_t *load_our_png(const char *path, int *width, int *height)
{
    size_t size = 0;
    uint8_t *file = read_whole_file(path, &size);
    uint8_t *pixels = file ? decode_our_png(file, size, width, height) : NULL;
    free(file);
    return pixels;
}

static void test_png_round_trip(void)
{
    enum { WIDTH = 37, HEIGHT = 11 }; /* odd sizes: no row is a multiple of anything convenient */
    uint8_t pixels[WIDTH * HEIGHT * 3];
    for (int i = 0; i < WIDTH * HEIGHT * 3; ++i)
        pixels[i] = (uint8_t)(i * 7 + i / 13);
    uint8_t *file = NULL;
    size_t size = 0;
    diag err = {0};
    CHECK(png_encode_rgb(pixels, WIDTH, HEIGHT, "memory", &file, &size, &err));
    int width = 0, height = 0;
    uint8_t *decoded = file ? decode_our_png(file, size, &width, &height) : NULL;
    CHECK(decoded != NULL);
    CHECK(width == WIDTH && height == HEIGHT);
    CHECK(decoded && memcmp(decoded, pixels, sizeof pixels) == 0);
    free(decoded);
    free(file);

    /* A file that cannot be written is a message naming it, not a crash. */
    CHECK(!png_write_rgb("/nonexistent-folder/x.png", pixels, WIDTH, HEIGHT, &err));
    CHECK_STR_CONTAINS(err.file, "/nonexistent-folder/x.png");
    CHECK(!png_encode_rgb(pixels, 0, HEIGHT, "zero.png", &file, &size, &err));
}

/* ---- TGA, written by hand ----------------------------------------------------------------------------- */

/* A 3 x 2 image: row 0 (top) red, green, blue; row 1 (bottom) white, black, grey. */
static const uint8_t tga_expected[2][3][3] = {
    {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}},
    {{255, 255, 255}, {0, 0, 0}, {128, 128, 128}},
};

/* Header for a 3 x 2 true-colour image; the pixel data follows in B, G, R[, A] order. */
static size_t tga_header(uint8_t *out, int image_type, int bits, bool top_down)
{
    memset(out, 0, 18);
    out[2] = (uint8_t)image_type;
    out[12] = 3;
    out[14] = 2;
    out[16] = (uint8_t)bits;
    out[17] = (uint8_t)((top_down ? 0x20 : 0) | (bits == 32 ? 8 : 0));
    return 18;
}

static size_t tga_put_pixel(uint8_t *out, const uint8_t rgb[3], int bits)
{
    out[0] = rgb[2];
    out[1] = rgb[1];
    out[2] = rgb[0];
    if (bits == 32)
        out[3] = 255;
    return (size_t)bits / 8;
}

static bool tga_matches(const tga_image *image)
{
    if (image->width != 3 || image->height != 2)
        return false;
    return memcmp(image->pixels, tga_expected, sizeof tga_expected) == 0;
}

static void test_tga_row_orders_and_depths(void)
{
    for (int bits = 24; bits <= 32; bits += 8)
        for (int top_down = 0; top_down < 2; ++top_down) {
            uint8_t file[18 + 6 * 4];
            size_t at = tga_header(file, 2, bits, top_down);
            /* Bottom-up files store the bottom row first. */
            for (int file_row = 0; file_row < 2; ++file_row)
                for (int x = 0; x < 3; ++x)
                    at += tga_put_pixel(file + at, tga_expected[top_down ? file_row : 1 - file_row][x], bits);
            tga_image image;
            diag err = {0};
            CHECK(tga_decode(file, at, "test.tga", &image, &err));
            CHECK(tga_matches(&image));
            tga_image_free(&image);
            /* One byte short: refused with the name, not read past the end. */
            CHECK(!tga_decode(file, at - 1, "short.tga", &image, &err));
            CHECK_STR_CONTAINS(err.message, "ends early");
            CHECK_STR_CONTAINS(err.file, "short.tga");
        }
}

static void test_tga_run_length(void)
{
    /* Top-down, so the file starts with the top row: three reds as one run packet, then white, black,
     * grey as one packet of literal pixels. */
    uint8_t file[64];
    size_t at = tga_header(file, 10, 24, true);
    file[at++] = 0x80 | 2; /* run of 3 */
    at += tga_put_pixel(file + at, tga_expected[0][0], 24);
    file[at++] = 2; /* 3 literal pixels */
    for (int x = 0; x < 3; ++x)
        at += tga_put_pixel(file + at, tga_expected[1][x], 24);
    tga_image image;
    diag err = {0};
    CHECK(tga_decode(file, at, "rle.tga", &image, &err));
    CHECK(image.width == 3 && image.height == 2);
    for (int x = 0; image.pixels && x < 3; ++x) {
        CHECK(memcmp(image.pixels + 3 * x, tga_expected[0][0], 3) == 0);
        CHECK(memcmp(image.pixels + 9 + 3 * x, tga_expected[1][x], 3) == 0);
    }
    tga_image_free(&image);

    /* A run that crosses from one row into the next (many writers do this): 6 reds in one packet. */
    at = tga_header(file, 10, 32, false);
    file[at++] = 0x80 | 5;
    at += tga_put_pixel(file + at, tga_expected[0][0], 32);
    CHECK(tga_decode(file, at, "rle_across_rows.tga", &image, &err));
    for (int i = 0; image.pixels && i < 6; ++i)
        CHECK(memcmp(image.pixels + 3 * i, tga_expected[0][0], 3) == 0);
    tga_image_free(&image);

    /* Colour-mapped images are refused by name. */
    at = tga_header(file, 1, 24, false);
    CHECK(!tga_decode(file, at, "mapped.tga", &image, &err));
    CHECK_STR_CONTAINS(err.message, "type 1");
}

/* md5tool's TGA reader keeps the side limit the demo's image cache documents (image.h), not one of its own:
 * IMAGE_MAX_SIDE pixels decode, one more is refused before any pixel is read. */
static void test_tga_side_limit(void)
{
    enum { WIDE = IMAGE_MAX_SIDE };
    static uint8_t file[18 + 3 * (WIDE + 1)];
    tga_image image = {0};
    diag err;
    for (int width = WIDE; width <= WIDE + 1; ++width) {
        memset(file, 0, sizeof file);
        file[2] = 2;
        file[12] = (uint8_t)(width & 0xff), file[13] = (uint8_t)(width >> 8);
        file[14] = 1;
        file[16] = 24;
        file[17] = 0x20;
        bool decoded = tga_decode(file, 18 + 3 * (size_t)width, "wide.tga", &image, &err);
        CHECK(decoded == (width == WIDE));
        if (!decoded)
            CHECK_STR_CONTAINS(err.message, "TGA size 8193 x 1 is empty or beyond the 8192 x 8192 limit");
        tga_image_free(&image);
    }
}

/* ---- md5tool render and sheet ----------------------------------------------------------------------- */

static int run_tool(const char *arguments)
{
    char command[4096];
    snprintf(command, sizeof command, "'%s' %s >/dev/null 2>&1", MARIONETTE_MD5TOOL, arguments);
    int status = system(command);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* md5tool's background colour, which the test must not find where the model should be. */
static const uint8_t background[3] = {46, 52, 64};

static void check_framed_picture(const char *path, int expected_width, int expected_height)
{
    int width = 0, height = 0;
    uint8_t *pixels = load_our_png(path, &width, &height);
    CHECK(pixels != NULL);
    CHECK(width == expected_width && height == expected_height);
    if (pixels && width == expected_width && height == expected_height) {
        const uint8_t *centre = pixels + 3 * ((size_t)(height / 2) * (size_t)width + (size_t)(width / 2));
        CHECK(!is_color(centre, background));
        /* Framed, not cropped or lost in a corner: the camera fits the model with a margin of a few percent,
         * so what is drawn in the upper part of the picture (above the ground grid) reaches near the top
         * edge, or near both side edges for a model wider than the picture's shape. */
        int top = height, left = width, right = -1;
        for (int y = 0; y < height * 6 / 10; ++y)
            for (int x = 0; x < width; ++x)
                if (!is_color(pixels + 3 * ((size_t)y * (size_t)width + (size_t)x), background)) {
                    top = y < top ? y : top;
                    left = x < left ? x : left;
                    right = x > right ? x : right;
                }
        CHECK(top > 0 && left > 0 && right < width - 1);
        CHECK(top < height / 10 || (left < width / 10 && right > width * 9 / 10));
        CHECK(is_color(pixels, background));
    }
    free(pixels);
}

/* md5tool render MESH [ANIM] ARGUMENTS --out PATH (PATH under the build tree, `name`), and the picture
 * checked: `width` x `height`, the model on the centre pixel and framed. */
static void check_render(const char *name, const char *mesh, const char *anim, const char *arguments, int width,
                         int height)
{
    char command[2048], path[512];
    snprintf(path, sizeof path, "%s/%s", MARIONETTE_BUILD_DIR, name);
    snprintf(command, sizeof command, "render '%s' %s%s%s %s --out '%s'", mesh, anim ? "'" : "", anim ? anim : "",
             anim ? "'" : "", arguments, path);
    CHECK(run_tool(command) == 0);
    check_framed_picture(path, width, height);
}

/* What md5tool prints on stderr and its exit status. */
static int run_tool_output(const char *arguments, char *output, size_t size)
{
    char command[4096];
    snprintf(command, sizeof command, "'%s' %s 2>&1", MARIONETTE_MD5TOOL, arguments);
    FILE *pipe = popen(command, "r");
    size_t got = pipe ? fread(output, 1, size - 1, pipe) : 0;
    output[got] = '\0';
    int status = pipe ? pclose(pipe) : -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The mannequin's shader "../textures/mannequin.tga" leaves the mesh's folder, so alone md5tool draws the
 * checker and says so; --textures names the folder a character's `textures` key would, and the wood shows. */
static void test_render_textures_option(void)
{
    char arguments[2048], path[512], output[4096];
    const char *mesh = MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh";
    long long warm[2] = {0, 0};
    for (int with_textures = 0; with_textures < 2; ++with_textures) {
        snprintf(path, sizeof path, "%s/test_raster_textures_%d.png", MARIONETTE_BUILD_DIR, with_textures);
        snprintf(arguments, sizeof arguments, "render '%s' --size 96 96 --out '%s'%s", mesh, path,
                 with_textures ? " --textures '" MARIONETTE_SOURCE_DIR "/assets/textures'" : "");
        CHECK(run_tool_output(arguments, output, sizeof output) == 0);
        if (with_textures)
            CHECK(strstr(output, "warning") == NULL);
        else
            CHECK_STR_CONTAINS(output, "texture \"../textures/mannequin.tga\" not found; drawing a placeholder");
        int width = 0, height = 0;
        uint8_t *pixels = load_our_png(path, &width, &height);
        CHECK(pixels != NULL);
        for (int i = 0; pixels && i < width * height; ++i)
            warm[with_textures] += pixels[3 * i] > 110 && pixels[3 * i] - pixels[3 * i + 2] > 40;
        free(pixels);
    }
    printf("  md5tool render: %lld wood-coloured pixels without --textures, %lld with\n", warm[0], warm[1]);
    CHECK(warm[0] < 20 && warm[1] > 300);
    snprintf(arguments, sizeof arguments, "render '%s' --out '%s' --textures", mesh, path);
    CHECK(run_tool_output(arguments, output, sizeof output) == 2);
}

/* A clip for another skeleton: exit 1, and the message names the joint. */
static void check_sheet_refuses(const char *name, const char *mesh, const char *anim)
{
    char command[4096];
    snprintf(command, sizeof command, "'%s' sheet --out '%s/%s' '%s' -- '%s' 2>&1", MARIONETTE_MD5TOOL,
             MARIONETTE_BUILD_DIR, name, mesh, anim);
    FILE *pipe = popen(command, "r");
    char output[2048] = {0};
    size_t got = pipe ? fread(output, 1, sizeof output - 1, pipe) : 0;
    output[got] = '\0';
    int status = pipe ? pclose(pipe) : -1;
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    CHECK_STR_CONTAINS(output, "joint");
    CHECK_STR_CONTAINS(output, "does not fit");
}

/* A sheet of 2 clips of one mesh, 4 columns of 64 x 80: two rows. */
static void check_sheet(const char *name, const char *mesh, const char *first, const char *second)
{
    char arguments[2048], path[512];
    snprintf(path, sizeof path, "%s/%s", MARIONETTE_BUILD_DIR, name);
    snprintf(arguments, sizeof arguments, "sheet --out '%s' --columns 4 --cell 64 80 '%s' -- '%s' '%s'", path, mesh,
             first, second);
    CHECK(run_tool(arguments) == 0);
    int width = 0, height = 0;
    uint8_t *pixels = load_our_png(path, &width, &height);
    CHECK(pixels != NULL);
    CHECK(width == 4 * 64);
    CHECK(height == 2 * 1 * 80); /* 2 clips x 1 mesh rows */
    free(pixels);
}

/* Usage mistakes exit 2; a clip that does not fit exits 1. */
static void check_render_mistakes(const char *name, const char *mesh, const char *other_clip)
{
    char arguments[2048], path[512];
    snprintf(path, sizeof path, "%s/%s", MARIONETTE_BUILD_DIR, name);
    snprintf(arguments, sizeof arguments, "render '%s'", mesh);
    CHECK(run_tool(arguments) == 2);
    snprintf(arguments, sizeof arguments, "render '%s' --out '%s' --view upside-down", mesh, path);
    CHECK(run_tool(arguments) == 2);
    snprintf(arguments, sizeof arguments, "render '%s' '%s' --frame 1 --out '%s'", mesh, other_clip, path);
    CHECK(run_tool(arguments) == 1);
}

static void test_render_mannequin(void)
{
    /* From the front the bind pose's arms spread across the picture; in the back view of the run the pelvis
     * is on the centre pixel (from the side, the centre falls between its legs). */
    check_render("test_raster_mannequin.png", MANNEQUIN, NULL, "--view front --size 100 160", 100, 160);
    check_render("test_raster_mannequin_run.png", MANNEQUIN, CLIPS "run.md5anim",
                 "--time 0.5 --skeleton --view back --size 96 128", 96, 128);
    check_render_mistakes("test_raster_mannequin_mistake.png", MANNEQUIN, OTHER_SKELETON);
}

static void test_render_boneman(void)
{
    /* A skeleton is mostly gaps: these views put a bone (the pelvis) on the centre pixel. Boneman faces -Y
     * (Blender's front), so "side" (from -Y) shows his front. */
    check_render("test_raster_boneman.png", BONEMAN "boneman.md5mesh", NULL, "--view side --size 100 160", 100, 160);
    check_render("test_raster_boneman_running.png", BONEMAN "boneman.md5mesh", BONEMAN "boneman_running.md5anim",
                 "--time 0.5 --skeleton --view back --size 96 128", 96, 128);
    check_render_mistakes("test_raster_boneman_mistake.png", BONEMAN "boneman.md5mesh", CLIPS "run.md5anim");
}

static void test_render_cube(void)
{
    check_render("test_raster_cube.png", ASSIMP_CUBE, NULL, "--size 120 90", 120, 90);
    check_render_mistakes("test_raster_cube_mistake.png", ASSIMP_CUBE, OTHER_SKELETON);
}

static void test_sheet_size_and_fit(void)
{
    check_sheet("test_raster_sheet.png", MANNEQUIN, CLIPS "run.md5anim", CLIPS "jump.md5anim");
    check_sheet_refuses("test_raster_sheet_refused.png", MANNEQUIN, OTHER_SKELETON);
}

static void test_sheet_boneman(void)
{
    check_sheet("test_raster_sheet_boneman.png", BONEMAN "boneman.md5mesh", BONEMAN "boneman_running.md5anim",
                BONEMAN "boneman_dying.md5anim");
    check_sheet_refuses("test_raster_sheet_boneman_refused.png", MANNEQUIN, BONEMAN "boneman_running.md5anim");
}

static void test_sheet_cube(void)
{
    check_sheet_refuses("test_raster_sheet_cube_refused.png", ASSIMP_CUBE, OTHER_SKELETON);
}

int main(int argc, char **argv)
{
    test_part part;
    int skip = test_data_start(argc, argv, &part);
    if (skip)
        return skip;
    if (part == TEST_PART_OWN) {
        RUN(test_triangle_covers_inside_only);
        RUN(test_depth_keeps_nearer);
        RUN(test_back_face_culling_follows_winding);
        RUN(test_md5_normal_of_clockwise_triangle_faces_viewer);
        RUN(test_lambert_brighter_facing_light);
        RUN(test_perspective_camera);
        RUN(test_texture_t_zero_is_top_row);
    RUN(test_normal_and_specular_maps);
        RUN(test_lines_text_and_copy);
        RUN(test_png_round_trip);
        RUN(test_tga_row_orders_and_depths);
        RUN(test_tga_run_length);
        RUN(test_tga_side_limit);
        RUN(test_render_mannequin);
        RUN(test_sheet_size_and_fit);
        RUN(test_render_textures_option);
    }
    if (part == TEST_PART_BONEMAN) {
        RUN(test_render_boneman);
        RUN(test_sheet_boneman);
    }
    if (part == TEST_PART_ASSIMP) {
        RUN(test_culling_keeps_outside_of_real_cube);
        RUN(test_render_cube);
        RUN(test_sheet_cube);
    }
    return check_report();
}
