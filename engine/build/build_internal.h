/* What the files of engine/build share: reporting at a raw position the way the readers report
 * (first error wins, warnings past DIAG_LIST_KEEP only counted), and 16-byte aligned blocks.
 * Private to engine/build. */
#ifndef MARIONETTE_BUILD_INTERNAL_H
#define MARIONETTE_BUILD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/text_line.h"
#include "model/clip.h"
#include "model/model.h"
#include "raw.h"

#define BUILD_NO_POSITION SIZE_MAX /* a message not tied to a line */

typedef struct build_report {
    text_line_counter lines; /* over the source's text: line numbers for messages */
    const char *name;
    diag *err;             /* may be NULL */
    diag_list *warnings;   /* may be NULL */
} build_report;

build_report build_report_start(const raw_source *source, diag *err, diag_list *warnings);

/* Fill err at position (BUILD_NO_POSITION: line 0) and return false. */
bool build_fail(build_report *r, size_t position, const char *format, ...) __attribute__((format(printf, 3, 4)));
/* Add a warning at position. */
void build_warn(build_report *r, size_t position, const char *format, ...) __attribute__((format(printf, 3, 4)));
/* Pass on warnings a reader kept for the build step to report in reading order (raw.h). */
void build_pass_notes(build_report *r, const diag_list *notes);

/* 16-byte aligned block (joint_pose, mat4), at least 16 bytes; free with free(). */
void *build_alloc_aligned(size_t size);

/* The first child and next sibling of each joint of s (-1 ends the list), in skeleton order, into new arrays
 * (*first and *next, free both with free() whatever it returns); false when memory runs out. Walking a
 * joint's children is then as long as it has children: the retargeting's passes stay linear. */
bool build_children(const skeleton *s, int **first, int **next);

/* Copies of joint_count names (a NULL name, or names NULL, as "") and parents into c, which owns them from
 * then on (clip_free); c->bytes grows by what they take. False when memory runs out (clip_free still frees
 * what was made). The clips built from other data (additive, retargeted, retimed) share it. */
bool build_copy_hierarchy(clip *c, int joint_count, char *const *names, const int *parents);

#endif
