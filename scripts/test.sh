#!/usr/bin/env bash
# Install what is missing, build, and pass every test: first the optimized build, then (unless
# CLUSTERSIM_SKIP_SANITIZE=1) the same suites under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

echo "== build (Release) =="
scripts/build.sh
echo "== tests (Release) =="
# The real-Slurm test (tests/slurm/real_slurm_test.sh) spends most of its 4-6 minutes waiting on
# Slurm's one-minute time limits and requeues (its sweeps take about a minute of CPU). Among the
# other tests it held a ctest slot all that time, and the 2-slot tests (the MPI sweeps) waited
# for it: it runs after them instead, beside the sanitizer build, its log printed when it ends.
ctest --test-dir build --output-on-failure -j "$jobs" -E '^slurm_e2e_real$'
slurm_log=$(mktemp)
ctest --test-dir build --output-on-failure -R '^slurm_e2e_real$' >"$slurm_log" 2>&1 &
slurm_test=$!
finish_slurm_test() {
  local status=0
  wait "$slurm_test" || status=$?
  echo "== tests (Release): the real-Slurm test, run beside the sanitizer build =="
  cat "$slurm_log"
  rm -f "$slurm_log"
  return "$status"
}

if [ "${CLUSTERSIM_SKIP_SANITIZE:-0}" != 1 ]; then
  echo "== build (ASan + UBSan) =="
  # -O1 -g1 (the sanitizers' recommended level; line tables for their reports): this build
  # compiles in about half the time of RelWithDebInfo's -O2 -g (nlohmann::json-heavy files 2.5x).
  BUILD_DIR=build-asan BUILD_TYPE=RelWithDebInfo scripts/build.sh -DCLUSTERSIM_SANITIZE=ON -DCLUSTERSIM_BUILD_BENCH=OFF \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
  finish_slurm_test
  echo "== tests (ASan + UBSan) =="
  # MPI launches are exercised by the Release run; under ASan, Open MPI's own leaks would be noise.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE mpi
else
  finish_slurm_test
fi
