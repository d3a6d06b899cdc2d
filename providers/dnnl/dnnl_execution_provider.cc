#include "providers/dnnl/dnnl_execution_provider.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/logging.h"
#include "framework/fused_claim.h"
#include "graph/graph.h"
#include "providers/dnnl/dnnl_op_support.h"

namespace prism::dnnl_ep {
namespace {

// The keys accepted, with what they mean (docs/dnnl.md). onnxruntime's DNNL EP takes "use_arena"
// (and a thread-pool pointer, which has no string form); the others are Prism's.
const std::map<std::string, std::string>& KnownOptions() {
  static const std::map<std::string, std::string> known = {
      {"use_arena", "0 or 1 (default 1): keep intermediate buffers between runs"},
      {"intra_op_num_threads",
       "threads for oneDNN's OpenMP (default 0: the session's intra-op thread count)"},
      {"enable_fusion", "0 or 1 (default 1): fuse eltwise/Add post-ops into Conv, MatMul, Gemm"},
      {"blocked_layouts",
       "0 or 1 (default 1): let oneDNN pick blocked layouts inside a subgraph (0: plain only)"},
      {"max_cached_shapes",
       "primitive sets kept per subgraph, one per set of input shapes (default 32)"},
  };
  return known;
}

bool ParseBool(const std::string& key, const std::string& value) {
  PRISM_ENFORCE(value == "0" || value == "1", kInvalidArgument, kProviderName, ": option ", key,
                " must be 0 or 1, got '", value, "'");
  return value == "1";
}

int ParseCount(const std::string& key, const std::string& value, int minimum) {
  size_t used = 0;
  long long parsed = -1;
  try {
    parsed = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  PRISM_ENFORCE(used == value.size() && !value.empty() && parsed >= minimum && parsed <= 1 << 20,
                kInvalidArgument, kProviderName, ": option ", key,
                " must be an integer >= ", minimum, ", got '", value, "'");
  return static_cast<int>(parsed);
}

}  // namespace

DnnlSettings ParseOptions(const ProviderOptions& options) {
  DnnlSettings settings;
  for (const auto& [key, value] : options) {
    if (!KnownOptions().count(key)) {
      std::string known;
      for (const auto& [name, meaning] : KnownOptions())
        known += MakeString(known.empty() ? "" : ", ", name);
      PRISM_THROW(kInvalidArgument, kProviderName, ": unknown provider option '", key,
                  "' (known options: ", known, ")");
    }
    if (key == "use_arena") settings.use_arena = ParseBool(key, value);
    if (key == "intra_op_num_threads") settings.threads = ParseCount(key, value, 0);
    if (key == "enable_fusion") settings.enable_fusion = ParseBool(key, value);
    if (key == "blocked_layouts") settings.blocked_layouts = ParseBool(key, value);
    if (key == "max_cached_shapes") settings.max_cached_shapes = ParseCount(key, value, 1);
  }
  return settings;
}

DnnlExecutionProvider::DnnlExecutionProvider(const ProviderOptions& options)
    : IExecutionProvider(kProviderName),
      settings_(ParseOptions(options)),
      engine_(dnnl::engine::kind::cpu, 0),
      registry_(std::make_shared<KernelRegistry>()) {}

ProviderOptions DnnlExecutionProvider::GetProviderOptions() const {
  return {{"use_arena", settings_.use_arena ? "1" : "0"},
          {"intra_op_num_threads", std::to_string(settings_.threads)},
          {"enable_fusion", settings_.enable_fusion ? "1" : "0"},
          {"blocked_layouts", settings_.blocked_layouts ? "1" : "0"},
          {"max_cached_shapes", std::to_string(settings_.max_cached_shapes)}};
}

// Groups: every node the EP accepts joins the group of one of its producers when the graph with
// each group contracted to one node stays acyclic, else starts a group of its own. Nodes are
// visited in topological order, so a node has no consumers yet when it joins: joining group g
// adds the edges (producer -> g) only, and closes a cycle exactly when g already reaches one of
// those producers (a producer outside g, or the group it belongs to) in the contracted graph. A
// search from g answers that. Groups never merge, so each is connected; the fused graph stays a
// DAG by induction.
std::vector<ComputeCapability> DnnlExecutionProvider::GetCapability(
    const GraphViewer& viewer, const KernelLookup&, std::vector<DeclinedNode>* declined) const {
  const Graph& graph = viewer.GetGraph();
  const size_t count = graph.NodeCount();
  std::vector<bool> accepted(count, false);
  for (NodeIndex index : viewer.Nodes()) {
    const std::string reason = WhyNotSupported(viewer.GetNode(index), graph);
    if (reason.empty())
      accepted[index] = true;
    else if (declined)
      declined->push_back(DeclinedNode{index, reason});
  }
  // Producers and consumers among this graph's nodes (implicit inputs included).
  std::vector<std::vector<NodeIndex>> preds(count), succs(count);
  for (NodeIndex index : graph.TopologicalOrder()) {
    const Node& node = graph.GetNode(index);
    auto add = [&](const NodeArg* arg) {
      const Node* producer = arg ? graph.Producer(arg->name) : nullptr;
      if (producer == nullptr || &producer->OwnerGraph() != &graph) return;
      const NodeIndex p = producer->Index();
      if (std::find(preds[index].begin(), preds[index].end(), p) != preds[index].end()) return;
      preds[index].push_back(p);
      succs[p].push_back(index);
    };
    for (const NodeArg* arg : node.Inputs()) add(arg);
    for (const NodeArg* arg : node.ImplicitInputs()) add(arg);
  }
  std::vector<int> group_of(count, -1);
  std::vector<bool> visited_node(count, false);
  std::vector<std::vector<NodeIndex>> groups;
  std::vector<bool> done(count, false);  // visited so far in topological order
  // Whether group g reaches, in the contracted graph over the nodes visited so far, a node of
  // `targets` or a node of a group in `target_groups`.
  auto reaches = [&](int g, const std::set<NodeIndex>& targets,
                     const std::set<int>& target_groups) {
    std::vector<bool> visited_group(groups.size(), false);
    std::fill(visited_node.begin(), visited_node.end(), false);
    std::vector<NodeIndex> stack(groups[g].begin(), groups[g].end());
    visited_group[g] = true;
    while (!stack.empty()) {
      const NodeIndex u = stack.back();
      stack.pop_back();
      for (NodeIndex c : succs[u]) {
        if (!done[c]) continue;
        const int h = group_of[c];
        if (h >= 0) {
          if (visited_group[h]) continue;
          if (target_groups.count(h)) return true;
          visited_group[h] = true;
          stack.insert(stack.end(), groups[h].begin(), groups[h].end());
        } else if (!visited_node[c]) {
          if (targets.count(c)) return true;
          visited_node[c] = true;
          stack.push_back(c);
        }
      }
    }
    return false;
  };
  for (NodeIndex index : graph.TopologicalOrder()) {
    if (accepted[index]) {
      int chosen = -1;
      for (NodeIndex candidate : preds[index]) {
        const int g = group_of[candidate];
        if (g < 0) continue;
        std::set<NodeIndex> targets;
        std::set<int> target_groups;
        for (NodeIndex p : preds[index]) {
          if (group_of[p] == g) continue;
          if (group_of[p] >= 0)
            target_groups.insert(group_of[p]);
          else
            targets.insert(p);
        }
        if ((targets.empty() && target_groups.empty()) || !reaches(g, targets, target_groups)) {
          chosen = g;
          break;
        }
      }
      if (chosen < 0) {
        chosen = static_cast<int>(groups.size());
        groups.emplace_back();
      }
      group_of[index] = chosen;
      groups[chosen].push_back(index);
    }
    done[index] = true;
  }
  std::vector<ComputeCapability> claims;
  for (std::vector<NodeIndex>& group : groups)
    claims.push_back(MakeFusedClaim(graph, std::move(group),
                                    MakeString(kProviderName, "_fused_", fused_groups_made_++),
                                    kFusedDomain));
  return claims;
}

std::unique_ptr<OpKernel> DnnlExecutionProvider::Compile(const MetaDef&, const Graph& body,
                                                         const OpKernelInfo& info) const {
  return CompileSubgraph(body, info, settings_, engine_);
}

class DnnlExecutionProviderFactory final : public IExecutionProviderFactory {
 public:
  std::string Name() const override { return kProviderName; }
  bool IsAvailable(std::string* why) const override {
    try {
      if (dnnl::engine::get_count(dnnl::engine::kind::cpu) > 0) return true;
      if (why) *why = "oneDNN reports no CPU engine";
    } catch (const dnnl::error& e) {
      if (why) *why = MakeString("oneDNN cannot create a CPU engine: ", e.what());
    }
    return false;
  }
  std::unique_ptr<IExecutionProvider> Create(const ProviderOptions& options) const override {
    return std::make_unique<DnnlExecutionProvider>(options);
  }
};

}  // namespace prism::dnnl_ep

// The factory, for the loader plugin (loader/dnnl_loader.cc), which opens this library with
// OpenMP's settings chosen. The caller owns the factory.
extern "C" __attribute__((visibility("default"))) prism::IExecutionProviderFactory*
PrismDnnlCreateFactory(uint32_t interface_version) {
  if (interface_version != prism::kProviderInterfaceVersion) return nullptr;
  return new prism::dnnl_ep::DnnlExecutionProviderFactory();
}

// The op types the EP may claim, comma separated (tests compare them with
// tests/conformance/dnnl_claimed_ops.txt).
extern "C" __attribute__((visibility("default"))) const char* PrismDnnlClaimedOpTypes() {
  static const std::string list = [] {
    std::string text;
    for (const std::string& op : prism::dnnl_ep::ClaimedOpTypes())
      text += (text.empty() ? "" : ",") + op;
    return text;
  }();
  return list.c_str();
}

// Primitive sets built by every subgraph kernel of this process so far (tests check the cache).
extern "C" __attribute__((visibility("default"))) int64_t PrismDnnlPlansBuilt() {
  return prism::dnnl_ep::PlansBuilt();
}
