// SequenceMap (opset 17): runs the body once per element of input_sequence. Each additional
// input is either a sequence, iterated in step with input_sequence (same length required), or a
// tensor, passed unchanged to every iteration. The body's outputs are collected into one
// sequence per output; with an empty input_sequence every output is an empty sequence of the
// element type the graph declares.
#include <string>
#include <vector>

#include "graph/graph.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/sequence/sequence_types.h"

namespace prism::cpu {
namespace {

class SequenceMap final : public OpKernel {
 public:
  explicit SequenceMap(const OpKernelInfo& info) : OpKernel(info), body_(info.Subgraph("body")) {
    for (size_t o = 0; o < info.GetNode().OutputCount(); ++o)
      output_types_.push_back(info.OutputType(o));
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const size_t input_count = context.InputCount();
    const size_t output_count = context.OutputCount();
    PRISM_ENFORCE(body_.Inputs().size() == input_count && body_.Outputs().size() == output_count,
                  kInvalidArgument, node.Describe(), ": the body has ", body_.Inputs().size(),
                  " inputs and ", body_.Outputs().size(), " outputs, but the node has ",
                  input_count, " inputs and ", output_count, " outputs");
    std::vector<const Value*> inputs(input_count);
    for (size_t i = 0; i < input_count; ++i) {
      inputs[i] = context.InputValue(i);
      PRISM_ENFORCE(inputs[i] != nullptr && inputs[i]->HasValue() &&
                        (inputs[i]->IsTensor() || inputs[i]->IsSequence()) &&
                        (i > 0 || inputs[i]->IsSequence()),
                    kInvalidArgument, node.Describe(), ": input ", i, " must be ",
                    i == 0 ? "a sequence" : "a tensor or a sequence", ", got ",
                    inputs[i] != nullptr ? inputs[i]->Describe() : std::string("nothing"));
    }
    const size_t length = inputs[0]->GetSequence().tensors.size();
    for (size_t i = 1; i < input_count; ++i)
      PRISM_ENFORCE(!inputs[i]->IsSequence() || inputs[i]->GetSequence().tensors.size() == length,
                    kInvalidArgument, node.Describe(), ": input ", i, " is a sequence of ",
                    inputs[i]->GetSequence().tensors.size(), " tensors, but input_sequence has ",
                    length);

    std::vector<TensorSequence> outputs(output_count);
    for (size_t o = 0; o < output_count; ++o) outputs[o].elem_type = output_types_[o];
    std::vector<Value> body_inputs(input_count);
    for (size_t step = 0; step < length; ++step) {
      for (size_t i = 0; i < input_count; ++i)
        body_inputs[i] =
            inputs[i]->IsSequence() ? Value(inputs[i]->GetSequence().tensors[step]) : *inputs[i];
      std::vector<Value> results = context.RunSubgraph(body_, body_inputs);
      PRISM_ENFORCE(results.size() == output_count, kInvalidArgument, node.Describe(),
                    ": the body returned ", results.size(), " values, expected ", output_count);
      for (size_t o = 0; o < output_count; ++o) {
        PRISM_ENFORCE(results[o].IsTensor(), kInvalidArgument, node.Describe(), ": body output ", o,
                      " must be a tensor, got ", results[o].Describe(), " in iteration ", step);
        const Tensor& tensor = results[o].GetTensor();
        TensorSequence& sequence = outputs[o];
        if (sequence.tensors.empty()) sequence.elem_type = tensor.Type();
        PRISM_ENFORCE(tensor.Type() == sequence.elem_type, kInvalidArgument, node.Describe(),
                      ": body output ", o, " is ", tensor.Describe(), " in iteration ", step,
                      " but tensor(", ElementTypeName(sequence.elem_type), ") before");
        sequence.tensors.push_back(tensor);
      }
    }
    for (size_t o = 0; o < output_count; ++o) {
      if (outputs[o].elem_type == ElementType::kUndefined)
        outputs[o].elem_type = body_.Outputs()[o]->type.elem;
      context.SetOutput(o, Value(std::move(outputs[o])));
    }
  }

 private:
  const Graph& body_;
  std::vector<ElementType> output_types_;
};

void RegisterSequenceMapKernels(KernelRegistry& registry) {
  const std::vector<ElementType> types = SequenceElementTypes();
  // V binds the additional inputs, tensors or sequences whose element types may differ from
  // input_sequence's; the body checks them when it runs, as for Loop.
  registry.Register(SequenceOnly(KernelDefBuilder("SequenceMap")
                                     .Versions(17)
                                     .Constraint("V", types, {kVariadicFrom(1)})
                                     .AlsoSequence()
                                     .Constraint("S", types, {0}, {kVariadicFrom(0)})
                                     .Build(),
                                 "S"),
                    MakeKernelFactory<SequenceMap>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(sequence_map, RegisterSequenceMapKernels);

}  // namespace prism::cpu
