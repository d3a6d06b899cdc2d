// A session's own copy of the graph can be rewritten: nodes added and removed, uses replaced
// (also inside subgraphs), initializers added, with the topological order and the value tables
// recomputed by Resolve(), and the loaded model's graph left untouched.
#include <algorithm>

#include <gtest/gtest.h>

#include "graph/model.h"
#include "model_builder_util.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

std::shared_ptr<const Model> Load(const onnx::ModelProto& proto) {
  const std::string bytes = Serialize(proto);
  return Model::LoadFromBytes(bytes.data(), bytes.size());
}

// X -> Identity(id) -> I -> Relu(relu) -> R -> Mul(mul, W) -> Y, W an initializer.
onnx::ModelProto Chain() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddFloatInitializer(graph, "W", {2}, {2.0f, 3.0f});
  AddNode(graph, "Identity", {"X"}, {"I"}, "id");
  AddNode(graph, "Relu", {"I"}, {"R"}, "relu");
  AddNode(graph, "Mul", {"R", "W"}, {"Y"}, "mul");
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

NodeIndex IndexOf(const Graph& graph, const std::string& name) {
  for (NodeIndex index : graph.TopologicalOrder())
    if (graph.GetNode(index).Name() == name) return index;
  ADD_FAILURE() << "no node '" << name << "'";
  return 0;
}

std::vector<std::string> OrderedNames(const Graph& graph) {
  std::vector<std::string> names;
  for (NodeIndex index : graph.TopologicalOrder()) names.push_back(graph.GetNode(index).Name());
  return names;
}

TEST(GraphRewrite, CloneIsIndependentAndSharesInitializerData) {
  auto model = Load(Chain());
  std::unique_ptr<Graph> copy = model->MainGraph().Clone();
  ASSERT_EQ(copy->NumberOfNodes(), 3u);
  EXPECT_EQ(copy->FindInitializer("W")->RawData(),
            model->MainGraph().FindInitializer("W")->RawData());
  EXPECT_NE(copy->FindNodeArg("X"), model->MainGraph().FindNodeArg("X"));
  EXPECT_EQ(&copy->GetNode(0).OwnerGraph(), copy.get());
  // Every value a cloned node touches belongs to the clone.
  for (NodeIndex index : copy->TopologicalOrder())
    for (const NodeArg* arg : copy->GetNode(index).Inputs())
      EXPECT_EQ(copy->FindNodeArg(arg->name), arg) << arg->name;

  const NodeIndex relu = IndexOf(*copy, "relu");
  copy->ReplaceAllUses(copy->FindNodeArg("R"), copy->MutableNodeArg("I"));
  copy->RemoveNode(relu);
  copy->Resolve();
  EXPECT_EQ(copy->NumberOfNodes(), 2u);
  EXPECT_EQ(model->MainGraph().NumberOfNodes(), 3u);
  EXPECT_EQ(OrderedNames(model->MainGraph()), (std::vector<std::string>{"id", "relu", "mul"}));
  EXPECT_EQ(copy->FindNodeArg("R"), nullptr) << "a value nothing uses is dropped";
  EXPECT_NE(model->MainGraph().FindNodeArg("R"), nullptr);
}

TEST(GraphRewrite, RemovingANodeRewiresConsumersAndKeepsIndices) {
  auto model = Load(Chain());
  std::unique_ptr<Graph> graph = model->MainGraph().Clone();
  const NodeIndex id = IndexOf(*graph, "id");
  const NodeIndex relu = IndexOf(*graph, "relu");
  graph->ReplaceAllUses(graph->FindNodeArg("I"), graph->MutableNodeArg("X"));
  graph->RemoveNode(id);
  graph->Resolve();
  EXPECT_EQ(OrderedNames(*graph), (std::vector<std::string>{"relu", "mul"}));
  EXPECT_EQ(graph->FindNode(id), nullptr);
  EXPECT_EQ(graph->GetNode(relu).Name(), "relu") << "indices stay stable";
  EXPECT_EQ(graph->GetNode(relu).Inputs()[0]->name, "X");
  EXPECT_EQ(graph->Consumers("X"), (std::vector<NodeIndex>{relu}));
  EXPECT_EQ(graph->Producer("I"), nullptr);
  PRISM_EXPECT_ERROR(CaptureError([&] { graph->GetNode(id); }), kInvalidArgument, "no node");
}

TEST(GraphRewrite, AddedNodeIsOrderedBeforeItsConsumers) {
  auto model = Load(Chain());
  std::unique_ptr<Graph> graph = model->MainGraph().Clone();
  // Insert Neg between relu and mul: the new node has the largest index, yet must run before mul.
  NodeArg* negated = graph->GetOrCreateValue(graph->UniqueValueName("R_neg"));
  negated->type = graph->FindNodeArg("R")->type;
  Node& neg = graph->AddNode(graph->UniqueNodeName("neg"), "Neg", "", 17,
                             {graph->MutableNodeArg("R")}, {negated});
  graph->SetNodeInput(IndexOf(*graph, "mul"), 0, negated);
  graph->Resolve();
  EXPECT_EQ(neg.Index(), 3u);
  EXPECT_EQ(OrderedNames(*graph), (std::vector<std::string>{"id", "relu", "neg", "mul"}));
  EXPECT_EQ(graph->Producer("R_neg")->Name(), "neg");
}

TEST(GraphRewrite, ResolveRefusesBrokenEdits) {
  auto model = Load(Chain());
  {
    std::unique_ptr<Graph> graph = model->MainGraph().Clone();
    graph->RemoveNode(IndexOf(*graph, "relu"));  // mul still reads R
    PRISM_EXPECT_ERROR(CaptureError([&] { graph->Resolve(); }), kInvalidGraph,
                       "node 'mul' in graph 'g' reads 'R', which no node");
  }
  {
    std::unique_ptr<Graph> graph = model->MainGraph().Clone();
    graph->RemoveNode(IndexOf(*graph, "mul"));  // nothing writes the graph output Y
    PRISM_EXPECT_ERROR(CaptureError([&] { graph->Resolve(); }), kInvalidGraph,
                       "graph output in graph 'g' reads 'Y', which no node");
  }
  {
    std::unique_ptr<Graph> graph = model->MainGraph().Clone();
    graph->SetNodeInput(IndexOf(*graph, "id"), 0, graph->MutableNodeArg("R"));  // id <- relu <- id
    PRISM_EXPECT_ERROR(CaptureError([&] { graph->Resolve(); }), kInvalidGraph, "cycle");
  }
  {
    std::unique_ptr<Graph> graph = model->MainGraph().Clone();
    graph->AddNode("second", "Relu", "", 17, {graph->MutableNodeArg("X")},
                   {graph->MutableNodeArg("R")});
    PRISM_EXPECT_ERROR(CaptureError([&] { graph->Resolve(); }), kInvalidGraph,
                       "'R' of graph 'g' is produced by both");
  }
  {
    std::unique_ptr<Graph> graph = model->MainGraph().Clone();
    PRISM_EXPECT_ERROR(CaptureError([&] {
                         graph->ReplaceAllUses(graph->FindNodeArg("Y"), graph->MutableNodeArg("X"));
                       }),
                       kInvalidArgument, "'Y' is a graph output");
  }
}

TEST(GraphRewrite, InitializersCanBeAddedAndRemoved) {
  auto model = Load(Chain());
  std::unique_ptr<Graph> graph = model->MainGraph().Clone();
  Tensor folded(ElementType::kFloat, TensorShape({2}), GetCpuAllocator());
  folded.MutableData<float>()[0] = 4.0f;
  folded.MutableData<float>()[1] = 6.0f;
  graph->AddInitializer("W2", folded);
  graph->SetNodeInput(IndexOf(*graph, "mul"), 1, graph->MutableNodeArg("W2"));
  graph->RemoveInitializer("W");
  graph->Resolve();
  EXPECT_EQ(graph->FindInitializer("W"), nullptr);
  EXPECT_EQ(graph->FindNodeArg("W"), nullptr);
  ASSERT_TRUE(graph->IsConstantInitializer("W2"));
  EXPECT_EQ(graph->FindNodeArg("W2")->shape->ToString(), "[2]");
  EXPECT_NE(model->MainGraph().FindInitializer("W"), nullptr);
}

// Main graph: T = Identity(X); If(C) whose then branch reads T from outside.
onnx::ModelProto IfReadingOuter() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "C", TensorProto::BOOL, {});
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddNode(graph, "Identity", {"X"}, {"T"}, "outer_id");
  auto* node = AddNode(graph, "If", {"C"}, {"Y"}, "if");
  auto* then_branch = AddGraphAttr(node, "then_branch");
  then_branch->set_name("then");
  AddNode(then_branch, "Neg", {"T"}, {"N"}, "then_neg");
  AddOutput(then_branch, "N", TensorProto::FLOAT);
  auto* else_branch = AddGraphAttr(node, "else_branch");
  else_branch->set_name("else");
  AddNode(else_branch, "Identity", {"T"}, {"E"}, "else_id");
  AddOutput(else_branch, "E", TensorProto::FLOAT);
  AddOutput(graph, "Y", TensorProto::FLOAT);
  return model;
}

TEST(GraphRewrite, ReplacingAValueReachesIntoSubgraphs) {
  auto model = Load(IfReadingOuter());
  std::unique_ptr<Graph> graph = model->MainGraph().Clone();
  const Node& if_node = graph->GetNode(IndexOf(*graph, "if"));
  ASSERT_EQ(if_node.Subgraphs().size(), 2u);
  const Graph& else_branch = *if_node.Subgraphs()[0];  // attribute-name order: else, then
  const Graph& then_branch = *if_node.Subgraphs()[1];
  EXPECT_EQ(then_branch.Parent(), graph.get()) << "cloned subgraphs hang under the clone";
  EXPECT_EQ(then_branch.GetNode(0).Inputs()[0], graph->FindNodeArg("T"));

  NodeArg* x = graph->MutableNodeArg("X");
  graph->ReplaceAllUses(graph->FindNodeArg("T"), x);
  graph->RemoveNode(IndexOf(*graph, "outer_id"));
  graph->Resolve();
  EXPECT_EQ(then_branch.GetNode(0).Inputs()[0], x);
  EXPECT_EQ(else_branch.GetNode(0).Inputs()[0], x);
  EXPECT_EQ(then_branch.OuterScopeValues(), (std::vector<std::string>{"X"}));
  ASSERT_EQ(if_node.ImplicitInputs().size(), 1u);
  EXPECT_EQ(if_node.ImplicitInputs()[0], x);
  EXPECT_EQ(graph->FindNodeArg("T"), nullptr);
  // The model's own subgraph still reads its own T.
  const Node& original_if = model->MainGraph().GetNode(1);
  EXPECT_EQ(original_if.ImplicitInputs()[0]->name, "T");
}

TEST(GraphRewrite, UniqueNamesAvoidSubgraphValuesAndNodes) {
  auto model = Load(IfReadingOuter());
  std::unique_ptr<Graph> graph = model->MainGraph().Clone();
  EXPECT_EQ(graph->UniqueValueName("N"), "N_1") << "N is a value of the then branch";
  EXPECT_EQ(graph->UniqueValueName("fresh"), "fresh");
  EXPECT_EQ(graph->UniqueNodeName("if"), "if_1");
}

// ReplaceNodes (a fusion's rewrite, updated in place instead of resolved) leaves the graph as
// RemoveNode + AddNode + Resolve do: the same producers, consumers (in node order) and
// topological order, the new node named after a removed one when that name is free again; and
// it refuses, as Resolve does, a new node that writes a value another node produces or reads
// one nothing provides.
TEST(GraphRewrite, ReplaceNodesMatchesAResolve) {
  // X -> id -> I -> relu -> R -> mul(W) -> Y, and I -> neg -> N (a graph output).
  onnx::ModelProto proto = Chain();
  AddNode(proto.mutable_graph(), "Neg", {"I"}, {"N"}, "neg");
  AddOutput(proto.mutable_graph(), "N", TensorProto::FLOAT);
  auto model = Load(proto);
  std::unique_ptr<Graph> replaced = model->MainGraph().Clone();
  std::unique_ptr<Graph> resolved = model->MainGraph().Clone();
  const NodeIndex relu = IndexOf(*replaced, "relu"), mul = IndexOf(*replaced, "mul");
  Node& fused =
      replaced->ReplaceNodes({relu, mul}, "mul", "Mul", "", 17,
                             {replaced->MutableNodeArg("I"), replaced->MutableNodeArg("W")},
                             {replaced->MutableNodeArg("Y")});
  resolved->RemoveNode(relu);
  resolved->RemoveNode(mul);
  resolved->AddNode(resolved->UniqueNodeName("mul"), "Mul", "", 17,
                    {resolved->MutableNodeArg("I"), resolved->MutableNodeArg("W")},
                    {resolved->MutableNodeArg("Y")});
  resolved->Resolve();
  EXPECT_EQ(fused.Name(), "mul");
  EXPECT_EQ(OrderedNames(*replaced), OrderedNames(*resolved));
  EXPECT_EQ(OrderedNames(*replaced), (std::vector<std::string>{"id", "neg", "mul"}));
  for (const char* value : {"X", "I", "R", "W", "Y", "N"}) {
    EXPECT_EQ(replaced->Consumers(value), resolved->Consumers(value)) << value;
    const Node* producer = replaced->Producer(value);
    const Node* expected = resolved->Producer(value);
    ASSERT_EQ(producer == nullptr, expected == nullptr) << value;
    if (producer != nullptr) {
      EXPECT_EQ(producer->Index(), expected->Index()) << value;
    }
  }
  EXPECT_EQ(replaced->Consumers("I").size(), 2u);
  EXPECT_TRUE(replaced->Consumers("R").empty());

  // Writing N, which neg produces; reading a value nothing provides.
  std::unique_ptr<Graph> broken = model->MainGraph().Clone();
  EXPECT_THROW(broken->ReplaceNodes({IndexOf(*broken, "mul")}, "twice", "Mul", "", 17,
                                    {broken->MutableNodeArg("R"), broken->MutableNodeArg("W")},
                                    {broken->MutableNodeArg("N")}),
               std::exception);
  std::unique_ptr<Graph> unread = model->MainGraph().Clone();
  NodeArg* nowhere = unread->GetOrCreateValue("nowhere");
  EXPECT_THROW(
      unread->ReplaceNodes({IndexOf(*unread, "mul")}, "mul", "Mul", "", 17,
                           {nowhere, unread->MutableNodeArg("W")}, {unread->MutableNodeArg("Y")}),
      std::exception);
}

}  // namespace
}  // namespace prism::testing
