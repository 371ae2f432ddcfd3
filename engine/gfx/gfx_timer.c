/* gfx_timer: see gfx_timer.h. GL forbids nesting GL_TIME_ELAPSED queries, so a frame is timed with
 * GL_TIMESTAMP marks (glQueryCounter) at the pass boundaries instead: one mark where gfx_end_frame starts,
 * one at each following pass, one where it ends, and two around the caller's overlay (the HUD's text).
 * A frame's marks form a set; a ring of sets lets the results arrive a few frames late. */
#include "gfx_timer.h"

#include <string.h>

#include <GL/glew.h>

enum {
    /* Frames whose results may be outstanding at once: a GPU (or llvmpipe) a few frames behind still
     * finds a free set; beyond that a frame goes untimed rather than wait. */
    GFX_TIMER_RING = 4,
};

/* The marks of one frame, in the order they are issued. A pass runs from its mark to the next one. */
typedef enum gfx_timer_mark {
    GFX_MARK_START,          /* gfx_end_frame starts: the uploads, then the shadow pass */
    GFX_MARK_CHARACTERS,     /* clear and characters */
    GFX_MARK_GROUND,
    GFX_MARK_DEBUG_LINES,    /* the overlay's first part */
    GFX_MARK_END,            /* gfx_end_frame returns */
    GFX_MARK_OVERLAY_BEGIN,  /* gfx_overlay_begin .. gfx_overlay_end: the caller's overlay */
    GFX_MARK_OVERLAY_END,
    GFX_MARK_COUNT
} gfx_timer_mark;

typedef enum gfx_timer_set_state {
    GFX_SET_FREE,
    GFX_SET_OPEN,     /* this frame's: marks are being issued */
    GFX_SET_PENDING,  /* closed, waiting for the GPU's results */
} gfx_timer_set_state;

typedef struct gfx_timer_set {
    GLuint queries[GFX_MARK_COUNT];
    bool issued[GFX_MARK_COUNT];
    gfx_timer_set_state state;
} gfx_timer_set;

typedef struct gfx_timer_figures {
    float shadow_ms, ground_ms, characters_ms, overlay_ms, frame_ms;
} gfx_timer_figures;

static struct {
    bool enabled;              /* the driver has timestamp queries and they were not switched off */
    int every, countdown;      /* one frame in `every` is timed; countdown: untimed frames before the next */
    gfx_timer_set sets[GFX_TIMER_RING];
    int next;                  /* the set the next frame opens (the oldest in the ring) */
    int open;                  /* the set of the frame being drawn; -1: this frame is not timed */
    bool have_figures;
    gfx_timer_figures latest;  /* of the newest frame whose results arrived */
    /* The current frame's counts. */
    gfx_pass pass;
    int64_t triangles[GFX_PASS_COUNT];
    int lod_instances[GFX_LOD_LEVELS], shadow_lod_instances[GFX_LOD_LEVELS];
} timer;

void gfx_timer_setup(bool off, int every)
{
    memset(&timer, 0, sizeof timer);
    timer.open = -1;
    timer.every = every > 0 ? every : 1;
    if (off)
        return;
    /* Timer queries are core in GL 3.3, but a driver may still give the timestamp counter no bits. */
    if (!GLEW_VERSION_3_3 && !GLEW_ARB_timer_query)
        return;
    GLint bits = 0;
    glGetQueryiv(GL_TIMESTAMP, GL_QUERY_COUNTER_BITS, &bits);
    if (bits <= 0)
        return;
    for (int s = 0; s < GFX_TIMER_RING; ++s)
        glGenQueries(GFX_MARK_COUNT, timer.sets[s].queries);
    timer.enabled = true;
}

void gfx_timer_shutdown(void)
{
    if (timer.enabled)
        for (int s = 0; s < GFX_TIMER_RING; ++s)
            glDeleteQueries(GFX_MARK_COUNT, timer.sets[s].queries);
    memset(&timer, 0, sizeof timer);
    timer.open = -1;
}

static void mark(gfx_timer_mark which)
{
    if (timer.open < 0)
        return;
    gfx_timer_set *set = &timer.sets[timer.open];
    glQueryCounter(set->queries[which], GL_TIMESTAMP);
    /* A tiler (llvmpipe, and mobile GPUs) draws a render target's commands only when they are flushed, and
     * stamps a mark when it reaches it there: marks between two flushes all come back as the moment the
     * whole target was done. A flush after each mark ends a batch there, so each mark is the time the
     * GPU finished what came before it. */
    glFlush();
    set->issued[which] = true;
}

static float milliseconds(GLuint64 from, GLuint64 to)
{
    return to > from ? (float)((double)(to - from) * 1e-6) : 0.0f;
}

/* A pending set's figures, when every mark it issued has its result; false (nothing read) otherwise. */
static bool read_set(gfx_timer_set *set, gfx_timer_figures *out)
{
    for (int m = GFX_MARK_COUNT - 1; m >= 0; --m) {
        if (!set->issued[m])
            continue;
        GLint available = 0;
        glGetQueryObjectiv(set->queries[m], GL_QUERY_RESULT_AVAILABLE, &available);
        if (!available)
            return false;
    }
    GLuint64 t[GFX_MARK_COUNT] = {0};
    for (int m = 0; m < GFX_MARK_COUNT; ++m)
        if (set->issued[m])
            glGetQueryObjectui64v(set->queries[m], GL_QUERY_RESULT, &t[m]);
    /* Should a driver stamp a mark ahead of work queued before it, the passes still add up to the frame: a
     * mark never counts as earlier than the one issued before it. */
    for (int m = GFX_MARK_START + 1; m <= GFX_MARK_END; ++m)
        if (set->issued[m] && t[m] < t[m - 1])
            t[m] = t[m - 1];
    bool overlay = set->issued[GFX_MARK_OVERLAY_BEGIN] && set->issued[GFX_MARK_OVERLAY_END];
    float caller_overlay = overlay ? milliseconds(t[GFX_MARK_OVERLAY_BEGIN], t[GFX_MARK_OVERLAY_END]) : 0.0f;
    *out = (gfx_timer_figures){
        .shadow_ms = milliseconds(t[GFX_MARK_START], t[GFX_MARK_CHARACTERS]),
        .characters_ms = milliseconds(t[GFX_MARK_CHARACTERS], t[GFX_MARK_GROUND]),
        .ground_ms = milliseconds(t[GFX_MARK_GROUND], t[GFX_MARK_DEBUG_LINES]),
        .overlay_ms = milliseconds(t[GFX_MARK_DEBUG_LINES], t[GFX_MARK_END]) + caller_overlay,
        .frame_ms = milliseconds(t[GFX_MARK_START], t[GFX_MARK_END]) + caller_overlay,
    };
    return true;
}

void gfx_timer_frame_begin(void)
{
    timer.pass = GFX_PASS_SHADOW;
    memset(timer.triangles, 0, sizeof timer.triangles);
    memset(timer.lod_instances, 0, sizeof timer.lod_instances);
    memset(timer.shadow_lod_instances, 0, sizeof timer.shadow_lod_instances);
    if (!timer.enabled)
        return;
    /* The previous frame's set closes here, after its overlay. */
    if (timer.open >= 0)
        timer.sets[timer.open].state = GFX_SET_PENDING;
    timer.open = -1;
    /* Oldest first; results come in order, so the first one not in yet ends the look. */
    for (int k = 0; k < GFX_TIMER_RING; ++k) {
        gfx_timer_set *set = &timer.sets[(timer.next + k) % GFX_TIMER_RING];
        if (set->state != GFX_SET_PENDING)
            continue;
        if (!read_set(set, &timer.latest))
            break;
        timer.have_figures = true;
        set->state = GFX_SET_FREE;
    }
    if (timer.countdown > 0) {
        --timer.countdown;
        return;
    }
    gfx_timer_set *set = &timer.sets[timer.next];
    if (set->state != GFX_SET_FREE)
        return; /* every set still waits for the GPU: this frame goes untimed, the figures stay */
    timer.countdown = timer.every - 1;
    memset(set->issued, 0, sizeof set->issued);
    set->state = GFX_SET_OPEN;
    timer.open = timer.next;
    timer.next = (timer.next + 1) % GFX_TIMER_RING;
    mark(GFX_MARK_START);
}

void gfx_timer_pass(gfx_pass pass)
{
    timer.pass = pass;
    static const gfx_timer_mark starts[GFX_PASS_COUNT] = {
        [GFX_PASS_SHADOW] = GFX_MARK_START,
        [GFX_PASS_GROUND] = GFX_MARK_GROUND,
        [GFX_PASS_CHARACTERS] = GFX_MARK_CHARACTERS,
        [GFX_PASS_OVERLAY] = GFX_MARK_DEBUG_LINES,
    };
    if (pass != GFX_PASS_SHADOW) /* the shadow pass starts at the frame's start mark */
        mark(starts[pass]);
}

void gfx_timer_frame_end(gfx_stats *stats)
{
    mark(GFX_MARK_END);
    stats->triangles = 0;
    for (int p = 0; p < GFX_PASS_COUNT; ++p)
        stats->triangles += timer.triangles[p];
    stats->shadow_triangles = timer.triangles[GFX_PASS_SHADOW];
    memcpy(stats->lod_instances, timer.lod_instances, sizeof stats->lod_instances);
    memcpy(stats->shadow_lod_instances, timer.shadow_lod_instances, sizeof stats->shadow_lod_instances);
    stats->gpu_timed = timer.have_figures;
    stats->gpu_shadow_ms = timer.latest.shadow_ms;
    stats->gpu_ground_ms = timer.latest.ground_ms;
    stats->gpu_characters_ms = timer.latest.characters_ms;
    stats->gpu_overlay_ms = timer.latest.overlay_ms;
    stats->gpu_frame_ms = timer.latest.frame_ms;
}

void gfx_timer_count_triangles(int instances, int index_count)
{
    timer.triangles[timer.pass] += (int64_t)instances * (index_count / 3);
}

void gfx_timer_count_instances(int level, int instances)
{
    level = level < 0 ? 0 : level >= GFX_LOD_LEVELS ? GFX_LOD_LEVELS - 1 : level;
    if (timer.pass == GFX_PASS_SHADOW)
        timer.shadow_lod_instances[level] += instances;
    else if (timer.pass == GFX_PASS_CHARACTERS)
        timer.lod_instances[level] += instances;
}

/* ---- The caller's overlay (gfx.h) ---------------------------------------------------------------------- */

void gfx_overlay_begin(void)
{
    /* Only after gfx_end_frame, once: the marks belong to the frame just ended. */
    if (timer.open < 0 || !timer.sets[timer.open].issued[GFX_MARK_END] ||
        timer.sets[timer.open].issued[GFX_MARK_OVERLAY_BEGIN])
        return;
    mark(GFX_MARK_OVERLAY_BEGIN);
}

void gfx_overlay_end(void)
{
    if (timer.open < 0 || !timer.sets[timer.open].issued[GFX_MARK_OVERLAY_BEGIN] ||
        timer.sets[timer.open].issued[GFX_MARK_OVERLAY_END])
        return;
    mark(GFX_MARK_OVERLAY_END);
}
