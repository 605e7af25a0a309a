#!/usr/bin/env python3
"""The expectations the test suites judge nfsload's access skews and size mixes
against, computed from the laws themselves (not from nfsload's code), with bounds
that follow from the sample size. Used by tests/judges.sh (what tshark sees on the
wire) and tests/integration.sh (nfsload's op log).

  judges.py zipf N_BLOCKS THETA <BLOCKS
      stdin: one block number per operation (0 .. N_BLOCKS-1), in the order the
      operations went out. The hottest tenth (N_BLOCKS // 10 blocks) of Zipf's law
      P(rank k) ~ k^-THETA (k = 1 .. N_BLOCKS) holds the share
          p = sum_{k <= N/10} k^-THETA / sum_{k <= N} k^-THETA
      of the draws. Which blocks are the hot ones the test does not know (nfsload
      scatters ranks over the file), so it bounds p from both sides:
        emp   the share of the N operations that fall on the tenth of the blocks most
              operations fell on. No tenth holds more of the sample than that one,
              the true hot tenth included, whose count is Binomial(N, p): so
              emp >= p - 4 sigma, sigma = sqrt(p (1-p) / N), fails by chance once
              in 30,000 runs;
        split the even-numbered operations choose a tenth (the blocks most of them
              fell on), the odd-numbered ones are counted on it: no tenth has more
              probability than the true hot one, so their share is Binomial(N/2, q)
              with q <= p: split <= p + 4 sigma_half, sigma_half = sqrt(p (1-p) / (N/2)).
      A flatter law than THETA (uniform, THETA ignored for a smaller one) fails the
      first, a steeper one the second. Prints "p emp split lo hi n" (percentages).

  judges.py split N PCT
      of N independent draws, those of a size drawn with PCT percent are
      Binomial(N, PCT/100). Prints "lo hi", the 4-sigma bounds of their share in
      percent (normal approximation: N is in the hundreds or more here; by chance
      outside once in 15,000 runs).

  judges.py count BUDGET SIZE/PCT:SIZE/PCT...
      sizes drawn independently with those percentages until their sum reaches
      BUDGET bytes (a run's --io-size or one pass over --size): the number of
      operations N is the first n whose sum reaches BUDGET. Its exact distribution
      (dynamic programming over the bytes in units of the sizes' gcd), and the
      bounds that take all but 1e-5 of it on each side. Prints "lo hi mean".
"""
import math
import sys
from collections import Counter, defaultdict
from functools import reduce


def zipf(n_blocks, theta):
    blocks = [int(x) for x in sys.stdin.read().split()]
    n = len(blocks)
    hot = n_blocks // 10
    w = [k ** -theta for k in range(1, n_blocks + 1)]
    p = sum(w[:hot]) / sum(w)
    top = Counter(blocks).most_common(hot)
    emp = sum(c for _, c in top) / n if n else 0.0
    even = Counter(blocks[0::2]).most_common(hot)
    chosen = {b for b, _ in even}
    odd = blocks[1::2]
    split = sum(1 for b in odd if b in chosen) / len(odd) if odd else 0.0
    sigma = math.sqrt(p * (1 - p) / max(n, 1))
    sigma_half = math.sqrt(p * (1 - p) / max(len(odd), 1))
    print("%.2f %.2f %.2f %.2f %.2f %d" % (100 * p, 100 * emp, 100 * split,
                                           100 * (p - 4 * sigma), 100 * (p + 4 * sigma_half), n))


def split(n, pct):
    p = pct / 100
    sigma = math.sqrt(p * (1 - p) / n)
    print("%.2f %.2f" % (100 * (p - 4 * sigma), 100 * (p + 4 * sigma)))


def size(s):
    mult = {"k": 1 << 10, "m": 1 << 20}
    s = s.lower()
    return int(s[:-1]) * mult[s[-1]] if s[-1] in mult else int(s)


def count(budget, mix):
    entries = [(size(e.split("/")[0]), float(e.split("/")[1]) / 100) for e in mix.split(":")]
    unit = reduce(math.gcd, [s for s, _ in entries])
    units = -(-budget // unit)
    cur = {0: 1.0}
    dist = {}
    n = 0
    while cur:
        n += 1
        nxt = defaultdict(float)
        done = 0.0
        for b, pb in cur.items():
            for s, ps in entries:
                nb = b + s // unit
                if nb >= units:
                    done += pb * ps
                else:
                    nxt[nb] += pb * ps
        if done:
            dist[n] = done
        cur = nxt
    acc, lo, hi = 0.0, None, None
    for k in sorted(dist):
        acc += dist[k]
        if lo is None and acc > 1e-5:
            lo = k
        if hi is None and acc >= 1 - 1e-5:
            hi = k
    print("%d %d %.1f" % (lo, hi, sum(k * q for k, q in dist.items())))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "zipf":
        zipf(int(sys.argv[2]), float(sys.argv[3]))
    elif cmd == "split":
        split(int(sys.argv[2]), float(sys.argv[3]))
    elif cmd == "count":
        count(size(sys.argv[2]), sys.argv[3])
    else:
        sys.exit("judges.py: unknown command " + cmd)
