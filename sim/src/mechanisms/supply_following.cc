#include "mechanisms/supply_following.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <vector>

#include "metrics/power_meter.h"

namespace clustersim::internal {

SupplyFollowing::SupplyFollowing(const SimOptions& options) : options_(options) {}

void SupplyFollowing::attach(Host& host) {
  host_ = &host;
  step_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  const ClusterState& cluster = host.view().cluster();
  const PowerOptions& power = options_.power;
  const std::vector<GpuPower> gpus = gpu_power_by_type(power, cluster.gpu_type_names());
  const std::size_t nodes = cluster.nodes().size();
  dynamic_w_.assign(nodes, 0.0);
  held_.assign(nodes, 0);
  for (std::size_t n = 0; n < nodes; ++n) {
    const auto& node = cluster.node(static_cast<std::uint32_t>(n));
    const GpuPower& gpu = gpus[static_cast<std::size_t>(node.gpu_type)];
    const std::optional<double> capped = capped_dynamic_w(
        power, cluster.gpu_type_names()[static_cast<std::size_t>(node.gpu_type)], gpu);
    dynamic_w_[n] =
        capped ? power.pue * *capped : power.pue * (gpu.peak_w - gpu.idle_w) * power.intensity;
    static_w_ += power.pue * (node_base_w(power, node.gpus) + node.gpus * gpu.idle_w);
  }
}

// A supply whose most (grid cap + peak solar) cannot power the largest job's GPUs above the
// facility's idle draw would leave that job waiting for ever, and the run with it: refused at the
// start, saying what the supply can power.
void SupplyFollowing::start() {
  const SupplyOptions& supply = options_.supply;
  if (caps() && !meter_)
    throw std::logic_error("supply_following: supply.follow_cap_floor needs the power meter");
  double most = budget_w();
  if (supply.has_solar()) {
    const double peak = *std::max_element(supply.ghi.values.begin(), supply.ghi.values.end());
    most = (supply.grid_cap_w ? *supply.grid_cap_w : 0.0) +
           peak / 1000.0 * supply.solar_capacity_w * supply.solar_derate;
  }
  int largest = 0;
  for (const JobState& job : host_->view().jobs()) largest = std::max(largest, job.spec->num_gpus);
  if (std::isfinite(most) && largest > 0) {
    std::vector<double> per_gpu;  // each GPU's draw when busy, above idle, cheapest first
    const ClusterState& cluster = host_->view().cluster();
    for (std::size_t n = 0; n < dynamic_w_.size(); ++n)
      per_gpu.insert(per_gpu.end(), cluster.node(static_cast<std::uint32_t>(n)).gpus,
                     dynamic_w_[n]);
    std::sort(per_gpu.begin(), per_gpu.end());
    double spare = most - static_w_;
    int powered = 0;
    for (double watts : per_gpu) {
      if (watts * supply.follow_cap_floor > spare) break;
      spare -= watts * supply.follow_cap_floor;
      ++powered;
    }
    if (powered < largest) {
      char text[400];
      std::snprintf(text, sizeof text,
                    "supply.follow: the supply gives at most %.6g W (grid cap + peak solar), the "
                    "idle facility draws %.6g W, which leaves power for %d busy GPUs; a job of %d "
                    "GPUs would wait for ever: raise supply.grid_cap_w or "
                    "supply.solar_capacity_w",
                    most, static_w_, powered, largest);
      throw std::invalid_argument(text);
    }
  }
  host_->schedule(host_->view().now(), step_);
}

double SupplyFollowing::budget_w() const {
  const SupplyOptions& supply = options_.supply;
  // Without a cap the grid is not counted (capacity follows solar alone), unless there is no
  // solar either: then nothing limits the supply (the config warns).
  const double grid = supply.grid_cap_w ? *supply.grid_cap_w : 0.0;
  if (!supply.has_solar())
    return supply.grid_cap_w ? grid : std::numeric_limits<double>::infinity();
  const double start_s = supply.start_h * 3600.0;
  return grid + series_at(supply.ghi, start_s, host_->view().now()) / 1000.0 *
                    supply.solar_capacity_w * supply.solar_derate;
}

void SupplyFollowing::on_timer(const Timer& timer) {
  (void)timer;
  follow();
  const SupplyOptions& supply = options_.supply;
  const Time now = host_->view().now();
  // Without solar the budget never changes: one look at the start is enough.
  if (supply.has_solar())
    host_->schedule(next_step(supply.ghi, supply.start_h * 3600.0, now), step_);
}

void SupplyFollowing::on_checkpointed(std::uint32_t job) {
  const auto at = std::find_if(stopping_.begin(), stopping_.end(),
                               [&](const auto& entry) { return entry.first == job; });
  if (at == stopping_.end()) return;
  stopping_.erase(at);
  follow();  // its GPUs are free now: hold them if the budget still wants them held
}

bool SupplyFollowing::cap_at(double level) {
  if (!meter_ || meter_->cap_level() == level) return false;
  meter_->set_cap_level(level);
  return true;
}

void SupplyFollowing::follow() {
  const View& view = host_->view();
  const ClusterState& cluster = view.cluster();
  const double budget = budget_w();
  // A stopped job that failed while saving (its node went down) is saving no longer.
  std::erase_if(stopping_, [&](const auto& entry) {
    return view.jobs()[entry.first].phase != JobPhase::kCheckpointing;
  });
  const auto nodes = static_cast<std::uint32_t>(held_.size());
  // What to hold and whom to stop is decided with busy GPUs at the caps' floor (1: uncapped).
  const double floor = options_.supply.follow_cap_floor;
  const auto busy_w = [&](std::uint32_t n) { return dynamic_w_[n] * floor; };
  // The facility's power with every GPU not held busy, less what jobs already stopping give back.
  double potential = static_w_;
  for (std::uint32_t n = 0; n < nodes; ++n)
    potential += (cluster.node(n).gpus - held_[n]) * busy_w(n);
  for (const auto& entry : stopping_) potential -= entry.second;

  plan_.clear();
  if (potential > budget) {
    const bool recapped = cap_at(floor);
    // Hold free GPUs, from the last node back.
    for (std::uint32_t n = nodes; n-- > 0 && potential > budget;) {
      if (view.node_offline(n)) continue;
      int take = 0;
      const int free = cluster.node(n).free_gpus;
      while (take < free && potential > budget) {
        ++take;
        potential -= busy_w(n);
      }
      if (take == 0) continue;
      plan_.hold_gpus(n, take);
      held_[n] += take;
    }
    // An empty plan still re-rates the running jobs when the caps changed.
    if (!plan_.empty() || recapped) host_->apply(plan_);
  } else {
    // Give back what the budget can power, the last held first (from the first node on).
    for (std::uint32_t n = 0; n < nodes; ++n) {
      int give = 0;
      while (give < held_[n] && potential + busy_w(n) <= budget) {
        ++give;
        potential += busy_w(n);
      }
      if (give == 0) continue;
      plan_.release_gpus(n, give);
      held_[n] -= give;
    }
    // With nothing held or saving, the caps lift as far as the budget allows.
    double level = floor;
    if (meter_ && stopping_.empty() &&
        std::all_of(held_.begin(), held_.end(), [](int held) { return held == 0; })) {
      double all_busy_w = 0.0;
      for (std::uint32_t n = 0; n < nodes; ++n) all_busy_w += cluster.node(n).gpus * dynamic_w_[n];
      level = all_busy_w > 0.0 ? std::clamp((budget - static_w_) / all_busy_w, floor, 1.0) : 1.0;
    }
    if (cap_at(level) || !plan_.empty()) host_->apply(plan_);
    return;
  }
  if (!(potential > budget)) return;

  // Too few GPUs free: stop running jobs, deferrable ones first, the least valuable per
  // GPU-second first (later jobs first among equals).
  const auto jobs = view.jobs();
  if (density_.size() < jobs.size()) {
    const std::vector<std::int32_t> rows = value_rows(options_.supply, jobs, density_.size());
    for (std::size_t i = density_.size(); i < jobs.size(); ++i) {
      const std::int32_t row = rows[i - density_.size()];
      const JobSpec& spec = *jobs[i].spec;
      const double work = std::max(1, spec.num_gpus) * std::max(spec.duration, 1e-9);
      const JobValue& value = row < 0 ? JobValue{} : options_.supply.values[row];
      density_.push_back(value.value / work);
      deferrable_.push_back(value.deferrable ? 1 : 0);
    }
  }
  order_.clear();
  for (std::uint32_t job : view.holders())
    if (jobs[job].phase == JobPhase::kRunning && jobs[job].gpus > 0) order_.push_back(job);
  std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (deferrable_[a] != deferrable_[b]) return deferrable_[a] > deferrable_[b];
    if (density_[a] != density_[b]) return density_[a] < density_[b];
    return a > b;
  });
  plan_.clear();
  for (std::uint32_t job : order_) {
    if (!(potential > budget)) break;
    double gives = 0.0;
    for (const Grant& grant : view.grants_of(job)) gives += grant.gpus * busy_w(grant.node);
    plan_.set(job);  // no grants: it stops, saves its state and waits again
    stopping_.emplace_back(job, gives);
    potential -= gives;
    ++sheds_;
  }
  if (plan_.empty()) return;
  host_->apply(plan_);
  // Jobs that save in no time gave their GPUs back at once (on_checkpointed is not called for
  // them; the next pass drops them from stopping_): hold those now.
  follow();
}

}  // namespace clustersim::internal
