// WebP (lossy and lossless) through libwebp, decoded as Pillow does: RGBA when the file has
// alpha, then the alpha dropped (colours are not premultiplied), RGB otherwise. Animated files
// are refused (Pillow would give the first frame composed on its canvas).
#include <string>
#include <vector>

#include <webp/decode.h>

#include "providers/cpu/image/image_codecs.h"

namespace prism::cpu::image {
namespace {

const char* StatusName(VP8StatusCode status) {
  switch (status) {
    case VP8_STATUS_OUT_OF_MEMORY:
      return "out of memory";
    case VP8_STATUS_INVALID_PARAM:
      return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR:
      return "corrupt bitstream";
    case VP8_STATUS_UNSUPPORTED_FEATURE:
      return "unsupported feature";
    case VP8_STATUS_SUSPENDED:
      return "the data is truncated (decoding suspended)";
    case VP8_STATUS_USER_ABORT:
      return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA:
      return "the data is truncated";
    default:
      return "unknown error";
  }
}

}  // namespace

DecodedImage DecodeWebp(const uint8_t* data, size_t size) {
  WebPBitstreamFeatures features;
  const VP8StatusCode header = WebPGetFeatures(data, size, &features);
  if (header != VP8_STATUS_OK)
    throw ImageCodecError(std::string("cannot read the header: ") + StatusName(header));
  if (features.has_animation) throw ImageCodecError("unsupported variant: animated WebP");
  DecodedImage image;
  AllocatePixels(image, features.height, features.width, 3);
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) throw ImageCodecError("libwebp version mismatch");
  std::vector<uint8_t> rgba;
  config.output.is_external_memory = 1;
  if (features.has_alpha) {
    rgba.resize(image.pixels.size() / 3 * 4);
    config.output.colorspace = MODE_RGBA;
    config.output.u.RGBA.rgba = rgba.data();
    config.output.u.RGBA.stride = static_cast<int>(image.width * 4);
    config.output.u.RGBA.size = rgba.size();
  } else {
    config.output.colorspace = MODE_RGB;
    config.output.u.RGBA.rgba = image.pixels.data();
    config.output.u.RGBA.stride = static_cast<int>(image.width * 3);
    config.output.u.RGBA.size = image.pixels.size();
  }
  const VP8StatusCode status = WebPDecode(data, size, &config);
  WebPFreeDecBuffer(&config.output);  // external memory: frees nothing of ours
  if (status != VP8_STATUS_OK) throw ImageCodecError(StatusName(status));
  if (features.has_alpha)
    for (size_t i = 0, n = image.pixels.size() / 3; i < n; ++i)
      for (size_t c = 0; c < 3; ++c) image.pixels[3 * i + c] = rgba[4 * i + c];
  return image;
}

}  // namespace prism::cpu::image
