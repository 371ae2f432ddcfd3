/* gfx: meshes, textures, per-frame instance batching and drawing. See gfx.h. */
#include "gfx.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <GL/glew.h>

#include "../pose/pose.h"
#include "gfx_internal.h"
#include "gfx_shaders.h"

enum {
    GFX_DEFAULT_MESH_CAPACITY = 64,
    GFX_DEFAULT_INSTANCE_CAPACITY = 256,
    GFX_DEFAULT_JOINTS_PER_INSTANCE = 64,
    GFX_FLOATS_PER_MATRIX = 16,
    GFX_FLOATS_PER_INSTANCE = 4 * GFX_INSTANCE_TEXELS,
    GFX_TEXTURE_UNIT_ALBEDO = 0,
    GFX_TEXTURE_UNIT_PALETTES = 1,
    GFX_TEXTURE_UNIT_INSTANCES = 2,
    GFX_TEXTURE_UNIT_SKINNED_VERTICES = 3,
    GFX_TEXTURE_UNIT_SHADOW_MAP = 4,
    GFX_DEFAULT_SHADOW_MAP_SIZE = 2048,
    GFX_DEFAULT_DEBUG_LINES = 65536,
    GFX_FLOATS_PER_SKINNED_VERTEX = 6, /* position and normal, R32F texels (see gfx_shaders.h) */
    GFX_PLACEHOLDER_SIZE = 64,
    GFX_PLACEHOLDER_SQUARE = 8,
    GFX_ERROR_TEXT_MAX = 512,
    GFX_LABEL_MAX = 64,
};

_Static_assert(GFX_NAIVE_MAX_JOINTS == GFX_NAIVE_MAX_JOINTS_TEXT, "the naive shader's palette array size");

/* Half the side of the ground square, metres: larger than any scene the demo shows; the grid fades out
 * well before its edge. */
static const float GFX_GROUND_HALF_SIZE = 60.0f;

/* Shadows: a fitted shadow sphere reaches this far past the instances' origins (a character's height
 * and arm span), and never wider than the largest radius (beyond it the map's texels would be too coarse
 * to read; farther characters are lit). */
static const float GFX_SHADOW_CHARACTER_EXTENT = 2.0f;
/* A taller character (an import may scale one to 5 m) needs more: its bounds' top above its origin, which
 * the skin reach pads by about a quarter, times this. At the demo's light its shadow reaches about 0.7 of
 * its height away; the padding makes two thirds of the top enough, and keeps every human-sized body,
 * jumping ones included (top under 3 m), at the 2 m above. */
static const float GFX_SHADOW_HEIGHT_SHARE = 0.65f;
static const float GFX_SHADOW_MAX_RADIUS = 40.0f;
/* Normals view: line length in metres. */
static const float GFX_NORMAL_LENGTH = 0.04f;

/* One skin_mesh on the GPU. */
typedef struct gfx_part {
    GLuint vertex_array;
    GLuint vertex_buffer;
    GLuint index_buffer;
    GLuint texture;
    int texture_entry;  /* in the shared texture table (gfx_texture.c); -1 for the placeholder */
    int vertex_count;
    int index_count;
    skin_mesh bind;     /* a copy of the bind-pose data the CPU skinning path needs (no uvs, triangles) */
    int first_vertex;   /* of this part among its mesh's vertices, for the CPU path's skinned buffer */
} gfx_part;

typedef struct gfx_mesh_slot {
    bool alive;
    uint16_t generation;  /* bumped on destroy so a stale handle is refused, not silently reused */
    int joint_count;
    int part_count;
    int vertex_count;  /* all parts together */
    gfx_part *parts;
    char label[GFX_LABEL_MAX];
} gfx_mesh_slot;

/* An instance as submitted, before sorting by mesh. */
typedef struct gfx_queued_instance {
    int mesh_slot;
    int first_matrix;   /* into the frame's palette staging */
    int first_skinned_vertex; /* into the CPU path's skinned vertices */
    mat4 world;         /* already including the Z-up to Y-up turn */
    vec4 tint;
    float height;       /* its bounds' top above its origin, world metres; 0 without bounds */
} gfx_queued_instance;

typedef struct gfx_program {
    GLuint program;
    GLint view_projection, camera_position, light_direction, light_color, ambient_color;
    GLint first_instance, clear_color;
    GLint bones, world, instance_tint; /* the naive program's per-instance uniforms; -1 elsewhere */
    GLint light_view_projection, shadow_texel, shadow_normal_offset, shadows_on;
    GLint part_first_vertex, part_vertex_count, normal_length, line_color;
} gfx_program;

/* Every program: a vertex, optional geometry and a fragment shader. */
typedef enum gfx_program_kind {
    GFX_PROGRAM_SKINNED,      /* the default: skinning in the vertex shader, lit, shadowed */
    GFX_PROGRAM_CPU_SKINNED,  /* the CPU path: vertices skinned by pose_skin_cpu */
    GFX_PROGRAM_NAIVE,        /* the benchmark baseline: per-instance uniforms */
    GFX_PROGRAM_GROUND,
    GFX_PROGRAM_DEPTH,        /* shadow map depth passes of the three paths above */
    GFX_PROGRAM_CPU_DEPTH,
    GFX_PROGRAM_NAIVE_DEPTH,
    GFX_PROGRAM_NORMALS,      /* normals view of the two batched paths */
    GFX_PROGRAM_CPU_NORMALS,
    GFX_PROGRAM_COUNT
} gfx_program_kind;

/* Where a frame's palettes go. */
typedef enum gfx_palette_store {
    GFX_PALETTES_UNOPENED,  /* the frame has needed no room yet */
    GFX_PALETTES_STAGED,    /* palette_staging, copied into palette_buffer at gfx_end_frame */
    GFX_PALETTES_MAPPED,    /* palette_buffer itself, mapped for writing until gfx_end_frame */
} gfx_palette_store;

static struct {
    bool ready;
    bool in_frame;

    gfx_mesh_slot *meshes;
    int mesh_capacity;

    gfx_program programs[GFX_PROGRAM_COUNT];
    GLuint placeholder_texture;
    GLuint ground_vertex_array, ground_vertex_buffer;

    /* Per-frame data: CPU staging and the GPU buffers behind the two texture buffers. Sized at setup;
     * grown (doubling) only when a frame submits more. */
    gfx_queued_instance *queued;
    float *instance_staging;     /* sorted by mesh, GFX_FLOATS_PER_INSTANCE each */
    int instance_capacity;
    int instance_count;
    float *palette_staging;      /* GFX_FLOATS_PER_MATRIX per matrix */
    int palette_capacity;        /* of the staging */
    int palette_count;
    /* Where this frame's palettes are written (see open_palettes): the mapped GPU buffer on the default
     * path, saving the copy from staging, or the staging. */
    gfx_palette_store palette_store;
    float *palette_mapping;      /* the mapped part of palette_buffer, from matrix palette_mapping_first on */
    int palette_mapping_first;
    bool palettes_lost;          /* this frame: the driver lost the mapped buffer's contents */
    int *mesh_instance_count;    /* mesh_capacity entries: instances per mesh this frame */
    int *mesh_first_instance;    /* mesh_capacity entries: where each mesh's instances start */
    GLuint palette_buffer, palette_texture;
    GLuint instance_buffer, instance_texture;
    int palette_buffer_matrices;    /* size of the GPU buffers, apart from the staging's capacity: an upload
                                     * grows them to it; a mapped frame grows the palette buffer alone */
    int instance_buffer_instances;
    /* The CPU skinning path's output, GFX_FLOATS_PER_SKINNED_VERTEX per vertex, and its texture buffer. */
    float *skinned_staging;
    int skinned_capacity;            /* vertices */
    int skinned_count;
    GLuint skinned_buffer, skinned_texture;
    int skinned_buffer_vertices;
    int max_skinned_vertices;        /* what one texture buffer can hold (GL_MAX_TEXTURE_BUFFER_SIZE) */

    /* The shadow map: a depth texture rendered from the light each frame. */
    GLuint shadow_framebuffer, shadow_texture;
    int shadow_map_size;
    bool shadows_on;                 /* this frame */
    mat4 light_view_projection;
    float shadow_texel_metres;

    gfx_frame_desc frame;
    mat4 view_projection;
    vec3 light_unit;                 /* the frame's light direction, normalized */
    gfx_stats stats;
    char last_error[GFX_ERROR_TEXT_MAX];
    char gl_errors[GFX_ERROR_TEXT_MAX];
} gfx;

/* ---- Messages ------------------------------------------------------------------------------------------ */

static bool misuse(const char *format, ...) __attribute__((format(printf, 1, 2)));
static bool misuse(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(gfx.last_error, sizeof gfx.last_error, format, arguments);
    va_end(arguments);
    return false;
}

const char *gfx_last_error(void)
{
    return gfx.last_error;
}

static const char *gl_error_name(GLenum error)
{
    switch (error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "unknown GL error";
    }
}

const char *gfx_check_errors(void)
{
    size_t used = 0;
    gfx.gl_errors[0] = '\0';
    /* A lost context can report errors forever; a handful says enough. */
    for (int i = 0; i < 8; ++i) {
        GLenum error = glGetError();
        if (error == GL_NO_ERROR)
            break;
        int wrote = snprintf(gfx.gl_errors + used, sizeof gfx.gl_errors - used, "%s%s (0x%04x)",
                             used ? ", " : "", gl_error_name(error), (unsigned)error);
        if (wrote > 0)
            used += (size_t)wrote < sizeof gfx.gl_errors - used ? (size_t)wrote : sizeof gfx.gl_errors - used - 1;
    }
    return used ? gfx.gl_errors : NULL;
}

/* ---- Shaders ------------------------------------------------------------------------------------------- */

static GLuint compile_shader(GLenum stage, const char *source, const char *name, diag *err)
{
    GLuint shader = glCreateShader(stage);
    glShaderSource(shader, 1, &source, NULL);
    glCompileShader(shader);
    GLint compiled = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &compiled);
    if (!compiled) {
        char log[DIAG_MESSAGE_MAX];
        glGetShaderInfoLog(shader, sizeof log, NULL, log);
        diag_set(err, name, 0, "shader does not compile: %s", log);
        glDeleteShader(shader);
        return 0;
    }
    return shader;
}

/* A program from its stages (geometry may be NULL). captured: output names recorded by transform feedback,
 * or NULL; they must be named before linking. */
bool gfx_link_program(GLuint *out, const char *vertex_source, const char *geometry_source,
                      const char *fragment_source, const char *const *captured, int captured_count,
                      const char *name, diag *err)
{
    const char *sources[3] = {vertex_source, geometry_source, fragment_source};
    const GLenum stages[3] = {GL_VERTEX_SHADER, GL_GEOMETRY_SHADER, GL_FRAGMENT_SHADER};
    GLuint shaders[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
        if (!sources[i])
            continue;
        shaders[i] = compile_shader(stages[i], sources[i], name, err);
        if (!shaders[i]) {
            for (int k = 0; k < i; ++k)
                glDeleteShader(shaders[k]);
            return false;
        }
    }
    GLuint program = glCreateProgram();
    for (int i = 0; i < 3; ++i)
        if (shaders[i])
            glAttachShader(program, shaders[i]);
    if (captured_count > 0)
        glTransformFeedbackVaryings(program, captured_count, captured, GL_INTERLEAVED_ATTRIBS);
    glLinkProgram(program);
    for (int i = 0; i < 3; ++i)
        glDeleteShader(shaders[i]);
    GLint linked = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &linked);
    if (!linked) {
        char log[DIAG_MESSAGE_MAX];
        glGetProgramInfoLog(program, sizeof log, NULL, log);
        glDeleteProgram(program);
        return diag_set(err, name, 0, "program does not link: %s", log);
    }
    *out = program;
    return true;
}

static bool link_program(gfx_program *out, const char *vertex_source, const char *geometry_source,
                         const char *fragment_source, const char *const *captured, int captured_count,
                         const char *name, diag *err)
{
    GLuint program = 0;
    if (!gfx_link_program(&program, vertex_source, geometry_source, fragment_source, captured, captured_count,
                          name, err))
        return false;
    *out = (gfx_program){
        .program = program,
        .view_projection = glGetUniformLocation(program, "view_projection"),
        .camera_position = glGetUniformLocation(program, "camera_position"),
        .light_direction = glGetUniformLocation(program, "light_direction"),
        .light_color = glGetUniformLocation(program, "light_color"),
        .ambient_color = glGetUniformLocation(program, "ambient_color"),
        .first_instance = glGetUniformLocation(program, "first_instance"),
        .clear_color = glGetUniformLocation(program, "clear_color"),
        .bones = glGetUniformLocation(program, "bones"),
        .world = glGetUniformLocation(program, "world"),
        .instance_tint = glGetUniformLocation(program, "instance_tint"),
        .light_view_projection = glGetUniformLocation(program, "light_view_projection"),
        .shadow_texel = glGetUniformLocation(program, "shadow_texel"),
        .shadow_normal_offset = glGetUniformLocation(program, "shadow_normal_offset"),
        .shadows_on = glGetUniformLocation(program, "shadows_on"),
        .part_first_vertex = glGetUniformLocation(program, "part_first_vertex"),
        .part_vertex_count = glGetUniformLocation(program, "part_vertex_count"),
        .normal_length = glGetUniformLocation(program, "normal_length"),
        .line_color = glGetUniformLocation(program, "line_color"),
    };
    /* Samplers name fixed texture units once; draws only bind textures to those units. */
    glUseProgram(program);
    glUniform1i(glGetUniformLocation(program, "albedo"), GFX_TEXTURE_UNIT_ALBEDO);
    glUniform1i(glGetUniformLocation(program, "palettes"), GFX_TEXTURE_UNIT_PALETTES);
    glUniform1i(glGetUniformLocation(program, "instances"), GFX_TEXTURE_UNIT_INSTANCES);
    glUniform1i(glGetUniformLocation(program, "skinned_vertices"), GFX_TEXTURE_UNIT_SKINNED_VERTICES);
    glUniform1i(glGetUniformLocation(program, "shadow_map"), GFX_TEXTURE_UNIT_SHADOW_MAP);
    glUseProgram(0);
    return true;
}

typedef struct gfx_program_spec {
    const char *vertex, *geometry, *fragment, *name;
} gfx_program_spec;

static bool link_programs(diag *err)
{
    const gfx_program_spec specs[GFX_PROGRAM_COUNT] = {
        [GFX_PROGRAM_SKINNED] = {gfx_skinned_vertex_source, NULL, gfx_skinned_fragment_source,
                                 "gfx skinned shader"},
        [GFX_PROGRAM_CPU_SKINNED] = {gfx_cpu_skinned_vertex_source, NULL, gfx_skinned_fragment_source,
                                     "gfx cpu-skinned shader"},
        [GFX_PROGRAM_NAIVE] = {gfx_naive_vertex_source, NULL, gfx_skinned_fragment_source, "gfx naive shader"},
        [GFX_PROGRAM_GROUND] = {gfx_ground_vertex_source, NULL, gfx_ground_fragment_source, "gfx ground shader"},
        [GFX_PROGRAM_DEPTH] = {gfx_skinned_vertex_source, NULL, gfx_depth_fragment_source, "gfx depth shader"},
        [GFX_PROGRAM_CPU_DEPTH] = {gfx_cpu_skinned_vertex_source, NULL, gfx_depth_fragment_source,
                                   "gfx cpu-skinned depth shader"},
        [GFX_PROGRAM_NAIVE_DEPTH] = {gfx_naive_vertex_source, NULL, gfx_depth_fragment_source,
                                     "gfx naive depth shader"},
        [GFX_PROGRAM_NORMALS] = {gfx_skinned_vertex_source, gfx_normals_geometry_source,
                                 gfx_normals_fragment_source, "gfx normals shader"},
        [GFX_PROGRAM_CPU_NORMALS] = {gfx_cpu_skinned_vertex_source, gfx_normals_geometry_source,
                                     gfx_normals_fragment_source, "gfx cpu-skinned normals shader"},
    };
    /* Only the skinning shader's object-space outputs are captured (gfx_capture_skinning). */
    static const char *const captured[] = {GFX_CAPTURED_POSITION, GFX_CAPTURED_NORMAL};
    for (int k = 0; k < GFX_PROGRAM_COUNT; ++k) {
        bool capture = k == GFX_PROGRAM_SKINNED;
        if (!link_program(&gfx.programs[k], specs[k].vertex, specs[k].geometry, specs[k].fragment,
                          capture ? captured : NULL, capture ? 2 : 0, specs[k].name, err))
            return false;
    }
    return true;
}

/* ---- Textures ------------------------------------------------------------------------------------------ */

void gfx_texture_sampling(void)
{
    glGenerateMipmap(GL_TEXTURE_2D);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
}

/* Magenta and dark grey squares: impossible to mistake for a real texture, yet the shape, shading and
 * uv layout of the mesh stay readable. */
static GLuint make_placeholder_texture(void)
{
    static uint8_t pixels[GFX_PLACEHOLDER_SIZE * GFX_PLACEHOLDER_SIZE * 4];
    for (int y = 0; y < GFX_PLACEHOLDER_SIZE; ++y) {
        for (int x = 0; x < GFX_PLACEHOLDER_SIZE; ++x) {
            bool light = ((x / GFX_PLACEHOLDER_SQUARE) + (y / GFX_PLACEHOLDER_SQUARE)) % 2 == 0;
            uint8_t *p = pixels + 4 * (y * GFX_PLACEHOLDER_SIZE + x);
            p[0] = light ? 230 : 60;
            p[1] = light ? 40 : 60;
            p[2] = light ? 200 : 60;
            p[3] = 255;
        }
    }
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, GFX_PLACEHOLDER_SIZE, GFX_PLACEHOLDER_SIZE, 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, pixels);
    gfx_texture_sampling();
    glBindTexture(GL_TEXTURE_2D, 0);
    return texture;
}

/* ---- Per-frame buffers --------------------------------------------------------------------------------- */

static GLuint make_texture_buffer(GLuint buffer, GLsizeiptr bytes, GLenum format, GLuint *texture)
{
    glBindBuffer(GL_TEXTURE_BUFFER, buffer);
    glBufferData(GL_TEXTURE_BUFFER, bytes, NULL, GL_STREAM_DRAW);
    glGenTextures(1, texture);
    glBindTexture(GL_TEXTURE_BUFFER, *texture);
    glTexBuffer(GL_TEXTURE_BUFFER, format, buffer);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    return buffer;
}

/* One upload per buffer per frame. Orphaning (glBufferData with NULL at the same size) hands the old
 * store to the driver, still in use by the previous frame's draws, instead of waiting for them; a buffer
 * that must grow is simply re-specified, and its texture buffer follows the buffer object. */
static void upload_stream(GLuint buffer, int *gpu_items, int cpu_items, size_t item_bytes, const float *data,
                          int used_items)
{
    glBindBuffer(GL_TEXTURE_BUFFER, buffer);
    if (*gpu_items < cpu_items) {
        *gpu_items = cpu_items;
    }
    glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)((size_t)*gpu_items * item_bytes), NULL, GL_STREAM_DRAW);
    if (used_items > 0)
        glBufferSubData(GL_TEXTURE_BUFFER, 0, (GLsizeiptr)((size_t)used_items * item_bytes), data);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

/* Capacity doubled until it holds `needed`: growth is rare and amortized. */
static int doubled_until(int capacity, int needed)
{
    while (capacity < needed)
        capacity *= 2;
    return capacity;
}

static bool grow_instances(int needed)
{
    int capacity = doubled_until(gfx.instance_capacity, needed);
    gfx_queued_instance *queued = realloc(gfx.queued, (size_t)capacity * sizeof *queued);
    if (!queued)
        return false;
    gfx.queued = queued;
    float *staging = realloc(gfx.instance_staging, (size_t)capacity * GFX_FLOATS_PER_INSTANCE * sizeof(float));
    if (!staging)
        return false;
    gfx.instance_staging = staging;
    gfx.instance_capacity = capacity;
    ++gfx.stats.buffer_grows;
    return true;
}

static bool grow_palettes(int needed)
{
    int capacity = doubled_until(gfx.palette_capacity, needed);
    float *staging = realloc(gfx.palette_staging, (size_t)capacity * GFX_FLOATS_PER_MATRIX * sizeof(float));
    if (!staging)
        return false;
    gfx.palette_staging = staging;
    gfx.palette_capacity = capacity;
    ++gfx.stats.buffer_grows;
    return true;
}

static bool grow_skinned(int needed)
{
    int capacity = doubled_until(gfx.skinned_capacity > 0 ? gfx.skinned_capacity : 4096, needed);
    float *staging = realloc(gfx.skinned_staging, (size_t)capacity * GFX_FLOATS_PER_SKINNED_VERTEX * sizeof(float));
    if (!staging)
        return false;
    gfx.skinned_staging = staging;
    gfx.skinned_capacity = capacity;
    ++gfx.stats.buffer_grows;
    return true;
}

/* ---- The frame's palettes ------------------------------------------------------------------------------ */
/* On the default path a frame's palettes are written straight into palette_buffer, mapped for writing
 * from the frame's first need of room until gfx_end_frame: the crowd's workers write there, and no copy
 * of a frame's worth of matrices follows. The naive and CPU skinning paths read the palettes on the CPU,
 * and a write-only mapping must never be read, so they keep the staging; so does a frame whose mapping
 * fails or is not 16-byte aligned (cglm's mat4 must be). */

static size_t palette_bytes(int matrices)
{
    return (size_t)matrices * GFX_FLOATS_PER_MATRIX * sizeof(float);
}

/* Map palette_buffer from matrix `first` to its end. At 0 the whole store is invalidated, which orphans
 * it (the previous frame's draws may still read the old one; a glBufferData orphan as well cost llvmpipe
 * ~10 ms a frame for a 20 MB buffer, for nothing); past 0 the matrices before `first` are kept and only
 * the rest is invalidated. false, with nothing left mapped, when the driver gives no usable pointer. */
static bool map_palettes(int first)
{
    glBindBuffer(GL_TEXTURE_BUFFER, gfx.palette_buffer);
    GLbitfield access = GL_MAP_WRITE_BIT | (first == 0 ? GL_MAP_INVALIDATE_BUFFER_BIT : GL_MAP_INVALIDATE_RANGE_BIT);
    float *mapped = glMapBufferRange(GL_TEXTURE_BUFFER, (GLintptr)palette_bytes(first),
                                     (GLsizeiptr)palette_bytes(gfx.palette_buffer_matrices - first), access);
    if (mapped && (uintptr_t)mapped % 16 != 0) {
        glUnmapBuffer(GL_TEXTURE_BUFFER); /* nothing was written: whether the driver kept it does not matter */
        mapped = NULL;
    }
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    gfx.palette_mapping = mapped;
    gfx.palette_mapping_first = first;
    return mapped != NULL;
}

/* Hand the mapping back to GL. The driver may have lost what was written (glUnmapBuffer gives GL_FALSE,
 * after a display mode change for instance): the frame then draws no instances rather than garbage, and
 * says so. */
static void unmap_palettes(void)
{
    glBindBuffer(GL_TEXTURE_BUFFER, gfx.palette_buffer);
    if (glUnmapBuffer(GL_TEXTURE_BUFFER) == GL_FALSE && !gfx.palettes_lost) {
        gfx.palettes_lost = true;
        misuse("the driver lost the contents of the mapped palette buffer (glUnmapBuffer gave GL_FALSE): this "
               "frame's instances are not drawn");
    }
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    gfx.palette_mapping = NULL;
}

/* The frame's first need of room, for `needed` matrices, picks its store. The GPU buffer grows before it
 * is mapped, while it holds nothing to keep. */
static void open_palettes(int needed)
{
    gfx.palette_store = GFX_PALETTES_STAGED;
    if (gfx.frame.naive || gfx.frame.cpu_skinning)
        return;
    if (needed > gfx.palette_buffer_matrices) {
        gfx.palette_buffer_matrices = doubled_until(gfx.palette_buffer_matrices, needed);
        ++gfx.stats.buffer_grows;
        glBindBuffer(GL_TEXTURE_BUFFER, gfx.palette_buffer);
        glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)palette_bytes(gfx.palette_buffer_matrices), NULL,
                     GL_STREAM_DRAW);
        glBindBuffer(GL_TEXTURE_BUFFER, 0);
    }
    if (map_palettes(0))
        gfx.palette_store = GFX_PALETTES_MAPPED;
}

/* A bigger palette_buffer holding the first `kept` matrices of the old one, copied on the GPU (the old
 * one's mapping is write-only: never read). The texture buffer follows the new buffer object. */
static void move_palettes_to_bigger_buffer(int kept)
{
    GLuint bigger = 0;
    glGenBuffers(1, &bigger);
    glBindBuffer(GL_COPY_WRITE_BUFFER, bigger);
    glBufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)palette_bytes(gfx.palette_buffer_matrices), NULL, GL_STREAM_DRAW);
    glBindBuffer(GL_COPY_READ_BUFFER, gfx.palette_buffer);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, (GLsizeiptr)palette_bytes(kept));
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    glBindTexture(GL_TEXTURE_BUFFER, gfx.palette_texture);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, bigger);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glDeleteBuffers(1, &gfx.palette_buffer);
    gfx.palette_buffer = bigger;
}

/* Growth while mapped (a submit past what was reserved): every palette written so far is kept, and the
 * rest of the bigger buffer mapped. Should that mapping fail, the written palettes are read back from
 * the buffer (no longer mapped) into the staging and the frame goes on there. false when the staging
 * cannot grow. */
static bool grow_mapped_palettes(int needed)
{
    int kept = gfx.palette_count;
    unmap_palettes();
    gfx.palette_buffer_matrices = doubled_until(gfx.palette_buffer_matrices, needed);
    ++gfx.stats.buffer_grows;
    if (kept > 0)
        move_palettes_to_bigger_buffer(kept);
    if (map_palettes(kept))
        return true;
    gfx.palette_store = GFX_PALETTES_STAGED;
    if (needed > gfx.palette_capacity && !grow_palettes(needed))
        return false;
    glBindBuffer(GL_TEXTURE_BUFFER, gfx.palette_buffer);
    glGetBufferSubData(GL_TEXTURE_BUFFER, 0, (GLsizeiptr)palette_bytes(kept), gfx.palette_staging);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    return true;
}

/* Room in the frame's palette store for `needed` matrices in all. Growing moves the slots handed out. */
static bool make_palette_room(int needed)
{
    if (gfx.palette_store == GFX_PALETTES_UNOPENED)
        open_palettes(needed);
    if (gfx.palette_store == GFX_PALETTES_MAPPED)
        return needed <= gfx.palette_buffer_matrices || grow_mapped_palettes(needed);
    return needed <= gfx.palette_capacity || grow_palettes(needed);
}

/* Where the frame's matrix `first` is written. */
static mat4 *palette_destination(int first)
{
    if (gfx.palette_store == GFX_PALETTES_MAPPED)
        return (mat4 *)(gfx.palette_mapping + (size_t)(first - gfx.palette_mapping_first) * GFX_FLOATS_PER_MATRIX);
    return (mat4 *)(gfx.palette_staging + (size_t)first * GFX_FLOATS_PER_MATRIX);
}

/* gfx_end_frame, before any draw: the mapping goes back to GL, or the staging is copied in. */
static void close_palettes(gfx_stats *stats)
{
    if (gfx.palette_store == GFX_PALETTES_MAPPED) {
        unmap_palettes();
        stats->palettes_mapped = true;
    } else {
        upload_stream(gfx.palette_buffer, &gfx.palette_buffer_matrices, gfx.palette_capacity,
                      GFX_FLOATS_PER_MATRIX * sizeof(float), gfx.palette_staging, gfx.palette_count);
        stats->palette_bytes_copied += palette_bytes(gfx.palette_count);
    }
    gfx.palette_store = GFX_PALETTES_UNOPENED;
}

/* gfx_begin_frame: a previous frame that was not ended leaves its mapping behind, dropped here. */
static void drop_palettes(void)
{
    if (gfx.palette_store == GFX_PALETTES_MAPPED)
        unmap_palettes();
    gfx.palette_store = GFX_PALETTES_UNOPENED;
    gfx.palettes_lost = false;
}

/* ---- Setup --------------------------------------------------------------------------------------------- */

static void make_ground(void)
{
    const float h = GFX_GROUND_HALF_SIZE;
    const float corners[4][2] = {{-h, -h}, {h, -h}, {-h, h}, {h, h}};
    glGenVertexArrays(1, &gfx.ground_vertex_array);
    glBindVertexArray(gfx.ground_vertex_array);
    glGenBuffers(1, &gfx.ground_vertex_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, gfx.ground_vertex_buffer);
    glBufferData(GL_ARRAY_BUFFER, sizeof corners, corners, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

/* A depth texture compared in the shader (sampler2DShadow, bilinear: four hardware-compared taps per
 * lookup) and the framebuffer that renders into it. Outside the map counts as lit. */
static bool make_shadow_map(diag *err)
{
    glGenTextures(1, &gfx.shadow_texture);
    glBindTexture(GL_TEXTURE_2D, gfx.shadow_texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, gfx.shadow_map_size, gfx.shadow_map_size, 0,
                 GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    glBindTexture(GL_TEXTURE_2D, 0);
    GLint previous = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
    glGenFramebuffers(1, &gfx.shadow_framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, gfx.shadow_framebuffer);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, gfx.shadow_texture, 0);
    glDrawBuffer(GL_NONE);
    glReadBuffer(GL_NONE);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)previous);
    if (status != GL_FRAMEBUFFER_COMPLETE)
        return diag_set(err, "gfx", 0, "the shadow map framebuffer is incomplete (0x%04x)", (unsigned)status);
    return true;
}

bool gfx_setup(const gfx_desc *desc, diag *err)
{
    if (gfx.ready)
        return diag_set(err, "gfx", 0, "gfx_setup called twice without gfx_shutdown");
    gfx_desc d = desc ? *desc : (gfx_desc){0};
    if (d.mesh_capacity < 0 || d.instance_capacity < 0 || d.palette_capacity < 0 || d.debug_line_capacity < 0)
        return diag_set(err, "gfx", 0, "capacities must not be negative");
    if (d.shadow_map_size != 0 && (d.shadow_map_size < 64 || d.shadow_map_size > 8192))
        return diag_set(err, "gfx", 0, "shadow_map_size %d is outside 64..8192", d.shadow_map_size);
    memset(&gfx, 0, sizeof gfx);
    gfx.mesh_capacity = d.mesh_capacity ? d.mesh_capacity : GFX_DEFAULT_MESH_CAPACITY;
    gfx.instance_capacity = d.instance_capacity ? d.instance_capacity : GFX_DEFAULT_INSTANCE_CAPACITY;
    gfx.palette_capacity =
        d.palette_capacity ? d.palette_capacity : gfx.instance_capacity * GFX_DEFAULT_JOINTS_PER_INSTANCE;
    gfx.shadow_map_size = d.shadow_map_size ? d.shadow_map_size : GFX_DEFAULT_SHADOW_MAP_SIZE;

    gfx.meshes = calloc((size_t)gfx.mesh_capacity, sizeof *gfx.meshes);
    gfx.mesh_instance_count = calloc((size_t)gfx.mesh_capacity, sizeof *gfx.mesh_instance_count);
    gfx.mesh_first_instance = calloc((size_t)gfx.mesh_capacity, sizeof *gfx.mesh_first_instance);
    gfx.queued = malloc((size_t)gfx.instance_capacity * sizeof *gfx.queued);
    gfx.instance_staging = malloc((size_t)gfx.instance_capacity * GFX_FLOATS_PER_INSTANCE * sizeof(float));
    gfx.palette_staging = malloc((size_t)gfx.palette_capacity * GFX_FLOATS_PER_MATRIX * sizeof(float));
    if (!gfx.meshes || !gfx.mesh_instance_count || !gfx.mesh_first_instance || !gfx.queued ||
        !gfx.instance_staging || !gfx.palette_staging) {
        gfx.ready = true;
        gfx_shutdown();
        return diag_set(err, "gfx", 0, "out of memory for the per-frame buffers");
    }

    if (!link_programs(err) ||
        !gfx_debug_setup(d.debug_line_capacity ? d.debug_line_capacity : GFX_DEFAULT_DEBUG_LINES, err)) {
        gfx.ready = true;
        gfx_shutdown();
        return false;
    }

    gfx.placeholder_texture = make_placeholder_texture();
    gfx_texture_setup(d.texture_budget_bytes ? d.texture_budget_bytes : GFX_TEXTURE_BUDGET_BYTES);
    make_ground();
    if (!make_shadow_map(err)) {
        gfx.ready = true;
        gfx_shutdown();
        return false;
    }
    GLuint buffers[3];
    glGenBuffers(3, buffers);
    /* The CPU path's buffer starts empty and grows on its first use. */
    gfx.skinned_buffer = make_texture_buffer(buffers[2], 0, GL_R32F, &gfx.skinned_texture);
    GLint texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &texels);
    gfx.max_skinned_vertices = texels / GFX_FLOATS_PER_SKINNED_VERTEX;
    gfx.palette_buffer = make_texture_buffer(
        buffers[0], (GLsizeiptr)gfx.palette_capacity * GFX_FLOATS_PER_MATRIX * (GLsizeiptr)sizeof(float),
        GL_RGBA32F, &gfx.palette_texture);
    gfx.instance_buffer = make_texture_buffer(
        buffers[1], (GLsizeiptr)gfx.instance_capacity * GFX_FLOATS_PER_INSTANCE * (GLsizeiptr)sizeof(float),
        GL_RGBA32F, &gfx.instance_texture);
    gfx.palette_buffer_matrices = gfx.palette_capacity;
    gfx.instance_buffer_instances = gfx.instance_capacity;

    gfx.ready = true;
    const char *errors = gfx_check_errors();
    if (errors) {
        diag_set(err, "gfx", 0, "GL errors during setup: %s", errors);
        gfx_shutdown();
        return false;
    }
    return true;
}

static void release_part(gfx_part *part)
{
    free(part->bind.positions);
    free(part->bind.normals);
    free(part->bind.joints);
    free(part->bind.weights);
    glDeleteVertexArrays(1, &part->vertex_array);
    glDeleteBuffers(1, &part->vertex_buffer);
    glDeleteBuffers(1, &part->index_buffer);
    gfx_texture_release(part->texture_entry);
    part->texture_entry = -1;
}

void gfx_shutdown(void)
{
    if (!gfx.ready)
        return;
    for (int i = 0; gfx.meshes && i < gfx.mesh_capacity; ++i) {
        if (gfx.meshes[i].alive) {
            for (int p = 0; p < gfx.meshes[i].part_count; ++p)
                release_part(&gfx.meshes[i].parts[p]);
            free(gfx.meshes[i].parts);
        }
    }
    /* Deleting name 0 is a no-op in GL, so a half-finished setup is released the same way. */
    for (int k = 0; k < GFX_PROGRAM_COUNT; ++k)
        glDeleteProgram(gfx.programs[k].program);
    gfx_debug_shutdown();
    glDeleteFramebuffers(1, &gfx.shadow_framebuffer);
    glDeleteTextures(1, &gfx.shadow_texture);
    glDeleteTextures(1, &gfx.skinned_texture);
    glDeleteBuffers(1, &gfx.skinned_buffer);
    free(gfx.skinned_staging);
    gfx_texture_shutdown();
    glDeleteTextures(1, &gfx.placeholder_texture);
    glDeleteVertexArrays(1, &gfx.ground_vertex_array);
    glDeleteBuffers(1, &gfx.ground_vertex_buffer);
    glDeleteTextures(1, &gfx.palette_texture);
    glDeleteTextures(1, &gfx.instance_texture);
    glDeleteBuffers(1, &gfx.palette_buffer);
    glDeleteBuffers(1, &gfx.instance_buffer);
    free(gfx.meshes);
    free(gfx.mesh_instance_count);
    free(gfx.mesh_first_instance);
    free(gfx.queued);
    free(gfx.instance_staging);
    free(gfx.palette_staging);
    memset(&gfx, 0, sizeof gfx);
}

/* ---- Meshes --------------------------------------------------------------------------------------------- */

static gfx_mesh_slot *find_mesh(gfx_mesh mesh)
{
    uint32_t slot = (mesh.id & 0xffffu);
    if (!gfx.ready || slot == 0 || (int)slot > gfx.mesh_capacity)
        return NULL;
    gfx_mesh_slot *s = &gfx.meshes[slot - 1];
    return s->alive && s->generation == (uint16_t)(mesh.id >> 16) ? s : NULL;
}

/* Bind-pose vertex data goes into one buffer as consecutive arrays, read as the skin_mesh stores them:
 * no conversion, and joint indices stay integers (glVertexAttribIPointer) so they index the palette
 * exactly. */
static bool upload_part(const skin_mesh *source, const char *texture_path, gfx_part *part, const char *label,
                        const char *path, diag *err, diag_list *warnings)
{
    size_t vertices = (size_t)source->vertex_count;
    size_t position_bytes = vertices * sizeof source->positions[0];
    size_t normal_bytes = vertices * sizeof source->normals[0];
    size_t uv_bytes = vertices * sizeof source->uvs[0];
    size_t joint_bytes = vertices * sizeof source->joints[0];
    size_t weight_bytes = vertices * sizeof source->weights[0];
    size_t normal_offset = position_bytes, uv_offset = normal_offset + normal_bytes;
    size_t joint_offset = uv_offset + uv_bytes, weight_offset = joint_offset + joint_bytes;
    size_t total = weight_offset + weight_bytes;
    if (source->vertex_count > 0 &&
        (!source->positions || !source->normals || !source->uvs || !source->joints || !source->weights))
        return diag_set(err, label, 0, "a skin_mesh with vertices lacks positions, normals, uvs or weights");
    for (int t = 0; t < source->triangle_count; ++t)
        for (int k = 0; k < 3; ++k)
            if (source->triangles[t][k] >= (uint32_t)source->vertex_count)
                return diag_set(err, label, 0, "triangle %d names vertex %u of %d", t,
                                (unsigned)source->triangles[t][k], source->vertex_count);

    part->vertex_count = source->vertex_count;
    part->index_count = 3 * source->triangle_count;
    /* What the CPU skinning path reads, kept here since gfx keeps no pointer into the model. */
    part->bind.vertex_count = source->vertex_count;
    if (vertices > 0) {
        part->bind.positions = malloc(position_bytes);
        part->bind.normals = malloc(normal_bytes);
        part->bind.joints = malloc(joint_bytes);
        part->bind.weights = malloc(weight_bytes);
        if (!part->bind.positions || !part->bind.normals || !part->bind.joints || !part->bind.weights)
            return diag_set(err, label, 0, "out of memory for %d vertices", source->vertex_count);
        memcpy(part->bind.positions, source->positions, position_bytes);
        memcpy(part->bind.normals, source->normals, normal_bytes);
        memcpy(part->bind.joints, source->joints, joint_bytes);
        memcpy(part->bind.weights, source->weights, weight_bytes);
    }
    glGenVertexArrays(1, &part->vertex_array);
    glBindVertexArray(part->vertex_array);
    glGenBuffers(1, &part->vertex_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, part->vertex_buffer);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(total ? total : 1), NULL, GL_STATIC_DRAW);
    if (vertices > 0) {
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)position_bytes, source->positions);
        glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)normal_offset, (GLsizeiptr)normal_bytes, source->normals);
        glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)uv_offset, (GLsizeiptr)uv_bytes, source->uvs);
        glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)joint_offset, (GLsizeiptr)joint_bytes, source->joints);
        glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)weight_offset, (GLsizeiptr)weight_bytes, source->weights);
    }
    glEnableVertexAttribArray(GFX_ATTRIBUTE_POSITION);
    glVertexAttribPointer(GFX_ATTRIBUTE_POSITION, 3, GL_FLOAT, GL_FALSE, 0, (const void *)0);
    glEnableVertexAttribArray(GFX_ATTRIBUTE_NORMAL);
    glVertexAttribPointer(GFX_ATTRIBUTE_NORMAL, 3, GL_FLOAT, GL_FALSE, 0, (const void *)normal_offset);
    glEnableVertexAttribArray(GFX_ATTRIBUTE_UV);
    glVertexAttribPointer(GFX_ATTRIBUTE_UV, 2, GL_FLOAT, GL_FALSE, 0, (const void *)uv_offset);
    glEnableVertexAttribArray(GFX_ATTRIBUTE_JOINTS);
    glVertexAttribIPointer(GFX_ATTRIBUTE_JOINTS, SKIN_MAX_INFLUENCES, GL_UNSIGNED_SHORT, 0,
                           (const void *)joint_offset);
    glEnableVertexAttribArray(GFX_ATTRIBUTE_WEIGHTS);
    glVertexAttribPointer(GFX_ATTRIBUTE_WEIGHTS, SKIN_MAX_INFLUENCES, GL_FLOAT, GL_FALSE, 0,
                          (const void *)weight_offset);

    glGenBuffers(1, &part->index_buffer);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, part->index_buffer);
    size_t index_bytes = (size_t)part->index_count * sizeof(uint32_t);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(index_bytes ? index_bytes : 1),
                 index_bytes ? (const void *)source->triangles : NULL, GL_STATIC_DRAW);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);

    /* Texture problems are reported at the shader statement that names the image, when the file is known. */
    const char *where = path ? path : label;
    int line = path ? source->shader_line : 0;
    part->texture_entry = texture_path ? gfx_texture_acquire(texture_path, where, line, label, warnings) : -1;
    part->texture = gfx_texture_name(part->texture_entry);
    if (!part->texture) {
        if (!texture_path)
            diag_list_add(warnings, where, line, "%s: shader \"%s\" names no image found; using the placeholder",
                          label, source->shader ? source->shader : "");
        part->texture = gfx.placeholder_texture;
    }
    return true;
}

gfx_mesh gfx_make_mesh(const gfx_mesh_desc *desc, diag *err, diag_list *warnings)
{
    const char *label = desc && desc->label ? desc->label : "mesh";
    if (!gfx.ready) {
        diag_set(err, label, 0, "gfx_make_mesh before gfx_setup");
        return (gfx_mesh){0};
    }
    if (!desc || !desc->model) {
        diag_set(err, label, 0, "gfx_make_mesh needs a model");
        return (gfx_mesh){0};
    }
    const model *m = desc->model;
    if (m->skeleton.joint_count <= 0 || m->mesh_count < 0 || (m->mesh_count > 0 && !m->meshes)) {
        diag_set(err, label, 0, "the model has no joints or an inconsistent mesh list");
        return (gfx_mesh){0};
    }
    int slot_index = -1;
    for (int i = 0; i < gfx.mesh_capacity && slot_index < 0; ++i)
        if (!gfx.meshes[i].alive)
            slot_index = i;
    if (slot_index < 0) {
        diag_set(err, label, 0, "all %d mesh slots are in use (gfx_desc.mesh_capacity)", gfx.mesh_capacity);
        return (gfx_mesh){0};
    }
    gfx_mesh_slot *slot = &gfx.meshes[slot_index];
    gfx_part *parts = calloc(m->mesh_count > 0 ? (size_t)m->mesh_count : 1, sizeof *parts);
    if (!parts) {
        diag_set(err, label, 0, "out of memory");
        return (gfx_mesh){0};
    }
    for (int i = 0; i < m->mesh_count; ++i)
        parts[i].texture_entry = -1; /* none acquired yet: what a failure part-way releases */
    int vertex_count = 0;
    for (int i = 0; i < m->mesh_count; ++i) {
        parts[i].first_vertex = vertex_count;
        vertex_count += m->meshes[i].vertex_count;
        const char *texture_path = desc->texture_paths ? desc->texture_paths[i] : m->meshes[i].texture_path;
        if (!upload_part(&m->meshes[i], texture_path, &parts[i], label, desc->path, err, warnings)) {
            for (int k = 0; k <= i; ++k)
                release_part(&parts[k]);
            free(parts);
            return (gfx_mesh){0};
        }
    }
    slot->alive = true;
    slot->joint_count = m->skeleton.joint_count;
    slot->part_count = m->mesh_count;
    slot->vertex_count = vertex_count;
    slot->parts = parts;
    snprintf(slot->label, sizeof slot->label, "%s", label);
    return (gfx_mesh){.id = ((uint32_t)slot->generation << 16) | (uint32_t)(slot_index + 1)};
}

void gfx_destroy_mesh(gfx_mesh mesh)
{
    gfx_mesh_slot *slot = find_mesh(mesh);
    if (!slot) {
        misuse("gfx_destroy_mesh: mesh %u is not alive", (unsigned)mesh.id);
        return;
    }
    for (int p = 0; p < slot->part_count; ++p)
        release_part(&slot->parts[p]);
    free(slot->parts);
    uint16_t generation = (uint16_t)(slot->generation + 1);
    *slot = (gfx_mesh_slot){.generation = generation};
}

int gfx_mesh_joint_count(gfx_mesh mesh)
{
    gfx_mesh_slot *slot = find_mesh(mesh);
    return slot ? slot->joint_count : 0;
}

/* ---- Frames -------------------------------------------------------------------------------------------- */

void gfx_z_up_to_y_up(mat4 out)
{
    glm_mat4_identity(out);
    glm_rotate_x(out, -GLM_PI_2f, out);
}

static bool is_zero3(const vec3 v)
{
    return v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.0f;
}

void gfx_begin_frame(const gfx_frame_desc *desc)
{
    if (!gfx.ready) {
        misuse("gfx_begin_frame before gfx_setup");
        return;
    }
    drop_palettes();
    if (gfx.in_frame)
        misuse("gfx_begin_frame: the previous frame was not ended; its instances are dropped");
    if (!desc || desc->width <= 0 || desc->height <= 0) {
        gfx.in_frame = false;
        misuse("gfx_begin_frame needs a frame desc with a positive width and height");
        return;
    }
    gfx.frame = *desc;
    /* Zero means default, as in every descriptor. */
    if (is_zero3(gfx.frame.light_direction))
        glm_vec3_copy((vec3){-0.45f, -1.0f, -0.35f}, gfx.frame.light_direction);
    if (is_zero3(gfx.frame.light_color))
        glm_vec3_copy((vec3){0.85f, 0.85f, 0.8f}, gfx.frame.light_color);
    if (is_zero3(gfx.frame.ambient_color))
        glm_vec3_copy((vec3){0.28f, 0.3f, 0.34f}, gfx.frame.ambient_color);
    if (gfx.frame.clear_color[3] == 0.0f)
        glm_vec4_copy((vec4){0.72f, 0.78f, 0.85f, 1.0f}, gfx.frame.clear_color);
    if (!(gfx.frame.shadow_radius >= 0.0f))
        gfx.frame.shadow_radius = 0.0f;
    if (gfx.frame.naive)
        gfx.frame.cpu_skinning = false;
    glm_vec3_normalize_to(gfx.frame.light_direction, gfx.light_unit);
    glm_mat4_mul(gfx.frame.projection, gfx.frame.view, gfx.view_projection);
    gfx.instance_count = 0;
    gfx.palette_count = 0;
    gfx.skinned_count = 0;
    gfx.stats.culled = 0;
    gfx.shadows_on = !gfx.frame.no_shadows; /* instance_visible needs to know */
    gfx_debug_begin();
    gfx.in_frame = true;
}

/* Whether anything of an instance can be seen: its box, or (with shadows) the box's shadow on the ground,
 * which lies within the box's corners pushed along the light down to y = 0. Culled when all of those
 * points are outside one plane of the camera's frustum (tested in clip space). Conservative: a box
 * straddling a frustum corner is kept. */
static bool instance_visible(mat4 world, float bounds[2][3])
{
    enum { CORNERS = 8 };
    vec4 points[2 * CORNERS];
    int point_count = 0;
    for (int c = 0; c < CORNERS; ++c) {
        vec4 corner = {bounds[c & 1][0], bounds[(c >> 1) & 1][1], bounds[(c >> 2) & 1][2], 1.0f};
        vec4 world_corner;
        glm_mat4_mulv((vec4 *)world, corner, world_corner);
        glm_mat4_mulv(gfx.view_projection, world_corner, points[point_count++]);
        const float *light = gfx.light_unit;
        if (gfx.shadows_on && light[1] < -1e-3f && world_corner[1] > 0.0f) {
            float along = world_corner[1] / -light[1];
            vec4 on_ground = {world_corner[0] + light[0] * along, 0.0f, world_corner[2] + light[2] * along, 1.0f};
            glm_mat4_mulv(gfx.view_projection, on_ground, points[point_count++]);
        }
    }
    for (int plane = 0; plane < 6; ++plane) {
        int axis = plane / 2;
        float sign = plane % 2 ? -1.0f : 1.0f;
        bool all_outside = true;
        for (int i = 0; i < point_count && all_outside; ++i)
            all_outside = sign * points[i][axis] < -points[i][3];
        if (all_outside)
            return false;
    }
    return true;
}

/* How far the top of a box placed by world stands above world's origin, in world metres (Y up). */
static float bounds_height(mat4 world, float bounds[2][3])
{
    float top = -FLT_MAX;
    for (int c = 0; c < 8; ++c) {
        vec4 corner = {bounds[c & 1][0], bounds[(c >> 1) & 1][1], bounds[(c >> 2) & 1][2], 1.0f};
        vec4 world_corner;
        glm_mat4_mulv(world, corner, world_corner);
        top = fmaxf(top, world_corner[1]);
    }
    return fmaxf(top - world[3][1], 0.0f);
}

static bool has_bounds(float bounds[2][3])
{
    for (int i = 0; i < 6; ++i)
        if (bounds[i / 3][i % 3] != 0.0f)
            return true;
    return false;
}

/* What gfx_submit and gfx_submit_palette share: the checks, culling, room in the buffers (grown when
 * needed) and the queued entry. *destination is where the instance's joint_count matrices go, NULL when
 * it was culled. false on misuse (reported under `caller`'s name). */
static bool queue_instance(const gfx_instance *instance, const char *caller, bool palette_given, mat4 **destination)
{
    *destination = NULL;
    if (!gfx.in_frame)
        return misuse("%s outside gfx_begin_frame/gfx_end_frame", caller);
    if (!instance)
        return misuse("%s: no instance", caller);
    gfx_mesh_slot *slot = find_mesh(instance->mesh);
    if (!slot)
        return misuse("%s: mesh %u is not alive (destroyed, never made, or from before gfx_setup)", caller,
                      (unsigned)instance->mesh.id);
    if (palette_given && !instance->palette)
        return misuse("%s: %s: no palette", caller, slot->label);
    if (instance->joint_count != slot->joint_count)
        return misuse("%s: %s: palette has %d joints, the mesh's skeleton %d", caller, slot->label,
                      instance->joint_count, slot->joint_count);
    if (gfx.frame.naive && slot->joint_count > GFX_NAIVE_MAX_JOINTS)
        return misuse("%s: %s: %d joints, more than the naive path's %d", caller, slot->label,
                      slot->joint_count, GFX_NAIVE_MAX_JOINTS);

    mat4 turn, world;
    gfx_z_up_to_y_up(turn);
    glm_mat4_mul((vec4 *)instance->world, turn, world);
    float bounds[2][3];
    memcpy(bounds, instance->bounds, sizeof bounds);
    if (has_bounds(bounds) && !instance_visible(world, bounds)) {
        ++gfx.stats.culled;
        return true;
    }

    if (gfx.instance_count == gfx.instance_capacity && !grow_instances(gfx.instance_count + 1))
        return misuse("%s: out of memory growing the instance buffer past %d", caller, gfx.instance_capacity);
    if (!make_palette_room(gfx.palette_count + slot->joint_count))
        return misuse("%s: out of memory growing the palette buffer past %d matrices", caller,
                      gfx.palette_capacity);
    if (gfx.frame.cpu_skinning && gfx.skinned_count + slot->vertex_count > gfx.max_skinned_vertices)
        return misuse("%s: %s: the CPU skinning path holds %d vertices a frame (this GL's texture "
                      "buffer limit); %d are queued", caller, slot->label, gfx.max_skinned_vertices,
                      gfx.skinned_count);
    if (gfx.frame.cpu_skinning && gfx.skinned_count + slot->vertex_count > gfx.skinned_capacity &&
        !grow_skinned(gfx.skinned_count + slot->vertex_count))
        return misuse("%s: out of memory growing the CPU skinning buffer past %d vertices", caller,
                      gfx.skinned_capacity);

    gfx_queued_instance *queued = &gfx.queued[gfx.instance_count++];
    queued->mesh_slot = (int)(slot - gfx.meshes);
    queued->first_matrix = gfx.palette_count;
    queued->first_skinned_vertex = gfx.skinned_count;
    glm_mat4_copy(world, queued->world);
    queued->height = has_bounds(bounds) ? bounds_height(world, bounds) : 0.0f;
    bool no_tint = instance->tint[0] == 0.0f && instance->tint[1] == 0.0f && instance->tint[2] == 0.0f &&
                   instance->tint[3] == 0.0f;
    glm_vec4_copy(no_tint ? (vec4){1.0f, 1.0f, 1.0f, 1.0f} : (float *)instance->tint, queued->tint);
    *destination = palette_destination(gfx.palette_count);
    gfx.palette_count += slot->joint_count;
    if (gfx.frame.cpu_skinning)
        gfx.skinned_count += slot->vertex_count;
    return true;
}

bool gfx_submit(const gfx_instance *instance)
{
    mat4 *destination;
    if (!queue_instance(instance, "gfx_submit", true, &destination))
        return false;
    if (destination)
        memcpy(destination, instance->palette, (size_t)instance->joint_count * sizeof(mat4));
    return true;
}

mat4 *gfx_submit_palette(const gfx_instance *instance)
{
    mat4 *destination;
    return queue_instance(instance, "gfx_submit_palette", false, &destination) ? destination : NULL;
}

bool gfx_reserve(int instances, int matrices)
{
    if (!gfx.in_frame)
        return misuse("gfx_reserve outside gfx_begin_frame/gfx_end_frame");
    if (instances < 0 || matrices < 0)
        return misuse("gfx_reserve: %d instances and %d matrices: negative", instances, matrices);
    long long wanted_instances = (long long)gfx.instance_count + instances,
              wanted_matrices = (long long)gfx.palette_count + matrices;
    if (wanted_instances > INT_MAX / 2 || wanted_matrices > INT_MAX / (2 * GFX_FLOATS_PER_MATRIX))
        return misuse("gfx_reserve: %lld instances and %lld matrices in one frame: too many", wanted_instances,
                      wanted_matrices);
    if (wanted_instances > gfx.instance_capacity && !grow_instances((int)wanted_instances))
        return misuse("gfx_reserve: out of memory growing the instance buffer past %d", gfx.instance_capacity);
    if (wanted_matrices > 0 && !make_palette_room((int)wanted_matrices))
        return misuse("gfx_reserve: out of memory growing the palette buffer past %d matrices",
                      gfx.palette_capacity);
    return true;
}

/* Counting sort of the frame's instances by mesh into the GPU layout, so each mesh's instances are
 * contiguous and one draw call covers them. Stable: instances keep their submit order within a mesh. */
static void sort_instances_by_mesh(void)
{
    memset(gfx.mesh_instance_count, 0, (size_t)gfx.mesh_capacity * sizeof *gfx.mesh_instance_count);
    for (int i = 0; i < gfx.instance_count; ++i)
        ++gfx.mesh_instance_count[gfx.queued[i].mesh_slot];
    int first = 0;
    for (int m = 0; m < gfx.mesh_capacity; ++m) {
        gfx.mesh_first_instance[m] = first;
        first += gfx.mesh_instance_count[m];
    }
    /* mesh_first_instance is used as a cursor here and restored below. */
    for (int i = 0; i < gfx.instance_count; ++i) {
        const gfx_queued_instance *q = &gfx.queued[i];
        float *out = gfx.instance_staging + (size_t)gfx.mesh_first_instance[q->mesh_slot]++ * GFX_FLOATS_PER_INSTANCE;
        memcpy(out, q->world, sizeof(mat4));
        memcpy(out + 16, q->tint, sizeof(vec4));
        out[20] = (float)q->first_matrix; /* exact: matrices per frame stay far below 2^24 */
        /* The vertex count can pass 2^24 in a large crowd, so it travels as int bits, not as a value. */
        int32_t first_vertex = q->first_skinned_vertex;
        memcpy(&out[21], &first_vertex, sizeof first_vertex);
        out[22] = out[23] = 0.0f;
    }
    for (int m = 0; m < gfx.mesh_capacity; ++m)
        gfx.mesh_first_instance[m] -= gfx.mesh_instance_count[m];
}

/* The CPU path: every instance's vertices skinned by the reference straight into the upload staging, a
 * block per instance and skin_mesh: its positions, then its normals (the layout the shader reads). */
static void skin_on_cpu(void)
{
    for (int i = 0; i < gfx.instance_count; ++i) {
        const gfx_queued_instance *q = &gfx.queued[i];
        const gfx_mesh_slot *slot = &gfx.meshes[q->mesh_slot];
        const mat4 *palette = (const mat4 *)(gfx.palette_staging + (size_t)q->first_matrix * GFX_FLOATS_PER_MATRIX);
        for (int p = 0; p < slot->part_count; ++p) {
            const gfx_part *part = &slot->parts[p];
            float (*positions)[3] = (float (*)[3])(gfx.skinned_staging + (size_t)(q->first_skinned_vertex +
                                                   part->first_vertex) * GFX_FLOATS_PER_SKINNED_VERTEX);
            pose_skin_cpu(&part->bind, palette, slot->joint_count, positions, positions + part->vertex_count);
        }
    }
}

static void set_lighting_uniforms(const gfx_program *program, mat4 view_projection)
{
    glUniformMatrix4fv(program->view_projection, 1, GL_FALSE, (const float *)view_projection);
    glUniform3fv(program->camera_position, 1, gfx.frame.camera_position);
    glUniform3fv(program->light_direction, 1, gfx.frame.light_direction);
    glUniform3fv(program->light_color, 1, gfx.frame.light_color);
    glUniform3fv(program->ambient_color, 1, gfx.frame.ambient_color);
    if (program->clear_color >= 0)
        glUniform4fv(program->clear_color, 1, gfx.frame.clear_color);
    if (program->shadows_on >= 0) {
        glUniform1i(program->shadows_on, gfx.shadows_on ? 1 : 0);
        glUniformMatrix4fv(program->light_view_projection, 1, GL_FALSE, (const float *)gfx.light_view_projection);
        glUniform1f(program->shadow_texel, 1.0f / (float)gfx.shadow_map_size);
        glUniform1f(program->shadow_normal_offset, 1.5f * gfx.shadow_texel_metres);
    }
}

/* MD5 triangles are clockwise seen from the front (docs/md5-format.md); the Z-up turn and rigid world
 * matrices keep that on screen, so clockwise is GL's front face here. */
static void set_culling(gfx_culling culling)
{
    glFrontFace(GL_CW);
    if (culling == GFX_CULLING_NONE) {
        glDisable(GL_CULL_FACE);
        return;
    }
    glEnable(GL_CULL_FACE);
    glCullFace(culling == GFX_CULLING_FRONT_FACES ? GL_FRONT : GL_BACK);
}

/* shadow_map: false while the shadow map is being drawn (a texture must not be read while written). */
static void bind_frame_textures(bool shadow_map)
{
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_PALETTES);
    glBindTexture(GL_TEXTURE_BUFFER, gfx.palette_texture);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_INSTANCES);
    glBindTexture(GL_TEXTURE_BUFFER, gfx.instance_texture);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_SKINNED_VERTICES);
    glBindTexture(GL_TEXTURE_BUFFER, gfx.skinned_texture);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_SHADOW_MAP);
    glBindTexture(GL_TEXTURE_2D, shadow_map && gfx.shadows_on ? gfx.shadow_texture : 0);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_ALBEDO);
}

/* The batched paths (GPU or CPU skinning): one instanced draw per skin_mesh for all its instances.
 * points: every vertex once as a point (the normals view) instead of the triangles. */
static int draw_batched(const gfx_program *program, mat4 view_projection, bool points)
{
    int draw_calls = 0;
    glUseProgram(program->program);
    set_lighting_uniforms(program, view_projection);
    if (program->normal_length >= 0)
        glUniform1f(program->normal_length, GFX_NORMAL_LENGTH);
    if (program->line_color >= 0)
        glUniform4f(program->line_color, 0.2f, 0.9f, 1.0f, 1.0f);
    for (int m = 0; m < gfx.mesh_capacity; ++m) {
        if (gfx.mesh_instance_count[m] == 0)
            continue;
        const gfx_mesh_slot *slot = &gfx.meshes[m];
        glUniform1i(program->first_instance, gfx.mesh_first_instance[m]);
        for (int p = 0; p < slot->part_count; ++p) {
            const gfx_part *part = &slot->parts[p];
            if (part->index_count == 0)
                continue;
            glUniform1i(program->part_first_vertex, part->first_vertex);
            glUniform1i(program->part_vertex_count, part->vertex_count);
            glBindVertexArray(part->vertex_array);
            glBindTexture(GL_TEXTURE_2D, part->texture);
            if (points)
                glDrawArraysInstanced(GL_POINTS, 0, part->vertex_count, gfx.mesh_instance_count[m]);
            else
                glDrawElementsInstanced(GL_TRIANGLES, part->index_count, GL_UNSIGNED_INT, NULL,
                                        gfx.mesh_instance_count[m]);
            ++draw_calls;
        }
    }
    return draw_calls;
}

/* The naive path: per instance, in submit order, its own uniform uploads and one draw per skin_mesh. */
static int draw_naive(const gfx_program *program, mat4 view_projection, gfx_stats *stats)
{
    int draw_calls = 0;
    glUseProgram(program->program);
    set_lighting_uniforms(program, view_projection);
    for (int i = 0; i < gfx.instance_count; ++i) {
        const gfx_queued_instance *q = &gfx.queued[i];
        const gfx_mesh_slot *slot = &gfx.meshes[q->mesh_slot];
        glUniformMatrix4fv(program->bones, slot->joint_count, GL_FALSE,
                           gfx.palette_staging + (size_t)q->first_matrix * GFX_FLOATS_PER_MATRIX);
        glUniformMatrix4fv(program->world, 1, GL_FALSE, (const float *)q->world);
        glUniform4fv(program->instance_tint, 1, q->tint);
        ++stats->palette_uploads;
        stats->palette_bytes_copied += palette_bytes(slot->joint_count);
        for (int p = 0; p < slot->part_count; ++p) {
            const gfx_part *part = &slot->parts[p];
            if (part->index_count == 0)
                continue;
            glBindVertexArray(part->vertex_array);
            glBindTexture(GL_TEXTURE_2D, part->texture);
            glDrawElements(GL_TRIANGLES, part->index_count, GL_UNSIGNED_INT, NULL);
            ++draw_calls;
        }
    }
    return draw_calls;
}

/* The light's orthographic view of a sphere around the shadowed scene: the frame's shadow_center and
 * shadow_radius, or one fitted around the frame's instances. The radius is rounded up to whole metres
 * and the projection snapped to whole texels, so the shadows of a still scene do not crawl or shimmer
 * while the crowd (and with it the fitted sphere) moves. */
static void fit_light_view_projection(void)
{
    vec3 center;
    float radius = gfx.frame.shadow_radius;
    glm_vec3_copy(gfx.frame.shadow_center, center);
    if (radius == 0.0f) {
        vec3 low = {FLT_MAX, FLT_MAX, FLT_MAX}, high = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
        float tallest = 0.0f;
        for (int i = 0; i < gfx.instance_count; ++i) {
            glm_vec3_minv(low, gfx.queued[i].world[3], low);
            glm_vec3_maxv(high, gfx.queued[i].world[3], high);
            tallest = fmaxf(tallest, gfx.queued[i].height);
        }
        glm_vec3_center(low, high, center);
        radius = 0.5f * glm_vec3_distance(low, high) +
                 fmaxf(GFX_SHADOW_CHARACTER_EXTENT, GFX_SHADOW_HEIGHT_SHARE * tallest);
    }
    radius = fminf(ceilf(radius), GFX_SHADOW_MAX_RADIUS);
    const float *light = gfx.light_unit;
    vec3 eye, up = {0.0f, 1.0f, 0.0f};
    if (fabsf(light[1]) > 0.99f)
        glm_vec3_copy((vec3){1.0f, 0.0f, 0.0f}, up);
    glm_vec3_scale((float *)light, -2.0f * radius, eye);
    glm_vec3_add(eye, center, eye);
    mat4 view, projection;
    glm_lookat(eye, center, up, view);
    glm_ortho(-radius, radius, -radius, radius, 0.0f, 4.0f * radius, projection);
    glm_mat4_mul(projection, view, gfx.light_view_projection);
    vec4 origin;
    glm_mat4_mulv(gfx.light_view_projection, (vec4){0.0f, 0.0f, 0.0f, 1.0f}, origin);
    float half_size = 0.5f * (float)gfx.shadow_map_size;
    projection[3][0] += (roundf(origin[0] * half_size) - origin[0] * half_size) / half_size;
    projection[3][1] += (roundf(origin[1] * half_size) - origin[1] * half_size) / half_size;
    glm_mat4_mul(projection, view, gfx.light_view_projection);
    gfx.shadow_texel_metres = 2.0f * radius / (float)gfx.shadow_map_size;
}

/* The depth pass: the instances drawn from the light, skinned by the same path as the picture, into the
 * shadow map. Returns its draw calls. */
static int draw_shadow_map(gfx_stats *stats)
{
    GLint target = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target);
    glBindFramebuffer(GL_FRAMEBUFFER, gfx.shadow_framebuffer);
    glViewport(0, 0, gfx.shadow_map_size, gfx.shadow_map_size);
    glClearDepth(1.0);
    glClear(GL_DEPTH_BUFFER_BIT);
    /* Slope-scaled offset on top of the shader's normal offset: grazing surfaces need the most. */
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.5f, 2.0f);
    set_culling(gfx.frame.culling);
    int draw_calls;
    if (gfx.frame.naive)
        draw_calls = draw_naive(&gfx.programs[GFX_PROGRAM_NAIVE_DEPTH], gfx.light_view_projection, stats);
    else
        draw_calls = draw_batched(&gfx.programs[gfx.frame.cpu_skinning ? GFX_PROGRAM_CPU_DEPTH : GFX_PROGRAM_DEPTH],
                                  gfx.light_view_projection, false);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)target);
    return draw_calls;
}

void gfx_end_frame(void)
{
    if (!gfx.in_frame) {
        misuse("gfx_end_frame without gfx_begin_frame");
        return;
    }
    gfx.in_frame = false;
    gfx_stats stats = {.buffer_grows = gfx.stats.buffer_grows,
                       .instances = gfx.instance_count,
                       .palette_matrices = gfx.palette_count,
                       .culled = gfx.stats.culled};

    if (!gfx.frame.naive) {
        sort_instances_by_mesh();
        close_palettes(&stats);
        upload_stream(gfx.instance_buffer, &gfx.instance_buffer_instances, gfx.instance_capacity,
                      GFX_FLOATS_PER_INSTANCE * sizeof(float), gfx.instance_staging, gfx.instance_count);
        stats.palette_uploads = gfx.instance_count > 0 ? 1 : 0;
    }
    /* Matrices the driver lost would throw vertices anywhere: better a frame without the characters. */
    stats.palettes_lost = gfx.palettes_lost;
    if (gfx.palettes_lost)
        stats.instances = 0;
    gfx.shadows_on = !gfx.frame.no_shadows && stats.instances > 0;
    if (gfx.frame.cpu_skinning && gfx.instance_count > 0) {
        skin_on_cpu();
        upload_stream(gfx.skinned_buffer, &gfx.skinned_buffer_vertices, gfx.skinned_capacity,
                      GFX_FLOATS_PER_SKINNED_VERTEX * sizeof(float), gfx.skinned_staging, gfx.skinned_count);
        stats.cpu_skinned_vertices = gfx.skinned_count;
    }

    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    if (gfx.shadows_on) {
        fit_light_view_projection();
        bind_frame_textures(false);
        stats.shadow_draw_calls = draw_shadow_map(&stats);
        stats.draw_calls += stats.shadow_draw_calls;
    }

    glViewport(0, 0, gfx.frame.width, gfx.frame.height);
    const float *clear = gfx.frame.clear_color;
    glClearColor(clear[0], clear[1], clear[2], clear[3]);
    glClearDepth(1.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    bind_frame_textures(true);

    if (!gfx.frame.hide_ground) {
        /* Seen from above only, but a camera below the floor should still see where it is: no culling. */
        glDisable(GL_CULL_FACE);
        glUseProgram(gfx.programs[GFX_PROGRAM_GROUND].program);
        set_lighting_uniforms(&gfx.programs[GFX_PROGRAM_GROUND], gfx.view_projection);
        glBindVertexArray(gfx.ground_vertex_array);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
        ++stats.draw_calls;
    }

    if (stats.instances > 0) {
        set_culling(gfx.frame.culling);
        if (gfx.frame.naive)
            stats.draw_calls += draw_naive(&gfx.programs[GFX_PROGRAM_NAIVE], gfx.view_projection, &stats);
        else
            stats.draw_calls += draw_batched(
                &gfx.programs[gfx.frame.cpu_skinning ? GFX_PROGRAM_CPU_SKINNED : GFX_PROGRAM_SKINNED],
                gfx.view_projection, false);
        if (gfx.frame.debug_normals && !gfx.frame.naive)
            stats.draw_calls += draw_batched(
                &gfx.programs[gfx.frame.cpu_skinning ? GFX_PROGRAM_CPU_NORMALS : GFX_PROGRAM_NORMALS],
                gfx.view_projection, true);
    }
    glBindVertexArray(0);
    glUseProgram(0);
    int debug_draw_calls = gfx_debug_draw(gfx.view_projection, &stats.debug_lines, &stats.debug_lines_dropped);
    stats.draw_calls += debug_draw_calls;
    gfx.stats = stats;
}

gfx_stats gfx_frame_stats(void)
{
    gfx_stats stats = gfx.stats;
    gfx_texture_stats(&stats.textures, &stats.textures_loaded, &stats.texture_bytes);
    return stats;
}

/* ---- Checks -------------------------------------------------------------------------------------------- */

bool gfx_capture_skinning(gfx_mesh mesh, int mesh_index, const mat4 *palette, int joint_count,
                          float (*positions)[3], float (*normals)[3], diag *err)
{
    gfx_mesh_slot *slot = find_mesh(mesh);
    if (!slot)
        return diag_set(err, "gfx", 0, "gfx_capture_skinning: mesh %u is not alive", (unsigned)mesh.id);
    if (gfx.in_frame)
        return diag_set(err, slot->label, 0, "gfx_capture_skinning inside a frame would overwrite its palettes");
    if (mesh_index < 0 || mesh_index >= slot->part_count)
        return diag_set(err, slot->label, 0, "gfx_capture_skinning: mesh index %d of %d", mesh_index,
                        slot->part_count);
    if (!palette || joint_count != slot->joint_count || !positions)
        return diag_set(err, slot->label, 0, "gfx_capture_skinning: needs a palette of %d joints and an output",
                        slot->joint_count);
    const gfx_part *part = &slot->parts[mesh_index];
    if (part->vertex_count == 0)
        return true;

    /* The frame's own path: palette and one identity instance through the same texture buffers. */
    if (joint_count > gfx.palette_capacity && !grow_palettes(joint_count))
        return diag_set(err, slot->label, 0, "out of memory");
    memcpy(gfx.palette_staging, palette, (size_t)joint_count * sizeof(mat4));
    float identity_instance[GFX_FLOATS_PER_INSTANCE] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                                        1, 1, 1, 1, 0, 0, 0, 0};
    upload_stream(gfx.palette_buffer, &gfx.palette_buffer_matrices, gfx.palette_capacity,
                  GFX_FLOATS_PER_MATRIX * sizeof(float), gfx.palette_staging, joint_count);
    upload_stream(gfx.instance_buffer, &gfx.instance_buffer_instances, gfx.instance_capacity,
                  GFX_FLOATS_PER_INSTANCE * sizeof(float), identity_instance, 1);

    size_t floats_per_vertex = 6; /* position then normal, interleaved */
    size_t bytes = (size_t)part->vertex_count * floats_per_vertex * sizeof(float);
    float *captured = malloc(bytes);
    if (!captured)
        return diag_set(err, slot->label, 0, "out of memory for %d captured vertices", part->vertex_count);
    GLuint feedback_buffer = 0;
    glGenBuffers(1, &feedback_buffer);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, feedback_buffer);
    glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, (GLsizeiptr)bytes, NULL, GL_STATIC_READ);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, feedback_buffer);

    const gfx_program *skinned = &gfx.programs[GFX_PROGRAM_SKINNED];
    glUseProgram(skinned->program);
    gfx.shadows_on = false;
    set_lighting_uniforms(skinned, gfx.view_projection);
    glUniform1i(skinned->first_instance, 0);
    bind_frame_textures(false);
    glBindVertexArray(part->vertex_array);
    glEnable(GL_RASTERIZER_DISCARD);
    glBeginTransformFeedback(GL_POINTS);
    glDrawArrays(GL_POINTS, 0, part->vertex_count);
    glEndTransformFeedback();
    glDisable(GL_RASTERIZER_DISCARD);
    glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0, (GLsizeiptr)bytes, captured);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, 0);
    glDeleteBuffers(1, &feedback_buffer);
    glBindVertexArray(0);
    glUseProgram(0);

    for (int v = 0; v < part->vertex_count; ++v) {
        const float *vertex = captured + (size_t)v * floats_per_vertex;
        memcpy(positions[v], vertex, 3 * sizeof(float));
        if (normals)
            memcpy(normals[v], vertex + 3, 3 * sizeof(float));
    }
    free(captured);
    const char *errors = gfx_check_errors();
    if (errors)
        return diag_set(err, slot->label, 0, "GL errors while capturing skinning: %s", errors);
    return true;
}
