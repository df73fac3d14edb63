#!/usr/bin/python3
"""Side-by-side timing of scikit-learn's Lasso on the benchmark design.

    FEDBANDIT_BENCH_MSLR=DIR FEDBANDIT_BENCH_DUMP=OUT go test -run TestDumpBenchDesign ./lasso/
    prep fit DIR --features title --alpha 1
    /usr/bin/python3 lasso/testdata/bench_sklearn.py OUT DIR/instances/title-reference.theta.json

OUT holds X.f64 (n x 57 row-major float64) and y.f64 written by the Go test.
Times Lasso(alpha=1, fit_intercept=False, precompute=False, max_iter=10000,
tol=1e-4) with cyclic and random selection (the reference used random), and
compares coef_ with theta in the artifact written by `prep fit`.
"""
import json
import sys
import time

import numpy as np
from sklearn.linear_model import Lasso

out, theta_path = sys.argv[1], sys.argv[2]
y = np.fromfile(out + "/y.f64", dtype="<f8")
X = np.fromfile(out + "/X.f64", dtype="<f8").reshape(len(y), -1)
X = np.asfortranarray(X)  # what Lasso.fit would copy to anyway
theta = np.array(json.load(open(theta_path))["theta"])
print("n = %d, d = %d" % X.shape)
for selection in ["cyclic", "random"]:
    m = Lasso(alpha=1.0, fit_intercept=False, precompute=False, max_iter=10000,
              tol=1e-4, selection=selection, random_state=0)
    t, c = time.perf_counter(), time.process_time()
    m.fit(X, y)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    rel = np.linalg.norm(m.coef_ - theta) / np.linalg.norm(m.coef_)
    print("sklearn %s: %.2f s wall, %.2f s cpu, n_iter %d, dual_gap %.3g, nonzero %d, ||coef - go theta|| / ||coef|| = %.2g"
          % (selection, dt, dc, m.n_iter_, m.dual_gap_, np.count_nonzero(m.coef_), rel))
