/* md5tool graph: a character's state machine drawn as a picture. The DOT text (Graphviz's language) is
 * written here from the loaded definition; .svg and .png are made by running Graphviz's `dot` on it.
 * Knows nothing of how states.ini is parsed: it prints conditions back in that file's syntax from the
 * definition the config loader built. */
#ifndef MARIONETTE_MD5TOOL_GRAPH_H
#define MARIONETTE_MD5TOOL_GRAPH_H

#include <stdio.h>

#include "anim/config/anim_config.h"

/* The character's machine as DOT text: a node per state (name, clip, loop or one-shot, rate parameter,
 * overlay), the start state marked, an "any state" node for `any` transitions, an edge per transition
 * labelled with its condition (alternatives of one `or` joined again), fade and, when not 0, priority,
 * and a legend of the parameters. The same definition always gives the same bytes. */
void graph_write_dot(FILE *out, const anim_character *character);

int command_graph(int argc, char **argv);

#endif
