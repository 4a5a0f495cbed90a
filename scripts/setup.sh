#!/usr/bin/env bash
# Installs what the project needs from Debian's packages (skips the install when all are present).
set -euo pipefail
packages=(
  cmake g++ make ninja-build pkg-config
  libtomlplusplus-dev libcli11-dev nlohmann-json3-dev coinor-libclp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin libhdf5-openmpi-dev hdf5-tools libtbb-dev
  clang libclang-rt-14-dev
  python3 python3-h5py python3-pandas python3-matplotlib python3-numpy python3-scipy
  # `import clustersim` (python/): the extension is built with pybind11 against python3-dev.
  pybind11-dev python3-pybind11 python3-dev
  # The analysis tests: pytest, and a headless browser that opens the HTML report (~80 MB).
  python3-pytest chromium
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
