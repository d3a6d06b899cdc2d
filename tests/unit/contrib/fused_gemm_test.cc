// com.microsoft FusedGemm on the CPU EP: Gemm (transA, transB, alpha, beta, C broadcast) then an
// activation with its activation_alpha/beta/gamma, on values worked out by hand (the closed form
// of the transcendental activations), with B as a feed and as a prepacked constant; unknown
// activations refused. onnxruntime as an oracle: tests/python/test_gemm_fusions.py.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

constexpr const char* kMs = "com.microsoft";

// A = [[1, 2, 3], [-1, -2, -3]], B = [[1, 0], [0, 1], [1, -1]]: A B = [[4, -1], [-4, 1]];
// alpha 0.5, C = [1, -1] with beta 2: Y before the activation = [[4, -2.5], [0, -1.5]].
const std::vector<float> kBeforeActivation = {4.0f, -2.5f, 0.0f, -1.5f};

struct Param {
  std::string name;
  float value;
};

void RunFusedGemm(const std::string& activation, const std::vector<Param>& params,
                  const std::vector<float>& expected, bool transposed = false,
                  bool constant_b = false) {
  OpTester test("FusedGemm", 1, kMs);
  test.Attr("alpha", 0.5f);
  test.Attr("beta", 2.0f);
  if (!activation.empty()) test.Attr("activation", activation);
  for (const Param& param : params) test.Attr(param.name, param.value);
  if (transposed) {
    test.Attr("transA", int64_t{1});
    test.Attr("transB", int64_t{1});
    test.Input<float>("A", {3, 2}, {1, -1, 2, -2, 3, -3});
    test.Input<float>("B", {2, 3}, {1, 0, 1, 0, 1, -1}, constant_b);
  } else {
    test.Input<float>("A", {2, 3}, {1, 2, 3, -1, -2, -3});
    test.Input<float>("B", {3, 2}, {1, 0, 0, 1, 1, -1}, constant_b);
  }
  test.Input<float>("C", {2}, {1.0f, -1.0f});
  test.Output<float>("Y", {2, 2}, expected);
  test.Run();
}

std::vector<float> Map(float (*f)(float)) {
  std::vector<float> out;
  for (float v : kBeforeActivation) out.push_back(f(v));
  return out;
}

TEST(ContribFusedGemmTest, PiecewiseActivations) {
  for (bool transposed : {false, true}) {
    for (bool constant_b : {false, true}) {
      RunFusedGemm("", {}, kBeforeActivation, transposed, constant_b);
      RunFusedGemm("Relu", {}, {4.0f, 0.0f, 0.0f, 0.0f}, transposed, constant_b);
      RunFusedGemm("LeakyRelu", {{"activation_alpha", 0.1f}}, {4.0f, -0.25f, 0.0f, -0.15f},
                   transposed, constant_b);
    }
  }
  // 0.2 x + 0.5 clamped to [0, 1].
  RunFusedGemm("HardSigmoid", {{"activation_alpha", 0.2f}, {"activation_beta", 0.5f}},
               {1.0f, 0.0f, 0.5f, 0.2f});
  RunFusedGemm("ThresholdedRelu", {{"activation_alpha", 0.0f}}, {4.0f, 0.0f, 0.0f, 0.0f});
  RunFusedGemm("ThresholdedRelu", {{"activation_alpha", 5.0f}}, {0.0f, 0.0f, 0.0f, 0.0f});
  RunFusedGemm("Softsign", {}, {0.8f, -2.5f / 3.5f, 0.0f, -0.6f});
}

TEST(ContribFusedGemmTest, TranscendentalActivations) {
  RunFusedGemm("Tanh", {}, Map([](float v) { return std::tanh(v); }));
  RunFusedGemm("Sigmoid", {}, Map([](float v) { return 1.0f / (1.0f + std::exp(-v)); }));
  RunFusedGemm("Softplus", {}, Map([](float v) { return std::log(1.0f + std::exp(v)); }));
  RunFusedGemm("Elu", {{"activation_alpha", 2.0f}},
               {4.0f, 2.0f * (std::exp(-2.5f) - 1.0f), 0.0f, 2.0f * (std::exp(-1.5f) - 1.0f)});
  RunFusedGemm(
      "Selu", {{"activation_alpha", 1.5f}, {"activation_gamma", 2.0f}},
      {8.0f, 2.0f * 1.5f * (std::exp(-2.5f) - 1.0f), 0.0f, 2.0f * 1.5f * (std::exp(-1.5f) - 1.0f)});
}

TEST(ContribFusedGemmTest, MissingParametersTakeTheOnnxDefaults) {
  RunFusedGemm("LeakyRelu", {}, {4.0f, -0.025f, 0.0f, -0.015f});  // alpha 0.01
  RunFusedGemm("ThresholdedRelu", {}, {4.0f, 0.0f, 0.0f, 0.0f});  // alpha 1
  RunFusedGemm("HardSigmoid", {}, {1.0f, 0.0f, 0.5f, 0.2f});      // 0.2, 0.5
  const float alpha = 1.67326319217681884765625f, gamma = 1.05070102214813232421875f;
  RunFusedGemm("Selu", {},
               {gamma * 4.0f, gamma * alpha * (std::exp(-2.5f) - 1.0f), 0.0f,
                gamma * alpha * (std::exp(-1.5f) - 1.0f)});
}

TEST(ContribFusedGemmTest, CIsOptionalAndBroadcasts) {
  // No C: Y = relu(0.5 A B) = [[2, 0], [0, 0.5]].
  OpTester test("FusedGemm", 1, kMs);
  test.Attr("alpha", 0.5f);
  test.Attr("activation", std::string("Relu"));
  test.Input<float>("A", {2, 3}, {1, 2, 3, -1, -2, -3});
  test.Input<float>("B", {3, 2}, {1, 0, 0, 1, 1, -1});
  test.Output<float>("Y", {2, 2}, {2.0f, 0.0f, 0.0f, 0.5f});
  test.Run();
  // C [2, 1] broadcast along the rows: relu(A B + [[1], [10]]) = [[5, 0], [6, 11]].
  OpTester column("FusedGemm", 1, kMs);
  column.Attr("activation", std::string("Relu"));
  column.Input<float>("A", {2, 3}, {1, 2, 3, -1, -2, -3});
  column.Input<float>("B", {3, 2}, {1, 0, 0, 1, 1, -1});
  column.Input<float>("C", {2, 1}, {1.0f, 10.0f});
  column.Output<float>("Y", {2, 2}, {5.0f, 0.0f, 6.0f, 11.0f});
  column.Run();
}

TEST(ContribFusedGemmTest, UnknownActivationsAreRefused) {
  for (const std::string activation : {"Gelu", "Clip", "relu"}) {
    OpTester test("FusedGemm", 1, kMs);
    test.Attr("activation", activation);
    test.Input<float>("A", {1, 1}, {1.0f});
    test.Input<float>("B", {1, 1}, {1.0f});
    test.Output<float>("Y", {1, 1}, {1.0f});
    test.ExpectFailure("FusedGemm activation '" + activation + "' is not one of Relu");
  }
}

TEST(ContribFusedGemmTest, BadShapesNameTheNode) {
  OpTester test("FusedGemm", 1, kMs);
  test.Attr("activation", std::string("Relu"));
  test.Input<float>("A", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("B", {2, 2}, {1, 0, 0, 1});
  test.Output<float>("Y", {2, 2}, {0, 0, 0, 0});
  test.ExpectFailure("inner dimensions differ");
}

}  // namespace
}  // namespace prism::testing
