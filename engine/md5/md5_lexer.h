/* md5_lexer: the tokenizer behind the .md5mesh and .md5anim readers. It walks a byte range (not
 * necessarily NUL-terminated) with one pointer: white space (any byte <= ' ', so tabs, CR and stray NUL
 * bytes too; a line ends at LF, CR LF or a lone CR), // and block comments, "quoted strings" (no escapes, so "C:\models" keeps its backslashes),
 * numbers and the punctuation ( ) { }. Nothing is allocated per token and no line is counted until a
 * diag needs one. A UTF-8 byte-order mark at the start is skipped. The first error sticks: every later call fails without touching the diag again.
 * Private to engine/md5; knows nothing of what the tokens mean. */
#ifndef MARIONETTE_MD5_LEXER_H
#define MARIONETTE_MD5_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../base/diag.h"
#include "../base/text_line.h"
#include "md5.h"
#include "md5_number.h"

typedef struct md5_lexer {
    const char *begin;
    const char *cursor;
    const char *end;
    const char *name;       /* file name for diags */
    diag *err;              /* may be NULL */
    diag_list *warnings;    /* may be NULL */
    bool failed;
    text_line_counter lines; /* line numbers, counted only when a diag needs one */
} md5_lexer;

void md5_lexer_init(md5_lexer *lex, const char *text, size_t size, const char *name, diag *err,
                    diag_list *warnings);

/* 1-based line of a position inside the text. */
int md5_lexer_line(md5_lexer *lex, const char *position);

/* Record an error at position (the first one wins) and return false. */
bool md5_lexer_fail(md5_lexer *lex, const char *position, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* Add a warning at position (NULL: not tied to a line). */
void md5_lexer_warn(md5_lexer *lex, const char *position, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* Fail with "expected <what>, found <the token at the cursor>"; what is printf-formatted. */
bool md5_lexer_fail_expected(md5_lexer *lex, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Skip one comment at the cursor if there is one; false when the cursor is not on a comment.
 * An unterminated block comment is an error. Out of line: comments are rare next to numbers. */
bool md5_lexer_skip_comment(md5_lexer *lex);

/* The per-token functions are inlined into the readers' loops: a call per token costs a good share of
 * the parse time. */
#define MD5_LEXER_HOT static inline __attribute__((always_inline))

static inline bool md5_lexer_is_delimiter(char c)
{
    return (unsigned char)c <= ' ' || c == '(' || c == ')' || c == '{' || c == '}' || c == '"' || c == '/';
}

/* Move the cursor to the next token (or the end). */
MD5_LEXER_HOT void md5_lexer_skip_space(md5_lexer *lex)
{
    for (;;) {
        const char *p = lex->cursor;
        while (p < lex->end && (unsigned char)*p <= ' ')
            ++p;
        lex->cursor = p;
        if (p == lex->end || *p != '/' || !md5_lexer_skip_comment(lex))
            return;
    }
}

/* True at the end of the text (after white space and comments). */
static inline bool md5_lexer_at_end(md5_lexer *lex)
{
    md5_lexer_skip_space(lex);
    return lex->cursor == lex->end;
}

/* Is the next token exactly `word`? If so, consume it. Never fails. */
MD5_LEXER_HOT bool md5_lexer_accept(md5_lexer *lex, const char *word, size_t length)
{
    md5_lexer_skip_space(lex);
    const char *p = lex->cursor;
    if ((size_t)(lex->end - p) < length || memcmp(p, word, length) != 0)
        return false;
    if (p + length < lex->end && !md5_lexer_is_delimiter(p[length]))
        return false;
    lex->cursor = p + length;
    return true;
}

/* The next token must be `word`. */
MD5_LEXER_HOT bool md5_lexer_expect(md5_lexer *lex, const char *word, size_t length)
{
    if (lex->failed)
        return false;
    if (md5_lexer_accept(lex, word, length))
        return true;
    return md5_lexer_fail_expected(lex, "'%.*s'", (int)length, word);
}

#define MD5_ACCEPT(lex, literal) md5_lexer_accept((lex), (literal), sizeof(literal) - 1)
#define MD5_EXPECT(lex, literal) md5_lexer_expect((lex), (literal), sizeof(literal) - 1)

/* The next token must be the single character c: one of ( ) { }. */
MD5_LEXER_HOT bool md5_lexer_punctuation(md5_lexer *lex, char c)
{
    if (lex->failed)
        return false;
    md5_lexer_skip_space(lex);
    if (lex->cursor < lex->end && *lex->cursor == c) {
        ++lex->cursor;
        return true;
    }
    return md5_lexer_fail_expected(lex, "'%c'", c);
}

/* Is the next token the single character c? Consume it if so. */
static inline bool md5_lexer_accept_punctuation(md5_lexer *lex, char c)
{
    md5_lexer_skip_space(lex);
    if (lex->cursor < lex->end && *lex->cursor == c) {
        ++lex->cursor;
        return true;
    }
    return false;
}

/* The next token must be an integer in int range; `what` names it in the error. */
MD5_LEXER_HOT bool md5_lexer_int(md5_lexer *lex, int *value, const char *what)
{
    if (lex->failed)
        return false;
    md5_lexer_skip_space(lex);
    const char *p = lex->cursor;
    if (md5_read_int_inline(&p, lex->end, value) && (p == lex->end || md5_lexer_is_delimiter(*p))) {
        lex->cursor = p;
        return true;
    }
    return md5_lexer_fail_expected(lex, "%s", what);
}

/* Out of line, for md5_lexer_float: the failure, naming a number out of range as written. */
__attribute__((cold)) bool md5_lexer_float_failed(md5_lexer *lex, const char *what);

/* The next token must be a float (integers welcome) whose magnitude a float can hold: a number too large
 * ("1e39") or nonzero but too small to be anything but 0 ("1e-300") fails with the text as written,
 * "1e39 is out of range for <what>: ...", never with another number. */
MD5_LEXER_HOT bool md5_lexer_float(md5_lexer *lex, float *value, const char *what)
{
    if (lex->failed)
        return false;
    md5_lexer_skip_space(lex);
    const char *p = lex->cursor;
    if (md5_read_float_inline(&p, lex->end, value) && (p == lex->end || md5_lexer_is_delimiter(*p))) {
        lex->cursor = p;
        return true;
    }
    return md5_lexer_float_failed(lex, what);
}

/* The next token must be a "quoted string" on one line; *start and *length give its contents. */
bool md5_lexer_string(md5_lexer *lex, const char **start, size_t *length, const char *what);

/* Skip tokens up to and including the '}' that closes the block the cursor is in (nested blocks
 * included). False (with an error) if the text ends first. */
bool md5_lexer_skip_block(md5_lexer *lex);



/* Helpers the .md5mesh and .md5anim readers share. */

/* "MD5Version 10" and an optional commandline "...". `kind` (".md5mesh") names the expected file in
 * the error when the text is not MD5 at all. */
bool md5_lexer_version(md5_lexer *lex, const char *kind);

/* The one memory bound of the MD5 readers (md5.h says what it promises). Could count items, each written
 * in at least min_bytes_each bytes, fit in the text after the cursor? Every count a file gives goes
 * through this before anything is allocated for it. */
bool md5_lexer_can_hold(const md5_lexer *lex, int64_t count, size_t min_bytes_each);
/* May data derived from the whole file (a clip's frames baked for every joint, the product of two counts
 * each already held) take `bytes`? At most MD5_DERIVED_BYTES_PER_BYTE times the file's size plus
 * MD5_DERIVED_BYTES_SLACK (md5.h). */
bool md5_lexer_budget_allows(const md5_lexer *lex, uint64_t bytes);

/* `keyword <int>` where the count must be >= minimum and pass md5_lexer_can_hold(bytes_per_item): a
 * count that lies is refused before it is allocated for. */
bool md5_lexer_count(md5_lexer *lex, const char *keyword, int minimum, size_t bytes_per_item, int *count);

/* A NUL-terminated heap copy of length bytes; NULL when out of memory. */
char *md5_copy_string(const char *start, size_t length);

/* 16-byte aligned heap block for joint_pose and mat4 arrays (size rounded up as aligned_alloc wants);
 * free with free(). At least 16 bytes, so a count of 0 still gives a non-NULL pointer. */
void *md5_alloc_aligned(size_t size);

/* Find two joints with the same name: true with *first < *second set to the first such pair (in the
 * order of *second). O(n log n) so a file with a huge lying joint count stays fast. */
bool md5_find_duplicate_name(char *const *names, int count, int *first, int *second);

/* Where the n-th (0-based) quoted string after `from` starts, or NULL: finds a joint's line again for a
 * diag (each joint line starts with its name) without remembering every line while parsing. */
const char *md5_lexer_nth_string(const md5_lexer *lex, const char *from, int n);
#endif
