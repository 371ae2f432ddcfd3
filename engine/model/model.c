#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void model_measure_bind_bounds(model *m)
{
    float low[3] = {INFINITY, INFINITY, INFINITY}, high[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < m->mesh_count; ++i)
        for (int v = 0; v < m->meshes[i].vertex_count; ++v)
            for (int axis = 0; axis < 3; ++axis) {
                low[axis] = fminf(low[axis], m->meshes[i].positions[v][axis]);
                high[axis] = fmaxf(high[axis], m->meshes[i].positions[v][axis]);
            }
    memset(m->bind_bounds, 0, sizeof m->bind_bounds);
    if (low[0] > high[0])
        return; /* no vertices */
    memcpy(m->bind_bounds[0], low, sizeof low);
    memcpy(m->bind_bounds[1], high, sizeof high);
}

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
        free(mesh->uvs);
        free(mesh->triangles);
        free(mesh->joints);
        free(mesh->weights);
    }
    free(m->meshes);
    free(m);
}
