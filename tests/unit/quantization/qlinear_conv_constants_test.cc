// QLinearConv keeps what it derives from constant quantization parameters (the multipliers, the
// depthwise kernel's packed operands) between runs, and derives them again on every run when any
// of them is fed: one session of a channels-last depthwise QLinearConv (the int16 kernel's
// 32 channels, padded 3x3) run twice with two x_scale values, each against a double-precision
// reference written here; and the same model with every parameter constant, run twice.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../session/session_test_util.h"

namespace prism::testing {
namespace {

constexpr int64_t kChannels = 32, kHeight = 5, kWidth = 6;
constexpr int kXZero = 131, kYZero = 120;
constexpr float kYScale = 0.9f;

struct Operands {
  std::vector<uint8_t> x;      // [1, H, W, C]
  std::vector<int8_t> w;       // [C, 1, 3, 3]
  std::vector<float> w_scale;  // [C]
  std::vector<int32_t> bias;   // [C]
};

Operands MakeOperands() {
  std::mt19937 engine(7);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> unit(0.5f, 1.5f);
  Operands o;
  for (int64_t i = 0; i < kHeight * kWidth * kChannels; ++i)
    o.x.push_back(static_cast<uint8_t>(byte(engine)));
  for (int64_t i = 0; i < kChannels * 9; ++i)
    o.w.push_back(static_cast<int8_t>(byte(engine) - 128));
  for (int64_t c = 0; c < kChannels; ++c) {
    o.w_scale.push_back(0.002f * unit(engine));
    o.bias.push_back(byte(engine) * 40 - 5000);
  }
  return o;
}

onnx::TensorProto* AddBytes(onnx::GraphProto* graph, const std::string& name, int32_t type,
                            const std::vector<int64_t>& dims, const void* data, size_t bytes) {
  auto* init = graph->add_initializer();
  init->set_name(name);
  init->set_data_type(type);
  for (int64_t d : dims) init->add_dims(d);
  init->set_raw_data(std::string(static_cast<const char*>(data), bytes));
  return init;
}

// com.microsoft QLinearConv, channels_last, depthwise 3x3 with pads 1; x_scale an initializer
// of `x_scale` or, when fed_x_scale, a graph input.
onnx::ModelProto DepthwiseModel(const Operands& o, bool fed_x_scale, float x_scale) {
  onnx::ModelProto model = MakeModel(17);
  auto* ms = model.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  onnx::GraphProto* graph = model.mutable_graph();
  AddInput(graph, "x", onnx::TensorProto::UINT8, {1, kHeight, kWidth, kChannels});
  if (fed_x_scale)
    AddInput(graph, "x_scale", onnx::TensorProto::FLOAT, {});
  else
    AddFloatInitializer(graph, "x_scale", {}, {x_scale});
  const uint8_t x_zero = kXZero, y_zero = kYZero;
  const std::vector<int8_t> w_zero(kChannels, 0);
  AddBytes(graph, "x_zero", onnx::TensorProto::UINT8, {}, &x_zero, 1);
  AddBytes(graph, "w", onnx::TensorProto::INT8, {kChannels, 1, 3, 3}, o.w.data(), o.w.size());
  AddFloatInitializer(graph, "w_scale", {kChannels}, o.w_scale);
  AddBytes(graph, "w_zero", onnx::TensorProto::INT8, {kChannels}, w_zero.data(), w_zero.size());
  AddFloatInitializer(graph, "y_scale", {}, {kYScale});
  AddBytes(graph, "y_zero", onnx::TensorProto::UINT8, {}, &y_zero, 1);
  AddBytes(graph, "B", onnx::TensorProto::INT32, {kChannels}, o.bias.data(),
           o.bias.size() * sizeof(int32_t));
  auto* node =
      AddNode(graph, "QLinearConv",
              {"x", "x_scale", "x_zero", "w", "w_scale", "w_zero", "y_scale", "y_zero", "B"}, {"y"},
              "depthwise", "com.microsoft");
  AddIntsAttr(node, "kernel_shape", {3, 3});
  AddIntsAttr(node, "pads", {1, 1, 1, 1});
  auto* group = node->add_attribute();
  group->set_name("group");
  group->set_type(onnx::AttributeProto::INT);
  group->set_i(kChannels);
  auto* channels_last = node->add_attribute();
  channels_last->set_name("channels_last");
  channels_last->set_type(onnx::AttributeProto::INT);
  channels_last->set_i(1);
  AddOutput(graph, "y", onnx::TensorProto::UINT8);
  return model;
}

// The reference: int32 sums of the shifted values (padding adds nothing), plus the bias, times
// the multiplier float(float(x_scale * w_scale) / y_scale) in double, rounded half to even.
std::vector<uint8_t> Reference(const Operands& o, float x_scale) {
  std::vector<uint8_t> y(o.x.size());
  for (int64_t h = 0; h < kHeight; ++h)
    for (int64_t w = 0; w < kWidth; ++w)
      for (int64_t c = 0; c < kChannels; ++c) {
        int64_t sum = o.bias[static_cast<size_t>(c)];
        for (int64_t kh = 0; kh < 3; ++kh)
          for (int64_t kw = 0; kw < 3; ++kw) {
            const int64_t ih = h + kh - 1, iw = w + kw - 1;
            if (ih < 0 || ih >= kHeight || iw < 0 || iw >= kWidth) continue;
            sum += (o.x[static_cast<size_t>((ih * kWidth + iw) * kChannels + c)] - kXZero) *
                   o.w[static_cast<size_t>(c * 9 + kh * 3 + kw)];
          }
        const auto product = static_cast<float>(
            static_cast<double>(x_scale) * static_cast<double>(o.w_scale[static_cast<size_t>(c)]));
        const auto multiplier = static_cast<float>(static_cast<double>(product) / kYScale);
        const double value =
            std::nearbyint(static_cast<double>(sum) * static_cast<double>(multiplier)) + kYZero;
        y[static_cast<size_t>((h * kWidth + w) * kChannels + c)] =
            static_cast<uint8_t>(std::min(255.0, std::max(0.0, value)));
      }
  return y;
}

std::vector<uint8_t> RunDepthwise(const InferenceSession& session, const Operands& o,
                                  const float* x_scale) {
  std::vector<std::string> names = {"x"};
  std::vector<Value> feeds = {Value(MakeTensor<uint8_t>({1, kHeight, kWidth, kChannels}, o.x))};
  if (x_scale != nullptr) {
    names.push_back("x_scale");
    feeds.emplace_back(MakeTensor<float>({}, {*x_scale}));
  }
  const std::vector<Value> outputs = session.Run(RunOptions{}, names, feeds, {});
  const Tensor& y = outputs.at(0).GetTensor();
  std::vector<uint8_t> bytes(static_cast<size_t>(y.NumElements()));
  std::memcpy(bytes.data(), y.RawData(), bytes.size());
  return bytes;
}

// Most outputs inside the range, or a comparison would prove little; the two scales' references
// must differ, or the fed-scale test could not tell a stale multiplier.
void ExpectUsefulReferences(const std::vector<uint8_t>& first, const std::vector<uint8_t>& second) {
  int64_t inside = 0, differ = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    inside += first[i] != 0 && first[i] != 255;
    differ += first[i] != second[i];
  }
  ASSERT_GT(inside * 2, static_cast<int64_t>(first.size()));
  ASSERT_GT(differ * 2, static_cast<int64_t>(first.size()));
}

TEST(QLinearConvConstants, FedScaleIsReadOnEveryRun) {
  const Operands o = MakeOperands();
  const float first_scale = 0.05f, second_scale = 0.09f;
  const std::vector<uint8_t> first = Reference(o, first_scale);
  const std::vector<uint8_t> second = Reference(o, second_scale);
  ExpectUsefulReferences(first, second);
  auto session = MakeSession(DepthwiseModel(o, /*fed_x_scale=*/true, 0.0f), {});
  EXPECT_EQ(RunDepthwise(*session, o, &first_scale), first);
  EXPECT_EQ(RunDepthwise(*session, o, &second_scale), second);
  EXPECT_EQ(RunDepthwise(*session, o, &first_scale), first);
}

TEST(QLinearConvConstants, ConstantParametersGiveTheSameResultOnEveryRun) {
  const Operands o = MakeOperands();
  const float scale = 0.07f;
  const std::vector<uint8_t> expected = Reference(o, scale);
  ExpectUsefulReferences(expected, Reference(o, 0.03f));
  auto session = MakeSession(DepthwiseModel(o, /*fed_x_scale=*/false, scale), {});
  EXPECT_EQ(RunDepthwise(*session, o, nullptr), expected);
  EXPECT_EQ(RunDepthwise(*session, o, nullptr), expected);
}

}  // namespace
}  // namespace prism::testing
