// ImageDecoder's shape inference: [?, ?, 3] for RGB (the default) and BGR, [?, ?, 1] for
// Grayscale (H and W are the encoded image's, unknown until it is decoded); strict inference
// names an encoded input that is not 1-D.
#include <gtest/gtest.h>

#include "../graph/model_builder_util.h"
#include "graph/shape_inference.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

onnx::ModelProto DecoderModel(const std::vector<DimSpec>& input_dims,
                              const std::string& pixel_format) {
  onnx::ModelProto proto = MakeModel(20, 9);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "encoded", TensorProto::UINT8, input_dims);
  onnx::NodeProto* node = AddNode(graph, "ImageDecoder", {"encoded"}, {"image"}, "decode");
  if (!pixel_format.empty()) {
    onnx::AttributeProto* attribute = node->add_attribute();
    attribute->set_name("pixel_format");
    attribute->set_type(onnx::AttributeProto::STRING);
    attribute->set_s(pixel_format);
  }
  AddOutput(graph, "image", TensorProto::UINT8);
  return proto;
}

std::string InferredShape(const onnx::ModelProto& proto) {
  const std::string bytes = Serialize(proto);
  auto model = Model::LoadFromBytes(bytes.data(), bytes.size());
  std::unique_ptr<Graph> graph = model->MainGraph().Clone();
  InferShapes(*graph, ShapeInferenceOptions{true});
  const NodeArg* image = graph->FindNodeArg("image");
  EXPECT_EQ(image->type.elem, ElementType::kUint8);
  return image->shape ? image->shape->ToString() : "<unknown rank>";
}

TEST(ImageDecoderShapeInference, ChannelsFollowThePixelFormat) {
  EXPECT_EQ(InferredShape(DecoderModel({100}, "")), "[?,?,3]");
  EXPECT_EQ(InferredShape(DecoderModel({100}, "RGB")), "[?,?,3]");
  EXPECT_EQ(InferredShape(DecoderModel({100}, "BGR")), "[?,?,3]");
  EXPECT_EQ(InferredShape(DecoderModel({100}, "Grayscale")), "[?,?,1]");
}

TEST(ImageDecoderShapeInference, StrictModeRefusesATwoDimensionalInput) {
  const std::string bytes = Serialize(DecoderModel({1, 100}, "RGB"));
  auto model = Model::LoadFromBytes(bytes.data(), bytes.size());
  auto graph = model->MainGraph().Clone();
  PRISM_EXPECT_ERROR(CaptureError([&] { InferShapes(*graph, ShapeInferenceOptions{true}); }),
                     kInvalidGraph, "input encoded_stream must be 1-D, got [1,100]");
}

}  // namespace
}  // namespace prism::testing
