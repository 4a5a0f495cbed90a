// Node availability ([mechanisms] availability_trace): a mechanism (mechanism.h) that replays
// windows in which nodes are unavailable (maintenance, preemptible capacity taken back), with
// any decider. Private to the simulator.
//
// It uses the failures' capacity path and nothing else: when a window opens, every job on the
// node is interrupted as by a failure (Plan::fail: it loses the progress since its last save,
// gives back everything it holds and waits again; periodic checkpoints bound the loss) and the
// node goes down in the same plan; when the window closes the node comes back. Windows of a
// node nest with each other and with failures' outages (the engine counts them). An interrupted
// job counts in the jobs' `failures`, not in `node_failures` (no node failed).
#pragma once

#include <cstdint>

#include "clustersim/mechanism.h"
#include "clustersim/simulator.h"

namespace clustersim::internal {

class Availability final : public Mechanism {
 public:
  explicit Availability(const SimOptions& options);

  std::string_view name() const override { return "availability"; }
  void attach(Host& host) override;
  void start() override;
  void on_timer(const Timer& timer) override;
  // Windows after the last job do not keep the run going: it ends when no job is left.
  bool endless() const override { return true; }

 private:
  const MechanismOptions& options_;
  Host* host_ = nullptr;
  TimerKind away_ = 0, back_ = 0;
  Plan plan_;
};

}  // namespace clustersim::internal
