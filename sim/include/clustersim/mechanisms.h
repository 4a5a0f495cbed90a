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
  // A running job saves a checkpoint after every this many seconds of running (0: only when
  // preempted); a job's own JobSpec::checkpoint_interval_s takes precedence. A failure rolls a
  // job back to its last saved state.
  double checkpoint_interval_s = 0.0;

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
};

}  // namespace clustersim
