/* md5tool new-character on a real third-party character: boneman (/work/shared/real-md5, beside the
 * checkout, read through MARIONETTE_SHARED_DIR as test_md5_real does). Its six clips get the roles their
 * names say, the run its measured speed, the attack the overlay, pain and death one-shots, and the files
 * load through the engine. Without the shared folder the test reports SKIPPED (exit 77, which ctest shows
 * as skipped): third-party data is not part of the repository.
 * characters.ini's scale, up and forward keys come from another branch; until it is merged they are
 * taken out of a copy before loading, as test_new_character does. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "anim/anim_config.h"
#include "check.h"
#include "test_files.h"

#define BONEMAN MARIONETTE_REAL_MD5 "/boneman/"

enum { SKIPPED = 77 };

static char folder[512];

static char *ini_after(char *text, const char *header)
{
    char *at = text ? strstr(text, header) : NULL;
    return at ? at + strlen(header) : NULL;
}

static void test_boneman(void)
{
    char dir[700], command[3000], output[800];
    snprintf(dir, sizeof dir, "%s/boneman", folder);
    snprintf(output, sizeof output, "%s/output.txt", folder);
    snprintf(command, sizeof command, "'%s' new-character boneman '%s'boneman.md5mesh '%s'*.md5anim --out '%s' > '%s' 2>&1",
             MARIONETTE_MD5TOOL, BONEMAN, BONEMAN, dir, output);
    int status = system(command);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *summary = test_read_file(output, NULL);
    printf("%s", summary ? summary : "");
    CHECK_STR_CONTAINS(summary, "along +Z, facing +X (toes ahead of ankles)");
    CHECK_STR_CONTAINS(summary, "feet: RightFoot and LeftFoot");
    CHECK_STR_CONTAINS(summary, "  attack       overlay");
    CHECK_STR_CONTAINS(summary, "  dead         dead");
    CHECK_STR_CONTAINS(summary, "  dying        death      plays once");
    CHECK_STR_CONTAINS(summary, "  idle         idle       loops");
    CHECK_STR_CONTAINS(summary, "  pain         pain       plays once");
    CHECK_STR_CONTAINS(summary, "  running      run        loops, ");
    CHECK_STR_CONTAINS(summary, "(the planted foot's backward slide)");
    free(summary);

    char path[800];
    snprintf(path, sizeof path, "%s/clips.ini", dir);
    char *clips = test_read_file(path, NULL);
    /* The run's planted foot slides back about 3.9 units/s (measured by hand from md5tool pose: the left
     * toe goes from x 0.97 to -2.17 in 20 frames at 24 fps, 3.8 units/s). */
    char *running = ini_after(clips, "\n[running]\n");
    char *speed = running ? strstr(running, "\nspeed = ") : NULL;
    CHECK(speed != NULL);
    if (speed)
        CHECK_NEAR(atof(speed + 9), 3.9, 0.3);
    char *dying = ini_after(clips, "\n[dying]\n");
    CHECK(dying && strstr(dying, "loop = false") && strstr(dying, "loop = false") < strstr(dying, "\n["));
    free(clips);
    snprintf(path, sizeof path, "%s/states.ini", dir);
    char *states = test_read_file(path, NULL);
    CHECK_STR_CONTAINS(states, "\n[state idle_gesture]\nclip = idle\noverlay = attack\noverlay_root = UpperSpine\n");
    CHECK_STR_CONTAINS(states, "\n[run -> death]\nwhen = die\n");
    CHECK_STR_CONTAINS(states, "\n[death -> dead]\nwhen = end\n");
    CHECK_STR_CONTAINS(states, "\n[run -> pain]\nwhen = hit\n");
    free(states);

    /* Through the engine, as the demo loads it (without scale/up/forward until they are merged). */
    snprintf(path, sizeof path, "%s/characters.ini", dir);
    cache *cache = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load(path, cache, &errors);
    if (!config && errors.count == 3 && strstr(errors.items[0].message, "unknown key 'scale'")) {
        printf("  note: the loader does not know scale/up/forward yet (not merged): loading without them\n");
        char *text = test_read_file(path, NULL), stripped[800];
        snprintf(stripped, sizeof stripped, "%s/characters_without_axes.ini", dir);
        FILE *out = fopen(stripped, "w");
        for (char *line = text ? strtok(text, "\n") : NULL; out && line; line = strtok(NULL, "\n"))
            if (strncmp(line, "scale = ", 8) && strncmp(line, "up = ", 5) && strncmp(line, "forward = ", 10))
                fprintf(out, "%s\n", line);
        if (out)
            fclose(out);
        free(text);
        diag_list_clear(&errors);
        config = anim_config_load(stripped, cache, &errors);
    }
    test_print_diags(&errors);
    CHECK(config != NULL);
    const anim_character *boneman = config ? anim_config_find_character(config, "boneman") : NULL;
    CHECK(boneman && boneman->machine.state_count == 7); /* idle, run, 2 overlay, pain, death, dead */
    diag_list_free(&errors);
    anim_config_free(config);
    cache_destroy(cache);
}

int main(void)
{
    struct stat info;
    if (stat(BONEMAN "boneman.md5mesh", &info) != 0) {
        printf("SKIPPED: %s is not there (third-party data, not in the repository)\n", BONEMAN);
        return SKIPPED;
    }
    if (!test_make_temp_folder(folder, sizeof folder, "new_character_real")) {
        fprintf(stderr, "cannot make a temporary folder\n");
        return 1;
    }
    RUN(test_boneman);
    return check_report();
}
