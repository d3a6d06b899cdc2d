// Loop: runs the body while (no trip count M, or iteration < M) and (no cond input, or the last
// cond is true). The body gets (iteration_num, cond, loop-carried values...) and returns
// (cond, loop-carried values..., scan values...); the node returns the final loop-carried values
// and each scan value stacked along a new first axis (every iteration's value must have the same
// shape and type). With no cond input the body's cond is ignored, as the spec's table says. With
// zero iterations the loop-carried values are the initial ones and each scan output is empty:
// [0, dims the body declares] when the body declares its shape, else [0].
#include <climits>
#include <vector>

#include "graph/graph.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

Value ScalarInt64(int64_t value) {
  Tensor tensor(ElementType::kInt64, TensorShape(std::vector<int64_t>{}), GetCpuAllocator());
  tensor.MutableData<int64_t>()[0] = value;
  return Value(std::move(tensor));
}

Value ScalarBool(bool value) {
  Tensor tensor(ElementType::kBool, TensorShape(std::vector<int64_t>{}), GetCpuAllocator());
  tensor.MutableData<bool>()[0] = value;
  return Value(std::move(tensor));
}

bool ReadCondition(const Value& value, const Node& node, const char* what) {
  PRISM_ENFORCE(value.IsTensor() && value.GetTensor().Type() == ElementType::kBool &&
                    value.GetTensor().NumElements() == 1,
                kInvalidArgument, node.Describe(), ": ", what,
                " must be a bool tensor with one element, got ", value.Describe());
  return value.GetTensor().Data<bool>()[0];
}

class Loop final : public OpKernel {
 public:
  explicit Loop(const OpKernelInfo& info) : OpKernel(info), body_(info.Subgraph("body")) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const size_t carried = context.InputCount() - 2;
    const size_t body_outputs = body_.Outputs().size();
    PRISM_ENFORCE(body_.Inputs().size() == carried + 2 && body_outputs >= carried + 1,
                  kInvalidArgument, node.Describe(), ": the body has ", body_.Inputs().size(),
                  " inputs and ", body_outputs, " outputs, but the node's ", carried,
                  " loop-carried values need ", carried + 2, " inputs and at least ", carried + 1,
                  " outputs");
    const size_t scans = body_outputs - 1 - carried;
    PRISM_ENFORCE(context.OutputCount() == carried + scans, kInvalidArgument, node.Describe(),
                  ": the node has ", context.OutputCount(), " outputs but the body yields ",
                  carried, " loop-carried and ", scans, " scan values");
    const Tensor* trip_count = context.Input(0);
    int64_t max_trips = -1;  // none
    if (trip_count != nullptr) {
      PRISM_ENFORCE(trip_count->Type() == ElementType::kInt64 && trip_count->NumElements() == 1,
                    kInvalidArgument, node.Describe(),
                    ": M must be an int64 tensor with one element, got ", trip_count->Describe());
      max_trips = trip_count->Data<int64_t>()[0];
    }
    const Value* cond_input = context.InputValue(1);
    const bool has_cond = cond_input != nullptr && cond_input->HasValue();
    bool cond = has_cond ? ReadCondition(*cond_input, node, "cond") : true;

    std::vector<Value> state;
    for (size_t i = 0; i < carried; ++i) {
      const Value* value = context.InputValue(2 + i);
      state.push_back(value != nullptr ? *value : Value());
    }
    PRISM_ENFORCE(max_trips >= 0 || has_cond, kInvalidArgument, node.Describe(),
                  ": neither M nor cond is given, so the loop would never end");
    std::vector<std::vector<Value>> scanned(scans);
    int64_t iteration = 0;
    while ((max_trips < 0 || iteration < max_trips) && cond) {
      std::vector<Value> inputs = {ScalarInt64(iteration), ScalarBool(cond)};
      inputs.insert(inputs.end(), state.begin(), state.end());
      std::vector<Value> results = context.RunSubgraph(body_, inputs);
      PRISM_ENFORCE(results.size() == body_outputs, kInvalidArgument, node.Describe(),
                    ": the body returned ", results.size(), " values, expected ", body_outputs);
      if (has_cond) cond = ReadCondition(results[0], node, "the body's cond output");
      for (size_t i = 0; i < carried; ++i) state[i] = std::move(results[1 + i]);
      for (size_t k = 0; k < scans; ++k) scanned[k].push_back(std::move(results[1 + carried + k]));
      ++iteration;
    }
    for (size_t i = 0; i < carried; ++i) context.SetOutput(i, std::move(state[i]));
    for (size_t k = 0; k < scans; ++k)
      context.SetOutput(carried + k, Stack(scanned[k], body_.Outputs()[1 + carried + k], node, k));
  }

 private:
  // The iterations' values of scan output k along a new first axis.
  static Value Stack(const std::vector<Value>& values, const NodeArg* declared, const Node& node,
                     size_t k) {
    if (values.empty()) {
      std::vector<int64_t> dims = {0};
      ElementType type = declared->type.elem != ElementType::kUndefined ? declared->type.elem
                                                                        : ElementType::kFloat;
      if (declared->shape) {
        for (const Dim& dim : declared->shape->dims) dims.push_back(dim.IsKnown() ? dim.value : 0);
      }
      return Value(Tensor(type, TensorShape(dims), GetCpuAllocator()));
    }
    for (const Value& value : values)
      PRISM_ENFORCE(value.IsTensor(), kInvalidArgument, node.Describe(), ": scan output ", k,
                    " must be a tensor, got ", value.Describe());
    const Tensor& first = values[0].GetTensor();
    std::vector<int64_t> dims = {static_cast<int64_t>(values.size())};
    dims.insert(dims.end(), first.Shape().Dims().begin(), first.Shape().Dims().end());
    Tensor out(first.Type(), TensorShape(dims), GetCpuAllocator());
    ClearPackedStorage(out);
    const int64_t each = first.NumElements();
    for (size_t i = 0; i < values.size(); ++i) {
      const Tensor& t = values[i].GetTensor();
      PRISM_ENFORCE(t.Type() == first.Type() && t.Shape() == first.Shape(), kInvalidArgument,
                    node.Describe(), ": scan output ", k, " is ", t.Describe(), " in iteration ", i,
                    " but ", first.Describe(), " in iteration 0");
      CopyElements(t, 0, out, static_cast<int64_t>(i) * each, each);
    }
    return Value(std::move(out));
  }

  const Graph& body_;
};

void RegisterLoopKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Loop>();
  // V binds the loop-carried inputs and the outputs, whose counts vary: their element types are
  // checked when the body runs, as for If.
  struct Range {
    int since, end;
    G types;
    bool sequences, optionals;
  };
  for (const Range& r :
       {Range{1, 10, G::kNoBfloat16, false, false}, Range{11, 12, G::kNoBfloat16, false, false},
        Range{13, 15, G::kBfloat16, true, false}, Range{16, 18, G::kBfloat16, true, true},
        Range{19, 20, G::kFloat8, true, true}, Range{21, 22, G::kInt4, true, true},
        Range{23, 23, G::kFloat4, true, true}, Range{24, 24, G::kFloat8E8M0, true, true},
        Range{25, INT_MAX, G::kInt2, true, true}}) {
    KernelDefBuilder builder("Loop");
    builder.Versions(r.since, r.end)
        .Constraint("I", {ElementType::kInt64}, {0})
        .Constraint("B", {ElementType::kBool}, {1})
        .CpuInput(0)
        .CpuInput(1);
    builder.Constraint("V", AllTensorTypesWithComplexOf(r.types), {kVariadicFrom(2)},
                       {kVariadicFrom(0)});
    if (r.sequences) builder.AlsoSequence();
    if (r.optionals) builder.AlsoOptional();
    registry.Register(builder.Build(), factory);
  }
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(controlflow_loop, RegisterLoopKernels);

}  // namespace prism::cpu
