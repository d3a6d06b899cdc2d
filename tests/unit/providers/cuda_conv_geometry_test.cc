// The CUDA EP's host-side convolution geometry (providers/cuda/kernels/conv_geometry.cc, no CUDA
// needed): ONNX output shapes and pads for Conv and ConvTranspose, how asymmetric pads split into
// an explicit padded copy and cuDNN's symmetric pads, and the attribute declines.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "../graph/model_builder_util.h"
#include "common/status.h"
#include "graph/model.h"
#include "providers/cuda/kernels/conv_geometry.h"

namespace prism::cuda {
namespace {

using prism::testing::AddIntsAttr;
using prism::testing::AddNode;
using prism::testing::MakeModel;

// A model holding one node of op_type with the given int-list attributes (X of rank x_rank, or
// of unknown shape for 0), optionally auto_pad, and group (an int attribute; 0: absent).
class OneNode {
 public:
  OneNode(const std::string& op_type,
          const std::vector<std::pair<std::string, std::vector<int64_t>>>& ints,
          const std::string& auto_pad = "", int x_rank = 4, int64_t group = 0) {
    onnx::ModelProto proto = MakeModel(17);
    onnx::GraphProto* graph = proto.mutable_graph();
    if (x_rank > 0) {
      std::vector<prism::testing::DimSpec> dims(static_cast<size_t>(x_rank), "d");
      prism::testing::AddInput(graph, "X", onnx::TensorProto::FLOAT, dims);
      prism::testing::AddInput(graph, "W", onnx::TensorProto::FLOAT, dims);
    } else {
      prism::testing::AddInputNoShape(graph, "X", onnx::TensorProto::FLOAT);
      prism::testing::AddInputNoShape(graph, "W", onnx::TensorProto::FLOAT);
    }
    prism::testing::AddOutput(graph, "Y", onnx::TensorProto::FLOAT, {});
    onnx::NodeProto* node = AddNode(graph, op_type, {"X", "W"}, {"Y"}, "n");
    for (const auto& [name, values] : ints) AddIntsAttr(node, name, values);
    if (group != 0) {
      onnx::AttributeProto* attr = node->add_attribute();
      attr->set_name("group");
      attr->set_type(onnx::AttributeProto::INT);
      attr->set_i(group);
    }
    if (!auto_pad.empty()) {
      onnx::AttributeProto* attr = node->add_attribute();
      attr->set_name("auto_pad");
      attr->set_type(onnx::AttributeProto::STRING);
      attr->set_s(auto_pad);
    }
    const std::string bytes = prism::testing::Serialize(proto);
    model_ = Model::LoadFromBytes(bytes.data(), bytes.size());
  }

  const Node& node() const {
    const Graph& graph = model_->MainGraph();
    for (NodeIndex index : graph.TopologicalOrder()) return graph.GetNode(index);
    throw std::runtime_error("no node");
  }

 private:
  std::shared_ptr<const Model> model_;
};

ConvGeometry Conv(const OneNode& model, const TensorShape& x, const TensorShape& w) {
  return ComputeConvGeometry(ConvAttributes::FromNode(model.node()), x, w, model.node());
}

ConvGeometry Transpose(const OneNode& model, const TensorShape& x, const TensorShape& w) {
  return ComputeConvTransposeGeometry(ConvAttributes::FromNode(model.node()), x, w, model.node());
}

using Ints = std::vector<int64_t>;

TEST(CudaConvGeometryTest, SymmetricPadsAndStrides) {
  OneNode model("Conv", {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}});
  const ConvGeometry g = Conv(model, {2, 3, 7, 8}, {4, 3, 3, 3});
  EXPECT_EQ(g.OutputShape(), TensorShape({2, 4, 4, 4}));
  EXPECT_TRUE(g.SymmetricPads());
  EXPECT_FALSE(SplitPads(g.pad_begin, g.pad_end).NeedsCopy());
}

TEST(CudaConvGeometryTest, AsymmetricPadsSplitIntoACopyAndSymmetricPads) {
  OneNode model("Conv", {{"pads", {0, 2, 1, 1}}});
  const ConvGeometry g = Conv(model, {1, 2, 5, 5}, {3, 2, 3, 3});
  // H: 5 + 0 + 1 - 3 + 1 = 4; W: 5 + 2 + 1 - 3 + 1 = 6.
  EXPECT_EQ(g.OutputShape(), TensorShape({1, 3, 4, 6}));
  const PadSplit split = SplitPads(g.pad_begin, g.pad_end);
  EXPECT_TRUE(split.NeedsCopy());
  EXPECT_EQ(split.symmetric, (Ints{0, 1}));
  EXPECT_EQ(split.explicit_begin, (Ints{0, 1}));
  EXPECT_EQ(split.explicit_end, (Ints{1, 0}));
  EXPECT_EQ(split.PaddedInput(g.input), (Ints{6, 6}));
  // The padded input with the symmetric pads gives the same output dims.
  for (size_t d = 0; d < 2; ++d)
    EXPECT_EQ((split.PaddedInput(g.input)[d] + 2 * split.symmetric[d] - 3) / 1 + 1, g.output[d]);
}

TEST(CudaConvGeometryTest, AutoPadSameUpperAndLower) {
  OneNode upper("Conv", {{"strides", {2, 2}}}, "SAME_UPPER");
  const ConvGeometry u = Conv(upper, {1, 1, 8, 7}, {1, 1, 3, 3});
  EXPECT_EQ(u.output, (Ints{4, 4}));
  EXPECT_EQ(u.pad_begin, (Ints{0, 1}));  // totals 1 and 2: the odd cell at the end
  EXPECT_EQ(u.pad_end, (Ints{1, 1}));
  OneNode lower("Conv", {{"strides", {2, 2}}}, "SAME_LOWER");
  const ConvGeometry l = Conv(lower, {1, 1, 8, 7}, {1, 1, 3, 3});
  EXPECT_EQ(l.output, (Ints{4, 4}));
  EXPECT_EQ(l.pad_begin, (Ints{1, 1}));
  EXPECT_EQ(l.pad_end, (Ints{0, 1}));
  OneNode valid("Conv", {{"pads", {5, 5, 5, 5}}}, "VALID");
  EXPECT_EQ(Conv(valid, {1, 1, 8, 7}, {1, 1, 3, 3}).output, (Ints{6, 5}));
}

TEST(CudaConvGeometryTest, OneDimensionalGroupedDilated) {
  OneNode model("Conv", {{"dilations", {2}}}, "", 3, 2);
  const ConvGeometry g = Conv(model, {2, 4, 10}, {6, 2, 3});
  EXPECT_EQ(g.OutputShape(), TensorShape({2, 6, 6}));
  EXPECT_EQ(g.group, 2);
  // W must have X's channels / group.
  EXPECT_THROW(Conv(model, {2, 4, 10}, {6, 4, 3}), Exception);
}

TEST(CudaConvGeometryTest, ChannelMismatchAndTooSmallInputThrow) {
  OneNode model("Conv", {});
  EXPECT_THROW(Conv(model, {1, 3, 5, 5}, {2, 2, 3, 3}), Exception);
  EXPECT_THROW(Conv(model, {1, 3, 2, 5}, {2, 3, 3, 3}), Exception);
}

TEST(CudaConvGeometryTest, ConvTransposeWithOutputPadding) {
  OneNode model("ConvTranspose",
                {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"output_padding", {1, 1}}});
  const ConvGeometry g = Transpose(model, {1, 2, 3, 3}, {2, 3, 3, 3});
  // 2 * (3 - 1) + 1 + 3 - 1 - 1 = 6.
  EXPECT_EQ(g.OutputShape(), TensorShape({1, 3, 6, 6}));
  EXPECT_TRUE(g.SymmetricPads());
  EXPECT_EQ(ConvTransposeFullOutput(g), (Ints{7, 7}));
}

TEST(CudaConvGeometryTest, ConvTransposeOutputShapeLargerThanFull) {
  OneNode model("ConvTranspose", {{"strides", {2, 2}}, {"output_shape", {10, 8}}});
  const ConvGeometry g = Transpose(model, {1, 1, 3, 3}, {1, 1, 3, 3});
  EXPECT_EQ(g.output, (Ints{10, 8}));
  // Full 7: totals -3 and -1, the extra cells mostly at the end.
  EXPECT_EQ(g.pad_begin, (Ints{-1, 0}));
  EXPECT_EQ(g.pad_end, (Ints{-2, -1}));
  EXPECT_FALSE(g.SymmetricPads());
}

TEST(CudaConvGeometryTest, ConvTransposeGroupsAndAsymmetricPads) {
  OneNode model("ConvTranspose", {{"pads", {0, 1, 2, 0}}}, "", 4, 2);
  const ConvGeometry g = Transpose(model, {1, 4, 5, 5}, {4, 2, 3, 3});
  // M = 2 * group; dims 1 * 4 + 3 - 0 - 2 = 5 and 4 + 3 - 1 - 0 = 6.
  EXPECT_EQ(g.OutputShape(), TensorShape({1, 4, 5, 6}));
  EXPECT_EQ(g.pad_begin, (Ints{0, 1}));
  EXPECT_EQ(g.pad_end, (Ints{2, 0}));
}

TEST(CudaConvGeometryTest, DeclineReasonsNameTheAttribute) {
  EXPECT_EQ(ConvAttributeDeclineReason(OneNode("Conv", {{"kernel_shape", {3, 3}}}).node()), "");
  EXPECT_NE(ConvAttributeDeclineReason(OneNode("Conv", {}, "SAME").node()).find("auto_pad"),
            std::string::npos);
  EXPECT_NE(
      ConvAttributeDeclineReason(OneNode("Conv", {{"kernel_shape", {1, 1, 1, 1}}}, "", 6).node())
          .find("4 spatial axes"),
      std::string::npos);
  EXPECT_NE(ConvAttributeDeclineReason(OneNode("Conv", {}, "", 0).node()).find("unknown"),
            std::string::npos);
  // The static rank of X gives the spatial rank when kernel_shape is absent.
  EXPECT_EQ(ConvAttributeDeclineReason(OneNode("Conv", {}, "", 5).node()), "");
}

}  // namespace
}  // namespace prism::cuda
