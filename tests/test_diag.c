#include "base/diag.h"
#include "base/file.h"
#include "check.h"
#include "test_files.h"

#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
    CHECK(file_read_all(MARIONETTE_TEST_DATA "/../check.h", 1 << 20, &data, &size, &err));
    CHECK(size > 100 && data[size] == '\0');
    free(data);

    CHECK(!file_read_all(MARIONETTE_TEST_DATA "/no-such-file.md5mesh", 1 << 20, &data, &size, &err));
    CHECK(data == NULL);
    CHECK_STR_CONTAINS(err.file, "no-such-file.md5mesh");
    CHECK_STR_CONTAINS(err.message, "cannot open");

    CHECK(!file_read_all(MARIONETTE_TEST_DATA, 1 << 20, &data, &size, &err));
    CHECK_STR_CONTAINS(err.message, "is a folder, not a file");

    /* A FIFO with no writer: opening it would block forever. */
    const char *fifo = MARIONETTE_BUILD_DIR "/test_diag.fifo";
    remove(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(!file_read_all(fifo, 1 << 20, &data, &size, &err));
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
    CHECK(file_check(path, 1 << 20, &same, &err) && file_identity_equal(&identity, &same));
    CHECK(file_check(MARIONETTE_BUILD_DIR "/./test_diag_bounded.txt", 1 << 20, &other_spelling, &err));
    CHECK(file_identity_equal(&identity, &other_spelling));
    file = fopen(path, "ab");
    CHECK(file && fputs("!", file) >= 0 && fclose(file) == 0);
    CHECK(file_check(path, 1 << 20, &same, &err) && !file_identity_equal(&identity, &same)); /* the size changed */
    remove(path);

    CHECK(!file_read_bounded(MARIONETTE_TEST_DATA, 1000, &data, &size, NULL, &err));
    CHECK_STR_CONTAINS(err.message, "is a folder, not a file");
    const char *fifo = MARIONETTE_BUILD_DIR "/test_diag_bounded.fifo";
    remove(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(!file_read_bounded(fifo, 1000, &data, &size, NULL, &err));
    CHECK_STR_CONTAINS(err.message, "not a regular file");
    CHECK(!file_check(fifo, 1 << 20, &same, &err));
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
    CHECK(file_is_readable(MARIONETTE_TEST_DATA "/../check.h", 1 << 20));
    CHECK(!file_is_readable(MARIONETTE_TEST_DATA, 1 << 20));
    CHECK(!file_is_readable(MARIONETTE_TEST_DATA "/no-such-file.tga", 1 << 20));
    CHECK(!file_is_readable("", 1 << 20));
    CHECK(!file_is_readable(NULL, 1 << 20));
    const char *fifo = MARIONETTE_BUILD_DIR "/test_diag_readable.fifo";
    remove(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(!file_is_readable(fifo, 1 << 20));
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

/* Kernel files look regular and lie about their size: /proc/self/pagemap says 0 and reads about 256 GB,
 * /proc/kmsg blocks a read for ever, a sysfs file says 4096. The check refuses them by their file system,
 * before opening, with a reason (before, a mesh named /proc/kmsg read as "empty file" in one reader and
 * hung the reload watcher in another). */
static void test_kernel_files_are_refused(void)
{
    struct stat info;
    const char *kernel[] = {"/proc/self/pagemap", "/proc/self/status", "/proc/kmsg", "/sys/kernel/mm/transparent_hugepage/enabled"};
    int tried = 0;
    for (size_t i = 0; i < sizeof kernel / sizeof kernel[0]; ++i) {
        if (stat(kernel[i], &info) != 0 || !S_ISREG(info.st_mode))
            continue; /* not on this machine */
        ++tried;
        diag err;
        char *data = NULL;
        size_t size = 0;
        CHECK(!file_check(kernel[i], 1 << 20, NULL, &err));
        CHECK_STR_CONTAINS(err.message, "a kernel file on ");
        CHECK(!file_read_all(kernel[i], 1 << 20, &data, &size, &err) && !data);
        CHECK(!file_is_readable(kernel[i], 1 << 20));
    }
    CHECK(tried >= 2); /* /proc is there wherever the tests run */
}

/* A file_writer's target is replaced whole or not at all: a new file, a replaced one keeping its mode, IN ==
 * OUT (the input read, then written over), a symbolic link at the target replaced rather than written
 * through, a folder that does not exist said in words, and a write over the file size limit (how a full disk
 * looks to a writer) refused with its errno while the old file stays as it was. */
static void test_file_writer(void)
{
    const char *path = MARIONETTE_BUILD_DIR "/test_diag_writer.txt";
    const char *elsewhere = MARIONETTE_BUILD_DIR "/test_diag_writer_elsewhere.txt";
    const char *link = MARIONETTE_BUILD_DIR "/test_diag_writer_link.txt";
    remove(path);
    remove(elsewhere);
    remove(link);
    file_writer writer;
    diag err;
    CHECK(file_writer_open(&writer, path, &err));
    fputs("first\n", writer.stream);
    CHECK(file_writer_commit(&writer, &err));
    char *data = NULL;
    size_t size = 0;
    CHECK(file_read_all(path, 100, &data, &size, &err) && strcmp(data, "first\n") == 0);
    free(data);
    CHECK(chmod(path, 0640) == 0);

    /* IN == OUT: read, then replaced by what was made from it. */
    CHECK(file_read_all(path, 100, &data, &size, &err));
    CHECK(file_writer_open(&writer, path, &err));
    fprintf(writer.stream, "%s%s", data, data);
    free(data);
    CHECK(file_writer_commit(&writer, &err));
    CHECK(file_read_all(path, 100, &data, &size, &err) && strcmp(data, "first\nfirst\n") == 0);
    free(data);
    struct stat info;
    CHECK(stat(path, &info) == 0 && (info.st_mode & 0777) == 0640);

    /* Abandoned: the target as it was, no leftover beside it. */
    CHECK(file_writer_open(&writer, path, &err));
    fputs("half", writer.stream);
    char temporary[sizeof writer.temporary];
    memcpy(temporary, writer.temporary, sizeof temporary);
    file_writer_abandon(&writer);
    CHECK(stat(temporary, &info) != 0);
    CHECK(file_read_all(path, 100, &data, &size, &err) && strcmp(data, "first\nfirst\n") == 0);
    free(data);

    /* A link planted at the target is replaced; what it pointed at is untouched. */
    test_write_file(elsewhere, "keep\n");
    CHECK(symlink(elsewhere, link) == 0);
    CHECK(file_writer_open(&writer, link, &err));
    fputs("new\n", writer.stream);
    CHECK(file_writer_commit(&writer, &err));
    CHECK(lstat(link, &info) == 0 && S_ISREG(info.st_mode));
    CHECK(file_read_all(elsewhere, 100, &data, &size, &err) && strcmp(data, "keep\n") == 0);
    free(data);

    /* A device is written to, never renamed over: /dev/null stays a device (as root a rename would have
     * replaced it with a file). A FIFO nobody reads is refused at once, not waited on. */
    CHECK(file_writer_open(&writer, "/dev/null", &err));
    fputs("gone\n", writer.stream);
    CHECK(file_writer_commit(&writer, &err));
    CHECK(stat("/dev/null", &info) == 0 && S_ISCHR(info.st_mode));
    const char *fifo = MARIONETTE_BUILD_DIR "/test_diag_writer.fifo";
    remove(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(!file_writer_open(&writer, fifo, &err));
    CHECK_STR_CONTAINS(err.message, "cannot write: No such device or address");
    CHECK(stat(fifo, &info) == 0 && S_ISFIFO(info.st_mode));
    remove(fifo);

    CHECK(!file_writer_open(&writer, MARIONETTE_BUILD_DIR "/no-such-folder/out.txt", &err));
    CHECK_STR_CONTAINS(err.message, "cannot write: No such file or directory");
    CHECK(!file_writer_open(&writer, MARIONETTE_BUILD_DIR, &err));
    CHECK_STR_CONTAINS(err.message, "it is a folder");

    /* Over the file size limit, in a child (the limit is the process's): the write fails with EFBIG, the
     * message says so, and the old file is whole. */
    pid_t child = fork();
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit = {.rlim_cur = 4096, .rlim_max = 4096};
        file_writer big;
        diag failure;
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0 || !file_writer_open(&big, path, &failure))
            _exit(2);
        for (int i = 0; i < 1000; ++i)
            fputs("more than four kilobytes in all\n", big.stream);
        bool committed = file_writer_commit(&big, &failure);
        _exit(!committed && strstr(failure.message, "File too large") && strstr(failure.message, "left as it was") ? 0 : 1);
    }
    int status = -1;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(file_read_all(path, 100, &data, &size, &err) && strcmp(data, "first\nfirst\n") == 0);
    free(data);
    remove(path);
    remove(elsewhere);
    remove(link);
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
    RUN(test_kernel_files_are_refused);
    RUN(test_file_writer);
    RUN(test_file_is_inside);
    return check_report();
}
