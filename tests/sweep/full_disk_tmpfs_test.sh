#!/usr/bin/env bash
# A really full disk (issue 45): a 2 MB tmpfs, filled up but for a few KB, under the result
# file's folder. The final HDF5 file, the journal and a merge each run out of space: every time
# the command exits 1 (never 139: no HDF5 file may stay open into MPI_Finalize or exit), says in
# one line which file and "No space left on device", leaves no result or temporary file and no
# lock, and keeps the journal; once space is freed, --resume (or the merge again) gives the
# content of a clean run. Mounting needs root: elsewhere the test is skipped (exit 77).
source "$(dirname "$0")/common.sh"
FULL=$WORK/full
mkdir -p "$FULL"
if ! mount -t tmpfs -o size=2m tmpfs "$FULL" 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs here (needs root)"
  exit 77
fi
trap 'umount "$FULL" 2>/dev/null; rm -rf "$WORK"' EXIT
GRID=$DATA/small_grid.toml
POINTS=48

# Leaves $1 bytes free on the tmpfs (tmpfs counts whole pages).
fill_but() {
  rm -f "$FULL/filler"
  local free
  free=$(df -B1 --output=avail "$FULL" | tail -1)
  fallocate -l $((free - $1)) "$FULL/filler"
}
# $1: what ran, $2: its exit status, $3: its stderr, $4: the file the message must name.
expect_no_space() {
  cat "$3"
  [ "$2" -eq 1 ] || { echo "FAIL: $1 on a full disk exited $2, want 1 (139: a crash)"; exit 1; }
  grep -q "error: .*$4.*No space left on device" "$3" ||
    { echo "FAIL: $1: no one-line error naming $4 and 'No space left on device'"; exit 1; }
  [ "$(grep -c . "$3")" -eq 1 ] || { echo "FAIL: $1: the error is not one line"; exit 1; }
  if ls "$FULL" | grep -q '\.tmp'; then echo "FAIL: $1 left a temporary: $(ls "$FULL")"; exit 1; fi
  if ls "$FULL" | grep -q '\.lock$'; then echo "FAIL: $1 left its lock"; exit 1; fi
}

sweep "$GRID" --out ref.h5 --threads 1 -q

# 1. The final file: room for the journal (~35 KB for these points), not for the file (~85 KB).
fill_but $((60 * 1024))
status=0
sweep "$GRID" --out "$FULL/nf.h5" --threads 1 -q 2>final.err || status=$?
expect_no_space "a sweep writing its result file" "$status" final.err "$FULL/nf.h5"
[ ! -e "$FULL/nf.h5" ] || { echo "FAIL: a result file was left"; exit 1; }
[ -e "$FULL/nf.h5.journal" ] || { echo "FAIL: the journal is gone"; exit 1; }
# Still full: --resume fails the same way, and keeps the journal again.
status=0
sweep "$GRID" --out "$FULL/nf.h5" --resume --threads 1 -q 2>final2.err || status=$?
expect_no_space "a resumed sweep writing its result file" "$status" final2.err "$FULL/nf.h5"
rm -f "$FULL/filler"
sweep "$GRID" --out "$FULL/nf.h5" --resume --threads 1 -q
check once "$FULL/nf.h5" $POINTS
check identical ref.h5 "$FULL/nf.h5"
rm -f "$FULL"/nf.h5*

# 2. The journal: a few KB, full before the sweep ends.
fill_but $((8 * 1024))
status=0
sweep "$GRID" --out "$FULL/nj.h5" --threads 1 -q 2>journal.err || status=$?
expect_no_space "a sweep writing its journal" "$status" journal.err "$FULL/nj.h5.journal"
rm -f "$FULL/filler"
sweep "$GRID" --out "$FULL/nj.h5" --resume --threads 1 -q
check once "$FULL/nj.h5" $POINTS
check identical ref.h5 "$FULL/nj.h5"
rm -f "$FULL"/nj.h5*

# 3. Merge into the nearly full folder.
sweep "$GRID" --out part0.h5 --shard 0/2 --threads 1 -q
sweep "$GRID" --out part1.h5 --shard 1/2 --threads 1 -q
fill_but $((40 * 1024))
status=0
"$BIN" merge "$FULL/m.h5" part0.h5 part1.h5 --quiet 2>merge.err || status=$?
expect_no_space "merge" "$status" merge.err "$FULL/m.h5"
[ ! -e "$FULL/m.h5" ] || { echo "FAIL: merge left a result file"; exit 1; }
rm -f "$FULL/filler"
"$BIN" merge "$FULL/m.h5" part0.h5 part1.h5 --quiet
check identical ref.h5 "$FULL/m.h5"
rm -f "$FULL"/m.h5*

# 4. Two ranks, the final file: rank 0 fails it and stops the job (MPI_Abort: exit 1).
fill_but $((60 * 1024))
status=0
mpi_sweep 2 "$GRID" --out "$FULL/n2.h5" --threads 1 -q 2>two.err || status=$?
cat two.err
[ "$status" -eq 1 ] || { echo "FAIL: 2 ranks on a full disk exited $status, want 1"; exit 1; }
grep -q "error: .*$FULL/n2.h5.*No space left on device" two.err ||
  { echo "FAIL: 2 ranks: no error naming the file and 'No space left on device'"; exit 1; }
[ ! -e "$FULL/n2.h5" ] && [ -e "$FULL/n2.h5.journal" ] || { echo "FAIL: 2 ranks: file or journal"; exit 1; }
rm -f "$FULL/filler"
mpi_sweep 2 "$GRID" --out "$FULL/n2.h5" --resume --threads 1 -q
check identical ref.h5 "$FULL/n2.h5"
echo PASS
