// If: OpTester cannot build subgraphs, so these tests write the ModelProto by hand and run
// it through an InferenceSession.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "../tensor/coded_tensor.h"
#include "compute_evidence.h"
#include "graph/tensor_proto.h"
#include "op_tester.h"
#include "providers/cpu/tensor/spec_type_sets.h"
#include "session/inference_session.h"

namespace prism::testing {
namespace {

void AddValueInfo(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
                  const std::string& name, ElementType type) {
  onnx::ValueInfoProto* info = list->Add();
  info->set_name(name);
  info->mutable_type()->mutable_tensor_type()->set_elem_type(static_cast<int>(type));
}

onnx::NodeProto* AddNode(onnx::GraphProto* graph, const std::string& op,
                         const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs) {
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op);
  node->set_name(op + "_" + outputs.at(0));
  for (const auto& i : inputs) node->add_input(i);
  for (const auto& o : outputs) node->add_output(o);
  return node;
}

void SetGraphAttr(onnx::NodeProto* node, const std::string& name, const onnx::GraphProto& graph) {
  onnx::AttributeProto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::GRAPH);
  *attr->mutable_g() = graph;
}

// A branch that returns Identity(source) for each (source, output, type).
onnx::GraphProto IdentityBranch(const std::string& name, const std::vector<std::string>& sources,
                                const std::vector<std::string>& outputs,
                                const std::vector<ElementType>& types) {
  onnx::GraphProto branch;
  branch.set_name(name);
  for (size_t i = 0; i < sources.size(); ++i) {
    AddNode(&branch, "Identity", {sources[i]}, {outputs[i]});
    AddValueInfo(branch.mutable_output(), outputs[i], types[i]);
  }
  return branch;
}

onnx::ModelProto MakeModel(int opset) {
  onnx::ModelProto model;
  model.set_ir_version(10);
  auto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model.mutable_graph()->set_name("if_test");
  return model;
}

std::vector<Value> RunModel(const onnx::ModelProto& model, const std::vector<std::string>& names,
                            const std::vector<Value>& feeds) {
  const std::string bytes = model.SerializeAsString();
  InferenceSession session;
  session.Load(bytes.data(), bytes.size());
  return session.Run(RunOptions{}, names, feeds, {});
}

Value BoolScalar(bool value) {
  return Value(MakeTensor<bool>({}, {value}));
}

void ExpectTensor(const Tensor& expected, const Value& actual) {
  const std::string mismatch = CompareWithOracle(Value(expected), actual, {});
  EXPECT_TRUE(mismatch.empty()) << mismatch;
}

// then: Identity(x) (an outer-scope graph input); else: Identity(c), c a branch initializer.
onnx::ModelProto ThenOuterElseConstant(int opset, ElementType type, const Tensor& constant) {
  onnx::ModelProto model = MakeModel(opset);
  onnx::GraphProto* graph = model.mutable_graph();
  AddValueInfo(graph->mutable_input(), "cond", ElementType::kBool);
  AddValueInfo(graph->mutable_input(), "x", type);
  onnx::NodeProto* node = AddNode(graph, "If", {"cond"}, {"y"});
  SetGraphAttr(node, "then_branch", IdentityBranch("then", {"x"}, {"then_y"}, {type}));
  onnx::GraphProto else_branch = IdentityBranch("else", {"c"}, {"else_y"}, {type});
  TensorToProto(constant, "c", else_branch.add_initializer());
  SetGraphAttr(node, "else_branch", else_branch);
  AddValueInfo(graph->mutable_output(), "y", type);
  return model;
}

enum class Kind { kTensor, kSequence, kOptionalTensor, kOptionalSequence };

void SetType(onnx::TypeProto* proto, Kind kind, ElementType type) {
  auto tensor_into = [type](onnx::TypeProto* t) {
    t->mutable_tensor_type()->set_elem_type(static_cast<int>(type));
  };
  switch (kind) {
    case Kind::kTensor:
      tensor_into(proto);
      break;
    case Kind::kSequence:
      tensor_into(proto->mutable_sequence_type()->mutable_elem_type());
      break;
    case Kind::kOptionalTensor:
      tensor_into(proto->mutable_optional_type()->mutable_elem_type());
      break;
    case Kind::kOptionalSequence:
      tensor_into(proto->mutable_optional_type()
                      ->mutable_elem_type()
                      ->mutable_sequence_type()
                      ->mutable_elem_type());
      break;
  }
}

// cond, a, b are graph inputs; then returns Identity(a), else Identity(b) (outer-scope reads).
onnx::ModelProto SelectModel(int opset, Kind kind, ElementType type) {
  onnx::ModelProto model = MakeModel(opset);
  onnx::GraphProto* graph = model.mutable_graph();
  AddValueInfo(graph->mutable_input(), "cond", ElementType::kBool);
  for (const char* name : {"a", "b"}) {
    onnx::ValueInfoProto* input = graph->add_input();
    input->set_name(name);
    SetType(input->mutable_type(), kind, type);
  }
  onnx::NodeProto* node = AddNode(graph, "If", {"cond"}, {"y"});
  for (const auto& [attr, source] :
       {std::pair{"then_branch", "a"}, std::pair{"else_branch", "b"}}) {
    onnx::GraphProto branch;
    branch.set_name(attr);
    const std::string out = std::string(attr) + "_y";
    AddNode(&branch, "Identity", {source}, {out});
    onnx::ValueInfoProto* output = branch.add_output();
    output->set_name(out);
    SetType(output->mutable_type(), kind, type);
    SetGraphAttr(node, attr, branch);
  }
  onnx::ValueInfoProto* output = graph->add_output();
  output->set_name("y");
  SetType(output->mutable_type(), kind, type);
  return model;
}

Value MakeKindValue(Kind kind, ElementType type, const std::vector<int>& codes, bool empty) {
  if ((kind == Kind::kOptionalTensor || kind == Kind::kOptionalSequence) && empty) return Value();
  Tensor tensor = MakeCodedTensor(type, {static_cast<int64_t>(codes.size())}, codes);
  if (kind == Kind::kTensor || kind == Kind::kOptionalTensor) return Value(tensor);
  TensorSequence sequence;
  sequence.elem_type = type;
  sequence.tensors = {tensor, MakeCodedTensor(type, {1}, {codes[0]})};
  return Value(std::move(sequence));
}

void CheckSelect(int opset, Kind kind, ElementType type) {
  const onnx::ModelProto model = SelectModel(opset, kind, type);
  const Value a = MakeKindValue(kind, type, {1, 2, 3}, false);
  const Value b = MakeKindValue(kind, type, {0, 1}, /*empty=*/true);
  for (bool cond : {true, false}) {
    std::vector<Value> result = RunModel(model, {"cond", "a", "b"}, {BoolScalar(cond), a, b});
    ASSERT_EQ(result.size(), 1u);
    const std::string mismatch = CompareWithOracle(cond ? a : b, result[0], {});
    EXPECT_TRUE(mismatch.empty()) << "cond " << cond << ": " << mismatch;
  }
}

TEST(IfTest, EveryVersionRangeAndValueType) {
  using cpu::AllTensorTypesOf;
  using G = cpu::TensorTypeGeneration;
  struct Range {
    int opset;
    G types;
    bool sequences;
    bool optionals;
  };
  for (const Range& r :
       {Range{1, G::kNoBfloat16, false, false}, Range{11, G::kNoBfloat16, false, false},
        Range{13, G::kNoBfloat16, true, false}, Range{16, G::kBfloat16, true, true},
        Range{19, G::kFloat8, true, true}, Range{21, G::kInt4, true, true},
        Range{23, G::kFloat4, true, true}, Range{24, G::kFloat8E8M0, true, true},
        Range{25, G::kInt2, true, true}}) {
    for (ElementType type : AllTensorTypesOf(r.types)) {
      SCOPED_TRACE(::testing::Message() << "opset " << r.opset << " " << ElementTypeName(type));
      CheckSelect(r.opset, Kind::kTensor, type);
      // Identity passes sequences from opset 14, so the 13-15 range is checked at 14.
      if (r.sequences) CheckSelect(r.opset == 13 ? 14 : r.opset, Kind::kSequence, type);
      if (r.optionals) {
        CheckSelect(r.opset, Kind::kOptionalTensor, type);
        CheckSelect(r.opset, Kind::kOptionalSequence, type);
      }
    }
  }
}

TEST(IfTest, EveryVersionPicksTheRightBranch) {
  for (int opset : {1, 11, 13, 16, 19, 21, 23, 24, 25}) {
    SCOPED_TRACE(opset);
    const Tensor x = MakeTensor<float>({2}, {1.f, 2.f});
    const Tensor c = MakeTensor<float>({3}, {7.f, 8.f, 9.f});
    const onnx::ModelProto model = ThenOuterElseConstant(opset, ElementType::kFloat, c);
    std::vector<Value> then_result = RunModel(model, {"cond", "x"}, {BoolScalar(true), Value(x)});
    ASSERT_EQ(then_result.size(), 1u);
    ExpectTensor(x, then_result[0]);
    std::vector<Value> else_result = RunModel(model, {"cond", "x"}, {BoolScalar(false), Value(x)});
    ASSERT_EQ(else_result.size(), 1u);
    ExpectTensor(c, else_result[0]);
  }
}

TEST(IfTest, ElementTypesOfEachVersion) {
  const std::vector<std::pair<int, ElementType>> cases = {
      {11, ElementType::kString},       {11, ElementType::kBool},
      {11, ElementType::kInt8},         {13, ElementType::kUint64},
      {16, ElementType::kBFloat16},     {16, ElementType::kFloat16},
      {19, ElementType::kFloat8E4M3FN}, {21, ElementType::kInt4},
      {23, ElementType::kFloat4E2M1},   {24, ElementType::kFloat8E8M0},
      {25, ElementType::kUint2}};
  for (const auto& [opset, type] : cases) {
    SCOPED_TRACE(ElementTypeName(type));
    const Tensor x = MakeCodedTensor(type, {3}, {1, 2, 3});
    const Tensor c = MakeCodedTensor(type, {2, 1}, {0, 1});
    const onnx::ModelProto model = ThenOuterElseConstant(opset, type, c);
    ExpectTensor(x, RunModel(model, {"cond", "x"}, {BoolScalar(true), Value(x)}).at(0));
    ExpectTensor(c, RunModel(model, {"cond", "x"}, {BoolScalar(false), Value(x)}).at(0));
  }
}

TEST(IfTest, BranchReadsValueComputedInOuterGraph) {
  // xt = Transpose(x) in the main graph; both branches read it, with several outputs.
  onnx::ModelProto model = MakeModel(13);
  onnx::GraphProto* graph = model.mutable_graph();
  AddValueInfo(graph->mutable_input(), "cond", ElementType::kBool);
  AddValueInfo(graph->mutable_input(), "x", ElementType::kInt64);
  AddNode(graph, "Transpose", {"x"}, {"xt"});
  onnx::NodeProto* node = AddNode(graph, "If", {"cond"}, {"first", "second"});
  SetGraphAttr(node, "then_branch",
               IdentityBranch("then", {"xt", "x"}, {"t0", "t1"},
                              {ElementType::kInt64, ElementType::kInt64}));
  SetGraphAttr(node, "else_branch",
               IdentityBranch("else", {"x", "xt"}, {"e0", "e1"},
                              {ElementType::kInt64, ElementType::kInt64}));
  AddValueInfo(graph->mutable_output(), "first", ElementType::kInt64);
  AddValueInfo(graph->mutable_output(), "second", ElementType::kInt64);

  const Tensor x = MakeTensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor xt = MakeTensor<int64_t>({3, 2}, {1, 4, 2, 5, 3, 6});
  std::vector<Value> then_result = RunModel(model, {"cond", "x"}, {BoolScalar(true), Value(x)});
  ASSERT_EQ(then_result.size(), 2u);
  ExpectTensor(xt, then_result[0]);
  ExpectTensor(x, then_result[1]);
  std::vector<Value> else_result = RunModel(model, {"cond", "x"}, {BoolScalar(false), Value(x)});
  ASSERT_EQ(else_result.size(), 2u);
  ExpectTensor(x, else_result[0]);
  ExpectTensor(xt, else_result[1]);
}

TEST(IfTest, NestedIfReadsValueTwoLevelsUp) {
  onnx::ModelProto model = MakeModel(16);
  onnx::GraphProto* graph = model.mutable_graph();
  AddValueInfo(graph->mutable_input(), "outer_cond", ElementType::kBool);
  AddValueInfo(graph->mutable_input(), "inner_cond", ElementType::kBool);
  AddValueInfo(graph->mutable_input(), "x", ElementType::kFloat);
  AddValueInfo(graph->mutable_input(), "z", ElementType::kFloat);

  onnx::GraphProto outer_then;
  outer_then.set_name("outer_then");
  onnx::NodeProto* inner = AddNode(&outer_then, "If", {"inner_cond"}, {"inner_y"});
  SetGraphAttr(inner, "then_branch",
               IdentityBranch("inner_then", {"x"}, {"it"}, {ElementType::kFloat}));
  SetGraphAttr(inner, "else_branch",
               IdentityBranch("inner_else", {"z"}, {"ie"}, {ElementType::kFloat}));
  AddValueInfo(outer_then.mutable_output(), "inner_y", ElementType::kFloat);

  onnx::NodeProto* node = AddNode(graph, "If", {"outer_cond"}, {"y"});
  SetGraphAttr(node, "then_branch", outer_then);
  SetGraphAttr(node, "else_branch",
               IdentityBranch("outer_else", {"x"}, {"oe"}, {ElementType::kFloat}));
  AddValueInfo(graph->mutable_output(), "y", ElementType::kFloat);

  const Tensor x = MakeTensor<float>({1}, {1.f});
  const Tensor z = MakeTensor<float>({2}, {5.f, 6.f});
  const std::vector<std::string> names = {"outer_cond", "inner_cond", "x", "z"};
  ExpectTensor(
      z, RunModel(model, names, {BoolScalar(true), BoolScalar(false), Value(x), Value(z)}).at(0));
  ExpectTensor(
      x, RunModel(model, names, {BoolScalar(true), BoolScalar(true), Value(x), Value(z)}).at(0));
  ExpectTensor(
      x, RunModel(model, names, {BoolScalar(false), BoolScalar(false), Value(x), Value(z)}).at(0));
}

TEST(IfTest, SingleElementConditionOfRankOne) {
  const Tensor x = MakeTensor<float>({1}, {3.f});
  const Tensor c = MakeTensor<float>({1}, {4.f});
  const onnx::ModelProto model = ThenOuterElseConstant(13, ElementType::kFloat, c);
  ExpectTensor(
      c,
      RunModel(model, {"cond", "x"}, {Value(MakeTensor<bool>({1, 1}, {false})), Value(x)}).at(0));
}

TEST(IfTest, ConditionWithSeveralElementsFails) {
  const Tensor x = MakeTensor<float>({1}, {3.f});
  const onnx::ModelProto model = ThenOuterElseConstant(13, ElementType::kFloat, x);
  try {
    RunModel(model, {"cond", "x"}, {Value(MakeTensor<bool>({2}, {true, false})), Value(x)});
    ADD_FAILURE() << "expected a failure";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("cond must hold exactly one element"), std::string::npos)
        << e.what();
  }
}

TEST(IfTest, BranchOutputCountMismatchFails) {
  onnx::ModelProto model = MakeModel(13);
  onnx::GraphProto* graph = model.mutable_graph();
  AddValueInfo(graph->mutable_input(), "cond", ElementType::kBool);
  AddValueInfo(graph->mutable_input(), "x", ElementType::kFloat);
  onnx::NodeProto* node = AddNode(graph, "If", {"cond"}, {"y"});
  SetGraphAttr(
      node, "then_branch",
      IdentityBranch("then", {"x", "x"}, {"a", "b"}, {ElementType::kFloat, ElementType::kFloat}));
  SetGraphAttr(node, "else_branch", IdentityBranch("else", {"x"}, {"e"}, {ElementType::kFloat}));
  AddValueInfo(graph->mutable_output(), "y", ElementType::kFloat);
  const Tensor x = MakeTensor<float>({1}, {3.f});
  try {
    RunModel(model, {"cond", "x"}, {BoolScalar(true), Value(x)});
    ADD_FAILURE() << "expected a failure";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("2 outputs but the node has 1"), std::string::npos)
        << e.what();
  }
  // The other branch matches and runs.
  ExpectTensor(x, RunModel(model, {"cond", "x"}, {BoolScalar(false), Value(x)}).at(0));
}

}  // namespace
}  // namespace prism::testing
