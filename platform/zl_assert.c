/* zl_assert.c - default handler for ZL_ASSERT (API misuse by the programmer):
 * report where and stop. An application may supply its own zl_assert_failed. */
#include <stdio.h>
#include <stdlib.h>

#include "zl_base.h"

void zl_assert_failed(const char *expr, const char *file, int line)
{
    fprintf(stderr, "zerolag: ZL_ASSERT(%s) failed at %s:%d\n", expr, file, line);
    fflush(stderr);
    abort();
}
