// Shape inference of RNN, GRU and LSTM on hand-made graphs, each expected shape worked out by
// hand from the spec: Y [seq, dirs, batch, hidden] and the states [dirs, batch, hidden] in layout
// 0, [batch, seq, dirs, hidden] and [batch, dirs, hidden] in layout 1; hidden_size from the
// attribute, else from R's last dim; symbolic batch and sequence dims carried through; omitted
// outputs left alone; an X of rank other than 3 refused.
#include <gtest/gtest.h>

#include "../graph/strict_inference_util.h"

namespace prism::testing {
namespace {

using onnx::TensorProto;

using Inferred = InferredGraph;

Inferred Infer(const onnx::ModelProto& proto) {
  return InferStrictly(proto);
}

void AddInt(onnx::NodeProto* node, const std::string& name, int64_t value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void AddString(onnx::NodeProto* node, const std::string& name, const std::string& value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

TEST(RecurrentShapes, LstmBidirectionalLayoutZeroWithSymbolicDims) {
  onnx::ModelProto proto = MakeModel(14);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {"seq", "batch", 5});
  AddInput(graph, "W", TensorProto::FLOAT, {2, 12, 5});
  AddInput(graph, "R", TensorProto::FLOAT, {2, 12, 3});
  auto* node = AddNode(graph, "LSTM", {"X", "W", "R"}, {"Y", "Y_h", "Y_c"});
  AddInt(node, "hidden_size", 3);
  AddString(node, "direction", "bidirectional");
  for (const char* out : {"Y", "Y_h", "Y_c"}) AddOutput(graph, out, TensorProto::UNDEFINED);
  const Inferred inferred = Infer(proto);
  EXPECT_EQ(inferred.Shape("Y"), "[seq,2,batch,3]");
  EXPECT_EQ(inferred.Shape("Y_h"), "[2,batch,3]");
  EXPECT_EQ(inferred.Shape("Y_c"), "[2,batch,3]");
  EXPECT_EQ(inferred.Type("Y_c"), ElementType::kFloat);
}

TEST(RecurrentShapes, GruLayoutOneTakesHiddenSizeFromR) {
  onnx::ModelProto proto = MakeModel(22);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::DOUBLE, {4, 7, 2});
  AddInput(graph, "W", TensorProto::DOUBLE, {1, 18, 2});
  AddInput(graph, "R", TensorProto::DOUBLE, {1, 18, 6});
  auto* node = AddNode(graph, "GRU", {"X", "W", "R"}, {"", "Y_h"});
  AddInt(node, "layout", 1);
  AddOutput(graph, "Y_h", TensorProto::UNDEFINED);
  const Inferred inferred = Infer(proto);
  EXPECT_EQ(inferred.Shape("Y_h"), "[4,1,6]");
  EXPECT_EQ(inferred.Type("Y_h"), ElementType::kDouble);
}

TEST(RecurrentShapes, RnnLayoutOneSequenceOutput) {
  onnx::ModelProto proto = MakeModel(14);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT16, {"batch", 9, 3});
  AddInput(graph, "W", TensorProto::FLOAT16, {1, 4, 3});
  AddInput(graph, "R", TensorProto::FLOAT16, {1, 4, 4});
  auto* node = AddNode(graph, "RNN", {"X", "W", "R"}, {"Y"});
  AddInt(node, "layout", 1);
  AddString(node, "direction", "reverse");
  AddOutput(graph, "Y", TensorProto::UNDEFINED);
  const Inferred inferred = Infer(proto);
  EXPECT_EQ(inferred.Shape("Y"), "[batch,9,1,4]");
  EXPECT_EQ(inferred.Type("Y"), ElementType::kFloat16);
}

TEST(RecurrentShapes, InputOfRankTwoIsRefused) {
  onnx::ModelProto proto = MakeModel(14);
  auto* graph = proto.mutable_graph();
  AddInput(graph, "X", TensorProto::FLOAT, {9, 3});
  AddInput(graph, "W", TensorProto::FLOAT, {1, 4, 3});
  AddInput(graph, "R", TensorProto::FLOAT, {1, 4, 4});
  AddNode(graph, "RNN", {"X", "W", "R"}, {"Y"});
  AddOutput(graph, "Y", TensorProto::UNDEFINED);
  const std::string bytes = Serialize(proto);
  auto model = Model::LoadFromBytes(bytes.data(), bytes.size());  // lenient: loads
  auto clone = model->MainGraph().Clone();
  PRISM_EXPECT_ERROR(CaptureError([&] { InferShapes(*clone, ShapeInferenceOptions{true}); }),
                     kInvalidGraph, "input X must have rank 3, got [9,3]");
}

}  // namespace
}  // namespace prism::testing
