#include "mechanisms/registry.h"

#include <stdexcept>

#include "clustersim/component.h"
#include "mechanisms/keys.h"

namespace clustersim::internal {

Mechanisms make_mechanisms(const SimOptions& options, const MechanismContext& context) {
  Mechanisms out;
  // A decider of its own (Gavel's) has none of the built-in decider's mechanisms.
  const bool built_in_decider = !has_own_decider(options.scheduler);
  for (const ComponentDescriptor* descriptor : components(ComponentKind::kMechanism)) {
    const bool needs_built_in = descriptor->caps.needs_built_in_decider;
    if (needs_built_in && !built_in_decider) continue;
    if (!descriptor->factory.wanted(options, context)) continue;
    std::unique_ptr<Mechanism> mechanism = descriptor->factory.mechanism(options);
    if (needs_built_in) {
      auto* decision = dynamic_cast<DecisionMechanism*>(mechanism.get());
      if (!decision)
        throw std::logic_error("mechanism '" + descriptor->name +
                               "' needs the built-in decider but is no decision mechanism");
      out.built_in_decider.push_back(decision);
    } else {
      out.any_decider.push_back(mechanism.get());
    }
    out.owned.push_back(std::move(mechanism));
  }
  return out;
}

}  // namespace clustersim::internal

namespace clustersim::options {

// Every [mechanisms] key, declared beside its mechanism, in the order the README lists them.
void declare_mechanism_keys(KeyRegistry& keys) {
  declare_preemption_keys(keys);
  declare_migration_keys(keys);
  declare_type_upgrade_keys(keys);
  declare_elastic_keys(keys);
  declare_failure_keys(keys);
  declare_failure_class_keys(keys);
  declare_availability_keys(keys);
  declare_checkpoint_keys(keys);
  declare_transition_cost_keys(keys);
}

}  // namespace clustersim::options
