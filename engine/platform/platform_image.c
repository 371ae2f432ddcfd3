/* platform_image: see platform_image.h. */
#include "platform_image.h"

#include <stdio.h>
#include <string.h>

#include <SDL.h>
#include <SDL_image.h>

static SDL_Surface *decode(image_format format, const uint8_t *data, size_t size)
{
    SDL_RWops *stream = SDL_RWFromConstMem(data, (int)size);
    if (!stream)
        return NULL;
    SDL_Surface *loaded = NULL;
    /* The decoder of the format the header was read for, never a guess of SDL_image's. */
    switch (format) {
    case IMAGE_FORMAT_PNG: loaded = IMG_LoadPNG_RW(stream); break;
    case IMAGE_FORMAT_JPEG: loaded = IMG_LoadJPG_RW(stream); break;
    case IMAGE_FORMAT_BMP: loaded = IMG_LoadBMP_RW(stream); break;
    case IMAGE_FORMAT_TGA: loaded = IMG_LoadTGA_RW(stream); break;
    case IMAGE_FORMAT_UNKNOWN: break;
    }
    SDL_RWclose(stream);
    return loaded;
}

image_decode_status platform_image_decode(image_decode_job *job)
{
    SDL_Surface *loaded = decode(job->format, job->data, job->size);
    if (!loaded) {
        snprintf(job->detail, sizeof job->detail, "%s", IMG_GetError());
        return IMAGE_NOT_DECODED;
    }
    if (loaded->w != job->width || loaded->h != job->height) {
        job->decoded_width = loaded->w;
        job->decoded_height = loaded->h;
        SDL_FreeSurface(loaded);
        return IMAGE_DECODED_OTHER_SIZE;
    }
    SDL_Surface *rgba = SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_RGBA32, 0);
    SDL_FreeSurface(loaded);
    if (!rgba) {
        snprintf(job->detail, sizeof job->detail, "%s", SDL_GetError());
        return IMAGE_NOT_CONVERTED;
    }
    /* Rows packed, top row first, whatever pitch SDL chose. */
    size_t row = (size_t)job->width * 4u;
    for (int y = 0; y < job->height; ++y)
        memcpy(job->rgba + (size_t)y * row, (const uint8_t *)rgba->pixels + (size_t)y * (size_t)rgba->pitch, row);
    SDL_FreeSurface(rgba);
    return IMAGE_DECODED;
}
