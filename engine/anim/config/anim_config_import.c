/* A character's import from characters.ini: `scale` (or `height`), `up` and `forward` say how the file's
 * units and axes become the engine's canonical MD5 space (metres, Z up, facing +X). Kept apart from the
 * rest of a section's keys: the mesh and clips stay in file units in the cache, shared, and only the
 * character (an entity's model matrix, its speeds and root motion) carries the import. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "anim_config_internal.h"

/* Outside these a character is probably in other units than the file's scale says: warned, not refused. */
static const float ANIM_IMPORT_PLAUSIBLE_MIN = 0.2f, ANIM_IMPORT_PLAUSIBLE_MAX = 5.0f;
static const float ANIM_IMPORT_SUGGESTED_HEIGHT = 1.8f;

const char *const anim_config_import_keys[] = {"scale", "height", "up", "forward",
                                               "foot_lock", "foot_lock_release", "foot_lock_reach",
                                               "foot_ik", NULL};

bool anim_axis_parse(const char *word, int *axis, int *sign)
{
    int parsed_sign = 1;
    if (word[0] == '+' || word[0] == '-')
        parsed_sign = *word++ == '-' ? -1 : 1;
    const char *letters = "XYZxyz";
    const char *found = word[0] && !word[1] ? strchr(letters, word[0]) : NULL;
    if (!found)
        return false;
    *axis = (int)(found - letters) % 3;
    *sign = parsed_sign;
    return true;
}

bool anim_axes_make(int up_axis, int up_sign, int forward_axis, int forward_sign, anim_axes *out)
{
    if (up_axis == forward_axis || up_axis < 0 || up_axis > 2 || forward_axis < 0 || forward_axis > 2)
        return false;
    /* Of two unit axes a != b, a x b is the third axis, positive when (a, b, third) is in cyclic order. */
    int left_axis = 3 - up_axis - forward_axis;
    int cyclic = (forward_axis - up_axis + 3) % 3 == 1 ? 1 : -1;
    int left_sign = cyclic * up_sign * forward_sign;
    *out = (anim_axes){.from = {(signed char)forward_axis, (signed char)left_axis, (signed char)up_axis},
                       .sign = {(signed char)(forward_sign < 0 ? -1 : 1), (signed char)(left_sign < 0 ? -1 : 1),
                                (signed char)(up_sign < 0 ? -1 : 1)}};
    return true;
}

/* An axis word at its entry's line. */
static bool anim_config_parse_axis(anim_config_loader *loader, const char *path, const ini_entry *entry, int *axis,
                                   int *sign)
{
    if (anim_axis_parse(entry->value, axis, sign))
        return true;
    anim_config_report(loader, path, entry->line, "'%s' must be one of +X -X +Y -Y +Z -Z, not '%s'", entry->key,
                       entry->value);
    return false;
}

static const char *anim_config_axis_name(int axis, int sign)
{
    static const char *const names[2][3] = {{"-X", "-Y", "-Z"}, {"+X", "+Y", "+Z"}};
    return names[sign > 0][axis];
}

void anim_config_parse_import(anim_config_loader *loader, const char *path, const ini_section *section,
                              anim_config_import *import)
{
    *import = (anim_config_import){.axes = anim_axes_canonical(), .foot_lock = anim_foot_lock_defaults(),
                                   .path = path, .section_line = section->line};
    /* The foot lock's settings travel with the import: both are per character, read once, kept on it. */
    const ini_entry *lock = ini_find_entry(section, "foot_lock");
    if (lock)
        anim_config_parse_bool(loader, path, lock, &import->foot_lock.enabled);
    const ini_entry *placement = ini_find_entry(section, "foot_ik");
    if (placement)
        anim_config_parse_bool(loader, path, placement, &import->foot_lock.ik);
    const ini_entry *release = ini_find_entry(section, "foot_lock_release");
    if (release)
        anim_config_parse_number(loader, path, release, ANIM_RANGE_FOOT_LOCK_RELEASE,
                                 &import->foot_lock.release_seconds);
    const ini_entry *reach = ini_find_entry(section, "foot_lock_reach");
    if (reach)
        anim_config_parse_number(loader, path, reach, ANIM_RANGE_FOOT_LOCK_REACH, &import->foot_lock.reach);
    const ini_entry *scale = ini_find_entry(section, "scale");
    const ini_entry *height = ini_find_entry(section, "height");
    if (scale && height) {
        const ini_entry *second = scale->line > height->line ? scale : height;
        anim_config_report(loader, path, second->line,
                           "character [%s] has both 'scale' and 'height': give one (height sets the scale)",
                           section->name);
    } else if (scale && anim_config_parse_number(loader, path, scale, ANIM_RANGE_SCALE, &import->scale)) {
        import->scale_line = scale->line;
    } else if (height && anim_config_parse_number(loader, path, height, ANIM_RANGE_HEIGHT,
                                                  &import->height)) {
        import->height_line = height->line;
    }

    const ini_entry *up = ini_find_entry(section, "up");
    const ini_entry *forward = ini_find_entry(section, "forward");
    int up_axis = 2, up_sign = 1, forward_axis = 0, forward_sign = 1;
    bool up_read = !up || anim_config_parse_axis(loader, path, up, &up_axis, &up_sign);
    bool forward_read = !forward || anim_config_parse_axis(loader, path, forward, &forward_axis, &forward_sign);
    if (!up_read || !forward_read)
        return;
    if (!anim_axes_make(up_axis, up_sign, forward_axis, forward_sign, &import->axes)) {
        const ini_entry *at = forward ? forward : up;
        anim_config_report(loader, path, at->line, "'forward' (%s) must be perpendicular to 'up' (%s)",
                           anim_config_axis_name(forward_axis, forward_sign), anim_config_axis_name(up_axis, up_sign));
    }
}

float anim_config_bind_height(const model *model, const anim_axes *axes)
{
    if (!model)
        return 0.0f;
    /* Canonical up is the file's axis from[2] (with a sign that does not change an extent); all-zero axes
     * are the identity (anim_axes_to_canonical). */
    int up = axes->sign[0] == 0 ? 2 : axes->from[2];
    float extent = model->bind_bounds[1][up] - model->bind_bounds[0][up];
    return extent > 0.0f ? extent : 0.0f;
}

void anim_config_resolve_import(anim_config_loader *loader, const anim_config_import *import,
                                anim_character *character)
{
    anim_config_import defaults = {.axes = anim_axes_canonical(), .foot_lock = anim_foot_lock_defaults()};
    if (!import)
        import = &defaults;
    character->axes = import->axes;
    character->foot_lock = import->foot_lock;
    glm_mat4_zero(character->rotation);
    for (int i = 0; i < 3; ++i)
        character->rotation[import->axes.from[i]][i] = import->axes.sign[i]; /* row i, column from[i] */
    character->rotation[3][3] = 1.0f;

    float extent = anim_config_bind_height(character->model, &import->axes);
    character->scale = import->scale > 0.0f ? import->scale : 1.0f;
    if (import->height > 0.0f && character->model) {
        if (extent > 0.0f)
            character->scale = import->height / extent;
        else
            anim_config_report(loader, import->path, import->height_line,
                               "character [%s] cannot be scaled to a height: its bind pose has no extent along "
                               "its up axis", character->name);
    }
    glm_mat4_copy(character->rotation, character->import);
    for (int column = 0; column < 3; ++column)
        glm_vec4_scale(character->import[column], character->scale, character->import[column]);
    character->height_m = character->scale * extent;

    /* A character a thousand times too big (or small) is most likely in other units than its scale says;
     * it still plays, so the user sees what the warning means. Only a characters.ini has a line to
     * point at. */
    if (!character->model || !import->path)
        return;
    if (extent <= 0.0f)
        anim_config_warn(loader, import->path, import->section_line,
                                   "character '%s' has no height (bind pose): its mesh has no extent along its up "
                                   "axis", character->name);
    else if (character->height_m < ANIM_IMPORT_PLAUSIBLE_MIN || character->height_m > ANIM_IMPORT_PLAUSIBLE_MAX)
        anim_config_warn(loader, import->path, import->section_line,
                                   "character '%s' stands %.3g m tall (bind pose); scale = %.3g would make it %.1f m",
                                   character->name, (double)character->height_m,
                                   (double)(ANIM_IMPORT_SUGGESTED_HEIGHT / extent), (double)ANIM_IMPORT_SUGGESTED_HEIGHT);
}
