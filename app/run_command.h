// `clustersim run`: simulate one configuration and write its results.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clustersim::app {

struct RunArguments {
  std::string config_path;  // empty: the built-in example
  std::vector<std::string> overrides;
  bool json = false;
  std::string jobs_out;
  std::string timeseries_out;
  // --whole-run: write every job and sample (warm-up and drain too, with a `measured` column),
  // not only the measured ones.
  bool whole_run = false;
  // --point N: `config_path` is a sweep grid; run its point N exactly as the sweep runs it (the
  // point's axis values and derived seed), e.g. to reproduce or inspect one point of a sweep.
  std::optional<std::uint64_t> point;
  // "text" or "markdown": print every config key (options.h) instead of running.
  std::string list_keys;
};

// Returns the exit status; input errors propagate as exceptions (main maps them to statuses).
int run_command(const RunArguments& args);

}  // namespace clustersim::app
