// MaxPool, AveragePool and LpPool over 1 or more spatial axes, with explicit or automatic
// padding, strides, dilations and ceil mode. LpPool: (sum over the window of |x|^p)^(1/p), pads
// adding nothing; p is a float in opset 1 and an integer after. MaxPool optionally returns the
// flattened index of each maximum (row or column major over the spatial axes, plus the (n, c) plane
// offset).
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/thread_pool.h"
#include "mlas/isa_kernels.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/nn/pool_attributes.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

enum class PoolKind { kMax, kAverage, kLp };

// For each spatial axis and output coordinate along it: the input positions a window reads
// (inside the input only) and how many of its taps fall inside input + explicit pads (the
// divisor of count_include_pad; ceil-mode taps beyond the end pad are never counted).
struct WindowTaps {
  std::vector<std::vector<std::vector<int64_t>>> positions;  // [axis][out coordinate]
  std::vector<std::vector<int64_t>> padded_counts;           // [axis][out coordinate]
  std::vector<int64_t> row_strides;                          // row-major spatial strides
  std::vector<int64_t> col_strides;                          // column-major spatial strides
};

// ceil(a / b) for a >= 0, b > 0, without overflow.
int64_t CeilDiv(int64_t a, int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

WindowTaps BuildTaps(const PoolAttributes& attrs, const PoolGeometry& geometry) {
  const size_t rank = attrs.SpatialRank();
  WindowTaps taps;
  taps.positions.resize(rank);
  taps.padded_counts.resize(rank);
  taps.row_strides.assign(rank, 1);
  taps.col_strides.assign(rank, 1);
  for (size_t i = rank; i-- > 1;) taps.row_strides[i - 1] = taps.row_strides[i] * geometry.input[i];
  for (size_t i = 1; i < rank; ++i)
    taps.col_strides[i] = taps.col_strides[i - 1] * geometry.input[i - 1];
  for (size_t i = 0; i < rank; ++i) {
    const int64_t in = geometry.input[i];
    const int64_t out = geometry.output[i];
    taps.positions[i].resize(static_cast<size_t>(out));
    taps.padded_counts[i].resize(static_cast<size_t>(out));
    const int64_t kernel = attrs.kernel_shape[i];
    const int64_t dilation = attrs.dilations[i];
    // Number of taps t in [0, kernel) with start + t * dilation < limit.
    const auto taps_below = [&](int64_t start, int64_t limit) {
      return limit <= start ? 0 : std::min(kernel, CeilDiv(limit - start, dilation));
    };
    for (int64_t o = 0; o < out; ++o) {
      const int64_t start = o * attrs.strides[i] - geometry.pad_begin[i];
      // Taps before position 0 fall in the begin pad (windows never start before it).
      const int64_t first = start >= 0 ? 0 : std::min(kernel, CeilDiv(-start, dilation));
      const int64_t end = taps_below(start, in);
      for (int64_t t = first; t < end; ++t) taps.positions[i][o].push_back(start + t * dilation);
      taps.padded_counts[i][o] = taps_below(start, in + geometry.pad_end[i]);
    }
  }
  return taps;
}

// Calls fn(row_offset, col_offset) for every input cell of the window whose per-axis position
// lists are lists[axis..].
template <typename Fn>
void VisitWindow(const std::vector<const std::vector<int64_t>*>& lists, const WindowTaps& taps,
                 size_t axis, int64_t row, int64_t col, Fn& fn) {
  const int64_t row_stride = taps.row_strides[axis];
  const int64_t col_stride = taps.col_strides[axis];
  if (axis + 1 == lists.size()) {
    for (int64_t pos : *lists[axis]) fn(row + pos * row_stride, col + pos * col_stride);
    return;
  }
  for (int64_t pos : *lists[axis])
    VisitWindow(lists, taps, axis + 1, row + pos * row_stride, col + pos * col_stride, fn);
}

struct PoolJob {
  const Tensor* x;
  Tensor* y;
  Tensor* indices;  // MaxPool's optional second output
  const PoolAttributes* attrs;
  const PoolGeometry* geometry;
  const WindowTaps* taps;
  ThreadPool* pool;  // planes are split over it (nullptr: this thread)
};

// Walks every output cell of every (n, c) plane and hands fn the window's position lists.
template <typename Fn>
void ForEachOutput(const PoolJob& job, Fn&& fn) {
  const PoolGeometry& g = *job.geometry;
  const size_t rank = g.output.size();
  const int64_t planes = job.x->Shape()[0] * job.x->Shape()[1];
  int64_t in_size = 1;
  int64_t out_size = 1;
  for (size_t i = 0; i < rank; ++i) {
    in_size *= g.input[i];
    out_size *= g.output[i];
  }
  // (n, c) planes are independent: each chunk has its own odometer.
  int64_t taps_per_output = 1;
  for (size_t i = 0; i < rank; ++i) taps_per_output *= job.attrs->kernel_shape[i];
  const double cost = static_cast<double>(out_size * taps_per_output);
  ThreadPool::TryParallelFor(job.pool, planes, cost, [&](int64_t first, int64_t last) {
    std::vector<const std::vector<int64_t>*> lists(rank);
    std::vector<int64_t> coord(rank);
    for (int64_t p = first; p < last; ++p) {
      std::fill(coord.begin(), coord.end(), 0);
      for (int64_t o = 0; o < out_size; ++o) {
        for (size_t i = 0; i < rank; ++i) lists[i] = &job.taps->positions[i][coord[i]];
        fn(p, p * in_size, p * out_size + o, lists, coord);
        for (size_t i = rank; i-- > 0;) {  // odometer over the output coordinates
          if (++coord[i] < g.output[i]) break;
          coord[i] = 0;
        }
      }
    }
  });
}

template <typename T>
T EmptyWindowMax() {
  if constexpr (std::is_integral_v<T>) {
    return std::numeric_limits<T>::lowest();
  } else {
    return FromCompute<T>(-std::numeric_limits<float>::infinity());
  }
}

template <typename T>
struct MaxPoolImpl {
  void operator()(const PoolJob& job) const {
    const T* x = job.x->Data<T>();
    T* y = job.y->MutableData<T>();
    int64_t* indices = job.indices != nullptr ? job.indices->MutableData<int64_t>() : nullptr;
    const bool column_major = job.attrs->storage_order == 1;
    ForEachOutput(
        job, [&](int64_t, int64_t in_base, int64_t out_index, const auto& lists, const auto&) {
          const T* plane = x + in_base;
          int64_t best_row = -1;
          int64_t best_col = -1;
          ComputeTypeOf<T> best{};
          auto visit = [&](int64_t row, int64_t col) {
            const ComputeTypeOf<T> value = ToCompute(plane[row]);
            // NaN wins, as in a max over the window (x != x only for NaN).
            if (best_row < 0 || value > best || (value != value && best == best)) {
              best = value;
              best_row = row;
              best_col = col;
            }
          };
          VisitWindow(lists, *job.taps, 0, 0, 0, visit);
          y[out_index] = best_row >= 0 ? plane[best_row] : EmptyWindowMax<T>();
          if (indices != nullptr)
            indices[out_index] = best_row < 0 ? -1 : in_base + (column_major ? best_col : best_row);
        });
  }
};

template <typename T>
struct AveragePoolImpl {
  void operator()(const PoolJob& job) const {
    const T* x = job.x->Data<T>();
    T* y = job.y->MutableData<T>();
    const bool include_pad = job.attrs->count_include_pad;
    ForEachOutput(job, [&](int64_t, int64_t in_base, int64_t out_index, const auto& lists,
                           const auto& coord) {
      const T* plane = x + in_base;
      double sum = 0;
      int64_t count = 0;
      auto visit = [&](int64_t row, int64_t) {
        sum += static_cast<double>(ToCompute(plane[row]));
        ++count;
      };
      VisitWindow(lists, *job.taps, 0, 0, 0, visit);
      if (include_pad) {
        count = 1;
        for (size_t i = 0; i < coord.size(); ++i) count *= job.taps->padded_counts[i][coord[i]];
      }
      // A window without any counted cell has no average: 0 / 0 gives NaN.
      y[out_index] = FromCompute<T>(sum / static_cast<double>(count));
    });
  }
};

template <typename T>
struct LpPoolImpl {
  void operator()(const PoolJob& job, double p) const {
    const T* x = job.x->Data<T>();
    T* y = job.y->MutableData<T>();
    ForEachOutput(job,
                  [&](int64_t, int64_t in_base, int64_t out_index, const auto& lists, const auto&) {
                    const T* plane = x + in_base;
                    double sum = 0;
                    auto visit = [&](int64_t row, int64_t) {
                      sum += std::pow(std::fabs(static_cast<double>(ToCompute(plane[row]))), p);
                    };
                    VisitWindow(lists, *job.taps, 0, 0, 0, visit);
                    y[out_index] = FromCompute<T>(std::pow(sum, 1.0 / p));
                  });
  }
};

// 2-D float MaxPool (without indices) and AveragePool, the pooling of CNNs. The output columns
// whose window lies inside the input row go to the ISA kernel a row at a time (each output
// computed in registers from the window's valid rows); the columns whose window crosses the left
// or right border look their taps up one by one. Results equal the general path's, except that
// AveragePool sums in float, as onnxruntime's MLAS does.
void Pool2dFloat(const PoolJob& job, bool is_max) {
  const PoolGeometry& g = *job.geometry;
  const WindowTaps& taps = *job.taps;
  const int64_t in_h = g.input[0], in_w = g.input[1];
  const int64_t out_h = g.output[0], out_w = g.output[1];
  const int64_t kernel_w = job.attrs->kernel_shape[1];
  const int64_t stride_w = job.attrs->strides[1];
  const int64_t dilation_w = job.attrs->dilations[1];
  const int64_t pad_left = g.pad_begin[1];
  const bool include_pad = job.attrs->count_include_pad;
  // Output columns whose every tap lies inside the input: [interior_begin, interior_end).
  const int64_t interior_begin = std::min(out_w, CeilDiv(pad_left, stride_w));
  const int64_t last_start = in_w - 1 - (kernel_w - 1) * dilation_w + pad_left;
  const int64_t interior_end =
      std::max(interior_begin, last_start < 0 ? 0 : std::min(out_w, last_start / stride_w + 1));
  const mlas::IsaKernels& kernels = mlas::ActiveKernels();
  const auto pool_row = is_max ? kernels.pool_max_row_f32 : kernels.pool_sum_row_f32;
  const float* x = job.x->Data<float>();
  float* y = job.y->MutableData<float>();
  const int64_t planes = job.x->Shape()[0] * job.x->Shape()[1];
  const double cost = static_cast<double>(out_h * out_w * job.attrs->kernel_shape[0] * kernel_w);
  ThreadPool::TryParallelFor(job.pool, planes, cost, [&](int64_t first, int64_t last) {
    std::vector<const float*> row_starts;
    for (int64_t p = first; p < last; ++p) {
      const float* plane = x + p * in_h * in_w;
      for (int64_t oh = 0; oh < out_h; ++oh) {
        float* out = y + (p * out_h + oh) * out_w;
        const std::vector<int64_t>& rows = taps.positions[0][oh];
        const auto row_count = static_cast<int64_t>(rows.size());
        row_starts.clear();
        for (int64_t row : rows)
          row_starts.push_back(plane + row * in_w + interior_begin * stride_w - pad_left);
        if (interior_end > interior_begin)
          pool_row(out + interior_begin, interior_end - interior_begin, row_starts.data(),
                   row_count, kernel_w, dilation_w, stride_w);
        auto border = [&](int64_t ow) {
          float acc = is_max ? -std::numeric_limits<float>::infinity() : 0.0f;
          for (int64_t row : rows)
            for (int64_t col : taps.positions[1][ow]) {
              const float v = plane[row * in_w + col];
              // NaN wins: a NaN tap replaces the maximum, and nothing replaces a NaN.
              acc = is_max ? ((v > acc || v != v) ? v : acc) : acc + v;
            }
          out[ow] = acc;
        };
        for (int64_t ow = 0; ow < interior_begin; ++ow) border(ow);
        for (int64_t ow = interior_end; ow < out_w; ++ow) border(ow);
        if (is_max) continue;
        for (int64_t ow = 0; ow < out_w; ++ow) {
          const int64_t count =
              include_pad ? taps.padded_counts[0][oh] * taps.padded_counts[1][ow]
                          : row_count * static_cast<int64_t>(taps.positions[1][ow].size());
          // A window without any counted cell has no average: 0 / 0 gives NaN.
          out[ow] = count == 0 ? std::numeric_limits<float>::quiet_NaN()
                               : out[ow] / static_cast<float>(count);
        }
      }
    }
  });
}

// One output row of Pool2dMax8Bit: the maximum over the window's rows of each input column, then
// over each window's columns. Everything in locals and restrict pointers: a byte store may alias
// anything, which would otherwise reload every bound and keep the loops scalar.
template <typename T>
void MaxPoolRow8Bit(const T* plane, int64_t in_w, const std::vector<int64_t>& rows,
                    const std::vector<std::vector<int64_t>>& column_taps, int64_t interior_begin,
                    int64_t interior_end, int64_t out_w, int64_t kernel_w, int64_t stride_w,
                    int64_t dilation_w, int64_t pad_left, T* __restrict columns,
                    T* __restrict out) {
  std::fill_n(columns, in_w, std::numeric_limits<T>::lowest());
  for (const int64_t row : rows) {
    const T* __restrict values = plane + row * in_w;
    for (int64_t i = 0; i < in_w; ++i) columns[i] = std::max(columns[i], values[i]);
  }
  // The interior one kernel offset at a time over all its outputs (strided loads the compiler
  // vectorizes), rather than one output at a time over its few taps (a scalar loop).
  const T* __restrict first_taps = columns - pad_left;
  for (int64_t ow = interior_begin; ow < interior_end; ++ow) out[ow] = first_taps[ow * stride_w];
  for (int64_t k = 1; k < kernel_w; ++k) {
    const T* __restrict taps = columns + k * dilation_w - pad_left;
    for (int64_t ow = interior_begin; ow < interior_end; ++ow)
      out[ow] = std::max(out[ow], taps[ow * stride_w]);
  }
  const auto border = [&](int64_t ow) {
    T acc = std::numeric_limits<T>::lowest();
    for (const int64_t col : column_taps[static_cast<size_t>(ow)])
      acc = std::max(acc, columns[col]);
    out[ow] = acc;
  };
  for (int64_t ow = 0; ow < interior_begin; ++ow) border(ow);
  for (int64_t ow = interior_end; ow < out_w; ++ow) border(ow);
}

// 2-D uint8/int8 MaxPool without indices (onnxruntime's QDQ models pool quantized values): per
// output row, the maximum over the window's rows of every input column (a vectorizable pass),
// then over each window's columns, by offset inside the row, through the tap lists at the
// borders. The same result as the general path (a window without taps gives the lowest value).
template <typename T>
void Pool2dMax8Bit(const PoolJob& job) {
  const PoolGeometry& g = *job.geometry;
  const WindowTaps& taps = *job.taps;
  const int64_t in_h = g.input[0], in_w = g.input[1];
  const int64_t out_h = g.output[0], out_w = g.output[1];
  const int64_t kernel_w = job.attrs->kernel_shape[1];
  const int64_t stride_w = job.attrs->strides[1];
  const int64_t dilation_w = job.attrs->dilations[1];
  const int64_t pad_left = g.pad_begin[1];
  const int64_t interior_begin = std::min(out_w, CeilDiv(pad_left, stride_w));
  const int64_t last_start = in_w - 1 - (kernel_w - 1) * dilation_w + pad_left;
  const int64_t interior_end =
      std::max(interior_begin, last_start < 0 ? 0 : std::min(out_w, last_start / stride_w + 1));
  const T* x = job.x->Data<T>();
  T* y = job.y->MutableData<T>();
  const int64_t planes = job.x->Shape()[0] * job.x->Shape()[1];
  const double cost = static_cast<double>(out_h * out_w * job.attrs->kernel_shape[0] * kernel_w);
  ThreadPool::TryParallelFor(job.pool, planes, cost, [&](int64_t first, int64_t last) {
    std::vector<T> column_max(static_cast<size_t>(in_w));
    for (int64_t p = first; p < last; ++p)
      for (int64_t oh = 0; oh < out_h; ++oh)
        MaxPoolRow8Bit<T>(x + p * in_h * in_w, in_w, taps.positions[0][oh], taps.positions[1],
                          interior_begin, interior_end, out_w, kernel_w, stride_w, dilation_w,
                          pad_left, column_max.data(), y + (p * out_h + oh) * out_w);
  });
}

using MaxPoolTypes = TypeList<float, double, Float16, BFloat16, int8_t, uint8_t>;
using AveragePoolTypes = TypeList<float, double, Float16, BFloat16>;

class Pool final : public OpKernel {
 public:
  Pool(const OpKernelInfo& info, PoolKind kind)
      : OpKernel(info), attrs_(PoolAttributes::Parse(info)), kind_(kind) {
    if (kind_ == PoolKind::kLp) {
      p_ = info.GetNode().OpsetVersion() < 2 ? static_cast<double>(info.FloatOr("p", 2.0f))
                                             : static_cast<double>(info.IntOr("p", 2));
      PRISM_ENFORCE(p_ > 0, kInvalidArgument, info.GetNode().Describe(), ": p = ", p_,
                    " must be positive");
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& x = context.RequiredInput(0);
    const PoolGeometry geometry = attrs_.Geometry(x.Shape(), GetNode());
    std::vector<int64_t> out_dims = {x.Shape()[0], x.Shape()[1]};
    out_dims.insert(out_dims.end(), geometry.output.begin(), geometry.output.end());
    Tensor& y = context.Output(0, TensorShape(out_dims), x.Type());
    Tensor* indices = nullptr;
    if (kind_ == PoolKind::kMax && context.OutputCount() > 1 && context.IsOutputRequested(1))
      indices = &context.Output(1, TensorShape(out_dims), ElementType::kInt64);
    const WindowTaps taps = BuildTaps(attrs_, geometry);
    const PoolJob job{&x, &y, indices, &attrs_, &geometry, &taps, context.IntraOpThreadPool()};
    if (x.Type() == ElementType::kFloat && geometry.output.size() == 2 && indices == nullptr &&
        kind_ != PoolKind::kLp) {
      Pool2dFloat(job, kind_ == PoolKind::kMax);
    } else if (kind_ == PoolKind::kMax && geometry.output.size() == 2 && indices == nullptr &&
               x.Type() == ElementType::kUint8) {
      Pool2dMax8Bit<uint8_t>(job);
    } else if (kind_ == PoolKind::kMax && geometry.output.size() == 2 && indices == nullptr &&
               x.Type() == ElementType::kInt8) {
      Pool2dMax8Bit<int8_t>(job);
    } else if (kind_ == PoolKind::kMax) {
      DispatchByType<MaxPoolImpl, MaxPoolTypes>(x.Type(), GetNode().OpType(), job);
    } else if (kind_ == PoolKind::kLp) {
      DispatchByType<LpPoolImpl, AveragePoolTypes>(x.Type(), GetNode().OpType(), job, p_);
    } else {
      DispatchByType<AveragePoolImpl, AveragePoolTypes>(x.Type(), GetNode().OpType(), job);
    }
  }

 private:
  PoolAttributes attrs_;
  PoolKind kind_;
  double p_ = 2;
};

KernelFactory PoolFactory(PoolKind kind) {
  return [kind](const OpKernelInfo& info) -> std::unique_ptr<OpKernel> {
    return std::make_unique<Pool>(info, kind);
  };
}

void RegisterPoolKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> floats_bf16 = {E::kBFloat16, E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> max12 = {E::kFloat16, E::kFloat, E::kDouble, E::kInt8, E::kUint8};
  const std::vector<E> max22 = {E::kBFloat16, E::kFloat16, E::kFloat,
                                E::kDouble,   E::kInt8,    E::kUint8};

  const KernelFactory max_pool = PoolFactory(PoolKind::kMax);
  registry.Register(
      KernelDefBuilder("MaxPool").Versions(1, 7).Constraint("T", floats, {0}, {0}).Build(),
      max_pool);
  const auto max_with_indices = [&](int since, int end, const std::vector<E>& types) {
    registry.Register(KernelDefBuilder("MaxPool")
                          .Versions(since, end)
                          .Constraint("T", types, {0}, {0})
                          .Constraint("I", {E::kInt64}, {}, {1})
                          .Build(),
                      max_pool);
  };
  max_with_indices(8, 9, floats);
  max_with_indices(10, 10, floats);
  max_with_indices(11, 11, floats);
  max_with_indices(12, 21, max12);
  max_with_indices(22, INT_MAX, max22);

  const KernelFactory average_pool = PoolFactory(PoolKind::kAverage);
  const auto average = [&](int since, int end, const std::vector<E>& types) {
    registry.Register(KernelDefBuilder("AveragePool")
                          .Versions(since, end)
                          .Constraint("T", types, {0}, {0})
                          .Build(),
                      average_pool);
  };
  average(1, 6, floats);
  average(7, 9, floats);
  average(10, 10, floats);
  average(11, 18, floats);
  average(19, 21, floats);
  average(22, INT_MAX, floats_bf16);

  const KernelFactory lp_pool = PoolFactory(PoolKind::kLp);
  for (const auto& [since, end] :
       {std::pair{1, 1}, std::pair{2, 10}, std::pair{11, 17}, std::pair{18, 21}})
    registry.Register(
        KernelDefBuilder("LpPool").Versions(since, end).Constraint("T", floats, {0}, {0}).Build(),
        lp_pool);
  registry.Register(
      KernelDefBuilder("LpPool").Versions(22).Constraint("T", floats_bf16, {0}, {0}).Build(),
      lp_pool);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_pool, RegisterPoolKernels);

}  // namespace prism::cpu
