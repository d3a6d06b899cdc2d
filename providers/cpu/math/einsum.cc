// Einsum: the Einstein summation of framework/einsum_equation.h. Each operand first loses its
// repeated labels (diagonals) and the labels no other operand or the output needs (sums); the
// operands are then contracted left to right, each pair as a batched GEMM over
// [shared kept labels] x [labels of one side] x [shared summed labels]; the result is permuted
// (and summed) into the output's order. Sizes broadcast as numpy's einsum does (a 1 stretches).
// Arithmetic: float16 and bfloat16 in float; integers in 64-bit unsigned arithmetic, so that
// overflow wraps to the element type as numpy's does.
#include <algorithm>
#include <numeric>
#include <vector>

#include "framework/einsum_equation.h"
#include "framework/float16.h"
#include "mlas/gemm.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

template <typename Acc>
struct Operand {
  std::vector<int> labels;  // may repeat before the first Reduce
  std::vector<int64_t> dims;
  std::vector<Acc> data;

  int64_t Size() const {
    return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
  }
};

// The operand re-laid as `target` (distinct labels, each the full label size): repeated labels
// are read along their diagonal, labels not in target are summed, size-1 dims broadcast.
template <typename Acc>
Operand<Acc> Reduce(const Operand<Acc>& in, const std::vector<int>& target,
                    const std::vector<int64_t>& label_sizes) {
  std::vector<int> distinct;
  for (int label : in.labels)
    if (std::find(distinct.begin(), distinct.end(), label) == distinct.end())
      distinct.push_back(label);
  Operand<Acc> out;
  out.labels = target;
  for (int label : target) out.dims.push_back(label_sizes[label]);
  out.data.assign(static_cast<size_t>(out.Size()), Acc(0));
  if (out.data.empty() || in.Size() == 0) return out;
  // Per distinct input label: its extent, and the element step it makes in and out.
  const size_t n = distinct.size();
  std::vector<int64_t> extent(n), in_step(n, 0), out_step(n, 0);
  std::vector<int64_t> in_stride(in.dims.size(), 1);
  for (size_t d = in.dims.size(); d-- > 1;) in_stride[d - 1] = in_stride[d] * in.dims[d];
  for (size_t k = 0; k < n; ++k) {
    extent[k] = label_sizes[distinct[k]];
    for (size_t d = 0; d < in.labels.size(); ++d)
      if (in.labels[d] == distinct[k] && in.dims[d] != 1) in_step[k] += in_stride[d];
    int64_t stride = 1;
    for (size_t t = target.size(); t-- > 0;) {
      if (target[t] == distinct[k]) out_step[k] = stride;
      stride *= out.dims[t];
    }
  }
  if (n == 0) {
    out.data[0] = in.data[0];
    return out;
  }
  std::vector<int64_t> index(n, 0);
  int64_t in_offset = 0, out_offset = 0;
  const size_t last = n - 1;
  while (true) {
    for (int64_t i = 0; i < extent[last]; ++i)
      out.data[out_offset + i * out_step[last]] += in.data[in_offset + i * in_step[last]];
    size_t k = last;
    while (k-- > 0) {
      in_offset += in_step[k];
      out_offset += out_step[k];
      if (++index[k] < extent[k]) break;
      in_offset -= in_step[k] * extent[k];
      out_offset -= out_step[k] * extent[k];
      index[k] = 0;
    }
    if (k == static_cast<size_t>(-1)) break;
  }
  return out;
}

bool Contains(const std::vector<int>& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

// a x b summed over their shared labels that `keep` lacks; the result's labels are the shared
// kept ones, then a's own, then b's own.
template <typename Acc>
Operand<Acc> Contract(const Operand<Acc>& a, const Operand<Acc>& b, const std::vector<int>& keep,
                      const std::vector<int64_t>& label_sizes, ThreadPool* pool) {
  std::vector<int> batch, a_own, b_own, summed;
  for (int label : a.labels) {
    if (!Contains(b.labels, label))
      a_own.push_back(label);
    else
      (Contains(keep, label) ? batch : summed).push_back(label);
  }
  for (int label : b.labels)
    if (!Contains(a.labels, label)) b_own.push_back(label);
  const auto product = [&](const std::vector<int>& labels) {
    int64_t p = 1;
    for (int label : labels) p *= label_sizes[label];
    return p;
  };
  const int64_t batches = product(batch), m = product(a_own), n = product(b_own),
                k = product(summed);
  std::vector<int> a_order = batch, b_order = batch, out_labels = batch;
  a_order.insert(a_order.end(), a_own.begin(), a_own.end());
  a_order.insert(a_order.end(), summed.begin(), summed.end());
  b_order.insert(b_order.end(), summed.begin(), summed.end());
  b_order.insert(b_order.end(), b_own.begin(), b_own.end());
  out_labels.insert(out_labels.end(), a_own.begin(), a_own.end());
  out_labels.insert(out_labels.end(), b_own.begin(), b_own.end());
  const Operand<Acc> a_laid = a.labels == a_order ? a : Reduce(a, a_order, label_sizes);
  const Operand<Acc> b_laid = b.labels == b_order ? b : Reduce(b, b_order, label_sizes);
  Operand<Acc> out;
  out.labels = out_labels;
  for (int label : out_labels) out.dims.push_back(label_sizes[label]);
  out.data.assign(static_cast<size_t>(out.Size()), Acc(0));
  if (out.data.empty() || k == 0) return out;
  for (int64_t p = 0; p < batches; ++p)
    mlas::Gemm<Acc>(false, false, m, n, k, Acc(1), a_laid.data.data() + p * m * k, k,
                    b_laid.data.data() + p * k * n, n, Acc(0), out.data.data() + p * m * n, n,
                    pool);
  return out;
}

template <typename T>
using AccumulatorOf =
    std::conditional_t<std::is_same_v<T, double>, double,
                       std::conditional_t<std::is_integral_v<T>, uint64_t, float>>;

template <typename T>
struct EinsumImpl {
  void operator()(const EinsumEquation& equation, const std::vector<const Tensor*>& inputs,
                  const std::vector<int64_t>& label_sizes, Tensor& output, ThreadPool* pool) const {
    using Acc = AccumulatorOf<T>;
    std::vector<Operand<Acc>> operands;
    for (size_t i = 0; i < inputs.size(); ++i) {
      Operand<Acc> operand;
      operand.labels = equation.inputs[i];
      operand.dims = inputs[i]->Shape().Dims();
      const T* data = inputs[i]->Data<T>();
      operand.data.resize(static_cast<size_t>(inputs[i]->NumElements()));
      for (size_t e = 0; e < operand.data.size(); ++e) {
        if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
          operand.data[e] = data[e].ToFloat();
        else if constexpr (std::is_integral_v<T>)
          operand.data[e] = static_cast<uint64_t>(static_cast<int64_t>(data[e]));
        else
          operand.data[e] = data[e];
      }
      operands.push_back(std::move(operand));
    }
    // Labels still needed after operand i: the output's and those of operands past i.
    const auto needed_after = [&](size_t i) {
      std::vector<int> labels = equation.output;
      for (size_t j = i + 1; j < operands.size(); ++j)
        labels.insert(labels.end(), equation.inputs[j].begin(), equation.inputs[j].end());
      return labels;
    };
    // Each operand alone: diagonals taken, private labels summed.
    for (size_t i = 0; i < operands.size(); ++i) {
      std::vector<int> others = equation.output;
      for (size_t j = 0; j < operands.size(); ++j)
        if (j != i)
          others.insert(others.end(), equation.inputs[j].begin(), equation.inputs[j].end());
      std::vector<int> kept;
      for (int label : operands[i].labels)
        if (Contains(others, label) && !Contains(kept, label)) kept.push_back(label);
      operands[i] = Reduce(operands[i], kept, label_sizes);
    }
    Operand<Acc> result = std::move(operands[0]);
    for (size_t i = 1; i < operands.size(); ++i) {
      const std::vector<int> keep = needed_after(i);
      // Labels only `result` has that nothing later needs are summed before the GEMM.
      std::vector<int> result_kept;
      for (int label : result.labels)
        if (Contains(keep, label) || Contains(operands[i].labels, label))
          result_kept.push_back(label);
      if (result_kept != result.labels) result = Reduce(result, result_kept, label_sizes);
      result = Contract(result, operands[i], keep, label_sizes, pool);
    }
    if (result.labels != equation.output) result = Reduce(result, equation.output, label_sizes);
    T* out = output.MutableData<T>();
    for (size_t e = 0; e < result.data.size(); ++e) {
      if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
        out[e] = T(result.data[e]);
      else
        out[e] = static_cast<T>(result.data[e]);
    }
  }
};

class Einsum final : public OpKernel {
 public:
  explicit Einsum(const OpKernelInfo& info) : OpKernel(info) {
    PRISM_ENFORCE(info.HasAttr("equation"), kInvalidArgument, info.GetNode().Describe(),
                  ": attribute 'equation' is required");
    equation_ = info.StringOr("equation", "");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    std::vector<const Tensor*> inputs;
    std::vector<int64_t> ranks;
    for (size_t i = 0; i < context.InputCount(); ++i) {
      inputs.push_back(&context.RequiredInput(i));
      PRISM_ENFORCE(inputs[i]->Type() == inputs[0]->Type(), kInvalidArgument, node.Describe(),
                    ": input ", i, " is ", ElementTypeName(inputs[i]->Type()), " but input 0 is ",
                    ElementTypeName(inputs[0]->Type()));
      ranks.push_back(static_cast<int64_t>(inputs[i]->Shape().Rank()));
    }
    PRISM_ENFORCE(!inputs.empty(), kInvalidArgument, node.Describe(), ": needs at least one input");
    const EinsumEquation equation = ParseEinsumEquation(equation_, ranks, node.Describe());
    // Each label's size; a 1 broadcasts against any other size.
    std::vector<int64_t> label_sizes(static_cast<size_t>(equation.LabelCount()), -1);
    for (size_t i = 0; i < inputs.size(); ++i) {
      for (size_t d = 0; d < equation.inputs[i].size(); ++d) {
        int64_t& size = label_sizes[equation.inputs[i][d]];
        const int64_t dim = inputs[i]->Shape()[d];
        if (size == -1 || size == 1) {
          size = dim;
        } else {
          PRISM_ENFORCE(dim == size || dim == 1, kInvalidArgument, node.Describe(), ": dimension ",
                        d, " of input ", i, " has size ", dim, " but the same label has size ",
                        size, " elsewhere in equation '", equation_, "'");
        }
      }
    }
    std::vector<int64_t> out_dims;
    for (int label : equation.output) out_dims.push_back(label_sizes[label]);
    Tensor& output = context.Output(0, TensorShape(out_dims), inputs[0]->Type());
    if (output.NumElements() == 0) return;
    DispatchByType<EinsumImpl>(inputs[0]->Type(), node.OpType(), equation, inputs, label_sizes,
                               output, context.IntraOpThreadPool());
  }

 private:
  std::string equation_;
};

void RegisterEinsumKernels(KernelRegistry& registry) {
  using E = ElementType;
  std::vector<E> types = {E::kFloat16, E::kFloat, E::kDouble, E::kInt8,   E::kInt16, E::kInt32,
                          E::kInt64,   E::kUint8, E::kUint16, E::kUint32, E::kUint64};
  const auto factory = MakeKernelFactory<Einsum>();
  registry.Register(KernelDefBuilder("Einsum")
                        .Versions(12, 27)
                        .Constraint("T", types, {kVariadicFrom(0)}, {0})
                        .Build(),
                    factory);
  types.push_back(E::kBFloat16);
  registry.Register(KernelDefBuilder("Einsum")
                        .Versions(28)
                        .Constraint("T", types, {kVariadicFrom(0)}, {0})
                        .Build(),
                    factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_einsum, RegisterEinsumKernels);

}  // namespace prism::cpu
