#!/usr/bin/env python3
"""Runs the custom op example model from Python: register_custom_ops_library loads the library
(as onnxruntime's does), and Y must be 2 A + 1.5 B.

Usage: run_custom_op.py LIBRARY MODEL
"""
import sys

import numpy as np
import prismrt


def main(library, model):
    options = prismrt.SessionOptions()
    options.register_custom_ops_library(library)
    session = prismrt.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    a = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    b = (10 * np.arange(1, 7, dtype=np.float32)).reshape(2, 3)
    (y,) = session.run(["Y"], {"A": a, "B": b})
    expected = np.array([[17, 34, 51], [68, 85, 102]], dtype=np.float32)
    print("output Y:", " ".join("%g" % v for v in y.ravel()))
    if not np.array_equal(y, expected):
        sys.exit("Y is %s, expected %s" % (y.ravel(), expected.ravel()))
    report = session.get_partition_report()
    for node in ("scale", "copy", "sum"):
        if "%s (" % node not in report or "custom op of domain 'prism.example'" not in report:
            sys.exit("the partition report does not list custom op node %s:\n%s" % (node, report))
    print("custom op example OK (Python)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
