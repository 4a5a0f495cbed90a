// `clustersim run` configuration: a TOML file with [cluster], [workload], [scheduler] (and
// optional [throughput], [metrics]) tables. This is a contract: keys are added, never renamed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/generator.h"
#include "clustersim/profile.h"
#include "clustersim/serving_catalog.h"
#include "clustersim/simulator.h"
#include "clustersim/steady_state.h"
#include "clustersim/throughput_table.h"
#include "clustersim/workload.h"

namespace toml {
inline namespace v3 {
class table;
}
}  // namespace toml

namespace clustersim {

// [metrics] steady_state: "auto" measures a generated training workload in steady state (a
// planned window, a drain limit and a verdict: steady_state.h); "off" measures every job, as
// before the rule (or a window set by hand, as before).
enum class SteadyStateMode : std::uint8_t { kOff, kAuto };

// [workload] departures: "trace" replays the pods' durations in time (the event-driven
// engine); "none" runs the placement study (placement_study.h): no time, no departures.
enum class Departures : std::uint8_t { kTrace, kNone };
// [workload] on_unplaceable: a job that does not fit now waits (the event-driven engine), or is
// dropped and counted (the placement study).
enum class OnUnplaceable : std::uint8_t { kWait, kDrop };
enum class ArrivalOrder : std::uint8_t { kTrace, kShuffle };

struct NodeList;
class SideFileCache;  // side_file_cache.h
struct FleetConfig;   // fleet_config.h

struct WorkloadSource {
  // Exactly one of a trace file or a generator.
  std::optional<std::string> trace_path;  // resolved against the config file's folder
  TraceFormat format = TraceFormat::kCsv;
  ReaderOptions reader;
  std::optional<GeneratorOptions> generator;
  // DAG workloads (format "dag", generator "query_dag"): the serving catalog their models come
  // from ([workload] catalog, else the built-in profiles/serving/models.json). Null otherwise.
  std::shared_ptr<const ServingCatalog> serving_catalog;
  // Steady-state measurement window (workload.window): job positions, 0-based, inclusive.
  std::optional<SimOptions::Window> window;
  std::size_t window_line = 0;  // its line in the config, for messages
  bool jobs_set = false;        // [workload] jobs was given
  // Steady-state measurement ([metrics] steady_state, precision, warmup_s, drain_limit) and, when
  // it applies (a generated training workload, "auto"), its plan: the window above comes from
  // it unless set by hand.
  SteadyStateMode steady_state = SteadyStateMode::kAuto;
  SteadyStateOptions steady;
  std::optional<SteadyStatePlan> steady_plan;
  // Arrival times x this (1: as the trace or generator has them).
  double time_scale = 1.0;
  // > 0: the time scale that makes the workload's offered load this (GPU-seconds asked / (cluster
  // GPUs x arrival span)); not with time_scale.
  double target_load = 0.0;
  // The placement study ([workload] departures = "none"; placement_study.h).
  Departures departures = Departures::kTrace;
  OnUnplaceable on_unplaceable = OnUnplaceable::kWait;
  ArrivalOrder arrival_order = ArrivalOrder::kTrace;
  double inflate_to = 0.0;  // > 0: clone pods until arrived GPU demand is this x capacity
  bool placement_study() const { return departures == Departures::kNone; }
};

struct RunConfig {
  std::string source_name;  // config file name, for messages
  SimOptions sim;
  WorkloadSource workload;
  // With [throughput] model = "profile": the profiles and the model that sim.throughput points
  // to (shared, so copies of the config stay valid).
  std::shared_ptr<const ProfileLibrary> profiles;
  ProfileModelOptions profile_options;
  // With [throughput] model = "table": the table (the model above reads it) and its options.
  std::shared_ptr<const ThroughputTable> throughput_table;
  TableModelOptions table_options;
  std::shared_ptr<const ThroughputModel> throughput_model;
  // [cluster] node_list: the nodes as listed (openb format); the cluster's node groups come from
  // it, and the placement study places on it. Null otherwise.
  std::shared_ptr<const NodeList> node_list;
  // [serving] config: a mixed run's serving config (a DAG workload on the same node groups),
  // parsed; its queries run beside this training workload (serving.h, make_mixed_serving). Null
  // otherwise.
  std::shared_ptr<const RunConfig> serving;
  // [fleet]: the config runs as a fleet of clusters (fleet_config.h; simulate_fleet), `sim`'s
  // cluster then being every cluster's nodes together. Null otherwise (one cluster, as ever).
  std::shared_ptr<const FleetConfig> fleet;
};

// Parses config text. `base_dir` resolves relative paths. `overrides` are "section.key=value"
// strings (value in TOML syntax; a bare word is taken as a string) applied before validation.
// Unknown tables or keys, wrong types and out-of-range values throw InputError naming the key.
RunConfig parse_run_config(std::string_view toml_text, const std::string& source_name,
                           const std::string& base_dir,
                           const std::vector<std::string>& overrides = {});
RunConfig parse_run_config(const toml::table& table, const std::string& source_name,
                           const std::string& base_dir);
// The same, its side files (profiles, throughput table, failure trace, serving catalog, pair
// table) taken from `side_files` (side_file_cache.h): a sweep's points share one parse of each.
RunConfig parse_run_config(const toml::table& table, const std::string& source_name,
                           const std::string& base_dir, SideFileCache* side_files);
RunConfig load_run_config(const std::string& path, const std::vector<std::string>& overrides = {});

// Applies one "section.key=value" override to a table (creating the key if absent).
void apply_override(toml::table& table, const std::string& assignment,
                    const std::string& source_name);

// The built-in example run (`clustersim run` with no config file).
std::string_view default_config_text();

// Reads the trace or runs the generator the config names; with profiles (and on_missing =
// "error"), a job whose model has no profile is an InputError naming its line.
Workload load_workload(const RunConfig& config);

// A DAG workload's resolved serving inputs (make_serving_setup with the config's cluster and
// catalog; errors name the trace's line, or the config for a generated workload).
ServingSetup serving_setup(const RunConfig& config, const Workload& workload);

// A run's seed: the generated workload's, and (a separate stream) the placement and policy
// randomness's. Sweeps and Simulation::reset seed runs with it.
void apply_seed(RunConfig& config, std::uint64_t seed);

// Simulates `config` on `workload` (as load_workload made it): the placement study
// (placement_study.h) for departures = "none", else a Simulation (simulation.h) run to its end.
// A DAG workload's queries run on the Simulation's clock and ledger as its serving side, on
// every GPU, with simulate_serving's result (make_dag_serving, serving.h); a mixed config
// ([serving] config) runs its queries beside the training workload (make_mixed_serving), the
// serving metrics joining the training ones. With a
// window on a generated workload, arrivals continue until the window has drained: while the
// window outlives the arrivals, the workload grows to twice the jobs (generators are
// prefix-stable, so the jobs so far are unchanged) and the run goes on. The result is thus the
// same as on an endless stream of arrivals, up to 8x the jobs the window reaches; an overloaded
// cluster that needs more says so (RunMetrics::window_overloaded).
struct ConfigRun {
  std::shared_ptr<const Workload> workload;  // what was simulated
  RunResult result;
  // A fleet config's metrics beyond RunMetrics: per cluster `<cluster>.<metric>`
  // (FleetResult::metrics without the fleet-wide ones, which `result` holds). Empty otherwise.
  std::vector<std::pair<std::string, double>> cluster_metrics;
};
ConfigRun simulate_config(const RunConfig& config, std::shared_ptr<const Workload> workload);
// What a trace read by load_workload depends on (format, path, reader options, time scale):
// front ends that read a trace once for many runs key their cache on it.
std::string trace_read_key(const RunConfig& config);
// Adds a workload's dropped and changed rows to a run's trace_rows_dropped / _changed.
void count_row_changes(const Workload& workload, RunMetrics& metrics);

// A setting of a config that cannot act in its runs (it would change nothing): the key and why,
// e.g. {"mechanisms.migration", "\"on_demand\" cannot act: with scheduler.locality = ..."}.
struct ConfigWarning {
  std::string key;
  std::string message;
};
std::vector<ConfigWarning> config_warnings(const RunConfig& config);

// Settings that would make a run effectively endless (a sampling interval, lease or checkpoint
// interval of a microsecond on a month-long workload) are refused before it runs: an InputError
// naming the key and the estimated number of events, when one setting alone would add more than
// this many. The workload's span comes from `workload` when given (read or generated), else from
// the generator's plan.
inline constexpr double kMaxEstimatedEvents = 1e9;
double estimated_span_s(const RunConfig& config, const Workload* workload);
void check_event_budget(const RunConfig& config, const Workload* workload);

// Whether a config's runs depend on their seed: a generated workload, random placement, generated
// failures or drawn (empirical) costs. Without any, seeds over its trace are identical runs.
bool has_randomness(const RunConfig& config);

// The InputError front ends report for a job the simulator can never run: "TRACE:LINE: field
// 'num_gpus': ..." for a trace, the config file (line 0) for a generated workload.
InputError impossible_job_error(const RunConfig& config, const ImpossibleJobError& error);

}  // namespace clustersim
