// Provider discovery: the CPU EP comes through the same factory interface as plugins, plugins are
// found by file name and the name in their descriptor (no list in the core), and a plugin built
// for another interface version is refused naming both versions. The extra plugins are the test
// EP's sources built under other names into folders off the default search path
// (CMakeLists.txt: prism_provider_second, prism_provider_wrongversion).
#include <gtest/gtest.h>

#include <algorithm>

#include "session/provider_library.h"
#include "session_test_util.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

const std::string kSecondName = "SecondTestExecutionProvider";
const std::string kWrongVersionName = "WrongVersionExecutionProvider";

std::string PluginTestFolder(const std::string& name) {
  return std::string(PRISM_BINARY_DIR) + "/plugin-tests/" + name;
}

// z = Add(x, y) over [2, 3] floats.
onnx::ModelProto AddModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "x", TensorProto::FLOAT, {2, 3});
  AddInput(graph, "y", TensorProto::FLOAT, {2, 3});
  AddNode(graph, "Add", {"x", "y"}, {"z"}, "add");
  AddOutput(graph, "z", TensorProto::FLOAT);
  return model;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(ProviderDiscoveryTest, CpuProviderIsCreatedThroughItsFactoryLikeAPlugin) {
  std::string why;
  auto factory = FindProviderFactory(kCpuExecutionProvider, "", &why);
  ASSERT_NE(factory, nullptr) << why;
  EXPECT_EQ(factory->Name(), kCpuExecutionProvider);
  std::string missing;
  EXPECT_TRUE(factory->IsAvailable(&missing)) << missing;
  std::unique_ptr<IExecutionProvider> provider = factory->Create({{"some_option", "1"}});
  ASSERT_NE(provider, nullptr);
  EXPECT_EQ(provider->Type(), kCpuExecutionProvider);
  EXPECT_EQ(provider->GetProviderOptions().at("some_option"), "1");
  ASSERT_NE(provider->GetKernelRegistry(), nullptr);
  EXPECT_FALSE(provider->GetKernelRegistry()->All().empty());
  const std::vector<std::string> available = AvailableProviders();
  ASSERT_FALSE(available.empty());
  EXPECT_EQ(available.back(), kCpuExecutionProvider);
}

TEST(ProviderDiscoveryTest, PluginWithAnotherNameIsFoundInTheSearchPath) {
  const std::string folder = PluginTestFolder("second");
  ASSERT_TRUE(std::filesystem::exists(folder + "/libprism_provider_second.so"))
      << "build the prism_provider_second target";
  std::string why;
  EXPECT_EQ(FindProviderFactory(kSecondName, "", &why), nullptr);
  EXPECT_NE(why.find("unknown execution provider 'SecondTestExecutionProvider': no "
                     "libprism_provider_*.so plugin of that name in "),
            std::string::npos)
      << why;
  EXPECT_FALSE(Contains(AvailableProviders(), kSecondName));

  auto factory = FindProviderFactory(kSecondName, folder, &why);
  ASSERT_NE(factory, nullptr) << why;
  EXPECT_EQ(factory->Name(), kSecondName);
  const std::vector<std::string> available = AvailableProviders(folder);
  EXPECT_TRUE(Contains(available, kSecondName));
  EXPECT_EQ(available.back(), kCpuExecutionProvider);
  // The hidden test EP beside the core library is found by name but not listed.
  EXPECT_FALSE(Contains(available, "TestExecutionProvider"));

  // A session that names it runs Add there, with the same result as the CPU EP.
  SessionOptions options;
  options.config_entries["session.provider_library_dir"] = folder;
  options.config_entries["session.fail_on_unavailable_provider"] = "1";
  auto session = MakeSession(AddModel(), {ProviderSpec{kSecondName, {{"ops", "Add"}}}}, options);
  ASSERT_EQ(session->Report().nodes.size(), 1u);
  EXPECT_EQ(session->Report().nodes[0].provider, kSecondName);
  const Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor y = MakeTensor<float>({2, 3}, {0.5f, -1, 2, -3, 10, 0.25f});
  const std::vector<Value> outputs = RunFloat(*session, {"x", "y"}, {x, y});
  ASSERT_EQ(outputs.size(), 1u);
  const Tensor expected = MakeTensor<float>({2, 3}, {1.5f, 1, 5, 1, 15, 6.25f});
  EXPECT_EQ(CompareValues(Value(expected), outputs[0], {0, 0}), "");
}

TEST(ProviderDiscoveryTest, PluginBuiltForAnotherInterfaceVersionIsRefused) {
  const std::string folder = PluginTestFolder("wrong-version");
  ASSERT_TRUE(std::filesystem::exists(folder + "/libprism_provider_wrongversion.so"))
      << "build the prism_provider_wrongversion target";
  std::string why;
  EXPECT_EQ(FindProviderFactory(kWrongVersionName, folder, &why), nullptr);
  const std::string expected =
      "WrongVersionExecutionProvider plugin " + folder +
      "/libprism_provider_wrongversion.so was built for provider interface version 999, this "
      "Prism needs version " +
      std::to_string(kProviderInterfaceVersion) + "; rebuild the plugin against this release";
  EXPECT_EQ(why, expected);
  EXPECT_FALSE(Contains(AvailableProviders(folder), kWrongVersionName));

  SessionOptions options;
  options.config_entries["session.provider_library_dir"] = folder;
  options.config_entries["session.fail_on_unavailable_provider"] = "1";
  const std::string error =
      CaptureError([&] {
        MakeSession(AddModel(), {ProviderSpec{kWrongVersionName, {}}}, options);
      }).Message();
  EXPECT_NE(error.find(expected), std::string::npos) << error;
}

}  // namespace
}  // namespace prism::testing
