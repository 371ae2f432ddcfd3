/* look: see look.h. */
#include "look.h"

void look_object_to_world_matrix(const anim_character *character, mat4 placement, mat4 out)
{
    /* (x, y, z) -> (x, z, -y), written out so its zeros and ones are exact (gfx_z_up_to_y_up). */
    mat4 turn = {{1, 0, 0, 0}, {0, 0, -1, 0}, {0, 1, 0, 0}, {0, 0, 0, 1}};
    mat4 turned;
    glm_mat4_mul(placement, turn, turned);
    glm_mat4_mul(turned, (vec4 *)character->import, out);
}

void look_world_to_object(const anim_character *character, mat4 placement, const float world[3], float object[3])
{
    mat4 to_world, to_object;
    look_object_to_world_matrix(character, placement, to_world);
    glm_mat4_inv(to_world, to_object);
    glm_mat4_mulv3(to_object, (float *)world, 1.0f, object);
}

void look_object_to_world(const anim_character *character, mat4 placement, const float object[3], float world[3])
{
    mat4 to_world;
    look_object_to_world_matrix(character, placement, to_world);
    glm_mat4_mulv3(to_world, (float *)object, 1.0f, world);
}

bool look_head_world(const animator *animator, mat4 placement, float world[3])
{
    const anim_character *character = animator_character(animator);
    if (!character || character->look.chain.joint_count == 0)
        return false;
    const joint_pose *pose = anim_controller_object_pose(animator_controller(animator));
    look_object_to_world(character, placement, pose[character->look.chain.joints[0]].position, world);
    return true;
}
