/* anim_config_internal: what the files of the anim_config module share; nothing outside them includes it.
 *   anim_config.c         characters.ini, the config and its lifetime, watched files, hot reload
 *   anim_config_values.c  reporting problems at their line, reading values out of entries
 *   anim_config_clips.c   clips.ini: one character's clip library
 *   anim_config_states.c  states.ini: one character's state machine definition
 *   anim_config_condition.c  states.ini's conditions ("speed > 0.2 and grounded or jump")
 *   anim_config_textures.c  one character's texture paths: its characters.ini keys `textures`, `texture.*`
 *   anim_config_import.c  characters.ini's scale, height, up and forward: a character's import
 *   anim_config_look.c    characters.ini's look_* keys: a character's look-at chain
 * The text of every ini file goes through ini_document first. */
#ifndef MARIONETTE_ANIM_CONFIG_INTERNAL_H
#define MARIONETTE_ANIM_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "anim_config.h"
#include "../../base/config_values.h"
#include "../../base/ini_document.h"
#include "../../build/retarget.h"

enum { ANIM_CONFIG_PATH_MAX = 1024 };

/* What one character owns, kept apart from the const view in anim_character. */
typedef struct anim_character_storage {
    char *mesh_path;
    char **texture_paths; /* texture_count of them, each its own copy or NULL */
    char **normal_map_paths, **specular_map_paths; /* the same */
    int texture_count;
    anim_clip *clips;
    anim_event_mark **events; /* per clip */
    cache_clip_handle *clip_handles;
    cache_clip_handle *additive_handles; /* per clip: its baked deltas in the cache when additive, else {0} */
    cache_derived_handle *contact_handles; /* per clip: its feet's contacts in the cache (its anim_clip.planted),
                                            * or {0} */
    char (*sync_group_names)[ANIM_NAME_MAX];
    state_machine_state *states;
    float **branch_masks;     /* per joint: the mask of the branch a state's overlay plays on there, or NULL */
    float *branch_mask_block; /* their weights */
    anim_blend *blends;
    state_machine_transition *transitions;
    int transition_capacity;
    int *transition_index; /* the machine's state_machine_index (its offsets and candidates), or NULL */
    /* Retargeting, during a load (anim_config_retarget.c): per clip made for another skeleton, its clip as
     * read and the model it was made for, held until the load ends so characters on one clips.ini read each
     * file once; the map given (characters.ini map.ROLE, lines where given) and the one found. */
    cache_clip_handle *retarget_raw;
    cache_model_handle *retarget_models;
    cache_clip_handle *retime_sources; /* per clip with frame_rate: the clip it was retimed from, held as well */
    retarget_map map_given, map;
    float map_bind_forward[3]; /* the way the character's bind pose faces (retarget_map_find) */
    uint32_t source_map_model; /* the cache model the next two are of (0: none yet) */
    retarget_map source_map;   /* the map of the skeleton its clips were made for, found once */
    float source_bind_forward[3];
    int map_lines[RETARGET_ROLE_COUNT];
    int map_state; /* 0: not looked for yet; 1: found; -1: none (reported) */
    const char *map_path; /* characters.ini, or NULL for a character given directly */
    int map_line;
} anim_character_storage;

/* One load or reload in progress. */
typedef struct anim_config_loader {
    cache *cache;
    anim_config *config;
    diag_list *errors;
    int errors_before; /* errors->count when this load started: only this load's diags are deduplicated */
    int error_count;
    bool partial;        /* assets that fail are worked around (anim_config_load_partial) */
    int stand_in_count;  /* problems worked around */
    int warning_count;   /* warnings added to errors that are not problems */
} anim_config_loader;

/* anim_config_values.c ------------------------------------------------------------------------------- */

/* Count a problem and add it to loader->errors unless this load already reported the same one. */
void anim_config_report(anim_config_loader *loader, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* A problem a partial load works around (a clip or mesh that failed, a clip name the library lacks): reported
 * like any other, counted as a stand-in instead of an error. Only when loader->partial. */
void anim_config_report_stand_in(anim_config_loader *loader, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* anim_config_report for a finished message; context is the loader. A config_reporter's function. */
void anim_config_report_message(void *context, const char *file, int line, const char *message);
/* The reporter of anim_config_report: for the base config readers (config_values.h). */
config_reporter anim_config_reporter(anim_config_loader *loader);

/* "a, b, c" from the name fields of an array of structs (stride apart), cut to fit out; "(none)" for none. */
const char *anim_config_join_names(char *out, size_t size, const char *first_name, size_t stride, int count);

/* Not a problem with the config, only worth knowing (a texture that will be a placeholder, a character a
 * hundred times too tall): added to loader->errors as "warning: ..." at its line (so it reaches the HUD), and
 * counted in loader->warning_count, as neither an error nor a stand-in: the load goes on as if it were not
 * there. */
void anim_config_warn(anim_config_loader *loader, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* Report every key of section that is not in known (NULL-terminated). A known key ending in ".*" stands for
 * every key that starts with what precedes the '*' ("texture.*"). */
void anim_config_check_keys(anim_config_loader *loader, const char *path, const ini_section *section,
                            const char *const *known);

/* The range of every number the animation config files accept: one row each in anim_config_values.c, the
 * same as documented at the top of config/clips.ini, states.ini and characters.ini. */
typedef enum anim_config_range {
    ANIM_RANGE_CLIP_SPEED,        /* clips.ini speed, file units per second */
    ANIM_RANGE_EVENT_FRAME,       /* clips.ini events' frames (also at most the clip's last frame) */
    ANIM_RANGE_FRAME_RATE,        /* clips.ini frame_rate, frames per second (BUILD_FRAME_RATE_MIN..MAX) */
    ANIM_RANGE_RATE,              /* states.ini rate, rate_min, rate_max */
    ANIM_RANGE_FADE,              /* states.ini fade, [machine] and transitions, seconds */
    ANIM_RANGE_TRIGGER_HOLD,      /* states.ini trigger_hold, seconds */
    ANIM_RANGE_PRIORITY,          /* states.ini priority, a whole number */
    ANIM_RANGE_PARAMETER_DEFAULT, /* states.ini [parameters] number defaults */
    ANIM_RANGE_CONDITION,         /* numbers in conditions: parameter comparisons and time */
    ANIM_RANGE_BLEND_POINT,       /* states.ini [blend NAME] clip positions */
    ANIM_RANGE_SCALE,             /* characters.ini scale */
    ANIM_RANGE_HEIGHT,            /* characters.ini height, metres */
    ANIM_RANGE_LOOK_YAW,          /* characters.ini look_yaw, degrees */
    ANIM_RANGE_LOOK_PITCH,        /* characters.ini look_pitch, degrees */
    ANIM_RANGE_LOOK_SPEED,        /* characters.ini look_speed, per second */
    ANIM_RANGE_LOOK_SHARE,        /* characters.ini look_shares, each */
    ANIM_RANGE_FOOT_LOCK_RELEASE, /* characters.ini foot_lock_release, seconds */
    ANIM_RANGE_FOOT_LOCK_REACH,   /* characters.ini foot_lock_reach, metres */
    ANIM_RANGE_COUNT
} anim_config_range;

/* Is value within range? (NaN is not.) */
bool anim_config_in_range(anim_config_range range, double value);
/* "0 to 100": the range as its messages print it. */
const char *anim_config_range_text(anim_config_range range, char *out, size_t size);

/* Each reports a bad value at the entry's line and returns false, leaving out alone. A number is written
 * whole in decimal and within its range (config_values.h, CONFIG_RANGE_TO). */
bool anim_config_parse_bool(anim_config_loader *loader, const char *path, const ini_entry *entry, bool *out);
bool anim_config_parse_number(anim_config_loader *loader, const char *path, const ini_entry *entry,
                              anim_config_range range, float *out);
bool anim_config_parse_integer(anim_config_loader *loader, const char *path, const ini_entry *entry,
                               anim_config_range range, int *out);

/* Names of clips, states, parameters, characters and sync groups; `what` says which in the report. */
bool anim_config_check_name(anim_config_loader *loader, const char *path, int line, const char *what,
                            const char *name);

/* A path written in an ini file is relative to that file's folder, unless absolute. False when too long. */
bool anim_config_resolve_path(const char *ini_path, const char *written, char *out, size_t size);

/* anim_config.c -------------------------------------------------------------------------------------- */

/* Remember a file the load read (or tried to read: a missing file that appears is an edit too). max_bytes
 * is the limit of the reader that reads it (INI_MAX_FILE_BYTES, LOADER_MAX_FILE_BYTES, IMAGE_MAX_FILE_BYTES;
 * 0 for a folder): the watcher hashes only what that reader would accept (watch.h). */
void anim_config_watch(anim_config *config, const char *path, size_t max_bytes);

/* Watch and read path into document. A file that cannot be read is reported where it was named (referrer,
 * line), or against the path itself when referrer is NULL; then it returns false with document empty. */
bool anim_config_read_document(anim_config_loader *loader, const char *path, const char *referrer,
                               int referrer_line, const char *what, ini_document *document);

/* anim_config_import.c -------------------------------------------------------------------------------- */

/* The import keys of one characters.ini section, as written; resolved once the mesh has loaded. */
typedef struct anim_config_import {
    float scale;           /* 0: not given */
    float height;          /* metres; 0: not given */
    anim_axes axes;        /* from up and forward (default up +Z, forward +X) */
    anim_foot_lock_settings foot_lock; /* foot_lock, foot_lock_release, foot_lock_reach (defaults: on) */
    const char *path;      /* characters.ini, for messages; NULL when loaded without one */
    int section_line, scale_line, height_line;
} anim_config_import;

/* The keys a characters.ini section may have for its import, NULL-terminated. */
extern const char *const anim_config_import_keys[];

/* Read scale, height, up and forward from a characters.ini section into import, reporting every mistake
 * at its line. */
void anim_config_parse_import(anim_config_loader *loader, const char *path, const ini_section *section,
                              anim_config_import *import);

/* Fill the character's scale, axes, rotation, import and height_m from import and its model (which may
 * be NULL: then scale and axes alone). A height that needs a model without one is reported; a character
 * outside 0.2 to 5 m tall is a warning, at its section's line. import may be NULL: canonical, scale 1. */
void anim_config_resolve_import(anim_config_loader *loader, const anim_config_import *import,
                                anim_character *character);

/* The height of a model's bind pose along a file-space up axis (canonical axis 2 of axes), in file units:
 * the extent of its skinned vertices. 0 for a model without vertices. */
float anim_config_bind_height(const model *model, const anim_axes *axes);

/* anim_config_look.c ---------------------------------------------------------------------------------- */

/* The look-at keys a characters.ini section may have, NULL-terminated. */
extern const char *const anim_config_look_keys[];

/* character->look from its section's look_* keys (section NULL: a character given directly, with the
 * defaults) and its skeleton (needs character->model and its resolved import): the chain named, or found
 * by name (anim_look_find_chain); none when `look = false` or no joint is a head. Every mistake is reported
 * at its line in path; then the character has no look-at. */
void anim_config_load_look(anim_config_loader *loader, anim_character *character, const char *path,
                           const ini_section *section);
/* character->legs from its section's `legs` (hip knee ankle per leg), or found by name and hierarchy
 * (anim_feet_find_legs) when it has none; a mistake is reported at its line, and then it has no legs. */
void anim_config_load_legs(anim_config_loader *loader, anim_character *character, const char *path,
                           const ini_section *section);

/* anim_config_clips.c and anim_config_states.c: fill one character from a clips.ini, then a states.ini (which
 * refers to the clips). Problems are reported, at (referrer, referrer_line) when the file cannot be read. */
void anim_config_load_clips(anim_config_loader *loader, anim_character *character, anim_character_storage *storage,
                            const char *path, const char *referrer, int referrer_line);
/* Once every character of a load has baked its additive clips: drop the clips they were made from (nothing
 * plays an additive clip's own frames, and the bake needs neither clip once made), so the cache keeps one
 * copy of the data, the deltas. Called at the end of a load, not per character, so that characters on one
 * clips.ini read each file once. A reference that is a clip of the library in its own right stays held. */
void anim_config_release_additive_sources(anim_config_loader *loader, const anim_character *character,
                                          anim_character_storage *storage);
/* The first clip of the library whose file loaded (a partial load's stand-in), or -1. */
int anim_config_first_loaded_clip(const anim_character *character);
void anim_config_load_states(anim_config_loader *loader, anim_character *character, anim_character_storage *storage,
                             const char *path, const char *referrer, int referrer_line);

/* anim_config_condition.c: a transition's `when`. ------------------------------------------------------ */

/* At most this many alternatives joined by `or` in one condition. */
enum { ANIM_CONFIG_MAX_OR = 8 };

/* Fill clauses (each a conjunction of terms) from text such as "speed > 0.2 and grounded or jump", naming
 * machine's parameters. Returns the clause count, or 0 with the reason in error. */
int anim_config_parse_condition(const state_machine_definition *machine, const char *text,
                                state_machine_transition clauses[ANIM_CONFIG_MAX_OR], char error[DIAG_MESSAGE_MAX]);
/* Whether name is a word of the condition language (and, or, not, true, false, end, overlay_end, time, any):
 * no parameter may take it. */
bool anim_config_is_reserved(const char *name);

/* anim_config_retarget.c: clips made for another skeleton. -------------------------------------------- */

/* Read the character's `map.ROLE = JOINT` keys (section NULL: none), each mistake at its line (no such role, no
 * such joint, a joint given twice); the map itself is found when a clip first needs it. Needs
 * character->model and its axes. */
void anim_config_load_map(anim_config_loader *loader, anim_character *character, anim_character_storage *storage,
                          const char *path, const ini_section *section);
/* Clip s (clip_path, its `file`) of clips_path, made for the skeleton its `skeleton` entry names, baked for
 * the character's (cache_load_retargeted_clip); *travel_scale gets the leg-length ratio its speeds and travel
 * take. {0} on failure, with failure and *failure_line saying why and where (a clip that does not fit the
 * skeleton it names is reported at its file line); a failure with an empty file is this entry's own (the
 * message alone is the text). */
cache_clip_handle anim_config_retarget_clip(anim_config_loader *loader, anim_character *character,
                                            anim_character_storage *storage, const char *clips_path, int s,
                                            const ini_entry *file_entry, const ini_entry *skeleton_entry,
                                            const char *clip_path, float *travel_scale, diag *failure,
                                            int *failure_line);
/* At the end of a load: let go of the clips as read, the models they were made for, and the clips retimed
 * (frame_rate) from. */
void anim_config_release_retarget_sources(anim_config_loader *loader, const anim_character *character,
                                          anim_character_storage *storage);

/* anim_config_textures.c: character->texture_paths, one per mesh of its model, by the texture search of md5.h
 * with the character's `texture.SHADER` overrides and `textures` folder from section (its characters.ini
 * section, at characters_path), or in the mesh's folder alone when section is NULL (a character given
 * directly); its normal_map_paths and specular_map_paths the same way, by their `normal_map.SHADER` and
 * `specular_map.SHADER` overrides or by convention beside the texture (loader_find_map). Every image found and
 * every file the keys name is watched. Problems are warnings: a character without its image still plays,
 * with a placeholder; one without maps is lit without them. Needs character->model. */
void anim_config_load_textures(anim_config_loader *loader, anim_character *character, anim_character_storage *storage,
                               const char *mesh_path, const char *characters_path, const ini_section *section);
void anim_config_free_textures(anim_character_storage *storage);

#endif
