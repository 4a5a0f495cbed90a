#!/usr/bin/env bash
# Capacity of the sweep harness without simulation (issue 27). Synthetic results
# (CLUSTERSIM_SWEEP_SYNTHETIC, see sweep/src/rank_points.cc: metrics and job rows of varied
# values, no simulation) drive rank 0 and the row writers, and the tables say what each
# side costs:
#  1. rank 0 while the sweep runs: points/s and rank 0's main-thread CPU per point (dispatch,
#     messages, journal) when it is saturated (points take no time), with metrics only and with
#     spooled rows (each result then carries a spool reference instead of its rows);
#  2. the final file's row tables (/jobs): written by rank 0 alone (CLUSTERSIM_SWEEP_FINAL=serial),
#     compressed by the other ranks and written by rank 0 (compress, the default below 16 ranks),
#     or by every rank, each its share of whole chunks (collective MPI-IO writes, the default
#     from 16 ranks on): rows/s, and rank 0's main-thread CPU per point for it;
# and from them the rank count at which a grid of points taking T seconds each (1 thread per
# rank) stops scaling: rank 0 saturates at R = T / (its CPU per point); a final file written by
# rank 0 alone takes as long as the run from R = T x (rows/s) / (rows per point) on; written by
# every rank it adds a fixed fraction at any R, and the file system's bandwidth is the cap.
#   sweep/bench/capacity_bench.sh [build/bin/clustersim] [SECONDS_PER_POINT] [ROWS_PER_POINT]
# Defaults: issue 27's 1,024-GPU grid (sweep/bench/philly1024_grid.toml): ~0.17 s and 137,500
# job rows per point on one thread of the development VM. Environment: RANKS (table 1, default
# 2), WRITER_RANKS (table 2, default "2 4"), BENCH_ROWS (synthetic rows per point, 10000).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(realpath "${1:-$HERE/../../build/bin/clustersim}")
POINT_S=${2:-0.17}
POINT_ROWS=${3:-137500}
RANKS=${RANKS:-2}
WRITER_RANKS=${WRITER_RANKS:-2 4}
ROWS_PER_POINT=${BENCH_ROWS:-10000}
ROW_POINTS=200
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clustersim_capacity.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
sed "s/^seeds = .*/seeds = 2000/" "$HERE/capacity_grid.toml" >grid.toml
sed "s/^seeds = .*/seeds = $((ROW_POINTS / 2))/" "$HERE/capacity_grid.toml" >rows_grid.toml

# run NAME RANKS GRID SYNTHETIC FLAGS...: one sweep, 1 thread per rank; keeps its stderr.
run() {
  local name=$1 ranks=$2 grid=$3 spec=$4
  shift 4
  rm -rf out.h5*
  CLUSTERSIM_SWEEP_SYNTHETIC=$spec mpirun -np "$ranks" --oversubscribe --bind-to none "$BIN" sweep \
    "$grid" --out out.h5 --threads 1 --progress-interval 1000 "$@" >/dev/null 2>"$name.err"
}
summary() { grep -E '^sweep: [0-9]+ points in' "$1.err"; }
run_us() { summary "$1" | sed -E 's/.*\(run ([0-9.]+), final file ([0-9.]+)\).*/\1/'; }
final_us() { summary "$1" | sed -E 's/.*\(run ([0-9.]+), final file ([0-9.]+)\).*/\2/'; }

echo "capacity benchmark: synthetic points (no simulation) on $(nproc) cores, $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "1. rank 0 while the sweep runs ($RANKS ranks x 1 thread, 4000 points):"
printf "   %-24s %9s %15s\n" results points/s rank0_us/point
run metrics "$RANKS" grid.toml "jobs=0"
run refs "$RANKS" grid.toml "jobs=1" --save-jobs
for name in metrics refs; do
  label=$([ $name = metrics ] && echo "metrics only" || echo "metrics + spool reference")
  awk -v l="$label" -v p="$(summary $name | awk '{print $2}')" -v s="$(summary $name | awk '{print $5}')" \
    -v r="$(run_us $name)" 'BEGIN { printf "   %-24s %9.0f %15.1f\n", l, p / s, r }'
done

echo
echo "2. the final file's /jobs: $ROW_POINTS points x $ROWS_PER_POINT job rows:"
printf "   %-11s %5s %12s %9s %10s %18s %9s\n" writers ranks spool_us/pt final_s rows/s rank0_final_us/pt final_MB
declare -A FINAL_S
for final in serial compress collective; do
  for ranks in $WRITER_RANKS; do
    name=rows_${final}_$ranks
    CLUSTERSIM_SWEEP_FINAL=$final run "$name" "$ranks" rows_grid.toml "jobs=$ROWS_PER_POINT" --save-jobs
    spool_us=$(grep -E "spooled" "$name.err" | sed -E 's/.*, ([0-9.]+) us CPU\/point/\1/' | awk '{s += $1; n++} END {print s / n}')
    final_mb=$(grep -E 'final file' "$name.err" | head -1 | sed -E 's/.*final file ([0-9.]+) MB.*/\1/')
    final_s=$(grep -E 'final file' "$name.err" | head -1 | sed -E 's/.*MB in ([0-9.]+) s.*/\1/')
    FINAL_S[$name]=$final_s
    awk -v f="$final" -v r="$ranks" -v w="$spool_us" -v s="$final_s" -v n="$ROW_POINTS" -v b="$ROWS_PER_POINT" \
      -v u="$(final_us "$name")" -v mb="$final_mb" 'BEGIN {
      printf "   %-11s %5d %12.0f %9.3f %10.3g %18.0f %9.1f\n", f, r, w, s, n * b / s, u, mb }'
  done
done

first=${WRITER_RANKS%% *}
awk -v t="$POINT_S" -v rows="$POINT_ROWS" -v m="$(run_us metrics)" -v r="$(run_us refs)" \
  -v ss="${FINAL_S[rows_serial_$first]}" -v cs="${FINAL_S[rows_collective_$first]}" -v n="$ROW_POINTS" \
  -v b="$ROWS_PER_POINT" -v k="$first" -v c="$(nproc)" -v bpr="${BYTES_PER_ROW:-25}" 'BEGIN {
  serial = n * b / ss                        # rows/s of rank 0 alone (all its cores)
  per_rank = n * b / cs / (k < c ? k : c)    # rows/s of one writing rank (one core)
  extra = rows / per_rank                    # seconds of writing per point, on its rank
  printf "\nfor points of %.3g s and %d job rows on one thread (1 thread per rank):\n", t, rows
  printf "  metrics only: rank 0 saturates at %.0f ranks (%.1f us of its CPU per point)\n", t * 1e6 / m, m
  printf "  --save-jobs:  rank 0 saturates at %.0f ranks (%.1f us per point while the sweep runs);\n", t * 1e6 / r, r
  printf "    the final file written by rank 0 alone (%.3g rows/s) takes as long as the run from %.1f ranks on;\n", serial, t * serial / rows
  printf "    written by every rank (%.3g rows/s each) it adds %.0f%% to the run at any rank count, and\n", per_rank, 100 * extra / t
  printf "    the file system is the cap: %.1f MB/s of compressed rows (%.0f B each) per rank, %.1f GB/s at 1,000 ranks\n",
    rows * bpr / (t + extra) / 1e6, bpr, 1000 * rows * bpr / (t + extra) / 1e9 }'
