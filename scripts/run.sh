#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build, and run the built-in example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
build/bin/clustersim run "$@"
