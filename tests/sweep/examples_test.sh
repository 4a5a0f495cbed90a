#!/usr/bin/env bash
# The README's main job: the default sweep on 2 MPI ranks prints a per-policy summary; and each
# example's --dry-run listing matches its golden file when run from the repository root.
source "$(dirname "$0")/common.sh"
for grid in "$SRC"/sweep/examples/*/grid.toml; do
  name=$(basename "$(dirname "$grid")")
  # A grid that replays ../shared's files (traces, Gavel's throughputs) needs ../shared.
  if grep -q '^[a-z_]* *= *".*/shared/' "$grid" && [ ! -d "$SRC/../shared" ]; then
    echo "skip $name dry run (it reads ../shared, which is absent)"
    continue
  fi
  (cd "$SRC" && "$BIN" sweep "sweep/examples/$name/grid.toml" --dry-run) >"$name.dry_run"
  diff -u "$SRC/sweep/examples/$name/dry_run.golden" "$name.dry_run" || { echo "FAIL: $name dry run differs"; exit 1; }
  echo "ok $name dry run"
done
# The mechanisms example's second grid replays ../shared's Philly-derived traces, when present.
if [ -d "$SRC/../shared/traces/gavel-philly" ]; then
  (cd "$SRC" && "$BIN" sweep sweep/examples/mechanisms/gavel_philly.toml --dry-run) >gavel_philly.dry_run
  grep -q "^# grid .*: 216 points" gavel_philly.dry_run || { echo "FAIL: gavel_philly dry run"; exit 1; }
  echo "ok mechanisms/gavel_philly dry run"
else
  echo "skip mechanisms/gavel_philly (no ../shared/traces/gavel-philly)"
fi
mpi_sweep 2 --out default.h5 >main.out 2>main.err
cat main.out
for policy in fifo sjf srtf las tiresias drf; do
  grep -q "^$policy " main.out || { echo "FAIL: summary lacks $policy"; exit 1; }
done
check schema default.h5 120
# The Compass example runs whole (450 serving points, ~10 s on 2 cores): the summary shows the
# serving columns per placement, and the analysis finds the fewest servers per placement.
(cd "$SRC" && mpi_sweep 2 sweep/examples/compass/grid.toml --out "$WORK/compass.h5") >compass.out 2>compass.err
grep -q "latency_p99_s" compass.out || { echo "FAIL: compass summary lacks latency_p99_s"; cat compass.out; exit 1; }
for placement in compass heft least_loaded round_robin model_affinity; do
  grep -q "^$placement " compass.out || { echo "FAIL: compass summary lacks $placement"; exit 1; }
done
if [ -n "$PYTHON" ]; then
  PYTHONPATH="$SRC" "$PYTHON" -m analysis fewest-servers compass.h5 --target 3 >fewest.out
  grep -q "^| 4 | compass | [0-9]" fewest.out || { echo "FAIL: no fewest servers for compass"; cat fewest.out; exit 1; }
  echo "ok compass fewest servers"
fi
echo PASS
