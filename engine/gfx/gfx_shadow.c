/* gfx_shadow: see gfx_shadow.h. */
#include "gfx_shadow.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "gfx_bench.h"
#include "gfx_draw.h"

/* Half the side of the ground square, metres: larger than any scene the demo shows; the grid fades out
 * well before its edge. */
static const float GFX_GROUND_HALF_SIZE = 60.0f;

enum {
    GFX_GROUND_GRID_POINTS = 16,   /* 4 x 4 corners of the 3 x 3 cells */
    GFX_GROUND_SHADOWED_INDICES = 6,
    GFX_GROUND_LIT_INDICES = 48,
};

/* The ground as 3 x 3 cells over a 4 x 4 grid of corners (row by row along z): the middle cell is where
 * shadows may fall, drawn with the shadow lookup; the eight around it without. Cells share their
 * corners, so the seams have no cracks. */
static void make_ground(void)
{
    GLubyte indices[GFX_GROUND_SHADOWED_INDICES + GFX_GROUND_LIT_INDICES];
    int used = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (int row = 0; row < 3; ++row)
            for (int column = 0; column < 3; ++column) {
                bool middle = row == 1 && column == 1;
                if (middle != (pass == 0))
                    continue;
                GLubyte corner = (GLubyte)(4 * row + column);
                const GLubyte cell[6] = {corner, (GLubyte)(corner + 1), (GLubyte)(corner + 4),
                                         (GLubyte)(corner + 1), (GLubyte)(corner + 5), (GLubyte)(corner + 4)};
                for (int k = 0; k < 6; ++k)
                    indices[used++] = cell[k];
            }
    glGenVertexArrays(1, &gfx.ground_vertex_array);
    glBindVertexArray(gfx.ground_vertex_array);
    glGenBuffers(1, &gfx.ground_vertex_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, gfx.ground_vertex_buffer);
    glBufferData(GL_ARRAY_BUFFER, GFX_GROUND_GRID_POINTS * 2 * sizeof(float), NULL, GL_DYNAMIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    glGenBuffers(1, &gfx.ground_index_buffer);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, gfx.ground_index_buffer);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof indices, indices, GL_STATIC_DRAW);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

/* Depth textures compared in the shader (sampler2DShadow, bilinear: four hardware-compared texels per
 * tap), the largest and the smaller ones (gfx_shadow_fit.h), each with the framebuffer that renders into it; the ground they
 * fall on. */
bool gfx_shadow_setup(diag *err)
{
    make_ground();
    gfx.shadow_map_levels = 1;
    while (gfx.shadow_map_levels < GFX_SHADOW_MAP_LEVELS &&
           gfx_shadow_map_side(gfx.shadow_map_size, gfx.shadow_map_levels) >= 64)
        ++gfx.shadow_map_levels;
    GLint previous = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
    glGenTextures(gfx.shadow_map_levels, gfx.shadow_textures);
    glGenFramebuffers(gfx.shadow_map_levels, gfx.shadow_framebuffers);
    GLenum status = GL_FRAMEBUFFER_COMPLETE;
    for (int level = 0; level < gfx.shadow_map_levels && status == GL_FRAMEBUFFER_COMPLETE; ++level) {
        int size = gfx_shadow_map_side(gfx.shadow_map_size, level);
        glBindTexture(GL_TEXTURE_2D, gfx.shadow_textures[level]);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, size, size, 0, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, NULL);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
        glBindFramebuffer(GL_FRAMEBUFFER, gfx.shadow_framebuffers[level]);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, gfx.shadow_textures[level], 0);
        glDrawBuffer(GL_NONE);
        glReadBuffer(GL_NONE);
        status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)previous);
    if (status != GL_FRAMEBUFFER_COMPLETE)
        return diag_set(err, "gfx", 0, "the shadow map framebuffer is incomplete (0x%04x)", (unsigned)status);
    return true;
}

/* Back to the flat ground: the uneven one's buffers and tables go. */
static void free_ground_mesh(void)
{
    if (gfx.ground_tile_count > 0) {
        glDeleteVertexArrays(1, &gfx.ground_mesh_vertex_array);
        glDeleteBuffers(1, &gfx.ground_mesh_vertex_buffer);
        glDeleteBuffers(1, &gfx.ground_mesh_index_buffer);
    }
    free(gfx.ground_tile_first);
    free(gfx.ground_tile_indices);
    free(gfx.ground_tile_box);
    free(gfx.ground_draw_counts);
    free((void *)gfx.ground_draw_offsets);
    gfx.ground_tile_first = gfx.ground_tile_indices = NULL;
    gfx.ground_tile_box = NULL;
    gfx.ground_draw_counts = NULL;
    gfx.ground_draw_offsets = NULL;
    gfx.ground_tile_count = 0;
    gfx.ground_mesh_vertex_array = gfx.ground_mesh_vertex_buffer = gfx.ground_mesh_index_buffer = 0;
    gfx.ground_heights[0] = gfx.ground_heights[1] = 0.0f;
}

static bool ground_desc_usable(const gfx_ground_desc *desc)
{
    if (!desc->indices || desc->index_count <= 0 || desc->index_count % 3 != 0)
        return gfx_misuse("gfx_set_ground: %d indices: whole triangles are needed", desc->index_count);
    if (!desc->tiles || desc->tile_count <= 0)
        return gfx_misuse("gfx_set_ground: no tiles: the index buffer must be cut into at least one");
    for (int v = 0; v < desc->vertex_count; ++v)
        for (int k = 0; k < 3; ++k)
            if (!isfinite(desc->vertices[v].position[k]) || !isfinite(desc->vertices[v].normal[k]))
                return gfx_misuse("gfx_set_ground: vertex %d is not finite", v);
    for (int i = 0; i < desc->index_count; ++i)
        if (desc->indices[i] >= (uint32_t)desc->vertex_count)
            return gfx_misuse("gfx_set_ground: index %d is %u, past the %d vertices", i, (unsigned)desc->indices[i],
                              desc->vertex_count);
    for (int t = 0; t < desc->tile_count; ++t) {
        const gfx_ground_tile *tile = &desc->tiles[t];
        bool whole = tile->first_index >= 0 && tile->index_count >= 0 && tile->first_index % 3 == 0 &&
                     tile->index_count % 3 == 0;
        if (!whole || tile->first_index > desc->index_count - tile->index_count)
            return gfx_misuse("gfx_set_ground: tile %d (indices %d, %d of them) is not whole triangles within the %d "
                              "indices", t, tile->first_index, tile->index_count, desc->index_count);
    }
    return true;
}

bool gfx_set_ground(const gfx_ground_desc *desc)
{
    if (!gfx.ready)
        return gfx_misuse("gfx_set_ground before gfx_setup");
    if (!desc || desc->vertex_count <= 0 || !desc->vertices) {
        free_ground_mesh();
        return true;
    }
    if (!ground_desc_usable(desc))
        return false;
    int tiles = desc->tile_count;
    int *first = malloc((size_t)tiles * sizeof *first), *count = malloc((size_t)tiles * sizeof *count);
    float(*box)[4] = malloc((size_t)tiles * sizeof *box);
    GLsizei *draw_counts = malloc(2 * (size_t)tiles * sizeof *draw_counts);
    const void **draw_offsets = malloc(2 * (size_t)tiles * sizeof *draw_offsets);
    if (!first || !count || !box || !draw_counts || !draw_offsets) {
        free(first);
        free(count);
        free(box);
        free(draw_counts);
        free((void *)draw_offsets);
        return gfx_misuse("gfx_set_ground: out of memory for %d tiles", tiles);
    }
    free_ground_mesh();
    float low = FLT_MAX, high = -FLT_MAX;
    for (int v = 0; v < desc->vertex_count; ++v) {
        low = fminf(low, desc->vertices[v].position[1]);
        high = fmaxf(high, desc->vertices[v].position[1]);
    }
    for (int t = 0; t < tiles; ++t) {
        first[t] = desc->tiles[t].first_index;
        count[t] = desc->tiles[t].index_count;
        float tile_box[4] = {FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX};
        for (int i = first[t]; i < first[t] + count[t]; ++i) {
            const float *p = desc->vertices[desc->indices[i]].position;
            tile_box[0] = fminf(tile_box[0], p[0]);
            tile_box[1] = fminf(tile_box[1], p[2]);
            tile_box[2] = fmaxf(tile_box[2], p[0]);
            tile_box[3] = fmaxf(tile_box[3], p[2]);
        }
        memcpy(box[t], tile_box, sizeof tile_box);
    }
    gfx.ground_tile_first = first;
    gfx.ground_tile_indices = count;
    gfx.ground_tile_box = box;
    gfx.ground_draw_counts = draw_counts;
    gfx.ground_draw_offsets = draw_offsets;
    gfx.ground_tile_count = tiles;
    gfx.ground_heights[0] = low;
    gfx.ground_heights[1] = high;

    glGenVertexArrays(1, &gfx.ground_mesh_vertex_array);
    glBindVertexArray(gfx.ground_mesh_vertex_array);
    glGenBuffers(1, &gfx.ground_mesh_vertex_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, gfx.ground_mesh_vertex_buffer);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)desc->vertex_count * sizeof *desc->vertices), desc->vertices,
                 GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(gfx_ground_vertex),
                          (const void *)offsetof(gfx_ground_vertex, position));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(gfx_ground_vertex),
                          (const void *)offsetof(gfx_ground_vertex, normal));
    glGenBuffers(1, &gfx.ground_mesh_index_buffer);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, gfx.ground_mesh_index_buffer);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)((size_t)desc->index_count * sizeof *desc->indices),
                 desc->indices, GL_STATIC_DRAW);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return true;
}

void gfx_shadow_shutdown(void)
{
    free_ground_mesh();
    glDeleteFramebuffers(gfx.shadow_map_levels, gfx.shadow_framebuffers);
    glDeleteTextures(gfx.shadow_map_levels, gfx.shadow_textures);
    glDeleteVertexArrays(1, &gfx.ground_vertex_array);
    glDeleteBuffers(1, &gfx.ground_vertex_buffer);
    glDeleteBuffers(1, &gfx.ground_index_buffer);
}

void gfx_shadow_begin(void)
{
    glm_vec3_copy((vec3){FLT_MAX, FLT_MAX, FLT_MAX}, gfx.casters_low);
    glm_vec3_copy((vec3){-FLT_MAX, -FLT_MAX, -FLT_MAX}, gfx.casters_high);
    gfx.shadow_fit = (gfx_shadow_fit){.empty = true};
}

void gfx_shadow_add_caster(mat4 world, const float bounds[2][3], vec3 own_low, vec3 own_high)
{
    glm_vec3_fill(own_low, FLT_MAX);
    glm_vec3_fill(own_high, -FLT_MAX);
    if (!gfx.shadows_on)
        return;
    gfx_shadow_caster_box(world, bounds, gfx.light_unit, gfx.ground_heights[0], own_low, own_high);
    glm_vec3_minv(gfx.casters_low, own_low, gfx.casters_low);
    glm_vec3_maxv(gfx.casters_high, own_high, gfx.casters_high);
}

/* The light's view of what the camera sees up to the shadow distance, cut to the casters (or to the
 * frame's shadow sphere when it gives one). An empty fit turns this frame's shadows off: nothing casts
 * into the view. */
void gfx_shadow_fit_frame(void)
{
    gfx_shadow_view view = {.viewport_height = gfx.frame.height,
                            .distance = gfx.frame.shadow_distance > 0.0f ? gfx.frame.shadow_distance
                                                                         : GFX_SHADOW_DEFAULT_DISTANCE,
                            .map_size = gfx.shadow_map_size,
                            .map_levels = gfx.shadow_map_levels,
                            .ground_heights = {gfx.ground_heights[0], gfx.ground_heights[1]}};
    glm_mat4_copy(gfx.frame.view, view.view);
    glm_mat4_copy(gfx.frame.projection, view.projection);
    glm_vec3_copy(gfx.light_unit, view.light_unit);
    if (gfx.frame.shadow_radius > 0.0f) {
        glm_vec3_subs(gfx.frame.shadow_center, gfx.frame.shadow_radius, view.casters_low);
        glm_vec3_adds(gfx.frame.shadow_center, gfx.frame.shadow_radius, view.casters_high);
    } else {
        glm_vec3_copy(gfx.casters_low, view.casters_low);
        glm_vec3_copy(gfx.casters_high, view.casters_high);
    }
    gfx_shadow_fit_view(&view, &gfx.shadow_fit);
    if (gfx.shadow_fit.empty)
        gfx.shadows_on = false;
}

/* The depth pass: the instances drawn from the light, skinned by the same path as the picture, into the
 * fitted part of the fit's shadow map (cleared alone: the rest of the map is neither cleared nor read).
 * Returns its draw calls. */
int gfx_shadow_draw(gfx_stats *stats)
{
    GLint target = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target);
    glBindFramebuffer(GL_FRAMEBUFFER, gfx.shadow_framebuffers[gfx.shadow_fit.map_level]);
    glViewport(0, 0, gfx.shadow_fit.map_size, gfx.shadow_fit.map_size);
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, gfx.shadow_fit.texels[0], gfx.shadow_fit.texels[1]);
    glClearDepth(1.0);
    glClear(GL_DEPTH_BUFFER_BIT);
    /* Slope-scaled offset on top of the shader's normal offset: grazing surfaces need the most. */
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.5f, 2.0f);
    gfx_set_culling(gfx.frame.culling);
    int draw_calls;
    if (gfx.naive)
        draw_calls = gfx_draw_naive(&gfx.programs[GFX_PROGRAM_NAIVE_DEPTH], gfx.shadow_fit.light_view_projection,
                                    stats);
    else
        draw_calls = gfx_draw_batched(&gfx.programs[gfx.frame.cpu_skinning ? GFX_PROGRAM_CPU_DEPTH : GFX_PROGRAM_DEPTH],
                                  gfx.captured_vertices > 0 ? &gfx.programs[GFX_PROGRAM_CPU_DEPTH] : NULL,
                                  gfx.shadow_fit.light_view_projection, false, true);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glDisable(GL_SCISSOR_TEST);
    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)target);
    return draw_calls;
}

/* One run of tiles drawn with or without the lookup: tile t joins the last run of its kind when its
 * indices follow that run's, so a row of neighbouring tiles is one range. */
static void add_ground_run(GLsizei *counts, const void **offsets, int *runs, int tile)
{
    size_t start = (size_t)gfx.ground_tile_first[tile] * sizeof(uint32_t);
    if (*runs > 0 && (uintptr_t)offsets[*runs - 1] + (size_t)counts[*runs - 1] * sizeof(uint32_t) == start) {
        counts[*runs - 1] += gfx.ground_tile_indices[tile];
        return;
    }
    counts[*runs] = gfx.ground_tile_indices[tile];
    offsets[*runs] = (const void *)(uintptr_t)start;
    ++*runs;
}

/* Uneven ground: the tiles that meet the part where shadows may fall with the lookup, the others without,
 * one multi-draw each. */
static int draw_ground_mesh(void)
{
    const int tiles = gfx.ground_tile_count;
    GLsizei *shadowed_counts = gfx.ground_draw_counts, *lit_counts = gfx.ground_draw_counts + tiles;
    const void **shadowed_offsets = gfx.ground_draw_offsets, **lit_offsets = gfx.ground_draw_offsets + tiles;
    int shadowed = 0, lit = 0;
    const float *shade = gfx.shadow_fit.ground;
    for (int t = 0; t < tiles; ++t) {
        const float *box = gfx.ground_tile_box[t];
        bool in_shade = gfx.shadows_on && box[0] <= shade[2] && box[2] >= shade[0] && box[1] <= shade[3] &&
                        box[3] >= shade[1];
        if (in_shade)
            add_ground_run(shadowed_counts, shadowed_offsets, &shadowed, t);
        else
            add_ground_run(lit_counts, lit_offsets, &lit, t);
    }
    glDisable(GL_CULL_FACE);
    glBindVertexArray(gfx.ground_mesh_vertex_array);
    int draw_calls = 0;
    if (shadowed > 0) {
        glUseProgram(gfx.programs[GFX_PROGRAM_GROUND_MESH].program);
        gfx_set_lighting_uniforms(&gfx.programs[GFX_PROGRAM_GROUND_MESH], gfx.view_projection);
        glMultiDrawElements(GL_TRIANGLES, shadowed_counts, GL_UNSIGNED_INT, shadowed_offsets, shadowed);
        ++draw_calls;
    }
    if (lit > 0) {
        glUseProgram(gfx.programs[GFX_PROGRAM_GROUND_MESH_LIT].program);
        gfx_set_lighting_uniforms(&gfx.programs[GFX_PROGRAM_GROUND_MESH_LIT], gfx.view_projection);
        glMultiDrawElements(GL_TRIANGLES, lit_counts, GL_UNSIGNED_INT, lit_offsets, lit);
        ++draw_calls;
    }
    return draw_calls;
}

/* Draw the ground: the cell where shadows may fall with the lookup, the rest without (a shader branch
 * would not spare the lookup on a CPU rasterizer, which runs both sides of it). Returns its draw calls. */
int gfx_shadow_draw_ground(void)
{
    if (gfx.ground_tile_count > 0)
        return draw_ground_mesh();
    const float h = GFX_GROUND_HALF_SIZE;
    float x[4] = {-h, -h, -h, h}, z[4] = {-h, -h, -h, h};
    if (gfx.shadows_on) {
        const float *ground = gfx.shadow_fit.ground;
        x[1] = glm_clamp(ground[0], -h, h);
        x[2] = glm_clamp(ground[2], x[1], h);
        z[1] = glm_clamp(ground[1], -h, h);
        z[2] = glm_clamp(ground[3], z[1], h);
    }
    float corners[GFX_GROUND_GRID_POINTS][2];
    for (int row = 0; row < 4; ++row)
        for (int column = 0; column < 4; ++column) {
            corners[4 * row + column][0] = x[column];
            corners[4 * row + column][1] = z[row];
        }
    glBindBuffer(GL_ARRAY_BUFFER, gfx.ground_vertex_buffer);
    glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof corners, corners);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    /* Seen from above only, but a camera below the floor should still see where it is: no culling. */
    glDisable(GL_CULL_FACE);
    glBindVertexArray(gfx.ground_vertex_array);
    int draw_calls = 0;
    if (x[2] > x[1] && z[2] > z[1]) {
        glUseProgram(gfx.programs[GFX_PROGRAM_GROUND].program);
        gfx_set_lighting_uniforms(&gfx.programs[GFX_PROGRAM_GROUND], gfx.view_projection);
        glDrawElements(GL_TRIANGLES, GFX_GROUND_SHADOWED_INDICES, GL_UNSIGNED_BYTE, NULL);
        ++draw_calls;
    }
    glUseProgram(gfx.programs[GFX_PROGRAM_GROUND_LIT].program);
    gfx_set_lighting_uniforms(&gfx.programs[GFX_PROGRAM_GROUND_LIT], gfx.view_projection);
    glDrawElements(GL_TRIANGLES, GFX_GROUND_LIT_INDICES, GL_UNSIGNED_BYTE,
                   (const void *)(uintptr_t)GFX_GROUND_SHADOWED_INDICES);
    return draw_calls + 1;
}
