/* not written yet */
#include "texture.h"
bool texture_write_tga(FILE *out, body_kind kind) { (void)out; (void)kind; return false; }
