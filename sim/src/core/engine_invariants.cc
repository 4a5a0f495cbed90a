// The engine's invariants (SimOptions::check_invariants: after every decision, and at the end):
// the ledger, the holders' grants, the per-node and per-VC sums, MIG slices and work
// conservation agree with each other. A broken one is a bug of the engine or of a decider's
// plan checks (std::logic_error), never a user's error.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "clustersim/mig.h"
#include "core/engine.h"

namespace clustersim::internal {

void Engine::check_invariants() const {
  const auto nodes = cluster_.nodes();
  std::vector<int> used(nodes.size(), 0);
  std::vector<double> cpus(nodes.size(), 0.0), mem(nodes.size(), 0.0), storage(nodes.size(), 0.0);
  std::vector<std::size_t> listed(nodes.size(), 0);
  std::vector<double> vc(vc_names_.size(), 0.0);
  for (std::uint32_t index : holders_) {
    const JobState& job = jobs_[index];
    if (!job.holds_gpus()) throw std::logic_error("invariant: a holder does not hold GPUs");
    int gpus = 0;
    for (const Grant& grant : grants_of(index)) {
      used[grant.node] += grant.gpus;
      cpus[grant.node] += grant.cpus;
      mem[grant.node] += grant.mem_gb;
      storage[grant.node] += grant.storage_mbps;
      gpus += grant.gpus;
      const auto& list = node_holders_[grant.node];
      if (std::count(list.begin(), list.end(), index) != 1)
        throw std::logic_error("invariant: the node index lost a holder");
      ++listed[grant.node];
    }
    if (gpus != job.gpus) throw std::logic_error("invariant: job holds the wrong number of GPUs");
    if (job.gpus != job.requested_gpus &&
        !(resizable(index) && job.gpus >= min_gpus(index) && job.gpus <= max_gpus(index)))
      throw std::logic_error("invariant: a job holds a GPU count outside its range");
    vc[job.vc] += job.gpus;
  }
  std::size_t waiting = 0;
  for (const JobState& job : jobs_) waiting += job.phase == JobPhase::kWaiting;
  if (waiting != waiting_.size()) throw std::logic_error("invariant: the waiting list drifted");
  for (std::uint32_t index : waiting_)
    if (jobs_[index].phase != JobPhase::kWaiting)
      throw std::logic_error("invariant: the waiting list holds a job that does not wait");
  std::size_t offline = 0;
  for (std::size_t i = 0; i < down_count_.size(); ++i) {
    if (down_count_[i] == 0) continue;
    ++offline;
    const Grant& outage = offline_grant_[i];
    if (!node_holders_[i].empty() || outage.gpus + held_gpus_[i] != nodes[i].gpus)
      throw std::logic_error("invariant: a node that is down hosts a job");
    used[i] += outage.gpus;
    cpus[i] += outage.cpus;
    mem[i] += outage.mem_gb;
    storage[i] += outage.storage_mbps;
  }
  if (offline != offline_nodes_) throw std::logic_error("invariant: offline node count drifted");
  for (std::size_t i = 0; i < held_gpus_.size(); ++i) used[i] += held_gpus_[i];
  int free = 0;
  constexpr double kTolerance = 1e-6;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    int shared_here = node.mig >= 0 ? node.gpus : 0;  // GPUs in MIG mode are never free
    for (int g = 0; cluster_.shares_gpus() && g < node.gpus; ++g)
      shared_here += cluster_.used_milli(static_cast<std::uint32_t>(i), g) > 0 ? 1 : 0;
    if (node.free_gpus < 0 || used[i] + shared_here + node.free_gpus != node.gpus)
      throw std::logic_error("invariant: GPUs of node " + std::to_string(i) +
                             " over-allocated or leaked");
    const auto over = [&](double held, double total, double left) {
      return total > 0.0 && (held > total * (1 + kTolerance) + kTolerance ||
                             std::abs(held + left - total) > kTolerance * (1 + total));
    };
    if (node.free_cpus < -kTolerance || node.free_mem_gb < -kTolerance ||
        node.free_storage_mbps < -kTolerance || over(cpus[i], node.cpus, node.free_cpus) ||
        over(mem[i], node.mem_gb, node.free_mem_gb) ||
        over(storage[i], node.storage_mbps, node.free_storage_mbps))
      throw std::logic_error("invariant: CPU, memory or storage of node " + std::to_string(i) +
                             " over-allocated or leaked");
    if (listed[i] != node_holders_[i].size())
      throw std::logic_error("invariant: the node index lists a job that holds nothing there");
    free += node.free_gpus;
  }
  if (free != cluster_.free_gpus()) throw std::logic_error("invariant: free GPU count drifted");
  if (cluster_.shares_gpus()) {  // each GPU's shares: what its holders hold, and taken whole
    std::vector<int> milli;
    std::vector<std::uint32_t> base(nodes.size() + 1, 0);
    for (std::size_t i = 0; i < nodes.size(); ++i)
      base[i + 1] = base[i] + static_cast<std::uint32_t>(nodes[i].gpus);
    milli.assign(base.back(), 0);
    for (std::uint32_t index : holders_)
      for (const Grant& grant : grants_of(index))
        if (grant.milli != 0)
          milli[base[grant.node] + static_cast<std::uint32_t>(grant.gpu)] += grant.milli;
    int shared = 0;
    for (std::uint32_t i = 0; i < nodes.size(); ++i) {
      int shared_here = 0;
      for (int g = 0; g < nodes[i].gpus; ++g) {
        const int held = milli[base[i] + static_cast<std::uint32_t>(g)];
        if (held != cluster_.used_milli(i, g) || held > ClusterState::kMilliPerGpu)
          throw std::logic_error("invariant: GPU shares of node " + std::to_string(i) +
                                 " drifted or over-allocated");
        shared_here += held > 0 ? 1 : 0;
      }
      if (shared_here + used[i] + nodes[i].free_gpus + (nodes[i].mig >= 0 ? nodes[i].gpus : 0) !=
          nodes[i].gpus)
        throw std::logic_error("invariant: shared GPUs of node " + std::to_string(i) +
                               " are counted as free or held");
      shared += shared_here;
    }
    if (shared != cluster_.shared_gpus())
      throw std::logic_error("invariant: shared GPU count drifted");
    if (cluster_.shares_gpu_mem()) {  // each GPU's shares' memory: what its holders hold
      std::vector<std::int32_t> mem(base.back(), 0);
      for (std::uint32_t index : holders_)
        for (const Grant& grant : grants_of(index))
          if (grant.milli != 0)
            mem[base[grant.node] + static_cast<std::uint32_t>(grant.gpu)] += grant.gpu_mem_mb;
      for (std::uint32_t i = 0; i < nodes.size(); ++i)
        for (int g = 0; g < nodes[i].gpus; ++g) {
          const std::int32_t held = mem[base[i] + static_cast<std::uint32_t>(g)];
          if (held != cluster_.used_mem_mb(i, g) ||
              (nodes[i].gpu_mem_mb > 0 && held > nodes[i].gpu_mem_mb))
            throw std::logic_error("invariant: GPU memory of shares on node " + std::to_string(i) +
                                   " drifted or over-allocated");
        }
    }
  }
  if (cluster_.mig_gpus() > 0) {  // each MIG GPU's slices: its holders', never overlapping
    std::vector<std::uint32_t> base(nodes.size() + 1, 0);
    for (std::size_t i = 0; i < nodes.size(); ++i)
      base[i + 1] = base[i] + static_cast<std::uint32_t>(nodes[i].gpus);
    std::vector<std::uint8_t> masks(base.back(), 0);
    int compute = 0;
    for (std::uint32_t index : holders_)
      for (const Grant& grant : grants_of(index)) {
        if (grant.mig_mask == 0) continue;
        std::uint8_t& mask = masks[base[grant.node] + static_cast<std::uint32_t>(grant.gpu)];
        if ((mask & grant.mig_mask) != 0)
          throw std::logic_error("invariant: MIG slices overlap on node " +
                                 std::to_string(grant.node));
        mask = static_cast<std::uint8_t>(mask | grant.mig_mask);
        compute += grant.mig_compute;
      }
    for (std::uint32_t i = 0; i < nodes.size(); ++i)
      for (int g = 0; nodes[i].mig >= 0 && g < nodes[i].gpus; ++g)
        if (masks[base[i] + static_cast<std::uint32_t>(g)] != cluster_.mig_used(i, g))
          throw std::logic_error("invariant: MIG slices of node " + std::to_string(i) + " drifted");
    if (compute != cluster_.held_mig_compute())
      throw std::logic_error("invariant: held MIG compute slices drifted");
  }
  cluster_.check_index();
  for (std::size_t v = 0; v < vc.size(); ++v)
    if (vc[v] != vc_usage_[v]) throw std::logic_error("invariant: VC usage drifted");
  if (decider_) decider_->check_invariants();
  check_work_conservation();
}

// GPU-seconds held by jobs, three ways: as the ledger's busy GPUs integrate them, as jobs'
// holdings sum them, and as progress plus every charged overhead (lost work is progress that a
// failure took back). The three must agree.
void Engine::check_work_conservation() const {
  double held = held_gpu_seconds_, progress = progress_gpu_seconds_,
         overhead = overhead_gpu_seconds_;
  for (std::uint32_t index : holders_) {
    const JobState& job = jobs_[index];
    held += job.gpus * (now_ - job.held_since);
    if (job.phase == JobPhase::kRunning) {
      progress += job.gpus * (now_ - job.progress_since);
    } else {
      overhead += job.gpus * (now_ - job.phase_since);
    }
  }
  const auto differ = [](double a, double b) {
    return std::abs(a - b) > 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
  };
  if (differ(held, ledger_gpu_seconds_))
    throw std::logic_error("invariant: GPU-seconds held by jobs differ from the ledger's");
  if (differ(held, progress + overhead))
    throw std::logic_error(
        "invariant: work conservation: GPU-seconds held != progress + overheads");
}

}  // namespace clustersim::internal
