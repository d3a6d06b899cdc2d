// Concat: joins tensors of equal rank along one axis; every other dim must match. Inputs
// with a zero-size dim contribute nothing but are still checked.
#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "common/thread_pool.h"

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

class Concat final : public OpKernel {
 public:
  explicit Concat(const OpKernelInfo& info)
      // Opset 1 defaults the axis to 1; later opsets require it.
      : OpKernel(info),
        axis_(info.GetNode().OpsetVersion() < 4 ? info.IntOr("axis", 1) : info.Int("axis")) {}

  void Compute(OpKernelContext& context) const override {
    const size_t count = context.InputCount();
    PRISM_ENFORCE(count >= 1, kInvalidArgument, GetNode().Describe(), ": needs at least one input");
    std::vector<const Tensor*> inputs(count);
    for (size_t i = 0; i < count; ++i) inputs[i] = &context.RequiredInput(i);
    const Tensor& first = *inputs[0];
    const int64_t rank = static_cast<int64_t>(first.Shape().Rank());
    PRISM_ENFORCE(rank >= 1, kInvalidArgument, GetNode().Describe(),
                  ": cannot concatenate scalars (input 0 has rank 0)");
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, GetNode().Describe(), ": axis ",
                  axis_, " is out of range [", -rank, ", ", rank - 1, "] for input 0 ",
                  first.Shape().ToString());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);

    std::vector<int64_t> out_dims = first.Shape().Dims();
    out_dims[axis] = 0;
    for (size_t i = 0; i < count; ++i) {
      const Tensor& input = *inputs[i];
      PRISM_ENFORCE(input.Type() == first.Type(), kInvalidArgument, GetNode().Describe(),
                    ": input ", i, " is ", ElementTypeName(input.Type()), " but input 0 is ",
                    ElementTypeName(first.Type()));
      const TensorShape& shape = input.Shape();
      PRISM_ENFORCE(static_cast<int64_t>(shape.Rank()) == rank, kInvalidArgument,
                    GetNode().Describe(), ": input ", i, " ", shape.ToString(), " has rank ",
                    shape.Rank(), " but input 0 ", first.Shape().ToString(), " has rank ", rank);
      for (size_t d = 0; d < shape.Rank(); ++d) {
        PRISM_ENFORCE(d == axis || shape[d] == first.Shape()[d], kInvalidArgument,
                      GetNode().Describe(), ": input ", i, " ", shape.ToString(),
                      " differs from input 0 ", first.Shape().ToString(), " in dim ", d,
                      " (only the concat axis ", axis, " may differ)");
      }
      out_dims[axis] += shape[axis];
    }
    Tensor& output = context.Output(0, TensorShape(out_dims), first.Type());
    if (output.NumElements() == 0) return;
    ClearPackedStorage(output);

    // Each input contributes a slab of dim(axis) * inner elements per outer index.
    const int64_t outer = output.Shape().SizeToDimension(axis);
    const int64_t inner = output.Shape().SizeFromDimension(axis + 1);
    const int64_t out_slab = out_dims[axis] * inner;
    const int bits = ElementBits(first.Type());
    if (first.Type() != ElementType::kString && bits % 8 == 0 &&
        output.NumElements() * (bits / 8) >= kParallelBytes &&
        context.IntraOpThreadPool() != nullptr)
      return CopyInParallel(inputs, axis, outer, inner, out_slab, bits / 8, output, context);
    int64_t slab_start = 0;
    for (size_t i = 0; i < count; ++i) {
      const int64_t slab = inputs[i]->Shape()[axis] * inner;
      if (slab == 0) continue;
      for (int64_t o = 0; o < outer; ++o)
        CopyElements(*inputs[i], o * slab, output, o * out_slab + slab_start, slab);
      slab_start += slab;
    }
  }

 private:
  // Below this many output bytes the copies run on the caller: a worker's wake-up costs more.
  static constexpr int64_t kParallelBytes = int64_t{1} << 18;

  // The copies of a large Concat of byte-sized elements split over the intra-op pool by output
  // bytes (an NCHWc Concat of a few megabytes is two or three memcpy calls, which one thread
  // leaves the other core idle through).
  static void CopyInParallel(const std::vector<const Tensor*>& inputs, size_t axis, int64_t outer,
                             int64_t inner, int64_t out_slab, int64_t element_bytes, Tensor& output,
                             OpKernelContext& context) {
    struct Piece {
      const uint8_t* source;
      int64_t offset;  // in the output, bytes
      int64_t bytes;
    };
    std::vector<Piece> pieces;
    int64_t slab_start = 0;
    for (const Tensor* input : inputs) {
      const int64_t slab = input->Shape()[axis] * inner;
      if (slab == 0) continue;
      const auto* source = static_cast<const uint8_t*>(input->RawData());
      for (int64_t o = 0; o < outer; ++o)
        pieces.push_back({source + o * slab * element_bytes,
                          (o * out_slab + slab_start) * element_bytes, slab * element_bytes});
      slab_start += slab;
    }
    // The pieces tile the output in output order; each range of output bytes copies the parts
    // of the pieces it covers.
    std::sort(pieces.begin(), pieces.end(),
              [](const Piece& a, const Piece& b) { return a.offset < b.offset; });
    auto* destination = static_cast<uint8_t*>(output.MutableRawData());
    const int64_t total = output.NumElements() * element_bytes;
    constexpr int64_t kStep = int64_t{1} << 16;
    ThreadPool::TryParallelFor(
        context.IntraOpThreadPool(), (total + kStep - 1) / kStep, static_cast<double>(kStep),
        [&](int64_t begin, int64_t end) {
          const int64_t first = begin * kStep, last = std::min(total, end * kStep);
          auto piece =
              std::upper_bound(pieces.begin(), pieces.end(), first,
                               [](int64_t offset, const Piece& p) { return offset < p.offset; });
          --piece;  // the piece holding byte `first` (pieces start at 0 and tile the output)
          for (; piece != pieces.end() && piece->offset < last; ++piece) {
            const int64_t from = std::max(first, piece->offset);
            const int64_t to = std::min(last, piece->offset + piece->bytes);
            std::memcpy(destination + from, piece->source + (from - piece->offset),
                        static_cast<size_t>(to - from));
          }
        });
  }

  int64_t axis_;
};

void RegisterConcatKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Concat>();
  registry.Register(
      KernelDefBuilder("Concat")
          .Versions(1, 3)
          .Constraint("T", {ElementType::kFloat16, ElementType::kFloat, ElementType::kDouble},
                      {kVariadicFrom(0)}, {0})
          .Build(),
      factory);
  struct Range {
    int since;
    int end;
    G types;
  };
  for (const Range& r : {Range{4, 10, G::kNoBfloat16}, Range{11, 12, G::kNoBfloat16},
                         Range{13, INT_MAX, G::kBfloat16}}) {
    registry.Register(
        KernelDefBuilder("Concat")
            .Versions(r.since, r.end)
            .Constraint("T", AllTensorTypesWithComplexOf(r.types), {kVariadicFrom(0)}, {0})
            .Build(),
        factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_concat, RegisterConcatKernels);

}  // namespace prism::cpu
