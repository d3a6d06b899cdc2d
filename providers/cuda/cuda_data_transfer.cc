#include "providers/cuda/cuda_data_transfer.h"

#include "providers/cuda/cuda_allocator.h"
#include "providers/cuda/cuda_call.h"

namespace prism::cuda {

bool CudaDataTransfer::IsOurDevice(const MemoryInfo& memory) const {
  return memory.name == kDeviceMemoryName && memory.device_id == device_id_;
}

bool CudaDataTransfer::CanCopy(const MemoryInfo& source, const MemoryInfo& destination) const {
  const bool source_ours = IsOurDevice(source);
  const bool destination_ours = IsOurDevice(destination);
  return (source_ours && (destination_ours || destination.IsCpuAccessible())) ||
         (destination_ours && source.IsCpuAccessible());
}

void CudaDataTransfer::CopyTensor(const Tensor& source, Tensor& destination) const {
  PRISM_ENFORCE(source.Type() == destination.Type() && source.Shape() == destination.Shape(),
                kInvalidArgument, "copy from ", source.Describe(), " to ", destination.Describe());
  PRISM_ENFORCE(source.Type() != ElementType::kString, kInvalidArgument,
                "CUDAExecutionProvider: string tensors cannot live in device memory (",
                source.Describe(), ")");
  const size_t bytes = source.SizeInBytes();
  if (bytes == 0) return;
  const bool from_device = IsOurDevice(source.Location());
  const bool to_device = IsOurDevice(destination.Location());
  const cudaMemcpyKind kind = from_device && to_device ? cudaMemcpyDeviceToDevice
                              : from_device            ? cudaMemcpyDeviceToHost
                                                       : cudaMemcpyHostToDevice;
  PRISM_CUDA_CALL(cudaSetDevice(device_id_));
  PRISM_CUDA_CALL(
      cudaMemcpyAsync(destination.MutableRawData(), source.RawData(), bytes, kind, stream_));
  // Kernels run on the EP's stream: a copy on it is ordered after them; the host waits so that
  // what it reads next (or the source it may free) is settled.
  PRISM_CUDA_CALL(cudaStreamSynchronize(stream_));
}

}  // namespace prism::cuda
