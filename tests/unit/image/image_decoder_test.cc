// ImageDecoder corner cases on images built byte by byte, with hand-checked pixels: BMP (24-bit
// bottom-up and top-down, 1-bit palette), PNM (plain with comments, binary with maxval scaling
// rounded half to even), the three pixel formats (gray is Pillow's luma,
// (19595 R + 38470 G + 7471 B + 2^15) >> 16), and refusals: unknown formats, bad attributes,
// truncated and corrupt files of every format (each codec's error path, libjpeg's and libpng's
// longjmp included) naming the node, the input and the format.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "op_tester.h"

namespace prism::testing {
namespace {

using Bytes = std::vector<uint8_t>;

// push_back, not insert: GCC 12 warns (falsely) about vector range inserts at -O2.
void AppendBytes(Bytes& out, const Bytes& more) {
  for (uint8_t byte : more) out.push_back(byte);
}
void Append(Bytes& out, const std::string& text) {
  for (char c : text) out.push_back(static_cast<uint8_t>(c));
}
void Append16(Bytes& out, uint32_t value) {
  out.push_back(static_cast<uint8_t>(value));
  out.push_back(static_cast<uint8_t>(value >> 8));
}
void Append32(Bytes& out, uint32_t value) {
  Append16(out, value & 0xFFFF);
  Append16(out, value >> 16);
}

// A BMP with a 40-byte info header; rows are given as stored (padding included).
Bytes Bmp(int32_t width, int32_t height, uint16_t bits, const Bytes& palette, const Bytes& rows) {
  const uint32_t offset = 14 + 40 + static_cast<uint32_t>(palette.size());
  Bytes out;
  Append(out, "BM");
  Append32(out, offset + static_cast<uint32_t>(rows.size()));
  Append32(out, 0);
  Append32(out, offset);
  Append32(out, 40);
  Append32(out, static_cast<uint32_t>(width));
  Append32(out, static_cast<uint32_t>(height));
  Append16(out, 1);
  Append16(out, bits);
  Append32(out, 0);  // BI_RGB
  Append32(out, static_cast<uint32_t>(rows.size()));
  Append32(out, 2835);
  Append32(out, 2835);
  Append32(out, static_cast<uint32_t>(palette.size() / 4));
  Append32(out, 0);
  AppendBytes(out, palette);
  AppendBytes(out, rows);
  return out;
}

Bytes Text(const std::string& text) {
  return Bytes(text.begin(), text.end());
}

// The 2 x 2 image of these tests: red, green on top; blue, (10, 20, 30) below.
const std::vector<uint8_t> kRgb = {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30};
const std::vector<uint8_t> kBgr = {0, 0, 255, 0, 255, 0, 255, 0, 0, 30, 20, 10};
// Luma by hand: red 5029493 >> 16 = 76, green 9842618 >> 16 = 150, blue 1937873 >> 16 = 29,
// (10, 20, 30): 1222248 >> 16 = 18.
const std::vector<uint8_t> kGray = {76, 150, 29, 18};

// 24-bit, bottom-up: the bottom row is stored first, each row padded from 6 to 8 bytes.
Bytes Bmp24() {
  return Bmp(2, 2, 24, {}, {255, 0, 0, 30, 20, 10, 0, 0, 0, 0, 255, 0, 255, 0, 0, 0});
}

void ExpectDecoded(const Bytes& encoded, const std::string& pixel_format, int64_t channels,
                   const std::vector<uint8_t>& expected, int64_t height = 2, int64_t width = 2) {
  SCOPED_TRACE(pixel_format);
  OpTester test("ImageDecoder", 20);
  test.Input<uint8_t>("encoded_stream", {static_cast<int64_t>(encoded.size())}, encoded);
  test.Attr("pixel_format", pixel_format);
  test.Output<uint8_t>("image", {height, width, channels}, expected);
  test.Run();
}

void ExpectRefused(const Bytes& encoded, const std::string& message,
                   const std::string& pixel_format = "RGB") {
  OpTester test("ImageDecoder", 20);
  test.Input<uint8_t>("encoded_stream", {static_cast<int64_t>(encoded.size())}, encoded);
  test.Attr("pixel_format", pixel_format);
  test.Output<uint8_t>("image", {1, 1, 3}, {0, 0, 0});
  test.ExpectFailure(message);
}

TEST(ImageDecoderTest, Bmp24BitBottomUpInEveryPixelFormat) {
  ExpectDecoded(Bmp24(), "RGB", 3, kRgb);
  ExpectDecoded(Bmp24(), "BGR", 3, kBgr);
  ExpectDecoded(Bmp24(), "Grayscale", 1, kGray);
}

TEST(ImageDecoderTest, Bmp24BitTopDown) {
  // A negative height stores the top row first.
  const Bytes top_down =
      Bmp(2, -2, 24, {}, {0, 0, 255, 0, 255, 0, 0, 0, 255, 0, 0, 30, 20, 10, 0, 0});
  ExpectDecoded(top_down, "RGB", 3, kRgb);
}

TEST(ImageDecoderTest, Bmp1BitPalette) {
  // Palette entries are B, G, R, 0; bits are read from the most significant one.
  const Bytes palette = {0x10, 0x20, 0x30, 0, 0xF0, 0xE0, 0xD0, 0};
  const Bytes rows = {0x80, 0, 0, 0, 0x40, 0, 0, 0};  // bottom row: 1, 0; top row: 0, 1
  ExpectDecoded(Bmp(2, 2, 1, palette, rows), "RGB", 3,
                {0x30, 0x20, 0x10, 0xD0, 0xE0, 0xF0, 0xD0, 0xE0, 0xF0, 0x30, 0x20, 0x10});
}

TEST(ImageDecoderTest, BmpPaletteIndexBeyondThePaletteIsRefused) {
  const Bytes palette = {0, 0, 0, 0, 255, 255, 255, 0};  // 2 colours for an 8-bit image
  const Bytes rows = {0, 1, 2, 0};
  ExpectRefused(Bmp(3, 1, 8, palette, rows),
                "cannot decode the BMP image: palette index 2 beyond the 2 colours");
}

TEST(ImageDecoderTest, PlainPnmWithComments) {
  const Bytes ppm =
      Text("P3\n# a comment\n2 2 # another\n255\n255 0 0  0 255 0\n0 0 255  10 20 30\n");
  ExpectDecoded(ppm, "RGB", 3, kRgb);
  ExpectDecoded(ppm, "BGR", 3, kBgr);
  ExpectDecoded(ppm, "Grayscale", 1, kGray);
}

TEST(ImageDecoderTest, BinaryPnmScalesMaxvalRoundingHalfToEven) {
  // maxval 3: 1 -> 85, 2 -> 170.
  Bytes pgm = Text("P5 2 1 3\n");
  AppendBytes(pgm, {1, 2});
  ExpectDecoded(pgm, "Grayscale", 1, {85, 170}, 1, 2);
  // maxval 510 (two bytes a sample): 253 -> 126.5, which rounds to the even 126; 510 -> 255.
  Bytes wide = Text("P5 2 1 510\n");
  AppendBytes(wide, {0x00, 0xFD, 0x01, 0xFE});
  ExpectDecoded(wide, "RGB", 3, {126, 126, 126, 255, 255, 255}, 1, 2);
}

TEST(ImageDecoderTest, PnmBitmapOneIsBlack) {
  Bytes pbm = Text("P4\n3 2\n");
  AppendBytes(pbm, {0b10100000, 0b01000000});
  ExpectDecoded(pbm, "Grayscale", 1, {0, 255, 0, 255, 0, 255}, 2, 3);
}

TEST(ImageDecoderTest, PnmSampleAboveMaxvalIsRefused) {
  ExpectRefused(Text("P2\n1 1\n7\n9\n"), "the sample 9 is outside [0, 7]");
}

TEST(ImageDecoderTest, UnknownFormatAndEmptyInputAreRefused) {
  ExpectRefused(
      Text("GIF89a..."),
      "ImageDecoder node 'ImageDecoder_under_test': input encoded_stream is in an unknown "
      "format (expected the signature of JPEG, PNG, TIFF, WebP, JPEG 2000, BMP or PNM; "
      "the data starts with 47 49 46 38 39 61 2e 2e)");
  ExpectRefused(Bytes{}, "input encoded_stream is empty");
}

TEST(ImageDecoderTest, UnknownPixelFormatIsRefused) {
  ExpectRefused(Bmp24(), "attribute pixel_format is 'RGBA', expected RGB, BGR or Grayscale",
                "RGBA");
}

TEST(ImageDecoderTest, TwoDimensionalInputIsRefused) {
  const Bytes encoded = Bmp24();
  OpTester test("ImageDecoder", 20);
  test.Input<uint8_t>("encoded_stream", {1, static_cast<int64_t>(encoded.size())}, encoded);
  test.Output<uint8_t>("image", {2, 2, 3}, kRgb);
  test.ExpectFailure("input encoded_stream must be");
}

// Each codec's failure path, on a valid signature followed by garbage or by too little data.
TEST(ImageDecoderTest, TruncatedOrCorruptFilesAreRefusedNamingTheFormat) {
  struct Case {
    Bytes data;
    const char* message;
  };
  const Bytes junk(64, 0x5A);
  auto after = [&](Bytes head) {
    AppendBytes(head, junk);
    return head;
  };
  const Bytes bmp = Bmp24();
  const Case cases[] = {
      {after({0xFF, 0xD8, 0xFF, 0xE0}), "cannot decode the JPEG image: "},
      {Bytes{0xFF, 0xD8, 0xFF}, "cannot decode the JPEG image: "},
      {after({0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}), "cannot decode the PNG image: "},
      {Bytes{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13},
       "cannot decode the PNG image: the data is truncated"},
      {after({'I', 'I', '*', 0}), "cannot decode the TIFF image: "},
      {after({'M', 'M', 0, '*'}), "cannot decode the TIFF image: "},
      {after(Text(std::string("RIFF\x40\0\0\0WEBPVP8 ", 16))), "cannot decode the WebP image: "},
      {after({0, 0, 0, 12, 'j', 'P', ' ', ' ', 13, 10, 0x87, 10}),
       "cannot decode the JPEG 2000 image: "},
      {after({0xFF, 0x4F, 0xFF, 0x51}), "cannot decode the JPEG 2000 image: "},
      {Bytes(bmp.begin(), bmp.begin() + static_cast<std::ptrdiff_t>(bmp.size() - 3)),
       "cannot decode the BMP image: the data is truncated"},
      {Text("P6\n2 2\n255\n\x01\x02"), "cannot decode the PNM image: the data is truncated"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    ExpectRefused(c.data, std::string("ImageDecoder node 'ImageDecoder_under_test': input "
                                      "encoded_stream: ") +
                              c.message);
  }
}

}  // namespace
}  // namespace prism::testing
