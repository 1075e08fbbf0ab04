#!/usr/bin/env python3
"""m3_profile.py NM ELF LOG [TOP] - instructions per function of the server
benchmark's timed work, from QEMU's log of `-d in_asm,exec,nochain` (LOG may
be a FIFO): each translated block's instruction count from in_asm, each
execution of it from exec, its function from NM's symbols of ELF. Only
blocks run between bench_match_step's two timer reads (the timed part of a
tick, inside a timed benchmark body) count; a tick that wrote a snapshot
(zl_snapshot_write ran) is a snapshot tick. Prints, per kind of tick, the
ticks seen, the instructions a tick and the TOP functions (self cost, its
share, entries a tick). Written for QEMU 7.2's log format."""
import bisect
import collections
import subprocess
import sys


def symbols(nm, elf):
    out = subprocess.run([nm, '-n', elf], capture_output=True, text=True, check=True).stdout
    syms = sorted((int(a, 16) & ~1, n) for a, t, n in
                  (l.split() for l in out.splitlines() if len(l.split()) == 3)
                  if t in 'tTwW')
    return [a for a, _ in syms], [n for _, n in syms]


def main():
    nm, elf, log = sys.argv[1:4]
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    addrs, names = symbols(nm, elf)
    start = dict(zip(names, addrs))
    bodies = {start['body_snapshot_tick'], start['body_plain_tick']}
    timer = start['zl_port_timer_now']
    size, where = {}, {}
    counts = {'snapshot': collections.Counter(), 'other': collections.Counter()}
    entries = {'snapshot': collections.Counter(), 'other': collections.Counter()}
    ticks = collections.Counter()
    block, in_body, prev, tick, went = None, False, None, None, None
    with open(log, errors='replace') as f:
        for line in f:
            if line.startswith('Trace'):
                pc = int(line.split('[', 1)[1].split('/')[1], 16)
                name = where.get(pc)
                if name is None:
                    name = where[pc] = names[bisect.bisect_right(addrs, pc) - 1]
                if pc in bodies:
                    in_body = True
                elif name == 'zl_bench_measure_timed':
                    in_body = False
                if pc == timer and in_body:
                    if tick is None and prev == 'bench_match_step':
                        tick, went = collections.Counter(), collections.Counter()
                    elif tick is not None:
                        kind = 'snapshot' if tick['zl_snapshot_write'] else 'other'
                        counts[kind].update(tick)
                        entries[kind].update(went)
                        ticks[kind] += 1
                        tick = None
                elif tick is not None:
                    tick[name] += size.get(pc, 0)
                    if start.get(name) == pc:
                        went[name] += 1
                prev = name
            elif line.startswith('IN:'):
                block = None
            elif line.startswith('0x'):
                if block is None:
                    block = int(line.split(':', 1)[0], 16)
                    size[block] = 0
                size[block] += 1
    for kind in ('snapshot', 'other'):
        n = ticks[kind] or 1
        total = sum(counts[kind].values())
        print(f'{kind} ticks: {ticks[kind]}, {total / n:.0f} instructions a tick')
        for name, c in counts[kind].most_common(top):
            print(f'{c / n:12.0f} {100 * c / (total or 1):5.1f}% {entries[kind][name] / n:8.1f}  {name}')


if __name__ == '__main__':
    main()
