// The driver: walks the graph in topological order and calls each op's inference function.
#include "graph/shape_inference.h"

#include <algorithm>
#include <map>

#include "common/logging.h"
#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

// ai.onnx ops by name, the other domains' as "domain:op".
std::string RegistryKey(const std::string& domain, const std::string& op_type) {
  return domain.empty() || domain == "ai.onnx" ? op_type : domain + ":" + op_type;
}

std::map<std::string, InferenceFunction>& Registry() {
  static std::map<std::string, InferenceFunction> registry;
  return registry;
}

void RegisterFamilies();

// Small integer initializers take part in shape computations (and small float ones in
// Resize's).
void PropagateInitializers(const Graph& graph,
                           std::unordered_map<const NodeArg*, PropagatedValues>& propagated) {
  for (const auto& [name, tensor] : graph.Initializers()) {
    if (!graph.IsConstantInitializer(name) || tensor.Shape().Rank() > 1 ||
        tensor.NumElements() > 64)
      continue;
    PropagatedValues values;
    values.is_scalar = tensor.Shape().Rank() == 0;
    if (tensor.Type() == ElementType::kInt64) {
      for (int64_t i = 0; i < tensor.NumElements(); ++i)
        values.values.push_back(SymbolicInt{tensor.Data<int64_t>()[i], ""});
    } else if (tensor.Type() == ElementType::kInt32) {
      for (int64_t i = 0; i < tensor.NumElements(); ++i)
        values.values.push_back(SymbolicInt{tensor.Data<int32_t>()[i], ""});
    } else if (tensor.Type() == ElementType::kFloat) {
      values.reals =
          std::vector<double>(tensor.Data<float>(), tensor.Data<float>() + tensor.NumElements());
    } else if (tensor.Type() == ElementType::kDouble) {
      values.reals =
          std::vector<double>(tensor.Data<double>(), tensor.Data<double>() + tensor.NumElements());
    } else {
      continue;
    }
    propagated[graph.FindNodeArg(name)] = std::move(values);
  }
}

void InferGraph(Graph& graph, const ShapeInferenceOptions& options,
                std::unordered_map<const NodeArg*, PropagatedValues>& propagated);

// A Loop body's inputs seldom declare shapes: iteration_num and cond are scalars, and each
// loop-carried input starts as the node's initial value. A carried value may change from one
// iteration to the next, so the body is inferred again with the dims its output disagrees on
// made unknown (the rank too, when that differs) until the two agree. Declared shapes are kept.
void InferLoopBody(Node& node, Graph& body, const ShapeInferenceOptions& options,
                   std::unordered_map<const NodeArg*, PropagatedValues>& propagated) {
  const std::vector<NodeArg*>& inputs = body.Inputs();
  std::vector<NodeArg*> seeded;  // body inputs whose shape this function decides
  if (inputs.size() >= 2) {
    const std::pair<size_t, ElementType> scalars[] = {{0, ElementType::kInt64},
                                                      {1, ElementType::kBool}};
    for (const auto& [i, elem] : scalars) {
      if (inputs[i]->shape) continue;
      inputs[i]->shape = SymbolicShape{};
      if (inputs[i]->type.kind == TypeKind::kUnknown) inputs[i]->type = ValueType::Tensor(elem);
    }
  }
  for (size_t i = 2; i < inputs.size() && i < node.Inputs().size(); ++i) {
    const NodeArg* initial = node.Inputs()[i];
    if (inputs[i]->shape || initial == nullptr || !initial->shape) continue;
    inputs[i]->shape = initial->shape;
    if (inputs[i]->type.kind == TypeKind::kUnknown) inputs[i]->type = initial->type;
    seeded.push_back(inputs[i]);
  }
  for (int pass = 0; pass < 4; ++pass) {
    InferGraph(body, options, propagated);
    bool changed = false;
    for (size_t i = 2; i < inputs.size() && i - 1 < body.Outputs().size(); ++i) {
      NodeArg* in = inputs[i];
      if (std::find(seeded.begin(), seeded.end(), in) == seeded.end() || !in->shape) continue;
      const NodeArg* out = body.Outputs()[i - 1];
      if (!out->shape || out->shape->dims.size() != in->shape->dims.size()) {
        in->shape.reset();
        changed = true;
        continue;
      }
      for (size_t d = 0; d < in->shape->dims.size(); ++d) {
        if (SameDim(in->shape->dims[d], out->shape->dims[d]) || !in->shape->dims[d].IsKnown())
          continue;
        in->shape->dims[d] = Dim{};
        changed = true;
      }
    }
    if (!changed) return;
  }
}

// A Scan body's inputs: the states start as the node's initial values (opset 8: without the
// batch axis), widened as for Loop; each scan input's slice is the input without its scan axis
// (opset 8: without the batch and sequence axes). Declared shapes are kept.
void InferScanBody(Node& node, Graph& body, const ShapeInferenceOptions& options,
                   std::unordered_map<const NodeArg*, PropagatedValues>& propagated) {
  const bool legacy = node.OpsetVersion() < 9;
  const Attribute* count = node.FindAttribute("num_scan_inputs");
  const size_t first = legacy ? 1 : 0;
  const std::vector<NodeArg*>& inputs = body.Inputs();
  if (count == nullptr || count->i <= 0 || node.Inputs().size() < first + count->i ||
      inputs.size() != node.Inputs().size() - first) {
    InferGraph(body, options, propagated);
    return;
  }
  const size_t m = static_cast<size_t>(count->i), n = inputs.size() - m;
  const Attribute* axes = node.FindAttribute("scan_input_axes");
  std::vector<NodeArg*> seeded;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NodeArg* outer = node.Inputs()[first + i];
    if (inputs[i]->shape || outer == nullptr || !outer->shape) continue;
    SymbolicShape shape = *outer->shape;
    const int64_t rank = static_cast<int64_t>(shape.dims.size());
    if (i < n) {
      if (legacy) {
        if (rank < 1) continue;
        shape.dims.erase(shape.dims.begin());
      }
      seeded.push_back(inputs[i]);
    } else if (legacy) {
      if (rank < 2) continue;
      shape.dims.erase(shape.dims.begin(), shape.dims.begin() + 2);
    } else {
      int64_t axis = axes && i - n < axes->ints.size() ? axes->ints[i - n] : 0;
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) continue;
      shape.dims.erase(shape.dims.begin() + axis);
    }
    inputs[i]->shape = shape;
    if (inputs[i]->type.kind == TypeKind::kUnknown) inputs[i]->type = outer->type;
  }
  for (int pass = 0; pass < 4; ++pass) {
    InferGraph(body, options, propagated);
    bool changed = false;
    for (size_t i = 0; i < n && i < body.Outputs().size(); ++i) {
      NodeArg* in = inputs[i];
      if (std::find(seeded.begin(), seeded.end(), in) == seeded.end() || !in->shape) continue;
      const NodeArg* out = body.Outputs()[i];
      if (!out->shape || out->shape->dims.size() != in->shape->dims.size()) {
        in->shape.reset();
        changed = true;
        continue;
      }
      for (size_t d = 0; d < in->shape->dims.size(); ++d) {
        if (SameDim(in->shape->dims[d], out->shape->dims[d]) || !in->shape->dims[d].IsKnown())
          continue;
        in->shape->dims[d] = Dim{};
        changed = true;
      }
    }
    if (!changed) return;
  }
}

// FlexAttention's score_mod and prob_mod each take the scores [B, Hq, L, S] (B, Hq, L from Q,
// S from K), whatever symbolic names their inputs declare.
void InferFlexAttentionModifiers(Node& node, const std::vector<Graph*>& modifiers,
                                 const ShapeInferenceOptions& options,
                                 std::unordered_map<const NodeArg*, PropagatedValues>& propagated) {
  const NodeArg* q = node.Inputs().size() > 0 ? node.Inputs()[0] : nullptr;
  const NodeArg* k = node.Inputs().size() > 1 ? node.Inputs()[1] : nullptr;
  for (Graph* modifier : modifiers) {
    if (modifier->Inputs().size() == 1 && q && k && q->shape && k->shape &&
        q->shape->dims.size() == 4 && k->shape->dims.size() == 4) {
      NodeArg* scores = modifier->Inputs()[0];
      SymbolicShape shape{
          {q->shape->dims[0], q->shape->dims[1], q->shape->dims[2], k->shape->dims[2]}};
      if (scores->shape && scores->shape->dims.size() == 4)
        for (size_t d = 0; d < 4; ++d)
          if (!shape.dims[d].IsKnown()) shape.dims[d] = scores->shape->dims[d];
      scores->shape = shape;
    }
    InferGraph(*modifier, options, propagated);
  }
}

void InferGraph(Graph& graph, const ShapeInferenceOptions& options,
                std::unordered_map<const NodeArg*, PropagatedValues>& propagated) {
  PropagateInitializers(graph, propagated);
  for (NodeIndex index : graph.TopologicalOrder()) {
    Node& node = *graph.MutableNode(index);
    std::vector<Graph*> subgraphs = node.MutableSubgraphs();
    if (node.Domain().empty() && node.OpType() == "Loop" && subgraphs.size() == 1)
      InferLoopBody(node, *subgraphs[0], options, propagated);
    else if (node.Domain().empty() && node.OpType() == "Scan" && subgraphs.size() == 1)
      InferScanBody(node, *subgraphs[0], options, propagated);
    else if (node.Domain() == "ai.onnx.preview" && node.OpType() == "FlexAttention")
      InferFlexAttentionModifiers(node, subgraphs, options, propagated);
    else
      for (Graph* sub : subgraphs) InferGraph(*sub, options, propagated);
    if (node.FusedBody() != nullptr) continue;  // its outputs keep the group's inferred shapes
    auto it = Registry().find(RegistryKey(node.Domain(), node.OpType()));
    if (it == Registry().end()) {
      PRISM_ENFORCE(!options.strict, kInvalidGraph, "no shape inference function for op ",
                    node.Domain().empty() ? "" : node.Domain() + ".", node.OpType(), " (",
                    node.Describe(), ")");
      continue;
    }
    InferenceContext context(node, propagated);
    if (options.strict) {
      it->second(context);
      continue;
    }
    try {
      it->second(context);
    } catch (const Exception& e) {
      // Lenient (load, session): the node keeps what the model declared, and its kernel reports
      // the problem with the actual values at run time.
      PRISM_LOG(kVerbose, "shape inference left ", node.Describe(), " unresolved: ", e.what());
    }
  }
}

}  // namespace

void RegisterShapeInference(const std::string& op_type, InferenceFunction function) {
  Registry()[op_type] = std::move(function);
}

void RegisterShapeInference(const std::string& domain, const std::string& op_type,
                            InferenceFunction function) {
  Registry()[RegistryKey(domain, op_type)] = std::move(function);
}

const InferenceFunction* FindShapeInference(const std::string& domain, const std::string& op_type) {
  RegisterFamilies();
  auto it = Registry().find(RegistryKey(domain, op_type));
  return it == Registry().end() ? nullptr : &it->second;
}

bool HasShapeInference(const std::string& domain, const std::string& op_type) {
  RegisterFamilies();
  return Registry().count(RegistryKey(domain, op_type)) > 0;
}

void InferShapes(Graph& graph, const ShapeInferenceOptions& options) {
  RegisterFamilies();
  std::unordered_map<const NodeArg*, PropagatedValues> propagated;
  InferGraph(graph, options, propagated);
}

// Families register once, explicitly (a static library would drop self-registering objects).
void RegisterElementwiseShapes();
void RegisterMathShapes();
void RegisterNnShapes();
void RegisterTensorShapes();
void RegisterRegionShapes();
void RegisterIndexShapes();
void RegisterSelectionShapes();
void RegisterControlFlowShapes();
void RegisterImageShapes();
void RegisterRecurrentShapes();
void RegisterSequenceShapes();
void RegisterSignalShapes();
void RegisterRandomShapes();
void RegisterStringShapes();
void RegisterMlShapes();
void RegisterQuantizationShapes();
void RegisterContribShapes();
void RegisterContribQuantShapes();
void RegisterContribAttentionShapes();
void RegisterContribNchwcShapes();

namespace {
void RegisterFamilies() {
  static const bool done = [] {
    RegisterElementwiseShapes();
    RegisterMathShapes();
    RegisterNnShapes();
    RegisterTensorShapes();
    RegisterRegionShapes();
    RegisterIndexShapes();
    RegisterSelectionShapes();
    RegisterControlFlowShapes();
    RegisterImageShapes();
    RegisterRecurrentShapes();
    RegisterSequenceShapes();
    RegisterSignalShapes();
    RegisterRandomShapes();
    RegisterStringShapes();
    RegisterMlShapes();
    RegisterQuantizationShapes();
    RegisterContribShapes();
    RegisterContribQuantShapes();
    RegisterContribAttentionShapes();
    RegisterContribNchwcShapes();
    return true;
  }();
  (void)done;
}
}  // namespace

}  // namespace prism
