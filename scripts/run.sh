#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build, and run the built-in default
# sweep (every policy x 3 loads x 2 seeds; sweep/examples/default/grid.toml) on 2 MPI ranks,
# printing a per-policy summary. Results: out/default.h5. Extra arguments go to the sweep.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
mkdir -p out
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
exec mpirun -np 2 --oversubscribe build/bin/clustersim sweep --out out/default.h5 --overwrite "$@"
