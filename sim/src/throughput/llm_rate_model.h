// LLM training jobs' speed ([fabric], llm.h) as a rate model (rate_model.h). A job of the
// trace's LLM columns runs its trace duration at its iteration time alone on a packed placement
// of its reference GPU type (its gpu_type, else the cluster's first type); elsewhere its factor is
// that iteration time over the one it gets on what it holds: another GPU type's peak, a group
// split across scale-up domains, and, with scale-out tiers ([fabric] hosts_per_leaf or
// topology), its share of the leaf and spine uplinks its DP traffic crosses (max-min fair among
// all jobs' flows, water-filling). A change of holdings re-rates only the jobs that share
// uplinks, transitively, with the changed ones. Jobs without LLM columns keep factor 1. Joins a
// run whenever the workload has LLM jobs.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "clustersim/fabric.h"
#include "clustersim/llm.h"
#include "clustersim/rate_model.h"
#include "clustersim/simulator.h"

namespace clustersim::internal {

class LlmRateModel final : public RateModel {
 public:
  explicit LlmRateModel(const FabricOptions& fabric) : fabric_(fabric) {}

  std::string_view name() const override { return "llm"; }
  void attach(const View& view) override { view_ = &view; }
  // Each LLM job's reference iteration time; a GPU type without a peak (llm.h) is an error.
  void jobs_loaded(std::size_t from) override;
  double factor(std::uint32_t job) override;
  void on_grant_changed(const Grant& grant) override {
    if (fabric_.contention()) touched_nodes_.push_back(grant.node);
  }
  // The LLM jobs crossing uplinks that changed, and every job sharing an uplink with those
  // (the connected part of the job-uplink graph), after sharing the uplinks anew.
  void take_affected(std::vector<std::uint32_t>& out) override;
  void on_released(std::uint32_t job) override;
  // Per-tier link utilisation samples (with scale-out tiers), the per-job columns and the run's
  // contention metrics (sim/README.md, "Contention metrics").
  void on_sample(Time now) override;
  void conclude(RunResult& result) override;
  void report(std::span<JobRecord> records, RunMetrics& metrics) const override;

  // `job`'s iteration alone on `gpus_per_domain` GPUs of each scale-up domain of `gpu_type`,
  // its DP traffic at most `dp_bytes_per_s` per GPU (seconds).
  double iteration_s(std::uint32_t job, int gpu_type, int gpus_per_domain,
                     double dp_bytes_per_s) const;

 private:
  const GpuPeak& peak_of(std::uint32_t job, int gpu_type) const;
  int domain_gpus(int gpu_type) const;  // fabric.scale_up_gpus, else a node's GPUs
  void build_fabric();
  // Scale-up domains spanning nodes (fabric.scale_up_gpus above a node's GPUs): domain_of_.
  void build_domains();
  // The fewest GPUs `grants` hold in one scale-up domain (a node when domains do not span).
  int least_held_per_domain(std::span<const Grant> grants);
  // Registers a running job's uplinks (GPUs behind each uplink it crosses) and marks them.
  void add_flows(std::int32_t slot, std::uint32_t job);
  void remove_flows(std::int32_t slot);
  void water_fill();  // over comp_slots_ / comp_links_

  struct Entry {
    LlmJob job;
    std::uint32_t job_index = 0;  // its position in the workload
    double ref_s = 0;
    double share = 0;  // DP bytes/s per GPU its uplinks give it (with flows registered)
    bool flows = false;
    std::vector<std::pair<std::uint32_t, double>> links;  // (uplink, GPUs behind it)
    // While it runs: its iteration now, alone on what it holds and as shared (0: not running),
    // its GPUs, since when; and the integrals over its running time (seconds, s x s, GPU-s).
    double alone_s = 0, actual_s = 0;
    int gpus = 0;
    Time since = 0;
    double run_s = 0, alone_integral = 0, actual_integral = 0, slowdown_integral = 0;
    double lost_gpu_s = 0;  // GPUs x time x (1 - alone / actual): work it could have done
  };
  // Adds the stretch since its last change to `entry`'s integrals.
  static void fold(Entry& entry, Time now);
  // Adds the stretch since the last change to the tiers' utilisation integrals.
  void fold_links(Time now);
  // A changed uplink's utilisation anew: its flows' shares over its capacity.
  void update_load(std::uint32_t link);
  bool is_pod_link(std::uint32_t link) const { return link >= topology_.leaf_uplink.size(); }
  const FabricOptions& fabric_;
  const View* view_ = nullptr;
  std::vector<std::int32_t> slot_;  // by job: its entry, -1 for jobs without LLM columns
  std::vector<Entry> entries_;
  std::vector<int> type_domain_;         // by GPU type: GPUs of one scale-up domain
  std::vector<double> type_efficiency_;  // by 2 x GPU type + (precision is FP8)
  // By node: its scale-up domain when domains span nodes, else empty (a node is a domain); and
  // the (domain, GPUs) of a job's grants, scratch.
  std::vector<std::uint32_t> domain_of_;
  std::vector<std::pair<std::uint32_t, int>> domain_held_;
  // Contention: the fabric, each uplink's flows (slot, GPUs), and the work lists of a re-rate
  // (members, reused: no allocation per event once they have grown).
  FabricTopology topology_;
  std::vector<std::vector<std::pair<std::int32_t, double>>> link_flows_;
  std::vector<std::uint32_t> touched_nodes_, dirty_links_, comp_links_;
  std::vector<std::int32_t> comp_slots_;
  std::vector<std::uint64_t> link_seen_, slot_seen_;  // == pass_: in this re-rate's component
  std::uint64_t pass_ = 0;
  std::vector<double> link_left_, link_weight_;  // water-filling, by uplink
  std::vector<char> frozen_;                     // by component position
  // Link utilisation: each uplink's (flows' shares / capacity), its sum over each tier (leaf,
  // spine), the sums' integrals from the first LLM job's start to the last one's release, and
  // the samples.
  std::vector<double> link_load_;
  double tier_load_[2] = {0, 0}, tier_integral_[2] = {0, 0};
  Time links_since_ = 0, first_start_ = -1, last_release_ = 0;
  std::vector<double> sample_leaf_util_, sample_spine_util_;
};

}  // namespace clustersim::internal
