#!/usr/bin/env bash
# kill -9 at random moments (issue 13), during the run and during the final HDF5 write: --resume
# always ends with every point exactly once and its content (metrics, and the per-job rows and
# time series that each rank spools itself, issue 27) bit-identical to an uninterrupted sweep;
# a kill during the write leaves no half-written file under the final name; a killed --overwrite
# keeps the previous results until the new file is complete. The random delays come from
# $SEED (printed, so a failure can be replayed with SEED=... in the environment).
source "$(dirname "$0")/common.sh"
SEED=${SEED:-$(date +%s)}
RANDOM=$SEED
echo "random seed $SEED"
sed -e 's/^seeds = .*/seeds = 2/' -e 's/^sample_interval_s = .*/sample_interval_s = 3600/' \
  "$DATA/slow_grid.toml" >grid.toml   # 12 points of ~0.3 s
POINTS=12
ROWS=(--save-jobs --save-timeseries)

# The reference: one uninterrupted sweep, with per-job records so the final write takes a while.
sweep grid.toml --out ref.h5 --threads 2 "${ROWS[@]}" -q
check once ref.h5 $POINTS
[ ! -e ref.h5.rows ] || { echo "FAIL: the row spools outlived a complete sweep"; exit 1; }

resume_to_the_end() {  # OUT: rerun with --resume until the sweep completes
  local out=$1 status
  for attempt in 1 2 3; do
    status=0
    sweep grid.toml --out "$out" --resume --threads 2 "${ROWS[@]}" -q 2>resume.err || status=$?
    [ "$status" -eq 0 ] && return 0
    echo "resume attempt $attempt ended with $status"; cat resume.err
  done
  echo "FAIL: $out did not complete on resume"; exit 1
}

# 1. During the run: kills of rank 0 and of rank 1 (2 ranks) at random moments, each followed by
# --resume: every point once, its rows included, whichever rank spooled them.
for round in 1 2 3; do
  rm -rf run.h5*
  victim=$(((round + 1) % 2))   # 0, 1, 0
  delay_ms=$((300 + RANDOM % 2500))
  [ $victim -eq 1 ] && delay_ms=$((400 + RANDOM % 1000))  # while rank 1 still has work
  "$MPIEXEC" -np 2 --oversubscribe "$BIN" sweep grid.toml --out run.h5 --threads 1 "${ROWS[@]}" -q &
  MPIRUN=$!
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  if PID=$(rank_pid $MPIRUN $victim); then kill -9 "$PID"; fi
  wait $MPIRUN || true
  echo "round $round: killed rank $victim after ${delay_ms} ms; left: $(ls -d run.h5* 2>/dev/null | tr '\n' ' ')"
  if [ -e run.h5.journal ] && [ -n "$PYTHON" ]; then
    # A snapshot of the killed sweep reads the rows its ranks spooled: every point it holds has
    # all its job rows.
    "$BIN" snapshot run.h5 --out snap.h5 --overwrite -q
    "$PYTHON" - snap.h5 <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
ids, jobs = f["points/point_id"][()], f["points/jobs"][()]
rows = np.bincount(f["jobs/point_id"][()], minlength=int(ids.max(initial=0)) + 1) if len(ids) else []
assert all(rows[i] == j for i, j in zip(ids, jobs)), "snapshot rows differ from the points' jobs"
print(f"snapshot ok: {len(ids)} points, {int(sum(jobs))} job rows")
PY
  fi
  resume_to_the_end run.h5
  check once run.h5 $POINTS
  check identical ref.h5 run.h5
  [ ! -e run.h5.rows ] || { echo "FAIL: the row spools outlived the completed resume"; exit 1; }
done

# 2. During the final HDF5 write: kill -9 as soon as the temporary appears (plus 0-40 ms).
write_kill() {  # OUT EXTRA_FLAGS...: runs a sweep and kills it inside its final write
  local out=$1
  shift
  "$BIN" sweep grid.toml --out "$out" --threads 2 "${ROWS[@]}" -q "$@" &
  local pid=$! waited=0
  until compgen -G "$out.tmp.*" >/dev/null; do
    sleep 0.002
    waited=$((waited + 1))
    if ! kill -0 $pid 2>/dev/null; then echo "FAIL: the sweep ended before its final write was seen"; exit 1; fi
    [ $waited -lt 60000 ] || { echo "FAIL: no temporary file appeared"; exit 1; }
  done
  local name
  name=$(compgen -G "$out.tmp.*")
  [ "$name" = "$out.tmp.$(hostname).$pid" ] || { echo "FAIL: temporary $name is not $out.tmp.HOST.PID"; exit 1; }
  sleep "0.0$((RANDOM % 40))"
  kill -9 $pid
  wait $pid || true
}

for round in 1 2; do
  rm -rf write.h5*
  write_kill write.h5
  echo "write round $round: left $(ls write.h5* | tr '\n' ' ')"
  if [ -e write.h5 ]; then
    # The rename was reached before the kill: the file must then be whole.
    check once write.h5 $POINTS
  fi
  resume_to_the_end write.h5
  check once write.h5 $POINTS
  check identical ref.h5 write.h5
  if compgen -G "write.h5.tmp*" >/dev/null; then echo "FAIL: a stale temporary survived the resume"; exit 1; fi
done

# 2b/2c. On 2 ranks, kill -9 of rank 1 inside its part of the final write: MODE collective (the
# ranks write the row tables together through MPI-IO; by default from 16 ranks on) or compress
# (the default: rank 0 writes the skeleton, rank 1 compresses the row tables and writes them in).
rank1_write_kill() {  # MODE OUT
  local mode=$1 out=$2 mpirun waited=0
  rm -rf "$out"*
  CLUSTERSIM_SWEEP_FINAL=$mode "$MPIEXEC" -np 2 --oversubscribe "$BIN" sweep grid.toml --out "$out" \
    --threads 1 "${ROWS[@]}" -q &
  mpirun=$!
  until compgen -G "$out.tmp.*" >/dev/null || ! kill -0 $mpirun 2>/dev/null; do
    sleep 0.002
    waited=$((waited + 1))
    [ $waited -lt 60000 ] || { echo "FAIL: no temporary file appeared"; exit 1; }
  done
  sleep "0.0$((RANDOM % 40))"
  local pid
  if pid=$(rank_pid $mpirun 1); then kill -9 "$pid"; fi
  wait $mpirun || true
  echo "$mode write: killed rank 1; left: $(ls -d "$out"* 2>/dev/null | tr '\n' ' ')"
  resume_to_the_end "$out"
  check once "$out" $POINTS
  check identical ref.h5 "$out"
  if compgen -G "$out.tmp*" >/dev/null; then echo "FAIL: a stale temporary survived the resume"; exit 1; fi
}
rank1_write_kill collective coll.h5
rank1_write_kill compress comp.h5

# 3. --overwrite killed during its final write keeps the previous file untouched.
cp ref.h5 over.h5
before=$(md5sum <over.h5)
write_kill over.h5 --overwrite
if [ "$(md5sum <over.h5)" = "$before" ]; then
  echo "overwrite killed in its write: previous file kept"
else
  # The kill came after the rename: the file in place must be the new, complete one.
  check once over.h5 $POINTS
  echo "overwrite killed after its rename: the new file is whole"
fi
resume_to_the_end over.h5
check once over.h5 $POINTS
check identical ref.h5 over.h5
echo PASS
