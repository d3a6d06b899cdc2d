/*
 * Prism C API example: loads a model, prints its inputs and outputs, runs it and prints the
 * first values of each output. The inputs are zeros, or read from the file given with --input:
 * the raw bytes of every input tensor in order (e.g. float32 little-endian), nothing more. An
 * optional execution provider (onnxruntime's name, e.g. CUDAExecutionProvider) is tried before
 * the CPU one.
 *
 *   prism_example_c MODEL.onnx [PROVIDER] [--input FILE]
 *
 * Every call returns NULL on success or a PrismStatus* the caller releases; every object created
 * with Create* is released with the matching Release*.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/prism_c_api.h>

static const PrismApi* api;

/* Prints the error and exits when a call fails. */
static void Check(PrismStatus* status) {
  if (status == NULL) return;
  fprintf(stderr, "error %d: %s\n", (int)api->GetErrorCode(status), api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  exit(1);
}

/* Prints "name type [d0,d1,...]" (symbolic dims by name) and returns the shape to run with:
   unknown dims become 1. shape receives up to 16 dims; *rank their count. */
static void DescribeValue(const char* what, size_t index, const char* name, PrismTypeInfo* info,
                          int64_t* shape, size_t* rank) {
  const char* type_string = NULL;
  const PrismTensorTypeAndShapeInfo* tensor = NULL;
  int64_t tensor_rank = -1;
  int64_t dims[16];
  const char* symbols[16];
  size_t i;
  Check(api->TypeInfoGetTypeString(info, &type_string));
  Check(api->TypeInfoGetTensorInfo(info, &tensor));
  printf("%s %u: %s %s", what, (unsigned)index, name, type_string);
  *rank = 0;
  if (tensor != NULL) Check(api->TensorInfoGetRank(tensor, &tensor_rank));
  if (tensor_rank >= 0 && tensor_rank <= 16) {
    Check(api->TensorInfoGetDimensions(tensor, dims, (size_t)tensor_rank));
    Check(api->TensorInfoGetSymbolicDimensions(tensor, symbols, (size_t)tensor_rank));
    printf(" [");
    for (i = 0; i < (size_t)tensor_rank; ++i) {
      if (dims[i] >= 0)
        printf("%s%lld", i ? "," : "", (long long)dims[i]);
      else
        printf("%s%s", i ? "," : "", symbols[i][0] ? symbols[i] : "?");
      shape[i] = dims[i] >= 0 ? dims[i] : 1;
    }
    printf("]");
    *rank = (size_t)tensor_rank;
  }
  printf("\n");
}

/* Reads the next bytes of file into a numeric input tensor: exactly as many as it holds. */
static void ReadInput(FILE* file, const char* name, PrismValue* value) {
  size_t bytes = 0;
  void* data = NULL;
  Check(api->GetTensorSizeInBytes(value, &bytes));
  Check(api->GetTensorMutableData(value, &data));
  if (bytes > 0 && fread(data, 1, bytes, file) != bytes) {
    fprintf(stderr, "the input file ends before input '%s' (%lu bytes)\n", name,
            (unsigned long)bytes);
    exit(1);
  }
}

int main(int argc, char** argv) {
  PrismEnv* env = NULL;
  PrismSessionOptions* options = NULL;
  PrismSession* session = NULL;
  PrismAllocator* allocator = NULL;
  size_t input_count = 0;
  size_t output_count = 0;
  const char** input_names;
  const char** output_names;
  PrismValue** inputs;
  PrismValue** outputs;
  char** providers = NULL;
  size_t provider_count = 0;
  const char* provider = NULL;
  const char* input_path = NULL;
  FILE* input_file = NULL;
  int bad_usage = argc < 2;
  int arg;
  size_t i;

  for (arg = 2; arg < argc; ++arg) {
    if (strcmp(argv[arg], "--input") == 0 && arg + 1 < argc && input_path == NULL)
      input_path = argv[++arg];
    else if (argv[arg][0] != '-' && provider == NULL)
      provider = argv[arg];
    else
      bad_usage = 1;
  }
  if (bad_usage) {
    fprintf(stderr, "usage: %s MODEL.onnx [PROVIDER] [--input FILE]\n", argv[0]);
    return 2;
  }
  api = PrismGetApiBase()->GetApi(PRISM_API_VERSION);
  if (api == NULL) {
    fprintf(stderr, "this libprism does not provide C API version %d\n", PRISM_API_VERSION);
    return 1;
  }
  printf("Prism %s\n", PrismGetApiBase()->GetVersionString());

  Check(api->CreateEnv(PRISM_LOGGING_WARNING, "example", &env));
  Check(api->CreateSessionOptions(&options));
  if (provider != NULL) Check(api->AppendExecutionProvider(options, provider, NULL, NULL, 0));
  Check(api->CreateSession(env, argv[1], options, &session));

  /* The providers in use: one that is missing was skipped (with a warning). */
  Check(api->SessionGetProviders(session, &providers, &provider_count));
  printf("providers:");
  for (i = 0; i < provider_count; ++i) printf(" %s", providers[i]);
  printf("\n");
  api->ReleaseStringArray(providers, provider_count);
  Check(api->GetAllocatorWithDefaultOptions(&allocator)); /* borrowed: never released */

  Check(api->SessionGetInputCount(session, &input_count));
  Check(api->SessionGetOutputCount(session, &output_count));
  input_names = (const char**)calloc(input_count + 1, sizeof(char*));
  inputs = (PrismValue**)calloc(input_count + 1, sizeof(PrismValue*));
  output_names = (const char**)calloc(output_count + 1, sizeof(char*));
  outputs = (PrismValue**)calloc(output_count + 1, sizeof(PrismValue*));
  if (!input_names || !inputs || !output_names || !outputs) return 1;

  /* Each input: describe it, then make a tensor of its shape (CPU tensors start zeroed) and fill
     it from the input file when there is one. */
  if (input_path != NULL && (input_file = fopen(input_path, "rb")) == NULL) {
    perror(input_path);
    return 1;
  }
  for (i = 0; i < input_count; ++i) {
    PrismTypeInfo* info = NULL;
    const PrismTensorTypeAndShapeInfo* tensor = NULL;
    PrismElementType type = PRISM_TYPE_UNDEFINED;
    int64_t shape[16];
    size_t rank = 0;
    Check(api->SessionGetInputName(session, i, &input_names[i])); /* borrowed from session */
    Check(api->SessionGetInputTypeInfo(session, i, &info));
    DescribeValue("input", i, input_names[i], info, shape, &rank);
    Check(api->TypeInfoGetTensorInfo(info, &tensor));
    if (tensor == NULL) {
      fprintf(stderr, "input '%s' is not a tensor; this example feeds tensors only\n",
              input_names[i]);
      return 1;
    }
    Check(api->TensorInfoGetElementType(tensor, &type));
    Check(api->CreateTensorAsValue(allocator, shape, rank, type, &inputs[i]));
    if (input_file != NULL) {
      if (type == PRISM_TYPE_STRING) {
        fprintf(stderr, "input '%s' holds strings; --input fills numeric tensors only\n",
                input_names[i]);
        return 1;
      }
      ReadInput(input_file, input_names[i], inputs[i]);
    }
    api->ReleaseTypeInfo(info);
  }
  if (input_file != NULL) {
    if (fgetc(input_file) != EOF) {
      fprintf(stderr, "the input file is longer than the model's inputs\n");
      return 1;
    }
    fclose(input_file);
  }
  for (i = 0; i < output_count; ++i) {
    PrismTypeInfo* info = NULL;
    int64_t shape[16];
    size_t rank = 0;
    Check(api->SessionGetOutputName(session, i, &output_names[i]));
    Check(api->SessionGetOutputTypeInfo(session, i, &info));
    DescribeValue("output", i, output_names[i], info, shape, &rank);
    api->ReleaseTypeInfo(info);
  }

  Check(api->Run(session, NULL, input_names, (const PrismValue* const*)inputs, input_count,
                 output_names, output_count, outputs));

  /* The first values of each float output. */
  for (i = 0; i < output_count; ++i) {
    PrismValueKind kind = PRISM_VALUE_UNKNOWN;
    PrismTensorTypeAndShapeInfo* info = NULL;
    PrismElementType type = PRISM_TYPE_UNDEFINED;
    int64_t count = 0;
    void* data = NULL;
    int64_t k;
    Check(api->GetValueKind(outputs[i], &kind));
    if (kind != PRISM_VALUE_TENSOR) {
      printf("output %u is not a tensor\n", (unsigned)i);
      continue;
    }
    Check(api->GetTensorTypeAndShape(outputs[i], &info));
    Check(api->TensorInfoGetElementType(info, &type));
    Check(api->TensorInfoGetElementCount(info, &count));
    api->ReleaseTensorTypeAndShapeInfo(info);
    if (type != PRISM_TYPE_FLOAT) {
      printf("output %u has element type %d (not printed)\n", (unsigned)i, (int)type);
      continue;
    }
    Check(api->GetTensorMutableData(outputs[i], &data));
    printf("output %u values:", (unsigned)i);
    for (k = 0; k < count && k < 10; ++k) printf(" %g", (double)((const float*)data)[k]);
    printf("\n");
  }

  for (i = 0; i < output_count; ++i) api->ReleaseValue(outputs[i]);
  for (i = 0; i < input_count; ++i) api->ReleaseValue(inputs[i]);
  free(outputs);
  free(output_names);
  free(inputs);
  free(input_names);
  api->ReleaseSession(session);
  api->ReleaseSessionOptions(options);
  api->ReleaseEnv(env);
  return 0;
}
