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
  if compgen -G "$name.h5*" >/dev/null; then
    echo "FAIL $name: left a file behind: $(compgen -G "$name.h5*")"; exit 1
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

# Grid files: the exact FILE:LINE: field 'F' prefix of each error, on one rank.
cat >base.toml <<'EOF'
[cluster]
nodes = 2
gpus_per_node = 8

[workload]
generator = "philly"
jobs = 50

[sweep]
"scheduler.policy" = ["fifo", "las"]
seeds = 2
EOF
cases=0
expect_error() {  # NAME PREFIX TEXT [SED_SCRIPT | -- ARGS...]: the grid is base.toml edited by SED_SCRIPT
  local name=$1 prefix=$2 text=$3
  shift 3
  local args=("$name.toml" --out "$name.h5")
  if [ "${1:-}" = "--" ]; then
    shift
    args=("$@")
  else
    sed "${1:-}" base.toml >"$name.toml"
  fi
  local status=0
  sweep "${args[@]}" -q >"$name.out" 2>"$name.err" || status=$?
  local first
  first=$(head -1 "$name.err")
  [ "$status" -eq 2 ] || { echo "FAIL $name: exit status $status, want 2"; cat "$name.err"; exit 1; }
  case "$first" in
    "clustersim sweep: error: $prefix"*) ;;
    *) echo "FAIL $name: want 'clustersim sweep: error: $prefix...'"; echo "got: $first"; exit 1 ;;
  esac
  grep -qF -- "$text" "$name.err" || { echo "FAIL $name: message lacks '$text'"; cat "$name.err"; exit 1; }
  # Short: one error, not a dump (an unknown policy lists the 19 policies: ~510 characters).
  [ "$(wc -c <"$name.err")" -lt 600 ] || { echo "FAIL $name: long message"; exit 1; }
  if compgen -G "$name.h5*" >/dev/null; then echo "FAIL $name: left $(compgen -G "$name.h5*")"; exit 1; fi
  cases=$((cases + 1))
  echo "ok $name: $first"
}
axis() { echo "s|^\"scheduler.policy\" = .*|$1|"; }
long_name=$(printf 'y%.0s' $(seq 3000))
expect_error unknown_axis_table "unknown_axis_table.toml:10: field 'sched': " "unknown table" "$(axis '"sched.policy" = ["fifo"]')"
expect_error misspelt_axis_key "misspelt_axis_key.toml:10: field 'scheduler.polcy': " "did you mean 'policy'" "$(axis '"scheduler.polcy" = ["fifo"]')"
expect_error axis_not_a_list "axis_not_a_list.toml:10: field 'sweep.scheduler.policy': " "must be a list" "$(axis '"scheduler.policy" = "fifo"')"
expect_error axis_empty "axis_empty.toml:10: field 'sweep.scheduler.policy': " "axis is empty" "$(axis '"scheduler.policy" = []')"
expect_error axis_mixed_types "axis_mixed_types.toml:10: field 'sweep.scheduler.policy': " "mixes value types" "$(axis '"scheduler.policy" = ["fifo", 1]')"
expect_error axis_duplicate_value "axis_duplicate_value.toml:10: field 'sweep.scheduler.policy': " "lists the value fifo twice" "$(axis '"scheduler.policy" = ["fifo", "fifo"]')"
expect_error axis_not_dotted "axis_not_dotted.toml:10: field 'sweep.polices': " "neither an axis" "$(axis 'polices = ["fifo"]')"
expect_error axis_workload_seed "axis_workload_seed.toml:10: field 'sweep.workload.seed': " "derives from the grid seed" "$(axis '"workload.seed" = [1, 2]')"
expect_error axis_bad_value "axis_bad_value.toml:10: field 'scheduler.policy': " "unknown value 'nosuch'" "$(axis '"scheduler.policy" = ["fifo", "nosuch"]')"
expect_error axis_wrong_type "axis_wrong_type.toml:10: field 'scheduler.lease_s': " "expected a number" "$(axis '"scheduler.lease_s" = ["long"]')"
expect_error axis_into_a_value "axis_into_a_value.toml:10: field 'sweep.workload.generator.x': " "is a value in the run config" "$(axis '"workload.generator.x" = [1]')"
expect_error axis_huge_name "axis_huge_name.toml:10: field 'sweep.x.${long_name:0:72}...': " "is empty" "$(axis "\"x.$long_name\" = []")"
expect_error seeds_zero "seeds_zero.toml:11: field 'sweep.seeds': " "must be at least 1" "s|^seeds = .*|seeds = 0|"
expect_error seeds_not_integer "seeds_not_integer.toml:11: field 'sweep.seeds': " "must be an integer" 's|^seeds = .*|seeds = "two"|'
expect_error seed_negative "seed_negative.toml:11: field 'sweep.seed': " "must be at least 0" "s|^seeds = .*|seed = -1|"
expect_error paired_seeds_not_bool "paired_seeds_not_bool.toml:11: field 'sweep.paired_seeds': " "true or false" "s|^seeds = .*|paired_seeds = 1|"
expect_error zip_unknown_axis "zip_unknown_axis.toml:11: field 'sweep.zip': " "names 'workload.load'" 's|^seeds = .*|zip = [["scheduler.policy", "workload.load"]]|'
expect_error zip_unequal "zip_unequal.toml:13: field 'sweep.zip': " "equally many values" '/^seeds = /a "workload.load" = [0.5]\nzip = [["scheduler.policy", "workload.load"]]'
expect_error sweep_not_a_table "sweep_not_a_table.toml:1: field 'sweep': " "must be a table" '/^\[sweep\]/,$d; 1i sweep = 5'
expect_error toml_syntax "toml_syntax.toml:10: " "not valid TOML" "$(axis '"scheduler.policy" = ["fifo",,]')"
expect_error run_table_unknown "run_table_unknown.toml:1: field 'clustr': " "unknown table" 's|^\[cluster\]|[clustr]|'
expect_error run_key_misspelt "run_key_misspelt.toml:7: field 'workload.jbos': " "did you mean 'jobs'" 's|^jobs = |jbos = |'
# A file or folder the grid names, missing: the message names it (not only the grid).
expect_error profile_folder_missing "no_profiles: " "profile folder does not exist or is not a folder (named by profile_folder_missing.toml, in grid point 0: " 's|^jobs = 50|jobs = 50\n\n[throughput]\nmodel = "profile"\nprofiles = "no_profiles"|'
mkdir grid_dir
expect_error grid_is_a_directory "grid_dir: " "is a directory, not a grid file" -- grid_dir --out d.h5
expect_error grid_missing "no_grid.toml: " "cannot open the grid file: No such file" -- no_grid.toml --out d.h5
expect_error out_folder_missing "nope/o.h5: field '--out': " "the folder 'nope' does not exist" -- base.toml --out nope/o.h5
expect_error out_is_a_directory "grid_dir: field '--out': " "is a directory" -- base.toml --out grid_dir
echo "grid cases: $cases"

touch exists.h5
status=0
sweep "$GRID" --out exists.h5 >exists.out 2>exists.err || status=$?
[ "$status" -eq 2 ] && grep -q -- "--overwrite" exists.err || { echo "FAIL exists: $status"; cat exists.err; exit 1; }
[ ! -s exists.h5 ] || { echo "FAIL exists: file changed"; exit 1; }
echo "ok exists: $(head -1 exists.err)"
sweep "$GRID" --out exists.h5 --overwrite -q
check once exists.h5 48
echo PASS
