#include "providers/cuda/kernels/cudnn_conv_common.h"

#include <algorithm>
#include <climits>

#include "common/status.h"
#include "providers/cuda/cuda_call.h"

namespace prism::cuda {

TensorDescriptor::TensorDescriptor() {
  PRISM_CUDNN_CALL(cudnnCreateTensorDescriptor(&desc_));
}
TensorDescriptor::~TensorDescriptor() {
  if (desc_ != nullptr) cudnnDestroyTensorDescriptor(desc_);
}
void TensorDescriptor::Set(const std::vector<int>& dims) {
  // cuDNN's strides are int: a tensor of 2^31 elements or more cannot be described.
  std::vector<int> strides(dims.size(), 1);
  int64_t stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    PRISM_ENFORCE(stride <= INT_MAX, kNotImplemented,
                  "CUDAExecutionProvider: a tensor for cuDNN has 2^31 elements or more");
    strides[d] = static_cast<int>(stride);
    stride *= std::max(dims[d], 1);
  }
  PRISM_CUDNN_CALL(cudnnSetTensorNdDescriptor(
      desc_, CUDNN_DATA_FLOAT, static_cast<int>(dims.size()), dims.data(), strides.data()));
}

FilterDescriptor::FilterDescriptor() {
  PRISM_CUDNN_CALL(cudnnCreateFilterDescriptor(&desc_));
}
FilterDescriptor::~FilterDescriptor() {
  if (desc_ != nullptr) cudnnDestroyFilterDescriptor(desc_);
}
void FilterDescriptor::Set(const std::vector<int>& dims) {
  PRISM_CUDNN_CALL(cudnnSetFilterNdDescriptor(desc_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                              static_cast<int>(dims.size()), dims.data()));
}

ConvolutionDescriptor::ConvolutionDescriptor() {
  PRISM_CUDNN_CALL(cudnnCreateConvolutionDescriptor(&desc_));
}
ConvolutionDescriptor::~ConvolutionDescriptor() {
  if (desc_ != nullptr) cudnnDestroyConvolutionDescriptor(desc_);
}
void ConvolutionDescriptor::Set(const std::vector<int>& pads, const std::vector<int>& strides,
                                const std::vector<int>& dilations, int64_t group,
                                cudnnMathType_t math) {
  PRISM_CUDNN_CALL(cudnnSetConvolutionNdDescriptor(desc_, static_cast<int>(pads.size()),
                                                   pads.data(), strides.data(), dilations.data(),
                                                   CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  PRISM_ENFORCE(group <= INT_MAX, kNotImplemented, "CUDAExecutionProvider: group ", group,
                " is over cuDNN's int range");
  PRISM_CUDNN_CALL(cudnnSetConvolutionGroupCount(desc_, static_cast<int>(group)));
  PRISM_CUDNN_CALL(cudnnSetConvolutionMathType(desc_, math));
}

std::vector<int> ToCudnnInts(const std::vector<int64_t>& dims, const Node& node, const char* what) {
  std::vector<int> narrow(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    PRISM_ENFORCE(dims[d] >= 0 && dims[d] <= INT_MAX, kNotImplemented, node.Describe(),
                  ": CUDAExecutionProvider's cuDNN convolution takes ", what, " in [0, 2^31), got ",
                  dims[d]);
    narrow[d] = static_cast<int>(dims[d]);
  }
  return narrow;
}

std::vector<int64_t> WithUnitAxis(std::vector<int64_t> spatial, int64_t unit) {
  if (spatial.size() == 1) spatial.insert(spatial.begin(), unit);
  return spatial;
}

std::vector<int64_t> Concat(int64_t a, int64_t b, const std::vector<int64_t>& spatial) {
  std::vector<int64_t> dims = {a, b};
  dims.insert(dims.end(), spatial.begin(), spatial.end());
  return dims;
}

cudnnMathType_t ConvMathType(const CudaProviderOptions& options) {
  // DEFAULT_MATH lets cuDNN use TF32 tensor cores for float data on Ampere and later; FMA_MATH
  // keeps full FP32 (as PyTorch does with allow_tf32 off).
  return options.use_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
}

size_t ConvWorkspaceLimit(const CudaProviderOptions& options, size_t largest_needed) {
  constexpr size_t kSmallCap = size_t{32} << 20;
  if (!options.cudnn_conv_use_max_workspace) return std::min(kSmallCap, largest_needed);
  size_t free_bytes = 0, total_bytes = 0;
  PRISM_CUDA_CALL(cudaMemGetInfo(&free_bytes, &total_bytes));
  size_t limit = std::min(largest_needed, free_bytes / 10 * 9);
  // gpu_mem_limit bounds the EP's arena: leave most of it to the tensors.
  if (options.gpu_mem_limit != 0) limit = std::min(limit, options.gpu_mem_limit / 4);
  return limit;
}

DeviceBuffer::DeviceBuffer(AllocatorPtr allocator, size_t bytes)
    : allocator_(std::move(allocator)), bytes_(bytes) {
  if (bytes_ > 0) data_ = allocator_->Alloc(bytes_);
}

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) allocator_->Free(data_);
}

}  // namespace prism::cuda
