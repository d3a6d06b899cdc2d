/*
 * A custom op library for Prism (C99), loaded with RegisterCustomOpsLibrary (C),
 * SessionOptions::RegisterCustomOpsLibrary (C++) or SessionOptions.register_custom_ops_library
 * (Python). Domain "prism.example", opset 1:
 *
 *   AddScaled(A, [B]) -> Y     Y = A + alpha * B, float tensors of one shape; attribute alpha
 *                              (float, default 1); without B, Y = A.
 *   SumAll(X1, X2, ...) -> Y   Y = X1 + X2 + ..., one or more float tensors of one shape.
 *
 * Both split their elements over the session's intra-op threads (KernelContextParallelFor).
 * The library links nothing of Prism: it gets the function table from RegisterCustomOps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prism/prism_c_api.h"

/* Elements per ParallelFor index: one call computes a block. */
#define BLOCK 4096

static const PrismApi* g_api;

/* Returns the status of an API call that failed, from the function it is in. */
#define RETURN_IF_ERROR(call)            \
  do {                                   \
    PrismStatus* status_ = (call);       \
    if (status_ != NULL) return status_; \
  } while (0)

/* ---- shapes ---- */

typedef struct Shape {
  int64_t dims[8];
  size_t rank;
  size_t count; /* elements */
} Shape;

static PrismStatus* GetShape(const PrismValue* value, const char* what, Shape* shape) {
  PrismTensorTypeAndShapeInfo* info = NULL;
  PrismElementType type = PRISM_TYPE_UNDEFINED;
  int64_t rank = 0;
  size_t d;
  char message[128];
  RETURN_IF_ERROR(g_api->GetTensorTypeAndShape(value, &info));
  g_api->TensorInfoGetElementType(info, &type);
  g_api->TensorInfoGetRank(info, &rank);
  if (type != PRISM_TYPE_FLOAT || rank < 0 || rank > 8) {
    g_api->ReleaseTensorTypeAndShapeInfo(info);
    snprintf(message, sizeof message, "%s must be a float tensor of rank 0 to 8", what);
    return g_api->CreateStatus(PRISM_INVALID_ARGUMENT, message);
  }
  shape->rank = (size_t)rank;
  g_api->TensorInfoGetDimensions(info, shape->dims, shape->rank);
  g_api->ReleaseTensorTypeAndShapeInfo(info);
  shape->count = 1;
  for (d = 0; d < shape->rank; ++d) shape->count *= (size_t)shape->dims[d];
  return NULL;
}

static int SameShape(const Shape* a, const Shape* b) {
  return a->rank == b->rank && memcmp(a->dims, b->dims, a->rank * sizeof(int64_t)) == 0;
}

static PrismStatus* ShapeMismatch(const char* op, size_t input) {
  char message[128];
  snprintf(message, sizeof message, "%s: input %u has another shape than input 0", op,
           (unsigned)input);
  return g_api->CreateStatus(PRISM_INVALID_ARGUMENT, message);
}

/* ---- AddScaled ---- */

typedef struct AddScaledKernel {
  float alpha;
} AddScaledKernel;

typedef struct AddScaledJob {
  const float* a;
  const float* b; /* NULL without B */
  float* y;
  float alpha;
  size_t count;
} AddScaledJob;

static void AddScaledBlock(void* user_data, size_t block) {
  const AddScaledJob* job = (const AddScaledJob*)user_data;
  size_t begin = block * BLOCK;
  size_t end = begin + BLOCK < job->count ? begin + BLOCK : job->count;
  size_t i;
  for (i = begin; i < end; ++i) job->y[i] = job->a[i] + (job->b ? job->alpha * job->b[i] : 0.0f);
}

static PrismStatus* AddScaledCreateKernel(const PrismCustomOp* op, const PrismApi* api,
                                          const PrismKernelInfo* info, void** kernel) {
  AddScaledKernel* state;
  int has_alpha = 0;
  float alpha = 1.0f;
  (void)op;
  RETURN_IF_ERROR(api->KernelInfoHasAttribute(info, "alpha", &has_alpha));
  if (has_alpha) RETURN_IF_ERROR(api->KernelInfoGetAttributeFloat(info, "alpha", &alpha));
  state = (AddScaledKernel*)malloc(sizeof *state);
  if (state == NULL) return api->CreateStatus(PRISM_RUNTIME_EXCEPTION, "out of memory");
  state->alpha = alpha;
  *kernel = state;
  return NULL;
}

static PrismStatus* AddScaledCompute(void* kernel, PrismKernelContext* context) {
  const AddScaledKernel* state = (const AddScaledKernel*)kernel;
  const PrismValue* a = NULL;
  const PrismValue* b = NULL;
  PrismValue* y = NULL;
  Shape a_shape, b_shape;
  AddScaledJob job;
  const void* data = NULL;
  void* out = NULL;
  RETURN_IF_ERROR(g_api->KernelContextGetInput(context, 0, &a));
  RETURN_IF_ERROR(g_api->KernelContextGetInput(context, 1, &b)); /* NULL when omitted */
  RETURN_IF_ERROR(GetShape(a, "AddScaled's A", &a_shape));
  if (b != NULL) {
    RETURN_IF_ERROR(GetShape(b, "AddScaled's B", &b_shape));
    if (!SameShape(&a_shape, &b_shape)) return ShapeMismatch("AddScaled", 1);
  }
  RETURN_IF_ERROR(
      g_api->KernelContextGetOutput(context, 0, PRISM_TYPE_FLOAT, a_shape.dims, a_shape.rank, &y));
  RETURN_IF_ERROR(g_api->GetTensorData(a, &data));
  job.a = (const float*)data;
  job.b = NULL;
  if (b != NULL) {
    RETURN_IF_ERROR(g_api->GetTensorData(b, &data));
    job.b = (const float*)data;
  }
  RETURN_IF_ERROR(g_api->GetTensorMutableData(y, &out));
  job.y = (float*)out;
  job.alpha = state->alpha;
  job.count = a_shape.count;
  return g_api->KernelContextParallelFor(context, AddScaledBlock, &job,
                                         (a_shape.count + BLOCK - 1) / BLOCK, 0);
}

static void FreeKernel(void* kernel) {
  free(kernel);
}

static const char* AddScaledName(const PrismCustomOp* op) {
  (void)op;
  return "AddScaled";
}

/* ---- SumAll ---- */

typedef struct SumAllJob {
  const float* const* inputs;
  size_t input_count;
  float* y;
  size_t count;
} SumAllJob;

static void SumAllBlock(void* user_data, size_t block) {
  const SumAllJob* job = (const SumAllJob*)user_data;
  size_t begin = block * BLOCK;
  size_t end = begin + BLOCK < job->count ? begin + BLOCK : job->count;
  size_t i, k;
  for (i = begin; i < end; ++i) {
    float sum = 0.0f;
    for (k = 0; k < job->input_count; ++k) sum += job->inputs[k][i];
    job->y[i] = sum;
  }
}

static PrismStatus* SumAllCompute(void* kernel, PrismKernelContext* context) {
  size_t input_count = 0, k;
  const PrismValue* x = NULL;
  PrismValue* y = NULL;
  Shape first, shape;
  const float** inputs;
  const void* data = NULL;
  void* out = NULL;
  SumAllJob job;
  PrismStatus* status = NULL;
  (void)kernel;
  RETURN_IF_ERROR(g_api->KernelContextGetInputCount(context, &input_count));
  inputs = (const float**)malloc(input_count * sizeof *inputs);
  if (inputs == NULL) return g_api->CreateStatus(PRISM_RUNTIME_EXCEPTION, "out of memory");
  for (k = 0; k < input_count && status == NULL; ++k) {
    status = g_api->KernelContextGetInput(context, k, &x);
    if (status == NULL) status = GetShape(x, "SumAll's inputs", k == 0 ? &first : &shape);
    if (status == NULL && k > 0 && !SameShape(&first, &shape)) status = ShapeMismatch("SumAll", k);
    if (status == NULL) status = g_api->GetTensorData(x, &data);
    inputs[k] = (const float*)data;
  }
  if (status == NULL)
    status =
        g_api->KernelContextGetOutput(context, 0, PRISM_TYPE_FLOAT, first.dims, first.rank, &y);
  if (status == NULL) status = g_api->GetTensorMutableData(y, &out);
  if (status == NULL) {
    job.inputs = inputs;
    job.input_count = input_count;
    job.y = (float*)out;
    job.count = first.count;
    status = g_api->KernelContextParallelFor(context, SumAllBlock, &job,
                                             (first.count + BLOCK - 1) / BLOCK, 0);
  }
  free((void*)inputs);
  return status;
}

static const char* SumAllName(const PrismCustomOp* op) {
  (void)op;
  return "SumAll";
}

/* ---- shared callbacks: every input and output is float ---- */

static size_t OneOutput(const PrismCustomOp* op) {
  (void)op;
  return 1;
}

static size_t TwoInputs(const PrismCustomOp* op) {
  (void)op;
  return 2;
}

static size_t OneInput(const PrismCustomOp* op) {
  (void)op;
  return 1;
}

static PrismElementType FloatType(const PrismCustomOp* op, size_t index) {
  (void)op;
  (void)index;
  return PRISM_TYPE_FLOAT;
}

/* AddScaled: A required, B optional. */
static PrismCustomOpInputOutputCharacteristic AddScaledInputKind(const PrismCustomOp* op,
                                                                 size_t index) {
  (void)op;
  return index == 0 ? PRISM_INPUT_OUTPUT_REQUIRED : PRISM_INPUT_OUTPUT_OPTIONAL;
}

/* SumAll: one variadic input. */
static PrismCustomOpInputOutputCharacteristic VariadicKind(const PrismCustomOp* op, size_t index) {
  (void)op;
  (void)index;
  return PRISM_INPUT_OUTPUT_VARIADIC;
}

/* The op tables must outlive every session using them: static storage. Members left out are
   NULL and take their defaults (CPU EP, all inputs required, opset 1 on, ...). */
static const PrismCustomOp g_add_scaled = {
    .version = PRISM_CUSTOM_OP_VERSION,
    .CreateKernel = AddScaledCreateKernel,
    .GetName = AddScaledName,
    .GetInputTypeCount = TwoInputs,
    .GetInputType = FloatType,
    .GetOutputTypeCount = OneOutput,
    .GetOutputType = FloatType,
    .GetInputCharacteristic = AddScaledInputKind,
    .KernelCompute = AddScaledCompute,
    .KernelDestroy = FreeKernel,
};

static const PrismCustomOp g_sum_all = {
    .version = PRISM_CUSTOM_OP_VERSION,
    .GetName = SumAllName,
    .GetInputTypeCount = OneInput,
    .GetInputType = FloatType,
    .GetOutputTypeCount = OneOutput,
    .GetOutputType = FloatType,
    .GetInputCharacteristic = VariadicKind,
    .KernelCompute = SumAllCompute,
};

#if defined(__GNUC__)
#define EXAMPLE_EXPORT __attribute__((visibility("default")))
#else
#define EXAMPLE_EXPORT
#endif

EXAMPLE_EXPORT PrismStatus* RegisterCustomOps(PrismSessionOptions* options,
                                              const PrismApiBase* api_base) {
  PrismCustomOpDomain* domain = NULL;
  PrismStatus* status;
  const PrismApi* api = api_base->GetApi(PRISM_API_VERSION);
  if (api == NULL) return NULL; /* a libprism older than this header: no way to report it */
  g_api = api;
  RETURN_IF_ERROR(api->CreateCustomOpDomain("prism.example", &domain));
  status = api->CustomOpDomainAdd(domain, &g_add_scaled);
  if (status == NULL) status = api->CustomOpDomainAdd(domain, &g_sum_all);
  if (status == NULL) status = api->AddCustomOpDomain(options, domain);
  api->ReleaseCustomOpDomain(domain); /* the options keep what they need */
  return status;
}
