#!/usr/bin/env bash
# Executes examples/regret.ipynb headless on the main job's output, as a
# user without pyarrow would (Debian 12's Python: the notebook falls back to
# the CSV copies of `run export --csv`), and fails if it errors or draws
# nothing: its PNG must exist and hold a real figure (size, and enough
# distinct colours and non-white pixels for axes, curves and bands).
# Needs jupyter-nbconvert, python3-nbclient, python3-ipykernel,
# python3-pandas and python3-matplotlib (.ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go run ./cmd/run --quick --out "$work/qs" >"$work/main-job.log" 2>&1 || { cat "$work/main-job.log"; exit 1; }
go run ./cmd/run export "$work/qs" --csv
FEDBANDIT_SWEEP="$work/qs" FEDBANDIT_FIGURE="$work/regret-notebook.png" \
  jupyter-nbconvert --to notebook --execute examples/regret.ipynb \
  --ExecutePreprocessor.timeout=300 --output-dir "$work" --output executed.ipynb
/usr/bin/python3 - "$work/regret-notebook.png" <<'PY'
import os, sys
import matplotlib.image as mpimg
import numpy as np
path = sys.argv[1]
size = os.path.getsize(path)
img = mpimg.imread(path)[..., :3]
colours = len(np.unique((img * 255).astype(np.uint8).reshape(-1, 3), axis=0))
ink = float((img.min(axis=2) < 0.9).mean())
print(f"notebook figure {path}: {size} bytes, {img.shape[1]}x{img.shape[0]} px, {colours} colours, {ink:.1%} non-white")
if size < 20_000 or colours < 50 or ink < 0.02:
    sys.exit("the notebook drew nothing (or nearly nothing)")
PY
