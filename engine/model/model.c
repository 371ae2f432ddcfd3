#include "model.h"
#include "model_lods.h"

#include <stdlib.h>
#include <string.h>

void model_free(model *m)
{
    if (!m)
        return;
    skeleton *s = &m->skeleton;
    if (s->names)
        for (int i = 0; i < s->joint_count; ++i)
            free(s->names[i]);
    free(s->names);
    free(s->parents);
    free(s->bind_object);
    free(s->inverse_bind);
    for (int i = 0; i < m->mesh_count && m->meshes; ++i) {
        skin_mesh *mesh = &m->meshes[i];
        free(mesh->shader);
        free(mesh->texture_path);
        free(mesh->positions);
        free(mesh->normals);
        free(mesh->tangents);
        free(mesh->uvs);
        free(mesh->triangles);
        free(mesh->joints);
        free(mesh->weights);
    }
    free(m->meshes);
    free(m);
}

void model_lods_free(model_lods *lods)
{
    if (!lods)
        return;
    for (int i = 0; i < lods->mesh_count && lods->meshes; ++i)
        for (int l = 0; l < LOD_LEVELS_MAX; ++l)
            free(lods->meshes[i].triangles[l]);
    free(lods->meshes);
    free(lods);
}

int skeleton_find_joint(const skeleton *s, const char *name)
{
    for (int j = 0; s && name && j < s->joint_count; ++j)
        if (strcmp(s->names[j], name) == 0)
            return j;
    return -1;
}
