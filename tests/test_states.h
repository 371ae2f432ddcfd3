/* test_states: variants of config/states.ini for the hot-reload tests of the game's parameters (a reload that
 * reorders, renames or retypes them), written next to the test's build folder. Include after test_files.h. */
#ifndef MARIONETTE_TEST_STATES_H
#define MARIONETTE_TEST_STATES_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The [parameters] block of config/states.ini as it is, and reversed: every parameter at a new index. */
#define TEST_STATES_PARAMETERS                                                                          \
    "speed = number 0        ; ground speed, m/s\n"                                                     \
    "turn = number 0         ; degrees to turn in place: negative left, positive right\n"               \
    "grounded = bool true    ; false while airborne (the jump's own air time does not need it)\n"       \
    "jump = trigger\nwave = trigger\ncelebrate = trigger\n"
#define TEST_STATES_PARAMETERS_REVERSED                                                                 \
    "celebrate = trigger\nwave = trigger\njump = trigger\ngrounded = bool true\nturn = number 0\n"      \
    "speed = number 0\n"

/* text with every `from` replaced by `to`, to free(). */
static inline char *test_states_replace(char *text, const char *from, const char *to)
{
    size_t from_length = strlen(from), to_length = strlen(to), count = 0;
    for (const char *at = strstr(text, from); at; at = strstr(at + from_length, from))
        ++count;
    char *out = malloc(strlen(text) + count * to_length + 1);
    if (!out)
        return text;
    char *write = out;
    const char *read = text;
    for (const char *at = strstr(read, from); at; at = strstr(read, from)) {
        memcpy(write, read, (size_t)(at - read));
        write += at - read;
        memcpy(write, to, to_length);
        write += to_length;
        read = at + from_length;
    }
    strcpy(write, read);
    free(text);
    return out;
}

/* config/states.ini with each pair of `replacements` (from, to, ..., NULL) replaced everywhere, written to
 * path. False when config/states.ini cannot be read or a `from` is not in it. */
static inline bool test_states_write_variant(const char *path, const char *const *replacements)
{
    char *text = test_read_file(MARIONETTE_SOURCE_DIR "/config/states.ini", NULL);
    bool found = text != NULL;
    for (int i = 0; text && replacements[i]; i += 2) {
        found &= strstr(text, replacements[i]) != NULL;
        text = test_states_replace(text, replacements[i], replacements[i + 1]);
    }
    if (text)
        test_write_file(path, text);
    free(text);
    return found;
}

#endif
