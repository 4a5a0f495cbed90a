// Serving queries as DAGs of model tasks, shaped like the Compass study's (Yang et al.,
// arXiv:2402.17652): its four pipelines ("compass" shapes: a chain and three fan-out/fan-in
// pipelines of image, language and audio models), or chains and fan-out/fan-in pipelines of
// models drawn from the catalog ("synthetic"), with Zipf popularity, arriving as a Poisson
// process or in bursts (a 2-state MMPP).
//
// Reproducible everywhere: clustersim::Rng and inverse-CDF sampling (std::log is the only libm
// call). Prefix-stable: arrivals and shapes come from two streams, each consumed query by query
// in order, so the first n queries never depend on how many are generated.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "clustersim/dag.h"
#include "clustersim/generator.h"
#include "clustersim/random.h"
#include "clustersim/serving_catalog.h"
#include "options/declare.h"

namespace clustersim {

namespace {

[[noreturn]] void bad(const std::string& message) {
  throw std::invalid_argument("query_dag: " + message);
}

// An exponential variate of the given mean, by inversion (1 - u is in (0, 1]).
double exponential(Rng& rng, double mean) { return -std::log(1.0 - rng.uniform()) * mean; }

// Zipf popularity over `n` ranks: weight 1 / rank^s, as a cumulative table.
std::vector<double> zipf_cdf(std::size_t n, double s) {
  std::vector<double> cdf(n);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) cdf[i] = sum += std::pow(static_cast<double>(i + 1), -s);
  for (double& p : cdf) p /= sum;
  return cdf;
}

std::size_t draw(const std::vector<double>& cdf, double u) {
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  return std::min(static_cast<std::size_t>(it - cdf.begin()), cdf.size() - 1);
}

// Arrival times, one query at a time.
class Arrivals {
 public:
  Arrivals(const GeneratorOptions& o, std::uint64_t seed) : rng_(seed) {
    mmpp_ = o.arrival == "mmpp";
    if (!mmpp_) {
      rate_[0] = rate_[1] = o.queries_per_s;
      return;
    }
    // Calm rate r and burst rate b r with burst share f of the time: (1 - f) r + f b r = mean.
    const double f = o.burst_fraction;
    rate_[0] = o.queries_per_s / (1.0 - f + f * o.burst_factor);
    rate_[1] = o.burst_factor * rate_[0];
    mean_stay_[1] = o.burst_mean_s;
    mean_stay_[0] = o.burst_mean_s * (1.0 - f) / f;
    state_ = rng_.uniform() < f ? 1 : 0;  // the stationary distribution at time 0
    switch_at_ = exponential(rng_, mean_stay_[state_]);
  }

  double next() {
    while (true) {
      const double gap = exponential(rng_, 1.0 / rate_[state_]);
      if (!mmpp_ || clock_ + gap < switch_at_) {
        clock_ += gap;
        return clock_;
      }
      // The state changes first; exponential gaps are memoryless, so a fresh one is drawn.
      clock_ = switch_at_;
      state_ = 1 - state_;
      switch_at_ = clock_ + exponential(rng_, mean_stay_[state_]);
    }
  }

 private:
  Rng rng_;
  bool mmpp_ = false;
  double rate_[2] = {0.0, 0.0};
  double mean_stay_[2] = {0.0, 0.0};
  int state_ = 0;
  double clock_ = 0.0;
  double switch_at_ = 0.0;
};

// One query's tasks before they go into the workload: ids, models and edges local to the query.
struct QueryShape {
  struct Task {
    std::string id;
    std::size_t model = 0;
    double compute_ms = 0.0;
    double input_mb = 0.0;
    double output_mb = 0.0;
    std::vector<std::uint32_t> parents;  // local, earlier tasks
  };
  std::vector<Task> tasks;
};

std::string task_id(std::size_t k) {
  std::string id(1, 't');
  id += std::to_string(k);
  return id;
}

void validate(const GeneratorOptions& o, const ServingCatalog& catalog,
              std::vector<std::size_t>& models) {
  if (!(o.queries_per_s > 0.0) || !std::isfinite(o.queries_per_s))
    bad("queries_per_s must be a finite number > 0");
  if (o.arrival != "poisson" && o.arrival != "mmpp")
    bad("arrival must be \"poisson\" or \"mmpp\", not '" + o.arrival + "'");
  if (o.arrival == "mmpp") {
    if (!(o.burst_factor > 1.0) || !std::isfinite(o.burst_factor))
      bad("burst_factor must be a finite number > 1");
    if (!(o.burst_fraction > 0.0 && o.burst_fraction < 1.0))
      bad("burst_fraction must be in (0, 1)");
    if (!(o.burst_mean_s > 0.0) || !std::isfinite(o.burst_mean_s))
      bad("burst_mean_s must be a finite number > 0");
  }
  if (!(o.zipf_s >= 0.0) || !std::isfinite(o.zipf_s)) bad("zipf_s must be a finite number >= 0");
  if (o.dag_shapes == "compass") {
    if (catalog.pipelines.empty()) bad("the catalog " + catalog.file + " has no pipelines");
    return;
  }
  if (o.dag_shapes != "synthetic")
    bad("dag_shapes must be \"compass\" or \"synthetic\", not '" + o.dag_shapes + "'");
  if (!(o.chain_fraction >= 0.0 && o.chain_fraction <= 1.0))
    bad("chain_fraction must be in [0, 1]");
  if (o.max_chain < 2) bad("max_chain must be >= 2");
  if (o.max_fanout < 2) bad("max_fanout must be >= 2");
  if (o.dag_models.empty()) {
    for (std::size_t m = 0; m < catalog.models.size(); ++m)
      if (catalog.models[m].compute_ms) models.push_back(m);
    if (models.empty()) bad("the catalog " + catalog.file + " has no model with a compute time");
    return;
  }
  for (const std::string& name : o.dag_models) {
    const int m = catalog.find_model(name);
    if (m < 0) bad("unknown model '" + name + "' (not in the catalog " + catalog.file + ")");
    if (!catalog.models[static_cast<std::size_t>(m)].compute_ms)
      bad("model '" + name + "' has no compute_ms in the catalog " + catalog.file);
    models.push_back(static_cast<std::size_t>(m));
  }
}

}  // namespace

Workload generate_query_dag_workload(const GeneratorOptions& o) {
  const ServingCatalog& catalog = o.catalog ? *o.catalog : default_serving_catalog();
  std::vector<std::size_t> models;  // synthetic: the models drawn, most popular first
  validate(o, catalog, models);
  const bool compass = o.dag_shapes == "compass";
  const std::vector<double> popularity =
      zipf_cdf(compass ? catalog.pipelines.size() : models.size(), o.zipf_s);

  std::uint64_t seed_state = o.seed;
  Arrivals arrivals(o, splitmix64(seed_state));
  Rng shapes(splitmix64(seed_state));

  Workload workload;
  DagInfo& dag = workload.dag.emplace();
  dag.parent_begin.push_back(0);
  dag.task_begin.push_back(0);
  QueryShape shape;
  for (std::size_t q = 0; q < o.queries; ++q) {
    const double arrival = arrivals.next();
    shape.tasks.clear();
    if (compass) {
      const ServingPipeline& pipeline = catalog.pipelines[draw(popularity, shapes.uniform())];
      for (const PipelineTask& t : pipeline.tasks) {
        QueryShape::Task& task = shape.tasks.emplace_back();
        task.id = t.id;
        task.model = t.model;
        task.compute_ms = t.compute_ms;
        task.input_mb = t.input_mb;
        task.output_mb = t.output_mb;
        for (const std::size_t p : t.parents) task.parents.push_back(static_cast<std::uint32_t>(p));
      }
    } else {
      const bool chain = shapes.uniform() < o.chain_fraction;
      // A chain of 2..max_chain tasks; or a source, 2..max_fanout branches and a join.
      const std::size_t size = chain
                                   ? 2 + shapes.below(static_cast<std::uint64_t>(o.max_chain - 1))
                                   : 4 + shapes.below(static_cast<std::uint64_t>(o.max_fanout - 1));
      for (std::size_t k = 0; k < size; ++k) {
        QueryShape::Task& task = shape.tasks.emplace_back();
        task.id = task_id(k);
        task.model = models[draw(popularity, shapes.uniform())];
        const ServingModel& model = catalog.models[task.model];
        task.compute_ms = *model.compute_ms;
        task.output_mb = model.output_mb;
        if (k == 0) {
          task.input_mb = model.input_mb;
        } else if (chain) {
          task.parents.push_back(static_cast<std::uint32_t>(k - 1));
        } else if (k + 1 < size) {
          task.parents.push_back(0);  // a branch
        } else {
          for (std::uint32_t b = 1; b + 1 < size; ++b) task.parents.push_back(b);  // the join
        }
        for (const std::uint32_t p : task.parents) task.input_mb += shape.tasks[p].output_mb;
      }
    }
    std::string vc;
    if (!o.vcs.empty()) vc = o.vcs[shapes.below(o.vcs.size())];

    const auto base = static_cast<std::uint32_t>(workload.jobs.size());
    const std::string query_id = std::to_string(q);
    for (const QueryShape::Task& task : shape.tasks) {
      JobSpec& job = workload.jobs.emplace_back();
      job.id = query_id;
      job.id += '/';
      job.id += task.id;
      job.submit_time = arrival;
      job.num_gpus = 1;
      job.duration = task.compute_ms / 1000.0;
      job.model = catalog.models[task.model].name;
      job.vc = vc;
      dag.query_of.push_back(static_cast<std::uint32_t>(q));
      for (const std::uint32_t p : task.parents) dag.parents.push_back(base + p);
      dag.parent_begin.push_back(static_cast<std::uint32_t>(dag.parents.size()));
      dag.input_mb.push_back(task.input_mb);
      dag.output_mb.push_back(task.output_mb);
    }
    dag.query_ids.push_back(query_id);
    dag.arrival_time.push_back(arrival);
    dag.task_begin.push_back(static_cast<std::uint32_t>(workload.jobs.size()));
    if (workload.jobs.size() >= UINT32_MAX) bad("more than 2^32 - 2 tasks");
  }
  check_dag(workload);
  return workload;
}

namespace options {

void declare_query_dag_keys(KeyRegistry& keys) {
  const auto key = [&](std::string name, auto ref, std::string when, std::string value) {
    return field<GeneratorOptions>(keys, "workload." + std::move(name), ref)
        .when("workload." + std::move(when), {std::move(value)})
        .component("generator query_dag")
        .dag_only();
  };
  key(
      "queries", [](auto& g) -> auto& { return g.queries; }, "generator", "query_dag")
      .range(1, 100'000'000)
      .doc("Queries to generate ([`sim/README.md`](sim/README.md#serving-dag-workloads)).");
  key(
      "queries_per_s", [](auto& g) -> auto& { return g.queries_per_s; }, "generator", "query_dag")
      .range(1e-9, 1e9)
      .doc("Mean arrival rate of queries.");
  key(
      "arrival", [](auto& g) -> auto& { return g.arrival; }, "generator", "query_dag")
      .choices({"poisson", "mmpp"})
      .doc(
          "`poisson`, or `mmpp`: a 2-state Markov-modulated Poisson process (bursts), its calm "
          "rate set so that the mean is `queries_per_s`.");
  key(
      "burst_factor", [](auto& g) -> auto& { return g.burst_factor; }, "arrival", "mmpp")
      .range(1.0, 1e6)
      .check([](const OptionValue& value) -> std::string {
        return std::get<double>(value) > 1.0 ? "" : "must be > 1 (a burst is faster)";
      })
      .doc("A burst's rate, x the calm rate (> 1).");
  key(
      "burst_fraction", [](auto& g) -> auto& { return g.burst_fraction; }, "arrival", "mmpp")
      .range(1e-6, 1.0 - 1e-6)
      .doc("Share of the time in bursts.");
  key(
      "burst_mean_s", [](auto& g) -> auto& { return g.burst_mean_s; }, "arrival", "mmpp")
      .range(1e-9, 1e12)
      .doc("Mean length of a burst, seconds (exponentially distributed).");
  key(
      "dag_shapes", [](auto& g) -> auto& { return g.dag_shapes; }, "generator", "query_dag")
      .choices({"compass", "synthetic"})
      .doc(
          "`compass`: the Compass study's four pipelines (from the catalog); `synthetic`: chains "
          "and fan-out/fan-in DAGs of catalog models.");
  key(
      "zipf_s", [](auto& g) -> auto& { return g.zipf_s; }, "generator", "query_dag")
      .range(0.0, 100.0)
      .doc("Zipf popularity exponent over pipelines (catalog order) or `models`.");
  key(
      "chain_fraction", [](auto& g) -> auto& { return g.chain_fraction; }, "dag_shapes",
      "synthetic")
      .range(0.0, 1.0)
      .doc("Share of chains among the synthetic queries (the others fan out and in).");
  key(
      "max_chain", [](auto& g) -> auto& { return g.max_chain; }, "dag_shapes", "synthetic")
      .range(2, 1000)
      .doc("A chain has 2 to this many tasks.");
  key(
      "max_fanout", [](auto& g) -> auto& { return g.max_fanout; }, "dag_shapes", "synthetic")
      .range(2, 1000)
      .doc("A fan-out has 2 to this many branches (between a source and a join).");
  key(
      "models", [](auto& g) -> auto& { return g.dag_models; }, "dag_shapes", "synthetic")
      .expected("a list of model names")
      .check([](const OptionValue& value) -> std::string {
        return std::get<std::vector<std::string>>(value).empty()
                   ? "expected a non-empty list of models"
                   : "";
      })
      .default_note("catalog models with a compute time")
      .doc(
          "The models tasks are drawn from, most popular first (each in the catalog, with a "
          "compute time).");
}

}  // namespace options

}  // namespace clustersim
