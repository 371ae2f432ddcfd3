#include "png.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "base/file.h"

/* Every PNG starts with these 8 bytes (they also catch files mangled by text-mode transfers). */
static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

static void put_big_endian_32(uint8_t *out, uint32_t value)
{
    out[0] = (uint8_t)(value >> 24);
    out[1] = (uint8_t)(value >> 16);
    out[2] = (uint8_t)(value >> 8);
    out[3] = (uint8_t)value;
}

/* One chunk at out: length, 4-letter type, data, and the CRC-32 of type and data. Returns bytes written
 * (12 + data_size). */
static size_t put_chunk(uint8_t *out, const char type[4], const uint8_t *data, size_t data_size)
{
    put_big_endian_32(out, (uint32_t)data_size);
    memcpy(out + 4, type, 4);
    if (data_size)
        memcpy(out + 8, data, data_size);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, out + 4, (uInt)(4 + data_size));
    put_big_endian_32(out + 8 + data_size, (uint32_t)crc);
    return 12 + data_size;
}

bool png_encode_rgb(const uint8_t *pixels, int width, int height, const char *name, uint8_t **out, size_t *size,
                    diag *err)
{
    *out = NULL;
    *size = 0;
    if (width <= 0 || height <= 0 || width > 65535 || height > 65535)
        return diag_set(err, name, 0, "cannot write a %d x %d image (1 to 65535 pixels each way)", width, height);

    /* The image data PNG compresses: each row prefixed by its filter type, 0 = bytes as they are. */
    size_t row_bytes = 1 + 3 * (size_t)width;
    size_t raw_size = row_bytes * (size_t)height;
    uLongf compressed_size = compressBound((uLong)raw_size);
    uint8_t *raw = malloc(raw_size);
    uint8_t *compressed = malloc(compressed_size);
    /* Signature, IHDR (13 bytes of data), IDAT, IEND: 8 + 25 + 12 + compressed + 12. */
    uint8_t *file = malloc(8 + 25 + 12 + compressed_size + 12);
    if (!raw || !compressed || !file) {
        free(raw);
        free(compressed);
        free(file);
        return diag_set(err, name, 0, "out of memory encoding a %d x %d PNG", width, height);
    }
    for (int y = 0; y < height; ++y) {
        raw[(size_t)y * row_bytes] = 0;
        memcpy(raw + (size_t)y * row_bytes + 1, pixels + (size_t)y * 3 * (size_t)width, 3 * (size_t)width);
    }
    int status = compress2(compressed, &compressed_size, raw, (uLong)raw_size, Z_DEFAULT_COMPRESSION);
    free(raw);
    if (status != Z_OK) {
        free(compressed);
        free(file);
        return diag_set(err, name, 0, "zlib could not compress the image (error %d)", status);
    }

    uint8_t header[13];
    put_big_endian_32(header, (uint32_t)width);
    put_big_endian_32(header + 4, (uint32_t)height);
    header[8] = 8;  /* bits per channel */
    header[9] = 2;  /* colour type: RGB */
    header[10] = 0; /* compression: deflate, the only one PNG defines */
    header[11] = 0; /* filtering: adaptive per row, the only one PNG defines */
    header[12] = 0; /* no interlacing */

    size_t at = 0;
    memcpy(file, png_signature, sizeof png_signature);
    at += sizeof png_signature;
    at += put_chunk(file + at, "IHDR", header, sizeof header);
    at += put_chunk(file + at, "IDAT", compressed, compressed_size);
    at += put_chunk(file + at, "IEND", NULL, 0);
    free(compressed);
    *out = file;
    *size = at;
    return true;
}

bool png_write_rgb(const char *path, const uint8_t *pixels, int width, int height, diag *err)
{
    uint8_t *bytes = NULL;
    size_t size = 0;
    if (!png_encode_rgb(pixels, width, height, path, &bytes, &size, err))
        return false;
    /* Beside the target, renamed over it when whole: a failed write leaves the old picture (base/file.h). */
    bool written = file_write_all(path, bytes, size, err);
    free(bytes);
    return written;
}
