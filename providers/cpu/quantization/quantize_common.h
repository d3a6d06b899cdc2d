// Shared pieces of the quantization kernels (QuantizeLinear, DequantizeLinear, QLinearMatMul,
// QLinearConv, MatMulInteger): reading any quantized, scale or zero-point element as a double,
// rounding to a division/multiplication precision, and storing a quantized result with the
// spec's rules (round half to even, saturate to the integer type's ends; narrow floats round to
// nearest even and saturate as asked).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/float16.h"
#include "framework/float8.h"
#include "framework/packed_int.h"
#include "framework/tensor.h"

namespace prism::cpu::quantization {

// Element i of a tensor of any numeric type the quantization ops take, as a double (exact for
// every such type).
inline double ElementAsDouble(const Tensor& tensor, int64_t i) {
  using E = ElementType;
  const auto* raw = static_cast<const uint8_t*>(tensor.RawData());
  switch (tensor.Type()) {
    case E::kFloat:
      return tensor.Data<float>()[i];
    case E::kDouble:
      return tensor.Data<double>()[i];
    case E::kFloat16:
      return tensor.Data<Float16>()[i].ToFloat();
    case E::kBFloat16:
      return static_cast<float>(tensor.Data<BFloat16>()[i]);
    case E::kInt8:
      return tensor.Data<int8_t>()[i];
    case E::kUint8:
      return tensor.Data<uint8_t>()[i];
    case E::kInt16:
      return tensor.Data<int16_t>()[i];
    case E::kUint16:
      return tensor.Data<uint16_t>()[i];
    case E::kInt32:
      return tensor.Data<int32_t>()[i];
    case E::kInt4:
    case E::kUint4:
    case E::kInt2:
    case E::kUint2: {
      const int bits = ElementBits(tensor.Type());
      return PackedIntValue(GetPackedBits(raw, i, bits), bits, IsSignedInteger(tensor.Type()));
    }
    case E::kFloat4E2M1:
    case E::kFloat6E2M3:
    case E::kFloat6E3M2:
      return NarrowFloatToFloat(tensor.Type(), GetPackedBits(raw, i, ElementBits(tensor.Type())));
    case E::kFloat8E4M3FN:
    case E::kFloat8E4M3FNUZ:
    case E::kFloat8E5M2:
    case E::kFloat8E5M2FNUZ:
    case E::kFloat8E8M0:
      return NarrowFloatToFloat(tensor.Type(), raw[i]);
    default:
      PRISM_THROW(kNotImplemented, "quantization: element type ", ElementTypeName(tensor.Type()),
                  " is not a quantized, scale or zero-point type");
  }
}

// Every element as a double.
inline std::vector<double> ElementsAsDouble(const Tensor& tensor) {
  std::vector<double> out(static_cast<size_t>(tensor.NumElements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = ElementAsDouble(tensor, static_cast<int64_t>(i));
  return out;
}

// The precision an arithmetic step is carried out in: the result is rounded to this type.
// int32 and double keep the double result (numpy's true division of integers is float64).
inline double RoundToPrecision(ElementType precision, double value) {
  switch (precision) {
    case ElementType::kFloat:
    case ElementType::kFloat8E8M0:  // a power of two: the step is exact in float
      return static_cast<float>(value);
    case ElementType::kFloat16:
      return Float16(static_cast<float>(value)).ToFloat();
    case ElementType::kBFloat16:
      return static_cast<float>(BFloat16(static_cast<float>(value)));
    default:
      return value;
  }
}

// True for the integer types a quantized value may have.
inline bool IsQuantizedInteger(ElementType type) {
  return IsSignedInteger(type) || IsUnsignedInteger(type);
}

// The representable range of an integer quantized type.
inline void IntegerRange(ElementType type, double& low, double& high) {
  const int bits = ElementBits(type);
  if (IsSignedInteger(type)) {
    low = -std::ldexp(1.0, bits - 1);
    high = std::ldexp(1.0, bits - 1) - 1.0;
  } else {
    low = 0.0;
    high = std::ldexp(1.0, bits) - 1.0;
  }
}

// Writes quantized values of one element type into an output tensor.
class QuantizedWriter {
 public:
  QuantizedWriter(Tensor& out, bool saturate) : type_(out.Type()), saturate_(saturate) {
    raw_ = static_cast<uint8_t*>(out.MutableRawData());
    bits_ = ElementBits(type_);
    integer_ = IsQuantizedInteger(type_);
    if (integer_) IntegerRange(type_, low_, high_);
  }

  // Stores value + zero_point for a value already on the quantized grid's scale (x / scale):
  // integers round half to even then saturate; narrow floats are encoded (round to nearest
  // even, saturate per `saturate` for float8, always for float4/float6). NaN gives the zero
  // point for integer types (NaN has no integer code).
  void Store(int64_t i, double scaled, double zero_point) const {
    if (integer_) {
      const double rounded = std::isnan(scaled) ? 0.0 : std::nearbyint(scaled);
      StoreInteger(i, std::clamp(rounded + zero_point, low_, high_));
    } else {
      StoreFloat(i, scaled + zero_point);
    }
  }

  // Stores an already rounded integer (clamped here).
  void StoreInteger(int64_t i, double value) const {
    value = std::clamp(value, low_, high_);
    const auto integer = static_cast<int64_t>(value);
    switch (type_) {
      case ElementType::kInt8:
        reinterpret_cast<int8_t*>(raw_)[i] = static_cast<int8_t>(integer);
        return;
      case ElementType::kUint8:
        raw_[i] = static_cast<uint8_t>(integer);
        return;
      case ElementType::kInt16:
        reinterpret_cast<int16_t*>(raw_)[i] = static_cast<int16_t>(integer);
        return;
      case ElementType::kUint16:
        reinterpret_cast<uint16_t*>(raw_)[i] = static_cast<uint16_t>(integer);
        return;
      default:  // int4, uint4, int2, uint2
        SetPackedBits(raw_, i, bits_, PackedIntBits(integer, bits_));
    }
  }

  void StoreFloat(int64_t i, double value) const {
    if (bits_ == 8) {
      raw_[i] = FloatToNarrowFloat(type_, value, saturate_);
    } else {  // float4e2m1, float6: no infinity or NaN code, always saturating
      SetPackedBits(raw_, i, bits_, FloatToNarrowFloat(type_, value, true));
    }
  }

 private:
  ElementType type_;
  bool saturate_;
  uint8_t* raw_ = nullptr;
  int bits_ = 8;
  bool integer_ = false;
  double low_ = 0.0;
  double high_ = 0.0;
};

// Stores float results (DequantizeLinear's y) as float, float16 or bfloat16.
inline void StoreReal(Tensor& out, int64_t i, double value) {
  switch (out.Type()) {
    case ElementType::kFloat:
      out.MutableData<float>()[i] = static_cast<float>(value);
      return;
    case ElementType::kFloat16:
      out.MutableData<Float16>()[i] = Float16(static_cast<float>(value));
      return;
    case ElementType::kBFloat16:
      out.MutableData<BFloat16>()[i] = BFloat16(static_cast<float>(value));
      return;
    default:
      PRISM_THROW(kNotImplemented, "quantization: output type ", ElementTypeName(out.Type()),
                  " is not float, float16 or bfloat16");
  }
}

}  // namespace prism::cpu::quantization
