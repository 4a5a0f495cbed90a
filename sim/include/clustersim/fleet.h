// A global fleet: several clusters in several regions, and a router that sends each arriving job
// to one of them (sim/README.md, "Fleet"; issue 44). Each cluster is a full cluster of today
// (ClusterSpec: nodes, GPU types, VCs) with its own decider; the router is a component
// (component.h: ComponentKind::kRouter) chosen by name.
//
// A fleet runs as one Simulation (sim/README.md, "Fleet"): the clusters' node groups one after
// another, each cluster a partition of the nodes (NodeGroupSpec::partition: its own GPU types and
// racks), one clock and one event queue for all; the router binds each job to a cluster as it
// arrives, on the clusters' live load (FleetClusterLoad). Strict order and each cluster's
// placement act per cluster, so the `home` router gives every cluster exactly its run alone. A
// fleet that one run cannot yet hold (a cluster with VC quotas, clusters with different
// nodes_per_rack, or a job of no GPU type bound for a cluster of several types) runs as the first
// slice did: routed on an estimate, then cluster by cluster. In the one run, a rebalancer
// (FleetRebalanceSpec) may move waiting jobs between clusters over the wide-area links.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clustersim/cluster.h"
#include "clustersim/job.h"
#include "clustersim/metrics.h"
#include "clustersim/power.h"
#include "clustersim/simulator.h"

namespace clustersim {

// A region: its clock and its grid.
struct FleetRegionSpec {
  std::string name;
  double utc_offset_h = 0.0;  // local time = UTC + this (what a region's day/night follows)
  // Grid carbon intensity, gCO2e/kWh: a series (power.h's StepSeries, e.g. read from an
  // Electricity Maps CSV as [supply] carbon_trace is) or, when empty, this constant.
  StepSeries carbon;
  double carbon_g_per_kwh = 0.0;
  // Hours into `carbon` (from its first row) at the fleet's time 0, as [supply] start_h.
  double carbon_start_h = 0.0;
};

// One cluster of the fleet: today's cluster config, named, in a region.
struct FleetClusterSpec {
  std::string name;
  std::string region;  // a FleetRegionSpec's name
  ClusterSpec cluster;
};

// A wide-area link between two regions (either direction). Moving a job's checkpoint over it
// takes bytes / (bandwidth shared equally by the transfers on it) + latency.
struct WanLinkSpec {
  std::string from, to;  // region names
  double bandwidth_gbps = 0.0;
  double latency_ms = 0.0;
};

// The rebalancer (sim/README.md, "Fleet", "Migration between clusters"): off by default. Every
// `interval_s` while jobs wait and some run, it moves waiting jobs (never started, or stopped
// and saved) from a cluster to another whose region a link joins to its own, while their
// waiting GPU demand per GPU differs by more than `threshold`: the fuller cluster's first
// waiting job in policy order that the other can hold, unless the move would open the reverse
// gap beyond `threshold` while the other has not the job's GPUs free (it would be moved back,
// not start there). Each job moves at most once per check. A moving
// job cannot start until its state has crossed the link: its bytes (its checkpoint, as the
// [mechanisms] size model has it: checkpoint_gb by model, else default_checkpoint_gb; a job with
// no saved state moves its input, `input_gb`) at the link's bandwidth shared equally by the
// transfers on it, then the latency; it then restores at its new cluster (a migration's
// overhead, OverheadKind::kMigration).
struct FleetRebalanceSpec {
  bool enabled = false;
  double threshold = 0.5;     // waiting GPUs per GPU, between two clusters
  double interval_s = 300.0;  // seconds between checks
  double input_gb = 0.0;      // what a job with no saved state moves
};

struct FleetSpec {
  std::vector<FleetRegionSpec> regions;
  std::vector<FleetClusterSpec> clusters;
  std::vector<WanLinkSpec> links;
  FleetRebalanceSpec rebalance;
  std::string router = "least_loaded";  // a ComponentKind::kRouter component's name
  // The `home` router: each job's home, by job id: a cluster's name or a region's (its first
  // cluster then). A job without one is an error naming it.
  std::unordered_map<std::string, std::string> homes;
};

// What a router sees of one cluster when a job arrives.
//
// In the one run (the usual case): the live load. `demand_gpus` is the GPUs of the jobs routed
// to the cluster and not finished (waiting + running), `backlog_gpu_seconds` their work as
// submitted (GPUs x duration; the progress of running jobs is not taken off).
//
// Cluster by cluster (the fleets the one run cannot hold, see above): an estimate. Each routed
// job is taken to start when the work routed to its cluster before it has drained at the
// cluster's full GPU count (a fluid queue: backlog GPU-seconds / GPUs after its arrival), and to
// run its duration from there; `demand_gpus` is the GPUs of the routed jobs not yet finished by
// that estimate, `backlog_gpu_seconds` the work they have left.
struct FleetClusterLoad {
  std::string_view name;
  std::size_t region = 0;  // index into FleetSpec::regions
  int gpus = 0;            // the cluster's GPUs
  // GPUs by type, in the cluster's node-group order (a type listed once, summed over groups).
  std::vector<std::pair<std::string, int>> gpus_by_type;
  int demand_gpus = 0;
  double backlog_gpu_seconds = 0.0;
  double carbon_g_per_kwh = 0.0;  // its region's intensity now
};

struct FleetLoad {
  double now = 0.0;
  std::span<const FleetClusterLoad> clusters;
  const FleetSpec* spec = nullptr;
};

// The GPUs of `type` in `load` (empty type: all of them).
int fleet_gpus_of_type(const FleetClusterLoad& load, std::string_view type);

// A global router: the cluster (index into FleetSpec::clusters) for an arriving job. Throws
// std::invalid_argument, naming the job, when no cluster can take it. Deterministic: ties go to
// the cluster listed first.
class FleetRouter {
 public:
  virtual ~FleetRouter() = default;
  virtual std::size_t route(const JobSpec& job, const FleetLoad& load) = 0;
};

// The router named `name` (a ComponentKind::kRouter component); std::invalid_argument listing
// the names for an unknown one.
std::unique_ptr<FleetRouter> make_fleet_router(std::string_view name);
std::vector<std::string> fleet_router_names();

// The results of a fleet run.
struct FleetResult {
  // Fleet-wide: every job's record in workload order (JobRecord::index is the workload's),
  // with job_columns `cluster` (index into FleetSpec::clusters, where it finished) and
  // `migrations_wan` (the rebalancer's moves of it); metrics: the RunMetrics fields recomputed over
  // the whole fleet where they are defined here (jobs, jct_*, queue_mean, makespan, gpu_util) and
  // the measured population (every job: window_first/last/jobs, measure_start/end, gpu_seconds,
  // events summed over the clusters' runs), the rest 0. In the one run, `fleet.metrics` are the
  // whole run's (every RunMetrics field over all the fleet's GPUs), and `fleet.job_columns` the
  // run's own columns, then these two.
  RunResult fleet;
  // Each cluster's jobs in workload order (JobRecord::index: within the cluster). In the one run
  // their metrics are those defined above, over the cluster's GPUs (the rest 0) and they have no
  // job_columns; cluster by cluster, each is that cluster's own run.
  std::vector<RunResult> clusters;
  std::vector<std::size_t> job_cluster;       // by workload job: where it finished
  std::vector<std::size_t> routed;            // jobs routed to each cluster
  std::vector<std::uint32_t> migrations_wan;  // by workload job: the rebalancer's moves of it
  // Named metrics: fleet-wide ones, then per cluster `<cluster>.jobs`, `.jct_mean`,
  // `.queueing_delay_mean`, `.gpu_util`, `.routed`. With the rebalancer on, then
  // `migrations_wan` (moves in all), per cluster `<cluster>.migrated_in`, `.migrated_out`, and
  // per link (in [[fleet.links]] order, both directions) `wan.<from>.<to>.migrated`,
  // `.bytes_gb` (what crossed it), `.transfer_s` (its transfers' seconds, start to arrival,
  // summed).
  std::vector<std::pair<std::string, double>> metrics;
};

// Checks `spec` (names unique and non-empty, regions known, links between known regions with
// bandwidth > 0 and latency >= 0, a known router, at least one cluster): std::invalid_argument
// naming the field.
void validate_fleet(const FleetSpec& spec);

class Simulation;

// A fleet as one Simulation to step (Python's clustersim.Simulation on a [fleet] config): the one
// event loop simulate_fleet runs, the router bound to it. `jobs` must outlive it. A fleet the one
// loop cannot hold (see the top of this file) or of one cluster (step that cluster's config) is
// std::invalid_argument saying why; so are simulate_fleet's errors.
class FleetSimulation {
 public:
  FleetSimulation(const FleetSpec& spec, const SimOptions& options, std::span<const JobSpec> jobs);
  ~FleetSimulation();
  FleetSimulation(const FleetSimulation&) = delete;
  FleetSimulation& operator=(const FleetSimulation&) = delete;

  Simulation& simulation();
  const FleetSpec& spec() const;
  // The cluster (index into spec().clusters) a job was routed to; -1 before it arrives.
  int job_cluster(std::size_t job) const;
  // What simulate_fleet gives for the finished run (simulation().run() or its last step()).
  FleetResult finish(RunResult run) const;

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

// Runs `jobs` on the fleet under `options`, with options.cluster replaced by the clusters' nodes
// (every cluster's decider, policy and mechanisms are `options`'), routing each job as it arrives
// (in submit order, ties in workload order). A one-cluster fleet gives that cluster's run
// exactly. Errors (std::invalid_argument) name the field or the job.
FleetResult simulate_fleet(const FleetSpec& spec, const SimOptions& options,
                           std::span<const JobSpec> jobs);

}  // namespace clustersim
