/* gfx_shadow: see gfx_shadow.h. */
#include "gfx_shadow.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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
void gfx_ground_setup(gfx_ground *ground)
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
    *ground = (gfx_ground){0};
    glGenVertexArrays(1, &ground->vertex_array);
    glBindVertexArray(ground->vertex_array);
    glGenBuffers(1, &ground->vertex_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, ground->vertex_buffer);
    glBufferData(GL_ARRAY_BUFFER, GFX_GROUND_GRID_POINTS * 2 * sizeof(float), NULL, GL_DYNAMIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    glGenBuffers(1, &ground->index_buffer);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ground->index_buffer);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof indices, indices, GL_STATIC_DRAW);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

/* Depth textures compared in the shader (sampler2DShadow, bilinear: four hardware-compared texels per
 * tap), the largest and the smaller ones (gfx_shadow_fit.h), each with the framebuffer that renders into
 * it. */
bool gfx_shadow_setup(gfx_shadow *shadow, int map_size, diag *err)
{
    *shadow = (gfx_shadow){.map_size = map_size, .map_levels = 1};
    while (shadow->map_levels < GFX_SHADOW_MAP_LEVELS &&
           gfx_shadow_map_side(shadow->map_size, shadow->map_levels) >= 64)
        ++shadow->map_levels;
    GLint previous = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
    glGenTextures(shadow->map_levels, shadow->textures);
    glGenFramebuffers(shadow->map_levels, shadow->framebuffers);
    GLenum status = GL_FRAMEBUFFER_COMPLETE;
    for (int level = 0; level < shadow->map_levels && status == GL_FRAMEBUFFER_COMPLETE; ++level) {
        int size = gfx_shadow_map_side(shadow->map_size, level);
        glBindTexture(GL_TEXTURE_2D, shadow->textures[level]);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, size, size, 0, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, NULL);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
        glBindFramebuffer(GL_FRAMEBUFFER, shadow->framebuffers[level]);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, shadow->textures[level], 0);
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
static void free_ground_mesh(gfx_ground *ground)
{
    if (ground->tile_count > 0) {
        glDeleteVertexArrays(1, &ground->mesh_vertex_array);
        glDeleteBuffers(1, &ground->mesh_vertex_buffer);
        glDeleteBuffers(1, &ground->mesh_index_buffer);
    }
    free(ground->tile_first);
    free(ground->tile_indices);
    free(ground->tile_box);
    free(ground->draw_counts);
    free((void *)ground->draw_offsets);
    ground->tile_first = ground->tile_indices = NULL;
    ground->tile_box = NULL;
    ground->draw_counts = NULL;
    ground->draw_offsets = NULL;
    ground->tile_count = 0;
    ground->mesh_vertex_array = ground->mesh_vertex_buffer = ground->mesh_index_buffer = 0;
    ground->heights[0] = ground->heights[1] = 0.0f;
}

static bool ground_desc_usable(const gfx_ground_desc *desc, diag *err)
{
    if (!desc->indices || desc->index_count <= 0 || desc->index_count % 3 != 0)
        return diag_set(err, "gfx_set_ground", 0, "%d indices: whole triangles are needed", desc->index_count);
    if (!desc->tiles || desc->tile_count <= 0)
        return diag_set(err, "gfx_set_ground", 0, "no tiles: the index buffer must be cut into at least one");
    for (int v = 0; v < desc->vertex_count; ++v)
        for (int k = 0; k < 3; ++k)
            if (!isfinite(desc->vertices[v].position[k]) || !isfinite(desc->vertices[v].normal[k]))
                return diag_set(err, "gfx_set_ground", 0, "vertex %d is not finite", v);
    for (int i = 0; i < desc->index_count; ++i)
        if (desc->indices[i] >= (uint32_t)desc->vertex_count)
            return diag_set(err, "gfx_set_ground", 0, "index %d is %u, past the %d vertices", i,
                            (unsigned)desc->indices[i], desc->vertex_count);
    for (int t = 0; t < desc->tile_count; ++t) {
        const gfx_ground_tile *tile = &desc->tiles[t];
        bool whole = tile->first_index >= 0 && tile->index_count >= 0 && tile->first_index % 3 == 0 &&
                     tile->index_count % 3 == 0;
        if (!whole || tile->first_index > desc->index_count - tile->index_count)
            return diag_set(err, "gfx_set_ground", 0,
                            "tile %d (indices %d, %d of them) is not whole triangles within the %d indices", t,
                            tile->first_index, tile->index_count, desc->index_count);
    }
    return true;
}

bool gfx_ground_set(gfx_ground *ground, const gfx_ground_desc *desc, diag *err)
{
    if (!desc || desc->vertex_count <= 0 || !desc->vertices) {
        free_ground_mesh(ground);
        return true;
    }
    if (!ground_desc_usable(desc, err))
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
        return diag_set(err, "gfx_set_ground", 0, "out of memory for %d tiles", tiles);
    }
    free_ground_mesh(ground);
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
    ground->tile_first = first;
    ground->tile_indices = count;
    ground->tile_box = box;
    ground->draw_counts = draw_counts;
    ground->draw_offsets = draw_offsets;
    ground->tile_count = tiles;
    ground->heights[0] = low;
    ground->heights[1] = high;

    glGenVertexArrays(1, &ground->mesh_vertex_array);
    glBindVertexArray(ground->mesh_vertex_array);
    glGenBuffers(1, &ground->mesh_vertex_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, ground->mesh_vertex_buffer);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)desc->vertex_count * sizeof *desc->vertices), desc->vertices,
                 GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(gfx_ground_vertex),
                          (const void *)offsetof(gfx_ground_vertex, position));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(gfx_ground_vertex),
                          (const void *)offsetof(gfx_ground_vertex, normal));
    glGenBuffers(1, &ground->mesh_index_buffer);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ground->mesh_index_buffer);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)((size_t)desc->index_count * sizeof *desc->indices),
                 desc->indices, GL_STATIC_DRAW);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return true;
}

void gfx_ground_shutdown(gfx_ground *ground)
{
    free_ground_mesh(ground);
    glDeleteVertexArrays(1, &ground->vertex_array);
    glDeleteBuffers(1, &ground->vertex_buffer);
    glDeleteBuffers(1, &ground->index_buffer);
    *ground = (gfx_ground){0};
}

void gfx_shadow_shutdown(gfx_shadow *shadow)
{
    glDeleteFramebuffers(shadow->map_levels, shadow->framebuffers);
    glDeleteTextures(shadow->map_levels, shadow->textures);
    *shadow = (gfx_shadow){0};
}

void gfx_shadow_begin(gfx_shadow *shadow, bool on)
{
    glm_vec3_copy((vec3){FLT_MAX, FLT_MAX, FLT_MAX}, shadow->casters_low);
    glm_vec3_copy((vec3){-FLT_MAX, -FLT_MAX, -FLT_MAX}, shadow->casters_high);
    shadow->frame = (gfx_frame_shadow){.on = on, .fit = {.empty = true}};
}

void gfx_shadow_add_caster(gfx_shadow *shadow, const vec3 light_unit, float floor, mat4 world,
                           const float bounds[2][3], vec3 own_low, vec3 own_high)
{
    glm_vec3_fill(own_low, FLT_MAX);
    glm_vec3_fill(own_high, -FLT_MAX);
    if (!shadow->frame.on)
        return;
    gfx_shadow_caster_box(world, bounds, light_unit, floor, own_low, own_high);
    glm_vec3_minv(shadow->casters_low, own_low, shadow->casters_low);
    glm_vec3_maxv(shadow->casters_high, own_high, shadow->casters_high);
}

/* The light's view of what the camera sees up to the shadow distance, cut to the casters (or to the
 * frame's shadow sphere when it gives one). An empty fit turns this frame's shadows off: nothing casts
 * into the view. */
void gfx_shadow_fit_frame(gfx_shadow *shadow, const gfx_frame_desc *frame, const vec3 light_unit,
                          const float ground_heights[2])
{
    gfx_shadow_view view = {.viewport_height = frame->height,
                            .distance = frame->shadow_distance > 0.0f ? frame->shadow_distance
                                                                      : GFX_SHADOW_DEFAULT_DISTANCE,
                            .map_size = shadow->map_size,
                            .map_levels = shadow->map_levels,
                            .ground_heights = {ground_heights[0], ground_heights[1]}};
    glm_mat4_copy((vec4 *)frame->view, view.view);
    glm_mat4_copy((vec4 *)frame->projection, view.projection);
    glm_vec3_copy((float *)light_unit, view.light_unit);
    if (frame->shadow_radius > 0.0f) {
        glm_vec3_subs((float *)frame->shadow_center, frame->shadow_radius, view.casters_low);
        glm_vec3_adds((float *)frame->shadow_center, frame->shadow_radius, view.casters_high);
    } else {
        glm_vec3_copy(shadow->casters_low, view.casters_low);
        glm_vec3_copy(shadow->casters_high, view.casters_high);
    }
    gfx_shadow_fit_view(&view, &shadow->frame.fit);
    if (shadow->frame.fit.empty)
        shadow->frame.on = false;
}

GLuint gfx_shadow_map_texture(const gfx_shadow *shadow)
{
    return shadow->frame.on ? shadow->textures[shadow->frame.fit.map_level] : 0;
}

/* The depth pass: the instances drawn from the light, skinned by the same path as the picture, into the
 * fitted part of the fit's shadow map (cleared alone: the rest of the map is neither cleared nor read). */
GLuint gfx_shadow_pass_begin(const gfx_shadow *shadow)
{
    const gfx_shadow_fit *fit = &shadow->frame.fit;
    GLint target = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target);
    glBindFramebuffer(GL_FRAMEBUFFER, shadow->framebuffers[fit->map_level]);
    glViewport(0, 0, fit->map_size, fit->map_size);
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, fit->texels[0], fit->texels[1]);
    glClearDepth(1.0);
    glClear(GL_DEPTH_BUFFER_BIT);
    /* Slope-scaled offset on top of the shader's normal offset: grazing surfaces need the most. */
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.5f, 2.0f);
    return (GLuint)target;
}

void gfx_shadow_pass_end(GLuint target)
{
    glDisable(GL_POLYGON_OFFSET_FILL);
    glDisable(GL_SCISSOR_TEST);
    glBindFramebuffer(GL_FRAMEBUFFER, target);
}

/* One run of tiles drawn with or without the lookup: tile t joins the last run of its kind when its
 * indices follow that run's, so a row of neighbouring tiles is one range. */
static void add_ground_run(const gfx_ground *ground, GLsizei *counts, const void **offsets, int *runs, int tile)
{
    size_t start = (size_t)ground->tile_first[tile] * sizeof(uint32_t);
    if (*runs > 0 && (uintptr_t)offsets[*runs - 1] + (size_t)counts[*runs - 1] * sizeof(uint32_t) == start) {
        counts[*runs - 1] += ground->tile_indices[tile];
        return;
    }
    counts[*runs] = ground->tile_indices[tile];
    offsets[*runs] = (const void *)(uintptr_t)start;
    ++*runs;
}

/* Uneven ground: the tiles that meet the part where shadows may fall with the lookup, the others without,
 * one multi-draw each. */
static int draw_ground_mesh(const gfx_ground *ground, const gfx_programs *programs, const gfx_lighting *lighting,
                            mat4 view_projection)
{
    const int tiles = ground->tile_count;
    GLsizei *shadowed_counts = ground->draw_counts, *lit_counts = ground->draw_counts + tiles;
    const void **shadowed_offsets = ground->draw_offsets, **lit_offsets = ground->draw_offsets + tiles;
    int shadowed = 0, lit = 0;
    const float *shade = lighting->shadow->fit.ground;
    for (int t = 0; t < tiles; ++t) {
        const float *box = ground->tile_box[t];
        bool in_shade = lighting->shadow->on && box[0] <= shade[2] && box[2] >= shade[0] && box[1] <= shade[3] &&
                        box[3] >= shade[1];
        if (in_shade)
            add_ground_run(ground, shadowed_counts, shadowed_offsets, &shadowed, t);
        else
            add_ground_run(ground, lit_counts, lit_offsets, &lit, t);
    }
    glDisable(GL_CULL_FACE);
    glBindVertexArray(ground->mesh_vertex_array);
    int draw_calls = 0;
    if (shadowed > 0) {
        glUseProgram(programs->of[GFX_PROGRAM_GROUND_MESH].program);
        gfx_set_lighting_uniforms(&programs->of[GFX_PROGRAM_GROUND_MESH], view_projection, lighting);
        glMultiDrawElements(GL_TRIANGLES, shadowed_counts, GL_UNSIGNED_INT, shadowed_offsets, shadowed);
        ++draw_calls;
    }
    if (lit > 0) {
        glUseProgram(programs->of[GFX_PROGRAM_GROUND_MESH_LIT].program);
        gfx_set_lighting_uniforms(&programs->of[GFX_PROGRAM_GROUND_MESH_LIT], view_projection, lighting);
        glMultiDrawElements(GL_TRIANGLES, lit_counts, GL_UNSIGNED_INT, lit_offsets, lit);
        ++draw_calls;
    }
    return draw_calls;
}

/* Draw the ground: the cell where shadows may fall with the lookup, the rest without (a shader branch
 * would not spare the lookup on a CPU rasterizer, which runs both sides of it). Returns its draw calls. */
int gfx_ground_draw(const gfx_ground *ground, const gfx_programs *programs, const gfx_lighting *lighting,
                    mat4 view_projection)
{
    if (ground->tile_count > 0)
        return draw_ground_mesh(ground, programs, lighting, view_projection);
    const float h = GFX_GROUND_HALF_SIZE;
    float x[4] = {-h, -h, -h, h}, z[4] = {-h, -h, -h, h};
    if (lighting->shadow->on) {
        const float *shade = lighting->shadow->fit.ground;
        x[1] = glm_clamp(shade[0], -h, h);
        x[2] = glm_clamp(shade[2], x[1], h);
        z[1] = glm_clamp(shade[1], -h, h);
        z[2] = glm_clamp(shade[3], z[1], h);
    }
    float corners[GFX_GROUND_GRID_POINTS][2];
    for (int row = 0; row < 4; ++row)
        for (int column = 0; column < 4; ++column) {
            corners[4 * row + column][0] = x[column];
            corners[4 * row + column][1] = z[row];
        }
    glBindBuffer(GL_ARRAY_BUFFER, ground->vertex_buffer);
    glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof corners, corners);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    /* Seen from above only, but a camera below the floor should still see where it is: no culling. */
    glDisable(GL_CULL_FACE);
    glBindVertexArray(ground->vertex_array);
    int draw_calls = 0;
    if (x[2] > x[1] && z[2] > z[1]) {
        glUseProgram(programs->of[GFX_PROGRAM_GROUND].program);
        gfx_set_lighting_uniforms(&programs->of[GFX_PROGRAM_GROUND], view_projection, lighting);
        glDrawElements(GL_TRIANGLES, GFX_GROUND_SHADOWED_INDICES, GL_UNSIGNED_BYTE, NULL);
        ++draw_calls;
    }
    glUseProgram(programs->of[GFX_PROGRAM_GROUND_LIT].program);
    gfx_set_lighting_uniforms(&programs->of[GFX_PROGRAM_GROUND_LIT], view_projection, lighting);
    glDrawElements(GL_TRIANGLES, GFX_GROUND_LIT_INDICES, GL_UNSIGNED_BYTE,
                   (const void *)(uintptr_t)GFX_GROUND_SHADOWED_INDICES);
    return draw_calls + 1;
}
