#!/usr/bin/env bash
# SIGKILL one rank mid-sweep (argument 4: "worker" = rank 1, "rank0"), rerun with --resume:
# only the missing points run, the file holds every point exactly once, and the metrics equal
# an uninterrupted run's. A changed grid is refused on resume.
source "$(dirname "$0")/common.sh"
VICTIM=${4:-worker}
GRID=$DATA/slow_grid.toml
POINTS=36

"$MPIEXEC" -np 2 --oversubscribe "$BIN" sweep "$GRID" --out r.h5 --threads 1 --progress-interval 0.1 \
  >run1.out 2>run1.err &
MPIRUN=$!
wait_for_points run1.err 4 120
RANK=1
[ "$VICTIM" = rank0 ] && RANK=0
PID=$(rank_pid $MPIRUN $RANK) || { echo "FAIL: rank $RANK not found"; exit 1; }
kill -9 "$PID"
status=0
wait $MPIRUN || status=$?
echo "first run ended with status $status after SIGKILL of rank $RANK"
[ "$status" -ne 0 ] || { echo "FAIL: mpirun succeeded although a rank was killed"; exit 1; }
[ -e r.h5.journal ] || { echo "FAIL: no journal after the kill"; exit 1; }

# Without --resume the leftovers are protected.
status=0
sweep "$GRID" --out r.h5 -q 2>refused.err || status=$?
[ "$status" -eq 2 ] && grep -q -- "--resume" refused.err || { echo "FAIL: existing output not protected"; cat refused.err; exit 1; }

# A changed grid file is refused on resume, before anything runs.
sed 's/seeds = 6/seeds = 7/' "$GRID" >changed.toml
status=0
sweep changed.toml --out r.h5 --resume -q 2>changed.err || status=$?
[ "$status" -eq 2 ] && grep -q "grid file changed" changed.err || { echo "FAIL: changed grid accepted"; cat changed.err; exit 1; }

mpi_sweep 2 "$GRID" --out r.h5 --resume --threads 1 --progress-interval 1000 >run2.out 2>run2.err
grep "resuming" run2.err || { echo "FAIL: resume did not report the points already done"; exit 1; }
ran=$(grep -o '^sweep: [0-9]* points in' run2.err | tr -dc '0-9')
done_before=$(grep -o 'resuming r.h5: [0-9]*' run2.err | grep -o '[0-9]*$')
echo "resume: $done_before points kept, $ran points run"
[ "$done_before" -ge 4 ] && [ $((done_before + ran)) -eq $POINTS ] || { echo "FAIL: resume reran done points"; exit 1; }
check once r.h5 $POINTS
[ ! -e r.h5.journal ] || { echo "FAIL: journal left after completion"; exit 1; }

mpi_sweep 2 "$GRID" --out clean.h5 --threads 1 -q
check same r.h5 clean.h5
echo PASS
