/* Runs one model through the C ABI only: the Python model tests use it to check that a model
 * gives the same outputs through libprism.so's function table as through prismrt.
 *
 *   prism_capi_run_model MODEL INPUTS OUTPUTS
 *
 * INPUTS and OUTPUTS are value files (tests/python/capi_values.py writes and reads them):
 *   file     := "PRV1" u32:count { u32:name_length name value }*count
 *   value    := u8:kind body      kind 1 tensor, 2 sequence, 4 map
 *   tensor   := u32:element_type u32:rank i64:dims[rank] u64:byte_count bytes
 *               (strings: each element as u32:length bytes; byte_count is their total)
 *   sequence := u32:count value*count
 *   map      := value:keys value:values   (two 1-D tensors, C ABI version 5)
 * Integers are little-endian. OUTPUTS gets every model output, in the session's order.
 * Exit status 0 on success; 1 with the library's message on stderr otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prism/prism_c_api.h"

static const PrismApi* api;

static void Fail(const char* what, const char* detail) {
  fprintf(stderr, "prism_capi_run_model: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}

static void Check(PrismStatus* status, const char* what) {
  if (status == NULL) return;
  fprintf(stderr, "prism_capi_run_model: %s: %s\n", what, api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  exit(1);
}

static void ReadBytes(FILE* file, void* out, size_t count) {
  if (count > 0 && fread(out, 1, count, file) != count) Fail("truncated value file", NULL);
}

static uint32_t ReadU32(FILE* file) {
  unsigned char b[4];
  ReadBytes(file, b, 4);
  return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

static uint64_t ReadU64(FILE* file) {
  uint64_t low = ReadU32(file);
  return low | ((uint64_t)ReadU32(file) << 32);
}

static void WriteBytes(FILE* file, const void* data, size_t count) {
  if (count > 0 && fwrite(data, 1, count, file) != count) Fail("cannot write the outputs", NULL);
}

static void WriteU32(FILE* file, uint32_t v) {
  unsigned char b[4];
  b[0] = (unsigned char)v;
  b[1] = (unsigned char)(v >> 8);
  b[2] = (unsigned char)(v >> 16);
  b[3] = (unsigned char)(v >> 24);
  WriteBytes(file, b, 4);
}

static void WriteU64(FILE* file, uint64_t v) {
  WriteU32(file, (uint32_t)v);
  WriteU32(file, (uint32_t)(v >> 32));
}

static void* CheckedMalloc(size_t size) {
  void* p = malloc(size > 0 ? size : 1);
  if (p == NULL) Fail("out of memory", NULL);
  return p;
}

static PrismValue* ReadTensor(FILE* file) {
  uint32_t type = ReadU32(file);
  uint32_t rank = ReadU32(file);
  int64_t dims[16];
  uint32_t i;
  uint64_t byte_count;
  PrismAllocator* allocator = NULL;
  PrismValue* value = NULL;
  if (rank > 16) Fail("rank above 16 in the value file", NULL);
  for (i = 0; i < rank; ++i) dims[i] = (int64_t)ReadU64(file);
  byte_count = ReadU64(file);
  Check(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  Check(api->CreateTensorAsValue(allocator, dims, rank, (PrismElementType)type, &value),
        "CreateTensorAsValue");
  if (type == PRISM_TYPE_STRING) {
    size_t count = 1, k;
    char** strings;
    size_t* lengths;
    for (i = 0; i < rank; ++i) count *= (size_t)dims[i];
    strings = (char**)CheckedMalloc(count * sizeof(char*));
    lengths = (size_t*)CheckedMalloc(count * sizeof(size_t));
    for (k = 0; k < count; ++k) {
      lengths[k] = ReadU32(file);
      strings[k] = (char*)CheckedMalloc(lengths[k]);
      ReadBytes(file, strings[k], lengths[k]);
    }
    Check(api->FillStringTensor(value, (const char* const*)strings, lengths, count),
          "FillStringTensor");
    for (k = 0; k < count; ++k) free(strings[k]);
    free(strings);
    free(lengths);
  } else {
    size_t size = 0;
    void* data = NULL;
    Check(api->GetTensorSizeInBytes(value, &size), "GetTensorSizeInBytes");
    if (size != byte_count) Fail("tensor byte count does not match its shape and type", NULL);
    Check(api->GetTensorMutableData(value, &data), "GetTensorMutableData");
    ReadBytes(file, data, size);
  }
  return value;
}

static PrismValue* ReadValue(FILE* file) {
  unsigned char kind;
  ReadBytes(file, &kind, 1);
  if (kind == 1) return ReadTensor(file);
  if (kind == 2) {
    uint32_t count = ReadU32(file), i;
    PrismValue** elements = (PrismValue**)CheckedMalloc(count * sizeof(PrismValue*));
    PrismValue* sequence = NULL;
    for (i = 0; i < count; ++i) elements[i] = ReadValue(file);
    Check(api->CreateSequenceValue((const PrismValue* const*)elements, count, &sequence),
          "CreateSequenceValue");
    for (i = 0; i < count; ++i) api->ReleaseValue(elements[i]);
    free(elements);
    return sequence;
  }
  if (kind == 4) {
    PrismValue* keys = ReadValue(file);
    PrismValue* values = ReadValue(file);
    PrismValue* map = NULL;
    Check(api->CreateMapValue(keys, values, &map), "CreateMapValue");
    api->ReleaseValue(keys);
    api->ReleaseValue(values);
    return map;
  }
  Fail("unknown value kind in the inputs", NULL);
  return NULL;
}

static void WriteTensor(FILE* file, PrismValue* value) {
  PrismTensorTypeAndShapeInfo* info = NULL;
  PrismElementType type;
  int64_t rank = 0, count = 0, dims[16];
  Check(api->GetTensorTypeAndShape(value, &info), "GetTensorTypeAndShape");
  Check(api->TensorInfoGetElementType(info, &type), "TensorInfoGetElementType");
  Check(api->TensorInfoGetRank(info, &rank), "TensorInfoGetRank");
  if (rank < 0 || rank > 16) Fail("output rank outside 0..16", NULL);
  Check(api->TensorInfoGetDimensions(info, dims, (size_t)rank), "TensorInfoGetDimensions");
  Check(api->TensorInfoGetElementCount(info, &count), "TensorInfoGetElementCount");
  api->ReleaseTensorTypeAndShapeInfo(info);
  WriteU32(file, (uint32_t)type);
  WriteU32(file, (uint32_t)rank);
  {
    int64_t i;
    for (i = 0; i < rank; ++i) WriteU64(file, (uint64_t)dims[i]);
  }
  if (type == PRISM_TYPE_STRING) {
    uint64_t total = 0;
    int64_t i;
    for (i = 0; i < count; ++i) {
      const char* text = NULL;
      size_t length = 0;
      Check(api->GetStringTensorElement(value, (size_t)i, &text, &length),
            "GetStringTensorElement");
      total += 4 + length;
    }
    WriteU64(file, total);
    for (i = 0; i < count; ++i) {
      const char* text = NULL;
      size_t length = 0;
      Check(api->GetStringTensorElement(value, (size_t)i, &text, &length),
            "GetStringTensorElement");
      WriteU32(file, (uint32_t)length);
      WriteBytes(file, text, length);
    }
  } else {
    size_t size = 0;
    void* data = NULL;
    Check(api->GetTensorSizeInBytes(value, &size), "GetTensorSizeInBytes");
    Check(api->GetTensorMutableData(value, &data), "GetTensorMutableData");
    WriteU64(file, size);
    WriteBytes(file, data, size);
  }
}

static void WriteValue(FILE* file, PrismValue* value) {
  PrismValueKind kind;
  unsigned char tag;
  Check(api->GetValueKind(value, &kind), "GetValueKind");
  if (kind == PRISM_VALUE_TENSOR) {
    tag = 1;
    WriteBytes(file, &tag, 1);
    WriteTensor(file, value);
  } else if (kind == PRISM_VALUE_SEQUENCE) {
    size_t count = 0, i;
    tag = 2;
    WriteBytes(file, &tag, 1);
    Check(api->GetSequenceLength(value, &count), "GetSequenceLength");
    WriteU32(file, (uint32_t)count);
    for (i = 0; i < count; ++i) {
      PrismValue* element = NULL;
      Check(api->GetSequenceElement(value, i, &element), "GetSequenceElement");
      WriteValue(file, element);
      api->ReleaseValue(element);
    }
  } else if (kind == PRISM_VALUE_MAP) {
    PrismValue* part = NULL;
    tag = 4;
    WriteBytes(file, &tag, 1);
    Check(api->GetMapKeys(value, &part), "GetMapKeys");
    WriteValue(file, part);
    api->ReleaseValue(part);
    Check(api->GetMapValues(value, &part), "GetMapValues");
    WriteValue(file, part);
    api->ReleaseValue(part);
  } else {
    Fail("an output of a kind the value file cannot hold (tensor, sequence or map)", NULL);
  }
}

int main(int argc, char** argv) {
  PrismEnv* env = NULL;
  PrismSessionOptions* options = NULL;
  PrismSession* session = NULL;
  FILE* file;
  uint32_t input_count, i;
  size_t output_count = 0, k;
  char** input_names;
  PrismValue** inputs;
  const char** output_names;
  PrismValue** outputs;
  char magic[4];

  if (argc != 4) Fail("usage: prism_capi_run_model MODEL INPUTS OUTPUTS", NULL);
  api = PrismGetApiBase()->GetApi(PRISM_API_VERSION);
  if (api == NULL) Fail("the library does not offer this header's API version", NULL);
  Check(api->CreateEnv(PRISM_LOGGING_WARNING, "run_model", &env), "CreateEnv");
  Check(api->CreateSessionOptions(&options), "CreateSessionOptions");
  Check(api->CreateSession(env, argv[1], options, &session), "CreateSession");
  api->ReleaseSessionOptions(options);

  file = fopen(argv[2], "rb");
  if (file == NULL) Fail("cannot open the inputs", argv[2]);
  ReadBytes(file, magic, 4);
  if (memcmp(magic, "PRV1", 4) != 0) Fail("not a value file", argv[2]);
  input_count = ReadU32(file);
  input_names = (char**)CheckedMalloc(input_count * sizeof(char*));
  inputs = (PrismValue**)CheckedMalloc(input_count * sizeof(PrismValue*));
  for (i = 0; i < input_count; ++i) {
    uint32_t length = ReadU32(file);
    input_names[i] = (char*)CheckedMalloc(length + 1);
    ReadBytes(file, input_names[i], length);
    input_names[i][length] = '\0';
    inputs[i] = ReadValue(file);
  }
  fclose(file);

  Check(api->SessionGetOutputCount(session, &output_count), "SessionGetOutputCount");
  output_names = (const char**)CheckedMalloc(output_count * sizeof(char*));
  outputs = (PrismValue**)CheckedMalloc(output_count * sizeof(PrismValue*));
  for (k = 0; k < output_count; ++k) {
    Check(api->SessionGetOutputName(session, k, &output_names[k]), "SessionGetOutputName");
    outputs[k] = NULL;
  }
  Check(api->Run(session, NULL, (const char* const*)input_names, (const PrismValue* const*)inputs,
                 input_count, output_names, output_count, outputs),
        "Run");

  file = fopen(argv[3], "wb");
  if (file == NULL) Fail("cannot create the outputs", argv[3]);
  WriteBytes(file, "PRV1", 4);
  WriteU32(file, (uint32_t)output_count);
  for (k = 0; k < output_count; ++k) {
    size_t length = strlen(output_names[k]);
    WriteU32(file, (uint32_t)length);
    WriteBytes(file, output_names[k], length);
    WriteValue(file, outputs[k]);
    api->ReleaseValue(outputs[k]);
  }
  if (fclose(file) != 0) Fail("cannot write the outputs", argv[3]);

  for (i = 0; i < input_count; ++i) {
    api->ReleaseValue(inputs[i]);
    free(input_names[i]);
  }
  free(input_names);
  free(inputs);
  free(output_names);
  free(outputs);
  api->ReleaseSession(session);
  api->ReleaseEnv(env);
  return 0;
}
