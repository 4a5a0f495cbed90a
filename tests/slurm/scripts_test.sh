#!/usr/bin/env bash
# The slurm/ scripts' own logic, without Slurm: stand-ins for srun (runs the command), scontrol
# (records a requeue and ends the batch script, as Slurm does) and sbatch (records its flags).
#   - sweep.sbatch runs the sweep with --resume, keeps --overwrite to the first run only, and on
#     SIGUSR1 lets the sweep save, then requeues the job (until CLUSTERSIM_MAX_REQUEUES); the
#     requeued run resumes and the result equals an uninterrupted run's;
#   - array.sbatch maps SLURM_ARRAY_TASK_ID to --shard K/N and its own file, refuses index lists,
#     and merge.sbatch joins the shards into a file identical in content to an unsharded run's;
#     tasks are named JOB_TASK in the logs and in the files' slurm_job_id;
#   - merge.sbatch merges shards with failed points (exit 3, said in its log) and refuses an
#     unfinished shard by name (exit 2);
#   - a sweep killed by SIGKILL is logged as such, not as "stopped by a signal, points saved";
#   - submit checks the grid and the result's folder (created, or refused before queueing), sizes
#     the job from the dry run's JSON (one time estimate; ranks x threads to the work, the user's
#     choices winning; --mem-per-cpu from the peak memory per rank) and submits the right scripts
#     with the right flags, the merge after the array whatever the tasks' status (afterany);
#   - calibrate.sbatch refuses to run without its script or a GPU;
#   - the part common to sweep.sbatch and array.sbatch is the same text in both.
# The same scripts under a real Slurm: real_slurm_test.sh.
# usage: scripts_test.sh CLUSTERSIM_BIN SOURCE_DIR
# shellcheck disable=SC2015  # `A && B || fail`: fail exits
set -euo pipefail
BIN=$(realpath "$1")
SRC=$(realpath "$2")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clustersim_slurm_scripts.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
fail() { echo "FAIL: $*"; exit 1; }
PYTHON=/usr/bin/python3
"$PYTHON" -c "import h5py, pandas" 2>/dev/null || PYTHON=python3
check() { "$PYTHON" "$SRC/tests/sweep/check_results.py" "$@"; }
SMALL=$SRC/tests/sweep/data/small_grid.toml
SLOW=$SRC/tests/sweep/data/slow_grid.toml

# ---- The common part is one text in both batch scripts.
common() { sed -n '/^# ---- common to sweep.sbatch and array.sbatch/,/^# ---- end of the common part/p' "$1"; }
[ "$(common "$SRC/slurm/sweep.sbatch" | wc -l)" -gt 50 ] || fail "no common part in sweep.sbatch"
diff <(common "$SRC/slurm/sweep.sbatch") <(common "$SRC/slurm/array.sbatch") ||
  fail "the common parts of sweep.sbatch and array.sbatch differ"
for script in "$SRC"/slurm/*.sbatch "$SRC/slurm/submit"; do bash -n "$script" || fail "$script: syntax"; done

# ---- Stand-ins.
mkdir bin
cat >bin/srun <<'SH'
#!/bin/bash
echo "srun $*" >>"$FAKE_LOG"
while [[ $1 == -* ]]; do shift; done
exec "$@"
SH
cat >bin/scontrol <<'SH'
#!/bin/bash
echo "scontrol $*" >>"$FAKE_LOG"
kill -TERM "$PPID"  # Slurm ends the batch script of a job it requeues
SH
cat >bin/sbatch <<'SH'
#!/bin/bash
echo "sbatch $*" >>"$FAKE_LOG"
echo "4242;cluster"
SH
chmod +x bin/*
export PATH=$WORK/bin:$PATH FAKE_LOG=$WORK/fake.log CLUSTERSIM=$BIN
unset SLURM_RESTART_COUNT SLURM_JOB_ID SLURM_ARRAY_TASK_ID

# ---- sweep.sbatch: a run to the end; then the time-limit path.
bash "$SRC/slurm/sweep.sbatch" "$SMALL" --out whole.h5 --save-jobs >whole.log 2>&1 || fail "sweep.sbatch: $(cat whole.log)"
grep -q "^srun --mpi=pmix $BIN sweep $SMALL --out whole.h5 --save-jobs --resume$" fake.log || fail "srun line: $(cat fake.log)"
check schema whole.h5 48 --jobs
SLURM_RESTART_COUNT=0 bash "$SRC/slurm/sweep.sbatch" "$SMALL" --out again.h5 --overwrite -q >/dev/null 2>&1
SLURM_RESTART_COUNT=1 bash "$SRC/slurm/sweep.sbatch" "$SMALL" --out again.h5 --overwrite -q >/dev/null 2>&1
grep -q -- "-q --overwrite$" fake.log && grep -q -- "-q --resume$" fake.log || fail "--overwrite kept on a restart: $(cat fake.log)"

: >fake.log
SLURM_JOB_ID=77 bash "$SRC/slurm/sweep.sbatch" "$SLOW" --out slow.h5 --threads 1 --progress-interval 0.1 >slow.log 2>&1 &
batch=$!
for _ in $(seq 1 600); do grep -q 'sweep: [1-9][0-9]*/36' slow.log && break; sleep 0.1; done
kill -USR1 $batch
status=0
wait $batch || status=$?
grep -q "time limit near (SIGUSR1)" slow.log && grep -q "saved a partial slow.h5" slow.log ||
  fail "the sweep did not save on SIGUSR1: $(cat slow.log)"
grep -qx "scontrol requeue 77" fake.log || fail "no requeue (status $status): $(cat slow.log)"
SLURM_JOB_ID=77 SLURM_RESTART_COUNT=1 bash "$SRC/slurm/sweep.sbatch" "$SLOW" --out slow.h5 --threads 1 >resumed.log 2>&1 ||
  fail "the requeued run failed: $(cat resumed.log)"
grep -q "resuming slow.h5" resumed.log || fail "the requeued run did not resume"
check once slow.h5 36
"$BIN" sweep "$SLOW" --out clean.h5 --threads 2 -q
check identical clean.h5 slow.h5

# An array task requeues itself only (ARRAYID_TASK): its SLURM_JOB_ID may be the array's id.
: >fake.log
rm -f slow.h5 slow.shard-1-of-2.h5
SLURM_JOB_ID=90 SLURM_ARRAY_JOB_ID=90 SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=1 \
  SLURM_ARRAY_TASK_COUNT=2 bash "$SRC/slurm/array.sbatch" "$SLOW" --out slow.h5 --threads 1 \
  --progress-interval 0.1 >task.log 2>&1 &
batch=$!
for _ in $(seq 1 600); do grep -q 'sweep: [1-9][0-9]*/18' task.log && break; sleep 0.1; done
kill -USR1 $batch
wait $batch || true
grep -qx "scontrol requeue 90_1" fake.log || fail "an array task requeued '$(cat fake.log)', not 90_1: $(cat task.log)"

# At CLUSTERSIM_MAX_REQUEUES, no more requeues.
: >fake.log
rm -f slow.h5
SLURM_JOB_ID=78 SLURM_RESTART_COUNT=3 CLUSTERSIM_MAX_REQUEUES=3 bash "$SRC/slurm/sweep.sbatch" "$SLOW" --out slow.h5 \
  --threads 1 --progress-interval 0.1 >max.log 2>&1 &
batch=$!
for _ in $(seq 1 600); do grep -q 'sweep: [1-9][0-9]*/36' max.log && break; sleep 0.1; done
kill -USR1 $batch
status=0
wait $batch || status=$?
[ "$status" -eq 75 ] && grep -q "requeued 3 times already" max.log && ! grep -q requeue fake.log ||
  fail "CLUSTERSIM_MAX_REQUEUES not honoured (status $status): $(cat max.log)"

# Bad input is not requeued: exit 2 at once.
status=0
SLURM_JOB_ID=79 bash "$SRC/slurm/sweep.sbatch" "$WORK/nothing.toml" --out x.h5 >bad.log 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "refused its input" bad.log || fail "bad grid: status $status: $(cat bad.log)"

# A sweep killed outright (SIGKILL: the OOM killer, kill -9) is not "points saved".
cat >bin/killed-clustersim <<'SH'
#!/bin/bash
kill -KILL $$
SH
chmod +x bin/killed-clustersim
status=0
SLURM_JOB_ID=80 CLUSTERSIM=$WORK/bin/killed-clustersim bash "$SRC/slurm/sweep.sbatch" "$SMALL" --out k.h5 >killed.log 2>&1 || status=$?
[ "$status" -eq 137 ] && grep -q "sweep.sbatch 80: sweep ended with status 137: killed by SIGKILL (out of memory, or kill -9): nothing saved at the end, but the journal keeps the points finished: rerun to resume$" killed.log &&
  ! grep -q "points saved" killed.log || fail "SIGKILL: status $status: $(cat killed.log)"

# ---- array.sbatch: three tasks (raw job ids 100-102 of array 99), then merge.sbatch; an index
# list is refused.
for k in 0 1 2; do
  SLURM_JOB_ID=$((100 + k)) SLURM_ARRAY_JOB_ID=99 SLURM_ARRAY_TASK_ID=$k SLURM_ARRAY_TASK_MIN=0 \
    SLURM_ARRAY_TASK_MAX=2 SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_STEP=1 \
    bash "$SRC/slurm/array.sbatch" "$SMALL" --out arr.h5 --save-jobs --threads 1 >task$k.log 2>&1 ||
    fail "array task $k: $(cat task$k.log)"
  grep -q -- "--shard $k/3 --out arr.shard-$k-of-3.h5 --resume" fake.log || fail "task $k's srun line: $(cat fake.log)"
  grep -q "^\[.*\] array.sbatch 99_$k: shard $k/3" task$k.log || fail "task $k's log does not name it 99_$k: $(cat task$k.log)"
done
bash "$SRC/slurm/merge.sbatch" arr.h5 3 >merge.log 2>&1 || fail "merge.sbatch: $(cat merge.log)"
check identical whole.h5 arr.h5
"$PYTHON" - <<'PY' || fail "slurm_job_id of the shards and the merged file"
import h5py
ids = [h5py.File(f"arr.shard-{k}-of-3.h5", "r").attrs["slurm_job_id"] for k in range(3)]
assert ids == ["99_0", "99_1", "99_2"], ids
merged = h5py.File("arr.h5", "r").attrs["slurm_job_id"]
assert merged == "99_0,99_1,99_2", merged
PY

# ---- merge.sbatch decides (the merge job runs after the array whatever its tasks' status):
# shards with failed points (jobs needing 16 GPUs fail the 8-GPU points) merge, exit 3; an
# unfinished shard is refused by name, exit 2.
cp "$SRC/tests/sweep/data/some_fail_grid.toml" some_fail.toml
for k in 0 1; do
  SLURM_JOB_ID=$((200 + k)) SLURM_ARRAY_JOB_ID=199 SLURM_ARRAY_TASK_ID=$k SLURM_ARRAY_TASK_MIN=0 \
    SLURM_ARRAY_TASK_MAX=1 SLURM_ARRAY_TASK_COUNT=2 SLURM_ARRAY_TASK_STEP=1 \
    bash "$SRC/slurm/array.sbatch" some_fail.toml --out fail.h5 --threads 1 >ftask$k.log 2>&1 || true
done
grep -q "sweep done, but some points failed (exit status 3)" ftask0.log ftask1.log ||
  fail "no shard had failed points: $(cat ftask0.log ftask1.log)"
status=0
bash "$SRC/slurm/merge.sbatch" fail.h5 2 >fmerge.log 2>&1 || status=$?
[ "$status" -eq 3 ] && [ -f fail.h5 ] && grep -q "merge.sbatch .*: wrote fail.h5, but some points failed (exit status 3)" fmerge.log ||
  fail "merge of shards with failed points: status $status: $(cat fmerge.log)"
rm fail.h5 fail.shard-1-of-2.h5
: >fail.shard-1-of-2.h5.journal  # as a task killed before its first save leaves it
status=0
bash "$SRC/slurm/merge.sbatch" fail.h5 2 >fmerge2.log 2>&1 || status=$?
[ "$status" -eq 2 ] && [ ! -e fail.h5 ] && grep -q "fail.shard-1-of-2.h5: not written yet" fmerge2.log &&
  grep -q "error: the merge refused its inputs (exit status 2" fmerge2.log ||
  fail "unfinished shard: status $status: $(cat fmerge2.log)"
status=0
SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=7 SLURM_ARRAY_TASK_COUNT=3 \
  bash "$SRC/slurm/array.sbatch" "$SMALL" --out list.h5 >list.log 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "must be a range" list.log || fail "index list accepted: $(cat list.log)"

# ---- submit: sizing from --dry-run, the flags, and what it prints.
: >fake.log
"$SRC/slurm/submit" --clustersim "$BIN" --threads 2 --partition short "$SMALL" --out sub.h5 -- --save-jobs >submit.out ||
  fail "submit: $(cat submit.out)"
grep -q "48 points, estimated cost 151200" submit.out || fail "submit sizing: $(cat submit.out)"
grep -q "^submitted job 4242$" submit.out && grep -q "^logs: .*/slurm-logs/clustersim-sweep-4242.out$" submit.out ||
  fail "submit output: $(cat submit.out)"
[ -d slurm-logs ] || fail "no logs folder"
line=$(cat fake.log)
# 48 points of 0.04 CPU-seconds in all: one rank (--threads 2 is the user's and wins); memory
# per CPU from the dry run's peak per rank x 1.5 / 2 threads, at least 256 MB.
json=$("$BIN" sweep "$SMALL" --dry-run --json --ranks 1 --threads 2 --save-jobs)
rss=$(sed -n 's/^ *"peak_rss_bytes_per_rank": \([0-9.e+]*\),\{0,1\}$/\1/p' <<<"$json")
[ -n "$rss" ] || fail "no peak_rss_bytes_per_rank in the dry run's JSON: $json"
mem=$(awk -v b="$rss" 'BEGIN { m = b * 1.5 / 2 / 1048576; m = m == int(m) ? m : int(m) + 1; print m < 256 ? 256 : m }')
for expected in "--ntasks=1 " "--cpus-per-task=2" "--time=0:15:00" "--mem-per-cpu=${mem}M" "--signal=B:USR1@120" \
  "--partition=short" "$SRC/slurm/sweep.sbatch $SMALL --out $WORK/sub.h5 --save-jobs"; do
  [[ $line == *"$expected"* ]] || fail "sbatch lacks '$expected': $line"
done
# The time submit prints is the dry run's (one estimate): cpu_seconds on one thread.
cpu=$(sed -n 's/^ *"cpu_seconds": \([0-9.e+-]*\),\{0,1\}$/\1/p' <<<"$json")
grep -q "~$(awk -v c="$cpu" 'BEGIN { s = int(c) + 1; printf "%d:%02d:%02d", s / 3600, s % 3600 / 60, s % 60 }') on one thread" submit.out ||
  fail "submit's time is not the dry run's ($cpu s): $(cat submit.out)"

# ---- submit sizes ranks x threads to the work, the user's choices winning; memory.
: >fake.log
"$SRC/slurm/submit" --clustersim "$BIN" "$SMALL" --out lay1.h5 --dry-run >lay1.out || fail "submit: $(cat lay1.out)"
grep -q -- "--ntasks=1 .*--cpus-per-task=1 \|--cpus-per-task=1 .*--ntasks=1 " lay1.out ||
  fail "0.04 CPU-seconds of work should be 1 rank x 1 thread: $(cat lay1.out)"
# A target of 1 s per job for the 36 points of the slow grid: the threads its CPU-seconds need,
# at most one per point; 4 per rank.
json=$("$BIN" sweep "$SLOW" --dry-run --json --ranks 1 --threads 1)
cpu=$(sed -n 's/^ *"cpu_seconds": \([0-9.e+-]*\),\{0,1\}$/\1/p' <<<"$json")
want=$(awk -v c="$cpu" 'BEGIN { n = c / 1; n = n == int(n) ? n : int(n) + 1; if (n > 36) n = 36; if (n < 1) n = 1; print n }')
threads=$((want < 4 ? want : 4))
ranks=$(((want + threads - 1) / threads))
"$SRC/slurm/submit" --clustersim "$BIN" "$SLOW" --out lay2.h5 --target-time 0:00:01 --dry-run >lay2.out || fail "submit: $(cat lay2.out)"
grep -q -- "--cpus-per-task=$threads --ntasks=$ranks " lay2.out ||
  fail "$cpu CPU-seconds at 1 s per job: expected $ranks ranks x $threads threads: $(cat lay2.out)"
"$SRC/slurm/submit" --clustersim "$BIN" "$SLOW" --out lay3.h5 --target-time 0:00:01 --ranks 5 --threads 3 \
  --sbatch --mem=8G --dry-run >lay3.out || fail "submit: $(cat lay3.out)"
grep -q -- "--cpus-per-task=3 --ntasks=5 " lay3.out && grep -q -- "--mem=8G" lay3.out && ! grep -q -- "--mem-per-cpu" lay3.out ||
  fail "the user's --ranks, --threads and --mem do not win: $(cat lay3.out)"
"$SRC/slurm/submit" --clustersim "$BIN" "$SLOW" --out lay4.h5 --mem-per-cpu 1000 --dry-run >lay4.out || fail "submit: $(cat lay4.out)"
grep -q -- "--mem-per-cpu=1000M" lay4.out || fail "--mem-per-cpu 1000: $(cat lay4.out)"
[ ! -s fake.log ] || fail "--dry-run submitted: $(cat fake.log)"

# ---- submit checks the result's folder before queueing anything: a missing folder is created,
# one that cannot be (under a file, or read-only) is refused with exit 2 and nothing queued.
: >fake.log
"$SRC/slurm/submit" --clustersim "$BIN" "$SMALL" --out new/deeper/r.h5 >newdir.out 2>&1 || fail "a creatable folder: $(cat newdir.out)"
[ -d new/deeper ] && grep -q "^submitted job" newdir.out || fail "the folder was not created: $(cat newdir.out)"
: >plainfile
status=0
"$SRC/slurm/submit" --clustersim "$BIN" "$SMALL" --out plainfile/r.h5 >nodir.out 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "cannot create the folder of .*plainfile/r.h5: .*plainfile is not a folder" nodir.out ||
  fail "a folder under a file: status $status: $(cat nodir.out)"
mkdir ro
if [ "$(id -u)" = 0 ]; then mount -t tmpfs -o ro,size=1m tmpfs ro 2>/dev/null || rmdir ro; else chmod 555 ro; fi
if [ -d ro ]; then
  status=0
  "$SRC/slurm/submit" --clustersim "$BIN" "$SMALL" --out ro/r.h5 >ro.out 2>&1 || status=$?
  [ "$(id -u)" = 0 ] && umount ro
  [ "$status" -eq 2 ] && grep -q "cannot write in .*ro, the folder of .*ro/r.h5 (the job would fail on its node)" ro.out ||
    fail "a read-only folder: status $status: $(cat ro.out)"
else
  echo "skip the read-only folder case (cannot mount a read-only tmpfs as root here)"
fi
grep -q "^sbatch" fake.log && [ "$(grep -c "^sbatch" fake.log)" -eq 1 ] || fail "a refused folder was queued: $(cat fake.log)"
: >fake.log
"$SRC/slurm/submit" --clustersim "$BIN" --array 4 "$SMALL" --out arr2.h5 >submit2.out || fail "submit --array: $(cat submit2.out)"
grep -q "^submitted array job 4242 (shards 0-3) and merge job 4242$" submit2.out || fail "$(cat submit2.out)"
grep -q -- "--array=0-3 .*array.sbatch $SMALL --out $WORK/arr2.h5" fake.log &&
  grep -q -- "--dependency=afterany:4242 .*merge.sbatch $WORK/arr2.h5 4" fake.log || fail "$(cat fake.log)"
! grep -q afterok fake.log || fail "a dependency on success (afterok) would never run the merge after failed points: $(cat fake.log)"
status=0
"$SRC/slurm/submit" --clustersim "$BIN" "$WORK/nothing.toml" >refused.out 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "no such grid file" refused.out || fail "missing grid: $(cat refused.out)"
printf '[sweep]\n"scheduler.policy" = ["fifo", "nope"]\n' >bad_grid.toml
status=0
"$SRC/slurm/submit" --clustersim "$BIN" bad_grid.toml >refused.out 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "bad_grid.toml" refused.out && grep -q "the grid was refused" refused.out ||
  fail "bad grid: $(cat refused.out)"

# ---- calibrate.sbatch: a clear refusal without gpu_kernels/calibrate.sh or without a GPU.
status=0
SLURM_SUBMIT_DIR=$SRC bash "$SRC/slurm/calibrate.sbatch" >cal.log 2>&1 || status=$?
if [ -f "$SRC/gpu_kernels/calibrate.sh" ] && nvidia-smi -L >/dev/null 2>&1; then
  echo "calibrate.sbatch ran on this GPU machine: status $status"
else
  [ "$status" -eq 2 ] && grep -q -E "calibrate.sh not found|no NVIDIA GPU visible" cal.log ||
    fail "calibrate.sbatch: status $status: $(cat cal.log)"
fi
echo PASS
