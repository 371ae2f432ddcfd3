/* gfx_debug: the debug views' lines (skeletons, bounds boxes), see gfx.h. A fixed-capacity buffer filled
 * between gfx_begin_frame and gfx_end_frame and drawn with one call, over everything else. */
#include <stdlib.h>
#include <string.h>

#include "gfx.h"
#include "gfx_debug.h"
#include "gfx_program.h"
#include "gfx_shaders.h"

typedef struct gfx_line_vertex {
    float position[3];
    float color[4];
} gfx_line_vertex;

static struct {
    bool ready;
    bool in_frame;
    GLuint program;
    GLint view_projection;
    GLuint vertex_array, vertex_buffer;
    gfx_line_vertex *vertices;
    int capacity; /* lines */
    int count;
    int dropped;
} debug;

/* Joint crosses are this long on each axis, metres. */
static const float GFX_DEBUG_JOINT_CROSS = 0.02f;

bool gfx_debug_setup(int line_capacity, diag *err)
{
    memset(&debug, 0, sizeof debug);
    debug.vertices = malloc((size_t)line_capacity * 2 * sizeof *debug.vertices);
    if (!debug.vertices)
        return diag_set(err, "gfx", 0, "out of memory for %d debug lines", line_capacity);
    if (!gfx_link_program(&debug.program, gfx_lines_vertex_source, NULL, gfx_lines_fragment_source, NULL, 0,
                          "gfx debug lines shader", err)) {
        free(debug.vertices);
        debug.vertices = NULL;
        return false;
    }
    debug.view_projection = glGetUniformLocation(debug.program, "view_projection");
    debug.capacity = line_capacity;
    glGenVertexArrays(1, &debug.vertex_array);
    glBindVertexArray(debug.vertex_array);
    glGenBuffers(1, &debug.vertex_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, debug.vertex_buffer);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)line_capacity * 2 * sizeof *debug.vertices), NULL,
                 GL_STREAM_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(gfx_line_vertex),
                          (const void *)offsetof(gfx_line_vertex, position));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(gfx_line_vertex),
                          (const void *)offsetof(gfx_line_vertex, color));
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    debug.ready = true;
    return true;
}

void gfx_debug_shutdown(void)
{
    glDeleteProgram(debug.program);
    glDeleteVertexArrays(1, &debug.vertex_array);
    glDeleteBuffers(1, &debug.vertex_buffer);
    free(debug.vertices);
    memset(&debug, 0, sizeof debug);
}

void gfx_debug_begin(void)
{
    debug.count = 0;
    debug.dropped = 0;
    debug.in_frame = debug.ready;
}

void gfx_debug_line(vec3 from, vec3 to, vec4 color)
{
    if (!debug.in_frame)
        return;
    if (debug.count == debug.capacity) {
        ++debug.dropped;
        return;
    }
    gfx_line_vertex *v = &debug.vertices[2 * debug.count++];
    memcpy(v[0].position, from, sizeof v[0].position);
    memcpy(v[1].position, to, sizeof v[1].position);
    memcpy(v[0].color, color, sizeof v[0].color);
    memcpy(v[1].color, color, sizeof v[1].color);
}

void gfx_debug_cross(vec3 center, float half_size, vec4 color)
{
    for (int axis = 0; axis < 3; ++axis) {
        vec3 a, b;
        glm_vec3_copy(center, a);
        glm_vec3_copy(center, b);
        a[axis] -= half_size;
        b[axis] += half_size;
        gfx_debug_line(a, b, color);
    }
}

/* A model-space (MD5) point placed as gfx places instances: world after the Z-up to Y-up turn. */
static void place(mat4 placement, const float point[3], vec3 out)
{
    glm_mat4_mulv3((vec4 *)placement, (float *)point, 1.0f, out);
}

static void placement_of(mat4 world, mat4 out)
{
    mat4 turn;
    gfx_z_up_to_y_up(turn);
    glm_mat4_mul((vec4 *)world, turn, out);
}

void gfx_debug_box(mat4 world, float bounds[2][3], vec4 color)
{
    mat4 placement;
    placement_of(world, placement);
    vec3 corners[8];
    for (int c = 0; c < 8; ++c) {
        float corner[3] = {bounds[c & 1][0], bounds[(c >> 1) & 1][1], bounds[(c >> 2) & 1][2]};
        place(placement, corner, corners[c]);
    }
    /* Corners differing in exactly one bit share an edge. */
    for (int c = 0; c < 8; ++c)
        for (int bit = 1; bit < 8; bit <<= 1)
            if (!(c & bit))
                gfx_debug_line(corners[c], corners[c | bit], color);
}

void gfx_debug_skeleton(mat4 world, const skeleton *skeleton, const joint_pose *object_pose, vec4 color)
{
    if (!skeleton || !object_pose)
        return;
    mat4 placement;
    placement_of(world, placement);
    for (int j = 0; j < skeleton->joint_count; ++j) {
        vec3 joint;
        place(placement, object_pose[j].position, joint);
        int parent = skeleton->parents[j];
        if (parent >= 0) {
            vec3 parent_joint;
            place(placement, object_pose[parent].position, parent_joint);
            gfx_debug_line(parent_joint, joint, color);
        }
        gfx_debug_cross(joint, GFX_DEBUG_JOINT_CROSS, color);
    }
}

int gfx_debug_draw(mat4 view_projection, int *lines, int *dropped)
{
    *lines = debug.count;
    *dropped = debug.dropped;
    debug.in_frame = false;
    if (debug.count == 0)
        return 0;
    glBindBuffer(GL_ARRAY_BUFFER, debug.vertex_buffer);
    /* Orphan, then fill: the previous frame's draw may still read the old store. */
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)debug.capacity * 2 * sizeof *debug.vertices), NULL,
                 GL_STREAM_DRAW);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)((size_t)debug.count * 2 * sizeof *debug.vertices),
                    debug.vertices);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(debug.program);
    glUniformMatrix4fv(debug.view_projection, 1, GL_FALSE, (const float *)view_projection);
    glBindVertexArray(debug.vertex_array);
    glDrawArrays(GL_LINES, 0, 2 * debug.count);
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_BLEND);
    glEnable(GL_DEPTH_TEST);
    return 1;
}
