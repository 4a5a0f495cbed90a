#!/usr/bin/env bash
# Bad input is refused before any simulation: clear message, exit 2, no file left behind.
source "$(dirname "$0")/common.sh"
GRID=$DATA/small_grid.toml

# Most cases run on one rank (fast); two run on 2 ranks to show that every rank exits cleanly.
expect_refusal() {  # NAME EXPECTED_TEXT GRID_FILE [RANKS]
  local name=$1 expected=$2 grid=$3 ranks=${4:-1}
  local status=0
  if [ "$ranks" -eq 1 ]; then
    sweep "$grid" --out "$name.h5" >"$name.out" 2>"$name.err" || status=$?
  else
    mpi_sweep "$ranks" "$grid" --out "$name.h5" >"$name.out" 2>"$name.err" || status=$?
  fi
  if [ "$status" -ne 2 ]; then echo "FAIL $name: exit status $status, want 2"; cat "$name.err"; exit 1; fi
  if ! grep -q -- "$expected" "$name.err"; then echo "FAIL $name: message lacks '$expected'"; cat "$name.err"; exit 1; fi
  if [ -e "$name.h5" ] || [ -e "$name.h5.journal" ] || [ -e "$name.h5.tmp" ]; then
    echo "FAIL $name: left a file behind"; exit 1
  fi
  echo "ok $name: $(head -1 "$name.err")"
}

variant() {  # NAME: small grid with its [sweep] table's policy axis line replaced by $2
  sed "s|^\"scheduler.policy\" = .*|$2|" "$GRID" >"$1.toml"
}

variant unknown_axis '"scheduler.polcy" = ["fifo"]'
expect_refusal unknown_axis "polcy" unknown_axis.toml 2
variant unknown_table '"sched.policy" = ["fifo"]'
expect_refusal unknown_table "sched" unknown_table.toml
variant empty_axis '"scheduler.policy" = []'
expect_refusal empty_axis "axis is empty" empty_axis.toml
variant type_mismatch '"scheduler.lease_s" = ["long"]'
expect_refusal type_mismatch "lease_s" type_mismatch.toml
variant bad_value '"scheduler.policy" = ["fifo", "nosuch"]'
expect_refusal bad_value "nosuch" bad_value.toml
variant unknown_key 'polices = ["fifo"]'
expect_refusal unknown_key "neither an axis" unknown_key.toml
sed 's|^generator = .*|trace = "no_such_trace.csv"|; /^jobs = /d; /^"workload.load"/d' "$GRID" >bad_trace.toml
expect_refusal bad_trace "no_such_trace.csv" bad_trace.toml 2
expect_refusal missing_grid "cannot open" no_such_grid.toml

touch exists.h5
status=0
sweep "$GRID" --out exists.h5 >exists.out 2>exists.err || status=$?
[ "$status" -eq 2 ] && grep -q -- "--overwrite" exists.err || { echo "FAIL exists: $status"; cat exists.err; exit 1; }
[ ! -s exists.h5 ] || { echo "FAIL exists: file changed"; exit 1; }
echo "ok exists: $(head -1 exists.err)"
sweep "$GRID" --out exists.h5 --overwrite -q
check once exists.h5 48
echo PASS
