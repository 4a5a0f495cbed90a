// Fragmentation of the cluster's idle GPUs, kept up to date as the ledger changes (the ledger
// tells it of every change of a node's free whole GPUs: FreeGpuObserver), so that the
// measurement can integrate it over time exactly, at O(1) a change, instead of averaging samples.
//
// Two measures (sim/README.md, "Metrics"):
//  - against the job at the head of the queue (frag_mean, the fragmented_gpus column): idle
//    GPUs of the job's type on nodes whose free count is below min(its GPUs, the node's GPUs);
//  - against the workload's typical jobs, as the FGD study measures it (Weng et al., ATC'23:
//    the idle GPU capacity the typical pods cannot use), so it does not depend on which job
//    heads the queue (frag_typical_mean, the frag_typical_gpus column). Typical jobs: the
//    whole-GPU jobs' shapes (GPU count, GPU type asked for), most frequent first until they
//    cover 95% of those jobs, each weighted by its frequency. A typical job of g GPUs cannot use
//    a node's idle GPUs when the node is of another type, or
//      g <= the node's GPUs: the node has fewer than g free;
//      g >  the node's GPUs: the node is partly busy (the job would span more nodes than it
//        needs), or it is wholly free but its rack's free GPUs (nodes of its type and size) are
//        fewer than min(g, their GPUs) (the job would span more racks than it needs).
//    The measure is the expected unusable idle GPUs over the typical mix. Shares, MIG slices
//    and CPU-only jobs are left out of the mix (any idle GPU serves them).
// Integer sums throughout (GPU counts x job counts), so adding and taking back a change leaves
// no rounding drift.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "clustersim/cluster_state.h"
#include "clustersim/job_state.h"

namespace clustersim::internal {

class FragmentationTracker final : public FreeGpuObserver {
 public:
  struct TypicalJob {
    int gpus = 0;
    int gpu_type = -1;  // -1: any
    std::int64_t count = 0;
  };
  // The whole-GPU jobs' shapes, counted one job at a time (the engine counts each job as it
  // loads it, while its state is in cache: a second pass over a million cold states cost ~1%
  // of a run). Dense by (type + 1, GPUs).
  class ShapeCount {
   public:
    void add(const JobState& job);
    // The typical jobs (the rule above), most frequent first.
    std::vector<TypicalJob> typical() const;

   private:
    std::vector<std::vector<std::int64_t>> by_type_;  // [type + 1][GPUs]: jobs
    std::int64_t whole_gpu_jobs_ = 0;
  };
  // The typical jobs of `jobs`, most frequent first.
  static std::vector<TypicalJob> typical_jobs(std::span<const JobState> jobs);

  // Starts tracking `cluster` as it is now, against the typical jobs of `jobs` (or of the
  // shapes counted).
  void reset(const ClusterState& cluster, std::span<const JobState> jobs);
  void reset(const ClusterState& cluster, const ShapeCount& shapes);
  void on_free_gpus(std::uint32_t node, int before, int after) override;

  // Idle GPUs (of `gpu_type`; -1: all) on nodes whose free count is below min(gpus, the node's
  // GPUs): ClusterState::fragmented_gpus, from the sums.
  int head_fragmented(int gpu_type, int gpus) const;
  // Expected idle GPUs the typical jobs cannot use (0 without typical jobs).
  double typical_fragmented() const {
    return covered_ > 0 ? static_cast<double>(typical_total_) / static_cast<double>(covered_) : 0.0;
  }
  std::span<const TypicalJob> typical() const { return typical_; }

 private:
  // Nodes of one rack, GPU type and size: the unit of the rack rule.
  struct RackGroup {
    int gpu_type = 0;
    int size = 0;      // GPUs per node
    int capacity = 0;  // GPUs
    int free = 0;      // free GPUs
    int whole = 0;     // free GPUs on wholly free nodes
    std::int64_t weight = 0;
    // Some typical job is larger than these nodes and may use them (of their type): only then
    // can the rack rule give a weight (else it is 0 whatever the free GPUs, and a change skips it).
    bool rack_rule = false;
  };
  std::size_t cell(int gpu_type, int size, int free) const {
    return (static_cast<std::size_t>(gpu_type) * stride_ + static_cast<std::size_t>(size)) *
               stride_ +
           static_cast<std::size_t>(free);
  }
  std::int64_t node_weight(int gpu_type, int size, int free) const;
  std::int64_t rack_weight(const RackGroup& group) const;

  std::vector<TypicalJob> typical_;
  std::int64_t covered_ = 0;
  std::size_t stride_ = 1;  // largest node size + 1
  int types_ = 0;
  std::vector<int> node_type_, node_size_;
  std::vector<std::uint32_t> node_group_;
  std::vector<RackGroup> groups_;
  // By (type, size, free): that free count times the nodes with it (the head measure's sums),
  // and the typical measure's weight of one such node.
  std::vector<std::int64_t> free_sum_;
  std::vector<std::int64_t> weight_;
  std::vector<std::uint8_t> sizes_of_type_;  // by (type, size): 1 when such nodes exist
  std::int64_t typical_total_ = 0;
  // head_fragmented's last answer, until the free GPUs change (the measurement asks at every
  // event; most events change no node's free GPUs).
  struct HeadAnswer {
    int gpu_type = 0, gpus = 0, fragmented = 0;
    bool valid = false;
  };
  mutable HeadAnswer head_answer_;
};

}  // namespace clustersim::internal
