#!/usr/bin/env python3
"""Bench models (../shared/bench/make_models.py) run by Prism and compared with onnxruntime.

Prism has no Python binding yet, so the comparison goes through files: for every case this
writes an ONNX test folder (model.onnx + test_data_set_N/input_K.pb, output_K.pb) whose inputs
follow the model's sidecar fill spec and whose outputs are onnxruntime's (CPUExecutionProvider,
same inputs), then runs Prism's conformance runner `prism_onnx_test` on it, and
`prism_multi_batch_check` (one session over every data set) for the differences.

Used by bench_models_test.py (pytest) and as a command:

    .venv/bin/python tests/models/bench_models.py --build-dir build --suite full

Everything generated goes under <build-dir>/bench-models (the models, made on demand) and
<build-dir>/model-tests (the test folders); nothing is written into the source tree or shared/.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RTOL = 1e-3
ATOL = 1e-4


def default_shared_dir():
    return os.environ.get("PRISM_SHARED_DIR") or os.path.normpath(os.path.join(REPO, "..", "shared"))


def make_models_script():
    return os.path.join(default_shared_dir(), "bench", "make_models.py")


@dataclass
class Case:
    """One comparison: a bench model, how to fill its inputs, and the batch sizes to run."""
    name: str
    model: str                      # bench model name (make_models.py)
    masked: bool = False            # attention_mask drawn from {0, 1} instead of ones
    batches: list = field(default_factory=list)  # non-empty: symbolic 'batch' dim, one set each
    seed: int = 0


CI_CASES = [
    Case("mnist_cnn", "mnist_cnn"),
    Case("squeezenet1_1", "squeezenet1_1"),
    Case("mobilenetv2", "mobilenetv2"),
    Case("bert_tiny", "bert_tiny"),
    Case("gemm_chain", "gemm_chain"),
    Case("matmul_1024", "matmul_1024"),
    Case("bert_tiny_masked", "bert_tiny", masked=True, seed=1),
    Case("mnist_cnn_symbolic_batch", "mnist_cnn", batches=[1, 3, 2], seed=2),
]
FULL_CASES = CI_CASES + [
    Case("resnet50", "resnet50"),
    Case("bert_base", "bert_base"),
    Case("bert_base_masked", "bert_base", masked=True, seed=1),
    Case("bert_tiny_symbolic_batch", "bert_tiny", masked=True, batches=[2, 1], seed=3),
]
SUITES = {"ci": CI_CASES, "full": FULL_CASES}


def find_case(name):
    for case in FULL_CASES:
        if case.name == name:
            return case
    raise KeyError(name)


# ----------------------------------------------------------------------------------------------
# Models and inputs
# ----------------------------------------------------------------------------------------------
def _model_is_complete(models_dir, name):
    """The model and its sidecar exist and the model's sha256 is the one the sidecar records."""
    model = os.path.join(models_dir, name + ".onnx")
    side = os.path.join(models_dir, name + ".json")
    if not (os.path.exists(model) and os.path.exists(side)):
        return False
    try:
        with open(side) as f:
            expected = json.load(f).get("sha256")
    except ValueError:
        return False
    digest = hashlib.sha256()
    with open(model, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            digest.update(chunk)
    return digest.hexdigest() == expected


def ensure_models(models_dir, names, python=sys.executable):
    """Generates the bench models that are missing or damaged (model and sidecar) into models_dir."""
    missing = [n for n in sorted(set(names)) if not _model_is_complete(models_dir, n)]
    if not missing:
        return
    script = make_models_script()
    if not os.path.exists(script):
        raise FileNotFoundError("bench model generator not found at %s (set PRISM_SHARED_DIR)"
                                % script)
    os.makedirs(models_dir, exist_ok=True)
    subprocess.run([python, script, models_dir, "--models", ",".join(missing)], check=True)


def load_sidecar(models_dir, model):
    with open(os.path.join(models_dir, model + ".json")) as f:
        return json.load(f)


def make_inputs(sidecar, rng, masked=False, batch=None):
    """Inputs in graph order, filled as the sidecar says; batch replaces dim 0 when given."""
    feeds = {}
    for spec in sidecar["inputs"]:
        shape = list(spec["shape"])
        if batch is not None:
            shape[0] = batch
        fill = spec["fill"]
        dtype = np.dtype(spec["dtype"])
        if spec["name"] == "attention_mask" and masked:
            value = rng.integers(0, 2, size=shape, dtype=np.int64)
            value[..., 0] = 1  # keep at least one visible token per row (the [CLS] position)
        elif fill["kind"] == "normal":
            value = rng.standard_normal(size=shape) * fill.get("std", 1.0) + fill.get("mean", 0.0)
        elif fill["kind"] == "randint":
            value = rng.integers(fill["low"], fill["high"], size=shape, dtype=np.int64)
        elif fill["kind"] == "ones":
            value = np.ones(shape)
        else:
            raise ValueError("unknown fill kind %r for input %s" % (fill["kind"], spec["name"]))
        feeds[spec["name"]] = np.ascontiguousarray(value.astype(dtype))
    return feeds


def make_symbolic_batch(model_path, out_path):
    """Copy of the model whose graph inputs' and outputs' first dim is the symbol 'batch'."""
    model = onnx.load(model_path)
    for value_info in list(model.graph.input) + list(model.graph.output):
        dim = value_info.type.tensor_type.shape.dim[0]
        dim.ClearField("dim_value")
        dim.dim_param = "batch"
    del model.graph.value_info[:]  # any inferred static shapes would contradict the symbol
    onnx.checker.check_model(model)
    onnx.save(model, out_path)


def run_onnxruntime(model_path, feeds):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # deterministic, and polite on the shared 2-core machine
    session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return names, session.run(names, feeds)


def write_data_set(set_dir, model, feeds, outputs):
    os.makedirs(set_dir, exist_ok=True)
    initializers = {t.name for t in model.graph.initializer}
    graph_inputs = [i.name for i in model.graph.input if i.name not in initializers]
    for k, name in enumerate(graph_inputs):
        tensor = numpy_helper.from_array(feeds[name], name)
        with open(os.path.join(set_dir, "input_%d.pb" % k), "wb") as f:
            f.write(tensor.SerializeToString())
    for k, (name, value) in enumerate(outputs):
        tensor = numpy_helper.from_array(np.asarray(value), name)
        with open(os.path.join(set_dir, "output_%d.pb" % k), "wb") as f:
            f.write(tensor.SerializeToString())


def prepare_case(case, build_dir, python=sys.executable):
    """Writes <build>/model-tests/<case> (model + data sets with onnxruntime's outputs)."""
    models_dir = os.path.join(build_dir, "bench-models")
    ensure_models(models_dir, [case.model], python)
    sidecar = load_sidecar(models_dir, case.model)
    source = os.path.abspath(os.path.join(models_dir, case.model + ".onnx"))
    test_dir = os.path.join(build_dir, "model-tests", case.name)
    if os.path.exists(test_dir):
        shutil.rmtree(test_dir)
    os.makedirs(test_dir)
    model_path = os.path.join(test_dir, "model.onnx")
    if case.batches:
        make_symbolic_batch(source, model_path)
    else:
        os.symlink(source, model_path)
    # Structure only: the weights are not needed to name the graph inputs.
    model = onnx.load(model_path, load_external_data=False)
    rng = np.random.default_rng(1000 + sidecar["seed"] * 10 + case.seed)
    for n, batch in enumerate(case.batches or [None]):
        feeds = make_inputs(sidecar, rng, masked=case.masked, batch=batch)
        names, values = run_onnxruntime(model_path, feeds)
        write_data_set(os.path.join(test_dir, "test_data_set_%d" % n), model, feeds,
                       list(zip(names, values)))
    return test_dir


# ----------------------------------------------------------------------------------------------
# Running Prism
# ----------------------------------------------------------------------------------------------
@dataclass
class PrismResult:
    ok: bool
    runner_output: str
    check: dict          # prism_multi_batch_check's JSON (None when it did not write one)
    check_output: str

    def max_abs(self):
        return max((o["max_abs"] for s in self.check["sets"] for o in s["outputs"]), default=None) \
            if self.check else None

    def worst_ratio(self):
        """Largest |prism - ort| / (atol + rtol * |ort|): at most 1 when within tolerance."""
        return max((o["worst_ratio"] for s in self.check["sets"] for o in s["outputs"]),
                   default=None) if self.check else None

    def max_rel(self):
        return max((o["max_rel"] for s in self.check["sets"] for o in s["outputs"]), default=None) \
            if self.check else None


def run_prism(test_dir, build_dir, rtol=RTOL, atol=ATOL, timeout_s=1800):
    """Runs the conformance runner, then the multi-set check (for the differences)."""
    runner = os.path.join(build_dir, "prism_onnx_test")
    checker = os.path.join(build_dir, "prism_multi_batch_check")
    for exe in (runner, checker):
        if not os.path.exists(exe):
            raise FileNotFoundError("%s is not built (make -C %s prism_onnx_test "
                                    "prism_multi_batch_check)" % (exe, build_dir))
    report_dir = os.path.join(test_dir, "report")
    # --shared only has to name an existing folder: the test folder is given explicitly.
    runner_cmd = [runner, "--shared", os.path.dirname(test_dir), "--rtol", str(rtol),
                  "--atol", str(atol), "--timeout", str(timeout_s), "--report-dir", report_dir,
                  "-v", test_dir]
    runner_proc = subprocess.run(runner_cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True)
    json_path = os.path.join(test_dir, "diff.json")
    if os.path.exists(json_path):
        os.remove(json_path)
    check_cmd = [checker, "--rtol", str(rtol), "--atol", str(atol), "--json", json_path, test_dir]
    try:
        check_proc = subprocess.run(check_cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True, timeout=timeout_s)
        check_output, check_rc = check_proc.stdout, check_proc.returncode
    except subprocess.TimeoutExpired:
        check_output, check_rc = "timed out after %ss" % timeout_s, 1
    check = None
    if os.path.exists(json_path):
        with open(json_path) as f:
            check = json.load(f)
    ok = runner_proc.returncode == 0 and check_rc == 0
    return PrismResult(ok, "$ %s\n%s" % (" ".join(runner_cmd), runner_proc.stdout), check,
                       "$ %s\n%s" % (" ".join(check_cmd), check_output))


def format_row(case, result):
    def num(x):
        return "-" if x is None else "%.3g" % x
    sets = ""
    if result.check:
        sets = " ".join(s["input_shapes"][0] if s["input_shapes"] else "?"
                        for s in result.check["sets"])
    return "%-26s %-4s max_abs=%-9s max_rel=%-9s of_tolerance=%-9s %s" % (
        case.name, "PASS" if result.ok else "FAIL", num(result.max_abs()), num(result.max_rel()),
        num(result.worst_ratio()), sets)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"),
                    help="Prism build folder with prism_onnx_test and prism_multi_batch_check")
    ap.add_argument("--suite", choices=sorted(SUITES), default="ci")
    ap.add_argument("--cases", help="comma-separated case names (default: the whole suite)")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    cases = SUITES[args.suite]
    if args.cases:
        cases = [find_case(n.strip()) for n in args.cases.split(",") if n.strip()]
    if args.list:
        print("\n".join(c.name for c in cases))
        return 0
    build_dir = os.path.abspath(args.build_dir)
    failed = []
    for case in cases:
        test_dir = prepare_case(case, build_dir)
        result = run_prism(test_dir, build_dir)
        print(format_row(case, result), flush=True)
        if not result.ok:
            failed.append(case.name)
            print(result.runner_output + result.check_output)
    print("%d passed, %d failed%s" % (len(cases) - len(failed), len(failed),
                                      (": " + ", ".join(failed)) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
