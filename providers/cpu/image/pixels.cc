// Pixel allocation shared by the codecs: one bound on what a header can make us allocate.
#include <string>

#include "providers/cpu/image/image_codecs.h"

namespace prism::cpu::image {

void AllocatePixels(DecodedImage& image, int64_t height, int64_t width, int channels) {
  if (height <= 0 || width <= 0)
    throw ImageCodecError("the image has no pixels (" + std::to_string(width) + " x " +
                          std::to_string(height) + ")");
  if (height > kMaxImagePixels / width)
    throw ImageCodecError("the image is " + std::to_string(width) + " x " + std::to_string(height) +
                          " pixels, more than 2^28");
  image.height = height;
  image.width = width;
  image.channels = channels;
  image.pixels.assign(static_cast<size_t>(height * width * channels), 0);
}

}  // namespace prism::cpu::image
