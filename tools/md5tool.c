/* not written yet */
#include <stdio.h>
int main(void) { puts("md5tool: not written yet"); return 1; }
