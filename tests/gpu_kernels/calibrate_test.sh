#!/usr/bin/env bash
# gpu_kernels/calibrate.sh end to end in its --smoke mode: argument errors exit 2 naming the
# argument; without a GPU it builds, runs the CPU stages (their JSON written) and exits 3 with
# a clear message; with a GPU it writes the profile of the model asked for.
#   calibrate_test.sh SOURCE_DIR WORK_DIR
set -uo pipefail
src=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
cal="$src/gpu_kernels/calibrate.sh"

status=0; bash "$cal" --models nosuchnet >bad.log 2>&1 || status=$?
[ $status -eq 2 ] && grep -q "unknown model 'nosuchnet'" bad.log || fail "unknown model: status $status: $(cat bad.log)"
status=0; bash "$cal" --corpus-dir "$work/missing" >bad.log 2>&1 || status=$?
[ $status -eq 2 ] && grep -q "missing: not a directory" bad.log || fail "bad corpus dir: status $status: $(cat bad.log)"
status=0; bash "$cal" --framework-factor 1.5 >bad.log 2>&1 || status=$?
[ $status -eq 2 ] && grep -q "framework-factor 1.5: must be a number in (0, 1]" bad.log &&
  ! grep -q "building" bad.log || fail "bad framework factor: status $status: $(cat bad.log)"
status=0; bash "$cal" --frobnicate >bad.log 2>&1 || status=$?
[ $status -eq 2 ] && grep -q "unknown argument '--frobnicate'" bad.log || fail "unknown argument: status $status"

# Without a GPU the build leaves CUDA out (--host-only): nvcc's compiler checks and the .cu
# files take minutes of a CI run and change nothing on this path.
gpu=0
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && gpu=1
host_only=()
[ $gpu = 1 ] || host_only=(--host-only)
status=0
bash "$cal" --smoke "${host_only[@]}" --models lstm --build-dir "$work/build" --reports-dir "$work/reports" \
  --out-dir "$work/profiles" >run.log 2>&1 || status=$?
for f in cpu_prep.json storage.json; do
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['results'], 'no results'" \
    "$work/reports/$f" || fail "$f missing or empty: $(cat run.log)"
done
if [ $gpu = 1 ]; then
  [ $status -eq 0 ] && [ -s "$work/profiles/lstm.json" ] || fail "GPU machine: status $status: $(tail -5 run.log)"
else
  [ $status -eq 3 ] && grep -q "no usable GPU" run.log && grep -q "no profile was written" run.log ||
    fail "no GPU: expected exit 3 and a clear message, got $status: $(tail -5 run.log)"
  [ ! -e "$work/profiles" ] || fail "a profile folder was created without a GPU"
  [ ! -e "$work/build/bin/ckb_compute" ] || fail "--host-only built the CUDA benchmarks"
fi
bash "$cal" --help | grep -q -- "--host-only" || fail "--help does not list --host-only"
echo PASS
