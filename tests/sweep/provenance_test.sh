#!/usr/bin/env bash
# Where each session ran (issue 45, part 6): a sweep begun in one folder as array task 11_0 and
# resumed in another as job 600 keeps both sessions' host, Slurm job and working directory in
# session_builds; the root attributes name the last session's, the grid path as given
# (grid_path, unchanged) and made absolute (grid_path_absolute). Array tasks are recorded as
# squeue shows them (JOB_TASK, not the task's raw SLURM_JOB_ID), and a merge of shards lists them.
source "$(dirname "$0")/common.sh"
unset SLURM_JOB_ID SLURM_ARRAY_JOB_ID SLURM_ARRAY_TASK_ID
mkdir grids first second
sed -e 's/^seeds = .*/seeds = 2/' "$DATA/slow_grid.toml" >grids/g.toml  # 12 points of ~0.3 s

cd first || exit 1
SLURM_JOB_ID=13 SLURM_ARRAY_JOB_ID=11 SLURM_ARRAY_TASK_ID=0 "$BIN" sweep ../grids/g.toml \
  --out "$WORK/r.h5" --threads 1 --progress-interval 0.1 >first.out 2>first.err &
PID=$!
wait_for_points first.err 2 120
kill -TERM $PID
status=0
wait $PID || status=$?
[ "$status" -eq 75 ] || { echo "FAIL: SIGTERM: status $status, want 75"; cat first.err; exit 1; }
cd ../second || exit 1
SLURM_JOB_ID=600 "$BIN" sweep ../grids/g.toml --out "$WORK/r.h5" --resume --threads 2 -q
cd .. || exit 1

if [ -z "$PYTHON" ]; then echo "SKIP (no python with h5py)"; exit 0; fi
"$PYTHON" - "$WORK" "$(hostname)" <<'PY'
import json, sys, h5py
work, host = sys.argv[1], sys.argv[2]
a = h5py.File(f"{work}/r.h5", "r").attrs
assert a["grid_path"] == "../grids/g.toml", a["grid_path"]
assert a["grid_path_absolute"] == f"{work}/grids/g.toml", a["grid_path_absolute"]
assert a["working_directory"] == f"{work}/second", a["working_directory"]
assert a["slurm_job_id"] == "600", a["slurm_job_id"]
assert a["hostname"] == host, a["hostname"]
builds = json.loads(a["session_builds"])
assert len(builds) == 2, builds
want = [("11_0", f"{work}/first"), ("600", f"{work}/second")]
for entry, (job, folder) in zip(builds, want):
    assert (entry["hostname"], entry["slurm_job_id"], entry["working_directory"]) == (host, job, folder), entry
print("session_builds:", [(b["session"], b["slurm_job_id"], b["working_directory"]) for b in builds])
PY

# Two array tasks (raw ids 13 and 12, as Slurm may give them) and their merge.
for k in 0 1; do
  SLURM_JOB_ID=$((13 - k)) SLURM_ARRAY_JOB_ID=11 SLURM_ARRAY_TASK_ID=$k \
    "$BIN" sweep "$DATA/small_grid.toml" --shard $k/2 --out part$k.h5 -q
done
"$BIN" merge -q merged.h5 part0.h5 part1.h5
"$PYTHON" - <<'PY'
import json, h5py
a = h5py.File("merged.h5", "r").attrs
assert a["slurm_job_id"] == "11_0,11_1", a["slurm_job_id"]
assert [item["slurm_job_id"] for item in json.loads(a["merged_from"])] == ["11_0", "11_1"], a["merged_from"]
PY
echo PASS
