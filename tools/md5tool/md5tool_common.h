/* md5tool_common: what md5tool's commands share: loading a file by its extension, the MESH [ANIM]
 * (--frame F | --time T) arguments of pose, skin and render, and the one-line usage error. Private to
 * tools/md5tool/md5tool*.c. */
#ifndef MARIONETTE_MD5TOOL_COMMON_H
#define MARIONETTE_MD5TOOL_COMMON_H

#include <stdbool.h>

#include "base/diag.h"
#include "build/loader.h"
#include "md5/md5.h"

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

/* Arguments shared by pose and skin: [--json] MESH [ANIM] [--frame F | --time T]. */
typedef struct pose_arguments {
    bool json;
    const char *mesh_path;
    const char *anim_path;
    bool has_frame, has_time;
    double frame, time;
} pose_arguments;

/* A mesh, and when a clip was given, the clip's object-space pose at the requested time. */
typedef struct posed {
    loaded_file mesh;
    loaded_file anim;
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
void posed_free(posed *p);
bool pose_from_arguments(const pose_arguments *a, posed *p);

/* md5tool_picture.c: the render and sheet commands. */
int command_render(int argc, char **argv);
int command_sheet(int argc, char **argv);

#endif
