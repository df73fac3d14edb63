# Driver for the authors' public MAB script (sayakrc/Differentially-Private-Bandits, MABPrivate.py,
# "Run this code to generate Figure 1 in main paper"): one run of one algorithm on one of its
# instances, its modules unchanged. Copy beside MABPrivate.py and run
#   python3 mab_driver.py dp-se 0.5 0.5 0 1000000 100000      # algorithm eps gap instance-seed n [checkpoint ...]
# It prints the realised regret (the script's own: best arm's reward minus the pulled arm's, summed
# over rounds) at each checkpoint and at n. The script draws its privacy noise from an unseeded
# numpy Generator, so two runs of one instance differ in their noise (docs/reproduction.md,
# "Multi-armed bandits"; reproduce/reference/cz-script-fig1.csv was made with it).
import sys, time, numpy as np
import MABPrivate as M
alg, eps, gap, seed, n = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
checkpoints = sorted(set([int(c) for c in sys.argv[6:]] + [n]))
algs = {"dp-se": (M.DPSE, {"crs": 1, "delta": 0.1, "dc": 2}),
        "dist-dp-se": (M.BatchSEDistDP, {"crs": 1, "delta": 0.1, "dc": 4}),
        "dist-rdp-se-S10": (M.BatchSEDistRDP, {"crs": 1, "delta": 0.1, "scale": 10, "dc": 4}),
        "dist-rdp-se-S100": (M.BatchSEDistRDP, {"crs": 1, "delta": 0.1, "scale": 100, "dc": 4})}
np.random.seed(seed)
mu = gap * np.random.rand(10) + (0.5 - gap/2)
env = M.GaussBandit(mu, eps, seed=seed)
env.reset_random()
A, params = algs[alg]
t0 = time.time()
regret, a = M.evaluate_one(A, params, env, n, 1)
dt = time.time() - t0
cum = np.cumsum(regret)
at = " ".join("realised@%d=%.1f" % (c, cum[c - 1]) for c in checkpoints)
print("RESULT alg=%s eps=%g gap=%g seed=%d n=%d %s seconds=%.1f active=%s" % (alg, eps, gap, seed, n, at, dt, list(a.ActiveSet)))
