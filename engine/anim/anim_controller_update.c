/* anim_controller: root motion, events and the step (see anim_controller_internal.h). */
#include "anim_controller_internal.h"

/* ---- root motion ---- */

/* Where the root stands on the floor: its horizontal position and its heading (yaw about Z). Root
 * motion moves the entity by how this changes; what is left in the pose is the root's height and tilt. */
typedef struct root_frame {
    double x, y, yaw;
} root_frame;

/* The root frame at `seconds` into the clip, interpolated as pose_sample does but without wrapping:
 * the end of a cycle is the last frame itself, a stride further on than the first. (A clip in the
 * tutorials' loop convention has no frame for the end of its cycle; its last step holds still.) In the
 * canonical axes of the clip's character, in file units. */
static root_frame root_frame_at(const anim_clip *entry, double seconds)
{
    const clip *c = entry->clip;
    int last = c->frame_count - 1;
    double frame = seconds * c->frame_rate;
    frame = frame < 0.0 ? 0.0 : frame > last ? last : frame;
    int first = (int)frame;
    int second = first < last ? first + 1 : last;
    float alpha = (float)(frame - first);
    const joint_pose *a = &c->frames[(ptrdiff_t)first * c->joint_count];
    const joint_pose *b = &c->frames[(ptrdiff_t)second * c->joint_count];
    float rotation[4], position[3];
    quat_nlerp(a->rotation, b->rotation, alpha, rotation);
    for (int k = 0; k < 3; ++k)
        position[k] = a->position[k] + alpha * (b->position[k] - a->position[k]);
    anim_axes_to_canonical(&entry->import_axes, position, position);
    rotation_to_canonical(entry, rotation, rotation);
    root_frame out = {.x = position[0], .y = position[1], .yaw = heading_of(rotation)};
    return out;
}

/* from^-1 * to: the move from `from` to `to` seen from `from` (its forward is +X). */
static root_frame root_relative(root_frame from, root_frame to)
{
    double dx = to.x - from.x, dy = to.y - from.y, c = cos(from.yaw), s = sin(from.yaw);
    root_frame out = {.x = c * dx + s * dy, .y = -s * dx + c * dy, .yaw = wrap_angle(to.yaw - from.yaw)};
    return out;
}

/* first, then second seen from where first ends. */
static root_frame root_compose(root_frame first, root_frame second)
{
    double c = cos(first.yaw), s = sin(first.yaw);
    root_frame out = {
        .x = first.x + c * second.x - s * second.y,
        .y = first.y + s * second.x + c * second.y,
        .yaw = first.yaw + second.yaw,
    };
    return out;
}

/* The root's motion while a layer moves from cycles `from` to `to`, across any loop boundaries: the rest
 * of the first cycle, a whole stride per loop in between, and the start of the last. */
static root_frame clip_root_motion_in_file_units(const anim_clip *c, double from, double to)
{
    double duration = clip_duration(c);
    if (!c->loop || !(to > from))
        return root_relative(root_frame_at(c, fmin(from, 1.0) * duration), root_frame_at(c, fmin(to, 1.0) * duration));

    double first_cycle = floor(from), last_cycle = floor(to);
    root_frame start = root_frame_at(c, (from - first_cycle) * duration);
    root_frame end = root_frame_at(c, (to - last_cycle) * duration);
    if (first_cycle == last_cycle)
        return root_relative(start, end);

    root_frame cycle_start = root_frame_at(c, 0.0), cycle_end = root_frame_at(c, duration);
    root_frame stride = root_relative(cycle_start, cycle_end);
    root_frame motion = root_relative(start, cycle_end);
    double whole_loops = fmin(last_cycle - first_cycle - 1.0, ANIM_MAX_LOOPS_PER_STEP);
    for (int k = 0; k < (int)whole_loops; ++k)
        motion = root_compose(motion, stride);
    motion = root_compose(motion, root_relative(cycle_start, end));
    return motion;
}

/* The same in metres: the character's scale turns file units into metres. */
static root_frame clip_root_motion(const anim_clip *clip, double from, double to)
{
    root_frame motion = clip_root_motion_in_file_units(clip, from, to);
    if (clip->import_scale > 0.0f) {
        motion.x *= clip->import_scale;
        motion.y *= clip->import_scale;
    }
    return motion;
}

/* Add weight times the root motion of a layer moving from cycles `from` to `to` (seconds from
 * `seconds_from` to `seconds_to`): its clip's if it is a root-motion clip, or each root-motion clip of its
 * blend by its weight in the blend. In-place clips add nothing. */
static void add_layer_root_motion(const anim_layer *layer, const float blend_weights[ANIM_BLEND_MAX_CLIPS],
                                  double from, double to, double seconds_from, double seconds_to, float weight,
                                  root_frame *sum)
{
    const anim_clip *only = layer->clip;
    static const float clip_weights[ANIM_BLEND_MAX_CLIPS] = {1.0f};
    const float *weights = layer->blend ? blend_weights : clip_weights;
    int count = layer->blend ? layer->blend->count : 1;
    for (int i = 0; i < count; ++i) {
        const anim_clip *clip = layer->blend ? layer->blend->clips[i] : only;
        if (!clip || clip->root_mode != ANIM_ROOT_MOTION || !(weights[i] > 0.0f))
            continue;
        root_frame motion = layer->blend ? clip_root_motion(clip, blend_clip_cycles(layer, i, from, seconds_from),
                                                            blend_clip_cycles(layer, i, to, seconds_to))
                                         : clip_root_motion(clip, from, to);
        double share = (double)weight * weights[i];
        sum->x += share * motion.x;
        sum->y += share * motion.y;
        sum->yaw += share * motion.yaw;
    }
}

/* ---- update ---- */

/* events_dropped grows by `more`, saturating at INT_MAX: a step over millions of cycles drops millions. */
static void count_dropped(anim_update_result *result, long long more)
{
    long long room = (long long)INT_MAX - result->events_dropped;
    result->events_dropped += (int)(more < room ? (more > 0 ? more : 0) : room);
}

/* Keep the earliest ANIM_EVENTS_MAX events of the step, in the order they happened (ties: the order
 * they were found, channel by channel and layer by layer, so the same input always gives the same
 * order). */
static void add_event(anim_update_result *result, anim_event event)
{
    int count = result->event_count;
    if (count == ANIM_EVENTS_MAX) {
        count_dropped(result, 1);
        if (!(event.step_fraction < result->events[count - 1].step_fraction))
            return;
        --count;
    }
    int at = count;
    while (at > 0 && result->events[at - 1].step_fraction > event.step_fraction) {
        result->events[at] = result->events[at - 1];
        --at;
    }
    result->events[at] = event;
    result->event_count = count + 1;
}

/* What one channel's layers do during one step, for the events: where each moves (cycles `from` to
 * `to`), the fraction of the step it stays visible, and its weight at both ends (channel weight
 * included; in between it changes linearly). */
typedef struct layer_step {
    const anim_layer *layers;
    const anim_clip *clips[ANIM_CHANNEL_LAYERS]; /* whose marks each fires: layer_lead_clip, NULL for a snapshot */
    int count;
    double from[ANIM_CHANNEL_LAYERS], to[ANIM_CHANNEL_LAYERS], life[ANIM_CHANNEL_LAYERS];
    float weight_before[ANIM_CHANNEL_LAYERS], weight_after[ANIM_CHANNEL_LAYERS];
    bool fresh[ANIM_CHANNEL_LAYERS]; /* its first step since play() */
} layer_step;

/* Phases closer than this (in cycles) are one moment: it absorbs rounding in frame / rate / duration and
 * in the shared phase of a sync group, nothing an author could mean. */
#define ANIM_PHASE_EPSILON 1e-6

/* Where a mark sits in its clip: a loop's normalized phase in [0, 1) (a mark on the last frame of a
 * Doom 3 cycle is the next cycle's first), a one-shot's position 0..1. */
static double mark_phase(const anim_clip *clip, int mark)
{
    double duration = clip_duration(clip);
    double at = duration > 0.0 ? (double)clip->events[mark].frame / clip->clip->frame_rate / duration : 0.0;
    return clip->loop ? at - floor(at) : fmin(fmax(at, 0.0), 1.0);
}

static float weight_at(const layer_step *step, int k, double fraction)
{
    return step->weight_before[k] + (float)fraction * (step->weight_after[k] - step->weight_before[k]);
}

/* Whether layer j crossed (or will cross, later in the step) the point `crossing` of its cycles while it
 * was in the channel and visible. In its first step the answer is exact (a crossing belongs to the step
 * with from <= crossing < until, so one at `from` is this step's); later, `start` tells within
 * ANIM_PHASE_EPSILON. A crossing in an earlier step was visible: a layer is cut short only in the step
 * that drops it. One past this step is taken to come. */
static bool crossed_in_channel(const layer_step *step, int j, double crossing)
{
    if (step->fresh[j] ? crossing < step->from[j] : crossing < (double)step->layers[j].start - ANIM_PHASE_EPSILON)
        return false; /* before play() put it here */
    double span = step->to[j] - step->from[j];
    double fraction = span > 0.0 ? (crossing - step->from[j]) / span : 0.0;
    return !(fraction >= 0.0 && fraction < 1.0) || fraction < step->life[j];
}

/* The footstep rule (anim_controller.h, "Events"): layer k crosses its mark `mark` a `fraction` into the
 * step. Marks of the same name in the other looping layers of its sync group, within
 * ANIM_EVENT_SAME_CONTACT of its phase, are the same contact: it fires once, at the crossing of its
 * newest member that crossed it while in the channel. Newest, not heaviest: which layer is newest
 * changes only when play() adds one (dropping takes older layers), so a contact is neither lost nor
 * doubled when the weights cross over. False: another layer fires this contact. True: `event` (layer
 * k's own) gets the summed weight of the members visible now and the clip and cycle of the heaviest. */
static bool contact_event(const layer_step *step, int k, int mark, double fraction, anim_event *event)
{
    const anim_clip *clip = step->clips[k];
    if (!clip->loop || clip->sync_group < 0)
        return true;
    double phase = mark_phase(clip, mark);
    double now_k = step->from[k] + fraction * (step->to[k] - step->from[k]);
    float heaviest = event->weight;
    for (int j = 0; j < step->count; ++j) {
        const anim_clip *other = step->clips[j];
        if (j == k || !other || !other->loop || other->sync_group != clip->sync_group || other->event_count <= 0 ||
            !other->events)
            continue;
        /* Its nearest mark of the same name, as an offset in cycles: > 0 before this one. */
        double offset = 1.0, other_phase = 0.0;
        for (int m = 0; m < other->event_count; ++m) {
            if (strcmp(other->events[m].name, clip->events[mark].name) != 0)
                continue;
            double d = phase - mark_phase(other, m);
            d -= floor(d + 0.5);
            if (fabs(d) < fabs(offset)) {
                offset = d;
                other_phase = mark_phase(other, m);
            }
        }
        if (!(fabs(offset) <= ANIM_EVENT_SAME_CONTACT + ANIM_PHASE_EPSILON))
            continue;
        if (fabs(offset) < ANIM_PHASE_EPSILON)
            offset = 0.0;
        /* Its crossing of that mark, as fire_events places it: a whole cycle count plus the phase. */
        double now_j = step->from[j] + fraction * (step->to[j] - step->from[j]);
        long long cycle_j = cycle_count(floor(now_j - offset - other_phase + 0.5));
        double crossing_j = (double)cycle_j + other_phase;
        bool j_crossed = crossed_in_channel(step, j, crossing_j);
        /* A newer member's crossing is the contact's. An older member's earlier one was, if this layer
         * was not here yet to take it: in this layer's first step, if it came in an earlier step. */
        if (j > k && j_crossed)
            return false;
        bool before_k = step->fresh[k] ? crossing_j < step->from[j]
                                       : now_k - offset < (double)step->layers[k].start - ANIM_PHASE_EPSILON;
        if (j < k && j_crossed && before_k)
            return false;
        if (!(fraction < step->life[j]))
            continue; /* faded out before now: it adds nothing */
        float weight = weight_at(step, j, fraction);
        event->weight += weight;
        if (weight > heaviest) {
            heaviest = weight;
            event->clip = other;
            event->cycle = cycle_j;
        }
    }
    return true;
}

/* Layer k's marks crossed during the step: a crossing is a mark at from <= time < from + life * (to -
 * from), where it faded out if it did during the step; a one-shot that reaches its end also fires the
 * marks on its last frame. */
static void fire_events(const layer_step *step, int k, int channel, anim_update_result *result)
{
    const anim_clip *clip = step->clips[k];
    double from = step->from[k], to = step->to[k], until = from + step->life[k] * (to - from);
    if (!(until > from) || clip->event_count <= 0 || !clip->events)
        return;
    bool reaches_end = !clip->loop && until >= 1.0;
    for (int e = 0; e < clip->event_count; ++e) {
        double at = mark_phase(clip, e);
        long long first = 0, last = 0;
        if (clip->loop) {
            first = cycle_count(ceil(from - at));
            last = cycle_count(ceil(until - at)) - 1;
        } else {
            bool crossed = at >= from && (at < until || reaches_end);
            last = crossed ? 0 : -1;
        }
        for (long long n = first; n <= last; ++n) {
            if (n - first >= ANIM_EVENTS_MAX) {
                count_dropped(result, last - n + 1);
                break;
            }
            /* In [0, 1] but for rounding of huge cycle counts: clamped, so it stays a fraction. */
            double fraction = fmin(fmax(((double)n + at - from) / (to - from), 0.0), 1.0);
            anim_event event = {
                .name = clip->events[e].name,
                .clip = clip,
                .channel = channel,
                .cycle = n,
                .weight = weight_at(step, k, fraction),
                .step_fraction = (float)fraction,
            };
            if (contact_event(step, k, e, fraction, &event))
                add_event(result, event);
        }
    }
}

/* Advance one channel by dt: fades, the channel's weight, each layer's cycles (sync groups together),
 * its events and (channel 0) the root motion of the layers that move the entity, with their summed weight
 * over the step in *root_motion_share; then drop the layers nothing is left of. */
static void advance_channel(anim_channel *channel, int channel_index, double dt, anim_update_result *result,
                            root_frame *root_motion, double *root_motion_share, channel_blend_weights blend_weights)
{
    int count = channel->layer_count;
    float fades_before[ANIM_CHANNEL_LAYERS], fades_after[ANIM_CHANNEL_LAYERS];
    double life[ANIM_CHANNEL_LAYERS]; /* fraction of the step each layer is still visible */
    for (int k = 0; k < count; ++k) {
        const anim_layer *layer = &channel->layers[k];
        fades_before[k] = layer->fade;
        fades_after[k] = (float)fmin(1.0, layer->fade + layer->fade_rate * dt);
        life[k] = 1.0;
    }
    /* A layer that completes its fade-in hides everything below it from that moment on. */
    for (int k = 1; k < count; ++k) {
        if (fades_before[k] >= 1.0f || !(fades_after[k] >= 1.0f))
            continue;
        double moment = (1.0 - fades_before[k]) / (channel->layers[k].fade_rate * dt);
        for (int below = 0; below < k; ++below)
            life[below] = fmin(life[below], moment);
    }
    float channel_before = channel->weight, channel_after = channel->weight;
    if (channel->weight < channel->weight_target)
        channel_after = (float)fmin(channel->weight_target, channel->weight + channel->weight_rate * dt);
    else if (channel->weight > channel->weight_target)
        channel_after = (float)fmax(channel->weight_target, channel->weight - channel->weight_rate * dt);
    if (channel_after == 0.0f && channel_before > 0.0f) {
        double moment = channel_before / (channel->weight_rate * dt);
        for (int k = 0; k < count; ++k)
            life[k] = fmin(life[k], moment);
    }
    channel->weight = channel_after;

    float weights_before[ANIM_CHANNEL_LAYERS], weights_after[ANIM_CHANNEL_LAYERS], average[ANIM_CHANNEL_LAYERS];
    stack_weights(fades_before, count, weights_before);
    stack_weights(fades_after, count, weights_after);
    for (int k = 0; k < count; ++k) {
        weights_before[k] *= channel_before;
        weights_after[k] *= channel_after;
        average[k] = 0.5f * (weights_before[k] + weights_after[k]);
        /* Every layer that moves the entity holds its share, travelling or not: a one-shot holding its
         * last frame keeps the entity still rather than handing it back to the game. */
        if (root_motion_share && channel->layers[k].moves_entity)
            *root_motion_share += average[k];
    }

    /* Cycles per second of each layer. The layers of a sync group share one rate, their weighted mean,
     * so their phases, equal when they started, stay equal. */
    double own_rates[ANIM_CHANNEL_LAYERS], rates[ANIM_CHANNEL_LAYERS];
    for (int k = 0; k < count; ++k) {
        const anim_layer *layer = &channel->layers[k];
        layer_blend_weights(layer, blend_weights[k]);
        double duration = layer_duration(layer, blend_weights[k]);
        own_rates[k] = rates[k] = duration > 0.0 ? layer->speed / duration : layer_is_snapshot(layer) ? 0.0 : INFINITY;
    }
    for (int k = 0; k < count; ++k) {
        int group = layer_sync_group(&channel->layers[k]);
        if (!layer_loops(&channel->layers[k]) || group < 0)
            continue;
        double weighted = 0.0, weight_sum = 0.0, plain = 0.0;
        int members = 0;
        for (int other = 0; other < count; ++other) {
            const anim_layer *o = &channel->layers[other];
            if (!layer_loops(o) || layer_sync_group(o) != group)
                continue;
            weighted += average[other] * own_rates[other];
            weight_sum += average[other];
            plain += own_rates[other];
            ++members;
        }
        rates[k] = weight_sum > 0.0 ? weighted / weight_sum : plain / members;
    }

    /* Where each layer moves, all first: a layer's events depend on what the others of its sync group do
     * in the same step. */
    layer_step step; /* its arrays are written below for the layers there are, and read only for them */
    step.layers = channel->layers;
    step.count = count;
    for (int k = 0; k < count; ++k) {
        const anim_layer *layer = &channel->layers[k];
        step.from[k] = step.to[k] = layer->cycles;
        step.life[k] = life[k];
        step.weight_before[k] = weights_before[k];
        step.weight_after[k] = weights_after[k];
        /* A layer fading in has fade 0 only until its first step (a cut replaces the whole stack). */
        step.fresh[k] = k > 0 && fades_before[k] == 0.0f;
        step.clips[k] = layer_lead_clip(layer, blend_weights[k]);
        if (layer_is_snapshot(layer))
            continue;
        step.to[k] = isinf(rates[k]) ? 1.0 : layer->cycles + fmin(rates[k] * dt, ANIM_MAX_CYCLES_PER_STEP);
        if (!layer_loops(layer))
            step.to[k] = fmin(step.to[k], 1.0);
    }
    for (int k = 0; k < count; ++k) {
        anim_layer *layer = &channel->layers[k];
        layer->fade = fades_after[k];
        double from = step.from[k], to = step.to[k];
        if (layer_is_snapshot(layer) || !(to > from))
            continue;
        if (result)
            fire_events(&step, k, channel_index, result);
        if (root_motion && layer->moves_entity && average[k] > 0.0f)
            add_layer_root_motion(layer, blend_weights[k], from, to, layer->seconds, layer->seconds + dt, average[k],
                                  root_motion);
    }
    for (int k = 0; k < count; ++k) {
        channel->layers[k].cycles = step.to[k];
        if (channel->layers[k].blend)
            channel->layers[k].seconds += dt;
    }

    /* Drop what no longer shows: everything under the highest fully faded-in layer, or the whole
     * overlay once it has faded out. */
    int lowest_visible = 0;
    for (int k = count - 1; k > 0 && lowest_visible == 0; --k)
        if (channel->layers[k].fade >= 1.0f)
            lowest_visible = k;
    if (lowest_visible > 0) {
        memmove(channel->layers, channel->layers + lowest_visible, sizeof(anim_layer) * (size_t)(count - lowest_visible));
        memmove(blend_weights, blend_weights + lowest_visible,
                sizeof *blend_weights * (size_t)(count - lowest_visible));
        channel->layer_count = count - lowest_visible;
    }
    if (channel_index > 0 && channel->weight == 0.0f && !channel->weight_target)
        channel->layer_count = 0;
}

/* The summed weight now of the body's layers that move the entity: a step of no time has no average. */
static double body_root_motion_share(const anim_channel *body)
{
    float weights[ANIM_CHANNEL_LAYERS];
    current_weights(body, weights);
    double share = 0.0;
    for (int k = 0; k < body->layer_count; ++k)
        if (body->layers[k].moves_entity)
            share += weights[k];
    return share;
}

/* anim_controller_update up to the local pose, which goes to `local`. */
static void update_local(anim_controller *controller, double dt, anim_update_result *result, joint_pose *local)
{
    if (result) {
        /* Every field but the event slots, which are written before event_count counts them: clearing
         * them all was a 700-byte memset per entity per step. */
        for (int k = 0; k < 3; ++k)
            result->translation[k] = 0.0f;
        result->yaw = result->root_motion_share = 0.0f;
        result->event_count = result->events_dropped = 0;
        for (int c = 0; c < ANIM_CHANNEL_COUNT; ++c)
            result->finished[c] = false;
    }
    dt = fmin(dt * controller->time_scale, ANIM_MAX_STEP_SECONDS);

    root_frame root_motion = {0.0, 0.0, 0.0};
    double root_motion_share = 0.0;
    channel_blend_weights blend_weights[ANIM_CHANNEL_COUNT]; /* the step's, for controller_evaluate_local */
    if (dt > 0.0)
        for (int c = 0; c < ANIM_CHANNEL_COUNT; ++c)
            advance_channel(&controller->channels[c], c, dt, result, c == 0 ? &root_motion : NULL,
                            c == 0 ? &root_motion_share : NULL, blend_weights[c]);
    else
        root_motion_share = body_root_motion_share(&controller->channels[0]);
    if (result) {
        result->translation[0] = saturate_float(root_motion.x);
        result->translation[1] = saturate_float(root_motion.y);
        result->yaw = saturate_float(root_motion.yaw);
        result->root_motion_share = (float)fmin(fmax(root_motion_share, 0.0), 1.0); /* the weights' rounding */
        for (int c = 0; c < ANIM_CHANNEL_COUNT; ++c)
            result->finished[c] = anim_controller_finished(controller, c);
    }

    controller_evaluate_local(controller, dt > 0.0 ? (const channel_blend_weights *)blend_weights : NULL,
                   !controller->additive_off, local);
}

bool anim_controller_update(anim_controller *controller, double dt, anim_update_result *result)
{
    if (!controller || !(dt >= 0.0) || !isfinite(dt))
        return false;
    /* Up to a pass of joints (every humanoid), the local pose goes on the stack and pose_to_object reads
     * it from there: that runs about 10% faster than turning the object buffer into object space in
     * place (md5tool bench anim), which bigger skeletons do instead, with the same result. */
    joint_pose local[ANIM_PASS_JOINTS];
    joint_pose *target = controller->joint_count <= ANIM_PASS_JOINTS ? local : controller->object;
    update_local(controller, dt, result, target);
    return pose_to_object(controller->skeleton->parents, controller->joint_count, target, controller->object);
}

bool anim_controller_update_local(anim_controller *controller, double dt, anim_update_result *result,
                                  joint_pose *local)
{
    if (!controller || !local || local == controller->object || !(dt >= 0.0) || !isfinite(dt))
        return false;
    update_local(controller, dt, result, local);
    return true;
}
