/* bench: the measuring commands behind `md5tool bench`. Each prints its figures (median of several runs)
 * and ends with one summary line; returns a process exit code. */
#ifndef MARIONETTE_BENCH_H
#define MARIONETTE_BENCH_H

#include "bench_common.h" /* the clock and median each command uses */

/* md5tool bench parse FILE...   (no files: writes and measures the synthetic workload, see synth.h)
 * Summary: "parse: 812.4 MB/s (2.47 MB, median of 15)" */
int bench_parse_main(int argc, char **argv);

/* md5tool bench pose [MESH ANIM ANIM] [--characters N] [--threads T]
 * Summary: "pose: 0.612 us/character (1000 characters, 33 joints, 2 clips, 1 thread)" */
int bench_pose_main(int argc, char **argv);

/* md5tool bench anim [MESH WALK RUN WAVE] [--characters N] [--config DIR]
 * Summary: "anim: 1.234 us/entity (1000 entities, 31 joints, 3 layers)", the same for the additive wave,
 * and "anim, 2D blend strafe: ..." for the config's strafe blend. */
int bench_anim_main(int argc, char **argv);

#endif
