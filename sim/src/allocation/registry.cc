#include <stdexcept>
#include <string_view>

#include "clustersim/component.h"
#include "clustersim/simulator.h"
#include "options/declare.h"

namespace clustersim {

std::unique_ptr<AllocationMechanism> make_allocation_mechanism(const SchedulerOptions& options) {
  if (const ComponentDescriptor* d = find_component(ComponentKind::kAllocation, options.allocation))
    return d->factory.allocation(options);
  std::string known;
  for (const std::string& name : allocation_mechanism_names())
    known += (known.empty() ? "" : ", ") + name;
  throw std::invalid_argument("unknown allocation mechanism '" + options.allocation +
                              "' (known: " + known + ")");
}

std::vector<std::string> allocation_mechanism_names() {
  return component_names(ComponentKind::kAllocation);
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
