#!/usr/bin/env bash
# The whole GPU calibration study on one node, unattended: an inventory of the machine, an
# ImageNet-like JPEG corpus, gpu_kernels/calibrate.sh for the model zoo on that corpus, then the
# PyTorch reference (torch_reference.py) on the same corpus. Everything lands in OUT_DIR;
# compare.py turns it into the predicted-vs-measured table of profiles/README.md.
#
#   gpu_kernels/reference/run_study.sh --photos DIR --out OUT_DIR [--jpeg-root DIR]
#       [--corpus-count N] [--models LIST] [--gpu-type NAME] [--full]
#
#   --photos DIR      source photos for make_jpeg_corpus.py
#   --jpeg-root DIR   libjpeg-turbo headers + library where the node has none (calibrate.sh)
#   --full            calibrate.sh without --quick (longer, tighter measurements)
#   --no-torch        no PyTorch reference; --skip-stage-benchmarks: passed to calibrate.sh
# Progress goes to OUT_DIR/study.log; OUT_DIR/DONE holds the exit status of each part.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
photos="" out="" jpeg_root="" count=20000 models=all gpu_type="" quick=--quick torch=1 cal_extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --photos) photos=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --jpeg-root) jpeg_root=$2; shift 2 ;;
    --corpus-count) count=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --gpu-type) gpu_type=$2; shift 2 ;;
    --full) quick=""; shift ;;
    --no-torch) torch=0; shift ;;
    --skip-stage-benchmarks) cal_extra+=(--skip-stage-benchmarks); shift ;;
    *) echo "run_study.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -d "$photos" ] && [ -n "$out" ] || { echo "run_study.sh: needs --photos DIR and --out DIR" >&2; exit 2; }
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
corpus=${TMPDIR:-/tmp}/clustersim-jpeg-corpus
exec >>"$out/study.log" 2>&1
echo "[$(date -u '+%H:%M:%S')] study starts"
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
# The corpus is written while gpu_kernels builds (both before any measurement).
rm -rf "$corpus"
python3 "$here/make_jpeg_corpus.py" --src "$photos" --out "$corpus" --count "$count" \
  --jobs "$(nproc)" >"$out/corpus.log" 2>&1 &
corpus_pid=$!
cmake -S "$here/.." -B "$here/../../build-gpu" -DCMAKE_BUILD_TYPE=Release \
  ${jpeg_root:+-DJPEG_INCLUDE_DIR="$jpeg_root/include" -DJPEG_LIBRARY="$jpeg_root/lib/libjpeg.a"} \
  >"$out/build.log" 2>&1 && cmake --build "$here/../../build-gpu" -j "$(nproc)" >>"$out/build.log" 2>&1
echo "build=$?" >>"$out/DONE"
wait $corpus_pid
echo "corpus=$?" >>"$out/DONE"
cat "$out/corpus.log"

echo "[$(date -u '+%H:%M:%S')] calibrate.sh"
bash "$here/../calibrate.sh" $quick "${cal_extra[@]}" --models "$models" --corpus-dir "$corpus" \
  --reports-dir "$out/calibration" --out-dir "$out/profiles" "${jpeg_args[@]}" \
  ${gpu_type:+--gpu-type "$gpu_type"}
echo "calibrate=$?" >>"$out/DONE"

if [ $torch = 1 ]; then
  echo "[$(date -u '+%H:%M:%S')] torch_reference.py"
  PYTHONUNBUFFERED=1 python3 "$here/torch_reference.py" --corpus-dir "$corpus" \
    --out "$out/torch_reference.json" --seconds 2.5 --warmup-s 2 --trials 2
  echo "torch_reference=$?" >>"$out/DONE"
fi
echo "[$(date -u '+%H:%M:%S')] study ends"
echo "all=done" >>"$out/DONE"
