#!/usr/bin/env bash
# Sweep throughput and parallel efficiency, 1 vs 2 ranks x 1 vs 2 threads, plus the harness's
# per-point overhead on near-empty points.
#   sweep/bench/sweep_bench.sh [build/bin/clustersim] [GRID.toml]
# Efficiency = speedup over 1 rank x 1 thread / min(ranks x threads, cores) (wall clock), and
# CPU efficiency = CPU seconds of 1 rank x 1 thread / CPU seconds of the configuration (what the
# parallel harness burns on top of the simulations; robust when other jobs share the cores).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(realpath "${1:-$HERE/../../build/bin/clustersim}")
GRID=$(realpath "${2:-$HERE/bench_grid.toml}")
REPEATS=${REPEATS:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
CORES=$(nproc)
WORK=$(mktemp -d /tmp/clustersim_sweep_bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

# Runs one configuration once; prints "seconds points overhead_us cpu_seconds" (seconds: the
# sweep's own timing, first dispatch to HDF5 file written, MPI start-up aside; CPU seconds: user +
# system of all ranks, start-up included).
run_once() {
  local ranks=$1 threads=$2 grid=$3
  rm -f out.h5 out.h5.journal
  if [ "$ranks" -eq 1 ]; then
    /usr/bin/time -f "%U %S" -o cpu.txt "$BIN" sweep "$grid" --out out.h5 --threads "$threads" \
      --progress-interval 1000 >/dev/null 2>err.txt
  else
    /usr/bin/time -f "%U %S" -o cpu.txt mpirun -np "$ranks" --oversubscribe --bind-to none "$BIN" sweep "$grid" \
      --out out.h5 --threads "$threads" --progress-interval 1000 >/dev/null 2>err.txt
  fi
  local line
  line=$(grep -E '^sweep: [0-9]+ points in' err.txt)
  echo "$(echo "$line" | awk '{print $5, $2}') $(echo "$line" | sed -E 's/.* ([0-9.]+) us CPU\/point.*/\1/') \
$(awk '{print $1 + $2}' cpu.txt)"
}

# Repeats go round-robin over the configurations, so a burst of load from other processes hits
# them alike; the fastest run of each configuration is kept.
CONFIGS=("1 1" "1 2" "2 1" "2 2")
declare -A BEST
for ((i = 0; i < REPEATS; i++)); do
  for config in "${CONFIGS[@]}"; do
    result=$(run_once $config "$GRID")
    if [ -z "${BEST[$config]:-}" ] || awk -v a="${result%% *}" -v b="${BEST[$config]%% *}" 'BEGIN{exit !(a < b)}'; then
      BEST[$config]=$result
    fi
  done
done

echo "sweep benchmark: $(basename "$GRID") on $CORES cores, best of $REPEATS ($(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg))"
printf "%-16s %7s %8s %9s %8s %10s %8s %8s %15s\n" config points seconds points/s speedup efficiency cpu_s cpu_eff rank0_cpu_us/pt
base=""
base_cpu=""
for config in "${CONFIGS[@]}"; do
  set -- $config
  read -r seconds points overhead cpu <<<"${BEST[$config]}"
  [ -z "$base" ] && base=$seconds && base_cpu=$cpu
  workers=$(($1 * $2))
  used=$((workers < CORES ? workers : CORES))
  awk -v r="$1" -v t="$2" -v s="$seconds" -v p="$points" -v b="$base" -v u="$used" -v o="$overhead" \
    -v c="$cpu" -v bc="$base_cpu" 'BEGIN {
    printf "%-16s %7d %8.3f %9.1f %8.2f %10.2f %8.2f %8.2f %15.1f\n", r " rank x " t " thr", p, s, p / s, b / s,
      (b / s) / u, c, bc / c, o }'
done

OVERHEAD_GRID=$HERE/overhead_grid.toml
read -r seconds points overhead cpu <<<"$(run_once 2 1 "$OVERHEAD_GRID")"
awk -v s="$seconds" -v p="$points" -v o="$overhead" 'BEGIN {
  printf "\noverhead: %d near-empty points on 2 ranks x 1 thread in %.3f s = %.1f us/point wall (simulation included); rank-0 main thread (dispatch + journal + HDF5) %.1f us CPU/point\n", p, s, 1e6 * s / p, o }'
