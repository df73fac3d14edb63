# Makes a reference file of `run reproduce` from the RESULT lines of docs/mab_driver.py (one line a run):
#   python3 docs/mab_reference.py < reproduce/reference/cz-script-fig1.runs.txt > reproduce/reference/cz-script-fig1.csv
#   python3 docs/mab_reference.py < reproduce/reference/cz-script-fig1-rdp.runs.txt > reproduce/reference/cz-script-fig1-rdp.csv
# Per series (gap, eps, algorithm) and checkpoint t (10^5 and 10^6, where the runs reach them): the mean over the
# instances of the realised regret at t divided by t (fedbandit's metric "realised", R(t)/t), its standard error
# over the instances and their count. reproduce.TestScriptReferenceFromRuns recomputes each file from its runs.
import sys, math, collections
names = {"dp-se": "DP-SE", "dist-dp-se": "Dist-DP-SE",
         "dist-rdp-se-S10": "Dist-RDP-SE (S=10)", "dist-rdp-se-S100": "Dist-RDP-SE (S=100)"}
runs = collections.defaultdict(dict)  # (gap, eps, alg, t) -> {seed: R(t)/t}
horizon = {}  # gap -> n
for line in sys.stdin:
    if not line.startswith("RESULT "):
        continue
    f = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv and not kv.startswith("active"))
    if horizon.setdefault(f["gap"], f["n"]) != f["n"]:
        sys.exit("gap %s: runs of n = %s and %s" % (f["gap"], horizon[f["gap"]], f["n"]))
    for k, v in f.items():
        if k.startswith("realised@"):
            t = int(k.split("@")[1])
            if t not in (100000, 1000000):
                continue
            key = (f["gap"], f["eps"], f["alg"], t)
            if f["seed"] in runs[key]:
                sys.exit("duplicate run: %s seed %s" % (key, f["seed"]))
            runs[key][f["seed"]] = float(v) / t
algs = sorted({k[2] for k in runs}, key=list(names).index)
seeds = sorted({int(s) for v in runs.values() for s in v})
gaps = sorted(horizon, key=lambda g: -float(g))
kind = {"0.5": "easy", "0.1": "hard"}
print("# SOURCE: the authors' MAB script, sayakrc/Differentially-Private-Bandits at commit ea7503b (MABPrivate.py,")
print("# \"Run this code to generate Figure 1 in main paper\"), its classes unchanged, run one configuration and instance")
print("# at a time through docs/mab_driver.py (numpy 1.24.2, scipy 1.10.1, Debian 12) on 2026-12-02: %s" % ", ".join(names[a] for a in algs))
print("# at eps 0.1, 0.5, 1 on the instances of seeds %d-%d of %s, one run each (the script's" % (seeds[0], seeds[-1],
      " and ".join("gap %s (%s, n = 10^%d)" % (g, kind.get(g, "gap"), round(math.log10(int(horizon[g])))) for g in gaps)))
print("# privacy noise is unseeded). Realised regret at t divided by t, mean and standard error over the instances;")
print("# the runs are the file of the same name ending .runs.txt, and this file is docs/mab_reference.py's.")
print("series,t,mean,se,n")
order = lambda k: (-float(k[0]), float(k[1]), list(names).index(k[2]), k[3])
for key in sorted(runs, key=order):
    v = list(runs[key].values())
    n = len(v)
    m = sum(v) / n
    se = math.sqrt(sum((x - m) ** 2 for x in v) / (n - 1) / n) if n > 1 else float("nan")
    gap, eps, alg, t = key
    print("\"gap=%s, eps=%s: %s\",%d,%.6g,%s,%d" % (gap, eps, names[alg], t, m, "%.4g" % se if n > 1 else "", n))
