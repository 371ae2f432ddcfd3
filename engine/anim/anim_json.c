/* anim_json: see anim_json.h. */
#include "anim_json.h"

#include <cglm/cglm.h>

#include "anim_foot_lock.h"

void anim_json_write_step(json_writer *w, const animator *animator, const animator_update_result *update)
{
    const anim_controller *controller = animator_controller(animator);
    const state_machine_definition *machine = &animator_character(animator)->machine;
    json_key(w, "state");
    json_string(w, animator_state_name(animator));
    json_key(w, "time_in_state");
    json_number(w, animator_instance(animator)->time_in_state);

    const state_machine_result *decision = &update->decision;
    json_key(w, "transition");
    if (decision->fired) {
        json_object_begin(w);
        json_key(w, "from");
        json_string(w, machine->states[decision->from].name);
        json_key(w, "to");
        json_string(w, machine->states[decision->to].name);
        json_key(w, "fade");
        json_number(w, decision->fade);
        json_object_end(w);
    } else {
        json_null(w);
    }

    json_key(w, "channels");
    json_array_begin(w);
    for (int channel = 0; channel < ANIM_CHANNEL_COUNT; ++channel) {
        json_object_begin(w);
        json_key(w, "channel");
        json_integer(w, channel);
        json_key(w, "weight");
        json_number(w, anim_controller_channel_weight(controller, channel));
        json_key(w, "layers");
        json_array_begin(w);
        for (int k = 0; k < anim_controller_layer_count(controller, channel); ++k) {
            anim_layer_info layer;
            anim_controller_layer(controller, channel, k, &layer);
            json_object_begin(w);
            json_key(w, "clip");
            json_string(w, layer.clip ? layer.clip->name : NULL);
            json_key(w, "time");
            json_number(w, layer.time);
            json_key(w, "cycles");
            json_number(w, layer.cycles);
            json_key(w, "speed");
            json_number(w, layer.speed);
            json_key(w, "weight");
            json_number(w, layer.weight);
            json_key(w, "finished");
            json_bool(w, layer.finished);
            json_object_end(w);
        }
        json_array_end(w);
        json_object_end(w);
    }
    json_array_end(w);

    const anim_update_result *animation = &update->animation;
    json_key(w, "events");
    json_array_begin(w);
    for (int i = 0; i < animation->event_count; ++i) {
        const anim_event *event = &animation->events[i];
        json_object_begin(w);
        json_key(w, "name");
        json_string(w, event->name);
        json_key(w, "clip");
        json_string(w, event->clip ? event->clip->name : NULL);
        json_key(w, "channel");
        json_integer(w, event->channel);
        json_key(w, "cycle");
        json_integer(w, event->cycle);
        json_key(w, "weight");
        json_number(w, event->weight);
        json_key(w, "step_fraction");
        json_number(w, event->step_fraction);
        json_object_end(w);
    }
    json_array_end(w);
    json_key(w, "events_dropped");
    json_integer(w, animation->events_dropped);

    json_key(w, "root");
    json_object_begin(w);
    json_key(w, "translation");
    json_array_begin(w);
    for (int i = 0; i < 3; ++i)
        json_number(w, animation->translation[i]);
    json_array_end(w);
    json_key(w, "yaw_degrees");
    json_number(w, animation->yaw * 180.0 / GLM_PI);
    json_key(w, "share");
    json_number(w, animation->root_motion_share);
    json_object_end(w);

}

/* ---- an entity's pose (docs/trace.md, "An entity in poses") ---- */

static void write_floats(json_writer *w, const float *values, int count)
{
    json_array_begin(w);
    for (int i = 0; i < count; ++i)
        json_fixed(w, values[i], ANIM_JSON_POSE_DECIMALS);
    json_array_end(w);
}

/* A joint of an object pose in the world (position by the whole transform, rotation by its rotation part),
 * named when name is not NULL. */
static void write_world_joint(json_writer *w, mat4 world, versor turn, const joint_pose *joint,
                              const char *name)
{
    vec3 position;
    versor rotation;
    glm_mat4_mulv3((vec4 *)world, (float *)joint->position, 1.0f, position);
    glm_quat_mul((float *)turn, (float *)joint->rotation, rotation);
    json_object_begin(w);
    if (name) {
        json_key(w, "name");
        json_string(w, name);
    }
    json_key(w, "position");
    write_floats(w, position, 3);
    json_key(w, "rotation");
    write_floats(w, rotation, 4);
    json_object_end(w);
}

static void write_joints(json_writer *w, const int *joints, int joint_count, const skeleton *s,
                         const joint_pose *pose, mat4 world, versor turn, bool named)
{
    json_array_begin(w);
    for (int n = 0; n < joint_count; ++n) {
        int j = joints ? joints[n] : n;
        if (j < 0 || !pose)
            json_null(w);
        else
            write_world_joint(w, world, turn, &pose[j], named ? s->names[j] : NULL);
    }
    json_array_end(w);
}

static void write_feet(json_writer *w, const animator *a, const joint_pose *pose, mat4 world,
                       const ground *ground)
{
    const anim_character *character = animator_character(a);
    float shares[ANIM_FEET_MAX] = {0};
    anim_foot_lock_planted_shares(animator_controller(a), character->leg_count, shares);
    const anim_foot_lock_state *state = animator_foot_lock(a);
    json_key(w, "feet");
    json_array_begin(w);
    for (int f = 0; f < character->leg_count; ++f) {
        int ankle = character->legs[f].ankle;
        vec3 at;
        glm_mat4_mulv3((vec4 *)world, (float *)pose[ankle].position, 1.0f, at);
        ground_sample under = ground_at(ground, at[0], at[2]);
        json_object_begin(w);
        json_key(w, "joint");
        json_string(w, character->model->skeleton.names[ankle]);
        json_key(w, "planted");
        json_fixed(w, shares[f], ANIM_JSON_POSE_DECIMALS);
        json_key(w, "held");
        json_fixed(w, state->feet[f].weight, ANIM_JSON_POSE_DECIMALS);
        json_key(w, "placed");
        json_fixed(w, state->feet[f].ik, ANIM_JSON_POSE_DECIMALS);
        json_key(w, "ankle");
        write_floats(w, at, 3);
        json_key(w, "ground_height");
        json_fixed(w, under.height, ANIM_JSON_POSE_DECIMALS);
        json_key(w, "ground_normal");
        write_floats(w, under.normal, 3);
        json_key(w, "above_ground");
        json_fixed(w, (at[1] - under.height) * under.normal[1], ANIM_JSON_POSE_DECIMALS);
        json_object_end(w);
    }
    json_array_end(w);
    json_key(w, "pelvis_drop");
    json_fixed(w, state->pelvis_drop, ANIM_JSON_POSE_DECIMALS);
}

void anim_json_write_pose(json_writer *w, const animator *a, const anim_placement *placement, const ground *ground,
                          const int *joints, int joint_count, const animator_stages *stages, bool with_stages)
{
    const anim_character *character = animator_character(a);
    const skeleton *s = &character->model->skeleton;
    mat4 world, turn_matrix;
    anim_placement_world(placement, &character->axes, character->scale, world);
    float scale = character->scale > 0.0f ? character->scale : 1.0f;
    glm_mat4_copy(world, turn_matrix);
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            turn_matrix[c][r] /= scale;
    glm_vec4_copy((vec4){0.0f, 0.0f, 0.0f, 1.0f}, turn_matrix[3]);
    versor turn;
    glm_mat4_quat(turn_matrix, turn);
    json_key(w, "character");
    json_string(w, character->name);
    json_key(w, "world");
    write_floats(w, (const float *)world, 16);
    json_key(w, "heading_degrees");
    json_number(w, placement->heading * 180.0 / GLM_PI);
    const joint_pose *final = anim_controller_object_pose(animator_controller(a));
    json_key(w, "joints");
    write_joints(w, joints, joint_count, s, final, world, turn, true);
    if (with_stages) {
        json_key(w, "stages");
        json_object_begin(w);
        for (int k = 0; k < ANIMATOR_STAGE_COUNT; ++k) {
            json_key(w, animator_stage_name((animator_stage)k));
            write_joints(w, joints, joint_count, s, stages ? stages->poses[k] : NULL, world, turn, false);
        }
        json_object_end(w);
    }
    write_feet(w, a, final, world, ground);
}
