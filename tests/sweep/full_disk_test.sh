#!/usr/bin/env bash
# A disk that fills up while a sweep writes its per-job rows (issue 27). The file-size limit
# (ulimit -f, 20 MB, with SIGXFSZ ignored; MPI's own start-up files need a few MB) fails write()
# the way a full disk does: the sweep stops with
# status 1 and an error naming the row spool, leaves no result file, keeps its journal; once
# there is room, --resume finishes it with content identical to an uninterrupted sweep.
source "$(dirname "$0")/common.sh"
sed -e 's/^seeds = .*/seeds = 1/' -e 's/^sample_interval_s = .*/sample_interval_s = 3600/' \
  "$DATA/slow_grid.toml" >grid.toml   # 6 points of 60,000 jobs: ~9 MB of spooled rows each
GRID=grid.toml
POINTS=6
ROWS=(--save-jobs --save-timeseries)
sweep "$GRID" --out ref.h5 --threads 1 "${ROWS[@]}" -q

status=0
(trap '' XFSZ; ulimit -f 20000; exec "$BIN" sweep "$GRID" --out f.h5 --threads 1 "${ROWS[@]}" -q) \
  2>full.err || status=$?
cat full.err
[ "$status" -eq 1 ] || { echo "FAIL: exit status $status on a full disk, want 1"; exit 1; }
grep -q "f.h5.rows/s1.r0: cannot write the row spool" full.err ||
  { echo "FAIL: the error does not name the spool"; exit 1; }
grep -q "rerun with --resume" full.err || { echo "FAIL: the error does not say how to go on"; exit 1; }
[ ! -e f.h5 ] || { echo "FAIL: a result file was left by the failed sweep"; exit 1; }
[ -e f.h5.journal ] || { echo "FAIL: no journal kept"; exit 1; }

sweep "$GRID" --out f.h5 --resume --threads 1 "${ROWS[@]}" -q
check once f.h5 $POINTS
check identical ref.h5 f.h5
[ ! -e f.h5.rows ] && [ ! -e f.h5.journal ] || { echo "FAIL: spools or journal left"; exit 1; }
echo PASS
