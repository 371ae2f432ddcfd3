/* config_report: how every loader of a text file (the ini reader, the animation config, the demo's
 * settings, input scripts) reports a problem: a printf-style message at file:line handed to a reporter,
 * whose usual destination counts it and adds it to a diag_list. One way to format and one way to count,
 * so a message reads the same whichever file it came from. Knows nothing of any file format. */
#ifndef MARIONETTE_CONFIG_REPORT_H
#define MARIONETTE_CONFIG_REPORT_H

#include <stdarg.h>

#include "diag.h"

/* Where a reader's complaints go, one finished message (at most DIAG_MESSAGE_MAX - 1 characters) at a time. */
typedef struct config_reporter {
    void (*report)(void *context, const char *file, int line, const char *message);
    void *context;
} config_reporter;

/* Format the message and hand it to reporter. */
void config_report(config_reporter reporter, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
void config_vreport(config_reporter reporter, const char *file, int line, const char *format, va_list args)
    __attribute__((format(printf, 4, 0)));

/* The usual destination: every problem counted (so a load fails on any, even with no list to keep them)
 * and added to list. */
typedef struct config_errors {
    const char *path; /* the file config_error reports at */
    diag_list *list;  /* NULL: counted only */
    int count;
} config_errors;

/* A problem at errors->path, line. */
void config_error(config_errors *errors, int line, const char *format, ...) __attribute__((format(printf, 3, 4)));

/* The reporter that counts into errors and adds to its list (at the file each report names). */
config_reporter config_errors_reporter(config_errors *errors);

#endif
