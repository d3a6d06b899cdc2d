// Fused subgraphs: the test EP with "fuse" = "1" claims connected groups of its ops as MetaDefs;
// the session replaces each group by one fused node and the EP compiles it (the group's nodes run
// with the CPU kernels on its scrambled simulated device). Results must equal a CPU-only run, the
// report lists each group, and malformed claims are refused naming the EP and the group.
#include <algorithm>

#include <gtest/gtest.h>

#include "session/graph_partitioner.h"
#include "session/node_fuser.h"
#include "session/provider_library.h"
#include "session_test_util.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

constexpr const char* kTestEp = "TestExecutionProvider";

ProviderSpec FusingTestEp(const std::string& ops) {
  return ProviderSpec{kTestEp, {{"ops", ops}, {"fuse", "1"}}};
}

// Add(X, Y) -> A; Relu(A) -> R; Mul(R, W) -> Z with W a constant initializer.
onnx::ModelProto AddReluMul() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3});
  AddInput(graph, "Y", TensorProto::FLOAT, {2, 3});
  AddFloatInitializer(graph, "W", {3}, {0.5f, -2.0f, 3.0f});
  AddNode(graph, "Add", {"X", "Y"}, {"A"}, "add");
  AddNode(graph, "Relu", {"A"}, {"R"}, "relu");
  AddNode(graph, "Mul", {"R", "W"}, {"Z"}, "mul");
  AddOutput(graph, "Z", TensorProto::FLOAT);
  return model;
}

// Two chains the test EP takes, with a Sigmoid (declined) between them:
// Add(X,Y) -> Relu -> Sigmoid -> Mul(., Y) -> Relu -> Z.
onnx::ModelProto TwoGroups() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3});
  AddInput(graph, "Y", TensorProto::FLOAT, {2, 3});
  AddNode(graph, "Add", {"X", "Y"}, {"A"}, "add");
  AddNode(graph, "Relu", {"A"}, {"R"}, "relu1");
  AddNode(graph, "Sigmoid", {"R"}, {"I"}, "middle");
  AddNode(graph, "Mul", {"I", "Y"}, {"M"}, "mul");
  AddNode(graph, "Relu", {"M"}, {"Z"}, "relu2");
  AddOutput(graph, "Z", TensorProto::FLOAT);
  return model;
}

std::vector<Value> RunXY(const InferenceSession& session) {
  return RunFloat(session, {"X", "Y"},
                  {MakeTensor<float>({2, 3}, {1.0f, -2.0f, 3.0f, -4.0f, 5.0f, 0.5f}),
                   MakeTensor<float>({2, 3}, {0.5f, 1.0f, -3.5f, 2.0f, -1.0f, 1.5f})});
}

std::vector<std::string> LiveNodeOps(const Graph& graph) {
  std::vector<std::string> ops;
  for (NodeIndex index : graph.TopologicalOrder()) ops.push_back(graph.GetNode(index).OpType());
  return ops;
}

TEST(FusionTest, AddReluMulBecomesOneFusedNodeWithCpuResults) {
  auto fused = MakeSession(AddReluMul(), {FusingTestEp("Add,Relu,Mul")});
  auto cpu = MakeSession(AddReluMul(), {});
  std::shared_ptr<const Graph> graph = fused->SessionGraph();
  ASSERT_EQ(graph->NumberOfNodes(), 1u);
  const Node& node = graph->GetNode(graph->TopologicalOrder()[0]);
  EXPECT_EQ(node.OpType(), "TestExecutionProvider_fused_0");
  EXPECT_EQ(node.Domain(), "com.prism.test");
  ASSERT_NE(node.FusedBody(), nullptr);
  EXPECT_EQ(LiveNodeOps(*node.FusedBody()), (std::vector<std::string>{"Add", "Relu", "Mul"}));
  ASSERT_EQ(node.InputCount(), 3u);
  EXPECT_EQ(node.Inputs()[2]->name, "W");
  EXPECT_EQ(node.Outputs()[0]->name, "Z");
  // The model's own graph is untouched.
  EXPECT_EQ(fused->GetModel().MainGraph().NumberOfNodes(), 3u);

  const std::vector<Value> expected = RunXY(*cpu);
  const std::vector<Value> actual = RunXY(*fused);
  ASSERT_EQ(actual.size(), 1u);
  // Hand-checked: Relu(X+Y)*W = [1.5,0,0; 0,4,2] * [0.5,-2,3].
  EXPECT_EQ(CompareValues(Value(MakeTensor<float>({2, 3}, {0.75f, 0.0f, 0.0f, 0.0f, -8.0f, 6.0f})),
                          actual[0], {0, 0}),
            "");
  EXPECT_EQ(CompareValues(expected[0], actual[0], {0, 0}), "");

  const PartitionReport report = fused->Report();
  ASSERT_EQ(report.fused_groups.size(), 1u);
  EXPECT_EQ(report.fused_groups[0].provider, kTestEp);
  EXPECT_EQ(report.fused_groups[0].nodes, (std::vector<std::string>{"add", "relu", "mul"}));
  for (const NodePlacement& placement : report.nodes) {
    EXPECT_EQ(placement.provider, kTestEp) << placement.node_name;
    EXPECT_EQ(placement.fused_into, "TestExecutionProvider_fused_0") << placement.node_name;
  }
  EXPECT_NE(report.ToText().find("Fused groups:\n  [main] TestExecutionProvider_fused_0 -> "
                                 "TestExecutionProvider: add relu mul"),
            std::string::npos)
      << report.ToText();
  // W is placed once on the device; only X and Y travel per run.
  for (const CopyRecord& copy : report.copies)
    if (copy.value == "W") {
      EXPECT_FALSE(copy.per_run);
    }
}

TEST(FusionTest, DeclinedOpSplitsTwoGroupsWithItOnTheCpuBetween) {
  auto fused = MakeSession(TwoGroups(), {FusingTestEp("Add,Relu,Mul")});
  auto cpu = MakeSession(TwoGroups(), {});
  std::shared_ptr<const Graph> graph = fused->SessionGraph();
  EXPECT_EQ(LiveNodeOps(*graph),
            (std::vector<std::string>{"TestExecutionProvider_fused_0", "Sigmoid",
                                      "TestExecutionProvider_fused_1"}));
  const PartitionReport report = fused->Report();
  ASSERT_EQ(report.fused_groups.size(), 2u);
  EXPECT_EQ(report.fused_groups[0].nodes, (std::vector<std::string>{"add", "relu1"}));
  EXPECT_EQ(report.fused_groups[1].nodes, (std::vector<std::string>{"mul", "relu2"}));
  for (const NodePlacement& placement : report.nodes) {
    if (placement.node_name != "middle") continue;
    EXPECT_EQ(placement.provider, "CPUExecutionProvider");
    EXPECT_TRUE(placement.fused_into.empty());
  }
  // The Sigmoid between them reads the first group's output from the device and feeds the
  // second group through a copy back.
  int copies_of_r = 0, copies_of_i = 0;
  for (const CopyRecord& copy : report.copies) {
    copies_of_r += copy.value == "R";
    copies_of_i += copy.value == "I";
  }
  EXPECT_EQ(copies_of_r, 1);
  EXPECT_EQ(copies_of_i, 1);
  EXPECT_EQ(CompareValues(RunXY(*cpu)[0], RunXY(*fused)[0], {0, 0}), "");
}

TEST(FusionTest, RepeatedRunsMatchTheCpuWithEveryFeed) {
  // Each run's feeds differ, so a compiled kernel that kept anything from an earlier run (or
  // wrote nothing) fails against the CPU EP's results.
  auto fused = MakeSession(TwoGroups(), {FusingTestEp("Add,Relu,Mul")});
  auto cpu = MakeSession(TwoGroups(), {});
  for (int i = 1; i <= 5; ++i) {
    const float scale = static_cast<float>(i);
    const std::vector<std::string> names = {"X", "Y"};
    const std::vector<Tensor> feeds = {
        MakeTensor<float>({2, 3}, {scale, -2.0f, 3.0f * scale, -4.0f, 5.0f, 0.5f * scale}),
        MakeTensor<float>({2, 3}, {0.5f, scale, -3.5f, 2.0f * scale, -1.0f, 1.5f})};
    const std::vector<Value> expected = RunFloat(*cpu, names, feeds);
    const std::vector<Value> actual = RunFloat(*fused, names, feeds);
    EXPECT_EQ(CompareValues(expected[0], actual[0], {0, 0}), "") << "run " << i;
  }
}

// Direct checks of the fuse phase on hand-made claims.
class FuserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string bytes = Serialize(TwoGroups());
    model_ = Model::LoadFromBytes(bytes.data(), bytes.size());
    graph_ = model_->MainGraph().Clone();
    cpu_ = MakeCpuProvider();
    GraphAssignment& assignment = assignment_[graph_.get()];
    assignment.path = "main";
    assignment.provider_of.assign(graph_->NodeCount(), cpu_.get());
  }

  static std::unique_ptr<IExecutionProvider> MakeCpuProvider() {
    std::string why;
    auto factory = FindProviderFactory("CPUExecutionProvider", "", &why);
    EXPECT_NE(factory, nullptr) << why;
    return factory->Create({});
  }

  NodeIndex Index(const std::string& name) const {
    for (NodeIndex index : graph_->TopologicalOrder())
      if (graph_->GetNode(index).Name() == name) return index;
    return 0;
  }

  Status Claim(std::vector<std::string> nodes, MetaDef meta) {
    FusedClaim claim;
    claim.provider = cpu_.get();
    for (const std::string& name : nodes) claim.nodes.push_back(Index(name));
    claim.meta_def = std::move(meta);
    assignment_[graph_.get()].fused_claims.push_back(std::move(claim));
    return CaptureError([&] { FuseClaimedGroups(*graph_, assignment_, report_); });
  }

  std::shared_ptr<const Model> model_;
  std::unique_ptr<Graph> graph_;
  std::unique_ptr<IExecutionProvider> cpu_;
  Assignment assignment_;
  PartitionReport report_;
};

MetaDef Meta(std::vector<std::string> inputs, std::vector<std::string> outputs) {
  MetaDef meta;
  meta.name = "group";
  meta.domain = "com.prism.test";
  meta.inputs = std::move(inputs);
  meta.outputs = std::move(outputs);
  return meta;
}

TEST_F(FuserTest, MissingInputIsRefused) {
  PRISM_EXPECT_ERROR(Claim({"add", "relu1"}, Meta({"X"}, {"R"})), kEpFail,
                     "CPUExecutionProvider's fused group 'group' in graph main: Add node 'add' "
                     "reads 'Y', which the MetaDef does not list as an input");
}

TEST_F(FuserTest, OutputReadOutsideMustBeListed) {
  PRISM_EXPECT_ERROR(Claim({"add", "relu1"}, Meta({"X", "Y"}, {})), kEpFail,
                     "produces 'R', which is read outside the group");
}

TEST_F(FuserTest, GroupThatIsNotConvexIsRefused) {
  // relu1 -> middle (outside) -> mul: fusing relu1 with mul would need middle both before and
  // after the fused node.
  PRISM_EXPECT_ERROR(Claim({"relu1", "mul"}, Meta({"A", "I", "Y"}, {"R", "M"})), kEpFail,
                     "cannot be fused");
}

TEST_F(FuserTest, UnknownValueIsRefused) {
  PRISM_EXPECT_ERROR(Claim({"add"}, Meta({"X", "Y", "nope"}, {"A"})), kEpFail,
                     "lists input 'nope', which is not a value of the graph");
}

}  // namespace
}  // namespace prism::testing
