// A model's training step on the GPU, executed as its real GEMM/conv/recurrent/gather shapes
// (cuBLAS GEMMs plus our own depthwise-conv, activation, gather and optimizer kernels), and
// cudaEvent timing under the noise-based stopping rule.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <string>

#include "ckbench/models.h"
#include "ckbench/stats.h"

namespace ckbench {

enum class Precision { kFp16, kTf32, kFp32 };
Precision parse_precision(const std::string& s);
const char* to_string(Precision p);

// Number of CUDA devices; 0 when there is none or the driver is unusable (never throws).
int device_count_or_zero(std::string* why = nullptr);

struct DeviceInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sms = 0;
  double mem_gb = 0.0;
};
DeviceInfo device_info(int device = 0);

// Times `enqueue` (work put on `stream`) with a pair of cudaEvents per sample until the
// stopping rule is met. Each sample is one call.
Measurement time_on_stream(cudaStream_t stream, const std::function<void()>& enqueue,
                           const StopRule& rule, std::size_t warmup = 3);

class TrainingStep {
 public:
  TrainingStep(const ModelSpec& model, int batch, Precision precision, cudaStream_t stream);
  ~TrainingStep();
  TrainingStep(const TrainingStep&) = delete;
  TrainingStep& operator=(const TrainingStep&) = delete;

  // Forward, backward (data and weight gradients) and an SGD-momentum update, enqueued on the
  // stream (asynchronous).
  void enqueue();
  // FLOPs of one step as executed (GEMMs: 2*M*N*K each for forward, dgrad and wgrad).
  double flops() const { return flops_; }
  std::size_t device_bytes() const { return device_bytes_; }
  int batch() const { return batch_; }

 private:
  void gemm(int op_a_t, int op_b_t, long m, long n, long k, const void* a, long lda, const void* b,
            long ldb, void* c, long ldc, float beta);
  void dense_forward(long rows, long n, long k);
  void dense_backward(long rows, long n, long k);
  // One pass of the depthwise 3x3 kernel over the batch (chunked to the activation buffers).
  void depthwise_pass(const Layer& layer, long batch, const void* in, void* out);
  // The embedding gather (backward: the scatter of gradients).
  void gather(const Layer& layer, long batch, bool backward);

  ModelSpec model_;
  int batch_;
  Precision precision_;
  cudaStream_t stream_;
  cublasHandle_t handle_ = nullptr;
  std::size_t elem_ = 2;    // bytes per activation/weight element
  std::size_t cap_ = 0;     // elements per activation buffer
  void* act_a_ = nullptr;   // layer input
  void* act_c_ = nullptr;   // layer output / output gradient
  void* act_d_ = nullptr;   // input gradient
  void* weight_ = nullptr;  // largest layer's weights
  void* wgrad_ = nullptr;   // and their gradient
  std::size_t weight_elems_ = 0;
  float* master_ = nullptr;  // fp32 master weights + momentum for every parameter
  float* momentum_ = nullptr;
  std::size_t params_ = 0;
  void* table_ = nullptr;  // embedding table for gathers
  std::size_t table_bytes_ = 0;
  double flops_ = 0.0;
  std::size_t device_bytes_ = 0;
};

}  // namespace ckbench
