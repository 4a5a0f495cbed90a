#!/usr/bin/env bash
# The LLM-era study's tables (sweep/examples/fabric/README.md, "The LLM-era study"): runs every
# point of a grid (default: both, llm_era.toml and lingjun.toml, the latter only with
# ../shared) one by one with `clustersim run GRID --point N --json` and prints, per placement x
# leaf oversubscription x load, the contention metrics: mean slowdown of the LLM jobs, GPU-hours
# lost to contention, mean leaf and spine uplink utilisation, and the mean JCT.
#   scripts/llm_era_study.sh [BINARY] [GRID...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/bin/clustersim}
shift || true
grids=("$@")
if [ ${#grids[@]} -eq 0 ]; then
  grids=(sweep/examples/fabric/llm_era.toml)
  [ -f "$root/../shared/traces/alibaba-lingjun-2023/topo.csv" ] && grids+=(sweep/examples/fabric/lingjun.toml)
fi
cd "$root"
for grid in "${grids[@]}"; do
  # The dry run lists each point: id, replicate, seed, then the axes' values in the grid's order.
  "$bin" sweep "$grid" --dry-run 2>/dev/null | grep -v '^#' >"${TMPDIR:-/tmp}/llm_era_points.$$"
  echo "## $grid ($(wc -l <"${TMPDIR:-/tmp}/llm_era_points.$$") points)"
  echo "| placement | leaf oversub. | load | slowdown | GPU-h lost | leaf util | spine util | JCT mean s |"
  echo "|---|---|---|---|---|---|---|---|"
  while read -r point _ _ placement oversub load _; do
    "$bin" run "$grid" --point "$point" --json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
m = json.load(sys.stdin)
row = [m[k] for k in ("contention_slowdown_mean", "contention_gpu_hours_lost", "link_util.leaf", "link_util.spine", "jct_mean")]
print("| %s | %s | %s | %.3f | %s | %.2f | %.2f | %s |" % (*sys.argv[1:4], row[0], f"{row[1]:,.0f}", row[2], row[3], f"{row[4]:,.0f}"))' "$placement" "$oversub" "$load"
  done <"${TMPDIR:-/tmp}/llm_era_points.$$"
  rm -f "${TMPDIR:-/tmp}/llm_era_points.$$"
done
