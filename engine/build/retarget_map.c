/* The joint map of a humanoid skeleton from its structure in the bind pose (retarget.h). Every step is one
 * pass over the joints or a walk up a chain: a skeleton of a million joints is mapped in linear time. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build_internal.h"
#include "retarget.h"

static const char *const role_names[RETARGET_ROLE_COUNT] = {
    "root",        "hips",        "spine",       "spine2",      "chest",       "neck",
    "head",        "upper_leg.L", "lower_leg.L", "foot.L",      "toe.L",       "upper_leg.R",
    "lower_leg.R", "foot.R",      "toe.R",       "shoulder.L",  "upper_arm.L", "lower_arm.L",
    "hand.L",      "shoulder.R",  "upper_arm.R", "lower_arm.R", "hand.R"};

const char *retarget_role_name(retarget_role role)
{
    return role >= 0 && role < RETARGET_ROLE_COUNT ? role_names[role] : "?";
}

const char *retarget_found_name(retarget_found how)
{
    return how == RETARGET_BY_STRUCTURE ? "found by structure"
           : how == RETARGET_BY_NAME    ? "found by name"
           : how == RETARGET_GIVEN      ? "given"
                                        : "none";
}

int retarget_role_from_name(const char *name)
{
    for (int r = 0; name && r < RETARGET_ROLE_COUNT; ++r)
        if (strcmp(role_names[r], name) == 0)
            return r;
    return -1;
}

bool retarget_role_required(retarget_role role)
{
    switch (role) {
    case RETARGET_HIPS:
    case RETARGET_UPPER_LEG_L:
    case RETARGET_LOWER_LEG_L:
    case RETARGET_FOOT_L:
    case RETARGET_UPPER_LEG_R:
    case RETARGET_LOWER_LEG_R:
    case RETARGET_FOOT_R:
        return true;
    default:
        return false;
    }
}

retarget_map retarget_map_empty(void)
{
    retarget_map map;
    for (int r = 0; r < RETARGET_ROLE_COUNT; ++r)
        map.joints[r] = -1;
    return map;
}

/* What the finder knows of each joint, and of the joints below it (its subtree, itself included) counting
 * only joints that move some vertex: the lowest, the highest and the furthest to either side. */
typedef struct finder {
    const skeleton *s;
    int n;
    float up[3], forward[3], left[3];
    float *height, *lateral; /* along up and left */
    unsigned char *deforms;
    int *low, *high, *leftmost, *rightmost; /* per subtree; -1 when it moves nothing */
    int *first_child, *next_sibling;         /* children in order; -1 ends */
    float ground, body;                      /* lowest height and the height from it to the highest */
} finder;

static const float *position(const finder *f, int j)
{
    return f->s->bind_object[j].position;
}

static float distance(const finder *f, int a, int b)
{
    const float *p = position(f, a), *q = position(f, b);
    return sqrtf((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
}

static int better(const finder *f, int a, int b, float (*key)(const finder *, int))
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    return key(f, b) > key(f, a) ? b : a;
}

static float key_low(const finder *f, int j) { return -f->height[j]; }
static float key_high(const finder *f, int j) { return f->height[j]; }
static float key_left(const finder *f, int j) { return f->lateral[j]; }
static float key_right(const finder *f, int j) { return -f->lateral[j]; }

static bool finder_init(finder *f, const model *m, const float up[3], const float forward[3])
{
    const skeleton *s = &m->skeleton;
    *f = (finder){.s = s, .n = s->joint_count};
    memcpy(f->up, up, sizeof f->up);
    memcpy(f->forward, forward, sizeof f->forward);
    f->left[0] = up[1] * forward[2] - up[2] * forward[1];
    f->left[1] = up[2] * forward[0] - up[0] * forward[2];
    f->left[2] = up[0] * forward[1] - up[1] * forward[0];
    size_t n = (size_t)(f->n > 0 ? f->n : 1);
    f->height = malloc(n * sizeof *f->height);
    f->lateral = malloc(n * sizeof *f->lateral);
    f->deforms = calloc(n, 1);
    f->low = malloc(n * sizeof *f->low);
    f->high = malloc(n * sizeof *f->high);
    f->leftmost = malloc(n * sizeof *f->leftmost);
    f->rightmost = malloc(n * sizeof *f->rightmost);
    if (!build_children(s, &f->first_child, &f->next_sibling) || !f->height || !f->lateral || !f->deforms ||
        !f->low || !f->high || !f->leftmost || !f->rightmost)
        return false;
    bool any_weight = false;
    for (int i = 0; i < m->mesh_count; ++i) {
        const skin_mesh *mesh = &m->meshes[i];
        for (int v = 0; v < mesh->vertex_count; ++v)
            for (int k = 0; k < SKIN_MAX_INFLUENCES; ++k)
                if (mesh->weights[v][k] > 0.0f && mesh->joints[v][k] < f->n) {
                    f->deforms[mesh->joints[v][k]] = 1;
                    any_weight = true;
                }
    }
    f->ground = INFINITY;
    float top = -INFINITY;
    for (int j = 0; j < f->n; ++j) {
        const float *p = position(f, j);
        f->height[j] = p[0] * up[0] + p[1] * up[1] + p[2] * up[2];
        f->lateral[j] = p[0] * f->left[0] + p[1] * f->left[1] + p[2] * f->left[2];
        if (!any_weight)
            f->deforms[j] = 1; /* a bare skeleton: every joint counts */
        int self = f->deforms[j] ? j : -1;
        f->low[j] = f->high[j] = f->leftmost[j] = f->rightmost[j] = self;
        if (f->deforms[j]) {
            f->ground = fminf(f->ground, f->height[j]);
            top = fmaxf(top, f->height[j]);
        }
    }
    f->body = f->n > 0 && top > f->ground ? top - f->ground : 0.0f;
    /* parents[j] < j: children come after their parent, so one backward pass gathers every subtree. */
    for (int j = f->n - 1; j >= 0; --j) {
        int p = s->parents[j];
        if (p < 0)
            continue;
        f->low[p] = better(f, f->low[p], f->low[j], key_low);
        f->high[p] = better(f, f->high[p], f->high[j], key_high);
        f->leftmost[p] = better(f, f->leftmost[p], f->leftmost[j], key_left);
        f->rightmost[p] = better(f, f->rightmost[p], f->rightmost[j], key_right);
    }
    return true;
}

static void finder_free(finder *f)
{
    free(f->height);
    free(f->lateral);
    free(f->deforms);
    free(f->low);
    free(f->high);
    free(f->leftmost);
    free(f->rightmost);
    free(f->first_child);
    free(f->next_sibling);
}

/* A child subtree of j that reaches down into the lower 40% of the body on one side of j, more down than
 * along the ground: a leg. */
static bool reaches_down(const finder *f, int j, int child, float side)
{
    int low = f->low[child];
    return low >= 0 && f->height[low] < f->ground + 0.4f * f->body &&
           side * (f->lateral[low] - f->lateral[j]) > 0.02f * f->body &&
           f->height[j] - f->height[low] > 0.5f * distance(f, j, low); /* down, not along the ground */
}

/* The hips: the highest joint with a leg on each side below it and a chain up to the top 15% of the body that
 * reaches no lower than a quarter of it (hands hanging at mid-thigh do; a creature's other legs do not), and
 * no third chain down to the ground. */
static int find_hips(const finder *f, int *left_leg, int *right_leg, int *up_child)
{
    int hips = -1;
    for (int j = 0; j < f->n; ++j) {
        int l = -1, r = -1, u = -1, down = 0;
        for (int c = f->first_child[j]; c >= 0; c = f->next_sibling[c]) {
            down += f->low[c] >= 0 && f->height[f->low[c]] < f->ground + 0.4f * f->body;
            if (l < 0 && reaches_down(f, j, c, 1.0f))
                l = c;
            else if (r < 0 && reaches_down(f, j, c, -1.0f))
                r = c;
            else if (f->high[c] >= 0 && f->height[f->high[c]] > f->ground + 0.85f * f->body &&
                     f->height[f->high[c]] - f->height[j] > 0.5f * distance(f, j, f->high[c]) &&
                     f->height[f->low[c]] > f->ground + 0.25f * f->body && /* no more legs: not a creature */
                     (u < 0 || f->height[f->high[c]] > f->height[f->high[u]]))
                u = c;
        }
        if (l >= 0 && r >= 0 && u >= 0 && down == 2 && (hips < 0 || f->height[j] > f->height[hips])) {
            hips = j;
            *left_leg = l;
            *right_leg = r;
            *up_child = u;
        }
    }
    return hips;
}

/* The chain from `from` down to `to` (a descendant, or from itself), top first, into path; its length. */
static int chain(const finder *f, int from, int to, int *path)
{
    int length = 0;
    for (int j = to; j >= 0; j = f->s->parents[j]) {
        path[length++] = j;
        if (j == from)
            break;
    }
    for (int i = 0; i < length / 2; ++i) {
        int t = path[i];
        path[i] = path[length - 1 - i];
        path[length - 1 - i] = t;
    }
    return length;
}

/* The limb's two long bones: the index i for which path[i] -> path[i+1] -> path[i+2] is longest; -1 when the
 * path is shorter than three joints. */
static int longest_pair(const finder *f, const int *path, int length)
{
    int best = -1;
    float best_length = 0.0f;
    for (int i = 0; i + 2 < length; ++i) {
        float l = distance(f, path[i], path[i + 1]) + distance(f, path[i + 1], path[i + 2]);
        if (l > best_length) {
            best_length = l;
            best = i;
        }
    }
    return best;
}

/* A leg whose chain stops above the ground (its foot hangs elsewhere, from an IK target under the root, as
 * some exporters rig it): the foot is the highest moving joint below the chain's end, on its side, within
 * 15% of the body of it sideways; the deepest of joints at one place. -1 when there is none. */
static int detached_foot(const finder *f, int end, float side, int hips)
{
    int best = -1;
    const float *e = position(f, end);
    for (int j = 0; j < f->n; ++j) {
        if (!f->deforms[j] || f->height[j] > f->height[end] - 0.1f * f->body ||
            side * (f->lateral[j] - f->lateral[hips]) <= 0.0f)
            continue;
        const float *p = position(f, j);
        float d[3] = {p[0] - e[0], p[1] - e[1], p[2] - e[2]};
        float along_up = d[0] * f->up[0] + d[1] * f->up[1] + d[2] * f->up[2];
        float across = sqrtf(fmaxf(0.0f, d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - along_up * along_up));
        if (across > 0.15f * f->body)
            continue;
        if (best < 0 || f->height[j] >= f->height[best])
            best = j;
    }
    return best;
}

static void find_leg(const finder *f, int hips, int leg_child, float side, retarget_map *map,
                     retarget_found *found, int *path)
{
    int length = chain(f, leg_child, f->low[leg_child], path);
    if (f->height[path[length - 1]] > f->ground + 0.15f * f->body) {
        int foot = detached_foot(f, path[length - 1], side, hips);
        if (foot >= 0) {
            path[length++] = foot;
            int toe = f->low[foot] != foot ? f->low[foot] : -1; /* and its toe: the child towards its lowest */
            while (toe >= 0 && f->s->parents[toe] != foot)
                toe = f->s->parents[toe];
            if (toe >= 0)
                path[length++] = toe;
        }
    }
    int i = longest_pair(f, path, length);
    if (i < 0)
        return;
    int base = side > 0 ? RETARGET_UPPER_LEG_L : RETARGET_UPPER_LEG_R;
    for (int k = 0; k < 4 && i + k < length; ++k) {
        map->joints[base + k] = path[i + k];
        found[base + k] = RETARGET_BY_STRUCTURE;
    }
}

/* The arm in a subtree of the chest: its chain out to the joint furthest to its side. */
static void find_arm(const finder *f, int arm_child, float side, retarget_map *map, retarget_found *found,
                     int *path)
{
    int far = side > 0 ? f->leftmost[arm_child] : f->rightmost[arm_child];
    int length = chain(f, arm_child, far, path);
    int i = longest_pair(f, path, length);
    if (i < 0)
        return;
    int base = side > 0 ? RETARGET_SHOULDER_L : RETARGET_SHOULDER_R;
    if (i >= 1) {
        map->joints[base] = path[i - 1];
        found[base] = RETARGET_BY_STRUCTURE;
    }
    for (int k = 0; k < 3; ++k) {
        map->joints[base + 1 + k] = path[i + k];
        found[base + 1 + k] = RETARGET_BY_STRUCTURE;
    }
}

/* A child of j whose subtree reaches 15% of the body out to one side of it: an arm. */
static int arm_child(const finder *f, int j, int skip, float side)
{
    for (int c = f->first_child[j]; c >= 0; c = f->next_sibling[c]) {
        if (c == skip)
            continue;
        int far = side > 0 ? f->leftmost[c] : f->rightmost[c];
        if (far >= 0 && side * (f->lateral[far] - f->lateral[j]) > 0.15f * f->body)
            return c;
    }
    return -1;
}

/* "Head", "head", "Bip01 Head", "kopf_head": holds "head", but not an end marker ("HeadTop_End", "head_nub"). */
static bool named_head(const char *name)
{
    char lower[64];
    size_t k = 0;
    for (; name && name[k] && k + 1 < sizeof lower; ++k)
        lower[k] = (char)tolower((unsigned char)name[k]);
    lower[k] = '\0';
    return strstr(lower, "head") && !strstr(lower, "end") && !strstr(lower, "top") && !strstr(lower, "nub");
}

static void find_spine_and_arms(const finder *f, int hips, int up_child, retarget_map *map, retarget_found *found,
                                int *path)
{
    int length = chain(f, up_child, f->high[up_child], path);
    int chest = -1, left_arm = -1, right_arm = -1;
    for (int i = 0; i < length - 1 && chest < 0; ++i) {
        int l = arm_child(f, path[i], path[i + 1], 1.0f), r = arm_child(f, path[i], path[i + 1], -1.0f);
        if (l >= 0 && r >= 0) {
            chest = i;
            left_arm = l;
            right_arm = r;
        }
    }
    /* Without arms the spine is every joint but the top two (neck and head). */
    int spine_end = chest >= 0 ? chest : (length >= 3 ? length - 2 : 0);
    static const retarget_role spine_roles[] = {RETARGET_SPINE, RETARGET_SPINE2};
    for (int i = 0; i < spine_end && i < 2; ++i) {
        map->joints[spine_roles[i]] = path[i];
        found[spine_roles[i]] = RETARGET_BY_STRUCTURE;
    }
    if (chest >= 0) {
        map->joints[RETARGET_CHEST] = path[chest];
        found[RETARGET_CHEST] = RETARGET_BY_STRUCTURE;
    }
    /* Above the chest: the neck first, then the head, by name when a joint is named so. */
    int first = chest >= 0 ? chest + 1 : spine_end;
    int head = -1;
    for (int i = first; i < length && head < 0; ++i)
        if (named_head(f->s->names[path[i]]))
            head = i;
    found[RETARGET_HEAD] = head >= 0 ? RETARGET_BY_NAME : RETARGET_BY_STRUCTURE;
    if (head < 0)
        head = length - first >= 2 ? first + 1 : first;
    if (head < length) {
        map->joints[RETARGET_HEAD] = path[head];
        if (head > first) {
            map->joints[RETARGET_NECK] = path[first];
            found[RETARGET_NECK] = RETARGET_BY_STRUCTURE;
        }
    } else {
        found[RETARGET_HEAD] = RETARGET_NONE;
    }
    (void)hips;
    if (chest >= 0) {
        find_arm(f, left_arm, 1.0f, map, found, path);
        find_arm(f, right_arm, -1.0f, map, found, path);
    }
}

static bool find_facing(const model *m, const float up[3], const float forward[3], const retarget_map *given,
                        retarget_map *out, retarget_found found_out[RETARGET_ROLE_COUNT], diag *err)
{
    retarget_found found[RETARGET_ROLE_COUNT] = {RETARGET_NONE};
    *out = retarget_map_empty();
    if (!m || m->skeleton.joint_count <= 0)
        return diag_set(err, "retarget", 0, "no skeleton to map");
    int n = m->skeleton.joint_count;
    for (int r = 0; given && r < RETARGET_ROLE_COUNT; ++r) {
        if (given->joints[r] >= n)
            return diag_set(err, "retarget", 0, "%s: joint %d is past the skeleton's last joint %d",
                            retarget_role_name((retarget_role)r), given->joints[r], n - 1);
        for (int q = 0; q < r; ++q)
            if (given->joints[r] >= 0 && given->joints[q] == given->joints[r])
                return diag_set(err, "retarget", 0, "joint '%s' is given for two roles, %s and %s",
                                m->skeleton.names[given->joints[r]], retarget_role_name((retarget_role)q),
                                retarget_role_name((retarget_role)r));
    }
    finder f = {0};
    int *path = malloc((size_t)n * 2 * sizeof *path + sizeof *path);
    if (!path || !finder_init(&f, m, up, forward)) {
        free(path);
        finder_free(&f);
        return diag_set(err, "retarget", 0, "out of memory");
    }
    int left_leg = -1, right_leg = -1, up_child = -1;
    int hips = f.body > 0.0f ? find_hips(&f, &left_leg, &right_leg, &up_child) : -1;
    if (hips >= 0) {
        out->joints[RETARGET_HIPS] = hips;
        found[RETARGET_HIPS] = RETARGET_BY_STRUCTURE;
        int root = hips;
        while (m->skeleton.parents[root] >= 0)
            root = m->skeleton.parents[root];
        if (root != hips) {
            out->joints[RETARGET_ROOT] = root;
            found[RETARGET_ROOT] = RETARGET_BY_STRUCTURE;
        }
        find_leg(&f, hips, left_leg, 1.0f, out, found, path);
        find_leg(&f, hips, right_leg, -1.0f, out, found, path);
        find_spine_and_arms(&f, hips, up_child, out, found, path);
    }
    finder_free(&f);
    free(path);
    /* Given roles win; a found joint that a given role took leaves its own role empty. */
    for (int r = 0; given && r < RETARGET_ROLE_COUNT; ++r) {
        if (given->joints[r] < 0)
            continue;
        for (int q = 0; q < RETARGET_ROLE_COUNT; ++q)
            if (q != r && out->joints[q] == given->joints[r] && !(given->joints[q] >= 0)) {
                out->joints[q] = -1;
                found[q] = RETARGET_NONE;
            }
        out->joints[r] = given->joints[r];
        found[r] = RETARGET_GIVEN;
    }
    if (found_out)
        memcpy(found_out, found, sizeof found);
    for (int r = 0; r < RETARGET_ROLE_COUNT; ++r)
        if (retarget_role_required((retarget_role)r) && out->joints[r] < 0)
            return diag_set(err, "retarget", 0,
                            "no %s found: the skeleton has no two legs below one joint with a spine above it "
                            "in its bind pose; name the joints with map.hips, map.upper_leg.L, map.lower_leg.L, "
                            "map.foot.L and the same for .R",
                            retarget_role_name((retarget_role)r));
    return true;
}

/* How far the toes point along forward: the feet's bones to their toes, summed. */
static float toes_along(const model *m, const retarget_map *map, const float forward[3])
{
    float sum = 0.0f;
    static const retarget_role feet[2][2] = {{RETARGET_FOOT_L, RETARGET_TOE_L}, {RETARGET_FOOT_R, RETARGET_TOE_R}};
    for (int k = 0; k < 2; ++k) {
        int foot = map->joints[feet[k][0]], toe = map->joints[feet[k][1]];
        if (foot < 0 || toe < 0)
            continue;
        const float *a = m->skeleton.bind_object[foot].position, *b = m->skeleton.bind_object[toe].position;
        sum += (b[0] - a[0]) * forward[0] + (b[1] - a[1]) * forward[1] + (b[2] - a[2]) * forward[2];
    }
    return sum;
}

bool retarget_map_find(const model *m, const float up[3], const float forward[3], const retarget_map *given,
                       retarget_map *out, retarget_found found_out[RETARGET_ROLE_COUNT], float bind_forward[3],
                       diag *err)
{
    /* The bind pose may face another way than the clips (an exporter's bind pose turned a quarter from the
     * animation's): forward as given, then turned about up a quarter at a time; the way the toes point
     * decides between ways that all map (a way and its opposite both do, left and right swapped). */
    float ways[4][3], score[4];
    bool ok[4];
    diag first_error = {0};
    memcpy(ways[0], forward, sizeof ways[0]);
    int best = -1;
    for (int k = 0; k < 4; ++k) {
        if (k > 0) {
            const float *w = ways[k - 1];
            ways[k][0] = up[1] * w[2] - up[2] * w[1];
            ways[k][1] = up[2] * w[0] - up[0] * w[2];
            ways[k][2] = up[0] * w[1] - up[1] * w[0];
        }
        retarget_map map;
        diag error;
        ok[k] = find_facing(m, up, ways[k], given, &map, NULL, &error);
        score[k] = ok[k] ? toes_along(m, &map, ways[k]) : 0.0f;
        if (k == 0)
            first_error = error;
        if (ok[k] && (best < 0 || score[k] > score[best]))
            best = k;
    }
    if (best < 0) {
        find_facing(m, up, forward, given, out, found_out, err);
        if (err)
            *err = first_error;
        if (bind_forward)
            memcpy(bind_forward, forward, sizeof ways[0]);
        return false;
    }
    if (bind_forward)
        memcpy(bind_forward, ways[best], sizeof ways[best]);
    return find_facing(m, up, ways[best], given, out, found_out, err);
}
