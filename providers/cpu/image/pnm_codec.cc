// Netpbm P1 to P6, read as Pillow reads them: '#' comments to the end of the line between header
// tokens, one whitespace byte between the header and binary data, bitmaps with 1 = black, and
// samples scaled by 255 / maxval rounded half to even (Python's round), maxval up to 65535 (two
// big-endian bytes per binary sample above 255). Pillow keeps gray above 255 as 32-bit integers
// and clips them when converting to 8 bits; here they are scaled like RGB. PAM (P7) and PFM
// (Pf) are refused.
#include <algorithm>
#include <cmath>
#include <string>

#include "providers/cpu/image/image_codecs.h"

namespace prism::cpu::image {
namespace {

bool IsSpace(uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

class PnmReader {
 public:
  PnmReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  // The next header or plain-data token; consumes the one whitespace byte that ends it.
  std::string Token(const char* what) {
    std::string token;
    while (position_ < size_) {
      const uint8_t c = data_[position_++];
      if (c == '#') {
        while (position_ < size_ && data_[position_] != '\n' && data_[position_] != '\r')
          ++position_;
      } else if (IsSpace(c)) {
        if (!token.empty()) break;
      } else {
        token.push_back(static_cast<char>(c));
        if (token.size() > 10) throw ImageCodecError(std::string("the ") + what + " is too long");
      }
    }
    if (token.empty()) throw ImageCodecError(std::string("the data ends before the ") + what);
    return token;
  }

  int64_t Number(const char* what, int64_t low, int64_t high) {
    const std::string token = Token(what);
    int64_t value = 0;
    for (char c : token) {
      if (c < '0' || c > '9')
        throw ImageCodecError(std::string("the ") + what + " '" + token + "' is not a number");
      value = value * 10 + (c - '0');
    }
    if (value < low || value > high)
      throw ImageCodecError(std::string("the ") + what + " " + std::to_string(value) +
                            " is outside [" + std::to_string(low) + ", " + std::to_string(high) +
                            "]");
    return value;
  }

  // The next plain bitmap digit: whitespace between them is optional.
  uint8_t Bit() {
    while (position_ < size_) {
      const uint8_t c = data_[position_++];
      if (c == '#') {
        while (position_ < size_ && data_[position_] != '\n' && data_[position_] != '\r')
          ++position_;
      } else if (c == '0' || c == '1') {
        return c == '1' ? 0 : 255;  // 1 is black
      } else if (!IsSpace(c)) {
        throw ImageCodecError("bitmap data holds '" + std::string(1, static_cast<char>(c)) + "'");
      }
    }
    throw ImageCodecError("the data is truncated");
  }

  const uint8_t* Binary(size_t count) {
    if (count > size_ - position_)
      throw ImageCodecError("the data is truncated (needs " + std::to_string(count) +
                            " bytes of pixels, has " + std::to_string(size_ - position_) + ")");
    const uint8_t* at = data_ + position_;
    position_ += count;
    return at;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

uint8_t Scale(int64_t value, int64_t maxval) {
  if (maxval == 255) return static_cast<uint8_t>(value);
  const double scaled =
      std::nearbyint(static_cast<double>(value) / static_cast<double>(maxval) * 255.0);
  return static_cast<uint8_t>(std::min(scaled, 255.0));
}

}  // namespace

DecodedImage DecodePnm(const uint8_t* data, size_t size) {
  if (size < 3 || data[0] != 'P' || data[1] < '1' || data[1] > '6' || !IsSpace(data[2]))
    throw ImageCodecError("unsupported variant: only P1 to P6 are read");
  const int kind = data[1] - '0';
  PnmReader in(data + 3, size - 3);
  const int64_t width = in.Number("width", 1, kMaxImagePixels);
  const int64_t height = in.Number("height", 1, kMaxImagePixels);
  const bool bitmap = kind == 1 || kind == 4;
  const int64_t maxval = bitmap ? 1 : in.Number("maxval", 1, 65535);
  const int channels = kind == 3 || kind == 6 ? 3 : 1;
  DecodedImage image;
  AllocatePixels(image, height, width, channels);
  const size_t samples = image.pixels.size();
  if (kind == 1) {
    for (size_t i = 0; i < samples; ++i) image.pixels[i] = in.Bit();
  } else if (kind == 4) {  // rows of packed bits, each row padded to a byte
    const size_t row_bytes = (static_cast<size_t>(width) + 7) / 8;
    const uint8_t* bits = in.Binary(row_bytes * static_cast<size_t>(height));
    for (int64_t y = 0; y < height; ++y)
      for (int64_t x = 0; x < width; ++x) {
        const uint8_t byte = bits[static_cast<size_t>(y) * row_bytes + static_cast<size_t>(x / 8)];
        image.pixels[static_cast<size_t>(y * width + x)] = (byte >> (7 - x % 8)) & 1 ? 0 : 255;
      }
  } else if (kind == 2 || kind == 3) {
    for (size_t i = 0; i < samples; ++i)
      image.pixels[i] = Scale(in.Number("sample", 0, maxval), maxval);
  } else {
    const size_t bytes = maxval > 255 ? 2 : 1;
    const uint8_t* raw = in.Binary(samples * bytes);
    for (size_t i = 0; i < samples; ++i) {
      const int64_t value = bytes == 1 ? raw[i] : raw[2 * i] << 8 | raw[2 * i + 1];
      image.pixels[i] = Scale(std::min(value, maxval), maxval);
    }
  }
  return image;
}

}  // namespace prism::cpu::image
