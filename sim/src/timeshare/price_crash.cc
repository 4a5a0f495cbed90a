#include "timeshare/price_crash.h"

#include <ClpSimplex.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace clustersim::timeshare {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Lower convex hull of the origin and the points (a_t, price_t use_t) of the usable types, by
// increasing a (equal a: the cheaper); vertex 0 is the origin (type -1). Costs are >= 0 = the
// origin's, so the hull's slopes are >= 0 and increasing: cost(d), the cheapest way to get a
// throughput >= d within the job's time, is the hull at d for 0 < d <= the last vertex's a.
// With `room` (GPUs of each type not yet taken), ties at the prices (to 1e-6) go to the type
// with more room left, so that tied jobs spread over the types as capacity allows: two types of
// equal a and cost (heterogeneity-agnostic rows have one a on every type), and a vertex in line
// with its neighbours (a class of identical jobs indifferent between two types).
struct Hull {
  std::vector<double> a, cost;
  std::vector<int> type;
  std::vector<int> order;  // scratch
  void build(const PriceCrashInput& in, std::size_t j, const std::vector<double>& price,
             const std::vector<double>* room = nullptr) {
    const auto types = static_cast<std::size_t>(in.types);
    const auto share = [&](int t) {  // the part of type t's GPUs not yet taken
      const auto u = static_cast<std::size_t>(t);
      return (*room)[u] / in.capacity[u];
    };
    order.clear();
    for (std::size_t t = 0; t < types; ++t)
      if (in.a[j * types + t] > 0.0 && in.capacity[t] > 0.0) order.push_back(static_cast<int>(t));
    std::sort(order.begin(), order.end(), [&](int x, int y) {
      return in.a[j * types + static_cast<std::size_t>(x)] <
             in.a[j * types + static_cast<std::size_t>(y)];
    });
    a.assign(1, 0.0);
    cost.assign(1, 0.0);
    type.assign(1, -1);
    for (const int t : order) {
      const auto u = static_cast<std::size_t>(t);
      const double at = in.a[j * types + u];
      const double ct = price[u] * in.use[j * types + u];
      if (at <= a.back()) {  // equal a (sorted): keep the cheaper
        const bool tie = std::fabs(ct - cost.back()) <= 1e-6 * std::max(ct, cost.back());
        if (tie ? room && share(t) > share(type.back()) : ct < cost.back()) {
          cost.back() = ct;
          type.back() = t;
        } else {
          continue;
        }
      } else {
        a.push_back(at);
        cost.push_back(ct);
        type.push_back(t);
      }
      // Restore convexity: drop the middle of three vertices that turn the wrong way. Three in
      // a line (to 1e-6: a tie) keep the middle one where its type has more room.
      while (a.size() >= 3) {
        const std::size_t k = a.size();
        const double left = (cost[k - 2] - cost[k - 3]) / (a[k - 2] - a[k - 3]);
        const double right = (cost[k - 1] - cost[k - 2]) / (a[k - 1] - a[k - 2]);
        const bool tie = std::fabs(left - right) <= 1e-6 * std::max(left, right);
        if (tie ? room && share(type[k - 2]) > share(type[k - 1]) : left < right) break;
        a.erase(a.begin() + static_cast<std::ptrdiff_t>(k - 2));
        cost.erase(cost.begin() + static_cast<std::ptrdiff_t>(k - 2));
        type.erase(type.begin() + static_cast<std::ptrdiff_t>(k - 2));
      }
    }
  }
  // Segment [i, i + 1] holding d (0 < d <= a.back()) and the weight of its right end.
  std::pair<std::size_t, double> locate(double d) const {
    std::size_t i = 0;
    while (i + 2 < a.size() && a[i + 1] < d) ++i;
    return {i, std::min(1.0, (d - a[i]) / (a[i + 1] - a[i]))};
  }
};

class Lagrangian {
 public:
  explicit Lagrangian(const PriceCrashInput& in) : in_(in) {}

  // L(price) and a subgradient; false when no z is feasible or z is unbounded.
  bool evaluate(const std::vector<double>& price, double& value, std::vector<double>& gradient) {
    const std::size_t jobs = in_.jobs();
    events_.clear();
    double z_high = kInfinity;
    for (std::size_t j = 0; j < jobs; ++j) {
      if (!in_.has_row[j] || in_.beta[j] <= 0.0) continue;
      hull_.build(in_, j, price);
      z_high = std::min(z_high, (hull_.a.back() - in_.alpha[j]) / in_.beta[j]);
      double slope = 0.0;
      for (std::size_t k = 1; k < hull_.a.size(); ++k) {
        const double next = (hull_.cost[k] - hull_.cost[k - 1]) / (hull_.a[k] - hull_.a[k - 1]);
        if (next > slope)
          events_.push_back(
              {(hull_.a[k - 1] - in_.alpha[j]) / in_.beta[j], in_.beta[j] * (next - slope)});
        slope = std::max(slope, next);
      }
    }
    if (!std::isfinite(z_high) || z_high < in_.z_lower) return false;
    // phi(z) = c z - sum_j cost_j(z) is concave; its slope c - sum_j beta_j slope_j(z) falls at
    // each event: its maximum is the first event (in z) where the falls add up to c, clipped to
    // [z_lower, z_high]. Found by weighted selection (halving with nth_element), not a sort.
    std::size_t low = 0, high = events_.size();
    double need = in_.objective;
    while (high - low > 32) {
      const std::size_t middle = low + (high - low) / 2;
      const auto begin = events_.begin();
      std::nth_element(begin + static_cast<std::ptrdiff_t>(low),
                       begin + static_cast<std::ptrdiff_t>(middle),
                       begin + static_cast<std::ptrdiff_t>(high));
      double falls = 0.0;
      for (std::size_t k = low; k < middle; ++k) falls += events_[k].second;
      if (falls >= need) {
        high = middle;
      } else {
        need -= falls;
        low = middle;
      }
    }
    std::sort(events_.begin() + static_cast<std::ptrdiff_t>(low),
              events_.begin() + static_cast<std::ptrdiff_t>(high));
    z_ = kInfinity;
    for (std::size_t k = low; k < high; ++k) {
      need -= events_[k].second;
      if (need <= 0.0) {
        z_ = events_[k].first;
        break;
      }
    }
    z_ = std::clamp(std::min(z_, z_high), in_.z_lower, z_high);
    value = in_.objective * z_;
    gradient.assign(in_.capacity.begin(), in_.capacity.end());
    respond(price, z_, [&](std::size_t j, int t, double x) {
      const std::size_t c = j * static_cast<std::size_t>(in_.types) + static_cast<std::size_t>(t);
      value -= price[static_cast<std::size_t>(t)] * in_.use[c] * x;
      gradient[static_cast<std::size_t>(t)] -= in_.use[c] * x;
    });
    for (std::size_t t = 0; t < price.size(); ++t) value += price[t] * in_.capacity[t];
    return true;
  }

  // Each job's cheapest response at (price, z): calls use(j, t, X_j,t) for its nonzero columns
  // and records its start in `out` when given.
  template <typename Use>
  void respond(const std::vector<double>& price, double z, Use&& use, PriceCrash* out = nullptr) {
    const std::size_t jobs = in_.jobs();
    const auto types = static_cast<std::size_t>(in_.types);
    room_.assign(in_.capacity.begin(), in_.capacity.end());
    const auto take = [&](std::size_t j, int t, double x) {
      use(j, t, x);
      room_[static_cast<std::size_t>(t)] -= in_.use[j * types + static_cast<std::size_t>(t)] * x;
    };
    for (std::size_t j = 0; j < jobs; ++j) {
      JobStart start = JobStart::kIdle;
      int first = -1, second = -1;
      const double d = in_.has_row[j] ? in_.alpha[j] + in_.beta[j] * z : 0.0;
      if (d > 0.0) {
        hull_.build(in_, j, price, out ? &room_ : nullptr);
        if (hull_.a.size() < 2) {
          start = JobStart::kShort;  // runs nowhere
        } else if (d > hull_.a.back()) {
          start = JobStart::kShort;
          first = hull_.type.back();
          take(j, first, 1.0);
        } else {
          const auto [i, weight] = hull_.locate(d);
          second = hull_.type[i + 1];
          take(j, second, weight);
          if (i == 0) {
            start = JobStart::kOne;
            first = second;
            second = -1;
          } else {
            start = JobStart::kTwo;
            first = hull_.type[i];
            take(j, first, 1.0 - weight);
          }
        }
      }
      if (out) {
        out->start[j] = start;
        out->first[j] = first;
        out->second[j] = second;
      }
    }
  }

 private:
  const PriceCrashInput& in_;
  Hull hull_;
  std::vector<std::pair<double, double>> events_;
  std::vector<double> room_;
  double z_ = 0.0;
};

}  // namespace

bool price_crash(const PriceCrashInput& in, PriceCrash& out) {
  const std::size_t jobs = in.jobs();
  const auto types = static_cast<std::size_t>(in.types);
  if (!(in.objective > 0.0) || types == 0) return false;
  // Prices are bounded: at z0, where every demand is <= 0, L(price) >= price . C + c z0, and
  // L(price*) = the optimum <= L(0), so price* . C <= L(0) - c z0.
  double z0 = kInfinity;
  for (std::size_t j = 0; j < jobs; ++j) {
    if (!in.has_row[j]) continue;
    if (in.beta[j] > 0.0)
      z0 = std::min(z0, -in.alpha[j] / in.beta[j]);
    else if (in.alpha[j] > 0.0 || in.beta[j] < 0.0)
      return false;
  }
  if (!std::isfinite(z0)) return false;
  if (z0 < in.z_lower) return false;
  Lagrangian lagrangian(in);
  std::vector<double> price(types, 0.0), gradient;
  double value = 0.0;
  if (!lagrangian.evaluate(price, value, gradient)) return false;
  const double range = std::max(value - in.objective * z0, 0.0);

  // Kelley's master: min theta subject to theta >= L_k + g_k . (price - price_k), 0 <= price
  // <= range / C_t (0 for a type without GPUs).
  ClpSimplex master;
  master.setLogLevel(0);
  std::vector<double> lower(types + 1, 0.0), upper(types + 1), objective(types + 1, 0.0);
  for (std::size_t t = 0; t < types; ++t)
    upper[t] = in.capacity[t] > 0.0 ? 1.01 * range / in.capacity[t] + 1e-300 : 0.0;
  lower[types] = -std::numeric_limits<double>::max();
  upper[types] = std::numeric_limits<double>::max();
  objective[types] = 1.0;
  const std::vector<CoinBigIndex> starts(types + 2, 0);
  master.loadProblem(static_cast<int>(types + 1), 0, starts.data(), nullptr, nullptr, lower.data(),
                     upper.data(), objective.data(), nullptr, nullptr);
  std::vector<int> index(types + 1);
  for (std::size_t k = 0; k <= types; ++k) index[k] = static_cast<int>(k);
  std::vector<double> row(types + 1);
  out.bound = value;
  out.price = price;
  out.cuts = 1;
  double step = 0.5;
  bool at_master = true;  // the first cut is at the master's (unconstrained) point, price 0
  std::vector<double> last(types + 1, kInfinity);
  for (int cut = 0; cut < 100; ++cut) {
    double rhs = value;
    for (std::size_t t = 0; t < types; ++t) {
      row[t] = -gradient[t];
      rhs -= gradient[t] * price[t];
    }
    row[types] = 1.0;
    master.addRow(static_cast<int>(types + 1), index.data(), row.data(), rhs,
                  std::numeric_limits<double>::max());
    master.dual();
    if (!master.isProvenOptimal()) return false;
    const double* solution = master.getColSolution();
    const double floor = solution[types];  // a lower bound on min L = the LP's optimum
    // Done when the gap is closed to 1e-7, or when the master stands still although its last
    // point was the one evaluated (its own tolerances, ~1e-7, keep it from separating nearer
    // cuts).
    if (out.bound - floor <= 1e-7 * std::max(1.0, std::fabs(out.bound))) break;
    if (at_master && std::equal(solution, solution + types + 1, last.begin())) break;
    last.assign(solution, solution + types + 1);
    // In-out smoothing (Wentges): the next prices lie halfway from the best ones towards the
    // master's, which damps Kelley's zigzag; after a step that did not improve, the master's.
    for (std::size_t t = 0; t < types; ++t)
      price[t] = out.price[t] + step * (solution[t] - out.price[t]);
    at_master = step == 1.0;
    if (!lagrangian.evaluate(price, value, gradient)) return false;
    ++out.cuts;
    if (value < out.bound) {
      out.bound = value;
      out.price = price;
      step = 0.5;
    } else {
      step = 1.0;
    }
  }
  // The objective is c z alone, so z* = the optimum / c, which the bound approaches.
  out.z = std::max(out.bound / in.objective, in.z_lower);
  out.start.assign(jobs, JobStart::kIdle);
  out.first.assign(jobs, -1);
  out.second.assign(jobs, -1);
  lagrangian.respond(
      out.price, out.z, [](std::size_t, int, double) {}, &out);

  // The jobs nearest to a tie: another type's point (a_t, cost_t) closest above the line the
  // job's cost follows (through the origin and its type, or through its two types).
  int short_by = static_cast<int>(types) - 1;
  for (std::size_t t = 0; t < types; ++t)
    if (!(out.price[t] > 0.0)) --short_by;
  std::vector<std::pair<double, std::pair<std::size_t, int>>> ties;
  for (std::size_t j = 0; j < jobs && short_by > 0; ++j) {
    if (out.start[j] != JobStart::kOne && out.start[j] != JobStart::kTwo) continue;
    const auto point = [&](int t) {
      const std::size_t c = j * types + static_cast<std::size_t>(t);
      return std::make_pair(in.a[c], out.price[static_cast<std::size_t>(t)] * in.use[c]);
    };
    const auto [a1, c1] =
        out.start[j] == JobStart::kOne ? std::make_pair(0.0, 0.0) : point(out.first[j]);
    const auto [a2, c2] = point(out.start[j] == JobStart::kOne ? out.first[j] : out.second[j]);
    double nearest = kInfinity;
    int type = -1;
    for (std::size_t t = 0; t < types; ++t) {
      const int u = static_cast<int>(t);
      if (u == out.first[j] || u == out.second[j] || !(in.a[j * types + t] > 0.0) ||
          !(in.capacity[t] > 0.0))
        continue;
      const auto [at, ct] = point(u);
      const double line = c1 + (c2 - c1) * (at - a1) / (a2 - a1);
      const double gap = (ct - line) / std::max({std::fabs(ct), std::fabs(line), 1e-300});
      if (gap < nearest) {
        nearest = gap;
        type = u;
      }
    }
    if (type >= 0) ties.push_back({nearest, {j, type}});
  }
  const auto take = std::min(ties.size(), static_cast<std::size_t>(std::max(short_by, 0)));
  std::partial_sort(ties.begin(), ties.begin() + static_cast<std::ptrdiff_t>(take), ties.end());
  out.split.clear();
  for (std::size_t k = 0; k < take; ++k) out.split.push_back(ties[k].second);
  return true;
}

}  // namespace clustersim::timeshare
