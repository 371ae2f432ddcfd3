/* md5tool convert: rewrites an .md5mesh or .md5anim made in our convention (Z up, facing +X, metres) into
 * other units and axes, as another exporter would have written it: the proof that characters.ini's
 * scale, height, up and forward undo such a file. Every position is multiplied by the scale and moved
 * into the file's axes; every quaternion's x, y, z turns with the axes (a change of axes turns a
 * rotation's axis and keeps its angle, so w, which the reader recovers, stays). A turn of axes permutes
 * and negates components, so which ones a frame animates changes too: every joint is written fully
 * animated (flags 63), which is valid MD5. Comments are not kept.
 * Knows nothing of the engine's parser: the text is read here token by token. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/config/anim_config.h"
#include "base/file.h"
#include "build/loader.h"
#include "md5tool_common.h"
#include "md5tool_convert.h"

enum { CONVERT_TOKEN_MAX = 1024, CONVERT_COUNT_MAX = 1 << 24 };

typedef struct convert_reader {
    const char *path;
    const char *cursor, *end;
    int line;
    char token[CONVERT_TOKEN_MAX];
    bool quoted;   /* the token was a "string" */
    int token_line;
    bool failed;
} convert_reader;

/* The next token: a "string" (without its quotes), ( ) { }, or a run of other characters. Empty at the end. */
static void next_token(convert_reader *r)
{
    r->token[0] = '\0';
    r->quoted = false;
    for (;;) {
        while (r->cursor < r->end && (unsigned char)*r->cursor <= ' ')
            r->line += *r->cursor++ == '\n';
        if (r->end - r->cursor >= 2 && r->cursor[0] == '/' && r->cursor[1] == '/') {
            while (r->cursor < r->end && *r->cursor != '\n')
                ++r->cursor;
            continue;
        }
        if (r->end - r->cursor >= 2 && r->cursor[0] == '/' && r->cursor[1] == '*') {
            r->cursor += 2;
            while (r->cursor < r->end && !(r->end - r->cursor >= 2 && r->cursor[0] == '*' && r->cursor[1] == '/'))
                r->line += *r->cursor++ == '\n';
            r->cursor = r->cursor < r->end ? r->cursor + 2 : r->end;
            continue;
        }
        break;
    }
    r->token_line = r->line;
    size_t length = 0;
    if (r->cursor < r->end && *r->cursor == '"') {
        r->quoted = true;
        ++r->cursor;
        while (r->cursor < r->end && *r->cursor != '"' && *r->cursor != '\n') {
            if (length + 1 < sizeof r->token)
                r->token[length++] = *r->cursor;
            ++r->cursor;
        }
        if (r->cursor < r->end && *r->cursor == '"')
            ++r->cursor;
    } else if (r->cursor < r->end && strchr("(){}", *r->cursor)) {
        r->token[length++] = *r->cursor++;
    } else {
        while (r->cursor < r->end && (unsigned char)*r->cursor > ' ' && !strchr("(){}\"", *r->cursor)) {
            if (length + 1 < sizeof r->token)
                r->token[length++] = *r->cursor;
            ++r->cursor;
        }
    }
    r->token[length] = '\0';
}

static bool convert_fail(convert_reader *r, const char *what)
{
    if (!r->failed)
        fprintf(stderr, "md5tool convert: %s:%d: expected %s, found '%s'\n", r->path, r->token_line, what,
                r->token[0] || r->quoted ? r->token : "the end of the file");
    r->failed = true;
    return false;
}

static bool expect(convert_reader *r, const char *word)
{
    next_token(r);
    return (!r->quoted && strcmp(r->token, word) == 0) || convert_fail(r, word);
}

static bool read_number(convert_reader *r, double *out)
{
    next_token(r);
    return (!r->quoted && parse_finite(r->token, out)) || convert_fail(r, "a number");
}

static bool read_integer(convert_reader *r, long long minimum, long long maximum, long long *out)
{
    next_token(r);
    return (!r->quoted && parse_count(r->token, minimum, maximum, out)) || convert_fail(r, "a whole number in range");
}

static bool read_vector(convert_reader *r, int count, double *out)
{
    if (!expect(r, "("))
        return false;
    for (int i = 0; i < count; ++i)
        if (!read_number(r, &out[i]))
            return false;
    return expect(r, ")");
}

static bool read_string(convert_reader *r, char *out, size_t size)
{
    next_token(r);
    if (!r->quoted)
        return convert_fail(r, "a \"string\"");
    snprintf(out, size, "%s", r->token);
    return true;
}

/* ---- the change ------------------------------------------------------------------------------------- */

typedef struct convert_change {
    double scale;
    anim_axes axes; /* the output file's axes to canonical */
} convert_change;

/* Canonical (our files) to the output file's axes, no scale: file[from[i]] = sign[i] * canonical[i]. */
static void to_file_axes(const convert_change *change, const double in[3], double out[3])
{
    for (int i = 0; i < 3; ++i)
        out[change->axes.from[i]] = change->axes.sign[i] * in[i];
}

static void write_position(FILE *out, const convert_change *change, const double in[3])
{
    double turned[3];
    to_file_axes(change, in, turned);
    fprintf(out, "( %.6f %.6f %.6f )", turned[0] * change->scale, turned[1] * change->scale,
            turned[2] * change->scale);
}

static void write_rotation(FILE *out, const convert_change *change, const double in[3])
{
    double turned[3];
    to_file_axes(change, in, turned);
    fprintf(out, "( %.9f %.9f %.9f )", turned[0], turned[1], turned[2]);
}

/* The header lines up to `stop` (joints, hierarchy): MD5Version, commandline (replaced by ours), counts. */
static bool convert_header(convert_reader *r, FILE *out, const char *stop, const char *commandline,
                           long long counts[], const char *const names[], int name_count)
{
    for (;;) {
        next_token(r);
        if (r->quoted || r->token[0] == '\0')
            return convert_fail(r, stop);
        if (strcmp(r->token, stop) == 0)
            return true;
        if (strcmp(r->token, "commandline") == 0) {
            char ignored[CONVERT_TOKEN_MAX];
            if (!read_string(r, ignored, sizeof ignored))
                return false;
            fprintf(out, "commandline \"%s\"\n", commandline);
            continue;
        }
        if (strcmp(r->token, "MD5Version") == 0) {
            long long version;
            if (!read_integer(r, 0, 1000000, &version))
                return false;
            fprintf(out, "MD5Version %lld\n", version);
            continue;
        }
        int which = -1;
        for (int i = 0; i < name_count; ++i)
            if (strcmp(r->token, names[i]) == 0)
                which = i;
        if (which < 0)
            return convert_fail(r, "a header keyword");
        if (!read_integer(r, 0, CONVERT_COUNT_MAX, &counts[which]))
            return false;
        if (strcmp(names[which], "numAnimatedComponents") != 0)
            fprintf(out, "%s %lld\n", names[which], counts[which]);
    }
}

static bool convert_mesh(convert_reader *r, FILE *out, const convert_change *change, const char *commandline)
{
    static const char *const names[] = {"numJoints", "numMeshes"};
    long long counts[2] = {-1, -1};
    if (!convert_header(r, out, "joints", commandline, counts, names, 2))
        return false;
    if (counts[0] < 0 || counts[1] < 0)
        return convert_fail(r, "numJoints and numMeshes before joints");
    fprintf(out, "\njoints {\n");
    if (!expect(r, "{"))
        return false;
    for (long long j = 0; j < counts[0]; ++j) {
        char name[CONVERT_TOKEN_MAX];
        long long parent;
        double position[3], rotation[3];
        if (!read_string(r, name, sizeof name) || !read_integer(r, -1, j - 1, &parent) ||
            !read_vector(r, 3, position) || !read_vector(r, 3, rotation))
            return false;
        fprintf(out, "\t\"%s\"\t%lld ", name, parent);
        write_position(out, change, position);
        fputc(' ', out);
        write_rotation(out, change, rotation);
        fputc('\n', out);
    }
    if (!expect(r, "}"))
        return false;
    fprintf(out, "}\n");
    for (long long m = 0; m < counts[1]; ++m) {
        if (!expect(r, "mesh") || !expect(r, "{"))
            return false;
        fprintf(out, "\nmesh {\n");
        for (;;) {
            next_token(r);
            if (!r->quoted && strcmp(r->token, "}") == 0)
                break;
            long long a, b, c, d;
            double v[3];
            char text[CONVERT_TOKEN_MAX];
            if (r->quoted || r->token[0] == '\0') {
                return convert_fail(r, "a mesh keyword or }");
            } else if (strcmp(r->token, "shader") == 0) {
                if (!read_string(r, text, sizeof text))
                    return false;
                fprintf(out, "\tshader \"%s\"\n", text);
            } else if (strcmp(r->token, "numverts") == 0 || strcmp(r->token, "numtris") == 0 ||
                       strcmp(r->token, "numweights") == 0) {
                snprintf(text, sizeof text, "%s", r->token);
                if (!read_integer(r, 0, CONVERT_COUNT_MAX, &a))
                    return false;
                fprintf(out, "\n\t%s %lld\n", text, a);
            } else if (strcmp(r->token, "vert") == 0) {
                if (!read_integer(r, 0, CONVERT_COUNT_MAX, &a) || !read_vector(r, 2, v) ||
                    !read_integer(r, 0, CONVERT_COUNT_MAX, &b) || !read_integer(r, 0, CONVERT_COUNT_MAX, &c))
                    return false;
                fprintf(out, "\tvert %lld ( %.6f %.6f ) %lld %lld\n", a, v[0], v[1], b, c);
            } else if (strcmp(r->token, "tri") == 0) {
                if (!read_integer(r, 0, CONVERT_COUNT_MAX, &a) || !read_integer(r, 0, CONVERT_COUNT_MAX, &b) ||
                    !read_integer(r, 0, CONVERT_COUNT_MAX, &c) || !read_integer(r, 0, CONVERT_COUNT_MAX, &d))
                    return false;
                fprintf(out, "\ttri %lld %lld %lld %lld\n", a, b, c, d);
            } else if (strcmp(r->token, "weight") == 0) {
                double bias;
                if (!read_integer(r, 0, CONVERT_COUNT_MAX, &a) || !read_integer(r, 0, counts[0] - 1, &b) ||
                    !read_number(r, &bias) || !read_vector(r, 3, v))
                    return false;
                fprintf(out, "\tweight %lld %lld %.6f ", a, b, bias);
                write_position(out, change, v);
                fputc('\n', out);
            } else {
                return convert_fail(r, "shader, numverts, vert, numtris, tri, numweights, weight or }");
            }
        }
        fprintf(out, "}\n");
    }
    next_token(r);
    return r->token[0] == '\0' || convert_fail(r, "the end of the file");
}

/* One joint of a clip: its hierarchy line and the baseframe its frames start from. */
typedef struct convert_joint {
    char name[CONVERT_TOKEN_MAX];
    long long parent, flags, start;
    double base[6];
} convert_joint;

static void write_bounds(FILE *out, const convert_change *change, const double low[3], const double high[3])
{
    double a[3], b[3], turned_low[3], turned_high[3];
    to_file_axes(change, low, a);
    to_file_axes(change, high, b);
    for (int k = 0; k < 3; ++k) {
        turned_low[k] = (a[k] < b[k] ? a[k] : b[k]) * change->scale;
        turned_high[k] = (a[k] < b[k] ? b[k] : a[k]) * change->scale;
    }
    fprintf(out, "\t( %.6f %.6f %.6f ) ( %.6f %.6f %.6f )\n", turned_low[0], turned_low[1], turned_low[2],
            turned_high[0], turned_high[1], turned_high[2]);
}

static bool convert_anim(convert_reader *r, FILE *out, const convert_change *change, const char *commandline)
{
    static const char *const names[] = {"numFrames", "numJoints", "frameRate", "numAnimatedComponents"};
    long long counts[4] = {-1, -1, -1, -1};
    if (!convert_header(r, out, "hierarchy", commandline, counts, names, 4))
        return false;
    long long frames = counts[0], joint_count = counts[1], components = counts[3];
    if (frames < 0 || joint_count < 0 || counts[2] < 0 || components < 0)
        return convert_fail(r, "numFrames, numJoints, frameRate and numAnimatedComponents before hierarchy");
    fprintf(out, "numAnimatedComponents %lld\n", joint_count * 6);
    convert_joint *joints = calloc((size_t)(joint_count ? joint_count : 1), sizeof *joints);
    double *values = calloc((size_t)(components ? components : 1), sizeof *values);
    bool ok = joints && values && expect(r, "{");
    if (!joints || !values)
        fprintf(stderr, "md5tool convert: out of memory\n");
    fprintf(out, "\nhierarchy {\n");
    for (long long j = 0; ok && j < joint_count; ++j) {
        convert_joint *joint = &joints[j];
        ok = read_string(r, joint->name, sizeof joint->name) && read_integer(r, -1, j - 1, &joint->parent) &&
             read_integer(r, 0, 63, &joint->flags) && read_integer(r, 0, components, &joint->start);
        int animated = 0;
        for (int bit = 0; bit < 6; ++bit)
            animated += (int)(joint->flags >> bit) & 1;
        if (ok && joint->start + animated > components)
            ok = convert_fail(r, "startIndex + animated components within numAnimatedComponents");
        if (ok)
            fprintf(out, "\t\"%s\"\t%lld 63 %lld\n", joint->name, joint->parent, j * 6);
    }
    ok = ok && expect(r, "}") && expect(r, "bounds") && expect(r, "{");
    fprintf(out, "}\n\nbounds {\n");
    for (long long f = 0; ok && f < frames; ++f) {
        double low[3], high[3];
        ok = read_vector(r, 3, low) && read_vector(r, 3, high);
        if (ok)
            write_bounds(out, change, low, high);
    }
    ok = ok && expect(r, "}") && expect(r, "baseframe") && expect(r, "{");
    fprintf(out, "}\n\nbaseframe {\n");
    for (long long j = 0; ok && j < joint_count; ++j) {
        ok = read_vector(r, 3, joints[j].base) && read_vector(r, 3, joints[j].base + 3);
        if (!ok)
            break;
        fputc('\t', out);
        write_position(out, change, joints[j].base);
        fputc(' ', out);
        write_rotation(out, change, joints[j].base + 3);
        fputc('\n', out);
    }
    ok = ok && expect(r, "}");
    fprintf(out, "}\n");
    for (long long f = 0; ok && f < frames; ++f) {
        long long index;
        ok = expect(r, "frame") && read_integer(r, 0, frames - 1, &index) && expect(r, "{");
        for (long long k = 0; ok && k < components; ++k)
            ok = read_number(r, &values[k]);
        ok = ok && expect(r, "}");
        if (!ok)
            break;
        fprintf(out, "\nframe %lld {\n", index);
        for (long long j = 0; j < joint_count; ++j) {
            double full[6];
            memcpy(full, joints[j].base, sizeof full);
            long long next = joints[j].start;
            for (int bit = 0; bit < 6; ++bit)
                if (joints[j].flags & (1 << bit))
                    full[bit] = values[next++];
            double position[3], rotation[3];
            to_file_axes(change, full, position);
            to_file_axes(change, full + 3, rotation);
            fprintf(out, "\t%.6f %.6f %.6f %.9f %.9f %.9f\n", position[0] * change->scale,
                    position[1] * change->scale, position[2] * change->scale, rotation[0], rotation[1], rotation[2]);
        }
        fprintf(out, "}\n");
    }
    if (ok) {
        next_token(r);
        ok = r->token[0] == '\0' || convert_fail(r, "the end of the file");
    }
    free(joints);
    free(values);
    return ok;
}

/* Whether the project's reader takes the converted text back; when not, says why on stderr. A scale can take
 * a valid file past the reader's limits (a joint further than 1e30 from the origin). */
static bool convert_output_loads(const char *out_path, file_type type, const char *text, size_t size)
{
    diag error;
    bool loads;
    if (type == FILE_TYPE_MESH) {
        model *made = NULL;
        loads = loader_parse_md5_model(text, size, out_path, &made, &error, NULL);
        model_free(made);
    } else {
        clip *made = NULL;
        loads = loader_parse_md5_clip(text, size, out_path, &made, &error, NULL);
        clip_free(made);
    }
    if (!loads) {
        char line[DIAG_TEXT_MAX];
        diag_format(&error, line, sizeof line);
        fprintf(stderr, "md5tool convert: the converted file would be refused (%s); %s not written\n", line,
                out_path);
    }
    return loads;
}

int command_convert(int argc, char **argv)
{
    const char *in_path = NULL, *out_path = NULL, *up = "+Z", *forward = "+X";
    double scale = 1.0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
            if (!parse_finite(argv[++i], &scale) || !(scale >= 0.0001 && scale <= 10000.0))
                return usage_error("convert: --scale must be a number from 0.0001 to 10000, not '%s'", argv[i]);
        } else if (strcmp(argv[i], "--up") == 0 && i + 1 < argc) {
            up = argv[++i];
        } else if (strcmp(argv[i], "--forward") == 0 && i + 1 < argc) {
            forward = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return usage_error("convert: unknown option or missing value '%s'", argv[i]);
        } else if (!in_path) {
            in_path = argv[i];
        } else if (!out_path) {
            out_path = argv[i];
        } else {
            return usage_error("convert: one input and one output, not also '%s'", argv[i]);
        }
    }
    if (!in_path || !out_path)
        return usage_error("%s", "convert needs IN and OUT: md5tool convert IN OUT [--scale S] [--up AXIS] "
                                 "[--forward AXIS]");
    int up_axis, up_sign, forward_axis, forward_sign;
    convert_change change = {.scale = scale};
    if (!anim_axis_parse(up, &up_axis, &up_sign) || !anim_axis_parse(forward, &forward_axis, &forward_sign))
        return usage_error("convert: --up and --forward take +X -X +Y -Y +Z -Z, not '%s' and '%s'", up, forward);
    if (!anim_axes_make(up_axis, up_sign, forward_axis, forward_sign, &change.axes))
        return usage_error("convert: --forward %s must be perpendicular to --up %s", forward, up);
    file_type type = file_type_of(in_path);
    if (type == FILE_TYPE_OTHER || file_type_of(out_path) != type)
        return usage_error("%s", "convert: IN and OUT must both be .md5mesh or both .md5anim");

    char *text = NULL;
    size_t size = 0;
    diag error;
    if (!file_read_all(in_path, LOADER_MAX_FILE_BYTES, &text, &size, &error)) {
        fprintf(stderr, "md5tool convert: %s: %s\n", in_path, error.message);
        return EXIT_INVALID;
    }
    /* Made in memory first: checked by the project's own reader before a byte reaches OUT (a file the reader
     * would refuse is not written: exit 1, saying why), and the input is read whole before OUT is replaced,
     * so IN == OUT converts in place. OUT is then replaced whole or not at all (file_writer). */
    char *made = NULL;
    size_t made_size = 0;
    FILE *out = open_memstream(&made, &made_size);
    if (!out) {
        fprintf(stderr, "md5tool convert: out of memory\n");
        free(text);
        return EXIT_INVALID;
    }
    char commandline[256];
    snprintf(commandline, sizeof commandline, "md5tool convert --scale %g --up %s --forward %s", scale, up, forward);
    convert_reader reader = {.path = in_path, .cursor = text, .end = text + size, .line = 1};
    bool ok = type == FILE_TYPE_MESH ? convert_mesh(&reader, out, &change, commandline)
                                     : convert_anim(&reader, out, &change, commandline);
    ok = fclose(out) == 0 && ok;
    free(text);
    if (ok && !convert_output_loads(out_path, type, made, made_size)) {
        ok = false;
    } else if (ok) {
        ok = file_write_all(out_path, made, made_size, &error);
        if (!ok) {
            char line[DIAG_TEXT_MAX];
            diag_format(&error, line, sizeof line);
            fprintf(stderr, "md5tool convert: %s\n", line);
        }
    }
    free(made);
    if (!ok)
        return EXIT_INVALID;
    return EXIT_SUCCESS;
}
