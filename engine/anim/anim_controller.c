/* anim_controller: creation, playing and inspection; the step in anim_controller_update.c, the pose in
 * anim_controller_evaluate.c (anim_controller_internal.h). */
#include "anim_controller_internal.h"
#include "anim_prefetch_internal.h"

/* ---- creation ---- */

/* Where the object pose starts in a controller's block: right after the controller, 32-byte aligned. */
static size_t object_offset(void)
{
    return (sizeof(anim_controller) + 31) / 32 * 32;
}

anim_controller *anim_controller_create(const anim_controller_desc *desc)
{
    if (!desc || !desc->skeleton)
        return NULL;
    const skeleton *s = desc->skeleton;
    int joint_count = s->joint_count;
    if (joint_count <= 0 || !s->parents || !s->names || !s->bind_object)
        return NULL;
    for (int i = 0; i < joint_count; ++i)
        if (s->parents[i] < -1 || s->parents[i] >= i)
            return NULL;
    if (s->parents[0] != -1)
        return NULL;

    /* One block: the controller, the object pose (32-byte aligned for the pose stages), the snapshots,
     * then the masks. */
    size_t header = object_offset();
    size_t pose_bytes = sizeof(joint_pose) * (size_t)joint_count;
    size_t snapshot_bytes = sizeof(anim_snapshot_joint) * (size_t)joint_count;
    size_t mask_bytes = desc->shared_masks ? 0 : sizeof(float) * (size_t)joint_count;
    size_t total = header + pose_bytes + snapshot_bytes * ANIM_CHANNEL_COUNT + mask_bytes * (ANIM_CHANNEL_COUNT - 1);
    total = (total + 31) / 32 * 32;
    char *block = aligned_alloc(32, total);
    if (!block)
        return NULL;
    memset(block, 0, total);

    anim_controller *controller = (anim_controller *)block;
    controller->skeleton = s;
    controller->joint_count = joint_count;
    controller->time_scale = 1.0f;
    controller->bytes = (uint32_t)total;
    controller->shared_masks = desc->shared_masks;
    char *cursor = block + header;
    controller->object = (joint_pose *)cursor;
    cursor += pose_bytes;
    for (int k = 0; k < ANIM_CHANNEL_COUNT; ++k, cursor += snapshot_bytes) {
        controller->channels[k].snapshot = (anim_snapshot_joint *)cursor;
        controller->channels[k].weight = k == 0 ? 1.0f : 0.0f;
        controller->channels[k].weight_target = k == 0;
        controller->channels[k].amount = 1.0f;
    }
    for (int k = 1; k < ANIM_CHANNEL_COUNT && !desc->shared_masks; ++k, cursor += mask_bytes)
        controller->channels[k].mask = (float *)cursor;

    /* Nothing plays yet: this writes the bind pose. */
    anim_controller_update(controller, 0.0, NULL);
    return controller;
}

static bool clip_has_joints(const anim_clip *clip, int joint_count)
{
    return clip && clip->clip && clip->clip->joint_count == joint_count;
}

bool anim_controller_retarget(anim_controller *controller, const skeleton *s, anim_clip_lookup lookup,
                              anim_blend_lookup blend_lookup, void *user)
{
    if (!controller || !s || !lookup || s->joint_count != controller->joint_count)
        return false;
    for (int i = 0; i < s->joint_count; ++i)
        if (s->parents[i] != controller->skeleton->parents[i])
            return false;
    /* Look every clip and blend up before changing anything: all or nothing. */
    const anim_clip *clips[ANIM_CHANNEL_COUNT][ANIM_CHANNEL_LAYERS] = {{NULL}};
    const anim_blend *blends[ANIM_CHANNEL_COUNT][ANIM_CHANNEL_LAYERS] = {{NULL}};
    for (int c = 0; c < ANIM_CHANNEL_COUNT; ++c) {
        const anim_channel *channel = &controller->channels[c];
        for (int k = 0; k < channel->layer_count; ++k) {
            const anim_layer *layer = &channel->layers[k];
            if (layer->clip) {
                clips[c][k] = lookup(user, layer->clip);
                if (!clip_has_joints(clips[c][k], s->joint_count))
                    return false;
            } else if (layer->blend) {
                /* A blend is replaced by one of the same shape, so the layer's point and phase mean the same. */
                const anim_blend *blend = blend_lookup ? blend_lookup(user, layer->blend) : NULL;
                if (!anim_blend_valid(blend) || blend->dimensions != layer->blend->dimensions ||
                    blend->loop != layer->blend->loop || blend->additive != layer->blend->additive)
                    return false;
                for (int i = 0; i < blend->count; ++i)
                    if (!clip_has_joints(blend->clips[i], s->joint_count))
                        return false;
                blends[c][k] = blend;
            } /* a snapshot holds a pose, not a clip */
        }
    }
    for (int c = 0; c < ANIM_CHANNEL_COUNT; ++c) {
        anim_channel *channel = &controller->channels[c];
        for (int k = 0; k < channel->layer_count; ++k) {
            if (channel->layers[k].clip)
                channel->layers[k].clip = clips[c][k];
            else if (channel->layers[k].blend)
                channel->layers[k].blend = blends[c][k];
        }
    }
    controller->skeleton = s;
    return true;
}

void anim_controller_prefetch(const anim_controller *controller, int joint_count)
{
    if (controller && joint_count > 0)
        prefetch_range(controller, object_offset() + sizeof(joint_pose) * (size_t)joint_count, true);
}

void anim_controller_prefetch_object(const anim_controller *controller, int joint_count)
{
    if (!controller || joint_count <= 0)
        return;
    prefetch_range(&controller->object, sizeof controller->object, false); /* read, not followed */
    prefetch_range((const char *)controller + object_offset(), sizeof(joint_pose) * (size_t)joint_count, false);
}

void anim_controller_destroy(anim_controller *controller)
{
    free(controller);
}

anim_controller_memory anim_controller_memory_parts(const anim_controller *controller)
{
    anim_controller_memory parts = {0};
    if (!controller)
        return parts;
    size_t joints = (size_t)controller->joint_count;
    parts.layers = (sizeof(anim_controller) + 31) / 32 * 32;
    parts.object_pose = sizeof(joint_pose) * joints;
    parts.snapshots = sizeof(anim_snapshot_joint) * joints * ANIM_CHANNEL_COUNT;
    parts.masks = controller->bytes - parts.layers - parts.object_pose - parts.snapshots;
    return parts;
}

size_t anim_controller_bytes(const anim_controller *controller)
{
    return controller ? controller->bytes : 0;
}

/* ---- playing ---- */

static bool clip_fits(const anim_controller *controller, const anim_clip *playable)
{
    const clip *c = playable->clip;
    if (!c || c->joint_count != controller->joint_count || !c->frames || c->frame_count <= 0 ||
        !(c->frame_rate > 0.0f) || !c->parents)
        return false;
    for (int i = 0; i < c->joint_count; ++i)
        if (c->parents[i] != controller->skeleton->parents[i])
            return false;
    return true;
}

/* A looping clip or blend in a sync group starts at the phase of the heaviest layer of its group in the
 * channel. */
static double inherited_phase(const anim_channel *channel, const anim_layer *layer)
{
    int group = layer_sync_group(layer);
    if (!layer_loops(layer) || group < 0)
        return 0.0;
    float weights[ANIM_CHANNEL_LAYERS];
    current_weights(channel, weights);
    int leader = -1;
    for (int k = 0; k < channel->layer_count; ++k) {
        const anim_layer *other = &channel->layers[k];
        if (layer_loops(other) && layer_sync_group(other) == group && (leader < 0 || weights[k] > weights[leader]))
            leader = k;
    }
    if (leader < 0)
        return 0.0;
    double cycles = channel->layers[leader].cycles;
    return cycles - floor(cycles);
}

/* play() and play_blend(): `played` has the clip or the blend (and the point); the rest is filled here. */
static bool play_layer(anim_controller *controller, int channel_index, anim_layer played, float fade_seconds,
                       const anim_play_options *options)
{
    if (!valid_fade(fade_seconds))
        return false;
    bool additive = played.clip ? played.clip->additive : played.blend->additive;
    if (additive && channel_index == 0)
        return false; /* the body is the pose everything is added to */
    float speed = options && options->speed != 0.0f ? options->speed : 1.0f;
    if (!(speed >= 0.0f) || !isfinite(speed))
        return false;
    anim_channel *channel = &controller->channels[channel_index];
    bool overlay = channel_index > 0;
    float rate = fade_seconds > 0.0f ? 1.0f / fade_seconds : 0.0f;

    /* An overlay asked to play again fades back in from wherever its weight is. */
    if (overlay) {
        channel->weight_target = true;
        channel->weight_rate = rate;
        if (fade_seconds == 0.0f)
            channel->weight = 1.0f;
    }
    int count = channel->layer_count;
    anim_layer *top = count > 0 ? &channel->layers[count - 1] : NULL;
    bool moves_entity = options && options->moves_entity;
    if (top && top->clip == played.clip && top->blend == played.blend && !layer_finished(top) &&
        !(options && options->restart)) {
        top->moves_entity = moves_entity; /* it plays on for whoever asked last */
        return true;
    }

    anim_layer layer = played;
    double phase = inherited_phase(channel, &layer);
    layer.cycles = phase;
    layer.seconds = 0.0;
    layer.speed = speed;
    layer.fade = fade_seconds > 0.0f ? 0.0f : 1.0f;
    layer.fade_rate = rate;
    layer.start = (float)phase;
    layer.moves_entity = moves_entity;
    /* Nothing on screen to fade from: a body with no clip yet, or an overlay at weight 0 (which fades
     * in as a whole instead). */
    if (count == 0 || (overlay && channel->weight == 0.0f) || layer.fade == 1.0f) {
        layer.fade = 1.0f;
        channel->layers[0] = layer;
        channel->layer_count = 1;
        return true;
    }
    if (count == ANIM_CHANNEL_LAYERS) {
        /* Full: freeze what the channel shows into its snapshot and fade from that. */
        controller_freeze_channel(controller, channel);
        channel->layers[0] = (anim_layer){.clip = NULL, .fade = 1.0f};
        count = 1;
    }
    channel->layers[count] = layer;
    channel->layer_count = count + 1;
    return true;
}

bool anim_controller_play(anim_controller *controller, int channel_index, const anim_clip *clip, float fade_seconds,
                          const anim_play_options *options)
{
    if (!valid_channel(controller, channel_index) || !clip || !clip_fits(controller, clip))
        return false;
    return play_layer(controller, channel_index, (anim_layer){.clip = clip}, fade_seconds, options);
}

static bool valid_point(const float point[2])
{
    return point && isfinite(point[0]) && isfinite(point[1]);
}

bool anim_controller_play_blend(anim_controller *controller, int channel_index, const anim_blend *blend,
                                const float point[2], float fade_seconds, const anim_play_options *options)
{
    if (!valid_channel(controller, channel_index) || !anim_blend_valid(blend) || !valid_point(point))
        return false;
    for (int i = 0; i < blend->count; ++i)
        if (!clip_fits(controller, blend->clips[i]))
            return false;
    anim_layer played = {.blend = blend, .point = {point[0], point[1]}};
    if (!play_layer(controller, channel_index, played, fade_seconds, options))
        return false;
    return anim_controller_set_blend_point(controller, channel_index, blend, point);
}

bool anim_controller_set_blend_point(anim_controller *controller, int channel, const anim_blend *blend,
                                     const float point[2])
{
    if (!valid_channel(controller, channel) || !blend || !valid_point(point))
        return false;
    anim_channel *c = &controller->channels[channel];
    for (int k = 0; k < c->layer_count; ++k) {
        if (c->layers[k].blend == blend) {
            c->layers[k].point[0] = point[0];
            c->layers[k].point[1] = point[1];
        }
    }
    return true;
}

bool anim_controller_stop(anim_controller *controller, int channel, float fade_seconds)
{
    if (!valid_channel(controller, channel) || channel == 0 || !valid_fade(fade_seconds))
        return false;
    anim_channel *c = &controller->channels[channel];
    c->weight_target = false;
    c->weight_rate = fade_seconds > 0.0f ? 1.0f / fade_seconds : 0.0f;
    if (fade_seconds == 0.0f) {
        c->weight = 0.0f;
        c->layer_count = 0;
    }
    return true;
}

/* An overlay channel's own mask, to write (NULL with shared masks). */
static float *own_mask(anim_controller *controller, int channel)
{
    return controller->shared_masks ? NULL : (float *)(uintptr_t)controller->channels[channel].mask;
}

static bool weights_valid(const float *joint_weights, int joint_count)
{
    for (int i = 0; i < joint_count; ++i)
        if (!(joint_weights[i] >= 0.0f && joint_weights[i] <= 1.0f))
            return false; /* also refuses NaN */
    return true;
}

bool anim_controller_set_mask(anim_controller *controller, int channel, const float *joint_weights)
{
    if (!valid_channel(controller, channel) || channel == 0 || !joint_weights || controller->shared_masks ||
        !weights_valid(joint_weights, controller->joint_count))
        return false;
    memcpy(own_mask(controller, channel), joint_weights, sizeof(float) * (size_t)controller->joint_count);
    return true;
}

bool anim_controller_share_mask(anim_controller *controller, int channel, const float *joint_weights)
{
    if (!valid_channel(controller, channel) || channel == 0)
        return false;
    if (!controller->shared_masks)
        return anim_controller_set_mask(controller, channel, joint_weights);
    if (joint_weights && !weights_valid(joint_weights, controller->joint_count))
        return false;
    controller->channels[channel].mask = joint_weights;
    return true;
}

const float *anim_controller_mask(const anim_controller *controller, int channel)
{
    return valid_channel(controller, channel) && channel > 0 ? controller->channels[channel].mask : NULL;
}

bool anim_controller_masks_shared(const anim_controller *controller)
{
    return controller && controller->shared_masks;
}

void anim_controller_branch_weights(const skeleton *s, int joint, float *out)
{
    /* Parents come before children, so a descendant has a larger index and its parent chain meets the
     * branch's joint before going below it. */
    for (int i = 0; i < s->joint_count; ++i) {
        int ancestor = i;
        while (ancestor > joint)
            ancestor = s->parents[ancestor];
        out[i] = i >= joint && ancestor == joint ? 1.0f : 0.0f;
    }
}

bool anim_controller_mask_branch(anim_controller *controller, int channel, const char *joint_name, float weight)
{
    if (!valid_channel(controller, channel) || channel == 0 || !joint_name || !(weight >= 0.0f && weight <= 1.0f) ||
        controller->shared_masks)
        return false;
    const skeleton *s = controller->skeleton;
    int branch = -1;
    for (int i = 0; i < s->joint_count && branch < 0; ++i)
        if (s->names[i] && strcmp(s->names[i], joint_name) == 0)
            branch = i;
    if (branch < 0)
        return false;
    /* Parents come before children, so a descendant has a larger index and its parent chain meets the
     * branch's joint before going below it. */
    for (int i = branch; i < s->joint_count; ++i) {
        int ancestor = i;
        while (ancestor > branch)
            ancestor = s->parents[ancestor];
        if (ancestor == branch)
            own_mask(controller, channel)[i] = weight;
    }
    return true;
}

bool anim_controller_set_overlay_weight(anim_controller *controller, int channel, float weight)
{
    if (!valid_channel(controller, channel) || channel == 0 || !(weight >= 0.0f && weight <= 1.0f))
        return false;
    controller->channels[channel].amount = weight;
    return true;
}

float anim_controller_overlay_weight(const anim_controller *controller, int channel)
{
    return valid_channel(controller, channel) && channel > 0 ? controller->channels[channel].amount : 0.0f;
}

bool anim_controller_set_speed(anim_controller *controller, int channel, float speed)
{
    if (!valid_channel(controller, channel) || !(speed >= 0.0f) || !isfinite(speed))
        return false;
    anim_channel *c = &controller->channels[channel];
    for (int k = 0; k < c->layer_count; ++k)
        c->layers[k].speed = speed;
    return true;
}

bool anim_controller_set_ground_speed(anim_controller *controller, int channel, float meters_per_second)
{
    if (!valid_channel(controller, channel) || !(meters_per_second >= 0.0f) || !isfinite(meters_per_second))
        return false;
    anim_channel *c = &controller->channels[channel];
    for (int k = 0; k < c->layer_count; ++k) {
        anim_layer *layer = &c->layers[k];
        float ground_speed = 0.0f;
        if (layer->clip && layer->clip->ground_speed > 0.0f)
            ground_speed = anim_clip_ground_speed_metres(layer->clip);
        else if (layer->blend) {
            float weights[ANIM_BLEND_MAX_CLIPS];
            anim_blend_weights(layer->blend, layer->point, weights);
            ground_speed = anim_blend_ground_speed(layer->blend, weights);
        }
        if (ground_speed > 0.0f)
            layer->speed = saturate_float((double)meters_per_second / ground_speed); /* finite */
    }
    return true;
}

void anim_controller_set_time_scale(anim_controller *controller, float time_scale)
{
    if (controller && time_scale >= 0.0f && isfinite(time_scale))
        controller->time_scale = time_scale;
}

void anim_controller_set_additive(anim_controller *controller, bool on)
{
    if (controller)
        controller->additive_off = !on;
}

bool anim_controller_additive(const anim_controller *controller)
{
    return controller && !controller->additive_off;
}

/* ---- inspection ---- */

bool anim_controller_local_pose(const anim_controller *controller, joint_pose *out)
{
    if (!controller || !out)
        return false;
    controller_evaluate_local(controller, NULL, !controller->additive_off, out);
    return true;
}

bool anim_controller_local_pose_without_additive(const anim_controller *controller, joint_pose *out)
{
    if (!controller || !out)
        return false;
    controller_evaluate_local(controller, NULL, false, out);
    return true;
}

const joint_pose *anim_controller_object_pose(const anim_controller *controller)
{
    return controller ? controller->object : NULL;
}

joint_pose *anim_controller_object_pose_to_edit(anim_controller *controller)
{
    return controller ? controller->object : NULL;
}

/* Grow box (min xyz, max xyz) to hold another. */
static void bounds_add(float box[2][3], float other[2][3])
{
    for (int k = 0; k < 3; ++k) {
        box[0][k] = fminf(box[0][k], other[0][k]);
        box[1][k] = fmaxf(box[1][k], other[1][k]);
    }
}

/* One visible layer's bounds where the pose shows it: the clip's box at the layer's time, moved by the
 * root travel the controller strips (the entity carries that instead). When root motion also strips the
 * turn, the box is made square around the root, wide enough for any heading. */
static void clip_bounds(const anim_clip *entry, double phase, float out[2][3])
{
    const clip *c = entry->clip;
    float time = (float)(phase * clip_duration(entry));
    pose_sample_bounds(c, time, entry->loop, out);
    joint_pose root;
    pose_sample_joint(c, time, entry->loop, 0, &root);
    /* The floor's two axes, in the clip's file axes. */
    int ground[2] = {file_axis(entry, 0), file_axis(entry, 1)};
    for (int corner = 0; corner < 2; ++corner)
        for (int k = 0; k < 2; ++k)
            out[corner][ground[k]] -= root.position[ground[k]];
    if (entry->root_mode == ANIM_ROOT_MOTION) {
        float reach = 0.0f;
        for (int corner = 0; corner < 2; ++corner)
            for (int k = 0; k < 2; ++k)
                reach = fmaxf(reach, fabsf(out[corner][ground[k]]));
        reach *= sqrtf(2.0f); /* a corner of the box can swing onto an axis */
        out[0][ground[0]] = out[0][ground[1]] = -reach;
        out[1][ground[0]] = out[1][ground[1]] = reach;
    }
}

/* A layer's bounds: its clip's, or the union of its blend's clips that have a weight. */
static void layer_bounds(const anim_layer *layer, float box[2][3])
{
    double phase = layer_phase(layer);
    if (layer->clip) {
        float clip_box[2][3];
        clip_bounds(layer->clip, phase, clip_box);
        bounds_add(box, clip_box);
        return;
    }
    float weights[ANIM_BLEND_MAX_CLIPS];
    anim_blend_weights(layer->blend, layer->point, weights);
    for (int i = 0; i < layer->blend->count; ++i) {
        if (!(weights[i] > 0.0f))
            continue;
        float clip_box[2][3];
        clip_bounds(layer->blend->clips[i],
                    cycles_phase(layer->blend->loop, blend_clip_cycles(layer, i, layer->cycles, layer->seconds)),
                    clip_box);
        bounds_add(box, clip_box);
    }
}

bool anim_controller_bounds(const anim_controller *controller, float out[2][3])
{
    if (!controller || !out)
        return false;
    float box[2][3] = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    bool snapshot_visible = false;
    for (int c = 0; c < ANIM_CHANNEL_COUNT; ++c) {
        const anim_channel *channel = &controller->channels[c];
        if (!(channel->weight > 0.0f))
            continue;
        float weights[ANIM_CHANNEL_LAYERS];
        current_weights(channel, weights);
        for (int k = 0; k < channel->layer_count; ++k) {
            if (!(weights[k] > 0.0f))
                continue;
            /* A snapshot has no clip bounds, and an additive clip's bounds are of its raw frames, not of
             * what it adds to: the joints as shown cover both. */
            if (layer_is_snapshot(&channel->layers[k]) || controller_layer_additive(channel, &channel->layers[k])) {
                snapshot_visible = true;
                continue;
            }
            layer_bounds(&channel->layers[k], box);
        }
    }
    /* A frozen snapshot (or the bind pose before any clip) has no clip bounds: use its joints, padded for
     * the flesh around them. */
    if (snapshot_visible || box[0][0] > box[1][0]) {
        for (int i = 0; i < controller->joint_count; ++i) {
            const float *p = controller->object[i].position;
            float joint_box[2][3];
            for (int k = 0; k < 3; ++k) {
                joint_box[0][k] = p[k] - ANIM_JOINT_BOUNDS_PADDING;
                joint_box[1][k] = p[k] + ANIM_JOINT_BOUNDS_PADDING;
            }
            bounds_add(box, joint_box);
        }
    }
    memcpy(out, box, sizeof box);
    return true;
}

int anim_controller_layer_count(const anim_controller *controller, int channel)
{
    return valid_channel(controller, channel) ? controller->channels[channel].layer_count : 0;
}

/* A layer as anim_layer_info says, with its blend's weights; a blend's lead clip and time only when `whole`
 * (they take the blend's duration). */
static int layer_info(const anim_controller *controller, int channel, int index, anim_layer_info *out,
                      float blend_weights[ANIM_BLEND_MAX_CLIPS], bool whole)
{
    if (!valid_channel(controller, channel) || !out || !blend_weights || index < 0 ||
        index >= controller->channels[channel].layer_count)
        return -1;
    const anim_channel *c = &controller->channels[channel];
    const anim_layer *layer = &c->layers[index];
    float weights[ANIM_CHANNEL_LAYERS];
    current_weights(c, weights);
    /* A blend's lead clip and time from one look at its weights. */
    const anim_clip *lead = layer->clip;
    double time = 0.0;
    if (layer->blend) {
        anim_blend_weights(layer->blend, layer->point, blend_weights);
        lead = NULL;
        if (whole) {
            lead = layer->blend->clips[anim_blend_heaviest(layer->blend, blend_weights)];
            time = layer_phase(layer) * anim_blend_duration(layer->blend, blend_weights);
        }
    } else if (!layer_is_snapshot(layer)) {
        time = layer_phase(layer) * clip_duration(layer->clip);
    }
    *out = (anim_layer_info){
        .clip = lead,
        .blend = layer->blend,
        .point = {layer->point[0], layer->point[1]},
        .time = time,
        .cycles = layer->cycles,
        .speed = layer->speed,
        .fade = layer->fade,
        .weight = weights[index],
        .finished = layer_finished(layer),
        .moves_entity = layer->moves_entity,
    };
    return layer->blend ? layer->blend->count : 0;
}

bool anim_controller_layer(const anim_controller *controller, int channel, int index, anim_layer_info *out)
{
    float blend_weights[ANIM_BLEND_MAX_CLIPS];
    return layer_info(controller, channel, index, out, blend_weights, true) >= 0;
}

int anim_controller_layer_weighted(const anim_controller *controller, int channel, int index, anim_layer_info *out,
                                   float blend_weights[ANIM_BLEND_MAX_CLIPS])
{
    return layer_info(controller, channel, index, out, blend_weights, false);
}

float anim_controller_channel_weight(const anim_controller *controller, int channel)
{
    return valid_channel(controller, channel) ? controller->channels[channel].weight : 0.0f;
}

bool anim_controller_finished(const anim_controller *controller, int channel)
{
    if (!valid_channel(controller, channel) || controller->channels[channel].layer_count == 0)
        return false;
    const anim_channel *c = &controller->channels[channel];
    return layer_finished(&c->layers[c->layer_count - 1]);
}

int anim_controller_layer_blend_weights(const anim_controller *controller, int channel, int index,
                                        float weights[ANIM_BLEND_MAX_CLIPS])
{
    if (!valid_channel(controller, channel) || !weights || index < 0 ||
        index >= controller->channels[channel].layer_count || !controller->channels[channel].layers[index].blend)
        return 0;
    const anim_layer *layer = &controller->channels[channel].layers[index];
    anim_blend_weights(layer->blend, layer->point, weights);
    return layer->blend->count;
}
