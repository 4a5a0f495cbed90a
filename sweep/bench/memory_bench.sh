#!/usr/bin/env bash
# Peak memory per rank and spool disk of real sweeps, against `clustersim sweep --dry-run --json`'s
# estimate (sweep/README.md, "Sizing"): one line per case,
#   grid ranks x threads options | est_rss_mb meas_rss_mb (each rank) err% (largest rank) |
#   est_spool_mb meas_spool_mb | est_final_mb meas_final_mb | est_cpu_s cpu_s (user + sys, all
#   ranks) | est_wall_s wall_s
# Peak RSS is /usr/bin/time's "Maximum resident set size" of each rank; the spool peak is the
# largest size of the output folder (spools, journal, temporary and final file) polled every
# 0.1 s. A benchmark, not a test: it takes minutes, and its seconds depend on the load.
#   sweep/bench/memory_bench.sh [CLUSTERSIM] [CASE ...]     CASE: GRID:RANKS:THREADS[:FLAGS,...]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
BIN=$(realpath "${1:-$SRC/build/bin/clustersim}")
shift || true
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ $# -eq 0 ]; then
  big=$SRC/tests/slurm/data/grid.toml  # 36 points of 300,000 jobs on 64 GPUs
  default=$SRC/sweep/examples/default/grid.toml
  synergy=$SRC/sweep/examples/synergy/grid.toml
  set -- "$big:2:1" "$big:1:2" "$big:2:1:--save-jobs" "$big:1:1:--save-jobs,--save-timeseries" \
    "$default:2:1" "$default:1:2" "$default:2:1:--save-jobs" "$synergy:2:1" "$synergy:1:2"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clustersim_memory.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
echo "# $(date -u +%FT%TZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $BIN"
echo "# grid ranks x threads options | est_rss_mb meas_rss_mb err% | est_spool_mb meas_spool_mb | est_final_mb meas_final_mb | est_cpu_s cpu_s | est_wall_s wall_s"
mb() { awk -v b="$1" 'BEGIN { if (b == "") print "-"; else printf "%.0f", b / 1e6 }'; }
for case in "$@"; do
  IFS=: read -r grid ranks threads flags <<<"$case"
  IFS=, read -r -a options <<<"${flags:-}"
  out=$WORK/run/o.h5
  rm -rf "$WORK/run" "$WORK"/rss.* && mkdir -p "$WORK/run"
  estimate=$("$BIN" sweep "$grid" --dry-run --json --ranks "$ranks" --threads "$threads" \
    "${options[@]}" 2>/dev/null || true)
  field() { /usr/bin/python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(eval(sys.argv[2]))" "$estimate" "$1" 2>/dev/null || true; }
  start=$(date +%s.%N)
  if [ "$ranks" -eq 1 ]; then
    /usr/bin/time -f "%M %U %S" -o "$WORK/rss.0" "$BIN" sweep "$grid" --out "$out" --threads "$threads" -q \
      "${options[@]}" 2>"$WORK/err" &
  else
    # shellcheck disable=SC2016  # expanded by each rank's shell
    mpirun -np "$ranks" --oversubscribe --bind-to none sh -c \
      '/usr/bin/time -f "%M %U %S" -o "$0/rss.$OMPI_COMM_WORLD_RANK" "$@"' "$WORK" "$BIN" sweep "$grid" \
      --out "$out" --threads "$threads" -q "${options[@]}" 2>"$WORK/err" &
  fi
  pid=$!
  peak=0
  while kill -0 "$pid" 2>/dev/null; do
    size=$(du -sb "$WORK/run" 2>/dev/null | cut -f1 || echo 0)
    [ "${size:-0}" -gt "$peak" ] && peak=$size
    sleep 0.1
  done
  wait "$pid" || { echo "FAIL $case: $(tail -3 "$WORK/err")"; continue; }
  wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  rss=$(cat "$WORK"/rss.* | sort -n | tail -1 | cut -d' ' -f1)  # kB, the largest rank
  cpu=$(cat "$WORK"/rss.* | awk '{ s += $2 + $3 } END { printf "%.1f", s }')
  rss_all=$(cat "$WORK"/rss.* | awk '{ printf "%s%.0f", (NR > 1 ? "/" : ""), $1 / 1000 }')
  est_rss=$(field 'd["memory"]["peak_rss_bytes_per_rank"]')
  err=$(awk -v e="$est_rss" -v m="$rss" 'BEGIN { if (e == "") print "-"; else printf "%+.0f", 100 * (e / 1000 - m) / m }')
  spool="-"
  [ -n "$flags" ] && spool=$(mb "$peak")
  echo "$(basename "$(dirname "$grid")")/$(basename "$grid") ${ranks}x$threads ${flags:-metrics} |" \
    "$(mb "$est_rss") $rss_all $err | $(mb "$(field 'd["disk"]["spool_peak_bytes"]')") $spool |" \
    "$(mb "$(field 'd["disk"]["final_bytes"]')") $(mb "$(stat -c %s "$out")") |" \
    "$(field 'round(d["time"]["cpu_seconds"], 1)') $cpu | $(field 'round(d["time"]["wall_seconds"], 1)') $wall"
done
