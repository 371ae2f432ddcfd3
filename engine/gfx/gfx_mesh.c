/* gfx_mesh: see gfx_mesh.h. */
#include "gfx_mesh.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfx_texture.h"

static void release_part(gfx_part *part)
{
    free(part->bind.positions);
    free(part->bind.normals);
    free(part->bind.tangents);
    free(part->bind.joints);
    free(part->bind.weights);
    glDeleteVertexArrays(1, &part->vertex_array);
    glDeleteBuffers(1, &part->vertex_buffer);
    glDeleteBuffers(1, &part->index_buffer);
    gfx_texture_release(part->texture_entry);
    part->texture_entry = -1;
    if (part->normal_map_entry >= 0)
        gfx_texture_release(part->normal_map_entry);
    if (part->specular_map_entry >= 0)
        gfx_texture_release(part->specular_map_entry);
    part->normal_map_entry = part->specular_map_entry = -1;
}

bool gfx_meshes_setup(gfx_meshes *meshes, int capacity)
{
    meshes->slots = calloc((size_t)capacity, sizeof *meshes->slots);
    meshes->capacity = meshes->slots ? capacity : 0;
    return meshes->slots != NULL;
}

void gfx_meshes_shutdown(gfx_meshes *meshes)
{
    for (int i = 0; meshes->slots && i < meshes->capacity; ++i) {
        if (meshes->slots[i].alive) {
            for (int p = 0; p < meshes->slots[i].part_count; ++p)
                release_part(&meshes->slots[i].parts[p]);
            free(meshes->slots[i].parts);
        }
    }
    free(meshes->slots);
    *meshes = (gfx_meshes){0};
}

gfx_mesh_slot *gfx_meshes_find(const gfx_meshes *meshes, gfx_mesh mesh)
{
    uint32_t slot = (mesh.id & 0xffffu);
    if (slot == 0 || (int)slot > meshes->capacity)
        return NULL;
    gfx_mesh_slot *s = &meshes->slots[slot - 1];
    return s->alive && s->generation == (uint16_t)(mesh.id >> 16) ? s : NULL;
}

/* Bind-pose vertex data goes into one buffer as consecutive arrays, read as the skin_mesh stores them:
 * no conversion, and joint indices stay integers (glVertexAttribIPointer) so they index the palette
 * exactly. */
/* Whether every index of `count` triangles names one of `vertex_count` vertices; else err says where. */
static bool triangles_in_range(const uint32_t (*triangles)[3], int count, int vertex_count, int level,
                               const char *label, diag *err)
{
    for (int t = 0; t < count; ++t)
        for (int k = 0; k < 3; ++k)
            if (triangles[t][k] >= (uint32_t)vertex_count)
                return diag_set(err, label, 0, "level %d: triangle %d names vertex %u of %d", level, t,
                                (unsigned)triangles[t][k], vertex_count);
    return true;
}

/* How many of vertex_count vertices the triangles use (skin once skins a whole mesh, so it pays only where
 * a level uses most of it); -1 without memory. */
static int distinct_vertices(const uint32_t (*triangles)[3], int count, int vertex_count)
{
    uint8_t *used = calloc(vertex_count > 0 ? (size_t)vertex_count : 1, 1);
    if (!used)
        return -1;
    int distinct = 0;
    for (int t = 0; t < count; ++t)
        for (int k = 0; k < 3; ++k)
            if (!used[triangles[t][k]]) {
                used[triangles[t][k]] = 1;
                ++distinct;
            }
    free(used);
    return distinct;
}

/* The part's levels one after the other in one index buffer: level 0 the lods' reordered full mesh (or
 * the file's triangles without lods), then each coarser level. */
static bool upload_levels(const skin_mesh *source, const mesh_lod *lod, int level_count, gfx_part *part,
                          const char *label, diag *err)
{
    int total = 0;
    for (int l = 0; l < level_count; ++l) {
        const uint32_t (*triangles)[3] = lod ? (const uint32_t (*)[3])lod->triangles[l] : (const uint32_t (*)[3])source->triangles;
        int count = lod ? lod->triangle_count[l] : source->triangle_count;
        if (count < 0 || (count > 0 && !triangles) || count > INT32_MAX / 3 - total)
            return diag_set(err, label, 0, "level %d: %d triangles cannot be drawn", l, count);
        if (!triangles_in_range(triangles, count, source->vertex_count, l, label, err))
            return false;
        part->level_first_index[l] = total;
        part->level_index_count[l] = 3 * count;
        total += 3 * count;
        part->level_vertex_count[l] = distinct_vertices(triangles, count, source->vertex_count);
        if (part->level_vertex_count[l] < 0)
            return diag_set(err, label, 0, "out of memory for %d vertices", source->vertex_count);
    }
    part->index_count = part->level_index_count[0];
    glGenBuffers(1, &part->index_buffer);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, part->index_buffer);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(total ? (size_t)total * sizeof(uint32_t) : 1), NULL,
                 GL_STATIC_DRAW);
    for (int l = 0; l < level_count; ++l) {
        const void *triangles = lod ? (const void *)lod->triangles[l] : (const void *)source->triangles;
        if (part->level_index_count[l] > 0)
            glBufferSubData(GL_ELEMENT_ARRAY_BUFFER, (GLintptr)((size_t)part->level_first_index[l] * sizeof(uint32_t)),
                            (GLsizeiptr)((size_t)part->level_index_count[l] * sizeof(uint32_t)), triangles);
    }
    return true;
}

/* A map for a part: acquired when it has pixels and the size of the part's image (else said once at the
 * mesh's shader line, and none); -1 for none. */
static int acquire_map(const gfx_image *map, const gfx_image *image, const char *what, const skin_mesh *source,
                       const char *label, const char *path, diag_list *warnings)
{
    if (!map || !map->rgba)
        return -1;
    bool sized = map->width > 0 && map->height > 0 &&
                 (!image || !image->rgba || (map->width == image->width && map->height == image->height));
    if (!sized) {
        diag_list_add(warnings, path ? path : label, path ? source->shader_line : 0,
                      "%s: its %s is %d x %d pixels, its image %d x %d: drawn without it", label, what, map->width,
                      map->height, image && image->rgba ? image->width : 0, image && image->rgba ? image->height : 0);
        return -1;
    }
    return gfx_texture_acquire(map);
}

static bool upload_part(const skin_mesh *source, const mesh_lod *lod, int level_count, const gfx_image *image,
                        const gfx_image *normal_map, const gfx_image *specular_map, gfx_part *part, const char *label,
                        const char *path, diag *err, diag_list *warnings)
{
    size_t vertices = (size_t)source->vertex_count;
    size_t position_bytes = vertices * sizeof source->positions[0];
    size_t normal_bytes = vertices * sizeof source->normals[0];
    size_t uv_bytes = vertices * sizeof source->uvs[0];
    size_t joint_bytes = vertices * sizeof source->joints[0];
    size_t weight_bytes = vertices * sizeof source->weights[0];
    size_t tangent_bytes = source->tangents ? vertices * sizeof source->tangents[0] : 0;
    size_t normal_offset = position_bytes, uv_offset = normal_offset + normal_bytes;
    size_t joint_offset = uv_offset + uv_bytes, weight_offset = joint_offset + joint_bytes;
    size_t tangent_offset = weight_offset + weight_bytes;
    size_t total = tangent_offset + tangent_bytes;
    if (source->vertex_count > 0 &&
        (!source->positions || !source->normals || !source->uvs || !source->joints || !source->weights))
        return diag_set(err, label, 0, "a skin_mesh with vertices lacks positions, normals, uvs or weights");
    if (!triangles_in_range((const uint32_t (*)[3])source->triangles, source->triangle_count, source->vertex_count, 0,
                            label, err))
        return false;

    part->vertex_count = source->vertex_count;
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
        if (source->tangents) {
            part->bind.tangents = malloc(tangent_bytes);
            if (!part->bind.tangents)
                return diag_set(err, label, 0, "out of memory for %d vertices", source->vertex_count);
            memcpy(part->bind.tangents, source->tangents, tangent_bytes);
        }
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
        if (tangent_bytes)
            glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)tangent_offset, (GLsizeiptr)tangent_bytes, source->tangents);
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
    /* A model without tangents reads the attribute's default, (0, 0, 0, 1): no frame, no normal map. */
    if (tangent_bytes) {
        glEnableVertexAttribArray(GFX_ATTRIBUTE_TANGENT);
        glVertexAttribPointer(GFX_ATTRIBUTE_TANGENT, 4, GL_FLOAT, GL_FALSE, 0, (const void *)tangent_offset);
    }

    bool levels_uploaded = upload_levels(source, lod, level_count, part, label, err);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
    if (!levels_uploaded)
        return false;

    /* Pixels that cannot be a texture are reported at the shader statement that names the image. */
    if (image && image->rgba && (image->width <= 0 || image->height <= 0)) {
        diag_list_add(warnings, path ? path : label, path ? source->shader_line : 0,
                      "%s: an image of %d x %d pixels; using the placeholder", label, image->width, image->height);
        image = NULL;
    }
    part->texture_entry = gfx_texture_acquire(image);
    part->texture = gfx_texture_name(part->texture_entry);
    part->normal_map_entry = source->tangents ? acquire_map(normal_map, image, "normal map", source, label, path,
                                                            warnings)
                                              : -1;
    part->specular_map_entry = acquire_map(specular_map, image, "specular map", source, label, path, warnings);
    part->normal_map = part->normal_map_entry >= 0 ? gfx_texture_name(part->normal_map_entry) : 0;
    part->specular_map = part->specular_map_entry >= 0 ? gfx_texture_name(part->specular_map_entry) : 0;
    return true;
}

gfx_mesh gfx_meshes_make(gfx_meshes *meshes, const gfx_mesh_desc *desc, diag *err, diag_list *warnings)
{
    const char *label = desc && desc->label ? desc->label : "mesh";
    if (!desc || !desc->model) {
        diag_set(err, label, 0, "gfx_make_mesh needs a model");
        return (gfx_mesh){0};
    }
    const model *m = desc->model;
    if (m->skeleton.joint_count <= 0 || m->mesh_count < 0 || (m->mesh_count > 0 && !m->meshes)) {
        diag_set(err, label, 0, "the model has no joints or an inconsistent mesh list");
        return (gfx_mesh){0};
    }
    const model_lods *lods = desc->lods;
    if (lods && (lods->mesh_count != m->mesh_count || lods->level_count < 1 || lods->level_count > GFX_LOD_LEVELS ||
                 (lods->mesh_count > 0 && !lods->meshes))) {
        diag_set(err, label, 0, "the levels of detail do not match the model (%d meshes, %d levels)",
                 lods->mesh_count, lods->level_count);
        return (gfx_mesh){0};
    }
    int level_count = lods ? lods->level_count : 1;
    int slot_index = -1;
    for (int i = 0; i < meshes->capacity && slot_index < 0; ++i)
        if (!meshes->slots[i].alive)
            slot_index = i;
    if (slot_index < 0) {
        diag_set(err, label, 0, "all %d mesh slots are in use (gfx_desc.mesh_capacity)", meshes->capacity);
        return (gfx_mesh){0};
    }
    gfx_mesh_slot *slot = &meshes->slots[slot_index];
    gfx_part *parts = calloc(m->mesh_count > 0 ? (size_t)m->mesh_count : 1, sizeof *parts);
    if (!parts) {
        diag_set(err, label, 0, "out of memory");
        return (gfx_mesh){0};
    }
    for (int i = 0; i < m->mesh_count; ++i) /* none acquired yet: what a failure part-way releases */
        parts[i].texture_entry = parts[i].normal_map_entry = parts[i].specular_map_entry = -1;
    int vertex_count = 0;
    for (int i = 0; i < m->mesh_count; ++i) {
        parts[i].first_vertex = vertex_count;
        vertex_count += m->meshes[i].vertex_count;
        const gfx_image *image = desc->images ? &desc->images[i] : NULL;
        const gfx_image *normal_map = desc->normal_maps ? &desc->normal_maps[i] : NULL;
        const gfx_image *specular_map = desc->specular_maps ? &desc->specular_maps[i] : NULL;
        if (!upload_part(&m->meshes[i], lods ? &lods->meshes[i] : NULL, level_count, image, normal_map, specular_map,
                         &parts[i], label, desc->path, err, warnings)) {
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
    slot->level_count = level_count;
    slot->last_is_stand_in = lods && lods->last_is_stand_in && level_count > 1;
    slot->bind_size = 0.0f;
    for (int k = 0; k < 3; ++k)
        slot->bind_size = fmaxf(slot->bind_size, m->bind_bounds[1][k] - m->bind_bounds[0][k]);
    for (int l = 0; l < level_count; ++l) {
        /* Errors must not decrease for the selection's search; a careless producer is clamped here. */
        float error = lods ? lods->error[l] : 0.0f;
        slot->level_error[l] = l == 0 ? 0.0f : fmaxf(isfinite(error) ? error : FLT_MAX, slot->level_error[l - 1]);
        slot->level_triangles[l] = 0;
        slot->level_vertices[l] = 0;
        for (int p = 0; p < m->mesh_count; ++p) {
            slot->level_triangles[l] += parts[p].level_index_count[l] / 3;
            slot->level_vertices[l] += parts[p].level_vertex_count[l];
        }
    }
    snprintf(slot->label, sizeof slot->label, "%s", label);
    return (gfx_mesh){.id = ((uint32_t)slot->generation << 16) | (uint32_t)(slot_index + 1)};
}

bool gfx_meshes_destroy(gfx_meshes *meshes, gfx_mesh mesh)
{
    gfx_mesh_slot *slot = gfx_meshes_find(meshes, mesh);
    if (!slot)
        return false;
    for (int p = 0; p < slot->part_count; ++p)
        release_part(&slot->parts[p]);
    free(slot->parts);
    uint16_t generation = (uint16_t)(slot->generation + 1);
    *slot = (gfx_mesh_slot){.generation = generation};
    return true;
}
