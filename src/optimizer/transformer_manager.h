// Runs graph transformers level by level, each level to a fixpoint (bounded), over a graph and its
// subgraphs, skipping the passes named in disabled_optimizers.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "optimizer/graph_transformer.h"

namespace prism {

class TransformerManager {
 public:
  // Rounds over a level's passes before giving up on a fixpoint (logged when hit).
  static constexpr int kMaxRounds = 10;

  explicit TransformerManager(std::set<std::string> disabled = {});

  void Register(std::unique_ptr<GraphTransformer> transformer);
  // Names of the registered passes of a level, in order (for docs and tests).
  std::vector<std::string> Names(TransformerLevel level) const;

  // Applies the level's enabled passes in registration order, repeating until a round changes
  // nothing or kMaxRounds rounds ran; recurses into subgraphs. Returns the number of changes.
  int Run(Graph& graph, TransformerLevel level, const TransformContext& context) const;

 private:
  int RunOnce(Graph& graph, TransformerLevel level, const TransformContext& context) const;
  std::vector<std::unique_ptr<GraphTransformer>> transformers_;
  std::set<std::string> disabled_;
};

// The passes of a session at optimization level (0 none, 1 basic, 2 extended, 99 all), as
// onnxruntime groups them. Disabled names that match no pass are logged and ignored, as
// onnxruntime does.
std::unique_ptr<TransformerManager> MakeDefaultTransformers(
    int optimization_level, const std::vector<std::string>& disabled);

// The built-in passes.
std::unique_ptr<GraphTransformer> MakeIdentityElimination();
std::unique_ptr<GraphTransformer> MakeDropoutElimination();
std::unique_ptr<GraphTransformer> MakeCommonSubexpressionElimination();
std::unique_ptr<GraphTransformer> MakeConstantFolding();
std::unique_ptr<GraphTransformer> MakeReshapeChainElimination();
std::unique_ptr<GraphTransformer> MakeConvBatchNormFusion();
std::unique_ptr<GraphTransformer> MakeConvActivationFusion();
std::unique_ptr<GraphTransformer> MakeQdqConvFusion();
std::unique_ptr<GraphTransformer> MakeQdqAddFusion();
std::unique_ptr<GraphTransformer> MakeQdqMatMulFusion();
std::unique_ptr<GraphTransformer> MakeQdqGemmFusion();
std::unique_ptr<GraphTransformer> MakeQdqGlobalAveragePoolFusion();
std::unique_ptr<GraphTransformer> MakeQdqDropFusion();
std::unique_ptr<GraphTransformer> MakeGeluFusion();
std::unique_ptr<GraphTransformer> MakeLayerNormFusion();
std::unique_ptr<GraphTransformer> MakeSkipLayerNormFusion();
std::unique_ptr<GraphTransformer> MakeAttentionFusion();
std::unique_ptr<GraphTransformer> MakeBiasGeluFusion();
std::unique_ptr<GraphTransformer> MakeMatMulAddFusion();
std::unique_ptr<GraphTransformer> MakeGemmActivationFusion();
std::unique_ptr<GraphTransformer> MakeFastGeluFusion();
std::unique_ptr<GraphTransformer> MakeMatMulTransposeFusion();
std::unique_ptr<GraphTransformer> MakeMatMulScaleFusion();
std::unique_ptr<GraphTransformer> MakeNchwcTransformer();
std::unique_ptr<GraphTransformer> MakeNhwcTransformer();

}  // namespace prism
