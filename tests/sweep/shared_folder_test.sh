#!/usr/bin/env bash
# Shared folders (issue 45). (1) The sweep's files follow the umask: with umask 002 the lock,
# journal, rows folder and spools, and the result file are group-writable (664, 775), with 022
# they are not. (2) Another user's sweep on the same --out (a 1777 folder, the lock file not
# writable for us) is reported as busy, exit 4, naming its user, host, pid and Slurm job.
# A teammate resumes a sweep stopped in a group folder (setgid, 2775).
# (3) --overwrite of another user's file in a sticky folder is refused before any point runs
# (exit 2), with nothing left behind. The other user is `nobody` (setpriv): the test needs root
# and is skipped (77) elsewhere.
source "$(dirname "$0")/common.sh"
GRID=$DATA/slow_grid.toml
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1; then
  echo "SKIP: needs root, setpriv and a user nobody"
  exit 77
fi
as_nobody() { HOME=$SHARED setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
mode() { stat -c %a "$1"; }
chmod 755 "$WORK"
SHARED=$WORK/shared
mkdir "$SHARED"
chmod 1777 "$SHARED"
GROUP=$WORK/group   # a team's folder: group nogroup, setgid, group-writable
mkdir "$GROUP"
chgrp nogroup "$GROUP"
chmod 2775 "$GROUP"

# (1) umask 002, stopped halfway (SIGTERM) so that journal, rows and partial file all exist.
(umask 002; exec "$BIN" sweep "$GRID" --out "$GROUP/g.h5" --threads 1 --save-jobs \
  --progress-interval 0.1 >g.out 2>g.err) &
PID=$!
wait_for_points g.err 2 120
[ "$(mode "$GROUP/g.h5.lock")" = 664 ] || { echo "FAIL: lock is $(mode "$GROUP/g.h5.lock") under umask 002"; exit 1; }
kill -TERM $PID
status=0
wait $PID || status=$?
[ "$status" -eq 75 ] || { echo "FAIL: SIGTERM gave $status"; cat g.err; exit 1; }
for file in g.h5 g.h5.journal g.h5.rows/s1.r0; do
  [ "$(mode "$GROUP/$file")" = 664 ] || { echo "FAIL: $file is $(mode "$GROUP/$file") under umask 002, want 664"; exit 1; }
done
# (2775: the setgid bit of the folder is inherited by the rows folder.)
[ "$(mode "$GROUP/g.h5.rows")" = 2775 ] || { echo "FAIL: the rows folder is $(mode "$GROUP/g.h5.rows")"; exit 1; }
# A teammate (nobody, in the folder's group; the files are group-, not world-writable) resumes it.
as_nobody "$BIN" sweep "$GRID" --out "$GROUP/g.h5" --resume --threads 2 --save-jobs -q ||
  { echo "FAIL: a group member could not resume the sweep"; exit 1; }
check once "$GROUP/g.h5" 36
[ ! -e "$GROUP/g.h5.journal" ] && [ ! -e "$GROUP/g.h5.rows" ] || { echo "FAIL: journal or rows left"; exit 1; }
# umask 022: as before, 644.
(umask 022; exec "$BIN" sweep "$DATA/small_grid.toml" --out "$SHARED/u.h5" --threads 2 -q)
[ "$(mode "$SHARED/u.h5")" = 644 ] || { echo "FAIL: u.h5 is $(mode "$SHARED/u.h5") under umask 022"; exit 1; }

# (2) Root's sweep runs (umask 022: its lock file is 644, not writable for nobody), inside a
# Slurm array task; nobody's sweep on the same --out is busy.
(umask 022; SLURM_JOB_ID=4243 SLURM_ARRAY_JOB_ID=4242 SLURM_ARRAY_TASK_ID=1 \
  exec "$BIN" sweep "$GRID" --out "$SHARED/r.h5" --threads 1 --progress-interval 0.1 >r.out 2>r.err) &
PID=$!
wait_for_points r.err 1 120
status=0
as_nobody "$BIN" sweep "$GRID" --out "$SHARED/r.h5" --resume -q 2>busy.err || status=$?
cat busy.err
[ "$status" -eq 4 ] || { echo "FAIL: another user's running sweep gave exit $status, want 4"; exit 1; }
grep -q "another sweep is writing this result file (host $(hostname), pid $PID, started .*, user root, Slurm job 4242_1: " busy.err ||
  { echo "FAIL: the holder (user, host, pid, Slurm job) is not named"; exit 1; }
kill -TERM $PID
wait $PID || true
"$BIN" sweep "$GRID" --out "$SHARED/r.h5" --resume --threads 2 -q

# (3) nobody's --overwrite of root's finished r.h5 in the sticky folder: refused at once.
before=$(ls -a "$SHARED" | tr '\n' ' ')
status=0
as_nobody "$BIN" sweep "$GRID" --out "$SHARED/r.h5" --overwrite --progress-interval 0.1 2>over.err || status=$?
cat over.err
[ "$status" -eq 2 ] || { echo "FAIL: --overwrite of another user's file in a sticky folder gave $status, want 2"; exit 1; }
grep -q "cannot replace $SHARED/r.h5: it belongs to user root and its folder $SHARED is sticky" over.err ||
  { echo "FAIL: the refusal does not say why"; exit 1; }
if grep -q "sweep: [0-9]*/" over.err; then echo "FAIL: points ran before the refusal"; exit 1; fi
[ "$(ls -a "$SHARED" | tr '\n' ' ')" = "$before" ] || { echo "FAIL: the refused --overwrite left files: $(ls -a "$SHARED")"; exit 1; }
echo PASS
