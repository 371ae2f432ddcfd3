/* fuzz_input_script: what fuzz_settings and fuzz_scripts check of an input script (`marionette --script`):
 * loaded with warnings only and replayed to its end as the demo polls it, or refused with an error.
 * Harness code only. */
#ifndef MARIONETTE_FUZZ_INPUT_SCRIPT_H
#define MARIONETTE_FUZZ_INPUT_SCRIPT_H

#include <math.h>
#include <string.h>

#include "fuzz_check.h"
#include "input_script.h"

enum { FUZZ_POLL_MAX = 8 };

/* The kept messages are all warnings (past DIAG_LIST_KEEP only the total is known). */
static inline bool fuzz_warnings_only(const diag_list *errors)
{
    for (int i = 0; i < errors->count; ++i)
        if (strncmp(errors->items[i].message, "warning: ", 9) != 0)
            return false;
    return true;
}

/* Replayed as the demo polls it, at step times growing from 1/60 s to past its last event (doubling, so a
 * script whose events lie a billion seconds away still ends in a few thousand polls), in polls of at most
 * `per_poll` events: every event comes once, in time order, no earlier than its time, finite; a tap's
 * release comes as well. */
static inline void fuzz_replay(input_script *script, int per_poll)
{
    double duration = input_script_duration(script);
    int events = input_script_event_count(script);
    FUZZ_REQUIRE(isfinite(duration) && duration >= 0.0 && duration <= INPUT_SCRIPT_TIME_MAX && events >= 0);
    FUZZ_REQUIRE(events > 0 || (duration == 0.0 && input_script_finished(script)));
    double step = 1.0 / 60.0, time = 0.0, last_time = 0.0;
    int delivered = 0, ups = 0, downs = 0, polls = 0;
    input_script_event out[FUZZ_POLL_MAX];
    while (!input_script_finished(script)) {
        int count = input_script_poll(script, time, out, per_poll);
        FUZZ_REQUIRE(count >= 0 && count <= per_poll);
        for (int i = 0; i < count; ++i) {
            const input_script_event *event = &out[i];
            FUZZ_REQUIRE(isfinite(event->time) && event->time <= time + 1e-6 && event->line >= 1);
            switch (event->kind) {
            case INPUT_SCRIPT_KEY_DOWN:
                FUZZ_REQUIRE(event->key != PLATFORM_KEY_UNKNOWN);
                ++downs;
                break;
            case INPUT_SCRIPT_KEY_UP:
                FUZZ_REQUIRE(event->key != PLATFORM_KEY_UNKNOWN);
                ++ups;
                break;
            case INPUT_SCRIPT_WHEEL:
                FUZZ_REQUIRE(isfinite(event->wheel));
                break;
            case INPUT_SCRIPT_DRAG:
                FUZZ_REQUIRE(isfinite(event->drag_x) && isfinite(event->drag_y));
                break;
            case INPUT_SCRIPT_CLICK:
                FUZZ_REQUIRE(event->x >= 0.0f && event->x <= 1e6f && event->y >= 0.0f && event->y <= 1e6f);
                break;
            default:
                FUZZ_REQUIRE(!"an event of no kind");
            }
            /* The file's events come in its (never decreasing) time order. A tap's release carries its
             * press's time and comes a poll later, maybe after later events of a coarse step. */
            if (event->kind != INPUT_SCRIPT_KEY_UP) {
                FUZZ_REQUIRE(event->time >= last_time);
                last_time = event->time;
            }
        }
        delivered += count;
        ++polls;
        FUZZ_REQUIRE(polls <= 4 * events + 4096);
        if (count < per_poll) { /* all that was due came: the next step */
            time += step;
            if (time > 1.0)
                step = time;
        }
    }
    FUZZ_REQUIRE(last_time <= duration);
    /* Every file event once, plus one release per tap: at least the events, at most twice. */
    FUZZ_REQUIRE(delivered >= events && delivered <= 2 * events && downs + ups <= delivered);
    FUZZ_REQUIRE(input_script_poll(script, time + 1.0, out, per_poll) == 0);
}

static inline void fuzz_input_script(const char *path, unsigned hash)
{
    diag_list errors = {0};
    input_script *script = input_script_load(path, &errors);
    FUZZ_REQUIRE(fuzz_diag_list_ok(&errors));
    if (script) {
        FUZZ_REQUIRE(fuzz_warnings_only(&errors));
        fuzz_replay(script, 1 + (int)(hash % FUZZ_POLL_MAX));
    } else {
        /* Refused: at least one error, which is kept unless warnings filled the list first. */
        FUZZ_REQUIRE(errors.total > 0 && (errors.count == DIAG_LIST_KEEP || !fuzz_warnings_only(&errors)));
    }
    input_script_free(script);
    diag_list_free(&errors);
}

#endif
