/* test_data: the third-party test data the repository may not ship, and the skip when it is absent. Two
 * settings, each a CMake cache variable that the environment variable of the same name seeds at the first
 * configure (README, "Test data"):
 *   MARIONETTE_REAL_MD5       a folder holding boneman/: boneman.md5mesh and its six clips (CC0, Blender)
 *   MARIONETTE_ASSIMP_MODELS  Debian's assimp-testmodels: MD5/SimpleCube.md5mesh, invalid/empty.md5mesh
 * A test program runs its own checks with no argument; `--boneman` or `--assimp` runs only the checks that
 * need that data, as a ctest entry of its own (tests/CMakeLists.txt, marionette_data_test). main starts
 * with test_data_start(): when a file of that part is missing it prints one line naming the files and the
 * setting and returns TEST_DATA_SKIP, the entry's SKIP_RETURN_CODE, so ctest reports it skipped: never
 * passed, never failed. The checks of a program that need no such data always run. */
#ifndef MARIONETTE_TEST_DATA_H
#define MARIONETTE_TEST_DATA_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The compile definitions come from the two cache variables; empty when the setting is not given. */
#ifndef MARIONETTE_REAL_MD5
#define MARIONETTE_REAL_MD5 ""
#endif
#ifndef MARIONETTE_ASSIMP_MODELS
#define MARIONETTE_ASSIMP_MODELS ""
#endif

#define BONEMAN MARIONETTE_REAL_MD5 "/boneman/"
#define ASSIMP_CUBE MARIONETTE_ASSIMP_MODELS "/MD5/SimpleCube.md5mesh"
#define ASSIMP_EMPTY MARIONETTE_ASSIMP_MODELS "/invalid/empty.md5mesh"

enum { TEST_DATA_SKIP = 77 };

static inline bool test_data_is_file(const char *path)
{
    struct stat status;
    return stat(path, &status) == 0 && S_ISREG(status.st_mode);
}

/* 0 when every file of the NULL-terminated `files` is a regular file under `folder`; otherwise one line on
 * stdout (`ctest -V` shows it, and build/Testing/Temporary/LastTest.log keeps it) naming the setting, the
 * files missing (all of them when the setting is empty or not a folder) and how to provide them, and
 * TEST_DATA_SKIP. */
static inline int test_data_require(const char *program, const char *setting, const char *folder,
                                    const char *const *files, const char *how)
{
    struct stat status;
    bool have_folder = folder[0] != '\0' && stat(folder, &status) == 0 && S_ISDIR(status.st_mode);
    char missing[1024] = "";
    size_t used = 0;
    int count = 0;
    for (int i = 0; files[i]; ++i) {
        char path[1024];
        int length = snprintf(path, sizeof path, "%s/%s", folder, files[i]);
        if (have_folder && length > 0 && (size_t)length < sizeof path && test_data_is_file(path))
            continue;
        int wrote = snprintf(missing + used, sizeof missing - used, "%s%s", count ? ", " : "", files[i]);
        used = wrote > 0 && (size_t)wrote < sizeof missing - used ? used + (size_t)wrote : used;
        ++count;
    }
    if (count == 0)
        return 0;
    if (folder[0] == '\0')
        printf("%s: SKIPPED: %s is not set; it must name a folder holding %s; %s\n", program, setting, missing,
               how);
    else if (!have_folder)
        printf("%s: SKIPPED: %s = %s is not a folder; it must hold %s; %s\n", program, setting, folder, missing, how);
    else
        printf("%s: SKIPPED: %s = %s lacks %s; %s\n", program, setting, folder, missing, how);
    return TEST_DATA_SKIP;
}

/* The boneman files under MARIONETTE_REAL_MD5, every one of them: the tests pin their counts. */
static inline int test_data_require_boneman(const char *program)
{
    static const char *const files[] = {
        "boneman/boneman.md5mesh",       "boneman/boneman_attack.md5anim", "boneman/boneman_dead.md5anim",
        "boneman/boneman_dying.md5anim", "boneman/boneman_idle.md5anim",   "boneman/boneman_pain.md5anim",
        "boneman/boneman_running.md5anim", NULL,
    };
    return test_data_require(program, "MARIONETTE_REAL_MD5", MARIONETTE_REAL_MD5, files,
                             "configure with -DMARIONETTE_REAL_MD5=FOLDER or set that environment variable before the "
                             "first configure (README, \"Test data\")");
}

/* The two files of Debian's assimp-testmodels the tests read. */
static inline int test_data_require_assimp(const char *program)
{
    static const char *const files[] = {"MD5/SimpleCube.md5mesh", "invalid/empty.md5mesh", NULL};
    return test_data_require(program, "MARIONETTE_ASSIMP_MODELS", MARIONETTE_ASSIMP_MODELS, files,
                             "install assimp-testmodels (scripts/setup.sh does) or configure with "
                             "-DMARIONETTE_ASSIMP_MODELS=FOLDER (README, \"Test data\")");
}

/* Which part of a program to run. */
typedef enum test_part {
    TEST_PART_OWN,     /* no argument: the checks on the repository's own files */
    TEST_PART_BONEMAN, /* --boneman: the checks on MARIONETTE_REAL_MD5 */
    TEST_PART_ASSIMP,  /* --assimp: the checks on MARIONETTE_ASSIMP_MODELS */
} test_part;

/* Reads the part from the command line and checks its data. 0: run `*part`; otherwise main returns this:
 * TEST_DATA_SKIP (the data is absent, the line printed) or 2 (a usage mistake). Every such main reads:
 *   test_part part;
 *   int skip = test_data_start(argc, argv, &part);
 *   if (skip)
 *       return skip;
 *   if (part == TEST_PART_OWN) { RUN(...); } ... return check_report(); */
static inline int test_data_start(int argc, char **argv, test_part *part)
{
    const char *program = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    char name[256];
    *part = TEST_PART_OWN;
    if (argc == 1)
        return 0;
    snprintf(name, sizeof name, "%s %s", program, argv[1]);
    if (argc == 2 && strcmp(argv[1], "--boneman") == 0) {
        *part = TEST_PART_BONEMAN;
        return test_data_require_boneman(name);
    }
    if (argc == 2 && strcmp(argv[1], "--assimp") == 0) {
        *part = TEST_PART_ASSIMP;
        return test_data_require_assimp(name);
    }
    fprintf(stderr, "usage: %s [--boneman | --assimp]\n", program);
    return 2;
}

#endif
