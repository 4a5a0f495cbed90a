#!/usr/bin/env bash
# Capacity of the sweep harness without simulation (issue 27): synthetic results
# (CLUSTERSIM_SWEEP_SYNTHETIC, see sweep_command.cc) drive rank 0 and the row writers at a
# chosen size, with no simulation at all, and the table says what each side costs:
#   points/s     sustained by the whole sweep (ms=0: as fast as rank 0 and the writers go)
#   rank0 run    rank 0's main-thread CPU per point while the sweep runs (dispatch, messages,
#                journal): the serial part that caps how many ranks one rank 0 can feed. It is
#                a per-point cost only when rank 0 is saturated (metrics only, 1 row/point);
#                with slow points it also counts rank 0's idle polling, spread over few points
#   rank0 final  rank 0's main-thread CPU per point for the final file
#   writer       CPU per point a rank spends encoding and spooling the rows it computed
#   rows MB/s    spooled rows (raw) per second of the run; final MB/s: the final file's bytes
#                per second of its write (rows gathered, shuffled, deflated, written)
# and from them the rank count at which a grid of points taking T seconds each (1 thread per
# rank) stops scaling: rank 0 saturates at R = T / (rank0 run CPU per point); with per-job
# output the final file takes (rows of all points) / (final rows/s), which equals the run time
# (points x T / R) at R = T x (final rows/s) / (rows per point).
#   sweep/bench/capacity_bench.sh [build/bin/clustersim] [SECONDS_PER_POINT] [ROWS_PER_POINT]
# Defaults: the 1,024-GPU Philly grid of sweep/bench/philly1024_grid.toml (0.17 s and 137,500
# job rows per point on the development VM; measure yours with that grid).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(realpath "${1:-$HERE/../../build/bin/clustersim}")
POINT_S=${2:-0.17}
POINT_ROWS=${3:-137500}
RANKS=${RANKS:-2}
ROWS_PER_POINT=${BENCH_ROWS:-10000}   # synthetic job rows per point (cost scales with rows)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d /tmp/clustersim_capacity.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
sed "s/^seeds = .*/seeds = ${BENCH_SEEDS:-2000}/" "$HERE/capacity_grid.toml" >grid.toml
sed "s/^seeds = .*/seeds = ${BENCH_ROW_SEEDS:-100}/" "$HERE/capacity_grid.toml" >rows_grid.toml

# run NAME GRID SYNTHETIC FLAGS...: one sweep on $RANKS ranks x 1 thread; keeps its stderr.
run() {
  local name=$1 grid=$2 spec=$3
  shift 3
  rm -rf out.h5*
  CLUSTERSIM_SWEEP_SYNTHETIC=$spec mpirun -np "$RANKS" --oversubscribe --bind-to none "$BIN" sweep \
    "$grid" --out out.h5 --threads 1 --progress-interval 1000 "$@" >/dev/null 2>"$name.err"
}
field() { grep -E "$2" "$1.err" | head -1 | sed -E "s/$3/\1/"; }

run metrics grid.toml "jobs=0"
run refs grid.toml "jobs=1" --save-jobs
run rows rows_grid.toml "jobs=$ROWS_PER_POINT" --save-jobs

echo "capacity benchmark: $RANKS ranks x 1 thread on $(nproc) cores, synthetic points (no simulation), $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-22s %7s %9s %12s %14s %11s %10s %9s\n" output points points/s rank0_run_us rank0_final_us writer_us rows_MB/s final_MB/s
for name in metrics refs rows; do
  line=$(grep -E '^sweep: [0-9]+ points in' "$name.err")
  points=$(echo "$line" | awk '{print $2}')
  seconds=$(echo "$line" | awk '{print $5}')
  run_us=$(echo "$line" | sed -E 's/.*\(run ([0-9.]+), final file ([0-9.]+)\).*/\1/')
  final_us=$(echo "$line" | sed -E 's/.*\(run ([0-9.]+), final file ([0-9.]+)\).*/\2/')
  writer_us=0; spool_mb=0; final_mb=0; final_s=1
  if [ "$name" != metrics ]; then
    writer_us=$(grep -E "spooled" "$name.err" | sed -E 's/.*, ([0-9.]+) us CPU\/point/\1/' | awk '{s += $1; n++} END {print s / n}')
    spool_mb=$(grep -E "spooled" "$name.err" | sed -E 's/.*spooled ([0-9.]+) MB.*/\1/' | awk '{s += $1} END {print s}')
    final_mb=$(field "$name" 'final file' '.*final file ([0-9.]+) MB.*')
    final_s=$(field "$name" 'final file' '.*MB in ([0-9.]+) s.*')
  fi
  case $name in
    metrics) label="metrics only" ;;
    refs) label="1 job row/point" ;;
    *) label="$ROWS_PER_POINT job rows/point" ;;
  esac
  awk -v l="$label" -v p="$points" -v s="$seconds" -v r="$run_us" -v f="$final_us" -v w="$writer_us" \
    -v sm="$spool_mb" -v fm="$final_mb" -v fs="$final_s" 'BEGIN {
    printf "%-22s %7d %9.0f %12.1f %14.1f %11.1f %10.1f %9.1f\n", l, p, p / s, r, f, w, sm / s, fm / fs }'
  eval "${name}_run_us=$run_us ${name}_final_s=$final_s ${name}_points=$points"
done
awk -v t="$POINT_S" -v rows="$POINT_ROWS" -v m="$metrics_run_us" -v r="$refs_run_us" \
  -v fs="$rows_final_s" -v n="$rows_points" -v b="$ROWS_PER_POINT" 'BEGIN {
  final_rows_per_s = n * b / fs
  printf "\nfor points of %.3g s and %d rows (1 thread per rank):\n", t, rows
  printf "  metrics only:       rank 0 saturates at %.0f ranks (%.1f us CPU per point)\n", t * 1e6 / m, m
  printf "  with per-job rows:  rank 0 saturates at %.0f ranks (%.1f us); the final file (%.2g rows/s) takes as long as the run at %.0f ranks\n",
    t * 1e6 / r, r, final_rows_per_s, t * final_rows_per_s / rows }'
