#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "build_internal.h"

build_report build_report_start(const raw_source *source, diag *err, diag_list *warnings)
{
    return (build_report){
        .lines = {.source = source},
        .name = source->name ? source->name : "",
        .err = err,
        .warnings = warnings,
    };
}

static int line_at(build_report *r, size_t position)
{
    return position == BUILD_NO_POSITION ? 0 : raw_line_of(&r->lines, position);
}

bool build_fail(build_report *r, size_t position, const char *format, ...)
{
    if (!r->err)
        return false;
    char message[DIAG_MESSAGE_MAX];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return diag_set(r->err, r->name, line_at(r, position), "%s", message);
}

void build_warn(build_report *r, size_t position, const char *format, ...)
{
    if (!r->warnings)
        return;
    /* Past the kept ones a warning is only counted: skip the formatting and the line count. */
    if (r->warnings->count >= DIAG_LIST_KEEP) {
        diag_list_add(r->warnings, r->name, 0, "%s", "");
        return;
    }
    char message[DIAG_MESSAGE_MAX];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    diag_list_add(r->warnings, r->name, line_at(r, position), "%s", message);
}

void build_pass_notes(build_report *r, const diag_list *notes)
{
    for (int i = 0; i < notes->count; ++i)
        diag_list_add_copy(r->warnings, &notes->items[i]);
    for (int i = notes->count; i < notes->total; ++i) /* those the reader only counted */
        diag_list_add(r->warnings, r->name, 0, "%s", "");
}

void *build_alloc_aligned(size_t size)
{
    size_t rounded = (size + 15) & ~(size_t)15;
    if (rounded < size)
        return NULL;
    return aligned_alloc(16, rounded ? rounded : 16);
}
