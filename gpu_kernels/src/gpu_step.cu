#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "cuda_check.h"
#include "gpu_step.h"

namespace ckbench {

Precision parse_precision(const std::string& s) {
  if (s == "fp16") return Precision::kFp16;
  if (s == "tf32") return Precision::kTf32;
  if (s == "fp32") return Precision::kFp32;
  throw std::invalid_argument("precision must be fp16, tf32 or fp32 (got '" + s + "')");
}

const char* to_string(Precision p) {
  switch (p) {
    case Precision::kFp16:
      return "fp16";
    case Precision::kTf32:
      return "tf32";
    case Precision::kFp32:
      return "fp32";
  }
  return "?";
}

int device_count_or_zero(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why != nullptr) *why = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    cudaGetLastError();  // clear the sticky-free error state
    return 0;
  }
  if (n == 0 && why != nullptr) *why = "no CUDA device";
  return n;
}

DeviceInfo device_info(int device) {
  cudaDeviceProp prop{};
  CK_CUDA(cudaGetDeviceProperties(&prop, device));
  DeviceInfo d;
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sms = prop.multiProcessorCount;
  d.mem_gb = static_cast<double>(prop.totalGlobalMem) / 1e9;
  return d;
}

Measurement time_on_stream(cudaStream_t stream, const std::function<void()>& enqueue,
                           const StopRule& rule, std::size_t warmup) {
  cudaEvent_t start, stop;
  CK_CUDA(cudaEventCreate(&start));
  CK_CUDA(cudaEventCreate(&stop));
  auto sample = [&]() {
    CK_CUDA(cudaEventRecord(start, stream));
    enqueue();
    CK_CUDA(cudaEventRecord(stop, stream));
    CK_CUDA(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return static_cast<double>(ms) / 1e3;
  };
  Measurement m;
  try {
    m = measure(sample, rule, warmup);
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  CK_CUDA(cudaEventDestroy(start));
  CK_CUDA(cudaEventDestroy(stop));
  return m;
}

namespace {

// ---- Kernels -------------------------------------------------------------------------------

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float x) {
  return __float2half(x);
}

__device__ __forceinline__ std::uint32_t hash32(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return static_cast<std::uint32_t>(x);
}

// Values in [-scale, scale): realistic magnitudes (no zeros, no denormals, no overflow).
template <typename T>
__global__ void fill_random(T* p, std::size_t n, std::uint32_t seed, float scale) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float u = hash32(i * 0x9E3779B97F4A7C15ULL + seed) * (1.0f / 4294967296.0f);
    p[i] = from_float<T>((2.0f * u - 1.0f) * scale);
  }
}

template <typename T>
__global__ void relu_forward(T* x, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    x[i] = from_float<T>(fmaxf(to_float(x[i]), 0.0f));
  }
}

template <typename T>
__global__ void relu_backward(T* grad, const T* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    grad[i] = to_float(y[i]) > 0.0f ? grad[i] : from_float<T>(0.0f);
  }
}

// Depthwise 3x3 convolution, stride 1, zero padding, NHWC.
template <typename T>
__global__ void depthwise3x3(const T* in, const T* w, T* out, int samples, int h, int wd, int c) {
  const std::size_t total = static_cast<std::size_t>(samples) * h * wd * c;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const int ch = static_cast<int>(i % c);
    const int x = static_cast<int>((i / c) % wd);
    const int y = static_cast<int>((i / (static_cast<std::size_t>(c) * wd)) % h);
    const std::size_t n = i / (static_cast<std::size_t>(c) * wd * h);
    float acc = 0.0f;
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy) {
#pragma unroll
      for (int dx = -1; dx <= 1; ++dx) {
        const int yy = y + dy, xx = x + dx;
        if (yy < 0 || yy >= h || xx < 0 || xx >= wd) continue;
        acc += to_float(in[((n * h + yy) * wd + xx) * c + ch]) *
               to_float(w[((dy + 1) * 3 + (dx + 1)) * c + ch]);
      }
    }
    out[i] = from_float<T>(acc);
  }
}

// Row gather from an embedding table with pseudo-random indices (forward) and the matching
// scatter-add (backward: atomics on fp32 tables; the access pattern is what costs).
__global__ void gather_rows(const float* table, std::size_t table_rows, float* out,
                            std::size_t rows, int row_elems, std::uint32_t seed, bool scatter) {
  const std::size_t total = rows * row_elems;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t r = i / row_elems;
    const std::size_t src = hash32(r * 2654435761ULL + seed) % table_rows;
    const std::size_t e = i % row_elems;
    if (scatter) {
      atomicAdd(const_cast<float*>(table) + src * row_elems + e, -1e-3f * out[i]);
    } else {
      out[i] = table[src * row_elems + e];
    }
  }
}

template <typename T>
__global__ void sgd_momentum(float* w, float* m, const T* g, std::size_t n, std::size_t g_n,
                             float lr, float mu) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float grad = to_float(g[i % g_n]);
    const float v = mu * m[i] + grad;
    m[i] = v;
    w[i] -= lr * v;
  }
}

dim3 grid_for(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  return dim3(static_cast<unsigned>(std::min<std::size_t>(blocks, 65535u * 8u)));
}

}  // namespace

TrainingStep::TrainingStep(const ModelSpec& model, int batch, Precision precision,
                           cudaStream_t stream)
    : model_(model), batch_(batch), precision_(precision), stream_(stream) {
  if (batch < 1) throw std::invalid_argument("batch must be >= 1");
  elem_ = precision == Precision::kFp16 ? 2 : 4;
  // Buffer sizes: activations chunked to at most 64 Mi elements; weights = largest layer.
  std::size_t act_need = 1;
  for (const Layer& l : model.layers) {
    const std::size_t b = static_cast<std::size_t>(batch);
    switch (l.kind) {
      case LayerKind::kGemm:
      case LayerKind::kRecurrent: {
        const std::size_t rows = l.kind == LayerKind::kGemm ? b * l.m_per_sample : b;
        act_need = std::max(act_need, rows * std::max(l.n, l.k));
        weight_elems_ = std::max(weight_elems_, static_cast<std::size_t>(l.n * l.k));
        params_ += static_cast<std::size_t>(l.n * l.k * l.repeat);
        break;
      }
      case LayerKind::kDepthwise:
        act_need = std::max(act_need, b * l.m_per_sample * l.n * l.k);
        weight_elems_ = std::max(weight_elems_, static_cast<std::size_t>(9 * l.k));
        params_ += static_cast<std::size_t>(9 * l.k * l.repeat);
        break;
      case LayerKind::kGather:
        act_need = std::max(act_need, b * l.bytes_per_sample / 4);
        break;
    }
  }
  constexpr std::size_t kMaxAct = 64ull << 20;
  cap_ = std::min(act_need, kMaxAct);
  // A depthwise chunk must hold at least one sample's map.
  for (const Layer& l : model.layers) {
    if (l.kind == LayerKind::kDepthwise) {
      cap_ = std::max(cap_, static_cast<std::size_t>(l.m_per_sample * l.n * l.k));
    }
  }
  weight_elems_ = std::max<std::size_t>(weight_elems_, 1);
  params_ = std::max<std::size_t>(params_, 1);
  table_bytes_ = 256ull << 20;  // 256 MB embedding table: larger than L2, as real tables are

  CK_CUBLAS(cublasCreate(&handle_));
  CK_CUBLAS(cublasSetStream(handle_, stream_));
  CK_CUBLAS(cublasSetMathMode(
      handle_, precision == Precision::kFp32 ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH));
  auto alloc = [&](void** p, std::size_t bytes) {
    CK_CUDA(cudaMalloc(p, bytes));
    device_bytes_ += bytes;
  };
  alloc(&act_a_, cap_ * elem_);
  alloc(&act_c_, cap_ * elem_);
  // The embedding gather writes fp32 rows into act_d_ whatever the precision.
  std::size_t gather_bytes = 256;
  for (const Layer& l : model.layers) {
    if (l.kind == LayerKind::kGather) {
      gather_bytes = std::max(gather_bytes, static_cast<std::size_t>(batch) * l.bytes_per_sample);
    }
  }
  alloc(&act_d_, std::max(cap_ * elem_, gather_bytes));
  alloc(&weight_, weight_elems_ * elem_);
  alloc(&wgrad_, weight_elems_ * elem_);
  alloc(reinterpret_cast<void**>(&master_), params_ * sizeof(float));
  alloc(reinterpret_cast<void**>(&momentum_), params_ * sizeof(float));
  bool has_gather = false;
  for (const Layer& l : model.layers) has_gather = has_gather || l.kind == LayerKind::kGather;
  if (has_gather) alloc(&table_, table_bytes_);

  auto fill = [&](void* p, std::size_t n, bool half, std::uint32_t seed, float scale) {
    if (half) {
      fill_random<<<grid_for(n), 256, 0, stream_>>>(static_cast<__half*>(p), n, seed, scale);
    } else {
      fill_random<<<grid_for(n), 256, 0, stream_>>>(static_cast<float*>(p), n, seed, scale);
    }
    CK_CUDA(cudaGetLastError());
  };
  const bool half = elem_ == 2;
  fill(act_a_, cap_, half, 1, 1.0f);
  fill(act_c_, cap_, half, 2, 1.0f);
  fill(act_d_, cap_, half, 3, 1.0f);
  fill(weight_, weight_elems_, half, 4, 0.05f);
  fill(wgrad_, weight_elems_, half, 5, 0.01f);
  fill(master_, params_, false, 6, 0.05f);
  CK_CUDA(cudaMemsetAsync(momentum_, 0, params_ * sizeof(float), stream_));
  if (table_ != nullptr) fill(table_, table_bytes_ / 4, false, 7, 0.1f);
  CK_CUDA(cudaStreamSynchronize(stream_));

  // FLOPs as executed.
  for (const Layer& l : model.layers) {
    const double b = batch;
    switch (l.kind) {
      case LayerKind::kGemm:
        flops_ += 3.0 * 2.0 * b * l.m_per_sample * l.n * l.k * l.repeat;
        break;
      case LayerKind::kRecurrent:
        flops_ += 3.0 * 2.0 * b * l.n * l.k * l.steps * l.repeat;
        break;
      case LayerKind::kDepthwise:
        flops_ += 3.0 * 2.0 * 9.0 * b * l.m_per_sample * l.n * l.k * l.repeat;
        break;
      case LayerKind::kGather:
        break;
    }
  }
}

TrainingStep::~TrainingStep() {
  // Destructors must not throw: errors here are ignored.
  cudaStreamSynchronize(stream_);
  for (void* p : {act_a_, act_c_, act_d_, weight_, wgrad_, static_cast<void*>(master_),
                  static_cast<void*>(momentum_), table_}) {
    if (p != nullptr) cudaFree(p);
  }
  if (handle_ != nullptr) cublasDestroy(handle_);
}

void TrainingStep::gemm(int op_a_t, int op_b_t, long m, long n, long k, const void* a, long lda,
                        const void* b, long ldb, void* c, long ldc, float beta) {
  const float alpha = 1.0f;
  const cublasOperation_t ta = op_a_t ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = op_b_t ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cudaDataType_t type = elem_ == 2 ? CUDA_R_16F : CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  if (precision_ == Precision::kTf32) compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  if (precision_ == Precision::kFp32) compute = CUBLAS_COMPUTE_32F_PEDANTIC;
  CK_CUBLAS(cublasGemmEx(handle_, ta, tb, static_cast<int>(m), static_cast<int>(n),
                         static_cast<int>(k), &alpha, a, type, static_cast<int>(lda), b, type,
                         static_cast<int>(ldb), &beta, c, type, static_cast<int>(ldc), compute,
                         CUBLAS_GEMM_DEFAULT));
}

// Row-major Y[rows x n] = X[rows x k] W[k x n] in chunks of rows that fit the buffers; then ReLU.
void TrainingStep::dense_forward(long rows, long n, long k) {
  const long chunk =
      std::max(1L, static_cast<long>(cap_ / static_cast<std::size_t>(std::max(n, k))));
  for (long r = 0; r < rows; r += chunk) {
    const long m = std::min(chunk, rows - r);
    // Column-major view: Y^T (n x m) = W^T (n x k) X^T (k x m).
    gemm(0, 0, n, m, k, weight_, n, act_a_, k, act_c_, n, 0.0f);
    const std::size_t out = static_cast<std::size_t>(m) * n;
    if (elem_ == 2) {
      relu_forward<<<grid_for(out), 256, 0, stream_>>>(static_cast<__half*>(act_c_), out);
    } else {
      relu_forward<<<grid_for(out), 256, 0, stream_>>>(static_cast<float*>(act_c_), out);
    }
    CK_CUDA(cudaGetLastError());
  }
}

// dX[rows x k] = dY[rows x n] W^T and dW[k x n] += X^T dY, after the ReLU gradient.
void TrainingStep::dense_backward(long rows, long n, long k) {
  const long chunk =
      std::max(1L, static_cast<long>(cap_ / static_cast<std::size_t>(std::max(n, k))));
  for (long r = 0; r < rows; r += chunk) {
    const long m = std::min(chunk, rows - r);
    const std::size_t out = static_cast<std::size_t>(m) * n;
    if (elem_ == 2) {
      relu_backward<<<grid_for(out), 256, 0, stream_>>>(static_cast<__half*>(act_c_),
                                                        static_cast<const __half*>(act_a_), out);
    } else {
      relu_backward<<<grid_for(out), 256, 0, stream_>>>(static_cast<float*>(act_c_),
                                                        static_cast<const float*>(act_a_), out);
    }
    CK_CUDA(cudaGetLastError());
    // dX^T (k x m) = W (k x n, stored as col-major n x k, transposed) dY^T (n x m).
    gemm(1, 0, k, m, n, weight_, n, act_c_, n, act_d_, k, 0.0f);
    // dW^T (n x k) += dY^T (n x m) X (m x k, stored col-major k x m, transposed).
    gemm(0, 1, n, k, m, act_c_, n, act_a_, k, wgrad_, n, r == 0 ? 0.0f : 1.0f);
  }
}

void TrainingStep::depthwise_pass(const Layer& l, long batch, const void* in, void* out) {
  const long per = l.m_per_sample * l.n * l.k;
  const long chunk = std::max(1L, static_cast<long>(cap_) / per);
  for (long s = 0; s < batch; s += chunk) {
    const int samples = static_cast<int>(std::min(chunk, batch - s));
    const std::size_t total = static_cast<std::size_t>(samples) * per;
    if (elem_ == 2) {
      depthwise3x3<<<grid_for(total), 256, 0, stream_>>>(
          static_cast<const __half*>(in), static_cast<const __half*>(weight_),
          static_cast<__half*>(out), samples, static_cast<int>(l.m_per_sample),
          static_cast<int>(l.n), static_cast<int>(l.k));
    } else {
      depthwise3x3<<<grid_for(total), 256, 0, stream_>>>(
          static_cast<const float*>(in), static_cast<const float*>(weight_),
          static_cast<float*>(out), samples, static_cast<int>(l.m_per_sample),
          static_cast<int>(l.n), static_cast<int>(l.k));
    }
    CK_CUDA(cudaGetLastError());
  }
}

void TrainingStep::gather(const Layer& l, long batch, bool backward) {
  const int row_elems = 64;
  const std::size_t rows = static_cast<std::size_t>(batch) * l.bytes_per_sample / 4 / row_elems;
  const std::size_t total = rows * row_elems;
  gather_rows<<<grid_for(total), 256, 0, stream_>>>(
      static_cast<const float*>(table_), table_bytes_ / 4 / row_elems, static_cast<float*>(act_d_),
      std::max<std::size_t>(rows, 1), row_elems, 11, backward);
  CK_CUDA(cudaGetLastError());
}

void TrainingStep::enqueue() {
  const long b = batch_;
  // Forward.
  for (const Layer& l : model_.layers) {
    for (long rep = 0; rep < l.repeat; ++rep) {
      switch (l.kind) {
        case LayerKind::kGemm:
          dense_forward(b * l.m_per_sample, l.n, l.k);
          break;
        case LayerKind::kRecurrent:
          for (long s = 0; s < l.steps; ++s) dense_forward(b, l.n, l.k);
          break;
        case LayerKind::kDepthwise:
          depthwise_pass(l, b, act_a_, act_c_);
          break;
        case LayerKind::kGather:
          gather(l, b, false);
          break;
      }
    }
  }
  // Backward, in reverse order. The depthwise backward (input and weight gradients) is run as
  // two more passes of the same kernel: same arithmetic and traffic as the real gradients.
  for (auto it = model_.layers.rbegin(); it != model_.layers.rend(); ++it) {
    const Layer& l = *it;
    for (long rep = 0; rep < l.repeat; ++rep) {
      switch (l.kind) {
        case LayerKind::kGemm:
          dense_backward(b * l.m_per_sample, l.n, l.k);
          break;
        case LayerKind::kRecurrent:
          for (long s = 0; s < l.steps; ++s) dense_backward(b, l.n, l.k);
          break;
        case LayerKind::kDepthwise:
          for (int pass = 0; pass < 2; ++pass) depthwise_pass(l, b, act_c_, act_d_);
          break;
        case LayerKind::kGather:
          gather(l, b, true);
          break;
      }
    }
  }
  // Optimizer: SGD with momentum over every parameter (fp32 master weights).
  if (elem_ == 2) {
    sgd_momentum<<<grid_for(params_), 256, 0, stream_>>>(master_, momentum_,
                                                         static_cast<const __half*>(wgrad_),
                                                         params_, weight_elems_, 0.01f, 0.9f);
  } else {
    sgd_momentum<<<grid_for(params_), 256, 0, stream_>>>(
        master_, momentum_, static_cast<const float*>(wgrad_), params_, weight_elems_, 0.01f, 0.9f);
  }
  CK_CUDA(cudaGetLastError());
}

}  // namespace ckbench
