#include "anim_look.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

/* Does name contain word (lowercase), in any case? */
static bool name_contains(const char *name, const char *word)
{
    size_t length = strlen(word);
    for (const char *start = name; *start; ++start) {
        size_t k = 0;
        while (k < length && start[k] && tolower((unsigned char)start[k]) == word[k])
            ++k;
        if (k == length)
            return true;
    }
    return false;
}

static bool chain_name(const char *name)
{
    static const char *const words[] = {"neck", "nek", "spine", "chest", "torso"};
    for (size_t w = 0; w < sizeof words / sizeof words[0]; ++w)
        if (name_contains(name, words[w]))
            return true;
    return false;
}

int anim_look_find_chain(const skeleton *s, int joints[POSE_AIM_JOINTS_MAX])
{
    if (!s || !s->names || !s->parents)
        return 0;
    int head = -1;
    for (int j = 0; j < s->joint_count && head < 0; ++j)
        if (name_contains(s->names[j], "head"))
            head = j;
    if (head < 0)
        return 0;
    int count = 0;
    joints[count++] = head;
    for (int j = s->parents[head]; j >= 0 && count < POSE_AIM_JOINTS_MAX && chain_name(s->names[j]); j = s->parents[j])
        joints[count++] = j;
    return count;
}

void anim_look_default_shares(int joint_count, float shares[POSE_AIM_JOINTS_MAX])
{
    int total = joint_count * (joint_count + 1) / 2;
    for (int k = 0; k < POSE_AIM_JOINTS_MAX; ++k)
        shares[k] = k < joint_count ? (float)(joint_count - k) / (float)total : 0.0f;
}

void anim_look_set_target(anim_look_state *state, const float *target)
{
    if (!state)
        return;
    state->has_target = target && isfinite(target[0]) && isfinite(target[1]) && isfinite(target[2]);
    if (state->has_target)
        memcpy(state->target, target, sizeof state->target);
}

float anim_look_weight(const anim_look_state *state)
{
    /* Eased at both ends (smoothstep), so the head starts and stops turning without a jolt. */
    float t = state ? fminf(fmaxf(state->fade, 0.0f), 1.0f) : 0.0f;
    return t * t * (3.0f - 2.0f * t);
}

void anim_look_step(anim_look_state *state, const anim_look_settings *settings, const int *parents, int joint_count,
                    joint_pose *object, float dt)
{
    if (!state || !settings || !parents || !object || !(dt >= 0.0f) || !isfinite(dt) ||
        (!state->has_target && state->fade <= 0.0f))
        return;
    const pose_aim_chain *chain = &settings->chain;
    if (chain->joint_count <= 0 || chain->joints[0] >= joint_count) {
        state->fade = 0.0f; /* a character without a chain (after a reload, say) turns nothing */
        return;
    }
    bool reachable = false;
    if (state->has_target) {
        float yaw, pitch, yaw_reach = 0.0f, pitch_reach = 0.0f;
        for (int k = 0; k < chain->joint_count; ++k) {
            yaw_reach += chain->yaw_limits[k];
            pitch_reach += chain->pitch_limits[k];
        }
        reachable = pose_aim_measure(chain, joint_count, object, state->target, &yaw, &pitch) &&
                    fabsf(yaw) <= yaw_reach && fabsf(pitch) <= pitch_reach;
    }

    /* The direction follows a target in reach; it is taken as it is when the head is not turned yet (the
     * weight is 0, so nothing jumps), and held while the weight falls so the head turns back the way it
     * came. */
    const float *head = object[chain->joints[0]].position;
    if (reachable) {
        vec3 wanted;
        glm_vec3_sub(state->target, (float *)head, wanted);
        float distance = glm_vec3_norm(wanted);
        if (distance > 0.0f) {
            glm_vec3_scale(wanted, 1.0f / distance, wanted);
            float follow = state->fade <= 0.0f ? 1.0f : 1.0f - expf(-settings->speed * dt);
            vec3 mixed;
            glm_vec3_lerp(state->direction, wanted, follow, mixed);
            float length = glm_vec3_norm(mixed);
            if (length > 1e-4f) /* opposite directions mix to nothing: keep the old one for a step */
                glm_vec3_scale(mixed, 1.0f / length, state->direction);
            state->distance = distance;
        }
    }
    float step = settings->speed * dt;
    state->fade = reachable ? fminf(state->fade + step, 1.0f) : fmaxf(state->fade - step, 0.0f);
    float weight = anim_look_weight(state);
    if (weight <= 0.0f)
        return;
    vec3 aim;
    glm_vec3_scale(state->direction, state->distance, aim);
    glm_vec3_add(aim, (float *)head, aim);
    pose_aim(parents, joint_count, chain, aim, weight, object);
}
