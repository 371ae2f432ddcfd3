/* anim_feet: which joints are feet, and the contacts stored with each clip at load, checked against the
 * plants the generated clips were made with (assetgen's clips_plants). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "anim/anim_feet.h"
#include "assetgen/clips.h"
#include "anim/config/anim_config.h"
#include "cache/cache.h"
#include "check.h"

static void test_legs_by_name_and_hierarchy(void)
{
    /* foot.L and foot.R win; otherwise the first two *foot* / *ankle* joints with a leg above them and no
     * foot above them */
    char *names[] = {"root", "pelvis", "L_thigh", "L_shin", "LeftAnkle", "LeftAnkle_toe", "R_thigh", "R_shin",
                     "right_FOOT", "arm", "HandFoot"};
    int parents[] = {-1, 0, 1, 2, 3, 4, 1, 6, 7, 0, 9};
    skeleton s = {.joint_count = 11, .names = names, .parents = parents};
    pose_ik_chain legs[ANIM_FEET_MAX];
    CHECK(anim_feet_find_legs(&s, legs) == 2);
    CHECK(legs[0].hip == 2 && legs[0].knee == 3 && legs[0].ankle == 4);
    CHECK(legs[1].hip == 6 && legs[1].knee == 7 && legs[1].ankle == 8);

    /* a "foot" with a single ancestor has no leg: HandFoot (two ancestors) is the second foot instead */
    int short_parents[] = {-1, 0, 1, 2, 3, 4, 1, 6, 0, 0, 9};
    s.parents = short_parents;
    CHECK(anim_feet_find_legs(&s, legs) == 2);
    CHECK(legs[0].ankle == 4 && legs[1].ankle == 10 && legs[1].knee == 9 && legs[1].hip == 0);

    char *named[] = {"root", "hip.L", "knee.L", "foot.L", "hip.R", "knee.R", "foot.R", "ankle_helper"};
    int named_parents[] = {-1, 0, 1, 2, 0, 4, 5, 0};
    skeleton ours = {.joint_count = 8, .names = named, .parents = named_parents};
    CHECK(anim_feet_find_legs(&ours, legs) == 2);
    CHECK(legs[0].ankle == 3 && legs[0].knee == 2 && legs[0].hip == 1 && legs[1].ankle == 6);

    char *none[] = {"root", "spine", "head"};
    int none_parents[] = {-1, 0, 1};
    skeleton headless = {.joint_count = 3, .names = none, .parents = none_parents};
    CHECK(anim_feet_find_legs(&headless, legs) == 0);
}

/* Is time t inside a plant of `side`, widened (or, negative, narrowed) by margin seconds at each end? */
static bool in_plant(const clips_plant *plants, int count, int side, double t, double margin)
{
    for (int p = 0; p < count; ++p)
        if (plants[p].side == side && t >= plants[p].begin - margin && t <= plants[p].end + margin)
            return true;
    return false;
}

static void test_contacts_stored_with_the_generated_clips(void)
{
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(MARIONETTE_SOURCE_DIR "/config/characters.ini", cache, &errors);
    CHECK(config != NULL && errors.count == 0);
    int characters = config ? anim_config_character_count(config) : 0;
    int clips_checked = 0;
    for (int k = 0; k < characters; ++k) {
        const anim_character *character = anim_config_character(config, k);
        CHECK(character->leg_count == 2);
        if (character->leg_count != 2)
            continue;
        const skeleton *s = &character->model->skeleton;
        CHECK(strcmp(s->names[character->legs[0].ankle], "foot.L") == 0);
        CHECK(strcmp(s->names[character->legs[1].ankle], "foot.R") == 0);
        for (int r = 0; r < clips_count(); ++r) {
            const clip_recipe *recipe = clips_recipe(r);
            int index = anim_config_find_clip(character, recipe->name);
            if (index < 0)
                continue;
            const anim_clip *entry = &character->clips[index];
            if (entry->additive) {
                CHECK(entry->planted == NULL);
                continue;
            }
            CHECK(entry->planted != NULL);
            if (!entry->planted)
                continue;
            clips_plant plants[CLIPS_MAX_PLANTS];
            int plant_count = clips_plants(r, plants);
            const clip *c = entry->clip;
            double frame_time = 1.0 / c->frame_rate;
            int missed = 0, extra = 0, planted_frames = 0;
            for (int foot = 0; foot < 2; ++foot) {
                int side = foot == 0 ? CLIPS_LEFT : CLIPS_RIGHT;
                for (int f = 0; f < c->frame_count; ++f) {
                    double t = f * frame_time;
                    bool planted = entry->planted[foot * c->frame_count + f];
                    planted_frames += planted;
                    /* Inside a plant, a frame from its ends: planted. Outside every plant by more than a
                     * frame: not planted. The frame next to either end may go either way (the foot is
                     * landing or lifting within it). */
                    missed += !planted && in_plant(plants, plant_count, side, t, -1.01 * frame_time);
                    extra += planted && !in_plant(plants, plant_count, side, t, 1.01 * frame_time);
                }
            }
            printf("  %-10s %-17s %3d planted frames of %3d, %d missed, %d extra\n", character->name, recipe->name,
                   planted_frames, 2 * c->frame_count, missed, extra);
            /* The clip's planted_always bits say which feet are planted at every frame. */
            for (int foot = 0; foot < 2; ++foot) {
                bool always = true;
                for (int f = 0; f < c->frame_count; ++f)
                    always = always && entry->planted[foot * c->frame_count + f];
                CHECK(((entry->planted_always >> foot) & 1u) == (always ? 1u : 0u));
            }
            if (plant_count == 0) {
                /* wave and the additive sources leave the legs standing in bind pose: planted throughout */
                CHECK(planted_frames == 2 * c->frame_count);
                CHECK(entry->planted_always == 3);
            } else {
                CHECK(missed == 0);
                CHECK(extra == 0);
            }
            /* planted at some frame and swinging at another, except clips that stand */
            if (plant_count > 0 && recipe->ground_speed > 0.0)
                CHECK(planted_frames > 0 && planted_frames < 2 * c->frame_count);
            ++clips_checked;
        }
    }
    CHECK(clips_checked >= 10);
    diag_list_free(&errors);
    anim_config_free(config);
    cache_destroy(cache);
}

static void test_planted_at_reads_both_frames(void)
{
    clip c = {.joint_count = 1, .frame_count = 4, .frame_rate = 10.0f};
    anim_clip entry = {.clip = &c, .loop = false};
    unsigned char planted[8] = {1, 1, 0, 0, 0, 1, 1, 1};
    CHECK(anim_feet_planted_at(&entry, planted, 0, 0.0));
    CHECK(anim_feet_planted_at(&entry, planted, 0, 0.1));
    CHECK(!anim_feet_planted_at(&entry, planted, 0, 0.15)); /* between frame 1 (planted) and 2 (not) */
    CHECK(!anim_feet_planted_at(&entry, planted, 1, 0.05));
    CHECK(anim_feet_planted_at(&entry, planted, 1, 0.15));
    CHECK(anim_feet_planted_at(&entry, planted, 1, 9.0)); /* past the end: the last frame */
    CHECK(!anim_feet_planted_at(&entry, planted, 0, NAN));
    CHECK(!anim_feet_planted_at(&entry, NULL, 0, 0.0));
    /* Every foot at once says what each foot alone says. */
    for (double t = -0.1; t <= 0.5; t += 0.025) {
        unsigned mask = anim_feet_planted_mask_at(&entry, planted, 2, t);
        for (int foot = 0; foot < 2; ++foot)
            CHECK(((mask >> foot) & 1u) == (anim_feet_planted_at(&entry, planted, foot, t) ? 1u : 0u));
        CHECK(anim_feet_planted_mask_at(&entry, planted, 1, t) == (mask & 1u));
    }
    CHECK(anim_feet_planted_mask_at(&entry, planted, 2, 0.15) == 2u);
    CHECK(anim_feet_planted_mask_at(&entry, planted, 2, NAN) == 0u);
    CHECK(anim_feet_planted_mask_at(&entry, NULL, 2, 0.0) == 0u);
}

static void test_planted_always_bits(void)
{
    /* foot 0 planted at every frame, foot 1 lifts at frame 2, foot 2 (past ANIM_FEET_MAX) never counts */
    unsigned char planted[12] = {1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1};
    CHECK(anim_feet_planted_always(planted, 4, 2) == 1u);
    CHECK(anim_feet_planted_always(planted, 4, 1) == 1u);
    CHECK(anim_feet_planted_always(planted + 4, 4, 2) == 2u); /* from frame 4: foot 0 lifts, foot 1 does not */
    CHECK(anim_feet_planted_always(planted, 4, 3) == 1u);
    CHECK(anim_feet_planted_always(planted, 2, 2) == 3u); /* two frames a foot: both planted throughout */
    CHECK(anim_feet_planted_always(NULL, 4, 2) == 0u);
    CHECK(anim_feet_planted_always(planted, 0, 2) == 0u);
}

int main(void)
{
    RUN(test_legs_by_name_and_hierarchy);
    RUN(test_contacts_stored_with_the_generated_clips);
    RUN(test_planted_at_reads_both_frames);
    RUN(test_planted_always_bits);
    return check_report();
}
