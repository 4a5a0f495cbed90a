// Builds a measured profile (profiles/README.md schema "clustersim-profile/1") from the rates
// clustersim-profile measured (host-only, header-only: unit-tested against the simulator's
// profile reader without a GPU).
#pragma once

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "ckbench/pipeline.h"
#include "ckbench/pipeline_formula.h"
#include "ckbench/report.h"

namespace ckbench {

struct MeasuredRates {
  std::string model, gpu_type, device, dataset, time_utc, report_path;
  int batch = 0;
  double gpu_sps = 0.0;                      // GPU step, samples/s
  double h2d_sps = 0.0;                      // pinned H2D of preprocessed samples
  std::vector<double> prep_cpus, prep_sps;   // CPU preprocessing by cores (ascending)
  std::vector<double> e2e_cpus, e2e_sps;     // end-to-end at a full cache (ascending)
  double cache_bw = 0.0;                     // memory-cache reads, bytes/s (machine)
  double storage_bw = 0.0;                   // cold random storage reads, bytes/s (machine)
  double gpus_per_node = 1.0;                // bandwidth shares per GPU
  double ref_cpus = 3.0, ref_mem_gb = 62.5;  // the GPU-proportional reference
  double dataset_gb = 0.0;                   // published training-set size
  double stored_bytes_per_sample = 0.0;
  // Seconds one storage read of `read_bytes` takes with k = 1, 2, ... reads outstanding (k
  // concurrent readers, as ckb_pipeline measures it); empty: not measured (reads then cost
  // a worker nothing and storage binds through its bandwidth alone).
  std::vector<double> read_s_at;
  double read_bytes = 0.0;
  double cache_read_s = 0.0;  // seconds a worker takes to copy one sample out of the memory cache
  double model_mean_abs_error = 0.0, model_max_abs_error = 0.0;  // memory-model validation
  // A real framework's preprocessing rate over ours on the same corpus and cores (torchvision
  // DataLoader vs our C++ prep: gpu_kernels/reference/torch_reference.py --parts loader vs
  // ckb_cpu_prep --corpus-dir). 1 = the profile describes our prep as measured.
  double framework_factor = 1.0;
};

// Our prep's samples/s on `c` cores: interpolated between the core counts measured, linear
// beyond the most measured.
inline double prep_rate(const MeasuredRates& r, double c) {
  double prep = interpolate(r.prep_cpus, r.prep_sps, c);
  if (c > r.prep_cpus.back()) prep *= c / r.prep_cpus.back();
  return prep;
}

// The pipeline formula's inputs (pipeline_formula.h) for the profiled model on `cpus` cores,
// one pinned data-loader worker each, whose cache serves the fraction `hit` of the samples, the
// misses (`bytes_per_sample` each) read from a storage share of `storage_bw` bytes/s. Prep is
// our measured prep scaled by `framework_factor`; a read takes the measured time at the
// concurrency the workers reach, scaled from the measured read size to `bytes_per_sample`.
inline PipelineInputs profile_pipeline_inputs(const MeasuredRates& r, double cpus, double hit,
                                              double bytes_per_sample, double storage_bw,
                                              double framework_factor) {
  PipelineInputs in;
  in.workers = cpus;
  in.cores = cpus;
  in.prep_s = cpus / (framework_factor * prep_rate(r, cpus));
  in.consumer_s = serial_consumer_seconds(r.h2d_sps, r.gpu_sps);
  in.cache_read_s = r.cache_read_s;
  in.hit = hit;
  in.bytes_per_sample = bytes_per_sample;
  in.storage_bw = storage_bw;
  if (!r.read_s_at.empty() && r.read_bytes > 0.0) {
    std::vector<double> scaled = r.read_s_at;
    for (double& t : scaled) t *= bytes_per_sample / r.read_bytes;
    in.storage_read_s = storage_read_seconds(scaled, in);
  }
  return in;
}

// Full-cache throughput at `c` cores: the end-to-end run where one was made at exactly c,
// otherwise min(consumer, prep(c)) from the stage runs, the consumer copying each batch and then
// stepping on it (serial: 1 / (1 / H2D + 1 / GPU), pipeline_formula.h) and prep extrapolated
// linearly beyond the most cores measured. With a framework factor F != 1, prep(c) is scaled by
// F and an end-to-end row is capped at F prep(c) (a framework's pipeline is no faster than its
// preprocessing).
inline double full_cache_throughput(const MeasuredRates& r, double c, bool* composed) {
  const double prep = prep_rate(r, c);
  const double factor = r.framework_factor;
  const auto it = std::find(r.e2e_cpus.begin(), r.e2e_cpus.end(), c);
  if (it != r.e2e_cpus.end()) {
    *composed = false;
    const double e2e = r.e2e_sps[static_cast<std::size_t>(it - r.e2e_cpus.begin())];
    return factor == 1.0 ? e2e : std::min(e2e, factor * prep);
  }
  *composed = true;
  const double consumer_s = serial_consumer_seconds(r.h2d_sps, r.gpu_sps);
  const double consumer = consumer_s > 0.0 ? 1.0 / consumer_s : kUnbounded;
  return std::min(consumer, factor * prep);
}

// The profile's CPU x memory matrix: at c cores and m bytes of cache per GPU, the full-cache
// throughput at c scaled by what the pipeline formula says a cache of m costs there: formula(c,
// h(m)) / formula(c, 1), h the hit fraction a fixed-subset cache of m gives over the published
// dataset (each worker fetches, then preprocesses: a miss's read adds to its time; the storage
// share per GPU caps the misses' bytes). A ratio, so that a measured end-to-end row stands as
// measured at a full cache. Monotone along both axes.
inline std::vector<std::vector<double>> memory_matrix(const MeasuredRates& r,
                                                      const std::vector<double>& cpus,
                                                      const std::vector<double>& full,
                                                      const std::vector<double>& mem_bytes) {
  std::vector<std::vector<double>> m(cpus.size(), std::vector<double>(mem_bytes.size()));
  const double dataset_bytes = r.dataset_gb * 1e9;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    const auto at_hit = [&](double hit) {
      return pipeline_throughput(profile_pipeline_inputs(r, cpus[i], hit, r.stored_bytes_per_sample,
                                                         r.storage_bw / r.gpus_per_node,
                                                         r.framework_factor));
    };
    const double full_cache = at_hit(1.0);
    for (std::size_t j = 0; j < mem_bytes.size(); ++j) {
      const double cost =
          full_cache > 0.0 && full_cache != kPipelineUnbounded
              ? at_hit(subset_hit_fraction(mem_bytes[j], dataset_bytes)) / full_cache
              : 1.0;
      m[i][j] = full[i] * std::min(1.0, cost);
    }
  }
  make_monotone(m);
  return m;
}

inline Json build_measured_profile(const MeasuredRates& r) {
  // CPU axis: every core count measured, plus the reference.
  std::set<double> cpu_axis(r.e2e_cpus.begin(), r.e2e_cpus.end());
  cpu_axis.insert(r.prep_cpus.begin(), r.prep_cpus.end());
  cpu_axis.insert(r.ref_cpus);
  std::vector<double> cpus(cpu_axis.begin(), cpu_axis.end()), full, composed_cpus;
  for (double c : cpus) {
    bool was_composed = false;
    full.push_back(full_cache_throughput(r, c, &was_composed));
    if (was_composed) composed_cpus.push_back(c);
  }
  const Json composed(composed_cpus);
  // Memory axis: fractions of the published dataset, plus the reference.
  std::set<double> mem_axis = {r.ref_mem_gb};
  for (double f : {0.05, 0.1, 0.25, 0.5, 0.75, 1.0}) {
    const double gb = std::round(f * r.dataset_gb * 100.0) / 100.0;
    if (gb > 0.0) mem_axis.insert(gb);
  }
  std::vector<double> mems(mem_axis.begin(), mem_axis.end()), mem_bytes;
  for (double m : mems) mem_bytes.push_back(m * 1e9);
  const auto matrix = memory_matrix(r, cpus, full, mem_bytes);

  Json p = Json::object();
  p["schema"] = "clustersim-profile/1";
  p["model"] = r.model;
  p["gpu_type"] = r.gpu_type;
  p["provenance"]["kind"] = "measured";
  p["provenance"]["source"] = "clustersim-profile on " + r.device;
  p["provenance"]["notes"] =
      "Rows at CPU counts " + Json(r.e2e_cpus).dump(-1) +
      " are end-to-end pipeline runs at a full cache; the others are min(1 / (1 / H2D + 1 / GPU), "
      "prep(C)) from the stage benchmarks (copy and step serial). Framework factor " +
      Json(r.framework_factor).dump(-1) +
      " applied to prep (a real framework's prep rate over ours). Memory columns: the pipeline "
      "formula (per-worker fetch then prep, storage reads at the concurrency used, the storage "
      "share per GPU) with the measured read times and the published dataset size (" +
      r.dataset + "); its error against end-to-end runs at other cache sizes is in measurements.";
  p["batch_size"] = r.batch;
  p["reference"]["cpus_per_gpu"] = r.ref_cpus;
  p["reference"]["mem_gb_per_gpu"] = r.ref_mem_gb;
  p["reference"]["storage_mbps_per_gpu"] = r.storage_bw / r.gpus_per_node / 1e6;
  p["cpus_per_gpu"] = cpus;
  p["mem_gb_per_gpu"] = mems;
  p["throughput_unit"] = "samples_per_s";
  Json rows = Json::array();
  for (const auto& row : matrix) rows.push_back(Json(row));
  p["throughput"] = rows;
  p["pipeline"]["gpu_samples_per_s"] = r.gpu_sps;
  p["pipeline"]["dataset_gb"] = r.dataset_gb;
  p["pipeline"]["bytes_per_sample"] = r.stored_bytes_per_sample;
  p["pipeline"]["cache_read_mbps"] = r.cache_bw / r.gpus_per_node / 1e6;
  p["pipeline"]["storage_mbps"] = r.storage_bw / r.gpus_per_node / 1e6;
  p["measurements"]["device"] = r.device;
  p["measurements"]["time_utc"] = r.time_utc;
  p["measurements"]["h2d_samples_per_s"] = r.h2d_sps;
  p["measurements"]["prep_cpus"] = r.prep_cpus;
  p["measurements"]["prep_samples_per_s"] = r.prep_sps;
  p["measurements"]["e2e_cpus"] = r.e2e_cpus;
  p["measurements"]["e2e_samples_per_s"] = r.e2e_sps;
  p["measurements"]["composed_rows_cpus"] = composed;
  p["measurements"]["framework_factor"] = r.framework_factor;
  p["measurements"]["storage_read_s_at_concurrency"] = r.read_s_at;
  p["measurements"]["storage_read_bytes"] = r.read_bytes;
  p["measurements"]["cache_read_s"] = r.cache_read_s;
  p["measurements"]["memory_model_mean_abs_error"] = r.model_mean_abs_error;
  p["measurements"]["memory_model_max_abs_error"] = r.model_max_abs_error;
  p["measurements"]["report"] = r.report_path;
  return p;
}

}  // namespace ckbench
