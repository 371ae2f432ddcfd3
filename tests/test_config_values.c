/* base/config_report, config_values and name_index: the one reporter, the value readers in each file's own
 * words, and the name hash every ini file and the states loader look names up with. */
#include "base/config_values.h"
#include "base/name_index.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One entry with this key and value at line 7 of "t.ini"; what reading it reported. */
static ini_entry test_entry(const char *key, const char *value)
{
    return (ini_entry){.key = (char *)key, .value = (char *)value, .line = 7};
}

static const char *first_message(const diag_list *list)
{
    return list->count > 0 ? list->items[0].message : "";
}

static void test_errors_count_and_format(void)
{
    diag_list list = {0};
    config_errors errors = {.path = "t.ini", .list = &list};
    config_error(&errors, 3, "'%s' is %d", "x", 42);
    config_report(config_errors_reporter(&errors), "other.ini", 5, "at %s", "another file");
    CHECK(errors.count == 2 && list.count == 2);
    CHECK(strcmp(list.items[0].file, "t.ini") == 0 && list.items[0].line == 3);
    CHECK(strcmp(list.items[0].message, "'x' is 42") == 0);
    CHECK(strcmp(list.items[1].file, "other.ini") == 0 && list.items[1].line == 5);
    /* No list: still counted, so a load fails on any problem. */
    config_errors counted = {.path = "t.ini"};
    config_error(&counted, 1, "one");
    CHECK(counted.count == 1);
    diag_list_free(&list);
}

static void test_bool(void)
{
    diag_list list = {0};
    config_errors errors = {.path = "t.ini", .list = &list};
    bool value = false;
    ini_entry yes = test_entry("lod", "true"), bad = test_entry("lod", "yes");
    CHECK(config_parse_bool(config_errors_reporter(&errors), "t.ini", &yes, &value) && value);
    CHECK(!config_parse_bool(config_errors_reporter(&errors), "t.ini", &bad, &value) && value);
    CHECK(strcmp(first_message(&list), "'lod' must be true or false, not 'yes'") == 0 && list.items[0].line == 7);
    diag_list_free(&list);
}

/* value under each wording: the message it gives, or "" when it is read (into *out). */
static const char *number_message(config_range_wording wording, const char *value, float *out, char *message,
                                  size_t size)
{
    diag_list list = {0};
    config_errors errors = {.path = "t.ini", .list = &list};
    ini_entry entry = test_entry("speed", value);
    config_range range = {0.5, 20, wording};
    bool read = config_parse_number(config_errors_reporter(&errors), "t.ini", &entry, range, out);
    snprintf(message, size, "%s", first_message(&list));
    CHECK(read == (errors.count == 0));
    diag_list_free(&list);
    return message;
}

static void test_number_wordings(void)
{
    char message[DIAG_MESSAGE_MAX];
    float value = -1.0f;
    CHECK(strcmp(number_message(CONFIG_RANGE_TO, "1.5", &value, message, sizeof message), "") == 0);
    CHECK(value == 1.5f);
    CHECK(strcmp(number_message(CONFIG_RANGE_TO, "1.5m", &value, message, sizeof message),
                 "'speed' must be a number, not '1.5m'") == 0);
    CHECK(strcmp(number_message(CONFIG_RANGE_TO, "21", &value, message, sizeof message),
                 "'speed' must be 0.5 to 20, not 21") == 0);
    /* Past float's range: not a number to the animation files, out of range to demo.ini. */
    CHECK(strcmp(number_message(CONFIG_RANGE_TO, "1e39", &value, message, sizeof message),
                 "'speed' must be a number, not '1e39'") == 0);
    CHECK(strcmp(number_message(CONFIG_RANGE_BETWEEN, "1e39", &value, message, sizeof message),
                 "'speed' must be between 0.5 and 20, not 1e39") == 0);
    CHECK(strcmp(number_message(CONFIG_RANGE_BETWEEN, "nan", &value, message, sizeof message),
                 "'speed' must be a number, not 'nan'") == 0);
    CHECK(strcmp(number_message(CONFIG_RANGE_FROM, "nan", &value, message, sizeof message),
                 "'speed' must be a number from 0.5 to 20, not 'nan'") == 0);
    CHECK(strcmp(number_message(CONFIG_RANGE_FROM, "0.4", &value, message, sizeof message),
                 "'speed' must be a number from 0.5 to 20, not '0.4'") == 0);
    CHECK(value == 1.5f); /* left alone by every refusal */
    /* The number as written is what every wording checks, not its float: 20.0000001 is 20 as a float and
     * beyond 20 as written. */
    CHECK(strcmp(number_message(CONFIG_RANGE_TO, "20.0000001", &value, message, sizeof message),
                 "'speed' must be 0.5 to 20, not 20.0000001") == 0);
    CHECK(strcmp(number_message(CONFIG_RANGE_BETWEEN, "20.0000001", &value, message, sizeof message),
                 "'speed' must be between 0.5 and 20, not 20.0000001") == 0);
}

/* A documented minimum or maximum is always accepted, though its float rounds past it: characters.ini's
 * `scale = 0.0001` was refused as "must be 0.0001 to 10000, not 0.0001" (0.0001f is 0.000099999997). */
static void test_documented_bounds_are_accepted(void)
{
    static const char *const bounds[] = {"0.0001", "10000", "1e-4", "1e4"};
    static const config_range_wording wordings[] = {CONFIG_RANGE_TO, CONFIG_RANGE_BETWEEN, CONFIG_RANGE_FROM};
    CHECK((double)0.0001f < 0.0001); /* the case: the float is below the bound */
    for (size_t w = 0; w < sizeof wordings / sizeof *wordings; ++w)
        for (size_t b = 0; b < sizeof bounds / sizeof *bounds; ++b) {
            diag_list list = {0};
            config_errors errors = {.path = "t.ini", .list = &list};
            ini_entry entry = test_entry("scale", bounds[b]);
            float value = -1.0f;
            CHECK(config_parse_number(config_errors_reporter(&errors), "t.ini", &entry,
                                      (config_range){0.0001, 10000.0, wordings[w]}, &value));
            CHECK(errors.count == 0 && (value == 0.0001f || value == 10000.0f));
            entry = test_entry("scale", "0.0000999");
            CHECK(!config_parse_number(config_errors_reporter(&errors), "t.ini", &entry,
                                       (config_range){0.0001, 10000.0, wordings[w]}, &value));
            diag_list_free(&list);
        }
}

static void test_integer(void)
{
    diag_list list = {0};
    config_errors errors = {.path = "t.ini", .list = &list};
    int value = -1;
    config_range to = {-5, 100, CONFIG_RANGE_TO}, between = {64, 16384, CONFIG_RANGE_BETWEEN};
    ini_entry good = test_entry("count", "+12"), fraction = test_entry("count", "1.5"),
              big = test_entry("count", "99999999999999999999"), small = test_entry("width", "10");
    CHECK(config_parse_integer(config_errors_reporter(&errors), "t.ini", &good, to, &value) && value == 12);
    CHECK(!config_parse_integer(config_errors_reporter(&errors), "t.ini", &fraction, to, &value));
    CHECK(!config_parse_integer(config_errors_reporter(&errors), "t.ini", &big, to, &value));
    CHECK(!config_parse_integer(config_errors_reporter(&errors), "t.ini", &big, between, &value));
    CHECK(!config_parse_integer(config_errors_reporter(&errors), "t.ini", &small, between, &value));
    CHECK(value == 12 && list.count == 4);
    if (list.count == 4) {
        CHECK(strcmp(list.items[0].message, "'count' must be a whole number, not '1.5'") == 0);
        CHECK(strcmp(list.items[1].message, "'count' must be a whole number -5 to 100, not 99999999999999999999") == 0);
        CHECK(strcmp(list.items[2].message, "'count' must be a whole number, not '99999999999999999999'") == 0);
        CHECK(strcmp(list.items[3].message, "'width' must be between 64 and 16384, not 10") == 0);
    }
    diag_list_free(&list);
}

static void test_names_keys_and_sections(void)
{
    CHECK(config_valid_name("walk.L-2_b", 10, 64));
    CHECK(!config_valid_name("walk L", 6, 64) && !config_valid_name("", 0, 64) && !config_valid_name("abcd", 4, 4));
    diag_list list = {0};
    config_errors errors = {.path = "t.ini", .list = &list};
    ini_entry entries[] = {test_entry("textures", "art"), test_entry("texture.body", "b.png"),
                           test_entry("scael", "2")};
    ini_section section = {.name = (char *)"robot", .line = 2, .entry_count = 3, .entries = entries};
    static const char *const known[] = {"textures", "texture.*", "scale", NULL};
    config_check_keys(config_errors_reporter(&errors), "t.ini", &section, known);
    CHECK(errors.count == 1);
    CHECK(strcmp(first_message(&list), "unknown key 'scael' in [robot] (known keys: textures, texture.*, scale)") == 0);
    static const char *const sections[] = {"keys", "mouse", NULL};
    CHECK(!config_check_section(config_errors_reporter(&errors), "t.ini", &section, sections));
    CHECK(errors.count == 2 && list.count == 2 && list.items[1].line == 2);
    CHECK(strcmp(list.items[1].message, "unknown section [robot] (known sections: keys, mouse)") == 0);
    section.name = (char *)"mouse";
    CHECK(config_check_section(config_errors_reporter(&errors), "t.ini", &section, sections) && errors.count == 2);
    diag_list_free(&list);
}

static const char *test_name_of(const void *items, int i)
{
    return ((const char (*)[16])items)[i];
}

/* Every name found at its own index after the table grew past several resizes; others not found. */
static void test_name_index(void)
{
    enum { COUNT = 1000 };
    char (*names)[16] = calloc(COUNT, sizeof *names);
    CHECK(names != NULL);
    if (!names)
        return;
    name_index index = {0};
    CHECK(name_index_find(&index, names, test_name_of, "s0") == -1);
    for (int i = 0; i < COUNT; ++i) {
        snprintf(names[i], sizeof names[i], "s%d", i);
        CHECK(name_index_add(&index, names, test_name_of, i + 1));
    }
    int wrong = 0;
    for (int i = 0; i < COUNT; ++i) {
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        wrong += name_index_find(&index, names, test_name_of, name) != i;
    }
    CHECK(wrong == 0);
    CHECK(name_index_find(&index, names, test_name_of, "s1000") == -1);
    CHECK(name_index_find(&index, names, test_name_of, "") == -1);
    CHECK(index.capacity >= 2 * COUNT && (index.capacity & (index.capacity - 1)) == 0);
    name_index_free(&index);
    CHECK(index.capacity == 0 && index.slots == NULL);
    free(names);
}

/* What a writer may put after `key = `: every verdict checked by parsing the line back (a value called
 * writable is read back byte for byte; one refused says why). */
static void test_writable_values(void)
{
    static const struct {
        const char *value;
        const char *why; /* NULL: writable */
    } cases[] = {
        {"../a;b/x.md5mesh", NULL},
        {"a #b = c [d] \"e\" 'f' \\g :h", NULL},
        {"\xc3\xa9t\xc3\xa9", NULL},
        {"tab\tinside", NULL},
        {"../a ;b/a ;b.md5mesh", "white space before a ';'"},
        {"a\t;b", "white space before a ';'"},
        {";x", "starts with ';'"},
        {"two\nlines", "line break"},
        {"cr\rhere", "line break"},
        {" lead", "white space"},
        {"trail ", "white space"},
        {"", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char why[160] = "";
        bool writable = ini_entry_writable("mesh", cases[i].value, why, sizeof why);
        CHECK(writable == (cases[i].why == NULL));
        if (cases[i].why)
            CHECK_STR_CONTAINS(why, cases[i].why);
    }
    /* The line's length: "mesh = " and 191 characters is 198, the longest line the reader takes. */
    char long_value[300];
    memset(long_value, 'a', sizeof long_value);
    long_value[191] = '\0';
    CHECK(ini_entry_writable("mesh", long_value, NULL, 0));
    long_value[191] = 'a';
    long_value[192] = '\0';
    char why[160];
    CHECK(!ini_entry_writable("mesh", long_value, why, sizeof why));
    CHECK_STR_CONTAINS(why, "a line of 199 characters, longer than the 198");
    CHECK(ini_section_writable("hero.2", NULL, 0));
    CHECK(!ini_section_writable("a]b", why, sizeof why) && strstr(why, "']'"));
    CHECK(!ini_section_writable("a\nb", why, sizeof why));
}

int main(void)
{
    RUN(test_errors_count_and_format);
    RUN(test_bool);
    RUN(test_number_wordings);
    RUN(test_documented_bounds_are_accepted);
    RUN(test_writable_values);
    RUN(test_integer);
    RUN(test_names_keys_and_sections);
    RUN(test_name_index);
    return check_report();
}
