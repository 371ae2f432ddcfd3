/* raw: what a reader makes of a character file before anything is baked, the same structs whatever the
 * format (.md5mesh/.md5anim today; glTF or IQM would fill them too). A skeleton in bind pose, meshes with
 * their weight lists as the file gives them, a clip's local joint poses per frame. The build step
 * (build.h) turns them into the runtime's model and clip; a reader does no baking of its own.
 * Knows nothing of any file format, of GL, or of the runtime model and clip. */
#ifndef MARIONETTE_RAW_H
#define MARIONETTE_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"
#include "../model/joint_pose.h" /* a plain value type: the unit of poses everywhere */

/* Where the data came from, so the build step's messages name file:line as the reader's do. Positions in
 * the raw data are byte offsets into `text`; the line of one is counted only when a message needs it,
 * which keeps reading as fast as when the reader baked the data itself. `text` is the reader's input,
 * which must outlive the build step (NULL for a format without lines: every line is then 0). */
typedef struct raw_source {
    const char *name; /* the file name for diags */
    const char *text;
    size_t size;
} raw_source;


typedef struct raw_skeleton {
    int joint_count;
    char **names;             /* joint_count NUL-terminated names */
    int *parents;             /* -1 for a root; otherwise parents[i] < i */
    joint_pose *bind_object;  /* bind pose in object space, unit quaternions (16-byte aligned) */
    size_t *joint_at;         /* per joint: where it is written (raw_source) */
} raw_skeleton;

typedef struct raw_weight {
    float position[3];        /* in its joint's space */
    float bias;               /* >= 0 */
    int joint;                /* < the skeleton's joint_count */
} raw_weight;

typedef struct raw_mesh {
    char *shader;             /* as written (may be "") */
    int shader_line;          /* 0 when the file has none */
    char *texture_path;       /* the image the reader found for the shader, or NULL */
    /* Warnings the reader had about this mesh (a texture candidate refused): the build step reports
     * them before its own for the mesh, so a file's warnings stay in reading order. */
    diag_list notes;
    int vertex_count;
    float (*uvs)[2];
    int *first_weight;        /* per vertex: its weights are weights[first_weight .. + weights_used), */
    int *weights_used;        /*   as the file says: the build step checks the range */
    size_t *vertex_at;        /* per vertex: where it is written */
    int triangle_count;
    uint32_t (*triangles)[3]; /* indices < vertex_count, clockwise seen from the front (md5's winding) */
    int weight_count;
    raw_weight *weights;
} raw_mesh;

typedef struct raw_model {
    raw_source source;
    raw_skeleton skeleton;
    int mesh_count;
    raw_mesh *meshes;
    /* Warnings about what follows the last mesh: reported after the build step's, and only when it
     * succeeds (a file's warnings in reading order). */
    diag_list trailing_notes;
} raw_model;

typedef struct raw_clip {
    raw_source source;
    int joint_count;
    int frame_count;          /* >= 1 */
    float frame_rate;         /* frames per second, checked by the reader */
    char **names;             /* hierarchy: joint_count names and parents (parents[i] < i) */
    int *parents;
    joint_pose *frames;       /* frame_count * joint_count local poses, frame-major, unit quaternions
                               * (16-byte aligned) */
    size_t *frame_at;         /* per frame: where it is written */
    float (*bounds)[2][3];    /* per frame: min xyz, max xyz, object space, as the file gives them */
    diag_list trailing_notes; /* as raw_model's */
} raw_clip;

/* Free everything a raw struct holds (NULL members are fine) and zero it. */
void raw_model_free(raw_model *m);
void raw_clip_free(raw_clip *c);

#endif
