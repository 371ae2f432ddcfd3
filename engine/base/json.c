/* Characters go out with putc_unlocked (POSIX): a writer's stream is written by one thread, and the stream's
 * lock taken for every comma and digit was most of what a trace step cost (perf on trace_bench). */
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
            putc_unlocked(',', w->out);
        w->has_items[w->depth - 1] = true;
    }
}

static void json_open(json_writer *w, char bracket)
{
    json_before_value(w);
    putc_unlocked(bracket, w->out);
    /* Deeper than the tools ever nest: keep writing valid text, just without tracking commas there. */
    if (w->depth < JSON_MAX_DEPTH)
        w->has_items[w->depth] = false;
    w->depth++;
}

static void json_close(json_writer *w, char bracket)
{
    if (w->depth > 0)
        w->depth--;
    putc_unlocked(bracket, w->out);
}

void json_object_begin(json_writer *w) { json_open(w, '{'); }
void json_object_end(json_writer *w) { json_close(w, '}'); }
void json_array_begin(json_writer *w) { json_open(w, '['); }
void json_array_end(json_writer *w) { json_close(w, ']'); }

void json_write_escaped(FILE *out, const char *text)
{
    putc_unlocked('"', out);
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
                putc_unlocked(*c, out);
        }
    }
    putc_unlocked('"', out);
}

void json_key(json_writer *w, const char *key)
{
    json_before_value(w);
    json_write_escaped(w->out, key);
    putc_unlocked(':', w->out);
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

void json_fixed(json_writer *w, double value, int decimals)
{
    static const double powers[10] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    decimals = decimals < 0 ? 0 : decimals > 9 ? 9 : decimals;
    if (!isfinite(value) || fabs(value) >= 1e9) {
        json_number(w, value);
        return;
    }
    long long scaled = llround(value * powers[decimals]); /* below 1e18: fits */
    bool negative = scaled < 0;
    unsigned long long digits = negative ? (unsigned long long)-scaled : (unsigned long long)scaled;
    char text[32];
    char *end = text + sizeof text, *at = end;
    /* The fraction, its trailing zeros dropped. */
    bool fraction = false;
    for (int i = 0; i < decimals; ++i) {
        unsigned digit = (unsigned)(digits % 10);
        digits /= 10;
        if (digit != 0 || fraction) {
            *--at = (char)('0' + digit);
            fraction = true;
        }
    }
    if (fraction)
        *--at = '.';
    do {
        *--at = (char)('0' + digits % 10);
        digits /= 10;
    } while (digits);
    if (negative)
        *--at = '-';
    json_before_value(w);
    while (at < end)
        putc_unlocked(*at++, w->out);
}
