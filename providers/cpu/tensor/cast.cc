// Cast: converts a tensor to the element type named by `to` (rules in cast.h).
#include "providers/cpu/tensor/cast.h"

#include <array>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>
#include <variant>

#include "framework/packed_int.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::cpu {
namespace {

using E = ElementType;

constexpr double kTwoPow63 = 9223372036854775808.0;

// ---------------------------------------------------------------------------------------------
// Scalar rules.

// Cast's float -> integer rule for the standard integer types (see cast.h).
template <typename T>
T FloatToInteger(double value) {
  if (std::isnan(value)) return 0;
  if constexpr (std::is_same_v<T, uint64_t>) {
    if (value >= 2.0 * kTwoPow63) return std::numeric_limits<uint64_t>::max();
    if (value >= 0.0) return static_cast<uint64_t>(value);
    if (value >= -kTwoPow63) return static_cast<uint64_t>(static_cast<int64_t>(value));
    return 0;
  } else {
    if (value >= kTwoPow63) return std::numeric_limits<T>::max();
    if (value < -kTwoPow63) return std::numeric_limits<T>::min();
    return static_cast<T>(static_cast<int64_t>(value));  // modular since C++20
  }
}

// The same rule for a packed bits-wide integer; returns the raw bits.
uint8_t FloatToPackedInt(double value, int bits, bool is_signed) {
  if (std::isnan(value)) return 0;
  if (value >= kTwoPow63) {
    return PackedIntBits(is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1,
                         bits);
  }
  if (value < -kTwoPow63) return PackedIntBits(is_signed ? -(int64_t{1} << (bits - 1)) : 0, bits);
  return PackedIntBits(static_cast<int64_t>(value), bits);
}

// ---------------------------------------------------------------------------------------------
// Readers: Get(i) widens element i to float, double, int64_t or uint64_t without loss.

template <typename T>
struct ArithmeticReader {
  const T* data;
  auto Get(int64_t i) const {
    if constexpr (std::is_floating_point_v<T>) {
      return data[i];
    } else if constexpr (std::is_same_v<T, bool> || std::is_signed_v<T>) {
      return static_cast<int64_t>(data[i]);
    } else {
      return static_cast<uint64_t>(data[i]);
    }
  }
};

template <typename H>  // Float16 or BFloat16
struct HalfReader {
  const H* data;
  float Get(int64_t i) const { return data[i].ToFloat(); }
};

const std::array<float, 256>& DecodeTable(ElementType type) {
  auto build = [](ElementType t) {
    std::array<float, 256> table{};
    const int codes = IsSubByte(t) ? 1 << ElementBits(t) : 256;
    for (int code = 0; code < codes; ++code)
      table[code] = NarrowFloatToFloat(t, static_cast<uint8_t>(code));
    return table;
  };
  static const std::array<float, 256> kE4M3FN = build(E::kFloat8E4M3FN);
  static const std::array<float, 256> kE4M3FNUZ = build(E::kFloat8E4M3FNUZ);
  static const std::array<float, 256> kE5M2 = build(E::kFloat8E5M2);
  static const std::array<float, 256> kE5M2FNUZ = build(E::kFloat8E5M2FNUZ);
  static const std::array<float, 256> kE8M0 = build(E::kFloat8E8M0);
  static const std::array<float, 256> kE2M1 = build(E::kFloat4E2M1);
  static const std::array<float, 256> kE2M3 = build(E::kFloat6E2M3);
  static const std::array<float, 256> kE3M2 = build(E::kFloat6E3M2);
  switch (type) {
    case E::kFloat8E4M3FN:
      return kE4M3FN;
    case E::kFloat8E4M3FNUZ:
      return kE4M3FNUZ;
    case E::kFloat8E5M2:
      return kE5M2;
    case E::kFloat8E5M2FNUZ:
      return kE5M2FNUZ;
    case E::kFloat8E8M0:
      return kE8M0;
    case E::kFloat6E2M3:
      return kE2M3;
    case E::kFloat6E3M2:
      return kE3M2;
    default:
      return kE2M1;
  }
}

struct NarrowFloatReader {
  const uint8_t* data;
  const std::array<float, 256>* table;
  int bits;  // 8, or 4 for float4e2m1 and 6 for float6 (packed)
  float Get(int64_t i) const { return (*table)[bits < 8 ? GetPackedBits(data, i, bits) : data[i]]; }
};

struct PackedIntReader {
  const uint8_t* data;
  int bits;
  bool is_signed;
  int64_t Get(int64_t i) const {
    return PackedIntValue(GetPackedBits(data, i, bits), bits, is_signed);
  }
};

template <typename Fn>
void WithReader(const Tensor& tensor, Fn&& fn) {
  const auto* raw = static_cast<const uint8_t*>(tensor.RawData());
  switch (tensor.Type()) {
    case E::kFloat:
      return fn(ArithmeticReader<float>{tensor.Data<float>()});
    case E::kDouble:
      return fn(ArithmeticReader<double>{tensor.Data<double>()});
    case E::kInt8:
      return fn(ArithmeticReader<int8_t>{tensor.Data<int8_t>()});
    case E::kInt16:
      return fn(ArithmeticReader<int16_t>{tensor.Data<int16_t>()});
    case E::kInt32:
      return fn(ArithmeticReader<int32_t>{tensor.Data<int32_t>()});
    case E::kInt64:
      return fn(ArithmeticReader<int64_t>{tensor.Data<int64_t>()});
    case E::kUint8:
      return fn(ArithmeticReader<uint8_t>{tensor.Data<uint8_t>()});
    case E::kUint16:
      return fn(ArithmeticReader<uint16_t>{tensor.Data<uint16_t>()});
    case E::kUint32:
      return fn(ArithmeticReader<uint32_t>{tensor.Data<uint32_t>()});
    case E::kUint64:
      return fn(ArithmeticReader<uint64_t>{tensor.Data<uint64_t>()});
    case E::kBool:
      return fn(ArithmeticReader<bool>{tensor.Data<bool>()});
    case E::kFloat16:
      return fn(HalfReader<Float16>{tensor.Data<Float16>()});
    case E::kBFloat16:
      return fn(HalfReader<BFloat16>{tensor.Data<BFloat16>()});
    case E::kFloat8E4M3FN:
    case E::kFloat8E4M3FNUZ:
    case E::kFloat8E5M2:
    case E::kFloat8E5M2FNUZ:
    case E::kFloat8E8M0:
    case E::kFloat4E2M1:
    case E::kFloat6E2M3:
    case E::kFloat6E3M2:
      return fn(NarrowFloatReader{raw, &DecodeTable(tensor.Type()), ElementBits(tensor.Type())});
    case E::kInt4:
      return fn(PackedIntReader{raw, 4, true});
    case E::kUint4:
      return fn(PackedIntReader{raw, 4, false});
    case E::kInt2:
      return fn(PackedIntReader{raw, 2, true});
    case E::kUint2:
      return fn(PackedIntReader{raw, 2, false});
    default:
      PRISM_THROW(kNotImplemented, "Cast from ", ElementTypeName(tensor.Type()),
                  " is not supported");
  }
}

// ---------------------------------------------------------------------------------------------
// Writers: Put(i, v) stores v (float, double, int64_t or uint64_t) as element i.

template <typename T>
struct IntegerWriter {
  T* data;
  void Put(int64_t i, double v) const { data[i] = FloatToInteger<T>(v); }
  void Put(int64_t i, float v) const { data[i] = FloatToInteger<T>(v); }
  void Put(int64_t i, int64_t v) const { data[i] = static_cast<T>(v); }
  void Put(int64_t i, uint64_t v) const { data[i] = static_cast<T>(v); }
};

struct BoolWriter {
  bool* data;
  template <typename V>
  void Put(int64_t i, V v) const {
    data[i] = v != 0;  // NaN != 0 is true
  }
};

template <typename T>  // float or double
struct FloatWriter {
  T* data;
  template <typename V>
  void Put(int64_t i, V v) const {
    data[i] = static_cast<T>(v);  // IEEE: overflows to inf; int64 -> float rounds directly
  }
};

template <typename H>  // Float16 or BFloat16: through float
struct HalfWriter {
  H* data;
  template <typename V>
  void Put(int64_t i, V v) const {
    data[i] = H(static_cast<float>(v));
  }
};

struct NarrowFloatWriter {
  uint8_t* data;
  ElementType type;
  bool saturate;
  template <typename V>
  void Put(int64_t i, V v) const {
    const uint8_t code = FloatToNarrowFloat(type, static_cast<double>(v), saturate);
    if (IsSubByte(type)) {  // float4e2m1, float6
      SetPackedBits(data, i, ElementBits(type), code);
    } else {
      data[i] = code;
    }
  }
};

struct E8M0Writer {
  uint8_t* data;
  bool saturate;
  E8M0Rounding rounding;
  template <typename V>
  void Put(int64_t i, V v) const {
    data[i] = FloatToFloat8E8M0(static_cast<double>(v), saturate, rounding);
  }
};

struct PackedIntWriter {
  uint8_t* data;
  int bits;
  bool is_signed;
  void Put(int64_t i, double v) const {
    SetPackedBits(data, i, bits, FloatToPackedInt(v, bits, is_signed));
  }
  void Put(int64_t i, float v) const { Put(i, static_cast<double>(v)); }
  void Put(int64_t i, int64_t v) const { SetPackedBits(data, i, bits, PackedIntBits(v, bits)); }
  void Put(int64_t i, uint64_t v) const {
    SetPackedBits(data, i, bits, PackedIntBits(static_cast<int64_t>(v), bits));
  }
};

template <typename Fn>
void WithWriter(Tensor& tensor, const CastOptions& options, Fn&& fn) {
  auto* raw = static_cast<uint8_t*>(tensor.MutableRawData());
  switch (tensor.Type()) {
    case E::kFloat:
      return fn(FloatWriter<float>{tensor.MutableData<float>()});
    case E::kDouble:
      return fn(FloatWriter<double>{tensor.MutableData<double>()});
    case E::kInt8:
      return fn(IntegerWriter<int8_t>{tensor.MutableData<int8_t>()});
    case E::kInt16:
      return fn(IntegerWriter<int16_t>{tensor.MutableData<int16_t>()});
    case E::kInt32:
      return fn(IntegerWriter<int32_t>{tensor.MutableData<int32_t>()});
    case E::kInt64:
      return fn(IntegerWriter<int64_t>{tensor.MutableData<int64_t>()});
    case E::kUint8:
      return fn(IntegerWriter<uint8_t>{tensor.MutableData<uint8_t>()});
    case E::kUint16:
      return fn(IntegerWriter<uint16_t>{tensor.MutableData<uint16_t>()});
    case E::kUint32:
      return fn(IntegerWriter<uint32_t>{tensor.MutableData<uint32_t>()});
    case E::kUint64:
      return fn(IntegerWriter<uint64_t>{tensor.MutableData<uint64_t>()});
    case E::kBool:
      return fn(BoolWriter{tensor.MutableData<bool>()});
    case E::kFloat16:
      return fn(HalfWriter<Float16>{tensor.MutableData<Float16>()});
    case E::kBFloat16:
      return fn(HalfWriter<BFloat16>{tensor.MutableData<BFloat16>()});
    case E::kFloat8E4M3FN:
    case E::kFloat8E4M3FNUZ:
    case E::kFloat8E5M2:
    case E::kFloat8E5M2FNUZ:
    case E::kFloat4E2M1:
    case E::kFloat6E2M3:
    case E::kFloat6E3M2:
      return fn(NarrowFloatWriter{raw, tensor.Type(), options.saturate});
    case E::kFloat8E8M0:
      return fn(E8M0Writer{raw, options.saturate, options.round_mode});
    case E::kInt4:
      return fn(PackedIntWriter{raw, 4, true});
    case E::kUint4:
      return fn(PackedIntWriter{raw, 4, false});
    case E::kInt2:
      return fn(PackedIntWriter{raw, 2, true});
    case E::kUint2:
      return fn(PackedIntWriter{raw, 2, false});
    default:
      PRISM_THROW(kNotImplemented, "Cast to ", ElementTypeName(tensor.Type()), " is not supported");
  }
}

// ---------------------------------------------------------------------------------------------
// Numbers to strings.

template <typename T>  // float or double
std::string ShortestDecimal(T value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "INF" : "-INF";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::string FormatElement(const Tensor& tensor, int64_t i) {
  const void* raw = tensor.RawData();
  switch (tensor.Type()) {
    case E::kFloat:
      return ShortestDecimal(tensor.Data<float>()[i]);
    case E::kDouble:
      return ShortestDecimal(tensor.Data<double>()[i]);
    case E::kBool:
      return tensor.Data<bool>()[i] ? "1" : "0";
    case E::kInt8:
      return std::to_string(tensor.Data<int8_t>()[i]);
    case E::kInt16:
      return std::to_string(tensor.Data<int16_t>()[i]);
    case E::kInt32:
      return std::to_string(tensor.Data<int32_t>()[i]);
    case E::kInt64:
      return std::to_string(tensor.Data<int64_t>()[i]);
    case E::kUint8:
      return std::to_string(tensor.Data<uint8_t>()[i]);
    case E::kUint16:
      return std::to_string(tensor.Data<uint16_t>()[i]);
    case E::kUint32:
      return std::to_string(tensor.Data<uint32_t>()[i]);
    case E::kUint64:
      return std::to_string(tensor.Data<uint64_t>()[i]);
    case E::kInt4:
      return std::to_string(PackedIntValue(GetPackedBits(raw, i, 4), 4, true));
    case E::kUint4:
      return std::to_string(PackedIntValue(GetPackedBits(raw, i, 4), 4, false));
    case E::kInt2:
      return std::to_string(PackedIntValue(GetPackedBits(raw, i, 2), 2, true));
    case E::kUint2:
      return std::to_string(PackedIntValue(GetPackedBits(raw, i, 2), 2, false));
    // The narrower float types print their exact value, as float would.
    case E::kFloat16:
      return ShortestDecimal(tensor.Data<Float16>()[i].ToFloat());
    case E::kBFloat16:
      return ShortestDecimal(tensor.Data<BFloat16>()[i].ToFloat());
    case E::kFloat4E2M1:
    case E::kFloat6E2M3:
    case E::kFloat6E3M2:
      return ShortestDecimal(
          NarrowFloatToFloat(tensor.Type(), GetPackedBits(raw, i, ElementBits(tensor.Type()))));
    case E::kFloat8E4M3FN:
    case E::kFloat8E4M3FNUZ:
    case E::kFloat8E5M2:
    case E::kFloat8E5M2FNUZ:
    case E::kFloat8E8M0:
      return ShortestDecimal(
          NarrowFloatToFloat(tensor.Type(), static_cast<const uint8_t*>(raw)[i]));
    default:
      PRISM_THROW(kNotImplemented, "Cast from ", ElementTypeName(tensor.Type()),
                  " to string is not supported");
  }
}

// ---------------------------------------------------------------------------------------------
// Strings to numbers.

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = (a[i] >= 'A' && a[i] <= 'Z') ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    const char y = (b[i] >= 'A' && b[i] <= 'Z') ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) return false;
  }
  return true;
}

// For a decimal that from_chars found out of range: whether its magnitude is huge (else tiny).
bool DecimalIsHuge(std::string_view digits) {
  size_t i = 0;
  int64_t integer_digits = 0;
  int64_t leading_fraction_zeros = 0;
  bool nonzero_seen = false;
  for (; i < digits.size() && IsDigit(digits[i]); ++i) {
    if (digits[i] != '0' || nonzero_seen) {
      nonzero_seen = true;
      ++integer_digits;
    }
  }
  if (i < digits.size() && digits[i] == '.') {
    for (++i; i < digits.size() && IsDigit(digits[i]); ++i) {
      if (nonzero_seen) continue;
      if (digits[i] == '0') {
        ++leading_fraction_zeros;
      } else {
        nonzero_seen = true;
      }
    }
  }
  int64_t exponent = 0;
  if (i < digits.size() && (digits[i] == 'e' || digits[i] == 'E')) {
    std::string_view text = digits.substr(i + 1);
    const bool negative = !text.empty() && text.front() == '-';
    if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
    const auto result = std::from_chars(text.data(), text.data() + text.size(), exponent);
    if (result.ec == std::errc::result_out_of_range) exponent = INT64_MAX / 4;
    if (negative) exponent = -exponent;
  }
  const int64_t magnitude =
      integer_digits > 0 ? integer_digits + exponent : exponent - leading_fraction_zeros;
  return magnitude > 0;
}

// Parses a float or double: returns false when text is not a number.
template <typename T>
bool ParseFloating(std::string_view text, T* value) {
  text = Trim(text);
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  // from_chars takes no sign of its own here, so "+-1" stays invalid.
  if (text.empty() || text.front() == '+' || text.front() == '-') return false;
  T parsed = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (result.ptr != text.data() + text.size()) return false;
  if (result.ec == std::errc::result_out_of_range) {
    parsed = DecimalIsHuge(text) ? std::numeric_limits<T>::infinity() : T(0);
  } else if (result.ec != std::errc()) {
    return false;
  }
  *value = negative ? -parsed : parsed;
  return true;
}

// Parses integer text into int64 (or uint64 when unsigned_target and it needs to). Returns
// false when the text is not a plain integer or does not fit 64 bits.
bool ParseInteger(std::string_view text, bool unsigned_target,
                  std::variant<int64_t, uint64_t>* out) {
  text = Trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return false;
  const char* end = text.data() + text.size();
  int64_t signed_value = 0;
  auto result = std::from_chars(text.data(), end, signed_value);
  if (result.ec == std::errc() && result.ptr == end) {
    *out = signed_value;
    return true;
  }
  if (unsigned_target && text.front() != '-') {
    uint64_t unsigned_value = 0;
    result = std::from_chars(text.data(), end, unsigned_value);
    if (result.ec == std::errc() && result.ptr == end) {
      *out = unsigned_value;
      return true;
    }
  }
  return false;
}

using Parsed = std::variant<float, double, int64_t, uint64_t>;

[[noreturn]] void ThrowUnparsable(const std::string& text, int64_t index, ElementType target) {
  PRISM_THROW(kInvalidArgument, "Cast: string \"", text, "\" (element ", index,
              ") is not a number that converts to ", ElementTypeName(target));
}

Parsed ParseForTarget(const std::string& text, int64_t index, ElementType target) {
  switch (target) {
    case E::kFloat:
    case E::kFloat16:
    case E::kBFloat16: {
      float value = 0.0f;
      if (!ParseFloating(text, &value)) ThrowUnparsable(text, index, target);
      return value;
    }
    case E::kDouble:
    case E::kFloat8E4M3FN:
    case E::kFloat8E4M3FNUZ:
    case E::kFloat8E5M2:
    case E::kFloat8E5M2FNUZ:
    case E::kFloat8E8M0:
    case E::kFloat4E2M1:
    case E::kFloat6E2M3:
    case E::kFloat6E3M2: {
      double value = 0.0;
      if (!ParseFloating(text, &value)) ThrowUnparsable(text, index, target);
      return value;
    }
    default:
      break;
  }
  // Integer and bool targets.
  if (target == E::kBool) {
    const std::string_view trimmed = Trim(text);
    if (EqualsIgnoreCase(trimmed, "true")) return int64_t{1};
    if (EqualsIgnoreCase(trimmed, "false")) return int64_t{0};
  }
  std::variant<int64_t, uint64_t> integer;
  if (ParseInteger(text, target == E::kUint64, &integer)) {
    if (std::holds_alternative<int64_t>(integer)) return std::get<int64_t>(integer);
    return std::get<uint64_t>(integer);
  }
  double value = 0.0;
  if (!ParseFloating(text, &value)) ThrowUnparsable(text, index, target);
  return value;
}

// ---------------------------------------------------------------------------------------------
// The kernel.

// The 'to' attribute: a TensorProto data type number, or in Cast-1 to Cast-5 (where the spec
// makes it a string) a data type name such as "FLOAT".
ElementType TargetType(const OpKernelInfo& info) {
  const Node& node = info.GetNode();
  const Attribute* attr = node.FindAttribute("to");
  if (attr != nullptr && attr->type == AttributeType::kString && node.OpsetVersion() < 6) {
    const ElementType named = ElementTypeFromDataTypeName(attr->s);
    PRISM_ENFORCE(named != ElementType::kUndefined, kInvalidArgument, node.Describe(),
                  ": 'to' is \"", attr->s, "\", which names no TensorProto data type");
    return named;
  }
  const int64_t to = info.Int("to");
  PRISM_ENFORCE(to >= 0 && to <= INT32_MAX && IsKnownElementType(static_cast<int32_t>(to)),
                kInvalidArgument, node.Describe(), ": 'to' is ", to,
                ", which is not a supported TensorProto data type");
  return static_cast<ElementType>(to);
}

class Cast final : public OpKernel {
 public:
  explicit Cast(const OpKernelInfo& info) : OpKernel(info) {
    to_ = TargetType(info);
    // T2 gains float6 only in opset 28; the output type is not matched at kernel lookup.
    const bool float6 = to_ == E::kFloat6E2M3 || to_ == E::kFloat6E3M2;
    PRISM_ENFORCE(!float6 || info.GetNode().OpsetVersion() >= 28, kInvalidArgument,
                  info.GetNode().Describe(), ": 'to' is ", ElementTypeName(to_),
                  ", which Cast allows from opset 28 (the model imports opset ",
                  info.GetNode().OpsetVersion(), ")");
    options_.saturate = info.IntOr("saturate", 1) != 0;
    try {
      options_.round_mode = ParseE8M0Rounding(info.StringOr("round_mode", "up"));
    } catch (const Exception& e) {
      throw Exception(e.Code(), info.GetNode().Describe() + ": " + e.what());
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    if (input.Type() == to_) {  // nothing to convert: share the buffer
      context.SetOutput(0, Value(input));
      return;
    }
    Tensor& output = context.Output(0, input.Shape(), to_);
    try {
      CastElements(input, output, options_);
    } catch (const Exception& e) {
      throw Exception(e.Code(), GetNode().Describe() + ": " + e.what());
    }
  }

 private:
  ElementType to_ = ElementType::kUndefined;
  CastOptions options_;
};

// CastLike: Cast to the element type of the second input (whose values are not read).
class CastLike final : public OpKernel {
 public:
  explicit CastLike(const OpKernelInfo& info) : OpKernel(info) {
    options_.saturate = info.IntOr("saturate", 1) != 0;
    try {
      options_.round_mode = ParseE8M0Rounding(info.StringOr("round_mode", "up"));
    } catch (const Exception& e) {
      throw Exception(e.Code(), info.GetNode().Describe() + ": " + e.what());
    }
  }

  void Compute(OpKernelContext& context) const override {
    const Tensor& input = context.RequiredInput(0);
    const ElementType to = context.RequiredInput(1).Type();
    if (input.Type() == to) {
      context.SetOutput(0, Value(input));
      return;
    }
    Tensor& output = context.Output(0, input.Shape(), to);
    try {
      CastElements(input, output, options_);
    } catch (const Exception& e) {
      throw Exception(e.Code(), GetNode().Describe() + ": " + e.what());
    }
  }

 private:
  CastOptions options_;
};

void RegisterCastKernels(KernelRegistry& registry) {
  using G = TensorTypeGeneration;
  const auto factory = MakeKernelFactory<Cast>();
  // Opsets 1-8 allow neither string nor bfloat16.
  std::vector<ElementType> classic = AllTensorTypesOf(G::kNoBfloat16);
  std::erase(classic, E::kString);
  for (auto [since, end] : {std::pair{1, 5}, std::pair{6, 8}}) {
    registry.Register(KernelDefBuilder("Cast")
                          .Versions(since, end)
                          .Constraint("T1", classic, {0})
                          .Constraint("T2", classic, {}, {0})
                          .Build(),
                      factory);
  }
  struct Range {
    int since;
    int end;
    G types;
  };
  // Opset 28 adds float6e2m3/float6e3m2, which no other core op allows (so they are not a
  // TensorTypeGeneration shared with the data-movement kernels).
  for (const Range& r :
       {Range{9, 12, G::kNoBfloat16}, Range{13, 18, G::kBfloat16}, Range{19, 20, G::kFloat8},
        Range{21, 22, G::kInt4}, Range{23, 23, G::kFloat4}, Range{24, 24, G::kFloat8E8M0},
        Range{25, 27, G::kInt2}, Range{28, INT_MAX, G::kInt2}}) {
    std::vector<ElementType> types = AllTensorTypesOf(r.types);
    if (r.since >= 28) types.insert(types.end(), {E::kFloat6E2M3, E::kFloat6E3M2});
    registry.Register(KernelDefBuilder("Cast")
                          .Versions(r.since, r.end)
                          .Constraint("T1", types, {0})
                          .Constraint("T2", types, {}, {0})
                          .Build(),
                      factory);
  }
  for (const Range& r :
       {Range{15, 18, G::kBfloat16}, Range{19, 20, G::kFloat8}, Range{21, 22, G::kInt4},
        Range{23, 23, G::kFloat4}, Range{24, 24, G::kFloat8E8M0}, Range{25, INT_MAX, G::kInt2}}) {
    const std::vector<ElementType> types = AllTensorTypesOf(r.types);
    registry.Register(KernelDefBuilder("CastLike")
                          .Versions(r.since, r.end)
                          .Constraint("T1", types, {0})
                          .Constraint("T2", types, {1}, {0})
                          .Build(),
                      MakeKernelFactory<CastLike>());
  }
}

}  // namespace

void CastElements(const Tensor& input, Tensor& output, const CastOptions& options) {
  const int64_t count = input.NumElements();
  PRISM_ENFORCE(output.NumElements() == count, kInvalidArgument, "Cast: output has ",
                output.NumElements(), " elements, input has ", count);
  if (IsSubByte(output.Type()) && output.SizeInBytes() > 0) {
    std::memset(output.MutableRawData(), 0, output.SizeInBytes());  // deterministic padding
  }
  if (input.Type() == E::kString) {
    const std::string* strings = input.Data<std::string>();
    if (output.Type() == E::kString) {
      std::string* out = output.MutableData<std::string>();
      for (int64_t i = 0; i < count; ++i) out[i] = strings[i];
      return;
    }
    WithWriter(output, options, [&](const auto& writer) {
      for (int64_t i = 0; i < count; ++i) {
        std::visit([&](auto value) { writer.Put(i, value); },
                   ParseForTarget(strings[i], i, output.Type()));
      }
    });
    return;
  }
  if (output.Type() == E::kString) {
    std::string* out = output.MutableData<std::string>();
    for (int64_t i = 0; i < count; ++i) out[i] = FormatElement(input, i);
    return;
  }
  WithReader(input, [&](const auto& reader) {
    WithWriter(output, options, [&](const auto& writer) {
      for (int64_t i = 0; i < count; ++i) writer.Put(i, reader.Get(i));
    });
  });
}

PRISM_CPU_KERNEL_FAMILY(tensor_cast, RegisterCastKernels);

}  // namespace prism::cpu
