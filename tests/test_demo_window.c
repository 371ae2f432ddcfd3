/* test_demo_window: the real `marionette` executable in a real window once, under xvfb-run (an X server
 * without a display; GLX on Mesa llvmpipe): it starts, plays the scripted run for a few seconds of wall
 * clock, writes its screenshot and exits cleanly without GL errors. The same code path as on a desktop.
 * And with no display at all, the binary and scripts/run.sh refuse at once with a clear line. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <SDL_image.h>

#include "check.h"

/* xvfb-run's -a takes the first display number without a lock file, from 99 up, and its clean-up signals
 * its Xvfb without waiting for it; two runs back to back can meet the first server on its way out (CI saw
 * the second run's demo find DISPLAY unusable once). Each run here starts its search at its own number
 * (-n before -a: xvfb-run reads its options in order), apart from the other run and from other processes'
 * tests, and keeps Xvfb's own messages in a file that a failure prints. */
static void xvfb_run_prefix(char *out, size_t size, int run, const char *errors)
{
    int server = 200 + (int)(getpid() % 400) * 4 + run;
    snprintf(out, size, "env -u SDL_VIDEODRIVER timeout 120 xvfb-run -n %d -a -e '%s' -s '-screen 0 1280x720x24'", server,
             errors);
}

static void print_file(const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f))
        printf("  %s| %s", what, line);
    if (f)
        fclose(f);
}

static void test_window_run(void)
{
    char command[4096], picture[512], log[512], errors[512], prefix[1024];
    snprintf(picture, sizeof picture, "%s/demo_window.png", MARIONETTE_BUILD_DIR);
    snprintf(log, sizeof log, "%s/demo_window.log", MARIONETTE_BUILD_DIR);
    snprintf(errors, sizeof errors, "%s/demo_window.xvfb.log", MARIONETTE_BUILD_DIR);
    remove(picture);
    remove(errors);
    xvfb_run_prefix(prefix, sizeof prefix, 0, errors);
    snprintf(command, sizeof command,
             "%s '%s' --frames 180 --size 640 360 --script '%s/demo/full_run.txt' --screenshot '%s' > '%s' 2>&1",
             prefix, MARIONETTE_DEMO, MARIONETTE_TEST_DATA, picture, log);
    int status = system(command);
    printf("  %s\n  exit status %d\n", command, status);
    CHECK(status == 0);
    if (status != 0)
        print_file(errors, "xvfb ");

    FILE *f = fopen(log, "r");
    char line[1024];
    bool gl_errors = false, screenshot_said = false;
    while (f && fgets(line, sizeof line, f)) {
        printf("  | %s", line);
        gl_errors |= strstr(line, "GL errors") != NULL;
        screenshot_said |= strstr(line, "screenshot:") != NULL;
    }
    if (f)
        fclose(f);
    CHECK(!gl_errors && screenshot_said);

    SDL_Surface *image = IMG_Load(picture);
    CHECK(image != NULL);
    if (!image)
        return;
    SDL_Surface *rgba = SDL_ConvertSurfaceFormat(image, SDL_PIXELFORMAT_RGBA32, 0);
    int mannequin = 0;
    for (int y = 0; rgba && y < rgba->h; ++y) {
        const Uint8 *row = (const Uint8 *)rgba->pixels + (size_t)y * (size_t)rgba->pitch;
        for (int x = 0; x < rgba->w; ++x) {
            const Uint8 *p = row + 4 * x;
            mannequin += p[0] > 120 && (int)p[0] - (int)p[2] > 45 && p[0] >= p[1];
        }
    }
    printf("  window picture %d x %d, %d mannequin pixels\n", image->w, image->h, mannequin);
    CHECK(image->w == 640 && image->h == 360);
    CHECK(mannequin > 200);
    SDL_FreeSurface(rgba);
    SDL_FreeSurface(image);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs `command` with no display in its environment (no DISPLAY, WAYLAND_DISPLAY or SDL_VIDEODRIVER);
 * the exit status, seconds taken and whether its output has `expected`. timeout ends it after 20 s. */
static void run_without_display(const char *command, const char *expected, const char *what)
{
    char line[4096], log[512];
    snprintf(log, sizeof log, "%s/no_display.log", MARIONETTE_BUILD_DIR);
    snprintf(line, sizeof line, "env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER timeout 20 %s > '%s' 2>&1",
             command, log);
    double start = seconds_now();
    int status = system(line);
    double took = seconds_now() - start;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    printf("  %s: exit %d after %.2f s\n", what, code, took);
    FILE *f = fopen(log, "r");
    bool said = false;
    int lines = 0;
    while (f && fgets(line, sizeof line, f)) {
        printf("  | %s", line);
        said |= strstr(line, expected) != NULL;
        ++lines;
    }
    if (f)
        fclose(f);
    /* Refused, not ended by the timeout. How long it took is printed, not checked: a bound on wall time
     * is a timed test, which a loaded machine (the sanitizer build beside a parallel ctest) can break.
     * That it stops before loading anything is what the log says: one line of ours. */
    CHECK(code != 0 && code != 124 && code != -1);
    CHECK(said);
    CHECK(lines <= 2); /* one line of ours (and perhaps one from a Wayland probe) */
}

/* Without a display SDL falls back to its offscreen driver: the demo used to run there with no window, a
 * core at 100 %, until Ctrl+C. The binary and run.sh both refuse, at once, saying why. */
static void test_no_display_refused(void)
{
    char command[1024];
    snprintf(command, sizeof command, "'%s' --frames 100000", MARIONETTE_DEMO);
    run_without_display(command, "no display", "marionette without a display");
    snprintf(command, sizeof command, "'%s/scripts/run.sh' --frames 100000", MARIONETTE_SOURCE_DIR);
    run_without_display(command, "no display", "run.sh without a display");
}

/* Runs `command` (stdout and stderr to a log); its exit status and the log's text (to free). */
static int run_logged(const char *command, char **text)
{
    char line[4096], log[512];
    snprintf(log, sizeof log, "%s/demo_options.log", MARIONETTE_BUILD_DIR);
    snprintf(line, sizeof line, "timeout 20 %s > '%s' 2>&1", command, log);
    int status = system(line);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    *text = NULL;
    FILE *f = fopen(log, "rb");
    if (f) {
        char buffer[8192];
        size_t got = fread(buffer, 1, sizeof buffer - 1, f);
        buffer[got] = '\0';
        fclose(f);
        *text = strdup(buffer);
    }
    printf("  %s: exit %d\n  | %s", command, code, *text ? *text : "(no output)\n");
    return code;
}

/* A run that is offscreen already is not told to try --headless; the command line's numbers have ranges
 * and a refusal names the option and the range. */
static void test_offscreen_refusal_and_option_ranges(void)
{
    char command[1024], *text = NULL;
    /* An OpenGL that offers less than 3.3: Mesa's override makes one; a driver that ignores it runs. */
    snprintf(command, sizeof command, "env SDL_VIDEODRIVER=offscreen MESA_GL_VERSION_OVERRIDE=3.0 '%s' --headless "
             "--frames 1 --size 64 64", MARIONETTE_DEMO);
    int code = run_logged(command, &text);
    if (code == 0) {
        printf("  (the driver ignores MESA_GL_VERSION_OVERRIDE: nothing to refuse)\n");
    } else {
        CHECK(code == 1 && text != NULL);
        CHECK_STR_CONTAINS(text, "offscreen at 64 x 64: try a smaller --size");
        CHECK(text && strstr(text, "--headless") == NULL && strstr(text, "xvfb") == NULL);
    }
    free(text);

    static const struct {
        const char *arguments, *said;
    } refused[] = {
        {"--size 100000 10", "--size: '100000' is not a whole number from 16 to 16384"},
        {"--size 640 8", "--size: '8' is not a whole number from 16 to 16384"},
        {"--crowd 100001", "--crowd: '100001' is not a whole number from 0 to 100000"},
        {"--frames 0", "--frames: '0' is not a whole number from 1 to 100000000"},
        {"--frames 99999999999999999999", "--frames: '99999999999999999999' is not a whole number"},
        {"--record-rate 121", "--record-rate: '121' is not a whole number from 1 to 120"},
        {"--record-rate 0", "--record-rate: '0' is not a whole number from 1 to 120"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
        snprintf(command, sizeof command, "'%s' --headless %s", MARIONETTE_DEMO, refused[i].arguments);
        CHECK(run_logged(command, &text) == 2);
        CHECK_STR_CONTAINS(text, refused[i].said);
        free(text);
    }
}

/* Keys pressed on the X server (xdotool, through XTest) reach the demo in its window: F12 writes a
 * screenshot into the run folder's screenshots/, Escape quits long before the frames run out, exit status 0.
 * The scripted runs feed keys in-process; this is the window's own event path (engine/platform). Skipped,
 * saying so, where xdotool is not installed. */
static void test_window_answers_real_keys(void)
{
    if (system("command -v xdotool > /dev/null 2>&1") != 0) {
        printf("  skipped: xdotool is not installed (apt-get install xdotool)\n");
        return;
    }
    char folder[512], script[600], command[2048], log[600], picture[700];
    snprintf(folder, sizeof folder, "%s/window_keys", MARIONETTE_BUILD_DIR);
    snprintf(script, sizeof script, "%s/keys.sh", folder);
    snprintf(log, sizeof log, "%s/keys.log", folder);
    snprintf(picture, sizeof picture, "%s/screenshots/marionette-001.png", folder);
    snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s'", folder, folder);
    CHECK(system(command) == 0);
    FILE *f = fopen(script, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    /* The script waits for the X server to answer before it starts the demo, and starts it again (up to
     * three times, saying so) when it quits before its window appears: what is tested is the window's key
     * path, not how quickly a fresh Xvfb takes connections. The window gets a second before the keys, so it
     * is mapped and focused; the demo would run for minutes without the Escape. */
    fprintf(f, "cd '%s' || exit 3\n"
               "for i in $(seq 1 50); do xdotool getdisplaygeometry > /dev/null 2>&1 && break; sleep 0.2; done\n"
               "win=\n"
               "for try in 1 2 3; do\n"
               "    '%s' --frames 100000 --size 320 180 > '%s' 2>&1 &\n"
               "    pid=$!\n"
               "    for i in $(seq 1 100); do\n"
               "        win=$(xdotool search --name '^marionette$' 2>/dev/null | head -1)\n"
               "        [ -n \"$win\" ] && break\n"
               "        kill -0 $pid 2>/dev/null || break\n"
               "        sleep 0.2\n"
               "    done\n"
               "    [ -n \"$win\" ] && break\n"
               "    echo \"keys.sh: try $try: no window; the demo said:\"; cat '%s'\n"
               "    kill $pid 2>/dev/null; wait $pid 2>/dev/null\n"
               "done\n"
               "[ -n \"$win\" ] || exit 4\n"
               "sleep 1\n"
               "xdotool windowfocus --sync \"$win\"\n"
               "xdotool key --window \"$win\" F12\n"
               "sleep 1\n"
               "xdotool key --window \"$win\" Escape\n"
               "wait $pid\n",
            folder, MARIONETTE_DEMO, log, log);
    fclose(f);
    char errors[700], prefix[1024];
    snprintf(errors, sizeof errors, "%s/xvfb.log", folder);
    xvfb_run_prefix(prefix, sizeof prefix, 2, errors);
    snprintf(command, sizeof command, "%s sh '%s'", prefix, script);
    int status = system(command);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    printf("  %s\n  exit status %d\n", command, code);
    CHECK(code == 0);
    if (code != 0)
        print_file(errors, "xvfb ");
    f = fopen(log, "r");
    char line[1024];
    bool screenshot_said = false;
    while (f && fgets(line, sizeof line, f)) {
        printf("  | %s", line);
        screenshot_said |= strstr(line, "screenshot: screenshots/marionette-001.png") != NULL;
    }
    if (f)
        fclose(f);
    CHECK(screenshot_said);
    FILE *png = fopen(picture, "rb");
    CHECK(png != NULL);
    if (png)
        fclose(png);
}

int main(void)
{
    RUN(test_no_display_refused);
    RUN(test_offscreen_refusal_and_option_ranges);
    RUN(test_window_run);
    RUN(test_window_answers_real_keys);
    return check_report();
}
