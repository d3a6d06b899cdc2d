// BatchNormalization and LayerNormalization on the CPU EP. Expected values were computed in
// float64 with numpy from the spec formulas (spot-checked against onnxruntime 1.31) on inputs
// that are exact in float16/bfloat16; one case per op is hand-checked.
#include <gtest/gtest.h>

#include <cmath>

#include "op_tester.h"
#include "precision_reference.h"

namespace prism::testing {
namespace {

std::vector<Float16> H(std::initializer_list<float> values) {
  std::vector<Float16> out;
  for (float v : values) out.emplace_back(v);
  return out;
}

std::vector<BFloat16> B(std::initializer_list<float> values) {
  std::vector<BFloat16> out;
  for (float v : values) out.emplace_back(v);
  return out;
}

// Hand-checked: y = scale * (x - mean) / sqrt(var) + B with epsilon 0.
TEST(BatchNormalizationTest, HandCheckedInference) {
  OpTester test("BatchNormalization", 15);
  test.Input<float>("x", {1, 2, 1, 2}, {1, 3, 2, 6});
  test.Input<float>("scale", {2}, {2, 0.5f});
  test.Input<float>("B", {2}, {1, -1});
  test.Input<float>("mean", {2}, {2, 4});
  test.Input<float>("var", {2}, {4, 1});
  test.Attr("epsilon", 0.f);
  test.Output<float>("y", {1, 2, 1, 2}, {0, 2, -2, 0});
  test.Run();
}

// Hand-checked: training mode normalizes with the batch mean 2 and population variance 2/3
// (x = 1, 2, 3), and running stats blend 0.5 * input + 0.5 * batch.
TEST(BatchNormalizationTest, HandCheckedTraining) {
  OpTester test("BatchNormalization", 15);
  test.Input<double>("x", {3, 1}, {1, 2, 3});
  test.Input<double>("scale", {1}, {1});
  test.Input<double>("B", {1}, {0});
  test.Input<double>("mean", {1}, {0});
  test.Input<double>("var", {1}, {1});
  test.Attr("epsilon", 0.f);
  test.Attr("momentum", 0.5f);
  test.Attr("training_mode", int64_t{1});
  const double k = 1.2247448713915890;  // 1 / sqrt(2/3)
  test.Output<double>("y", {3, 1}, {-k, 0, k});
  test.Output<double>("running_mean", {1}, {1});
  test.Output<double>("running_var", {1}, {0.5 + 1.0 / 3.0});
  test.Run();
}

// Hand-checked: rows [1, 3] and [0, 4] have mean 2 and variances 1 and 4.
TEST(LayerNormalizationTest, HandChecked) {
  OpTester test("LayerNormalization", 17);
  test.Input<float>("X", {2, 2}, {1, 3, 0, 4});
  test.Input<float>("Scale", {2}, {2, 1});
  test.Input<float>("B", {2}, {0, 10});
  test.Attr("epsilon", 0.f);
  test.Output<float>("Y", {2, 2}, {-2, 11, -2, 11});
  test.Run();
}

TEST(BatchNormalizationTest, Opset1FloatIsTest) {
  OpTester test("BatchNormalization", 1);
  test.Input<float>("x", {2, 3, 2, 2}, {-3.0f,  -3.0f, 2.25f, -0.25f, 0.5f,  0.75f,  1.5f,  -4.0f,
                                        -0.25f, -3.0f, -1.0f, 3.25f,  0.25f, -3.5f,  0.25f, -3.0f,
                                        2.0f,   3.5f,  3.75f, 0.75f,  2.75f, -1.25f, -3.0f, 0.0f});
  test.Input<float>("scale", {3}, {-0.5f, 1.25f, 3.75f});
  test.Input<float>("B", {3}, {-2.0f, 2.75f, -3.0f});
  test.Input<float>("mean", {3}, {-1.25f, 2.25f, -2.25f});
  test.Input<float>("var", {3}, {2.75f, 1.75f, 2.0f});
  test.Attr("is_test", int64_t{1});
  test.Attr("consumed_inputs", std::vector<int64_t>{0, 0, 0, 1, 1});
  test.Attr("epsilon", 0.001f);
  test.Output<float>(
      "y", {2, 3, 2, 2},
      {-1.47245109f, -1.47245109f, -3.05509782f, -2.30145645f,  1.09687769f,  1.33303797f,
       2.04151893f,  -3.15400839f, 2.30197549f,  -4.98824072f,  0.31373471f,  11.5804329f,
       -2.45218492f, -1.32172275f, -2.45218492f, -1.47245109f,  2.51383972f,  3.93080163f,
       4.16696215f,  1.33303797f,  10.2549391f,  -0.349012226f, -4.98824072f, 2.96472239f});
  test.Run();
}

TEST(BatchNormalizationTest, Opset1Float16IsTest) {
  OpTester test("BatchNormalization", 1);
  test.Input<Float16>("x", {1, 2, 3}, H({3.5, 2.5, 2.5, 0.25, 3.75, 3.75}));
  test.Input<Float16>("scale", {2}, H({-3.0, -2.5}));
  test.Input<Float16>("B", {2}, H({-1.75, 0.25}));
  test.Input<Float16>("mean", {2}, H({2.5, -0.25}));
  test.Input<Float16>("var", {2}, H({3.75, 1.5}));
  test.Attr("is_test", int64_t{1});
  test.Output<Float16>("y", {1, 2, 3},
                       H({-3.29882812, -1.75, -1.75, -0.770507812, -7.9140625, -7.9140625}));
  test.Run();
}

TEST(BatchNormalizationTest, Opset1DoubleNonSpatial) {
  OpTester test("BatchNormalization", 1);
  test.Input<double>("x", {2, 2, 3},
                     {3.25, 0.5, 1.75, -2.25, 0.5, 2.25, 3, 2.75, 3.5, -3, 2, -0.5});
  test.Input<double>("scale", {2, 3}, {1.25, -2, -4, -3.5, 3.75, 3});
  test.Input<double>("B", {2, 3}, {-1.75, -0.75, -2.25, -3, 2.75, 1.25});
  test.Input<double>("mean", {2, 3}, {-3.5, -2.5, 0.5, 3, 3.75, -2.5});
  test.Input<double>("var", {2, 3}, {2.5, 0.25, 0.75, 1, 1.75, 1.5});
  test.Attr("is_test", int64_t{1});
  test.Attr("spatial", int64_t{0});
  test.Output<double>(
      "y", {2, 2, 3},
      {3.5863328788793254, -12.749760007205824, -8.0234642022641793, 15.374908125691377,
       -6.4628577071875899, 12.885037494827399, 3.3886909204023121, -21.749580012610188,
       -16.106314085434033, 17.999895000790147, -2.2107695346394713, 6.1489631557167996});
  test.Run();
}

TEST(BatchNormalizationTest, Opset6DoubleIsTest) {
  OpTester test("BatchNormalization", 6);
  test.Input<double>("x", {2, 2, 3},
                     {1.75, -0.25, -1.5, 3, 1, 1.5, 1.75, -1.5, 3, -4, -1.75, -2.75});
  test.Input<double>("scale", {2}, {-4, 3.75});
  test.Input<double>("B", {2}, {-3.5, -0.5});
  test.Input<double>("mean", {2}, {2.5, 1.5});
  test.Input<double>("var", {2}, {3.25, 0.25});
  test.Attr("is_test", int64_t{1});
  test.Output<double>(
      "y", {2, 2, 3},
      {-1.8359019714730918, 2.6016927712653297, 5.3751894854768434, 10.74977500675546,
       -4.2499250022518194, -0.5, -1.8359019714730918, 5.3751894854768434, -4.6093986856846056,
       -41.749175024770018, -24.874512514636827, -32.374362519140462});
  test.Run();
}

TEST(BatchNormalizationTest, Opset6FloatTrainingOutputs) {
  OpTester test("BatchNormalization", 6);
  test.Input<float>(
      "x", {3, 2, 2},
      {-0.25f, -3.75f, -2.5f, 2.75f, -3.5f, 0.5f, -4.0f, -1.75f, 3.25f, -1.5f, -1.75f, -3.5f});
  test.Input<float>("scale", {2}, {2.0f, -2.75f});
  test.Input<float>("B", {2}, {-0.25f, -4.0f});
  test.Input<float>("mean", {2}, {-4.0f, 2.5f});
  test.Input<float>("var", {2}, {0.25f, 1.75f});
  test.Attr("momentum", 0.8f);
  test.Output<float>(
      "y", {3, 2, 2},
      {0.268707842f, -2.63605618f, -3.11285782f, -9.68814659f, -2.42857289f, 0.891157269f,
       -1.23420382f, -4.05218506f, 3.17347169f, -0.768707871f, -4.05218506f, -1.86042178f});
  test.Output<float>("running_mean", {2}, {-3.375f, 1.64166677f});
  test.Output<float>("running_var", {2}, {1.3614583f, 2.36423612f});
  test.Output<float>("saved_mean", {2}, {-0.875f, -1.79166663f});
  test.Output<float>("saved_var", {2}, {0.414966285f, 0.455431283f});
  test.Run();
}

TEST(BatchNormalizationTest, Opset6Float16) {
  OpTester test("BatchNormalization", 6);
  test.Input<Float16>("x", {2, 2, 2}, H({-0.75, -3.0, 1.0, 1.75, 3.75, -2.5, 3.25, -3.75}));
  test.Input<Float16>("scale", {2}, H({-3.0, 0.75}));
  test.Input<Float16>("B", {2}, H({2.75, 3.0}));
  test.Input<Float16>("mean", {2}, H({1.75, -4.0}));
  test.Input<Float16>("var", {2}, H({1.75, 3.25}));
  test.Output<Float16>("y", {2, 2, 2},
                       H({8.421875, 13.5234375, 5.08203125, 5.390625, -1.78515625, 12.390625,
                          6.015625, 3.10351562}));
  test.Run();
}

TEST(BatchNormalizationTest, Opset7FloatNonSpatial) {
  OpTester test("BatchNormalization", 7);
  test.Input<float>(
      "x", {2, 2, 3},
      {0.0f, -2.5f, 1.25f, -3.5f, 1.5f, -4.0f, -1.25f, -1.75f, 3.5f, 1.75f, 1.0f, -0.25f});
  test.Input<float>("scale", {2, 3}, {-1.75f, 2.75f, 3.5f, -2.5f, -2.25f, -1.5f});
  test.Input<float>("B", {2, 3}, {-0.25f, -2.0f, -1.0f, 3.75f, -1.25f, 3.5f});
  test.Input<float>("mean", {2, 3}, {0.0f, -1.5f, 3.25f, -0.75f, 2.0f, -1.5f});
  test.Input<float>("var", {2, 3}, {3.75f, 3.0f, 3.5f, 0.25f, 0.5f, 0.5f});
  test.Attr("spatial", int64_t{0});
  test.Output<float>(
      "y", {2, 2, 3},
      {-0.25f, -3.58771062f, -4.74165201f, 17.4997253f, 0.340974361f, 8.80324745f, 0.879618645f,
       -2.3969276f, -0.532293499f, -8.74975014f, 1.93194866f, 0.848376095f});
  test.Run();
}

TEST(BatchNormalizationTest, Opset7Float16) {
  OpTester test("BatchNormalization", 7);
  test.Input<Float16>(
      "x", {2, 3, 2},
      H({0.25, -1.0, 3.75, -2.25, -2.75, 2.75, -1.75, 1.75, -1.75, 0.25, -3.5, 1.25}));
  test.Input<Float16>("scale", {3}, H({3.25, 1.5, 3.0}));
  test.Input<Float16>("B", {3}, H({2.0, 0.5, 3.25}));
  test.Input<Float16>("mean", {3}, H({-0.25, -3.0, 0.25}));
  test.Input<Float16>("var", {3}, H({2.5, 0.75, 0.75}));
  test.Output<Float16>("y", {2, 3, 2},
                       H({3.02734375, 0.458496094, 12.1875, 1.79882812, -7.140625, 11.9140625,
                          -1.08300781, 6.109375, 2.66601562, 6.12890625, -9.7421875, 6.71484375}));
  test.Run();
}

TEST(BatchNormalizationTest, Opset7DoubleTrainingOutputs) {
  OpTester test("BatchNormalization", 7);
  test.Input<double>("x", {2, 2, 3},
                     {1.25, -0.5, -0.25, 2.25, 1.25, 3, -2.75, 2, 0.25, -3.75, -3.5, -1.25});
  test.Input<double>("scale", {2}, {1, -2.75});
  test.Input<double>("B", {2}, {0.25, 3.75});
  test.Input<double>("mean", {2}, {-3, -3});
  test.Input<double>("var", {2}, {3.75, 1});
  test.Attr("epsilon", 0.01f);
  test.Output<double>(
      "y", {2, 2, 3},
      {1.0814876315882918, -0.08259505263531669, 0.083702473682341655, 1.0929858451235943,
       2.121507453462848, 0.32159463886915374, -1.579272789494242, 1.5803802105412668,
       0.41629752631765837, 7.2641154951591176, 7.0069850930743041, 4.6928114743109823});
  test.Output<double>("running_mean", {2}, {-2.6999999284744263, -2.7333332697550454});
  test.Output<double>("running_var", {2}, {3.5999999642372131, 1.6138890352514055});
  test.Output<double>("saved_mean", {2}, {0, -0.33333333333333331});
  test.Output<double>("saved_var", {2}, {0.66519010527063338, 0.3740078575779105});
  test.Run();
}

TEST(BatchNormalizationTest, Opset7FloatNonSpatialTraining) {
  OpTester test("BatchNormalization", 7);
  test.Input<float>(
      "x", {3, 2, 2},
      {2.75f, -1.25f, 2.0f, -3.75f, 1.0f, 2.75f, -1.5f, 1.0f, -2.5f, -2.75f, -4.0f, -0.25f});
  test.Input<float>("scale", {2, 2}, {0.0f, -3.5f, -2.25f, 0.75f});
  test.Input<float>("B", {2, 2}, {-1.25f, -2.25f, -4.0f, -3.75f});
  test.Input<float>("mean", {2, 2}, {1.0f, -3.25f, 2.75f, 0.25f});
  test.Input<float>("var", {2, 2}, {1.0f, 2.5f, 0.75f, 1.25f});
  test.Attr("spatial", int64_t{0});
  test.Output<float>("y", {3, 2, 2},
                     {-1.25f, -0.993574381f, -6.89539289f, -4.77591944f, -1.25f, -7.0244174f,
                      -3.6952219f, -3.00387692f, -1.25f, 1.26799166f, -1.4093852f, -3.47020388f});
  test.Output<float>("running_mean", {2, 2}, {0.941666663f, -2.9666667f, 2.35833335f, 0.12499997f});
  test.Output<float>("running_var", {2, 2}, {1.37638903f, 2.78888893f, 1.28055573f, 1.5291667f});
  test.Run();
}

TEST(BatchNormalizationTest, Opset9FloatRank2) {
  OpTester test("BatchNormalization", 9);
  test.Input<float>("x", {2, 3}, {-0.25f, 1.0f, -3.0f, -1.25f, -3.5f, -3.0f});
  test.Input<float>("scale", {3}, {-2.25f, -1.5f, 3.25f});
  test.Input<float>("B", {3}, {-1.0f, -3.25f, 3.25f});
  test.Input<float>("mean", {3}, {0.5f, -3.25f, -3.5f});
  test.Input<float>("var", {3}, {0.5f, 3.5f, 2.25f});
  test.Output<float>(
      "y", {2, 3}, {1.3864615f, -6.65757608f, 4.33333111f, 4.5684104f, -3.04955435f, 4.33333111f});
  test.Run();
}

TEST(BatchNormalizationTest, Opset9DoubleRank1MeansOneChannel) {
  OpTester test("BatchNormalization", 9);
  test.Input<double>("x", {4}, {1.25, 3.5, -1, 3.25});
  test.Input<double>("scale", {1}, {-1});
  test.Input<double>("B", {1}, {1.5});
  test.Input<double>("mean", {1}, {2.5});
  test.Input<double>("var", {1}, {0.5});
  test.Output<double>(
      "y", {4}, {3.2677492755624464, 0.085800579550042722, 6.4496979715748504, 0.4393504346625321});
  test.Run();
}

TEST(BatchNormalizationTest, Opset9Float16) {
  OpTester test("BatchNormalization", 9);
  test.Input<Float16>("x", {1, 2, 2, 2}, H({1.75, 2.25, 3.75, 1.25, -0.25, -3.0, 2.0, -0.5}));
  test.Input<Float16>("scale", {2}, H({2.25, -3.75}));
  test.Input<Float16>("B", {2}, H({-1.25, 2.25}));
  test.Input<Float16>("mean", {2}, H({0.75, 1.5}));
  test.Input<Float16>("var", {2}, H({2.25, 3.25}));
  test.Attr("epsilon", 0.01f);
  test.Output<Float16>("y", {1, 2, 2, 2},
                       H({0.246704102, 0.995117188, 3.24023438, -0.501464844, 5.8828125, 11.59375,
                          1.21191406, 6.40234375}));
  test.Run();
}

TEST(BatchNormalizationTest, Opset9Float3dSpatial) {
  OpTester test("BatchNormalization", 9);
  test.Input<float>("x", {1, 2, 2, 2, 2},
                    {2.5f, 2.0f, 1.25f, -2.0f, -3.5f, 2.25f, -1.25f, -2.25f, -4.0f, -3.0f, -3.75f,
                     -1.0f, -1.75f, -0.25f, 0.5f, -1.75f});
  test.Input<float>("scale", {2}, {0.25f, 0.75f});
  test.Input<float>("B", {2}, {1.25f, 0.75f});
  test.Input<float>("mean", {2}, {-3.75f, -2.25f});
  test.Input<float>("var", {2}, {3.0f, 2.5f});
  test.Output<float>("y", {1, 2, 2, 2, 2},
                     {2.15210819f, 2.0799396f, 1.9716866f, 1.5025903f, 1.28608429f, 2.11602402f,
                      1.6108433f, 1.466506f, -0.0800962225f, 0.394244462f, 0.0384889506f,
                      1.34292591f, 0.987170339f, 1.69868135f, 2.05443692f, 0.987170339f});
  test.Run();
}

TEST(BatchNormalizationTest, Opset14FloatTraining) {
  OpTester test("BatchNormalization", 14);
  test.Input<float>(
      "x", {2, 2, 3},
      {-1.75f, -1.25f, 3.25f, 1.75f, -1.25f, -1.75f, -3.0f, 2.25f, 1.0f, -0.75f, 1.5f, 0.25f});
  test.Input<float>("scale", {2}, {0.25f, 1.25f});
  test.Input<float>("B", {2}, {2.0f, 0.0f});
  test.Input<float>("mean", {2}, {-0.75f, -2.0f});
  test.Input<float>("var", {2}, {1.25f, 3.75f});
  test.Attr("training_mode", int64_t{1});
  test.Attr("momentum", 0.7f);
  test.Output<float>(
      "y", {2, 2, 3},
      {1.79573536f, 1.85144389f, 2.35282087f, 1.6887778f, -1.1389432f, -1.61022997f, 1.65646398f,
       2.24140382f, 2.10213232f, -0.667656362f, 1.45313442f, 0.274917305f});
  test.Output<float>("running_mean", {2}, {-0.5f, -1.41250002f});
  test.Output<float>("running_var", {2}, {2.38541675f, 3.1526041f});
  test.Run();
}

TEST(BatchNormalizationTest, Opset14DoubleInference) {
  OpTester test("BatchNormalization", 14);
  test.Input<double>("x", {2, 2, 2}, {-2.75, -3.25, 0.75, -1.5, -3.25, 0.25, 1.75, -4});
  test.Input<double>("scale", {2}, {-0.25, -3});
  test.Input<double>("B", {2}, {0.5, 2.25});
  test.Input<double>("mean", {2}, {2.25, 2.25});
  test.Input<double>("var", {2}, {1.25, 2.5});
  test.Output<double>(
      "y", {2, 2, 2},
      {1.6180295166408856, 1.7298324683049739, 5.0960442020689731, 9.3651105051724315,
       1.7298324683049739, 0.94721180665635418, 3.198681400689658, 14.108517508620722});
  test.Run();
}

TEST(BatchNormalizationTest, Opset14Float16WithFloatStats) {
  OpTester test("BatchNormalization", 14);
  test.Input<Float16>("x", {2, 2, 2}, H({1.0, 3.0, 1.5, 2.0, -3.25, -1.75, -1.25, 1.0}));
  test.Input<Float16>("scale", {2}, H({2.75, -1.5}));
  test.Input<Float16>("B", {2}, H({-0.25, 1.75}));
  test.Input<float>("mean", {2}, {-2.5f, -1.0f});
  test.Input<float>("var", {2}, {0.75f, 0.75f});
  test.Output<Float16>("y", {2, 2, 2},
                       H({10.8671875, 17.21875, -2.58007812, -3.4453125, -2.63085938, 2.13085938,
                          2.18359375, -1.71386719}));
  test.Run();
}

TEST(BatchNormalizationTest, Opset14BFloat16TrainingFloatStats) {
  OpTester test("BatchNormalization", 14);
  test.Input<BFloat16>("x", {2, 2, 2}, B({1.5, 3.0, -3.0, 1.5, 1.5, 1.75, 1.5, 0.25}));
  test.Input<BFloat16>("scale", {2}, B({-3.25, 2.25}));
  test.Input<BFloat16>("B", {2}, B({-2.5, -0.5}));
  test.Input<float>("mean", {2}, {3.5f, 0.5f});
  test.Input<float>("var", {2}, {1.25f, 0.25f});
  test.Attr("training_mode", int64_t{1});
  test.Output<BFloat16>("y", {2, 2, 2},
                        B({-0.213867188, -8.0625, -4.25, 1.2578125, -0.213867188, -1.5234375,
                           1.2578125, -0.271484375}));
  test.Output<float>("running_mean", {2}, {3.34375f, 0.456249982f});
  test.Output<float>("running_var", {2}, {1.16367185f, 0.563671947f});
  test.Run();
}

TEST(BatchNormalizationTest, Opset14FloatTrainingOnlyRunningVar) {
  OpTester test("BatchNormalization", 14);
  test.Input<float>("x", {2, 2, 2}, {-2.0f, 0.25f, 2.75f, 2.5f, -2.5f, 1.5f, 1.0f, 2.25f});
  test.Input<float>("scale", {2}, {-0.25f, -0.25f});
  test.Input<float>("B", {2}, {-0.75f, 3.0f});
  test.Input<float>("mean", {2}, {0.0f, -3.25f});
  test.Input<float>("var", {2}, {2.0f, 3.5f});
  test.Attr("training_mode", int64_t{1});
  test.Output<float>("y", {2, 2, 2},
                     {-0.549114704f, -0.89348948f, 2.7678833f, 2.86072993f, -0.472586989f,
                      -1.08480883f, 3.41780996f, 2.95357656f});
  test.MissingOutput();
  test.Output<float>("running_var", {2}, {2.06679678f, 3.1953125f});
  test.Run();
}

TEST(BatchNormalizationTest, Opset15Float16ScaleFloatStatsDouble) {
  OpTester test("BatchNormalization", 15);
  test.Input<Float16>("x", {2, 2, 2}, H({2.5, -1.25, 3.0, -3.5, 1.75, 0.75, -4.0, -0.5}));
  test.Input<float>("scale", {2}, {-1.0f, -0.75f});
  test.Input<float>("B", {2}, {-2.0f, 2.75f});
  test.Input<double>("mean", {2}, {2.5, -3});
  test.Input<double>("var", {2}, {3, 2.5});
  test.Output<Float16>("y", {2, 2, 2},
                       H({-2.0, 0.165039062, -0.0960693359, 2.98632812, -1.56738281, -0.989746094,
                          3.22460938, 1.56445312}));
  test.Run();
}

TEST(BatchNormalizationTest, Opset15DoubleScaleBFloat16StatsFloat16Training) {
  OpTester test("BatchNormalization", 15);
  test.Input<double>("x", {2, 3, 2},
                     {-2.75, -0.75, -2, 0, -3, -0.25, -3.25, -3, 2.75, 0, -1.75, 2.75});
  test.Input<BFloat16>("scale", {3}, B({-1.5, -2.75, 3.0}));
  test.Input<BFloat16>("B", {3}, B({-4.0, 3.5, -3.5}));
  test.Input<Float16>("mean", {3}, H({2.25, -0.5, -3.0}));
  test.Input<Float16>("var", {3}, H({3.75, 1.75, 0.25}));
  test.Attr("training_mode", int64_t{1});
  test.Output<double>(
      "y", {2, 3, 2},
      {-3.5266066117881083, -6.5563242963442168, 7.0599286134817589, 3.8051367382984367,
       -6.9074421216367092, -3.0631484459440115, -2.769177190649081, -3.1478919012185944,
       -0.67020209007863141, 3.8051367382984367, -5.160035905412756, 1.1306264729934776});
  test.Output<Float16>("running_mean", {3}, H({1.78125, -0.431152344, -2.75585938}));
  test.Output<Float16>("running_var", {3}, H({3.47265625, 1.86035156, 0.685546875}));
  test.Run();
}

TEST(BatchNormalizationTest, Opset15BFloat16) {
  OpTester test("BatchNormalization", 15);
  test.Input<BFloat16>("x", {2, 2, 2}, B({1.75, 3.75, -3.0, 0.25, 3.25, -3.25, 2.25, -0.75}));
  test.Input<BFloat16>("scale", {2}, B({-3.75, -2.5}));
  test.Input<BFloat16>("B", {2}, B({2.75, 1.5}));
  test.Input<BFloat16>("mean", {2}, B({3.0, 0.25}));
  test.Input<BFloat16>("var", {2}, B({0.5, 1.25}));
  test.Output<BFloat16>("y", {2, 2, 2},
                        B({9.375, -1.2265625, 8.75, 1.5, 1.421875, 36.0, -2.96875, 3.734375}));
  test.Run();
}

TEST(BatchNormalizationTest, Opset15FloatScaleDouble) {
  OpTester test("BatchNormalization", 15);
  test.Input<float>("x", {1, 3, 2}, {-1.75f, -2.0f, -3.5f, 2.75f, -3.25f, 2.0f});
  test.Input<double>("scale", {3}, {1.5, -0.75, 1});
  test.Input<double>("B", {3}, {-1, 0, 1.75});
  test.Input<float>("mean", {3}, {-0.5f, 3.75f, 2.5f});
  test.Input<float>("var", {3}, {0.5f, 3.5f, 0.75f});
  test.Attr("epsilon", 0.5f);
  test.Output<float>("y", {1, 3, 2},
                     {-2.875f, -3.25f, 2.71875f, 0.375f, -3.39295626f, 1.30278635f});
  test.Run();
}

TEST(LayerNormalizationTest, FloatDefaultAxisWithStats) {
  OpTester test("LayerNormalization", 17);
  test.Input<float>("X", {2, 3, 4}, {-2.5f,  -1.25f, 2.5f,  0.0f,   2.0f, -3.5f, 1.75f, -3.75f,
                                     -2.25f, -2.25f, 2.5f,  -1.0f,  2.0f, 1.75f, 1.5f,  0.75f,
                                     2.75f,  -4.0f,  1.25f, -3.75f, 1.0f, -0.5f, 3.75f, 2.75f});
  test.Input<float>("Scale", {4}, {-3.75f, 3.25f, -2.75f, -1.25f});
  test.Input<float>("B", {4}, {0.25f, 3.0f, -1.25f, 3.25f});
  test.Output<float>(
      "Y", {2, 3, 4},
      {4.6870532f,   1.3519516f,  -5.43350744f, 3.03871179f,  -3.66640806f, -0.0990708098f,
       -3.87229061f, 4.55546951f, 3.14270568f,  0.492988378f, -5.84618807f, 3.4107058f,
       -3.75882697f, 4.7371583f,  -1.25f,       5.2544136f,   -4.3805232f,  -0.332930386f,
       -3.26440859f, 4.42725182f, 1.97566795f,  -1.48673677f, -4.62463951f, 2.48303652f});
  test.Output<float>("Mean", {2, 3, 1}, {-0.3125f, -0.875f, -0.75f, 1.5f, -0.9375f, 1.75f});
  test.Output<float>(
      "InvStdDev", {2, 3, 1},
      {0.540897906f, 0.363261044f, 0.514258802f, 2.13804102f, 0.334862709f, 0.613570809f});
  test.Run();
}

TEST(LayerNormalizationTest, DoubleAxis1NoBias) {
  OpTester test("LayerNormalization", 17);
  test.Input<double>("X", {2, 3, 2},
                     {-1.75, -0.75, 3.25, 1.75, 1.25, -1.25, -4, -3, -1.5, 0.5, 2.75, -3.5});
  test.Input<double>("Scale", {3, 2}, {-3.75, 1.25, -2.25, 2.25, 0.5, 3.25});
  test.Attr("axis", int64_t{1});
  test.Attr("epsilon", 0.001f);
  test.Output<double>(
      "Y", {2, 3, 2},
      {4.5256216708702937, -0.81229106913056559, -3.5508723879136155, 1.6709987707828777,
       0.23208316260873299, -3.0170811139135294, 3.9714642951047692, -0.8029736552944069,
       0.039063583230538781, 1.8359884118353194, 0.87676042361875772, -2.7648336130947957});
  test.Output<float>("Mean", {2, 1, 1}, {0.416666657f, -1.45833337f});
  test.Output<float>("InvStdDev", {2, 1, 1}, {0.556999564f, 0.41667822f});
  test.Run();
}

TEST(LayerNormalizationTest, Float16AxisNegative2) {
  OpTester test("LayerNormalization", 17);
  test.Input<Float16>("X", {2, 2, 3},
                      H({-0.5, -0.5, 2.0, -3.25, -2.5, 3.0, -3.0, 2.75, 1.5, 3.5, -2.0, 0.75}));
  test.Input<Float16>("Scale", {2, 3}, H({-3.75, 1.25, -3.75, -1.25, -1.5, -2.75}));
  test.Input<Float16>("B", {2, 3}, H({0.25, -1.75, -3.5, 1.75, -2.75, -1.5}));
  test.Attr("axis", int64_t{-2});
  test.Output<Float16>(
      "Y", {2, 2, 3},
      H({0.600585938, -1.8671875, -7.35546875, 3.41015625, -1.26367188, -5.5625, 5.9296875,
         -0.60546875, -4.953125, 0.208984375, -1.11230469, -1.69335938}));
  test.Output<float>("Mean", {2, 1, 1}, {-0.291666657f, 0.583333313f});
  test.Output<float>("InvStdDev", {2, 1, 1}, {0.44869566f, 0.4226816f});
  test.Run();
}

TEST(LayerNormalizationTest, BFloat16StatsBFloat16) {
  OpTester test("LayerNormalization", 17);
  test.Input<BFloat16>("X", {2, 4}, B({-1.5, 1.5, 1.75, 0.0, -3.5, -0.5, 1.5, 3.5}));
  test.Input<BFloat16>("Scale", {4}, B({3.5, -2.75, -2.25, -0.25}));
  test.Input<BFloat16>("B", {4}, B({-2.0, -2.75, -2.25, 3.25}));
  test.Attr("stash_type", int64_t{16});
  test.Output<BFloat16>("Y", {2, 4},
                        B({-7.1875, -5.0, -4.5, 3.328125, -7.0625, -1.953125, -3.34375, 2.9375}));
  test.Output<BFloat16>("Mean", {2, 1}, B({0.4375, 0.25}));
  test.Output<BFloat16>("InvStdDev", {2, 1}, B({0.765625, 0.38671875}));
  test.Run();
}

TEST(LayerNormalizationTest, FloatBroadcastScaleAndBias) {
  OpTester test("LayerNormalization", 17);
  test.Input<float>("X", {2, 3, 4}, {1.5f,  -0.25f, 0.25f, -1.5f, 0.25f, -2.75f, -3.75f, 0.75f,
                                     0.25f, -1.0f,  -0.5f, -3.0f, 2.75f, -3.75f, -0.25f, -1.0f,
                                     2.0f,  0.5f,   -2.5f, 0.0f,  0.75f, 3.0f,   0.0f,   3.25f});
  test.Input<float>("Scale", {1, 4}, {-1.5f, 3.25f, 3.5f, 2.25f});
  test.Input<float>("B", {3, 1}, {2.75f, -0.25f, 3.5f});
  test.Attr("axis", int64_t{1});
  test.Output<float>(
      "Y", {2, 3, 4},
      {0.528819621f, 3.92062211f,   5.13126564f, 1.75947356f, -1.27054238f, -4.28214264f,
       -6.83349848f, 2.00119638f,   2.47945762f, 3.10979271f, 4.20037222f,  0.348325104f,
       1.04430783f,  -3.7582972f,   1.6581558f,  1.23299062f, -1.4122858f,  -0.0864749476f,
       -5.14568853f, -0.680196702f, 3.24339151f, 7.58812618f, 2.83080506f,  6.60194445f});
  test.Run();
}

TEST(LayerNormalizationTest, FloatScaleVariesOverRows) {
  OpTester test("LayerNormalization", 17);
  test.Input<float>("X", {2, 3}, {0.0f, 0.5f, -1.0f, 0.5f, -1.0f, 0.5f});
  test.Input<float>("Scale", {2, 3}, {-3.75f, -3.5f, 2.25f, 2.75f, -2.25f, -4.0f});
  test.Input<float>("B", {1}, {-4.0f});
  test.Attr("axis", int64_t{1});
  test.Output<float>(
      "Y", {2, 3},
      {-5.00221682f, -7.7416091f, -7.00665045f, -2.05547571f, -0.818051279f, -6.8283987f});
  test.Run();
}

TEST(LayerNormalizationTest, FloatAxis0OnlyInvStdDev) {
  OpTester test("LayerNormalization", 17);
  test.Input<float>("X", {2, 3}, {2.0f, -0.5f, -2.0f, 1.5f, 0.0f, -0.75f});
  test.Input<float>("Scale", {2, 3}, {-3.5f, -1.25f, 2.0f, 1.25f, -0.25f, -2.75f});
  test.Input<float>("B", {2, 3}, {1.0f, -4.0f, 3.75f, 0.5f, 1.5f, 0.0f});
  test.Attr("axis", int64_t{0});
  test.Attr("epsilon", 0.25f);
  test.Output<float>(
      "Y", {2, 3}, {-3.73884368f, -3.53187704f, 0.92685914f, 1.7603308f, 1.50720191f, 1.50519502f});
  test.MissingOutput();
  test.Output<float>("InvStdDev", {1, 1}, {0.691381454f});
  test.Run();
}

TEST(LayerNormalizationTest, DoubleOnlyY) {
  OpTester test("LayerNormalization", 17);
  test.Input<double>("X", {3, 2}, {-1.25, 2.75, -4, -0.75, 1.75, 2.25});
  test.Input<double>("Scale", {2}, {-2.25, -4});
  test.Input<double>("B", {2}, {3.75, -4});
  test.Output<double>("Y", {3, 2},
                      {5.9999971875053442, -7.999995000009501, 5.9999957396571784,
                       -7.9999924260572062, 5.9998200216016659, -7.9996800384029623});
  test.Run();
}

TEST(LayerNormalizationTest, Float16OnlyY) {
  OpTester test("LayerNormalization", 17);
  test.Input<Float16>("X", {2, 3}, H({2.25, 0.75, -4.0, -2.25, -2.75, -3.5}));
  test.Input<Float16>("Scale", {3}, H({0.5, -3.0, -1.5}));
  test.Output<Float16>(
      "Y", {2, 3},
      H({0.484863281, -1.21972656, 2.06445312, 0.567871094, -0.486572266, 1.94628906}));
  test.Run();
}

TEST(NormErrorTest, BatchNormWrongScaleShape) {
  OpTester test("BatchNormalization", 15);
  test.Input<float>("x", {1, 3, 2}, {1, 2, 3, 4, 5, 6});
  test.Input<float>("scale", {2}, {1, 1});
  test.Input<float>("B", {3}, {0, 0, 0});
  test.Input<float>("mean", {3}, {0, 0, 0});
  test.Input<float>("var", {3}, {1, 1, 1});
  test.Output<float>("y", {1, 3, 2}, {1, 2, 3, 4, 5, 6});
  test.ExpectFailure("input scale has shape [2] but X of shape [1,3,2] needs 3 values");
}

TEST(NormErrorTest, BatchNormWrongVarShape) {
  OpTester test("BatchNormalization", 9);
  test.Input<float>("x", {1, 2}, {1, 2});
  test.Input<float>("scale", {2}, {1, 1});
  test.Input<float>("B", {2}, {0, 0});
  test.Input<float>("mean", {2}, {0, 0});
  test.Input<float>("var", {3}, {1, 1, 1});
  test.Output<float>("y", {1, 2}, {1, 2});
  test.ExpectFailure("input var has shape [3]");
}

TEST(NormErrorTest, BatchNormRunningStatsNeedTrainingMode) {
  OpTester test("BatchNormalization", 15);
  test.Input<float>("x", {1, 1}, {1});
  test.Input<float>("scale", {1}, {1});
  test.Input<float>("B", {1}, {0});
  test.Input<float>("mean", {1}, {0});
  test.Input<float>("var", {1}, {1});
  test.Output<float>("y", {1, 1}, {1});
  test.Output<float>("running_mean", {1}, {0});
  test.ExpectFailure("only valid with training_mode=1");
}

TEST(NormErrorTest, BatchNormIsTestWithTrainingOutputs) {
  OpTester test("BatchNormalization", 6);
  test.Input<float>("x", {1, 1}, {1});
  test.Input<float>("scale", {1}, {1});
  test.Input<float>("B", {1}, {0});
  test.Input<float>("mean", {1}, {0});
  test.Input<float>("var", {1}, {1});
  test.Attr("is_test", int64_t{1});
  test.Output<float>("y", {1, 1}, {1});
  test.Output<float>("mean_out", {1}, {0});
  test.ExpectFailure("is_test=1 allows only output Y");
}

TEST(NormErrorTest, LayerNormAxisOutOfRange) {
  OpTester test("LayerNormalization", 17);
  test.Input<float>("X", {2, 2}, {1, 2, 3, 4});
  test.Input<float>("Scale", {2}, {1, 1});
  test.Attr("axis", int64_t{2});
  test.Output<float>("Y", {2, 2}, {1, 2, 3, 4});
  test.ExpectFailure("axis 2 is out of range [-2, 2)");
}

TEST(NormErrorTest, LayerNormScaleNotBroadcastable) {
  OpTester test("LayerNormalization", 17);
  test.Input<float>("X", {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  test.Input<float>("Scale", {3}, {1, 1, 1});
  test.Output<float>("Y", {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  test.ExpectFailure("Scale of shape [3] cannot be broadcast to X of shape [2,4]");
}

TEST(NormErrorTest, LayerNormBiasRankTooHigh) {
  OpTester test("LayerNormalization", 17);
  test.Input<float>("X", {4}, {1, 2, 3, 4});
  test.Input<float>("Scale", {4}, {1, 1, 1, 1});
  test.Input<float>("B", {1, 4}, {0, 0, 0, 0});
  test.Output<float>("Y", {4}, {1, 2, 3, 4});
  test.ExpectFailure("B of shape [1,4] cannot be broadcast");
}

// LayerNormalization of x seen as [rows, cols] with per-column scale and bias, computed in C.
template <typename C>
std::vector<C> LayerNormReference(const std::vector<C>& x, int rows, int cols,
                                  const std::vector<C>& scale, const std::vector<C>& bias,
                                  C epsilon) {
  std::vector<C> y(x.size());
  for (int r = 0; r < rows; ++r) {
    const C* row = x.data() + r * cols;
    C sum = 0;
    for (int c = 0; c < cols; ++c) sum += row[c];
    const C mean = sum / cols;
    C squares = 0;
    for (int c = 0; c < cols; ++c) squares += (row[c] - mean) * (row[c] - mean);
    const C inv_std_dev = 1 / std::sqrt(squares / cols + epsilon);
    for (int c = 0; c < cols; ++c)
      y[r * cols + c] = (row[c] - mean) * inv_std_dev * scale[c] + bias[c];
  }
  return y;
}

// BatchNormalization of x seen as [batch, channels, inner] with per-channel parameters.
template <typename C>
std::vector<C> BatchNormReference(const std::vector<C>& x, int batch, int channels, int inner,
                                  const std::vector<C>& scale, const std::vector<C>& bias,
                                  const std::vector<C>& mean, const std::vector<C>& var,
                                  C epsilon) {
  std::vector<C> y(x.size());
  for (int n = 0; n < batch; ++n)
    for (int c = 0; c < channels; ++c)
      for (int i = 0; i < inner; ++i) {
        const size_t at = static_cast<size_t>((n * channels + c) * inner + i);
        y[at] = (x[at] - mean[c]) / std::sqrt(var[c] + epsilon) * scale[c] + bias[c];
      }
  return y;
}

template <typename C>
std::vector<C> As(const std::vector<double>& values) {
  return std::vector<C>(values.begin(), values.end());
}

// Double LayerNormalization computes in double (stage one too: at least stash_type's float, as
// onnxruntime does): rows of 1 + k * 2^-30 (constant in float, where Y would be just B) must
// match long double to 1e-12.
TEST(LayerNormDoublePrecisionTest, ExactToDoublePrecision) {
  constexpr int kRows = 2, kCols = 6;
  const float epsilon = 1e-24f;  // far below the variance (~1e-18), used at its float value
  std::vector<double> x, scale, bias;
  for (int i = 0; i < kRows * kCols; ++i) x.push_back(NearOne(7 * i - 40) + (i / kCols) * 2);
  for (int c = 0; c < kCols; ++c) {
    scale.push_back(NearOne(c - 2) * (c % 2 ? -1.5 : 0.75));
    bias.push_back(NearOne(3 * c) * (c - 2.5));
  }
  const std::vector<double> expected = DoubleExpected([&]<typename C>() {
    return LayerNormReference(As<C>(x), kRows, kCols, As<C>(scale), As<C>(bias),
                              static_cast<C>(epsilon));
  });
  OpTester test("LayerNormalization", 17);
  test.Input<double>("X", {kRows, kCols}, x);
  test.Input<double>("Scale", {kCols}, scale);
  test.Input<double>("B", {kCols}, bias);
  test.Attr("epsilon", epsilon);
  test.Output<double>("Y", {kRows, kCols}, expected);
  test.Run();
}

// Double BatchNormalization in inference mode: x and mean are 1 + k * 2^-30 (x - mean is a few
// 2^-30) and the variance is tiny, so y = (x - mean) * scale / sqrt(var + epsilon) + B needs
// every digit of x - mean.
TEST(BatchNormDoublePrecisionTest, InferenceExactToDoublePrecision) {
  constexpr int kBatch = 2, kChannels = 2, kInner = 3;
  const float epsilon = 1e-20f;
  std::vector<double> x;
  for (int i = 0; i < kBatch * kChannels * kInner; ++i) x.push_back(NearOne(5 * i - 27));
  const std::vector<double> scale = {1.5, NearOne(-3) * -0.75};
  const std::vector<double> bias = {NearOne(9) * 0.25, -2};
  const std::vector<double> mean = {NearOne(1), NearOne(-2)};
  const std::vector<double> var = {3 * 0x1p-60, 7 * 0x1p-58};
  const std::vector<double> expected = DoubleExpected([&]<typename C>() {
    return BatchNormReference(As<C>(x), kBatch, kChannels, kInner, As<C>(scale), As<C>(bias),
                              As<C>(mean), As<C>(var), static_cast<C>(epsilon));
  });
  OpTester test("BatchNormalization", 15);
  test.Input<double>("x", {kBatch, kChannels, kInner}, x);
  test.Input<double>("scale", {kChannels}, scale);
  test.Input<double>("B", {kChannels}, bias);
  test.Input<double>("mean", {kChannels}, mean);
  test.Input<double>("var", {kChannels}, var);
  test.Attr("epsilon", epsilon);
  test.Output<double>("y", {kBatch, kChannels, kInner}, expected);
  test.Run();
}

// Training mode: the batch statistics and the running statistics stay in double too.
TEST(BatchNormDoublePrecisionTest, TrainingExactToDoublePrecision) {
  constexpr int kBatch = 4, kChannels = 2, kInner = 2;
  const float epsilon = 1e-20f;
  const float momentum = 0.9f;
  std::vector<double> x;
  for (int i = 0; i < kBatch * kChannels * kInner; ++i) x.push_back(NearOne(3 * i - 20) * 2);
  const std::vector<double> scale = {NearOne(4), -0.5};
  const std::vector<double> bias = {0.125, NearOne(-6)};
  const std::vector<double> input_mean = {NearOne(2), NearOne(-8)};
  const std::vector<double> input_var = {NearOne(5) * 0.25, 3};
  // y, then running_mean, then running_var.
  const std::vector<double> expected = DoubleExpected([&]<typename C>() {
    const std::vector<C> xc = As<C>(x);
    const int count = kBatch * kInner;
    std::vector<C> mean(kChannels, 0), var(kChannels, 0);
    for (int n = 0; n < kBatch; ++n)
      for (int c = 0; c < kChannels; ++c)
        for (int i = 0; i < kInner; ++i) mean[c] += xc[(n * kChannels + c) * kInner + i];
    for (C& m : mean) m /= count;
    for (int n = 0; n < kBatch; ++n)
      for (int c = 0; c < kChannels; ++c)
        for (int i = 0; i < kInner; ++i) {
          const C d = xc[(n * kChannels + c) * kInner + i] - mean[c];
          var[c] += d * d;
        }
    for (C& v : var) v /= count;
    std::vector<C> out = BatchNormReference(xc, kBatch, kChannels, kInner, As<C>(scale),
                                            As<C>(bias), mean, var, static_cast<C>(epsilon));
    const C m = static_cast<C>(momentum);
    for (int c = 0; c < kChannels; ++c)
      out.push_back(static_cast<C>(input_mean[c]) * m + mean[c] * (1 - m));
    for (int c = 0; c < kChannels; ++c)
      out.push_back(static_cast<C>(input_var[c]) * m + var[c] * (1 - m));
    return out;
  });
  const auto part = [&](size_t begin, size_t size) {
    return std::vector<double>(expected.begin() + begin, expected.begin() + begin + size);
  };
  OpTester test("BatchNormalization", 15);
  test.Input<double>("x", {kBatch, kChannels, kInner}, x);
  test.Input<double>("scale", {kChannels}, scale);
  test.Input<double>("B", {kChannels}, bias);
  test.Input<double>("mean", {kChannels}, input_mean);
  test.Input<double>("var", {kChannels}, input_var);
  test.Attr("epsilon", epsilon);
  test.Attr("momentum", momentum);
  test.Attr("training_mode", int64_t{1});
  test.Output<double>("y", {kBatch, kChannels, kInner}, part(0, x.size()));
  test.Output<double>("running_mean", {kChannels}, part(x.size(), kChannels));
  test.Output<double>("running_var", {kChannels}, part(x.size() + kChannels, kChannels));
  test.Run();
}

// float16/bfloat16 normalization computes in (at least) float and rounds once: within 2 ULP of
// the float reference on the same half inputs.
template <typename T>
class NormHalfPrecisionTest : public ::testing::Test {};
using HalfTypes = ::testing::Types<Float16, BFloat16>;
TYPED_TEST_SUITE(NormHalfPrecisionTest, HalfTypes);

TYPED_TEST(NormHalfPrecisionTest, LayerNormWithinTwoUlpOfFloatReference) {
  using T = TypeParam;
  constexpr int kRows = 3, kCols = 16;
  const std::vector<T> x = SpreadValues<T>(kRows * kCols, -4.f, 6.f);
  const std::vector<T> scale = SpreadValues<T>(kCols, -2.f, 3.f);
  const std::vector<T> bias = SpreadValues<T>(kCols, -1.5f, 1.f);
  const float epsilon = 1e-5f;
  OpTester test("LayerNormalization", 17);
  test.Input<T>("X", {kRows, kCols}, x);
  test.Input<T>("Scale", {kCols}, scale);
  test.Input<T>("B", {kCols}, bias);
  test.Attr("epsilon", epsilon);
  test.Output<T>(
      "Y", {kRows, kCols},
      RoundTo<T>(LayerNormReference(Widen(x), kRows, kCols, Widen(scale), Widen(bias), epsilon)));
  test.Run();
}

TYPED_TEST(NormHalfPrecisionTest, BatchNormWithinTwoUlpOfFloatReference) {
  using T = TypeParam;
  constexpr int kBatch = 2, kChannels = 4, kInner = 6;
  const std::vector<T> x = SpreadValues<T>(kBatch * kChannels * kInner, -5.f, 5.f);
  const std::vector<T> scale = SpreadValues<T>(kChannels, -3.f, 2.f);
  const std::vector<T> bias = SpreadValues<T>(kChannels, -1.f, 1.f);
  const std::vector<T> mean = SpreadValues<T>(kChannels, -0.5f, 0.75f);
  const std::vector<T> var = SpreadValues<T>(kChannels, 0.2f, 3.f);
  const float epsilon = 1e-5f;
  OpTester test("BatchNormalization", 15);
  test.Input<T>("x", {kBatch, kChannels, kInner}, x);
  test.Input<T>("scale", {kChannels}, scale);
  test.Input<T>("B", {kChannels}, bias);
  test.Input<T>("mean", {kChannels}, mean);
  test.Input<T>("var", {kChannels}, var);
  test.Attr("epsilon", epsilon);
  test.Output<T>("y", {kBatch, kChannels, kInner},
                 RoundTo<T>(BatchNormReference(Widen(x), kBatch, kChannels, kInner, Widen(scale),
                                               Widen(bias), Widen(mean), Widen(var), epsilon)));
  test.Run();
}

}  // namespace
}  // namespace prism::testing
