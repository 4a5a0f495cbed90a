// Gavel's policy family as LPs over jobs x GPU types (time_share.h), on cases solved by hand.
#include "clustersim/time_share.h"

#include <gtest/gtest.h>

namespace clustersim {
namespace {

// Type a: 1 GPU; type b: 2 GPUs (G = 3). Job 0 runs 4 steps/s on a and 1 on b; job 1 runs 2
// and 1. One GPU each.
TimeShareProblem two_types() {
  TimeShareProblem p;
  p.types = 2;
  p.capacity = {1, 2};
  p.throughput = {4, 1, 2, 1};
  p.gpus = {1, 1};
  return p;
}

// Max-min (perf): prop_0 = (4 x 1 + 1 x 2) / 3 = 2, prop_1 = (2 + 2) / 3 = 4/3. Both jobs use
// all their time (rows bind; b has room to spare); with p = X[0][a] and q = X[1][a] = 1 - p
// (a binds), job 0 gets (4p + (1 - p)) / 2 = (1 + 3p) / 2 and job 1 (2q + (1 - q)) / (4/3) =
// 0.75 (2 - p). Equal at 1 + 3p = 3 - 1.5p: p = 4/9, z = 7/6.
TEST(TimeShare, TwoTypeMaxMinAllocationInClosedForm) {
  // (The optimum is unique; the tie-break keeps z to 1e-7 relative, so X moves by up to ~1e-7.)
  const TimeShare s = solve_time_share("max_min_fairness_perf", two_types());
  ASSERT_TRUE(s.optimal);
  EXPECT_NEAR(s.objective, 7.0 / 6.0, 1e-9);
  EXPECT_NEAR(s.x[0], 4.0 / 9.0, 1e-6);  // job 0 on a
  EXPECT_NEAR(s.x[1], 5.0 / 9.0, 1e-6);  // job 0 on b
  EXPECT_NEAR(s.x[2], 5.0 / 9.0, 1e-6);  // job 1 on a
  EXPECT_NEAR(s.x[3], 4.0 / 9.0, 1e-6);  // job 1 on b
  // Priority weight 2 on job 0: (1 + 3p) / 4 = 0.75 (2 - p): p = 5/6, z = 7/8.
  TimeShareProblem weighted = two_types();
  weighted.weight = {2.0, 1.0};
  const TimeShare w = solve_time_share("max_min_fairness_perf", weighted);
  EXPECT_NEAR(w.objective, 7.0 / 8.0, 1e-9);
  EXPECT_NEAR(w.x[0], 5.0 / 6.0, 1e-6);
}

TEST(TimeShare, AJobNeverGetsTimeOnATypeItCannotRunOn) {
  TimeShareProblem p = two_types();
  p.throughput = {4, 0, 2, 1};  // job 0 cannot run on b
  for (const std::string& policy : time_share_policy_names()) {
    SCOPED_TRACE(policy);
    p.remaining = {100, 100};
    p.elapsed = {0, 0};
    p.total_steps = {100, 100};
    const TimeShare s = solve_time_share(policy, p);
    if (policy == "isolated") continue;  // equal shares by construction, whatever the speeds
    EXPECT_EQ(s.x[1], 0.0);
  }
}

// Min total duration (perf), exact: with s = 1/T, job 0 needs 4p + (1 - p) >= 300 s... With 300
// steps left for job 0 and 100 for job 1 and the rows binding as above: job 0 runs 1 + 3p,
// job 1 2(1 - p) + p = 2 - p steps/s; T = max(300 / (1 + 3p), 100 / (2 - p)) is smallest where
// they meet: 300 (2 - p) = 100 (1 + 3p): p = 5/6, T = 300 / 3.5.
TEST(TimeShare, MinTotalDurationIsExact) {
  TimeShareProblem p = two_types();
  p.remaining = {300, 100};
  const TimeShare s = solve_time_share("min_total_duration_perf", p);
  EXPECT_NEAR(1.0 / s.objective, 300.0 / 3.5, 1e-6);
  EXPECT_NEAR(s.x[0], 5.0 / 6.0, 1e-6);
  EXPECT_EQ(s.lps, 3);  // one LP, and the tie-break's two stages
  p.tie_break = false;
  EXPECT_EQ(solve_time_share("min_total_duration_perf", p).lps, 1);
}

TEST(TimeShare, FifoPerfTakesTheFastestTypeWithRoomInArrivalOrder) {
  TimeShareProblem p = two_types();
  p.throughput = {4, 1, 2, 1.5};
  p.gpus = {1, 2};  // job 1 needs both b GPUs
  const TimeShare s = solve_time_share("fifo_perf", p);
  EXPECT_EQ(s.x, (std::vector<double>{1, 0, 0, 1}));  // job 0 on a; job 1 on b (a is taken)
}

// Finish-time fairness (perf): both jobs new (elapsed 0), 100 steps each. Isolated shares:
// cap / n = (1/2, 1) of (a, b), scaled to sum 1: (1/3, 2/3); isolated throughputs 2 (job 0:
// 4/3 + 2/3) and 4/3 (job 1): isolated times 50 and 75. rho_j = (100 / thr_j) / iso_j; with p
// as above, thr_0 = 1 + 3p and thr_1 = 2 - p: rho_0 = 2 / (1 + 3p), rho_1 = 4 / (3 (2 - p)),
// equal at 6 (2 - p) = 4 (1 + 3p): p = 4/9, rho = 6/7.
TEST(TimeShare, FinishTimeFairnessByBisection) {
  TimeShareProblem p = two_types();
  p.remaining = {100, 100};
  p.total_steps = {100, 100};
  p.elapsed = {0, 0};
  const TimeShare s = solve_time_share("finish_time_fairness_perf", p);
  EXPECT_NEAR(s.objective, 6.0 / 7.0, 1e-5);
  EXPECT_NEAR(s.x[0], 4.0 / 9.0, 1e-4);
  EXPECT_NEAR(s.x[0] + s.x[1], 1.0, 1e-4);
}

// 300 identical one-GPU jobs on 50 GPUs of each of three types (1, 2.5 and 4 steps/s) with
// millions of steps left (1e6 (1 + (j mod 7) / 7)). Sharing every type among the jobs in
// proportion to their steps left finishes them all at once, each using (150 / sum R) R_j <= 1 of
// its time (R_j <= 2e6 <= sum R / 150), with all 150 GPUs busy, which nothing beats: 1 / T =
// 50 (1 + 2.5 + 4) / sum R. (Unscaled, CLP stopped 42% short of this.)
TEST(TimeShare, MinTotalDurationIsExactWithMillionsOfSteps) {
  TimeShareProblem p;
  p.types = 3;
  p.capacity = {50, 50, 50};
  double sum = 0.0;
  for (int j = 0; j < 300; ++j) {
    p.throughput.insert(p.throughput.end(), {1.0, 2.5, 4.0});
    p.gpus.push_back(1);
    p.remaining.push_back(1e6 * (1.0 + (j % 7) / 7.0));
    sum += p.remaining.back();
  }
  const TimeShare s = solve_time_share("min_total_duration_perf", p);
  ASSERT_TRUE(s.optimal);
  EXPECT_NEAR(s.objective * sum / (50 * 7.5), 1.0, 1e-7);
}

// The two-job case above with a million steps each (rho does not depend on the unit): 6/7, in
// a few LPs (each gives a feasible rho and a cut below the optimum), where bisection took 21.
TEST(TimeShare, FinishTimeFairnessBracketsWithCutsInFewLps) {
  TimeShareProblem p = two_types();
  p.remaining = {1e6, 1e6};
  p.total_steps = {1e6, 1e6};
  p.elapsed = {0, 0};
  const TimeShare s = solve_time_share("finish_time_fairness_perf", p);
  EXPECT_NEAR(s.objective, 6.0 / 7.0, 1e-6);
  EXPECT_GE(s.objective, 6.0 / 7.0 - 1e-9);  // the top of the bracket: achieved by s.x
  EXPECT_NEAR(s.x[0], 4.0 / 9.0, 1e-4);
  EXPECT_LE(s.lps, 6);
}

// A job with nothing left keeps the rho it has: job 0 (elapsed 100 s, isolated time 50 s as
// above) is at rho 2 whatever it gets; job 1 can do far better (at most 100 / 2 / 75 = 2/3), so
// the largest rho is 2.
TEST(TimeShare, FinishTimeFairnessCountsAJobWithNothingLeftAtItsElapsedTime) {
  TimeShareProblem p = two_types();
  p.remaining = {0, 100};
  p.total_steps = {100, 100};
  p.elapsed = {100, 0};
  const TimeShare s = solve_time_share("finish_time_fairness_perf", p);
  EXPECT_NEAR(s.objective, 2.0, 2e-6);
  EXPECT_GE(s.objective, 2.0 - 1e-9);
}

// The tie-break (time_share.h) on a min-total-duration optimum that is not unique. One type of 2
// GPUs; job L (1 GPU) has 300 steps left, job S (2 GPUs) 100, both at 1 step/s. L can run at
// most all of its time, so T >= 300, and T = 300 pins X_L = 1; S then needs X_S >= 100 / 300 =
// 1/3 and fits up to X_S = (2 - 1) / 2 = 1/2: every X_S in [1/3, 1/2] is optimal (1/3 paces S to
// the makespan). The tie-break maximises X_L / 300 + X_S / 100: X_S = 1/2, the GPU left over,
// so S finishes at 200 s. The agnostic form (one type: the same LP) picks the same.
TEST(TimeShare, TieBreakGivesTheShortJobTheRestOfTheGpuTime) {
  TimeShareProblem p;
  p.types = 1;
  p.capacity = {2};
  p.throughput = {1, 1};
  p.gpus = {1, 2};
  p.remaining = {300, 100};
  for (const std::string policy : {"min_total_duration_perf", "min_total_duration"}) {
    SCOPED_TRACE(policy);
    p.tie_break = true;
    const TimeShare s = solve_time_share(policy, p);
    ASSERT_TRUE(s.optimal);
    EXPECT_NEAR(1.0 / s.objective, 300.0, 1e-6);
    EXPECT_NEAR(s.x[0], 1.0, 1e-6);
    EXPECT_NEAR(s.x[1], 0.5, 1e-6);
    p.tie_break = false;  // some optimum: T = 300 with X_S anywhere in [1/3, 1/2]
    const TimeShare first = solve_time_share(policy, p);
    EXPECT_NEAR(1.0 / first.objective, 300.0, 1e-6);
    EXPECT_GE(first.x[1], 1.0 / 3.0 - 1e-6);
    EXPECT_LE(first.x[1], 0.5 + 1e-6);
  }
}

// The same for max-min (perf): one type of 3 GPUs, job A on 1 GPU, job B on 2, equal speeds.
// Normalised throughputs (prop_j = thr_j: one type) are X_A and 2 X_B; A's is at most 1, so
// z = 1 pins X_A = 1, and B may have any X_B in [1/2, 1] (capacity: 1 + 2 X_B <= 3). The
// tie-break maximises X_A + 2 X_B: X_B = 1, every GPU busy.
TEST(TimeShare, TieBreakGivesMaxMinsSlackJobEverythingThatFits) {
  TimeShareProblem p;
  p.types = 1;
  p.capacity = {3};
  p.throughput = {2, 2};
  p.gpus = {1, 2};
  for (const std::string policy : {"max_min_fairness_perf", "max_min_fairness"}) {
    SCOPED_TRACE(policy);
    const TimeShare s = solve_time_share(policy, p);
    ASSERT_TRUE(s.optimal);
    EXPECT_NEAR(s.objective, 1.0, 1e-6);
    EXPECT_NEAR(s.x[0], 1.0, 1e-6);
    EXPECT_NEAR(s.x[1], 1.0, 1e-6);
  }
}

}  // namespace
}  // namespace clustersim
