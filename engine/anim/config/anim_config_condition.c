/* states.ini's conditions: "speed > 0.2 and grounded or jump" into state machine transitions, one per
 * alternative (anim_config_internal.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim_config_internal.h"

/* ---------------------------------------------------------------------------------------------------- */
/* Conditions: "speed > 0.2 and grounded or jump"                                                        */

typedef enum condition_token_kind {
    CONDITION_END,
    CONDITION_NAME,
    CONDITION_NUMBER,
    CONDITION_OPERATOR,
    CONDITION_BAD,
} condition_token_kind;

typedef struct condition_token {
    condition_token_kind kind;
    char text[ANIM_NAME_MAX];
    float number;
    state_machine_comparison comparison;
} condition_token;

static bool anim_config_is_name_character(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && ((c >= '0' && c <= '9') || c == '.'));
}

static const char *anim_config_next_token(const char *cursor, condition_token *token)
{
    while (*cursor == ' ' || *cursor == '\t')
        ++cursor;
    *token = (condition_token){.kind = CONDITION_END};
    if (*cursor == '\0')
        return cursor;
    const char *start = cursor;
    static const struct {
        const char *text;
        state_machine_comparison comparison;
    } operators[] = {{"<=", STATE_MACHINE_LESS_EQUAL}, {">=", STATE_MACHINE_GREATER_EQUAL},
                     {"==", STATE_MACHINE_EQUAL},      {"!=", STATE_MACHINE_NOT_EQUAL},
                     {"<", STATE_MACHINE_LESS},        {">", STATE_MACHINE_GREATER}};
    for (size_t i = 0; i < sizeof operators / sizeof operators[0]; ++i) {
        size_t length = strlen(operators[i].text);
        if (strncmp(cursor, operators[i].text, length) == 0) {
            token->kind = CONDITION_OPERATOR;
            token->comparison = operators[i].comparison;
            snprintf(token->text, sizeof token->text, "%s", operators[i].text);
            return cursor + length;
        }
    }
    if (anim_config_is_name_character(*cursor, true)) {
        while (anim_config_is_name_character(*cursor, false))
            ++cursor;
        token->kind = (size_t)(cursor - start) < sizeof token->text ? CONDITION_NAME : CONDITION_BAD;
        snprintf(token->text, sizeof token->text, "%.*s", (int)(cursor - start), start);
        return cursor;
    }
    /* A decimal number as everywhere in the ini files (no "0x1p3", "inf" or "nan"); followed by a letter
     * or digit it is one bad word ("0x10", "1.5m"), not a number and a name. */
    size_t length = ini_number_length(cursor);
    if (length > 0) {
        const char *end = cursor + length;
        while (anim_config_is_name_character(*end, false))
            ++end;
        snprintf(token->text, sizeof token->text, "%.*s", (int)(end - cursor), cursor);
        token->kind = end == cursor + length && ini_parse_float(token->text, &token->number) ? CONDITION_NUMBER
                                                                                              : CONDITION_BAD;
        return end;
    }
    token->kind = CONDITION_BAD;
    snprintf(token->text, sizeof token->text, "%c", *cursor);
    return cursor + 1;
}

bool anim_config_is_reserved(const char *name)
{
    static const char *const reserved[] = {"and", "or", "not", "true", "false", "end", "overlay_end", "time", "any"};
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; ++i)
        if (strcmp(name, reserved[i]) == 0)
            return true;
    return false;
}

typedef struct condition_parse {
    const state_machine_definition *machine;
    const char *cursor;
    condition_token token; /* the current, not yet used token */
    char error[DIAG_MESSAGE_MAX];
} condition_parse;

static void anim_config_advance(condition_parse *parse)
{
    parse->cursor = anim_config_next_token(parse->cursor, &parse->token);
}

static bool anim_config_condition_error(condition_parse *parse, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static bool anim_config_condition_error(condition_parse *parse, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(parse->error, sizeof parse->error, format, args);
    va_end(args);
    return false;
}

static const char *anim_config_token_text(const condition_token *token)
{
    return token->kind == CONDITION_END ? "the end" : token->text;
}

/* The comparison and number after a number parameter or `time`. */
static bool anim_config_parse_comparison(condition_parse *parse, const char *subject, state_machine_term *term)
{
    if (parse->token.kind == CONDITION_BAD && strcmp(parse->token.text, "=") == 0)
        return anim_config_condition_error(parse, "'=' is not a comparison: write '=='");
    if (parse->token.kind != CONDITION_OPERATOR)
        return anim_config_condition_error(parse, "'%s' is a number: compare it, e.g. '%s > 0.5' (found %s)", subject,
                                           subject, anim_config_token_text(&parse->token));
    term->comparison = parse->token.comparison;
    anim_config_advance(parse);
    if (parse->token.kind != CONDITION_NUMBER)
        return anim_config_condition_error(parse, "expected a number after '%s', found %s", subject,
                                           anim_config_token_text(&parse->token));
    if (!anim_config_in_range(ANIM_RANGE_CONDITION, parse->token.number)) {
        char range[64];
        return anim_config_condition_error(parse, "the number after '%s' must be %s, not %s", subject,
                                           anim_config_range_text(ANIM_RANGE_CONDITION, range, sizeof range),
                                           parse->token.text);
    }
    term->value = parse->token.number;
    anim_config_advance(parse);
    return true;
}

static bool anim_config_parse_term(condition_parse *parse, state_machine_term *term)
{
    *term = (state_machine_term){.parameter = -1};
    if (parse->token.kind != CONDITION_NAME)
        return anim_config_condition_error(parse, "expected a parameter, 'end', 'time' or 'true', found %s",
                                           anim_config_token_text(&parse->token));
    char name[ANIM_NAME_MAX];
    snprintf(name, sizeof name, "%s", parse->token.text);
    anim_config_advance(parse);
    if (strcmp(name, "true") == 0) {
        term->kind = STATE_MACHINE_TERM_ALWAYS;
        return true;
    }
    if (strcmp(name, "end") == 0) {
        term->kind = STATE_MACHINE_TERM_CLIP_END;
        return true;
    }
    if (strcmp(name, "overlay_end") == 0) {
        term->kind = STATE_MACHINE_TERM_OVERLAY_END;
        return true;
    }
    if (strcmp(name, "time") == 0) {
        term->kind = STATE_MACHINE_TERM_COMPARE_TIME;
        return anim_config_parse_comparison(parse, "time", term);
    }
    bool negated = strcmp(name, "not") == 0;
    if (negated) {
        if (parse->token.kind != CONDITION_NAME)
            return anim_config_condition_error(parse, "expected a bool parameter after 'not', found %s",
                                               anim_config_token_text(&parse->token));
        snprintf(name, sizeof name, "%s", parse->token.text);
        anim_config_advance(parse);
    }
    const state_machine_definition *machine = parse->machine;
    int index = state_machine_find_parameter(machine, name);
    if (index < 0) {
        char list[DIAG_MESSAGE_MAX / 2];
        return anim_config_condition_error(
            parse, "unknown parameter '%s' (declared: %s)", name,
            anim_config_join_names(list, sizeof list, machine->parameters[0].name, sizeof machine->parameters[0],
                                   machine->parameter_count));
    }
    term->parameter = index;
    state_machine_parameter_type type = machine->parameters[index].type;
    if (type == STATE_MACHINE_NUMBER) {
        if (negated)
            return anim_config_condition_error(parse, "'not' needs a bool; '%s' is a number", name);
        term->kind = STATE_MACHINE_TERM_COMPARE_PARAMETER;
        return anim_config_parse_comparison(parse, name, term);
    }
    if (type == STATE_MACHINE_TRIGGER) {
        if (negated || parse->token.kind == CONDITION_OPERATOR)
            return anim_config_condition_error(parse, "'%s' is a trigger: write just '%s' (it is set or not)", name,
                                               name);
        term->kind = STATE_MACHINE_TERM_TRIGGER;
        return true;
    }
    /* A bool: "grounded", "not grounded", "grounded == false". */
    term->kind = STATE_MACHINE_TERM_COMPARE_PARAMETER;
    term->comparison = negated ? STATE_MACHINE_EQUAL : STATE_MACHINE_NOT_EQUAL;
    term->value = 0.0f;
    if (negated || parse->token.kind != CONDITION_OPERATOR)
        return true;
    state_machine_comparison comparison = parse->token.comparison;
    if (comparison != STATE_MACHINE_EQUAL && comparison != STATE_MACHINE_NOT_EQUAL)
        return anim_config_condition_error(parse, "'%s' is a bool: compare it with == or != only", name);
    anim_config_advance(parse);
    bool is_true = parse->token.kind == CONDITION_NAME && strcmp(parse->token.text, "true") == 0;
    bool is_false = parse->token.kind == CONDITION_NAME && strcmp(parse->token.text, "false") == 0;
    if (!is_true && !is_false)
        return anim_config_condition_error(parse, "'%s' is a bool: compare it with true or false, found %s", name,
                                           anim_config_token_text(&parse->token));
    term->comparison = comparison;
    term->value = is_true ? 1.0f : 0.0f;
    anim_config_advance(parse);
    return true;
}

/* Fill clauses (each a conjunction) from "a and b or c". Returns the clause count, 0 on error. */
static int anim_config_parse_clauses(condition_parse *parse, state_machine_transition clauses[ANIM_CONFIG_MAX_OR])
{
    int clause_count = 0;
    anim_config_advance(parse);
    for (;;) {
        if (clause_count == ANIM_CONFIG_MAX_OR)
            return anim_config_condition_error(parse, "more than %d alternatives joined by 'or'", ANIM_CONFIG_MAX_OR);
        state_machine_transition *clause = &clauses[clause_count++];
        clause->term_count = 0;
        for (;;) {
            if (clause->term_count == STATE_MACHINE_MAX_TERMS)
                return anim_config_condition_error(parse, "more than %d conditions joined by 'and'",
                                                   STATE_MACHINE_MAX_TERMS);
            if (!anim_config_parse_term(parse, &clause->terms[clause->term_count++]))
                return 0;
            if (parse->token.kind == CONDITION_NAME && strcmp(parse->token.text, "and") == 0) {
                anim_config_advance(parse);
                continue;
            }
            break;
        }
        if (parse->token.kind == CONDITION_NAME && strcmp(parse->token.text, "or") == 0) {
            anim_config_advance(parse);
            continue;
        }
        if (parse->token.kind == CONDITION_END)
            return clause_count;
        if (parse->token.kind == CONDITION_BAD && strcmp(parse->token.text, "=") == 0)
            return anim_config_condition_error(parse, "'=' is not a comparison: write '=='");
        return anim_config_condition_error(parse, "expected 'and', 'or' or the end, found '%s'", parse->token.text);
    }
}

int anim_config_parse_condition(const state_machine_definition *machine, const char *text,
                                state_machine_transition clauses[ANIM_CONFIG_MAX_OR], char error[DIAG_MESSAGE_MAX])
{
    condition_parse parse = {.machine = machine, .cursor = text};
    int clause_count = anim_config_parse_clauses(&parse, clauses);
    if (clause_count == 0)
        snprintf(error, DIAG_MESSAGE_MAX, "%s", parse.error);
    return clause_count;
}
