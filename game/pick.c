/* pick: see pick.h. */
#include "pick.h"

#include <math.h>

/* Below this determinant a matrix has collapsed a dimension (a zero scale): nothing to hit. Far below the
 * smallest a character gets (characters.ini's scale 0.0001 cubed is 1e-12), far above where 1 / det would
 * overflow a float. */
static const float PICK_SINGULAR = 1e-30f;

bool pick_ray_through(mat4 view, mat4 projection, int width, int height, float x, float y, pick_ray *out)
{
    if (width <= 0 || height <= 0 || !isfinite(x) || !isfinite(y) || !out)
        return false;
    mat4 view_projection, inverse;
    glm_mat4_mul(projection, view, view_projection);
    float determinant = glm_mat4_det(view_projection);
    if (!isfinite(determinant) || fabsf(determinant) < PICK_SINGULAR)
        return false;
    glm_mat4_inv(view_projection, inverse);
    /* The point in normalized device coordinates, on the near plane (z -1) and the far plane (z 1). */
    float device_x = 2.0f * x / (float)width - 1.0f, device_y = 1.0f - 2.0f * y / (float)height;
    vec4 near_point, far_point;
    glm_mat4_mulv(inverse, (vec4){device_x, device_y, -1.0f, 1.0f}, near_point);
    glm_mat4_mulv(inverse, (vec4){device_x, device_y, 1.0f, 1.0f}, far_point);
    if (near_point[3] == 0.0f || far_point[3] == 0.0f)
        return false;
    vec3 near_world, far_world, along;
    glm_vec3_scale(near_point, 1.0f / near_point[3], near_world);
    glm_vec3_scale(far_point, 1.0f / far_point[3], far_world);
    glm_vec3_sub(far_world, near_world, along);
    float length = glm_vec3_norm(along);
    if (!(length > 0.0f) || !isfinite(length))
        return false;
    glm_vec3_copy(near_world, out->origin);
    glm_vec3_scale(along, 1.0f / length, out->direction);
    return true;
}

bool pick_ray_box(const pick_ray *ray, mat4 model, const float bounds[2][3], float *distance)
{
    if (!ray || !bounds || !distance)
        return false;
    for (int axis = 0; axis < 3; ++axis)
        if (!(bounds[0][axis] <= bounds[1][axis]))
            return false;
    float determinant = glm_mat4_det(model);
    if (!isfinite(determinant) || fabsf(determinant) < PICK_SINGULAR)
        return false;
    /* In the box's own space the box is axis-aligned. The direction is carried over unnormalized, so a
     * distance along it there is the same distance along the ray in the world. */
    mat4 inverse;
    glm_mat4_inv(model, inverse);
    vec3 origin, direction;
    glm_mat4_mulv3(inverse, (float *)ray->origin, 1.0f, origin);
    glm_mat4_mulv3(inverse, (float *)ray->direction, 0.0f, direction);
    float enter = -INFINITY, leave = INFINITY;
    for (int axis = 0; axis < 3; ++axis) {
        if (direction[axis] == 0.0f) {
            /* Parallel to this pair of faces: inside the slab everywhere or nowhere. */
            if (origin[axis] < bounds[0][axis] || origin[axis] > bounds[1][axis])
                return false;
            continue;
        }
        float a = (bounds[0][axis] - origin[axis]) / direction[axis];
        float b = (bounds[1][axis] - origin[axis]) / direction[axis];
        enter = fmaxf(enter, fminf(a, b));
        leave = fminf(leave, fmaxf(a, b));
    }
    if (enter > leave || leave < 0.0f)
        return false;
    *distance = fmaxf(enter, 0.0f);
    return true;
}
