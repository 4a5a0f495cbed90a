// A starting basis for the time-share LPs (lp.h) of the form
//   maximise c z  subject to, for every job j,
//     a_j . X_j >= alpha_j + beta_j z   (its policy row; beta_j >= 0),
//     sum_t X_j,t <= 1                  (its time),
//   and for every type t  sum_j use_j,t X_j,t <= C_t  (capacity),  X >= 0, z >= z_lower,
// which is max-min fairness (alpha 0, beta 1), min total duration (alpha 0, beta_j its scaled
// steps left) and each of finish-time fairness's LPs (alpha_j its scaled demand, beta 1).
//
// Only the few capacity rows couple the jobs. With prices lambda_t >= 0 on them the LP splits
// into one tiny LP per job: the cheapest way to give job j a throughput d within its time is
// on the lower convex hull of the origin and the points (a_j,t, lambda_t use_j,t), so the
// Lagrangian dual L(lambda) = lambda . C + max_z [c z - sum_j cost_j(lambda, alpha_j + beta_j z)]
// is evaluated exactly in O(n log n) (one sweep over the hulls' breakpoints in z), with a
// subgradient from the jobs' responses. Its minimum over lambda (the LP's optimum, by LP
// duality) is found by Kelley's cutting planes on a master LP of `types` + 1 columns; at those
// prices each job's hull segment names its basic columns and binding rows. CLP then starts
// from that basis and solves the LP exactly: the crash only decides where the simplex starts
// (a few pivots from the optimal basis instead of ~2 per job from the slack basis).
#pragma once

#include <utility>
#include <vector>

namespace clustersim::timeshare {

struct PriceCrashInput {
  int types = 0;
  std::vector<double> capacity;     // C_t
  std::vector<double> a, use;       // jobs x types, row-major; a = 0 where X_j,t is fixed at 0
  std::vector<double> alpha, beta;  // per job
  std::vector<char> has_row;        // false: the job has no policy row (X_j = 0 is optimal)
  double objective = 1.0;           // c > 0
  double z_lower = 0.0;             // may be -infinity (a very negative number)
  std::size_t jobs() const { return alpha.size(); }
};

// A job's part of the starting basis.
enum class JobStart : unsigned char {
  kIdle,   // needs nothing: X_j = 0, both rows slack
  kOne,    // on `first` alone: X_j,first basic, time row slack, policy row binding
  kTwo,    // mixes `first` and `second`: both basic, both rows binding
  kShort,  // cannot reach its demand: X_j,first (its fastest) basic, policy row slack
};

struct PriceCrash {
  std::vector<double> price;  // lambda_t
  double z = 0.0;             // the LP's optimum estimated as the dual bound / c
  double bound = 0.0;         // min over the visited prices of L: >= the LP's optimum
  int cuts = 0;               // Lagrangian evaluations
  std::vector<JobStart> start;
  std::vector<int> first, second;  // types (-1: none)
  // A vertex has as many basics as rows; the cases above give each job as many as its rows, z
  // one, and each type without a price its capacity row's slack, which leaves one basic short
  // for each priced type but one. Those are jobs split at a tie: X_j,t basic besides the case's,
  // for the (job, type) pairs nearest to a tie at the prices (one per job).
  std::vector<std::pair<std::size_t, int>> split;
};

// False where the form does not apply (z unbounded above, a demand that no z can meet, a job
// with beta 0 and positive alpha, no positive capacity) or the master LP fails; then no basis.
bool price_crash(const PriceCrashInput& in, PriceCrash& out);

}  // namespace clustersim::timeshare
