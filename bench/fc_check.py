#!/usr/bin/env python3
# fc_check.py: an answer to a friction-cone problem file re-checked without cpkit's code (pure Python, streams W).
"""usage: fc_check.py PROBLEM.cpk RESULT.json

Reads the cone problem (cpkit text format v1, `type friction_cone`, W as
`M coord`) and the reaction z of a `cpkit solve --json` result, computes
u = W z + q itself, one matrix entry at a time (W is never stored: the
10^6-unknown pile's 31 million entries fit in no Python list), and prints,
per FCLIB's local form (De Saxce's modified velocity u^ = u + mu |u_T| e_n):

  natural   max over contacts of max(|r - proj_K(r - u^)|_2, -u_n)
            (what cpkit's driver reports as the residual)
  merit     sqrt(sum of |r - proj_K(r - u^)|_2^2) / (1 + sqrt(|q|_2))
            (FCLIB's MERIT_1)
  cone      max over contacts of |r_T| - mu r_n (r outside its cone)
  gap       max over contacts of |r . u^| (complementarity)

Written for the 10^6-unknown pile of doc/petsc.md: the check shares no code
with the solver or the driver it checks.
"""
import json
import math
import sys


def read_problem(path, z):
    """n, dim, u = W z (without q), q, mu from PROBLEM, streaming the entries."""
    n = dim = None
    with open(path) as f:
        for line in f:
            key, _, rest = line.partition(" ")
            if key == "n":
                n = int(rest)
            elif key == "dim":
                dim = int(rest)
            elif key == "M":
                kind, count = rest.split()
                if kind != "coord" or n is None:
                    raise SystemExit("expected `M coord NNZ` after `n`")
                u = [0.0] * n
                for _ in range(int(count)):
                    i, j, v = next(f).split()
                    u[int(i) - 1] += float(v) * z[int(j) - 1]
                break
        sections = {}
        name = None
        for line in f:
            words = line.split()
            if not words:
                continue
            if words[0] in ("q", "mu", "end"):
                name = words[0]
                sections[name] = []
                continue
            if name:
                sections[name] += [float(w) for w in words]
    return n, dim, u, sections["q"], sections["mu"]


def project(dim, mu, x):
    """Euclidean projection of x on { |x_T| <= mu x_n }."""
    xn, xt = x[0], x[1:]
    nt = math.sqrt(sum(t * t for t in xt))
    if not (math.isfinite(xn) and math.isfinite(nt)):
        return [math.nan] * dim
    if xn >= 0 and nt <= mu * xn:  # xn >= 0: with mu = 0 and x_T = 0, -0.0 is not inside
        return list(x)
    if mu * nt <= -xn:
        return [0.0] * dim
    a = (xn + mu * nt) / (1.0 + mu * mu)
    return [a] + [mu * a * t / nt for t in xt]


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    result = json.load(open(sys.argv[2]))
    z = result["z"]
    n, dim, u, q, mu = read_problem(sys.argv[1], z)
    if len(z) != n or len(q) != n or dim is None or len(mu) * dim != n:
        raise SystemExit("sizes do not match: n %s, dim %s, |z| %d, |q| %d" % (n, dim, len(z), len(q)))
    natural = sum2 = cone = gap = 0.0
    for c in range(len(mu)):
        s = slice(c * dim, (c + 1) * dim)
        r = z[s]
        uc = [a + b for a, b in zip(u[s], q[s])]
        uhat = [uc[0] + mu[c] * math.sqrt(sum(t * t for t in uc[1:]))] + uc[1:]
        x = [a - b for a, b in zip(r, uhat)]
        p = project(dim, mu[c], x)
        # e = r - P(r - u^) written as u^ + (x - P(x)): with |r| >> |u^| the direct
        # difference rounds u^ away and a huge r would pass
        e = math.sqrt(sum((h + (a - b)) ** 2 for h, a, b in zip(uhat, x, p)))
        if not (math.isfinite(e) and math.isfinite(uc[0])):
            e = math.inf  # max() would skip a NaN that is not first
        natural = max(natural, e, -uc[0])
        sum2 += e * e
        cone = max(cone, math.sqrt(sum(t * t for t in r[1:])) - mu[c] * r[0])
        gap = max(gap, abs(sum(a * b for a, b in zip(r, uhat))))
    qn = math.sqrt(sum(x * x for x in q))
    print("n %d contacts %d natural %.3e merit %.3e cone %.3e gap %.3e (driver: status %s, residual %s)"
          % (n, len(mu), natural, math.sqrt(sum2) / (1.0 + math.sqrt(qn)), cone, gap,
             result.get("status"), result.get("residual")))


main()
