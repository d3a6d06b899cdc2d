#include "fuzz_inputs.h"

#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "framework/float16.h"

namespace prism::fuzz {

uint64_t Random::Next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int64_t Random::Between(int64_t low, int64_t high) {
  const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low) + 1;
  return low + static_cast<int64_t>(span == 0 ? Next() : Next() % span);
}

uint64_t HashBytes(const uint8_t* data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 0x100000001b3ULL;
  return hash;
}

namespace {

// Small values, mostly valid as indices, axes, counts and shapes: -2..4, and now and then 0.5.
double SmallNumber(Random& random) {
  const int64_t pick = random.Between(0, 15);
  if (pick == 15) return 0.5;
  return static_cast<double>(pick % 7) - 2.0;
}

// Values at the edges of T: its limits, -1, 0, large powers of two, and for floating types NaN
// and the infinities (feeds are untrusted too: indices, counts and axes given as data).
template <typename T>
T ExtremeValue(Random& random) {
  using Limits = std::numeric_limits<T>;
  switch (random.Between(0, 7)) {
    case 0:
      return Limits::max();
    case 1:
      return Limits::lowest();
    case 2:
      return static_cast<T>(-1);
    case 3:
      return static_cast<T>(0);
    case 4:
      if constexpr (std::is_floating_point_v<T>) return Limits::quiet_NaN();
      return static_cast<T>(Limits::max() / 2 + 1);
    case 5:
      if constexpr (std::is_floating_point_v<T>) return Limits::infinity();
      return static_cast<T>(sizeof(T) > 2 ? 65536 : 255);
    case 6:
      if constexpr (std::is_floating_point_v<T>) return -Limits::infinity();
      return static_cast<T>(1);
    default:
      if constexpr (std::is_floating_point_v<T>) return static_cast<T>(1e30);
      return static_cast<T>(Limits::max() - 1);
  }
}

template <typename T>
void FillNumbers(Tensor& tensor, Random& random) {
  T* data = tensor.MutableData<T>();
  // One feed in eight mixes edge values in; the others are small numbers.
  const bool edges = random.Between(0, 7) == 0;
  for (int64_t i = 0; i < tensor.NumElements(); ++i) {
    if (edges && random.Between(0, 1) == 0) {
      data[i] = ExtremeValue<T>(random);
      continue;
    }
    const double number = SmallNumber(random);
    if constexpr (std::is_unsigned_v<T>)
      data[i] = static_cast<T>(number < 0 ? -number : number);
    else
      data[i] = static_cast<T>(number);
  }
}

void Fill(Tensor& tensor, Random& random) {
  const int64_t count = tensor.NumElements();
  switch (tensor.Type()) {
    case ElementType::kFloat:
      return FillNumbers<float>(tensor, random);
    case ElementType::kDouble:
      return FillNumbers<double>(tensor, random);
    case ElementType::kInt8:
      return FillNumbers<int8_t>(tensor, random);
    case ElementType::kInt16:
      return FillNumbers<int16_t>(tensor, random);
    case ElementType::kInt32:
      return FillNumbers<int32_t>(tensor, random);
    case ElementType::kInt64:
      return FillNumbers<int64_t>(tensor, random);
    case ElementType::kUint8:
      return FillNumbers<uint8_t>(tensor, random);
    case ElementType::kUint16:
      return FillNumbers<uint16_t>(tensor, random);
    case ElementType::kUint32:
      return FillNumbers<uint32_t>(tensor, random);
    case ElementType::kUint64:
      return FillNumbers<uint64_t>(tensor, random);
    case ElementType::kBool: {
      bool* data = tensor.MutableData<bool>();
      for (int64_t i = 0; i < count; ++i) data[i] = random.Between(0, 1) == 1;
      return;
    }
    case ElementType::kFloat16: {
      Float16* data = tensor.MutableData<Float16>();
      for (int64_t i = 0; i < count; ++i)
        data[i] = Float16(static_cast<float>(SmallNumber(random)));
      return;
    }
    case ElementType::kBFloat16: {
      BFloat16* data = tensor.MutableData<BFloat16>();
      for (int64_t i = 0; i < count; ++i)
        data[i] = BFloat16(static_cast<float>(SmallNumber(random)));
      return;
    }
    case ElementType::kComplex64: {
      auto* data = tensor.MutableData<std::complex<float>>();
      for (int64_t i = 0; i < count; ++i)
        data[i] = {static_cast<float>(SmallNumber(random)),
                   static_cast<float>(SmallNumber(random))};
      return;
    }
    case ElementType::kComplex128: {
      auto* data = tensor.MutableData<std::complex<double>>();
      for (int64_t i = 0; i < count; ++i) data[i] = {SmallNumber(random), SmallNumber(random)};
      return;
    }
    case ElementType::kString: {
      static const char* const kWords[] = {
          "", "a", "hello", "Hello World", "0", "\xc3\xa9t\xc3\xa9"};
      auto* data = tensor.MutableData<std::string>();
      for (int64_t i = 0; i < count; ++i) data[i] = kWords[random.Between(0, 5)];
      return;
    }
    default: {  // float8, float6, float4 and packed integers: any bits are a valid value
      auto* bytes = static_cast<uint8_t*>(tensor.MutableRawData());
      for (size_t i = 0; i < tensor.SizeInBytes(); ++i)
        bytes[i] = static_cast<uint8_t>(random.Next());
      return;
    }
  }
}

std::optional<Tensor> MakeTensor(ElementType type, bool has_shape, const std::vector<Dim>& dims,
                                 Random& random, std::map<std::string, int64_t>& symbols,
                                 int64_t* element_budget) {
  if (type == ElementType::kUndefined) type = ElementType::kFloat;
  std::vector<int64_t> shape;
  if (!has_shape) shape.push_back(2);
  int64_t count = 1;
  for (const Dim& dim : dims) {
    int64_t value = 0;
    if (dim.IsKnown()) {
      value = dim.value;
    } else if (!dim.param.empty()) {
      auto [it, added] = symbols.emplace(dim.param, 0);
      if (added) it->second = random.Between(1, 2);
      value = it->second;
    } else {
      value = random.Between(1, 2);
    }
    if (value < 0 || (value > 0 && count > *element_budget / value)) return std::nullopt;
    count *= value;
    shape.push_back(value);
  }
  if (count > *element_budget) return std::nullopt;
  *element_budget -= count;
  Tensor tensor(type, TensorShape(shape), GetCpuAllocator());
  Fill(tensor, random);
  return tensor;
}

}  // namespace

std::optional<Value> MakeFeed(const ValueInfo& input, Random& random,
                              std::map<std::string, int64_t>& symbols, int64_t* element_budget) {
  const ValueType& type = input.type;
  switch (type.kind) {
    case TypeKind::kTensor:
    case TypeKind::kUnknown: {
      auto tensor =
          MakeTensor(type.elem, input.has_shape, input.shape, random, symbols, element_budget);
      if (!tensor) return std::nullopt;
      return Value(std::move(*tensor));
    }
    case TypeKind::kSequence: {
      auto tensor = MakeTensor(type.elem, false, {}, random, symbols, element_budget);
      if (!tensor) return std::nullopt;
      TensorSequence sequence;
      sequence.elem_type = tensor->Type();
      sequence.tensors.push_back(std::move(*tensor));
      return Value(std::move(sequence));
    }
    case TypeKind::kOptional: {
      if (random.Between(0, 3) == 0) return Value();
      auto tensor = MakeTensor(type.elem, false, {}, random, symbols, element_budget);
      if (!tensor) return std::nullopt;
      if (type.inner == TypeKind::kSequence) {
        TensorSequence sequence;
        sequence.elem_type = tensor->Type();
        sequence.tensors.push_back(std::move(*tensor));
        return Value(std::move(sequence));
      }
      return Value(std::move(*tensor));
    }
    default:
      return std::nullopt;
  }
}

uint8_t ByteReader::Byte() {
  return position_ < size_ ? data_[position_++] : 0;
}

uint16_t ByteReader::U16() {
  return static_cast<uint16_t>(Byte() | (Byte() << 8));
}

uint32_t ByteReader::U32() {
  return static_cast<uint32_t>(U16()) | (static_cast<uint32_t>(U16()) << 16);
}

uint64_t ByteReader::U64() {
  return static_cast<uint64_t>(U32()) | (static_cast<uint64_t>(U32()) << 32);
}

std::string ByteReader::String(size_t max_length) {
  const size_t length = std::min<size_t>(Byte(), max_length);
  std::string text;
  for (size_t i = 0; i < length && !Done(); ++i) text.push_back(static_cast<char>(Byte()));
  return text;
}

}  // namespace prism::fuzz
