#include "raw.h"

#include <stdlib.h>
#include <string.h>

static void free_names(char **names, int count)
{
    if (names)
        for (int i = 0; i < count; ++i)
            free(names[i]);
    free(names);
}

void raw_model_free(raw_model *m)
{
    if (!m)
        return;
    raw_skeleton *s = &m->skeleton;
    free_names(s->names, s->joint_count);
    free(s->parents);
    free(s->bind_object);
    free(s->joint_at);
    for (int i = 0; i < m->mesh_count && m->meshes; ++i) {
        raw_mesh *mesh = &m->meshes[i];
        free(mesh->shader);
        free(mesh->texture_path);
        diag_list_free(&mesh->notes);
        free(mesh->uvs);
        free(mesh->first_weight);
        free(mesh->weights_used);
        free(mesh->vertex_at);
        free(mesh->triangles);
        free(mesh->weights);
    }
    free(m->meshes);
    diag_list_free(&m->trailing_notes);
    *m = (raw_model){0};
}

void raw_clip_free(raw_clip *c)
{
    if (!c)
        return;
    free_names(c->names, c->joint_count);
    free(c->parents);
    free(c->frames);
    free(c->frame_at);
    free(c->bounds);
    diag_list_free(&c->trailing_notes);
    *c = (raw_clip){0};
}
