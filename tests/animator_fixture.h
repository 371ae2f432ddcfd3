/* animator_fixture: a config's mannequin with an animator, for the tests that drive one (test_animator,
 * test_anim_blend). Loads into a cache of its own; closing checks that nothing still holds the cache. */
#ifndef MARIONETTE_ANIMATOR_FIXTURE_H
#define MARIONETTE_ANIMATOR_FIXTURE_H

#include "anim/config/anim_config.h"
#include "anim/animator.h"
#include "check.h"
#include "test_files.h"

typedef struct fixture {
    cache *cache;
    anim_config *config;
    const anim_character *character;
    animator *animator;
    int diagnostics; /* what loading the config reported, errors and warnings */
} fixture;

/* characters_path's mannequin with an animator in its first state; false (reported) when any of it failed. */
static bool fixture_open(fixture *f, const char *characters_path)
{
    *f = (fixture){.cache = cache_create()};
    diag_list errors = {0};
    f->config = anim_config_load(characters_path, f->cache, &errors);
    test_print_diags(&errors);
    f->diagnostics = errors.total;
    diag_list_free(&errors);
    CHECK(f->config != NULL);
    f->character = f->config ? anim_config_find_character(f->config, "mannequin") : NULL;
    CHECK(f->character != NULL);
    f->animator = f->character ? animator_create(f->character) : NULL;
    CHECK(f->animator != NULL);
    return f->animator != NULL;
}

static void fixture_close(fixture *f)
{
    animator_destroy(f->animator);
    anim_config_free(f->config);
    if (f->cache)
        CHECK(cache_get_stats(f->cache).users == 0);
    cache_destroy(f->cache);
}

#endif
