#include "md5_lexer.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { TOKEN_SHOWN_MAX = 32 };

void md5_lexer_init(md5_lexer *lex, const char *text, size_t size, const char *name, diag *err,
                    diag_list *warnings)
{
    *lex = (md5_lexer){
        .begin = text,
        .cursor = text,
        .end = text + size,
        .name = name ? name : "",
        .err = err,
        .warnings = warnings,
        .lines = text_line_counter_start(text, size),
    };
    /* A UTF-8 byte-order mark (Windows editors write one) is not text: skip it, as the ini reader does. */
    if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        lex->cursor = text + 3;
}

bool md5_lexer_can_hold(const md5_lexer *lex, int64_t count, size_t min_bytes_each)
{
    if (count < 0)
        return false;
    uint64_t left = (uint64_t)(lex->end - lex->cursor);
    /* Division, not multiplication: count * min_bytes_each may not fit in 64 bits. */
    return min_bytes_each == 0 || (uint64_t)count <= left / min_bytes_each;
}

bool md5_lexer_budget_allows(const md5_lexer *lex, uint64_t bytes)
{
    uint64_t size = (uint64_t)(lex->end - lex->begin);
    return bytes <= size * MD5_DERIVED_BYTES_PER_BYTE + MD5_DERIVED_BYTES_SLACK;
}

int md5_lexer_line(md5_lexer *lex, const char *position)
{
    return text_line_at(&lex->lines, position);
}

bool md5_lexer_fail(md5_lexer *lex, const char *position, const char *format, ...)
{
    if (lex->failed)
        return false;
    lex->failed = true;
    if (!lex->err)
        return false;
    va_list args;
    va_start(args, format);
    diag_vset(lex->err, lex->name, md5_lexer_line(lex, position), format, args);
    va_end(args);
    return false;
}

void md5_lexer_warn(md5_lexer *lex, const char *position, const char *format, ...)
{
    if (!lex->warnings)
        return;
    /* Past the kept ones a warning is only counted: no line to find. */
    int line = diag_list_full(lex->warnings) ? 0 : md5_lexer_line(lex, position);
    va_list args;
    va_start(args, format);
    diag_list_vadd(lex->warnings, lex->name, line, format, args);
    va_end(args);
}

/* Write a short, printable rendering of the token at the cursor for an error message. */
static void describe_token(const md5_lexer *lex, char *out, size_t size)
{
    const char *p = lex->cursor;
    if (p >= lex->end) {
        snprintf(out, size, "end of file");
        return;
    }
    size_t length = 1;
    if (*p == '"') {
        while (p + length < lex->end && length < TOKEN_SHOWN_MAX && p[length] != '"' && p[length] != '\n' &&
               p[length] != '\r')
            ++length;
        /* The closing quote only when it fits: shown[] holds TOKEN_SHOWN_MAX characters and the NUL. */
        if (p + length < lex->end && length < TOKEN_SHOWN_MAX && p[length] == '"')
            ++length;
    } else if (!md5_lexer_is_delimiter(*p)) {
        while (p + length < lex->end && length < TOKEN_SHOWN_MAX && !md5_lexer_is_delimiter(p[length]))
            ++length;
    }
    char shown[TOKEN_SHOWN_MAX + 1];
    for (size_t i = 0; i < length; ++i) {
        unsigned char c = (unsigned char)p[i];
        shown[i] = c >= ' ' && c < 127 ? (char)c : '?';
    }
    shown[length] = '\0';
    bool digits_only = length > 0;
    for (size_t i = (shown[0] == '-' || shown[0] == '+') ? 1 : 0; i < length; ++i)
        digits_only &= shown[i] >= '0' && shown[i] <= '9';
    snprintf(out, size, "'%s'%s%s", shown, length == TOKEN_SHOWN_MAX ? "..." : "",
             digits_only && length > 9 ? " (out of range)" : "");
}

bool md5_lexer_fail_expected(md5_lexer *lex, const char *format, ...)
{
    if (lex->failed)
        return false;
    char what[96];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    char found[TOKEN_SHOWN_MAX + 32];
    describe_token(lex, found, sizeof found);
    return md5_lexer_fail(lex, lex->cursor, "expected %s, found %s", what, found);
}

/* Length of the text at p shaped like a number of md5_number.h's grammar, 0 if it is not one. */
static size_t number_shape(const char *p, const char *end)
{
    const char *q = p;
    q += q < end && (*q == '-' || *q == '+');
    size_t digits = 0;
    for (; q < end && *q >= '0' && *q <= '9'; ++q)
        ++digits;
    if (q < end && *q == '.')
        for (++q; q < end && *q >= '0' && *q <= '9'; ++q)
            ++digits;
    if (digits == 0)
        return 0;
    if (q < end && (*q == 'e' || *q == 'E')) {
        ++q;
        q += q < end && (*q == '-' || *q == '+');
        if (q == end || *q < '0' || *q > '9')
            return 0;
        while (q < end && *q >= '0' && *q <= '9')
            ++q;
    }
    return (size_t)(q - p);
}

/* Fail naming the number as written: a value a float cannot hold must not be shown as another one. */
static bool fail_out_of_range(md5_lexer *lex, const char *p, size_t length, const char *what, bool too_small)
{
    int shown = (int)(length > TOKEN_SHOWN_MAX ? TOKEN_SHOWN_MAX : length);
    return md5_lexer_fail(lex, p, "%.*s%s is out of range for %s: %s", shown, p, length > TOKEN_SHOWN_MAX ? "..." : "", what,
                          too_small ? "a float's smallest magnitude is about 1.4e-45 (write 0 for zero)"
                                    : "a float's largest magnitude is about 3.4e38");
}

bool md5_lexer_float_failed(md5_lexer *lex, const char *what)
{
    const char *p = lex->cursor;
    size_t length = number_shape(p, lex->end);
    /* A number of the grammar, whole, that did not read: too large for a float, or nonzero and too small
     * (a float would hold 0). Which: read in the grammar alone, whatever lies beyond the float range. */
    if (length > 0 && (p + length == lex->end || md5_lexer_is_delimiter(p[length]))) {
        char *copy = md5_copy_string(p, length); /* strtod wants a NUL; an error path may allocate */
        bool too_small = copy && fabs(strtod(copy, NULL)) < 1.0;
        free(copy);
        return fail_out_of_range(lex, p, length, what, too_small);
    }
    return md5_lexer_fail_expected(lex, "%s", what);
}

bool md5_lexer_skip_comment(md5_lexer *lex)
{
    const char *p = lex->cursor;
    if (lex->end - p < 2 || p[0] != '/')
        return false;
    if (p[1] == '/') {
        /* memchr for LF (the usual end), then a lone CR before it (old Mac files); either ends the
         * comment and is itself white space. */
        const char *q = memchr(p + 2, '\n', (size_t)(lex->end - p - 2));
        if (!q)
            q = lex->end;
        const char *cr = memchr(p + 2, '\r', (size_t)(q - p - 2));
        lex->cursor = cr ? cr : q;
        return true;
    }
    if (p[1] == '*') {
        for (const char *q = p + 2; lex->end - q >= 2; ++q) {
            if (q[0] == '*' && q[1] == '/') {
                lex->cursor = q + 2;
                return true;
            }
        }
        md5_lexer_fail(lex, p, "unterminated /* comment");
        lex->cursor = lex->end;
        return true;
    }
    return false;
}

bool md5_lexer_string(md5_lexer *lex, const char **start, size_t *length, const char *what)
{
    if (lex->failed)
        return false;
    md5_lexer_skip_space(lex);
    const char *p = lex->cursor;
    if (p == lex->end || *p != '"')
        return md5_lexer_fail_expected(lex, "%s (a quoted string)", what);
    const char *close = memchr(p + 1, '"', (size_t)(lex->end - p - 1));
    const char *stop = close ? close : lex->end;
    bool newline = memchr(p + 1, '\n', (size_t)(stop - p - 1)) || memchr(p + 1, '\r', (size_t)(stop - p - 1));
    if (!close || newline)
        return md5_lexer_fail(lex, p, "unterminated string");
    /* Names and paths become C strings: a NUL would silently cut "ro\0ot" to "ro". */
    if (memchr(p + 1, '\0', (size_t)(close - p - 1)))
        return md5_lexer_fail(lex, p, "a NUL byte inside a string");
    *start = p + 1;
    *length = (size_t)(close - p - 1);
    lex->cursor = close + 1;
    return true;
}

bool md5_lexer_skip_block(md5_lexer *lex)
{
    int depth = 1;
    while (!lex->failed) {
        md5_lexer_skip_space(lex);
        if (lex->cursor == lex->end)
            return md5_lexer_fail(lex, lex->cursor, "unexpected end of file inside a { } block");
        char c = *lex->cursor;
        if (c == '"') {
            const char *start;
            size_t length;
            if (!md5_lexer_string(lex, &start, &length, "string"))
                return false;
            continue;
        }
        ++lex->cursor;
        if (c == '{')
            ++depth;
        else if (c == '}' && --depth == 0)
            return true;
    }
    return false;
}

bool md5_lexer_version(md5_lexer *lex, const char *kind)
{
    if (!MD5_ACCEPT(lex, "MD5Version"))
        return md5_lexer_fail_expected(lex, "'MD5Version' (this is not an MD5 %s file)", kind);
    const char *at = lex->cursor;
    int version = 0;
    if (!md5_lexer_int(lex, &version, "a version number"))
        return false;
    if (version != 10)
        return md5_lexer_fail(lex, at, "unsupported MD5Version %d (only 10 is known)", version);
    if (MD5_ACCEPT(lex, "commandline")) {
        const char *start;
        size_t length;
        if (!md5_lexer_string(lex, &start, &length, "the commandline"))
            return false;
    }
    return !lex->failed;
}

bool md5_lexer_count(md5_lexer *lex, const char *keyword, int minimum, size_t bytes_per_item, int *count)
{
    if (!md5_lexer_expect(lex, keyword, strlen(keyword)))
        return false;
    md5_lexer_skip_space(lex);
    const char *at = lex->cursor;
    if (!md5_lexer_int(lex, count, "a count"))
        return false;
    if (*count < minimum)
        return md5_lexer_fail(lex, at, "%s %d: at least %d expected", keyword, *count, minimum);
    size_t left = (size_t)(lex->end - lex->cursor);
    if (!md5_lexer_can_hold(lex, *count, bytes_per_item))
        return md5_lexer_fail(lex, at, "%s %d cannot be right: only %zu bytes follow", keyword, *count, left);
    return true;
}

char *md5_copy_string(const char *start, size_t length)
{
    char *copy = malloc(length + 1);
    if (copy) {
        memcpy(copy, start, length);
        copy[length] = '\0';
    }
    return copy;
}

void *md5_alloc_aligned(size_t size)
{
    size_t rounded = (size + 15) & ~(size_t)15;
    if (rounded < size)
        return NULL;
    return aligned_alloc(16, rounded ? rounded : 16);
}

typedef struct named_index {
    const char *name;
    int index;
} named_index;

static int compare_named_index(const void *a, const void *b)
{
    const named_index *x = a, *y = b;
    int order = strcmp(x->name, y->name);
    return order ? order : (x->index > y->index) - (x->index < y->index);
}

bool md5_find_duplicate_name(char *const *names, int count, int *first, int *second)
{
    if (count < 2)
        return false;
    named_index *sorted = malloc((size_t)count * sizeof *sorted);
    if (!sorted)
        return false;
    for (int i = 0; i < count; ++i)
        sorted[i] = (named_index){names[i], i};
    qsort(sorted, (size_t)count, sizeof *sorted, compare_named_index);
    bool found = false;
    for (int i = 1; i < count; ++i) {
        /* Within a run of equal names the indices ascend, so the pair starting a run is its earliest. */
        if (strcmp(sorted[i - 1].name, sorted[i].name) == 0 && (i < 2 || strcmp(sorted[i - 2].name, sorted[i].name) != 0)) {
            if (!found || sorted[i].index < *second) {
                *first = sorted[i - 1].index;
                *second = sorted[i].index;
                found = true;
            }
        }
    }
    free(sorted);
    return found;
}

const char *md5_lexer_nth_string(const md5_lexer *lex, const char *from, int n)
{
    md5_lexer scan = *lex;
    scan.cursor = from;
    scan.err = NULL;
    scan.warnings = NULL;
    scan.failed = false;
    for (int seen = 0;;) {
        md5_lexer_skip_space(&scan);
        if (scan.failed || scan.cursor == scan.end)
            return NULL;
        if (*scan.cursor != '"') {
            ++scan.cursor; /* numbers and punctuation never hold a quote, so a byte at a time is enough */
            continue;
        }
        if (seen++ == n)
            return scan.cursor;
        const char *start;
        size_t length;
        if (!md5_lexer_string(&scan, &start, &length, "string"))
            return NULL;
    }
}
