// Error checks for CUDA runtime, cuBLAS and cuDNN calls: a failed call throws Prism's kEpFail
// naming the call and CUDA's error (the session then falls back or fails as its options say).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "common/status.h"

namespace prism::cuda {

inline void ThrowOnCudaError(cudaError_t error, const char* call) {
  if (error != cudaSuccess)
    PRISM_THROW(kEpFail, "CUDAExecutionProvider: ", call, " failed: ", cudaGetErrorName(error),
                " (", cudaGetErrorString(error), ")");
}

inline void ThrowOnCublasError(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    PRISM_THROW(kEpFail, "CUDAExecutionProvider: ", call, " failed: cuBLAS status ",
                static_cast<int>(status));
}

inline void ThrowOnCudnnError(cudnnStatus_t status, const char* call) {
  if (status != CUDNN_STATUS_SUCCESS)
    PRISM_THROW(kEpFail, "CUDAExecutionProvider: ", call, " failed: ", cudnnGetErrorString(status),
                " (cuDNN status ", static_cast<int>(status), ")");
}

}  // namespace prism::cuda

#define PRISM_CUDA_CALL(call) ::prism::cuda::ThrowOnCudaError((call), #call)
#define PRISM_CUBLAS_CALL(call) ::prism::cuda::ThrowOnCublasError((call), #call)
#define PRISM_CUDNN_CALL(call) ::prism::cuda::ThrowOnCudnnError((call), #call)
