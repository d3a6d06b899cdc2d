// What the cuDNN convolutions (Conv/FusedConv, ConvTranspose) share: descriptors owned by RAII
// wrappers, the dims cuDNN is given (1-D runs as 2-D with a unit axis: cuDNN takes 4-D and 5-D
// tensors), workspace memory from the EP's device allocator, the workspace cap
// (cudnn_conv_use_max_workspace) and the math type (use_tf32).
#pragma once

#include <cstdint>
#include <vector>

#include <cudnn.h>

#include "framework/allocator.h"
#include "graph/node.h"
#include "providers/cuda/cuda_provider_options.h"
#include "providers/cuda/kernels/conv_geometry.h"

namespace prism::cuda {

class TensorDescriptor {
 public:
  TensorDescriptor();
  ~TensorDescriptor();
  TensorDescriptor(const TensorDescriptor&) = delete;
  TensorDescriptor& operator=(const TensorDescriptor&) = delete;
  // A packed NCHW-order float tensor of these dims (4 or 5 of them).
  void Set(const std::vector<int>& dims);
  cudnnTensorDescriptor_t Get() const { return desc_; }

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

class FilterDescriptor {
 public:
  FilterDescriptor();
  ~FilterDescriptor();
  FilterDescriptor(const FilterDescriptor&) = delete;
  FilterDescriptor& operator=(const FilterDescriptor&) = delete;
  void Set(const std::vector<int>& dims);
  cudnnFilterDescriptor_t Get() const { return desc_; }

 private:
  cudnnFilterDescriptor_t desc_ = nullptr;
};

class ConvolutionDescriptor {
 public:
  ConvolutionDescriptor();
  ~ConvolutionDescriptor();
  ConvolutionDescriptor(const ConvolutionDescriptor&) = delete;
  ConvolutionDescriptor& operator=(const ConvolutionDescriptor&) = delete;
  // Cross-correlation in float with these per-axis pads (both sides), strides and dilations,
  // group count and math type.
  void Set(const std::vector<int>& pads, const std::vector<int>& strides,
           const std::vector<int>& dilations, int64_t group, cudnnMathType_t math);
  cudnnConvolutionDescriptor_t Get() const { return desc_; }

 private:
  cudnnConvolutionDescriptor_t desc_ = nullptr;
};

// dims narrowed to int for cuDNN; throws kNotImplemented naming node and what when one is over
// 2^31 - 1.
std::vector<int> ToCudnnInts(const std::vector<int64_t>& dims, const Node& node, const char* what);

// The spatial vectors cuDNN sees: one leading unit axis added for 1-D (value `unit`).
std::vector<int64_t> WithUnitAxis(std::vector<int64_t> spatial, int64_t unit);

// [a, b, spatial...] as one vector (a tensor's or filter's full dims).
std::vector<int64_t> Concat(int64_t a, int64_t b, const std::vector<int64_t>& spatial);

// CUDNN_FMA_MATH (plain FP32: no TF32 tensor cores) unless use_tf32.
cudnnMathType_t ConvMathType(const CudaProviderOptions& options);

// The most workspace an algorithm may use: 32 MiB (onnxruntime's cap) when
// cudnn_conv_use_max_workspace is 0, else `largest_needed` bounded by 90% of the free device
// memory.
size_t ConvWorkspaceLimit(const CudaProviderOptions& options, size_t largest_needed);

// Device memory from the EP's allocator for the duration of one call (the kernels enqueue on
// the EP's one stream, so freeing after enqueueing is stream-ordered).
class DeviceBuffer {
 public:
  DeviceBuffer(AllocatorPtr allocator, size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* Get() const { return data_; }
  size_t Bytes() const { return bytes_; }

 private:
  AllocatorPtr allocator_;
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace prism::cuda
