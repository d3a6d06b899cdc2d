// ImageDecoder: uint8 [H, W, C], C = 1 for Grayscale and 3 for RGB or BGR; H and W are the
// encoded image's, known only once it is decoded.
#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

void ImageDecoder(InferenceContext& context) {
  const Attribute* format = context.Attr("pixel_format");
  const int64_t channels = format != nullptr && format->s == "Grayscale" ? 1 : 3;
  const SymbolicShape* encoded = context.InputShape(0);
  if (encoded != nullptr && encoded->dims.size() != 1)
    context.Fail("input encoded_stream must be 1-D, got " + encoded->ToString());
  context.SetOutput(0, ElementType::kUint8, SymbolicShape{{Dim{}, Dim{}, KnownDim(channels)}});
}

}  // namespace

void RegisterImageShapes() {
  RegisterShapeInference("ImageDecoder", ImageDecoder);
}

}  // namespace prism
