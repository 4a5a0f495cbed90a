// A simulation you can step: the public face of the open core (sim/README.md, "The open core").
//
//   Simulation sim(options, jobs);          // or Simulation(config) (config.h)
//   while (sim.step()) { ... sim.view() ... }   // the built-in decider decides at each point
//   RunResult result = sim.result();
//
// It owns its inputs (options, the workload), the engine, the decider and the mechanisms. At
// each decision point (an instant at which something happened) the decider decides; step()
// returns there, so a caller can watch every decision, or, with no decider
// (set_decider(nullptr)), make them itself: read the view and apply() plans. run() goes to the
// end. A user's decider (decider.h) replaces the built-in one; a user's mechanism (mechanism.h)
// joins the built-in ones, and so does a user's rate model (rate_model.h). simulate()
// (simulator.h) is Simulation(...).run().
//
// A generated workload with a measurement window streams in: when the window outlives the
// arrivals, the workload grows (generators are prefix-stable) and the run goes on, up to 8x the
// jobs the window reaches (window_overloaded says so beyond that).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/decider.h"
#include "clustersim/job.h"
#include "clustersim/mechanism.h"
#include "clustersim/metrics.h"
#include "clustersim/plan.h"
#include "clustersim/power.h"
#include "clustersim/rate_model.h"
#include "clustersim/simulator.h"
#include "clustersim/view.h"

namespace clustersim {

struct RunConfig;
class MixedServing;  // serving.h
namespace internal {
class ArrivalBinder;  // src/core/arrival_binder.h
}

class Simulation {
 public:
  // A workload that grows on demand: returns the first `jobs` jobs (a prefix-stable generator).
  using Grow = std::function<std::shared_ptr<const Workload>(std::size_t jobs)>;

  // Simulates `jobs` under `options` (both owned). Bad options throw std::invalid_argument; a job
  // that can never run throws ImpossibleJobError (unless options.reject_impossible), both when
  // the simulation is first stepped.
  Simulation(SimOptions options, std::vector<JobSpec> jobs);
  // The same without a copy: `jobs` must outlive the simulation.
  Simulation(SimOptions options, std::span<const JobSpec> jobs);
  // A shared workload; with `grow`, it streams in up to `grow_limit` jobs (windows, above).
  Simulation(SimOptions options, std::shared_ptr<const Workload> workload, Grow grow = nullptr,
             std::size_t grow_limit = 0);
  // A parsed config (config.h): its workload is read or generated now (InputError on bad
  // input); the config's throughput model is shared. A mixed config's serving side (its queries
  // read once) joins every run as a mechanism (serving.h, make_mixed_serving). A DAG config's
  // queries are the run's serving side on every GPU (make_dag_serving), with no training jobs:
  // jobs() is empty, workload() holds the queries' tasks, and the result is simulate_serving's
  // (one record per task), as `clustersim run` reports it. Defined with the config reader.
  explicit Simulation(const RunConfig& config);
  Simulation(const RunConfig& config, std::shared_ptr<const Workload> workload);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Before the first step (or after reset): a user's decider instead of the built-in one
  // (nullptr: none; the caller decides at each point through apply()), and more mechanisms. Each
  // is attached (again) when the simulation starts: it must start afresh in attach().
  void set_decider(std::unique_ptr<Decider> decider);
  void add_mechanism(std::unique_ptr<Mechanism> mechanism);
  // A factor of every job's rate (rate_model.h), after the built-in ones ([sharing]'s
  // interference), in the order added. Before the run starts (or after reset()).
  void add_rate_model(std::unique_ptr<RateModel> model);
  // A fleet's router (fleet.h; src/core/arrival_binder.h), before the run starts: each arriving
  // job is bound to one cluster's partition of the nodes. Not owned; null: none (today's run).
  void bind_arrivals(internal::ArrivalBinder* binder);

  // Back to the start. With a seed: the run's randomness (placement, drawn overheads, failures;
  // for a config with a generated workload, the workload too, as a sweep's seed does).
  void reset(std::optional<std::uint64_t> seed = std::nullopt);
  // Runs to the next decision point and lets the decider decide there. False when the run is
  // over (results are then final).
  bool step();
  // The state now (at the decision point step() stopped at, after its decision).
  const View& view();
  // The built-in placement services over the view (type choice, locality, placement): what
  // allocation mechanisms use to start a job (make_allocation_mechanism(...)->start(job,
  // sim.context(), plan)).
  AllocationContext& context();
  // With no decider: applies a plan at the current decision point (several may be applied, each
  // checked whole: PlanError if it cannot be applied, nothing changed).
  void apply(const Plan& plan);
  // The power supply now (power.h): nullopt unless [power] is on.
  std::optional<SupplyState> supply_state();
  // Runs to the end (a decider is needed) and returns the results.
  RunResult run();
  // The results, once the run is over (std::logic_error before).
  const RunResult& result();

  // What is simulated (it grows when arrivals stream in; the workload is null when the
  // simulation was given a span of jobs), and the options. jobs() are the training jobs the
  // engine runs (none for a DAG config: the workload's jobs are then its queries' tasks).
  std::span<const JobSpec> jobs() const { return jobs_; }
  const std::shared_ptr<const Workload>& workload() const { return workload_; }
  const SimOptions& options() const { return options_; }

 private:
  struct Parts;
  void start();
  void assemble(Parts& parts);
  bool extend();

  SimOptions options_;
  std::shared_ptr<const Workload> workload_;
  std::span<const JobSpec> jobs_;
  Grow grow_;
  std::size_t grow_limit_ = 0;
  std::shared_ptr<const void> keep_alive_;     // what options_ points into (a config's model)
  std::function<void(std::uint64_t)> reseed_;  // a config's seeding (workload and run)
  // After the run, on its results: a config's steady-state verdict (steady_state.h).
  std::function<void(RunResult&)> finish_;
  // A mixed or DAG config's serving side (serving.h): a mechanism made anew for every run.
  std::function<std::unique_ptr<MixedServing>()> make_serving_;
  void complete(RunResult& result) const;
  std::unique_ptr<Decider> user_decider_;
  bool external_ = false;  // no decider: the caller decides
  std::vector<std::unique_ptr<Mechanism>> user_mechanisms_;
  std::vector<std::unique_ptr<RateModel>> user_rate_models_;
  internal::ArrivalBinder* binder_ = nullptr;
  std::unique_ptr<Parts> parts_;
  bool in_point_ = false;
  bool over_ = false;
  std::optional<RunResult> result_;
  bool result_taken_ = false;
};

}  // namespace clustersim
