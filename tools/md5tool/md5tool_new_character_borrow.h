/* md5tool new-character, borrowing: a humanoid stranger plays another character's clip library (ours by
 * default: config/characters.ini's mannequin), each clip retargeted at load (clips.ini `skeleton = MESH`,
 * engine/build/retarget.h). The library's clips.ini entries are written with their own settings, its
 * states.ini copied with its overlay roots renamed through the joint map, and the stranger's joint map
 * written into characters.ini (map.ROLE = JOINT) as guesses to correct. */
#ifndef MARIONETTE_MD5TOOL_NEW_CHARACTER_BORROW_H
#define MARIONETTE_MD5TOOL_NEW_CHARACTER_BORROW_H

#include <stdbool.h>
#include <stdio.h>

#include "base/ini_document.h"
#include "build/retarget.h"
#include "md5tool_common.h"

typedef struct new_character_borrow {
    char name[64];                 /* the library's character */
    char characters_path[4096];    /* its characters.ini */
    char mesh_path[4096], clips_path[4096], states_path[4096];
    loaded_file mesh;              /* its mesh: the skeleton its clips were made for */
    ini_document clips;            /* its clips.ini */
    char *states_text;             /* its states.ini */
    size_t states_size;
    retarget_map source_map, target_map;
    retarget_found found[RETARGET_ROLE_COUNT];
    float travel;                  /* the stranger's leg length over the library's */
} new_character_borrow;

/* The library folder md5tool uses when --borrow-from is not given: the repository's config/. */
const char *new_character_borrow_default_library(void);

/* Read character `name` of library_folder/characters.ini (its mesh, clips.ini and states.ini) and map both
 * skeletons (the stranger's, target, with its file's up and forward; given roles from --map win). False
 * with why filled (one line, no trailing period) when anything fails; b is then closed. */
bool new_character_borrow_open(new_character_borrow *b, const char *library_folder, const char *name,
                               const model *target, const float up[3], const float forward[3],
                               const retarget_map *given, char *why, size_t why_size);
void new_character_borrow_close(new_character_borrow *b);

/* characters.ini: the joint map (each role, how it was found) and the legs from it: upper leg, lower leg and
 * foot when each is the parent of the next (foot IK on), else said plainly that the foot lock and foot IK
 * do not handle them. */
void new_character_borrow_write_map(FILE *out, const new_character_borrow *b, const model *target);

/* clips.ini: every clip of the library but those named in `own` (NULL-terminated section names the stranger
 * plays itself), as borrowed entries with paths relative to folder_real (the output folder, resolved). False
 * when a path cannot be written (said on stderr). */
bool new_character_borrow_write_clips(FILE *out, const new_character_borrow *b, const char *folder_real,
                                      const char *const *own);
/* Whether the library has a clip section of that name. */
bool new_character_borrow_has_clip(const new_character_borrow *b, const char *section);

/* states.ini: the library's, its overlay_root joints renamed through the two maps. */
void new_character_borrow_write_states(FILE *out, const new_character_borrow *b, const model *target);

/* The library clip's `speed` in the stranger's file units per second (times travel); 0 without one. */
float new_character_borrow_speed(const new_character_borrow *b, const char *section);

/* DIR's path for a file the user named (new-character's own rule: relative to DIR when both resolve). */
void new_character_path_from_folder(const char *folder_real, const char *path, char *out, size_t size);

#endif
