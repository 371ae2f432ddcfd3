#include <stdio.h>
int main(void) { fprintf(stderr, "test_pose: not written yet\n"); return 1; }
