// A parsed config's workload (config.h, load_workload): read or generated, checked against the
// throughput model's inputs and the serving catalog, and scaled in time; the key a read trace
// is shared under (trace_read_key).
#include <algorithm>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/serving_catalog.h"
#include "clustersim/steady_state.h"
#include "clustersim/throughput_table.h"

namespace clustersim {

namespace {

// [workload] target_load: the time scale that makes the jobs' offered load (GPUs x durations over
// the cluster's GPUs x their arrival span) the target; scaling arrivals by s divides it by s.
double target_load_scale(const RunConfig& config, std::span<const JobSpec> jobs) {
  const std::string where = config.workload.trace_path.value_or(config.source_name);
  if (jobs.empty()) throw InputError(where, 0, "workload.target_load", "the workload has no jobs");
  double first = jobs.front().submit_time, last = first;
  for (const JobSpec& job : jobs) {
    first = std::min(first, job.submit_time);
    last = std::max(last, job.submit_time);
  }
  const double load = offered_load(jobs, config.sim.cluster.total_gpus(), first, last);
  if (!(load > 0.0))
    throw InputError(where, 0, "workload.target_load",
                     "the workload offers no load to scale (all arrivals at one time, no GPU "
                     "work, or no GPUs)");
  return load / config.workload.target_load;
}

}  // namespace

Workload load_workload(const RunConfig& config) {
  Workload workload;
  if (config.workload.generator) {
    try {
      workload = generate_workload(*config.workload.generator);
    } catch (const std::invalid_argument& error) {
      throw InputError(config.source_name, 0, "workload", error.what());
    }
  } else {
    workload =
        read_trace(*config.workload.trace_path, config.workload.format, config.workload.reader);
    if (config.workload.window && config.workload.window->last >= workload.jobs.size())
      throw InputError(config.source_name, config.workload.window_line, "workload.window",
                       "the window [" + std::to_string(config.workload.window->first) + ", " +
                           std::to_string(config.workload.window->last) + "] reaches beyond the " +
                           std::to_string(workload.jobs.size()) + " jobs of " +
                           *config.workload.trace_path);
  }
  if (config.profiles)
    check_profile_coverage(*config.profiles, workload.jobs, config.profile_options,
                           config.workload.trace_path.value_or(config.source_name));
  if (config.throughput_table) {
    std::vector<std::string> types;
    for (const NodeGroupSpec& group : config.sim.cluster.groups)
      if (std::find(types.begin(), types.end(), group.gpu_type) == types.end())
        types.push_back(group.gpu_type);
    check_table_coverage(*config.throughput_table, workload.jobs, types, config.table_options,
                         config.workload.trace_path.value_or(config.source_name));
  }
  // A DAG workload's models must be in the catalog and fit some GPU: say so now, naming the row.
  if (workload.dag) serving_setup(config, workload);
  double time_scale = config.workload.time_scale;
  if (config.workload.target_load > 0.0) time_scale = target_load_scale(config, workload.jobs);
  if (time_scale != 1.0)
    for (JobSpec& job : workload.jobs) job.submit_time *= time_scale;
  return workload;
}

std::string trace_read_key(const RunConfig& config) {
  const ReaderOptions& reader = config.workload.reader;
  std::ostringstream key;
  key.precision(17);
  key << trace_format_name(config.workload.format) << ':' << config.workload.trace_path.value_or("")
      << ':' << reader.skip_invalid << static_cast<int>(reader.failed_pods)
      << static_cast<int>(reader.censored_pods) << reader.every_pod
      << static_cast<int>(reader.cpu_only_pods) << reader.gpu_shares << ':'
      << reader.gavel_throughputs_path << ':' << reader.gavel_gpu_type << ':'
      << config.workload.time_scale;
  // target_load's scale depends on the cluster's GPUs too.
  if (config.workload.target_load > 0.0)
    key << ':' << config.workload.target_load << ':' << config.sim.cluster.total_gpus();
  return key.str();
}

void count_row_changes(const Workload& workload, RunMetrics& metrics) {
  for (const Workload::RowChange& change : workload.row_changes)
    (change.dropped ? metrics.trace_rows_dropped : metrics.trace_rows_changed) += change.rows;
}

ServingSetup serving_setup(const RunConfig& config, const Workload& workload) {
  if (!config.workload.serving_catalog)
    throw InputError(config.source_name, 0, "workload",
                     "a DAG workload needs format = \"dag\" or generator = \"query_dag\"");
  return make_serving_setup(workload, config.sim.cluster, *config.workload.serving_catalog,
                            config.workload.trace_path.value_or(config.source_name));
}

}  // namespace clustersim
