#!/usr/bin/env bash
# Merging an array's shards whatever their status (issue 45, part 3): shards with failed points
# merge into the file the one-job sweep writes, and the merge exits 3 as that sweep does (with the
# same summary line); a shard stopped halfway, or one whose file is not written yet, is refused
# with exit 2 and named, and nothing is written.
# shellcheck disable=SC2015  # `A && B || { ...; exit 1; }`: the failure branch exits
source "$(dirname "$0")/common.sh"

# Jobs that need more than the 8 GPUs of a node fail their point at run time: the points with
# gpus_per_node = 8 fail, those with 32 succeed (2 of 4, as exit_codes_test.sh checks unsharded).
cp "$DATA/some_fail_grid.toml" some_fail.toml
status=0
sweep some_fail.toml --out full.h5 -q 2>full.err || status=$?
[ "$status" -eq 3 ] && grep -q "^sweep: 2 of 4 points failed" full.err ||
  { echo "FAIL: one-job sweep: status $status, want 3"; cat full.err; exit 1; }
shard_statuses=""
for k in 0 1; do
  status=0
  sweep some_fail.toml --shard $k/2 --out part$k.h5 -q 2>part$k.err || status=$?
  shard_statuses="$shard_statuses $status"
  [ -e part$k.h5 ] || { echo "FAIL: shard $k wrote no file"; cat part$k.err; exit 1; }
done
case $shard_statuses in *3*) ;; *) echo "FAIL: no shard had failed points:$shard_statuses"; exit 1 ;; esac

status=0
"$BIN" merge merged.h5 part1.h5 part0.h5 >merge.out 2>merge.err || status=$?
[ "$status" -eq 3 ] || { echo "FAIL: merge of shards with failed points: status $status, want 3"; cat merge.err; exit 1; }
grep -q "merged 2 files into merged.h5 (4 of 4 points)" merge.out || { echo "FAIL: merge output"; cat merge.out; exit 1; }
# The same line as the one-job sweep's (which exit_codes_test.sh checks), prefixed.
[ "$(cat merge.err)" = "clustersim merge: $(cat full.err)" ] ||
  { echo "FAIL: merge's failure line"; cat merge.err full.err; exit 1; }
check identical full.h5 merged.h5
# Under -q the failures are still told, on one line.
status=0
"$BIN" merge -q --overwrite merged.h5 part0.h5 part1.h5 >quiet.out 2>quiet.err || status=$?
[ "$status" -eq 3 ] && [ ! -s quiet.out ] && [ "$(wc -l <quiet.err)" -eq 1 ] ||
  { echo "FAIL: -q merge: status $status"; cat quiet.out quiet.err; exit 1; }

# A shard stopped halfway (SIGTERM saves a partial file marked complete = 0): refused, named.
GRID=$DATA/slow_grid.toml
sweep "$GRID" --shard 0/2 --out slow0.h5 --threads 2 -q
"$BIN" sweep "$GRID" --shard 1/2 --out slow1.h5 --threads 2 --progress-interval 0.1 >term.out 2>term.err &
PID=$!
wait_for_points term.err 2 120
kill -TERM $PID
status=0
wait $PID || status=$?
[ "$status" -eq 75 ] || { echo "FAIL: SIGTERM exit status $status, want 75"; cat term.err; exit 1; }
status=0
"$BIN" merge slow.h5 slow0.h5 slow1.h5 2>partial.err || status=$?
[ "$status" -eq 2 ] && [ ! -e slow.h5 ] &&
  grep -q "slow1.h5 (shard 1/2) holds [0-9]* of its 18 points: finish it with the same \`clustersim sweep ... --shard 1/2 --resume\`" partial.err ||
  { echo "FAIL: partial shard not refused by name (status $status)"; cat partial.err; exit 1; }

# A shard whose sweep left only its journal (killed before its first save): refused, named.
mv slow1.h5 kept1.h5
status=0
"$BIN" merge slow.h5 slow0.h5 slow1.h5 2>journal.err || status=$?
if [ -e slow1.h5.journal ]; then
  [ "$status" -eq 2 ] && [ ! -e slow.h5 ] &&
    grep -q "^clustersim merge: error: slow1.h5: not written yet: its sweep was interrupted or is still running (slow1.h5.journal exists)" journal.err ||
    { echo "FAIL: shard with only a journal (status $status)"; cat journal.err; exit 1; }
else
  echo "(no journal left by SIGTERM: checked an absent shard instead)"
  [ "$status" -eq 2 ] && [ ! -e slow.h5 ] && grep -q "slow1.h5: no such file" journal.err ||
    { echo "FAIL: absent shard (status $status)"; cat journal.err; exit 1; }
fi
echo PASS
