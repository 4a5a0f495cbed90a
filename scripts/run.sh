#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build, and run the built-in default
# sweep (1,024 GPUs in Philly's 11 VCs, every policy x loads 0.3-0.75 x 5 seeds, measured in
# steady state; sweep/examples/default/grid.toml) on 2 MPI ranks,
# printing a per-policy summary, then write its report (tables with confidence intervals, plots,
# index.html) and print the report's path. Results: out/default.h5, out/default_report/.
# Extra arguments go to the sweep (a grid file, flags).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
mkdir -p out
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mpirun -np 2 --oversubscribe build/bin/clustersim sweep --out out/default.h5 --overwrite \
  --save-jobs --save-timeseries "$@"
# The default grid compares every policy with FIFO; another grid (arguments) gets no baseline.
baseline=()
[ $# -eq 0 ] && baseline=(--baseline fifo)
build/bin/clustersim-analyze out/default.h5 --out out/default_report --overwrite "${baseline[@]}"
