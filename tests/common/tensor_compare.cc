#include "tensor_compare.h"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>
#include <utility>

namespace prism::testing {

double ElementAsDouble(const Tensor& tensor, int64_t i) {
  const void* data = tensor.RawData();
  switch (tensor.Type()) {
    case ElementType::kFloat:
      return static_cast<const float*>(data)[i];
    case ElementType::kDouble:
      return static_cast<const double*>(data)[i];
    case ElementType::kFloat16:
      return Float16::ToFloat(static_cast<const uint16_t*>(data)[i]);
    case ElementType::kBFloat16:
      return BFloat16::ToFloat(static_cast<const uint16_t*>(data)[i]);
    case ElementType::kInt8:
      return static_cast<const int8_t*>(data)[i];
    case ElementType::kInt16:
      return static_cast<const int16_t*>(data)[i];
    case ElementType::kInt32:
      return static_cast<const int32_t*>(data)[i];
    case ElementType::kInt64:
      return static_cast<double>(static_cast<const int64_t*>(data)[i]);
    case ElementType::kUint8:
      return static_cast<const uint8_t*>(data)[i];
    case ElementType::kUint16:
      return static_cast<const uint16_t*>(data)[i];
    case ElementType::kUint32:
      return static_cast<const uint32_t*>(data)[i];
    case ElementType::kUint64:
      return static_cast<double>(static_cast<const uint64_t*>(data)[i]);
    case ElementType::kBool:
      return static_cast<const bool*>(data)[i] ? 1.0 : 0.0;
    default:
      return std::nan("");
  }
}

Tolerance Tolerance::OnnxSpecData() {
  Tolerance tolerance;
  tolerance.float_ = Bounds{1e-7, 1e-3, 0};
  tolerance.float16_ = Bounds{1e-7, 1e-3, 0};
  tolerance.bfloat16_ = Bounds{1e-7, 1.0 / 64, 0};  // two bfloat16 ULPs, as ONNX allows
  return tolerance;
}

Bounds Tolerance::For(ElementType type) const {
  switch (type) {
    case ElementType::kFloat:
      return float_;
    case ElementType::kDouble:
      return double_;
    case ElementType::kFloat16:
      return float16_;
    case ElementType::kBFloat16:
      return bfloat16_;
    default:
      return Bounds{};
  }
}

Tolerance& Tolerance::Set(ElementType type, Bounds bounds) {
  switch (type) {
    case ElementType::kFloat:
      float_ = bounds;
      break;
    case ElementType::kDouble:
      double_ = bounds;
      break;
    case ElementType::kFloat16:
      float16_ = bounds;
      break;
    case ElementType::kBFloat16:
      bfloat16_ = bounds;
      break;
    default:
      PRISM_THROW(kInvalidArgument, "Tolerance::Set: ", ElementTypeName(type),
                  " is compared exactly, it has no tolerance");
  }
  return *this;
}

std::string Tolerance::Describe(ElementType type) const {
  const Bounds bounds = For(type);
  std::ostringstream out;
  const bool relative = bounds.atol != 0 || bounds.rtol != 0 || bounds.ulp == 0;
  if (relative) out << "atol " << bounds.atol << " rtol " << bounds.rtol;
  if (bounds.ulp > 0) out << (relative ? " or " : "") << bounds.ulp << " ulp";
  return out.str();
}

namespace {

bool IsToleranceType(ElementType type) {
  return type == ElementType::kFloat || type == ElementType::kDouble ||
         type == ElementType::kFloat16 || type == ElementType::kBFloat16;
}

// The bits of element i, and the sign bit of its type.
std::pair<uint64_t, uint64_t> ElementBitsAndSign(const Tensor& tensor, int64_t i) {
  const void* data = tensor.RawData();
  switch (tensor.Type()) {
    case ElementType::kFloat:
      return {static_cast<const uint32_t*>(data)[i], uint64_t{1} << 31};
    case ElementType::kDouble:
      return {static_cast<const uint64_t*>(data)[i], uint64_t{1} << 63};
    case ElementType::kFloat16:
    case ElementType::kBFloat16:
      return {static_cast<const uint16_t*>(data)[i], uint64_t{1} << 15};
    default:
      PRISM_THROW(kInvalidArgument, "UlpDistance: ", ElementTypeName(tensor.Type()),
                  " is not a floating type");
  }
}

// Sign-magnitude bits to an unsigned number that grows with the value (-0 and +0 map to one).
uint64_t Ordered(uint64_t bits, uint64_t sign) {
  const uint64_t middle = uint64_t{1} << 63;
  const uint64_t magnitude = bits & (sign - 1);
  return (bits & sign) ? middle - magnitude : middle + magnitude;
}

bool Close(double expected, double actual, Bounds bounds, uint64_t ulp_distance) {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || std::isinf(actual)) return expected == actual;
  if (bounds.ulp > 0 && ulp_distance <= static_cast<uint64_t>(bounds.ulp)) return true;
  return std::fabs(actual - expected) <= bounds.atol + bounds.rtol * std::fabs(expected);
}

// Enough digits to tell neighbouring values of the type apart.
int PrintDigits(ElementType type) {
  switch (type) {
    case ElementType::kDouble:
      return std::numeric_limits<double>::max_digits10;
    case ElementType::kFloat:
      return std::numeric_limits<float>::max_digits10;
    default:
      return 6;
  }
}

}  // namespace

uint64_t UlpDistance(const Tensor& a, const Tensor& b, int64_t i) {
  PRISM_ENFORCE(a.Type() == b.Type(), kInvalidArgument, "UlpDistance: ", ElementTypeName(a.Type()),
                " vs ", ElementTypeName(b.Type()));
  if (std::isnan(ElementAsDouble(a, i)) || std::isnan(ElementAsDouble(b, i)))
    return std::numeric_limits<uint64_t>::max();
  const auto [a_bits, sign] = ElementBitsAndSign(a, i);
  const uint64_t b_bits = ElementBitsAndSign(b, i).first;
  const uint64_t x = Ordered(a_bits, sign);
  const uint64_t y = Ordered(b_bits, sign);
  return x > y ? x - y : y - x;
}

std::string CompareTensors(const Tensor& expected, const Tensor& actual, Tolerance tolerance) {
  std::ostringstream out;
  if (expected.Type() != actual.Type()) {
    out << "element type: expected " << ElementTypeName(expected.Type()) << ", got "
        << ElementTypeName(actual.Type());
    return out.str();
  }
  if (expected.Shape() != actual.Shape()) {
    out << "shape: expected " << expected.Shape().ToString() << ", got "
        << actual.Shape().ToString();
    return out.str();
  }
  const int64_t count = expected.NumElements();
  int mismatches = 0;
  if (expected.Type() == ElementType::kString) {
    const auto* e = expected.Data<std::string>();
    const auto* a = actual.Data<std::string>();
    for (int64_t i = 0; i < count; ++i) {
      if (e[i] != a[i]) {
        if (mismatches++ < 5)
          out << " [" << i << "] expected '" << e[i] << "' got '" << a[i] << "'";
      }
    }
  } else if (IsToleranceType(expected.Type())) {
    const Bounds bounds = tolerance.For(expected.Type());
    out << std::setprecision(PrintDigits(expected.Type()));
    for (int64_t i = 0; i < count; ++i) {
      const double e = ElementAsDouble(expected, i);
      const double a = ElementAsDouble(actual, i);
      const uint64_t ulp = bounds.ulp > 0 ? UlpDistance(expected, actual, i) : 0;
      if (!Close(e, a, bounds, ulp)) {
        if (mismatches++ < 5) {
          out << " [" << i << "] expected " << e << " got " << a;
          if (bounds.ulp > 0) out << " (" << ulp << " ulp)";
        }
      }
    }
  } else {
    // Integers, bool, float8 and packed sub-byte types: bit-exact. NaN encodings of float8 are
    // unique per format, so a byte comparison is exact equality.
    const auto* e = static_cast<const uint8_t*>(expected.RawData());
    const auto* a = static_cast<const uint8_t*>(actual.RawData());
    const size_t bytes = expected.SizeInBytes();
    const int bits = ElementBits(expected.Type());
    for (size_t b = 0; b < bytes; ++b) {
      uint8_t mask = 0xff;
      if (b + 1 == bytes && bits < 8) {  // ignore padding bits past the last element
        const int64_t used_bits = (count * bits) - static_cast<int64_t>(b) * 8;
        if (used_bits < 8) mask = static_cast<uint8_t>((1u << used_bits) - 1u);
      }
      if ((e[b] & mask) != (a[b] & mask)) {
        if (mismatches++ < 5)
          out << " [byte " << b << "] expected 0x" << std::hex << int(e[b] & mask) << " got 0x"
              << int(a[b] & mask) << std::dec;
      }
    }
  }
  if (mismatches == 0) return "";
  std::ostringstream summary;
  summary << mismatches << " of " << count << " elements differ";
  if (IsToleranceType(expected.Type()))
    summary << " (" << ElementTypeName(expected.Type()) << " tolerance "
            << tolerance.Describe(expected.Type()) << ")";
  summary << ":" << out.str();
  return summary.str();
}

std::string CompareValues(const Value& expected, const Value& actual, Tolerance tolerance) {
  if (expected.Kind() != actual.Kind())
    return "expected " + expected.Describe() + ", got " + actual.Describe();
  if (expected.IsTensor())
    return CompareTensors(expected.GetTensor(), actual.GetTensor(), tolerance);
  // Maps: the same type, the same keys (exactly) and the same values (within tolerance).
  auto compare_maps = [&](const TensorMap& e, const TensorMap& a) -> std::string {
    if (e.KeyType() != a.KeyType() || e.ValueElementType() != a.ValueElementType())
      return "map type: expected " + ValueType::Map(e.KeyType(), e.ValueElementType()).ToString() +
             ", got " + ValueType::Map(a.KeyType(), a.ValueElementType()).ToString();
    std::string why = CompareTensors(e.keys, a.keys, tolerance);
    if (!why.empty()) return "map keys: " + why;
    why = CompareTensors(e.values, a.values, tolerance);
    return why.empty() ? "" : "map values: " + why;
  };
  if (expected.IsMap()) return compare_maps(expected.GetMap(), actual.GetMap());
  if (expected.IsMapSequence() || actual.IsMapSequence()) {
    if (expected.Type() != actual.Type())
      return "expected " + expected.Describe() + ", got " + actual.Describe();
    const auto& e = expected.GetMapSequence().maps;
    const auto& a = actual.GetMapSequence().maps;
    if (e.size() != a.size())
      return "sequence length: expected " + std::to_string(e.size()) + ", got " +
             std::to_string(a.size());
    for (size_t i = 0; i < e.size(); ++i) {
      std::string why = compare_maps(e[i], a[i]);
      if (!why.empty()) return "sequence element " + std::to_string(i) + ": " + why;
    }
    return "";
  }
  if (expected.IsSequence()) {
    // The declared element type counts even when there is no element to carry it.
    const ElementType expected_type = expected.GetSequence().elem_type;
    const ElementType actual_type = actual.GetSequence().elem_type;
    if (expected_type != actual_type)
      return std::string("sequence element type: expected ") + ElementTypeName(expected_type) +
             ", got " + ElementTypeName(actual_type);
    const auto& e = expected.GetSequence().tensors;
    const auto& a = actual.GetSequence().tensors;
    if (e.size() != a.size())
      return "sequence length: expected " + std::to_string(e.size()) + ", got " +
             std::to_string(a.size());
    for (size_t i = 0; i < e.size(); ++i) {
      std::string why = CompareTensors(e[i], a[i], tolerance);
      if (!why.empty()) return "sequence element " + std::to_string(i) + ": " + why;
    }
  }
  return "";
}

}  // namespace prism::testing
