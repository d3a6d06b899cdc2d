#include "tensor_compare.h"

#include <cmath>
#include <cstring>
#include <sstream>

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

namespace {

bool IsToleranceType(ElementType type) {
  return type == ElementType::kFloat || type == ElementType::kDouble ||
         type == ElementType::kFloat16 || type == ElementType::kBFloat16;
}

bool Close(double expected, double actual, Tolerance tolerance) {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || std::isinf(actual)) return expected == actual;
  return std::fabs(actual - expected) <= tolerance.atol + tolerance.rtol * std::fabs(expected);
}

}  // namespace

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
  int64_t first = -1;
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
    for (int64_t i = 0; i < count; ++i) {
      const double e = ElementAsDouble(expected, i);
      const double a = ElementAsDouble(actual, i);
      if (!Close(e, a, tolerance)) {
        if (first < 0) first = i;
        if (mismatches++ < 5) out << " [" << i << "] expected " << e << " got " << a;
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
  summary << mismatches << " of " << count << " elements differ:" << out.str();
  return summary.str();
}

std::string CompareValues(const Value& expected, const Value& actual, Tolerance tolerance) {
  if (expected.Kind() != actual.Kind())
    return "expected " + expected.Describe() + ", got " + actual.Describe();
  if (expected.IsTensor())
    return CompareTensors(expected.GetTensor(), actual.GetTensor(), tolerance);
  if (expected.IsSequence()) {
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
