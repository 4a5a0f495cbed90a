#!/usr/bin/env bash
# Usage: scripts/mpirun_sweep.sh [MPIRUN_ARGS...] -- clustersim sweep GRID [SWEEP_ARGS...]
#   e.g. scripts/mpirun_sweep.sh -np 4 -- build/bin/clustersim sweep grid.toml --out r.h5
#
# `mpirun ... clustersim sweep` whose SIGTERM and SIGINT (Ctrl-C, `kill`) end in status 75 like a
# sweep on one rank or under Slurm. Open MPI's mpirun handles those two signals itself: it passes
# SIGTERM on to the ranks (which save the points done and exit 75), kills them 1 s later
# (odls_base_sigkill_timeout) and exits 1 whatever they exit with (Open MPI 4.1). SIGUSR1 it
# forwards untouched, so this script runs mpirun in a session of its own (the terminal's Ctrl-C
# reaches only this script) and turns SIGTERM and SIGINT into SIGUSR1 for mpirun: every rank
# stops, rank 0 saves the points done, and mpirun exits 75, as this script does.
set -u
MPIRUN=${MPIRUN:-mpirun}
args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  args+=("$1")
  shift
done
if [ $# -eq 0 ]; then
  echo "usage: $0 [MPIRUN_ARGS...] -- clustersim sweep GRID [SWEEP_ARGS...]" >&2
  exit 2
fi
shift  # the --
setsid "$MPIRUN" "${args[@]}" "$@" &
child=$!
stop() { kill -USR1 "$child" 2>/dev/null; }
trap stop TERM INT USR1
# `wait` returns early (status > 128) when a trapped signal arrives: wait again until mpirun ends.
while true; do
  wait "$child"
  status=$?
  kill -0 "$child" 2>/dev/null || break
done
exit "$status"
