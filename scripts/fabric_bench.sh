#!/usr/bin/env bash
# The LLM fabric's speed (issue 40): 20,000 LLM jobs over ~30 days (make_jobs.py: the fabric
# example's mix plus 1% pretraining gangs of 256-896 GPUs: offered load 0.74 over 30 days) on
# 16,384 H100s (2,048 nodes of 8, 16 nodes per leaf, 16 leaves per spine group, 2:1 at both
# tiers), FIFO, one run per placement. Prints wall time, events and events/s of each.
#   scripts/fabric_bench.sh [BINARY] [PLACEMENTS...]   (default: build/bin/clustersim topology consolidate)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/bin/clustersim}
shift || true
placements=("${@:-topology consolidate}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$root/sweep/examples/fabric/make_jobs.py" --jobs 20000 --gap 130 --large 0.01 >"$work/jobs.csv"
for placement in ${placements[*]}; do
  cat >"$work/run.toml" <<TOML
[cluster]
nodes = 2048
gpus_per_node = 8
gpu_type = "h100"
[workload]
trace = "jobs.csv"
[scheduler]
policy = "fifo"
placement = "$placement"
[fabric]
hosts_per_leaf = 16
leaves_per_spine = 16
leaf_oversubscription = 2
spine_oversubscription = 2
TOML
  start=$(date +%s.%N)
  "$bin" run "$work/run.toml" --json >"$work/out.json"
  end=$(date +%s.%N)
  /usr/bin/python3 - "$placement" "$start" "$end" "$work/out.json" <<'PY'
import json, sys
placement, start, end, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
m = json.load(open(path))
wall = end - start
print(f"{placement:12s} wall {wall:6.2f} s  events {m['events']:>8d}  {m['events'] / wall:>10,.0f} events/s  "
      f"jobs {m['jobs']}  makespan {m['makespan'] / 86400:.1f} d  jct_mean {m['jct_mean']:.0f} s  "
      f"slowdown {m['contention_slowdown_mean']:.3f}  GPU-h lost {m['contention_gpu_hours_lost']:.0f}  "
      f"leaf {m['link_util.leaf']:.3f}  spine {m['link_util.spine']:.3f}")
PY
done
