"""Model and session adjustments with onnxruntime as the oracle: free dimension overrides (by
name and by denotation), add_initializer, add_external_initializers,
add_external_initializers_from_files_in_memory, and a model with external data loaded from bytes
with its folder given by session.model_external_initializers_file_folder_path. Where onnxruntime
accepts something silently (an unknown initializer name, a value of another type or shape, a
negative dimension), prismrt refuses it with an error naming what is wrong."""
import gc
import os
import weakref

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import prismrt
from prismrt.capi.onnxruntime_pybind11_state import InvalidArgument, NoSuchFile

from conftest import make_model

CPU = ["CPUExecutionProvider"]
FOLDER_KEY = "session.model_external_initializers_file_folder_path"


def batch_model(fixed=None, denotation=None):
    """y = x + w with x: float[N, 4] (dim 0 fixed to `fixed` instead when given, and carrying
    `denotation`), w: float[4] = 1."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
    dim = x.type.tensor_type.shape.dim[0]
    if fixed is not None:
        dim.ClearField("dim_param")
        dim.dim_value = fixed
    if denotation:
        dim.denotation = denotation
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])
    w = numpy_helper.from_array(np.ones(4, np.float32), "w")
    return make_model([helper.make_node("Add", ["x", "w"], ["y"])], [x], [y],
                      initializers=[w]).SerializeToString()


# OrtValues handed to onnxruntime's add_initializer and add_external_initializers: its options
# keep no reference (the caller must), unlike prismrt's.
_ORACLE_VALUES = []


def oracle_value(package, array):
    value = package.OrtValue.ortvalue_from_numpy(array)
    if package is onnxruntime:
        _ORACLE_VALUES.append((value, array))
    return value


def both(model, configure):
    """(prismrt session, onnxruntime session) made with the same options."""
    sessions = []
    for package in (prismrt, onnxruntime):
        options = package.SessionOptions()
        configure(options, package)
        sessions.append(package.InferenceSession(model, options, providers=CPU))
    return sessions


# ---------------------------------------------------------------- free dimension overrides

def test_override_by_name_fixes_the_shape_as_onnxruntime_does():
    ours, oracle = both(batch_model(),
                        lambda o, _: o.add_free_dimension_override_by_name("N", 3))
    assert ours.get_inputs()[0].shape == oracle.get_inputs()[0].shape == [3, 4]
    assert ours.get_outputs()[0].shape == oracle.get_outputs()[0].shape == [3, 4]
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(ours.run(None, {"x": x})[0], oracle.run(None, {"x": x})[0])
    # Without the override the dim stays symbolic.
    plain = prismrt.InferenceSession(batch_model(), providers=CPU)
    assert plain.get_inputs()[0].shape == ["N", 4]


def test_a_feed_of_another_size_is_refused_naming_input_dim_expected_and_given():
    ours, oracle = both(batch_model(),
                        lambda o, _: o.add_free_dimension_override_by_name("N", 3))
    x = np.zeros((2, 4), np.float32)
    with pytest.raises(Exception, match="index: 0 Got: 2 Expected: 3"):
        oracle.run(None, {"x": x})
    with pytest.raises(InvalidArgument,
                       match=r"input 'x' expects shape \[3,4\], got \[2,4\] \(dimension 0\)"):
        ours.run(None, {"x": x})


def test_override_by_denotation_ignores_case_as_onnxruntime_does():
    model = batch_model(denotation="DATA_BATCH")
    ours, oracle = both(model,
                        lambda o, _: o.add_free_dimension_override_by_denotation("data_batch", 5))
    assert ours.get_inputs()[0].shape == oracle.get_inputs()[0].shape == [5, 4]
    # A model that already fixes the dim to the same value is fine.
    ours, oracle = both(batch_model(fixed=5, denotation="DATA_BATCH"),
                        lambda o, _: o.add_free_dimension_override_by_denotation("DATA_BATCH", 5))
    assert ours.get_inputs()[0].shape == oracle.get_inputs()[0].shape == [5, 4]


def test_overriding_a_fixed_dim_with_another_value_fails_at_creation():
    model = batch_model(fixed=5, denotation="DATA_BATCH")
    for package in (prismrt, onnxruntime):
        options = package.SessionOptions()
        options.add_free_dimension_override_by_denotation("DATA_BATCH", 3)
        with pytest.raises(Exception) as raised:
            package.InferenceSession(model, options, providers=CPU)
        assert "INVALID_ARGUMENT" in str(raised.value)
    options = prismrt.SessionOptions()
    options.add_free_dimension_override_by_denotation("DATA_BATCH", 3)
    with pytest.raises(InvalidArgument, match="dimension 0 of input 'x' is fixed to 5 in the "
                                              "model"):
        prismrt.InferenceSession(model, options, providers=CPU)


def test_negative_values_are_refused():
    # onnxruntime takes -5 and reports the shape [-5, 4]; prismrt refuses it.
    options = prismrt.SessionOptions()
    with pytest.raises(InvalidArgument, match="'N' must be >= 0, got -5"):
        options.add_free_dimension_override_by_name("N", -5)
    with pytest.raises(InvalidArgument, match="'DATA_BATCH' must be >= 0, got -1"):
        options.add_free_dimension_override_by_denotation("DATA_BATCH", -1)
    with pytest.raises(TypeError):
        options.add_free_dimension_override_by_name("N", "3")


def test_conflicting_overrides_of_one_dim_fail_and_a_later_value_replaces():
    options = prismrt.SessionOptions()
    options.add_free_dimension_override_by_denotation("DATA_BATCH", 3)
    options.add_free_dimension_override_by_name("N", 4)
    with pytest.raises(InvalidArgument, match="overridden to 3 by denotation 'DATA_BATCH' and "
                                              "to 4 by name 'N'"):
        prismrt.InferenceSession(batch_model(denotation="DATA_BATCH"), options, providers=CPU)
    options = prismrt.SessionOptions()
    options.add_free_dimension_override_by_name("N", 3)
    options.add_free_dimension_override_by_name("N", 6)
    session = prismrt.InferenceSession(batch_model(), options, providers=CPU)
    assert session.get_inputs()[0].shape == [6, 4]


def test_an_override_that_matches_nothing_is_logged(capfd):
    options = prismrt.SessionOptions()
    options.log_severity_level = 2  # warnings
    options.add_free_dimension_override_by_name("M", 3)
    session = prismrt.InferenceSession(batch_model(), options, providers=CPU)
    assert session.get_inputs()[0].shape == ["N", 4]
    assert "free dimension override by name 'M' matches no dimension of the model's inputs: no " \
           "effect" in capfd.readouterr().err


# ---------------------------------------------------------------- add_initializer

def run_x(session):
    return session.run(None, {"x": np.zeros((2, 4), np.float32)})[0]


def test_add_initializer_replaces_the_weight_as_onnxruntime_does():
    w = np.array([1, 2, 3, 4], np.float32)

    def configure(options, package):
        options.add_initializer("w", oracle_value(package, w))
    ours, oracle = both(batch_model(), configure)
    np.testing.assert_array_equal(run_x(ours), run_x(oracle))
    np.testing.assert_array_equal(run_x(ours)[1], w)


def test_add_initializer_shares_the_memory_and_keeps_the_value_alive():
    w = np.array([1, 2, 3, 4], np.float32)
    options = prismrt.SessionOptions()
    options.graph_optimization_level = prismrt.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.add_initializer("w", prismrt.OrtValue.ortvalue_from_numpy(w))  # no other reference
    session = prismrt.InferenceSession(batch_model(), options, providers=CPU)
    del options
    w[:] = [5, 6, 7, 8]  # not copied: the session reads the array (as onnxruntime's does)
    np.testing.assert_array_equal(run_x(session)[0], [5, 6, 7, 8])
    # The session (through its options) keeps the array alive; onnxruntime leaves it to the
    # caller.
    alive = weakref.ref(w)
    del w
    gc.collect()
    assert alive() is not None
    np.testing.assert_array_equal(run_x(session)[0], [5, 6, 7, 8])


def test_add_initializer_of_an_overridable_initializer_keeps_the_feed_override():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    w_input = helper.make_tensor_value_info("w", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    w = numpy_helper.from_array(np.ones(2, np.float32), "w")
    model = make_model([helper.make_node("Add", ["x", "w"], ["y"])], [x, w_input], [y],
                       initializers=[w]).SerializeToString()
    value = np.array([10, 20], np.float32)

    def configure(options, package):
        options.add_initializer("w", oracle_value(package, value))
    ours, oracle = both(model, configure)
    zero = np.zeros(2, np.float32)
    for feeds in ({"x": zero}, {"x": zero, "w": np.array([7, 8], np.float32)}):
        np.testing.assert_array_equal(ours.run(None, feeds)[0], oracle.run(None, feeds)[0])
    np.testing.assert_array_equal(ours.run(None, {"x": zero})[0], value)


@pytest.mark.parametrize("name, array, message", [
    ("zz", np.ones(4, np.float32), "the model has no initializer named 'zz'"),
    ("w", np.ones(4, np.float64),
     r"initializer 'w' is declared as tensor\(float\)\[4\] but the value given is "
     r"tensor\(double\)\[4\]"),
    ("w", np.ones(5, np.float32),
     r"initializer 'w' is declared as tensor\(float\)\[4\] but the value given is "
     r"tensor\(float\)\[5\]"),
    ("x", np.ones((2, 4), np.float32), "'x' is an input of the model without an initializer"),
])
def test_add_initializer_errors_name_the_initializer(name, array, message):
    # onnxruntime ignores an unknown name or an input, and runs a double as float bits.
    options = prismrt.SessionOptions()
    options.add_initializer(name, prismrt.OrtValue.ortvalue_from_numpy(array))
    with pytest.raises(InvalidArgument, match=message):
        prismrt.InferenceSession(batch_model(), options, providers=CPU)


def test_add_initializer_needs_an_ortvalue():
    with pytest.raises(TypeError, match="add_initializer needs an OrtValue"):
        prismrt.SessionOptions().add_initializer("w", np.ones(4, np.float32))


# ---------------------------------------------------------------- external data

@pytest.fixture
def external_model(tmp_path):
    """(model bytes, folder, file name, w): y = x + w with w: float[8] stored in an external
    file of the folder at a non-zero offset (after another tensor)."""
    v = np.arange(3, dtype=np.float32) + 100
    w = np.arange(8, dtype=np.float32) * 0.5
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [8])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [3])
    model = make_model([helper.make_node("Add", ["x", "w"], ["y"]),
                        helper.make_node("Identity", ["v"], ["z"])], [x], [y, z],
                       initializers=[numpy_helper.from_array(v, "v"),
                                     numpy_helper.from_array(w, "w")])
    folder = tmp_path / "model"
    folder.mkdir()
    onnx.save_model(model, str(folder / "model.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    saved = onnx.load(str(folder / "model.onnx"), load_external_data=False)
    locations = {t.name: {e.key: e.value for e in t.external_data}
                 for t in saved.graph.initializer}
    assert locations["w"]["location"] == "weights.bin" and int(locations["w"]["offset"]) > 0
    return saved.SerializeToString(), str(folder), "weights.bin", w, v


def feeds8():
    return {"x": np.ones(8, np.float32)}


def test_bytes_with_external_data_and_no_folder_name_initializer_file_and_key(external_model):
    data, _, _, _, _ = external_model
    with pytest.raises(InvalidArgument) as raised:
        prismrt.InferenceSession(data, providers=CPU)
    message = str(raised.value)
    assert "initializer 'v'" in message or "initializer 'w'" in message
    assert "'weights.bin'" in message and FOLDER_KEY in message


def test_bytes_with_the_folder_config_entry_load_as_onnxruntime_does(external_model):
    data, folder, _, w, v = external_model
    ours, oracle = both(data, lambda o, _: o.add_session_config_entry(FOLDER_KEY, folder))
    for a, b in zip(ours.run(None, feeds8()), oracle.run(None, feeds8())):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ours.run(None, feeds8())[0], w + 1)


def test_the_folder_config_entry_keeps_locations_inside_it(external_model, tmp_path):
    data, folder, _, _, _ = external_model
    model = onnx.load_from_string(data)
    for tensor in model.graph.initializer:
        for entry in tensor.external_data:
            if entry.key == "location":
                entry.value = "../model/weights.bin"  # the same file, reached from outside
    options = prismrt.SessionOptions()
    options.add_session_config_entry(FOLDER_KEY, folder)
    with pytest.raises(InvalidArgument, match="'../model/weights.bin' leaves the model's folder"):
        prismrt.InferenceSession(model.SerializeToString(), options, providers=CPU)
    for tensor in model.graph.initializer:
        for entry in tensor.external_data:
            if entry.key == "location":
                entry.value = os.path.join(folder, "weights.bin")
    with pytest.raises(InvalidArgument, match="is an absolute path"):
        prismrt.InferenceSession(model.SerializeToString(), options, providers=CPU)
    options = prismrt.SessionOptions()
    options.add_session_config_entry(FOLDER_KEY, str(tmp_path / "nowhere"))
    with pytest.raises(NoSuchFile):
        prismrt.InferenceSession(data, options, providers=CPU)


def test_files_in_memory_replace_the_folder_as_onnxruntime_does(external_model):
    data, folder, name, w, v = external_model
    with open(os.path.join(folder, name), "rb") as f:
        contents = f.read()
    os.remove(os.path.join(folder, name))  # only memory holds the data now

    def configure(options, package):
        options.add_external_initializers_from_files_in_memory([name], [contents],
                                                               [len(contents)])
    ours, oracle = both(data, configure)
    for a, b in zip(ours.run(None, feeds8()), oracle.run(None, feeds8())):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ours.run(None, feeds8())[1], v)
    # A bytearray, a numpy array and "./name" reach the same file; a short length fails.
    for buffer, file_name in ((bytearray(contents), name),
                              (np.frombuffer(contents, np.uint8), "./" + name)):
        options = prismrt.SessionOptions()
        options.add_external_initializers_from_files_in_memory([file_name], [buffer],
                                                               [len(contents)])
        session = prismrt.InferenceSession(data, options, providers=CPU)
        np.testing.assert_array_equal(session.run(None, feeds8())[0], w + 1)
    options = prismrt.SessionOptions()
    options.add_external_initializers_from_files_in_memory([name], [contents], [16])
    with pytest.raises(Exception, match="beyond the end of the in-memory file 'weights.bin' "
                                        r"\(16 bytes\)"):
        prismrt.InferenceSession(data, options, providers=CPU)
    with pytest.raises(ValueError, match="outside its buffer"):
        options.add_external_initializers_from_files_in_memory([name], [contents],
                                                               [len(contents) + 1])


def test_add_external_initializers_supplies_the_data_without_its_file(external_model):
    data, folder, name, w, v = external_model
    os.remove(os.path.join(folder, name))
    new_w = np.full(8, 3, np.float32)
    new_v = np.array([7, 8, 9], np.float32)

    def configure(options, package):
        options.add_external_initializers(
            ["w", "v"], [oracle_value(package, a) for a in (new_w, new_v)])
    ours, oracle = both(data, configure)
    for a, b in zip(ours.run(None, feeds8()), oracle.run(None, feeds8())):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ours.run(None, feeds8())[0], new_w + 1)


def test_add_external_initializers_errors(external_model):
    data, folder, _, _, _ = external_model
    # onnxruntime fails too for a name the model lacks and for a non-external initializer.
    value = prismrt.OrtValue.ortvalue_from_numpy(np.ones(8, np.float32))
    options = prismrt.SessionOptions()
    options.add_session_config_entry(FOLDER_KEY, folder)
    options.add_external_initializers(["zz"], [value])
    with pytest.raises(InvalidArgument, match="the model has no initializer named 'zz'"):
        prismrt.InferenceSession(data, options, providers=CPU)
    options = prismrt.SessionOptions()
    options.add_external_initializers(["w"], [value])
    with pytest.raises(InvalidArgument, match="initializer 'w' does not store its data "
                                              "externally"):
        prismrt.InferenceSession(batch_model(), options, providers=CPU)
    options = prismrt.SessionOptions()
    options.add_session_config_entry(FOLDER_KEY, folder)
    options.add_external_initializers(
        ["w"], [prismrt.OrtValue.ortvalue_from_numpy(np.ones(4, np.float32))])
    with pytest.raises(InvalidArgument, match=r"initializer 'w' is declared as tensor\(float\)"
                                              r"\[8\] but the value given is tensor\(float\)\[4\]"):
        prismrt.InferenceSession(data, options, providers=CPU)
    with pytest.raises(ValueError, match="1 names but 2 ortvalues"):
        options.add_external_initializers(["w"], [value, value])
