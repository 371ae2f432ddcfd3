#include "config_report.h"

#include <stdio.h>

void config_vreport(config_reporter reporter, const char *file, int line, const char *format, va_list args)
{
    char message[DIAG_MESSAGE_MAX];
    vsnprintf(message, sizeof message, format, args);
    reporter.report(reporter.context, file, line, message);
}

void config_report(config_reporter reporter, const char *file, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    config_vreport(reporter, file, line, format, args);
    va_end(args);
}

static void config_errors_add(void *context, const char *file, int line, const char *message)
{
    config_errors *errors = context;
    errors->count++;
    diag_list_add(errors->list, file, line, "%s", message);
}

config_reporter config_errors_reporter(config_errors *errors)
{
    return (config_reporter){config_errors_add, errors};
}

void config_error(config_errors *errors, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    config_vreport(config_errors_reporter(errors), errors->path, line, format, args);
    va_end(args);
}
