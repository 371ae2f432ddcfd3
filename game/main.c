/* marionette: the demo. Parses the command line and runs game/demo. */
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
            "  --frames N            stop after N frames (headless frames show 1/60 s each)\n"
            "  --screenshot FILE     write the last frame to FILE (PNG)\n"
            "  --crowd N             spawn N crowd members at the start\n"
            "  --script FILE         replay timed key presses from FILE as the player's input\n"
            "                        (lines: SECONDS press|release|tap KEY, SECONDS wheel STEPS,\n"
            "                        SECONDS drag DX DY; times are simulation seconds)\n"
            "  --trace FILE          write every simulation step (input, player state, layers, events)\n"
            "                        to FILE as a JSON array\n"
            "  --config DIR          folder of characters.ini, controls.ini and demo.ini\n"
            "                        (default: %s)\n"
            "  --size W H            window or offscreen size in pixels (default: demo.ini's)\n"
            "  --cpu-skinning        start with CPU skinning (G switches at run time)\n"
            "  --help-overlay        start with the controls shown (F1 switches)\n"
            "  --help                this text\n",
            MARIONETTE_DEFAULT_CONFIG);
}

static bool parse_count(const char *text, int minimum, int *out)
{
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < minimum || value > 100000000)
        return false;
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
        } else if (strcmp(arg, "--frames") == 0 && has_value && parse_count(argv[a + 1], 1, &options.frames)) {
            ++a;
        } else if (strcmp(arg, "--crowd") == 0 && has_value && parse_count(argv[a + 1], 0, &options.crowd)) {
            ++a;
        } else if (strcmp(arg, "--screenshot") == 0 && has_value) {
            options.screenshot = argv[++a];
        } else if (strcmp(arg, "--script") == 0 && has_value) {
            options.script = argv[++a];
        } else if (strcmp(arg, "--trace") == 0 && has_value) {
            options.trace = argv[++a];
        } else if (strcmp(arg, "--config") == 0 && has_value) {
            options.config_dir = argv[++a];
        } else if (strcmp(arg, "--size") == 0 && a + 2 < argc && parse_count(argv[a + 1], 16, &options.width) &&
                   parse_count(argv[a + 2], 16, &options.height)) {
            a += 2;
        } else {
            fprintf(stderr, "marionette: %s: unknown option or bad value\n", arg);
            usage(stderr);
            return 2;
        }
    }
    return demo_run(&options);
}
