/* .md5anim reader: text -> raw clip with every frame decoded to local joint poses, so nothing after it
 * looks at flags or baseframes. Quirk decisions are listed in tests/test_md5_quirks.c. Loops, durations
 * and the reach check are engine/build's (build_clip). */
#include "md5.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/quat.h"
#include "md5_lexer.h"

/* Fewest bytes per item (see md5_mesh.c): a hierarchy line plus a baseframe line per joint, and per
 * frame a bounds line, "frame 0{}" and two bytes per animated component. */
enum {
    JOINT_BYTES_MIN = 7 + 14,
    FRAME_BYTES_MIN = 9,
    COMPONENT_BYTES_MIN = 2,
    BOUNDS_BYTES_MIN = 14,
    JOINT_FLAGS_ALL = 63,
};

/* The slowest rate still keeps every duration (frames / rate) a finite float: a denormal rate such as
 * 1e-44 made the loop last "inf" seconds (found by fuzz_md5anim). One frame every ~17 minutes is far
 * below anything an exporter writes. */
#define FRAME_RATE_MIN 0.001f
#define FRAME_RATE_MAX 10000.0f

/* The hierarchy and baseframe as written: what each frame's components override. */
typedef struct anim_joint {
    int flags;
    int first_component;
    float base[6]; /* position xyz, quaternion xyz */
} anim_joint;

static bool parse_hierarchy(md5_lexer *lex, raw_clip *c, anim_joint *joints, int component_count)
{
    if (!md5_lexer_expect(lex, "hierarchy", 9) || !md5_lexer_punctuation(lex, '{'))
        return false;
    const char *block = lex->cursor;
    for (int i = 0; i < c->joint_count; ++i) {
        md5_lexer_skip_space(lex);
        const char *at = lex->cursor;
        const char *name;
        size_t name_length;
        int parent, flags, first;
        if (!md5_lexer_string(lex, &name, &name_length, "a joint name") ||
            !md5_lexer_int(lex, &parent, "a parent index") || !md5_lexer_int(lex, &flags, "joint flags") ||
            !md5_lexer_int(lex, &first, "a start index"))
            return false;
        c->names[i] = md5_copy_string(name, name_length);
        if (!c->names[i])
            return md5_lexer_fail(lex, at, "out of memory");
        if (parent < -1 || parent >= c->joint_count)
            return md5_lexer_fail(lex, at, "joint %d '%s' has parent %d, out of range (numJoints %d)", i,
                                  c->names[i], parent, c->joint_count);
        if (parent >= i)
            return md5_lexer_fail(lex, at, "joint %d '%s' has parent %d: a parent must come before its child",
                                  i, c->names[i], parent);
        if (flags < 0 || flags > JOINT_FLAGS_ALL)
            return md5_lexer_fail(lex, at, "joint '%s' has flags %d: only bits 0..5 (0..63) mean something",
                                  c->names[i], flags);
        int animated = __builtin_popcount((unsigned)flags);
        if (first < 0 || (int64_t)first + animated > component_count)
            return md5_lexer_fail(lex, at,
                                  "joint '%s' reads components %d..%lld, past numAnimatedComponents %d",
                                  c->names[i], first, (long long)first + animated - 1, component_count);
        c->parents[i] = parent;
        joints[i].flags = flags;
        joints[i].first_component = first;
    }
    if (!md5_lexer_punctuation(lex, '}'))
        return false;
    int first, second;
    if (md5_find_duplicate_name(c->names, c->joint_count, &first, &second))
        md5_lexer_warn(lex, md5_lexer_nth_string(lex, block, second), "joints %d and %d are both named '%s': no skeleton with unique names will "
                       "accept this clip", first, second, c->names[first]);
    return true;
}

static bool parse_vector(md5_lexer *lex, float *v, const char *what)
{
    return md5_lexer_punctuation(lex, '(') && md5_lexer_float(lex, &v[0], what) &&
           md5_lexer_float(lex, &v[1], what) && md5_lexer_float(lex, &v[2], what) &&
           md5_lexer_punctuation(lex, ')');
}

static bool parse_bounds(md5_lexer *lex, raw_clip *c)
{
    if (!md5_lexer_expect(lex, "bounds", 6) || !md5_lexer_punctuation(lex, '{'))
        return false;
    for (int f = 0; f < c->frame_count; ++f)
        if (!parse_vector(lex, c->bounds[f][0], "a bound") || !parse_vector(lex, c->bounds[f][1], "a bound"))
            return false;
    /* Some exporters write more bounds than frames; the frames decide how long the clip is. */
    md5_lexer_skip_space(lex);
    const char *extra_at = lex->cursor;
    int extra = 0;
    for (; !lex->failed && md5_lexer_accept_punctuation(lex, '('); ++extra) {
        float ignored[3];
        lex->cursor--; /* parse_vector wants the '(' */
        if (!parse_vector(lex, ignored, "a bound") || !parse_vector(lex, ignored, "a bound"))
            return false;
    }
    if (extra > 0)
        md5_lexer_warn(lex, extra_at, "bounds has %d more lines than numFrames %d: ignored", extra, c->frame_count);
    return md5_lexer_punctuation(lex, '}');
}

static bool parse_baseframe(md5_lexer *lex, raw_clip *c, anim_joint *joints)
{
    if (!md5_lexer_expect(lex, "baseframe", 9) || !md5_lexer_punctuation(lex, '{'))
        return false;
    for (int i = 0; i < c->joint_count; ++i)
        if (!parse_vector(lex, &joints[i].base[0], "a position") ||
            !parse_vector(lex, &joints[i].base[3], "a quaternion"))
            return false;
    return md5_lexer_punctuation(lex, '}');
}

/* Count of rotations that needed renormalizing, and where the first was, for one warning per clip. */
typedef struct bad_rotations {
    int count;
    const char *first_at;
    int first_frame;
    int first_joint;
    float first_length2;
} bad_rotations;

static void bake_frame(const raw_clip *c, const anim_joint *joints, const float *components, int frame,
                        const char *frame_at, bad_rotations *bad)
{
    joint_pose *poses = &c->frames[(size_t)frame * (size_t)c->joint_count];
    for (int j = 0; j < c->joint_count; ++j) {
        float values[6];
        memcpy(values, joints[j].base, sizeof values);
        const float *source = components + joints[j].first_component;
        for (int k = 0; k < 6; ++k)
            if (joints[j].flags & (1 << k))
                values[k] = *source++;
        joint_pose *pose = &poses[j];
        memcpy(pose->position, values, 3 * sizeof(float));
        pose->unused = 0.0f;
        if (!quat_from_xyz(values[3], values[4], values[5], pose->rotation) && bad->count++ == 0) {
            bad->first_at = frame_at;
            bad->first_frame = frame;
            bad->first_joint = j;
            bad->first_length2 = values[3] * values[3] + values[4] * values[4] + values[5] * values[5];
        }
    }
}

static bool parse_frames(md5_lexer *lex, raw_clip *c, const anim_joint *joints, int component_count)
{
    float *components = malloc((component_count ? (size_t)component_count : 1) * sizeof *components);
    if (!components)
        return md5_lexer_fail(lex, lex->cursor, "out of memory for %d components", component_count);
    bad_rotations bad = {0};
    for (int f = 0; f < c->frame_count; ++f) {
        md5_lexer_skip_space(lex);
        const char *at = lex->cursor;
        c->frame_at[f] = (size_t)(at - lex->begin);
        int index;
        if (!md5_lexer_expect(lex, "frame", 5) || !md5_lexer_int(lex, &index, "a frame number"))
            break;
        if (index != f) {
            md5_lexer_fail(lex, at, "frame %d where frame %d was expected", index, f);
            break;
        }
        if (!md5_lexer_punctuation(lex, '{'))
            break;
        for (int k = 0; k < component_count; ++k)
            if (!md5_lexer_float(lex, &components[k], "a frame component"))
                break;
        if (!md5_lexer_punctuation(lex, '}'))
            break;
        bake_frame(c, joints, components, f, at, &bad);
    }
    free(components);
    if (bad.count > 0)
        md5_lexer_warn(lex, bad.first_at,
                       "%d joint rotations are not unit quaternions (first: frame %d joint '%s', |xyz|^2 = %g): "
                       "renormalized",
                       bad.count, bad.first_frame, c->names[bad.first_joint], (double)bad.first_length2);
    return !lex->failed;
}

bool md5_read_clip(const char *text, size_t size, const char *name, raw_clip *out, diag *err,
                   diag_list *warnings)
{
    *out = (raw_clip){0};
    if (!text || size == 0)
        return diag_set(err, name, 0, "empty file");
    md5_lexer lex;
    md5_lexer_init(&lex, text, size, name, err, warnings);
    if (!md5_lexer_version(&lex, ".md5anim"))
        return false;
    if (MD5_ACCEPT(&lex, "numJoints"))
        return md5_lexer_fail(&lex, lex.cursor, "not an .md5anim: 'numJoints' before 'numFrames' says .md5mesh");
    int frame_count, joint_count, component_count;
    if (!md5_lexer_count(&lex, "numFrames", 1, FRAME_BYTES_MIN, &frame_count))
        return false;
    if (MD5_ACCEPT(&lex, "frameRate"))
        return md5_lexer_fail(&lex, lex.cursor, "not an .md5anim: 'frameRate' before 'numJoints' says .md5camera");
    if (!md5_lexer_count(&lex, "numJoints", 1, JOINT_BYTES_MIN, &joint_count) || !MD5_EXPECT(&lex, "frameRate"))
        return false;
    md5_lexer_skip_space(&lex);
    const char *rate_at = lex.cursor;
    float frame_rate;
    if (!md5_lexer_float(&lex, &frame_rate, "a frame rate"))
        return false;
    if (!(frame_rate >= FRAME_RATE_MIN && frame_rate <= FRAME_RATE_MAX))
        return md5_lexer_fail(&lex, rate_at, "frameRate %g: must be at least %g and at most %g", (double)frame_rate,
                              (double)FRAME_RATE_MIN, (double)FRAME_RATE_MAX);
    if (!md5_lexer_count(&lex, "numAnimatedComponents", 0, 1, &component_count))
        return false;
    /* Now that both are known: can the frames fit in what is left? */
    size_t frame_bytes_min = (size_t)component_count * COMPONENT_BYTES_MIN + FRAME_BYTES_MIN + BOUNDS_BYTES_MIN;
    if (!md5_lexer_can_hold(&lex, frame_count, frame_bytes_min))
        return md5_lexer_fail(&lex, lex.cursor, "numFrames %d with numAnimatedComponents %d cannot be right: only %zu "
                              "bytes follow", frame_count, component_count, (size_t)(lex.end - lex.cursor));
    /* Each count is held by the bytes; their product, the baked frames, has a budget of its own. */
    uint64_t baked = (uint64_t)frame_count * (uint64_t)joint_count * sizeof(joint_pose);
    if (!md5_lexer_budget_allows(&lex, baked))
        return md5_lexer_fail(&lex, lex.cursor, "numFrames %d x numJoints %d cannot be right: %llu MiB of poses "
                              "from a file of %zu bytes (at most %u x its size + 1 MiB)", frame_count, joint_count,
                              (unsigned long long)(baked >> 20), size, MD5_DERIVED_BYTES_PER_BYTE);

    raw_clip *c = out;
    anim_joint *joints = calloc((size_t)joint_count, sizeof *joints);
    if (!joints)
        return md5_lexer_fail(&lex, NULL, "out of memory");
    size_t joints_size = (size_t)joint_count, frames_size = (size_t)frame_count;
    c->source = (raw_source){.name = lex.name, .text = text, .size = size};
    c->joint_count = joint_count;
    c->frame_count = frame_count;
    c->frame_rate = frame_rate;
    c->names = calloc(joints_size, sizeof *c->names);
    c->parents = malloc(joints_size * sizeof *c->parents);
    c->frames = md5_alloc_aligned(frames_size * joints_size * sizeof *c->frames);
    c->frame_at = malloc(frames_size * sizeof *c->frame_at);
    c->bounds = malloc(frames_size * sizeof *c->bounds);
    if (!c->names || !c->parents || !c->frames || !c->frame_at || !c->bounds) {
        md5_lexer_fail(&lex, NULL, "out of memory for %d frames of %d joints", frame_count, joint_count);
        goto fail;
    }
    if (!parse_hierarchy(&lex, c, joints, component_count) || !parse_bounds(&lex, c) ||
        !parse_baseframe(&lex, c, joints) || !parse_frames(&lex, c, joints, component_count))
        goto fail;
    if (!md5_lexer_at_end(&lex)) {
        lex.warnings = &c->trailing_notes; /* after the build step's reach check, as when it was here */
        md5_lexer_warn(&lex, lex.cursor, "text after the last frame: ignored");
    }
    if (lex.failed)
        goto fail;
    free(joints);
    return true;
fail:
    free(joints);
    raw_clip_free(c);
    return false;
}
