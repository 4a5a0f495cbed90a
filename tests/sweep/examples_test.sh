#!/usr/bin/env bash
# The README's main job: the default sweep on 2 MPI ranks prints a per-policy summary; and each
# example's --dry-run listing matches its golden file when run from the repository root.
source "$(dirname "$0")/common.sh"
for grid in "$SRC"/sweep/examples/*/grid.toml; do
  name=$(basename "$(dirname "$grid")")
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
check schema default.h5 36
echo PASS
