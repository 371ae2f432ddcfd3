/* gfx: meshes, textures, per-frame instance batching and drawing. See gfx.h. */
#include "gfx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <GL/glew.h>
#include <SDL_image.h>

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
    GFX_PLACEHOLDER_SIZE = 64,
    GFX_PLACEHOLDER_SQUARE = 8,
    GFX_ERROR_TEXT_MAX = 512,
    GFX_LABEL_MAX = 64,
};

_Static_assert(GFX_NAIVE_MAX_JOINTS == GFX_NAIVE_MAX_JOINTS_TEXT, "the naive shader's palette array size");

/* Half the side of the ground square, metres: larger than any scene the demo shows; the grid fades out
 * well before its edge. */
static const float GFX_GROUND_HALF_SIZE = 60.0f;

/* One skin_mesh on the GPU. */
typedef struct gfx_part {
    GLuint vertex_array;
    GLuint vertex_buffer;
    GLuint index_buffer;
    GLuint texture;
    bool owns_texture;  /* false for the shared placeholder */
    int vertex_count;
    int index_count;
} gfx_part;

typedef struct gfx_mesh_slot {
    bool alive;
    uint16_t generation;  /* bumped on destroy so a stale handle is refused, not silently reused */
    int joint_count;
    int part_count;
    gfx_part *parts;
    char label[GFX_LABEL_MAX];
} gfx_mesh_slot;

/* An instance as submitted, before sorting by mesh. */
typedef struct gfx_queued_instance {
    int mesh_slot;
    int first_matrix;   /* into the frame's palette staging */
    mat4 world;         /* already including the Z-up to Y-up turn */
    vec4 tint;
} gfx_queued_instance;

typedef struct gfx_program {
    GLuint program;
    GLint view_projection, camera_position, light_direction, light_color, ambient_color;
    GLint first_instance, clear_color;
    GLint bones, world, instance_tint; /* the naive program's per-instance uniforms; -1 elsewhere */
} gfx_program;

static struct {
    bool ready;
    bool in_frame;

    gfx_mesh_slot *meshes;
    int mesh_capacity;

    gfx_program skinned, ground, naive;
    GLuint placeholder_texture;
    GLuint ground_vertex_array, ground_vertex_buffer;

    /* Per-frame data: CPU staging and the GPU buffers behind the two texture buffers. Sized at setup;
     * grown (doubling) only when a frame submits more. */
    gfx_queued_instance *queued;
    float *instance_staging;     /* sorted by mesh, GFX_FLOATS_PER_INSTANCE each */
    int instance_capacity;
    int instance_count;
    float *palette_staging;      /* GFX_FLOATS_PER_MATRIX per matrix */
    int palette_capacity;
    int palette_count;
    int *mesh_instance_count;    /* mesh_capacity entries: instances per mesh this frame */
    int *mesh_first_instance;    /* mesh_capacity entries: where each mesh's instances start */
    GLuint palette_buffer, palette_texture;
    GLuint instance_buffer, instance_texture;
    int palette_buffer_matrices;    /* size of the GPU buffers, may lag the CPU capacity until upload */
    int instance_buffer_instances;

    gfx_frame_desc frame;
    mat4 view_projection;
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

/* captured: output names recorded by transform feedback, or NULL. They must be named before linking. */
static bool link_program(gfx_program *out, const char *vertex_source, const char *fragment_source,
                         const char *const *captured, int captured_count, const char *name, diag *err)
{
    GLuint vertex = compile_shader(GL_VERTEX_SHADER, vertex_source, name, err);
    GLuint fragment = vertex ? compile_shader(GL_FRAGMENT_SHADER, fragment_source, name, err) : 0;
    if (!fragment) {
        glDeleteShader(vertex);
        return false;
    }
    GLuint program = glCreateProgram();
    glAttachShader(program, vertex);
    glAttachShader(program, fragment);
    if (captured_count > 0)
        glTransformFeedbackVaryings(program, captured_count, captured, GL_INTERLEAVED_ATTRIBS);
    glLinkProgram(program);
    glDeleteShader(vertex);
    glDeleteShader(fragment);
    GLint linked = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &linked);
    if (!linked) {
        char log[DIAG_MESSAGE_MAX];
        glGetProgramInfoLog(program, sizeof log, NULL, log);
        glDeleteProgram(program);
        return diag_set(err, name, 0, "program does not link: %s", log);
    }
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
    };
    /* Samplers name fixed texture units once; draws only bind textures to those units. */
    glUseProgram(program);
    glUniform1i(glGetUniformLocation(program, "albedo"), GFX_TEXTURE_UNIT_ALBEDO);
    glUniform1i(glGetUniformLocation(program, "palettes"), GFX_TEXTURE_UNIT_PALETTES);
    glUniform1i(glGetUniformLocation(program, "instances"), GFX_TEXTURE_UNIT_INSTANCES);
    glUseProgram(0);
    return true;
}

/* ---- Textures ------------------------------------------------------------------------------------------ */

static void set_texture_sampling(void)
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
    set_texture_sampling();
    glBindTexture(GL_TEXTURE_2D, 0);
    return texture;
}

/* Rows go up as stored (top row first): MD5 uvs have v = 0 at the top of the image, and GL's t = 0 is the
 * first row uploaded, so no flip is needed. 0 when the image cannot be read. */
static GLuint load_texture(const char *path, const char *label, diag_list *warnings)
{
    SDL_Surface *loaded = IMG_Load(path);
    if (!loaded) {
        diag_list_add(warnings, path, 0, "%s: cannot load the texture (%s); using the placeholder", label,
                      IMG_GetError());
        return 0;
    }
    SDL_Surface *rgba = SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_RGBA32, 0);
    SDL_FreeSurface(loaded);
    if (!rgba) {
        diag_list_add(warnings, path, 0, "%s: cannot convert the texture to RGBA (%s); using the placeholder",
                      label, SDL_GetError());
        return 0;
    }
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, rgba->pitch / 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, rgba->w, rgba->h, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba->pixels);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    set_texture_sampling();
    glBindTexture(GL_TEXTURE_2D, 0);
    SDL_FreeSurface(rgba);
    return texture;
}

/* ---- Per-frame buffers --------------------------------------------------------------------------------- */

static GLuint make_texture_buffer(GLuint buffer, GLsizeiptr bytes, GLuint *texture)
{
    glBindBuffer(GL_TEXTURE_BUFFER, buffer);
    glBufferData(GL_TEXTURE_BUFFER, bytes, NULL, GL_STREAM_DRAW);
    glGenTextures(1, texture);
    glBindTexture(GL_TEXTURE_BUFFER, *texture);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, buffer);
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

bool gfx_setup(const gfx_desc *desc, diag *err)
{
    if (gfx.ready)
        return diag_set(err, "gfx", 0, "gfx_setup called twice without gfx_shutdown");
    gfx_desc d = desc ? *desc : (gfx_desc){0};
    if (d.mesh_capacity < 0 || d.instance_capacity < 0 || d.palette_capacity < 0)
        return diag_set(err, "gfx", 0, "capacities must not be negative");
    memset(&gfx, 0, sizeof gfx);
    gfx.mesh_capacity = d.mesh_capacity ? d.mesh_capacity : GFX_DEFAULT_MESH_CAPACITY;
    gfx.instance_capacity = d.instance_capacity ? d.instance_capacity : GFX_DEFAULT_INSTANCE_CAPACITY;
    gfx.palette_capacity =
        d.palette_capacity ? d.palette_capacity : gfx.instance_capacity * GFX_DEFAULT_JOINTS_PER_INSTANCE;

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

    static const char *const captured[] = {GFX_CAPTURED_POSITION, GFX_CAPTURED_NORMAL};
    if (!link_program(&gfx.skinned, gfx_skinned_vertex_source, gfx_skinned_fragment_source, captured, 2,
                      "gfx skinned shader", err) ||
        !link_program(&gfx.ground, gfx_ground_vertex_source, gfx_ground_fragment_source, NULL, 0,
                      "gfx ground shader", err) ||
        !link_program(&gfx.naive, gfx_naive_vertex_source, gfx_skinned_fragment_source, NULL, 0,
                      "gfx naive shader", err)) {
        gfx.ready = true;
        gfx_shutdown();
        return false;
    }

    gfx.placeholder_texture = make_placeholder_texture();
    make_ground();
    GLuint buffers[2];
    glGenBuffers(2, buffers);
    gfx.palette_buffer = make_texture_buffer(
        buffers[0], (GLsizeiptr)gfx.palette_capacity * GFX_FLOATS_PER_MATRIX * (GLsizeiptr)sizeof(float),
        &gfx.palette_texture);
    gfx.instance_buffer = make_texture_buffer(
        buffers[1], (GLsizeiptr)gfx.instance_capacity * GFX_FLOATS_PER_INSTANCE * (GLsizeiptr)sizeof(float),
        &gfx.instance_texture);
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
    glDeleteVertexArrays(1, &part->vertex_array);
    glDeleteBuffers(1, &part->vertex_buffer);
    glDeleteBuffers(1, &part->index_buffer);
    if (part->owns_texture)
        glDeleteTextures(1, &part->texture);
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
    glDeleteProgram(gfx.skinned.program);
    glDeleteProgram(gfx.ground.program);
    glDeleteProgram(gfx.naive.program);
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
static bool upload_part(const skin_mesh *source, gfx_part *part, const char *label, diag *err,
                        diag_list *warnings)
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

    part->texture = source->texture_path ? load_texture(source->texture_path, label, warnings) : 0;
    part->owns_texture = part->texture != 0;
    if (!part->texture) {
        if (!source->texture_path)
            diag_list_add(warnings, label, 0, "mesh shader \"%s\" names no image found; using the placeholder",
                          source->shader ? source->shader : "");
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
    for (int i = 0; i < m->mesh_count; ++i) {
        if (!upload_part(&m->meshes[i], &parts[i], label, err, warnings)) {
            for (int k = 0; k <= i; ++k)
                release_part(&parts[k]);
            free(parts);
            return (gfx_mesh){0};
        }
    }
    slot->alive = true;
    slot->joint_count = m->skeleton.joint_count;
    slot->part_count = m->mesh_count;
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
    glm_mat4_mul(gfx.frame.projection, gfx.frame.view, gfx.view_projection);
    gfx.instance_count = 0;
    gfx.palette_count = 0;
    gfx.in_frame = true;
}

bool gfx_submit(const gfx_instance *instance)
{
    if (!gfx.in_frame)
        return misuse("gfx_submit outside gfx_begin_frame/gfx_end_frame");
    if (!instance)
        return misuse("gfx_submit: no instance");
    gfx_mesh_slot *slot = find_mesh(instance->mesh);
    if (!slot)
        return misuse("gfx_submit: mesh %u is not alive (destroyed, never made, or from before gfx_setup)",
                      (unsigned)instance->mesh.id);
    if (!instance->palette)
        return misuse("gfx_submit: %s: no palette", slot->label);
    if (instance->joint_count != slot->joint_count)
        return misuse("gfx_submit: %s: palette has %d joints, the mesh's skeleton %d", slot->label,
                      instance->joint_count, slot->joint_count);
    if (gfx.frame.naive && slot->joint_count > GFX_NAIVE_MAX_JOINTS)
        return misuse("gfx_submit: %s: %d joints, more than the naive path's %d", slot->label,
                      slot->joint_count, GFX_NAIVE_MAX_JOINTS);
    if (gfx.instance_count == gfx.instance_capacity && !grow_instances(gfx.instance_count + 1))
        return misuse("gfx_submit: out of memory growing the instance buffer past %d", gfx.instance_capacity);
    if (gfx.palette_count + slot->joint_count > gfx.palette_capacity &&
        !grow_palettes(gfx.palette_count + slot->joint_count))
        return misuse("gfx_submit: out of memory growing the palette buffer past %d matrices",
                      gfx.palette_capacity);

    gfx_queued_instance *queued = &gfx.queued[gfx.instance_count++];
    queued->mesh_slot = (int)(slot - gfx.meshes);
    queued->first_matrix = gfx.palette_count;
    mat4 turn;
    gfx_z_up_to_y_up(turn);
    glm_mat4_mul((vec4 *)instance->world, turn, queued->world);
    bool no_tint = instance->tint[0] == 0.0f && instance->tint[1] == 0.0f && instance->tint[2] == 0.0f &&
                   instance->tint[3] == 0.0f;
    glm_vec4_copy(no_tint ? (vec4){1.0f, 1.0f, 1.0f, 1.0f} : (float *)instance->tint, queued->tint);
    memcpy(gfx.palette_staging + (size_t)gfx.palette_count * GFX_FLOATS_PER_MATRIX, instance->palette,
           (size_t)slot->joint_count * sizeof(mat4));
    gfx.palette_count += slot->joint_count;
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
        out[21] = out[22] = out[23] = 0.0f;
    }
    for (int m = 0; m < gfx.mesh_capacity; ++m)
        gfx.mesh_first_instance[m] -= gfx.mesh_instance_count[m];
}

static void set_lighting_uniforms(const gfx_program *program)
{
    glUniformMatrix4fv(program->view_projection, 1, GL_FALSE, (const float *)gfx.view_projection);
    glUniform3fv(program->camera_position, 1, gfx.frame.camera_position);
    glUniform3fv(program->light_direction, 1, gfx.frame.light_direction);
    glUniform3fv(program->light_color, 1, gfx.frame.light_color);
    glUniform3fv(program->ambient_color, 1, gfx.frame.ambient_color);
    if (program->clear_color >= 0)
        glUniform4fv(program->clear_color, 1, gfx.frame.clear_color);
}

/* MD5 triangles are clockwise seen from the front (md5-format.md); the Z-up turn and rigid world
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

static void bind_frame_texture_buffers(void)
{
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_PALETTES);
    glBindTexture(GL_TEXTURE_BUFFER, gfx.palette_texture);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_INSTANCES);
    glBindTexture(GL_TEXTURE_BUFFER, gfx.instance_texture);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_ALBEDO);
}

/* The naive path: per instance, in submit order, its own uniform uploads and one draw per skin_mesh. */
static void draw_naive(gfx_stats *stats)
{
    if (gfx.instance_count == 0)
        return;
    set_culling(gfx.frame.culling);
    glUseProgram(gfx.naive.program);
    set_lighting_uniforms(&gfx.naive);
    glActiveTexture(GL_TEXTURE0 + GFX_TEXTURE_UNIT_ALBEDO);
    for (int i = 0; i < gfx.instance_count; ++i) {
        const gfx_queued_instance *q = &gfx.queued[i];
        const gfx_mesh_slot *slot = &gfx.meshes[q->mesh_slot];
        glUniformMatrix4fv(gfx.naive.bones, slot->joint_count, GL_FALSE,
                           gfx.palette_staging + (size_t)q->first_matrix * GFX_FLOATS_PER_MATRIX);
        glUniformMatrix4fv(gfx.naive.world, 1, GL_FALSE, (const float *)q->world);
        glUniform4fv(gfx.naive.instance_tint, 1, q->tint);
        ++stats->palette_uploads;
        for (int p = 0; p < slot->part_count; ++p) {
            const gfx_part *part = &slot->parts[p];
            if (part->index_count == 0)
                continue;
            glBindVertexArray(part->vertex_array);
            glBindTexture(GL_TEXTURE_2D, part->texture);
            glDrawElements(GL_TRIANGLES, part->index_count, GL_UNSIGNED_INT, NULL);
            ++stats->draw_calls;
        }
    }
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
                       .palette_matrices = gfx.palette_count};

    if (!gfx.frame.naive) {
        sort_instances_by_mesh();
        upload_stream(gfx.palette_buffer, &gfx.palette_buffer_matrices, gfx.palette_capacity,
                      GFX_FLOATS_PER_MATRIX * sizeof(float), gfx.palette_staging, gfx.palette_count);
        upload_stream(gfx.instance_buffer, &gfx.instance_buffer_instances, gfx.instance_capacity,
                      GFX_FLOATS_PER_INSTANCE * sizeof(float), gfx.instance_staging, gfx.instance_count);
        stats.palette_uploads = gfx.instance_count > 0 ? 1 : 0;
    }

    glViewport(0, 0, gfx.frame.width, gfx.frame.height);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    const float *clear = gfx.frame.clear_color;
    glClearColor(clear[0], clear[1], clear[2], clear[3]);
    glClearDepth(1.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

    if (!gfx.frame.hide_ground) {
        /* Seen from above only, but a camera below the floor should still see where it is: no culling. */
        glDisable(GL_CULL_FACE);
        glUseProgram(gfx.ground.program);
        set_lighting_uniforms(&gfx.ground);
        glBindVertexArray(gfx.ground_vertex_array);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
        ++stats.draw_calls;
    }

    if (gfx.frame.naive)
        draw_naive(&stats);
    else if (gfx.instance_count > 0) {
        set_culling(gfx.frame.culling);
        glUseProgram(gfx.skinned.program);
        set_lighting_uniforms(&gfx.skinned);
        bind_frame_texture_buffers();
        for (int m = 0; m < gfx.mesh_capacity; ++m) {
            if (gfx.mesh_instance_count[m] == 0)
                continue;
            const gfx_mesh_slot *slot = &gfx.meshes[m];
            glUniform1i(gfx.skinned.first_instance, gfx.mesh_first_instance[m]);
            for (int p = 0; p < slot->part_count; ++p) {
                const gfx_part *part = &slot->parts[p];
                if (part->index_count == 0)
                    continue;
                glBindVertexArray(part->vertex_array);
                glBindTexture(GL_TEXTURE_2D, part->texture);
                glDrawElementsInstanced(GL_TRIANGLES, part->index_count, GL_UNSIGNED_INT, NULL,
                                        gfx.mesh_instance_count[m]);
                ++stats.draw_calls;
            }
        }
    }
    glBindVertexArray(0);
    glUseProgram(0);
    gfx.stats = stats;
}

gfx_stats gfx_frame_stats(void)
{
    return gfx.stats;
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

    glUseProgram(gfx.skinned.program);
    set_lighting_uniforms(&gfx.skinned);
    glUniform1i(gfx.skinned.first_instance, 0);
    bind_frame_texture_buffers();
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
