// Celu, Elu, Gelu, HardSigmoid, HardSwish, LeakyRelu, Mish, Selu, Shrink, ThresholdedRelu,
// Swish, PRelu: every (op, version range, type) against double-precision formulas on the input as
// rounded to its type, attribute defaults per opset (Selu's changed at 6), PRelu's broadcast
// slope and the refusal of a slope that would grow X.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "../math/math_test_util.h"

namespace prism::testing {
namespace {

using Floats = TypeSet<Float16, float, double>;
using FloatsBf16 = TypeSet<Float16, float, double, BFloat16>;

using AttrSetter = std::function<void(OpTester&)>;

template <typename T>
void CheckOp(const char* op, int opset, const std::function<double(double)>& reference,
             std::initializer_list<double> inputs, const AttrSetter& setup = nullptr) {
  SCOPED_TRACE(::testing::Message()
               << op << " opset " << opset << " " << ElementTypeName(ElementTypeOf<T>()));
  const std::vector<T> x = Vals<T>(inputs);
  std::vector<T> y;
  for (T value : x) y.push_back(FromDouble<T>(reference(AsDouble(value))));
  const int64_t n = static_cast<int64_t>(x.size());
  OpTester test(op, opset);
  test.Input<T>("X", {n}, x);
  test.Output<T>("Y", {n}, y);
  if (setup) setup(test);
  // Half types: the kernel rounds a float result, the reference a double one.
  test.SetTolerance(1e-6, 1e-5, "float arithmetic against a double reference");
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
    test.SetTolerance(Tolerance(), "the default half-precision ULP bounds");
  test.Run();
}

// Floats at each of float_opsets, and with bfloat16 at bf16_opset.
void CheckFloatOp(const char* op, std::vector<int> float_opsets, int bf16_opset,
                  const std::function<double(double)>& f, std::initializer_list<double> inputs,
                  const AttrSetter& setup = nullptr) {
  for (int opset : float_opsets)
    Floats::ForEach([&](auto* type) {
      CheckOp<std::remove_pointer_t<decltype(type)>>(op, opset, f, inputs, setup);
    });
  FloatsBf16::ForEach([&](auto* type) {
    CheckOp<std::remove_pointer_t<decltype(type)>>(op, bf16_opset, f, inputs, setup);
  });
}

double Softplus(double x) {
  return std::log1p(std::exp(x));
}

TEST(ActivationsTest, EveryTypeAndVersionRange) {
  const auto inputs = {-2.0, -0.5, 0.0, 0.75, 3.0};
  CheckFloatOp(
      "Elu", {1, 6}, 22, [](double x) { return x < 0 ? 2.0 * (std::exp(x) - 1) : x; }, inputs,
      [](OpTester& t) { t.Attr("alpha", 2.0f); });
  CheckFloatOp(
      "HardSigmoid", {1, 6}, 22,
      [](double x) { return std::max(0.0, std::min(1.0, double(0.2f) * x + 0.5)); }, inputs);
  CheckFloatOp(
      "HardSwish", {14}, 22, [](double x) { return x * std::max(0.0, std::min(1.0, x / 6 + 0.5)); },
      inputs);
  CheckFloatOp(
      "LeakyRelu", {1, 6}, 16, [](double x) { return x < 0 ? double(0.01f) * x : x; }, inputs);
  CheckFloatOp(
      "Mish", {18}, 22, [](double x) { return x * std::tanh(Softplus(x)); }, inputs);
  CheckFloatOp(
      "ThresholdedRelu", {10}, 22, [](double x) { return x > 1 ? x : 0.0; }, inputs);
  CheckFloatOp(
      "Gelu", {}, 20, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); },
      inputs);
  CheckFloatOp(
      "Gelu", {}, 20,
      [](double x) {
        return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
      },
      inputs, [](OpTester& t) { t.Attr("approximate", std::string("tanh")); });
  CheckFloatOp(
      "Swish", {}, 24, [](double x) { return x / (1 + std::exp(-0.5 * x)); }, inputs,
      [](OpTester& t) { t.Attr("alpha", 0.5f); });
  const auto celu = [](double x) { return std::max(0.0, x) + std::min(0.0, std::exp(x) - 1); };
  CheckOp<float>("Celu", 12, celu, inputs);
  FloatsBf16::ForEach([&](auto* type) {
    CheckOp<std::remove_pointer_t<decltype(type)>>("Celu", 28, celu, inputs);
  });
}

TEST(ActivationsTest, SeluDefaultsChangedAtOpset6) {
  const auto selu = [](double alpha, double gamma) {
    return [=](double x) { return x > 0 ? gamma * x : gamma * (alpha * std::exp(x) - alpha); };
  };
  Floats::ForEach([&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    CheckOp<T>("Selu", 1, selu(double(1.6732f), double(1.0507f)), {-1, 0.5});
    CheckOp<T>("Selu", 6,
               selu(double(1.67326319217681884765625f), double(1.05070102214813232421875f)),
               {-1, 0.5});
  });
  FloatsBf16::ForEach([&](auto* type) {
    CheckOp<std::remove_pointer_t<decltype(type)>>(
        "Selu", 22, selu(double(1.67326319217681884765625f), double(1.05070102214813232421875f)),
        {-1, 0.5});
  });
}

TEST(ActivationsTest, ShrinkOnEveryNumericType) {
  const auto shrink = [](double x) { return x < -1.5 ? x + 1 : (x > 1.5 ? x - 1 : 0.0); };
  const AttrSetter attrs = [](OpTester& t) {
    t.Attr("lambd", 1.5f);
    t.Attr("bias", 1.0f);
  };
  TypeSet<Float16, float, double, int8_t, int16_t, int32_t, int64_t>::ForEach([&](auto* type) {
    CheckOp<std::remove_pointer_t<decltype(type)>>("Shrink", 9, shrink, {-3, -1, 0, 1, 4}, attrs);
  });
  TypeSet<uint8_t, uint16_t, uint32_t, uint64_t>::ForEach([&](auto* type) {
    CheckOp<std::remove_pointer_t<decltype(type)>>("Shrink", 9, shrink, {0, 1, 4, 9}, attrs);
  });
  // Found by the model fuzzer: a bias beyond an integer type's range made the conversion of the
  // result undefined behaviour (UBSan: 1.01412e+31 is outside the range of 'short'). It
  // saturates.
  OpTester huge("Shrink", 9);
  huge.Attr("lambd", 0.5f).Attr("bias", -1e31f);
  huge.Input<int16_t>("input", {3}, {-3, 0, 4});
  huge.Output<int16_t>("output", {3}, {INT16_MIN, 0, INT16_MAX});
  huge.Run();
}

template <typename T>
void CheckPRelu(int opset) {
  SCOPED_TRACE(::testing::Message()
               << "PRelu opset " << opset << " " << ElementTypeName(ElementTypeOf<T>()));
  OpTester test("PRelu", opset);
  // X [2, 3], slope [3] (one per column): numpy broadcasting.
  test.Input<T>("X", {2, 3}, Vals<T>({-2, 3, -4, 5, -6, 0}));
  test.Input<T>("slope", {3}, Vals<T>({2, 3, 1}));
  test.Output<T>("Y", {2, 3}, Vals<T>({-4, 3, -4, 5, -18, 0}));
  test.Run();
}

TEST(ActivationsTest, PReluBroadcastsItsSlope) {
  for (int opset : {7, 9})
    Floats::ForEach([&](auto* type) { CheckPRelu<std::remove_pointer_t<decltype(type)>>(opset); });
  TypeSet<int32_t, int64_t>::ForEach(
      [&](auto* type) { CheckPRelu<std::remove_pointer_t<decltype(type)>>(9); });
  TypeSet<Float16, float, double, BFloat16, int32_t, int64_t>::ForEach(
      [&](auto* type) { CheckPRelu<std::remove_pointer_t<decltype(type)>>(16); });
  // Unsigned values are never negative: X passes through.
  for (int opset : {9, 16}) {
    OpTester test("PRelu", opset);
    test.Input<uint32_t>("X", {2}, {0, 7});
    test.Input<uint32_t>("slope", {1}, {3});
    test.Output<uint32_t>("Y", {2}, {0, 7});
    test.Run();
    OpTester wide("PRelu", opset);
    wide.Input<uint64_t>("X", {2}, {0, 7});
    wide.Input<uint64_t>("slope", {1}, {3});
    wide.Output<uint64_t>("Y", {2}, {0, 7});
    wide.Run();
  }
  // Opsets 1 and 6: the slope is one value or X's shape.
  for (int opset : {1, 6})
    Floats::ForEach([&](auto* type) {
      using T = std::remove_pointer_t<decltype(type)>;
      OpTester test("PRelu", opset);
      test.Input<T>("X", {3}, Vals<T>({-2, 1, -1}));
      test.Input<T>("slope", {1}, Vals<T>({0.5}));
      test.Output<T>("Y", {3}, Vals<T>({-1, 1, -0.5}));
      test.Run();
    });
  OpTester grows("PRelu", 16);
  grows.Input<float>("X", {3}, {1, 2, 3});
  grows.Input<float>("slope", {2, 3}, {1, 1, 1, 1, 1, 1});
  grows.Output<float>("Y", {3}, {1, 2, 3});
  grows.ExpectFailure("must broadcast to X [3] without growing it");
}

TEST(ActivationsTest, GeluRejectsAnUnknownApproximation) {
  OpTester test("Gelu", 20);
  test.Input<float>("X", {1}, {1});
  test.Output<float>("Y", {1}, {1});
  test.Attr("approximate", std::string("fast"));
  test.ExpectFailure("Gelu approximate must be 'none' or 'tanh', got 'fast'");
}

}  // namespace
}  // namespace prism::testing
