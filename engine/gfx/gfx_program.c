/* gfx_program: see gfx_program.h. */
#include "gfx_program.h"

/* A stage from its text in one or two parts (head NULL: one), given to GL one after the other: a shader
 * longer than a C string literal may be (4095 characters) is written as two. */
static GLuint compile_shader(GLenum stage, const char *head, const char *source, const char *name, diag *err)
{
    GLuint shader = glCreateShader(stage);
    const char *parts[2] = {head, source};
    glShaderSource(shader, head ? 2 : 1, head ? parts : &parts[1], NULL);
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

/* See gfx_program.h. */
bool gfx_link_program(GLuint *out, const char *vertex_source, const char *geometry_source,
                      const char *fragment_source, const char *const *captured, int captured_count,
                      const char *name, diag *err)
{
    return gfx_link_program_parts(out, NULL, vertex_source, geometry_source, fragment_source, captured,
                                  captured_count, name, err);
}

bool gfx_link_program_parts(GLuint *out, const char *vertex_head, const char *vertex_source,
                            const char *geometry_source, const char *fragment_source, const char *const *captured,
                            int captured_count, const char *name, diag *err)
{
    const char *sources[3] = {vertex_source, geometry_source, fragment_source};
    const GLenum stages[3] = {GL_VERTEX_SHADER, GL_GEOMETRY_SHADER, GL_FRAGMENT_SHADER};
    GLuint shaders[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
        if (!sources[i])
            continue;
        shaders[i] = compile_shader(stages[i], i == 0 ? vertex_head : NULL, sources[i], name, err);
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

static bool link_program(gfx_program *out, const char *vertex_head, const char *vertex_source,
                         const char *geometry_source, const char *fragment_source, const char *const *captured,
                         int captured_count, const char *name, diag *err)
{
    GLuint program = 0;
    if (!gfx_link_program_parts(&program, vertex_head, vertex_source, geometry_source, fragment_source, captured,
                                captured_count, name, err))
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
        .shadow_extent = glGetUniformLocation(program, "shadow_extent"),
        .shadow_normal_offset = glGetUniformLocation(program, "shadow_normal_offset"),
        .shadows_on = glGetUniformLocation(program, "shadows_on"),
        .part_first_vertex = glGetUniformLocation(program, "part_first_vertex"),
        .part_vertex_count = glGetUniformLocation(program, "part_vertex_count"),
        .captured_layout = glGetUniformLocation(program, "captured_layout"),
        .normal_length = glGetUniformLocation(program, "normal_length"),
        .line_color = glGetUniformLocation(program, "line_color"),
        .use_normal_map = glGetUniformLocation(program, "use_normal_map"),
        .use_specular_map = glGetUniformLocation(program, "use_specular_map"),
        .tangent_frames = glGetUniformLocation(program, "tangent_frames"),
    };
    /* Samplers name fixed texture units once; draws only bind textures to those units. */
    glUseProgram(program);
    glUniform1i(glGetUniformLocation(program, "albedo"), GFX_TEXTURE_UNIT_ALBEDO);
    glUniform1i(glGetUniformLocation(program, "palettes"), GFX_TEXTURE_UNIT_PALETTES);
    glUniform1i(glGetUniformLocation(program, "instances"), GFX_TEXTURE_UNIT_INSTANCES);
    glUniform1i(glGetUniformLocation(program, "skinned_vertices"), GFX_TEXTURE_UNIT_SKINNED_VERTICES);
    glUniform1i(glGetUniformLocation(program, "shadow_map"), GFX_TEXTURE_UNIT_SHADOW_MAP);
    glUniform1i(glGetUniformLocation(program, "normal_map"), GFX_TEXTURE_UNIT_NORMAL_MAP);
    glUniform1i(glGetUniformLocation(program, "specular_map"), GFX_TEXTURE_UNIT_SPECULAR_MAP);
    glUseProgram(0);
    return true;
}

typedef struct gfx_program_spec {
    const char *vertex, *geometry, *fragment, *name;
    const char *vertex_head; /* the vertex stage's first part, or NULL */
} gfx_program_spec;

bool gfx_programs_link(gfx_programs *programs, diag *err)
{
    const gfx_program_spec specs[GFX_PROGRAM_COUNT] = {
        [GFX_PROGRAM_SKINNED] = {gfx_skinned_vertex_source, NULL, gfx_skinned_fragment_source,
                                 "gfx skinned shader", gfx_skinned_vertex_head},
        [GFX_PROGRAM_CPU_SKINNED] = {gfx_cpu_skinned_vertex_source, NULL, gfx_skinned_fragment_source,
                                     "gfx cpu-skinned shader"},
        [GFX_PROGRAM_NAIVE] = {gfx_naive_vertex_source, NULL, gfx_skinned_fragment_source, "gfx naive shader"},
        [GFX_PROGRAM_GROUND] = {gfx_ground_vertex_source, NULL, gfx_ground_fragment_source, "gfx ground shader"},
        [GFX_PROGRAM_GROUND_LIT] = {gfx_ground_vertex_source, NULL, gfx_ground_lit_fragment_source,
                                    "gfx unshadowed ground shader"},
        [GFX_PROGRAM_GROUND_MESH] = {gfx_ground_mesh_vertex_source, NULL, gfx_ground_fragment_source,
                                     "gfx uneven ground shader"},
        [GFX_PROGRAM_GROUND_MESH_LIT] = {gfx_ground_mesh_vertex_source, NULL, gfx_ground_lit_fragment_source,
                                         "gfx unshadowed uneven ground shader"},
        [GFX_PROGRAM_DEPTH] = {gfx_skinned_vertex_source, NULL, gfx_depth_fragment_source, "gfx depth shader",
                               gfx_skinned_vertex_head},
        [GFX_PROGRAM_CPU_DEPTH] = {gfx_cpu_skinned_vertex_source, NULL, gfx_depth_fragment_source,
                                   "gfx cpu-skinned depth shader"},
        [GFX_PROGRAM_NAIVE_DEPTH] = {gfx_naive_vertex_source, NULL, gfx_depth_fragment_source,
                                     "gfx naive depth shader"},
        [GFX_PROGRAM_NORMALS] = {gfx_skinned_vertex_source, gfx_normals_geometry_source,
                                 gfx_normals_fragment_source, "gfx normals shader", gfx_skinned_vertex_head},
        [GFX_PROGRAM_CPU_NORMALS] = {gfx_cpu_skinned_vertex_source, gfx_normals_geometry_source,
                                     gfx_normals_fragment_source, "gfx cpu-skinned normals shader"},
    };
    /* Only the skinning shader's object-space outputs are captured (gfx_capture_skinning). */
    static const char *const captured[] = {GFX_CAPTURED_POSITION, GFX_CAPTURED_NORMAL, GFX_CAPTURED_TANGENT};
    for (int k = 0; k < GFX_PROGRAM_COUNT; ++k) {
        bool capture = k == GFX_PROGRAM_SKINNED;
        if (!link_program(&programs->of[k], specs[k].vertex_head, specs[k].vertex, specs[k].geometry,
                          specs[k].fragment, capture ? captured : NULL, capture ? 3 : 0, specs[k].name, err))
            return false;
    }
    return true;
}

void gfx_programs_delete(gfx_programs *programs)
{
    /* Deleting name 0 is a no-op in GL, so a half-finished setup is released the same way. */
    for (int k = 0; k < GFX_PROGRAM_COUNT; ++k)
        glDeleteProgram(programs->of[k].program);
    *programs = (gfx_programs){0};
}
