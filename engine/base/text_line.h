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

#endif
