// Mechanisms (`[mechanisms]`): event-driven and priority preemption, migration and
// defragmentation, elastic resizing, node failures with checkpoint rollback, and what each
// transition costs. Each mechanism produces or edits plans the engine applies (plan.h); none is
// a special case of the event loop. All are off by default, and a run with them off gives the
// same results, bit for bit, as one without them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace clustersim {

// What a job's time holding GPUs without progress is spent on (the overhead metrics by kind).
enum class OverheadKind : std::uint8_t {
  kCheckpoint,  // saving state: when preempted, and periodically (checkpoint_interval_s)
  kRestore,     // restoring it: restart after a preemption, or after a failure from a checkpoint
  kMigration,   // moving to other GPUs (defragmentation)
  kResize,      // changing its GPU count (elastic jobs)
  kRealloc,     // re-launching with another CPU/memory/storage grant (allocation mechanisms)
};
inline constexpr int kOverheadKinds = 5;
std::string_view overhead_kind_name(OverheadKind kind);  // "checkpoint", "restore", ...

// How long one transition of a kind takes, for one job.
struct OverheadCost {
  enum class Model : std::uint8_t {
    kConstant,     // `seconds`
    kSize,         // `seconds` + the job's checkpoint size (GB) / `gbps` (GB/s)
    kEmpirical,    // one of `samples` (seconds), drawn uniformly and reproducibly per transition
    kSaveRestore,  // the job's checkpoint cost plus its restore cost (state moved by a restart)
  };
  Model model = Model::kConstant;
  double seconds = 0.0;
  double gbps = 1.0;
  std::vector<double> samples;
};

inline OverheadCost save_and_restore() {
  OverheadCost cost;
  cost.model = OverheadCost::Model::kSaveRestore;
  return cost;
}

// A replayed node outage (failure trace).
struct NodeOutage {
  std::uint32_t node = 0;  // index in the cluster's node order
  double down = 0.0;       // seconds, on the workload's clock
  double up = 0.0;
  std::size_t source_line = 0;
};

// Failure classes ([mechanisms.failure_class.CAUSE], [mechanisms] failure_mix; sim/README.md,
// "Failure classes"): what failed, which fixes the metric it is counted under
// (interruptions.<cause>). A fixed set, so that every run has the same metric columns.
enum class FailureCause : std::uint8_t {
  kGpu,          // a faulty GPU (its processor, SRAM-free parts, thermal, silent data corruption)
  kGpuMemory,    // GPU memory (HBM, SRAM)
  kNic,          // a host's network card
  kHost,         // the rest of a host (CPU, memory, disk, power supply, unplanned maintenance)
  kSwitch,       // a network switch or cable: every node under its leaf (top-of-rack) switch
  kPower,        // a rack's power domain
  kSoftware,     // a job-level failure (a software bug, a collective's watchdog timeout)
  kMaintenance,  // planned maintenance of a node
};
inline constexpr int kFailureCauses = 8;
std::string_view failure_cause_name(FailureCause cause);  // "gpu", "gpu_memory", ...
// What a class's rate counts failures of, and so what one failure takes down: a GPU's or a
// node's failure takes its node, a rack unit's (its power) every node of the rack, a leaf
// switch's every node under it ([fabric]'s leaves when it has tiers, hosts_per_leaf or a
// topology map; else a rack's top-of-rack switch: the rack), and a job-level one fails the job
// alone (no node goes down). Appended values keep the earlier ones' numbers.
enum class FailureUnit : std::uint8_t { kGpu, kNode, kRack, kJobHour, kLeaf };
// "gpu", "node", "rack", "job_hour", "leaf"
std::string_view failure_unit_name(FailureUnit unit);
// A cause's unit unless its table names one: gpu for GPU causes, leaf for switch, rack for
// power, job_hour for software, node otherwise.
FailureUnit default_failure_unit(FailureCause cause);

struct FailureClass {
  FailureCause cause = FailureCause::kGpu;
  FailureUnit unit = FailureUnit::kGpu;
  // Failures per unit per hour (kJobHour: per hour a job runs, whatever its size).
  double rate_per_h = 0.0;
  // Weibull k of each unit's up-times, scaled to the mean 1 / rate (1: exponential). Job-level
  // classes are exponential.
  double shape = 1.0;
  // Mean hours the unit's domain stays down after a failure (0 for job-level classes), constant
  // or exponentially distributed.
  double repair_h = 1.0;
  bool repair_exponential = false;
};

struct MechanismOptions {
  // ---- Preemption ----
  // With scheduler.honor_priority on a preemptive policy: an arrival of higher priority than
  // running jobs evicts the lowest-priority ones at once, not at the next lease boundary.
  bool preempt_on_arrival = false;

  // ---- Migration and defragmentation ----
  enum class Migration : std::uint8_t {
    kOff,
    kOnDemand,  // after a pass: when the queue's head cannot be placed although enough GPUs of
                // its type are free, or when more than defrag_threshold of the GPUs are
                // fragmented
    kPeriodic,  // every defrag_period_s
  };
  Migration migration = Migration::kOff;
  double defrag_threshold = 0.0;  // fraction of the cluster's GPUs (0: only a blocked head)
  double defrag_period_s = 3600.0;
  int defrag_max_moves = 16;  // per defragmentation pass
  // After each pass of the built-in decider, move running jobs that name no GPU type to a faster
  // type with free GPUs when that finishes them sooner net of migration_cost (per-type speeds:
  // View::type_speed).
  bool upgrade_type = false;

  // ---- Elastic jobs (JobSpec::min_gpus / max_gpus) ----
  bool elastic = false;
  // Speed-up with g GPUs, relative to 1 GPU, unless the model has a scaling table: Amdahl's
  // 1 / ((1 - p) + p / g). A job's rate with g GPUs is scaled by speedup(g) / speedup(num_gpus).
  double parallel_fraction = 0.95;
  // Per model (normalised name): (GPUs, speed-up) points, ascending in GPUs, interpolated
  // linearly and flat beyond the ends.
  std::map<std::string, std::vector<std::pair<int, double>>> scaling;

  // ---- Failures and checkpoints ----
  double mtbf_h = 0.0;  // per node; 0: no generated failures
  enum class FailureModel : std::uint8_t { kExponential, kWeibull };
  FailureModel failure_model = FailureModel::kExponential;
  double weibull_shape = 0.7;             // Weibull k (< 1: infant mortality), scaled to the MTBF
  double repair_h = 1.0;                  // a failed node is down this long
  std::vector<NodeOutage> failure_trace;  // replayed outages (with generated ones, if any)
  // Windows in which nodes are unavailable (mechanism availability): not failures, but their
  // jobs are interrupted as by one.
  std::vector<NodeOutage> availability_trace;
  // A running job saves a checkpoint after every this many seconds of running (0: only when
  // preempted); a job's own JobSpec::checkpoint_interval_s takes precedence. A failure rolls a
  // job back to its last saved state.
  double checkpoint_interval_s = 0.0;
  // How a job's save interval is chosen where the job names none: kFixed, checkpoint_interval_s;
  // kYoungDaly, sqrt(2 w / lambda) for its checkpoint cost w and the failure rate lambda its
  // placement sees from the failure classes and mtbf_h (young_daly_interval_s).
  enum class CheckpointPolicy : std::uint8_t { kFixed, kYoungDaly };
  CheckpointPolicy checkpoint_policy = CheckpointPolicy::kFixed;
  // How a periodic save is written. kSync: the job pauses for the whole checkpoint cost and the
  // save counts at its end. kAsync: the job pauses only for checkpoint_snapshot_s (a copy of its
  // state), then runs while the copy is written in the background for the checkpoint cost; the
  // save counts (a failure rolls back to it) only once the write completes, and a failure during
  // the write rolls back to the save before. A save due while the previous write is still under
  // way waits for it (the wait is paused time, charged as checkpoint). Saves at a preemption
  // stay synchronous (the job gives its GPUs back only once saved).
  enum class CheckpointWrite : std::uint8_t { kSync, kAsync };
  CheckpointWrite checkpoint_write = CheckpointWrite::kSync;
  double checkpoint_snapshot_s = 0.0;

  // Failure classes (none: off). Each class is a failure process of its own beside mtbf_h's.
  std::vector<FailureClass> failure_classes;
  // failure_mix's exposure: the counts of the mix table were seen over this many days on this
  // many GPUs (0: the cluster's), with one job running (what kJobHour rates are counted over).
  double failure_mix_days = 0.0;
  double failure_mix_gpus = 0.0;
  // Restarts: every restart of a job a failure class interrupted, wherever it runs (hot spares,
  // other free nodes, its nodes after a repair; in place when it shrinks), pays a pause charged
  // as restore beside its restore: what is left of detection (restart_detect_s from the failure:
  // a wait for a repair overlaps it) plus rescheduling (restart_reschedule_s). 0 and 0: restore
  // only. Hot spares: the last hot_spares nodes are held back idle at the start. When a failure
  // class interrupts jobs, as many spares as nodes it took from them are handed over (given
  // back to the ledger) at once, so a gang that fills the rest of the cluster restarts on them
  // (and pays detection there, holding them, as its healthy nodes would be held); each repaired
  // node refills the pool (held back again) while it is short.
  int hot_spares = 0;
  double restart_detect_s = 0.0;
  double restart_reschedule_s = 0.0;
  // An elastic job (with `elastic` on) that a failure (a class's, mtbf_h's or a failure_trace's;
  // not an availability window) takes nodes from shrinks to the GPUs
  // it still holds, when they are at least its min_gpus: rolled back to its last save, it
  // restores on them at once instead of waiting again; the elastic mechanism grows it back
  // into idle GPUs (a repaired node) as usual.
  bool shrink_on_failure = false;
  // Lemon nodes: round(lemon_share x nodes) nodes, drawn from the run's seed, fail lemon_factor
  // times as often in every GPU and node class. Quarantine (quarantine_failures = k > 0): a node
  // whose GPU or node classes failed k times within quarantine_window_h is drained for
  // quarantine_h more (an outage nested in its repair), for diagnosis.
  double lemon_share = 0.0;
  double lemon_factor = 1.0;
  int quarantine_failures = 0;
  double quarantine_window_h = 24.0;
  double quarantine_h = 24.0;

  // ---- What transitions cost ----
  // Checkpoint, restore and realloc `seconds` are scheduler.checkpoint_s, restore_s and
  // realloc_s (one place for each); migration and resize cost a save plus a restore unless set.
  OverheadCost checkpoint_cost, restore_cost;
  OverheadCost migration_cost = save_and_restore();
  OverheadCost resize_cost = save_and_restore();
  // Checkpoint sizes for the size model (GB): by normalised model name (from the profiles'
  // checkpoint_gb and [mechanisms.checkpoint_gb]), and for other models.
  std::map<std::string, double> checkpoint_gb;
  double default_checkpoint_gb = 1.0;

  bool migrates() const { return migration != Migration::kOff; }
  bool fails() const { return mtbf_h > 0.0 || !failure_trace.empty(); }
  bool has_failure_classes() const { return !failure_classes.empty(); }
};

}  // namespace clustersim
