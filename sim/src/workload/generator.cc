// Synthetic Philly-shaped workloads.
//
// Reproducible everywhere: clustersim::Rng (xoshiro256** seeded through splitmix64)
// and inverse-CDF sampling from fixed tables, never <random>'s distributions, whose algorithms
// differ between standard libraries. (std::log/std::exp are the only libm calls.)
#include "clustersim/generator.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "clustersim/component.h"
#include "clustersim/random.h"
#include "clustersim/steady_state.h"
#include "options/declare.h"
#include "workload/philly_patterns.h"

namespace clustersim {

namespace {

// GPUs per job, shaped like Philly (Jeon et al., "Analysis of Large-Scale Multi-Tenant GPU
// Clusters for DNN Training Workloads", USENIX ATC'19, Fig. 2/3): mostly single-GPU jobs and a
// tail of 8+ GPU jobs. The shares are approximate readings, not exact published numbers.
struct GpuDemand {
  int gpus;
  double probability;
};
constexpr std::array<GpuDemand, 6> kGpuDemand = {
    {{1, 0.70}, {2, 0.10}, {4, 0.11}, {8, 0.06}, {16, 0.02}, {32, 0.01}}};

// Quantiles of Philly job runtimes (seconds): derived from
// ../shared/traces/philly/philly_runtime.csv (83,154 jobs; alibaba/clusterdata
// cluster-trace-gpu-v2020/analysis/philly_runtime.csv) by dropping runtimes < 1 s (2 jobs),
// sorting the remaining 83,152 and taking the linearly interpolated empirical quantile
// (numpy's default) at each probability below, rounded to 0.1 s. The points are denser in the
// tail, which carries most of the GPU time. Sampling interpolates log-linearly between points.
// Mean of the resulting distribution: ~14,822 s (the data's mean is 14,614 s); median 1,186 s.
struct RuntimeQuantile {
  double probability;
  double seconds;
};
constexpr std::array<RuntimeQuantile, 40> kRuntimeQuantiles = {
    {{0.0, 1.0},         {0.005, 12.0},       {0.01, 17.0},        {0.02, 25.0},
     {0.03, 38.0},       {0.04, 44.0},        {0.05, 48.0},        {0.075, 56.0},
     {0.1, 61.0},        {0.125, 65.0},       {0.15, 68.0},        {0.2, 76.0},
     {0.25, 131.0},      {0.3, 229.0},        {0.35, 428.0},       {0.4, 630.0},
     {0.45, 889.0},      {0.5, 1186.0},       {0.55, 1500.0},      {0.6, 1871.0},
     {0.65, 2242.2},     {0.7, 2590.0},       {0.75, 3342.0},      {0.8, 4699.8},
     {0.85, 6300.7},     {0.9, 12859.8},      {0.925, 21051.4},    {0.95, 49950.8},
     {0.96, 69287.6},    {0.97, 101865.5},    {0.98, 167784.5},    {0.985, 201023.2},
     {0.99, 287285.1},   {0.9925, 371501.2},  {0.995, 484501.3},   {0.9975, 771958.4},
     {0.999, 1361026.9}, {0.9995, 1912558.0}, {0.9999, 2745156.5}, {1.0, 4628239.0}}};

// Model mix of generated jobs: the model names the simulator's throughput profiles know, with
// weights chosen by us (vision CNNs and language models dominate, as in published cluster
// studies); not measured from a trace.
struct ModelShare {
  const char* name;
  double weight;
};
constexpr std::array<ModelShare, 12> kModelMix = {{{"resnet50", 0.15},
                                                   {"resnet18", 0.12},
                                                   {"transformer", 0.12},
                                                   {"bert_base", 0.10},
                                                   {"gnmt", 0.08},
                                                   {"vgg16", 0.08},
                                                   {"mobilenet_v2", 0.07},
                                                   {"deepspeech", 0.07},
                                                   {"dlrm", 0.07},
                                                   {"shufflenet", 0.05},
                                                   {"alexnet", 0.05},
                                                   {"m5", 0.04}}};

// Cumulative tables for inverse-CDF sampling, built once.
struct Tables {
  std::array<double, kGpuDemand.size()> gpu_cdf{};
  std::array<double, kModelMix.size()> model_cdf{};
  std::array<double, kRuntimeQuantiles.size()> log_seconds{};

  Tables() {
    double sum = 0.0;
    for (std::size_t i = 0; i < kGpuDemand.size(); ++i)
      gpu_cdf[i] = sum += kGpuDemand[i].probability;
    for (auto& p : gpu_cdf) p /= sum;
    sum = 0.0;
    for (std::size_t i = 0; i < kModelMix.size(); ++i) model_cdf[i] = sum += kModelMix[i].weight;
    for (auto& p : model_cdf) p /= sum;
    for (std::size_t i = 0; i < kRuntimeQuantiles.size(); ++i) {
      log_seconds[i] = std::log(kRuntimeQuantiles[i].seconds);
    }
  }
};

const Tables& tables() {
  static const Tables instance;
  return instance;
}

template <std::size_t N>
std::size_t sample_index(const std::array<double, N>& cdf, double u) {
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  return std::min(static_cast<std::size_t>(it - cdf.begin()), N - 1);
}

// The index u falls in, for a CDF of any length (a weight of 0 is never drawn: its band is
// empty).
std::size_t sample_index_of(const std::vector<double>& cdf, double u) {
  return static_cast<std::size_t>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
}

int clamp_gpus(int gpus, int max_gpus_per_job) {
  return max_gpus_per_job > 0 ? std::min(gpus, max_gpus_per_job) : gpus;
}

// Inverse CDF of the runtime table, log-linear between quantile points.
double sample_runtime(double u, const Tables& t) {
  std::size_t hi = 1;
  while (hi + 1 < kRuntimeQuantiles.size() && kRuntimeQuantiles[hi].probability <= u) ++hi;
  const std::size_t lo = hi - 1;
  const double p0 = kRuntimeQuantiles[lo].probability;
  const double p1 = kRuntimeQuantiles[hi].probability;
  const double fraction = std::clamp((u - p0) / (p1 - p0), 0.0, 1.0);
  return std::exp(t.log_seconds[lo] + fraction * (t.log_seconds[hi] - t.log_seconds[lo]));
}

// E[min(runtime, cap)] of a log-linear segment from a to b of probability `width`: its mean is
// (b - a) / (ln b - ln a); a cap inside it splits it where the log reaches ln cap.
double segment_mean(double a, double b, double width, double cap) {
  if (cap > 0.0 && a >= cap) return width * cap;
  if (cap <= 0.0 || b <= cap) return width * (a == b ? a : (b - a) / (std::log(b) - std::log(a)));
  const double below = (std::log(cap) - std::log(a)) / (std::log(b) - std::log(a));
  return width * (below * (cap - a) / (std::log(cap) - std::log(a)) + (1.0 - below) * cap);
}

// E[runtime] of the table (durations above `cap` clamped to it; 0 = no cap).
double mean_runtime(double cap) {
  double mean = 0.0;
  for (std::size_t i = 0; i + 1 < kRuntimeQuantiles.size(); ++i) {
    const double a = kRuntimeQuantiles[i].seconds;
    const double b = kRuntimeQuantiles[i + 1].seconds;
    const double width = kRuntimeQuantiles[i + 1].probability - kRuntimeQuantiles[i].probability;
    mean += segment_mean(a, b, width, cap);
  }
  return mean;
}

double cap_duration(double seconds, double cap) {
  return cap > 0.0 ? std::min(seconds, cap) : seconds;
}

bool exponential_durations(const GeneratorOptions& options) {
  return options.durations == "exponential";
}

// The exponential distribution's quantile u in [0, 1): finite, since 1 - u is in (0, 1].
double exponential_runtime(double u, double mean) { return -mean * std::log(1.0 - u); }

// E[min(X, cap)] of an exponential X of the given mean: mean x (1 - e^(-cap/mean)).
double exponential_mean_runtime(double mean, double cap) {
  return cap > 0.0 ? mean * -std::expm1(-cap / mean) : mean;
}

// "unknown workload shape 'x' (expected philly, synergy or query_dag)": the generators' names.
std::invalid_argument unknown_shape(const std::string& shape) {
  std::string expected;
  const auto& generators = generator_components();
  for (std::size_t i = 0; i < generators.size(); ++i)
    expected += (i == 0 ? "" : i + 1 == generators.size() ? " or " : ", ") + generators[i].name;
  return std::invalid_argument("unknown workload shape '" + shape + "' (expected " + expected +
                               ")");
}

// The philly generator's settings (its own functions only: generator_mean_gpu_seconds is
// philly's mean, whatever the options' shape names).
void validate(const GeneratorOptions& options) {
  if (options.shape != "philly") throw unknown_shape(options.shape);
  if (!std::isfinite(options.load) || options.load <= 0.0) {
    throw std::invalid_argument("generator load must be a finite number > 0");
  }
  if (options.cluster_gpus < 1) throw std::invalid_argument("generator cluster_gpus must be >= 1");
  if (options.max_gpus_per_job < 0) {
    throw std::invalid_argument("generator max_gpus_per_job must be >= 0 (0 = no cap)");
  }
  if (options.durations != "philly" && options.durations != "exponential")
    throw std::invalid_argument("generator durations must be \"philly\" or \"exponential\"");
  if (!(options.mean_duration_s > 0.0) || !std::isfinite(options.mean_duration_s))
    throw std::invalid_argument("generator mean_duration_s must be a finite number > 0");
  if (!(options.max_duration_s >= 0.0) || !std::isfinite(options.max_duration_s))
    throw std::invalid_argument(
        "generator max_duration_s must be a finite number >= 0 (0 = no cap)");
  philly_patterns::validate(options);
}

// The integral of the (capped) runtime quantile function over quantiles [from, to]: the mean
// runtime of the jobs whose quantile falls there, times the band's probability.
double runtime_integral(const GeneratorOptions& options, double from, double to) {
  const double cap = options.max_duration_s;
  if (!(to > from)) return 0.0;
  if (exponential_durations(options)) {
    // min(-m ln(1 - u), cap): -m ln(1 - u) integrates to m G(u), G(u) = (1 - u) ln(1 - u) + u,
    // up to the quantile where the cap binds; the cap itself above it.
    const double m = options.mean_duration_s;
    const double binds = cap > 0.0 ? -std::expm1(-cap / m) : 1.0;
    const auto g = [](double u) { return u >= 1.0 ? 1.0 : (1.0 - u) * std::log1p(-u) + u; };
    const double below_to = std::min(to, binds), below_from = std::min(from, binds);
    return m * (g(below_to) - g(below_from)) +
           (cap > 0.0 ? cap * (std::max(to, binds) - std::max(from, binds)) : 0.0);
  }
  double sum = 0.0;
  for (std::size_t i = 0; i + 1 < kRuntimeQuantiles.size(); ++i) {
    const double p0 = kRuntimeQuantiles[i].probability, p1 = kRuntimeQuantiles[i + 1].probability;
    const double lo = std::max(from, p0), hi = std::min(to, p1);
    if (!(hi > lo) || !(p1 > p0)) continue;
    const double l0 = std::log(kRuntimeQuantiles[i].seconds);
    const double l1 = std::log(kRuntimeQuantiles[i + 1].seconds);
    const auto at = [&](double u) { return std::exp(l0 + (u - p0) / (p1 - p0) * (l1 - l0)); };
    sum += segment_mean(at(lo), at(hi), hi - lo, cap);
  }
  return sum;
}

}  // namespace

double generator_mean_gpu_seconds(const GeneratorOptions& options) {
  validate(options);
  double mean_gpus = 0.0;
  for (const GpuDemand& demand : kGpuDemand) {
    mean_gpus += demand.probability * clamp_gpus(demand.gpus, options.max_gpus_per_job);
  }
  // Demand and runtime are sampled independently, so E[gpus * runtime] = E[gpus] * E[runtime].
  const double independent =
      mean_gpus * (exponential_durations(options)
                       ? exponential_mean_runtime(options.mean_duration_s, options.max_duration_s)
                       : mean_runtime(options.max_duration_s));
  const double rho = options.gpu_duration_correlation;
  if (rho == 0.0) return independent;
  // With probability rho the runtime quantile is the one that drew the GPU count, which lies in
  // that count's band of the demand CDF: E[gpus * runtime | coupled] = sum over the bands of
  // gpus x the runtime quantile function's integral over the band.
  const Tables& t = tables();
  double coupled = 0.0, band_start = 0.0;
  for (std::size_t k = 0; k < kGpuDemand.size(); ++k) {
    coupled += clamp_gpus(kGpuDemand[k].gpus, options.max_gpus_per_job) *
               runtime_integral(options, band_start, t.gpu_cdf[k]);
    band_start = t.gpu_cdf[k];
  }
  return (1.0 - rho) * independent + rho * coupled;
}

namespace {

// A log-linear quantile table as (seconds, probability) points: `per_segment` midpoints of each
// segment, durations clamped to `cap` (0 = none).
template <std::size_t N>
std::vector<std::pair<double, double>> quantile_points(const std::array<RuntimeQuantile, N>& table,
                                                       double cap) {
  constexpr int kPerSegment = 64;
  std::vector<std::pair<double, double>> points;
  points.reserve((N - 1) * kPerSegment);
  for (std::size_t i = 0; i + 1 < N; ++i) {
    const double width = table[i + 1].probability - table[i].probability;
    if (width <= 0.0) continue;
    const double la = std::log(table[i].seconds), lb = std::log(table[i + 1].seconds);
    for (int k = 0; k < kPerSegment; ++k) {
      const double f = (k + 0.5) / kPerSegment;
      points.emplace_back(cap_duration(std::exp(la + f * (lb - la)), cap), width / kPerSegment);
    }
  }
  return points;
}

}  // namespace

Workload generate_synergy_workload(const GeneratorOptions& options);  // synergy_generator.cc
void synergy_gpu_moments(const GeneratorOptions& options, double& mean, double& square);

namespace {

WorkloadShape synergy_shape(const GeneratorOptions& options) {
  WorkloadShape shape;
  // 60 x 10^U(1.5, 3) s for 80% of jobs, 60 x 10^U(3, 4) s for 20%: log-linear quantiles.
  const std::array<RuntimeQuantile, 3> table = {
      {{0.0, 60.0 * std::pow(10.0, 1.5)}, {0.8, 60.0 * 1e3}, {1.0, 60.0 * 1e4}}};
  shape.durations = quantile_points(table, options.max_duration_s);
  shape.arrival_rate = options.jobs_per_hour / 3600.0;
  synergy_gpu_moments(options, shape.mean_gpus, shape.mean_gpus_sq);
  return shape;
}

WorkloadShape philly_shape(const GeneratorOptions& options) {
  WorkloadShape shape;
  if (exponential_durations(options)) {
    // Midpoints of equal-probability bands: fine enough for the rule's run-length plan.
    constexpr int kBands = 4096;
    shape.durations.reserve(kBands);
    for (int k = 0; k < kBands; ++k) {
      const double u = (k + 0.5) / kBands;
      shape.durations.emplace_back(
          cap_duration(exponential_runtime(u, options.mean_duration_s), options.max_duration_s),
          1.0 / kBands);
    }
  } else {
    shape.durations = quantile_points(kRuntimeQuantiles, options.max_duration_s);
  }
  // With a diurnal pattern this is the weekly mean rate (the profiles are normalised to mean 1),
  // and the plan measures at least one whole cycle of it.
  shape.arrival_rate = options.load * options.cluster_gpus / generator_mean_gpu_seconds(options);
  shape.cycle_s = philly_patterns::cycle_seconds(options);
  shape.load = options.load;  // exact (the quantile points only approximate E[D])
  shape.mean_gpus = shape.mean_gpus_sq = 0.0;
  for (const GpuDemand& demand : kGpuDemand) {
    const double gpus = clamp_gpus(demand.gpus, options.max_gpus_per_job);
    shape.mean_gpus += demand.probability * gpus;
    shape.mean_gpus_sq += demand.probability * gpus * gpus;
  }
  return shape;
}

}  // namespace

WorkloadShape generator_shape(const GeneratorOptions& options) {
  const ComponentDescriptor* generator = find_generator(options.shape);
  if (!generator) throw unknown_shape(options.shape);
  if (!generator->factory.workload_shape) {
    std::string shaped;
    for (const ComponentDescriptor& d : generator_components())
      if (d.caps.steady_state) shaped += (shaped.empty() ? "" : " and ") + d.name;
    throw std::invalid_argument("generator '" + options.shape +
                                "' has no steady-state shape (only " + shaped + ")");
  }
  return generator->factory.workload_shape(options);
}

Workload generate_query_dag_workload(const GeneratorOptions& options);  // query_dag_generator.cc
Workload generate_llm_era_workload(const GeneratorOptions& options);    // llm_era_generator.cc

namespace {

// Makes a fraction of the jobs elastic, from a stream of its own (so the jobs are otherwise as
// without it, and the workload stays prefix-stable).
void make_elastic(const GeneratorOptions& options, Workload& workload) {
  if (options.elastic_fraction <= 0.0) return;
  std::uint64_t state = options.seed ^ 0xe1a571cULL;
  Rng rng(splitmix64(state));
  const int cap =
      options.max_gpus_per_job > 0 ? options.max_gpus_per_job : std::max(1, options.cluster_gpus);
  for (JobSpec& job : workload.jobs) {
    if (!(rng.uniform() < options.elastic_fraction)) continue;
    job.min_gpus =
        std::max(1, static_cast<int>(std::floor(job.num_gpus * options.elastic_min_factor)));
    job.max_gpus = std::max(
        job.num_gpus,
        std::min(cap, static_cast<int>(std::ceil(job.num_gpus * options.elastic_max_factor))));
  }
}

// The training generators' jobs, some of them elastic (query DAGs have no elastic tasks).
template <Workload (*generate)(const GeneratorOptions&)>
Workload with_elastic_jobs(const GeneratorOptions& options) {
  if (!(options.elastic_fraction >= 0.0 && options.elastic_fraction <= 1.0) ||
      !(options.elastic_min_factor > 0.0 && options.elastic_min_factor <= 1.0) ||
      !(options.elastic_max_factor >= 1.0 && std::isfinite(options.elastic_max_factor)))
    throw std::invalid_argument(
        "elastic_fraction must be in [0, 1], elastic_min_factor in (0, 1], "
        "elastic_max_factor >= 1");
  Workload workload = generate(options);
  make_elastic(options, workload);
  return workload;
}

Workload generate_philly_workload(const GeneratorOptions& options);

// Every generator draws on workload.seed (caps.random); the training ones have a steady-state
// shape, query_dag yields serving query DAGs.
ComponentDescriptor generator_entry(std::string name, std::string summary,
                                    std::vector<std::string> key_components,
                                    Workload (*generate)(const GeneratorOptions&),
                                    WorkloadShape (*shape)(const GeneratorOptions&)) {
  ComponentDescriptor d = describe(ComponentKind::kGenerator, std::move(name), std::move(summary),
                                   std::move(key_components));
  d.key_components.insert(d.key_components.begin(), "generators");
  d.caps.random = true;
  d.caps.steady_state = shape != nullptr;
  d.caps.serving = shape == nullptr;
  d.factory.generator = generate;
  d.factory.workload_shape = shape;
  return d;
}

std::vector<ComponentDescriptor> generators() {
  std::vector<ComponentDescriptor> t;
  t.push_back(generator_entry(
      "philly", "Poisson arrivals at a target load, Philly-shaped GPU demands and durations", {},
      with_elastic_jobs<generate_philly_workload>, philly_shape));
  t.push_back(generator_entry("synergy", "the Synergy study's workload (Poisson, model classes)",
                              {"generator synergy"}, with_elastic_jobs<generate_synergy_workload>,
                              synergy_shape));
  t.push_back(generator_entry("query_dag", "serving queries as DAGs of model tasks (Compass)",
                              {"generator query_dag"}, generate_query_dag_workload, nullptr));
  // No steady-state shape: a window would grow the workload, and the llm rate model reads a
  // run's LLM columns once (the config refuses a window).
  ComponentDescriptor llm_era = generator_entry(
      "llm_era",
      "Poisson arrivals at a target load of LLM pretraining, SFT, evaluation and debug "
      "jobs fitted to Acme's published mix",
      {"generator llm_era"}, generate_llm_era_workload, nullptr);
  llm_era.caps.serving = false;
  llm_era.caps.llm_jobs = true;
  t.push_back(std::move(llm_era));
  return t;
}

}  // namespace

const std::vector<ComponentDescriptor>& generator_components() {
  static const std::vector<ComponentDescriptor> table = generators();
  return table;
}

const ComponentDescriptor* find_generator(std::string_view shape) {
  for (const ComponentDescriptor& d : generator_components())
    if (d.name == shape) return &d;
  return nullptr;
}

Workload generate_workload(const GeneratorOptions& options) {
  const ComponentDescriptor* generator = find_generator(options.shape);
  if (!generator) throw unknown_shape(options.shape);
  return generator->factory.generator(options);
}

namespace {

Workload generate_philly_workload(const GeneratorOptions& options) {
  const double mean_gpu_seconds = generator_mean_gpu_seconds(options);  // validates options
  const Tables& t = tables();
  // Offered load = arrival rate * mean GPU-seconds per job / cluster GPUs.
  const double arrival_rate = options.load * options.cluster_gpus / mean_gpu_seconds;

  Rng rng(options.seed);
  Rng user_rng(stream_seed(options.seed, 0x05e25ULL));  // users: a stream of their own
  // The GPU-duration coupling's choices: a stream of their own (the other draws are unchanged).
  Rng coupling_rng(stream_seed(options.seed, 0xc0a1eULL));
  const double coupling = options.gpu_duration_correlation;
  std::optional<philly_patterns::DiurnalArrivals> diurnal;
  if (options.arrival_pattern == "diurnal") diurnal.emplace(options, arrival_rate);
  std::vector<double> vc_cdf;
  for (double weight : options.vc_weights)
    vc_cdf.push_back((vc_cdf.empty() ? 0.0 : vc_cdf.back()) + weight);
  for (double& p : vc_cdf) p /= vc_cdf.back();
  Workload workload;
  workload.jobs.reserve(options.jobs);
  double clock = 0.0;
  char id_buffer[24] = {'g'};
  for (std::size_t n = 0; n < options.jobs; ++n) {
    // Exponential inter-arrival by inversion; 1 - u is in (0, 1], so the log is finite. A
    // diurnal pattern draws its times from its own stream, and this draw is left unused, so
    // that the jobs are those of the flat pattern with the same seed (paired comparisons).
    const double gap = -std::log(1.0 - rng.uniform()) / arrival_rate;
    clock = diurnal ? diurnal->next() : clock + gap;
    JobSpec& job = workload.jobs.emplace_back();
    const auto [end, error] = std::to_chars(id_buffer + 1, id_buffer + sizeof(id_buffer), n + 1);
    (void)error;  // 20 digits always fit
    job.id.assign(id_buffer, end);
    job.submit_time = clock;
    const double gpu_quantile = rng.uniform();
    job.num_gpus = clamp_gpus(kGpuDemand[sample_index(t.gpu_cdf, gpu_quantile)].gpus,
                              options.max_gpus_per_job);
    double quantile = rng.uniform();
    if (coupling > 0.0 && coupling_rng.uniform() < coupling) quantile = gpu_quantile;
    const double runtime = exponential_durations(options)
                               ? exponential_runtime(quantile, options.mean_duration_s)
                               : sample_runtime(quantile, t);
    job.duration = cap_duration(runtime, options.max_duration_s);
    job.model = kModelMix[sample_index(t.model_cdf, rng.uniform())].name;
    if (!vc_cdf.empty()) {
      job.vc = options.vcs[std::min(sample_index_of(vc_cdf, rng.uniform()), vc_cdf.size() - 1)];
    } else if (!options.vcs.empty()) {
      job.vc = options.vcs[rng.below(options.vcs.size())];
    }
    if (options.users > 0) {
      const auto users = static_cast<std::uint64_t>(options.users);
      std::uint64_t user = std::min(users - 1, static_cast<std::uint64_t>(quantile * users));
      if (user_rng.uniform() < 0.2) user = user_rng.below(users);
      char user_buffer[24] = {'u'};
      const auto [user_end, user_error] =
          std::to_chars(user_buffer + 1, user_buffer + sizeof(user_buffer), user);
      (void)user_error;  // 20 digits always fit
      job.user.assign(user_buffer, user_end);
    }
  }
  return workload;
}

}  // namespace

namespace options {

// Keys of every generator, and philly's; synergy's and query_dag's are in their files.
void declare_generator_keys(KeyRegistry& keys) {
  custom(keys, "workload.generator", KeyType::kChoice)
      .choices([] {
        std::vector<std::string> names;
        for (const ComponentDescriptor& d : generator_components()) names.push_back(d.name);
        return names;
      }())
      .component("generators")
      .doc(
          "A synthetic workload instead of `trace`: `philly` (Poisson arrivals at a target "
          "`load`, Philly-shaped GPU demands and durations, a model mix), `synergy` (the Synergy "
          "study's), `query_dag` (serving queries as DAGs of model tasks, run on the serving "
          "engine), `llm_era` (LLM pretraining, SFT, evaluation and debug jobs, Acme's mix) "
          "([`sim/README.md`](sim/README.md#workloads)).");
  const auto key = [&](std::string name, auto ref) {
    return field<GeneratorOptions>(keys, "workload." + std::move(name), ref)
        .when("workload.generator", {})
        .component("generators");
  };
  key(
      "jobs", [](auto& g) -> auto& { return g.jobs; })
      .range(1, 100'000'000)
      .training_only()
      .refusal("query_dag generates queries: set 'queries'")
      .default_note("`1000`; the steady-state plan's with `steady_state = \"auto\"`")
      .doc(
          "Jobs to generate (with a `window` and no `jobs`: enough to reach the window and keep "
          "arriving past it). With `[metrics] steady_state = \"auto\"` the warm-up and the "
          "measured jobs come out of them, and arrivals go on past them while the measured jobs "
          "finish; unset, the rule sizes the run for `precision`.");
  key(
      "load", [](auto& g) -> auto& { return g.load; })
      .range(1e-6, 100.0)
      .when("workload.generator", {"philly", "llm_era"})
      .training_only()
      .doc("Offered load: GPU-seconds asked per second, over the cluster's GPUs.");
  key(
      "seed", [](auto& g) -> auto& { return g.seed; })
      .range(std::int64_t{0}, std::numeric_limits<std::int64_t>::max())
      .input_only_range()
      .doc("The generator's seed (a sweep derives it per point).");
  key(
      "max_gpus_per_job", [](auto& g) -> auto& { return g.max_gpus_per_job; })
      .range(0, 1 << 20)
      .training_only()
      .doc("Larger GPU demands are clamped to this (0 = no cap).");
  key(
      "max_duration_s", [](auto& g) -> auto& { return g.max_duration_s; })
      .range(0.0, 1e12)
      .training_only()
      .doc(
          "Longer durations are clamped to this, as a job time limit would end them (0 = no "
          "cap). `philly`'s durations reach 53.6 days, and its 1% of jobs over 3.3 days hold "
          "~48% of the GPU time: a steady state then takes months of arrivals; 172800 (2 days, "
          "2% of the jobs) keeps it to days. `load` counts the capped durations.");
  key(
      "durations", [](auto& g) -> auto& { return g.durations; })
      .choices({"philly", "exponential"})
      .when("workload.generator", {"philly"})
      .training_only()
      .doc(
          "philly: job durations from Philly's runtime table (`philly`), or `exponential` of "
          "mean `mean_duration_s` (with `max_gpus_per_job = 1`: an M/M/c queue, whose mean wait "
          "Erlang's C formula gives).");
  key(
      "mean_duration_s", [](auto& g) -> auto& { return g.mean_duration_s; })
      .range(1e-6, 1e12)
      .when("workload.durations", {"exponential"})
      .training_only()
      .doc("Mean of the exponential durations, seconds (before `max_duration_s`).");
  key(
      "vcs", [](auto& g) -> auto& { return g.vcs; })
      .expected("a list of VC names")
      .doc("Jobs are spread over these VCs, uniformly or by `vc_weights` (empty = none).");
  key(
      "users", [](auto& g) -> auto& { return g.users; })
      .range(0, 1 << 24)
      .when("workload.generator", {"philly"})
      .training_only()
      .doc(
          "philly: jobs belong to this many users (`u0`, ...; 0 = none); a job's user follows "
          "its duration's quantile band (one job in five: a uniform user), so a user's jobs run "
          "alike: what `qssf` and `sju` learn from.");
  key(
      "elastic_fraction", [](auto& g) -> auto& { return g.elastic_fraction; })
      .range(0.0, 1.0)
      .training_only()
      .doc(
          "This fraction of the jobs is elastic, within [request x `elastic_min_factor`, "
          "request x `elastic_max_factor`] GPUs (a stream of its own: other draws unchanged).");
  key(
      "elastic_min_factor", [](auto& g) -> auto& { return g.elastic_min_factor; })
      .range(1e-9, 1.0)
      .training_only()
      .doc("An elastic job's fewest GPUs, x its request (at least 1).");
  key(
      "elastic_max_factor", [](auto& g) -> auto& { return g.elastic_max_factor; })
      .range(1.0, 1e6)
      .training_only()
      .doc(
          "An elastic job's most GPUs, x its request (capped at `max_gpus_per_job`, else the "
          "cluster's GPUs).");
  declare_philly_pattern_keys(keys);
  declare_synergy_keys(keys);
  declare_query_dag_keys(keys);
  declare_llm_era_keys(keys);
}

}  // namespace options

}  // namespace clustersim
