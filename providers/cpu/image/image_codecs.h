// The image codecs behind ImageDecoder: one function per format, each turning an encoded byte
// buffer into 8-bit pixels, either gray (1 channel) or RGB (3 channels), row-major. Alpha is
// dropped, palettes are expanded and 16-bit samples keep their high byte, as Pillow (the ONNX
// reference) gives them before ImageDecoder's colour conversion. A codec that cannot decode its
// input throws ImageCodecError with the reason; the kernel adds the node and the format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace prism::cpu::image {

struct DecodedImage {
  int64_t height = 0;
  int64_t width = 0;
  int channels = 0;  // 1: gray, 3: RGB
  std::vector<uint8_t> pixels;
};

class ImageCodecError : public std::runtime_error {
 public:
  explicit ImageCodecError(const std::string& message) : std::runtime_error(message) {}
};

// Limits what a hostile header can make us allocate: 2^28 pixels (16384 x 16384).
inline constexpr int64_t kMaxImagePixels = int64_t{1} << 28;

// Checks the dimensions against kMaxImagePixels and sizes image.pixels for them.
void AllocatePixels(DecodedImage& image, int64_t height, int64_t width, int channels);

DecodedImage DecodeJpeg(const uint8_t* data, size_t size);
DecodedImage DecodePng(const uint8_t* data, size_t size);
DecodedImage DecodeTiff(const uint8_t* data, size_t size);
DecodedImage DecodeWebp(const uint8_t* data, size_t size);
DecodedImage DecodeJpeg2000(const uint8_t* data, size_t size);
DecodedImage DecodeBmp(const uint8_t* data, size_t size);
DecodedImage DecodePnm(const uint8_t* data, size_t size);

}  // namespace prism::cpu::image
