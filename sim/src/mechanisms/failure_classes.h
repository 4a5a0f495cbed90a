// Failure classes ([mechanisms.failure_class.CAUSE], [mechanisms] failure_mix; sim/README.md,
// "Failure classes"): a mechanism (mechanism.h) that works with any decider, beside the node
// failures of mtbf_h and failure traces (failures.h). Private to the simulator.
//
// Each class is a failure process per unit: every GPU, node, rack (its power domain) or leaf
// switch fails as a renewal process, with Weibull up-times of mean 1 / rate (k = 1:
// exponential), and a failure takes the unit's domain down (a GPU's or node's: its node; a
// rack's: every node of the rack; a leaf's: every node under it, [fabric]'s leaves when it has
// tiers, else the rack's) for a repair time, constant or exponential; the unit's next
// up-time starts when the repair ends. Every job on the domain fails (Plan::fail: back to its
// last save, waits again) in the same plan that takes the nodes down. A job-level class fails a
// running job alone at its rate per hour of running (redrawn whenever the job begins running
// again: exponential, so memoryless) and takes no node down.
//
// Recovery and node health (MechanismOptions says more): every restart of a job a class failed
// pays detection (overlapping any wait since the failure) + rescheduling + restore; hot spares
// held back idle (their GPUs held outside jobs) and handed over when a failure takes nodes from
// jobs, refilled by repaired nodes; lemon nodes whose GPU and node units fail
// faster; a quarantine that drains a node failing too often (an outage nested in its repair).
//
// It counts interruptions (a job failed by a class) by cause, and from its side tables (sized by
// job, only when on): the GPU-seconds a failed job waited from its failure to its next
// placement. From the per-job records at the end: the jobs' mean effective training time ratio
// and GPU-hours lost by kind.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "clustersim/mechanism.h"
#include "clustersim/mechanisms.h"
#include "clustersim/random.h"
#include "clustersim/simulator.h"
#include "mechanisms/failures.h"

namespace clustersim::internal {

// Each node's leaf switch for a leaf class: [fabric]'s leaves when it has tiers (hosts_per_leaf
// or a topology map), else its rack (a rack's top-of-rack switch).
std::vector<std::uint32_t> failure_leaf_of(const FabricOptions& fabric,
                                           const ClusterState& cluster);

// The job-size buckets of ettr_mean.size_* and mttf_h.size_* (GPUs 1, 2-8, 9-64, 65-512, >512).
inline constexpr int kJobSizeBuckets = 5;
int job_size_bucket(int gpus);

class FailureClasses : public Mechanism {
 public:
  explicit FailureClasses(const SimOptions& options);

  std::string_view name() const override { return "failure_classes"; }
  void attach(Host& host) override;
  void start() override;
  void on_timer(const Timer& timer) override;
  void on_job_running(std::uint32_t job) override;
  bool endless() const override { return true; }
  // Whether `node` is a lemon (lemon_share; drawn at start).
  bool lemon(std::uint32_t node) const { return !lemon_.empty() && lemon_[node]; }
  void report(RunMetrics& metrics) const override;
  void report_jobs(std::span<const JobRecord> jobs, RunMetrics& metrics) const override;
  // Per-job columns `ettr` (as ettr_mean's terms; NaN for a job not run to its end) and
  // `interruptions` (jobs failed by a class).
  void conclude(RunResult& result) const override;
  // A job's effective training time ratio: the GPU-seconds of progress it kept (held -
  // overheads - rolled back) over its GPUs x the wall time since its first start; NaN when it
  // did not start and finish (or its counters are outside the measured window).
  static double ettr(const JobRecord& record);

 protected:
  // Seconds until `unit` of class `index` fails again (its up-time), and until a running job
  // fails at the job-level classes' summed rate: the draws, which a test replaces with a script.
  virtual double next_uptime(std::size_t index, std::uint32_t unit);
  virtual double next_job_failure_s();

 private:
  struct Process {
    FailureClass spec;
    double weibull_scale_s = 0.0;  // the scale giving the mean 1 / rate (seconds)
    Rng rng;
  };
  // The nodes a failure of `unit` of class `index` takes down.
  std::span<const std::uint32_t> domain(std::size_t index, std::uint32_t unit) const;
  std::uint32_t units(const FailureClass& spec) const;
  void unit_fails(std::size_t index, std::uint32_t unit);
  void domain_repaired(std::size_t index, std::uint32_t unit);
  void job_fails(std::uint32_t job, std::uint32_t epoch);
  // Fails `job` in plan_ (once per plan). A failure of the nodes `down` lets an elastic job
  // shrink to what it holds elsewhere (shrink_on_failure); a job-level one (none down) not.
  void interrupt(std::uint32_t job, FailureCause cause, std::span<const std::uint32_t> down = {});
  // The side tables cover every job loaded so far (a window's stream loads more as it runs).
  void cover(std::uint32_t job) {
    if (job >= failed_at_.size()) size_tables();
  }
  void size_tables();
  // Hot spares: hold `node` back as one (it must be up and free), or hand `count` over.
  void hold_spare(std::uint32_t node);
  void hand_over_spares(std::uint32_t count);
  // Adds the pool's node-seconds since the last change, held idle and replacing failed nodes.
  void account_spares();
  // Seconds until `unit` of class `index` fails again: its draw, sped up on a lemon node.
  double uptime_s(std::size_t index, std::uint32_t unit);
  // Records a failure of `node` by a GPU or node class; true when that quarantines it.
  bool quarantines(std::uint32_t node);

  const MechanismOptions& options_;
  const FabricOptions& fabric_;
  std::uint64_t lemon_seed_;
  std::vector<Process> processes_;      // by class, the job-level ones included
  std::vector<std::size_t> job_level_;  // indices of the job-level classes
  double job_rate_per_s_ = 0.0;         // their rates summed
  Rng job_rng_;
  std::vector<std::uint32_t> node_of_gpu_;  // only with a per-GPU class
  // Domains as spans: every node in order (a node's, a rack's), and the nodes of each leaf
  // switch in turn, leaf l's from leaf_first_[l] to leaf_first_[l + 1] (only with a leaf class).
  std::vector<std::uint32_t> node_ids_, leaf_nodes_, leaf_first_;
  Host* host_ = nullptr;
  TimerKind fail_ = 0, up_ = 0, job_fail_ = 0;
  int hot_spares_ = 0;  // the pool's size
  // Restarts: every restart of a job a class failed pays what is left of detection and
  // rescheduling (Plan::delay_restart).
  double detect_s_ = 0.0, reschedule_s_ = 0.0;
  std::vector<std::uint32_t> spares_;  // nodes held back now
  std::vector<char> is_spare_;         // by node (only with spares)
  // Spare utilisation: spares handed over whose place in the pool no repaired node has taken
  // yet (replacing a failed node), and the pool's node-seconds idle and replacing until
  // spare_clock_.
  std::uint32_t spares_out_ = 0;
  double spare_idle_node_s_ = 0.0, spare_used_node_s_ = 0.0, spare_clock_ = 0.0;
  TimerKind quarantine_end_ = 0;
  std::vector<char> lemon_;               // by node (only with lemons)
  std::vector<double> recent_failures_;   // by node, its last k failure times (a ring)
  std::vector<std::uint32_t> ring_next_;  // by node: the ring's oldest entry
  std::uint64_t quarantined_ = 0;
  Plan plan_;
  // Side tables by job (sized at start): interruptions, when it last failed (-1: not waiting),
  // the plan stamp that keeps a job spanning several failed nodes from failing twice.
  std::vector<std::uint32_t> job_interruptions_;
  std::vector<double> failed_at_;
  std::vector<std::uint32_t> stamp_;
  std::uint32_t plan_count_ = 0;
  std::array<std::uint64_t, kFailureCauses> interruptions_{};
  std::uint64_t node_outages_ = 0;
  double waiting_gpu_seconds_ = 0.0;
};

}  // namespace clustersim::internal
