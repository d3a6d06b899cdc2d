"""NonMaxSuppression against onnxruntime on random boxes: corner and center-point boxes (corners
given in either order), several batches and classes, score and IoU thresholds, per-class limits,
tied scores, inputs left out (no limit: nothing selected), and an IoU threshold outside [0, 1]
refused by name."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261203)


def _model(center_point_box, inputs):
    types = {"boxes": TensorProto.FLOAT, "scores": TensorProto.FLOAT,
             "max_output": TensorProto.INT64, "iou": TensorProto.FLOAT,
             "score": TensorProto.FLOAT}
    node = helper.make_node("NonMaxSuppression", inputs, ["selected"],
                            center_point_box=center_point_box)
    graph = helper.make_graph(
        [node], "nms",
        [helper.make_tensor_value_info(name, types[name], None) for name in inputs if name],
        [helper.make_tensor_value_info("selected", TensorProto.INT64, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)],
                             ir_version=8).SerializeToString()


def _boxes(batches, count, center):
    if center:
        xy = _RNG.uniform(0, 10, size=(batches, count, 2))
        wh = _RNG.uniform(0.5, 4, size=(batches, count, 2))
        return np.concatenate([xy, wh], axis=2).astype(np.float32)
    corners = _RNG.uniform(0, 10, size=(batches, count, 4))
    return corners.astype(np.float32)  # unordered corners included


@pytest.mark.parametrize("center", [0, 1])
@pytest.mark.parametrize("limit,iou,score", [(3, 0.5, None), (10, 0.3, 0.4), (1, 0.0, None),
                                             (20, 1.0, 0.9), (5, 0.6, 0.0)])
def test_matches_onnxruntime(center, limit, iou, score):
    boxes = _boxes(2, 12, center)
    scores = _RNG.uniform(size=(2, 3, 12)).astype(np.float32)
    scores[0, 0, 3] = scores[0, 0, 7]  # a tie
    names = ["boxes", "scores", "max_output", "iou"] + (["score"] if score is not None else [])
    feeds = {"boxes": boxes, "scores": scores, "max_output": np.array([limit], np.int64),
             "iou": np.array([iou], np.float32)}
    if score is not None:
        feeds["score"] = np.array([score], np.float32)
    model = _model(center, names)
    expected = onnxruntime.InferenceSession(model).run(None, feeds)[0]
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    np.testing.assert_array_equal(actual, expected)


def test_without_a_limit_nothing_is_selected():
    model = _model(0, ["boxes", "scores"])
    feeds = {"boxes": _boxes(1, 4, 0), "scores": _RNG.uniform(size=(1, 2, 4)).astype(np.float32)}
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    assert actual.shape == (0, 3) and actual.dtype == np.int64


def test_iou_threshold_outside_the_unit_interval_is_refused():
    model = _model(0, ["boxes", "scores", "max_output", "iou"])
    feeds = {"boxes": _boxes(1, 4, 0), "scores": _RNG.uniform(size=(1, 1, 4)).astype(np.float32),
             "max_output": np.array([2], np.int64), "iou": np.array([1.5], np.float32)}
    with pytest.raises(Exception, match=r"iou_threshold 1.5 is outside \[0, 1\]"):
        ort.InferenceSession(model).run(None, feeds)
