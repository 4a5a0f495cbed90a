// What a decider or a mechanism reads of a running simulation: the clock, every job's state, what
// runs where, what is free, and the throughput model's answers. Read-only: state changes only
// through plans (plan.h) handed to the simulation, which checks and applies them.
//
// Spans stay valid until the simulation next changes state (a plan applied, the next event).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "clustersim/cluster_state.h"
#include "clustersim/job_state.h"
#include "clustersim/mechanisms.h"
#include "clustersim/plan.h"
#include "clustersim/simulator.h"
#include "clustersim/throughput_model.h"

namespace clustersim {

// Resources per GPU: cores, GB, MB/s. A negative value means the node's proportional share.
struct PerGpu {
  double cpus = -1.0;
  double mem_gb = -1.0;
  double storage_mbps = -1.0;
};

class View {
 public:
  // The engine's tables a view reads (never writes). A view reads them directly: reading the
  // state costs no call.
  struct Tables {
    const Time* now = nullptr;
    const SimOptions* options = nullptr;
    const ClusterState* cluster = nullptr;
    const std::vector<JobState>* jobs = nullptr;
    const std::vector<std::uint32_t>* waiting = nullptr;
    const std::vector<std::uint32_t>* holders = nullptr;
    const std::vector<std::vector<std::uint32_t>>* node_holders = nullptr;
    const std::vector<Grant>* grants = nullptr;
    const std::vector<std::string>* vc_names = nullptr;
    const std::vector<double>* vc_usage = nullptr;
    const std::vector<std::uint32_t>* down_count = nullptr;  // outages in progress, by node
    const std::size_t* offline_nodes = nullptr;
    bool resizing = false;                             // [mechanisms] elastic
    const std::vector<double>* type_speeds = nullptr;  // by (job, GPU type); empty: untyped
  };

  virtual ~View() = default;
  const Tables& tables() const { return t_; }

  Time now() const { return *t_.now; }
  const SimOptions& sim_options() const { return *t_.options; }
  const SchedulerOptions& options() const { return t_.options->scheduler; }
  // The resource ledger: per node, what is free (cluster_state.h).
  const ClusterState& cluster() const { return *t_.cluster; }

  // Every job of the workload, in workload order (index = position); phases say which wait,
  // run, or have not arrived yet (job_state.h).
  std::span<const JobState> jobs() const { return *t_.jobs; }
  // Jobs waiting now, and jobs holding resources now (running, restoring, checkpointing); both
  // in no particular order.
  std::span<const std::uint32_t> waiting() const { return *t_.waiting; }
  std::span<const std::uint32_t> holders() const { return *t_.holders; }
  // Holders with a grant on `node`, and what a holder holds (one grant per node).
  std::span<const std::uint32_t> holders_on(std::uint32_t node) const {
    return (*t_.node_holders)[node];
  }
  std::span<const Grant> grants_of(std::uint32_t job) const {
    const JobState& state = (*t_.jobs)[job];
    return {t_.grants->data() + state.grant_begin, state.grant_count};
  }
  // The GPU type a holder's grants are on.
  int type_held(std::uint32_t job) const { return cluster().node(grants_of(job)[0].node).gpu_type; }

  // Virtual clusters: names (JobState::vc indexes them) and the GPUs each holds now.
  std::span<const std::string> vc_names() const { return *t_.vc_names; }
  std::span<const double> vc_usage() const { return *t_.vc_usage; }
  // Nodes down (failures, drains): their resources are held by the outage, not by jobs.
  bool node_offline(std::uint32_t node) const {
    return !t_.down_count->empty() && (*t_.down_count)[node] > 0;
  }
  std::size_t offline_nodes() const { return *t_.offline_nodes; }

  // Started this instant from scratch: it has no state to save, so it may still change its
  // GPUs for free (it starts on the new ones).
  bool not_begun(std::uint32_t job) const {
    const JobState& state = (*t_.jobs)[job];
    return state.phase == JobPhase::kRunning && state.progress_since == now() &&
           !state.has_checkpoint && state.remaining == state.spec->duration;
  }
  // Whether a plan may give the running job another GPU count (elastic jobs with [mechanisms]
  // elastic on), and its range.
  bool resizable(std::uint32_t job) const {
    const JobSpec& spec = *(*t_.jobs)[job].spec;
    return t_.resizing && spec.min_gpus > 0 && spec.min_gpus < spec.max_gpus;
  }
  int min_gpus(std::uint32_t job) const { return jobs()[job].spec->min_gpus; }
  int max_gpus(std::uint32_t job) const { return jobs()[job].spec->max_gpus; }

  // How fast the job runs on GPUs of `gpu_type`, where the throughput model makes speed depend
  // on the type (ThroughputModel::typed: a throughput table): its rate at its requested GPUs on
  // one node of that type with proportional shares; 0 = it cannot run there. Otherwise 1.
  bool typed_speeds() const { return !t_.type_speeds->empty(); }
  double type_speed(std::uint32_t job, int gpu_type) const {
    const auto& speeds = *t_.type_speeds;
    if (speeds.empty()) return 1.0;
    return speeds[static_cast<std::size_t>(job) * cluster().gpu_type_names().size() +
                  static_cast<std::size_t>(gpu_type)];
  }

  // Progress rate the job would have holding `grants` (throughput model, elastic scaling;
  // nothing is applied).
  virtual double rate_if(std::uint32_t job, std::span<const Grant> grants) const = 0;
  // Progress rate of the job with `per_gpu` on every GPU, all on one node of `gpu_type` (no
  // placement penalty): what allocation mechanisms compare when they choose a demand.
  virtual double rate_per_gpu(std::uint32_t job, int gpu_type, const PerGpu& per_gpu) const = 0;
  // Axes along which the job's speed varies on `gpu_type` (its profile's matrix axes).
  virtual SensitivityAxes axes(std::uint32_t job, int gpu_type) const = 0;
  // What a transition of `kind` is expected to cost the job, in seconds (planners compare moves
  // by it; no random draw).
  virtual double expected_overhead_s(OverheadKind kind, std::uint32_t job) const = 0;

 protected:
  View() = default;
  explicit View(const Tables& tables) : t_(tables) {}
  void set_tables(const Tables& tables) { t_ = tables; }

 private:
  Tables t_;
};

}  // namespace clustersim
