// The ModelProto writer: a model with every attribute kind the loader converts, an If with
// subgraphs reading outer values, an overridable initializer and symbolic dims survives
// write -> load unchanged in structure and data; what cannot be written is refused clearly.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "graph/model_writer.h"
#include "model_builder_util.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

onnx::ModelProto RichModel() {
  onnx::ModelProto model = MakeModel(17);
  auto* props = model.add_metadata_props();
  props->set_key("author");
  props->set_value("prism");
  auto* graph = model.mutable_graph();
  AddInput(graph, "C", TensorProto::BOOL, {});
  AddInput(graph, "X", TensorProto::FLOAT, {"batch", 3});
  AddFloatInitializer(graph, "B", {3}, {1.0f, -2.0f, 0.5f});
  AddInput(graph, "B", TensorProto::FLOAT, {3});  // overridable
  auto* node = AddNode(graph, "Add", {"X", "B"}, {"S"}, "add");
  auto add_attribute = [](onnx::NodeProto* n, const std::string& name,
                          onnx::AttributeProto::AttributeType type) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(type);
    return a;
  };
  add_attribute(node, "f", onnx::AttributeProto::FLOAT)->set_f(0.25f);
  add_attribute(node, "i", onnx::AttributeProto::INT)->set_i(-7);
  add_attribute(node, "s", onnx::AttributeProto::STRING)->set_s("text");
  auto* floats = add_attribute(node, "fs", onnx::AttributeProto::FLOATS);
  floats->add_floats(1.5f);
  floats->add_floats(-3.0f);
  AddIntsAttr(node, "is", {4, 5, 6});
  auto* strings = add_attribute(node, "ss", onnx::AttributeProto::STRINGS);
  strings->add_strings("a");
  strings->add_strings("b");
  auto* t = add_attribute(node, "t", onnx::AttributeProto::TENSOR)->mutable_t();
  t->set_data_type(TensorProto::INT64);
  t->add_dims(2);
  t->add_int64_data(11);
  t->add_int64_data(-12);
  auto* if_node = AddNode(graph, "If", {"C"}, {"Y"}, "if");
  auto* then_branch = AddGraphAttr(if_node, "then_branch");
  then_branch->set_name("then");
  AddNode(then_branch, "Relu", {"S"}, {"T"}, "then_relu");
  AddOutput(then_branch, "T", TensorProto::FLOAT);
  auto* else_branch = AddGraphAttr(if_node, "else_branch");
  else_branch->set_name("else");
  AddNode(else_branch, "Neg", {"X"}, {"E"}, "else_neg");
  AddOutput(else_branch, "E", TensorProto::FLOAT);
  AddOutput(graph, "Y", TensorProto::FLOAT, {"batch", 3});
  return model;
}

std::shared_ptr<const Model> RoundTrip(const Model& model) {
  onnx::ModelProto written;
  ModelToProto(model, model.MainGraph(), &written);
  const std::string bytes = Serialize(written);
  return Model::LoadFromBytes(bytes.data(), bytes.size());
}

TEST(ModelWriter, EveryAttributeKindSubgraphAndInitializerSurvive) {
  const std::string bytes = Serialize(RichModel());
  auto original = Model::LoadFromBytes(bytes.data(), bytes.size());
  auto again = RoundTrip(*original);
  const Graph& graph = again->MainGraph();
  ASSERT_EQ(graph.NumberOfNodes(), 2u);
  EXPECT_EQ(again->OpsetImports().at(""), 17);
  EXPECT_EQ(again->Metadata().custom_metadata.at("author"), "prism");

  const Node& add = graph.GetNode(graph.TopologicalOrder()[0]);
  EXPECT_EQ(add.OpType(), "Add");
  EXPECT_FLOAT_EQ(add.FindAttribute("f")->f, 0.25f);
  EXPECT_EQ(add.FindAttribute("i")->i, -7);
  EXPECT_EQ(add.FindAttribute("s")->s, "text");
  EXPECT_EQ(add.FindAttribute("fs")->floats, (std::vector<float>{1.5f, -3.0f}));
  EXPECT_EQ(add.FindAttribute("is")->ints, (std::vector<int64_t>{4, 5, 6}));
  EXPECT_EQ(add.FindAttribute("ss")->strings, (std::vector<std::string>{"a", "b"}));
  const Tensor& t = *add.FindAttribute("t")->tensor;
  ASSERT_EQ(t.NumElements(), 2);
  EXPECT_EQ(t.Data<int64_t>()[0], 11);
  EXPECT_EQ(t.Data<int64_t>()[1], -12);

  ASSERT_EQ(graph.OverridableInitializers().size(), 1u);
  const Tensor* b = graph.FindInitializer("B");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->Data<float>()[1], -2.0f);
  EXPECT_EQ(graph.FindNodeArg("X")->shape->ToString(), "[batch,3]");
  EXPECT_EQ(graph.Outputs()[0]->shape->ToString(), "[batch,3]");
  EXPECT_EQ(graph.FindNodeArg("S")->type.ToString(), "tensor(float)") << "value_info kept";

  const Node& branch = graph.GetNode(graph.TopologicalOrder()[1]);
  ASSERT_EQ(branch.Subgraphs().size(), 2u);
  EXPECT_EQ(branch.Subgraphs()[1]->OuterScopeValues(), std::vector<std::string>{"S"});
  EXPECT_EQ(branch.Subgraphs()[0]->GetNode(0).OpType(), "Neg");
  ASSERT_EQ(branch.ImplicitInputs().size(), 2u);
}

TEST(ModelWriter, FusedNodesAndTypeOnlyAttributesAreRefused) {
  onnx::ModelProto proto = MakeModel();
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  auto* node = AddNode(graph, "Relu", {"X"}, {"Y"}, "relu");
  auto* odd = node->add_attribute();
  odd->set_name("types");
  odd->set_type(onnx::AttributeProto::TYPE_PROTOS);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  const std::string bytes = Serialize(proto);
  auto model = Model::LoadFromBytes(bytes.data(), bytes.size());
  onnx::ModelProto written;
  PRISM_EXPECT_ERROR(CaptureError([&] { ModelToProto(*model, model->MainGraph(), &written); }),
                     kNotImplemented, "attribute 'types' of type type_protos");
}

TEST(ModelWriter, UnwritablePathIsAClearError) {
  const std::string bytes = Serialize(RichModel());
  auto model = Model::LoadFromBytes(bytes.data(), bytes.size());
  PRISM_EXPECT_ERROR(
      CaptureError([&] { SaveModel(*model, model->MainGraph(), "/nonexistent/dir/m.onnx"); }),
      kFail, "cannot write the optimized model to '/nonexistent/dir/m.onnx'");
}

}  // namespace
}  // namespace prism::testing
