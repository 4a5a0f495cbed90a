// A fleet read from a run config's [fleet] table (sim/README.md, "Fleet"; issue 44): the
// FleetSpec, and where each job's home (the `home` router's column) comes from. A config with
// [fleet] runs simulate_fleet (fleet.h) through simulate_config (config.h); the config's other
// tables ([workload], [scheduler], [mechanisms], ...) are the fleet's, every cluster's.
#pragma once

#include <set>
#include <string>

#include "clustersim/fleet.h"
#include "clustersim/job.h"

namespace clustersim {

struct FleetConfig {
  FleetSpec spec;  // homes empty: filled per workload (fleet_for_workload)
  // The job field naming each job's home cluster or region: "vc" or "user".
  std::string home_column = "vc";
  bool home_column_set = false;          // given in the config (else the default): warned if idle
  bool rebalance_set = false;            // a [fleet.rebalance] table: warned where it cannot act
  std::set<std::string> rebalance_keys;  // the keys it gives
};

// Whether `spec`'s router reads the jobs' homes (the `home` router; said here once, beside the
// column it reads, while router descriptors carry no such capability).
bool fleet_router_reads_homes(const FleetSpec& spec);

// `fleet`'s spec with each job's home taken from its home_column (a job whose field is empty
// has no home: the `home` router names it). Homes are read only for the `home` router.
FleetSpec fleet_for_workload(const FleetConfig& fleet, const Workload& workload);

}  // namespace clustersim
