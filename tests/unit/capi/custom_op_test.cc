// Custom operators through the C ABI (version 6): ops described by PrismCustomOp tables written
// here as a C program would, registered in a domain, claimed by the CPU EP and listed in the
// partition report; attributes through the kernel info; optional and variadic inputs; the checks
// that name the node; errors from the compute callback; ParallelFor; and libraries loaded by path
// (the example library of examples/custom_op/, built into the build tree).
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../graph/model_builder_util.h"
#include "capi_status_util.h"
#include "prism/prism_c_api.h"

namespace prism::testing {
namespace {

const PrismApi& Api() {
  return *PrismGetApiBase()->GetApi(6);
}

std::pair<PrismErrorCode, std::string> Take(PrismStatus* status) {
  return TakeStatus(Api(), status);
}

#define ASSERT_OK(call)                                               \
  do {                                                                \
    const auto prism_result_ = Take(call);                            \
    ASSERT_EQ(prism_result_.first, PRISM_OK) << prism_result_.second; \
  } while (0)

#define EXPECT_STATUS(call, code, text)                                         \
  do {                                                                          \
    const auto prism_result_ = Take(call);                                      \
    EXPECT_EQ(prism_result_.first, code) << prism_result_.second;               \
    EXPECT_NE(prism_result_.second.find(text), std::string::npos)               \
        << "message '" << prism_result_.second << "' lacks '" << (text) << "'"; \
  } while (0)

constexpr const char* kDomain = "test.custom";

// ---- the ops, written as a C program would ----------------------------------------------------

// What the ops saw, for the tests to check.
struct Record {
  std::mutex mutex;
  float alpha = 0;
  int64_t count = 0;
  std::string mode;
  std::vector<float> weights;
  std::vector<int64_t> axes;
  std::string missing_error;
  std::vector<int> bias_present;  // per compute of OptionalBias: 1 when the bias was given
  std::vector<std::atomic<int>>* marks = nullptr;
  int destroyed = 0;
};
Record g_record;

const char* AddScaledName(const PrismCustomOp*) {
  return "AddScaled";
}
const char* OptionalBiasName(const PrismCustomOp*) {
  return "OptionalBias";
}
const char* SumAllName(const PrismCustomOp*) {
  return "SumAll";
}
const char* FailsName(const PrismCustomOp*) {
  return "Fails";
}
const char* MarkEachName(const PrismCustomOp*) {
  return "MarkEach";
}
const char* NeedsAttributeName(const PrismCustomOp*) {
  return "NeedsAttribute";
}
size_t One(const PrismCustomOp*) {
  return 1;
}
size_t Two(const PrismCustomOp*) {
  return 2;
}
PrismElementType Float(const PrismCustomOp*, size_t) {
  return PRISM_TYPE_FLOAT;
}
PrismCustomOpInputOutputCharacteristic SecondOptional(const PrismCustomOp*, size_t index) {
  return index == 0 ? PRISM_INPUT_OUTPUT_REQUIRED : PRISM_INPUT_OUTPUT_OPTIONAL;
}
PrismCustomOpInputOutputCharacteristic Variadic(const PrismCustomOp*, size_t) {
  return PRISM_INPUT_OUTPUT_VARIADIC;
}

struct Alpha {
  float alpha;
};

// Reads every attribute kind AddScaled's nodes carry; alpha is required.
PrismStatus* AddScaledCreate(const PrismCustomOp*, const PrismApi* api, const PrismKernelInfo* info,
                             void** kernel) {
  float alpha = 0;
  if (PrismStatus* status = api->KernelInfoGetAttributeFloat(info, "alpha", &alpha)) return status;
  std::lock_guard<std::mutex> lock(g_record.mutex);
  g_record.alpha = alpha;
  int has = 0;
  api->KernelInfoHasAttribute(info, "count", &has);
  if (has) api->KernelInfoGetAttributeInt64(info, "count", &g_record.count);
  api->KernelInfoHasAttribute(info, "mode", &has);
  if (has) {
    const char* text = nullptr;
    size_t length = 0;
    api->KernelInfoGetAttributeString(info, "mode", &text, &length);
    g_record.mode.assign(text, length);
  }
  api->KernelInfoHasAttribute(info, "weights", &has);
  if (has) {
    const float* values = nullptr;
    size_t count = 0;
    api->KernelInfoGetAttributeFloats(info, "weights", &values, &count);
    g_record.weights.assign(values, values + count);
  }
  api->KernelInfoHasAttribute(info, "axes", &has);
  if (has) {
    const int64_t* values = nullptr;
    size_t count = 0;
    api->KernelInfoGetAttributeInt64s(info, "axes", &values, &count);
    g_record.axes.assign(values, values + count);
  }
  *kernel = new Alpha{alpha};
  return nullptr;
}

void DestroyAlpha(void* kernel) {
  delete static_cast<Alpha*>(kernel);
  std::lock_guard<std::mutex> lock(g_record.mutex);
  ++g_record.destroyed;
}

// The element count and shape of a float tensor.
std::vector<int64_t> ShapeOf(const PrismValue* value) {
  PrismTensorTypeAndShapeInfo* info = nullptr;
  Api().GetTensorTypeAndShape(value, &info);
  int64_t rank = 0;
  Api().TensorInfoGetRank(info, &rank);
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  Api().TensorInfoGetDimensions(info, dims.data(), dims.size());
  Api().ReleaseTensorTypeAndShapeInfo(info);
  return dims;
}

size_t CountOf(const std::vector<int64_t>& dims) {
  size_t count = 1;
  for (int64_t d : dims) count *= static_cast<size_t>(d);
  return count;
}

const float* FloatsOf(const PrismValue* value) {
  const void* data = nullptr;
  Api().GetTensorData(value, &data);
  return static_cast<const float*>(data);
}

PrismStatus* AddScaledCompute(void* kernel, PrismKernelContext* context) {
  const float alpha = static_cast<Alpha*>(kernel)->alpha;
  const PrismValue* a = nullptr;
  const PrismValue* b = nullptr;
  if (PrismStatus* status = Api().KernelContextGetInput(context, 0, &a)) return status;
  if (PrismStatus* status = Api().KernelContextGetInput(context, 1, &b)) return status;
  const std::vector<int64_t> dims = ShapeOf(a);
  PrismValue* y = nullptr;
  if (PrismStatus* status = Api().KernelContextGetOutput(context, 0, PRISM_TYPE_UNDEFINED,
                                                         dims.data(), dims.size(), &y))
    return status;
  void* out = nullptr;
  Api().GetTensorMutableData(y, &out);
  for (size_t i = 0; i < CountOf(dims); ++i)
    static_cast<float*>(out)[i] = FloatsOf(a)[i] + alpha * FloatsOf(b)[i];
  return nullptr;
}

// Y = X + Bias, or X when the node omits Bias.
PrismStatus* OptionalBiasCompute(void*, PrismKernelContext* context) {
  const PrismValue* x = nullptr;
  const PrismValue* bias = nullptr;
  size_t inputs = 0;
  Api().KernelContextGetInputCount(context, &inputs);
  Api().KernelContextGetInput(context, 0, &x);
  if (inputs > 1) Api().KernelContextGetInput(context, 1, &bias);
  {
    std::lock_guard<std::mutex> lock(g_record.mutex);
    g_record.bias_present.push_back(bias != nullptr ? 1 : 0);
  }
  const std::vector<int64_t> dims = ShapeOf(x);
  PrismValue* y = nullptr;
  if (PrismStatus* status =
          Api().KernelContextGetOutput(context, 0, PRISM_TYPE_FLOAT, dims.data(), dims.size(), &y))
    return status;
  void* out = nullptr;
  Api().GetTensorMutableData(y, &out);
  for (size_t i = 0; i < CountOf(dims); ++i)
    static_cast<float*>(out)[i] = FloatsOf(x)[i] + (bias != nullptr ? FloatsOf(bias)[i] : 0.0f);
  return nullptr;
}

PrismStatus* SumAllCompute(void*, PrismKernelContext* context) {
  size_t inputs = 0;
  Api().KernelContextGetInputCount(context, &inputs);
  const PrismValue* first = nullptr;
  Api().KernelContextGetInput(context, 0, &first);
  const std::vector<int64_t> dims = ShapeOf(first);
  PrismValue* y = nullptr;
  if (PrismStatus* status =
          Api().KernelContextGetOutput(context, 0, PRISM_TYPE_FLOAT, dims.data(), dims.size(), &y))
    return status;
  void* out = nullptr;
  Api().GetTensorMutableData(y, &out);
  for (size_t i = 0; i < CountOf(dims); ++i) {
    float sum = 0;
    for (size_t k = 0; k < inputs; ++k) {
      const PrismValue* x = nullptr;
      Api().KernelContextGetInput(context, k, &x);
      sum += FloatsOf(x)[i];
    }
    static_cast<float*>(out)[i] = sum;
  }
  return nullptr;
}

PrismStatus* FailsCompute(void*, PrismKernelContext*) {
  return Api().CreateStatus(PRISM_INVALID_ARGUMENT, "deliberate failure in the callback");
}

void Mark(void* user_data, size_t index) {
  (*static_cast<std::vector<std::atomic<int>>*>(user_data))[index].fetch_add(1);
}

// Marks each element index of X once through ParallelFor, then copies X.
PrismStatus* MarkEachCompute(void*, PrismKernelContext* context) {
  const PrismValue* x = nullptr;
  Api().KernelContextGetInput(context, 0, &x);
  const std::vector<int64_t> dims = ShapeOf(x);
  const size_t count = CountOf(dims);
  if (PrismStatus* status = Api().KernelContextParallelFor(context, Mark, g_record.marks, count, 0))
    return status;
  if (PrismStatus* status = Api().KernelContextParallelFor(context, Mark, g_record.marks, count, 7))
    return status;
  PrismValue* y = nullptr;
  if (PrismStatus* status =
          Api().KernelContextGetOutput(context, 0, PRISM_TYPE_FLOAT, dims.data(), dims.size(), &y))
    return status;
  void* out = nullptr;
  Api().GetTensorMutableData(y, &out);
  std::memcpy(out, FloatsOf(x), count * sizeof(float));
  return nullptr;
}

PrismStatus* NeedsAttributeCreate(const PrismCustomOp*, const PrismApi* api,
                                  const PrismKernelInfo* info, void**) {
  int64_t k = 0;
  return api->KernelInfoGetAttributeInt64(info, "k", &k);  // the node has none
}

PrismCustomOp MakeOp(const char* (*name)(const PrismCustomOp*),
                     PrismStatus* (*compute)(void*, PrismKernelContext*)) {
  PrismCustomOp op{};
  op.version = PRISM_CUSTOM_OP_VERSION;
  op.GetName = name;
  op.GetInputTypeCount = One;
  op.GetInputType = Float;
  op.GetOutputTypeCount = One;
  op.GetOutputType = Float;
  op.KernelCompute = compute;
  return op;
}

const PrismCustomOp kAddScaled = [] {
  PrismCustomOp op = MakeOp(AddScaledName, AddScaledCompute);
  op.GetInputTypeCount = Two;
  op.CreateKernel = AddScaledCreate;
  op.KernelDestroy = DestroyAlpha;
  return op;
}();
const PrismCustomOp kOptionalBias = [] {
  PrismCustomOp op = MakeOp(OptionalBiasName, OptionalBiasCompute);
  op.GetInputTypeCount = Two;
  op.GetInputCharacteristic = SecondOptional;
  return op;
}();
const PrismCustomOp kSumAll = [] {
  PrismCustomOp op = MakeOp(SumAllName, SumAllCompute);
  op.GetInputCharacteristic = Variadic;
  return op;
}();
const PrismCustomOp kFails = MakeOp(FailsName, FailsCompute);
const PrismCustomOp kMarkEach = MakeOp(MarkEachName, MarkEachCompute);
const PrismCustomOp kNeedsAttribute = [] {
  PrismCustomOp op = MakeOp(NeedsAttributeName, FailsCompute);
  op.CreateKernel = NeedsAttributeCreate;
  return op;
}();

// ---- models and sessions ----------------------------------------------------------------------

onnx::ModelProto CustomModel() {
  onnx::ModelProto model = MakeModel();
  auto* import = model.add_opset_import();
  import->set_domain(kDomain);
  import->set_version(1);
  return model;
}

void AddFloatAttr(onnx::NodeProto* node, const std::string& name, float value) {
  auto* attr = node->add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::FLOAT);
  attr->set_f(value);
}

// One custom node over float inputs (of shape [2, 3] unless told), its output Y of unknown shape.
onnx::ModelProto OneNodeModel(const std::string& op, const std::vector<std::string>& inputs,
                              int32_t second_type = onnx::TensorProto::FLOAT,
                              const std::vector<DimSpec>& dims = {2, 3}) {
  onnx::ModelProto model = CustomModel();
  auto* graph = model.mutable_graph();
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].empty()) continue;
    bool seen = false;
    for (const std::string& name : names) seen = seen || name == inputs[i];
    if (seen) continue;
    names.push_back(inputs[i]);
    AddInput(graph, inputs[i], i == 1 ? second_type : onnx::TensorProto::FLOAT, dims);
  }
  AddNode(graph, op, inputs, {"Y"}, "n1", kDomain);
  AddOutput(graph, "Y", onnx::TensorProto::FLOAT);
  return model;
}

struct Session {
  PrismEnv* env = nullptr;
  PrismSessionOptions* options = nullptr;
  PrismSession* session = nullptr;
  ~Session() {
    Api().ReleaseSession(session);
    Api().ReleaseSessionOptions(options);
    Api().ReleaseEnv(env);
  }
};

// Options with a domain of the given ops (none: no domain at all).
void MakeOptions(Session& s, const std::vector<const PrismCustomOp*>& ops, int threads = 1) {
  // The default severity: CreateEnv sets it for the process, and later tests expect warnings.
  ASSERT_OK(Api().CreateEnv(PRISM_LOGGING_WARNING, "custom-op-test", &s.env));
  ASSERT_OK(Api().CreateSessionOptions(&s.options));
  ASSERT_OK(Api().SetIntraOpNumThreads(s.options, threads));
  if (ops.empty()) return;
  PrismCustomOpDomain* domain = nullptr;
  ASSERT_OK(Api().CreateCustomOpDomain(kDomain, &domain));
  for (const PrismCustomOp* op : ops) ASSERT_OK(Api().CustomOpDomainAdd(domain, op));
  ASSERT_OK(Api().AddCustomOpDomain(s.options, domain));
  Api().ReleaseCustomOpDomain(domain);  // the options keep a snapshot
}

PrismStatus* CreateSession(Session& s, const onnx::ModelProto& model) {
  const std::string bytes = model.SerializeAsString();
  return Api().CreateSessionFromArray(s.env, bytes.data(), bytes.size(), s.options, &s.session);
}

// Runs with float inputs of shape `dims` named in order; returns Y's values, or fails the test.
std::vector<float> RunY(Session& s, const std::vector<std::string>& names,
                        std::vector<std::vector<float>> feeds, const std::vector<int64_t>& dims,
                        std::string* error = nullptr) {
  PrismMemoryInfo* cpu = nullptr;
  Api().CreateCpuMemoryInfo(PRISM_DEVICE_ALLOCATOR, PRISM_MEM_DEFAULT, &cpu);
  std::vector<PrismValue*> values;
  std::vector<const char*> c_names;
  for (size_t i = 0; i < feeds.size(); ++i) {
    PrismValue* value = nullptr;
    Take(Api().CreateTensorWithDataAsValue(cpu, feeds[i].data(), feeds[i].size() * sizeof(float),
                                           dims.data(), dims.size(), PRISM_TYPE_FLOAT, &value));
    values.push_back(value);
    c_names.push_back(names[i].c_str());
  }
  const char* output_name = "Y";
  PrismValue* y = nullptr;
  const auto result = Take(Api().Run(s.session, nullptr, c_names.data(), values.data(),
                                     values.size(), &output_name, 1, &y));
  std::vector<float> out;
  if (result.first == PRISM_OK) {
    void* data = nullptr;
    Api().GetTensorMutableData(y, &data);
    size_t bytes = 0;
    Api().GetTensorSizeInBytes(y, &bytes);
    out.assign(static_cast<float*>(data), static_cast<float*>(data) + bytes / sizeof(float));
  } else if (error != nullptr) {
    *error = result.second;
  } else {
    ADD_FAILURE() << result.second;
  }
  Api().ReleaseValue(y);
  for (PrismValue* value : values) Api().ReleaseValue(value);
  Api().ReleaseMemoryInfo(cpu);
  return out;
}

std::string Report(const Session& s) {
  char* text = nullptr;
  Take(Api().SessionGetPartitionReport(s.session, PRISM_REPORT_TEXT, &text));
  std::string report = text != nullptr ? text : "";
  Api().ReleaseString(text);
  return report;
}

// ---- tests ------------------------------------------------------------------------------------

TEST(CustomOpTest, CpuEpClaimsTheOpAndTheReportListsIt) {
  Session s;
  MakeOptions(s, {&kAddScaled});
  onnx::ModelProto model = OneNodeModel("AddScaled", {"A", "B"});
  AddFloatAttr(model.mutable_graph()->mutable_node(0), "alpha", 0.5f);
  ASSERT_OK(CreateSession(s, model));
  EXPECT_NE(Report(s).find("n1 (AddScaled, opset 1, custom op of domain 'test.custom') -> "
                           "CPUExecutionProvider"),
            std::string::npos)
      << Report(s);
  const std::vector<float> y =
      RunY(s, {"A", "B"}, {{1, 2, 3, 4, 5, 6}, {10, 20, 30, 40, 50, 60}}, {2, 3});
  EXPECT_EQ(y, (std::vector<float>{6, 12, 18, 24, 30, 36}));
}

TEST(CustomOpTest, KernelInfoReadsEveryAttributeKind) {
  Session s;
  MakeOptions(s, {&kAddScaled});
  onnx::ModelProto model = OneNodeModel("AddScaled", {"A", "B"});
  auto* node = model.mutable_graph()->mutable_node(0);
  AddFloatAttr(node, "alpha", -2.5f);
  auto* count = node->add_attribute();
  count->set_name("count");
  count->set_type(onnx::AttributeProto::INT);
  count->set_i(42);
  auto* mode = node->add_attribute();
  mode->set_name("mode");
  mode->set_type(onnx::AttributeProto::STRING);
  mode->set_s(std::string("fa\0st", 5));
  auto* weights = node->add_attribute();
  weights->set_name("weights");
  weights->set_type(onnx::AttributeProto::FLOATS);
  for (float w : {0.25f, 4.0f}) weights->add_floats(w);
  AddIntsAttr(node, "axes", {-1, 0, 7});
  const int destroyed_before = g_record.destroyed;
  ASSERT_OK(CreateSession(s, model));
  EXPECT_EQ(g_record.alpha, -2.5f);
  EXPECT_EQ(g_record.count, 42);
  EXPECT_EQ(g_record.mode, std::string("fa\0st", 5));
  EXPECT_EQ(g_record.weights, (std::vector<float>{0.25f, 4.0f}));
  EXPECT_EQ(g_record.axes, (std::vector<int64_t>{-1, 0, 7}));
  // The kernel state goes with the session.
  Api().ReleaseSession(s.session);
  s.session = nullptr;
  EXPECT_EQ(g_record.destroyed, destroyed_before + 1);
}

TEST(CustomOpTest, MissingOrMistypedAttributeFailsNamingTheNode) {
  Session s;
  MakeOptions(s, {&kAddScaled, &kNeedsAttribute});
  // AddScaled requires alpha: the status its CreateKernel passes on fails session creation.
  EXPECT_STATUS(CreateSession(s, OneNodeModel("AddScaled", {"A", "B"})), PRISM_INVALID_ARGUMENT,
                "node 'n1' (custom op 'AddScaled' of domain 'test.custom') has no attribute "
                "'alpha'");
  onnx::ModelProto model = OneNodeModel("NeedsAttribute", {"A"});
  AddFloatAttr(model.mutable_graph()->mutable_node(0), "k", 1.0f);
  EXPECT_STATUS(CreateSession(s, model), PRISM_INVALID_ARGUMENT,
                "attribute 'k' of node 'n1' (custom op 'NeedsAttribute' of domain 'test.custom') "
                "is of type float, not int");
}

TEST(CustomOpTest, OptionalInputMayBeOmitted) {
  Session s;
  MakeOptions(s, {&kOptionalBias});
  Session with_bias;
  MakeOptions(with_bias, {&kOptionalBias});
  g_record.bias_present.clear();
  // Omitted by an empty name, then left off at the end, then given.
  ASSERT_OK(CreateSession(s, OneNodeModel("OptionalBias", {"X", ""})));
  EXPECT_EQ(RunY(s, {"X"}, {{1, 2, 3, 4, 5, 6}}, {2, 3}), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  Session short_node;
  MakeOptions(short_node, {&kOptionalBias});
  ASSERT_OK(CreateSession(short_node, OneNodeModel("OptionalBias", {"X"})));
  EXPECT_EQ(RunY(short_node, {"X"}, {{1, 1, 1, 1, 1, 1}}, {2, 3}),
            (std::vector<float>{1, 1, 1, 1, 1, 1}));
  ASSERT_OK(CreateSession(with_bias, OneNodeModel("OptionalBias", {"X", "Bias"})));
  EXPECT_EQ(RunY(with_bias, {"X", "Bias"}, {{1, 2, 3, 4, 5, 6}, {1, 1, 1, 1, 1, 1}}, {2, 3}),
            (std::vector<float>{2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(g_record.bias_present, (std::vector<int>{0, 0, 1}));
}

TEST(CustomOpTest, VariadicInputsTakeAnyCountFromTheMinimum) {
  for (size_t count : {1u, 2u, 5u}) {
    Session s;
    MakeOptions(s, {&kSumAll});
    std::vector<std::string> names;
    std::vector<std::vector<float>> feeds;
    for (size_t k = 0; k < count; ++k) {
      names.push_back("X" + std::to_string(k));
      feeds.push_back(std::vector<float>(6, static_cast<float>(k + 1)));
    }
    ASSERT_OK(CreateSession(s, OneNodeModel("SumAll", names)));
    const float sum = static_cast<float>(count * (count + 1) / 2);
    EXPECT_EQ(RunY(s, names, feeds, {2, 3}), std::vector<float>(6, sum)) << count << " inputs";
  }
  // Homogeneous by default: one int64 among floats is refused, naming the node.
  Session mixed;
  MakeOptions(mixed, {&kSumAll});
  EXPECT_STATUS(
      CreateSession(mixed, OneNodeModel("SumAll", {"X0", "X1"}, onnx::TensorProto::INT64)),
      PRISM_NOT_IMPLEMENTED,
      "custom op 'SumAll' of domain 'test.custom' expects input 1 of type "
      "tensor(float), but 'X1' of node 'n1' is tensor(int64)");
}

TEST(CustomOpTest, WrongCountOrTypeFailsNamingTheNode) {
  Session s;
  MakeOptions(s, {&kAddScaled});
  onnx::ModelProto three = OneNodeModel("AddScaled", {"A", "B", "C"});
  AddFloatAttr(three.mutable_graph()->mutable_node(0), "alpha", 1.0f);
  EXPECT_STATUS(CreateSession(s, three), PRISM_NOT_IMPLEMENTED,
                "custom op 'AddScaled' of domain 'test.custom' expects 2 inputs, node 'n1' has 3");
  onnx::ModelProto int_b = OneNodeModel("AddScaled", {"A", "B"}, onnx::TensorProto::INT64);
  AddFloatAttr(int_b.mutable_graph()->mutable_node(0), "alpha", 1.0f);
  EXPECT_STATUS(CreateSession(s, int_b), PRISM_NOT_IMPLEMENTED,
                "custom op 'AddScaled' of domain 'test.custom' expects input 1 of type "
                "tensor(float), but 'B' of node 'n1' is tensor(int64)");
}

TEST(CustomOpTest, ComputeErrorFailsTheRunWithItsMessageAndTheNode) {
  Session s;
  MakeOptions(s, {&kFails});
  ASSERT_OK(CreateSession(s, OneNodeModel("Fails", {"X"})));
  std::string error;
  RunY(s, {"X"}, {{1, 2, 3, 4, 5, 6}}, {2, 3}, &error);
  EXPECT_NE(error.find("Fails node 'n1' (CPUExecutionProvider) failed: custom op 'Fails' of "
                       "domain 'test.custom': deliberate failure in the callback"),
            std::string::npos)
      << error;
}

TEST(CustomOpTest, ParallelForCoversEveryIndexOnce) {
  for (int threads : {1, 4}) {
    Session s;
    MakeOptions(s, {&kMarkEach}, threads);
    ASSERT_OK(
        CreateSession(s, OneNodeModel("MarkEach", {"X"}, onnx::TensorProto::FLOAT, {6, 1000})));
    std::vector<std::atomic<int>> marks(6 * 1000);
    g_record.marks = &marks;
    std::vector<float> x(marks.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    EXPECT_EQ(RunY(s, {"X"}, {x}, {6, 1000}), x);
    for (size_t i = 0; i < marks.size(); ++i)
      ASSERT_EQ(marks[i].load(), 2) << "index " << i << " with " << threads << " threads";
    g_record.marks = nullptr;
  }
}

TEST(CustomOpTest, UnregisteredDomainSaysHowToRegisterIt) {
  Session s;
  MakeOptions(s, {});
  EXPECT_STATUS(CreateSession(s, OneNodeModel("Fails", {"X"})), PRISM_NOT_IMPLEMENTED,
                "domain 'test.custom' is neither built in nor registered as a custom op domain");
}

TEST(CustomOpTest, BadOpTablesAreRefusedWhenAdded) {
  PrismCustomOpDomain* domain = nullptr;
  ASSERT_OK(Api().CreateCustomOpDomain(kDomain, &domain));
  PrismCustomOp op = kFails;
  op.version = 99;
  EXPECT_STATUS(Api().CustomOpDomainAdd(domain, &op), PRISM_INVALID_ARGUMENT,
                "PrismCustomOp version 99 is not supported");
  op = kFails;
  op.KernelCompute = nullptr;
  EXPECT_STATUS(Api().CustomOpDomainAdd(domain, &op), PRISM_INVALID_ARGUMENT,
                "custom op 'Fails' of domain 'test.custom' has no KernelCompute");
  op = kOptionalBias;
  op.GetInputCharacteristic = Variadic;  // both inputs variadic: only the last may be
  EXPECT_STATUS(Api().CustomOpDomainAdd(domain, &op), PRISM_INVALID_ARGUMENT,
                "makes input 0 of 2 variadic: only the last one may be");
  // The same op twice in one session's options.
  ASSERT_OK(Api().CustomOpDomainAdd(domain, &kFails));
  PrismSessionOptions* options = nullptr;
  ASSERT_OK(Api().CreateSessionOptions(&options));
  ASSERT_OK(Api().AddCustomOpDomain(options, domain));
  EXPECT_STATUS(Api().AddCustomOpDomain(options, domain), PRISM_INVALID_ARGUMENT,
                "custom op 'Fails' of domain 'test.custom' is registered twice");
  Api().ReleaseSessionOptions(options);
  Api().ReleaseCustomOpDomain(domain);
  EXPECT_EQ(Api().CreateStatus(PRISM_OK, "fine"), nullptr);
  EXPECT_STATUS(Api().CreateStatus(static_cast<PrismErrorCode>(1234), "odd code"), PRISM_FAIL,
                "odd code");
}

const std::string kExampleLibrary =
    std::string(PRISM_BINARY_DIR) + "/custom-op-example/libprism_example_custom_ops.so";

TEST(CustomOpTest, LibraryLoadedByPathRegistersItsOps) {
  Session s;
  MakeOptions(s, {});
  void* handle = nullptr;
  ASSERT_OK(Api().RegisterCustomOpsLibrary(s.options, kExampleLibrary.c_str(), &handle));
  EXPECT_NE(handle, nullptr);
  onnx::ModelProto model = MakeModel();
  auto* import = model.add_opset_import();
  import->set_domain("prism.example");
  import->set_version(1);
  auto* graph = model.mutable_graph();
  AddInput(graph, "A", onnx::TensorProto::FLOAT, {2, 3});
  AddInput(graph, "B", onnx::TensorProto::FLOAT, {2, 3});
  AddFloatAttr(AddNode(graph, "AddScaled", {"A", "B"}, {"T"}, "scale", "prism.example"), "alpha",
               2.0f);
  AddNode(graph, "SumAll", {"T", "A", "B"}, {"Y"}, "sum", "prism.example");
  AddOutput(graph, "Y", onnx::TensorProto::FLOAT);
  // The options may go before the session: the session keeps the library loaded.
  ASSERT_OK(CreateSession(s, model));
  Api().ReleaseSessionOptions(s.options);
  s.options = nullptr;
  // T = A + 2B; Y = T + A + B = 2A + 3B.
  EXPECT_EQ(RunY(s, {"A", "B"}, {{1, 2, 3, 4, 5, 6}, {1, 0, -1, 2, 0, -2}}, {2, 3}),
            (std::vector<float>{5, 4, 3, 14, 10, 6}));
  const std::string report = Report(s);
  EXPECT_NE(report.find("scale (AddScaled, opset 1, custom op of domain 'prism.example') -> "
                        "CPUExecutionProvider"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("sum (SumAll, opset 1, custom op of domain 'prism.example') -> "
                        "CPUExecutionProvider"),
            std::string::npos)
      << report;
}

TEST(CustomOpTest, LibraryLoadErrorsAreClear) {
  PrismSessionOptions* options = nullptr;
  ASSERT_OK(Api().CreateSessionOptions(&options));
  EXPECT_STATUS(Api().RegisterCustomOpsLibrary(options, "/nonexistent/libcustom.so", nullptr),
                PRISM_NO_SUCHFILE, "custom op library '/nonexistent/libcustom.so' does not exist");
  // A shared library without RegisterCustomOps: the test EP plugin.
  const std::string plugin = std::string(PRISM_BINARY_DIR) + "/libprism_provider_test.so";
  EXPECT_STATUS(Api().RegisterCustomOpsLibrary(options, plugin.c_str(), nullptr),
                PRISM_INVALID_ARGUMENT, "does not export RegisterCustomOps");
  // A file that is no library at all.
  const std::string source = std::string(PRISM_SOURCE_DIR) + "/examples/custom_op/custom_ops.c";
  EXPECT_STATUS(Api().RegisterCustomOpsLibrary(options, source.c_str(), nullptr),
                PRISM_INVALID_ARGUMENT, "cannot load custom op library");
  Api().ReleaseSessionOptions(options);
}

}  // namespace
}  // namespace prism::testing
