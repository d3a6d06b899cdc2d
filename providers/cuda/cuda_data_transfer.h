// Copies between host memory and one GPU's memory, and within that GPU, on the EP's stream (or
// the default stream with do_copy_in_default_stream); each copy completes before it returns, so
// host code may read what was copied.
#pragma once

#include <cuda_runtime_api.h>

#include "framework/data_transfer.h"

namespace prism::cuda {

class CudaDataTransfer final : public IDataTransfer {
 public:
  CudaDataTransfer(int device_id, cudaStream_t stream) : device_id_(device_id), stream_(stream) {}
  bool CanCopy(const MemoryInfo& source, const MemoryInfo& destination) const override;
  void CopyTensor(const Tensor& source, Tensor& destination) const override;

 private:
  bool IsOurDevice(const MemoryInfo& memory) const;
  int device_id_;
  cudaStream_t stream_;  // nullptr: the default stream
};

}  // namespace prism::cuda
