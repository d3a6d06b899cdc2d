// Model and session adjustments through the C ABI (version 7): free dimension overrides by name
// and by denotation, AddInitializer over caller memory (no copy), AddExternalInitializers and
// external data files in memory for a model loaded from bytes without its folder, and the folder
// given by session.model_external_initializers_file_folder_path with the file loader's path
// rules. Values are hand-checked (y = x + w).
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "../graph/model_builder_util.h"
#include "capi_status_util.h"
#include "prism/prism_c_api.h"

namespace prism::testing {
namespace {

const PrismApi& Api() {
  return *PrismGetApiBase()->GetApi(7);
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

constexpr const char* kFolderKey = "session.model_external_initializers_file_folder_path";

// y = x + w: x float[N, 4] (dim 0 with the given denotation, or fixed when fixed >= 0), w float[4]
// = {1, 1, 1, 1}.
onnx::ModelProto AddModel(const std::string& denotation = "", int64_t fixed = -1) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  auto* x = AddInput(graph, "x", onnx::TensorProto::FLOAT, {"N", 4});
  auto* dim = x->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
  if (fixed >= 0) dim->set_dim_value(fixed);
  if (!denotation.empty()) dim->set_denotation(denotation);
  AddFloatInitializer(graph, "w", {4}, {1.f, 1.f, 1.f, 1.f});
  AddNode(graph, "Add", {"x", "w"}, {"y"}, "add");
  AddOutput(graph, "y", onnx::TensorProto::FLOAT);
  return model;
}

// y = x + W with W float[2] stored externally at location (offset 8 when offset is set).
onnx::ModelProto ExternalModel(const std::string& location, bool offset = true) {
  onnx::ModelProto model = MakeModel();
  auto* graph = model.mutable_graph();
  AddInput(graph, "x", onnx::TensorProto::FLOAT, {2});
  auto* init = graph->add_initializer();
  init->set_name("W");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(2);
  init->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* entry = init->add_external_data();
  entry->set_key("location");
  entry->set_value(location);
  if (offset) {
    entry = init->add_external_data();
    entry->set_key("offset");
    entry->set_value("8");
    entry = init->add_external_data();
    entry->set_key("length");
    entry->set_value("8");
  }
  AddNode(graph, "Add", {"x", "W"}, {"y"}, "add");
  AddOutput(graph, "y", onnx::TensorProto::FLOAT);
  return model;
}

struct Session {
  PrismEnv* env = nullptr;
  PrismSessionOptions* options = nullptr;
  PrismSession* session = nullptr;
  PrismMemoryInfo* cpu = nullptr;
  std::vector<PrismValue*> values;  // released at the end
  Session() {
    Take(Api().CreateEnv(PRISM_LOGGING_WARNING, "session-adjustments-test", &env));
    Take(Api().CreateSessionOptions(&options));
    Take(Api().CreateCpuMemoryInfo(PRISM_DEVICE_ALLOCATOR, PRISM_MEM_DEFAULT, &cpu));
  }
  ~Session() {
    Api().ReleaseSession(session);
    Api().ReleaseSessionOptions(options);
    for (PrismValue* value : values) Api().ReleaseValue(value);
    Api().ReleaseMemoryInfo(cpu);
    Api().ReleaseEnv(env);
  }
  PrismStatus* Create(const onnx::ModelProto& model) {
    Api().ReleaseSession(session);
    session = nullptr;
    const std::string bytes = model.SerializeAsString();
    return Api().CreateSessionFromArray(env, bytes.data(), bytes.size(), options, &session);
  }
  // A float tensor over data (caller memory, not copied).
  PrismValue* Tensor(std::vector<float>& data, const std::vector<int64_t>& dims) {
    PrismValue* value = nullptr;
    Take(Api().CreateTensorWithDataAsValue(cpu, data.data(), data.size() * sizeof(float),
                                           dims.data(), dims.size(), PRISM_TYPE_FLOAT, &value));
    values.push_back(value);
    return value;
  }
  // Runs with x of shape dims; returns y, or "" and the error in *error.
  std::vector<float> Run(std::vector<float> x, const std::vector<int64_t>& dims,
                         std::string* error = nullptr) {
    const PrismValue* input = Tensor(x, dims);
    const char* input_name = "x";
    const char* output_name = "y";
    PrismValue* y = nullptr;
    const auto result =
        Take(Api().Run(session, nullptr, &input_name, &input, 1, &output_name, 1, &y));
    std::vector<float> out;
    if (result.first == PRISM_OK) {
      void* data = nullptr;
      size_t bytes = 0;
      Take(Api().GetTensorMutableData(y, &data));
      Take(Api().GetTensorSizeInBytes(y, &bytes));
      out.assign(static_cast<float*>(data), static_cast<float*>(data) + bytes / sizeof(float));
    } else if (error != nullptr) {
      *error = result.second;
    } else {
      ADD_FAILURE() << result.second;
    }
    Api().ReleaseValue(y);
    return out;
  }
  std::vector<int64_t> InputDims() {
    PrismTypeInfo* info = nullptr;
    Take(Api().SessionGetInputTypeInfo(session, 0, &info));
    const PrismTensorTypeAndShapeInfo* tensor = nullptr;
    Take(Api().TypeInfoGetTensorInfo(info, &tensor));
    int64_t rank = 0;
    Take(Api().TensorInfoGetRank(tensor, &rank));
    std::vector<int64_t> dims(static_cast<size_t>(rank));
    Take(Api().TensorInfoGetDimensions(tensor, dims.data(), dims.size()));
    Api().ReleaseTypeInfo(info);
    return dims;
  }
};

std::string FloatBytes(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

TEST(SessionAdjustmentsTest, OverrideByNameFixesTheInputShape) {
  Session s;
  ASSERT_OK(s.Create(AddModel()));
  EXPECT_EQ(s.InputDims(), (std::vector<int64_t>{-1, 4}));
  ASSERT_OK(Api().AddFreeDimensionOverrideByName(s.options, "N", 2));
  ASSERT_OK(s.Create(AddModel()));
  EXPECT_EQ(s.InputDims(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(s.Run({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4}), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  std::string error;
  EXPECT_TRUE(s.Run({0, 1, 2, 3}, {1, 4}, &error).empty());
  EXPECT_NE(error.find("input 'x' expects shape [2,4], got [1,4] (dimension 0)"), std::string::npos)
      << error;
}

TEST(SessionAdjustmentsTest, OverrideByDenotationIgnoresCaseAndRefusesAnotherFixedValue) {
  Session s;
  ASSERT_OK(Api().AddFreeDimensionOverride(s.options, "data_batch", 3));
  ASSERT_OK(s.Create(AddModel("DATA_BATCH")));
  EXPECT_EQ(s.InputDims(), (std::vector<int64_t>{3, 4}));
  ASSERT_OK(s.Create(AddModel("DATA_BATCH", 3)));  // already fixed to the same value
  EXPECT_STATUS(s.Create(AddModel("DATA_BATCH", 5)), PRISM_INVALID_ARGUMENT,
                "free dimension override by denotation 'data_batch' = 3: dimension 0 of input "
                "'x' is fixed to 5 in the model");
  // A later call replaces the value; a by-name override that disagrees on the same dim fails.
  ASSERT_OK(Api().AddFreeDimensionOverride(s.options, "DATA_BATCH", 1));
  ASSERT_OK(s.Create(AddModel("DATA_BATCH")));
  EXPECT_EQ(s.InputDims(), (std::vector<int64_t>{1, 4}));
  ASSERT_OK(Api().AddFreeDimensionOverrideByName(s.options, "N", 2));
  EXPECT_STATUS(s.Create(AddModel("DATA_BATCH")), PRISM_INVALID_ARGUMENT,
                "dimension 0 of input 'x' is overridden to 1 by denotation 'DATA_BATCH' and to 2 "
                "by name 'N'");
}

TEST(SessionAdjustmentsTest, OverrideArgumentsAreChecked) {
  Session s;
  EXPECT_STATUS(Api().AddFreeDimensionOverrideByName(s.options, "N", -1), PRISM_INVALID_ARGUMENT,
                "AddFreeDimensionOverrideByName: the value for dim_name 'N' must be >= 0, got -1");
  EXPECT_STATUS(Api().AddFreeDimensionOverride(s.options, "", 1), PRISM_INVALID_ARGUMENT,
                "dim_denotation must not be empty");
  EXPECT_STATUS(Api().AddFreeDimensionOverride(s.options, nullptr, 1), PRISM_INVALID_ARGUMENT,
                "dim_denotation");
  EXPECT_STATUS(Api().AddFreeDimensionOverride(nullptr, "N", 1), PRISM_INVALID_ARGUMENT, "options");
  // A rejected call adds nothing.
  ASSERT_OK(s.Create(AddModel()));
  EXPECT_EQ(s.InputDims(), (std::vector<int64_t>{-1, 4}));
}

TEST(SessionAdjustmentsTest, AddInitializerUsesTheCallersMemory) {
  Session s;
  std::vector<float> w = {10, 20, 30, 40};
  ASSERT_OK(Api().SetGraphOptimizationLevel(s.options, PRISM_DISABLE_ALL));
  ASSERT_OK(Api().AddInitializer(s.options, "w", s.Tensor(w, {4})));
  ASSERT_OK(s.Create(AddModel()));
  EXPECT_EQ(s.Run({1, 1, 1, 1}, {1, 4}), (std::vector<float>{11, 21, 31, 41}));
  w = {5, 6, 7, 8};  // no copy: the session reads this memory
  EXPECT_EQ(s.Run({1, 1, 1, 1}, {1, 4}), (std::vector<float>{6, 7, 8, 9}));
  // Clones carry the initializer.
  PrismSessionOptions* clone = nullptr;
  ASSERT_OK(Api().CloneSessionOptions(s.options, &clone));
  std::swap(clone, s.options);
  ASSERT_OK(s.Create(AddModel()));
  EXPECT_EQ(s.Run({0, 0, 0, 0}, {1, 4}), (std::vector<float>{5, 6, 7, 8}));
  Api().ReleaseSessionOptions(clone);
}

TEST(SessionAdjustmentsTest, AddInitializerErrorsNameTheInitializer) {
  Session s;
  std::vector<float> five = {1, 2, 3, 4, 5};
  ASSERT_OK(Api().AddInitializer(s.options, "w", s.Tensor(five, {5})));
  EXPECT_STATUS(s.Create(AddModel()), PRISM_INVALID_ARGUMENT,
                "AddInitializer: initializer 'w' is declared as tensor(float)[4] but the value "
                "given is tensor(float)[5]");
  std::vector<float> four = {1, 2, 3, 4};
  ASSERT_OK(Api().AddInitializer(s.options, "w", s.Tensor(four, {1, 4})));
  EXPECT_STATUS(s.Create(AddModel()), PRISM_INVALID_ARGUMENT,
                "declared as tensor(float)[4] but the value given is tensor(float)[1,4]");
  PrismSessionOptions* other = nullptr;
  ASSERT_OK(Api().CreateSessionOptions(&other));
  std::swap(other, s.options);
  ASSERT_OK(Api().AddInitializer(s.options, "nope", s.Tensor(four, {4})));
  EXPECT_STATUS(s.Create(AddModel()), PRISM_INVALID_ARGUMENT,
                "AddInitializer: the model has no initializer named 'nope'");
  Api().ReleaseSessionOptions(s.options);
  ASSERT_OK(Api().CreateSessionOptions(&s.options));
  std::vector<float> x(8);
  ASSERT_OK(Api().AddInitializer(s.options, "x", s.Tensor(x, {2, 4})));
  EXPECT_STATUS(s.Create(AddModel()), PRISM_INVALID_ARGUMENT,
                "AddInitializer: 'x' is an input of the model without an initializer");
  Api().ReleaseSessionOptions(other);
  // Values that are no CPU tensor are refused when added.
  PrismValue* optional = nullptr;
  ASSERT_OK(Api().CreateEmptyOptionalValue(&optional));
  s.values.push_back(optional);
  EXPECT_STATUS(Api().AddInitializer(s.options, "w", optional), PRISM_INVALID_ARGUMENT,
                "AddInitializer: initializer 'w' must be given a tensor");
  PrismMemoryInfo* device = nullptr;
  ASSERT_OK(
      Api().CreateMemoryInfo("TestDevice", PRISM_DEVICE_ALLOCATOR, 0, PRISM_MEM_DEFAULT, &device));
  PrismValue* on_device = nullptr;
  const int64_t dims[] = {4};
  const auto made = Take(Api().CreateTensorWithDataAsValue(device, four.data(), 16, dims, 1,
                                                           PRISM_TYPE_FLOAT, &on_device));
  Api().ReleaseMemoryInfo(device);
  ASSERT_EQ(made.first, PRISM_OK) << made.second;  // wrapping memory of a device is allowed
  s.values.push_back(on_device);
  EXPECT_STATUS(Api().AddInitializer(s.options, "w", on_device), PRISM_INVALID_ARGUMENT,
                "AddInitializer: initializer 'w' must be given a tensor in CPU memory, got one in "
                "TestDevice:0 memory");
  EXPECT_STATUS(Api().AddInitializer(s.options, "w", nullptr), PRISM_INVALID_ARGUMENT, "value");
}

TEST(SessionAdjustmentsTest, BytesWithExternalDataNeedAFolderOrMemory) {
  Session s;
  EXPECT_STATUS(s.Create(ExternalModel("weights.bin")), PRISM_INVALID_ARGUMENT,
                "initializer 'W' of graph main uses external data, but the model was loaded from "
                "bytes without a folder: set session config entry "
                "session.model_external_initializers_file_folder_path to the folder holding its "
                "file 'weights.bin'");
}

TEST(SessionAdjustmentsTest, FolderConfigEntryResolvesExternalDataWithTheFileRules) {
  TempDir dir;
  dir.Write("weights.bin", FloatBytes({1, 2, 3, 4}));
  Session s;
  ASSERT_OK(Api().AddSessionConfigEntry(s.options, kFolderKey, dir.Path().c_str()));
  ASSERT_OK(s.Create(ExternalModel("weights.bin")));
  EXPECT_EQ(s.Run({10, 20}, {2}), (std::vector<float>{13, 24}));
  std::filesystem::create_directory(dir.File("inner"));
  ASSERT_OK(Api().AddSessionConfigEntry(s.options, kFolderKey, dir.File("inner").c_str()));
  EXPECT_STATUS(s.Create(ExternalModel("../weights.bin")), PRISM_INVALID_ARGUMENT,
                "initializer 'W' of graph main: external data location '../weights.bin' leaves "
                "the model's folder");
  EXPECT_STATUS(s.Create(ExternalModel(dir.File("weights.bin"))), PRISM_INVALID_ARGUMENT,
                "is an absolute path; it must be relative to the model's folder");
}

TEST(SessionAdjustmentsTest, ExternalFilesInMemoryHonourOffsetAndLength) {
  Session s;
  const std::string file = FloatBytes({1, 2, 3, 4});
  const char* name = "./weights.bin";  // the model says "weights.bin": the same relative path
  const void* buffer = file.data();
  size_t length = file.size();
  ASSERT_OK(Api().AddExternalInitializersFromFilesInMemory(s.options, &name, &buffer, &length, 1));
  ASSERT_OK(s.Create(ExternalModel("weights.bin")));
  EXPECT_EQ(s.Run({10, 20}, {2}), (std::vector<float>{13, 24}));  // bytes [8, 16)
  length = 12;  // the range [8, 16) no longer fits
  ASSERT_OK(Api().AddExternalInitializersFromFilesInMemory(s.options, &name, &buffer, &length, 1));
  EXPECT_STATUS(s.Create(ExternalModel("weights.bin")), PRISM_INVALID_GRAPH,
                "initializer 'W' of graph main: external data range [8, 16) is beyond the end of "
                "the in-memory file 'weights.bin' (12 bytes)");
  const void* null_buffer = nullptr;
  EXPECT_STATUS(
      Api().AddExternalInitializersFromFilesInMemory(s.options, &name, &null_buffer, &length, 1),
      PRISM_INVALID_ARGUMENT, "buffers[0] (file './weights.bin') is NULL but lengths[0] is 12");
}

TEST(SessionAdjustmentsTest, AddExternalInitializersSuppliesExternalDataInPlace) {
  Session s;
  std::vector<float> w = {100, 200};
  const char* name = "W";
  const PrismValue* value = s.Tensor(w, {2});
  ASSERT_OK(Api().SetGraphOptimizationLevel(s.options, PRISM_DISABLE_ALL));
  ASSERT_OK(Api().AddExternalInitializers(s.options, &name, &value, 1));
  ASSERT_OK(s.Create(ExternalModel("weights.bin")));  // no folder, no file: never read
  EXPECT_EQ(s.Run({1, 2}, {2}), (std::vector<float>{101, 202}));
  w[0] = 7;  // no copy
  EXPECT_EQ(s.Run({1, 2}, {2}), (std::vector<float>{8, 202}));
  // Only initializers with external data; and not both ways at once.
  EXPECT_STATUS(s.Create(AddModel()), PRISM_INVALID_ARGUMENT,
                "AddExternalInitializers: the model has no initializer named 'W'");
  ASSERT_OK(Api().AddInitializer(s.options, "W", value));
  EXPECT_STATUS(s.Create(ExternalModel("weights.bin")), PRISM_INVALID_ARGUMENT,
                "initializer 'W' is supplied by both AddInitializer and AddExternalInitializers");
  PrismSessionOptions* other = nullptr;
  ASSERT_OK(Api().CreateSessionOptions(&other));
  std::vector<float> four = {1, 2, 3, 4};
  const char* w_name = "w";
  const PrismValue* four_value = s.Tensor(four, {4});
  ASSERT_OK(Api().AddExternalInitializers(other, &w_name, &four_value, 1));
  std::swap(other, s.options);
  EXPECT_STATUS(s.Create(AddModel()), PRISM_INVALID_ARGUMENT,
                "AddExternalInitializers: initializer 'w' does not store its data externally");
  Api().ReleaseSessionOptions(other);
  const char* null_name = nullptr;
  EXPECT_STATUS(Api().AddExternalInitializers(s.options, &null_name, &value, 1),
                PRISM_INVALID_ARGUMENT, "AddExternalInitializers: names[0] is NULL");
}

}  // namespace
}  // namespace prism::testing
