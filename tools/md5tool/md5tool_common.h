/* md5tool_common: what md5tool's commands share: loading a file by its extension, the MESH [ANIM]
 * (--frame F | --time T) arguments of pose, skin and render, and the one-line usage error. Private to
 * tools/md5tool/md5tool*.c. */
#ifndef MARIONETTE_MD5TOOL_COMMON_H
#define MARIONETTE_MD5TOOL_COMMON_H

#include <stdbool.h>

#include "base/diag.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "pose/pose_dq.h"

enum { EXIT_INVALID = 1, EXIT_USAGE = 2 };

typedef enum file_type { FILE_TYPE_OTHER, FILE_TYPE_MESH, FILE_TYPE_ANIM } file_type;

/* A file as md5tool read it: the model or the clip, or the reason it was refused. */
typedef struct loaded_file {
    const char *path;
    file_type type;
    model *model;
    clip *clip;
    bool ok;
    char error[DIAG_TEXT_MAX]; /* "file:line: message" */
    diag_list warnings;
} loaded_file;

/* Arguments shared by pose, skin and render: [--json] MESH [ANIM] [--frame F | --time T], an additive clip
 * on top (--add CLIP [--reference REF] [--reference-frame N] [--weight W]: the deltas of CLIP from frame N of
 * REF, as clips.ini's `additive = REF N` bakes them; REF defaults to CLIP itself and N to 0, clips.ini's
 * `first_frame`; W from 0 to 1, default 1) and the skinning (--skinning linear|dq|dual_quaternion). */
typedef struct pose_arguments {
    bool json;
    const char *mesh_path;
    const char *anim_path;
    bool has_frame, has_time;
    double frame, time;
    const char *add_path, *reference_path;
    long long reference_frame;
    double add_weight;
    bool has_reference_frame, has_weight;
    bool has_skinning;
    pose_skinning skinning;
} pose_arguments;

/* A mesh, and when a clip was given, the clip's object-space pose at the requested time. */
typedef struct posed {
    loaded_file mesh;
    loaded_file anim;
    loaded_file add, reference; /* --add and its --reference, when given */
    joint_pose *local;
    joint_pose *object;
    float time;
} posed;

/* One line on stderr ("md5tool: ... (md5tool --help for usage)") and returns exit status 2. */
__attribute__((format(printf, 1, 2))) int usage_error(const char *format, ...);

/* Each diag on stderr, `file:line: message` a line, then how many more were not kept. */
void print_diags(const diag_list *errors);

/* A config folder's characters (CONFIG_DIR/characters.ini) and one of them, as `trace` and `graph` pick
 * it: the named one, or the first. Problems go to stderr (file:line); false then, with whatever was made
 * still to free through md5tool_config_close. */
struct cache;
struct anim_config;
struct anim_character;
typedef struct md5tool_config {
    char characters_path[4096];
    struct cache *cache;
    struct anim_config *config;
    const struct anim_character *character;
} md5tool_config;
bool md5tool_config_open(const char *folder, const char *character_name, md5tool_config *out);
void md5tool_config_close(md5tool_config *c);

const char *file_type_name(file_type type);
bool has_extension(const char *path, const char *extension);
file_type file_type_of(const char *path);
void loaded_file_free(loaded_file *f);
bool load_file(const char *path, file_type expected, loaded_file *f);
bool parse_finite(const char *text, double *out);
/* A whole number in [minimum, maximum], the whole text. */
bool parse_count(const char *text, long long minimum, long long maximum, long long *out);
int parse_pose_arguments(const char *command, int argc, char **argv, pose_arguments *a);
/* For commands with options of their own (render): argv[*index] as one of the pose options (--frame, --time,
 * --add, --reference, --reference-frame, --weight, --skinning), *index moved past its value; false when it is
 * none of them. *status is non-zero after a usage error. Start from (pose_arguments){.add_weight = 1}. */
bool pose_option(const char *command, int argc, char **argv, int *index, pose_arguments *a, int *status);
/* arg as MESH, then ANIM; *status non-zero (and false) for an unknown option or a third file. */
bool pose_positional(const char *command, const char *arg, pose_arguments *a, int *status);
/* What must hold between the options once all are read; 0 or the usage error's status. */
int pose_arguments_check(const char *command, const pose_arguments *a);
void posed_free(posed *p);
/* Every mesh of m skinned on the CPU to an object-space pose, into positions[i] and normals[i] (vertex_count
 * each), the way the renderer's CPU reference does: pose_palette and pose_skin_cpu (linear blend), or
 * pose_dual_quaternion_palette and pose_skin_cpu_dual_quaternion. False when the pose stages refuse. */
bool md5tool_skin(const model *m, const joint_pose *object, pose_skinning skinning, float (*const *positions)[3],
                  float (*const *normals)[3]);
/* The same with each mesh's tangent frames into tangents[i] too (pose_skin_cpu_tangents or
 * pose_skin_cpu_dual_quaternion_tangents); tangents NULL: none. */
bool md5tool_skin_frames(const model *m, const joint_pose *object, pose_skinning skinning,
                         float (*const *positions)[3], float (*const *normals)[3], float (*const *tangents)[4]);
bool pose_from_arguments(const pose_arguments *a, posed *p);

/* md5tool_picture.c: the render and sheet commands. */
int command_render(int argc, char **argv);
int command_sheet(int argc, char **argv);

#endif
