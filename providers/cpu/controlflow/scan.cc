// Scan. Opset 9 on: N state variables and M scan inputs (the last num_scan_inputs inputs); each
// iteration the body gets the states and one slice of every scan input (taken along its
// scan_input_axes entry, backwards where scan_input_directions says 1) and returns the new states
// and K scan output slices, which are stacked along scan_output_axes (in reverse order where
// scan_output_directions says 1). All scan inputs must have the same length along their axes.
// Opset 8: a batch axis 0 everywhere and the sequence axis 1 of the scan inputs and outputs; the
// optional first input sequence_lens gives each batch entry's length (the rest of its scan
// outputs is zeros), and 'directions' reverses scan inputs.
#include <climits>
#include <vector>

#include "graph/graph.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

// Element i along `axis` of `tensor` (the axis removed).
Tensor SliceAt(const Tensor& tensor, size_t axis, int64_t i) {
  const TensorShape& shape = tensor.Shape();
  std::vector<int64_t> dims = shape.Dims();
  const int64_t length = dims[axis];
  dims.erase(dims.begin() + static_cast<int64_t>(axis));
  Tensor out(tensor.Type(), TensorShape(dims), GetCpuAllocator());
  ClearPackedStorage(out);
  const int64_t outer = shape.SizeToDimension(axis);
  const int64_t inner = shape.SizeFromDimension(axis + 1);
  for (int64_t o = 0; o < outer; ++o)
    CopyElements(tensor, (o * length + i) * inner, out, o * inner, inner);
  return out;
}

// Writes `slice` as element i along `axis` of `out`.
void PlaceAt(const Tensor& slice, Tensor& out, size_t axis, int64_t i) {
  const TensorShape& shape = out.Shape();
  const int64_t length = shape[axis];
  const int64_t outer = shape.SizeToDimension(axis);
  const int64_t inner = shape.SizeFromDimension(axis + 1);
  for (int64_t o = 0; o < outer; ++o)
    CopyElements(slice, o * inner, out, (o * length + i) * inner, inner);
}

size_t ResolveAxis(int64_t axis, size_t rank, const Node& node, const char* what) {
  const int64_t r = static_cast<int64_t>(rank);
  PRISM_ENFORCE(axis >= -r && axis < r, kInvalidArgument, node.Describe(), ": ", what, " ", axis,
                " is out of range for rank ", rank);
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

class Scan final : public OpKernel {
 public:
  explicit Scan(const OpKernelInfo& info)
      : OpKernel(info),
        body_(info.Subgraph("body")),
        legacy_(info.GetNode().OpsetVersion() < 9),
        scans_(info.IntOr("num_scan_inputs", 0)),
        input_axes_(info.IntsOr("scan_input_axes", {})),
        input_directions_(info.IntsOr(legacy_ ? "directions" : "scan_input_directions", {})),
        output_axes_(info.IntsOr("scan_output_axes", {})),
        output_directions_(info.IntsOr("scan_output_directions", {})) {
    PRISM_ENFORCE(info.HasAttr("num_scan_inputs") && scans_ > 0, kInvalidArgument,
                  info.GetNode().Describe(), ": num_scan_inputs must be given and positive");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const size_t first = legacy_ ? 1 : 0;  // opset 8's sequence_lens comes first
    const size_t inputs = context.InputCount() - first;
    PRISM_ENFORCE(static_cast<int64_t>(inputs) >= scans_, kInvalidArgument, node.Describe(),
                  ": num_scan_inputs ", scans_, " exceeds the ", inputs, " inputs");
    const size_t m = static_cast<size_t>(scans_), n = inputs - m;
    const size_t k = context.OutputCount() - n;
    PRISM_ENFORCE(context.OutputCount() >= n && body_.Inputs().size() == n + m &&
                      body_.Outputs().size() == n + k,
                  kInvalidArgument, node.Describe(), ": the body has ", body_.Inputs().size(),
                  " inputs and ", body_.Outputs().size(), " outputs, but ", n, " states, ", m,
                  " scan inputs and ", context.OutputCount(), " node outputs need ", n + m, " and ",
                  n + k);
    const auto check_list = [&](const std::vector<int64_t>& list, size_t size, const char* name) {
      PRISM_ENFORCE(list.empty() || list.size() == size, kInvalidArgument, node.Describe(), ": ",
                    name, " has ", list.size(), " entries, expected ", size);
    };
    check_list(input_axes_, m, "scan_input_axes");
    check_list(input_directions_, m, legacy_ ? "directions" : "scan_input_directions");
    check_list(output_axes_, k, "scan_output_axes");
    check_list(output_directions_, k, "scan_output_directions");
    if (legacy_)
      RunBatched(context, n, m, k);
    else
      RunOnce(context, n, m, k);
  }

 private:
  // One scan over whole tensors (opset 9 on): returns nothing, sets the node's outputs.
  void RunOnce(OpKernelContext& context, size_t n, size_t m, size_t k) const {
    const Node& node = GetNode();
    std::vector<Value> states;
    for (size_t i = 0; i < n; ++i) states.push_back(*context.InputValue(i));
    std::vector<const Tensor*> scan_inputs;
    std::vector<size_t> axes;
    int64_t length = -1;
    for (size_t j = 0; j < m; ++j) {
      const Tensor& t = context.RequiredInput(n + j);
      const size_t axis = ResolveAxis(input_axes_.empty() ? 0 : input_axes_[j], t.Shape().Rank(),
                                      node, "scan_input_axes entry");
      PRISM_ENFORCE(length < 0 || t.Shape()[axis] == length, kInvalidArgument, node.Describe(),
                    ": scan input ", j, " has length ", t.Shape()[axis], " along its axis, ",
                    "scan input 0 has ", length);
      length = t.Shape()[axis];
      scan_inputs.push_back(&t);
      axes.push_back(axis);
    }
    std::vector<std::vector<Tensor>> outputs(k);
    for (int64_t step = 0; step < length; ++step) {
      std::vector<Value> feeds = states;
      for (size_t j = 0; j < m; ++j) {
        const bool reverse = !input_directions_.empty() && input_directions_[j] == 1;
        feeds.emplace_back(SliceAt(*scan_inputs[j], axes[j], reverse ? length - 1 - step : step));
      }
      std::vector<Value> results = context.RunSubgraph(body_, feeds);
      for (size_t i = 0; i < n; ++i) states[i] = std::move(results[i]);
      for (size_t o = 0; o < k; ++o) {
        PRISM_ENFORCE(results[n + o].IsTensor(), kInvalidArgument, node.Describe(),
                      ": scan output ", o, " must be a tensor");
        outputs[o].push_back(results[n + o].GetTensor());
      }
    }
    for (size_t i = 0; i < n; ++i) context.SetOutput(i, std::move(states[i]));
    for (size_t o = 0; o < k; ++o) {
      const bool reverse = !output_directions_.empty() && output_directions_[o] == 1;
      context.SetOutput(n + o, Stack(outputs[o], n + o, o, reverse, length));
    }
  }

  // The slices of scan output o (body output body_index) stacked along its scan_output_axes
  // entry; with no iteration, an empty tensor of the shape the body declares.
  Value Stack(const std::vector<Tensor>& slices, size_t body_index, size_t o, bool reverse,
              int64_t length) const {
    const Node& node = GetNode();
    if (slices.empty()) {
      const NodeArg* out = body_.Outputs()[body_index];
      std::vector<int64_t> dims = {0};
      if (out->shape)
        for (const Dim& dim : out->shape->dims) dims.push_back(dim.IsKnown() ? dim.value : 0);
      const ElementType type =
          out->type.elem != ElementType::kUndefined ? out->type.elem : ElementType::kFloat;
      return Value(Tensor(type, TensorShape(dims), GetCpuAllocator()));
    }
    const Tensor& first = slices[0];
    const size_t axis = ResolveAxis(output_axes_.empty() ? 0 : output_axes_[o],
                                    first.Shape().Rank() + 1, node, "scan_output_axes entry");
    std::vector<int64_t> dims = first.Shape().Dims();
    dims.insert(dims.begin() + static_cast<int64_t>(axis), length);
    Tensor out(first.Type(), TensorShape(dims), GetCpuAllocator());
    ClearPackedStorage(out);
    for (int64_t step = 0; step < length; ++step) {
      const Tensor& slice = slices[static_cast<size_t>(step)];
      PRISM_ENFORCE(slice.Type() == first.Type() && slice.Shape() == first.Shape(),
                    kInvalidArgument, node.Describe(), ": scan output ", o, " is ",
                    slice.Describe(), " in iteration ", step, " but ", first.Describe(),
                    " in iteration 0");
      PlaceAt(slice, out, axis, reverse ? length - 1 - step : step);
    }
    return Value(std::move(out));
  }

  // Opset 8: each batch entry scanned on its own, along axis 1, for its sequence length.
  void RunBatched(OpKernelContext& context, size_t n, size_t m, size_t k) const {
    const Node& node = GetNode();
    const Tensor* lengths = context.Input(0);
    std::vector<const Tensor*> states, scan_inputs;
    for (size_t i = 0; i < n; ++i) states.push_back(&context.RequiredInput(1 + i));
    for (size_t j = 0; j < m; ++j) scan_inputs.push_back(&context.RequiredInput(1 + n + j));
    const Tensor& probe = *scan_inputs[0];
    PRISM_ENFORCE(probe.Shape().Rank() >= 2, kInvalidArgument, node.Describe(),
                  ": scan inputs must be [batch, sequence, ...], got ", probe.Shape().ToString());
    const int64_t batch = probe.Shape()[0], max_length = probe.Shape()[1];
    for (const Tensor* t : scan_inputs)
      PRISM_ENFORCE(t->Shape().Rank() >= 2 && t->Shape()[0] == batch && t->Shape()[1] == max_length,
                    kInvalidArgument, node.Describe(), ": every scan input must be [", batch, ", ",
                    max_length, ", ...], got ", t->Shape().ToString());
    for (const Tensor* t : states)
      PRISM_ENFORCE(t->Shape().Rank() >= 1 && t->Shape()[0] == batch, kInvalidArgument,
                    node.Describe(), ": every state must have batch size ", batch, ", got ",
                    t->Shape().ToString());
    if (lengths != nullptr)
      PRISM_ENFORCE(lengths->Type() == ElementType::kInt64 && lengths->NumElements() == batch,
                    kInvalidArgument, node.Describe(),
                    ": sequence_lens must hold one int64 per batch entry, got ",
                    lengths->Describe());
    std::vector<std::vector<Tensor>> final_states(n);
    std::vector<std::vector<std::vector<Tensor>>> outputs(k);  // [output][batch][step]
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t length = lengths != nullptr ? lengths->Data<int64_t>()[b] : max_length;
      PRISM_ENFORCE(length >= 0 && length <= max_length, kInvalidArgument, node.Describe(),
                    ": sequence_lens entry ", b, " is ", length, ", outside [0, ", max_length, "]");
      std::vector<Value> state;
      for (size_t i = 0; i < n; ++i) state.emplace_back(SliceAt(*states[i], 0, b));
      std::vector<Tensor> rows;
      for (size_t j = 0; j < m; ++j) rows.push_back(SliceAt(*scan_inputs[j], 0, b));
      for (size_t o = 0; o < k; ++o) outputs[o].emplace_back();
      for (int64_t step = 0; step < length; ++step) {
        std::vector<Value> feeds = state;
        for (size_t j = 0; j < m; ++j) {
          const bool reverse = !input_directions_.empty() && input_directions_[j] == 1;
          feeds.emplace_back(SliceAt(rows[j], 0, reverse ? length - 1 - step : step));
        }
        std::vector<Value> results = context.RunSubgraph(body_, feeds);
        for (size_t i = 0; i < n; ++i) state[i] = std::move(results[i]);
        for (size_t o = 0; o < k; ++o) outputs[o][b].push_back(results[n + o].GetTensor());
      }
      for (size_t i = 0; i < n; ++i) final_states[i].push_back(state[i].GetTensor());
    }
    for (size_t i = 0; i < n; ++i) {
      Tensor out(states[i]->Type(), states[i]->Shape(), GetCpuAllocator());
      for (int64_t b = 0; b < batch; ++b) PlaceAt(final_states[i][b], out, 0, b);
      context.SetOutput(i, Value(std::move(out)));
    }
    for (size_t o = 0; o < k; ++o) {
      const Tensor* sample = nullptr;
      for (const auto& per_batch : outputs[o])
        if (!per_batch.empty()) sample = &per_batch[0];
      PRISM_ENFORCE(sample != nullptr, kInvalidArgument, node.Describe(),
                    ": every sequence is empty, so scan output ", o, " has no element shape");
      std::vector<int64_t> dims = {batch, max_length};
      dims.insert(dims.end(), sample->Shape().Dims().begin(), sample->Shape().Dims().end());
      Tensor out(sample->Type(), TensorShape(dims), GetCpuAllocator());
      if (out.Type() != ElementType::kString)  // steps past a sequence's end stay zero
        std::fill_n(static_cast<uint8_t*>(out.MutableRawData()), out.SizeInBytes(), 0);
      const int64_t each = sample->NumElements();
      for (int64_t b = 0; b < batch; ++b)
        for (size_t step = 0; step < outputs[o][b].size(); ++step)
          CopyElements(outputs[o][b][step], 0, out,
                       (b * max_length + static_cast<int64_t>(step)) * each, each);
      context.SetOutput(n + o, Value(std::move(out)));
    }
  }

  const Graph& body_;
  bool legacy_;
  int64_t scans_;
  std::vector<int64_t> input_axes_, input_directions_, output_axes_, output_directions_;
};

void RegisterScanKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Scan>();
  struct Range {
    int since, end;
    G types;
  };
  for (const Range& r :
       {Range{8, 8, G::kNoBfloat16}, Range{9, 10, G::kNoBfloat16}, Range{11, 15, G::kNoBfloat16},
        Range{16, 18, G::kBfloat16}, Range{19, 20, G::kFloat8}, Range{21, 22, G::kInt4},
        Range{23, 23, G::kFloat4}, Range{24, 24, G::kFloat8E8M0}, Range{25, INT_MAX, G::kInt2}}) {
    KernelDefBuilder builder("Scan");
    builder.Versions(r.since, r.end);
    if (r.since == 8) builder.Constraint("I", {ElementType::kInt64}, {0}).CpuInput(0);
    builder.Constraint("V", AllTensorTypesWithComplexOf(r.types),
                       {kVariadicFrom(r.since == 8 ? 1 : 0)}, {kVariadicFrom(0)});
    registry.Register(builder.Build(), factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(controlflow_scan, RegisterScanKernels);

}  // namespace prism::cpu
