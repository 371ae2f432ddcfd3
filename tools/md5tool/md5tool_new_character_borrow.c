/* md5tool new-character, borrowing another character's clip library (md5tool_new_character_borrow.h). */
#define _XOPEN_SOURCE 700
#include "md5tool_new_character_borrow.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim_feet.h"
#include "base/file.h"
#include "build/loader.h"

#ifndef MARIONETTE_SOURCE_DIR
#define MARIONETTE_SOURCE_DIR "."
#endif

const char *new_character_borrow_default_library(void)
{
    return MARIONETTE_SOURCE_DIR "/config";
}

/* The first problem an ini reader reports, for `why`. */
typedef struct first_problem {
    char text[DIAG_TEXT_MAX];
} first_problem;

static void keep_first(void *context, const char *file, int line, const char *message)
{
    first_problem *p = context;
    if (!p->text[0])
        snprintf(p->text, sizeof p->text, "%s:%d: %s", file, line, message);
}

static bool fail(char *why, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *why, size_t size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(why, size, format, args);
    va_end(args);
    return false;
}

/* A path written in an ini file (relative to that file's folder unless absolute) as a path from here. */
static void resolve(const char *ini_path, const char *written, char *out, size_t size)
{
    const char *slash = strrchr(ini_path, '/');
    if (written[0] == '/' || !slash)
        snprintf(out, size, "%s", written);
    else
        snprintf(out, size, "%.*s/%s", (int)(slash - ini_path), ini_path, written);
}

static bool read_ini(const char *path, ini_document *document, char *why, size_t why_size)
{
    char *text = NULL;
    size_t size = 0;
    diag error;
    if (!file_read_all(path, INI_MAX_FILE_BYTES, &text, &size, &error))
        return fail(why, why_size, "%s: %s", path, error.message);
    first_problem problem = {{0}};
    ini_document_parse(document, path, text, size, (config_reporter){keep_first, &problem});
    free(text);
    if (problem.text[0])
        return fail(why, why_size, "%s", problem.text);
    return true;
}

bool new_character_borrow_open(new_character_borrow *b, const char *library_folder, const char *name,
                               const model *target, const float up[3], const float forward[3],
                               const retarget_map *given, char *why, size_t why_size)
{
    *b = (new_character_borrow){0};
    snprintf(b->name, sizeof b->name, "%s", name);
    snprintf(b->characters_path, sizeof b->characters_path, "%s/characters.ini", library_folder);
    ini_document characters = {0};
    bool ok = read_ini(b->characters_path, &characters, why, why_size);
    const ini_section *section = ok ? ini_find_section(&characters, name) : NULL;
    const ini_entry *keys[3] = {NULL, NULL, NULL};
    static const char *const key_names[3] = {"mesh", "clips", "states"};
    if (ok && !section)
        ok = fail(why, why_size, "%s has no character [%s] to borrow from", b->characters_path, name);
    for (int k = 0; ok && k < 3; ++k)
        if (!(keys[k] = ini_find_entry(section, key_names[k])))
            ok = fail(why, why_size, "%s: [%s] has no '%s'", b->characters_path, name, key_names[k]);
    if (ok) {
        resolve(b->characters_path, keys[0]->value, b->mesh_path, sizeof b->mesh_path);
        resolve(b->characters_path, keys[1]->value, b->clips_path, sizeof b->clips_path);
        resolve(b->characters_path, keys[2]->value, b->states_path, sizeof b->states_path);
    }
    ini_document_free(&characters);
    if (ok && !load_file(b->mesh_path, FILE_TYPE_MESH, &b->mesh))
        ok = fail(why, why_size, "%s", b->mesh.error);
    ok = ok && read_ini(b->clips_path, &b->clips, why, why_size);
    diag error;
    if (ok && !file_read_all(b->states_path, INI_MAX_FILE_BYTES, &b->states_text, &b->states_size, &error))
        ok = fail(why, why_size, "%s: %s", b->states_path, error.message);
    /* The library's clips face +X with +Z up (characters.ini's defaults: ours); the stranger as guessed. */
    static const float our_up[3] = {0.0f, 0.0f, 1.0f}, our_forward[3] = {1.0f, 0.0f, 0.0f};
    if (ok && !retarget_map_find(b->mesh.model, our_up, our_forward, NULL, &b->source_map, NULL, NULL, &error))
        ok = fail(why, why_size, "%s: %s", b->mesh_path, error.message);
    if (ok && !retarget_map_find(target, up, forward, given, &b->target_map, b->found, NULL, &error))
        ok = fail(why, why_size, "%s", error.message);
    if (ok) {
        retarget_spec spec = {.source_map = b->source_map, .target_map = b->target_map};
        b->travel = retarget_travel_scale(&b->mesh.model->skeleton, &target->skeleton, &spec);
        if (!(b->travel > 0.0f))
            ok = fail(why, why_size, "a leg of the joint map has no length in the bind pose");
    }
    if (!ok)
        new_character_borrow_close(b);
    return ok;
}

void new_character_borrow_close(new_character_borrow *b)
{
    loaded_file_free(&b->mesh);
    ini_document_free(&b->clips);
    free(b->states_text);
    b->states_text = NULL;
}

void new_character_borrow_write_map(FILE *out, const new_character_borrow *b, const model *target)
{
    const skeleton *s = &target->skeleton;
    fprintf(out,
            "; The joint map: which joint plays each role when this character plays clips made for another\n"
            "; skeleton (clips.ini `skeleton =`, here [%s]'s). Found from the bind pose's shape: the two chains\n"
            "; reaching the ground either side of one joint are the legs, the chain up from it the spine, the\n"
            "; chains reaching furthest sideways the arms (the two longest bones of each limb: upper, lower).\n"
            "; Correct a role by naming its joint; roles: hips spine spine2 chest neck head root,\n"
            "; upper_leg lower_leg foot toe shoulder upper_arm lower_arm hand with .L or .R.\n",
            b->name);
    for (int r = 0; r < RETARGET_ROLE_COUNT; ++r) {
        int j = b->target_map.joints[r];
        if (j < 0)
            continue;
        char line[512];
        int length = snprintf(line, sizeof line, "map.%s = %s", retarget_role_name((retarget_role)r), s->names[j]);
        fprintf(out, "%s%*s; %s%s\n", line, length < 40 ? 40 - length : 1, "", b->found[r] == RETARGET_GIVEN ? "" : "guess: ",
                b->found[r] == RETARGET_GIVEN ? "given (--map)" : retarget_found_name(b->found[r]));
    }
    /* The legs for the foot lock and foot IK: the map's, when they make a leg it bends (a foot on an IK
     * target too: anim_feet_leg_fits). */
    int legs[2][3];
    bool chained = true, detached = false;
    for (int side = 0; side < 2; ++side) {
        int base = side == 0 ? RETARGET_UPPER_LEG_L : RETARGET_UPPER_LEG_R;
        for (int k = 0; k < 3; ++k)
            legs[side][k] = b->target_map.joints[base + k];
        pose_ik_chain chain = {.hip = legs[side][0], .knee = legs[side][1], .ankle = legs[side][2]};
        chained = chained && anim_feet_leg_fits(s, &chain);
        detached = detached || s->parents[legs[side][2]] != legs[side][1];
    }
    if (chained) {
        fprintf(out, "; the legs for the foot lock and foot IK, from the map%s\nlegs = %s %s %s %s %s %s\nfoot_ik = true\n",
                detached ? " (the feet hang from IK targets: they are carried\n; with the lower legs when the legs bend)"
                         : "",
                s->names[legs[0][0]], s->names[legs[0][1]], s->names[legs[0][2]], s->names[legs[1][0]],
                s->names[legs[1][1]], s->names[legs[1][2]]);
        return;
    }
    fprintf(out,
            "; not handled: the legs (%s %s %s, %s %s %s) are not legs the foot lock bends (a hip, its child and\n"
            "; a foot hanging from that child or from an IK target beyond it), so the foot lock and foot IK are\n"
            "; off; the clips play as animated\nfoot_lock = false\n",
            s->names[legs[0][0]], s->names[legs[0][1]], s->names[legs[0][2]], s->names[legs[1][0]],
            s->names[legs[1][1]], s->names[legs[1][2]]);
}

bool new_character_borrow_has_clip(const new_character_borrow *b, const char *section)
{
    return ini_find_section(&b->clips, section) != NULL;
}

bool new_character_borrow_write_clips(FILE *out, const new_character_borrow *b, const char *folder_real,
                                      const char *const *own)
{
    char mesh[PATH_MAX];
    new_character_path_from_folder(folder_real, b->mesh_path, mesh, sizeof mesh);
    char why[160];
    if (!ini_entry_writable("skeleton", mesh, why, sizeof why)) {
        fprintf(stderr, "md5tool: new-character: the path '%s' %s: move --out nearer the library\n", mesh, why);
        return false;
    }
    fprintf(out, "\n; --- borrowed from [%s] (%s): made for its skeleton, played on this one through the\n"
                 "; joint map in characters.ini, retargeted once at load; speeds are the library's, times %.4g (the\n"
                 "; legs' length over its) at load\n",
            b->name, b->characters_path, (double)b->travel);
    for (int i = 0; i < b->clips.section_count; ++i) {
        const ini_section *section = &b->clips.sections[i];
        bool skip = false;
        for (int k = 0; own && own[k] && !skip; ++k)
            skip = strcmp(own[k], section->name) == 0;
        if (skip)
            continue;
        fprintf(out, "\n[%s]\n", section->name);
        for (int e = 0; e < section->entry_count; ++e) {
            const ini_entry *entry = &section->entries[e];
            if (strcmp(entry->key, "skeleton") == 0)
                continue;
            if (strcmp(entry->key, "file") == 0) {
                char resolved[PATH_MAX], written[PATH_MAX];
                resolve(b->clips_path, entry->value, resolved, sizeof resolved);
                new_character_path_from_folder(folder_real, resolved, written, sizeof written);
                if (!ini_entry_writable("file", written, why, sizeof why)) {
                    fprintf(stderr, "md5tool: new-character: the path '%s' %s\n", written, why);
                    return false;
                }
                fprintf(out, "file = %s\nskeleton = %s\n", written, mesh);
            } else {
                fprintf(out, "%s = %s\n", entry->key, entry->value);
            }
        }
    }
    return true;
}

/* The role whose joint stands in for role's when the stranger has none for it: the next one up the body
 * (the spine missing: the chest), -1 for none. */
static int next_up(int role)
{
    switch (role) {
    case RETARGET_HIPS:
        return RETARGET_SPINE;
    case RETARGET_SPINE:
        return RETARGET_SPINE2;
    case RETARGET_SPINE2:
        return RETARGET_CHEST;
    case RETARGET_CHEST:
        return RETARGET_NECK;
    case RETARGET_NECK:
        return RETARGET_HEAD;
    case RETARGET_SHOULDER_L:
        return RETARGET_UPPER_ARM_L;
    case RETARGET_SHOULDER_R:
        return RETARGET_UPPER_ARM_R;
    default:
        return -1;
    }
}

/* The stranger's joint for a joint of the library's skeleton: the joint of its role (or of the next role up
 * the body that the stranger has), else that of its nearest ancestor with a role; -1 for none. */
static int joint_through_map(const new_character_borrow *b, int source_joint)
{
    const skeleton *s = &b->mesh.model->skeleton;
    for (int j = source_joint; j >= 0; j = s->parents[j])
        for (int r = 0; r < RETARGET_ROLE_COUNT; ++r) {
            if (b->source_map.joints[r] != j)
                continue;
            for (int q = r; q >= 0; q = next_up(q))
                if (b->target_map.joints[q] >= 0)
                    return b->target_map.joints[q];
        }
    return -1;
}

void new_character_borrow_write_states(FILE *out, const new_character_borrow *b, const model *target)
{
    fprintf(out, "; The state machine of [%s] (%s), copied by md5tool new-character: each overlay_root renamed\n"
                 "; to this skeleton's joint through the joint map (characters.ini map.*). The syntax is explained\n"
                 "; in its comments below.\n",
            b->name, b->states_path);
    const char *text = b->states_text, *end = b->states_text + b->states_size;
    while (text < end) {
        const char *line_end = memchr(text, '\n', (size_t)(end - text));
        size_t length = line_end ? (size_t)(line_end - text) : (size_t)(end - text);
        static const char key[] = "overlay_root = ";
        if (length > sizeof key - 1 && strncmp(text, key, sizeof key - 1) == 0) {
            char joint[256];
            size_t name_length = 0;
            const char *name = text + sizeof key - 1;
            while (name + name_length < text + length && name[name_length] != ' ' && name[name_length] != '\t' &&
                   name[name_length] != ';' && name_length + 1 < sizeof joint)
                ++name_length;
            snprintf(joint, sizeof joint, "%.*s", (int)name_length, name);
            int mapped = joint_through_map(b, skeleton_find_joint(&b->mesh.model->skeleton, joint));
            if (mapped >= 0) {
                fprintf(out, "overlay_root = %s    ; %s's %s, through the joint map\n", target->skeleton.names[mapped],
                        b->name, joint);
                text += length + (line_end ? 1 : 0);
                continue;
            }
        }
        fwrite(text, 1, length, out);
        fputc('\n', out);
        text += length + (line_end ? 1 : 0);
    }
}

float new_character_borrow_speed(const new_character_borrow *b, const char *section)
{
    const ini_section *s = ini_find_section(&b->clips, section);
    const ini_entry *speed = s ? ini_find_entry(s, "speed") : NULL;
    float value = 0.0f;
    if (!speed || !ini_parse_float(speed->value, &value))
        return 0.0f;
    return value * b->travel;
}
