#!/usr/bin/env bash
# --shard K/N and `clustersim merge`: the shards' dry-run listings partition the grid; three
# shards (one on 2 MPI ranks) merge into a file identical in content to an unsharded run's (every
# dataset of /points, /jobs and /timeseries, every attribute but provenance); a finished shard
# resumes as a no-op, another shard's file is refused; merge refuses missing shards and other
# grids with exit status 2 and writes nothing. `clustersim run GRID --point N` gives point N's row.
source "$(dirname "$0")/common.sh"
# The small grid with the power meter on at load 0.9 only (zipped: still 48 points), so /jobs
# and /timeseries carry columns a component adds (energy_kwh, power_w), NaN at load 0.6.
GRID=grid.toml
sed 's/^"workload.load" = \[0.6, 0.9\]$/"workload.load" = [0.6, 0.9]\n"power.enabled" = [false, true]\nzip = [["workload.load", "power.enabled"]]/' \
  "$DATA/small_grid.toml" >"$GRID"
grep -q '^zip' "$GRID" || { echo "FAIL: the power axis was not added"; exit 1; }
POINTS=48
N=3

# The listings of the N shards hold every point of the full listing exactly once.
sweep "$GRID" --dry-run | grep -v '^#' | sort >all.txt
for k in $(seq 0 $((N - 1))); do
  sweep "$GRID" --dry-run --shard "$k/$N" >dry$k.txt
  grep -q "^# shard $k/$N: " dry$k.txt || { echo "FAIL: no shard line"; cat dry$k.txt; exit 1; }
done
cat dry*.txt | grep -v '^#' | sort >union.txt
cmp all.txt union.txt || { echo "FAIL: shard listings do not partition the grid"; exit 1; }
[ "$(wc -l <all.txt)" -eq $POINTS ] || { echo "FAIL: expected $POINTS points"; exit 1; }

mpi_sweep 2 "$GRID" --shard 0/$N --out part0.h5 --save-jobs --save-timeseries --threads 1 -q
sweep "$GRID" --shard 1/$N --out part1.h5 --save-jobs --save-timeseries --threads 2 -q
sweep "$GRID" --shard 2/$N --out part2.h5 --save-jobs --save-timeseries --threads 1 -q
mpi_sweep 2 "$GRID" --out full.h5 --save-jobs --save-timeseries --threads 1 -q

# `clustersim run GRID --point N` reproduces one point of the sweep (its axis values and seed).
for point in 0 17 $((POINTS - 1)); do
  "$BIN" run "$GRID" --point $point --json >point$point.json
  check point full.h5 $point point$point.json
done

# A finished shard resumes as a no-op; resuming it as another shard (or unsharded) is refused.
sweep "$GRID" --shard 0/$N --out part0.h5 --save-jobs --save-timeseries --resume >noop.out
grep -q "already holds all .* points of shard 0/$N" noop.out || { echo "FAIL: no-op resume"; cat noop.out; exit 1; }
for other in "--shard 1/$N" ""; do
  status=0
  # shellcheck disable=SC2086
  sweep "$GRID" $other --out part0.h5 --save-jobs --save-timeseries --resume -q 2>other.err || status=$?
  [ "$status" -eq 2 ] && grep -q "was written by --shard 0/$N" other.err ||
    { echo "FAIL: resume with '$other' of a shard-0 file: status $status"; cat other.err; exit 1; }
done

"$BIN" merge merged.h5 part2.h5 part0.h5 part1.h5 | tee merge.out
grep -q "merged 3 files into merged.h5 ($POINTS of $POINTS points)" merge.out || { echo "FAIL: merge output"; exit 1; }
check schema merged.h5 $POINTS --jobs --timeseries
check identical full.h5 merged.h5
if [ -n "$PYTHON" ]; then
"$PYTHON" - <<'PY' || { echo "FAIL: component columns"; exit 1; }
import h5py, numpy as np
with h5py.File("merged.h5", "r") as f:
    load = dict(zip(f["points/point_id"][()], f["points/workload.load"][()]))
    metered = np.array([load[p] == 0.9 for p in f["jobs/point_id"][()]])
    energy = f["jobs/energy_kwh"][()]
    assert np.isnan(energy[~metered]).all() and (energy[metered] > 0).all(), "energy_kwh"
    assert f["jobs/energy_kwh"].attrs["unit"] == "kWh"
    power = f["timeseries/power_w"][()]
    assert np.isfinite(power).any() and np.isnan(power).any(), "power_w"
print("ok component columns: energy_kwh and power_w, NaN where the meter was off")
PY
fi

# Refusals: exit 2, nothing written.
status=0
"$BIN" merge missing.h5 part0.h5 part2.h5 2>missing.err || status=$?
[ "$status" -eq 2 ] && [ ! -e missing.h5 ] && grep -q "no input is shard 1 of $N" missing.err ||
  { echo "FAIL: missing shard not refused (status $status)"; cat missing.err; exit 1; }
sed 's/seed = 11/seed = 12/' "$GRID" >other_grid.toml
sweep other_grid.toml --shard 1/$N --out other1.h5 --save-jobs --save-timeseries -q
status=0
"$BIN" merge other.h5 part0.h5 other1.h5 part2.h5 2>other.err || status=$?
[ "$status" -eq 2 ] && [ ! -e other.h5 ] && grep -q "is from another grid" other.err ||
  { echo "FAIL: other grid not refused (status $status)"; cat other.err; exit 1; }
# A shard whose /jobs holds rows of a point its /points lacks (hand-edited, damaged): refused,
# named, nothing written.
if [ -n "$PYTHON" ]; then
cp part1.h5 stray1.h5
stray=$("$PYTHON" - <<'PY'
import h5py
with h5py.File("stray1.h5", "a") as f:
    held = set(f["points/point_id"][()].tolist())
    stray = min(set(range(1000)) - held)
    ids = f["jobs/point_id"][()]
    ids[0] = stray
    f["jobs/point_id"][...] = ids
    print(stray)
PY
)
status=0
"$BIN" merge stray.h5 part0.h5 stray1.h5 part2.h5 2>stray.err || status=$?
[ "$status" -eq 2 ] && [ ! -e stray.h5 ] && ! compgen -G "stray.h5*" >/dev/null &&
  grep -qF "stray1.h5: /jobs has 1 row of point $stray, which its /points does not hold" stray.err ||
  { echo "FAIL: /jobs rows of an unknown point not refused (status $status)"; cat stray.err; exit 1; }
echo "ok stray /jobs rows: $(head -1 stray.err)"
fi
status=0
"$BIN" merge merged.h5 part0.h5 part1.h5 part2.h5 2>exists.err || status=$?
[ "$status" -eq 2 ] && grep -q -- "--overwrite" exists.err || { echo "FAIL: existing output not protected"; exit 1; }
echo PASS
