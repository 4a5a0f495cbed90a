// The table throughput model (throughput_table.h): a job's speed on each GPU type from a table of
// steps per second, Gavel's simulation_throughputs.json.
#include <cmath>
#include <set>
#include <stdexcept>

#include "clustersim/error.h"
#include "clustersim/throughput_table.h"
#include "options/declare.h"

namespace clustersim {

std::string ThroughputTable::key(const std::string& model, int gpus) {
  return "('" + model + "', " + std::to_string(gpus) + ")";
}

const double* ThroughputTable::find(const std::string& gpu_type, const std::string& model,
                                    int gpus) const {
  const auto type = steps_per_second.find(gpu_type);
  if (type == steps_per_second.end()) return nullptr;
  const auto entry = type->second.find(key(model, gpus));
  return entry == type->second.end() ? nullptr : &entry->second;
}

namespace {

double penalty_of(const PlacementPenalty& penalty, const Allocation& a) {
  if (a.racks > 1) return penalty.cross_rack_factor;
  if (a.nodes > 1) return penalty.cross_node_factor;
  return 1.0;
}

std::string missing_message(const JobSpec& job, const std::string& gpu_type,
                            const std::string& source) {
  return "no throughput for " + ThroughputTable::key(job.model, job.num_gpus) + " on GPU type '" +
         gpu_type + "' in " + source + " (job '" + job.id +
         "'; set [throughput] on_missing = \"cannot_run\" or \"neutral\")";
}

class TableThroughputModel final : public ThroughputModel {
 public:
  TableThroughputModel(std::shared_ptr<const ThroughputTable> table,
                       const TableModelOptions& options)
      : table_(std::move(table)), options_(options) {
    if (!table_) throw std::invalid_argument("table throughput model: null table");
    // One entry per (type, key), with the reference type's steps/s beside it, so that rate()
    // does no lookup.
    for (const auto& [type, rates] : table_->steps_per_second) {
      auto& entries = entries_[type];
      for (const auto& [key, steps_per_second] : rates) {
        const double* reference = nullptr;
        if (const auto ref = table_->steps_per_second.find(options_.reference_type);
            ref != table_->steps_per_second.end()) {
          const auto found = ref->second.find(key);
          if (found != ref->second.end()) reference = &found->second;
        }
        entries.emplace(key, Entry{steps_per_second, reference ? *reference : 0.0});
      }
    }
  }

  bool resolves() const override { return true; }
  bool typed() const override { return true; }

  const void* resolve(const JobSpec& job, const std::string& gpu_type) const override {
    const auto type = entries_.find(gpu_type);
    if (type == entries_.end()) return &kMissing;
    const auto entry = type->second.find(ThroughputTable::key(job.model, job.num_gpus));
    return entry == type->second.end() ? &kMissing : &entry->second;
  }

  bool can_run(const void* resolved) const override {
    const auto* entry = static_cast<const Entry*>(resolved);
    if (entry == nullptr || entry == &kMissing)
      return options_.on_missing != MissingProfile::kCannotRun;
    return entry->steps_per_second > 0.0;
  }

  double rate(const JobSpec& job, const void* resolved,
              const Allocation& allocation) const override {
    const auto* entry = static_cast<const Entry*>(resolved);
    const std::string type = allocation.gpu_type ? *allocation.gpu_type : std::string();
    if (entry == nullptr || entry == &kMissing) {
      if (options_.on_missing == MissingProfile::kNeutral)
        return penalty_of(options_.penalty, allocation);
      throw std::invalid_argument(missing_message(job, type, table_->source));
    }
    if (!(entry->steps_per_second > 0.0))
      throw std::invalid_argument("job '" + job.id + "' cannot run on GPU type '" + type +
                                  "' (throughput 0 in " + table_->source + ")");
    double speed = 0.0;
    if (job.steps > 0.0) {
      speed = entry->steps_per_second * job.duration / job.steps;  // takes steps / steps-per-s
    } else {
      if (!(entry->reference > 0.0))
        throw std::invalid_argument("job '" + job.id + "' gives no steps and " +
                                    ThroughputTable::key(job.model, job.num_gpus) +
                                    " has no throughput > 0 on the reference type '" +
                                    options_.reference_type + "' in " + table_->source);
      speed = entry->steps_per_second / entry->reference;
    }
    return speed * penalty_of(options_.penalty, allocation);
  }

 private:
  struct Entry {
    double steps_per_second = 0.0;
    double reference = 0.0;  // on the reference type; 0: none
  };
  static const Entry kMissing;
  std::shared_ptr<const ThroughputTable> table_;
  TableModelOptions options_;
  std::map<std::string, std::unordered_map<std::string, Entry>> entries_;
};

const TableThroughputModel::Entry TableThroughputModel::kMissing{};

}  // namespace

void check_table_coverage(const ThroughputTable& table, const std::vector<JobSpec>& jobs,
                          const std::vector<std::string>& gpu_types,
                          const TableModelOptions& options, const std::string& source_name) {
  for (const JobSpec& job : jobs) {
    if (job.steps <= 0.0) {
      const double* reference = table.find(options.reference_type, job.model, job.num_gpus);
      if ((reference == nullptr || *reference <= 0.0) &&
          options.on_missing != MissingProfile::kNeutral)
        throw InputError(source_name, job.source_line, "model",
                         "job '" + job.id + "' gives no steps, and " +
                             ThroughputTable::key(job.model, job.num_gpus) +
                             " has no throughput > 0 on the reference type '" +
                             options.reference_type + "' in " + table.source +
                             " (its duration holds there)");
    }
    if (options.on_missing != MissingProfile::kError) continue;
    for (const std::string& type : gpu_types) {
      if (!job.gpu_type.empty() && job.gpu_type != type) continue;
      if (table.find(type, job.model, job.num_gpus) == nullptr)
        throw InputError(source_name, job.source_line, "model",
                         missing_message(job, type, table.source));
    }
  }
}

std::unique_ptr<ThroughputModel> make_table_throughput_model(
    std::shared_ptr<const ThroughputTable> table, const TableModelOptions& options) {
  return std::make_unique<TableThroughputModel>(std::move(table), options);
}

namespace options {

void declare_table_model_keys(KeyRegistry& keys) {
  const std::vector<std::string> table = {"table"};
  custom(keys, "throughput.table", KeyType::kPath)
      .when("throughput.model", table)
      .component("throughput table")
      .training_only()
      .doc(
          "The table model's steps/s per GPU type, job type and GPU count, in Gavel's "
          "`simulation_throughputs.json` format (required by it; 0 = cannot run on that type).");
  custom(keys, "throughput.reference_type", KeyType::kString)
      .when("throughput.model", table)
      .component("throughput table")
      .training_only()
      .default_note("the cluster's first GPU type")
      .doc(
          "The GPU type on which the durations of jobs without steps hold (a job with steps, "
          "e.g. from a Gavel trace, runs steps / steps-per-second on whatever type it gets).");
}

}  // namespace options

}  // namespace clustersim
