/* test_soak: the demo for a long time, headless and in-process, doing everything a restless user does over
 * and over: a crowd spawned and cleared, the player walking, running, jumping and waving, every debug
 * view and the CPU skinning path switched on and off, the state machine panel shown and following a
 * clicked crowd member until the crowd goes, the state machine edited well (hot reload) and
 * badly (reported, last good kept) and put back. Each cycle ends in the same situation, where it checks:
 *   - resident memory (RSS, read after malloc_trim) never grows more than 1 percent above the first cycle
 *     after the warm-up, and the last cycle ends within 1 percent of it;
 *   - heap blocks our code holds (allocations minus frees, counted through wrapped heap functions) do not
 *     grow from cycle to cycle: nothing leaks per spawn, reload or view;
 *   - no GL errors, every bad edit was reported with its file:line and every good one cleared it.
 *     test_soak                 the 60-second version (ctest)
 *     test_soak --seconds 600   the long run (docs/tests.md: "Soak") */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "demo.h"
#include "heap_counter.h"
#include "test_files.h"

enum { CYCLE_FRAMES = 150, WIDTH = 480, HEIGHT = 270 };

/* AddressSanitizer's allocator keeps freed memory in quarantine and sizes it its own way, so RSS says
 * nothing about our code there: the sanitizer build checks leaks (heap blocks) and GL errors, the optimized
 * build checks RSS too. */
#if defined(__SANITIZE_ADDRESS__)
#define CHECK_RSS 0
#else
#define CHECK_RSS 1
#endif

/* Cycles before the checked ones: the software renderer's memory settles within them. Under
 * AddressSanitizer, where only leaks and GL errors are judged, one is enough (its cycles are slow). */
enum { WARM_UP_CYCLES = CHECK_RSS ? 4 : 1 };

static demo *d;

static long resident_kilobytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages_total = 0, pages_resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2)
            pages_resident = 0;
        fclose(f);
    }
    return pages_resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A key as the player would press it: down this frame, up the next (through the bindings). */
static void press(platform_key key, bool down)
{
    demo_key(d, key, down);
}

/* A left click on a point of the picture, as the window's button events give it to the step. */
static void click(float x, float y)
{
    demo_click_at(d, x, y);
}

static bool replace_in_file(const char *path, const char *from, const char *to)
{
    char *text = test_read_file(path, NULL);
    char *at = text ? strstr(text, from) : NULL;
    if (at) {
        FILE *f = fopen(path, "wb");
        fwrite(text, 1, (size_t)(at - text), f);
        fputs(to, f);
        fputs(at + strlen(from), f);
        fclose(f);
    }
    free(text);
    return at != NULL;
}

int main(int argc, char **argv)
{
    double seconds = 60.0;
    if (argc == 3 && strcmp(argv[1], "--seconds") == 0)
        seconds = atof(argv[2]);
    if (!(seconds > 0.0)) {
        fprintf(stderr, "usage: test_soak [--seconds S]\n");
        return 2;
    }

    /* RSS is read after malloc_trim has handed every whole free page of the heap back to the system, so it
     * counts memory in use (ours, the GL driver's, code) and not the allocator's high-water mark: the
     * software renderer's transient allocations (shader compiles, binning) otherwise leave the heap at the
     * largest size it ever reached, which steps up whenever a bigger burst happens to land on top of it. */
    mallopt(M_ARENA_MAX, 1); /* one arena for every thread: no per-thread arena filling up in its own time */

    /* A scratch config the run may edit, beside a link to the real assets. */
    char root[400], config_dir[512], states[600], command[2048];
    snprintf(root, sizeof root, "%s/soak", MARIONETTE_BUILD_DIR);
    snprintf(command, sizeof command, "rm -rf '%s' && mkdir -p '%s' && cp -r '%s/config' '%s/config' && ln -s '%s/assets' '%s/assets'",
             root, root, MARIONETTE_SOURCE_DIR, root, MARIONETTE_SOURCE_DIR, root);
    CHECK(system(command) == 0);
    snprintf(config_dir, sizeof config_dir, "%s/config", root);
    snprintf(states, sizeof states, "%s/states.ini", config_dir);

    /* 60 members a press. The crowd keeps to its spawn spots (gestures and turns still vary): each cycle draws
     * much the same scene, so the software renderer's own memory (binning, shader variants), which grows to
     * the largest scene it has drawn, reaches its high-water mark during the warm-up instead of whenever a
     * wandering crowd happens to bunch up in view. */
    char settings[600];
    snprintf(settings, sizeof settings, "%s/demo.ini", config_dir);
    CHECK(replace_in_file(settings, "\ncount = 100\n", "\ncount = 60\n"));
    CHECK(replace_in_file(settings, "\nwander_radius = 6\n", "\nwander_radius = 0\n"));
    demo_options options = {.headless = true, .config_dir = config_dir, .width = WIDTH, .height = HEIGHT, .crowd = 0};
    CHECK(demo_start(&d, &options));
    CHECK(demo_settings(d)->crowd.count == 60 && demo_settings(d)->crowd.wander_radius == 0.0f);

    double start = seconds_now();
    long first_checked_rss = 0, largest_rss = 0, smallest_rss = 0, rss_last = 0;
    long first_checked_heap = 0, largest_heap_growth = 0;
    int cycles = 0, bad_edits_reported = 0, good_edits_applied = 0, crowd_mismatches = 0, members_followed = 0;
    int panel_mismatches = 0;
    while (seconds_now() - start < seconds || cycles < WARM_UP_CYCLES + 2) {
        bool fast_fade = cycles % 2 == 0; /* good edits alternate so every one is a real change */
        /* Every cycle starts from the same place, so each shows the renderer the same kind of scene (Mesa
         * keeps its binning memory at the high-water mark of what it has drawn). */
        if (demo_player(d))
            player_place(demo_player(d), 0.0f, 0.0f, 0.0f);
        for (int frame = 0; frame < CYCLE_FRAMES; ++frame) {
            switch (frame) {
            case 0: press(PLATFORM_KEY_W, true); press(PLATFORM_KEY_C, true); break;
            case 1: press(PLATFORM_KEY_C, false); break;
            case 10: press(PLATFORM_KEY_LSHIFT, true); press(PLATFORM_KEY_F2, true); press(PLATFORM_KEY_F3, true); press(PLATFORM_KEY_F4, true); press(PLATFORM_KEY_F6, true); break;
            case 11: press(PLATFORM_KEY_F2, false); press(PLATFORM_KEY_F3, false); press(PLATFORM_KEY_F4, false); press(PLATFORM_KEY_F6, false); break;
            case 40: click(WIDTH * 0.65f, HEIGHT * 0.7f); break; /* a crowd member, most cycles */
            case 41: members_followed += demo_tracked(d) != NULL; break;
            case 30: press(PLATFORM_KEY_SPACE, true); press(PLATFORM_KEY_G, true); break;
            case 31: press(PLATFORM_KEY_SPACE, false); press(PLATFORM_KEY_G, false); break;
            case 50:
                press(PLATFORM_KEY_LSHIFT, false);
                CHECK(replace_in_file(states, fast_fade ? "[locomotion -> wave]\nwhen = wave\nfade = 0.2"
                                                         : "[locomotion -> wave]\nwhen = wave\nfade = 0.25",
                                      fast_fade ? "[locomotion -> wave]\nwhen = wave\nfade = 0.25"
                                                : "[locomotion -> wave]\nwhen = wave\nfade = 0.2"));
                break;
            case 60:
                good_edits_applied += demo_message_count(d) == 0 && strstr(demo_status(d), "reloaded") != NULL;
                press(PLATFORM_KEY_E, true);
                CHECK(replace_in_file(states, "[celebrate -> locomotion]\nwhen = end or speed > 0.2",
                                      "[celebrate -> locomotion]\nwhen = end or speed >>> 0.2"));
                break;
            case 61: press(PLATFORM_KEY_E, false); break;
            case 75:
                bad_edits_reported += demo_message_count(d) > 0 && strstr(demo_message(d, 0), "states.ini:") != NULL;
                CHECK(replace_in_file(states, "speed >>> 0.2", "speed > 0.2"));
                break;
            case 90: press(PLATFORM_KEY_F2, true); press(PLATFORM_KEY_F3, true); press(PLATFORM_KEY_F4, true); press(PLATFORM_KEY_G, true); break;
            case 91: press(PLATFORM_KEY_F2, false); press(PLATFORM_KEY_F3, false); press(PLATFORM_KEY_F4, false); press(PLATFORM_KEY_G, false); break;
            case 100: press(PLATFORM_KEY_W, false); press(PLATFORM_KEY_X, true); break;
            case 101: press(PLATFORM_KEY_X, false); break;
            case 110: click(WIDTH * 0.5f, 1.0f); break; /* the sky */
            case 130: press(PLATFORM_KEY_F6, true); break;
            case 131: press(PLATFORM_KEY_F6, false); break;
            default: break;
            }
            demo_frame(d);
        }
        ++cycles;
        crowd_mismatches += crowd_count(demo_crowd(d)) != 0 || demo_message_count(d) != 0;
        /* The crowd cleared under a followed member, a click on the sky, the panel off: back to the player. */
        panel_mismatches += demo_tracked(d) != NULL || demo_state_machine_shown(d);
        malloc_trim(0);
        long rss = resident_kilobytes();
        rss_last = rss;
        long heap = heap_calls_live;
        if (cycles == WARM_UP_CYCLES + 1) {
            first_checked_rss = largest_rss = smallest_rss = rss;
            first_checked_heap = heap;
        } else if (cycles > WARM_UP_CYCLES + 1) {
            largest_rss = rss > largest_rss ? rss : largest_rss;
            smallest_rss = rss < smallest_rss ? rss : smallest_rss;
            long growth = labs(heap - first_checked_heap);
            largest_heap_growth = growth > largest_heap_growth ? growth : largest_heap_growth;
        }
        /* malloc's own count of bytes in use (ours and the GL driver's): tells a growing heap from pages the
         * process maps by other means when RSS moves. */
        struct mallinfo2 mi = mallinfo2();
        printf("  cycle %3d at %6.1f s: RSS %ld KB, malloc in use %zu KB, our heap blocks %ld, GL error frames %d\n",
               cycles, seconds_now() - start, rss, mi.uordblks / 1024 + mi.hblkhd / 1024, heap, demo_progress_of(d).gl_error_frames);
        fflush(stdout);
    }
    /* Judged: growth, the highest RSS of any later cycle above the first checked one. Dips are not leaks:
     * the GL driver's own memory in use moves a megabyte or two either way with what it last drew. */
    double growth = first_checked_rss > 0 ? 100.0 * (double)(largest_rss - first_checked_rss) / (double)first_checked_rss : 0;
    double last_change = first_checked_rss > 0 ? 100.0 * (double)(rss_last - first_checked_rss) / (double)first_checked_rss : 0;
    printf("soak: %.0f s, %d cycles (%ld frames); RSS after warm-up %ld KB, later %ld..%ld KB: at most %+.2f%%, "
           "last %+.2f%%; heap blocks changed by at most %ld; %d of %d bad edits reported, %d good edits applied; "
           "GL error frames %d; a clicked crowd member followed in %d cycles\n",
           seconds_now() - start, cycles, demo_progress_of(d).frames, first_checked_rss, smallest_rss, largest_rss, growth,
           last_change, largest_heap_growth, bad_edits_reported, cycles, good_edits_applied, demo_progress_of(d).gl_error_frames,
           members_followed);
    if (CHECK_RSS) {
        CHECK(growth <= 1.0);
        CHECK(last_change >= -1.0 && last_change <= 1.0);
    } else {
        printf("soak: RSS not judged under AddressSanitizer (its quarantine decides RSS)\n");
    }
    CHECK(largest_heap_growth == 0);
    CHECK(demo_progress_of(d).gl_error_frames == 0);
    CHECK(bad_edits_reported == cycles && good_edits_applied == cycles);
    CHECK(crowd_mismatches == 0);
    CHECK(members_followed > 0 && panel_mismatches == 0);
    demo_finish(d);
    return check_report();
}
