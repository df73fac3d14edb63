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
# 2. the main job's preparation (prep ingest + prep fit --cv of the embedded
#    MQ2008, as `go run ./cmd/run` does), natively and under qemu-aarch64:
#    the documents' rows (prep verify's row hash when present, else the
#    manifest's statistics), the fitted theta*'s values, and the artifact
#    names must agree. documents.parquet's bytes are NOT compared: Snappy's
#    encoder has architecture-specific paths (issue 35 makes a dataset's
#    identity the hash of its rows instead).
# 3. one small sweep of each family (scripts/crossarch/{linear,mab,bco}.toml),
#    natively and under qemu: curves.arrow byte for byte and the run ids.
#    Per-run files carry wall_seconds, which no two runs share.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/crossarch.XXXXXX")
trap 'rm -rf "$work"' EXIT
mode=${1:-all}
fail=0
t0=$(date +%s)

echo "crossarch: building cmd/run and cmd/prep for amd64 and arm64"
go build -o "$work/run-amd64" ./cmd/run
go build -o "$work/prep-amd64" ./cmd/prep
GOARCH=arm64 go build -o "$work/run-arm64" ./cmd/run
GOARCH=arm64 go build -o "$work/prep-arm64" ./cmd/prep
echo "crossarch: built in $(($(date +%s) - t0)) s"

# --- 1. static scan of the arm64 code -------------------------------------
module=$(go list -m)
scan() { # binary
  go tool objdump "$1" | awk -v mod="$module/" '
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
arm() { "$qemu" "$@"; }

# --- 2. the main job's preparation ------------------------------------------
s=$(date +%s)
prep_both() { # name, then the prep arguments with DIR for the dataset
  local name=$1; shift
  for a in amd64 arm64; do
    local args=("${@//DIR/$work/$a-mq2008}")
    if [ $a = amd64 ]; then "$work/prep-amd64" "${args[@]}"; else arm "$work/prep-arm64" "${args[@]}"; fi \
      > "$work/$a-$name.out" 2>"$work/$a-$name.err" || { echo "crossarch: $a prep $name failed:"; cat "$work/$a-$name.err"; exit 1; }
  done
}
prep_both ingest ingest datasets/mq2008 --out DIR
prep_both fit fit DIR --features all --cv
# The rows: the manifest without the byte hash of documents.parquet.
for a in amd64 arm64; do
  grep -v '"documents_sha256"\|"created\|"sha256"\|"path"\|"dir"' "$work/$a-mq2008/manifest.json" > "$work/$a-manifest.rows"
done
if ! cmp -s "$work/amd64-manifest.rows" "$work/arm64-manifest.rows"; then
  echo "crossarch: MQ2008's manifest statistics differ between amd64 and arm64:"
  diff "$work/amd64-manifest.rows" "$work/arm64-manifest.rows" | head -20
  fail=1
fi
# theta*: every artifact's values (the JSON without the dataset's byte hash).
( cd "$work/amd64-mq2008" && find . -name '*.json' ! -name manifest.json | sort ) > "$work/amd64-artifacts"
( cd "$work/arm64-mq2008" && find . -name '*.json' ! -name manifest.json | sort ) > "$work/arm64-artifacts"
if ! cmp -s "$work/amd64-artifacts" "$work/arm64-artifacts"; then
  echo "crossarch: the fit's artifact names differ (they carry the dataset hash: equal once it is a hash of rows, issue 35):"
  diff "$work/amd64-artifacts" "$work/arm64-artifacts" | head
  fail=1
fi
nart=0
while read -r f; do
  nart=$((nart + 1))
  a64=$(find "$work/arm64-mq2008" -name "$(basename "$f")" | head -1)
  [ -n "$a64" ] || a64=$(cd "$work/arm64-mq2008" && find . -name '*.json' ! -name manifest.json | sort | sed -n "${nart}p")
  if ! diff <(grep -v 'sha256\|"dataset' "$work/amd64-mq2008/$f") <(grep -v 'sha256\|"dataset' "$work/arm64-mq2008/${a64#./}" 2>/dev/null || grep -v 'sha256\|"dataset' "$a64") > "$work/theta.diff"; then
    echo "crossarch: fit artifact $f differs between amd64 and arm64:"
    head -20 "$work/theta.diff"
    fail=1
  fi
done < "$work/amd64-artifacts"
echo "crossarch: MQ2008 ingest + fit --cv ($nart artifact(s)) compared in $(($(date +%s) - s)) s"

# --- 3. one small sweep per family ---------------------------------------------
for fam in linear mab bco; do
  s=$(date +%s)
  "$work/run-amd64" sweep "scripts/crossarch/$fam.toml" --out "$work/amd64-$fam" > /dev/null
  arm "$work/run-arm64" sweep "scripts/crossarch/$fam.toml" --out "$work/arm64-$fam" > /dev/null
  ids() { grep -o '"id": *"[0-9a-f]*"' "$1/manifest.json" | sort; }
  if [ "$(ids "$work/amd64-$fam")" != "$(ids "$work/arm64-$fam")" ]; then
    echo "crossarch: $fam: run ids differ between amd64 and arm64"
    fail=1
  fi
  n=$(ids "$work/amd64-$fam" | wc -l)
  if [ "$n" = 0 ]; then echo "crossarch: $fam: no run ids found"; fail=1; fi
  if ! cmp "$work/amd64-$fam/curves.arrow" "$work/arm64-$fam/curves.arrow"; then
    echo "crossarch: $fam: curves.arrow differs between amd64 and arm64"
    fail=1
  fi
  echo "crossarch: $fam sweep ($n runs) compared in $(($(date +%s) - s)) s"
done

echo "crossarch: done in $(($(date +%s) - t0)) s"
exit $fail
