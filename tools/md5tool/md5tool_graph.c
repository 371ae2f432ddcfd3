/* md5tool graph CONFIG_DIR [--character NAME] --out FILE.svg|FILE.png|FILE.dot: see md5tool_graph.h.
 * Node names in the DOT text are s0, s1, ... (and any, start, legend), never the states' own names, so no
 * name a config accepts can clash with DOT's keywords; names appear only inside labels, escaped there. */
#include "md5tool_graph.h"

#include <errno.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file.h"
#include "md5tool_common.h"

extern char **environ;

/* ---- escaping ---- */

/* Text inside an HTML-like label (<...>): the markup characters become entities; control characters
 * (which no loader lets through, but a joint name comes from a model file) become spaces. */
static void put_html(FILE *out, const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; ++c) {
        switch (*c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*c < 0x20 || *c == 0x7f ? ' ' : *c, out); break;
        }
    }
}

/* Text inside a double-quoted DOT string used as a label: a backslash starts an escape there (\n, \l,
 * \N ...), so it is doubled; a quote is escaped; a line break is written as DOT's \n. */
static void put_quoted(FILE *out, const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; ++c) {
        if (*c == '"' || *c == '\\')
            fputc('\\', out);
        if (*c == '\n')
            fputs("\\n", out);
        else
            fputc(*c < 0x20 || *c == 0x7f ? ' ' : *c, out);
    }
}

/* ---- numbers ---- */

/* The shortest decimal that reads back as the same float: 0.2 rather than 0.200000003, and 1234567 in
 * full where %g would round 999999.5 to 1e+06, a different number than the file's. Written as a person
 * writes it where %g can: 90, not the 9e+01 that one digit of %g makes of it. */
typedef struct graph_number {
    char text[32];
} graph_number;

static graph_number number_text(float value)
{
    graph_number n, first = {""};
    for (int digits = 1; digits <= 9; ++digits) {
        snprintf(n.text, sizeof n.text, "%.*g", digits, (double)value);
        if (strtof(n.text, NULL) != value)
            continue;
        if (!strchr(n.text, 'e'))
            return n;
        if (!first.text[0])
            first = n;
    }
    return first.text[0] ? first : n;
}

/* ---- conditions, as states.ini writes them ---- */

static const char *comparison_text(state_machine_comparison comparison)
{
    switch (comparison) {
    case STATE_MACHINE_LESS: return "<";
    case STATE_MACHINE_LESS_EQUAL: return "<=";
    case STATE_MACHINE_GREATER: return ">";
    case STATE_MACHINE_GREATER_EQUAL: return ">=";
    case STATE_MACHINE_EQUAL: return "==";
    case STATE_MACHINE_NOT_EQUAL: return "!=";
    }
    return "?";
}

/* One term in the syntax the loader reads back to the same term. */
static void put_term(FILE *out, const state_machine_definition *machine, const state_machine_term *term)
{
    const char *name = term->parameter >= 0 && term->parameter < machine->parameter_count
                           ? machine->parameters[term->parameter].name
                           : "?";
    switch (term->kind) {
    case STATE_MACHINE_TERM_ALWAYS: put_quoted(out, "true"); return;
    case STATE_MACHINE_TERM_CLIP_END: put_quoted(out, "end"); return;
    case STATE_MACHINE_TERM_OVERLAY_END: put_quoted(out, "overlay_end"); return;
    case STATE_MACHINE_TERM_TRIGGER: put_quoted(out, name); return;
    case STATE_MACHINE_TERM_COMPARE_TIME:
        fprintf(out, "time %s %s", comparison_text(term->comparison), number_text(term->value).text);
        return;
    case STATE_MACHINE_TERM_COMPARE_PARAMETER:
        break;
    }
    if (term->parameter >= 0 && term->parameter < machine->parameter_count &&
        machine->parameters[term->parameter].type == STATE_MACHINE_BOOL) {
        /* The loader stores `grounded` as != 0 and `not grounded` as == 0; `grounded == true` reads back the
         * same as `grounded`, so the short forms are written. */
        bool is_true = (term->comparison == STATE_MACHINE_NOT_EQUAL) == (term->value == 0.0f);
        if (!is_true)
            fputs("not ", out);
        put_quoted(out, name);
        return;
    }
    put_quoted(out, name);
    fprintf(out, " %s %s", comparison_text(term->comparison), number_text(term->value).text);
}

static void put_clause(FILE *out, const state_machine_definition *machine, const state_machine_transition *t)
{
    for (int i = 0; i < t->term_count; ++i) {
        if (i > 0)
            fputs(" and ", out);
        put_term(out, machine, &t->terms[i]);
    }
}

/* The loader splits `a or b` into one transition per alternative, written next to each other with the
 * same ends, fade, priority and restart; the sort by priority keeps them together. Drawing them as one
 * edge with `or` again shows the file's line. Joining two separate sections that happen to follow each
 * other with the same settings means the same thing, so it is not wrong either. */
static bool same_edge(const state_machine_transition *a, const state_machine_transition *b)
{
    return a->from == b->from && a->to == b->to && a->fade == b->fade && a->priority == b->priority &&
           a->restart == b->restart;
}

/* ---- the DOT text ---- */

static const char *clip_name(const anim_character *character, int clip)
{
    return clip >= 0 && clip < character->clip_count ? character->clips[clip].name : "?";
}

/* "clip walk" ("walk" without say_clip), or "blend locomotion (speed): idle 0, walk 1.4, run 3.5" with 2D
 * points as (x y). */
static void put_playable(FILE *out, const anim_character *character, int clip, int blend_index, bool say_clip)
{
    if (blend_index < 0 || blend_index >= character->blend_count) {
        if (say_clip)
            fputs("clip ", out);
        put_html(out, clip_name(character, clip));
        return;
    }
    const anim_blend *blend = &character->blends[blend_index];
    const state_machine_definition *machine = &character->machine;
    fputs("blend ", out);
    put_html(out, blend->name);
    fputs(" (", out);
    for (int axis = 0; axis < blend->dimensions; ++axis) {
        int parameter = blend->parameters[axis];
        if (axis > 0)
            fputs(" ", out);
        put_html(out, parameter >= 0 && parameter < machine->parameter_count ? machine->parameters[parameter].name : "?");
    }
    fputs("):", out);
    for (int i = 0; i < blend->count; ++i) {
        fputs(i == 0 ? "<br/>" : ", ", out);
        put_html(out, blend->clips[i]->name);
        if (blend->dimensions == 1)
            fprintf(out, " %s", number_text(blend->points[i][0]).text);
        else
            fprintf(out, " (%s %s)", number_text(blend->points[i][0]).text, number_text(blend->points[i][1]).text);
    }
    if (blend->has_rest && blend->dimensions == 1)
        fprintf(out, ", rest %s", number_text(blend->rest[0]).text);
    else if (blend->has_rest)
        fprintf(out, ", rest (%s %s)", number_text(blend->rest[0]).text, number_text(blend->rest[1]).text);
}

static void put_state(FILE *out, const anim_character *character, int index)
{
    const state_machine_definition *machine = &character->machine;
    const state_machine_state *state = &machine->states[index];
    bool is_start = index == machine->start_state;
    fprintf(out, "  s%d [label=<<b>", index);
    put_html(out, state->name);
    fputs("</b>", out);
    if (is_start)
        fputs(" <i>(start)</i>", out);
    fputs("<br/><font point-size=\"10\">", out);
    put_playable(out, character, state->clip, state->blend, true);
    fputs(state->loop ? ", loop" : ", one-shot", out);
    if (state->rate != 1.0f)
        fprintf(out, "<br/>rate %s", number_text(state->rate).text);
    if (state->rate_parameter >= 0 && state->rate_parameter < machine->parameter_count) {
        fputs("<br/>rate_from ", out);
        put_html(out, machine->parameters[state->rate_parameter].name);
        fprintf(out, " [%s, %s]", number_text(state->rate_min).text, number_text(state->rate_max).text);
    }
    if (state->overlay_clip >= 0) {
        fputs("<br/>overlay ", out);
        put_playable(out, character, state->overlay_clip, state->overlay_blend, false);
        const skeleton *bones = character->model ? &character->model->skeleton : NULL;
        if (bones && state->overlay_root_joint >= 0 && state->overlay_root_joint < bones->joint_count) {
            fputs(" on ", out);
            put_html(out, bones->names[state->overlay_root_joint]);
        }
    }
    fprintf(out, "</font>>%s];\n", is_start ? ", penwidth=2.5, style=\"rounded,filled\", fillcolor=\"#eef4ff\"" : "");
}

static void put_transition(FILE *out, const state_machine_definition *machine, int first, int count)
{
    const state_machine_transition *t = &machine->transitions[first];
    if (t->from == STATE_MACHINE_ANY)
        fputs("  any", out);
    else
        fprintf(out, "  s%d", t->from);
    fprintf(out, " -> s%d [label=\"", t->to);
    for (int i = first; i < first + count; ++i) {
        if (i > first)
            fputs(" or ", out);
        put_clause(out, machine, &machine->transitions[i]);
    }
    fprintf(out, "\\nfade %s", number_text(t->fade).text);
    if (t->priority != 0)
        fprintf(out, ", priority %d", t->priority);
    if (t->restart)
        fputs(", restart", out);
    fputs("\"", out);
    if (t->from == STATE_MACHINE_ANY)
        fputs(", style=dashed", out);
    fputs("];\n", out);
}

static const char *type_name(state_machine_parameter_type type)
{
    switch (type) {
    case STATE_MACHINE_NUMBER: return "number";
    case STATE_MACHINE_BOOL: return "bool";
    case STATE_MACHINE_TRIGGER: return "trigger";
    }
    return "?";
}

static void put_legend(FILE *out, const state_machine_definition *machine)
{
    fputs("  legend [shape=plaintext, label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" "
          "cellpadding=\"4\">\n"
          "    <tr><td colspan=\"3\" bgcolor=\"#eeeeee\"><b>parameters</b></td></tr>\n",
          out);
    for (int i = 0; i < machine->parameter_count; ++i) {
        const state_machine_parameter *parameter = &machine->parameters[i];
        fputs("    <tr><td align=\"left\">", out);
        put_html(out, parameter->name);
        fprintf(out, "</td><td align=\"left\">%s</td><td align=\"left\">", type_name(parameter->type));
        if (parameter->type == STATE_MACHINE_NUMBER)
            fputs(number_text(parameter->default_value).text, out);
        else if (parameter->type == STATE_MACHINE_BOOL)
            fputs(parameter->default_value != 0.0f ? "true" : "false", out);
        fputs("</td></tr>\n", out);
    }
    if (machine->parameter_count == 0)
        fputs("    <tr><td colspan=\"3\">none</td></tr>\n", out);
    fprintf(out, "    <tr><td colspan=\"3\" align=\"left\">trigger_hold %s s</td></tr>\n",
            number_text(machine->trigger_hold).text);
    fputs("  </table>>];\n", out);
}

void graph_write_dot(FILE *out, const anim_character *character)
{
    const state_machine_definition *machine = &character->machine;
    fputs("digraph state_machine {\n"
          "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=14, labelloc=t, nodesep=0.5, ranksep=0.7,\n"
          "         pad=0.3, label=<character <b>",
          out);
    put_html(out, character->name);
    fputs("</b>: state machine>];\n"
          "  node [fontname=\"Helvetica\", fontsize=12, shape=box, style=rounded, margin=\"0.15,0.07\"];\n"
          "  edge [fontname=\"Helvetica\", fontsize=10, color=\"#444444\", arrowsize=0.7];\n",
          out);
    put_legend(out, machine);
    if (machine->state_count > 0)
        fprintf(out, "  start [shape=point, width=0.15, label=\"\"];\n  start -> s%d;\n", machine->start_state);
    bool has_any = false;
    for (int i = 0; i < machine->transition_count; ++i)
        has_any |= machine->transitions[i].from == STATE_MACHINE_ANY;
    if (has_any)
        fputs("  any [label=<<i>any state</i>>, style=\"rounded,dashed\"];\n", out);
    for (int i = 0; i < machine->state_count; ++i)
        put_state(out, character, i);
    for (int i = 0; i < machine->transition_count;) {
        int count = 1;
        while (i + count < machine->transition_count &&
               same_edge(&machine->transitions[i], &machine->transitions[i + count]))
            ++count;
        put_transition(out, machine, i, count);
        i += count;
    }
    fputs("}\n", out);
}

/* ---- running dot ---- */

typedef enum graph_format { GRAPH_DOT, GRAPH_SVG, GRAPH_PNG } graph_format;

/* `dot -Tformat -o out in`; returns 0, or prints one line and returns EXIT_INVALID. */
static int run_dot(const char *format, const char *in_path, const char *out_path)
{
    char type[16];
    snprintf(type, sizeof type, "-T%s", format);
    char *arguments[] = {"dot", type, "-o", (char *)out_path, (char *)in_path, NULL};
    pid_t child;
    int error = posix_spawnp(&child, "dot", NULL, NULL, arguments, environ);
    if (error == ENOENT) {
        fprintf(stderr, "md5tool graph: Graphviz's 'dot' was not found: install the graphviz package "
                        "(apt-get install graphviz), or write a .dot file\n");
        return EXIT_INVALID;
    }
    if (error != 0) {
        fprintf(stderr, "md5tool graph: cannot run 'dot': %s\n", strerror(error));
        return EXIT_INVALID;
    }
    int status;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "md5tool graph: waiting for 'dot': %s\n", strerror(errno));
            return EXIT_INVALID;
        }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s: 'dot -T%s' failed (exit status %d)\n", out_path, format,
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return EXIT_INVALID;
    }
    return 0;
}

/* The DOT text to a temporary file next to the output (the output's folder is known to be writable
 * there), dot makes the picture from it, the temporary file goes. */
static int write_picture(const anim_character *character, const char *format, const char *out_path)
{
    char temporary[4096];
    if ((size_t)snprintf(temporary, sizeof temporary, "%s.dot-XXXXXX", out_path) >= sizeof temporary) {
        fprintf(stderr, "%s: path too long\n", out_path);
        return EXIT_INVALID;
    }
    int descriptor = mkstemp(temporary);
    FILE *file = descriptor >= 0 ? fdopen(descriptor, "w") : NULL;
    if (!file) {
        fprintf(stderr, "%s: cannot write a file in its folder: %s\n", out_path, strerror(errno));
        if (descriptor >= 0) {
            close(descriptor);
            unlink(temporary);
        }
        return EXIT_INVALID;
    }
    graph_write_dot(file, character);
    bool written = !ferror(file);
    written &= fclose(file) == 0;
    int status = EXIT_INVALID;
    /* dot writes its picture beside the output too, renamed over it when dot succeeded: a picture that
     * failed halfway never replaces the one there was. */
    char picture[4096 + 16];
    snprintf(picture, sizeof picture, "%s.XXXXXX", out_path);
    int picture_descriptor = written ? mkstemp(picture) : -1;
    if (!written)
        fprintf(stderr, "%s: cannot write %s\n", out_path, temporary);
    else if (picture_descriptor < 0)
        fprintf(stderr, "%s: cannot write a file in its folder: %s\n", out_path, strerror(errno));
    else
        status = run_dot(format, temporary, picture);
    if (picture_descriptor >= 0)
        close(picture_descriptor);
    unlink(temporary);
    if (status == 0 && rename(picture, out_path) != 0) {
        fprintf(stderr, "%s: cannot replace it: %s; the file is left as it was\n", out_path, strerror(errno));
        status = EXIT_INVALID;
    }
    if (status != 0 && picture_descriptor >= 0)
        unlink(picture);
    return status;
}

static int write_dot_file(const anim_character *character, const char *out_path)
{
    file_writer writer;
    diag error;
    bool written = file_writer_open(&writer, out_path, &error);
    if (written) {
        graph_write_dot(writer.stream, character);
        written = file_writer_commit(&writer, &error);
    }
    if (!written) {
        char line[DIAG_TEXT_MAX];
        diag_format(&error, line, sizeof line);
        fprintf(stderr, "%s\n", line);
        return EXIT_INVALID;
    }
    return 0;
}

/* ---- the command ---- */

typedef struct graph_arguments {
    const char *config_folder;
    const char *character;
    const char *out_path;
    graph_format format;
} graph_arguments;

static int parse_graph_arguments(int argc, char **argv, graph_arguments *a)
{
    *a = (graph_arguments){0};
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(arg, "--character") == 0) {
            if (!has_value)
                return usage_error("%s", "graph: --character needs a NAME");
            a->character = argv[++i];
        } else if (strcmp(arg, "--out") == 0) {
            if (!has_value)
                return usage_error("%s", "graph: --out needs a FILE.svg, FILE.png or FILE.dot");
            a->out_path = argv[++i];
        } else if (arg[0] == '-' && arg[1] == '-') {
            return usage_error("graph: unknown option '%s'", arg);
        } else if (a->config_folder) {
            return usage_error("graph: unexpected argument '%s' (one CONFIG_DIR)", arg);
        } else {
            a->config_folder = arg;
        }
    }
    if (!a->config_folder || !a->out_path)
        return usage_error("%s", "graph needs a config folder and an output file: md5tool graph CONFIG_DIR "
                                 "[--character NAME] --out FILE.svg|FILE.png|FILE.dot");
    if (has_extension(a->out_path, ".dot"))
        a->format = GRAPH_DOT;
    else if (has_extension(a->out_path, ".svg"))
        a->format = GRAPH_SVG;
    else if (has_extension(a->out_path, ".png"))
        a->format = GRAPH_PNG;
    else
        return usage_error("graph: --out '%s' must end in .svg, .png or .dot", a->out_path);
    return 0;
}

int command_graph(int argc, char **argv)
{
    graph_arguments a;
    int status = parse_graph_arguments(argc, argv, &a);
    if (status)
        return status;

    md5tool_config loaded;
    status = EXIT_INVALID;
    if (md5tool_config_open(a.config_folder, a.character, &loaded)) {
        const anim_character *character = loaded.character;
        if (character->machine.state_count == 0)
            fprintf(stderr, "%s: character '%s' has no state machine (no states file)\n", loaded.characters_path,
                    character->name);
        else if (a.format == GRAPH_DOT)
            status = write_dot_file(character, a.out_path);
        else
            status = write_picture(character, a.format == GRAPH_SVG ? "svg" : "png", a.out_path);
    }
    md5tool_config_close(&loaded);
    return status;
}
