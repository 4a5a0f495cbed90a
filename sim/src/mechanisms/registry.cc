#include "mechanisms/registry.h"

#include "clustersim/policy.h"
#include "clustersim/time_share.h"
#include "mechanisms/checkpoints.h"
#include "mechanisms/elastic.h"
#include "mechanisms/failures.h"
#include "mechanisms/keys.h"
#include "mechanisms/migration.h"
#include "mechanisms/preemption.h"
#include "mechanisms/type_upgrade.h"

namespace clustersim::internal {

namespace {

template <typename T>
T* add(Mechanisms& out, std::unique_ptr<T> mechanism) {
  T* raw = mechanism.get();
  out.owned.push_back(std::move(mechanism));
  return raw;
}

}  // namespace

Mechanisms make_mechanisms(const SimOptions& options, bool any_job_checkpoint_interval) {
  Mechanisms out;
  const MechanismOptions& m = options.mechanisms;
  if (Checkpoints::needed(options, any_job_checkpoint_interval))
    out.any_decider.push_back(add(out, std::make_unique<Checkpoints>(options)));
  if (m.fails()) out.any_decider.push_back(add(out, std::make_unique<Failures>(options)));
  // Whether the policy preempts comes from the policy itself (scheduler.preemption overrides).
  // (Gavel's policies have a decider of their own, without the built-in decider's mechanisms.)
  if (is_time_share_policy(options.scheduler.policy)) return out;
  const bool preemptive =
      options.scheduler.preemption.value_or(make_scheduling_policy(options)->preemptive());
  if (preemptive) out.built_in_decider.push_back(add(out, std::make_unique<Preemption>(options)));
  if (m.elastic) out.built_in_decider.push_back(add(out, std::make_unique<Elastic>()));
  if (m.migrates()) out.built_in_decider.push_back(add(out, std::make_unique<Migration>(options)));
  if (m.upgrade_type) out.built_in_decider.push_back(add(out, std::make_unique<TypeUpgrade>()));
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
  declare_checkpoint_keys(keys);
  declare_transition_cost_keys(keys);
}

}  // namespace clustersim::options
