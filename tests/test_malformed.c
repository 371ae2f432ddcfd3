/* Malformed input (issue 8): every file in tests/data/malformed/ and a few made here (truncations of a good
 * file at every line and every byte, a 200 MB file, folders, devices and paths that cannot be read) goes
 * through the loader that would meet it in use, and must be refused with the error a user would need: the
 * message's words, the line and the file. Under ASan/LSan (the sanitizer build) the same runs also show
 * that nothing reads out of bounds or leaks. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anim/config/anim_config.h"
#include "check.h"
#include "heap_counter.h"
#include "build/loader.h"
#include "md5/md5.h"
#include "test_files.h"

#define MALFORMED MARIONETTE_TEST_DATA "/malformed/"
#define QUIRKS MARIONETTE_TEST_DATA "/quirks/"
#define MANNEQUIN MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh"
#define GOOD_CLIPS MARIONETTE_SOURCE_DIR "/config/clips.ini"

typedef enum { MESH, ANIM, CLIPS, STATES } malformed_kind; /* CLIPS / STATES: an ini of the animation config */

typedef struct malformed_case {
    const char *file;
    malformed_kind kind;
    const char *text; /* substring of the (first) error */
    int line;
} malformed_case;

static const malformed_case cases[] = {
    /* counts that lie */
    {"numjoints_3_two_joints.md5mesh", MESH, "expected a joint name (a quoted string), found '}'", 10},
    {"numtris_lies.md5mesh", MESH, "expected 'tri', found 'numweights'", 23},
    {"numweights_lies.md5mesh", MESH, "numweights 4 cannot be right: only 75 bytes follow", 23},
    {"components_lie.md5anim", ANIM, "expected a frame component, found '}'", 26},
    {"frame_components_short.md5anim", ANIM, "expected a frame component, found '}'", 30},
    /* counts too large for the file */
    {"numverts_2147483647.md5mesh", MESH, "numverts 2147483647 cannot be right", 15},
    {"numframes_4294967296.md5anim", ANIM, "found '4294967296' (out of range)", 4},
    {"components_1000000000.md5anim", ANIM, "numAnimatedComponents 1000000000 cannot be right", 7},
    /* negative and out-of-range indices */
    {"numjoints_negative.md5mesh", MESH, "numJoints -1", 4},
    {"parent_negative_2.md5mesh", MESH, "parent -2", 9},
    {"tri_vertex_negative.md5mesh", MESH, "tri 0 uses vertex -1, out of range", 21},
    {"weight_joint_negative.md5mesh", MESH, "weight 1 uses joint -1, out of range", 25},
    {"start_weight_negative.md5mesh", MESH, "vert 1 uses weights -1..-1, out of range", 17},
    {"count_weight_negative.md5mesh", MESH, "vert 1", 17},
    {"vert_index_skips.md5mesh", MESH, "vert 2 where vert 1 was expected", 17},
    {"frame_negative.md5anim", ANIM, "frame -1 where frame 1 was expected", 28},
    {"parent_negative_2.md5anim", ANIM, "has parent -2, out of range", 11},
    {"flags_64.md5anim", ANIM, "flags 64", 11},
    /* regression (found by fuzz_md5mesh): a vertex further from its joint than a float can say made
     * model.skin_reach infinite */
    {"skin_reach_overflow.md5mesh", MESH, "vert 0: bind position is too large", 15},
    /* finite local translations whose sum down the hierarchy is not (issue 16): the demo stretched the
     * body to infinity */
    {"object_space_overflow.md5anim", ANIM,
     "frame 1: joint 2 'b' can be 1.2e+30 units from the origin (its chain's translations add up to more than 1e+30)", 30},
    /* regression (found by fuzz_md5anim, issue 16): one joint 2e38 from its parent is a finite frame, but
     * rotating it (pose_to_object) overflowed on the way */
    {"reach_one_frame_2e38.md5anim", ANIM, "frame 0: joint 1 'arm' can be 2e+38 units from the origin", 23},
    /* numbers that are not finite decimals */
    {"nan_negative_in_weight.md5mesh", MESH, "expected a position, found '-nan'", 26},
    {"inf_bias.md5mesh", MESH, "expected a bias, found 'inf'", 24},
    {"hex_float_uv.md5mesh", MESH, "found '0x1p0'", 18},
    {"nan_frame_rate.md5anim", ANIM, "found 'nan'", 6},
    {"infinity_in_bounds.md5anim", ANIM, "found 'Infinity'", 15},
    /* bytes that are not UTF-8 text, binary garbage, NUL bytes */
    {"non_utf8_keyword.md5mesh", MESH, "expected 'numMeshes', found 'num?Meshes'", 5},
    {"binary_garbage.md5mesh", MESH, "expected 'MD5Version'", 1},
    {"binary_garbage.md5anim", ANIM, "expected 'MD5Version'", 1},
    {"nul_in_number.md5anim", ANIM, "expected 'numAnimatedComponents', found '4'", 6},
    {"nul_in_joint_name.md5mesh", MESH, "a NUL byte inside a string", 8},
    /* 0-byte files */
    {"empty.md5anim", ANIM, "empty file", 0},
    {"empty.ini", CLIPS, "no clips", 0},
    {"empty.ini", STATES, "no [machine] section", 0},
    /* config values that are not finite, not in range, not text */
    {"clips_speed_nan.ini", CLIPS, "speed", 4},
    {"clips_speed_inf.ini", CLIPS, "speed", 4},
    {"clips_event_frame_negative.ini", CLIPS, "event 'step': frame '-1' must be a number >= 0", 4},
    {"clips_event_frame_nan.ini", CLIPS, "event 'step': frame 'nan' must be a number >= 0", 4},
    {"clips_file_is_folder.ini", CLIPS, "is a folder, not a file", 2},
    {"clips_file_is_ini.ini", CLIPS, "files cannot be read as an animation (supported: .md5anim)", 2},
    {"clips_non_utf8_name.ini", CLIPS, "clip name", 1},
    {"clips_nul_in_value.ini", CLIPS, "NUL", 2},
    {"clips_binary_garbage.ini", CLIPS, "", 1},
    {"clips_long_line.ini", CLIPS, "line is longer than 198 characters", 4},
    {"clips_long_value.ini", CLIPS, "line is longer than 198 characters", 2},
    {"states_fade_nan.ini", STATES, "fade", 12},
    {"states_fade_negative.ini", STATES, "fade", 12},
    {"states_priority_huge.ini", STATES, "priority", 12},
    {"states_rate_inf.ini", STATES, "rate", 9},
    {"states_when_nan.ini", STATES, "nan", 11},
    {"states_overlay_root_unknown.ini", STATES, "the model has no joint", 10},
};

static const char *kind_name(malformed_kind kind)
{
    static const char *const names[] = {"mesh", "anim", "clips", "states"};
    return names[kind];
}

/* Loads path as `kind` would be met in use; false when refused, with the first error in err. Problems
 * are listed by line, so a consequence reported at its section's line (a clip with no usable 'file')
 * comes before the mistake below it: with `expected`, err is the first error whose message has it. */
static bool load_as_expecting(malformed_kind kind, const char *path, const char *expected, diag *err)
{
    *err = (diag){0};
    if (kind == MESH || kind == ANIM) {
        model *m = NULL;
        clip *c = NULL;
        bool ok = kind == MESH ? loader_load_md5_model(path, &m, err, NULL) : loader_load_md5_clip(path, &c, err, NULL);
        CHECK(ok == (m != NULL || c != NULL));
        model_free(m);
        clip_free(c);
        return ok;
    }
    cache *shared = cache_create();
    diag_list errors = {0};
    anim_config *config = anim_config_load_character("mannequin", MANNEQUIN, kind == CLIPS ? path : GOOD_CLIPS,
                                                     kind == STATES ? path : NULL, shared, &errors);
    CHECK((config != NULL) == (errors.total == 0));
    if (errors.count)
        *err = errors.items[0];
    for (int i = 0; expected && i < errors.count; ++i)
        if (strstr(errors.items[i].message, expected)) {
            *err = errors.items[i];
            break;
        }
    anim_config_free(config);
    diag_list_free(&errors);
    cache_destroy(shared);
    return config != NULL;
}

static bool load_as(malformed_kind kind, const char *path, diag *err)
{
    return load_as_expecting(kind, path, NULL, err);
}

static void test_malformed_table(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        const malformed_case *c = &cases[i];
        char path[512];
        snprintf(path, sizeof path, MALFORMED "%s", c->file);
        diag err;
        int failures = check_failures;
        CHECK(!load_as_expecting(c->kind, path, c->text, &err));
        CHECK_STR_CONTAINS(err.message, c->text);
        CHECK(err.line == c->line);
        CHECK_STR_CONTAINS(err.file, c->file);
        CHECK(strchr(err.message, '\n') == NULL);
        if (check_failures != failures)
            fprintf(stderr, "  in %s (%s): %s:%d: %s\n", c->file, kind_name(c->kind), err.file, err.line,
                    err.message);
    }
}

/* A good file cut after every line (so at every section) fails where the text stops, saying so; cut at
 * every byte it fails too, at a line that exists, and never crashes or reads past the cut. */
static void check_truncations(const char *path, malformed_kind kind)
{
    size_t size = 0;
    char *text = test_read_file(path, &size);
    CHECK(text != NULL);
    if (!text)
        return;
    size_t complete = size;
    while (complete > 0 && text[complete - 1] != '}')
        --complete; /* past the closing brace of the last block, only white space is left */
    int lines = 0, cuts_checked = 0;
    for (size_t cut = 0; cut < complete; ++cut) {
        lines += cut > 0 && text[cut - 1] == '\n';
        char *copy = malloc(cut ? cut : 1); /* exactly cut bytes: ASan sees any read past the end */
        CHECK(copy != NULL);
        if (!copy)
            break;
        memcpy(copy, text, cut);
        model *m = NULL;
        clip *c = NULL;
        diag err = {0};
        diag_list warnings = {0};
        bool ok = kind == MESH ? loader_parse_md5_model(copy, cut, "cut.md5mesh", &m, &err, &warnings)
                               : loader_parse_md5_clip(copy, cut, "cut.md5anim", &c, &err, &warnings);
        int failures = check_failures;
        if (ok) {
            /* Cut between the joints and the first mesh block: numMeshes lies, the quirk accepted with a
             * warning (test_md5_quirks' num_meshes_lies), and the model has no meshes. */
            CHECK(kind == MESH && m && m->mesh_count == 0 && warnings.count == 1);
            CHECK_STR_CONTAINS(warnings.count ? warnings.items[0].message : "", "numMeshes 1 but only 0 mesh blocks");
        } else if (cut == 0) {
            CHECK_STR_CONTAINS(err.message, "empty file");
        } else if (text[cut - 1] == '\n') {
            /* At a line end: either the next item is missing, or a count promises more than the bytes left. */
            CHECK(strstr(err.message, "found end of file") || strstr(err.message, "cannot be right: only"));
            ++cuts_checked;
        } else {
            /* Inside a token: the cut token is what was found ("MD5Version 1" is a version number). */
            CHECK(strstr(err.message, "expected") || strstr(err.message, "unterminated") ||
                  strstr(err.message, "cannot be right") || strstr(err.message, "unsupported MD5Version"));
        }
        CHECK(ok || (err.line >= 0 && err.line <= lines + 1));
        if (check_failures != failures)
            fprintf(stderr, "  %s cut at byte %zu (line %d): %d: %s\n", path, cut, lines + 1, err.line, err.message);
        model_free(m);
        clip_free(c);
        diag_list_free(&warnings);
        free(copy);
    }
    CHECK(cuts_checked >= 20);
    free(text);
}

static void test_truncated_at_every_section(void)
{
    check_truncations(QUIRKS "base.md5mesh", MESH);
    check_truncations(QUIRKS "base.md5anim", ANIM);
}

/* Regression (found by fuzz_md5mesh): a quoted token of 31 characters where a keyword was expected made the
 * error message writer put its NUL one byte past its buffer on the stack. */
static void test_long_quoted_token_in_an_error(void)
{
    static const char text[] = "MD5Version 10\ncommandline \"\"\nnumJoints \"abcdefghijklmnopqrstuvwxyz01234\"\n";
    model *m = NULL;
    diag err = {0};
    CHECK(!loader_parse_md5_model(text, sizeof text - 1, "long.md5mesh", &m, &err, NULL));
    CHECK_STR_CONTAINS(err.message, "found '\"abcdefghijklmnopqrstuvwxyz01234'...");
    CHECK(err.line == 3);
}

/* Made sparse in the build folder at test time (never committed). All NUL bytes, which the md5 reader takes
 * as white space, after a good header: at the loader's limit (64 MiB) it is read and refused where the joints
 * should start; at 200 MB it is refused by its size before anything opens it, as a model, a clip or an ini. */
static void test_200_megabyte_file(void)
{
    char folder[512], path[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, "malformed_big"));
    snprintf(path, sizeof path, "%s/big.md5mesh", folder);
    static const char header[] = "MD5Version 10\ncommandline \"\"\nnumJoints 2\nnumMeshes 1\n";
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, header, sizeof header - 1) == (ssize_t)(sizeof header - 1));
    CHECK(ftruncate(fd, (off_t)LOADER_MAX_FILE_BYTES) == 0);
    diag err;
    CHECK(!load_as(MESH, path, &err));
    CHECK_STR_CONTAINS(err.message, "expected 'joints', found end of file");
    CHECK(err.line == 5);
    CHECK(!load_as(ANIM, path, &err));
    CHECK_STR_CONTAINS(err.message, "not an .md5anim");
    CHECK(ftruncate(fd, 200L * 1000 * 1000) == 0);
    CHECK(close(fd) == 0);
    for (int kind = MESH; kind <= ANIM; ++kind) {
        CHECK(!load_as((malformed_kind)kind, path, &err));
        CHECK_STR_CONTAINS(err.message, "200000000 bytes, more than the 67108864 allowed; not opened");
    }
    CHECK(!load_as(STATES, path, &err));
    CHECK_STR_CONTAINS(err.file, "big.md5mesh");
    CHECK_STR_CONTAINS(err.message, "allowed; not opened");
    CHECK(unlink(path) == 0);
    CHECK(rmdir(folder) == 0);
}

/* Paths that are not readable regular files, given where a file is expected. */
static void test_paths_that_are_not_files(void)
{
    char folder[512], fifo[600], loop[600], locked[600], under_file[700];
    CHECK(test_make_temp_folder(folder, sizeof folder, "malformed_paths"));
    snprintf(fifo, sizeof fifo, "%s/pipe.md5mesh", folder);
    snprintf(loop, sizeof loop, "%s/loop.md5mesh", folder);
    snprintf(locked, sizeof locked, "%s/locked.md5mesh", folder);
    snprintf(under_file, sizeof under_file, "%s/x.md5mesh", QUIRKS "base.md5mesh");
    CHECK(mkfifo(fifo, 0644) == 0);
    CHECK(symlink(loop, loop) == 0);
    test_write_file(locked, "MD5Version 10\n");
    CHECK(chmod(locked, 0) == 0);

    static const malformed_kind kinds[] = {MESH, ANIM, CLIPS, STATES};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; ++k) {
        diag err;
        CHECK(!load_as(kinds[k], MARIONETTE_TEST_DATA, &err));
        CHECK_STR_CONTAINS(err.message, "is a folder, not a file");
        CHECK(!load_as(kinds[k], "/proc/self/pagemap", &err)); /* says size 0, reads about 256 GB */
        CHECK_STR_CONTAINS(err.message, "a kernel file on procfs");
        CHECK(!load_as(kinds[k], fifo, &err)); /* a FIFO would block an open until a writer came */
        CHECK_STR_CONTAINS(err.message, "not a regular file");
        CHECK(!load_as(kinds[k], "/dev/null", &err));
        CHECK_STR_CONTAINS(err.message, "not a regular file");
        CHECK(!load_as(kinds[k], MALFORMED "no_such_file.md5mesh", &err));
        CHECK_STR_CONTAINS(err.message, "No such file or directory");
        CHECK(!load_as(kinds[k], loop, &err));
        CHECK_STR_CONTAINS(err.message, "Too many levels of symbolic links");
        CHECK(!load_as(kinds[k], under_file, &err));
        CHECK_STR_CONTAINS(err.message, "Not a directory");
        CHECK(err.line == 0);
        /* root reads a mode-0 file anyway; everyone else must be told why not */
        if (geteuid() != 0) {
            CHECK(!load_as(kinds[k], locked, &err));
            CHECK_STR_CONTAINS(err.message, "Permission denied");
        }
    }
    CHECK(unlink(fifo) == 0 && unlink(loop) == 0 && unlink(locked) == 0);
    CHECK(rmdir(folder) == 0);
}

/* Memory amplification (issue 16): a count that lies is refused before anything is allocated for it, and
 * nothing the readers allocate exceeds md5.h's bound, 64 x the file's size + 1 MiB, whatever the counts
 * say. Each count is held by the bytes alone; the product numFrames x numJoints is what a small file
 * could make huge (3.2 GB of poses from half a megabyte, before the budget). */
typedef struct lying_case {
    malformed_kind kind;
    const char *head;  /* the file's text up to the padding */
    size_t padding;    /* bytes of a // comment appended (each count is then held by the bytes alone) */
    const char *error; /* the whole message */
    int line;
} lying_case;

static void check_lying_counts(const lying_case *c)
{
    size_t head = strlen(c->head);
    size_t size = head + c->padding + (c->padding ? 3 : 0);
    char *text = malloc(size + 1);
    CHECK(text != NULL);
    if (!text)
        return;
    memcpy(text, c->head, head);
    if (c->padding) {
        memcpy(text + head, "//", 2);
        memset(text + head + 2, 'x', c->padding);
        text[size - 1] = '\n';
    }
    text[size] = '\0';
    diag err = {0};
    model *m = NULL;
    clip *clip = NULL;
    heap_bytes_requested = 0;
    heap_largest_request = 0;
    bool ok = c->kind == MESH ? loader_parse_md5_model(text, size, "lie.md5", &m, &err, NULL)
                              : loader_parse_md5_clip(text, size, "lie.md5", &clip, &err, NULL);
    size_t requested = heap_bytes_requested, largest = heap_largest_request;
    size_t bound = 64 * size + 1024 * 1024;
    CHECK(!ok && m == NULL && clip == NULL);
    CHECK(strcmp(err.message, c->error) == 0);
    CHECK(err.line == c->line && strcmp(err.file, "lie.md5") == 0);
    CHECK(largest <= bound);
    CHECK(requested <= bound);
    if (strcmp(err.message, c->error) != 0 || err.line != c->line || requested > bound)
        fprintf(stderr, "  got line %d \"%s\"; %zu bytes requested (largest %zu) for a file of %zu\n", err.line,
                err.message, requested, largest, size);
    model_free(m);
    clip_free(clip);
    free(text);
}

#define ANIM_HEAD(frames, joints, components)                                                               \
    "MD5Version 10\ncommandline \"\"\nnumFrames " frames "\nnumJoints " joints "\nframeRate 24\n"              \
    "numAnimatedComponents " components "\n"
#define MESH_HEAD(joints, meshes) "MD5Version 10\ncommandline \"\"\nnumJoints " joints "\nnumMeshes " meshes "\n"
#define MESH_ONE_JOINT MESH_HEAD("1", "1") "joints {\n\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\nmesh {\nshader \"\"\n"

static void test_lying_counts_allocate_little(void)
{
    static const lying_case cases[] = {
        {ANIM, ANIM_HEAD("60000", "60000", "0"), 0, "numFrames 60000 cannot be right: only 54 bytes follow", 3},
        {ANIM, ANIM_HEAD("2", "60000", "0"), 0, "numJoints 60000 cannot be right: only 38 bytes follow", 4},
        {ANIM, ANIM_HEAD("1", "1", "1000000000"), 0,
         "numAnimatedComponents 1000000000 cannot be right: only 1 bytes follow", 6},
        /* each count fits the file; together they do not */
        {ANIM, ANIM_HEAD("1000", "1", "10000"), 50000,
         "numFrames 1000 with numAnimatedComponents 10000 cannot be right: only 50004 bytes follow", 6},
        {ANIM, ANIM_HEAD("10000", "10000", "0"), 480000,
         "numFrames 10000 x numJoints 10000 cannot be right: 3051 MiB of poses from a file of 480101 bytes (at "
         "most 64 x its size + 1 MiB)",
         6},
        {MESH, MESH_HEAD("60000", "1"), 0, "numJoints 60000 cannot be right: only 13 bytes follow", 3},
        {MESH, MESH_HEAD("1", "60000"), 0, "numMeshes 60000 cannot be right: only 1 bytes follow", 4},
        {MESH, MESH_ONE_JOINT "numverts 60000000\n", 0, "numverts 60000000 cannot be right: only 1 bytes follow", 10},
        {MESH, MESH_ONE_JOINT "numverts 0\nnumtris 60000000\n", 0,
         "numtris 60000000 cannot be right: only 1 bytes follow", 11},
        {MESH, MESH_ONE_JOINT "numverts 0\nnumtris 0\nnumweights 2000000000\n", 0,
         "numweights 2000000000 cannot be right: only 1 bytes follow", 12},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i)
        check_lying_counts(&cases[i]);
}

/* The reach check refuses only what passes BUILD_REACH_MAX: a chain of large translations that stays below
 * it loads, its frames as written. */
static void test_large_finite_object_space_loads(void)
{
    size_t size;
    char *text = test_read_file(MALFORMED "object_space_overflow.md5anim", &size);
    CHECK(text != NULL);
    char *at = text ? strstr(text, "6e29\n}") : NULL;
    CHECK(at != NULL);
    if (at) {
        at[0] = '3'; /* frame 1: 6e29 + 3e29, below BUILD_REACH_MAX */
        clip *c = NULL;
        diag err = {0};
        CHECK(loader_parse_md5_clip(text, size, "big.md5anim", &c, &err, NULL));
        CHECK(c && c->frames[1 * 3 + 2].position[0] == 3e29f && c->frames[1 * 3 + 1].position[0] == 6e29f);
        clip_free(c);
    }
    free(text);
}

/* A joint name is file text: in a message its control characters are escaped (diag.c), so a name holding
 * a terminal escape sequence cannot clear the screen of whoever reads the error. */
static void test_escape_sequences_in_names_are_escaped(void)
{
    static const char text[] = ANIM_HEAD("1", "1", "0") "hierarchy {\n\"\x1b[2J\x07\" -1 64 0\n}\n";
    clip *c = NULL;
    diag err = {0};
    CHECK(!loader_parse_md5_clip(text, sizeof text - 1, "esc\x1b.md5anim", &c, &err, NULL));
    CHECK(strcmp(err.message, "joint '\\e[2J\\x07' has flags 64: only bits 0..5 (0..63) mean something") == 0);
    CHECK(strcmp(err.file, "esc\\e.md5anim") == 0);
    CHECK(err.line == 8);
}

int main(void)
{
    RUN(test_lying_counts_allocate_little);
    RUN(test_escape_sequences_in_names_are_escaped);
    RUN(test_large_finite_object_space_loads);
    RUN(test_malformed_table);
    RUN(test_truncated_at_every_section);
    RUN(test_long_quoted_token_in_an_error);
    RUN(test_200_megabyte_file);
    RUN(test_paths_that_are_not_files);
    return check_report();
}
