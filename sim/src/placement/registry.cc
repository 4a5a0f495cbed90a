#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "clustersim/placement_study.h"
#include "clustersim/simulator.h"
#include "options/declare.h"
#include "placement/factories.h"

namespace clustersim {

namespace {
struct PlacementEntry {
  std::string_view name;
  std::unique_ptr<PlacementPolicy> (*make)(Rng&);
};

constexpr PlacementEntry kPlacements[] = {
    {"consolidate", placement::make_consolidate},
    {"spread", placement::make_spread},
    {"best_fit", placement::make_best_fit},
    {"random", placement::make_random},
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_placement_policy(const std::string& name, Rng& rng) {
  for (const auto& entry : kPlacements)
    if (entry.name == name) return entry.make(rng);
  std::string known;
  for (const auto& entry : kPlacements)
    known += (known.empty() ? "" : ", ") + std::string(entry.name);
  throw std::invalid_argument("unknown placement '" + name + "' (known: " + known + ")");
}

std::vector<std::string> placement_policy_names() {
  std::vector<std::string> names;
  for (const auto& entry : kPlacements) names.emplace_back(entry.name);
  return names;
}

namespace options {

void declare_placement_keys(KeyRegistry& keys) {
  field<SimOptions>(
      keys, "scheduler.placement", [](auto& o) -> auto& { return o.scheduler.placement; })
      .choices([] {
        // The placement study's placements (placement_study.h) too; those that are not also the
        // engine's are refused in time (config.cc says so, naming the key).
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
