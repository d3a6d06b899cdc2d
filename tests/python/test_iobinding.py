"""IOBinding with device memory, through the test EP (a plugin whose 'TestDevice' memory holds
scrambled bytes, so any missed copy shows as wrong numbers)."""
import numpy as np
import onnxruntime
import pytest

import prismrt as ort
from prismrt.capi.onnxruntime_pybind11_state import InvalidArgument, PrismError

from conftest import assert_close

TEST_EP = [("TestExecutionProvider", {"ops": "Add,Relu"}), "CPUExecutionProvider"]


def feeds(batch=3, seed=7):
    rng = np.random.RandomState(seed)
    return {name: rng.standard_normal((batch, 4)).astype(np.float32) for name in "abc"}


def expected(path, inputs):
    ref = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    z, s = ref.run(["z", "s"], inputs)
    return {"z": z, "s": s}


def test_bind_output_to_test_device(add_relu_path):
    sess = ort.InferenceSession(add_relu_path, providers=TEST_EP)
    assert sess.get_providers() == ["TestExecutionProvider", "CPUExecutionProvider"]
    inputs = feeds()
    wanted = expected(add_relu_path, inputs)
    binding = sess.io_binding()
    for name, value in inputs.items():
        binding.bind_cpu_input(name, value)
    binding.bind_output("s", "TestDevice", 0)   # made by Add on the test EP
    binding.bind_output("z", "TestDevice", 0)   # made by Mul on the CPU, then copied over
    sess.run_with_iobinding(binding)
    binding.synchronize_outputs()
    assert binding.get_output_names() == ["s", "z"]
    outputs = binding.get_outputs()
    assert [v.device_name() for v in outputs] == ["testdevice", "testdevice"]
    assert outputs[0].shape() == [3, 4] and outputs[0].data_type() == "tensor(float)"
    s, z = binding.copy_outputs_to_cpu()
    assert_close(s, wanted["s"])
    assert_close(z, wanted["z"])
    # OrtValue.numpy() of a device value copies it to the CPU as well.
    assert_close(outputs[1].numpy(), wanted["z"])


def test_device_outputs_as_next_inputs(add_relu_path):
    # A device OrtValue from one run feeds the next run without a trip through numpy.
    sess = ort.InferenceSession(add_relu_path, providers=TEST_EP)
    inputs = feeds()
    binding = sess.io_binding()
    for name, value in inputs.items():
        binding.bind_cpu_input(name, value)
    binding.bind_output("s", "TestDevice")
    sess.run_with_iobinding(binding)
    s_device = binding.get_outputs()[0]
    assert s_device.device_name() == "testdevice"

    second = sess.io_binding()
    second.bind_ortvalue_input("a", s_device)
    second.bind_cpu_input("b", inputs["b"])
    second.bind_cpu_input("c", inputs["c"])
    second.bind_output("z")
    sess.run_with_iobinding(second)
    chained = dict(inputs, a=expected(add_relu_path, inputs)["s"])
    assert_close(second.copy_outputs_to_cpu()[0], expected(add_relu_path, chained)["z"])


def test_seed_iobinding_usage(add_relu_path):
    # The seed's IOBinding example: CUDA requested, output bound to 'cuda' when CUDA is in use.
    with pytest.warns(UserWarning) if "CUDAExecutionProvider" not in \
            ort.get_available_providers() else _nothing():
        session = ort.InferenceSession(add_relu_path, providers=["CUDAExecutionProvider"])
    device = "cuda" if "CUDAExecutionProvider" in session.get_providers() else "cpu"
    inputs = feeds()
    io_binding = session.io_binding()
    for name, value in inputs.items():
        io_binding.bind_cpu_input(name, value)
    io_binding.bind_output("z", device)
    session.run_with_iobinding(io_binding)
    output = io_binding.copy_outputs_to_cpu()[0]
    assert_close(output, expected(add_relu_path, inputs)["z"])


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


def test_binding_errors_and_clearing(add_relu_path):
    sess = ort.InferenceSession(add_relu_path, providers=["CPUExecutionProvider"])
    inputs = feeds()
    binding = sess.io_binding()
    # No execution provider of this session owns TestDevice memory.
    with pytest.raises(InvalidArgument):
        binding.bind_output("z", "TestDevice", 0)
    for name, value in inputs.items():
        binding.bind_cpu_input(name, value)
    with pytest.raises(InvalidArgument):  # nothing bound to an output yet
        sess.run_with_iobinding(binding)
    binding.bind_output("z")
    sess.run_with_iobinding(binding)
    assert_close(binding.copy_outputs_to_cpu()[0], expected(add_relu_path, inputs)["z"])
    binding.clear_binding_outputs()
    assert binding.get_outputs() == []
    binding.clear_binding_inputs()
    binding.bind_output("z")
    with pytest.raises(PrismError):  # inputs are gone
        sess.run_with_iobinding(binding)


def test_iobinding_with_run_options(add_relu_path):
    sess = ort.InferenceSession(add_relu_path, providers=TEST_EP)
    inputs = feeds()
    binding = sess.io_binding()
    for name, value in inputs.items():
        binding.bind_cpu_input(name, value)
    binding.bind_output("z", "TestDevice")
    options = ort.RunOptions()
    options.terminate = True
    with pytest.raises(PrismError):
        sess.run_with_iobinding(binding, options)
    options.terminate = False
    sess.run_with_iobinding(binding, run_options=options)
    assert_close(binding.copy_outputs_to_cpu()[0], expected(add_relu_path, inputs)["z"])


def test_bind_input_by_device_pointer(add_relu_path):
    # A device buffer (from an earlier run) bound by pointer with bind_input.
    sess = ort.InferenceSession(add_relu_path, providers=TEST_EP)
    inputs = feeds()
    first = sess.io_binding()
    for name, value in inputs.items():
        first.bind_cpu_input(name, value)
    first.bind_output("s", "TestDevice", 0)
    sess.run_with_iobinding(first)
    s_device = first.get_outputs()[0]
    assert s_device.device_name() == "testdevice"
    second = sess.io_binding()
    second.bind_input("a", "TestDevice", 0, np.float32, s_device.shape(), s_device.data_ptr())
    second.bind_cpu_input("b", inputs["b"])
    second.bind_cpu_input("c", inputs["c"])
    second.bind_output("s", "TestDevice", 0)
    sess.run_with_iobinding(second)
    wanted = expected(add_relu_path, dict(inputs, a=expected(add_relu_path, inputs)["s"]))["s"]
    assert_close(second.copy_outputs_to_cpu()[0], wanted)


def test_bind_output_to_caller_device_buffer(add_relu_path):
    # A device buffer the caller holds (here one a first run left on the device) receives the
    # result of each later run, in place.
    sess = ort.InferenceSession(add_relu_path, providers=TEST_EP)
    inputs = feeds()
    first = sess.io_binding()
    for name, value in inputs.items():
        first.bind_cpu_input(name, value)
    first.bind_output("s", "TestDevice", 0)
    sess.run_with_iobinding(first)
    buffer = first.get_outputs()[0]

    other = feeds(seed=11)
    second = sess.io_binding()
    for name, value in other.items():
        second.bind_cpu_input(name, value)
    second.bind_output("z", "TestDevice", 0, np.float32, [3, 4], buffer.data_ptr())
    sess.run_with_iobinding(second)
    z = second.get_outputs()[0]
    assert z.device_name() == "testdevice" and z.data_ptr() == buffer.data_ptr()
    assert_close(buffer.numpy(), expected(add_relu_path, other)["z"])

    # A buffer of another shape is refused by the run, naming the output and both tensors.
    third = sess.io_binding()
    for name, value in other.items():
        third.bind_cpu_input(name, value)
    third.bind_output("z", "TestDevice", 0, np.float32, [4, 3], buffer.data_ptr())
    with pytest.raises(InvalidArgument, match=r"output 'z' is bound to a preallocated "
                       r"tensor\(float\)\[4,3\] but the model produced tensor\(float\)\[3,4\]"):
        sess.run_with_iobinding(third)


def test_device_ortvalue_creation_without_a_session():
    # Device values need no session (the environment's allocator for the memory, see
    # docs/python.md); a device that cannot be used here is an error naming its EP.
    value = ort.OrtValue.ortvalue_from_shape_and_type([3], np.float32, "TestDevice", 0)
    assert value.device_name() == "testdevice" and value.shape() == [3]
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        with pytest.raises(ort.PrismError, match="CUDAExecutionProvider"):
            ort.OrtValue.ortvalue_from_numpy(np.zeros(3, np.float32), "cuda", 0)
