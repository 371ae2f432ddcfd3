#include <stdio.h>
int main(void) { fprintf(stderr, "test_synth: not written yet\n"); return 1; }
