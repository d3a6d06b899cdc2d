"""RoiAlign against onnxruntime on random feature maps and regions: both modes, both
coordinate transformations, opset 10's unshifted regions, fixed and adaptive sampling ratios,
spatial_scale, regions partly or wholly outside the image, degenerate regions, float and
double; bad batch indices are refused by name."""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort

_RNG = np.random.RandomState(20261125)


def _model(elem, opset, **attrs):
    graph = helper.make_graph(
        [helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"], **attrs)], "roi_align",
        [helper.make_tensor_value_info("x", elem, None),
         helper.make_tensor_value_info("rois", elem, None),
         helper.make_tensor_value_info("batch", TensorProto.INT64, None)],
        [helper.make_tensor_value_info("y", elem, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=8).SerializeToString()


def _rois(count, height, width, scale):
    # Corners in input coordinates, some reaching outside the image, some inverted or tiny.
    x1 = _RNG.uniform(-3, width / scale, count)
    y1 = _RNG.uniform(-3, height / scale, count)
    x2 = x1 + _RNG.uniform(-1, width / scale, count)
    y2 = y1 + _RNG.uniform(-1, height / scale, count)
    return np.stack([x1, y1, x2, y2], axis=1)


@pytest.mark.parametrize("opset,transform", [(10, None), (16, None), (16, "half_pixel"),
                                             (16, "output_half_pixel"), (22, "half_pixel"),
                                             (22, "output_half_pixel")])
@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("sampling_ratio,out_h,out_w,scale", [
    (0, 3, 2, 1.0), (2, 2, 4, 0.5), (1, 1, 1, 0.25), (0, 5, 5, 0.125)])
def test_matches_onnxruntime(opset, mode, transform, sampling_ratio, out_h, out_w, scale):
    attrs = {"mode": mode, "sampling_ratio": sampling_ratio, "output_height": out_h,
             "output_width": out_w, "spatial_scale": scale}
    if transform is not None:
        attrs["coordinate_transformation_mode"] = transform
    x = _RNG.standard_normal((2, 3, 7, 9)).astype(np.float32)
    rois = _rois(6, 7, 9, scale).astype(np.float32)
    batch = _RNG.randint(0, 2, 6).astype(np.int64)
    model = _model(TensorProto.FLOAT, opset, **attrs)
    feeds = {"x": x, "rois": rois, "batch": batch}
    # onnxruntime stops at RoiAlign 16; 22 only adds bfloat16.
    peer = _model(TensorProto.FLOAT, min(opset, 16), **attrs)
    expected = onnxruntime.InferenceSession(peer).run(None, feeds)[0]
    actual = ort.InferenceSession(model).run(None, feeds)[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def test_double_and_no_regions():
    x = _RNG.standard_normal((1, 2, 5, 6))
    rois = _rois(4, 5, 6, 1.0)
    model = _model(TensorProto.DOUBLE, 16, output_height=2, output_width=3)
    feeds = {"x": x, "rois": rois, "batch": np.zeros(4, np.int64)}
    np.testing.assert_allclose(ort.InferenceSession(model).run(None, feeds)[0],
                               onnxruntime.InferenceSession(model).run(None, feeds)[0],
                               rtol=1e-12, atol=1e-12)
    feeds = {"x": x, "rois": np.zeros((0, 4)), "batch": np.zeros(0, np.int64)}
    assert ort.InferenceSession(model).run(None, feeds)[0].shape == (0, 2, 2, 3)


def test_hand_checked_average():
    # A 2x2 bin grid over a ramp: half_pixel with sampling_ratio 1 samples bin centres.
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    rois = np.array([[0, 0, 4, 4]], np.float32)  # shifted by -0.5: [-0.5, 3.5]
    model = _model(TensorProto.FLOAT, 16, output_height=2, output_width=2, sampling_ratio=1)
    y = ort.InferenceSession(model).run(None, {"x": x, "rois": rois,
                                               "batch": np.zeros(1, np.int64)})[0]
    # Bin centres at (0.5, 0.5), (0.5, 2.5), (2.5, 0.5), (2.5, 2.5): value = 4 * row + col.
    np.testing.assert_allclose(y.reshape(-1), [2.5, 4.5, 10.5, 12.5], rtol=1e-6)


def test_bad_batch_index_is_refused_by_name():
    model = _model(TensorProto.FLOAT, 16)
    feeds = {"x": np.zeros((1, 1, 2, 2), np.float32), "rois": np.zeros((1, 4), np.float32),
             "batch": np.array([1], np.int64)}
    with pytest.raises(Exception, match=r"batch_indices\[0\] = 1"):
        ort.InferenceSession(model).run(None, feeds)
