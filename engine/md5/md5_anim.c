/* .md5anim reader: text -> clip with every frame baked to local joint poses, so sampling never looks at
 * flags or baseframes again. Quirk decisions are listed in tests/test_md5_quirks.c. */
#include "md5.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/file.h"
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

static bool parse_hierarchy(md5_lexer *lex, clip *c, anim_joint *joints, int component_count, size_t *bytes)
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
        *bytes += name_length + 1;
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

static bool parse_bounds(md5_lexer *lex, clip *c)
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

static bool parse_baseframe(md5_lexer *lex, clip *c, anim_joint *joints)
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

static void bake_frame(const clip *c, const anim_joint *joints, const float *components, int frame,
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

/* Where frame `frame`'s "frame N" is, for a diag after the frames were read (the error path only). */
static const char *find_frame(const md5_lexer *lex, const char *from, int frame)
{
    md5_lexer scan = *lex;
    scan.cursor = from;
    scan.err = NULL;
    scan.warnings = NULL;
    scan.failed = false;
    for (;;) {
        md5_lexer_skip_space(&scan);
        const char *at = scan.cursor;
        if (scan.failed || at == scan.end)
            return NULL;
        int index;
        if (MD5_ACCEPT(&scan, "frame") && md5_lexer_int(&scan, &index, "a frame number") && index == frame)
            return at;
        scan.failed = false;
        if (scan.cursor == at) /* not "frame": step over one token (numbers and braces, here) */
            do
                ++scan.cursor;
            while (scan.cursor < scan.end && !md5_lexer_is_delimiter(*scan.cursor));
    }
}

/* How far from the origin a joint can get in any pose made of this clip's frames: its chain's translation
 * lengths added up, each the longest that joint has in any frame. Rotations (blended or not) never
 * lengthen a translation, and a blend of translations is no longer than the longest, so this bounds every
 * sampled and blended pose, not only the frames; MD5_REACH_MAX keeps it far enough from FLT_MAX for the
 * pose stage's arithmetic (a rotation's intermediates, the difference of two frames) to stay finite.
 * Finite local values can still add up to infinity down a chain: such a pose stretched the body to
 * infinity and defeated culling (and fuzz_md5anim found one 2e38 translation overflowing in a rotation).
 * A pass of its own after the frames, kept out of the parsing loop. */
static __attribute__((noinline)) bool check_reach(md5_lexer *lex, const clip *c, const char *frames_at)
{
    /* The largest magnitude of any translation component: for finite floats without their signs the
     * bit patterns order as the values do. A chain is at most joint_count long and each link at most
     * sqrt(3) x that, so while it is small no reach can pass the limit: real clips stop here. */
    uint32_t largest_bits = 0;
    size_t poses = (size_t)c->frame_count * (size_t)c->joint_count;
    for (size_t i = 0; i < poses; ++i)
        for (int k = 0; k < 3; ++k) {
            uint32_t bits;
            memcpy(&bits, &c->frames[i].position[k], sizeof bits);
            bits &= 0x7fffffffu;
            largest_bits = bits > largest_bits ? bits : largest_bits;
        }
    float largest;
    memcpy(&largest, &largest_bits, sizeof largest);
    if ((double)largest * 1.75 * c->joint_count <= MD5_REACH_MAX)
        return true;
    double *longest = calloc(2 * (size_t)c->joint_count, sizeof *longest);
    if (!longest)
        return md5_lexer_fail(lex, NULL, "out of memory");
    double *reach = longest + c->joint_count;
    bool ok = true;
    for (int f = 0; f < c->frame_count && ok; ++f) {
        const joint_pose *local = &c->frames[(size_t)f * (size_t)c->joint_count];
        for (int j = 0; j < c->joint_count && ok; ++j) {
            const float *t = local[j].position;
            double length = sqrt((double)t[0] * t[0] + (double)t[1] * t[1] + (double)t[2] * t[2]);
            if (length > longest[j])
                longest[j] = length;
            reach[j] = (c->parents[j] >= 0 ? reach[c->parents[j]] : 0.0) + longest[j];
            if (reach[j] > MD5_REACH_MAX)
                ok = md5_lexer_fail(lex, find_frame(lex, frames_at, f),
                                    "frame %d: joint %d '%s' can be %g units from the origin (its chain's "
                                    "translations add up to more than %g)",
                                    f, j, c->names[j], reach[j], MD5_REACH_MAX);
        }
    }
    free(longest);
    return ok;
}

static bool parse_frames(md5_lexer *lex, clip *c, const anim_joint *joints, int component_count)
{
    float *components = malloc((component_count ? (size_t)component_count : 1) * sizeof *components);
    if (!components)
        return md5_lexer_fail(lex, lex->cursor, "out of memory for %d components", component_count);
    bad_rotations bad = {0};
    for (int f = 0; f < c->frame_count; ++f) {
        md5_lexer_skip_space(lex);
        const char *at = lex->cursor;
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

static bool same_pose(const joint_pose *a, const joint_pose *b)
{
    float same_sign = 0.0f, opposite_sign = 0.0f, position = 0.0f;
    for (int k = 0; k < 4; ++k) {
        same_sign = fmaxf(same_sign, fabsf(a->rotation[k] - b->rotation[k]));
        opposite_sign = fmaxf(opposite_sign, fabsf(a->rotation[k] + b->rotation[k]));
    }
    for (int k = 0; k < 3; ++k)
        position = fmaxf(position, fabsf(a->position[k] - b->position[k]));
    return position <= CLIP_LOOP_TOLERANCE && fminf(same_sign, opposite_sign) <= CLIP_LOOP_TOLERANCE;
}

/* Loop convention (clip.h): the Doom 3 rule when the last frame repeats the first. Root joints are left
 * out of the comparison when there are other joints: they carry the character's travel, and a root-motion
 * cycle ends one stride further on (and, in a turn, facing elsewhere) than it started. */
static void set_durations(clip *c)
{
    const joint_pose *first = c->frames;
    const joint_pose *last = &c->frames[(size_t)(c->frame_count - 1) * (size_t)c->joint_count];
    bool only_roots = true;
    for (int j = 0; j < c->joint_count; ++j)
        only_roots = only_roots && c->parents[j] < 0;
    c->last_frame_is_first = true;
    for (int j = 0; j < c->joint_count && c->last_frame_is_first; ++j)
        if (only_roots || c->parents[j] >= 0)
            c->last_frame_is_first = same_pose(&first[j], &last[j]);
    float cycle_frames = (float)(c->last_frame_is_first ? c->frame_count - 1 : c->frame_count);
    if (c->frame_count == 1)
        cycle_frames = 0.0f; /* nothing to cycle through: a pose held forever */
    c->loop_duration = cycle_frames / c->frame_rate;
    c->once_duration = (float)(c->frame_count - 1) / c->frame_rate;
}

bool md5_parse_clip(const char *text, size_t size, const char *name, clip **out, diag *err,
                    diag_list *warnings)
{
    *out = NULL;
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

    clip *c = calloc(1, sizeof *c);
    anim_joint *joints = calloc((size_t)joint_count, sizeof *joints);
    if (!c || !joints) {
        free(c);
        free(joints);
        return md5_lexer_fail(&lex, NULL, "out of memory");
    }
    size_t joints_size = (size_t)joint_count, frames_size = (size_t)frame_count;
    c->joint_count = joint_count;
    c->frame_count = frame_count;
    c->frame_rate = frame_rate;
    c->names = calloc(joints_size, sizeof *c->names);
    c->parents = malloc(joints_size * sizeof *c->parents);
    c->frames = md5_alloc_aligned(frames_size * joints_size * sizeof *c->frames);
    c->bounds = malloc(frames_size * sizeof *c->bounds);
    c->bytes = sizeof *c + joints_size * (sizeof *c->names + sizeof *c->parents) +
               frames_size * (joints_size * sizeof *c->frames + sizeof *c->bounds);
    if (!c->names || !c->parents || !c->frames || !c->bounds) {
        md5_lexer_fail(&lex, NULL, "out of memory for %d frames of %d joints", frame_count, joint_count);
        goto fail;
    }
    if (!parse_hierarchy(&lex, c, joints, component_count, &c->bytes) || !parse_bounds(&lex, c) ||
        !parse_baseframe(&lex, c, joints))
        goto fail;
    const char *frames_at = lex.cursor;
    if (!parse_frames(&lex, c, joints, component_count) || !check_reach(&lex, c, frames_at))
        goto fail;
    if (!md5_lexer_at_end(&lex))
        md5_lexer_warn(&lex, lex.cursor, "text after the last frame: ignored");
    if (lex.failed)
        goto fail;
    set_durations(c);
    free(joints);
    *out = c;
    return true;
fail:
    free(joints);
    clip_free(c);
    return false;
}

bool md5_load_clip(const char *path, clip **out, diag *err, diag_list *warnings)
{
    *out = NULL;
    char *text;
    size_t size;
    if (!file_read_all(path, &text, &size, err))
        return false;
    bool ok = md5_parse_clip(text, size, path, out, err, warnings);
    free(text);
    return ok;
}
