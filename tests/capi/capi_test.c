/*
 * C99 test of the Prism C API (libprism.so): the MNIST CNN against onnxruntime's output, model
 * inspection, string tensors, every element type, sequences, maps and sequences of maps (with
 * ZipMap and DictVectorizer models), IO binding and error statuses.
 *
 * Usage: prism_capi_c_test DATA_DIR   (DATA_DIR written by make_capi_test_data.py)
 * Compiled with -std=c99 -Wall -Werror -pedantic: it proves the header is plain C.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prism/prism_c_api.h"

static const PrismApi* g_api;
static const char* g_data_dir;
static int g_failures;

#define CHECK(condition)                                                            \
  do {                                                                              \
    if (!(condition)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
      ++g_failures;                                                                 \
    }                                                                               \
  } while (0)

/* An unexpected error status ends the test: later steps depend on the call. */
#define OK(call) ExpectOk((call), #call, __LINE__)
#define EXPECT_ERROR(call, code, needle) ExpectError((call), (code), (needle), #call, __LINE__)

static void ExpectOk(PrismStatus* status, const char* what, int line) {
  if (status == NULL) return;
  fprintf(stderr, "%s:%d: %s failed (code %d): %s\n", __FILE__, line, what,
          (int)g_api->GetErrorCode(status), g_api->GetErrorMessage(status));
  g_api->ReleaseStatus(status);
  exit(1);
}

/* Checks that a call failed with code and a message containing needle (NULL: any message). */
static void ExpectError(PrismStatus* status, PrismErrorCode code, const char* needle,
                        const char* what, int line) {
  if (status == NULL) {
    fprintf(stderr, "%s:%d: %s succeeded, expected error code %d\n", __FILE__, line, what,
            (int)code);
    ++g_failures;
    return;
  }
  if (g_api->GetErrorCode(status) != code) {
    fprintf(stderr, "%s:%d: %s gave code %d, expected %d: %s\n", __FILE__, line, what,
            (int)g_api->GetErrorCode(status), (int)code, g_api->GetErrorMessage(status));
    ++g_failures;
  } else if (needle != NULL && strstr(g_api->GetErrorMessage(status), needle) == NULL) {
    fprintf(stderr, "%s:%d: %s message lacks '%s': %s\n", __FILE__, line, what, needle,
            g_api->GetErrorMessage(status));
    ++g_failures;
  }
  g_api->ReleaseStatus(status);
}

static char* DataPath(const char* name) {
  size_t length = strlen(g_data_dir) + strlen(name) + 2;
  char* path = (char*)malloc(length);
  if (path == NULL) exit(1);
  sprintf(path, "%s/%s", g_data_dir, name);
  return path;
}

/* The whole file in a malloc'd buffer; exits when it cannot be read. */
static void* ReadFile(const char* name, size_t* size) {
  char* path = DataPath(name);
  FILE* file = fopen(path, "rb");
  void* data;
  long length;
  if (file == NULL || fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 ||
      fseek(file, 0, SEEK_SET) != 0) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  data = malloc(length > 0 ? (size_t)length : 1);
  if (data == NULL || fread(data, 1, (size_t)length, file) != (size_t)length) exit(1);
  fclose(file);
  free(path);
  *size = (size_t)length;
  return data;
}

static int Close(float actual, float expected) {
  return fabs((double)actual - (double)expected) <= 1e-5 + 1e-4 * fabs((double)expected);
}

static void CheckMnistOutput(const float* actual, size_t count) {
  size_t size = 0;
  size_t i;
  float* expected = (float*)ReadFile("mnist_expected.bin", &size);
  CHECK(size == 10 * sizeof(float));
  CHECK(count == 10);
  for (i = 0; i < 10 && i < count; ++i) {
    if (!Close(actual[i], expected[i])) {
      fprintf(stderr, "output[%u] = %.7g, onnxruntime gives %.7g\n", (unsigned)i, actual[i],
              expected[i]);
      ++g_failures;
    }
  }
  free(expected);
}

static void CheckOutputValue(PrismValue* value) {
  PrismTensorTypeAndShapeInfo* info = NULL;
  PrismElementType type = PRISM_TYPE_UNDEFINED;
  int64_t dims[2] = {0, 0};
  int64_t count = 0;
  void* data = NULL;
  OK(g_api->GetTensorTypeAndShape(value, &info));
  OK(g_api->TensorInfoGetElementType(info, &type));
  OK(g_api->TensorInfoGetDimensions(info, dims, 2));
  OK(g_api->TensorInfoGetElementCount(info, &count));
  CHECK(type == PRISM_TYPE_FLOAT);
  CHECK(dims[0] == 1 && dims[1] == 10);
  CHECK(count == 10);
  g_api->ReleaseTensorTypeAndShapeInfo(info);
  OK(g_api->GetTensorMutableData(value, &data));
  CheckMnistOutput((const float*)data, (size_t)count);
}

static void TestVersions(void) {
  const PrismApiBase* base = PrismGetApiBase();
  CHECK(base != NULL);
  CHECK(base->GetApi(PRISM_API_VERSION) == g_api);
  CHECK(base->GetApi(1) == g_api);
  CHECK(base->GetApi(0) == NULL);
  CHECK(base->GetApi(999) == NULL);
  CHECK(strcmp(base->GetVersionString(), "0.1.0") == 0);
}

static void TestAvailableProviders(void) {
  char** names = NULL;
  size_t count = 0;
  OK(g_api->GetAvailableProviders(&names, &count));
  CHECK(count >= 1);
  if (count >= 1) CHECK(strcmp(names[count - 1], "CPUExecutionProvider") == 0);
  g_api->ReleaseStringArray(names, count);
}

static void CheckTensorTypeInfo(PrismTypeInfo* type_info, const char* type_string,
                                const int64_t* expected_dims, size_t rank) {
  PrismValueKind kind = PRISM_VALUE_UNKNOWN;
  const char* text = NULL;
  const PrismTensorTypeAndShapeInfo* tensor = NULL;
  int64_t actual_rank = 0;
  int64_t dims[8];
  const char* symbols[8];
  size_t i;
  OK(g_api->TypeInfoGetKind(type_info, &kind));
  OK(g_api->TypeInfoGetTypeString(type_info, &text));
  OK(g_api->TypeInfoGetTensorInfo(type_info, &tensor));
  CHECK(kind == PRISM_VALUE_TENSOR);
  CHECK(strcmp(text, type_string) == 0);
  CHECK(tensor != NULL);
  if (tensor == NULL) return;
  OK(g_api->TensorInfoGetRank(tensor, &actual_rank));
  CHECK(actual_rank == (int64_t)rank);
  if (actual_rank != (int64_t)rank || rank > 8) return;
  OK(g_api->TensorInfoGetDimensions(tensor, dims, rank));
  OK(g_api->TensorInfoGetSymbolicDimensions(tensor, symbols, rank));
  for (i = 0; i < rank; ++i) {
    CHECK(dims[i] == expected_dims[i]);
    CHECK((dims[i] >= 0) == (symbols[i][0] == '\0'));
  }
}

static void TestMnistInspection(PrismSession* session) {
  static const int64_t kInputDims[4] = {1, 1, 28, 28};
  static const int64_t kOutputDims[2] = {1, 10};
  size_t count = 0;
  const char* name = NULL;
  PrismTypeInfo* type_info = NULL;
  PrismModelMetadata* metadata = NULL;
  const char* text = NULL;
  int64_t version = -1;
  char** providers = NULL;
  char* report = NULL;

  OK(g_api->SessionGetInputCount(session, &count));
  CHECK(count == 1);
  OK(g_api->SessionGetOutputCount(session, &count));
  CHECK(count == 1);
  OK(g_api->SessionGetOverridableInitializerCount(session, &count));
  CHECK(count == 0);
  OK(g_api->SessionGetInputName(session, 0, &name));
  CHECK(strcmp(name, "input") == 0);
  OK(g_api->SessionGetOutputName(session, 0, &name));
  CHECK(strcmp(name, "output") == 0);
  EXPECT_ERROR(g_api->SessionGetInputName(session, 1, &name), PRISM_INVALID_ARGUMENT,
               "out of range");

  OK(g_api->SessionGetInputTypeInfo(session, 0, &type_info));
  CheckTensorTypeInfo(type_info, "tensor(float)", kInputDims, 4);
  g_api->ReleaseTypeInfo(type_info);
  OK(g_api->SessionGetOutputTypeInfo(session, 0, &type_info));
  CheckTensorTypeInfo(type_info, "tensor(float)", kOutputDims, 2);
  g_api->ReleaseTypeInfo(type_info);

  OK(g_api->SessionGetModelMetadata(session, &metadata));
  OK(g_api->ModelMetadataGetProducerName(metadata, &text));
  CHECK(strcmp(text, "steering-bench-make_models") == 0);
  OK(g_api->ModelMetadataGetGraphName(metadata, &text));
  CHECK(strcmp(text, "mnist_cnn") == 0);
  OK(g_api->ModelMetadataGetDescription(metadata, &text));
  CHECK(strstr(text, "MNIST") != NULL);
  OK(g_api->ModelMetadataGetVersion(metadata, &version));
  CHECK(version == 0);
  OK(g_api->ModelMetadataGetCustomMetadataCount(metadata, &count));
  CHECK(count == 0);
  g_api->ReleaseModelMetadata(metadata);

  OK(g_api->SessionGetProviders(session, &providers, &count));
  CHECK(count == 1 && strcmp(providers[0], "CPUExecutionProvider") == 0);
  g_api->ReleaseStringArray(providers, count);
  OK(g_api->SessionGetPartitionReport(session, PRISM_REPORT_TEXT, &report));
  CHECK(strstr(report, "CPUExecutionProvider") != NULL);
  g_api->ReleaseString(report);
  OK(g_api->SessionGetPartitionReport(session, PRISM_REPORT_DOT, &report));
  CHECK(strstr(report, "digraph") != NULL);
  g_api->ReleaseString(report);
}

/* Runs the session on the fixed input and checks the output against onnxruntime's. */
static void RunMnist(PrismSession* session, const PrismRunOptions* run_options) {
  static const int64_t kShape[4] = {1, 1, 28, 28};
  const char* input_names[1] = {"input"};
  const char* output_names[1] = {"output"};
  PrismMemoryInfo* cpu = NULL;
  PrismValue* input = NULL;
  PrismValue* output = NULL;
  const PrismMemoryInfo* location = NULL;
  const char* location_name = NULL;
  size_t size = 0;
  float* data = (float*)ReadFile("mnist_input.bin", &size);
  CHECK(size == 784 * sizeof(float));

  OK(g_api->CreateCpuMemoryInfo(PRISM_DEVICE_ALLOCATOR, PRISM_MEM_DEFAULT, &cpu));
  OK(g_api->CreateTensorWithDataAsValue(cpu, data, size, kShape, 4, PRISM_TYPE_FLOAT, &input));
  OK(g_api->Run(session, run_options, input_names, (const PrismValue* const*)&input, 1,
                output_names, 1, &output));
  CheckOutputValue(output);
  OK(g_api->GetTensorMemoryInfo(output, &location));
  OK(g_api->MemoryInfoGetName(location, &location_name));
  CHECK(strcmp(location_name, "Cpu") == 0);

  g_api->ReleaseValue(output);
  g_api->ReleaseValue(input);
  g_api->ReleaseMemoryInfo(cpu);
  free(data);
}

/* Version 9: feeds as raw CPU buffers and the results described, in one call. */
static void TestRunWithBuffers(PrismSession* session) {
  static const int64_t kShape[4] = {1, 1, 28, 28};
  const char* input_names[1] = {"input"};
  const char* output_names[1] = {"output"};
  const char* unknown_names[1] = {"no_such_input"};
  PrismTensorBuffer feed;
  PrismValue* output = NULL;
  PrismValue* taken = (PrismValue*)&feed; /* any non-NULL slot */
  PrismValueDescription description;
  int64_t dims[4] = {-1, -1, -1, -1};
  size_t size = 0;
  float* data = (float*)ReadFile("mnist_input.bin", &size);
  CHECK(size == 784 * sizeof(float));
  feed.element_type = PRISM_TYPE_FLOAT;
  feed.rank = 4;
  feed.dims = kShape;
  feed.data = data;
  feed.size_in_bytes = size;

  memset(&description, 0x5a, sizeof(description));
  OK(g_api->RunWithBuffers(session, NULL, input_names, &feed, 1, output_names, 1, &output,
                           &description, dims, 4));
  CheckOutputValue(output);
  CHECK(description.has_value == 1 && description.kind == PRISM_VALUE_TENSOR);
  CHECK(description.element_type == PRISM_TYPE_FLOAT &&
        description.device_type == PRISM_DEVICE_CPU);
  CHECK(description.rank == 2 && description.dims_offset == 0 && dims[0] == 1 && dims[1] == 10);
  CHECK(dims[2] == -1 && description.size_in_bytes == 10 * sizeof(float));
  CHECK(description.sole_owner == 1); /* a fresh result; a shared one is tested from Python */
  {
    /* The description's data is the result's buffer. */
    int has_value = 0;
    PrismValueKind kind = PRISM_VALUE_UNKNOWN;
    PrismElementType type = PRISM_TYPE_UNDEFINED;
    size_t rank = 0, bytes = 0;
    const void* buffer = NULL;
    PrismDeviceType device = PRISM_DEVICE_GPU;
    OK(g_api->DescribeValue(output, &has_value, &kind, &type, &rank, NULL, 0, &bytes, &buffer,
                            &device));
    CHECK(buffer != NULL && buffer == description.data && bytes == description.size_in_bytes);
  }
  g_api->ReleaseValue(output);
  output = NULL;

  /* Dims that do not fit: the offset says so; the rank is still there. */
  OK(g_api->RunWithBuffers(session, NULL, input_names, &feed, 1, output_names, 1, &output,
                           &description, dims, 1));
  CHECK(description.rank == 2 && description.dims_offset == (size_t)-1);
  CheckOutputValue(output);
  g_api->ReleaseValue(output);
  output = NULL;

  /* Refusals name the input; nothing is handed out. */
  memset(&description, 0x5a, sizeof(description));
  feed.element_type = PRISM_TYPE_INT64;
  feed.size_in_bytes = 784 * sizeof(int64_t);
  EXPECT_ERROR(g_api->RunWithBuffers(session, NULL, input_names, &feed, 1, output_names, 1, &output,
                                     &description, dims, 4),
               PRISM_INVALID_ARGUMENT, "input");
  feed.element_type = PRISM_TYPE_FLOAT;
  feed.size_in_bytes = size - 4;
  EXPECT_ERROR(g_api->RunWithBuffers(session, NULL, input_names, &feed, 1, output_names, 1, &output,
                                     &description, dims, 4),
               PRISM_INVALID_ARGUMENT, "inputs[0] (input 'input'): data_length 3132 bytes");
  feed.size_in_bytes = size;
  feed.dims = NULL;
  EXPECT_ERROR(g_api->RunWithBuffers(session, NULL, input_names, &feed, 1, output_names, 1, &output,
                                     &description, dims, 4),
               PRISM_INVALID_ARGUMENT, "inputs[0] (input 'input'): dims is NULL");
  feed.dims = kShape;
  feed.element_type = PRISM_TYPE_STRING;
  EXPECT_ERROR(g_api->RunWithBuffers(session, NULL, input_names, &feed, 1, output_names, 1, &output,
                                     &description, dims, 4),
               PRISM_INVALID_ARGUMENT, "string tensors cannot wrap caller memory");
  feed.element_type = (PrismElementType)999;
  EXPECT_ERROR(g_api->RunWithBuffers(session, NULL, input_names, &feed, 1, output_names, 1, &output,
                                     &description, dims, 4),
               PRISM_INVALID_ARGUMENT, "inputs[0]");
  feed.element_type = PRISM_TYPE_FLOAT;
  EXPECT_ERROR(g_api->RunWithBuffers(session, NULL, unknown_names, &feed, 1, output_names, 1,
                                     &output, &description, dims, 4),
               PRISM_INVALID_ARGUMENT, "no_such_input");
  EXPECT_ERROR(g_api->RunWithBuffers(session, NULL, input_names, &feed, 1, output_names, 1, &taken,
                                     &description, dims, 4),
               PRISM_INVALID_ARGUMENT, "preallocated outputs go through Run");
  EXPECT_ERROR(g_api->RunWithBuffers(session, NULL, input_names, &feed, 1, output_names, 1, &output,
                                     NULL, dims, 4),
               PRISM_INVALID_ARGUMENT, "descriptions");
  EXPECT_ERROR(g_api->RunWithBuffers(session, NULL, input_names, &feed, 1, output_names, 1, &output,
                                     &description, NULL, 4),
               PRISM_INVALID_ARGUMENT, "dims");
  CHECK(output == NULL && description.has_value == 0x5a5a5a5a);
  free(data);
}

static void TestIoBinding(PrismSession* session) {
  static const int64_t kInputShape[4] = {1, 1, 28, 28};
  static const int64_t kOutputShape[2] = {1, 10};
  static const int64_t kWrongShape[2] = {1, 5};
  PrismMemoryInfo* cpu = NULL;
  PrismAllocator* allocator = NULL;
  PrismIoBinding* binding = NULL;
  PrismValue* input = NULL;
  PrismValue* preallocated = NULL;
  PrismValue* wrong = NULL;
  PrismValue** values = NULL;
  char** names = NULL;
  void* preallocated_data = NULL;
  void* bound_data = NULL;
  size_t count = 0;
  size_t size = 0;
  float* data = (float*)ReadFile("mnist_input.bin", &size);

  OK(g_api->CreateCpuMemoryInfo(PRISM_ARENA_ALLOCATOR, PRISM_MEM_DEFAULT, &cpu));
  OK(g_api->GetAllocatorWithDefaultOptions(&allocator));
  OK(g_api->CreateTensorWithDataAsValue(cpu, data, size, kInputShape, 4, PRISM_TYPE_FLOAT, &input));
  OK(g_api->CreateTensorAsValue(allocator, kOutputShape, 2, PRISM_TYPE_FLOAT, &preallocated));
  OK(g_api->GetTensorMutableData(preallocated, &preallocated_data));
  OK(g_api->CreateIoBinding(session, &binding));

  /* No outputs bound yet: a clear error. */
  OK(g_api->BindInput(binding, "input", input));
  EXPECT_ERROR(g_api->RunWithBinding(session, NULL, binding), PRISM_INVALID_ARGUMENT,
               "no outputs are bound");

  /* A preallocated output receives the result in place. */
  OK(g_api->BindOutput(binding, "output", preallocated));
  OK(g_api->RunWithBinding(session, NULL, binding));
  CheckMnistOutput((const float*)preallocated_data, 10);
  OK(g_api->GetBoundOutputNames(binding, &names, &count));
  CHECK(count == 1 && strcmp(names[0], "output") == 0);
  g_api->ReleaseStringArray(names, count);
  OK(g_api->GetBoundOutputValues(binding, &values, &count));
  CHECK(count == 1);
  if (count == 1) {
    OK(g_api->GetTensorMutableData(values[0], &bound_data));
    CHECK(bound_data == preallocated_data);
    g_api->ReleaseValue(values[0]);
  }
  g_api->ReleaseValueArray(values);

  /* Bound to CPU memory: the run allocates the result. */
  OK(g_api->ClearBoundOutputs(binding));
  OK(g_api->BindOutputToDevice(binding, "output", cpu));
  OK(g_api->RunWithBinding(session, NULL, binding));
  OK(g_api->GetBoundOutputValues(binding, &values, &count));
  CHECK(count == 1);
  if (count == 1) {
    CheckOutputValue(values[0]);
    g_api->ReleaseValue(values[0]);
  }
  g_api->ReleaseValueArray(values);

  /* A preallocated output of the wrong shape is refused, naming the output. */
  OK(g_api->CreateTensorAsValue(allocator, kWrongShape, 2, PRISM_TYPE_FLOAT, &wrong));
  OK(g_api->BindOutput(binding, "output", wrong));
  EXPECT_ERROR(g_api->RunWithBinding(session, NULL, binding), PRISM_INVALID_ARGUMENT,
               "output 'output'");
  OK(g_api->GetBoundOutputValues(binding, &values, &count));
  CHECK(count == 0 && values == NULL);

  /* Inputs bound by name: a wrong name fails at run time, naming it. */
  OK(g_api->ClearBoundInputs(binding));
  OK(g_api->BindInput(binding, "not_an_input", input));
  OK(g_api->BindOutput(binding, "output", preallocated));
  EXPECT_ERROR(g_api->RunWithBinding(session, NULL, binding), PRISM_INVALID_ARGUMENT,
               "not_an_input");

  g_api->ReleaseIoBinding(binding);
  g_api->ReleaseValue(wrong);
  g_api->ReleaseValue(preallocated);
  g_api->ReleaseValue(input);
  g_api->ReleaseMemoryInfo(cpu);
  g_api->ReleaseAllocator(allocator); /* the default allocator: a no-op */
  free(data);
}

static void TestRunErrors(PrismSession* session) {
  static const int64_t kShape[4] = {1, 1, 28, 28};
  const char* good_names[1] = {"input"};
  const char* bad_names[1] = {"no_such_input"};
  const char* output_names[1] = {"output"};
  const char* bad_output_names[1] = {"no_such_output"};
  PrismMemoryInfo* cpu = NULL;
  PrismValue* input = NULL;
  PrismValue* int_input = NULL;
  PrismValue* output = NULL;
  PrismRunOptions* run_options = NULL;
  static float floats[784];
  static int64_t ints[784];

  OK(g_api->CreateCpuMemoryInfo(PRISM_DEVICE_ALLOCATOR, PRISM_MEM_DEFAULT, &cpu));
  OK(g_api->CreateTensorWithDataAsValue(cpu, floats, sizeof(floats), kShape, 4, PRISM_TYPE_FLOAT,
                                        &input));
  OK(g_api->CreateTensorWithDataAsValue(cpu, ints, sizeof(ints), kShape, 4, PRISM_TYPE_INT64,
                                        &int_input));

  EXPECT_ERROR(g_api->Run(session, NULL, bad_names, (const PrismValue* const*)&input, 1,
                          output_names, 1, &output),
               PRISM_INVALID_ARGUMENT, "no_such_input");
  CHECK(output == NULL);
  EXPECT_ERROR(g_api->Run(session, NULL, good_names, (const PrismValue* const*)&int_input, 1,
                          output_names, 1, &output),
               PRISM_INVALID_ARGUMENT, "int64");
  EXPECT_ERROR(g_api->Run(session, NULL, good_names, (const PrismValue* const*)&input, 1,
                          bad_output_names, 1, &output),
               PRISM_INVALID_ARGUMENT, "no_such_output");
  EXPECT_ERROR(g_api->Run(session, NULL, good_names, (const PrismValue* const*)&input, 1,
                          output_names, 0, &output),
               PRISM_INVALID_ARGUMENT, "output_count");
  EXPECT_ERROR(g_api->Run(session, NULL, NULL, NULL, 0, output_names, 1, &output),
               PRISM_INVALID_ARGUMENT, "missing input 'input'");
  EXPECT_ERROR(g_api->Run(NULL, NULL, good_names, (const PrismValue* const*)&input, 1, output_names,
                          1, &output),
               PRISM_INVALID_ARGUMENT, "argument 'session' is NULL");

  /* A terminated run fails; unsetting the flag lets the next one through. */
  OK(g_api->CreateRunOptions(&run_options));
  OK(g_api->RunOptionsSetRunTag(run_options, "capi-test"));
  OK(g_api->RunOptionsSetRunLogSeverityLevel(run_options, PRISM_LOGGING_ERROR));
  OK(g_api->RunOptionsSetTerminate(run_options));
  EXPECT_ERROR(g_api->Run(session, run_options, good_names, (const PrismValue* const*)&input, 1,
                          output_names, 1, &output),
               PRISM_FAIL, "terminated");
  OK(g_api->RunOptionsUnsetTerminate(run_options));
  RunMnist(session, run_options);
  EXPECT_ERROR(g_api->RunOptionsSetRunLogSeverityLevel(run_options, 7), PRISM_INVALID_ARGUMENT,
               "between 0");

  g_api->ReleaseRunOptions(run_options);
  g_api->ReleaseValue(int_input);
  g_api->ReleaseValue(input);
  g_api->ReleaseMemoryInfo(cpu);
}

static void TestMnist(PrismEnv* env) {
  PrismSessionOptions* options = NULL;
  PrismSessionOptions* clone = NULL;
  PrismSession* session = NULL;
  PrismSession* from_bytes = NULL;
  char* path = DataPath("mnist_cnn.onnx");
  size_t size = 0;
  void* bytes;

  OK(g_api->CreateSessionOptions(&options));
  OK(g_api->SetIntraOpNumThreads(options, 1));
  OK(g_api->SetInterOpNumThreads(options, 1));
  OK(g_api->SetGraphOptimizationLevel(options, PRISM_ENABLE_ALL));
  OK(g_api->SetExecutionMode(options, PRISM_SEQUENTIAL));
  OK(g_api->SetSessionLogSeverityLevel(options, PRISM_LOGGING_WARNING));
  OK(g_api->SetSessionLogId(options, "capi-test"));
  OK(g_api->EnableCpuMemArena(options, 1));
  OK(g_api->EnableMemPattern(options, 1));
  OK(g_api->AddSessionConfigEntry(options, "session.fail_on_unavailable_provider", "1"));
  {
    const char* disabled[2] = {"ConstantFolding", NULL};
    OK(g_api->SetDisabledOptimizers(options, disabled, 1));
    EXPECT_ERROR(g_api->SetDisabledOptimizers(options, disabled, 2), PRISM_INVALID_ARGUMENT,
                 "names[1] is NULL");
    OK(g_api->SetDisabledOptimizers(options, NULL, 0));
    OK(g_api->SetDisabledOptimizers(options, disabled, 1));
  }
  OK(g_api->CloneSessionOptions(options, &clone));
  OK(g_api->CreateSession(env, path, clone, &session));
  g_api->ReleaseSessionOptions(clone); /* the session keeps its own copy */

  TestMnistInspection(session);
  RunMnist(session, NULL);
  TestIoBinding(session);
  TestRunWithBuffers(session);
  TestRunErrors(session);

  bytes = ReadFile("mnist_cnn.onnx", &size);
  OK(g_api->CreateSessionFromArray(env, bytes, size, options, &from_bytes));
  free(bytes); /* not needed after the call */
  RunMnist(from_bytes, NULL);

  g_api->ReleaseSession(from_bytes);
  g_api->ReleaseSession(session);
  g_api->ReleaseSessionOptions(options);
  free(path);
}

/* A run failing in an EP is retried on the CPU EP alone, once, with a notice (version 2). */
static void TestFallback(PrismEnv* env) {
  static const char* kKeys[2] = {"ops", "fail_compute"};
  static const char* kValues[2] = {"Conv", "1"};
  PrismSessionOptions* options = NULL;
  PrismSession* session = NULL;
  PrismSession* strict = NULL;
  char* path = DataPath("mnist_cnn.onnx");
  char* notice = NULL;
  char** names = NULL;
  size_t count = 0;
  int enabled = -1;

  OK(g_api->CreateSessionOptions(&options));
  OK(g_api->AppendExecutionProvider(options, "TestExecutionProvider", kKeys, kValues, 2));
  OK(g_api->AddSessionConfigEntry(options, "session.fail_on_unavailable_provider", "1"));
  OK(g_api->CreateSession(env, path, options, &session));
  OK(g_api->SessionGetFallbackEnabled(session, &enabled));
  CHECK(enabled == 1);
  OK(g_api->SessionTakeFallbackNotice(session, &notice));
  CHECK(notice != NULL && notice[0] == '\0');
  g_api->ReleaseString(notice);
  RunMnist(session, NULL); /* the test EP's Conv fails; the retry on the CPU EP is right */
  OK(g_api->SessionGetProviders(session, &names, &count));
  CHECK(count == 1 && strcmp(names[0], "CPUExecutionProvider") == 0);
  g_api->ReleaseStringArray(names, count);
  OK(g_api->SessionGetFallbackEnabled(session, &enabled));
  CHECK(enabled == 0);
  OK(g_api->SessionTakeFallbackNotice(session, &notice));
  CHECK(notice != NULL && strstr(notice, "simulated device failure") != NULL &&
        strstr(notice, "Falling back to ['CPUExecutionProvider'] and retrying.") != NULL);
  g_api->ReleaseString(notice);

  OK(g_api->CreateSession(env, path, options, &strict));
  OK(g_api->SessionSetFallbackEnabled(strict, 0));
  {
    static const int64_t kShape[4] = {1, 1, 28, 28};
    const char* input_names[1] = {"input"};
    const char* output_names[1] = {"output"};
    PrismMemoryInfo* cpu = NULL;
    PrismValue* input = NULL;
    PrismValue* output = NULL;
    size_t size = 0;
    float* data = (float*)ReadFile("mnist_input.bin", &size);
    OK(g_api->CreateCpuMemoryInfo(PRISM_DEVICE_ALLOCATOR, PRISM_MEM_DEFAULT, &cpu));
    OK(g_api->CreateTensorWithDataAsValue(cpu, data, size, kShape, 4, PRISM_TYPE_FLOAT, &input));
    EXPECT_ERROR(g_api->Run(strict, NULL, input_names, (const PrismValue* const*)&input, 1,
                            output_names, 1, &output),
                 PRISM_EP_FAIL, "simulated device failure");
    CHECK(output == NULL);
    g_api->ReleaseValue(input);
    g_api->ReleaseMemoryInfo(cpu);
    free(data);
  }
  g_api->ReleaseSession(strict);
  g_api->ReleaseSession(session);
  g_api->ReleaseSessionOptions(options);
  free(path);
}

/* The value of key in a SessionGetAllocatorStats answer (-1 when absent). */
static long long StatOf(char** keys, char** values, size_t count, const char* key) {
  for (size_t i = 0; i < count; ++i)
    if (strcmp(keys[i], key) == 0) return atoll(values[i]);
  return -1;
}

static long long CpuAllocs(PrismSession* session, const char* key) {
  char** keys = NULL;
  char** values = NULL;
  size_t count = 0;
  OK(g_api->SessionGetAllocatorStats(session, "Cpu", 0, &keys, &values, &count));
  const long long value = StatOf(keys, values, count, key);
  g_api->ReleaseStringArray(keys, count);
  g_api->ReleaseStringArray(values, count);
  return value;
}

/* The session's CPU arena and memory pattern seen through the allocator statistics; run config
   entries reach the run. */
static void TestAllocatorStats(PrismEnv* env) {
  PrismSessionOptions* options = NULL;
  PrismSession* session = NULL;
  PrismRunOptions* run_options = NULL;
  char* path = DataPath("mnist_cnn.onnx");
  char** keys = NULL;
  char** values = NULL;
  size_t count = 0;

  OK(g_api->CreateSessionOptions(&options));
  OK(g_api->CreateSession(env, path, options, &session));
  RunMnist(session, NULL); /* records the memory pattern */
  CHECK(CpuAllocs(session, "Arena") == 1);
  const long long before = CpuAllocs(session, "NumAllocs");
  const long long reserves = CpuAllocs(session, "NumReserves");
  RunMnist(session, NULL);
  /* One block for the pattern, one buffer for the one output; nothing from the system. */
  CHECK(CpuAllocs(session, "NumAllocs") - before <= 2);
  CHECK(CpuAllocs(session, "NumReserves") == reserves);
  CHECK(CpuAllocs(session, "TotalAllocated") >= CpuAllocs(session, "MaxInUse"));
  EXPECT_ERROR(g_api->SessionGetAllocatorStats(session, "Gpu", 0, &keys, &values, &count),
               PRISM_INVALID_ARGUMENT, "no allocator for Gpu:0 memory; it has: Cpu:0");

  OK(g_api->CreateRunOptions(&run_options));
  OK(g_api->AddRunConfigEntry(run_options, "memory.enable_memory_arena_shrinkage", "cpu:0"));
  RunMnist(session, run_options);
  OK(g_api->AddRunConfigEntry(run_options, "memory.enable_memory_arena_shrinkage", "cpu"));
  {
    static const int64_t kShape[4] = {1, 1, 28, 28};
    const char* input_names[1] = {"input"};
    const char* output_names[1] = {"output"};
    PrismMemoryInfo* cpu = NULL;
    PrismValue* input = NULL;
    PrismValue* output = NULL;
    size_t size = 0;
    float* data = (float*)ReadFile("mnist_input.bin", &size);
    OK(g_api->CreateCpuMemoryInfo(PRISM_DEVICE_ALLOCATOR, PRISM_MEM_DEFAULT, &cpu));
    OK(g_api->CreateTensorWithDataAsValue(cpu, data, size, kShape, 4, PRISM_TYPE_FLOAT, &input));
    EXPECT_ERROR(g_api->Run(session, run_options, input_names, (const PrismValue* const*)&input, 1,
                            output_names, 1, &output),
                 PRISM_INVALID_ARGUMENT, "'cpu' is not of the form device:id");
    g_api->ReleaseValue(input);
    g_api->ReleaseMemoryInfo(cpu);
    free(data);
  }
  EXPECT_ERROR(g_api->AddRunConfigEntry(run_options, "", "x"), PRISM_INVALID_ARGUMENT,
               "the key is empty");
  g_api->ReleaseRunOptions(run_options);
  g_api->ReleaseSession(session);
  g_api->ReleaseSessionOptions(options);
  free(path);
}

static long long PrepackStat(PrismSession* session, const char* key) {
  char** keys = NULL;
  char** values = NULL;
  size_t count = 0;
  OK(g_api->SessionGetPrepackStats(session, &keys, &values, &count));
  const long long value = StatOf(keys, values, count, key);
  g_api->ReleaseStringArray(keys, count);
  g_api->ReleaseStringArray(values, count);
  return value;
}

/* mnist_cnn's two Gemms pack their constant weights and release the originals, and its two
   Convs (com.microsoft.nchwc at the default level, their padded filters derived by the layout
   pass, so no model weight to release) pack theirs; sessions made with one container share the
   packed forms; the outputs stay onnxruntime's; the opt-out. */
static void TestPrepackedWeights(PrismEnv* env) {
  PrismSessionOptions* options = NULL;
  PrismPrepackedWeightsContainer* container = NULL;
  PrismSession* first = NULL;
  PrismSession* second = NULL;
  PrismSession* alone = NULL;
  char* path = DataPath("mnist_cnn.onnx");
  size_t size = 0;
  void* bytes = ReadFile("mnist_cnn.onnx", &size);

  OK(g_api->CreateSessionOptions(&options));
  OK(g_api->CreatePrepackedWeightsContainer(&container));
  OK(g_api->CreateSessionWithPrepackedWeightsContainer(env, path, options, container, &first));
  CHECK(PrepackStat(first, "PackedInputs") == 4);
  CHECK(PrepackStat(first, "PackedWeights") == 4);
  CHECK(PrepackStat(first, "OriginalsReleased") == 2);
  CHECK(PrepackStat(first, "ReleasedBytes") == (512LL * 3136 + 10 * 512) * 4);
  CHECK(PrepackStat(first, "SharedHits") == 0);
  OK(g_api->CreateSessionFromArrayWithPrepackedWeightsContainer(env, bytes, size, options,
                                                                container, &second));
  CHECK(PrepackStat(second, "PackedWeights") == 4); /* nothing new packed */
  CHECK(PrepackStat(second, "SharedHits") == 4);
  g_api->ReleasePrepackedWeightsContainer(container); /* the sessions keep what they use */
  RunMnist(first, NULL);
  RunMnist(second, NULL);

  OK(g_api->AddSessionConfigEntry(options, "session.disable_prepacking", "1"));
  OK(g_api->CreateSession(env, path, options, &alone));
  CHECK(PrepackStat(alone, "PackedInputs") == 0);
  CHECK(PrepackStat(alone, "OriginalsReleased") == 0);
  RunMnist(alone, NULL);
  EXPECT_ERROR(g_api->CreateSessionWithPrepackedWeightsContainer(env, path, options, NULL, &alone),
               PRISM_INVALID_ARGUMENT, "argument 'container' is NULL");

  g_api->ReleaseSession(alone);
  g_api->ReleaseSession(second);
  g_api->ReleaseSession(first);
  g_api->ReleaseSessionOptions(options);
  free(bytes);
  free(path);
}

/* Sessions without per-session threads run on the global pools. */
static void TestGlobalThreadPools(void) {
  PrismThreadingOptions* threading = NULL;
  PrismEnv* env = NULL;
  PrismSessionOptions* options = NULL;
  PrismSession* session = NULL;
  char* path = DataPath("mnist_cnn.onnx");

  OK(g_api->CreateThreadingOptions(&threading));
  EXPECT_ERROR(g_api->SetGlobalIntraOpNumThreads(threading, -1), PRISM_INVALID_ARGUMENT,
               "threads must be >= 0, got -1");
  OK(g_api->SetGlobalIntraOpNumThreads(threading, 2));
  OK(g_api->SetGlobalInterOpNumThreads(threading, 1));
  OK(g_api->CreateEnvWithGlobalThreadPools(PRISM_LOGGING_WARNING, "global", threading, &env));
  OK(g_api->SetGlobalIntraOpNumThreads(threading, 3));
  EXPECT_ERROR(
      g_api->CreateEnvWithGlobalThreadPools(PRISM_LOGGING_WARNING, "again", threading, &env),
      PRISM_INVALID_ARGUMENT, "exist already with 2 intra-op and 1 inter-op threads");
  OK(g_api->CreateSessionOptions(&options));
  OK(g_api->DisablePerSessionThreads(options));
  OK(g_api->CreateSession(env, path, options, &session));
  RunMnist(session, NULL);
  g_api->ReleaseSession(session);
  g_api->ReleaseSessionOptions(options);
  g_api->ReleaseEnv(env);
  g_api->ReleaseThreadingOptions(threading);
  free(path);
}

/* Profiling writes a trace at SessionEndProfiling, once. */
/* Version 5's logging and options: a custom logger receives the session's and the run's
   messages with their ids; config entries read back; build information. */
static int g_logged_session;
static int g_logged_run_nodes;

static void CountMessages(void* param, PrismLoggingLevel severity, const char* category,
                          const char* log_id, const char* code_location, const char* message) {
  (void)param;
  (void)severity;
  (void)code_location;
  CHECK(strcmp(category, "prism") == 0);
  if (strcmp(log_id, "c-session") == 0 && strstr(message, "session initialized") != NULL)
    ++g_logged_session;
  if (strcmp(log_id, "c-run") == 0 && strstr(message, ": run ") != NULL) ++g_logged_run_nodes;
}

static void TestLoggingAndOptions(void) {
  PrismEnv* env = NULL;
  PrismSessionOptions* options = NULL;
  PrismRunOptions* run_options = NULL;
  PrismSession* session = NULL;
  char* model = DataPath("mnist_cnn.onnx");
  const char* value = NULL;
  uint64_t start = 1;

  OK(g_api->CreateEnvWithCustomLogger(CountMessages, NULL, PRISM_LOGGING_ERROR, "c-logger", &env));
  OK(g_api->CreateSessionOptions(&options));
  OK(g_api->SetSessionLogSeverityLevel(options, PRISM_LOGGING_VERBOSE));
  OK(g_api->SetSessionLogId(options, "c-session"));
  OK(g_api->EnableMemReuse(options, 0));
  OK(g_api->SetDeterministicCompute(options, 1));
  OK(g_api->SetGraphOptimizationLevel(options, PRISM_ENABLE_LAYOUT));
  OK(g_api->AddSessionConfigEntry(options, "session.set_denormal_as_zero", "1"));
  OK(g_api->GetSessionConfigEntry(options, "session.set_denormal_as_zero", &value));
  CHECK(value != NULL && strcmp(value, "1") == 0);
  OK(g_api->GetSessionConfigEntry(options, "no.such.key", &value));
  CHECK(value == NULL);
  OK(g_api->CreateSession(env, model, options, &session));
  CHECK(g_logged_session == 1);
  OK(g_api->SessionGetProfilingStartTimeNs(session, &start));
  CHECK(start == 0); /* profiling is off */

  OK(g_api->CreateRunOptions(&run_options));
  OK(g_api->RunOptionsSetRunTag(run_options, "c-run"));
  OK(g_api->RunOptionsSetRunLogSeverityLevel(run_options, PRISM_LOGGING_VERBOSE));
  RunMnist(session, run_options);
  CHECK(g_logged_run_nodes == 0); /* verbosity 0: no per-node messages */
  OK(g_api->RunOptionsSetRunLogVerbosityLevel(run_options, 1));
  OK(g_api->RunOptionsSetOnlyExecutePathToFetches(run_options, 1));
  OK(g_api->AddRunConfigEntry(run_options, "memory.enable_memory_arena_shrinkage", "cpu:0"));
  OK(g_api->GetRunConfigEntry(run_options, "memory.enable_memory_arena_shrinkage", &value));
  CHECK(value != NULL && strcmp(value, "cpu:0") == 0);
  OK(g_api->GetRunConfigEntry(run_options, "no.such.key", &value));
  CHECK(value == NULL);
  RunMnist(session, run_options);
  CHECK(g_logged_run_nodes > 0);
  EXPECT_ERROR(g_api->RunOptionsSetRunLogVerbosityLevel(run_options, -1), PRISM_INVALID_ARGUMENT,
               "verbosity");
  EXPECT_ERROR(g_api->SetLogVerbosityLevel(env, -2), PRISM_INVALID_ARGUMENT, "verbosity");
  OK(g_api->SetLogVerbosityLevel(env, 0));
  OK(g_api->SetRandomSeed(42));
  CHECK(strncmp(g_api->GetBuildInfoString(), "Prism Build Info: version=0.1.0", 31) == 0);

  g_api->ReleaseRunOptions(run_options);
  g_api->ReleaseSession(session);
  g_api->ReleaseSessionOptions(options);
  g_api->ReleaseEnv(env);
  free(model);
}

static void TestProfiling(PrismEnv* env) {
  PrismSessionOptions* options = NULL;
  PrismSession* session = NULL;
  char* model = DataPath("mnist_cnn.onnx");
  char* prefix = DataPath("capi_profile");
  char* trace = NULL;
  FILE* file;
  long size = 0;

  OK(g_api->CreateSessionOptions(&options));
  OK(g_api->CreateSession(env, model, options, &session));
  OK(g_api->SessionEndProfiling(session, &trace));
  CHECK(strcmp(trace, "") == 0); /* profiling is off */
  g_api->ReleaseString(trace);
  g_api->ReleaseSession(session);

  OK(g_api->EnableProfiling(options, prefix));
  OK(g_api->CreateSession(env, model, options, &session));
  RunMnist(session, NULL);
  OK(g_api->SessionEndProfiling(session, &trace));
  CHECK(strncmp(trace, prefix, strlen(prefix)) == 0);
  file = fopen(trace, "rb");
  CHECK(file != NULL);
  if (file != NULL) {
    if (fseek(file, 0, SEEK_END) == 0) size = ftell(file);
    fclose(file);
    remove(trace);
  }
  CHECK(size > 0);
  g_api->ReleaseString(trace);
  OK(g_api->SessionEndProfiling(session, &trace));
  CHECK(strcmp(trace, "") == 0); /* already ended */
  g_api->ReleaseString(trace);
  OK(g_api->DisableProfiling(options));

  g_api->ReleaseSession(session);
  g_api->ReleaseSessionOptions(options);
  free(prefix);
  free(model);
}

static void TestStrings(PrismEnv* env) {
  static const int64_t kShape[1] = {3};
  static const char kWithNul[3] = {'a', '\0', 'b'};
  const char* strings[3];
  size_t lengths[3];
  const char* input_names[1] = {"text"};
  const char* output_names[1] = {"text_out"};
  PrismSessionOptions* options = NULL;
  PrismSession* session = NULL;
  PrismTypeInfo* type_info = NULL;
  const PrismTensorTypeAndShapeInfo* tensor_info = NULL;
  PrismModelMetadata* metadata = NULL;
  PrismAllocator* allocator = NULL;
  PrismValue* input = NULL;
  PrismValue* output = NULL;
  const char* symbols[1] = {NULL};
  int64_t dims[1] = {0};
  int64_t element_count = 0;
  const char* key = NULL;
  const char* value = NULL;
  const char* text = NULL;
  int64_t version = 0;
  size_t count = 0;
  size_t length = 0;
  void* raw = NULL;
  size_t i;
  char* path = DataPath("string_identity.onnx");

  strings[0] = "hello";
  lengths[0] = 5;
  strings[1] = "";
  lengths[1] = 0;
  strings[2] = kWithNul;
  lengths[2] = 3;

  OK(g_api->CreateSessionOptions(&options));
  OK(g_api->CreateSession(env, path, options, &session));

  /* A symbolic dim: -1 with its name. */
  OK(g_api->SessionGetInputTypeInfo(session, 0, &type_info));
  OK(g_api->TypeInfoGetTypeString(type_info, &text));
  CHECK(strcmp(text, "tensor(string)") == 0);
  OK(g_api->TypeInfoGetTensorInfo(type_info, &tensor_info));
  OK(g_api->TensorInfoGetDimensions(tensor_info, dims, 1));
  OK(g_api->TensorInfoGetSymbolicDimensions(tensor_info, symbols, 1));
  OK(g_api->TensorInfoGetElementCount(tensor_info, &element_count));
  CHECK(dims[0] == -1);
  CHECK(strcmp(symbols[0], "n") == 0);
  CHECK(element_count == -1);
  EXPECT_ERROR(g_api->TensorInfoGetDimensions(tensor_info, dims, 2), PRISM_INVALID_ARGUMENT,
               "rank");
  g_api->ReleaseTypeInfo(type_info);

  /* Metadata, custom properties in key order. */
  OK(g_api->SessionGetModelMetadata(session, &metadata));
  OK(g_api->ModelMetadataGetProducerName(metadata, &text));
  CHECK(strcmp(text, "prism-capi-test") == 0);
  OK(g_api->ModelMetadataGetDomain(metadata, &text));
  CHECK(strcmp(text, "ai.prism.test") == 0);
  OK(g_api->ModelMetadataGetGraphDescription(metadata, &text));
  CHECK(strcmp(text, "passes strings through") == 0);
  OK(g_api->ModelMetadataGetVersion(metadata, &version));
  CHECK(version == 3);
  OK(g_api->ModelMetadataGetCustomMetadataCount(metadata, &count));
  CHECK(count == 2);
  OK(g_api->ModelMetadataGetCustomMetadata(metadata, 0, &key, &value));
  CHECK(strcmp(key, "author") == 0 && strcmp(value, "prism") == 0);
  OK(g_api->ModelMetadataGetCustomMetadata(metadata, 1, &key, &value));
  CHECK(strcmp(key, "purpose") == 0 && strcmp(value, "string identity") == 0);
  EXPECT_ERROR(g_api->ModelMetadataGetCustomMetadata(metadata, 2, &key, &value),
               PRISM_INVALID_ARGUMENT, "out of range");
  g_api->ReleaseModelMetadata(metadata);

  /* Strings in, the same strings out (an embedded NUL and an empty one included). */
  OK(g_api->GetAllocatorWithDefaultOptions(&allocator));
  OK(g_api->CreateTensorAsValue(allocator, kShape, 1, PRISM_TYPE_STRING, &input));
  EXPECT_ERROR(g_api->FillStringTensor(input, strings, lengths, 2), PRISM_INVALID_ARGUMENT,
               "count 2");
  EXPECT_ERROR(g_api->GetTensorMutableData(input, &raw), PRISM_INVALID_ARGUMENT,
               "GetStringTensorElement");
  OK(g_api->FillStringTensor(input, strings, lengths, 3));
  OK(g_api->Run(session, NULL, input_names, (const PrismValue* const*)&input, 1, output_names, 1,
                &output));
  for (i = 0; i < 3; ++i) {
    OK(g_api->GetStringTensorElement(output, i, &text, &length));
    CHECK(length == lengths[i]);
    if (length == lengths[i]) CHECK(memcmp(text, strings[i], length) == 0);
  }
  EXPECT_ERROR(g_api->GetStringTensorElement(output, 3, &text, &length), PRISM_INVALID_ARGUMENT,
               "out of range");

  g_api->ReleaseValue(output);
  g_api->ReleaseValue(input);
  g_api->ReleaseSession(session);
  g_api->ReleaseSessionOptions(options);
  free(path);
}

/* Every element type can be created, with packed sizes for the sub-byte types. */
static void TestElementTypes(void) {
  static const int kBits[29] = {0,   32, 8, 8, 16, 16, 32, 64, 0, 8, 16, 64, 32, 64, 64,
                                128, 16, 8, 8, 8,  8,  4,  4,  4, 8, 2,  2,  6,  6};
  static const int64_t kShape[2] = {3, 5};
  static unsigned char buffer[15 * 16];
  PrismAllocator* allocator = NULL;
  PrismMemoryInfo* cpu = NULL;
  PrismValue* value = NULL;
  PrismTensorTypeAndShapeInfo* info = NULL;
  PrismElementType actual = PRISM_TYPE_UNDEFINED;
  size_t bytes = 0;
  int type;

  OK(g_api->GetAllocatorWithDefaultOptions(&allocator));
  OK(g_api->CreateCpuMemoryInfo(PRISM_DEVICE_ALLOCATOR, PRISM_MEM_DEFAULT, &cpu));
  for (type = PRISM_TYPE_FLOAT; type <= PRISM_TYPE_FLOAT6E3M2; ++type) {
    const size_t expected = (size_t)(15 * kBits[type] + 7) / 8;
    OK(g_api->CreateTensorAsValue(allocator, kShape, 2, (PrismElementType)type, &value));
    OK(g_api->GetTensorTypeAndShape(value, &info));
    OK(g_api->TensorInfoGetElementType(info, &actual));
    CHECK(actual == (PrismElementType)type);
    g_api->ReleaseTensorTypeAndShapeInfo(info);
    if (type == PRISM_TYPE_STRING) {
      const char* text = NULL;
      size_t length = 1;
      OK(g_api->GetStringTensorElement(value, 14, &text, &length));
      CHECK(length == 0);
      g_api->ReleaseValue(value);
      EXPECT_ERROR(g_api->CreateTensorWithDataAsValue(cpu, buffer, sizeof(buffer), kShape, 2,
                                                      PRISM_TYPE_STRING, &value),
                   PRISM_INVALID_ARGUMENT, "FillStringTensor");
      continue;
    }
    OK(g_api->GetTensorSizeInBytes(value, &bytes));
    if (bytes != expected)
      fprintf(stderr, "type %d: %u bytes, expected %u\n", type, (unsigned)bytes,
              (unsigned)expected);
    CHECK(bytes == expected);
    g_api->ReleaseValue(value);

    /* Over caller memory: exactly the packed size is enough, one byte less is not. */
    OK(g_api->CreateTensorWithDataAsValue(cpu, buffer, expected, kShape, 2, (PrismElementType)type,
                                          &value));
    OK(g_api->GetTensorSizeInBytes(value, &bytes));
    CHECK(bytes == expected);
    g_api->ReleaseValue(value);
    EXPECT_ERROR(g_api->CreateTensorWithDataAsValue(cpu, buffer, expected - 1, kShape, 2,
                                                    (PrismElementType)type, &value),
                 PRISM_INVALID_ARGUMENT, "data_length");
  }
  EXPECT_ERROR(g_api->CreateTensorAsValue(allocator, kShape, 2, PRISM_TYPE_UNDEFINED, &value),
               PRISM_INVALID_ARGUMENT, "element type 0");
  EXPECT_ERROR(g_api->CreateTensorAsValue(allocator, kShape, 2, (PrismElementType)29, &value),
               PRISM_INVALID_ARGUMENT, "element type 29");
  g_api->ReleaseMemoryInfo(cpu);
}

static void TestSequencesAndOptionals(void) {
  static const int64_t kShape[1] = {2};
  static float first[2] = {1.0f, 2.0f};
  static float second[2] = {3.0f, 4.0f};
  static int64_t ints[2] = {5, 6};
  PrismMemoryInfo* cpu = NULL;
  PrismValue* elements[2] = {NULL, NULL};
  PrismValue* mixed[2] = {NULL, NULL};
  PrismValue* sequence = NULL;
  PrismValue* element = NULL;
  PrismValue* optional = NULL;
  PrismValueKind kind = PRISM_VALUE_UNKNOWN;
  size_t length = 0;
  void* data = NULL;
  int has_value = -1;

  OK(g_api->CreateCpuMemoryInfo(PRISM_DEVICE_ALLOCATOR, PRISM_MEM_DEFAULT, &cpu));
  OK(g_api->CreateTensorWithDataAsValue(cpu, first, sizeof(first), kShape, 1, PRISM_TYPE_FLOAT,
                                        &elements[0]));
  OK(g_api->CreateTensorWithDataAsValue(cpu, second, sizeof(second), kShape, 1, PRISM_TYPE_FLOAT,
                                        &elements[1]));
  OK(g_api->CreateSequenceValue((const PrismValue* const*)elements, 2, &sequence));
  OK(g_api->GetValueKind(sequence, &kind));
  CHECK(kind == PRISM_VALUE_SEQUENCE);
  OK(g_api->GetSequenceLength(sequence, &length));
  CHECK(length == 2);
  OK(g_api->GetSequenceElement(sequence, 1, &element));
  OK(g_api->GetTensorMutableData(element, &data));
  CHECK(((const float*)data)[0] == 3.0f && ((const float*)data)[1] == 4.0f);
  EXPECT_ERROR(g_api->GetSequenceElement(sequence, 2, &element), PRISM_INVALID_ARGUMENT,
               "out of range");
  EXPECT_ERROR(g_api->GetTensorMutableData(sequence, &data), PRISM_INVALID_ARGUMENT,
               "expected a tensor");

  mixed[0] = elements[0];
  OK(g_api->CreateTensorWithDataAsValue(cpu, ints, sizeof(ints), kShape, 1, PRISM_TYPE_INT64,
                                        &mixed[1]));
  EXPECT_ERROR(g_api->CreateSequenceValue((const PrismValue* const*)mixed, 2, &sequence),
               PRISM_INVALID_ARGUMENT, "one element type");

  OK(g_api->CreateEmptyOptionalValue(&optional));
  OK(g_api->GetValueKind(optional, &kind));
  CHECK(kind == PRISM_VALUE_OPTIONAL);
  OK(g_api->ValueHasValue(optional, &has_value));
  CHECK(has_value == 0);
  OK(g_api->ValueHasValue(sequence, &has_value));
  CHECK(has_value == 1);

  g_api->ReleaseValue(optional);
  g_api->ReleaseValue(mixed[1]);
  g_api->ReleaseValue(element);
  g_api->ReleaseValue(sequence);
  g_api->ReleaseValue(elements[1]);
  g_api->ReleaseValue(elements[0]);
  g_api->ReleaseMemoryInfo(cpu);
}

/* DescribeValue (version 8) against the one-question-per-call functions: a rank-3 float tensor
   (also through a dims array too short for it), an empty tensor, a string tensor, a sequence,
   an empty optional, and the out pointers it requires. */
static void TestDescribeValue(void) {
  static const int64_t kShape[3] = {2, 1, 3};
  static const int64_t kEmptyShape[2] = {4, 0};
  static const int64_t kStringShape[1] = {2};
  float numbers[6] = {1, 2, 3, 4, 5, 6};
  PrismMemoryInfo* cpu = NULL;
  PrismAllocator* allocator = NULL;
  PrismValue* tensor = NULL;
  PrismValue* empty = NULL;
  PrismValue* strings = NULL;
  PrismValue* sequence = NULL;
  PrismValue* optional = NULL;
  const char* texts[2] = {"ab", "c"};
  const size_t lengths[2] = {2, 1};
  int has_value = -1;
  PrismValueKind kind = PRISM_VALUE_UNKNOWN;
  PrismElementType type = PRISM_TYPE_UNDEFINED;
  size_t rank = 99, size = 99;
  int64_t dims[4] = {-1, -1, -1, -1};
  const void* data = NULL;
  PrismDeviceType device = PRISM_DEVICE_GPU;

  OK(g_api->CreateCpuMemoryInfo(PRISM_DEVICE_ALLOCATOR, PRISM_MEM_DEFAULT, &cpu));
  OK(g_api->CreateTensorWithDataAsValue(cpu, numbers, sizeof(numbers), kShape, 3, PRISM_TYPE_FLOAT,
                                        &tensor));
  OK(g_api->DescribeValue(tensor, &has_value, &kind, &type, &rank, dims, 4, &size, &data, &device));
  CHECK(has_value == 1 && kind == PRISM_VALUE_TENSOR && type == PRISM_TYPE_FLOAT);
  CHECK(rank == 3 && dims[0] == 2 && dims[1] == 1 && dims[2] == 3 && dims[3] == -1);
  CHECK(size == sizeof(numbers) && data == (const void*)numbers && device == PRISM_DEVICE_CPU);
  /* Room for two dims: the rank says how many there are, only two are written. */
  dims[0] = dims[1] = dims[2] = -1;
  OK(g_api->DescribeValue(tensor, &has_value, &kind, &type, &rank, dims, 2, &size, &data, &device));
  CHECK(rank == 3 && dims[0] == 2 && dims[1] == 1 && dims[2] == -1);
  OK(g_api->DescribeValue(tensor, &has_value, &kind, &type, &rank, NULL, 0, &size, &data, &device));
  CHECK(rank == 3 && size == sizeof(numbers));

  OK(g_api->CreateTensorWithDataAsValue(cpu, numbers, 0, kEmptyShape, 2, PRISM_TYPE_FLOAT, &empty));
  OK(g_api->DescribeValue(empty, &has_value, &kind, &type, &rank, dims, 4, &size, &data, &device));
  CHECK(has_value == 1 && rank == 2 && dims[0] == 4 && dims[1] == 0 && size == 0 && data == NULL);

  OK(g_api->GetAllocatorWithDefaultOptions(&allocator));
  OK(g_api->CreateTensorAsValue(allocator, kStringShape, 1, PRISM_TYPE_STRING, &strings));
  OK(g_api->FillStringTensor(strings, texts, lengths, 2));
  data = numbers;
  OK(g_api->DescribeValue(strings, &has_value, &kind, &type, &rank, dims, 4, &size, &data,
                          &device));
  CHECK(kind == PRISM_VALUE_TENSOR && type == PRISM_TYPE_STRING && rank == 1 && dims[0] == 2);
  CHECK(size == 0 && data == NULL);

  OK(g_api->CreateSequenceValue((const PrismValue* const*)&tensor, 1, &sequence));
  data = numbers;
  OK(g_api->DescribeValue(sequence, &has_value, &kind, &type, &rank, dims, 4, &size, &data,
                          &device));
  CHECK(has_value == 1 && kind == PRISM_VALUE_SEQUENCE && type == PRISM_TYPE_UNDEFINED);
  CHECK(rank == 0 && size == 0 && data == NULL && device == PRISM_DEVICE_CPU);

  OK(g_api->CreateEmptyOptionalValue(&optional));
  kind = PRISM_VALUE_MAP;
  OK(g_api->DescribeValue(optional, &has_value, &kind, &type, &rank, dims, 4, &size, &data,
                          &device));
  CHECK(has_value == 0 && kind == PRISM_VALUE_MAP); /* nothing else written */

  EXPECT_ERROR(
      g_api->DescribeValue(NULL, &has_value, &kind, &type, &rank, dims, 4, &size, &data, &device),
      PRISM_INVALID_ARGUMENT, "value");
  EXPECT_ERROR(
      g_api->DescribeValue(tensor, &has_value, &kind, &type, &rank, NULL, 4, &size, &data, &device),
      PRISM_INVALID_ARGUMENT, "dims");
  EXPECT_ERROR(
      g_api->DescribeValue(tensor, &has_value, &kind, &type, &rank, dims, 4, &size, &data, NULL),
      PRISM_INVALID_ARGUMENT, "device_type");

  g_api->ReleaseValue(optional);
  g_api->ReleaseValue(sequence);
  g_api->ReleaseValue(strings);
  g_api->ReleaseAllocator(allocator);
  g_api->ReleaseValue(empty);
  g_api->ReleaseValue(tensor);
  g_api->ReleaseMemoryInfo(cpu);
}

/* A map's keys (int64) and values (float) against the expected ones. */
static void CheckInt64FloatMap(const PrismValue* map, const int64_t* keys, const float* values,
                               size_t count) {
  PrismValue* part = NULL;
  PrismValueKind kind = PRISM_VALUE_UNKNOWN;
  PrismTensorTypeAndShapeInfo* info = NULL;
  int64_t element_count = -1;
  void* data = NULL;
  size_t i;
  OK(g_api->GetValueKind(map, &kind));
  CHECK(kind == PRISM_VALUE_MAP);
  OK(g_api->GetMapKeys(map, &part));
  OK(g_api->GetTensorTypeAndShape(part, &info));
  OK(g_api->TensorInfoGetElementCount(info, &element_count));
  g_api->ReleaseTensorTypeAndShapeInfo(info);
  CHECK(element_count == (int64_t)count);
  OK(g_api->GetTensorMutableData(part, &data));
  for (i = 0; i < count && element_count == (int64_t)count; ++i)
    CHECK(((const int64_t*)data)[i] == keys[i]);
  g_api->ReleaseValue(part);
  OK(g_api->GetMapValues(map, &part));
  OK(g_api->GetTensorMutableData(part, &data));
  for (i = 0; i < count && element_count == (int64_t)count; ++i)
    CHECK(((const float*)data)[i] == values[i]);
  g_api->ReleaseValue(part);
}

/* Maps and sequences of maps made and read back through the ABI, then a DictVectorizer model fed
   a map and a ZipMap model whose seq(map) output matches onnxruntime's. */
static void TestMaps(PrismEnv* env) {
  static const int64_t kThree[1] = {3};
  static const int64_t kTwo[1] = {2};
  static const int64_t kSorted[3] = {10, 20, 30};
  static const float kSortedValues[3] = {1.0f, 2.0f, 3.0f};
  static const int64_t kZipShape[2] = {2, 3};
  const char* strings[2];
  size_t lengths[2];
  const char* input_names[1] = {"X"};
  const char* vector_outputs[1] = {"Y"};
  const char* zip_outputs[1] = {"Z"};
  int64_t keys[3] = {30, 10, 20};
  float values[3] = {3.0f, 1.0f, 2.0f};
  int64_t ints[2] = {7, 8};
  PrismMemoryInfo* cpu = NULL;
  PrismAllocator* allocator = NULL;
  PrismValue* key_tensor = NULL;
  PrismValue* value_tensor = NULL;
  PrismValue* string_keys = NULL;
  PrismValue* int_values = NULL;
  PrismValue* map = NULL;
  PrismValue* string_map = NULL;
  PrismValue* maps[2] = {NULL, NULL};
  PrismValue* mixed[2] = {NULL, NULL};
  PrismValue* sequence = NULL;
  PrismValue* element = NULL;
  PrismValue* part = NULL;
  PrismValue* output = NULL;
  PrismValue* x = NULL;
  PrismSessionOptions* options = NULL;
  PrismSession* session = NULL;
  PrismTypeInfo* type_info = NULL;
  const PrismTensorTypeAndShapeInfo* tensor_info = NULL;
  PrismValueKind kind = PRISM_VALUE_UNKNOWN;
  PrismElementType key_type = PRISM_TYPE_UNDEFINED;
  PrismElementType value_type = PRISM_TYPE_UNDEFINED;
  const char* text = NULL;
  size_t length = 0;
  size_t size = 0;
  void* data = NULL;
  float* zip_input = NULL;
  unsigned char* expected = NULL;
  char* path = NULL;
  size_t i;

  OK(g_api->CreateCpuMemoryInfo(PRISM_DEVICE_ALLOCATOR, PRISM_MEM_DEFAULT, &cpu));
  OK(g_api->GetAllocatorWithDefaultOptions(&allocator));
  OK(g_api->CreateTensorWithDataAsValue(cpu, keys, sizeof(keys), kThree, 1, PRISM_TYPE_INT64,
                                        &key_tensor));
  OK(g_api->CreateTensorWithDataAsValue(cpu, values, sizeof(values), kThree, 1, PRISM_TYPE_FLOAT,
                                        &value_tensor));

  /* The map holds its pairs in key order, in its own copy (keys already in order too). */
  OK(g_api->CreateMapValue(key_tensor, value_tensor, &map));
  keys[0] = 10;
  keys[1] = 20;
  keys[2] = 30;
  OK(g_api->CreateMapValue(key_tensor, value_tensor, &part));
  keys[0] = 99;
  values[0] = -1.0f;
  CheckInt64FloatMap(map, kSorted, kSortedValues, 3);
  {
    static const float kAsGiven[3] = {3.0f, 1.0f, 2.0f};
    CheckInt64FloatMap(part, kSorted, kAsGiven, 3);
  }
  g_api->ReleaseValue(part);
  EXPECT_ERROR(g_api->GetTensorMutableData(map, &data), PRISM_INVALID_ARGUMENT,
               "expected a tensor value, got map(int64,tensor(float)) of 3");
  EXPECT_ERROR(g_api->GetMapKeys(key_tensor, &part), PRISM_INVALID_ARGUMENT, "expected a map");
  EXPECT_ERROR(g_api->CreateMapValue(value_tensor, value_tensor, &part), PRISM_INVALID_ARGUMENT,
               "map keys must be int64 or string");

  /* String keys with int64 values. */
  strings[0] = "b";
  lengths[0] = 1;
  strings[1] = "a";
  lengths[1] = 1;
  OK(g_api->CreateTensorAsValue(allocator, kTwo, 1, PRISM_TYPE_STRING, &string_keys));
  OK(g_api->FillStringTensor(string_keys, strings, lengths, 2));
  OK(g_api->CreateTensorWithDataAsValue(cpu, ints, sizeof(ints), kTwo, 1, PRISM_TYPE_INT64,
                                        &int_values));
  EXPECT_ERROR(g_api->CreateMapValue(string_keys, value_tensor, &part), PRISM_INVALID_ARGUMENT,
               "same length, got 2 keys and 3 values");
  OK(g_api->CreateMapValue(string_keys, int_values, &string_map));
  OK(g_api->GetMapKeys(string_map, &part));
  OK(g_api->GetStringTensorElement(part, 0, &text, &length));
  CHECK(length == 1 && text[0] == 'a');
  g_api->ReleaseValue(part);
  OK(g_api->GetMapValues(string_map, &part));
  OK(g_api->GetTensorMutableData(part, &data));
  CHECK(((const int64_t*)data)[0] == 8 && ((const int64_t*)data)[1] == 7);
  g_api->ReleaseValue(part);

  /* A sequence of maps; its elements come back as maps. */
  maps[0] = map;
  maps[1] = map;
  OK(g_api->CreateSequenceValue((const PrismValue* const*)maps, 2, &sequence));
  OK(g_api->GetValueKind(sequence, &kind));
  CHECK(kind == PRISM_VALUE_SEQUENCE);
  OK(g_api->GetSequenceLength(sequence, &length));
  CHECK(length == 2);
  OK(g_api->GetSequenceElement(sequence, 1, &element));
  CheckInt64FloatMap(element, kSorted, kSortedValues, 3);
  g_api->ReleaseValue(element);
  mixed[0] = map;
  mixed[1] = value_tensor;
  EXPECT_ERROR(g_api->CreateSequenceValue((const PrismValue* const*)mixed, 2, &part),
               PRISM_INVALID_ARGUMENT, "tensors or maps, not both");
  mixed[1] = string_map;
  EXPECT_ERROR(g_api->CreateSequenceValue((const PrismValue* const*)mixed, 2, &part),
               PRISM_INVALID_ARGUMENT, "must share one type");

  /* DictVectorizer: a map input; vocabulary 30, 10, 20 picks 3, 1, 2. */
  OK(g_api->CreateSessionOptions(&options));
  path = DataPath("dict_vectorizer.onnx");
  OK(g_api->CreateSession(env, path, options, &session));
  free(path);
  OK(g_api->SessionGetInputTypeInfo(session, 0, &type_info));
  OK(g_api->TypeInfoGetTypeString(type_info, &text));
  CHECK(strcmp(text, "map(int64,tensor(float))") == 0);
  OK(g_api->TypeInfoGetKind(type_info, &kind));
  CHECK(kind == PRISM_VALUE_MAP);
  OK(g_api->TypeInfoGetTensorInfo(type_info, &tensor_info));
  CHECK(tensor_info == NULL);
  OK(g_api->TypeInfoGetMapTypes(type_info, &key_type, &value_type));
  CHECK(key_type == PRISM_TYPE_INT64 && value_type == PRISM_TYPE_FLOAT);
  g_api->ReleaseTypeInfo(type_info);
  OK(g_api->Run(session, NULL, input_names, (const PrismValue* const*)&map, 1, vector_outputs, 1,
                &output));
  OK(g_api->GetTensorMutableData(output, &data));
  CHECK(((const float*)data)[0] == 3.0f && ((const float*)data)[1] == 1.0f &&
        ((const float*)data)[2] == 2.0f);
  g_api->ReleaseValue(output);
  output = NULL; /* a non-NULL slot would be a preallocated output */
  EXPECT_ERROR(g_api->Run(session, NULL, input_names, (const PrismValue* const*)&value_tensor, 1,
                          vector_outputs, 1, &output),
               PRISM_INVALID_ARGUMENT, "input 'X' expects map(int64,tensor(float))");
  g_api->ReleaseSession(session);

  /* ZipMap: seq(map(int64, float)) as onnxruntime returns it. */
  path = DataPath("zipmap.onnx");
  OK(g_api->CreateSession(env, path, options, &session));
  free(path);
  OK(g_api->SessionGetOutputTypeInfo(session, 0, &type_info));
  OK(g_api->TypeInfoGetTypeString(type_info, &text));
  CHECK(strcmp(text, "seq(map(int64,tensor(float)))") == 0);
  OK(g_api->TypeInfoGetKind(type_info, &kind));
  CHECK(kind == PRISM_VALUE_SEQUENCE);
  OK(g_api->TypeInfoGetTensorInfo(type_info, &tensor_info));
  CHECK(tensor_info == NULL);
  OK(g_api->TypeInfoGetMapTypes(type_info, &key_type, &value_type));
  CHECK(key_type == PRISM_TYPE_INT64 && value_type == PRISM_TYPE_FLOAT);
  g_api->ReleaseTypeInfo(type_info);
  OK(g_api->SessionGetInputTypeInfo(session, 0, &type_info));
  EXPECT_ERROR(g_api->TypeInfoGetMapTypes(type_info, &key_type, &value_type),
               PRISM_INVALID_ARGUMENT, "expected a map or seq(map) type, got tensor(float)");
  g_api->ReleaseTypeInfo(type_info);
  zip_input = (float*)ReadFile("zipmap_input.bin", &size);
  CHECK(size == 6 * sizeof(float));
  expected = (unsigned char*)ReadFile("zipmap_expected.bin", &size);
  CHECK(size == 2 * 3 * (sizeof(int64_t) + sizeof(float)));
  OK(g_api->CreateTensorWithDataAsValue(cpu, zip_input, 6 * sizeof(float), kZipShape, 2,
                                        PRISM_TYPE_FLOAT, &x));
  OK(g_api->Run(session, NULL, input_names, (const PrismValue* const*)&x, 1, zip_outputs, 1,
                &output));
  OK(g_api->GetSequenceLength(output, &length));
  CHECK(length == 2);
  for (i = 0; i < 2 && length == 2; ++i) {
    int64_t expected_keys[3];
    float expected_values[3];
    memcpy(expected_keys, expected + i * 36, sizeof(expected_keys));
    memcpy(expected_values, expected + i * 36 + 24, sizeof(expected_values));
    OK(g_api->GetSequenceElement(output, i, &element));
    CheckInt64FloatMap(element, expected_keys, expected_values, 3);
    g_api->ReleaseValue(element);
  }
  g_api->ReleaseValue(output);
  g_api->ReleaseValue(x);
  free(expected);
  free(zip_input);
  g_api->ReleaseSession(session);
  g_api->ReleaseSessionOptions(options);

  g_api->ReleaseValue(sequence);
  g_api->ReleaseValue(string_map);
  g_api->ReleaseValue(int_values);
  g_api->ReleaseValue(string_keys);
  g_api->ReleaseValue(map);
  g_api->ReleaseValue(value_tensor);
  g_api->ReleaseValue(key_tensor);
  g_api->ReleaseMemoryInfo(cpu);
}

static void TestErrors(PrismEnv* env) {
  PrismSessionOptions* options = NULL;
  PrismSession* session = NULL;
  PrismMemoryInfo* info = NULL;
  char* path = NULL;
  static const char kGarbage[] = "this is not an onnx model";

  CHECK(g_api->GetErrorCode(NULL) == PRISM_OK);
  CHECK(strcmp(g_api->GetErrorMessage(NULL), "") == 0);
  g_api->ReleaseStatus(NULL);
  g_api->ReleaseValue(NULL);
  g_api->ReleaseSession(NULL);

  OK(g_api->CreateSessionOptions(&options));
  EXPECT_ERROR(g_api->CreateSession(env, "/nonexistent/model.onnx", options, &session),
               PRISM_NO_SUCHFILE, "/nonexistent/model.onnx");
  CHECK(session == NULL);
  EXPECT_ERROR(g_api->CreateSessionFromArray(env, kGarbage, sizeof(kGarbage), options, &session),
               PRISM_INVALID_PROTOBUF, NULL);
  EXPECT_ERROR(g_api->CreateSession(env, NULL, options, &session), PRISM_INVALID_ARGUMENT,
               "CreateSession: argument 'model_path' is NULL");
  EXPECT_ERROR(g_api->CreateSession(env, "x.onnx", options, NULL), PRISM_INVALID_ARGUMENT,
               "argument 'out' is NULL");
  EXPECT_ERROR(g_api->CreateEnv((PrismLoggingLevel)9, "x", NULL), PRISM_INVALID_ARGUMENT,
               "argument 'out' is NULL");
  EXPECT_ERROR(
      g_api->CreateMemoryInfo("Nowhere", PRISM_DEVICE_ALLOCATOR, 0, PRISM_MEM_DEFAULT, &info),
      PRISM_INVALID_ARGUMENT, "unknown memory name 'Nowhere'");
  EXPECT_ERROR(g_api->AppendExecutionProvider(options, "", NULL, NULL, 0), PRISM_INVALID_ARGUMENT,
               "name must not be empty");

  /* An unknown EP is skipped by default, and an error when asked to be strict. */
  path = DataPath("mnist_cnn.onnx");
  OK(g_api->AppendExecutionProvider(options, "NoSuchExecutionProvider", NULL, NULL, 0));
  OK(g_api->CreateSession(env, path, options, &session));
  g_api->ReleaseSession(session);
  session = NULL;
  OK(g_api->AddSessionConfigEntry(options, "session.fail_on_unavailable_provider", "1"));
  EXPECT_ERROR(g_api->CreateSession(env, path, options, &session), PRISM_EP_FAIL,
               "unknown execution provider 'NoSuchExecutionProvider'");
  CHECK(session == NULL);
  free(path);
  g_api->ReleaseSessionOptions(options);
}

int main(int argc, char** argv) {
  const PrismApiBase* base = PrismGetApiBase();
  PrismEnv* env = NULL;
  if (argc != 2) {
    fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
    return 2;
  }
  g_data_dir = argv[1];
  g_api = base->GetApi(PRISM_API_VERSION);
  if (g_api == NULL) {
    fprintf(stderr, "libprism does not provide API version %d\n", PRISM_API_VERSION);
    return 1;
  }
  OK(g_api->CreateEnv(PRISM_LOGGING_WARNING, "capi-test", &env));
  OK(g_api->SetLogSeverityLevel(env, PRISM_LOGGING_ERROR));

  TestVersions();
  TestAvailableProviders();
  TestMnist(env);
  TestProfiling(env);
  TestLoggingAndOptions();
  OK(g_api->SetLogSeverityLevel(env, PRISM_LOGGING_ERROR));
  TestFallback(env);
  TestAllocatorStats(env);
  TestPrepackedWeights(env);
  TestGlobalThreadPools();
  TestStrings(env);
  TestElementTypes();
  TestSequencesAndOptionals();
  TestDescribeValue();
  TestMaps(env);
  TestErrors(env);

  g_api->ReleaseEnv(env);
  if (g_failures > 0) {
    fprintf(stderr, "%d check(s) failed\n", g_failures);
    return 1;
  }
  printf("capi_test: all checks passed\n");
  return 0;
}
