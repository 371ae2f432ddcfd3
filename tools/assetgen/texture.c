/* texture: paints each atlas region from its part's own coordinates (around, along: see texture.h), so a
 * feature is placed where it lands on the body (eyes at eye height on the head's front) and not at
 * guessed pixel positions. Noise is value noise over a fixed integer hash: the same bytes everywhere. */
#include "texture.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "shape_math.h"

/* Regions in pixels, top-left origin: x, y, width, height. Every pixel belongs to exactly one region. */
static const int atlas[TEXTURE_REGION_COUNT][4] = {
    [TEXTURE_REGION_TORSO] = {0, 0, 128, 128},     [TEXTURE_REGION_HEAD] = {128, 0, 128, 64},
    [TEXTURE_REGION_VISOR] = {128, 64, 64, 32},    [TEXTURE_REGION_NECK] = {192, 64, 64, 32},
    [TEXTURE_REGION_PELVIS] = {128, 96, 64, 64},   [TEXTURE_REGION_BACKPACK] = {192, 96, 64, 64},
    [TEXTURE_REGION_ARM] = {0, 128, 128, 64},      [TEXTURE_REGION_LEG] = {0, 192, 128, 64},
    [TEXTURE_REGION_HAND] = {128, 160, 64, 48},    [TEXTURE_REGION_FOOT] = {192, 160, 64, 48},
    [TEXTURE_REGION_JOINT] = {128, 208, 128, 48},
};

/* UVs stay this many pixels inside their region, so filtering never mixes in a neighbour's colours. */
enum { ATLAS_MARGIN = 2 };

void texture_atlas_uv(texture_region region, double around, double along, double uv[2])
{
    const int *r = atlas[region];
    uv[0] = (r[0] + ATLAS_MARGIN + shape_clamp01(around) * (r[2] - 2 * ATLAS_MARGIN)) / TEXTURE_SIZE;
    uv[1] = (r[1] + ATLAS_MARGIN + (1.0 - shape_clamp01(along)) * (r[3] - 2 * ATLAS_MARGIN)) / TEXTURE_SIZE;
}

/* ---- Noise ----------------------------------------------------------------------------------------- */

/* A well-mixed 32-bit integer hash (Chris Wellons' "lowbias32"), mapped to [0, 1). */
static double hash01(int32_t x, int32_t y, uint32_t seed)
{
    uint32_t h = (uint32_t)x * 0x8da6b343u ^ (uint32_t)y * 0xd8163841u ^ seed * 0xcb1ab31fu;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return (h >> 8) * (1.0 / 16777216.0);
}

static double smooth(double t)
{
    return t * t * (3.0 - 2.0 * t);
}

/* Value noise in [0, 1): hashed values on a grid of `cell` pixels, smoothly interpolated between. */
static double value_noise(double x, double y, double cell, uint32_t seed)
{
    double gx = x / cell, gy = y / cell;
    double fx = floor(gx), fy = floor(gy);
    int32_t ix = (int32_t)fx, iy = (int32_t)fy;
    double tx = smooth(gx - fx), ty = smooth(gy - fy);
    double top = hash01(ix, iy, seed) + (hash01(ix + 1, iy, seed) - hash01(ix, iy, seed)) * tx;
    double bottom = hash01(ix, iy + 1, seed) + (hash01(ix + 1, iy + 1, seed) - hash01(ix, iy + 1, seed)) * tx;
    return top + (bottom - top) * ty;
}

/* ---- Painting -------------------------------------------------------------------------------------- */

typedef struct color {
    double r, g, b; /* 0..255 */
} color;

static color mix(color a, color b, double t)
{
    return (color){a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

static color scale(color c, double factor)
{
    return (color){c.r * factor, c.g * factor, c.b * factor};
}

/* Inside the ellipse centred at (around, along) with radii (radius_around, radius_along): 1 inside,
 * 0 outside, a one-pixel-wide soft edge in between to avoid jaggies. */
static double in_ellipse(double around, double along, double centre_around, double centre_along,
                         double radius_around, double radius_along, double pixel)
{
    double du = (around - centre_around) / radius_around, dv = (along - centre_along) / radius_along;
    double distance = sqrt(du * du + dv * dv);
    double edge = pixel / (radius_around < radius_along ? radius_around : radius_along);
    return shape_clamp01((1.0 - distance) / edge + 0.5);
}

/* What a pixel of one region is, in that region's part coordinates and in pixels for the noise. */
typedef struct texel {
    texture_region region;
    double around, along; /* see texture.h */
    double x, y;          /* pixel centre in the image */
    double pixel;         /* one pixel, in `around` units, for soft edges */
} texel;

/* Light wood: long grain along each part, with slow wobble, fine fibres and darker ball joints. The front
 * has eyes and a mouth line on the head and a burnt-in diamond on the chest; the back is darker with a
 * groove down the spine. */
static color paint_mannequin(const texel *t)
{
    color light = {228, 192, 142}, dark = {188, 142, 92};
    /* Grain runs along the part: stripes across `around`, bent by low-frequency noise. */
    double wobble = value_noise(t->x, t->y, 24.0, 11u) * 3.0;
    double stripes = t->around * 14.0 + wobble;
    double grain = fabs(stripes - floor(stripes) - 0.5) * 2.0;
    grain = grain * grain * grain;
    color c = mix(light, dark, 0.55 * grain + 0.25 * value_noise(t->x, t->y, 4.0, 12u));
    c = scale(c, 0.96 + 0.08 * hash01((int32_t)t->x, (int32_t)t->y, 13u));

    switch (t->region) {
    case TEXTURE_REGION_JOINT:
        c = scale(c, 0.82);
        break;
    case TEXTURE_REGION_HEAD: {
        color ink = {78, 50, 34};
        double eye = in_ellipse(t->around, t->along, 0.13, 0.56, 0.045, 0.055, t->pixel);
        double mouth = in_ellipse(t->around, t->along, 0.0, 0.30, 0.07, 0.012, t->pixel);
        double brow = in_ellipse(t->around, t->along, 0.13, 0.66, 0.06, 0.012, t->pixel);
        c = mix(c, ink, eye > mouth ? (eye > brow ? eye : brow) : (mouth > brow ? mouth : brow));
        c = scale(c, 1.0 - 0.2 * smooth(shape_clamp01((t->around - 0.5) / 0.3)));
        break;
    }
    case TEXTURE_REGION_TORSO: {
        double diamond = (t->around / 0.09 + fabs(t->along - 0.64) / 0.12);
        c = mix(c, (color){150, 62, 40}, shape_clamp01((1.0 - diamond) / 0.08));
        c = scale(c, 1.0 - 0.22 * smooth(shape_clamp01((t->around - 0.45) / 0.35)));
        c = mix(c, scale(c, 0.6), in_ellipse(t->around, t->along, 1.0, 0.5, 0.035, 0.42, t->pixel));
        break;
    }
    case TEXTURE_REGION_PELVIS:
        c = scale(c, 1.0 - 0.22 * smooth(shape_clamp01((t->around - 0.45) / 0.35)));
        break;
    default:
        break;
    }
    return c;
}

/* Grey-blue armour plates with dark seams and rivets, orange accents (chest chevron, bands on the limbs,
 * shoulder and knee armour, hazard stripes on the power pack), a dark face plate behind a glowing
 * visor, and cooling slots across the back. */
static color paint_robot(const texel *t)
{
    color metal = {118, 134, 156}, seam = {58, 66, 80}, orange = {240, 128, 30}, glass = {16, 24, 34};
    color c = scale(metal, 0.88 + 0.16 * value_noise(t->x, t->y, 16.0, 21u) +
                               0.05 * hash01((int32_t)t->x, (int32_t)t->y, 22u));
    /* Panels: a seam every 16 pixels each way, a rivet near each panel corner. */
    int px = (int)t->x % 16, py = (int)t->y % 16;
    if (px == 0 || py == 0)
        c = seam;
    else if ((px == 3 || px == 13) && (py == 3 || py == 13))
        c = (color){190, 198, 210};

    switch (t->region) {
    case TEXTURE_REGION_HEAD:
        if (t->around < 0.3 && t->along > 0.25 && t->along < 0.8)
            c = mix(glass, metal, 0.25);
        if (t->around > 0.65 && fmod(t->along * 10.0, 1.0) < 0.45)
            c = seam;
        break;
    case TEXTURE_REGION_VISOR:
        c = t->around < 0.22 ? mix((color){255, 170, 60}, (color){255, 236, 160}, shape_clamp01(1.0 - t->around * 6.0))
                             : glass;
        break;
    case TEXTURE_REGION_TORSO: {
        /* A chevron pointing down on the chest: two bands meeting at the middle line. */
        double chevron = t->along - 0.55 - t->around * 0.9;
        if (t->around < 0.28 && chevron > 0.0 && chevron < 0.07)
            c = orange;
        if (t->around < 0.08 && t->along > 0.76 && t->along < 0.84)
            c = orange;
        if (t->around > 0.68 && t->along > 0.35 && t->along < 0.85 && fmod(t->along * 16.0, 1.0) < 0.4)
            c = (color){30, 34, 42};
        break;
    }
    case TEXTURE_REGION_BACKPACK: {
        double stripe = (t->x + t->y) / 12.0;
        if (t->around < 0.35 && t->along > 0.2 && t->along < 0.45)
            c = stripe - floor(stripe) < 0.5 ? orange : (color){24, 24, 28};
        break;
    }
    case TEXTURE_REGION_ARM:
    case TEXTURE_REGION_LEG:
        if (fabs(t->along - (t->region == TEXTURE_REGION_ARM ? 0.85 : 0.72)) < 0.03)
            c = orange;
        break;
    case TEXTURE_REGION_JOINT:
        c = mix(c, orange, 0.85);
        break;
    case TEXTURE_REGION_FOOT:
        if (t->around > 0.75)
            c = scale(seam, 0.8); /* rubber sole */
        break;
    default:
        break;
    }
    return c;
}

static texture_region region_at(int x, int y)
{
    for (int i = 0; i < TEXTURE_REGION_COUNT; ++i) {
        const int *r = atlas[i];
        if (x >= r[0] && x < r[0] + r[2] && y >= r[1] && y < r[1] + r[3])
            return (texture_region)i;
    }
    return TEXTURE_REGION_TORSO; /* not reached: the regions tile the image */
}

static unsigned char to_byte(double value)
{
    return (unsigned char)(value <= 0.0 ? 0 : value >= 255.0 ? 255 : (int)(value + 0.5));
}

bool texture_write_tga(FILE *out, body_kind kind)
{
    if (!out || (kind != BODY_MANNEQUIN && kind != BODY_ROBOT))
        return false;
    size_t row_bytes = (size_t)TEXTURE_SIZE * 3;
    unsigned char *pixels = malloc(row_bytes * TEXTURE_SIZE);
    if (!pixels)
        return false;
    for (int y = 0; y < TEXTURE_SIZE; ++y) {
        for (int x = 0; x < TEXTURE_SIZE; ++x) {
            texel t = {.region = region_at(x, y), .x = x + 0.5, .y = y + 0.5};
            const int *r = atlas[t.region];
            /* The inverse of texture_atlas_uv. */
            t.around = shape_clamp01((t.x - r[0] - ATLAS_MARGIN) / (r[2] - 2 * ATLAS_MARGIN));
            t.along = 1.0 - shape_clamp01((t.y - r[1] - ATLAS_MARGIN) / (r[3] - 2 * ATLAS_MARGIN));
            t.pixel = 1.0 / (r[2] - 2 * ATLAS_MARGIN);
            color c = kind == BODY_MANNEQUIN ? paint_mannequin(&t) : paint_robot(&t);
            /* TGA stores blue, green, red, and the bottom row first. */
            unsigned char *p = pixels + (size_t)(TEXTURE_SIZE - 1 - y) * row_bytes + (size_t)x * 3;
            p[0] = to_byte(c.b);
            p[1] = to_byte(c.g);
            p[2] = to_byte(c.r);
        }
    }
    unsigned char header[TEXTURE_TGA_HEADER_BYTES] = {0};
    header[2] = 2; /* uncompressed true colour */
    header[12] = TEXTURE_SIZE & 0xff;
    header[13] = TEXTURE_SIZE >> 8;
    header[14] = TEXTURE_SIZE & 0xff;
    header[15] = TEXTURE_SIZE >> 8;
    header[16] = 24; /* bits per pixel */
    header[17] = 0;  /* no alpha, origin at the bottom left */
    bool ok = fwrite(header, 1, sizeof header, out) == sizeof header &&
              fwrite(pixels, 1, row_bytes * TEXTURE_SIZE, out) == row_bytes * TEXTURE_SIZE;
    free(pixels);
    return ok;
}
