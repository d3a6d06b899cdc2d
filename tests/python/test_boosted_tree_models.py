"""Gradient-boosted tree models as people ship them: XGBoost and LightGBM models converted by
onnxmltools (TreeEnsembleClassifier / TreeEnsembleRegressor with the converters' base values,
post transforms and, for LightGBM, the Identity it appends), run through prismrt and through the
C ABI (prism_capi_run_model) and compared with onnxruntime on the same inputs: labels equal,
probabilities and values within 1e-5 relative. xgboost-cpu, lightgbm and onnxmltools are pinned
in requirements-test.txt."""
import lightgbm
import numpy as np
import onnxmltools
import onnxruntime
import pytest
import xgboost
from onnxmltools.convert.common.data_types import FloatTensorType

import prismrt
from capi_values import run_through_c_abi

_FEATURES = 7
_OPSET = 15  # the newest onnxmltools 1.16 converts to


def _data(rng, rows, classes):
    x = rng.normal(size=(rows, _FEATURES)).astype(np.float32)
    x[rng.random(size=x.shape) < 0.05] = np.nan  # missing values take the trees' default paths
    score = np.nan_to_num(x[:, 0] + x[:, 1] * x[:, 2] - 0.5 * x[:, 3])
    if classes == 0:
        return x, (score + 0.3 * np.nan_to_num(x[:, 4]) ** 2).astype(np.float32)
    edges = np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1])
    return x, np.searchsorted(edges, score)


def _check_all_ways(model, x, tmp_path, expected_native=None, native_rtol=1e-4):
    """Compares prismrt and the C ABI with onnxruntime; returns onnxruntime's outputs."""
    feeds = {model.graph.input[0].name: x}
    data = model.SerializeToString()
    expected = onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"]).run(
        None, feeds)
    through_python = prismrt.InferenceSession(data).run(None, feeds)
    through_c = run_through_c_abi(data, feeds, tmp_path)
    for way, actual in (("prismrt", through_python), ("C ABI", through_c)):
        assert len(actual) == len(expected), way
        for index, (a, e) in enumerate(zip(actual, expected)):
            a = np.asarray(a)
            assert a.shape == e.shape and a.dtype == e.dtype, (way, index, a.shape, e.shape)
            if e.dtype.kind == "f":
                np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-7,
                                           err_msg="%s output %d" % (way, index))
            else:
                np.testing.assert_array_equal(a, e, err_msg="%s output %d" % (way, index))
    if expected_native is not None:  # the converted model still means what the library meant
        np.testing.assert_allclose(expected[-1], expected_native, rtol=native_rtol, atol=1e-5)
    return expected


@pytest.mark.parametrize("classes", [2, 3])
def test_xgboost_classifier(classes, tmp_path):
    rng = np.random.default_rng(100 + classes)
    x, y = _data(rng, 400, classes)
    classifier = xgboost.XGBClassifier(n_estimators=25, max_depth=4, learning_rate=0.3,
                                       tree_method="hist", n_jobs=1, random_state=0).fit(x, y)
    model = onnxmltools.convert_xgboost(
        classifier, initial_types=[("features", FloatTensorType([None, _FEATURES]))],
        target_opset=_OPSET)
    assert [n.op_type for n in model.graph.node] == ["TreeEnsembleClassifier"]
    test_x, _ = _data(rng, 97, classes)
    label, probabilities = _check_all_ways(model, test_x, tmp_path,
                                           expected_native=classifier.predict_proba(test_x))
    np.testing.assert_array_equal(label, classifier.predict(test_x))
    assert probabilities.shape == (97, classes)


def test_xgboost_regressor(tmp_path):
    rng = np.random.default_rng(7)
    x, y = _data(rng, 400, 0)
    regressor = xgboost.XGBRegressor(n_estimators=30, max_depth=5, tree_method="hist", n_jobs=1,
                                     random_state=0).fit(x, y)
    model = onnxmltools.convert_xgboost(
        regressor, initial_types=[("features", FloatTensorType([None, _FEATURES]))],
        target_opset=_OPSET)
    test_x, _ = _data(rng, 64, 0)
    (values,) = _check_all_ways(model, test_x, tmp_path)
    np.testing.assert_allclose(values.reshape(-1), regressor.predict(test_x), rtol=1e-4,
                               atol=1e-4)


def test_lightgbm_regressor(tmp_path):
    rng = np.random.default_rng(11)
    x, y = _data(rng, 500, 0)
    regressor = lightgbm.LGBMRegressor(n_estimators=40, num_leaves=15, learning_rate=0.1,
                                       n_jobs=1, random_state=0, verbose=-1).fit(x, y)
    model = onnxmltools.convert_lightgbm(
        regressor, initial_types=[("features", FloatTensorType([None, _FEATURES]))],
        target_opset=_OPSET)
    assert "TreeEnsembleRegressor" in [n.op_type for n in model.graph.node]
    test_x, _ = _data(rng, 128, 0)
    (values,) = _check_all_ways(model, test_x, tmp_path)
    np.testing.assert_allclose(values.reshape(-1), regressor.predict(test_x), rtol=1e-4,
                               atol=1e-4)


def test_lightgbm_multiclass_classifier(tmp_path):
    rng = np.random.default_rng(13)
    x, y = _data(rng, 500, 4)
    classifier = lightgbm.LGBMClassifier(n_estimators=20, num_leaves=15, n_jobs=1,
                                         random_state=0, verbose=-1).fit(x, y)
    model = onnxmltools.convert_lightgbm(
        classifier, initial_types=[("features", FloatTensorType([None, _FEATURES]))],
        target_opset=_OPSET, zipmap=False)
    test_x, _ = _data(rng, 80, 4)
    label, probabilities = _check_all_ways(model, test_x, tmp_path)
    np.testing.assert_array_equal(label, classifier.predict(test_x))
    np.testing.assert_allclose(probabilities, classifier.predict_proba(test_x), rtol=1e-4,
                               atol=1e-5)


def test_c_abi_runner_reports_a_failing_run(tmp_path):
    """The C path really runs the model: a feed of the wrong width fails there by name."""
    rng = np.random.default_rng(3)
    x, y = _data(rng, 100, 0)
    regressor = xgboost.XGBRegressor(n_estimators=3, max_depth=2, n_jobs=1).fit(x, y)
    model = onnxmltools.convert_xgboost(
        regressor, initial_types=[("features", FloatTensorType([None, _FEATURES]))],
        target_opset=_OPSET)
    with pytest.raises(RuntimeError, match="features"):
        run_through_c_abi(model.SerializeToString(),
                          {"features": np.zeros((2, _FEATURES + 1), np.float32)}, tmp_path)
