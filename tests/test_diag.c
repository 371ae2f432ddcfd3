#include <stdio.h>
int main(void) { fprintf(stderr, "test_diag: not written yet\n"); return 1; }
