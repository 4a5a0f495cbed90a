#!/usr/bin/env bash
# The simulator's layering, checked (sim/README.md, "The open core"): private headers (sim/src)
# are included only by the simulator and its tests; the public headers include no private one;
# and within sim/src the folders depend on each other in one direction only:
#   simulation -> mechanisms -> decider -> core -> {throughput, metrics}
# (components holds every component's descriptor, so it sees each one's factory; the others ask
# it through the public clustersim/component.h)
# (policies, placement, allocation, inputs depend on public headers only; serving on core's
# event queue and the metrics). Every folder may declare its config keys (options/declare.h);
# options/ itself depends on nothing private. A forbidden include is printed with its file and
# line.
set -euo pipefail
cd "$(dirname "$0")/../.."
status=0
fail() {
  echo "layering: $1" >&2
  status=1
}

# Which private folders each folder of sim/src may include.
declare -A allowed=(
  [options]="options"
  [core]="core metrics throughput"
  [decider]="decider core metrics throughput"
  [mechanisms]="mechanisms decider core metrics throughput"
  [simulation]="simulation mechanisms decider core metrics throughput"
  [throughput]="throughput"
  [metrics]="metrics"
  [inputs]="inputs"
  [policies]="policies"
  [placement]="placement"
  [allocation]="allocation"
  [timeshare]="timeshare"
  [components]="components policies placement allocation timeshare study serving mechanisms decider core metrics throughput"
  [study]="study"
  [serving]="serving core metrics"
  [workload]="workload io"
  [io]="io workload"
)
folders=$(printf '%s\n' "${!allowed[@]}" | paste -sd'|')
for dir in sim/src/*/; do
  name=$(basename "$dir")
  [ -n "${allowed[$name]:-}" ] || fail "sim/src/$name has no layering rule (add one here)"
  while IFS= read -r hit; do
    target=$(sed -E 's|.*#include "([a-z_]+)/.*|\1|' <<<"$hit")
    [ "$target" = options ] && continue  # key declarations, beside their owner
    grep -qw "$target" <<<"${allowed[$name]:-}" || fail "$hit (sim/src/$name may not include $target/)"
  done < <(grep -rnE "#include \"($folders)/" "$dir" || true)
done
# Public headers and front ends see public headers only.
while IFS= read -r hit; do fail "$hit (a private header outside the simulator)"; done < <(
  grep -rnE "#include \"($folders)/" sim/include app sweep/include sweep/src || true)
exit $status
