#include <stdio.h>
int main(void) { fprintf(stderr, "test_md5_quirks: not written yet\n"); return 1; }
