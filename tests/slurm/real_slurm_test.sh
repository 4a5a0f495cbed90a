#!/usr/bin/env bash
# The slurm/ scripts on a real Slurm: a private one-node cluster (munged, slurmctld, slurmd as
# root, Debian's Slurm 22.05, installed if missing) in a temporary directory, on free ports, with
# its own munge socket and key, so nothing of the host's own Slurm or munge is touched. Then:
#   A. sbatch slurm/sweep.sbatch (2 ranks x 2 threads, srun --mpi=pmix): a complete, valid file;
#   B. sbatch --time=1 --signal=B:USR1@59 slurm/sweep.sbatch (1 rank x 1 thread): the time-limit
#      signal reaches the sweep, which saves, the job requeues itself and resumes until done;
#      every point exactly once and the file identical in content to A's;
#   C. slurm/submit --array 2 (same time limit and signal): two shards as a job array, each task
#      signalled, requeued and resumed, then the dependent merge job; the merged file identical
#      in content to A's.
# It stops only the daemons it started (by pid) and removes its directory. It needs root; without
# root (and no passwordless sudo) it skips (exit 77). Timings are printed (see slurm/README.md).
# usage: real_slurm_test.sh CLUSTERSIM_BIN SOURCE_DIR
set -euo pipefail
BIN=$(realpath "$1")
SRC=$(realpath "$2")
GRID=$SRC/tests/slurm/data/grid.toml
POINTS=36

if [ "$(id -u)" -ne 0 ]; then
  if sudo -n true 2>/dev/null; then exec sudo -n -E bash "$0" "$@"; fi
  echo "SKIP: the real-Slurm test runs slurmctld and slurmd as root: run the tests as root (as CI does) or with passwordless sudo"
  exit 77
fi
test_start=$(date +%s)
elapsed() { echo $(($(date +%s) - test_start)); }
say() { echo "[$(elapsed) s] $*"; }

# ---- Debian's Slurm and munge, if missing. Services are not started by the install (a
# ---- policy-rc.d is put in place for it where there is none), only the private daemons below.
packages=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  policy=/usr/sbin/policy-rc.d
  added_policy=0
  if [ ! -e $policy ]; then
    printf '#!/bin/sh\nexit 101\n' >$policy && chmod 755 $policy && added_policy=1
  fi
  install_status=0
  { apt-get -o DPkg::Lock::Timeout=300 update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
      --no-install-recommends "${missing[@]}"; } >/tmp/clustersim_slurm_apt.log 2>&1 || install_status=$?
  [ "$added_policy" = 1 ] && rm -f $policy
  if [ "$install_status" -ne 0 ]; then
    cat /tmp/clustersim_slurm_apt.log
    rm -f /tmp/clustersim_slurm_apt.log
    echo "FAIL: cannot install ${missing[*]}"
    exit 1
  fi
  rm -f /tmp/clustersim_slurm_apt.log
  say "installed"
fi

# ---- A private cluster in WORK.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clustersim_slurm_test.XXXXXX")
chmod 755 "$WORK"
mkdir -p "$WORK"/{run,munge,state,spool,log,jobs}
chmod 700 "$WORK/munge"
# Every process this test starts carries SLURM_CONF=$WORK/slurm.conf in its environment (the
# daemons, slurmstepd, the jobs): cleanup finds them by it, and ends them by pid.
export SLURM_CONF=$WORK/slurm.conf
our_processes() {  # (bash builtins only: no helper process of its own to find)
  local entry variable
  for entry in /proc/[0-9]*; do
    [ "${entry#/proc/}" = $$ ] && continue
    while IFS= read -r -d '' variable; do
      if [ "$variable" = "SLURM_CONF=$SLURM_CONF" ]; then
        echo "${entry#/proc/}"
        break
      fi
    done 2>/dev/null <"$entry/environ"
  done
  return 0
}
cleanup() {
  local status=$? pid
  trap - EXIT
  if [ -f "$SLURM_CONF" ] && squeue -h -o %A 2>/dev/null | grep -q .; then
    squeue -h -o %A | xargs -r scancel --quiet 2>/dev/null || true
    for _ in $(seq 1 30); do squeue -h 2>/dev/null | grep -q . || break; sleep 1; done
  fi
  for pid in $(our_processes); do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 50); do [ -z "$(our_processes)" ] && break; sleep 0.1; done
  for pid in $(our_processes); do kill -9 "$pid" 2>/dev/null || true; done
  if [ "$status" -ne 0 ]; then
    for log in "$WORK"/log/*.log "$WORK"/jobs/*.out; do
      [ -f "$log" ] && { echo "---- ${log#"$WORK"/} (last lines)"; tail -40 "$log"; }
    done
  fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ctld_port=$(free_port)
slurmd_port=$(free_port)
[ "$ctld_port" != "$slurmd_port" ] || slurmd_port=$(free_port)

dd if=/dev/urandom of="$WORK/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$WORK/munge/munge.key"
munged --socket="$WORK/run/munge.sock" --key-file="$WORK/munge/munge.key" \
  --pid-file="$WORK/run/munged.pid" --seed-file="$WORK/munge/munged.seed" \
  --log-file="$WORK/log/munged.log" || fail "munged did not start"

# cred_expire=10: a requeued job is eligible again after 11 s (the default, 120, gives 121 s);
# sched_interval=1: the scheduler starts it then, not at its next periodic pass (default 60 s).
# CPUs=4 on this 2-core machine (config_overrides): A runs 2 ranks x 2 threads, and B (1 x 1)
# runs beside the array's two tasks (1 x 1 each). SlurmctldDebug=debug2 logs the controller's time-limit passes.
cat >"$WORK/slurm.conf" <<CONF
ClusterName=clustersimtest
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$WORK/run/munge.sock,cred_expire=10
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
PlugStackConfig=$WORK/plugstack.conf
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/run/slurmctld.pid
SlurmdPidFile=$WORK/run/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
SlurmctldDebug=debug2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=4 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
touch "$WORK/plugstack.conf"
ctld_start=$(date +%s.%N)
slurmctld -i || fail "slurmctld did not start"
slurmd -N localhost || fail "slurmd did not start"
for _ in $(seq 1 100); do
  sinfo -h -o %T 2>/dev/null | grep -q idle && break
  sleep 0.2
done
sinfo -h -o %T | grep -q idle || fail "the node did not come up: $(sinfo 2>&1)"
say "cluster up: $(sinfo -h -o '%P %a %D %T %N %c CPUs')"

export CLUSTERSIM=$BIN
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PYTHON=/usr/bin/python3
"$PYTHON" -c "import h5py, pandas" 2>/dev/null || PYTHON=python3
check() { "$PYTHON" "$SRC/tests/sweep/check_results.py" "$@"; }
cd "$WORK/jobs"

job_field() { scontrol show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
# The timeouts guard against a hang, not a speed: on a loaded runner each requeue cycle takes
# longer (CI once saw job B still requeueing after 300 s, beside a full-priority build).
wait_done() {  # JOBID TIMEOUT_S: until the job (every task of an array) has left the queue
  local job=$1 limit=$2 waited=0
  while squeue -h -j "$job" 2>/dev/null | grep -q .; do
    sleep 1
    waited=$((waited + 1))
    [ "$waited" -lt "$limit" ] || fail "job $job still queued after $limit s: $(squeue -j "$job")"
  done
}
log_time() { date -d "$(sed -n "s/^\[\([0-9-]* [0-9:]*\)\] .*$2.*/\1/p" "$1" | sed -n "${3:-1}p")" +%s; }

# ---- A: one MPI job, uninterrupted (2 ranks x 2 threads).
a_start=$(date +%s)
jobA=$(sbatch --parsable --ntasks=2 --cpus-per-task=2 --time=10 --output="$WORK/jobs/%x-%j.out" \
  "$SRC/slurm/sweep.sbatch" "$GRID" --out "$WORK/a.h5" --save-timeseries)
say "A: submitted sweep.sbatch as job $jobA"

# ---- A's result.
wait_done "$jobA" 240
[ "$(job_field "$jobA" JobState)" = COMPLETED ] || fail "job A: $(job_field "$jobA" JobState) $(job_field "$jobA" ExitCode)"
check schema "$WORK/a.h5" $POINTS --timeseries
"$PYTHON" - "$WORK/a.h5" "$jobA" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
a = f.attrs
assert a["ranks"] == 2 and a["threads_per_rank"] == "2,2", (a["ranks"], a["threads_per_rank"])
assert a["slurm_job_id"] == sys.argv[2], a["slurm_job_id"]
assert a["sessions"] == 1 and a["complete"] == 1
print("A: 2 ranks (srun --mpi=pmix) x 2 threads each (SRUN_CPUS_PER_TASK); slurm_job_id recorded")
PY
say "A: done $(($(date +%s) - a_start)) s after submission"

# ---- B and C: submitted together 22 s after a time-limit pass of slurmctld (it checks time
# ---- limits every 30 s from its start; the passes are in its log), so that the next pass
# ---- signals them ~7 s in.
# B: sweep.sbatch, 1 rank x 1 thread. C: the array path through slurm/submit, 2 shards (1 rank x
# 1 thread each), with the same time limit and signal (the last --time/--signal given wins).
last_tick() {
  local line
  line=$(grep "Testing job time limits" "$WORK/log/slurmctld.log" | tail -1 | sed -n 's/^\[\([^]]*\)\].*/\1/p')
  if [ -n "$line" ]; then date -d "$line" +%s.%N; else echo "$ctld_start"; fi
}
while :; do
  phase=$(awk -v now="$(date +%s.%N)" -v tick="$(last_tick)" 'BEGIN { p = (now - tick) % 30; printf "%.1f", p }')
  awk -v p="$phase" 'BEGIN { exit !(p >= 21.8 && p <= 22.5) }' && break
  sleep 0.2
done
c_start=$(date +%s)
"$SRC/slurm/submit" --clustersim "$BIN" --array 2 --ranks 1 --threads 1 --logs "$WORK/jobs" \
  --sbatch --time=1 --sbatch --signal=B:USR1@59 --out "$WORK/c.h5" "$GRID" -- --save-timeseries | tee submit.out
jobC=$(sed -n 's/^submitted array job \([0-9]*\) .* merge job \([0-9]*\)$/\1/p' submit.out)
mergeC=$(sed -n 's/^submitted array job \([0-9]*\) .* merge job \([0-9]*\)$/\2/p' submit.out)
if [ -z "$jobC" ] || [ -z "$mergeC" ]; then fail "slurm/submit did not report its job ids"; fi
b_start=$(date +%s)
jobB=$(sbatch --parsable --ntasks=1 --cpus-per-task=1 --time=1 --signal=B:USR1@59 \
  --output="$WORK/jobs/%x-%j.out" "$SRC/slurm/sweep.sbatch" "$GRID" --out "$WORK/b.h5" --save-timeseries)
say "B: submitted sweep.sbatch --time=1 --signal=B:USR1@59 as job $jobB, C as array $jobC + merge" \
  "$mergeC (time-limit pass phase $phase s)"
wait_done "$jobB" 480
logB=$WORK/jobs/clustersim-sweep-$jobB.out
[ "$(job_field "$jobB" JobState)" = COMPLETED ] || fail "job B: $(job_field "$jobB" JobState) $(job_field "$jobB" ExitCode)"
restarts=$(job_field "$jobB" Restarts)
[ "$restarts" -ge 1 ] || fail "job B was not requeued (Restarts=$restarts)"
grep -q "time limit near (SIGUSR1)" "$logB" || fail "B: no SIGUSR1 in the log"
grep -q "stop requested" "$logB" || fail "B: the sweep did not stop on the signal"
# Some session saved k points (0 < k < all), and the next one resumed from them.
saved=$(sed -n 's/^saved a partial .* (\([0-9]*\) of .*/\1/p' "$logB" | awk '$1 > 0 { print; exit }')
if [ -z "$saved" ] || [ "$saved" -ge $POINTS ]; then
  fail "B: no session saved some but not all points: $(grep -v '^sweep: [0-9]' "$logB")"
fi
grep -q "resuming $WORK/b.h5: $saved of $POINTS points already done" "$logB" ||
  fail "B: the requeued job did not resume from the $saved saved points"
check once "$WORK/b.h5" $POINTS
check identical "$WORK/a.h5" "$WORK/b.h5"
"$PYTHON" - "$WORK/b.h5" "$restarts" <<'PY'
import sys, h5py
a = h5py.File(sys.argv[1], "r").attrs
assert a["sessions"] == int(sys.argv[2]) + 1 and a["complete"] == 1, (a["sessions"], sys.argv[2])
PY
signal_at=$(log_time "$logB" "time limit near")
start1=$(log_time "$logB" "restart 0 on")
requeue_at=$(log_time "$logB" "requeueing")
restart_at=$(log_time "$logB" "restart 1 on")
say "B: done in $(($(date +%s) - b_start)) s: $restarts requeue(s); a session saved $saved of $POINTS points;" \
  "SIGUSR1 $((signal_at - start1)) s after the start ($((start1 + 60 - signal_at)) s before the limit);" \
  "requeued job restarted $((restart_at - requeue_at)) s after scontrol requeue"

# ---- C: every task signalled, requeued and resumed, then the merge.
wait_done "$jobC" 480
wait_done "$mergeC" 120
[ "$(job_field "$mergeC" JobState)" = COMPLETED ] || fail "merge job: $(job_field "$mergeC" JobState) $(job_field "$mergeC" ExitCode)"
for k in 0 1; do
  task_log=$WORK/jobs/clustersim-shard-${jobC}_$k.out
  grep -q "shard $k/2" "$task_log" || fail "array task $k did not run shard $k/2"
  grep -q "requeueing" "$task_log" && grep -q "resuming $WORK/c.shard-$k-of-2.h5" "$task_log" ||
    fail "array task $k was not requeued and resumed: $(grep -v '^sweep: [0-9]' "$task_log")"
  [ "$(job_field "${jobC}_$k" Restarts)" -ge 1 ] || fail "array task $k: Restarts=$(job_field "${jobC}_$k" Restarts)"
  # A task's requeue is its own: a finished task is never started again by another's.
  [ "$(grep -c "sweep done" "$task_log")" -eq 1 ] && ! grep -q "already holds all" "$task_log" ||
    fail "array task $k was restarted after it finished: $(grep -v '^sweep: [0-9]' "$task_log")"
  [ -f "$WORK/c.shard-$k-of-2.h5" ] || fail "no shard file $k"
done
check identical "$WORK/a.h5" "$WORK/c.h5"
"$PYTHON" - "$WORK/c.h5" <<'PY'
import sys, json, h5py
a = h5py.File(sys.argv[1], "r").attrs
shards = sorted(item["shard"] for item in json.loads(a["merged_from"]))
assert shards == ["0/2", "1/2"], shards
assert len(a["slurm_job_id"].split(",")) == 2, a["slurm_job_id"]
PY
# Array tasks as squeue shows them (issue 45, part 6): JOB_TASK in the merged file and the logs.
"$PYTHON" - "$WORK/c.h5" "$jobC" <<'PY'
import sys, h5py
a = h5py.File(sys.argv[1], "r").attrs
assert sorted(a["slurm_job_id"].split(",")) == [sys.argv[2] + "_0", sys.argv[2] + "_1"], a["slurm_job_id"]
PY
grep -q "array.sbatch ${jobC}_1: shard 1/2" "$WORK/jobs/clustersim-shard-${jobC}_1.out" ||
  fail "array task 1's log does not name it ${jobC}_1"
# Under afterany (issue 45, part 3) the merge still waited for the tasks' last sessions: it merged
# (an unfinished shard would have been refused, exit 2).
grep -q "wrote $WORK/c.h5" "$WORK/jobs/clustersim-merge-$mergeC.out" ||
  fail "merge job: $(cat "$WORK/jobs/clustersim-merge-$mergeC.out")"
say "C: array of 2 shards (each requeued $(job_field "${jobC}_0" Restarts) and $(job_field "${jobC}_1" Restarts) times) + merge done $(($(date +%s) - c_start)) s after submission"
echo "---- job B's log (the script's lines and the sweep's saves and resumes):"
grep -E "^\[|^saved a partial|^wrote|resuming|stop requested" "$logB"
say "PASS"
