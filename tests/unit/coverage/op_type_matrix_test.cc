// Type-coverage matrix: runs every element type that the CPU registry registers for an op at
// the first opset of every ONNX schema version range of that op (the ranges are the spec's, as
// onnx.defs lists them), on small data whose expected values are known exactly, and checks the
// values. Data-movement ops move "coded" elements (element i encodes a small integer, see
// coded_tensor.h); numeric ops use small integers that every type represents exactly.
// tests/coverage/check_type_coverage.py --strict requires every registered (op, version range,
// constraint, type), and every (T1, T2) pair of Cast and (T, T1) pair of Pow, to be computed in a
// passing test whose outputs match an oracle (here: values worked out by hand, checked with
// OpTester::Run or CompareWithOracle); most of them are exercised here.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "../tensor/coded_tensor.h"
#include "compute_evidence.h"
#include "framework/kernel_registry.h"
#include "framework/packed_int.h"
#include "op_tester.h"
#include "providers/cpu/cpu_execution_provider.h"
#include "registered_types.h"
#include "session/inference_session.h"

namespace prism::testing {
namespace {

using E = ElementType;

// The since_version of every ai.onnx schema of the op up to opset 28 (onnx 1.23.2).
const std::vector<int>& SpecVersions(const std::string& op) {
  static const std::map<std::string, std::vector<int>> versions = {
      {"Identity", {1, 13, 14, 16, 19, 21, 23, 24, 25}},
      {"Constant", {1, 9, 11, 12, 13, 19, 21, 23, 24, 25}},
      {"Shape", {1, 13, 15, 19, 21, 23, 24, 25}},
      {"Reshape", {1, 5, 13, 14, 19, 21, 23, 24, 25}},
      {"Flatten", {1, 9, 11, 13, 21, 23, 24, 25}},
      {"Squeeze", {1, 11, 13, 21, 23, 24, 25}},
      {"Unsqueeze", {1, 11, 13, 21, 23, 24, 25}},
      {"Transpose", {1, 13, 21, 23, 24, 25}},
      {"Concat", {1, 4, 11, 13}},
      {"Gather", {1, 11, 13}},
      {"If", {1, 11, 13, 16, 19, 21, 23, 24, 25}},
      {"Cast", {1, 6, 9, 13, 19, 21, 23, 24, 25, 28}},
      {"MatMul", {1, 9, 13}},
      {"Gemm", {1, 6, 7, 9, 11, 13}},
      {"Conv", {1, 11, 22}},
      {"MaxPool", {1, 8, 10, 11, 12, 22}},
      {"BatchNormalization", {14, 15}},  // older versions need per-version attributes
      {"Slice", {1, 10, 11, 13}},
      {"Split", {1, 2, 11, 13, 18}},
      {"Pad", {1, 2, 11, 13, 18, 19, 21, 23, 24, 25}},
      {"Tile", {1, 6, 13}},
      {"Size", {1, 13, 19, 21, 23, 24, 25}},
      {"Trilu", {14}},
      {"EyeLike", {9, 22}},
      {"Range", {11, 27}},
      {"CastLike", {15, 19, 21, 23, 24, 25}},
      {"DepthToSpace", {1, 11, 13, 28}},
      {"SpaceToDepth", {1, 13, 28}},
      {"Compress", {9, 11, 28}},
      {"ReverseSequence", {10, 28}},
      {"NonZero", {9, 13}},
      {"OneHot", {9, 11, 28}},
      {"TopK", {1, 10, 11, 24}},
      {"Dropout", {1, 6, 7, 10, 12, 13, 22}},
      {"Unique", {11, 28}},
      {"Resize", {10, 11, 13, 18, 19}},
      {"Upsample", {1, 7, 9, 10}},
      {"GatherElements", {11, 13}},
      {"ScatterElements", {11, 13, 16, 18}},
      {"Scatter", {9, 11}},
      {"GatherND", {11, 12, 13}},
      {"ScatterND", {11, 13, 16, 18}},
      {"Det", {11, 22}},
      {"Einsum", {12, 28}},
      {"CenterCropPad", {18}},
      {"BitCast", {26}},
      {"RMSNormalization", {23}},
      {"InstanceNormalization", {1, 6, 22}},
      {"GroupNormalization", {18, 21}},
      {"MeanVarianceNormalization", {9, 13}},
      {"LpNormalization", {1, 22}},
      {"LRN", {1, 13}},
      {"GlobalMaxPool", {1, 22}},
      {"GlobalLpPool", {1, 2, 22}},
      {"LpPool", {1, 2, 11, 18, 22}},
      {"NegativeLogLikelihoodLoss", {12, 13, 22}},
      {"SoftmaxCrossEntropyLoss", {12, 13}},
      {"Attention", {23, 24, 25}},
      {"ConvTranspose", {1, 11, 22}},
      {"RotaryEmbedding", {23}},
      {"GridSample", {16, 20, 22}},
      {"Loop", {1, 11, 13, 16, 19, 21, 23, 24, 25}},
      {"Scan", {8, 9, 11, 16, 19, 21, 23, 24, 25}},
      {"CausalConvWithState", {27}},
      {"LinearAttention", {27}},
      {"DFT", {17, 20}},
      {"SwiGLU", {28}},
      {"TensorScatter", {24}},
      {"AffineGrid", {20}},
      {"Col2Im", {18}},
      {"MaxUnpool", {9, 11, 22}},
      {"RoiAlign", {10, 16, 22}},
      {"DeformConv", {19, 22}},
      {"ConvInteger", {10}},
  };
  return versions.at(op);
}

// The element types the CPU registry registers for constraint of op at opset.
std::vector<ElementType> RegisteredTypes(const std::string& op, int opset,
                                         const std::string& constraint) {
  return CpuRegisteredTypes(op, opset, constraint);
}

// MakeCodedTensor extended to complex: element i is (codes[i], -codes[i]).
Tensor Coded(ElementType type, const std::vector<int64_t>& dims, const std::vector<int>& codes) {
  if (type != E::kComplex64 && type != E::kComplex128) return MakeCodedTensor(type, dims, codes);
  Tensor tensor(type, TensorShape(dims), GetCpuAllocator());
  PRISM_ENFORCE(static_cast<int64_t>(codes.size()) == tensor.NumElements(), kInvalidArgument,
                "Coded: ", codes.size(), " codes for ", tensor.Describe());
  for (size_t i = 0; i < codes.size(); ++i) {
    if (type == E::kComplex64) {
      static_cast<float*>(tensor.MutableRawData())[2 * i] = static_cast<float>(codes[i]);
      static_cast<float*>(tensor.MutableRawData())[2 * i + 1] = -static_cast<float>(codes[i]);
    } else {
      static_cast<double*>(tensor.MutableRawData())[2 * i] = codes[i];
      static_cast<double*>(tensor.MutableRawData())[2 * i + 1] = -codes[i];
    }
  }
  return tensor;
}

// Small integers that a type represents exactly (among 0..3).
std::vector<int> Representable(ElementType type) {
  switch (type) {
    case E::kBool:
    case E::kInt2:
      return {0, 1};
    case E::kFloat8E8M0:
      return {1, 2};  // powers of two only
    default:
      return {0, 1, 2, 3};
  }
}

// A tensor of type holding the numbers values (all representable, see above): exact encodings
// for the float8/float4 formats (checked against ml_dtypes), decimal strings for string.
Tensor Numeric(ElementType type, const std::vector<int64_t>& dims, const std::vector<int>& values) {
  auto encode = [&](std::vector<uint8_t> table) {
    std::vector<uint8_t> bytes;
    for (int v : values) bytes.push_back(table.at(static_cast<size_t>(v)));
    return MakeRawTensor(type, dims, bytes);
  };
  switch (type) {
    case E::kFloat8E4M3FN:
      return encode({0x00, 0x38, 0x40, 0x44});
    case E::kFloat8E4M3FNUZ:
      return encode({0x00, 0x40, 0x48, 0x4c});
    case E::kFloat8E5M2:
      return encode({0x00, 0x3c, 0x40, 0x42});
    case E::kFloat8E5M2FNUZ:
      return encode({0x00, 0x40, 0x44, 0x46});
    case E::kFloat8E8M0:
      return encode({0xff, 0x7f, 0x80, 0xff});  // 0 and 3: not representable
    case E::kFloat6E2M3:
    case E::kFloat6E3M2: {
      // 0, 1, 2, 3 as s.ee.mmm / s.eee.mm, packed 6 bits each (little-endian bit stream).
      const uint8_t e2m3[] = {0x00, 0x08, 0x10, 0x14};
      const uint8_t e3m2[] = {0x00, 0x0c, 0x10, 0x12};
      const uint8_t* table = type == E::kFloat6E2M3 ? e2m3 : e3m2;
      std::vector<uint8_t> bytes(StorageBytes(type, static_cast<int64_t>(values.size())), 0);
      for (size_t i = 0; i < values.size(); ++i)
        SetPackedBits(bytes.data(), static_cast<int64_t>(i), 6, table[values[i]]);
      return MakeRawTensor(type, dims, bytes);
    }
    case E::kFloat4E2M1: {
      const uint8_t table[] = {0x0, 0x2, 0x4, 0x5};
      std::vector<uint8_t> bytes((values.size() + 1) / 2, 0);
      for (size_t i = 0; i < values.size(); ++i)
        bytes[i / 2] |= static_cast<uint8_t>(table[values[i]] << (4 * (i % 2)));
      return MakeRawTensor(type, dims, bytes);
    }
    case E::kString: {
      std::vector<std::string> strings;
      for (int v : values) strings.push_back(std::to_string(v));
      return MakeTensor<std::string>(dims, strings);
    }
    default:
      return MakeCodedTensor(type, dims, values);
  }
}

// Runs check(opset, type) for every spec version range of op and every type registered there
// for constraint.
void ForEachRegistered(const std::string& op, const std::string& constraint,
                       const std::function<void(int, ElementType)>& check) {
  for (int opset : SpecVersions(op)) {
    const std::vector<ElementType> types = RegisteredTypes(op, opset, constraint);
    EXPECT_FALSE(types.empty()) << op << " registers no type for " << constraint << " at opset "
                                << opset;
    for (ElementType type : types) {
      SCOPED_TRACE(::testing::Message() << op << " opset " << opset << " " << constraint << "="
                                        << ElementTypeName(type));
      check(opset, type);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Data movement.

TEST(OpTypeMatrixTest, IdentityEveryRangeAndType) {
  for (int opset : SpecVersions("Identity")) {
    for (E type : RegisteredTypes("Identity", opset, opset >= 14 ? "V" : "T")) {
      SCOPED_TRACE(::testing::Message() << "opset " << opset << " " << ElementTypeName(type));
      OpTester test("Identity", opset);
      test.InputTensor("x", Coded(type, {2, 3}, Iota(6)));
      test.OutputTensor("y", Coded(type, {2, 3}, Iota(6)));
      test.Run();
    }
  }
}

TEST(OpTypeMatrixTest, ConstantEveryRangeAndType) {
  ForEachRegistered("Constant", "T", [](int opset, E type) {
    OpTester test("Constant", opset);
    test.AttrTensor("value", Coded(type, {3}, {2, 0, 1}));
    test.OutputTensor("y", Coded(type, {3}, {2, 0, 1}));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, ShapeEveryRangeAndType) {
  ForEachRegistered("Shape", "T", [](int opset, E type) {
    OpTester test("Shape", opset);
    test.InputTensor("x", Coded(type, {2, 3, 1}, Iota(6)));
    test.Output<int64_t>("y", {3}, {2, 3, 1});
    test.Run();
  });
}

TEST(OpTypeMatrixTest, ReshapeEveryRangeAndType) {
  ForEachRegistered("Reshape", "T", [](int opset, E type) {
    OpTester test("Reshape", opset);
    test.InputTensor("data", Coded(type, {2, 3}, Iota(6)));
    if (opset < 5) {
      test.Attr("shape", std::vector<int64_t>{3, -1});
    } else {
      test.Input<int64_t>("shape", {2}, {3, -1});
    }
    test.OutputTensor("reshaped", Coded(type, {3, 2}, Iota(6)));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, FlattenEveryRangeAndType) {
  ForEachRegistered("Flatten", "T", [](int opset, E type) {
    OpTester test("Flatten", opset);
    test.InputTensor("input", Coded(type, {2, 1, 3}, Iota(6)));
    test.Attr("axis", int64_t{2});
    test.OutputTensor("output", Coded(type, {2, 3}, Iota(6)));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, SqueezeEveryRangeAndType) {
  ForEachRegistered("Squeeze", "T", [](int opset, E type) {
    OpTester test("Squeeze", opset);
    test.InputTensor("data", Coded(type, {2, 1, 3}, Iota(6)));
    if (opset < 13) {
      test.Attr("axes", std::vector<int64_t>{1});
    } else {
      test.Input<int64_t>("axes", {1}, {1});
    }
    test.OutputTensor("squeezed", Coded(type, {2, 3}, Iota(6)));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, UnsqueezeEveryRangeAndType) {
  ForEachRegistered("Unsqueeze", "T", [](int opset, E type) {
    OpTester test("Unsqueeze", opset);
    test.InputTensor("data", Coded(type, {2, 3}, Iota(6)));
    if (opset < 13) {
      test.Attr("axes", std::vector<int64_t>{0});
    } else {
      test.Input<int64_t>("axes", {1}, {0});
    }
    test.OutputTensor("expanded", Coded(type, {1, 2, 3}, Iota(6)));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, TransposeEveryRangeAndType) {
  ForEachRegistered("Transpose", "T", [](int opset, E type) {
    OpTester test("Transpose", opset);
    test.InputTensor("data", Coded(type, {2, 3}, Iota(6)));
    test.Attr("perm", std::vector<int64_t>{1, 0});
    test.OutputTensor("transposed", Coded(type, {3, 2}, {0, 3, 1, 4, 2, 5}));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, ConcatEveryRangeAndType) {
  ForEachRegistered("Concat", "T", [](int opset, E type) {
    OpTester test("Concat", opset);
    test.InputTensor("a", Coded(type, {1, 3}, {0, 1, 2}));
    test.InputTensor("b", Coded(type, {2, 3}, {3, 4, 5, 6, 7, 8}));
    test.Attr("axis", int64_t{0});
    test.OutputTensor("concat", Coded(type, {3, 3}, Iota(9)));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, GatherEveryRangeAndType) {
  ForEachRegistered("Gather", "T", [](int opset, E type) {
    for (E index_type : RegisteredTypes("Gather", opset, "Tind")) {
      OpTester test("Gather", opset);
      test.InputTensor("data", Coded(type, {3, 2}, Iota(6)));
      test.InputTensor("indices", Numeric(index_type, {2}, {2, 0}));
      test.Attr("axis", int64_t{0});
      test.OutputTensor("output", Coded(type, {2, 2}, {4, 5, 0, 1}));
      test.Run();
    }
  });
}

// Identity and If also pass sequences and optionals; OpTester builds tensors only, and If needs
// subgraphs, so these models are written by hand.
enum class Kind { kTensor, kSequence, kOptionalTensor, kOptionalSequence };

void SetType(onnx::TypeProto* proto, Kind kind, ElementType type) {
  onnx::TypeProto* tensor = proto;
  if (kind == Kind::kOptionalTensor || kind == Kind::kOptionalSequence)
    tensor = tensor->mutable_optional_type()->mutable_elem_type();
  if (kind == Kind::kSequence || kind == Kind::kOptionalSequence)
    tensor = tensor->mutable_sequence_type()->mutable_elem_type();
  tensor->mutable_tensor_type()->set_elem_type(static_cast<int>(type));
}

void AddTyped(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
              const std::string& name, Kind kind, ElementType type) {
  onnx::ValueInfoProto* info = list->Add();
  info->set_name(name);
  SetType(info->mutable_type(), kind, type);
}

void AddIdentity(onnx::GraphProto* graph, const std::string& input, const std::string& output) {
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type("Identity");
  node->add_input(input);
  node->add_output(output);
}

// A value of kind holding coded elements; an empty optional when empty.
Value KindValue(Kind kind, ElementType type, const std::vector<int>& codes, bool empty) {
  if ((kind == Kind::kOptionalTensor || kind == Kind::kOptionalSequence) && empty) return Value();
  Tensor tensor = Coded(type, {static_cast<int64_t>(codes.size())}, codes);
  if (kind == Kind::kTensor || kind == Kind::kOptionalTensor) return Value(tensor);
  TensorSequence sequence;
  sequence.elem_type = type;
  sequence.tensors = {tensor, Coded(type, {1}, {codes[0]})};
  return Value(std::move(sequence));
}

std::vector<Value> RunModel(const onnx::ModelProto& model, const std::vector<std::string>& names,
                            const std::vector<Value>& feeds) {
  const std::string bytes = model.SerializeAsString();
  InferenceSession session;
  session.Load(bytes.data(), bytes.size());
  return session.Run(RunOptions{}, names, feeds, {});
}

onnx::ModelProto EmptyModel(int opset) {
  onnx::ModelProto model;
  model.set_ir_version(10);
  auto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model.mutable_graph()->set_name("op_type_matrix");
  return model;
}

void ExpectSame(const Value& expected, const Value& actual) {
  const std::string mismatch = CompareWithOracle(expected, actual, {});
  EXPECT_TRUE(mismatch.empty()) << mismatch;
}

// The kinds V takes at opset: sequences from opset first_sequence, optionals from 16.
std::vector<Kind> KindsOf(int opset, int first_sequence) {
  std::vector<Kind> kinds = {Kind::kTensor};
  if (opset >= first_sequence) kinds.push_back(Kind::kSequence);
  if (opset >= 16) kinds.insert(kinds.end(), {Kind::kOptionalTensor, Kind::kOptionalSequence});
  return kinds;
}

void CheckIdentityKind(int opset, Kind kind, ElementType type) {
  SCOPED_TRACE(::testing::Message() << "kind " << static_cast<int>(kind));
  onnx::ModelProto model = EmptyModel(opset);
  onnx::GraphProto* graph = model.mutable_graph();
  AddTyped(graph->mutable_input(), "x", kind, type);
  AddIdentity(graph, "x", "y");
  AddTyped(graph->mutable_output(), "y", kind, type);
  for (bool empty : {false, true}) {
    const Value x = KindValue(kind, type, {1, 2, 3}, empty);
    std::vector<Value> result = RunModel(model, {"x"}, {x});
    ASSERT_EQ(result.size(), 1u);
    ExpectSame(x, result[0]);
  }
}

TEST(OpTypeMatrixTest, IdentitySequencesAndOptionalsOfEveryRangeAndType) {
  for (int opset : SpecVersions("Identity")) {
    if (opset < 14) continue;
    for (E type : RegisteredTypes("Identity", opset, "V")) {
      SCOPED_TRACE(::testing::Message() << "opset " << opset << " " << ElementTypeName(type));
      for (Kind kind : KindsOf(opset, 14))
        if (kind != Kind::kTensor) CheckIdentityKind(opset, kind, type);
    }
  }
}

// cond, a, b are graph inputs; then_branch returns Identity(a), else_branch Identity(b)
// (outer-scope reads).
void CheckIf(int opset, Kind kind, ElementType type) {
  SCOPED_TRACE(::testing::Message() << "kind " << static_cast<int>(kind));
  onnx::ModelProto model = EmptyModel(opset);
  onnx::GraphProto* graph = model.mutable_graph();
  AddTyped(graph->mutable_input(), "cond", Kind::kTensor, E::kBool);
  AddTyped(graph->mutable_input(), "a", kind, type);
  AddTyped(graph->mutable_input(), "b", kind, type);
  AddTyped(graph->mutable_output(), "y", kind, type);
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type("If");
  node->add_input("cond");
  node->add_output("y");
  for (const auto& [name, source] :
       {std::pair{"then_branch", "a"}, std::pair{"else_branch", "b"}}) {
    onnx::GraphProto branch;
    branch.set_name(name);
    const std::string out = std::string(name) + "_y";
    AddIdentity(&branch, source, out);
    AddTyped(branch.mutable_output(), out, kind, type);
    onnx::AttributeProto* attr = node->add_attribute();
    attr->set_name(name);
    attr->set_type(onnx::AttributeProto::GRAPH);
    *attr->mutable_g() = branch;
  }
  // Identity passes sequences only from opset 14, so If 13's sequences are run at 14.
  if (kind == Kind::kSequence && opset == 13) model.mutable_opset_import(0)->set_version(14);
  const Value a = KindValue(kind, type, {1, 2, 3}, false);
  const Value b = KindValue(kind, type, {0, 1}, /*empty=*/true);
  for (bool cond : {true, false}) {
    std::vector<Value> result =
        RunModel(model, {"cond", "a", "b"}, {Value(MakeTensor<bool>({}, {cond})), a, b});
    ASSERT_EQ(result.size(), 1u);
    ExpectSame(cond ? a : b, result[0]);
  }
}

TEST(OpTypeMatrixTest, IfEveryRangeKindAndType) {
  ForEachRegistered("If", "V", [](int opset, E type) {
    for (Kind kind : KindsOf(opset, 13)) CheckIf(opset, kind, type);
  });
}

// Loop with M = 2 and cond true (passed through by the body): the body passes its loop-carried
// value through (Identity) and, for tensors, also scans it, so the node returns the value and it
// stacked twice.
void CheckLoop(int opset, Kind kind, ElementType type) {
  SCOPED_TRACE(::testing::Message() << "kind " << static_cast<int>(kind));
  onnx::ModelProto model = EmptyModel(opset);
  onnx::GraphProto* graph = model.mutable_graph();
  AddTyped(graph->mutable_input(), "m", Kind::kTensor, E::kInt64);
  AddTyped(graph->mutable_input(), "cond", Kind::kTensor, E::kBool);
  AddTyped(graph->mutable_input(), "a", kind, type);
  AddTyped(graph->mutable_output(), "y", kind, type);
  const bool scan = kind == Kind::kTensor;
  if (scan) AddTyped(graph->mutable_output(), "s", kind, type);
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type("Loop");
  node->add_input("m");
  node->add_input("cond");
  node->add_input("a");
  node->add_output("y");
  if (scan) node->add_output("s");
  onnx::GraphProto body;
  body.set_name("body");
  AddTyped(body.mutable_input(), "i", Kind::kTensor, E::kInt64);
  AddTyped(body.mutable_input(), "c", Kind::kTensor, E::kBool);
  AddTyped(body.mutable_input(), "v", kind, type);
  AddIdentity(&body, "c", "c_out");
  AddIdentity(&body, "v", "v_out");
  AddTyped(body.mutable_output(), "c_out", Kind::kTensor, E::kBool);
  AddTyped(body.mutable_output(), "v_out", kind, type);
  if (scan) {
    AddIdentity(&body, "v", "s_out");
    AddTyped(body.mutable_output(), "s_out", kind, type);
  }
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name("body");
  attr->set_type(onnx::AttributeProto::GRAPH);
  *attr->mutable_g() = body;
  // Identity passes sequences only from opset 14, so Loop 13's sequences are run at 14.
  if (kind == Kind::kSequence && opset == 13) model.mutable_opset_import(0)->set_version(14);
  const Value a = KindValue(kind, type, {1, 2, 3}, false);
  std::vector<Value> result =
      RunModel(model, {"m", "cond", "a"},
               {Value(MakeTensor<int64_t>({}, {2})), Value(MakeTensor<bool>({}, {true})), a});
  ASSERT_EQ(result.size(), scan ? 2u : 1u);
  ExpectSame(a, result[0]);
  if (scan) ExpectSame(Value(Coded(type, {2, 3}, {1, 2, 3, 1, 2, 3})), result[1]);
}

// Scan with one state and one scan input, the body passing both through (Identity): the node
// returns the state and the scan input rebuilt from its slices. Opset 8 has a batch axis and
// sequence_lens.
void CheckScan(int opset, ElementType type) {
  const bool legacy = opset < 9;
  onnx::ModelProto model = EmptyModel(opset);
  onnx::GraphProto* graph = model.mutable_graph();
  if (legacy) AddTyped(graph->mutable_input(), "lens", Kind::kTensor, E::kInt64);
  AddTyped(graph->mutable_input(), "state", Kind::kTensor, type);
  AddTyped(graph->mutable_input(), "x", Kind::kTensor, type);
  AddTyped(graph->mutable_output(), "state_out", Kind::kTensor, type);
  AddTyped(graph->mutable_output(), "y", Kind::kTensor, type);
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type("Scan");
  if (legacy) node->add_input("lens");
  node->add_input("state");
  node->add_input("x");
  node->add_output("state_out");
  node->add_output("y");
  onnx::GraphProto body;
  body.set_name("body");
  AddTyped(body.mutable_input(), "s", Kind::kTensor, type);
  AddTyped(body.mutable_input(), "e", Kind::kTensor, type);
  AddIdentity(&body, "s", "s_out");
  AddIdentity(&body, "e", "e_out");
  AddTyped(body.mutable_output(), "s_out", Kind::kTensor, type);
  AddTyped(body.mutable_output(), "e_out", Kind::kTensor, type);
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name("body");
  attr->set_type(onnx::AttributeProto::GRAPH);
  *attr->mutable_g() = body;
  onnx::AttributeProto* count = node->add_attribute();
  count->set_name("num_scan_inputs");
  count->set_type(onnx::AttributeProto::INT);
  count->set_i(1);
  const Value state(
      Coded(type, legacy ? std::vector<int64_t>{1, 3} : std::vector<int64_t>{3}, {1, 2, 3}));
  const Value x(Coded(type, legacy ? std::vector<int64_t>{1, 2, 3} : std::vector<int64_t>{2, 3},
                      {0, 1, 2, 3, 0, 1}));
  std::vector<Value> feeds = {state, x};
  std::vector<std::string> names = {"state", "x"};
  if (legacy) {
    feeds.insert(feeds.begin(), Value(MakeTensor<int64_t>({1}, {2})));
    names.insert(names.begin(), "lens");
  }
  std::vector<Value> result = RunModel(model, names, feeds);
  ASSERT_EQ(result.size(), 2u);
  ExpectSame(state, result[0]);
  ExpectSame(x, result[1]);
}

TEST(OpTypeMatrixTest, ScanEveryRangeAndType) {
  ForEachRegistered("Scan", "V", [](int opset, E type) { CheckScan(opset, type); });
}

TEST(OpTypeMatrixTest, LoopEveryRangeKindAndType) {
  ForEachRegistered("Loop", "V", [](int opset, E type) {
    for (Kind kind : KindsOf(opset, 13)) CheckLoop(opset, kind, type);
  });
}

// ---------------------------------------------------------------------------------------------
// Cast: every (T1, T2) pair registered in every range (check_type_coverage.py requires each pair),
// on the values both types represent. One model per range and source type holds a Cast node per
// target type, so each pair is computed and its output compared.

// Cast-1 to Cast-5 name the target type with a string attribute, later opsets with an int.
void SetCastTarget(onnx::NodeProto* node, int opset, ElementType to) {
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name("to");
  if (opset < 6) {
    attr->set_type(onnx::AttributeProto::STRING);
    attr->set_s(onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(to)));
  } else {
    attr->set_type(onnx::AttributeProto::INT);
    attr->set_i(static_cast<int64_t>(to));
  }
}

// Cast (target in 'to') or CastLike (target as the type of an empty second input).
void CheckCastFrom(int opset, ElementType from, const std::vector<ElementType>& targets,
                   const std::string& op = "Cast") {
  SCOPED_TRACE(::testing::Message()
               << op << " opset " << opset << " from " << ElementTypeName(from));
  onnx::ModelProto model = EmptyModel(opset);
  onnx::GraphProto* graph = model.mutable_graph();
  std::vector<std::string> names;
  std::vector<Value> feeds;
  std::vector<Value> expected;
  for (size_t i = 0; i < targets.size(); ++i) {
    const ElementType to = targets[i];
    std::vector<int> values;
    const std::vector<int> to_values = Representable(to);
    for (int v : Representable(from))
      if (std::find(to_values.begin(), to_values.end(), v) != to_values.end()) values.push_back(v);
    const int64_t n = static_cast<int64_t>(values.size());
    const std::string x = "x" + std::to_string(i);
    const std::string y = "y" + std::to_string(i);
    AddTyped(graph->mutable_input(), x, Kind::kTensor, from);
    onnx::NodeProto* node = graph->add_node();
    node->set_op_type(op);
    node->set_name("cast_" + std::to_string(i));
    node->add_input(x);
    node->add_output(y);
    names.push_back(x);
    feeds.emplace_back(Numeric(from, {n}, values));
    if (op == "Cast") {
      SetCastTarget(node, opset, to);
    } else {
      const std::string like = "like" + std::to_string(i);
      AddTyped(graph->mutable_input(), like, Kind::kTensor, to);
      node->add_input(like);
      names.push_back(like);
      feeds.emplace_back(Numeric(to, {0}, {}));
    }
    AddTyped(graph->mutable_output(), y, Kind::kTensor, to);
    expected.emplace_back(Numeric(to, {n}, values));
  }
  std::vector<Value> results = RunModel(model, names, feeds);
  ASSERT_EQ(results.size(), targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "to " << ElementTypeName(targets[i]));
    ExpectSame(expected[i], results[i]);
  }
}

TEST(OpTypeMatrixTest, CastEveryPairOfEveryRange) {
  ForEachRegistered("Cast", "T1", [](int opset, E from) {
    CheckCastFrom(opset, from, RegisteredTypes("Cast", opset, "T2"));
  });
}

TEST(OpTypeMatrixTest, CastLikeEveryPairOfEveryRange) {
  ForEachRegistered("CastLike", "T1", [](int opset, E from) {
    CheckCastFrom(opset, from, RegisteredTypes("CastLike", opset, "T2"), "CastLike");
  });
}

// ---------------------------------------------------------------------------------------------
// Numeric ops with small integer data (exact in every type, float16 included).

TEST(OpTypeMatrixTest, MatMulEveryRangeAndType) {
  ForEachRegistered("MatMul", "T", [](int opset, E type) {
    OpTester test("MatMul", opset);
    test.InputTensor("a", Numeric(type, {2, 2}, {1, 2, 0, 1}));
    test.InputTensor("b", Numeric(type, {2, 2}, {1, 0, 1, 1}));
    test.OutputTensor("y", Numeric(type, {2, 2}, {3, 2, 1, 1}));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, GemmEveryRangeAndType) {
  ForEachRegistered("Gemm", "T", [](int opset, E type) {
    OpTester test("Gemm", opset);
    test.InputTensor("a", Numeric(type, {2, 2}, {1, 2, 0, 1}));
    test.InputTensor("b", Numeric(type, {2, 2}, {1, 0, 1, 1}));
    test.InputTensor("c", Numeric(type, {2, 2}, {0, 1, 1, 0}));
    // [[3, 2], [1, 1]] + c; integers stay below 4 so every type holds them.
    test.OutputTensor("y", Numeric(type, {2, 2}, {3, 3, 2, 1}));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, ConvEveryRangeAndType) {
  ForEachRegistered("Conv", "T", [](int opset, E type) {
    OpTester test("Conv", opset);
    test.InputTensor("x", Numeric(type, {1, 1, 2, 2}, {1, 0, 1, 1}));
    test.InputTensor("w", Numeric(type, {1, 1, 1, 1}, {3}));
    test.OutputTensor("y", Numeric(type, {1, 1, 2, 2}, {3, 0, 3, 3}));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, MaxPoolEveryRangeAndType) {
  ForEachRegistered("MaxPool", "T", [](int opset, E type) {
    OpTester test("MaxPool", opset);
    test.InputTensor("x", Numeric(type, {1, 1, 2, 2}, {1, 3, 2, 0}));
    test.Attr("kernel_shape", std::vector<int64_t>{2, 2});
    test.OutputTensor("y", Numeric(type, {1, 1, 1, 1}, {3}));
    test.Run();
  });
}

// Det of three 3x3 matrices: a cyclic permutation (two row swaps: +1), a block matrix (3) and
// a singular one (0).
TEST(OpTypeMatrixTest, DetEveryRangeAndType) {
  ForEachRegistered("Det", "T", [](int opset, E type) {
    OpTester test("Det", opset);
    test.InputTensor("X", Numeric(type, {3, 3, 3}, {0, 1, 0, 0, 0, 1, 1, 0, 0,  //
                                                    2, 1, 0, 1, 1, 0, 0, 0, 3,  //
                                                    1, 1, 1, 1, 1, 1, 0, 1, 2}));
    test.OutputTensor("Y", Numeric(type, {3}, {1, 3, 0}));
    test.Run();
  });
}

// Einsum as a matrix product and as a trace.
TEST(OpTypeMatrixTest, EinsumEveryRangeAndType) {
  ForEachRegistered("Einsum", "T", [](int opset, E type) {
    OpTester product("Einsum", opset);
    product.Attr("equation", std::string("ij,jk->ik"));
    product.InputTensor("a", Numeric(type, {2, 2}, {1, 2, 0, 1}));
    product.InputTensor("b", Numeric(type, {2, 2}, {1, 0, 1, 1}));
    product.OutputTensor("y", Numeric(type, {2, 2}, {3, 2, 1, 1}));
    product.Run();
    OpTester trace("Einsum", opset);
    trace.Attr("equation", std::string("ii"));
    trace.InputTensor("a", Numeric(type, {2, 2}, {1, 2, 0, 1}));
    trace.OutputTensor("y", Numeric(type, {}, {2}));
    trace.Run();
  });
}

// Pow: every (T, T1) pair of every range (check_type_coverage.py requires each pair); before
// opset 12 the exponent has the base's type. 3^2, 2^3, 1^0, 0^1 = 9, 8, 1, 0, exact in every type.
TEST(OpTypeMatrixTest, PowEveryPairOfEveryRange) {
  for (int opset : {1, 7, 12, 13, 15}) {
    for (E base : RegisteredTypes("Pow", opset, "T")) {
      const std::vector<E> exponents =
          opset < 12 ? std::vector<E>{base} : RegisteredTypes("Pow", opset, "T1");
      for (E exponent : exponents) {
        SCOPED_TRACE(::testing::Message() << "opset " << opset << " T=" << ElementTypeName(base)
                                          << " T1=" << ElementTypeName(exponent));
        OpTester test("Pow", opset);
        test.InputTensor("x", Numeric(base, {4}, {3, 2, 1, 0}));
        test.InputTensor("y", Numeric(exponent, {4}, {2, 3, 0, 1}));
        test.OutputTensor("z", Numeric(base, {4}, {9, 8, 1, 0}));
        test.Run();
      }
    }
  }
}

// A floating tensor of type holding values exactly (the values below are exact in bfloat16).
Tensor Floats(ElementType type, const std::vector<int64_t>& dims,
              const std::vector<double>& values) {
  Tensor tensor(type, TensorShape(dims), GetCpuAllocator());
  for (size_t i = 0; i < values.size(); ++i) {
    switch (type) {
      case E::kFloat:
        tensor.MutableData<float>()[i] = static_cast<float>(values[i]);
        break;
      case E::kDouble:
        tensor.MutableData<double>()[i] = values[i];
        break;
      case E::kFloat16:
        tensor.MutableData<Float16>()[i] = Float16(static_cast<float>(values[i]));
        break;
      case E::kBFloat16:
        tensor.MutableData<BFloat16>()[i] = BFloat16(static_cast<float>(values[i]));
        break;
      default:
        ADD_FAILURE() << "Floats: " << ElementTypeName(type) << " is not a floating type";
    }
  }
  return tensor;
}

// The normalizations and global/Lp pools of Operators II, with epsilon 0 (or data whose
// statistics are exact) so that every type gets the exact answer.

TEST(OpTypeMatrixTest, RMSNormalizationEveryTypePair) {
  for (E t : RegisteredTypes("RMSNormalization", 23, "T")) {
    for (E v : RegisteredTypes("RMSNormalization", 23, "V")) {
      SCOPED_TRACE(::testing::Message()
                   << "T=" << ElementTypeName(t) << " V=" << ElementTypeName(v));
      OpTester test("RMSNormalization", 23);  // rows [1, -1] and [2, -2]: rms 1 and 2
      test.InputTensor("X", Floats(t, {2, 2}, {1, -1, 2, -2}));
      test.InputTensor("scale", Floats(v, {2}, {2, 3}));
      test.Attr("epsilon", 0.0f);
      test.OutputTensor("Y", Floats(v, {2, 2}, {2, -3, 2, -3}));
      test.Run();
    }
  }
}

TEST(OpTypeMatrixTest, InstanceAndGroupNormalizationEveryRangeAndType) {
  // Channel (or group) values [1, 3] and [0, 4] standardize to [-1, 1] each.
  ForEachRegistered("InstanceNormalization", "T", [](int opset, E type) {
    OpTester test("InstanceNormalization", opset);
    test.InputTensor("input", Floats(type, {1, 2, 2}, {1, 3, 0, 4}));
    test.InputTensor("scale", Floats(type, {2}, {2, 1}));
    test.InputTensor("B", Floats(type, {2}, {1, 0}));
    test.Attr("epsilon", 0.0f);
    test.OutputTensor("output", Floats(type, {1, 2, 2}, {-1, 3, -1, 1}));
    test.Run();
  });
  ForEachRegistered("GroupNormalization", "T", [](int opset, E type) {
    OpTester test("GroupNormalization", opset);  // 4 channels in 2 groups
    test.InputTensor("X", Floats(type, {1, 4, 1}, {1, 3, 0, 4}));
    if (opset < 21) {  // scale and bias per group
      test.InputTensor("scale", Floats(type, {2}, {2, 1}));
      test.InputTensor("bias", Floats(type, {2}, {1, 0}));
    } else {  // per channel
      test.InputTensor("scale", Floats(type, {4}, {2, 2, 1, 1}));
      test.InputTensor("bias", Floats(type, {4}, {1, 1, 0, 0}));
    }
    test.Attr("num_groups", int64_t{2}).Attr("epsilon", 0.0f);
    test.OutputTensor("Y", Floats(type, {1, 4, 1}, {-1, 3, -1, 1}));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, MeanVarianceLpAndLocalResponseNormalizationEveryRangeAndType) {
  ForEachRegistered("MeanVarianceNormalization", "T", [](int opset, E type) {
    OpTester test("MeanVarianceNormalization", opset);  // over N, H, W: [1, 3] -> [-1, 1]
    test.InputTensor("X", Floats(type, {1, 1, 2, 1}, {1, 3}));
    test.OutputTensor("Y", Floats(type, {1, 1, 2, 1}, {-1, 1}));
    test.SetTolerance(1e-8, 0, "the spec adds 1e-9 to the standard deviation");
    test.Run();
  });
  ForEachRegistered("LpNormalization", "T", [](int opset, E type) {
    OpTester test("LpNormalization", opset);  // L1 along the last axis
    test.InputTensor("input", Floats(type, {2, 2}, {1, -3, 0, 0}));
    test.Attr("p", int64_t{1});
    test.OutputTensor("output", Floats(type, {2, 2}, {0.25, -0.75, 0, 0}));
    test.Run();
  });
  ForEachRegistered("LRN", "T", [](int opset, E type) {
    // Two channels of 1 in one window: 1 / (3 + 1.5 / 3 * 2) ^ 0.5 = 0.5.
    OpTester test("LRN", opset);
    test.InputTensor("X", Floats(type, {1, 2, 1, 1}, {1, 1}));
    test.Attr("size", int64_t{3}).Attr("alpha", 1.5f).Attr("beta", 0.5f).Attr("bias", 3.0f);
    test.OutputTensor("Y", Floats(type, {1, 2, 1, 1}, {0.5, 0.5}));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, GlobalMaxLpAndLpPoolEveryRangeAndType) {
  ForEachRegistered("GlobalMaxPool", "T", [](int opset, E type) {
    OpTester test("GlobalMaxPool", opset);
    test.InputTensor("X", Floats(type, {1, 1, 2, 2}, {1, 3, 2, 0}));
    test.OutputTensor("Y", Floats(type, {1, 1, 1, 1}, {3}));
    test.Run();
  });
  // The L2 norm of [3, -4] is 5; p is a float in opset 1.
  ForEachRegistered("GlobalLpPool", "T", [](int opset, E type) {
    OpTester test("GlobalLpPool", opset);
    test.InputTensor("X", Floats(type, {1, 1, 2}, {3, -4}));
    if (opset < 2)
      test.Attr("p", 2.0f);
    else
      test.Attr("p", int64_t{2});
    test.OutputTensor("Y", Floats(type, {1, 1, 1}, {5}));
    test.Run();
  });
  ForEachRegistered("LpPool", "T", [](int opset, E type) {
    OpTester test("LpPool", opset);
    test.InputTensor("X", Floats(type, {1, 1, 3}, {3, -4, 0}));
    test.Attr("kernel_shape", std::vector<int64_t>{2});
    if (opset < 2)
      test.Attr("p", 2.0f);
    else
      test.Attr("p", int64_t{2});
    test.OutputTensor("Y", Floats(type, {1, 1, 2}, {5, 4}));
    test.Run();
  });
}

// The losses with either index type: NLL of rows [-1, -2, -3] and [-3, -2, -1] at targets 0
// and 2 with class weights [1, 2, 3] sums to 1 + 3; softmax cross entropy of two equal scores is
// log 2 per sample (the value rounded once to the type, as the kernel rounds its double result).
TEST(OpTypeMatrixTest, LossesEveryRangeTypeAndIndexType) {
  ForEachRegistered("NegativeLogLikelihoodLoss", "T", [](int opset, E type) {
    for (E index : RegisteredTypes("NegativeLogLikelihoodLoss", opset, "Tind")) {
      SCOPED_TRACE(ElementTypeName(index));
      OpTester test("NegativeLogLikelihoodLoss", opset);
      test.InputTensor("input", Floats(type, {2, 3}, {-1, -2, -3, -3, -2, -1}));
      test.InputTensor("target", Numeric(index, {2}, {0, 2}));
      test.InputTensor("weight", Floats(type, {3}, {1, 2, 3}));
      test.Attr("reduction", std::string("sum"));
      test.OutputTensor("loss", Floats(type, {}, {4}));
      test.Run();
    }
  });
  ForEachRegistered("SoftmaxCrossEntropyLoss", "T", [](int opset, E type) {
    for (E index : RegisteredTypes("SoftmaxCrossEntropyLoss", opset, "Tind")) {
      SCOPED_TRACE(ElementTypeName(index));
      OpTester test("SoftmaxCrossEntropyLoss", opset);
      test.InputTensor("scores", Floats(type, {2, 2}, {1, 1, 3, 3}));
      test.InputTensor("labels", Numeric(index, {2}, {0, 1}));
      test.OutputTensor("output", Floats(type, {}, {std::log(2.0)}));
      test.OutputTensor("log_prob", Floats(type, {2, 2}, std::vector<double>(4, -std::log(2.0))));
      test.Run();
    }
  });
}

// Attention: every (T1, T2) pair with a float mask, and every mask type U. One query [1, 0]
// against keys [1, 0] and [0, 1] (scale 1: scores 1 and 0); the mask adds 100 to the first
// key (true/false for bool), so the first value, 2, is the output in every type.
TEST(OpTypeMatrixTest, AttentionEveryTypePairAndMaskType) {
  const auto run = [](int opset, E t1, E t2, E u) {
    SCOPED_TRACE(::testing::Message()
                 << "opset " << opset << " T1=" << ElementTypeName(t1)
                 << " T2=" << ElementTypeName(t2) << " U=" << ElementTypeName(u));
    OpTester test("Attention", opset);
    test.InputTensor("Q", Floats(t1, {1, 1, 1, 2}, {1, 0}));
    test.InputTensor("K", Floats(t1, {1, 1, 2, 2}, {1, 0, 0, 1}));
    test.InputTensor("V", Floats(t2, {1, 1, 2, 1}, {2, 3}));
    if (u == E::kBool)
      test.Input<bool>("attn_mask", {1, 2}, {true, false});
    else if (u == E::kFloat || u == E::kDouble || u == E::kFloat16 || u == E::kBFloat16)
      test.InputTensor("attn_mask", Floats(u, {1, 2}, {100, 0}));
    else
      test.InputTensor("attn_mask", MakeCodedTensor(u, {1, 2}, {100, 0}));
    test.Attr("scale", 1.0f);
    test.OutputTensor("Y", Floats(t1, {1, 1, 1, 1}, {2}));
    test.Run();
  };
  for (int opset : SpecVersions("Attention")) {
    for (E t1 : RegisteredTypes("Attention", opset, "T1"))
      for (E t2 : RegisteredTypes("Attention", opset, "T2")) run(opset, t1, t2, E::kFloat);
    for (E u : RegisteredTypes("Attention", opset, "U")) run(opset, E::kFloat, E::kFloat, u);
  }
}

// ConvTranspose: X [1, 1, 2] = [1, 2] with W [1, 1, 2] = [1, 3] and stride 1 gives
// [1, 3 + 2, 6] = [1, 5, 6]; the bias adds 1.
TEST(OpTypeMatrixTest, ConvTransposeEveryRangeAndType) {
  ForEachRegistered("ConvTranspose", "T", [](int opset, E type) {
    OpTester test("ConvTranspose", opset);
    test.InputTensor("X", Floats(type, {1, 1, 2}, {1, 2}));
    test.InputTensor("W", Floats(type, {1, 1, 2}, {1, 3}));
    test.InputTensor("B", Floats(type, {1}, {1}));
    test.OutputTensor("Y", Floats(type, {1, 1, 3}, {2, 6, 7}));
    test.Run();
  });
}

// RotaryEmbedding: a quarter turn (cos 0, sin 1) of the pair [1, 2] gives [-2, 1].
TEST(OpTypeMatrixTest, RotaryEmbeddingEveryType) {
  ForEachRegistered("RotaryEmbedding", "T", [](int opset, E type) {
    OpTester test("RotaryEmbedding", opset);
    test.InputTensor("X", Floats(type, {1, 1, 1, 2}, {1, 2}));
    test.InputTensor("cos_cache", Floats(type, {1, 1}, {0}));
    test.InputTensor("sin_cache", Floats(type, {1, 1}, {1}));
    test.Input<int64_t>("position_ids", {1, 1}, {0});
    test.OutputTensor("Y", Floats(type, {1, 1, 1, 2}, {-2, 1}));
    test.Run();
  });
}

// GridSample: every grid type with float data, and every data type with a float grid: the
// nearest samples of a 1 x 3 image at the centers of its pixels 2 and 0 (align_corners: x = -1,
// 0, 1 address the pixels 0, 1, 2) move the elements; linear at x = 0 of [0, 2, 3] averages
// nothing (it hits pixel 1 exactly).
TEST(OpTypeMatrixTest, GridSampleEveryTypePair) {
  const auto run = [](int opset, E data, E grid, const char* mode) {
    SCOPED_TRACE(::testing::Message() << "opset " << opset << " T1=" << ElementTypeName(data)
                                      << " T2=" << ElementTypeName(grid) << " " << mode);
    OpTester test("GridSample", opset);
    test.InputTensor("X", Coded(data, {1, 1, 1, 3}, {0, 2, 3}));
    test.InputTensor("grid", Floats(grid, {1, 1, 2, 2}, {1, 0, -1, 0}));
    test.Attr("align_corners", int64_t{1}).Attr("mode", std::string(mode));
    test.OutputTensor("Y", Coded(data, {1, 1, 1, 2}, {3, 0}));
    test.Run();
  };
  for (int opset : SpecVersions("GridSample")) {
    for (E grid : RegisteredTypes("GridSample", opset, "T2"))
      run(opset, E::kFloat, grid, "nearest");
    for (E data : RegisteredTypes("GridSample", opset, "T1"))
      run(opset, data, E::kFloat, "nearest");
  }
  OpTester linear("GridSample", 20);
  linear.Input<float>("X", {1, 1, 1, 3}, {0, 2, 3});
  linear.Input<float>("grid", {1, 1, 1, 2}, {0.5f, 0});  // x = 1.5: halfway between 2 and 3
  linear.Attr("align_corners", int64_t{1});
  linear.Output<float>("Y", {1, 1, 1, 1}, {2.5f});
  linear.Run();
}

// CausalConvWithState: [1, 2] after the past [3] with weights [1, 1] gives [3 + 1, 1 + 2] and
// the new state [2].
TEST(OpTypeMatrixTest, CausalConvWithStateEveryType) {
  ForEachRegistered("CausalConvWithState", "T", [](int opset, E type) {
    OpTester test("CausalConvWithState", opset);
    test.InputTensor("input", Floats(type, {1, 1, 2}, {1, 2}));
    test.InputTensor("weight", Floats(type, {1, 1, 2}, {1, 1}));
    test.MissingInput();
    test.InputTensor("past_state", Floats(type, {1, 1, 1}, {3}));
    test.OutputTensor("output", Floats(type, {1, 1, 2}, {4, 3}));
    test.OutputTensor("present_state", Floats(type, {1, 1, 1}, {2}));
    test.Run();
  });
}

// LinearAttention, every (T, S) pair: one head of size 1, rule linear, scale 1, a zero past
// state: S = 0 + k v = 1 * 2, output = q S = 2.
TEST(OpTypeMatrixTest, LinearAttentionEveryTypePair) {
  for (E t : RegisteredTypes("LinearAttention", 27, "T")) {
    for (E state : RegisteredTypes("LinearAttention", 27, "S")) {
      SCOPED_TRACE(::testing::Message()
                   << "T=" << ElementTypeName(t) << " S=" << ElementTypeName(state));
      OpTester test("LinearAttention", 27);
      test.InputTensor("query", Floats(t, {1, 1, 1}, {1}));
      test.InputTensor("key", Floats(t, {1, 1, 1}, {1}));
      test.InputTensor("value", Floats(t, {1, 1, 1}, {2}));
      test.InputTensor("past_state", Floats(state, {1, 1, 1, 1}, {0}));
      test.Attr("q_num_heads", int64_t{1}).Attr("kv_num_heads", int64_t{1});
      test.Attr("update_rule", std::string("linear")).Attr("scale", 1.0f);
      test.OutputTensor("output", Floats(t, {1, 1, 1}, {2}));
      test.OutputTensor("present_state", Floats(state, {1, 1, 1, 1}, {2}));
      test.Run();
    }
  }
}

// DFT of the real signal [1, 1] (dft_length 2 of either index type): bins 2 and 0.
TEST(OpTypeMatrixTest, DftEveryRangeTypeAndLengthType) {
  ForEachRegistered("DFT", "T1", [](int opset, E type) {
    for (E length : RegisteredTypes("DFT", opset, "T2")) {
      SCOPED_TRACE(ElementTypeName(length));
      OpTester test("DFT", opset);
      test.InputTensor("input", Floats(type, {1, 2, 1}, {1, 1}));
      test.InputTensor("dft_length", Numeric(length, {}, {2}));
      test.OutputTensor("output", Floats(type, {1, 2, 2}, {2, 0, 0, 0}));
      test.Run();
    }
  });
}

// SwiGLU with alpha 0: the gate is sigmoid(0) = 1/2, so Y = A * B / 2 exactly.
// TensorScatter: the update row (code 3) written into row 1 of a 1 x 3 x 1 cache.
TEST(OpTypeMatrixTest, SwiGluAndTensorScatterEveryType) {
  ForEachRegistered("SwiGLU", "T", [](int opset, E type) {
    OpTester test("SwiGLU", opset);
    test.InputTensor("A", Floats(type, {2}, {2, -4}));
    test.InputTensor("B", Floats(type, {2}, {3, 1}));
    test.Attr("alpha", 0.0f);
    test.OutputTensor("Y", Floats(type, {2}, {3, -2}));
    test.Run();
  });
  ForEachRegistered("TensorScatter", "T", [](int opset, E type) {
    OpTester test("TensorScatter", opset);
    test.InputTensor("past_cache", Coded(type, {1, 3, 1}, {0, 1, 2}));
    test.InputTensor("update", Coded(type, {1, 1, 1}, {3}));
    test.Input<int64_t>("write_indices", {1}, {1});
    test.OutputTensor("present_cache", Coded(type, {1, 3, 1}, {0, 3, 2}));
    test.Run();
  });
  // A write index near INT64_MAX (fuzz finding 21): index + updates overflowed int64 before
  // the comparison with the cache length; now refused naming the index.
  for (int64_t index : {int64_t{INT64_MAX}, int64_t{INT64_MAX - 1}, int64_t{3}}) {
    OpTester test("TensorScatter", 24);
    test.InputTensor("past_cache", Floats(E::kFloat, {1, 3, 1}, {0, 1, 2}));
    test.InputTensor("update", Floats(E::kFloat, {1, 2, 1}, {3, 4}));
    test.Input<int64_t>("write_indices", {1}, {index});
    test.OutputTensor("present_cache", Floats(E::kFloat, {1, 3, 1}, {0, 0, 0}));
    test.ExpectFailure("write_indices[0] = " + std::to_string(index) +
                       " with 2 updates overruns the cache length 3");
  }
}

// AffineGrid with the identity matrix over a 1 x 2 image, corners aligned: the grid is the
// pixel coordinates themselves, (-1, -1) and (1, -1).
TEST(OpTypeMatrixTest, AffineGridEveryType) {
  ForEachRegistered("AffineGrid", "T1", [](int opset, E type) {
    OpTester test("AffineGrid", opset);
    test.InputTensor("theta", Floats(type, {1, 2, 3}, {1, 0, 0, 0, 1, 0}));
    test.Input<int64_t>("size", {4}, {1, 1, 1, 2});
    test.Attr("align_corners", int64_t{1});
    test.OutputTensor("grid", Floats(type, {1, 1, 2, 2}, {-1, -1, 1, -1}));
    test.Run();
  });
}

// Col2Im: one block of two taps over a 1-D image of two pixels (no overlap: every type moves).
TEST(OpTypeMatrixTest, Col2ImEveryType) {
  ForEachRegistered("Col2Im", "T", [](int opset, E type) {
    OpTester test("Col2Im", opset);
    test.InputTensor("input", Coded(type, {1, 2, 1}, {1, 2}));
    test.Input<int64_t>("image_shape", {1}, {2});
    test.Input<int64_t>("block_shape", {1}, {2});
    test.OutputTensor("output", Coded(type, {1, 1, 2}, {1, 2}));
    test.Run();
  });
}

// MaxUnpool: [1, 2] to positions 1 and 2 of a window-2, stride-2 output of 4: [0, 1, 2, 0].
TEST(OpTypeMatrixTest, MaxUnpoolEveryType) {
  ForEachRegistered("MaxUnpool", "T1", [](int opset, E type) {
    OpTester test("MaxUnpool", opset);
    test.Attr("kernel_shape", std::vector<int64_t>{2}).Attr("strides", std::vector<int64_t>{2});
    test.InputTensor("x", Numeric(type, {1, 1, 2}, {1, 2}));
    test.Input<int64_t>("i", {1, 1, 2}, {1, 2});
    test.OutputTensor("y", Numeric(type, {1, 1, 4}, {0, 1, 2, 0}));
    test.Run();
  });
}

// RoiAlign over a constant image of 2s: every sample inside the image averages to 2; from opset
// 16 (half_pixel) the one sample sits on pixel (0, 0), so max mode's largest weighted corner is 2
// too (opset 10 samples at (0.5, 0.5), where it would be 0.25 * 2).
TEST(OpTypeMatrixTest, RoiAlignEveryType) {
  ForEachRegistered("RoiAlign", "T1", [](int opset, E type) {
    for (const std::string mode : {"avg", "max"}) {
      if (mode == "max" && opset < 16) continue;
      OpTester test("RoiAlign", opset);
      test.Attr("mode", mode).Attr("sampling_ratio", int64_t{1});
      test.InputTensor("x", Numeric(type, {1, 1, 2, 2}, {2, 2, 2, 2}));
      test.InputTensor("rois", Numeric(type, {1, 4}, {0, 0, 1, 1}));
      test.Input<int64_t>("batch_indices", {1}, {0});
      test.OutputTensor("y", Numeric(type, {1, 1, 1, 1}, {2}));
      test.Run();
    }
  });
}

// DeformConv with a 1x1 kernel of 1 and every tap shifted one pixel right: each output pixel
// is its right neighbour, zero past the edge: [0, 1; 2, 3] -> [1, 0; 3, 0].
TEST(OpTypeMatrixTest, DeformConvEveryType) {
  ForEachRegistered("DeformConv", "T", [](int opset, E type) {
    OpTester test("DeformConv", opset);
    test.InputTensor("x", Numeric(type, {1, 1, 2, 2}, {0, 1, 2, 3}));
    test.InputTensor("w", Numeric(type, {1, 1, 1, 1}, {1}));
    test.InputTensor("offset", Numeric(type, {1, 2, 2, 2}, {0, 0, 0, 0, 1, 1, 1, 1}));
    test.OutputTensor("y", Numeric(type, {1, 1, 2, 2}, {1, 0, 3, 0}));
    test.Run();
  });
}

// ConvInteger: every (T1, T2) pair; (x - 1) * (w - 0) for x = [2, 3] and a 1x1 kernel of 1.
TEST(OpTypeMatrixTest, ConvIntegerEveryTypePair) {
  for (E x_type : RegisteredTypes("ConvInteger", 10, "T1")) {
    for (E w_type : RegisteredTypes("ConvInteger", 10, "T2")) {
      SCOPED_TRACE(::testing::Message()
                   << ElementTypeName(x_type) << " x " << ElementTypeName(w_type));
      OpTester test("ConvInteger", 10);
      test.InputTensor("x", Numeric(x_type, {1, 1, 1, 2}, {2, 3}));
      test.InputTensor("w", Numeric(w_type, {1, 1, 1, 1}, {1}));
      test.InputTensor("x_zero_point", Numeric(x_type, {}, {1}));
      test.InputTensor("w_zero_point", Numeric(w_type, {}, {0}));
      test.Output<int32_t>("y", {1, 1, 1, 2}, {1, 2});
      test.Run();
    }
  }
}

// FlexAttention (ai.onnx.preview): two keys with equal scores share the probability, so Y is the
// mean of the values 1 and 3.
TEST(OpTypeMatrixTest, FlexAttentionEveryType) {
  for (E type : {E::kFloat, E::kDouble, E::kFloat16, E::kBFloat16}) {
    SCOPED_TRACE(::testing::Message() << ElementTypeName(type));
    OpTester test("FlexAttention", 1, "ai.onnx.preview");
    test.InputTensor("q", Numeric(type, {1, 1, 1, 1}, {1}));
    test.InputTensor("k", Numeric(type, {1, 1, 2, 1}, {2, 2}));
    test.InputTensor("v", Numeric(type, {1, 1, 2, 1}, {1, 3}));
    test.OutputTensor("y", Numeric(type, {1, 1, 1, 1}, {2}));
    test.Run();
  }
}

// The training optimizer steps (ai.onnx.preview.training), every (T1, T3) pair: one step from
// X = 3 with G = 1 and zero states, rate 1, step 0, so every update is exact: X = 2, V = 1,
// H = 1.
TEST(OpTypeMatrixTest, OptimizerStepsEveryTypePair) {
  for (E rate_type : {E::kFloat, E::kDouble}) {
    for (E type : {E::kFloat, E::kDouble}) {
      SCOPED_TRACE(::testing::Message() << ElementTypeName(rate_type) << " rate, "
                                        << ElementTypeName(type) << " tensors");
      const auto start = [&](const std::string& op) {
        auto test = std::make_unique<OpTester>(op, 1, "ai.onnx.preview.training");
        test->InputTensor("R", Numeric(rate_type, {}, {1}));
        test->Input<int64_t>("T", {}, {0});
        test->InputTensor("X", Numeric(type, {1}, {3}));
        test->InputTensor("G", Numeric(type, {1}, {1}));
        return test;
      };
      auto adagrad = start("Adagrad");
      adagrad->Attr("epsilon", 0.0f);
      adagrad->InputTensor("H", Numeric(type, {1}, {0}));
      adagrad->OutputTensor("X_new", Numeric(type, {1}, {2}));
      adagrad->OutputTensor("H_new", Numeric(type, {1}, {1}));
      adagrad->Run();
      auto adam = start("Adam");
      adam->Attr("epsilon", 0.0f).Attr("alpha", 0.0f).Attr("beta", 0.0f);
      adam->InputTensor("V", Numeric(type, {1}, {0}));
      adam->InputTensor("H", Numeric(type, {1}, {0}));
      adam->OutputTensor("X_new", Numeric(type, {1}, {2}));
      adam->OutputTensor("V_new", Numeric(type, {1}, {1}));
      adam->OutputTensor("H_new", Numeric(type, {1}, {1}));
      adam->Run();
      auto momentum = start("Momentum");
      momentum->Attr("alpha", 1.0f).Attr("beta", 1.0f).Attr("norm_coefficient", 0.0f);
      momentum->Attr("mode", std::string("standard"));
      momentum->InputTensor("V", Numeric(type, {1}, {0}));
      momentum->OutputTensor("X_new", Numeric(type, {1}, {2}));
      momentum->OutputTensor("V_new", Numeric(type, {1}, {1}));
      momentum->Run();
    }
  }
}

// LayerNormalization: every (T, U) pair. X = [1, 3] has mean 2 and variance 1, so with epsilon 0
// it normalizes to [-1, 1]; Scale 2 and B 1 make Y = [-1, 3]. Mean and InvStdDev (type U) are 2
// and 1.
TEST(OpTypeMatrixTest, LayerNormalizationEveryTypePair) {
  for (E t : RegisteredTypes("LayerNormalization", 17, "T")) {
    for (E u : RegisteredTypes("LayerNormalization", 17, "U")) {
      SCOPED_TRACE(::testing::Message()
                   << "T=" << ElementTypeName(t) << " U=" << ElementTypeName(u));
      OpTester test("LayerNormalization", 17);
      test.InputTensor("X", Numeric(t, {1, 2}, {1, 3}));
      test.InputTensor("Scale", Numeric(t, {2}, {2, 2}));
      test.InputTensor("B", Numeric(t, {2}, {1, 1}));
      test.Attr("epsilon", 0.0f);
      test.Attr("stash_type", static_cast<int64_t>(u));
      test.OutputTensor("Y", Numeric(t, {1, 2}, {-1, 3}));
      test.OutputTensor("Mean", Numeric(u, {1, 1}, {2}));
      test.OutputTensor("InvStdDev", Numeric(u, {1, 1}, {1}));
      test.Run();
    }
  }
}

// y = scale * (x - mean) / sqrt(var + epsilon) + bias with epsilon 0: 2 * x + 1 exactly.
void CheckBatchNorm(int opset, E t, E scale_type, E stats_type) {
  SCOPED_TRACE(::testing::Message() << "opset " << opset << " T=" << ElementTypeName(t)
                                    << " scale=" << ElementTypeName(scale_type)
                                    << " stats=" << ElementTypeName(stats_type));
  OpTester test("BatchNormalization", opset);
  test.InputTensor("x", Numeric(t, {1, 1, 1, 2}, {0, 1}));
  test.InputTensor("scale", Numeric(scale_type, {1}, {2}));
  test.InputTensor("b", Numeric(scale_type, {1}, {1}));
  test.InputTensor("mean", Numeric(stats_type, {1}, {0}));
  test.InputTensor("var", Numeric(stats_type, {1}, {1}));
  test.Attr("epsilon", 0.0f);
  test.OutputTensor("y", Numeric(t, {1, 1, 1, 2}, {1, 3}));
  test.Run();
}

TEST(OpTypeMatrixTest, BatchNormalizationEveryTypeCombination) {
  for (E t : RegisteredTypes("BatchNormalization", 14, "T"))
    for (E u : RegisteredTypes("BatchNormalization", 14, "U")) CheckBatchNorm(14, t, t, u);
  for (E t : RegisteredTypes("BatchNormalization", 15, "T"))
    for (E t1 : RegisteredTypes("BatchNormalization", 15, "T1"))
      for (E t2 : RegisteredTypes("BatchNormalization", 15, "T2")) CheckBatchNorm(15, t, t1, t2);
}

// ---------------------------------------------------------------------------------------------
// Regions: Slice, Split, Pad, Tile, Size, Trilu, EyeLike, Range.

TEST(OpTypeMatrixTest, SliceEveryRangeAndType) {
  ForEachRegistered("Slice", "T", [](int opset, E type) {
    const std::vector<E> index_types =
        opset >= 10 ? RegisteredTypes("Slice", opset, "Tind") : std::vector<E>{E::kInt64};
    for (E index_type : index_types) {
      OpTester test("Slice", opset);
      test.InputTensor("data", Coded(type, {3, 4}, Iota(12)));
      if (opset < 10) {  // rows 1..2, columns 1..3
        test.Attr("starts", std::vector<int64_t>{1, 1}).Attr("ends", std::vector<int64_t>{3, 4});
        test.OutputTensor("output", Coded(type, {2, 3}, {5, 6, 7, 9, 10, 11}));
      } else {  // rows 2, 1 and columns 3, 1 (negative steps, a negative end)
        test.InputTensor("starts", Numeric(index_type, {2}, {2, 3}));
        test.InputTensor("ends", Numeric(index_type, {2}, {0, 0}));
        test.InputTensor("axes", Numeric(index_type, {2}, {0, 1}));
        test.InputTensor("steps", Numeric(index_type, {2}, {-1, -2}));
        test.OutputTensor("output", Coded(type, {2, 2}, {11, 9, 7, 5}));
      }
      test.Run();
    }
  });
}

TEST(OpTypeMatrixTest, SplitEveryRangeAndType) {
  ForEachRegistered("Split", "T", [](int opset, E type) {
    OpTester test("Split", opset);
    test.InputTensor("input", Coded(type, {2, 4}, Iota(8)));
    if (opset >= 13)
      test.Input<int64_t>("split", {2}, {1, 3});
    else
      test.Attr("split", std::vector<int64_t>{1, 3});
    test.Attr("axis", int64_t{1});
    test.OutputTensor("a", Coded(type, {2, 1}, {0, 4}));
    test.OutputTensor("b", Coded(type, {2, 3}, {1, 2, 3, 5, 6, 7}));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, PadEveryRangeAndType) {
  ForEachRegistered("Pad", "T", [](int opset, E type) {
    // [2, 2] padded with one column in front and one row behind; the constant is code 0 before
    // opset 11 (the float attribute's default) and code 3 after (1 for bool and 2-bit types).
    const int c = opset < 11 ? 0 : (type == E::kBool ? 1 : 3);
    OpTester test("Pad", opset);
    test.InputTensor("data", Coded(type, {2, 2}, {1, 2, 2, 1}));
    if (opset < 11) {
      test.Attr(opset < 2 ? "paddings" : "pads", std::vector<int64_t>{0, 1, 1, 0});
    } else {
      test.Input<int64_t>("pads", {4}, {0, 1, 1, 0});
      test.InputTensor("constant_value", Coded(type, {}, {c}));
    }
    test.OutputTensor("output", Coded(type, {3, 3}, {c, 1, 2, c, 2, 1, c, c, c}));
    test.Run();
    if (opset < 18) return;
    for (E index_type : RegisteredTypes("Pad", opset, "Tind")) {  // edge mode on axis 1 only
      OpTester edge("Pad", opset);
      edge.InputTensor("data", Coded(type, {2, 2}, {1, 2, 2, 1}));
      edge.Input<int64_t>("pads", {2}, {2, 1}).MissingInput();
      edge.InputTensor("axes", Numeric(index_type, {1}, {1}));
      edge.Attr("mode", std::string("edge"));
      edge.OutputTensor("output", Coded(type, {2, 5}, {1, 1, 1, 2, 2, 2, 2, 2, 1, 1}));
      edge.Run();
    }
  });
}

TEST(OpTypeMatrixTest, TileEveryRangeAndType) {
  ForEachRegistered("Tile", "T", [](int opset, E type) {
    OpTester test("Tile", opset);
    test.InputTensor("input", Coded(type, {2, 1}, {1, 2}));
    if (opset < 6) {
      test.Input<int64_t>("tiles", {}, {3}).Input<int64_t>("axis", {}, {1});
    } else {
      test.Input<int64_t>("repeats", {2}, {2, 3});
    }
    if (opset < 6)
      test.OutputTensor("output", Coded(type, {2, 3}, {1, 1, 1, 2, 2, 2}));
    else
      test.OutputTensor("output", Coded(type, {4, 3}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, SizeEveryRangeAndType) {
  ForEachRegistered("Size", "T", [](int opset, E type) {
    OpTester test("Size", opset);
    test.InputTensor("data", Coded(type, {2, 3}, Iota(6)));
    test.Output<int64_t>("size", {}, {6});
    test.Run();
  });
}

TEST(OpTypeMatrixTest, TriluEveryType) {
  ForEachRegistered("Trilu", "T", [](int opset, E type) {
    if (type == E::kString) {
      OpTester strings("Trilu", opset);
      strings.Input<std::string>("input", {2, 2}, {"a", "b", "c", "d"});
      strings.Attr("upper", int64_t{0});
      strings.Output<std::string>("output", {2, 2}, {"a", "", "c", "d"});
      strings.Run();
      return;
    }
    OpTester test("Trilu", opset);  // upper with k = 1: strictly above the diagonal
    test.InputTensor("input", Coded(type, {2, 3}, {1, 2, 3, 1, 2, 3}));
    test.Input<int64_t>("k", {}, {1});
    Tensor expected = Coded(type, {2, 3}, {0, 2, 3, 0, 0, 3});
    if (type == E::kComplex64)  // zeros are written as +0 + 0i; code 0 is 0 - 0i
      for (int i = 0; i < 12; ++i) static_cast<float*>(expected.MutableRawData())[i] += 0.0f;
    if (type == E::kComplex128)
      for (int i = 0; i < 12; ++i) static_cast<double*>(expected.MutableRawData())[i] += 0.0;
    test.OutputTensor("output", expected);
    test.Run();
  });
}

// CenterCropPad: a 3x2 input made 1x3, cropping rows (the window starts at row 1) and padding
// columns (the odd zero goes to the end), with either index type.
TEST(OpTypeMatrixTest, CenterCropPadEveryTypeAndIndexType) {
  ForEachRegistered("CenterCropPad", "T", [](int opset, E type) {
    for (E index_type : RegisteredTypes("CenterCropPad", opset, "Tind")) {
      SCOPED_TRACE(ElementTypeName(index_type));
      OpTester test("CenterCropPad", opset);
      test.InputTensor("input_data", Coded(type, {3, 2}, Iota(6)));
      test.InputTensor("shape", Numeric(index_type, {2}, {1, 3}));
      if (type == E::kString) {
        test.Output<std::string>("output", {1, 3}, {"s2", "s3", ""});
      } else {
        Tensor expected = Coded(type, {1, 3}, {2, 3, 0});
        // The padding is +0 + 0i; code 0 is 0 - 0i.
        if (type == E::kComplex64) static_cast<float*>(expected.MutableRawData())[5] += 0.0f;
        if (type == E::kComplex128) static_cast<double*>(expected.MutableRawData())[5] += 0.0;
        test.OutputTensor("output", expected);
      }
      test.Run();
    }
  });
}

// BitCast: each type to the next of its bit width (cyclically), so that every type is a source
// and a target; the bytes must come through unchanged (a bool target holds 0 or 1).
TEST(OpTypeMatrixTest, BitCastEveryInputAndOutputType) {
  const std::vector<std::vector<E>> widths = {
      {E::kUint8, E::kBool, E::kInt8, E::kFloat8E4M3FN, E::kFloat8E4M3FNUZ, E::kFloat8E5M2,
       E::kFloat8E5M2FNUZ, E::kFloat8E8M0},
      {E::kUint16, E::kInt16, E::kFloat16, E::kBFloat16},
      {E::kUint32, E::kInt32, E::kFloat},
      {E::kUint64, E::kInt64, E::kDouble, E::kComplex64},
      {E::kComplex128},
      {E::kUint4, E::kInt4, E::kFloat4E2M1},
      {E::kUint2, E::kInt2}};
  ForEachRegistered("BitCast", "T1", [&](int opset, E type) {
    E target = E::kUndefined;
    for (const std::vector<E>& group : widths)
      for (size_t i = 0; i < group.size(); ++i)
        if (group[i] == type) target = group[(i + 1) % group.size()];
    ASSERT_NE(target, E::kUndefined) << "no same-width partner listed";
    const std::vector<int> values = Representable(type);
    const Tensor input = Coded(type, {2, 2}, {values[0], values[1], values[1], values[0]});
    const uint8_t* bytes = static_cast<const uint8_t*>(input.RawData());
    std::vector<uint8_t> expected(bytes, bytes + input.SizeInBytes());
    if (target == E::kBool)
      for (uint8_t& b : expected) b = b != 0 ? 1 : 0;
    OpTester test("BitCast", opset);
    test.Attr("to", static_cast<int64_t>(target));
    test.InputTensor("input", input);
    test.OutputTensor("output", MakeRawTensor(target, {2, 2}, expected));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, EyeLikeEveryInputAndOutputType) {
  ForEachRegistered("EyeLike", "T1", [](int opset, E type) {
    OpTester same("EyeLike", opset);  // the output takes the input's type
    same.InputTensor("input", Numeric(type, {2, 3}, {0, 0, 0, 0, 0, 0}));
    same.OutputTensor("output", Numeric(type, {2, 3}, {1, 0, 0, 0, 1, 0}));
    same.Run();
    OpTester shifted("EyeLike", opset);  // any type named by dtype, from a float input
    shifted.Input<float>("input", {2, 3}, {0, 0, 0, 0, 0, 0});
    shifted.Attr("dtype", static_cast<int64_t>(type)).Attr("k", int64_t{1});
    shifted.OutputTensor("output", Numeric(type, {2, 3}, {0, 1, 0, 0, 0, 1}));
    shifted.Run();
  });
}

TEST(OpTypeMatrixTest, RangeEveryRangeAndType) {
  ForEachRegistered("Range", "T", [](int opset, E type) {
    OpTester test("Range", opset);
    test.InputTensor("start", Numeric(type, {}, {3}));
    test.InputTensor("limit", Numeric(type, {}, {0}));
    test.InputTensor("delta", Numeric(type, {}, {-1}));
    test.OutputTensor("output", Numeric(type, {3}, {3, 2, 1}));
    test.Run();
  });
}

// ---------------------------------------------------------------------------------------------
// Index ops: GatherElements, GatherND, Scatter, ScatterElements, ScatterND.

TEST(OpTypeMatrixTest, GatherElementsEveryRangeAndType) {
  ForEachRegistered("GatherElements", "T", [](int opset, E type) {
    for (E index_type : RegisteredTypes("GatherElements", opset, "Tind")) {
      OpTester test("GatherElements", opset);  // axis 1 of [2, 3]: picks within each row
      test.InputTensor("data", Coded(type, {2, 3}, Iota(6)));
      test.InputTensor("indices", Numeric(index_type, {2, 2}, {2, 0, -1, 1}));
      test.Attr("axis", int64_t{1});
      test.OutputTensor("output", Coded(type, {2, 2}, {2, 0, 5, 4}));
      test.Run();
    }
  });
}

// Scatter, ScatterElements: axis 0 of [3, 2]; rows 2 and 0 of column 0, rows 1 and 0 of column 1.
void CheckScatterElements(const char* op, int opset, E type) {
  for (E index_type : RegisteredTypes(op, opset, "Tind")) {
    OpTester test(op, opset);
    test.InputTensor("data", Coded(type, {3, 2}, Iota(6)));
    test.InputTensor("indices", Numeric(index_type, {2, 2}, {2, 1, 0, 0}));
    test.InputTensor("updates", Coded(type, {2, 2}, {7, 8, 9, 10}));
    test.OutputTensor("output", Coded(type, {3, 2}, {9, 10, 2, 8, 7, 5}));
    test.Run();
  }
}

TEST(OpTypeMatrixTest, ScatterElementsEveryRangeAndType) {
  ForEachRegistered("ScatterElements", "T", [](int opset, E type) {
    CheckScatterElements("ScatterElements", opset, type);
  });
  ForEachRegistered("Scatter", "T",
                    [](int opset, E type) { CheckScatterElements("Scatter", opset, type); });
}

TEST(OpTypeMatrixTest, GatherNDEveryRangeAndType) {
  ForEachRegistered("GatherND", "T", [](int opset, E type) {
    OpTester test("GatherND", opset);  // rows 1 and 0 of [2, 3]
    test.InputTensor("data", Coded(type, {2, 3}, Iota(6)));
    test.Input<int64_t>("indices", {2, 1}, {1, 0});
    test.OutputTensor("output", Coded(type, {2, 3}, {3, 4, 5, 0, 1, 2}));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, ScatterNDEveryRangeAndType) {
  ForEachRegistered("ScatterND", "T", [](int opset, E type) {
    OpTester test("ScatterND", opset);  // element (1, 2) and (0, 0) of [2, 3]
    test.InputTensor("data", Coded(type, {2, 3}, Iota(6)));
    test.Input<int64_t>("indices", {2, 2}, {1, 2, 0, 0});
    test.InputTensor("updates", Coded(type, {2}, {9, 7}));
    test.OutputTensor("output", Coded(type, {2, 3}, {7, 1, 2, 3, 4, 9}));
    test.Run();
  });
}

// ---------------------------------------------------------------------------------------------
// Rearranging and selecting: DepthToSpace, SpaceToDepth, Compress, ReverseSequence, NonZero,
// OneHot, TopK, Dropout, Unique.

TEST(OpTypeMatrixTest, DepthToSpaceAndSpaceToDepthEveryRangeAndType) {
  // [1, 4, 1, 1] with blocksize 2 (DCR) becomes the 2x2 block [[0, 1], [2, 3]], and back.
  ForEachRegistered("DepthToSpace", "T", [](int opset, E type) {
    OpTester test("DepthToSpace", opset);
    test.InputTensor("input", Coded(type, {1, 4, 1, 1}, {0, 1, 2, 3}));
    test.Attr("blocksize", int64_t{2});
    test.OutputTensor("output", Coded(type, {1, 1, 2, 2}, {0, 1, 2, 3}));
    test.Run();
  });
  ForEachRegistered("SpaceToDepth", "T", [](int opset, E type) {
    OpTester test("SpaceToDepth", opset);
    test.InputTensor("input", Coded(type, {1, 1, 2, 2}, {0, 1, 2, 3}));
    test.Attr("blocksize", int64_t{2});
    test.OutputTensor("output", Coded(type, {1, 4, 1, 1}, {0, 1, 2, 3}));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, CompressEveryRangeAndType) {
  ForEachRegistered("Compress", "T", [](int opset, E type) {
    OpTester test("Compress", opset);
    test.InputTensor("input", Coded(type, {3, 2}, Iota(6)));
    test.Input<bool>("condition", {3}, {true, false, true}).Attr("axis", int64_t{0});
    test.OutputTensor("output", Coded(type, {2, 2}, {0, 1, 4, 5}));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, ReverseSequenceEveryRangeAndType) {
  ForEachRegistered("ReverseSequence", "T", [](int opset, E type) {
    OpTester test("ReverseSequence", opset);  // time-major [3, 2]: lengths 3 and 1
    test.InputTensor("input", Coded(type, {3, 2}, Iota(6)));
    test.Input<int64_t>("sequence_lens", {2}, {3, 1});
    test.OutputTensor("Y", Coded(type, {3, 2}, {4, 1, 2, 3, 0, 5}));
    test.Run();
  });
}

TEST(OpTypeMatrixTest, NonZeroEveryRangeAndType) {
  ForEachRegistered("NonZero", "T", [](int opset, E type) {
    OpTester test("NonZero", opset);
    if (type == E::kString)
      test.Input<std::string>("X", {2, 2}, {"", "a", "b", ""});
    else if (type == E::kComplex64 || type == E::kComplex128)
      test.InputTensor("X", Coded(type, {2, 2}, {0, 1, 1, 0}));
    else
      test.InputTensor("X", Numeric(type, {2, 2}, {0, 1, 1, 0}));
    test.Output<int64_t>("Y", {2, 2}, {0, 1, 1, 0});
    test.Run();
  });
}

TEST(OpTypeMatrixTest, OneHotEveryTypeOfEachConstraint) {
  const auto check = [](int opset, E indices_type, E depth_type, E values_type) {
    OpTester test("OneHot", opset);
    test.InputTensor("indices", Numeric(indices_type, {2}, {2, 0}));
    test.InputTensor("depth", Numeric(depth_type, {}, {3}));
    test.InputTensor("values", Coded(values_type, {2}, {1, 2}));
    test.OutputTensor("output", Coded(values_type, {2, 3}, {1, 1, 2, 2, 1, 1}));
    test.Run();
  };
  ForEachRegistered("OneHot", "T1",
                    [&](int opset, E type) { check(opset, type, E::kInt64, E::kFloat); });
  ForEachRegistered("OneHot", "T2",
                    [&](int opset, E type) { check(opset, E::kInt64, type, E::kFloat); });
  ForEachRegistered("OneHot", "T3",
                    [&](int opset, E type) { check(opset, E::kInt64, E::kInt64, type); });
}

TEST(OpTypeMatrixTest, TopKEveryRangeAndType) {
  ForEachRegistered("TopK", "T", [](int opset, E type) {
    OpTester test("TopK", opset);
    test.InputTensor("X", Numeric(type, {4}, {1, 3, 0, 2}));
    if (opset < 10)
      test.Attr("k", int64_t{2});
    else
      test.Input<int64_t>("K", {1}, {2});
    test.OutputTensor("Values", Numeric(type, {2}, {3, 2}));
    test.Output<int64_t>("Indices", {2}, {1, 3});
    test.Run();
  });
}

TEST(OpTypeMatrixTest, DropoutEveryRangeAndType) {
  ForEachRegistered("Dropout", "T", [](int opset, E type) {
    OpTester test("Dropout", opset);
    test.InputTensor("data", Numeric(type, {3}, {1, 2, 0}));
    test.OutputTensor("output", Numeric(type, {3}, {1, 2, 0}));
    test.Run();
  });
  OpTester mask10("Dropout", 10);  // the bool mask of opsets 10-11
  mask10.Input<float>("data", {2}, {1, 2});
  mask10.Output<float>("output", {2}, {1, 2}).Output<bool>("mask", {2}, {true, true});
  mask10.Run();
  for (int opset : {12, 13, 22}) {  // the ratio's type, and the mask
    for (E ratio_type : RegisteredTypes("Dropout", opset, "T1")) {
      SCOPED_TRACE(::testing::Message()
                   << "Dropout opset " << opset << " ratio " << ElementTypeName(ratio_type));
      OpTester test("Dropout", opset);
      test.Input<float>("data", {2}, {1, 2});
      test.InputTensor("ratio", Numeric(ratio_type, {}, {0}));
      test.Input<bool>("training_mode", {}, {false});
      test.Output<float>("output", {2}, {1, 2});
      test.Output<bool>("mask", {2}, {true, true});
      test.Run();
    }
  }
}

TEST(OpTypeMatrixTest, UniqueEveryRangeAndType) {
  ForEachRegistered("Unique", "T", [](int opset, E type) {
    OpTester test("Unique", opset);  // codes 2, 0, 2, 1 (bool: 0, 0, 0, 1)
    const bool two_valued = type == E::kBool;
    test.InputTensor("X", Coded(type, {4}, {2, 0, 2, 1}));
    if (two_valued) {
      test.OutputTensor("Y", Coded(type, {2}, {0, 1}));
      test.Output<int64_t>("indices", {2}, {0, 3});
      test.Output<int64_t>("inverse_indices", {4}, {0, 0, 0, 1});
      test.Output<int64_t>("counts", {2}, {3, 1});
    } else {  // strings "s0" < "s1" < "s2" sort the same way
      test.OutputTensor("Y", Coded(type, {3}, {0, 1, 2}));
      test.Output<int64_t>("indices", {3}, {1, 3, 0});
      test.Output<int64_t>("inverse_indices", {4}, {2, 0, 2, 1});
      test.Output<int64_t>("counts", {3}, {1, 1, 2});
    }
    test.Run();
  });
}

// ---------------------------------------------------------------------------------------------
// Resize and Upsample: nearest moves elements of every type; the roi's types through
// tf_crop_and_resize.

TEST(OpTypeMatrixTest, ResizeAndUpsampleEveryRangeAndType) {
  // [1, 2] doubled along the last axis by nearest: each element twice.
  const auto check = [](const char* op, int opset, E type) {
    if (std::string(op) == "Upsample" && opset < 7) {
      OpTester upsample1(op, opset);  // Upsample-1 scales NCHW height and width
      upsample1.InputTensor("X", Coded(type, {1, 1, 1, 2}, {1, 2}));
      upsample1.Attr("width_scale", 2.0f).Attr("height_scale", 1.0f);
      upsample1.OutputTensor("Y", Coded(type, {1, 1, 1, 4}, {1, 1, 2, 2}));
      upsample1.Run();
      return;
    }
    OpTester test(op, opset);
    test.InputTensor("X", Coded(type, {1, 2}, {1, 2}));
    if (std::string(op) == "Upsample" && opset < 9) {
      test.Attr("scales", std::vector<float>{1, 2});
    } else if (std::string(op) == "Upsample" || opset < 11) {
      test.Input<float>("scales", {2}, {1, 2});
    } else {
      test.MissingInput().Input<float>("scales", {2}, {1, 2});
    }
    test.Attr("mode", std::string("nearest"));
    test.OutputTensor("Y", Coded(type, {1, 4}, {1, 1, 2, 2}));
    test.Run();
  };
  for (int opset : SpecVersions("Resize")) {  // the data constraint is T at 10, T1 after
    const std::vector<E> types = RegisteredTypes("Resize", opset, opset < 11 ? "T" : "T1");
    EXPECT_FALSE(types.empty()) << "Resize registers no data type at opset " << opset;
    for (E type : types) {
      SCOPED_TRACE(::testing::Message()
                   << "Resize opset " << opset << " " << ElementTypeName(type));
      check("Resize", opset, type);
    }
  }
  ForEachRegistered("Upsample", "T", [&](int opset, E type) { check("Upsample", opset, type); });
  for (int opset : {11, 13, 18, 19}) {
    for (E roi_type : RegisteredTypes("Resize", opset, "T2")) {
      SCOPED_TRACE(::testing::Message()
                   << "Resize opset " << opset << " roi " << ElementTypeName(roi_type));
      OpTester test("Resize", opset);  // the middle half of [0, 1, 2, 3, 4] at 3 points
      test.Input<float>("X", {5}, {0, 1, 2, 3, 4});
      test.InputTensor("roi", Numeric(roi_type, {2}, {0, 1}));
      test.Input<float>("scales", {1}, {0.6f});
      test.Attr("mode", std::string("linear"));
      test.Attr("coordinate_transformation_mode", std::string("tf_crop_and_resize"));
      test.Output<float>("Y", {3}, {0, 2, 4});
      test.Run();
    }
  }
}

}  // namespace
}  // namespace prism::testing
