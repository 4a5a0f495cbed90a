// Error checks for CUDA runtime and cuBLAS calls: throw with the call site.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace ckbench {

inline void cuda_check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " +
                             cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
  }
}
inline void cublas_check(cublasStatus_t s, const char* what, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what +
                             ": cuBLAS status " + std::to_string(static_cast<int>(s)));
  }
}

}  // namespace ckbench

#define CK_CUDA(call) ::ckbench::cuda_check((call), #call, __FILE__, __LINE__)
#define CK_CUBLAS(call) ::ckbench::cublas_check((call), #call, __FILE__, __LINE__)
