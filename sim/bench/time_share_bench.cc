// Gavel's policies as LPs (time_share.h): the time to solve one allocation of 1,000 jobs over 3
// GPU types (target: < 50 ms for the LP policies): per policy, the best wall time of 5 solves and
// the median of their thread CPU times (CLP runs on one thread; on a shared machine the CPU time
// is the steadier of the two).
//   build/bin/clustersim_time_share_bench [jobs] [--cold] [--no-tie-break]
// --cold: every LP starts from CLP's slack basis (no price crash, timeshare/price_crash.h): the
// code path before the crash, for before/after comparisons. --no-tie-break: the LP policies
// return their first optimal vertex (time_share.h's tie-break off), as before the tie-break.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "clustersim/time_share.h"
#include "timeshare/lp.h"

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

double thread_cpu_ms() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) * 1e-6;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace clustersim;
  int jobs = 1000;
  bool cold = false, tie_break = true;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--cold")
      cold = true;
    else if (std::string(argv[i]) == "--no-tie-break")
      tie_break = false;
    else
      jobs = std::atoi(argv[i]);
  }
  timeshare::TimeShareLp::set_crash_enabled(!cold);
  for (const int classes : {80, 0}) {
    TimeShareProblem p = problem(jobs, classes);
    p.tie_break = tie_break;
    std::printf("%d jobs, 3 types, %s%s%s\n", jobs,
                classes > 0 ? "80 job kinds (as Gavel's traces)" : "every job different",
                cold ? " (cold: slack basis)" : "", tie_break ? "" : " (no tie-break)");
    std::printf("  %-28s %10s %12s %6s %18s\n", "policy", "ms (best)", "CPU ms (med)", "LPs",
                "objective");
    for (const std::string& policy : time_share_policy_names()) {
      double best = 1e30;
      std::vector<double> cpu;
      int lps = 0;
      double objective = 0.0;
      for (int run = 0; run < 5; ++run) {
        const auto start = std::chrono::steady_clock::now();
        const double cpu_start = thread_cpu_ms();
        const TimeShare s = solve_time_share(policy, p);
        cpu.push_back(thread_cpu_ms() - cpu_start);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        best = std::min(best, ms);
        lps = s.lps;
        objective = s.objective;
        if (!s.optimal) std::printf("  %s: not optimal\n", policy.c_str());
      }
      std::sort(cpu.begin(), cpu.end());
      std::printf("  %-28s %10.2f %12.2f %6d %18.10g\n", policy.c_str(), best, cpu[cpu.size() / 2],
                  lps, objective);
    }
  }
}
