// Tests of the header-only C++ wrapper (prism_cxx_api.h). Built as C++17 and linked with
// libprism.so only: everything goes through the C ABI.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "prism/prism_cxx_api.h"

namespace {

std::string DataPath(const std::string& name) {
  return std::string(PRISM_CAPI_TEST_DATA_DIR) + "/" + name;
}

std::vector<char> ReadBytes(const std::string& name) {
  std::ifstream file(DataPath(name), std::ios::binary);
  EXPECT_TRUE(file.is_open()) << DataPath(name);
  return std::vector<char>(std::istreambuf_iterator<char>(file), {});
}

std::vector<float> ReadFloats(const std::string& name) {
  const std::vector<char> bytes = ReadBytes(name);
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

// Compares with onnxruntime's output (written by make_capi_test_data.py).
void ExpectMnistOutput(const float* actual, size_t count) {
  const std::vector<float> expected = ReadFloats("mnist_expected.bin");
  ASSERT_EQ(count, expected.size());
  for (size_t i = 0; i < count; ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-5 + 1e-4 * std::fabs(expected[i])) << "output " << i;
}

template <typename Fn>
prism::Exception CatchPrism(Fn&& fn) {
  try {
    fn();
  } catch (const prism::Exception& e) {
    return e;
  }
  ADD_FAILURE() << "expected a prism::Exception";
  return prism::Exception(PRISM_OK, "");
}

class CxxApiTest : public ::testing::Test {
 protected:
  prism::Env env_{PRISM_LOGGING_ERROR, "cxx-api-test"};
  std::vector<float> input_ = ReadFloats("mnist_input.bin");
};

TEST_F(CxxApiTest, MnistInspectAndRun) {
  prism::SessionOptions options;
  options.SetIntraOpNumThreads(1).SetGraphOptimizationLevel(PRISM_ENABLE_ALL).SetLogId("mnist");
  prism::Session session(env_, DataPath("mnist_cnn.onnx"), options);

  EXPECT_EQ(session.GetInputNames(), std::vector<std::string>{"input"});
  EXPECT_EQ(session.GetOutputNames(), std::vector<std::string>{"output"});
  EXPECT_EQ(session.GetOverridableInitializerCount(), 0u);
  prism::TypeInfo input_type = session.GetInputTypeInfo(0);
  EXPECT_EQ(input_type.Kind(), PRISM_VALUE_TENSOR);
  EXPECT_EQ(input_type.TypeString(), "tensor(float)");
  prism::ConstTensorTypeAndShapeInfo input_tensor = input_type.GetTensorInfo();
  ASSERT_TRUE(input_tensor);
  EXPECT_EQ(input_tensor.ElementType(), PRISM_TYPE_FLOAT);
  EXPECT_EQ(input_tensor.Shape(), (std::vector<int64_t>{1, 1, 28, 28}));
  EXPECT_EQ(input_tensor.ElementCount(), 784);
  EXPECT_EQ(session.GetOutputTypeInfo(0).GetTensorInfo().Shape(), (std::vector<int64_t>{1, 10}));

  prism::ModelMetadata metadata = session.GetModelMetadata();
  EXPECT_EQ(metadata.ProducerName(), "steering-bench-make_models");
  EXPECT_EQ(metadata.GraphName(), "mnist_cnn");
  EXPECT_TRUE(metadata.CustomMetadata().empty());
  EXPECT_EQ(session.GetProviders(), std::vector<std::string>{"CPUExecutionProvider"});

  prism::MemoryInfo cpu = prism::MemoryInfo::CreateCpu();
  EXPECT_EQ(cpu.Name(), "Cpu");
  EXPECT_EQ(cpu.DeviceType(), PRISM_DEVICE_CPU);
  prism::Value input =
      prism::Value::CreateTensor<float>(cpu, input_.data(), input_.size(), {1, 1, 28, 28});
  std::vector<prism::Value> inputs;
  inputs.push_back(std::move(input));
  std::vector<prism::Value> outputs = session.Run({"input"}, inputs, {"output"});
  ASSERT_EQ(outputs.size(), 1u);
  prism::TensorTypeAndShapeInfo info = outputs[0].GetTensorTypeAndShapeInfo();
  EXPECT_EQ(info.Shape(), (std::vector<int64_t>{1, 10}));
  EXPECT_EQ(outputs[0].GetTensorMemoryInfo().Name(), "Cpu");
  ExpectMnistOutput(outputs[0].GetTensorData<float>(), 10);
  EXPECT_EQ(CatchPrism([&] { outputs[0].GetTensorData<int64_t>(); }).Code(),
            PRISM_INVALID_ARGUMENT);
}

TEST_F(CxxApiTest, MnistFromBytesWithRunOptions) {
  const std::vector<char> model = ReadBytes("mnist_cnn.onnx");
  prism::Session session(env_, model.data(), model.size(), prism::SessionOptions());
  prism::RunOptions run_options;
  run_options.SetRunTag("bytes").SetLogSeverityLevel(PRISM_LOGGING_ERROR);
  std::vector<prism::Value> inputs;
  inputs.push_back(prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(), input_.data(),
                                                     input_.size(), {1, 1, 28, 28}));
  std::vector<prism::Value> outputs = session.Run(&run_options, {"input"}, inputs, {"output"});
  ExpectMnistOutput(outputs[0].GetTensorData<float>(), 10);

  run_options.SetTerminate();
  prism::Exception error =
      CatchPrism([&] { session.Run(&run_options, {"input"}, inputs, {"output"}); });
  EXPECT_EQ(error.Code(), PRISM_FAIL);
  EXPECT_NE(std::string(error.what()).find("terminated"), std::string::npos);
}

TEST_F(CxxApiTest, Profiling) {
  prism::SessionOptions options;
  options.EnableProfiling(DataPath("cxx_profile"));
  prism::Session session(env_, DataPath("mnist_cnn.onnx"), options);
  std::vector<prism::Value> inputs;
  inputs.push_back(prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(), input_.data(),
                                                     input_.size(), {1, 1, 28, 28}));
  session.Run({"input"}, inputs, {"output"});
  const std::string trace = session.EndProfiling();
  ASSERT_EQ(trace.rfind(DataPath("cxx_profile"), 0), 0u) << trace;
  std::ifstream file(trace);
  const std::string text((std::istreambuf_iterator<char>(file)), {});
  EXPECT_NE(text.find("model_run"), std::string::npos);
  std::remove(trace.c_str());
  EXPECT_EQ(session.EndProfiling(), "");
}

TEST_F(CxxApiTest, ConcurrentRunsOnOneSession) {
  prism::Session session(env_, DataPath("mnist_cnn.onnx"), prism::SessionOptions());
  std::vector<std::thread> threads;
  std::vector<std::vector<float>> results(4);
  for (size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      std::vector<float> data = input_;
      std::vector<prism::Value> inputs;
      inputs.push_back(prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(),
                                                         data.data(), data.size(), {1, 1, 28, 28}));
      std::vector<prism::Value> outputs = session.Run({"input"}, inputs, {"output"});
      const float* out = outputs[0].GetTensorData<float>();
      results[t].assign(out, out + 10);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::vector<float>& result : results) ExpectMnistOutput(result.data(), result.size());
}

TEST_F(CxxApiTest, StringIdentity) {
  prism::Session session(env_, DataPath("string_identity.onnx"), prism::SessionOptions());
  EXPECT_EQ(session.GetInputTypeInfo(0).GetTensorInfo().SymbolicShape(),
            std::vector<std::string>{"n"});
  EXPECT_EQ(session.GetInputTypeInfo(0).GetTensorInfo().Shape(), std::vector<int64_t>{-1});
  prism::ModelMetadata metadata = session.GetModelMetadata();
  EXPECT_EQ(metadata.Version(), 3);
  EXPECT_EQ(metadata.Domain(), "ai.prism.test");
  EXPECT_EQ(metadata.CustomMetadata(), (std::map<std::string, std::string>{
                                           {"author", "prism"}, {"purpose", "string identity"}}));

  const std::vector<std::string> strings = {"prism", "", std::string("nul\0inside", 10),
                                            "\xc3\xa9t\xc3\xa9"};
  std::vector<prism::Value> inputs;
  inputs.push_back(prism::Value::CreateStringTensor(strings, {4}));
  EXPECT_EQ(CatchPrism([&] { inputs[0].GetTensorSizeInBytes(); }).Code(), PRISM_INVALID_ARGUMENT);
  std::vector<prism::Value> outputs = session.Run({"text"}, inputs, {"text_out"});
  EXPECT_EQ(outputs[0].GetStringTensor(), strings);
  EXPECT_EQ(outputs[0].GetStringTensorElement(2).size(), 10u);
}

TEST_F(CxxApiTest, ModelAdjustments) {
  prism::SessionOptions options;
  options.AddFreeDimensionOverrideByName("n", 2);
  prism::Session session(env_, DataPath("string_identity.onnx"), options);
  EXPECT_EQ(session.GetInputTypeInfo(0).GetTensorInfo().Shape(), std::vector<int64_t>{2});
  std::vector<prism::Value> inputs;
  inputs.push_back(prism::Value::CreateStringTensor({"a", "b", "c"}, {3}));
  const prism::Exception wrong_size =
      CatchPrism([&] { session.Run({"text"}, inputs, {"text_out"}); });
  EXPECT_EQ(wrong_size.Code(), PRISM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wrong_size.what()).find("input 'text' expects shape [2], got [3]"),
            std::string::npos)
      << wrong_size.what();
  EXPECT_EQ(CatchPrism([&] { options.AddFreeDimensionOverride("DATA_BATCH", -1); }).Code(),
            PRISM_INVALID_ARGUMENT);

  // Initializers and external data the model lacks fail session creation, naming them.
  prism::SessionOptions initializer_options;
  initializer_options.AddInitializer("nope", prism::Value::CreateStringTensor({"x"}, {1}));
  const prism::Exception no_initializer = CatchPrism(
      [&] { prism::Session(env_, DataPath("string_identity.onnx"), initializer_options); });
  EXPECT_NE(std::string(no_initializer.what()).find("the model has no initializer named 'nope'"),
            std::string::npos)
      << no_initializer.what();
  prism::SessionOptions external_options;
  std::vector<prism::Value> values;
  values.push_back(prism::Value::CreateStringTensor({"x"}, {1}));
  external_options.AddExternalInitializers({"gone"}, values);
  EXPECT_NE(std::string(CatchPrism([&] {
                          prism::Session(env_, DataPath("string_identity.onnx"), external_options);
                        }).what())
                .find("AddExternalInitializers: the model has no initializer named 'gone'"),
            std::string::npos);
  EXPECT_EQ(CatchPrism([&] {
              external_options.AddExternalInitializers({"a", "b"}, values);
            }).Code(),
            PRISM_INVALID_ARGUMENT);
  const std::string file = "bytes";
  external_options.AddExternalInitializersFromFilesInMemory({"w.bin"}, {file.data()},
                                                            {file.size()});
  EXPECT_EQ(CatchPrism([&] {
              external_options.AddExternalInitializersFromFilesInMemory({"w.bin"}, {nullptr}, {4});
            }).Code(),
            PRISM_INVALID_ARGUMENT);
}

TEST_F(CxxApiTest, ErrorsBecomeExceptions) {
  prism::Exception missing = CatchPrism(
      [&] { prism::Session(env_, DataPath("no_such_model.onnx"), prism::SessionOptions()); });
  EXPECT_EQ(missing.Code(), PRISM_NO_SUCHFILE);

  prism::Session session(env_, DataPath("mnist_cnn.onnx"), prism::SessionOptions());
  std::vector<prism::Value> inputs;
  inputs.push_back(prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(), input_.data(),
                                                     input_.size(), {1, 1, 28, 28}));
  prism::Exception wrong_name =
      CatchPrism([&] { session.Run({"wrong_input"}, inputs, {"output"}); });
  EXPECT_EQ(wrong_name.Code(), PRISM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wrong_name.what()).find("wrong_input"), std::string::npos);

  std::vector<int32_t> ints(784, 0);
  std::vector<prism::Value> int_inputs;
  int_inputs.push_back(prism::Value::CreateTensor<int32_t>(
      prism::MemoryInfo::CreateCpu(), ints.data(), ints.size(), {1, 1, 28, 28}));
  EXPECT_EQ(CatchPrism([&] { session.Run({"input"}, int_inputs, {"output"}); }).Code(),
            PRISM_INVALID_ARGUMENT);
  EXPECT_EQ(CatchPrism([&] { session.GetInputName(5); }).Code(), PRISM_INVALID_ARGUMENT);
  EXPECT_EQ(CatchPrism([&] { session.GetProviderOptions(3); }).Code(), PRISM_INVALID_ARGUMENT);
}

TEST_F(CxxApiTest, ValuesSequencesAndOptionals) {
  prism::AllocatorWithDefaultOptions allocator;
  EXPECT_EQ(allocator.GetInfo().Name(), "Cpu");
  prism::Value a = prism::Value::CreateTensor<int64_t>(allocator, {2});
  a.GetTensorMutableData<int64_t>()[0] = 7;
  a.GetTensorMutableData<int64_t>()[1] = 8;
  prism::Value b = prism::Value::CreateTensor<int64_t>(allocator, {3});
  EXPECT_EQ(b.GetTensorData<int64_t>()[2], 0);  // CPU tensors start zeroed
  std::vector<prism::Value> elements;
  elements.push_back(std::move(a));
  elements.push_back(std::move(b));
  EXPECT_EQ(a.get(), nullptr);  // moved from
  prism::Value sequence = prism::Value::CreateSequence(elements);
  EXPECT_EQ(sequence.Kind(), PRISM_VALUE_SEQUENCE);
  ASSERT_EQ(sequence.GetSequenceLength(), 2u);
  prism::Value first = sequence.GetSequenceElement(0);
  EXPECT_EQ(first.GetTensorData<int64_t>()[1], 8);
  EXPECT_EQ(sequence.GetSequenceElement(1).GetTensorTypeAndShapeInfo().Shape(),
            std::vector<int64_t>{3});

  prism::Value optional = prism::Value::CreateEmptyOptional();
  EXPECT_EQ(optional.Kind(), PRISM_VALUE_OPTIONAL);
  EXPECT_FALSE(optional.HasValue());

  // Sub-byte types are packed: 5 int4 elements take 3 bytes.
  prism::Value int4 = prism::Value::CreateTensor(allocator, {5}, PRISM_TYPE_INT4);
  EXPECT_EQ(int4.GetTensorSizeInBytes(), 3u);
  uint8_t packed[3] = {0x21, 0x43, 0x05};
  prism::Value wrapped = prism::Value::CreateTensor(prism::MemoryInfo::CreateCpu(), packed,
                                                    sizeof(packed), {5}, PRISM_TYPE_INT4);
  EXPECT_EQ(wrapped.GetTensorRawData(), static_cast<const void*>(packed));
}

// Maps: made from two tensors (copied, in key order), read back, in a sequence, fed to
// DictVectorizer, and ZipMap's seq(map) output against onnxruntime's (make_capi_test_data.py).
TEST_F(CxxApiTest, MapsAndSequencesOfMaps) {
  prism::AllocatorWithDefaultOptions allocator;
  std::vector<int64_t> keys = {30, 10, 20};
  std::vector<float> values = {3.0f, 1.0f, 2.0f};
  prism::Value map = prism::Value::CreateMap(
      prism::Value::CreateTensor<int64_t>(prism::MemoryInfo::CreateCpu(), keys.data(), 3, {3}),
      prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(), values.data(), 3, {3}));
  std::vector<int64_t> sorted_keys = {1, 2, 3};
  prism::Value sorted = prism::Value::CreateMap(
      prism::Value::CreateTensor<int64_t>(prism::MemoryInfo::CreateCpu(), sorted_keys.data(), 3,
                                          {3}),
      prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(), values.data(), 3, {3}));
  keys[0] = 99;  // the maps hold copies
  sorted_keys[0] = 99;
  values[0] = -1.0f;
  EXPECT_EQ(sorted.GetMapKeys().GetTensorData<int64_t>()[0], 1);
  EXPECT_EQ(sorted.GetMapValues().GetTensorData<float>()[0], 3.0f);
  EXPECT_TRUE(map.IsMap());
  const prism::Value map_keys = map.GetMapKeys();
  const prism::Value map_values = map.GetMapValues();
  EXPECT_EQ(std::vector<int64_t>(map_keys.GetTensorData<int64_t>(),
                                 map_keys.GetTensorData<int64_t>() + 3),
            (std::vector<int64_t>{10, 20, 30}));
  EXPECT_EQ(
      std::vector<float>(map_values.GetTensorData<float>(), map_values.GetTensorData<float>() + 3),
      (std::vector<float>{1.0f, 2.0f, 3.0f}));
  EXPECT_EQ(CatchPrism([&] { map.GetTensorSizeInBytes(); }).Code(), PRISM_INVALID_ARGUMENT);

  prism::Value string_map =
      prism::Value::CreateMap(prism::Value::CreateStringTensor({"b", "a"}, {2}),
                              prism::Value::CreateStringTensor({"B", "A"}, {2}));
  EXPECT_EQ(string_map.GetMapKeys().GetStringTensor(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(string_map.GetMapValues().GetStringTensor(), (std::vector<std::string>{"A", "B"}));

  std::vector<prism::Value> elements;
  elements.push_back(prism::Value::CreateMap(map.GetMapKeys(), map.GetMapValues()));
  elements.push_back(prism::Value::CreateMap(map.GetMapKeys(), map.GetMapValues()));
  const prism::Value sequence = prism::Value::CreateSequence(elements);
  EXPECT_EQ(sequence.Kind(), PRISM_VALUE_SEQUENCE);
  ASSERT_EQ(sequence.GetSequenceLength(), 2u);
  EXPECT_TRUE(sequence.GetSequenceElement(1).IsMap());
  elements.push_back(std::move(string_map));
  EXPECT_EQ(CatchPrism([&] { prism::Value::CreateSequence(elements); }).Code(),
            PRISM_INVALID_ARGUMENT);

  prism::Session vectorizer(env_, DataPath("dict_vectorizer.onnx"), prism::SessionOptions());
  prism::TypeInfo input_type = vectorizer.GetInputTypeInfo(0);
  EXPECT_EQ(input_type.TypeString(), "map(int64,tensor(float))");
  EXPECT_EQ(input_type.Kind(), PRISM_VALUE_MAP);
  EXPECT_EQ(input_type.GetMapTypes(), std::make_pair(PRISM_TYPE_INT64, PRISM_TYPE_FLOAT));
  EXPECT_FALSE(input_type.GetTensorInfo());
  std::vector<prism::Value> inputs;
  inputs.push_back(std::move(map));
  std::vector<prism::Value> outputs = vectorizer.Run({"X"}, inputs, {"Y"});
  const float* row = outputs[0].GetTensorData<float>();
  EXPECT_EQ(std::vector<float>(row, row + 3), (std::vector<float>{3.0f, 1.0f, 2.0f}));

  prism::Session zipmap(env_, DataPath("zipmap.onnx"), prism::SessionOptions());
  EXPECT_EQ(zipmap.GetOutputTypeInfo(0).TypeString(), "seq(map(int64,tensor(float)))");
  EXPECT_EQ(zipmap.GetOutputTypeInfo(0).GetMapTypes(),
            std::make_pair(PRISM_TYPE_INT64, PRISM_TYPE_FLOAT));
  std::vector<float> x = ReadFloats("zipmap_input.bin");
  ASSERT_EQ(x.size(), 6u);
  const std::vector<char> expected = ReadBytes("zipmap_expected.bin");
  ASSERT_EQ(expected.size(), 2u * 3u * (sizeof(int64_t) + sizeof(float)));
  std::vector<prism::Value> zip_inputs;
  zip_inputs.push_back(
      prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(), x.data(), 6, {2, 3}));
  std::vector<prism::Value> maps = zipmap.Run({"X"}, zip_inputs, {"Z"});
  ASSERT_EQ(maps[0].GetSequenceLength(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    std::vector<int64_t> expected_keys(3);
    std::vector<float> expected_values(3);
    std::memcpy(expected_keys.data(), expected.data() + i * 36, 24);
    std::memcpy(expected_values.data(), expected.data() + i * 36 + 24, 12);
    const prism::Value element = maps[0].GetSequenceElement(i);
    const prism::Value element_keys = element.GetMapKeys();
    const prism::Value element_values = element.GetMapValues();
    EXPECT_EQ(std::vector<int64_t>(element_keys.GetTensorData<int64_t>(),
                                   element_keys.GetTensorData<int64_t>() + 3),
              expected_keys);
    EXPECT_EQ(std::vector<float>(element_values.GetTensorData<float>(),
                                 element_values.GetTensorData<float>() + 3),
              expected_values);
  }
}

// The test EP keeps its tensors in simulated device memory (bytes XOR 0xA5). Inputs bound in
// that memory must be copied in by the session, and outputs bound to it must land there.
TEST_F(CxxApiTest, IoBindingWithDeviceMemory) {
  prism::SessionOptions options;
  options.AppendExecutionProvider("TestExecutionProvider", {{"ops", "Relu"}});
  prism::Session session(env_, DataPath("mnist_cnn.onnx"), options);
  EXPECT_EQ(session.GetProviders(),
            (std::vector<std::string>{"TestExecutionProvider", "CPUExecutionProvider"}));
  EXPECT_EQ(session.GetProviderOptions(0).at("ops"), "Relu");
  EXPECT_NE(session.GetPartitionReport().find("TestExecutionProvider"), std::string::npos);

  prism::MemoryInfo device("TestDevice", PRISM_DEVICE_ALLOCATOR, 0, PRISM_MEM_DEFAULT);
  EXPECT_EQ(device.DeviceType(), PRISM_DEVICE_SIMULATED);
  prism::Allocator allocator = session.CreateAllocator(device);
  EXPECT_EQ(allocator.GetInfo().Name(), "TestDevice");
  prism::Value device_input = prism::Value::CreateTensor<float>(allocator, {1, 1, 28, 28});
  EXPECT_EQ(device_input.GetTensorMemoryInfo().Name(), "TestDevice");
  // Write the input the way the device stores it.
  auto* device_bytes = static_cast<uint8_t*>(device_input.GetTensorMutableRawData());
  const auto* host_bytes = reinterpret_cast<const uint8_t*>(input_.data());
  for (size_t i = 0; i < input_.size() * sizeof(float); ++i)
    device_bytes[i] = static_cast<uint8_t>(host_bytes[i] ^ 0xA5);

  prism::IoBinding binding(session);
  binding.BindInput("input", device_input);
  binding.BindOutput("output", device);
  session.Run(binding);
  EXPECT_EQ(binding.GetOutputNames(), std::vector<std::string>{"output"});
  std::vector<prism::Value> results = binding.GetOutputValues();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].GetTensorMemoryInfo().Name(), "TestDevice");
  prism::Value on_cpu = session.CopyToCpu(results[0]);
  EXPECT_EQ(on_cpu.GetTensorMemoryInfo().Name(), "Cpu");
  ExpectMnistOutput(on_cpu.GetTensorData<float>(), 10);

  // A preallocated CPU output receives the result in place.
  prism::Value preallocated =
      prism::Value::CreateTensor<float>(prism::AllocatorWithDefaultOptions(), {1, 10});
  binding.ClearBoundOutputs();
  binding.BindOutput("output", preallocated);
  session.Run(binding);
  ExpectMnistOutput(preallocated.GetTensorData<float>(), 10);

  // A preallocated device output receives the result where it is, in device memory.
  prism::Value device_output = prism::Value::CreateTensor<float>(allocator, {1, 10});
  binding.ClearBoundOutputs();
  binding.BindOutput("output", device_output);
  session.Run(binding);
  results = binding.GetOutputValues();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].GetTensorMemoryInfo().Name(), "TestDevice");
  EXPECT_EQ(results[0].GetTensorRawData(), device_output.GetTensorRawData());
  ExpectMnistOutput(session.CopyToCpu(device_output).GetTensorData<float>(), 10);

  // Memory no EP of the session owns.
  prism::SessionOptions cpu_only;
  prism::Session cpu_session(env_, DataPath("mnist_cnn.onnx"), cpu_only);
  EXPECT_EQ(CatchPrism([&] { cpu_session.CreateAllocator(device); }).Code(),
            PRISM_INVALID_ARGUMENT);
  prism::IoBinding cpu_binding(cpu_session);
  EXPECT_EQ(CatchPrism([&] { cpu_binding.BindOutput("output", device); }).Code(),
            PRISM_INVALID_ARGUMENT);
  const prism::Exception error =
      CatchPrism([&] { cpu_binding.BindOutput("output", device_output); });
  EXPECT_EQ(error.Code(), PRISM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.what()).find("no execution provider of the session owns it"),
            std::string::npos)
      << error.what();
  // A binding runs only with the session it was made for.
  EXPECT_EQ(CatchPrism([&] { cpu_session.Run(binding); }).Code(), PRISM_INVALID_ARGUMENT);
}

// Environment allocators: a CPU arena registered with the env serves the sessions that opt in
// (session.use_env_allocators = 1), and only those.
TEST_F(CxxApiTest, SharedAllocatorServesOnlySessionsThatOptIn) {
  prism::MemoryInfo arena_info = prism::MemoryInfo::CreateCpu(PRISM_ARENA_ALLOCATOR);
  env_.CreateAndRegisterAllocator(
      arena_info,
      {{"max_mem", "0"}, {"arena_extend_strategy", "1"}, {"initial_chunk_size_bytes", "-1"}});
  std::optional<prism::Allocator> shared = env_.GetSharedAllocator(arena_info);
  ASSERT_TRUE(shared.has_value());
  EXPECT_EQ(shared->GetInfo().Name(), "Cpu");
  EXPECT_EQ(shared->GetStats().at("NumAllocs"), 0);

  std::vector<prism::Value> inputs;
  inputs.push_back(prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(), input_.data(),
                                                     input_.size(), {1, 1, 28, 28}));
  // A session that does not opt in leaves the shared arena untouched.
  prism::SessionOptions own;
  own.SetIntraOpNumThreads(1);
  prism::Session own_session(env_, DataPath("mnist_cnn.onnx"), own);
  ExpectMnistOutput(own_session.Run({"input"}, inputs, {"output"})[0].GetTensorData<float>(), 10);
  EXPECT_EQ(shared->GetStats().at("NumAllocs"), 0);

  // Two sessions that opt in allocate from it; the arena's regions are reused by the second.
  prism::SessionOptions opted;
  opted.SetIntraOpNumThreads(1).AddConfigEntry("session.use_env_allocators", "1");
  prism::Session first(env_, DataPath("mnist_cnn.onnx"), opted);
  ExpectMnistOutput(first.Run({"input"}, inputs, {"output"})[0].GetTensorData<float>(), 10);
  const std::map<std::string, int64_t> after_first = shared->GetStats();
  EXPECT_GT(after_first.at("NumAllocs"), 0);
  EXPECT_GT(after_first.at("NumReserves"), 0);
  prism::Session second(env_, DataPath("mnist_cnn.onnx"), opted);
  ExpectMnistOutput(second.Run({"input"}, inputs, {"output"})[0].GetTensorData<float>(), 10);
  const std::map<std::string, int64_t> after_second = shared->GetStats();
  EXPECT_GT(after_second.at("NumAllocs"), after_first.at("NumAllocs"));

  // One allocator per memory; unregistering frees the slot (the handle keeps it alive).
  EXPECT_EQ(CatchPrism([&] { env_.CreateAndRegisterAllocator(arena_info); }).Code(),
            PRISM_INVALID_ARGUMENT);
  env_.UnregisterAllocator(arena_info);
  EXPECT_FALSE(env_.GetSharedAllocator(arena_info).has_value());
  EXPECT_EQ(CatchPrism([&] { env_.UnregisterAllocator(arena_info); }).Code(),
            PRISM_INVALID_ARGUMENT);
  EXPECT_GE(shared->GetStats().at("NumAllocs"), after_second.at("NumAllocs"));
}

TEST_F(CxxApiTest, SharedArenaConfigIsHonouredOrRefused) {
  prism::MemoryInfo arena_info = prism::MemoryInfo::CreateCpu(PRISM_ARENA_ALLOCATOR);
  const prism::Exception unknown = CatchPrism([&] {
    env_.CreateAndRegisterAllocator(arena_info, {{"max_memory", "1"}});
  });
  EXPECT_NE(std::string(unknown.what()).find("unknown arena config key 'max_memory'"),
            std::string::npos)
      << unknown.what();
  const prism::Exception unsupported = CatchPrism([&] {
    env_.CreateAndRegisterAllocator(arena_info, {{"max_dead_bytes_per_chunk", "128"}});
  });
  EXPECT_NE(std::string(unsupported.what()).find("not supported by Prism's arena"),
            std::string::npos)
      << unsupported.what();
  EXPECT_EQ(CatchPrism([&] {
              env_.CreateAndRegisterAllocator(arena_info, {{"arena_extend_strategy", "2"}});
            }).Code(),
            PRISM_INVALID_ARGUMENT);
  // Device memory is not registered through the CPU call.
  prism::MemoryInfo device("TestDevice", PRISM_DEVICE_ALLOCATOR, 0, PRISM_MEM_DEFAULT);
  EXPECT_EQ(CatchPrism([&] { env_.CreateAndRegisterAllocator(device); }).Code(),
            PRISM_INVALID_ARGUMENT);
  EXPECT_FALSE(env_.GetSharedAllocator(arena_info).has_value());  // nothing half-registered

  // max_mem bounds the shared arena: a session using it cannot grow past it.
  env_.CreateAndRegisterAllocator(arena_info, {{"max_mem", "4096"}});
  prism::SessionOptions opted;
  opted.SetIntraOpNumThreads(1).AddConfigEntry("session.use_env_allocators", "1");
  std::vector<prism::Value> inputs;
  inputs.push_back(prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(), input_.data(),
                                                     input_.size(), {1, 1, 28, 28}));
  const prism::Exception limited = CatchPrism([&] {
    prism::Session session(env_, DataPath("mnist_cnn.onnx"), opted);
    session.Run({"input"}, inputs, {"output"});
  });
  EXPECT_NE(limited.Code(), PRISM_OK);
  EXPECT_NE(std::string(limited.what()).find("4096"), std::string::npos) << limited.what();

  prism::SessionOptions bad;
  bad.AddConfigEntry("session.use_env_allocators", "yes");
  const prism::Exception bad_value =
      CatchPrism([&] { prism::Session session(env_, DataPath("mnist_cnn.onnx"), bad); });
  EXPECT_NE(std::string(bad_value.what()).find("session.use_env_allocators must be"),
            std::string::npos)
      << bad_value.what();
}

// Device values outside a session: the test EP's simulated device memory (bytes XOR 0xA5)
// registered with the env, filled and read back with CopyTensors.
TEST_F(CxxApiTest, DeviceValuesOutsideASession) {
  prism::MemoryInfo device("TestDevice", PRISM_DEVICE_ALLOCATOR, 0, PRISM_MEM_DEFAULT);
  prism::Value host_input = prism::Value::CreateTensor<float>(
      prism::MemoryInfo::CreateCpu(), input_.data(), input_.size(), {1, 1, 28, 28});
  {
    // CPU to CPU needs nothing registered.
    prism::Value target =
        prism::Value::CreateTensor<float>(prism::AllocatorWithDefaultOptions(), {1, 1, 28, 28});
    env_.CopyTensors({&host_input}, {&target});
    EXPECT_EQ(std::memcmp(target.GetTensorRawData(), input_.data(), input_.size() * 4), 0);
  }
  prism::Env fresh(PRISM_LOGGING_ERROR, "no-device");
  EXPECT_FALSE(fresh.GetSharedAllocator(device).has_value());
  EXPECT_EQ(CatchPrism([&] {
              fresh.CreateAndRegisterAllocatorV2("CPUExecutionProvider", device);
            }).Code(),
            PRISM_INVALID_ARGUMENT);
  EXPECT_EQ(
      CatchPrism([&] {
        fresh.CreateAndRegisterAllocatorV2("TestExecutionProvider", device, {{"device_id", "1"}});
      }).Code(),
      PRISM_INVALID_ARGUMENT);
  EXPECT_EQ(CatchPrism([&] {
              fresh.CreateAndRegisterAllocatorV2("NoSuchExecutionProvider", device);
            }).Code(),
            PRISM_INVALID_ARGUMENT);

  env_.CreateAndRegisterAllocatorV2("TestExecutionProvider", device, {{"device_id", "0"}});
  std::optional<prism::Allocator> allocator = env_.GetSharedAllocator(device);
  ASSERT_TRUE(allocator.has_value());
  prism::Value device_input = prism::Value::CreateTensor<float>(*allocator, {1, 1, 28, 28});
  EXPECT_EQ(device_input.GetTensorMemoryInfo().Name(), "TestDevice");
  env_.CopyTensors({&host_input}, {&device_input});
  // The device holds the bytes its own way.
  const auto* device_bytes = static_cast<const uint8_t*>(device_input.GetTensorRawData());
  const auto* host_bytes = reinterpret_cast<const uint8_t*>(input_.data());
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(device_bytes[i], host_bytes[i] ^ 0xA5) << i;

  prism::SessionOptions options;
  options.AppendExecutionProvider("TestExecutionProvider", {{"ops", "Relu"}});
  prism::Session session(env_, DataPath("mnist_cnn.onnx"), options);
  prism::IoBinding binding(session);
  binding.BindInput("input", device_input);
  prism::Value device_output = prism::Value::CreateTensor<float>(*allocator, {1, 10});
  binding.BindOutput("output", device_output);
  session.Run(binding);
  prism::Value host_output =
      prism::Value::CreateTensor<float>(prism::AllocatorWithDefaultOptions(), {1, 10});
  env_.CopyTensors({&device_output}, {&host_output});
  ExpectMnistOutput(host_output.GetTensorData<float>(), 10);

  // Pairs are checked before anything is copied.
  prism::Value wrong_shape =
      prism::Value::CreateTensor<float>(prism::AllocatorWithDefaultOptions(), {10});
  const prism::Exception shape_error = CatchPrism([&] {
    env_.CopyTensors({&device_output, &device_output}, {&host_output, &wrong_shape});
  });
  EXPECT_NE(std::string(shape_error.what()).find("pair 1"), std::string::npos)
      << shape_error.what();
  const prism::Exception unregistered =
      CatchPrism([&] { fresh.CopyTensors({&device_output}, {&host_output}); });
  EXPECT_NE(std::string(unregistered.what()).find("CreateAndRegisterAllocatorV2"),
            std::string::npos)
      << unregistered.what();
}

TEST_F(CxxApiTest, CudaProviderOptionsAreCheckedAndAppended) {
  prism::CUDAProviderOptions cuda;
  cuda.Update({{"device_id", "1"},
               {"gpu_mem_limit", "2147483648"},
               {"cudnn_conv_algo_search", "HEURISTIC"},
               {"do_copy_in_default_stream", "false"}});
  const std::string text = cuda.GetOptionsAsString();
  for (const char* expected :
       {"device_id=1;", "gpu_mem_limit=2147483648;", "cudnn_conv_algo_search=HEURISTIC;",
        "do_copy_in_default_stream=0;", "arena_extend_strategy=kNextPowerOfTwo;"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << " in " << text;
  // A bad pair changes nothing.
  const prism::Exception unknown = CatchPrism([&] {
    cuda.Update({{"device_id", "2"}, {"gpu_memory_limit", "1"}});
  });
  EXPECT_NE(std::string(unknown.what()).find("unknown CUDA provider option 'gpu_memory_limit'"),
            std::string::npos)
      << unknown.what();
  EXPECT_EQ(CatchPrism([&] {
              cuda.Update({{"use_tf32", "maybe"}});
            }).Code(),
            PRISM_INVALID_ARGUMENT);
  EXPECT_EQ(CatchPrism([&] {
              cuda.Update({{"cudnn_conv_algo_search", "FAST"}});
            }).Code(),
            PRISM_INVALID_ARGUMENT);
  EXPECT_NE(cuda.GetOptionsAsString().find("device_id=1;"), std::string::npos);

  // Appended under the CUDA EP's name: where it is unavailable, the session falls back (logged)
  // or, when asked to, fails naming it.
  prism::SessionOptions options;
  options.AppendExecutionProvider_CUDA_V2(cuda);
  prism::Session session(env_, DataPath("mnist_cnn.onnx"), options);
  const std::vector<std::string> providers = session.GetProviders();
  if (std::find(providers.begin(), providers.end(), "CUDAExecutionProvider") == providers.end()) {
    options.AddConfigEntry("session.fail_on_unavailable_provider", "1");
    const prism::Exception unavailable =
        CatchPrism([&] { prism::Session strict(env_, DataPath("mnist_cnn.onnx"), options); });
    EXPECT_NE(std::string(unavailable.what()).find("CUDAExecutionProvider"), std::string::npos)
        << unavailable.what();
  } else {
    EXPECT_EQ(session.GetProviderOptions(0).at("device_id"), "1");
  }
}

// onnxruntime's preallocated outputs: a tensor in an output slot receives the result in place;
// an empty slot gets a new value.
TEST_F(CxxApiTest, RunWritesIntoPreallocatedOutputs) {
  prism::SessionOptions options;
  options.AppendExecutionProvider("TestExecutionProvider", {{"ops", "Relu"}});
  prism::Session session(env_, DataPath("mnist_cnn.onnx"), options);
  std::vector<prism::Value> inputs;
  inputs.push_back(prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(), input_.data(),
                                                     input_.size(), {1, 1, 28, 28}));
  std::vector<float> host(10, -7.0f);
  std::vector<prism::Value> outputs;
  outputs.push_back(prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(), host.data(),
                                                      host.size(), {1, 10}));
  const void* before = outputs[0].GetTensorRawData();
  session.Run(nullptr, {"input"}, inputs, {"output"}, outputs);
  EXPECT_EQ(outputs[0].GetTensorRawData(), before);
  ExpectMnistOutput(host.data(), 10);  // written where the caller's memory is

  // In device memory (the session's test EP allocator), mixed with an output left to the run.
  prism::MemoryInfo device("TestDevice", PRISM_DEVICE_ALLOCATOR, 0, PRISM_MEM_DEFAULT);
  prism::Allocator allocator = session.CreateAllocator(device);
  std::vector<prism::Value> mixed;
  mixed.push_back(prism::Value::CreateTensor<float>(allocator, {1, 10}));
  mixed.emplace_back();
  session.Run(nullptr, {"input"}, inputs, {"output", "output"}, mixed);
  EXPECT_EQ(mixed[0].GetTensorMemoryInfo().Name(), "TestDevice");
  ExpectMnistOutput(session.CopyToCpu(mixed[0]).GetTensorData<float>(), 10);
  ASSERT_NE(mixed[1].get(), nullptr);
  ExpectMnistOutput(mixed[1].GetTensorData<float>(), 10);

  // A preallocated tensor of another shape or type is refused, naming the output.
  std::vector<prism::Value> wrong;
  wrong.push_back(prism::Value::CreateTensor<float>(prism::AllocatorWithDefaultOptions(), {10}));
  const prism::Exception shape_error =
      CatchPrism([&] { session.Run(nullptr, {"input"}, inputs, {"output"}, wrong); });
  EXPECT_NE(std::string(shape_error.what()).find("output"), std::string::npos)
      << shape_error.what();
  std::vector<prism::Value> not_tensor;
  not_tensor.push_back(prism::Value::CreateEmptyOptional());
  const prism::Exception kind_error =
      CatchPrism([&] { session.Run(nullptr, {"input"}, inputs, {"output"}, not_tensor); });
  EXPECT_NE(std::string(kind_error.what()).find("not a tensor"), std::string::npos)
      << kind_error.what();
}

TEST_F(CxxApiTest, SetProvidersKeepsNamesValid) {
  prism::SessionOptions options;
  options.AppendExecutionProvider("TestExecutionProvider", {{"ops", "Relu"}});
  prism::Session session(env_, DataPath("mnist_cnn.onnx"), options);
  const char* name = nullptr;
  ASSERT_EQ(prism::detail::Api().SessionGetInputName(session.get(), 0, &name), nullptr);
  session.SetProviders(prism::SessionOptions());
  EXPECT_EQ(session.GetProviders(), std::vector<std::string>{"CPUExecutionProvider"});
  EXPECT_STREQ(name, "input");  // borrowed names survive SetProviders
  std::vector<prism::Value> inputs;
  inputs.push_back(prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(), input_.data(),
                                                     input_.size(), {1, 1, 28, 28}));
  ExpectMnistOutput(session.Run({"input"}, inputs, {"output"})[0].GetTensorData<float>(), 10);
}

// Messages a custom logger received: (log id, message).
struct CollectedLog {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> messages;

  static void Collect(void* param, PrismLoggingLevel, const char* category, const char* log_id,
                      const char*, const char* message) {
    auto* self = static_cast<CollectedLog*>(param);
    std::lock_guard<std::mutex> lock(self->mutex);
    EXPECT_STREQ(category, "prism");
    self->messages.emplace_back(log_id, message);
  }
  // Messages with this log id whose text contains part.
  size_t Count(const std::string& log_id, const std::string& part) {
    std::lock_guard<std::mutex> lock(mutex);
    size_t count = 0;
    for (const auto& [id, message] : messages)
      count += id == log_id && message.find(part) != std::string::npos ? 1 : 0;
    return count;
  }
};

TEST_F(CxxApiTest, CustomLoggerSessionAndRunLogging) {
  CollectedLog log;
  {
    prism::Env logging_env(&CollectedLog::Collect, &log, PRISM_LOGGING_ERROR, "logger");
    prism::SessionOptions options;
    options.SetLogSeverityLevel(PRISM_LOGGING_VERBOSE).SetLogId("mnist-session");
    prism::Session session(logging_env, DataPath("mnist_cnn.onnx"), options);
    EXPECT_EQ(log.Count("mnist-session", "session initialized"), 1u);

    std::vector<prism::Value> inputs;
    inputs.push_back(prism::Value::CreateTensor<float>(
        prism::MemoryInfo::CreateCpu(), input_.data(), input_.size(), {1, 1, 28, 28}));
    // The session's severity, verbosity 0: the run's begin and end, no per-node messages.
    prism::RunOptions plain;
    plain.SetRunTag("plain-run");
    session.Run(&plain, {"input"}, inputs, {"output"});
    EXPECT_EQ(log.Count("plain-run", "run begins"), 1u);
    EXPECT_EQ(log.Count("plain-run", ": run "), 0u);
    // The run's own severity (error): nothing from it.
    prism::RunOptions quiet;
    quiet.SetRunTag("quiet-run").SetLogSeverityLevel(PRISM_LOGGING_ERROR);
    session.Run(&quiet, {"input"}, inputs, {"output"});
    EXPECT_EQ(log.Count("quiet-run", ""), 0u);
    // Verbose at verbosity 1: one message per node it runs.
    prism::RunOptions verbose;
    verbose.SetRunTag("verbose-run").SetLogSeverityLevel(PRISM_LOGGING_VERBOSE);
    verbose.SetLogVerbosityLevel(1);
    session.Run(&verbose, {"input"}, inputs, {"output"});
    EXPECT_GE(log.Count("verbose-run", ": run "), 1u);  // FusedConv, Gemm, ... as optimized
    EXPECT_EQ(log.Count("verbose-run", "run ended"), 1u);
  }
  // Released: messages go back to stderr.
  const size_t before = log.Count("mnist-again", "");
  prism::SessionOptions options;
  options.SetLogSeverityLevel(PRISM_LOGGING_VERBOSE).SetLogId("mnist-again");
  prism::Session session(env_, DataPath("mnist_cnn.onnx"), options);
  EXPECT_EQ(log.Count("mnist-again", ""), before);
  EXPECT_THROW(env_.SetLogVerbosityLevel(-1), prism::Exception);
  env_.SetLogVerbosityLevel(0);
}

TEST_F(CxxApiTest, ConfigEntriesReadBack) {
  prism::SessionOptions options;
  options.AddConfigEntry("session.set_denormal_as_zero", "1");
  EXPECT_EQ(options.GetConfigEntry("session.set_denormal_as_zero"), "1");
  EXPECT_EQ(options.GetConfigEntry("no.such.key"), std::nullopt);
  options.EnableMemReuse(false).SetDeterministicCompute(true).SetLogVerbosityLevel(2);
  options.SetGraphOptimizationLevel(PRISM_ENABLE_LAYOUT);
  prism::RunOptions run_options;
  run_options.AddConfigEntry("memory.enable_memory_arena_shrinkage", "cpu:0");
  EXPECT_EQ(run_options.GetConfigEntry("memory.enable_memory_arena_shrinkage"), "cpu:0");
  EXPECT_EQ(run_options.GetConfigEntry("gpu_graph_id"), std::nullopt);
  run_options.SetOnlyExecutePathToFetches();
  prism::Session session(env_, DataPath("mnist_cnn.onnx"), options);
  std::vector<prism::Value> inputs;
  inputs.push_back(prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(), input_.data(),
                                                     input_.size(), {1, 1, 28, 28}));
  ExpectMnistOutput(
      session.Run(&run_options, {"input"}, inputs, {"output"})[0].GetTensorData<float>(), 10);
}

TEST_F(CxxApiTest, ProfilingStartTime) {
  prism::Session plain(env_, DataPath("mnist_cnn.onnx"), prism::SessionOptions());
  EXPECT_EQ(plain.GetProfilingStartTimeNs(), 0u);
  auto now_ns = [] {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
  };
  const uint64_t before = now_ns();
  prism::SessionOptions options;
  options.EnableProfiling(DataPath("cxx_start_profile"));
  prism::Session session(env_, DataPath("mnist_cnn.onnx"), options);
  const uint64_t after = now_ns();
  EXPECT_GE(session.GetProfilingStartTimeNs(), before);
  EXPECT_LE(session.GetProfilingStartTimeNs(), after);
  std::remove(session.EndProfiling().c_str());
}

TEST_F(CxxApiTest, RunAsyncCallsBackOnAnotherThread) {
  prism::Session session(env_, DataPath("mnist_cnn.onnx"), prism::SessionOptions());
  std::mutex mutex;
  std::condition_variable done;
  int finished = 0;
  std::vector<float> result;
  std::string error_message;
  std::thread::id callback_thread;
  {
    std::vector<prism::Value> inputs;
    inputs.push_back(prism::Value::CreateTensor<float>(
        prism::MemoryInfo::CreateCpu(), input_.data(), input_.size(), {1, 1, 28, 28}));
    session.RunAsync(nullptr, {"input"}, inputs, {"output"},
                     [&](std::vector<prism::Value> outputs, const prism::Exception* error) {
                       std::lock_guard<std::mutex> lock(mutex);
                       EXPECT_EQ(error, nullptr);
                       callback_thread = std::this_thread::get_id();
                       if (outputs.size() == 1) {
                         const float* out = outputs[0].GetTensorData<float>();
                         result.assign(out, out + 10);
                       }
                       ++finished;
                       done.notify_all();
                     });
    // The inputs go away here; the run keeps its own reference (input_ stays alive).
    session.RunAsync(nullptr, {"no_such_input"}, inputs, {"output"},
                     [&](std::vector<prism::Value> outputs, const prism::Exception* error) {
                       std::lock_guard<std::mutex> lock(mutex);
                       EXPECT_TRUE(outputs.empty());
                       if (error != nullptr) error_message = error->what();
                       ++finished;
                       done.notify_all();
                     });
  }
  std::unique_lock<std::mutex> lock(mutex);
  ASSERT_TRUE(done.wait_for(lock, std::chrono::seconds(60), [&] { return finished == 2; }));
  ExpectMnistOutput(result.data(), result.size());
  EXPECT_NE(callback_thread, std::this_thread::get_id());
  EXPECT_NE(error_message.find("no_such_input"), std::string::npos) << error_message;
  // A run that cannot start is reported by RunAsync itself, and no callback comes.
  std::vector<prism::Value> inputs;
  inputs.push_back(prism::Value::CreateTensor<float>(prism::MemoryInfo::CreateCpu(), input_.data(),
                                                     input_.size(), {1, 1, 28, 28}));
  prism::Exception error = CatchPrism([&] {
    session.RunAsync(nullptr, {"input"}, inputs, {},
                     [](std::vector<prism::Value>, const prism::Exception*) {
                       ADD_FAILURE() << "no callback for a run that did not start";
                     });
  });
  EXPECT_EQ(error.Code(), PRISM_INVALID_ARGUMENT);
}

TEST(CxxApiVersionTest, BuildInfoAndSeed) {
  EXPECT_EQ(prism::GetBuildInfoString().rfind("Prism Build Info: version=0.1.0", 0), 0u)
      << prism::GetBuildInfoString();
  prism::SetRandomSeed(1234);
}

TEST(CxxApiVersionTest, VersionAndProviders) {
  EXPECT_EQ(prism::GetVersionString(), "0.1.0");
  const std::vector<std::string> providers = prism::GetAvailableProviders();
  ASSERT_FALSE(providers.empty());
  EXPECT_EQ(providers.back(), "CPUExecutionProvider");
  EXPECT_EQ(PrismGetApiBase()->GetApi(999), nullptr);
}

// ---- custom operators ----

// Z = -X; refuses (throws) when told to, from Compute or from inside ParallelFor.
struct NegateKernel {
  explicit NegateKernel(const prism::KernelInfo& info)
      : node(info.GetNodeName()), inputs(info.GetInputCount()) {}
  void Compute(prism::KernelContext& context) {
    const prism::KernelValue x = context.GetInput(0);
    const float* in = x.Data<float>();
    if (in[0] == 1000) throw prism::Exception(PRISM_INVALID_ARGUMENT, "negation refused");
    prism::KernelValue z = context.GetOutput(0, x.Shape());
    float* out = z.MutableData<float>();
    context.ParallelFor(x.ElementCount(), [&](size_t i) {
      if (in[i] == 2000) throw std::runtime_error("refused inside ParallelFor");
      out[i] = -in[i];
    });
  }
  std::string node;
  size_t inputs;
};

struct NegateOp : prism::CustomOpBase<NegateOp, NegateKernel> {
  const char* GetName() const { return "Negate"; }
  size_t GetInputTypeCount() const { return 1; }
  PrismElementType GetInputType(size_t) const { return PRISM_TYPE_FLOAT; }
  size_t GetOutputTypeCount() const { return 1; }
  PrismElementType GetOutputType(size_t) const { return PRISM_TYPE_FLOAT; }
};

const NegateOp kNegate;

// custom_op_example_cxx.onnx (examples/custom_op/make_model.py): the example library's AddScaled
// and SumAll, then Negate: Z = -(2 A + 1.5 B).
TEST(CxxApiCustomOpTest, LibraryOpsAndCustomOpBaseRunTogether) {
  prism::Env env(PRISM_LOGGING_ERROR, "cxx-custom-op-test");
  prism::SessionOptions options;
  options.SetIntraOpNumThreads(2);
  EXPECT_NE(options.RegisterCustomOpsLibrary(PRISM_CUSTOM_OP_LIBRARY), nullptr);
  prism::CustomOpDomain domain("prism.example.cxx");
  domain.Add(&kNegate);
  options.Add(domain);
  prism::Session session(env, DataPath("custom_op_example_cxx.onnx"), options);
  EXPECT_NE(session.GetPartitionReport().find(
                "negate (Negate, opset 1, custom op of domain 'prism.example.cxx') -> "
                "CPUExecutionProvider"),
            std::string::npos)
      << session.GetPartitionReport();
  const prism::MemoryInfo cpu = prism::MemoryInfo::CreateCpu();
  auto run = [&](std::vector<float> a, std::vector<float> b) {
    std::vector<prism::Value> inputs;
    inputs.push_back(prism::Value::CreateTensor<float>(cpu, a.data(), a.size(), {2, 3}));
    inputs.push_back(prism::Value::CreateTensor<float>(cpu, b.data(), b.size(), {2, 3}));
    std::vector<prism::Value> outputs = session.Run({"A", "B"}, inputs, {"Z"});
    const float* z = outputs[0].GetTensorData<float>();
    return std::vector<float>(z, z + 6);
  };
  EXPECT_EQ(run({1, 2, 3, 4, 5, 6}, {10, 20, 30, 40, 50, 60}),
            (std::vector<float>{-17, -34, -51, -68, -85, -102}));
  // Exceptions become the run's error, with the node and the op.
  const prism::Exception refused = CatchPrism([&] {
    run({500, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0});
  });
  EXPECT_EQ(refused.Code(), PRISM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(refused.what())
                .find("Negate node 'negate' (CPUExecutionProvider) failed: custom op 'Negate' of "
                      "domain 'prism.example.cxx': negation refused"),
            std::string::npos)
      << refused.what();
  const prism::Exception inside = CatchPrism([&] {
    run({1000, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0});
  });
  EXPECT_EQ(inside.Code(), PRISM_FAIL);
  EXPECT_NE(std::string(inside.what()).find("refused inside ParallelFor"), std::string::npos)
      << inside.what();
}

TEST(CxxApiCustomOpTest, MissingLibraryThrows) {
  prism::SessionOptions options;
  const prism::Exception error =
      CatchPrism([&] { options.RegisterCustomOpsLibrary("no/such/libcustom.so"); });
  EXPECT_EQ(error.Code(), PRISM_NO_SUCHFILE);
  EXPECT_NE(std::string(error.what()).find("does not exist"), std::string::npos) << error.what();
}

}  // namespace
