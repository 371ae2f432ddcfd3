/* test_demo_window: the real `marionette` executable in a real window once, under xvfb-run (an X server
 * without a display; GLX on Mesa llvmpipe): it starts, plays the scripted run for a few seconds of wall
 * clock, writes its screenshot and exits cleanly without GL errors. The same code path as on a desktop. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL_image.h>

#include "check.h"

static void test_window_run(void)
{
    char command[4096], picture[512], log[512];
    snprintf(picture, sizeof picture, "%s/demo_window.png", MARIONETTE_BUILD_DIR);
    snprintf(log, sizeof log, "%s/demo_window.log", MARIONETTE_BUILD_DIR);
    remove(picture);
    snprintf(command, sizeof command,
             "env -u SDL_VIDEODRIVER xvfb-run -a -s '-screen 0 1280x720x24' '%s' --frames 180 --size 640 360 "
             "--script '%s/demo/full_run.txt' --screenshot '%s' > '%s' 2>&1",
             MARIONETTE_DEMO, MARIONETTE_TEST_DATA, picture, log);
    int status = system(command);
    printf("  %s\n  exit status %d\n", command, status);
    CHECK(status == 0);

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

int main(void)
{
    RUN(test_window_run);
    return check_report();
}
