#!/usr/bin/env python3
"""Runs the custom EP example from Python: prismrt with providers
["ExampleExecutionProvider", "CPUExecutionProvider"] (the plugin found in PLUGIN_DIR), outputs
compared with onnxruntime's CPU EP on the same inputs, and the partition report printed.

Usage: run_custom_ep.py PLUGIN_DIR MODEL
"""
import sys

import numpy as np
import onnxruntime
import prismrt


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    plugin_dir, model = sys.argv[1:]
    options = prismrt.SessionOptions()
    options.add_session_config_entry("session.provider_library_dir", plugin_dir)
    session = prismrt.InferenceSession(
        model, options, providers=["ExampleExecutionProvider", "CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    feeds = {name: rng.standard_normal((3, 5000)).astype(np.float32) for name in ("X", "Y")}
    got = session.run(None, feeds)
    want = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)
    for name, g, w in zip(("Out", "R"), got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=name)
    print("providers:", session.get_providers())
    print(session.get_partition_report())
    print("custom EP example OK (Python)")


if __name__ == "__main__":
    main()
