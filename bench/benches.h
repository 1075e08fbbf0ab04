/* benches.h - every benchmark group, one line each: X(name). The runner calls
 * zl_bench_<name>() for each, or only those named on the command line. */
#ifndef ZL_BENCHES_H
#define ZL_BENCHES_H

/* The matches program (bench/matches/, built with ZL_BENCH_MATCHES_MAX)
 * runs its one group. */
#ifdef ZL_BENCH_MATCHES_MAX
#define ZL_BENCH_LIST(X) X(matches)
#else
#define ZL_BENCH_LIST(X) \
    X(fixed)             \
    X(move)              \
    X(predict)           \
    X(interp)            \
    X(client)            \
    X(protocol)          \
    X(crypto)            \
    X(flood)             \
    X(snapshot)          \
    X(events)            \
    X(bandwidth)         \
    X(lagcomp)           \
    X(server)            \
    X(blocks)            \
    X(replay)            \
    X(structs)
#endif

#endif
