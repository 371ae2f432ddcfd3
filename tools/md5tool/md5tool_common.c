/* md5tool_common: see md5tool_common.h. */
#include "md5tool_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "anim/config/anim_config.h"
#include "base/file.h"
#include "build/build.h"
#include "build/loader.h"
#include "cache/cache.h"
#include "pose/pose.h"

int usage_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("md5tool: ", stderr);
    vfprintf(stderr, format, args);
    fputs(" (md5tool --help for usage)\n", stderr);
    va_end(args);
    return EXIT_USAGE;
}

/* ---- loading files by extension ---------------------------------------------------------------------- */


const char *file_type_name(file_type type)
{
    return type == FILE_TYPE_MESH ? "mesh" : type == FILE_TYPE_ANIM ? "anim" : "other";
}

bool has_extension(const char *path, const char *extension)
{
    size_t length = strlen(path), extension_length = strlen(extension);
    return length > extension_length && strcasecmp(path + length - extension_length, extension) == 0;
}

file_type file_type_of(const char *path)
{
    if (has_extension(path, ".md5mesh"))
        return FILE_TYPE_MESH;
    if (has_extension(path, ".md5anim"))
        return FILE_TYPE_ANIM;
    return FILE_TYPE_OTHER;
}


void loaded_file_free(loaded_file *f)
{
    model_free(f->model);
    clip_free(f->clip);
    diag_list_free(&f->warnings);
    f->model = NULL;
    f->clip = NULL;
}

static bool refuse(loaded_file *f, const char *reason)
{
    snprintf(f->error, sizeof f->error, "%s: %s", f->path, reason);
    f->ok = false;
    return false;
}

/* Read and parse path as the type its extension names; `expected` (if not FILE_TYPE_OTHER) is the type
 * the command needs there. Fills f; returns f->ok. */
bool load_file(const char *path, file_type expected, loaded_file *f)
{
    *f = (loaded_file){.path = path, .type = file_type_of(path)};
    struct stat info;
    if (!*path)
        return refuse(f, "empty file name");
    if (stat(path, &info) != 0) {
        char reason[128];
        snprintf(reason, sizeof reason, "cannot open: %s", strerror(errno));
        return refuse(f, reason);
    }
    if (S_ISDIR(info.st_mode))
        return refuse(f, "is a folder; md5tool reads .md5mesh and .md5anim files");
    /* Checked before opening: opening a FIFO would wait for a writer forever. */
    if (!S_ISREG(info.st_mode))
        return refuse(f, "not a regular file");
    if (f->type == FILE_TYPE_OTHER) {
        if (has_extension(path, ".md5camera"))
            return refuse(f, "an .md5camera file; md5tool reads .md5mesh and .md5anim files only");
        return refuse(f, "not an .md5mesh or .md5anim file (md5tool goes by the extension)");
    }
    if (expected != FILE_TYPE_OTHER && f->type != expected)
        return refuse(f, expected == FILE_TYPE_MESH ? "expected an .md5mesh here" : "expected an .md5anim here");

    char *text = NULL;
    size_t size = 0;
    diag err = {0};
    if (file_read_all(path, LOADER_MAX_FILE_BYTES, &text, &size, &err)) {
        if (f->type == FILE_TYPE_MESH)
            f->ok = loader_parse_md5_model(text, size, path, &f->model, &err, &f->warnings);
        else
            f->ok = loader_parse_md5_clip(text, size, path, &f->clip, &err, &f->warnings);
    }
    /* The parser has the last word: a clip saved as .md5mesh fails here, and its message says so. */
    if (!f->ok)
        diag_format(&err, f->error, sizeof f->error);
    free(text);
    return f->ok;
}

/* ---- pose and skin ---------------------------------------------------------------------------------- */


bool parse_finite(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || value != value || value > 1e30 || value < -1e30)
        return false;
    *out = value;
    return true;
}

bool pose_option(const char *command, int argc, char **argv, int *index, pose_arguments *a, int *status)
{
    int i = *index;
    const char *arg = argv[i];
    bool has_value = i + 1 < argc;
    const char *value = has_value ? argv[i + 1] : "";
    *status = 0;
    if (strcmp(arg, "--skinning") == 0) {
        a->has_skinning = true;
        if (strcmp(value, "dq") == 0)
            a->skinning = POSE_SKINNING_DUAL_QUATERNION;
        else if (!pose_skinning_parse(value, &a->skinning))
            *status = usage_error("%s: --skinning takes linear, dq or dual_quaternion, not '%s'", command, value);
    } else if (strcmp(arg, "--add") == 0 || strcmp(arg, "--reference") == 0) {
        if (!has_value)
            *status = usage_error("%s: %s needs an .md5anim after it", command, arg);
        *(arg[2] == 'a' ? &a->add_path : &a->reference_path) = value;
    } else if (strcmp(arg, "--reference-frame") == 0) {
        if (!parse_count(value, 0, 1000000, &a->reference_frame))
            *status = usage_error("%s: --reference-frame takes a frame number from 0 to 1000000, not '%s'", command,
                                  value);
        a->has_reference_frame = true;
    } else if (strcmp(arg, "--weight") == 0) {
        if (!parse_finite(value, &a->add_weight) || !(a->add_weight >= 0.0 && a->add_weight <= 1.0))
            *status = usage_error("%s: --weight takes a number from 0 to 1, not '%s'", command, value);
        a->has_weight = true;
    } else if (strcmp(arg, "--frame") == 0 || strcmp(arg, "--time") == 0) {
        bool is_frame = arg[2] == 'f';
        if (!has_value)
            *status = usage_error("%s needs a number after it", arg);
        else if (!parse_finite(value, is_frame ? &a->frame : &a->time))
            *status = usage_error("'%s' is not a number md5tool can use (finite, at most 1e30)", value);
        *(is_frame ? &a->has_frame : &a->has_time) = true;
    } else {
        return false;
    }
    *index = i + 1;
    return true;
}

bool pose_positional(const char *command, const char *arg, pose_arguments *a, int *status)
{
    *status = 0;
    if (arg[0] == '-' && arg[1] == '-')
        *status = usage_error("%s: unknown option '%s'", command, arg);
    else if (!a->mesh_path)
        a->mesh_path = arg;
    else if (!a->anim_path)
        a->anim_path = arg;
    else
        *status = usage_error("%s: unexpected argument '%s'", command, arg);
    return *status == 0;
}

int pose_arguments_check(const char *command, const pose_arguments *a)
{
    if (!a->mesh_path)
        return usage_error("%s needs a MESH", command);
    if (a->has_frame && a->has_time)
        return usage_error("%s", "give --frame or --time, not both");
    if (a->anim_path && !a->has_frame && !a->has_time)
        return usage_error("%s needs --frame F or --time T with an ANIM", command);
    if (!a->anim_path && (a->has_frame || a->has_time))
        return usage_error("%s", "--frame and --time need an ANIM");
    if (!a->add_path && (a->reference_path || a->has_reference_frame || a->has_weight))
        return usage_error("%s: --reference, --reference-frame and --weight go with --add CLIP", command);
    if (a->add_path && !a->anim_path)
        return usage_error("%s: --add adds to the pose of an ANIM: give one (and --frame or --time)", command);
    return 0;
}

/* Returns 0 on success, otherwise the exit status of the usage error it printed. */
int parse_pose_arguments(const char *command, int argc, char **argv, pose_arguments *a)
{
    *a = (pose_arguments){.add_weight = 1.0};
    for (int i = 1; i < argc; ++i) {
        int status = 0;
        if (strcmp(argv[i], "--json") == 0)
            a->json = true;
        else if (!pose_option(command, argc, argv, &i, a, &status) && !pose_positional(command, argv[i], a, &status))
            return status;
        if (status)
            return status;
    }
    return pose_arguments_check(command, a);
}

void posed_free(posed *p)
{
    loaded_file_free(&p->mesh);
    loaded_file_free(&p->anim);
    loaded_file_free(&p->add);
    loaded_file_free(&p->reference);
    free(p->local);
    free(p->object);
}

/* A clip loaded and checked against the skeleton; says why not on stderr. */
static bool load_fitting_clip(const char *path, const skeleton *s, const char *mesh_path, loaded_file *out)
{
    if (!load_file(path, FILE_TYPE_ANIM, out)) {
        fprintf(stderr, "%s\n", out->error);
        return false;
    }
    diag err = {0};
    if (!clip_fits_skeleton(out->clip, s, path, &err)) {
        char text[DIAG_TEXT_MAX];
        diag_format(&err, text, sizeof text);
        fprintf(stderr, "%s (does not fit %s)\n", text, mesh_path);
        return false;
    }
    return true;
}

/* --add: the additive clip's deltas (baked as clips.ini's `additive` bakes them, build_additive_clip) sampled at
 * the pose's time and added to p->local with the weight (pose_add), every joint. */
static bool add_layer(const pose_arguments *a, const skeleton *s, posed *p)
{
    if (!load_fitting_clip(a->add_path, s, a->mesh_path, &p->add))
        return false;
    const clip *reference = p->add.clip;
    if (a->reference_path) {
        if (!load_fitting_clip(a->reference_path, s, a->mesh_path, &p->reference))
            return false;
        reference = p->reference.clip;
    }
    clip *deltas = NULL;
    diag err = {0};
    if (!build_additive_clip(p->add.clip, reference, (int)a->reference_frame, &deltas, &err)) {
        char text[DIAG_TEXT_MAX];
        diag_format(&err, text, sizeof text);
        fprintf(stderr, "%s\n", text);
        return false;
    }
    joint_pose *delta = malloc((size_t)(s->joint_count ? s->joint_count : 1) * sizeof *delta);
    bool ok = delta && pose_sample(deltas, p->time, false, delta) &&
              pose_add(p->local, delta, (float)a->add_weight, NULL, s->joint_count, p->local);
    if (!ok)
        fprintf(stderr, "%s: the pose stages refused adding it at %g s\n", a->add_path, (double)p->time);
    free(delta);
    clip_free(deltas);
    return ok;
}

/* Loads the mesh and (if given) the clip, checks the fit, and samples the clip played once at the
 * requested time into object space. Prints the reason and returns false on failure; p is always safe to
 * posed_free. */
bool pose_from_arguments(const pose_arguments *a, posed *p)
{
    *p = (posed){0};
    if (!load_file(a->mesh_path, FILE_TYPE_MESH, &p->mesh)) {
        fprintf(stderr, "%s\n", p->mesh.error);
        return false;
    }
    if (!a->anim_path)
        return true;
    const skeleton *s = &p->mesh.model->skeleton;
    if (!load_fitting_clip(a->anim_path, s, a->mesh_path, &p->anim))
        return false;
    const clip *c = p->anim.clip;
    p->time = a->has_frame ? (float)(a->frame / (double)c->frame_rate) : (float)a->time;
    size_t count = (size_t)s->joint_count;
    p->local = malloc((count ? count : 1) * sizeof *p->local);
    p->object = malloc((count ? count : 1) * sizeof *p->object);
    if (!p->local || !p->object) {
        fprintf(stderr, "md5tool: out of memory\n");
        return false;
    }
    if (!pose_sample(c, p->time, false, p->local)) {
        fprintf(stderr, "%s: the pose stages refused this clip at %g s\n", a->anim_path, (double)p->time);
        return false;
    }
    if (a->add_path && !add_layer(a, s, p))
        return false;
    if (!pose_to_object(s->parents, s->joint_count, p->local, p->object)) {
        fprintf(stderr, "%s: the pose stages refused this pose at %g s\n", a->anim_path, (double)p->time);
        return false;
    }
    return true;
}

bool parse_count(const char *text, long long minimum, long long maximum, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || value < minimum || value > maximum)
        return false;
    *out = value;
    return true;
}

bool md5tool_config_open(const char *folder, const char *character_name, md5tool_config *out)
{
    *out = (md5tool_config){0};
    snprintf(out->characters_path, sizeof out->characters_path, "%s/characters.ini", folder);
    out->cache = cache_create();
    diag_list errors = {0};
    out->config = out->cache ? anim_config_load(out->characters_path, out->cache, &errors) : NULL;
    if (!out->config) {
        print_diags(&errors);
        diag_list_free(&errors);
        return false;
    }
    diag_list_free(&errors);
    out->character = character_name ? anim_config_find_character(out->config, character_name)
                                    : anim_config_character(out->config, 0);
    if (!out->character) {
        fprintf(stderr, "%s: no character '%s'\n", out->characters_path, character_name ? character_name : "(none)");
        return false;
    }
    return true;
}

void md5tool_config_close(md5tool_config *c)
{
    anim_config_free(c->config);
    cache_destroy(c->cache);
    *c = (md5tool_config){0};
}

void print_diags(const diag_list *errors)
{
    for (int i = 0; i < errors->count; ++i) {
        char text[DIAG_TEXT_MAX];
        diag_format(&errors->items[i], text, sizeof text);
        fprintf(stderr, "%s\n", text);
    }
    if (errors->total > errors->count)
        fprintf(stderr, "... and %d more\n", errors->total - errors->count);
}

bool md5tool_skin(const model *m, const joint_pose *object, pose_skinning skinning, float (*const *positions)[3],
                  float (*const *normals)[3])
{
    return md5tool_skin_frames(m, object, skinning, positions, normals, NULL);
}

bool md5tool_skin_frames(const model *m, const joint_pose *object, pose_skinning skinning,
                         float (*const *positions)[3], float (*const *normals)[3], float (*const *tangents)[4])
{
    const skeleton *s = &m->skeleton;
    size_t joints = (size_t)(s->joint_count ? s->joint_count : 1);
    bool dual = skinning == POSE_SKINNING_DUAL_QUATERNION;
    mat4 *matrices = dual ? NULL : malloc(joints * sizeof *matrices);
    pose_dual_quaternion *quaternions = dual ? malloc(joints * sizeof *quaternions) : NULL;
    /* The casts add const to arrays of arrays, which C before C23 does not do implicitly. */
    bool ok = dual ? quaternions && pose_dual_quaternion_palette(object, s->bind_object, s->joint_count, quaternions)
                   : matrices && pose_palette(object, (const mat4 *)s->inverse_bind, s->joint_count, matrices);
    for (int i = 0; ok && i < m->mesh_count; ++i) {
        ok = dual ? pose_skin_cpu_dual_quaternion(&m->meshes[i], quaternions, s->joint_count, positions[i], normals[i])
                  : pose_skin_cpu(&m->meshes[i], (const mat4 *)matrices, s->joint_count, positions[i], normals[i]);
        if (ok && tangents)
            ok = dual ? pose_skin_cpu_dual_quaternion_tangents(&m->meshes[i], quaternions, s->joint_count, tangents[i])
                      : pose_skin_cpu_tangents(&m->meshes[i], (const mat4 *)matrices, s->joint_count,
                                               (const float(*)[3])normals[i], tangents[i]);
    }
    free(matrices);
    free(quaternions);
    return ok;
}
