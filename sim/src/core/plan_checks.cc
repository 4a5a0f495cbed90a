// Plans are checked whole before any state changes (plan.h): each job named once, in a phase
// it may leave, grants that add up to its GPUs on nodes of one type (check_change, every
// plan); and for plans from outside the built-in code, that every grant fits what its node will
// have free once the plan's releases are done (check_feasible). A plan that fails throws
// PlanError naming the job and the reason, and nothing has changed.
#include <algorithm>
#include <string>
#include <vector>

#include "clustersim/mig.h"
#include "core/engine.h"

namespace clustersim::internal {

void Engine::check_change(const Plan& plan, const Plan::Change& change) {
  // Messages are built only on failure: applying a plan must not allocate.
  const auto fail = [&](const char* what) {
    throw PlanError("plan: job '" + jobs_[change.job].spec->id + "' " + what);
  };
  if (change.job >= jobs_.size()) throw PlanError("plan: no job " + std::to_string(change.job));
  JobState& job = jobs_[change.job];
  if (plan_stamp_[change.job] == apply_number_) fail("is named twice");
  plan_stamp_[change.job] = apply_number_;
  switch (change.action) {
    case Plan::Action::kFail: {
      if (!job.holds_gpus()) fail("fails but holds nothing");
      if (change.grant_count == 0) return;
      // It shrinks on failure: grants it holds, unchanged, within its range.
      if (!resizable(change.job) || job.phase == JobPhase::kCheckpointing)
        fail("fails and keeps grants but cannot shrink (not resizable, or being stopped)");
      int kept = 0;
      for (const Grant& grant : plan.grants(change)) {
        bool held = false;
        for (const Grant& own : grants_of(change.job))
          held =
              held || (own.node == grant.node && own.gpus == grant.gpus && own.cpus == grant.cpus &&
                       own.mem_gb == grant.mem_gb && own.storage_mbps == grant.storage_mbps);
        if (!held) fail("fails and keeps a grant it does not hold");
        kept += grant.gpus;
      }
      if (kept < min_gpus(change.job) || kept >= job.gpus)
        fail("fails and keeps other than fewer GPUs within its range");
      return;
    }
    case Plan::Action::kSave:
      if (job.phase != JobPhase::kRunning) fail("saves a checkpoint but is not running");
      if (change.grant_count != 0) fail("saves a checkpoint but is given grants");
      return;
    case Plan::Action::kHold:
      break;
  }
  if (change.lease == Plan::Lease::kEnds && change.grant_count != 0)
    fail("ends its lease but is given grants");
  if (change.lease == Plan::Lease::kContinues &&
      (change.grant_count == 0 || job.phase != JobPhase::kWaiting))
    fail("continues a lease but is not started");
  if (change.grant_count == 0) {
    if (job.phase != JobPhase::kRunning) fail("is stopped but not running");
    return;
  }
  if (job.phase != JobPhase::kWaiting && job.phase != JobPhase::kRunning)
    fail("is changed while it neither waits nor runs");
  if (change.grant_count > cluster_.nodes().size()) fail("gets more grants than nodes");
  const auto grants = plan.grants(change);
  if (job.requested_gpus == 0) {  // a CPU-only or fractional job: one grant, its share
    const Grant& grant = grants.front();
    if (grants.size() != 1 || grant.node >= cluster_.nodes().size() || grant.gpus != 0 ||
        grant.milli != job.milli || (job.milli > 0 && grant.gpu < 0) ||
        (job.mig != 0) != (grant.mig_mask != 0) ||
        (job.mig != 0 && grant.mig_compute != mig_compute_slices(job.mig)))
      fail("gets other than one grant of its share, MIG slice or CPUs");
    if (job.gpu_type >= 0 && cluster_.node(grant.node).gpu_type != job.gpu_type)
      fail("gets GPUs of another type than it asks for");
    return;
  }
  int gpus = 0;
  const int type = grants.front().node < cluster_.nodes().size()
                       ? cluster_.node(grants.front().node).gpu_type
                       : -1;
  // A node named twice: pairwise for a few grants (no memory touched); a large gang's (a
  // 2,048-node restart) by marking its nodes, linear instead of quadratic.
  const bool mark_nodes = grants.size() > kPairwiseNodeCheck;
  if (mark_nodes && ++node_mark_ == 0) {  // the marks wrapped: none may look current
    std::fill(node_marks_.begin(), node_marks_.end(), 0u);
    node_mark_ = 1;
  }
  for (std::size_t g = 0; g < grants.size(); ++g) {
    const Grant& grant = grants[g];
    if (grant.node >= cluster_.nodes().size() || grant.gpus <= 0 || grant.milli != 0 ||
        grant.mig_mask != 0 || grant.gpu_mem_mb != 0)
      fail(grant.mig_mask != 0 || grant.gpu_mem_mb != 0
               ? "gets whole GPUs with a MIG slice or share memory"
               : "gets an empty grant or one on no node");
    if (cluster_.node(grant.node).gpu_type != type) fail("would mix GPU types");
    if (mark_nodes) {
      if (node_marks_[grant.node] == node_mark_) fail("gets one node twice");
      node_marks_[grant.node] = node_mark_;
    } else {
      for (std::size_t h = 0; h < g; ++h)
        if (grants[h].node == grant.node) fail("gets one node twice");
    }
    gpus += grant.gpus;
  }
  // An elastic job may run with any count in its range; it starts with the one it asks for.
  const bool may_resize = job.phase == JobPhase::kRunning && resizable(change.job);
  if (gpus != job.gpus &&
      (!may_resize || gpus < min_gpus(change.job) || gpus > max_gpus(change.job)))
    fail("gets the wrong number of GPUs");
  if (job.gpu_type >= 0 && type != job.gpu_type) fail("gets GPUs of another type than it asks for");
  if (!type_speeds_.empty() && type_speed(change.job, type) <= 0.0)
    fail("gets GPUs of a type it cannot run on");
}

void Engine::check_feasible(const Plan& plan) {
  ++apply_number_;
  for (const auto& change : plan.changes()) check_change(plan, change);
  // What each touched node would have free: its holders' releases, then the grants in plan
  // order, checked and taken as ClusterState::allocate does.
  struct Free {
    std::uint32_t node;
    int gpus;
    double cpus, mem_gb, storage_mbps;
  };
  std::vector<Free> touched;  // few: the nodes of one plan (this check is for outside plans)
  const auto free_of = [&](std::uint32_t node) -> Free& {
    for (Free& free : touched)
      if (free.node == node) return free;
    const auto& n = cluster_.node(node);
    touched.push_back({node, n.free_gpus, n.free_cpus, n.free_mem_gb, n.free_storage_mbps});
    return touched.back();
  };
  for (const auto& change : plan.changes()) {
    const JobState& job = jobs_[change.job];
    bool releases = false;
    if (change.action == Plan::Action::kFail) {
      releases = true;
    } else if (change.action == Plan::Action::kHold && job.phase == JobPhase::kRunning) {
      // A stop frees at once only when its checkpoint certainly takes no time.
      releases = change.grant_count > 0 ||
                 overheads_.certainly_zero(OverheadKind::kCheckpoint, job.index, *job.spec);
    }
    if (!releases) continue;
    for (const Grant& grant : grants_of(change.job)) {
      Free& free = free_of(grant.node);
      const auto& node = cluster_.node(grant.node);
      free.gpus += grant.gpus;
      free.cpus = std::min(node.cpus, free.cpus + grant.cpus);
      free.mem_gb = std::min(node.mem_gb, free.mem_gb + grant.mem_gb);
      free.storage_mbps = std::min(node.storage_mbps, free.storage_mbps + grant.storage_mbps);
    }
  }
  constexpr double kEpsilon = ClusterState::kResourceEpsilon;
  for (const auto& change : plan.changes()) {
    for (const Grant& grant : plan.grants(change)) {
      Free& free = free_of(grant.node);
      if (grant.gpus > free.gpus || grant.cpus < 0.0 || grant.mem_gb < 0.0 ||
          grant.storage_mbps < 0.0 || grant.cpus > free.cpus + kEpsilon ||
          grant.mem_gb > free.mem_gb + kEpsilon ||
          grant.storage_mbps > free.storage_mbps + kEpsilon)
        throw PlanError("plan: job '" + jobs_[change.job].spec->id + "' gets more of node " +
                        std::to_string(grant.node) +
                        " than is free (GPUs, CPUs, memory or storage bandwidth)");
      free.gpus -= grant.gpus;
      free.cpus = std::max(0.0, free.cpus - grant.cpus);
      free.mem_gb = std::max(0.0, free.mem_gb - grant.mem_gb);
      free.storage_mbps = std::max(0.0, free.storage_mbps - grant.storage_mbps);
    }
  }
}

}  // namespace clustersim::internal
