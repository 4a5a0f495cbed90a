#!/usr/bin/env bash
# The same grid gives bit-identical metrics with 1 or 2 ranks and 1 or 2 threads per rank, and
# the file reads back with h5py/pandas in the documented schema.
source "$(dirname "$0")/common.sh"
GRID=$DATA/small_grid.toml
POINTS=48
sweep "$GRID" --out r1t1.h5 --threads 1 -q
sweep "$GRID" --out r1t2.h5 --threads 2 -q --save-jobs --save-timeseries
mpi_sweep 2 "$GRID" --out r2t1.h5 --threads 1 -q
mpi_sweep 2 "$GRID" --out r2t2.h5 --threads 2 -q --max-chunk 3
check schema r1t1.h5 $POINTS
check schema r1t2.h5 $POINTS --jobs --timeseries
check schema r2t2.h5 $POINTS
check same r1t1.h5 r1t2.h5
check same r1t1.h5 r2t1.h5
check same r1t1.h5 r2t2.h5
[ ! -e r2t2.h5.journal ] || { echo "FAIL: journal left after a complete sweep"; exit 1; }
echo PASS
