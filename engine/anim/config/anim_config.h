/* anim_config: reads the animation configuration a user edits by hand (config/characters.ini, the clip
 * library clips.ini and the state machine states.ini) into one immutable anim_config: per character type,
 * its model, its clips (anim_clip) and its state machine definition. Every mistake is reported as
 * `file:line: message`, all of them in one go; a load gives a complete config or nothing, so a bad edit
 * can never leave a half-applied config running. A partial load (for a program that has nothing running
 * yet) is the one exception: it keeps going past assets that fail to load, see anim_config_load_partial. It also remembers every file it read, for hot reload.
 * Knows nothing of SDL, GL or the per-entity animation controller; the formats are documented at the top
 * of the files in config/. */
#ifndef MARIONETTE_ANIM_CONFIG_H
#define MARIONETTE_ANIM_CONFIG_H

#include <stdbool.h>

#include <cglm/cglm.h>

#include "../../base/diag.h"
#include "../../cache/cache.h"
#include "../anim_character.h"


typedef struct anim_config anim_config;

/* Limits a states.ini or clips.ini is held to (besides ini_document's INI_SECTIONS_MAX and INI_KEYS_MAX),
 * each refused at the line that passes it. Every number the files accept has a range too (the table in
 * anim_config_values.c, documented at the top of each file in config/); the largest playback rate is the
 * one the animation controller is tested with. */
enum {
    ANIM_CONFIG_STATES_MAX = 1024,      /* [state NAME] sections in a states.ini */
    ANIM_CONFIG_TRANSITIONS_MAX = 4096, /* transitions, counting each `or` alternative as one */
    ANIM_CONFIG_BLENDS_MAX = 256,       /* [blend NAME] sections in a states.ini */
};
#define ANIM_CONFIG_RATE_MAX 100.0f /* a state's rate, rate_min and rate_max */

/* Load every character of a characters.ini (paths in it are relative to its folder). Problems go to errors
 * (may be NULL), each with its file and line. Returns NULL when there was any problem. Warnings ("warning:
 * ...": a texture override naming a file that cannot be read, a textures folder that is not there) go to
 * errors too but do not fail the load. */
anim_config *anim_config_load(const char *characters_path, cache *cache, diag_list *errors);

/* Load one character from explicit files, as a characters.ini section would; states_path may be NULL for a
 * clip library alone. */
anim_config *anim_config_load_character(const char *name, const char *mesh_path, const char *clips_path,
                                        const char *states_path, cache *cache, diag_list *errors);

/* Like anim_config_load, but assets that fail to load (a clip file that is missing, malformed or made for
 * another skeleton, a mesh that cannot be read) do not stop the rest: a clip that failed plays its
 * character's first good clip in its place (and so does a state naming a clip the library lacks), a
 * character whose mesh or every clip failed is left out. Each is still reported at the line that named
 * it; anim_config_stand_in_count says how many there were. Mistakes in the ini text itself still fail the
 * load (NULL), and so does a config left with no character at all. */
anim_config *anim_config_load_partial(const char *characters_path, cache *cache, diag_list *errors);
/* Problems a partial load (or reload) worked around, each counted once as reported (two characters sharing
 * a clips.ini share its problems); 0 for a complete config. */
int anim_config_stand_in_count(const anim_config *config);
/* The cache the config was loaded with (its models' levels of detail come from it too); NULL for NULL. */
cache *anim_config_cache(const anim_config *config);
/* Warnings the load added to its list that are not problems (a character outside 0.2 to 5 m tall after
 * its import): the config is complete and plays as it is. */
int anim_config_warning_count(const anim_config *config);

/* An axis word as characters.ini's up and forward (and md5tool convert) take it: +X -X +Y -Y +Z -Z, also
 * lowercase and without a sign (meaning +). Gives the file axis (0..2) and its sign; false for anything
 * else. */
bool anim_axis_parse(const char *word, int *axis, int *sign);
/* The axes of a file whose up and forward are these (left completes a right-handed frame, as canonical
 * +Y = +Z x +X). False when they are not perpendicular. */
bool anim_axes_make(int up_axis, int up_sign, int forward_axis, int forward_sign, anim_axes *out);

/* Releases the config's models and clips in the cache it was loaded with. NULL is fine. */
void anim_config_free(anim_config *config);

int anim_config_character_count(const anim_config *config);
const anim_character *anim_config_character(const anim_config *config, int index);
const anim_character *anim_config_find_character(const anim_config *config, const char *name);
/* Index into character->clips, or -1. */
int anim_config_find_clip(const anim_character *character, const char *name);
/* Index into character->blends, or -1. */
int anim_config_find_blend(const anim_character *character, const char *name);

/* Hot reload. True when any file the config (or its last failed reload) read has changed, appeared or
 * disappeared since: ini files, meshes, clips, the images its characters use, the files their texture
 * overrides name and their textures folders (an image added to one). Cheap enough to call a few times a
 * second (one stat per file). */
bool anim_config_reload_due(const anim_config *config);

/* Load the same files again. Returns a complete new config for the caller to swap in (the old one stays
 * valid until the caller frees it), or NULL with the problems in errors: then the caller keeps the old one,
 * which from now on watches the files this attempt read, so reload_due says false until the next edit.
 * Entities move over with state_machine_instance_remap. */
anim_config *anim_config_reload(anim_config *old, diag_list *errors);
/* The same as a partial load: for a config that is itself partial, so that a fix of one problem is taken
 * while another remains. */
anim_config *anim_config_reload_partial(anim_config *old, diag_list *errors);

/* The files the config watches, for a HUD or a log. */
int anim_config_watched_file_count(const anim_config *config);
const char *anim_config_watched_file(const anim_config *config, int index);

#endif
