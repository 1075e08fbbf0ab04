/* demo_watch_none.c - zl_client --watch on a port built without libcurl:
 * says so, and the rest of the client works as ever. */
#include <stdio.h>

#include "demo_watch.h"

int demo_watch_run(const demo_options *o)
{
    (void)o;
    fprintf(stderr, "zl_client: --watch needs libcurl, which this port's build has not\n");
    return 2;
}
