"""ImageDecoder (opset 20) against Pillow, the decoder behind onnx.reference's implementation
(onnxruntime 1.31 has no ImageDecoder kernel). Images are generated here in several sizes (odd
widths, 1 x 1) and in every format and variant Prism reads: JPEG (4:4:4, 4:2:0, progressive,
gray, CMYK), PNG (RGB, gray, 1- and 2-bit, RGBA, gray+alpha, palettes with and without
transparency, 16-bit, interlaced), TIFF (raw, LZW, deflate, PackBits, JPEG, CCITT G4, gray,
palette, bilevel, RGBA, tiled, 16-bit), WebP (lossy, lossless, with alpha), JPEG 2000 (JP2 and
raw J2K, lossless and lossy, gray, RGBA), BMP (24-bit, palettes of 1, 4, 8 bits, RLE8, RLE4,
16-bit 5-5-5 and 5-6-5, 32-bit bit fields, top-down) and PNM (P1 to P6, maxval below and above
255). The expected pixels are Pillow's image converted to RGB (or L for Grayscale), which is
onnx.reference's output wherever that has the spec's 3 channels (checked too). Where Pillow clips
16-bit gray to 255, Prism keeps the high byte, as Pillow itself does for 16-bit RGB. Corrupt,
truncated, unknown and unsupported inputs must fail naming the node, the input and the format."""
import io
import struct
import zlib

import numpy as np
import onnx.reference
import PIL.Image
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261125)
_SIZES = [(1, 1), (7, 5), (33, 17), (64, 48)]  # (width, height)
_FORMATS = ["RGB", "BGR", "Grayscale"]


def _model(pixel_format="RGB"):
    node = helper.make_node("ImageDecoder", ["encoded"], ["image"], name="decode",
                            pixel_format=pixel_format)
    graph = helper.make_graph(
        [node], "image_decoder",
        [helper.make_tensor_value_info("encoded", TensorProto.UINT8, [None])],
        [helper.make_tensor_value_info("image", TensorProto.UINT8, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)],
                             ir_version=9).SerializeToString()


def _decode(data, pixel_format="RGB"):
    encoded = np.frombuffer(data, dtype=np.uint8)
    return ort.InferenceSession(_model(pixel_format)).run(None, {"encoded": encoded})[0]


def _expected(data, pixel_format):
    image = PIL.Image.open(io.BytesIO(data))
    if pixel_format == "Grayscale":
        return np.array(image.convert("L"))[:, :, np.newaxis]
    rgb = np.array(image.convert("RGB"))
    return rgb[:, :, ::-1] if pixel_format == "BGR" else rgb


def _check(data, pixel_format, expected=None):
    if expected is None:
        expected = _expected(data, pixel_format)
    actual = _decode(data, pixel_format)
    assert actual.dtype == np.uint8 and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)
    return actual


def _pixels(width, height, mode):
    """Smooth gradients plus noise, so lossy codecs have something to round."""
    y, x = np.mgrid[0:height, 0:width]
    base = [(x * 255 // max(width - 1, 1)), (y * 255 // max(height - 1, 1)),
            ((x + y) * 7) % 256, (x * y) % 256]
    noise = _RNG.randint(-20, 21, (4, height, width))
    planes = [np.clip(b + n, 0, 255).astype(np.uint8) for b, n in zip(base, noise)]
    if mode == "L":
        return PIL.Image.fromarray(planes[0])
    if mode == "LA":
        return PIL.Image.fromarray(np.stack(planes[:2], axis=2), "LA")
    if mode == "RGBA":
        return PIL.Image.fromarray(np.stack(planes, axis=2), "RGBA")
    if mode == "CMYK":
        return PIL.Image.fromarray(np.stack(planes, axis=2), "CMYK")
    if mode == "1":
        return PIL.Image.fromarray(planes[3] > 127)
    if mode == "P":
        return PIL.Image.fromarray(np.stack(planes[:3], axis=2)).quantize(colors=37)
    return PIL.Image.fromarray(np.stack(planes[:3], axis=2))


def _save(image, fmt, **options):
    out = io.BytesIO()
    image.save(out, format=fmt, **options)
    return out.getvalue()


# (id, PIL mode, format, save options)
_PIL_CASES = [
    ("jpeg_444", "RGB", "JPEG", {"quality": 90, "subsampling": 0}),
    ("jpeg_420", "RGB", "JPEG", {"quality": 75, "subsampling": 2}),
    ("jpeg_progressive", "RGB", "JPEG", {"progressive": True}),
    ("jpeg_gray", "L", "JPEG", {}),
    ("jpeg_cmyk", "CMYK", "JPEG", {"quality": 90}),
    ("png_rgb", "RGB", "PNG", {}),
    ("png_gray", "L", "PNG", {}),
    ("png_bilevel", "1", "PNG", {}),
    ("png_rgba", "RGBA", "PNG", {}),
    ("png_gray_alpha", "LA", "PNG", {}),
    ("png_palette", "P", "PNG", {}),
    ("png_palette_transparent", "P", "PNG", {"transparency": 3}),
    ("png_palette_4bit", "P4", "PNG", {"bits": 4}),
    ("tiff_raw", "RGB", "TIFF", {}),
    ("tiff_lzw", "RGB", "TIFF", {"compression": "tiff_lzw"}),
    ("tiff_deflate", "RGB", "TIFF", {"compression": "tiff_adobe_deflate"}),
    ("tiff_packbits", "L", "TIFF", {"compression": "packbits"}),
    ("tiff_jpeg", "RGB", "TIFF", {"compression": "jpeg"}),
    ("tiff_gray", "L", "TIFF", {}),
    ("tiff_palette", "P", "TIFF", {}),
    ("tiff_bilevel", "1", "TIFF", {}),
    ("tiff_bilevel_g4", "1", "TIFF", {"compression": "group4"}),
    ("tiff_rgba", "RGBA", "TIFF", {}),
    ("tiff_gray_alpha", "LA", "TIFF", {}),
    ("webp_lossy", "RGB", "WEBP", {"quality": 70}),
    ("webp_lossless", "RGB", "WEBP", {"lossless": True}),
    ("webp_lossy_alpha", "RGBA", "WEBP", {"quality": 80}),
    ("webp_lossless_alpha", "RGBA", "WEBP", {"lossless": True, "exact": True}),
    ("jp2_lossless", "RGB", "JPEG2000", {}),
    ("jp2_lossy", "RGB", "JPEG2000", {"quality_mode": "rates", "quality_layers": [20],
                                      "irreversible": True}),
    ("j2k_codestream", "RGB", "JPEG2000", {"no_jp2": True}),
    ("jp2_gray", "L", "JPEG2000", {}),
    ("jp2_rgba", "RGBA", "JPEG2000", {}),
    ("jp2_gray_alpha", "LA", "JPEG2000", {}),
    ("bmp_rgb", "RGB", "BMP", {}),
    ("bmp_palette8", "P", "BMP", {}),
    ("bmp_gray", "L", "BMP", {}),
    ("bmp_bilevel", "1", "BMP", {}),
    ("bmp_rgba", "RGBA", "BMP", {}),
    ("ppm", "RGB", "PPM", {}),
    ("pgm", "L", "PPM", {}),
    ("pbm", "1", "PPM", {}),
]


def _encode_case(mode, fmt, options, width, height):
    options = dict(options)
    if mode == "P4":
        image = _pixels(width, height, "RGB").quantize(colors=16)
    else:
        image = _pixels(width, height, mode)
    if fmt == "JPEG2000" and min(width, height) < 8:
        # OpenJPEG's encoder needs a few pixels per resolution level.
        options["num_resolutions"] = 1
    return _save(image, fmt, **options)


@pytest.mark.parametrize("size", _SIZES, ids=[f"{w}x{h}" for w, h in _SIZES])
@pytest.mark.parametrize("case", _PIL_CASES, ids=[c[0] for c in _PIL_CASES])
def test_matches_pillow(case, size):
    _, mode, fmt, options = case
    data = _encode_case(mode, fmt, options, *size)
    for pixel_format in _FORMATS:
        _check(data, pixel_format)


@pytest.mark.parametrize("case", [c for c in _PIL_CASES if c[1] == "RGB"], ids=lambda c: c[0])
def test_matches_onnx_reference_for_colour_sources(case):
    """onnx.reference returns Pillow's array unconverted: the spec's 3 channels for RGB files."""
    _, mode, fmt, options = case
    data = _encode_case(mode, fmt, options, 33, 17)
    assert PIL.Image.open(io.BytesIO(data)).mode == "RGB"
    encoded = np.frombuffer(data, dtype=np.uint8)
    for pixel_format in _FORMATS:
        expected = onnx.reference.ReferenceEvaluator(_model(pixel_format)).run(
            None, {"encoded": encoded})[0]
        np.testing.assert_array_equal(_decode(data, pixel_format), expected)


def _png(width, height, color_type, bit_depth, rows, interlace=0):
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, interlace)
    raw = b"".join(b"\x00" + row for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) +
            chunk(b"IEND", b""))


def test_png_16_bit_rgb_keeps_the_high_byte_as_pillow():
    values = _RNG.randint(0, 65536, (5, 7, 3)).astype(">u2")
    data = _png(7, 5, 2, 16, [row.tobytes() for row in values])
    actual = _check(data, "RGB")
    np.testing.assert_array_equal(actual, (values >> 8).astype(np.uint8))
    _check(data, "Grayscale")


def test_png_16_bit_gray_keeps_the_high_byte():
    """Pillow opens this as I;16 and clips to 255 in convert("L"); the high byte is the 8-bit
    sample, as for 16-bit RGB."""
    values = _RNG.randint(0, 65536, (4, 9)).astype(">u2")
    data = _png(9, 4, 0, 16, [row.tobytes() for row in values])
    high = (values >> 8).astype(np.uint8)
    _check(data, "Grayscale", high[:, :, np.newaxis])
    _check(data, "RGB", np.repeat(high[:, :, np.newaxis], 3, axis=2))


def _tiff(width, height, tags, payload):
    """A little-endian TIFF: tags as (tag, SHORT=3 or LONG=4, values); payload follows the IFD
    and the arrays, and offsets in the tags given as ("payload", k) point k bytes into it."""
    count = len(tags) + 2
    arrays_at = 8 + 2 + 12 * count + 4
    entries, arrays = [], b""
    resolved = []
    for tag, kind, values in tags:
        resolved.append((tag, kind, list(values)))
    resolved += [(256, 4, [width]), (257, 4, [height])]
    resolved.sort()
    sizes = {3: 2, 4: 4}
    payload_at = arrays_at + sum(sizes[k] * len(v) for _, k, v in resolved if sizes[k] * len(v) > 4)
    for tag, kind, values in resolved:
        values = [payload_at + v[1] if isinstance(v, tuple) else v for v in values]
        packed = struct.pack("<%d%s" % (len(values), "H" if kind == 3 else "I"), *values)
        if len(packed) <= 4:
            entries.append(struct.pack("<HHI", tag, kind, len(values)) + packed.ljust(4, b"\0"))
        else:
            entries.append(struct.pack("<HHII", tag, kind, len(values), arrays_at + len(arrays)))
            arrays += packed
    ifd = struct.pack("<H", count) + b"".join(entries) + struct.pack("<I", 0)
    return b"II*\x00" + struct.pack("<I", 8) + ifd + arrays + payload


def _tiff_16_bit_gray(values):
    height, width = values.shape
    pixels = values.astype("<u2").tobytes()
    return _tiff(width, height, [(258, 3, [16]), (259, 3, [1]), (262, 3, [1]),
                                 (273, 4, [("payload", 0)]), (277, 3, [1]), (278, 4, [height]),
                                 (279, 4, [len(pixels)])], pixels)


def _tiff_tiled(pixels, tile):
    """Uncompressed tiles of tile x tile pixels, the edge tiles padded."""
    height, width, samples = pixels.shape
    across, down = -(-width // tile), -(-height // tile)
    padded = np.zeros((down * tile, across * tile, samples), np.uint8)
    padded[:height, :width] = pixels
    blobs = [padded[ty * tile:(ty + 1) * tile, tx * tile:(tx + 1) * tile].tobytes()
             for ty in range(down) for tx in range(across)]
    size = len(blobs[0])
    tags = [(258, 3, [8] * samples), (259, 3, [1]), (262, 3, [2]), (277, 3, [samples]),
            (284, 3, [1]), (322, 3, [tile]), (323, 3, [tile]),
            (324, 4, [("payload", i * size) for i in range(len(blobs))]),
            (325, 4, [size] * len(blobs))]
    if samples == 4:
        tags.append((338, 3, [2]))  # unassociated alpha
    return _tiff(width, height, tags, b"".join(blobs))


@pytest.mark.parametrize("size", [(16, 16), (33, 17)])
def test_tiff_tiled(size):
    width, height = size
    pixels = _RNG.randint(0, 256, (height, width, 3)).astype(np.uint8)
    data = _tiff_tiled(pixels, 16)
    assert PIL.Image.open(io.BytesIO(data)).tag_v2[322] == 16  # TileWidth: a tiled file
    _check(data, "RGB", pixels)
    for pixel_format in _FORMATS:
        _check(data, pixel_format)


def test_tiff_tiled_with_alpha_is_refused():
    """libtiff's RGBA reader would premultiply the colours; Pillow's are not."""
    data = _tiff_tiled(_RNG.randint(0, 256, (5, 7, 4)).astype(np.uint8), 16)
    assert "the TIFF image: unsupported variant: alpha outside" in _error(data)


def test_tiff_16_bit_gray_keeps_the_high_byte():
    values = _RNG.randint(0, 65536, (3, 5)).astype(np.uint16)
    data = _tiff_16_bit_gray(values)
    assert PIL.Image.open(io.BytesIO(data)).size == (5, 3)
    _check(data, "Grayscale", (values >> 8).astype(np.uint8)[:, :, np.newaxis])


def _adam7(pixels):
    """The Adam7 passes of an 8-bit image, each row behind filter byte 0."""
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
              (0, 1, 1, 2)]
    rows = []
    for x0, y0, dx, dy in passes:
        sub = pixels[y0::dy, x0::dx]
        if sub.shape[0] and sub.shape[1]:
            rows.extend(row.tobytes() for row in sub)
    return rows


@pytest.mark.parametrize("size", [(1, 1), (7, 5), (13, 11)])
def test_png_interlaced(size):
    width, height = size
    pixels = _RNG.randint(0, 256, (height, width, 3)).astype(np.uint8)
    data = _png(width, height, 2, 8, _adam7(pixels), interlace=1)
    _check(data, "RGB", pixels)
    _check(data, "BGR")
    _check(data, "Grayscale")


def test_png_2_bit_gray():
    rows = [bytes([0b00011011, 0b11100100]) for _ in range(3)]  # 8 pixels a row
    data = _png(8, 3, 0, 2, rows)
    expected = np.array([0, 85, 170, 255, 255, 170, 85, 0], np.uint8)
    _check(data, "Grayscale", np.tile(expected, (3, 1))[:, :, np.newaxis])
    _check(data, "RGB")


def _bmp(width, height, bits, pixel_rows, compression=0, masks=b"", palette=b""):
    header_size = 40
    offset = 14 + header_size + len(masks) + len(palette)
    body = b"".join(pixel_rows)
    info = struct.pack("<IiiHHIIiiII", header_size, width, height, 1, bits, compression,
                       len(body), 2835, 2835, len(palette) // 4, 0)
    return (b"BM" + struct.pack("<IHHI", offset + len(body), 0, 0, offset) + info + masks +
            palette + body)


def _pad(row):
    return row + b"\x00" * (-len(row) % 4)


@pytest.mark.parametrize("layout", ["555", "565"])
def test_bmp_16_bit(layout):
    width, height = 5, 3
    values = _RNG.randint(0, 65536, (height, width)).astype("<u2")
    if layout == "555":
        values &= 0x7FFF
        data = _bmp(width, height, 16, [_pad(r.tobytes()) for r in values[::-1]])
        fields = [(10, 31), (5, 31), (0, 31)]
    else:
        masks = struct.pack("<III", 0xF800, 0x07E0, 0x001F)
        data = _bmp(width, height, 16, [_pad(r.tobytes()) for r in values[::-1]], 3, masks)
        fields = [(11, 31), (5, 63), (0, 31)]
    v = values.astype(np.int64)
    expected = np.stack([((v >> s) & m) * 255 // m for s, m in fields], axis=2).astype(np.uint8)
    _check(data, "RGB", expected)
    _check(data, "RGB")  # and Pillow agrees
    _check(data, "BGR")


def test_bmp_top_down_32_bit():
    width, height = 3, 2
    pixels = _RNG.randint(0, 256, (height, width, 4)).astype(np.uint8)  # B, G, R, X
    data = _bmp(width, -height, 32, [r.tobytes() for r in pixels])
    _check(data, "RGB", pixels[:, :, 2::-1].copy())
    _check(data, "Grayscale")


def test_bmp_4_bit_palette():
    palette = bytes(_RNG.randint(0, 256, 16 * 4).astype(np.uint8))
    indices = _RNG.randint(0, 16, (3, 7)).astype(np.uint8)
    rows = [_pad(bytes((r[i] << 4) | (r[i + 1] if i + 1 < 7 else 0) for i in range(0, 7, 2)))
            for r in indices[::-1]]
    data = _bmp(7, 3, 4, rows, palette=palette)
    table = np.frombuffer(palette, np.uint8).reshape(16, 4)[:, 2::-1]
    _check(data, "RGB", table[indices])
    _check(data, "Grayscale")


def _rle_case(rle4):
    """Runs, row ends, a delta, literal runs with and without the pad byte, and a run clipped
    at the row's end; returns the file and the palette indices of its rows, top first."""
    if rle4:  # 7 x 2, 16 colours
        body = bytes([4, 0x12, 0, 3, 0x34, 0x50, 0, 0,
                      0, 5, 0x67, 0x89, 0xA0, 0, 2, 0xBC, 0, 0, 0, 1])
        rows = [[1, 2, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11, 12]]
        width, colours, compression = 7, 16, 2
    else:  # 5 x 3, 8 colours
        body = bytes([2, 1, 0, 3, 2, 3, 4, 0, 0, 0,
                      0, 2, 2, 0, 3, 5, 0, 0,
                      7, 6, 0, 0, 0, 1])
        rows = [[1, 1, 2, 3, 4], [0, 0, 5, 5, 5], [6, 6, 6, 6, 6]]
        width, colours, compression = 5, 8, 1
    palette = bytes(_RNG.randint(0, 256, colours * 4).astype(np.uint8))
    data = _bmp(width, len(rows), 4 if rle4 else 8, [body], compression, palette=palette)
    table = np.frombuffer(palette, np.uint8).reshape(colours, 4)[:, 2::-1]
    return data, table[np.array(rows[::-1])]


@pytest.mark.parametrize("rle4", [False, True], ids=["rle8", "rle4"])
def test_bmp_run_length(rle4):
    data, expected = _rle_case(rle4)
    _check(data, "RGB", expected)
    for pixel_format in _FORMATS:
        _check(data, pixel_format)


def test_bmp_run_length_ending_early_is_refused_as_pillow():
    data, _ = _rle_case(False)
    early = data[:-8] + bytes([0, 1])  # the bitmap ends before its last row
    with pytest.raises(Exception):
        _expected(early, "RGB")
    assert "the BMP image: the run-length data ends after 10 of 15 pixels" in _error(early)


@pytest.mark.parametrize("header,body,expected", [
    (b"P1\n# bits\n3 2\n", b"1 0 1\n0 0 1\n", [[0, 255, 0], [255, 255, 0]]),
    (b"P1\n3 2\n", b"101001", [[0, 255, 0], [255, 255, 0]]),
    (b"P2\n3 1\n7\n", b"0 3 7\n", [[0, 109, 255]]),
    (b"P2 2 1 65535 ", b"65535 32768", [[255, 128]]),
    (b"P5\n2 2\n3\n", bytes([0, 1, 2, 3]), [[0, 85], [170, 255]]),
    (b"P5 2 1 1000\n", struct.pack(">HH", 1000, 2), [[255, 1]]),
    (b"P4\n10 1\n", bytes([0b10110000, 0b01000000]), [[0, 255, 0, 0, 255, 255, 255, 255, 255, 0]]),
])
def test_pnm_gray_and_bitmap(header, body, expected):
    expected = np.array(expected, np.uint8)
    _check(header + body, "Grayscale", expected[:, :, np.newaxis])
    _check(header + body, "RGB", np.repeat(expected[:, :, np.newaxis], 3, axis=2))


@pytest.mark.parametrize("maxval", [1, 100, 255, 1000, 65535])
def test_pnm_rgb_maxval(maxval):
    values = _RNG.randint(0, maxval + 1, (3, 4, 3))
    plain = b"P3\n4 3\n%d\n" % maxval + b" ".join(b"%d" % v for v in values.ravel())
    fmt = ">u2" if maxval > 255 else "u1"
    binary = b"P6\n4 3\n%d\n" % maxval + values.astype(fmt).tobytes()
    for data in (plain, binary):
        for pixel_format in _FORMATS:
            _check(data, pixel_format)


def test_pnm_rounds_half_to_even_as_pillow():
    """253 / 510 * 255 is exactly 126.5: Python's round (Pillow's) gives 126, not 127."""
    for data in (b"P3 1 1 510 253 0 510", b"P6 1 1 510 " + struct.pack(">HHH", 253, 0, 510)):
        actual = _check(data, "RGB")
        np.testing.assert_array_equal(actual, [[[126, 0, 255]]])
        _check(data, "Grayscale")


def _error(data, *, pixel_format="RGB"):
    with pytest.raises(Exception) as info:
        _decode(data, pixel_format)
    return str(info.value)


_SAMPLE = {
    "JPEG": _encode_case("RGB", "JPEG", {}, 33, 17),
    "PNG": _encode_case("RGB", "PNG", {}, 33, 17),
    "TIFF": _encode_case("RGB", "TIFF", {"compression": "tiff_lzw"}, 33, 17),
    "WebP": _encode_case("RGB", "WEBP", {}, 33, 17),
    "JPEG 2000": _encode_case("RGB", "JPEG2000", {}, 33, 17),
    "BMP": _encode_case("RGB", "BMP", {}, 33, 17),
    "PNM": _encode_case("RGB", "PPM", {}, 33, 17),
}


@pytest.mark.parametrize("fmt", list(_SAMPLE))
@pytest.mark.parametrize("keep", [0.9, 0.5, 0.1])
def test_truncated_image_is_refused_by_name(fmt, keep):
    data = _SAMPLE[fmt]
    cut = data[:max(int(len(data) * keep), 16)]
    message = _error(cut)
    assert "ImageDecoder node 'decode'" in message and "encoded_stream" in message
    assert f"the {fmt} image" in message


@pytest.mark.parametrize("fmt", list(_SAMPLE))
def test_corrupt_image_fails_or_matches_pillow(fmt):
    """Scrambled payload bytes: an error naming the format, or (where the format has no checksum
    and the damage still decodes) Pillow's pixels; never a crash."""
    data = bytearray(_SAMPLE[fmt])
    rng = np.random.RandomState(7)
    for position in rng.randint(len(data) // 4, len(data), 40):
        data[position] ^= 0xA5
    data = bytes(data)
    try:
        actual = _decode(data)
    except Exception as error:  # noqa: BLE001  (the message is what is checked)
        assert f"the {fmt} image" in str(error) and "ImageDecoder node 'decode'" in str(error)
        return
    try:
        expected = _expected(data, "RGB")
    except Exception:  # noqa: BLE001  Pillow refuses a file Prism's decoder accepted
        pytest.skip(f"{fmt}: Prism's decoder tolerates this damage where Pillow does not")
    np.testing.assert_array_equal(actual, expected)


def test_corrupt_png_checksum_is_refused():
    data = bytearray(_SAMPLE["PNG"])
    data[40] ^= 0xFF  # inside IDAT: the chunk's CRC no longer matches
    assert "the PNG image" in _error(bytes(data))


@pytest.mark.parametrize("data,expected", [
    (b"GIF89a\x01\x00\x01\x00", "unknown format"),
    (b"\x00\x01\x02", "unknown format"),
    (b"BM" + b"\x00" * 10, "the BMP image: the data is truncated"),
    (b"P7\nWIDTH 1\n", "unknown format"),
    (b"P6\n0 3\n255\n", "the PNM image: the width 0 is outside"),
    (b"P3\n1 1\n255\n1 2 300", "the sample 300 is outside [0, 255]"),
    (b"P6\n100000 100000\n255\n", "more than 2^28"),
])
def test_unknown_and_invalid_headers(data, expected):
    assert expected in _error(data)


def test_empty_input_is_refused():
    assert "input encoded_stream is empty" in _error(b"")


def test_unsupported_variants_are_refused_by_name():
    frames = [_pixels(8, 8, "RGB"), _pixels(8, 8, "RGB")]
    animated = io.BytesIO()
    frames[0].save(animated, format="WEBP", save_all=True, append_images=frames[1:])
    assert "unsupported variant: animated WebP" in _error(animated.getvalue())
    bmp_png = _bmp(2, 1, 24, [b"\x89PNG\r\n\x1a\n"], compression=5)
    assert "unsupported variant: an embedded JPEG or PNG payload" in _error(bmp_png)


def test_float_tiff_is_refused():
    data = _save(PIL.Image.fromarray(_RNG.standard_normal((4, 5)).astype(np.float32)), "TIFF")
    assert "the TIFF image: unsupported variant" in _error(data)


def test_huge_jpeg2000_header_is_refused_before_decoding():
    """A codestream whose SIZ marker claims 100000 x 100000 pixels in one tile."""
    data = bytearray(_encode_case("RGB", "JPEG2000", {"no_jp2": True}, 33, 17))
    assert data[:4] == b"\xff\x4f\xff\x51"
    data[8:16] = struct.pack(">II", 100000, 100000)  # Xsiz, Ysiz
    data[24:32] = struct.pack(">II", 100000, 100000)  # XTsiz, YTsiz
    assert "the JPEG 2000 image: the image is 100000 x 100000 pixels" in _error(bytes(data))


def test_bad_pixel_format_is_refused():
    with pytest.raises(Exception, match="attribute pixel_format is 'YUV', expected RGB, BGR or "
                                        "Grayscale"):
        ort.InferenceSession(_model("YUV"))


def test_two_dimensional_input_is_refused():
    node = helper.make_node("ImageDecoder", ["encoded"], ["image"], name="decode")
    graph = helper.make_graph(
        [node], "image_decoder", [helper.make_tensor_value_info("encoded", TensorProto.UINT8,
                                                                [None, None])],
        [helper.make_tensor_value_info("image", TensorProto.UINT8, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=9)
    encoded = np.frombuffer(_SAMPLE["PNG"], np.uint8).reshape(1, -1)
    with pytest.raises(Exception, match="encoded_stream must be"):
        ort.InferenceSession(model.SerializeToString()).run(None, {"encoded": encoded})
