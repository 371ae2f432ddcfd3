/* body: both characters are built from "parts", closed surfaces of revolution around a straight axis
 * (rings of vertices whose size follows a profile, closed by one vertex at each end), so every part is
 * watertight by construction and its normals point outward by construction. Skinning weights do not
 * belong to parts but to "chains": a straight line through a run of joints (shoulder to fingertips, hips
 * to head, ...). A vertex's weights depend only on where it projects onto its chain, with a smoothstep
 * blend zone around each joint, so every part on a limb (tube, ball joint, armour) bends the same way.
 * Where a limb meets the torso (shoulders, hips) the two chains' weights blend by distance from the
 * limb's first joint: 3 or 4 weights there (see "attachments"), 1 or 2 elsewhere.
 * Everything is computed in double and printed with 6 decimals, so the output is the same on every
 * machine that rounds IEEE doubles the same way (no fused multiply-add: the build is strict C11). */
#include "body.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "md5_text.h"
#include "rig.h"
#include "shape_math.h"
#include "texture.h"

enum {
    MAX_INFLUENCES = 4,        /* what the engine skins with; more would be cut with a warning */
    BIAS_UNITS = 1000000,      /* biases are millionths, written with 6 decimals: sums are exact in these units */
    MAX_PROFILE_KEYS = 8,
    MAX_CHAIN_JOINTS = 6,
    MAX_SEGMENTS = 32,
    MAX_RINGS = 64,
};

/* ---- Chains: where the weights come from ---------------------------------------------------------- */

typedef enum chain_id { CHAIN_TORSO, CHAIN_ARM, CHAIN_THUMB, CHAIN_LEG, CHAIN_FOOT, CHAIN_COUNT } chain_id;

/* A run of joints along a straight line from `origin` toward `toward`. Joint k (k >= 1) takes over from
 * joint k - 1 where the line passes joint k, blending over `blend` metres on each side of it; joint 0
 * owns everything before joint 1. The tables name left-side joints; the right side is mirrored. */
typedef struct chain {
    int origin, toward;
    int joints[MAX_CHAIN_JOINTS];
    double blend[MAX_CHAIN_JOINTS];
    int joint_count;
} chain;

/* Blend half-widths: wide at the big joints (hips, knees, elbows, shoulders), where a wide zone spreads
 * the bend over several rings instead of folding one, narrow at the short finger and toe bones. */
static const chain chains[CHAIN_COUNT] = {
    [CHAIN_TORSO] = {RIG_ROOT, RIG_HIPS,
                     {RIG_HIPS, RIG_SPINE_1, RIG_SPINE_2, RIG_SPINE_3, RIG_NECK, RIG_HEAD},
                     {0.0, 0.05, 0.06, 0.06, 0.05, 0.04}, 6},
    [CHAIN_ARM] = {RIG_UPPERARM_L, RIG_FOREARM_L,
                   {RIG_CLAVICLE_L, RIG_UPPERARM_L, RIG_FOREARM_L, RIG_HAND_L, RIG_FINGERS_1_L, RIG_FINGERS_2_L},
                   {0.0, 0.06, 0.07, 0.04, 0.02, 0.015}, 6},
    [CHAIN_THUMB] = {RIG_THUMB_1_L, RIG_THUMB_2_L,
                     {RIG_HAND_L, RIG_THUMB_1_L, RIG_THUMB_2_L},
                     {0.0, 0.012, 0.012}, 3},
    [CHAIN_LEG] = {RIG_THIGH_L, RIG_SHIN_L,
                   {RIG_HIPS, RIG_THIGH_L, RIG_SHIN_L, RIG_FOOT_L},
                   {0.0, 0.07, 0.08, 0.04}, 4},
    [CHAIN_FOOT] = {RIG_FOOT_L, RIG_TOE_L, {RIG_FOOT_L, RIG_TOE_L}, {0.0, 0.025}, 2},
};

static int chain_joint(int joint, bool right)
{
    return right ? rig_mirror(joint) : joint;
}

static const double *joint_position(int joint)
{
    return rig_joints[joint].position;
}

/* Unit direction of a chain's line. */
static void chain_direction(const chain *c, bool right, double out[3])
{
    const double *from = joint_position(chain_joint(c->origin, right));
    const double *to = joint_position(chain_joint(c->toward, right));
    for (int k = 0; k < 3; ++k)
        out[k] = to[k] - from[k];
    shape_normalize(out, shape_axis_z, out);
}

/* Where a point projects onto a chain's line, in metres from its origin. */
static double chain_distance(const chain *c, bool right, const double direction[3], const double point[3])
{
    const double *origin = joint_position(chain_joint(c->origin, right));
    double offset[3] = {point[0] - origin[0], point[1] - origin[1], point[2] - origin[2]};
    return shape_dot(offset, direction);
}

/* ---- The mesh being built -------------------------------------------------------------------------- */

typedef struct body_vertex {
    double position[3];
    double uv[2];
    int joints[MAX_INFLUENCES];
    int biases[MAX_INFLUENCES]; /* in millionths; they sum to exactly BIAS_UNITS */
    int influence_count;
} body_vertex;

typedef struct mesh_builder {
    body_vertex *vertices;
    int vertex_count, vertex_capacity;
    int (*triangles)[3]; /* in file order: clockwise seen from outside */
    int triangle_count, triangle_capacity;
    bool failed; /* out of memory, or a part too big for the fixed-size ring tables */
} mesh_builder;

/* Room for `needed` items in a growing array: returns the (maybe moved) array, or NULL when out of
 * memory (the old array is then still valid and still owned by the caller). */
static void *grow(void *items, int *capacity, int needed, size_t item_size)
{
    if (needed <= *capacity)
        return items;
    int wanted = *capacity ? *capacity * 2 : 1024;
    while (wanted < needed)
        wanted *= 2;
    void *grown = realloc(items, (size_t)wanted * item_size);
    if (grown)
        *capacity = wanted;
    return grown;
}

/* Each joint's share of a vertex on chain `id`: "past joint k's takeover" minus "past joint k+1's", a
 * partition of one, added times `scale` into shares[] (indexed by rig joint). */
static void add_chain_shares(const double position[3], chain_id id, bool right, double scale,
                             double shares[RIG_JOINT_COUNT])
{
    const chain *c = &chains[id];
    double direction[3];
    chain_direction(c, right, direction);
    double along = chain_distance(c, right, direction, position);
    double past[MAX_CHAIN_JOINTS + 1];
    past[0] = 1.0;
    for (int k = 1; k < c->joint_count; ++k) {
        double at = chain_distance(c, right, direction, joint_position(chain_joint(c->joints[k], right)));
        past[k] = shape_smoothstep(at - c->blend[k], at + c->blend[k], along);
    }
    past[c->joint_count] = 0.0;
    for (int k = 0; k < c->joint_count; ++k)
        shares[chain_joint(c->joints[k], right)] += scale * (past[k] - past[k + 1]);
}

/* Where a limb meets the torso. A chain alone blends along one line, so the skin around a shoulder or a
 * hip followed either the torso or the limb: the chest beside the shoulder stayed put while the arm
 * swung, and the crotch followed neither thigh. Around the limb's first joint both sides blend instead:
 * a vertex there takes a share of the other chain's weights (evaluated at the same point), half at the
 * joint itself, falling off smoothly to none at `radius`. That gives the shoulder clavicle, upper arm,
 * spine.03 (and the neck at its top): 3 or 4 weights; the crotch hips and both thighs. Given for the
 * left side; the right is mirrored. */
typedef struct attachment {
    int joint;
    chain_id limb;
    double radius;
} attachment;

static const attachment attachments[] = {
    {RIG_UPPERARM_L, CHAIN_ARM, 0.11},
    {RIG_THIGH_L, CHAIN_LEG, 0.15},
};
enum { ATTACHMENT_COUNT = sizeof attachments / sizeof attachments[0] };

/* The other chain's share at `position` for attachment a on one side, for a vertex weighted on
 * (own, own_right); 0 when the vertex belongs to neither of the attachment's chains. */
static double attachment_share(const attachment *a, bool side_right, const double position[3], chain_id own,
                               bool own_right)
{
    bool on_torso = own == CHAIN_TORSO, on_limb = own == a->limb && own_right == side_right;
    if (!on_torso && !on_limb)
        return 0.0;
    const double *centre = joint_position(chain_joint(a->joint, side_right));
    double offset[3] = {position[0] - centre[0], position[1] - centre[1], position[2] - centre[2]};
    return 0.5 * (1.0 - shape_smoothstep(0.0, a->radius, shape_length(offset)));
}

/* The vertex's weights: its chain's shares, blended with the torso's or a limb's near an attachment,
 * cut to the MAX_INFLUENCES largest and written as biases in millionths that sum to exactly BIAS_UNITS,
 * so the file's biases sum to 1 as written. */
static void assign_weights(body_vertex *v, chain_id id, bool right)
{
    double shares[RIG_JOINT_COUNT] = {0.0};
    double others[2 * ATTACHMENT_COUNT];
    double given = 0.0; /* the share that goes to other chains: at most a half at each attachment */
    for (int i = 0; i < 2 * ATTACHMENT_COUNT; ++i) {
        others[i] = attachment_share(&attachments[i / 2], i % 2 == 1, v->position, id, right);
        given += others[i];
    }
    double keep = 1.0;
    if (given > 0.5) { /* between two attachments (the crotch): the own chain keeps half */
        for (int i = 0; i < 2 * ATTACHMENT_COUNT; ++i)
            others[i] *= 0.5 / given;
        given = 0.5;
    }
    keep -= given;
    add_chain_shares(v->position, id, right, keep, shares);
    for (int i = 0; i < 2 * ATTACHMENT_COUNT; ++i) {
        if (!(others[i] > 0.0))
            continue;
        const attachment *a = &attachments[i / 2];
        if (id == CHAIN_TORSO)
            add_chain_shares(v->position, a->limb, i % 2 == 1, others[i], shares);
        else
            add_chain_shares(v->position, CHAIN_TORSO, false, others[i], shares);
    }

    /* The largest shares (the first joint among equals). What is cut, if anything, is shared out over
     * the rest in proportion. */
    bool chosen[RIG_JOINT_COUNT] = {false};
    int chosen_count = 0;
    double chosen_total = 0.0;
    for (; chosen_count < MAX_INFLUENCES; ++chosen_count) {
        int best = -1;
        for (int j = 0; j < RIG_JOINT_COUNT; ++j)
            if (!chosen[j] && shares[j] * BIAS_UNITS >= 0.5 && (best < 0 || shares[j] > shares[best]))
                best = j;
        if (best < 0)
            break;
        chosen[best] = true;
        chosen_total += shares[best];
    }
    bool cut = false;
    for (int j = 0; j < RIG_JOINT_COUNT; ++j)
        cut = cut || (!chosen[j] && shares[j] * BIAS_UNITS >= 0.5);
    double scale = cut ? 1.0 / chosen_total : 1.0;

    /* Written in joint order, as the chains list them. */
    v->influence_count = 0;
    int largest = 0, total = 0;
    for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
        if (!chosen[j])
            continue;
        int units = (int)floor(shares[j] * scale * BIAS_UNITS + 0.5);
        if (units <= 0)
            continue;
        int slot = v->influence_count++;
        v->joints[slot] = j;
        v->biases[slot] = units;
        total += units;
        if (units > v->biases[largest])
            largest = slot;
    }
    /* Rounding leaves a few millionths over or under: the largest share absorbs them. */
    v->biases[largest] += BIAS_UNITS - total;
}

static int add_vertex(mesh_builder *mesh, const double position[3], double around, double along,
                      texture_region region, chain_id id, bool right)
{
    body_vertex *vertices = grow(mesh->vertices, &mesh->vertex_capacity, mesh->vertex_count + 1, sizeof *vertices);
    if (!vertices) {
        mesh->failed = true;
        return 0;
    }
    mesh->vertices = vertices;
    body_vertex *v = &mesh->vertices[mesh->vertex_count];
    memset(v, 0, sizeof *v);
    for (int k = 0; k < 3; ++k)
        v->position[k] = position[k];
    /* The sole is the floor: anything below it is pressed flat onto it. */
    if (v->position[2] < 0.0)
        v->position[2] = 0.0;
    texture_atlas_uv(region, around, along, v->uv);
    assign_weights(v, id, right);
    return mesh->vertex_count++;
}

/* a, b, c counter-clockwise seen from outside; MD5 files list triangles the other way round. */
static void add_triangle(mesh_builder *mesh, int a, int b, int c)
{
    int(*triangles)[3] = grow(mesh->triangles, &mesh->triangle_capacity, mesh->triangle_count + 1, sizeof *triangles);
    if (!triangles) {
        mesh->failed = true;
        return;
    }
    mesh->triangles = triangles;
    int *t = mesh->triangles[mesh->triangle_count++];
    t[0] = a;
    t[1] = c;
    t[2] = b;
}

/* ---- Parts ----------------------------------------------------------------------------------------- */

/* The cross-section at `along` metres from the part's start: half its extent along `side` and along
 * `facing`, and how far its centre is pushed along `facing` (a chest forward, a calf backward). */
typedef struct profile_key {
    double along, half_side, half_facing, lift;
} profile_key;

/* Where a part sits: the straight axis start -> end, the two directions across it, and the chain that
 * weights it. Given for the left side or the middle; limbs are mirrored to the right by
 * add_mirrored_part. The *_line helpers below build the usual ones. */
typedef struct part_line {
    double start[3], end[3];
    double facing[3]; /* across the axis: the texture's mirror line (the front, for most parts) */
    double side[3];   /* across the axis and facing */
    chain_id chain;
} part_line;

/* A closed surface around its line. Cross-sections are ellipses (squareness 0) that turn into rounded
 * rectangles as squareness goes toward 1. The ends are rounded over start_cap and end_cap metres (half
 * the length each gives an ellipsoid) and closed by a single vertex. Written as a designated
 * initializer in which zero means the default (with_defaults): the profile ends at the first key of
 * zero size; end_cap 0 is start_cap; cap_rings 0 is 2; segments 0 is 12. body_rings has no default. */
typedef struct part {
    part_line line;
    profile_key keys[MAX_PROFILE_KEYS];
    double squareness;
    double start_cap, end_cap;
    int cap_rings;  /* rings in each rounded end, besides the pole */
    int body_rings; /* evenly spaced rings between the rounded ends */
    int segments;   /* vertices per ring; a multiple of 8 puts one on each corner of a square section */
    texture_region region;
} part;

enum { DEFAULT_CAP_RINGS = 2, DEFAULT_SEGMENTS = 12 };

static part with_defaults(const part *description)
{
    part p = *description;
    if (p.end_cap == 0.0)
        p.end_cap = p.start_cap;
    if (p.cap_rings == 0)
        p.cap_rings = DEFAULT_CAP_RINGS;
    if (p.segments == 0)
        p.segments = DEFAULT_SEGMENTS;
    return p;
}

static int profile_key_count(const part *p)
{
    int count = 0;
    while (count < MAX_PROFILE_KEYS && p->keys[count].half_side > 0.0)
        ++count;
    return count;
}

/* start -> end, not normalized. */
static void line_vector(const part_line *line, double out[3])
{
    for (int k = 0; k < 3; ++k)
        out[k] = line->end[k] - line->start[k];
}

static profile_key profile_at(const part *p, double along)
{
    int key_count = profile_key_count(p);
    if (along <= p->keys[0].along)
        return p->keys[0];
    for (int k = 1; k < key_count; ++k) {
        const profile_key *a = &p->keys[k - 1], *b = &p->keys[k];
        if (along <= b->along) {
            /* Smoothstep, not linear: the outline has no kinks at the keys, so smooth shading stays smooth. */
            double t = shape_smoothstep(a->along, b->along, along);
            return (profile_key){along, a->half_side + (b->half_side - a->half_side) * t,
                                 a->half_facing + (b->half_facing - a->half_facing) * t,
                                 a->lift + (b->lift - a->lift) * t};
        }
    }
    return p->keys[key_count - 1];
}

/* A part that runs along its chain (a limb tube) gets a ring exactly through each joint it bends at: the
 * nearest evenly spaced ring moves onto the joint, at most half a spacing, so the order is kept. That
 * ring is the one a bend squeezes most; with it in place the cross-section there stays round. The first
 * and last body rings stay where they are: the rounded ends start there. */
static void snap_rings_to_joints(const part *p, bool right, double *body_along)
{
    const chain *c = &chains[p->line.chain];
    double axis[3];
    line_vector(&p->line, axis);
    shape_normalize(axis, shape_axis_z, axis);
    double direction[3];
    chain_direction(c, right, direction);
    if (p->body_rings < 3 || fabs(shape_dot(axis, direction)) < 0.99)
        return;
    double spacing = body_along[1] - body_along[0];
    for (int k = 1; k < c->joint_count; ++k) {
        const double *joint = joint_position(chain_joint(c->joints[k], right));
        double offset[3] = {joint[0] - p->line.start[0], joint[1] - p->line.start[1], joint[2] - p->line.start[2]};
        double at = shape_dot(offset, axis);
        int nearest = (int)floor((at - body_along[0]) / spacing + 0.5);
        if (nearest >= 1 && nearest <= p->body_rings - 2)
            body_along[nearest] = at;
    }
}

/* Where each ring sits along the axis and how much of the profile it keeps (less than 1 in the rounded
 * ends: cos of the angle on a quarter ellipse). Returns the ring count. */
static int ring_stations(const part *p, bool right, double length, double along[MAX_RINGS], double scale[MAX_RINGS])
{
    int count = 0;
    for (int j = p->cap_rings; j >= 1; --j) {
        double angle = j * (SHAPE_PI / 2.0) / (p->cap_rings + 1);
        along[count] = p->start_cap * (1.0 - sin(angle));
        scale[count++] = cos(angle);
    }
    double body_length = length - p->start_cap - p->end_cap;
    for (int i = 0; i < p->body_rings; ++i) {
        along[count] = p->start_cap + (p->body_rings > 1 ? body_length * i / (p->body_rings - 1) : 0.0);
        scale[count++] = 1.0;
    }
    snap_rings_to_joints(p, right, along + count - p->body_rings);
    for (int j = 1; j <= p->cap_rings; ++j) {
        double angle = j * (SHAPE_PI / 2.0) / (p->cap_rings + 1);
        along[count] = length - p->end_cap * (1.0 - sin(angle));
        scale[count++] = cos(angle);
    }
    return count;
}

static void point_on_part(const part *p, const double axis[3], double along, double lift, double across_facing,
                          double across_side, double out[3])
{
    for (int k = 0; k < 3; ++k)
        out[k] = p->line.start[k] + axis[k] * along + p->line.facing[k] * (lift + across_facing) +
                 p->line.side[k] * across_side;
}

/* Append one part: a pole, the rings, a pole; two triangles between neighbouring rings for each segment
 * and a fan at each pole. `right` picks the right-side chain for the weights. */
static void add_part(mesh_builder *mesh, const part *description, bool right)
{
    part resolved = with_defaults(description);
    const part *p = &resolved;
    if (profile_key_count(p) < 1 || p->segments < 3 || p->segments > MAX_SEGMENTS ||
        p->body_rings < 1 || p->cap_rings < 0 || 2 * p->cap_rings + p->body_rings > MAX_RINGS) {
        mesh->failed = true;
        return;
    }
    double axis[3];
    line_vector(&p->line, axis);
    double length = shape_length(axis);
    shape_normalize(axis, shape_axis_z, axis);
    double along[MAX_RINGS], scale[MAX_RINGS];
    int ring_count = ring_stations(p, right, length, along, scale);
    int segments = p->segments;

    /* One unit cross-section shared by every ring: a circle pulled toward its bounding square. */
    double facing_unit[MAX_SEGMENTS], side_unit[MAX_SEGMENTS], around[MAX_SEGMENTS];
    for (int s = 0; s < segments; ++s) {
        double angle = 2.0 * SHAPE_PI * s / segments;
        double c = cos(angle), d = sin(angle);
        double on_square = 1.0 / fmax(fabs(c), fabs(d));
        facing_unit[s] = c * (1.0 - p->squareness + p->squareness * on_square);
        side_unit[s] = d * (1.0 - p->squareness + p->squareness * on_square);
        around[s] = 2.0 * (s <= segments / 2 ? s : segments - s) / segments;
    }

    double pole_position[3];
    profile_key start_profile = profile_at(p, 0.0);
    point_on_part(p, axis, 0.0, start_profile.lift, 0.0, 0.0, pole_position);
    int first_pole = add_vertex(mesh, pole_position, 0.5, 0.0, p->region, p->line.chain, right);

    int first_ring = mesh->vertex_count;
    for (int r = 0; r < ring_count; ++r) {
        profile_key section = profile_at(p, along[r]);
        for (int s = 0; s < segments; ++s) {
            double position[3];
            point_on_part(p, axis, along[r], section.lift, scale[r] * section.half_facing * facing_unit[s],
                          scale[r] * section.half_side * side_unit[s], position);
            add_vertex(mesh, position, around[s], along[r] / length, p->region, p->line.chain, right);
        }
    }
    profile_key end_profile = profile_at(p, length);
    point_on_part(p, axis, length, end_profile.lift, 0.0, 0.0, pole_position);
    int last_pole = add_vertex(mesh, pole_position, 0.5, 1.0, p->region, p->line.chain, right);

    /* Rings run counter-clockwise around the axis when facing x side points along it; otherwise (a
     * mirrored part) every triangle is listed the other way round to keep it facing out. */
    double turn[3];
    shape_cross(p->line.facing, p->line.side, turn);
    bool counter_clockwise = shape_dot(turn, axis) > 0.0;
    for (int s = 0; s < segments; ++s) {
        int next = (s + 1) % segments;
        int here_index = counter_clockwise ? s : next, next_index = counter_clockwise ? next : s;
        add_triangle(mesh, first_pole, first_ring + next_index, first_ring + here_index);
        for (int r = 0; r + 1 < ring_count; ++r) {
            int a = first_ring + r * segments + here_index, b = first_ring + r * segments + next_index;
            int c = a + segments, d = b + segments;
            add_triangle(mesh, a, b, c);
            add_triangle(mesh, b, d, c);
        }
        int last_ring = first_ring + (ring_count - 1) * segments;
        add_triangle(mesh, last_pole, last_ring + here_index, last_ring + next_index);
    }
}

/* A part on the middle line (torso, head), weighted on the left-side joints of its chain if any. */
static void add_middle_part(mesh_builder *mesh, const part *p)
{
    add_part(mesh, p, false);
}

/* Left-side geometry as given, and its mirror image (y negated) on the right-side chain. */
static void add_mirrored_part(mesh_builder *mesh, const part *left)
{
    add_part(mesh, left, false);
    part right = *left;
    right.line.start[1] = -right.line.start[1];
    right.line.end[1] = -right.line.end[1];
    right.line.facing[1] = -right.line.facing[1];
    right.line.side[1] = -right.line.side[1];
    add_part(mesh, &right, true);
}

/* ---- The two bodies --------------------------------------------------------------------------------- */

/* Cross-section axes. Most parts face forward (+X). The left arm points down and out along (0, 1, -1);
 * its other cross-section axis, ARM_SIDE_L, is (0, 1, 1) normalized: across the arm, up and out, so a
 * hand that is wide along its facing axis spreads forward and back like a real one hanging at the side.
 * Feet face up, so their profile's lift raises the instep. */
#define FORWARD {1.0, 0.0, 0.0}
#define LEFT {0.0, 1.0, 0.0}
#define UP {0.0, 0.0, 1.0}
#define ARM_SIDE_L {0.0, 0.70710678118654752, 0.70710678118654752}

/* A vertical line on the middle, from height `bottom` to `top` at depth x, facing forward. */
static part_line middle_line(double x, double bottom, double top)
{
    return (part_line){.start = {x, 0.0, bottom}, .end = {x, 0.0, top}, .facing = FORWARD, .side = LEFT,
                       .chain = CHAIN_TORSO};
}

/* Along the left arm, from `from` to `to` metres past the shoulder joint. */
static part_line arm_line(double from, double to)
{
    part_line line = {.facing = FORWARD, .side = ARM_SIDE_L, .chain = CHAIN_ARM};
    double direction[3];
    chain_direction(&chains[CHAIN_ARM], false, direction);
    for (int k = 0; k < 3; ++k) {
        line.start[k] = joint_position(RIG_UPPERARM_L)[k] + direction[k] * from;
        line.end[k] = joint_position(RIG_UPPERARM_L)[k] + direction[k] * to;
    }
    return line;
}

/* Along the left thumb, from `before` metres behind thumb.01 to `after` past thumb.02. */
static part_line thumb_line(double before, double after)
{
    part_line line = {.facing = FORWARD, .side = ARM_SIDE_L, .chain = CHAIN_THUMB};
    double direction[3];
    chain_direction(&chains[CHAIN_THUMB], false, direction);
    for (int k = 0; k < 3; ++k) {
        line.start[k] = joint_position(RIG_THUMB_1_L)[k] - direction[k] * before;
        line.end[k] = joint_position(RIG_THUMB_2_L)[k] + direction[k] * after;
    }
    return line;
}

/* Down the left leg, from `from` to `to` metres below the hip joint. */
static part_line leg_line(double from, double to)
{
    const double *hip = joint_position(RIG_THIGH_L);
    return (part_line){.start = {hip[0], hip[1], hip[2] - from}, .end = {hip[0], hip[1], hip[2] - to},
                       .facing = FORWARD, .side = LEFT, .chain = CHAIN_LEG};
}

/* Along the left foot, from `heel` to `tip` on X, `height` above the floor. */
static part_line foot_line(double heel, double tip, double height)
{
    const double *ankle = joint_position(RIG_FOOT_L);
    return (part_line){.start = {heel, ankle[1], height}, .end = {tip, ankle[1], height}, .facing = UP,
                       .side = LEFT, .chain = CHAIN_FOOT};
}

/* The line moved `metres` forward (+X). */
static part_line shifted_forward(part_line line, double metres)
{
    line.start[0] += metres;
    line.end[0] += metres;
    return line;
}

/* The line moved `metres` along its side direction (for an arm line: up and out). */
static part_line shifted_sideways(part_line line, double metres)
{
    for (int k = 0; k < 3; ++k) {
        line.start[k] += metres * line.side[k];
        line.end[k] += metres * line.side[k];
    }
    return line;
}

/* A forward-facing line turned to face backward (-X), for parts worn on the back. */
static part_line facing_backward(part_line line)
{
    line.facing[0] = -1.0;
    return line;
}

/* A sphere of `radius` around the point `distance` along a limb part's axis, on the limb's chain: a ball
 * joint that bends exactly as the limb around it does. */
static part ball_on(const part *limb, double distance, double radius, int segments)
{
    part ball = {.line = limb->line, .keys = {{0.0, radius, radius, 0.0}}, .start_cap = radius, .end_cap = radius,
                 .cap_rings = 3, .body_rings = 1, .segments = segments, .region = TEXTURE_REGION_JOINT};
    double axis[3];
    line_vector(&limb->line, axis);
    shape_normalize(axis, shape_axis_z, axis);
    for (int k = 0; k < 3; ++k) {
        ball.line.start[k] = limb->line.start[k] + axis[k] * (distance - radius);
        ball.line.end[k] = limb->line.start[k] + axis[k] * (distance + radius);
    }
    return ball;
}

/* Keys are (distance along the part, half size along side, half size along facing, lift along facing). */
static void build_mannequin(mesh_builder *mesh)
{
    /* Head: an egg with its long, narrow end at the chin, a little deeper than wide, widest at the eyes. */
    const part head = {
        .line = middle_line(0.005, 1.585, 1.80),
        .keys = {{0.0, 0.060, 0.070, 0.006}, {0.12, 0.074, 0.088, 0.0}, {0.215, 0.072, 0.084, -0.004}},
        .start_cap = 0.12, .end_cap = 0.095, .cap_rings = 5, .body_rings = 1, .segments = 16,
        .region = TEXTURE_REGION_HEAD,
    };
    add_middle_part(mesh, &head);

    const part neck = {
        .line = middle_line(0.0, 1.44, 1.63),
        .keys = {{0.0, 0.04, 0.04, 0.0}, {0.19, 0.033, 0.036, 0.004}},
        .start_cap = 0.02, .body_rings = 5, .region = TEXTURE_REGION_NECK,
    };
    add_middle_part(mesh, &neck);

    /* Chest, waist and pelvis: three blocks, as on a wooden mannequin; the chest egg is widest at the
     * shoulders and sits a little forward. */
    const part chest = {
        .line = middle_line(0.0, 1.15, 1.52),
        .keys = {{0.0, 0.10, 0.075, 0.0}, {0.22, 0.15, 0.10, 0.012}, {0.37, 0.13, 0.085, 0.0}},
        .start_cap = 0.10, .end_cap = 0.09, .cap_rings = 3, .body_rings = 6, .segments = 16,
        .region = TEXTURE_REGION_TORSO,
    };
    add_middle_part(mesh, &chest);

    const part waist = {
        .line = middle_line(0.0, 1.0, 1.22),
        .keys = {{0.0, 0.09, 0.065, 0.0}, {0.22, 0.085, 0.065, 0.0}},
        .start_cap = 0.03, .body_rings = 4, .region = TEXTURE_REGION_PELVIS,
    };
    add_middle_part(mesh, &waist);

    const part pelvis = {
        .line = middle_line(0.0, 0.84, 1.08),
        .keys = {{0.0, 0.12, 0.08, 0.0}, {0.12, 0.155, 0.10, 0.0}, {0.24, 0.13, 0.085, 0.0}},
        .start_cap = 0.08, .end_cap = 0.06, .cap_rings = 3, .body_rings = 4, .segments = 16,
        .region = TEXTURE_REGION_PELVIS,
    };
    add_middle_part(mesh, &pelvis);

    /* Arm: one tube from inside the shoulder to the wrist, swelling in the upper arm and the forearm and
     * narrowing at the elbow; balls at the shoulder and the elbow. */
    const part arm = {
        .line = arm_line(-0.03, 0.56),
        .keys = {
            {0.0, 0.040, 0.040, 0.0}, {0.13, 0.043, 0.046, 0.0}, {0.28, 0.029, 0.031, 0.0},
            {0.33, 0.030, 0.031, 0.0}, {0.38, 0.036, 0.039, 0.0}, {0.54, 0.022, 0.026, 0.0},
            {0.59, 0.021, 0.025, 0.0},
        },
        .start_cap = 0.03, .end_cap = 0.025, .body_rings = 14, .region = TEXTURE_REGION_ARM,
    };
    add_mirrored_part(mesh, &arm);
    const part shoulder_ball = ball_on(&arm, 0.03, 0.047, 10), elbow_ball = ball_on(&arm, 0.32, 0.034, 10);
    add_mirrored_part(mesh, &shoulder_ball);
    add_mirrored_part(mesh, &elbow_ball);

    /* Hand: a mitten, wide forward and back, thin across; a thumb in front of it. */
    const part hand = {
        .line = arm_line(0.54, 0.745),
        .keys = {{0.0, 0.020, 0.030, 0.0}, {0.08, 0.018, 0.042, 0.0}, {0.2, 0.011, 0.030, 0.0}},
        .squareness = 0.2, .start_cap = 0.03, .end_cap = 0.05, .region = TEXTURE_REGION_HAND,
        .body_rings = 6, /* a ring every 2.5 cm: at least one lies between the two finger joints, 5 cm apart */
    };
    add_mirrored_part(mesh, &hand);

    const part thumb = {
        .line = thumb_line(0.01, 0.03),
        .keys = {{0.0, 0.011, 0.011, 0.0}},
        .start_cap = 0.011, .body_rings = 3, .segments = 8, .region = TEXTURE_REGION_HAND,
    };
    add_mirrored_part(mesh, &thumb);

    /* Leg: one tube from inside the pelvis to the ankle: a full thigh, a slim knee with a ball over it,
     * a calf that swells toward the back (negative lift). */
    const part leg = {
        .line = leg_line(-0.06, 0.87),
        .keys = {
            {0.0, 0.068, 0.068, 0.0}, {0.12, 0.074, 0.078, 0.0}, {0.32, 0.062, 0.066, 0.0},
            {0.46, 0.044, 0.047, 0.0}, {0.50, 0.045, 0.047, 0.0}, {0.62, 0.050, 0.056, -0.008},
            {0.86, 0.031, 0.032, 0.0}, {0.93, 0.030, 0.030, 0.0},
        },
        .start_cap = 0.04, .end_cap = 0.03, .body_rings = 15, .region = TEXTURE_REGION_LEG,
    };
    add_mirrored_part(mesh, &leg);
    const part knee_ball = ball_on(&leg, 0.48, 0.047, 10);
    add_mirrored_part(mesh, &knee_ball);

    /* Foot: a wooden wedge, heel behind the ankle, tip at the toe; its lower half is pressed flat onto
     * the floor, which makes the sole. */
    const part foot = {
        .line = foot_line(-RIG_HEEL_BACK - 0.005, RIG_TOE_TIP_FRONT, 0.045),
        .keys = {
            {0.0, 0.034, 0.050, 0.0}, {0.09, 0.040, 0.055, 0.004}, {0.19, 0.043, 0.036, -0.008},
            {0.265, 0.036, 0.028, -0.012},
        },
        .start_cap = 0.05, .cap_rings = 3, .body_rings = 5, .region = TEXTURE_REGION_FOOT,
    };
    add_mirrored_part(mesh, &foot);
}

static void build_robot(mesh_builder *mesh)
{
    /* Head: a small rounded box with a visor bar across its front. */
    const part head = {
        .line = middle_line(0.0, 1.615, 1.80),
        .keys = {{0.0, 0.070, 0.080, 0.0}, {0.185, 0.065, 0.078, 0.0}},
        .squareness = 0.7, .start_cap = 0.03, .end_cap = 0.035, .body_rings = 4, .segments = 16,
        .region = TEXTURE_REGION_HEAD,
    };
    add_middle_part(mesh, &head);

    /* The visor runs across the face, right to left; its facing stays forward, so the glowing band
     * painted along its facing line is the part that looks out. */
    const part visor = {
        .line = {.start = {0.07, -0.064, 1.705}, .end = {0.07, 0.064, 1.705},
                  .facing = FORWARD, .side = UP, .chain = CHAIN_TORSO},
        .keys = {{0.0, 0.024, 0.026, 0.0}},
        .squareness = 0.6, .start_cap = 0.015, .body_rings = 2, .segments = 8, .region = TEXTURE_REGION_VISOR,
    };
    add_middle_part(mesh, &visor);

    const part neck = {
        .line = middle_line(0.0, 1.46, 1.66),
        .keys = {{0.0, 0.058, 0.058, 0.0}},
        .squareness = 0.3, .start_cap = 0.02, .body_rings = 4, .region = TEXTURE_REGION_NECK,
    };
    add_middle_part(mesh, &neck);

    /* Torso: one armoured shell, a narrow waist under a barrel chest that is wider than the shoulder
     * joints (the arms start inside it) and pushed a little forward. */
    const part torso = {
        .line = middle_line(0.0, 0.84, 1.57),
        .keys = {
            {0.0, 0.16, 0.12, 0.0}, {0.14, 0.175, 0.125, 0.0}, {0.30, 0.14, 0.11, 0.0}, {0.50, 0.25, 0.16, 0.02},
            {0.62, 0.26, 0.15, 0.01}, {0.73, 0.19, 0.12, 0.0},
        },
        .squareness = 0.65, .start_cap = 0.05, .end_cap = 0.06, .cap_rings = 3, .body_rings = 14, .segments = 16,
        .region = TEXTURE_REGION_TORSO,
    };
    add_middle_part(mesh, &torso);

    /* Power pack on the back, facing backward: the back reads differently from the front even without
     * the texture. */
    const part pack = {
        .line = facing_backward(middle_line(-0.13, 1.10, 1.46)),
        .keys = {{0.0, 0.12, 0.07, -0.02}, {0.36, 0.14, 0.08, 0.0}},
        .squareness = 0.8, .start_cap = 0.03, .body_rings = 3, .segments = 16, .region = TEXTURE_REGION_BACKPACK,
    };
    add_middle_part(mesh, &pack);

    /* Shoulder armour: a rounded box over the shoulder joint, shifted up and out. */
    const part shoulder = {
        .line = shifted_sideways(arm_line(-0.09, 0.12), 0.035),
        .keys = {{0.0, 0.10, 0.10, 0.0}},
        .squareness = 0.5, .start_cap = 0.07, .cap_rings = 3, .body_rings = 2, .segments = 16,
        .region = TEXTURE_REGION_JOINT,
    };
    add_mirrored_part(mesh, &shoulder);

    /* Arm: thick and square, with a heavy gauntlet on the forearm. */
    const part arm = {
        .line = arm_line(-0.03, 0.56),
        .keys = {
            {0.0, 0.065, 0.065, 0.0}, {0.16, 0.068, 0.068, 0.0}, {0.27, 0.055, 0.055, 0.0},
            {0.33, 0.056, 0.056, 0.0}, {0.40, 0.080, 0.080, 0.0}, {0.53, 0.074, 0.074, 0.0},
            {0.59, 0.050, 0.050, 0.0},
        },
        .squareness = 0.6, .start_cap = 0.03, .end_cap = 0.02, .body_rings = 16, .region = TEXTURE_REGION_ARM,
    };
    add_mirrored_part(mesh, &arm);

    const part hand = {
        .line = arm_line(0.54, 0.75),
        .keys = {{0.0, 0.035, 0.045, 0.0}, {0.10, 0.036, 0.052, 0.0}, {0.2, 0.030, 0.045, 0.0}},
        .squareness = 0.7, .start_cap = 0.02, .end_cap = 0.03, .region = TEXTURE_REGION_HAND,
        .body_rings = 8, /* rings close enough that one falls between the knuckles (see the mannequin) */
    };
    add_mirrored_part(mesh, &hand);

    /* The thumb sits 2 cm further forward than the rig's thumb line: the robot's hand is thicker. */
    const part thumb = {
        .line = shifted_forward(thumb_line(0.0, 0.035), 0.02),
        .keys = {{0.0, 0.017, 0.017, 0.0}},
        .squareness = 0.7, .start_cap = 0.01, .body_rings = 3, .segments = 8, .region = TEXTURE_REGION_HAND,
    };
    add_mirrored_part(mesh, &thumb);

    /* Leg: a massive thigh and an armoured shin, with a pad over the knee. */
    const part leg = {
        .line = leg_line(-0.08, 0.87),
        .keys = {
            {0.0, 0.095, 0.095, 0.0}, {0.20, 0.100, 0.105, 0.0}, {0.44, 0.080, 0.080, 0.0},
            {0.52, 0.078, 0.082, 0.0}, {0.62, 0.090, 0.095, 0.0}, {0.82, 0.082, 0.088, 0.0},
            {0.95, 0.062, 0.062, 0.0},
        },
        .squareness = 0.55, .start_cap = 0.04, .end_cap = 0.02, .body_rings = 18, .region = TEXTURE_REGION_LEG,
    };
    add_mirrored_part(mesh, &leg);

    const part knee = {
        .line = shifted_forward(leg_line(0.35, 0.50), 0.07),
        .keys = {{0.0, 0.06, 0.035, 0.0}},
        .squareness = 0.7, .start_cap = 0.025, .body_rings = 2, .segments = 8, .region = TEXTURE_REGION_JOINT,
    };
    add_mirrored_part(mesh, &knee);

    /* Boot: a heavy block, longer than the rig's foot, flat sole on the floor. */
    const part boot = {
        .line = foot_line(-RIG_HEEL_BACK - 0.015, RIG_TOE_TIP_FRONT + 0.01, 0.05),
        .keys = {
            {0.0, 0.060, 0.055, 0.0}, {0.10, 0.065, 0.060, 0.01}, {0.20, 0.065, 0.042, -0.01},
            {0.285, 0.060, 0.036, -0.012},
        },
        .squareness = 0.7, .start_cap = 0.03, .body_rings = 6, .region = TEXTURE_REGION_FOOT,
    };
    add_mirrored_part(mesh, &boot);
}



/* ---- Writing ---------------------------------------------------------------------------------------- */

static void write_mesh(FILE *out, const mesh_builder *mesh, const char *shader)
{
    fprintf(out, "mesh {\n\tshader \"%s\"\n\n\tnumverts %d\n", shader, mesh->vertex_count);
    int weight_index = 0;
    for (int i = 0; i < mesh->vertex_count; ++i) {
        const body_vertex *v = &mesh->vertices[i];
        fprintf(out, "\tvert %d ( ", i);
        md5_text_print_number(out, v->uv[0]);
        fputc(' ', out);
        md5_text_print_number(out, v->uv[1]);
        fprintf(out, " ) %d %d\n", weight_index, v->influence_count);
        weight_index += v->influence_count;
    }
    fprintf(out, "\n\tnumtris %d\n", mesh->triangle_count);
    for (int i = 0; i < mesh->triangle_count; ++i)
        fprintf(out, "\ttri %d %d %d %d\n", i, mesh->triangles[i][0], mesh->triangles[i][1], mesh->triangles[i][2]);
    fprintf(out, "\n\tnumweights %d\n", weight_index);
    weight_index = 0;
    for (int i = 0; i < mesh->vertex_count; ++i) {
        const body_vertex *v = &mesh->vertices[i];
        for (int w = 0; w < v->influence_count; ++w) {
            /* Bind orientations are identity, so a weight's offset in joint space is just a difference. */
            const double *joint = joint_position(v->joints[w]);
            double offset[3] = {v->position[0] - joint[0], v->position[1] - joint[1], v->position[2] - joint[2]};
            fprintf(out, "\tweight %d %d ", weight_index++, v->joints[w]);
            md5_text_print_millionths(out, v->biases[w]);
            fputc(' ', out);
            md5_text_print_vector(out, offset);
            fputc('\n', out);
        }
    }
    fputs("}\n", out);
}

const char *body_name(body_kind kind)
{
    return kind == BODY_ROBOT ? "robot" : "mannequin";
}

bool body_write_mesh(FILE *out, body_kind kind, const char *shader)
{
    if (!out || !shader || (kind != BODY_MANNEQUIN && kind != BODY_ROBOT))
        return false;
    mesh_builder mesh = {0};
    if (kind == BODY_MANNEQUIN)
        build_mannequin(&mesh);
    else
        build_robot(&mesh);
    bool ok = !mesh.failed;
    if (ok) {
        md5_text_print_header(out);
        fprintf(out, "numJoints %d\nnumMeshes 1\n\njoints {\n", RIG_JOINT_COUNT);
        for (int j = 0; j < RIG_JOINT_COUNT; ++j) {
            const rig_joint *joint = &rig_joints[j];
            fprintf(out, "\t\"%s\"\t%d ", joint->name, joint->parent);
            md5_text_print_vector(out, joint->position);
            /* Exporters name the parent in a trailing comment; the root's stays empty. */
            fprintf(out, " ( 0 0 0 )\t\t//%s%s\n", joint->parent >= 0 ? " " : "",
                    joint->parent >= 0 ? rig_joints[joint->parent].name : "");
        }
        fputs("}\n\n", out);
        write_mesh(out, &mesh, shader);
        ok = !ferror(out);
    }
    free(mesh.vertices);
    free(mesh.triangles);
    return ok;
}
