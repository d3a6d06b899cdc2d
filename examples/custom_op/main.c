/*
 * Runs the custom op example model (make_model.py) from C: loads the custom op library by path
 * (RegisterCustomOpsLibrary), runs Y = 2 A + 1.5 B through AddScaled and SumAll, and checks Y
 * against hand-computed values.
 *
 * Usage: prism_custom_op_example_c LIBRARY MODEL
 */
#include <stdio.h>
#include <stdlib.h>

#include "prism/prism_c_api.h"

static const PrismApi* api;

static void Check(PrismStatus* status, const char* what) {
  if (status == NULL) return;
  fprintf(stderr, "%s failed: %s\n", what, api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  exit(1);
}

int main(int argc, char** argv) {
  PrismEnv* env = NULL;
  PrismSessionOptions* options = NULL;
  PrismSession* session = NULL;
  PrismMemoryInfo* cpu = NULL;
  PrismValue* inputs[2] = {NULL, NULL};
  PrismValue* y = NULL;
  const char* input_names[2] = {"A", "B"};
  const char* output_name = "Y";
  float a[6] = {1, 2, 3, 4, 5, 6};
  float b[6] = {10, 20, 30, 40, 50, 60};
  const float expected[6] = {17, 34, 51, 68, 85, 102}; /* 2 a + 1.5 b */
  const int64_t shape[2] = {2, 3};
  char* report = NULL;
  void* data = NULL;
  const float* values;
  int i, bad = 0;

  if (argc != 3) {
    fprintf(stderr, "usage: %s LIBRARY MODEL\n", argv[0]);
    return 2;
  }
  api = PrismGetApiBase()->GetApi(PRISM_API_VERSION);
  if (api == NULL) {
    fprintf(stderr, "libprism does not provide C API version %d\n", PRISM_API_VERSION);
    return 1;
  }
  Check(api->CreateEnv(PRISM_LOGGING_WARNING, "custom_op_example", &env), "CreateEnv");
  Check(api->CreateSessionOptions(&options), "CreateSessionOptions");
  Check(api->RegisterCustomOpsLibrary(options, argv[1], NULL), "RegisterCustomOpsLibrary");
  Check(api->CreateSession(env, argv[2], options, &session), "CreateSession");

  Check(api->CreateCpuMemoryInfo(PRISM_DEVICE_ALLOCATOR, PRISM_MEM_DEFAULT, &cpu),
        "CreateCpuMemoryInfo");
  Check(api->CreateTensorWithDataAsValue(cpu, a, sizeof a, shape, 2, PRISM_TYPE_FLOAT, &inputs[0]),
        "CreateTensorWithDataAsValue");
  Check(api->CreateTensorWithDataAsValue(cpu, b, sizeof b, shape, 2, PRISM_TYPE_FLOAT, &inputs[1]),
        "CreateTensorWithDataAsValue");
  Check(api->Run(session, NULL, input_names, (const PrismValue* const*)inputs, 2, &output_name, 1,
                 &y),
        "Run");
  Check(api->GetTensorMutableData(y, &data), "GetTensorMutableData");
  values = (const float*)data;
  printf("output Y:");
  for (i = 0; i < 6; ++i) {
    printf(" %g", values[i]);
    if (values[i] != expected[i]) bad = 1;
  }
  printf("\n");
  Check(api->SessionGetPartitionReport(session, PRISM_REPORT_TEXT, &report),
        "SessionGetPartitionReport");
  printf("%s", report);
  api->ReleaseString(report);

  api->ReleaseValue(y);
  api->ReleaseValue(inputs[0]);
  api->ReleaseValue(inputs[1]);
  api->ReleaseMemoryInfo(cpu);
  api->ReleaseSession(session);
  api->ReleaseSessionOptions(options); /* the library is unloaded here, after its last user */
  api->ReleaseEnv(env);
  if (bad) {
    fprintf(stderr, "Y differs from 2 A + 1.5 B = 17 34 51 68 85 102\n");
    return 1;
  }
  printf("custom op example OK (C)\n");
  return 0;
}
