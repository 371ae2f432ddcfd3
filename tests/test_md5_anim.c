#include <stdio.h>
int main(void) { fprintf(stderr, "test_md5_anim: not written yet\n"); return 1; }
