/* m3_profile_main.c - the profile program's main (mk/profile.mk): the server
 * benchmark group at 64 players, sealed, one size alone. */
#include <string.h>

void zl_bench_server(void);
char *__wrap_getenv(const char *name);
int main(int argc, char **argv);

/* bench_server.c takes the size from the environment, which a bare-metal
 * board does not have: the link wraps getenv (-Wl,--wrap=getenv). */
char *__wrap_getenv(const char *name)
{
    static char players[] = "64", sealed[] = "1";
    if (strcmp(name, "ZL_BENCH_PLAYERS") == 0)
        return players;
    if (strcmp(name, "ZL_BENCH_SEALED") == 0)
        return sealed;
    return NULL;
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    zl_bench_server();
    return 0;
}
