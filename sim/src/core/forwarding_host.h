// A Host that hands every verb to another host: what the hosts wrapped around the engine share
// (the checked host of a decider that is not built in, the one that lets the decision hooks
// follow its plans); each overrides only what it adds. Private to the simulator.
#pragma once

#include <cstdint>

#include "clustersim/host.h"

namespace clustersim::internal {

class ForwardingHost : public Host {
 public:
  explicit ForwardingHost(Host& to) : to_(to) {}
  const View& view() const override { return to_.view(); }
  void apply(const Plan& plan) override { to_.apply(plan); }
  TimerKind add_timer_kind(TimerClient& client, TimerPhase phase) override {
    return to_.add_timer_kind(client, phase);
  }
  void schedule(Time time, TimerKind kind, std::uint32_t subject, std::uint32_t tag) override {
    to_.schedule(time, kind, subject, tag);
  }
  void node_down(std::uint32_t node) override { to_.node_down(node); }
  void node_up(std::uint32_t node) override { to_.node_up(node); }
  void hold_gpus(std::uint32_t node, int gpus) override { to_.hold_gpus(node, gpus); }
  void release_gpus(std::uint32_t node, int gpus) override { to_.release_gpus(node, gpus); }

 private:
  Host& to_;
};

}  // namespace clustersim::internal
