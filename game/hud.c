/* hud: see hud.h. The text is built into fixed buffers every frame (no allocation) and drawn with one
 * gfx_text batch: panels first, then the lines over them. */
#include "hud.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gfx/gfx_text.h"

enum { HUD_TEXT_MAX = 4096, HUD_MARGIN = 8, HUD_PADDING = 6 };

static const float HUD_PANEL[4] = {0.05f, 0.06f, 0.08f, 0.62f};
static const float HUD_TEXT[4] = {0.93f, 0.94f, 0.96f, 1.0f};
static const float HUD_ERROR[4] = {1.0f, 0.45f, 0.4f, 1.0f};
static const float HUD_HINT[4] = {0.75f, 0.8f, 0.9f, 1.0f};
/* The state machine panel: darker behind it (it holds more text, often over the bright ground), the current
 * state in amber on a band of its own so it stands out at a glance. */
static const float HUD_STATE_PANEL[4] = {0.05f, 0.06f, 0.08f, 0.78f};
static const float HUD_CURRENT_BAND[4] = {0.45f, 0.32f, 0.05f, 0.85f};
static const float HUD_CURRENT[4] = {1.0f, 0.85f, 0.35f, 1.0f};
static const float HUD_QUIET[4] = {0.62f, 0.65f, 0.7f, 1.0f};

typedef struct hud_buffer {
    char *text;
    size_t size, used;
} hud_buffer;

static void add(hud_buffer *b, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void add(hud_buffer *b, const char *format, ...)
{
    if (b->used >= b->size)
        return;
    va_list arguments;
    va_start(arguments, format);
    int wrote = vsnprintf(b->text + b->used, b->size - b->used, format, arguments);
    va_end(arguments);
    if (wrote > 0)
        b->used += (size_t)wrote < b->size - b->used ? (size_t)wrote : b->size - b->used - 1;
}

/* 1.2 MB, 10.8 KB, 512 B. */
static void add_bytes(hud_buffer *b, size_t bytes)
{
    if (bytes >= 10u * 1024u * 1024u)
        add(b, "%.1f MB", (double)bytes / (1024.0 * 1024.0));
    else if (bytes >= 10u * 1024u)
        add(b, "%.1f KB", (double)bytes / 1024.0);
    else
        add(b, "%zu B", bytes);
}

/* 1,234,567: triangle counts are read at a glance. */
static void add_count(hud_buffer *b, long long value)
{
    if (value < 0) {
        add(b, "-");
        value = -value;
    }
    long long group = 1;
    while (value / group >= 1000)
        group *= 1000;
    add(b, "%lld", value / group);
    for (group /= 1000; group > 0; group /= 1000)
        add(b, ",%03lld", value / group % 1000);
}

/* Instances per level, finest first: 3/41/300/600/56. */
static void add_levels(hud_buffer *b, const int *levels)
{
    for (int l = 0; l < GFX_LOD_LEVELS; ++l)
        add(b, "%s%d", l ? "/" : "", levels[l]);
}

hud_budget hud_budget_from_stats(const gfx_stats *stats)
{
    hud_budget budget = {
        .gpu_timed = stats->gpu_timed,
        .gpu_shadow_ms = stats->gpu_shadow_ms,
        .gpu_ground_ms = stats->gpu_ground_ms,
        .gpu_characters_ms = stats->gpu_characters_ms,
        .gpu_overlay_ms = stats->gpu_overlay_ms,
        .gpu_frame_ms = stats->gpu_frame_ms,
        .triangles = stats->triangles,
        .shadow_triangles = stats->shadow_triangles,
    };
    memcpy(budget.lod_instances, stats->lod_instances, sizeof budget.lod_instances);
    memcpy(budget.shadow_lod_instances, stats->shadow_lod_instances, sizeof budget.shadow_lod_instances);
    return budget;
}

/* "gpu  24.10 ms: shadow 2.60  ground ..." or "gpu  time not available". */
static void add_gpu(hud_buffer *b, const hud_budget *budget)
{
    if (budget->gpu_timed)
        add(b, "gpu  %.2f ms: shadow %.2f  ground %.2f  characters %.2f  overlay %.2f", (double)budget->gpu_frame_ms,
            (double)budget->gpu_shadow_ms, (double)budget->gpu_ground_ms, (double)budget->gpu_characters_ms,
            (double)budget->gpu_overlay_ms);
    else
        add(b, "gpu  time not available");
}

/* "triangles 10,624 (shadow 5,312)  LOD 1/0/0/0/0  shadow LOD 1/0/0/0/0". */
static void add_triangles(hud_buffer *b, const hud_budget *budget)
{
    add(b, "triangles ");
    add_count(b, budget->triangles);
    add(b, " (shadow ");
    add_count(b, budget->shadow_triangles);
    add(b, ")  LOD ");
    add_levels(b, budget->lod_instances);
    add(b, "  shadow LOD ");
    add_levels(b, budget->shadow_lod_instances);
}

void hud_budget_text(const hud_budget *budget, const char *between, char *buffer, size_t size)
{
    hud_buffer b = {.text = buffer, .size = size};
    if (size == 0)
        return;
    buffer[0] = '\0';
    add_gpu(&b, budget);
    add(&b, "%s", between);
    add_triangles(&b, budget);
}

static void add_channel(hud_buffer *b, const anim_controller *controller, int channel)
{
    int layers = anim_controller_layer_count(controller, channel);
    float weight = anim_controller_channel_weight(controller, channel);
    if (layers == 0 || weight <= 0.0f)
        return;
    add(b, "  %s", channel == 0 ? "body   " : "overlay");
    if (channel != 0)
        add(b, " (%.2f)", (double)weight);
    for (int k = layers - 1; k >= 0; --k) {
        anim_layer_info layer;
        if (!anim_controller_layer(controller, channel, k, &layer))
            continue;
        /* A blend shows its heaviest clip; an additive blend at its rest has none with weight: it adds nothing. */
        float blend_weights[ANIM_BLEND_MAX_CLIPS];
        int clips = anim_controller_layer_blend_weights(controller, channel, k, blend_weights);
        bool resting = layer.blend && layer.blend->has_rest;
        for (int i = 0; i < clips && resting; ++i)
            resting = !(blend_weights[i] > 0.0f);
        if (resting)
            add(b, "  %s (rest) %.2f", layer.blend->name, (double)layer.weight);
        else
            add(b, "  %s %.2f", layer.clip ? layer.clip->name : "(held pose)", (double)layer.weight);
        if (layer.clip && layer.speed != 1.0f)
            add(b, " x%.2f", (double)layer.speed);
    }
    add(b, "\n");
}

/* ---- The HUD's rows, top to bottom: each writes its line (or lines) from the view. A new line is a row. */

static void row_frame(hud_buffer *b, const hud_view *v)
{
    add(b, "marionette  %.0f fps  frame %.1f ms  update %.2f ms  draw %.1f ms\n", v->fps, v->frame_ms,
        v->update_ms, v->draw_ms);
    add_gpu(b, &v->budget); /* under the CPU's figures */
    add(b, "\n");
}

static void row_player(hud_buffer *b, const hud_view *v)
{
    if (!v->player_layers) {
        add(b, "player  none (no valid character; fix the config and press F5)\n");
        return;
    }
    /* The look-at weight, the foot IK and the ground on the player's line: a line of their own would push the
     * HUD further over the picture. */
    add(b, "player  %s  %.2f m/s  time x%.3g  look-at ", v->player_state, (double)v->player_speed,
        (double)v->time_scale);
    if (v->look_player)
        add(b, "%.2f", (double)v->look_weight);
    else
        add(b, "off");
    if (v->look_crowd_distance > 0.0f)
        add(b, " (crowd %.3g m)", (double)v->look_crowd_distance);
    /* The pelvis's drop in whole centimetres: under half a centimetre reads 0, not -0. */
    long drop_cm = lround((double)v->pelvis_drop * 100.0);
    if (v->foot_ik_on)
        add(b, "  foot IK pelvis %s%ld cm", drop_cm > 0 ? "-" : "", drop_cm);
    else
        add(b, "  foot IK off");
    add(b, "%s%s%s", v->ground ? "  ground " : "", v->ground ? v->ground : "",
        v->paused ? "  PAUSED (P resume, . step)" : "");
    if (v->recording)
        add(b, "  REC %.1f s", (double)v->recording_seconds);
    add(b, "\n");
    for (int channel = 0; channel < ANIM_CHANNEL_COUNT; ++channel)
        add_channel(b, v->player_layers, channel);
}

static void row_events(hud_buffer *b, const hud_view *v)
{
    add(b, "events ");
    if (v->event_count == 0)
        add(b, " none yet");
    for (int i = v->event_count - 1; i >= 0; --i)
        /* A faint event (a layer fading out alone in carrying its mark) shows its weight, not 0.00. */
        add(b, v->events[i].weight < 0.01f ? " %s (%.3f) %.1fs ago" : " %s (%.2f) %.1fs ago", v->events[i].name,
            (double)v->events[i].weight, v->events[i].seconds_ago);
    add(b, "\n");
}

static void row_crowd(hud_buffer *b, const hud_view *v)
{
    add(b, "crowd  %d entities (%d poses a step; near %d middle %d far %d hidden %d)  shared ", v->crowd_entities,
        v->crowd_poses_per_step, v->crowd_tiers[0], v->crowd_tiers[1], v->crowd_tiers[2], v->crowd_tiers[3]);
    add_bytes(b, v->shared_bytes);
    add(b, " (%d models, %d clips)  per entity ", v->shared_models, v->shared_clips);
    add_bytes(b, v->crowd_entities > 0 ? v->crowd_bytes_per_entity : 0);
    add(b, "  all entities ");
    add_bytes(b, v->crowd_entity_bytes);
    add(b, "\n");
}

/* The draw figures, how characters are skinned and the debug views on (their words from the demo's table). */
static void row_draw(hud_buffer *b, const hud_view *v)
{
    add(b, "draw  %d calls  %d drawn  %d culled  ", v->draw_calls, v->drawn, v->culled);
    add_triangles(b, &v->budget);
    add(b, "  %s skinning%s%s", v->cpu_skinning ? "CPU" : "GPU", v->skin_blend ? ", blend " : "",
        v->skin_blend ? v->skin_blend : "");
    for (int i = 0; i < v->view_count; ++i)
        add(b, "  %s", v->views[i]);
    add(b, "\n");
}

static void row_legends(hud_buffer *b, const hud_view *v)
{
    for (int i = 0; i < v->legend_count; ++i)
        add(b, "%s\n", v->legends[i]);
}

static void row_status(hud_buffer *b, const hud_view *v)
{
    if (v->status && v->status[0])
        add(b, "%s\n", v->status);
}

typedef void hud_row(hud_buffer *b, const hud_view *v);
static hud_row *const hud_rows[] = {row_frame, row_player, row_events, row_crowd, row_draw, row_legends, row_status};

void hud_text(const hud_view *v, char *buffer, size_t size)
{
    hud_buffer b = {.text = buffer, .size = size};
    if (size == 0)
        return;
    buffer[0] = '\0';
    for (size_t i = 0; i < sizeof hud_rows / sizeof hud_rows[0]; ++i)
        hud_rows[i](&b, v);
}

/* The state machine panel on the right, from `top` down, or below the main panel (main_right, main_bottom)
 * where it would overlap it; cut at the bottom of the picture if need be. */
static void draw_state_panel(const state_panel_lines *panel, int width, int height, float top, float main_right,
                             float main_bottom, int scale)
{
    static const float *const colors[] = {[STATE_PANEL_PLAIN] = HUD_TEXT, [STATE_PANEL_TITLE] = HUD_HINT,
                                          [STATE_PANEL_CURRENT] = HUD_CURRENT, [STATE_PANEL_QUIET] = HUD_QUIET};
    int line = gfx_text_line_height(scale);
    int widest = 0;
    for (int i = 0; i < panel->count; ++i) {
        int w = gfx_text_width(panel->text[i], scale);
        widest = w > widest ? w : widest;
    }
    float left = (float)(width - HUD_MARGIN - widest - 2 * HUD_PADDING);
    left = left < HUD_MARGIN ? HUD_MARGIN : left;
    if (left < main_right + HUD_MARGIN && top < main_bottom + HUD_MARGIN)
        top = main_bottom + HUD_MARGIN;
    int shown = panel->count;
    int room = (int)(((float)height - HUD_MARGIN - top - 2 * HUD_PADDING) / (float)line);
    shown = shown < room ? shown : room;
    if (shown <= 0)
        return;
    gfx_text_rect(left, top, (float)(widest + 2 * HUD_PADDING), (float)(shown * line + 2 * HUD_PADDING),
                  HUD_STATE_PANEL);
    for (int i = 0; i < shown; ++i) {
        float y = top + HUD_PADDING + (float)(i * line);
        state_panel_style style = panel->styles[i];
        if (style == STATE_PANEL_CURRENT)
            gfx_text_rect(left + HUD_PADDING / 2, y - 1.0f, (float)(widest + HUD_PADDING), (float)line,
                          HUD_CURRENT_BAND);
        gfx_text_draw(left + HUD_PADDING, y, scale, (int)style >= 0 && style <= STATE_PANEL_QUIET ? colors[style]
                                                                                                   : HUD_TEXT,
                      panel->text[i]);
    }
}

/* The right panel's text: the controls, or the hint naming their key. Its lines. */
static int right_panel_text(const hud_view *v, char *out, size_t size)
{
    int lines = 1;
    if (v->show_help && v->controls) {
        controls_help_text(v->controls, out, size);
        for (const char *c = out; *c; ++c)
            lines += *c == '\n';
        return lines;
    }
    char key[CONTROLS_KEY_NAME_MAX] = "F1";
    if (v->controls && v->controls->bindings && v->controls->bindings[GAME_ACTION_HELP].key_count > 0)
        controls_key_name(v->controls->bindings[GAME_ACTION_HELP].keys[0], key, sizeof key);
    snprintf(out, size, "%s: controls", key);
    return lines;
}

/* hud_layout_of with the texts already made. */
static hud_layout layout_of(const char *text, const char *right_text, int right_lines, int width, int height)
{
    hud_layout l = {.scale = height >= 1000 ? 2 : 1};
    l.line = gfx_text_line_height(l.scale);
    int lines = 1;
    for (const char *c = text; *c; ++c)
        lines += *c == '\n';
    if (text[0] && text[strlen(text) - 1] == '\n')
        --lines;
    l.main = (hud_rect){HUD_MARGIN, HUD_MARGIN, (float)(HUD_MARGIN + gfx_text_width(text, l.scale) + 2 * HUD_PADDING),
                        (float)(HUD_MARGIN + lines * l.line + 2 * HUD_PADDING)};
    int w = gfx_text_width(right_text, l.scale);
    float left = (float)(width - HUD_MARGIN - w - 2 * HUD_PADDING);
    float top = left < l.main.right + HUD_MARGIN ? l.main.bottom + HUD_MARGIN : (float)HUD_MARGIN;
    l.right = (hud_rect){left, top, (float)(width - HUD_MARGIN), top + (float)(right_lines * l.line + 2 * HUD_PADDING)};
    return l;
}

hud_layout hud_layout_of(const hud_view *v, int width, int height)
{
    char text[HUD_TEXT_MAX], right[CONTROLS_HELP_TEXT_MAX];
    hud_text(v, text, sizeof text);
    int right_lines = right_panel_text(v, right, sizeof right);
    return layout_of(text, right, right_lines, width, height);
}

void hud_draw(const hud_view *v, int width, int height)
{
    char text[HUD_TEXT_MAX], right_text[CONTROLS_HELP_TEXT_MAX];
    hud_text(v, text, sizeof text);
    int right_lines = right_panel_text(v, right_text, sizeof right_text);
    hud_layout l = layout_of(text, right_text, right_lines, width, height);
    int scale = l.scale, line = l.line;
    float main_right = l.main.right, main_bottom = l.main.bottom;
    gfx_text_begin(width, height);
    gfx_text_rect(l.main.left, l.main.top, l.main.right - l.main.left, l.main.bottom - l.main.top, HUD_PANEL);
    gfx_text_draw(HUD_MARGIN + HUD_PADDING, HUD_MARGIN + HUD_PADDING, scale, HUD_TEXT, text);

    /* Config problems stay at the bottom, in red, until a good reload. */
    if (v->message_count > 0) {
        int shown = v->message_count + (v->messages_total > v->message_count);
        float top = (float)(height - HUD_MARGIN - 2 * HUD_PADDING - shown * line);
        int widest = 0;
        for (int i = 0; i < v->message_count; ++i) {
            int w = gfx_text_width(v->messages[i], scale);
            widest = w > widest ? w : widest;
        }
        gfx_text_rect(HUD_MARGIN, top, (float)(widest + 2 * HUD_PADDING), (float)(shown * line + 2 * HUD_PADDING),
                      HUD_PANEL);
        for (int i = 0; i < v->message_count; ++i)
            gfx_text_draw(HUD_MARGIN + HUD_PADDING, top + HUD_PADDING + (float)(i * line), scale, HUD_ERROR,
                          v->messages[i]);
        if (v->messages_total > v->message_count)
            gfx_text_drawf(HUD_MARGIN + HUD_PADDING, top + HUD_PADDING + (float)(v->message_count * line), scale,
                           HUD_ERROR, "... and %d more on stderr", v->messages_total - v->message_count);
    }

    /* The top right: the help or its hint (below the main block where that reaches so far right), then the
     * state machine panel under it. */
    gfx_text_rect(l.right.left, l.right.top, l.right.right - l.right.left, l.right.bottom - l.right.top, HUD_PANEL);
    gfx_text_draw(l.right.left + HUD_PADDING, l.right.top + HUD_PADDING, scale,
                  v->show_help && v->controls ? HUD_TEXT : HUD_HINT, right_text);
    float right_bottom = l.right.bottom;
    if (v->state_machine)
        draw_state_panel(v->state_machine, width, height, right_bottom + HUD_MARGIN, main_right, main_bottom, scale);
    gfx_text_end();
}
