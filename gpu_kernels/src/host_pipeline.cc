#include "host_pipeline.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "storage.h"

namespace ckbench {
namespace {

using Clock = std::chrono::steady_clock;

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

// SCHED_FIFO priority of worker and stage threads; 0 = the normal scheduler (the default).
int g_worker_realtime_priority = 0;

void set_fifo_priority(int priority) {
  sched_param param{};
  param.sched_priority = priority;
  if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) != 0) {
    throw std::runtime_error("cannot run at real-time priority " + std::to_string(priority) +
                             " (SCHED_FIFO needs root or CAP_SYS_NICE)");
  }
}

void pin_worker(const std::vector<int>& cores, int w) {
  if (!cores.empty()) pin_this_thread(cores[static_cast<std::size_t>(w) % cores.size()]);
  if (g_worker_realtime_priority > 0) set_fifo_priority(g_worker_realtime_priority);
}

}  // namespace

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    throw std::system_error(errno, std::generic_category(), "sched_getaffinity");
  }
  std::vector<int> out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) out.push_back(c);
  }
  return out;
}

void pin_this_thread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) {
    throw std::invalid_argument("cannot pin to CPU " + std::to_string(cpu) + " (not in 0.." +
                                std::to_string(CPU_SETSIZE - 1) + ")");
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    throw std::system_error(errno, std::generic_category(),
                            "sched_setaffinity to CPU " + std::to_string(cpu));
  }
}

void use_realtime_priority(int priority) {
  if (priority <= 0) {
    g_worker_realtime_priority = 0;
    return;
  }
  const int highest = sched_get_priority_max(SCHED_FIFO);
  if (priority >= highest) {
    throw std::invalid_argument("real-time priority must be below " + std::to_string(highest));
  }
  set_fifo_priority(priority + 1);  // the calling thread: the consumer and the measurements
  g_worker_realtime_priority = priority;
}

double BenchDataset::mean_bytes() const {
  if (sizes.empty()) return 0.0;
  return static_cast<double>(std::accumulate(sizes.begin(), sizes.end(), std::size_t{0})) /
         static_cast<double>(sizes.size());
}

BenchDataset write_bench_dataset(const std::string& path, const Corpus& corpus, std::size_t count) {
  if (corpus.empty()) throw std::invalid_argument("write_bench_dataset: empty corpus");
  BenchDataset d;
  d.path = path;
  d.count = count;
  std::size_t largest = 0;
  for (const auto& s : corpus) largest = std::max(largest, s.size());
  d.slot = round_up_to_direct_io(largest);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw sys_error("cannot write", path);
  std::vector<char> pad(d.slot, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const auto& s = corpus[i % corpus.size()];
    out.write(reinterpret_cast<const char*>(s.data()), static_cast<std::streamsize>(s.size()));
    // The slot's index in its last bytes makes every slot distinct, so that no layer below can
    // deduplicate the cycled corpus.
    std::fill(pad.begin(), pad.end(), 0);
    if (d.slot - s.size() >= sizeof i)
      std::memcpy(pad.data() + d.slot - s.size() - sizeof i, &i, sizeof i);
    out.write(pad.data(), static_cast<std::streamsize>(d.slot - s.size()));
    d.sizes.push_back(s.size());
  }
  out.close();
  if (!out) throw sys_error("cannot write", path);
  return d;
}

void drop_from_page_cache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw sys_error("cannot open", path);
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

bool LruSet::access(std::size_t item, long long* evicted) {
  if (evicted != nullptr) *evicted = -1;
  if (auto it = where_.find(item); it != where_.end()) {
    order_.splice(order_.begin(), order_, it->second);
    return true;
  }
  if (capacity_ == 0) return false;
  if (order_.size() >= capacity_) {
    const std::size_t victim = order_.back();
    order_.pop_back();
    where_.erase(victim);
    if (evicted != nullptr) *evicted = static_cast<long long>(victim);
  }
  order_.push_front(item);
  where_[item] = order_.begin();
  return false;
}

RateLimiter::RateLimiter(double bytes_per_s, double burst_bytes)
    : rate_(bytes_per_s), burst_s_(bytes_per_s > 0.0 ? burst_bytes / bytes_per_s : 0.0) {}

void RateLimiter::acquire(std::size_t bytes) {
  if (rate_ <= 0.0) return;
  double wait_until = 0.0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const double now = now_s();
    // The bucket refills at `rate_`; it holds at most burst_s_ seconds of credit.
    next_free_s_ = std::max(next_free_s_, now - burst_s_) + static_cast<double>(bytes) / rate_;
    wait_until = next_free_s_ - burst_s_;
  }
  const double wait = wait_until - now_s();
  if (wait > 0.0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
}

PipelineResult run_pipeline(InputKind kind, const BenchDataset& data, const PipelineRun& run) {
  if (run.workers < 1) throw std::invalid_argument("run_pipeline: workers < 1");
  const std::size_t n = data.count;
  const auto cached =
      static_cast<std::size_t>(std::clamp(run.cache_fraction, 0.0, 1.0) * static_cast<double>(n));
  // Subset: samples [0, cached) held in memory. LRU: the page cache, `cached` samples at most.
  std::vector<std::vector<std::uint8_t>> subset;
  LruSet lru(cached);
  std::mutex lru_mu;
  int fd_buffered = -1;
  drop_from_page_cache(data.path);
  if (run.cache_mode == CacheMode::kSubset) {
    std::ifstream in(data.path, std::ios::binary);
    for (std::size_t i = 0; i < cached; ++i) {
      subset.emplace_back(data.sizes[i]);
      in.seekg(static_cast<std::streamoff>(i * data.slot));
      in.read(reinterpret_cast<char*>(subset.back().data()),
              static_cast<std::streamsize>(data.sizes[i]));
    }
    if (!in) throw sys_error("cannot read", data.path);
    drop_from_page_cache(data.path);
  } else {
    fd_buffered = ::open(data.path.c_str(), O_RDONLY);
    if (fd_buffered < 0) throw sys_error("cannot open", data.path);
    ::posix_fadvise(fd_buffered, 0, 0, POSIX_FADV_RANDOM);  // no readahead: one sample a read
  }
  RateLimiter limiter(run.storage_share, 4.0 * static_cast<double>(data.slot));

  // Sampler: a new permutation every epoch.
  std::mutex sampler_mu;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937_64 rng(run.seed);
  std::shuffle(order.begin(), order.end(), rng);
  std::size_t cursor = 0;
  auto next_index = [&] {
    std::lock_guard<std::mutex> lock(sampler_mu);
    if (cursor == n) {
      std::shuffle(order.begin(), order.end(), rng);
      cursor = 0;
    }
    return order[cursor++];
  };

  // The queue of preprocessed samples (a count: the consumer does not read their bytes).
  const std::size_t capacity = 2 * static_cast<std::size_t>(run.batch) * run.workers;
  std::mutex mu;
  std::condition_variable cv_space, cv_ready;
  std::size_t ready = 0;
  bool stop = false;
  std::string error;
  std::atomic<std::uint64_t> hits{0}, fetched{0};

  auto worker = [&](int w) {
    try {
      pin_worker(run.cores, w);
      BlockReader direct(data.path, /*cold=*/true);
      auto prep = make_preprocessor(kind, run.seed + 101u * static_cast<std::uint32_t>(w));
      std::vector<std::uint8_t> raw(data.slot), out(prep_output_bytes(kind));
      for (;;) {
        {
          std::unique_lock<std::mutex> lock(mu);
          cv_space.wait(lock, [&] { return stop || ready < capacity; });
          if (stop) return;
        }
        const std::size_t idx = next_index();
        const std::size_t bytes = data.sizes[idx];
        bool hit = false;
        if (run.cache_mode == CacheMode::kSubset) {
          hit = idx < cached;
          if (hit) {
            std::memcpy(raw.data(), subset[idx].data(), bytes);
          } else {
            limiter.acquire(bytes);
            direct.read(idx * data.slot, bytes, raw.data());
          }
        } else {
          long long evicted = -1;
          {
            std::lock_guard<std::mutex> lock(lru_mu);
            hit = lru.access(idx, &evicted);
          }
          if (evicted >= 0) {
            ::posix_fadvise(fd_buffered, static_cast<off_t>(evicted) * data.slot, data.slot,
                            POSIX_FADV_DONTNEED);
          }
          if (!hit) limiter.acquire(bytes);
          std::size_t done = 0;
          while (done < bytes) {
            const ssize_t r = ::pread(fd_buffered, raw.data() + done, bytes - done,
                                      static_cast<off_t>(idx * data.slot + done));
            if (r <= 0) throw sys_error("cannot read", data.path);
            done += static_cast<std::size_t>(r);
          }
        }
        prep->run(raw.data(), bytes, out.data());
        hits += hit ? 1 : 0;
        ++fetched;
        {
          std::lock_guard<std::mutex> lock(mu);
          ++ready;
        }
        cv_ready.notify_one();
      }
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(mu);
      if (error.empty()) error = e.what();
      stop = true;
      cv_ready.notify_all();
      cv_space.notify_all();
    }
  };
  std::vector<std::thread> threads;
  for (int w = 0; w < run.workers; ++w) threads.emplace_back(worker, w);

  // The consumer: takes a batch, then spends batch / rate seconds on it (sleeping: it uses no
  // CPU of the job's cores).
  const auto batch = static_cast<std::size_t>(run.batch);
  const double step_s =
      run.consumer_rate > 0.0 ? static_cast<double>(batch) / run.consumer_rate : 0.0;
  const double t0 = now_s();
  double start = -1.0;
  std::uint64_t consumed = 0, hits0 = 0, fetched0 = 0;
  PipelineResult result;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu);
      cv_ready.wait(lock, [&] { return stop || ready >= batch; });
      if (stop) break;
      ready -= batch;
    }
    cv_space.notify_all();
    if (step_s > 0.0) std::this_thread::sleep_for(std::chrono::duration<double>(step_s));
    const double t = now_s();
    if (start < 0.0) {
      if (t - t0 >= run.warmup_s) {
        start = t;
        hits0 = hits;
        fetched0 = fetched;
      }
      continue;
    }
    consumed += batch;
    if (t - start >= run.seconds) {
      result.samples_per_s = static_cast<double>(consumed) / (t - start);
      result.samples = consumed;
      const auto f = static_cast<double>(fetched - fetched0);
      result.hit_fraction = f > 0.0 ? static_cast<double>(hits - hits0) / f : 0.0;
      break;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    stop = true;
  }
  cv_space.notify_all();
  for (auto& t : threads) t.join();
  if (fd_buffered >= 0) ::close(fd_buffered);
  if (!error.empty()) throw std::runtime_error("pipeline worker: " + error);
  return result;
}

double measure_prep_seconds(InputKind kind, const Corpus& corpus, int workers,
                            const std::vector<int>& cores, double seconds) {
  std::vector<double> per(static_cast<std::size_t>(workers), 0.0);
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      pin_worker(cores, w);
      auto prep = make_preprocessor(kind, 7u + static_cast<std::uint32_t>(w));
      std::vector<std::uint8_t> out(prep_output_bytes(kind));
      std::mt19937 rng(11u + static_cast<std::uint32_t>(w));
      std::uniform_int_distribution<std::size_t> pick(0, corpus.size() - 1);
      const double t0 = now_s();
      std::size_t count = 0;
      double t = t0;
      while (t - t0 < seconds || count < 8) {
        const auto& s = corpus[pick(rng)];
        prep->run(s.data(), s.size(), out.data());
        ++count;
        t = now_s();
      }
      per[static_cast<std::size_t>(w)] = (t - t0) / static_cast<double>(count);
    });
  }
  for (auto& t : threads) t.join();
  return std::accumulate(per.begin(), per.end(), 0.0) / static_cast<double>(workers);
}

double measure_read_seconds(const BenchDataset& data, int concurrency,
                            const std::vector<int>& cores, double seconds) {
  drop_from_page_cache(data.path);
  std::vector<std::size_t> reads(static_cast<std::size_t>(concurrency), 0);
  std::vector<double> spent(static_cast<std::size_t>(concurrency), 0.0);
  std::vector<std::thread> threads;
  for (int k = 0; k < concurrency; ++k) {
    threads.emplace_back([&, k] {
      pin_worker(cores, k);
      BlockReader reader(data.path, /*cold=*/true);
      std::vector<std::uint8_t> buf(data.slot);
      std::mt19937 rng(31u + static_cast<std::uint32_t>(k));
      std::uniform_int_distribution<std::size_t> pick(0, data.count - 1);
      const double t0 = now_s();
      double t = t0;
      std::size_t count = 0;
      while (t - t0 < seconds || count < 8) {
        const std::size_t i = pick(rng);
        reader.read(i * data.slot, data.sizes[i], buf.data());
        ++count;
        t = now_s();
      }
      reads[static_cast<std::size_t>(k)] = count;
      spent[static_cast<std::size_t>(k)] = t - t0;
    });
  }
  for (auto& t : threads) t.join();
  double per = 0.0;
  for (std::size_t k = 0; k < reads.size(); ++k) per += spent[k] / static_cast<double>(reads[k]);
  return per / static_cast<double>(concurrency);
}

double measure_cache_read_seconds(const BenchDataset& data, double seconds) {
  const std::size_t n = std::min<std::size_t>(data.count, 256);
  std::vector<std::vector<std::uint8_t>> mem;
  for (std::size_t i = 0; i < n; ++i) mem.emplace_back(data.sizes[i], std::uint8_t{1});
  std::vector<std::uint8_t> dst(data.slot);
  std::mt19937 rng(5);
  std::uniform_int_distribution<std::size_t> pick(0, n - 1);
  const double t0 = now_s();
  double t = t0;
  std::size_t count = 0;
  while (t - t0 < seconds || count < 64) {
    const auto& s = mem[pick(rng)];
    std::memcpy(dst.data(), s.data(), s.size());
    ++count;
    t = now_s();
  }
  return (t - t0) / static_cast<double>(count);
}

}  // namespace ckbench
