/* picture_diff: compares two pictures of the same size pixel by pixel (a renderer change against the
 * picture before it) and says how many pixels differ by more than a threshold in any channel, the largest
 * difference, and optionally writes a diff picture: the first picture dimmed to grey, each differing
 * pixel in red (brighter for a larger difference), masked areas tinted blue.
 *
 *   picture_diff A.png B.png [--out diff.png] [--threshold T] [--mask X Y W H]...
 *
 * T: 0 to 255 (default 8): a pixel differs when a channel's values are more than T apart. --mask leaves a
 * rectangle out (pixels from the top left; the demo's HUD, whose numbers change every run); up to 16.
 * Exit status: 0 compared, 1 a picture unreadable or the sizes differ, 2 bad arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "image/image.h"
#include "platform/platform_image.h"
#include "png.h"

enum { PICTURE_DIFF_MASKS_MAX = 16, PICTURE_DIFF_SIZE_MAX = 16384 };

typedef struct picture_mask {
    int x, y, width, height;
} picture_mask;

static void usage(FILE *out)
{
    fprintf(out, "usage: picture_diff A.png B.png [--out diff.png] [--threshold T] [--mask X Y W H]...\n"
                 "  --out FILE           write a diff picture: A in grey, differing pixels red, masks blue\n"
                 "  --threshold T        0 to 255 (default 8): a channel more than T apart differs\n"
                 "  --mask X Y W H       leave out a rectangle (pixels, from the top left), up to 16 times;\n"
                 "                       each number 0 to 16384\n");
}

/* A whole decimal number in [low, high], or false. */
static bool parse_int(const char *text, int low, int high, int *out)
{
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (!text[0] || *end || value < low || value > high)
        return false;
    *out = (int)value;
    return true;
}

static bool masked(const picture_mask *masks, int mask_count, int x, int y)
{
    for (int m = 0; m < mask_count; ++m)
        if (x >= masks[m].x && x < masks[m].x + masks[m].width && y >= masks[m].y && y < masks[m].y + masks[m].height)
            return true;
    return false;
}

int main(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL}, *out_path = NULL;
    int threshold = 8, path_count = 0, mask_count = 0;
    picture_mask masks[PICTURE_DIFF_MASKS_MAX];
    for (int a = 1; a < argc; ++a) {
        const char *arg = argv[a];
        if (strcmp(arg, "--out") == 0 && a + 1 < argc) {
            out_path = argv[++a];
        } else if (strcmp(arg, "--threshold") == 0 && a + 1 < argc) {
            if (!parse_int(argv[++a], 0, 255, &threshold)) {
                fprintf(stderr, "picture_diff: --threshold %s: want a whole number 0 to 255\n", argv[a]);
                return 2;
            }
        } else if (strcmp(arg, "--mask") == 0 && a + 4 < argc) {
            if (mask_count == PICTURE_DIFF_MASKS_MAX) {
                fprintf(stderr, "picture_diff: more than %d masks\n", PICTURE_DIFF_MASKS_MAX);
                return 2;
            }
            picture_mask *m = &masks[mask_count++];
            int *fields[4] = {&m->x, &m->y, &m->width, &m->height};
            for (int k = 0; k < 4; ++k)
                if (!parse_int(argv[++a], 0, PICTURE_DIFF_SIZE_MAX, fields[k])) {
                    fprintf(stderr, "picture_diff: --mask %s: want whole numbers 0 to %d\n", argv[a],
                            PICTURE_DIFF_SIZE_MAX);
                    return 2;
                }
        } else if (strcmp(arg, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (arg[0] != '-' && path_count < 2) {
            paths[path_count++] = arg;
        } else {
            fprintf(stderr, "picture_diff: unknown or incomplete argument %s\n", arg);
            usage(stderr);
            return 2;
        }
    }
    if (path_count != 2) {
        usage(stderr);
        return 2;
    }

    image_cache *cache = image_cache_create(&(image_cache_desc){.decode = platform_image_decode});
    if (!cache) {
        fprintf(stderr, "picture_diff: out of memory\n");
        return 1;
    }
    diag_list warnings = {0};
    const image *pictures[2];
    for (int k = 0; k < 2; ++k)
        pictures[k] = image_cache_acquire(cache, paths[k], "picture_diff", 0, k ? "B" : "A", &warnings);
    int status = 1;
    if (!pictures[0] || !pictures[1]) {
        for (int w = 0; w < warnings.count; ++w)
            fprintf(stderr, "picture_diff: %s\n", warnings.items[w].message);
        if (warnings.count == 0)
            fprintf(stderr, "picture_diff: %s is unreadable\n", pictures[0] ? paths[1] : paths[0]);
        goto done;
    }
    const image *a = pictures[0], *b = pictures[1];
    if (a->width != b->width || a->height != b->height) {
        fprintf(stderr, "picture_diff: %s is %d x %d, %s %d x %d: not comparable\n", paths[0], a->width, a->height,
                paths[1], b->width, b->height);
        goto done;
    }

    size_t pixels = (size_t)a->width * (size_t)a->height, compared = 0, differing = 0;
    int largest = 0;
    uint8_t *diff = out_path ? malloc(pixels * 3) : NULL;
    if (out_path && !diff) {
        fprintf(stderr, "picture_diff: out of memory for the diff picture\n");
        goto done;
    }
    for (int y = 0; y < a->height; ++y)
        for (int x = 0; x < a->width; ++x) {
            size_t i = (size_t)y * (size_t)a->width + (size_t)x;
            const uint8_t *pa = a->rgba + 4 * i, *pb = b->rgba + 4 * i;
            int grey = (pa[0] * 3 + pa[1] * 6 + pa[2]) / 10 / 3 + 40; /* dimmed, so red stands out */
            bool hidden = masked(masks, mask_count, x, y);
            int difference = 0;
            if (!hidden) {
                ++compared;
                for (int c = 0; c < 4; ++c)
                    difference = abs(pa[c] - pb[c]) > difference ? abs(pa[c] - pb[c]) : difference;
                largest = difference > largest ? difference : largest;
                differing += difference > threshold;
            }
            if (diff) {
                uint8_t *pd = diff + 3 * i;
                if (hidden) {
                    pd[0] = pd[1] = (uint8_t)(grey / 2);
                    pd[2] = 160;
                } else if (difference > threshold) {
                    pd[0] = (uint8_t)(128 + (difference > 127 ? 127 : difference));
                    pd[1] = pd[2] = 0;
                } else {
                    pd[0] = pd[1] = pd[2] = (uint8_t)grey;
                }
            }
        }
    printf("picture_diff: %zu pixels compared (%zu masked), %zu differ by more than %d/255, largest difference "
           "%d/255\n",
           compared, pixels - compared, differing, threshold, largest);
    status = 0;
    if (diff) {
        diag err;
        if (!png_write_rgb(out_path, diff, a->width, a->height, &err)) {
            fprintf(stderr, "picture_diff: %s\n", err.message);
            status = 1;
        } else {
            printf("picture_diff: diff picture %s\n", out_path);
        }
        free(diff);
    }
done:
    for (int k = 0; k < 2; ++k)
        image_cache_release(cache, pictures[k]);
    image_cache_destroy(cache);
    diag_list_free(&warnings);
    return status;
}
