// The sequence and optional ops: every registered (opset range, element type) computed on coded
// data whose expected values are worked out by hand (tests/coverage/check_type_coverage.py
// --strict counts these), and the corners: negative and default positions, uneven splits,
// keepdims, new_axis at the rank, SequenceMap with tensor and sequence extra inputs, empty
// sequences and optionals, and the errors for what the spec forbids.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "../tensor/coded_tensor.h"
#include "compute_evidence.h"
#include "framework/kernel_registry.h"
#include "framework/packed_int.h"
#include "graph/model.h"
#include "graph/shape_inference.h"
#include "op_tester.h"
#include "providers/cpu/cpu_execution_provider.h"
#include "registered_types.h"
#include "session/inference_session.h"

namespace prism::testing {
namespace {

using E = ElementType;

enum class Kind { kTensor, kSequence, kOptionalTensor, kOptionalSequence };

// The element types the CPU registry registers for constraint of op at opset.
std::vector<ElementType> Registered(const std::string& op, int opset,
                                    const std::string& constraint) {
  return CpuRegisteredTypes(op, opset, constraint);
}

// A tensor of any registered type whose element i encodes codes[i] (complex: (c, -c); float6:
// the raw 6-bit code).
Tensor Coded(ElementType type, const std::vector<int64_t>& dims, const std::vector<int>& codes) {
  if (type == E::kComplex64 || type == E::kComplex128) {
    Tensor tensor(type, TensorShape(dims), GetCpuAllocator());
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
  if (ElementBits(type) == 6) {
    Tensor tensor(type, TensorShape(dims), GetCpuAllocator());
    auto* bytes = static_cast<uint8_t*>(tensor.MutableRawData());
    for (size_t b = 0; b < tensor.SizeInBytes(); ++b) bytes[b] = 0;
    for (size_t i = 0; i < codes.size(); ++i)
      SetPackedBits(bytes, static_cast<int64_t>(i), 6, static_cast<uint8_t>(codes[i] & 0x3f));
    return tensor;
  }
  return MakeCodedTensor(type, dims, codes);
}

Value Seq(ElementType type, std::vector<Tensor> tensors) {
  TensorSequence sequence;
  sequence.elem_type = type;
  sequence.tensors = std::move(tensors);
  return Value(std::move(sequence));
}

Value Int(ElementType type, const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
  if (type == E::kInt32) {
    std::vector<int32_t> narrow(values.begin(), values.end());
    return Value(MakeTensor<int32_t>(dims, narrow));
  }
  return Value(MakeTensor<int64_t>(dims, values));
}

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

onnx::NodeProto* AddNode(onnx::GraphProto* graph, const std::string& op,
                         const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs) {
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op);
  for (const std::string& input : inputs) node->add_input(input);
  for (const std::string& output : outputs) node->add_output(output);
  return node;
}

void IntAttr(onnx::NodeProto* node, const std::string& name, int64_t value) {
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(value);
}

onnx::ModelProto EmptyModel(int opset) {
  onnx::ModelProto model;
  model.set_ir_version(10);
  auto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model.mutable_graph()->set_name("sequence_ops");
  return model;
}

std::vector<Value> RunModel(const onnx::ModelProto& model, const std::vector<std::string>& names,
                            const std::vector<Value>& feeds) {
  const std::string bytes = model.SerializeAsString();
  InferenceSession session;
  session.Load(bytes.data(), bytes.size());
  return session.Run(RunOptions{}, names, feeds, {});
}

void ExpectSame(const Value& expected, const Value& actual, const std::string& what) {
  const std::string mismatch = CompareWithOracle(expected, actual, {});
  EXPECT_TRUE(mismatch.empty()) << what << ": " << mismatch;
}

// Expects loading or running the model to fail with a message containing each substring.
void ExpectError(const onnx::ModelProto& model, const std::vector<std::string>& names,
                 const std::vector<Value>& feeds, const std::vector<std::string>& substrings) {
  try {
    RunModel(model, names, feeds);
    ADD_FAILURE() << "expected an error containing '" << substrings[0] << "'";
  } catch (const std::exception& e) {
    for (const std::string& s : substrings)
      EXPECT_NE(std::string(e.what()).find(s), std::string::npos)
          << "error '" << e.what() << "' does not contain '" << s << "'";
  }
}

// ---------------------------------------------------------------------------------------------
// Every type of the opset-11 sequence ops, with int32 and int64 positions:
//   s = SequenceConstruct(x, y); s2 = SequenceInsert(s, x, 0); s3 = SequenceErase(s2, -1)
//   at = SequenceAt(s3, 1); len = SequenceLength(s3); cat = ConcatFromSequence(s3, axis 0)
//   parts = SplitToSequence(cat, 3); one = SequenceInsert(SequenceEmpty(dtype), y)
// with x = [1, 2] and y = [3]: s3 = [x, x], at = x, len = 2, cat = [1, 2, 1, 2],
// parts = [[1, 2, 1], [2]], one = [y].
void CheckSequenceChain(int opset, ElementType type, ElementType position) {
  SCOPED_TRACE(::testing::Message() << "opset " << opset << " " << ElementTypeName(type)
                                    << " positions " << ElementTypeName(position));
  onnx::ModelProto model = EmptyModel(opset);
  onnx::GraphProto* graph = model.mutable_graph();
  AddTyped(graph->mutable_input(), "x", Kind::kTensor, type);
  AddTyped(graph->mutable_input(), "y", Kind::kTensor, type);
  for (const char* name : {"p0", "pm1", "p1", "p3"})
    AddTyped(graph->mutable_input(), name, Kind::kTensor, position);
  AddNode(graph, "SequenceConstruct", {"x", "y"}, {"s"});
  AddNode(graph, "SequenceInsert", {"s", "x", "p0"}, {"s2"});
  AddNode(graph, "SequenceErase", {"s2", "pm1"}, {"s3"});
  AddNode(graph, "SequenceAt", {"s3", "p1"}, {"at"});
  AddNode(graph, "SequenceLength", {"s3"}, {"len"});
  IntAttr(AddNode(graph, "ConcatFromSequence", {"s3"}, {"cat"}), "axis", 0);
  AddNode(graph, "SplitToSequence", {"cat", "p3"}, {"parts"});
  IntAttr(AddNode(graph, "SequenceEmpty", {}, {"empty"}), "dtype", static_cast<int64_t>(type));
  AddNode(graph, "SequenceInsert", {"empty", "y"}, {"one"});
  AddTyped(graph->mutable_output(), "s3", Kind::kSequence, type);
  AddTyped(graph->mutable_output(), "at", Kind::kTensor, type);
  AddTyped(graph->mutable_output(), "len", Kind::kTensor, E::kInt64);
  AddTyped(graph->mutable_output(), "cat", Kind::kTensor, type);
  AddTyped(graph->mutable_output(), "parts", Kind::kSequence, type);
  AddTyped(graph->mutable_output(), "one", Kind::kSequence, type);
  const Tensor x = Coded(type, {2}, {1, 2});
  const Tensor y = Coded(type, {1}, {3});
  std::vector<Value> result =
      RunModel(model, {"x", "y", "p0", "pm1", "p1", "p3"},
               {Value(x), Value(y), Int(position, {}, {0}), Int(position, {}, {-1}),
                Int(position, {}, {1}), Int(position, {}, {3})});
  ASSERT_EQ(result.size(), 6u);
  ExpectSame(Seq(type, {x, x}), result[0], "s3");
  ExpectSame(Value(x), result[1], "at");
  ExpectSame(Value(MakeTensor<int64_t>({}, {2})), result[2], "len");
  ExpectSame(Value(Coded(type, {4}, {1, 2, 1, 2})), result[3], "cat");
  ExpectSame(Seq(type, {Coded(type, {3}, {1, 2, 1}), Coded(type, {1}, {2})}), result[4], "parts");
  ExpectSame(Seq(type, {y}), result[5], "one");
}

TEST(SequenceOpsTest, Opset11OpsEveryTypeAndPositionType) {
  const std::vector<ElementType> types = Registered("SequenceConstruct", 11, "T");
  EXPECT_EQ(types.size(), 15u);
  for (ElementType type : types)
    for (ElementType position : {E::kInt32, E::kInt64}) CheckSequenceChain(11, type, position);
}

// SplitToSequence 24 adds bfloat16; its other types run through the same chain at opset 24.
TEST(SequenceOpsTest, SplitToSequence24EveryType) {
  const std::vector<ElementType> types = Registered("SplitToSequence", 24, "T");
  EXPECT_EQ(types.size(), 16u);
  for (ElementType type : types) {
    SCOPED_TRACE(ElementTypeName(type));
    for (ElementType position : {E::kInt32, E::kInt64}) {
      onnx::ModelProto model = EmptyModel(24);
      onnx::GraphProto* graph = model.mutable_graph();
      AddTyped(graph->mutable_input(), "x", Kind::kTensor, type);
      AddTyped(graph->mutable_input(), "split", Kind::kTensor, position);
      AddNode(graph, "SplitToSequence", {"x", "split"}, {"parts"});
      AddTyped(graph->mutable_output(), "parts", Kind::kSequence, type);
      const Tensor x = Coded(type, {2, 3}, Iota(6));
      std::vector<Value> result =
          RunModel(model, {"x", "split"}, {Value(x), Int(position, {2}, {1, 1})});
      ASSERT_EQ(result.size(), 1u);
      ExpectSame(Seq(type, {Coded(type, {1, 3}, {0, 1, 2}), Coded(type, {1, 3}, {3, 4, 5})}),
                 result[0], "parts");
    }
  }
}

// SequenceMap with input_sequence s = [a, b] and two extra inputs, a tensor t and a sequence u
// (in both orders, so V takes both kinds): the body returns Identity of its first three inputs.
void CheckSequenceMap(ElementType type, bool tensor_first) {
  SCOPED_TRACE(::testing::Message() << ElementTypeName(type) << (tensor_first ? " t,u" : " u,t"));
  onnx::ModelProto model = EmptyModel(17);
  onnx::GraphProto* graph = model.mutable_graph();
  AddTyped(graph->mutable_input(), "s", Kind::kSequence, type);
  AddTyped(graph->mutable_input(), "t", Kind::kTensor, type);
  AddTyped(graph->mutable_input(), "u", Kind::kSequence, type);
  const std::vector<std::string> extra =
      tensor_first ? std::vector<std::string>{"t", "u"} : std::vector<std::string>{"u", "t"};
  onnx::NodeProto* node =
      AddNode(graph, "SequenceMap", {"s", extra[0], extra[1]}, {"o0", "o1", "o2"});
  onnx::GraphProto body;
  body.set_name("body");
  AddTyped(body.mutable_input(), "e", Kind::kTensor, type);
  AddTyped(body.mutable_input(), "f", Kind::kTensor, type);
  AddTyped(body.mutable_input(), "g", Kind::kTensor, type);
  AddNode(&body, "Identity", {"e"}, {"e_out"});
  AddNode(&body, "Identity", {"f"}, {"f_out"});
  AddNode(&body, "Identity", {"g"}, {"g_out"});
  for (const char* name : {"e_out", "f_out", "g_out"})
    AddTyped(body.mutable_output(), name, Kind::kTensor, type);
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name("body");
  attr->set_type(onnx::AttributeProto::GRAPH);
  *attr->mutable_g() = body;
  for (const char* name : {"o0", "o1", "o2"})
    AddTyped(graph->mutable_output(), name, Kind::kSequence, type);
  const Tensor a = Coded(type, {2}, {1, 2}), b = Coded(type, {1}, {3});
  const Tensor t = Coded(type, {3}, {4, 5, 6});
  const Tensor u0 = Coded(type, {1}, {7}), u1 = Coded(type, {2}, {0, 1});
  std::vector<Value> result =
      RunModel(model, {"s", "t", "u"}, {Seq(type, {a, b}), Value(t), Seq(type, {u0, u1})});
  ASSERT_EQ(result.size(), 3u);
  ExpectSame(Seq(type, {a, b}), result[0], "o0");
  const Value ts = Seq(type, {t, t}), us = Seq(type, {u0, u1});
  ExpectSame(tensor_first ? ts : us, result[1], "o1");
  ExpectSame(tensor_first ? us : ts, result[2], "o2");
}

TEST(SequenceOpsTest, SequenceMapEveryTypeWithTensorAndSequenceInputs) {
  const std::vector<ElementType> types = Registered("SequenceMap", 17, "S");
  EXPECT_EQ(types.size(), 15u);
  for (ElementType type : types) {
    CheckSequenceMap(type, true);
    CheckSequenceMap(type, false);
  }
}

// Optional, OptionalHasElement and OptionalGetElement at the first opset of each schema range,
// for tensors and sequences: o = Optional(x), e = Optional() with the type attribute,
// has_o/has_e = OptionalHasElement, got = OptionalGetElement(o); from opset 18 also the plain
// value (HasElement true, GetElement returns it) and a missing input (HasElement false).
void CheckOptionals(int opset, ElementType type, bool sequence) {
  SCOPED_TRACE(::testing::Message() << "opset " << opset << " " << ElementTypeName(type)
                                    << (sequence ? " sequence" : " tensor"));
  const Kind plain = sequence ? Kind::kSequence : Kind::kTensor;
  const Kind optional = sequence ? Kind::kOptionalSequence : Kind::kOptionalTensor;
  onnx::ModelProto model = EmptyModel(opset);
  onnx::GraphProto* graph = model.mutable_graph();
  AddTyped(graph->mutable_input(), "x", plain, type);
  AddNode(graph, "Optional", {"x"}, {"o"});
  onnx::NodeProto* empty = AddNode(graph, "Optional", {}, {"e"});
  onnx::AttributeProto* attr = empty->add_attribute();
  attr->set_name("type");
  attr->set_type(onnx::AttributeProto::TYPE_PROTO);
  SetType(attr->mutable_tp(), plain, type);
  AddNode(graph, "OptionalHasElement", {"o"}, {"has_o"});
  AddNode(graph, "OptionalHasElement", {"e"}, {"has_e"});
  AddNode(graph, "OptionalGetElement", {"o"}, {"got"});
  AddTyped(graph->mutable_output(), "o", optional, type);
  AddTyped(graph->mutable_output(), "e", optional, type);
  AddTyped(graph->mutable_output(), "has_o", Kind::kTensor, E::kBool);
  AddTyped(graph->mutable_output(), "has_e", Kind::kTensor, E::kBool);
  AddTyped(graph->mutable_output(), "got", plain, type);
  const bool plain_inputs = opset >= 18;
  if (plain_inputs) {
    AddNode(graph, "OptionalHasElement", {"x"}, {"has_x"});
    AddNode(graph, "OptionalHasElement", {}, {"has_none"});
    AddNode(graph, "OptionalGetElement", {"x"}, {"got_x"});
    AddTyped(graph->mutable_output(), "has_x", Kind::kTensor, E::kBool);
    AddTyped(graph->mutable_output(), "has_none", Kind::kTensor, E::kBool);
    AddTyped(graph->mutable_output(), "got_x", plain, type);
  }
  const Tensor tensor = Coded(type, {3}, {1, 2, 3});
  const Value x = sequence ? Seq(type, {tensor, Coded(type, {1}, {0})}) : Value(tensor);
  std::vector<Value> result = RunModel(model, {"x"}, {x});
  ASSERT_EQ(result.size(), plain_inputs ? 8u : 5u);
  const Value yes(MakeTensor<bool>({}, {true})), no(MakeTensor<bool>({}, {false}));
  ExpectSame(x, result[0], "o");
  ExpectSame(Value(), result[1], "e");
  ExpectSame(yes, result[2], "has_o");
  ExpectSame(no, result[3], "has_e");
  ExpectSame(x, result[4], "got");
  if (plain_inputs) {
    ExpectSame(yes, result[5], "has_x");
    ExpectSame(no, result[6], "has_none");
    ExpectSame(x, result[7], "got_x");
  }
}

TEST(SequenceOpsTest, OptionalOpsEveryRangeKindAndType) {
  for (int opset : {15, 18, 28}) {
    const std::vector<ElementType> types = Registered("Optional", opset, "V");
    EXPECT_EQ(types.size(), opset == 28 ? 28u : 15u);
    for (ElementType type : types)
      for (bool sequence : {false, true}) CheckOptionals(opset, type, sequence);
  }
}

// ---------------------------------------------------------------------------------------------
// Corners, with values worked out by hand.

// One node over graph inputs (tensors of float unless listed) producing one output.
struct Case {
  Case(int opset_in, std::string op_in, std::vector<std::pair<std::string, Kind>> inputs_in,
       std::vector<ElementType> input_types_in)
      : opset(opset_in),
        op(std::move(op_in)),
        inputs(std::move(inputs_in)),
        input_types(std::move(input_types_in)) {}
  int opset = 11;
  std::string op;
  std::vector<std::pair<std::string, Kind>> inputs;  // "" names a missing input
  std::vector<ElementType> input_types;
  std::vector<std::pair<std::string, int64_t>> attributes;
  Kind output_kind = Kind::kTensor;
  ElementType output_type = E::kFloat;
};

onnx::ModelProto CaseModel(const Case& c) {
  onnx::ModelProto model = EmptyModel(c.opset);
  onnx::GraphProto* graph = model.mutable_graph();
  std::vector<std::string> names;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    names.push_back(c.inputs[i].first);
    if (!c.inputs[i].first.empty())
      AddTyped(graph->mutable_input(), c.inputs[i].first, c.inputs[i].second,
               i < c.input_types.size() ? c.input_types[i] : E::kFloat);
  }
  onnx::NodeProto* node = AddNode(graph, c.op, names, {"out"});
  for (const auto& [name, value] : c.attributes) IntAttr(node, name, value);
  AddTyped(graph->mutable_output(), "out", c.output_kind, c.output_type);
  return model;
}

Tensor Floats(const std::vector<int64_t>& dims, const std::vector<float>& values) {
  return MakeTensor<float>(dims, values);
}

Value FloatSeq(std::vector<Tensor> tensors) {
  return Seq(E::kFloat, std::move(tensors));
}

Value I64(std::vector<int64_t> dims, std::vector<int64_t> values) {
  return Int(E::kInt64, dims, values);
}

void ExpectCase(const Case& c, const std::vector<Value>& feeds, const Value& expected) {
  std::vector<std::string> names;
  for (const auto& input : c.inputs)
    if (!input.first.empty()) names.push_back(input.first);
  std::vector<Value> result = RunModel(CaseModel(c), names, feeds);
  ASSERT_EQ(result.size(), 1u);
  ExpectSame(expected, result[0], c.op);
}

void ExpectCaseError(const Case& c, const std::vector<Value>& feeds,
                     const std::vector<std::string>& substrings) {
  std::vector<std::string> names;
  for (const auto& input : c.inputs)
    if (!input.first.empty()) names.push_back(input.first);
  ExpectError(CaseModel(c), names, feeds, substrings);
}

const Tensor kA = Floats({2}, {1, 2});
const Tensor kB = Floats({1}, {3});
const Tensor kC = Floats({2}, {4, 5});

Case At() {
  return {11, "SequenceAt", {{"s", Kind::kSequence}, {"p", Kind::kTensor}}, {E::kFloat, E::kInt64}};
}

TEST(SequenceOpsTest, SequenceAtNegativePositionsAndOutOfRange) {
  const Value s = FloatSeq({kA, kB, kC});
  ExpectCase(At(), {s, I64({}, {-1})}, Value(kC));
  ExpectCase(At(), {s, I64({}, {-3})}, Value(kA));
  ExpectCase(At(), {s, I64({1}, {1})}, Value(kB));  // shape [1], as ONNX's own tests pass it
  ExpectCaseError(At(), {s, I64({}, {3})},
                  {"SequenceAt", "position 3 is out of range", "3 tensors", "-3 to 2"});
  ExpectCaseError(At(), {s, I64({}, {-4})}, {"position -4 is out of range"});
  ExpectCaseError(At(), {FloatSeq({}), I64({}, {0})}, {"position 0 is out of range", "0 tensors"});
  ExpectCaseError(At(), {s, I64({2}, {0, 1})}, {"'position' must be a scalar"});
}

Case Insert(bool with_position) {
  Case c{
      11, "SequenceInsert", {{"s", Kind::kSequence}, {"t", Kind::kTensor}}, {E::kFloat, E::kFloat}};
  if (with_position) {
    c.inputs.push_back({"p", Kind::kTensor});
    c.input_types.push_back(E::kInt64);
  }
  c.output_kind = Kind::kSequence;
  return c;
}

TEST(SequenceOpsTest, SequenceInsertPositions) {
  const Value s = FloatSeq({kA, kB});
  ExpectCase(Insert(false), {s, Value(kC)}, FloatSeq({kA, kB, kC}));
  ExpectCase(Insert(true), {s, Value(kC), I64({}, {2})}, FloatSeq({kA, kB, kC}));  // at the end
  ExpectCase(Insert(true), {s, Value(kC), I64({}, {-1})}, FloatSeq({kA, kC, kB}));
  ExpectCase(Insert(true), {s, Value(kC), I64({}, {-2})}, FloatSeq({kC, kA, kB}));
  ExpectCase(Insert(true), {FloatSeq({}), Value(kC), I64({}, {0})}, FloatSeq({kC}));
  ExpectCaseError(Insert(true), {s, Value(kC), I64({}, {3})},
                  {"position 3 is out of range", "-2 to 2"});
  ExpectCaseError(Insert(true), {s, Value(kC), I64({}, {-3})}, {"position -3 is out of range"});
  // A tensor of another element type than the sequence's.
  Case mixed = Insert(false);
  mixed.input_types[1] = E::kInt64;
  ExpectCaseError(mixed, {s, I64({1}, {7})},
                  {"SequenceInsert", "input 'tensor' is tensor(int64)", "holds tensor(float)"});
}

Case Erase(bool with_position) {
  Case c{11, "SequenceErase", {{"s", Kind::kSequence}}, {E::kFloat}};
  if (with_position) {
    c.inputs.push_back({"p", Kind::kTensor});
    c.input_types.push_back(E::kInt32);
  }
  c.output_kind = Kind::kSequence;
  return c;
}

TEST(SequenceOpsTest, SequenceEraseDefaultLastAndPositions) {
  const Value s = FloatSeq({kA, kB, kC});
  ExpectCase(Erase(false), {s}, FloatSeq({kA, kB}));
  ExpectCase(Erase(true), {s, Int(E::kInt32, {}, {0})}, FloatSeq({kB, kC}));
  ExpectCase(Erase(true), {s, Int(E::kInt32, {}, {-2})}, FloatSeq({kA, kC}));
  ExpectCaseError(Erase(true), {s, Int(E::kInt32, {}, {3})}, {"position 3 is out of range"});
  ExpectCaseError(Erase(false), {FloatSeq({})}, {"SequenceErase", "is empty"});
}

TEST(SequenceOpsTest, SequenceLengthOfEmptyAndFull) {
  Case c{11, "SequenceLength", {{"s", Kind::kSequence}}, {E::kFloat}};
  c.output_type = E::kInt64;
  ExpectCase(c, {FloatSeq({})}, I64({}, {0}));
  ExpectCase(c, {FloatSeq({kA, kB, kC})}, I64({}, {3}));
}

TEST(SequenceOpsTest, SequenceEmptyDefaultsToFloatAndTakesDtype) {
  Case c{11, "SequenceEmpty", {}, {}};
  c.output_kind = Kind::kSequence;
  ExpectCase(c, {}, FloatSeq({}));
  c.attributes = {{"dtype", static_cast<int64_t>(E::kInt8)}};
  c.output_type = E::kInt8;
  ExpectCase(c, {}, Seq(E::kInt8, {}));
  c.attributes = {{"dtype", 99}};
  ExpectCaseError(c, {}, {"SequenceEmpty", "attribute 'dtype' is 99"});
}

TEST(SequenceOpsTest, SequenceConstructOfOneAndMixedTypes) {
  Case c{11, "SequenceConstruct", {{"a", Kind::kTensor}}, {E::kFloat}};
  c.output_kind = Kind::kSequence;
  ExpectCase(c, {Value(kA)}, FloatSeq({kA}));
  c.inputs.push_back({"b", Kind::kTensor});
  c.input_types.push_back(E::kInt64);
  ExpectCaseError(c, {Value(kA), I64({1}, {1})}, {"SequenceConstruct", "input 1 is tensor(int64)"});
}

Case Split(bool with_split, ElementType split_type = E::kInt64) {
  Case c{11, "SplitToSequence", {{"x", Kind::kTensor}}, {E::kFloat}};
  if (with_split) {
    c.inputs.push_back({"split", Kind::kTensor});
    c.input_types.push_back(split_type);
  }
  c.output_kind = Kind::kSequence;
  return c;
}

TEST(SequenceOpsTest, SplitToSequenceForms) {
  const Tensor x = Floats({2, 3}, {0, 1, 2, 3, 4, 5});
  // No split: chunks of 1 along the axis, kept (keepdims=1) or squeezed (keepdims=0).
  Case plain = Split(false);
  plain.attributes = {{"axis", 1}};
  ExpectCase(plain, {Value(x)},
             FloatSeq({Floats({2, 1}, {0, 3}), Floats({2, 1}, {1, 4}), Floats({2, 1}, {2, 5})}));
  plain.attributes = {{"axis", -1}, {"keepdims", 0}};
  ExpectCase(plain, {Value(x)},
             FloatSeq({Floats({2}, {0, 3}), Floats({2}, {1, 4}), Floats({2}, {2, 5})}));
  // A scalar: equal chunks, the last shorter; keepdims is ignored.
  Case scalar = Split(true, E::kInt32);
  scalar.attributes = {{"axis", 1}, {"keepdims", 0}};
  ExpectCase(scalar, {Value(x), Int(E::kInt32, {}, {2})},
             FloatSeq({Floats({2, 2}, {0, 1, 3, 4}), Floats({2, 1}, {2, 5})}));
  ExpectCase(scalar, {Value(x), Int(E::kInt32, {}, {5})}, FloatSeq({x}));
  // A list of lengths, uneven, a zero length included.
  Case list = Split(true);
  list.attributes = {{"axis", 1}};
  ExpectCase(list, {Value(x), I64({3}, {1, 0, 2})},
             FloatSeq({Floats({2, 1}, {0, 3}), Floats({2, 0}, {}), Floats({2, 2}, {1, 2, 4, 5})}));
  ExpectCase(Split(true), {Value(x), I64({1}, {2})}, FloatSeq({x}));
  // An empty axis without split: an empty sequence.
  ExpectCase(Split(false), {Value(Floats({0, 3}, {}))}, FloatSeq({}));
  // Errors.
  ExpectCaseError(list, {Value(x), I64({2}, {1, 1})},
                  {"SplitToSequence", "add up to 2", "axis 1", "has 3"});
  ExpectCaseError(list, {Value(x), I64({2}, {1, -1})}, {"negative length -1"});
  // Lengths whose sum overflows int64 (fuzz finding 20) are refused before they are added.
  ExpectCaseError(list, {Value(x), I64({2}, {INT64_MAX, 3})},
                  {"SplitToSequence", "add up to more than axis 1", "has (3)"});
  ExpectCaseError(list, {Value(x), I64({2}, {3, INT64_MAX})}, {"add up to more than axis 1"});
  ExpectCaseError(scalar, {Value(x), Int(E::kInt32, {}, {0})}, {"must be positive, got 0"});
  Case bad_axis = Split(false);
  bad_axis.attributes = {{"axis", 2}};
  ExpectCaseError(bad_axis, {Value(x)}, {"attribute 'axis' is 2", "-2 to 1"});
}

Case Concat(int64_t axis, int64_t new_axis) {
  Case c{11, "ConcatFromSequence", {{"s", Kind::kSequence}}, {E::kFloat}};
  c.attributes = {{"axis", axis}, {"new_axis", new_axis}};
  return c;
}

TEST(SequenceOpsTest, ConcatFromSequenceAxesAndNewAxis) {
  const Tensor p = Floats({2, 2}, {0, 1, 2, 3}), q = Floats({2, 1}, {4, 5});
  const Tensor r = Floats({2, 2}, {6, 7, 8, 9});
  ExpectCase(Concat(1, 0), {FloatSeq({p, q})}, Value(Floats({2, 3}, {0, 1, 4, 2, 3, 5})));
  ExpectCase(Concat(-1, 0), {FloatSeq({q, p})}, Value(Floats({2, 3}, {4, 0, 1, 5, 2, 3})));
  ExpectCase(Concat(0, 0), {FloatSeq({p, r})}, Value(Floats({4, 2}, {0, 1, 2, 3, 6, 7, 8, 9})));
  // new_axis=1 stacks: axis 0, axis = rank (2) and -1 (also the new last axis).
  ExpectCase(Concat(0, 1), {FloatSeq({p, r})}, Value(Floats({2, 2, 2}, {0, 1, 2, 3, 6, 7, 8, 9})));
  ExpectCase(Concat(1, 1), {FloatSeq({p, r})}, Value(Floats({2, 2, 2}, {0, 1, 6, 7, 2, 3, 8, 9})));
  ExpectCase(Concat(2, 1), {FloatSeq({p, r})}, Value(Floats({2, 2, 2}, {0, 6, 1, 7, 2, 8, 3, 9})));
  ExpectCase(Concat(-1, 1), {FloatSeq({p, r})}, Value(Floats({2, 2, 2}, {0, 6, 1, 7, 2, 8, 3, 9})));
  ExpectCase(Concat(0, 0), {FloatSeq({Floats({0, 2}, {}), p})}, Value(p));
  ExpectCaseError(Concat(2, 0), {FloatSeq({p, r})}, {"attribute 'axis' is 2", "-2 to 1"});
  ExpectCaseError(Concat(3, 1), {FloatSeq({p, r})}, {"attribute 'axis' is 3", "-3 to 2"});
  ExpectCaseError(Concat(0, 0), {FloatSeq({p, q})},
                  {"tensor 1 of input 'input_sequence' is tensor(float)[2,1]"});
  ExpectCaseError(Concat(0, 1), {FloatSeq({p, q})}, {"cannot be stacked"});
  // A later tensor of lower rank, the new axis at the first's last position (past the later
  // one's end: a heap overflow found by CI's fuzz smoke) or beyond.
  ExpectCaseError(Concat(2, 1), {FloatSeq({p, Floats({2}, {4, 5})})},
                  {"tensor 1 of input 'input_sequence' is tensor(float)[2]", "cannot be stacked"});
  ExpectCaseError(Concat(-1, 1), {FloatSeq({p, Floats({}, {4})})}, {"cannot be stacked"});
  ExpectCaseError(Concat(0, 0), {FloatSeq({})}, {"ConcatFromSequence", "is empty"});
}

// SequenceMap: y = Add(element, extra) per element, the extra either a tensor broadcast to every
// iteration or a sequence iterated in step.
onnx::ModelProto AddMap(Kind extra_kind) {
  onnx::ModelProto model = EmptyModel(17);
  onnx::GraphProto* graph = model.mutable_graph();
  AddTyped(graph->mutable_input(), "s", Kind::kSequence, E::kFloat);
  AddTyped(graph->mutable_input(), "x", extra_kind, E::kFloat);
  onnx::NodeProto* node = AddNode(graph, "SequenceMap", {"s", "x"}, {"y"});
  onnx::GraphProto body;
  body.set_name("body");
  AddTyped(body.mutable_input(), "e", Kind::kTensor, E::kFloat);
  AddTyped(body.mutable_input(), "f", Kind::kTensor, E::kFloat);
  AddNode(&body, "Add", {"e", "f"}, {"sum"});
  AddTyped(body.mutable_output(), "sum", Kind::kTensor, E::kFloat);
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name("body");
  attr->set_type(onnx::AttributeProto::GRAPH);
  *attr->mutable_g() = body;
  AddTyped(graph->mutable_output(), "y", Kind::kSequence, E::kFloat);
  return model;
}

TEST(SequenceOpsTest, SequenceMapBroadcastsTensorsAndIteratesSequences) {
  const Value s = FloatSeq({kA, kC});
  std::vector<Value> out = RunModel(AddMap(Kind::kTensor), {"s", "x"}, {s, Value(kB)});
  ExpectSame(FloatSeq({Floats({2}, {4, 5}), Floats({2}, {7, 8})}), out.at(0), "tensor extra");
  out = RunModel(AddMap(Kind::kSequence), {"s", "x"}, {s, FloatSeq({kC, kB})});
  ExpectSame(FloatSeq({Floats({2}, {5, 7}), Floats({2}, {7, 8})}), out.at(0), "sequence extra");
  out = RunModel(AddMap(Kind::kSequence), {"s", "x"}, {FloatSeq({}), FloatSeq({})});
  ExpectSame(FloatSeq({}), out.at(0), "empty");
  ExpectError(AddMap(Kind::kSequence), {"s", "x"}, {s, FloatSeq({kA})},
              {"SequenceMap", "input 1 is a sequence of 1 tensors", "input_sequence has 2"});
}

TEST(SequenceOpsTest, OptionalGetElementOfEmptyIsAnError) {
  for (int opset : {15, 18}) {
    Case c{opset, "OptionalGetElement", {{"o", Kind::kOptionalTensor}}, {E::kFloat}};
    ExpectCaseError(c, {Value()}, {"OptionalGetElement", "is an empty optional"});
  }
  // Opset 15 takes only optionals.
  Case plain{15, "OptionalGetElement", {{"x", Kind::kTensor}}, {E::kFloat}};
  ExpectCaseError(plain, {Value(kA)}, {"has type tensor(float)", "takes only an optional"});
  Case has{15, "OptionalHasElement", {{"", Kind::kTensor}}, {}};
  has.output_type = E::kBool;
  ExpectCaseError(has, {}, {"OptionalHasElement", "opset 15 requires it"});
}

TEST(SequenceOpsTest, OptionalWithoutInputNeedsTypeAttribute) {
  Case c{15, "Optional", {}, {}};
  c.output_kind = Kind::kOptionalTensor;
  ExpectCaseError(c, {}, {"Optional", "attribute 'type'"});
}

// ---------------------------------------------------------------------------------------------
// Shape and type inference: a sequence's shape is the shape its tensors share, its length is
// propagated, so lengths and concatenations of static inputs are static.
TEST(SequenceShapesTest, ElementShapesAndLengthsPropagate) {
  onnx::ModelProto model = EmptyModel(18);
  onnx::GraphProto* graph = model.mutable_graph();
  auto add_input = [&](const std::string& name, ElementType type,
                       const std::vector<int64_t>& dims) {
    onnx::ValueInfoProto* info = graph->add_input();
    info->set_name(name);
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(static_cast<int>(type));
    auto* shape = tensor->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  };
  add_input("X", E::kFloat, {2, 3, 4});
  add_input("Z", E::kFloat, {1, 3, 4});
  add_input("p", E::kInt64, {});
  AddNode(graph, "SequenceConstruct", {"X", "X"}, {"s"});
  AddNode(graph, "SequenceLength", {"s"}, {"n"});
  IntAttr(AddNode(graph, "ConcatFromSequence", {"s"}, {"cat"}), "axis", 1);
  onnx::NodeProto* stack = AddNode(graph, "ConcatFromSequence", {"s"}, {"stacked"});
  IntAttr(stack, "axis", -1);
  IntAttr(stack, "new_axis", 1);
  AddNode(graph, "SequenceEmpty", {}, {"e"});
  AddNode(graph, "SequenceInsert", {"e", "Z"}, {"one"});
  AddNode(graph, "SequenceAt", {"one", "p"}, {"only_z"});
  AddNode(graph, "SequenceInsert", {"one", "X", "p"}, {"two"});
  AddNode(graph, "SequenceAt", {"two", "p"}, {"either"});
  AddNode(graph, "SequenceLength", {"two"}, {"n2"});
  AddNode(graph, "SequenceErase", {"two"}, {"three"});
  AddNode(graph, "SequenceLength", {"three"}, {"n3"});
  IntAttr(AddNode(graph, "SplitToSequence", {"X"}, {"parts"}), "axis", 1);
  AddNode(graph, "SequenceAt", {"parts", "p"}, {"part"});
  AddNode(graph, "SequenceLength", {"parts"}, {"n_parts"});
  AddNode(graph, "Optional", {"X"}, {"o"});
  AddNode(graph, "OptionalGetElement", {"o"}, {"got"});
  AddNode(graph, "OptionalHasElement", {"o"}, {"has"});
  // SequenceMap whose body declares no input types or shapes: they are seeded from one element
  // of s and from X, so the output sequence's tensors have the body's output shape.
  onnx::NodeProto* map = AddNode(graph, "SequenceMap", {"s", "X"}, {"mapped"});
  onnx::GraphProto body;
  body.set_name("body");
  body.add_input()->set_name("e");
  body.add_input()->set_name("f");
  AddNode(&body, "Add", {"e", "f"}, {"sum"});
  body.add_output()->set_name("sum");
  onnx::AttributeProto* body_attr = map->add_attribute();
  body_attr->set_name("body");
  body_attr->set_type(onnx::AttributeProto::GRAPH);
  *body_attr->mutable_g() = body;
  AddNode(graph, "SequenceAt", {"mapped", "p"}, {"mapped_at"});
  for (const char* name : {"n", "cat", "stacked", "only_z", "either", "n2", "n3", "part", "n_parts",
                           "got", "has", "mapped_at"})
    graph->add_output()->set_name(name);
  const std::string bytes = model.SerializeAsString();
  auto loaded = Model::LoadFromBytes(bytes.data(), bytes.size());
  std::unique_ptr<Graph> inferred = loaded->MainGraph().Clone();
  InferShapes(*inferred, ShapeInferenceOptions{true});
  auto shape_of = [&](const std::string& name) {
    const NodeArg* arg = inferred->FindNodeArg(name);
    return arg && arg->shape ? arg->shape->ToString() : std::string("<unknown rank>");
  };
  auto type_of = [&](const std::string& name) {
    return inferred->FindNodeArg(name)->type.ToString();
  };
  EXPECT_EQ(type_of("s"), "seq(tensor(float))");
  EXPECT_EQ(shape_of("s"), "[2,3,4]");
  EXPECT_EQ(type_of("n"), "tensor(int64)");
  EXPECT_EQ(shape_of("n"), "[]");
  EXPECT_EQ(shape_of("cat"), "[2,6,4]");
  EXPECT_EQ(shape_of("stacked"), "[2,3,4,2]");
  EXPECT_EQ(shape_of("only_z"), "[1,3,4]");  // inserted into an empty sequence
  EXPECT_EQ(shape_of("either"), "[?,3,4]");  // [1,3,4] or [2,3,4]
  EXPECT_EQ(shape_of("part"), "[2,1,4]");
  EXPECT_EQ(type_of("o"), "optional(tensor(float))");
  EXPECT_EQ(type_of("got"), "tensor(float)");
  EXPECT_EQ(shape_of("got"), "[2,3,4]");
  EXPECT_EQ(type_of("has"), "tensor(bool)");
  EXPECT_EQ(shape_of("has"), "[]");
  EXPECT_EQ(type_of("e"), "seq(tensor(float))");
  EXPECT_EQ(type_of("mapped"), "seq(tensor(float))");
  EXPECT_EQ(type_of("mapped_at"), "tensor(float)");
  EXPECT_EQ(shape_of("mapped_at"), "[2,3,4]");
  // The lengths are known, so SequenceLength's value is propagated: check it by running.
  std::vector<Value> result =
      RunModel(model, {"X", "Z", "p"},
               {Value(Coded(E::kFloat, {2, 3, 4}, Iota(24))),
                Value(Coded(E::kFloat, {1, 3, 4}, Iota(12))), I64({}, {0})});
  ExpectSame(I64({}, {2}), result[0], "n");
  ExpectSame(I64({}, {2}), result[5], "n2");
  ExpectSame(I64({}, {1}), result[6], "n3");
  ExpectSame(I64({}, {3}), result[8], "n_parts");
  std::vector<float> doubled(24);
  for (size_t k = 0; k < doubled.size(); ++k) doubled[k] = 2.0f * static_cast<float>(k);
  ExpectSame(Value(Floats({2, 3, 4}, doubled)), result[11], "mapped_at");
}

// Optional's type attribute survives the written optimized model.
TEST(SequenceOpsTest, OptionalTypeAttributeRoundTrips) {
  onnx::ModelProto model = EmptyModel(18);
  onnx::GraphProto* graph = model.mutable_graph();
  onnx::NodeProto* node = AddNode(graph, "Optional", {}, {"e"});
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name("type");
  attr->set_type(onnx::AttributeProto::TYPE_PROTO);
  SetType(attr->mutable_tp(), Kind::kSequence, E::kInt16);
  AddNode(graph, "OptionalHasElement", {"e"}, {"has"});
  AddTyped(graph->mutable_output(), "e", Kind::kOptionalSequence, E::kInt16);
  AddTyped(graph->mutable_output(), "has", Kind::kTensor, E::kBool);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("prism_optional_round_trip_" + std::to_string(::getpid()) + ".onnx"))
                               .string();
  const std::string bytes = model.SerializeAsString();
  {
    SessionOptions options;
    options.optimized_model_filepath = path;
    InferenceSession writer(options);
    writer.Load(bytes.data(), bytes.size());
  }
  {
    InferenceSession reader;
    reader.Load(path);
    std::vector<Value> result = reader.Run(RunOptions{}, {}, {}, {});
    ASSERT_EQ(result.size(), 2u);
    ExpectSame(Value(), result[0], "e");
    ExpectSame(Value(MakeTensor<bool>({}, {false})), result[1], "has");
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace prism::testing
