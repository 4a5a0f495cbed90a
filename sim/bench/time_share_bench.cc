// Gavel's policies as LPs (time_share.h): the time to solve one allocation of 1,000 jobs over 3
// GPU types (target: < 50 ms for the LP policies), best of 5 solves per policy.
//   build/bin/clustersim_time_share_bench [jobs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "clustersim/time_share.h"

namespace {

// `jobs` jobs over 3 types (k80, p100, v100), as many GPUs as jobs. With `classes` > 0, each job
// is one of that many job kinds (Gavel's traces: 26 job types x scale factors 1-8), else every
// job has speeds of its own (the worst case for the LPs: no two jobs alike).
clustersim::TimeShareProblem problem(int jobs, int classes) {
  clustersim::TimeShareProblem p;
  p.types = 3;
  p.capacity = {jobs / 3, jobs / 3, jobs - 2 * (jobs / 3)};
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> speed(0.5, 1.0);
  std::uniform_int_distribution<int> tenth(0, 9);
  struct Kind {
    double k80, p100, v100;
    int gpus;
  };
  const auto draw = [&] {
    const double v100 = 10 * speed(rng);  // v100 fastest, p100 ~half, k80 ~a fifth
    return Kind{tenth(rng) == 0 ? 0.0 : v100 * 0.2 * speed(rng), v100 * 0.5 * speed(rng), v100,
                tenth(rng) < 8 ? 1 : 2};  // one kind in ten cannot run on the k80
  };
  std::vector<Kind> kinds;
  for (int k = 0; k < classes; ++k) kinds.push_back(draw());
  std::uniform_int_distribution<int> pick(0, std::max(0, classes - 1));
  for (int j = 0; j < jobs; ++j) {
    const Kind kind = classes > 0 ? kinds[static_cast<std::size_t>(pick(rng))] : draw();
    p.throughput.insert(p.throughput.end(), {kind.k80, kind.p100, kind.v100});
    p.gpus.push_back(kind.gpus);
    p.weight.push_back(1.0);
    p.remaining.push_back(1e5 * speed(rng));
    p.total_steps.push_back(p.remaining.back() * 1.5);
    p.elapsed.push_back(1000 * speed(rng));
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace clustersim;
  const int jobs = argc > 1 ? std::atoi(argv[1]) : 1000;
  for (const int classes : {80, 0}) {
    const TimeShareProblem p = problem(jobs, classes);
    std::printf("%d jobs, 3 types, %s\n", jobs,
                classes > 0 ? "80 job kinds (as Gavel's traces)" : "every job different");
    std::printf("  %-28s %10s %6s %18s\n", "policy", "ms (best)", "LPs", "objective");
    for (const std::string& policy : time_share_policy_names()) {
      double best = 1e30;
      int lps = 0;
      double objective = 0.0;
      for (int run = 0; run < 5; ++run) {
        const auto start = std::chrono::steady_clock::now();
        const TimeShare s = solve_time_share(policy, p);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        best = std::min(best, ms);
        lps = s.lps;
        objective = s.objective;
        if (!s.optimal) std::printf("  %s: not optimal\n", policy.c_str());
      }
      std::printf("  %-28s %10.2f %6d %18.10g\n", policy.c_str(), best, lps, objective);
    }
  }
}
