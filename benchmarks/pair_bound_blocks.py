#!/usr/bin/env python3
"""How many blocks of a quantized model's int8 convolution weights break vpmaddubsw's pair bound.

Prism's int8 GEMM (src/mlas/qgemm.h) packs a weight matrix B[(kernel offset, channel), output
channel] in blocks of 4 depth rows x 16 columns. On AVX2 without VNNI, a block where some pair of
weights (rows 2i, 2i + 1 of one column) has positive parts summing past 128 or negative parts past
-128 cannot use vpmaddubsw exactly; the packer keeps such blocks as int16 fix-ups (the mixed form)
when they are at most one in eight, else packs the whole matrix wide. This prints, per model, the
share of blocks within the bound and of weights with |w| > 64.

    .venv/bin/python benchmarks/pair_bound_blocks.py build/bench-models/resnet50_qdq.onnx
"""
import argparse

import numpy as np
import onnx
from onnx import numpy_helper


def blocks_within(weights: np.ndarray) -> tuple[int, int]:
    """(blocks within the bound, blocks) of one [M, C, kh, kw] int8 weight, as Prism packs it."""
    out_channels, channels, kernel_h, kernel_w = weights.shape
    b = weights.transpose(2, 3, 1, 0).reshape(kernel_h * kernel_w * channels, out_channels)
    depth = (b.shape[0] + 3) // 4 * 4
    columns = (out_channels + 15) // 16 * 16
    padded = np.zeros((depth, columns), np.int32)
    padded[: b.shape[0], :out_channels] = b
    pairs = padded.reshape(depth // 2, 2, columns)
    within = (np.maximum(pairs, 0).sum(1) <= 128) & (np.minimum(pairs, 0).sum(1) >= -128)
    blocks = within.reshape(depth // 4, 2, columns // 16, 16).all(axis=(1, 3))
    return int(blocks.sum()), int(blocks.size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+")
    args = parser.parse_args()
    for path in args.models:
        model = onnx.load(path)
        good = total = 0
        large = count = 0
        for initializer in model.graph.initializer:
            weights = numpy_helper.to_array(initializer)
            if weights.dtype != np.int8:
                continue
            large += int(np.sum(np.abs(weights.astype(np.int32)) > 64))
            count += weights.size
            if weights.ndim == 4 and weights.shape[1] > 1:  # grouped depthwise ones are not a GEMM
                within, blocks = blocks_within(weights)
                good += within
                total += blocks
        print(f"{path}: {good} of {total} blocks within the pair bound "
              f"({100.0 * good / max(total, 1):.1f}%); weights with |w| > 64: "
              f"{100.0 * large / max(count, 1):.1f}%")


if __name__ == "__main__":
    main()
