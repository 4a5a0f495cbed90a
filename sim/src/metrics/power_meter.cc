#include "metrics/power_meter.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "clustersim/mig.h"
#include "clustersim/view.h"

namespace clustersim {

std::optional<GpuPower> vendor_gpu_power(std::string_view gpu_type) {
  std::string name;
  for (char c : gpu_type) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Longest names first: "a100" before "a10", "h100" before "h10".
  struct Figure {
    std::string_view model;
    GpuPower power;
  };
  static constexpr Figure kFigures[] = {
      {"b200", {140.0, 1000.0}}, {"h200", {75.0, 700.0}}, {"h100", {70.0, 700.0}},
      {"a100", {60.0, 400.0}},   {"a800", {60.0, 400.0}}, {"h800", {70.0, 700.0}},
      {"a40", {30.0, 300.0}},    {"a30", {25.0, 165.0}},  {"a10", {20.0, 150.0}},
      {"l40", {35.0, 300.0}},    {"l4", {16.0, 72.0}},    {"v100", {40.0, 300.0}},
      {"p100", {30.0, 250.0}},   {"p40", {30.0, 250.0}},  {"t4", {10.0, 70.0}},
      {"k80", {25.0, 150.0}},    {"rtx", {20.0, 250.0}},
  };
  for (const Figure& figure : kFigures)
    if (name.find(figure.model) != std::string::npos) return figure.power;
  return std::nullopt;
}

double solar_w_at(const SupplyOptions& supply, double t) {
  if (!supply.has_solar()) return 0.0;
  return internal::series_at(supply.ghi, supply.start_h * 3600.0, t) / 1000.0 *
         supply.solar_capacity_w * supply.solar_derate;
}

double carbon_g_per_kwh_at(const SupplyOptions& supply, double t) {
  if (supply.carbon.empty()) return supply.carbon_g_per_kwh;
  return internal::series_at(supply.carbon, supply.start_h * 3600.0, t);
}

namespace internal {

std::vector<GpuPower> gpu_power_by_type(const PowerOptions& options,
                                        const std::vector<std::string>& type_names) {
  std::vector<GpuPower> out;
  for (const std::string& type : type_names) {
    GpuPower power = vendor_gpu_power(type).value_or(options.unknown_type);
    for (const auto& [name, watts] : options.gpu_idle_w)
      if (name == type) power.idle_w = watts;
    for (const auto& [name, watts] : options.gpu_peak_w)
      if (name == type) power.peak_w = watts;
    out.push_back(power);
  }
  return out;
}

double node_base_w(const PowerOptions& options, int gpus) {
  return options.node_base_w ? *options.node_base_w : 200.0 * gpus;
}

std::optional<double> capped_dynamic_w(const PowerOptions& options, const std::string& type,
                                       const GpuPower& gpu) {
  for (const auto& [name, cap] : options.gpu_cap_w) {
    if (name != type) continue;
    if (!(cap > gpu.idle_w))
      throw std::invalid_argument("power.gpu_cap_w." + type + ": a cap of " + std::to_string(cap) +
                                  " W is at or below the GPU's idle power, " +
                                  std::to_string(gpu.idle_w) + " W: it could not run");
    const double draw = gpu.idle_w + (gpu.peak_w - gpu.idle_w) * options.intensity;
    if (cap < draw) return cap - gpu.idle_w;
  }
  return std::nullopt;
}

std::vector<std::int32_t> value_rows(const SupplyOptions& supply, std::span<const JobState> jobs,
                                     std::size_t from) {
  std::unordered_map<std::string_view, std::int32_t> row_of;
  for (std::size_t r = 0; r < supply.values.size(); ++r)
    row_of.emplace(supply.values[r].job_id, static_cast<std::int32_t>(r));
  std::vector<std::int32_t> rows;
  rows.reserve(jobs.size() - std::min(from, jobs.size()));
  for (std::size_t i = from; i < jobs.size(); ++i) {
    const auto at = row_of.find(jobs[i].spec->id);
    rows.push_back(at == row_of.end() ? -1 : at->second);
  }
  return rows;
}

namespace {
// The step index of run time `t` on the series' clock (negative before its first row).
double step_index(const StepSeries& series, double start_s, double t) {
  return std::floor((t + start_s - series.origin_s) / series.step_s);
}
}  // namespace

double series_at(const StepSeries& series, double start_s, double t) {
  const auto n = static_cast<std::int64_t>(series.values.size());
  auto index = static_cast<std::int64_t>(step_index(series, start_s, t)) % n;
  if (index < 0) index += n;  // the series repeats (a year's trace, year after year)
  return series.values[static_cast<std::size_t>(index)];
}

double next_step(const StepSeries& series, double start_s, double t) {
  if (series.empty()) return std::numeric_limits<double>::infinity();
  double index = step_index(series, start_s, t) + 1.0;
  double boundary = index * series.step_s + series.origin_s - start_s;
  // Rounding may put the boundary at t itself: the next one then.
  while (!(boundary > t)) boundary = (++index) * series.step_s + series.origin_s - start_s;
  return boundary;
}

PowerMeter::PowerMeter(const PowerOptions& power, const SupplyOptions& supply)
    : power_(power), supply_(supply), start_s_(supply.start_h * 3600.0), dispatch_(supply) {}

void PowerMeter::attach(const View& view) {
  view_ = &view;
  const ClusterState& cluster = view.cluster();
  gpu_power_ = gpu_power_by_type(power_, cluster.gpu_type_names());
  caps_ = !power_.gpu_cap_w.empty() || (supply_.follow && supply_.follow_cap_floor < 1.0);
  for (std::size_t t = 0; t < gpu_power_.size(); ++t) {
    const GpuPower& gpu = gpu_power_[t];
    const std::string& type = cluster.gpu_type_names()[t];
    double exponent = PowerOptions::kDefaultCapExponent;
    for (const auto& [name, value] : power_.gpu_cap_exponent)
      if (name == type) exponent = value;
    const std::optional<double> capped = capped_dynamic_w(power_, type, gpu);
    dynamic_unit_.push_back(capped ? *capped : gpu.peak_w - gpu.idle_w);
    dynamic_use_.push_back(capped ? 1.0 : power_.intensity);
    capped_speed_.push_back(
        capped ? std::pow(*capped / ((gpu.peak_w - gpu.idle_w) * power_.intensity), exponent)
               : 1.0);
    cap_exponent_.push_back(exponent);
  }
  speed_ = capped_speed_;
  const std::size_t nodes = cluster.nodes().size();
  base_per_gpu_w_.assign(nodes, 0.0);
  for (std::size_t n = 0; n < nodes; ++n) {
    const auto& node = cluster.node(static_cast<std::uint32_t>(n));
    const double base = node_base_w(power_, node.gpus);
    node_static_w_.push_back(base + node.gpus *
                                        gpu_power_[static_cast<std::size_t>(node.gpu_type)].idle_w);
    static_w_ += node_static_w_.back();
    if (node.gpus > 0) base_per_gpu_w_[n] = base / node.gpus;
  }
}

void PowerMeter::jobs_loaded(std::size_t from) {
  jobs_.resize(view_->jobs().size());
  if (supply_.values.empty()) return;
  const std::vector<std::int32_t> rows = value_rows(supply_, view_->jobs(), from);
  value_row_.resize(from);
  value_row_.insert(value_row_.end(), rows.begin(), rows.end());
}

double PowerMeter::solar_w(Time t) const {
  if (!supply_.has_solar()) return 0.0;
  return series_at(supply_.ghi, start_s_, t) / 1000.0 * supply_.solar_capacity_w *
         supply_.solar_derate;
}

void PowerMeter::advance(Time now) {
  if (!started_) {
    started_ = true;
    last_ = now;
    return;
  }
  const double load_w = facility_w();
  while (last_ < now) {
    const Time end = std::min({now, next_step(supply_.carbon, start_s_, last_),
                               supply_.has_solar() ? next_step(supply_.ghi, start_s_, last_)
                                                   : std::numeric_limits<double>::infinity()});
    const double carbon = supply_.carbon.empty() ? supply_.carbon_g_per_kwh
                                                 : series_at(supply_.carbon, start_s_, last_);
    dispatch_.run(load_w, solar_w(last_), carbon, end - last_, totals_);
    last_ = end;
  }
}

void PowerMeter::fold(JobPower& job) {
  const Time now = view_->now();
  job.energy_j += power_.pue * job.attributed_w * (now - job.since);
  job.carbon_g +=
      power_.pue * job.attributed_w * (totals_.carbon_per_load_w - job.carbon_mark) / 3.6e6;
  job.since = now;
  job.carbon_mark = totals_.carbon_per_load_w;
}

double PowerMeter::factor(std::uint32_t index) {
  advance(view_->now());
  JobPower& job = jobs_[index];
  fold(job);
  dynamic_w_ -= job.dynamic_w;
  job.attributed_w = job.dynamic_w = 0.0;
  const ClusterState& cluster = view_->cluster();
  double slowest = 1.0;  // a job runs at its slowest GPU's speed
  for (const Grant& grant : view_->grants_of(index)) {
    // A share of a GPU (thousandths, or a MIG slice's compute slices) counts as that fraction.
    double gpus = grant.gpus + grant.milli / 1000.0;
    if (grant.mig_mask != 0) gpus += static_cast<double>(grant.mig_compute) / kMigComputeSlices;
    const auto type = static_cast<std::size_t>(cluster.node(grant.node).gpu_type);
    const GpuPower& gpu = gpu_power_[type];
    double dynamic = gpus * dynamic_unit_[type] * dynamic_use_[type];
    if (caps_) {
      dynamic *= level_;
      slowest = std::min(slowest, speed_[type]);
    }
    job.dynamic_w += dynamic;
    job.attributed_w += dynamic + gpus * (gpu.idle_w + base_per_gpu_w_[grant.node]);
  }
  dynamic_w_ += job.dynamic_w;
  return slowest;
}

void PowerMeter::set_cap_level(double level) {
  if (level == level_) return;
  level_ = level;
  level_changed_ = true;
  for (std::size_t t = 0; t < speed_.size(); ++t)
    speed_[t] = capped_speed_[t] * std::pow(level, cap_exponent_[t]);
}

void PowerMeter::set_node_off(std::uint32_t node, bool off) {
  advance_to(view_->now());
  if (node_off_.empty()) node_off_.assign(node_static_w_.size(), 0);
  node_off_[node] = off ? 1 : 0;
  // Summed afresh in node order (rare), so that with every node on again it is, bit for bit,
  // what attach() summed.
  static_w_ = 0.0;
  for (std::size_t n = 0; n < node_static_w_.size(); ++n)
    static_w_ += node_off_[n] ? power_.standby_w_per_node : node_static_w_[n];
}

void PowerMeter::take_affected(std::vector<std::uint32_t>& out) {
  if (!level_changed_) return;
  level_changed_ = false;
  // Each holder's factor() folds its power at the old level and takes the new one.
  const auto holders = view_->holders();
  out.insert(out.end(), holders.begin(), holders.end());
}

void PowerMeter::on_released(std::uint32_t index) {
  advance(view_->now());
  JobPower& job = jobs_[index];
  fold(job);
  dynamic_w_ -= job.dynamic_w;
  job.attributed_w = job.dynamic_w = 0.0;
  // Sums of many small changes drift; with nothing held (this job was the last holder) the
  // exact value is 0.
  if (view_->holders().size() <= 1) dynamic_w_ = 0.0;
}

void PowerMeter::on_sample(Time now) {
  advance(now);
  const double load_w = facility_w();
  sample_power_w_.push_back(load_w);
  if (!supply_.has_solar() && supply_.battery_kwh <= 0.0 && !supply_.grid_cap_w) return;
  const double solar = solar_w(now);
  sample_solar_w_.push_back(solar);
  sample_grid_w_.push_back(dispatch_.grid_w(load_w, solar));
  sample_stored_kwh_.push_back(dispatch_.stored_j() / 3.6e6);
}

void PowerMeter::conclude(RunResult& result) {
  advance(view_->now());
  RunResult::Column energy{"energy_kwh", {}}, carbon{"carbon_kg", {}};
  energy.values.reserve(jobs_.size());
  carbon.values.reserve(jobs_.size());
  for (JobPower& job : jobs_) {
    if (job.attributed_w > 0.0) fold(job);
    energy.values.push_back(job.energy_j / 3.6e6);
    carbon.values.push_back(job.carbon_g / 1000.0);
  }
  result.job_columns.push_back(std::move(energy));
  result.job_columns.push_back(std::move(carbon));
  if (!sample_power_w_.empty()) {
    result.sample_columns.push_back({"power_w", std::move(sample_power_w_)});
    if (!sample_solar_w_.empty()) {
      result.sample_columns.push_back({"solar_w", std::move(sample_solar_w_)});
      result.sample_columns.push_back({"grid_w", std::move(sample_grid_w_)});
      result.sample_columns.push_back({"battery_kwh", std::move(sample_stored_kwh_)});
    }
  }
}

void PowerMeter::report(std::span<JobRecord> records, RunMetrics& metrics) const {
  // Value of jobs finished within their deadline; misses: late or unfinished.
  for (const JobRecord& record : records) {
    if (record.index >= value_row_.size() || value_row_[record.index] < 0) continue;
    const JobValue& value = supply_.values[static_cast<std::size_t>(value_row_[record.index])];
    const bool finished = record.finish_time >= 0.0;
    const bool in_time = value.deadline_s <= 0.0 ||
                         (finished && record.finish_time - record.submit_time <= value.deadline_s);
    if (finished && in_time) metrics.value_obtained += value.value;
    if (value.deadline_s > 0.0 && !in_time) ++metrics.deadline_misses;
  }
  metrics.energy_kwh = totals_.load_j / 3.6e6;
  metrics.grid_kwh = totals_.grid_j / 3.6e6;
  metrics.carbon_kg = totals_.carbon_g / 1000.0;
  metrics.curtailed_kwh = totals_.curtailed_j / 3.6e6;
  metrics.battery_loss_kwh = totals_.loss_j / 3.6e6;
  metrics.unserved_kwh = totals_.unserved_j / 3.6e6;
  metrics.solar_used_kwh = totals_.solar_used_j / 3.6e6;
  metrics.battery_delta_kwh =
      (dispatch_.stored_j() - supply_.battery_initial_soc * supply_.battery_kwh * 3.6e6) / 3.6e6;
  const double served_j = totals_.load_j - totals_.unserved_j;
  metrics.renewable_share =
      served_j > 0.0 ? std::max(0.0, served_j - totals_.grid_j) / served_j : 0.0;
}

}  // namespace internal
}  // namespace clustersim
