/* test_image: the image cache (engine/image) without GL or SDL: a stand-in decoder counts what is decoded.
 * Two spellings of one file share one image, read once; a refused file is read once however often it is
 * named, its warning given each time, and read again once it changes; the limits of image.h refuse from
 * the header before any decode; the budget counts each image with its mipmaps. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "test_files.h"
#include "image/image.h"

static int decodes;
static image_decode_status decode_result = IMAGE_DECODED;

/* Every pixel 0x55, or the failure asked for. */
static image_decode_status stand_in_decoder(image_decode_job *job)
{
    ++decodes;
    if (decode_result == IMAGE_NOT_DECODED)
        snprintf(job->detail, sizeof job->detail, "stand-in says no");
    if (decode_result == IMAGE_DECODED_OTHER_SIZE)
        job->decoded_width = 1, job->decoded_height = 1;
    if (decode_result != IMAGE_DECODED)
        return decode_result;
    memset(job->rgba, 0x55, (size_t)job->width * (size_t)job->height * 4u);
    return IMAGE_DECODED;
}

/* The first 24 bytes of a PNG (signature and IHDR): all the cache reads before decoding. extra: bytes
 * appended, to make a file of another size (another version). */
static void write_png_header(const char *path, uint32_t width, uint32_t height, int extra)
{
    uint8_t bytes[64] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    for (int k = 0; k < 4; ++k) {
        bytes[16 + k] = (uint8_t)(width >> (24 - 8 * k));
        bytes[20 + k] = (uint8_t)(height >> (24 - 8 * k));
    }
    CHECK(test_write_bytes(path, bytes, 24 + (size_t)extra));
}

static void test_mipmapped_bytes(void)
{
    CHECK(image_mipmapped_bytes(1, 1) == 4);
    CHECK(image_mipmapped_bytes(2, 2) == 4 * (4 + 1));
    CHECK(image_mipmapped_bytes(16, 32) == 4 * (512 + 128 + 32 + 8 + 2 + 1));
    CHECK(image_mipmapped_bytes(1, 8) == 4 * (8 + 4 + 2 + 1));
    /* About 4/3 of the base level for a square. */
    size_t base = 1024u * 1024u * 4u, all = image_mipmapped_bytes(1024, 1024);
    CHECK(all <= base + base / 3 && all > base + base / 3 - 16);
    CHECK(image_mipmapped_bytes(0, 8) == 0);
}

static void test_shared_by_file(void)
{
    char folder[512], picture[600], other_spelling[700];
    CHECK(test_make_temp_folder(folder, sizeof folder, "image_shared"));
    CHECK(test_paths_in(folder, 600, picture, "a.png", NULL));
    snprintf(other_spelling, sizeof other_spelling, "%s/./a.png", folder);
    write_png_header(picture, 8, 4, 0);
    image_cache *cache = image_cache_create(&(image_cache_desc){.decode = stand_in_decoder});
    CHECK(cache != NULL);
    decodes = 0;
    diag_list warnings = {0};
    const image *first = image_cache_acquire(cache, picture, "a.md5mesh", 9, "blocks", &warnings);
    const image *second = image_cache_acquire(cache, other_spelling, "b.md5mesh", 9, "blocks", &warnings);
    CHECK(first != NULL && first == second);
    CHECK(warnings.total == 0);
    CHECK(decodes == 1);
    image_cache_stats stats = image_cache_get_stats(cache);
    CHECK(stats.held == 1 && stats.files_read == 1 && stats.decoded == 1);
    CHECK(stats.bytes == image_mipmapped_bytes(8, 4));
    if (first) {
        CHECK(first->width == 8 && first->height == 4 && first->id != 0);
        CHECK(first->rgba[0] == 0x55 && first->rgba[8 * 4 * 4 - 1] == 0x55);
    }
    uint32_t first_id = first ? first->id : 0;
    image_cache_release(cache, first);
    CHECK(image_cache_get_stats(cache).held == 1); /* the second user keeps it */
    image_cache_release(cache, second);
    CHECK(image_cache_get_stats(cache).held == 0 && image_cache_get_stats(cache).bytes == 0);
    /* Made again after the last user went: read again, with a new id (never a stale share). */
    const image *again = image_cache_acquire(cache, picture, "a.md5mesh", 9, "blocks", &warnings);
    CHECK(again != NULL && image_cache_get_stats(cache).files_read == 2);
    CHECK(again && again->id != first_id);
    image_cache_release(cache, again);
    image_cache_destroy(cache);
    diag_list_free(&warnings);
}

/* A refusal is remembered by the file's identity: named three times, read once, warned three times. */
static void test_refusal_read_once(void)
{
    char folder[512], wide[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, "image_refused"));
    CHECK(test_paths_in(folder, 600, wide, "wide.png", NULL));
    write_png_header(wide, 16384, 16, 0);
    image_cache *cache = image_cache_create(&(image_cache_desc){.decode = stand_in_decoder});
    decodes = 0;
    diag_list warnings = {0};
    for (int i = 0; i < 3; ++i)
        CHECK(image_cache_acquire(cache, wide, "one.md5mesh", 9 + i, "blocks", &warnings) == NULL);
    image_cache_stats stats = image_cache_get_stats(cache);
    CHECK(stats.files_read == 1);
    CHECK(stats.refusals == 1 && stats.held == 0);
    CHECK(decodes == 0);
    CHECK(warnings.total == 3);
    for (int i = 0; i < warnings.count; ++i) {
        CHECK(warnings.items[i].line == 9 + i);
        CHECK_STR_CONTAINS(warnings.items[i].message,
                           "is a PNG of 16384 x 16 pixels, beyond the 8192 x 8192 limit; not decoded, using the "
                           "placeholder");
    }
    if (warnings.count == 3)
        CHECK(strcmp(warnings.items[0].message, warnings.items[2].message) == 0);
    /* Changed on disk (another size): another version, read again, and now within the limits. */
    write_png_header(wide, 16, 16, 8);
    const image *fixed = image_cache_acquire(cache, wide, "one.md5mesh", 9, "blocks", &warnings);
    CHECK(fixed != NULL);
    CHECK(image_cache_get_stats(cache).files_read == 2);
    image_cache_release(cache, fixed);

    /* A decoder's refusal is remembered the same way. */
    char broken[600];
    CHECK(test_paths_in(folder, 600, broken, "broken.png", NULL));
    write_png_header(broken, 4, 4, 0);
    decode_result = IMAGE_NOT_DECODED;
    decodes = 0;
    diag_list decoder_warnings = {0};
    for (int i = 0; i < 2; ++i)
        CHECK(image_cache_acquire(cache, broken, "one.md5mesh", 9, "blocks", &decoder_warnings) == NULL);
    CHECK(decodes == 1);
    CHECK(decoder_warnings.total == 2);
    if (decoder_warnings.count == 2) {
        CHECK_STR_CONTAINS(decoder_warnings.items[1].message, "blocks: cannot decode the texture ");
        CHECK_STR_CONTAINS(decoder_warnings.items[1].message, "broken.png (stand-in says no); using the placeholder");
    }
    decode_result = IMAGE_DECODED;
    image_cache_destroy(cache);
    diag_list_free(&warnings);
    diag_list_free(&decoder_warnings);
}

/* The budget counts mipmaps: 16 x 16 (1364 bytes with mipmaps) and 16 x 32 (2732) do not fit in 3 KiB
 * together, though their base levels (1 + 2 KiB) would. A budget refusal is not remembered. */
static void test_budget_counts_mipmaps(void)
{
    char folder[512], small[600], large[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, "image_budget"));
    CHECK(test_paths_in(folder, 600, small, "small.png", large, "large.png", NULL));
    write_png_header(small, 16, 16, 0);
    write_png_header(large, 16, 32, 0);
    image_cache *cache = image_cache_create(&(image_cache_desc){.budget_bytes = 3 * 1024, .decode = stand_in_decoder});
    diag_list warnings = {0};
    const image *held = image_cache_acquire(cache, small, "one.md5mesh", 9, "blocks", &warnings);
    CHECK(held != NULL && image_cache_get_stats(cache).bytes == 1364);
    CHECK(image_cache_acquire(cache, large, "one.md5mesh", 9, "blocks", &warnings) == NULL);
    CHECK(warnings.total == 1);
    if (warnings.count == 1)
        CHECK_STR_CONTAINS(warnings.items[0].message, "(2 KiB decoded, 2 KiB with its mipmaps) would take the "
                                                      "textures held past their budget of 3 KiB");
    CHECK(image_cache_get_stats(cache).refusals == 0);
    image_cache_release(cache, held);
    const image *fits = image_cache_acquire(cache, large, "one.md5mesh", 9, "blocks", &warnings);
    CHECK(fits != NULL && image_cache_get_stats(cache).bytes == 2732);
    image_cache_release(cache, fits);
    image_cache_destroy(cache);
    diag_list_free(&warnings);
}

/* Limits and file kinds, each refused before any decode, with the side limit image.h documents. */
static void test_limits(void)
{
    char folder[512], edge[600], past[600], bytes[600], text[600], fifo[600];
    CHECK(test_make_temp_folder(folder, sizeof folder, "image_limits"));
    CHECK(test_paths_in(folder, 600, edge, "edge.png", past, "past.png", bytes, "bytes.png", text, "text.png",
                        fifo, "fifo.png", NULL));
    image_cache *cache = image_cache_create(&(image_cache_desc){.decode = stand_in_decoder});
    CHECK(image_cache_create(&(image_cache_desc){0}) == NULL); /* no decoder */
    decodes = 0;
    diag_list warnings = {0};
    write_png_header(edge, IMAGE_MAX_SIDE, 16, 0); /* at the limit: 512 KiB, fine */
    const image *at_limit = image_cache_acquire(cache, edge, "m", 1, "l", &warnings);
    CHECK(at_limit != NULL && decodes == 1);
    image_cache_release(cache, at_limit);
    write_png_header(past, IMAGE_MAX_SIDE + 1, 16, 0);
    CHECK(image_cache_acquire(cache, past, "m", 1, "l", &warnings) == NULL);
    write_png_header(bytes, 8192, 4096, 0); /* within the sides, 128 MiB decoded */
    CHECK(image_cache_acquire(cache, bytes, "m", 1, "l", &warnings) == NULL);
    test_write_file(text, "not really an image");
    CHECK(image_cache_acquire(cache, text, "m", 1, "l", &warnings) == NULL);
    CHECK(image_cache_acquire(cache, folder, "m", 1, "l", &warnings) == NULL);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(image_cache_acquire(cache, fifo, "m", 1, "l", &warnings) == NULL);
    remove(fifo);
    CHECK(decodes == 1);
    CHECK(warnings.total == 5);
    if (warnings.count == 5) {
        CHECK_STR_CONTAINS(warnings.items[0].message, "8193 x 16 pixels, beyond the 8192 x 8192 limit");
        CHECK_STR_CONTAINS(warnings.items[1].message, "128 MiB decoded, beyond the 64 MiB an image may take");
        CHECK_STR_CONTAINS(warnings.items[2].message, "is not a PNG, JPEG, BMP or .tga image");
        CHECK_STR_CONTAINS(warnings.items[3].message, "is a folder, not a file");
        CHECK_STR_CONTAINS(warnings.items[4].message, "not a regular file");
    }
    image_cache_destroy(cache);
    diag_list_free(&warnings);
}

int main(void)
{
    RUN(test_mipmapped_bytes);
    RUN(test_shared_by_file);
    RUN(test_refusal_read_once);
    RUN(test_budget_counts_mipmaps);
    RUN(test_limits);
    return check_report();
}
