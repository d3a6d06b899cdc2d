// Transpose: permutes the axes of the input (perm defaults to reversing them). Axes of size 1
// are dropped and runs of axes that stay adjacent are merged first, so that common cases
// (BERT's [1,128,12,64] with perm [0,2,1,3]) become copies of contiguous blocks.
#include <climits>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

// A transpose reduced to its essential axes: output axis i reads input axis perm[i].
struct TransposePlan {
  std::vector<int64_t> out_dims;     // dims of the output's merged axes
  std::vector<int64_t> src_strides;  // input stride (in elements) of each output axis
};

TransposePlan PlanTranspose(const std::vector<int64_t>& dims, const std::vector<size_t>& perm) {
  // Drop size-1 axes: they do not change the memory order.
  std::vector<int64_t> kept_index(dims.size(), -1);
  std::vector<int64_t> in_dims;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 1) continue;
    kept_index[k] = static_cast<int64_t>(in_dims.size());
    in_dims.push_back(dims[k]);
  }
  std::vector<size_t> p;
  for (size_t a : perm)
    if (kept_index[a] >= 0) p.push_back(static_cast<size_t>(kept_index[a]));

  // Merge output axes i, i+1 that read input axes k, k+1: together they are one axis.
  std::vector<std::vector<size_t>> groups;  // each group: consecutive input axes
  for (size_t i = 0; i < p.size(); ++i) {
    if (!groups.empty() && groups.back().back() + 1 == p[i])
      groups.back().push_back(p[i]);
    else
      groups.push_back({p[i]});
  }
  std::vector<int64_t> in_strides(in_dims.size(), 1);
  for (size_t k = in_dims.size(); k-- > 1;) in_strides[k - 1] = in_strides[k] * in_dims[k];
  TransposePlan plan;
  for (const auto& group : groups) {
    int64_t size = 1;
    for (size_t k : group) size *= in_dims[k];
    plan.out_dims.push_back(size);
    plan.src_strides.push_back(in_strides[group.back()]);
  }
  return plan;
}

// Advances the multi-index over out_dims[0..axes) and returns the change of the source
// offset; wraps like an odometer.
inline int64_t Advance(std::vector<int64_t>& index, const TransposePlan& plan, size_t axes) {
  int64_t delta = 0;
  for (size_t a = axes; a-- > 0;) {
    if (++index[a] < plan.out_dims[a]) return delta + plan.src_strides[a];
    delta -= plan.src_strides[a] * (plan.out_dims[a] - 1);
    index[a] = 0;
  }
  return delta;
}

// Element-wise gather for a permutation whose innermost output axis is strided in the input.
template <typename T>
void StridedTranspose(const T* src, T* dst, const TransposePlan& plan) {
  const size_t rank = plan.out_dims.size();
  const int64_t inner = plan.out_dims[rank - 1];
  const int64_t inner_stride = plan.src_strides[rank - 1];
  int64_t outer = 1;
  for (size_t a = 0; a + 1 < rank; ++a) outer *= plan.out_dims[a];
  std::vector<int64_t> index(rank - 1, 0);
  int64_t src_offset = 0;
  for (int64_t o = 0; o < outer; ++o) {
    const T* from = src + src_offset;
    for (int64_t j = 0; j < inner; ++j) dst[j] = from[j * inner_stride];
    dst += inner;
    src_offset += Advance(index, plan, rank - 1);
  }
}

void PackedStridedTranspose(const Tensor& input, Tensor& output, const TransposePlan& plan) {
  const int bits = ElementBits(input.Type());
  const auto* src = static_cast<const uint8_t*>(input.RawData());
  auto* dst = static_cast<uint8_t*>(output.MutableRawData());
  const size_t rank = plan.out_dims.size();
  const int64_t inner = plan.out_dims[rank - 1];
  const int64_t inner_stride = plan.src_strides[rank - 1];
  const int64_t outer = output.NumElements() / inner;
  std::vector<int64_t> index(rank - 1, 0);
  int64_t src_offset = 0;
  int64_t out = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j)
      SetPackedElement(dst, out++, bits,
                       GetPackedElement(src, src_offset + j * inner_stride, bits));
    src_offset += Advance(index, plan, rank - 1);
  }
}

// 16-byte elements (complex128), moved as a unit.
struct Bytes16 {
  uint64_t low;
  uint64_t high;
};

void RunStrided(const Tensor& input, Tensor& output, const TransposePlan& plan) {
  const void* src = input.RawData();
  void* dst = output.MutableRawData();
  switch (input.Type() == ElementType::kString ? -1 : ElementBits(input.Type())) {
    case -1:
      StridedTranspose(input.Data<std::string>(), output.MutableData<std::string>(), plan);
      return;
    case 8:
      StridedTranspose(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), plan);
      return;
    case 16:
      StridedTranspose(static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), plan);
      return;
    case 32:
      StridedTranspose(static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), plan);
      return;
    case 64:
      StridedTranspose(static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst), plan);
      return;
    case 128:
      StridedTranspose(static_cast<const Bytes16*>(src), static_cast<Bytes16*>(dst), plan);
      return;
    case 4:
    case 2:
      PackedStridedTranspose(input, output, plan);
      return;
    default:
      PRISM_THROW(kNotImplemented, "Transpose has no CPU implementation for element type ",
                  ElementTypeName(input.Type()));
  }
}

class Transpose final : public OpKernel {
 public:
  explicit Transpose(const OpKernelInfo& info) : OpKernel(info) {
    if (info.HasAttr("perm")) perm_attr_ = info.Ints("perm");
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const std::vector<int64_t>& dims = input.Shape().Dims();
    const size_t rank = dims.size();
    const std::vector<size_t> perm = ResolvePerm(rank, input.Shape());
    std::vector<int64_t> out_dims(rank);
    for (size_t i = 0; i < rank; ++i) out_dims[i] = dims[perm[i]];
    Tensor& output = context.Output(0, TensorShape(out_dims), input.Type());
    if (input.NumElements() == 0) return;
    ClearPackedStorage(output);

    const TransposePlan plan = PlanTranspose(dims, perm);
    const size_t merged = plan.out_dims.size();
    if (merged <= 1) {  // the permutation keeps memory order
      CopyElements(input, 0, output, 0, input.NumElements());
      return;
    }
    if (plan.src_strides[merged - 1] == 1) {
      // The innermost output axis is contiguous in the input: copy whole blocks.
      const int64_t block = plan.out_dims[merged - 1];
      const int64_t blocks = input.NumElements() / block;
      std::vector<int64_t> index(merged - 1, 0);
      int64_t src_offset = 0;
      for (int64_t b = 0; b < blocks; ++b) {
        CopyElements(input, src_offset, output, b * block, block);
        src_offset += Advance(index, plan, merged - 1);
      }
      return;
    }
    RunStrided(input, output, plan);
  }

 private:
  std::vector<size_t> ResolvePerm(size_t rank, const TensorShape& shape) const {
    std::vector<size_t> perm(rank);
    // An empty perm on a non-scalar means "not given", as some exporters write it.
    if (!perm_attr_.has_value() || (perm_attr_->empty() && rank > 0)) {
      for (size_t i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
      return perm;
    }
    const std::vector<int64_t>& attr = *perm_attr_;
    PRISM_ENFORCE(attr.size() == rank, kInvalidArgument, GetNode().Describe(), ": perm has ",
                  attr.size(), " entries but the input ", shape.ToString(), " has rank ", rank);
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < rank; ++i) {
      const int64_t a = attr[i];
      PRISM_ENFORCE(a >= 0 && a < static_cast<int64_t>(rank), kInvalidArgument,
                    GetNode().Describe(), ": perm[", i, "] = ", a, " is out of range [0, ",
                    rank - 1, "] for input ", shape.ToString());
      PRISM_ENFORCE(!seen[static_cast<size_t>(a)], kInvalidArgument, GetNode().Describe(),
                    ": perm repeats axis ", a, "; it must be a permutation of [0, ", rank - 1, "]");
      seen[static_cast<size_t>(a)] = true;
      perm[i] = static_cast<size_t>(a);
    }
    return perm;
  }

  std::optional<std::vector<int64_t>> perm_attr_;
};

void RegisterTransposeKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Transpose>();
  struct Range {
    int since;
    int end;
    G types;
  };
  for (const Range& r :
       {Range{1, 12, G::kNoBfloat16}, Range{13, 20, G::kBfloat16}, Range{21, 22, G::kInt4},
        Range{23, 23, G::kFloat4}, Range{24, 24, G::kFloat8E8M0}, Range{25, INT_MAX, G::kInt2}}) {
    registry.Register(KernelDefBuilder("Transpose")
                          .Versions(r.since, r.end)
                          .Constraint("T", AllTensorTypesWithComplexOf(r.types), {0}, {0})
                          .Build(),
                      factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_transpose, RegisterTransposeKernels);

}  // namespace prism::cpu
