// The C ABI's argument checks, regressions of the capi fuzz target (fuzz/capi_fuzzer.cc): enum
// arguments outside their enumerators (C callers may pass any int), and NULL out-parameters of
// functions that allocate (nothing may be allocated before the check). Built into
// prism_unit_tests with fuzz/capi_enum_calls.c, so the sanitizer builds see the same calls.
#include <climits>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "../graph/model_builder_util.h"
#include "capi_enum_calls.h"
#include "capi_status_util.h"
#include "prism/prism_c_api.h"

namespace prism::testing {
namespace {

const PrismApi& Api() {
  return *PrismGetApiBase()->GetApi(4);
}

std::pair<PrismErrorCode, std::string> Take(PrismStatus* status) {
  return TakeStatus(Api(), status);
}

#define EXPECT_STATUS(call, code, text)                                         \
  do {                                                                          \
    const auto prism_result_ = Take(call);                                      \
    EXPECT_EQ(prism_result_.first, code) << prism_result_.second;               \
    EXPECT_NE(prism_result_.second.find(text), std::string::npos)               \
        << "message '" << prism_result_.second << "' lacks '" << (text) << "'"; \
  } while (0)

TEST(CapiArgumentsTest, EnumArgumentsOutsideTheirEnumeratorsAreRefused) {
  // Found by the capi fuzzer: CreateEnv(INT_MAX) read its PrismLoggingLevel parameter as the
  // enum, which is undefined behaviour in C++ for a value outside 0..7 (UBSan's enum check).
  const PrismApi& api = Api();
  PrismEnv* env = nullptr;
  for (int level : {INT_MAX, INT_MIN, -1, 5}) {
    EXPECT_STATUS(
        CallCreateEnv(&api, level, "test", &env), PRISM_INVALID_ARGUMENT,
        "logging_level must be between 0 (verbose) and 4 (fatal), got " + std::to_string(level));
  }
  ASSERT_EQ(Take(CallCreateEnv(&api, PRISM_LOGGING_WARNING, "test", &env)).first, PRISM_OK);
  EXPECT_STATUS(CallSetLogSeverityLevel(&api, env, 1000), PRISM_INVALID_ARGUMENT,
                "logging_level must be between 0 (verbose) and 4 (fatal), got 1000");
  PrismSessionOptions* options = nullptr;
  ASSERT_EQ(Take(api.CreateSessionOptions(&options)).first, PRISM_OK);
  const auto level = Take(CallSetGraphOptimizationLevel(&api, options, INT_MAX));
  EXPECT_EQ(level.first, PRISM_INVALID_ARGUMENT);
  EXPECT_NE(level.second.find("graph optimization level must be"), std::string::npos);
  EXPECT_NE(level.second.find("got 2147483647"), std::string::npos) << level.second;
  EXPECT_STATUS(CallSetExecutionMode(&api, options, -7), PRISM_INVALID_ARGUMENT,
                "execution mode must be 0 (sequential) or 1 (parallel), got -7");
  PrismMemoryInfo* info = nullptr;
  EXPECT_STATUS(CallCreateCpuMemoryInfo(&api, 99, PRISM_MEM_DEFAULT, &info), PRISM_INVALID_ARGUMENT,
                "allocator type must be PRISM_DEVICE_ALLOCATOR (0) or PRISM_ARENA_ALLOCATOR (1), "
                "got 99");
  EXPECT_STATUS(CallCreateMemoryInfo(&api, "Cpu", PRISM_DEVICE_ALLOCATOR, 0, INT_MIN, &info),
                PRISM_INVALID_ARGUMENT, "memory type -2147483648 is not one of");
  ASSERT_EQ(Take(api.CreateCpuMemoryInfo(PRISM_DEVICE_ALLOCATOR, PRISM_MEM_DEFAULT, &info)).first,
            PRISM_OK);
  float data[2] = {1.f, 2.f};
  const int64_t shape[1] = {2};
  PrismValue* value = nullptr;
  EXPECT_STATUS(
      CallCreateTensorWithDataAsValue(&api, info, data, sizeof data, shape, 1, 4096, &value),
      PRISM_INVALID_ARGUMENT, "element type 4096 is not a tensor element type");
  PrismAllocator* allocator = nullptr;
  ASSERT_EQ(Take(api.GetAllocatorWithDefaultOptions(&allocator)).first, PRISM_OK);
  EXPECT_STATUS(CallCreateTensorAsValue(&api, allocator, shape, 1, -3, &value),
                PRISM_INVALID_ARGUMENT, "element type -3 is not a tensor element type");
  EXPECT_EQ(value, nullptr);
  api.ReleaseMemoryInfo(info);
  api.ReleaseSessionOptions(options);
  api.ReleaseEnv(env);
}

TEST(CapiArgumentsTest, NullOutParametersAllocateNothing) {
  // Found by the capi fuzzer (LeakSanitizer): `*Require(out) = new T` evaluates the right side
  // first, so a NULL out leaked the object made for it (and AllocatorAlloc the memory).
  const PrismApi& api = Api();
  EXPECT_STATUS(api.CreateEmptyOptionalValue(nullptr), PRISM_INVALID_ARGUMENT,
                "CreateEmptyOptionalValue: argument 'out' is NULL");
  EXPECT_STATUS(api.CreateSessionOptions(nullptr), PRISM_INVALID_ARGUMENT,
                "CreateSessionOptions: argument 'out' is NULL");
  EXPECT_STATUS(api.CreateRunOptions(nullptr), PRISM_INVALID_ARGUMENT,
                "CreateRunOptions: argument 'out' is NULL");
  EXPECT_STATUS(api.CreateThreadingOptions(nullptr), PRISM_INVALID_ARGUMENT,
                "CreateThreadingOptions: argument 'out' is NULL");
  EXPECT_STATUS(api.CreatePrepackedWeightsContainer(nullptr), PRISM_INVALID_ARGUMENT,
                "CreatePrepackedWeightsContainer: argument 'out' is NULL");
  PrismSessionOptions* options = nullptr;
  ASSERT_EQ(Take(api.CreateSessionOptions(&options)).first, PRISM_OK);
  EXPECT_STATUS(api.CloneSessionOptions(options, nullptr), PRISM_INVALID_ARGUMENT,
                "CloneSessionOptions: argument 'out' is NULL");

  // The allocation a NULL out would have lost is visible in the session allocator's statistics.
  PrismEnv* env = nullptr;
  ASSERT_EQ(Take(api.CreateEnv(PRISM_LOGGING_WARNING, "test", &env)).first, PRISM_OK);
  onnx::ModelProto model = MakeModel();
  AddInput(model.mutable_graph(), "X", onnx::TensorProto::FLOAT, {2});
  AddNode(model.mutable_graph(), "Relu", {"X"}, {"Y"}, "relu");
  AddOutput(model.mutable_graph(), "Y", onnx::TensorProto::FLOAT);
  const std::string bytes = Serialize(model);
  PrismSession* session = nullptr;
  ASSERT_EQ(
      Take(api.CreateSessionFromArray(env, bytes.data(), bytes.size(), options, &session)).second,
      "");
  PrismMemoryInfo* info = nullptr;
  ASSERT_EQ(Take(api.CreateCpuMemoryInfo(PRISM_DEVICE_ALLOCATOR, PRISM_MEM_DEFAULT, &info)).first,
            PRISM_OK);
  PrismAllocator* allocator = nullptr;
  ASSERT_EQ(Take(api.CreateAllocator(session, info, &allocator)).second, "");
  EXPECT_STATUS(api.AllocatorAlloc(allocator, 4096, nullptr), PRISM_INVALID_ARGUMENT,
                "AllocatorAlloc: argument 'out' is NULL");
  char** keys = nullptr;
  char** values = nullptr;
  size_t count = 0;
  ASSERT_EQ(Take(api.SessionGetAllocatorStats(session, "Cpu", 0, &keys, &values, &count)).second,
            "");
  for (size_t i = 0; i < count; ++i) {
    if (std::string(keys[i]) == "InUse" || std::string(keys[i]) == "NumAllocs") {
      EXPECT_EQ(std::string(values[i]), "0") << keys[i];
    }
  }
  api.ReleaseStringArray(keys, count);
  api.ReleaseStringArray(values, count);
  api.ReleaseAllocator(allocator);
  api.ReleaseMemoryInfo(info);
  api.ReleaseSession(session);
  api.ReleaseSessionOptions(options);
  api.ReleaseEnv(env);
}

TEST(CapiArgumentsTest, AllocationsLargerThanAnyObjectFail) {
  // Found by the capi fuzzer: AllocatorAlloc(SIZE_MAX - 63) passed the rounding check and went
  // to aligned_alloc (AddressSanitizer: requested allocation size exceeds maximum supported size).
  const PrismApi& api = Api();
  PrismAllocator* allocator = nullptr;
  ASSERT_EQ(Take(api.GetAllocatorWithDefaultOptions(&allocator)).first, PRISM_OK);
  void* pointer = nullptr;
  for (size_t size : {SIZE_MAX, SIZE_MAX - 63, static_cast<size_t>(PTRDIFF_MAX)}) {
    EXPECT_STATUS(
        api.AllocatorAlloc(allocator, size, &pointer), PRISM_RUNTIME_EXCEPTION,
        "an allocation of " + std::to_string(size) + " bytes exceeds the largest object size");
    EXPECT_EQ(pointer, nullptr);
  }
  ASSERT_EQ(Take(api.AllocatorAlloc(allocator, 64, &pointer)).first, PRISM_OK);
  EXPECT_EQ(Take(api.AllocatorFree(allocator, pointer)).first, PRISM_OK);
}

}  // namespace
}  // namespace prism::testing
