#!/usr/bin/env bash
# SIGTERM (single rank) and SIGUSR1 (to mpirun, as Slurm's --signal does) save the points done,
# exit with 75, and --resume finishes the sweep.
source "$(dirname "$0")/common.sh"
GRID=$DATA/slow_grid.toml
POINTS=36

"$BIN" sweep "$GRID" --out s.h5 --threads 2 --progress-interval 0.1 >term.out 2>term.err &
PID=$!
wait_for_points term.err 3 120
kill -TERM $PID
status=0
wait $PID || status=$?
[ "$status" -eq 75 ] || { echo "FAIL: SIGTERM exit status $status, want 75"; cat term.err; exit 1; }
grep -q "saved a partial s.h5" term.out || { echo "FAIL: no partial file message"; cat term.out; exit 1; }
if [ -n "$PYTHON" ]; then
  "$PYTHON" - <<'PY'
import h5py
f = h5py.File("s.h5", "r")
assert f.attrs["complete"] == 0, "partial file marked complete"
n = len(f["points/point_id"])
assert 3 <= n < 36, n
print("partial file holds", n, "points")
PY
fi

"$MPIEXEC" -np 2 --oversubscribe "$BIN" sweep "$GRID" --out s.h5 --resume --threads 1 --progress-interval 0.1 \
  >usr1.out 2>usr1.err &
MPIRUN=$!
sleep 0.5
wait_for_points usr1.err 12 120
kill -USR1 $MPIRUN
status=0
wait $MPIRUN || status=$?
echo "mpirun after SIGUSR1: status $status"
grep -q "stop requested" usr1.err || { echo "FAIL: SIGUSR1 did not stop the sweep"; cat usr1.err; exit 1; }
[ "$status" -eq 75 ] || { echo "FAIL: mpirun after SIGUSR1: exit status $status, want 75"; cat usr1.err; exit 1; }

# SIGTERM and SIGINT under mpirun: Open MPI's mpirun exits 1 on them whatever the ranks do, so
# scripts/mpirun_sweep.sh turns them into SIGUSR1 for it: 75 as on one rank. (Job control on:
# a background job of a script would otherwise start with SIGINT ignored, as Ctrl-C never is.)
set -m
for signal in TERM INT; do
  MPIRUN=$MPIEXEC "$SRC/scripts/mpirun_sweep.sh" -np 2 --oversubscribe -- "$BIN" sweep "$GRID" --out s.h5 \
    --resume --threads 1 --progress-interval 0.1 >wrap$signal.out 2>wrap$signal.err &
  WRAPPER=$!
  sleep 0.5
  wait_for_points wrap$signal.err 1 120
  kill -$signal $WRAPPER
  status=0
  wait $WRAPPER || status=$?
  [ "$status" -eq 75 ] && grep -q "stop requested" wrap$signal.err ||
    { echo "FAIL: mpirun_sweep.sh after SIG$signal: exit status $status, want 75"; cat wrap$signal.err; exit 1; }
  echo "ok mpirun_sweep.sh after SIG$signal: status 75, $(tail -1 wrap$signal.out)"
done
set +m

mpi_sweep 2 "$GRID" --out s.h5 --resume --threads 1 -q
check once s.h5 $POINTS
echo PASS
