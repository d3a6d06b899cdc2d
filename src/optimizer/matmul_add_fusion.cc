// MatMulAddFusion (onnxruntime's name, extended level, CPU EP): MatMul(A, B) followed by
// Add(C) becomes Gemm(A, B, C), as onnxruntime writes it:
//   A 2-D [M, K]: Gemm(A, B, C) with C [N], [1, N], [M, N] or [M, 1];
//   A of rank > 2 with a fully known shape [d0, .., M', K] and C [N]: Reshape(A, [M, K]) ->
//   Gemm -> Reshape([d0, .., M', N]) (the Reshapes share A's buffer; the Gemm adds the bias
//   inside its call instead of a second pass over the product).
// B is a float 2-D [K, N] of known dims (typically a weight: MatMul and Gemm share its prepacked
// form), the product feeds nothing but the Add, and the Add keeps the product's shape. It is
// registered after the fusions that take a projection's bias themselves (AttentionFusion,
// SkipLayerNormFusion's bias, BiasGeluFusion), so it only takes what they leave.
#include <optional>
#include <vector>

#include "optimizer/fusion_util.h"
#include "optimizer/transformer_manager.h"

namespace prism {
namespace {

constexpr const char* kCpu = "CPUExecutionProvider";

class MatMulAddFusion final : public GraphTransformer {
 public:
  MatMulAddFusion() : GraphTransformer("MatMulAddFusion", TransformerLevel::kExtended, {kCpu}) {}

  bool Apply(Graph& graph, const TransformContext& context) const override {
    bool changed = false;
    for (NodeIndex index : std::vector<NodeIndex>(graph.TopologicalOrder())) {
      const Node* matmul = graph.FindNode(index);
      if (!IsOnnxOp(matmul, "MatMul", 2)) continue;
      if (TryFuse(graph, *matmul, context)) changed = true;
    }
    return changed;
  }

 private:
  bool TryFuse(Graph& graph, const Node& matmul, const TransformContext& context) const {
    NodeArg* a = matmul.Inputs()[0];
    NodeArg* b = matmul.Inputs()[1];
    const NodeArg* product = matmul.Outputs()[0];
    const std::optional<std::vector<int64_t>> b_dims = StaticDims(b);
    const std::optional<size_t> a_rank = RankOf(a);
    if (!IsFloatTensor(a) || !IsFloatTensor(b) || !b_dims || b_dims->size() != 2 || !a_rank ||
        *a_rank < 2 || !DimIs(a, -1, (*b_dims)[0]))
      return false;
    const int64_t k = (*b_dims)[0], n = (*b_dims)[1];
    const Node* add = SoleConsumer(graph, product);
    if (!IsOnnxOp(add, "Add", 2)) return false;
    const std::optional<size_t> c_input = OtherInput(*add, product);
    if (!c_input) return false;
    NodeArg* c = add->Inputs()[*c_input];
    NodeArg* sum = add->Outputs()[0];
    const std::optional<std::vector<int64_t>> c_dims = StaticDims(c);
    if (!IsFloatTensor(c) || !c_dims || !IsFloatTensor(sum) || !SameShape(sum, product))
      return false;
    const std::vector<NodeIndex> chain = {matmul.Index(), add->Index()};
    if (!MayTouchAll(*this, graph, chain, context)) return false;
    // Gemm needs C unidirectionally broadcastable to [M, N] (opset 7 on).
    if (matmul.OpsetVersion() < 7) return false;

    if (*a_rank == 2) {
      const Dim& m_dim = a->shape->dims[0];
      const bool fits = (c_dims->size() == 1 && (*c_dims)[0] == n) ||
                        (c_dims->size() == 2 && (*c_dims)[0] == 1 && (*c_dims)[1] == n) ||
                        (c_dims->size() == 2 && m_dim.IsKnown() && (*c_dims)[0] == m_dim.value &&
                         ((*c_dims)[1] == n || (*c_dims)[1] == 1));
      if (!fits) return false;
      FuseChain(graph, context, chain, matmul.Name() + "_gemm", "Gemm", "", matmul.OpsetVersion(),
                {a, b, c}, {});
      return true;
    }

    // Rank > 2: a fully known A and a 1-D bias, through Reshapes to and from 2-D.
    const std::optional<std::vector<int64_t>> a_dims = StaticDims(a);
    if (!a_dims || c_dims->size() != 1 || (*c_dims)[0] != n) return false;
    for (int64_t d : *a_dims)
      if (d <= 0) return false;  // Reshape's 0 would copy a dim instead of meaning empty
    int64_t m = 1;
    for (size_t i = 0; i + 1 < a_dims->size(); ++i) m *= (*a_dims)[i];
    std::vector<int64_t> out_dims = *a_dims;
    out_dims.back() = n;
    const auto shape_constant = [&graph](const std::string& base,
                                         const std::vector<int64_t>& dims) {
      Tensor shape(ElementType::kInt64, TensorShape({static_cast<int64_t>(dims.size())}),
                   GetCpuAllocator());
      for (size_t i = 0; i < dims.size(); ++i) shape.MutableData<int64_t>()[i] = dims[i];
      const std::string name = graph.UniqueValueName(base);
      graph.AddInitializer(name, std::move(shape));
      return graph.MutableNodeArg(name);
    };
    const auto new_value = [&graph](const std::string& base, std::vector<int64_t> dims) {
      NodeArg* value = graph.GetOrCreateValue(graph.UniqueValueName(base));
      value->type = ValueType::Tensor(ElementType::kFloat);
      value->shape = SymbolicShape{};
      for (int64_t d : dims) value->shape->dims.push_back(Dim{d, ""});
      return value;
    };
    std::vector<std::string> replaced = {matmul.Name(), add->Name()};
    const IExecutionProvider* provider =
        context.provider_of ? context.provider_of(graph, matmul.Index()) : nullptr;
    const int opset = matmul.OpsetVersion();
    const std::string base = matmul.Name().empty() ? product->name : matmul.Name();
    NodeArg* in_shape = shape_constant(base + "_gemm_input_shape", {m, k});
    NodeArg* out_shape = shape_constant(base + "_gemm_output_shape", out_dims);
    NodeArg* a_2d = new_value(base + "_gemm_input", {m, k});
    NodeArg* y_2d = new_value(base + "_gemm_output", {m, n});
    const NodeIndex matmul_index = matmul.Index();
    graph.RemoveNode(add->Index());
    graph.RemoveNode(matmul_index);
    const NodeIndex to_2d = graph
                                .AddNode(graph.UniqueNodeName(base + "_gemm_input_reshape"),
                                         "Reshape", "", opset, {a, in_shape}, {a_2d})
                                .Index();
    const NodeIndex gemm =
        graph.AddNode(graph.UniqueNodeName(base + "_gemm"), "Gemm", "", opset, {a_2d, b, c}, {y_2d})
            .Index();
    const NodeIndex from_2d = graph
                                  .AddNode(graph.UniqueNodeName(base + "_gemm_output_reshape"),
                                           "Reshape", "", opset, {y_2d, out_shape}, {sum})
                                  .Index();
    graph.Resolve();
    if (context.on_fused) {
      // The Gemm runs the pair; the Reshapes are new nodes on the same EP (no node of the model).
      context.on_fused(graph, replaced, gemm, provider);
      context.on_fused(graph, {}, to_2d, provider);
      context.on_fused(graph, {}, from_2d, provider);
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphTransformer> MakeMatMulAddFusion() {
  return std::make_unique<MatMulAddFusion>();
}

}  // namespace prism
