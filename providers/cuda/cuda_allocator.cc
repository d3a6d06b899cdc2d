#include "providers/cuda/cuda_allocator.h"

#include <cuda_runtime_api.h>

#include "providers/cuda/cuda_call.h"

namespace prism::cuda {

CudaDeviceAllocator::CudaDeviceAllocator(int device_id) {
  info_.name = kDeviceMemoryName;
  info_.device = DeviceType::kGpu;
  info_.device_id = device_id;
}

void* CudaDeviceAllocator::Alloc(size_t bytes) {
  if (bytes == 0) return nullptr;
  PRISM_CUDA_CALL(cudaSetDevice(info_.device_id));
  void* pointer = nullptr;
  const cudaError_t error = cudaMalloc(&pointer, bytes);
  if (error == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free error state of this thread
    PRISM_THROW(kRuntimeException, "CUDAExecutionProvider: out of device memory on GPU ",
                info_.device_id, " allocating ", bytes, " bytes");
  }
  PRISM_CUDA_CALL(error);
  return pointer;
}

void CudaDeviceAllocator::Free(void* pointer) {
  if (pointer == nullptr) return;
  cudaSetDevice(info_.device_id);
  cudaFree(pointer);  // errors here (a context being torn down at exit) have no one to report to
}

CudaPinnedAllocator::CudaPinnedAllocator() {
  info_.name = kPinnedMemoryName;
  info_.device = DeviceType::kCpu;
  info_.mem_type = MemType::kCpuOutput;
}

void* CudaPinnedAllocator::Alloc(size_t bytes) {
  if (bytes == 0) return nullptr;
  void* pointer = nullptr;
  PRISM_CUDA_CALL(cudaHostAlloc(&pointer, bytes, cudaHostAllocDefault));
  return pointer;
}

void CudaPinnedAllocator::Free(void* pointer) {
  if (pointer != nullptr) cudaFreeHost(pointer);
}

}  // namespace prism::cuda
