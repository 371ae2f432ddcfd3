/* trace_poses: see trace_poses.h; the schema is docs/trace.md's. */
#include "trace_poses.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim_foot_lock.h"
#include "anim/anim_json.h"

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
            known = character->model && skeleton_find_joint(&character->model->skeleton, cursor) >= 0;
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
        entity->joints[n] = skeleton_find_joint(s, poses->names[n]);
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
    bool present = a != NULL && entity->resolved_for == animator_character(a);
    json_key(w, "present");
    json_bool(w, present);
    if (present) {
        const skeleton *s = &animator_character(a)->model->skeleton;
        bool captured = poses->with_stages && s->joint_count <= poses->capacity;
        anim_json_write_pose(w, a, &placement, ground, entity->joints, entity->joint_count,
                             captured ? &entity->stages : NULL, poses->with_stages);
    }
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
