#!/usr/bin/env bash
# One writer per result file (issue 13: two sweeps on one --out both ran, both exited 0, and a
# later resume recovered 0 of ~116 points). While a sweep runs, every second sweep on the same
# --out exits 4 at once, naming the holder, whatever the flags (--resume, none, --overwrite,
# another grid) and whichever started with --resume; the first finishes a correct file. (It is
# paused with SIGSTOP while the others try, so it cannot finish early on a fast machine.) A lock
# left by a sweep killed with -9 is taken over by the next --resume.
source "$(dirname "$0")/common.sh"
cp "$DATA/slow_grid.toml" grid.toml   # 36 points of ~0.3 s: time for the second sweeps
sed 's/^seeds = .*/seeds = 3/' grid.toml >other.toml
POINTS=36

expect_busy() {  # NAME HOLDER_PID COMMAND...: the command exits 4 and names the holder
  local name=$1 holder=$2
  shift 2
  local status=0 started=$SECONDS
  "$@" >"$name.out" 2>"$name.err" || status=$?
  [ "$status" -eq 4 ] || { echo "FAIL $name: exit status $status, want 4"; cat "$name.err"; exit 1; }
  grep -q "another sweep is writing this result file (host $(hostname), pid $holder, started " "$name.err" ||
    { echo "FAIL $name: the message does not name the holder (pid $holder)"; cat "$name.err"; exit 1; }
  [ $((SECONDS - started)) -le 10 ] || { echo "FAIL $name: took $((SECONDS - started)) s to refuse"; exit 1; }
  echo "ok $name: refused with 4"
}

# Order 1: the first sweep has no --resume; the second comes with and without it.
"$BIN" sweep grid.toml --out c.h5 --threads 1 --progress-interval 0.1 >a.out 2>a.err &
A=$!
wait_for_points a.err 2 120
kill -STOP $A  # holds the lock, but cannot finish while the second sweeps try
expect_busy resume_while_running $A sweep grid.toml --out c.h5 --resume -q
expect_busy plain_while_running $A sweep grid.toml --out c.h5 -q
expect_busy overwrite_while_running $A sweep grid.toml --out c.h5 --overwrite -q
expect_busy other_grid_while_running $A sweep other.toml --out c.h5 --resume -q
expect_busy two_ranks_while_running $A mpi_sweep 2 grid.toml --out c.h5 --resume -q
kill -CONT $A
wait $A
check once c.h5 $POINTS
for leftover in c.h5.journal c.h5.lock; do
  [ ! -e "$leftover" ] || { echo "FAIL: $leftover left after a complete sweep"; exit 1; }
done

# Order 2: the first sweep runs on 2 ranks with --resume (as batch scripts do); the second
# without, then with it. Then the first is killed with -9 (its lock file stays behind, unlocked).
"$MPIEXEC" -np 2 --oversubscribe "$BIN" sweep grid.toml --out d.h5 --resume --threads 1 \
  --progress-interval 0.1 >b.out 2>b.err &
MPIRUN=$!
wait_for_points b.err 2 120
RANK0=$(rank_pid $MPIRUN 0) || { echo "FAIL: rank 0 not found"; exit 1; }
kill -STOP "$RANK0"
expect_busy plain_while_resuming "$RANK0" sweep grid.toml --out d.h5 -q
expect_busy resume_while_resuming "$RANK0" sweep grid.toml --out d.h5 --resume -q
kill -9 "$RANK0"
wait $MPIRUN || true
[ -e d.h5.lock ] || { echo "FAIL: no lock file left by the killed sweep (test setup)"; exit 1; }
grep -q "pid $RANK0," d.h5.lock || { echo "FAIL: the lock file does not name its holder"; cat d.h5.lock; exit 1; }
sweep grid.toml --out d.h5 --resume --threads 2 >c.out 2>c.err
grep -q "took over the lock of a sweep that is no longer running (host $(hostname), pid $RANK0," c.err ||
  { echo "FAIL: the stale lock was not reported as taken over"; cat c.err; exit 1; }
check once d.h5 $POINTS
check same c.h5 d.h5
[ ! -e d.h5.lock ] || { echo "FAIL: lock file left after the resumed sweep"; exit 1; }
echo PASS
