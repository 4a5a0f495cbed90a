// A rate model written in this file alone joins a run (rate_model.h): the engine re-rates just
// the jobs the model names, folding their progress at the old rate.
#include "clustersim/rate_model.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "clustersim/component.h"
#include "clustersim/simulation.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

// Every job runs at half speed while another job holds GPUs on a node it holds: a toy of
// contention for a node's shared links.
class NeighboursHalveTheRate final : public RateModel {
 public:
  std::string_view name() const override { return "neighbours_halve_the_rate"; }
  void attach(const View& view) override { view_ = &view; }
  double factor(std::uint32_t job) override {
    ++asked_;
    for (const Grant& grant : view_->grants_of(job))
      for (std::uint32_t other : view_->holders_on(grant.node))
        if (other != job) return 0.5;
    return 1.0;
  }
  void on_grant_changed(const Grant& grant) override { changed_nodes_.insert(grant.node); }
  void take_affected(std::vector<std::uint32_t>& out) override {
    for (std::uint32_t node : changed_nodes_)
      for (std::uint32_t holder : view_->holders_on(node)) out.push_back(holder);
    changed_nodes_.clear();
  }
  int asked() const { return asked_; }

 private:
  const View* view_ = nullptr;
  std::set<std::uint32_t> changed_nodes_;
  int asked_ = 0;
};

TEST(RateModel, AModelWrittenInATestSlowsTheJobsItNames) {
  // One node of two GPUs. a (100 s of work) runs alone from 0 to 20 (20 s done). b (40 s) starts
  // at 20: both run at half speed; b's 40 s take 80 s, so b ends at 100, when a has done 20 + 40
  // and has 40 left, which it runs alone at full speed: a ends at 140.
  SimOptions options = testing::small_cluster(1, 2);
  std::vector<JobSpec> jobs = {job("a", 0, 1, 100), job("b", 20, 1, 40)};
  Simulation simulation(options, jobs);
  auto model = std::make_unique<NeighboursHalveTheRate>();
  const NeighboursHalveTheRate* watched = model.get();
  simulation.add_rate_model(std::move(model));
  const RunResult result = simulation.run();
  ASSERT_EQ(result.jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 140.0);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 100.0);
  EXPECT_GT(watched->asked(), 0);

  // On two nodes of one GPU each, nobody shares a node: the model never slows anyone.
  Simulation apart(testing::small_cluster(2, 1), jobs);
  apart.add_rate_model(std::make_unique<NeighboursHalveTheRate>());
  const RunResult alone = apart.run();
  EXPECT_DOUBLE_EQ(alone.jobs[0].finish_time, 100.0);
  EXPECT_DOUBLE_EQ(alone.jobs[1].finish_time, 60.0);
}

// A factor of 1 changes nothing, bit for bit, even where it names jobs to re-rate at every
// change of holdings (the engine then finds their rates unchanged and leaves their completions).
class AlwaysOne final : public RateModel {
 public:
  std::string_view name() const override { return "always_one"; }
  void attach(const View& view) override { view_ = &view; }
  double factor(std::uint32_t) override { return 1.0; }
  void on_grant_changed(const Grant& grant) override { nodes_.push_back(grant.node); }
  void take_affected(std::vector<std::uint32_t>& out) override {
    for (std::uint32_t node : nodes_)
      for (std::uint32_t holder : view_->holders_on(node)) out.push_back(holder);
    nodes_.clear();
  }

 private:
  const View* view_ = nullptr;
  std::vector<std::uint32_t> nodes_;
};

TEST(RateModel, AFactorOfOneChangesNoResult) {
  SimOptions options = testing::small_cluster(8, 4, 2);
  options.scheduler.policy = "tiresias";
  const std::vector<JobSpec> jobs =
      testing::random_jobs(400, 20.0, 600.0, {1, 1, 2, 4, 8}, 7, {"a", "b"});
  const RunResult without = Simulation(options, jobs).run();
  Simulation with(options, jobs);
  with.add_rate_model(std::make_unique<AlwaysOne>());
  const RunResult result = with.run();
  ASSERT_EQ(result.jobs.size(), without.jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(result.jobs[i].finish_time, without.jobs[i].finish_time) << jobs[i].id;
    EXPECT_EQ(result.jobs[i].gpu_seconds, without.jobs[i].gpu_seconds) << jobs[i].id;
  }
  EXPECT_EQ(result.metrics.events, without.metrics.events);
  EXPECT_EQ(result.metrics.preemptions, without.metrics.preemptions);
}

// Registered from this file alone with a descriptor (component.h): runs whose options want it
// get it, as the built-in sharing interference joins the runs that turn [sharing] on.
bool neighbours_wanted = false;
const ComponentRegistrar registered_neighbours([] {
  ComponentDescriptor d = describe(ComponentKind::kRateModel, "test_neighbours_halve_the_rate",
                                   "jobs on one node halve each other's rate", {});
  d.factory.wanted = [](const SimOptions&, const MechanismContext&) { return neighbours_wanted; };
  d.factory.rate_model = [](const SimOptions&) -> std::unique_ptr<RateModel> {
    return std::make_unique<NeighboursHalveTheRate>();
  };
  return d;
}());

TEST(RateModel, ARegisteredModelJoinsTheRunsThatWantIt) {
  ASSERT_NE(find_component(ComponentKind::kRateModel, "test_neighbours_halve_the_rate"), nullptr);
  // The case of the first test, the model now built from its descriptor.
  const std::vector<JobSpec> jobs = {job("a", 0, 1, 100), job("b", 20, 1, 40)};
  neighbours_wanted = true;
  const RunResult slowed = Simulation(testing::small_cluster(1, 2), jobs).run();
  neighbours_wanted = false;
  EXPECT_DOUBLE_EQ(slowed.jobs[0].finish_time, 140.0);
  EXPECT_DOUBLE_EQ(slowed.jobs[1].finish_time, 100.0);
  const RunResult plain = Simulation(testing::small_cluster(1, 2), jobs).run();  // not wanted
  EXPECT_DOUBLE_EQ(plain.jobs[0].finish_time, 100.0);
  EXPECT_DOUBLE_EQ(plain.jobs[1].finish_time, 60.0);
}

TEST(RateModel, AddedOnlyBeforeTheRunStarts) {
  Simulation simulation(testing::small_cluster(1, 1), {job("a", 0, 1, 10)});
  EXPECT_THROW(simulation.add_rate_model(nullptr), std::invalid_argument);
  simulation.step();
  EXPECT_THROW(simulation.add_rate_model(std::make_unique<AlwaysOne>()), std::logic_error);
}

}  // namespace
}  // namespace clustersim
