// The input-pipeline formula (ckbench/pipeline_formula.h) on hand cases: per-worker serial
// fetch + prep, storage at the concurrency used, the LRU cache's epoch hit fraction.
#include "ckbench/pipeline_formula.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ckbench {
namespace {

TEST(PipelineFormula, FetchAndPrepAddUpPerWorker) {
  PipelineInputs p;
  p.workers = 1;
  p.cores = 1;
  p.prep_s = 0.002;          // 500 samples/s of prep alone
  p.storage_read_s = 0.001;  // 1000 samples/s of reads alone
  p.hit = 0.0;
  // Serial: 1 / (2 ms + 1 ms) = 333.3/s, not min(500, 1000) = 500.
  EXPECT_NEAR(pipeline_throughput(p), 1.0 / 0.003, 1e-9);
  EXPECT_STREQ(pipeline_rates(p).bottleneck, "workers");
  // Half the samples from the cache (0.1 ms a copy): 2 + 0.05 + 0.5 ms.
  p.hit = 0.5;
  p.cache_read_s = 0.0001;
  EXPECT_NEAR(pipeline_throughput(p), 1.0 / 0.00255, 1e-9);
  // Two workers on two cores: twice the rate; the cores term (2 / (2 + 0.05 ms)) does not bind.
  p.workers = 2;
  p.cores = 2;
  EXPECT_NEAR(pipeline_throughput(p), 2.0 / 0.00255, 1e-9);
  EXPECT_NEAR(pipeline_rates(p).cores, 2.0 / 0.00205, 1e-9);
  // Two workers on one core: the core binds (reads overlap with the other worker's prep).
  p.cores = 1;
  EXPECT_NEAR(pipeline_throughput(p), 1.0 / 0.00205, 1e-9);
  EXPECT_STREQ(pipeline_rates(p).bottleneck, "cores");
}

TEST(PipelineFormula, ConsumerIsCopyPlusStep) {
  // Copy at 2000/s and step at 1000/s, one after the other: 1 / (0.5 + 1 ms) = 666.7/s.
  EXPECT_NEAR(serial_consumer_seconds(2000, 1000), 0.0015, 1e-15);
  PipelineInputs p;
  p.consumer_s = serial_consumer_seconds(2000, 1000);
  p.workers = 8;
  p.cores = 8;
  p.prep_s = 0.001;
  EXPECT_NEAR(pipeline_throughput(p), 1.0 / 0.0015, 1e-9);
  EXPECT_STREQ(pipeline_rates(p).bottleneck, "consumer");
  EXPECT_EQ(serial_consumer_seconds(0, 0), 0.0);  // both unbounded
}

TEST(PipelineFormula, StorageShareBindsOnMissesOnly) {
  PipelineInputs p;
  p.workers = 4;
  p.cores = 4;
  p.prep_s = 0.001;
  p.bytes_per_sample = 1e5;
  p.storage_bw = 10e6;  // 10 MB/s of 0.1 MB samples: 100 misses/s
  p.hit = 0.75;         // 400 samples/s
  EXPECT_NEAR(pipeline_rates(p).storage, 400.0, 1e-9);
  EXPECT_NEAR(pipeline_throughput(p), 400.0, 1e-9);
  EXPECT_STREQ(pipeline_rates(p).bottleneck, "storage");
  p.hit = 1.0;
  EXPECT_EQ(pipeline_rates(p).storage, kPipelineUnbounded);
  EXPECT_NEAR(pipeline_throughput(p), 4000.0, 1e-9);
  EXPECT_EQ(storage_bound(0.0, 1e5, 0.0), kPipelineUnbounded);  // no share: no cap
}

TEST(PipelineFormula, NothingToDoIsUnbounded) {
  PipelineInputs p;
  p.prep_s = 0.0;
  EXPECT_EQ(pipeline_throughput(p), kPipelineUnbounded);
  EXPECT_STREQ(pipeline_rates(p).bottleneck, "none");
  p.workers = 0;  // no worker: nothing is produced
  p.prep_s = 0.001;
  EXPECT_EQ(pipeline_throughput(p), 0.0);
}

TEST(PipelineFormula, StorageReadAtTheConcurrencyUsed) {
  // Reads take 1 ms alone, 1.5 ms with 2 outstanding, 3 ms with 4 (bandwidth 1.33x, 1.33x).
  const std::vector<double> at = {0.001, 0.0015, 0.00225, 0.003};
  EXPECT_DOUBLE_EQ(read_seconds_at(at, 1.0), 0.001);
  EXPECT_DOUBLE_EQ(read_seconds_at(at, 1.5), 0.00125);
  EXPECT_DOUBLE_EQ(read_seconds_at(at, 8.0), 0.006);  // saturated beyond the last point
  PipelineInputs p;
  p.hit = 0.0;
  p.prep_s = 0.0;
  p.workers = 1;
  EXPECT_DOUBLE_EQ(storage_read_seconds(at, p), 0.001);  // alone: no one else reads
  // Two workers that only read: each read meets the other's (rho = 1): the 2-reader time.
  p.workers = 2;
  EXPECT_NEAR(storage_read_seconds(at, p), 0.0015, 1e-9);
  // Mostly prep: reads rarely overlap, close to the 1-reader time; between the two.
  p.prep_s = 0.009;
  const double r = storage_read_seconds(at, p);
  EXPECT_GT(r, 0.001);
  EXPECT_LT(r, 0.00106);
  // Fixed point: r = read_at(1 + rho) with rho = r / (prep + r).
  EXPECT_NEAR(r, read_seconds_at(at, 1.0 + r / (0.009 + r)), 1e-12);
  // Fully cached: nothing is read, so nothing overlaps.
  p.hit = 1.0;
  EXPECT_DOUBLE_EQ(storage_read_seconds(at, p), 0.001);
  EXPECT_EQ(storage_read_seconds({}, p), 0.0);
}

TEST(PipelineFormula, LruEpochHitFraction) {
  // 4 samples, 2 cached: the epoch's first read hits with probability 2/4, the second 1/3.
  EXPECT_DOUBLE_EQ(lru_epoch_hit_fraction(2, 4), (0.5 + 1.0 / 3.0) / 4.0);
  EXPECT_DOUBLE_EQ(lru_epoch_hit_fraction(4, 4), 1.0);
  EXPECT_DOUBLE_EQ(lru_epoch_hit_fraction(0, 4), 0.0);
  // Large datasets: f + (1 - f) ln(1 - f), far below the subset's f.
  for (double f : {0.25, 0.5, 0.75}) {
    const double closed = f + (1.0 - f) * std::log(1.0 - f);
    EXPECT_NEAR(lru_epoch_hit_fraction(f * 2e5, 2e5), closed, 1e-4);   // summed
    EXPECT_NEAR(lru_epoch_hit_fraction(f * 2e7, 2e7), closed, 1e-12);  // closed form
    EXPECT_LT(lru_epoch_hit_fraction(f * 2e5, 2e5), subset_hit_fraction(f, 1.0) - 0.2);
  }
  EXPECT_DOUBLE_EQ(subset_hit_fraction(3, 4), 0.75);
  EXPECT_DOUBLE_EQ(subset_hit_fraction(5, 4), 1.0);
  EXPECT_DOUBLE_EQ(subset_hit_fraction(1, 0), 1.0);
}

}  // namespace
}  // namespace ckbench
