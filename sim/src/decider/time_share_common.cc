#include "decider/time_share_common.h"

#include <algorithm>
#include <cmath>

#include "clustersim/time_share.h"

namespace clustersim::internal {

double steps_per_second(const View& view, std::uint32_t job, int type) {
  const JobSpec& spec = *view.jobs()[job].spec;
  const double steps = spec.steps > 0.0 ? spec.steps : spec.duration;
  return view.type_speed(job, type) * steps / spec.duration;
}

double steps_left(const View& view, std::uint32_t job) {
  const JobState& state = view.jobs()[job];
  const JobSpec& spec = *state.spec;
  if (spec.steps <= 0.0) return state.remaining_at(view.now());
  // Gavel's rounds stop jobs at whole steps; rounds = "exact" stops them mid-step, and a job
  // with part of a step left still needs that step (rounded to 0 steps, the LPs would owe it
  // nothing and it would never run again). Asked only of jobs not yet done.
  return std::max(1.0, std::round(state.remaining_at(view.now()) * spec.steps / spec.duration));
}

void solve_allocation(const View& view, const SimOptions& options,
                      std::span<const std::uint32_t> active, std::vector<double>& allocation) {
  const ClusterState& cluster = view.cluster();
  const int types = static_cast<int>(cluster.gpu_type_names().size());
  const Time now = view.now();
  TimeShareProblem problem;
  problem.types = types;
  problem.tie_break = options.scheduler.tie_break != "none";
  for (int t = 0; t < types; ++t) problem.capacity.push_back(cluster.total_gpus(t));
  for (std::uint32_t job : active) {
    const JobState& state = view.jobs()[job];
    for (int t = 0; t < types; ++t) problem.throughput.push_back(steps_per_second(view, job, t));
    problem.gpus.push_back(state.requested_gpus);
    problem.weight.push_back(state.spec->weight);
    problem.remaining.push_back(steps_left(view, job));
    problem.elapsed.push_back(now - state.submit);
    problem.total_steps.push_back(state.spec->steps > 0.0 ? state.spec->steps
                                                          : state.spec->duration);
  }
  const TimeShare shares = solve_time_share(options.scheduler.policy, problem);
  const auto per_job = static_cast<std::size_t>(types);
  for (std::size_t i = 0; i < active.size(); ++i)
    for (std::size_t t = 0; t < per_job; ++t)
      allocation[active[i] * per_job + t] = shares.x.empty() ? 0.0 : shares.x[i * per_job + t];
}

bool start_on_type(Host& host, PlacementStage& placement, std::uint32_t job, int type,
                   std::vector<NodeShare>& shares, Plan& plan) {
  const View& view = host.view();
  PlacementRequest request = PlacementStage::base_request(view.jobs()[job]);
  request.gpu_type = type;
  if (!placement.place(request, shares)) return false;
  plan.clear();
  plan.set(job);
  for (const NodeShare& share : shares)
    plan.add_grant(view.cluster().grant_for(share.node, request, share.gpus));
  host.apply(plan);
  return true;
}

}  // namespace clustersim::internal
