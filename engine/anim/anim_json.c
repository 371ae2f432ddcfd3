/* anim_json: see anim_json.h. */
#include "anim_json.h"

#include <cglm/cglm.h>

void anim_json_write_step(json_writer *w, const animator *animator, const animator_update_result *update)
{
    const anim_controller *controller = animator_controller(animator);
    const state_machine_definition *machine = &animator_character(animator)->machine;
    json_key(w, "state");
    json_string(w, animator_state_name(animator));
    json_key(w, "time_in_state");
    json_number(w, animator_instance(animator)->time_in_state);

    const state_machine_result *decision = &update->decision;
    json_key(w, "transition");
    if (decision->fired) {
        json_object_begin(w);
        json_key(w, "from");
        json_string(w, machine->states[decision->from].name);
        json_key(w, "to");
        json_string(w, machine->states[decision->to].name);
        json_key(w, "fade");
        json_number(w, decision->fade);
        json_object_end(w);
    } else {
        json_null(w);
    }

    json_key(w, "channels");
    json_array_begin(w);
    for (int channel = 0; channel < ANIM_CHANNEL_COUNT; ++channel) {
        json_object_begin(w);
        json_key(w, "channel");
        json_integer(w, channel);
        json_key(w, "weight");
        json_number(w, anim_controller_channel_weight(controller, channel));
        json_key(w, "layers");
        json_array_begin(w);
        for (int k = 0; k < anim_controller_layer_count(controller, channel); ++k) {
            anim_layer_info layer;
            anim_controller_layer(controller, channel, k, &layer);
            json_object_begin(w);
            json_key(w, "clip");
            json_string(w, layer.clip ? layer.clip->name : NULL);
            json_key(w, "time");
            json_number(w, layer.time);
            json_key(w, "cycles");
            json_number(w, layer.cycles);
            json_key(w, "speed");
            json_number(w, layer.speed);
            json_key(w, "weight");
            json_number(w, layer.weight);
            json_key(w, "finished");
            json_bool(w, layer.finished);
            json_object_end(w);
        }
        json_array_end(w);
        json_object_end(w);
    }
    json_array_end(w);

    const anim_update_result *animation = &update->animation;
    json_key(w, "events");
    json_array_begin(w);
    for (int i = 0; i < animation->event_count; ++i) {
        const anim_event *event = &animation->events[i];
        json_object_begin(w);
        json_key(w, "name");
        json_string(w, event->name);
        json_key(w, "clip");
        json_string(w, event->clip ? event->clip->name : NULL);
        json_key(w, "channel");
        json_integer(w, event->channel);
        json_key(w, "cycle");
        json_integer(w, event->cycle);
        json_key(w, "weight");
        json_number(w, event->weight);
        json_key(w, "step_fraction");
        json_number(w, event->step_fraction);
        json_object_end(w);
    }
    json_array_end(w);
    json_key(w, "events_dropped");
    json_integer(w, animation->events_dropped);

    json_key(w, "root");
    json_object_begin(w);
    json_key(w, "translation");
    json_array_begin(w);
    for (int i = 0; i < 3; ++i)
        json_number(w, animation->translation[i]);
    json_array_end(w);
    json_key(w, "yaw_degrees");
    json_number(w, animation->yaw * 180.0 / GLM_PI);
    json_key(w, "share");
    json_number(w, animation->root_motion_share);
    json_object_end(w);

}
