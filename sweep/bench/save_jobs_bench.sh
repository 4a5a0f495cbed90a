#!/usr/bin/env bash
# Issue 27's measurement: 2 ranks x 1 thread on the 1,024-GPU grid (philly1024_grid.toml), with
# and without --save-jobs, for two builds (old and new), interleaved round by round so that load
# from other processes hits them alike. One line per run:
#   build output wall_s rank0_us_per_point rank0_run_us_per_point time_wall user sys maxrss_kb file_bytes
# (wall_s, rank0_*: the sweep's own summary line; rank0_run is absent in builds before issue 27;
# time_*: /usr/bin/time of mpirun and its ranks).
#   sweep/bench/save_jobs_bench.sh OLD_CLUSTERSIM NEW_CLUSTERSIM [ROUNDS]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OLD=$(realpath "$1")
NEW=$(realpath "$2")
ROUNDS=${3:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clustersim_save_jobs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
echo "# $(date -u +%FT%TZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for ((round = 0; round < ROUNDS; round++)); do
  for build in old new; do
    bin=$OLD
    [ $build = new ] && bin=$NEW
    for flags in "" --save-jobs; do
      rm -rf o.h5*
      # shellcheck disable=SC2086
      /usr/bin/time -f "TIME %e %U %S %M" mpirun -np 2 --oversubscribe --bind-to none "$bin" sweep \
        "$HERE/philly1024_grid.toml" --out o.h5 --threads 1 $flags --progress-interval 1000 >/dev/null 2>err.txt
      line=$(grep -E '^sweep: [0-9]+ points in' err.txt)
      echo "$build ${flags:-metrics} $(echo "$line" | awk '{print $5}')" \
        "$(echo "$line" | sed -E 's/.* ([0-9.]+) us CPU\/point.*/\1/')" \
        "$(echo "$line" | grep -o '(run [0-9.]*' | tr -dc '0-9.' || true)" \
        "$(grep TIME err.txt | cut -d' ' -f2-) $(stat -c %s o.h5)"
    done
  done
done
