#include <stdexcept>
#include <string_view>

#include "allocation/factories.h"
#include "clustersim/simulator.h"
#include "options/declare.h"

namespace clustersim {

namespace {
struct MechanismEntry {
  std::string_view name;
  std::unique_ptr<AllocationMechanism> (*make)(const SchedulerOptions&);
};

constexpr MechanismEntry kMechanisms[] = {
    {"proportional", allocation::make_proportional},
    {"greedy", allocation::make_greedy},
    {"tune", allocation::make_tune},
    {"opt", allocation::make_opt},
    {"drf", allocation::make_drf},
    {"tetris", allocation::make_tetris},
};
}  // namespace

std::unique_ptr<AllocationMechanism> make_allocation_mechanism(const SchedulerOptions& options) {
  for (const auto& entry : kMechanisms)
    if (entry.name == options.allocation) return entry.make(options);
  std::string known;
  for (const auto& entry : kMechanisms)
    known += (known.empty() ? "" : ", ") + std::string(entry.name);
  throw std::invalid_argument("unknown allocation mechanism '" + options.allocation +
                              "' (known: " + known + ")");
}

std::vector<std::string> allocation_mechanism_names() {
  std::vector<std::string> names;
  for (const auto& entry : kMechanisms) names.emplace_back(entry.name);
  return names;
}

namespace options {

void declare_allocation_keys(KeyRegistry& keys) {
  const auto key = [&](std::string name, auto ref) {
    return field<SimOptions>(keys, "scheduler." + std::move(name), ref)
        .component("allocation")
        .training_only();
  };
  key(
      "allocation", [](auto& o) -> auto& { return o.scheduler.allocation; })
      .choices(allocation_mechanism_names())
      .doc(
          "CPU, memory and storage per job ([`sim/README.md`]"
          "(sim/README.md#allocation-mechanisms)).");
  key(
      "best_demand_tolerance", [](auto& o) -> auto& { return o.scheduler.best_demand_tolerance; })
      .range(0.0, 0.999999)
      .doc(
          "A job's best demand: its cheapest allocation within this fraction of its peak "
          "speed.");
  key(
      "realloc_s", [](auto& o) -> auto& { return o.scheduler.realloc_s; })
      .range(0.0, 1e12)
      .doc(
          "A running job whose CPU/memory grant changes pauses this long (charged as "
          "overhead).");
}

}  // namespace options

}  // namespace clustersim
