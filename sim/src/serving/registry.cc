// Task placement and cache policies by name: their descriptors (sim/src/components).
#include <stdexcept>

#include "clustersim/cluster.h"
#include "clustersim/component.h"
#include "clustersim/simulator.h"
#include "options/declare.h"

namespace clustersim {

namespace {

// "unknown task placement 'x' (expected compass, round_robin, ... or heft)": its kind's names.
std::invalid_argument unknown(ComponentKind kind, const std::string& what,
                              const std::string& name) {
  const std::vector<std::string> names = component_names(kind);
  std::string expected;
  for (std::size_t i = 0; i < names.size(); ++i)
    expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return std::invalid_argument("unknown " + what + " '" + name + "' (expected " + expected + ")");
}

}  // namespace

std::vector<std::string> task_placement_names() {
  return component_names(ComponentKind::kTaskPlacement);
}

std::unique_ptr<TaskPlacementPolicy> make_task_placement(const std::string& name,
                                                         const CompassOptions& compass) {
  if (const ComponentDescriptor* d = find_component(ComponentKind::kTaskPlacement, name))
    return d->factory.task_placement(compass);
  throw unknown(ComponentKind::kTaskPlacement, "task placement", name);
}

std::vector<std::string> cache_policy_names() {
  return component_names(ComponentKind::kCachePolicy);
}

std::unique_ptr<ModelCachePolicy> make_cache_policy(const std::string& name,
                                                    int compass_lookahead) {
  if (const ComponentDescriptor* d = find_component(ComponentKind::kCachePolicy, name))
    return d->factory.cache_policy(compass_lookahead);
  throw unknown(ComponentKind::kCachePolicy, "cache policy", name);
}

namespace options {

// The serving engine's keys (simulate_serving): the cluster's memory and network, the task
// placement and cache policies, the SLO.
void declare_serving_keys(KeyRegistry& keys) {
  const auto group = [&](std::string key, auto ref) {
    return field<NodeGroupSpec>(keys, "cluster." + std::move(key), ref)
        .component("serving")
        .dag_only();
  };
  // Both kinds of workload: the serving engine's model cache, and GPU shares' memory in a
  // training run.
  field<NodeGroupSpec>(
      keys, "cluster.gpu_mem_gb", [](auto& g) -> auto& { return g.gpu_mem_gb; })
      .component("serving")
      .range(1e-9, 1e6)
      .default_note("DAG: the catalog's, for `gpu_type`; training: not modelled")
      .doc(
          "Each GPU's memory (GB), also per node group. DAG: the model cache. Training: GPU "
          "shares on a GPU must fit in it with their `gpu_mem_gb` too "
          "([`sim/README.md`](sim/README.md#gpu-sharing-and-cpu-only-jobs)).");
  group(
      "net_gbps", [](auto& g) -> auto& { return g.net_gbps; })
      .range(1e-9, 1e9)
      .default_note("the catalog's network")
      .doc("The node's network bandwidth, Gb/s (also per node group).");
  group(
      "net_latency_us", [](auto& g) -> auto& { return g.net_latency_us; })
      .range(0.0, 1e12)
      .default_note("the catalog's network")
      .doc("Per-transfer network latency, us (also per node group).");

  const auto key = [&](std::string name, auto ref) {
    return field<SimOptions>(keys, std::move(name), ref).component("serving").dag_only();
  };
  key(
      "scheduler.task_placement", [](auto& o) -> auto& { return o.serving.task_placement; })
      .choices(task_placement_names())
      .component("serving task placement")
      .doc(
          "Where each ready task runs (`task_placement.h`; [`sim/README.md`]"
          "(sim/README.md#serving-dag-workloads)).");
  key(
      "scheduler.cache", [](auto& o) -> auto& { return o.serving.cache; })
      .choices(cache_policy_names())
      .component("serving cache")
      .doc(
          "Which models stay in GPU memory: `lru`, or `compass` (keeps the models of the next "
          "`cache_lookahead` queued tasks).");
  key(
      "scheduler.cache_lookahead", [](auto& o) -> auto& { return o.serving.cache_lookahead; })
      .range(0, 1 << 20)
      .component("serving compass cache")
      .doc("Queued tasks the `compass` cache looks at.");
  key(
      "scheduler.reschedule_threshold",
      [](auto& o) -> auto& { return o.serving.reschedule_threshold; })
      .range(0.0, 1e12)
      .component("serving compass placement")
      .doc(
          "`compass` placement: its tolerated wait on a planned GPU (x the task's compute "
          "time).");
  key(
      "scheduler.compass_keep_joins", [](auto& o) -> auto& { return o.serving.compass_keep_joins; })
      .component("serving compass placement")
      .doc(
          "`compass` placement: the study's rule that a join keeps its planned GPU whatever the "
          "wait.");
  key(
      "metrics.query_slo_s", [](auto& o) -> auto& { return o.serving.query_slo_s; })
      .range(0.0, 1e12)
      .doc("`query_slo_attainment` = share of queries with latency <= this (0 = not computed).");

  // Training and serving on one cluster (mixed_serving.cc): [serving] beside a training workload.
  const auto mixed = [&](std::string name, auto ref) {
    return field<SimOptions>(keys, "serving." + std::move(name), ref)
        .component("serving (mixed)")
        .training_only()
        .refusal(
            "only beside a training workload (a mixed run); a DAG workload runs on the serving "
            "engine alone");
  };
  mixed(
      "config", [](auto& o) -> auto& { return o.serving.config; })
      .path()
      .default_note("none: training only")
      .doc(
          "A serving config (a DAG workload: `format = \"dag\"` or `generator = "
          "\"query_dag\"`, on the same node groups) whose queries run beside this training "
          "workload on one cluster, one clock, one GPU ledger; its serving policies and "
          "`query_slo_s` apply ([`sim/README.md`](sim/README.md#training-and-serving-on-one-"
          "cluster)).");
  mixed(
      "priority", [](auto& o) -> auto& { return o.serving.priority; })
      .when("serving.config", {})
      .doc(
          "Serving may preempt running training jobs (the least attained service first; they pay "
          "their checkpoint) when a ready task finds no idle GPU in its pool and none free; "
          "`false`: it keeps to its base pool and the GPUs training leaves free.");
  mixed(
      "gpus", [](auto& o) -> auto& { return o.serving.gpus; })
      .range(1, 1 << 24)
      .when("serving.config", {})
      .doc(
          "GPUs the serving pool holds all along (the first in GPU order; its models must fit "
          "them); more are taken on demand and given back when idle.");
}

}  // namespace options

}  // namespace clustersim
