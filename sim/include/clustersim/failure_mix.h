// Failure mixes ([mechanisms] failure_mix): interruption counts by component over an exposure,
// in the shape of Meta's Llama 3 table (../shared/reference/llama3_interruptions.csv):
//
//   component,category,interruptions,percent
//   Faulty GPU,GPU,148,30.1
//   Network Switch/Cable,Network,35,8.4
//
// `component` and `interruptions` are required; `category` and `percent` may be there (percent
// is ignored: the counts decide); an optional `cause` column names a FailureCause ("gpu",
// "switch", ...) and wins over the names. Without it a row's cause comes from its component and
// category (classify_failure_component). Blank lines and lines starting with '#' are ignored. A
// malformed row or one no cause fits is an InputError naming the file, line and field.
#pragma once

#include <cstddef>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "clustersim/mechanisms.h"

namespace clustersim {

struct FailureMixRow {
  std::string component;
  FailureCause cause = FailureCause::kGpu;
  double count = 0.0;
  std::size_t source_line = 0;
};

std::vector<FailureMixRow> read_failure_mix(std::istream& in, const std::string& source_name);
std::vector<FailureMixRow> load_failure_mix(const std::string& path);

// A cause from Llama 3's component and category names (case-insensitive): GPU memory (HBM,
// SRAM, or memory in the GPU category), GPU (the rest of that category), NIC, network switches
// and cables (the Network category), power domains (the Power category), planned maintenance
// (a category or component naming planned, not unplanned, maintenance), host (the Host category
// and unplanned maintenance), software (Dependency, Software, Unknown). nullopt when none fits.
std::optional<FailureCause> classify_failure_component(std::string_view component,
                                                       std::string_view category);

// What the counts of a mix were seen over: `days` on `gpus` GPUs in nodes of `gpus_per_node`,
// `nodes_per_rack` to a rack, `nodes_per_leaf` under a leaf switch (0: a rack's), with one job
// running all along.
struct FailureExposure {
  double days = 0.0;
  double gpus = 0.0;
  int gpus_per_node = 8;
  int nodes_per_rack = 32;
  double nodes_per_leaf = 0.0;
};

// The rate per unit-hour a count over the exposure is, for a class of `unit`: count / (units
// of the exposure x its hours), where a job-hour exposure is one job over its hours.
double failure_rate_per_unit_h(double count, FailureUnit unit, const FailureExposure& exposure);

// Sets the rates of `classes` from the mix: the counts summed by cause, each converted with its
// class's unit. A cause the mix has and `classes` lacks is added with its default unit and
// `repair_h`; a class whose rate is already set (> 0) keeps it. `classes` ends sorted by cause.
void apply_failure_mix(std::span<const FailureMixRow> rows, const FailureExposure& exposure,
                       double repair_h, std::vector<FailureClass>& classes);

}  // namespace clustersim
