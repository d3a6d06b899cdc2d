#include "providers/cpu/tensor/element_copy.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace prism::cpu {

void CopyElements(const Tensor& src, int64_t src_offset, Tensor& dst, int64_t dst_offset,
                  int64_t count) {
  PRISM_ENFORCE(src.Type() == dst.Type(), kRuntimeException, "CopyElements from ",
                ElementTypeName(src.Type()), " to ", ElementTypeName(dst.Type()));
  if (count <= 0) return;
  const ElementType type = src.Type();
  if (type == ElementType::kString) {
    const std::string* from = src.Data<std::string>() + src_offset;
    std::string* to = dst.MutableData<std::string>() + dst_offset;
    for (int64_t i = 0; i < count; ++i) to[i] = from[i];
    return;
  }
  const int bits = ElementBits(type);
  PRISM_ENFORCE(bits > 0, kNotImplemented, "cannot copy elements of type ", ElementTypeName(type));
  const auto* from = static_cast<const uint8_t*>(src.RawData());
  auto* to = static_cast<uint8_t*>(dst.MutableRawData());
  if (bits >= 8) {
    const size_t width = static_cast<size_t>(bits / 8);
    std::memcpy(to + static_cast<size_t>(dst_offset) * width,
                from + static_cast<size_t>(src_offset) * width, static_cast<size_t>(count) * width);
    return;
  }
  if ((src_offset * bits) % 8 == 0 && (dst_offset * bits) % 8 == 0) {
    // Both ends start on a byte: whole bytes first, then the tail element by element (it may
    // share a byte with others).
    const int64_t whole_bytes = count * bits / 8;
    const int64_t whole = whole_bytes * 8 / bits;  // elements entirely inside those bytes
    if (whole_bytes > 0)
      std::memcpy(to + dst_offset * bits / 8, from + src_offset * bits / 8,
                  static_cast<size_t>(whole_bytes));
    for (int64_t i = whole; i < count; ++i)
      SetPackedElement(to, dst_offset + i, bits, GetPackedElement(from, src_offset + i, bits));
    return;
  }
  for (int64_t i = 0; i < count; ++i)
    SetPackedElement(to, dst_offset + i, bits, GetPackedElement(from, src_offset + i, bits));
}

void FillElements(Tensor& dst, int64_t dst_offset, int64_t count, const Tensor& value,
                  int64_t value_offset) {
  PRISM_ENFORCE(value.Type() == dst.Type(), kRuntimeException, "FillElements with ",
                ElementTypeName(value.Type()), " into ", ElementTypeName(dst.Type()));
  if (count <= 0) return;
  const ElementType type = dst.Type();
  if (type == ElementType::kString) {
    const std::string& from = value.Data<std::string>()[value_offset];
    std::string* to = dst.MutableData<std::string>() + dst_offset;
    for (int64_t i = 0; i < count; ++i) to[i] = from;
    return;
  }
  const int bits = ElementBits(type);
  PRISM_ENFORCE(bits > 0, kNotImplemented, "cannot fill elements of type ", ElementTypeName(type));
  const auto* from = static_cast<const uint8_t*>(value.RawData());
  auto* to = static_cast<uint8_t*>(dst.MutableRawData());
  if (bits < 8) {
    const uint8_t element = GetPackedElement(from, value_offset, bits);
    for (int64_t i = 0; i < count; ++i) SetPackedElement(to, dst_offset + i, bits, element);
    return;
  }
  const size_t width = static_cast<size_t>(bits / 8);
  uint8_t* out = to + static_cast<size_t>(dst_offset) * width;
  std::memcpy(out, from + static_cast<size_t>(value_offset) * width, width);
  // Doubling copies: each memcpy repeats everything written so far.
  size_t done = 1;
  const size_t total = static_cast<size_t>(count);
  while (done < total) {
    const size_t n = std::min(done, total - done);
    std::memcpy(out + done * width, out, n * width);
    done += n;
  }
}

void ClearPackedStorage(Tensor& tensor) {
  if (IsSubByte(tensor.Type()) && tensor.SizeInBytes() > 0)
    std::memset(tensor.MutableRawData(), 0, tensor.SizeInBytes());
}

}  // namespace prism::cpu
