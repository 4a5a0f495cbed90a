// Keys of the cluster, of the default scheduler's core (what is not a policy's, a placement's, an
// allocation mechanism's or a mechanism's), of [metrics] and [debug].
#include <cstdint>
#include <limits>
#include <string>

#include "clustersim/component.h"
#include "clustersim/mig.h"
#include "clustersim/simulator.h"
#include "options/declare.h"

namespace clustersim::options {

void declare_cluster_keys(KeyRegistry& keys) {
  const auto group = [&](std::string key, auto ref) {
    return field<NodeGroupSpec>(keys, "cluster." + std::move(key), ref).component("cluster");
  };
  group(
      "nodes", [](auto& g) -> auto& { return g.nodes; })
      .range(0, 1 << 22)
      .doc(
          "The simplest cluster: this many identical nodes (or none, with "
          "`[[cluster.node_group]]` tables).");
  group(
      "gpus_per_node", [](auto& g) -> auto& { return g.gpus_per_node; })
      .range(1, 64)
      .doc("GPUs of each of these nodes.");
  group(
      "gpu_type", [](auto& g) -> auto& { return g.gpu_type; })
      .doc("GPU type of these nodes.");
  group(
      "cpus_per_node", [](auto& g) -> auto& { return g.cpus_per_node; })
      .range(0.0, 1e6)
      .training_only()
      .doc("CPU cores of each node; 0 = not modelled (never a constraint).");
  group(
      "mem_gb_per_node", [](auto& g) -> auto& { return g.mem_gb_per_node; })
      .range(0.0, 1e9)
      .training_only()
      .doc("Memory (GB) of each node; 0 = not modelled.");
  group(
      "storage_mbps_per_node", [](auto& g) -> auto& { return g.storage_mbps_per_node; })
      .range(0.0, 1e9)
      .training_only()
      .doc("Storage bandwidth (MB/s) of each node; 0 = not modelled.");
  group(
      "mig", [](auto& g) -> auto& { return g.mig; })
      .choices([] {
        std::vector<std::string> names;
        for (const MigGeometry& geometry : kMigGeometries) names.emplace_back(geometry.name);
        return names;
      }())
      .training_only()
      .default_note("none (whole GPUs)")
      .doc(
          "Every GPU of these nodes in MIG mode with this geometry: 8 memory and 7 compute "
          "slices, cut into slices that jobs ask for by `mig_profile` (`a100-40gb`: 1g.5gb, "
          "1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb; `a100-80gb` and `h100-80gb`: 1g.10gb, "
          "1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb), placed at NVIDIA's allowed starts; such "
          "GPUs never go to whole-GPU or shared jobs "
          "([`sim/README.md`](sim/README.md#mig-partitions)).");
  field<SimOptions>(
      keys, "cluster.nodes_per_rack", [](auto& o) -> auto& { return o.cluster.nodes_per_rack; })
      .range(1, 1 << 20)
      .training_only()
      .component("cluster")
      .doc("Racks are filled in node order (node groups one after another).");
  custom(keys, "cluster.node_list", KeyType::kPath)
      .component("cluster")
      .training_only()
      .default_note("none")
      .doc(
          "An openb node list (`sn,cpu_milli,memory_mib,gpu,model`, relative to the config "
          "file): one node group per run of identical nodes, in list order (nodes without GPUs "
          "left out), after `[cluster]`'s own nodes; the placement study places on every listed "
          "node (and needs it alone).");
  custom(keys, "cluster.node_group", KeyType::kTable)
      .component("cluster")
      .default_note("none")
      .doc(
          "Heterogeneous clusters: one `[[cluster.node_group]]` table per group of identical "
          "nodes (keys below; unset keys inherit `[cluster]`'s), after `[cluster]`'s own nodes.");
  custom(keys, "cluster.vcs", KeyType::kTable)
      .component("cluster")
      .training_only()
      .default_note("none")
      .doc(
          "Virtual clusters with GPU quotas: `vcs = { name = quota, ... }` (quotas in [1, "
          "1073741824]); without it, VCs named in the trace share the cluster with no quota.");

  field<NodeGroupSpec>(
      keys, "cluster.node_group[].name", [](auto& g) -> auto& { return g.name; })
      .component("cluster")
      .default_note("`\"group<i>\"` (i: its position, from 0)")
      .doc("The group's name (a failure trace names its nodes `GROUP/K`).");
  field<NodeGroupSpec>(
      keys, "cluster.node_group[].nodes", [](auto& g) -> auto& { return g.nodes; })
      .range(1, 1 << 22)
      .component("cluster")
      .default_note("— (required)")
      .doc("Nodes in this group.");
}

void declare_scheduler_keys(KeyRegistry& keys) {
  const auto key = [&](std::string name, auto ref) {
    return field<SimOptions>(keys, "scheduler." + std::move(name), ref)
        .component("scheduler")
        .training_only();
  };
  key(
      "lease_s", [](auto& o) -> auto& { return o.scheduler.lease_s; })
      .range(0.0, 1e12)
      .check([](const OptionValue& value) -> std::string {
        const double lease = std::get<double>(value);
        if (lease > 0.0 && lease < 1e-3)
          return "must be 0 (a round at every arrival and completion) or >= 0.001";
        return "";
      })
      .doc(
          "Period of preemption rounds (preemptive policies); 0 = event-driven: re-plan at every "
          "arrival and completion (preemptive SRTF is then textbook SRPT).");
  key(
      "min_run_s", [](auto& o) -> auto& { return o.scheduler.min_run_s; })
      .range(0.0, 1e12)
      .doc(
          "Preemptive policies: a preemption round leaves a job that has held its GPUs for "
          "less than this many seconds since its last start where it is (a minimum run "
          "against churn, e.g. LAS or SRTF with short leases); 0: off.");
  key(
      "plan_interval_s", [](auto& o) -> auto& { return o.scheduler.plan_interval_s; })
      .range(0.0, 1e12)
      .doc(
          "0: decide after every event; > 0: start jobs and re-allocate only at multiples of "
          "this period (round-based schedulers; Synergy uses 300).");
  key(
      "checkpoint_s", [](auto& o) -> auto& { return o.scheduler.checkpoint_s; })
      .range(0.0, 1e12)
      .doc(
          "Preemption cost: a preempted job holds its GPUs this long (no progress) before "
          "releasing them, charged to the job; the seconds of `[mechanisms]`' checkpoint cost.");
  key(
      "restore_s", [](auto& o) -> auto& { return o.scheduler.restore_s; })
      .range(0.0, 1e12)
      .doc(
          "Preemption cost: a restarted job holds its GPUs this long before progressing, "
          "charged to the job; the seconds of `[mechanisms]`' restore cost.");
  key(
      "backfill", [](auto& o) -> auto& { return o.scheduler.backfill; })
      .doc(
          "false = strict head-of-line blocking (a job blocked only by its own VC's quota never "
          "blocks other VCs).");
  key(
      "honor_priority", [](auto& o) -> auto& { return o.scheduler.honor_priority; })
      .doc("Order by the jobs' `priority` (higher first) before the policy's own order.");
  choice<SimOptions>(
      keys, "scheduler.locality", [](auto& o) -> auto& { return o.scheduler.strict_locality; },
      std::vector<std::pair<std::string, bool>>{{"any", false}, {"strict", true}})
      .component("scheduler")
      .training_only()
      .check_target<SimOptions>([](const SimOptions& o) -> std::string {
        const ComponentDescriptor* placement =
            find_component(ComponentKind::kPlacement, o.scheduler.placement);
        if (o.scheduler.strict_locality && !(placement && placement->caps.consolidates))
          return "\"strict\" needs placement = \"consolidate\" (placement \"" +
                 o.scheduler.placement + "\" may split a job over more nodes than it needs)";
        return "";
      })
      .doc(
          "`strict`: a waiting job starts only on the fewest nodes that can hold it (needs "
          "`placement = \"consolidate\"`), for up to `locality_relax_s` of waiting; `any`: "
          "wherever the placement puts it.");
  key(
      "locality_relax_s", [](auto& o) -> auto& { return o.scheduler.locality_relax_s; })
      .range(0.0, 1e12)
      .doc(
          "With `locality = \"strict\"`: a job that has waited this long takes any placement "
          "(0 = strict always).");
  key(
      "preemption", [](auto& o) -> auto& { return o.scheduler.preemption; })
      .default_note("the policy's")
      .doc(
          "Force preemption on or off (unset: the policy's own; `srtf`, `las`, `tiresias` and "
          "`drf` preempt). Under your own decider (C++, Python, or plans between `step()` "
          "calls) only `true` turns lease rounds on; they stop jobs in this policy's order.");
  choice<SimOptions>(
      keys, "scheduler.vc_quota", [](auto& o) -> auto& { return o.scheduler.vc_quota; },
      std::vector<std::pair<std::string, VcQuotaMode>>{{"strict", VcQuotaMode::kStrict},
                                                       {"lend", VcQuotaMode::kLend}})
      .component("scheduler")
      .training_only()
      .doc(
          "`strict`: a VC never exceeds its quota; `lend`: idle quota is lent, and preemptive "
          "policies reclaim it at the next lease.");
  key(
      "seed", [](auto& o) -> auto& { return o.seed; })
      .range(std::int64_t{0}, std::numeric_limits<std::int64_t>::max())
      .input_only_range()
      .doc("Randomness of placement (`random`) and policies (a sweep derives it per point).");
  key(
      "reject_impossible", [](auto& o) -> auto& { return o.reject_impossible; })
      .doc("Reject and count jobs that can never fit instead of failing.");
}

void declare_metrics_keys(KeyRegistry& keys) {
  field<SimOptions>(
      keys, "metrics.sample_interval_s", [](auto& o) -> auto& { return o.sample_interval_s; })
      .range(0.0, 1e12)
      .component("metrics")
      .training_only()
      .doc("Time-series period (0 = off).");
  choice<SimOptions>(
      keys, "metrics.ftf_baseline", [](auto& o) -> auto& { return o.ftf_baseline; },
      std::vector<std::pair<std::string, FtfBaseline>>{{"best_type", FtfBaseline::kBestType},
                                                       {"gavel", FtfBaseline::kGavel}})
      .component("metrics")
      .training_only()
      .doc(
          "Finish-time fairness's baseline (`ftf_*`): a job alone on 1/N of the cluster at its "
          "`best_type`'s speed (the default: Themis's stricter reading, and the results of "
          "earlier versions), or `gavel`: on 1/N of every GPU type, as Gavel's X^equal (its "
          "per-type speeds weighted by the types' GPUs). They differ only where speeds depend "
          "on the GPU type.");
  field<SimOptions>(
      keys, "debug.check_invariants", [](auto& o) -> auto& { return o.check_invariants; })
      .component("engine")
      .training_only()
      .doc("Verify resource accounting after every event batch (slow).");
}

}  // namespace clustersim::options
