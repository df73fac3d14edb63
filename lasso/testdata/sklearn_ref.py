#!/usr/bin/python3
"""Reference coefficients for fedbandit's lasso tests (lasso/sklearn_test.go).

Generated with Debian's python3-sklearn (scikit-learn 1.2.1, numpy 1.24.2):

    cd REPO_ROOT && /usr/bin/python3 lasso/testdata/sklearn_ref.py

It reads the embedded MQ2008 set (datasets/mq2008/S1..S5.txt), writes a small
generated MSLR-shaped text file (lasso/testdata/mslr_synth.txt.gz, seeded;
rewritten identically on every run) and fits scikit-learn's Lasso with cyclic
coordinate descent on both, writing lasso/testdata/sklearn_ref.json.
The Go tests read the same text files, build the same design matrices and
compare coef_ and intercept_.

Design matrices: a constant 0.01 intercept feature followed by the chosen
source columns (MQ2008: 1..46; MSLR-shaped: the "title" set), raw values.
"""
import gzip
import json
import os

import numpy as np
import sklearn
from sklearn.linear_model import Lasso

ROOT = os.getcwd()
TESTDATA = os.path.join(ROOT, "lasso", "testdata")
INTERCEPT = 0.01


def read_letor(lines):
    labels, qids, rows = [], [], []
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        tok = line.split()
        labels.append(float(tok[0]))
        qids.append(int(tok[1].split(":")[1]))
        rows.append([float(t.split(":")[1]) for t in tok[2:]])
    return np.array(rows, dtype=np.float64), np.array(labels, dtype=np.float64), qids


def title_columns():
    c = []
    for i in range(25):
        c += [5 * i + 2, 5 * i + 4]
    return c + list(range(126, 132))


def write_mslr_synth(path, seed=20261123, queries=60):
    """MSLR-format rows: 136 features, integer counts, BM25/LMIR-like floats
    (negative in 111-125), PageRank-like large integers in 128 and 131."""
    rng = np.random.default_rng(seed)
    out = []
    for q in range(1, queries + 1):
        n = int(rng.integers(1, 61))
        rel = rng.normal(size=n)
        for j in range(n):
            r = rel[j]
            f = np.empty(136)
            f[0:125] = np.round(np.abs(rng.normal(2 + r, 3, size=125)) * 1000) / 1000
            f[0:15] = np.round(np.abs(rng.normal(3 + r, 4, size=15)))
            f[110:125] = -np.abs(rng.normal(20 - 2 * r, 5, size=15))
            f[125] = rng.integers(1, 8)
            f[126] = rng.integers(10, 200)
            f[127] = rng.integers(1000, 30_000_000)
            f[128] = rng.integers(0, 50)
            f[129] = rng.integers(0, 500)
            f[130] = rng.integers(0, 100_000) + int(5000 * max(r, 0))
            f[131] = rng.integers(0, 100)
            f[132] = rng.integers(0, 20)
            f[133:136] = 0
            label = int(np.clip(np.round(1.2 + r + 0.5 * rng.normal()), 0, 4))
            vals = " ".join("%d:%.6g" % (k + 1, f[k]) for k in range(136))
            out.append("%d qid:%d %s \r\n" % (label, q, vals))
    with gzip.GzipFile(path, "wb", mtime=0) as fh:
        fh.write("".join(out).encode())


def design(X, cols):
    Z = X[:, [c - 1 for c in cols]]
    return np.hstack([np.full((Z.shape[0], 1), INTERCEPT), Z])


def fit(X, y, alpha, fit_intercept, positive=False):
    m = Lasso(alpha=alpha, fit_intercept=fit_intercept, positive=positive,
              precompute=False, max_iter=10000, tol=1e-4, selection="cyclic")
    m.fit(X, y)
    return {
        "alpha": alpha,
        "fit_intercept": fit_intercept,
        "positive": positive,
        "coef": [float(v) for v in m.coef_],
        "intercept": float(m.intercept_),
        "n_iter": int(m.n_iter_),
        "dual_gap": float(m.dual_gap_),
    }


def main():
    cases = []
    lines = []
    for s in ["S1", "S2", "S3", "S4", "S5"]:
        with open(os.path.join(ROOT, "datasets", "mq2008", s + ".txt")) as fh:
            lines += fh.readlines()
    X, y, _ = read_letor(lines)
    Xd = design(X, list(range(1, 47)))
    for alpha in [1e-4, 1e-3, 1e-2]:
        for fi in [False, True]:
            c = fit(Xd, y, alpha, fi)
            c["data"] = "mq2008"
            cases.append(c)
    c = fit(Xd, y, 1e-3, False, positive=True)
    c["data"] = "mq2008"
    cases.append(c)
    c = fit(Xd, y, 1.0, False)
    c["data"] = "mq2008"
    assert not any(c["coef"]), "alpha=1 on MQ2008 should be degenerate"
    cases.append(c)

    path = os.path.join(TESTDATA, "mslr_synth.txt.gz")
    write_mslr_synth(path)
    with gzip.open(path, "rt", newline="") as fh:
        X, y, _ = read_letor(fh.readlines())
    Xd = design(X, title_columns())
    for alpha in [1.0, 0.01]:
        for fi in [False, True]:
            c = fit(Xd, y, alpha, fi)
            c["data"] = "mslr_synth"
            cases.append(c)

    ref = {
        "generator": "/usr/bin/python3 lasso/testdata/sklearn_ref.py",
        "sklearn": sklearn.__version__,
        "numpy": np.__version__,
        "estimator": "Lasso(precompute=False, max_iter=10000, tol=1e-4, selection='cyclic')",
        "design": "[0.01 intercept] + columns (mq2008: 1..46; mslr_synth: title set)",
        "cases": cases,
    }
    with open(os.path.join(TESTDATA, "sklearn_ref.json"), "w") as fh:
        json.dump(ref, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
