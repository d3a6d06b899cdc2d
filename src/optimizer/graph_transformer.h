// A graph transformer: one rewrite of the session's own graph (eliminations, folding, fusions,
// layout changes), with a name (what disabled_optimizers lists), a level, and the EPs whose nodes
// it may touch.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "framework/tensor.h"
#include "graph/graph.h"

namespace prism {

class IExecutionProvider;

// onnxruntime's levels: basic passes keep the graph's semantics for every EP and run before
// partitioning; extended and layout passes produce ops only some EPs run, so they run after it,
// on nodes assigned to the EPs they target.
enum class TransformerLevel : int { kBasic = 1, kExtended = 2, kLayout = 3 };
const char* TransformerLevelName(TransformerLevel level);

// What a pass may use besides the graph.
struct TransformContext {
  // Computes a node on the CPU EP from CPU tensors (for constant folding); throws when the CPU EP
  // has no kernel or the kernel fails.
  std::function<std::vector<Tensor>(const Node& node, const std::vector<const Tensor*>& inputs)>
      evaluate_on_cpu;
  // The EP a node runs on after partitioning (EP-specific passes); empty before it.
  std::function<const IExecutionProvider*(const Graph& graph, NodeIndex node)> provider_of;
  // EP-specific passes call it after replacing nodes by a new one: `fused` runs on provider,
  // and the partition report says that the replaced nodes (by name) now run inside it. Also for
  // a new helper node that replaces nothing (replaced empty): it only gets its EP. A node may
  // be reported more than once (later calls add nodes it replaced).
  std::function<void(const Graph& graph, const std::vector<std::string>& replaced, NodeIndex fused,
                     const IExecutionProvider* provider)>
      on_fused;
  // Initializers a pass read, by name, with the tensor it read (sharing its buffer).
  using Sources = std::vector<std::pair<std::string, Tensor>>;
  // How source `source` comes back from the value of an initializer a pass computed from the
  // sources (a column block of a packed weight), bit for bit.
  using Rebuild = std::function<Tensor(const Tensor& derived, size_t source)>;
  // For a pass that built initializer `derived` from constant initializers `sources` and stopped
  // reading them: drops the sources nothing reads any more, as RemoveUnreadInitializers does,
  // and lets the session release the model's own copies of them at once (rebuilt from `derived`
  // by `rebuild` when a later session build needs them), so that the originals and the derived
  // weight are never both held; an empty rebuild means no exact way back, and the session frees
  // such a copy only when it can read it back from the model file.
  // Empty: RemoveUnreadInitializers alone (DropDerivedSources).
  std::function<void(Graph& graph, const std::string& derived, const Sources& sources,
                     Rebuild rebuild)>
      drop_derived_sources;
};

class GraphTransformer {
 public:
  GraphTransformer(std::string name, TransformerLevel level,
                   std::vector<std::string> target_providers = {})
      : name_(std::move(name)), level_(level), target_providers_(std::move(target_providers)) {}
  virtual ~GraphTransformer() = default;

  const std::string& Name() const { return name_; }
  TransformerLevel Level() const { return level_; }
  // EP types whose nodes it rewrites; empty: every node.
  const std::vector<std::string>& TargetProviders() const { return target_providers_; }

  // Whether the pass may rewrite this node: always for passes without target EPs; otherwise only
  // once partitioned, and only when the node's EP is one of the targets (a fusion must not
  // produce an op the node's EP has no kernel for).
  bool MayTouch(const Graph& graph, NodeIndex node, const TransformContext& context) const;

  // Rewrites graph (not its subgraphs: the manager visits those); returns whether it changed
  // anything. Leaves the graph resolved or unresolved: the manager calls Resolve() after a change.
  virtual bool Apply(Graph& graph, const TransformContext& context) const = 0;

 private:
  std::string name_;
  TransformerLevel level_;
  std::vector<std::string> target_providers_;
};

}  // namespace prism
