// SplitToSequence: splits a tensor along an axis into a sequence (split as a scalar chunk length,
// whose last chunk may be shorter; as a 1-D list of lengths; or absent: chunks of 1, squeezed
// away unless keepdims). ConcatFromSequence: concatenates a sequence's tensors along an axis, or
// stacks them along a new one (new_axis=1, where axis may be the rank).
#include <numeric>
#include <string>
#include <vector>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/sequence/sequence_types.h"
#include "providers/cpu/tensor/element_copy.h"

namespace prism::cpu {
namespace {

int64_t Product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t product = 1;
  for (size_t d = from; d < to; ++d) product *= dims[d];
  return product;
}

std::vector<int64_t> ReadSplit(const Tensor& split, const Node& node) {
  std::vector<int64_t> values;
  if (split.Type() == ElementType::kInt32) {
    for (int64_t i = 0; i < split.NumElements(); ++i) values.push_back(split.Data<int32_t>()[i]);
  } else {
    PRISM_ENFORCE(split.Type() == ElementType::kInt64, kInvalidArgument, node.Describe(),
                  ": input 'split' must be int32 or int64, got ", split.Describe());
    values.assign(split.Data<int64_t>(), split.Data<int64_t>() + split.NumElements());
  }
  return values;
}

class SplitToSequence final : public OpKernel {
 public:
  explicit SplitToSequence(const OpKernelInfo& info)
      : OpKernel(info), axis_(info.IntOr("axis", 0)), keepdims_(info.IntOr("keepdims", 1)) {
    PRISM_ENFORCE(keepdims_ == 0 || keepdims_ == 1, kInvalidArgument, info.GetNode().Describe(),
                  ": attribute 'keepdims' must be 0 or 1, got ", keepdims_);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const std::vector<int64_t>& dims = input.Shape().Dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    PRISM_ENFORCE(rank >= 1, kInvalidArgument, node.Describe(),
                  ": input 'input' must have rank 1 or more, got ", input.Describe());
    PRISM_ENFORCE(axis_ >= -rank && axis_ < rank, kInvalidArgument, node.Describe(),
                  ": attribute 'axis' is ", axis_, ", expected ", -rank, " to ", rank - 1,
                  " for input ", input.Describe());
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + rank : axis_);
    const int64_t length = dims[axis];

    std::vector<int64_t> chunks;
    bool squeeze = false;
    const Tensor* split = context.Input(1);
    if (split == nullptr) {
      chunks.assign(static_cast<size_t>(length), 1);
      squeeze = keepdims_ == 0;
    } else if (split->Shape().Rank() == 0) {
      const int64_t chunk = ReadSplit(*split, node)[0];
      PRISM_ENFORCE(chunk > 0, kInvalidArgument, node.Describe(),
                    ": input 'split' as a scalar must be positive, got ", chunk);
      for (int64_t start = 0; start < length; start += chunk)
        chunks.push_back(std::min(chunk, length - start));
    } else {
      PRISM_ENFORCE(split->Shape().Rank() == 1, kInvalidArgument, node.Describe(),
                    ": input 'split' must be a scalar or 1-D, got ", split->Describe());
      chunks = ReadSplit(*split, node);
      int64_t total = 0;
      for (int64_t chunk : chunks) {
        PRISM_ENFORCE(chunk >= 0, kInvalidArgument, node.Describe(),
                      ": input 'split' has a negative length ", chunk);
        // Summed with a bound: the lengths come from an input (the fuzzer fed INT64_MAX).
        PRISM_ENFORCE(chunk <= length - total, kInvalidArgument, node.Describe(),
                      ": the lengths of input 'split' add up to more than axis ", axis,
                      " of input ", input.Describe(), " has (", length, ")");
        total += chunk;
      }
      PRISM_ENFORCE(total == length, kInvalidArgument, node.Describe(),
                    ": the lengths of input 'split' add up to ", total, " but axis ", axis,
                    " of input ", input.Describe(), " has ", length);
    }

    const int64_t outer = Product(dims, 0, axis);
    const int64_t inner = Product(dims, axis + 1, dims.size());
    TensorSequence sequence;
    sequence.elem_type = input.Type();
    int64_t start = 0;
    for (int64_t chunk : chunks) {
      std::vector<int64_t> out_dims = dims;
      if (squeeze)
        out_dims.erase(out_dims.begin() + static_cast<std::ptrdiff_t>(axis));
      else
        out_dims[axis] = chunk;
      Tensor out(input.Type(), TensorShape(out_dims), GetCpuAllocator());
      ClearPackedStorage(out);
      for (int64_t o = 0; o < outer && chunk * inner > 0; ++o)
        CopyElements(input, (o * length + start) * inner, out, o * chunk * inner, chunk * inner);
      sequence.tensors.push_back(std::move(out));
      start += chunk;
    }
    context.SetOutput(0, Value(std::move(sequence)));
  }

 private:
  int64_t axis_;
  int64_t keepdims_;
};

class ConcatFromSequence final : public OpKernel {
 public:
  explicit ConcatFromSequence(const OpKernelInfo& info)
      : OpKernel(info), axis_(info.Int("axis")), new_axis_(info.IntOr("new_axis", 0)) {
    PRISM_ENFORCE(new_axis_ == 0 || new_axis_ == 1, kInvalidArgument, info.GetNode().Describe(),
                  ": attribute 'new_axis' must be 0 or 1, got ", new_axis_);
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Value* value = context.InputValue(0);
    PRISM_ENFORCE(value != nullptr && value->IsSequence(), kInvalidArgument, node.Describe(),
                  ": input 'input_sequence' must be a sequence of tensors, got ",
                  value != nullptr ? value->Describe() : std::string("nothing"));
    const std::vector<Tensor>& tensors = value->GetSequence().tensors;
    PRISM_ENFORCE(!tensors.empty(), kInvalidArgument, node.Describe(),
                  ": input 'input_sequence' is empty; there is nothing to concatenate");
    const Tensor& first = tensors[0];
    const int64_t rank = static_cast<int64_t>(first.Shape().Rank());
    const int64_t out_rank = rank + new_axis_;
    PRISM_ENFORCE(out_rank >= 1 && axis_ >= -out_rank && axis_ < out_rank, kInvalidArgument,
                  node.Describe(), ": attribute 'axis' is ", axis_, ", expected ", -out_rank,
                  " to ", out_rank - 1, " for tensors of rank ", rank,
                  new_axis_ ? " stacked along a new axis" : "");
    const size_t axis = static_cast<size_t>(axis_ < 0 ? axis_ + out_rank : axis_);

    // Each tensor seen with the new axis (length 1) in place, so stacking is concatenating
    // (only for a tensor of the first's rank, which the loop below checks first: a tensor of
    // lower rank put the new axis past its end, found by CI's fuzz smoke).
    auto viewed_dims = [&](const Tensor& t) {
      std::vector<int64_t> dims = t.Shape().Dims();
      if (new_axis_) dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(axis), 1);
      return dims;
    };
    std::vector<int64_t> out_dims = viewed_dims(first);
    out_dims[axis] = 0;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const Tensor& t = tensors[i];
      bool compatible = t.Type() == first.Type() && static_cast<int64_t>(t.Shape().Rank()) == rank;
      const std::vector<int64_t> dims = compatible ? viewed_dims(t) : std::vector<int64_t>{};
      for (size_t d = 0; compatible && d < dims.size(); ++d)
        compatible = d == axis || dims[d] == out_dims[d];
      PRISM_ENFORCE(compatible, kInvalidArgument, node.Describe(), ": tensor ", i,
                    " of input 'input_sequence' is ", t.Describe(), ", which cannot be ",
                    new_axis_ ? "stacked with "
                              : "concatenated along axis " + std::to_string(axis) + " with ",
                    "tensor 0, ", first.Describe());
      out_dims[axis] += dims[axis];
    }
    Tensor& out = context.Output(0, TensorShape(out_dims), first.Type());
    ClearPackedStorage(out);
    const int64_t outer = Product(out_dims, 0, axis);
    const int64_t inner = Product(out_dims, axis + 1, out_dims.size());
    int64_t offset = 0;  // along axis
    for (const Tensor& t : tensors) {
      const int64_t length = viewed_dims(t)[axis];
      for (int64_t o = 0; o < outer && length * inner > 0; ++o)
        CopyElements(t, o * length * inner, out, (o * out_dims[axis] + offset) * inner,
                     length * inner);
      offset += length;
    }
  }

 private:
  int64_t axis_;
  int64_t new_axis_;
};

void RegisterSplitConcatSequenceKernels(KernelRegistry& registry) {
  const std::vector<ElementType> positions = {ElementType::kInt32, ElementType::kInt64};
  struct Range {
    int since, end;
    std::vector<ElementType> types;
  };
  for (const Range& range : {Range{11, 23, SequenceElementTypes()},
                             Range{24, INT_MAX, SequenceElementTypesWithBfloat16()}}) {
    registry.Register(SequenceOnly(KernelDefBuilder("SplitToSequence")
                                       .Versions(range.since, range.end)
                                       .Constraint("T", range.types, {0})
                                       .Constraint("I", positions, {1})
                                       .Constraint("S", range.types, {}, {0})
                                       .CpuInput(1)
                                       .Build(),
                                   "S"),
                      MakeKernelFactory<SplitToSequence>());
  }
  const std::vector<ElementType> types = SequenceElementTypes();
  registry.Register(SequenceOnly(KernelDefBuilder("ConcatFromSequence")
                                     .Versions(11)
                                     .Constraint("S", types, {0})
                                     .Constraint("T", types, {}, {0})
                                     .Build(),
                                 "S"),
                    MakeKernelFactory<ConcatFromSequence>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(sequence_split_concat, RegisterSplitConcatSequenceKernels);

}  // namespace prism::cpu
