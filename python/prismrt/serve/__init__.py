"""prismrt.serve: ONNX models behind Ray Serve (``pip install ./python[serve]``).

``import prismrt`` never imports this package (nor Ray); ``import prismrt.serve`` does. See
docs/serving.md. The pieces:

- ``build_app(model, ...)``: the Ray Serve application (an HTTP ingress and N model replicas, one
  session each, with request batching); ``serve.run(build_app("model.onnx", replicas=2))``.
- ``app_builder(args)``: the same for Serve config files and KubeRay
  (``import_path: prismrt.serve:app_builder``).
- the ``prism-serve`` command (``prismrt.serve.cli``).
"""
from ._codec import (InferenceError, RequestError, TensorSpec, decode_response, encode_npy,
                     encode_npz)
from .deployment import (HttpIngress, ModelReplica, app_builder, build_app, make_session,
                         partition_summary)

__all__ = ["build_app", "app_builder", "make_session", "partition_summary", "ModelReplica",
           "HttpIngress", "RequestError", "InferenceError", "TensorSpec", "decode_response",
           "encode_npy", "encode_npz"]
