// Elastic jobs ([mechanisms] elastic; JobSpec::min_gpus / max_gpus): plans that change running
// jobs' GPU counts, Singularity/Pollux style. Private to the core; the scheduler calls it, the
// engine applies what it plans (each resize pauses the job for its cost, OverheadKind::kResize;
// its speed with g GPUs follows the scaling curve, Engine::rate_if).
//
//   shrink_for  a waiting job lacks GPUs of its type: take back first what elastic jobs hold
//               beyond their request (any job), then down to their minimum (only jobs the policy
//               ranks after the waiting one), the lowest-ranked first; nothing if that cannot
//               free enough. Under strict locality, only on the one node that can then hold
//               the waiting job (GPUs freed elsewhere would sit idle).
//   grow        GPUs idle and nothing waiting: running elastic jobs, in policy order, grow into
//               them (their own nodes first, then, unless locality is strict, the roomiest), up
//               to their maximum and within their VC's quota, when that finishes them sooner net
//               of the resize's cost. After a release any of them may grow; as jobs start, only
//               those starting (they choose their size for free), so that starts do not churn
//               running jobs.
#pragma once

#include <cstdint>
#include <vector>

#include "clustersim/plan.h"
#include "core/engine.h"
#include "mechanisms/planned_ledger.h"

namespace clustersim::internal {

class Scheduler;

class ElasticResizer {
 public:
  ElasticResizer(Engine& engine, const Scheduler& scheduler);

  bool shrink_for(std::uint32_t job, Plan& plan);
  // `only_not_begun`: only jobs that started this instant (they grow for free).
  bool grow(Plan& plan, bool only_not_begun);

 private:
  // Under strict locality: cut on the one node where the waiting job will then fit.
  bool shrink_on_one_node(std::uint32_t waiting, int type, Plan& plan);
  // The running elastic jobs on `type` (-1: any) for which `keep` holds, in policy order.
  template <typename Keep>
  void collect(int type, Keep keep);

  Engine& engine_;
  const Scheduler& scheduler_;
  PlannedLedger planned_;
  std::vector<std::uint32_t> jobs_;
  std::vector<int> cut_;  // by position in jobs_: GPUs to take back
  std::vector<Grant> grants_;
  std::vector<std::uint32_t> nodes_;
};

}  // namespace clustersim::internal
