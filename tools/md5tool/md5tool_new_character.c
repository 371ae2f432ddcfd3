/* md5tool new-character, the writing half: the command, its arguments and the five files. See
 * md5tool_new_character.h. realpath (for paths relative to DIR) is X/Open. */
#define _XOPEN_SOURCE 700
#include "md5tool_new_character.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anim/anim_clip.h"
#include "anim/anim_feet.h"
#include "anim/config/anim_config.h"
#include "base/file.h"
#include "base/ini_document.h"
#include "build/build.h"
#include "build/retarget.h"
#include "cache/cache.h"
#include "pose/pose.h"
#include "md5tool_common.h"
#include "md5tool_new_character_borrow.h"

/* The height new_character_study_body scales the body to. */
#define TARGET_HEIGHT_METRES 1.8f

/* ---- the command ------------------------------------------------------------------------------------- */

static const char new_character_help[] =
    "usage: md5tool new-character NAME MESH ANIM... --out DIR [--force] [--role FILE=ROLE]... [--up AXIS]\n"
    "       [--forward AXIS] [--rate FILE=FPS]... [--borrow NAME] [--borrow-from DIR] [--no-borrow]\n"
    "       [--map ROLE=JOINT]...\n"
    "\n"
    "Writes DIR/characters.ini, clips.ini, states.ini, demo.ini and controls.ini so that\n"
    "`marionette --config DIR` plays MESH as the player and as the crowd. NAME is the character's name\n"
    "(1 to 63 letters, digits, '_', '.', '-'). DIR is made if missing; existing files are kept unless\n"
    "--force, which replaces each whole (a symbolic link at one is replaced, not written through). Paths in\n"
    "the files are relative to DIR; one an ini line cannot hold (a line break, white space at an end, ' ;',\n"
    "longer than 198 characters with its key) is refused before anything is written. The files are read\n"
    "back as the demo reads them before the command says they are written.\n"
    "\n"
    "What the files cannot tell can be given: --role FILE=ROLE (FILE as given or its file name, ROLE one of\n"
    "idle walk run jump turn_left turn_right overlay pain death dead walk_back strafe_left strafe_right;\n"
    "repeat for more clips), --up and\n"
    "--forward (+X -X +Y -Y +Z -Z), and --rate FILE=FPS (the frames a second its game plays the clip at,\n"
    "1 to 1000, where the file says another: written as clips.ini's frame_rate, speeds measured at it),\n"
    "each marked `; given` in the files. A lone clip whose name says no role\n"
    "plays as the idle.\n"
    "\n"
    "Borrowing: a humanoid with no walk and no run plays another character's clip library, retargeted at\n"
    "load (clips.ini `skeleton = MESH`): by default character mannequin of this checkout's config/\n"
    "(--borrow NAME picks another, and borrows even when the model has a walk; --borrow-from DIR reads\n"
    "DIR/characters.ini; --no-borrow never borrows). Its own idle plays as the idle, the library's clips\n"
    "and states.ini are written (overlay roots renamed through the joint map), and characters.ini gets the\n"
    "joint map (map.ROLE = JOINT, found from the bind pose's shape; --map ROLE=JOINT gives a role, roles\n"
    "as `md5tool retarget` prints them) and the legs from it. A model that is no humanoid (no two legs\n"
    "below its hips and a spine above) borrows nothing, and the files say why.\n"
    "\n";
/* The rest of it (one string literal would pass what C compilers must accept). */
static const char new_character_help_guesses[] =
    "Every guess is marked with a `; guess` comment in the files, to correct by hand:\n"
    "  role of each clip, from its file name (the mesh's name in front of it is ignored), first match wins:\n"
    "    idle, stand, breath -> idle          walk -> walk          run, sprint, jog -> run\n"
    "    jump -> jump                         turn + left/right -> turn_left / turn_right\n"
    "    wave, attack, gesture, shoot, punch, throw -> overlay (upper body, E key)\n"
    "    pain, hit, flinch -> pain (H key)    death, dying, die -> death (K key)\n"
    "    dead -> dead (lying still after the death)\n"
    "    anything else: its motion decides: forward at 0.3 m/s or more is a walk (a run from 2.2 m/s), any\n"
    "    other travel is left out; one that does not travel is a turn when its root ends turned 45 degrees\n"
    "    or more, a jump when its lowest joint leaves the ground by a tenth of the body's height; what neither\n"
    "    places is a commented-out clip section and no state.\n"
    "    Two clips for one role: the first in name order is used, the other commented out.\n"
    "  loops: a clip whose last frame repeats the first (as the engine decides) loops; idle, walk and run\n"
    "    loop whatever their last frame\n"
    "  ground speed of walk and run: the root's travel per second when the root travels, else the planted\n"
    "    foot's backward slide (median over the frames it is down), in the file's units per second\n"
    "  up axis (+Z, -Z, +Y or -Y: away from the feet, or the leaf joints, where they lie at one end; else\n"
    "    the body's longer extent, feet at the bottom), forward axis (toes ahead of ankles, else the head\n"
    "    ahead of the root, else +X), both in the idle clip's first frame (some files' bind pose faces another way\n"
    "    than their clips); scale: the bind pose becomes 1.8 m tall along that up axis, as characters.ini's\n"
    "    `height = 1.8` would make it\n"
    "  the overlay's branch: where the overlay clip moves the upper body most (e.g. a shoulder)\n"
    "A clip that cannot be read or does not fit the mesh's skeleton is reported (file:line) and commented\n"
    "out. Exit status: 0 written, 1 a file is invalid or exists, or a write failed (why, in one line),\n"
    "2 command-line error or a path the files cannot hold.\n";

typedef struct candidate {
    const char *path;
    char stem[ANIM_NAME_MAX];       /* the file name without the mesh's name, folder and extension */
    char section[ANIM_NAME_MAX];    /* its clips.ini section */
    char relative[PATH_MAX];        /* its path from DIR */
    new_character_role role;
    int rival;                      /* the clip that took the role first, or -1 */
    loaded_file file;
    bool usable;                    /* read, fits, and has its role to itself */
    bool role_given;                /* --role FILE=ROLE named it */
    bool lone;                      /* the only clip, of no role its name says: the idle */
    bool from_motion;               /* its role from how it travels: its name says none */
    bool off_forward;               /* travels, but not forward: left out (problem says how) */
    float rate_given, file_rate;    /* --rate FILE=FPS (0: none), and the frameRate its file says */
    char motion[96];                /* a turn or jump found from motion: what showed it ("" otherwise) */
    char problem[DIAG_TEXT_MAX];
    new_character_speed speed;
} candidate;

/* --role FILE=ROLE: a clip's role given on the command line, matched by the path as given or its file name. */
typedef struct role_override {
    const char *file;
    new_character_role role;
    bool matched;
} role_override;

/* --rate FILE=FPS: the frame rate a clip's game plays it at, matched as --role matches. */
typedef struct rate_override {
    const char *file;
    float rate;
} rate_override;

typedef struct plan {
    const role_override *overrides;
    int override_count;
    const rate_override *rates;
    int rate_count;
    const char *name;
    const char *mesh_path;
    char mesh_relative[PATH_MAX];
    const model *model;
    new_character_body body;
    candidate *clips;
    int clip_count;
    int by_role[NEW_CHARACTER_ROLE_COUNT]; /* index into clips, or -1 */
    int idle;                               /* the idle state's clip: the idle one or a stand-in */
    int overlay_root;                       /* joint, or -1 */
    float walk_metres, run_metres;          /* m/s at the chosen scale, 0 without the clip or a speed */
    float *body_low;                        /* per joint: its height along up in the studied pose */
    const new_character_borrow *borrow;     /* the clip library it borrows, or NULL */
    char borrow_note[DIAG_TEXT_MAX];        /* why it borrows nothing when it lacks walk and run, or "" */
    char folder_real[PATH_MAX];
} plan;

static bool valid_name(const char *name)
{
    size_t length = strlen(name);
    if (length == 0 || length >= ANIM_NAME_MAX)
        return false;
    for (const char *c = name; *c; ++c)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.' && *c != '-')
            return false;
    return true;
}

/* A name clips.ini accepts, from a file name: other characters become '_'. */
static void section_name(const char *stem, char *out, size_t size)
{
    snprintf(out, size, "%s", stem[0] ? stem : "clip");
    for (char *c = out; *c; ++c)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.' && *c != '-')
            *c = '_';
}

/* to_file as seen from from_folder, both canonical absolute paths: "../assets/a.md5anim". */
static void relative_path(const char *from_folder, const char *to_file, char *out, size_t size)
{
    char from[PATH_MAX + 1];
    snprintf(from, sizeof from, "%s%s", from_folder, strcmp(from_folder, "/") == 0 ? "" : "/");
    size_t common = 0;
    for (size_t i = 0; from[i] && from[i] == to_file[i]; ++i)
        if (from[i] == '/')
            common = i + 1;
    size_t used = 0;
    out[0] = '\0';
    for (const char *c = from + common; *c; ++c)
        if (*c == '/' && used + 3 < size) {
            memcpy(out + used, "../", 4);
            used += 3;
        }
    snprintf(out + used, size - used, "%s", to_file + common);
}

/* The path written into DIR's files for a file the user named: relative to DIR when both resolve, else
 * absolute (or as given, when even that fails). */
void new_character_path_from_folder(const char *folder_real, const char *path, char *out, size_t size)
{
    char real[PATH_MAX];
    if (folder_real[0] && realpath(path, real))
        relative_path(folder_real, real, out, size);
    else
        snprintf(out, size, "%s", path);
}

/* Does FILE, as --role and --rate take it, name the clip at path: the path as given, or its file name? */
static bool names_clip(const char *file, const char *path)
{
    const char *slash = strrchr(path, '/');
    return strcmp(file, path) == 0 || strcmp(file, slash ? slash + 1 : path) == 0;
}

static int compare_candidates(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    const char *xs = strrchr(x->path, '/'), *ys = strrchr(y->path, '/');
    int by_name = strcmp(xs ? xs + 1 : x->path, ys ? ys + 1 : y->path);
    return by_name ? by_name : strcmp(x->path, y->path);
}

static const char *axis_text(int axis, float sign)
{
    static const char *const names[2][3] = {{"-X", "-Y", "-Z"}, {"+X", "+Y", "+Z"}};
    return names[sign > 0.0f][axis];
}

static float metres(const plan *p, float file_units)
{
    return file_units * p->body.scale;
}

static const candidate *role_clip(const plan *p, new_character_role role)
{
    return p->by_role[role] >= 0 ? &p->clips[p->by_role[role]] : NULL;
}

/* A `; ` comment of free text (messages and paths), wrapped at spaces to 100 columns and cut into pieces
 * of 180 where a word is longer: the ini reader refuses lines over 198 characters, comments included. */
static void write_comment(FILE *out, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void write_comment(FILE *out, const char *format, ...)
{
    char text[4096];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    enum { WRAP = 98, CUT = 180 };
    const char *line = text;
    while (*line) {
        size_t length = strcspn(line, "\n");
        size_t take = length;
        if (take > WRAP) {
            size_t space = 0;
            for (size_t i = 0; i <= WRAP; ++i)
                if (line[i] == ' ')
                    space = i;
            take = space > 0 ? space : length < CUT ? length : CUT;
        }
        fprintf(out, "; %.*s\n", (int)take, line);
        line += take;
        while (*line == ' ' || (*line == '\n' && take == length))
            ++line, take = 0;
    }
}

static bool named_for_its_role(const candidate *c)
{
    return c->role_given || strcasecmp(c->stem, new_character_role_name(c->role)) == 0;
}

/* ---- characters.ini ---- */

/* The legs the foot lock and foot IK bend: each foot found with its parent as the knee and its grandparent as
 * the hip, and foot IK on when both chains are there; otherwise said plainly. Leaves ending as low as the feet
 * that are not these two (a creature's other legs) are named as not handled. */
static void write_legs(FILE *out, const plan *p)
{
    const new_character_body *b = &p->body;
    const skeleton *s = &p->model->skeleton;
    int chains[2][3];
    bool found = b->foot_count == 2;
    for (int f = 0; found && f < 2; ++f) {
        chains[f][2] = b->foot_root[f];
        chains[f][1] = s->parents[chains[f][2]];
        chains[f][0] = chains[f][1] >= 0 ? s->parents[chains[f][1]] : -1;
        found = chains[f][0] >= 0 && chains[f][0] != chains[(f + 1) % 2][0];
    }
    if (!found) {
        fprintf(out, "; no two legs found (a foot with a knee and a hip above it): no foot lock or foot IK\n");
        return;
    }
    if (chains[0][2] > chains[1][2]) /* in skeleton order, as the engine lists legs it finds itself */
        for (int k = 0; k < 3; ++k) {
            int swap = chains[0][k];
            chains[0][k] = chains[1][k];
            chains[1][k] = swap;
        }
    fprintf(out, "; guess: the legs end at the feet found, each foot's parent its knee and grandparent its hip; foot IK\n"
                 "; puts them on the ground under them (the engine locks and places two legs)\n");
    fprintf(out, "legs = %s %s %s %s %s %s\nfoot_ik = true\n", s->names[chains[0][0]], s->names[chains[0][1]],
            s->names[chains[0][2]], s->names[chains[1][0]], s->names[chains[1][1]], s->names[chains[1][2]]);
    /* Other legs: leaves as low as the feet (within a tenth of the height), not in the two legs. */
    char others[512] = "";
    int other_count = 0;
    float lowest = fminf(p->body_low[b->foot_root[0]], p->body_low[b->foot_root[1]]);
    for (int j = 0; j < s->joint_count; ++j) {
        bool leaf = true;
        for (int child = j + 1; child < s->joint_count && leaf; ++child)
            leaf = s->parents[child] != j;
        bool in_legs = false;
        for (int up = j; up >= 0 && !in_legs; up = s->parents[up])
            in_legs = up == chains[0][0] || up == chains[1][0];
        if (!leaf || in_legs || p->body_low[j] > lowest + 0.1f * b->height)
            continue;
        size_t used = strlen(others);
        snprintf(others + used, sizeof others - used, "%s%s", other_count++ ? ", " : "", s->names[j]);
    }
    if (other_count > 0)
        write_comment(out, "not handled: %d more leg%s ending at %s: the foot lock and foot IK bend two legs, these "
                           "play as animated", other_count, other_count == 1 ? "" : "s", others);
}

static void write_characters(FILE *out, const plan *p)
{
    const new_character_body *b = &p->body;
    fprintf(out,
            "; Written by md5tool new-character for %s. Every `; guess` is what the tool worked out from the\n"
            "; files: correct it here if the character stands wrong. Keys as in the repository's\n"
            "; config/characters.ini; scale, up and forward:\n"
            ";   scale     file units to metres, 0.0001 to 10000\n"
            ";   up        the file's up axis: +Z, -Z, +Y, -Y, +X or -X\n"
            ";   forward   the way the character faces in the file, perpendicular to up\n"
            "\n[%s]\nmesh = %s\nclips = clips.ini\nstates = states.ini\n",
            p->name, p->name, p->mesh_relative);
    fprintf(out, "; guess: %s, the body is %.4g file units tall along %s; this makes it %.1f m\n",
            b->from_clip ? "in the first frame of its idle clip" : "in the bind pose", (double)b->height,
            axis_text(b->up_axis, b->up_sign), (double)TARGET_HEIGHT_METRES);
    fprintf(out, "scale = %.6g\n", (double)b->scale);
    if (b->up_given)
        fprintf(out, "; given: --up\n");
    else if (b->up_from_humanoid)
        fprintf(out, "; guess: the only up along which the bind pose stands as a humanoid: two legs reaching the ground\n"
                     "; below one joint, a spine above it up to the top (whatever the joints are called)\n");
    else if (b->up_from_feet)
        fprintf(out, "; guess: away from the feet (or the skeleton's leaf joints), which lie at one end of its %s "
                     "extent\n", axis_text(b->up_axis, 1.0f) + 1);
    else if (b->foot_count == 2 && b->feet_by_name)
        fprintf(out, "; guess: the longer of the body's Y and Z extents, the feet (%s, %s) at its %s end\n",
                p->model->skeleton.names[b->foot_root[0]], p->model->skeleton.names[b->foot_root[1]],
                b->up_sign > 0.0f ? "lower" : "upper");
    else
        fprintf(out, "; guess: the longer of the body's Y and Z extents; no joints named foot, ankle, toe or heel "
                     "to tell which end is down\n");
    fprintf(out, "up = %s\n", axis_text(b->up_axis, b->up_sign));
    if (b->forward_given)
        fprintf(out, "; given: --forward\n");
    else if (b->forward_from_feet)
        fprintf(out, "; guess: the toes are ahead of the ankles along %s\n", axis_text(b->forward_axis, b->forward_sign));
    else if (b->forward_from_head)
        fprintf(out, "; guess: the head is ahead of the root along %s (no toes tell)\n",
                axis_text(b->forward_axis, b->forward_sign));
    else if (b->forward_from_humanoid)
        fprintf(out, "; guess: the bind pose's toes (the joints below its feet, found from its shape) point along %s\n",
                axis_text(b->forward_axis, b->forward_sign));
    else
        fprintf(out, "; guess: the toes do not say which way the character faces: %s is the default (Doom 3's)\n",
                axis_text(b->forward_axis, b->forward_sign));
    fprintf(out, "forward = %s\n", axis_text(b->forward_axis, b->forward_sign));
    if (p->borrow) {
        new_character_borrow_write_map(out, p->borrow, p->model);
        return;
    }
    /* A humanoid's legs from its shape (the joint map: upper leg, lower leg, foot), whatever its joints are
     * called, when they make a leg the foot lock bends (anim_feet_leg_fits: a foot on an IK target too);
     * otherwise from the feet found. */
    float up[3] = {0.0f, 0.0f, 0.0f}, forward[3] = {0.0f, 0.0f, 0.0f};
    up[b->up_axis] = b->up_sign;
    forward[b->forward_axis] = b->forward_sign;
    retarget_map map;
    diag error;
    const skeleton *s = &p->model->skeleton;
    bool chained = retarget_map_find(p->model, up, forward, NULL, &map, NULL, NULL, &error);
    bool detached = false;
    for (int side = 0; chained && side < 2; ++side) {
        const int32_t *leg = &map.joints[side == 0 ? RETARGET_UPPER_LEG_L : RETARGET_UPPER_LEG_R];
        pose_ik_chain chain = {.hip = leg[0], .knee = leg[1], .ankle = leg[2]};
        chained = anim_feet_leg_fits(s, &chain);
        detached = detached || (chained && s->parents[leg[2]] != leg[1]);
    }
    if (!chained) {
        write_legs(out, p);
        return;
    }
    const int32_t *l = &map.joints[RETARGET_UPPER_LEG_L], *r = &map.joints[RETARGET_UPPER_LEG_R];
    fprintf(out, "; guess: the legs from the skeleton's shape (two chains reaching the ground below its hips: upper leg,\n"
                 "; lower leg, foot); foot IK puts the feet on the ground under them\n%s"
                 "legs = %s %s %s %s %s %s\nfoot_ik = true\n",
            detached ? "; the feet hang from IK targets: they are carried with the lower legs when the legs bend\n" : "",
            s->names[l[0]], s->names[l[1]], s->names[l[2]], s->names[r[0]], s->names[r[1]], s->names[r[2]]);
}

/* ---- clips.ini ---- */

static const char *speed_method_text(new_character_speed_method method)
{
    return method == NEW_CHARACTER_SPEED_ROOT_MOTION   ? "the root's travel"
           : method == NEW_CHARACTER_SPEED_PLANTED_FOOT ? "the planted foot's backward slide"
                                                        : "nothing travels";
}

static bool is_strafe(new_character_role role)
{
    return role == NEW_CHARACTER_ROLE_WALK_BACK || role == NEW_CHARACTER_ROLE_STRAFE_LEFT ||
           role == NEW_CHARACTER_ROLE_STRAFE_RIGHT;
}

static bool role_loops(new_character_role role)
{
    return role == NEW_CHARACTER_ROLE_IDLE || role == NEW_CHARACTER_ROLE_WALK || role == NEW_CHARACTER_ROLE_RUN ||
           is_strafe(role);
}

static bool is_locomotion(new_character_role role)
{
    return role == NEW_CHARACTER_ROLE_WALK || role == NEW_CHARACTER_ROLE_RUN || is_strafe(role);
}

/* Whether walk and run start on the same foot, so they can share a sync group. */
static bool locomotion_in_step(const plan *p)
{
    const candidate *walk = role_clip(p, NEW_CHARACTER_ROLE_WALK), *run = role_clip(p, NEW_CHARACTER_ROLE_RUN);
    return walk && run && walk->speed.foot_down_at_start >= 0 &&
           walk->speed.foot_down_at_start == run->speed.foot_down_at_start;
}

static void write_clip(FILE *out, const plan *p, int index)
{
    const candidate *c = &p->clips[index];
    const char *hash = c->usable ? "" : "; ";
    fputc('\n', out);
    if (!c->file.ok || !c->file.clip || c->off_forward) {
        write_comment(out, "Left out: %s", c->problem);
    } else if (c->problem[0]) {
        write_comment(out, "Left out: %s (does not fit %s)", c->problem, p->mesh_path);
    } else if (c->rival >= 0) {
        /* Why the other one plays: it is named for the role ("idle" over "chainsaw_idle", whatever their order),
         * or was given it, or came first in name order. */
        const candidate *rival = &p->clips[c->rival];
        const char *why = rival->role_given ? "was given the role (--role)"
                          : named_for_its_role(rival) && !named_for_its_role(c) ? "is named for the role"
                                                                              : "came first in name order";
        write_comment(out, "Left out: its name says %s, but %s %s. To use this one instead, point [%s] at this file.",
                      new_character_role_name(c->role), rival->path, why, rival->section);
    } else if (c->role == NEW_CHARACTER_ROLE_UNKNOWN) {
        fprintf(out, "; Left out: its name says nothing of what it is for. To use it, uncomment this section and add\n"
                     "; to states.ini a state `[state %s]` with `clip = %s` and transitions into and out of it\n"
                     "; (see the top of states.ini), or name the file after its role and run new-character again.\n",
                c->section, c->section);
    } else if (c->role_given) {
        fprintf(out, "; given: %s (--role)\n", new_character_role_name(c->role));
    } else if (c->from_motion && c->motion[0]) {
        fprintf(out, "; guess: %s, from its motion (its name says no role): %s\n", new_character_role_name(c->role),
                c->motion);
    } else if (c->from_motion) {
        static const char *const ways[] = {[NEW_CHARACTER_ROLE_WALK_BACK] = "back", [NEW_CHARACTER_ROLE_STRAFE_LEFT] = "left",
                                           [NEW_CHARACTER_ROLE_STRAFE_RIGHT] = "right"};
        fprintf(out, "; guess: %s, from its motion (its name says no role): %.3g m/s %s%s\n",
                new_character_role_name(c->role), (double)metres(p, c->speed.speed),
                is_strafe(c->role) ? ways[c->role] : "forward", index == p->idle ? "; no idle clip: it also stands in for idle" : "");
    } else if (c->lone) {
        fprintf(out, "; guess: the only clip, and its name says nothing of a role: it plays as the idle (give "
                     "--role FILE=ROLE to say otherwise)\n");
    } else if (index == p->idle && c->role != NEW_CHARACTER_ROLE_IDLE) {
        fprintf(out, "; guess: %s, and no idle clip: it also stands in for idle\n", new_character_role_name(c->role));
    } else {
        fprintf(out, "; guess: %s, from the file name\n", new_character_role_name(c->role));
    }
    fprintf(out, "%s[%s]\n%sfile = %s\n", hash, c->section, hash, c->relative);
    if (c->rate_given > 0.0f)
        fprintf(out, "; given: played at %g frames a second (--rate), where the file says %g\n%sframe_rate = %g\n",
                (double)c->rate_given, (double)c->file_rate, hash, (double)c->rate_given);
    const clip *anim = c->file.clip;
    if (!anim) {
        fprintf(out, "%sloop = false\n", hash);
        return;
    }
    bool repeats = anim->last_frame_is_first && anim->frame_count > 1;
    /* Idle, walk and run are cycles by their role; a dead pose or an unknown clip loops if it repeats its
     * first frame; every other role is a one-shot. */
    bool loops = role_loops(c->role) || index == p->idle ||
                 ((c->role == NEW_CHARACTER_ROLE_DEAD || c->role == NEW_CHARACTER_ROLE_UNKNOWN) && repeats);
    if (loops && repeats)
        fprintf(out, "; the last frame repeats the first: a seamless cycle of %.3f s\n", (double)anim->loop_duration);
    else if (loops)
        fprintf(out, "; guess: a cycle by its role, though its last frame is not its first: it wraps from the last frame\n"
                     "; to the first (a pop there means the file is not a loop)\n");
    else if (c->role == NEW_CHARACTER_ROLE_DEAD)
        fprintf(out, "; holds its last frame (its last frame is not its first: no cycle)\n");
    else
        fprintf(out, "; plays once (%.3f s) and holds its last frame\n", (double)anim->once_duration);
    fprintf(out, "%sloop = %s\n", hash, loops ? "true" : "false");
    const new_character_speed *sp = &c->speed;
    if (is_locomotion(c->role) && sp->speed > 0.0f)
        fprintf(out, "; measured from %s: %.4g file units/s, %.3g m/s at scale %.6g\n", speed_method_text(sp->method),
                (double)sp->speed, (double)metres(p, sp->speed), (double)p->body.scale);
    else if (is_locomotion(c->role))
        fprintf(out, "; could not measure a ground speed (%s; no feet found or they do not slide): set it by hand\n",
                speed_method_text(sp->method));
    fprintf(out, "%sspeed = %.6g\n", hash, is_locomotion(c->role) ? (double)sp->speed : 0.0);
    bool root_motion = (is_locomotion(c->role) && sp->method == NEW_CHARACTER_SPEED_ROOT_MOTION) ||
                       c->role == NEW_CHARACTER_ROLE_TURN_LEFT || c->role == NEW_CHARACTER_ROLE_TURN_RIGHT;
    if (is_locomotion(c->role) && root_motion)
        fprintf(out, "; the root travels %.4g file units over the clip: played in place, the game moves the body\n",
                (double)sp->root_travel);
    else if (!is_locomotion(c->role) && sp->root_travel > 0.1f * p->body.height)
        fprintf(out, "; the root travels %.4g file units: left in the pose (root_motion = false)\n",
                (double)sp->root_travel);
    fprintf(out, "%sroot_motion = %s\n", hash, root_motion ? "true" : "false");
    if (is_locomotion(c->role) && locomotion_in_step(p))
        fprintf(out, "; guess: walk and run start with the same foot down, so they keep in step across a crossfade\n"
                     "%ssync = locomotion\n", hash);
}

static void write_clips(FILE *out, const plan *p)
{
    fprintf(out,
            "; The clip library of %s, written by md5tool new-character. Keys as in the repository's\n"
            "; config/clips.ini. speed is in the clip file's units per second (m/s for files in metres); the\n"
            "; character's scale (characters.ini) turns it into m/s. Sections starting with `; [` were left\n"
            "; out; the comment above each says why.\n",
            p->name);
    if (!p->borrow) {
        if (p->borrow_note[0])
            write_comment(out, "No walk or run, and none borrowed: %s", p->borrow_note);
        for (int i = 0; i < p->clip_count; ++i)
            write_clip(out, p, i);
        return;
    }
    /* Its own idle plays as the idle; the library gives everything else; its other clips are kept for
     * states a user adds. */
    const candidate *own_idle = role_clip(p, NEW_CHARACTER_ROLE_IDLE);
    static const char *const own[] = {"idle", NULL};
    if (own_idle)
        write_clip(out, p, (int)(own_idle - p->clips));
    new_character_borrow_write_clips(out, p->borrow, p->folder_real, own_idle ? own : NULL);
    bool first = true;
    for (int i = 0; i < p->clip_count; ++i) {
        if (&p->clips[i] == own_idle)
            continue;
        if (first)
            fprintf(out, "\n; --- its own clips, in no state of states.ini (the library's): point a state's clip at one to\n"
                         "; play it (those left out say why)\n");
        first = false;
        write_clip(out, p, i);
    }
}

/* ---- states.ini ---- */

enum { RUNGS_MAX = 3 };

/* The locomotion ladder: idle, then walk and run when there are clips for them. */
typedef struct ladder {
    int count;
    const char *state[RUNGS_MAX];
    const candidate *clip[RUNGS_MAX];
    float enter[RUNGS_MAX], leave[RUNGS_MAX]; /* rung i is entered from i-1 above enter[i], left below leave[i] */
} ladder;

static ladder build_ladder(const plan *p)
{
    ladder l = {.count = 1, .state = {"idle"}, .clip = {&p->clips[p->idle]}};
    const candidate *walk = role_clip(p, NEW_CHARACTER_ROLE_WALK), *run = role_clip(p, NEW_CHARACTER_ROLE_RUN);
    if (walk && p->idle != p->by_role[NEW_CHARACTER_ROLE_WALK]) {
        l.state[l.count] = "walk";
        l.clip[l.count++] = walk;
    }
    if (run && p->idle != p->by_role[NEW_CHARACTER_ROLE_RUN]) {
        l.state[l.count] = "run";
        l.clip[l.count++] = run;
    }
    float walk_speed = p->walk_metres, run_speed = p->run_metres;
    if (l.count > 1) {
        float first = l.count == 3 ? walk_speed : (walk ? walk_speed : run_speed);
        l.enter[1] = first > 0.0f ? fminf(0.2f, 0.3f * first) : 0.2f;
        l.leave[1] = 0.75f * l.enter[1];
    }
    if (l.count == 3) {
        /* Around half-way between the two speeds, with a gap so a speed near it does not flicker. */
        float high = fmaxf(run_speed, 1.2f * walk_speed), middle = 0.5f * (walk_speed + high);
        float gap = fmaxf(0.05f * (high - walk_speed), 0.02f);
        l.enter[2] = middle + gap;
        l.leave[2] = middle - gap;
    }
    return l;
}

static void write_rung_state(FILE *out, const plan *p, const ladder *l, int i, const char *suffix)
{
    const candidate *overlay = role_clip(p, NEW_CHARACTER_ROLE_OVERLAY);
    fprintf(out, "\n[state %s%s]\nclip = %s\n", l->state[i], suffix, l->clip[i]->section);
    if (i > 0 && l->clip[i]->speed.speed > 0.0f) {
        bool run_alone = l->count == 2 && l->clip[i]->role == NEW_CHARACTER_ROLE_RUN;
        fprintf(out, "rate_from = speed\nrate_min = %s\nrate_max = %s\n",
                run_alone ? "0.4" : i == 1 ? "0.5" : "0.6", i == 1 && !run_alone ? "1.6" : "1.5");
        if (run_alone)
            fprintf(out, "; no walk clip: a walk plays the run slower (demo.ini's walk_speed is 0.6 of the run's)\n");
    } else if (i > 0) {
        fprintf(out, "; no measured speed for %s: it plays at its authored rate whatever the ground speed\n",
                l->clip[i]->section);
    }
    if (suffix[0] && overlay)
        fprintf(out, "overlay = %s\noverlay_root = %s\n", overlay->section,
                p->model->skeleton.names[p->overlay_root]);
}

static void write_ladder_transitions(FILE *out, const ladder *l, const char *suffix)
{
    for (int i = 1; i < l->count; ++i) {
        fprintf(out, "\n[%s%s -> %s%s]\nwhen = speed > %.3g\nfade = 0.25\n", l->state[i - 1], suffix, l->state[i],
                suffix, (double)l->enter[i]);
        fprintf(out, "\n[%s%s -> %s%s]\nwhen = speed < %.3g\nfade = 0.3\n", l->state[i], suffix, l->state[i - 1],
                suffix, (double)l->leave[i]);
    }
    if (l->count == 3)
        fprintf(out, "\n; A sudden stop from a run goes straight to idle: above [run -> walk], which also holds then.\n"
                     "[%s%s -> %s%s]\nwhen = speed < %.3g\nfade = 0.35\npriority = 1\n",
                l->state[2], suffix, l->state[0], suffix, (double)l->leave[1]);
}

/* From a one-shot that ended, into what the speed asks for: the fastest rung first. */
static void write_landing(FILE *out, const ladder *l, const char *from)
{
    for (int i = l->count - 1; i >= 1; --i)
        fprintf(out, "\n[%s -> %s]\nwhen = end and speed > %.3g\nfade = 0.2\npriority = %d\n", from, l->state[i],
                (double)l->leave[i], i);
    fprintf(out, "\n[%s -> %s]\nwhen = end\nfade = 0.25\n", from, l->state[0]);
}

enum { LIVING_MAX = 2 * RUNGS_MAX + 5 };

/* Whether the strafe blend is written: a forward gait and at least one of back, left and right. */
static bool strafe_clips(const plan *p)
{
    bool forward = role_clip(p, NEW_CHARACTER_ROLE_WALK) || role_clip(p, NEW_CHARACTER_ROLE_RUN);
    return forward && (role_clip(p, NEW_CHARACTER_ROLE_WALK_BACK) || role_clip(p, NEW_CHARACTER_ROLE_STRAFE_LEFT) ||
                       role_clip(p, NEW_CHARACTER_ROLE_STRAFE_RIGHT));
}

/* The strafe blend, as the shipped config's (config/states.ini, "strafe"): facing one way, moving in any
 * direction; the idle at the centre, each clip at its measured speed in its direction (forward, left), in
 * the character's own frame. Entered from every gait while the game holds `strafe`. */
static void write_strafe(FILE *out, const plan *p, const ladder *l)
{
    const candidate *walk = role_clip(p, NEW_CHARACTER_ROLE_WALK), *run = role_clip(p, NEW_CHARACTER_ROLE_RUN);
    const candidate *forward = walk ? walk : run;
    float fallback = forward && forward->speed.speed > 0.0f ? metres(p, forward->speed.speed) : 1.4f;
    fprintf(out, "\n; --- strafe (hold Ctrl): facing one way, moving in any direction ---------------------------------\n"
                 "; guess: each clip at its measured speed in its direction; the idle at the centre\n"
                 "\n[blend strafe]\nparameters = forward left\nclip.%s = 0 0\n", p->clips[p->idle].section);
    static const struct {
        new_character_role role;
        float forward, left;
    } placed[] = {{NEW_CHARACTER_ROLE_WALK, 1, 0},        {NEW_CHARACTER_ROLE_RUN, 1, 0},
                  {NEW_CHARACTER_ROLE_WALK_BACK, -1, 0},  {NEW_CHARACTER_ROLE_STRAFE_LEFT, 0, 1},
                  {NEW_CHARACTER_ROLE_STRAFE_RIGHT, 0, -1}};
    for (size_t k = 0; k < sizeof placed / sizeof placed[0]; ++k) {
        const candidate *c = role_clip(p, placed[k].role);
        if (!c || c == &p->clips[p->idle])
            continue;
        float speed = c->speed.speed > 0.0f ? metres(p, c->speed.speed) : fallback;
        fprintf(out, "clip.%s = %.3g %.3g\n", c->section, (double)(placed[k].forward * speed),
                (double)(placed[k].left * speed));
    }
    fprintf(out, "\n[state strafe]\nclip = strafe\n");
    for (int i = 0; i < l->count; ++i)
        fprintf(out, "\n[%s -> strafe]\nwhen = strafe\nfade = 0.2\n", l->state[i]);
    fprintf(out, "\n[strafe -> %s]\nwhen = not strafe\nfade = 0.2\n", l->state[0]);
}

static void write_states(FILE *out, const plan *p)
{
    if (p->borrow) {
        new_character_borrow_write_states(out, p->borrow, p->model);
        return;
    }
    ladder l = build_ladder(p);
    const candidate *overlay = role_clip(p, NEW_CHARACTER_ROLE_OVERLAY), *jump = role_clip(p, NEW_CHARACTER_ROLE_JUMP);
    const candidate *pain = role_clip(p, NEW_CHARACTER_ROLE_PAIN), *death = role_clip(p, NEW_CHARACTER_ROLE_DEATH);
    const candidate *dead = role_clip(p, NEW_CHARACTER_ROLE_DEAD);
    const candidate *turns[2] = {role_clip(p, NEW_CHARACTER_ROLE_TURN_LEFT), role_clip(p, NEW_CHARACTER_ROLE_TURN_RIGHT)};
    static const char *const turn_states[2] = {"turn_left", "turn_right"};

    fprintf(out,
            "; The state machine of %s, written by md5tool new-character. The syntax is explained at the top of\n"
            "; the repository's config/states.ini. Speeds here are the ground speed the game sets, in m/s.\n"
            ";\n"
            "; idle, walk and run follow the ground speed; walk and run play faster or slower to match it.\n"
            "; E (the wave trigger, and the crowd's wave and celebrate) plays the overlay clip on the upper body,\n"
            "; Space (jump) the jump, H (hit) the pain reaction and K (die) the death, which holds: press K\n"
            "; again, or move once it has played, to get back up.\n"
            "\n[machine]\nstart = idle\nfade = 0.2\ntrigger_hold = 0.2\n"
            "\n; What the demo sets (game/player.c, game/crowd.c): declared even when no state uses them.\n"
            "[parameters]\nspeed = number 0        ; ground speed, m/s\n",
            p->name);
    if (turns[0] || turns[1])
        fprintf(out, "turn = number 0         ; degrees to turn in place: negative left, positive right\n");
    fprintf(out, "grounded = bool true\njump = trigger\nwave = trigger\ncelebrate = trigger\n"
                 "hit = trigger           ; H in the demo\ndie = trigger           ; K in the demo\n");
    bool strafes = strafe_clips(p);
    if (strafes)
        fprintf(out, "strafe = bool false     ; held (Ctrl in the demo): face one way, move in any direction\n"
                     "forward = number 0      ; the velocity in the character's own frame, m/s: ahead\n"
                     "left = number 0         ; and to its left (negative: right)\n");

    fprintf(out, "\n; --- locomotion ------------------------------------------------------------------------------\n");
    if (l.count > 1)
        fprintf(out, "; guess: the thresholds come from the measured speeds: walk %.3g m/s, run %.3g m/s (0: no clip)\n",
                (double)p->walk_metres, (double)p->run_metres);
    if (p->idle != p->by_role[NEW_CHARACTER_ROLE_IDLE])
        fprintf(out, "; guess: no idle clip: %s stands in for it\n", p->clips[p->idle].section);
    for (int i = 0; i < l.count; ++i)
        write_rung_state(out, p, &l, i, "");
    write_ladder_transitions(out, &l, "");

    const char *living[LIVING_MAX];
    char names[RUNGS_MAX][ANIM_NAME_MAX + 16]; /* the overlay's states: idle_gesture, ... */
    int living_count = 0;
    for (int i = 0; i < l.count; ++i)
        living[living_count++] = l.state[i];
    if (strafes) {
        write_strafe(out, p, &l);
        living[living_count++] = "strafe";
    }

    if (overlay && p->overlay_root >= 0) {
        fprintf(out, "\n; --- the overlay: %s over whatever the legs do -------------------------------------\n"
                     "; guess: overlay_root %s is where %s moves the upper body most\n",
                overlay->section, p->model->skeleton.names[p->overlay_root], overlay->section);
        static const char *const gesture_suffix = "_gesture";
        for (int i = 0; i < l.count; ++i) {
            write_rung_state(out, p, &l, i, gesture_suffix);
            snprintf(names[i], sizeof names[i], "%s%s", l.state[i], gesture_suffix);
        }
        for (int i = 0; i < l.count; ++i)
            fprintf(out, "\n[%s -> %s]\nwhen = wave or celebrate\nfade = 0.2\n\n[%s -> %s]\nwhen = overlay_end\nfade = 0.3\n",
                    l.state[i], names[i], names[i], l.state[i]);
        write_ladder_transitions(out, &l, gesture_suffix);
        for (int i = 0; i < l.count; ++i)
            living[living_count++] = names[i];
    }

    int turn_count = 0;
    for (int t = 0; t < 2; ++t) {
        if (!turns[t])
            continue;
        if (turn_count++ == 0)
            fprintf(out, "\n; --- turning in place (the demo's player turns with its body: only a game setting `turn` uses these)\n");
        fprintf(out, "\n[state %s]\nclip = %s\n\n[idle -> %s]\nwhen = turn %s\nfade = 0.15\n\n[%s -> idle]\nwhen = end\nfade = 0.2\n",
                turn_states[t], turns[t]->section, turn_states[t], t == 0 ? "< -45" : "> 45", turn_states[t]);
        if (l.count > 1)
            fprintf(out, "\n[%s -> %s]\nwhen = speed > %.3g and time > 0.3\nfade = 0.25\n", turn_states[t], l.state[1],
                    (double)l.enter[1]);
        living[living_count++] = turn_states[t];
    }

    /* The one-shots below are entered from each living state by name, not from `any`: a dead character
     * must not jump or flinch. */
    const char *reacting[LIVING_MAX + 2];
    int reacting_count = 0;
    for (int i = 0; i < living_count; ++i)
        reacting[reacting_count++] = living[i];
    if (jump) {
        fprintf(out, "\n; --- jump (Space) ------------------------------------------------------------------------------\n"
                     "\n[state jump]\nclip = %s\n", jump->section);
        for (int i = 0; i < living_count; ++i)
            fprintf(out, "\n[%s -> jump]\nwhen = jump and grounded\nfade = 0.1\npriority = 10\n", living[i]);
        write_landing(out, &l, "jump");
        reacting[reacting_count++] = "jump";
    }
    if (pain) {
        fprintf(out, "\n; --- pain (H: the hit trigger) ---------------------------------------------------------------\n"
                     "\n[state pain]\nclip = %s\n", pain->section);
        for (int i = 0; i < reacting_count; ++i)
            fprintf(out, "\n[%s -> pain]\nwhen = hit\nfade = 0.1\npriority = 15\n", reacting[i]);
        write_landing(out, &l, "pain");
        reacting[reacting_count++] = "pain";
    }
    const char *dying = death ? "death" : dead ? "dead" : NULL;
    if (dying) {
        fprintf(out, "\n; --- death (K: the die trigger) --------------------------------------------------------------\n"
                     "; The death holds%s. Getting up: K again, or a move key once the death has played.\n",
                death && dead ? ", then lies in the dead clip" : "");
        if (death)
            fprintf(out, "\n[state death]\nclip = %s\n", death->section);
        if (dead)
            fprintf(out, "\n[state dead]\nclip = %s\n", dead->section);
        for (int i = 0; i < reacting_count; ++i)
            fprintf(out, "\n[%s -> %s]\nwhen = die\nfade = 0.15\npriority = 20\n", reacting[i], dying);
        if (death && dead)
            fprintf(out, "\n[death -> dead]\nwhen = end\nfade = 0.4\n\n[death -> idle]\nwhen = die\nfade = 0.5\n"
                         "\n[dead -> idle]\nwhen = die or speed > %.3g\nfade = 0.5\n",
                    (double)(l.count > 1 ? l.enter[1] : 0.2f));
        else if (death)
            fprintf(out, "\n[death -> idle]\nwhen = die or end and speed > %.3g\nfade = 0.5\n",
                    (double)(l.count > 1 ? l.enter[1] : 0.2f));
        else
            fprintf(out, "\n[dead -> idle]\nwhen = die or speed > %.3g and time > 1\nfade = 0.5\n",
                    (double)(l.count > 1 ? l.enter[1] : 0.2f));
    }
}

/* ---- demo.ini and controls.ini ---- */

static void write_demo(FILE *out, const plan *p)
{
    float walk = p->walk_metres, run = p->run_metres;
    const char *walk_note = "measured from the walk clip", *run_note = "measured from the run clip";
    if (walk <= 0.0f && run > 0.0f) {
        walk = 0.6f * run;
        walk_note = "guess: no walk clip with a speed: 0.6 of the run's, the run clip played slower";
    }
    if (run <= 0.0f && walk > 0.0f) {
        run = 2.5f * walk;
        run_note = "guess: no run clip with a speed: 2.5 times the walk's, the walk clip played faster (up to 1.6)";
    }
    if (walk <= 0.0f) {
        walk = 1.4f;
        run = 3.5f;
        walk_note = run_note = "guess: no walk or run clip with a speed: the demo's defaults";
    }
    /* demo.ini's ranges: 0.1 to 20, run at least walk. */
    walk = fminf(fmaxf(walk, 0.1f), 20.0f);
    run = fminf(fmaxf(run, walk), 20.0f);
    fprintf(out,
            "; The demo's settings for %s, written by md5tool new-character. Keys and ranges as in the repository's\n"
            "; config/demo.ini; what is left out takes its default.\n"
            "\n[player]\ncharacter = %s\n; %s, m/s\nwalk_speed = %.3g\n; %s, m/s\nrun_speed = %.3g\n"
            "\n; The crowd (C adds one) is made of %s alone; it waves and celebrates now and then (the overlay).\n"
            "[crowd]\nmix = %s 1\n",
            p->name, p->name, walk_note, (double)walk, run_note, (double)run, p->name, p->name);
}

static void write_controls(FILE *out)
{
    fputs("; The demo's controls, written by md5tool new-character: empty sections keep every default key (the\n"
          "; repository's config/controls.ini lists them: WASD moves, Shift runs, Space jumps, E waves (the\n"
          "; overlay), H hits (pain), K dies and gets up again, F1 shows them all). Add `action = Key` lines to\n"
          "; [keys] to remap.\n"
          "\n[keys]\n\n[mouse]\n",
          out);
}

/* ---- putting it together ---- */

/* One of the five files, written beside its target and renamed over it when whole (base/file's file_writer):
 * a failed write says why and leaves what was there; a symbolic link planted at the target is replaced by
 * the file, never written through. */
static bool write_file(const char *folder, const char *name, const plan *p, void (*writer)(FILE *, const plan *),
                       void (*plain_writer)(FILE *))
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    file_writer out;
    diag error;
    bool ok = file_writer_open(&out, path, &error);
    if (ok) {
        if (writer)
            writer(out.stream, p);
        else
            plain_writer(out.stream);
        ok = file_writer_commit(&out, &error);
    }
    if (!ok) {
        char line[DIAG_TEXT_MAX];
        diag_format(&error, line, sizeof line);
        fprintf(stderr, "%s\n", line);
    }
    return ok;
}

/* A path the files will hold, checked against what the ini reader takes back (base/ini_document): it has no
 * quoting, so a path with a line break, white space at an end, " ;" (a comment) or too long for a line is
 * refused here, before anything is written, rather than written and read back as another path. */
static bool path_writable(const char *file, const char *key, const char *given, const char *written)
{
    char why[160];
    if (ini_entry_writable(key, written, why, sizeof why))
        return true;
    char shown[2 * PATH_MAX];
    diag_escape(given, shown, sizeof shown);
    fprintf(stderr, "md5tool: new-character: the path '%s' %s, so %s cannot name it: rename or move the file%s\n",
            shown, why, file, strcmp(given, written) != 0 ? " (or give --out a folder it is simpler to reach from)" : "");
    return false;
}

/* Read the written files back as the demo will: a configuration the project's reader refuses is said so,
 * naming each problem, and the command fails. */
static bool written_files_load(const char *folder)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/characters.ini", folder);
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = cache ? anim_config_load(path, cache, &errors) : NULL;
    for (int i = 0; !config && i < errors.count; ++i) {
        char line[DIAG_TEXT_MAX];
        diag_format(&errors.items[i], line, sizeof line);
        fprintf(stderr, "%s\n", line);
    }
    if (!config)
        fprintf(stderr, "md5tool: new-character: the configuration written in %s does not load (above)\n", folder);
    anim_config_free(config);
    diag_list_free(&errors);
    cache_destroy(cache);
    return config != NULL;
}

static const char *const written_files[] = {"characters.ini", "clips.ini", "states.ini", "demo.ini", "controls.ini"};


/* Read and measure every clip; decide who plays each role. */
static void study_clips(plan *p)
{
    for (int r = 0; r < NEW_CHARACTER_ROLE_COUNT; ++r)
        p->by_role[r] = -1;
    qsort(p->clips, (size_t)p->clip_count, sizeof *p->clips, compare_candidates);
    for (int i = 0; i < p->clip_count; ++i) {
        candidate *c = &p->clips[i];
        c->rival = -1;
        new_character_clip_name(c->path, p->mesh_path, c->stem, sizeof c->stem);
        section_name(c->stem, c->section, sizeof c->section);
        for (int other = 0; other < i; ++other)
            if (strcmp(p->clips[other].section, c->section) == 0) {
                size_t length = strlen(c->section);
                snprintf(c->section + (length < ANIM_NAME_MAX - 4 ? length : ANIM_NAME_MAX - 4), 4, "_%d", i + 1 < 100 ? i + 1 : 99);
                other = -1;
            }
        c->role = new_character_guess_role(c->path, p->mesh_path);
        for (int o = 0; o < p->override_count; ++o) {
            if (names_clip(p->overrides[o].file, c->path)) {
                c->role = p->overrides[o].role;
                c->role_given = true;
            }
        }
        diag err = {0};
        if (!load_file(c->path, FILE_TYPE_ANIM, &c->file)) {
            snprintf(c->problem, sizeof c->problem, "%s", c->file.error);
            continue;
        }
        c->file_rate = c->file.clip->frame_rate;
        for (int o = 0; o < p->rate_count; ++o) {
            clip *retimed = NULL;
            if (names_clip(p->rates[o].file, c->path) && build_retimed_clip(c->file.clip, p->rates[o].rate, &retimed, &err)) {
                /* Measured (speeds, durations) as its game plays it. */
                clip_free(c->file.clip);
                c->file.clip = retimed;
                c->rate_given = p->rates[o].rate;
            }
        }
        if (!clip_fits_skeleton(c->file.clip, &p->model->skeleton, c->path, &err)) {
            diag_format(&err, c->problem, sizeof c->problem);
            continue;
        }
        if (c->role != NEW_CHARACTER_ROLE_UNKNOWN && p->by_role[c->role] >= 0) {
            int holder = p->by_role[c->role];
            if (!named_for_its_role(c) || named_for_its_role(&p->clips[holder])) {
                c->rival = holder;
                continue;
            }
            /* A clip named exactly for its role ("idle") takes it from one that only has one of the role's
             * words in its name ("breathe"), whatever their alphabetical order. */
            p->clips[holder].usable = false;
            for (int other = 0; other < i; ++other)
                if (other == holder || p->clips[other].rival == holder)
                    p->clips[other].rival = i;
        }
        if (c->role == NEW_CHARACTER_ROLE_UNKNOWN)
            continue;
        c->usable = true;
        p->by_role[c->role] = i;
    }
    /* A lone clip whose name says nothing of a role (Bob_idle's Bob.md5anim: the mesh's own name) is the
     * idle: a character that stands is better than none. */
    int loaded = -1, loaded_count = 0;
    for (int i = 0; i < p->clip_count; ++i)
        if (p->clips[i].file.ok && p->clips[i].file.clip && !p->clips[i].problem[0]) {
            loaded = i;
            ++loaded_count;
        }
    if (loaded_count == 1 && p->clips[loaded].role == NEW_CHARACTER_ROLE_UNKNOWN) {
        candidate *c = &p->clips[loaded];
        c->role = NEW_CHARACTER_ROLE_IDLE;
        c->lone = c->usable = true;
        p->by_role[NEW_CHARACTER_ROLE_IDLE] = loaded;
    }
    /* Without an idle clip the first usable clip stands in (a looping one preferred); without any, none. */
    p->idle = p->by_role[NEW_CHARACTER_ROLE_IDLE];
    static const new_character_role stand_ins[] = {NEW_CHARACTER_ROLE_WALK, NEW_CHARACTER_ROLE_RUN,
                                                   NEW_CHARACTER_ROLE_DEAD, NEW_CHARACTER_ROLE_OVERLAY,
                                                   NEW_CHARACTER_ROLE_JUMP, NEW_CHARACTER_ROLE_PAIN,
                                                   NEW_CHARACTER_ROLE_DEATH, NEW_CHARACTER_ROLE_TURN_LEFT,
                                                   NEW_CHARACTER_ROLE_TURN_RIGHT};
    for (size_t k = 0; p->idle < 0 && k < sizeof stand_ins / sizeof stand_ins[0]; ++k)
        p->idle = p->by_role[stand_ins[k]];
    if (p->idle >= 0 && p->clips[p->idle].role != NEW_CHARACTER_ROLE_IDLE) {
        /* The stand-in is the idle now: the role it had is not played a second time. */
        p->by_role[p->clips[p->idle].role] = -1;
    }
}

/* With the body known: ground speeds and the overlay's branch. */
/* Roles from motion, for clips whose names say none (a lone one taken for the idle included): one that
 * travels forward at 0.3 m/s or more is a walk (under 2.2 m/s, or when the walk is taken) or a run, while those
 * roles are free; one that travels another way is left out, saying so (strafe roles are not written yet). */
/* A clip that does not travel, whose name says no role: a turn when its root ends turned 45 degrees or more
 * about up from where it began (left: counter-clockwise seen from above), a jump when its lowest joint (of
 * those below a root) rises a tenth of the body's height or more above where it starts; its role then, if no
 * clip has it. */
static void turn_or_jump_from_motion(plan *p, candidate *c, int index, const float up[3], const float forward[3],
                                     const float left[3])
{
    const clip *anim = c->file.clip;
    const skeleton *s = &p->model->skeleton;
    joint_pose *pose = malloc((size_t)s->joint_count * sizeof *pose);
    if (!pose || anim->frame_count < 2) {
        free(pose);
        return;
    }
    versor first_root = GLM_QUAT_IDENTITY_INIT;
    float start_low = 0.0f, lift = 0.0f, yaw = 0.0f;
    for (int f = 0; f < anim->frame_count; ++f) {
        pose_to_object(s->parents, s->joint_count, anim->frames + (size_t)f * (size_t)s->joint_count, pose);
        float low = INFINITY; /* of the joints below a root: a root often stays on the floor as a handle */
        for (int j = 0; j < s->joint_count; ++j)
            if (s->parents[j] >= 0)
                low = fminf(low, glm_vec3_dot(pose[j].position, (float *)up));
        if (f == 0) {
            start_low = low;
            glm_quat_copy(pose[0].rotation, first_root);
        }
        lift = fmaxf(lift, low - start_low);
        if (f == anim->frame_count - 1) {
            versor inverse, turn;
            glm_quat_inv(first_root, inverse);
            glm_quat_mul(pose[0].rotation, inverse, turn);
            vec3 ahead;
            glm_quat_rotatev(turn, (float *)forward, ahead);
            yaw = atan2f(glm_vec3_dot(ahead, (float *)left), glm_vec3_dot(ahead, (float *)forward)) * 180.0f / GLM_PIf;
        }
    }
    free(pose);
    new_character_role role = yaw >= 45.0f    ? NEW_CHARACTER_ROLE_TURN_LEFT
                              : yaw <= -45.0f ? NEW_CHARACTER_ROLE_TURN_RIGHT
                              : lift >= 0.1f * p->body.height ? NEW_CHARACTER_ROLE_JUMP
                                                               : NEW_CHARACTER_ROLE_UNKNOWN;
    if (role == NEW_CHARACTER_ROLE_UNKNOWN || p->by_role[role] >= 0)
        return;
    if (role == NEW_CHARACTER_ROLE_JUMP)
        snprintf(c->motion, sizeof c->motion, "its lowest joint rises %.3g m off the ground", (double)metres(p, lift));
    else
        snprintf(c->motion, sizeof c->motion, "its root ends turned %.0f degrees %s", fabs((double)yaw),
                 yaw > 0.0f ? "left" : "right");
    c->role = role;
    c->from_motion = c->usable = true;
    p->by_role[role] = index;
}

static void roles_from_motion(plan *p)
{
    float forward[3] = {0}, up[3] = {0}, left[3];
    forward[p->body.forward_axis] = p->body.forward_sign;
    up[p->body.up_axis] = p->body.up_sign;
    /* The canonical frame's left (+Y) is up x forward (Z x X). */
    left[0] = up[1] * forward[2] - up[2] * forward[1];
    left[1] = up[2] * forward[0] - up[0] * forward[2];
    left[2] = up[0] * forward[1] - up[1] * forward[0];
    for (int i = 0; i < p->clip_count; ++i) {
        candidate *c = &p->clips[i];
        bool unplaced = c->role == NEW_CHARACTER_ROLE_UNKNOWN && !c->role_given && !c->problem[0] && c->file.clip;
        if (unplaced && !c->lone && (c->speed.method == NEW_CHARACTER_SPEED_NONE || metres(p, c->speed.speed) < 0.3f))
            turn_or_jump_from_motion(p, c, i, up, forward, left);
        if (!(unplaced || c->lone) || c->speed.method == NEW_CHARACTER_SPEED_NONE || metres(p, c->speed.speed) < 0.3f)
            continue;
        float along = c->speed.direction[0] * forward[0] + c->speed.direction[1] * forward[1] +
                      c->speed.direction[2] * forward[2];
        float side = c->speed.direction[0] * left[0] + c->speed.direction[1] * left[1] + c->speed.direction[2] * left[2];
        new_character_role strafe = along <= -0.7f ? NEW_CHARACTER_ROLE_WALK_BACK
                                    : side >= 0.7f ? NEW_CHARACTER_ROLE_STRAFE_LEFT
                                    : side <= -0.7f ? NEW_CHARACTER_ROLE_STRAFE_RIGHT
                                                    : NEW_CHARACTER_ROLE_UNKNOWN;
        if (along < 0.7f && !c->lone && strafe != NEW_CHARACTER_ROLE_UNKNOWN && p->by_role[strafe] < 0) {
            c->role = strafe;
            c->from_motion = c->usable = true;
            p->by_role[strafe] = i;
            continue;
        }
        if (along < 0.7f) {
            c->off_forward = !c->lone;
            if (!c->lone)
                snprintf(c->problem, sizeof c->problem, "%s: travels %.0f degrees off forward at %.2g m/s: a strafe or "
                         "a walk back whose role another clip has (--role FILE=ROLE to use it)", c->path,
                         (double)(acosf(fmaxf(-1.0f, fminf(1.0f, along))) * 180.0f / GLM_PIf),
                         (double)metres(p, c->speed.speed));
            continue;
        }
        new_character_role role = metres(p, c->speed.speed) < 2.2f && p->by_role[NEW_CHARACTER_ROLE_WALK] < 0
                                      ? NEW_CHARACTER_ROLE_WALK
                                  : p->by_role[NEW_CHARACTER_ROLE_RUN] < 0 ? NEW_CHARACTER_ROLE_RUN
                                  : p->by_role[NEW_CHARACTER_ROLE_WALK] < 0 ? NEW_CHARACTER_ROLE_WALK
                                                                            : NEW_CHARACTER_ROLE_UNKNOWN;
        if (role == NEW_CHARACTER_ROLE_UNKNOWN)
            continue;
        if (c->lone) { /* the lone clip walks: it stands in for the idle as a walk does */
            p->by_role[NEW_CHARACTER_ROLE_IDLE] = -1;
            c->lone = false;
        }
        c->role = role;
        c->from_motion = c->usable = true;
        p->by_role[role] = i;
        if (p->idle < 0 || p->idle == i)
            p->idle = i;
    }
}

static void measure_clips(plan *p)
{
    for (int i = 0; i < p->clip_count; ++i)
        if (p->clips[i].file.clip && !p->clips[i].problem[0])
            new_character_measure_speed(p->model, &p->body, p->clips[i].file.clip, &p->clips[i].speed);
    roles_from_motion(p);
    const candidate *walk = role_clip(p, NEW_CHARACTER_ROLE_WALK), *run = role_clip(p, NEW_CHARACTER_ROLE_RUN);
    p->walk_metres = walk ? metres(p, walk->speed.speed) : 0.0f;
    p->run_metres = run ? metres(p, run->speed.speed) : 0.0f;
    const candidate *overlay = role_clip(p, NEW_CHARACTER_ROLE_OVERLAY);
    const candidate *idle = p->by_role[NEW_CHARACTER_ROLE_IDLE] >= 0 ? &p->clips[p->by_role[NEW_CHARACTER_ROLE_IDLE]] : NULL;
    p->overlay_root = overlay ? new_character_overlay_root(p->model, &p->body, overlay->file.clip,
                                                           idle ? idle->file.clip : NULL)
                              : -1;
}

static void print_summary(const plan *p, const char *folder)
{
    const new_character_body *b = &p->body;
    printf("%s: %s, %d joints, %.4g units tall along %s, facing %s%s; scale %.6g makes it %.1f m\n", p->name,
           p->mesh_path, p->model->skeleton.joint_count, (double)b->height, axis_text(b->up_axis, b->up_sign),
           axis_text(b->forward_axis, b->forward_sign),
           b->forward_from_feet       ? " (toes ahead of ankles)"
           : b->forward_from_head     ? " (head ahead of the root)"
           : b->forward_from_humanoid ? " (the bind pose's toes)"
           : b->forward_given         ? " (given)"
                                      : " (default)",
           (double)b->scale, (double)TARGET_HEIGHT_METRES);
    if (b->foot_count == 2)
        printf("  feet: %s and %s%s\n", p->model->skeleton.names[b->foot_root[0]],
               p->model->skeleton.names[b->foot_root[1]], b->feet_by_name ? "" : " (the lowest leaf joints)");
    else
        printf("  feet: not found (speeds only from root motion)\n");
    for (int i = 0; i < p->clip_count; ++i) {
        const candidate *c = &p->clips[i];
        printf("  %-12s %-10s ", c->section, c->usable || i == p->idle ? new_character_role_name(c->role) : "-");
        if (c->problem[0])
            printf("left out: %s\n", c->problem);
        else if (c->rival >= 0)
            printf("left out: %s already plays %s\n", p->clips[c->rival].section, new_character_role_name(c->role));
        else if (c->role == NEW_CHARACTER_ROLE_UNKNOWN)
            printf("left out: role unknown from its name (commented out in clips.ini)\n");
        else if (is_locomotion(c->role) && c->speed.speed > 0.0f)
            printf("loops, %.4g units/s = %.3g m/s (%s)\n", (double)c->speed.speed, (double)metres(p, c->speed.speed), speed_method_text(c->speed.method));
        else
            printf("%s%s\n", role_loops(c->role) || i == p->idle ? "loops" : "plays once",
                   i == p->idle && c->role != NEW_CHARACTER_ROLE_IDLE ? "; stands in for idle" : "");
    }
    if (p->overlay_root >= 0 && !p->borrow)
        printf("  overlay root: %s\n", p->model->skeleton.names[p->overlay_root]);
    if (p->borrow)
        printf("  borrowed: [%s]'s %d clips and states (%s), retargeted at load through the joint map in "
               "characters.ini; travel x%.4g\n",
               p->borrow->name, p->borrow->clips.section_count, p->borrow->characters_path, (double)p->borrow->travel);
    else if (p->borrow_note[0])
        printf("  borrowed nothing: %s\n", p->borrow_note);
    printf("wrote %s/characters.ini, clips.ini, states.ini, demo.ini and controls.ini: marionette --config %s\n",
           folder, folder);
}

int command_new_character(int argc, char **argv)
{
    const char *folder = NULL, *name = NULL, *mesh_path = NULL, *borrow_name = NULL, *borrow_from = NULL;
    bool force = false, made_folder = false, no_borrow = false, borrowing = false;
    int clip_count = 0, override_count = 0, map_count = 0;
    new_character_borrow borrow = {0};
    new_character_axes axes = {.up_axis = -1, .forward_axis = -1, .up_sign = 1.0f, .forward_sign = 1.0f};
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(new_character_help, stdout);
            fputs(new_character_help_guesses, stdout);
            return EXIT_SUCCESS;
        }
    }
    char **paths = calloc((size_t)argc, sizeof *paths);
    role_override *overrides = calloc((size_t)argc, sizeof *overrides);
    const char **maps = calloc((size_t)argc, sizeof *maps);
    rate_override *rates = calloc((size_t)argc, sizeof *rates);
    int rate_count = 0;
    if (!paths || !overrides || !maps || !rates) {
        free(paths);
        free(overrides);
        free(maps);
        free(rates);
        fprintf(stderr, "md5tool: out of memory\n");
        return EXIT_INVALID;
    }
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (strcmp(arg, "--out") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                free(paths);
                free(overrides);
                free(maps);
                free(rates);
                return usage_error("%s", "new-character: --out needs a folder");
            }
            folder = argv[++i];
        } else if (strcmp(arg, "--force") == 0) {
            force = true;
        } else if ((strcmp(arg, "--borrow") == 0 || strcmp(arg, "--borrow-from") == 0 || strcmp(arg, "--map") == 0) &&
                   i + 1 < argc) {
            if (arg[2] == 'm')
                maps[map_count++] = argv[++i];
            else
                *(strcmp(arg, "--borrow") == 0 ? &borrow_name : &borrow_from) = argv[++i];
        } else if (strcmp(arg, "--no-borrow") == 0) {
            no_borrow = true;
        } else if (strcmp(arg, "--up") == 0 || strcmp(arg, "--forward") == 0) {
            bool up = arg[2] == 'u';
            int axis, sign;
            if (i + 1 >= argc || !anim_axis_parse(argv[i + 1], &axis, &sign)) {
                free(paths);
                free(overrides);
                free(maps);
                free(rates);
                return usage_error("new-character: %s takes +X -X +Y -Y +Z -Z, not '%s'", arg, i + 1 < argc ? argv[i + 1] : "");
            }
            *(up ? &axes.up_axis : &axes.forward_axis) = axis;
            *(up ? &axes.up_sign : &axes.forward_sign) = (float)sign;
            ++i;
        } else if (strcmp(arg, "--rate") == 0) {
            const char *given = i + 1 < argc ? argv[++i] : "";
            const char *equals = strrchr(given, '=');
            double rate = 0.0;
            if (!equals || equals == given || !parse_finite(equals + 1, &rate) || !(rate >= BUILD_FRAME_RATE_MIN) ||
                !(rate <= BUILD_FRAME_RATE_MAX)) {
                free(paths);
                free(overrides);
                free(maps);
                free(rates);
                return usage_error("new-character: --rate takes FILE=FPS, FPS a number from 1 to 1000; not '%s'", given);
            }
            argv[i][equals - given] = '\0';
            rates[rate_count++] = (rate_override){.file = argv[i], .rate = (float)rate};
        } else if (strcmp(arg, "--role") == 0) {
            const char *given = i + 1 < argc ? argv[++i] : "";
            const char *equals = strrchr(given, '=');
            new_character_role role = NEW_CHARACTER_ROLE_COUNT;
            for (int r = 1; equals && r < NEW_CHARACTER_ROLE_COUNT; ++r)
                if (strcmp(equals + 1, new_character_role_name((new_character_role)r)) == 0)
                    role = (new_character_role)r;
            if (!equals || equals == given || role == NEW_CHARACTER_ROLE_COUNT) {
                free(paths);
                free(overrides);
                free(maps);
                free(rates);
                return usage_error("new-character: --role takes FILE=ROLE, ROLE one of idle, walk, run, jump, "
                                   "turn_left, turn_right, overlay, pain, death, dead, walk_back, strafe_left, strafe_right; "
                                   "not '%s'", given);
            }
            /* FILE is the text before the last '=': the given string cut there (argv is ours to write). */
            argv[i][equals - given] = '\0';
            overrides[override_count++] = (role_override){.file = argv[i], .role = role};
        } else if (arg[0] == '-' && arg[1] == '-') {
            free(paths);
            free(overrides);
            free(maps);
            free(rates);
            return usage_error("new-character: unknown option '%s'", arg);
        } else if (!name) {
            name = arg;
        } else if (!mesh_path) {
            mesh_path = arg;
        } else {
            paths[clip_count++] = argv[i];
        }
    }
    const char *problem = !name || !mesh_path || clip_count == 0 ? "new-character needs NAME MESH ANIM... --out DIR"
                          : !folder                               ? "new-character needs --out DIR"
                          : !valid_name(name) ? "new-character: NAME must be 1 to 63 letters, digits, '_', '.', '-'"
                          : !has_extension(mesh_path, ".md5mesh") ? "new-character: MESH must be an .md5mesh file"
                                                                  : NULL;
    for (int i = 0; !problem && i < clip_count; ++i)
        if (!has_extension(paths[i], ".md5anim"))
            problem = "new-character: every ANIM must be an .md5anim file";
    if (!problem && axes.up_axis >= 0 && axes.forward_axis >= 0 && axes.up_axis == axes.forward_axis)
        problem = "new-character: --forward must be perpendicular to --up";
    /* Each --role and --rate must name one of the ANIM files. */
    const char *stray = NULL, *stray_option = NULL;
    for (int o = 0; !problem && !stray && o < override_count + rate_count; ++o) {
        const char *file = o < override_count ? overrides[o].file : rates[o - override_count].file;
        bool found = false;
        for (int i = 0; i < clip_count && !found; ++i)
            found = names_clip(file, paths[i]);
        if (!found) {
            stray = file;
            stray_option = o < override_count ? "--role" : "--rate";
        }
    }
    if (stray) {
        fprintf(stderr, "md5tool: new-character: %s names '%s', which is none of the ANIM files given\n", stray_option,
                stray);
        free(paths);
        free(overrides);
        free(maps);
        free(rates);
        return EXIT_USAGE;
    }
    if (!problem && no_borrow && borrow_name)
        problem = "new-character: --borrow and --no-borrow contradict each other";
    if (problem) {
        free(paths);
        free(overrides);
        free(maps);
        free(rates);
        return usage_error("%s (new-character --help for the details)", problem);
    }

    plan p = {.name = name, .mesh_path = mesh_path, .clip_count = clip_count, .overrides = overrides,
              .override_count = override_count, .rates = rates, .rate_count = rate_count};
    loaded_file mesh;
    int status = EXIT_INVALID;
    p.clips = calloc((size_t)clip_count, sizeof *p.clips);
    if (!p.clips) {
        free(paths);
        free(overrides);
        free(maps);
        free(rates);
        return EXIT_INVALID;
    }
    for (int i = 0; i < clip_count; ++i)
        p.clips[i].path = paths[i];
    free(paths);
    if (!load_file(mesh_path, FILE_TYPE_MESH, &mesh)) {
        printf("%s\n", mesh.error);
        goto done;
    }
    p.model = mesh.model;
    for (int i = 0; !force && i < (int)(sizeof written_files / sizeof written_files[0]); ++i) {
        char path[PATH_MAX];
        struct stat info;
        snprintf(path, sizeof path, "%s/%s", folder, written_files[i]);
        if (stat(path, &info) == 0) {
            fprintf(stderr, "%s exists: new-character does not overwrite a configuration (--force does)\n", path);
            goto done;
        }
    }
    made_folder = mkdir(folder, 0777) == 0;
    if (!made_folder && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create folder: %s\n", folder, strerror(errno));
        goto done;
    }
    char *folder_real = p.folder_real;
    if (!realpath(folder, folder_real))
        folder_real[0] = '\0';
    new_character_path_from_folder(folder_real, mesh_path, p.mesh_relative, sizeof p.mesh_relative);
    study_clips(&p);
    /* The idle's first frame shows the body as it plays, which is what the axes are for. */
    if (!new_character_study_body(p.model, p.idle >= 0 ? p.clips[p.idle].file.clip : NULL, &axes, &p.body)) {
        fprintf(stderr, "md5tool: out of memory\n");
        goto done;
    }
    /* Each joint's height along up, in the pose the body was studied in (the idle's first frame). */
    p.body_low = calloc((size_t)p.model->skeleton.joint_count, sizeof *p.body_low);
    joint_pose *studied = malloc((size_t)p.model->skeleton.joint_count * sizeof *studied);
    if (!p.body_low || !studied) {
        free(studied);
        fprintf(stderr, "md5tool: out of memory\n");
        goto done;
    }
    const clip *reference = p.idle >= 0 ? p.clips[p.idle].file.clip : NULL;
    if (p.body.from_clip && reference)
        pose_to_object(p.model->skeleton.parents, p.model->skeleton.joint_count, reference->frames, studied);
    else
        memcpy(studied, p.model->skeleton.bind_object, (size_t)p.model->skeleton.joint_count * sizeof *studied);
    for (int j = 0; j < p.model->skeleton.joint_count; ++j)
        p.body_low[j] = p.body.up_sign * studied[j].position[p.body.up_axis];
    free(studied);
    measure_clips(&p);
    for (int i = 0; i < p.clip_count; ++i) {
        new_character_path_from_folder(folder_real, p.clips[i].path, p.clips[i].relative, sizeof p.clips[i].relative);
        if (p.clips[i].problem[0])
            fprintf(stderr, "%s (left out)\n", p.clips[i].problem);
    }
    /* No walk and no run (or --borrow): the clip library of another character, retargeted. */
    /* (A walk or run standing in for a missing idle has left its role's slot: it still walks.) */
    bool walks = p.by_role[NEW_CHARACTER_ROLE_WALK] >= 0 || p.by_role[NEW_CHARACTER_ROLE_RUN] >= 0 ||
                 (p.idle >= 0 && (p.clips[p.idle].role == NEW_CHARACTER_ROLE_WALK ||
                                  p.clips[p.idle].role == NEW_CHARACTER_ROLE_RUN));
    if (borrow_name || (!no_borrow && !walks)) {
        float up[3] = {0.0f, 0.0f, 0.0f}, forward[3] = {0.0f, 0.0f, 0.0f};
        up[p.body.up_axis] = p.body.up_sign;
        forward[p.body.forward_axis] = p.body.forward_sign;
        retarget_map given = retarget_map_empty();
        for (int m = 0; m < map_count; ++m) {
            const char *equals = strchr(maps[m], '=');
            char role_name[32];
            snprintf(role_name, sizeof role_name, "%.*s", equals ? (int)(equals - maps[m]) : 0, maps[m]);
            int role = retarget_role_from_name(role_name);
            int joint = equals ? skeleton_find_joint(&p.model->skeleton, equals + 1) : -1;
            if (role < 0 || joint < 0) {
                fprintf(stderr, "md5tool: new-character: --map %s: %s\n", maps[m],
                        role < 0 ? "ROLE=JOINT with a role of characters.ini's map.ROLE (hips, upper_leg.L, ...)"
                                 : "the mesh has no such joint");
                status = EXIT_USAGE;
                goto done;
            }
            given.joints[role] = joint;
        }
        char why[DIAG_TEXT_MAX];
        borrowing = new_character_borrow_open(&borrow, borrow_from ? borrow_from : new_character_borrow_default_library(),
                                              borrow_name ? borrow_name : "mannequin", p.model, up, forward, &given, why,
                                              sizeof why);
        if (!borrowing && borrow_name) {
            fprintf(stderr, "md5tool: new-character: cannot borrow [%s]'s clips: %s (here: --map ROLE=JOINT); nothing "
                            "written\n", borrow_name, why);
            if (made_folder)
                rmdir(folder); /* nothing written: the folder made for it goes too */
            goto done;
        }
        if (borrowing) {
            p.borrow = &borrow;
            /* Its own idle plays as "idle"; its other clips keep their names unless the library has them. */
            candidate *own_idle = p.by_role[NEW_CHARACTER_ROLE_IDLE] >= 0 ? &p.clips[p.by_role[NEW_CHARACTER_ROLE_IDLE]] : NULL;
            if (own_idle)
                snprintf(own_idle->section, sizeof own_idle->section, "idle");
            for (int i = 0; i < p.clip_count; ++i)
                if (&p.clips[i] != own_idle && new_character_borrow_has_clip(&borrow, p.clips[i].section)) {
                    char renamed[ANIM_NAME_MAX];
                    snprintf(renamed, sizeof renamed, "own_%.*s", ANIM_NAME_MAX - 5, p.clips[i].section);
                    snprintf(p.clips[i].section, sizeof p.clips[i].section, "%s", renamed);
                }
            p.walk_metres = new_character_borrow_speed(&borrow, "walk") * p.body.scale;
            p.run_metres = new_character_borrow_speed(&borrow, "run") * p.body.scale;
        } else {
            snprintf(p.borrow_note, sizeof p.borrow_note, "%s", why);
        }
    }
    if (p.idle < 0 && !borrowing) {
        fprintf(stderr, "%s: no clip fits this mesh with a role it can play; nothing written (name a clip's role "
                        "with --role FILE=ROLE: idle, walk, run, jump, turn_left, turn_right, overlay, pain, death, "
                        "dead, walk_back, strafe_left, strafe_right)\n", mesh_path);
        goto done;
    }
    bool writable = path_writable("characters.ini", "mesh", mesh_path, p.mesh_relative);
    for (int i = 0; writable && i < p.clip_count; ++i)
        writable = path_writable("clips.ini", "file", p.clips[i].path, p.clips[i].relative);
    if (!writable) {
        status = EXIT_USAGE;
        if (made_folder)
            rmdir(folder); /* nothing written: the folder made for it goes too */
        goto done;
    }
    bool written = write_file(folder, "characters.ini", &p, write_characters, NULL) &&
                   write_file(folder, "clips.ini", &p, write_clips, NULL) &&
                   write_file(folder, "states.ini", &p, write_states, NULL) &&
                   write_file(folder, "demo.ini", &p, write_demo, NULL) &&
                   write_file(folder, "controls.ini", &p, NULL, write_controls);
    if (written && written_files_load(folder)) {
        print_summary(&p, folder);
        status = EXIT_SUCCESS;
    }
done:
    if (borrowing)
        new_character_borrow_close(&borrow);
    free(maps);
    free(rates);
    for (int i = 0; i < p.clip_count; ++i)
        loaded_file_free(&p.clips[i].file);
    free(p.clips);
    new_character_body_free(&p.body);
    loaded_file_free(&mesh);
    free(overrides);
    free(p.body_low);
    return status;
}
