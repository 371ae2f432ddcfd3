#include "synth.h"

#include "base/file.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

/* ---- deterministic random numbers ------------------------------------------------------------------
 * splitmix64: tiny, fast, and the same sequence on every platform, which is what "same seed -> same
 * bytes" needs (rand() differs between C libraries). */

typedef struct synth_random {
    uint64_t state;
} synth_random;

static uint64_t synth_random_next(synth_random *random)
{
    uint64_t z = (random->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static double synth_random_unit(synth_random *random)
{
    return (double)(synth_random_next(random) >> 11) * (1.0 / 9007199254740992.0);
}

static double synth_random_range(synth_random *random, double low, double high)
{
    return low + (high - low) * synth_random_unit(random);
}

static int synth_random_below(synth_random *random, int bound)
{
    return (int)(synth_random_next(random) % (uint64_t)bound);
}

/* Each part of the output draws from its own stream, so changing how many numbers one part uses does not
 * change the others (the mesh's vertices do not depend on the animation's phases). */
static synth_random synth_random_stream(uint64_t seed, uint64_t stream)
{
    synth_random random = {seed ^ (stream * 0xD1B54A32D192ED03ull)};
    synth_random_next(&random);
    return random;
}

enum { STREAM_SKELETON = 1, STREAM_ANIMATION = 2, STREAM_MESH = 3 };

/* ---- values as a 6-decimal exporter writes them ---------------------------------------------------- */

static float synth_round6(double value)
{
    return (float)(round(value * 1e6) / 1e6);
}

/* A stored orientation: sign chosen so w <= 0 (the tutorials' convention), xyz rounded to 6 decimals,
 * and w recovered from the rounded xyz exactly as a reader will, so positions computed from it agree with
 * what a parser rebuilds. */
static void synth_store_quaternion(versor q)
{
    if (q[3] > 0.0f)
        glm_vec4_negate(q);
    q[0] = synth_round6(q[0]);
    q[1] = synth_round6(q[1]);
    q[2] = synth_round6(q[2]);
    float radicand = 1.0f - q[0] * q[0] - q[1] * q[1] - q[2] * q[2];
    q[3] = radicand > 0.0f ? -sqrtf(radicand) : 0.0f;
}

static void synth_store_position(vec3 p)
{
    for (int i = 0; i < 3; ++i)
        p[i] = synth_round6(p[i]);
}

/* Uniform random rotation (Shoemake's method). */
static void synth_random_quaternion(synth_random *random, versor out)
{
    double u1 = synth_random_unit(random), u2 = synth_random_unit(random), u3 = synth_random_unit(random);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    out[0] = (float)(a * sin(2.0 * GLM_PI * u2));
    out[1] = (float)(a * cos(2.0 * GLM_PI * u2));
    out[2] = (float)(b * sin(2.0 * GLM_PI * u3));
    out[3] = (float)(b * cos(2.0 * GLM_PI * u3));
}

static void synth_random_in_sphere(synth_random *random, float radius, vec3 out)
{
    /* Rejection sampling: a handful of tries on average, and deterministic like everything else. */
    for (;;) {
        for (int i = 0; i < 3; ++i)
            out[i] = (float)synth_random_range(random, -1.0, 1.0);
        if (glm_vec3_norm2(out) <= 1.0f)
            break;
    }
    glm_vec3_scale(out, radius, out);
}

/* ---- skeleton -------------------------------------------------------------------------------------- */

/* A humanoid in metres, Z up, facing -Y; offsets are from the parent joint in object space. */
typedef struct synth_template_joint {
    const char *name;
    int parent;
    float offset[3];
} synth_template_joint;

static const synth_template_joint synth_humanoid[SYNTH_DEFAULT_JOINTS] = {
    {"origin", -1, {0.0f, 0.0f, 0.0f}},
    {"pelvis", 0, {0.0f, 0.0f, 0.95f}},
    {"spine_lower", 1, {0.0f, 0.01f, 0.10f}},
    {"spine_middle", 2, {0.0f, 0.01f, 0.12f}},
    {"spine_upper", 3, {0.0f, 0.0f, 0.14f}},
    {"neck", 4, {0.0f, -0.02f, 0.16f}},
    {"head", 5, {0.0f, -0.01f, 0.10f}},
    {"clavicle_left", 4, {0.04f, -0.02f, 0.12f}},
    {"upper_arm_left", 7, {0.14f, 0.01f, -0.02f}},
    {"forearm_left", 8, {0.28f, 0.0f, 0.0f}},
    {"hand_left", 9, {0.25f, -0.01f, 0.0f}},
    {"thumb_left", 10, {0.03f, -0.03f, -0.01f}},
    {"fingers_left", 10, {0.09f, 0.0f, 0.0f}},
    {"clavicle_right", 4, {-0.04f, -0.02f, 0.12f}},
    {"upper_arm_right", 13, {-0.14f, 0.01f, -0.02f}},
    {"forearm_right", 14, {-0.28f, 0.0f, 0.0f}},
    {"hand_right", 15, {-0.25f, -0.01f, 0.0f}},
    {"thumb_right", 16, {-0.03f, -0.03f, -0.01f}},
    {"fingers_right", 16, {-0.09f, 0.0f, 0.0f}},
    {"thigh_left", 1, {0.09f, 0.0f, -0.05f}},
    {"calf_left", 19, {0.0f, -0.01f, -0.42f}},
    {"foot_left", 20, {0.0f, 0.02f, -0.40f}},
    {"toe_left", 21, {0.0f, -0.12f, -0.06f}},
    {"thigh_right", 1, {-0.09f, 0.0f, -0.05f}},
    {"calf_right", 23, {0.0f, -0.01f, -0.42f}},
    {"foot_right", 24, {0.0f, 0.02f, -0.40f}},
    {"toe_right", 25, {0.0f, -0.12f, -0.06f}},
    {"jaw", 6, {0.0f, -0.06f, 0.02f}},
    {"eye_left", 6, {0.03f, -0.08f, 0.08f}},
    {"eye_right", 6, {-0.03f, -0.08f, 0.08f}},
    {"head_end", 6, {0.0f, 0.0f, 0.20f}},
    {"foot_target_left", 0, {0.09f, 0.0f, 0.08f}},
    {"foot_target_right", 0, {-0.09f, 0.0f, 0.08f}},
};

/* Joints beyond the humanoid hang off these in chains of four (tails, capes, extra fingers). */
static const int synth_chain_anchors[] = {10, 16, 6, 4, 1};
enum { SYNTH_CHAIN_LENGTH = 4, SYNTH_NAME_MAX = 32 };

/* How one joint moves: every one of its six components follows its own sine. */
typedef struct synth_motion {
    float position_amplitude[3];
    float position_phase[3];
    float axis[3];
    float angle_amplitude;
    float angle_phase;
    int cycles; /* whole cycles per clip, so the Doom 3 loop convention repeats frame 0 exactly */
} synth_motion;

typedef struct synth_skeleton {
    int joint_count;
    char (*names)[SYNTH_NAME_MAX];
    int *parents;
    vec3 *object_position; /* bind pose as stored in the .md5mesh (rounded) */
    versor *object_rotation;
    vec3 *local_position;  /* bind pose relative to the parent, the .md5anim baseframe (rounded) */
    versor *local_rotation;
    synth_motion *motion;
} synth_skeleton;

static void synth_skeleton_free(synth_skeleton *s)
{
    free(s->names);
    free(s->parents);
    free(s->object_position);
    free(s->object_rotation);
    free(s->local_position);
    free(s->local_rotation);
    free(s->motion);
    *s = (synth_skeleton){0};
}

static bool synth_skeleton_build(const synth_params *p, synth_skeleton *s)
{
    int count = p->joints;
    size_t n = (size_t)count;
    *s = (synth_skeleton){
        .joint_count = count,
        .names = calloc(n, sizeof *s->names),
        .parents = calloc(n, sizeof *s->parents),
        .object_position = calloc(n, sizeof *s->object_position),
        .object_rotation = calloc(n, sizeof *s->object_rotation),
        .local_position = calloc(n, sizeof *s->local_position),
        .local_rotation = calloc(n, sizeof *s->local_rotation),
        .motion = calloc(n, sizeof *s->motion),
    };
    if (!s->names || !s->parents || !s->object_position || !s->object_rotation || !s->local_position ||
        !s->local_rotation || !s->motion) {
        synth_skeleton_free(s);
        return false;
    }

    synth_random random = synth_random_stream(p->seed, STREAM_SKELETON);
    for (int j = 0; j < count; ++j) {
        vec3 offset;
        if (j < SYNTH_DEFAULT_JOINTS) {
            snprintf(s->names[j], SYNTH_NAME_MAX, "%s", synth_humanoid[j].name);
            s->parents[j] = synth_humanoid[j].parent;
            glm_vec3_copy((float *)synth_humanoid[j].offset, offset);
        } else {
            int extra = j - SYNTH_DEFAULT_JOINTS;
            int anchors = (int)(sizeof synth_chain_anchors / sizeof synth_chain_anchors[0]);
            snprintf(s->names[j], SYNTH_NAME_MAX, "extra_%d", extra);
            s->parents[j] = extra % SYNTH_CHAIN_LENGTH == 0
                                ? synth_chain_anchors[(extra / SYNTH_CHAIN_LENGTH) % anchors]
                                : j - 1;
            synth_random_in_sphere(&random, 0.1f, offset);
        }
        int parent = s->parents[j];
        if (parent >= 0)
            glm_vec3_add(s->object_position[parent], offset, s->object_position[j]);
        else
            glm_vec3_copy(offset, s->object_position[j]);
        synth_store_position(s->object_position[j]);
        /* Real rigs orient bones every which way; a random orientation exercises all of the math. */
        synth_random_quaternion(&random, s->object_rotation[j]);
        synth_store_quaternion(s->object_rotation[j]);
    }

    /* Baseframe: each joint relative to its parent, from the stored (rounded) object-space values. */
    for (int j = 0; j < count; ++j) {
        int parent = s->parents[j];
        if (parent < 0) {
            glm_vec3_copy(s->object_position[j], s->local_position[j]);
            glm_quat_copy(s->object_rotation[j], s->local_rotation[j]);
        } else {
            versor inverse;
            vec3 delta;
            glm_quat_conjugate(s->object_rotation[parent], inverse);
            glm_vec3_sub(s->object_position[j], s->object_position[parent], delta);
            glm_quat_rotatev(inverse, delta, s->local_position[j]);
            glm_quat_mul(inverse, s->object_rotation[j], s->local_rotation[j]);
        }
        synth_store_position(s->local_position[j]);
        synth_store_quaternion(s->local_rotation[j]);
    }

    synth_random motion_random = synth_random_stream(p->seed, STREAM_ANIMATION);
    for (int j = 0; j < count; ++j) {
        synth_motion *m = &s->motion[j];
        /* Roots travel and bob; other joints mostly rotate, with a little stretch so that every
         * component is animated, as exporters write them. */
        bool root = s->parents[j] < 0;
        float reach = root ? 0.05f : 0.004f;
        for (int i = 0; i < 3; ++i) {
            m->position_amplitude[i] = (float)synth_random_range(&motion_random, 0.3, 1.0) * reach;
            m->position_phase[i] = (float)synth_random_range(&motion_random, 0.0, 2.0 * GLM_PI);
        }
        vec3 axis;
        do
            synth_random_in_sphere(&motion_random, 1.0f, axis);
        while (glm_vec3_norm2(axis) < 0.01f);
        glm_vec3_normalize(axis);
        glm_vec3_copy(axis, m->axis);
        /* A root that swung as far as a limb would tip the whole character over. */
        m->angle_amplitude = (float)synth_random_range(&motion_random, 0.1, 0.6) * (root ? 0.2f : 1.0f);
        m->angle_phase = (float)synth_random_range(&motion_random, 0.0, 2.0 * GLM_PI);
        m->cycles = 1 + synth_random_below(&motion_random, 2);
    }
    return true;
}

/* Local pose of joint j at frame f, rounded as it will be written. */
static void synth_frame_pose(const synth_params *p, const synth_skeleton *s, int j, int frame,
                             vec3 position, versor rotation)
{
    /* With the Doom 3 convention one period spans frames 0 .. frames-1, so the last frame equals the
     * first; otherwise it spans frames 0 .. frames and the clip wraps from the last frame to frame 0. */
    int period = p->last_frame_is_first ? p->frames - 1 : p->frames;
    double phase = period > 0 ? 2.0 * GLM_PI * (double)frame / (double)period : 0.0;
    const synth_motion *m = &s->motion[j];
    for (int i = 0; i < 3; ++i)
        position[i] = s->local_position[j][i] +
                      m->position_amplitude[i] * (float)sin(phase * m->cycles + m->position_phase[i]);
    versor swing;
    float angle = m->angle_amplitude * (float)sin(phase * m->cycles + m->angle_phase);
    glm_quatv(swing, angle, (float *)m->axis);
    glm_quat_mul(s->local_rotation[j], swing, rotation);
    glm_quat_normalize(rotation);
    synth_store_position(position);
    synth_store_quaternion(rotation);
}

/* ---- writing --------------------------------------------------------------------------------------- */

/* Vertices spread this far around their main joint (metres): the bounds grow by the same margin. */
#define SYNTH_SKIN_RADIUS 0.1f

static void synth_write_header(FILE *out, const synth_params *p)
{
    fprintf(out,
            "MD5Version 10\n"
            "commandline \"marionette synth --joints %d --vertices %d --triangles %d --weights %d"
            " --frames %d --rate %d --meshes %d --seed %" PRIu64 "%s\"\n\n",
            p->joints, p->vertices, p->triangles, p->weights_per_vertex, p->frames, p->frame_rate,
            p->meshes, p->seed, p->last_frame_is_first ? " --doom3-loop" : "");
}

static int synth_share(int total, int parts, int index)
{
    return total / parts + (index < total % parts ? 1 : 0);
}

/* Distinct influence joints for a vertex: its main joint, then its ancestors, then joints after it. */
static void synth_pick_influences(const synth_skeleton *s, int main_joint, int count, int *out)
{
    int picked = 0;
    for (int j = main_joint; j >= 0 && picked < count; j = s->parents[j])
        out[picked++] = j;
    for (int step = 1; picked < count; ++step) {
        int candidate = (main_joint + step) % s->joint_count;
        bool used = false;
        for (int k = 0; k < picked; ++k)
            used = used || out[k] == candidate;
        if (!used)
            out[picked++] = candidate;
    }
}

/* Triangles as a real mesh has them: quads of a grid laid over the vertex list (rows of
 * SYNTH_GRID_WIDTH), two triangles each, one winding, neighbours sharing edges, the quads used spread over
 * the whole grid. Once the grid is used up (more than about two triangles per vertex) the rest join three
 * distinct random vertices. Every index is below vertex_count (>= 3). */
enum { SYNTH_GRID_WIDTH = 16 };

static void synth_write_triangles(FILE *out, synth_random *random, int vertex_count, int triangle_count)
{
    if (triangle_count <= 0 || vertex_count < 3)
        return;
    int width = vertex_count / 2 < SYNTH_GRID_WIDTH ? vertex_count / 2 : SYNTH_GRID_WIDTH;
    if (width < 2)
        width = 2;
    int rows = vertex_count / width;
    int64_t quads = (int64_t)(rows - 1) * (width - 1);
    int64_t pairs = ((int64_t)triangle_count + 1) / 2;
    for (int t = 0; t < triangle_count; ++t) {
        int64_t pair = t / 2;
        int corners[3];
        if (pair < quads) {
            int64_t quad = pairs <= quads ? pair * quads / pairs : pair;
            int row = (int)(quad / (width - 1)), column = (int)(quad % (width - 1));
            int top_left = row * width + column, bottom_left = top_left + width;
            int first[3] = {top_left, bottom_left, bottom_left + 1};
            int second[3] = {top_left, bottom_left + 1, top_left + 1};
            memcpy(corners, t & 1 ? second : first, sizeof corners);
        } else {
            corners[0] = synth_random_below(random, vertex_count);
            corners[1] = (corners[0] + 1 + synth_random_below(random, vertex_count - 1)) % vertex_count;
            do
                corners[2] = synth_random_below(random, vertex_count);
            while (corners[2] == corners[0] || corners[2] == corners[1]);
        }
        fprintf(out, "\ttri %d %d %d %d\n", t, corners[0], corners[1], corners[2]);
    }
}

static void synth_write_mesh_block(FILE *out, const synth_params *p, const synth_skeleton *s,
                                   synth_random *random, int mesh_index, int *influences, int *biases)
{
    int vertex_count = synth_share(p->vertices, p->meshes, mesh_index);
    int triangle_count = synth_share(p->triangles, p->meshes, mesh_index);
    int per_vertex = p->weights_per_vertex;
    fprintf(out, "mesh {\n\tshader \"models/synth/skin_%d\"\n\n\tnumverts %d\n", mesh_index,
            vertex_count);
    for (int v = 0; v < vertex_count; ++v) {
        float s_coordinate = synth_round6(synth_random_unit(random));
        float t_coordinate = synth_round6(synth_random_unit(random));
        fprintf(out, "\tvert %d ( %.6f %.6f ) %d %d\n", v, (double)s_coordinate, (double)t_coordinate,
                v * per_vertex, per_vertex);
    }

    fprintf(out, "\n\tnumtris %d\n", triangle_count);
    synth_write_triangles(out, random, vertex_count, triangle_count);

    fprintf(out, "\n\tnumweights %d\n", vertex_count * per_vertex);
    for (int v = 0; v < vertex_count; ++v) {
        /* Consecutive vertices gather around the same joint, so the grid's triangles stay local. */
        int main_joint = (int)((int64_t)v * s->joint_count / vertex_count);
        vec3 around, position;
        synth_random_in_sphere(random, SYNTH_SKIN_RADIUS, around);
        glm_vec3_add(s->object_position[main_joint], around, position);
        synth_pick_influences(s, main_joint, per_vertex, influences);

        /* Biases in millionths so that, written with 6 decimals, they sum to exactly 1; sorted so the
         * main influence is the largest, as exporters tend to write them. */
        int64_t raw_total = 0;
        for (int k = 0; k < per_vertex; ++k) {
            int raw = 1 + synth_random_below(random, 1000);
            int slot = k;
            for (; slot > 0 && biases[slot - 1] < raw; --slot)
                biases[slot] = biases[slot - 1];
            biases[slot] = raw;
            raw_total += raw;
        }
        int assigned = 0;
        for (int k = 1; k < per_vertex; ++k) {
            biases[k] = (int)((int64_t)biases[k] * 1000000 / raw_total);
            if (biases[k] < 1)
                biases[k] = 1;
            assigned += biases[k];
        }
        biases[0] = 1000000 - assigned;

        for (int k = 0; k < per_vertex; ++k) {
            int joint = influences[k];
            versor inverse;
            vec3 delta, local;
            glm_quat_conjugate(s->object_rotation[joint], inverse);
            glm_vec3_sub(position, s->object_position[joint], delta);
            glm_quat_rotatev(inverse, delta, local);
            fprintf(out, "\tweight %d %d %d.%06d ( %.6f %.6f %.6f )\n", v * per_vertex + k, joint,
                    biases[k] / 1000000, biases[k] % 1000000, (double)local[0], (double)local[1],
                    (double)local[2]);
        }
    }
    fprintf(out, "}\n\n");
}

synth_params synth_resolve(const synth_params *params)
{
    synth_params p = params ? *params : (synth_params){0};
    if (p.joints <= 0)
        p.joints = SYNTH_DEFAULT_JOINTS;
    if (p.vertices <= 0)
        p.vertices = SYNTH_DEFAULT_VERTICES;
    if (p.triangles <= 0)
        p.triangles = SYNTH_DEFAULT_TRIANGLES;
    if (p.weights_per_vertex <= 0)
        p.weights_per_vertex = SYNTH_DEFAULT_WEIGHTS_PER_VERTEX;
    if (p.frames <= 0)
        p.frames = SYNTH_DEFAULT_FRAMES;
    if (p.frame_rate <= 0)
        p.frame_rate = SYNTH_DEFAULT_FRAME_RATE;
    if (p.meshes <= 0)
        p.meshes = SYNTH_DEFAULT_MESHES;
    /* The joint index is written as an int and names are short; keep counts where int arithmetic on
     * them (vertices * weights, frames * joints * 6) cannot overflow. */
    if (p.joints > 10000)
        p.joints = 10000;
    if (p.weights_per_vertex > p.joints)
        p.weights_per_vertex = p.joints;
    if (p.weights_per_vertex > 64)
        p.weights_per_vertex = 64;
    if (p.vertices > 10000000)
        p.vertices = 10000000;
    if (p.triangles > 20000000)
        p.triangles = 20000000;
    if (p.frames > 100000)
        p.frames = 100000;
    /* Every mesh gets at least three vertices so that its triangles have three distinct corners. */
    if (p.vertices < 3) {
        p.meshes = 1;
        p.triangles = 0;
    } else if (p.meshes > p.vertices / 3) {
        p.meshes = p.vertices / 3;
    }
    return p;
}

bool synth_write_mesh(FILE *out, const synth_params *params)
{
    synth_params p = synth_resolve(params);
    synth_skeleton s;
    int *influences = malloc((size_t)p.weights_per_vertex * sizeof *influences);
    int *biases = malloc((size_t)p.weights_per_vertex * sizeof *biases);
    if (!influences || !biases || !synth_skeleton_build(&p, &s)) {
        free(influences);
        free(biases);
        return false;
    }

    synth_write_header(out, &p);
    fprintf(out, "numJoints %d\nnumMeshes %d\n\njoints {\n", p.joints, p.meshes);
    for (int j = 0; j < s.joint_count; ++j) {
        const float *position_j = s.object_position[j], *rotation_j = s.object_rotation[j];
        int parent = s.parents[j];
        fprintf(out, "\t\"%s\"\t%d ( %.6f %.6f %.6f ) ( %.6f %.6f %.6f )\t\t// %s\n", s.names[j], parent,
                (double)position_j[0], (double)position_j[1], (double)position_j[2], (double)rotation_j[0],
                (double)rotation_j[1], (double)rotation_j[2], parent >= 0 ? s.names[parent] : "");
    }
    fprintf(out, "}\n\n");

    synth_random random = synth_random_stream(p.seed, STREAM_MESH);
    for (int m = 0; m < p.meshes; ++m)
        synth_write_mesh_block(out, &p, &s, &random, m, influences, biases);

    synth_skeleton_free(&s);
    free(influences);
    free(biases);
    return !ferror(out);
}

/* Object-space positions of one frame's joints, for its bounds line. */
static void synth_frame_bounds(const synth_params *p, const synth_skeleton *s, int frame, vec3 *object,
                               versor *rotation, float minimum[3], float maximum[3])
{
    for (int j = 0; j < s->joint_count; ++j) {
        vec3 local_position;
        versor local_rotation;
        synth_frame_pose(p, s, j, frame, local_position, local_rotation);
        int parent = s->parents[j];
        if (parent < 0) {
            glm_vec3_copy(local_position, object[j]);
            glm_quat_copy(local_rotation, rotation[j]);
        } else {
            vec3 rotated;
            glm_quat_rotatev(rotation[parent], local_position, rotated);
            glm_vec3_add(object[parent], rotated, object[j]);
            glm_quat_mul(rotation[parent], local_rotation, rotation[j]);
            glm_quat_normalize(rotation[j]);
        }
        for (int i = 0; i < 3; ++i) {
            if (j == 0 || object[j][i] < minimum[i])
                minimum[i] = object[j][i];
            if (j == 0 || object[j][i] > maximum[i])
                maximum[i] = object[j][i];
        }
    }
    for (int i = 0; i < 3; ++i) {
        minimum[i] = synth_round6(minimum[i] - SYNTH_SKIN_RADIUS);
        maximum[i] = synth_round6(maximum[i] + SYNTH_SKIN_RADIUS);
    }
}

bool synth_write_anim(FILE *out, const synth_params *params)
{
    synth_params p = synth_resolve(params);
    synth_skeleton s;
    vec3 *object = malloc((size_t)p.joints * sizeof *object);
    versor *rotation = malloc((size_t)p.joints * sizeof *rotation);
    if (!object || !rotation || !synth_skeleton_build(&p, &s)) {
        free(object);
        free(rotation);
        return false;
    }

    synth_write_header(out, &p);
    fprintf(out, "numFrames %d\nnumJoints %d\nframeRate %d\nnumAnimatedComponents %d\n\nhierarchy {\n",
            p.frames, p.joints, p.frame_rate, p.joints * 6);
    for (int j = 0; j < s.joint_count; ++j) {
        int parent = s.parents[j];
        fprintf(out, "\t\"%s\"\t%d 63 %d\t// %s\n", s.names[j], parent, j * 6,
                parent >= 0 ? s.names[parent] : "");
    }

    fprintf(out, "}\n\nbounds {\n");
    for (int f = 0; f < p.frames; ++f) {
        float minimum[3], maximum[3];
        synth_frame_bounds(&p, &s, f, object, rotation, minimum, maximum);
        fprintf(out, "\t( %.6f %.6f %.6f ) ( %.6f %.6f %.6f )\n", (double)minimum[0], (double)minimum[1],
                (double)minimum[2], (double)maximum[0], (double)maximum[1], (double)maximum[2]);
    }

    fprintf(out, "}\n\nbaseframe {\n");
    for (int j = 0; j < s.joint_count; ++j) {
        const float *position_j = s.local_position[j], *rotation_j = s.local_rotation[j];
        fprintf(out, "\t( %.6f %.6f %.6f ) ( %.6f %.6f %.6f )\n", (double)position_j[0],
                (double)position_j[1], (double)position_j[2], (double)rotation_j[0], (double)rotation_j[1],
                (double)rotation_j[2]);
    }
    fprintf(out, "}\n\n");

    for (int f = 0; f < p.frames; ++f) {
        fprintf(out, "frame %d {\n", f);
        for (int j = 0; j < s.joint_count; ++j) {
            vec3 position_j;
            versor rotation_j;
            synth_frame_pose(&p, &s, j, f, position_j, rotation_j);
            fprintf(out, "\t%.6f %.6f %.6f %.6f %.6f %.6f\n", (double)position_j[0], (double)position_j[1],
                    (double)position_j[2], (double)rotation_j[0], (double)rotation_j[1],
                    (double)rotation_j[2]);
        }
        fprintf(out, "}\n\n");
    }

    synth_skeleton_free(&s);
    free(object);
    free(rotation);
    return !ferror(out);
}

/* ---- memory and files ------------------------------------------------------------------------------ */

static char *synth_text(bool (*write)(FILE *, const synth_params *), const synth_params *params,
                        size_t *size)
{
    char *buffer = NULL;
    size_t length = 0;
    FILE *stream = open_memstream(&buffer, &length);
    if (!stream)
        return NULL;
    bool written = write(stream, params);
    /* open_memstream only publishes the final buffer and size on fclose. */
    if (fclose(stream) != 0 || !written) {
        free(buffer);
        return NULL;
    }
    if (size)
        *size = length;
    return buffer;
}

char *synth_mesh_text(const synth_params *params, size_t *size)
{
    return synth_text(synth_write_mesh, params, size);
}

char *synth_anim_text(const synth_params *params, size_t *size)
{
    return synth_text(synth_write_anim, params, size);
}

static bool synth_write_file(const char *directory, const char *name, bool (*write)(FILE *, const void *),
                             const void *context, char *error, size_t error_size)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", directory, name) >= (int)sizeof path) {
        if (error)
            snprintf(error, error_size, "%s: path too long", directory);
        return false;
    }
    file_writer out;
    diag failure = {0};
    bool written = file_writer_open(&out, path, &failure);
    bool made = written && write(out.stream, context);
    written = written && file_writer_finish(&out, made, &failure);
    if (!written && error) {
        if (failure.message[0])
            diag_format(&failure, error, error_size);
        else
            snprintf(error, error_size, "%s: the generator could not write it", path);
    }
    return written;
}

static bool synth_write_mesh_file(FILE *out, const void *params)
{
    return synth_write_mesh(out, params);
}

static bool synth_write_anim_file(FILE *out, const void *params)
{
    return synth_write_anim(out, params);
}

bool synth_write_files(const char *directory, const synth_params *params, char *error, size_t error_size)
{
    return synth_write_file(directory, "synth.md5mesh", synth_write_mesh_file, params, error, error_size) &&
           synth_write_file(directory, "synth.md5anim", synth_write_anim_file, params, error, error_size);
}

/* ---- the twist test limb ---- */

enum { LIMB_SEGMENTS = 32, LIMB_RINGS = 41, LIMB_DEGREES = 180 };
#define LIMB_RADIUS 0.15
#define LIMB_HEIGHT 1.0

static bool synth_write_limb_mesh(FILE *out, const void *unused)
{
    (void)unused;
    fprintf(out, "MD5Version 10\ncommandline \"md5tool synth --limb\"\n\nnumJoints 2\nnumMeshes 1\n\njoints {\n"
                 "\t\"upper\"\t-1 ( 0 0 %g ) ( 0 0 0 )\n\t\"lower\"\t0 ( 1 0 %g ) ( 0 0 0 )\n}\n\nmesh {\n"
                 "\tshader \"limb\"\n\n\tnumverts %d\n",
            LIMB_HEIGHT, LIMB_HEIGHT, LIMB_SEGMENTS * LIMB_RINGS);
    /* Each vertex: its weights (one where a joint holds it alone, else two), the larger first. */
    int weight = 0;
    double seconds[LIMB_RINGS];
    for (int r = 0; r < LIMB_RINGS; ++r) {
        double x = 0.05 * r, t = (x - 0.6) / (1.4 - 0.6);
        t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
        seconds[r] = t * t * (3.0 - 2.0 * t);
        int count = seconds[r] == 0.0 || seconds[r] == 1.0 ? 1 : 2;
        for (int s = 0; s < LIMB_SEGMENTS; ++s) {
            fprintf(out, "\tvert %d ( %.6f %.6f ) %d %d\n", r * LIMB_SEGMENTS + s, 0.75 * x,
                    0.75 * s / LIMB_SEGMENTS, weight, count);
            weight += count;
        }
    }
    fprintf(out, "\n\tnumtris %d\n", 2 * LIMB_SEGMENTS * (LIMB_RINGS - 1));
    int triangle = 0;
    for (int r = 0; r + 1 < LIMB_RINGS; ++r)
        for (int s = 0; s < LIMB_SEGMENTS; ++s) {
            int a = r * LIMB_SEGMENTS + s, b = r * LIMB_SEGMENTS + (s + 1) % LIMB_SEGMENTS;
            fprintf(out, "\ttri %d %d %d %d\n", triangle++, a, b, a + LIMB_SEGMENTS);
            fprintf(out, "\ttri %d %d %d %d\n", triangle++, b, b + LIMB_SEGMENTS, a + LIMB_SEGMENTS);
        }
    fprintf(out, "\n\tnumweights %d\n", weight);
    weight = 0;
    for (int r = 0; r < LIMB_RINGS; ++r)
        for (int s = 0; s < LIMB_SEGMENTS; ++s) {
            double angle = 2.0 * GLM_PI * s / LIMB_SEGMENTS, x = 0.05 * r;
            double y = LIMB_RADIUS * cos(angle), z = LIMB_RADIUS * sin(angle);
            double second = seconds[r];
            int joints[2] = {second > 0.5 ? 1 : 0, second > 0.5 ? 0 : 1};
            double biases[2] = {second > 0.5 ? second : 1.0 - second, second > 0.5 ? 1.0 - second : second};
            for (int k = 0; k < (second == 0.0 || second == 1.0 ? 1 : 2); ++k)
                fprintf(out, "\tweight %d %d %.9g ( %.9g %.9g %.9g )\n", weight++, joints[k], biases[k],
                        x - joints[k], y, z);
        }
    fputs("}\n", out);
    return !ferror(out);
}

static bool synth_write_limb_anim(FILE *out, const void *unused)
{
    (void)unused;
    fprintf(out, "MD5Version 10\ncommandline \"md5tool synth --limb\"\n\nnumFrames %d\nnumJoints 2\nframeRate 1\n"
                 "numAnimatedComponents 1\n\nhierarchy {\n\t\"upper\"\t-1 0 0\n\t\"lower\"\t0 8 0\n}\n\nbounds {\n",
            LIMB_DEGREES + 1);
    for (int f = 0; f <= LIMB_DEGREES; ++f)
        fprintf(out, "\t( 0 %g %g ) ( 2 %g %g )\n", -LIMB_RADIUS, LIMB_HEIGHT - LIMB_RADIUS, LIMB_RADIUS,
                LIMB_HEIGHT + LIMB_RADIUS);
    fprintf(out, "}\n\nbaseframe {\n\t( 0 0 %g ) ( 0 0 0 )\n\t( 1 0 0 ) ( 0 0 0 )\n}\n", LIMB_HEIGHT);
    /* F degrees about +X: (sin, 0, 0, cos) of half of it, written as its negation, whose w is the negative
     * root the readers rebuild. */
    for (int f = 0; f <= LIMB_DEGREES; ++f)
        fprintf(out, "\nframe %d {\n\t%.9g\n}\n", f, -sin(0.5 * f * GLM_PI / 180.0));
    return !ferror(out);
}

bool synth_write_limb(const char *directory, char *error, size_t error_size)
{
    return synth_write_file(directory, "limb.md5mesh", synth_write_limb_mesh, NULL, error, error_size) &&
           synth_write_file(directory, "limb_twist.md5anim", synth_write_limb_anim, NULL, error, error_size);
}

/* ---- a six-legged creature ---- */

enum { CREATURE_JOINTS = 5 + 6 * 3 };

typedef struct creature_joint {
    char name[16];
    int parent;
    float at[3];
} creature_joint;

/* A made rig: its joints (one vertex each, every orientation none) and how its files say they were made. */
enum { RIG_JOINTS_MAX = 32 };
typedef struct synth_rig {
    creature_joint joints[RIG_JOINTS_MAX];
    int count;
    const char *command, *shader;
} synth_rig;

static void creature_joints(creature_joint out[CREATURE_JOINTS])
{
    int n = 0;
    out[n++] = (creature_joint){"body", -1, {0.0f, 0.0f, 0.5f}};
    out[n++] = (creature_joint){"neck", 0, {0.0f, 1.0f, 0.55f}};
    out[n++] = (creature_joint){"head", 1, {0.0f, 1.3f, 0.6f}};
    out[n++] = (creature_joint){"tail", 0, {0.0f, -0.9f, 0.5f}};
    out[n++] = (creature_joint){"tail_tip", 3, {0.0f, -1.2f, 0.45f}};
    for (int leg = 0; leg < 6; ++leg) {
        float side = leg % 2 ? -1.0f : 1.0f, along = -0.6f + 0.6f * (float)(leg / 2);
        int hip = n;
        out[n] = (creature_joint){"", 0, {0.39f * side, along, 0.45f}};
        snprintf(out[n++].name, sizeof out[0].name, "thigh%d", leg);
        out[n] = (creature_joint){"", hip, {0.6f * side, along, 0.25f}};
        snprintf(out[n++].name, sizeof out[0].name, "shin%d", leg);
        out[n] = (creature_joint){"", hip + 1, {0.6f * side, along + 0.05f, 0.0f}};
        snprintf(out[n++].name, sizeof out[0].name, "claw%d", leg);
    }
}

/* A rig of one vertex per joint, every joint's orientation none: its mesh, and a one-frame clip of its bind
 * pose. */
static bool write_rig_mesh(FILE *out, const creature_joint *joints, int count, const char *command, const char *shader)
{
    fprintf(out, "MD5Version 10\ncommandline \"%s\"\n\nnumJoints %d\nnumMeshes 1\n\njoints {\n", command, count);
    for (int j = 0; j < count; ++j)
        fprintf(out, "\t\"%s\"\t%d ( %g %g %g ) ( 0 0 0 )\n", joints[j].name, joints[j].parent, (double)joints[j].at[0],
                (double)joints[j].at[1], (double)joints[j].at[2]);
    fprintf(out, "}\n\nmesh {\n\tshader \"%s\"\n\n\tnumverts %d\n", shader, count);
    for (int j = 0; j < count; ++j)
        fprintf(out, "\tvert %d ( 0 0 ) %d 1\n", j, j);
    fprintf(out, "\n\tnumtris 0\n\n\tnumweights %d\n", count);
    for (int j = 0; j < count; ++j)
        fprintf(out, "\tweight %d %d 1 ( 0 0 0 )\n", j, j);
    fputs("}\n", out);
    return !ferror(out);
}

static bool write_rig_idle(FILE *out, const creature_joint *joints, int count, const char *command)
{
    fprintf(out, "MD5Version 10\ncommandline \"%s\"\n\nnumFrames 1\nnumJoints %d\nframeRate 24\n"
                 "numAnimatedComponents 0\n\nhierarchy {\n", command, count);
    float box[2][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
    for (int j = 0; j < count; ++j) {
        fprintf(out, "\t\"%s\"\t%d 0 0\n", joints[j].name, joints[j].parent);
        for (int k = 0; k < 3; ++k) {
            box[0][k] = j == 0 || joints[j].at[k] < box[0][k] ? joints[j].at[k] : box[0][k];
            box[1][k] = j == 0 || joints[j].at[k] > box[1][k] ? joints[j].at[k] : box[1][k];
        }
    }
    fprintf(out, "}\n\nbounds {\n\t( %g %g %g ) ( %g %g %g )\n}\n\nbaseframe {\n", (double)box[0][0], (double)box[0][1],
            (double)box[0][2], (double)box[1][0], (double)box[1][1], (double)box[1][2]);
    for (int j = 0; j < count; ++j) {
        const float *at = joints[j].at, *parent = joints[j].parent >= 0 ? joints[joints[j].parent].at : NULL;
        fprintf(out, "\t( %g %g %g ) ( 0 0 0 )\n", (double)(at[0] - (parent ? parent[0] : 0.0f)),
                (double)(at[1] - (parent ? parent[1] : 0.0f)), (double)(at[2] - (parent ? parent[2] : 0.0f)));
    }
    fputs("}\n\nframe 0 {\n}\n", out);
    return !ferror(out);
}

/* A biped whose feet follow IK targets: the legs (thigh, shin) end at the shins, and each foot hangs from a
 * target under a lever under the root, as boneman's exporter rigged it. Z up, facing +X, 1.8 tall. */
enum { IK_BIPED_JOINTS = 27 };
_Static_assert((int)IK_BIPED_JOINTS <= (int)RIG_JOINTS_MAX && (int)CREATURE_JOINTS <= (int)RIG_JOINTS_MAX,
               "a rig holds its joints");

static void ik_biped_joints(creature_joint out[IK_BIPED_JOINTS])
{
    int n = 0;
    out[n++] = (creature_joint){"Main", -1, {0.0f, 0.0f, 0.0f}};
    out[n++] = (creature_joint){"Pelvis", 0, {0.0f, 0.0f, 0.95f}};
    out[n++] = (creature_joint){"Spine", 1, {0.0f, 0.0f, 1.2f}};
    out[n++] = (creature_joint){"Chest", 2, {0.0f, 0.0f, 1.4f}};
    out[n++] = (creature_joint){"Neck", 3, {0.0f, 0.0f, 1.55f}};
    out[n++] = (creature_joint){"Head", 4, {0.0f, 0.0f, 1.65f}};
    out[n++] = (creature_joint){"Crown", 5, {0.0f, 0.0f, 1.8f}};
    for (int side = 0; side < 2; ++side) {
        float y = side == 0 ? 1.0f : -1.0f;
        const char *s = side == 0 ? "L" : "R";
        int chest = 3, clavicle = n;
        out[n] = (creature_joint){"", chest, {0.0f, 0.05f * y, 1.45f}};
        snprintf(out[n++].name, sizeof out[0].name, "Clavicle_%s", s);
        out[n] = (creature_joint){"", clavicle, {0.0f, 0.2f * y, 1.45f}};
        snprintf(out[n++].name, sizeof out[0].name, "UpperArm_%s", s);
        out[n] = (creature_joint){"", clavicle + 1, {0.0f, 0.48f * y, 1.45f}};
        snprintf(out[n++].name, sizeof out[0].name, "Forearm_%s", s);
        out[n] = (creature_joint){"", clavicle + 2, {0.0f, 0.74f * y, 1.45f}};
        snprintf(out[n++].name, sizeof out[0].name, "Hand_%s", s);
    }
    for (int side = 0; side < 2; ++side) {
        float y = side == 0 ? 1.0f : -1.0f;
        const char *s = side == 0 ? "L" : "R";
        int thigh = n;
        out[n] = (creature_joint){"", 1, {0.0f, 0.1f * y, 0.9f}};
        snprintf(out[n++].name, sizeof out[0].name, "Femur_%s", s);
        out[n] = (creature_joint){"", thigh, {0.02f, 0.1f * y, 0.5f}};
        snprintf(out[n++].name, sizeof out[0].name, "IKLeg_%s", s);
        int lever = n;
        out[n] = (creature_joint){"", 0, {0.0f, 0.1f * y, 0.0f}};
        snprintf(out[n++].name, sizeof out[0].name, "Lever_%s", s);
        out[n] = (creature_joint){"", lever, {0.0f, 0.1f * y, 0.08f}};
        snprintf(out[n++].name, sizeof out[0].name, "Target_%s", s);
        out[n] = (creature_joint){"", lever + 1, {0.0f, 0.1f * y, 0.08f}};
        snprintf(out[n++].name, sizeof out[0].name, "Foot_%s", s);
        out[n] = (creature_joint){"", lever + 2, {0.16f, 0.1f * y, 0.0f}};
        snprintf(out[n++].name, sizeof out[0].name, "Toe_%s", s);
    }
    assert(n == IK_BIPED_JOINTS);
}

static bool write_rig_mesh_file(FILE *out, const void *rig)
{
    const synth_rig *r = rig;
    return write_rig_mesh(out, r->joints, r->count, r->command, r->shader);
}

static bool write_rig_idle_file(FILE *out, const void *rig)
{
    const synth_rig *r = rig;
    return write_rig_idle(out, r->joints, r->count, r->command);
}

/* DIRECTORY/NAME.md5mesh and DIRECTORY/NAME_idle.md5anim of a rig. */
static bool synth_write_rig(const char *directory, const char *name, const synth_rig *rig, char *error,
                            size_t error_size)
{
    char mesh[64], idle[64];
    snprintf(mesh, sizeof mesh, "%s.md5mesh", name);
    snprintf(idle, sizeof idle, "%s_idle.md5anim", name);
    return synth_write_file(directory, mesh, write_rig_mesh_file, rig, error, error_size) &&
           synth_write_file(directory, idle, write_rig_idle_file, rig, error, error_size);
}

bool synth_write_ik_biped(const char *directory, char *error, size_t error_size)
{
    synth_rig rig = {.count = IK_BIPED_JOINTS, .command = "md5tool synth --ik-feet", .shader = "ikbiped"};
    ik_biped_joints(rig.joints);
    return synth_write_rig(directory, "ikbiped", &rig, error, error_size);
}

bool synth_write_creature(const char *directory, char *error, size_t error_size)
{
    synth_rig rig = {.count = CREATURE_JOINTS, .command = "md5tool synth --creature", .shader = "creature"};
    creature_joints(rig.joints);
    return synth_write_rig(directory, "creature", &rig, error, error_size);
}
