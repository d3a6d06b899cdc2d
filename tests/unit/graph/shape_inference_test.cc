// Prism's shape inference on hand-made graphs, each expected shape worked out by hand from the
// ONNX spec: broadcasting with symbolic dims, MatMul, Gemm, Conv and pooling geometry, Reshape
// with 0 and -1, Concat, Transpose, Squeeze/Unsqueeze by opset, a Shape chain giving a static
// Reshape, If branches, the nchwc and channels-last 8-bit contrib ops, and the contradictions
// strict mode reports.
#include <cstdint>

#include <gtest/gtest.h>

#include "graph/shape_inference.h"
#include "mlas/nchwc.h"
#include "model_builder_util.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

// Loads proto (lenient inference runs at load), then infers a clone strictly.
std::unique_ptr<Graph> Infer(const onnx::ModelProto& proto, std::shared_ptr<const Model>* keep) {
  const std::string bytes = Serialize(proto);
  *keep = Model::LoadFromBytes(bytes.data(), bytes.size());
  std::unique_ptr<Graph> graph = (*keep)->MainGraph().Clone();
  InferShapes(*graph, ShapeInferenceOptions{true});
  return graph;
}

std::string ShapeOf(const Graph& graph, const std::string& value) {
  const NodeArg* arg = graph.FindNodeArg(value);
  if (arg == nullptr) return "<no value>";
  return arg->shape ? arg->shape->ToString() : "<unknown rank>";
}

void AddInt(onnx::NodeProto* node, const std::string& name, int64_t value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void AddString(onnx::NodeProto* node, const std::string& name, const std::string& value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

void AddInt64Initializer(onnx::GraphProto* graph, const std::string& name,
                         std::vector<int64_t> dims, std::vector<int64_t> values) {
  auto* init = graph->add_initializer();
  init->set_name(name);
  init->set_data_type(TensorProto::INT64);
  for (int64_t d : dims) init->add_dims(d);
  for (int64_t v : values) init->add_int64_data(v);
}

TEST(ShapeInference, BroadcastingKeepsSymbolicDims) {
  onnx::ModelProto proto = MakeModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "A", TensorProto::FLOAT, {"batch", 1, 4});
  AddInput(graph, "B", TensorProto::FLOAT, {3, 1});
  AddInput(graph, "C", TensorProto::FLOAT, {"batch", 3, 4});
  AddNode(graph, "Add", {"A", "B"}, {"S"});
  AddNode(graph, "Mul", {"S", "C"}, {"P"});
  AddNode(graph, "Relu", {"P"}, {"Y"});
  AddOutput(graph, "Y", TensorProto::FLOAT);
  std::shared_ptr<const Model> model;
  auto inferred = Infer(proto, &model);
  EXPECT_EQ(ShapeOf(*inferred, "S"), "[batch,3,4]");
  EXPECT_EQ(ShapeOf(*inferred, "P"), "[batch,3,4]");
  EXPECT_EQ(ShapeOf(*inferred, "Y"), "[batch,3,4]");
  EXPECT_EQ(ShapeOf(model->MainGraph(), "Y"), "[batch,3,4]") << "the loader infers too";
}

TEST(ShapeInference, MatMulAndGemm) {
  onnx::ModelProto proto = MakeModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "A", TensorProto::FLOAT, {2, 1, 5, 3});
  AddInput(graph, "B", TensorProto::FLOAT, {7, 3, 6});
  AddInput(graph, "V", TensorProto::FLOAT, {6});
  AddInput(graph, "M", TensorProto::FLOAT, {3, 5});
  AddInput(graph, "N", TensorProto::FLOAT, {4, 3});
  AddNode(graph, "MatMul", {"A", "B"}, {"AB"});
  AddNode(graph, "MatMul", {"AB", "V"}, {"ABV"});
  auto* gemm = AddNode(graph, "Gemm", {"M", "N"}, {"G"});
  AddInt(gemm, "transA", 1);
  AddInt(gemm, "transB", 1);
  AddOutput(graph, "ABV", TensorProto::FLOAT);
  AddOutput(graph, "G", TensorProto::FLOAT);
  std::shared_ptr<const Model> model;
  auto inferred = Infer(proto, &model);
  EXPECT_EQ(ShapeOf(*inferred, "AB"), "[2,7,5,6]");
  EXPECT_EQ(ShapeOf(*inferred, "ABV"), "[2,7,5]");
  EXPECT_EQ(ShapeOf(*inferred, "G"), "[5,4]");
}

TEST(ShapeInference, ConvAndPoolGeometry) {
  onnx::ModelProto proto = MakeModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"n", 4, 11, 10});
  AddInput(graph, "W", TensorProto::FLOAT, {8, 2, 3, 3});
  auto* conv = AddNode(graph, "Conv", {"X", "W"}, {"C"});
  AddInt(conv, "group", 2);
  AddIntsAttr(conv, "strides", {2, 3});
  AddIntsAttr(conv, "pads", {1, 0, 1, 2});
  AddIntsAttr(conv, "dilations", {1, 2});
  auto* same = AddNode(graph, "Conv", {"X", "W"}, {"S"});
  AddInt(same, "group", 2);
  AddString(same, "auto_pad", "SAME_UPPER");
  AddIntsAttr(same, "strides", {2, 2});
  auto* pool = AddNode(graph, "MaxPool", {"X"}, {"P", "I"});
  AddIntsAttr(pool, "kernel_shape", {2, 2});
  AddIntsAttr(pool, "strides", {2, 2});
  AddInt(pool, "ceil_mode", 1);
  AddNode(graph, "GlobalAveragePool", {"X"}, {"G"});
  for (const char* out : {"C", "S", "P", "G"}) AddOutput(graph, out, TensorProto::FLOAT);
  std::shared_ptr<const Model> model;
  auto inferred = Infer(proto, &model);
  // H: (11 + 1 + 1 - 3) / 2 + 1 = 6; W: (10 + 0 + 2 - 5) / 3 + 1 = 3.
  EXPECT_EQ(ShapeOf(*inferred, "C"), "[n,8,6,3]");
  EXPECT_EQ(ShapeOf(*inferred, "S"), "[n,8,6,5]");  // ceil(11/2), ceil(10/2)
  EXPECT_EQ(ShapeOf(*inferred, "P"), "[n,4,6,5]");  // ceil((11-2)/2)+1 = 6, ceil(8/2)+1 = 5
  EXPECT_EQ(inferred->FindNodeArg("I")->type.elem, ElementType::kInt64);
  EXPECT_EQ(ShapeOf(*inferred, "G"), "[n,4,1,1]");
}

// The com.microsoft.nchwc ops (NchwcTransformer's): logical shapes [N, Cp, H, W] with Cp the
// channels rounded up to the block size b (8 or 16 by ISA level).
// The channels-last 8-bit ops of the NhwcTransformer: com.microsoft QLinearConv with
// channels_last = 1 ([N, H, W, C] -> [N, H', W', M], Y's type from y_zero_point) and NhwcMaxPool
// ([N, H, W, C] -> [N, H', W', C]; floor and ceil_mode).
TEST(ShapeInference, ChannelsLastInt8Ops) {
  onnx::ModelProto proto = MakeModel();
  auto* import = proto.add_opset_import();
  import->set_domain("com.microsoft");
  import->set_version(1);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::UINT8, {"n", 11, 10, 8});
  AddInput(graph, "W", TensorProto::INT8, {16, 8, 3, 3});
  for (const char* scale : {"xs", "ws", "ys"}) AddInput(graph, scale, TensorProto::FLOAT, {});
  AddInput(graph, "xz", TensorProto::UINT8, {});
  AddInput(graph, "wz", TensorProto::INT8, {});
  AddInput(graph, "yz", TensorProto::INT8, {});
  auto* conv = AddNode(graph, "QLinearConv", {"X", "xs", "xz", "W", "ws", "wz", "ys", "yz"}, {"C"},
                       "conv", "com.microsoft");
  AddInt(conv, "channels_last", 1);
  AddIntsAttr(conv, "strides", {2, 2});
  AddIntsAttr(conv, "pads", {1, 1, 1, 1});
  auto* pool = AddNode(graph, "NhwcMaxPool", {"X"}, {"P"}, "pool", "com.microsoft");
  AddIntsAttr(pool, "kernel_shape", {3, 3});
  AddIntsAttr(pool, "strides", {2, 2});
  auto* ceil = AddNode(graph, "NhwcMaxPool", {"X"}, {"Q"}, "ceil", "com.microsoft");
  AddIntsAttr(ceil, "kernel_shape", {3, 3});
  AddIntsAttr(ceil, "strides", {2, 2});
  AddInt(ceil, "ceil_mode", 1);
  for (const char* name : {"C", "P", "Q"}) AddOutput(graph, name, TensorProto::UINT8);
  std::shared_ptr<const Model> model;
  auto inferred = Infer(proto, &model);
  EXPECT_EQ(ShapeOf(*inferred, "C"), "[n,6,5,16]");
  EXPECT_EQ(inferred->FindNodeArg("C")->type.elem, ElementType::kInt8);
  EXPECT_EQ(ShapeOf(*inferred, "P"), "[n,5,4,8]");  // (11 - 3) / 2 + 1, (10 - 3) / 2 + 1
  EXPECT_EQ(ShapeOf(*inferred, "Q"), "[n,5,5,8]");  // ceil((10 - 3) / 2) + 1 = 5
}

TEST(ShapeInference, NchwcOps) {
  const int64_t b = mlas::NchwcBlockSize();
  const std::string cp = std::to_string(b == 16 ? 32 : 24);  // 24 channels rounded up
  onnx::ModelProto proto = MakeModel();
  auto* import = proto.add_opset_import();
  import->set_domain("com.microsoft.nchwc");
  import->set_version(1);
  auto* graph = proto.mutable_graph();
  const char* nchwc = "com.microsoft.nchwc";
  AddInput(graph, "X", TensorProto::FLOAT, {"n", 24, 11, 10});
  AddInput(graph, "I", TensorProto::FLOAT, {"n", 3, 11, 10});
  AddFloatInitializer(graph, "W", {2 * b, 2 * b, 3, 3}, std::vector<float>(4 * b * b * 9));
  AddFloatInitializer(graph, "WI", {b, 3, 3, 3}, std::vector<float>(b * 27));
  AddNode(graph, "ReorderInput", {"X"}, {"R"}, "reorder", nchwc);
  // The NCHW-input kind: W's input channels are X's.
  auto* first = AddNode(graph, "Conv", {"I", "WI"}, {"F"}, "first", nchwc);
  AddIntsAttr(first, "strides", {2, 2});
  AddIntsAttr(first, "pads", {1, 1, 1, 1});
  auto* pool = AddNode(graph, "MaxPool", {"R"}, {"P"}, "pool", nchwc);
  AddIntsAttr(pool, "kernel_shape", {3, 3});
  AddIntsAttr(pool, "strides", {2, 2});
  AddNode(graph, "GlobalAveragePool", {"R"}, {"G"}, "gap", nchwc);
  auto* out = AddNode(graph, "ReorderOutput", {"R"}, {"O"}, "back", nchwc);
  AddInt(out, "channels", 24);
  for (const char* name : {"R", "F", "P", "G", "O"}) AddOutput(graph, name, TensorProto::FLOAT);
  std::shared_ptr<const Model> model;
  auto inferred = Infer(proto, &model);
  EXPECT_EQ(ShapeOf(*inferred, "R"), "[n," + cp + ",11,10]");
  EXPECT_EQ(ShapeOf(*inferred, "F"), "[n," + std::to_string(b) + ",6,5]");
  EXPECT_EQ(ShapeOf(*inferred, "P"), "[n," + cp + ",5,4]");
  EXPECT_EQ(ShapeOf(*inferred, "G"), "[n," + cp + ",1,1]");
  EXPECT_EQ(ShapeOf(*inferred, "O"), "[n,24,11,10]");

  // A blocked Conv takes W's output channels; W's input channels must be X's padded ones.
  onnx::ModelProto conv = proto;
  AddNode(conv.mutable_graph(), "Conv", {"R", "W"}, {"C"}, "conv", nchwc);
  AddOutput(conv.mutable_graph(), "C", TensorProto::FLOAT);
  if (b == 16) {
    auto conv_inferred = Infer(conv, &model);
    EXPECT_EQ(ShapeOf(*conv_inferred, "C"), "[n,32,9,8]");
  } else {
    PRISM_EXPECT_ERROR(CaptureError([&] { Infer(conv, &model); }), kInvalidGraph, "channels");
  }
  // ReorderOutput's channels must fit X's padded channels.
  onnx::ModelProto too_many = proto;
  too_many.mutable_graph()->mutable_node(4)->mutable_attribute(0)->set_i(40);
  PRISM_EXPECT_ERROR(CaptureError([&] { Infer(too_many, &model); }), kInvalidGraph, "does not fit");
}

TEST(ShapeInference, ReshapeConcatTransposeAndFlatten) {
  onnx::ModelProto proto = MakeModel(13);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3, 4});
  AddInput(graph, "Y", TensorProto::FLOAT, {2, 5, 4});
  AddInt64Initializer(graph, "target", {3}, {0, -1, 2});
  AddNode(graph, "Reshape", {"X", "target"}, {"R"});
  auto* concat = AddNode(graph, "Concat", {"X", "Y"}, {"C"});
  AddInt(concat, "axis", -2);
  auto* transpose = AddNode(graph, "Transpose", {"C"}, {"T"});
  AddIntsAttr(transpose, "perm", {2, 0, 1});
  auto* flatten = AddNode(graph, "Flatten", {"T"}, {"F"});
  AddInt(flatten, "axis", 2);
  for (const char* out : {"R", "F"}) AddOutput(graph, out, TensorProto::FLOAT);
  std::shared_ptr<const Model> model;
  auto inferred = Infer(proto, &model);
  EXPECT_EQ(ShapeOf(*inferred, "R"), "[2,6,2]");
  EXPECT_EQ(ShapeOf(*inferred, "C"), "[2,8,4]");
  EXPECT_EQ(ShapeOf(*inferred, "T"), "[4,2,8]");
  EXPECT_EQ(ShapeOf(*inferred, "F"), "[8,8]");
}

TEST(ShapeInference, SqueezeAndUnsqueezeByOpset) {
  for (int opset : {11, 13}) {
    onnx::ModelProto proto = MakeModel(opset);
    auto* graph = proto.mutable_graph();
    AddInput(graph, "X", TensorProto::FLOAT, {3, 1, 5});
    if (opset >= 13) {
      AddInt64Initializer(graph, "uaxes", {2}, {0, -1});
      AddInt64Initializer(graph, "saxes", {1}, {1});
      AddNode(graph, "Unsqueeze", {"X", "uaxes"}, {"U"});
      AddNode(graph, "Squeeze", {"X", "saxes"}, {"S"});
    } else {
      AddIntsAttr(AddNode(graph, "Unsqueeze", {"X"}, {"U"}), "axes", {0, -1});
      AddIntsAttr(AddNode(graph, "Squeeze", {"X"}, {"S"}), "axes", {1});
    }
    AddOutput(graph, "U", TensorProto::FLOAT);
    AddOutput(graph, "S", TensorProto::FLOAT);
    std::shared_ptr<const Model> model;
    auto inferred = Infer(proto, &model);
    EXPECT_EQ(ShapeOf(*inferred, "U"), "[1,3,1,5,1]") << "opset " << opset;
    EXPECT_EQ(ShapeOf(*inferred, "S"), "[3,5]") << "opset " << opset;
  }
}

TEST(ShapeInference, ShapeChainGivesAStaticReshapeThroughSymbolicDims) {
  // Y = Reshape(X, Concat(Unsqueeze(Gather(Shape(X), 0)), [-1])) with X[batch, 3, 4]: the first
  // dim stays symbolic, the second is computed.
  onnx::ModelProto proto = MakeModel(13);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"batch", 3, 4});
  AddInt64Initializer(graph, "zero", {}, {0});
  AddInt64Initializer(graph, "axes", {1}, {0});
  AddInt64Initializer(graph, "twelve", {1}, {12});
  AddNode(graph, "Shape", {"X"}, {"S"});
  AddNode(graph, "Gather", {"S", "zero"}, {"G"});
  AddNode(graph, "Unsqueeze", {"G", "axes"}, {"U"});
  AddIntsAttr(AddNode(graph, "Concat", {"U", "twelve"}, {"T"}), "axis", {});
  graph->mutable_node(3)->mutable_attribute(0)->set_type(onnx::AttributeProto::INT);
  graph->mutable_node(3)->mutable_attribute(0)->set_i(0);
  AddNode(graph, "Reshape", {"X", "T"}, {"Y"});
  AddOutput(graph, "Y", TensorProto::FLOAT);
  std::shared_ptr<const Model> model;
  auto inferred = Infer(proto, &model);
  EXPECT_EQ(ShapeOf(*inferred, "S"), "[3]");
  EXPECT_EQ(ShapeOf(*inferred, "G"), "[]");
  EXPECT_EQ(ShapeOf(*inferred, "T"), "[2]");
  EXPECT_EQ(ShapeOf(*inferred, "Y"), "[batch,12]");
}

TEST(ShapeInference, IfMergesItsBranches) {
  onnx::ModelProto proto = MakeModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "C", TensorProto::BOOL, {});
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3});
  AddInput(graph, "Z", TensorProto::FLOAT, {2, 5});
  auto* node = AddNode(graph, "If", {"C"}, {"Y"}, "if");
  auto* then_branch = AddGraphAttr(node, "then_branch");
  AddNode(then_branch, "Relu", {"X"}, {"T"});
  AddOutput(then_branch, "T", TensorProto::FLOAT);
  auto* else_branch = AddGraphAttr(node, "else_branch");
  AddNode(else_branch, "Relu", {"Z"}, {"E"});
  AddOutput(else_branch, "E", TensorProto::FLOAT);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  std::shared_ptr<const Model> model;
  auto inferred = Infer(proto, &model);
  EXPECT_EQ(ShapeOf(*inferred, "Y"), "[2,?]");
}

TEST(ShapeInference, ContradictionsAreErrorsInStrictModeOnly) {
  struct Case {
    const char* op;
    std::vector<DimSpec> a, b;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"MatMul", {2, 3}, {4, 5}, "inner dimensions differ: input 0 has 3, input 1 has 4"},
      {"Add", {2, 3}, {4, 3}, "do not broadcast (dim 0: 2 vs 4)"},
  };
  for (const Case& c : cases) {
    onnx::ModelProto proto = MakeModel();
    auto* graph = proto.mutable_graph();
    AddInput(graph, "A", TensorProto::FLOAT, c.a);
    AddInput(graph, "B", TensorProto::FLOAT, c.b);
    AddNode(graph, c.op, {"A", "B"}, {"Y"}, "bad");
    AddOutput(graph, "Y", TensorProto::FLOAT);
    const std::string bytes = Serialize(proto);
    auto model = Model::LoadFromBytes(bytes.data(), bytes.size());  // lenient: loads
    auto graph_copy = model->MainGraph().Clone();
    PRISM_EXPECT_ERROR(CaptureError([&] { InferShapes(*graph_copy, ShapeInferenceOptions{true}); }),
                       kInvalidGraph, c.message);
  }
  // A Conv with stride 0 loads (its kernel reports it at run time) but strict inference names it.
  onnx::ModelProto proto = MakeModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {1, 1, 5, 5});
  AddInput(graph, "W", TensorProto::FLOAT, {1, 1, 3, 3});
  AddIntsAttr(AddNode(graph, "Conv", {"X", "W"}, {"Y"}, "conv"), "strides", {0, 1});
  AddOutput(graph, "Y", TensorProto::FLOAT);
  const std::string bytes = Serialize(proto);
  auto model = Model::LoadFromBytes(bytes.data(), bytes.size());
  auto graph_copy = model->MainGraph().Clone();
  PRISM_EXPECT_ERROR(CaptureError([&] { InferShapes(*graph_copy, ShapeInferenceOptions{true}); }),
                     kInvalidGraph, "Conv node 'conv': strides must be positive, given 0");
}

TEST(ShapeInference, HostileDimsNeverOverflow) {
  // Found by the model fuzzer: Reshape's inference multiplied the target's dims in int64, and a
  // target of [1,1,2^58+1,2^42+2] overflowed (UBSan: signed integer overflow). Products of dims
  // are now checked: an overflowing one is an unknown dim, or the node's error.
  onnx::ModelProto proto = MakeModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {1, 2});
  AddInt64Initializer(graph, "target", {4}, {1, 1, (int64_t{1} << 58) + 1, (int64_t{1} << 42) + 2});
  AddNode(graph, "Reshape", {"X", "target"}, {"R"}, "reshape");
  AddOutput(graph, "R", TensorProto::FLOAT);
  const std::string bytes = Serialize(proto);
  auto model = Model::LoadFromBytes(bytes.data(), bytes.size());  // lenient: loads
  auto graph_copy = model->MainGraph().Clone();
  PRISM_EXPECT_ERROR(CaptureError([&] { InferShapes(*graph_copy, ShapeInferenceOptions{true}); }),
                     kInvalidGraph,
                     "Reshape node 'reshape': the target shape "
                     "[1,1,288230376151711745,4398046511106] has more elements than fit in int64");

  // Tile to [2^33, 2^33] (each dim fits), then Flatten: the product does not fit, so it is an
  // unknown dim.
  onnx::ModelProto tiled = MakeModel();
  graph = tiled.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {int64_t{1} << 31, int64_t{1} << 31});
  AddInt64Initializer(graph, "repeats", {2}, {4, 4});
  AddNode(graph, "Tile", {"X", "repeats"}, {"T"}, "tile");
  AddInt(AddNode(graph, "Flatten", {"T"}, {"F"}, "flatten"), "axis", 0);
  AddOutput(graph, "F", TensorProto::FLOAT);
  std::shared_ptr<const Model> keep;
  auto inferred = Infer(tiled, &keep);
  EXPECT_EQ(ShapeOf(*inferred, "T"), "[8589934592,8589934592]");
  EXPECT_EQ(ShapeOf(*inferred, "F"), "[1,?]");
}

TEST(ShapeInference, PropagatedValuesOfHostileConstants) {
  // Found by the model fuzzer: Add of a one-value constant and an empty one read the empty
  // one's first value (out of bounds). Also: value arithmetic that overflows int64 stays unknown
  // instead of overflowing.
  onnx::ModelProto proto = MakeModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddInt64Initializer(graph, "one", {1}, {5});
  AddInt64Initializer(graph, "none", {0}, {});
  AddInt64Initializer(graph, "big", {}, {INT64_MAX});
  AddNode(graph, "Add", {"one", "none"}, {"empty"}, "add_empty");
  AddNode(graph, "Add", {"big", "big"}, {"sum"}, "add_big");
  AddNode(graph, "Mul", {"big", "big"}, {"product"}, "mul_big");
  AddNode(graph, "Shape", {"X"}, {"shape"}, "shape");
  AddNode(graph, "Mul", {"shape", "big"}, {"target"}, "scale");
  AddNode(graph, "Reshape", {"X", "target"}, {"Y"}, "reshape");
  for (const char* name : {"empty", "sum", "product"}) AddOutput(graph, name, TensorProto::INT64);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  std::shared_ptr<const Model> keep;
  const std::string bytes = Serialize(proto);
  keep = Model::LoadFromBytes(bytes.data(), bytes.size());  // lenient: loads
  std::unique_ptr<Graph> inferred = keep->MainGraph().Clone();
  InferShapes(*inferred);
  EXPECT_EQ(ShapeOf(*inferred, "empty"), "[0]");
  EXPECT_EQ(ShapeOf(*inferred, "sum"), "[]");
  EXPECT_EQ(ShapeOf(*inferred, "product"), "[]");
  // The Reshape target [2 * INT64_MAX] is unknown: the output's rank is still 1.
  EXPECT_EQ(ShapeOf(*inferred, "Y"), "[?]");
}

TEST(ShapeInference, StrictModeNamesOpsWithoutAFunction) {
  onnx::ModelProto proto = MakeModel();
  auto* custom = proto.add_opset_import();
  custom->set_domain("com.example");
  custom->set_version(1);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  // An op of the custom domain with no function (every ai.onnx op gets one in time).
  AddNode(graph, "NoFunctionOp", {"X"}, {"Y"}, "lp", "com.example");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  const std::string bytes = Serialize(proto);
  auto model = Model::LoadFromBytes(bytes.data(), bytes.size());
  auto graph_copy = model->MainGraph().Clone();
  PRISM_EXPECT_ERROR(CaptureError([&] { InferShapes(*graph_copy, ShapeInferenceOptions{true}); }),
                     kInvalidGraph, "no shape inference function for op com.example.NoFunctionOp");
  EXPECT_FALSE(HasShapeInference("com.example", "NoFunctionOp"));
  EXPECT_TRUE(HasShapeInference("", "Conv"));
}

}  // namespace
}  // namespace prism::testing
