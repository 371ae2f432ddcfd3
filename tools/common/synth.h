/* synth: a deterministic generator of realistic MD5 text (an .md5mesh and a matching .md5anim) for
 * benchmarks and tests. The output looks like a real exporter's: a humanoid-like hierarchy (parent < child),
 * tab-indented lines, numbers with 6 decimals, quaternions stored as the xyz of a unit quaternion whose
 * w <= 0, biases that sum to exactly 1 per vertex, every joint animated in all six components.
 * Same parameters (seed included) -> same bytes. Knows nothing of the parser or the engine's structs. */
#ifndef MARIONETTE_SYNTH_H
#define MARIONETTE_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Zero means "the default" for every count, so `(synth_params){.seed = 7}` is the standard workload. */
typedef struct synth_params {
    int joints;             /* default 33 (the first 33 form a humanoid; more hang off as extra chains) */
    int vertices;           /* default 6000, over all meshes; at least 3 when there are triangles */
    int triangles;          /* default 10000, over all meshes */
    int weights_per_vertex; /* default 4, at most the joint count */
    int frames;             /* default 300 */
    int frame_rate;         /* default 24 */
    int meshes;             /* default 1; vertices and triangles are split between them */
    bool last_frame_is_first; /* Doom 3 loop convention: the last frame repeats the first */
    uint64_t seed;          /* any value, 0 included */
} synth_params;

enum {
    SYNTH_DEFAULT_JOINTS = 33,
    SYNTH_DEFAULT_VERTICES = 6000,
    SYNTH_DEFAULT_TRIANGLES = 10000,
    SYNTH_DEFAULT_WEIGHTS_PER_VERTEX = 4,
    SYNTH_DEFAULT_FRAMES = 300,
    SYNTH_DEFAULT_FRAME_RATE = 24,
    SYNTH_DEFAULT_MESHES = 1,
};

/* params with zeros replaced by defaults and values clamped to what the generator can write (negative
 * counts become defaults, weights_per_vertex <= joints, triangles 0 when vertices < 3 per mesh). Every
 * writer below resolves its params this way; call it to know the counts a file will have. */
synth_params synth_resolve(const synth_params *params);

/* Write the text to out. Return false if a write failed (out's error flag is set). */
bool synth_write_mesh(FILE *out, const synth_params *params);
bool synth_write_anim(FILE *out, const synth_params *params);

/* The same text in a new NUL-terminated buffer (free with free()); *size excludes the NUL. NULL when
 * out of memory. */
char *synth_mesh_text(const synth_params *params, size_t *size);
char *synth_anim_text(const synth_params *params, size_t *size);

/* Write OUTDIR/synth.md5mesh and OUTDIR/synth.md5anim. On failure writes a one-line reason to
 * error (which may be NULL) and returns false. */
bool synth_write_files(const char *directory, const synth_params *params, char *error, size_t error_size);

/* The twist test limb (tests/test_limb.h's, as files anyone can skin): DIRECTORY/limb.md5mesh, a cylinder of
 * radius 0.15 along +X from x = 0 to 2, one metre up, 41 rings of 32 vertices (ring 20 at x = 1, on the
 * second joint, vertices 640 to 671), its weights moving from joint `upper` (at the origin end) to `lower`
 * (at x = 1) between x = 0.6 and 1.4 (smoothstep); and DIRECTORY/limb_twist.md5anim, `lower` twisted about
 * the limb's axis by F degrees at frame F (0 to 180, one frame a second, so --frame F and --time F agree).
 * md5tool skin --skinning linear|dq on it shows how much of the joint's cross-section each keeps
 * (scripts/skin_figures.sh). */
bool synth_write_limb(const char *directory, char *error, size_t error_size);

/* A long, low, six-legged creature (Z up, 2.5 units long along Y, 0.6 high): DIRECTORY/creature.md5mesh (a
 * body chain with a neck, head and tail, and six legs of thigh, shin and claw, no joint named foot or ankle;
 * one vertex on each joint) and DIRECTORY/creature_idle.md5anim (one frame, the bind pose). Its box is longer
 * along Y than Z: a guess from the box alone would stand it on its side. */
bool synth_write_creature(const char *directory, char *error, size_t error_size);

/* A biped whose feet follow IK targets, as some exporters rig it (Z up, facing +X, 1.8 tall, arms out to
 * the sides): DIRECTORY/ikbiped.md5mesh, each leg a thigh and a shin ending there (Femur_L, IKLeg_L), each
 * foot (Foot_L, with Toe_L) hanging from a target under a lever under the root (Main); one vertex on each
 * joint; and DIRECTORY/ikbiped_idle.md5anim (one frame, the bind pose). */
bool synth_write_ik_biped(const char *directory, char *error, size_t error_size);

#endif
