# Shared by the sweep end-to-end tests. Arguments of every test: CLUSTERSIM_BIN SOURCE_DIR MPIEXEC.
set -euo pipefail
BIN=$1
SRC=$2
MPIEXEC=${3:-mpirun}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
DATA=$SRC/tests/sweep/data
WORK=$(mktemp -d /tmp/clustersim_sweep_e2e.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

# A Python with h5py: Debian's python3-h5py lives in /usr/bin/python3 (a pyenv python may shadow it).
PYTHON=""
for candidate in /usr/bin/python3 python3; do
  if "$candidate" -c "import h5py, pandas" 2>/dev/null; then PYTHON=$candidate; break; fi
done
check() {
  if [ -z "$PYTHON" ]; then echo "SKIP h5py check (no python with h5py+pandas)"; return 0; fi
  "$PYTHON" "$SRC/tests/sweep/check_results.py" "$@"
}

sweep() { "$BIN" sweep "$@"; }
mpi_sweep() {
  local ranks=$1
  shift
  "$MPIEXEC" -np "$ranks" --oversubscribe "$BIN" sweep "$@"
}

# Waits until a sweep's progress log ($1) reports at least $2 points done; fails after $3 s.
wait_for_points() {
  local log=$1 wanted=$2 limit=$3 waited=0
  while true; do
    local done
    done=$(grep -o 'sweep: [0-9]*/' "$log" 2>/dev/null | tail -1 | tr -dc '0-9' || true)
    if [ -n "$done" ] && [ "$done" -ge "$wanted" ]; then return 0; fi
    sleep 0.1
    waited=$((waited + 1))
    if [ "$waited" -ge $((limit * 10)) ]; then echo "FAIL: no progress to $wanted points in $limit s"; cat "$log"; return 1; fi
  done
}

# PID of MPI rank $2 among the children of mpirun $1.
rank_pid() {
  local parent=$1 rank=$2 pid
  for pid in $(pgrep -P "$parent"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$rank"; then
      echo "$pid"
      return 0
    fi
  done
  return 1
}
