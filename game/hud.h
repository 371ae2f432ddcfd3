/* hud: the demo's text overlay, drawn with gfx_text after the scene: frame figures, the player's state,
 * layers and last events, the crowd's shared and per-entity memory, draw calls, the views switched on,
 * the last reload and any config problem with its file:line, and the controls (F1).
 * Reads the demo's state; changes nothing. */
#ifndef MARIONETTE_HUD_H
#define MARIONETTE_HUD_H

#include <stddef.h>

struct demo;

void hud_draw(const struct demo *d, int width, int height);

/* The HUD's lines as plain text (what hud_draw shows, help excluded), for tests and logs. */
void hud_text(const struct demo *d, char *buffer, size_t size);

#endif
