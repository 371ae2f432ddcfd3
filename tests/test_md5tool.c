/* md5tool: runs the built tool (MARIONETTE_MD5TOOL) as a user would, on synthetic files, the generated
 * assets and (`--boneman`, `--assimp`: test_data.h) third-party files, and checks its answers against values
 * this test reads from the files itself with sscanf, not through the engine's parser, so a parser bug cannot
 * hide behind a tool that agrees with it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "base/json.h"
#include "build/loader.h"
#include "pose/pose.h"
#include "pose/pose_dq.h"
#include "synth.h"
#include "test_data.h"
#include "test_files.h"

#define CLIPS MARIONETTE_SOURCE_DIR "/assets/clips/"
#define EMPTY MARIONETTE_TEST_DATA "/quirks/empty.md5mesh"

static const char *const boneman_clips[] = {"attack", "dead", "dying", "idle", "pain", "running"};
static const char *const asset_clips[] = {"walk", "run", "jump", "celebrate"}; /* all at 30 frames a second */
enum { CLIP_COUNT = sizeof boneman_clips / sizeof boneman_clips[0], PATH_SIZE = 512 };

static char folder[256];

/* ---- running the tool ------------------------------------------------------------------------------ */

typedef struct tool_result {
    char *output; /* stdout (and stderr when asked for) */
    size_t size;
    int status;   /* exit status, or -1 if it did not exit normally */
} tool_result;

/* Runs `md5tool ARGUMENTS`; merge_stderr appends 2>&1 so messages can be checked too. */
static tool_result run_tool(const char *arguments, bool merge_stderr)
{
    tool_result result = {0};
    char command[4096];
    snprintf(command, sizeof command, "'%s' %s%s", MARIONETTE_MD5TOOL, arguments,
             merge_stderr ? " 2>&1" : " 2>/dev/null");
    FILE *pipe = popen(command, "r");
    if (!pipe) {
        result.status = -1;
        return result;
    }
    size_t capacity = 0;
    for (;;) {
        if (result.size + 4096 + 1 > capacity) {
            capacity = capacity ? capacity * 2 : 65536;
            char *grown = realloc(result.output, capacity);
            if (!grown)
                break;
            result.output = grown;
        }
        size_t got = fread(result.output + result.size, 1, capacity - result.size - 1, pipe);
        if (got == 0)
            break;
        result.size += got;
    }
    if (result.output)
        result.output[result.size] = '\0';
    else
        result.output = calloc(1, 1);
    int status = pclose(pipe);
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

static void tool_result_free(tool_result *r)
{
    free(r->output);
    *r = (tool_result){0};
}

/* ---- reading JSON fields (flat objects, which is what md5tool prints) ------------------------------ */

static const char *field(const char *json, const char *key)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = json ? strstr(json, pattern) : NULL;
    return at ? at + strlen(pattern) : NULL;
}

static double number_field(const char *json, const char *key)
{
    const char *at = field(json, key);
    return at ? strtod(at, NULL) : NAN;
}

static bool bool_field(const char *json, const char *key, bool *value)
{
    const char *at = field(json, key);
    if (!at)
        return false;
    *value = strncmp(at, "true", 4) == 0;
    return *value || strncmp(at, "false", 5) == 0;
}

/* Reads `count` numbers of a JSON array starting at `at` ('[' expected); returns the text after it. */
static const char *read_numbers(const char *at, double *out, int count)
{
    if (!at || *at != '[')
        return NULL;
    ++at;
    for (int i = 0; i < count; ++i) {
        char *end = NULL;
        out[i] = strtod(at, &end);
        if (end == at)
            return NULL;
        at = end;
        if (*at == ',' || *at == ']')
            ++at;
    }
    return at;
}

/* ---- independent readers of the MD5 text ----------------------------------------------------------- */

typedef struct file_facts {
    int joints, header_joints, meshes, vertices, triangles, weights, max_weights;
    int frames, frame_blocks, frame_rate;
    int by_weights[5]; /* vertices with countWeight 1..4 (index 0: any other count) */
} file_facts;

static file_facts read_facts(const char *path)
{
    file_facts facts = {0};
    FILE *f = fopen(path, "r");
    if (!f)
        return facts;
    char line[1024];
    bool in_joints = false;
    while (fgets(line, sizeof line, f)) {
        int index, start, count, value;
        char c;
        if (sscanf(line, " joints %c", &c) == 1 && c == '{')
            in_joints = true;
        else if (in_joints && sscanf(line, " %c", &c) == 1 && c == '}')
            in_joints = false;
        else if (in_joints && sscanf(line, " %c", &c) == 1 && c == '"')
            facts.joints++;
        else if (sscanf(line, " vert %d ( %*f %*f ) %d %d", &index, &start, &count) == 3) {
            facts.vertices++;
            if (count > facts.max_weights)
                facts.max_weights = count;
            ++facts.by_weights[count >= 1 && count <= 4 ? count : 0];
        } else if (sscanf(line, " tri %d", &index) == 1)
            facts.triangles++;
        else if (sscanf(line, " weight %d", &index) == 1)
            facts.weights++;
        else if (sscanf(line, " mesh %c", &c) == 1 && c == '{')
            facts.meshes++;
        else if (sscanf(line, " numFrames %d", &value) == 1)
            facts.frames = value;
        else if (sscanf(line, " frameRate %d", &value) == 1)
            facts.frame_rate = value;
        else if (sscanf(line, " numJoints %d", &value) == 1)
            facts.header_joints = value;
        else if (sscanf(line, " frame %d %c", &index, &c) == 2 && c == '{')
            facts.frame_blocks++;
    }
    fclose(f);
    /* A mesh's joints are counted line by line; an animation's hierarchy is checked by the tool's pose. */
    if (facts.joints == 0)
        facts.joints = facts.header_joints;
    return facts;
}

/* w from xyz as docs/md5-format.md says: negative root, clamped radicand. */
static void quaternion_from_xyz(double x, double y, double z, double q[4])
{
    double radicand = 1.0 - x * x - y * y - z * z;
    q[0] = x;
    q[1] = y;
    q[2] = z;
    q[3] = radicand > 0.0 ? -sqrt(radicand) : 0.0;
}

static void quaternion_multiply(const double a[4], const double b[4], double out[4])
{
    double r[4] = {
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    };
    memcpy(out, r, sizeof r);
}

static void quaternion_rotate(const double q[4], const double v[3], double out[3])
{
    double p[4] = {v[0], v[1], v[2], 0.0}, conjugate[4] = {-q[0], -q[1], -q[2], q[3]}, t[4], r[4];
    quaternion_multiply(q, p, t);
    quaternion_multiply(t, conjugate, r);
    memcpy(out, r, 3 * sizeof *out);
}

enum { MAX_JOINTS = 128 };

typedef struct joint_facts {
    int count;
    int parents[MAX_JOINTS];
    double position[MAX_JOINTS][3];
    double rotation[MAX_JOINTS][4];
} joint_facts;

/* Frame `frame` of an .md5anim in object space: baseframe, overridden by the frame's components as the
 * flags say, then parent to child. */
static bool read_anim_pose(const char *path, int frame, joint_facts *out)
{
    *out = (joint_facts){0};
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    int flags[MAX_JOINTS], starts[MAX_JOINTS];
    double base[MAX_JOINTS][6];
    double *values = NULL;
    int value_count = 0, base_count = 0;
    enum { NONE, HIERARCHY, BASEFRAME, FRAME } section = NONE;
    char line[1024], frame_header[32];
    snprintf(frame_header, sizeof frame_header, "frame %d {", frame);
    while (fgets(line, sizeof line, f)) {
        char name[128];
        int parent, flag, start, total;
        if (sscanf(line, " numAnimatedComponents %d", &total) == 1) {
            values = calloc((size_t)total + 1, sizeof *values);
        } else if (strncmp(line, "hierarchy {", 11) == 0) {
            section = HIERARCHY;
        } else if (strncmp(line, "baseframe {", 11) == 0) {
            section = BASEFRAME;
        } else if (strncmp(line, frame_header, strlen(frame_header)) == 0) {
            section = FRAME;
        } else if (line[0] == '}') {
            section = NONE;
        } else if (section == HIERARCHY && out->count < MAX_JOINTS &&
                   sscanf(line, " \"%127[^\"]\" %d %d %d", name, &parent, &flag, &start) == 4) {
            out->parents[out->count] = parent;
            flags[out->count] = flag;
            starts[out->count] = start;
            out->count++;
        } else if (section == BASEFRAME && base_count < MAX_JOINTS) {
            double *b = base[base_count];
            if (sscanf(line, " ( %lf %lf %lf ) ( %lf %lf %lf )", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) == 6)
                base_count++;
        } else if (section == FRAME && values) {
            const char *at = line;
            char *end = NULL;
            for (double v = strtod(at, &end); end != at; v = strtod(at, &end)) {
                values[value_count++] = v;
                at = end;
            }
        }
    }
    fclose(f);
    bool ok = values && base_count == out->count && out->count > 0;
    for (int j = 0; ok && j < out->count; ++j) {
        double local[6];
        memcpy(local, base[j], sizeof local);
        int next = starts[j];
        for (int k = 0; k < 6; ++k)
            if (flags[j] & (1 << k))
                local[k] = values[next++];
        double rotation[4];
        quaternion_from_xyz(local[3], local[4], local[5], rotation);
        int p = out->parents[j];
        if (p < 0) {
            memcpy(out->position[j], local, 3 * sizeof(double));
            memcpy(out->rotation[j], rotation, sizeof rotation);
        } else {
            double rotated[3];
            quaternion_rotate(out->rotation[p], local, rotated);
            for (int k = 0; k < 3; ++k)
                out->position[j][k] = out->position[p][k] + rotated[k];
            quaternion_multiply(out->rotation[p], rotation, out->rotation[j]);
        }
    }
    free(values);
    return ok;
}

/* Vertex positions of every mesh from joints, verts and weights (docs/md5-format.md's formula), concatenated
 * over meshes: in bind pose (posed NULL), or with the joints of `posed` in its place, which is what
 * skinning with palette = object * inverse(bind) must reproduce. Returns the vertex count, or -1. */
static int read_positions(const char *path, const joint_facts *posed, double (*positions)[3], int capacity)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    joint_facts joints = {0};
    enum { MAX_WEIGHTS = 8192, MAX_MESH_VERTICES = 4096 };
    static int starts[MAX_MESH_VERTICES], counts[MAX_MESH_VERTICES];
    static int weight_joint[MAX_WEIGHTS];
    static double weight_bias[MAX_WEIGHTS], weight_position[MAX_WEIGHTS][3];
    int total = 0, mesh_vertices = 0, mesh_weights = 0;
    bool in_joints = false;
    char line[1024];
    /* Each mesh's vertices are finished when its closing brace is read. */
    while (fgets(line, sizeof line, f)) {
        char name[128], c;
        int parent, index, start, count, joint;
        double x, y, z, qx, qy, qz, bias;
        if (sscanf(line, " joints %c", &c) == 1 && c == '{') {
            in_joints = true;
        } else if (in_joints && sscanf(line, " \"%127[^\"]\" %d ( %lf %lf %lf ) ( %lf %lf %lf )", name, &parent, &x,
                                       &y, &z, &qx, &qy, &qz) == 8 && joints.count < MAX_JOINTS) {
            joints.parents[joints.count] = parent;
            joints.position[joints.count][0] = x;
            joints.position[joints.count][1] = y;
            joints.position[joints.count][2] = z;
            quaternion_from_xyz(qx, qy, qz, joints.rotation[joints.count]);
            joints.count++;
        } else if (sscanf(line, " vert %d ( %*f %*f ) %d %d", &index, &start, &count) == 3 &&
                   mesh_vertices < MAX_MESH_VERTICES) {
            starts[mesh_vertices] = start;
            counts[mesh_vertices] = count;
            mesh_vertices++;
        } else if (sscanf(line, " weight %d %d %lf ( %lf %lf %lf )", &index, &joint, &bias, &x, &y, &z) == 6 &&
                   mesh_weights < MAX_WEIGHTS) {
            weight_joint[mesh_weights] = joint;
            weight_bias[mesh_weights] = bias;
            weight_position[mesh_weights][0] = x;
            weight_position[mesh_weights][1] = y;
            weight_position[mesh_weights][2] = z;
            mesh_weights++;
        } else if (sscanf(line, " %c", &c) == 1 && c == '}') {
            in_joints = false;
            for (int v = 0; v < mesh_vertices && total < capacity; ++v, ++total) {
                double *p = positions[total];
                p[0] = p[1] = p[2] = 0.0;
                const joint_facts *used = posed ? posed : &joints;
                for (int w = starts[v]; w < starts[v] + counts[v] && w < mesh_weights; ++w) {
                    double rotated[3];
                    int j = weight_joint[w];
                    if (j < 0 || j >= used->count)
                        continue;
                    quaternion_rotate(used->rotation[j], weight_position[w], rotated);
                    for (int k = 0; k < 3; ++k)
                        p[k] += weight_bias[w] * (used->position[j][k] + rotated[k]);
                }
            }
            mesh_vertices = mesh_weights = 0;
        }
    }
    fclose(f);
    return total;
}

/* ---- test files ------------------------------------------------------------------------------------ */

static char synth_mesh[PATH_SIZE], synth_anim[PATH_SIZE], renamed_anim[PATH_SIZE], image[PATH_SIZE];
static char camera[PATH_SIZE], swapped[PATH_SIZE], tiny_mesh[PATH_SIZE], tiny_anim[PATH_SIZE];
static char synth_folder[PATH_SIZE], fifo[PATH_SIZE];

/* Two joints; the root is not animated (flags 0), so its pose at any frame is its baseframe. Vertex 2's
 * two weights agree on one bind point, (2 2 3), as exporters write them: skinning with
 * palette = object * inverse(bind) equals the per-weight formula only then. */
static const char tiny_mesh_text[] =
    "MD5Version 10\ncommandline \"\"\nnumJoints 2\nnumMeshes 1\n"
    "joints {\n\t\"root\" -1 ( 1 2 3 ) ( 0 0 0 )\n\t\"tip\" 0 ( 1 2 4 ) ( 0.5 0.5 0.5 )\n}\n"
    "mesh {\n\tshader \"\"\n\tnumverts 3\n\tvert 0 ( 0 0 ) 0 1\n\tvert 1 ( 1 0 ) 1 1\n\tvert 2 ( 0 1 ) 2 2\n"
    "\tnumtris 1\n\ttri 0 0 1 2\n\tnumweights 4\n\tweight 0 0 1 ( 0 0 0 )\n\tweight 1 1 1 ( 0 0 1 )\n"
    "\tweight 2 0 0.5 ( 1 0 0 )\n\tweight 3 1 0.5 ( -1 1 0 )\n}\n";
static const char tiny_anim_text[] =
    "MD5Version 10\ncommandline \"\"\nnumFrames 2\nnumJoints 2\nframeRate 10\nnumAnimatedComponents 6\n"
    "hierarchy {\n\t\"root\" -1 0 0\n\t\"tip\" 0 63 0\n}\n"
    "bounds {\n\t( 0 0 0 ) ( 1 1 1 )\n\t( 0 0 0 ) ( 1 1 1 )\n}\n"
    "baseframe {\n\t( 0.25 -0.5 0.75 ) ( 0.1 0.2 0.3 )\n\t( 0 0 1 ) ( 0 0 0 )\n}\n"
    "frame 0 {\n\t0 0 1 0 0 0\n}\nframe 1 {\n\t0 0 2 0 0.6 0\n}\n";

static bool setup(void)
{
    if (!test_make_temp_folder(folder, sizeof folder, "test_md5tool") ||
        !test_paths_in(folder, PATH_SIZE, synth_mesh, "body.md5mesh", synth_anim, "walk.md5anim",
                       renamed_anim, "renamed.md5anim", image, "skin.png", camera, "intro.md5camera",
                       swapped, "swapped.md5mesh", tiny_mesh, "tiny.md5mesh", tiny_anim, "tiny.md5anim",
                       synth_folder, "generated", fifo, "pipe.md5anim", NULL))
        return false;

    synth_params p = {.joints = 20, .vertices = 400, .triangles = 700, .frames = 12, .frame_rate = 30, .seed = 5};
    size_t mesh_size = 0, anim_size = 0;
    char *mesh = synth_mesh_text(&p, &mesh_size);
    char *anim = synth_anim_text(&p, &anim_size);
    bool ok = mesh && anim && test_write_bytes(synth_mesh, mesh, mesh_size) &&
              test_write_bytes(synth_anim, anim, anim_size);
    /* An animation saved under a mesh's extension. */
    ok = ok && test_write_bytes(swapped, anim, anim_size);
    char *neck = anim ? strstr(anim, "\"neck\"") : NULL;
    if (neck)
        memcpy(neck, "\"nape\"", 6);
    ok = ok && neck && test_write_bytes(renamed_anim, anim, anim_size);
    free(mesh);
    free(anim);

    static const char png_signature[] = "\x89PNG\r\n\x1a\n";
    static const char camera_text[] = "MD5Version 10\ncommandline \"\"\nnumFrames 1\nframeRate 24\nnumCuts 0\n";
    ok = ok && test_write_bytes(image, png_signature, sizeof png_signature - 1) &&
         test_write_bytes(camera, camera_text, sizeof camera_text - 1) &&
         test_write_bytes(tiny_mesh, tiny_mesh_text, sizeof tiny_mesh_text - 1) &&
         test_write_bytes(tiny_anim, tiny_anim_text, sizeof tiny_anim_text - 1) && mkfifo(fifo, 0600) == 0;
    return ok;
}

static void teardown(void)
{
    const char *files[] = {synth_mesh, synth_anim, renamed_anim, image, camera, swapped, tiny_mesh, tiny_anim, fifo};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i)
        unlink(files[i]);
    char generated[PATH_SIZE + 32];
    snprintf(generated, sizeof generated, "%s/synth.md5mesh", synth_folder);
    unlink(generated);
    snprintf(generated, sizeof generated, "%s/synth.md5anim", synth_folder);
    unlink(generated);
    rmdir(synth_folder);
    rmdir(folder);
}

/* ---- tests ----------------------------------------------------------------------------------------- */

static void check_mesh_info(const char *path, const char *json)
{
    file_facts facts = read_facts(path);
    bool ok = false;
    CHECK(bool_field(json, "ok", &ok) && ok);
    CHECK_STR_CONTAINS(json, "\"type\":\"mesh\"");
    CHECK(facts.joints > 0);
    CHECK(number_field(json, "joints") == facts.joints);
    CHECK(number_field(json, "meshes") == facts.meshes);
    CHECK(number_field(json, "vertices") == facts.vertices);
    CHECK(number_field(json, "triangles") == facts.triangles);
    CHECK(number_field(json, "weights") == facts.weights);
    CHECK(number_field(json, "max_weights") == facts.max_weights);
    CHECK(field(json, "frames") == NULL);
}

/* info --json on a mesh, then the plain summary naming its joint and vertex counts. */
static void check_info_mesh(const char *path, int joints, int vertices)
{
    char arguments[PATH_SIZE + 32], expected[PATH_SIZE + 32];
    snprintf(arguments, sizeof arguments, "info --json '%s'", path);
    tool_result r = run_tool(arguments, false);
    CHECK(r.status == 0);
    check_mesh_info(path, r.output);
    CHECK(number_field(r.output, "joints") == joints);
    snprintf(expected, sizeof expected, "\"file\":\"%s\"", path);
    CHECK_STR_CONTAINS(r.output, expected);
    tool_result_free(&r);

    /* Without --json: a readable summary naming the counts. */
    snprintf(arguments, sizeof arguments, "info '%s'", path);
    r = run_tool(arguments, false);
    CHECK(r.status == 0);
    snprintf(expected, sizeof expected, "%d joints", joints);
    CHECK_STR_CONTAINS(r.output, expected);
    snprintf(expected, sizeof expected, "%d vertices", vertices);
    CHECK_STR_CONTAINS(r.output, expected);
    tool_result_free(&r);
}

/* The generated bodies: info counts the vertices by how many weights move them, as the file says. */
static void test_info_weights_per_vertex(void)
{
    static const char *const bodies[] = {MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh",
                                         MARIONETTE_SOURCE_DIR "/assets/models/robot.md5mesh"};
    for (int i = 0; i < 2; ++i) {
        file_facts facts = read_facts(bodies[i]);
        char arguments[1024], expected[160];
        snprintf(arguments, sizeof arguments, "info --json '%s'", bodies[i]);
        tool_result r = run_tool(arguments, false);
        CHECK(r.status == 0);
        snprintf(expected, sizeof expected, "\"weights_per_vertex\":[%d,%d,%d,%d]", facts.by_weights[1],
                 facts.by_weights[2], facts.by_weights[3], facts.by_weights[4]);
        CHECK_STR_CONTAINS(r.output, expected);
        CHECK(facts.by_weights[0] == 0 && facts.by_weights[3] > 0 && facts.by_weights[4] > 0);
        tool_result_free(&r);
        snprintf(arguments, sizeof arguments, "info '%s'", bodies[i]);
        r = run_tool(arguments, false);
        snprintf(expected, sizeof expected, "\n  weights per vertex: 1 x %d, 2 x %d, 3 x %d, 4 x %d\n",
                 facts.by_weights[1], facts.by_weights[2], facts.by_weights[3], facts.by_weights[4]);
        CHECK_STR_CONTAINS(r.output, expected);
        CHECK_STR_CONTAINS(r.output, "(at most 4 per vertex)");
        tool_result_free(&r);
    }
}

/* info names the images each mesh is drawn with: its texture and maps as a character with `textures = DIR`
 * finds them (--textures), none without the folder the bodies' shaders need. */
static void test_info_images(void)
{
    tool_result r = run_tool("info --textures '" MARIONETTE_SOURCE_DIR "/assets/textures' '" MARIONETTE_SOURCE_DIR
                             "/assets/models/robot.md5mesh'", false);
    CHECK(r.status == 0);
    CHECK_STR_CONTAINS(r.output, "texture " MARIONETTE_SOURCE_DIR "/assets/textures/robot.tga\n");
    CHECK_STR_CONTAINS(r.output, "    normal map " MARIONETTE_SOURCE_DIR "/assets/textures/robot_local.tga, specular map "
                                 MARIONETTE_SOURCE_DIR "/assets/textures/robot_s.tga\n");
    tool_result_free(&r);
    r = run_tool("info --json --textures '" MARIONETTE_SOURCE_DIR "/assets/textures' '" MARIONETTE_SOURCE_DIR
                 "/assets/models/mannequin.md5mesh'", false);
    CHECK(r.status == 0);
    CHECK_STR_CONTAINS(r.output, "\"images\":[{\"texture\":\"" MARIONETTE_SOURCE_DIR
                                 "/assets/textures/mannequin.tga\",\"normal_map\":\"" MARIONETTE_SOURCE_DIR
                                 "/assets/textures/mannequin_local.tga\",\"specular_map\":\"" MARIONETTE_SOURCE_DIR
                                 "/assets/textures/mannequin_s.tga\"}]");
    tool_result_free(&r);
    r = run_tool("info '" MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh'", false);
    CHECK_STR_CONTAINS(r.output, "    normal map none (flat), specular map none (the default highlight)\n");
    tool_result_free(&r);
}

static void test_info_mesh(void)
{
    check_info_mesh(synth_mesh, 20, 400);
}

static void test_info_boneman_mesh(void)
{
    check_info_mesh(BONEMAN "boneman.md5mesh", 40, 2203);
}

static void test_info_cube_mesh(void)
{
    tool_result r = run_tool("info --json '" ASSIMP_CUBE "'", false);
    CHECK(r.status == 0);
    check_mesh_info(ASSIMP_CUBE, r.output);
    CHECK(number_field(r.output, "joints") == 3);
    tool_result_free(&r);
}

/* info --json on the clips `prefix NAME .md5anim`, all of `joints` joints at `frame_rate`. */
static void check_info_clips(const char *prefix, const char *const *names, int count, int joints, int frame_rate)
{
    char arguments[4096] = "info --json";
    for (int i = 0; i < count; ++i) {
        size_t used = strlen(arguments);
        snprintf(arguments + used, sizeof arguments - used, " '%s%s.md5anim'", prefix, names[i]);
    }
    tool_result r = run_tool(arguments, false);
    CHECK(r.status == 0);
    /* One JSON object per line, in the order given. */
    char *line = r.output;
    for (int i = 0; i < count; ++i) {
        char path[PATH_SIZE];
        snprintf(path, sizeof path, "%s%s.md5anim", prefix, names[i]);
        file_facts facts = read_facts(path);
        char *end = line ? strchr(line, '\n') : NULL;
        CHECK(end != NULL);
        if (!end)
            break;
        *end = '\0';
        CHECK_STR_CONTAINS(line, path);
        CHECK_STR_CONTAINS(line, "\"type\":\"anim\"");
        bool ok = false;
        CHECK(bool_field(line, "ok", &ok) && ok);
        CHECK(facts.frames > 0 && facts.frames == facts.frame_blocks);
        CHECK(number_field(line, "frames") == facts.frames);
        CHECK(number_field(line, "frame_rate") == facts.frame_rate);
        CHECK(number_field(line, "frame_rate") == frame_rate);
        CHECK(number_field(line, "joints") == joints);
        CHECK(field(line, "vertices") == NULL);
        line = end + 1;
    }
    tool_result_free(&r);
}

static void test_info_clips(void)
{
    check_info_clips(CLIPS, asset_clips, (int)(sizeof asset_clips / sizeof *asset_clips), 31, 30);
}

static void test_info_boneman_clips(void)
{
    check_info_clips(BONEMAN "boneman_", boneman_clips, CLIP_COUNT, 40, 24);
}

/* info --json GOOD BAD: both files reported, one line each, exit 1. */
static void check_one_bad_among_good(const char *good, const char *bad)
{
    char arguments[2 * PATH_SIZE + 32];
    snprintf(arguments, sizeof arguments, "info --json '%s' '%s'", good, bad);
    tool_result r = run_tool(arguments, false);
    CHECK(r.status == 1);
    int lines = 0;
    for (const char *c = r.output; c && *c; ++c)
        lines += *c == '\n';
    CHECK(lines == 2);
    CHECK_STR_CONTAINS(r.output, good);
    CHECK_STR_CONTAINS(r.output, bad);
    tool_result_free(&r);
}

static void test_info_refuses_other_files(void)
{
    tool_result r = run_tool("info --json '" EMPTY "'", false);
    CHECK(r.status == 1);
    bool ok = true;
    CHECK(bool_field(r.output, "ok", &ok) && !ok);
    const char *error = field(r.output, "error");
    CHECK_STR_CONTAINS(error, "empty.md5mesh");
    tool_result_free(&r);

    const char *others[] = {folder, image, camera};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; ++i) {
        char arguments[PATH_SIZE + 32];
        snprintf(arguments, sizeof arguments, "info --json '%s'", others[i]);
        r = run_tool(arguments, false);
        CHECK(r.status == 1);
        ok = true;
        CHECK(bool_field(r.output, "ok", &ok) && !ok);
        CHECK(field(r.output, "error") != NULL);
        CHECK(field(r.output, "type") == NULL); /* refused, not guessed at */
        tool_result_free(&r);

        /* The plain summary says so too, with the file's name. */
        snprintf(arguments, sizeof arguments, "info '%s'", others[i]);
        r = run_tool(arguments, false);
        CHECK(r.status == 1);
        CHECK_STR_CONTAINS(r.output, others[i]);
        tool_result_free(&r);
    }

    /* A FIFO named like a clip is refused before it is opened: opening it would wait for a writer
     * forever. */
    char arguments[PATH_SIZE + 32];
    snprintf(arguments, sizeof arguments, "info --json '%s'", fifo);
    r = run_tool(arguments, false);
    CHECK(r.status == 1);
    CHECK_STR_CONTAINS(field(r.output, "error"), "not a regular file");
    tool_result_free(&r);

    /* An animation under a mesh extension: the extension decides, the parser disagrees, it is an error. */
    snprintf(arguments, sizeof arguments, "info --json '%s'", swapped);
    r = run_tool(arguments, false);
    CHECK(r.status == 1);
    CHECK_STR_CONTAINS(r.output, "\"type\":\"mesh\"");
    CHECK_STR_CONTAINS(field(r.output, "error"), "swapped.md5mesh");
    tool_result_free(&r);

    /* One bad file among good ones: every file reported, exit 1. */
    check_one_bad_among_good(tiny_mesh, EMPTY);
}

static void test_info_refuses_assimp_empty(void)
{
    tool_result r = run_tool("info --json '" ASSIMP_EMPTY "'", false);
    CHECK(r.status == 1);
    bool ok = true;
    CHECK(bool_field(r.output, "ok", &ok) && !ok);
    CHECK_STR_CONTAINS(field(r.output, "error"), "empty.md5mesh");
    tool_result_free(&r);
    check_one_bad_among_good(ASSIMP_CUBE, ASSIMP_EMPTY);
}

static void test_usage_errors(void)
{
    const char *wrong[] = {"", "info", "frobnicate", "info --yaml x.md5mesh", "check only.md5mesh",
                           "pose a.md5mesh b.md5anim",
                           "pose a.md5mesh b.md5anim --frame 1 --time 2", "skin a.md5mesh --frame 1",
                           "pose a.md5mesh b.md5anim --frame nan", "synth", "bench", "bench teleport", "lod",
                           "lod a.md5mesh --stand-in 0", "lod a.md5mesh --borders round",
                           "lod a.md5mesh --write-level 9 b.md5mesh", "lod a.md5mesh --max-error 2",
                           /* graph: no folder, no --out, a format it cannot write, a value missing, two
                            * folders, an unknown option */
                           "graph", "graph config", "graph --out x.svg", "graph config --out x.jpg",
                           "graph config --out", "graph config --out x.dot --character", "graph a b --out x.dot",
                           "graph config --out x.dot --rankdir LR",
                           /* feet: no folder, a count out of range, a value missing, --set without '=' */
                           "feet", "feet config --speeds 0", "feet config --directions 361", "feet config --rate",
                           "feet config --set strafe", "feet config --top-speed -1", "feet a b"};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; ++i) {
        tool_result r = run_tool(wrong[i], true);
        if (r.status != 2)
            fprintf(stderr, "md5tool %s: exit %d\n", wrong[i], r.status);
        CHECK(r.status == 2);
        /* One line. */
        CHECK(r.size > 0 && strchr(r.output, '\n') == r.output + r.size - 1);
        tool_result_free(&r);
    }
    tool_result r = run_tool("--help", false);
    CHECK(r.status == 0);
    CHECK_STR_CONTAINS(r.output, "md5tool info");
    CHECK_STR_CONTAINS(r.output, "md5tool bench parse");
    tool_result_free(&r);
}

/* `md5tool COMMAND --help` (or -h, anywhere among its arguments) prints that command's usage on stdout
 * and exits 0; it used to be "unknown option". The full --help lists every command. */
static void test_command_help(void)
{
    static const char *const names[] = {"info",  "check", "pose", "skin", "render", "sheet",
                                        "bench", "synth", "trace", "lod", "graph", "feet"};
    tool_result all = run_tool("--help", false);
    CHECK(all.status == 0);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        char arguments[128], usage[128], listed[128];
        snprintf(usage, sizeof usage, "usage: md5tool %s", names[i]);
        snprintf(listed, sizeof listed, "\n  md5tool %s ", names[i]);
        for (int form = 0; form < 2; ++form) {
            snprintf(arguments, sizeof arguments, form == 0 ? "%s --help" : "%s some.md5mesh -h", names[i]);
            tool_result r = run_tool(arguments, false);
            bool starts = r.output && strncmp(r.output, usage, strlen(usage)) == 0;
            if (r.status != 0 || !starts)
                fprintf(stderr, "md5tool %s: exit %d, stdout: %s\n", arguments, r.status, r.output ? r.output : "");
            CHECK(r.status == 0);
            CHECK(starts);
            tool_result_free(&r);
        }
        CHECK(all.output && strstr(all.output, listed) != NULL);
    }
    tool_result_free(&all);
    /* After `--` every word is a file, even one called -h. */
    tool_result r = run_tool("sheet --out /nonexistent/x.png a.md5mesh -- -h", false);
    CHECK(r.status != 0);
    tool_result_free(&r);
}

/* check MESH (every clip `prefix NAME .md5anim`) exits 0; check MESH synth_anim (another skeleton) exits 1,
 * naming the clip. */
static void check_check(const char *mesh, const char *prefix, const char *const *names, int count)
{
    char arguments[4096];
    snprintf(arguments, sizeof arguments, "check '%s'", mesh);
    for (int i = 0; i < count; ++i) {
        size_t used = strlen(arguments);
        snprintf(arguments + used, sizeof arguments - used, " '%s%s.md5anim'", prefix, names[i]);
    }
    tool_result r = run_tool(arguments, true);
    CHECK(r.status == 0);
    tool_result_free(&r);

    /* A clip of another skeleton: the message names the first differing joint. */
    snprintf(arguments, sizeof arguments, "check '%s' '%s'", mesh, synth_anim);
    r = run_tool(arguments, true);
    CHECK(r.status == 1);
    CHECK_STR_CONTAINS(r.output, "walk.md5anim");
    CHECK_STR_CONTAINS(r.output, "joint");
    tool_result_free(&r);
}

static void test_check(void)
{
    check_check(MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh", CLIPS, asset_clips,
                (int)(sizeof asset_clips / sizeof *asset_clips));

    char arguments[4096];
    snprintf(arguments, sizeof arguments, "check '%s' '%s' '%s'", synth_mesh, synth_anim, renamed_anim);
    tool_result r = run_tool(arguments, true);
    CHECK(r.status == 1);
    CHECK_STR_CONTAINS(r.output, "renamed.md5anim");
    CHECK_STR_CONTAINS(r.output, "nape");
    tool_result_free(&r);
}

static void test_check_boneman(void)
{
    check_check(BONEMAN "boneman.md5mesh", BONEMAN "boneman_", boneman_clips, CLIP_COUNT);
}

/* Compares md5tool's pose --json with the pose this test computes from the file's text. */
static void check_pose(const char *mesh, const char *anim, int frame, const char *time_argument)
{
    static joint_facts expected; /* static: a few kilobytes, and read_anim_pose always fills it */
    CHECK(read_anim_pose(anim, frame, &expected));
    char arguments[2 * PATH_SIZE + 64];
    snprintf(arguments, sizeof arguments, "pose --json '%s' '%s' %s", mesh, anim, time_argument);
    tool_result r = run_tool(arguments, false);
    CHECK(r.status == 0);
    const char *at = r.output;
    int joints = 0;
    for (int j = 0; j < expected.count; ++j) {
        at = field(at, "parent");
        if (!at)
            break;
        CHECK(strtol(at, NULL, 10) == expected.parents[j]);
        double position[3], rotation[4];
        at = read_numbers(field(at, "pos"), position, 3);
        at = read_numbers(field(at, "orient"), rotation, 4);
        if (!at)
            break;
        joints++;
        for (int k = 0; k < 3; ++k)
            CHECK_NEAR(position[k], expected.position[j][k], 1e-4 * (1.0 + fabs(expected.position[j][k])));
        /* q and -q are one rotation. */
        double dot = 0.0;
        for (int k = 0; k < 4; ++k)
            dot += rotation[k] * expected.rotation[j][k];
        CHECK_NEAR(fabs(dot), 1.0, 1e-5);
    }
    CHECK(joints == expected.count);
    tool_result_free(&r);
}

static void test_pose(void)
{
    /* Root not animated: at frame 0 it is exactly its baseframe values. */
    tool_result r;
    char arguments[2 * PATH_SIZE + 64];
    snprintf(arguments, sizeof arguments, "pose --json '%s' '%s' --frame 0", tiny_mesh, tiny_anim);
    r = run_tool(arguments, false);
    CHECK(r.status == 0);
    double position[3], rotation[4];
    CHECK(read_numbers(field(r.output, "pos"), position, 3) != NULL);
    CHECK(read_numbers(field(r.output, "orient"), rotation, 4) != NULL);
    CHECK_NEAR(position[0], 0.25, 1e-6);
    CHECK_NEAR(position[1], -0.5, 1e-6);
    CHECK_NEAR(position[2], 0.75, 1e-6);
    double sign = rotation[3] <= 0.0 ? 1.0 : -1.0;
    CHECK_NEAR(sign * rotation[0], 0.1, 1e-6);
    CHECK_NEAR(sign * rotation[1], 0.2, 1e-6);
    CHECK_NEAR(sign * rotation[2], 0.3, 1e-6);
    CHECK_NEAR(sign * rotation[3], -sqrt(1.0 - 0.01 - 0.04 - 0.09), 1e-6);
    tool_result_free(&r);
    check_pose(tiny_mesh, tiny_anim, 1, "--time 0.1");

    /* Whole clips: every joint, at frame 0 (roots: baseframe overridden by frame 0, as the flags say)
     * and at a later frame given as a time. */
    for (size_t i = 0; i < sizeof asset_clips / sizeof *asset_clips; ++i) {
        char anim[PATH_SIZE];
        snprintf(anim, sizeof anim, CLIPS "%s.md5anim", asset_clips[i]);
        check_pose(MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh", anim, 0, "--frame 0");
        check_pose(MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh", anim, 1, "--time 0.033333333");
    }
    check_pose(synth_mesh, synth_anim, 7, "--frame 7");

    /* Plain text names the joints. */
    snprintf(arguments, sizeof arguments, "pose '%s' '%s' --frame 3", synth_mesh, synth_anim);
    r = run_tool(arguments, false);
    CHECK(r.status == 0);
    CHECK_STR_CONTAINS(r.output, "neck");
    tool_result_free(&r);

    /* A clip that does not fit is refused, naming the joint. */
    snprintf(arguments, sizeof arguments, "pose --json '%s' '%s' --frame 0", synth_mesh, renamed_anim);
    r = run_tool(arguments, true);
    CHECK(r.status == 1);
    CHECK_STR_CONTAINS(r.output, "nape");
    tool_result_free(&r);
}

/* The boneman clips, as test_pose does the generated ones; plain text names boneman's joints. */
static void test_pose_boneman(void)
{
    for (int i = 0; i < CLIP_COUNT; ++i) {
        char anim[PATH_SIZE];
        snprintf(anim, sizeof anim, "%sboneman_%s.md5anim", BONEMAN, boneman_clips[i]);
        check_pose(BONEMAN "boneman.md5mesh", anim, 0, "--frame 0");
        check_pose(BONEMAN "boneman.md5mesh", anim, 1, "--time 0.041666667");
    }
    tool_result r = run_tool("pose '" BONEMAN "boneman.md5mesh' '" BONEMAN "boneman_idle.md5anim' --frame 3", false);
    CHECK(r.status == 0);
    CHECK_STR_CONTAINS(r.output, "LeftFingersTip");
    tool_result_free(&r);
}

/* md5tool skin --json MESH [ANIM --frame F] against positions this test computes from the text. */
static void check_skin(const char *mesh, const char *anim, int frame)
{
    enum { CAPACITY = 20000 };
    static double expected[CAPACITY][3];
    static joint_facts posed;
    if (anim)
        CHECK(read_anim_pose(anim, frame, &posed));
    int count = read_positions(mesh, anim ? &posed : NULL, expected, CAPACITY);
    CHECK(count > 0);
    char arguments[2 * PATH_SIZE + 64];
    if (anim)
        snprintf(arguments, sizeof arguments, "skin --json '%s' '%s' --frame %d", mesh, anim, frame);
    else
        snprintf(arguments, sizeof arguments, "skin --json '%s'", mesh);
    tool_result r = run_tool(arguments, false);
    CHECK(r.status == 0);
    const char *at = field(r.output, "positions");
    int seen = 0, far = 0;
    while (at && seen < count) {
        at = strchr(at, '[');
        if (at && at[1] == '[')
            ++at; /* the array of positions opens: step into its first position */
        double position[3];
        at = read_numbers(at, position, 3);
        if (!at)
            break;
        for (int k = 0; k < 3; ++k)
            far += !(fabs(position[k] - expected[seen][k]) <= 1e-4 * (1.0 + fabs(expected[seen][k])));
        seen++;
    }
    CHECK(seen == count);
    CHECK(far == 0);
    if (far)
        fprintf(stderr, "  %d coordinates differ: md5tool %s\n", far, arguments);
    tool_result_free(&r);
}

/* skin --json MESH ANIM --time 0.3: one position per vertex, all finite. */
static void check_skin_finite(const char *mesh, const char *anim, int vertices)
{
    char arguments[2 * PATH_SIZE + 64];
    snprintf(arguments, sizeof arguments, "skin --json '%s' '%s' --time 0.3", mesh, anim);
    tool_result r = run_tool(arguments, false);
    CHECK(r.status == 0);
    int numbers = 0, finite = 0;
    const char *at = field(r.output, "positions");
    while (at && (at = strpbrk(at, "-0123456789n")) != NULL) {
        char *end = NULL;
        double value = strtod(at, &end);
        if (end == at)
            break;
        numbers++;
        finite += isfinite(value) != 0;
        at = end;
    }
    CHECK(numbers == 3 * vertices);
    CHECK(finite == numbers);
    CHECK(r.output && strstr(r.output, "null") == NULL);
    tool_result_free(&r);
}

static void test_skin(void)
{
    check_skin(tiny_mesh, NULL, 0);
    check_skin(synth_mesh, NULL, 0);
    check_skin(MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh", CLIPS "run.md5anim", 9);
    check_skin(synth_mesh, synth_anim, 4);
    check_skin(tiny_mesh, tiny_anim, 1);
    check_skin_finite(synth_mesh, synth_anim, 400);
}

/* `lod`: the levels of the mannequin as JSON, level 0 holding the file's own triangle count (read with
 * sscanf here), fewer triangles at every level, errors that never shrink; --write-level writes a file the
 * engine reads back with that level's triangles and the file's vertices; a level the mesh lacks is refused. */
/* Every number of a JSON text after key, in order, up to capacity; the count read. */
static int all_numbers(const char *json, const char *key, double *out, int capacity)
{
    const char *at = field(json, key);
    int count = 0;
    while (at && count < capacity && (at = strpbrk(at, "-0123456789")) != NULL) {
        char *end = NULL;
        out[count] = strtod(at, &end);
        if (end == at)
            break;
        ++count;
        at = end;
    }
    return count;
}

/* How many numbers of two outputs differ by more than tolerance (all of them when the counts differ). */
static int numbers_apart(const char *a, const char *b, const char *key, double tolerance, int *count)
{
    enum { CAPACITY = 60000 };
    static double first[CAPACITY], second[CAPACITY];
    int n = all_numbers(a, key, first, CAPACITY), m = all_numbers(b, key, second, CAPACITY);
    *count = n;
    if (n != m || n == 0)
        return n > m ? n : m + 1;
    int apart = 0;
    for (int i = 0; i < n; ++i)
        apart += !(fabs(first[i] - second[i]) <= tolerance);
    return apart;
}

/* md5tool skin --skinning dq: the renderer's CPU dual-quaternion path (gfx_cpu_skin: the palette of
 * pose_dual_quaternion_palette through pose_skin_cpu_dual_quaternion) worked out here on the mannequin's run,
 * equal to what md5tool prints; and not the linear blend's, which differs at bent joints. */
static void test_skin_dual_quaternion(void)
{
    const char *mesh_path = MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh";
    model *m = NULL;
    clip *c = NULL;
    diag err;
    CHECK(loader_load_model(mesh_path, &m, &err, NULL) && loader_load_clip(CLIPS "run.md5anim", &c, &err, NULL));
    if (!m || !c) {
        model_free(m);
        clip_free(c);
        return;
    }
    const skeleton *s = &m->skeleton;
    joint_pose *object = malloc((size_t)s->joint_count * sizeof *object);
    pose_dual_quaternion *palette = malloc((size_t)s->joint_count * sizeof *palette);
    const skin_mesh *body = &m->meshes[0];
    float (*positions)[3] = malloc((size_t)body->vertex_count * sizeof *positions);
    float (*normals)[3] = malloc((size_t)body->vertex_count * sizeof *normals);
    CHECK(object && palette && positions && normals);
    float time = 9.0f / c->frame_rate;
    CHECK(pose_sample(c, time, false, object) && pose_to_object(s->parents, s->joint_count, object, object));
    CHECK(pose_dual_quaternion_palette(object, s->bind_object, s->joint_count, palette));
    CHECK(pose_skin_cpu_dual_quaternion(body, palette, s->joint_count, positions, normals));

    tool_result dq = run_tool("skin --json '" MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh' '" CLIPS
                              "run.md5anim' --frame 9 --skinning dq", false);
    tool_result linear = run_tool("skin --json '" MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh' '" CLIPS
                                  "run.md5anim' --frame 9 --skinning linear", false);
    CHECK(dq.status == 0 && linear.status == 0);
    enum { CAPACITY = 60000 };
    static double printed[CAPACITY];
    int count = all_numbers(dq.output, "positions", printed, CAPACITY);
    CHECK(count >= 3 * body->vertex_count);
    int apart = 0;
    for (int v = 0; v < body->vertex_count && 3 * v + 2 < count; ++v)
        for (int k = 0; k < 3; ++k)
            apart += !(fabs(printed[3 * v + k] - positions[v][k]) <= 1e-6);
    CHECK(apart == 0);
    int numbers = 0;
    int differ = numbers_apart(dq.output, linear.output, "positions", 1e-4, &numbers);
    printf("  mannequin, run frame 9: dual quaternions equal the CPU reference at %d vertices; %d of %d coordinates "
           "move more than 0.1 mm from linear blend\n", body->vertex_count, differ, numbers);
    CHECK(differ > 0 && differ < numbers);
    tool_result_free(&dq);
    tool_result_free(&linear);
    tool_result bad = run_tool("skin '" MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh' --skinning cubic", true);
    CHECK(bad.status == 2);
    CHECK_STR_CONTAINS(bad.output, "--skinning takes linear, dq or dual_quaternion, not 'cubic'");
    tool_result_free(&bad);
    free(object);
    free(palette);
    free(positions);
    free(normals);
    model_free(m);
    clip_free(c);
}

/* md5tool pose --add: weight 0 prints the pose without it, number for number; the run's deltas from the walk's
 * first frame added in full to the walk's first frame give the run's first frame (to rounding); a weight out
 * of 0..1 and --weight without --add are usage errors. */
static void test_pose_additive(void)
{
    const char *mesh = "'" MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh'";
    char arguments[1024];
    snprintf(arguments, sizeof arguments, "pose --json %s '%swalk.md5anim' --frame 4", mesh, CLIPS);
    tool_result plain = run_tool(arguments, false);
    snprintf(arguments, sizeof arguments, "pose --json %s '%swalk.md5anim' --frame 4 --add '%slean_left.md5anim' --weight 0",
             mesh, CLIPS, CLIPS);
    tool_result nothing = run_tool(arguments, false);
    snprintf(arguments, sizeof arguments, "pose --json %s '%swalk.md5anim' --frame 4 --add '%slean_left.md5anim' --weight 0.5",
             mesh, CLIPS, CLIPS);
    tool_result half = run_tool(arguments, false);
    snprintf(arguments, sizeof arguments,
             "pose --json %s '%swalk.md5anim' --frame 0 --add '%srun.md5anim' --reference '%swalk.md5anim' "
             "--reference-frame 0",
             mesh, CLIPS, CLIPS, CLIPS);
    tool_result added = run_tool(arguments, false);
    snprintf(arguments, sizeof arguments, "pose --json %s '%srun.md5anim' --frame 0", mesh, CLIPS);
    tool_result run = run_tool(arguments, false);
    CHECK(plain.status == 0 && nothing.status == 0 && half.status == 0 && added.status == 0 && run.status == 0);
    int numbers = 0;
    CHECK(numbers_apart(plain.output, nothing.output, "joints", 0.0, &numbers) == 0 && numbers > 100);
    CHECK(numbers_apart(plain.output, half.output, "joints", 1e-4, &numbers) > 0);
    CHECK(numbers_apart(added.output, run.output, "joints", 2e-5, &numbers) == 0);
    tool_result_free(&plain);
    tool_result_free(&nothing);
    tool_result_free(&half);
    tool_result_free(&added);
    tool_result_free(&run);
    static const struct {
        const char *arguments, *message;
    } bad[] = {
        {"--frame 1 --add x.md5anim --weight 1.5", "--weight takes a number from 0 to 1, not '1.5'"},
        {"--frame 1 --weight 0.5", "--reference, --reference-frame and --weight go with --add CLIP"},
        {"--frame 1 --skinning dq", "--skinning is for skin and render"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        snprintf(arguments, sizeof arguments, "pose %s '%swalk.md5anim' %s", mesh, CLIPS, bad[i].arguments);
        tool_result r = run_tool(arguments, true);
        CHECK(r.status == 2);
        CHECK_STR_CONTAINS(r.output, bad[i].message);
        tool_result_free(&r);
    }
}

static void test_lod(void)
{
    const char *mesh = MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh";
    file_facts facts = read_facts(mesh);
    char arguments[2 * PATH_SIZE + 64];
    snprintf(arguments, sizeof arguments, "lod '%s' --json", mesh);
    tool_result r = run_tool(arguments, false);
    CHECK(r.status == 0);
    CHECK(number_field(r.output, "level_count") == 5);
    bool stand_in = false;
    CHECK(bool_field(r.output, "last_is_stand_in", &stand_in) && stand_in);
    double triangles[5] = {0}, vertices[5] = {0}, errors[5] = {0};
    const char *at = field(r.output, "levels");
    for (int l = 0; l < 5 && at; ++l) {
        at = strstr(at, "\"level\":");
        triangles[l] = number_field(at, "triangles");
        vertices[l] = number_field(at, "vertices");
        errors[l] = number_field(at, "error");
        at = at ? at + 1 : NULL;
    }
    CHECK(triangles[0] == facts.triangles);
    CHECK(vertices[0] == facts.vertices);
    CHECK(errors[0] == 0.0);
    for (int l = 1; l < 5; ++l) {
        CHECK(triangles[l] < triangles[l - 1]);
        CHECK(vertices[l] < vertices[l - 1]);
        CHECK(errors[l] >= errors[l - 1] && errors[l] > 0.0);
    }
    tool_result_free(&r);

    char written[PATH_SIZE];
    snprintf(written, sizeof written, "%s/level3.md5mesh", folder);
    snprintf(arguments, sizeof arguments, "lod '%s' --write-level 3 '%s'", mesh, written);
    r = run_tool(arguments, false);
    CHECK(r.status == 0);
    CHECK_STR_CONTAINS(r.output, "level 3:");
    tool_result_free(&r);
    file_facts level = read_facts(written);
    CHECK(level.triangles == (int)triangles[3]);
    CHECK(level.vertices == facts.vertices);
    CHECK(level.weights == facts.weights);
    CHECK(level.joints == facts.joints);
    snprintf(arguments, sizeof arguments, "info --json '%s'", written);
    r = run_tool(arguments, false);
    CHECK(r.status == 0);
    CHECK(number_field(r.output, "triangles") == triangles[3]);
    tool_result_free(&r);

    /* The one-triangle mesh cannot get coarser: one level, and level 1 is refused. */
    snprintf(arguments, sizeof arguments, "lod '%s' --write-level 1 '%s'", tiny_mesh, written);
    r = run_tool(arguments, true);
    CHECK(r.status == 1);
    CHECK_STR_CONTAINS(r.output, "levels 0..0");
    tool_result_free(&r);
}

static void test_skin_boneman(void)
{
    check_skin(BONEMAN "boneman.md5mesh", NULL, 0);
    check_skin(BONEMAN "boneman.md5mesh", BONEMAN "boneman_idle.md5anim", 0);
    check_skin(BONEMAN "boneman.md5mesh", BONEMAN "boneman_running.md5anim", 17);
    check_skin_finite(BONEMAN "boneman.md5mesh", BONEMAN "boneman_running.md5anim", 2203);
}

static void test_skin_cube(void)
{
    check_skin(ASSIMP_CUBE, NULL, 0);
}

static void test_synth_command(void)
{
    char arguments[3 * PATH_SIZE];
    snprintf(arguments, sizeof arguments,
             "synth '%s' --joints 40 --vertices 500 --triangles 900 --frames 9 --rate 60 --seed 11", synth_folder);
    tool_result r = run_tool(arguments, true);
    CHECK(r.status == 0);
    tool_result_free(&r);

    snprintf(arguments, sizeof arguments, "info --json '%s/synth.md5mesh' '%s/synth.md5anim'", synth_folder,
             synth_folder);
    r = run_tool(arguments, false);
    CHECK(r.status == 0);
    CHECK(number_field(r.output, "joints") == 40);
    CHECK(number_field(r.output, "vertices") == 500);
    CHECK(number_field(r.output, "triangles") == 900);
    CHECK(number_field(r.output, "weights") == 2000);
    CHECK(number_field(r.output, "max_weights") == 4);
    const char *anim_line = r.output ? strchr(r.output, '\n') : NULL;
    CHECK(anim_line && number_field(anim_line, "frames") == 9);
    CHECK(anim_line && number_field(anim_line, "frame_rate") == 60);
    tool_result_free(&r);

    /* Mesh and clip from one generator call fit each other. */
    snprintf(arguments, sizeof arguments, "check '%s/synth.md5mesh' '%s/synth.md5anim'", synth_folder, synth_folder);
    r = run_tool(arguments, true);
    CHECK(r.status == 0);
    tool_result_free(&r);
}

static void test_bench_parse_summary(void)
{
    char arguments[PATH_SIZE + 32];
    snprintf(arguments, sizeof arguments, "bench parse '%s'", synth_anim);
    tool_result r = run_tool(arguments, false);
    CHECK(r.status == 0);
    /* The last line is the summary, in exactly this shape. */
    const char *last = r.output;
    for (const char *c = r.output; c && *c; ++c)
        if (*c == '\n' && c[1])
            last = c + 1;
    double speed = 0.0, size = 0.0;
    int runs = 0;
    CHECK(last && sscanf(last, "parse: %lf MB/s (%lf MB, median of %d)", &speed, &size, &runs) == 3);
    CHECK(speed > 0.0);
    CHECK(runs == 15);
    struct stat info;
    CHECK(stat(synth_anim, &info) == 0);
    CHECK_NEAR(size, (double)info.st_size / 1e6, 0.006);
    tool_result_free(&r);
}

/* json.h, the writer behind every --json: escaping, commas, numbers that read back exactly, no NaN. */
static void test_json_writer(void)
{
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return;
    json_writer w = json_writer_start(f);
    json_object_begin(&w);
    json_key(&w, "text");
    json_string(&w, "a\"b\\c\n\t\x01\x1f/\x7f");
    json_key(&w, "list");
    json_array_begin(&w);
    json_number(&w, 0.1f);
    json_number(&w, NAN);
    json_number(&w, -INFINITY);
    json_integer(&w, -42);
    json_bool(&w, true);
    json_null(&w);
    json_array_begin(&w);
    json_array_end(&w);
    json_object_begin(&w);
    json_object_end(&w);
    json_string(&w, NULL);
    json_array_end(&w);
    json_key(&w, "last");
    json_number(&w, 16777217.0);
    json_object_end(&w);
    char text[512] = "";
    rewind(f);
    size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
    CHECK(strcmp(text, "{\"text\":\"a\\\"b\\\\c\\n\\t\\u0001\\u001f/\\u007f\","
                       "\"list\":[0.100000001,null,null,-42,true,null,[],{},null],\"last\":16777217}") == 0);

    /* json_fixed: rounded to the places asked, trailing zeros dropped, no "-0", big and non-finite values as
     * json_number writes them. */
    char *fixed_text = NULL;
    size_t fixed_size = 0;
    FILE *memory = open_memstream(&fixed_text, &fixed_size);
    w = json_writer_start(memory);
    json_array_begin(&w);
    const double fixed[] = {0.5, -1.25, 3.0, 0.0, -0.0000004, 0.0000005, 1.2345675, -987654.3210004, 0.1, 2e9, NAN};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i)
        json_fixed(&w, fixed[i], 6);
    json_fixed(&w, 2.5, 0);
    json_fixed(&w, 0.123456789, 9);
    json_array_end(&w);
    fclose(memory);
    snprintf(text, sizeof text, "%s", fixed_text ? fixed_text : "");
    free(fixed_text);
    CHECK(strcmp(text, "[0.5,-1.25,3,0,0,0.000001,1.234568,-987654.321,0.1,2e+09,null,3,0.123456789]") == 0);
    if (strcmp(text, "[0.5,-1.25,3,0,0,0.000001,1.234568,-987654.321,0.1,2e+09,null,3,0.123456789]") != 0)
        fprintf(stderr, "  json_fixed wrote %s\n", text);

    /* Numbers as written give every float back bit for bit. */
    const float samples[] = {0.1f, 1.0f / 3.0f, -123456.789f, 1e-30f, 3.4e38f, 1.17549435e-38f, -0.0f};
    f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return;
    w = json_writer_start(f);
    json_array_begin(&w);
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; ++i)
        json_number(&w, samples[i]);
    json_array_end(&w);
    rewind(f);
    got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
    double read_back[sizeof samples / sizeof samples[0]];
    CHECK(read_numbers(text, read_back, (int)(sizeof samples / sizeof samples[0])) != NULL);
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; ++i)
        CHECK((float)read_back[i] == samples[i]);
}

/* ---- feet ---------------------------------------------------------------------------------------- */

static int count_of(const char *text, const char *word)
{
    int count = 0;
    for (const char *at = text ? strstr(text, word) : NULL; at; at = strstr(at + 1, word))
        ++count;
    return count;
}

/* md5tool feet on the demo's config/: a line per case and a summary, or one JSON object; the strafe blend's
 * weights sum to 1 and nothing is NaN; --max-drift fails the run when a contact drifts more; what cannot be
 * measured is an error, in one line. (tests/test_trace.c measures the whole sweep through the same code.) */
static void test_feet(void)
{
    char arguments[1024];
    snprintf(arguments, sizeof arguments,
             "feet '%s/config' --state strafe --set strafe=true --speeds 3 --directions 4 --seconds 2",
             MARIONETTE_SOURCE_DIR);
    tool_result r = run_tool(arguments, false);
    CHECK(r.status == 0);
    /* 3 speeds x 4 directions, then the summary and what the lock (on by default: characters.ini) did */
    CHECK(count_of(r.output, "\n") == 14);
    CHECK_STR_CONTAINS(r.output, "speed 0.000 m/s direction   0.0 deg: 2 contacts, worst drift ");
    CHECK_STR_CONTAINS(r.output, "speed 3.500 m/s direction 270.0 deg: ");
    CHECK_STR_CONTAINS(r.output, "mannequin in state strafe, foot lock on, 12 cases (3 speeds 0 to 3.500 m/s x 4 "
                                 "directions) at 60 Hz, 2 s each: worst drift 0.00 mm");
    CHECK_STR_CONTAINS(r.output, "\nthe lock moved an ankle ");
    CHECK_STR_CONTAINS(r.output, "; 0 knee flips\n");
    CHECK_STR_CONTAINS(r.output, "; no NaN\n");
    CHECK(!strstr(r.output, "NaN,") && !strstr(r.output, "left the state"));
    printf("%s", r.output);
    tool_result_free(&r);

    snprintf(arguments, sizeof arguments,
             "feet '%s/config' --state strafe --set strafe=true --speeds 2 --directions 2 --seconds 2 --json",
             MARIONETTE_SOURCE_DIR);
    r = run_tool(arguments, false);
    CHECK(r.status == 0);
    CHECK(count_of(r.output, "\"speed\":") == 5); /* four cases and the worst */
    bool finite = false, reached = false;
    CHECK(bool_field(r.output, "finite", &finite) && finite);
    CHECK(bool_field(r.output, "reached_state", &reached) && reached);
    CHECK(number_field(r.output, "cases_without_contact") == 0.0);
    const char *worst = field(r.output, "worst");
    CHECK(worst && number_field(worst, "weight_error") <= 1e-6);
    CHECK(number_field(worst, "worst_drift_mm") < 2.0);
    CHECK(bool_field(r.output, "lock", &finite) && finite);
    CHECK(number_field(r.output, "knee_flips") == 0.0);
    tool_result_free(&r);

    /* Without the lock, the blend's own drift: far more, and the lock's figures all 0. */
    snprintf(arguments, sizeof arguments,
             "feet '%s/config' --state strafe --set strafe=true --speeds 1 --top-speed 3.3 --directions 16 --seconds 2 "
             "--json --lock off",
             MARIONETTE_SOURCE_DIR);
    r = run_tool(arguments, false);
    CHECK(r.status == 0);
    worst = field(r.output, "worst");
    CHECK(worst && number_field(worst, "worst_drift_mm") > 2.0);
    CHECK(bool_field(r.output, "lock", &finite) && !finite);
    CHECK(number_field(r.output, "worst_correction_mm") == 0.0);
    tool_result_free(&r);

    /* A bound below what the run measures: exit 1. */
    snprintf(arguments, sizeof arguments, "feet '%s/config' --speeds 2 --seconds 1 --max-drift 0.0001 --lock off",
             MARIONETTE_SOURCE_DIR);
    r = run_tool(arguments, false);
    CHECK(r.status == 1);
    tool_result_free(&r);

    /* Into strafe without its way in: the machine stays in locomotion, which the run says, with exit 1. */
    snprintf(arguments, sizeof arguments, "feet '%s/config' --state strafe --speeds 1 --directions 1 --seconds 1",
             MARIONETTE_SOURCE_DIR);
    r = run_tool(arguments, false);
    CHECK(r.status == 1);
    CHECK_STR_CONTAINS(r.output, "left the state");
    tool_result_free(&r);

    /* What the character cannot do, in one line: exit 2 for the command line, 1 for the config. */
    static const struct {
        const char *arguments;
        int status;
        const char *says;
    } wrong[] = {
        {"--state nowhere", 1, "has no state 'nowhere'"},
        {"--directions 4", 2, "plays no 2D blend"},
        {"--set nothing=1", 2, "has no parameter 'nothing'"},
        {"--set strafe=maybe", 2, "'strafe' is a bool"},
        {"--feet foot.L,ankle", 2, "'ankle' is not one"},
        {"--feet foot.L,foot.L", 2, "--feet names 'foot.L' twice"},
        {"--lock maybe", 2, "--lock needs on or off, not 'maybe'"},
    };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; ++i) {
        snprintf(arguments, sizeof arguments, "feet '%s/config' %s", MARIONETTE_SOURCE_DIR, wrong[i].arguments);
        r = run_tool(arguments, true);
        CHECK(r.status == wrong[i].status);
        CHECK_STR_CONTAINS(r.output, wrong[i].says);
        CHECK(r.size > 0 && strchr(r.output, '\n') == r.output + r.size - 1);
        tool_result_free(&r);
    }
}

/* ---- graph --------------------------------------------------------------------------------------- */

/* The node name (s0, s1, ...) the DOT text gives the state called `name`: its label starts <b>NAME</b>. */
static bool dot_node_of(const char *dot, const char *name, char *id, size_t size)
{
    char label[128];
    snprintf(label, sizeof label, " [label=<<b>%s</b>", name);
    const char *at = strstr(dot, label);
    if (!at)
        return false;
    const char *line = at;
    while (line > dot && line[-1] != '\n')
        --line;
    while (*line == ' ')
        ++line;
    snprintf(id, size, "%.*s", (int)(at - line), line);
    return true;
}

/* `FROM -> TO [label="LABEL"` is in the DOT text (FROM `any` for the any-state node). */
static bool dot_has_edge(const char *dot, const char *from, const char *to, const char *label)
{
    char from_id[32] = "any", to_id[32], edge[256];
    if ((strcmp(from, "any") != 0 && !dot_node_of(dot, from, from_id, sizeof from_id)) ||
        !dot_node_of(dot, to, to_id, sizeof to_id))
        return false;
    snprintf(edge, sizeof edge, "  %s -> %s [label=\"%s\"", from_id, to_id, label);
    return strstr(dot, edge) != NULL;
}

static int count_lines_with(const char *text, const char *needle)
{
    int count = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        for (size_t i = 0; i + strlen(needle) <= length; ++i)
            if (strncmp(line + i, needle, strlen(needle)) == 0) {
                ++count;
                break;
            }
        line = end ? end + 1 : NULL;
    }
    return count;
}

static bool dot_is_installed(void)
{
    return system("command -v dot >/dev/null 2>&1") == 0;
}

/* graph on the demo's config/: every state of config/states.ini with its clip, every transition with its
 * condition as the file writes it (an `or` joined again), fade and priority, the parameters, the start
 * state marked; twice the same bytes. The expected labels are copied from config/states.ini by hand. */
static void test_graph_demo_dot(void)
{
    char path[PATH_SIZE + 32], again[PATH_SIZE + 32];
    snprintf(path, sizeof path, "%s/demo.dot", folder);
    snprintf(again, sizeof again, "%s/demo_again.dot", folder);
    char arguments[2 * PATH_SIZE];
    snprintf(arguments, sizeof arguments, "graph '%s/config' --out '%s'", MARIONETTE_SOURCE_DIR, path);
    tool_result r = run_tool(arguments, true);
    CHECK(r.status == 0);
    CHECK(r.size == 0); /* nothing said on success */
    tool_result_free(&r);
    snprintf(arguments, sizeof arguments, "graph '%s/config' --character mannequin --out '%s'",
             MARIONETTE_SOURCE_DIR, again);
    r = run_tool(arguments, true);
    CHECK(r.status == 0);
    tool_result_free(&r);
    size_t size = 0, again_size = 0;
    char *dot = test_read_file(path, &size);
    char *dot_again = test_read_file(again, &again_size);
    CHECK(dot && dot_again && size == again_size && memcmp(dot, dot_again, size) == 0);
    if (!dot) {
        free(dot_again);
        return;
    }
#define STRAFE_BLEND                                                                                            \
    "blend strafe (forward left):<br/>idle (0 0), walk (1.4 0), run (3.5 0), walk_back (-1.4 0), run_back (-3.5 0), " \
    "walk_left (0 1.4), run_left (0 3.5), walk_right (0 -1.4), run_right (0 -3.5), loop<br/>rate_from speed [0.5, 2]"
    static const struct {
        const char *name, *details;
    } states[] = {
        {"locomotion", "blend locomotion (speed):<br/>idle 0, walk 1.4, run 3.5, loop<br/>rate_from speed [0.5, 2]"
                       "<br/>overlay breathe on spine.01"},
        {"jump", "clip jump, one-shot"},
        {"turn_left", "clip turn_left, one-shot"},
        {"turn_right", "clip turn_right, one-shot"},
        {"celebrate", "clip celebrate, one-shot"},
        {"wave", "blend locomotion (speed):<br/>idle 0, walk 1.4, run 3.5, loop<br/>rate_from speed [0.5, 2]"
                 "<br/>overlay wave on clavicle.R"},
        {"strafe", STRAFE_BLEND},
        {"strafe_wave", STRAFE_BLEND "<br/>overlay wave on clavicle.R"},
        /* A blend's points as the file writes them (90, not 9e+01). */
        {"moving", "blend locomotion (speed):<br/>idle 0, walk 1.4, run 3.5, loop<br/>rate_from speed [0.5, 2]"
                   "<br/>overlay blend lean (turn_rate):<br/>lean_right -90, lean_left 90, rest 0 on spine.01"},
        {"flinch", "blend locomotion (speed):<br/>idle 0, walk 1.4, run 3.5, loop<br/>rate_from speed [0.5, 2]"
                   "<br/>overlay flinch on spine.01"},
    };
    for (size_t i = 0; i < sizeof states / sizeof states[0]; ++i) {
        char id[32], label[320];
        CHECK(dot_node_of(dot, states[i].name, id, sizeof id));
        snprintf(label, sizeof label, "<b>%s</b>%s<br/><font point-size=\"10\">%s</font>>", states[i].name,
                 strcmp(states[i].name, "locomotion") == 0 ? " <i>(start)</i>" : "", states[i].details);
        CHECK_STR_CONTAINS(dot, label);
    }
    CHECK_STR_CONTAINS(dot, "  start -> s0;\n"); /* locomotion, the start state, is the first */
    static const struct {
        const char *from, *to, *label;
    } edges[] = {
        {"any", "jump", "jump and grounded\\nfade 0.1, priority 10"},
        {"jump", "locomotion", "end\\nfade 0.2"},
        {"locomotion", "turn_left", "turn < -45 and speed < 0.15\\nfade 0.15"},
        {"locomotion", "turn_right", "turn > 45 and speed < 0.15\\nfade 0.15"},
        {"turn_left", "locomotion", "end or speed > 0.2 and time > 0.3\\nfade 0.2"},
        {"turn_right", "locomotion", "end or speed > 0.2 and time > 0.3\\nfade 0.2"},
        {"locomotion", "celebrate", "celebrate and speed < 0.2\\nfade 0.2"},
        {"celebrate", "locomotion", "end or speed > 0.2\\nfade 0.3"},
        {"locomotion", "wave", "wave\\nfade 0.2"},
        {"wave", "locomotion", "overlay_end\\nfade 0.3"},
        {"locomotion", "strafe", "strafe\\nfade 0.25"},
        {"strafe", "locomotion", "not strafe\\nfade 0.25"},
        {"strafe", "strafe_wave", "wave\\nfade 0.2"},
        {"strafe_wave", "strafe", "overlay_end\\nfade 0.3"},
        {"wave", "strafe_wave", "strafe\\nfade 0.25"},
        {"strafe_wave", "wave", "not strafe\\nfade 0.25"},
        {"locomotion", "moving", "speed > 0.3\\nfade 0.2"},
        {"moving", "strafe", "strafe\\nfade 0.25"},
        {"moving", "locomotion", "speed < 0.25\\nfade 0.2"},
        {"locomotion", "flinch", "hit\\nfade 0.1"},
        {"moving", "flinch", "hit\\nfade 0.1"},
        {"flinch", "moving", "overlay_end and speed > 0.3\\nfade 0.2"},
        {"flinch", "locomotion", "overlay_end\\nfade 0.2"},
        {"moving", "wave", "wave\\nfade 0.2"},
        {"wave", "moving", "overlay_end and speed > 0.3\\nfade 0.3, priority 1"},
    };
    int edge_count = (int)(sizeof edges / sizeof edges[0]);
    for (int i = 0; i < edge_count; ++i) {
        bool found = dot_has_edge(dot, edges[i].from, edges[i].to, edges[i].label);
        if (!found)
            fprintf(stderr, "graph: no edge %s -> %s \"%s\"\n", edges[i].from, edges[i].to, edges[i].label);
        CHECK(found);
    }
    /* No other edge: the transitions and the start arrow. */
    CHECK(count_lines_with(dot, " -> ") == edge_count + 1);
    CHECK_STR_CONTAINS(dot, "  any [label=<<i>any state</i>>");
    static const char *const parameters[] = {
        "<td align=\"left\">speed</td><td align=\"left\">number</td><td align=\"left\">0</td>",
        "<td align=\"left\">turn</td><td align=\"left\">number</td><td align=\"left\">0</td>",
        "<td align=\"left\">grounded</td><td align=\"left\">bool</td><td align=\"left\">true</td>",
        "<td align=\"left\">jump</td><td align=\"left\">trigger</td>",
        "<td align=\"left\">wave</td><td align=\"left\">trigger</td>",
        "<td align=\"left\">celebrate</td><td align=\"left\">trigger</td>",
        "<td align=\"left\">forward</td><td align=\"left\">number</td><td align=\"left\">0</td>",
        "<td align=\"left\">left</td><td align=\"left\">number</td><td align=\"left\">0</td>",
        "<td align=\"left\">strafe</td><td align=\"left\">bool</td><td align=\"left\">false</td>",
        "<td align=\"left\">turn_rate</td><td align=\"left\">number</td><td align=\"left\">0</td>",
        "<td align=\"left\">hit</td><td align=\"left\">trigger</td>",
        "trigger_hold 0.2 s"};
    for (size_t i = 0; i < sizeof parameters / sizeof parameters[0]; ++i)
        CHECK_STR_CONTAINS(dot, parameters[i]);
    free(dot);
    free(dot_again);
    unlink(path);
    unlink(again);
}

/* A config whose names DOT would misread unquoted (keywords node, graph, strict, edge; '-', '.', a
 * leading digit), a negative priority, a bool in both forms, restart, `time` and an `or`, and a default
 * that %g would round (999999.5 is not 1e+06). */
static const char odd_characters[] = "[odd-one.v2]\n"
                                     "mesh = " MARIONETTE_SOURCE_DIR "/assets/models/mannequin.md5mesh\n"
                                     "clips = clips.ini\n"
                                     "states = states.ini\n";
static const char odd_clips[] = "[x-y.z]\n"
                                "file = " MARIONETTE_SOURCE_DIR "/assets/clips/walk.md5anim\n"
                                "loop = true\n"
                                "speed = 1.4\n"
                                "[one.shot]\n"
                                "file = " MARIONETTE_SOURCE_DIR "/assets/clips/jump.md5anim\n"
                                "loop = false\n";
static const char odd_states[] = "[machine]\n"
                                 "start = node\n"
                                 "[parameters]\n"
                                 "strict = number 999999.5\n"
                                 "edge = bool false\n"
                                 "go = trigger\n"
                                 "[state node]\n"
                                 "clip = x-y.z\n"
                                 "[state a-b.c]\n"
                                 "clip = one.shot\n"
                                 "overlay = x-y.z\n"
                                 "overlay_root = clavicle.R\n"
                                 "[state 9lives]\n"
                                 "clip = x-y.z\n"
                                 "rate_from = strict\n"
                                 "[node -> a-b.c]\n"
                                 "when = strict >= 2 and not edge\n"
                                 "priority = -3\n"
                                 "[a-b.c -> 9lives]\n"
                                 "when = end\n"
                                 "fade = 0.5\n"
                                 "[any -> node]\n"
                                 "when = go\n"
                                 "restart = true\n"
                                 "[9lives -> node]\n"
                                 "when = time > 1.5 or edge == true\n";

static void test_graph_odd_names(void)
{
    char odd[PATH_SIZE + 32], characters[PATH_SIZE + 64], clips[PATH_SIZE + 64], states[PATH_SIZE + 64];
    char dot_path[PATH_SIZE + 64], svg_path[PATH_SIZE + 64], png_path[PATH_SIZE + 64];
    snprintf(odd, sizeof odd, "%s/odd", folder);
    snprintf(characters, sizeof characters, "%s/characters.ini", odd);
    snprintf(clips, sizeof clips, "%s/clips.ini", odd);
    snprintf(states, sizeof states, "%s/states.ini", odd);
    snprintf(dot_path, sizeof dot_path, "%s/odd.dot", odd);
    snprintf(svg_path, sizeof svg_path, "%s/odd.svg", odd);
    snprintf(png_path, sizeof png_path, "%s/odd.png", odd);
    CHECK(mkdir(odd, 0700) == 0);
    test_write_file(characters, odd_characters);
    test_write_file(clips, odd_clips);
    test_write_file(states, odd_states);

    char arguments[4 * PATH_SIZE];
    snprintf(arguments, sizeof arguments, "graph '%s' --out '%s'", odd, dot_path);
    tool_result r = run_tool(arguments, true);
    if (r.status != 0)
        fprintf(stderr, "md5tool %s: %s\n", arguments, r.output);
    CHECK(r.status == 0);
    tool_result_free(&r);
    char *dot = test_read_file(dot_path, NULL);
    CHECK_STR_CONTAINS(dot, "label=<character <b>odd-one.v2</b>: state machine>");
    CHECK_STR_CONTAINS(dot, "<b>node</b> <i>(start)</i><br/><font point-size=\"10\">clip x-y.z, loop</font>>");
    CHECK_STR_CONTAINS(dot, "<b>a-b.c</b><br/><font point-size=\"10\">clip one.shot, one-shot<br/>overlay x-y.z "
                            "on clavicle.R</font>>");
    CHECK_STR_CONTAINS(dot, "<b>9lives</b><br/><font point-size=\"10\">clip x-y.z, loop<br/>rate_from strict "
                            "[0, 4]</font>>");
    CHECK(dot && dot_has_edge(dot, "node", "a-b.c", "strict >= 2 and not edge\\nfade 0.2, priority -3"));
    CHECK(dot && dot_has_edge(dot, "a-b.c", "9lives", "end\\nfade 0.5"));
    CHECK(dot && dot_has_edge(dot, "any", "node", "go\\nfade 0.2, restart"));
    /* `edge == true` reads back as `edge`, the same term */
    CHECK(dot && dot_has_edge(dot, "9lives", "node", "time > 1.5 or edge\\nfade 0.2"));
    CHECK_STR_CONTAINS(dot,
                       "<td align=\"left\">strict</td><td align=\"left\">number</td><td align=\"left\">999999.5</td>");
    CHECK_STR_CONTAINS(dot, "<td align=\"left\">edge</td><td align=\"left\">bool</td><td align=\"left\">false</td>");
    /* No state name is a DOT node name: they are s0, s1, ... */
    CHECK(dot && strstr(dot, "\n  node [label") == NULL && strstr(dot, "\n  node -> ") == NULL);
    free(dot);

    if (dot_is_installed()) {
        /* dot accepts the text (a name it misread would fail it) and the picture names every state and
         * shows the conditions. */
        snprintf(arguments, sizeof arguments, "graph '%s' --out '%s'", odd, svg_path);
        r = run_tool(arguments, true);
        CHECK(r.status == 0);
        tool_result_free(&r);
        char *svg = test_read_file(svg_path, NULL);
        CHECK_STR_CONTAINS(svg, "<svg");
        CHECK_STR_CONTAINS(svg, ">node</text>");
        CHECK_STR_CONTAINS(svg, ">a&#45;b.c</text>"); /* dot writes '-' as an entity */
        CHECK_STR_CONTAINS(svg, ">9lives</text>");
        CHECK_STR_CONTAINS(svg, ">strict &gt;= 2 and not edge</text>");
        free(svg);
        snprintf(arguments, sizeof arguments, "graph '%s' --out '%s'", odd, png_path);
        r = run_tool(arguments, true);
        CHECK(r.status == 0);
        tool_result_free(&r);
        size_t png_size = 0;
        char *png = test_read_file(png_path, &png_size);
        CHECK(png && png_size > 8 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0);
        free(png);
    } else {
        fprintf(stderr, "test_graph_odd_names: Graphviz's dot is not installed; SVG and PNG not checked\n");
    }
    unlink(svg_path);
    unlink(png_path);

    /* Without dot on the PATH: one line naming the package, exit 1, no picture and no temporary file. */
    snprintf(arguments, sizeof arguments, "graph '%s' --out '%s'", odd, svg_path);
    char command[sizeof arguments + sizeof MARIONETTE_MD5TOOL + 64];
    snprintf(command, sizeof command, "PATH=/nonexistent '%s' %s 2>&1", MARIONETTE_MD5TOOL, arguments);
    FILE *pipe = popen(command, "r");
    char said[512] = "";
    size_t said_size = pipe ? fread(said, 1, sizeof said - 1, pipe) : 0;
    said[said_size] = '\0';
    int status = pipe ? pclose(pipe) : -1;
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    CHECK(strcmp(said, "md5tool graph: Graphviz's 'dot' was not found: install the graphviz package (apt-get "
                       "install graphviz), or write a .dot file\n") == 0);
    struct stat info;
    CHECK(stat(svg_path, &info) != 0);

    /* A bad states.ini: exit 1, the file and line said. */
    char bad[sizeof odd_states + 64];
    snprintf(bad, sizeof bad, "%s", odd_states);
    char *when = strstr(bad, "when = end\n");
    CHECK(when != NULL);
    if (when)
        memcpy(when, "when = dne\n", 11); /* line 20: an unknown parameter */
    test_write_file(states, bad);
    snprintf(arguments, sizeof arguments, "graph '%s' --out '%s'", odd, dot_path);
    unlink(dot_path);
    r = run_tool(arguments, true);
    CHECK(r.status == 1);
    CHECK_STR_CONTAINS(r.output, "states.ini:20: ");
    CHECK_STR_CONTAINS(r.output, "unknown parameter 'dne'");
    CHECK(stat(dot_path, &info) != 0);
    tool_result_free(&r);
    /* An unknown character: exit 1, named. */
    test_write_file(states, odd_states);
    snprintf(arguments, sizeof arguments, "graph '%s' --character robot --out '%s'", odd, dot_path);
    r = run_tool(arguments, true);
    CHECK(r.status == 1);
    CHECK_STR_CONTAINS(r.output, "characters.ini: no character 'robot'");
    tool_result_free(&r);

    const char *files[] = {characters, clips, states, dot_path, svg_path, png_path};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i)
        unlink(files[i]);
    CHECK(rmdir(odd) == 0); /* nothing else left behind, temporary files included */
}

int main(int argc, char **argv)
{
    test_part part;
    int skip = test_data_start(argc, argv, &part);
    if (skip)
        return skip;
    if (part == TEST_PART_OWN)
        RUN(test_json_writer);
    if (!setup()) {
        fprintf(stderr, "test_md5tool: cannot write test files under %s\n", MARIONETTE_BUILD_DIR);
        teardown();
        return 1;
    }
    if (part == TEST_PART_OWN) {
        RUN(test_info_mesh);
        RUN(test_info_weights_per_vertex);
        RUN(test_info_images);
        RUN(test_info_clips);
        RUN(test_info_refuses_other_files);
        RUN(test_usage_errors);
        RUN(test_command_help);
        RUN(test_check);
        RUN(test_pose);
        RUN(test_skin);
        RUN(test_skin_dual_quaternion);
        RUN(test_pose_additive);
        RUN(test_lod);
        RUN(test_synth_command);
        RUN(test_bench_parse_summary);
        RUN(test_graph_demo_dot);
        RUN(test_graph_odd_names);
        RUN(test_feet);
    }
    if (part == TEST_PART_BONEMAN) {
        RUN(test_info_boneman_mesh);
        RUN(test_info_boneman_clips);
        RUN(test_check_boneman);
        RUN(test_pose_boneman);
        RUN(test_skin_boneman);
    }
    if (part == TEST_PART_ASSIMP) {
        RUN(test_info_cube_mesh);
        RUN(test_info_refuses_assimp_empty);
        RUN(test_skin_cube);
    }
    teardown();
    return check_report();
}
