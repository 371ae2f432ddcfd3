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

/* The part coordinates of pixel (x, y): see texel. */
static texel texel_at(int x, int y)
{
    texel t = {.region = region_at(x, y), .x = x + 0.5, .y = y + 0.5};
    const int *r = atlas[t.region];
    /* The inverse of texture_atlas_uv. */
    t.around = shape_clamp01((t.x - r[0] - ATLAS_MARGIN) / (r[2] - 2 * ATLAS_MARGIN));
    t.along = 1.0 - shape_clamp01((t.y - r[1] - ATLAS_MARGIN) / (r[3] - 2 * ATLAS_MARGIN));
    t.pixel = 1.0 / (r[2] - 2 * ATLAS_MARGIN);
    return t;
}

/* ---- Height and shine, for the maps ---------------------------------------------------------------- */

/* A groove `width` pixels wide centred on distance 0: 1 at its bottom, 0 beyond. */
static double groove(double distance, double width)
{
    double d = fabs(distance) / (0.5 * width);
    return d >= 1.0 ? 0.0 : 1.0 - smooth(d);
}

/* The mannequin's surface, in pixels of height: the grain's fibres raised a little between its dark
 * lines, seams cut round each limb and the torso near the ends where they meet their joints, the face and
 * the chest mark engraved. */
static double height_mannequin(const texel *t)
{
    double wobble = value_noise(t->x, t->y, 24.0, 11u) * 3.0;
    double stripes = t->around * 14.0 + wobble;
    double grain = fabs(stripes - floor(stripes) - 0.5) * 2.0;
    double h = 0.35 * (1.0 - grain * grain * grain) + 0.15 * value_noise(t->x, t->y, 4.0, 12u);
    double along_pixels = 1.0 / t->pixel; /* the region's length in pixels, about */
    switch (t->region) {
    case TEXTURE_REGION_ARM:
    case TEXTURE_REGION_LEG:
    case TEXTURE_REGION_TORSO:
    case TEXTURE_REGION_NECK:
        /* The seams: a ring cut round the part, 6% of its length from either end. */
        h -= 1.6 * (groove((t->along - 0.06) * along_pixels, 3.0) + groove((t->along - 0.94) * along_pixels, 3.0));
        break;
    case TEXTURE_REGION_JOINT:
        /* The ball joints: a seam round their middle. */
        h -= 1.4 * groove((t->along - 0.5) * along_pixels, 3.0);
        break;
    case TEXTURE_REGION_HEAD: {
        double eye = in_ellipse(t->around, t->along, 0.13, 0.56, 0.045, 0.055, t->pixel);
        double mouth = in_ellipse(t->around, t->along, 0.0, 0.30, 0.07, 0.012, t->pixel);
        double brow = in_ellipse(t->around, t->along, 0.13, 0.66, 0.06, 0.012, t->pixel);
        h -= 1.2 * fmax(eye, fmax(mouth, brow));
        break;
    }
    default:
        break;
    }
    if (t->region == TEXTURE_REGION_TORSO) {
        double diamond = (t->around / 0.09 + fabs(t->along - 0.64) / 0.12);
        h -= 0.8 * shape_clamp01((1.0 - diamond) / 0.08);
    }
    return h;
}

/* The robot's plates: seams cut between the panels, rivets raised near their corners, cooling slots cut
 * across the back, the chest chevron a raised band. */
static double height_robot(const texel *t)
{
    double px = fmod(t->x, 16.0), py = fmod(t->y, 16.0);
    double h = 0.2 * value_noise(t->x, t->y, 16.0, 21u);
    /* Seams at every 16th pixel each way, two pixels wide. */
    h -= 0.9 * fmax(groove(px - 0.0, 2.0) + groove(px - 16.0, 2.0), groove(py - 0.0, 2.0) + groove(py - 16.0, 2.0));
    /* A rivet near each panel corner: a dome of radius 1.6 pixels. */
    for (int cx = 0; cx < 2; ++cx)
        for (int cy = 0; cy < 2; ++cy) {
            double dx = px - (cx ? 13.5 : 3.5), dy = py - (cy ? 13.5 : 3.5);
            double r2 = (dx * dx + dy * dy) / (1.6 * 1.6);
            if (r2 < 1.0)
                h += 0.8 * sqrt(1.0 - r2);
        }
    if (t->region == TEXTURE_REGION_TORSO) {
        double chevron = t->along - 0.55 - t->around * 0.9;
        if (t->around < 0.28 && chevron > 0.0 && chevron < 0.07)
            h += 0.8;
        if (t->around > 0.68 && t->along > 0.35 && t->along < 0.85 && fmod(t->along * 16.0, 1.0) < 0.4)
            h -= 1.5; /* cooling slots */
    }
    if (t->region == TEXTURE_REGION_HEAD && t->around > 0.65 && fmod(t->along * 10.0, 1.0) < 0.45)
        h -= 1.2;
    return h;
}

/* How strongly a texel reflects the highlight, 0..255. */
static double shine_mannequin(const texel *t)
{
    double wobble = value_noise(t->x, t->y, 24.0, 11u) * 3.0;
    double stripes = t->around * 14.0 + wobble;
    double grain = fabs(stripes - floor(stripes) - 0.5) * 2.0;
    double s = 70.0 - 30.0 * grain * grain * grain; /* varnish sits on the fibres, less in the dark lines */
    return t->region == TEXTURE_REGION_JOINT ? s * 0.7 : s;
}

static double shine_robot(const texel *t)
{
    color c = paint_robot(t);
    double luminance = 0.3 * c.r + 0.59 * c.g + 0.11 * c.b;
    if (t->region == TEXTURE_REGION_VISOR)
        return 200.0;
    if (t->region == TEXTURE_REGION_FOOT && t->around > 0.75)
        return 20.0; /* rubber */
    /* Metal bright, seams and dark paint dull, the orange paint in between. */
    return shape_clamp01((luminance - 50.0) / 110.0) * 120.0 + 25.0;
}

/* ---- Writing --------------------------------------------------------------------------------------- */

typedef enum texture_layer { LAYER_COLOR, LAYER_NORMAL, LAYER_SPECULAR } texture_layer;

static bool write_tga(FILE *out, const unsigned char *pixels)
{
    size_t row_bytes = (size_t)TEXTURE_SIZE * 3;
    unsigned char header[TEXTURE_TGA_HEADER_BYTES] = {0};
    header[2] = 2; /* uncompressed true colour */
    header[12] = TEXTURE_SIZE & 0xff;
    header[13] = TEXTURE_SIZE >> 8;
    header[14] = TEXTURE_SIZE & 0xff;
    header[15] = TEXTURE_SIZE >> 8;
    header[16] = 24; /* bits per pixel */
    header[17] = 0;  /* no alpha, origin at the bottom left */
    return fwrite(header, 1, sizeof header, out) == sizeof header &&
           fwrite(pixels, 1, row_bytes * TEXTURE_SIZE, out) == row_bytes * TEXTURE_SIZE;
}

/* The height of pixel (x, y) for the normal map's slopes, read within the pixel's own region (at a region's
 * edge the slope is one-sided: a neighbour region is another part of the body). */
static double height_in_region(const double *heights, int x, int y, texture_region region)
{
    x = x < 0 ? 0 : x >= TEXTURE_SIZE ? TEXTURE_SIZE - 1 : x;
    y = y < 0 ? 0 : y >= TEXTURE_SIZE ? TEXTURE_SIZE - 1 : y;
    return region_at(x, y) == region ? heights[y * TEXTURE_SIZE + x] : NAN;
}

static bool write_layer(FILE *out, body_kind kind, texture_layer layer)
{
    if (!out || (kind != BODY_MANNEQUIN && kind != BODY_ROBOT))
        return false;
    size_t row_bytes = (size_t)TEXTURE_SIZE * 3;
    unsigned char *pixels = malloc(row_bytes * TEXTURE_SIZE);
    double *heights = layer == LAYER_NORMAL ? malloc(sizeof(double) * TEXTURE_SIZE * TEXTURE_SIZE) : NULL;
    if (!pixels || (layer == LAYER_NORMAL && !heights)) {
        free(pixels);
        free(heights);
        return false;
    }
    for (int y = 0; heights && y < TEXTURE_SIZE; ++y)
        for (int x = 0; x < TEXTURE_SIZE; ++x) {
            texel t = texel_at(x, y);
            heights[y * TEXTURE_SIZE + x] = kind == BODY_MANNEQUIN ? height_mannequin(&t) : height_robot(&t);
        }
    for (int y = 0; y < TEXTURE_SIZE; ++y) {
        for (int x = 0; x < TEXTURE_SIZE; ++x) {
            texel t = texel_at(x, y);
            color c;
            if (layer == LAYER_COLOR) {
                c = kind == BODY_MANNEQUIN ? paint_mannequin(&t) : paint_robot(&t);
            } else if (layer == LAYER_SPECULAR) {
                double s = kind == BODY_MANNEQUIN ? shine_mannequin(&t) : shine_robot(&t);
                c = (color){s, s, s};
            } else {
                /* Slopes by central differences (one-sided at a region's edge), a pixel of height a pixel of
                 * run; x along s (right), y along t (down the image). */
                double here = heights[y * TEXTURE_SIZE + x];
                double left = height_in_region(heights, x - 1, y, t.region);
                double right = height_in_region(heights, x + 1, y, t.region);
                double up = height_in_region(heights, x, y - 1, t.region);
                double down = height_in_region(heights, x, y + 1, t.region);
                double ds = isnan(left) ? (isnan(right) ? 0.0 : right - here)
                            : isnan(right) ? here - left : 0.5 * (right - left);
                double dt = isnan(up) ? (isnan(down) ? 0.0 : down - here) : isnan(down) ? here - up : 0.5 * (down - up);
                double n[3] = {-ds, -dt, 1.0};
                double length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                c = (color){128.0 + 127.0 * n[0] / length, 128.0 + 127.0 * n[1] / length, 128.0 + 127.0 * n[2] / length};
            }
            /* TGA stores blue, green, red, and the bottom row first. */
            unsigned char *p = pixels + (size_t)(TEXTURE_SIZE - 1 - y) * row_bytes + (size_t)x * 3;
            p[0] = to_byte(c.b);
            p[1] = to_byte(c.g);
            p[2] = to_byte(c.r);
        }
    }
    bool ok = write_tga(out, pixels);
    free(pixels);
    free(heights);
    return ok;
}

bool texture_write_tga(FILE *out, body_kind kind)
{
    return write_layer(out, kind, LAYER_COLOR);
}

bool texture_write_normal_tga(FILE *out, body_kind kind)
{
    return write_layer(out, kind, LAYER_NORMAL);
}

bool texture_write_specular_tga(FILE *out, body_kind kind)
{
    return write_layer(out, kind, LAYER_SPECULAR);
}
