/* image: the pictures meshes are drawn with, as decoded RGBA pixels read from files. An image cache reads
 * each file once however many meshes name it (by whatever spelling: files are told apart by device,
 * inode, modification time and size), refcounts it, remembers the files it refused so they are not read
 * again, and keeps every image within the limits below. Decoding is not done here: the cache's owner
 * gives it a decoder (platform_image_decode, through SDL_image). Knows nothing of GL, SDL or meshes. */
#ifndef MARIONETTE_IMAGE_H
#define MARIONETTE_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"

/* Limits. An image is measured from its header (PNG IHDR, JPEG start of frame, BMP info header, TGA
 * header) before anything decodes it, and refused, with a warning at the naming line and the caller's
 * placeholder drawn instead, when a side exceeds IMAGE_MAX_SIDE pixels, when its decoded RGBA (4 bytes a
 * pixel) would exceed IMAGE_MAX_BYTES, or when it would take the bytes of all the images held past the
 * cache's budget; its file must be a regular file (folders, FIFOs and devices are refused before opening)
 * of at most IMAGE_MAX_FILE_BYTES. The budget counts an image as the GPU holds it: with its mipmaps
 * (image_mipmapped_bytes, about 4/3 of the base level). Formats: PNG, JPEG and BMP by their signature,
 * TGA by the .tga extension; anything else is refused. */
enum { IMAGE_MAX_SIDE = 8192 };
#define IMAGE_MAX_BYTES ((size_t)64 << 20)           /* 4096 x 4096, or 8192 x 2048 */
#define IMAGE_MAX_FILE_BYTES ((size_t)65 << 20)      /* an uncompressed image and its header */
#define IMAGE_BUDGET_BYTES ((size_t)512 << 20)

typedef enum image_format { IMAGE_FORMAT_UNKNOWN, IMAGE_FORMAT_PNG, IMAGE_FORMAT_JPEG, IMAGE_FORMAT_BMP,
                            IMAGE_FORMAT_TGA } image_format;

/* What a decoder is asked to do: decode `data` as `format` into rgba (width * height pixels, top row
 * first, rows packed), the size its header declared. */
typedef struct image_decode_job {
    image_format format;
    const uint8_t *data;
    size_t size;
    int width, height;
    uint8_t *rgba;
    /* Out, on failure: */
    int decoded_width, decoded_height;  /* IMAGE_DECODED_OTHER_SIZE: what came out */
    char detail[DIAG_MESSAGE_MAX];      /* the decoder's own words (IMAGE_NOT_DECODED, IMAGE_NOT_CONVERTED) */
} image_decode_job;

typedef enum image_decode_status {
    IMAGE_DECODED,
    IMAGE_NOT_DECODED,        /* the decoder refused the data */
    IMAGE_DECODED_OTHER_SIZE, /* a size other than the header's: the budget's arithmetic would be wrong */
    IMAGE_NOT_CONVERTED,      /* decoded, but not convertible to RGBA */
} image_decode_status;

typedef image_decode_status (*image_decoder)(image_decode_job *job);

/* A decoded image, shared: read only, valid until its last image_cache_release. */
typedef struct image {
    uint32_t id;          /* never 0, never reused while the process runs: a key for sharing uploads */
    int width, height;
    const uint8_t *rgba;  /* width * height * 4 bytes, top row first */
    size_t bytes;         /* what the budget counts for it: image_mipmapped_bytes */
} image;

typedef struct image_cache_desc {
    size_t budget_bytes;  /* image_mipmapped_bytes of all the images held at once; 0: IMAGE_BUDGET_BYTES */
    image_decoder decode; /* required */
} image_cache_desc;

typedef struct image_cache image_cache;

typedef struct image_cache_stats {
    int held;             /* distinct images held */
    int files_read;       /* files opened and read since the cache was made */
    int decoded;          /* images decoded since the cache was made */
    int refusals;         /* files remembered as refused (not read again while unchanged) */
    size_t bytes;         /* image_mipmapped_bytes of the images held */
} image_cache_stats;

/* NULL when desc has no decoder or memory runs out. */
image_cache *image_cache_create(const image_cache_desc *desc);
/* Every image is freed, held or not. */
void image_cache_destroy(image_cache *cache);

/* The image at path, read and decoded on its first use, shared after: a user more until
 * image_cache_release. NULL when it is unreadable or refused, with a warning at where:line naming label
 * (as "label: texture path ..."); a refused file is remembered by its identity and not read again while
 * it stays the same (its warning is given again each time). A refusal for the budget alone is not
 * remembered: room may be made. */
const image *image_cache_acquire(image_cache *cache, const char *path, const char *where, int line,
                                 const char *label, diag_list *warnings);
/* The same told in other words: "label: NOUN path ...; FALLBACK" ("normal map", "drawn without it"); NULL for
 * either: "texture", "using the placeholder". */
const image *image_cache_acquire_as(image_cache *cache, const char *path, const char *where, int line,
                                    const char *label, const char *noun, const char *fallback, diag_list *warnings);
/* One user less (NULL is ignored); the last frees it. */
void image_cache_release(image_cache *cache, const image *image);

image_cache_stats image_cache_get_stats(const image_cache *cache);

/* RGBA bytes of an image and its full mipmap chain (each level half the last, down to 1 x 1). */
size_t image_mipmapped_bytes(int width, int height);

#endif
