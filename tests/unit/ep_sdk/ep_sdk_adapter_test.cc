// The core's side of the EP SDK (src/framework/ep_sdk/) with an SDK EP defined here and registered
// in process: device memory (values copied in and out through the EP's DeviceMemory, which
// scrambles bytes so that a value left in host memory gives wrong results), constant initializers
// placed on the device before Compile, connected groups that never make a cycle, one group per
// node on request, and the errors an EP's mistakes produce.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "../session/session_test_util.h"
#include "framework/ep_sdk/sdk_provider.h"
#include "prism/ep/prism_ep.h"
#include "session/provider_library.h"
#include "tensor_compare.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

const std::string kDeviceEpName = "SdkDeviceTestExecutionProvider";
constexpr uint8_t kScramble = 0x5A;

struct DeviceCounters {
  std::atomic<int64_t> live{0}, total{0}, to_device{0}, to_host{0}, constants_at_compile{0};
};
DeviceCounters& Counters() {
  static DeviceCounters counters;
  return counters;
}

// Host memory posing as a device: bytes are stored XOR kScramble.
class ScramblingMemory final : public ep::DeviceMemory {
 public:
  std::string Name() const override { return "SdkTestDevice"; }
  ep::DeviceKind Kind() const override { return ep::DeviceKind::kNpu; }
  void* Allocate(size_t bytes) override {
    ++Counters().live;
    ++Counters().total;
    return ::operator new (bytes, std::align_val_t{64});
  }
  void Free(void* pointer) override {
    --Counters().live;
    ::operator delete (pointer, std::align_val_t{64});
  }
  void CopyHostToDevice(void* destination, const void* source, size_t bytes) const override {
    ++Counters().to_device;
    Scramble(destination, source, bytes);
  }
  void CopyDeviceToHost(void* destination, const void* source, size_t bytes) const override {
    ++Counters().to_host;
    Scramble(destination, source, bytes);
  }
  void CopyDeviceToDevice(void* destination, const void* source, size_t bytes) const override {
    std::memcpy(destination, source, bytes);
  }
  static void Scramble(void* destination, const void* source, size_t bytes) {
    const auto* in = static_cast<const uint8_t*>(source);
    auto* out = static_cast<uint8_t*>(destination);
    for (size_t i = 0; i < bytes; ++i) out[i] = in[i] ^ kScramble;
  }
};

float ReadDevice(const float* device, int64_t i) {
  float value;
  ScramblingMemory::Scramble(&value, device + i, sizeof(float));
  return value;
}
void WriteDevice(float* device, int64_t i, float value) {
  ScramblingMemory::Scramble(device + i, &value, sizeof(float));
}

// Runs a group of Neg and Add nodes (equal shapes) on "device" memory.
class DeviceGroupKernel final : public ep::CompiledKernel {
 public:
  struct Step {
    bool add;
    int a, b, out;
  };
  DeviceGroupKernel(std::vector<Step> steps, int inputs, int outputs, int temporaries,
                    std::string mode)
      : steps_(std::move(steps)),
        inputs_(inputs),
        outputs_(outputs),
        temporaries_(temporaries),
        mode_(std::move(mode)) {}

  void Compute(ep::KernelContext& context) const override {
    if (mode_ == "throw") throw std::runtime_error("planted failure");
    if (mode_ == "no_output") return;
    const ep::TensorView* first = context.Input(0);
    const int64_t count = first->ElementCount();
    std::vector<float*> slots;
    for (int i = 0; i < inputs_; ++i) {
      const ep::TensorView* input = context.Input(i);
      if (!input->on_device) throw std::runtime_error("an input is in host memory");
      slots.push_back(const_cast<float*>(input->Data<float>()));
    }
    for (int o = 0; o < outputs_; ++o)
      slots.push_back(
          static_cast<float*>(context.AllocateOutput(o, first->shape, ep::ElementType::kFloat)));
    for (int t = 0; t < temporaries_; ++t)
      slots.push_back(static_cast<float*>(context.AllocateScratch(sizeof(float) * count)));
    context.ParallelFor(count, 100, [&](int64_t begin, int64_t end) {
      for (const Step& step : steps_)
        for (int64_t i = begin; i < end; ++i)
          WriteDevice(slots[step.out], i,
                      step.add ? ReadDevice(slots[step.a], i) + ReadDevice(slots[step.b], i)
                               : -ReadDevice(slots[step.a], i));
    });
  }

 private:
  std::vector<Step> steps_;
  int inputs_, outputs_, temporaries_;
  std::string mode_;
};

class DeviceTestProvider final : public ep::ExecutionProvider {
 public:
  explicit DeviceTestProvider(const ep::ProviderOptions& options) : options_(options) {
    options_.emplace("ops", "Neg,Add");
    options_.emplace("mode", "");
    options_.emplace("single", "0");
    std::stringstream list(options_.at("ops"));
    for (std::string op; std::getline(list, op, ',');) ops_.insert(op);
  }

  void GetCapability(const ep::GraphView& graph, ep::Capability& capability) const override {
    const std::string& mode = options_.at("mode");
    if (mode == "bad_id") capability.Accept(FakeNode());
    if (mode == "silent") return;
    for (size_t i = 0; i < graph.NodeCount(); ++i) {
      const ep::NodeView& node = graph.Node(i);
      if (ops_.count(node.OpType()))
        capability.Accept(node);
      else
        capability.Decline(node, "not in ops");
      if (mode == "both" && ops_.count(node.OpType())) capability.Decline(node, "changed my mind");
    }
    if (options_.at("single") == "1") capability.SetGrouping(ep::Grouping::kSingleNodes);
  }

  std::unique_ptr<ep::CompiledKernel> Compile(const ep::GraphView& subgraph) const override {
    std::map<std::string, int> slot_of;
    for (const ep::ValueInfo* value : subgraph.Inputs()) {
      // Constants are readable in host memory at Compile (the kernel gets them on the device).
      if (const ep::TensorView* constant = subgraph.ConstantInitializer(value->name))
        if (!constant->on_device && constant->Data<float>()[0] == 0.5f)
          ++Counters().constants_at_compile;
      slot_of.emplace(value->name, static_cast<int>(slot_of.size()));
    }
    const int inputs = static_cast<int>(slot_of.size());
    for (const ep::ValueInfo* value : subgraph.Outputs())
      slot_of.emplace(value->name, static_cast<int>(slot_of.size()));
    const int fixed = static_cast<int>(slot_of.size());
    std::vector<DeviceGroupKernel::Step> steps;
    for (size_t i = 0; i < subgraph.NodeCount(); ++i) {
      const ep::NodeView& node = subgraph.Node(i);
      DeviceGroupKernel::Step step{node.OpType() == "Add", slot_of.at(node.Input(0)->name), -1, -1};
      if (step.add) step.b = slot_of.at(node.Input(1)->name);
      auto it = slot_of.emplace(node.Output(0)->name, static_cast<int>(slot_of.size())).first;
      step.out = it->second;
      steps.push_back(step);
    }
    return std::make_unique<DeviceGroupKernel>(std::move(steps), inputs, fixed - inputs,
                                               static_cast<int>(slot_of.size()) - fixed,
                                               options_.at("mode"));
  }

  ep::ProviderOptions GetProviderOptions() const override { return options_; }
  std::shared_ptr<ep::DeviceMemory> GetDeviceMemory() const override { return memory_; }

 private:
  // A node id that no graph here has.
  static const ep::NodeView& FakeNode() {
    struct Fake final : ep::NodeView {
      size_t Id() const override { return 123456; }
      const std::string& Name() const override { return name; }
      const std::string& OpType() const override { return name; }
      const std::string& Domain() const override { return name; }
      int OpsetVersion() const override { return 1; }
      size_t InputCount() const override { return 0; }
      const ep::ValueInfo* Input(size_t) const override { return nullptr; }
      size_t OutputCount() const override { return 0; }
      const ep::ValueInfo* Output(size_t) const override { return nullptr; }
      bool HasSubgraphs() const override { return false; }
      std::vector<std::string> AttributeNames() const override { return {}; }
      ep::AttributeKind GetAttributeKind(const std::string&) const override {
        return ep::AttributeKind::kMissing;
      }
      int64_t GetInt(const std::string&) const override { return 0; }
      float GetFloat(const std::string&) const override { return 0; }
      std::string GetString(const std::string&) const override { return ""; }
      std::vector<int64_t> GetInts(const std::string&) const override { return {}; }
      std::vector<float> GetFloats(const std::string&) const override { return {}; }
      std::vector<std::string> GetStrings(const std::string&) const override { return {}; }
      ep::TensorView GetTensor(const std::string&) const override { return {}; }
      std::string name = "fake";
    };
    static const Fake fake;
    return fake;
  }

  ep::ProviderOptions options_;
  std::set<std::string> ops_;
  std::shared_ptr<ep::DeviceMemory> memory_ = std::make_shared<ScramblingMemory>();
};

class DeviceTestFactory final : public ep::ExecutionProviderFactory {
 public:
  std::string Name() const override { return kDeviceEpName; }
  std::unique_ptr<ep::ExecutionProvider> Create(const ep::ProviderOptions& options) const override {
    return std::make_unique<DeviceTestProvider>(options);
  }
};

// The wrapped factory, left out of get_available_providers() so that other tests' lists do not
// change with the order tests run in.
class HiddenFactory final : public IExecutionProviderFactory {
 public:
  HiddenFactory() : wrapped_(ep_sdk::WrapSdkFactory(std::make_unique<DeviceTestFactory>())) {}
  std::string Name() const override { return wrapped_->Name(); }
  bool IsAvailable(std::string* why) const override { return wrapped_->IsAvailable(why); }
  bool IsListed() const override { return false; }
  std::unique_ptr<IExecutionProvider> Create(const ProviderOptions& options) const override {
    return wrapped_->Create(options);
  }

 private:
  std::unique_ptr<IExecutionProviderFactory> wrapped_;
};

// Errors surface instead of the session retrying on the CPU EP alone.
SessionOptions NoFallback() {
  SessionOptions options;
  options.config_entries["session.disable_ep_failure_fallback"] = "1";
  return options;
}

void RegisterDeviceTestEp() {
  static const bool registered = [] {
    RegisterBuiltinProvider(std::make_shared<HiddenFactory>());
    return true;
  }();
  (void)registered;
}

// A = X + C (C constant); N = Neg(A); Y = Abs(N) (CPU EP); Out = Neg(Y). Outputs Out and N.
onnx::ModelProto DeviceModel() {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3});
  AddFloatInitializer(graph, "C", {2, 3}, {0.5f, -1, 2, -3, 4, -5});
  AddNode(graph, "Add", {"X", "C"}, {"A"}, "add");
  AddNode(graph, "Neg", {"A"}, {"N"}, "neg");
  AddNode(graph, "Abs", {"N"}, {"Y"}, "abs");
  AddNode(graph, "Neg", {"Y"}, {"Out"}, "neg_out");
  AddOutput(graph, "Out", TensorProto::FLOAT);
  AddOutput(graph, "N", TensorProto::FLOAT);
  return model;
}

const Tensor kX = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});

std::vector<std::string> GroupNodes(const InferenceSession& session, size_t g) {
  return session.Report().fused_groups.at(g).nodes;
}

TEST(EpSdkAdapterTest, DeviceMemoryHoldsTheEpsValuesAndConstants) {
  RegisterDeviceTestEp();
  const int64_t constants_before = Counters().constants_at_compile;
  {
    auto session = MakeSession(DeviceModel(), {ProviderSpec{kDeviceEpName, {}}});
    ASSERT_EQ(session->Report().fused_groups.size(), 2u);
    EXPECT_EQ(GroupNodes(*session, 0), (std::vector<std::string>{"add", "neg"}));
    EXPECT_EQ(GroupNodes(*session, 1), (std::vector<std::string>{"neg_out"}));
    EXPECT_EQ(Counters().constants_at_compile, constants_before + 1);
    // C is placed on the device once, at session creation.
    bool constant_placed_once = false;
    for (const CopyRecord& copy : session->Report().copies)
      constant_placed_once = constant_placed_once || (copy.value == "C" && !copy.per_run &&
                                                      copy.to_memory == "SdkTestDevice:0");
    EXPECT_TRUE(constant_placed_once) << session->Report().ToText();
    const int64_t to_device = Counters().to_device;
    const std::vector<Value> outputs = RunFloat(*session, {"X"}, {kX});
    // X in; N and Y out to the host (Abs and the outputs), Y back in for neg_out; Out out.
    EXPECT_GE(Counters().to_device - to_device, 2);
    const Tensor n = MakeTensor<float>({2, 3}, {-1.5f, -1, -5, -1, -9, -1});
    const Tensor out = MakeTensor<float>({2, 3}, {-1.5f, -1, -5, -1, -9, -1});
    EXPECT_EQ(CompareValues(Value(out), outputs[0], {0, 0}), "");
    EXPECT_EQ(CompareValues(Value(n), outputs[1], {0, 0}), "");
    EXPECT_GT(Counters().live, 0);  // at least C stays on the device
  }
  EXPECT_EQ(Counters().live, 0);  // the session gave every block back
}

TEST(EpSdkAdapterTest, GroupsNeverMakeACycleAndSingleNodesOnRequest) {
  RegisterDeviceTestEp();
  // N = Neg(X); B = Abs(N) on the CPU EP; Z = Add(N, B): Neg and Add in one group would both feed
  // and read Abs.
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {2, 3});
  AddNode(graph, "Neg", {"X"}, {"N"}, "neg");
  AddNode(graph, "Abs", {"N"}, {"B"}, "abs");
  AddNode(graph, "Add", {"N", "B"}, {"Z"}, "add");
  AddNode(graph, "Neg", {"Z"}, {"Out"}, "neg2");
  AddOutput(graph, "Out", TensorProto::FLOAT);
  const Tensor x = MakeTensor<float>({2, 3}, {1, -2, 3, -4, 5, -6});
  const Tensor expected = MakeTensor<float>({2, 3}, {0, -4, 0, -8, 0, -12});  // -(-x + |x|)

  auto grouped = MakeSession(model, {ProviderSpec{kDeviceEpName, {}}});
  ASSERT_EQ(grouped->Report().fused_groups.size(), 2u);
  EXPECT_EQ(GroupNodes(*grouped, 0), (std::vector<std::string>{"neg"}));
  EXPECT_EQ(GroupNodes(*grouped, 1), (std::vector<std::string>{"add", "neg2"}));
  EXPECT_EQ(CompareValues(Value(expected), RunFloat(*grouped, {"X"}, {x})[0], {0, 0}), "");

  auto single = MakeSession(model, {ProviderSpec{kDeviceEpName, {{"single", "1"}}}});
  ASSERT_EQ(single->Report().fused_groups.size(), 3u);
  EXPECT_EQ(GroupNodes(*single, 2), (std::vector<std::string>{"neg2"}));
  EXPECT_EQ(CompareValues(Value(expected), RunFloat(*single, {"X"}, {x})[0], {0, 0}), "");
}

TEST(EpSdkAdapterTest, AnEpsMistakesAreClearErrors) {
  RegisterDeviceTestEp();
  PRISM_EXPECT_ERROR(CaptureError([] {
                       MakeSession(DeviceModel(),
                                   {ProviderSpec{kDeviceEpName, {{"mode", "bad_id"}}}},
                                   NoFallback());
                     }),
                     kEpFail,
                     "SdkDeviceTestExecutionProvider accepted node id 123456, which is not in "
                     "the graph it was shown");
  PRISM_EXPECT_ERROR(
      CaptureError([] {
        MakeSession(DeviceModel(), {ProviderSpec{kDeviceEpName, {{"mode", "both"}}}}, NoFallback());
      }),
      kEpFail, "SdkDeviceTestExecutionProvider both accepted and declined Add node 'add'");

  auto silent =
      MakeSession(DeviceModel(), {ProviderSpec{kDeviceEpName, {{"mode", "silent"}}}}, NoFallback());
  const PartitionReport report = silent->Report();
  for (const NodePlacement& node : report.nodes) {
    EXPECT_EQ(node.provider, kCpuExecutionProvider);
    ASSERT_FALSE(node.declined.empty());
    EXPECT_EQ(node.declined[0].second, "SdkDeviceTestExecutionProvider gave no reason");
  }

  auto throwing =
      MakeSession(DeviceModel(), {ProviderSpec{kDeviceEpName, {{"mode", "throw"}}}}, NoFallback());
  const Status thrown = CaptureError([&] { RunFloat(*throwing, {"X"}, {kX}); });
  EXPECT_EQ(thrown.Code(), StatusCode::kEpFail);
  EXPECT_NE(thrown.Message().find("(SdkDeviceTestExecutionProvider) failed: planted failure"),
            std::string::npos)
      << thrown.Message();

  auto lazy = MakeSession(DeviceModel(), {ProviderSpec{kDeviceEpName, {{"mode", "no_output"}}}},
                          NoFallback());
  const Status missing = CaptureError([&] { RunFloat(*lazy, {"X"}, {kX}); });
  EXPECT_EQ(missing.Code(), StatusCode::kEpFail);
  EXPECT_NE(missing.Message().find("(SdkDeviceTestExecutionProvider) did not produce its output 0"),
            std::string::npos)
      << missing.Message();
}

}  // namespace
}  // namespace prism::testing
