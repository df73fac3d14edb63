#!/usr/bin/env bash
# Executes examples/regret.ipynb headless, as a user without pyarrow would
# (Debian 12's Python: the notebook falls back to the CSV copies of `run
# export --csv`), on the main job's output and on a small sweep of two
# instances at two horizons, and fails if it errors, draws nothing (its PNG
# must exist and hold a real figure: size, and enough distinct colours and
# non-white pixels for axes, curves and bands) or does not give each family,
# instance and horizon its own panel (the notebook's closing line, "N curves
# in P panels", is checked against the directory's configurations).
# Needs jupyter-nbconvert, python3-nbclient, python3-ipykernel,
# python3-pandas and python3-matplotlib (.ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/run" ./cmd/run

# notebook DIR CURVES PANELS: executes the notebook on DIR and checks its figure.
notebook() {
  local dir=$1 curves=$2 panels=$3
  "$work/run" export "$dir" --csv
  FEDBANDIT_SWEEP="$dir" FEDBANDIT_FIGURE="$dir/regret-notebook.png" \
    jupyter-nbconvert --to notebook --execute examples/regret.ipynb \
    --ExecutePreprocessor.timeout=300 --output-dir "$dir" --output executed.ipynb
  /usr/bin/python3 - "$dir/regret-notebook.png" "$dir/executed.ipynb" "$curves curves in $panels panels" <<'PY'
import json, os, sys
import matplotlib.image as mpimg
import numpy as np
path, executed, want = sys.argv[1:]
size = os.path.getsize(path)
img = mpimg.imread(path)[..., :3]
colours = len(np.unique((img * 255).astype(np.uint8).reshape(-1, 3), axis=0))
ink = float((img.min(axis=2) < 0.9).mean())
print(f"notebook figure {path}: {size} bytes, {img.shape[1]}x{img.shape[0]} px, {colours} colours, {ink:.1%} non-white")
if size < 20_000 or colours < 50 or ink < 0.02:
    sys.exit("the notebook drew nothing (or nearly nothing)")
text = "".join("".join(o.get("text", "")) for c in json.load(open(executed))["cells"]
               for o in c.get("outputs", []) if o.get("output_type") == "stream")
if want not in text:
    sys.exit(f"the notebook did not draw {want}; it printed:\n{text}")
PY
}

"$work/run" --quick --out "$work/qs" >"$work/main-job.log" 2>&1 || { cat "$work/main-job.log"; exit 1; }
# The main job: 8 configurations, one instance and horizon per family.
notebook "$work/qs" 8 3

# Two instances at two horizons: SE and DP-SE, four panels of two curves.
cat >"$work/grid.toml" <<'TOML'
name = "notebook check: two instances at two horizons"
seeds = 2
checkpoint_every = 100

[[instance]]
name = "easy0"
kind = "mab"
arms = 5
gap = 0.5
seed = 0

[[instance]]
name = "easy1"
kind = "mab"
arms = 5
gap = 0.5
seed = 1

[[algorithm]]
name = "se"

[[algorithm]]
name = "dp-se"

[grid]
eps = [1]
T = [1000, 4000]
TOML
"$work/run" sweep "$work/grid.toml" --out "$work/grid" >"$work/grid.log" 2>&1 || { cat "$work/grid.log"; exit 1; }
notebook "$work/grid" 8 4
