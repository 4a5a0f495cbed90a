// The placement study's placements by name (placement_study.h).
#include <stdexcept>
#include <string_view>

#include "study/factories.h"

namespace clustersim {

namespace {

struct StudyEntry {
  std::string_view name;
  std::unique_ptr<StudyPlacement> (*make)(const StudyContext&);
};

constexpr StudyEntry kStudyPlacements[] = {
    {"fgd", study::make_fgd},
    {"best_fit", study::make_best_fit},
    {"dot_product", study::make_dot_product},
    {"gpu_packing", study::make_gpu_packing},
    {"gpu_clustering", study::make_gpu_clustering},
    {"random_fit", study::make_random_fit},
};

}  // namespace

std::unique_ptr<StudyPlacement> make_study_placement(const std::string& name,
                                                     const StudyContext& context) {
  for (const auto& entry : kStudyPlacements)
    if (entry.name == name) return entry.make(context);
  std::string known;
  for (const auto& entry : kStudyPlacements)
    known += (known.empty() ? "" : ", ") + std::string(entry.name);
  throw std::invalid_argument("the placement study has no placement '" + name +
                              "' (known: " + known + ")");
}

std::vector<std::string> study_placement_names() {
  std::vector<std::string> names;
  for (const auto& entry : kStudyPlacements) names.emplace_back(entry.name);
  return names;
}

bool is_study_placement(const std::string& name) {
  for (const auto& entry : kStudyPlacements)
    if (entry.name == name) return true;
  return false;
}

}  // namespace clustersim
