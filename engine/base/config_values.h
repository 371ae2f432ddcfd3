/* config_values: reading the values of ini entries the one way every config file does (the animation
 * config, demo.ini, controls.ini): true/false, decimal numbers (base/decimal's grammar) within a
 * documented range, whole numbers, names, and the "unknown key" check. Each reports a bad value at its
 * entry's line, in the words its file has always used, and leaves the output alone. Knows nothing of
 * what the keys mean. */
#ifndef MARIONETTE_CONFIG_VALUES_H
#define MARIONETTE_CONFIG_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#include "config_report.h"
#include "ini_document.h"

/* How a range is worded when a value falls outside it; each file keeps the messages it was documented with. */
typedef enum config_range_wording {
    /* The animation config: a number is read as a float (past float's range it is not a number) and its
     * float checked; "'KEY' must be MIN to MAX, not VALUE", "'KEY' must be a whole number MIN to MAX, not
     * VALUE" (%g). */
    CONFIG_RANGE_TO,
    /* demo.ini: "'KEY' must be between MIN and MAX, not VALUE" (%.10g), for numbers and whole numbers. */
    CONFIG_RANGE_BETWEEN,
    /* controls.ini: one message for a bad number and one out of range: "'KEY' must be a number from MIN to
     * MAX, not 'VALUE'" (%g). */
    CONFIG_RANGE_FROM,
} config_range_wording;

typedef struct config_range {
    double minimum, maximum; /* both allowed */
    config_range_wording wording;
} config_range;

/* Is value within range? (NaN is not.) */
bool config_in_range(config_range range, double value);
/* "0 to 100" (%g): the range as CONFIG_RANGE_TO messages print it. */
const char *config_range_text(config_range range, char *out, size_t size);

/* `true` or `false`, exactly: "'KEY' must be true or false, not 'VALUE'". */
bool config_parse_bool(config_reporter reporter, const char *path, const ini_entry *entry, bool *out);

/* A decimal number written whole ("1.5"; not "1.5m", "0x10", "nan"), within range: "'KEY' must be a
 * number, not 'VALUE'", or range's wording. */
bool config_parse_number(config_reporter reporter, const char *path, const ini_entry *entry, config_range range,
                         float *out);

/* A whole number: an optional sign and decimal digits only ("12", "-3"; not "1.5", "12abc", " 12"), within
 * range: "'KEY' must be a whole number, not 'VALUE'", or range's wording. The range must lie within int. */
bool config_parse_integer(config_reporter reporter, const char *path, const ini_entry *entry, config_range range,
                          int *out);

/* A name as the config files allow them (characters, clips, states, parameters, sync groups): 1 to
 * maximum - 1 of letters, digits, '_', '.', '-'; length characters of name are looked at. */
bool config_valid_name(const char *name, size_t length, size_t maximum);

/* Report entry, a key of section that is not in known (NULL-terminated): "unknown key 'KEY' in [SECTION]
 * (known keys: a, b, c)". */
void config_report_unknown_key(config_reporter reporter, const char *path, const ini_section *section,
                               const ini_entry *entry, const char *const *known);

/* Report every key of section that is not in known (NULL-terminated), in the order written. A known key
 * ending in ".*" stands for every key that starts with what precedes the '*' ("texture.*"). */
void config_check_keys(config_reporter reporter, const char *path, const ini_section *section,
                       const char *const *known);

/* Report section when its name is not in known (NULL-terminated): "unknown section [NAME] (known
 * sections: a, b)"; true when it is known. */
bool config_check_section(config_reporter reporter, const char *path, const ini_section *section,
                          const char *const *known);

#endif
