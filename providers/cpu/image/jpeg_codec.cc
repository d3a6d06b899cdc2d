// JPEG through libjpeg-turbo with its default (accurate integer) IDCT and fancy upsampling, as
// Pillow decodes it: gray files stay gray, YCbCr and RGB files become RGB, CMYK and YCCK files
// become RGB through Pillow's inverted-CMYK conversion. libjpeg reports errors by calling
// error_exit, which must not return: ours longjmps back to the one frame below that holds no C++
// object with a destructor.
#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include <jerror.h>
#include <jpeglib.h>

#include "providers/cpu/image/image_codecs.h"

namespace prism::cpu::image {
namespace {

// Everything the longjmp path touches lives here, in the caller's frame, so nothing in the
// frame that calls setjmp changes between setjmp and longjmp.
struct JpegSession {
  jpeg_decompress_struct decoder;
  jpeg_error_mgr errors;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  const char* refusal;  // our own reason to stop (unsupported variant, allocation), or null
};

JpegSession* SessionOf(j_common_ptr decoder) {
  return static_cast<JpegSession*>(decoder->client_data);
}

[[noreturn]] void OnJpegError(j_common_ptr decoder) {
  JpegSession* session = SessionOf(decoder);
  (*decoder->err->format_message)(decoder, session->message);
  std::longjmp(session->jump, 1);
}

// Warnings are silent, except the end of the data arriving before the image does: libjpeg
// would fill the rest with gray, and Pillow refuses such a file as truncated.
void OnJpegMessage(j_common_ptr decoder, int level) {
  if (level < 0 && decoder->err->msg_code == JWRN_JPEG_EOF) OnJpegError(decoder);
}

void SilenceJpegOutput(j_common_ptr) {}

// a * b / 255, rounded, in integers (Pillow's MULDIV255).
int MulDiv255(int a, int b) {
  const int t = a * b + 128;
  return (t + (t >> 8)) >> 8;
}

// Pillow reads every 4-channel JPEG as Adobe's inverted CMYK ("CMYK;I") and converts it to RGB
// as R = (255 - K) - C (255 - K) / 255 (and G, B from M, Y), which this reproduces exactly.
void CmykRowToRgb(const uint8_t* in, uint8_t* out, int64_t width) {
  for (int64_t x = 0; x < width; ++x, in += 4, out += 3) {
    const int not_k = in[3];  // stored inverted: 255 - K
    for (int c = 0; c < 3; ++c)
      out[c] = static_cast<uint8_t>(std::clamp(not_k - MulDiv255(255 - in[c], not_k), 0, 255));
  }
}

// Returns true on success; on failure session->message or session->refusal says why. Only
// trivially destructible locals here: error_exit longjmps into this frame.
bool RunJpegDecoder(const uint8_t* data, size_t size, DecodedImage* image, JpegSession* session) {
  session->decoder.client_data = session;  // kept by jpeg_create_decompress
  session->decoder.err = jpeg_std_error(&session->errors);
  session->errors.error_exit = OnJpegError;
  session->errors.emit_message = OnJpegMessage;
  session->errors.output_message = SilenceJpegOutput;
  session->message[0] = '\0';
  session->refusal = nullptr;
  if (setjmp(session->jump) != 0) {
    jpeg_destroy_decompress(&session->decoder);
    return false;
  }
  jpeg_create_decompress(&session->decoder);
  jpeg_mem_src(&session->decoder, data, static_cast<unsigned long>(size));
  jpeg_read_header(&session->decoder, TRUE);
  switch (session->decoder.jpeg_color_space) {
    case JCS_GRAYSCALE:
      session->decoder.out_color_space = JCS_GRAYSCALE;
      break;
    case JCS_YCbCr:
    case JCS_RGB:
      session->decoder.out_color_space = JCS_RGB;
      break;
    case JCS_CMYK:
    case JCS_YCCK:  // libjpeg turns YCCK into CMYK
      session->decoder.out_color_space = JCS_CMYK;
      break;
    default:
      session->refusal = "unsupported variant: an unknown JPEG colour space";
      jpeg_destroy_decompress(&session->decoder);
      return false;
  }
  jpeg_start_decompress(&session->decoder);
  const bool cmyk = session->decoder.out_color_space == JCS_CMYK;
  const int channels = cmyk ? 3 : session->decoder.output_components;
  const int64_t width = session->decoder.output_width;
  const int64_t height = session->decoder.output_height;
  const char* allocation_error = nullptr;
  try {
    AllocatePixels(*image, height, width, channels);
  } catch (const ImageCodecError&) {
    allocation_error = "the image is larger than 2^28 pixels";
  } catch (const std::bad_alloc&) {
    allocation_error = "out of memory for the pixels";
  }
  if (allocation_error != nullptr) {
    session->refusal = allocation_error;
    jpeg_destroy_decompress(&session->decoder);
    return false;
  }
  const size_t stride = static_cast<size_t>(width) * static_cast<size_t>(channels);
  // CMYK rows go through a row that libjpeg's own pool owns (freed with the decoder).
  JSAMPARRAY cmyk_row = cmyk ? (*session->decoder.mem->alloc_sarray)(
                                   reinterpret_cast<j_common_ptr>(&session->decoder), JPOOL_IMAGE,
                                   static_cast<JDIMENSION>(width * 4), 1)
                             : nullptr;
  while (session->decoder.output_scanline < session->decoder.output_height) {
    const size_t y = session->decoder.output_scanline;
    JSAMPROW row = cmyk ? cmyk_row[0] : image->pixels.data() + y * stride;
    jpeg_read_scanlines(&session->decoder, &row, 1);
    if (cmyk) CmykRowToRgb(cmyk_row[0], image->pixels.data() + y * stride, width);
  }
  jpeg_finish_decompress(&session->decoder);
  jpeg_destroy_decompress(&session->decoder);
  return true;
}

}  // namespace

DecodedImage DecodeJpeg(const uint8_t* data, size_t size) {
  DecodedImage image;
  JpegSession session;
  std::memset(&session, 0, sizeof(session));
  if (!RunJpegDecoder(data, size, &image, &session))
    throw ImageCodecError(session.refusal != nullptr ? session.refusal : session.message);
  return image;
}

}  // namespace prism::cpu::image
