// [supply]'s traces (energy_traces.cc): grid carbon intensity and solar irradiance, each as a
// StepSeries (power.h). InputError (FILE:LINE: column: message) on a malformed file.
#pragma once

#include <string>
#include <vector>

#include "clustersim/power.h"

namespace clustersim::io_internal {

// An Electricity Maps hourly CSV; `column`: "direct" or "lca".
StepSeries read_carbon_trace(const std::string& path, const std::string& column);
// A job values table: job_id,value[,deadline_s][,deferrable].
std::vector<JobValue> read_job_values(const std::string& path);
// An NSRDB PSM4 CSV: its ghi_w_m2 column.
StepSeries read_irradiance_trace(const std::string& path);

}  // namespace clustersim::io_internal
