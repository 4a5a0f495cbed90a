// What a job's transitions cost, in seconds without progress while it holds its GPUs
// (mechanisms.h, OverheadCost). Private to the engine, which charges them.
#pragma once

#include <array>
#include <vector>

#include "clustersim/job.h"
#include "clustersim/mechanisms.h"
#include "clustersim/random.h"
#include "clustersim/simulator.h"

namespace clustersim::internal {

class OverheadModel {
 public:
  // `seed` drives the empirical draws (a stream of their own: other randomness is unchanged).
  OverheadModel(const SimOptions& options, std::uint64_t seed);

  // The seconds of one transition of `kind` for `job` (an empirical model draws one).
  double seconds(OverheadKind kind, std::uint32_t job, const JobSpec& spec);
  // Its expected value (what a planner compares moves by; no draw).
  double expected_seconds(OverheadKind kind, std::uint32_t job, const JobSpec& spec) const;
  // Whether every draw of it is 0 (a stop then frees the job's resources at once).
  bool certainly_zero(OverheadKind kind, std::uint32_t job, const JobSpec& spec) const;
  // Sizes the per-job cache of checkpoint sizes (for `jobs` jobs; it only grows).
  void load(std::size_t jobs);

 private:
  double checkpoint_gb(std::uint32_t job, const JobSpec& spec) const;
  // With `rng`, an empirical cost is drawn; without, its mean.
  double cost(const OverheadCost& cost, std::uint32_t job, const JobSpec& spec, Rng* rng) const;

  const MechanismOptions& mechanisms_;
  std::array<OverheadCost, kOverheadKinds> costs_;
  Rng rng_;
  mutable std::vector<double> checkpoint_gb_;  // by job; < 0: not looked up yet
};

}  // namespace clustersim::internal

namespace clustersim {
class KeyRegistry;  // options.h
}  // namespace clustersim
namespace clustersim::options {
// The keys of what transitions cost ([mechanisms] <kind>_model, _s, _gbps, _samples,
// default_checkpoint_gb, [mechanisms.checkpoint_gb]), declared with the model that charges them.
void declare_transition_cost_keys(KeyRegistry& keys);
}  // namespace clustersim::options
