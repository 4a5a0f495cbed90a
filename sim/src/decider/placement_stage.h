// GPU-type choice and placement: the built-in decider's stage that turns "start this job" into
// nodes. It applies the one type-choice rule (type_choice.h), strict locality (a waiting job
// starts only on the fewest nodes that can hold it, until locality_relax_s of waiting), and the
// configured placement policy (placement.h). With the view it is the AllocationContext that
// allocation mechanisms read (allocation_mechanism.h).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/placement.h"
#include "clustersim/random.h"
#include "clustersim/simulator.h"
#include "clustersim/view.h"

namespace clustersim::internal {

class PlacementStage final : public AllocationContext {
 public:
  // The placement policy's randomness is seeded from options.seed.
  PlacementStage(const SimOptions& options, const View& view);

  // The request of a job as its spec states it: GPUs, type, CPUs and memory per GPU (its own
  // where it asks, else proportional); no locality.
  static PlacementRequest base_request(const JobState& job);
  bool consolidates() const { return placement_->consolidates(); }
  bool uses_free_gpu_prefix_sums() const { return placement_->uses_free_gpu_prefix_sums(); }
  // The fewest nodes of `gpu_type` that can hold `gpus` GPUs (strict locality's limit), and
  // whether the waiting job has room on that many nodes of a type it may start on (a necessary
  // condition for a placement there).
  std::size_t fewest_nodes(int gpu_type, int gpus) const;
  bool room_on_fewest_nodes(std::uint32_t job);
  // A CPU-only, fractional or MIG job (JobState::requested_gpus 0): sets its grant in `plan` and
  // returns true, or false when nothing fits now (sim/README.md, "GPU sharing").
  bool start_small(std::uint32_t job, Plan& plan) const;
  // A job on a MIG slice (JobState::mig; sim/README.md, "MIG partitions"), by start_small.
  bool start_mig(std::uint32_t job, Plan& plan) const;
  // The type an untyped job would start on now (the first of types_to_try), or -1 if none has
  // room; a typed job's own type.
  int start_type(std::uint32_t job);
  // A job arrived: with type_choice = "speedup", its relative speeds join the typical ones.
  bool learns_speeds() const { return choice_ == Choice::kSpeedup; }
  void arrived(std::uint32_t job);

  // ---- AllocationContext: the placement services ------------------------------------------
  PlacementRequest request_of(std::uint32_t job) const override;
  std::span<const int> types_to_try(std::uint32_t job) override;
  bool place(const PlacementRequest& request, std::vector<NodeShare>& out) override;

  // ---- AllocationContext: the view (the engine's tables; its computed answers) -----------
  double rate_if(std::uint32_t job, std::span<const Grant> grants) const override {
    return view_.rate_if(job, grants);
  }
  double rate_per_gpu(std::uint32_t job, int gpu_type, const PerGpu& per_gpu) const override {
    return view_.rate_per_gpu(job, gpu_type, per_gpu);
  }
  SensitivityAxes axes(std::uint32_t job, int gpu_type) const override {
    return view_.axes(job, gpu_type);
  }
  double expected_overhead_s(OverheadKind kind, std::uint32_t job) const override {
    return view_.expected_overhead_s(kind, job);
  }

 private:
  const View& view_;
  const SchedulerOptions& options_;
  Rng rng_;
  std::unique_ptr<PlacementPolicy> placement_;
  std::vector<int> type_gpus_per_node_;  // the most GPUs a node of each type has
  std::vector<int> type_order_;          // types_to_try's answer
  enum class Choice : std::uint8_t { kMostFree, kFastest, kSpeedup };
  Choice choice_ = Choice::kMostFree;
  // speedup: sums over arrived jobs of speed(t) / the job's best speed, by type, and their count.
  std::vector<double> relative_speed_sum_;
  std::size_t arrived_ = 0;
};

}  // namespace clustersim::internal
