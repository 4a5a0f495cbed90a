#!/usr/bin/env bash
# The whole GPU calibration study on one node, unattended, in the order that matters when the
# GPU is lent for minutes: an inventory of the machine; an ImageNet-like JPEG corpus (written
# while gpu_kernels builds); the PyTorch reference (torch_reference.py); the framework factor
# (DataLoader at 1 worker / our prep at 1 core, same corpus); gpu_kernels/calibrate.sh for the
# models in the order given, with that factor, stopped at --deadline; compare.py's
# predicted-vs-measured tables. Everything lands in OUT_DIR, written as it goes, so a study cut
# short keeps what it finished; run it again with --skip-torch --models REST to go on.
#
#   gpu_kernels/reference/run_study.sh --photos DIR --out OUT_DIR [--jpeg-root DIR]
#       [--corpus-count N] [--models LIST] [--gpu-type NAME] [--full] [--deadline S]
#       [--no-torch | --skip-torch] [--skip-stage-benchmarks] [--build-dir DIR]
#       [-- clustersim-profile options]
#
#   --photos DIR      source photos for make_jpeg_corpus.py
#   --jpeg-root DIR   libjpeg-turbo headers + library where the node has none (calibrate.sh)
#   --corpus-count N  corpus files (default 16000: a cold DataLoader run reads each at most once)
#   --models LIST     calibrate.sh's models, in this order (default: the two the PyTorch
#                     reference checks first, then the rest of the zoo)
#   --full            calibrate.sh without --quick (longer, tighter measurements)
#   --deadline S      stop calibrating S seconds after the study started (the model under way
#                     is lost; finished profiles stay); default none
#   --no-torch        no PyTorch reference and no framework factor
#   --skip-torch      keep OUT_DIR/torch_reference.json from an earlier run (factor from it)
#   --skip-stage-benchmarks  passed to calibrate.sh
#   --build-dir DIR   gpu_kernels' build tree (default build-gpu in the repository)
# Progress goes to OUT_DIR/study.log; OUT_DIR/DONE holds the exit status of each part.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
photos="" out="" jpeg_root="" build="" count=16000 gpu_type="" quick=--quick torch=1 deadline=0
models=resnet50,resnet18,m5,recommendation,vgg16,alexnet,mobilenet_v2,shufflenet,transformer,bert_base,gnmt,lstm,deepspeech
cal_extra=() profile_extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --photos) photos=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --jpeg-root) jpeg_root=$2; shift 2 ;;
    --corpus-count) count=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --gpu-type) gpu_type=$2; shift 2 ;;
    --full) quick=""; shift ;;
    --deadline) deadline=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --no-torch) torch=0; shift ;;
    --skip-torch) torch=2; shift ;;
    --skip-stage-benchmarks) cal_extra+=(--skip-stage-benchmarks); shift ;;
    --) shift; profile_extra=("$@"); break ;;
    *) echo "run_study.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -d "$photos" ] && [ -n "$out" ] || { echo "run_study.sh: needs --photos DIR and --out DIR" >&2; exit 2; }
case "$deadline" in *[!0-9]*) echo "run_study.sh: --deadline $deadline: seconds expected" >&2; exit 2 ;; esac
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
corpus=${TMPDIR:-/tmp}/clustersim-jpeg-corpus
build=${build:-$repo/build-gpu}
t0=$(date +%s)
exec >>"$out/study.log" 2>&1
say() { echo "[$(date -u '+%H:%M:%S') +$(($(date +%s) - t0))s] $*"; }
say "study starts"
{
  echo "## date"; date -u
  echo "## nvidia-smi"; nvidia-smi
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit,pcie.link.gen.max,pcie.link.width.max --format=csv
  echo "## nvcc"; nvcc --version 2>&1 || /usr/local/cuda/bin/nvcc --version
  echo "## cmake"; cmake --version | head -1
  echo "## python"; python3 -c "import sys, torch, torchvision, PIL; print(sys.version.split()[0], 'torch', torch.__version__, 'torchvision', torchvision.__version__, 'PIL', PIL.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version())"
  echo "## cpu"; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|MHz|L3"
  echo "## memory"; free -g
  echo "## disk"; df -hT "${TMPDIR:-/tmp}" .
  echo "## kernel"; uname -a
  echo "## jpeg headers"; ls /usr/include/jpeglib.h /usr/include/*/jpeglib.h 2>&1
} >"$out/inventory.txt" 2>&1

jpeg_args=()
[ -n "$jpeg_root" ] && jpeg_args=(--jpeg-root "$jpeg_root")
# The corpus is written while gpu_kernels builds (both before any measurement); a corpus of
# the right size from an earlier run on this node is kept.
corpus_pid=""
if [ "$(ls "$corpus" 2>/dev/null | wc -l)" -ne "$count" ]; then
  rm -rf "$corpus"
  python3 "$here/make_jpeg_corpus.py" --src "$photos" --out "$corpus" --count "$count" \
    --jobs "$(nproc)" >"$out/corpus.log" 2>&1 &
  corpus_pid=$!
fi
cmake -S "$here/.." -B "$build" -DCMAKE_BUILD_TYPE=Release \
  ${jpeg_root:+-DJPEG_INCLUDE_DIR="$jpeg_root/include" -DJPEG_LIBRARY="$jpeg_root/lib/libjpeg.a"} \
  >"$out/build.log" 2>&1 && cmake --build "$build" -j "$(nproc)" >>"$out/build.log" 2>&1
echo "build=$?" >>"$out/DONE"
if [ -n "$corpus_pid" ]; then
  wait $corpus_pid
  echo "corpus=$?" >>"$out/DONE"
  cat "$out/corpus.log"
fi

# The reference first: it needs only the corpus, and it fixes the framework factor.
if [ $torch = 1 ]; then
  say "torch_reference.py"
  PYTHONUNBUFFERED=1 python3 "$here/torch_reference.py" --corpus-dir "$corpus" \
    --out "$out/torch_reference.json" --seconds 2 --warmup-s 1 --trials 2
  echo "torch_reference=$?" >>"$out/DONE"
fi
factor_args=()
if [ $torch != 0 ] && [ -f "$out/torch_reference.json" ]; then
  "$build/bin/ckb_cpu_prep" --kinds image --threads 1 --corpus-dir "$corpus" --max-time 3 \
    --json "$out/prep_1core.json" >"$out/prep_1core.log" 2>&1
  factor=$(python3 - "$out/torch_reference.json" "$out/prep_1core.json" <<'EOF'
import json, sys
ref, ours = (json.load(open(p)) for p in sys.argv[1:3])
loader = [r["samples_per_s"] for m in ref["models"].values() for r in m.get("loader", [])
          if r["workers"] == 1]
prep = [r["samples_per_s"] for r in ours["results"]
        if r.get("status") == "measured" and r["threads"] == 1]
if loader and prep:
    print(f"{min(1.0, loader[0] / prep[0]):.3f}")
EOF
  )
  say "framework factor: ${factor:-not measured} (DataLoader 1 worker / our prep 1 core)"
  [ -n "$factor" ] && factor_args=(--framework-factor "$factor")
fi

say "calibrate.sh $models"
limit=()
if [ "$deadline" -gt 0 ]; then
  left=$((deadline - ($(date +%s) - t0)))
  [ $left -gt 5 ] || left=5
  limit=(timeout "$left")
fi
# calibrate.sh starts a fresh summary: keep the one of an earlier run beside it.
[ -f "$out/calibration/summary.tsv" ] && mv "$out/calibration/summary.tsv" "$out/calibration/summary-$(date +%s).tsv"
"${limit[@]}" bash "$here/../calibrate.sh" $quick "${cal_extra[@]}" --models "$models" \
  --corpus-dir "$corpus" --build-dir "$build" --reports-dir "$out/calibration" \
  --out-dir "$out/profiles" "${jpeg_args[@]}" "${factor_args[@]}" \
  ${gpu_type:+--gpu-type "$gpu_type"} ${profile_extra[@]+-- "${profile_extra[@]}"}
echo "calibrate=$?" >>"$out/DONE"

if [ -f "$out/torch_reference.json" ] && [ -f "$out/calibration/resnet50.report.json" ] &&
   [ -f "$out/calibration/resnet18.report.json" ]; then
  python3 "$here/compare.py" --calibration "$out/calibration" --torch "$out/torch_reference.json" \
    --profiles "$out/profiles" >"$out/compare.md" 2>&1
  echo "compare=$?" >>"$out/DONE"
fi
say "study ends"
echo "all=done" >>"$out/DONE"
