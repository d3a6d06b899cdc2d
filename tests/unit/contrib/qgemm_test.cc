// com.microsoft QGemm on the CPU EP: hand-checked values (transA, transB, per-column b zero
// points and scales, alpha, the int32 bias C broadcast, float and 8-bit outputs, ties that round
// half to even, saturation), a constant B (prepacked, transposed under transB) against the same
// B fed at run time and an exact reference on random shapes, and the refusals of bad inputs.
// Random inputs against onnxruntime's QGemm are in tests/python/test_qgemm_oracle.py.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../graph/strict_inference_util.h"
#include "mlas/isa_kernels.h"
#include "mlas/qgemm.h"
#include "op_tester.h"
#include "providers/cpu/quantization/packed_quant_b.h"

namespace prism::testing {
namespace {

constexpr const char* kMs = "com.microsoft";

// A - 10 = [[0, 2, 4], [-1, 0, 1]]; B stored [N, K] (transB) minus its column zero points
// (1, 4) is [0, 1, 2] in both columns: sums [[10, 10], [2, 2]], plus C (5, -2) gives
// [[15, 8], [7, 0]]; multipliers alpha * a_scale * b_scale = 2 * 0.5 * (0.25, 1) = (0.25, 1).
TEST(ContribQGemmTest, FloatOutputWithTransBPerColumnZeroPointsBiasAndAlpha) {
  for (bool constant_b : {false, true}) {
    OpTester test("QGemm", 1, kMs);
    test.Attr("transB", int64_t{1});
    test.Attr("alpha", 2.0f);
    test.Input<uint8_t>("A", {2, 3}, {10, 12, 14, 9, 10, 11});
    test.Input<float>("a_scale", {}, {0.5f});
    test.Input<uint8_t>("a_zero_point", {}, {10});
    test.Input<int8_t>("B", {2, 3}, {1, 2, 3, 4, 5, 6}, constant_b);
    test.Input<float>("b_scale", {2}, {0.25f, 1.0f});
    test.Input<int8_t>("b_zero_point", {2}, {1, 4});
    test.Input<int32_t>("C", {2}, {5, -2});
    test.Output<float>("Y", {2, 2}, {3.75f, 8.0f, 1.75f, 0.0f});
    test.Run();
  }
}

// A stored [K, M] (transA) is [[10, 12, 14], [9, 10, 11]] transposed; minus 10 times
// B = [[0, 1], [1, 0], [2, -1]] (int8 with zero point 0, or uint8 with 128): sums
// [[10, -4], [2, -2]]; / 4 = 2.5, -1, 0.5, -0.5, which round half to even to 2, -1, 0, 0, plus
// the zero point 128.
TEST(ContribQGemmTest, QuantizedOutputWithTransARoundsHalfToEven) {
  const std::vector<int8_t> b = {0, 1, 1, 0, 2, -1};
  std::vector<uint8_t> b_unsigned;
  for (int8_t v : b) b_unsigned.push_back(static_cast<uint8_t>(v + 128));
  for (int variant = 0; variant < 3; ++variant) {
    const bool constant_b = variant == 1, unsigned_b = variant == 2;
    OpTester test("QGemm", 1, kMs);
    test.Attr("transA", int64_t{1});
    test.Input<uint8_t>("A", {3, 2}, {10, 9, 12, 10, 14, 11});
    test.Input<float>("a_scale", {}, {1.0f});
    test.Input<uint8_t>("a_zero_point", {}, {10});
    if (unsigned_b)
      test.Input<uint8_t>("B", {3, 2}, b_unsigned);
    else
      test.Input<int8_t>("B", {3, 2}, b, constant_b);
    test.Input<float>("b_scale", {}, {1.0f});
    if (unsigned_b)
      test.Input<uint8_t>("b_zero_point", {}, {128});
    else
      test.Input<int8_t>("b_zero_point", {}, {0});
    test.MissingInput();
    test.Input<float>("y_scale", {}, {4.0f});
    test.Input<uint8_t>("y_zero_point", {}, {128});
    test.Output<uint8_t>("Y", {2, 2}, {130, 127, 128, 128});
    test.Run();
  }
}

// int8 throughout, B - 98 = (2, 2), y = sum / 2 - 1; C [M, 1] adds 3 to row 2 only.
TEST(ContribQGemmTest, Int8OutputSaturatesAndBiasBroadcastsPerRow) {
  OpTester test("QGemm", 1, kMs);
  test.Input<int8_t>("A", {3, 2}, {100, 100, -100, -100, 1, 1});
  test.Input<float>("a_scale", {}, {1.0f});
  test.Input<int8_t>("a_zero_point", {}, {0});
  test.Input<int8_t>("B", {2, 1}, {100, 100});
  test.Input<float>("b_scale", {}, {1.0f});
  test.Input<int8_t>("b_zero_point", {}, {98});
  test.Input<int32_t>("C", {3, 1}, {0, 0, 3});
  test.Input<float>("y_scale", {}, {2.0f});
  test.Input<int8_t>("y_zero_point", {}, {-1});
  // Row 0: (100 * 2) * 2 = 400 / 2 = 200 -> 127; row 1: -400 / 2 -> -128; row 2: 4 + 3 = 7
  // / 2 = 3.5 -> 4, minus 1 = 3.
  test.Output<int8_t>("Y", {3, 1}, {127, -128, 3});
  test.Run();
}

// A constant B (prepacked; under transB packed as its transpose) and the same B fed at run time
// give the same outputs, which equal an exact reference: integer sums, the float multiplier,
// the product in double, rounded half to even.
TEST(ContribQGemmTest, PrepackedAndRunTimeBMatchAnExactReferenceOnRandomShapes) {
  std::mt19937 engine(11);
  for (int trial = 0; trial < 8; ++trial) {
    const bool trans_a = trial & 1, trans_b = trial & 2, quantized = trial & 4;
    const int64_t m = 1 + static_cast<int64_t>(engine() % 5);
    const int64_t k = 1 + static_cast<int64_t>(engine() % 70);
    const int64_t n = 1 + static_cast<int64_t>(engine() % 40);
    std::vector<uint8_t> a(static_cast<size_t>(m * k));
    std::vector<int8_t> b(static_cast<size_t>(k * n));
    std::vector<int8_t> b_zero(static_cast<size_t>(n));
    std::vector<float> b_scale(static_cast<size_t>(n));
    std::vector<int32_t> c(static_cast<size_t>(n));
    for (auto& v : a) v = static_cast<uint8_t>(engine() % 256);
    for (auto& v : b) v = static_cast<int8_t>(static_cast<int>(engine() % 256) - 128);
    for (auto& v : b_zero) v = static_cast<int8_t>(static_cast<int>(engine() % 11) - 5);
    for (auto& v : b_scale) v = 0.001f * static_cast<float>(1 + engine() % 20);
    for (auto& v : c) v = static_cast<int32_t>(engine() % 2001) - 1000;
    const uint8_t a_zero = 120;
    const float a_scale = 0.02f, alpha = 1.5f, y_scale = 0.5f;
    const uint8_t y_zero = 100;
    // Element (row, col) of A [M, K] and (depth, col) of B [K, N], as stored.
    const auto a_at = [&](int64_t row, int64_t depth) {
      return static_cast<int32_t>(
          a[static_cast<size_t>(trans_a ? depth * m + row : row * k + depth)]);
    };
    const auto b_at = [&](int64_t depth, int64_t col) {
      return static_cast<int32_t>(
          b[static_cast<size_t>(trans_b ? col * k + depth : depth * n + col)]);
    };
    std::vector<float> expected_float;
    std::vector<uint8_t> expected_quantized;
    for (int64_t row = 0; row < m; ++row)
      for (int64_t col = 0; col < n; ++col) {
        int32_t sum = c[static_cast<size_t>(col)];
        for (int64_t depth = 0; depth < k; ++depth)
          sum +=
              (a_at(row, depth) - a_zero) * (b_at(depth, col) - b_zero[static_cast<size_t>(col)]);
        float multiplier = alpha * a_scale * b_scale[static_cast<size_t>(col)];
        if (quantized) {
          multiplier /= y_scale;
          const double value =
              std::nearbyint(static_cast<double>(sum) * static_cast<double>(multiplier)) + y_zero;
          expected_quantized.push_back(static_cast<uint8_t>(std::min(std::max(value, 0.0), 255.0)));
        } else {
          expected_float.push_back(static_cast<float>(sum) * multiplier);
        }
      }
    for (bool constant_b : {false, true}) {
      OpTester test("QGemm", 1, kMs);
      test.Attr("transA", int64_t{trans_a});
      test.Attr("transB", int64_t{trans_b});
      test.Attr("alpha", alpha);
      test.Input<uint8_t>("A", trans_a ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k},
                          a);
      test.Input<float>("a_scale", {}, {a_scale});
      test.Input<uint8_t>("a_zero_point", {}, {a_zero});
      test.Input<int8_t>("B", trans_b ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, b,
                         constant_b);
      test.Input<float>("b_scale", {n}, b_scale);
      test.Input<int8_t>("b_zero_point", {n}, b_zero);
      test.Input<int32_t>("C", {n}, c);
      if (quantized) {
        test.Input<float>("y_scale", {}, {y_scale});
        test.Input<uint8_t>("y_zero_point", {}, {y_zero});
        test.Output<uint8_t>("Y", {m, n}, expected_quantized);
      } else {
        test.Output<float>("Y", {m, n}, expected_float);
        test.SetTolerance(0.0, 0.0, "float(sum) * multiplier in float is the kernel's arithmetic");
      }
      SCOPED_TRACE(::testing::Message() << "trial " << trial << " m " << m << " k " << k << " n "
                                        << n << " constant B " << constant_b);
      test.Run();
    }
  }
}

// QGemm's transB prepack: B stored [N, K] packed as its transpose, byte for byte what packing the
// transpose built by hand gives, and its unpack rebuilds the [N, K] original (a session rebuilt
// for other providers, or a saved optimized model, reads it).
TEST(ContribQGemmTest, TransposedPrepackPacksTheTransposeAndUnpacksTheOriginal) {
  std::mt19937 engine(3);
  for (ElementType type : {ElementType::kInt8, ElementType::kUint8}) {
    const int64_t n = 37, k = 21;
    Tensor b(type, TensorShape({n, k}), GetCpuAllocator());
    auto* bytes = static_cast<uint8_t*>(b.MutableRawData());
    for (int64_t i = 0; i < n * k; ++i) bytes[i] = static_cast<uint8_t>(engine());
    const PrePackedWeight packed = cpu::PackQuantBTransposed(b);
    std::vector<uint8_t> transposed(static_cast<size_t>(k * n));
    for (int64_t row = 0; row < n; ++row)
      for (int64_t col = 0; col < k; ++col)
        transposed[static_cast<size_t>(col * n + row)] = bytes[row * k + col];
    const mlas::PackedQuantB expected =
        mlas::PackedQuantB::Pack(k, n, transposed.data(), n, type == ElementType::kInt8,
                                 mlas::QgemmPairsSaturate(mlas::ActiveKernels()));
    const auto& actual = *std::static_pointer_cast<const mlas::PackedQuantB>(packed.data);
    ASSERT_EQ(actual.K(), k);
    ASSERT_EQ(actual.N(), n);
    const int64_t data_bytes =
        (n + mlas::kQgemmPanelCols - 1) / mlas::kQgemmPanelCols * expected.PanelStride();
    for (int64_t i = 0; i < data_bytes; ++i) ASSERT_EQ(actual.Data()[i], expected.Data()[i]) << i;
    const Tensor back = packed.unpack();
    ASSERT_EQ(back.Shape(), b.Shape());
    ASSERT_EQ(back.Type(), type);
    const auto* restored = static_cast<const uint8_t*>(back.RawData());
    for (int64_t i = 0; i < n * k; ++i) ASSERT_EQ(restored[i], bytes[i]) << i;
  }
}

// The untransposed prepack (MatMulInteger, QLinearMatMul, QGemm without transB): its unpack gives
// the [K, N] weight back byte for byte, as a rebuilt session or a saved model reads it.
TEST(ContribQGemmTest, PrepackUnpacksTheOriginal) {
  std::mt19937 engine(4);
  for (ElementType type : {ElementType::kInt8, ElementType::kUint8}) {
    const int64_t k = 23, n = 35;
    Tensor b(type, TensorShape({k, n}), GetCpuAllocator());
    auto* bytes = static_cast<uint8_t*>(b.MutableRawData());
    for (int64_t i = 0; i < k * n; ++i) bytes[i] = static_cast<uint8_t>(engine());
    const Tensor back = cpu::PackQuantB(b).unpack();
    ASSERT_EQ(back.Shape(), b.Shape());
    ASSERT_EQ(back.Type(), type);
    const auto* restored = static_cast<const uint8_t*>(back.RawData());
    for (int64_t i = 0; i < k * n; ++i) ASSERT_EQ(restored[i], bytes[i]) << i;
  }
}

TEST(ContribQGemmTest, BadInputsAreRefused) {
  const auto base = [](OpTester& test, std::vector<int64_t> b_dims, std::vector<float> b_scale) {
    test.Input<uint8_t>("A", {2, 2}, {1, 2, 3, 4});
    test.Input<float>("a_scale", {}, {1.0f});
    test.Input<uint8_t>("a_zero_point", {}, {0});
    std::vector<uint8_t> b(static_cast<size_t>(b_dims[0] * b_dims[1]), 1);
    test.Input<uint8_t>("B", b_dims, b);
    test.Input<float>("b_scale", {static_cast<int64_t>(b_scale.size())}, b_scale);
    test.Input<uint8_t>("b_zero_point", {}, {0});
  };
  {
    OpTester test("QGemm", 1, kMs);
    base(test, {3, 2}, {1.0f});
    test.Output<float>("Y", {2, 2}, {0, 0, 0, 0});
    test.ExpectFailure("inner dimensions differ");
  }
  {
    OpTester test("QGemm", 1, kMs);
    base(test, {2, 3}, {1.0f, 1.0f});
    test.Output<float>("Y", {2, 3}, {0, 0, 0, 0, 0, 0});
    test.ExpectFailure("b_scale must be one value or 1-D of length N = 3");
  }
  {
    OpTester test("QGemm", 1, kMs);
    base(test, {2, 2}, {1.0f});
    test.Input<int32_t>("C", {3}, {1, 2, 3});
    test.Output<float>("Y", {2, 2}, {0, 0, 0, 0});
    test.ExpectFailure("C must be int32 and broadcast to [M, N] = [2, 2]");
  }
  {
    OpTester test("QGemm", 1, kMs);
    base(test, {2, 2}, {1.0f});
    test.MissingInput();
    test.MissingInput();
    test.Input<uint8_t>("y_zero_point", {}, {0});
    test.Output<uint8_t>("Y", {2, 2}, {0, 0, 0, 0});
    test.ExpectFailure("y_zero_point (quantized output) needs y_scale");
  }
  {
    OpTester test("QGemm", 1, kMs);
    base(test, {2, 2}, {1.0f});
    test.MissingInput();
    test.Input<float>("y_scale", {}, {0.0f});
    test.Input<uint8_t>("y_zero_point", {}, {0});
    test.Output<uint8_t>("Y", {2, 2}, {0, 0, 0, 0});
    test.ExpectFailure("must be finite");
  }
}

// Strict shape inference: [M, N] from op(A) and op(B) (a symbolic M kept), float without
// y_zero_point, else its type; inner dimensions that differ are refused.
TEST(ContribQGemmTest, ShapeInference) {
  using onnx::TensorProto;
  const auto model = [](bool mismatch) {
    onnx::ModelProto proto = MakeModel(17);
    auto* ms = proto.add_opset_import();
    ms->set_domain(kMs);
    ms->set_version(1);
    auto* graph = proto.mutable_graph();
    AddInput(graph, "A", TensorProto::UINT8, {"m", 8});
    AddInput(graph, "At", TensorProto::UINT8, {8, "m"});
    AddInput(graph, "B", TensorProto::INT8, {mismatch ? 7 : 8, 5});
    AddInput(graph, "Bt", TensorProto::INT8, {5, 8});
    AddInput(graph, "S", TensorProto::FLOAT, {});
    AddInput(graph, "Zu", TensorProto::UINT8, {});
    AddInput(graph, "Z8", TensorProto::INT8, {});
    AddInput(graph, "C", TensorProto::INT32, {5});
    AddNode(graph, "QGemm", {"A", "S", "Zu", "B", "S", "Z8"}, {"float_y"}, "", kMs);
    auto* both = AddNode(graph, "QGemm", {"At", "S", "Zu", "Bt", "S", "Z8", "C", "S", "Zu"},
                         {"quantized_y"}, "", kMs);
    for (const char* name : {"transA", "transB"}) {
      auto* a = both->add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(1);
    }
    AddOutput(graph, "float_y", TensorProto::UNDEFINED);
    AddOutput(graph, "quantized_y", TensorProto::UNDEFINED);
    return proto;
  };
  const InferredGraph inferred = InferStrictly(model(false));
  EXPECT_EQ(inferred.Shape("float_y"), "[m,5]");
  EXPECT_EQ(inferred.Type("float_y"), ElementType::kFloat);
  EXPECT_EQ(inferred.Shape("quantized_y"), "[m,5]");
  EXPECT_EQ(inferred.Type("quantized_y"), ElementType::kUint8);
  try {
    InferStrictly(model(true));
    ADD_FAILURE() << "inner dimensions 8 and 7 were accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("inner dimensions differ"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace prism::testing
