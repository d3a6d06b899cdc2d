// ImageDecoder (opset 20): a 1-D uint8 tensor holding one encoded image (JPEG, PNG, TIFF, WebP,
// JPEG 2000, BMP or PNM, told apart by their signatures) to uint8 [H, W, 3] in RGB or BGR order,
// or [H, W, 1] gray. The pixels match the ONNX reference, which decodes with Pillow: colour
// sources with alpha or palettes are reduced to RGB first, gray sources are repeated into the
// three channels, and gray from colour is Pillow's ITU-R 601 luma
// L = (19595 R + 38470 G + 7471 B + 2^15) >> 16.
#include <cstring>
#include <string>

#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/image/image_codecs.h"

namespace prism::cpu {
namespace {

using image::DecodedImage;

enum class PixelFormat { kRgb, kBgr, kGrayscale };

struct Format {
  const char* name;
  DecodedImage (*decode)(const uint8_t* data, size_t size);
};

bool StartsWith(const uint8_t* data, size_t size, const char* signature, size_t length) {
  return size >= length && std::memcmp(data, signature, length) == 0;
}

// The format whose signature starts the data, or null.
const Format* DetectFormat(const uint8_t* data, size_t size) {
  static const Format kJpeg{"JPEG", image::DecodeJpeg};
  static const Format kPng{"PNG", image::DecodePng};
  static const Format kTiff{"TIFF", image::DecodeTiff};
  static const Format kWebp{"WebP", image::DecodeWebp};
  static const Format kJpeg2000{"JPEG 2000", image::DecodeJpeg2000};
  static const Format kBmp{"BMP", image::DecodeBmp};
  static const Format kPnm{"PNM", image::DecodePnm};
  if (StartsWith(data, size, "\xFF\xD8\xFF", 3)) return &kJpeg;
  if (StartsWith(data, size, "\x89PNG\r\n\x1A\n", 8)) return &kPng;
  if (StartsWith(data, size, "II*\0", 4) || StartsWith(data, size, "MM\0*", 4) ||
      StartsWith(data, size, "II+\0", 4) || StartsWith(data, size, "MM\0+", 4))
    return &kTiff;
  if (size >= 12 && StartsWith(data, size, "RIFF", 4) && std::memcmp(data + 8, "WEBP", 4) == 0)
    return &kWebp;
  if (StartsWith(data, size, "\0\0\0\x0CjP  \r\n\x87\n", 12) ||
      StartsWith(data, size, "\xFF\x4F\xFF\x51", 4))
    return &kJpeg2000;
  if (StartsWith(data, size, "BM", 2)) return &kBmp;
  if (size >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '6') return &kPnm;
  return nullptr;
}

PixelFormat ParsePixelFormat(const OpKernelInfo& info) {
  const std::string format = info.StringOr("pixel_format", "RGB");
  if (format == "RGB") return PixelFormat::kRgb;
  if (format == "BGR") return PixelFormat::kBgr;
  if (format == "Grayscale") return PixelFormat::kGrayscale;
  PRISM_THROW(kInvalidArgument, info.GetNode().Describe(), ": attribute pixel_format is '", format,
              "', expected RGB, BGR or Grayscale");
}

uint8_t Luma(const uint8_t* rgb) {
  return static_cast<uint8_t>((rgb[0] * 19595u + rgb[1] * 38470u + rgb[2] * 7471u + 0x8000u) >> 16);
}

// Writes the decoded pixels (gray or RGB) into y in the requested layout.
void Convert(const DecodedImage& decoded, PixelFormat format, uint8_t* out) {
  const size_t pixels = static_cast<size_t>(decoded.height * decoded.width);
  const uint8_t* in = decoded.pixels.data();
  if (format == PixelFormat::kGrayscale) {
    if (decoded.channels == 1) {
      std::memcpy(out, in, pixels);
    } else {
      for (size_t i = 0; i < pixels; ++i) out[i] = Luma(in + 3 * i);
    }
    return;
  }
  const bool swap = format == PixelFormat::kBgr;
  for (size_t i = 0; i < pixels; ++i) {
    if (decoded.channels == 1) {
      out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = in[i];
    } else {
      out[3 * i] = in[3 * i + (swap ? 2 : 0)];
      out[3 * i + 1] = in[3 * i + 1];
      out[3 * i + 2] = in[3 * i + (swap ? 0 : 2)];
    }
  }
}

class ImageDecoder final : public OpKernel {
 public:
  explicit ImageDecoder(const OpKernelInfo& info)
      : OpKernel(info), pixel_format_(ParsePixelFormat(info)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& encoded = context.RequiredInput(0);
    PRISM_ENFORCE(encoded.Shape().Rank() == 1, kInvalidArgument, node.Describe(),
                  ": input encoded_stream must be a 1-D uint8 tensor of encoded bytes, got ",
                  encoded.Describe());
    const auto* data = encoded.Data<uint8_t>();
    const auto size = static_cast<size_t>(encoded.NumElements());
    PRISM_ENFORCE(size > 0, kInvalidArgument, node.Describe(),
                  ": input encoded_stream is empty, expected an encoded image");
    const Format* format = DetectFormat(data, size);
    PRISM_ENFORCE(format != nullptr, kInvalidArgument, node.Describe(),
                  ": input encoded_stream is in an unknown format (expected the signature of "
                  "JPEG, PNG, TIFF, WebP, JPEG 2000, BMP or PNM; the data starts with ",
                  LeadingBytes(data, size), ")");
    DecodedImage decoded;
    try {
      decoded = format->decode(data, size);
    } catch (const image::ImageCodecError& error) {
      PRISM_THROW(kInvalidArgument, node.Describe(), ": input encoded_stream: cannot decode the ",
                  format->name, " image: ", error.what());
    } catch (const std::bad_alloc&) {
      PRISM_THROW(kRuntimeException, node.Describe(), ": out of memory decoding the ", format->name,
                  " image");
    }
    const int64_t channels = pixel_format_ == PixelFormat::kGrayscale ? 1 : 3;
    Tensor& y = context.Output(0, TensorShape({decoded.height, decoded.width, channels}),
                               ElementType::kUint8);
    Convert(decoded, pixel_format_, y.MutableData<uint8_t>());
  }

 private:
  static std::string LeadingBytes(const uint8_t* data, size_t size) {
    static const char kHex[] = "0123456789abcdef";
    std::string text;
    for (size_t i = 0; i < size && i < 8; ++i) {
      if (i > 0) text += ' ';
      text += kHex[data[i] >> 4];
      text += kHex[data[i] & 15];
    }
    return text;
  }

  PixelFormat pixel_format_;
};

void RegisterImageDecoderKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(KernelDefBuilder("ImageDecoder")
                        .Versions(20)
                        .Constraint("T1", {E::kUint8}, {0}, {})
                        .Constraint("T2", {E::kUint8}, {}, {0})
                        .Build(),
                    MakeKernelFactory<ImageDecoder>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(image_decoder, RegisterImageDecoderKernels);

}  // namespace prism::cpu
