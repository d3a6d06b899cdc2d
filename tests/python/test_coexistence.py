"""onnxruntime, onnx and prismrt imported into one process, in every order, and all used."""
import itertools
import os
import subprocess
import sys

import pytest

SCRIPT = r"""
import sys
import numpy as np
for name in sys.argv[1].split(","):
    __import__(name)
import onnx, onnxruntime, prismrt
from onnx import helper, TensorProto
g = helper.make_graph([helper.make_node("Softmax", ["x"], ["y"], axis=-1)], "g",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
onnx.checker.check_model(m)
data = m.SerializeToString()
x = np.random.RandomState(0).standard_normal((2, 5)).astype(np.float32)
theirs = onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"x": x})
ours = prismrt.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"x": x})
np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-3, atol=1e-4)
# Both parsers still work after the other ran.
assert onnx.load_from_string(data).graph.node[0].op_type == "Softmax"
print("ok")
"""


@pytest.mark.parametrize("order", list(itertools.permutations(["onnx", "onnxruntime", "prismrt"])),
                         ids=lambda o: "-".join(o))
def test_import_orders(order):
    result = subprocess.run([sys.executable, "-c", SCRIPT, ",".join(order)], capture_output=True,
                            text=True, timeout=300, cwd=os.path.dirname(os.path.abspath(__file__)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("ok")
