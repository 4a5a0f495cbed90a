// Node failures ([mechanisms] mtbf_h, failure_model, weibull_shape, repair_h, failure_trace): a
// mechanism (mechanism.h) that works with any decider. Private to the simulator.
//
// Its timers: a node goes down (before arrivals at that instant), a node comes back. When a node
// goes down, every job on it fails (Plan::fail: each loses the progress since its last save,
// gives back everything it holds, on every node, and waits again), then the node is taken
// offline (a capacity change: its resources are held by the outage until it is back). Outages
// of a node nest (a replayed one during a generated one extends it). The run ends when no job
// is left, since generated failures never run out.
//
// With shrink_on_failure (and elastic), an elastic job on a failed node keeps what it holds on
// its other nodes when that is at least its min_gpus (keep_grants_off): rolled back to its last
// save, it restores there at once instead of waiting again, as with a failure class.
//
// Each node fails independently, as a renewal process: up-times drawn from an exponential or a
// Weibull distribution whose mean is the MTBF, each failure followed by a repair of repair_h.
// Every node draws from a stream of its own, so a node's failure times do not depend on what
// else happens in the run (nor on how many nodes there are).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "clustersim/mechanism.h"
#include "clustersim/mechanisms.h"
#include "clustersim/random.h"
#include "clustersim/simulator.h"

namespace clustersim::internal {

// Shrink on failure: adds to `plan`, after its Plan::fail(job), the grants of `job` on nodes
// outside `down` when the job may be resized (an elastic job, not checkpointing) and they add
// up to at least its min_gpus; else adds none (it waits again).
void keep_grants_off(const View& view, std::uint32_t job, std::span<const std::uint32_t> down,
                     Plan& plan);

class FailureProcess {
 public:
  FailureProcess(const MechanismOptions& options, std::size_t nodes, std::uint64_t seed);
  // Seconds the node stays up from now (after a repair, or from the start).
  double next_uptime(std::uint32_t node);
  double repair_s() const { return repair_s_; }

 private:
  MechanismOptions::FailureModel model_;
  double mtbf_s_;
  double shape_;
  double weibull_scale_;
  double repair_s_;
  std::vector<Rng> streams_;  // by node
};

class Failures final : public Mechanism {
 public:
  explicit Failures(const SimOptions& options);

  std::string_view name() const override { return "failures"; }
  void attach(Host& host) override;
  void start() override;
  void on_timer(const Timer& timer) override;
  bool endless() const override { return true; }
  void report(RunMetrics& metrics) const override { metrics.node_failures = node_failures_; }

 private:
  void node_down(std::uint32_t node, bool generated);
  void node_up(std::uint32_t node, bool generated);

  const MechanismOptions& options_;
  std::unique_ptr<FailureProcess> process_;  // null: no generated failures
  Host* host_ = nullptr;
  TimerKind down_ = 0, up_ = 0;  // timer tag: 1 = generated, 0 = replayed
  std::uint64_t node_failures_ = 0;
  Plan plan_;
};

}  // namespace clustersim::internal
