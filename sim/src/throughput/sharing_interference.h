// GPU-sharing interference ([sharing]) as a rate model (rate_model.h): a job holding a share of
// a GPU runs slower for each other share on the same GPU, by a constant factor or by a table of
// model pairs ([sharing] interference). It also measures each share's co-located time
// (JobRecord::colocated_seconds). Joins a run whenever sharing is on.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clustersim/rate_model.h"
#include "clustersim/simulator.h"

namespace clustersim::internal {

class SharingInterference final : public RateModel {
 public:
  explicit SharingInterference(const SharingOptions& sharing) : sharing_(sharing) {}

  std::string_view name() const override { return "sharing"; }
  void attach(const View& view) override { view_ = &view; }
  void jobs_loaded(std::size_t from) override;
  // The product of the factors of the other shares on its GPU (1 for whole GPUs, CPU-only jobs
  // and MIG slices); a share's co-located time is folded up to now with it.
  double factor(std::uint32_t job) override;
  void on_grant_changed(const Grant& grant) override {
    if (grant.milli != 0) touched_gpus_.emplace_back(grant.node, grant.gpu);
  }
  // The shares on GPUs whose shares changed, GPU by GPU in the order they changed.
  void take_affected(std::vector<std::uint32_t>& out) override;
  void on_released(std::uint32_t job) override;
  void report(std::span<JobRecord> records, RunMetrics& metrics) const override;

 private:
  // The factor of a pair of models from the table (an error if it has none).
  double pair_factor(std::uint32_t job, std::uint32_t other) const;
  // Its co-located time up to now; from now on it shares its GPU with `others` jobs.
  void fold_colocation(std::uint32_t job, int others);

  const SharingOptions& sharing_;
  const View* view_ = nullptr;
  std::vector<std::pair<std::uint32_t, int>> touched_gpus_;  // (node, GPU) since the last take
  // By job: since when it has shared its GPU with how many jobs, and for how long in all.
  std::vector<Time> colocated_since_;
  std::vector<int> colocated_with_;
  std::vector<double> colocated_seconds_;
  // interference = "table": each job's model (an index into model_names_), and the factor of
  // each ordered pair of models (NaN: the table has none).
  std::vector<std::string> model_names_;
  std::unordered_map<std::string, std::uint32_t> model_index_;
  std::vector<std::uint32_t> table_model_;
  std::vector<double> pair_factors_;
};

}  // namespace clustersim::internal
