/* text_line: where a line of text ends, the same way for every reader of the project's text files (ini files,
 * input scripts). A line ends at "\n", at "\r\n" or at a lone "\r" (old Mac editors), so a file saved with any
 * of them is read as the same lines, numbered alike. Knows nothing of what the lines hold. */
#ifndef MARIONETTE_TEXT_LINE_H
#define MARIONETTE_TEXT_LINE_H

#include <stddef.h>

/* The line starting at start (start < end): its length without its ending; *next is where the following
 * line starts (end when this is the last line). A text ending in a line end has no empty line after it:
 * *next is then end. */
static inline size_t text_line(const char *start, const char *end, const char **next)
{
    const char *c = start;
    while (c < end && *c != '\n' && *c != '\r')
        ++c;
    size_t length = (size_t)(c - start);
    if (c < end && *c == '\r' && c + 1 < end && c[1] == '\n')
        c += 2;
    else if (c < end)
        c += 1;
    *next = c;
    return length;
}

/* How many lines text_line finds in [start, end): at least 1, so that an empty text is one empty line. */
static inline size_t text_line_count(const char *start, const char *end)
{
    size_t count = 0;
    for (const char *c = start; c < end; ++count)
        text_line(c, end, &c);
    return count > 0 ? count : 1;
}

/* The line numbers of positions in one text, counted only when a message needs one and onward from the last
 * position asked, so a reader asking in order scans its text once however many messages it writes. */
typedef struct text_line_counter {
    const char *begin, *end;
    const char *counted_to; /* NULL: nothing counted yet */
    int counted_line;
} text_line_counter;

static inline text_line_counter text_line_counter_start(const char *text, size_t size)
{
    return (text_line_counter){.begin = text, .end = text ? text + size : NULL};
}

/* The 1-based line of position (past the end: the last line), with the line ends text_line knows (a CR
 * counts only when no LF follows it); 0 for NULL or a position before the text. */
static inline int text_line_at(text_line_counter *counter, const char *position)
{
    if (!position || !counter->begin || position < counter->begin)
        return 0;
    if (position > counter->end)
        position = counter->end;
    if (!counter->counted_to || position < counter->counted_to) {
        counter->counted_to = counter->begin;
        counter->counted_line = 1;
    }
    int line = counter->counted_line;
    for (const char *p = counter->counted_to; p < position; ++p)
        line += *p == '\n' || (*p == '\r' && (p + 1 == counter->end || p[1] != '\n'));
    counter->counted_to = position;
    counter->counted_line = line;
    return line;
}

#endif
