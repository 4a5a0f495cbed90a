#!/usr/bin/env bash
# Runs the same set of configurations through two `clustersim` binaries and compares every
# output byte for byte: the --json metrics, the per-job CSV (--jobs-out) and the time series
# (--timeseries-out). This is the safety net of refactors that must not change a result.
#
#   scripts/compare_binaries.sh OLD/clustersim NEW/clustersim [--keep DIR] [--filter REGEX]
#                               [--new-args "ARGS"] [--ignore-added]
#
# --new-args appends ARGS to every run of the new binary (e.g. "--set metrics.steady_state=off"
# to switch off a new default); --ignore-added compares after dropping what only the new binary
# writes: --json keys, --jobs-out / --timeseries-out columns and stderr warning lines (every
# other byte must still be equal; the dropped names are listed).
#
# The runs: every ordering policy x placement x VC quota mode on a loaded generated workload
# with VCs and preemption costs (48); strict order (backfill off) per policy (6); a trace with
# priorities, GPU types, CPU/memory requests, elastic ranges and checkpoint intervals under
# several policies (6); every allocation mechanism on the Synergy workload with the profile
# model (6); heterogeneous clusters (4); each mechanism and their combinations (14); planning
# periods and event-driven preemption (3); windows on generated workloads, one overloaded (2);
# serving DAG workloads per task placement (3); training beside serving (mixed configs, 2); the
# built-in example (1). Exit 0 when every output is identical, 1 otherwise (the differing files
# are listed; under a differing CSV, how many rows differ, in which columns, and the first
# differing cells by row key (job_id or time); under differing --json, the first differing keys).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

old=${1:?usage: compare_binaries.sh OLD_BINARY NEW_BINARY [--keep DIR] [--filter REGEX]}
new=${2:?usage: compare_binaries.sh OLD_BINARY NEW_BINARY [--keep DIR] [--filter REGEX]}
shift 2
keep=""
filter="."
new_args=()
ignore_added=0
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=$2; shift 2 ;;
    --filter) filter=$2; shift 2 ;;
    --new-args) read -r -a new_args <<<"$2"; shift 2 ;;
    --ignore-added) ignore_added=1; shift ;;
    *) echo "compare_binaries: unknown argument $1" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d)
trap '[ -z "$keep" ] && rm -rf "$work"' EXIT
[ -n "$keep" ] && { mkdir -p "$keep"; work=$keep; }
mkdir -p "$work/old" "$work/new" "$work/in"

# --- Inputs ---------------------------------------------------------------------------------
# A loaded Philly-shaped workload on 16 nodes of 4 GPUs (4 racks), three VCs with quotas,
# CPUs and memory modelled, preemption costs.
cat >"$work/in/vcs.toml" <<'EOF'
[cluster]
nodes = 16
gpus_per_node = 4
cpus_per_node = 32
mem_gb_per_node = 256
nodes_per_rack = 4
vcs = { a = 24, b = 24, c = 16 }

[workload]
generator = "philly"
jobs = 3000
load = 1.1
seed = 7
max_gpus_per_job = 16
vcs = ["a", "b", "c"]

[scheduler]
checkpoint_s = 20
restore_s = 30
lease_s = 600

[throughput]
cross_node_factor = 0.9
cross_rack_factor = 0.8

[metrics]
sample_interval_s = 900
EOF

# A native trace with priorities, GPU types, CPU/memory requests, elastic ranges and per-job
# checkpoint intervals (deterministic pseudo-random rows).
python3 - "$work/in/trace.csv" <<'EOF'
import random, sys
rng = random.Random(11)
with open(sys.argv[1], "w") as out:
    out.write("job_id,submit_time,num_gpus,duration,model,vc,user,cpus,mem_gb,priority,"
              "gpu_type,min_gpus,max_gpus,checkpoint_interval_s\n")
    t = 0.0
    for i in range(2500):
        t += rng.expovariate(1 / 40.0)
        gpus = rng.choice([1, 1, 1, 2, 2, 4, 4, 8])
        typ = rng.choice(["", "", "", "v100", "k80"])
        if typ == "k80" and gpus > 8: gpus = 8
        elastic = rng.random() < 0.3
        lo, hi = (max(1, gpus // 2), gpus * 2) if elastic else ("", "")
        cpus = rng.choice([0, 0, 2 * gpus, 6 * gpus])
        mem = rng.choice([0, 0, 16.0 * gpus])
        ckpt = rng.choice(["", "", "", 1800])
        out.write(f"j{i},{t:.3f},{gpus},{rng.lognormvariate(7, 1.5):.2f},"
                  f"{rng.choice(['resnet50', 'bert', 'gpt2', 'vgg16'])},"
                  f"{rng.choice(['a', 'b'])},u{rng.randrange(20)},{cpus},{mem},"
                  f"{rng.choice([0, 0, 1, 2])},{typ},{lo},{hi},{ckpt}\n")
EOF
cat >"$work/in/hetero.toml" <<EOF
[cluster]
nodes_per_rack = 4
[[cluster.node_group]]
name = "v"
nodes = 8
gpus_per_node = 8
gpu_type = "v100"
cpus_per_node = 64
mem_gb_per_node = 512
[[cluster.node_group]]
name = "k"
nodes = 8
gpus_per_node = 4
gpu_type = "k80"
cpus_per_node = 32
mem_gb_per_node = 256

[workload]
trace = "trace.csv"

[scheduler]
checkpoint_s = 30
restore_s = 30
lease_s = 900

[throughput]
cross_node_factor = 0.85
cross_rack_factor = 0.7
EOF
# A node-failure trace for the hetero cluster (nodes 0..15).
cat >"$work/in/outages.csv" <<'EOF'
node,down,up
3,20000,40000
v/5,30000,31000
12,50000,90000
3,35000,36000
EOF

# The Synergy study's setting (profile model), small.
sed -e 's#"../../../profiles/v100"#"'"$root"'/profiles/v100"#' -e '/^\[sweep\]/,$d' \
  -e 's/^window = .*/window = [200, 599]/' sweep/examples/synergy/grid.toml >"$work/in/synergy.toml"

# The mechanisms example's setting, small.
sed -e '/^\[sweep\]/,$d' -e 's/^window = .*/jobs = 4000/' -e 's/^nodes = 128/nodes = 32/' \
  sweep/examples/mechanisms/grid.toml >"$work/in/mech.toml"

# Serving DAGs.
cat >"$work/in/serving.toml" <<'EOF'
[cluster]
nodes = 12
gpus_per_node = 1
gpu_mem_gb = 8

[workload]
generator = "query_dag"
queries = 3000
queries_per_s = 4
seed = 3
EOF

# Training and serving on one cluster (a mixed config): the mixed example, fewer queries.
sed -e '/^\[sweep\]/,$d' sweep/examples/mixed/grid.toml >"$work/in/mixed.toml"
sed -e 's/^queries = .*/queries = 4000/' sweep/examples/mixed/serving.toml >"$work/in/serving_side.toml"
sed -i 's/^config = "serving.toml"/config = "serving_side.toml"/' "$work/in/mixed.toml"

# --- The runs -------------------------------------------------------------------------------
runs=()
add() { runs+=("$*"); }  # NAME CONFIG [--set k=v ...]
for policy in fifo sjf srtf las tiresias drf; do
  for placement in consolidate spread best_fit random; do
    for quota in strict lend; do
      add "$policy-$placement-$quota vcs.toml --set scheduler.policy=$policy" \
        "--set scheduler.placement=$placement --set scheduler.vc_quota=$quota"
    done
  done
  add "$policy-strict-order vcs.toml --set scheduler.policy=$policy --set scheduler.backfill=false"
  add "$policy-trace-priority hetero.toml --set scheduler.policy=$policy" \
    "--set scheduler.honor_priority=true --set workload.skip_invalid=true"
done
for allocation in proportional greedy tune opt drf tetris; do
  add "synergy-$allocation synergy.toml --set scheduler.allocation=$allocation" \
    "--set scheduler.realloc_s=10"
done
add "hetero-fifo hetero.toml --set scheduler.policy=fifo"
add "hetero-las hetero.toml --set scheduler.policy=las"
add "hetero-tiresias-spread hetero.toml --set scheduler.policy=tiresias --set scheduler.placement=spread"
add "hetero-tune hetero.toml --set scheduler.policy=fifo --set scheduler.allocation=tune"
add "mech-base mech.toml"
add "mech-preempt mech.toml --set scheduler.preemption=true --set scheduler.checkpoint_s=30"
add "mech-migrate mech.toml --set mechanisms.migration=on_demand"
add "mech-periodic mech.toml --set mechanisms.migration=periodic --set mechanisms.defrag_period_s=7200"
add "mech-elastic mech.toml --set mechanisms.elastic=true"
add "mech-elastic-strict mech.toml --set mechanisms.elastic=true --set scheduler.locality_relax_s=0"
add "mech-failures mech.toml --set mechanisms.mtbf_h=300 --set mechanisms.checkpoint_interval_s=3600"
add "mech-weibull mech.toml --set mechanisms.mtbf_h=200 --set mechanisms.failure_model=weibull"
add "mech-all mech.toml --set mechanisms.migration=on_demand --set mechanisms.elastic=true" \
  "--set mechanisms.mtbf_h=500 --set mechanisms.checkpoint_interval_s=1800 --set scheduler.checkpoint_s=30" \
  "--set scheduler.restore_s=30"
add "mech-empirical mech.toml --set mechanisms.checkpoint_model=empirical" \
  "--set mechanisms.checkpoint_samples=[5.0,30.0,90.0] --set mechanisms.migration=on_demand"
add "mech-size mech.toml --set mechanisms.migration_model=size --set mechanisms.migration_gbps=0.5" \
  "--set mechanisms.migration=on_demand"
add "mech-priority-evict hetero.toml --set scheduler.policy=las --set scheduler.honor_priority=true" \
  "--set mechanisms.preempt_on_arrival=true --set workload.skip_invalid=true"
add "trace-failures hetero.toml --set scheduler.policy=tiresias --set mechanisms.failure_trace=outages.csv" \
  "--set mechanisms.elastic=true"
add "trace-elastic-migrate hetero.toml --set scheduler.policy=fifo --set mechanisms.elastic=true" \
  "--set mechanisms.migration=on_demand --set scheduler.locality=strict --set scheduler.locality_relax_s=600"
add "plan-interval synergy.toml --set scheduler.plan_interval_s=300 --set scheduler.allocation=tune"
add "srpt-event-driven vcs.toml --set scheduler.policy=srtf --set scheduler.lease_s=0"
add "las-event-driven hetero.toml --set scheduler.policy=las --set scheduler.lease_s=0"
add "window-steady vcs.toml --set workload.window=[500,1499] --set workload.load=0.7"
add "window-overloaded vcs.toml --set workload.window=[500,1499] --set workload.load=3.0" \
  "--set scheduler.policy=fifo"
for placement in compass heft round_robin; do
  add "serving-$placement serving.toml --set scheduler.task_placement=$placement"
done
add "mixed-priority mixed.toml"
add "mixed-no-priority mixed.toml --set serving.priority=false --set serving.gpus=8"
add "builtin-example"

# --- Readable differences ------------------------------------------------------------------
# Prints, indented, what differs between two CSV or JSON outputs: for a CSV the number of
# differing rows, the columns that differ (with counts) and the first few differing cells, each
# by the row's first column (job_id, time) and column name; for JSON the first differing keys.
summarize_difference() {  # OLD_FILE NEW_FILE EXT
  python3 - "$@" <<'PY' || true
import csv, json, sys
old_path, new_path, ext = sys.argv[1:4]
SHOWN = 8
def clip(text):
    text = str(text)
    return text if len(text) <= 40 else text[:37] + "..."
if ext == "json":
    try:
        # Numbers as their text: a change in the last digit shows even where it reads back the same.
        a = json.load(open(old_path), parse_float=str, parse_int=str)
        b = json.load(open(new_path), parse_float=str, parse_int=str)
    except ValueError:
        sys.exit(0)
    keys = [k for k in dict.fromkeys(list(a) + list(b)) if a.get(k, "(none)") != b.get(k, "(none)")]
    if not keys:
        print("    same keys and values in the same order; the bytes differ (layout)"
              if list(a) == list(b) else "    same keys and values; their order differs")
        sys.exit(0)
    print(f"    {len(keys)} of {len(b)} keys differ")
    for k in keys[:SHOWN]:
        print(f"    {k}: {clip(a.get(k, '(none)'))} -> {clip(b.get(k, '(none)'))}")
    sys.exit(0)
if not ext.endswith("csv"):
    sys.exit(0)
a = list(csv.reader(open(old_path, newline="")))
b = list(csv.reader(open(new_path, newline="")))
if not a or not b:
    print(f"    rows: {len(a)} -> {len(b)}")
    sys.exit(0)
if a[0] != b[0]:
    print(f"    header differs: only old: {','.join(c for c in a[0] if c not in b[0]) or '-'};"
          f" only new: {','.join(c for c in b[0] if c not in a[0]) or '-'}")
header = [c for c in b[0] if c in a[0]]
ia = {c: i for i, c in enumerate(a[0])}
ib = {c: i for i, c in enumerate(b[0])}
key = b[0][0]
rows = differing_rows = 0
per_column = {}
cells = []
for ra, rb in zip(a[1:], b[1:]):
    rows += 1
    differs = False
    for c in header:
        va = ra[ia[c]] if ia[c] < len(ra) else "(none)"
        vb = rb[ib[c]] if ib[c] < len(rb) else "(none)"
        if va != vb:
            differs = True
            per_column[c] = per_column.get(c, 0) + 1
            if len(cells) < SHOWN:
                cells.append(f"    {key} {clip(ra[0] if ra else '?')} {c}: {clip(va)} -> {clip(vb)}")
    differing_rows += differs
if len(a) != len(b):
    print(f"    rows: {len(a) - 1} -> {len(b) - 1}")
columns = ", ".join(f"{c} ({n})" for c, n in sorted(per_column.items(), key=lambda kv: -kv[1]))
print(f"    {differing_rows} of {rows} rows differ; columns: {columns or '-'}")
for line in cells:
    print(line)
PY
}

# --- Run both binaries ----------------------------------------------------------------------
differ=0
count=0
for run in "${runs[@]}"; do
  read -r -a words <<<"$run"
  name=${words[0]}
  [[ $name =~ $filter ]] || continue
  count=$((count + 1))
  args=("${words[@]:1}")
  if [ ${#args[@]} -gt 0 ]; then args[0]=$work/in/${args[0]}; fi
  for side in old new; do
    bin=$old
    extra=()
    [ "$side" = new ] && bin=$new && extra=("${new_args[@]}")
    out=$work/$side/$name
    if ! "$bin" run "${args[@]}" "${extra[@]}" --json --jobs-out "$out.jobs.csv" \
      --timeseries-out "$out.ts.csv" >"$out.json" 2>"$out.err"; then
      echo "compare_binaries: $name failed on $side: $(head -c 300 "$out.err")" >&2
      differ=1
    fi
  done
  for ext in json jobs.csv ts.csv err; do
    if [ $ignore_added = 1 ]; then
      python3 - "$work/old/$name.$ext" "$work/new/$name.$ext" "$ext" >>"$work/dropped.txt" <<'PY' || { echo "DIFFERS: $name.$ext"; summarize_difference "$work/old/$name.$ext" "$work/new/$name.$ext" "$ext"; differ=1; }
import csv, io, json, sys
old_path, new_path, ext = sys.argv[1:4]
a, b = open(old_path).read(), open(new_path).read()
if ext == "json":
    ja, jb = json.loads(a or "{}"), json.loads(b or "{}")
    added = [k for k in jb if k not in ja]
    for k in added:
        del jb[k]
    ok = list(ja.items()) == list(jb.items())  # same keys in the same order, same values
elif ext.endswith("csv"):
    ra, rb = list(csv.reader(io.StringIO(a))), list(csv.reader(io.StringIO(b)))
    added = [c for c in (rb[0] if rb else []) if not ra or c not in ra[0]]
    keep = [i for i, c in enumerate(rb[0] if rb else []) if c not in added]
    ok = len(ra) == len(rb) and all([r[i] for i in keep] == ra[j] for j, r in enumerate(rb))
else:
    la = a.splitlines()
    added = [line for line in b.splitlines() if line not in la and "warning:" in line]
    ok = [line for line in b.splitlines() if line not in added] == la
print("\n".join(added))
sys.exit(0 if ok else 1)
PY
    elif ! cmp -s "$work/old/$name.$ext" "$work/new/$name.$ext"; then
      echo "DIFFERS: $name.$ext"
      summarize_difference "$work/old/$name.$ext" "$work/new/$name.$ext" "$ext"
      differ=1
    fi
  done
done
if [ $ignore_added = 1 ] && [ -s "$work/dropped.txt" ]; then
  echo "compare_binaries: dropped (only in the new outputs): $(sort -u "$work/dropped.txt" | grep -v '^$' | cut -c1-60 | paste -sd'|' | cut -c1-1500)"
fi
echo "compare_binaries: $count runs, $([ $differ = 0 ] && echo "all outputs identical" || echo "outputs differ")"
exit $differ
