/* gfx_mesh: a model's skinned meshes on the GPU (gfx_make_mesh): per skin_mesh its static vertex and index
 * buffers, its texture (shared through gfx_texture) and the bind-pose copy the CPU skinning path reads, in
 * slots named by generation-checked handles. Owns the mesh slots (gfx_meshes); gfx.c holds them and
 * forwards gfx.h's mesh functions here. Calls gfx_texture only; knows nothing of files or frames. */
#ifndef MARIONETTE_GFX_MESH_H
#define MARIONETTE_GFX_MESH_H

#include "gfx_internal.h"

/* One skin_mesh on the GPU. */
typedef struct gfx_part {
    GLuint vertex_array;
    GLuint vertex_buffer;
    GLuint index_buffer;
    GLuint texture;
    int texture_entry;  /* in the shared texture table (gfx_texture.c); -1 for the placeholder */
    /* Its maps (gfx_mesh_desc.normal_maps, specular_maps): textures of the shared table, or entry -1 and
     * texture 0 for none (drawn without: flat, and the default highlight). */
    GLuint normal_map, specular_map;
    int normal_map_entry, specular_map_entry;
    int vertex_count;
    int index_count;    /* level 0's (the whole mesh), at the start of the index buffer */
    /* Each level's triangles lie one after the other in the index buffer. */
    int level_first_index[GFX_LOD_LEVELS];
    int level_index_count[GFX_LOD_LEVELS];
    int level_vertex_count[GFX_LOD_LEVELS]; /* distinct vertices each level's triangles use */
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
    int level_count;   /* 1..GFX_LOD_LEVELS */
    bool last_is_stand_in;
    float bind_size;   /* the largest side of the model's bind box, model units: its height on screen decides
                        * the stand-in */
    float level_error[GFX_LOD_LEVELS];    /* model units, non-decreasing (model_lods.error) */
    int level_triangles[GFX_LOD_LEVELS];  /* every part together */
    int level_vertices[GFX_LOD_LEVELS];   /* distinct vertices used, every part together */
    char label[GFX_LABEL_MAX];
} gfx_mesh_slot;

/* The mesh slots: a mesh handle's low 16 bits name slot + 1, its high 16 bits the slot's generation. The
 * frame's groups are numbered by slot (group = slot * GFX_LOD_LEVELS + level). */
typedef struct gfx_meshes {
    gfx_mesh_slot *slots;
    int capacity;
} gfx_meshes;

/* capacity empty slots; false when memory runs out. */
bool gfx_meshes_setup(gfx_meshes *meshes, int capacity);
/* Release every live mesh and the slots (gfx_shutdown); safe on a half-made or zeroed gfx_meshes. */
void gfx_meshes_shutdown(gfx_meshes *meshes);
/* The live slot a handle names, or NULL (stale, never made, or no slots). */
gfx_mesh_slot *gfx_meshes_find(const gfx_meshes *meshes, gfx_mesh mesh);
/* gfx_make_mesh's work, once gfx is set up (see gfx.h). */
gfx_mesh gfx_meshes_make(gfx_meshes *meshes, const gfx_mesh_desc *desc, diag *err, diag_list *warnings);
/* Release a live slot's buffers and bump its generation; false (nothing done) for a handle not alive. */
bool gfx_meshes_destroy(gfx_meshes *meshes, gfx_mesh mesh);

#endif
