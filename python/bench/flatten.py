#!/usr/bin/python3
"""Measures ways to flatten Python lists into the C arrays the library reads
(authppr.Graph's list path), on a KG-sized edge list (1.24M pairs over 250k
nodes) and weight list. Best of 5, one run; compare within the run:

    /usr/bin/python3 python/bench/flatten.py
"""

import array
import itertools
import random
import struct
import time

M, N = 1_244_337, 250_000


def best(f, rep=5):
    ts = []
    for _ in range(rep):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def main():
    rng = random.Random(1)
    edges = [(rng.randrange(N), rng.randrange(N)) for _ in range(M)]
    weights = [rng.random() for _ in range(M)]
    chain = itertools.chain.from_iterable
    cases = [
        ("array('I', chain(edges))  [used]", lambda: array.array("I", chain(edges))),
        ("array('q', chain(edges))", lambda: array.array("q", chain(edges))),
        ("array('i', chain(edges))", lambda: array.array("i", chain(edges))),
        ("array('Q', chain(edges))", lambda: array.array("Q", chain(edges))),
        ("array('I').fromlist(list(chain))", lambda: array.array("I").fromlist(list(chain(edges)))),
        ("struct.pack('<2mI', *chain)", lambda: struct.pack("<%dI" % (2 * M), *chain(edges))),
        ("b''.join(starmap(Struct('II').pack))", lambda: b"".join(itertools.starmap(struct.Struct("=II").pack, edges))),
        ("pair check set(map(len, edges))  [used]", lambda: set(map(len, edges))),
        ("array('d', weights)  [used]", lambda: array.array("d", weights)),
        ("struct.pack('<md', *weights)", lambda: struct.pack("<%dd" % M, *weights)),
    ]
    times = [best(f) for _, f in cases]
    for (name, _), t in zip(cases, times):
        print("%-42s %7.1f ms  %.2fx the used flattening" % (name, 1e3 * t, t / times[0]))


if __name__ == "__main__":
    main()
