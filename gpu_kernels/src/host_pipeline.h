// The input pipeline of a training job on the host (plain C++, POSIX; no CUDA), used by
// ckb_pipeline (a consumer of known rate):
//
//   dataset file --(storage share)--> cache --> W workers --> sample queue --> consumer
//
// Workers, like PyTorch DataLoader workers, each take the next sample index from a shuffling
// sampler (a new random permutation of the dataset every epoch), fetch it (from the cache, or
// from storage) and preprocess it, serially, into a bounded queue (prefetch: 2 batches per
// worker). Each worker is pinned to one of the job's cores (sched_setaffinity). The cache is
// either a fixed subset of the dataset held in memory (MinIO-style) or the OS page cache kept to
// a size with LRU eviction (posix_fadvise DONTNEED on the evicted sample's pages).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cpu_prep.h"

namespace ckbench {

// ---- Cores -----------------------------------------------------------------------------------

// The CPUs this process may run on (sched_getaffinity), ascending.
std::vector<int> allowed_cpus();
// Pins the calling thread to `cpu` (sched_setaffinity); throws naming the CPU on failure.
void pin_this_thread(int cpu);

// Runs the calling thread (ckb_pipeline's consumer) at SCHED_FIFO `priority` + 1 and every
// worker and stage-measurement thread started afterwards at `priority` (0: the normal scheduler).
// Why: on a machine shared with other work, real-time threads take the CPU from every normal
// process, so the pipeline and its stage measurements see the cores alone; the consumer is one
// level above the workers so that, like a GPU's completion, its wake-up is not queued behind
// CPU-bound workers (at equal SCHED_FIFO priorities it would wait for a worker to block).
// Throws when the process may not use SCHED_FIFO.
void use_realtime_priority(int priority);

// ---- Dataset on disk -------------------------------------------------------------------------

// `count` samples, each in its own 4 KiB-aligned slot (so that an O_DIRECT read fetches one
// sample), contents cycled from the corpus.
struct BenchDataset {
  std::string path;
  std::size_t count = 0;
  std::size_t slot = 0;
  std::vector<std::size_t> sizes;  // encoded bytes of each sample
  double mean_bytes() const;
};
BenchDataset write_bench_dataset(const std::string& path, const Corpus& corpus, std::size_t count);
// Drops the file's pages from the page cache (posix_fadvise DONTNEED).
void drop_from_page_cache(const std::string& path);

// ---- Cache policies --------------------------------------------------------------------------

// The LRU bookkeeping of a cache of `capacity` items (pure: unit-tested). access() returns true
// on a hit; on a miss it inserts the item and, when full, evicts the least recently used one
// (returned through `evicted`, else -1).
class LruSet {
 public:
  explicit LruSet(std::size_t capacity) : capacity_(capacity) {}
  bool access(std::size_t item, long long* evicted = nullptr);
  bool contains(std::size_t item) const { return where_.count(item) != 0; }
  std::size_t size() const { return order_.size(); }

 private:
  std::size_t capacity_;
  std::list<std::size_t> order_;  // most recent first
  std::unordered_map<std::size_t, std::list<std::size_t>::iterator> where_;
};

// A storage bandwidth share: reads of `bytes` wait so that no more than `bytes_per_s` pass on
// average, with bursts up to `burst_bytes` (a token bucket on a virtual clock). Thread-safe.
class RateLimiter {
 public:
  RateLimiter(double bytes_per_s, double burst_bytes);
  void acquire(std::size_t bytes);

 private:
  double rate_, burst_s_;
  std::mutex mu_;
  double next_free_s_ = 0.0;  // steady-clock seconds at which the bucket is empty again
};

// ---- The pipeline ----------------------------------------------------------------------------

enum class CacheMode { kSubset, kLru };

struct PipelineRun {
  CacheMode cache_mode = CacheMode::kSubset;
  double cache_fraction = 1.0;  // of the dataset's samples
  int workers = 1;
  std::vector<int> cores;      // worker w is pinned to cores[w % size]; empty: not pinned
  double consumer_rate = 0.0;  // samples/s the consumer takes (sleeping); <= 0: unbounded
  int batch = 32;              // the consumer takes a batch at a time
  double storage_share = 0.0;  // bytes/s; <= 0: the device alone
  double warmup_s = 1.0, seconds = 3.0;
  std::uint32_t seed = 1;
};

struct PipelineResult {
  double samples_per_s = 0.0;
  double hit_fraction = 0.0;  // measured over the timed window
  std::uint64_t samples = 0;
};

// Runs the pipeline over `data` (the encoded corpus is `data`'s file) and measures it.
PipelineResult run_pipeline(InputKind kind, const BenchDataset& data, const PipelineRun& run);

// ---- Stage measurements (what the formula is fed) --------------------------------------------

// Seconds per sample of one worker preprocessing corpus samples while `workers` pinned workers
// run at once (wall time per sample, averaged over workers).
double measure_prep_seconds(InputKind kind, const Corpus& corpus, int workers,
                            const std::vector<int>& cores, double seconds);

// Seconds one random sample read takes while `concurrency` pinned threads read side by side
// (closed loop, O_DIRECT, for about `seconds`).
double measure_read_seconds(const BenchDataset& data, int concurrency,
                            const std::vector<int>& cores, double seconds);

// Seconds a worker takes to copy one sample out of the in-memory cache.
double measure_cache_read_seconds(const BenchDataset& data, double seconds);

}  // namespace ckbench
