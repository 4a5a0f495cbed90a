// Needs a CUDA device: skipped (not failed) where cudaGetDeviceCount finds none.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

#include "ckbench/models.h"
#include "gpu_step.h"

namespace ckbench {
namespace {

class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
      GTEST_SKIP() << "no CUDA device (" << (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices")
                   << ")";
    }
    ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
  }
  void TearDown() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  cudaStream_t stream_ = nullptr;
};

TEST_F(DeviceTest, TrainingStepRunsForEveryModel) {
  for (const ModelSpec& m : model_zoo()) {
    SCOPED_TRACE(m.name);
    TrainingStep step(m, 4, Precision::kFp16, stream_);
    step.enqueue();
    ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    EXPECT_GT(step.flops(), 0.0);
  }
}

TEST_F(DeviceTest, EventTimingConverges) {
  TrainingStep step(find_model("resnet18"), 16, Precision::kFp16, stream_);
  const Measurement m = time_on_stream(
      stream_, [&]() { step.enqueue(); }, make_rule(0.05, 5, 0.0, 20.0));
  EXPECT_GT(m.stats.mean, 0.0);
  EXPECT_GE(m.stats.n, 5u);
}

TEST(DeviceCount, NeverThrows) {
  std::string why;
  const int n = device_count_or_zero(&why);
  EXPECT_GE(n, 0);
  if (n == 0) {
    EXPECT_FALSE(why.empty());
  }
}

}  // namespace
}  // namespace ckbench
