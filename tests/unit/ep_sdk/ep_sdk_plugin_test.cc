// The EP SDK's plugin path end to end: the example EP (examples/custom_ep/example_ep.cc, built
// from the SDK's headers alone into build/plugin-tests/sdk-example) is found by name, takes the
// nodes it supports in connected groups, declines the rest with its reasons, and gives the CPU
// EP's results; its options are checked; a plugin built for another SDK version is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "../session/session_test_util.h"
#include "prism/ep/version.h"
#include "session/provider_library.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

const std::string kExampleName = "ExampleExecutionProvider";

std::string PluginTestFolder(const std::string& name) {
  return std::string(PRISM_BINARY_DIR) + "/plugin-tests/" + name;
}

constexpr int64_t kRows = 2, kColumns = 5000;

// The example's graph (examples/custom_ep/make_model.py), [2, 5000]:
// S = X + Y; R = Relu(S); G = Sigmoid(R); M = G * W; Z = M - X; Out = Z + b (b: [5000]).
onnx::ModelProto ExampleModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {kRows, kColumns});
  AddInput(graph, "Y", TensorProto::FLOAT, {kRows, kColumns});
  std::vector<float> w(kRows * kColumns), b(kColumns);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 7) - 3) / 4;
  for (size_t j = 0; j < b.size(); ++j) b[j] = static_cast<float>(j) / 1000;
  AddFloatInitializer(graph, "W", {kRows, kColumns}, w);
  AddFloatInitializer(graph, "b", {kColumns}, b);
  AddNode(graph, "Add", {"X", "Y"}, {"S"}, "add");
  AddNode(graph, "Relu", {"S"}, {"R"}, "relu");
  AddNode(graph, "Sigmoid", {"R"}, {"G"}, "sigmoid");
  AddNode(graph, "Mul", {"G", "W"}, {"M"}, "mul");
  AddNode(graph, "Sub", {"M", "X"}, {"Z"}, "sub");
  AddNode(graph, "Add", {"Z", "b"}, {"Out"}, "bias");
  AddOutput(graph, "Out", TensorProto::FLOAT);
  AddOutput(graph, "R", TensorProto::FLOAT);
  return model;
}

SessionOptions ExampleOptions(int threads = 2) {
  SessionOptions options;
  options.config_entries["session.provider_library_dir"] = PluginTestFolder("sdk-example");
  options.config_entries["session.fail_on_unavailable_provider"] = "1";
  options.intra_op_num_threads = threads;
  return options;
}

std::vector<Tensor> ExampleInputs() {
  std::vector<float> x(kRows * kColumns), y(kRows * kColumns);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(2 * std::sin(0.01 * static_cast<double>(i)));
    y[i] = static_cast<float>(std::cos(0.007 * static_cast<double>(i)));
  }
  return {MakeTensor<float>({kRows, kColumns}, x), MakeTensor<float>({kRows, kColumns}, y)};
}

NodePlacement Placement(const InferenceSession& session, const std::string& node) {
  for (const NodePlacement& placement : session.Report().nodes)
    if (placement.node_name == node) return placement;
  ADD_FAILURE() << "no node " << node << " in the report";
  return {};
}

std::string ReasonFrom(const NodePlacement& placement, const std::string& provider) {
  for (const auto& [who, reason] : placement.declined)
    if (who == provider) return reason;
  return "";
}

TEST(EpSdkPluginTest, ExampleEpTakesItsNodesInGroupsAndMatchesTheCpuEp) {
  ASSERT_TRUE(
      std::filesystem::exists(PluginTestFolder("sdk-example") + "/libprism_provider_example.so"))
      << "build the prism_sdk_example_plugin target";
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    auto session =
        MakeSession(ExampleModel(), {ProviderSpec{kExampleName, {}}}, ExampleOptions(threads));
    for (const char* node : {"add", "relu", "mul", "sub"})
      EXPECT_EQ(Placement(*session, node).provider, kExampleName) << node;
    EXPECT_EQ(Placement(*session, "sigmoid").provider, kCpuExecutionProvider);
    EXPECT_EQ(ReasonFrom(Placement(*session, "sigmoid"), kExampleName),
              "op type Sigmoid is not one of Add, Sub, Mul, Relu");
    EXPECT_EQ(Placement(*session, "bias").provider, kCpuExecutionProvider);
    EXPECT_EQ(ReasonFrom(Placement(*session, "bias"), kExampleName),
              "input 1 has shape [5000], input 0 [2,5000]; this EP does not broadcast");
    // Two groups: the Sigmoid on the CPU EP sits between them.
    const std::vector<FusedGroupRecord> groups = session->Report().fused_groups;
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].nodes, (std::vector<std::string>{"add", "relu"}));
    EXPECT_EQ(groups[1].nodes, (std::vector<std::string>{"mul", "sub"}));
    EXPECT_EQ(groups[0].provider, kExampleName);
    EXPECT_EQ(groups[0].domain, "com.prism.plugin");

    auto cpu = MakeSession(ExampleModel(), {}, ExampleOptions(threads));
    const std::vector<Tensor> inputs = ExampleInputs();
    const std::vector<Value> got = RunFloat(*session, {"X", "Y"}, inputs);
    const std::vector<Value> want = RunFloat(*cpu, {"X", "Y"}, inputs);
    ASSERT_EQ(got.size(), 2u);
    // Add, Relu, Mul and Sub round the same way everywhere: the results are equal bit for bit.
    EXPECT_EQ(CompareValues(want[0], got[0], {0, 0}), "");
    EXPECT_EQ(CompareValues(want[1], got[1], {0, 0}), "");
  }
}

TEST(EpSdkPluginTest, ExampleEpOptionsAreHonouredOrRefused) {
  auto session = MakeSession(ExampleModel(), {ProviderSpec{kExampleName, {{"ops", "Add,Mul"}}}},
                             ExampleOptions());
  EXPECT_EQ(Placement(*session, "add").provider, kExampleName);
  EXPECT_EQ(Placement(*session, "relu").provider, kCpuExecutionProvider);
  EXPECT_EQ(ReasonFrom(Placement(*session, "relu"), kExampleName),
            "op type Relu is not in option 'ops'");
  EXPECT_EQ(session->ProviderOptionsList().at(0).at("ops"), "Add,Mul");

  const Status unknown = CaptureError([&] {
    MakeSession(ExampleModel(), {ProviderSpec{kExampleName, {{"threads", "2"}}}}, ExampleOptions());
  });
  // A provider that fails to start is an EP failure, whatever the EP's own error code.
  EXPECT_EQ(unknown.Code(), StatusCode::kEpFail);
  EXPECT_NE(unknown.Message().find("ExampleExecutionProvider: unknown option 'threads' (known: "
                                   "ops)"),
            std::string::npos)
      << unknown.Message();
}

TEST(EpSdkPluginTest, PluginBuiltForAnotherSdkVersionIsRefused) {
  const std::string folder = PluginTestFolder("sdk-wrong-version");
  ASSERT_TRUE(std::filesystem::exists(folder + "/libprism_provider_sdkwrong.so"))
      << "build the prism_sdk_wrong_version_plugin target";
  std::string why;
  EXPECT_EQ(FindProviderFactory("SdkWrongVersionExecutionProvider", folder, &why), nullptr);
  EXPECT_EQ(why, "SdkWrongVersionExecutionProvider plugin " + folder +
                     "/libprism_provider_sdkwrong.so was built for EP SDK version " +
                     std::to_string(ep::kEpSdkVersion + 998) + ", this Prism needs version " +
                     std::to_string(ep::kEpSdkVersion) +
                     "; rebuild the plugin against this release");
}

}  // namespace
}  // namespace prism::testing
