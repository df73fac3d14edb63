#!/usr/bin/env bash
# Mutation testing of the data-path packages with gremlins (pinned as a Go
# tool dependency in tools/mutation/go.mod, a module of its own so that its
# dependencies never enter fedbandit's build graph).
#
#   scripts/mutation.sh                 # every data-path package
#   scripts/mutation.sh ./partition     # one package
#   WORKERS=2 scripts/mutation.sh ./lasso   # mutants tested two at a time
#
# For each package it prints gremlins' summary: KILLED / LIVED / NOT
# COVERED mutants, "test efficacy" (killed / (killed + lived)) and
# "mutator coverage" ((killed + lived) / all). Results per package go to
# $OUT (default: a temp directory) as gremlins' JSON. docs/testing.md
# records the figures and explains every survivor. A whole run takes tens
# of minutes on a 2-core machine: this is not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=$(mktemp -d)/gremlins
(cd tools/mutation && go build -o "$bin" github.com/go-gremlins/gremlins/cmd/gremlins)
out=${OUT:-$(mktemp -d)}
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
  pkgs=(./ingest ./outputs ./partition ./lasso ./runner ./internal/atomicfile ./internal/dirlock ./internal/parquetfile)
fi
for p in "${pkgs[@]}"; do
  name=$(echo "${p#./}" | tr / _)
  echo "== $p"
  "$bin" unleash --workers ${WORKERS:-1} --timeout-coefficient 10 -S lc -o "$out/$name.json" "$p" 
done
echo "JSON results in $out"
