// PNG through libpng, shaped as Pillow gives it to ImageDecoder: palettes expanded to RGB, gray
// of 1, 2 or 4 bits scaled to 8, 16-bit samples cut to their high byte, alpha (and tRNS)
// dropped, no gamma or background applied. libpng's errors longjmp back to the one frame below
// that holds no C++ object with a destructor.
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <new>

#include <png.h>

#include "providers/cpu/image/image_codecs.h"

namespace prism::cpu::image {
namespace {

// Everything the longjmp path touches lives here, in the caller's frame.
struct PngSession {
  const uint8_t* data;
  size_t size;
  size_t position;
  png_structp reader;
  png_infop info;
  char message[256];
};

[[noreturn]] void OnPngError(png_structp reader, png_const_charp message) {
  auto* session = static_cast<PngSession*>(png_get_error_ptr(reader));
  std::snprintf(session->message, sizeof(session->message), "%s", message);
  png_longjmp(reader, 1);
}

void OnPngWarning(png_structp, png_const_charp) {}

void ReadFromMemory(png_structp reader, png_bytep out, size_t count) {
  auto* session = static_cast<PngSession*>(png_get_io_ptr(reader));
  if (count > session->size - session->position) png_error(reader, "the data is truncated");
  std::memcpy(out, session->data + session->position, count);
  session->position += count;
}

// Fails with a longjmp-free status: the allocation may throw, and an exception must not cross
// libpng's frames, so it is caught here.
const char* TryAllocate(DecodedImage* image, int64_t height, int64_t width, int channels) {
  try {
    AllocatePixels(*image, height, width, channels);
  } catch (const ImageCodecError&) {
    return "the image is empty or larger than 2^28 pixels";
  } catch (const std::bad_alloc&) {
    return "out of memory for the pixels";
  }
  return nullptr;
}

// Returns true on success; on failure session->message says why. Only trivially destructible
// locals here: libpng's errors longjmp into this frame.
bool RunPngDecoder(DecodedImage* image, PngSession* session) {
  session->reader =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, session, OnPngError, OnPngWarning);
  if (session->reader == nullptr) {
    std::snprintf(session->message, sizeof(session->message), "libpng could not start");
    return false;
  }
  session->info = png_create_info_struct(session->reader);
  if (session->info == nullptr) {
    png_destroy_read_struct(&session->reader, nullptr, nullptr);
    std::snprintf(session->message, sizeof(session->message), "libpng could not start");
    return false;
  }
  if (setjmp(png_jmpbuf(session->reader)) != 0) {
    png_destroy_read_struct(&session->reader, &session->info, nullptr);
    return false;
  }
  png_set_read_fn(session->reader, session, ReadFromMemory);
  png_read_info(session->reader, session->info);
  png_set_strip_16(session->reader);
  png_set_palette_to_rgb(session->reader);
  png_set_expand_gray_1_2_4_to_8(session->reader);
  png_set_strip_alpha(session->reader);
  const int passes = png_set_interlace_handling(session->reader);
  png_read_update_info(session->reader, session->info);
  const int channels = png_get_channels(session->reader, session->info);
  const int64_t width = png_get_image_width(session->reader, session->info);
  const int64_t height = png_get_image_height(session->reader, session->info);
  if (channels != 1 && channels != 3) png_error(session->reader, "unexpected channel count");
  const char* allocation_error = TryAllocate(image, height, width, channels);
  if (allocation_error != nullptr) png_error(session->reader, allocation_error);
  if (png_get_rowbytes(session->reader, session->info) !=
      static_cast<size_t>(width) * static_cast<size_t>(channels))
    png_error(session->reader, "unexpected row size after the transforms");
  // Every pass of an interlaced image is read into the same rows, which libpng completes.
  const size_t stride = static_cast<size_t>(width) * static_cast<size_t>(channels);
  for (int pass = 0; pass < passes; ++pass)
    for (int64_t y = 0; y < height; ++y)
      png_read_row(session->reader, image->pixels.data() + static_cast<size_t>(y) * stride,
                   nullptr);
  png_read_end(session->reader, nullptr);
  png_destroy_read_struct(&session->reader, &session->info, nullptr);
  return true;
}

}  // namespace

DecodedImage DecodePng(const uint8_t* data, size_t size) {
  DecodedImage image;
  PngSession session;
  std::memset(&session, 0, sizeof(session));
  session.data = data;
  session.size = size;
  if (!RunPngDecoder(&image, &session)) throw ImageCodecError(session.message);
  return image;
}

}  // namespace prism::cpu::image
