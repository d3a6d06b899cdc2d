// Tests of the header-only C++ wrapper (prism_cxx_api.h). Built as C++17 and linked with
// libprism.so only: everything goes through the C ABI.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
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

TEST(CxxApiVersionTest, VersionAndProviders) {
  EXPECT_EQ(prism::GetVersionString(), "0.1.0");
  const std::vector<std::string> providers = prism::GetAvailableProviders();
  ASSERT_FALSE(providers.empty());
  EXPECT_EQ(providers.back(), "CPUExecutionProvider");
  EXPECT_EQ(PrismGetApiBase()->GetApi(999), nullptr);
}

}  // namespace
