"""The ai.onnx.ml map ops against onnxruntime on the same models and inputs: ZipMap (string and
int64 labels, [N, C] and [C]), DictVectorizer (string and int64 keys, every value type of the
spec), CastMap (every cast_to x map_form, max_map, both value types), and scikit-learn pipelines
converted by skl2onnx with their default ZipMap output (ColumnTransformer with StandardScaler and
OneHotEncoder, then a tree ensemble; DictVectorizer then LogisticRegression, a map input).

Results come back as onnxruntime gives them: a seq(map) output as a list of dicts with Python
int/str keys and float values, a map as a dict. onnxruntime's Python makes map inputs of float
values only, so the other map inputs go to onnxruntime through its C API (ort_capi_oracle.py).
"""
import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

import prismrt as ort
from capi_values import run_through_c_abi
from ort_capi_oracle import OrtError, ort_capi

_ML = "ai.onnx.ml"
_RNG = np.random.RandomState(20261126)
_NUMPY = {TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64,
          TensorProto.INT64: np.int64, TensorProto.STRING: object}
_NAMES = {TensorProto.FLOAT: "float", TensorProto.DOUBLE: "double", TensorProto.INT64: "int64",
          TensorProto.STRING: "string"}


def _model(node, inputs, outputs):
    graph = helper.make_graph([node], "map_ops", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid(_ML, 1)],
                             ir_version=8).SerializeToString()


def _map_info(name, key, value):
    return helper.make_value_info(name, helper.make_map_type_proto(
        key, helper.make_tensor_type_proto(value, None)))


def _seq_map_info(name, key, value):
    return helper.make_value_info(name, helper.make_sequence_type_proto(
        helper.make_map_type_proto(key, helper.make_tensor_type_proto(value, None))))


def _onnxruntime(model):
    return onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])


def _same_interface(model):
    """prismrt reports the inputs' and outputs' type strings onnxruntime reports."""
    expected = _onnxruntime(model)
    actual = ort.InferenceSession(model)
    assert [(a.name, a.type) for a in actual.get_inputs()] == \
        [(e.name, e.type) for e in expected.get_inputs()]
    assert [(a.name, a.type) for a in actual.get_outputs()] == \
        [(e.name, e.type) for e in expected.get_outputs()]
    for a, e in zip(actual.get_inputs() + actual.get_outputs(),
                    expected.get_inputs() + expected.get_outputs()):
        if "map(" in e.type:  # maps have no shape: []
            assert a.shape == e.shape == [], (a.name, a.shape, e.shape)
    return actual


def _assert_same_maps(actual, expected, rtol=0.0, atol=0.0):
    """Two lists of dicts: the same keys in the same order, of the same Python types, and the
    same values (within rtol/atol for floats, NaN equal to NaN)."""
    assert isinstance(actual, list), type(actual)
    assert len(actual) == len(expected)
    for index, (a, e) in enumerate(zip(actual, expected)):
        assert isinstance(a, dict), type(a)
        assert list(a.keys()) == list(e.keys()), index
        assert [type(k) for k in a] == [type(k) for k in e], index
        assert [type(v) for v in a.values()] == [type(v) for v in e.values()], index
        np.testing.assert_allclose(np.array(list(a.values()), dtype=np.float64),
                                   np.array(list(e.values()), dtype=np.float64),
                                   rtol=rtol, atol=atol, err_msg="map %d" % index)


def _assert_same_tensor(actual, expected):
    assert isinstance(actual, np.ndarray), type(actual)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if expected.dtype == object:
        assert actual.tolist() == expected.tolist()
        return
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    np.testing.assert_array_equal(actual, expected)


# ---------------------------------------------------------------------------------------------
# ZipMap
# ---------------------------------------------------------------------------------------------
_ZIPMAP_LABELS = {
    "string": ("classlabels_strings", ["setosa", "virginica", "versicolor", "Zeta"],
               TensorProto.STRING),
    "int64": ("classlabels_int64s", [7, -3, 12, 0], TensorProto.INT64),
}


@pytest.mark.parametrize("labels", sorted(_ZIPMAP_LABELS))
@pytest.mark.parametrize("shape", [(5, 4), (4,), (0, 4)])
def test_zipmap(labels, shape):
    attribute, values, key = _ZIPMAP_LABELS[labels]
    model = _model(helper.make_node("ZipMap", ["X"], ["Z"], domain=_ML, **{attribute: values}),
                   [helper.make_tensor_value_info("X", TensorProto.FLOAT, None)],
                   [_seq_map_info("Z", key, TensorProto.FLOAT)])
    x = _RNG.rand(*shape).astype(np.float32)
    session = _same_interface(model)
    (actual,) = session.run(None, {"X": x})
    (expected,) = _onnxruntime(model).run(None, {"X": x})
    _assert_same_maps(actual, expected)
    if expected:
        label = values[1]
        assert type(actual[0][label]) is type(expected[0][label]) is float


def test_zipmap_column_count_must_match_the_labels():
    model = _model(helper.make_node("ZipMap", ["X"], ["Z"], domain=_ML,
                                    classlabels_strings=["a", "b", "c"]),
                   [helper.make_tensor_value_info("X", TensorProto.FLOAT, None)],
                   [_seq_map_info("Z", TensorProto.STRING, TensorProto.FLOAT)])
    x = np.zeros((2, 2), np.float32)
    with pytest.raises(Exception):
        _onnxruntime(model).run(None, {"X": x})
    with pytest.raises(Exception, match="has 2 columns but the node has 3 class labels"):
        ort.InferenceSession(model).run(None, {"X": x})


def test_zipmap_as_ortvalue():
    model = _model(helper.make_node("ZipMap", ["X"], ["Z"], domain=_ML,
                                    classlabels_int64s=[1, 2]),
                   [helper.make_tensor_value_info("X", TensorProto.FLOAT, None)],
                   [_seq_map_info("Z", TensorProto.INT64, TensorProto.FLOAT)])
    x = np.array([[0.25, 0.75]], np.float32)
    (expected,) = _onnxruntime(model).run_with_ort_values(
        None, {"X": onnxruntime.OrtValue.ortvalue_from_numpy(x)})
    (actual,) = ort.InferenceSession(model).run_with_ort_values(
        None, {"X": ort.OrtValue.ortvalue_from_numpy(x)})
    assert actual.data_type() == expected.data_type() == "seq(map(int64,tensor(float)))"
    assert actual.is_tensor() is expected.is_tensor() is False
    assert actual.is_tensor_sequence() is expected.is_tensor_sequence() is False
    with pytest.raises(Exception):
        expected.numpy()
    with pytest.raises(Exception, match="numpy"):
        actual.numpy()


# ---------------------------------------------------------------------------------------------
# DictVectorizer
# ---------------------------------------------------------------------------------------------
_DICT_TYPES = [(TensorProto.STRING, TensorProto.INT64), (TensorProto.INT64, TensorProto.STRING),
               (TensorProto.INT64, TensorProto.FLOAT), (TensorProto.INT64, TensorProto.DOUBLE),
               (TensorProto.STRING, TensorProto.FLOAT), (TensorProto.STRING, TensorProto.DOUBLE)]


def _random_values(value, count, rng):
    if value == TensorProto.STRING:
        return np.array(["v%d" % rng.randint(1000) for _ in range(count)], dtype=object)
    if value == TensorProto.INT64:
        return rng.randint(-50, 50, count).astype(np.int64)
    return (rng.standard_normal(count) * 10).astype(_NUMPY[value])


def _dict_vectorizer_case(key, value, rng):
    """(model, keys, values): a vocabulary of 6 in shuffled order, a map of 5 pairs, 2 of them
    outside the vocabulary."""
    if key == TensorProto.STRING:
        vocabulary = ["w%d" % i for i in rng.permutation(6)]
        keys = np.array(vocabulary[:3] + ["zz", "other"], dtype=object)
        attrs = {"string_vocabulary": vocabulary}
    else:
        vocabulary = [int(v) for v in rng.permutation(6) * 7 - 10]
        keys = np.array(vocabulary[2:5] + [999, -999], dtype=np.int64)
        attrs = {"int64_vocabulary": vocabulary}
    node = helper.make_node("DictVectorizer", ["X"], ["Y"], domain=_ML, **attrs)
    model = _model(node, [_map_info("X", key, value)],
                   [helper.make_tensor_value_info("Y", value, None)])
    return model, keys, _random_values(value, len(keys), rng)


def _as_dict(keys, values):
    return {k.item() if hasattr(k, "item") else k: v.item() if hasattr(v, "item") else v
            for k, v in zip(keys, values)}


@pytest.mark.parametrize("key,value", _DICT_TYPES,
                         ids=["%s_%s" % (_NAMES[k], _NAMES[v]) for k, v in _DICT_TYPES])
def test_dict_vectorizer(key, value):
    rng = np.random.RandomState(key * 100 + value)
    model, keys, values = _dict_vectorizer_case(key, value, rng)
    session = _same_interface(model)
    assert session.get_inputs()[0].type == "map(%s,tensor(%s))" % (_NAMES[key], _NAMES[value])
    expected = ort_capi().run_map(model, keys, values)
    (actual,) = session.run(None, {"X": _as_dict(keys, values)})
    assert actual.shape == (1, 6)
    _assert_same_tensor(actual, expected)
    if value == TensorProto.FLOAT:  # onnxruntime's Python makes these maps: the same again
        (through_python,) = _onnxruntime(model).run(None, {"X": _as_dict(keys, values)})
        _assert_same_tensor(actual, through_python)
    # An empty map: zeros ("" for strings), as onnxruntime's C API gives.
    empty = ort_capi().run_map(model, keys[:0], values[:0])
    (actual_empty,) = session.run(None, {"X": {}})
    _assert_same_tensor(actual_empty, empty)


def test_dict_vectorizer_refuses_values_of_the_wrong_python_type():
    model, _, _ = _dict_vectorizer_case(TensorProto.STRING, TensorProto.FLOAT,
                                        np.random.RandomState(3))
    session = ort.InferenceSession(model)
    with pytest.raises(TypeError, match="map values of type float must be numbers, got str"):
        session.run(None, {"X": {"w1": "1.5"}})
    with pytest.raises(TypeError, match="map keys of type string must be str, got int"):
        session.run(None, {"X": {1: 1.5}})
    with pytest.raises(TypeError, match="a map input takes a dict"):
        session.run(None, {"X": [1.5]})


# ---------------------------------------------------------------------------------------------
# CastMap
# ---------------------------------------------------------------------------------------------
_CAST_OUT = {"TO_FLOAT": TensorProto.FLOAT, "TO_STRING": TensorProto.STRING,
             "TO_INT64": TensorProto.INT64}
_FORMS = [("DENSE", None), ("SPARSE", None), ("SPARSE", 6), ("SPARSE", 20), ("DENSE", 3)]


def _cast_map_model(value, cast_to, map_form, max_map):
    attrs = {"cast_to": cast_to, "map_form": map_form}
    if max_map is not None:
        attrs["max_map"] = max_map
    node = helper.make_node("CastMap", ["X"], ["Y"], domain=_ML, **attrs)
    return _model(node, [_map_info("X", TensorProto.INT64, value)],
                  [helper.make_tensor_value_info("Y", _CAST_OUT[cast_to], None)])


def _cast_map_inputs(value):
    """Keys 0..12 with gaps; float values with halves, a NaN and a large one; strings that
    std::stof/std::stoll read in their own ways (blanks, signs, exponents, trailing text)."""
    keys = np.array([9, 0, 4, 2, 12, 5, 1], dtype=np.int64)
    if value == TensorProto.FLOAT:
        values = np.array([1.5, -2.25, 7.0, np.nan, 3e9, -0.125, 1e-3], dtype=np.float32)
    else:
        values = np.array(["1.5", "-7", " 42", "1e3", "+8x", "2.75", "0.5"], dtype=object)
    return keys, values


@pytest.mark.parametrize("value", [TensorProto.FLOAT, TensorProto.STRING], ids=["float", "string"])
@pytest.mark.parametrize("cast_to", sorted(_CAST_OUT))
@pytest.mark.parametrize("map_form,max_map", _FORMS, ids=["%s%s" % f for f in _FORMS])
def test_cast_map(value, cast_to, map_form, max_map):
    model = _cast_map_model(value, cast_to, map_form, max_map)
    keys, values = _cast_map_inputs(value)
    session = _same_interface(model)
    expected = ort_capi().run_map(model, keys, values)
    (actual,) = session.run(None, {"X": _as_dict(keys, values)})
    if value == TensorProto.FLOAT:
        (through_python,) = _onnxruntime(model).run(None, {"X": _as_dict(keys, values)})
        _assert_same_tensor(expected, through_python)
    _assert_same_tensor(actual, expected)


@pytest.mark.parametrize("cast_to", ["TO_FLOAT", "TO_INT64"])
def test_cast_map_unreadable_string(cast_to):
    # "abc" at key 5: converted (and refused) only where the output reads it.
    keys = np.array([0, 5], dtype=np.int64)
    values = np.array(["1", "abc"], dtype=object)
    for map_form, max_map, fails in [("DENSE", None, True), ("SPARSE", 4, False),
                                     ("SPARSE", 8, True)]:
        model = _cast_map_model(TensorProto.STRING, cast_to, map_form, max_map)
        session = ort.InferenceSession(model)
        if not fails:
            _assert_same_tensor(session.run(None, {"X": _as_dict(keys, values)})[0],
                                ort_capi().run_map(model, keys, values))
            continue
        with pytest.raises(OrtError):
            ort_capi().run_map(model, keys, values)
        with pytest.raises(Exception, match="maps key 5 to 'abc'"):
            session.run(None, {"X": _as_dict(keys, values)})


def test_cast_map_negative_key_when_sparse():
    model = _cast_map_model(TensorProto.FLOAT, "TO_FLOAT", "SPARSE", 4)
    keys = np.array([-2, 1], dtype=np.int64)
    values = np.array([1.0, 2.0], dtype=np.float32)
    with pytest.raises(OrtError, match="Negative index"):
        ort_capi().run_map(model, keys, values)
    with pytest.raises(Exception, match="negative key -2"):
        ort.InferenceSession(model).run(None, {"X": _as_dict(keys, values)})


# ---------------------------------------------------------------------------------------------
# A map output, and a sequence of maps fed from Python
# ---------------------------------------------------------------------------------------------
def test_map_output_is_a_dict():
    # A graph input passed straight through: onnxruntime returns the map as a dict.
    info = _map_info("M", TensorProto.STRING, TensorProto.FLOAT)
    graph = helper.make_graph([], "passthrough", [info], [info])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              ir_version=8).SerializeToString()
    feed = {"b": 1.0, "a": 2, "c": np.float32(0.5)}
    (expected,) = _onnxruntime(model).run(None, {"M": feed})
    (actual,) = _same_interface(model).run(None, {"M": feed})
    assert isinstance(actual, dict)
    _assert_same_maps([actual], [expected])


def test_sequence_of_maps_input_takes_a_list_of_dicts():
    # onnxruntime's Python cannot feed seq(map) inputs; Prism takes a list of dicts.
    info = _seq_map_info("S", TensorProto.INT64, TensorProto.FLOAT)
    graph = helper.make_graph([], "passthrough", [info], [info])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              ir_version=8).SerializeToString()
    session = ort.InferenceSession(model)
    assert session.get_inputs()[0].type == "seq(map(int64,tensor(float)))"
    feed = [{3: 0.5, 1: 0.25}, {}, {7: -1.0}]
    (actual,) = session.run(None, {"S": feed})
    assert actual == [{1: 0.25, 3: 0.5}, {}, {7: -1.0}]
    assert list(actual[0]) == [1, 3]
    assert session.run(None, {"S": []})[0] == []


# ---------------------------------------------------------------------------------------------
# scikit-learn pipelines converted by skl2onnx (default options: ZipMap on)
# ---------------------------------------------------------------------------------------------
def _mixed_table(rows, rng):
    """Three numeric columns and a categorical one (category codes 0-3: skl2onnx takes one
    typed input per ColumnTransformer without pandas)."""
    table = rng.standard_normal((rows, 4)) * [1.0, 5.0, 0.2, 0.0]
    table[:, 3] = rng.randint(0, 4, rows)
    return table.astype(np.float32)


@pytest.mark.parametrize("classifier", ["random_forest", "gradient_boosting"])
def test_sklearn_column_transformer_tree_ensemble_with_zipmap(classifier, tmp_path):
    from skl2onnx import to_onnx
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    table = _mixed_table(300, np.random.RandomState(7))
    score = table[:, 0] + 0.2 * table[:, 1] + (table[:, 3] == 0) - (table[:, 3] == 3)
    if classifier == "random_forest":  # int64 labels: seq(map(int64, float))
        labels = np.digitize(score, [-0.5, 0.7]).astype(np.int64)
        model = RandomForestClassifier(n_estimators=8, max_depth=5, random_state=0)
    else:  # string labels: seq(map(string, float))
        labels = np.array(["low", "mid", "high"])[np.digitize(score, [-0.5, 0.7])]
        model = GradientBoostingClassifier(n_estimators=12, max_depth=3, random_state=0)
    pipeline = Pipeline([
        ("columns", ColumnTransformer([("num", StandardScaler(), [0, 1, 2]),
                                       ("cat", OneHotEncoder(handle_unknown="ignore"), [3])])),
        ("model", model),
    ]).fit(table, labels)
    onnx_model = to_onnx(pipeline, table[:1])  # default options: ZipMap on
    ops = [node.op_type for node in onnx_model.graph.node]
    assert "ZipMap" in ops and "OneHotEncoder" in ops and "Scaler" in ops, ops
    model_bytes = onnx_model.SerializeToString()

    x = _mixed_table(80, np.random.RandomState(8))
    name = onnx_model.graph.input[0].name
    expected_label, expected_probability = _onnxruntime(model_bytes).run(None, {name: x})
    session = _same_interface(model_bytes)
    assert session.get_outputs()[1].type == "seq(map(%s,tensor(float)))" % (
        "int64" if classifier == "random_forest" else "string")
    actual_label, actual_probability = session.run(None, {name: x})
    _assert_same_tensor(actual_label, expected_label)
    _assert_same_maps(actual_probability, expected_probability, rtol=1e-5)
    label = next(iter(expected_probability[0]))
    assert type(actual_probability[0][label]) is type(expected_probability[0][label]) is float
    assert actual_label.tolist() == pipeline.predict(x).tolist()  # scikit-learn agrees too
    # The same model through the C ABI alone (prism_capi_run_model): labels and the list of
    # probability maps.
    through_c_label, through_c_probability = run_through_c_abi(model_bytes, {name: x}, tmp_path)
    _assert_same_tensor(through_c_label, expected_label)
    _assert_same_maps(through_c_probability, expected_probability, rtol=1e-5)


def test_sklearn_dict_vectorizer_pipeline(tmp_path):
    from skl2onnx import convert_sklearn
    from skl2onnx.common.data_types import DictionaryType, FloatTensorType, StringTensorType
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    rng = np.random.RandomState(11)
    words = ["alpha", "beta", "gamma", "delta", "eps"]

    def sample():
        chosen = rng.choice(words, size=rng.randint(1, 5), replace=False)
        return {str(w): float(np.float32(rng.standard_normal())) for w in chosen}

    rows = [sample() for _ in range(120)]
    labels = np.array([int(r.get("alpha", 0) + r.get("gamma", 0) > 0) for r in rows], np.int64)
    pipeline = make_pipeline(DictVectorizer(sparse=False),
                             LogisticRegression(max_iter=500)).fit(rows, labels)
    onnx_model = convert_sklearn(pipeline, initial_types=[
        ("input", DictionaryType(StringTensorType([1]), FloatTensorType([1])))])
    assert [n.op_type for n in onnx_model.graph.node].count("DictVectorizer") == 1
    model_bytes = onnx_model.SerializeToString()
    session = _same_interface(model_bytes)
    assert session.get_inputs()[0].type == "map(string,tensor(float))"
    expected_session = _onnxruntime(model_bytes)
    for row in [sample() for _ in range(20)] + [{"unknown": 1.0}]:
        expected_label, expected_probability = expected_session.run(None, {"input": row})
        actual_label, actual_probability = session.run(None, {"input": row})
        _assert_same_tensor(actual_label, expected_label)
        # onnxruntime's binary LinearClassifier gives the first class 1 - p in float: near p = 1
        # that difference carries float's absolute rounding of p (up to 6e-8), more than 1e-5 of
        # a small result; Prism rounds once from double. atol covers that, rtol the rest.
        _assert_same_maps(actual_probability, expected_probability, rtol=1e-5, atol=1e-7)
        assert actual_label.tolist() == pipeline.predict([row]).tolist()
        # The map input and the outputs through the C ABI alone (prism_capi_run_model).
        through_c_label, through_c_probability = run_through_c_abi(model_bytes, {"input": row},
                                                                   tmp_path)
        _assert_same_tensor(through_c_label, expected_label)
        _assert_same_maps(through_c_probability, expected_probability, rtol=1e-5, atol=1e-7)
