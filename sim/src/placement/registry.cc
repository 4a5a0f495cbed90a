#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "clustersim/component.h"
#include "clustersim/placement_study.h"
#include "clustersim/simulator.h"
#include "options/declare.h"

namespace clustersim {

std::unique_ptr<PlacementPolicy> make_placement_policy(const std::string& name, Rng& rng) {
  if (const ComponentDescriptor* d = find_component(ComponentKind::kPlacement, name))
    return d->factory.placement(rng);
  std::string known;
  for (const std::string& known_name : placement_policy_names())
    known += (known.empty() ? "" : ", ") + known_name;
  throw std::invalid_argument("unknown placement '" + name + "' (known: " + known + ")");
}

std::vector<std::string> placement_policy_names() {
  return component_names(ComponentKind::kPlacement);
}

namespace options {

void declare_placement_keys(KeyRegistry& keys) {
  field<SimOptions>(
      keys, "scheduler.placement", [](auto& o) -> auto& { return o.scheduler.placement; })
      .choices([] {
        // The placement study's placements (placement_study.h) too; those that are not also the
        // engine's are refused in time (io/config_run_modes.cc says so, naming the key).
        std::vector<std::string> names = placement_policy_names();
        for (const std::string& name : study_placement_names())
          if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        return names;
      }())
      .component("placement")
      .training_only()
      .doc(
          "Which nodes' GPUs a job gets ([`sim/README.md`](sim/README.md#placement)); `fgd`, "
          "`dot_product`, `gpu_packing`, `gpu_clustering`, `random_fit` (and the study's "
          "`best_fit`) only in the placement study (`[workload] departures = \"none\"`).");
}

}  // namespace options

}  // namespace clustersim
