// The time-share LPs' starting basis from Lagrangian prices (timeshare/price_crash.h): its
// prices and bound on a case solved by hand, and, on random instances, the same optimum as the
// code path without it (CLP from the slack basis), with allocations checked independently.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "clustersim/time_share.h"
#include "timeshare/lp.h"
#include "timeshare/price_crash.h"

namespace clustersim {
namespace {

using timeshare::JobStart;
using timeshare::PriceCrash;
using timeshare::PriceCrashInput;

// time_share_test.cc's two-type max-min case (type a: 1 GPU, b: 2; job 0 runs 4 and 1 steps/s,
// job 1 2 and 1): normalised rows a_0 = (4, 1) / prop_0 = (2, 1/2), a_1 = (2, 1) / (4/3) =
// (3/2, 3/4); optimum z = 7/6 with b not full. So b's price is 0 (b is free) and each job fills
// its time with b, buying the rest of z on a: job 0 at a's price per unit of a . X above 1/2 of
// lambda / (2 - 1/2), job 1 lambda / (3/2 - 3/4). The z-slope of the jobs' costs, lambda (2/3 +
// 4/3), equals z's objective 1 at lambda = 1/2; then L = 1/2 x 1 + 7/6 - (4/9 + 5/9) / 2 = 7/6.
TEST(TimeSharePriceCrash, PricesAndBoundOfATwoTypeMaxMinByHand) {
  PriceCrashInput in;
  in.types = 2;
  in.capacity = {1, 2};
  in.a = {2, 0.5, 1.5, 0.75};
  in.use = {1, 1, 1, 1};
  in.alpha = {0, 0};
  in.beta = {1, 1};
  in.has_row = {1, 1};
  PriceCrash crash;
  ASSERT_TRUE(timeshare::price_crash(in, crash));
  EXPECT_NEAR(crash.bound, 7.0 / 6.0, 1e-7);
  EXPECT_GE(crash.bound, 7.0 / 6.0 - 1e-12);  // a Lagrangian bound is never below the optimum
  EXPECT_NEAR(crash.price[0], 0.5, 1e-5);
  EXPECT_NEAR(crash.price[1], 0.0, 1e-5);
  for (int j = 0; j < 2; ++j) {
    SCOPED_TRACE(j);
    EXPECT_EQ(crash.start[static_cast<std::size_t>(j)], JobStart::kTwo);  // b, then a
    EXPECT_EQ(crash.first[static_cast<std::size_t>(j)], 1);
    EXPECT_EQ(crash.second[static_cast<std::size_t>(j)], 0);
  }
}

// A form the crash does not cover (z unbounded: no job's demand grows with z) is refused.
TEST(TimeSharePriceCrash, RefusesAnUnboundedZ) {
  PriceCrashInput in;
  in.types = 1;
  in.capacity = {1};
  in.a = {1};
  in.use = {1};
  in.alpha = {0};
  in.beta = {0};
  in.has_row = {1};
  PriceCrash crash;
  EXPECT_FALSE(timeshare::price_crash(in, crash));
}

// Random problems: 2-4 types, 5-400 jobs (from a few kinds or all different), some unable to
// run on a type, GPUs 1-4, weights, steps left and elapsed times; in one in five a type has no
// GPUs, in one in five the first job runs nowhere.
TimeShareProblem random_problem(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> types_of(2, 4), jobs_of(5, 400), gpus_of(1, 4);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  TimeShareProblem p;
  p.types = types_of(rng);
  const int jobs = jobs_of(rng);
  const double load = 0.3 + 1.5 * unit(rng);  // GPUs asked / GPUs there
  const int kinds = unit(rng) < 0.5 ? 1 + static_cast<int>(unit(rng) * 20) : jobs;
  std::vector<std::vector<double>> speeds;
  std::vector<int> gpus;
  for (int k = 0; k < kinds; ++k) {
    std::vector<double> s(static_cast<std::size_t>(p.types));
    for (double& v : s) v = unit(rng) < 0.1 ? 0.0 : 0.5 + 10 * unit(rng);
    s[static_cast<std::size_t>(k) % s.size()] = 1.0 + unit(rng);  // runs somewhere
    speeds.push_back(s);
    gpus.push_back(unit(rng) < 0.7 ? 1 : gpus_of(rng));
  }
  double asked = 0.0;
  for (int j = 0; j < jobs; ++j) {
    const auto k = static_cast<std::size_t>(j % kinds);
    p.throughput.insert(p.throughput.end(), speeds[k].begin(), speeds[k].end());
    p.gpus.push_back(gpus[k]);
    asked += gpus[k];
    p.weight.push_back(unit(rng) < 0.8 ? 1.0 : 1.0 + 3 * unit(rng));
    p.remaining.push_back(1e3 + 1e6 * unit(rng));
    p.total_steps.push_back(p.remaining.back() * (1.0 + unit(rng)));
    p.elapsed.push_back(1e4 * unit(rng));
  }
  const int total = std::max(p.types, static_cast<int>(asked / load));
  for (int t = 0; t < p.types; ++t) p.capacity.push_back(std::max(1, total / p.types + t - 1));
  // Edge cases now and then: a type without GPUs, a job that runs nowhere.
  if (unit(rng) < 0.2) p.capacity[static_cast<std::size_t>(p.types - 1)] = 0;
  if (unit(rng) < 0.2) std::fill(p.throughput.begin(), p.throughput.begin() + p.types, 0.0);
  return p;
}

TimeShare solve(const std::string& policy, const TimeShareProblem& p, bool crash) {
  timeshare::TimeShareLp::set_crash_enabled(crash);
  TimeShare s = solve_time_share(policy, p);
  timeshare::TimeShareLp::set_crash_enabled(true);
  return s;
}

// The allocation is in Gavel's polytope (to CLP's primal tolerance, 1e-7 on its scaled model:
// the tie-break's primal simplex leaves up to a few 1e-7 over a job's time or on a type without
// GPUs).
void expect_feasible(const TimeShareProblem& p, const TimeShare& s) {
  const auto types = static_cast<std::size_t>(p.types);
  std::vector<double> used(types, 0.0);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    double time = 0.0;
    for (std::size_t t = 0; t < types; ++t) {
      const double x = s.x[j * types + t];
      if (p.throughput[j * types + t] <= 0.0) {
        EXPECT_EQ(x, 0.0);
      }
      time += x;
      used[t] += p.gpus[j] * x;
    }
    EXPECT_LE(time, 1.0 + 1e-6) << time - 1.0;
  }
  for (std::size_t t = 0; t < types; ++t) EXPECT_LE(used[t], p.capacity[t] * (1.0 + 1e-7) + 1e-6);
}

// Max-min (perf): the objective is what the allocation gives its worst-off job.
double worst_normalised(const TimeShareProblem& p, const TimeShare& s) {
  const auto types = static_cast<std::size_t>(p.types);
  double total = 0.0;
  for (int c : p.capacity) total += c;
  double worst = 1e300;
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    double proportional = 0.0, got = 0.0;
    for (std::size_t t = 0; t < types; ++t) {
      proportional += p.throughput[j * types + t] * p.capacity[t] / total;
      got += p.gpus[j] * p.throughput[j * types + t] * s.x[j * types + t];
    }
    worst = std::min(worst, got / (p.weight[j] * proportional));
  }
  return worst;
}

// Min total duration (perf): 1 / the makespan the allocation achieves.
double inverse_makespan(const TimeShareProblem& p, const TimeShare& s) {
  const auto types = static_cast<std::size_t>(p.types);
  double worst = 1e300;
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    double rate = 0.0;
    for (std::size_t t = 0; t < types; ++t)
      rate += p.throughput[j * types + t] * s.x[j * types + t];
    worst = std::min(worst, rate / p.remaining[j]);
  }
  return worst;
}

TEST(TimeSharePriceCrash, SameOptimumAsTheSlackBasisOnRandomProblems) {
  std::mt19937_64 rng(20261127);
  const std::vector<std::string> policies = {"max_min_fairness",       "max_min_fairness_perf",
                                             "finish_time_fairness",   "finish_time_fairness_perf",
                                             "min_total_duration",     "min_total_duration_perf",
                                             "max_sum_throughput_perf"};
  for (int instance = 0; instance < 40; ++instance) {
    const TimeShareProblem p = random_problem(rng);
    for (const std::string& policy : policies) {
      SCOPED_TRACE(policy + " on instance " + std::to_string(instance) + " (" +
                   std::to_string(p.jobs()) + " jobs, " + std::to_string(p.types) + " types)");
      const TimeShare cold = solve(policy, p, false);
      const TimeShare warm = solve(policy, p, true);
      ASSERT_TRUE(cold.optimal);
      ASSERT_TRUE(warm.optimal);
      // Finish-time fairness returns the top of a bracket of 1e-6 relative width.
      const double tolerance = policy.rfind("finish_time", 0) == 0 ? 2e-6 : 1e-6;
      EXPECT_NEAR(warm.objective, cold.objective, tolerance * std::fabs(cold.objective) + 1e-12);
      expect_feasible(p, warm);
      if (policy == "max_min_fairness_perf") {  // (at least: a job that runs nowhere pins z at 0,
        // and the tie-break then serves the others, whose worst this counts)
        EXPECT_GE(worst_normalised(p, warm), warm.objective * (1 - 2e-7) - 1e-9);
      }
      if (policy == "min_total_duration_perf") {
        EXPECT_NEAR(inverse_makespan(p, warm), warm.objective, 1e-6 * warm.objective + 1e-12);
      }
    }
  }
}

// The tie-break (time_share.h) is start-independent: on the random problems above, each LP
// policy's allocation with the tie-break is the same (to 1e-4 per entry) whether its LPs start
// from the slack basis or from the price crash (each stage keeps the last one's optimum to 1e-7,
// which leaves the allocation that much freedom; the largest difference seen is ~7e-5), while
// without it the first optimal vertices
// differ; it keeps the policy's optimum (to the tie-break's 1e-7, and finish-time fairness's
// bracket) and never lowers the second stage's objective, the sum of the jobs' rates of progress
// (min total duration, finish-time fairness) or of their normalised throughputs (max-min), below
// what the first optimal vertex has.
TEST(TimeSharePriceCrash, TieBreakGivesTheSameAllocationFromBothStarts) {
  std::mt19937_64 rng(20261128);
  const std::vector<std::string> policies = time_share_tie_break_policies();
  int differed_without = 0;
  double largest = 0.0;
  for (int instance = 0; instance < 30; ++instance) {
    const TimeShareProblem p = random_problem(rng);
    const auto types = static_cast<std::size_t>(p.types);
    for (const std::string& policy : policies) {
      SCOPED_TRACE(policy + " on instance " + std::to_string(instance) + " (" +
                   std::to_string(p.jobs()) + " jobs, " + std::to_string(p.types) + " types)");
      const TimeShare cold = solve(policy, p, false);
      const TimeShare warm = solve(policy, p, true);
      TimeShareProblem off = p;
      off.tie_break = false;
      const TimeShare cold_off = solve(policy, off, false);
      const TimeShare warm_off = solve(policy, off, true);
      ASSERT_TRUE(cold.optimal);
      ASSERT_TRUE(warm.optimal);
      ASSERT_TRUE(warm_off.optimal);
      expect_feasible(p, warm);
      double gap = 0.0, gap_off = 0.0;
      for (std::size_t c = 0; c < warm.x.size(); ++c) {
        gap = std::max(gap, std::fabs(warm.x[c] - cold.x[c]));
        gap_off = std::max(gap_off, std::fabs(warm_off.x[c] - cold_off.x[c]));
      }
      EXPECT_LE(gap, 1e-4);
      largest = std::max(largest, gap);
      if (gap_off > 1e-3) ++differed_without;
      // The first stage's optimum is kept.
      const double tolerance = policy.rfind("finish_time", 0) == 0 ? 2e-6 : 1e-6;
      // (An optimum of 0, a job that runs nowhere, is ~1e-11 either way.)
      EXPECT_NEAR(warm.objective, warm_off.objective,
                  tolerance * std::fabs(warm_off.objective) + 1e-9);
      if (policy == "max_min_fairness_perf") {
        EXPECT_GE(worst_normalised(p, warm), warm_off.objective * (1 - 2e-7) - 1e-9);
      }
      if (policy == "min_total_duration_perf") {
        EXPECT_GE(inverse_makespan(p, warm), warm_off.objective * (1 - 2e-7) - 1e-12);
      }
      // The second stage's objective is at least the first optimal vertex's.
      if (policy.rfind("max_min", 0) == 0) continue;  // (its classes' sum: checked by hand)
      // (Agnostic: each job's fastest throughput on every type it can run on.)
      std::vector<double> thr = p.throughput;
      if (policy.find("_perf") == std::string::npos)
        for (std::size_t j = 0; j < p.jobs(); ++j) {
          double best = 0.0;
          for (std::size_t t = 0; t < types; ++t) best = std::max(best, thr[j * types + t]);
          for (std::size_t t = 0; t < types; ++t)
            if (thr[j * types + t] > 0.0) thr[j * types + t] = best;
        }
      const auto progress = [&](const TimeShare& s) {
        double sum = 0.0;
        for (std::size_t j = 0; j < p.jobs(); ++j)
          for (std::size_t t = 0; t < types; ++t)
            sum += thr[j * types + t] * s.x[j * types + t] / p.remaining[j];
        return sum;
      };
      EXPECT_GE(progress(warm), progress(warm_off) * (1 - 1e-6));
    }
  }
  EXPECT_GT(differed_without, 0);  // the starts do reach different optima without it
  std::printf("largest difference between the starts with the tie-break: %.3g\n", largest);
}

// The policies' LPs have the crash's form: it is used (not silently refused) on a random
// max-min LP (rows thr_j . X_j >= z), and CLP reaches the same optimum from it.
TEST(TimeSharePriceCrash, IsUsedOnTheMaxMinForm) {
  std::mt19937_64 rng(7);
  TimeShareProblem p = random_problem(rng);
  const auto types = static_cast<std::size_t>(p.types);
  timeshare::TimeShareLp lp(p);
  lp.set_extra(0.0, 1e30, 1.0);
  std::vector<double> row(types);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    for (std::size_t t = 0; t < types; ++t) row[t] = p.throughput[j * types + t];
    lp.add_job_row(j, row, -1.0, 0.0, 1e30);
  }
  TimeShare warm;
  ASSERT_TRUE(lp.maximise(warm));
  EXPECT_TRUE(lp.crashed());
  timeshare::TimeShareLp::set_crash_enabled(false);
  timeshare::TimeShareLp cold_lp(p);
  cold_lp.set_extra(0.0, 1e30, 1.0);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    for (std::size_t t = 0; t < types; ++t) row[t] = p.throughput[j * types + t];
    cold_lp.add_job_row(j, row, -1.0, 0.0, 1e30);
  }
  TimeShare cold;
  ASSERT_TRUE(cold_lp.maximise(cold));
  timeshare::TimeShareLp::set_crash_enabled(true);
  EXPECT_FALSE(cold_lp.crashed());
  EXPECT_NEAR(warm.objective, cold.objective, 1e-9 * cold.objective);
}

}  // namespace
}  // namespace clustersim
