// A fleet (clustersim/fleet.h; sim/README.md, "Fleet"): one Simulation of all the clusters' nodes
// with the router binding each job as it arrives (FleetSimulation), or, for the fleets it cannot
// hold, jobs routed on an estimate and each cluster's share run as today's cluster.
#include "clustersim/fleet.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <unordered_set>

#include "clustersim/cluster_state.h"
#include "clustersim/component.h"
#include "clustersim/simulation.h"
#include "core/arrival_binder.h"
#include "metrics/power_meter.h"
#include "metrics/summary_stats.h"
#include "simulation/fleet_rebalancer.h"

namespace clustersim {

int fleet_gpus_of_type(const FleetClusterLoad& load, std::string_view type) {
  if (type.empty()) return load.gpus;
  for (const auto& [name, gpus] : load.gpus_by_type)
    if (name == type) return gpus;
  return 0;
}

std::unique_ptr<FleetRouter> make_fleet_router(std::string_view name) {
  if (const ComponentDescriptor* d = find_component(ComponentKind::kRouter, name))
    return d->factory.router();
  std::string known;
  for (const std::string& router : fleet_router_names())
    known += (known.empty() ? "" : ", ") + router;
  throw std::invalid_argument("fleet.router: unknown router '" + std::string(name) +
                              "' (known: " + known + ")");
}

std::vector<std::string> fleet_router_names() { return component_names(ComponentKind::kRouter); }

namespace {

std::size_t fleet_region_index(const FleetSpec& spec, std::string_view name) {
  for (std::size_t r = 0; r < spec.regions.size(); ++r)
    if (spec.regions[r].name == name) return r;
  return spec.regions.size();
}

// A cluster's load as the first slice estimates it (FleetClusterLoad): a fluid queue drained at
// the cluster's GPU count, and the routed jobs' estimated finishes for the demand still there.
class FleetLoadEstimate {
 public:
  void advance(double now, FleetClusterLoad& load) {
    while (!finishes_.empty() && !(finishes_.top().first > now)) {
      load.demand_gpus -= finishes_.top().second;
      finishes_.pop();
    }
    load.backlog_gpu_seconds = std::max(0.0, drained_at_ - now) * load.gpus;
  }
  void add(const JobSpec& job, double now, FleetClusterLoad& load) {
    const double start = std::max(now, drained_at_);
    drained_at_ = start + job.num_gpus * job.duration / load.gpus;
    finishes_.emplace(start + job.duration, job.num_gpus);
    load.demand_gpus += job.num_gpus;
  }

 private:
  double drained_at_ = 0.0;
  using Finish = std::pair<double, int>;  // estimated finish, GPUs
  std::priority_queue<Finish, std::vector<Finish>, std::greater<>> finishes_;
};

std::vector<std::size_t> route_fleet_jobs(const FleetSpec& spec, std::span<const JobSpec> jobs,
                                          std::vector<FleetClusterLoad>& loads) {
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return jobs[a].submit_time < jobs[b].submit_time;
  });
  std::vector<FleetLoadEstimate> estimates(loads.size());
  std::unique_ptr<FleetRouter> router = make_fleet_router(spec.router);
  std::vector<std::size_t> cluster_of(jobs.size());
  for (std::size_t j : order) {
    const double now = jobs[j].submit_time;
    for (std::size_t c = 0; c < loads.size(); ++c) {
      estimates[c].advance(now, loads[c]);
      const FleetRegionSpec& region = spec.regions[loads[c].region];
      loads[c].carbon_g_per_kwh =
          region.carbon.empty()
              ? region.carbon_g_per_kwh
              : internal::series_at(region.carbon, region.carbon_start_h * 3600, now);
    }
    const std::size_t c = router->route(jobs[j], FleetLoad{now, loads, &spec});
    if (c >= loads.size())
      throw std::logic_error("fleet router '" + spec.router + "' chose no cluster for job '" +
                             jobs[j].id + "'");
    cluster_of[j] = c;
    estimates[c].add(jobs[j], now, loads[c]);
  }
  return cluster_of;
}

// The metrics fleet.h defines for a set of jobs on `gpus` GPUs: over every job that finished.
RunMetrics fleet_wide_metrics(int gpus, const std::vector<JobRecord>& records) {
  RunMetrics m;
  std::vector<double> jcts, queues;
  double first_submit = 0.0, last_finish = 0.0, gpu_seconds = 0.0;
  bool any = false;
  for (const JobRecord& r : records) {
    gpu_seconds += r.gpu_seconds;
    if (r.finish_time < 0) continue;
    jcts.push_back(r.jct);
    queues.push_back(r.queue_delay);
    first_submit = any ? std::min(first_submit, r.submit_time) : r.submit_time;
    last_finish = any ? std::max(last_finish, r.finish_time) : r.finish_time;
    any = true;
  }
  m.jobs = jcts.size();
  internal::summarize_jcts_and_queues(jcts, queues, m);
  m.makespan = last_finish - first_submit;
  if (m.makespan > 0) m.gpu_util = gpu_seconds / (gpus * m.makespan);
  return m;
}

// Whether the fleet runs as one Simulation (sim/README.md, "Fleet"). A job is kept on its
// cluster's nodes through its GPU type (a type of the cluster's partition), so it needs one type
// there: it names one, or every cluster has a single type. VCs are fleet-wide in one run (a
// cluster's own VC quotas would need cluster-qualified VC names: not yet), and racks are
// numbered with one nodes_per_rack. Other fleets run cluster by cluster on the estimate.
bool fleet_fits_one_loop(const FleetSpec& spec, std::span<const JobSpec> jobs) {
  const ClusterSpec& first = spec.clusters.front().cluster;
  bool single_types = true;
  for (const FleetClusterSpec& cluster : spec.clusters) {
    if (!cluster.cluster.vcs.empty() || cluster.cluster.nodes_per_rack != first.nodes_per_rack)
      return false;
    for (const NodeGroupSpec& group : cluster.cluster.groups)
      single_types = single_types && group.gpu_type == cluster.cluster.groups.front().gpu_type;
  }
  return single_types || std::all_of(jobs.begin(), jobs.end(),
                                     [](const JobSpec& job) { return !job.gpu_type.empty(); });
}

// The clusters' loads as the router first sees them: names, regions, GPUs by type, nothing routed.
std::vector<FleetClusterLoad> initial_cluster_loads(const FleetSpec& spec) {
  std::vector<FleetClusterLoad> loads(spec.clusters.size());
  for (std::size_t c = 0; c < spec.clusters.size(); ++c) {
    const FleetClusterSpec& cluster = spec.clusters[c];
    FleetClusterLoad& load = loads[c];
    load.name = cluster.name;
    load.region = fleet_region_index(spec, cluster.region);
    load.gpus = cluster.cluster.total_gpus();
    for (const NodeGroupSpec& group : cluster.cluster.groups) {
      auto at = std::find_if(load.gpus_by_type.begin(), load.gpus_by_type.end(),
                             [&](const auto& type) { return type.first == group.gpu_type; });
      if (at == load.gpus_by_type.end()) at = load.gpus_by_type.insert(at, {group.gpu_type, 0});
      at->second += group.nodes * group.gpus_per_node;
    }
  }
  return loads;
}

// The one run's options: the clusters' node groups one after another, each cluster a partition
// (its own GPU types and racks).
SimOptions one_loop_options(const FleetSpec& spec, const SimOptions& options,
                            std::span<const JobSpec> jobs,
                            const std::vector<FleetClusterLoad>& loads) {
  SimOptions fleet_options = options;
  ClusterSpec& nodes = fleet_options.cluster;
  nodes = ClusterSpec{};
  nodes.nodes_per_rack = spec.clusters.front().cluster.nodes_per_rack;
  for (std::size_t c = 0; c < spec.clusters.size(); ++c)
    for (NodeGroupSpec group : spec.clusters[c].cluster.groups) {
      group.partition = static_cast<int>(c);
      nodes.groups.push_back(std::move(group));
    }
  // A job no cluster can hold is the router's error (std::invalid_argument naming it), as it is
  // cluster by cluster, not the one run's load-time rejection of a job its nodes cannot hold.
  for (const JobSpec& job : jobs)
    if (std::none_of(loads.begin(), loads.end(), [&](const FleetClusterLoad& load) {
          return fleet_gpus_of_type(load, job.gpu_type) >= job.num_gpus;
        }))
      throw std::invalid_argument("job '" + job.id + "' (" + std::to_string(job.num_gpus) +
                                  " GPUs" + (job.gpu_type.empty() ? "" : " of " + job.gpu_type) +
                                  "): no cluster of the fleet has them");
  return fleet_options;
}

// What every fleet run checks before it starts.
void check_fleet_run(const FleetSpec& spec, const SimOptions& options) {
  validate_fleet(spec);
  if (options.window)
    throw std::invalid_argument(
        "fleet: a measurement window is not supported yet (the fleet measures every job)");
}

// The fleet's job columns (`cluster`, `migrations_wan`) and named metrics (fleet.h), once the
// records and the clusters' results are in.
void add_fleet_columns_and_metrics(
    const FleetSpec& spec, std::size_t jobs, FleetResult& result,
    std::vector<std::pair<std::string, double>> rebalance_metrics = {}) {
  if (result.migrations_wan.empty()) result.migrations_wan.assign(jobs, 0);
  RunResult& fleet = result.fleet;
  RunResult::Column cluster{"cluster", {}}, migrations{"migrations_wan", {}};
  for (std::size_t c : result.job_cluster) cluster.values.push_back(static_cast<double>(c));
  for (std::uint32_t moves : result.migrations_wan)
    migrations.values.push_back(static_cast<double>(moves));
  fleet.job_columns.push_back(std::move(cluster));
  fleet.job_columns.push_back(std::move(migrations));

  const RunMetrics& all = fleet.metrics;
  result.metrics = {{"jobs", static_cast<double>(all.jobs)},
                    {"jct_mean", all.jct_mean},
                    {"queueing_delay_mean", all.queue_mean},
                    {"gpu_util", all.gpu_util}};
  for (std::size_t c = 0; c < spec.clusters.size(); ++c) {
    const RunMetrics& m = result.clusters[c].metrics;
    const std::string& name = spec.clusters[c].name;
    result.metrics.emplace_back(name + ".jobs", static_cast<double>(m.jobs));
    result.metrics.emplace_back(name + ".jct_mean", m.jct_mean);
    result.metrics.emplace_back(name + ".queueing_delay_mean", m.queue_mean);
    result.metrics.emplace_back(name + ".gpu_util", m.gpu_util);
    result.metrics.emplace_back(name + ".routed", static_cast<double>(result.routed[c]));
  }
  for (auto& metric : rebalance_metrics) result.metrics.push_back(std::move(metric));
}

// The first slice's way (fleet_fits_one_loop() false, or one cluster): jobs routed on the
// estimate (FleetClusterLoad), then each cluster's share run as today's cluster.
void run_fleet_cluster_by_cluster(const FleetSpec& spec, const SimOptions& options,
                                  std::span<const JobSpec> jobs,
                                  std::vector<FleetClusterLoad>& loads, FleetResult& result) {
  result.job_cluster = route_fleet_jobs(spec, jobs, loads);

  // Each cluster's share, in workload order, run as today's cluster.
  std::vector<std::vector<std::size_t>> members(spec.clusters.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) members[result.job_cluster[j]].push_back(j);
  for (std::size_t c = 0; c < spec.clusters.size(); ++c) {
    SimOptions cluster_options = options;
    cluster_options.cluster = spec.clusters[c].cluster;
    std::vector<JobSpec> share;
    share.reserve(members[c].size());
    for (std::size_t j : members[c]) share.push_back(jobs[j]);
    result.routed.push_back(share.size());
    result.clusters.push_back(simulate(cluster_options, share));
  }

  // Fleet-wide: the records back in workload order, the clusters' per-job columns with them.
  RunResult& fleet = result.fleet;
  if (spec.clusters.size() == 1) {
    fleet = result.clusters[0];  // one cluster: its run, exactly
  } else {
    fleet.jobs.resize(jobs.size());
    for (std::size_t c = 0; c < spec.clusters.size(); ++c) {
      const RunResult& run = result.clusters[c];
      for (std::size_t k = 0; k < members[c].size(); ++k) {
        fleet.jobs[members[c][k]] = run.jobs[k];
        fleet.jobs[members[c][k]].index = static_cast<std::uint32_t>(members[c][k]);
      }
      for (const RunResult::Column& column : run.job_columns) {
        auto at = std::find_if(fleet.job_columns.begin(), fleet.job_columns.end(),
                               [&](const auto& have) { return have.name == column.name; });
        if (at == fleet.job_columns.end()) {
          fleet.job_columns.push_back({column.name, std::vector<double>(jobs.size(), 0.0)});
          at = fleet.job_columns.end() - 1;
        }
        for (std::size_t k = 0; k < members[c].size(); ++k)
          at->values[members[c][k]] = column.values[k];
      }
    }
    int gpus = 0;
    for (const FleetClusterSpec& cluster : spec.clusters) gpus += cluster.cluster.total_gpus();
    fleet.metrics = fleet_wide_metrics(gpus, fleet.jobs);
    // A fleet run cluster by cluster measures every job: the measured population's bounds, span
    // and totals are the clusters' runs' (the sweep's and the report's readers of /jobs keep the
    // rows within [window_first, window_last]; the one run's metrics have them already).
    RunMetrics& m = fleet.metrics;
    m.window_first = 0;
    m.window_last = jobs.empty() ? 0 : jobs.size() - 1;
    bool first = true;
    for (const RunResult& cluster : result.clusters) {
      const RunMetrics& c = cluster.metrics;
      m.window_jobs += c.window_jobs;
      m.gpu_seconds += c.gpu_seconds;
      m.events += c.events;
      if (cluster.jobs.empty()) continue;
      m.measure_start = first ? c.measure_start : std::min(m.measure_start, c.measure_start);
      m.measure_end = first ? c.measure_end : std::max(m.measure_end, c.measure_end);
      first = false;
    }
  }
}

}  // namespace

namespace internal {

// Not in the anonymous namespace: FleetSimulation::Parts holds one.
// The router at each arrival of the one run, on the clusters' live load: per cluster, the GPUs
// of the jobs routed there and not finished (waiting + running) and their GPU-seconds of work.
// With the rebalancer on, a job it moves counts in its new cluster's load from the move on.
class FleetArrivals final : public ArrivalBinder {
 public:
  FleetArrivals(const FleetSpec& spec, const SimOptions& options,
                std::vector<FleetClusterLoad>& loads, const ClusterState& layout,
                std::span<const JobSpec> jobs)
      : spec_(spec),
        loads_(loads),
        layout_(layout),
        router_(make_fleet_router(spec.router)),
        unfinished_(loads.size(), 0),
        job_cluster_(jobs.size(), 0),
        routed_(loads.size(), 0) {
    for (std::size_t c = 0; c < loads.size(); ++c) {
      const std::string& type = spec.clusters[c].cluster.groups.front().gpu_type;
      sole_type_.push_back(
          loads[c].gpus_by_type.size() == 1 ? layout.find_gpu_type(type, static_cast<int>(c)) : -1);
    }
    if (spec.rebalance.enabled)
      rebalancer_ = std::make_unique<internal::FleetRebalancer>(
          spec, options.mechanisms, jobs.size(),
          [this, jobs](std::uint32_t job, std::size_t from, std::size_t to) {
            const JobSpec& moved = jobs[job];
            --unfinished_[from];
            ++unfinished_[to];
            loads_[from].demand_gpus -= moved.num_gpus;
            loads_[to].demand_gpus += moved.num_gpus;
            loads_[from].backlog_gpu_seconds =
                unfinished_[from] == 0
                    ? 0.0
                    : loads_[from].backlog_gpu_seconds - moved.num_gpus * moved.duration;
            loads_[to].backlog_gpu_seconds += moved.num_gpus * moved.duration;
            job_cluster_[job] = to;
          });
  }

  void attach(internal::WaitingJobs& jobs) override {
    if (rebalancer_) rebalancer_->set_waiting_jobs(jobs);
  }
  internal::DecisionMechanism* decision_mechanism() override { return rebalancer_.get(); }
  const internal::FleetRebalancer* rebalancer() const { return rebalancer_.get(); }

  void bind(JobState& job, double now) override {
    const JobSpec& spec = *job.spec;
    for (FleetClusterLoad& load : loads_) {
      const FleetRegionSpec& region = spec_.regions[load.region];
      load.carbon_g_per_kwh =
          region.carbon.empty()
              ? region.carbon_g_per_kwh
              : internal::series_at(region.carbon, region.carbon_start_h * 3600, now);
    }
    const std::size_t c = router_->route(spec, FleetLoad{now, loads_, &spec_});
    const int type = c >= loads_.size() ? -1
                     : spec.gpu_type.empty()
                         ? sole_type_[c]
                         : layout_.find_gpu_type(spec.gpu_type, static_cast<int>(c));
    if (type < 0)
      throw std::logic_error("fleet router '" + spec_.router + "' chose no cluster of job '" +
                             spec.id + "''s GPU type");
    job.gpu_type = type;
    job_cluster_[job.index] = c;
    ++routed_[c];
    ++unfinished_[c];
    loads_[c].demand_gpus += spec.num_gpus;
    loads_[c].backlog_gpu_seconds += spec.num_gpus * spec.duration;
  }

  void on_finished(const JobState& job) override {
    const std::size_t c = job_cluster_[job.index];
    FleetClusterLoad& load = loads_[c];
    load.demand_gpus -= job.spec->num_gpus;
    // An empty cluster's backlog is 0 exactly (not a rounding residue a tie would read).
    load.backlog_gpu_seconds =
        --unfinished_[c] == 0 ? 0.0
                              : load.backlog_gpu_seconds - job.spec->num_gpus * job.spec->duration;
  }

  const std::vector<std::size_t>& job_cluster() const { return job_cluster_; }
  const std::vector<std::size_t>& routed() const { return routed_; }

 private:
  const FleetSpec& spec_;
  std::vector<FleetClusterLoad>& loads_;
  const ClusterState& layout_;
  std::unique_ptr<FleetRouter> router_;
  std::vector<int> sole_type_;  // by cluster: its one GPU type's id in the run, -1 if several
  std::vector<std::size_t> unfinished_;
  std::vector<std::size_t> job_cluster_;
  std::vector<std::size_t> routed_;
  std::unique_ptr<internal::FleetRebalancer> rebalancer_;  // null: off
};

}  // namespace internal

void validate_fleet(const FleetSpec& spec) {
  const auto fail = [](const std::string& message) { throw std::invalid_argument(message); };
  if (spec.clusters.empty()) fail("fleet.clusters: a fleet needs at least one cluster");
  std::unordered_set<std::string> names;
  for (const FleetRegionSpec& region : spec.regions) {
    if (region.name.empty()) fail("fleet.regions: a region needs a name");
    if (!names.insert(region.name).second) fail("fleet.regions: '" + region.name + "' twice");
    if (region.carbon_g_per_kwh < 0)
      fail("fleet.regions." + region.name + ".carbon_g_per_kwh: must be >= 0");
  }
  names.clear();
  for (const FleetClusterSpec& cluster : spec.clusters) {
    if (cluster.name.empty()) fail("fleet.clusters: a cluster needs a name");
    if (!names.insert(cluster.name).second) fail("fleet.clusters: '" + cluster.name + "' twice");
    if (fleet_region_index(spec, cluster.region) == spec.regions.size())
      fail("fleet.clusters." + cluster.name + ".region: unknown region '" + cluster.region + "'");
    if (cluster.cluster.total_gpus() <= 0)
      fail("fleet.clusters." + cluster.name + ": a cluster needs GPUs");
  }
  for (const WanLinkSpec& link : spec.links) {
    const std::string what = "fleet.links." + link.from + "-" + link.to;
    if (fleet_region_index(spec, link.from) == spec.regions.size() ||
        fleet_region_index(spec, link.to) == spec.regions.size() || link.from == link.to)
      fail(what + ": a link joins two known regions");
    if (!(link.bandwidth_gbps > 0)) fail(what + ".bandwidth_gbps: must be > 0");
    if (!(link.latency_ms >= 0)) fail(what + ".latency_ms: must be >= 0");
  }
  const FleetRebalanceSpec& rebalance = spec.rebalance;
  if (!(rebalance.threshold >= 0) || !std::isfinite(rebalance.threshold))
    fail("fleet.rebalance.threshold: must be >= 0");
  if (!(rebalance.interval_s > 0) || !std::isfinite(rebalance.interval_s))
    fail("fleet.rebalance.interval_s: must be > 0");
  if (!(rebalance.input_gb >= 0) || !std::isfinite(rebalance.input_gb))
    fail("fleet.rebalance.input_gb: must be >= 0");
  make_fleet_router(spec.router);  // names the known ones when unknown
}

// The fleet as one Simulation: the clusters' node groups one after another, each cluster a
// partition, each job bound to a cluster as it arrives. Members in construction order: the
// loads name the spec's clusters, the arrivals read the layout.
struct FleetSimulation::Parts {
  Parts(const FleetSpec& fleet, const SimOptions& options, std::span<const JobSpec> jobs)
      : spec(fleet),
        loads(initial_cluster_loads(spec)),
        nodes(one_loop_options(spec, options, jobs, loads)),
        layout(nodes.cluster),  // the engine's type ids: built from the same groups
        arrivals(spec, options, loads, layout, jobs),
        simulation(nodes, jobs) {
    simulation.bind_arrivals(&arrivals);
  }
  const FleetSpec& spec;
  std::vector<FleetClusterLoad> loads;
  SimOptions nodes;
  ClusterState layout;
  internal::FleetArrivals arrivals;
  Simulation simulation;
};

FleetSimulation::FleetSimulation(const FleetSpec& spec, const SimOptions& options,
                                 std::span<const JobSpec> jobs) {
  check_fleet_run(spec, options);
  if (spec.clusters.size() == 1)
    throw std::invalid_argument(
        "fleet: a fleet of one cluster is that cluster's run: step the cluster's own config");
  if (!fleet_fits_one_loop(spec, jobs))
    throw std::invalid_argument(
        "fleet: this fleet runs cluster by cluster, not as one simulation to step (a cluster "
        "with VC quotas, clusters with different nodes_per_rack, or a job of no GPU type bound "
        "for a cluster of several types)");
  parts_ = std::make_unique<Parts>(spec, options, jobs);
}

FleetSimulation::~FleetSimulation() = default;

Simulation& FleetSimulation::simulation() { return parts_->simulation; }

const FleetSpec& FleetSimulation::spec() const { return parts_->spec; }

int FleetSimulation::job_cluster(std::size_t job) const {
  const JobPhase phase = parts_->simulation.view().jobs()[job].phase;
  if (phase == JobPhase::kPending || phase == JobPhase::kRejected) return -1;
  return static_cast<int>(parts_->arrivals.job_cluster()[job]);
}

FleetResult FleetSimulation::finish(RunResult run) const {
  const FleetSpec& spec = parts_->spec;
  FleetResult result;
  result.fleet = std::move(run);
  result.job_cluster = parts_->arrivals.job_cluster();
  result.routed = parts_->arrivals.routed();
  std::vector<std::pair<std::string, double>> rebalance_metrics;
  if (const internal::FleetRebalancer* rebalancer = parts_->arrivals.rebalancer()) {
    result.migrations_wan.assign(rebalancer->moves_by_job().begin(),
                                 rebalancer->moves_by_job().end());
    rebalancer->add_metrics(rebalance_metrics);
  }

  // Each cluster's jobs (in workload order, indexed within the cluster) and what fleet.h defines
  // for them.
  result.clusters.resize(spec.clusters.size());
  std::vector<std::size_t> members(spec.clusters.size(), 0);
  for (std::size_t c : result.job_cluster) ++members[c];
  for (std::size_t c = 0; c < spec.clusters.size(); ++c)
    result.clusters[c].jobs.reserve(members[c]);
  for (std::size_t j = 0; j < result.job_cluster.size(); ++j) {
    std::vector<JobRecord>& records = result.clusters[result.job_cluster[j]].jobs;
    records.push_back(result.fleet.jobs[j]);
    records.back().index = static_cast<std::uint32_t>(records.size() - 1);
  }
  for (std::size_t c = 0; c < spec.clusters.size(); ++c)
    result.clusters[c].metrics =
        fleet_wide_metrics(spec.clusters[c].cluster.total_gpus(), result.clusters[c].jobs);
  add_fleet_columns_and_metrics(spec, result.job_cluster.size(), result,
                                std::move(rebalance_metrics));
  return result;
}

FleetResult simulate_fleet(const FleetSpec& spec, const SimOptions& options,
                           std::span<const JobSpec> jobs) {
  check_fleet_run(spec, options);
  const bool one_loop = spec.clusters.size() > 1 && fleet_fits_one_loop(spec, jobs);
  if (spec.rebalance.enabled && spec.clusters.size() > 1 && !one_loop)
    throw std::invalid_argument(
        "fleet.rebalance: not with a fleet run cluster by cluster yet (a cluster with VC quotas, "
        "clusters with different nodes_per_rack, or untyped jobs on a cluster of several "
        "types): its clusters do not share one run for jobs to move between");
  if (one_loop) {
    FleetSimulation fleet(spec, options, jobs);
    return fleet.finish(fleet.simulation().run());
  }
  std::vector<FleetClusterLoad> loads = initial_cluster_loads(spec);
  FleetResult result;
  run_fleet_cluster_by_cluster(spec, options, jobs, loads, result);
  add_fleet_columns_and_metrics(spec, jobs.size(), result);
  return result;
}

}  // namespace clustersim
