#!/usr/bin/env bash
# The documented bench command (BENCHMARKS.md): measures every speed and
# memory target on this machine, back to back, and writes the raw output to
# bench-out/ (Go benchmark format, usable with benchstat).
#
#   bash scripts/bench.sh            # everything (~15-20 minutes on 2 cores)
#   bash scripts/bench.sh quick      # Go micro-benchmarks only (~4 minutes)
#   bash scripts/bench.sh estimates  # run plan's estimates against measured
#                                    # sweeps, every family and kind:
#                                    # bench-out/estimates.md (ESTIMATES="a b"
#                                    # for some of them)
#
# Full-size inputs are generated (MSLR-WEB10K shape: 10,000 queries, ~1.2M
# rows, 136 features) into $BENCH_TMP (default /tmp/fedbandit-bench).
# The scikit-learn comparisons need Debian's python3-sklearn
# (apt-get install python3-sklearn) and use /usr/bin/python3.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench-out
tmp=${BENCH_TMP:-/tmp/fedbandit-bench}
mkdir -p "$out" "$tmp"

if [ "${1:-}" = estimates ]; then
  # Every family and kind: a small sweep, its `run plan --json` estimate
  # (CPU seconds, peak bytes of the runs and of the collect) and the
  # sweep (then its collect alone) measured with /usr/bin/time: user +
  # sys CPU and max RSS, one worker; a sweep's RSS is compared with the
  # larger of its two peaks (it ends with its collect). The ratios measured / estimated go to
  # bench-out/estimates.md (BENCHMARKS.md, "Estimates against
  # measurements"). CPU time, not wall: the machine may be shared. The
  # rate cache is used (each class's pilot timed once).
  est=$tmp/estimates
  mkdir -p "$est"
  go build -o "$tmp/run" ./cmd/run
  go build -o "$tmp/prep" ./cmd/prep
  mq=$est/mq2008
  if [ ! -f "$mq/partitions/contiguous-M10.json" ]; then
    rm -rf "$mq"
    "$tmp/prep" ingest datasets/mq2008 --out "$mq"
    "$tmp/prep" fit "$mq" --features all --alpha 1e-4
    "$tmp/prep" partition "$mq" --silos 10
  fi
  big=$est/mq2008x20 # 304,220 documents: MQ2008 20 times over, other qids
  if [ ! -f "$big/manifest.json" ]; then
    for r in $(seq 0 19); do
      cat datasets/mq2008/S*.txt | awk -v r="$r" '{split($2, a, ":"); $2 = "qid:" (a[2] + r * 100000); print}'
    done > "$est/mq2008x20.txt"
    rm -rf "$big"
    "$tmp/prep" ingest "$est/mq2008x20.txt" --out "$big"
  fi
  mab='[[instance]]
name = "e"
kind = "mab"
arms = 10
gap = 0.5
reward = "bernoulli"'
  printf '%s\n' 'name = "linear-synthetic"' 'seeds = 2' '[[instance]]' 'name = "s"' 'kind = "synthetic"' 'd = 10' 'k = 100' \
    'noise_var = 0.25' 'fixed_basis = true' 'shared_contexts = true' 'seed = 2' 'context_gen = "numpy-mt19937"' \
    '[[algorithm]]' 'name = "ldp"' 'preset = "reference-code"' '[[algorithm]]' 'name = "sdp-amp"' 'preset = "reference-code"' \
    '[grid]' 'eps = [1]' 'delta = [0.0001]' 'M = [20]' 'B = [25]' 'T = [5000]' > "$est/linear-synthetic.toml"
  printf '%s\n' 'name = "linear-dubey"' 'seeds = 2' '[[instance]]' 'name = "d"' 'kind = "dubey"' 'd = 10' 'k = 20' 'seed = 1' \
    '[[algorithm]]' 'name = "feducb"' 'preset = "paper"' 'regime = [2]' \
    '[grid]' 'eps = [1]' 'delta = [0.1]' 'M = [20]' 'B = [25]' 'T = [2000]' > "$est/linear-dubey.toml"
  printf '%s\n' 'name = "linear-ltr"' 'seeds = 2' '[[instance]]' 'name = "mq"' 'kind = "ltr"' "dataset = \"$mq\"" 'features = "all"' \
    'model = "reference"' 'strategy = "contiguous"' '[[algorithm]]' 'name = "fedlinucb"' \
    '[grid]' 'delta = [0.1]' 'M = [10]' 'B = [25]' 'T = [20000]' > "$est/linear-ltr.toml"
  printf '%s\n' 'name = "mab"' 'seeds = 4' "$mab" '[[algorithm]]' 'name = "se"' '[[algorithm]]' 'name = "dist-rdp-se"' \
    '[grid]' 'eps = [1]' 'delta = [1e-5]' 'T = [1000000]' > "$est/mab.toml"
  printf '%s\n' 'name = "mab-short-runs"' 'seeds = 20000' "$mab" '[[algorithm]]' 'name = "se"' '[grid]' 'T = [10]' > "$est/mab-short-runs.toml"
  printf '%s\n' 'name = "mab-curve-rows"' 'seeds = 100' 'checkpoint_every = 1' "$mab" '[[algorithm]]' 'name = "se"' \
    '[grid]' 'T = [100000]' > "$est/mab-curve-rows.toml"
  printf '%s\n' 'name = "mab-ltr"' 'seeds = 3' '[[instance]]' 'name = "q"' 'kind = "mab-ltr"' "dataset = \"$mq\"" 'query = 10056' \
    'click_model = "navigational"' '[[algorithm]]' 'name = "se"' '[[algorithm]]' 'name = "dist-dp-se"' \
    '[grid]' 'eps = [1]' 'delta = [1e-5]' 'T = [1000000]' > "$est/mab-ltr.toml"
  printf '%s\n' 'name = "bco"' 'seeds = 2' '[[instance]]' 'name = "b"' 'kind = "bco"' 'd = 100' 'loss = "absolute"' \
    '[[algorithm]]' 'name = "ldp-two-point"' 'analytic = 1' '[grid]' 'eps = [1]' 'delta = [1e-5]' 'M = [4]' 'T = [100000]' > "$est/bco.toml"
  for loss in squared absolute; do
    printf '%s\n' "name = \"bco-ltr-$loss\"" 'seeds = 2' 'checkpoint_every = 200' '[[instance]]' 'name = "docs"' 'kind = "bco-ltr"' \
      "dataset = \"$mq\"" 'features = "all"' "loss = \"$loss\"" '[[algorithm]]' 'name = "ldp-two-point"' 'analytic = 1' \
      '[grid]' 'eps = [1]' 'delta = [1e-5]' 'M = [100]' 'T = [2000]' > "$est/bco-ltr-$loss.toml"
    printf '%s\n' "name = \"bco-ltr-$loss-x20\"" 'seeds = 1' '[[instance]]' 'name = "docs"' 'kind = "bco-ltr"' \
      "dataset = \"$big\"" 'features = "all"' "loss = \"$loss\"" '[[algorithm]]' 'name = "two-point"' \
      '[grid]' 'M = [10]' 'T = [100]' > "$est/bco-ltr-$loss-x20.toml"
  done
  report=$out/estimates.md
  {
    echo "| sweep | runs | CPU estimated | CPU measured | ratio | peak estimated (runs, collect) | sweep max RSS | ratio | collect max RSS | ratio |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
  } > "$report"
  for name in ${ESTIMATES:-linear-synthetic linear-dubey linear-ltr mab mab-short-runs mab-curve-rows mab-ltr bco bco-ltr-squared bco-ltr-absolute bco-ltr-squared-x20 bco-ltr-absolute-x20}; do
    echo "== estimate vs measurement: $name" >&2
    f=$est/$name.toml
    rm -rf "$est/r-$name"
    "$tmp/run" plan "$f" --workers 1 --json > "$est/$name.plan.json"
    /usr/bin/time -f "%U %S %M" -o "$est/$name.time" "$tmp/run" sweep "$f" --out "$est/r-$name" --workers 1 --no-plot > /dev/null
    /usr/bin/time -f "%U %S %M" -o "$est/$name.collect.time" "$tmp/run" collect "$est/r-$name" > /dev/null
    /usr/bin/python3 -c '
import json, sys
plan = json.load(open(sys.argv[1]))
user, sys_, rss = open(sys.argv[2]).read().split()[-3:]
cu, cs, crss = open(sys.argv[3]).read().split()[-3:]
cpu, rss, crss = float(user) + float(sys_), int(rss) * 1024, int(crss) * 1024
mib = lambda b: "%.0f MiB" % (b / 2**20)
# A sweep ends with its collect: its peak is the larger of the two.
peak = max(plan["peak_bytes"], plan["collect_bytes"])
print("| %s | %d | %.2f s | %.2f s | %.2f | %s, %s | %s | %.2f | %s | %.2f |" % (
    sys.argv[4], plan["runs"], plan["cpu_seconds"], cpu, cpu / plan["cpu_seconds"],
    mib(plan["peak_bytes"]), mib(plan["collect_bytes"]), mib(rss), rss / peak,
    mib(crss), crss / plan["collect_bytes"]))
' "$est/$name.plan.json" "$est/$name.time" "$est/$name.collect.time" "$name" >> "$report"
  done
  cat "$report"
  exit 0
fi

echo "== micro-benchmarks" >&2
go test ./ingest -run '^$' -bench 'Parse|Writer' -benchtime 2x -count 3 | tee "$out/ingest-micro.txt"
go test ./federate/accountant -run '^$' -bench . | tee "$out/accountant.txt"
go test ./federate -run '^$' -bench 'WidthKernel|DgemmWidths|Contexts|ZigFast|ZigSlow|Observe' -cpu 1 -count 3 | tee "$out/width-kernel.txt"
go test ./federate -run '^$' -bench RunMemory -cpu 1 | tee "$out/run-memory.txt"
go test ./runner -run '^$' -bench 'SweepOverhead|SweepThroughput' -benchtime 3x -count 3 | tee "$out/runner.txt"
[ "${1:-}" = quick ] && exit 0

echo "== simulator, full size (one core)" >&2
go test ./federate -run '^$' -bench 'PaperSynthetic|LTR' -benchtime 1x -count 3 -cpu 1 -benchmem -timeout 60m | tee "$out/federate.txt"

echo "== ingest, full size, vs scikit-learn load_svmlight_file" >&2
go build -o "$tmp/prep" ./cmd/prep
[ -f "$tmp/synth.txt" ] || "$tmp/prep" synth --out "$tmp/synth.txt"
rm -rf "$tmp/ds"
/usr/bin/time -v "$tmp/prep" ingest "$tmp/synth.txt" --out "$tmp/ds" 2>&1 | tee "$out/ingest-full.txt"
/usr/bin/time -v /usr/bin/python3 -c "
from sklearn.datasets import load_svmlight_file
X, y, q = load_svmlight_file('$tmp/synth.txt', query_id=True)
print(X.shape)" 2>&1 | tee "$out/ingest-sklearn.txt"

echo "== lasso, full size (title set, d=57), vs scikit-learn Lasso" >&2
FEDBANDIT_BENCH_MSLR="$tmp/ds" go test -run '^$' -bench . -benchtime 3x ./lasso/ | tee "$out/lasso.txt"
FEDBANDIT_BENCH_MSLR="$tmp/ds" FEDBANDIT_BENCH_DUMP="$tmp/dump" go test -run TestDumpBenchDesign ./lasso/
"$tmp/prep" fit "$tmp/ds" --features title --alpha 1
/usr/bin/python3 lasso/testdata/bench_sklearn.py "$tmp/dump" "$tmp/ds/instances/title-reference.theta.json" | tee "$out/lasso-sklearn.txt"
echo "raw output in $out/" >&2
