#include <stdexcept>
#include <string>

#include "clustersim/component.h"
#include "timeshare/factories.h"
#include "timeshare/lp.h"

namespace clustersim {

namespace {
void check(const TimeShareProblem& p) {
  const std::size_t n = p.jobs();
  if (p.types <= 0 || p.capacity.size() != static_cast<std::size_t>(p.types) ||
      p.throughput.size() != n * static_cast<std::size_t>(p.types) ||
      (!p.weight.empty() && p.weight.size() != n) ||
      (!p.remaining.empty() && p.remaining.size() != n) ||
      (!p.elapsed.empty() && p.elapsed.size() != n) ||
      (!p.total_steps.empty() && p.total_steps.size() != n))
    throw std::invalid_argument("time share problem: inconsistent sizes");
}
}  // namespace

TimeShare solve_time_share(std::string_view policy, const TimeShareProblem& problem) {
  check(problem);
  const ComponentDescriptor* d = find_component(ComponentKind::kDecider, policy);
  if (!d || !d->factory.time_share)
    throw std::invalid_argument("unknown time-share policy '" + std::string(policy) + "'");
  if (problem.jobs() == 0) return TimeShare{true, {}, 0.0, 0};
  return d->factory.time_share(problem);
}

std::vector<std::string> time_share_policy_names() {
  std::vector<std::string> names;
  for (const ComponentDescriptor* d : components(ComponentKind::kDecider))
    if (d->factory.time_share) names.push_back(d->name);
  return names;
}

std::vector<std::string> time_share_tie_break_policies() {
  return {"max_min_fairness",          "max_min_fairness_perf", "finish_time_fairness",
          "finish_time_fairness_perf", "min_total_duration",    "min_total_duration_perf"};
}

namespace timeshare {

std::vector<double> tie_break_objective(int types, const std::vector<double>& thr,
                                        const std::vector<double>& k) {
  const auto n = static_cast<std::size_t>(types);
  std::vector<double> objective(thr.size(), 0.0);
  for (std::size_t j = 0; j < k.size(); ++j)
    for (std::size_t t = 0; t < n; ++t) objective[j * n + t] = k[j] * thr[j * n + t];
  return objective;
}

std::vector<double> tie_break_third(int types, const std::vector<double>& thr,
                                    const std::vector<double>* real, const std::vector<double>& k) {
  const auto n = static_cast<std::size_t>(types);
  std::vector<double> objective(thr.size(), 0.0);
  for (std::size_t j = 0; j < k.size(); ++j) {
    double fastest = 0.0;
    for (std::size_t t = 0; t < n; ++t) fastest = std::max(fastest, thr[j * n + t]);
    for (std::size_t t = 0; t < n; ++t)
      if (thr[j * n + t] > 0.0)
        objective[j * n + t] = real ? k[j] * (*real)[j * n + t] : -k[j] * fastest;
  }
  return objective;
}

std::vector<double> agnostic_throughputs(const TimeShareProblem& p, bool ones) {
  std::vector<double> thr = p.throughput;
  const auto types = static_cast<std::size_t>(p.types);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    double best = 0.0;
    for (std::size_t t = 0; t < types; ++t) best = std::max(best, thr[j * types + t]);
    for (std::size_t t = 0; t < types; ++t)
      if (thr[j * types + t] > 0.0) thr[j * types + t] = ones ? 1.0 : best;
  }
  return thr;
}

void run_tie_break_stages(TimeShareLp& lp, const std::vector<double>& second,
                          const std::vector<double>& third, TimeShare& stage, TimeShare& out) {
  if (lp.reoptimise(second, stage)) {
    out.x = stage.x;
    lp.fix_objective(kTieBreakTolerance);
    if (lp.reoptimise(third, stage)) out.x = stage.x;
  }
  out.lps = stage.lps;
}

}  // namespace timeshare

}  // namespace clustersim
