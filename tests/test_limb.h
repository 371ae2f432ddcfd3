/* test_limb: a generated test limb for the skinning tests: a cylinder of two joints along +X (MD5 object
 * space, one metre above the ground), its vertices blended from the first joint to the second across the
 * joint, and how much of a cross-section a pose keeps. Twisting the second joint about the limb's own axis
 * is the case linear blend skinning is known to fail: at the joint each vertex is half turned by one
 * joint and half by the other, and the average of two turned copies of a ring is a smaller ring.
 * Header-only (static inline functions) for the test files that use it. */
#ifndef MARIONETTE_TEST_LIMB_H
#define MARIONETTE_TEST_LIMB_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "model/model.h"

enum {
    LIMB_SEGMENTS = 32,                /* vertices around a ring */
    LIMB_RINGS = 41,                   /* rings from x = 0 to x = 2, every 5 cm */
    LIMB_JOINT_RING = 20,              /* the ring at x = 1, on the second joint: weights half and half */
    LIMB_VERTICES = LIMB_SEGMENTS * LIMB_RINGS,
    LIMB_TRIANGLES = 2 * LIMB_SEGMENTS * (LIMB_RINGS - 1),
};
#define LIMB_RADIUS 0.15f
#define LIMB_HEIGHT 1.0f       /* the axis's height above the ground (MD5 z) */
#define LIMB_BLEND_START 0.6f  /* the second joint's weight rises smoothly from 0 here ... */
#define LIMB_BLEND_END 1.4f    /* ... to 1 here */

/* Everything a limb model points to, in one block the test owns. */
typedef struct limb {
    model model;
    skin_mesh mesh;
    char *names[2];
    int parents[2];
    joint_pose bind_object[2];
    mat4 inverse_bind[2];
    float positions[LIMB_VERTICES][3], normals[LIMB_VERTICES][3], uvs[LIMB_VERTICES][2];
    uint32_t triangles[LIMB_TRIANGLES][3];
    uint16_t joints[LIMB_VERTICES][SKIN_MAX_INFLUENCES];
    float weights[LIMB_VERTICES][SKIN_MAX_INFLUENCES];
} limb;

/* Fill *out (which must stay where it is while the model is used: it points into itself). */
static inline void limb_make(limb *out)
{
    memset(out, 0, sizeof *out);
    static char first[] = "upper", second[] = "lower", shader[] = "";
    out->names[0] = first;
    out->names[1] = second;
    out->parents[0] = -1;
    out->parents[1] = 0;
    for (int j = 0; j < 2; ++j) {
        joint_pose *bind = &out->bind_object[j];
        bind->rotation[3] = 1.0f;
        bind->position[0] = (float)j;
        bind->position[2] = LIMB_HEIGHT;
        glm_translate_make(out->inverse_bind[j], (vec3){-bind->position[0], 0.0f, -LIMB_HEIGHT});
    }
    for (int r = 0; r < LIMB_RINGS; ++r) {
        float x = 0.05f * (float)r;
        float t = fminf(fmaxf((x - LIMB_BLEND_START) / (LIMB_BLEND_END - LIMB_BLEND_START), 0.0f), 1.0f);
        float second_weight = t * t * (3.0f - 2.0f * t);
        for (int s = 0; s < LIMB_SEGMENTS; ++s) {
            int v = r * LIMB_SEGMENTS + s;
            float angle = 2.0f * GLM_PIf * (float)s / LIMB_SEGMENTS;
            float y = cosf(angle), z = sinf(angle);
            out->positions[v][0] = x;
            out->positions[v][1] = LIMB_RADIUS * y;
            out->positions[v][2] = LIMB_HEIGHT + LIMB_RADIUS * z;
            out->normals[v][1] = y;
            out->normals[v][2] = z;
            out->uvs[v][0] = 0.75f * x;
            out->uvs[v][1] = 0.75f * (float)s / LIMB_SEGMENTS;
            /* Largest weight first, as the build step sorts them; a lone joint keeps weight 1 exactly. */
            bool second_larger = second_weight > 0.5f;
            out->joints[v][0] = second_larger ? 1 : 0;
            out->joints[v][1] = second_larger ? 0 : 1;
            out->weights[v][0] = second_larger ? second_weight : 1.0f - second_weight;
            out->weights[v][1] = second_larger ? 1.0f - second_weight : second_weight;
        }
    }
    int next = 0;
    for (int r = 0; r + 1 < LIMB_RINGS; ++r) {
        for (int s = 0; s < LIMB_SEGMENTS; ++s) {
            uint32_t a = (uint32_t)(r * LIMB_SEGMENTS + s), b = (uint32_t)(r * LIMB_SEGMENTS + (s + 1) % LIMB_SEGMENTS);
            uint32_t c = a + LIMB_SEGMENTS, d = b + LIMB_SEGMENTS;
            /* Clockwise seen from outside, the MD5 winding. */
            out->triangles[next][0] = a, out->triangles[next][1] = b, out->triangles[next][2] = c, ++next;
            out->triangles[next][0] = b, out->triangles[next][1] = d, out->triangles[next][2] = c, ++next;
        }
    }
    skin_mesh *mesh = &out->mesh;
    mesh->shader = shader;
    mesh->vertex_count = LIMB_VERTICES;
    mesh->triangle_count = LIMB_TRIANGLES;
    mesh->positions = out->positions;
    mesh->normals = out->normals;
    mesh->uvs = out->uvs;
    mesh->triangles = out->triangles;
    mesh->joints = out->joints;
    mesh->weights = out->weights;
    mesh->max_influences = 2;
    model *m = &out->model;
    m->skeleton = (skeleton){.joint_count = 2, .names = out->names, .parents = out->parents,
                             .bind_object = out->bind_object, .inverse_bind = out->inverse_bind};
    m->mesh_count = 1;
    m->meshes = mesh;
    m->skin_reach = 1.1f;
    m->bind_bounds[0][0] = 0.0f, m->bind_bounds[0][1] = -LIMB_RADIUS, m->bind_bounds[0][2] = LIMB_HEIGHT - LIMB_RADIUS;
    m->bind_bounds[1][0] = 2.0f, m->bind_bounds[1][1] = LIMB_RADIUS, m->bind_bounds[1][2] = LIMB_HEIGHT + LIMB_RADIUS;
}

/* The limb's object pose with its second joint twisted `degrees` about the limb's own axis (+X). */
static inline void limb_twist(const limb *l, float degrees, joint_pose object[2])
{
    memcpy(object, l->bind_object, 2 * sizeof object[0]);
    float half = 0.5f * glm_rad(degrees);
    object[1].rotation[0] = sinf(half);
    object[1].rotation[3] = cosf(half);
}

/* The area of ring `ring` of skinned positions, seen along the limb's axis (the shoelace formula over the
 * y and z of its vertices, in order around it). */
static inline double limb_ring_area(const float (*positions)[3], int ring)
{
    double twice = 0.0;
    for (int s = 0; s < LIMB_SEGMENTS; ++s) {
        const float *a = positions[ring * LIMB_SEGMENTS + s];
        const float *b = positions[ring * LIMB_SEGMENTS + (s + 1) % LIMB_SEGMENTS];
        twice += (double)a[1] * ((double)b[2] - LIMB_HEIGHT) - (double)b[1] * ((double)a[2] - LIMB_HEIGHT);
    }
    return fabs(0.5 * twice);
}

#endif
