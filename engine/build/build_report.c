#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "build_internal.h"

build_report build_report_start(const raw_source *source, diag *err, diag_list *warnings)
{
    return (build_report){
        .lines = text_line_counter_start(source->text, source->size),
        .name = source->name ? source->name : "",
        .err = err,
        .warnings = warnings,
    };
}

static int line_at(build_report *r, size_t position)
{
    if (position == BUILD_NO_POSITION || !r->lines.begin)
        return 0;
    size_t size = (size_t)(r->lines.end - r->lines.begin);
    return text_line_at(&r->lines, r->lines.begin + (position < size ? position : size));
}

bool build_fail(build_report *r, size_t position, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    diag_vset(r->err, r->name, r->err ? line_at(r, position) : 0, format, args);
    va_end(args);
    return false;
}

void build_warn(build_report *r, size_t position, const char *format, ...)
{
    /* Past the kept ones a warning is only counted: no line to find. */
    int line = !r->warnings || diag_list_full(r->warnings) ? 0 : line_at(r, position);
    va_list args;
    va_start(args, format);
    diag_list_vadd(r->warnings, r->name, line, format, args);
    va_end(args);
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
