#include "providers/cpu/common/broadcast.h"

#include <algorithm>

#include "common/status.h"

namespace prism::cpu {
namespace {

std::string Prefix(std::string_view what) {
  return what.empty() ? std::string() : std::string(what) + ": ";
}

std::string JoinShapes(const std::vector<TensorShape>& shapes) {
  std::string joined;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i > 0) joined += " and ";
    joined += shapes[i].ToString();
  }
  return joined;
}

}  // namespace

TensorShape BroadcastShapes(const std::vector<TensorShape>& shapes, std::string_view what) {
  size_t rank = 0;
  for (const TensorShape& shape : shapes) rank = std::max(rank, shape.Rank());
  std::vector<int64_t> dims(rank, 1);
  for (size_t j = 0; j < rank; ++j) {
    // A dim of 1 stretches to any size (including 0); anything else must agree.
    bool have_fixed = false;
    for (const TensorShape& shape : shapes) {
      if (j + shape.Rank() < rank) continue;  // missing leading dim acts as 1
      const int64_t dim = shape[j + shape.Rank() - rank];
      if (dim == 1) continue;
      if (!have_fixed) {
        dims[j] = dim;
        have_fixed = true;
      } else if (dims[j] != dim) {
        PRISM_THROW(kInvalidArgument, Prefix(what),
                    "incompatible shapes for broadcasting: ", JoinShapes(shapes), " (dimension ", j,
                    " of the result: ", dims[j], " vs ", dim, ")");
      }
    }
  }
  return TensorShape(std::move(dims));
}

Broadcaster::Broadcaster(const std::vector<TensorShape>& input_shapes, std::string_view what)
    : output_shape_(BroadcastShapes(input_shapes, what)), input_count_(input_shapes.size()) {
  const size_t n = input_count_;
  const size_t rank = output_shape_.Rank();
  // Each input's row-major strides, aligned to the output's dims (0 where it broadcasts).
  std::vector<int64_t> full_strides(rank * n, 0);
  for (size_t i = 0; i < n; ++i) {
    const TensorShape& shape = input_shapes[i];
    const size_t lead = rank - shape.Rank();
    int64_t stride = 1;
    for (size_t k = shape.Rank(); k-- > 0;) {
      const size_t j = k + lead;
      full_strides[j * n + i] = (shape[k] == output_shape_[j]) ? stride : 0;
      stride *= shape[k];
    }
  }
  // Drop dims of size 1 and merge neighbours where each input is broadcast in both or in
  // neither: a row-major input present in both dims has stride(outer) = stride(inner) * inner.
  std::vector<bool> previous_present;
  for (size_t j = 0; j < rank; ++j) {
    if (output_shape_[j] == 1) continue;
    std::vector<bool> present(n);
    for (size_t i = 0; i < n; ++i) present[i] = full_strides[j * n + i] != 0;
    if (!dims_.empty() && present == previous_present) {
      dims_.back() *= output_shape_[j];
      std::copy_n(&full_strides[j * n], n, strides_.end() - static_cast<std::ptrdiff_t>(n));
    } else {
      dims_.push_back(output_shape_[j]);
      strides_.insert(strides_.end(), &full_strides[j * n], &full_strides[j * n] + n);
    }
    previous_present = std::move(present);
  }
}

TensorShape LegacyBroadcastShape(const TensorShape& a, const TensorShape& b,
                                 std::optional<int64_t> axis, std::string_view what) {
  const int64_t rank_a = static_cast<int64_t>(a.Rank());
  const int64_t rank_b = static_cast<int64_t>(b.Rank());
  std::vector<int64_t> dims(a.Rank(), 1);
  if (b.Size() == 1 && rank_b <= rank_a) return TensorShape(std::move(dims));
  int64_t start = axis.has_value() ? *axis : rank_a - rank_b;
  if (axis.has_value() && start < 0) start += rank_a;
  const bool fits = rank_b <= rank_a && start >= 0 && start + rank_b <= rank_a;
  PRISM_ENFORCE(fits, kInvalidArgument, Prefix(what), "legacy broadcast (broadcast=1",
                axis.has_value() ? MakeString(", axis=", *axis) : std::string(), ") cannot fit B ",
                b.ToString(), " into A ", a.ToString());
  for (int64_t k = 0; k < rank_b; ++k) {
    const int64_t dim_a = a[static_cast<size_t>(start + k)];
    const int64_t dim_b = b[static_cast<size_t>(k)];
    PRISM_ENFORCE(dim_b == dim_a || dim_b == 1, kInvalidArgument, Prefix(what),
                  "legacy broadcast (broadcast=1, axis=", start, ") needs B ", b.ToString(),
                  " to match A ", a.ToString(), " from that axis; dim ", k, " of B is ", dim_b,
                  " but A has ", dim_a);
    dims[static_cast<size_t>(start + k)] = dim_b;
  }
  return TensorShape(std::move(dims));
}

}  // namespace prism::cpu
