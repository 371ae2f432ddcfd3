#include "json.h"

#include <math.h>

json_writer json_writer_start(FILE *out)
{
    return (json_writer){.out = out};
}

/* Comma between siblings; nothing after a key or before the first item. */
static void json_before_value(json_writer *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0 && w->depth <= JSON_MAX_DEPTH) {
        if (w->has_items[w->depth - 1])
            fputc(',', w->out);
        w->has_items[w->depth - 1] = true;
    }
}

static void json_open(json_writer *w, char bracket)
{
    json_before_value(w);
    fputc(bracket, w->out);
    /* Deeper than the tools ever nest: keep writing valid text, just without tracking commas there. */
    if (w->depth < JSON_MAX_DEPTH)
        w->has_items[w->depth] = false;
    w->depth++;
}

static void json_close(json_writer *w, char bracket)
{
    if (w->depth > 0)
        w->depth--;
    fputc(bracket, w->out);
}

void json_object_begin(json_writer *w) { json_open(w, '{'); }
void json_object_end(json_writer *w) { json_close(w, '}'); }
void json_array_begin(json_writer *w) { json_open(w, '['); }
void json_array_end(json_writer *w) { json_close(w, ']'); }

void json_write_escaped(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)text; *c; ++c) {
        switch (*c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        case '\b': fputs("\\b", out); break;
        case '\f': fputs("\\f", out); break;
        default:
            if (*c < 0x20 || *c == 0x7f)
                fprintf(out, "\\u%04x", *c);
            else
                fputc(*c, out);
        }
    }
    fputc('"', out);
}

void json_key(json_writer *w, const char *key)
{
    json_before_value(w);
    json_write_escaped(w->out, key);
    fputc(':', w->out);
    w->after_key = true;
}

void json_string(json_writer *w, const char *text)
{
    if (!text) {
        json_null(w);
        return;
    }
    json_before_value(w);
    json_write_escaped(w->out, text);
}

void json_number(json_writer *w, double value)
{
    if (!isfinite(value)) {
        json_null(w);
        return;
    }
    json_before_value(w);
    /* -0 prints as "-0", which is valid JSON and keeps the sign a reader may care about. */
    fprintf(w->out, "%.9g", value);
}

void json_integer(json_writer *w, long long value)
{
    json_before_value(w);
    fprintf(w->out, "%lld", value);
}

void json_bool(json_writer *w, bool value)
{
    json_before_value(w);
    fputs(value ? "true" : "false", w->out);
}

void json_null(json_writer *w)
{
    json_before_value(w);
    fputs("null", w->out);
}
