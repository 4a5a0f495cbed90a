#include "decider/time_share_common.h"

#include <algorithm>
#include <cmath>
#include <string>

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

namespace {

// When the cluster can give every active job all of its time at once, each on one type (its
// fastest for the _perf forms; for the agnostic ones, blind to speed, the type with most GPUs
// left), that allocation is the one Pareto-efficient optimum of every LP with a tie-break: no job
// can get more. The first optimal vertex the LP returns without the tie-break (tie_break =
// "none") need not be it: max-min pins only the worst-off jobs and may leave others below a
// whole share although GPUs stay idle (measured: under rounds = "exact" on a cluster large
// enough for every job, JCTs up to 1.465x the jobs' durations). So there it is given directly:
// on success problem.throughput is overwritten with the allocation (jobs x types: 1 on the
// job's type, 0 elsewhere). Jobs are placed largest first; false when they do not all fit (the
// LP decides).
bool whole_time_fits(const std::string& policy, TimeShareProblem& problem) {
  const auto& with_tie_break = time_share_tie_break_policies();
  if (std::find(with_tie_break.begin(), with_tie_break.end(), policy) == with_tie_break.end())
    return false;
  const bool perf = policy.ends_with("_perf");
  const std::size_t n = problem.jobs();
  const auto types = static_cast<std::size_t>(problem.types);
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return problem.gpus[a] > problem.gpus[b]; });
  std::vector<int> left = problem.capacity;
  std::vector<int> chosen(n, -1);
  for (std::size_t i : order) {
    const double* thr = &problem.throughput[i * types];
    double fastest = 0.0;
    for (std::size_t t = 0; t < types; ++t) fastest = std::max(fastest, thr[t]);
    if (!(fastest > 0.0)) return false;
    int best = -1;
    for (std::size_t t = 0; t < types; ++t) {
      const bool eligible = perf ? thr[t] == fastest : thr[t] > 0.0;
      if (eligible && left[t] >= problem.gpus[i] &&
          (best < 0 || left[t] > left[static_cast<std::size_t>(best)]))
        best = static_cast<int>(t);
    }
    if (best < 0) return false;
    left[static_cast<std::size_t>(best)] -= problem.gpus[i];
    chosen[i] = best;
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t t = 0; t < types; ++t)
      problem.throughput[i * types + t] = static_cast<int>(t) == chosen[i] ? 1.0 : 0.0;
  return true;
}

}  // namespace

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
  if (!problem.tie_break && whole_time_fits(options.scheduler.policy, problem)) {
    const auto per_job = static_cast<std::size_t>(types);
    for (std::size_t i = 0; i < active.size(); ++i)
      for (std::size_t t = 0; t < per_job; ++t)
        allocation[active[i] * per_job + t] = problem.throughput[i * per_job + t];
    return;
  }
  const TimeShare shares = solve_time_share(options.scheduler.policy, problem);
  const auto per_job = static_cast<std::size_t>(types);
  for (std::size_t i = 0; i < active.size(); ++i)
    for (std::size_t t = 0; t < per_job; ++t)
      allocation[active[i] * per_job + t] = shares.x.empty() ? 0.0 : shares.x[i * per_job + t];
}

bool start_on_type(Host& host, PlacementStage& placement, std::uint32_t job, int type,
                   std::vector<NodeShare>& shares, Plan& plan, bool continues_lease) {
  const View& view = host.view();
  PlacementRequest request = PlacementStage::base_request(view.jobs()[job]);
  request.job = job;
  request.gpu_type = type;
  if (!placement.place(request, shares)) return false;
  plan.clear();
  plan.set(job);
  for (const NodeShare& share : shares)
    plan.add_grant(view.cluster().grant_for(share.node, request, share.gpus));
  if (continues_lease) plan.continue_lease();
  host.apply(plan);
  return true;
}

}  // namespace clustersim::internal
