// A scheduling decision as data: for each job that changes, the resources it holds from now on.
// The engine applies a plan as a diff against what runs (sim/README.md, "Scheduling core"); it is
// the only way the simulation's state changes. Schedulers, allocation mechanisms and (later)
// mechanisms such as migration or elastic resizing all produce plans.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace clustersim {

// What a job holds on one node. CPU, memory and storage are 0 where the node does not model them.
// (Fractional GPU shares and GPU memory join here as further fields when they are modelled.)
struct Grant {
  std::uint32_t node = 0;
  int gpus = 0;  // whole GPUs, >= 1
  double cpus = 0.0;
  double mem_gb = 0.0;
  double storage_mbps = 0.0;
};

class Plan {
 public:
  struct Change {
    std::uint32_t job = 0;
    std::uint32_t first_grant = 0;
    std::uint32_t grant_count = 0;  // 0 = stop the job (it is preempted and re-queued)
  };

  void clear() {
    changes_.clear();
    grants_.clear();
  }
  bool empty() const { return changes_.empty(); }
  // Opens the entry of `job`: the grants added until the next set() are what it holds after the
  // plan. A job appears at most once per plan (the engine checks).
  void set(std::uint32_t job) {
    changes_.push_back({job, static_cast<std::uint32_t>(grants_.size()), 0});
  }
  void add_grant(const Grant& grant) {
    grants_.push_back(grant);
    ++changes_.back().grant_count;
  }
  std::span<const Change> changes() const { return changes_; }
  std::span<const Grant> grants(const Change& change) const {
    return {grants_.data() + change.first_grant, change.grant_count};
  }

 private:
  std::vector<Change> changes_;
  std::vector<Grant> grants_;
};

}  // namespace clustersim
