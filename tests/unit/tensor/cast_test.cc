#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>

#include "op_tester.h"

namespace prism::testing {
namespace {

using E = ElementType;
constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr float kNaNF = std::numeric_limits<float>::quiet_NaN();

// ---------------------------------------------------------------------------------------------
// Every (from, to) pair, with values both types hold exactly.

const std::vector<E>& CastTypes() {
  static const std::vector<E> types = {
      E::kFloat,          E::kDouble,     E::kFloat16,        E::kBFloat16,   E::kInt8,
      E::kInt16,          E::kInt32,      E::kInt64,          E::kUint8,      E::kUint16,
      E::kUint32,         E::kUint64,     E::kBool,           E::kString,     E::kFloat8E4M3FN,
      E::kFloat8E4M3FNUZ, E::kFloat8E5M2, E::kFloat8E5M2FNUZ, E::kFloat8E8M0, E::kFloat4E2M1,
      E::kInt4,           E::kUint4,      E::kInt2,           E::kUint2};
  return types;
}

const std::vector<double>& Candidates() {
  static const std::vector<double> values = {0, 1, 2, 3, -1, -2, 0.5};
  return values;
}

// Hand-written encodings of the candidates in the narrow float types.
uint8_t NarrowCode(E type, double value) {
  static const std::map<E, std::map<double, uint8_t>> kCodes = {
      {E::kFloat8E4M3FN,
       {{0, 0x00}, {1, 0x38}, {2, 0x40}, {3, 0x44}, {-1, 0xb8}, {-2, 0xc0}, {0.5, 0x30}}},
      {E::kFloat8E4M3FNUZ,
       {{0, 0x00}, {1, 0x40}, {2, 0x48}, {3, 0x4c}, {-1, 0xc0}, {-2, 0xc8}, {0.5, 0x38}}},
      {E::kFloat8E5M2,
       {{0, 0x00}, {1, 0x3c}, {2, 0x40}, {3, 0x42}, {-1, 0xbc}, {-2, 0xc0}, {0.5, 0x38}}},
      {E::kFloat8E5M2FNUZ,
       {{0, 0x00}, {1, 0x40}, {2, 0x44}, {3, 0x46}, {-1, 0xc0}, {-2, 0xc4}, {0.5, 0x3c}}},
      {E::kFloat4E2M1, {{0, 0x0}, {1, 0x2}, {2, 0x4}, {3, 0x5}, {-1, 0xa}, {-2, 0xc}, {0.5, 0x1}}},
      {E::kFloat8E8M0, {{1, 0x7f}, {2, 0x80}, {0.5, 0x7e}}},
  };
  return kCodes.at(type).at(value);
}

bool Holds(E type, double v) {
  const bool integral = v == std::floor(v);
  switch (type) {
    case E::kFloat8E8M0:
      return v == 1 || v == 2 || v == 0.5;
    case E::kBool:
      return v == 0 || v == 1;
    case E::kInt2:
      return integral && v >= -2 && v <= 1;
    case E::kUint2:
      return integral && v >= 0 && v <= 3;
    case E::kInt8:
    case E::kInt16:
    case E::kInt32:
    case E::kInt64:
    case E::kInt4:
      return integral;
    case E::kUint8:
    case E::kUint16:
    case E::kUint32:
    case E::kUint64:
    case E::kUint4:
      return integral && v >= 0;
    default:
      return true;  // float types and string
  }
}

std::vector<uint8_t> Pack(const std::vector<double>& values, int bits) {
  std::vector<uint8_t> bytes((values.size() * bits + 7) / 8, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint8_t raw = static_cast<uint8_t>(static_cast<int>(values[i]) & ((1 << bits) - 1));
    bytes[i * bits / 8] |= static_cast<uint8_t>(raw << (i * bits % 8));
  }
  return bytes;
}

template <typename T>
Tensor Convert(const std::vector<double>& values) {
  std::vector<T> converted;
  for (double v : values) converted.push_back(static_cast<T>(v));
  return MakeTensor<T>({static_cast<int64_t>(values.size())}, converted);
}

std::string Text(double v) {
  if (v == 0.5) return "0.5";
  return std::to_string(static_cast<int>(v));
}

// A 1-D tensor of type holding values (each exactly representable in it).
Tensor MakeExact(E type, const std::vector<double>& values) {
  const std::vector<int64_t> dims = {static_cast<int64_t>(values.size())};
  switch (type) {
    case E::kFloat:
      return Convert<float>(values);
    case E::kDouble:
      return Convert<double>(values);
    case E::kInt8:
      return Convert<int8_t>(values);
    case E::kInt16:
      return Convert<int16_t>(values);
    case E::kInt32:
      return Convert<int32_t>(values);
    case E::kInt64:
      return Convert<int64_t>(values);
    case E::kUint8:
      return Convert<uint8_t>(values);
    case E::kUint16:
      return Convert<uint16_t>(values);
    case E::kUint32:
      return Convert<uint32_t>(values);
    case E::kUint64:
      return Convert<uint64_t>(values);
    case E::kBool:
      return Convert<bool>(values);
    case E::kFloat16: {
      std::vector<Float16> h;
      for (double v : values) h.push_back(Float16(static_cast<float>(v)));
      return MakeTensor<Float16>(dims, h);
    }
    case E::kBFloat16: {
      std::vector<BFloat16> b;
      for (double v : values) b.push_back(BFloat16(static_cast<float>(v)));
      return MakeTensor<BFloat16>(dims, b);
    }
    case E::kString: {
      std::vector<std::string> s;
      for (double v : values) s.push_back(Text(v));
      return MakeTensor<std::string>(dims, s);
    }
    case E::kInt4:
    case E::kUint4:
      return MakeRawTensor(type, dims, Pack(values, 4));
    case E::kInt2:
    case E::kUint2:
      return MakeRawTensor(type, dims, Pack(values, 2));
    case E::kFloat4E2M1: {
      std::vector<double> codes;
      for (double v : values) codes.push_back(NarrowCode(type, v));
      return MakeRawTensor(type, dims, Pack(codes, 4));
    }
    default: {
      std::vector<uint8_t> codes;
      for (double v : values) codes.push_back(NarrowCode(type, v));
      return MakeRawTensor(type, dims, codes);
    }
  }
}

TEST(CastTest, EveryTypePairConvertsExactValues) {
  int pairs = 0;
  for (E from : CastTypes()) {
    for (E to : CastTypes()) {
      std::vector<double> values;
      for (double v : Candidates())
        if (Holds(from, v) && Holds(to, v)) values.push_back(v);
      SCOPED_TRACE(MakeString(ElementTypeName(from), " -> ", ElementTypeName(to)));
      OpTester test("Cast", 25);
      test.InputTensor("x", MakeExact(from, values))
          .OutputTensor("y", MakeExact(to, values))
          .Attr("to", static_cast<int64_t>(to));
      test.Run();
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 24 * 24);
}

// ---------------------------------------------------------------------------------------------
// Opset ranges: one run per registered range, each with a type that range introduced.

TEST(CastTest, Opset1And6ClassicTypes) {
  for (int opset : {1, 6}) {
    OpTester test("Cast", opset);
    test.Input<int32_t>("x", {3}, {1, -2, 300})
        .Output<double>("y", {3}, {1.0, -2.0, 300.0})
        .Attr("to", static_cast<int64_t>(E::kDouble));
    test.Run();
  }
}

// Cast-1 to Cast-5 name the target type with a string attribute (a TensorProto.DataType name).
TEST(CastTest, Opset1To5TakeTheTargetTypeAsADataTypeName) {
  for (int opset : {1, 5}) {
    OpTester test("Cast", opset);
    test.Input<int32_t>("x", {3}, {1, -2, 300})
        .Output<double>("y", {3}, {1.0, -2.0, 300.0})
        .Attr("to", std::string("DOUBLE"));
    test.Run();
  }
  OpTester unknown("Cast", 1);
  unknown.Input<int32_t>("x", {1}, {1})
      .Output<float>("y", {1}, {1.f})
      .Attr("to", std::string("REAL"));
  unknown.ExpectFailure("'to' is \"REAL\", which names no TensorProto data type");
}

TEST(CastTest, Opset9FloatToString) {
  OpTester test("Cast", 9);
  test.Input<float>("x", {8}, {0.47892547f, 1e-7f, 1e6f, 100.0f, -0.0f, kNaNF, kInfF, -kInfF})
      .Output<std::string>("y", {8},
                           {"0.47892547", "1e-07", "1e+06", "100", "-0", "NaN", "INF", "-INF"})
      .Attr("to", static_cast<int64_t>(E::kString));
  test.Run();
}

TEST(CastTest, Opset13BFloat16RoundsToNearestEven) {
  // 1 + 2^-8 is a tie between 1 and 1 + 2^-7: even mantissa wins; 1 + 3 * 2^-8 rounds up.
  OpTester test("Cast", 13);
  test.Input<float>("x", {3}, {1.00390625f, 1.01171875f, -kInfF})
      .Output<BFloat16>(
          "y", {3},
          {BFloat16::FromBits(0x3f80), BFloat16::FromBits(0x3f82), BFloat16::FromBits(0xff80)})
      .Attr("to", static_cast<int64_t>(E::kBFloat16));
  test.Run();
}

TEST(CastTest, Opset19FloatToE4M3FNSaturates) {
  OpTester test("Cast", 19);
  test.Input<float>("x", {7}, {1.0f, 464.0f, 465.0f, kInfF, -kInfF, kNaNF, 0.0009765625f})
      .OutputTensor(
          "y", MakeRawTensor(E::kFloat8E4M3FN, {7}, {0x38, 0x7e, 0x7e, 0x7e, 0xfe, 0x7f, 0x00}))
      .Attr("to", static_cast<int64_t>(E::kFloat8E4M3FN));
  test.Run();
}

TEST(CastTest, Opset19NoSaturateGivesNaNOrInf) {
  struct Case {
    E type;
    std::vector<uint8_t> codes;  // for 1e6, -1e6, inf, -inf, NaN
  };
  for (const Case& c : {Case{E::kFloat8E4M3FN, {0x7f, 0xff, 0x7f, 0xff, 0x7f}},
                        Case{E::kFloat8E4M3FNUZ, {0x80, 0x80, 0x80, 0x80, 0x80}},
                        Case{E::kFloat8E5M2, {0x7c, 0xfc, 0x7c, 0xfc, 0x7e}},
                        Case{E::kFloat8E5M2FNUZ, {0x80, 0x80, 0x80, 0x80, 0x80}}}) {
    SCOPED_TRACE(ElementTypeName(c.type));
    OpTester test("Cast", 19);
    test.Input<float>("x", {5}, {1e6f, -1e6f, kInfF, -kInfF, kNaNF})
        .OutputTensor("y", MakeRawTensor(c.type, {5}, c.codes))
        .Attr("to", static_cast<int64_t>(c.type))
        .Attr("saturate", int64_t{0});
    test.Run();
  }
}

TEST(CastTest, Opset19SaturateClampsEveryFloat8Type) {
  struct Case {
    E type;
    std::vector<uint8_t> codes;  // for 1e6, -1e6, inf, -inf, -0
  };
  for (const Case& c : {Case{E::kFloat8E4M3FN, {0x7e, 0xfe, 0x7e, 0xfe, 0x80}},
                        Case{E::kFloat8E4M3FNUZ, {0x7f, 0xff, 0x7f, 0xff, 0x00}},
                        Case{E::kFloat8E5M2, {0x7b, 0xfb, 0x7b, 0xfb, 0x80}},
                        Case{E::kFloat8E5M2FNUZ, {0x7f, 0xff, 0x7f, 0xff, 0x00}}}) {
    SCOPED_TRACE(ElementTypeName(c.type));
    OpTester test("Cast", 19);
    test.Input<Float16>(
            "x", {5},
            {Float16::FromBits(0x7c00), Float16::FromBits(0xfc00), Float16::FromBits(0x7c00),
             Float16::FromBits(0xfc00), Float16::FromBits(0x8000)})
        .OutputTensor("y", MakeRawTensor(c.type, {5}, c.codes))
        .Attr("to", static_cast<int64_t>(c.type))
        .Attr("saturate", int64_t{1});
    test.Run();
  }
}

TEST(CastTest, Opset19Float8ToFloat16) {
  OpTester test("Cast", 19);
  test.InputTensor("x", MakeRawTensor(E::kFloat8E5M2, {4}, {0x7b, 0x01, 0xfc, 0x7e}))
      .Output<Float16>(
          "y", {4},
          {Float16(57344.0f), Float16(1.52587890625e-05f), Float16(-kInfF), Float16(kNaNF)})
      .Attr("to", static_cast<int64_t>(E::kFloat16));
  test.Run();
}

TEST(CastTest, Opset21FloatToInt4TruncatesAndWraps) {
  // Truncation toward zero, then the low 4 bits (the ONNX conformance data wraps -9 to 7).
  OpTester test("Cast", 21);
  test.Input<float>("x", {6}, {-9.0f, 8.0f, 2.7f, -2.7f, kNaNF, kInfF})
      .OutputTensor("y", MakeRawTensor(E::kInt4, {6}, {0x87, 0xe2, 0x70}))
      .Attr("to", static_cast<int64_t>(E::kInt4));
  test.Run();
}

TEST(CastTest, Opset21Uint4ToInt64AndBack) {
  OpTester to_int("Cast", 21);
  to_int.InputTensor("x", MakeRawTensor(E::kUint4, {3}, {0xf0, 0x07}))
      .Output<int64_t>("y", {3}, {0, 15, 7})
      .Attr("to", static_cast<int64_t>(E::kInt64));
  to_int.Run();
  OpTester from_int("Cast", 21);
  from_int.Input<int64_t>("x", {3}, {16, -1, 7})
      .OutputTensor("y", MakeRawTensor(E::kUint4, {3}, {0xf0, 0x07}))
      .Attr("to", static_cast<int64_t>(E::kUint4));
  from_int.Run();
}

TEST(CastTest, Opset23Float4RoundsAndSaturates) {
  OpTester test("Cast", 23);
  test.Input<float>("x", {6}, {0.25f, 0.75f, 5.0f, 9.0f, -kInfF, kNaNF})
      .OutputTensor("y", MakeRawTensor(E::kFloat4E2M1, {6}, {0x20, 0x76, 0x8f}))
      .Attr("to", static_cast<int64_t>(E::kFloat4E2M1));
  test.Run();
}

TEST(CastTest, Opset24E8M0RoundModes) {
  struct Case {
    std::string mode;
    std::vector<uint8_t> codes;  // for 3, 2.9, 0.124, 1
  };
  for (const Case& c :
       {Case{"up", {0x81, 0x81, 0x7c, 0x7f}}, Case{"down", {0x80, 0x80, 0x7b, 0x7f}},
        Case{"nearest", {0x81, 0x80, 0x7c, 0x7f}}}) {
    SCOPED_TRACE(c.mode);
    OpTester test("Cast", 24);
    test.Input<float>("x", {4}, {3.0f, 2.9f, 0.124f, 1.0f})
        .OutputTensor("y", MakeRawTensor(E::kFloat8E8M0, {4}, c.codes))
        .Attr("to", static_cast<int64_t>(E::kFloat8E8M0))
        .Attr("round_mode", c.mode);
    test.Run();
  }
}

TEST(CastTest, Opset24E8M0SaturateOff) {
  OpTester test("Cast", 24);
  test.Input<float>("x", {3}, {kInfF, 0.0f, 1e-39f})
      .OutputTensor("y", MakeRawTensor(E::kFloat8E8M0, {3}, {0xff, 0xff, 0xff}))
      .Attr("to", static_cast<int64_t>(E::kFloat8E8M0))
      .Attr("saturate", int64_t{0})
      .Attr("round_mode", std::string("nearest"));
  test.Run();
}

TEST(CastTest, Opset25Int2AndUint2) {
  OpTester to_int2("Cast", 25);
  to_int2.Input<float>("x", {5}, {-3.0f, -2.0f, 1.0f, 2.0f, 1.9f})
      .OutputTensor("y", MakeRawTensor(E::kInt2, {5}, {0x99, 0x01}))
      .Attr("to", static_cast<int64_t>(E::kInt2));
  to_int2.Run();
  OpTester from_uint2("Cast", 25);
  from_uint2.InputTensor("x", MakeRawTensor(E::kUint2, {5}, {0xe4, 0x03}))
      .Output<float>("y", {5}, {0.0f, 1.0f, 2.0f, 3.0f, 3.0f})
      .Attr("to", static_cast<int64_t>(E::kFloat));
  from_uint2.Run();
}

TEST(CastTest, Opset28) {
  OpTester test("Cast", 28);
  test.Input<int16_t>("x", {2}, {-5, 7})
      .Output<float>("y", {2}, {-5.0f, 7.0f})
      .Attr("to", static_cast<int64_t>(E::kFloat));
  test.Run();
}

// ---------------------------------------------------------------------------------------------
// Integer and float rules.

TEST(CastTest, FloatToIntegerTruncatesWrapsAndNeverOverflows) {
  const std::vector<float> input = {200.0f, -200.0f, 2.7f,   -2.7f, 300.0f,
                                    kNaNF,  kInfF,   -kInfF, 1e20f};
  {
    OpTester test("Cast", 13);
    test.Input<float>("x", {9}, input)
        .Output<int8_t>("y", {9}, {-56, 56, 2, -2, 44, 0, 127, -128, 127})
        .Attr("to", static_cast<int64_t>(E::kInt8));
    test.Run();
  }
  {
    OpTester test("Cast", 13);
    test.Input<float>("x", {9}, input)
        .Output<uint8_t>("y", {9}, {200, 56, 2, 254, 44, 0, 255, 0, 255})
        .Attr("to", static_cast<int64_t>(E::kUint8));
    test.Run();
  }
  {
    OpTester test("Cast", 13);
    test.Input<float>("x", {9}, input)
        .Output<int64_t>("y", {9}, {200, -200, 2, -2, 300, 0, INT64_MAX, INT64_MIN, INT64_MAX})
        .Attr("to", static_cast<int64_t>(E::kInt64));
    test.Run();
  }
  {
    OpTester test("Cast", 13);
    test.Input<double>("x", {4}, {1.8446744073709550e19, -1.0, 2e19, -1e19})
        .Output<uint64_t>("y", {4}, {18446744073709549568ull, UINT64_MAX, UINT64_MAX, 0})
        .Attr("to", static_cast<int64_t>(E::kUint64));
    test.Run();
  }
}

TEST(CastTest, Int64AndDoubleConvertDirectly) {
  // 2^53 + 1 is not a double: it rounds to even (2^53); 2^63 - 1 rounds to 2^63.
  OpTester to_double("Cast", 13);
  to_double.Input<int64_t>("x", {3}, {9007199254740993LL, INT64_MAX, -9007199254740995LL})
      .Output<double>("y", {3}, {9007199254740992.0, 9223372036854775808.0, -9007199254740996.0})
      .SetTolerance(0, 0, "conversions round exactly")
      .Attr("to", static_cast<int64_t>(E::kDouble));
  to_double.Run();
  OpTester to_int("Cast", 13);
  to_int
      .Input<double>("x", {3}, {9007199254740992.0, -9223372036854775808.0, 4611686018427387904.5})
      .Output<int64_t>("y", {3}, {9007199254740992LL, INT64_MIN, 4611686018427387904LL})
      .Attr("to", static_cast<int64_t>(E::kInt64));
  to_int.Run();
  OpTester u64("Cast", 13);
  u64.Input<uint64_t>("x", {2}, {UINT64_MAX, 9007199254740993ull})
      .Output<float>("y", {2}, {18446744073709551616.0f, 9007199254740992.0f})
      .SetTolerance(0, 0, "conversions round exactly")
      .Attr("to", static_cast<int64_t>(E::kFloat));
  u64.Run();
}

TEST(CastTest, IntegerToIntegerKeepsLowBits) {
  OpTester test("Cast", 13);
  test.Input<int16_t>("x", {4}, {200, -1, 256, -32768})
      .Output<int8_t>("y", {4}, {-56, -1, 0, 0})
      .Attr("to", static_cast<int64_t>(E::kInt8));
  test.Run();
  OpTester unsigned_test("Cast", 13);
  unsigned_test.Input<int64_t>("x", {2}, {-1, 4294967296LL + 5})
      .Output<uint32_t>("y", {2}, {4294967295u, 5u})
      .Attr("to", static_cast<int64_t>(E::kUint32));
  unsigned_test.Run();
}

TEST(CastTest, BoolConversions) {
  OpTester to_bool("Cast", 13);
  to_bool.Input<float>("x", {5}, {0.0f, -0.0f, 0.1f, kNaNF, -kInfF})
      .Output<bool>("y", {5}, {false, false, true, true, true})
      .Attr("to", static_cast<int64_t>(E::kBool));
  to_bool.Run();
  OpTester int_to_bool("Cast", 13);
  int_to_bool.Input<int32_t>("x", {3}, {0, 256, -1})
      .Output<bool>("y", {3}, {false, true, true})
      .Attr("to", static_cast<int64_t>(E::kBool));
  int_to_bool.Run();
  OpTester from_bool("Cast", 13);
  from_bool.Input<bool>("x", {2}, {true, false})
      .Output<Float16>("y", {2}, {Float16(1.0f), Float16(0.0f)})
      .Attr("to", static_cast<int64_t>(E::kFloat16));
  from_bool.Run();
}

TEST(CastTest, FloatToFloatOverflowsToInfinity) {
  OpTester test("Cast", 13);
  test.Input<double>("x", {3}, {1e300, -1e300, 65504.0})
      .Output<Float16>("y", {3}, {Float16(kInfF), Float16(-kInfF), Float16(65504.0f)})
      .Attr("to", static_cast<int64_t>(E::kFloat16));
  test.Run();
}

// ---------------------------------------------------------------------------------------------
// Strings.

TEST(CastTest, NumbersToStrings) {
  OpTester doubles("Cast", 13);
  doubles.Input<double>("x", {4}, {0.1, 1.0 / 3.0, 1e300, 123456789.0})
      .Output<std::string>("y", {4}, {"0.1", "0.3333333333333333", "1e+300", "123456789"})
      .Attr("to", static_cast<int64_t>(E::kString));
  doubles.Run();
  OpTester halves("Cast", 13);
  halves.Input<Float16>("x", {4}, {Float16(0.1f), Float16(1.5f), Float16(kNaNF), Float16(-kInfF)})
      .Output<std::string>("y", {4}, {"0.099975586", "1.5", "NaN", "-INF"})
      .Attr("to", static_cast<int64_t>(E::kString));
  halves.Run();
  OpTester ints("Cast", 13);
  ints.Input<int64_t>("x", {2}, {INT64_MIN, 42})
      .Output<std::string>("y", {2}, {"-9223372036854775808", "42"})
      .Attr("to", static_cast<int64_t>(E::kString));
  ints.Run();
  OpTester u64("Cast", 13);
  u64.Input<uint64_t>("x", {1}, {UINT64_MAX})
      .Output<std::string>("y", {1}, {"18446744073709551615"})
      .Attr("to", static_cast<int64_t>(E::kString));
  u64.Run();
  OpTester bools("Cast", 13);
  bools.Input<bool>("x", {2}, {true, false})
      .Output<std::string>("y", {2}, {"1", "0"})
      .Attr("to", static_cast<int64_t>(E::kString));
  bools.Run();
  OpTester float8("Cast", 19);
  float8.InputTensor("x", MakeRawTensor(E::kFloat8E4M3FN, {3}, {0x7e, 0x01, 0x7f}))
      .Output<std::string>("y", {3}, {"448", "0.001953125", "NaN"})
      .Attr("to", static_cast<int64_t>(E::kString));
  float8.Run();
  OpTester int4("Cast", 21);
  int4.InputTensor("x", MakeRawTensor(E::kInt4, {2}, {0x78}))
      .Output<std::string>("y", {2}, {"-8", "7"})
      .Attr("to", static_cast<int64_t>(E::kString));
  int4.Run();
}

TEST(CastTest, StringsToFloats) {
  OpTester test("Cast", 13);
  test.Input<std::string>("x", {16},
                          {"NaN", "nan", "INF", "+INF", "-INF", "inf", "-Inf", "+inf", "Infinity",
                           "1e-5", "1E8", " 3.5 ", "+2", "1e400", "-1e400", "-1e-400"})
      .Output<float>("y", {16},
                     {kNaNF, kNaNF, kInfF, kInfF, -kInfF, kInfF, -kInfF, kInfF, kInfF, 1e-5f, 1e8f,
                      3.5f, 2.0f, kInfF, -kInfF, -0.0f})
      .SetTolerance(0, 0, "conversions round exactly")
      .Attr("to", static_cast<int64_t>(E::kFloat));
  test.Run();
  OpTester doubles("Cast", 13);
  doubles.Input<std::string>("x", {2}, {"0.1", "-1.7976931348623157e308"})
      .Output<double>("y", {2}, {0.1, -1.7976931348623157e308})
      .SetTolerance(0, 0, "conversions round exactly")
      .Attr("to", static_cast<int64_t>(E::kDouble));
  doubles.Run();
  OpTester float8("Cast", 19);
  float8.Input<std::string>("x", {3}, {"1000", "-inf", "0.0009765625"})
      .OutputTensor("y", MakeRawTensor(E::kFloat8E4M3FN, {3}, {0x7e, 0xfe, 0x00}))
      .Attr("to", static_cast<int64_t>(E::kFloat8E4M3FN));
  float8.Run();
}

TEST(CastTest, StringsToIntegersAndBool) {
  OpTester ints("Cast", 13);
  ints.Input<std::string>("x", {6}, {"100.5", "-100.5", " 7 ", "+3", "9223372036854775807", "1e3"})
      .Output<int64_t>("y", {6}, {100, -100, 7, 3, INT64_MAX, 1000})
      .Attr("to", static_cast<int64_t>(E::kInt64));
  ints.Run();
  OpTester wraps("Cast", 13);
  wraps.Input<std::string>("x", {3}, {"300", "-1", "255"})
      .Output<uint8_t>("y", {3}, {44, 255, 255})
      .Attr("to", static_cast<int64_t>(E::kUint8));
  wraps.Run();
  OpTester u64("Cast", 13);
  u64.Input<std::string>("x", {2}, {"18446744073709551615", "-1"})
      .Output<uint64_t>("y", {2}, {UINT64_MAX, UINT64_MAX})
      .Attr("to", static_cast<int64_t>(E::kUint64));
  u64.Run();
  OpTester bools("Cast", 13);
  bools.Input<std::string>("x", {6}, {"true", "FALSE", "0", "1", "0.0", "-2"})
      .Output<bool>("y", {6}, {true, false, false, true, false, true})
      .Attr("to", static_cast<int64_t>(E::kBool));
  bools.Run();
  OpTester uint4("Cast", 21);
  uint4.Input<std::string>("x", {2}, {"15", "17"})
      .OutputTensor("y", MakeRawTensor(E::kUint4, {2}, {0x1f}))
      .Attr("to", static_cast<int64_t>(E::kUint4));
  uint4.Run();
}

TEST(CastTest, FloatStringRoundTripIsExact) {
  const std::vector<float> values = {0.1f,        3.4028235e38f, 1.4e-45f,    -123.456f,
                                     16777217.0f, 0.3f,          2.0f / 3.0f, 1e-10f};
  OpTester to_string("Cast", 13);
  to_string.Input<float>("x", {8}, values).Attr("to", static_cast<int64_t>(E::kString));
  to_string.Output<std::string>(
      "y", {8},
      {"0.1", "3.4028235e+38", "1e-45", "-123.456", "16777216", "0.3", "0.6666667", "1e-10"});
  std::vector<Value> strings = to_string.RunAndGet();
  ASSERT_EQ(strings.size(), 1u);
  OpTester back("Cast", 13);
  back.InputTensor("x", strings[0].GetTensor())
      .Output<float>("y", {8}, values)
      .SetTolerance(0, 0, "conversions round exactly")
      .Attr("to", static_cast<int64_t>(E::kFloat));
  back.Run();
  to_string.Run();
}

TEST(CastTest, UnparsableStringFails) {
  OpTester test("Cast", 13);
  test.Input<std::string>("x", {2}, {"1", "abc"})
      .Output<float>("y", {2}, {1.0f, 0.0f})
      .Attr("to", static_cast<int64_t>(E::kFloat));
  test.ExpectFailure("\"abc\"");
}

TEST(CastTest, StringToStringCopies) {
  OpTester test("Cast", 13);
  test.Input<std::string>("x", {2}, {"a", ""})
      .Output<std::string>("y", {2}, {"a", ""})
      .Attr("to", static_cast<int64_t>(E::kString));
  test.Run();
}

// ---------------------------------------------------------------------------------------------
// Shapes and attribute errors.

TEST(CastTest, KeepsShapeIncludingEmptyAndScalar) {
  OpTester scalar("Cast", 13);
  scalar.Input<float>("x", {}, {2.5f})
      .Output<int32_t>("y", {}, {2})
      .Attr("to", static_cast<int64_t>(E::kInt32));
  scalar.Run();
  OpTester empty("Cast", 21);
  empty.Input<float>("x", {2, 0}, {})
      .OutputTensor("y", MakeRawTensor(E::kInt4, {2, 0}, {}))
      .Attr("to", static_cast<int64_t>(E::kInt4));
  empty.Run();
}

TEST(CastTest, BadAttributesFail) {
  OpTester bad_to("Cast", 13);
  bad_to.Input<float>("x", {1}, {1.0f}).Output<float>("y", {1}, {1.0f}).Attr("to", int64_t{99});
  bad_to.ExpectFailure("99");
  OpTester bad_mode("Cast", 24);
  bad_mode.Input<float>("x", {1}, {1.0f})
      .Output<float>("y", {1}, {1.0f})
      .Attr("to", static_cast<int64_t>(E::kFloat))
      .Attr("round_mode", std::string("sideways"));
  bad_mode.ExpectFailure("round_mode");
}

}  // namespace
}  // namespace prism::testing
