// What clustersim-profile writes (gpu_kernels/include/ckbench/profile_builder.h) is a valid
// profile for the simulator, and its matrix follows the analytic pipeline model.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ckbench/profile_builder.h"
#include "clustersim/profile.h"

namespace clustersim {
namespace {

ckbench::MeasuredRates example_rates() {
  ckbench::MeasuredRates r;
  r.model = "resnet50";
  r.gpu_type = "h100";
  r.device = "test device";
  r.dataset = "ImageNet-1k train";
  r.batch = 128;
  r.gpu_sps = 2400;  // GPU-bound at 2400 samples/s
  r.h2d_sps = 40000;
  r.prep_cpus = {1, 2, 4, 8, 16};
  r.prep_sps = {250, 500, 990, 1950, 3800};  // ~245 samples/s per core
  r.e2e_cpus = {4, 8, 16};
  r.e2e_sps = {980, 1900, 2350};
  r.cache_bw = 8e9;
  r.storage_bw = 2e9;
  r.dataset_gb = 147.9;
  r.stored_bytes_per_sample = 115440;
  return r;
}

TEST(MeasuredProfile, LoadsAndFollowsThePipelineModel) {
  const ckbench::MeasuredRates r = example_rates();
  const ckbench::Json json = ckbench::build_measured_profile(r);
  const auto path = std::filesystem::path(::testing::TempDir()) / "measured_resnet50.json";
  std::ofstream(path) << json.dump(2);
  const Profile p = load_profile(path.string());
  EXPECT_EQ(p.provenance_kind, "measured");
  EXPECT_EQ(p.gpu_type, "h100");
  // CPU axis: 1, 2, 3 (reference), 4, 8, 16.
  EXPECT_EQ(p.cpus_per_gpu, (std::vector<double>{1, 2, 3, 4, 8, 16}));
  ASSERT_TRUE(p.pipeline.has_value());
  EXPECT_DOUBLE_EQ(p.pipeline->storage_mbps, 2000.0);
  // Full cache (the 147.9 GB column): e2e rows where measured, min(GPU, H2D, prep) elsewhere.
  const std::size_t full = p.mem_gb_per_gpu.size() - 1;
  EXPECT_DOUBLE_EQ(p.mem_gb_per_gpu[full], 147.9);
  EXPECT_DOUBLE_EQ(p.throughput[0][full], 250.0);
  EXPECT_DOUBLE_EQ(p.throughput[2][full], 745.0);  // prep(3) interpolated between 2 and 4 cores
  EXPECT_DOUBLE_EQ(p.throughput[3][full], 980.0);
  EXPECT_DOUBLE_EQ(p.throughput[5][full], 2350.0);
  // Small caches are storage-bound: 5% of the dataset cached at 16 cores.
  const double h = p.mem_gb_per_gpu[0] / 147.9;
  EXPECT_NEAR(p.throughput[5][0], std::min(2350.0, 2000.0 / ((1 - h) * 0.11544)), 1e-6);
  // The simulator's rate at the reference is 1 and grows with cores until the GPU binds.
  Allocation a;
  a.gpus = 1;
  a.nodes = 1;
  a.cpus = 3;
  a.mem_gb = 62.5;
  EXPECT_DOUBLE_EQ(profile_rate(p, a), 1.0);
  a.cpus = 16;
  EXPECT_NEAR(profile_rate(p, a), 2350.0 / 745.0, 1e-9);
}

TEST(MeasuredProfile, MemoryColumnsAddEachWorkersReadToItsPrep) {
  // Reads of 2 ms per sample at any concurrency (a slow network file system): a worker that
  // misses the cache reads, then preprocesses, so the misses slow it even where storage
  // bandwidth is plentiful (2 GB/s share: 17,325 samples/s of 115,440 bytes).
  ckbench::MeasuredRates r = example_rates();
  r.read_s_at.assign(16, 0.002);
  r.read_bytes = 115440;  // the profile's sample size: the read times apply unscaled
  const auto path = std::filesystem::path(::testing::TempDir()) / "measured_serial_fetch.json";
  std::ofstream(path) << ckbench::build_measured_profile(r).dump(2);
  const Profile p = load_profile(path.string());
  // 4 cores (row 3), the smallest cache column: 5% of 147.9 GB rounded to 7.4 GB, hit
  // h = 7.4 / 147.9. Per worker: prep 4 / 990 s (prep(4) = 990/s on 4 workers) plus
  // (1 - h) x 2 ms of reading; four workers: 4 / (4 / 990 + (1 - h) 0.002) = 673.4/s where a
  // full cache gives the formula min(consumer 1 / (1/40000 + 1/2400) = 2264, workers 990,
  // cores 990) = 990/s. The measured 980/s at a full cache scales by 673.4 / 990: 666.6/s (the
  // old min(prep, fetch) model: 980).
  ASSERT_EQ(p.cpus_per_gpu[3], 4.0);
  ASSERT_DOUBLE_EQ(p.mem_gb_per_gpu[0], 7.4);
  const double h = 7.4 / 147.9;
  EXPECT_NEAR(p.throughput[3][0], 980.0 * (4.0 / (4.0 / 990.0 + (1.0 - h) * 0.002)) / 990.0, 1e-6);
  // A full cache reads nothing: the measured end-to-end rate stands.
  EXPECT_DOUBLE_EQ(p.throughput[3][p.mem_gb_per_gpu.size() - 1], 980.0);
}

TEST(MeasuredProfile, TinyDatasetsAndNoisyRunsStillValidate) {
  ckbench::MeasuredRates r = example_rates();
  r.dataset_gb = 0.53;            // smaller than any reference memory
  r.e2e_sps = {1000, 990, 2350};  // noise: 8 cores measured below 4
  const auto path = std::filesystem::path(::testing::TempDir()) / "measured_small.json";
  std::ofstream(path) << ckbench::build_measured_profile(r).dump(2);
  const Profile p = load_profile(path.string());  // monotonized, axes strictly increasing
  EXPECT_DOUBLE_EQ(p.mem_gb_per_gpu.back(), 62.5);
  EXPECT_GE(p.throughput[4].back(), p.throughput[3].back());
}

TEST(MeasuredProfile, FrameworkFactorScalesThePrepBoundRows) {
  ckbench::MeasuredRates r = example_rates();
  r.framework_factor = 0.5;  // a framework that prepares half as fast as our C++ prep
  const ckbench::Json json = ckbench::build_measured_profile(r);
  const auto path = std::filesystem::path(::testing::TempDir()) / "measured_factor.json";
  std::ofstream(path) << json.dump(2);
  const Profile p = load_profile(path.string());
  const std::size_t full = p.mem_gb_per_gpu.size() - 1;
  EXPECT_DOUBLE_EQ(p.throughput[0][full], 125.0);   // 0.5 x prep(1)
  EXPECT_DOUBLE_EQ(p.throughput[2][full], 372.5);   // 0.5 x prep(3)
  EXPECT_DOUBLE_EQ(p.throughput[3][full], 495.0);   // e2e 980 capped at 0.5 x prep(4) = 495
  EXPECT_DOUBLE_EQ(p.throughput[5][full], 1900.0);  // e2e 2350 capped at 0.5 x 3800
  EXPECT_NE(json.dump(-1).find("\"framework_factor\":0.5"), std::string::npos);
}

TEST(MeasuredProfile, ComposedRowsCopyThenStep) {
  ckbench::MeasuredRates r = example_rates();
  r.gpu_sps = 600;  // the copy and the step one after the other: 1 / (1/600 + 1/600) = 300/s
  r.h2d_sps = 600;
  r.e2e_cpus = {16};
  r.e2e_sps = {290};
  const ckbench::Json json = ckbench::build_measured_profile(r);
  const auto path = std::filesystem::path(::testing::TempDir()) / "measured_serial.json";
  std::ofstream(path) << json.dump(2);
  const Profile p = load_profile(path.string());
  const std::size_t full = p.mem_gb_per_gpu.size() - 1;
  EXPECT_DOUBLE_EQ(p.throughput[0][full], 250.0);  // prep(1) binds
  EXPECT_DOUBLE_EQ(p.throughput[1][full], 300.0);  // not min(600, 600, 500) = 500
  EXPECT_DOUBLE_EQ(p.throughput[3][full], 300.0);
}

}  // namespace
}  // namespace clustersim
