/* md5tool lod: builds a mesh's levels of detail with engine/build/build_lod (as the demo does when it loads
 * the mesh) and prints per level its triangles, the vertices it uses, its error in model units and as a
 * share of the bind pose's height, and whether it is the far stand-in. --write-level N OUT writes the file
 * again with level N's triangles in place of its own (joints, vertices and weights as they were), so the
 * demo or `md5tool render` can show the level. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "build/loader.h"
#include "base/json.h"
#include "bench_common.h"
#include "build/build_lod.h"
#include "md5tool_common.h"
#include "md5tool_lod.h"

enum { LOD_TIMING_RUNS = 3 };

typedef struct lod_arguments {
    const char *mesh_path;
    bool json;
    build_lod_desc desc;
    int write_level;          /* -1: none */
    const char *write_path;
} lod_arguments;

static int parse_lod_arguments(int argc, char **argv, lod_arguments *a)
{
    *a = (lod_arguments){.write_level = -1};
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        long long value;
        if (strcmp(arg, "--json") == 0) {
            a->json = true;
        } else if (strcmp(arg, "--no-stand-in") == 0) {
            a->desc.no_stand_in = true;
        } else if (strcmp(arg, "--stand-in") == 0) {
            if (i + 1 >= argc || !parse_count(argv[i + 1], 1, BUILD_LOD_STAND_IN_TRIANGLES_MAX, &value))
                return usage_error("--stand-in needs a whole number of triangles from 1 to %d",
                                   BUILD_LOD_STAND_IN_TRIANGLES_MAX);
            a->desc.stand_in_triangles = (int)value;
            ++i;
        } else if (strcmp(arg, "--max-error") == 0) {
            double share;
            if (i + 1 >= argc || !parse_finite(argv[i + 1], &share) || !(share > 0.0 && share <= 1.0))
                return usage_error("%s", "--max-error needs a share of the mesh's extent in (0, 1]");
            a->desc.max_error = (float)share;
            ++i;
        } else if (strcmp(arg, "--borders") == 0) {
            if (i + 1 < argc && strcmp(argv[i + 1], "free") == 0)
                a->desc.borders = BUILD_LOD_BORDERS_FREE;
            else if (i + 1 < argc && strcmp(argv[i + 1], "locked") == 0)
                a->desc.borders = BUILD_LOD_BORDERS_LOCKED;
            else
                return usage_error("%s", "--borders needs free or locked");
            ++i;
        } else if (strcmp(arg, "--write-level") == 0) {
            if (i + 2 >= argc || !parse_count(argv[i + 1], 0, LOD_LEVELS_MAX - 1, &value))
                return usage_error("--write-level needs a level (0..%d) and an output .md5mesh", LOD_LEVELS_MAX - 1);
            a->write_level = (int)value;
            a->write_path = argv[i + 2];
            i += 2;
        } else if (arg[0] == '-' && arg[1] == '-') {
            return usage_error("lod: unknown option '%s'", arg);
        } else if (!a->mesh_path) {
            a->mesh_path = arg;
        } else {
            return usage_error("lod: unexpected argument '%s' (one MESH)", arg);
        }
    }
    if (!a->mesh_path)
        return usage_error("%s", "lod needs a MESH: md5tool lod MESH [--json]");
    return 0;
}

/* Vertices level l of every mesh uses (each counted once per mesh). */
static long long vertices_used(const model *m, const model_lods *lods, int level)
{
    long long total = 0;
    for (int i = 0; i < m->mesh_count; ++i) {
        const mesh_lod *ml = &lods->meshes[i];
        unsigned char *seen = calloc((size_t)(m->meshes[i].vertex_count ? m->meshes[i].vertex_count : 1), 1);
        if (!seen)
            return -1;
        for (int t = 0; t < ml->triangle_count[level]; ++t)
            for (int k = 0; k < 3; ++k) {
                total += !seen[ml->triangles[level][t][k]];
                seen[ml->triangles[level][t][k]] = 1;
            }
        free(seen);
    }
    return total;
}

static void print_levels(const char *path, const model *m, const model_lods *lods, double build_ms, bool json)
{
    double height = (double)(m->bind_bounds[1][2] - m->bind_bounds[0][2]);
    json_writer w = json_writer_start(stdout);
    if (json) {
        json_object_begin(&w);
        json_key(&w, "file");
        json_string(&w, path);
        json_key(&w, "level_count");
        json_integer(&w, lods->level_count);
        json_key(&w, "last_is_stand_in");
        json_bool(&w, lods->last_is_stand_in);
        json_key(&w, "height");
        json_number(&w, height);
        json_key(&w, "bytes");
        json_integer(&w, (long long)lods->bytes);
        json_key(&w, "build_ms");
        json_number(&w, build_ms);
        json_key(&w, "levels");
        json_array_begin(&w);
    } else {
        printf("%s: %d level%s%s, %d triangles at full detail, bind height %.4g (Z); built in %.1f ms (median of "
               "%d), %zu bytes\n",
               path, lods->level_count, lods->level_count == 1 ? "" : "s",
               lods->last_is_stand_in ? " (the last is the stand-in)" : "", lods->triangles[0], height, build_ms,
               LOD_TIMING_RUNS, lods->bytes);
    }
    for (int l = 0; l < lods->level_count; ++l) {
        bool stand_in = lods->last_is_stand_in && l == lods->level_count - 1;
        double error = (double)lods->error[l];
        double percent = height > 0.0 ? 100.0 * error / height : 0.0;
        long long vertices = vertices_used(m, lods, l);
        if (json) {
            json_object_begin(&w);
            json_key(&w, "level");
            json_integer(&w, l);
            json_key(&w, "triangles");
            json_integer(&w, lods->triangles[l]);
            json_key(&w, "mesh_triangles");
            json_array_begin(&w);
            for (int i = 0; i < m->mesh_count; ++i)
                json_integer(&w, lods->meshes[i].triangle_count[l]);
            json_array_end(&w);
            json_key(&w, "vertices");
            json_integer(&w, vertices);
            json_key(&w, "error");
            json_number(&w, error);
            json_key(&w, "error_percent");
            json_number(&w, percent);
            json_key(&w, "stand_in");
            json_bool(&w, stand_in);
            json_object_end(&w);
            continue;
        }
        printf("  level %d: %6d triangles (", l, lods->triangles[l]);
        for (int i = 0; i < m->mesh_count; ++i)
            printf("%smesh %d: %d", i ? ", " : "", i, lods->meshes[i].triangle_count[l]);
        printf("), %lld vertices, error %.4g (%.2f%% of the height)%s\n", vertices, error, percent,
               stand_in ? ", stand-in" : "");
    }
    if (json) {
        json_array_end(&w);
        json_object_end(&w);
        putchar('\n');
    }
}

/* The first word of a line (after blanks), as a length. */
static size_t first_word(const char *line, const char *end, const char **word)
{
    while (line < end && (*line == ' ' || *line == '\t'))
        ++line;
    *word = line;
    size_t length = 0;
    while (line + length < end && (unsigned char)line[length] > ' ')
        ++length;
    return length;
}

static bool word_is(const char *word, size_t length, const char *expected)
{
    return length == strlen(expected) && memcmp(word, expected, length) == 0;
}

/* The mesh text again with each mesh's numtris and tri lines replaced by level `level`'s triangles; the
 * rest (joints, vertices, weights, comments) as written. Works on files with one statement a line, as
 * every exporter writes them; the result is read back and its triangle counts compared to be sure. */
static bool write_level(const char *path, const model *m, const model_lods *lods, int level, const char *out_path)
{
    char *text = NULL;
    size_t size = 0;
    diag err = {0};
    if (!file_read_all(path, LOADER_MAX_FILE_BYTES, &text, &size, &err)) {
        char message[DIAG_TEXT_MAX];
        diag_format(&err, message, sizeof message);
        fprintf(stderr, "%s\n", message);
        return false;
    }
    char *written = NULL;
    size_t written_size = 0;
    FILE *out = open_memstream(&written, &written_size);
    if (!out) {
        free(text);
        fprintf(stderr, "md5tool lod: out of memory\n");
        return false;
    }
    int mesh = -1;
    bool placed = true;
    for (const char *line = text, *end = text + size; line < end;) {
        const char *next = memchr(line, '\n', (size_t)(end - line));
        next = next ? next + 1 : end;
        const char *word;
        size_t length = first_word(line, next, &word);
        if (word_is(word, length, "mesh")) {
            ++mesh;
        } else if (word_is(word, length, "numtris") && mesh >= 0 && mesh < m->mesh_count) {
            const mesh_lod *ml = &lods->meshes[mesh];
            fprintf(out, "\tnumtris %d\n", ml->triangle_count[level]);
            for (int t = 0; t < ml->triangle_count[level]; ++t)
                fprintf(out, "\ttri %d %u %u %u\n", t, (unsigned)ml->triangles[level][t][0],
                        (unsigned)ml->triangles[level][t][1], (unsigned)ml->triangles[level][t][2]);
            line = next;
            continue;
        } else if (word_is(word, length, "numtris")) {
            placed = false;
        }
        if (!word_is(word, length, "tri"))
            fwrite(line, 1, (size_t)(next - line), out);
        line = next;
    }
    fclose(out);
    free(text);

    model *check = NULL;
    bool ok = placed && written && loader_parse_md5_model(written, written_size, out_path, &check, &err, NULL) &&
              check->mesh_count == m->mesh_count;
    for (int i = 0; ok && i < m->mesh_count; ++i)
        ok = check->meshes[i].triangle_count == lods->meshes[i].triangle_count[level];
    model_free(check);
    if (!ok) {
        fprintf(stderr, "%s: cannot write level %d: the file does not keep one statement a line\n", path, level);
        free(written);
        return false;
    }
    ok = file_write_all(out_path, written, written_size, &err);
    free(written);
    if (!ok) {
        char line[DIAG_TEXT_MAX];
        diag_format(&err, line, sizeof line);
        fprintf(stderr, "%s\n", line);
    }
    return ok;
}

int command_lod(int argc, char **argv)
{
    lod_arguments a;
    int status = parse_lod_arguments(argc, argv, &a);
    if (status)
        return status;
    loaded_file f;
    if (!load_file(a.mesh_path, FILE_TYPE_MESH, &f)) {
        fprintf(stderr, "%s\n", f.error);
        loaded_file_free(&f);
        return EXIT_INVALID;
    }
    /* Built three times: the median time is what loading this model costs the demo. */
    model_lods *lods = NULL;
    double times[LOD_TIMING_RUNS];
    diag err = {0};
    bool ok = true;
    for (int run = 0; run < LOD_TIMING_RUNS && ok; ++run) {
        model_lods_free(lods);
        lods = NULL;
        double start = bench_seconds_now();
        ok = build_lods(f.model, &a.desc, &lods, &err);
        times[run] = (bench_seconds_now() - start) * 1000.0;
    }
    if (!ok) {
        char message[DIAG_TEXT_MAX];
        diag_format(&err, message, sizeof message);
        fprintf(stderr, "%s: %s\n", a.mesh_path, message);
        loaded_file_free(&f);
        return EXIT_INVALID;
    }
    if (a.write_level >= lods->level_count) {
        fprintf(stderr, "%s: --write-level %d: this mesh has levels 0..%d\n", a.mesh_path, a.write_level,
                lods->level_count - 1);
        ok = false;
    } else if (a.write_level >= 0) {
        ok = write_level(a.mesh_path, f.model, lods, a.write_level, a.write_path);
    }
    if (ok)
        print_levels(a.mesh_path, f.model, lods, bench_median(times, LOD_TIMING_RUNS), a.json);
    model_lods_free(lods);
    loaded_file_free(&f);
    return ok ? EXIT_SUCCESS : EXIT_INVALID;
}
