// The signal ops' outputs (opset 17). Windows: [size] of output_datatype. MelWeightMatrix:
// [dft_length / 2 + 1, num_mel_bins] of output_datatype. STFT: [batch, frames, bins, 2] of the
// signal's type, frames = (length - frame_length) / frame_step + 1 and bins = frame_length / 2 + 1
// when onesided (the default), else frame_length. A dim that depends on an input only known at
// run time is unknown.
#include <optional>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

std::optional<int64_t> ScalarInput(const InferenceContext& context, size_t i) {
  if (!context.HasInput(i)) return std::nullopt;
  const auto values = context.InputInts(i);
  if (!values || values->size() != 1) return std::nullopt;
  return (*values)[0];
}

ElementType OutputDatatype(const InferenceContext& context) {
  const int64_t code = context.IntAttr("output_datatype", 1);
  if (!IsKnownElementType(static_cast<int32_t>(code)))
    context.Fail(MakeString("output_datatype ", code, " is not an ONNX element type"));
  return static_cast<ElementType>(code);
}

Dim DimOf(std::optional<int64_t> value) {
  return value && *value >= 0 ? KnownDim(*value) : Dim{};
}

void Window(InferenceContext& context) {
  const ElementType type = OutputDatatype(context);
  context.SetOutput(0, type, SymbolicShape{{DimOf(ScalarInput(context, 0))}});
}

void MelWeightMatrix(InferenceContext& context) {
  const ElementType type = OutputDatatype(context);
  const std::optional<int64_t> dft_length = ScalarInput(context, 1);
  const Dim rows = dft_length && *dft_length > 0 ? KnownDim(*dft_length / 2 + 1) : Dim{};
  context.SetOutput(0, type, SymbolicShape{{rows, DimOf(ScalarInput(context, 0))}});
}

void Stft(InferenceContext& context) {
  const ElementType type = context.InputElem(0);
  context.SetOutput(0, type, std::nullopt);
  const SymbolicShape* signal = context.InputShape(0);
  if (signal == nullptr) return;
  if (signal->dims.size() != 3)
    context.Fail(MakeString("signal must have rank 3, got ", signal->ToString()));
  const bool onesided = context.IntAttr("onesided", 1) != 0;
  std::optional<int64_t> frame_length = ScalarInput(context, 3);
  if (!context.HasInput(3)) {
    if (context.HasInput(2)) {
      const SymbolicShape* window = context.InputShape(2);
      if (window && window->dims.size() == 1 && window->dims[0].IsKnown())
        frame_length = window->dims[0].value;
    } else if (signal->dims[1].IsKnown()) {
      frame_length = signal->dims[1].value;
    }
  }
  const std::optional<int64_t> frame_step = ScalarInput(context, 1);
  Dim frames;
  if (frame_length && frame_step && *frame_step > 0 && signal->dims[1].IsKnown()) {
    const int64_t length = signal->dims[1].value;
    if (*frame_length < 1 || *frame_length > length)
      context.Fail(MakeString("frame_length ", *frame_length, " must be in [1, signal length ",
                              length, "]"));
    frames = KnownDim((length - *frame_length) / *frame_step + 1);
  }
  const Dim bins =
      frame_length ? KnownDim(onesided ? *frame_length / 2 + 1 : *frame_length) : Dim{};
  context.SetOutput(0, type, SymbolicShape{{signal->dims[0], frames, bins, KnownDim(2)}});
}

}  // namespace

void RegisterSignalShapes() {
  RegisterShapeInference("HannWindow", Window);
  RegisterShapeInference("HammingWindow", Window);
  RegisterShapeInference("BlackmanWindow", Window);
  RegisterShapeInference("MelWeightMatrix", MelWeightMatrix);
  RegisterShapeInference("STFT", Stft);
}

}  // namespace prism
