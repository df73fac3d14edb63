#!/usr/bin/env bash
# The documented bench command (BENCHMARKS.md): measures every speed and
# memory target on this machine, back to back, and writes the raw output to
# bench-out/ (Go benchmark format, usable with benchstat).
#
#   bash scripts/bench.sh            # everything (~15-20 minutes on 2 cores)
#   bash scripts/bench.sh quick      # Go micro-benchmarks only (~4 minutes)
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
