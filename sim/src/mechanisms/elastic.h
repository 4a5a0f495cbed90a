// Elastic jobs ([mechanisms] elastic; JobSpec::min_gpus / max_gpus): a decision mechanism of the
// built-in decider (decision_mechanism.h) that changes running jobs' GPU counts,
// Singularity/Pollux style. Private to the simulator; the engine applies what it plans (each
// resize pauses the job for its cost, OverheadKind::kResize; its speed with g GPUs follows the
// scaling curve, throughput/job_speed.h).
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
#include <memory>
#include <vector>

#include "clustersim/plan.h"
#include "decider/decision_mechanism.h"
#include "mechanisms/planned_ledger.h"

namespace clustersim::internal {

class Elastic final : public DecisionMechanism {
 public:
  Elastic() = default;

  std::string_view name() const override { return "elastic"; }
  unsigned hooks() const override { return kAfterPass | kUseIdle; }
  void attach(Host& host) override { (void)host; }
  void bind(DecisionStages& stages) override;
  // After the pass: shrink for the queue's head (tried once per head until something is
  // released: a failed try fails again until then). With nothing waiting, after a release or
  // as jobs start: grow.
  bool after_pass(Plan& plan) override;
  bool use_idle(Plan& plan) override;

  bool shrink_for(std::uint32_t job, Plan& plan);
  // `only_not_begun`: only jobs that started this instant (they grow for free).
  bool grow(Plan& plan, bool only_not_begun);

 private:
  // Under strict locality: cut on the one node where the waiting job will then fit.
  bool shrink_on_one_node(std::uint32_t waiting, int type, Plan& plan);
  // The running elastic jobs on `type` (-1: any) for which `keep` holds, in policy order.
  template <typename Keep>
  void collect(int type, Keep keep);

  const View& view() const { return *view_; }
  bool ranks_before(std::uint32_t a, std::uint32_t b) const;

  DecisionStages* decision_ = nullptr;
  const View* view_ = nullptr;
  std::unique_ptr<PlannedLedger> planned_;
  std::uint32_t shrink_tried_for_ = UINT32_MAX;  // the head last shrunk for (or not)
  std::vector<std::uint32_t> jobs_;
  std::vector<int> cut_;  // by position in jobs_: GPUs to take back
  std::vector<Grant> grants_;
  std::vector<std::uint32_t> nodes_;
};

}  // namespace clustersim::internal
