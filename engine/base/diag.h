/* diag: errors and warnings as values. A diag names the file and line a problem was found at and says
 * what is wrong in words; functions that can fail fill one in and return false, never exit or abort.
 * Knows nothing of the formats that produce it. */
#ifndef MARIONETTE_DIAG_H
#define MARIONETTE_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

enum { DIAG_FILE_MAX = 256, DIAG_MESSAGE_MAX = 256, DIAG_TEXT_MAX = DIAG_FILE_MAX + DIAG_MESSAGE_MAX + 16 };

typedef struct diag {
    char file[DIAG_FILE_MAX];       /* path as the caller gave it; truncated if longer */
    int line;                       /* 1-based; 0 when the problem is not tied to a line */
    char message[DIAG_MESSAGE_MAX]; /* one line, no trailing newline */
} diag;

/* Fill d (if not NULL) with file, line and a printf-style message. Always returns false, so a failing
 * function can end with `return diag_set(err, ...);`. The file and the formatted message go through
 * diag_escape (as do diag_list_add's), so a diag is always one line of printable text. */
bool diag_set(diag *d, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* Copy text to out (size bytes, NUL-terminated, truncated at a whole character or escape) with control
 * characters made harmless for a terminal: LF, CR and tab become a space, ESC becomes \e, every other
 * byte below 0x20 and DEL become \xHH. Bytes from 0x80 up (UTF-8) are kept. Returns the length written.
 * For text from a file printed outside a diag (md5tool's joint names). */
size_t diag_escape(const char *text, char *out, size_t size);

/* "file:line: message" (or "file: message" when line is 0). Returns the length it wanted to write. */
int diag_format(const diag *d, char *out, size_t size);

/* A growable list of warnings. Only the first DIAG_LIST_KEEP are kept; total counts all of them, so a
 * file with a million bad lines cannot eat memory and the caller can still say how many there were. */
enum { DIAG_LIST_KEEP = 64 };
typedef struct diag_list {
    diag *items;
    int count; /* kept, <= DIAG_LIST_KEEP */
    int total; /* reported */
    int capacity;
} diag_list;

/* The va_list forms, for reporters of their own (a reader that adds its file and line). */
bool diag_vset(diag *d, const char *file, int line, const char *format, va_list args);
bool diag_list_vadd(diag_list *list, const char *file, int line, const char *format, va_list args);
/* True when the list keeps no more messages (it only counts them): a reporter can skip finding a line. */
bool diag_list_full(const diag_list *list);

/* Append a warning (NULL list: ignored). Returns true so it can be used in expressions. */
bool diag_list_add(diag_list *list, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
/* Append a copy of a message already filled (diag_set), as diag_list_add would have filled it. */
bool diag_list_add_copy(diag_list *list, const diag *d);
/* Put items[first..count) in reading order: grouped by file, the files in the order they first appear
 * there, and by line within a file (line 0, the file as a whole, last: often a summary); items at the
 * same place keep their order. Loaders that read a file in several passes report out of line order;
 * this mends it. */
void diag_list_sort(diag_list *list, int first);
void diag_list_clear(diag_list *list);
void diag_list_free(diag_list *list);

#endif
