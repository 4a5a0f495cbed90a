// The host pipeline's pieces: the LRU cache (which thrashes under a shuffling sampler, as the
// formula's lru_epoch_hit_fraction says), the storage share's rate limiter, and a short run of
// the pipeline itself in both cache modes.
#include "host_pipeline.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <thread>

#include "ckbench/pipeline_formula.h"

namespace ckbench {
namespace {

TEST(LruSet, EvictsTheLeastRecentlyUsed) {
  LruSet lru(2);
  long long evicted = 0;
  EXPECT_FALSE(lru.access(1, &evicted));
  EXPECT_EQ(evicted, -1);
  EXPECT_FALSE(lru.access(2, &evicted));
  EXPECT_TRUE(lru.access(1, &evicted));  // 1 is now the most recent
  EXPECT_FALSE(lru.access(3, &evicted));
  EXPECT_EQ(evicted, 2);
  EXPECT_TRUE(lru.contains(1));
  EXPECT_FALSE(lru.contains(2));
  EXPECT_EQ(lru.size(), 2u);
  LruSet none(0);
  EXPECT_FALSE(none.access(1));
  EXPECT_FALSE(none.access(1));
}

// Shuffled epochs over N items with an LRU of K: the steady-state hit fraction is the formula's,
// far below K / N (a fixed subset's): the page cache thrashes.
TEST(LruSet, ThrashesUnderAShufflingSampler) {
  const std::size_t n = 2000;
  for (double f : {0.25, 0.5, 0.75}) {
    const auto k = static_cast<std::size_t>(f * n);
    LruSet lru(k);
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::mt19937_64 rng(3);
    std::size_t hits = 0, reads = 0;
    for (int epoch = 0; epoch < 60; ++epoch) {
      std::shuffle(order.begin(), order.end(), rng);
      for (std::size_t i : order) {
        const bool hit = lru.access(i);
        if (epoch >= 2) {  // steady state
          hits += hit ? 1 : 0;
          ++reads;
        }
      }
    }
    const double measured = static_cast<double>(hits) / static_cast<double>(reads);
    const double model = lru_epoch_hit_fraction(static_cast<double>(k), static_cast<double>(n));
    EXPECT_NEAR(measured, model, 0.01) << "f = " << f;
    EXPECT_LT(measured, f - 0.2) << "f = " << f;  // a subset cache would hit f
  }
}

TEST(RateLimiter, HoldsTheShare) {
  RateLimiter limiter(1e6, 1e4);  // 1 MB/s, 10 KB burst
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 21; ++i) limiter.acquire(10000);  // 210 KB: the burst, then 0.2 s
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GT(s, 0.18);
  EXPECT_LT(s, 0.5);
}

class HostPipelineRun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!jpeg_available()) GTEST_SKIP() << "built without libjpeg-turbo";
    corpus_ = make_corpus(InputKind::kImage, 8, 1);
    path_ = (std::filesystem::temp_directory_path() /
             ("ckb_pipeline_test_" + std::to_string(::getpid()) + ".dat"))
                .string();
    data_ = write_bench_dataset(path_, corpus_, 64);
  }
  void TearDown() override {
    if (!path_.empty()) std::filesystem::remove(path_);
  }
  Corpus corpus_;
  std::string path_;
  BenchDataset data_;
};

TEST_F(HostPipelineRun, DatasetSlotsAreAligned) {
  EXPECT_EQ(data_.count, 64u);
  EXPECT_EQ(data_.slot % 4096, 0u);
  EXPECT_EQ(std::filesystem::file_size(path_), data_.slot * 64);
  EXPECT_EQ(data_.sizes[8], corpus_[0].size());
}

TEST_F(HostPipelineRun, ConsumerRateBindsAndCacheModesHit) {
  PipelineRun run;
  run.workers = 2;
  run.cores = allowed_cpus();
  run.batch = 4;
  run.warmup_s = 0.3;
  run.seconds = 0.7;
  run.consumer_rate = 40;  // far below what two workers prepare (hundreds/s)
  run.cache_fraction = 0.5;
  const PipelineResult subset = run_pipeline(InputKind::kImage, data_, run);
  EXPECT_NEAR(subset.samples_per_s, 40.0, 8.0);
  EXPECT_GT(subset.hit_fraction, 0.2);  // a fixed half: about 0.5
  EXPECT_LT(subset.hit_fraction, 0.8);
  // The page cache holding everything: after the first epoch (16 samples: done within the
  // warm-up even on a loaded machine), every read hits.
  const BenchDataset small = write_bench_dataset(path_ + ".small", corpus_, 16);
  run.cache_mode = CacheMode::kLru;
  run.cache_fraction = 1.0;
  run.consumer_rate = 0;
  run.warmup_s = 1.0;
  const PipelineResult lru = run_pipeline(InputKind::kImage, small, run);
  std::filesystem::remove(small.path);
  EXPECT_GT(lru.samples_per_s, 0.0);
  EXPECT_GT(lru.hit_fraction, 0.9);
}

TEST(HostPipeline, PinningNamesTheCpu) {
  EXPECT_FALSE(allowed_cpus().empty());
  try {
    pin_this_thread(100000);
    FAIL() << "pinning to CPU 100000 succeeded";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("CPU 100000"), std::string::npos) << e.what();
  }
}

TEST(HostPipeline, RealtimePriorityPutsTheConsumerAboveTheWorkers) {
  EXPECT_THROW(use_realtime_priority(sched_get_priority_max(SCHED_FIFO)), std::invalid_argument);
  // In a thread of its own, so that the test process keeps the normal scheduler.
  std::string outcome;
  std::thread([&] {
    try {
      use_realtime_priority(10);
    } catch (const std::runtime_error& e) {
      outcome = e.what();  // not root / no CAP_SYS_NICE: said, not ignored
      return;
    }
    int policy = 0;
    sched_param param{};
    pthread_getschedparam(pthread_self(), &policy, &param);
    outcome = policy == SCHED_FIFO ? "fifo " + std::to_string(param.sched_priority) : "other";
    use_realtime_priority(0);  // later workers: the normal scheduler again
  }).join();
  if (outcome.rfind("fifo", 0) == 0) {
    EXPECT_EQ(outcome, "fifo 11");  // the consumer: one above the workers' 10
  } else {
    EXPECT_NE(outcome.find("SCHED_FIFO"), std::string::npos) << outcome;
  }
}

}  // namespace
}  // namespace ckbench
