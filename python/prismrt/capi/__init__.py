"""Module layout that mirrors onnxruntime.capi, for code that imports from there."""
