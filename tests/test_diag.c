#include "base/diag.h"
#include "base/file.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_set_and_format(void)
{
    diag d;
    CHECK(diag_set(&d, "models/guard.md5mesh", 12, "expected %s, found '%c'", "'('", 'x') == false);
    char text[DIAG_TEXT_MAX];
    diag_format(&d, text, sizeof text);
    CHECK(strcmp(text, "models/guard.md5mesh:12: expected '(', found 'x'") == 0);

    diag_set(&d, "a.md5anim", 0, "empty file");
    diag_format(&d, text, sizeof text);
    CHECK(strcmp(text, "a.md5anim: empty file") == 0);

    CHECK(diag_set(NULL, "x", 1, "ignored") == false);
}

static void test_message_stays_on_one_line(void)
{
    diag d;
    diag_set(&d, "f", 3, "name \"%s\"", "two\nlines\r");
    CHECK(strchr(d.message, '\n') == NULL);
    CHECK(strchr(d.message, '\r') == NULL);
    CHECK_STR_CONTAINS(d.message, "two lines");
}

/* Control characters from file text (a joint name holding a terminal escape sequence) are escaped in every
 * diag, file name included (issue 16); layout characters become spaces; UTF-8 stays. */
static void test_control_characters_escaped(void)
{
    diag d;
    diag_set(&d, "a\x1b]0;title\x07.md5anim", 2, "joint '%s'", "\x1b[2J\x01\x7f\tok \xc3\xa9");
    CHECK(strcmp(d.message, "joint '\\e[2J\\x01\\x7F ok \xc3\xa9'") == 0);
    CHECK(strcmp(d.file, "a\\e]0;title\\x07.md5anim") == 0);
    diag_list list = {0};
    diag_list_add(&list, "w", 1, "name %s", "\x1b[31m");
    CHECK(list.count == 1 && strcmp(list.items[0].message, "name \\e[31m") == 0);
    diag_list_free(&list);

    /* Truncation keeps escapes whole. */
    char out[8];
    CHECK(diag_escape("ab\x01\x02", out, sizeof out) == 6);
    CHECK(strcmp(out, "ab\\x01") == 0);
    CHECK(diag_escape(NULL, out, sizeof out) == 0 && out[0] == '\0');
    /* A message full of control bytes still fits, cut at a whole escape. */
    char many[200];
    memset(many, 0x01, sizeof many - 1);
    many[sizeof many - 1] = '\0';
    diag_set(&d, "f", 1, "%s", many);
    CHECK(strlen(d.message) == (DIAG_MESSAGE_MAX - 1) / 4 * 4);
    CHECK(strncmp(d.message + strlen(d.message) - 4, "\\x01", 4) == 0);
}

static void test_long_text_is_truncated_not_overflowed(void)
{
    char long_name[1000];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    diag d;
    diag_set(&d, long_name, 1, "%s", long_name);
    CHECK(strlen(d.file) == DIAG_FILE_MAX - 1);
    CHECK(strlen(d.message) == DIAG_MESSAGE_MAX - 1);
}

static void test_list_keeps_first_and_counts_all(void)
{
    diag_list list = {0};
    for (int i = 0; i < DIAG_LIST_KEEP + 10; ++i)
        diag_list_add(&list, "w.md5mesh", i + 1, "warning %d", i);
    CHECK(list.count == DIAG_LIST_KEEP);
    CHECK(list.total == DIAG_LIST_KEEP + 10);
    CHECK(list.items[0].line == 1);
    CHECK(strcmp(list.items[DIAG_LIST_KEEP - 1].message, "warning 63") == 0);
    /* A copy of a filled message counts and is kept under the same rule. */
    diag filled;
    diag_set(&filled, "c.ini", 4, "copied");
    CHECK(diag_list_add_copy(&list, &filled) && list.total == DIAG_LIST_KEEP + 11 && list.count == DIAG_LIST_KEEP);
    diag_list_clear(&list);
    CHECK(diag_list_add_copy(&list, &filled) && list.count == 1 && list.total == 1);
    CHECK(list.items[0].line == 4 && strcmp(list.items[0].file, "c.ini") == 0 &&
          strcmp(list.items[0].message, "copied") == 0);
    CHECK(diag_list_add_copy(NULL, &filled));
    diag_list_clear(&list);
    CHECK(list.count == 0 && list.total == 0);
    diag_list_free(&list);
    CHECK(list.items == NULL);
    CHECK(diag_list_add(NULL, "x", 1, "dropped"));
}

static void test_file_read_all(void)
{
    char *data;
    size_t size;
    diag err;
    CHECK(file_read_all(MARIONETTE_TEST_DATA "/../check.h", &data, &size, &err));
    CHECK(size > 100 && data[size] == '\0');
    free(data);

    CHECK(!file_read_all(MARIONETTE_TEST_DATA "/no-such-file.md5mesh", &data, &size, &err));
    CHECK(data == NULL);
    CHECK_STR_CONTAINS(err.file, "no-such-file.md5mesh");
    CHECK_STR_CONTAINS(err.message, "cannot open");

    CHECK(!file_read_all(MARIONETTE_TEST_DATA, &data, &size, &err));
    CHECK_STR_CONTAINS(err.message, "not a regular file");

    /* A FIFO with no writer: opening it would block forever. */
    const char *fifo = MARIONETTE_BUILD_DIR "/test_diag.fifo";
    remove(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(!file_read_all(fifo, &data, &size, &err));
    CHECK_STR_CONTAINS(err.message, "not a regular file");
    remove(fifo);
}

/* A bounded read: refused without reading past its limit, never blocking on a FIFO, and the identity of
 * what it read (which two spellings of one file share, and an edit changes). */
static void test_file_read_bounded(void)
{
    const char *path = MARIONETTE_BUILD_DIR "/test_diag_bounded.txt";
    FILE *file = fopen(path, "wb");
    CHECK(file && fputs("twelve bytes", file) >= 0 && fclose(file) == 0);
    char *data = NULL;
    size_t size = 0;
    file_identity identity, same, other_spelling;
    diag err;
    CHECK(file_read_bounded(path, 12, &data, &size, &identity, &err));
    CHECK(size == 12 && data && strcmp(data, "twelve bytes") == 0);
    free(data);
    CHECK(!file_read_bounded(path, 11, &data, &size, NULL, &err));
    CHECK(!data && size == 0);
    CHECK_STR_CONTAINS(err.message, "12 bytes, more than the 11 allowed");
    CHECK(file_identify(path, &same, &err) && file_identity_equal(&identity, &same));
    CHECK(file_identify(MARIONETTE_BUILD_DIR "/./test_diag_bounded.txt", &other_spelling, &err));
    CHECK(file_identity_equal(&identity, &other_spelling));
    file = fopen(path, "ab");
    CHECK(file && fputs("!", file) >= 0 && fclose(file) == 0);
    CHECK(file_identify(path, &same, &err) && !file_identity_equal(&identity, &same)); /* the size changed */
    remove(path);

    CHECK(!file_read_bounded(MARIONETTE_TEST_DATA, 1000, &data, &size, NULL, &err));
    CHECK_STR_CONTAINS(err.message, "not a regular file");
    const char *fifo = MARIONETTE_BUILD_DIR "/test_diag_bounded.fifo";
    remove(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(!file_read_bounded(fifo, 1000, &data, &size, NULL, &err));
    CHECK_STR_CONTAINS(err.message, "not a regular file");
    CHECK(!file_identify(fifo, &same, &err));
    remove(fifo);
    CHECK(!file_read_bounded(MARIONETTE_BUILD_DIR "/no-such-file", 1000, &data, &size, NULL, &err));
    CHECK_STR_CONTAINS(err.message, "cannot open");
}

/* Inside a folder once every link is followed: the folder itself and what lies under it, not a sibling
 * whose name starts the same, nor what a link inside leads to outside. */
static void test_file_is_inside(void)
{
    CHECK(file_is_inside(MARIONETTE_TEST_DATA "/../check.h", MARIONETTE_TEST_DATA "/.."));
    CHECK(!file_is_inside(MARIONETTE_TEST_DATA "/../check.h", MARIONETTE_TEST_DATA));
    CHECK(file_is_inside(MARIONETTE_TEST_DATA, MARIONETTE_TEST_DATA "/"));
    CHECK(!file_is_inside(MARIONETTE_TEST_DATA "/no-such-file", MARIONETTE_TEST_DATA));
    const char *folder = MARIONETTE_BUILD_DIR "/test_diag_inside";
    const char *sibling = MARIONETTE_BUILD_DIR "/test_diag_inside_sibling";
    const char *link = MARIONETTE_BUILD_DIR "/test_diag_inside/link";
    remove(link);
    rmdir(folder);
    rmdir(sibling);
    CHECK(mkdir(folder, 0700) == 0 && mkdir(sibling, 0700) == 0);
    CHECK(!file_is_inside(sibling, folder));
    CHECK(symlink(sibling, link) == 0);
    CHECK(!file_is_inside(link, folder));
    CHECK(file_is_inside(link, MARIONETTE_BUILD_DIR));
    remove(link);
    rmdir(folder);
    rmdir(sibling);
}

/* A file search (texture candidates) takes regular files it can open, nothing else: not a folder, not a
 * FIFO (opening one would block), not a name that is not there. */
static void test_file_is_readable(void)
{
    CHECK(file_is_readable(MARIONETTE_TEST_DATA "/../check.h"));
    CHECK(!file_is_readable(MARIONETTE_TEST_DATA));
    CHECK(!file_is_readable(MARIONETTE_TEST_DATA "/no-such-file.tga"));
    CHECK(!file_is_readable(""));
    CHECK(!file_is_readable(NULL));
    const char *fifo = MARIONETTE_BUILD_DIR "/test_diag_readable.fifo";
    remove(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(!file_is_readable(fifo));
    remove(fifo);
}

/* By file (in the order the files first appear) and line; the same place keeps its order. */
static void test_list_sorted_by_place(void)
{
    diag_list list = {0};
    diag_list_add(&list, "first.ini", 0, "kept first");
    diag_list_add(&list, "states.ini", 93, "b");
    diag_list_add(&list, "clips.ini", 7, "c");
    diag_list_add(&list, "states.ini", 92, "a");
    diag_list_add(&list, "clips.ini", 2, "d");
    diag_list_add(&list, "states.ini", 92, "a2");
    diag_list_add(&list, "states.ini", 0, "whole file");
    diag_list_sort(&list, 1);
    static const char *const expected[] = {"kept first", "a", "a2", "b", "whole file", "d", "c"};
    CHECK(list.count == 7);
    for (int i = 0; i < list.count && i < 7; ++i)
        CHECK(strcmp(list.items[i].message, expected[i]) == 0);
    diag_list_sort(&list, 7); /* nothing to sort: nothing moves */
    CHECK(strcmp(list.items[6].message, "c") == 0);
    diag_list_free(&list);
}

int main(void)
{
    RUN(test_set_and_format);
    RUN(test_message_stays_on_one_line);
    RUN(test_control_characters_escaped);
    RUN(test_long_text_is_truncated_not_overflowed);
    RUN(test_list_keeps_first_and_counts_all);
    RUN(test_list_sorted_by_place);
    RUN(test_file_read_all);
    RUN(test_file_is_readable);
    RUN(test_file_read_bounded);
    RUN(test_file_is_inside);
    return check_report();
}
