// JPEG 2000 (JP2 files and raw J2K codestreams) through OpenJPEG in strict mode, so a truncated
// codestream fails instead of decoding partly. Components are taken as Pillow takes them: 1 gray,
// 2 gray and alpha, 3 RGB, 4 RGBA (alpha dropped); unsigned samples of any precision up to 16
// are shifted to 8 bits, signed ones offset by half their range first. Subsampled components
// and YCC or CMYK colour spaces are refused.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include <openjpeg.h>

#include "providers/cpu/image/image_codecs.h"

namespace prism::cpu::image {
namespace {

struct J2kMemory {
  const uint8_t* data;
  size_t size;
  size_t position;
  std::string error;
};

OPJ_SIZE_T ReadJ2k(void* out, OPJ_SIZE_T count, void* user) {
  auto* memory = static_cast<J2kMemory*>(user);
  const size_t available = memory->size - memory->position;
  if (available == 0) return static_cast<OPJ_SIZE_T>(-1);
  const size_t n = std::min(static_cast<size_t>(count), available);
  std::memcpy(out, memory->data + memory->position, n);
  memory->position += n;
  return n;
}

OPJ_OFF_T SkipJ2k(OPJ_OFF_T count, void* user) {
  auto* memory = static_cast<J2kMemory*>(user);
  if (count < 0) {
    const size_t back = std::min(static_cast<size_t>(-count), memory->position);
    memory->position -= back;
    return -static_cast<OPJ_OFF_T>(back);
  }
  const size_t n = std::min(static_cast<size_t>(count), memory->size - memory->position);
  memory->position += n;
  return static_cast<OPJ_OFF_T>(n);
}

OPJ_BOOL SeekJ2k(OPJ_OFF_T offset, void* user) {
  auto* memory = static_cast<J2kMemory*>(user);
  if (offset < 0 || static_cast<uint64_t>(offset) > memory->size) return OPJ_FALSE;
  memory->position = static_cast<size_t>(offset);
  return OPJ_TRUE;
}

void OnJ2kError(const char* message, void* user) {
  auto* memory = static_cast<J2kMemory*>(user);
  if (!memory->error.empty()) return;
  memory->error = message;
  while (!memory->error.empty() && memory->error.back() == '\n') memory->error.pop_back();
}

void Ignore(const char*, void*) {}

struct CodecDeleter {
  void operator()(opj_codec_t* codec) const { opj_destroy_codec(codec); }
};
struct StreamDeleter {
  void operator()(opj_stream_t* stream) const { opj_stream_destroy(stream); }
};
struct ImageDeleter {
  void operator()(opj_image_t* image) const { opj_image_destroy(image); }
};

bool IsJp2File(const uint8_t* data, size_t size) {
  static const uint8_t kJp2Signature[] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 13, 10, 0x87, 10};
  return size >= sizeof(kJp2Signature) && std::memcmp(data, kJp2Signature, 12) == 0;
}

[[noreturn]] void Fail(const J2kMemory& memory, const std::string& what) {
  throw ImageCodecError(memory.error.empty() ? what : what + " (" + memory.error + ")");
}

}  // namespace

DecodedImage DecodeJpeg2000(const uint8_t* data, size_t size) {
  J2kMemory memory{data, size, 0, {}};
  std::unique_ptr<opj_codec_t, CodecDeleter> codec(
      opj_create_decompress(IsJp2File(data, size) ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K));
  if (!codec) throw ImageCodecError("OpenJPEG could not start");
  opj_set_error_handler(codec.get(), OnJ2kError, &memory);
  opj_set_warning_handler(codec.get(), Ignore, nullptr);
  opj_set_info_handler(codec.get(), Ignore, nullptr);
  opj_dparameters_t parameters;
  opj_set_default_decoder_parameters(&parameters);
  if (!opj_setup_decoder(codec.get(), &parameters) ||
      !opj_decoder_set_strict_mode(codec.get(), OPJ_TRUE))
    Fail(memory, "OpenJPEG could not start");

  std::unique_ptr<opj_stream_t, StreamDeleter> stream(
      opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE));
  if (!stream) throw ImageCodecError("OpenJPEG could not start");
  opj_stream_set_user_data(stream.get(), &memory, nullptr);
  opj_stream_set_user_data_length(stream.get(), size);
  opj_stream_set_read_function(stream.get(), ReadJ2k);
  opj_stream_set_skip_function(stream.get(), SkipJ2k);
  opj_stream_set_seek_function(stream.get(), SeekJ2k);

  opj_image_t* raw_image = nullptr;
  const bool header_ok = opj_read_header(stream.get(), codec.get(), &raw_image);
  std::unique_ptr<opj_image_t, ImageDeleter> decoded(raw_image);
  if (!header_ok || !decoded) Fail(memory, "cannot read the header");
  // OpenJPEG allocates the whole image while decoding: bound it first.
  const int64_t width = static_cast<int64_t>(decoded->x1) - decoded->x0;
  const int64_t height = static_cast<int64_t>(decoded->y1) - decoded->y0;
  if (width <= 0 || height <= 0 || height > kMaxImagePixels / width)
    throw ImageCodecError("the image is " + std::to_string(width) + " x " + std::to_string(height) +
                          " pixels, empty or more than 2^28");
  if (!opj_decode(codec.get(), stream.get(), decoded.get()) ||
      !opj_end_decompress(codec.get(), stream.get()))
    Fail(memory, "cannot decode the codestream");

  const uint32_t components = decoded->numcomps;
  if (components < 1 || components > 4)
    throw ImageCodecError("unsupported variant: " + std::to_string(components) + " components");
  if (decoded->color_space == OPJ_CLRSPC_SYCC || decoded->color_space == OPJ_CLRSPC_EYCC ||
      decoded->color_space == OPJ_CLRSPC_CMYK)
    throw ImageCodecError("unsupported variant: YCC or CMYK colour space");
  const opj_image_comp_t& first = decoded->comps[0];
  const int channels = components <= 2 ? 1 : 3;
  for (int c = 0; c < channels; ++c) {
    const opj_image_comp_t& comp = decoded->comps[c];
    if (comp.dx != 1 || comp.dy != 1 || comp.w != first.w || comp.h != first.h)
      throw ImageCodecError("unsupported variant: subsampled components");
    if (comp.prec < 1 || comp.prec > 16 || comp.data == nullptr)
      throw ImageCodecError("unsupported variant: " + std::to_string(comp.prec) + "-bit samples");
  }
  DecodedImage image;
  AllocatePixels(image, first.h, first.w, channels);
  const size_t pixels = static_cast<size_t>(image.height * image.width);
  for (int c = 0; c < channels; ++c) {
    const opj_image_comp_t& comp = decoded->comps[c];
    const int shift = static_cast<int>(comp.prec) - 8;
    const int32_t offset = comp.sgnd ? (int32_t{1} << (comp.prec - 1)) : 0;
    for (size_t i = 0; i < pixels; ++i) {
      const int32_t value = comp.data[i] + offset;
      const int32_t scaled = shift >= 0 ? value >> shift : value << -shift;
      image.pixels[i * channels + c] = static_cast<uint8_t>(std::clamp(scaled, 0, 255));
    }
  }
  return image;
}

}  // namespace prism::cpu::image
