/* The committed assets/ are exactly what tools/assetgen writes, load without a single warning, share one
 * skeleton, and are documented in config/clips.ini. */
#include <dirent.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>

#include "assetgen/body.h"
#include "assetgen/clips.h"
#include "anim/config/anim_config.h"
#include "base/file.h"
#include "check.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "test_files.h"

#define ASSETS MARIONETTE_SOURCE_DIR "/assets"

static const char *const asset_folders[] = {"models", "textures", "clips"};

static bool same_bytes(const char *a, const char *b)
{
    char *data_a = NULL, *data_b = NULL;
    size_t size_a = 0, size_b = 0;
    diag err;
    bool same = file_read_all(a, (size_t)1 << 30, &data_a, &size_a, &err) && file_read_all(b, (size_t)1 << 30, &data_b, &size_b, &err) &&
                size_a == size_b && memcmp(data_a, data_b, size_a) == 0;
    free(data_a);
    free(data_b);
    return same;
}

/* Every file in one folder has a byte-identical twin in the other. */
static int compare_folder(const char *from, const char *to)
{
    DIR *folder = opendir(from);
    CHECK(folder != NULL);
    if (!folder)
        return 0;
    int files = 0;
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        char a[1024], b[1024];
        snprintf(a, sizeof a, "%s/%s", from, entry->d_name);
        snprintf(b, sizeof b, "%s/%s", to, entry->d_name);
        bool same = same_bytes(a, b);
        if (!same)
            fprintf(stderr, "  %s differs from %s (or is missing)\n", a, b);
        CHECK(same);
        ++files;
    }
    closedir(folder);
    return files;
}

static void test_regenerating_gives_the_same_bytes(void)
{
    char folder[512];
    CHECK(test_make_temp_folder(folder, sizeof folder, "test_assets"));
    char command[1024];
    snprintf(command, sizeof command, "'%s' '%s'", MARIONETTE_ASSETGEN, folder);
    CHECK(system(command) == 0);
    int files = 0;
    for (int i = 0; i < 3; ++i) {
        char committed[1024], generated[1024];
        snprintf(committed, sizeof committed, "%s/%s", ASSETS, asset_folders[i]);
        snprintf(generated, sizeof generated, "%s/%s", folder, asset_folders[i]);
        files += compare_folder(generated, committed);
        /* And nothing committed that the generator no longer writes. */
        compare_folder(committed, generated);
    }
    CHECK(files == 4 * BODY_KIND_COUNT + clips_count()); /* a mesh, its texture and two maps a body */
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    CHECK(system(command) == 0);
}

/* Every body of config/characters.ini is drawn with its generated texture: none is a placeholder. */
static void test_characters_find_their_textures(void)
{
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(MARIONETTE_SOURCE_DIR "/config/characters.ini", cache, &errors);
    CHECK(config != NULL && errors.total == 0);
    test_print_diags(&errors);
    CHECK(anim_config_character_count(config) == BODY_KIND_COUNT);
    for (int c = 0; c < anim_config_character_count(config); ++c) {
        const anim_character *character = anim_config_character(config, c);
        char expected[128];
        snprintf(expected, sizeof expected, "assets/textures/%s.tga", character->name);
        CHECK(character->model->mesh_count > 0 && character->texture_paths != NULL);
        for (int m = 0; character->texture_paths && m < character->model->mesh_count; ++m)
            CHECK_STR_CONTAINS(character->texture_paths[m], expected);
    }
    anim_config_free(config);
    cache_destroy(cache);
    diag_list_free(&errors);
}

static void test_everything_loads_without_warnings_and_fits(void)
{
    model *bodies[BODY_KIND_COUNT] = {0};
    for (int kind = 0; kind < BODY_KIND_COUNT; ++kind) {
        char path[1024];
        snprintf(path, sizeof path, "%s/models/%s.md5mesh", ASSETS, body_name((body_kind)kind));
        diag err = {0};
        diag_list warnings = {0};
        bool ok = loader_load_md5_model(path, &bodies[kind], &err, &warnings);
        if (!ok)
            fprintf(stderr, "  %s:%d: %s\n", err.file, err.line, err.message);
        CHECK(ok);
        CHECK(warnings.total == 0);
        diag_list_free(&warnings);
        if (ok) {
            /* The shader says "../textures/NAME.tga": the model alone does not leave its folder for it, a
             * character with `textures = ../assets/textures` (config/characters.ini) finds it there. */
            for (int m = 0; m < bodies[kind]->mesh_count; ++m)
                CHECK(bodies[kind]->meshes[m].texture_path == NULL);
        }
    }
    for (int i = 0; i < clips_count(); ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/clips/%s.md5anim", ASSETS, clips_recipe(i)->name);
        clip *c = NULL;
        diag err = {0};
        diag_list warnings = {0};
        bool ok = loader_load_md5_clip(path, &c, &err, &warnings);
        if (!ok)
            fprintf(stderr, "  %s:%d: %s\n", err.file, err.line, err.message);
        CHECK(ok);
        CHECK(warnings.total == 0);
        diag_list_free(&warnings);
        for (int kind = 0; ok && kind < BODY_KIND_COUNT; ++kind)
            CHECK(bodies[kind] && clip_fits_skeleton(c, &bodies[kind]->skeleton, path, &err));
        /* Cyclic clips are written the Doom 3 way (last frame repeats the first, the root's travel
         * aside). One-shots that end where they began look the same, which is harmless. */
        if (ok && clips_recipe(i)->cyclic)
            CHECK(c->last_frame_is_first);
        clip_free(c);
    }
    for (int kind = 0; kind < BODY_KIND_COUNT; ++kind)
        model_free(bodies[kind]);
}

/* What config/clips.ini says about each clip. */
typedef struct documented_clip {
    char file[256];
    char loop[16];
    char events[256];
    double speed;
    bool has_speed;
} documented_clip;

typedef struct documented_library {
    documented_clip clips[64];
} documented_library;

static int read_clip_key(void *user, const char *section, const char *key, const char *value)
{
    documented_library *library = user;
    for (int i = 0; i < clips_count() && i < 64; ++i) {
        if (strcmp(section, clips_recipe(i)->name) != 0)
            continue;
        documented_clip *clip = &library->clips[i];
        if (strcmp(key, "file") == 0)
            snprintf(clip->file, sizeof clip->file, "%s", value);
        else if (strcmp(key, "loop") == 0)
            snprintf(clip->loop, sizeof clip->loop, "%s", value);
        else if (strcmp(key, "events") == 0)
            snprintf(clip->events, sizeof clip->events, "%s", value);
        else if (strcmp(key, "speed") == 0) {
            clip->speed = strtod(value, NULL);
            clip->has_speed = true;
        }
    }
    return 1;
}

/* Each footstep.L / footstep.R event sits at a heel strike: that foot's next plant (flat on the floor)
 * begins within a few frames after it. Walk and run must have one of each. */
static void check_footsteps(int index, const char *events)
{
    const clip_recipe *recipe = clips_recipe(index);
    clips_plant plants[CLIPS_MAX_PLANTS];
    int plant_count = clips_plants(index, plants);
    int found[2] = {0, 0};
    char copy[256];
    snprintf(copy, sizeof copy, "%s", events);
    for (char *save = NULL, *event = strtok_r(copy, " ", &save); event; event = strtok_r(NULL, " ", &save)) {
        char side_letter;
        double frame;
        if (sscanf(event, "footstep.%c@%lf", &side_letter, &frame) != 2)
            continue;
        int side = side_letter == 'L' ? CLIPS_LEFT : CLIPS_RIGHT;
        double time = frame / recipe->frame_rate;
        bool matched = false;
        for (int k = 0; k < plant_count; ++k)
            matched |= plants[k].side == side && plants[k].begin >= time - 1e-9 &&
                       plants[k].begin - time <= 4.0 / recipe->frame_rate;
        if (!matched)
            fprintf(stderr, "  [%s] %s is not at a heel strike\n", recipe->name, event);
        CHECK(matched);
        found[side]++;
    }
    if (strcmp(recipe->name, "walk") == 0 || strcmp(recipe->name, "run") == 0)
        CHECK(found[CLIPS_LEFT] == 1 && found[CLIPS_RIGHT] == 1);
}

static void test_config_documents_every_clip(void)
{
    static documented_library library;
    CHECK(ini_parse(MARIONETTE_SOURCE_DIR "/config/clips.ini", read_clip_key, &library) == 0);
    for (int i = 0; i < clips_count(); ++i) {
        const clip_recipe *recipe = clips_recipe(i);
        const documented_clip *clip = &library.clips[i];
        char expected[256];
        snprintf(expected, sizeof expected, "../assets/clips/%s.md5anim", recipe->name);
        if (strcmp(clip->file, expected) != 0)
            fprintf(stderr, "  [%s] file = '%s', expected '%s'\n", recipe->name, clip->file, expected);
        CHECK(strcmp(clip->file, expected) == 0);
        CHECK(strcmp(clip->loop, recipe->cyclic ? "true" : "false") == 0);
        CHECK(clip->has_speed);
        CHECK_NEAR(clip->speed, recipe->ground_speed, 1e-9);
        check_footsteps(i, clip->events);
    }
}

int main(void)
{
    CHECK(clips_count() >= 9);
    RUN(test_regenerating_gives_the_same_bytes);
    RUN(test_everything_loads_without_warnings_and_fits);
    RUN(test_characters_find_their_textures);
    RUN(test_config_documents_every_clip);
    return check_report();
}
