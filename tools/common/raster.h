/* raster: a small CPU software rasterizer for pictures of characters without GL (md5tool render and
 * sheet): an RGB colour buffer with a float depth buffer, shaded triangles, lines and a 5x7 bitmap font.
 * Slow and simple on purpose; the GL renderer is the fast path, this is the one a test can read back.
 * Knows nothing of MD5 files, models or clips: meshes come in as plain arrays, cameras as one matrix.
 *
 * Conventions, as OpenGL's so that pictures from both agree:
 * - A camera is one view-projection matrix (cglm: glm_lookat then glm_ortho or glm_perspective) taking
 *   world positions to clip space. Visible points have -w <= x, y, z <= w; smaller z is nearer. It is
 *   wrapped in a struct so it can be passed as const (C11 does not convert mat4 * to const mat4 *).
 * - Pixel (0, 0) is the top-left corner of the image; rows are stored top row first, 3 bytes (R, G, B) per
 *   pixel. Clip-space y points up the image.
 * - Winding is judged as the viewer sees it, y up. MD5 front faces are clockwise (the loader's outward
 *   normal of triangle (a, b, c) is (c - a) x (b - a)), OpenGL's default is counter-clockwise.
 * Nothing here allocates except raster_target_create. */
#ifndef MARIONETTE_RASTER_H
#define MARIONETTE_RASTER_H

#include <stdbool.h>
#include <stdint.h>

#include <cglm/cglm.h>

/* Where pictures are drawn: width * height RGB pixels and as many depths. Either from
 * raster_target_create, or caller-owned arrays put in the struct by hand. */
typedef struct raster_target {
    int width, height;
    uint8_t *color; /* width * height * 3 bytes, top row first */
    float *depth;   /* width * height, clip z / w: -1 near, 1 far */
} raster_target;

bool raster_target_create(raster_target *target, int width, int height);
void raster_target_free(raster_target *target);

/* Fill the colour buffer with one colour and reset every depth to "nothing drawn yet". */
void raster_clear(raster_target *target, const uint8_t color[3]);

typedef struct raster_camera {
    mat4 view_projection;
} raster_camera;

/* An image to sample, RGB, top row first (as tga_load returns it). MD5 texture coordinates run the same
 * way: (0, 0) is the top-left of the image as stored, t grows downward. Coordinates wrap (repeat). */
typedef struct raster_texture {
    int width, height;
    const uint8_t *pixels;
} raster_texture;

typedef enum raster_front_face {
    RASTER_FRONT_CLOCKWISE,         /* MD5 */
    RASTER_FRONT_COUNTER_CLOCKWISE, /* OpenGL's default */
} raster_front_face;

/* One mesh to draw: arrays shared with the caller, read only. */
typedef struct raster_mesh {
    int vertex_count;
    int triangle_count;
    const float (*positions)[3];     /* world space */
    const float (*normals)[3];       /* world space, unit length; interpolated per pixel */
    const float (*uvs)[2];           /* NULL: the checker colour is used as if every uv were 0 */
    const uint32_t (*triangles)[3];  /* indices < vertex_count (checked: a bad index skips the triangle) */
    const raster_texture *texture;   /* NULL: a placeholder checker (8 x 8 squares over the uv square) */
    /* Normal mapping: the tangent frames (world space, xyz unit along u, w the handedness: the bitangent is
     * w * cross(normal, tangent), skin_mesh.tangents) and a tangent-space normal map (red along the tangent,
     * green along the bitangent, blue out, each (value - 128) / 127, so 128 128 255 is the interpolated normal
     * itself); either NULL: the interpolated normal. */
    const float (*tangents)[4];
    const raster_texture *normal_map;
    /* How strongly each texel reflects the highlight (its red, 0..1); NULL: the default, 0.25. */
    const raster_texture *specular_map;
} raster_mesh;

/* How a mesh is lit and which faces are drawn. Zero means: no light (a zero light_direction leaves only
 * the ambient term), ambient 0, no culling, nearest texel sampling; set at least the light. */
typedef struct raster_shading {
    vec3 light_direction;        /* world space, pointing from the surface toward the light; normalized here */
    float ambient;               /* 0..1: brightness of a face the light does not reach */
    bool cull_back_faces;
    raster_front_face front_face;
    bool bilinear;               /* bilinear texture filtering instead of nearest texel */
    /* The renderer's highlight (Blinn-Phong, exponent 32, the specular map's strength or 0.25) seen from eye,
     * on the lit side; false: Lambert and ambient alone. */
    bool highlight;
    vec3 eye;                    /* world space, for the highlight */
} raster_shading;

/* Draw every triangle of mesh with a depth test (nearer or equal wins) and Lambert + ambient shading:
 * colour = albedo * (ambient + (1 - ambient) * max(0, dot(normal, light))), plus, with shading->highlight,
 * strength * max(0, dot(normal, halfway))^32 where the light reaches (the normal the normal map's, where the
 * mesh has one). Triangles with a vertex at or
 * behind the camera plane of a perspective matrix (w <= 0) are skipped, not clipped. Attributes are
 * interpolated perspective-correctly. Returns false (and draws nothing) when the mesh's arrays are
 * missing. */
bool raster_draw_mesh(raster_target *target, const raster_camera *camera, const raster_mesh *mesh,
                      const raster_shading *shading);

/* A one-pixel line between two world positions. depth_test false draws over everything (a skeleton
 * overlay seen through the body); true hides it behind nearer surfaces and does not write depth. */
void raster_draw_line(raster_target *target, const raster_camera *camera, const vec3 from, const vec3 to,
                      const uint8_t color[3], bool depth_test);

/* A filled square of size x size pixels centred on a world position, drawn over everything: joint
 * markers. */
void raster_draw_point(raster_target *target, const raster_camera *camera, const vec3 position, int size,
                       const uint8_t color[3]);

/* A square grid on the plane "up = height" of a Z-up world: lines every `spacing` from center - half_size
 * to center + half_size along X and Y, depth-tested so the model stands on it. */
void raster_draw_ground_grid(raster_target *target, const raster_camera *camera, const vec3 center,
                             float half_size, float spacing, const uint8_t color[3]);

/* A filled rectangle of pixels (clipped to the target), depth untouched: backgrounds for labels. */
void raster_fill_rectangle(raster_target *target, int x, int y, int width, int height, const uint8_t color[3]);

/* Text in the built-in 5x7 font, each glyph cell 6 x 8 pixels times scale, top-left corner at (x, y).
 * Letters are upper case (lower case is drawn as upper case); digits, space and . , : - _ / ( ) = + % #
 * are there too; anything else is drawn as a hollow box. Returns the x after the last glyph. */
int raster_draw_text(raster_target *target, int x, int y, int scale, const char *text, const uint8_t color[3]);

/* Copy source's colours into target with source's top-left corner at (x, y), clipped to the target. */
void raster_copy(raster_target *target, int x, int y, const raster_target *source);

#endif
