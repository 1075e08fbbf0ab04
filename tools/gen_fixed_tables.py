#!/usr/bin/env python3
# gen_fixed_tables.py - writes core/base/zl_fixed_tables.h, the lookup tables behind
# zl_sin/zl_cos and zl_atan2; the output is checked in, rerun this to rebuild it.
import math
import os

SIN_STEPS = 256   # intervals over a quarter turn; the table has SIN_STEPS + 1 entries
SIN_BITS = 24     # entries are sin() scaled by 2^SIN_BITS
ATAN_STEPS = 64   # intervals over tan in [0, 1]; ATAN_STEPS + 1 entries
ATAN_SCALE = 4    # entries are binary-angle units times ATAN_SCALE


def nearest(x):
    """Round half away from zero (Python's round() rounds halves to even)."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def rows(values, per_line):
    out = []
    for i in range(0, len(values), per_line):
        out.append("    " + ", ".join("%du" % v for v in values[i:i + per_line]) + ",")
    return "\n".join(out)


def main():
    sin_q = [nearest(math.sin(i * (math.pi / 2) / SIN_STEPS) * (1 << SIN_BITS))
             for i in range(SIN_STEPS + 1)]
    # A quarter turn is 16384 binary-angle units; atan(1) is an eighth turn.
    atan_q = [nearest(math.atan(i / ATAN_STEPS) * (32768 / math.pi) * ATAN_SCALE)
              for i in range(ATAN_STEPS + 1)]
    assert sin_q[0] == 0 and sin_q[-1] == 1 << SIN_BITS
    assert atan_q[0] == 0 and atan_q[-1] == 8192 * ATAN_SCALE <= 0xFFFF

    text = """/* zl_fixed_tables.h - lookup tables for zl_sin/zl_cos and zl_atan2, included
 * only by zl_fixed.c. Written by tools/gen_fixed_tables.py: edit that, not this. */
#ifndef ZL_FIXED_TABLES_H
#define ZL_FIXED_TABLES_H

#include <stdint.h>

/* sin(i * 90 degrees / %(ss)d) * 2^%(sb)d for i = 0..%(ss)d, rounded to nearest. */
#define ZL_SIN_STEPS %(ss)d
#define ZL_SIN_BITS %(sb)d
static const uint32_t zl_sin_table[ZL_SIN_STEPS + 1] = {
%(sin)s
};

/* atan(i / %(as)d) in binary-angle units times %(ak)d for i = 0..%(as)d, rounded to
 * nearest; the last entry is an eighth of a turn. */
#define ZL_ATAN_STEPS %(as)d
#define ZL_ATAN_SCALE %(ak)d
static const uint16_t zl_atan_table[ZL_ATAN_STEPS + 1] = {
%(atan)s
};

#endif
""" % {"ss": SIN_STEPS, "sb": SIN_BITS, "as": ATAN_STEPS, "ak": ATAN_SCALE,
       "sin": rows(sin_q, 6), "atan": rows(atan_q, 8)}

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "core", "base", "zl_fixed_tables.h"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
