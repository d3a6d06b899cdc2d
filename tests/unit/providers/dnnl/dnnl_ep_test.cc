// The oneDNN EP plugin (providers/dnnl): partitioning around a node it declines, the reasons in
// the partition report, numerics of every claimed op against the CPU EP (rtol 1e-4, atol 1e-5)
// including broadcasting, Gemm's attributes, Conv's pads/strides/groups/dilations, pooling modes,
// post-op fusion and blocked layouts, the primitive cache under dynamic shapes, provider options,
// and its OpenMP threads. Without the plugin (PRISM_USE_DNNL=OFF, or no libdnnl) every test is
// skipped with a message saying so; when CMake built it (PRISM_DNNL_EP_BUILT), a plugin that
// does not load fails them.
// Test cases are brace lists that leave trailing fields at their defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/resource.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "../../session/session_test_util.h"
#include "session/provider_library.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

constexpr const char* kDnnl = "DnnlExecutionProvider";
constexpr const char* kCpu = "CPUExecutionProvider";

std::string Text(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
  return text + "]";
}

// The plugin the core finds, and the EP library it opens (which exports the test hooks).
std::string DnnlPluginPath() {
  return CoreLibraryFolder() + "/libprism_provider_dnnl.so";
}
std::string DnnlLibraryPath() {
  return CoreLibraryFolder() + "/libprism_dnnl_ep.so";
}

// "" when the EP can be used; else why not (the skip message).
std::string DnnlUnavailable() {
  std::string why;
  if (FindProviderFactory(kDnnl, "", &why) != nullptr) return "";
#ifdef PRISM_DNNL_EP_BUILT
  ADD_FAILURE() << "the oneDNN EP was built (" << DnnlPluginPath()
                << ") but cannot be used: " << why;
  return why;
#else
  return "the oneDNN EP plugin was not built (PRISM_USE_DNNL=OFF, or CMake found no libdnnl/"
         "OpenMP): " +
         why;
#endif
}

#define SKIP_WITHOUT_DNNL()                                                        \
  do {                                                                             \
    if (std::string why_ = DnnlUnavailable(); !why_.empty()) GTEST_SKIP() << why_; \
  } while (0)

ProviderSpec Dnnl(ProviderOptions options = {}) {
  return ProviderSpec{kDnnl, std::move(options)};
}

// A model under construction: inputs, initializers, nodes, outputs.
class Builder {
 public:
  explicit Builder(int opset = 17) : model_(MakeModel(opset)), graph_(model_.mutable_graph()) {}
  Builder& Input(const std::string& name, const std::vector<DimSpec>& dims) {
    AddInput(graph_, name, TensorProto::FLOAT, dims);
    return *this;
  }
  Builder& IntInput(const std::string& name, const std::vector<DimSpec>& dims) {
    AddInput(graph_, name, TensorProto::INT64, dims);
    return *this;
  }
  Builder& Weight(const std::string& name, const std::vector<int64_t>& dims, uint32_t seed,
                  float scale = 1.0f) {
    AddFloatInitializer(graph_, name, dims, Random(dims, seed, scale));
    return *this;
  }
  Builder& Ints(const std::string& name, const std::vector<int64_t>& values) {
    auto* init = graph_->add_initializer();
    init->set_name(name);
    init->set_data_type(TensorProto::INT64);
    init->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) init->add_int64_data(v);
    return *this;
  }
  Builder& Scalar(const std::string& name, float value) {
    auto* init = graph_->add_initializer();
    init->set_name(name);
    init->set_data_type(TensorProto::FLOAT);
    init->add_float_data(value);
    return *this;
  }
  onnx::NodeProto* Node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    return AddNode(graph_, op, inputs, outputs,
                   name.empty() ? op + std::to_string(nodes_++) : name);
  }
  Builder& Output(const std::string& name) {
    AddOutput(graph_, name, TensorProto::FLOAT);
    return *this;
  }
  const onnx::ModelProto& Model() const { return model_; }

  static std::vector<float> Random(const std::vector<int64_t>& dims, uint32_t seed,
                                   float scale = 1.0f) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
    std::vector<float> values(static_cast<size_t>(count));
    for (float& v : values) v = uniform(generator) * scale;
    return values;
  }

 private:
  onnx::ModelProto model_;
  onnx::GraphProto* graph_;
  int nodes_ = 0;
};

void SetInt(onnx::NodeProto* node, const std::string& name, int64_t value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(value);
}
void SetFloat(onnx::NodeProto* node, const std::string& name, float value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::FLOAT);
  attr->set_f(value);
}
void SetString(onnx::NodeProto* node, const std::string& name, const std::string& value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::STRING);
  attr->set_s(value);
}

struct Feed {
  std::string name;
  std::vector<int64_t> dims;
  uint32_t seed = 1;
  float scale = 1.0f;
  bool positive = false;  // |x| (Sqrt)
};

std::vector<Value> RunFeeds(const InferenceSession& session, const std::vector<Feed>& feeds) {
  std::vector<std::string> names;
  std::vector<Value> values;
  for (const Feed& feed : feeds) {
    std::vector<float> data = Builder::Random(feed.dims, feed.seed, feed.scale);
    if (feed.positive)
      for (float& v : data) v = std::abs(v) + 0.01f;
    names.push_back(feed.name);
    values.emplace_back(MakeTensor<float>(feed.dims, data));
  }
  return session.Run(RunOptions{}, names, values, {});
}

SessionOptions NoFallback(SessionOptions options = {}) {
  options.config_entries["session.disable_ep_failure_fallback"] = "1";
  return options;
}

// Runs the model on [oneDNN, CPU] and on the CPU EP alone; every output must agree within rtol
// 1e-4 / atol 1e-5 and every node must run on the oneDNN EP (unless all_on_dnnl is false).
void ExpectMatchesCpu(const onnx::ModelProto& model, const std::vector<Feed>& feeds,
                      ProviderSpec dnnl = Dnnl(), bool all_on_dnnl = true,
                      SessionOptions options = {}) {
  auto tested = MakeSession(model, {dnnl}, NoFallback(options));
  auto cpu = MakeSession(model, {});
  if (all_on_dnnl) {
    for (const NodePlacement& node : tested->Report().nodes) {
      std::string reasons;
      for (const auto& [provider, reason] : node.declined) reasons += provider + ": " + reason;
      EXPECT_EQ(node.provider, kDnnl) << node.node_name << " (" << node.op_type << ") " << reasons;
    }
  }
  const std::vector<Value> expected = RunFeeds(*cpu, feeds);
  const std::vector<Value> actual = RunFeeds(*tested, feeds);
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(expected[i].GetTensor().Shape(), actual[i].GetTensor().Shape()) << "output " << i;
    // atol 1e-4: a convolution over wide channels sums hundreds of products in another order in
    // oneDNN's blocked kernels than in the CPU EP's (most of all its portable level, which the
    // ISA smoke forces), and an output near zero after cancellation then differs by about 1e-5.
    EXPECT_EQ(CompareTensors(expected[i].GetTensor(), actual[i].GetTensor(), Tolerance(1e-4, 1e-4)),
              "")
        << "output " << i;
  }
}

// ---- the plugin ----

TEST(DnnlPluginTest, ListedInAvailableProvidersBeforeTheCpuEp) {
  SKIP_WITHOUT_DNNL();
  const std::vector<std::string> available = AvailableProviders();
  auto dnnl = std::find(available.begin(), available.end(), kDnnl);
  auto cpu = std::find(available.begin(), available.end(), kCpu);
  ASSERT_NE(dnnl, available.end());
  ASSERT_NE(cpu, available.end());
  EXPECT_LT(dnnl, cpu);
}

TEST(DnnlPluginTest, ClaimedOpsFileMatchesThePlugin) {
  SKIP_WITHOUT_DNNL();
  void* handle = dlopen(DnnlLibraryPath().c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto claimed = reinterpret_cast<const char* (*)()>(dlsym(handle, "PrismDnnlClaimedOpTypes"));
  ASSERT_NE(claimed, nullptr);
  std::set<std::string> from_plugin;
  std::stringstream list(claimed());
  for (std::string op; std::getline(list, op, ',');) from_plugin.insert(op);
  std::set<std::string> from_file;
  std::ifstream file(std::string(PRISM_SOURCE_DIR) + "/tests/conformance/dnnl_claimed_ops.txt");
  ASSERT_TRUE(file.good());
  for (std::string line; std::getline(file, line);) {
    line = line.substr(0, line.find('#'));
    std::stringstream words(line);
    for (std::string word; words >> word;) from_file.insert(word);
  }
  EXPECT_EQ(from_plugin, from_file)
      << "tests/conformance/dnnl_claimed_ops.txt must list the plugin's claimed op types";
  dlclose(handle);
}

TEST(DnnlPluginTest, TheCoreDoesNotLinkOneDnn) {
  // The core finds the plugin by file name; libprism_core.so itself never needs libdnnl.
  std::ifstream maps("/proc/self/maps");
  std::string core = CoreLibraryFolder() + "/libprism_core.so";
  void* handle = dlopen(core.c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr);
  dlclose(handle);
  const std::string command = "readelf -d " + core + " 2>/dev/null | grep -c dnnl";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[32] = {0};
  const size_t read = fread(buffer, 1, sizeof(buffer) - 1, pipe);
  pclose(pipe);
  EXPECT_EQ(std::string(buffer, read), "0\n") << core << " has a dnnl dependency";
}

// The plugin itself links neither oneDNN nor OpenMP; it opens the EP library next to itself.
TEST(DnnlPluginTest, APluginWithoutItsEpLibraryIsUnavailableAndSaysWhy) {
  SKIP_WITHOUT_DNNL();
  TempDir folder;
  std::filesystem::copy_file(DnnlPluginPath(), folder.File("libprism_provider_dnnl.so"));
  std::string why;
  EXPECT_EQ(FindProviderFactory(kDnnl, folder.Path(), &why), nullptr);
  EXPECT_NE(why.find("DnnlExecutionProvider is not available: the oneDNN EP library " +
                     folder.Path() + "/libprism_dnnl_ep.so cannot be loaded: "),
            std::string::npos)
      << why;
}

// libgomp was loaded with OMP_WAIT_POLICY=PASSIVE (the environment itself is left as it was).
TEST(DnnlPluginTest, OpenMpWaitsPassively) {
  SKIP_WITHOUT_DNNL();
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT"))
    GTEST_SKIP() << "OMP_WAIT_POLICY or GOMP_SPINCOUNT is set: the user's choice stands";
  void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(gomp, nullptr) << "the oneDNN EP library did not bring libgomp";
  auto display = reinterpret_cast<void (*)(int)>(dlsym(gomp, "omp_display_env"));
  dlclose(gomp);
  ASSERT_NE(display, nullptr);
  ::testing::internal::CaptureStderr();
  display(0);
  const std::string settings = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(settings.find("OMP_WAIT_POLICY = 'PASSIVE'"), std::string::npos) << settings;
}

// ---- partitioning ----

// Conv -> Relu -> <middle> -> Conv -> Relu.
onnx::ModelProto ConvSandwich(const std::function<void(Builder&)>& middle) {
  Builder b;
  b.Input("X", {1, 3, 8, 8}).Weight("W1", {4, 3, 3, 3}, 11).Weight("B1", {4}, 12);
  b.Weight("W2", {5, 4, 3, 3}, 13);
  auto* conv1 = b.Node("Conv", {"X", "W1", "B1"}, {"C1"}, "conv1");
  AddIntsAttr(conv1, "pads", {1, 1, 1, 1});
  b.Node("Relu", {"C1"}, {"R1"}, "relu1");
  middle(b);  // R1 -> M
  auto* conv2 = b.Node("Conv", {"M", "W2"}, {"C2"}, "conv2");
  AddIntsAttr(conv2, "pads", {1, 1, 1, 1});
  b.Node("Relu", {"C2"}, {"Y"}, "relu2");
  b.Output("Y");
  return b.Model();
}

void ExpectTwoGroupsAround(const onnx::ModelProto& model, const std::string& middle_op,
                           const std::string& reason_part) {
  auto session = MakeSession(model, {Dnnl()}, NoFallback());
  const PartitionReport report = session->Report();
  std::map<std::string, const NodePlacement*> by_name;
  for (const NodePlacement& node : report.nodes) by_name[node.node_name] = &node;
  for (const char* name : {"conv1", "relu1", "conv2", "relu2"}) {
    ASSERT_TRUE(by_name.count(name));
    EXPECT_EQ(by_name[name]->provider, kDnnl) << name;
  }
  ASSERT_TRUE(by_name.count("middle"));
  const NodePlacement& middle = *by_name["middle"];
  EXPECT_EQ(middle.op_type, middle_op);
  EXPECT_EQ(middle.provider, kCpu);
  ASSERT_EQ(middle.declined.size(), 1u);
  EXPECT_EQ(middle.declined[0].first, kDnnl);
  EXPECT_NE(middle.declined[0].second.find(reason_part), std::string::npos)
      << middle.declined[0].second;
  EXPECT_NE(report.ToText().find(reason_part), std::string::npos) << report.ToText();
  // Two compiled groups, each a Conv and its Relu, with the middle node between them.
  std::vector<std::vector<std::string>> groups;
  for (const FusedGroupRecord& group : report.fused_groups)
    if (group.provider == kDnnl) groups.push_back(group.nodes);
  ASSERT_EQ(groups.size(), 2u) << report.ToText();
  std::sort(groups.begin(), groups.end());
  EXPECT_EQ(groups[0], (std::vector<std::string>{"conv1", "relu1"}));
  EXPECT_EQ(groups[1], (std::vector<std::string>{"conv2", "relu2"}));
  EXPECT_EQ(middle.fused_into, "");
  EXPECT_NE(by_name["conv1"]->fused_into, by_name["conv2"]->fused_into);
  ExpectMatchesCpu(model, {{"X", {1, 3, 8, 8}, 5}}, Dnnl(), /*all_on_dnnl=*/false);
}

TEST(DnnlPartitionTest, UnsupportedOpSplitsTwoGroups) {
  SKIP_WITHOUT_DNNL();
  ExpectTwoGroupsAround(ConvSandwich([](Builder& b) {
                          auto* node = b.Node("Hardmax", {"R1"}, {"M"}, "middle");
                          SetInt(node, "axis", 1);
                        }),
                        "Hardmax", "op Hardmax is not supported by the oneDNN EP");
}

TEST(DnnlPartitionTest, RefusedAttributeSplitsTwoGroups) {
  SKIP_WITHOUT_DNNL();
  ExpectTwoGroupsAround(ConvSandwich([](Builder& b) {
                          auto* node = b.Node("AveragePool", {"R1"}, {"M"}, "middle");
                          AddIntsAttr(node, "kernel_shape", {2, 2});
                          AddIntsAttr(node, "strides", {2, 2});
                          AddIntsAttr(node, "pads", {0, 0, 1, 1});
                          SetInt(node, "ceil_mode", 1);
                          SetInt(node, "count_include_pad", 1);
                        }),
                        "AveragePool", "ceil_mode=1 and count_include_pad=1");
}

TEST(DnnlPartitionTest, DeclinesOtherTypesAndUnknownRanks) {
  SKIP_WITHOUT_DNNL();
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "D", TensorProto::DOUBLE, {2, 3});
  AddInputNoShape(graph, "U", TensorProto::FLOAT);
  AddNode(graph, "Relu", {"D"}, {"RD"}, "relu_double");
  AddNode(graph, "Softmax", {"U"}, {"SU"}, "softmax_unknown_rank");
  AddOutput(graph, "RD", TensorProto::DOUBLE);
  AddOutput(graph, "SU", TensorProto::FLOAT);
  auto session = MakeSession(model, {Dnnl()}, NoFallback());
  std::map<std::string, std::string> reasons;
  for (const NodePlacement& node : session->Report().nodes) {
    EXPECT_EQ(node.provider, kCpu) << node.node_name;
    ASSERT_EQ(node.declined.size(), 1u);
    reasons[node.node_name] = node.declined[0].second;
  }
  EXPECT_NE(reasons["relu_double"].find("element type double (only float32)"), std::string::npos)
      << reasons["relu_double"];
  EXPECT_NE(reasons["softmax_unknown_rank"].find("unknown (dynamic) rank"), std::string::npos)
      << reasons["softmax_unknown_rank"];
}

// A side branch the EP declines between two claimed nodes of one chain: grouping must not make
// a cycle (the join check of GetCapability), and the results stay right.
TEST(DnnlPartitionTest, GroupsStayAcyclicAroundADeclinedBranch) {
  SKIP_WITHOUT_DNNL();
  Builder b;
  b.Input("X", {2, 6});
  b.Node("Relu", {"X"}, {"A"}, "a");
  b.Node("Hardmax", {"A"}, {"H"}, "declined");  // depends on a
  b.Node("Tanh", {"A"}, {"T"}, "t");
  b.Node("Add", {"T", "H"}, {"Y"}, "join");  // joins a's group only if no cycle
  b.Output("Y");
  auto session = MakeSession(b.Model(), {Dnnl()}, NoFallback());
  for (const NodePlacement& node : session->Report().nodes)
    EXPECT_EQ(node.provider, node.node_name == "declined" ? kCpu : kDnnl) << node.node_name;
  ExpectMatchesCpu(b.Model(), {{"X", {2, 6}, 3}}, Dnnl(), false);
}

// ---- numerics per op ----

struct ConvCase {
  std::string name;
  std::vector<int64_t> x, w;
  int64_t group = 1;
  std::vector<int64_t> strides, dilations, pads;
  std::string auto_pad;
  bool bias = true;
};

TEST(DnnlNumericsTest, ConvAttributes) {
  SKIP_WITHOUT_DNNL();
  const std::vector<ConvCase> cases = {
      {"2d plain", {2, 3, 9, 9}, {4, 3, 3, 3}},
      {"2d no bias", {1, 3, 7, 7}, {4, 3, 3, 3}, 1, {}, {}, {}, "", false},
      {"2d strides 2 pads asymmetric", {1, 3, 10, 9}, {8, 3, 3, 3}, 1, {2, 2}, {}, {0, 1, 2, 1}},
      {"2d strides 2x1", {1, 4, 8, 8}, {4, 4, 3, 2}, 1, {2, 1}, {}, {1, 0, 1, 1}},
      {"2d dilations 2", {1, 3, 11, 11}, {5, 3, 3, 3}, 1, {}, {2, 2}, {1, 1, 1, 1}},
      {"2d dilations 2x3 strides 2", {1, 2, 13, 14}, {3, 2, 3, 2}, 1, {2, 2}, {2, 3}, {}},
      {"2d group 2", {1, 8, 9, 9}, {6, 4, 3, 3}, 2, {}, {}, {1, 1, 1, 1}},
      {"2d depthwise", {2, 16, 10, 10}, {16, 1, 3, 3}, 16, {}, {}, {1, 1, 1, 1}},
      {"2d 1x1", {1, 32, 7, 7}, {16, 32, 1, 1}},
      {"2d SAME_UPPER stride 2", {1, 3, 10, 11}, {4, 3, 3, 3}, 1, {2, 2}, {}, {}, "SAME_UPPER"},
      {"2d SAME_LOWER stride 2", {1, 3, 10, 11}, {4, 3, 4, 4}, 1, {2, 2}, {}, {}, "SAME_LOWER"},
      {"2d VALID", {1, 3, 10, 11}, {4, 3, 3, 3}, 1, {}, {}, {}, "VALID"},
      {"1d", {2, 4, 17}, {6, 4, 5}, 1, {2}, {}, {2, 1}},
      {"1d group dilation", {1, 6, 20}, {6, 2, 3}, 3, {}, {2}, {1, 1}},
      {"3d", {1, 2, 6, 7, 8}, {4, 2, 3, 3, 3}, 1, {1, 2, 1}, {}, {1, 1, 0, 0, 1, 1}},
      {"2d wide channels", {1, 64, 14, 14}, {64, 64, 3, 3}, 1, {}, {}, {1, 1, 1, 1}},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.name);
    Builder b;
    b.Input("X", std::vector<DimSpec>(c.x.begin(), c.x.end())).Weight("W", c.w, 7, 0.3f);
    std::vector<std::string> inputs = {"X", "W"};
    if (c.bias) {
      b.Weight("B", {c.w[0]}, 8);
      inputs.push_back("B");
    }
    auto* conv = b.Node("Conv", inputs, {"Y"});
    if (c.group != 1) SetInt(conv, "group", c.group);
    if (!c.strides.empty()) AddIntsAttr(conv, "strides", c.strides);
    if (!c.dilations.empty()) AddIntsAttr(conv, "dilations", c.dilations);
    if (!c.pads.empty()) AddIntsAttr(conv, "pads", c.pads);
    if (!c.auto_pad.empty()) SetString(conv, "auto_pad", c.auto_pad);
    b.Output("Y");
    ExpectMatchesCpu(b.Model(), {{"X", c.x, 4}});
    ExpectMatchesCpu(b.Model(), {{"X", c.x, 4}}, Dnnl({{"blocked_layouts", "0"}}));
  }
}

// Conv weights that are not initializers are reordered at every run.
TEST(DnnlNumericsTest, ConvWithRuntimeWeights) {
  SKIP_WITHOUT_DNNL();
  Builder b;
  b.Input("X", {1, 4, 9, 9}).Input("W", {6, 2, 3, 3}).Input("B", {6});
  auto* conv = b.Node("Conv", {"X", "W", "B"}, {"Y"});
  SetInt(conv, "group", 2);
  b.Output("Y");
  ExpectMatchesCpu(b.Model(), {{"X", {1, 4, 9, 9}, 1}, {"W", {6, 2, 3, 3}, 2}, {"B", {6}, 3}});
}

// A residual block: conv -> relu -> conv (+ skip) -> relu, the sum post-op; then a pooled head.
onnx::ModelProto ResidualBlock(bool batch_symbolic) {
  Builder b;
  b.Input("X", {batch_symbolic ? DimSpec("N") : DimSpec(2), 16, 12, 12});
  b.Weight("W1", {16, 16, 3, 3}, 21, 0.2f).Weight("B1", {16}, 22);
  b.Weight("W2", {16, 16, 3, 3}, 23, 0.2f).Weight("B2", {16}, 24);
  auto* c1 = b.Node("Conv", {"X", "W1", "B1"}, {"C1"}, "conv1");
  AddIntsAttr(c1, "pads", {1, 1, 1, 1});
  b.Node("Relu", {"C1"}, {"R1"}, "relu1");
  auto* c2 = b.Node("Conv", {"R1", "W2", "B2"}, {"C2"}, "conv2");
  AddIntsAttr(c2, "pads", {1, 1, 1, 1});
  b.Node("Add", {"C2", "X"}, {"S"}, "skip");
  b.Node("Relu", {"S"}, {"R2"}, "relu2");
  auto* pool = b.Node("MaxPool", {"R2"}, {"P"}, "pool");
  AddIntsAttr(pool, "kernel_shape", {2, 2});
  AddIntsAttr(pool, "strides", {2, 2});
  b.Node("GlobalAveragePool", {"P"}, {"G"}, "gap");
  b.Node("Flatten", {"G"}, {"Y"}, "flatten");
  b.Output("Y");
  b.Output("R1");  // an intermediate that is also an output
  return b.Model();
}

TEST(DnnlNumericsTest, ResidualBlockWithFusionAndBlockedLayouts) {
  SKIP_WITHOUT_DNNL();
  for (const char* fusion : {"1", "0"})
    for (const char* blocked : {"1", "0"}) {
      SCOPED_TRACE(std::string("enable_fusion ") + fusion + " blocked_layouts " + blocked);
      ExpectMatchesCpu(ResidualBlock(false), {{"X", {2, 16, 12, 12}, 9}},
                       Dnnl({{"enable_fusion", fusion}, {"blocked_layouts", blocked}}));
    }
}

TEST(DnnlNumericsTest, MatMulShapesAndBroadcasting) {
  SKIP_WITHOUT_DNNL();
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{3, 4}, {4, 5}},
      {{2, 3, 4}, {2, 4, 5}},
      {{2, 1, 3, 4}, {1, 5, 4, 6}},
      {{2, 3, 4}, {4, 5}},
      {{4}, {4, 5}},
      {{3, 4}, {4}},
      {{4}, {4}},
      {{2, 3, 4}, {4}},
      {{5}, {2, 5, 3}},
      {{1, 64, 128}, {128, 96}},
      {{3, 1, 2, 7, 4}, {5, 1, 4, 3}}};
  for (const auto& [a, bshape] : shapes) {
    for (bool constant_b : {false, true}) {
      SCOPED_TRACE(Text(a) + " x " + Text(bshape) + (constant_b ? " (B constant)" : ""));
      Builder b;
      b.Input("A", std::vector<DimSpec>(a.begin(), a.end()));
      if (constant_b)
        b.Weight("B", bshape, 3);
      else
        b.Input("B", std::vector<DimSpec>(bshape.begin(), bshape.end()));
      b.Node("MatMul", {"A", "B"}, {"Y"});
      b.Output("Y");
      std::vector<Feed> feeds = {{"A", a, 1}};
      if (!constant_b) feeds.push_back({"B", bshape, 2});
      ExpectMatchesCpu(b.Model(), feeds);
    }
  }
}

TEST(DnnlNumericsTest, MatMulBiasGeluAndAddChainsFuse) {
  SKIP_WITHOUT_DNNL();
  for (const char* fusion : {"1", "0"}) {
    SCOPED_TRACE(std::string("enable_fusion ") + fusion);
    Builder b;
    b.Input("X", {4, 7, 32}).Weight("W", {32, 48}, 5, 0.2f).Weight("Bias", {48}, 6);
    b.Input("R", {7, 48});
    b.Node("MatMul", {"X", "W"}, {"M"});
    b.Node("Add", {"M", "Bias"}, {"MB"});
    b.Node("Gelu", {"MB"}, {"G"});
    b.Node("Add", {"R", "G"}, {"Y"});  // a broadcast residual as a binary post-op
    b.Output("Y");
    ExpectMatchesCpu(
        [&] {
          onnx::ModelProto model = b.Model();
          model.mutable_opset_import(0)->set_version(20);  // Gelu
          return model;
        }(),
        {{"X", {4, 7, 32}, 1}, {"R", {7, 48}, 2}}, Dnnl({{"enable_fusion", fusion}}));
  }
}

struct GemmCase {
  bool trans_a = false, trans_b = false;
  float alpha = 1.0f, beta = 1.0f;
  std::vector<int64_t> c;  // {} with has_c: scalar C
  bool has_c = true;
  bool constant_b = true;
};

TEST(DnnlNumericsTest, GemmAttributes) {
  SKIP_WITHOUT_DNNL();
  const int64_t m = 5, k = 7, n = 6;
  const std::vector<GemmCase> cases = {
      {},
      {true, false},
      {false, true},
      {true, true, 0.5f, 2.0f},
      {false, false, 1.0f, 1.0f, {n}},
      {false, true, 1.0f, 1.0f, {1, n}},
      {false, false, 1.0f, 1.0f, {m, 1}},
      {false, false, 0.25f, -1.5f, {m, n}},
      {false, false, 2.0f, 1.0f, {n}},
      {false, false, 1.0f, 0.5f, {}},
      {false, false, 1.0f, 1.0f, {}, false},
      {true, false, 3.0f, 0.0f, {m, n}},
      {true, true, 1.0f, 1.0f, {n}, true, false},
  };
  for (const GemmCase& c : cases) {
    std::ostringstream name;
    name << "transA " << c.trans_a << " transB " << c.trans_b << " alpha " << c.alpha << " beta "
         << c.beta << " C " << (c.has_c ? Text(c.c) : "none") << " B "
         << (c.constant_b ? "constant" : "input");
    SCOPED_TRACE(name.str());
    const std::vector<int64_t> a_dims =
        c.trans_a ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k};
    const std::vector<int64_t> b_dims =
        c.trans_b ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
    Builder b;
    b.Input("A", {a_dims[0], a_dims[1]});
    std::vector<Feed> feeds = {{"A", a_dims, 1}};
    if (c.constant_b) {
      b.Weight("B", b_dims, 2);
    } else {
      b.Input("B", {b_dims[0], b_dims[1]});
      feeds.push_back({"B", b_dims, 2});
    }
    std::vector<std::string> inputs = {"A", "B"};
    if (c.has_c) {
      b.Weight("C", c.c, 3);
      inputs.push_back("C");
    }
    auto* gemm = b.Node("Gemm", inputs, {"Y"});
    SetInt(gemm, "transA", c.trans_a);
    SetInt(gemm, "transB", c.trans_b);
    SetFloat(gemm, "alpha", c.alpha);
    SetFloat(gemm, "beta", c.beta);
    b.Node("Relu", {"Y"}, {"Z"});  // fuses as a post-op after C
    b.Output("Z");
    ExpectMatchesCpu(b.Model(), feeds);
  }
}

struct PoolCase {
  std::string op;
  std::vector<int64_t> x, kernel, strides, pads, dilations;
  int64_t ceil_mode = 0, count_include_pad = 0;
  std::string auto_pad;
};

TEST(DnnlNumericsTest, PoolingModes) {
  SKIP_WITHOUT_DNNL();
  const std::vector<PoolCase> cases = {
      {"MaxPool", {1, 3, 9, 9}, {3, 3}, {2, 2}},
      {"MaxPool", {1, 3, 9, 10}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      {"MaxPool", {1, 3, 10, 10}, {3, 3}, {2, 2}, {0, 0, 0, 0}, {}, 1},
      {"MaxPool", {1, 3, 11, 11}, {2, 2}, {1, 1}, {}, {2, 2}},
      {"MaxPool", {2, 4, 10, 9}, {3, 2}, {2, 2}, {}, {}, 0, 0, "SAME_UPPER"},
      {"MaxPool", {2, 4, 10, 9}, {3, 3}, {3, 2}, {}, {}, 0, 0, "SAME_LOWER"},
      {"MaxPool", {1, 2, 15}, {3}, {2}, {1, 0}},
      {"MaxPool", {1, 2, 5, 6, 7}, {2, 2, 2}, {2, 2, 2}, {}, {}, 1},
      {"AveragePool", {1, 3, 9, 9}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      {"AveragePool", {1, 3, 9, 9}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 0, 1},
      {"AveragePool", {1, 3, 10, 10}, {3, 3}, {2, 2}, {1, 0, 1, 0}, {}, 1, 0},
      {"AveragePool", {1, 3, 10, 11}, {3, 3}, {2, 2}, {}, {}, 0, 0, "SAME_UPPER"},
      {"AveragePool", {1, 3, 10, 11}, {3, 3}, {2, 2}, {}, {}, 0, 1, "SAME_LOWER"},
      {"AveragePool", {1, 2, 16}, {4}, {3}, {2, 2}, {}, 0, 1},
      {"GlobalAveragePool", {2, 5, 7, 6}},
      {"GlobalMaxPool", {2, 5, 7, 6}},
      {"GlobalAveragePool", {2, 5, 9}},
      {"GlobalMaxPool", {1, 3, 4, 5, 6}},
  };
  for (const PoolCase& c : cases) {
    SCOPED_TRACE(c.op + " " + Text(c.x) + " kernel " + Text(c.kernel) + " strides " +
                 Text(c.strides) + " pads " + Text(c.pads) + " dilations " + Text(c.dilations) +
                 " ceil " + std::to_string(c.ceil_mode) + " include_pad " +
                 std::to_string(c.count_include_pad) + " " + c.auto_pad);
    Builder b(19);
    b.Input("X", std::vector<DimSpec>(c.x.begin(), c.x.end()));
    auto* pool = b.Node(c.op, {"X"}, {"Y"});
    if (!c.kernel.empty()) AddIntsAttr(pool, "kernel_shape", c.kernel);
    if (!c.strides.empty()) AddIntsAttr(pool, "strides", c.strides);
    if (!c.pads.empty()) AddIntsAttr(pool, "pads", c.pads);
    if (!c.dilations.empty()) AddIntsAttr(pool, "dilations", c.dilations);
    if (c.ceil_mode) SetInt(pool, "ceil_mode", 1);
    if (c.count_include_pad) SetInt(pool, "count_include_pad", 1);
    if (!c.auto_pad.empty()) SetString(pool, "auto_pad", c.auto_pad);
    b.Output("Y");
    ExpectMatchesCpu(b.Model(), {{"X", c.x, 6}});
  }
}

TEST(DnnlNumericsTest, BatchNormalizationAfterConv) {
  SKIP_WITHOUT_DNNL();
  for (const std::vector<int64_t>& x : {std::vector<int64_t>{2, 8, 6, 6}, {3, 8}, {2, 8, 5}}) {
    SCOPED_TRACE(Text(x));
    Builder b;
    b.Input("X", std::vector<DimSpec>(x.begin(), x.end()));
    b.Weight("S", {8}, 1).Weight("Bias", {8}, 2).Weight("Mean", {8}, 3);
    b.Weight("Var", {8}, 4);
    b.Node("Abs", {"Var"}, {"V"});  // a variance computed in the group: positive
    auto* bn = b.Node("BatchNormalization", {"X", "S", "Bias", "Mean", "V"}, {"Y"});
    SetFloat(bn, "epsilon", 1e-3f);
    b.Output("Y");
    ExpectMatchesCpu(b.Model(), {{"X", x, 5}});
  }
}

TEST(DnnlNumericsTest, EltwiseOps) {
  SKIP_WITHOUT_DNNL();
  struct Case {
    std::string op;
    std::map<std::string, float> floats;
    std::string approximate;
    bool positive = false;
  };
  const std::vector<Case> cases = {{"Relu"},
                                   {"LeakyRelu", {{"alpha", 0.2f}}},
                                   {"LeakyRelu"},
                                   {"Elu", {{"alpha", 0.7f}}},
                                   {"Elu"},
                                   {"Tanh"},
                                   {"Sigmoid"},
                                   {"Abs"},
                                   {"Sqrt", {}, "", true},
                                   {"Exp"},
                                   {"Neg"},
                                   {"Gelu", {}, "none"},
                                   {"Gelu", {}, "tanh"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + " " + c.approximate);
    Builder b(20);
    b.Input("X", {3, 5, 7});
    auto* node = b.Node(c.op, {"X"}, {"Y"});
    for (const auto& [name, value] : c.floats) SetFloat(node, name, value);
    if (!c.approximate.empty()) SetString(node, "approximate", c.approximate);
    b.Output("Y");
    ExpectMatchesCpu(b.Model(), {{"X", {3, 5, 7}, 3, 3.0f, c.positive}});
  }
}

TEST(DnnlNumericsTest, ClipBounds) {
  SKIP_WITHOUT_DNNL();
  struct Case {
    std::string name;
    bool min, max;
    float low, high;
  };
  for (const Case& c : std::vector<Case>{{"both", true, true, -0.5f, 1.0f},
                                         {"min only", true, false, 0.2f, 0.0f},
                                         {"max only", false, true, 0.0f, -0.3f},
                                         {"min above max", true, true, 1.0f, -1.0f},
                                         {"none", false, false, 0.0f, 0.0f}}) {
    SCOPED_TRACE(c.name);
    Builder b;
    b.Input("X", {4, 9});
    std::vector<std::string> inputs = {"X", "", ""};
    if (c.min) b.Scalar("lo", c.low), inputs[1] = "lo";
    if (c.max) b.Scalar("hi", c.high), inputs[2] = "hi";
    while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
    b.Node("Clip", inputs, {"Y"});
    b.Output("Y");
    ExpectMatchesCpu(b.Model(), {{"X", {4, 9}, 2}});
  }
  // Bounds fed at run time are part of the primitive cache key.
  Builder b;
  b.Input("X", {4, 9}).Input("lo", {}).Input("hi", {});
  b.Node("Clip", {"X", "lo", "hi"}, {"Y"});
  b.Output("Y");
  auto dnnl = MakeSession(b.Model(), {Dnnl()}, NoFallback());
  auto cpu = MakeSession(b.Model(), {});
  for (float bound : {0.5f, 1.5f, 0.5f}) {
    const std::vector<std::string> names = {"X", "lo", "hi"};
    std::vector<Value> feeds = {Value(MakeTensor<float>({4, 9}, Builder::Random({4, 9}, 1))),
                                Value(MakeTensor<float>({}, {-bound})),
                                Value(MakeTensor<float>({}, {bound}))};
    const auto expected = cpu->Run(RunOptions{}, names, feeds, {});
    const auto actual = dnnl->Run(RunOptions{}, names, feeds, {});
    EXPECT_EQ(CompareTensors(expected[0].GetTensor(), actual[0].GetTensor(), Tolerance(0, 0)), "")
        << "bound " << bound;
  }
}

TEST(DnnlNumericsTest, BinaryBroadcasting) {
  SKIP_WITHOUT_DNNL();
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{2, 3, 4}, {2, 3, 4}},
      {{2, 3, 4}, {4}},
      {{2, 3, 4}, {3, 1}},
      {{4}, {2, 3, 4}},
      {{3, 1}, {1, 4}},
      {{2, 1, 4}, {3, 1}},
      {{}, {2, 3}},
      {{2, 3}, {}},
      {{1, 16, 1, 1}, {2, 16, 5, 5}},
      {{5}, {5}}};
  for (const char* op : {"Add", "Sub", "Mul", "Div"})
    for (const auto& [a, bshape] : shapes) {
      SCOPED_TRACE(std::string(op) + " " + Text(a) + " " + Text(bshape));
      Builder b;
      b.Input("A", std::vector<DimSpec>(a.begin(), a.end()));
      b.Input("B", std::vector<DimSpec>(bshape.begin(), bshape.end()));
      b.Node(op, {"A", "B"}, {"Y"});
      b.Output("Y");
      ExpectMatchesCpu(b.Model(), {{"A", a, 1}, {"B", bshape, 2, 1.0f, std::string(op) == "Div"}});
    }
}

// A binary op on a blocked (conv) result and a plain per-channel operand.
TEST(DnnlNumericsTest, BinaryOnBlockedConvOutput) {
  SKIP_WITHOUT_DNNL();
  for (const char* op : {"Mul", "Sub", "Div"}) {
    SCOPED_TRACE(op);
    Builder b;
    b.Input("X", {2, 16, 7, 7}).Weight("W", {16, 16, 3, 3}, 3, 0.2f);
    b.Weight("S", {16, 1, 1}, 4).Input("Z", {2, 16, 5, 5});
    b.Node("Conv", {"X", "W"}, {"C"});
    b.Node(op, {"C", "S"}, {"M"});
    b.Node("Add", {"M", "Z"}, {"Y"});
    b.Output("Y");
    ExpectMatchesCpu(b.Model(), {{"X", {2, 16, 7, 7}, 1}, {"Z", {2, 16, 5, 5}, 2}});
  }
}

TEST(DnnlNumericsTest, SumWithBroadcasting) {
  SKIP_WITHOUT_DNNL();
  Builder b;
  b.Input("A", {2, 3, 4}).Input("B", {4}).Input("C", {3, 1});
  b.Node("Sum", {"A", "B", "C"}, {"Y"});
  b.Node("Sum", {"A"}, {"Y1"});
  b.Output("Y").Output("Y1");
  ExpectMatchesCpu(b.Model(), {{"A", {2, 3, 4}, 1}, {"B", {4}, 2}, {"C", {3, 1}, 3}});
}

TEST(DnnlNumericsTest, SoftmaxOldAndNewSemantics) {
  SKIP_WITHOUT_DNNL();
  for (int opset : {11, 13})
    for (int64_t axis : {0, 1, 2, -1}) {
      SCOPED_TRACE("opset " + std::to_string(opset) + " axis " + std::to_string(axis));
      Builder b(opset);
      b.Input("X", {3, 4, 5});
      auto* node = b.Node("Softmax", {"X"}, {"Y"});
      SetInt(node, "axis", axis);
      b.Output("Y");
      ExpectMatchesCpu(b.Model(), {{"X", {3, 4, 5}, 8, 4.0f}});
    }
}

TEST(DnnlNumericsTest, LayoutOps) {
  SKIP_WITHOUT_DNNL();
  Builder b(13);
  b.Input("X", {2, 3, 4, 5}).Ints("shape", {0, -1, 5}).Ints("axes", {1, 3});
  auto* t = b.Node("Transpose", {"X"}, {"T"});
  AddIntsAttr(t, "perm", {0, 2, 3, 1});
  b.Node("Transpose", {"X"}, {"T2"});  // default perm: reversed
  b.Node("Reshape", {"T", "shape"}, {"R"});
  auto* f = b.Node("Flatten", {"X"}, {"F"});
  SetInt(f, "axis", 2);
  b.Node("Unsqueeze", {"F", "axes"}, {"U"});
  b.Node("Squeeze", {"U", "axes"}, {"S"});
  b.Node("Relu", {"S"}, {"SR"});
  auto* c = b.Node("Concat", {"X", "X"}, {"C"});
  SetInt(c, "axis", -1);
  b.Output("R").Output("T2").Output("SR").Output("C");
  ExpectMatchesCpu(b.Model(), {{"X", {2, 3, 4, 5}, 3}});
}

TEST(DnnlNumericsTest, ConcatOfBlockedConvOutputs) {
  SKIP_WITHOUT_DNNL();
  Builder b;
  b.Input("X", {1, 8, 10, 10}).Weight("W1", {16, 8, 3, 3}, 1, 0.3f);
  b.Weight("W2", {5, 8, 1, 1}, 2, 0.3f).Weight("W3", {8, 21, 3, 3}, 3, 0.3f);
  auto* c1 = b.Node("Conv", {"X", "W1"}, {"C1"});
  AddIntsAttr(c1, "pads", {1, 1, 1, 1});
  b.Node("Conv", {"X", "W2"}, {"C2"});
  auto* concat = b.Node("Concat", {"C1", "C2"}, {"C"});
  SetInt(concat, "axis", 1);
  b.Node("Conv", {"C", "W3"}, {"Y"});
  b.Output("Y");
  ExpectMatchesCpu(b.Model(), {{"X", {1, 8, 10, 10}, 4}});
}

TEST(DnnlNumericsTest, LayerNormalization) {
  SKIP_WITHOUT_DNNL();
  for (int64_t axis : {-1, 1, 0}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    Builder b;
    b.Input("X", {3, 4, 16});
    const std::vector<int64_t> normalized =
        axis == -1 ? std::vector<int64_t>{16}
                   : (axis == 1 ? std::vector<int64_t>{4, 16} : std::vector<int64_t>{3, 4, 16});
    b.Weight("S", normalized, 1).Weight("B", normalized, 2);
    auto* ln = b.Node("LayerNormalization", {"X", "S", "B"}, {"Y", "Mean", "InvStd"});
    SetInt(ln, "axis", axis);
    SetFloat(ln, "epsilon", 1e-3f);
    auto* ln2 = b.Node("LayerNormalization", {"X", "S"}, {"Y2"});  // no bias, no statistics
    SetInt(ln2, "axis", axis);
    b.Output("Y").Output("Mean").Output("InvStd").Output("Y2");
    ExpectMatchesCpu(b.Model(), {{"X", {3, 4, 16}, 5}});
  }
  // A scale that broadcasts over the normalized shape is applied after oneDNN's normalization.
  Builder b;
  b.Input("X", {3, 4, 16}).Weight("S", {1, 16}, 1);
  auto* ln = b.Node("LayerNormalization", {"X", "S"}, {"Y"});
  SetInt(ln, "axis", 1);
  b.Output("Y");
  ExpectMatchesCpu(b.Model(), {{"X", {3, 4, 16}, 5}});
}

struct ConvTransposeCase {
  std::string name;
  std::vector<int64_t> x, w;
  int64_t group = 1;
  std::vector<int64_t> strides, dilations, pads, output_padding, output_shape;
  std::string auto_pad;
  bool bias = true;
};

TEST(DnnlNumericsTest, ConvTransposeAttributes) {
  SKIP_WITHOUT_DNNL();
  const std::vector<ConvTransposeCase> cases = {
      {"2d plain", {2, 3, 5, 6}, {3, 4, 3, 3}},
      {"2d no bias", {1, 3, 5, 5}, {3, 4, 3, 3}, 1, {}, {}, {}, {}, {}, "", false},
      {"2d strides 2 pads", {1, 3, 5, 7}, {3, 5, 3, 3}, 1, {2, 2}, {}, {1, 1, 1, 1}},
      {"2d strides 2 asymmetric pads output_padding", {1, 3, 5, 6}, {3, 4, 3, 3}, 1, {2, 2}, {},
       {1, 0, 0, 2}, {1, 1}},
      {"2d strides 3x2 output_padding 2x1", {1, 2, 4, 5}, {2, 3, 3, 2}, 1, {3, 2}, {}, {}, {2, 1}},
      {"2d dilations 2 strides 2", {1, 3, 6, 5}, {3, 2, 3, 3}, 1, {2, 2}, {2, 2}, {1, 2, 0, 1}},
      {"2d group 2", {1, 4, 6, 7}, {4, 3, 3, 3}, 2, {}, {}, {1, 1, 1, 1}},
      {"2d group 3 strides 2 output_padding", {2, 6, 5, 5}, {6, 2, 3, 3}, 3, {2, 2}, {}, {}, {1, 0}},
      {"2d depthwise", {1, 8, 5, 5}, {8, 1, 3, 3}, 8, {2, 2}, {}, {1, 1, 1, 1}},
      {"2d output_shape larger than full", {1, 1, 3, 3}, {1, 2, 3, 3}, 1, {3, 2}, {}, {}, {},
       {10, 8}},
      {"2d output_shape smaller than full", {1, 2, 4, 4}, {2, 3, 3, 3}, 1, {2, 2}, {}, {}, {},
       {8, 7}},
      {"2d output_shape with N and C", {1, 2, 4, 4}, {2, 3, 3, 3}, 1, {2, 2}, {}, {}, {},
       {1, 3, 8, 8}},
      {"2d output_shape SAME_UPPER", {1, 2, 4, 4}, {2, 3, 3, 3}, 1, {2, 2}, {}, {}, {}, {8, 7},
       "SAME_UPPER"},
      {"2d SAME_UPPER stride 2", {1, 3, 5, 6}, {3, 4, 3, 3}, 1, {2, 2}, {}, {}, {}, {},
       "SAME_UPPER"},
      {"2d SAME_LOWER stride 2 kernel 4", {1, 3, 5, 6}, {3, 4, 4, 4}, 1, {2, 2}, {}, {}, {}, {},
       "SAME_LOWER"},
      {"2d SAME_LOWER output_padding", {1, 3, 5, 6}, {3, 4, 3, 3}, 1, {2, 2}, {}, {}, {1, 1}, {},
       "SAME_LOWER"},
      {"2d VALID output_padding", {1, 3, 5, 6}, {3, 4, 3, 3}, 1, {2, 3}, {}, {4, 4, 4, 4}, {1, 2},
       {}, "VALID"},
      {"2d wide channels", {1, 32, 7, 7}, {32, 16, 3, 3}, 1, {2, 2}, {}, {1, 1, 1, 1}, {1, 1}},
      {"1d", {2, 3, 7}, {3, 2, 4}, 1, {2}, {}, {1, 2}},
      {"1d group dilation output_padding", {1, 4, 9}, {4, 3, 3}, 2, {3}, {2}, {0, 1}, {2}},
      {"3d", {1, 2, 3, 4, 5}, {2, 3, 3, 2, 3}, 1, {2, 1, 2}, {}, {1, 0, 0, 0, 1, 1}, {1, 0, 1}},
  };
  for (const ConvTransposeCase& c : cases) {
    SCOPED_TRACE(c.name);
    Builder b;
    b.Input("X", std::vector<DimSpec>(c.x.begin(), c.x.end())).Weight("W", c.w, 7, 0.3f);
    std::vector<std::string> inputs = {"X", "W"};
    if (c.bias) {
      b.Weight("B", {c.w[1] * c.group}, 8);
      inputs.push_back("B");
    }
    auto* node = b.Node("ConvTranspose", inputs, {"Y"});
    if (c.group != 1) SetInt(node, "group", c.group);
    if (!c.strides.empty()) AddIntsAttr(node, "strides", c.strides);
    if (!c.dilations.empty()) AddIntsAttr(node, "dilations", c.dilations);
    if (!c.pads.empty()) AddIntsAttr(node, "pads", c.pads);
    if (!c.output_padding.empty()) AddIntsAttr(node, "output_padding", c.output_padding);
    if (!c.output_shape.empty()) AddIntsAttr(node, "output_shape", c.output_shape);
    if (!c.auto_pad.empty()) SetString(node, "auto_pad", c.auto_pad);
    b.Output("Y");
    ExpectMatchesCpu(b.Model(), {{"X", c.x, 4}});
    ExpectMatchesCpu(b.Model(), {{"X", c.x, 4}}, Dnnl({{"blocked_layouts", "0"}}));
  }
}

// Run-time weights, a dynamic batch, and a residual Add + Relu after it (the sum and eltwise
// post-ops, or separate steps with fusion off).
TEST(DnnlNumericsTest, ConvTransposeRuntimeWeightsAndPostOps) {
  SKIP_WITHOUT_DNNL();
  {
    Builder b;
    b.Input("X", {"N", 4, 5, 5}).Input("W", {4, 3, 3, 3}).Input("B", {6});
    auto* node = b.Node("ConvTranspose", {"X", "W", "B"}, {"Y"});
    SetInt(node, "group", 2);
    AddIntsAttr(node, "strides", {2, 2});
    AddIntsAttr(node, "output_padding", {1, 0});
    b.Output("Y");
    for (int64_t batch : {1, 3})
      ExpectMatchesCpu(b.Model(), {{"X", {batch, 4, 5, 5}, 1}, {"W", {4, 3, 3, 3}, 2},
                                   {"B", {6}, 3}});
  }
  for (const char* fusion : {"1", "0"}) {
    SCOPED_TRACE(std::string("enable_fusion ") + fusion);
    Builder b;
    b.Input("X", {2, 16, 6, 6}).Input("R", {2, 8, 12, 12});
    b.Weight("W", {16, 8, 4, 4}, 3, 0.2f).Weight("B", {8}, 4);
    auto* node = b.Node("ConvTranspose", {"X", "W", "B"}, {"C"});
    AddIntsAttr(node, "strides", {2, 2});
    AddIntsAttr(node, "pads", {1, 1, 1, 1});
    b.Node("Add", {"C", "R"}, {"S"});
    b.Node("Relu", {"S"}, {"Y"});
    b.Output("Y");
    ExpectMatchesCpu(b.Model(), {{"X", {2, 16, 6, 6}, 5}, {"R", {2, 8, 12, 12}, 6}},
                     Dnnl({{"enable_fusion", fusion}}));
  }
}

TEST(DnnlNumericsTest, Lrn) {
  SKIP_WITHOUT_DNNL();
  struct Case {
    std::vector<int64_t> x;
    int64_t size;
    std::map<std::string, float> floats;
  };
  const std::vector<Case> cases = {
      {{2, 7, 5, 6}, 3},
      {{2, 7, 5, 6}, 5, {{"alpha", 0.02f}, {"beta", 0.5f}, {"bias", 2.0f}}},
      {{1, 5, 4, 3}, 1, {{"alpha", 0.3f}, {"beta", 0.9f}, {"bias", 1.5f}}},
      {{1, 6, 3, 3}, 9, {{"alpha", 0.1f}}},  // the window is wider than the channels
      {{2, 6, 11}, 3, {{"alpha", 0.05f}, {"beta", 1.0f}}},
      {{3, 10}, 5, {{"alpha", 0.01f}}},
      {{1, 5, 3, 4, 2}, 3, {{"alpha", 0.2f}, {"bias", 0.5f}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(Text(c.x) + " size " + std::to_string(c.size));
    Builder b(13);
    b.Input("X", std::vector<DimSpec>(c.x.begin(), c.x.end()));
    auto* node = b.Node("LRN", {"X"}, {"Y"});
    SetInt(node, "size", c.size);
    for (const auto& [name, value] : c.floats) SetFloat(node, name, value);
    b.Output("Y");
    ExpectMatchesCpu(b.Model(), {{"X", c.x, 3, 3.0f}});
    ExpectMatchesCpu(b.Model(), {{"X", c.x, 3, 3.0f}}, Dnnl({{"blocked_layouts", "0"}}));
  }
  // After a Conv: on its (blocked) layout, then a Relu.
  for (const char* blocked : {"1", "0"}) {
    SCOPED_TRACE(std::string("blocked_layouts ") + blocked);
    Builder b(13);
    b.Input("X", {2, 8, 9, 9}).Weight("W", {16, 8, 3, 3}, 2, 0.3f);
    b.Node("Conv", {"X", "W"}, {"C"});
    auto* node = b.Node("LRN", {"C"}, {"L"});
    SetInt(node, "size", 5);
    SetFloat(node, "alpha", 0.05f);
    b.Node("Relu", {"L"}, {"Y"});
    b.Output("Y");
    ExpectMatchesCpu(b.Model(), {{"X", {2, 8, 9, 9}, 4}}, Dnnl({{"blocked_layouts", blocked}}));
  }
}

struct ReduceCase {
  std::vector<int64_t> x;
  std::vector<int64_t> axes;  // {} with has_axes false: no axes (all)
  bool has_axes = true;
  int64_t keepdims = 1;
  int64_t noop_with_empty_axes = 0;
};

const char* const kReduceOps[] = {"ReduceSum",  "ReduceMean", "ReduceMax", "ReduceMin",
                                  "ReduceProd", "ReduceL1",   "ReduceL2",  "ReduceSumSquare"};

TEST(DnnlNumericsTest, ReduceOps) {
  SKIP_WITHOUT_DNNL();
  const std::vector<ReduceCase> cases = {
      {{3, 5, 7}, {1}},
      {{3, 5, 7}, {1}, true, 0},
      {{3, 5, 7}, {0, 2}},
      {{3, 5, 7}, {-1}, true, 0},
      {{3, 5, 7}, {}, false},
      {{3, 5, 7}, {}, false, 0},  // every axis, to a scalar
      {{2, 1, 4, 3}, {1}},        // a size-1 axis: nothing to reduce
      {{2, 1, 4, 3}, {1}, true, 0},
      {{2, 3, 4, 5, 3}, {1, 3, 4}, true, 0},
      {{2, 0, 3}, {1}},     // the empty reduction
      {{2, 0, 3}, {2}, true, 0},  // an empty result
      {{13}, {0}},
  };
  for (int opset : {13, 18})
    for (const char* op : kReduceOps)
      for (const ReduceCase& c : cases) {
        SCOPED_TRACE(std::string(op) + "-" + std::to_string(opset) + " " + Text(c.x) + " axes " +
                     (c.has_axes ? Text(c.axes) : "none") + " keepdims " +
                     std::to_string(c.keepdims));
        const bool from_input = opset >= (std::string(op) == "ReduceSum" ? 13 : 18);
        Builder b(opset);
        b.Input("X", std::vector<DimSpec>(c.x.begin(), c.x.end()));
        std::vector<std::string> inputs = {"X"};
        if (c.has_axes && from_input) {
          b.Ints("axes", c.axes);
          inputs.push_back("axes");
        }
        auto* node = b.Node(op, inputs, {"Y"});
        if (c.has_axes && !from_input) AddIntsAttr(node, "axes", c.axes);
        SetInt(node, "keepdims", c.keepdims);
        b.Output("Y");
        // ReduceProd over up to 90 values: keep the product in float's range.
        const float scale = std::string(op) == "ReduceProd" ? 0.6f : 1.0f;
        ExpectMatchesCpu(b.Model(), {{"X", c.x, 5, scale}});
      }
}

// noop_with_empty_axes with an empty axes input: each element is reduced alone (|x| for L1 and
// L2, x^2 for SumSquare); without it, an empty axes input reduces every axis.
TEST(DnnlNumericsTest, ReduceEmptyAxesAndNoop) {
  SKIP_WITHOUT_DNNL();
  for (const char* op : kReduceOps)
    for (int64_t noop : {0, 1}) {
      SCOPED_TRACE(std::string(op) + " noop_with_empty_axes " + std::to_string(noop));
      Builder b(18);
      b.Input("X", {3, 4, 5}).Ints("axes", {});
      auto* node = b.Node(op, {"X", "axes"}, {"Y"});
      SetInt(node, "noop_with_empty_axes", noop);
      b.Node("Relu", {"Y"}, {"Z"});  // the result inside the group, then an output
      b.Output("Y").Output("Z");
      ExpectMatchesCpu(b.Model(), {{"X", {3, 4, 5}, 6, std::string(op) == "ReduceProd" ? 0.7f : 1.0f}});
    }
}

// Axes fed at run time are read on the host and are part of the primitive cache key.
TEST(DnnlNumericsTest, ReduceAxesFedAtRunTime) {
  SKIP_WITHOUT_DNNL();
  for (const char* op : {"ReduceMean", "ReduceL2"}) {
    SCOPED_TRACE(op);
    Builder b(18);
    b.Input("X", {3, 4, 5});
    b.IntInput("axes", {"K"});
    auto* node = b.Node(op, {"X", "axes"}, {"Y"});
    SetInt(node, "keepdims", 0);
    b.Output("Y");
    auto dnnl = MakeSession(b.Model(), {Dnnl()}, NoFallback());
    auto cpu = MakeSession(b.Model(), {});
    for (const NodePlacement& placement : dnnl->Report().nodes)
      EXPECT_EQ(placement.provider, kDnnl) << placement.node_name;
    for (const std::vector<int64_t>& axes :
         {std::vector<int64_t>{1}, {0, 2}, {1}, {}, {-1}}) {
      const std::vector<std::string> names = {"X", "axes"};
      std::vector<Value> feeds = {
          Value(MakeTensor<float>({3, 4, 5}, Builder::Random({3, 4, 5}, 2))),
          Value(MakeTensor<int64_t>({static_cast<int64_t>(axes.size())}, axes))};
      const auto expected = cpu->Run(RunOptions{}, names, feeds, {});
      const auto actual = dnnl->Run(RunOptions{}, names, feeds, {});
      ASSERT_EQ(expected[0].GetTensor().Shape(), actual[0].GetTensor().Shape()) << Text(axes);
      EXPECT_EQ(CompareTensors(expected[0].GetTensor(), actual[0].GetTensor(), Tolerance(1e-4, 1e-5)),
                "")
          << "axes " << Text(axes);
    }
  }
}

// oneDNN's max starts from -FLT_MAX: rows of -inf (a fully masked attention row) must still give
// -inf, and a row whose maximum is -FLT_MAX itself must give -FLT_MAX (min likewise).
TEST(DnnlNumericsTest, ReduceMaxAndMinKeepInfinities) {
  SKIP_WITHOUT_DNNL();
  const float inf = std::numeric_limits<float>::infinity();
  const float big = std::numeric_limits<float>::max();
  // Rows of 5: all -inf, -FLT_MAX among -inf, finite among -inf, all +inf, FLT_MAX among +inf,
  // +inf among finite, -0 alone with -inf.
  const std::vector<float> data = {-inf, -inf, -inf, -inf, -inf,  //
                                   -inf, -big, -inf, -inf, -inf,  //
                                   -inf, 1.5f, -inf, -3.0f, -inf,  //
                                   inf,  inf,  inf,  inf,  inf,   //
                                   inf,  big,  inf,  inf,  inf,   //
                                   2.0f, inf,  -1.0f, 0.5f, 3.0f,  //
                                   -inf, -0.0f, -inf, -inf, -inf};
  for (const char* op : {"ReduceMax", "ReduceMin"})
    for (int64_t axis : {1, 0}) {
      SCOPED_TRACE(std::string(op) + " axis " + std::to_string(axis));
      Builder b(13);
      b.Input("X", {7, 5});
      auto* node = b.Node(op, {"X"}, {"Y"});
      AddIntsAttr(node, "axes", {axis});
      b.Output("Y");
      auto dnnl = MakeSession(b.Model(), {Dnnl()}, NoFallback());
      for (const NodePlacement& placement : dnnl->Report().nodes)
        EXPECT_EQ(placement.provider, kDnnl);
      auto cpu = MakeSession(b.Model(), {});
      const std::vector<Value> feeds = {Value(MakeTensor<float>({7, 5}, data))};
      const auto expected = cpu->Run(RunOptions{}, {"X"}, feeds, {});
      const auto actual = dnnl->Run(RunOptions{}, {"X"}, feeds, {});
      EXPECT_EQ(CompareTensors(expected[0].GetTensor(), actual[0].GetTensor(), Tolerance(0, 0)), "");
      const float* got = actual[0].GetTensor().Data<float>();
      const float* want = expected[0].GetTensor().Data<float>();
      for (int64_t i = 0; i < expected[0].GetTensor().NumElements(); ++i)
        EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << "element " << i;
    }
}

// A global mean over a Conv's (blocked) result: the reduction reads it in plain layout.
TEST(DnnlNumericsTest, ReduceMeanAfterConv) {
  SKIP_WITHOUT_DNNL();
  for (const char* blocked : {"1", "0"}) {
    SCOPED_TRACE(std::string("blocked_layouts ") + blocked);
    Builder b(13);
    b.Input("X", {2, 8, 9, 9}).Weight("W", {16, 8, 3, 3}, 2, 0.3f);
    b.Node("Conv", {"X", "W"}, {"C"});
    auto* mean = b.Node("ReduceMean", {"C"}, {"M"});
    AddIntsAttr(mean, "axes", {2, 3});
    b.Node("Relu", {"M"}, {"Y"});
    b.Output("Y");
    ExpectMatchesCpu(b.Model(), {{"X", {2, 8, 9, 9}, 4}}, Dnnl({{"blocked_layouts", blocked}}));
  }
}

// What the EP refuses of ConvTranspose, LRN and the Reduce family, with the reason in the report.
TEST(DnnlPartitionTest, DeclinesConvTransposeLrnAndReduceCasesWithReasons) {
  SKIP_WITHOUT_DNNL();
  Builder b(18);
  b.Input("X", {1, 4, 8, 8}).Input("D", {1, 4, "H", 8}).Weight("W", {4, 4, 1, 1}, 1);
  b.Weight("W3", {4, 4, 3, 3}, 2).Ints("axes", {1});
  auto* same = b.Node("ConvTranspose", {"X", "W"}, {"Y1"}, "same_upper_negative_pad");
  AddIntsAttr(same, "strides", {2, 2});
  SetString(same, "auto_pad", "SAME_UPPER");  // total padding 1 - 2 = -1: begin pad -1
  auto* big = b.Node("ConvTranspose", {"X", "W3"}, {"Y2"}, "output_padding_too_big");
  AddIntsAttr(big, "strides", {2, 2});
  AddIntsAttr(big, "output_padding", {2, 2});  // end pad -2 = -stride
  auto* dynamic = b.Node("ConvTranspose", {"D", "W3"}, {"Y3"}, "output_shape_dynamic");
  AddIntsAttr(dynamic, "output_shape", {9, 9});
  auto* lrn = b.Node("LRN", {"X"}, {"Y4"}, "lrn_even");
  SetInt(lrn, "size", 4);
  b.Node("ReduceLogSum", {"X", "axes"}, {"Y5"}, "log_sum");
  b.Node("ReduceLogSumExp", {"X", "axes"}, {"Y6"}, "log_sum_exp");
  // Axes from a node of a type the EP claims (declined here, as its input is int64): the EP
  // reads axes on the host when it builds primitives, so it declines the Reduce.
  b.IntInput("I", {1}).Ints("one", {1});
  b.Node("Reshape", {"I", "one"}, {"U"}, "reshape_int64");
  b.Node("ReduceSum", {"X", "U"}, {"Y7"}, "axes_computed");
  for (const char* out : {"Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"}) b.Output(out);
  auto session = MakeSession(b.Model(), {Dnnl()}, NoFallback());
  const std::map<std::string, std::string> wanted = {
      {"same_upper_negative_pad", "auto_pad SAME_UPPER gives a negative begin pad -1"},
      {"output_padding_too_big", "leave an end pad of -2 on spatial axis 0, beyond oneDNN's limit"},
      {"output_shape_dynamic", "output_shape with a dynamic spatial dim of X (axis 2)"},
      {"lrn_even", "size 4 is even: oneDNN's window is symmetric"},
      {"log_sum", "op ReduceLogSum is not supported by the oneDNN EP: oneDNN 2.6's reduction has"},
      {"log_sum_exp", "op ReduceLogSumExp is not supported"},
      {"axes_computed", "axes 'U' is computed by"},
      {"reshape_int64", "has element type int64 (only float32)"},
  };
  std::map<std::string, std::string> reasons;
  for (const NodePlacement& node : session->Report().nodes) {
    std::string why;
    for (const auto& [provider, reason] : node.declined)
      if (provider == kDnnl) why = reason;
    reasons[node.node_name] = why;
    EXPECT_EQ(node.provider, kCpu) << node.node_name;
  }
  for (const auto& [name, part] : wanted)
    EXPECT_NE(reasons[name].find(part), std::string::npos) << name << ": " << reasons[name];
  // The declined nodes still compute what the CPU EP does (they run on it).
  const std::vector<std::string> names = {"X", "D", "I"};
  const std::vector<Value> feeds = {
      Value(MakeTensor<float>({1, 4, 8, 8}, Builder::Random({1, 4, 8, 8}, 1))),
      Value(MakeTensor<float>({1, 4, 8, 8}, Builder::Random({1, 4, 8, 8}, 2))),
      Value(MakeTensor<int64_t>({1}, {2}))};
  const auto expected = MakeSession(b.Model(), {})->Run(RunOptions{}, names, feeds, {});
  const auto actual = session->Run(RunOptions{}, names, feeds, {});
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(CompareTensors(expected[i].GetTensor(), actual[i].GetTensor(), Tolerance(0, 0)), "")
        << "output " << i;
}

// ---- dynamic shapes: one plan per set of input shapes ----

int64_t PlansBuilt() {
  void* handle = dlopen(DnnlLibraryPath().c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return -1;
  auto fn = reinterpret_cast<int64_t (*)()>(dlsym(handle, "PrismDnnlPlansBuilt"));
  dlclose(handle);
  return fn ? fn() : -1;
}

TEST(DnnlCacheTest, DynamicBatchBuildsOnePlanPerShape) {
  SKIP_WITHOUT_DNNL();
  const onnx::ModelProto model = ResidualBlock(/*batch_symbolic=*/true);
  auto dnnl = MakeSession(model, {Dnnl()}, NoFallback());
  auto cpu = MakeSession(model, {});
  for (const NodePlacement& node : dnnl->Report().nodes) EXPECT_EQ(node.provider, kDnnl);
  std::map<int64_t, int64_t> built;
  for (int64_t batch : {1, 3, 1, 5, 3, 1}) {
    const int64_t before = PlansBuilt();
    const std::vector<Feed> feeds = {{"X", {batch, 16, 12, 12}, static_cast<uint32_t>(batch)}};
    const auto expected = RunFeeds(*cpu, feeds);
    const auto actual = RunFeeds(*dnnl, feeds);
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_EQ(
          CompareTensors(expected[i].GetTensor(), actual[i].GetTensor(), Tolerance(1e-5, 1e-4)), "")
          << "batch " << batch << " output " << i;
    built[batch] += PlansBuilt() - before;
  }
  // One plan per new batch size (the model is one fused group), none for repeated ones.
  EXPECT_EQ(built[1], 1);
  EXPECT_EQ(built[3], 1);
  EXPECT_EQ(built[5], 1);
}

TEST(DnnlCacheTest, StaticShapesBuildThePlanAtSessionCreation) {
  SKIP_WITHOUT_DNNL();
  const int64_t before = PlansBuilt();
  auto dnnl = MakeSession(ResidualBlock(false), {Dnnl()}, NoFallback());
  EXPECT_EQ(PlansBuilt() - before, 1);
  const int64_t created = PlansBuilt();
  RunFeeds(*dnnl, {{"X", {2, 16, 12, 12}, 1}});
  RunFeeds(*dnnl, {{"X", {2, 16, 12, 12}, 2}});
  // The session runs with its own thread count, which may differ from the guess at creation:
  // at most one more plan.
  EXPECT_LE(PlansBuilt() - created, 1);
}

TEST(DnnlCacheTest, LeastRecentlyUsedPlansAreDropped) {
  SKIP_WITHOUT_DNNL();
  Builder b;
  b.Input("X", {"N", 8});
  b.Node("Relu", {"X"}, {"Y"});
  b.Output("Y");
  auto dnnl = MakeSession(b.Model(), {Dnnl({{"max_cached_shapes", "2"}})}, NoFallback());
  const int64_t before = PlansBuilt();
  for (int64_t batch : {1, 2, 3, 1}) RunFeeds(*dnnl, {{"X", {batch, 8}, 1}});
  EXPECT_EQ(PlansBuilt() - before, 4);  // 1 was dropped when 3 came
  RunFeeds(*dnnl, {{"X", {1, 8}, 1}});
  EXPECT_EQ(PlansBuilt() - before, 4);
}

// ---- options ----

TEST(DnnlOptionsTest, UnknownAndBadOptionsAreRefusedByName) {
  SKIP_WITHOUT_DNNL();
  Builder b;
  b.Input("X", {2, 2});
  b.Node("Relu", {"X"}, {"Y"});
  b.Output("Y");
  const std::string bytes = Serialize(b.Model());
  for (const auto& [options, message] : std::vector<std::pair<ProviderOptions, std::string>>{
           {{{"no_such_option", "1"}},
            "unknown provider option 'no_such_option' (known options: blocked_layouts, "
            "enable_fusion, intra_op_num_threads, max_cached_shapes, use_arena)"},
           {{{"use_arena", "yes"}}, "option use_arena must be 0 or 1, got 'yes'"},
           {{{"intra_op_num_threads", "-2"}},
            "option intra_op_num_threads must be an integer >= 0, got '-2'"}}) {
    InferenceSession session(NoFallback(), {Dnnl(options)});
    const Status status = CaptureError([&] { session.Load(bytes.data(), bytes.size()); });
    EXPECT_EQ(status.Code(), StatusCode::kEpFail);
    EXPECT_NE(status.Message().find(message), std::string::npos) << status.Message();
  }
}

TEST(DnnlOptionsTest, OptionsReadBackAndArenaOffGivesTheSameResults) {
  SKIP_WITHOUT_DNNL();
  auto session =
      MakeSession(ResidualBlock(false), {Dnnl({{"use_arena", "0"}, {"intra_op_num_threads", "1"}})},
                  NoFallback());
  const std::vector<ProviderOptions> options = session->ProviderOptionsList();
  ASSERT_EQ(options.size(), 2u);
  EXPECT_EQ(options[0].at("use_arena"), "0");
  EXPECT_EQ(options[0].at("intra_op_num_threads"), "1");
  EXPECT_EQ(options[0].at("enable_fusion"), "1");
  ExpectMatchesCpu(ResidualBlock(false), {{"X", {2, 16, 12, 12}, 7}},
                   Dnnl({{"use_arena", "0"}, {"intra_op_num_threads", "1"}}));
}

// ---- threads ----

// CPU time (ms) of every thread of this process, by thread id.
std::map<int, double> ThreadCpuMs() {
  std::map<int, double> times;
  const long ticks = sysconf(_SC_CLK_TCK);
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return times;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream stat(std::string("/proc/self/task/") + entry->d_name + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    std::vector<std::string> values;
    while (fields >> field) values.push_back(field);
    if (values.size() < 13) continue;
    // Fields after the name: state(3) ... utime(14) stime(15), i.e. values[11] and values[12].
    times[std::atoi(entry->d_name)] =
        (std::stod(values[11]) + std::stod(values[12])) * 1000.0 / static_cast<double>(ticks);
  }
  closedir(dir);
  return times;
}

double ProcessCpuMs() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
}

// Threads that got at least 50 ms of CPU while the session ran for about a second.
int BusyThreadsWhileRunning(int intra_op_threads, const ProviderOptions& options = {}) {
  Builder b;
  b.Input("X", {4, 64, 28, 28}).Weight("W", {64, 64, 3, 3}, 1, 0.05f);
  auto* conv = b.Node("Conv", {"X", "W"}, {"C"});
  AddIntsAttr(conv, "pads", {1, 1, 1, 1});
  b.Node("Relu", {"C"}, {"Y"});
  b.Output("Y");
  SessionOptions session_options = NoFallback();
  session_options.intra_op_num_threads = intra_op_threads;
  auto session = MakeSession(b.Model(), {Dnnl(options)}, session_options);
  RunFeeds(*session, {{"X", {4, 64, 28, 28}, 1}});  // warm-up: plan and OpenMP team
  const std::map<int, double> before = ThreadCpuMs();
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1000))
    RunFeeds(*session, {{"X", {4, 64, 28, 28}, 1}});
  int busy = 0;
  for (const auto& [tid, ms] : ThreadCpuMs()) {
    auto it = before.find(tid);
    if (ms - (it == before.end() ? 0.0 : it->second) >= 50.0) ++busy;
  }
  return busy;
}

TEST(DnnlThreadsTest, IntraOpThreadsBoundOneDnnThreads) {
  SKIP_WITHOUT_DNNL();
  EXPECT_EQ(BusyThreadsWhileRunning(1), 1);
  EXPECT_EQ(BusyThreadsWhileRunning(2), 2);
  EXPECT_EQ(BusyThreadsWhileRunning(3), 3);
  // The provider option overrides the session's count.
  EXPECT_EQ(BusyThreadsWhileRunning(3, {{"intra_op_num_threads", "1"}}), 1);
}

TEST(DnnlThreadsTest, AnIdleSessionBurnsNoCpu) {
  SKIP_WITHOUT_DNNL();
  BusyThreadsWhileRunning(2);                                   // leaves OpenMP's team behind
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // past OpenMP's spin
  const double before = ProcessCpuMs();
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  EXPECT_LT(ProcessCpuMs() - before, 30.0) << "ms of CPU in 700 ms of idling";
}

}  // namespace
}  // namespace prism::testing
