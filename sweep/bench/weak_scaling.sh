#!/usr/bin/env bash
# Weak scaling (issue 27): the same work per rank (6 points of the 1,024-GPU Philly grid,
# philly1024_grid.toml with seeds = ranks) at 1, 2, 4, 8 ranks x 1 thread, without and with
# --save-jobs. On a machine with fewer cores than ranks the ranks share them, so the table also
# gives the efficiency against the cores: T(1) x max(1, ranks / cores) / T(ranks).
#   sweep/bench/weak_scaling.sh [build/bin/clustersim] [RANKS...]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(realpath "${1:-$HERE/../../build/bin/clustersim}")
shift || true
RANK_COUNTS=("${@:-1 2 4 8}")
read -r -a RANK_COUNTS <<<"${RANK_COUNTS[*]}"
LAUNCH=${LAUNCH:-mpirun --oversubscribe --bind-to none -np}   # Slurm: LAUNCH="srun --mpi=pmix -n"
CORES=${CORES:-$(nproc)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clustersim_weak.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

echo "weak scaling: $(basename "$BIN") on $CORES cores, 6 points per rank, $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-10s %5s %6s %9s %9s %9s %13s %15s %10s\n" output ranks points seconds eff eff_cores rank0_run_us rank0_final_us file_MB
for flags in "" "--save-jobs"; do
  base=""
  for ranks in "${RANK_COUNTS[@]}"; do
    sed "s/^seeds = .*/seeds = $ranks/" "$HERE/philly1024_grid.toml" >grid.toml
    rm -rf out.h5*
    # shellcheck disable=SC2086
    $LAUNCH "$ranks" "$BIN" sweep grid.toml --out out.h5 --threads 1 --progress-interval 1000 $flags \
      >/dev/null 2>err.txt
    line=$(grep -E '^sweep: [0-9]+ points in' err.txt)
    points=$(echo "$line" | awk '{print $2}')
    seconds=$(echo "$line" | awk '{print $5}')
    run_us=$(echo "$line" | sed -E 's/.*\(run ([0-9.]+), final file ([0-9.]+)\).*/\1/')
    final_us=$(echo "$line" | sed -E 's/.*\(run ([0-9.]+), final file ([0-9.]+)\).*/\2/')
    [ -z "$base" ] && base=$seconds
    awk -v f="${flags:-metrics}" -v r="$ranks" -v p="$points" -v s="$seconds" -v b="$base" -v c="$CORES" \
      -v ru="$run_us" -v fu="$final_us" -v mb="$(stat -c %s out.h5)" 'BEGIN {
      share = r > c ? r / c : 1
      printf "%-10s %5d %6d %9.3f %9.2f %9.2f %13.1f %15.1f %10.1f\n", f, r, p, s, b / s, b * share / s, ru, fu, mb / 1e6 }'
  done
done
