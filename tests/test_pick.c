/* Picking with the mouse (game/pick): the ray through a point of the picture goes back through what was
 * drawn there, and a ray meets a placed box where the box's faces are, nearest first, whatever the box's
 * turn and scale; misses, boxes behind the eye and bad matrices are refused. Pure math: no window. */
#include "check.h"

#include <math.h>

#include "pick.h"

enum { WIDTH = 200, HEIGHT = 100 };

/* An eye at (0, 2, 10) looking at (0, 1, 0), 60 degrees tall, as the demo's camera builds its matrices. */
static void camera(mat4 view, mat4 projection)
{
    glm_lookat((vec3){0.0f, 2.0f, 10.0f}, (vec3){0.0f, 1.0f, 0.0f}, (vec3){0.0f, 1.0f, 0.0f}, view);
    glm_perspective(glm_rad(60.0f), (float)WIDTH / (float)HEIGHT, 0.1f, 200.0f, projection);
}

/* Where a world point lands in the picture, in pixels from the top-left. */
static void project(mat4 view, mat4 projection, const float point[3], float *x, float *y)
{
    mat4 view_projection;
    glm_mat4_mul(projection, view, view_projection);
    vec4 clip;
    glm_mat4_mulv(view_projection, (vec4){point[0], point[1], point[2], 1.0f}, clip);
    *x = (clip[0] / clip[3] * 0.5f + 0.5f) * (float)WIDTH;
    *y = (0.5f - clip[1] / clip[3] * 0.5f) * (float)HEIGHT;
}

/* Distance from a point to a ray's line. */
static float distance_to_ray(const pick_ray *ray, const float point[3])
{
    vec3 offset, along, across;
    glm_vec3_sub((float *)point, (float *)ray->origin, offset);
    glm_vec3_scale((float *)ray->direction, glm_vec3_dot(offset, (float *)ray->direction), along);
    glm_vec3_sub(offset, along, across);
    return glm_vec3_norm(across);
}

static void test_ray_goes_back_through_what_was_drawn(void)
{
    mat4 view, projection;
    camera(view, projection);
    static const float points[][3] = {{0, 1, 0}, {3, 0, -4}, {-2.5f, 3, 2}, {0.5f, 0, 6}, {-20, 5, -60}};
    for (size_t i = 0; i < sizeof points / sizeof points[0]; ++i) {
        float x, y;
        project(view, projection, points[i], &x, &y);
        pick_ray ray;
        CHECK(pick_ray_through(view, projection, WIDTH, HEIGHT, x, y, &ray));
        CHECK_NEAR(glm_vec3_norm(ray.direction), 1.0, 1e-6);
        /* Away from the eye, starting on the near plane 0.1 in front of it. */
        vec3 to_point;
        glm_vec3_sub((float *)points[i], ray.origin, to_point);
        CHECK(glm_vec3_dot(to_point, ray.direction) > 0.0f);
        CHECK(distance_to_ray(&ray, points[i]) < 1e-3f * (1.0f + glm_vec3_norm(to_point)));
    }
    /* The picture's centre looks along the view's axis; its corners spread up, down, left and right. */
    pick_ray centre, top_left;
    CHECK(pick_ray_through(view, projection, WIDTH, HEIGHT, WIDTH / 2.0f, HEIGHT / 2.0f, &centre));
    CHECK(pick_ray_through(view, projection, WIDTH, HEIGHT, 0.0f, 0.0f, &top_left));
    vec3 axis = {0.0f, -1.0f, -10.0f};
    glm_vec3_normalize(axis);
    CHECK_NEAR(glm_vec3_dot(centre.direction, axis), 1.0, 1e-6);
    CHECK(top_left.direction[0] < centre.direction[0] && top_left.direction[1] > centre.direction[1]);
    /* Outside the picture still has a ray; nonsense has none. */
    pick_ray ray;
    CHECK(pick_ray_through(view, projection, WIDTH, HEIGHT, -50.0f, 300.0f, &ray));
    CHECK(!pick_ray_through(view, projection, 0, HEIGHT, 1.0f, 1.0f, &ray));
    CHECK(!pick_ray_through(view, projection, WIDTH, HEIGHT, NAN, 1.0f, &ray));
    CHECK(!pick_ray_through(view, projection, WIDTH, HEIGHT, 1.0f, INFINITY, &ray));
    mat4 flat = GLM_MAT4_ZERO_INIT;
    CHECK(!pick_ray_through(view, flat, WIDTH, HEIGHT, 1.0f, 1.0f, &ray));
}

static void test_ray_meets_box_at_its_faces(void)
{
    static const float unit[2][3] = {{-1, -1, -1}, {1, 1, 1}};
    pick_ray down_z = {.origin = {0, 0, 10}, .direction = {0, 0, -1}};
    mat4 identity = GLM_MAT4_IDENTITY_INIT;
    float distance = -1.0f;
    CHECK(pick_ray_box(&down_z, identity, unit, &distance));
    CHECK_NEAR(distance, 9.0, 1e-6);

    /* Moved away along x by 3: the ray misses it; moved 5 nearer: met 5 sooner. */
    mat4 moved;
    glm_translate_make(moved, (vec3){3.0f, 0.0f, 0.0f});
    CHECK(!pick_ray_box(&down_z, moved, unit, &distance));
    glm_translate_make(moved, (vec3){0.0f, 0.0f, 5.0f});
    CHECK(pick_ray_box(&down_z, moved, unit, &distance));
    CHECK_NEAR(distance, 4.0, 1e-6);

    /* A long thin box (4 along x, 0.5 elsewhere) turned 90 degrees about y lies along z: the ray meets its
     * end 4 in front of its centre; scaled by 2 as well, 8 in front. Unturned and scaled, its thin side:
     * 0.5 x 2 in front. */
    static const float long_x[2][3] = {{-4, -0.5f, -0.5f}, {4, 0.5f, 0.5f}};
    mat4 turned = GLM_MAT4_IDENTITY_INIT;
    glm_rotate_y(turned, GLM_PI_2f, turned);
    CHECK(pick_ray_box(&down_z, turned, long_x, &distance));
    CHECK_NEAR(distance, 6.0, 1e-5);
    mat4 turned_scaled;
    glm_mat4_copy(turned, turned_scaled);
    glm_scale_uni(turned_scaled, 2.0f);
    CHECK(pick_ray_box(&down_z, turned_scaled, long_x, &distance));
    CHECK_NEAR(distance, 2.0, 1e-5);
    mat4 scaled;
    glm_scale_make(scaled, (vec3){2.0f, 2.0f, 2.0f});
    CHECK(pick_ray_box(&down_z, scaled, long_x, &distance));
    CHECK_NEAR(distance, 9.0, 1e-5);

    /* A slanted ray through two boxes: the nearer is met first, by the distance along the ray. */
    pick_ray slanted = {.origin = {0, 0, 0}, .direction = {1, 0, 1}};
    glm_vec3_normalize(slanted.direction);
    mat4 near_box, far_box;
    glm_translate_make(near_box, (vec3){3.0f, 0.0f, 3.0f});
    glm_translate_make(far_box, (vec3){6.0f, 0.0f, 6.0f});
    float near_distance, far_distance;
    CHECK(pick_ray_box(&slanted, near_box, unit, &near_distance));
    CHECK(pick_ray_box(&slanted, far_box, unit, &far_distance));
    CHECK_NEAR(near_distance, 2.0 * sqrt(2.0), 1e-5);
    CHECK_NEAR(far_distance, 5.0 * sqrt(2.0), 1e-5);

    /* Inside the box: met at once. Behind the origin: not met. */
    CHECK(pick_ray_box(&slanted, identity, unit, &distance));
    CHECK(distance == 0.0f);
    pick_ray away = {.origin = {0, 0, 10}, .direction = {0, 0, 1}};
    CHECK(!pick_ray_box(&away, identity, unit, &distance));

    /* Parallel to a pair of faces: met when between them, missed outside. */
    pick_ray along_x = {.origin = {-10, 0.5f, 0}, .direction = {1, 0, 0}};
    CHECK(pick_ray_box(&along_x, identity, unit, &distance));
    CHECK_NEAR(distance, 9.0, 1e-6);
    along_x.origin[1] = 1.5f;
    CHECK(!pick_ray_box(&along_x, identity, unit, &distance));

    /* An empty box, a collapsed placement: nothing to meet, and distance is left alone. */
    static const float empty[2][3] = {{1, -1, -1}, {-1, 1, 1}};
    distance = 42.0f;
    CHECK(!pick_ray_box(&down_z, identity, empty, &distance));
    mat4 collapsed;
    glm_scale_make(collapsed, (vec3){1.0f, 0.0f, 1.0f});
    CHECK(!pick_ray_box(&down_z, collapsed, unit, &distance));
    CHECK(distance == 42.0f);
}

/* The two together, as the demo picks: a box on the ground drawn somewhere in the picture is hit by a
 * click on its projected centre and missed by one beside it. */
static void test_click_on_a_drawn_box(void)
{
    mat4 view, projection;
    camera(view, projection);
    static const float body[2][3] = {{-0.3f, 0.0f, -0.3f}, {0.3f, 1.8f, 0.3f}};
    mat4 placement;
    glm_translate_make(placement, (vec3){2.0f, 0.0f, -3.0f});
    glm_rotate_y(placement, 0.7f, placement);
    float centre[3] = {2.0f, 0.9f, -3.0f}, x, y;
    project(view, projection, centre, &x, &y);
    pick_ray ray;
    float distance;
    CHECK(pick_ray_through(view, projection, WIDTH, HEIGHT, x, y, &ray));
    CHECK(pick_ray_box(&ray, placement, body, &distance));
    vec3 to_centre;
    glm_vec3_sub(centre, ray.origin, to_centre);
    CHECK(distance > 0.0f && distance < glm_vec3_norm(to_centre));
    CHECK(pick_ray_through(view, projection, WIDTH, HEIGHT, x + 20.0f, y, &ray));
    CHECK(!pick_ray_box(&ray, placement, body, &distance));
}

int main(void)
{
    RUN(test_ray_goes_back_through_what_was_drawn);
    RUN(test_ray_meets_box_at_its_faces);
    RUN(test_click_on_a_drawn_box);
    return check_report();
}
