/* A character's joint chains from characters.ini, resolved against its skeleton once the mesh has loaded
 * (all keys documented at the top of config/characters.ini):
 *   - its look-at: `look`, `look_chain`, `look_shares`, `look_yaw`, `look_pitch` and `look_speed`: joint
 *     names to indices, the head's forward from the bind pose and the import's axes, the limits spread over
 *     the chain by the shares;
 *   - its legs for the foot lock and foot IK: `legs`, hip knee ankle per leg, or found by name
 *     (anim_feet_find_legs). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "anim_config_internal.h"

const char *const anim_config_look_keys[] = {"look",       "look_chain", "look_shares", "look_yaw",
                                             "look_pitch", "look_speed", "legs",        NULL};

/* The shares written must add up to 1 within this. */
static const float ANIM_LOOK_SHARE_SUM_TOLERANCE = 0.001f;

/* The next space-separated word of *text into word (cut to size); false at the end. */
static bool next_word(const char **text, char *word, size_t size)
{
    const char *start = *text;
    while (*start == ' ' || *start == '\t')
        ++start;
    if (!*start)
        return false;
    const char *end = start;
    while (*end && *end != ' ' && *end != '\t')
        ++end;
    snprintf(word, size, "%.*s", (int)(end - start), start);
    *text = end;
    return true;
}

/* look_chain: joint names from the head down, each an ancestor of the one before. The count read, or -1
 * when it was reported. */
static int parse_chain(anim_config_loader *loader, const char *path, const ini_entry *entry, const skeleton *s,
                       int joints[POSE_AIM_JOINTS_MAX])
{
    const char *text = entry->value;
    char name[ANIM_NAME_MAX * 2];
    int count = 0;
    while (next_word(&text, name, sizeof name)) {
        if (count == POSE_AIM_JOINTS_MAX) {
            anim_config_report(loader, path, entry->line, "'look_chain' names at most %d joints", POSE_AIM_JOINTS_MAX);
            return -1;
        }
        int joint = skeleton_find_joint(s, name);
        if (joint < 0) {
            anim_config_report(loader, path, entry->line, "'look_chain': the skeleton has no joint '%s'", name);
            return -1;
        }
        if (count > 0) {
            int above = joints[count - 1], ancestor = s->parents[above];
            while (ancestor >= 0 && ancestor != joint)
                ancestor = s->parents[ancestor];
            if (ancestor != joint) {
                anim_config_report(loader, path, entry->line,
                                   "'look_chain': '%s' is not an ancestor of '%s' (name the head first, then the "
                                   "joints it hangs from)", name, s->names[above]);
                return -1;
            }
        }
        joints[count++] = joint;
    }
    if (count == 0)
        anim_config_report(loader, path, entry->line, "'look_chain' names no joint");
    return count > 0 ? count : -1;
}

/* look_shares: one number 0..1 per chain joint, head first, adding up to 1. */
static bool parse_shares(anim_config_loader *loader, const char *path, const ini_entry *entry, int joint_count,
                         float shares[POSE_AIM_JOINTS_MAX])
{
    const char *text = entry->value;
    char word[64];
    int count = 0;
    float sum = 0.0f;
    while (next_word(&text, word, sizeof word)) {
        if (count == joint_count) {
            anim_config_report(loader, path, entry->line, "'look_shares' gives more than the chain's %d joints",
                               joint_count);
            return false;
        }
        ini_entry one = {.key = entry->key, .value = word, .line = entry->line};
        if (!anim_config_parse_number(loader, path, &one, ANIM_RANGE_LOOK_SHARE, &shares[count]))
            return false;
        sum += shares[count++];
    }
    if (count != joint_count) {
        anim_config_report(loader, path, entry->line, "'look_shares' gives %d numbers for the chain's %d joints",
                           count, joint_count);
        return false;
    }
    if (fabsf(sum - 1.0f) > ANIM_LOOK_SHARE_SUM_TOLERANCE) {
        anim_config_report(loader, path, entry->line, "'look_shares' must add up to 1, not %g", (double)sum);
        return false;
    }
    return true;
}

void anim_config_load_look(anim_config_loader *loader, anim_character *character, const char *path,
                           const ini_section *section)
{
    memset(&character->look, 0, sizeof character->look);
    const skeleton *s = character->model ? &character->model->skeleton : NULL;
    bool enabled = true;
    float yaw = ANIM_LOOK_DEFAULT_YAW_DEGREES, pitch = ANIM_LOOK_DEFAULT_PITCH_DEGREES;
    float speed = ANIM_LOOK_DEFAULT_SPEED;
    const ini_entry *look = section ? ini_find_entry(section, "look") : NULL;
    const ini_entry *chain_entry = section ? ini_find_entry(section, "look_chain") : NULL;
    const ini_entry *shares_entry = section ? ini_find_entry(section, "look_shares") : NULL;
    const ini_entry *yaw_entry = section ? ini_find_entry(section, "look_yaw") : NULL;
    const ini_entry *pitch_entry = section ? ini_find_entry(section, "look_pitch") : NULL;
    const ini_entry *speed_entry = section ? ini_find_entry(section, "look_speed") : NULL;
    bool good = (!look || anim_config_parse_bool(loader, path, look, &enabled)) &
                (!yaw_entry || anim_config_parse_number(loader, path, yaw_entry, ANIM_RANGE_LOOK_YAW, &yaw)) &
                (!pitch_entry || anim_config_parse_number(loader, path, pitch_entry, ANIM_RANGE_LOOK_PITCH, &pitch)) &
                (!speed_entry || anim_config_parse_number(loader, path, speed_entry, ANIM_RANGE_LOOK_SPEED, &speed));
    if (!s || !good)
        return;

    pose_aim_chain chain = {0};
    if (chain_entry) {
        chain.joint_count = parse_chain(loader, path, chain_entry, s, chain.joints);
        if (chain.joint_count < 0)
            return;
    } else {
        chain.joint_count = anim_look_find_chain(s, chain.joints);
        if (chain.joint_count == 0 && section && (look || shares_entry || yaw_entry || pitch_entry || speed_entry) &&
            enabled) {
            anim_config_report(loader, path, section->line,
                               "character [%s] has look-at settings but no joint named like a head: name its chain "
                               "with 'look_chain'", section->name);
            return;
        }
    }
    anim_look_default_shares(chain.joint_count, chain.shares);
    if (shares_entry && chain.joint_count > 0 &&
        !parse_shares(loader, path, shares_entry, chain.joint_count, chain.shares))
        return;
    if (!enabled || chain.joint_count == 0)
        return;

    /* Yaw turns about the file's up; the face looks the way the import says the character faces. */
    const float canonical_up[3] = {0.0f, 0.0f, 1.0f}, canonical_forward[3] = {1.0f, 0.0f, 0.0f};
    float facing[3];
    anim_axes_from_canonical(&character->axes, canonical_up, chain.up);
    anim_axes_from_canonical(&character->axes, canonical_forward, facing);
    if (!pose_aim_head_forward(s, chain.joints[0], facing, chain.forward))
        return;
    const float radians = GLM_PIf / 180.0f;
    for (int k = 0; k < chain.joint_count; ++k) {
        chain.yaw_limits[k] = chain.shares[k] * yaw * radians;
        chain.pitch_limits[k] = chain.shares[k] * pitch * radians;
    }
    character->look = (anim_look_settings){.chain = chain, .speed = speed};
}

/* `legs = HIP KNEE ANKLE [HIP KNEE ANKLE]`: each a leg the two-bone solve bends (anim_feet_leg_fits: a foot
 * hanging from its knee, or from an IK target beyond it). The legs read, or -1 after reporting. */
static int parse_legs(anim_config_loader *loader, const char *path, const ini_entry *entry, const skeleton *s,
                      pose_ik_chain legs[ANIM_FEET_MAX])
{
    const char *text = entry->value;
    char name[ANIM_NAME_MAX * 2];
    int joints[3 * ANIM_FEET_MAX], count = 0;
    while (next_word(&text, name, sizeof name)) {
        if (count == 3 * ANIM_FEET_MAX) {
            anim_config_report(loader, path, entry->line, "'legs' names at most %d legs of 3 joints (hip knee ankle)",
                               ANIM_FEET_MAX);
            return -1;
        }
        int joint = skeleton_find_joint(s, name);
        if (joint < 0) {
            anim_config_report(loader, path, entry->line, "'legs': the skeleton has no joint '%s'", name);
            return -1;
        }
        joints[count++] = joint;
    }
    if (count == 0 || count % 3 != 0) {
        anim_config_report(loader, path, entry->line,
                           "'legs' names 3 joints per leg (hip knee ankle), not %d", count);
        return -1;
    }
    for (int leg = 0; leg < count / 3; ++leg) {
        int hip = joints[3 * leg], knee = joints[3 * leg + 1], ankle = joints[3 * leg + 2];
        pose_ik_chain chain = {.hip = hip, .knee = knee, .ankle = ankle};
        if (!anim_feet_leg_fits(s, &chain)) {
            anim_config_report(loader, path, entry->line,
                               "'legs': '%s %s %s' is not a hip, its child and its grandchild (each joint the "
                               "parent of the next), nor a hip, its child and a foot beyond the knee that hangs "
                               "outside the leg (from an IK target)", s->names[hip], s->names[knee], s->names[ankle]);
            return -1;
        }
        /* Two legs sharing a joint would have two solves bend it in one step, each undoing the other. */
        for (int other = 0; other < leg; ++other)
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b)
                    if (joints[3 * leg + a] == joints[3 * other + b]) {
                        anim_config_report(loader, path, entry->line,
                                           "'legs': joint '%s' is in two legs; each leg needs joints of its own",
                                           s->names[joints[3 * leg + a]]);
                        return -1;
                    }
        legs[leg] = (pose_ik_chain){.hip = hip, .knee = knee, .ankle = ankle};
    }
    return count / 3;
}

void anim_config_load_legs(anim_config_loader *loader, anim_character *character, const char *path,
                           const ini_section *section)
{
    character->leg_count = 0;
    character->pelvis = -1;
    memset(character->ik_legs, 0, sizeof character->ik_legs);
    if (!character->model)
        return;
    const skeleton *s = &character->model->skeleton;
    const ini_entry *entry = section ? ini_find_entry(section, "legs") : NULL;
    if (!entry) {
        character->leg_count = anim_feet_find_legs(s, character->legs);
    } else {
        int count = parse_legs(loader, path, entry, s, character->legs);
        character->leg_count = count > 0 ? count : 0;
    }
    character->pelvis = anim_foot_lock_pelvis(s, character->legs, character->leg_count);
    for (int f = 0; f < character->leg_count; ++f) {
        pose_ik_chain_set_end(s->parents, s->joint_count, s->bind_object, &character->legs[f]);
        pose_ik_leg_prepare(s->parents, s->joint_count, &character->legs[f], &character->ik_legs[f]);
    }
}
