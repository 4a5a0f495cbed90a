// The philly generator's cluster-like options (philly_patterns.cc, generator.cc): VC weights and
// the quotas that match them, diurnal and weekly arrivals, GPU-count-dependent durations. The
// statistics are checked with fixed seeds against tolerances of 4 standard errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "clustersim/generator.h"
#include "clustersim/steady_state.h"
#include "workload/philly_patterns.h"

namespace clustersim {
namespace {

GeneratorOptions patterns_options(std::size_t jobs, std::uint64_t seed) {
  GeneratorOptions options;
  options.jobs = jobs;
  options.seed = seed;
  options.max_duration_s = 172800.0;
  return options;
}

// Philly's VC sizes in nodes (../shared/traces/philly/philly_vc.csv).
const std::vector<double> kPhillyVcNodes = {64, 32, 16, 64, 64, 16, 32, 16, 8, 8, 32};

std::vector<std::string> vc_names(std::size_t count) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < count; ++i) names.push_back("vc" + std::to_string(i));
  return names;
}

TEST(GeneratorPatterns, VcCountsFollowTheWeightsWithinBinomialTolerance) {
  GeneratorOptions options = patterns_options(20000, 7);
  options.vcs = vc_names(kPhillyVcNodes.size());
  options.vc_weights = kPhillyVcNodes;
  const Workload w = generate_workload(options);
  std::map<std::string, double> count;
  for (const JobSpec& job : w.jobs) ++count[job.vc];
  const double total = std::accumulate(kPhillyVcNodes.begin(), kPhillyVcNodes.end(), 0.0);
  const double n = static_cast<double>(w.jobs.size());
  for (std::size_t i = 0; i < kPhillyVcNodes.size(); ++i) {
    const double p = kPhillyVcNodes[i] / total;
    EXPECT_NEAR(count[options.vcs[i]], n * p, 4.0 * std::sqrt(n * p * (1.0 - p))) << i;
  }
}

TEST(GeneratorPatterns, AZeroWeightVcGetsNoJob) {
  GeneratorOptions options = patterns_options(5000, 3);
  options.vcs = {"a", "b", "c"};
  options.vc_weights = {1.0, 0.0, 3.0};
  for (const JobSpec& job : generate_workload(options).jobs) EXPECT_NE(job.vc, "b");
}

TEST(GeneratorPatterns, VcWeightsLeaveTheOtherDrawsAsTheyWere) {
  GeneratorOptions options = patterns_options(3000, 11);
  options.vcs = {"a", "b"};
  const Workload uniform = generate_workload(options);
  options.vc_weights = {9.0, 1.0};
  const Workload weighted = generate_workload(options);
  ASSERT_EQ(uniform.jobs.size(), weighted.jobs.size());
  for (std::size_t i = 0; i < uniform.jobs.size(); ++i) {
    EXPECT_EQ(uniform.jobs[i].submit_time, weighted.jobs[i].submit_time);
    EXPECT_EQ(uniform.jobs[i].num_gpus, weighted.jobs[i].num_gpus);
    EXPECT_EQ(uniform.jobs[i].duration, weighted.jobs[i].duration);
  }
}

TEST(GeneratorPatterns, QuotasAreProportionalByLargestRemainder) {
  // 10 GPUs by 2:1:1 = 5, 2.5, 2.5: floors 5, 2, 2; the one GPU left goes to the earlier of
  // the two equal remainders.
  EXPECT_EQ(vc_quotas_from_weights({2, 1, 1}, 3, 10), (std::vector<int>{5, 3, 2}));
  // Uniform without weights: 1024 over 3 = 341.33 each: 342, 341, 341.
  EXPECT_EQ(vc_quotas_from_weights({}, 3, 1024), (std::vector<int>{342, 341, 341}));
  // Every VC gets at least one GPU: 4 GPUs by 1000:1 = 3.996, 0.004 -> 4, 0 -> 3, 1.
  EXPECT_EQ(vc_quotas_from_weights({1000, 1}, 2, 4), (std::vector<int>{3, 1}));
  // Philly's VC sizes (2,816 GPUs at 8 per node) on its own GPUs: exactly 8 x nodes.
  std::vector<int> philly;
  for (double nodes : kPhillyVcNodes) philly.push_back(static_cast<int>(8 * nodes));
  EXPECT_EQ(vc_quotas_from_weights(kPhillyVcNodes, kPhillyVcNodes.size(), 2816), philly);
  const std::vector<int> on_1024 =
      vc_quotas_from_weights(kPhillyVcNodes, kPhillyVcNodes.size(), 1024);
  EXPECT_EQ(std::accumulate(on_1024.begin(), on_1024.end(), 0), 1024);
  EXPECT_THROW(vc_quotas_from_weights({1, 1}, 2, 1), std::invalid_argument);
  EXPECT_THROW(vc_quotas_from_weights({1, 1, 1}, 2, 8), std::invalid_argument);
  EXPECT_THROW(vc_quotas_from_weights({0, 0}, 2, 8), std::invalid_argument);
  EXPECT_THROW(vc_quotas_from_weights({-1, 2}, 2, 8), std::invalid_argument);
}

// Arrivals per hour of the day over the generated span's whole days.
std::vector<double> arrivals_by_hour(const Workload& w, std::size_t& days) {
  days = static_cast<std::size_t>(w.jobs.back().submit_time / 86400.0);
  std::vector<double> count(24, 0.0);
  for (const JobSpec& job : w.jobs)
    if (job.submit_time < static_cast<double>(days) * 86400.0)
      ++count[static_cast<std::size_t>(std::fmod(job.submit_time, 86400.0) / 3600.0)];
  return count;
}

TEST(GeneratorPatterns, DiurnalArrivalsFollowTheHourlyProfile) {
  GeneratorOptions options = patterns_options(30000, 5);
  options.load = 0.8;
  options.cluster_gpus = 256;
  options.arrival_pattern = "diurnal";
  options.rate_by_hour.assign(24, 1.0);
  std::fill(options.rate_by_hour.begin(), options.rate_by_hour.begin() + 12, 2.0);
  options.rate_by_weekday.assign(7, 1.0);
  const Workload w = generate_workload(options);
  std::size_t days = 0;
  const std::vector<double> count = arrivals_by_hour(w, days);
  ASSERT_GE(days, 7u);
  const double busy = std::accumulate(count.begin(), count.begin() + 12, 0.0);
  const double quiet = std::accumulate(count.begin() + 12, count.end(), 0.0);
  // Poisson counts: the ratio's standard error is about ratio x sqrt(1/busy + 1/quiet).
  EXPECT_NEAR(busy / quiet, 2.0, 4.0 * 2.0 * std::sqrt(1.0 / busy + 1.0 / quiet));
  // The mean rate is the flat process's: arrivals over whole days / the rate's expectation.
  const double rate = generator_shape(options).arrival_rate;
  const double expected = rate * static_cast<double>(days) * 86400.0;
  EXPECT_NEAR(busy + quiet, expected, 4.0 * std::sqrt(expected));
}

TEST(GeneratorPatterns, AWeekdayOfRateZeroHasNoArrival) {
  GeneratorOptions options = patterns_options(20000, 9);
  options.cluster_gpus = 128;
  options.arrival_pattern = "diurnal";
  options.rate_by_weekday = {1, 1, 1, 1, 1, 0, 0};
  const Workload w = generate_workload(options);
  ASSERT_GT(w.jobs.back().submit_time, 3 * 7 * 86400.0);
  for (const JobSpec& job : w.jobs) {
    const auto day = static_cast<int>(std::fmod(job.submit_time, 7 * 86400.0) / 86400.0);
    EXPECT_LT(day, 5) << job.id;
  }
}

TEST(GeneratorPatterns, TheDefaultProfileGivesItsPeakToTroughRatio) {
  GeneratorOptions options = patterns_options(60000, 2);
  options.cluster_gpus = 512;
  options.arrival_pattern = "diurnal";
  options.rate_by_weekday.assign(7, 1.0);
  const Workload w = generate_workload(options);
  std::size_t days = 0;
  const std::vector<double> count = arrivals_by_hour(w, days);
  const std::vector<double> profile = default_rate_by_hour();
  const auto peak =
      static_cast<std::size_t>(std::max_element(profile.begin(), profile.end()) - profile.begin());
  const auto trough =
      static_cast<std::size_t>(std::min_element(profile.begin(), profile.end()) - profile.begin());
  const double ratio = count[peak] / count[trough];
  EXPECT_NEAR(ratio, profile[peak] / profile[trough],
              4.0 * ratio * std::sqrt(1.0 / count[peak] + 1.0 / count[trough]));
}

TEST(GeneratorPatterns, DiurnalArrivalsAreDeterministicAndKeepTheJobsOfTheFlatProcess) {
  GeneratorOptions options = patterns_options(2000, 13);
  const Workload flat = generate_workload(options);
  options.arrival_pattern = "diurnal";
  const Workload first = generate_workload(options);
  const Workload second = generate_workload(options);
  std::size_t moved = 0;
  for (std::size_t i = 0; i < flat.jobs.size(); ++i) {
    EXPECT_EQ(first.jobs[i].submit_time, second.jobs[i].submit_time);
    EXPECT_EQ(first.jobs[i].num_gpus, flat.jobs[i].num_gpus);
    EXPECT_EQ(first.jobs[i].duration, flat.jobs[i].duration);
    EXPECT_EQ(first.jobs[i].model, flat.jobs[i].model);
    if (i > 0) {
      EXPECT_GE(first.jobs[i].submit_time, first.jobs[i - 1].submit_time);
    }
    moved += first.jobs[i].submit_time != flat.jobs[i].submit_time ? 1 : 0;
  }
  EXPECT_GT(moved, 1900u);
  // Prefix-stable: fewer jobs are the same first jobs.
  options.jobs = 500;
  const Workload prefix = generate_workload(options);
  for (std::size_t i = 0; i < prefix.jobs.size(); ++i)
    EXPECT_EQ(prefix.jobs[i].submit_time, first.jobs[i].submit_time);
}

// Spearman's correlation with average ranks for ties.
std::vector<double> ranks(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> rank(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = 0.5 * static_cast<double>(i + j);
    i = j + 1;
  }
  return rank;
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  const std::vector<double> rx = ranks(x), ry = ranks(y);
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / n;
  const double my = std::accumulate(ry.begin(), ry.end(), 0.0) / n;
  double sxy = 0.0, sxx = 0.0, syy = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  return sxy / std::sqrt(sxx * syy);
}

double median_duration(const Workload& w, int gpus) {
  std::vector<double> d;
  for (const JobSpec& job : w.jobs)
    if (job.num_gpus == gpus) d.push_back(job.duration);
  std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
  return d[d.size() / 2];
}

TEST(GeneratorPatterns, CorrelatedDurationsRunLongerForLargerJobs) {
  GeneratorOptions options = patterns_options(40000, 21);
  std::vector<double> gpus, durations;
  const auto correlation = [&](double rho) {
    options.gpu_duration_correlation = rho;
    const Workload w = generate_workload(options);
    gpus.clear();
    durations.clear();
    for (const JobSpec& job : w.jobs) {
      gpus.push_back(job.num_gpus);
      durations.push_back(job.duration);
    }
    return std::pair{spearman(gpus, durations), w};
  };
  const double n = static_cast<double>(options.jobs);
  // Independent: Spearman's rho within 4 standard errors (1 / sqrt(n - 1)) of 0.
  EXPECT_NEAR(correlation(0.0).first, 0.0, 4.0 / std::sqrt(n - 1.0));
  const auto [rho_half, half] = correlation(0.5);
  const auto [rho_full, full] = correlation(1.0);
  // A discrete GPU count ties 70% of the jobs, so the measured rank correlation is below the
  // coupling's; it grows with it.
  EXPECT_GT(rho_half, 0.2);
  EXPECT_GT(rho_full, rho_half + 0.2);
  // Larger jobs run longer: the median duration grows with the GPU count.
  EXPECT_LT(median_duration(half, 1), median_duration(half, 4));
  EXPECT_LT(median_duration(half, 4), median_duration(half, 8));
  // Fully coupled, a job's duration quantile is in its GPU count's band: 1-GPU jobs (the
  // first 70%) all run at most the 0.7 quantile of the table (2,590 s), 8-GPU jobs (0.91 to
  // 0.97) between its 0.9 quantile (12,859.8 s) and the cap.
  for (const JobSpec& job : full.jobs) {
    if (job.num_gpus == 1) {
      EXPECT_LE(job.duration, 2590.0 + 1e-6);
    } else if (job.num_gpus == 8) {
      EXPECT_GE(job.duration, 12859.8 - 1e-6);
    }
  }
}

TEST(GeneratorPatterns, CorrelationKeepsTheDurationDistribution) {
  GeneratorOptions options = patterns_options(40000, 4);
  options.gpu_duration_correlation = 0.7;
  const Workload w = generate_workload(options);
  // The table's median is 1,186 s: half the jobs below it, within 4 binomial standard errors.
  const double below = static_cast<double>(std::count_if(
      w.jobs.begin(), w.jobs.end(), [](const JobSpec& job) { return job.duration < 1186.0; }));
  const double n = static_cast<double>(w.jobs.size());
  EXPECT_NEAR(below / n, 0.5, 4.0 * std::sqrt(0.25 / n));
}

TEST(GeneratorPatterns, MeanGpuSecondsCountsTheCorrelation) {
  for (const char* durations : {"philly", "exponential"}) {
    SCOPED_TRACE(durations);
    GeneratorOptions options = patterns_options(200000, 17);
    options.durations = durations;
    options.mean_duration_s = 5000.0;
    options.gpu_duration_correlation = 0.6;
    const Workload w = generate_workload(options);
    double sum = 0.0, square = 0.0;
    for (const JobSpec& job : w.jobs) {
      const double work = job.num_gpus * job.duration;
      sum += work;
      square += work * work;
    }
    const double n = static_cast<double>(w.jobs.size());
    const double mean = sum / n;
    const double standard_error = std::sqrt((square / n - mean * mean) / n);
    EXPECT_NEAR(generator_mean_gpu_seconds(options), mean, 4.0 * standard_error);
    // Coupling raises the mean work per job (long durations go with many GPUs).
    GeneratorOptions independent = options;
    independent.gpu_duration_correlation = 0.0;
    EXPECT_GT(generator_mean_gpu_seconds(options), 1.2 * generator_mean_gpu_seconds(independent));
  }
}

TEST(GeneratorPatterns, ThePlanMeasuresAWholeCycle) {
  GeneratorOptions options = patterns_options(1000, 1);
  options.cluster_gpus = 1024;
  EXPECT_EQ(generator_shape(options).cycle_s, 0.0);
  options.arrival_pattern = "diurnal";
  EXPECT_EQ(generator_shape(options).cycle_s, 7 * 86400.0);
  options.rate_by_weekday.assign(7, 2.0);
  const WorkloadShape shape = generator_shape(options);
  EXPECT_EQ(shape.cycle_s, 86400.0);
  GeneratorOptions flat = options;
  flat.arrival_pattern = "flat";
  // The mean rate is the flat process's.
  EXPECT_EQ(shape.arrival_rate, generator_shape(flat).arrival_rate);
  const SteadyStatePlan plan = plan_steady_state(shape, SteadyStateOptions{}, {}, {});
  EXPECT_GE(static_cast<double>(plan.measured_needed), shape.arrival_rate * 86400.0);
  EXPECT_GE(static_cast<double>(plan.last - plan.first + 1), shape.arrival_rate * 86400.0);
}

TEST(GeneratorPatterns, RejectsBadPatterns) {
  const auto rejects = [](auto change) {
    GeneratorOptions options = patterns_options(10, 1);
    change(options);
    EXPECT_THROW(generate_workload(options), std::invalid_argument);
  };
  rejects([](GeneratorOptions& o) { o.vc_weights = {1, 2}; });  // no vcs
  rejects([](GeneratorOptions& o) {
    o.vcs = {"a", "b"};
    o.vc_weights = {1, -2};
  });
  rejects([](GeneratorOptions& o) {
    o.vcs = {"a", "b"};
    o.vc_weights = {0, 0};
  });
  rejects([](GeneratorOptions& o) { o.arrival_pattern = "hourly"; });
  rejects([](GeneratorOptions& o) { o.rate_by_hour.pop_back(); });
  rejects([](GeneratorOptions& o) { o.rate_by_weekday.assign(7, 0.0); });
  rejects([](GeneratorOptions& o) { o.rate_by_hour[3] = std::nan(""); });
  rejects([](GeneratorOptions& o) { o.gpu_duration_correlation = 1.5; });
  rejects([](GeneratorOptions& o) { o.vc_quotas = "weights"; });  // no vcs
}

// The default profiles, recomputed from the trace they were measured from (the recipe in
// philly_patterns.cc); skipped where ../shared is absent.
TEST(GeneratorPatterns, DefaultProfilesAreTheOpenbTracesShape) {
  const std::string path =
      std::string(CLUSTERSIM_SHARED_DIR) + "/traces/alibaba-gpu-v2023/openb_pod_list_default.csv";
  std::ifstream file(path);
  if (!file) GTEST_SKIP() << path << " is absent";
  std::string line;
  std::getline(file, line);  // name,cpu_milli,memory_mib,num_gpu,gpu_milli,...,creation_time,...
  std::vector<std::pair<long long, int>> pods;  // creation time, GPUs
  long long last = 0;
  while (std::getline(file, line)) {
    std::vector<std::string> fields;
    std::stringstream row(line);
    for (std::string field; std::getline(row, field, ',');) fields.push_back(field);
    ASSERT_GE(fields.size(), 9u) << line;
    const long long created = std::stoll(fields[8]);
    pods.emplace_back(created, std::stoi(fields[3]));
    last = std::max(last, created);
  }
  constexpr long long kWeek = 7 * 86400;
  const long long end = last / kWeek * kWeek;
  std::vector<double> by_hour(24, 0.0), by_day(7, 0.0);
  for (const auto& [created, gpus] : pods) {
    if (gpus <= 0 || created <= 0 || created >= end) continue;
    ++by_hour[static_cast<std::size_t>(created / 3600 % 24)];
    ++by_day[static_cast<std::size_t>(created / 86400 % 7)];
  }
  const auto relative = [](std::vector<double> counts) {
    const double mean =
        std::accumulate(counts.begin(), counts.end(), 0.0) / static_cast<double>(counts.size());
    for (double& c : counts) c /= mean;
    return counts;
  };
  const std::vector<double> hour = relative(by_hour), day = relative(by_day);
  const std::vector<double> hour_table = default_rate_by_hour(),
                            day_table = default_rate_by_weekday();
  for (std::size_t h = 0; h < 24; ++h) EXPECT_NEAR(hour_table[h], hour[h], 0.005 + 1e-9) << h;
  for (std::size_t d = 0; d < 7; ++d) EXPECT_NEAR(day_table[d], day[d], 0.005 + 1e-9) << d;
}

}  // namespace
}  // namespace clustersim
