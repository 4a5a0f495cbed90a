// Idle nodes powered off ([power] idle_off_after_s, with [power] on): a decision mechanism
// (decision_mechanism.h) that switches idle nodes off and on again through capacity plans (a
// node off is down, as in an availability window) and the power meter (it draws standby power).
// Private to the simulator.
//
// Mechanisms hear of no completion, so it looks after each decision (every instant at which jobs
// arrive, finish or give back GPUs, and nodes go down or up has one), scanning the nodes: O(nodes)
// a decision, and nothing when it is off (it is not built):
//   idle    a node that is on, up, and holds no job and no GPU held outside jobs has been idle
//           since the first decision that saw it so; a timer `idle_off_after_s` later switches
//           it off if it is still idle then (a job it ran meanwhile voids the timer). Not when
//           the queue's head waits and the other idle and booting nodes could not hold it: the
//           node stays on, and is looked at again `idle_off_after_s` later.
//   wake    when the queue's head still waits after a decision, off nodes of its GPU type are
//           switched on, from the first node on, until the GPUs of idle nodes and of booting
//           nodes of that type reach its GPUs: enough for the head, not for the jobs behind it
//           (they wake more when they are the head). Each boots for `boot_s`, drawing its base
//           and idle power, and comes up at the end of its boot; the decision then starts the
//           head on it.
// Off nodes draw `standby_w_per_node` (power_meter.h). A job a gate holds back (carbon
// deferral) is the head all the same: it may wake nodes it does not use yet.
#pragma once

#include <cstdint>
#include <vector>

#include "clustersim/simulator.h"
#include "decider/decision_mechanism.h"

namespace clustersim::internal {

class PowerMeter;

class IdlePowerOff final : public DecisionMechanism {
 public:
  explicit IdlePowerOff(const SimOptions& options);
  // The meter the nodes' standby power is drawn through (set before the run begins).
  void meter_through(PowerMeter& meter) { meter_ = &meter; }

  std::string_view name() const override { return "idle_power_off"; }
  unsigned hooks() const override { return kAfterDecision; }
  void attach(Host& host) override;
  void bind(DecisionStages& stages) override { stages_ = &stages; }
  void on_timer(const Timer& timer) override;
  void after_decision(Time now) override;
  // Its off timers may outlive the jobs: the run ends when no job is left.
  bool endless() const override { return true; }
  void report(RunMetrics& metrics) const override;

 private:
  enum class Power : std::uint8_t { kOn, kOff, kBooting };
  // A node that is on, up and holds nothing.
  bool idle(std::uint32_t node) const;
  // Whether `node` serves a job of `gpu_type` (-1: any).
  bool serves(std::uint32_t node, int gpu_type) const;
  // GPUs of idle and booting nodes that serve the queue's head, less `skip`'s; and the GPUs the
  // head needs (0 when nothing waits).
  int head_need() const;
  int ready_gpus(int gpu_type, std::uint32_t skip) const;
  void wake_for_head();
  void switch_off(std::uint32_t node);

  const PowerOptions& options_;
  Host* host_ = nullptr;
  DecisionStages* stages_ = nullptr;
  PowerMeter* meter_ = nullptr;
  TimerKind off_timer_ = 0, boot_timer_ = 0;
  std::vector<Power> power_;        // by node
  std::vector<char> timed_;         // by node: an off timer is pending for its idle stretch
  std::vector<std::uint32_t> era_;  // by node: bumped when its idle stretch ends (voids timers)
  std::vector<double> off_since_;   // by node: when it was switched off
  std::uint64_t boots_ = 0;
  double off_s_ = 0.0;  // node-seconds off, of nodes switched on again
};

}  // namespace clustersim::internal
