// BMP, read as Pillow reads it: the OS/2 core header (12 bytes) and the Windows info headers
// (40 to 124 bytes); 1-, 4- and 8-bit palettes, 16-bit 5-5-5, 24-bit BGR, 32-bit BGRX, and
// 16/32-bit bit fields (a field of n bits is scaled by 255 / (2^n - 1), rounding down, as
// Pillow's unpackers), RLE8 and RLE4; rows bottom-up unless the height is negative; alpha
// dropped. Embedded JPEG and PNG payloads are refused by name.
#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "providers/cpu/image/image_codecs.h"

namespace prism::cpu::image {
namespace {

class BmpReader {
 public:
  BmpReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint32_t U16(size_t at) const {
    Need(at, 2);
    return static_cast<uint32_t>(data_[at] | data_[at + 1] << 8);
  }
  uint32_t U32(size_t at) const {
    Need(at, 4);
    return static_cast<uint32_t>(data_[at]) | static_cast<uint32_t>(data_[at + 1]) << 8 |
           static_cast<uint32_t>(data_[at + 2]) << 16 | static_cast<uint32_t>(data_[at + 3]) << 24;
  }
  const uint8_t* Bytes(size_t at, size_t count) const {
    Need(at, count);
    return data_ + at;
  }

 private:
  void Need(size_t at, size_t count) const {
    if (at > size_ || count > size_ - at)
      throw ImageCodecError("the data is truncated (needs " + std::to_string(at + count) +
                            " bytes, has " + std::to_string(size_) + ")");
  }
  const uint8_t* data_;
  size_t size_;
};

// One colour channel held in a bit field of a 16- or 32-bit pixel.
struct BitField {
  uint32_t mask = 0;
  int shift = 0;
  uint32_t max = 0;  // the field's largest value, 2^bits - 1

  static BitField Of(uint32_t mask) {
    BitField field;
    field.mask = mask;
    if (mask == 0) return field;
    field.shift = std::countr_zero(mask);
    field.max = mask >> field.shift;
    if ((field.max & (field.max + 1)) != 0)
      throw ImageCodecError("unsupported variant: bit field mask " + std::to_string(mask) +
                            " is not contiguous");
    return field;
  }
  uint8_t Extract(uint32_t pixel) const {
    if (max == 0) return 0;
    const uint32_t value = (pixel & mask) >> shift;
    return static_cast<uint8_t>(max == 255 ? value : value * 255 / max);
  }
};

// RLE8 and RLE4 as Pillow expands them: pairs (count, index) repeat an index (RLE4: two
// alternating nibbles), clipped at the row's end; (0, 0) ends a row, padding it with index 0;
// (0, 1) ends the bitmap; (0, 2, dx, dy) skips dx + dy * width pixels (index 0); (0, n) copies n
// literal indices, which may run into the next row, then aligns to an even file offset. Data
// that ends before the image is full is refused, as Pillow refuses it.
std::vector<uint8_t> ExpandRunLength(const uint8_t* data, size_t size, size_t position,
                                     int64_t width, int64_t height, bool rle4) {
  const size_t row = static_cast<size_t>(width);
  const size_t total = row * static_cast<size_t>(height);
  std::vector<uint8_t> indices;
  indices.reserve(total);
  size_t x = 0;
  while (indices.size() < total && position + 2 <= size) {
    const size_t count = data[position];
    const uint8_t value = data[position + 1];
    position += 2;
    if (count > 0) {  // a run
      const size_t n = x + count > row ? (x < row ? row - x : 0) : count;
      for (size_t i = 0; i < n; ++i)
        indices.push_back(rle4 ? (i % 2 == 0 ? value >> 4 : value & 15) : value);
      x += n;
    } else if (value == 0) {  // end of row
      while (indices.size() % row != 0) indices.push_back(0);
      x = 0;
    } else if (value == 1) {  // end of bitmap
      break;
    } else if (value == 2) {  // delta
      if (position + 2 > size) break;
      const size_t skip = data[position] + static_cast<size_t>(data[position + 1]) * row;
      position += 2;
      indices.resize(indices.size() + std::min(skip, total - indices.size()), 0);
      x = indices.size() % row;
    } else {  // literal indices
      const size_t n = std::min<size_t>(value, total - indices.size());
      const size_t bytes = rle4 ? (n + 1) / 2 : n;
      if (bytes > size - position) break;
      for (size_t i = 0; i < n; ++i)
        indices.push_back(
            rle4 ? (i % 2 == 0 ? data[position + i / 2] >> 4 : data[position + i / 2] & 15)
                 : data[position + i]);
      position += bytes;
      if (indices.size() == total) break;
      x += value;
      if (position % 2 != 0) ++position;
    }
  }
  if (indices.size() < total)
    throw ImageCodecError("the run-length data ends after " + std::to_string(indices.size()) +
                          " of " + std::to_string(total) + " pixels");
  return indices;
}

constexpr uint32_t kRgb = 0, kRle8 = 1, kRle4 = 2, kBitFields = 3, kJpeg = 4, kPng = 5,
                   kAlphaBitFields = 6;

}  // namespace

DecodedImage DecodeBmp(const uint8_t* data, size_t size) {
  const BmpReader in(data, size);
  if (in.U16(0) != 0x4D42) throw ImageCodecError("no BM signature");
  const size_t pixel_offset = in.U32(10);
  const size_t header_size = in.U32(14);
  int64_t width = 0, height = 0;
  uint32_t bits = 0, compression = kRgb, colors_used = 0;
  size_t palette_entry = 4;
  if (header_size == 12) {  // OS/2 core header: 16-bit sizes, 3-byte palette entries
    width = in.U16(18);
    height = static_cast<int16_t>(in.U16(20));
    bits = in.U16(24);
    palette_entry = 3;
  } else if (header_size >= 40 && header_size <= 124) {
    width = static_cast<int32_t>(in.U32(18));
    height = static_cast<int32_t>(in.U32(22));
    bits = in.U16(28);
    compression = in.U32(30);
    colors_used = in.U32(46);
  } else {
    throw ImageCodecError("unsupported variant: a " + std::to_string(header_size) +
                          "-byte info header");
  }
  const bool run_length = compression == kRle8 || compression == kRle4;
  if (run_length && bits != (compression == kRle8 ? 8u : 4u))
    throw ImageCodecError("RLE" + std::string(compression == kRle8 ? "8" : "4") + " with " +
                          std::to_string(bits) + " bits per pixel");
  if (compression == kJpeg || compression == kPng)
    throw ImageCodecError("unsupported variant: an embedded JPEG or PNG payload");
  if (!run_length && compression != kRgb && compression != kBitFields &&
      compression != kAlphaBitFields)
    throw ImageCodecError("unsupported variant: compression " + std::to_string(compression));
  const bool top_down = height < 0;
  if (top_down) height = -height;
  if (width <= 0) throw ImageCodecError("the width is " + std::to_string(width));

  // Masks: inside headers of 52 bytes and more, else right after a 40-byte header.
  BitField red, green, blue;
  size_t palette_at = 14 + header_size;
  if (compression == kBitFields || compression == kAlphaBitFields) {
    if (bits != 16 && bits != 32)
      throw ImageCodecError("bit fields with " + std::to_string(bits) + " bits per pixel");
    const size_t masks_at = 14 + 40;
    red = BitField::Of(in.U32(masks_at));
    green = BitField::Of(in.U32(masks_at + 4));
    blue = BitField::Of(in.U32(masks_at + 8));
    if (header_size == 40) palette_at += compression == kAlphaBitFields ? 16 : 12;
  } else if (bits == 16) {  // BI_RGB 16-bit is 5-5-5
    red = BitField::Of(0x7C00);
    green = BitField::Of(0x03E0);
    blue = BitField::Of(0x001F);
  } else if (bits == 32) {
    red = BitField::Of(0xFF0000);
    green = BitField::Of(0xFF00);
    blue = BitField::Of(0xFF);
  }

  std::vector<uint8_t> palette;  // RGB triples
  if (bits == 1 || bits == 4 || bits == 8) {
    const uint32_t full = 1u << bits;
    const uint32_t count = colors_used == 0 || colors_used > full ? full : colors_used;
    const uint8_t* entries = in.Bytes(palette_at, count * palette_entry);
    for (uint32_t i = 0; i < count; ++i) {
      const uint8_t* bgr = entries + i * palette_entry;
      palette.insert(palette.end(), {bgr[2], bgr[1], bgr[0]});
    }
  } else if (bits != 16 && bits != 24 && bits != 32) {
    throw ImageCodecError("unsupported variant: " + std::to_string(bits) + " bits per pixel");
  }

  DecodedImage image;
  AllocatePixels(image, height, width, 3);
  // Run-length data is expanded to one index byte a pixel first, rows still in file order.
  std::vector<uint8_t> expanded;
  if (run_length) {
    expanded = ExpandRunLength(data, size, pixel_offset, width, height, compression == kRle4);
    bits = 8;
  }
  const size_t row_bytes =
      run_length ? static_cast<size_t>(width) : (static_cast<size_t>(width) * bits + 31) / 32 * 4;
  const uint8_t* rows = run_length
                            ? expanded.data()
                            : in.Bytes(pixel_offset, row_bytes * static_cast<size_t>(height));
  const size_t colors = palette.size() / 3;
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t* row = rows + row_bytes * static_cast<size_t>(top_down ? y : height - 1 - y);
    uint8_t* out = image.pixels.data() + static_cast<size_t>(y * width * 3);
    for (int64_t x = 0; x < width; ++x, out += 3) {
      if (bits <= 8) {
        const size_t bit = static_cast<size_t>(x) * bits;
        const uint32_t index = (row[bit / 8] >> (8 - bits - bit % 8)) & ((1u << bits) - 1);
        if (index >= colors)
          throw ImageCodecError("palette index " + std::to_string(index) + " beyond the " +
                                std::to_string(colors) + " colours");
        out[0] = palette[3 * index];
        out[1] = palette[3 * index + 1];
        out[2] = palette[3 * index + 2];
      } else if (bits == 24) {
        out[0] = row[3 * x + 2];
        out[1] = row[3 * x + 1];
        out[2] = row[3 * x];
      } else {
        const uint8_t* p = row + x * (bits / 8);
        const uint32_t pixel = bits == 16 ? static_cast<uint32_t>(p[0] | p[1] << 8)
                                          : static_cast<uint32_t>(p[0]) | p[1] << 8 | p[2] << 16 |
                                                static_cast<uint32_t>(p[3]) << 24;
        out[0] = red.Extract(pixel);
        out[1] = green.Extract(pixel);
        out[2] = blue.Extract(pixel);
      }
    }
  }
  return image;
}

}  // namespace prism::cpu::image
