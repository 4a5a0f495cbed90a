// Which run modes a config's keys can act in (config_run_modes.cc): keys of the other workload
// kind (training or serving DAGs), the placement study's keys, and a mixed config's serving
// side; each refusal names its key.
#pragma once

#include <toml++/toml.h>

#include "clustersim/config.h"
#include "clustersim/options.h"
#include "io/internal/config_reader.h"

namespace clustersim::io_internal {

// A key set for a workload kind it does not apply to would be ignored: refuse it, naming it.
void refuse_inapplicable(const ConfigParse& parse, const toml::table& root, WorkloadKind kind);
// The placement study's keys act only together: refused, naming the key, where one cannot act.
void check_placement_study(RunConfig& config, const toml::table& root);
// A mixed config ([serving] config beside a training workload): its serving config (its side
// files from `side_files` when not null), and what cannot act in a mixed run refused, naming
// the key.
void parse_mixed(RunConfig& config, const toml::table& root, SideFileCache* side_files);
// load_run_config with the config's side files from `side_files` (config.cc).
RunConfig load_run_config(const std::string& path, SideFileCache* side_files);

}  // namespace clustersim::io_internal
