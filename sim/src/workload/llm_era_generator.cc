// The LLM-era generator ("llm_era"; sim/README.md, "Workloads", "LLM-era jobs"): Poisson
// arrivals at a target load of four job classes, pretraining (gangs of 64+ GPUs with LLM
// columns: a preset model, a precision and a TP x PP x DP layout), SFT (8-256 GPUs, LLM columns
// too), evaluation and debug (1-8 GPUs, no columns), their mix fitted to the cluster-wide figures
// Acme publishes (Hu et al., "Characterization of Large Language Model Development in the
// Datacenter", NSDI'24; ../shared/reference/acme/cluster_summary.csv): GPU jobs' mean and median
// GPUs and run times. Per class: GPU counts are powers of two from a minimum to a maximum, each
// doubling `decay` times as likely as the one before; durations are lognormal (a median and a
// sigma). scripts/llm_era_fit.py fits the shares and medians (README says what is assumed).
//
// Reproducible everywhere: clustersim::Rng and inverse-CDF sampling (the normal quantile by
// Acklam's rational approximation: std::log and std::sqrt only). Every job draws five values, so
// the workload is prefix-stable.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "clustersim/generator.h"
#include "clustersim/llm.h"
#include "clustersim/random.h"
#include "options/declare.h"

namespace clustersim {

namespace {

constexpr std::size_t kClasses = 4;  // pretrain, sft, eval, debug
constexpr std::array<const char*, kClasses> kClassNames = {"pretrain", "sft", "eval", "debug"};

// One Acme cluster's fit (scripts/llm_era_fit.py): shares in % of the GPU jobs, GPU counts
// (powers of two in [min, max], weight decay^k for the k-th doubling), lognormal durations.
struct ClassMix {
  std::array<double, kClasses> shares, min_gpus, max_gpus, decay, median_s, sigma;
};
// Seren: mean GPUs 5.68, median 1; run time mean 1,414.3 s, median 122 s.
constexpr ClassMix kSeren = {
    {1.785, 5.355, 55.716, 37.144}, {64, 8, 1, 1},       {1024, 256, 8, 8}, {0.5, 0.5, 0.3, 0.3},
    {18847.0, 4711.8, 196.7, 39.3}, {1.2, 1.2, 1.0, 1.0}};
// Kalos: mean GPUs 26.77, median 1; run time mean 1,259.7 s, median 124 s.
constexpr ClassMix kKalos = {
    {5.760, 5.760, 53.089, 35.392}, {64, 8, 1, 1},       {1024, 256, 8, 8}, {1.0, 0.7, 0.3, 0.3},
    {7287.7, 1821.9, 183.3, 36.7},  {1.2, 1.2, 1.0, 1.0}};

// The options' mix: each list the user set replaces the Acme cluster's.
ClassMix resolved_mix(const GeneratorOptions& o) {
  ClassMix mix = o.llm_acme_cluster == "kalos" ? kKalos : kSeren;
  const auto take = [](const std::vector<double>& set, std::array<double, kClasses>& into) {
    if (set.size() == kClasses) std::copy(set.begin(), set.end(), into.begin());
  };
  take(o.llm_class_shares, mix.shares);
  take(o.llm_class_min_gpus, mix.min_gpus);
  take(o.llm_class_max_gpus, mix.max_gpus);
  take(o.llm_class_gpu_decay, mix.decay);
  take(o.llm_class_median_s, mix.median_s);
  take(o.llm_class_sigma, mix.sigma);
  return mix;
}

bool power_of_two(double x) {
  if (!(x >= 1.0 && x <= double(1 << 30)) || x != std::floor(x)) return false;
  const auto n = static_cast<std::uint32_t>(x);
  return (n & (n - 1)) == 0;
}

// The largest power of two <= gpus (>= 1): a class's sizes are capped there, so that every
// layout stays a power of two.
int power_floor(int gpus) {
  int p = 1;
  while (p <= gpus / 2) p *= 2;
  return p;
}

// One class's GPU counts and their CDF, capped at the cluster (and max_gpus_per_job).
struct GpuTable {
  std::vector<int> gpus;
  std::vector<double> cdf;
  double mean = 0.0;
};

GpuTable gpu_table(const ClassMix& mix, std::size_t c, int cap) {
  GpuTable t;
  double weight = 1.0, total = 0.0;
  for (double g = mix.min_gpus[c]; g <= mix.max_gpus[c]; g *= 2) {
    t.gpus.push_back(std::min(static_cast<int>(g), cap));
    total += weight;
    t.cdf.push_back(total);
    weight *= mix.decay[c];
  }
  for (double& p : t.cdf) p /= total;
  for (std::size_t i = 0; i < t.gpus.size(); ++i)
    t.mean += (t.cdf[i] - (i ? t.cdf[i - 1] : 0.0)) * t.gpus[i];
  return t;
}

std::size_t draw_index(const std::vector<double>& cdf, double u) {
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  return std::min(static_cast<std::size_t>(it - cdf.begin()), cdf.size() - 1);
}

// The standard normal's quantile at u in (0, 1): Acklam's rational approximation (relative
// error < 1.2e-9), in two pieces: the central region and the tails.
double normal_quantile(double u) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  u = std::clamp(u, 1e-300, 1.0 - 1e-16);
  if (u < kLow || u > 1.0 - kLow) {
    const double q = std::sqrt(-2.0 * std::log(u < kLow ? u : 1.0 - u));
    const double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                     ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    return u < kLow ? x : -x;
  }
  const double q = u - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

// E[min(D, cap)] of a lognormal D of this median and sigma (cap 0: none).
double lognormal_mean(double median, double sigma, double cap) {
  const double mean = median * std::exp(0.5 * sigma * sigma);
  if (!(cap > 0.0)) return mean;
  if (sigma == 0.0) return std::min(median, cap);
  const auto phi = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  const double z = (std::log(cap) - std::log(median)) / sigma;
  return mean * phi(z - sigma) + cap * (1.0 - phi(z));
}

// A pretraining or SFT job's LLM columns for `gpus` (a power of two): a preset by size, its
// precision, a layout and a batch. `pick` in [0, 1) chooses between a tier's two models.
// Pretraining: Llama 3 8B / Nemotron 8B (TP 2) up to 128 GPUs; Llama 3 / Llama 2 70B (TP 8,
// PP 4) up to 512; GPT-3 175B (TP 8, PP 8) up to 2,048; Nemotron 340B (TP 8, PP 8) above; 16
// micro-batches of 1 per iteration and replica (4 for the 8B tier, PP 1): batches of 128-2,048
// sequences, as published pretraining runs use. SFT: Llama 2 7B / Llama 3 8B (TP 1) up to 32
// GPUs, Llama 2 / 3 70B (TP 8, PP 2) above, 2 sequences per replica (4 with PP 2): fine-tuning's
// small batches, so that the gradient all-reduce is about as long as the compute hiding it.
// Returns the columns and the preset's name (the job's `model`, as a trace's column names it).
std::pair<LlmJob, const char*> llm_columns(std::size_t cls, int gpus, double pick) {
  struct Tier {
    int up_to;
    const char* models[2];
    Precision precision;
    int tp, pp, micro_batches;
  };
  static constexpr Tier kPretrain[] = {
      {128, {"llama3-8b", "nemotron-8b"}, Precision::kFp8, 2, 1, 4},
      {512, {"llama3-70b", "llama2-70b"}, Precision::kFp8, 8, 4, 16},
      {2048, {"gpt3-175b", "gpt3-175b"}, Precision::kBf16, 8, 8, 16},
      {1 << 30, {"nemotron-340b", "nemotron-340b"}, Precision::kFp8, 8, 8, 16}};
  static constexpr Tier kSft[] = {
      {32, {"llama2-7b", "llama3-8b"}, Precision::kBf16, 1, 1, 2},
      {1 << 30, {"llama2-70b", "llama3-70b"}, Precision::kBf16, 8, 2, 4}};
  const Tier* tier = cls == 0 ? kPretrain : kSft;
  while (gpus > tier->up_to) ++tier;
  const char* model = tier->models[pick < 0.5 ? 0 : 1];
  LlmJob job;
  job.shape = *llm_preset(model);
  job.precision = tier->precision;
  // A gang capped below its tier's model parallelism (a small cluster) keeps what fits.
  job.tp = std::min(tier->tp, gpus);
  job.pp = std::min(tier->pp, gpus / job.tp);
  job.dp = gpus / (job.tp * job.pp);
  job.micro_batch = 1;
  job.global_batch = job.dp * tier->micro_batches;
  return {job, model};
}

}  // namespace

std::pair<std::string, std::string> llm_era_problem(const GeneratorOptions& o) {
  const auto four = [](const std::vector<double>& v) { return v.empty() || v.size() == kClasses; };
  if (!four(o.llm_class_shares) || !four(o.llm_class_min_gpus) || !four(o.llm_class_max_gpus) ||
      !four(o.llm_class_gpu_decay) || !four(o.llm_class_median_s) || !four(o.llm_class_sigma))
    return {"llm_class_shares", "each llm_class_* list has 4 entries"};  // the keys check this
  const ClassMix mix = resolved_mix(o);
  for (std::size_t c = 0; c < kClasses; ++c)
    if (mix.min_gpus[c] > mix.max_gpus[c])
      return {o.llm_class_min_gpus.empty() ? "llm_class_max_gpus" : "llm_class_min_gpus",
              std::string(kClassNames[c]) + ": min GPUs " +
                  std::to_string(static_cast<int>(mix.min_gpus[c])) + " > max GPUs " +
                  std::to_string(static_cast<int>(mix.max_gpus[c]))};
  if (o.elastic_fraction > 0.0)
    return {"elastic_fraction",
            "llm_era jobs have fixed TP x PP x DP layouts: they cannot be elastic"};
  if (o.users > 0) return {"users", "llm_era draws no users"};
  return {};
}

namespace {

void validate_llm_era(const GeneratorOptions& o) {
  if (const auto [key, message] = llm_era_problem(o); !key.empty())
    throw std::invalid_argument("generator " + key + ": " + message);
  if (!std::isfinite(o.load) || o.load <= 0.0)
    throw std::invalid_argument("generator load must be a finite number > 0");
  if (o.cluster_gpus < 1) throw std::invalid_argument("generator cluster_gpus must be >= 1");
}

int gpu_cap(const GeneratorOptions& o) {
  const int cap =
      o.max_gpus_per_job > 0 ? std::min(o.max_gpus_per_job, o.cluster_gpus) : o.cluster_gpus;
  return power_floor(cap);
}

}  // namespace

double llm_era_mean_gpu_seconds(const GeneratorOptions& o) {
  validate_llm_era(o);
  const ClassMix mix = resolved_mix(o);
  double total_share = 0.0, sum = 0.0;
  for (std::size_t c = 0; c < kClasses; ++c) {
    total_share += mix.shares[c];
    // GPUs and duration are drawn independently within a class.
    sum += mix.shares[c] * gpu_table(mix, c, gpu_cap(o)).mean *
           lognormal_mean(mix.median_s[c], mix.sigma[c], o.max_duration_s);
  }
  return sum / total_share;
}

Workload generate_llm_era_workload(const GeneratorOptions& o) {
  const double arrival_rate = o.load * o.cluster_gpus / llm_era_mean_gpu_seconds(o);
  const ClassMix mix = resolved_mix(o);
  std::array<GpuTable, kClasses> tables;
  std::vector<double> class_cdf;
  for (std::size_t c = 0; c < kClasses; ++c) {
    tables[c] = gpu_table(mix, c, gpu_cap(o));
    class_cdf.push_back((c ? class_cdf.back() : 0.0) + mix.shares[c]);
  }
  for (double& p : class_cdf) p /= class_cdf.back();
  // Evaluation and debug jobs carry no LLM columns: the plain speed model runs them.
  static constexpr const char* kModels[] = {nullptr, nullptr, "llm-eval", "llm-debug"};
  static constexpr const char* kIdPrefix[] = {"pt", "sft", "ev", "db"};

  Rng rng(o.seed);
  Rng vc_rng(stream_seed(o.seed, 0x7c5ULL));  // VCs: a stream of their own
  Workload workload;
  workload.jobs.reserve(o.jobs);
  LlmJobTable llm;
  double clock = 0.0;
  char id[32];
  for (std::size_t n = 0; n < o.jobs; ++n) {
    // Five draws per job, whatever its class: the stream stays prefix-stable.
    clock += -std::log(1.0 - rng.uniform()) / arrival_rate;
    const double class_draw = rng.uniform(), gpu_draw = rng.uniform();
    const double duration_draw = rng.uniform(), model_draw = rng.uniform();
    // A class of share 0 has an empty band of the CDF: never drawn.
    std::size_t cls = draw_index(class_cdf, class_draw);
    while (mix.shares[cls] <= 0.0) cls = (cls + 1) % kClasses;
    JobSpec& job = workload.jobs.emplace_back();
    const std::size_t prefix = std::char_traits<char>::length(kIdPrefix[cls]);
    std::copy_n(kIdPrefix[cls], prefix, id);
    const auto [end, error] = std::to_chars(id + prefix, id + sizeof(id), n + 1);
    (void)error;  // 20 digits always fit
    job.id.assign(id, end);
    job.submit_time = clock;
    job.num_gpus = tables[cls].gpus[draw_index(tables[cls].cdf, gpu_draw)];
    job.duration = mix.median_s[cls] * std::exp(mix.sigma[cls] * normal_quantile(duration_draw));
    if (o.max_duration_s > 0.0) job.duration = std::min(job.duration, o.max_duration_s);
    if (!o.vcs.empty()) job.vc = o.vcs[vc_rng.below(o.vcs.size())];
    if (cls >= 2) {
      job.model = kModels[cls];
      continue;
    }
    auto [columns, model] = llm_columns(cls, job.num_gpus, model_draw);
    job.model = model;
    llm.emplace_back(static_cast<std::uint32_t>(n), columns);
  }
  if (!llm.empty()) workload.llm = std::make_shared<const LlmJobTable>(std::move(llm));
  return workload;
}

namespace options {

void declare_llm_era_keys(KeyRegistry& keys) {
  const std::vector<std::string> llm_era = {"llm_era"};
  const auto key = [&](std::string name, auto ref) {
    return field<GeneratorOptions>(keys, "workload." + std::move(name), ref)
        .when("workload.generator", llm_era)
        .component("generator llm_era")
        .training_only();
  };
  key(
      "llm_acme_cluster", [](auto& g) -> auto& { return g.llm_acme_cluster; })
      .choices({"seren", "kalos"})
      .doc(
          "llm_era: the Acme cluster whose published job figures the class mix is fitted to "
          "(`seren`: mean 5.68 GPUs, run times mean 1,414 s / median 122 s; `kalos`: 26.77 "
          "GPUs, 1,260 s / 124 s; [`sim/README.md`](sim/README.md#llm-era-jobs)).");
  // A list of one number per class, each checked by `item_ok`.
  const auto per_class = [&](std::string name, std::vector<double> GeneratorOptions::*member,
                             std::string what, bool (*item_ok)(double), std::string doc) {
    key(
        std::move(name), [member](auto& g) -> auto& { return g.*member; })
        .expected("[pretrain, sft, eval, debug]: " + what)
        .check([what, item_ok](const OptionValue& value) -> std::string {
          const auto& v = std::get<std::vector<double>>(value);
          if (v.empty()) return "";
          bool ok = v.size() == kClasses;
          for (double x : v) ok = ok && item_ok(x);
          return ok ? "" : "expected [pretrain, sft, eval, debug]: " + what;
        })
        .default_note("`[]` (the Acme cluster's fit)")
        .doc(std::move(doc));
  };
  per_class(
      "llm_class_shares", &GeneratorOptions::llm_class_shares, "4 relative shares >= 0",
      [](double x) { return x >= 0.0 && std::isfinite(x); },
      "llm_era: each class's share of the jobs (relative; normalised to their sum).");
  per_class("llm_class_min_gpus", &GeneratorOptions::llm_class_min_gpus, "4 powers of two",
            power_of_two, "llm_era: each class's smallest GPU count (a power of two).");
  per_class(
      "llm_class_max_gpus", &GeneratorOptions::llm_class_max_gpus, "4 powers of two", power_of_two,
      "llm_era: each class's largest GPU count (a power of two; capped at the largest power of "
      "two within the cluster and `max_gpus_per_job`).");
  per_class(
      "llm_class_gpu_decay", &GeneratorOptions::llm_class_gpu_decay, "4 numbers > 0",
      [](double x) { return x > 0.0 && std::isfinite(x); },
      "llm_era: each class's weight ratio from one power of two to the next (1: each size "
      "alike).");
  per_class(
      "llm_class_median_s", &GeneratorOptions::llm_class_median_s, "4 durations > 0 s",
      [](double x) { return x > 0.0 && std::isfinite(x); },
      "llm_era: each class's median duration, seconds (lognormal).");
  per_class(
      "llm_class_sigma", &GeneratorOptions::llm_class_sigma, "4 numbers >= 0",
      [](double x) { return x >= 0.0 && x <= 10.0; },
      "llm_era: each class's lognormal sigma (of the log of the duration).");
}

}  // namespace options

}  // namespace clustersim
