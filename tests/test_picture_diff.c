/* Tests for tools/bench/picture_diff: two small pictures written here, compared by the tool: the pixels it
 * counts as differing (above the threshold, outside masks), the largest difference, its diff picture, and
 * its refusals (sizes that differ, bad arguments). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "image/image.h"
#include "platform/platform_image.h"
#include "png.h"

enum { WIDTH = 16, HEIGHT = 8 };

static char output[1024];

/* Run picture_diff with `arguments`; its standard output in `output`; returns its exit status. */
static int run_diff(const char *arguments)
{
    char command[2048];
    snprintf(command, sizeof command, "'%s' %s 2>/dev/null", MARIONETTE_PICTURE_DIFF, arguments);
    output[0] = '\0';
    FILE *pipe = popen(command, "r");
    if (!pipe)
        return -1;
    size_t used = fread(output, 1, sizeof output - 1, pipe);
    output[used] = '\0';
    int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void path_of(const char *name, char *out, size_t size)
{
    snprintf(out, size, "%s/picture_diff_%s.png", MARIONETTE_BUILD_DIR, name);
}

static void test_counts_and_diff_picture(void)
{
    uint8_t a[WIDTH * HEIGHT * 3], b[WIDTH * HEIGHT * 3], small[8 * 8 * 3];
    for (int i = 0; i < WIDTH * HEIGHT; ++i) {
        a[3 * i] = (uint8_t)(10 * (i % WIDTH));
        a[3 * i + 1] = (uint8_t)(20 * (i / WIDTH));
        a[3 * i + 2] = 100;
    }
    memcpy(b, a, sizeof a);
    b[3 * (2 * WIDTH + 3)] += 40;      /* (3, 2): red 40 brighter */
    b[3 * (5 * WIDTH + 10) + 1] += 9;  /* (10, 5): green 9, just over 8 */
    b[3 * (7 * WIDTH + 15) + 2] -= 30; /* (15, 7): blue 30 darker */
    b[3 * (0 * WIDTH + 0) + 2] += 8;   /* (0, 0): 8, not over 8 */
    b[3 * (1 * WIDTH + 1)] += 5;       /* (1, 1): 5 */
    memset(small, 0, sizeof small);
    char pa[512], pb[512], ps[512], pd[512], arguments[2048];
    path_of("a", pa, sizeof pa);
    path_of("b", pb, sizeof pb);
    path_of("small", ps, sizeof ps);
    path_of("diff", pd, sizeof pd);
    diag err;
    CHECK(png_write_rgb(pa, a, WIDTH, HEIGHT, &err));
    CHECK(png_write_rgb(pb, b, WIDTH, HEIGHT, &err));
    CHECK(png_write_rgb(ps, small, 8, 8, &err));

    snprintf(arguments, sizeof arguments, "'%s' '%s' --out '%s'", pa, pb, pd);
    CHECK(run_diff(arguments) == 0);
    printf("  %s", output);
    CHECK_STR_CONTAINS(output, "128 pixels compared (0 masked), 3 differ by more than 8/255, largest difference 40/255");

    snprintf(arguments, sizeof arguments, "'%s' '%s' --threshold 4", pa, pb);
    CHECK(run_diff(arguments) == 0);
    CHECK_STR_CONTAINS(output, "128 pixels compared (0 masked), 5 differ by more than 4/255");

    /* A mask over (3, 2) and its row's first four pixels leaves 30/255 the largest. */
    snprintf(arguments, sizeof arguments, "'%s' '%s' --mask 0 2 4 1", pa, pb);
    CHECK(run_diff(arguments) == 0);
    CHECK_STR_CONTAINS(output, "124 pixels compared (4 masked), 2 differ by more than 8/255, largest difference 30/255");

    snprintf(arguments, sizeof arguments, "'%s' '%s'", pa, pa);
    CHECK(run_diff(arguments) == 0);
    CHECK_STR_CONTAINS(output, "0 differ by more than 8/255, largest difference 0/255");

    /* The diff picture: red where pixels differ, grey elsewhere. */
    image_cache *cache = image_cache_create(&(image_cache_desc){.decode = platform_image_decode});
    diag_list warnings = {0};
    const image *diff = cache ? image_cache_acquire(cache, pd, "test", 0, "diff", &warnings) : NULL;
    CHECK(diff && diff->width == WIDTH && diff->height == HEIGHT);
    if (diff) {
        const uint8_t *red = diff->rgba + 4 * (2 * WIDTH + 3), *grey = diff->rgba + 4 * (1 * WIDTH + 1);
        CHECK(red[0] >= 128 && red[1] == 0 && red[2] == 0);
        CHECK(grey[0] == grey[1] && grey[1] == grey[2]);
        int reds = 0;
        for (int i = 0; i < WIDTH * HEIGHT; ++i)
            reds += diff->rgba[4 * i] >= 128 && diff->rgba[4 * i + 1] == 0;
        CHECK(reds == 3);
    }
    image_cache_release(cache, diff);
    image_cache_destroy(cache);
    diag_list_free(&warnings);

    /* Refusals: pictures of different sizes, a missing file, a threshold out of range. */
    snprintf(arguments, sizeof arguments, "'%s' '%s'", pa, ps);
    CHECK(run_diff(arguments) == 1);
    snprintf(arguments, sizeof arguments, "'%s' '%s/no_such_picture.png'", pa, MARIONETTE_BUILD_DIR);
    CHECK(run_diff(arguments) == 1);
    snprintf(arguments, sizeof arguments, "'%s' '%s' --threshold 300", pa, pb);
    CHECK(run_diff(arguments) == 2);
}

int main(void)
{
    RUN(test_counts_and_diff_picture);
    return check_report();
}
