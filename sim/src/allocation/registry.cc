#include <stdexcept>
#include <string_view>

#include "allocation/factories.h"

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

}  // namespace clustersim
