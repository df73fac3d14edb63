#!/usr/bin/env python3
"""Golden values of the published code's synthetic instance.

Regenerate federate/testdata/published_instance.json with Debian's numpy
(python3-numpy 1.24.2 was used):

    /usr/bin/python3 federate/testdata/published_instance.py > federate/testdata/published_instance.json

synth_env below is copied from Alphasxd/DPLCB, Environments.py (commit
a44983a), with the dataset written to a generator instead of an array of
T x M x K x d so that the paper's size fits in memory. Floats are written
with float.hex, exactly. The Go test (federate/numpy_test.go) never runs
Python: it reads this file.
"""
import json
import numpy as np

INV_SQRT2 = 0.7071067811865476  # the simulator's 1/sqrt(2)


def synth_env(n, M, K, d, keep):
    """synth_env of the published code; keep(t, i) says which contexts to return."""
    basis = np.eye(d)
    basis[:, -1] = 1
    np.random.seed(2)
    kept = {}
    for t in range(n):
        for i in range(M):
            x = np.random.randn(K, d - 1)
            x /= np.sqrt(np.square(x).sum(axis=1))[:, np.newaxis]
            x = np.hstack((x, np.ones((K, 1))))
            x[: basis.shape[0], :] = basis
            if keep(t, i):
                kept[(t, i)] = x.copy()
    theta = np.random.randn(d - 1)
    theta *= 0.5 / np.sqrt(np.square(theta).sum())
    theta = np.append(theta, [0.5])
    return kept, theta


def view(x, theta, d):
    """The simulator's learner view and mean of each random action (rows d..K-1)."""
    rows = []
    for row in x[d:]:
        u = [float(v) for v in row[: d - 1]]
        xs = [v * INV_SQRT2 for v in u] + [INV_SQRT2]
        mu = float(theta[d - 1])
        for j in range(d - 1):
            mu += u[j] * float(theta[j])
        rows.append({"x": [v.hex() for v in xs], "mu": mu.hex(), "u": [v.hex() for v in u]})
    return rows


def case(name, n, M, K, d, keep):
    kept, theta = synth_env(n, M, K, d, keep)
    return {
        "name": name, "T": n, "M": M, "K": K, "d": d,
        "theta": [float(v).hex() for v in theta],
        "contexts": [{"t": t, "i": i, "rows": view(x, theta, d)} for (t, i), x in sorted(kept.items())],
    }


np.random.seed(2)
stream = {
    "randn": [float(v).hex() for v in np.random.randn(1001)],  # odd: the polar method's cached value
    "random_sample": [float(v).hex() for v in np.random.random_sample(10)],
}
out = {
    "numpy": np.__version__,
    "stream_seed2": stream,
    "cases": [
        case("small", 3, 2, 12, 5, lambda t, i: True),
        case("paper", 10000, 100, 100, 10, lambda t, i: (t, i) in {(0, 0), (0, 99), (9999, 99)}),
    ],
}
print(json.dumps(out, indent=1))
