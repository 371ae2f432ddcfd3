#include <stdio.h>
int main(void) { fprintf(stderr, "test_quat: not written yet\n"); return 1; }
