/* marionette: the demo. Parses the command line and runs game/demo. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: marionette [options]\n"
            "\n"
            "Walk, run, jump and wave a skeletal character; spawn crowds that share its animation data.\n"
            "Keys are listed in config/controls.ini (F1 shows them in the demo).\n"
            "\n"
            "  --headless            render offscreen: no window, no display needed (Mesa llvmpipe works)\n"
            "  --frames N            stop after N frames, 1 to 100000000 (headless frames show 1/60 s each)\n"
            "  --screenshot FILE     write the last frame to FILE (PNG)\n"
            "  --crowd N             spawn N crowd members at the start, 0 to 100000 (demo.ini's max caps it)\n"
            "  --script FILE         replay timed key presses from FILE as the player's input\n"
            "                        (lines: SECONDS press|release|tap KEY, SECONDS wheel STEPS,\n"
            "                        SECONDS drag DX DY; times are simulation seconds)\n"
            "  --trace FILE          write every simulation step (input, player state, layers, events)\n"
            "                        to FILE as a JSON array (docs/trace.md)\n"
            "  --trace-joints all|NAME,NAME  the player's final pose in the trace: world transform, those\n"
            "                        joints in world space, each foot and the ground under it\n"
            "  --trace-members N,N   the same for these crowd members (0 to demo.ini's max - 1)\n"
            "  --trace-stages        every stage's pose too: blend, additive, look, foot_lock, foot_ik\n"
            "  --record FILE.md5anim record the player's final pose from the start (F9 stops and starts\n"
            "                        again) as a clip of its skeleton; written when it stops or the demo ends\n"
            "  --record-rate HZ      frames a second of a recording, 1 to 120 (default 30)\n"
            "  --in-place            the recording's root stays put instead of moving with the body\n"
            "  --config DIR          folder of the five files the demo reads: characters.ini (the\n"
            "                        characters), clips.ini and states.ini (their clips and state\n"
            "                        machines, as characters.ini names them), controls.ini (the keys)\n"
            "                        and demo.ini (crowd, camera, ground, window, render, look-at)\n"
            "                        (default: %s)\n"
            "  --size W H            window or offscreen size in pixels, 16 to 16384 each (default: demo.ini's)\n"
            "  --cpu-skinning        start with CPU skinning (G switches at run time)\n"
            "  --help-overlay        start with the controls shown (F1 switches)\n"
            "  --help                this text\n",
            MARIONETTE_DEFAULT_CONFIG);
}

/* The command line's numbers and their ranges (usage() says them too). */
enum {
    MAIN_FRAMES_MAX = 100000000, /* about 19 days of frames at 60 per second */
    MAIN_CROWD_MAX = 100000,     /* as demo.ini's [crowd] max */
    MAIN_SIZE_MIN = 16,
    MAIN_SIZE_MAX = 16384, /* as demo.ini's [window]; what GL 3.3 drivers offer for a framebuffer */
};

/* A whole number in [minimum, maximum], or a one-line message naming the option and its range. */
static bool parse_count(const char *option, const char *text, int minimum, int maximum, int *out)
{
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || value < minimum || value > maximum) {
        fprintf(stderr, "marionette: %s: '%s' is not a whole number from %d to %d\n", option, text, minimum, maximum);
        return false;
    }
    *out = (int)value;
    return true;
}

int main(int argc, char **argv)
{
    demo_options options = {.config_dir = MARIONETTE_DEFAULT_CONFIG};
    for (int a = 1; a < argc; ++a) {
        const char *arg = argv[a];
        bool has_value = a + 1 < argc;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(arg, "--headless") == 0) {
            options.headless = true;
        } else if (strcmp(arg, "--cpu-skinning") == 0) {
            options.cpu_skinning = true;
        } else if (strcmp(arg, "--help-overlay") == 0) {
            options.show_help = true;
        } else if (strcmp(arg, "--frames") == 0 && has_value) {
            if (!parse_count(arg, argv[++a], 1, MAIN_FRAMES_MAX, &options.frames))
                return 2;
        } else if (strcmp(arg, "--crowd") == 0 && has_value) {
            if (!parse_count(arg, argv[++a], 0, MAIN_CROWD_MAX, &options.crowd))
                return 2;
        } else if (strcmp(arg, "--screenshot") == 0 && has_value) {
            options.screenshot = argv[++a];
        } else if (strcmp(arg, "--script") == 0 && has_value) {
            options.script = argv[++a];
        } else if (strcmp(arg, "--trace") == 0 && has_value) {
            options.trace = argv[++a];
        } else if (strcmp(arg, "--trace-joints") == 0 && has_value) {
            options.trace_joints = argv[++a];
        } else if (strcmp(arg, "--trace-members") == 0 && has_value) {
            options.trace_members = argv[++a];
        } else if (strcmp(arg, "--trace-stages") == 0) {
            options.trace_stages = true;
        } else if (strcmp(arg, "--record") == 0 && has_value) {
            options.record = argv[++a];
        } else if (strcmp(arg, "--record-rate") == 0 && has_value) {
            int rate = 0;
            if (!parse_count(arg, argv[++a], 1, 120, &rate))
                return 2;
            options.record_rate = (float)rate;
        } else if (strcmp(arg, "--in-place") == 0) {
            options.record_in_place = true;
        } else if (strcmp(arg, "--config") == 0 && has_value) {
            options.config_dir = argv[++a];
        } else if (strcmp(arg, "--size") == 0 && a + 2 < argc) {
            if (!parse_count(arg, argv[a + 1], MAIN_SIZE_MIN, MAIN_SIZE_MAX, &options.width) ||
                !parse_count(arg, argv[a + 2], MAIN_SIZE_MIN, MAIN_SIZE_MAX, &options.height))
                return 2;
            a += 2;
        } else {
            fprintf(stderr, "marionette: %s: unknown option or bad value\n", arg);
            usage(stderr);
            return 2;
        }
    }
    return demo_run(&options);
}
