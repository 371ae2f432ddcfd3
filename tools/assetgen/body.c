/* not written yet */
#include "body.h"
const char *body_name(body_kind kind) { return kind == BODY_ROBOT ? "robot" : "mannequin"; }
bool body_write_mesh(FILE *out, body_kind kind, const char *shader) { (void)out; (void)kind; (void)shader; return false; }
