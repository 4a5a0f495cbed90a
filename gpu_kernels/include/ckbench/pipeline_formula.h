// The input-pipeline throughput formula: the one place where it is written down. Used by the
// profiler (clustersim-profile, ckb_pipeline: gpu_kernels/) and by the simulator's profile
// throughput model (sim/src/throughput/profile_throughput_model.cc). Header-only, C++17, no
// dependencies.
//
//   storage --(share S)--> cache --> W workers (pinned, one per core) --> consumer
//                                                        (copy + step)
//
// A data-loader worker (as a PyTorch DataLoader worker does) takes a sample, fetches it (from
// the cache or from storage) and then preprocesses it, serially; W workers run side by side,
// each pinned to one of the C cores the job holds. The consumer copies each batch to the device
// and runs the training step on it, one after the other (or overlapped on a second stream: then
// give its measured time per sample). Per sample, with cache hit fraction h:
//
//   worker time   t_w  = prep + h * cache_read + (1 - h) * storage_read(concurrency used)
//   workers       X_w  = W / t_w                                   (fetch and prep add up)
//   job's cores   X_c  = C / (prep + h * cache_read + consumer_cpu) (workers and consumer share
//                                                                    the C cores)
//   storage       X_s  = S / ((1 - h) * B)                         (the storage share S, bytes/s,
//                                                                    the device's bandwidth at the
//                                                                    concurrency used when lower)
//   consumer      X_g  = 1 / consumer                              (copy + step per sample)
//   throughput    X    = min(X_g, X_w, X_c, X_s)
//
// A term with nothing to do (no misses, no consumer CPU, a bandwidth or time <= 0 meaning
// "unbounded") never limits.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace ckbench {

inline constexpr double kPipelineUnbounded = std::numeric_limits<double>::infinity();

struct PipelineInputs {
  double consumer_s = 0.0;        // seconds per sample of the consumer (copy + step); 0 = unbounded
  double consumer_cpu_s = 0.0;    // CPU seconds per sample the consumer takes from the job's cores
  double workers = 1.0;           // W: data-loader workers, each pinned to one of the job's cores
  double cores = 1.0;             // C: cores of the whole job (workers and consumer run on them)
  double prep_s = 0.0;            // CPU seconds to preprocess one sample (one worker on one core)
  double cache_read_s = 0.0;      // seconds a worker takes to copy one sample out of the cache
  double hit = 1.0;               // h: fraction of samples the cache serves
  double storage_read_s = 0.0;    // seconds one storage read of a sample takes at the concurrency
                                  // the workers use (see storage_read_seconds)
  double bytes_per_sample = 0.0;  // B: bytes read from storage per sample
  double storage_bw = 0.0;  // S: bytes/s the job may read from storage (its share); <= 0: no cap
};

// Every term of the formula, and which one binds.
struct PipelineRates {
  double consumer = kPipelineUnbounded;
  double workers = kPipelineUnbounded;
  double cores = kPipelineUnbounded;
  double storage = kPipelineUnbounded;
  double throughput = kPipelineUnbounded;
  const char* bottleneck = "none";
};

// Seconds one worker spends per sample: fetch and preprocessing are serial.
inline double worker_seconds_per_sample(const PipelineInputs& p) {
  const double h = std::clamp(p.hit, 0.0, 1.0);
  return p.prep_s + h * p.cache_read_s + (1.0 - h) * p.storage_read_s;
}

// Samples/s the storage share allows: S / ((1 - h) B).
inline double storage_bound(double hit, double bytes_per_sample, double storage_bw) {
  const double miss_bytes = (1.0 - std::clamp(hit, 0.0, 1.0)) * bytes_per_sample;
  if (miss_bytes <= 0.0 || storage_bw <= 0.0) return kPipelineUnbounded;
  return storage_bw / miss_bytes;
}

inline PipelineRates pipeline_rates(const PipelineInputs& p) {
  PipelineRates r;
  const double h = std::clamp(p.hit, 0.0, 1.0);
  if (p.consumer_s > 0.0) r.consumer = 1.0 / p.consumer_s;
  const double t_w = worker_seconds_per_sample(p);
  if (t_w > 0.0 && p.workers > 0.0) r.workers = p.workers / t_w;
  if (p.workers <= 0.0) r.workers = 0.0;
  const double cpu = p.prep_s + h * p.cache_read_s + p.consumer_cpu_s;
  if (cpu > 0.0 && p.cores > 0.0) r.cores = p.cores / cpu;
  r.storage = storage_bound(h, p.bytes_per_sample, p.storage_bw);
  r.throughput = std::min({r.consumer, r.workers, r.cores, r.storage});
  // Ties go to the earlier term in the list consumer, workers, cores, storage.
  if (r.throughput == r.consumer) {
    r.bottleneck = "consumer";
  } else if (r.throughput == r.workers) {
    r.bottleneck = "workers";
  } else if (r.throughput == r.cores) {
    r.bottleneck = "cores";
  } else {
    r.bottleneck = "storage";
  }
  if (r.throughput == kPipelineUnbounded) r.bottleneck = "none";
  return r;
}

inline double pipeline_throughput(const PipelineInputs& p) { return pipeline_rates(p).throughput; }

// The consumer's seconds per sample when the copy and the step run one after the other on one
// stream (rates in samples/s; <= 0 = unbounded).
inline double serial_consumer_seconds(double copy_rate, double step_rate) {
  return (copy_rate > 0.0 ? 1.0 / copy_rate : 0.0) + (step_rate > 0.0 ? 1.0 / step_rate : 0.0);
}

// Storage measured at the concurrency used. `read_s_at[k - 1]` is the seconds one read takes
// while k reads are outstanding (k = 1, 2, ...: measured with k threads in a closed loop; beyond
// the last, the device is taken as saturated: time grows with k). A worker's read meets the reads
// of the other W - 1 workers that are busy reading at that moment (the arrival theorem of closed
// queueing networks): on average (W - 1) * rho of them, where rho = (1 - h) * read / t_w is the
// share of its time a worker spends reading. Solved by fixed-point iteration from k = 1.
inline double read_seconds_at(const std::vector<double>& read_s_at, double k) {
  if (read_s_at.empty()) return 0.0;
  const double n = static_cast<double>(read_s_at.size());
  if (k <= 1.0) return read_s_at.front();
  if (k >= n) return read_s_at.back() * k / n;  // saturated: bandwidth flat beyond the last
  const auto i = static_cast<std::size_t>(std::floor(k)) - 1;
  const double t = k - std::floor(k);
  return read_s_at[i] * (1.0 - t) + read_s_at[std::min(i + 1, read_s_at.size() - 1)] * t;
}

inline double storage_read_seconds(const std::vector<double>& read_s_at, const PipelineInputs& p) {
  if (read_s_at.empty()) return 0.0;
  const double h = std::clamp(p.hit, 0.0, 1.0);
  PipelineInputs q = p;
  double read = read_s_at.front();
  for (int iteration = 0; iteration < 50; ++iteration) {
    q.storage_read_s = read;
    const double t_w = worker_seconds_per_sample(q);
    const double rho = t_w > 0.0 ? (1.0 - h) * read / t_w : 0.0;
    const double next = read_seconds_at(read_s_at, 1.0 + std::max(0.0, p.workers - 1.0) * rho);
    if (std::fabs(next - read) <= 1e-12 * read) return next;
    read = 0.5 * (read + next);  // damped: converges for any monotone latency curve
  }
  return read;
}

// ---- Cache hit fraction -------------------------------------------------------------------

// A cache that keeps a fixed subset of the dataset (MinIO-style: never evicts), any access order.
inline double subset_hit_fraction(double cache_bytes, double dataset_bytes) {
  if (dataset_bytes <= 0.0) return 1.0;
  return std::clamp(cache_bytes / dataset_bytes, 0.0, 1.0);
}

// An LRU cache (the OS page cache) of K of N samples, read once per epoch in a new random order
// (a shuffling sampler). In the steady state an epoch starts with the previous epoch's last K
// samples cached; while t < K samples of this epoch have been read, the cache still holds K - t of
// those and every unread sample is equally likely next, so the t-th read hits with probability
// (K - t) / (N - t); after K reads nothing from the previous epoch is left (all later reads
// miss). Hit fraction = sum_{t=0}^{K-1} (K - t) / (N - t) / N; for large N with f = K / N it is
// f + (1 - f) ln(1 - f): 3.4% at f = 0.25, 15.3% at 0.5, 40.3% at 0.75 (the cache thrashes).
inline double lru_epoch_hit_fraction(double cache_items, double dataset_items) {
  if (dataset_items <= 0.0) return 1.0;
  const double n = std::floor(dataset_items);
  const double k = std::clamp(std::floor(cache_items), 0.0, n);
  if (k >= n) return 1.0;
  if (n <= 1e6) {
    double hits = 0.0;
    for (double t = 0.0; t < k; t += 1.0) hits += (k - t) / (n - t);
    return hits / n;
  }
  const double f = k / n;
  return f + (1.0 - f) * std::log1p(-f);
}

}  // namespace ckbench
