#!/usr/bin/env bash
# Exit statuses that tell the truth (issue 13: a sweep whose every point failed printed nothing
# under -q and exited 0; a huge `seeds` wrapped into a smaller grid; --threads 0 printed a
# 300-digit bound; --overwrite deleted the old results before anything ran).
#   0 every point succeeded; 2 bad input, nothing ran; 3 the file is written but some points
#   failed (one summary line on stderr, even under -q); 4 another sweep holds --out (see
#   concurrency_test.sh); 75 interrupted, resumable.
source "$(dirname "$0")/common.sh"

expect_status() {  # NAME WANT COMMAND...
  local name=$1 want=$2
  shift 2
  local status=0
  "$@" >"$name.out" 2>"$name.err" || status=$?
  [ "$status" -eq "$want" ] || { echo "FAIL $name: exit status $status, want $want"; cat "$name.err"; exit 1; }
  echo "ok $name: exit $status"
}

printf 'job_id,submit_time,num_gpus,duration\na,0,2,100\nb,10,16,50\n' >jobs.csv
cat >trace_fail.toml <<'EOF'
[cluster]
nodes = 1
gpus_per_node = 8

[workload]
trace = "jobs.csv"

[scheduler]
placement = "random"

[sweep]
"scheduler.policy" = ["fifo", "las"]
seeds = 2
EOF
sed 's/^gpus_per_node = 8/gpus_per_node = 16/' trace_fail.toml >all_ok.toml

# A trace job that can never fit the cluster is refused before any point runs (issue 28), as
# `clustersim run` refuses it: exit 2, naming the trace's line and field, and nothing written.
expect_status trace_fail 2 sweep trace_fail.toml --out trace.h5 -q
grep -q "^clustersim sweep: error: jobs.csv:3: field 'num_gpus': job 'b' (trace line 3) can never run: it needs 16 GPUs, the cluster has 8 of any one type (the trace of grid point 0 of trace_fail.toml)" trace_fail.err ||
  { echo "FAIL: impossible trace job message"; cat trace_fail.err; exit 1; }
for leftover in trace.h5 trace.h5.journal trace.h5.rows; do
  [ ! -e "$leftover" ] || { echo "FAIL: $leftover left behind"; exit 1; }
done
# Seeds over a fixed trace with nothing random would be the same run twice: refused, naming
# the grid's seeds line.
sed '/^placement = /d' all_ok.toml >pseudo.toml
expect_status pseudo 2 sweep pseudo.toml --out pseudo.h5 -q
grep -q "^clustersim sweep: error: pseudo.toml:12: field 'sweep.seeds': every configuration replays a fixed trace with nothing random" pseudo.err ||
  { echo "FAIL: pseudo-replicate message"; cat pseudo.err; exit 1; }
[ ! -e pseudo.h5 ] || { echo "FAIL: pseudo.h5 written"; exit 1; }

# Jobs of a generated workload that cannot fit fail their points at run time: every point fails,
# exit 3, the file is written, and under -q the one line says how many and why.
cat >all_fail.toml <<'EOF'
[cluster]
nodes = 1
gpus_per_node = 8

[workload]
generator = "philly"
jobs = 300

[metrics]
steady_state = "off"

[sweep]
"scheduler.policy" = ["fifo", "las"]
seeds = 2
EOF
cp "$DATA/some_fail_grid.toml" some_fail.toml
expect_status all_fail 3 sweep all_fail.toml --out all.h5 -q
[ ! -s all_fail.out ] || { echo "FAIL: -q printed to stdout"; cat all_fail.out; exit 1; }
[ "$(wc -l <all_fail.err)" -eq 1 ] || { echo "FAIL: more than one line on stderr"; cat all_fail.err; exit 1; }
grep -q "^sweep: 4 of 4 points failed (status column of /points): 2 x all_fail.toml: field 'num_gpus': job 'g" all_fail.err ||
  { echo "FAIL: summary line"; cat all_fail.err; exit 1; }
if [ -n "$PYTHON" ]; then
  "$PYTHON" - <<'PY'
import h5py
f = h5py.File("all.h5", "r")
status = [s.decode() for s in f["points/status"][()]]
assert len(status) == 4 and all(s.startswith("all_fail.toml: field 'num_gpus':") for s in status), status
assert f.attrs["complete"] == 1
print("all.h5: 4 points, every status names the field")
PY
fi
# Found again by --resume (what batch scripts rerun): still 3, still said.
expect_status all_fail_resumed 3 sweep all_fail.toml --out all.h5 --resume -q
grep -q "^sweep: 4 of 4 points failed" all_fail_resumed.err || { echo "FAIL: resume hid the failures"; exit 1; }

# Some points fail: 3 from both ranks' launch, and the summary counts only those.
expect_status some_fail 3 mpi_sweep 2 some_fail.toml --out some.h5 -q
grep -q "^sweep: 2 of 4 points failed (status column of /points): " some_fail.err ||
  { echo "FAIL: summary line"; cat some_fail.err; exit 1; }
check once some.h5 4

# Every point succeeds: 0, and -q prints nothing at all.
expect_status all_ok 0 sweep all_ok.toml --out ok.h5 -q
[ ! -s all_ok.err ] && [ ! -s all_ok.out ] || { echo "FAIL: -q printed something"; cat all_ok.err; exit 1; }

# Overflow: a huge seeds count or axis product is refused (2) naming the key; nothing is written.
sed 's/^seeds = .*/seeds = 9223372036854775807/' all_ok.toml >seeds.toml
expect_status seeds_overflow 2 sweep seeds.toml --out seeds.h5 -q
grep -q "^clustersim sweep: error: seeds.toml:13: field 'sweep.seeds': 2 configurations x 9223372036854775807 seeds is more than 100000000 points" seeds_overflow.err ||
  { echo "FAIL: seeds overflow message"; cat seeds_overflow.err; exit 1; }
expect_status seeds_overflow_dry_run 2 sweep seeds.toml --dry-run
{ cat all_ok.toml; for i in 1 2 3 4 5 6 7 8; do echo "\"x.a$i\" = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"; done; } >axes.toml
expect_status axes_overflow 2 sweep axes.toml --out axes.h5 -q
grep -q "^clustersim sweep: error: axes.toml:21: field 'sweep.x.a8': with this axis the grid has more than 100000000 points" axes_overflow.err ||
  { echo "FAIL: axis product message"; cat axes_overflow.err; exit 1; }
for leftover in seeds.h5 seeds.h5.lock seeds.h5.journal axes.h5 axes.h5.lock; do
  [ ! -e "$leftover" ] || { echo "FAIL: $leftover left behind"; exit 1; }
done

# Flag ranges are said in a short line, not with DBL_MAX in 300 digits.
expect_status threads_zero 2 sweep all_ok.toml --out t.h5 --threads 0
expect_status progress_zero 2 sweep all_ok.toml --out t.h5 --progress-interval 0
for name in threads_zero progress_zero; do
  [ "$(head -1 $name.err | wc -c)" -lt 120 ] || { echo "FAIL $name: long message"; cat $name.err; exit 1; }
done

# --overwrite keeps the previous results until the new file is complete: interrupted, it exits
# 75 and leaves the old file as it was; --resume then finishes and replaces it.
cp ok.h5 keep.h5
before=$(md5sum <keep.h5)
"$BIN" sweep "$DATA/slow_grid.toml" --out keep.h5 --overwrite --threads 1 --progress-interval 0.1 \
  >over.out 2>over.err &
PID=$!
wait_for_points over.err 2 120
kill -TERM $PID
status=0
wait $PID || status=$?
[ "$status" -eq 75 ] || { echo "FAIL: interrupted --overwrite exit $status, want 75"; cat over.err; exit 1; }
[ "$(md5sum <keep.h5)" = "$before" ] || { echo "FAIL: an unfinished --overwrite replaced the old file"; exit 1; }
grep -q "kept the previous keep.h5" over.out || { echo "FAIL: no word on the kept file"; cat over.out; exit 1; }
expect_status overwrite_resumed 0 sweep "$DATA/slow_grid.toml" --out keep.h5 --resume -q
check once keep.h5 36
echo PASS
