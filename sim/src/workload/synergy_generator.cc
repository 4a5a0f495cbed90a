// The Synergy study's synthetic workload (Mohan et al., "Looking Beyond GPUs for DNN Scheduling
// on Multi-Tenant Clusters", OSDI'22, section 6; its simulator msr-fiddle/synergy @ 1bb2bed6,
// simulator/jobs/workload.py and helpers/utils.py): Poisson arrivals at `jobs_per_hour`, a model
// class per `class_split`, a model uniformly within the class, and durations of
// 60 x 10^U(1.5, 3) s (80% of jobs) or 60 x 10^U(3, 4) s (20%) at the proportional share.
//
// Differences from Synergy's own generator, on purpose: arrival times are exact (Synergy rounds
// them up to whole seconds); a job's class is drawn independently with the split's
// probabilities (Synergy steers each new job to the class furthest below its target share, so
// its realised split is exact); multi-GPU demands follow Philly's proportions over 1, 2, 4, 8
// and 16 GPUs (Synergy reads them from the Philly trace; its synthetic fallback draws 1/2/4/8 at
// 70/10/15/5%).
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "clustersim/generator.h"
#include "clustersim/random.h"
#include "options/declare.h"

namespace clustersim {

const std::vector<std::vector<std::string>>& synergy_model_classes() {
  // Synergy's zoo (simulator/jobs/model_zoo.py, create_default_models), named as our profiles.
  static const std::vector<std::vector<std::string>> classes = {
      {"alexnet", "resnet18", "resnet50", "mobilenet_v2", "shufflenet"},
      {"gnmt", "transformer", "lstm"},
      {"m5", "deepspeech"}};
  return classes;
}

namespace {

// Philly's multi-GPU proportions (the philly generator's table without its 32-GPU tail).
struct Demand {
  int gpus;
  double weight;
};
constexpr Demand kPhillyDemand[] = {{1, 0.70}, {2, 0.10}, {4, 0.11}, {8, 0.06}, {16, 0.02}};

}  // namespace

Workload generate_synergy_workload(const GeneratorOptions& options) {
  if (!(options.jobs_per_hour > 0.0) || !std::isfinite(options.jobs_per_hour))
    throw std::invalid_argument("jobs_per_hour must be a finite number > 0");
  double split_sum = 0.0;
  for (double share : options.class_split) {
    if (!(share >= 0.0) || !std::isfinite(share))
      throw std::invalid_argument("class_split shares must be finite numbers >= 0");
    split_sum += share;
  }
  if (std::abs(split_sum - 100.0) > 1e-6)
    throw std::invalid_argument("class_split must sum to 100 (it sums to " +
                                std::to_string(split_sum) + ")");
  if (options.gpu_demand != "single" && options.gpu_demand != "philly")
    throw std::invalid_argument("gpu_demand must be \"single\" or \"philly\"");

  double demand_sum = 0.0;
  for (const Demand& d : kPhillyDemand) demand_sum += d.weight;
  const auto& classes = synergy_model_classes();
  const double rate_per_s = options.jobs_per_hour / 3600.0;

  Rng rng(options.seed);
  Workload workload;
  workload.jobs.reserve(options.jobs);
  double clock = 0.0;
  for (std::size_t n = 0; n < options.jobs; ++n) {
    // Every job draws the same number of values, so the stream is prefix-stable.
    clock += -std::log(1.0 - rng.uniform()) / rate_per_s;
    const double class_draw = rng.uniform() * 100.0;
    const double model_draw = rng.uniform();
    const double long_draw = rng.uniform();
    const double length_draw = rng.uniform();
    const double gpu_draw = rng.uniform();
    const double vc_draw = rng.uniform();

    JobSpec& job = workload.jobs.emplace_back();
    job.id = std::to_string(n);
    job.submit_time = clock;
    std::size_t cls = 0;
    double cumulative = options.class_split[0];
    while (cls + 1 < classes.size() && class_draw >= cumulative)
      cumulative += options.class_split[++cls];
    // A class with a zero share is never drawn: skip forward to one that is.
    while (options.class_split[cls] <= 0.0) cls = (cls + 1) % classes.size();
    const auto& models = classes[cls];
    job.model =
        models[std::min(models.size() - 1,
                        static_cast<std::size_t>(model_draw * static_cast<double>(models.size())))];
    const double exponent = long_draw >= 0.8 ? 3.0 + length_draw : 1.5 + 1.5 * length_draw;
    job.duration = 60.0 * std::pow(10.0, exponent);
    if (options.max_duration_s > 0.0) job.duration = std::min(job.duration, options.max_duration_s);
    job.num_gpus = 1;
    if (options.gpu_demand == "philly") {
      double u = gpu_draw * demand_sum;
      for (const Demand& d : kPhillyDemand) {
        job.num_gpus = d.gpus;
        if (u < d.weight) break;
        u -= d.weight;
      }
    }
    if (options.max_gpus_per_job > 0)
      job.num_gpus = std::min(job.num_gpus, options.max_gpus_per_job);
    if (!options.vcs.empty())
      job.vc = options.vcs[std::min(
          options.vcs.size() - 1,
          static_cast<std::size_t>(vc_draw * static_cast<double>(options.vcs.size())))];
  }
  return workload;
}

// E[g] and E[g^2] of the jobs' GPUs (steady_state.h's shape).
void synergy_gpu_moments(const GeneratorOptions& options, double& mean, double& square) {
  const auto clamp = [&](int gpus) {
    return static_cast<double>(
        options.max_gpus_per_job > 0 ? std::min(gpus, options.max_gpus_per_job) : gpus);
  };
  mean = square = 0.0;
  if (options.gpu_demand != "philly") {
    mean = square = clamp(1);
    return;
  }
  double total = 0.0;
  for (const Demand& d : kPhillyDemand) total += d.weight;
  for (const Demand& d : kPhillyDemand) {
    mean += d.weight / total * clamp(d.gpus);
    square += d.weight / total * clamp(d.gpus) * clamp(d.gpus);
  }
}

namespace options {

void declare_synergy_keys(KeyRegistry& keys) {
  const std::vector<std::string> synergy = {"synergy"};
  field<GeneratorOptions>(
      keys, "workload.jobs_per_hour", [](auto& g) -> auto& { return g.jobs_per_hour; })
      .range(1e-9, 1e9)
      .when("workload.generator", synergy)
      .component("generator synergy")
      .training_only()
      .doc("Poisson arrival rate ([`sim/README.md`](sim/README.md#workloads)).");
  bound<GeneratorOptions>(
      keys, "workload.class_split", KeyType::kList,
      [](const GeneratorOptions& g) -> OptionValue {
        return std::vector<double>(g.class_split.begin(), g.class_split.end());
      },
      [](GeneratorOptions& g, const OptionValue& value) {
        const auto& shares = std::get<std::vector<double>>(value);
        std::copy(shares.begin(), shares.end(), g.class_split.begin());
      })
      .item(KeyType::kNumber)
      .when("workload.generator", synergy)
      .component("generator synergy")
      .training_only()
      .expected("[image, language, speech] in %")
      .check([](const OptionValue& value) -> std::string {
        const auto& shares = std::get<std::vector<double>>(value);
        if (shares.size() != 3) return "expected [image, language, speech] in %";
        double sum = 0.0;
        for (double share : shares) {
          if (!(share >= 0.0) || !std::isfinite(share))
            return "expected [image, language, speech] in %, each >= 0";
          sum += share;
        }
        if (std::abs(sum - 100.0) > 1e-6) {
          std::ostringstream message;
          message << "the shares must sum to 100 (they sum to " << sum << ")";
          return message.str();
        }
        return "";
      })
      .doc(
          "Image, language and speech models, in % of the jobs (each model uniformly within its "
          "class).");
  field<GeneratorOptions>(
      keys, "workload.gpu_demand", [](auto& g) -> auto& { return g.gpu_demand; })
      .choices({"single", "philly"})
      .when("workload.generator", synergy)
      .component("generator synergy")
      .training_only()
      .doc("GPUs per job: `single` (1) or `philly` (1-16, in Philly's proportions).");
}

}  // namespace options

}  // namespace clustersim
