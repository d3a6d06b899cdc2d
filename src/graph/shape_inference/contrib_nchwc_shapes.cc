// Types and shapes of the com.microsoft.nchwc ops (onnxruntime's names), which NchwcTransformer
// writes: 2-D float tensors in the channel-blocked layout, whose LOGICAL shape is
// [N, Cp, H, W] with Cp the channels rounded up to a multiple of the block size b. So Conv and
// the pools have the shapes of their ONNX namesakes (Cp comes from W's first dim for Conv, from
// X for the pools); ReorderInput rounds the channels up, ReorderOutput takes its channels
// attribute. b is the active ISA level's (mlas::NchwcBlockSize), as in onnxruntime: a saved
// optimized model is for machines of the same block size.
#include <string>

#include "graph/shape_inference/inference_context.h"
#include "mlas/nchwc.h"

namespace prism {
namespace {

const char* const kNchwc = "com.microsoft.nchwc";

// X's shape, which must be 4-D when known.
const SymbolicShape* Input4D(const InferenceContext& context, size_t i, const char* what) {
  const SymbolicShape* shape = context.HasInput(i) ? context.InputShape(i) : nullptr;
  if (shape && shape->dims.size() != 4)
    context.Fail(MakeString(what, " must be 4-D (N, C, H, W), got ", shape->ToString()));
  return shape;
}

void RequireNotChannelsLast(const InferenceContext& context) {
  if (context.IntAttr("channels_last", 0) != 0)
    context.Fail("channels_last = 1 is not supported (only 0)");
}

// ReorderInput: NCHW [N, C, H, W] -> NCHWc [N, Cp, H, W].
void ReorderInput(InferenceContext& context) {
  RequireNotChannelsLast(context);
  const SymbolicShape* x = Input4D(context, 0, "X");
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  SymbolicShape y = *x;
  const int64_t block = mlas::NchwcBlockSize();
  y.dims[1] =
      x->dims[1].IsKnown() ? KnownDim((x->dims[1].value + block - 1) / block * block) : Dim{};
  context.SetOutput(0, context.InputElem(0), y);
}

// ReorderOutput: NCHWc [N, Cp, H, W] -> NCHW [N, channels, H, W].
void ReorderOutput(InferenceContext& context) {
  RequireNotChannelsLast(context);
  const int64_t channels = context.IntAttr("channels", 0);
  if (channels < 1) context.Fail(MakeString("attribute channels must be >= 1, given ", channels));
  const SymbolicShape* x = Input4D(context, 0, "X");
  if (!x) return context.SetOutput(0, context.InputElem(0), std::nullopt);
  const int64_t block = mlas::NchwcBlockSize();
  if (x->dims[1].IsKnown() && (channels > x->dims[1].value || x->dims[1].value - channels >= block))
    context.Fail(MakeString("channels ", channels, " does not fit X ", x->ToString(),
                            " (padded channels ", x->dims[1].value, ", block size ", block, ")"));
  SymbolicShape y = *x;
  y.dims[1] = KnownDim(channels);
  context.SetOutput(0, context.InputElem(0), y);
}

// Conv, the pools: their ONNX namesake's shape, 2-D only.
InferenceFunction AsOnnx(const char* op_type) {
  return [op_type](InferenceContext& context) {
    Input4D(context, 0, "X");
    const InferenceFunction* onnx = FindShapeInference("", op_type);
    if (onnx == nullptr) context.Fail(MakeString("no shape inference for ONNX ", op_type));
    (*onnx)(context);
  };
}

void Conv(InferenceContext& context) {
  const SymbolicShape* w = Input4D(context, 1, "W");
  const int64_t block = mlas::NchwcBlockSize();
  if (w && w->dims[0].IsKnown() && w->dims[0].value % block != 0)
    context.Fail(MakeString("W ", w->ToString(), " must have a multiple of the block size ", block,
                            " output channels"));
  AsOnnx("Conv")(context);
}

}  // namespace

void RegisterContribNchwcShapes() {
  RegisterShapeInference(kNchwc, "ReorderInput", ReorderInput);
  RegisterShapeInference(kNchwc, "ReorderOutput", ReorderOutput);
  RegisterShapeInference(kNchwc, "Conv", Conv);
  RegisterShapeInference(kNchwc, "MaxPool", AsOnnx("MaxPool"));
  RegisterShapeInference(kNchwc, "AveragePool", AsOnnx("AveragePool"));
  RegisterShapeInference(kNchwc, "GlobalMaxPool", AsOnnx("GlobalMaxPool"));
  RegisterShapeInference(kNchwc, "GlobalAveragePool", AsOnnx("GlobalAveragePool"));
}

}  // namespace prism
