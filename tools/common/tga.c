#include "tga.h"

#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "image/image.h"

enum {
    TGA_HEADER_SIZE = 18,
    TGA_TYPE_TRUE_COLOR = 2,
    TGA_TYPE_TRUE_COLOR_RLE = 10,
    TGA_DESCRIPTOR_RIGHT_TO_LEFT = 0x10,
    TGA_DESCRIPTOR_TOP_TO_BOTTOM = 0x20,
    TGA_MAX_SIDE = IMAGE_MAX_SIDE, /* the side the demo's textures may have (image.h); keeps width * height
                                    * * 3 well inside size_t */
};

static int little_endian_16(const uint8_t *bytes)
{
    return bytes[0] | bytes[1] << 8;
}

/* Walks the pixel data in file order (B, G, R[, A] each). A run-length packet is one header byte, then
 * either one pixel repeated (high bit set) or that many literal pixels; count = low 7 bits + 1. Packets
 * may run across rows, as many writers do. */
typedef struct pixel_reader {
    const uint8_t *data;
    size_t size, at;
    int bytes_per_pixel;
    bool run_length;
    size_t copies_left;      /* repeats of `repeated` still to hand out */
    size_t literals_left;    /* literal pixels left in the current raw packet */
    const uint8_t *repeated;
} pixel_reader;

/* The next pixel, or NULL when the data ends before it. */
static const uint8_t *next_pixel(pixel_reader *reader)
{
    size_t pixel_size = (size_t)reader->bytes_per_pixel;
    if (reader->run_length && reader->copies_left == 0 && reader->literals_left == 0) {
        if (reader->at >= reader->size)
            return NULL;
        uint8_t packet = reader->data[reader->at++];
        size_t count = (size_t)(packet & 0x7F) + 1;
        if (packet & 0x80) {
            if (reader->at + pixel_size > reader->size)
                return NULL;
            reader->repeated = reader->data + reader->at;
            reader->at += pixel_size;
            reader->copies_left = count;
        } else {
            reader->literals_left = count;
        }
    }
    if (reader->copies_left > 0) {
        --reader->copies_left;
        return reader->repeated;
    }
    if (reader->at + pixel_size > reader->size)
        return NULL;
    const uint8_t *pixel = reader->data + reader->at;
    reader->at += pixel_size;
    if (reader->literals_left > 0)
        --reader->literals_left;
    return pixel;
}

bool tga_decode(const uint8_t *data, size_t size, const char *name, tga_image *image, diag *err)
{
    *image = (tga_image){0};
    if (size < TGA_HEADER_SIZE)
        return diag_set(err, name, 0, "not a TGA image: %zu bytes, shorter than the 18-byte header", size);
    int id_length = data[0];
    int color_map_type = data[1];
    int image_type = data[2];
    int color_map_length = little_endian_16(data + 5);
    int color_map_entry_bits = data[7];
    int width = little_endian_16(data + 12);
    int height = little_endian_16(data + 14);
    int bits_per_pixel = data[16];
    int descriptor = data[17];

    if (image_type != TGA_TYPE_TRUE_COLOR && image_type != TGA_TYPE_TRUE_COLOR_RLE)
        return diag_set(err, name, 0,
                        "TGA image type %d is not supported (only true colour: 2 uncompressed, 10 run-length "
                        "encoded)", image_type);
    if (bits_per_pixel != 24 && bits_per_pixel != 32)
        return diag_set(err, name, 0, "TGA with %d bits per pixel is not supported (24 or 32)", bits_per_pixel);
    if (color_map_type > 1)
        return diag_set(err, name, 0, "TGA colour map type %d is not defined by the format", color_map_type);
    if (width <= 0 || height <= 0 || width > TGA_MAX_SIDE || height > TGA_MAX_SIDE)
        return diag_set(err, name, 0, "TGA size %d x %d is empty or beyond the %d x %d limit", width, height,
                        TGA_MAX_SIDE, TGA_MAX_SIDE);

    /* A true-colour image may still carry a colour map nobody uses: skip it with the image ID. */
    size_t at = TGA_HEADER_SIZE + (size_t)id_length;
    if (color_map_type == 1)
        at += (size_t)color_map_length * (size_t)((color_map_entry_bits + 7) / 8);
    size_t pixel_count = (size_t)width * (size_t)height;

    uint8_t *pixels = malloc(pixel_count * 3);
    if (!pixels)
        return diag_set(err, name, 0, "out of memory for a %d x %d image", width, height);

    pixel_reader reader = {.data = data, .size = size, .at = at, .bytes_per_pixel = bits_per_pixel / 8,
                           .run_length = image_type == TGA_TYPE_TRUE_COLOR_RLE};
    for (size_t i = 0; i < pixel_count; ++i) {
        const uint8_t *source = next_pixel(&reader);
        if (!source) {
            free(pixels);
            return diag_set(err, name, 0, "TGA data ends early: %d x %d pixels announced, file is %zu bytes",
                            width, height, size);
        }
        /* File pixel i sits in row i / width counted from the corner the descriptor names. */
        size_t file_row = i / (size_t)width, file_column = i % (size_t)width;
        size_t row = descriptor & TGA_DESCRIPTOR_TOP_TO_BOTTOM ? file_row : (size_t)height - 1 - file_row;
        size_t column = descriptor & TGA_DESCRIPTOR_RIGHT_TO_LEFT ? (size_t)width - 1 - file_column : file_column;
        uint8_t *out = pixels + 3 * (row * (size_t)width + column);
        out[0] = source[2];
        out[1] = source[1];
        out[2] = source[0];
    }
    image->width = width;
    image->height = height;
    image->pixels = pixels;
    return true;
}

bool tga_load(const char *path, tga_image *image, diag *err)
{
    char *data = NULL;
    size_t size = 0;
    *image = (tga_image){0};
    if (!file_read_all(path, IMAGE_MAX_FILE_BYTES, &data, &size, err))
        return false;
    bool ok = tga_decode((const uint8_t *)data, size, path, image, err);
    free(data);
    return ok;
}

void tga_image_free(tga_image *image)
{
    free(image->pixels);
    *image = (tga_image){0};
}
