// Synthetic workload generators: "philly" (Poisson arrivals at a target load, Philly-shaped GPU
// demand and duration distributions, a model mix), "synergy" (the Synergy study's workload) and
// "query_dag" (serving queries as DAGs of model tasks, shaped like the Compass study's; the
// workload has Workload::dag set). All are prefix-stable: generating more jobs with the same seed
// leaves the first ones as they were, so a steady-state window can be extended by generating again
// with more jobs. Reproducible from a seed on every platform (it uses its own RNG and inverse-CDF
// sampling, not <random>'s implementation-defined distributions).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clustersim/job.h"

namespace clustersim {

struct ServingCatalog;
struct ComponentDescriptor;

// The "diurnal" arrival pattern's default profiles (relative rates, mean 1): measured from the
// creation times of the GPU pods of Alibaba's openb trace (generator.cc says how).
std::vector<double> default_rate_by_hour();     // 24 values, hour 0 first
std::vector<double> default_rate_by_weekday();  // 7 values, day 0 first

struct GeneratorOptions {
  std::string shape = "philly";  // a generator's name: generator_components()
  std::size_t jobs = 1000;
  double load = 0.8;         // philly: offered GPU-seconds per second over cluster GPUs
  int cluster_gpus = 64;     // philly: capacity the load refers to
  int max_gpus_per_job = 0;  // 0 = no cap (else demands above it are clamped)
  // philly and synergy: durations above this are clamped to it, as a cluster's job time limit
  // would end them (0 = no cap). The philly table's tail reaches 53.6 days (1% of its jobs run
  // over 3.3 days and carry ~48% of its GPU time): a steady state then takes months of arrivals.
  // philly's arrival rate is set from the capped mean, so `load` stays the offered load.
  double max_duration_s = 0.0;
  // philly: "philly" draws durations from Philly's runtime table; "exponential" from an
  // exponential distribution of mean `mean_duration_s` (before the cap) with the same draws, so
  // with `max_gpus_per_job = 1` the workload is an M/M/c queue whose waits are known (Erlang C).
  std::string durations = "philly";
  double mean_duration_s = 3600.0;
  std::uint64_t seed = 1;
  std::vector<std::string> vcs;  // jobs are spread over these VCs uniformly; empty = none
  // philly: a job's VC is drawn with these relative weights (one per VC in `vcs`; empty =
  // uniform, as before), e.g. Philly's VC sizes (../shared/traces/philly/philly_vc.csv).
  std::vector<double> vc_weights;
  // philly: "flat" = a homogeneous Poisson process (as before); "diurnal" = a non-homogeneous
  // one whose rate at hour h of day d (t = 0 is hour 0 of day 0) is the mean rate x
  // rate_by_hour[h] x rate_by_weekday[d], each profile normalised to mean 1 (so the weekly
  // mean rate, and `load`, are as with "flat"). Drawn by thinning from a stream of its own.
  std::string arrival_pattern = "flat";
  std::vector<double> rate_by_hour = default_rate_by_hour();
  std::vector<double> rate_by_weekday = default_rate_by_weekday();
  // philly: how strongly a job's duration follows its GPU count, in [0, 1] (0 = independent, as
  // before): a job's duration quantile is, with this probability, the quantile that drew its GPU
  // count (else an independent one), so the two draws' Spearman correlation is this value. Both
  // marginal distributions stay as they are, and larger jobs run longer, as Philly's do.
  double gpu_duration_correlation = 0.0;
  // philly: "weights" = the run's [cluster] vcs are the generated VCs, with GPU quotas in
  // proportion to vc_weights (vc_quotas_from_weights); "none" = as the config says.
  std::string vc_quotas = "none";
  // Elastic jobs (either shape): this fraction of the jobs may run with between
  // max(1, floor(num_gpus x elastic_min_factor)) and ceil(num_gpus x elastic_max_factor) GPUs
  // (capped at max_gpus_per_job, else the cluster's GPUs). Drawn from a stream of its own: the
  // jobs are otherwise the same as without.
  double elastic_fraction = 0.0;
  double elastic_min_factor = 0.5;
  double elastic_max_factor = 2.0;
  // philly: jobs belong to this many users ("u0", "u1", ...; 0 = none), whose jobs run alike: a
  // job's user is its duration's quantile band (users x the quantile), except for one job in
  // five, whose user is uniform (a stream of its own: the jobs are otherwise the same). What
  // the duration-estimate policies (qssf, sju) learn from.
  int users = 0;
  // synergy (Mohan et al., OSDI'22, section 6): Poisson arrivals at this rate; each job's model
  // class drawn by class_split = {image, language, speech} in %, its model uniformly within the
  // class (Synergy's model zoo); GPUs "single" (1) or "philly" (1, 2, 4, 8, 16 in Philly's
  // proportions); duration at the proportional share 60 x 10^U(1.5, 3) s for 80% of jobs and
  // 60 x 10^U(3, 4) s for 20% (Synergy's simulator, get_gavel_like_iter).
  double jobs_per_hour = 5.0;
  std::array<double, 3> class_split = {20.0, 70.0, 10.0};
  std::string gpu_demand = "single";
  // query_dag (query_dag_generator.cc): `queries` queries (`jobs` is not used), arriving at
  // `queries_per_s` on average: "poisson", or "mmpp", a 2-state Markov-modulated Poisson process
  // whose bursts run at `burst_factor` x the calm rate, fill `burst_fraction` of the time and
  // last `burst_mean_s` on average (exponentially distributed). Shapes: "compass" draws each
  // query from the catalog's pipelines (the study's four), with Zipf(`zipf_s`) popularity in
  // catalog order; "synthetic" makes chains (share `chain_fraction`, 2..`max_chain` tasks) and
  // fan-out/fan-in pipelines (a source, 2..`max_fanout` branches, a join), each task's model
  // drawn with Zipf(`zipf_s`) popularity over `dag_models` (most popular first; empty = every
  // catalog model with a compute time, in catalog order).
  std::size_t queries = 1000;
  double queries_per_s = 10.0;
  std::string arrival = "poisson";
  double burst_factor = 4.0;
  double burst_fraction = 0.2;
  double burst_mean_s = 10.0;
  std::string dag_shapes = "compass";
  double zipf_s = 1.0;
  double chain_fraction = 0.5;
  int max_chain = 4;
  int max_fanout = 3;
  std::vector<std::string> dag_models;
  std::shared_ptr<const ServingCatalog> catalog;  // null = default_serving_catalog()
  // llm_era (llm_era_generator.cc; sim/README.md, "LLM-era jobs"): Poisson arrivals at `load` of
  // pretraining, SFT, evaluation and debug jobs, the mix fitted to an Acme cluster's published
  // figures ("seren" or "kalos"). Each llm_class_* list holds one value per class [pretrain, sft,
  // eval, debug] and replaces the cluster's fit; empty = the fit.
  std::string llm_acme_cluster = "seren";
  std::vector<double> llm_class_shares;     // relative shares of the jobs
  std::vector<double> llm_class_min_gpus;   // powers of two
  std::vector<double> llm_class_max_gpus;   // powers of two
  std::vector<double> llm_class_gpu_decay;  // weight ratio from one power of two to the next
  std::vector<double> llm_class_median_s;   // lognormal durations: median
  std::vector<double> llm_class_sigma;      // and sigma of the log
};

// The generators' descriptors (component.h), in a fixed order: the config's choices, the name
// checks and what a run may do with a generated workload (steady state, serving) come from them.
const std::vector<ComponentDescriptor>& generator_components();
// The generator named `shape`, or nullptr.
const ComponentDescriptor* find_generator(std::string_view shape);

// The models the synergy generator draws from, by class (image, language, speech).
const std::vector<std::vector<std::string>>& synergy_model_classes();

Workload generate_workload(const GeneratorOptions& options);

// GPU quotas for `vcs` VCs in proportion to `weights` (empty = equal), summing to `gpus`: each
// VC gets floor(gpus x share), the GPUs left go to the largest remainders (ties: the earlier
// VC), and a VC left at 0 gets 1 GPU from the largest quota. Throws std::invalid_argument when gpus
// < vcs or the weights are not one per VC, finite, >= 0, with a positive sum.
std::vector<int> vc_quotas_from_weights(const std::vector<double>& weights, std::size_t vcs,
                                        int gpus);

// Mean GPU-seconds of one generated philly job (used to turn `load` into an arrival rate).
double generator_mean_gpu_seconds(const GeneratorOptions& options);
// The same for the llm_era generator (its class mix, after the caps).
double llm_era_mean_gpu_seconds(const GeneratorOptions& options);
// The first problem of the llm_era options as (key, message) (the config names the key); ("", "")
// when none.
std::pair<std::string, std::string> llm_era_problem(const GeneratorOptions& options);

struct WorkloadShape;  // steady_state.h
// The philly and synergy generators' jobs as the steady-state rule sees them (steady_state.h):
// their arrival rate, GPU demand and duration distributions (after the caps). Throws
// std::invalid_argument for a generator without caps.steady_state (query_dag: serving queries
// have no such shape).
WorkloadShape generator_shape(const GeneratorOptions& options);

}  // namespace clustersim
