#!/usr/bin/env bash
# One-command calibration of a GPU node: builds the CUDA-only gpu_kernels project, runs the
# stage benchmarks and clustersim-profile for each model, checks every profile was written and
# writes a summary. Needs CUDA (nvcc + cuBLAS) and CMake only: no MPI, HDF5 or TBB.
#
#   gpu_kernels/calibrate.sh [--gpu-type NAME] [--models all|m1,m2,...] [--corpus-dir DIR]
#                            [--out-dir DIR] [--reports-dir DIR] [--build-dir DIR]
#                            [--jpeg-root DIR] [--framework-factor F] [--quick] [--host-only]
#                            [-- extra clustersim-profile options]
#
#   --gpu-type NAME    profiles' gpu_type (default: from the device name, e.g. h100)
#   --models LIST      model zoo names (default all)
#   --corpus-dir DIR   image models and the image prep benchmark read the JPEG files of DIR
#                      instead of the synthetic corpus (gpu_kernels/reference/make_jpeg_corpus.py)
#   --out-dir DIR      where profiles go (default profiles/<gpu-type>)
#   --reports-dir DIR  raw reports, benchmark JSON, logs and summary (default
#                      calibration-<gpu-type>; never inside a profile folder)
#   --build-dir DIR    build tree (default build-gpu)
#   --jpeg-root DIR    a libjpeg-turbo without system headers: DIR/include/jpeglib.h and
#                      DIR/lib/libjpeg.a (e.g. unpacked from Debian's libjpeg62-turbo-dev)
#   --framework-factor F  image models: a real framework's prep rate over ours (torchvision
#                      DataLoader vs our C++ prep on the same corpus; profiles/README.md); the
#                      profiles' prep-bound rows are scaled by F (default 1: none)
#   --skip-pipeline-validation  no ckb_pipeline table (predicted vs measured, host-only)
#   --quick            shorter measurement limits (--max-time 4, 0.5 s trials, 1 GB dataset)
#   --skip-stage-benchmarks  no standalone ckb_* tables (each profile measures its own stages)
#   --host-only        build without CUDA (-DCKBENCH_CUDA=OFF): the CPU stages only, then exit 3;
#                      for a node without a GPU (nvcc's compiler checks alone take minutes)
#   --smoke            tests the script itself: tiny limits, text pipeline only (numbers mean
#                      nothing)
#
# Exits 0 when every model's profile was written; 3 when no usable GPU (after the CPU stages
# ran and wrote their JSON); 1 on any other failure, naming the model and its log.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
gpu_type="" models="all" corpus_dir="" out_dir="" reports_dir="" build_dir="" jpeg_root="" quick=0
stage_benchmarks=1 framework_factor="" pipeline_validation=1 host_only=0
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu-type) gpu_type=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --corpus-dir) corpus_dir=$2; shift 2 ;;
    --out-dir) out_dir=$2; shift 2 ;;
    --reports-dir) reports_dir=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --jpeg-root) jpeg_root=$2; shift 2 ;;
    --framework-factor) framework_factor=$2; shift 2 ;;
    --skip-pipeline-validation) pipeline_validation=0; shift ;;
    --quick) quick=1; shift ;;
    --skip-stage-benchmarks) stage_benchmarks=0; shift ;;
    --smoke) quick=2; shift ;;
    --host-only) host_only=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "calibrate.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
all_models="resnet18 resnet50 mobilenet_v2 shufflenet alexnet vgg16 transformer bert_base gnmt lstm deepspeech m5 recommendation"
[ "$models" = all ] && models=$all_models
models=${models//,/ }
for m in $models; do
  case " $all_models " in *" $m "*) ;; *) echo "calibrate.sh: --models: unknown model '$m' (one of: $all_models)" >&2; exit 2 ;; esac
done
if [ -n "$corpus_dir" ] && [ ! -d "$corpus_dir" ]; then
  echo "calibrate.sh: --corpus-dir $corpus_dir: not a directory" >&2; exit 2
fi
factor_args=()
if [ -n "$framework_factor" ]; then
  awk -v f="$framework_factor" 'BEGIN { exit !(f + 0 > 0 && f + 0 <= 1 && f ~ /^[0-9.]+$/) }' ||
    { echo "calibrate.sh: --framework-factor $framework_factor: must be a number in (0, 1]" >&2; exit 2; }
  factor_args=(--framework-factor "$framework_factor")
fi
log() { echo "[$(date '+%H:%M:%S')] calibrate: $*"; }

# 1. Build (CUDA only; the JPEG pipeline from the system or --jpeg-root).
build_dir=${build_dir:-$repo/build-gpu}
cmake_args=(-S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release)
[ $host_only = 1 ] && cmake_args+=(-DCKBENCH_CUDA=OFF)
if [ -n "$jpeg_root" ]; then
  [ -f "$jpeg_root/include/jpeglib.h" ] || { echo "calibrate.sh: --jpeg-root: no $jpeg_root/include/jpeglib.h" >&2; exit 2; }
  lib=$(ls "$jpeg_root"/lib/libjpeg.a "$jpeg_root"/lib/libjpeg.so 2>/dev/null | head -1)
  [ -n "$lib" ] || { echo "calibrate.sh: --jpeg-root: no $jpeg_root/lib/libjpeg.a or libjpeg.so" >&2; exit 2; }
  cmake_args+=(-DJPEG_INCLUDE_DIR="$jpeg_root/include" -DJPEG_LIBRARY="$lib")
fi
log "building gpu_kernels in $build_dir"
cmake "${cmake_args[@]}" >"${TMPDIR:-/tmp}/calibrate-cmake.log" 2>&1 &&
  cmake --build "$build_dir" -j "$(nproc)" >>"${TMPDIR:-/tmp}/calibrate-cmake.log" 2>&1 ||
  { cat "${TMPDIR:-/tmp}/calibrate-cmake.log" >&2; echo "calibrate.sh: build failed" >&2; exit 1; }
bin=$build_dir/bin
grep -q "JPEG pipeline enabled" "${TMPDIR:-/tmp}/calibrate-cmake.log" ||
  grep -q "JPEG_FOUND:INTERNAL=TRUE\|JPEG_LIBRARY_RELEASE" "$build_dir/CMakeCache.txt" ||
  log "warning: no libjpeg-turbo: image models will be refused (pass --jpeg-root)"

# GPU present? (the profiler itself says 'skipped: no CUDA device' and exits 0 without one)
have_gpu=0
if [ -x "$bin/ckb_compute" ] && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  have_gpu=1
fi
if [ -z "$gpu_type" ]; then
  if [ $have_gpu = 1 ]; then
    name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z')
    for t in h200 h100 a100 a10 l40 l4 v100 t4; do
      case "$name" in *"$t"*) gpu_type=$t; break ;; esac
    done
    [ -n "$gpu_type" ] || gpu_type=$(echo "$name" | tr -c 'a-z0-9\n' '_')
  else
    gpu_type=none
  fi
fi
out_dir=${out_dir:-$repo/profiles/$gpu_type}
reports_dir=${reports_dir:-$repo/calibration-$gpu_type}
mkdir -p "$reports_dir" || exit 1

limits=(--max-time 10)
storage_args=(--threads "1,2,4,8,$(nproc)")
profile_limits=()
cpu_kinds=()
if [ $quick = 1 ]; then
  limits=(--max-time 2 --min-time 0.2)
  storage_args=(--blocks 131072 --threads "1,4,$(nproc)" --file-mb 2048)
  profile_limits=(--max-time 4 --trial-s 0.5 --dataset-mb 1024)
elif [ $quick = 2 ]; then
  limits=(--max-time 0.3 --min-time 0.05 --min-samples 2)
  storage_args=(--blocks 131072 --threads 1 --file-mb 32 --cache-mb 32)
  profile_limits=(--max-time 1 --trial-s 0.2 --dataset-mb 64)
  cpu_kinds=(--kinds text --threads 1)
fi
corpus_args=()
[ -n "$corpus_dir" ] && corpus_args=(--corpus-dir "$corpus_dir")

# 2. CPU stages (need no GPU).
if [ $stage_benchmarks = 1 ]; then
log "CPU preprocessing benchmark (all pipelines, 1..$(nproc) cores)"
"$bin/ckb_cpu_prep" "${limits[@]}" "${cpu_kinds[@]}" "${corpus_args[@]}" --json "$reports_dir/cpu_prep.json" \
  >"$reports_dir/cpu_prep.log" 2>&1 || { cat "$reports_dir/cpu_prep.log" >&2; exit 1; }
log "storage benchmark in ${TMPDIR:-/tmp}"
"$bin/ckb_storage" "${limits[@]}" "${storage_args[@]}" --json "$reports_dir/storage.json" \
  >"$reports_dir/storage.log" 2>&1 || { cat "$reports_dir/storage.log" >&2; exit 1; }
fi
# The pipeline formula against a stand-in pipeline (real image prep and storage, a consumer of
# known rate) at 1 .. all cores: host-only; skipped in --smoke and without libjpeg-turbo.
if [ $pipeline_validation = 1 ] && [ $quick != 2 ] && [ -x "$bin/ckb_pipeline" ]; then
  log "pipeline validation (ckb_pipeline, 1..$(nproc) workers) in ${TMPDIR:-/tmp}"
  "$bin/ckb_pipeline" "${corpus_args[@]}" --file "${TMPDIR:-/tmp}/ckb_pipeline.dat" \
    --workers "$(printf '%s\n' 1 2 4 8 "$(nproc)" | awk -v n="$(nproc)" '$1 <= n' | sort -nu | paste -sd,)" \
    --cache 0,0.5,1 --consumer-rates 0 --storage-shares 0 --repeats "$([ $quick = 1 ] && echo 1 || echo 3)" \
    >"$reports_dir/pipeline_validation.md" 2>&1 ||
    log "warning: ckb_pipeline failed (see $reports_dir/pipeline_validation.md)"
fi
if [ $have_gpu = 0 ]; then
  echo "calibrate.sh: no usable GPU on $(hostname) (nvidia-smi missing or lists no device, or" \
       "gpu_kernels was built without CUDA): the CPU stages ran (JSON in $reports_dir);" \
       "no profile was written" >&2
  exit 3
fi

# 3. GPU stage benchmarks.
if [ $stage_benchmarks = 1 ]; then
log "GPU compute (all models) and host-to-device copies"
"$bin/ckb_compute" --models all "${limits[@]}" --json "$reports_dir/compute.json" \
  >"$reports_dir/compute.log" 2>&1 || { cat "$reports_dir/compute.log" >&2; exit 1; }
"$bin/ckb_h2d" "${limits[@]}" --json "$reports_dir/h2d.json" \
  >"$reports_dir/h2d.log" 2>&1 || { cat "$reports_dir/h2d.log" >&2; exit 1; }
fi

# 4. One profile per model, with progress and an estimate of the time left.
set -- $models
total=$# done_n=0 failed=() start=$(date +%s)
summary=$reports_dir/summary.tsv
printf 'model\tseconds\tstatus\tgpu_samples_per_s\tcpu_knee\tmemory_model_mean_abs_error\tmemory_model_max_abs_error\n' >"$summary"
for m in $models; do
  if [ $done_n -gt 0 ]; then
    left=$(( ( $(date +%s) - start ) * (total - done_n) / done_n ))
    log "[$((done_n + 1))/$total] $m (about ${left}s left)"
  else
    log "[1/$total] $m"
  fi
  t0=$(date +%s)
  model_corpus=()
  case "$m" in resnet18|resnet50|mobilenet_v2|shufflenet|alexnet|vgg16) model_corpus=("${corpus_args[@]}" "${factor_args[@]}") ;; esac
  rm -f "$out_dir/$m.json"
  "$bin/clustersim-profile" --model "$m" --gpu-type "$gpu_type" --out "$out_dir/$m.json" \
    --report "$reports_dir/$m.report.json" "${profile_limits[@]}" "${model_corpus[@]}" \
    "${extra[@]}" >"$reports_dir/$m.log" 2>&1
  rc=$? secs=$(( $(date +%s) - t0 ))
  done_n=$((done_n + 1))
  if [ $rc -ne 0 ] || [ ! -s "$out_dir/$m.json" ]; then
    failed+=("$m")
    log "  FAILED (exit $rc, log $reports_dir/$m.log): $(tail -1 "$reports_dir/$m.log")"
    printf '%s\t%s\tfailed\t\t\t\t\n' "$m" "$secs" >>"$summary"
    continue
  fi
  python3 - "$reports_dir/$m.report.json" "$m" "$secs" >>"$summary" <<'EOF' || printf '%s\t%s\twritten\t\t\t\t\n' "$m" "$secs" >>"$summary"
import json, sys
r = json.load(open(sys.argv[1]))
v = r.get("memory_validation", {})
print("\t".join(str(x) for x in (sys.argv[2], sys.argv[3], "written", round(r["gpu"]["samples_per_s"], 1),
                                   r.get("cpu_knee", ""), v.get("mean_abs_error", ""), v.get("max_abs_error", ""))))
EOF
  log "  $(grep -E 'GPU step|memory model error' "$reports_dir/$m.log" | tr -s ' ' | paste -sd';') (${secs}s)"
done
log "summary: $summary"
column -t -s $'\t' "$summary" 2>/dev/null || cat "$summary"
if [ ${#failed[@]} -gt 0 ]; then
  echo "calibrate.sh: no profile for: ${failed[*]} (logs in $reports_dir)" >&2
  exit 1
fi
log "wrote $total profiles to $out_dir"
