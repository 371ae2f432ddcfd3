/* pick: what is under the mouse. A ray from the camera through a point of the picture, and the distance
 * along it at which it enters a box placed by a matrix (a character's box), so that of the boxes a click
 * goes through the nearest is the character clicked. Pure math on cglm types, no allocation.
 * Knows nothing of the crowd, the scene, the camera module or windows: the caller gives the matrices the
 * picture was drawn with and the boxes. */
#ifndef MARIONETTE_PICK_H
#define MARIONETTE_PICK_H

#include <stdbool.h>

#include <cglm/cglm.h>

typedef struct pick_ray {
    vec3 origin;    /* on the near plane */
    vec3 direction; /* unit length, away from the eye */
} pick_ray;

/* The ray through (x, y) of a width x height picture drawn with view and projection: x right and y down in
 * pixels from the picture's top-left corner (a pixel's centre is at +0.5). A point outside the picture
 * still gives its ray. False when the size is not positive, a coordinate is not finite, or the matrices
 * cannot be inverted. */
bool pick_ray_through(mat4 view, mat4 projection, int width, int height, float x, float y, pick_ray *out);

/* Where ray enters the box (bounds: min and max corners in model space) placed by model, an invertible
 * affine matrix (rotation, scale, translation): the distance along the ray from its origin, 0 when the
 * origin is inside the box. False when the ray misses, the box lies behind the origin, the box is empty
 * (a min above its max) or model cannot be inverted. */
bool pick_ray_box(const pick_ray *ray, mat4 model, const float bounds[2][3], float *distance);

#endif
