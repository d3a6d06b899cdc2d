"""Environment allocators (create_and_register_allocator(_v2), OrtArenaCfg,
session.use_env_allocators) and device OrtValues made without a session, on the test EP's
simulated device memory ('testdevice': bytes stored XOR 0xA5, so a value that stayed on the CPU,
or a missed copy, shows)."""
import ctypes

import numpy as np
import onnxruntime
import pytest

import prismrt as ort
from prismrt import _env_allocators
from prismrt.capi.onnxruntime_pybind11_state import InvalidArgument, PrismError

from conftest import assert_close

TEST_EP = [("TestExecutionProvider", {"ops": "Add,Relu"}), "CPUExecutionProvider"]


def feeds(batch=3, seed=11):
    rng = np.random.RandomState(seed)
    return {name: rng.standard_normal((batch, 4)).astype(np.float32) for name in "abc"}


def reference(path, inputs):
    ref = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    return dict(zip(["z", "s"], ref.run(["z", "s"], inputs)))


@pytest.fixture
def cpu_arena_info():
    info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0,
                             ort.OrtMemType.DEFAULT)
    # The process has one environment: start from none registered (docs/python.md's example,
    # run earlier in the same process, registers one).
    if _env_allocators.shared_allocator_stats(info) is not None:
        _env_allocators.unregister_allocator(info)
    yield info
    if _env_allocators.shared_allocator_stats(info) is not None:
        _env_allocators.unregister_allocator(info)


def test_arena_cfg_matches_onnxruntime():
    for args in [(0, -1, -1, -1), (1 << 20, 1, 4096, -1)]:
        ours, theirs = ort.OrtArenaCfg(*args), onnxruntime.OrtArenaCfg(*args)
        for field in ("max_mem", "arena_extend_strategy", "initial_chunk_size_bytes",
                      "max_dead_bytes_per_chunk", "initial_growth_chunk_size_bytes",
                      "max_power_of_two_extend_bytes"):
            assert getattr(ours, field) == getattr(theirs, field), (args, field)
    from_dict = ort.OrtArenaCfg({"max_mem": 100, "arena_extend_strategy": 1})
    assert (from_dict.max_mem, from_dict.arena_extend_strategy,
            from_dict.initial_chunk_size_bytes) == (100, 1, -1)
    with pytest.raises(RuntimeError, match="Invalid OrtArenaCfg option: bogus"):
        ort.OrtArenaCfg({"bogus": 1})
    with pytest.raises(RuntimeError):
        onnxruntime.OrtArenaCfg({"bogus": 1})


def test_shared_arena_serves_only_sessions_that_opt_in(add_relu_path, cpu_arena_info):
    ort.create_and_register_allocator(cpu_arena_info, ort.OrtArenaCfg(0, 1, -1, -1))
    stats = _env_allocators.shared_allocator_stats(cpu_arena_info)
    assert stats is not None and stats["NumAllocs"] == 0
    inputs = feeds()
    wanted = reference(add_relu_path, inputs)

    own = ort.InferenceSession(add_relu_path, providers=["CPUExecutionProvider"])
    assert_close(own.run(["z"], inputs)[0], wanted["z"])
    assert _env_allocators.shared_allocator_stats(cpu_arena_info)["NumAllocs"] == 0
    assert own.get_allocator_stats()["Shared"] == 0

    options = ort.SessionOptions()
    options.add_session_config_entry("session.use_env_allocators", "1")
    opted = ort.InferenceSession(add_relu_path, options, providers=["CPUExecutionProvider"])
    assert_close(opted.run(["z"], inputs)[0], wanted["z"])
    after = _env_allocators.shared_allocator_stats(cpu_arena_info)
    assert after["NumAllocs"] > 0 and after["NumReserves"] > 0
    session_stats = opted.get_allocator_stats()
    assert session_stats["Shared"] == 1 and session_stats["Arena"] == 0
    assert session_stats["NumAllocs"] > 0

    # One allocator per memory, as in onnxruntime.
    with pytest.raises(InvalidArgument, match="already registered"):
        ort.create_and_register_allocator(cpu_arena_info, None)


def test_shared_arena_config_is_honoured_or_refused(add_relu_path, cpu_arena_info):
    with pytest.raises(InvalidArgument, match="max_dead_bytes_per_chunk.*not supported"):
        ort.create_and_register_allocator(cpu_arena_info, ort.OrtArenaCfg(0, -1, -1, 128))
    with pytest.raises(InvalidArgument, match="arena_extend_strategy"):
        ort.create_and_register_allocator(cpu_arena_info, ort.OrtArenaCfg(0, 7, -1, -1))
    assert _env_allocators.shared_allocator_stats(cpu_arena_info) is None
    # A device (non-arena) CPU allocator takes no arena settings.
    plain = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_DEVICE_ALLOCATOR, 0,
                              ort.OrtMemType.DEFAULT)
    with pytest.raises(InvalidArgument, match="arena config was given"):
        ort.create_and_register_allocator(plain, ort.OrtArenaCfg(1024, -1, -1, -1))
    # max_mem bounds the shared arena for every session using it.
    ort.create_and_register_allocator(cpu_arena_info, ort.OrtArenaCfg(64, -1, -1, -1))
    options = ort.SessionOptions()
    options.add_session_config_entry("session.use_env_allocators", "1")
    sess = ort.InferenceSession(add_relu_path, options, providers=["CPUExecutionProvider"])
    with pytest.raises(PrismError, match="arena is limited to 64 bytes"):
        sess.run(["z"], feeds(batch=64))
    options.add_session_config_entry("session.use_env_allocators", "2")
    with pytest.raises(InvalidArgument, match="session.use_env_allocators must be"):
        ort.InferenceSession(add_relu_path, options, providers=["CPUExecutionProvider"])


def device_bytes(value):
    return np.frombuffer(ctypes.string_at(value.data_ptr(), value.tensor_size_in_bytes()),
                         dtype=np.uint8)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8, np.float16, np.bool_])
def test_ortvalue_from_numpy_on_a_device(dtype):
    array = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    value = ort.OrtValue.ortvalue_from_numpy(array, "testdevice", 0)
    assert value.device_name() == "testdevice"
    assert value.shape() == [3, 4]
    # Device-resident: the device's own byte encoding, not the array's bytes.
    np.testing.assert_array_equal(device_bytes(value),
                                  np.frombuffer(array.tobytes(), dtype=np.uint8) ^ 0xA5)
    np.testing.assert_array_equal(value.numpy(), array)
    # A copy: changing the array leaves the device value as it was.
    array_before = array.copy()
    array[0, 0] = 1
    np.testing.assert_array_equal(value.numpy(), array_before)


def test_shape_and_type_and_update_inplace_on_a_device():
    value = ort.OrtValue.ortvalue_from_shape_and_type([2, 3], np.float32, "testdevice", 0)
    assert value.device_name() == "testdevice" and value.data_type() == "tensor(float)"
    update = np.arange(6, dtype=np.float32).reshape(2, 3)
    value.update_inplace(update)
    np.testing.assert_array_equal(device_bytes(value),
                                  np.frombuffer(update.tobytes(), dtype=np.uint8) ^ 0xA5)
    np.testing.assert_array_equal(value.numpy(), update)
    with pytest.raises(InvalidArgument, match="6 elements"):
        value.update_inplace(np.zeros(5, dtype=np.float32))
    device = ort.OrtDevice.make("testdevice", 0)
    other = ort.OrtValue.ortvalue_from_numpy(update * 2, device)
    np.testing.assert_array_equal(other.numpy(), update * 2)


def test_device_values_feed_a_session(add_relu_path):
    inputs = feeds()
    wanted = reference(add_relu_path, inputs)
    sess = ort.InferenceSession(add_relu_path, providers=TEST_EP)
    binding = sess.io_binding()
    for name, array in inputs.items():
        binding.bind_ortvalue_input(name, ort.OrtValue.ortvalue_from_numpy(array, "testdevice", 0))
    out = ort.OrtValue.ortvalue_from_shape_and_type([3, 4], np.float32, "testdevice", 0)
    binding.bind_ortvalue_output("s", out)
    binding.bind_output("z", "cpu")
    sess.run_with_iobinding(binding)
    assert_close(out.numpy(), wanted["s"])
    assert_close(binding.copy_outputs_to_cpu()[1], wanted["z"])


def test_device_errors():
    with pytest.raises(InvalidArgument, match="string tensors"):
        ort.OrtValue.ortvalue_from_numpy(np.array(["a"], dtype=object), "testdevice", 0)
    with pytest.raises(PrismError, match="NoSuchDevice|known memory names|no execution provider"):
        ort.OrtValue.ortvalue_from_numpy(np.zeros(2, np.float32), "NoSuchDevice", 0)
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        with pytest.raises(PrismError, match="CUDAExecutionProvider"):
            ort.OrtValue.ortvalue_from_numpy(np.zeros(2, np.float32), "cuda", 0)
    # The test EP's device 1 is another memory space than its device 0.
    one = ort.OrtValue.ortvalue_from_numpy(np.ones(3, np.float32), "testdevice", 1)
    assert one.numpy().tolist() == [1.0, 1.0, 1.0]


def test_copy_tensors_between_cpu_and_device():
    host = np.arange(8, dtype=np.float32).reshape(2, 4)
    device = ort.OrtValue.ortvalue_from_shape_and_type([2, 4], np.float32, "testdevice", 0)
    ort.copy_tensors([ort.OrtValue.ortvalue_from_numpy(host)], [device])
    np.testing.assert_array_equal(device_bytes(device),
                                  np.frombuffer(host.tobytes(), dtype=np.uint8) ^ 0xA5)
    back = ort.OrtValue.ortvalue_from_shape_and_type([2, 4], np.float32)
    ort.copy_tensors([device], [back])
    np.testing.assert_array_equal(back.numpy(), host)
    # Every pair is checked first: nothing is copied when one is wrong.
    untouched = ort.OrtValue.ortvalue_from_numpy(np.zeros((2, 4), np.float32))
    wrong = ort.OrtValue.ortvalue_from_shape_and_type([8], np.float32)
    with pytest.raises(InvalidArgument, match="pair 1"):
        ort.copy_tensors([device, device], [untouched, wrong])
    np.testing.assert_array_equal(untouched.numpy(), np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError):
        ort.copy_tensors([device], [])
