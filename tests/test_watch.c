/* base/watch: a completed write is never missed, whatever the file's times say; nothing unchanged is a change. */
#include "base/watch.h"
#include "check.h"
#include "test_files.h"

#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

static char folder[512];

/* Overwrite the file in place (same inode) with `text`, then put its times back to what `before` saw: a
 * second write inside the first one's time tick, forced so the test does not depend on the file system. */
static void write_in_same_tick(const char *path, const char *text, const watch_stamp *before)
{
    FILE *file = fopen(path, "r+b");
    CHECK(file != NULL);
    if (!file)
        return;
    CHECK(fwrite(text, 1, strlen(text), file) == strlen(text));
    CHECK(fclose(file) == 0);
    struct timespec times[2] = {{0, UTIME_OMIT}, {(time_t)before->modified_seconds, before->modified_nanoseconds}};
    CHECK(utimensat(AT_FDCWD, path, times, 0) == 0);
}

static void set_modified_time(const char *path, time_t seconds)
{
    struct timespec times[2] = {{0, UTIME_OMIT}, {seconds, 0}};
    CHECK(utimensat(AT_FDCWD, path, times, 0) == 0);
}

static void test_never_taken_is_a_change(void)
{
    watch_stamp stamp = {0};
    CHECK(watch_changed("/no/such/file", &stamp));
}

static void test_unchanged_file_is_not_a_change(void)
{
    char path[512];
    CHECK(test_paths_in(folder, sizeof path, path, "same.ini", NULL));
    test_write_file(path, "[player]\ncharacter = robot\n");
    watch_stamp stamp;
    watch_stamp_take(path, 1 << 20, &stamp);
    CHECK(stamp.exists && stamp.hashed && stamp.size == 27);
    CHECK(!watch_changed(path, &stamp));
    CHECK(!watch_changed(path, &stamp)); /* a look does not move the stamp on */
}

/* The bug: a save in two steps (half, then the rest) inside one time tick, the half seen by a reload in
 * between. Times, size and inode are those of the half; only the bytes differ. */
static void test_split_write_in_one_tick_is_a_change(void)
{
    char path[512];
    CHECK(test_paths_in(folder, sizeof path, path, "split.ini", NULL));
    test_write_file(path, "walk_speed = 1.4\n;;;;;;;;;;;;;;;\n"); /* half written: the rest not yet there */
    watch_stamp half;
    watch_stamp_take(path, 1 << 20, &half);
    write_in_same_tick(path, "walk_speed = 1.4\nrun_speed = 9.0\n", &half);
    watch_stamp after;
    watch_stamp_take(path, 1 << 20, &after);
    CHECK(after.size == half.size && after.inode == half.inode && after.modified_seconds == half.modified_seconds &&
          after.modified_nanoseconds == half.modified_nanoseconds); /* the forced tick held */
    CHECK(watch_changed(path, &half));
    CHECK(!watch_changed(path, &after));

    /* The same with a time long past (a copy that keeps times, a file server's clock): small files are
     * compared by their bytes whatever the time. */
    set_modified_time(path, 1000000000);
    watch_stamp old;
    watch_stamp_take(path, 1 << 20, &old);
    write_in_same_tick(path, "walk_speed = 2.0\n", &old);
    CHECK(watch_changed(path, &old));
}

/* A large file (a model) is hashed while its time is recent, and then a split write is caught too; once its
 * time is old it is not read on every look. */
static void test_large_file_hashed_while_recent(void)
{
    char path[512];
    CHECK(test_paths_in(folder, sizeof path, path, "big.md5mesh", NULL));
    size_t size = WATCH_ALWAYS_HASH_BYTES + 4096;
    char *bytes = malloc(size + 1);
    CHECK(bytes != NULL);
    if (!bytes)
        return;
    memset(bytes, 'a', size);
    bytes[size] = '\0';
    CHECK(test_write_bytes(path, bytes, size));
    watch_stamp recent;
    watch_stamp_take(path, 1 << 20, &recent);
    CHECK(recent.hashed);
    bytes[size / 2] = 'b';
    write_in_same_tick(path, bytes, &recent);
    CHECK(watch_changed(path, &recent));

    set_modified_time(path, 1000000000);
    watch_stamp old;
    watch_stamp_take(path, 1 << 20, &old);
    CHECK(!old.hashed);
    CHECK(!watch_changed(path, &old));
    free(bytes);
}

static void test_appear_vanish_replace_resize(void)
{
    char path[512], other[512];
    CHECK(test_paths_in(folder, sizeof path, path, "moves.ini", other, "moves.ini.new", NULL));
    watch_stamp missing;
    watch_stamp_take(path, 1 << 20, &missing);
    CHECK(missing.taken && !missing.exists);
    CHECK(!watch_changed(path, &missing));
    test_write_file(path, "a = 1\n");
    CHECK(watch_changed(path, &missing)); /* appeared */

    watch_stamp first;
    watch_stamp_take(path, 1 << 20, &first);
    test_write_file(other, "a = 2\n");
    struct timespec times[2] = {{0, UTIME_OMIT}, {(time_t)first.modified_seconds, first.modified_nanoseconds}};
    CHECK(utimensat(AT_FDCWD, other, times, 0) == 0);
    CHECK(rename(other, path) == 0);
    CHECK(watch_changed(path, &first)); /* an editor's save by rename: another inode */

    watch_stamp renamed;
    watch_stamp_take(path, 1 << 20, &renamed);
    test_write_file(path, "a = 22\n");
    CHECK(watch_changed(path, &renamed)); /* resized */

    watch_stamp present;
    watch_stamp_take(path, 1 << 20, &present);
    CHECK(remove(path) == 0);
    CHECK(watch_changed(path, &present)); /* vanished */
}

/* The file's hash is XXH3 64 of its bytes, read in pieces: equal to the one-shot hash of the same bytes for
 * sizes around the reader's buffer, and the published value for no bytes. */
static void test_hash_is_xxh3_64(void)
{
    char path[512];
    CHECK(test_paths_in(folder, sizeof path, path, "hash.bin", NULL));
    static unsigned char bytes[40000];
    for (size_t i = 0; i < sizeof bytes; ++i)
        bytes[i] = (unsigned char)(i * 2654435761u >> 13);
    static const size_t sizes[] = {1, 240, 16383, 16384, 16385, 40000};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; ++k) {
        FILE *file = fopen(path, "wb");
        CHECK(file && fwrite(bytes, 1, sizes[k], file) == sizes[k]);
        if (file)
            fclose(file);
        uint64_t hash = 0;
        CHECK(watch_hash_file(path, 1 << 20, &hash));
        CHECK(hash == XXH3_64bits(bytes, sizes[k]));
    }
    uint64_t empty_hash = XXH3_64bits(bytes, 2); /* not the empty value */
    test_write_file(path, "");
    CHECK(watch_hash_file(path, 1 << 20, &empty_hash) && empty_hash == 0x2d06800538d394c2ull); /* XXH3 64 of nothing */
    CHECK(!watch_hash_file("/no/such/file", 1 << 20, &empty_hash));
}

/* A watch set: each path once; a file added unseen is due at the first look, one looked at only when it
 * changes; a due file's stamp moves on; the set as a whole says whether any file changed. */
static void test_watch_set(void)
{
    char first[512], second[512];
    CHECK(test_paths_in(folder, sizeof first, first, "set_a.ini", NULL));
    CHECK(test_paths_in(folder, sizeof second, second, "set_b.ini", NULL));
    test_write_file(first, "a = 1\n");
    test_write_file(second, "b = 1\n");
    watch_set set = {0};
    CHECK(watch_set_add(&set, first, 1 << 20, false) == 0);
    CHECK(watch_set_add(&set, second, 1 << 20, true) == 1);
    CHECK(watch_set_add(&set, first, 1 << 20, true) == 0 && set.count == 2);
    CHECK(watch_set_changed(&set)); /* the first was never looked at */
    CHECK(watch_set_due(&set, 0, false));
    CHECK(!watch_set_due(&set, 0, false) && !watch_set_due(&set, 1, false));
    CHECK(watch_set_due(&set, 1, true)); /* forced */
    CHECK(!watch_set_changed(&set));
    test_write_file(second, "b = 22\n");
    CHECK(watch_set_changed(&set) && watch_set_changed(&set)); /* a look does not move the stamps on */
    CHECK(!watch_set_due(&set, 0, false) && watch_set_due(&set, 1, false));
    CHECK(!watch_set_changed(&set));
    CHECK(!watch_set_due(&set, 2, true)); /* no such file */
    watch_set moved = {0};
    watch_set_move(&moved, &set);
    CHECK(moved.count == 2 && set.count == 0 && set.files == NULL);
    CHECK(strcmp(moved.files[1].path, second) == 0);
    watch_set_free(&moved);
    CHECK(moved.count == 0 && moved.files == NULL);
}

/* What its reader would refuse is stamped by its times alone and never opened: a kernel file that says size 0
 * and reads about 256 GB (/proc/self/pagemap), one whose read blocks for ever (/proc/kmsg), a FIFO with no
 * writer (opening it blocks) and a file over the reader's limit. Before, a "regular" file of size 0 was
 * hashed by reading it to its end, and /proc/kmsg froze a load. A file that grows past the limit stops being
 * hashed and is still a change (its size moved). */
static void test_refused_files_are_never_opened(void)
{
    char fifo[512], big[512];
    CHECK(test_paths_in(folder, sizeof fifo, fifo, "pipe.ini", big, "big.ini", NULL));
    CHECK(mkfifo(fifo, 0600) == 0);
    struct stat info;
    const char *refused[] = {"/proc/self/pagemap", fifo, "/proc/kmsg"};
    int count = stat("/proc/kmsg", &info) == 0 ? 3 : 2;
    for (int i = 0; i < count; ++i) {
        uint64_t hash = 0;
        CHECK(!watch_hash_file(refused[i], 1 << 20, &hash));
        watch_stamp stamp;
        watch_stamp_take(refused[i], 1 << 20, &stamp);
        CHECK(stamp.taken && stamp.exists && !stamp.hashed);
        CHECK(!watch_changed(refused[i], &stamp));
    }
    test_write_file(big, "0123456789");
    watch_stamp small, over;
    watch_stamp_take(big, 10, &small);
    watch_stamp_take(big, 9, &over);
    CHECK(small.hashed && !over.hashed && over.exists && over.size == 10);
    test_write_file(big, "0123456789A");
    CHECK(watch_changed(big, &small));
    remove(fifo);
    remove(big);
}

int main(void)
{
    CHECK(test_make_temp_folder(folder, sizeof folder, "test_watch"));
    RUN(test_never_taken_is_a_change);
    RUN(test_unchanged_file_is_not_a_change);
    RUN(test_split_write_in_one_tick_is_a_change);
    RUN(test_large_file_hashed_while_recent);
    RUN(test_appear_vanish_replace_resize);
    RUN(test_hash_is_xxh3_64);
    RUN(test_watch_set);
    RUN(test_refused_files_are_never_opened);
    return check_report();
}
