// Partitioning across the test EP plugin and the CPU EP: provider order, placement and
// declined reasons, inserted copies, the report's text and Graphviz forms, fallback rules, and
// results equal to a CPU-only run (the test EP scrambles its memory, so a missing copy shows).
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "session_test_util.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

constexpr const char* kTestEp = "TestExecutionProvider";
constexpr const char* kCpuEp = "CPUExecutionProvider";

// add: Add(X, Y) -> S; id: Identity(S) -> T; relu: Relu(T) -> Z.
onnx::ModelProto SmallModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddInput(graph, "Y", TensorProto::FLOAT, {2});
  AddNode(graph, "Add", {"X", "Y"}, {"S"}, "add");
  AddNode(graph, "Identity", {"S"}, {"T"}, "id");
  AddNode(graph, "Relu", {"T"}, {"Z"}, "relu");
  AddOutput(graph, "Z", TensorProto::FLOAT);
  return model;
}

// Add -> Identity -> Add -> Identity -> Relu: with ops=Add,Relu the EPs alternate.
onnx::ModelProto IslandModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  AddInput(graph, "Y", TensorProto::FLOAT, {2});
  AddNode(graph, "Add", {"X", "Y"}, {"A1"}, "add1");
  AddNode(graph, "Identity", {"A1"}, {"I1"}, "id1");
  AddNode(graph, "Add", {"I1", "Y"}, {"A2"}, "add2");
  AddNode(graph, "Identity", {"A2"}, {"I2"}, "id2");
  AddNode(graph, "Relu", {"I2"}, {"Z"}, "relu");
  AddOutput(graph, "Z", TensorProto::FLOAT);
  return model;
}

// The Identity nodes here stand for any op the test EP declines; the optimizer would remove them,
// so these sessions run unoptimized.
std::unique_ptr<InferenceSession> MakeUnoptimized(const onnx::ModelProto& model,
                                                  std::vector<ProviderSpec> providers,
                                                  SessionOptions options = {}) {
  options.graph_optimization_level = GraphOptimizationLevel::kDisableAll;
  return MakeSession(model, std::move(providers), std::move(options));
}

std::vector<Value> RunXY(const InferenceSession& session, std::vector<float> x,
                         std::vector<float> y) {
  return RunFloat(session, {"X", "Y"},
                  {MakeTensor<float>({static_cast<int64_t>(x.size())}, x),
                   MakeTensor<float>({static_cast<int64_t>(y.size())}, y)});
}

TEST(PartitionTest, ProvidersInPriorityOrderCpuLast) {
  auto session = MakeUnoptimized(SmallModel(), {TestEp("Add,Relu")});
  EXPECT_EQ(session->Providers(), (std::vector<std::string>{kTestEp, kCpuEp}));
  // The CPU EP always goes last, even when listed first.
  auto reordered = MakeUnoptimized(SmallModel(), {ProviderSpec{kCpuEp, {}}, TestEp("Add,Relu")});
  EXPECT_EQ(reordered->Providers(), (std::vector<std::string>{kTestEp, kCpuEp}));
  // No list: CPU only.
  auto cpu = MakeUnoptimized(SmallModel(), {});
  EXPECT_EQ(cpu->Providers(), std::vector<std::string>{kCpuEp});

  const auto options = session->ProviderOptionsList();
  ASSERT_EQ(options.size(), 2u);
  EXPECT_EQ(options[0].at("ops"), "Add,Relu");
  EXPECT_EQ(options[0].at("device_id"), "0");
}

TEST(PartitionTest, ProviderListedTwiceIsAnError) {
  PRISM_EXPECT_ERROR(CaptureError([&] {
                       MakeUnoptimized(SmallModel(), {TestEp("Add"), TestEp("Relu")});
                     }),
                     kInvalidArgument, "provider 'TestExecutionProvider' is listed twice");
}

TEST(PartitionTest, ReportPlacementAndDeclinedReasons) {
  auto session = MakeUnoptimized(SmallModel(), {TestEp("Add,Relu")});
  const PartitionReport& report = session->Report();
  ASSERT_EQ(report.nodes.size(), 3u);
  const std::vector<std::string> names = {"add", "id", "relu"};
  const std::vector<std::string> ops = {"Add", "Identity", "Relu"};
  const std::vector<std::string> placed = {kTestEp, kCpuEp, kTestEp};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(names[i]);
    const NodePlacement& node = report.nodes[i];
    EXPECT_EQ(node.graph, "main");
    EXPECT_EQ(node.node_name, names[i]);
    EXPECT_EQ(node.op_type, ops[i]);
    EXPECT_EQ(node.domain, "");
    EXPECT_EQ(node.opset, 17);
    EXPECT_EQ(node.provider, placed[i]);
    for (const auto& [provider, reason] : node.declined)
      EXPECT_NE(provider, kCpuEp) << "the CPU EP never declines here: " << reason;
  }
  EXPECT_TRUE(report.nodes[0].declined.empty());
  EXPECT_TRUE(report.nodes[2].declined.empty());
  ASSERT_EQ(report.nodes[1].declined.size(), 1u);
  EXPECT_EQ(report.nodes[1].declined[0].first, kTestEp);
  EXPECT_EQ(report.nodes[1].declined[0].second, "op Identity is not in this EP's 'ops' option");
  EXPECT_EQ(report.nodes[0].inputs, (std::vector<std::string>{"X", "Y"}));
  EXPECT_EQ(report.nodes[0].outputs, std::vector<std::string>{"S"});
  const std::map<std::string, int> counts = {{kCpuEp, 1}, {kTestEp, 2}};
  EXPECT_EQ(report.NodesPerProvider(), counts);
}

TEST(PartitionTest, CopiesBetweenMemorySpaces) {
  auto session = MakeUnoptimized(SmallModel(), {TestEp("Add,Relu")});
  const auto& copies = session->Report().copies;
  ASSERT_EQ(copies.size(), 4u);
  struct Expected {
    const char* value;
    const char* from;
    const char* to;
    const char* consumer;
  };
  const Expected expected[] = {
      {"X", "Cpu:0", "TestDevice:0", "Add node 'add'"},
      {"Y", "Cpu:0", "TestDevice:0", "Add node 'add'"},
      {"S", "TestDevice:0", "Cpu:0", "Identity node 'id'"},
      {"T", "Cpu:0", "TestDevice:0", "Relu node 'relu'"},
  };
  for (size_t i = 0; i < copies.size(); ++i) {
    SCOPED_TRACE(expected[i].value);
    EXPECT_EQ(copies[i].graph, "main");
    EXPECT_EQ(copies[i].value, expected[i].value);
    EXPECT_EQ(copies[i].from_memory, expected[i].from);
    EXPECT_EQ(copies[i].to_memory, expected[i].to);
    EXPECT_EQ(copies[i].consumer, expected[i].consumer);
  }
  // CPU only: nothing to copy.
  auto cpu = MakeUnoptimized(SmallModel(), {});
  EXPECT_TRUE(cpu->Report().copies.empty());
  for (const NodePlacement& node : cpu->Report().nodes) EXPECT_EQ(node.provider, kCpuEp);
}

TEST(PartitionTest, ReportText) {
  auto session = MakeUnoptimized(SmallModel(), {TestEp("Add,Relu")});
  const std::string expected =
      "Partition: 3 nodes, 4 copies (2 in every run; 2 of graph inputs, only when fed in other "
      "memory)\n"
      "  CPUExecutionProvider: 1 nodes\n"
      "  TestExecutionProvider: 2 nodes\n"
      "Nodes:\n"
      "  [main] add (Add, opset 17) -> TestExecutionProvider\n"
      "  [main] id (Identity, opset 17) -> CPUExecutionProvider\n"
      "      declined by TestExecutionProvider: op Identity is not in this EP's 'ops' option\n"
      "  [main] relu (Relu, opset 17) -> TestExecutionProvider\n"
      "Copies:\n"
      "  [main] 'X' Cpu:0 -> TestDevice:0 for Add node 'add' (TestExecutionProvider reads input "
      "0 from its own memory; graph input, not copied when fed in TestDevice:0 memory)\n"
      "  [main] 'Y' Cpu:0 -> TestDevice:0 for Add node 'add' (TestExecutionProvider reads input "
      "1 from its own memory; graph input, not copied when fed in TestDevice:0 memory)\n"
      "  [main] 'S' TestDevice:0 -> Cpu:0 for Identity node 'id' (CPUExecutionProvider reads "
      "input 0 from its own memory)\n"
      "  [main] 'T' Cpu:0 -> TestDevice:0 for Relu node 'relu' (TestExecutionProvider reads "
      "input 0 from its own memory)\n";
  EXPECT_EQ(session->Report().ToText(), expected);

  auto cpu = MakeUnoptimized(SmallModel(), {});
  EXPECT_EQ(cpu->Report().ToText(),
            "Partition: 3 nodes, 0 copies\n"
            "  CPUExecutionProvider: 3 nodes\n"
            "Nodes:\n"
            "  [main] add (Add, opset 17) -> CPUExecutionProvider\n"
            "  [main] id (Identity, opset 17) -> CPUExecutionProvider\n"
            "  [main] relu (Relu, opset 17) -> CPUExecutionProvider\n");
}

TEST(PartitionTest, IslandsAlternateAndCopiesAreShared) {
  auto session = MakeUnoptimized(IslandModel(), {TestEp("Add,Relu")});
  const PartitionReport& report = session->Report();
  std::vector<std::string> placed;
  for (const NodePlacement& node : report.nodes) placed.push_back(node.provider);
  EXPECT_EQ(placed, (std::vector<std::string>{kTestEp, kCpuEp, kTestEp, kCpuEp, kTestEp}));
  // X and Y in; A1 out, I1 in; A2 out, I2 in. Y's device copy serves both Adds.
  std::vector<std::string> copied;
  for (const CopyRecord& copy : report.copies) copied.push_back(copy.value);
  EXPECT_EQ(copied, (std::vector<std::string>{"X", "Y", "A1", "I1", "A2", "I2"}));

  auto cpu = MakeUnoptimized(IslandModel(), {});
  const std::vector<float> x = {1.f, -5.f}, y = {2.f, 1.f};
  auto expected = RunXY(*cpu, x, y);
  auto actual = RunXY(*session, x, y);
  ASSERT_EQ(actual.size(), 1u);
  EXPECT_EQ(CompareValues(expected[0], actual[0], {0, 0}), "");
  // Hand-checked: ((x + y) + y) clipped at 0.
  EXPECT_EQ(CompareValues(Value(MakeTensor<float>({2}, {5.f, 0.f})), actual[0], {0, 0}), "");
}

TEST(PartitionTest, OutputsEqualCpuOnlyRun) {
  auto test_ep = MakeUnoptimized(SmallModel(), {TestEp("Add,Relu")});
  auto cpu = MakeUnoptimized(SmallModel(), {});
  const std::vector<float> x = {1.5f, -3.f}, y = {0.25f, 1.f};
  auto expected = RunXY(*cpu, x, y);
  auto actual = RunXY(*test_ep, x, y);
  ASSERT_EQ(actual.size(), 1u);
  EXPECT_TRUE(actual[0].GetTensor().Location().IsCpuAccessible());
  EXPECT_EQ(CompareValues(expected[0], actual[0], {0, 0}), "");
  EXPECT_EQ(CompareValues(Value(MakeTensor<float>({2}, {1.75f, 0.f})), actual[0], {0, 0}), "");
}

TEST(PartitionTest, DeviceOutputsAreReallyScrambled) {
  // Guards the other tests: if device memory held plain bytes, a missing copy would go unseen.
  auto session = MakeUnoptimized(SmallModel(), {TestEp("Add,Relu")});
  std::vector<Value> feeds = {Value(MakeTensor<float>({2}, {1.f, 2.f})),
                              Value(MakeTensor<float>({2}, {3.f, 4.f}))};
  auto device = session->Run(RunOptions{}, {"X", "Y"}, feeds, {}, /*keep_device_outputs=*/true);
  ASSERT_EQ(device.size(), 1u);
  const Tensor& tensor = device[0].GetTensor();
  EXPECT_EQ(tensor.Location().name, "TestDevice");
  const float plain[2] = {4.f, 6.f};
  const auto* plain_bytes = reinterpret_cast<const uint8_t*>(plain);
  const auto* stored = static_cast<const uint8_t*>(tensor.RawData());
  for (size_t i = 0; i < sizeof(plain); ++i)
    EXPECT_EQ(stored[i], static_cast<uint8_t>(plain_bytes[i] ^ 0xA5)) << "byte " << i;
}

TEST(PartitionTest, DotOutputIsGraphviz) {
  auto session = MakeUnoptimized(SmallModel(), {TestEp("Add,Relu")});
  const std::string dot = session->Report().ToDot();
  EXPECT_EQ(dot.rfind("digraph", 0), 0u) << dot;
  EXPECT_EQ(dot.back(), '\n');
  EXPECT_EQ(std::count(dot.begin(), dot.end(), '{'), std::count(dot.begin(), dot.end(), '}'));
  const auto count = [&](const std::string& pattern) {
    const std::regex re(pattern);
    return std::distance(std::sregex_iterator(dot.begin(), dot.end(), re), std::sregex_iterator());
  };
  EXPECT_EQ(count(R"(\n  n\d+ \[label=)"), 3) << dot;      // one per graph node
  EXPECT_EQ(count(R"(\n  c\d+ \[shape=note)"), 4) << dot;  // one per copy
  // X, Y: copy -> add; S: add -> copy -> id; T: id -> copy -> relu.
  EXPECT_EQ(count(R"(style=dashed)"), 6) << dot;
  EXPECT_NE(dot.find("n0 -> c2 [style=dashed"), std::string::npos) << dot;
  EXPECT_NE(dot.find("c2 -> n1 [style=dashed"), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"add\\nAdd\\nTestExecutionProvider\""), std::string::npos) << dot;
  // Every statement line ends in ';', '{' or '}'.
  std::istringstream lines(dot);
  std::string line;
  while (std::getline(lines, line)) {
    ASSERT_FALSE(line.empty());
    const char last = line.back();
    EXPECT_TRUE(last == ';' || last == '{' || last == '}') << "bad line: " << line;
  }
}

TEST(PartitionTest, UnknownProviderIsSkippedWithCpuFallback) {
  auto session = MakeUnoptimized(SmallModel(), {ProviderSpec{"NoSuchExecutionProvider", {}}});
  EXPECT_EQ(session->Providers(), std::vector<std::string>{kCpuEp});
  auto out = RunXY(*session, {1.f, -2.f}, {1.f, 1.f});
  EXPECT_EQ(CompareValues(Value(MakeTensor<float>({2}, {2.f, 0.f})), out[0], {0, 0}), "");

  SessionOptions strict;
  strict.config_entries["session.fail_on_unavailable_provider"] = "1";
  PRISM_EXPECT_ERROR(
      CaptureError([&] {
        MakeUnoptimized(SmallModel(), {ProviderSpec{"NoSuchExecutionProvider", {}}}, strict);
      }),
      kEpFail, "unknown execution provider 'NoSuchExecutionProvider'");
}

TEST(PartitionTest, DisabledCpuFallbackNamesTheNode) {
  SessionOptions options;
  options.config_entries["session.disable_cpu_ep_fallback"] = "1";
  PRISM_EXPECT_ERROR(
      CaptureError([&] { MakeUnoptimized(SmallModel(), {TestEp("Add,Relu")}, options); }), kEpFail,
      "Identity node 'id' would fall back to the CPU EP, and CPU fallback is "
      "disabled (session.disable_cpu_ep_fallback); TestExecutionProvider: op "
      "Identity is not in this EP's 'ops' option");
  // Everything on the test EP: fine.
  auto all_on_device = MakeUnoptimized(SmallModel(), {TestEp("Add,Identity,Relu")}, options);
  for (const NodePlacement& node : all_on_device->Report().nodes) EXPECT_EQ(node.provider, kTestEp);
  // Without any other EP the option has nothing to fall back from.
  auto cpu = MakeUnoptimized(SmallModel(), {}, options);
  EXPECT_EQ(cpu->Providers(), std::vector<std::string>{kCpuEp});
}

TEST(PartitionTest, NodeNoProviderCanRun) {
  onnx::ModelProto model = SmallModel();
  AddNode(model.mutable_graph(), "NoSuchOp", {"Z"}, {"Q"}, "bad");
  AddOutput(model.mutable_graph(), "Q", TensorProto::FLOAT);
  PRISM_EXPECT_ERROR(CaptureError([&] { MakeUnoptimized(model, {TestEp("Add,Relu")}); }),
                     kNotImplemented,
                     "no execution provider can run NoSuchOp node 'bad' in graph main (op "
                     "NoSuchOp, opset 17, input types (tensor(float))); TestExecutionProvider: op "
                     "NoSuchOp is not in this EP's 'ops' option; CPUExecutionProvider: no kernel "
                     "for op NoSuchOp");
  PRISM_EXPECT_ERROR(CaptureError([&] { MakeUnoptimized(model, {}); }), kNotImplemented,
                     "no execution provider can run NoSuchOp node 'bad' in graph main (op "
                     "NoSuchOp, opset 17, input types (tensor(float))); CPUExecutionProvider: no "
                     "kernel for op NoSuchOp");
}

TEST(PartitionTest, TypeNoKernelAcceptsIsReported) {
  // Relu has no string kernel anywhere; the reason names the type constraint.
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "S", TensorProto::STRING, {1});
  AddNode(graph, "Relu", {"S"}, {"R"}, "string_relu");
  AddOutput(graph, "R", TensorProto::STRING);
  const Status status = CaptureError([&] { MakeUnoptimized(model, {TestEp("Relu")}); });
  PRISM_EXPECT_ERROR(status, kNotImplemented,
                     "no execution provider can run Relu node 'string_relu' in graph main (op "
                     "Relu, opset 17, input types (tensor(string)))");
  EXPECT_NE(status.Message().find("TestExecutionProvider: string tensors cannot live in test "
                                  "device memory"),
            std::string::npos)
      << status.Message();
  EXPECT_NE(status.Message().find("CPUExecutionProvider: no kernel for Relu opset 17 with these "
                                  "types"),
            std::string::npos)
      << status.Message();
}

TEST(PartitionTest, SetProvidersRebuilds) {
  auto session = MakeUnoptimized(SmallModel(), {TestEp("Add,Relu")});
  EXPECT_EQ(session->Report().copies.size(), 4u);
  const auto before = RunXY(*session, {1.f, -4.f}, {2.f, 1.f});
  // A report taken earlier stays valid (and unchanged) after the rebuild.
  const PartitionReport& old_report = session->Report();

  session->SetProviders({});
  EXPECT_EQ(old_report.copies.size(), 4u);
  EXPECT_EQ(old_report.nodes[0].provider, kTestEp);
  EXPECT_EQ(session->Providers(), std::vector<std::string>{kCpuEp});
  EXPECT_TRUE(session->Report().copies.empty());
  for (const NodePlacement& node : session->Report().nodes) EXPECT_EQ(node.provider, kCpuEp);
  const auto cpu_only = RunXY(*session, {1.f, -4.f}, {2.f, 1.f});
  EXPECT_EQ(CompareValues(before[0], cpu_only[0], {0, 0}), "");

  session->SetProviders({TestEp("Relu")});
  EXPECT_EQ(session->Providers(), (std::vector<std::string>{kTestEp, kCpuEp}));
  EXPECT_EQ(session->Report().NodesPerProvider(),
            (std::map<std::string, int>{{kCpuEp, 2}, {kTestEp, 1}}));
  EXPECT_EQ(session->Report().copies.size(), 1u);  // T to the device; Z comes back in Run
  const auto after = RunXY(*session, {1.f, -4.f}, {2.f, 1.f});
  EXPECT_EQ(CompareValues(before[0], after[0], {0, 0}), "");
}

TEST(PartitionTest, SubgraphNodesAreReportedWithTheirGraphPath) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "C", TensorProto::BOOL, {});
  AddInput(graph, "X", TensorProto::FLOAT, {2});
  auto* node = AddNode(graph, "If", {"C"}, {"Y"}, "branch");
  auto* then_branch = AddGraphAttr(node, "then_branch");
  AddNode(then_branch, "Add", {"X", "X"}, {"T"}, "then_add");
  AddOutput(then_branch, "T", TensorProto::FLOAT);
  auto* else_branch = AddGraphAttr(node, "else_branch");
  AddNode(else_branch, "Identity", {"X"}, {"E"}, "else_id");
  AddOutput(else_branch, "E", TensorProto::FLOAT);
  AddOutput(graph, "Y", TensorProto::FLOAT);

  auto session = MakeUnoptimized(model, {TestEp("Add")});
  std::map<std::string, std::pair<std::string, std::string>> placed;  // node -> (graph, EP)
  for (const NodePlacement& p : session->Report().nodes)
    placed[p.node_name] = {p.graph, p.provider};
  ASSERT_EQ(placed.size(), 3u);
  EXPECT_EQ(placed["branch"], std::make_pair(std::string("main"), std::string(kCpuEp)));
  EXPECT_EQ(placed["then_add"],
            std::make_pair(std::string("main/branch:then_branch"), std::string(kTestEp)));
  EXPECT_EQ(placed["else_id"],
            std::make_pair(std::string("main/branch:else_branch"), std::string(kCpuEp)));
  // The then-branch copies outer X in and its result back to the CPU If kernel.
  std::vector<std::string> copies;
  for (const CopyRecord& copy : session->Report().copies)
    copies.push_back(copy.graph + ":" + copy.value + ":" + copy.to_memory);
  EXPECT_EQ(copies, (std::vector<std::string>{"main/branch:then_branch:X:TestDevice:0",
                                              "main/branch:then_branch:T:Cpu:0"}));
}

}  // namespace
}  // namespace prism::testing
