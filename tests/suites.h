/* suites.h - every test suite, one line each: X(name). The runner calls
 * zl_suite_<name>() for each; a port that cannot run a suite leaves it out
 * with ZL_TEST_NO_<NAME> (see the port's port.mk). */
#ifndef ZL_SUITES_H
#define ZL_SUITES_H

#define ZL_SUITE_LIST(X) \
    X(config)            \
    X(fixed)             \
    X(ring)              \
    X(bits)              \
    X(addr)              \
    X(loopnet)           \
    X(conditioner)       \
    X(packet)            \
    X(link)              \
    X(schema)            \
    X(plan)              \
    X(usercmd)           \
    X(ray)               \
    X(fps)               \
    X(golden)            \
    X(interp)            \
    X(predict)           \
    X(lagcomp)           \
    X(snapshot)          \
    X(handshake)         \
    X(cmdstream)         \
    X(clock)             \
    X(match)             \
    X(record)            \
    X(plane)             \
    X(latency)           \
    X(badlinks)          \
    X(token)             \
    X(reliable)          \
    X(blocks)            \
    X(events)            \
    X(soak)              \
    X(cheats)            \
    X(batch)             \
    X(leave)             \
    X(broadcast)         \
    X(session)           \
    X(admission)         \
    X(slip)              \
    X(crypto)            \
    X(demo)              \
    X(client_demo)       \
    X(hal)

#endif
