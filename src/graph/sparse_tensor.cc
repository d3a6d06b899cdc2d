#include "graph/sparse_tensor.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <vector>

#include "framework/packed_int.h"

namespace prism {
namespace {

// Element `from` of src into element `to` of dst (same type), by storage.
void CopyOne(const Tensor& src, int64_t from, Tensor& dst, int64_t to) {
  if (src.Type() == ElementType::kString) {
    dst.MutableData<std::string>()[to] = src.Data<std::string>()[from];
    return;
  }
  const int bits = ElementBits(src.Type());
  const auto* in = static_cast<const uint8_t*>(src.RawData());
  auto* out = static_cast<uint8_t*>(dst.MutableRawData());
  if (bits < 8) {
    SetPackedBits(out, to, bits, GetPackedBits(in, from, bits));
    return;
  }
  const size_t width = static_cast<size_t>(bits / 8);
  std::memcpy(out + static_cast<size_t>(to) * width, in + static_cast<size_t>(from) * width, width);
}

}  // namespace

Tensor DensifySparseTensor(const onnx::SparseTensorProto& sparse, const ExternalDataPolicy& policy,
                           const std::string& what) {
  const Tensor values = TensorFromProto(sparse.values(), policy, what + " values");
  const Tensor indices = TensorFromProto(sparse.indices(), policy, what + " indices");
  std::vector<int64_t> dims(sparse.dims().begin(), sparse.dims().end());
  for (int64_t d : dims) PRISM_ENFORCE(d >= 0, kInvalidGraph, what, " has negative dim ", d);
  // The dense form is allocated here: its declared size is checked first (overflow, the limit).
  TensorShape shape;
  size_t dense_bytes = 0;
  try {
    shape = TensorShape(dims);
    dense_bytes = StorageBytes(values.Type(), shape.Size());
  } catch (const Exception& e) {
    PRISM_THROW(kInvalidGraph, what, ": ", e.what());
  }
  CheckDeclaredTensorBytes(policy, dense_bytes, values.Type(), shape, what);
  const int64_t count = values.NumElements();
  PRISM_ENFORCE(values.Shape().Rank() == 1, kInvalidGraph, what, ": values must be 1-D, got ",
                values.Shape().ToString());
  PRISM_ENFORCE(indices.Type() == ElementType::kInt64, kInvalidGraph, what,
                ": indices must be int64, got ", ElementTypeName(indices.Type()));
  const bool linear = indices.Shape().Rank() == 1;
  PRISM_ENFORCE((linear && indices.Shape()[0] == count) ||
                    (indices.Shape().Rank() == 2 && indices.Shape()[0] == count &&
                     indices.Shape()[1] == static_cast<int64_t>(dims.size())),
                kInvalidGraph, what, ": indices of shape ", indices.Shape().ToString(),
                " do not match ", count, " values of a tensor of rank ", dims.size());
  Tensor dense(values.Type(), shape, GetCpuAllocator());
  if (values.Type() != ElementType::kString && dense.SizeInBytes() > 0)
    std::memset(dense.MutableRawData(), 0, dense.SizeInBytes());
  const int64_t* index = indices.Data<int64_t>();
  const int64_t total = dense.NumElements();
  for (int64_t k = 0; k < count; ++k) {
    int64_t position = 0;
    if (linear) {
      position = index[k];
    } else {
      for (size_t d = 0; d < dims.size(); ++d) {
        const int64_t coordinate =
            index[k * static_cast<int64_t>(dims.size()) + static_cast<int64_t>(d)];
        PRISM_ENFORCE(coordinate >= 0 && coordinate < dims[d], kInvalidGraph, what, ": index ",
                      coordinate, " of value ", k, " is out of range for dim ", d, " of size ",
                      dims[d]);
        position = position * dims[d] + coordinate;
      }
    }
    PRISM_ENFORCE(position >= 0 && position < total, kInvalidGraph, what, ": index ", position,
                  " of value ", k, " is out of range for ", total, " elements");
    CopyOne(values, k, dense, position);
  }
  return dense;
}

}  // namespace prism
