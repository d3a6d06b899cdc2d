// NhwcTransformer (layout level, CPU EP) on hand-made 8-bit graphs: which nodes become
// channels-last, where the Transposes go (one entry per NCHW value, one way back per value that
// an NCHW reader or a graph output needs), what it must leave alone; and that the session's
// outputs are the bytes the session without the pass (disabled by name) computes, on the small
// graphs, after saving the optimized model and reloading it unoptimized, and on the bench QDQ
// CNNs (resnet50_qdq, mobilenetv2_qdq, when the benchmarks have generated them).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "../graph/model_builder_util.h"
#include "../session/session_test_util.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

constexpr const char* kMs = "com.microsoft";

template <typename T>
void AddRaw(onnx::GraphProto* graph, const std::string& name, int32_t type,
            const std::vector<int64_t>& dims, const std::vector<T>& values) {
  auto* init = graph->add_initializer();
  init->set_name(name);
  init->set_data_type(type);
  for (int64_t d : dims) init->add_dims(d);
  init->set_raw_data(
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
}

void AddIntAttr(onnx::NodeProto* node, const std::string& name, int64_t value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(value);
}

// A model with the ONNX opset 17 and com.microsoft imports.
onnx::ModelProto MakeMsModel() {
  onnx::ModelProto model = MakeModel();
  auto* ms = model.add_opset_import();
  ms->set_domain(kMs);
  ms->set_version(1);
  return model;
}

// Scale `name`_s and uint8 zero point `name`_z initializers.
void AddQParams(onnx::GraphProto* graph, const std::string& name, float scale, uint8_t zero) {
  AddRaw<float>(graph, name + "_s", TensorProto::FLOAT, {}, {scale});
  AddRaw<uint8_t>(graph, name + "_z", TensorProto::UINT8, {}, {zero});
}

// y = QLinearConv(x) with random per-channel int8 W [filters, channels / group, k, k], an int32
// bias, pads k / 2; x's parameters are "q", y's "q" too (one scale through the network keeps the
// values spread).
onnx::NodeProto* AddQConv(onnx::GraphProto* graph, const std::string& x, const std::string& y,
                          int64_t channels, int64_t filters, int64_t k, unsigned seed,
                          int64_t group = 1, int64_t stride = 1) {
  std::mt19937 engine(seed);
  std::uniform_int_distribution<int> weight(-60, 60), bias(-3000, 3000);
  std::vector<int8_t> w(static_cast<size_t>(filters * channels / group * k * k));
  for (int8_t& v : w) v = static_cast<int8_t>(weight(engine));
  std::vector<float> w_scales(static_cast<size_t>(filters));
  for (size_t m = 0; m < w_scales.size(); ++m) w_scales[m] = 0.002f + 0.0001f * m;
  std::vector<int32_t> b(static_cast<size_t>(filters));
  for (int32_t& v : b) v = bias(engine);
  AddRaw<int8_t>(graph, y + "_W", TensorProto::INT8, {filters, channels / group, k, k}, w);
  AddRaw<float>(graph, y + "_Ws", TensorProto::FLOAT, {filters}, w_scales);
  AddRaw<int8_t>(graph, y + "_Wz", TensorProto::INT8, {filters},
                 std::vector<int8_t>(static_cast<size_t>(filters), 0));
  AddRaw<int32_t>(graph, y + "_B", TensorProto::INT32, {filters}, b);
  auto* conv = AddNode(graph, "QLinearConv",
                       {x, "q_s", "q_z", y + "_W", y + "_Ws", y + "_Wz", "q_s", "q_z", y + "_B"},
                       {y}, y + "_conv");
  AddIntsAttr(conv, "pads", {k / 2, k / 2, k / 2, k / 2});
  AddIntsAttr(conv, "strides", {stride, stride});
  if (group != 1) AddIntAttr(conv, "group", group);
  return conv;
}

onnx::NodeProto* AddQAdd(onnx::GraphProto* graph, const std::string& a, const std::string& b,
                         const std::string& c) {
  return AddNode(graph, "QLinearAdd", {a, "q_s", "q_z", b, "q_s", "q_z", "q_s", "q_z"}, {c},
                 c + "_add", kMs);
}

onnx::ModelProto WithParams() {
  onnx::ModelProto model = MakeMsModel();
  AddQParams(model.mutable_graph(), "q", 0.05f, 128);
  return model;
}

SessionOptions Without(std::vector<std::string> disabled) {
  SessionOptions options;
  options.disabled_optimizers = std::move(disabled);
  return options;
}

// "QLinearConv@ms(cl)", "Transpose(0,2,3,1)": op types in topological order, with the domain,
// channels_last and a Transpose's perm marked.
std::vector<std::string> Ops(const Graph& graph) {
  std::vector<std::string> ops;
  for (NodeIndex index : graph.TopologicalOrder()) {
    const Node& node = graph.GetNode(index);
    std::string op = node.OpType();
    if (node.Domain() == kMs) op += "@ms";
    if (const Attribute* last = node.FindAttribute("channels_last"); last && last->i == 1)
      op += "(cl)";
    if (const Attribute* perm = node.FindAttribute("perm"); perm && op == "Transpose") {
      op += "(";
      for (size_t i = 0; i < perm->ints.size(); ++i)
        op += (i ? "," : "") + std::to_string(perm->ints[i]);
      op += ")";
    }
    ops.push_back(op);
  }
  return ops;
}

const Node* FindOp(const Graph& graph, const std::string& op, size_t nth = 0) {
  for (NodeIndex index : graph.TopologicalOrder()) {
    const Node& node = graph.GetNode(index);
    if (node.OpType() == op && nth-- == 0) return &node;
  }
  return nullptr;
}

Tensor RandomInput(const std::vector<int64_t>& dims, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_int_distribution<int> byte(60, 196);
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<uint8_t> values(static_cast<size_t>(count));
  for (uint8_t& v : values) v = static_cast<uint8_t>(byte(engine));
  return MakeTensor<uint8_t>(dims, values);
}

// Every output of the session with the pass equals (bit for bit) the session's without it.
void ExpectSameAsWithout(const onnx::ModelProto& model, const std::vector<int64_t>& x_dims) {
  auto with = MakeSession(model, {});
  auto without = MakeSession(model, {}, Without({"NhwcTransformer"}));
  const std::vector<Tensor> feeds = {RandomInput(x_dims, 5)};
  const auto expected = RunFloat(*without, {"X"}, feeds);
  const auto actual = RunFloat(*with, {"X"}, feeds);
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(CompareValues(expected[i], actual[i], {0, 0}), "") << "output " << i;
}

// X [1, 16, 9, 9] -> QLinearConv 3x3 -> QLinearConv 1x1 (ragged 21 filters) -> Y.
onnx::ModelProto ConvChain() {
  onnx::ModelProto model = WithParams();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::UINT8, {1, 16, 9, 9});
  AddQConv(graph, "X", "C1", 16, 24, 3, 1);
  AddQConv(graph, "C1", "Y", 24, 21, 1, 2);
  AddOutput(graph, "Y", TensorProto::UINT8);
  return model;
}

TEST(NhwcTransformer, ConvChainRunsChannelsLastBetweenTwoTransposes) {
  const onnx::ModelProto model = ConvChain();
  auto session = MakeSession(model, {});
  const Graph& graph = *session->SessionGraph();
  EXPECT_EQ(Ops(graph), (std::vector<std::string>{"Transpose(0,2,3,1)", "QLinearConv@ms(cl)",
                                                  "QLinearConv@ms(cl)", "Transpose(0,3,1,2)"}));
  const Node* first = FindOp(graph, "QLinearConv");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->Inputs()[0]->shape->ToString(), "[1,9,9,16]");
  EXPECT_EQ(first->Outputs()[0]->shape->ToString(), "[1,9,9,24]");
  EXPECT_EQ(first->Name(), "C1_conv");
  EXPECT_EQ(first->FindAttribute("pads")->ints, (std::vector<int64_t>{1, 1, 1, 1}));
  // The graph output keeps its name: the last Transpose writes it.
  const Node* back = FindOp(graph, "Transpose", 1);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->Outputs()[0]->name, "Y");
  EXPECT_EQ(back->Outputs()[0]->shape->ToString(), "[1,21,9,9]");
  ExpectSameAsWithout(model, {1, 16, 9, 9});
  auto disabled = MakeSession(model, {}, Without({"NhwcTransformer"}));
  EXPECT_EQ(Ops(*disabled->SessionGraph()),
            (std::vector<std::string>{"QLinearConv", "QLinearConv"}));
}

// X -> C1 -> (C2 = conv of C1) -> S = QLinearAdd(C1, C2) -> MaxPool 3x3/2 -> C3 (stride 2)
//   -> QLinearGlobalAveragePool -> Flatten -> Y: a residual block, a max pool and resnet's tail.
onnx::ModelProto ResidualNetwork() {
  onnx::ModelProto model = WithParams();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::UINT8, {1, 8, 12, 12});
  AddQConv(graph, "X", "C1", 8, 16, 3, 1);
  AddQConv(graph, "C1", "C2", 16, 16, 3, 2);
  AddQAdd(graph, "C1", "C2", "S");
  auto* pool = AddNode(graph, "MaxPool", {"S"}, {"P"}, "pool");
  AddIntsAttr(pool, "kernel_shape", {3, 3});
  AddIntsAttr(pool, "strides", {2, 2});
  AddIntsAttr(pool, "pads", {1, 1, 1, 1});
  AddQConv(graph, "P", "C3", 16, 32, 3, 3, 1, 2);
  AddNode(graph, "QLinearGlobalAveragePool", {"C3", "q_s", "q_z", "q_s", "q_z"}, {"G"}, "gap", kMs);
  AddNode(graph, "Flatten", {"G"}, {"Y"}, "flatten");
  AddOutput(graph, "Y", TensorProto::UINT8);
  return model;
}

TEST(NhwcTransformer, ResidualAddMaxPoolAndPoolingTailStayChannelsLast) {
  const onnx::ModelProto model = ResidualNetwork();
  auto session = MakeSession(model, {});
  const Graph& graph = *session->SessionGraph();
  EXPECT_EQ(Ops(graph), (std::vector<std::string>{
                            "Transpose(0,2,3,1)", "QLinearConv@ms(cl)", "QLinearConv@ms(cl)",
                            "QLinearAdd@ms", "NhwcMaxPool@ms", "QLinearConv@ms(cl)",
                            "QLinearGlobalAveragePool@ms(cl)", "Transpose(0,3,1,2)", "Flatten"}));
  const Node* add = FindOp(graph, "QLinearAdd");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->Outputs()[0]->shape->ToString(), "[1,12,12,16]");
  const Node* pool = FindOp(graph, "NhwcMaxPool");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->Outputs()[0]->shape->ToString(), "[1,6,6,16]");
  EXPECT_EQ(pool->FindAttribute("strides")->ints, (std::vector<int64_t>{2, 2}));
  const Node* gap = FindOp(graph, "QLinearGlobalAveragePool");
  ASSERT_NE(gap, nullptr);
  EXPECT_EQ(gap->Outputs()[0]->shape->ToString(), "[1,1,1,32]");
  const Node* back = FindOp(graph, "Transpose", 1);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->Outputs()[0]->name, "G");
  ExpectSameAsWithout(model, {1, 8, 12, 12});
}

// C1 is a graph output and is read by a QLinearConv, a DequantizeLinear and a QLinearSigmoid
// (NCHW readers: one Transpose back for all three and the output); a QLinearAdd that broadcasts
// a constant [1, 16, 1, 1] reads C2 in NCHW; one that broadcasts C2's channels-last global
// average over C2 stays channels-last.
onnx::ModelProto MixedReaders() {
  onnx::ModelProto model = WithParams();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::UINT8, {1, 8, 6, 6});
  AddQConv(graph, "X", "C1", 8, 16, 3, 1);
  AddQConv(graph, "C1", "C2", 16, 16, 1, 2);
  AddNode(graph, "DequantizeLinear", {"C1", "q_s", "q_z"}, {"D"}, "dq");
  AddNode(graph, "QLinearSigmoid", {"C1", "q_s", "q_z", "q_s", "q_z"}, {"Sig"}, "sigmoid", kMs);
  std::vector<uint8_t> row(16);
  for (size_t i = 0; i < row.size(); ++i) row[i] = static_cast<uint8_t>(100 + 5 * i);
  AddRaw<uint8_t>(graph, "Row", TensorProto::UINT8, {1, 16, 1, 1}, row);
  AddQAdd(graph, "C2", "Row", "Broadcast");
  AddNode(graph, "QLinearGlobalAveragePool", {"C2", "q_s", "q_z", "q_s", "q_z"}, {"G"}, "gap", kMs);
  AddQAdd(graph, "C2", "G", "Excite");
  AddOutput(graph, "C1", TensorProto::UINT8);
  AddOutput(graph, "D", TensorProto::FLOAT);
  AddOutput(graph, "Sig", TensorProto::UINT8);
  AddOutput(graph, "Broadcast", TensorProto::UINT8);
  AddOutput(graph, "Excite", TensorProto::UINT8);
  return model;
}

TEST(NhwcTransformer, NchwReadersAndAGraphOutputShareOneTransposeBack) {
  const onnx::ModelProto model = MixedReaders();
  auto session = MakeSession(model, {});
  const Graph& graph = *session->SessionGraph();
  std::map<std::string, int> counts;
  for (const std::string& op : Ops(graph)) ++counts[op];
  EXPECT_EQ(counts["QLinearConv@ms(cl)"], 2);
  EXPECT_EQ(counts["Transpose(0,2,3,1)"], 1);
  // C1's (shared), C2's (the add of a constant) and the output Excite's.
  EXPECT_EQ(counts["Transpose(0,3,1,2)"], 3);
  EXPECT_EQ(counts["QLinearAdd@ms"], 2);
  EXPECT_EQ(counts["QLinearGlobalAveragePool@ms(cl)"], 1);
  const Node* producer = graph.Producer("C1");
  ASSERT_NE(producer, nullptr);
  EXPECT_EQ(producer->OpType(), "Transpose") << "the graph output C1 keeps its name";
  const Node* add = graph.Producer("Broadcast");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->Inputs()[0]->name, "C2") << "the add of a constant reads NCHW";
  EXPECT_EQ(graph.Producer("C2")->OpType(), "Transpose");
  const Node* back = graph.Producer("Excite");
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->OpType(), "Transpose");
  const Node* excite = graph.Producer(back->Inputs()[0]->name);
  ASSERT_NE(excite, nullptr);
  EXPECT_EQ(excite->OpType(), "QLinearAdd");
  EXPECT_EQ(excite->Inputs()[3]->shape->ToString(), "[1,1,1,16]") << "reads G channels-last";
  ExpectSameAsWithout(model, {1, 8, 6, 6});
}

TEST(NhwcTransformer, LeavesWhatItCannotProve) {
  onnx::ModelProto model = WithParams();
  auto* graph = model.mutable_graph();
  AddInputNoShape(graph, "X", TensorProto::UINT8);  // rank unknown: maybe not 4-D
  AddQConv(graph, "X", "C1", 4, 4, 3, 1);
  AddInput(graph, "Z", TensorProto::UINT8, {1, 4, 5});  // a 1-D convolution
  AddRaw<int8_t>(graph, "W1d", TensorProto::INT8, {4, 4, 3}, std::vector<int8_t>(48, 1));
  AddNode(graph, "QLinearConv", {"Z", "q_s", "q_z", "W1d", "C1_Ws", "C1_Wz", "q_s", "q_z", "C1_B"},
          {"C2"}, "conv1d");
  AddInput(graph, "V", TensorProto::UINT8, {1, 4, 5, 5});  // W fed at run time
  AddInput(graph, "Wfed", TensorProto::INT8, {4, 4, 1, 1});
  AddNode(graph, "QLinearConv", {"V", "q_s", "q_z", "Wfed", "C1_Ws", "C1_Wz", "q_s", "q_z", "C1_B"},
          {"C3"}, "fed");
  AddOutput(graph, "C1", TensorProto::UINT8);
  AddOutput(graph, "C2", TensorProto::UINT8);
  AddOutput(graph, "C3", TensorProto::UINT8);
  auto session = MakeSession(model, {});
  EXPECT_EQ(Ops(*session->SessionGraph()),
            (std::vector<std::string>{"QLinearConv", "QLinearConv", "QLinearConv"}));
}

TEST(NhwcTransformer, SavedOptimizedModelReloadsUnoptimized) {
  const onnx::ModelProto model = ResidualNetwork();
  TempDir dir;
  SessionOptions options;
  options.optimized_model_filepath = dir.File("optimized.onnx");
  auto optimized = MakeSession(model, {}, options);
  SessionOptions off;
  off.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  auto reloaded = std::make_unique<InferenceSession>(off, std::vector<ProviderSpec>{});
  reloaded->Load(dir.File("optimized.onnx"));
  EXPECT_EQ(Ops(*reloaded->SessionGraph()), Ops(*optimized->SessionGraph()));
  const std::vector<Tensor> feeds = {RandomInput({1, 8, 12, 12}, 9)};
  EXPECT_EQ(CompareValues(RunFloat(*optimized, {"X"}, feeds)[0],
                          RunFloat(*reloaded, {"X"}, feeds)[0], {0, 0}),
            "");
}

// ---- The bench QDQ CNNs (generated into the build folder by the benchmarks) ----

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void ExpectBenchModelMatches(const char* name) {
  const std::filesystem::path path =
      std::filesystem::path(PRISM_BINARY_DIR) / "bench-models" / (std::string(name) + ".onnx");
  if (!std::filesystem::exists(path)) {
    if (std::getenv("PRISM_REQUIRE_BENCH_MODELS") != nullptr)
      FAIL() << path << " is missing and PRISM_REQUIRE_BENCH_MODELS is set";
    GTEST_SKIP() << path << " is missing (benchmarks/make_derived_models.py makes it; CTest's "
                 << "nhwc_transformer_bench_qdq_cnns runs this test with the models)";
  }
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(ReadFile(path)));
  auto session = MakeSession(model, {});
  std::map<std::string, int> ops;
  for (const std::string& op : Ops(*session->SessionGraph())) ++ops[op];
  EXPECT_EQ(ops["QLinearConv"], 0) << name << ": every QLinearConv is channels-last";
  EXPECT_GT(ops["QLinearConv@ms(cl)"], 0) << name;
  EXPECT_EQ(ops["Transpose(0,2,3,1)"], 1) << name << ": one entry";
  EXPECT_EQ(ops["Transpose(0,3,1,2)"], 1) << name << ": one way back";
  auto without = MakeSession(model, {}, Without({"NhwcTransformer"}));
  std::mt19937 engine(11);
  std::normal_distribution<float> normal;
  std::vector<float> image(3 * 224 * 224);
  for (float& v : image) v = normal(engine);
  const std::string input = model.graph().input(0).name();
  const std::vector<Tensor> feeds = {MakeTensor<float>({1, 3, 224, 224}, image)};
  EXPECT_EQ(CompareValues(RunFloat(*without, {input}, feeds)[0],
                          RunFloat(*session, {input}, feeds)[0], {0, 0}),
            "")
      << name << ": the same arithmetic gives the same bits";
}

TEST(NhwcTransformer, Resnet50QdqMatchesThePassOff) {
  ExpectBenchModelMatches("resnet50_qdq");
}
TEST(NhwcTransformer, Mobilenetv2QdqMatchesThePassOff) {
  ExpectBenchModelMatches("mobilenetv2_qdq");
}

}  // namespace
}  // namespace prism::testing
