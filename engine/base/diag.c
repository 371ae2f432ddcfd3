#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t diag_escape(const char *text, char *out, size_t size)
{
    if (size == 0)
        return 0;
    size_t used = 0;
    for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c; ++c) {
        if (*c >= ' ' && *c != 0x7f) { /* the common case: the byte as it is */
            if (used + 1 >= size)
                break;
            out[used++] = (char)*c;
            continue;
        }
        char escaped[5] = {' ', '\0'}; /* layout (newline, CR, tab), not a command: a space keeps words apart */
        if (*c == 0x1b)
            memcpy(escaped, "\\e", 3);
        else if (*c != '\n' && *c != '\r' && *c != '\t')
            snprintf(escaped, sizeof escaped, "\\x%02X", *c);
        size_t length = strlen(escaped);
        if (used + length >= size)
            break; /* whole escapes only: a cut "\x1" would read as another byte */
        memcpy(out + used, escaped, length);
        used += length;
    }
    out[used] = '\0';
    return used;
}

static void diag_fill(diag *d, const char *file, int line, const char *format, va_list args)
{
    /* File text (joint names, paths, tokens) reaches messages through many format strings; escaping here,
     * once, keeps a terminal escape sequence in a file from ever reaching a terminal raw. */
    char raw[DIAG_MESSAGE_MAX];
    diag_escape(file, d->file, sizeof d->file);
    d->line = line;
    vsnprintf(raw, sizeof raw, format, args);
    diag_escape(raw, d->message, sizeof d->message);
}

bool diag_vset(diag *d, const char *file, int line, const char *format, va_list args)
{
    if (d)
        diag_fill(d, file, line, format, args);
    return false;
}

bool diag_set(diag *d, const char *file, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    diag_vset(d, file, line, format, args);
    va_end(args);
    return false;
}

int diag_format(const diag *d, char *out, size_t size)
{
    if (d->line > 0)
        return snprintf(out, size, "%s:%d: %s", d->file, d->line, d->message);
    return snprintf(out, size, "%s: %s", d->file, d->message);
}

/* Counts a message and returns the slot to keep it in, or NULL when it is only counted. */
static diag *diag_list_slot(diag_list *list)
{
    list->total++;
    if (list->count >= DIAG_LIST_KEEP)
        return NULL;
    if (list->count == list->capacity) {
        int capacity = list->capacity ? list->capacity * 2 : 8;
        diag *items = realloc(list->items, (size_t)capacity * sizeof *items);
        if (!items)
            return NULL; /* out of memory: the warning is counted, not kept */
        list->items = items;
        list->capacity = capacity;
    }
    return &list->items[list->count++];
}

bool diag_list_full(const diag_list *list)
{
    return list && list->count >= DIAG_LIST_KEEP;
}

bool diag_list_vadd(diag_list *list, const char *file, int line, const char *format, va_list args)
{
    diag *slot = list ? diag_list_slot(list) : NULL;
    if (slot)
        diag_fill(slot, file, line, format, args);
    return true;
}

bool diag_list_add(diag_list *list, const char *file, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    diag_list_vadd(list, file, line, format, args);
    va_end(args);
    return true;
}

bool diag_list_add_copy(diag_list *list, const diag *d)
{
    if (!list)
        return true;
    diag *slot = diag_list_slot(list);
    if (slot)
        *slot = *d;
    return true;
}

/* Line 0 (the file as a whole, often a summary such as "no character could be loaded") after the lines. */
static bool diag_line_after(int line, int other)
{
    if (line == 0 || other == 0)
        return line == 0 && other != 0;
    return line > other;
}

void diag_list_sort(diag_list *list, int first)
{
    if (!list || first < 0 || list->count - first < 2)
        return;
    /* A file's rank is where it first appears; kept lists are short (DIAG_LIST_KEEP), so an insertion
     * sort, which is stable, is plenty. */
    int rank[DIAG_LIST_KEEP];
    int count = list->count - first;
    diag *items = list->items + first;
    for (int i = 0; i < count; ++i) {
        rank[i] = i;
        for (int j = 0; j < i; ++j)
            if (strcmp(items[j].file, items[i].file) == 0) {
                rank[i] = rank[j];
                break;
            }
    }
    for (int i = 1; i < count; ++i) {
        diag moving = items[i];
        int moving_rank = rank[i], j = i;
        while (j > 0 && (rank[j - 1] > moving_rank ||
                         (rank[j - 1] == moving_rank && diag_line_after(items[j - 1].line, moving.line)))) {
            items[j] = items[j - 1];
            rank[j] = rank[j - 1];
            --j;
        }
        items[j] = moving;
        rank[j] = moving_rank;
    }
}

void diag_list_clear(diag_list *list)
{
    list->count = 0;
    list->total = 0;
}

void diag_list_free(diag_list *list)
{
    free(list->items);
    *list = (diag_list){0};
}
