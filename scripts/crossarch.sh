#!/usr/bin/env bash
# Cross-architecture byte check (issue 34): the same commands must give the
# same bytes on amd64 and on arm64, where Go fuses x*y+z into one
# multiply-add unless the product is converted explicitly (float64(x*y)).
#
#   scripts/crossarch.sh            # all steps (installs qemu-user when missing)
#   scripts/crossarch.sh scan       # only the static check (step 1, no qemu)
#
# 1. scan: builds cmd/run and cmd/prep for arm64 and lists every fused
#    multiply-add (FMADD/FMSUB/FNMADD/FNMSUB) the compiler emitted in this
#    module's code whose source line is not an explicit math.FMA: any such
#    line rounds differently on arm64 than on amd64. Fails on any.
# 2. the main job (`run --quick`: prep ingest + prep fit --cv of the
#    embedded MQ2008 as `go run ./cmd/run` does, and its linear sweep),
#    natively and under qemu-aarch64: the rows (manifest.json without
#    documents_sha256; data_sha256, the dataset's identity, included), the
#    theta* artifact byte for byte, the run ids and curves.arrow of its three
#    families (linear, mab-ltr, bco-ltr), all strictly. documents.parquet's
#    bytes are NOT compared: Snappy's encoder has architecture-specific
#    paths; nothing derived carries that byte hash (issue 35: data_sha256).
# 3. one small sweep of each family (scripts/crossarch/{linear,mab,bco}.toml)
#    and of the data-backed kinds on the main job's MQ2008
#    (scripts/crossarch/{mab-ltr,bco-ltr}.toml, FEDBANDIT_MQ2008 set to each
#    architecture's own preparation), natively, under qemu and (on a CPU
#    that runs it) built with GOAMD64=v3: curves.arrow byte for byte and
#    the run ids. Per-run files carry wall_seconds, which no two runs share.
# 4. the golden and no-fusion unit tests of internal/fmath, mab, bco and
#    lasso, compiled for arm64 and run under qemu.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/crossarch.XXXXXX")
trap 'rm -rf "$work"' EXIT
mode=${1:-all}
# Go's build cache stays the user's (it lives under XDG_CACHE_HOME unless
# GOCACHE is set): the arm64 objects are keyed by GOARCH and shared with
# `GOARCH=arm64 go vet` in CI, and every binary below is still compiled
# for its own architecture from this tree's source. A private cache made
# these builds cold (about 200 s of CPU on the 2-core CI machine).
GOCACHE="$(go env GOCACHE)"
export GOCACHE
export XDG_CACHE_HOME="$work/cache" # the sweeps' timing cache, not the user's
fail=0
t0=$(date +%s)

echo "crossarch: building cmd/run for amd64, cmd/run and cmd/prep for arm64"
go build -o "$work/run-amd64" ./cmd/run
GOARCH=arm64 go build -o "$work/run-arm64" ./cmd/run
GOARCH=arm64 go build -o "$work/prep-arm64" ./cmd/prep
echo "crossarch: built in $(($(date +%s) - t0)) s"

# --- 1. static scan of the arm64 code -------------------------------------
module=$(go list -m)
scan() { # binary
  go tool objdump -s "^$module/" "$1" | awk -v mod="$module/" '
    /^TEXT /{ fn = $2; file = $3; next }
    /\tF(N)?M(ADD|SUB)[DS] / && index(fn, mod) == 1 { split($1, p, ":"); print file "\t" p[1] "\t" p[2] "\t" fn }'
}
bad=0
while IFS=$'\t' read -r file base line fn; do
  dir=$(dirname "$file")
  cands=("$dir/$base")
  if [ ! -f "$dir/$base" ]; then # inlined from another package
    mapfile -t cands < <(git ls-files "*/$base" "$base" | sed "s|^|$root/|")
  fi
  if [ ${#cands[@]} = 0 ]; then # inlined from a dependency: reported, not ours to edit
    echo "crossarch: note: fused multiply-add inlined from a dependency's $base:$line into ${fn%(SB)}"
    continue
  fi
  ok=0
  for c in "${cands[@]}"; do
    if sed -n "${line}p" "$c" 2>/dev/null | grep -q 'math\.FMA('; then ok=1; fi
  done
  if [ $ok = 0 ]; then
    bad=$((bad + 1))
    echo "crossarch: implicit fused multiply-add on arm64 at ${cands[0]#"$root"/}:$line (in ${fn%(SB)}):"
    sed -n "${line}p" "${cands[0]}" 2>/dev/null | sed 's/^\s*/    /'
  fi
done < <( { scan "$work/run-arm64"; scan "$work/prep-arm64"; } | sort -u)
if [ $bad -gt 0 ]; then
  echo "crossarch: $bad fused site(s): convert the product explicitly, e.g. a + float64(x*y) (Go spec, Arithmetic operators), or call math.FMA where fusion is meant"
  fail=1
else
  echo "crossarch: scan: no implicit fused multiply-add in $module's arm64 code"
fi
if [ "$mode" = scan ]; then exit $fail; fi

# --- qemu-user -------------------------------------------------------------
if ! command -v qemu-aarch64 >/dev/null && ! command -v qemu-aarch64-static >/dev/null; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  s=$(date +%s)
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends qemu-user
  echo "crossarch: qemu-user installed in $(($(date +%s) - s)) s"
fi
qemu=$(command -v qemu-aarch64 || command -v qemu-aarch64-static)
# quiet runs a command with its log kept aside, shown only if it fails.
quiet() {
  if ! "$@" > "$work/cmd.log" 2>&1; then
    cat "$work/cmd.log"
    echo "crossarch: failed: $*"
    exit 1
  fi
}
arm() { quiet "$qemu" "$@"; }

# --- 2. the main job (its preparation: ingest + lasso fit --cv of the
# embedded MQ2008, partition; then its quick sweeps: linear, mab-ltr, bco-ltr)
s=$(date +%s)
quiet "$work/run-amd64" --quick --cache "$work/amd64-cache" --out "$work/amd64-main"
arm "$work/run-arm64" --quick --cache "$work/arm64-cache" --out "$work/arm64-main"
ds() { find "$work/$1-cache" -mindepth 2 -maxdepth 2 -type d -name dataset | head -1; }
da=$(ds amd64)
dr=$(ds arm64)
# The rows: the manifest's row count, histogram and feature statistics
# (everything but the hash of documents.parquet's bytes).
if ! diff <(grep -v '"documents_sha256"' "$da/manifest.json") <(grep -v '"documents_sha256"' "$dr/manifest.json") > "$work/manifest.diff"; then
  echo "crossarch: main job: MQ2008's rows differ between amd64 and arm64 (manifest.json):"
  head -20 "$work/manifest.diff"
  fail=1
fi
ta=$(cd "$da/instances" && ls ./*.theta.json)
tr=$(cd "$dr/instances" && ls ./*.theta.json)
if [ "$ta" != "$tr" ] || [ -z "$ta" ]; then
  echo "crossarch: main job: theta* artifacts differ in name: amd64 [$ta], arm64 [$tr]"
  fail=1
else
  for t in $ta; do
    if ! diff "$da/instances/$t" "$dr/instances/$t" > "$work/theta.diff"; then
      echo "crossarch: main job: theta* artifact $t differs between amd64 and arm64:"
      head -20 "$work/theta.diff"
      fail=1
    fi
  done
fi
ids() { grep -o '"id": *"[0-9a-f]*"' "$1/manifest.json" | sort; }
if [ "$(ids "$work/amd64-main")" != "$(ids "$work/arm64-main")" ] || [ -z "$(ids "$work/amd64-main")" ]; then
  echo "crossarch: main job: run ids differ between amd64 and arm64 (or none found)"
  fail=1
fi
if ! cmp "$work/amd64-main/curves.arrow" "$work/arm64-main/curves.arrow"; then
  echo "crossarch: main job: curves.arrow differs between amd64 and arm64"
  fail=1
fi
echo "crossarch: main job (quick) compared in $(($(date +%s) - s)) s"

# --- 3. one small sweep per family ---------------------------------------------
# Also an amd64 build with GOAMD64=v3, where Go fuses some x*y+z too, when
# this CPU runs it (AVX2, FMA; no qemu needed).
variants="arm64"
if grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo && grep -qw bmi2 /proc/cpuinfo; then
  GOAMD64=v3 go build -o "$work/run-v3" ./cmd/run
  variants="arm64 v3"
fi
for fam in linear mab bco mab-ltr bco-ltr; do
  s=$(date +%s)
  export FEDBANDIT_MQ2008="$da" # read by the *-ltr sweeps only
  quiet "$work/run-amd64" sweep "scripts/crossarch/$fam.toml" --out "$work/amd64-$fam"
  n=$(ids "$work/amd64-$fam" | wc -l)
  if [ "$n" = 0 ]; then echo "crossarch: $fam: no run ids found"; fail=1; fi
  for v in $variants; do
    if [ $v = arm64 ]; then
      FEDBANDIT_MQ2008="$dr" arm "$work/run-arm64" sweep "scripts/crossarch/$fam.toml" --out "$work/$v-$fam"
    else
      quiet "$work/run-$v" sweep "scripts/crossarch/$fam.toml" --out "$work/$v-$fam"
    fi
    if [ "$(ids "$work/amd64-$fam")" != "$(ids "$work/$v-$fam")" ]; then
      echo "crossarch: $fam: run ids differ between amd64 and $v"
      fail=1
    fi
    if ! cmp "$work/amd64-$fam/curves.arrow" "$work/$v-$fam/curves.arrow"; then
      echo "crossarch: $fam: curves.arrow differs between amd64 and $v"
      fail=1
    fi
  done
  echo "crossarch: $fam sweep ($n runs; amd64 vs $variants) compared in $(($(date +%s) - s)) s"
done

# --- 4. the golden and no-fusion unit tests, run as arm64 code ----------------
s=$(date +%s)
if ! GOARCH=arm64 go test -exec "$qemu" -count=1 -run 'NotFused|Golden' ./internal/fmath/ ./mab/ ./bco/ ./lasso/; then
  echo "crossarch: a golden or no-fusion test fails on arm64"
  fail=1
fi
echo "crossarch: arm64 unit tests in $(($(date +%s) - s)) s"

echo "crossarch: done in $(($(date +%s) - t0)) s"
exit $fail
