// TIFF through libtiff, first directory only (as Pillow). Strips of 8- or 16-bit gray or RGB
// samples, interleaved, with any compression but JPEG, are read sample by sample (16-bit samples
// keep their high byte, as Pillow's); other layouts (tiles, planes, palettes, bilevel, YCbCr,
// JPEG) go through libtiff's RGBA reader, which is exact for 8-bit data. Premultiplied alpha,
// and alpha in a layout that the RGBA reader would premultiply, are refused. libtiff reports
// errors through a handler per file (TIFFOpenOptions), which keeps the message here.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <tiffio.h>

#include "providers/cpu/image/image_codecs.h"

namespace prism::cpu::image {
namespace {

struct TiffMemory {
  const uint8_t* data;
  size_t size;
  size_t position;
  std::string error;
};

int OnTiffError(TIFF*, void* user_data, const char* module, const char* format, va_list args) {
  auto* memory = static_cast<TiffMemory*>(user_data);
  char message[512];
  std::vsnprintf(message, sizeof(message), format, args);
  if (memory->error.empty())
    memory->error = std::string(module != nullptr ? module : "libtiff") + ": " + message;
  return 1;  // handled: no process-wide handler prints it
}

int OnTiffWarning(TIFF*, void*, const char*, const char*, va_list) {
  return 1;
}

tmsize_t ReadTiff(thandle_t handle, void* out, tmsize_t count) {
  auto* memory = static_cast<TiffMemory*>(handle);
  if (count < 0) return -1;
  const size_t available = memory->size - memory->position;
  const size_t n = std::min(static_cast<size_t>(count), available);
  std::memcpy(out, memory->data + memory->position, n);
  memory->position += n;
  return static_cast<tmsize_t>(n);
}

tmsize_t WriteTiff(thandle_t, void*, tmsize_t) {
  return -1;
}

toff_t SeekTiff(thandle_t handle, toff_t offset, int whence) {
  auto* memory = static_cast<TiffMemory*>(handle);
  uint64_t base = 0;
  if (whence == SEEK_CUR) base = memory->position;
  if (whence == SEEK_END) base = memory->size;
  const uint64_t target = base + offset;
  if (target > memory->size) return static_cast<toff_t>(-1);
  memory->position = static_cast<size_t>(target);
  return target;
}

int CloseTiff(thandle_t) {
  return 0;
}
toff_t SizeTiff(thandle_t handle) {
  return static_cast<TiffMemory*>(handle)->size;
}
int MapTiff(thandle_t handle, void** base, toff_t* size) {
  auto* memory = static_cast<TiffMemory*>(handle);
  *base = const_cast<uint8_t*>(memory->data);  // libtiff only reads through the mapping
  *size = memory->size;
  return 1;
}
void UnmapTiff(thandle_t, void*, toff_t) {}

// Closes the file on every path out of DecodeTiff.
struct TiffCloser {
  TIFF* tiff;
  ~TiffCloser() { TIFFClose(tiff); }
};

[[noreturn]] void Fail(const TiffMemory& memory, const std::string& what) {
  throw ImageCodecError(memory.error.empty() ? what : what + " (" + memory.error + ")");
}

void ReadStrips(TIFF* tiff, const TiffMemory& memory, DecodedImage& image, int samples, int bits) {
  std::vector<uint8_t> line(static_cast<size_t>(TIFFScanlineSize(tiff)));
  const size_t bytes_per_sample = static_cast<size_t>(bits / 8);
  if (line.size() < static_cast<size_t>(image.width) * samples * bytes_per_sample)
    Fail(memory, "the scanline is shorter than the image width");
  for (int64_t y = 0; y < image.height; ++y) {
    if (TIFFReadScanline(tiff, line.data(), static_cast<uint32_t>(y), 0) < 0)
      Fail(memory, "cannot read row " + std::to_string(y));
    uint8_t* out = image.pixels.data() + static_cast<size_t>(y * image.width * image.channels);
    for (int64_t x = 0; x < image.width; ++x) {
      for (int c = 0; c < image.channels; ++c) {
        const size_t sample = static_cast<size_t>(x * samples + c);
        if (bits == 8) {
          out[x * image.channels + c] = line[sample];
        } else {  // libtiff gives 16-bit samples in host order
          uint16_t value;
          std::memcpy(&value, line.data() + sample * 2, 2);
          out[x * image.channels + c] = static_cast<uint8_t>(value >> 8);
        }
      }
    }
  }
}

void ReadThroughRgba(TIFF* tiff, const TiffMemory& memory, DecodedImage& image) {
  char reason[1024] = "";
  if (!TIFFRGBAImageOK(tiff, reason)) Fail(memory, std::string("unsupported variant: ") + reason);
  std::vector<uint32_t> raster(static_cast<size_t>(image.width * image.height));
  if (!TIFFReadRGBAImageOriented(tiff, static_cast<uint32_t>(image.width),
                                 static_cast<uint32_t>(image.height), raster.data(),
                                 ORIENTATION_TOPLEFT, 1))
    Fail(memory, "cannot read the image");
  for (size_t i = 0; i < raster.size(); ++i) {
    if (image.channels == 1) {
      image.pixels[i] = static_cast<uint8_t>(TIFFGetR(raster[i]));
    } else {
      image.pixels[3 * i] = static_cast<uint8_t>(TIFFGetR(raster[i]));
      image.pixels[3 * i + 1] = static_cast<uint8_t>(TIFFGetG(raster[i]));
      image.pixels[3 * i + 2] = static_cast<uint8_t>(TIFFGetB(raster[i]));
    }
  }
}

}  // namespace

DecodedImage DecodeTiff(const uint8_t* data, size_t size) {
  TiffMemory memory{data, size, 0, {}};
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  if (options == nullptr) throw ImageCodecError("libtiff could not start");
  TIFFOpenOptionsSetErrorHandlerExtR(options, OnTiffError, &memory);
  TIFFOpenOptionsSetWarningHandlerExtR(options, OnTiffWarning, &memory);
  TIFF* tiff = TIFFClientOpenExt("ImageDecoder input", "r", &memory, ReadTiff, WriteTiff, SeekTiff,
                                 CloseTiff, SizeTiff, MapTiff, UnmapTiff, options);
  TIFFOpenOptionsFree(options);
  if (tiff == nullptr) Fail(memory, "not a readable TIFF file");
  TiffCloser closer{tiff};

  uint32_t width = 0, height = 0;
  uint16_t samples = 1, bits = 1, planar = PLANARCONFIG_CONTIG, photometric = 0, compression = 1;
  uint16_t sample_format = SAMPLEFORMAT_UINT, extra_count = 0;
  uint16_t* extra_types = nullptr;
  if (!TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &width) ||
      !TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &height))
    Fail(memory, "the image size is missing");
  TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_COMPRESSION, &compression);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLEFORMAT, &sample_format);
  TIFFGetFieldDefaulted(tiff, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types);
  if (!TIFFGetField(tiff, TIFFTAG_PHOTOMETRIC, &photometric))
    Fail(memory, "the photometric interpretation is missing");
  for (uint16_t i = 0; i < extra_count; ++i)
    if (extra_types != nullptr && extra_types[i] == EXTRASAMPLE_ASSOCALPHA)
      throw ImageCodecError("unsupported variant: premultiplied (associated) alpha");

  const bool gray = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
  DecodedImage image;
  AllocatePixels(image, height, width, gray ? 1 : 3);
  // Signed and floating-point samples go to the RGBA reader, which refuses what it cannot map.
  const bool direct = !TIFFIsTiled(tiff) && planar == PLANARCONFIG_CONTIG &&
                      sample_format == SAMPLEFORMAT_UINT && (bits == 8 || bits == 16) &&
                      compression != COMPRESSION_JPEG && compression != COMPRESSION_OJPEG &&
                      ((photometric == PHOTOMETRIC_MINISBLACK && samples >= 1 && samples <= 2) ||
                       (photometric == PHOTOMETRIC_RGB && samples >= 3 && samples <= 4));
  if (direct) {
    ReadStrips(tiff, memory, image, samples, bits);
  } else {
    if (extra_count > 0)
      throw ImageCodecError(
          "unsupported variant: alpha outside 8- or 16-bit interleaved strips (photometric " +
          std::to_string(photometric) + ", " + std::to_string(bits) + " bits)");
    ReadThroughRgba(tiff, memory, image);
  }
  return image;
}

}  // namespace prism::cpu::image
