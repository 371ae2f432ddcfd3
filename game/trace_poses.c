/* trace_poses: see trace_poses.h; the schema is docs/trace.md's. */
#include "trace_poses.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim_foot_lock.h"

/* One traced entity: its stage buffers and the joints chosen, resolved for the character it last had. */
typedef struct traced_entity {
    int member; /* crowd index, or -1: the player */
    animator_stages stages;
    const anim_character *resolved_for;
    int joint_count;                     /* joints written */
    int joints[TRACE_POSES_JOINTS_MAX];  /* their indices in resolved_for's skeleton, -1 where it has none */
} traced_entity;

struct trace_poses {
    bool all_joints, with_stages;
    char *names_text; /* the option's copy, cut at the commas */
    int name_count;
    const char *names[TRACE_POSES_JOINTS_MAX];
    int entity_count;
    traced_entity entities[1 + TRACE_POSES_MEMBERS_MAX];
    int capacity;        /* joints each stage buffer holds */
    joint_pose *storage; /* entity_count x ANIMATOR_STAGE_COUNT x capacity, when with_stages */
};

static int find_joint(const skeleton *s, const char *name)
{
    for (int j = 0; j < s->joint_count; ++j)
        if (strcmp(s->names[j], name) == 0)
            return j;
    return -1;
}

/* Stage buffers for every entity, capacity joints each; false when memory runs out (the old ones kept). */
static bool grow(trace_poses *poses, int capacity)
{
    if (!poses->with_stages || capacity <= poses->capacity)
        return true;
    size_t count = (size_t)poses->entity_count * ANIMATOR_STAGE_COUNT * (size_t)capacity;
    joint_pose *storage = calloc(count, sizeof *storage);
    if (!storage)
        return false;
    free(poses->storage);
    poses->storage = storage;
    poses->capacity = capacity;
    for (int e = 0; e < poses->entity_count; ++e)
        for (int k = 0; k < ANIMATOR_STAGE_COUNT; ++k)
            poses->entities[e].stages.poses[k] = storage + ((size_t)e * ANIMATOR_STAGE_COUNT + (size_t)k) * (size_t)capacity;
    return true;
}

static bool parse_members(trace_poses *poses, const char *text, int crowd_max, diag *error)
{
    for (const char *cursor = text; *cursor;) {
        char *end = NULL;
        errno = 0;
        long index = strtol(cursor, &end, 10);
        if (end == cursor || (*end && *end != ',') || errno == ERANGE || index < 0)
            return diag_set(error, "--trace-members", 0, "'%s' is not a list of crowd member numbers (0, 1, ...)", text);
        if (index >= crowd_max)
            return diag_set(error, "--trace-members", 0,
                            "member %ld is past the crowd's largest size, %d (demo.ini's [crowd] max)", index, crowd_max);
        if (poses->entity_count > TRACE_POSES_MEMBERS_MAX)
            return diag_set(error, "--trace-members", 0, "at most %d members", TRACE_POSES_MEMBERS_MAX);
        for (int e = 1; e < poses->entity_count; ++e)
            if (poses->entities[e].member == (int)index)
                return diag_set(error, "--trace-members", 0, "member %ld is named twice", index);
        poses->entities[poses->entity_count++] = (traced_entity){.member = (int)index};
        cursor = *end ? end + 1 : end;
    }
    return true;
}

/* The names, each checked against every character: one that none has is a mistake (the first character's
 * joints are listed to choose from). */
static bool parse_joints(trace_poses *poses, const char *text, const anim_config *config, diag *error)
{
    if (strcmp(text, "all") == 0) {
        poses->all_joints = true;
        return true;
    }
    poses->names_text = strdup(text);
    if (!poses->names_text)
        return diag_set(error, "--trace-joints", 0, "out of memory");
    for (char *cursor = poses->names_text; cursor;) {
        char *comma = strchr(cursor, ',');
        if (comma)
            *comma = '\0';
        if (!*cursor)
            return diag_set(error, "--trace-joints", 0, "an empty joint name in '%s' (write all, or NAME,NAME)", text);
        if (poses->name_count == TRACE_POSES_JOINTS_MAX)
            return diag_set(error, "--trace-joints", 0, "at most %d joints (or all)", TRACE_POSES_JOINTS_MAX);
        bool known = false;
        for (int c = 0; c < anim_config_character_count(config) && !known; ++c) {
            const anim_character *character = anim_config_character(config, c);
            known = character->model && find_joint(&character->model->skeleton, cursor) >= 0;
        }
        if (!known) {
            const anim_character *first = anim_config_character_count(config) ? anim_config_character(config, 0) : NULL;
            char some[160] = "";
            for (int j = 0; first && first->model && j < first->model->skeleton.joint_count && j < 8; ++j) {
                size_t used = strlen(some);
                snprintf(some + used, sizeof some - used, "%s%s", j ? ", " : "", first->model->skeleton.names[j]);
            }
            return diag_set(error, "--trace-joints", 0, "no character has a joint '%s' (%s has %s, ...)", cursor,
                            first ? first->name : "the config", some);
        }
        poses->names[poses->name_count++] = cursor;
        cursor = comma ? comma + 1 : NULL;
    }
    return true;
}

trace_poses *trace_poses_create(const trace_poses_options *options, const anim_config *config, int crowd_max,
                                diag *error)
{
    if (!options || !options->joints || !config)
        return NULL;
    trace_poses *poses = calloc(1, sizeof *poses);
    if (!poses) {
        diag_set(error, "--trace-joints", 0, "out of memory");
        return NULL;
    }
    poses->with_stages = options->stages;
    poses->entities[poses->entity_count++] = (traced_entity){.member = -1};
    int largest = 1;
    for (int c = 0; c < anim_config_character_count(config); ++c) {
        const anim_character *character = anim_config_character(config, c);
        if (character->model && character->model->skeleton.joint_count > largest)
            largest = character->model->skeleton.joint_count;
    }
    if (!parse_joints(poses, options->joints, config, error) ||
        (options->members && !parse_members(poses, options->members, crowd_max, error))) {
        trace_poses_destroy(poses);
        return NULL;
    }
    if (!grow(poses, largest)) {
        diag_set(error, "--trace-joints", 0, "out of memory");
        trace_poses_destroy(poses);
        return NULL;
    }
    return poses;
}

void trace_poses_destroy(trace_poses *poses)
{
    if (!poses)
        return;
    free(poses->storage);
    free(poses->names_text);
    free(poses);
}

/* The chosen joints' indices in character's skeleton. */
static void resolve(const trace_poses *poses, traced_entity *entity, const anim_character *character)
{
    entity->resolved_for = character;
    const skeleton *s = &character->model->skeleton;
    if (poses->all_joints) {
        entity->joint_count = s->joint_count < TRACE_POSES_JOINTS_MAX ? s->joint_count : TRACE_POSES_JOINTS_MAX;
        for (int j = 0; j < entity->joint_count; ++j)
            entity->joints[j] = j;
        return;
    }
    entity->joint_count = poses->name_count;
    for (int n = 0; n < poses->name_count; ++n)
        entity->joints[n] = find_joint(s, poses->names[n]);
}

void trace_poses_attach(trace_poses *poses, player *player, crowd *crowd)
{
    if (!poses)
        return;
    for (int e = 0; e < poses->entity_count; ++e) {
        traced_entity *entity = &poses->entities[e];
        const animator *a = entity->member < 0 ? player_animator(player)
                            : entity->member < crowd_count(crowd) ? crowd_animator(crowd, entity->member)
                                                                  : NULL;
        if (!a)
            continue;
        const anim_character *character = animator_character(a);
        if (character != entity->resolved_for)
            resolve(poses, entity, character);
        /* A reload may bring a larger skeleton: the buffers grow (a rare allocation outside the animation);
         * until they can, the stages are not captured. */
        bool room = grow(poses, character->model->skeleton.joint_count) &&
                    character->model->skeleton.joint_count <= poses->capacity;
        const animator_stages *stages = poses->with_stages && room ? &entity->stages : NULL;
        if (entity->member < 0)
            player_capture_stages(player, stages);
        else
            crowd_capture_stages(crowd, entity->member, stages);
    }
}

/* ---- writing ---- */

static void write_floats(json_writer *w, const float *values, int count)
{
    json_array_begin(w);
    for (int i = 0; i < count; ++i)
        json_number(w, values[i]);
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

static void write_joints(json_writer *w, const traced_entity *entity, const skeleton *s, const joint_pose *pose,
                         mat4 world, versor turn, bool named)
{
    json_array_begin(w);
    for (int n = 0; n < entity->joint_count; ++n) {
        int j = entity->joints[n];
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
        json_number(w, shares[f]);
        json_key(w, "held");
        json_number(w, state->feet[f].weight);
        json_key(w, "placed");
        json_number(w, state->feet[f].ik);
        json_key(w, "ankle");
        write_floats(w, at, 3);
        json_key(w, "ground_height");
        json_number(w, under.height);
        json_key(w, "ground_normal");
        write_floats(w, under.normal, 3);
        json_key(w, "above_ground");
        json_number(w, (at[1] - under.height) * under.normal[1]);
        json_object_end(w);
    }
    json_array_end(w);
    json_key(w, "pelvis_drop");
    json_number(w, state->pelvis_drop);
}

static void write_entity(const trace_poses *poses, json_writer *w, const traced_entity *entity, const animator *a,
                         anim_placement placement, const ground *ground)
{
    json_object_begin(w);
    json_key(w, "entity");
    json_string(w, entity->member < 0 ? "player" : "member");
    if (entity->member >= 0) {
        json_key(w, "index");
        json_integer(w, entity->member);
    }
    json_key(w, "present");
    json_bool(w, a != NULL && entity->resolved_for == animator_character(a));
    if (!a || entity->resolved_for != animator_character(a)) {
        json_object_end(w);
        return;
    }
    const anim_character *character = animator_character(a);
    const skeleton *s = &character->model->skeleton;
    mat4 world, turn_matrix;
    anim_placement_world(&placement, &character->axes, character->scale, world);
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
    json_number(w, placement.heading * 180.0 / GLM_PI);
    const joint_pose *final = anim_controller_object_pose(animator_controller(a));
    json_key(w, "joints");
    write_joints(w, entity, s, final, world, turn, true);
    bool captured = poses->with_stages && s->joint_count <= poses->capacity;
    if (poses->with_stages) {
        json_key(w, "stages");
        json_object_begin(w);
        for (int k = 0; k < ANIMATOR_STAGE_COUNT; ++k) {
            json_key(w, animator_stage_name((animator_stage)k));
            write_joints(w, entity, s, captured ? entity->stages.poses[k] : NULL, world, turn, false);
        }
        json_object_end(w);
    }
    write_feet(w, a, final, world, ground);
    json_object_end(w);
}

void trace_poses_write(const trace_poses *poses, json_writer *w, const player *player, const crowd *crowd,
                       const ground *ground)
{
    if (!poses)
        return;
    json_key(w, "poses");
    json_array_begin(w);
    for (int e = 0; e < poses->entity_count; ++e) {
        const traced_entity *entity = &poses->entities[e];
        const animator *a = NULL;
        anim_placement placement = {.heading = 0.0f};
        if (entity->member < 0 && player) {
            a = player_animator(player);
            placement = player_placement(player);
        } else if (entity->member >= 0 && entity->member < crowd_count(crowd)) {
            a = crowd_animator(crowd, entity->member);
            placement = mover_placement(crowd_mover(crowd, entity->member));
        }
        write_entity(poses, w, entity, a, placement, ground);
    }
    json_array_end(w);
}
