#!/usr/bin/env bash
# Old vs new binary on the scaling benchmark's cases, interleaved on one machine: each case runs
# OLD, NEW, OLD, NEW, ... (ROUNDS times each, one process per run) and the best CPU time of each
# side is kept, so that load from elsewhere on the machine hurts both alike. Prints a Markdown
# table: ns/event and B/job per case, old and new, and new/old.
#
#   sim/bench/compare_scaling.sh OLD/clustersim_scaling_bench NEW/clustersim_scaling_bench
#       [--rounds 3] [--quick] [--nodes "64 256 512"] [--jobs "10000 100000"] [--policies "fifo"]
#       [--loads "0.8"]
#
# --quick: the 64/256/512-node and 10k/100k-job cases only (minutes instead of tens of minutes).
# --nodes / --jobs / --policies / --loads: these cases only (cluster sizes with 80 jobs per node;
# job counts on 256 nodes), e.g. --nodes "" --jobs 1000000 for the memory target's case.
set -euo pipefail
old=${1:?usage: compare_scaling.sh OLD_BENCH NEW_BENCH [--rounds N] [--quick]}
new=${2:?usage: compare_scaling.sh OLD_BENCH NEW_BENCH [--rounds N] [--quick]}
shift 2
rounds=3
quick=0
nodes_arg="-" jobs_arg="-" policies="fifo tiresias" loads="0.8 1.2"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --nodes) nodes_arg=$2; shift 2 ;;
    --jobs) jobs_arg=$2; shift 2 ;;
    --policies) policies=$2; shift 2 ;;
    --loads) loads=$2; shift 2 ;;
    *) echo "compare_scaling: unknown argument $1" >&2; exit 2 ;;
  esac
done
# Cases: (load, policy, nodes, jobs) as the scaling benchmark names them.
cases=()
nodes_list="64 256 512 4096 12500"
jobs_list="10000 100000 1000000 2000000"
if [ $quick = 1 ]; then nodes_list="64 256 512"; jobs_list="10000 100000"; fi
[ "$nodes_arg" = - ] || nodes_list=$nodes_arg
[ "$jobs_arg" = - ] || jobs_list=$jobs_arg
for load in $loads; do
  for policy in $policies; do
    for nodes in $nodes_list; do cases+=("$load $policy $nodes $((80 * nodes))"); done
    for jobs in $jobs_list; do cases+=("$load $policy 256 $jobs"); done
  done
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {  # BENCH LOAD POLICY NODES JOBS -> "sim_s ns/event B/job"
  local bench=$1 load=$2 policy=$3 nodes=$4 jobs=$5 args
  if [ "$nodes" = 256 ]; then
    args=(--nodes "" --jobs "$jobs")
  else
    args=(--nodes "$nodes" --jobs "")
  fi
  "$bench" "${args[@]}" --policies "$policy" --loads "$load" --repeat 1 2>/dev/null |
    awk -v p="$policy" -v n="$nodes" -v j="$jobs" \
      '$2 == p && $3 == n && $4 == j { print $5, $6, $10 }'
}
echo "| load | policy | nodes | jobs | ns/event old | ns/event new | new/old | B/job old | B/job new |"
echo "|---|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  read -r load policy nodes jobs <<<"$c"
  best_old="" best_new=""
  for ((r = 0; r < rounds; r++)); do
    for side in old new; do
      bench=$old
      [ $side = new ] && bench=$new
      line=$(run "$bench" "$load" "$policy" "$nodes" "$jobs")
      [ -n "$line" ] || { echo "compare_scaling: $side failed on $c" >&2; continue; }
      echo "$line" >>"$work/$side"
      read -r s ns bj <<<"$line"
      if [ $side = old ]; then
        if [ -z "$best_old" ] || awk "BEGIN{exit !($ns < ${best_old%% *})}"; then best_old="$ns $bj"; fi
      else
        if [ -z "$best_new" ] || awk "BEGIN{exit !($ns < ${best_new%% *})}"; then best_new="$ns $bj"; fi
      fi
    done
  done
  read -r o_ns o_bj <<<"$best_old"
  read -r n_ns n_bj <<<"$best_new"
  ratio=$(awk "BEGIN{printf \"%.3f\", $n_ns / $o_ns}")
  echo "| $load | $policy | $nodes | $jobs | $o_ns | $n_ns | $ratio | $o_bj | $n_bj |"
done
