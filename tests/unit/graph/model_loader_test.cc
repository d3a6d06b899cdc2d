// Model loading: well-formed models (files, bytes, opsets, every initializer encoding, metadata,
// subgraphs, symbolic dims) and malformed or hostile ones, each with its exact error.
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "graph/model.h"
#include "model_builder_util.h"
#include "session/inference_session.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

Status LoadError(const onnx::ModelProto& model, const std::string& directory = "") {
  const std::string bytes = Serialize(model);
  return CaptureError([&] { Model::LoadFromBytes(bytes.data(), bytes.size(), directory); });
}

std::shared_ptr<const Model> LoadModel(const onnx::ModelProto& model,
                                       const std::string& directory = "") {
  const std::string bytes = Serialize(model);
  return Model::LoadFromBytes(bytes.data(), bytes.size(), directory);
}

std::vector<uint8_t> Bytes(const Tensor& tensor) {
  const auto* data = static_cast<const uint8_t*>(tensor.RawData());
  return std::vector<uint8_t>(data, data + tensor.SizeInBytes());
}

template <typename T>
std::vector<uint8_t> BytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// X[2] + W[2] -> Y, W a float initializer: the smallest runnable model.
onnx::ModelProto AddModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddFloatInitializer(graph, "W", {2}, {10.f, 20.f});
  AddNode(graph, "Add", {"X", "W"}, {"Y"}, "add");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

// A model whose only content is initializer W (and Identity W -> Y so it is runnable).
onnx::ModelProto InitializerModel(const TensorProto& init) {
  onnx::ModelProto model = MakeModel(21, 10);
  auto* graph = model.mutable_graph();
  *graph->add_initializer() = init;
  AddNode(graph, "Identity", {init.name()}, {"Y"}, "id");
  AddOutput(graph, "Y", init.data_type());
  return model;
}

TensorProto TensorHeader(const std::string& name, int32_t type, const std::vector<int64_t>& dims) {
  TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(type);
  for (int64_t d : dims) proto.add_dims(d);
  return proto;
}

// ---------------------------------------------------------------- well-formed models

TEST(ModelLoaderTest, LoadsFromBytes) {
  auto model = LoadModel(AddModel());
  const Graph& graph = model->MainGraph();
  EXPECT_EQ(model->IrVersion(), 8);
  EXPECT_EQ(model->Directory(), "");
  ASSERT_EQ(graph.NodeCount(), 1u);
  const Node& add = graph.GetNode(0);
  EXPECT_EQ(add.Name(), "add");
  EXPECT_EQ(add.OpType(), "Add");
  EXPECT_EQ(add.Domain(), "");
  EXPECT_EQ(add.OpsetVersion(), 17);
  ASSERT_EQ(graph.Inputs().size(), 1u);
  EXPECT_EQ(graph.Inputs()[0]->name, "X");
  EXPECT_EQ(graph.RequiredInputs().size(), 1u);
  EXPECT_TRUE(graph.OverridableInitializers().empty());
  EXPECT_TRUE(graph.IsConstantInitializer("W"));
  ASSERT_NE(graph.FindInitializer("W"), nullptr);
  EXPECT_EQ(graph.FindInitializer("W")->Data<float>()[1], 20.f);
  EXPECT_EQ(graph.Producer("Y"), &add);
  ASSERT_EQ(graph.Consumers("X").size(), 1u);
  EXPECT_EQ(graph.Consumers("X")[0], 0u);
  EXPECT_EQ(graph.FindNodeArg("Y")->type, ValueType::Tensor(ElementType::kFloat));
}

TEST(ModelLoaderTest, LoadsFromPathAndRunsFromPath) {
  TempDir dir;
  const std::string path = dir.Write("add.onnx", Serialize(AddModel()));
  auto model = Model::LoadFromFile(path);
  EXPECT_EQ(model->Directory(), dir.Path() + "/");
  EXPECT_EQ(model->MainGraph().NodeCount(), 1u);

  InferenceSession session;
  session.Load(path);
  auto out = session.Run({}, {"X"}, {Value(MakeTensor<float>({2}, {1.f, 2.f}))}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(CompareValues(Value(MakeTensor<float>({2}, {11.f, 22.f})), out[0], {}), "");
}

TEST(ModelLoaderTest, NodesOutOfOrderAreSortedTopologically) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddNode(graph, "Relu", {"B"}, {"C"}, "second");
  AddNode(graph, "Relu", {"X"}, {"B"}, "first");
  AddOutput(graph, "C", TensorProto::FLOAT);
  auto loaded = LoadModel(model);
  const auto& order = loaded->MainGraph().TopologicalOrder();
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(loaded->MainGraph().GetNode(order[0]).Name(), "first");
  EXPECT_EQ(loaded->MainGraph().GetNode(order[1]).Name(), "second");
}

TEST(ModelLoaderTest, OpsetImportsPerDomainWithAiOnnxAlias) {
  onnx::ModelProto model = MakeModel();
  model.clear_opset_import();
  auto* onnx_import = model.add_opset_import();
  onnx_import->set_domain("ai.onnx");  // the explicit spelling of the default domain
  onnx_import->set_version(15);
  auto* ml = model.add_opset_import();
  ml->set_domain("ai.onnx.ml");
  ml->set_version(3);
  auto* custom = model.add_opset_import();
  custom->set_domain("com.example");
  custom->set_version(2);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddNode(graph, "Relu", {"X"}, {"R"}, "relu", "ai.onnx");
  AddNode(graph, "Custom", {"R"}, {"Y"}, "custom", "com.example");
  AddOutput(graph, "Y", TensorProto::FLOAT);

  auto loaded = LoadModel(model);
  const std::map<std::string, int> expected = {{"", 15}, {"ai.onnx.ml", 3}, {"com.example", 2}};
  EXPECT_EQ(loaded->OpsetImports(), expected);
  const Graph& g = loaded->MainGraph();
  EXPECT_EQ(g.GetNode(0).Domain(), "");  // "ai.onnx" is canonicalized
  EXPECT_EQ(g.GetNode(0).OpsetVersion(), 15);
  EXPECT_EQ(g.GetNode(1).Domain(), "com.example");
  EXPECT_EQ(g.GetNode(1).OpsetVersion(), 2);
  EXPECT_EQ(CanonicalDomain("ai.onnx"), "");
  EXPECT_EQ(CanonicalDomain(""), "");
  EXPECT_EQ(CanonicalDomain("ai.onnx.ml"), "ai.onnx.ml");
}

TEST(ModelLoaderTest, AiOnnxDomainNodeRuns) {
  onnx::ModelProto model = MakeModel();
  model.mutable_opset_import(0)->set_domain("ai.onnx");
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {3});
  AddNode(graph, "Relu", {"X"}, {"Y"}, "relu", "ai.onnx");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  const std::string bytes = Serialize(model);
  InferenceSession session;
  session.Load(bytes.data(), bytes.size());
  auto out = session.Run({}, {"X"}, {Value(MakeTensor<float>({3}, {-1.f, 0.f, 2.f}))}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(CompareValues(Value(MakeTensor<float>({3}, {0.f, 0.f, 2.f})), out[0], {}), "");
}

// Every element type, stored in raw_data: the tensor keeps the exact bytes.
TEST(ModelLoaderTest, InitializersInRawDataForEveryElementType) {
  for (int32_t type = 1; type <= kMaxElementType; ++type) {
    if (!IsKnownElementType(type) || type == static_cast<int32_t>(ElementType::kString)) continue;
    const auto element = static_cast<ElementType>(type);
    SCOPED_TRACE(ElementTypeName(element));
    const std::vector<int64_t> dims = {5};  // odd: sub-byte types end mid-byte
    TensorProto init = TensorHeader("W", type, dims);
    std::string raw(StorageBytes(element, 5), '\0');
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<char>(i * 37 + type);
    if (element == ElementType::kBool)
      for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<char>(i % 2);
    init.set_raw_data(raw);
    auto model = LoadModel(InitializerModel(init));
    const Tensor* tensor = model->MainGraph().FindInitializer("W");
    ASSERT_NE(tensor, nullptr);
    EXPECT_EQ(tensor->Type(), element);
    EXPECT_EQ(tensor->Shape(), TensorShape(dims));
    EXPECT_EQ(Bytes(*tensor), std::vector<uint8_t>(raw.begin(), raw.end()));
  }
}

struct TypedCase {
  const char* label;
  int32_t type;
  std::vector<int64_t> dims;
  std::function<void(TensorProto&)> fill;
  std::vector<uint8_t> expected_bytes;
  // Decoded element values (ints, floats, sub-byte ints); empty where only the bytes are
  // checked (float8/float4: the bytes are onnx.helper.make_tensor's encoding of 1.0, -2.0, ...).
  std::vector<double> expected_values;
};

// Element i as double, including packed 4-bit and 2-bit integers (low bits first).
double DecodedElement(const Tensor& tensor, int64_t i) {
  const auto* bytes = static_cast<const uint8_t*>(tensor.RawData());
  const ElementType type = tensor.Type();
  if (type == ElementType::kInt4 || type == ElementType::kUint4 || type == ElementType::kInt2 ||
      type == ElementType::kUint2) {
    const int bits = ElementBits(type);
    const int per_byte = 8 / bits;
    const int shift = static_cast<int>(i % per_byte) * bits;
    const int raw = (bytes[i / per_byte] >> shift) & ((1 << bits) - 1);
    const bool is_signed = type == ElementType::kInt4 || type == ElementType::kInt2;
    return is_signed && raw >= (1 << (bits - 1)) ? raw - (1 << bits) : raw;
  }
  return ElementAsDouble(tensor, i);
}

std::vector<TypedCase> TypedCases() {
  std::vector<TypedCase> cases;
  cases.push_back({"float",
                   TensorProto::FLOAT,
                   {3},
                   [](TensorProto& p) {
                     for (float v : {1.5f, -2.f, 3.25f}) p.add_float_data(v);
                   },
                   BytesOf<float>({1.5f, -2.f, 3.25f}),
                   {1.5, -2, 3.25}});
  cases.push_back({"double",
                   TensorProto::DOUBLE,
                   {2},
                   [](TensorProto& p) {
                     for (double v : {0.125, -1e10}) p.add_double_data(v);
                   },
                   BytesOf<double>({0.125, -1e10}),
                   {0.125, -1e10}});
  cases.push_back({"int64",
                   TensorProto::INT64,
                   {3},
                   [](TensorProto& p) {
                     for (int64_t v : {-1LL, 2LL, 1LL << 40}) p.add_int64_data(v);
                   },
                   BytesOf<int64_t>({-1, 2, int64_t{1} << 40}),
                   {}});
  cases.push_back({"uint64",
                   TensorProto::UINT64,
                   {2},
                   [](TensorProto& p) {
                     p.add_uint64_data(1);
                     p.add_uint64_data((1ULL << 63) + 5);
                   },
                   BytesOf<uint64_t>({1, (uint64_t{1} << 63) + 5}),
                   {}});
  cases.push_back({"uint32",
                   TensorProto::UINT32,
                   {2},
                   [](TensorProto& p) {
                     p.add_uint64_data(7);
                     p.add_uint64_data(4294967295ULL);
                   },
                   BytesOf<uint32_t>({7, 4294967295u}),
                   {7, 4294967295.0}});
  cases.push_back({"int32",
                   TensorProto::INT32,
                   {2},
                   [](TensorProto& p) {
                     p.add_int32_data(-5);
                     p.add_int32_data(1 << 30);
                   },
                   BytesOf<int32_t>({-5, 1 << 30}),
                   {-5, 1 << 30}});
  cases.push_back({"int16",
                   TensorProto::INT16,
                   {2},
                   [](TensorProto& p) {
                     p.add_int32_data(-300);
                     p.add_int32_data(300);
                   },
                   BytesOf<int16_t>({-300, 300}),
                   {-300, 300}});
  cases.push_back({"uint16",
                   TensorProto::UINT16,
                   {2},
                   [](TensorProto& p) {
                     p.add_int32_data(65535);
                     p.add_int32_data(1);
                   },
                   BytesOf<uint16_t>({65535, 1}),
                   {65535, 1}});
  cases.push_back({"int8",
                   TensorProto::INT8,
                   {2},
                   [](TensorProto& p) {
                     p.add_int32_data(-100);
                     p.add_int32_data(100);
                   },
                   BytesOf<int8_t>({-100, 100}),
                   {-100, 100}});
  cases.push_back({"uint8",
                   TensorProto::UINT8,
                   {2},
                   [](TensorProto& p) {
                     p.add_int32_data(255);
                     p.add_int32_data(0);
                   },
                   {255, 0},
                   {255, 0}});
  cases.push_back({"bool",
                   TensorProto::BOOL,
                   {3},
                   [](TensorProto& p) {
                     for (int v : {1, 0, 1}) p.add_int32_data(v);
                   },
                   {1, 0, 1},
                   {1, 0, 1}});
  // float16/bfloat16: int32_data holds the 16-bit patterns (onnx.helper.make_tensor's layout).
  cases.push_back({"float16",
                   TensorProto::FLOAT16,
                   {2},
                   [](TensorProto& p) {
                     p.add_int32_data(15360);
                     p.add_int32_data(49152);
                   },
                   BytesOf<uint16_t>({0x3C00, 0xC000}),
                   {1.0, -2.0}});
  cases.push_back({"bfloat16",
                   TensorProto::BFLOAT16,
                   {2},
                   [](TensorProto& p) {
                     p.add_int32_data(16256);
                     p.add_int32_data(49152);
                   },
                   BytesOf<uint16_t>({0x3F80, 0xC000}),
                   {1.0, -2.0}});
  // float8: one byte per int32 entry. 1.0 and -2.0 as computed by onnx.helper.make_tensor.
  cases.push_back({"float8e4m3fn",
                   17,
                   {2},
                   [](TensorProto& p) {
                     p.add_int32_data(56);
                     p.add_int32_data(192);
                   },
                   {56, 192},
                   {}});
  cases.push_back({"float8e4m3fnuz",
                   18,
                   {2},
                   [](TensorProto& p) {
                     p.add_int32_data(64);
                     p.add_int32_data(200);
                   },
                   {64, 200},
                   {}});
  cases.push_back({"float8e5m2",
                   19,
                   {2},
                   [](TensorProto& p) {
                     p.add_int32_data(60);
                     p.add_int32_data(192);
                   },
                   {60, 192},
                   {}});
  cases.push_back({"float8e5m2fnuz",
                   20,
                   {2},
                   [](TensorProto& p) {
                     p.add_int32_data(64);
                     p.add_int32_data(196);
                   },
                   {64, 196},
                   {}});
  cases.push_back({"float8e8m0",
                   24,
                   {2},
                   [](TensorProto& p) {
                     p.add_int32_data(127);
                     p.add_int32_data(129);
                   },
                   {127, 129},
                   {}});
  // Complex: real and imaginary parts interleaved in float_data / double_data.
  cases.push_back({"complex64",
                   TensorProto::COMPLEX64,
                   {2},
                   [](TensorProto& p) {
                     for (float v : {1.5f, -2.f, 0.f, 4.25f}) p.add_float_data(v);
                   },
                   BytesOf<float>({1.5f, -2.f, 0.f, 4.25f}),
                   {}});
  cases.push_back({"complex128",
                   TensorProto::COMPLEX128,
                   {1},
                   [](TensorProto& p) {
                     for (double v : {0.125, -1e10}) p.add_double_data(v);
                   },
                   BytesOf<double>({0.125, -1e10}),
                   {}});
  // Packed sub-byte types: one byte (two nibbles / four crumbs, low first) per int32 entry.
  cases.push_back({"int4",
                   22,
                   {3},
                   [](TensorProto& p) {
                     p.add_int32_data(225);
                     p.add_int32_data(3);
                   },
                   {0xE1, 0x03},
                   {1, -2, 3}});
  cases.push_back({"uint4",
                   21,
                   {3},
                   [](TensorProto& p) {
                     p.add_int32_data(241);
                     p.add_int32_data(3);
                   },
                   {0xF1, 0x03},
                   {1, 15, 3}});
  cases.push_back({"float4e2m1",
                   23,
                   {3},
                   [](TensorProto& p) {
                     p.add_int32_data(194);
                     p.add_int32_data(1);
                   },
                   {0xC2, 0x01},
                   {}});
  cases.push_back({"int2",
                   26,
                   {5},
                   [](TensorProto& p) {
                     p.add_int32_data(73);
                     p.add_int32_data(3);
                   },
                   {73, 3},
                   {1, -2, 0, 1, -1}});
  cases.push_back({"uint2",
                   25,
                   {5},
                   [](TensorProto& p) {
                     p.add_int32_data(57);
                     p.add_int32_data(3);
                   },
                   {57, 3},
                   {1, 2, 3, 0, 3}});
  // float6: one unpacked code per int32 entry (onnx.helper.make_tensor with raw=False), packed
  // on load into the 6-bit stream. Values 1, -7.5, 0.125, 3, 0.5 (e2m3); 1, -28, 0.0625, 3, 0.5
  // (e3m2); bytes from onnx.numpy_helper.from_array.
  cases.push_back({"float6e2m3",
                   27,
                   {5},
                   [](TensorProto& p) {
                     for (int code : {8, 63, 1, 20, 4}) p.add_int32_data(code);
                   },
                   {200, 31, 80, 4},
                   {}});
  cases.push_back({"float6e3m2",
                   28,
                   {5},
                   [](TensorProto& p) {
                     for (int code : {12, 63, 1, 18, 8}) p.add_int32_data(code);
                   },
                   {204, 31, 72, 8},
                   {}});
  return cases;
}

TEST(ModelLoaderTest, InitializersInTypedFieldsForEveryElementType) {
  std::set<int32_t> covered;
  for (const TypedCase& c : TypedCases()) {
    SCOPED_TRACE(c.label);
    covered.insert(c.type);
    TensorProto init = TensorHeader("W", c.type, c.dims);
    c.fill(init);
    auto model = LoadModel(InitializerModel(init));
    const Tensor* tensor = model->MainGraph().FindInitializer("W");
    ASSERT_NE(tensor, nullptr);
    EXPECT_EQ(static_cast<int32_t>(tensor->Type()), c.type);
    EXPECT_EQ(tensor->Shape(), TensorShape(c.dims));
    EXPECT_EQ(Bytes(*tensor), c.expected_bytes);
    for (size_t i = 0; i < c.expected_values.size(); ++i)
      EXPECT_EQ(DecodedElement(*tensor, static_cast<int64_t>(i)), c.expected_values[i])
          << "element " << i;
  }
  // Every known type except string (tested below) has a case.
  for (int32_t type = 1; type <= kMaxElementType; ++type) {
    if (IsKnownElementType(type) && type != TensorProto::STRING) {
      EXPECT_TRUE(covered.count(type)) << "no typed-field case for type " << type;
    }
  }
}

TEST(ModelLoaderTest, StringInitializerFromStringData) {
  TensorProto init = TensorHeader("W", TensorProto::STRING, {3});
  init.add_string_data("a");
  init.add_string_data("");
  init.add_string_data(std::string("with\0nul", 8));
  auto model = LoadModel(InitializerModel(init));
  const Tensor* tensor = model->MainGraph().FindInitializer("W");
  ASSERT_NE(tensor, nullptr);
  ASSERT_EQ(tensor->Type(), ElementType::kString);
  EXPECT_EQ(tensor->Data<std::string>()[0], "a");
  EXPECT_EQ(tensor->Data<std::string>()[1], "");
  EXPECT_EQ(tensor->Data<std::string>()[2], std::string("with\0nul", 8));
}

TEST(ModelLoaderTest, ScalarAndEmptyInitializers) {
  TensorProto scalar = TensorHeader("W", TensorProto::FLOAT, {});
  scalar.add_float_data(4.5f);
  auto model = LoadModel(InitializerModel(scalar));
  EXPECT_EQ(model->MainGraph().FindInitializer("W")->Shape().Rank(), 0u);
  EXPECT_EQ(model->MainGraph().FindInitializer("W")->Data<float>()[0], 4.5f);

  TensorProto empty = TensorHeader("W", TensorProto::FLOAT, {0, 3});
  auto model2 = LoadModel(InitializerModel(empty));
  EXPECT_EQ(model2->MainGraph().FindInitializer("W")->NumElements(), 0);
}

TEST(ModelLoaderTest, InitializerListedAsInputIsOverridable) {
  onnx::ModelProto model = AddModel();
  AddInput(model.mutable_graph(), "W", TensorProto::FLOAT, {2});
  auto loaded = LoadModel(model);
  const Graph& graph = loaded->MainGraph();
  ASSERT_EQ(graph.OverridableInitializers().size(), 1u);
  EXPECT_EQ(graph.OverridableInitializers()[0]->name, "W");
  EXPECT_EQ(graph.RequiredInputs().size(), 1u);
  EXPECT_FALSE(graph.IsConstantInitializer("W"));
}

TEST(ModelLoaderTest, ModelMetadata) {
  onnx::ModelProto model = AddModel();
  model.set_producer_name("unit-test-producer");
  model.set_producer_version("1.2.3");
  model.set_domain("org.example.models");
  model.set_doc_string("adds a constant");
  model.set_model_version(42);
  model.mutable_graph()->set_name("adder");
  model.mutable_graph()->set_doc_string("the main graph");
  auto* prop = model.add_metadata_props();
  prop->set_key("author");
  prop->set_value("prism");
  prop = model.add_metadata_props();
  prop->set_key("license");
  prop->set_value("MIT");

  auto loaded = LoadModel(model);
  const ModelMetadata& meta = loaded->Metadata();
  EXPECT_EQ(meta.producer_name, "unit-test-producer");
  EXPECT_EQ(meta.producer_version, "1.2.3");
  EXPECT_EQ(meta.domain, "org.example.models");
  EXPECT_EQ(meta.description, "adds a constant");
  EXPECT_EQ(meta.version, 42);
  EXPECT_EQ(meta.graph_name, "adder");
  EXPECT_EQ(meta.graph_description, "the main graph");
  const std::map<std::string, std::string> props = {{"author", "prism"}, {"license", "MIT"}};
  EXPECT_EQ(meta.custom_metadata, props);
  EXPECT_EQ(loaded->MainGraph().Name(), "adder");

  const std::string bytes = Serialize(model);
  InferenceSession session;
  session.Load(bytes.data(), bytes.size());
  EXPECT_EQ(session.Metadata().custom_metadata, props);
}

// Main graph: If(C) with then = X + X, else = Identity(X); both branches read X from outside.
onnx::ModelProto IfModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "C", TensorProto::BOOL, {});
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  auto* node = AddNode(graph, "If", {"C"}, {"Y"}, "if");
  auto* then_branch = AddGraphAttr(node, "then_branch");
  then_branch->set_name("then");
  AddNode(then_branch, "Add", {"X", "X"}, {"T"}, "then_add");
  AddOutput(then_branch, "T", TensorProto::FLOAT);
  auto* else_branch = AddGraphAttr(node, "else_branch");
  else_branch->set_name("else");
  AddNode(else_branch, "Identity", {"X"}, {"E"}, "else_id");
  AddOutput(else_branch, "E", TensorProto::FLOAT);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

// If(C) whose then_branch is Identity(value) -> T.
onnx::ModelProto IfModelReading(const std::string& value) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "C", TensorProto::BOOL, {});
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  auto* node = AddNode(graph, "If", {"C"}, {"Y"}, "if");
  auto* then_branch = AddGraphAttr(node, "then_branch");
  AddNode(then_branch, "Identity", {value}, {"T"}, "reader");
  AddOutput(then_branch, "T", TensorProto::FLOAT);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

TEST(ModelLoaderTest, SubgraphReadsOuterScopeValue) {
  auto model = LoadModel(IfModel());
  const Graph& main = model->MainGraph();
  EXPECT_TRUE(main.OuterScopeValues().empty());
  ASSERT_EQ(main.NodeCount(), 1u);
  const Node& node = main.GetNode(0);
  ASSERT_EQ(node.ImplicitInputs().size(), 1u);
  EXPECT_EQ(node.ImplicitInputs()[0]->name, "X");
  EXPECT_EQ(node.ImplicitInputs()[0], main.FindNodeArg("X"));  // the very same value
  ASSERT_EQ(main.Consumers("X").size(), 1u);
  const auto subgraphs = node.Subgraphs();
  ASSERT_EQ(subgraphs.size(), 2u);  // attribute-name order: else_branch, then_branch
  EXPECT_EQ(subgraphs[0]->Name(), "else");
  EXPECT_EQ(subgraphs[1]->Name(), "then");
  for (const Graph* sub : subgraphs) {
    EXPECT_EQ(sub->Parent(), &main);
    EXPECT_EQ(sub->Depth(), 1);
    EXPECT_EQ(sub->OuterScopeValues(), std::vector<std::string>{"X"});
    EXPECT_EQ(&sub->OwnerModel(), model.get());
  }
  // The If output's type comes from the branches.
  EXPECT_EQ(main.FindNodeArg("Y")->type, ValueType::Tensor(ElementType::kFloat));
}

TEST(ModelLoaderTest, NestedSubgraphOuterValuePropagatesToEveryEnclosingNode) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "C", TensorProto::BOOL, {});
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  auto* outer = AddNode(graph, "If", {"C"}, {"Y"}, "outer_if");
  auto* outer_then = AddGraphAttr(outer, "then_branch");
  auto* inner = AddNode(outer_then, "If", {"C"}, {"T"}, "inner_if");
  auto* inner_then = AddGraphAttr(inner, "then_branch");
  AddNode(inner_then, "Relu", {"X"}, {"R"}, "deep_relu");  // X is two levels up
  AddOutput(inner_then, "R", TensorProto::FLOAT);
  AddOutput(outer_then, "T", TensorProto::FLOAT);
  AddOutput(graph, "Y", TensorProto::FLOAT);

  auto loaded = LoadModel(model);
  const Node& outer_node = loaded->MainGraph().GetNode(0);
  std::vector<std::string> implicit;
  for (const NodeArg* arg : outer_node.ImplicitInputs()) implicit.push_back(arg->name);
  EXPECT_EQ(implicit, (std::vector<std::string>{"C", "X"}));
  const Graph& middle = *outer_node.Subgraphs()[0];
  EXPECT_EQ(middle.OuterScopeValues(), (std::vector<std::string>{"C", "X"}));
  const Graph& deep = *middle.GetNode(0).Subgraphs()[0];
  EXPECT_EQ(deep.Depth(), 2);
  EXPECT_EQ(deep.OuterScopeValues(), std::vector<std::string>{"X"});
}

TEST(ModelLoaderTest, SymbolicDimsAreKept) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"batch", 3, DimSpec()});
  AddNode(graph, "Relu", {"X"}, {"H"}, "relu");
  AddNode(graph, "Identity", {"H"}, {"Y"}, "id");
  auto* info = graph->add_value_info();
  info->set_name("H");
  std::vector<DimSpec> h_dims = {"batch", 3, "width"};
  SetTensorType(info->mutable_type(), TensorProto::FLOAT, &h_dims);
  AddOutput(graph, "Y", TensorProto::FLOAT, {"batch", 3, "width"});

  auto loaded = LoadModel(model);
  const NodeArg* x = loaded->MainGraph().FindNodeArg("X");
  ASSERT_TRUE(x->shape.has_value());
  ASSERT_EQ(x->shape->dims.size(), 3u);
  EXPECT_FALSE(x->shape->dims[0].IsKnown());
  EXPECT_EQ(x->shape->dims[0].param, "batch");
  EXPECT_EQ(x->shape->dims[1].value, 3);
  EXPECT_FALSE(x->shape->dims[2].IsKnown());
  EXPECT_EQ(x->shape->dims[2].param, "");
  EXPECT_EQ(x->shape->ToString(), "[batch,3,?]");
  EXPECT_EQ(loaded->MainGraph().FindNodeArg("H")->shape->ToString(), "[batch,3,width]");
  EXPECT_EQ(loaded->MainGraph().FindNodeArg("Y")->shape->ToString(), "[batch,3,width]");

  const std::string bytes = Serialize(model);
  InferenceSession session;
  session.Load(bytes.data(), bytes.size());
  const auto inputs = session.Inputs();
  ASSERT_EQ(inputs.size(), 1u);
  ASSERT_TRUE(inputs[0].has_shape);
  ASSERT_EQ(inputs[0].shape.size(), 3u);
  EXPECT_EQ(inputs[0].shape[0].param, "batch");
  EXPECT_EQ(inputs[0].shape[0].value, -1);
  EXPECT_EQ(inputs[0].shape[1].value, 3);
  EXPECT_EQ(inputs[0].shape[2].value, -1);
  const auto outputs = session.Outputs();
  ASSERT_EQ(outputs.size(), 1u);
  ASSERT_TRUE(outputs[0].has_shape);
  EXPECT_EQ(outputs[0].shape[2].param, "width");
}

TEST(ModelLoaderTest, EmptyGraphWithoutOpsetLoads) {
  onnx::ModelProto model = MakeModel();
  model.clear_opset_import();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {1});
  AddOutput(graph, "X", TensorProto::FLOAT);
  auto loaded = LoadModel(model);
  EXPECT_EQ(loaded->MainGraph().NodeCount(), 0u);
}

// ---------------------------------------------------------------- malformed and hostile models

TEST(ModelLoaderTest, NotAProtobuf) {
  std::mt19937 random(1234);
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  PRISM_EXPECT_ERROR(CaptureError([&] { Model::LoadFromBytes(bytes.data(), bytes.size()); }),
                     kInvalidProtobuf, "failed to parse the model: not a valid ONNX ModelProto");
  const std::string text = "this is not an onnx model\n";
  PRISM_EXPECT_ERROR(CaptureError([&] { Model::LoadFromBytes(text.data(), text.size()); }),
                     kInvalidProtobuf, "not a valid ONNX ModelProto");
}

TEST(ModelLoaderTest, EmptyInputHasNoGraph) {
  PRISM_EXPECT_ERROR(CaptureError([&] { Model::LoadFromBytes("", 0); }), kInvalidGraph,
                     "the model has no graph");
}

TEST(ModelLoaderTest, TruncatedFile) {
  TempDir dir;
  const std::string bytes = Serialize(AddModel());
  const std::string path = dir.Write("truncated.onnx", bytes.substr(0, bytes.size() / 2));
  PRISM_EXPECT_ERROR(CaptureError([&] { Model::LoadFromFile(path); }), kInvalidProtobuf,
                     "failed to parse the model");
}

TEST(ModelLoaderTest, MissingFile) {
  TempDir dir;
  PRISM_EXPECT_ERROR(CaptureError([&] { Model::LoadFromFile(dir.File("absent.onnx")); }),
                     kNoSuchFile, "cannot open model file '" + dir.File("absent.onnx") + "'");
}

TEST(ModelLoaderTest, PathThatIsNotAFile) {
  TempDir dir;
  PRISM_EXPECT_ERROR(CaptureError([&] { Model::LoadFromFile(dir.Path()); }), kInvalidArgument,
                     "model path '" + dir.Path() + "' is not a regular file");
  PRISM_EXPECT_ERROR(CaptureError([&] { Model::LoadFromFile("/dev/null"); }), kInvalidArgument,
                     "model path '/dev/null' is not a regular file");
}

TEST(ModelLoaderTest, NoGraph) {
  onnx::ModelProto model = AddModel();
  model.clear_graph();
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph, "the model has no graph");
}

TEST(ModelLoaderTest, MissingAiOnnxOpset) {
  onnx::ModelProto model = AddModel();
  model.clear_opset_import();
  auto* custom = model.add_opset_import();
  custom->set_domain("com.example");
  custom->set_version(1);
  // Models without nodes of the default domain may omit it; a node in it names the problem.
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "Add node 'add' in graph main uses domain '', which the model does not import "
                     "(no opset_import entry)");
}

TEST(ModelLoaderTest, UnsupportedOpsetVersion) {
  onnx::ModelProto model = AddModel();
  model.mutable_opset_import(0)->set_version(99);
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "the model imports ai.onnx opset 99; Prism supports opsets up to 28");
  model.mutable_opset_import(0)->set_version(0);
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph, "invalid opset version 0 for domain ''");
  model.mutable_opset_import(0)->set_version(17);
  auto* ml = model.add_opset_import();
  ml->set_domain("ai.onnx.ml");
  ml->set_version(99);
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph, "the model imports ai.onnx.ml opset 99");
}

// Exporters repeat imports; onnxruntime accepts them, the last one winning.
TEST(ModelLoaderTest, OpsetImportedTwiceLastOneWins) {
  onnx::ModelProto model = AddModel();
  auto* again = model.add_opset_import();
  again->set_domain("ai.onnx");
  again->set_version(17);
  EXPECT_EQ(LoadModel(model)->MainGraph().GetNode(0).OpsetVersion(), 17);
  auto* other = model.add_opset_import();
  other->set_domain("");
  other->set_version(13);
  EXPECT_EQ(LoadModel(model)->MainGraph().GetNode(0).OpsetVersion(), 13);
}

TEST(ModelLoaderTest, NodeInDomainNotImported) {
  onnx::ModelProto model = AddModel();
  AddNode(model.mutable_graph(), "Frobnicate", {"Y"}, {"Z"}, "frob", "com.unknown");
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "Frobnicate node 'frob' in graph main uses domain 'com.unknown', which the "
                     "model does not import");
}

TEST(ModelLoaderTest, DanglingInput) {
  onnx::ModelProto model = AddModel();
  AddNode(model.mutable_graph(), "Relu", {"ghost"}, {"Z"}, "relu");
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "Relu node 'relu' in graph main: input 'ghost' is not produced by any node");
}

TEST(ModelLoaderTest, DanglingGraphOutput) {
  onnx::ModelProto model = AddModel();
  AddOutput(model.mutable_graph(), "nowhere", TensorProto::FLOAT);
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "graph main output 'nowhere' is not produced by any node");
}

TEST(ModelLoaderTest, DuplicateOutputNameFromTwoNodes) {
  onnx::ModelProto model = AddModel();
  AddNode(model.mutable_graph(), "Relu", {"X"}, {"Y"}, "second_producer");
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "value 'Y' is produced by node 'second_producer' but is already a graph "
                     "input, initializer or another node's output");
}

TEST(ModelLoaderTest, NodeOutputNamedLikeGraphInput) {
  onnx::ModelProto model = AddModel();
  AddNode(model.mutable_graph(), "Relu", {"Y"}, {"X"}, "overwrites_input");
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "value 'X' is produced by node 'overwrites_input' but is already");
}

TEST(ModelLoaderTest, NodeOutputNamedLikeInitializer) {
  onnx::ModelProto model = AddModel();
  AddNode(model.mutable_graph(), "Relu", {"Y"}, {"W"}, "overwrites_weight");
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "value 'W' is produced by node 'overwrites_weight' but is already");
}

TEST(ModelLoaderTest, Cycle) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddNode(graph, "Add", {"X", "B"}, {"A"}, "node_a");
  AddNode(graph, "Relu", {"A"}, {"B"}, "node_b");
  AddOutput(graph, "A", TensorProto::FLOAT);
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "graph main has a cycle through nodes 'node_a', 'node_b'");
}

TEST(ModelLoaderTest, SelfLoop) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddNode(graph, "Relu", {"A"}, {"A"}, "self");
  AddOutput(graph, "A", TensorProto::FLOAT);
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph, "has a cycle through nodes 'self'");
}

TEST(ModelLoaderTest, DuplicateInitializerAndInputNames) {
  onnx::ModelProto model = AddModel();
  AddFloatInitializer(model.mutable_graph(), "W", {2}, {1.f, 2.f});
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph, "graph main has two initializers named 'W'");
  onnx::ModelProto twice = AddModel();
  AddInput(twice.mutable_graph(), "X", TensorProto::FLOAT, {2});
  PRISM_EXPECT_ERROR(LoadError(twice), kInvalidGraph, "graph main declares input 'X' twice");
}

TEST(ModelLoaderTest, CycleThroughASubgraphsOuterScopeRead) {
  // The If's branch reads Z, which is computed from the If's own output.
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "C", TensorProto::BOOL, {});
  auto* node = AddNode(graph, "If", {"C"}, {"Y"}, "loop_if");
  auto* then_branch = AddGraphAttr(node, "then_branch");
  AddNode(then_branch, "Identity", {"Z"}, {"T"}, "reads_z");
  AddOutput(then_branch, "T", TensorProto::FLOAT);
  AddNode(graph, "Relu", {"Y"}, {"Z"}, "makes_z");
  AddOutput(graph, "Z", TensorProto::FLOAT);
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "graph main has a cycle through nodes 'loop_if', 'makes_z'");
}

TEST(ModelLoaderTest, SubgraphReadingAnUndefinedValue) {
  onnx::ModelProto model = IfModelReading("nowhere");
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "Identity node 'reader' in graph main/if:then_branch: input 'nowhere' is not "
                     "produced by any node, graph input, initializer or outer scope");
}

TEST(ModelLoaderTest, BadTensorAttribute) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  auto* node = AddNode(graph, "Constant", {}, {"K"}, "const");
  auto* attr = node->add_attribute();
  attr->set_name("value");
  attr->set_type(onnx::AttributeProto::TENSOR);
  *attr->mutable_t() = TensorHeader("", TensorProto::FLOAT, {2});
  attr->mutable_t()->set_raw_data(std::string(3, '\0'));
  AddOutput(graph, "K", TensorProto::FLOAT);
  PRISM_EXPECT_ERROR(
      LoadError(model), kInvalidGraph,
      "Constant node 'const' attribute 'value' has 3 bytes of raw_data, but shape [2] "
      "of float needs 8");
}

TEST(ModelLoaderTest, DuplicateAndUntypedAttributes) {
  onnx::ModelProto model = AddModel();
  auto* node = model.mutable_graph()->mutable_node(0);
  AddIntsAttr(node, "axes", {0});
  AddIntsAttr(node, "axes", {1});
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph, "Add node 'add' has attribute 'axes' twice");
  onnx::ModelProto untyped = AddModel();
  auto* attr = untyped.mutable_graph()->mutable_node(0)->add_attribute();
  attr->set_name("mystery");
  PRISM_EXPECT_ERROR(LoadError(untyped), kInvalidGraph,
                     "Add node 'add' attribute 'mystery' has no valid type (0)");
}

// Sparse initializers are densified at load; bad ones are refused naming what is wrong.
TEST(ModelLoaderTest, SparseInitializerErrors) {
  const auto model_with = [](const std::vector<int64_t>& indices,
                             const std::vector<int64_t>& shape) {
    onnx::ModelProto model = AddModel();
    auto* sparse = model.mutable_graph()->add_sparse_initializer();
    *sparse->mutable_values() = TensorHeader("S", TensorProto::FLOAT, {2});
    sparse->mutable_values()->add_float_data(1);
    sparse->mutable_values()->add_float_data(2);
    *sparse->mutable_indices() = TensorHeader("S_i", TensorProto::INT64, shape);
    for (int64_t i : indices) sparse->mutable_indices()->add_int64_data(i);
    sparse->add_dims(2);
    sparse->add_dims(2);
    return model;
  };
  EXPECT_EQ(LoadModel(model_with({1, 2}, {2}))->MainGraph().Initializers().count("S"), 1u);
  PRISM_EXPECT_ERROR(LoadError(model_with({1, 4}, {2})), kInvalidGraph,
                     "sparse initializer 'S' of graph main: index 4 of value 1 is out of range "
                     "for 4 elements");
  PRISM_EXPECT_ERROR(LoadError(model_with({0, 0, 1, 2}, {2, 2})), kInvalidGraph,
                     "index 2 of value 1 is out of range for dim 1 of size 2");
  PRISM_EXPECT_ERROR(LoadError(model_with({0, 1, 2}, {3})), kInvalidGraph,
                     "indices of shape [3] do not match 2 values of a tensor of rank 2");
}

TEST(ModelLoaderTest, InitializerRawDataSizeMismatch) {
  TensorProto init = TensorHeader("W", TensorProto::FLOAT, {2});
  init.set_raw_data(std::string(4, '\0'));
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(init)), kInvalidGraph,
                     "initializer 'W' of graph main has 4 bytes of raw_data, but shape [2] of "
                     "float needs 8");
  TensorProto int4 = TensorHeader("Q", 22, {3});  // 3 nibbles need 2 bytes
  int4.set_raw_data(std::string(3, '\0'));
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(int4)), kInvalidGraph,
                     "initializer 'Q' of graph main has 3 bytes of raw_data, but shape [3] of "
                     "int4 needs 2");
}

TEST(ModelLoaderTest, InitializerTypedFieldCountMismatch) {
  TensorProto init = TensorHeader("W", TensorProto::FLOAT, {2});
  for (float v : {1.f, 2.f, 3.f}) init.add_float_data(v);
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(init)), kInvalidGraph,
                     "initializer 'W' of graph main has 3 values in float_data, but shape [2] of "
                     "float needs 2");
  TensorProto f16 = TensorHeader("H", TensorProto::FLOAT16, {4});
  f16.add_int32_data(0);
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(f16)), kInvalidGraph,
                     "initializer 'H' of graph main has 1 values in int32_data, but shape [4] of "
                     "float16 needs 4");
  TensorProto strings = TensorHeader("S", TensorProto::STRING, {2});
  strings.add_string_data("only one");
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(strings)), kInvalidGraph,
                     "initializer 'S' of graph main has 1 strings for shape [2]");
  TensorProto int4 = TensorHeader("Q", 22, {4});  // 4 nibbles: 2 packed entries
  for (int i = 0; i < 4; ++i) int4.add_int32_data(0);
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(int4)), kInvalidGraph,
                     "initializer 'Q' of graph main has 4 values in int32_data, but shape [4] of "
                     "int4 needs 2");
}

TEST(ModelLoaderTest, InitializerNegativeDim) {
  TensorProto init = TensorHeader("W", TensorProto::FLOAT, {2, -3});
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(init)), kInvalidGraph,
                     "initializer 'W' of graph main has a negative dimension -3");
}

TEST(ModelLoaderTest, InitializerDimsOverflowInt64) {
  TensorProto init = TensorHeader("W", TensorProto::FLOAT, {int64_t{1} << 32, int64_t{1} << 32});
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(init)), kInvalidGraph,
                     "initializer 'W' of graph main: shape [4294967296,4294967296] has more "
                     "elements than fit in int64");
  // Fits int64 elements, but not bytes.
  TensorProto bytes = TensorHeader("B", TensorProto::DOUBLE, {int64_t{1} << 62});
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(bytes)), kInvalidGraph,
                     "initializer 'B' of graph main: tensor of 4611686018427387904 double "
                     "elements overflows the address space");
}

TEST(ModelLoaderTest, BoolRawDataOtherThanZeroOrOneIsRefused) {
  // Found by the tensor_proto fuzzer: a bool byte of 2 was loaded as is, and every kernel reading
  // it as bool has undefined behaviour.
  TensorProto init = TensorHeader("B", TensorProto::BOOL, {3});
  init.set_raw_data(std::string("\x01\x00\x02", 3));
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(init)), kInvalidGraph,
                     "initializer 'B' of graph main holds byte 2 at element 2 of its bool "
                     "raw_data; bool elements must be 0 or 1");
  init.set_raw_data(std::string("\x01\x00\x01", 3));
  EXPECT_NO_THROW(LoadModel(InitializerModel(init)));
  // Typed int32_data is converted (non-zero is true), never copied as bytes.
  TensorProto typed = TensorHeader("T", TensorProto::BOOL, {2});
  typed.add_int32_data(7);
  typed.add_int32_data(0);
  auto loaded = LoadModel(InitializerModel(typed));
  const auto* bytes =
      static_cast<const uint8_t*>(loaded->MainGraph().FindInitializer("T")->RawData());
  EXPECT_EQ(bytes[0], 1);
  EXPECT_EQ(bytes[1], 0);
}

TEST(ModelLoaderTest, InitializerRankOverTheMaximum) {
  TensorProto init = TensorHeader("W", TensorProto::FLOAT, std::vector<int64_t>(65, 1));
  init.add_float_data(1.f);
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(init)), kInvalidGraph,
                     "initializer 'W' of graph main: a shape of rank 65 exceeds the maximum rank "
                     "64");
}

TEST(ModelLoaderTest, DeclaredShapesOfAbsurdRankOrSizeAreRefused) {
  // Graph inputs, outputs and value_info: a rank over 64, or an element count past int64.
  onnx::ModelProto deep = MakeModel();
  AddInput(deep.mutable_graph(), "X", TensorProto::FLOAT,
           std::vector<DimSpec>(65, DimSpec(int64_t{1})));
  AddNode(deep.mutable_graph(), "Relu", {"X"}, {"Y"}, "relu");
  AddOutput(deep.mutable_graph(), "Y", TensorProto::FLOAT);
  PRISM_EXPECT_ERROR(LoadError(deep), kInvalidGraph,
                     "input 'X' of graph main declares rank 65, more than the maximum rank 64");
  EXPECT_NO_THROW(LoadModel([] {  // rank 64 with symbolic dims is fine
    onnx::ModelProto model = MakeModel();
    AddInput(model.mutable_graph(), "X", TensorProto::FLOAT,
             std::vector<DimSpec>(64, DimSpec("d")));
    AddNode(model.mutable_graph(), "Relu", {"X"}, {"Y"}, "relu");
    AddOutput(model.mutable_graph(), "Y", TensorProto::FLOAT);
    return model;
  }()));

  onnx::ModelProto huge = MakeModel();
  AddInput(huge.mutable_graph(), "X", TensorProto::FLOAT,
           {int64_t{1} << 32, "batch", int64_t{1} << 32});
  AddNode(huge.mutable_graph(), "Relu", {"X"}, {"Y"}, "relu");
  AddOutput(huge.mutable_graph(), "Y", TensorProto::FLOAT);
  PRISM_EXPECT_ERROR(LoadError(huge), kInvalidGraph,
                     "input 'X' of graph main declares shape [4294967296,batch,4294967296], whose "
                     "element count overflows int64");
  // A zero dim makes any size empty.
  huge.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(0);
  EXPECT_NO_THROW(LoadModel(huge));

  onnx::ModelProto output = MakeModel();
  AddInput(output.mutable_graph(), "X", TensorProto::FLOAT, {2});
  AddNode(output.mutable_graph(), "Relu", {"X"}, {"Y"}, "relu");
  AddOutput(output.mutable_graph(), "Y", TensorProto::FLOAT,
            std::vector<DimSpec>(100, DimSpec(int64_t{2})));
  PRISM_EXPECT_ERROR(LoadError(output), kInvalidGraph,
                     "output 'Y' of graph main declares rank 100, more than the maximum rank 64");

  onnx::ModelProto info = MakeModel();
  AddInput(info.mutable_graph(), "X", TensorProto::FLOAT, {2});
  AddNode(info.mutable_graph(), "Relu", {"X"}, {"R"}, "relu");
  AddNode(info.mutable_graph(), "Relu", {"R"}, {"Y"}, "relu2");
  AddOutput(info.mutable_graph(), "Y", TensorProto::FLOAT);
  auto* value_info = info.mutable_graph()->add_value_info();
  value_info->set_name("R");
  std::vector<DimSpec> dims(3, DimSpec(int64_t{1} << 40));
  SetTensorType(value_info->mutable_type(), TensorProto::FLOAT, &dims);
  PRISM_EXPECT_ERROR(LoadError(info), kInvalidGraph,
                     "value_info 'R' of graph main declares shape "
                     "[1099511627776,1099511627776,1099511627776], whose element count overflows "
                     "int64");
}

TEST(ModelLoaderTest, HugeInitializerWithTinyDataIsRefusedBeforeAllocating) {
  // 2^40 floats (4 TiB) declared with 4 bytes of data: must fail on the size check, not try to
  // allocate the declared size first.
  TensorProto raw = TensorHeader("W", TensorProto::FLOAT, {int64_t{1} << 40});
  raw.set_raw_data(std::string(4, '\0'));
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(raw)), kInvalidGraph,
                     "initializer 'W' of graph main has 4 bytes of raw_data, but shape "
                     "[1099511627776] of float needs 4398046511104");
  TensorProto typed = TensorHeader("T", TensorProto::FLOAT, {int64_t{1} << 40});
  typed.add_float_data(1.f);
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(typed)), kInvalidGraph,
                     "initializer 'T' of graph main has 1 values in float_data, but shape "
                     "[1099511627776] of float needs 1099511627776");
  TensorProto strings = TensorHeader("S", TensorProto::STRING, {int64_t{1} << 40});
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(strings)), kInvalidGraph,
                     "initializer 'S' of graph main has 0 strings for shape [1099511627776]");
}

TEST(ModelLoaderTest, UnknownElementType) {
  TensorProto init = TensorHeader("W", 99, {1});
  init.set_raw_data(std::string(4, '\0'));
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(init)), kInvalidGraph,
                     "initializer 'W' of graph main has unknown element type 99");
  TensorProto none = TensorHeader("U", 0, {1});
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(none)), kInvalidGraph,
                     "initializer 'U' of graph main has no data_type");
  // Complex typed fields hold two values (real, imaginary) per element.
  TensorProto complex = TensorHeader("C", TensorProto::COMPLEX64, {2});
  for (float v : {1.f, 2.f, 3.f}) complex.add_float_data(v);
  PRISM_EXPECT_ERROR(LoadError(InitializerModel(complex)), kInvalidGraph,
                     "has 3 values in float_data, but shape [2] of complex64 needs 4");

  onnx::ModelProto model = AddModel();
  model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(99);
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "input 'X' of graph main has unknown element type 99");
}

TEST(ModelLoaderTest, UnsupportedIrVersion) {
  onnx::ModelProto model = AddModel();
  model.set_ir_version(99);
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     MakeString("unsupported IR version 99 (supported: 3 to ", kMaxIrVersion, ")"));
  model.set_ir_version(0);
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph, "unsupported IR version 0");
}

// IR version 14 (onnx 1.23, the version its helper writes by default): FLOAT6E2M3 and
// FLOAT6E3M2, which Prism has, and opaque types outside ONNX-ML, which it refuses by name.
TEST(ModelLoaderTest, IrVersion14LoadsAndOpaqueTypesAreRefused) {
  onnx::ModelProto model = AddModel();
  model.set_ir_version(14);
  EXPECT_EQ(LoadModel(model)->IrVersion(), 14);
  onnx::ModelProto opaque = AddModel();
  opaque.set_ir_version(14);
  auto* type = opaque.mutable_graph()->mutable_input(0)->mutable_type();
  type->Clear();
  type->mutable_opaque_type()->set_domain("com.example");
  type->mutable_opaque_type()->set_name("Handle");
  PRISM_EXPECT_ERROR(LoadError(opaque), kNotImplemented,
                     "input 'X' of graph main has the opaque type com.example.Handle, which "
                     "Prism does not support");
}

TEST(ModelLoaderTest, NodeWithoutOpType) {
  onnx::ModelProto model = AddModel();
  AddNode(model.mutable_graph(), "", {"Y"}, {"Z"}, "nameless_op");
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "graph main: node 1 ('nameless_op') has no op_type");
}

// X -> local.Twice(X) -> Y, where Twice(a) = Add(a, a); `body` may rewrite the function.
onnx::ModelProto FunctionModel() {
  onnx::ModelProto model = MakeModel();
  auto* local = model.add_opset_import();
  local->set_domain("local");
  local->set_version(1);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddNode(graph, "Twice", {"X"}, {"Y"}, "call")->set_domain("local");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  onnx::FunctionProto* function = model.add_functions();
  function->set_name("Twice");
  function->set_domain("local");
  function->add_input("a");
  function->add_output("b");
  auto* import = function->add_opset_import();
  import->set_domain("");
  import->set_version(17);
  onnx::NodeProto* add = function->add_node();
  add->set_op_type("Add");
  add->add_input("a");
  add->add_input("a");
  add->add_output("b");
  return model;
}

TEST(ModelLoaderTest, LocalFunctionCallsAreInlined) {
  std::shared_ptr<const Model> model = LoadModel(FunctionModel());
  const Graph& graph = model->MainGraph();
  ASSERT_EQ(graph.NodeCount(), 1u);
  const Node& node = graph.GetNode(graph.TopologicalOrder()[0]);
  EXPECT_EQ(node.OpType(), "Add");
  EXPECT_EQ(node.Name(), "call/0/Add");
  EXPECT_EQ(node.Inputs()[0]->name, "X");
  EXPECT_EQ(node.Outputs()[0]->name, "Y");
}

TEST(ModelLoaderTest, LocalFunctionErrorsNameTheRule) {
  onnx::ModelProto recursive = FunctionModel();
  recursive.mutable_functions(0)->mutable_node(0)->set_op_type("Twice");
  recursive.mutable_functions(0)->mutable_node(0)->set_domain("local");
  PRISM_EXPECT_ERROR(LoadError(recursive), kInvalidGraph, "local function 'Twice' calls itself");

  onnx::ModelProto opsets = FunctionModel();
  opsets.mutable_functions(0)->mutable_opset_import(0)->set_version(13);
  PRISM_EXPECT_ERROR(LoadError(opsets), kInvalidGraph,
                     "local function 'Twice' imports opset 13 of domain '' but the model imports "
                     "17");

  onnx::ModelProto twice = FunctionModel();
  *twice.add_functions() = twice.functions(0);
  PRISM_EXPECT_ERROR(LoadError(twice), kInvalidGraph,
                     "the model defines local function 'local.Twice' twice");

  onnx::ModelProto inputs = FunctionModel();
  inputs.mutable_graph()->mutable_node(0)->add_input("X");
  PRISM_EXPECT_ERROR(LoadError(inputs), kInvalidGraph,
                     "node 'call' passes 2 inputs to local function 'Twice', which takes 1");
}

// A chain of If nodes, each holding the next graph in then_branch, `levels` subgraphs deep.
onnx::ModelProto NestedModel(int levels) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "C", TensorProto::BOOL, {});
  AddInput(graph, "X", TensorProto::FLOAT, {1});
  for (int level = 0; level < levels; ++level) {
    const std::string out = "out" + std::to_string(level);
    auto* node = AddNode(graph, "If", {"C"}, {out}, "if" + std::to_string(level));
    AddOutput(graph, out, TensorProto::FLOAT);
    graph = AddGraphAttr(node, "then_branch");
    graph->set_name("level" + std::to_string(level + 1));
  }
  AddNode(graph, "Relu", {"X"}, {"deepest"}, "deep_relu");
  AddOutput(graph, "deepest", TensorProto::FLOAT);
  return model;
}

TEST(ModelLoaderTest, GradientOfANodeMissingAnInputIsRefused) {
  // Found by the model fuzzer: Gradient nodes are expanded before the graph is checked, and the
  // rule for Add read input 1 of an Add that had one input (a heap overflow in the proto).
  onnx::ModelProto model = MakeModel(17);
  auto* training = model.add_opset_import();
  training->set_domain("ai.onnx.preview.training");
  training->set_version(1);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddNode(graph, "Add", {"X"}, {"Z"}, "short_add");
  auto* gradient = AddNode(graph, "Gradient", {"X"}, {"dX"}, "grad", "ai.onnx.preview.training");
  auto* xs = gradient->add_attribute();
  xs->set_name("xs");
  xs->set_type(onnx::AttributeProto::STRINGS);
  xs->add_strings("X");
  auto* y = gradient->add_attribute();
  y->set_name("y");
  y->set_type(onnx::AttributeProto::STRING);
  y->set_s("Z");
  AddOutput(graph, "dX", TensorProto::FLOAT);
  PRISM_EXPECT_ERROR(LoadError(model), kInvalidGraph,
                     "Gradient node 'grad': Add node 'short_add' has 1 inputs; its gradient reads "
                     "input 1");
}

TEST(ModelLoaderTest, SubgraphNestingLimit) {
  auto loaded = LoadModel(NestedModel(kMaxSubgraphDepth));  // exactly at the limit: fine
  EXPECT_EQ(loaded->MainGraph().NodeCount(), 1u);
  PRISM_EXPECT_ERROR(LoadError(NestedModel(kMaxSubgraphDepth + 1)), kInvalidGraph,
                     "/if32:then_branch is nested deeper than 32 levels");
}

TEST(ModelLoaderTest, ExtremeNestingIsRefusedWithoutStackOverflow) {
  // Far beyond protobuf's recursion limit: refused by the parser, not by a crash.
  PRISM_EXPECT_ERROR(LoadError(NestedModel(400)), kInvalidProtobuf, "failed to parse the model");
}

TEST(ModelLoaderTest, ConvWithZeroStrideNeverCrashesTheLoader) {
  // libonnx shape inference divides by the stride; Prism must never run it while loading.
  onnx::ModelProto model = MakeModel(11, 6);
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {1, 1, 4, 4});
  AddFloatInitializer(graph, "W", {1, 1, 2, 2}, {1.f, 1.f, 1.f, 1.f});
  auto* conv = AddNode(graph, "Conv", {"X", "W"}, {"Y"}, "zero_stride_conv");
  AddIntsAttr(conv, "strides", {0, 0});
  AddOutput(graph, "Y", TensorProto::FLOAT);
  auto loaded = LoadModel(model);
  EXPECT_EQ(loaded->MainGraph().NodeCount(), 1u);

  // Creating and running a session must fail cleanly too (kernel validation), never crash.
  const std::string bytes = Serialize(model);
  const Status status = CaptureError([&] {
    InferenceSession session;
    session.Load(bytes.data(), bytes.size());
    std::vector<float> x(16, 1.f);
    session.Run({}, {"X"}, {Value(MakeTensor<float>({1, 1, 4, 4}, x))}, {});
  });
  EXPECT_NE(status.Message().find("zero_stride_conv"), std::string::npos) << status.Message();
  EXPECT_NE(status.Message().find("stride"), std::string::npos) << status.Message();
}

// ---------------------------------------------------------------- external data

// A model whose initializer W (float[2]) lives in external data with these entries.
onnx::ModelProto ExternalModel(const std::vector<std::pair<std::string, std::string>>& entries,
                               int32_t type = TensorProto::FLOAT) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", type, {2});
  TensorProto* init = graph->add_initializer();
  *init = TensorHeader("W", type, {2});
  init->set_data_location(TensorProto::EXTERNAL);
  for (const auto& [key, value] : entries) {
    auto* entry = init->add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  }
  AddNode(graph, "Add", {"X", "W"}, {"Y"}, "add");
  AddOutput(graph, "Y", type);
  return model;
}

std::string FloatBytes(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

bool IsMapped(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.size() >= path.size() &&
        line.compare(line.size() - path.size(), path.size(), path) == 0)
      return true;
  return false;
}

TEST(ModelLoaderTest, ExternalDataLoadsMemoryMapped) {
  TempDir dir;
  const std::string weights = dir.Write("weights.bin", FloatBytes({1.f, 2.f, 3.f, 4.f}));
  const std::string path = dir.Write(
      "model.onnx",
      Serialize(ExternalModel({{"location", "weights.bin"}, {"offset", "8"}, {"length", "8"}})));
  {
    auto model = Model::LoadFromFile(path);
    const Tensor* w = model->MainGraph().FindInitializer("W");
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->Data<float>()[0], 3.f);
    EXPECT_EQ(w->Data<float>()[1], 4.f);
    EXPECT_TRUE(IsMapped(std::filesystem::canonical(weights).string()))
        << "external data should be memory-mapped, not read";

    InferenceSession session;
    session.Load(path);
    auto out = session.Run({}, {"X"}, {Value(MakeTensor<float>({2}, {10.f, 20.f}))}, {});
    EXPECT_EQ(CompareValues(Value(MakeTensor<float>({2}, {13.f, 24.f})), out[0], {}), "");
  }
  EXPECT_FALSE(IsMapped(std::filesystem::canonical(weights).string()))
      << "the mapping must go away with the model";
}

TEST(ModelLoaderTest, ExternalDataWithoutOffsetOrLengthAndFromBytesWithFolder) {
  TempDir dir;
  dir.Write("w.bin", FloatBytes({5.f, 6.f}));
  auto model = LoadModel(ExternalModel({{"location", "w.bin"}}), dir.Path());
  EXPECT_EQ(model->MainGraph().FindInitializer("W")->Data<float>()[1], 6.f);
  // Subfolders of the model folder are fine.
  std::filesystem::create_directory(dir.File("sub"));
  dir.Write("sub/w.bin", FloatBytes({7.f, 8.f}));
  auto nested = LoadModel(ExternalModel({{"location", "sub/w.bin"}}), dir.Path());
  EXPECT_EQ(nested->MainGraph().FindInitializer("W")->Data<float>()[0], 7.f);
}

TEST(ModelLoaderTest, ExternalDataAbsolutePath) {
  TempDir dir;
  const std::string weights = dir.Write("w.bin", FloatBytes({1.f, 2.f}));
  PRISM_EXPECT_ERROR(LoadError(ExternalModel({{"location", weights}}), dir.Path()),
                     kInvalidArgument,
                     "initializer 'W' of graph main: external data location '" + weights +
                         "' is an absolute path; it must be relative to the model's folder");
}

TEST(ModelLoaderTest, ExternalDataEscapingWithDotDot) {
  TempDir dir;
  std::filesystem::create_directory(dir.File("model"));
  dir.Write("escape.bin", FloatBytes({1.f, 2.f}));
  PRISM_EXPECT_ERROR(
      LoadError(ExternalModel({{"location", "../escape.bin"}}), dir.File("model")),
      kInvalidArgument,
      "initializer 'W' of graph main: external data location '../escape.bin' leaves the model's "
      "folder");
  PRISM_EXPECT_ERROR(
      LoadError(ExternalModel({{"location", "sub/../../escape.bin"}}), dir.File("model")),
      kInvalidArgument, "leaves the model's folder");
}

TEST(ModelLoaderTest, ExternalDataSymlinkOutsideTheFolder) {
  TempDir outside;
  const std::string secret = outside.Write("secret.bin", FloatBytes({1.f, 2.f}));
  TempDir dir;
  ASSERT_EQ(::symlink(secret.c_str(), dir.File("link.bin").c_str()), 0);
  PRISM_EXPECT_ERROR(LoadError(ExternalModel({{"location", "link.bin"}}), dir.Path()),
                     kInvalidArgument,
                     "initializer 'W' of graph main: external data location 'link.bin' resolves "
                     "(through a symbolic link) outside the model's folder");
  // A symlinked folder inside the model folder that points outside is caught the same way.
  ASSERT_EQ(::symlink(outside.Path().c_str(), dir.File("linked_dir").c_str()), 0);
  PRISM_EXPECT_ERROR(LoadError(ExternalModel({{"location", "linked_dir/secret.bin"}}), dir.Path()),
                     kInvalidArgument, "resolves (through a symbolic link) outside");
}

TEST(ModelLoaderTest, ExternalDataRangeBeyondFileEnd) {
  TempDir dir;
  dir.Write("w.bin", FloatBytes({1.f, 2.f}));  // 8 bytes
  PRISM_EXPECT_ERROR(
      LoadError(ExternalModel({{"location", "w.bin"}, {"offset", "4"}, {"length", "8"}}),
                dir.Path()),
      kInvalidGraph,
      "initializer 'W' of graph main: external data range [4, 12) is beyond the end of");
  PRISM_EXPECT_ERROR(
      LoadError(ExternalModel({{"location", "w.bin"}, {"offset", "9223372036854775807"}}),
                dir.Path()),
      kInvalidGraph, "external data range [9223372036854775807, 9223372036854775815) is beyond");
}

TEST(ModelLoaderTest, ExternalDataNonNumericOffset) {
  TempDir dir;
  dir.Write("w.bin", FloatBytes({1.f, 2.f}));
  PRISM_EXPECT_ERROR(
      LoadError(ExternalModel({{"location", "w.bin"}, {"offset", "abc"}}), dir.Path()),
      kInvalidProtobuf,
      "initializer 'W' of graph main: external data offset 'abc' is not a non-negative integer");
  PRISM_EXPECT_ERROR(
      LoadError(ExternalModel({{"location", "w.bin"}, {"length", "-8"}}), dir.Path()),
      kInvalidProtobuf, "external data length '-8' is not a non-negative integer");
  PRISM_EXPECT_ERROR(
      LoadError(ExternalModel({{"location", "w.bin"}, {"offset", "99999999999999999999"}}),
                dir.Path()),
      kInvalidProtobuf, "external data offset '99999999999999999999' is not a non-negative");
}

TEST(ModelLoaderTest, ExternalDataLengthMismatch) {
  TempDir dir;
  dir.Write("w.bin", FloatBytes({1.f, 2.f, 3.f}));
  PRISM_EXPECT_ERROR(
      LoadError(ExternalModel({{"location", "w.bin"}, {"length", "12"}}), dir.Path()),
      kInvalidGraph,
      "initializer 'W' of graph main: external data length 12 does not match shape [2] of float "
      "(8 bytes)");
}

TEST(ModelLoaderTest, ExternalDataMissingFile) {
  TempDir dir;
  PRISM_EXPECT_ERROR(LoadError(ExternalModel({{"location", "missing.bin"}}), dir.Path()),
                     kNoSuchFile,
                     "initializer 'W' of graph main: external data file 'missing.bin' not found");
  PRISM_EXPECT_ERROR(LoadError(ExternalModel({{"offset", "0"}}), dir.Path()), kInvalidProtobuf,
                     "initializer 'W' of graph main has an empty external data location");
}

TEST(ModelLoaderTest, ExternalDataThatIsAFolder) {
  TempDir dir;
  std::filesystem::create_directory(dir.File("folder"));
  PRISM_EXPECT_ERROR(LoadError(ExternalModel({{"location", "folder"}}), dir.Path()),
                     kInvalidArgument, "is not a regular file");
}

TEST(ModelLoaderTest, ExternalDataFromBytesWithoutFolderIsRefused) {
  PRISM_EXPECT_ERROR(LoadError(ExternalModel({{"location", "w.bin"}})), kInvalidArgument,
                     "initializer 'W' of graph main uses external data, but the model was loaded "
                     "from bytes without a folder");
}

TEST(ModelLoaderTest, ExternalDataForStringsIsRefused) {
  // Mapping file bytes as std::string objects would hand kernels forged pointers.
  TempDir dir;
  dir.Write("s.bin", std::string(256, 'A'));
  PRISM_EXPECT_ERROR(
      LoadError(ExternalModel({{"location", "s.bin"}}, TensorProto::STRING), dir.Path()),
      kInvalidGraph, "initializer 'W' of graph main: string tensors cannot use external data");
}

TEST(ModelLoaderTest, ExternalBoolDataOtherThanZeroOrOneIsRefused) {
  // The mapping is read-only and shared: it is checked, not rewritten.
  TempDir dir;
  dir.Write("b.bin", std::string("\x01\x05", 2));
  PRISM_EXPECT_ERROR(
      LoadError(ExternalModel({{"location", "b.bin"}}, TensorProto::BOOL), dir.Path()),
      kInvalidGraph,
      "initializer 'W' of graph main holds byte 5 at element 1 of its bool external data; bool "
      "elements must be 0 or 1");
  dir.Write("b.bin", std::string("\x01\x00", 2));
  EXPECT_NO_THROW(LoadModel(ExternalModel({{"location", "b.bin"}}, TensorProto::BOOL), dir.Path()));
}

}  // namespace
}  // namespace prism::testing
