/* recorder: see recorder.h. */
#include "recorder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build/loader.h"

struct recorder {
    float rate;
    bool in_place, recording;
    const anim_character *character;
    mat4 start_inverse; /* the world transform at the start, inverted: the root's motion is from there */
    double start_time;
    int frame_count, frame_capacity;
    joint_pose *frames;   /* frame_count x joint_count local poses */
    float (*bounds)[2][3]; /* per frame */
};

recorder *recorder_create(float rate, bool in_place)
{
    if (!(rate >= 1.0f && rate <= (float)RECORDER_RATE_MAX))
        return NULL;
    recorder *r = calloc(1, sizeof *r);
    if (r) {
        r->rate = rate;
        r->in_place = in_place;
    }
    return r;
}

void recorder_destroy(recorder *recorder)
{
    if (!recorder)
        return;
    free(recorder->frames);
    free(recorder->bounds);
    free(recorder);
}

static void world_of(const anim_character *character, const anim_placement *placement, mat4 out)
{
    anim_placement_world(placement, &character->axes, character->scale, out);
}

bool recorder_start(recorder *recorder, const anim_character *character, anim_placement start, double time)
{
    if (!recorder || !character || !character->model)
        return false;
    if (character != recorder->character) { /* another skeleton: the buffer's room in frames changes */
        free(recorder->frames);
        free(recorder->bounds);
        recorder->frames = NULL;
        recorder->bounds = NULL;
        recorder->frame_capacity = 0;
    }
    recorder->character = character;
    recorder->frame_count = 0;
    recorder->start_time = time;
    mat4 world;
    world_of(character, &start, world);
    glm_mat4_inv(world, recorder->start_inverse);
    recorder->recording = true;
    return true;
}

void recorder_stop(recorder *recorder)
{
    if (recorder)
        recorder->recording = false;
}

bool recorder_recording(const recorder *recorder)
{
    return recorder && recorder->recording;
}

int recorder_frame_count(const recorder *recorder)
{
    return recorder ? recorder->frame_count : 0;
}

float recorder_rate(const recorder *recorder)
{
    return recorder ? recorder->rate : 0.0f;
}

const anim_character *recorder_character(const recorder *recorder)
{
    return recorder ? recorder->character : NULL;
}

/* Room for one more frame: a second of frames more at a time. */
static bool make_room(recorder *recorder, int joints)
{
    if (recorder->frame_count < recorder->frame_capacity)
        return true;
    if (recorder->frame_capacity >= RECORDER_FRAMES_MAX)
        return false;
    int capacity = recorder->frame_capacity + (int)ceilf(recorder->rate);
    capacity = capacity > RECORDER_FRAMES_MAX ? RECORDER_FRAMES_MAX : capacity;
    joint_pose *frames = realloc(recorder->frames, (size_t)capacity * (size_t)joints * sizeof *frames);
    if (!frames)
        return false;
    recorder->frames = frames;
    float (*bounds)[2][3] = realloc(recorder->bounds, (size_t)capacity * sizeof *bounds);
    if (!bounds)
        return false;
    recorder->bounds = bounds;
    recorder->frame_capacity = capacity;
    return true;
}

/* One frame: the object pose as local poses, the root moved by the body's motion since the start (motion,
 * a rigid transform in the file's units and axes), and the joints' box grown by the skin's reach. */
static void keep_frame(recorder *recorder, const joint_pose *object, mat4 motion)
{
    const model *m = recorder->character->model;
    const skeleton *s = &m->skeleton;
    joint_pose *local = recorder->frames + (size_t)recorder->frame_count * (size_t)s->joint_count;
    float (*box)[3] = recorder->bounds[recorder->frame_count];
    versor turn;
    glm_mat4_quat(motion, turn);
    for (int j = 0; j < s->joint_count; ++j) {
        vec3 moved;
        glm_mat4_mulv3(motion, (float *)object[j].position, 1.0f, moved);
        for (int k = 0; k < 3; ++k) {
            box[0][k] = j == 0 || moved[k] - m->skin_reach < box[0][k] ? moved[k] - m->skin_reach : box[0][k];
            box[1][k] = j == 0 || moved[k] + m->skin_reach > box[1][k] ? moved[k] + m->skin_reach : box[1][k];
        }
        int parent = s->parents[j];
        local[j].unused = 0.0f;
        if (parent < 0) { /* a root carries the motion */
            glm_vec3_copy(moved, local[j].position);
            glm_quat_mul(turn, (float *)object[j].rotation, local[j].rotation);
            glm_quat_normalize(local[j].rotation);
            continue;
        }
        /* local = inverse(parent) * joint; the motion, common to both, cancels. */
        versor undo;
        glm_quat_inv((float *)object[parent].rotation, undo);
        vec3 offset;
        glm_vec3_sub((float *)object[j].position, (float *)object[parent].position, offset);
        glm_quat_rotatev(undo, offset, local[j].position);
        glm_quat_mul(undo, (float *)object[j].rotation, local[j].rotation);
        glm_quat_normalize(local[j].rotation);
    }
    ++recorder->frame_count;
}

bool recorder_step(recorder *recorder, double time, const joint_pose *object, anim_placement now)
{
    if (!recorder || !recorder->recording || !object)
        return false;
    const anim_character *character = recorder->character;
    mat4 motion;
    glm_mat4_identity(motion);
    if (!recorder->in_place) {
        mat4 world;
        world_of(character, &now, world);
        glm_mat4_mul(recorder->start_inverse, world, motion);
    }
    /* A frame for each frame time reached (1e-9 s: a step time equal to a frame time up to rounding). */
    while (recorder->start_time + (double)recorder->frame_count / recorder->rate <= time + 1e-9) {
        if (!make_room(recorder, character->model->skeleton.joint_count)) {
            recorder->recording = false;
            return false;
        }
        keep_frame(recorder, object, motion);
    }
    return true;
}

const joint_pose *recorder_frame(const recorder *recorder, int index)
{
    if (!recorder || index < 0 || index >= recorder->frame_count)
        return NULL;
    return recorder->frames + (size_t)index * (size_t)recorder->character->model->skeleton.joint_count;
}

bool recorder_write(const recorder *recorder, const char *path, diag *err)
{
    if (!recorder || recorder->frame_count == 0)
        return diag_set(err, path ? path : "(record)", 0, "nothing recorded: no frame was kept");
    const skeleton *s = &recorder->character->model->skeleton;
    raw_clip clip = {.joint_count = s->joint_count, .frame_count = recorder->frame_count,
                     .frame_rate = recorder->rate, .names = (char **)s->names, .parents = (int *)s->parents,
                     .frames = recorder->frames, .bounds = recorder->bounds};
    char note[128];
    snprintf(note, sizeof note, "marionette --record%s (%s)", recorder->in_place ? " --in-place" : "",
             recorder->character->name);
    return loader_write_clip(path, &clip, note, err);
}
