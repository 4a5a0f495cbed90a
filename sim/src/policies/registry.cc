#include <stdexcept>
#include <string_view>

#include "clustersim/component.h"
#include "clustersim/simulator.h"
#include "clustersim/time_share.h"
#include "options/declare.h"

namespace clustersim {

std::unique_ptr<SchedulingPolicy> make_scheduling_policy(const SchedulerOptions& options) {
  if (const ComponentDescriptor* d = find_component(ComponentKind::kOrderingPolicy, options.policy))
    return d->factory.ordering_policy(options);
  std::string known;
  for (const std::string& name : scheduling_policy_names())
    known += (known.empty() ? "" : ", ") + name;
  throw std::invalid_argument("unknown scheduling policy '" + options.policy +
                              "' (known: " + known + ")");
}

std::unique_ptr<SchedulingPolicy> make_scheduling_policy(const SimOptions& options) {
  if (!options.make_policy) return make_scheduling_policy(options.scheduler);
  auto policy = options.make_policy(options.scheduler);
  if (!policy) throw std::invalid_argument("make_policy returned no policy");
  return policy;
}

std::vector<std::string> scheduling_policy_names() {
  return component_names(ComponentKind::kOrderingPolicy);
}

namespace options {

void declare_policy_keys(KeyRegistry& keys) {
  field<SimOptions>(
      keys, "scheduler.policy", [](auto& o) -> auto& { return o.scheduler.policy; })
      .choices([] {
        std::vector<std::string> names = scheduling_policy_names();
        for (const std::string& name : time_share_policy_names()) names.push_back(name);
        return names;
      }())
      .component("policies")
      .training_only()
      .doc(
          "The ordering policy: which waiting job goes next ([`sim/README.md`]"
          "(sim/README.md#scheduling)); or one of Gavel's allocation policies over jobs x GPU "
          "types (`max_min_fairness`, ..., `fifo_perf`), realised in Gavel's rounds or by "
          "event-driven leases (`rounds`).");
  field<SimOptions>(
      keys, "scheduler.rounds", [](auto& o) -> auto& { return o.scheduler.rounds; })
      .choices({"gavel", "exact"})
      .component("policies gavel")
      .training_only()
      .doc(
          "How a Gavel policy's allocation becomes a schedule: `gavel`, rounds of `lease_s` "
          "with whole-step micro-tasks, as Gavel's simulator; `exact`, event-driven: re-solved "
          "at every arrival and completion, each job holding leases of its fraction x `lease_s` "
          "that start the moment GPUs free ([`sim/README.md`](sim/README.md#gavels-policies-"
          "allocations-over-jobs-x-gpu-types)).");
  field<SimOptions>(
      keys, "scheduler.allocation_reset_s",
      [](auto& o) -> auto& { return o.scheduler.allocation_reset_s; })
      .range(0.0, 1e12)
      .component("policies gavel")
      .training_only()
      .doc(
          "Gavel's rounds: the allocation is recomputed at most this often (Gavel: 1,920 s); "
          "`rounds = \"exact\"` re-solves at every arrival and completion instead.");
  field<SimOptions>(
      keys, "scheduler.type_order", [](auto& o) -> auto& { return o.scheduler.type_order; })
      .choices({"gavel", "fixed", "shuffle"})
      .component("policies gavel")
      .training_only()
      .doc(
          "Gavel's rounds: the order GPU types are walked in: the cluster's (`fixed`), shuffled "
          "each round (`shuffle`), or Gavel's (shuffled for its heterogeneity-agnostic "
          "policies, fixed for the `_perf` ones and `fifo_perf`).");
  field<SimOptions>(
      keys, "scheduler.exact_fill", [](auto& o) -> auto& { return o.scheduler.exact_fill; })
      .choices({"none", "idle"})
      .component("policies gavel")
      .training_only()
      .doc(
          "`rounds = \"exact\"`: GPUs left over once every job with a share that fits has its "
          "lease: `none` leaves them idle, as the allocation says; `idle` gives them to waiting "
          "jobs that can run there (deficit, then arrival order, then the faster type), which "
          "hold them until a job with a share needs them (then stopped, at `checkpoint_s` / "
          "`restore_s` like any preemption; [`sim/README.md`](sim/README.md#gavels-policies-"
          "allocations-over-jobs-x-gpu-types)).");
  field<SimOptions>(
      keys, "scheduler.tie_break", [](auto& o) -> auto& { return o.scheduler.tie_break; })
      .choices({"throughput", "none"})
      .when("scheduler.policy", time_share_tie_break_policies())
      .component("policies gavel")
      .training_only()
      .doc(
          "Gavel's LP policies have many optimal allocations, and which one the simplex returns "
          "depends on where it starts; `throughput`: a second, lexicographic stage keeps the "
          "policy's optimum (to 1e-7) and maximises the jobs' summed rates of progress "
          "(`min_total_duration`, `finish_time_fairness`) or normalised throughputs (max-min), "
          "then, agnostic forms, splits each job's time over the types by its real speeds; "
          "`none`: the first optimal vertex ([`sim/README.md`](sim/README.md#gavels-policies-"
          "allocations-over-jobs-x-gpu-types)).");
  declare_tiresias_keys(keys);
  declare_estimator_keys(keys);
}

}  // namespace options

}  // namespace clustersim
