/* image: see image.h. Runs when meshes are made, never per frame. */
#include "image.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/file.h"

/* A warning's words after the path: a diag message and the sentence around it (the list cuts the whole
 * warning to DIAG_MESSAGE_MAX anyway). */
enum { IMAGE_TAIL_MAX = DIAG_MESSAGE_MAX + 64 };

/* An image held, or a file refused (users 0, no pixels): what it said, to say again without reading. */
typedef struct image_entry {
    image image;               /* first, so a const image * is its entry */
    file_identity identity;
    int users;
    bool refused;
    const char *refusal_verb;  /* the warning is label, verb, noun, path, tail, fallback (image_failure) */
    char refusal_tail[IMAGE_TAIL_MAX];
} image_entry;

struct image_cache {
    image_entry **entries;     /* each its own allocation, so an image's address never moves */
    int count, capacity;
    size_t budget;
    size_t bytes;
    image_decoder decode;
    int files_read, decoded, refusals;
};

/* Ids are unique across caches, so two caches' images never share a GPU upload by accident. Only the
 * thread that makes meshes touches it. */
static uint32_t image_next_id = 1;

static const char *const format_names[] = {"", "PNG", "JPEG", "BMP", "TGA"};

static uint32_t big_endian_16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t big_endian_32(const uint8_t *p) { return big_endian_16(p) << 16 | big_endian_16(p + 2); }
static uint32_t little_endian_16(const uint8_t *p) { return (uint32_t)p[1] << 8 | p[0]; }
static uint32_t little_endian_32(const uint8_t *p) { return little_endian_16(p + 2) << 16 | little_endian_16(p); }

/* A JPEG's size is in its first start-of-frame segment, after any number of other segments. */
static bool jpeg_size(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height)
{
    size_t at = 2;
    while (at + 4 <= size) {
        if (data[at] != 0xff)
            return false;
        uint8_t marker = data[at + 1];
        if (marker == 0xff) { /* fill byte */
            ++at;
            continue;
        }
        if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd8)) { /* no length */
            at += 2;
            continue;
        }
        if (marker == 0xd9 || marker == 0xda) /* end of image, start of scan: no frame before the data */
            return false;
        size_t length = big_endian_16(data + at + 2);
        bool frame = marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc;
        if (frame) {
            if (length < 7 || at + 9 > size)
                return false;
            *height = big_endian_16(data + at + 5);
            *width = big_endian_16(data + at + 7);
            return true;
        }
        at += 2 + length;
    }
    return false;
}

/* The format and size the file's header declares. TGA has no signature: it is the format of a file that
 * ends in .tga and is none of the others. */
static image_format image_header(const char *path, const uint8_t *data, size_t size, uint32_t *width,
                                 uint32_t *height)
{
    static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (size >= 24 && memcmp(data, png_signature, 8) == 0 && memcmp(data + 12, "IHDR", 4) == 0) {
        *width = big_endian_32(data + 16);
        *height = big_endian_32(data + 20);
        return IMAGE_FORMAT_PNG;
    }
    if (size >= 4 && data[0] == 0xff && data[1] == 0xd8)
        return jpeg_size(data, size, width, height) ? IMAGE_FORMAT_JPEG : IMAGE_FORMAT_UNKNOWN;
    if (size >= 26 && data[0] == 'B' && data[1] == 'M') {
        if (little_endian_32(data + 14) == 12) { /* OS/2 core header: 16-bit sizes */
            *width = little_endian_16(data + 18);
            *height = little_endian_16(data + 20);
        } else {
            int32_t w = (int32_t)little_endian_32(data + 18), h = (int32_t)little_endian_32(data + 22);
            /* A negative height is a top-down image; the magnitude is still its size. */
            *width = w < 0 ? (w == INT32_MIN ? UINT32_MAX : (uint32_t)-w) : (uint32_t)w;
            *height = h < 0 ? (h == INT32_MIN ? UINT32_MAX : (uint32_t)-h) : (uint32_t)h;
        }
        return IMAGE_FORMAT_BMP;
    }
    size_t length = strlen(path);
    if (size >= 18 && length >= 4 && strcasecmp(path + length - 4, ".tga") == 0) {
        *width = little_endian_16(data + 12);
        *height = little_endian_16(data + 14);
        return IMAGE_FORMAT_TGA;
    }
    return IMAGE_FORMAT_UNKNOWN;
}

/* "12 MiB", "3 KiB" or "100 bytes": a size in a message, never rounded to 0. */
static const char *size_text(uint64_t bytes, char *text, size_t size)
{
    if (bytes >= (1u << 20))
        snprintf(text, size, "%llu MiB", (unsigned long long)(bytes >> 20));
    else if (bytes >= (1u << 10))
        snprintf(text, size, "%llu KiB", (unsigned long long)(bytes >> 10));
    else
        snprintf(text, size, "%llu bytes", (unsigned long long)bytes);
    return text;
}

size_t image_mipmapped_bytes(int width, int height)
{
    size_t bytes = 0;
    for (size_t w = width > 0 ? (size_t)width : 0, h = height > 0 ? (size_t)height : 0; w > 0 && h > 0;
         w = w > 1 ? w / 2 : 1, h = h > 1 ? h / 2 : 1) {
        bytes += w * h * 4u;
        if (w == 1 && h == 1)
            break;
    }
    return bytes;
}

image_cache *image_cache_create(const image_cache_desc *desc)
{
    if (!desc || !desc->decode)
        return NULL;
    image_cache *cache = calloc(1, sizeof *cache);
    if (!cache)
        return NULL;
    cache->budget = desc->budget_bytes ? desc->budget_bytes : IMAGE_BUDGET_BYTES;
    cache->decode = desc->decode;
    return cache;
}

static void free_entry(image_entry *entry)
{
    free((void *)entry->image.rgba);
    free(entry);
}

void image_cache_destroy(image_cache *cache)
{
    if (!cache)
        return;
    for (int i = 0; i < cache->count; ++i)
        free_entry(cache->entries[i]);
    free(cache->entries);
    free(cache);
}

static image_entry *find_entry(const image_cache *cache, const file_identity *identity)
{
    for (int i = 0; i < cache->count; ++i)
        if (file_identity_equal(&cache->entries[i]->identity, identity))
            return cache->entries[i];
    return NULL;
}

/* A new entry in the table; NULL when memory runs out. */
static image_entry *add_entry(image_cache *cache, const file_identity *identity)
{
    if (cache->count == cache->capacity) {
        int capacity = cache->capacity ? 2 * cache->capacity : 16;
        image_entry **grown = realloc(cache->entries, (size_t)capacity * sizeof *grown);
        if (!grown)
            return NULL;
        cache->entries = grown;
        cache->capacity = capacity;
    }
    image_entry *entry = calloc(1, sizeof *entry);
    if (!entry)
        return NULL;
    entry->identity = *identity;
    cache->entries[cache->count++] = entry;
    return entry;
}

/* A failure, as the warning tells it: "label: " verb noun " path" tail fallback, where the caller names the
 * noun ("texture") and the fallback ("using the placeholder"): the verb is "" or "cannot decode the ", the
 * tail says why and ends where the fallback follows ("; ", "; not decoded, "). */
typedef struct image_failure {
    const char *verb;
    char tail[IMAGE_TAIL_MAX];
    bool remember;  /* a property of the file, not of the moment (the budget) */
} image_failure;

static void fail(image_failure *failure, const char *verb, bool remember, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(image_failure *failure, const char *verb, bool remember, const char *format, ...)
{
    failure->verb = verb;
    failure->remember = remember;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(failure->tail, sizeof failure->tail, format, arguments);
    va_end(arguments);
}

/* Read, measure and decode: the pixels (and their size), or NULL with *failure filled in. */
static uint8_t *load_image(image_cache *cache, const char *path, file_identity *identity, int *width_out,
                           int *height_out, image_failure *failure)
{
    char *data = NULL;
    size_t size = 0;
    diag err;
    cache->files_read++;
    if (!file_read_bounded(path, IMAGE_MAX_FILE_BYTES, &data, &size, identity, &err)) {
        fail(failure, "", true, ": %s; ", err.message);
        return NULL;
    }
    uint32_t width = 0, height = 0;
    image_format format = image_header(path, (const uint8_t *)data, size, &width, &height);
    uint64_t decoded = (uint64_t)width * height * 4u;
    const char *refusal = NULL;
    bool budget = false;
    char reason[200], decoded_text[32], mipmapped_text[32], limit_text[32];
    if (format == IMAGE_FORMAT_UNKNOWN) {
        refusal = "is not a PNG, JPEG, BMP or .tga image (or its header is cut short)";
    } else if (width == 0 || height == 0) {
        snprintf(reason, sizeof reason, "is a %s of %u x %u pixels: no pixels", format_names[format],
                 (unsigned)width, (unsigned)height);
        refusal = reason;
    } else if (width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE) {
        snprintf(reason, sizeof reason, "is a %s of %u x %u pixels, beyond the %d x %d limit", format_names[format],
                 (unsigned)width, (unsigned)height, IMAGE_MAX_SIDE, IMAGE_MAX_SIDE);
        refusal = reason;
    } else if (decoded > IMAGE_MAX_BYTES) {
        snprintf(reason, sizeof reason, "is a %s of %u x %u pixels, %s decoded, beyond the %s an image may take",
                 format_names[format], (unsigned)width, (unsigned)height,
                 size_text(decoded, decoded_text, sizeof decoded_text),
                 size_text(IMAGE_MAX_BYTES, limit_text, sizeof limit_text));
        refusal = reason;
    } else if (cache->bytes + image_mipmapped_bytes((int)width, (int)height) > cache->budget) {
        snprintf(reason, sizeof reason, "(%s decoded, %s with its mipmaps) would take the textures held past their "
                 "budget of %s", size_text(decoded, decoded_text, sizeof decoded_text),
                 size_text(image_mipmapped_bytes((int)width, (int)height), mipmapped_text, sizeof mipmapped_text),
                 size_text(cache->budget, limit_text, sizeof limit_text));
        refusal = reason;
        budget = true;
    }
    if (refusal) {
        free(data);
        fail(failure, "", !budget, " %s; not decoded, ", refusal);
        return NULL;
    }
    image_decode_job job = {.format = format, .data = (const uint8_t *)data, .size = size, .width = (int)width,
                            .height = (int)height, .rgba = malloc((size_t)decoded)};
    if (!job.rgba) {
        free(data);
        fail(failure, "", false, ": out of memory for %u x %u pixels; ", (unsigned)width, (unsigned)height);
        return NULL;
    }
    image_decode_status status = cache->decode(&job);
    free(data);
    if (status != IMAGE_DECODED) {
        free(job.rgba);
        if (status == IMAGE_DECODED_OTHER_SIZE)
            /* A decoder that disagrees with the header it was chosen by would break the budget's arithmetic. */
            fail(failure, "", true, " decoded to %d x %d, not the %u x %u of its header; ", job.decoded_width,
                 job.decoded_height, (unsigned)width, (unsigned)height);
        else if (status == IMAGE_NOT_CONVERTED)
            fail(failure, "cannot convert the ", true, " to RGBA (%s); ", job.detail);
        else
            fail(failure, "cannot decode the ", true, " (%s); ", job.detail);
        return NULL;
    }
    cache->decoded++;
    *width_out = (int)width;
    *height_out = (int)height;
    return job.rgba;
}

/* The words a warning is told in: what the image is to its user and what is done without it. */
typedef struct image_words {
    const char *noun;     /* "texture" */
    const char *fallback; /* "using the placeholder" */
} image_words;

static const char TEXTURE_NOUN[] = "texture", PLACEHOLDER[] = "using the placeholder";

static void warn(diag_list *warnings, const char *where, int line, const char *label, const char *path,
                 const char *verb, const char *tail, image_words words)
{
    diag_list_add(warnings, where, line, "%s: %s%s %s%s%s", label, verb, words.noun, path, tail, words.fallback);
}

/* Remember a refusal by the identity of what was read, so the file is not read again while unchanged. */
static void remember_refusal(image_cache *cache, const file_identity *identity, const image_failure *failure)
{
    image_entry *entry = find_entry(cache, identity) ? NULL : add_entry(cache, identity);
    if (!entry)
        return; /* already known, or no memory: it is read again next time, nothing worse */
    entry->refused = true;
    entry->refusal_verb = failure->verb;
    snprintf(entry->refusal_tail, sizeof entry->refusal_tail, "%s", failure->tail);
    cache->refusals++;
}

const image *image_cache_acquire(image_cache *cache, const char *path, const char *where, int line,
                                 const char *label, diag_list *warnings)
{
    return image_cache_acquire_as(cache, path, where, line, label, TEXTURE_NOUN, PLACEHOLDER, warnings);
}

const image *image_cache_acquire_as(image_cache *cache, const char *path, const char *where, int line,
                                    const char *label, const char *noun, const char *fallback, diag_list *warnings)
{
    image_words words = {noun ? noun : TEXTURE_NOUN, fallback ? fallback : PLACEHOLDER};
    file_identity identity;
    diag err;
    if (!file_check(path, IMAGE_MAX_FILE_BYTES, &identity, &err)) {
        char tail[IMAGE_TAIL_MAX];
        snprintf(tail, sizeof tail, ": %s; ", err.message);
        warn(warnings, where, line, label, path, "", tail, words);
        return NULL;
    }
    image_entry *entry = find_entry(cache, &identity);
    if (entry && entry->refused) {
        warn(warnings, where, line, label, path, entry->refusal_verb, entry->refusal_tail, words);
        return NULL;
    }
    if (entry) {
        entry->users++;
        return &entry->image;
    }
    image_failure failure = {0};
    int width = 0, height = 0;
    /* The identity of what was read (the file may have been replaced since the stat above). */
    uint8_t *rgba = load_image(cache, path, &identity, &width, &height, &failure);
    if (!rgba) {
        warn(warnings, where, line, label, path, failure.verb, failure.tail, words);
        if (failure.remember)
            remember_refusal(cache, &identity, &failure);
        return NULL;
    }
    entry = find_entry(cache, &identity);
    if (entry && !entry->refused) { /* replaced by a file already held: keep the one decode */
        free(rgba);
        entry->users++;
        return &entry->image;
    }
    entry = entry ? entry : add_entry(cache, &identity);
    if (!entry) {
        free(rgba);
        diag_list_add(warnings, where, line, "%s: out of memory for the image table; %s", label, words.fallback);
        return NULL;
    }
    size_t bytes = image_mipmapped_bytes(width, height);
    entry->refused = false;
    entry->users = 1;
    entry->image = (image){.id = image_next_id++, .width = width, .height = height, .rgba = rgba, .bytes = bytes};
    cache->bytes += bytes;
    return &entry->image;
}

void image_cache_release(image_cache *cache, const image *released)
{
    if (!cache || !released)
        return;
    for (int i = 0; i < cache->count; ++i) {
        image_entry *entry = cache->entries[i];
        if (&entry->image != released || entry->refused)
            continue;
        if (--entry->users > 0)
            return;
        cache->bytes -= entry->image.bytes;
        free_entry(entry);
        cache->entries[i] = cache->entries[--cache->count];
        return;
    }
}

image_cache_stats image_cache_get_stats(const image_cache *cache)
{
    image_cache_stats stats = {0};
    if (!cache)
        return stats;
    for (int i = 0; i < cache->count; ++i)
        stats.held += !cache->entries[i]->refused;
    stats.files_read = cache->files_read;
    stats.decoded = cache->decoded;
    stats.refusals = cache->refusals;
    stats.bytes = cache->bytes;
    return stats;
}
