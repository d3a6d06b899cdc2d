#include "providers/dnnl/dnnl_execution_provider.h"

#include <map>

#include "common/logging.h"
#include "framework/fused_claim.h"
#include "framework/node_grouping.h"
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

// Groups: the accepted nodes in connected groups that keep the fused graph acyclic
// (framework/node_grouping.h).
std::vector<ComputeCapability> DnnlExecutionProvider::GetCapability(
    const GraphViewer& viewer, const KernelLookup&, std::vector<DeclinedNode>* declined) const {
  const Graph& graph = viewer.GetGraph();
  std::vector<bool> accepted(graph.NodeCount(), false);
  for (NodeIndex index : viewer.Nodes()) {
    const std::string reason = WhyNotSupported(viewer.GetNode(index), graph);
    if (reason.empty())
      accepted[index] = true;
    else if (declined)
      declined->push_back(DeclinedNode{index, reason});
  }
  std::vector<std::vector<NodeIndex>> groups = GroupAcceptedNodes(graph, accepted);
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
