// The placement study's placements by name (placement_study.h), from their descriptors
// (component.h).
#include <stdexcept>
#include <string_view>

#include "clustersim/component.h"

namespace clustersim {

std::unique_ptr<StudyPlacement> make_study_placement(const std::string& name,
                                                     const StudyContext& context) {
  if (const ComponentDescriptor* d = find_component(ComponentKind::kStudyPlacement, name))
    return d->factory.study_placement(context);
  std::string known;
  for (const std::string& known_name : study_placement_names())
    known += (known.empty() ? "" : ", ") + known_name;
  throw std::invalid_argument("the placement study has no placement '" + name +
                              "' (known: " + known + ")");
}

std::vector<std::string> study_placement_names() {
  return component_names(ComponentKind::kStudyPlacement);
}

bool is_study_placement(const std::string& name) {
  return find_component(ComponentKind::kStudyPlacement, name) != nullptr;
}

}  // namespace clustersim
