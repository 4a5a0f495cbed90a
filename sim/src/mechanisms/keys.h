// Declaring a [mechanisms] key: each mechanism declares its keys beside it (options.h); the
// registry (registry.cc) lists them in the order the README shows them. Private.
#pragma once

#include <string>
#include <utility>

#include "clustersim/simulator.h"
#include "core/overheads.h"
#include "options/declare.h"

namespace clustersim::options {

void declare_preemption_keys(KeyRegistry& keys);    // preemption.cc
void declare_migration_keys(KeyRegistry& keys);     // migration.cc
void declare_type_upgrade_keys(KeyRegistry& keys);  // type_upgrade.cc
void declare_elastic_keys(KeyRegistry& keys);       // elastic.cc
void declare_failure_keys(KeyRegistry& keys);       // failures.cc
void declare_checkpoint_keys(KeyRegistry& keys);    // checkpoints.cc

void declare_failure_class_keys(KeyRegistry& keys);  // failure_classes.cc
void declare_availability_keys(KeyRegistry& keys);   // availability.cc
// What transitions cost: declared by the engine, which charges them (core/overheads.h).

}  // namespace clustersim::options
