/* recorder: the player's final pose, every frame of a chosen rate, kept while recording and written as a
 * .md5anim of its skeleton (md5_write_clip) that md5tool check, the demo and other MD5 readers take: what you
 * see, out as a clip for another tool (a blend, a lean, feet placed on a slope). The root keeps the body's
 * motion from where the recording started (or stays in place), in the file's units and axes. Frames are
 * kept in a buffer grown a second of frames at a time, after the step, never inside the animation.
 * Knows nothing of SDL, GL or keys. */
#ifndef MARIONETTE_RECORDER_H
#define MARIONETTE_RECORDER_H

#include <stdbool.h>

#include "anim/anim_foot_lock.h"
#include "anim/anim_character.h"
#include "base/diag.h"

/* Frames a second: 1 to RECORDER_RATE_MAX (the demo's steps a second: a frame is the pose of the step whose
 * time is the first at or after the frame's; a rate dividing 120 takes steps exactly). */
enum { RECORDER_RATE_MAX = 120 };
#define RECORDER_RATE_DEFAULT 30.0f
/* At most this many frames (an hour at 30 a second, about 110 MB for our 31 joints). */
enum { RECORDER_FRAMES_MAX = 108000 };

typedef struct recorder recorder;

/* NULL for a rate out of range or no memory. */
recorder *recorder_create(float rate, bool in_place);
void recorder_destroy(recorder *recorder);

/* Begin (again, dropping what was kept) for character, standing at start, at simulation time. */
bool recorder_start(recorder *recorder, const anim_character *character, anim_placement start, double time);
void recorder_stop(recorder *recorder); /* keep the frames, record no more */
bool recorder_recording(const recorder *recorder);
int recorder_frame_count(const recorder *recorder);
float recorder_rate(const recorder *recorder);
const anim_character *recorder_character(const recorder *recorder);

/* After a step: the character's final object pose at simulation time `time`, standing at `now`. Keeps a
 * frame for each frame time reached. False when the buffer cannot grow or is full (recording stops). */
bool recorder_step(recorder *recorder, double time, const joint_pose *object, anim_placement now);

/* The local pose of kept frame `index` (the skeleton's joint_count joints), for tests. NULL past the end. */
const joint_pose *recorder_frame(const recorder *recorder, int index);

/* The kept frames as a .md5anim at path (beside and renamed, base/file.h); false with err (the path cannot be
 * written, no frames). The frames stay kept. */
bool recorder_write(const recorder *recorder, const char *path, diag *err);

#endif
