// What the simulation tests share: deciders written in a few lines that start waiting jobs in an
// order of the test's (each where the configured allocation mechanism puts it; a job that does
// not fit waits and later ones may start: backfill, as the built-in pass does), and a check that
// two runs' job records are equal bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/simulation.h"

namespace clustersim::testing {

// Every timing field of every job record, bit for bit, and where and how often it ran.
inline void expect_same_records(const RunResult& a, const RunResult& b) {
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    const JobRecord& x = a.jobs[i];
    const JobRecord& y = b.jobs[i];
    ASSERT_EQ(std::memcmp(&x.start_time, &y.start_time, sizeof(double)), 0) << "job " << i;
    ASSERT_EQ(std::memcmp(&x.finish_time, &y.finish_time, sizeof(double)), 0) << "job " << i;
    ASSERT_EQ(std::memcmp(&x.queue_delay, &y.queue_delay, sizeof(double)), 0) << "job " << i;
    ASSERT_EQ(std::memcmp(&x.gpu_seconds, &y.gpu_seconds, sizeof(double)), 0) << "job " << i;
    ASSERT_EQ(x.nodes, y.nodes) << "job " << i;
    ASSERT_EQ(x.preemptions, y.preemptions) << "job " << i;
  }
}

// `before(view, a, b)`: waiting job a starts before b.
using JobOrder = std::function<bool(const View&, std::uint32_t, std::uint32_t)>;

// Starts the waiting jobs in `before`'s order, each where `allocation` puts it.
inline void start_in_order(const View& view, AllocationMechanism& allocation,
                           AllocationContext& context, const JobOrder& before,
                           const std::function<void(const Plan&)>& apply) {
  std::vector<std::uint32_t> waiting(view.waiting().begin(), view.waiting().end());
  std::sort(waiting.begin(), waiting.end(),
            [&](std::uint32_t a, std::uint32_t b) { return before(view, a, b); });
  Plan plan;
  for (std::uint32_t index : waiting) {
    plan.clear();
    if (allocation.start(index, context, plan)) apply(plan);
  }
}

// The same as a Decider object replacing the built-in one.
class OrderDecider final : public Decider {
 public:
  OrderDecider(Simulation& simulation, JobOrder before)
      : simulation_(simulation), before_(std::move(before)) {}
  void attach(Host& host) override {
    host_ = &host;
    allocation_ = make_allocation_mechanism(simulation_.options().scheduler);
    allocation_->bind(simulation_.context());
  }
  void decide(const DecisionPoint&) override {
    start_in_order(host_->view(), *allocation_, simulation_.context(), before_,
                   [&](const Plan& plan) { host_->apply(plan); });
  }

 private:
  Simulation& simulation_;
  JobOrder before_;
  Host* host_ = nullptr;
  std::unique_ptr<AllocationMechanism> allocation_;
};

// A program stepping the simulation and applying the order's plans itself.
inline RunResult run_stepped(Simulation& simulation, const JobOrder& before) {
  simulation.set_decider(nullptr);
  auto allocation = make_allocation_mechanism(simulation.options().scheduler);
  allocation->bind(simulation.context());
  while (simulation.step())
    start_in_order(simulation.view(), *allocation, simulation.context(), before,
                   [&](const Plan& plan) { simulation.apply(plan); });
  return simulation.result();
}

// Submit time, then workload order: the built-in FIFO.
inline bool fifo_before(const View& view, std::uint32_t a, std::uint32_t b) {
  const auto jobs = view.jobs();
  return jobs[a].submit != jobs[b].submit ? jobs[a].submit < jobs[b].submit : a < b;
}

}  // namespace clustersim::testing
