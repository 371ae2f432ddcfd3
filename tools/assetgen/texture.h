/* texture: the bodies' textures, generated and written as uncompressed 24-bit TGA, and the atlas layout
 * the bodies' UVs point into. Each texture shows which way the character faces: a face or visor and a
 * chest mark on the front (+X), a different pattern on the back. Deterministic: procedural noise comes
 * from an integer hash, never from rand(). Knows nothing of meshes beyond the atlas regions. */
#ifndef MARIONETTE_ASSETGEN_TEXTURE_H
#define MARIONETTE_ASSETGEN_TEXTURE_H

#include <stdbool.h>
#include <stdio.h>

#include "body.h"

enum { TEXTURE_SIZE = 256, TEXTURE_TGA_HEADER_BYTES = 18 };

/* One rectangle of the atlas per kind of part; both bodies use the same layout. */
typedef enum texture_region {
    TEXTURE_REGION_HEAD,
    TEXTURE_REGION_VISOR,
    TEXTURE_REGION_NECK,
    TEXTURE_REGION_TORSO,
    TEXTURE_REGION_PELVIS,
    TEXTURE_REGION_BACKPACK,
    TEXTURE_REGION_ARM,
    TEXTURE_REGION_HAND,
    TEXTURE_REGION_LEG,
    TEXTURE_REGION_FOOT,
    TEXTURE_REGION_JOINT, /* ball joints, shoulder armour, knee pads */
    TEXTURE_REGION_COUNT
} texture_region;

/* Where a point of a part lands in the atlas. Parts are surfaces of revolution around an axis:
 * `around` is the angle from the part's facing line divided by pi, 0 on the facing line (the front of
 * the head and torso) and 1 on the opposite side, the same for both halves, so the texture is mirrored
 * left to right and has no seam. `along` is 0 at the start of the axis and 1 at its end; the start is
 * drawn at the bottom of the region. uv[0] (s) runs right, uv[1] (t) runs down from the image's top row,
 * as Doom 3 maps textures. */
void texture_atlas_uv(texture_region region, double around, double along, double uv[2]);

/* Write the texture of `kind`: TEXTURE_SIZE x TEXTURE_SIZE pixels, 24-bit BGR, rows stored bottom-up
 * (TGA's default origin), so image row y from the top is file row TEXTURE_SIZE - 1 - y. */
bool texture_write_tga(FILE *out, body_kind kind);

/* Its maps, the same size and layout, found beside it by their names (NAME_local.tga, NAME_s.tga). The normal
 * map in tangent space, from a generated height field (the mannequin: wood grain, the seams where its parts
 * meet their joints, the engraved face and chest mark; the robot: panel lines, rivets, cooling slots, the
 * chevron's raised edge): red along the direction the texture's s (u) grows, green along the direction t (v)
 * grows, which is down the image, blue out of the surface, each as 128 + 127 x the component. The specular
 * map: how strongly each texel reflects the highlight, grey (the mannequin's varnished wood dull, its joints
 * duller; the robot's metal bright, its seams and rubber dark, the visor's glass brightest). */
bool texture_write_normal_tga(FILE *out, body_kind kind);
bool texture_write_specular_tga(FILE *out, body_kind kind);

#endif
