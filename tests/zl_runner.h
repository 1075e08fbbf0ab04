/* zl_runner.h - runs a table of named entries (test suites or benchmark
 * groups): all of them, or only those named on the command line. */
#ifndef ZL_RUNNER_H
#define ZL_RUNNER_H

typedef struct zl_named {
    const char *name;
    void (*run)(void);
} zl_named;

/* Runs each entry whose name is among argv[1..] (every entry when argc < 2),
 * printing "<label> <name>" before each. Returns how many ran. */
int zl_run_named(const zl_named *entries, int count, const char *label, int argc, char **argv);

#endif
