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

/* Returns 0 on success, otherwise the exit status of the usage error it printed. */
int parse_pose_arguments(const char *command, int argc, char **argv, pose_arguments *a)
{
    *a = (pose_arguments){0};
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (strcmp(arg, "--json") == 0) {
            a->json = true;
        } else if (strcmp(arg, "--frame") == 0 || strcmp(arg, "--time") == 0) {
            bool is_frame = arg[2] == 'f';
            if (i + 1 >= argc)
                return usage_error("%s needs a number after it", arg);
            if (!parse_finite(argv[++i], is_frame ? &a->frame : &a->time))
                return usage_error("'%s' is not a number md5tool can use (finite, at most 1e30)", argv[i]);
            if (is_frame)
                a->has_frame = true;
            else
                a->has_time = true;
        } else if (arg[0] == '-' && arg[1] == '-') {
            return usage_error("unknown option '%s'", arg);
        } else if (!a->mesh_path) {
            a->mesh_path = arg;
        } else if (!a->anim_path) {
            a->anim_path = arg;
        } else {
            return usage_error("unexpected argument '%s'", arg);
        }
    }
    if (!a->mesh_path)
        return usage_error("%s needs a MESH", command);
    if (a->has_frame && a->has_time)
        return usage_error("%s", "give --frame or --time, not both");
    if (a->anim_path && !a->has_frame && !a->has_time)
        return usage_error("%s needs --frame F or --time T with an ANIM", command);
    if (!a->anim_path && (a->has_frame || a->has_time))
        return usage_error("%s", "--frame and --time need an ANIM");
    return 0;
}


void posed_free(posed *p)
{
    loaded_file_free(&p->mesh);
    loaded_file_free(&p->anim);
    free(p->local);
    free(p->object);
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
    if (!load_file(a->anim_path, FILE_TYPE_ANIM, &p->anim)) {
        fprintf(stderr, "%s\n", p->anim.error);
        return false;
    }
    diag err = {0};
    const skeleton *s = &p->mesh.model->skeleton;
    if (!clip_fits_skeleton(p->anim.clip, s, a->anim_path, &err)) {
        char text[DIAG_TEXT_MAX];
        diag_format(&err, text, sizeof text);
        fprintf(stderr, "%s (does not fit %s)\n", text, a->mesh_path);
        return false;
    }
    const clip *c = p->anim.clip;
    p->time = a->has_frame ? (float)(a->frame / (double)c->frame_rate) : (float)a->time;
    size_t count = (size_t)s->joint_count;
    p->local = malloc((count ? count : 1) * sizeof *p->local);
    p->object = malloc((count ? count : 1) * sizeof *p->object);
    if (!p->local || !p->object) {
        fprintf(stderr, "md5tool: out of memory\n");
        return false;
    }
    if (!pose_sample(c, p->time, false, p->local) ||
        !pose_to_object(s->parents, s->joint_count, p->local, p->object)) {
        fprintf(stderr, "%s: the pose stages refused this clip at %g s\n", a->anim_path, (double)p->time);
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
