"""ai.onnx.ml operators against onnxruntime on random inputs: LabelEncoder (every opset, every
key and value type, tensor attributes, NaN keys), the tree ensembles (TreeEnsemble 5 with every
node mode, BRANCH_MEMBER sets, missing-value tracks, every aggregate function and post
transform; TreeEnsembleRegressor / TreeEnsembleClassifier 1 and 3, *_as_tensor attributes,
binary and multi-class, int64 and string labels), and the feature ops (Binarizer,
ArrayFeatureExtractor, Scaler, Normalizer, Imputer, FeatureVectorizer, OneHotEncoder,
CategoryMapper, LinearRegressor, LinearClassifier, SVMRegressor, SVMClassifier)."""
import zlib

import numpy as np
import onnx.reference
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt as ort

_RNG = np.random.RandomState(20261125)
_ML = "ai.onnx.ml"


def _seed(key):
    """A seed per parametrized case that does not change between runs (hash() does)."""
    return zlib.crc32(repr(key).encode())


def _model(nodes, inputs, outputs, ml_opset):
    graph = helper.make_graph(nodes, "ml", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid(_ML, ml_opset)],
                             ir_version=8).SerializeToString()


def _expected(model, feeds, fallback):
    """onnxruntime's outputs; where it has no kernel for the types (its LabelEncoder 4 lacks most
    int16/int32/double pairs, Binarizer all but float, Imputer int32 and double, OneHotEncoder
    int32), `fallback()`'s or onnx.reference's."""
    try:
        session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
    except onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented:
        if fallback is None:  # onnx.reference, for the types onnxruntime lacks
            return onnx.reference.ReferenceEvaluator(model).run(None, feeds)
        return fallback()
    return session.run(None, feeds)


def _compare(model, feeds, rtol=1e-5, atol=1e-5, fallback=None):
    expected = _expected(model, feeds, fallback)
    actual = ort.InferenceSession(model).run(None, feeds)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape, (a.shape, e.shape)
        if e.dtype.kind in "OUS":
            assert a.tolist() == e.tolist()
        elif e.dtype.kind == "f":
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)
        else:
            assert a.dtype == e.dtype
            np.testing.assert_array_equal(a, e)
    return actual


def _single(op, x, attrs, out_type, ml_opset=1, n_out=1, out_types=None, fallback=None):
    x_type = helper.np_dtype_to_tensor_dtype(x.dtype) if x.dtype.kind not in "OUS" else \
        TensorProto.STRING
    out_types = out_types or [out_type] * n_out
    names = ["y%d" % i for i in range(len(out_types))]
    node = helper.make_node(op, ["x"], names, domain=_ML, **attrs)
    model = _model([node], [helper.make_tensor_value_info("x", x_type, None)],
                   [helper.make_tensor_value_info(n, t, None) for n, t in zip(names, out_types)],
                   ml_opset)
    return _compare(model, {"x": x}, fallback=fallback)


# ---------------------------------------------------------------------------------------------
# LabelEncoder
# ---------------------------------------------------------------------------------------------
_TYPES = {
    "string": (TensorProto.STRING, np.dtype(object)),
    "int64": (TensorProto.INT64, np.dtype(np.int64)),
    "float": (TensorProto.FLOAT, np.dtype(np.float32)),
    "double": (TensorProto.DOUBLE, np.dtype(np.float64)),
    "int32": (TensorProto.INT32, np.dtype(np.int32)),
    "int16": (TensorProto.INT16, np.dtype(np.int16)),
}


def _values(kind, count):
    if kind == "string":
        return np.array(["s%d" % v for v in _RNG.choice(40, count, replace=False)], dtype=object)
    if kind in ("float", "double"):
        return (_RNG.choice(40, count, replace=False) * 0.5 - 7).astype(_TYPES[kind][1])
    return (_RNG.choice(40, count, replace=False) - 9).astype(_TYPES[kind][1])


def _tensor(name, array, kind):
    if kind == "string":
        return helper.make_tensor(name, TensorProto.STRING, array.shape,
                                  [s.encode() for s in array.ravel()])
    return numpy_helper.from_array(array, name)


def _inputs_from(keys, kind, shape):
    pool = np.concatenate([keys, _values(kind, 6)])
    return pool[_RNG.randint(0, len(pool), size=shape)].astype(keys.dtype)


@pytest.mark.parametrize("key_kind", list(_TYPES))
@pytest.mark.parametrize("value_kind", list(_TYPES))
def test_label_encoder_tensor_attributes(key_kind, value_kind):
    keys = _values(key_kind, 7)
    values = _values(value_kind, 7)
    attrs = {"keys_tensor": _tensor("keys_tensor", keys, key_kind),
             "values_tensor": _tensor("values_tensor", values, value_kind)}
    if _RNG.rand() < 0.7:
        attrs["default_tensor"] = _tensor("default_tensor", _values(value_kind, 1), value_kind)
    x = _inputs_from(keys, key_kind, (3, 5))
    default = (numpy_helper.to_array(attrs["default_tensor"]).ravel()[0]
               if "default_tensor" in attrs else {"string": "_Unused", "float": -0.0,
                                                  "double": -0.0}.get(value_kind, -1))
    if value_kind == "string" and "default_tensor" in attrs:
        default = default.decode() if isinstance(default, bytes) else default
    table = dict(zip(keys.tolist(), values.tolist()))

    def by_hand():  # onnxruntime lacks the pair: a dictionary lookup is the oracle
        out = np.array([table.get(v, default) for v in x.ravel().tolist()], dtype=values.dtype)
        return [out.reshape(x.shape)]

    _single("LabelEncoder", x, attrs, _TYPES[value_kind][0], ml_opset=4, fallback=by_hand)


@pytest.mark.parametrize("opset", [2, 4])
@pytest.mark.parametrize("key_kind", ["string", "int64", "float"])
@pytest.mark.parametrize("value_kind", ["string", "int64", "float"])
def test_label_encoder_lists(opset, key_kind, value_kind):
    suffix = {"string": "strings", "int64": "int64s", "float": "floats"}
    keys = _values(key_kind, 5)
    values = _values(value_kind, 5)
    attrs = {"keys_" + suffix[key_kind]: keys.tolist(), "values_" + suffix[value_kind]:
             values.tolist()}
    default = {"string": ("default_string", "none"), "int64": ("default_int64", 77),
               "float": ("default_float", 2.5)}[value_kind]
    attrs[default[0]] = default[1]
    x = _inputs_from(keys, key_kind, (11,))
    _single("LabelEncoder", x, attrs, _TYPES[value_kind][0], ml_opset=opset)


@pytest.mark.parametrize("opset", [2, 4])
def test_label_encoder_float_defaults_and_nan_key(opset):
    # A NaN key matches NaN from opset 4; at opset 2 NaN takes the default.
    keys = np.array([1.5, np.nan, -2.0], np.float32)
    attrs = {"keys_floats": keys.tolist(), "values_int64s": [4, 5, 6]}
    x = np.array([[1.5, np.nan], [3.0, -2.0]], np.float32)
    _single("LabelEncoder", x, attrs, TensorProto.INT64, ml_opset=opset)
    # No default given: -1 for int64, -0.0 for float, "_Unused" for strings.
    _single("LabelEncoder", np.array([1, 9], np.int64),
            {"keys_int64s": [1], "values_floats": [0.5]}, TensorProto.FLOAT, ml_opset=2)
    _single("LabelEncoder", np.array([1, 9], np.int64),
            {"keys_int64s": [1], "values_strings": ["one"]}, TensorProto.STRING, ml_opset=2)


def test_label_encoder_opset1():
    classes = ["a", "b", "c"]
    _single("LabelEncoder", np.array(["c", "z", "a"], dtype=object),
            {"classes_strings": classes, "default_int64": 9}, TensorProto.INT64)
    _single("LabelEncoder", np.array([[2, 5], [-1, 0]], np.int64),
            {"classes_strings": classes, "default_string": "?"}, TensorProto.STRING)


# ---------------------------------------------------------------------------------------------
# Tree ensembles
# ---------------------------------------------------------------------------------------------
_MODES = ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"]


def _random_tree(depth, features, grid, rng, member=False):
    """A tree as nested dicts: branches {mode, feature, value, members, missing, true, false} and
    leaves {"leaf": True}. Thresholds come from `grid`, the values X draws from, so equality modes
    and boundaries are hit."""
    if depth == 0 or (depth < 3 and rng.rand() < 0.25):
        return {"leaf": True}
    modes = _MODES + (["BRANCH_MEMBER"] if member else [])
    mode = modes[rng.randint(len(modes))]
    node = {"mode": mode, "feature": int(rng.randint(features)),
            "value": float(grid[rng.randint(len(grid))]), "missing": int(rng.rand() < 0.5)}
    if mode == "BRANCH_MEMBER":
        # onnxruntime takes integral members only
        node["members"] = sorted(set(float(v) for v in rng.choice(grid[grid == np.round(grid)],
                                                                  3)))
    node["true"] = _random_tree(depth - 1, features, grid, rng, member)
    node["false"] = _random_tree(depth - 1, features, grid, rng, member)
    return node


def _flatten(tree, nodes):
    """Pre-order ids: nodes gets every node; returns the id of `tree`."""
    index = len(nodes)
    nodes.append(tree)
    if not tree.get("leaf"):
        tree["true_id"] = _flatten(tree["true"], nodes)
        tree["false_id"] = _flatten(tree["false"], nodes)
    return index


_GRID = np.array([-2, -1, -0.5, 0, 0.25, 0.5, 1, 2], np.float32)


def _features(rows, columns, nan_fraction=0.15):
    x = _GRID[_RNG.randint(0, len(_GRID), size=(rows, columns))].copy()
    x[_RNG.rand(rows, columns) < nan_fraction] = np.nan
    return x


def _legacy_attributes(trees, targets, prefix, as_tensor, rng, positive=False, one_target=None):
    attrs = {k: [] for k in ["nodes_treeids", "nodes_nodeids", "nodes_featureids",
                             "nodes_modes", "nodes_values", "nodes_truenodeids",
                             "nodes_falsenodeids", "nodes_missing_value_tracks_true"]}
    leaf_attrs = {prefix + k: [] for k in ["treeids", "nodeids", "ids", "weights"]}
    for tree_id, tree in enumerate(trees):
        nodes = []
        _flatten(tree, nodes)
        for node_id, node in enumerate(nodes):
            attrs["nodes_treeids"].append(tree_id)
            attrs["nodes_nodeids"].append(node_id)
            leaf = node.get("leaf", False)
            attrs["nodes_featureids"].append(0 if leaf else node["feature"])
            attrs["nodes_modes"].append("LEAF" if leaf else node["mode"])
            attrs["nodes_values"].append(0.0 if leaf else node["value"])
            attrs["nodes_truenodeids"].append(0 if leaf else node["true_id"])
            attrs["nodes_falsenodeids"].append(0 if leaf else node["false_id"])
            attrs["nodes_missing_value_tracks_true"].append(0 if leaf else node["missing"])
            if leaf:
                for target in sorted(set(rng.randint(0, targets, size=rng.randint(1, 3)))):
                    if one_target is not None:
                        target = one_target
                    leaf_attrs[prefix + "treeids"].append(tree_id)
                    leaf_attrs[prefix + "nodeids"].append(node_id)
                    leaf_attrs[prefix + "ids"].append(int(target))
                    weight = rng.rand() if positive else rng.standard_normal()
                    leaf_attrs[prefix + "weights"].append(float(np.float32(weight)))
    attrs.update(leaf_attrs)
    if as_tensor:
        for name in ["nodes_values", prefix + "weights"]:
            attrs[name + "_as_tensor"] = numpy_helper.from_array(
                np.array(attrs.pop(name), np.float32), name + "_as_tensor")
    return attrs


@pytest.mark.parametrize("opset", [1, 3])
@pytest.mark.parametrize("aggregate", ["SUM", "AVERAGE", "MIN", "MAX"])
@pytest.mark.parametrize("post", ["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO", "PROBIT"])
@pytest.mark.parametrize("targets", [1, 3])
def test_tree_ensemble_regressor(opset, aggregate, post, targets):
    rng = np.random.RandomState(_seed((opset, aggregate, post, targets)))
    trees = [_random_tree(4, 3, _GRID, rng) for _ in range(4)]
    attrs = _legacy_attributes(trees, targets, "target_", opset == 3 and rng.rand() < 0.7, rng)
    attrs.update(n_targets=targets, aggregate_function=aggregate, post_transform=post)
    if rng.rand() < 0.6:
        attrs["base_values"] = [float(np.float32(v)) for v in rng.standard_normal(targets)]
    if post == "PROBIT":  # probit takes probabilities
        attrs["base_values"] = [0.0] * targets
        for key in ("target_weights",):
            if key in attrs:
                attrs[key] = [abs(w) / 8 + 0.01 for w in attrs[key]]
        if "target_weights_as_tensor" in attrs:
            w = numpy_helper.to_array(attrs["target_weights_as_tensor"])
            attrs["target_weights_as_tensor"] = numpy_helper.from_array(
                np.abs(w) / 8 + 0.01, "target_weights_as_tensor")
    for dtype in (np.float32, np.float64):
        for name in list(attrs):  # onnxruntime reads *_as_tensor in X's type
            if name.endswith("_as_tensor"):
                attrs[name] = numpy_helper.from_array(
                    numpy_helper.to_array(attrs[name]).astype(dtype), name)
        x = _features(20, 3).astype(dtype)
        node = helper.make_node("TreeEnsembleRegressor", ["x"], ["y"], domain=_ML, **attrs)
        model = _model([node], [helper.make_tensor_value_info(
            "x", helper.np_dtype_to_tensor_dtype(x.dtype), None)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], opset)
        # PROBIT magnifies the last bits of a sum (onnxruntime adds in float, Prism in double).
        tolerance = 1e-4 if post == "PROBIT" else 1e-5
        _compare(model, {"x": x}, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_tree_ensemble_regressor_integer_features(dtype):
    rng = np.random.RandomState(7)
    trees = [_random_tree(3, 2, np.array([-1, 0, 1, 2], np.float32), rng) for _ in range(3)]
    attrs = _legacy_attributes(trees, 2, "target_", False, rng)
    attrs.update(n_targets=2)
    x = rng.randint(-2, 3, size=(9, 2)).astype(dtype)
    node = helper.make_node("TreeEnsembleRegressor", ["x"], ["y0"], domain=_ML, **attrs)

    def model(x_type):
        return _model([node], [helper.make_tensor_value_info("x", x_type, None)],
                      [helper.make_tensor_value_info("y0", TensorProto.FLOAT, None)], 3)

    # onnxruntime has no integer-input kernel: it runs the same values as float.
    expected = onnxruntime.InferenceSession(model(TensorProto.FLOAT), providers=[
        "CPUExecutionProvider"]).run(None, {"x": x.astype(np.float32)})[0]
    actual = ort.InferenceSession(model(helper.np_dtype_to_tensor_dtype(x.dtype))).run(
        None, {"x": x})[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6)


def _classifier(opset, classes, labels, post, rng, binary=False, positive=False, base=None,
                as_tensor=False, one_target=None):
    trees = [_random_tree(4, 3, _GRID, rng) for _ in range(3)]
    attrs = _legacy_attributes(trees, 1 if binary else classes, "class_", as_tensor, rng,
                               positive=positive, one_target=one_target)
    if labels == "int":
        attrs["classlabels_int64s"] = list(range(10, 10 + classes))
    else:
        attrs["classlabels_strings"] = ["c%d" % i for i in range(classes)]
    attrs["post_transform"] = post
    if base is not None:
        attrs["base_values"] = base
    return attrs


@pytest.mark.parametrize("opset", [1, 3])
@pytest.mark.parametrize("labels", ["int", "string"])
@pytest.mark.parametrize("post", ["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO", "PROBIT"])
def test_tree_ensemble_classifier_multiclass(opset, labels, post):
    rng = np.random.RandomState(_seed((opset, labels, post)))
    base = [0.1, -0.2, 0.3] if rng.rand() < 0.5 else None
    positive = post == "PROBIT"
    attrs = _classifier(opset, 3, labels, post, rng, base=base, positive=positive,
                        as_tensor=opset == 3)
    if positive and base:
        attrs["base_values"] = [0.0, 0.0, 0.0]
    label_type = TensorProto.INT64 if labels == "int" else TensorProto.STRING
    _single("TreeEnsembleClassifier", _features(25, 3), attrs, None, ml_opset=opset,
            out_types=[label_type, TensorProto.FLOAT])


@pytest.mark.parametrize("labels", ["int", "string"])
@pytest.mark.parametrize("post", ["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"])
@pytest.mark.parametrize("positive", [True, False])
@pytest.mark.parametrize("base", [None, [0.25]])
def test_tree_ensemble_classifier_binary(labels, post, positive, base):
    # Two labels, every weight on class id 0 (gradient boosting's layout): the second score is
    # derived from the first. Two base values and PROBIT: see the next tests (onnxruntime's
    # outputs there are not usable: a zero column, NaN, values left over).
    rng = np.random.RandomState(_seed((labels, post, positive, str(base))))
    attrs = _classifier(3, 2, labels, post, rng, binary=True, positive=positive, base=base,
                        one_target=0)
    label_type = TensorProto.INT64 if labels == "int" else TensorProto.STRING
    _single("TreeEnsembleClassifier", _features(25, 3), attrs, None, ml_opset=3,
            out_types=[label_type, TensorProto.FLOAT])


def _reference_and_prism(attrs, x, opset=3):
    node = helper.make_node("TreeEnsembleClassifier", ["x"], ["y0", "y1"], domain=_ML, **attrs)
    label = TensorProto.STRING if "classlabels_strings" in attrs else TensorProto.INT64
    model = _model([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                   [helper.make_tensor_value_info("y0", label, None),
                    helper.make_tensor_value_info("y1", TensorProto.FLOAT, None)], opset)
    expected = onnx.reference.ReferenceEvaluator(model).run(None, {"x": x})
    actual = ort.InferenceSession(model).run(None, {"x": x})
    return expected, actual


def test_tree_ensemble_classifier_binary_probit():
    # PROBIT of a binary classifier: [probit(1 - s), probit(s)], as onnx.reference.
    rng = np.random.RandomState(5)
    attrs = _classifier(3, 2, "int", "PROBIT", rng, binary=True, positive=True, one_target=0)
    attrs["class_weights"] = [w / 4 for w in attrs["class_weights"]]  # s stays inside (0, 1)
    attrs["base_values"] = [0.05]
    # No NaN: onnx.reference sends NaN to the false branch of BRANCH_NEQ when untracked,
    # onnxruntime (and Prism) to the true one (NaN != t).
    expected, actual = _reference_and_prism(attrs, _features(25, 3, nan_fraction=0))
    np.testing.assert_array_equal(actual[0], expected[0])
    # Prism computes probit as onnxruntime, in float, whose erf^-1 cancels near p = 0.5 (probit
    # near 0): there it is only within 0.05 of the reference's double computation.
    near_half = np.abs(expected[1]) < 0.15
    np.testing.assert_allclose(actual[1][~near_half], expected[1][~near_half], rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(actual[1][near_half], expected[1][near_half], atol=0.05)


@pytest.mark.parametrize("post", ["NONE", "LOGISTIC", "SOFTMAX", "PROBIT"])
def test_tree_ensemble_classifier_two_class_ids(post):
    # Two labels with weights on both class ids: scored as any multi-class model (onnxruntime
    # returns the labels 0 and 1 here instead of the class labels), as onnx.reference.
    rng = np.random.RandomState(11)
    attrs = _classifier(3, 2, "int", post, rng, positive=True)
    if post == "PROBIT":  # scores stay inside (0, 1), where probit is finite
        attrs["class_weights"] = [w / 10 for w in attrs["class_weights"]]
        attrs["base_values"] = [0.02, 0.02]
    # No NaN: onnx.reference sends NaN to the false branch of BRANCH_NEQ when untracked,
    # onnxruntime (and Prism) to the true one (NaN != t).
    expected, actual = _reference_and_prism(attrs, _features(25, 3, nan_fraction=0))
    np.testing.assert_array_equal(actual[0], expected[0])
    np.testing.assert_allclose(actual[1], expected[1], rtol=1e-5, atol=1e-5)


def _v5_attributes(trees, targets, rng, dtype):
    features, splits, modes, true_ids, false_ids, true_leafs, false_leafs, missing = \
        [], [], [], [], [], [], [], []
    leaf_targets, leaf_weights, roots, members = [], [], [], []
    mode_codes = {m: i for i, m in enumerate(_MODES + ["BRANCH_MEMBER"])}

    def add(tree):
        if tree.get("leaf"):
            leaf_targets.append(int(rng.randint(targets)))
            leaf_weights.append(rng.standard_normal())
            return len(leaf_targets) - 1, 1
        index = len(features)
        features.append(tree["feature"])
        splits.append(tree["value"])
        modes.append(mode_codes[tree["mode"]])
        missing.append(tree["missing"])
        for lst in (true_ids, false_ids, true_leafs, false_leafs):
            lst.append(0)
        if tree["mode"] == "BRANCH_MEMBER":
            members.append(index)
            tree["member_slot"] = index
        t, tl = add(tree["true"])
        f, fl = add(tree["false"])
        true_ids[index], true_leafs[index] = t, tl
        false_ids[index], false_leafs[index] = f, fl
        return index, 0

    for tree in trees:
        if tree.get("leaf"):  # a one-leaf tree: a node whose two children are the same leaf
            index = len(features)
            features.append(0)
            splits.append(0.0)
            modes.append(0)
            missing.append(0)
            leaf_targets.append(int(rng.randint(targets)))
            leaf_weights.append(rng.standard_normal())
            true_ids.append(len(leaf_targets) - 1)
            false_ids.append(len(leaf_targets) - 1)
            true_leafs.append(1)
            false_leafs.append(1)
            roots.append(index)
        else:
            roots.append(add(tree)[0])
    member_values = []
    nodes_in_order = sorted(members)
    by_index = {}

    def collect(tree):
        if tree.get("leaf"):
            return
        if tree["mode"] == "BRANCH_MEMBER":
            by_index[tree["member_slot"]] = tree["members"]
        collect(tree["true"])
        collect(tree["false"])

    for tree in trees:
        collect(tree)
    for index in nodes_in_order:
        member_values += by_index[index] + [np.nan]
    attrs = dict(
        nodes_featureids=features,
        nodes_splits=numpy_helper.from_array(np.array(splits, dtype), "nodes_splits"),
        nodes_modes=numpy_helper.from_array(np.array(modes, np.uint8), "nodes_modes"),
        nodes_truenodeids=true_ids, nodes_falsenodeids=false_ids,
        nodes_trueleafs=true_leafs, nodes_falseleafs=false_leafs,
        nodes_missing_value_tracks_true=missing,
        leaf_targetids=leaf_targets,
        leaf_weights=numpy_helper.from_array(np.array(leaf_weights, dtype), "leaf_weights"),
        tree_roots=roots, n_targets=targets)
    if member_values:
        attrs["membership_values"] = numpy_helper.from_array(np.array(member_values, dtype),
                                                             "membership_values")
    return attrs


@pytest.mark.parametrize("aggregate", [0, 1, 2, 3])
@pytest.mark.parametrize("post", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tree_ensemble_v5(aggregate, post, dtype):
    rng = np.random.RandomState(_seed((aggregate, post, str(dtype))))
    targets = 1 if post == 4 else 3
    trees = [_random_tree(4, 3, _GRID, rng, member=True) for _ in range(4)] + [{"leaf": True}]
    attrs = _v5_attributes(trees, targets, rng, dtype)
    attrs.update(aggregate_function=aggregate)
    if post == 4:  # probit takes probabilities
        w = numpy_helper.to_array(attrs["leaf_weights"])
        attrs["leaf_weights"] = numpy_helper.from_array((np.abs(w) / 8 + 0.01).astype(dtype),
                                                        "leaf_weights")
    # onnxruntime tests membership on the feature cast to an integer (0.25 is in {0}), the spec
    # on the value itself, so X takes integral values here (test_tree_ensemble_v5_fractional
    # checks fractional members against onnx.reference).
    x = np.round(_features(30, 3)).astype(dtype)
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))

    def model(transform):
        node = helper.make_node("TreeEnsemble", ["x"], ["y"], domain=_ML,
                                **dict(attrs, post_transform=transform))
        return _model([node], [helper.make_tensor_value_info("x", elem, None)],
                      [helper.make_tensor_value_info("y", elem, None)], 5)

    # onnxruntime reads post_transform 1 as LOGISTIC and 2 as SOFTMAX, the spec the other way
    # round (1 SOFTMAX, 2 LOGISTIC): its model gets the swapped code.
    expected = onnxruntime.InferenceSession(model({1: 2, 2: 1}.get(post, post)), providers=[
        "CPUExecutionProvider"]).run(None, {"x": x})[0]
    actual = ort.InferenceSession(model(post)).run(None, {"x": x})[0]
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def test_tree_ensemble_v5_fractional_membership():
    rng = np.random.RandomState(3)
    trees = [_random_tree(4, 3, _GRID, rng, member=True) for _ in range(4)]
    for tree in trees:  # fractional members
        stack = [tree]
        while stack:
            node = stack.pop()
            if not node.get("leaf"):
                if node["mode"] == "BRANCH_MEMBER":  # not 0: the reference ends a set at 0
                    node["members"] = sorted(set(float(v) for v in rng.choice(_GRID[_GRID != 0],
                                                                                3)))
                stack += [node["true"], node["false"]]
    attrs = _v5_attributes(trees, 2, rng, np.float32)
    x = _features(40, 3)
    node = helper.make_node("TreeEnsemble", ["x"], ["y"], domain=_ML, **attrs)
    model = _model([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], 5)
    expected = onnx.reference.ReferenceEvaluator(model).run(None, {"x": x})[0]
    actual = ort.InferenceSession(model).run(None, {"x": x})[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# Feature ops
# ---------------------------------------------------------------------------------------------
_NUMERIC = [np.float32, np.float64, np.int64, np.int32]


def _numbers(dtype, shape):
    if np.dtype(dtype).kind == "f":
        x = (_RNG.randint(-8, 9, size=shape) / 4).astype(dtype)
        x[_RNG.rand(*shape) < 0.1] = np.nan
        return x
    return _RNG.randint(-6, 7, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", _NUMERIC)
def test_binarizer(dtype):
    x = _numbers(dtype, (4, 5))
    if x.dtype.kind == "f":  # NaN is not above the threshold: 0 (onnxruntime refuses NaN)
        node = helper.make_node("Binarizer", ["x"], ["y"], domain=_ML, threshold=0.5)
        elem = helper.np_dtype_to_tensor_dtype(x.dtype)
        model = _model([node], [helper.make_tensor_value_info("x", elem, None)],
                       [helper.make_tensor_value_info("y", elem, None)], 1)
        expected = onnx.reference.ReferenceEvaluator(model).run(None, {"x": x})[0]
        np.testing.assert_array_equal(ort.InferenceSession(model).run(None, {"x": x})[0],
                                      expected)
        x = np.nan_to_num(x, nan=0.5)
    _single("Binarizer", x, {"threshold": 0.5}, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))


@pytest.mark.parametrize("dtype", _NUMERIC + [object])
@pytest.mark.parametrize("shape,indices", [((3, 4), [1, 3]), ((2, 3, 5), [[4, 0, 0]]),
                                           ((6,), [5, 2]), ((2, 4), [[3], [1]])])
def test_array_feature_extractor(dtype, shape, indices):
    if dtype is object:
        x = np.array(["v%d" % i for i in range(int(np.prod(shape)))], dtype=object).reshape(shape)
        x_type = TensorProto.STRING
    else:
        x = _numbers(dtype, shape)
        x_type = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    node = helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["y"], domain=_ML)
    model = _model([node], [helper.make_tensor_value_info("x", x_type, None),
                            helper.make_tensor_value_info("i", TensorProto.INT64, None)],
                   [helper.make_tensor_value_info("y", x_type, None)], 1)
    _compare(model, {"x": x, "i": np.array(indices, np.int64)})


@pytest.mark.parametrize("dtype", _NUMERIC)
@pytest.mark.parametrize("per_column", [True, False])
def test_scaler(dtype, per_column):
    x = _numbers(dtype, (5, 3))
    attrs = {"offset": [0.5, -1.0, 2.0] if per_column else [0.25],
             "scale": [2.0, 0.5, -3.0] if per_column else [1.5]}
    _single("Scaler", x, attrs, TensorProto.FLOAT)


@pytest.mark.parametrize("dtype", _NUMERIC)
@pytest.mark.parametrize("norm", ["MAX", "L1", "L2"])
def test_normalizer(dtype, norm):
    x = _numbers(dtype, (6, 4))
    if x.dtype.kind == "f":
        x[np.isnan(x)] = 1.5
    x[0] = 0  # a zero row stays zero
    if norm == "MAX":  # onnxruntime divides by the largest value; all-negative rows differ
        x[1] = -np.abs(x[1]) - 1
    _single("Normalizer", x, {"norm": norm}, TensorProto.FLOAT)


@pytest.mark.parametrize("dtype", _NUMERIC)
@pytest.mark.parametrize("per_column", [True, False])
def test_imputer(dtype, per_column):
    x = _numbers(dtype, (5, 3))
    if np.dtype(dtype).kind == "f":
        attrs = {"imputed_value_floats": [9.0, 8.0, 7.0] if per_column else [5.5],
                 "replaced_value_float": float("nan") if per_column else 0.5}
    else:
        attrs = {"imputed_value_int64s": [9, 8, 7] if per_column else [5],
                 "replaced_value_int64": 1}
    _single("Imputer", x, attrs, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))


@pytest.mark.parametrize("dtype", _NUMERIC)
def test_feature_vectorizer(dtype):
    a = _numbers(dtype, (4, 3))
    b = _numbers(dtype, (4, 1))
    c = _numbers(dtype, (4, 5))
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    node = helper.make_node("FeatureVectorizer", ["a", "b", "c"], ["y"], domain=_ML,
                            inputdimensions=[3, 2, 4])  # b padded with a zero, c cut
    model = _model([node], [helper.make_tensor_value_info(n, elem, None) for n in "abc"],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], 1)
    _compare(model, {"a": a, "b": b, "c": c})


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float32, np.float64, object])
@pytest.mark.parametrize("shape", [(7,), (3, 4)])
def test_one_hot_encoder(dtype, shape):
    if dtype is object:
        cats = {"cats_strings": ["a", "b", "c", "d"]}
        x = np.array(["abcde"[i] for i in _RNG.randint(0, 5, size=shape).ravel()],
                     dtype=object).reshape(shape)
    else:
        cats = {"cats_int64s": [3, -1, 0, 2]}
        x = _RNG.randint(-2, 5, size=shape).astype(dtype)
    _single("OneHotEncoder", x, dict(cats, zeros=1), TensorProto.FLOAT)


def test_category_mapper():
    attrs = {"cats_strings": ["a", "b", "c"], "cats_int64s": [5, 7, 9], "default_int64": -7,
             "default_string": "none"}
    _single("CategoryMapper", np.array([["a", "z"], ["c", "b"]], dtype=object), attrs,
            TensorProto.INT64)
    _single("CategoryMapper", np.array([7, 1, 9, 5], np.int64), attrs, TensorProto.STRING)


# ---------------------------------------------------------------------------------------------
# Linear models and SVMs
# ---------------------------------------------------------------------------------------------
def _weights(count):
    return [float(np.float32(v)) for v in _RNG.standard_normal(count) / 2]


@pytest.mark.parametrize("dtype", _NUMERIC)
@pytest.mark.parametrize("targets", [1, 3])
@pytest.mark.parametrize("post", ["NONE", "PROBIT", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"])
def test_linear_regressor(dtype, targets, post):
    x = _numbers(dtype, (6, 4))
    if x.dtype.kind == "f":
        x[np.isnan(x)] = 0.75
    attrs = {"coefficients": _weights(4 * targets), "intercepts": _weights(targets),
             "targets": targets, "post_transform": post}
    if post == "PROBIT":  # probabilities
        x = np.abs(x) / 40
        attrs["coefficients"] = [abs(c) for c in attrs["coefficients"]]
        attrs["intercepts"] = [0.2] * targets
    if x.dtype == np.float32:
        _single("LinearRegressor", x, attrs, TensorProto.FLOAT)
        return
    # onnxruntime has only a float kernel: it runs the same values (exact in float) as float.
    node = helper.make_node("LinearRegressor", ["x"], ["y"], domain=_ML, **attrs)

    def model(elem):
        return _model([node], [helper.make_tensor_value_info("x", elem, None)],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], 1)

    expected = onnxruntime.InferenceSession(model(TensorProto.FLOAT), providers=[
        "CPUExecutionProvider"]).run(None, {"x": x.astype(np.float32)})[0]
    actual = ort.InferenceSession(model(helper.np_dtype_to_tensor_dtype(x.dtype))).run(
        None, {"x": x})[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", _NUMERIC)
@pytest.mark.parametrize("labels", ["int", "string"])
@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("post", ["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"])
def test_linear_classifier(dtype, labels, classes, post):
    x = _numbers(dtype, (7, 3))
    if x.dtype.kind == "f":
        x[np.isnan(x)] = -0.25
    attrs = {"coefficients": _weights(3 * classes), "intercepts": _weights(classes),
             "post_transform": post}
    if labels == "int":
        attrs["classlabels_ints"] = list(range(5, 5 + classes))
    else:
        attrs["classlabels_strings"] = ["k%d" % i for i in range(classes)]
    label_type = TensorProto.INT64 if labels == "int" else TensorProto.STRING
    _single("LinearClassifier", x, attrs, None, out_types=[label_type, TensorProto.FLOAT])


@pytest.mark.parametrize("labels", ["int", "string"])
@pytest.mark.parametrize("post", ["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"])
def test_linear_classifier_binary(labels, post):
    # One coefficient row, two labels: the second label when the score is above 0.
    x = _numbers(np.float32, (9, 3))
    x[np.isnan(x)] = 0.5
    attrs = {"coefficients": _weights(3), "intercepts": [0.1], "post_transform": post}
    if labels == "int":
        attrs["classlabels_ints"] = [0, 1]
    else:
        attrs["classlabels_strings"] = ["no", "yes"]
    label_type = TensorProto.INT64 if labels == "int" else TensorProto.STRING
    _single("LinearClassifier", x, attrs, None, out_types=[label_type, TensorProto.FLOAT])


@pytest.mark.parametrize("kernel", ["LINEAR", "POLY", "RBF", "SIGMOID"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("one_class", [0, 1])
@pytest.mark.parametrize("post", ["NONE", "LOGISTIC"])
def test_svm_regressor(kernel, dtype, one_class, post):
    supports = 4
    x = _numbers(dtype, (6, 3))
    x[np.isnan(x)] = 0.5
    attrs = {"kernel_type": kernel, "kernel_params": [0.3, 0.5, 2.0], "n_supports": supports,
             "support_vectors": _weights(supports * 3), "coefficients": _weights(supports),
             "rho": [0.25], "one_class": one_class, "post_transform": post}
    if dtype == np.float32:
        _single("SVMRegressor", x, attrs, TensorProto.FLOAT)
        return
    # onnxruntime has only a float kernel: the same values (exact in float) run as float.
    node = helper.make_node("SVMRegressor", ["x"], ["y"], domain=_ML, **attrs)

    def model(elem):
        return _model([node], [helper.make_tensor_value_info("x", elem, None)],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], 1)

    expected = onnxruntime.InferenceSession(model(TensorProto.FLOAT), providers=[
        "CPUExecutionProvider"]).run(None, {"x": x.astype(np.float32)})[0]
    actual = ort.InferenceSession(model(TensorProto.DOUBLE)).run(None, {"x": x})[0]
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def test_svm_regressor_linear_without_supports():
    x = _numbers(np.float32, (5, 3))
    x[np.isnan(x)] = 1.0
    _single("SVMRegressor", x, {"coefficients": _weights(3), "rho": [-0.5], "n_supports": 0,
                                "kernel_type": "LINEAR", "kernel_params": [0.0, 0.0, 0.0]},
            TensorProto.FLOAT)


def _svm_classifier_attrs(classes, kernel, labels, probabilities, post, per_class=(2, 1, 3)):
    counts = list(per_class[:classes])
    vectors = sum(counts)
    pairs = classes * (classes - 1) // 2
    attrs = {"kernel_type": kernel, "kernel_params": [0.4, 0.3, 2.0],
             "vectors_per_class": counts, "support_vectors": _weights(vectors * 3),
             "coefficients": _weights((classes - 1) * vectors), "rho": _weights(pairs),
             "post_transform": post}
    if probabilities:
        attrs["prob_a"] = [-1.5 - abs(v) for v in _weights(pairs)]
        attrs["prob_b"] = _weights(pairs)
    if labels == "int":
        attrs["classlabels_ints"] = list(range(3, 3 + classes))
    else:
        attrs["classlabels_strings"] = ["s%d" % i for i in range(classes)]
    return attrs


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("kernel", ["LINEAR", "POLY", "RBF", "SIGMOID"])
@pytest.mark.parametrize("probabilities", [False, True])
@pytest.mark.parametrize("labels", ["int", "string"])
def test_svm_classifier(classes, kernel, probabilities, labels):
    x = _numbers(np.float32, (8, 3))
    x[np.isnan(x)] = 0.5
    attrs = _svm_classifier_attrs(classes, kernel, labels, probabilities, "NONE")
    label_type = TensorProto.INT64 if labels == "int" else TensorProto.STRING
    _single("SVMClassifier", x, attrs, None, out_types=[label_type, TensorProto.FLOAT])


@pytest.mark.parametrize("post", ["LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"])
@pytest.mark.parametrize("classes", [2, 3])
def test_svm_classifier_post_transform(post, classes):
    x = _numbers(np.float32, (8, 3))
    x[np.isnan(x)] = 0.5
    attrs = _svm_classifier_attrs(classes, "RBF", "int", False, post)
    _single("SVMClassifier", x, attrs, None, out_types=[TensorProto.INT64, TensorProto.FLOAT])


@pytest.mark.parametrize("classes", [2, 3])
def test_svm_classifier_linear(classes):
    x = _numbers(np.float32, (8, 3))
    x[np.isnan(x)] = 0.5
    attrs = {"coefficients": _weights(3 * classes), "rho": [0.2], "kernel_type": "LINEAR",
             "kernel_params": [0.0, 0.0, 0.0], "classlabels_ints": list(range(classes)),
             "vectors_per_class": [0] * classes, "support_vectors": [0.0]}
    _single("SVMClassifier", x, attrs, None, out_types=[TensorProto.INT64, TensorProto.FLOAT])


def test_sklearn_scaler_and_forest_pipeline():
    """A fitted StandardScaler + RandomForestClassifier converted by skl2onnx (zipmap off: the
    probabilities as a tensor); scikit-learn and skl2onnx are pinned in requirements-test.txt."""
    from skl2onnx import to_onnx
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.RandomState(0)
    x = rng.standard_normal((200, 4)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] * x[:, 2] > 0).astype(np.int64) + (x[:, 3] > 1)
    pipeline = make_pipeline(StandardScaler(), RandomForestClassifier(
        n_estimators=5, max_depth=4, random_state=0)).fit(x, y)
    onnx_model = to_onnx(pipeline, x[:1], options={RandomForestClassifier: {"zipmap": False}})
    name = onnx_model.graph.input[0].name
    _compare(onnx_model.SerializeToString(), {name: x[:60]})


def test_tree_ensemble_v5_float16():
    # onnxruntime has no float16 TreeEnsemble: the same trees in float are the oracle (every
    # split, weight and feature here is exact in float16, and so are the sums of 3 leaves).
    rng = np.random.RandomState(9)
    trees = [_random_tree(3, 3, _GRID, rng) for _ in range(3)]
    attrs16 = _v5_attributes([dict(t) for t in trees], 2, np.random.RandomState(1), np.float16)
    attrs32 = _v5_attributes([dict(t) for t in trees], 2, np.random.RandomState(1), np.float32)
    for attrs in (attrs16, attrs32):
        w = numpy_helper.to_array(attrs["leaf_weights"])
        attrs["leaf_weights"] = numpy_helper.from_array(np.round(w * 4) / 4, "leaf_weights")
    x = _features(30, 3)

    def run(attrs, dtype, session_type):
        elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        node = helper.make_node("TreeEnsemble", ["x"], ["y"], domain=_ML, **attrs)
        model = _model([node], [helper.make_tensor_value_info("x", elem, None)],
                       [helper.make_tensor_value_info("y", elem, None)], 5)
        if session_type is ort:
            return ort.InferenceSession(model).run(None, {"x": x.astype(dtype)})[0]
        return onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
            None, {"x": x.astype(dtype)})[0]

    actual = run(attrs16, np.float16, ort)
    assert actual.dtype == np.float16
    np.testing.assert_array_equal(actual.astype(np.float32), run(attrs32, np.float32, None))
