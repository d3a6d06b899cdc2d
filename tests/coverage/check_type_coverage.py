#!/usr/bin/env python3
"""Checks the CPU kernel registrations against the ONNX spec, and which test exercises each type.

The truth is the ONNX spec of the installed onnx package (onnx.defs), never Prism's registry.
For every op of the core kernel set, every ai.onnx schema version up to opset 28 and every type
that each type constraint allows, the registry dump (prism_registry_dump) must have a
registration that covers that opset version and lists that type for the constraint of the same
name. Missing combinations are reported and fail the check (exit 1), except those on the
KNOWN_GAPS allowlist below: each has a written reason, and is reported (and listed in
docs/operators.md) as a known gap instead of failing.

It then finds, mechanically, the tests that exercise each combination. A combination is
*exercised* when a CPU kernel computed with it at an opset of its schema version range, in a run
that completed, whose outputs the test then matched against an oracle (ONNX test data,
onnxruntime, or expected values worked out by hand), in a test that passed. Building a session
(kernel lookup and creation), a run that failed or was expected to fail, outputs never compared
or compared with a mismatch, and an If branch not taken are no evidence. The evidence comes from
the test binaries themselves, run with PRISM_COMPUTE_EVIDENCE=1 (tests/common/compute_evidence.h:
the executor's compute trace hooks, confirmed by OpTester::Run, CompareWithOracle and the
conformance runner's comparisons):
  * unit tests: prism_unit_tests; a gtest test is the unit of evidence.
  * conformance tests: prism_onnx_test over the suites of the conformance CTest entries
    (<shared>/onnx-tests/{node,simple,pytorch-operator}) with their options (models using only
    the ops of tests/conformance/core_ops.txt, the expected failures of
    tests/conformance/expected_failures.txt); a test folder is the unit.

The combinations required, per op and schema version range:
  * ops in CROSS_PRODUCT_OPS (Cast and CastLike: (T1, T2); Pow: (T, T1); BatchNormalization,
    LayerNormalization, Gather): every tuple of types of the listed constraints, i.e. the whole
    cross product that onnx.defs allows, since each tuple takes a path of its own through the
    kernel (a Cast pair is a conversion of its own). A tuple is exercised only by a computation
    with exactly those types.
  * every other constraint: every (constraint, type); it is exercised by any computation in
    which that constraint took that type, whatever the other constraints took (a computation
    binds all of an op's constraints at once, so each constraint's types are covered within
    real combinations, but not every cross combination is required). The other core ops have at
    most one constraint with more than one type, so for them this is the cross product too.
A registered combination with no exercising test is a gap; gaps fail the check only with
--strict.

    .venv/bin/python tests/coverage/check_type_coverage.py --dump build/prism_registry_dump \\
        --unit-tests build/prism_unit_tests --conformance-runner build/prism_onnx_test \\
        [--write-docs docs/operators.md] [--strict]
"""
import argparse
import collections
import itertools
import json
import os
import re
import selectors
import subprocess
import sys
import tempfile

import onnx
import onnx.defs

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MAX_OPSET = 28
CORE_OPS = ("Add Sub Mul Div Pow Sqrt Exp Erf MatMul Gemm Relu Sigmoid Tanh Softmax Conv MaxPool "
            "AveragePool GlobalAveragePool BatchNormalization LayerNormalization ReduceMean "
            "Reshape Flatten Transpose Concat Identity Constant Shape Gather Unsqueeze Squeeze "
            "Cast Clip If Abs Neg Sign Ceil Floor Round Reciprocal Log Sin Cos Tan Asin Acos Atan "
            "Sinh Cosh Asinh Acosh Atanh Softsign Softplus Equal Greater GreaterOrEqual Less "
            "LessOrEqual And Or Xor Not Max Min Sum Mean Celu Elu Gelu HardSigmoid HardSwish "
            "LeakyRelu Mish PRelu Selu Shrink ThresholdedRelu Swish BitwiseAnd BitwiseOr BitwiseXor "
            "BitwiseNot IsNaN IsInf Mod BitShift ConstantOfShape Where Expand "
            "ReduceSum ReduceProd ReduceMax ReduceMin ReduceL1 ReduceL2 ReduceLogSum "
            "ReduceLogSumExp ReduceSumSquare ArgMax ArgMin CumSum CumProd Hardmax LogSoftmax Slice "
            "Split Pad Tile Range Size EyeLike Trilu GatherElements GatherND Scatter "
            "ScatterElements ScatterND CastLike DepthToSpace SpaceToDepth Compress "
            "ReverseSequence NonZero OneHot TopK Dropout Unique Resize Upsample Einsum Det "
            "CenterCropPad BitCast RMSNormalization InstanceNormalization GroupNormalization "
            "MeanVarianceNormalization LpNormalization LRN GlobalMaxPool GlobalLpPool LpPool "
            "NegativeLogLikelihoodLoss SoftmaxCrossEntropyLoss Attention ConvTranspose "
            "RotaryEmbedding NonMaxSuppression GridSample Loop Scan CausalConvWithState "
            "LinearAttention DFT SwiGLU TensorScatter AffineGrid Col2Im ImageDecoder MaxUnpool RoiAlign "
            "DeformConv ConvInteger ai.onnx.preview:FlexAttention ai.onnx.preview.training:Adagrad "
            "ai.onnx.preview.training:Adam ai.onnx.preview.training:Momentum "
            "StringNormalizer RegexFullMatch StringConcat StringSplit TfIdfVectorizer "
            "SequenceConstruct SequenceEmpty SequenceAt SequenceInsert SequenceErase SequenceLength "
            "SplitToSequence ConcatFromSequence SequenceMap Optional OptionalHasElement "
            "OptionalGetElement "
            "HannWindow HammingWindow BlackmanWindow MelWeightMatrix STFT RandomNormal RandomUniform "
            "RandomNormalLike RandomUniformLike Bernoulli Multinomial "
            "RNN GRU LSTM "
            "QuantizeLinear DequantizeLinear DynamicQuantizeLinear MatMulInteger QLinearMatMul "
            "QLinearConv "
            "ai.onnx.ml:LabelEncoder ai.onnx.ml:TreeEnsemble ai.onnx.ml:Binarizer "
            "ai.onnx.ml:ArrayFeatureExtractor ai.onnx.ml:TreeEnsembleClassifier "
            "ai.onnx.ml:TreeEnsembleRegressor ai.onnx.ml:LinearClassifier "
            "ai.onnx.ml:LinearRegressor ai.onnx.ml:Scaler ai.onnx.ml:Normalizer ai.onnx.ml:Imputer "
            "ai.onnx.ml:OneHotEncoder ai.onnx.ml:CategoryMapper ai.onnx.ml:SVMRegressor "
            "ai.onnx.ml:FeatureVectorizer ai.onnx.ml:SVMClassifier ai.onnx.ml:ZipMap "
            "ai.onnx.ml:DictVectorizer ai.onnx.ml:CastMap").split()
# Ops whose combinations are tuples of types of these constraints (see the docstring); a schema
# version uses the first group whose constraints it all has.
CROSS_PRODUCT_OPS = {
    "Cast": [("T1", "T2")],
    "CastLike": [("T1", "T2")],
    "Pow": [("T", "T1")],
    "BatchNormalization": [("T", "T1", "T2"), ("T", "U")],
    "LayerNormalization": [("T", "U")],
    "Gather": [("T", "Tind")],
    "ConvInteger": [("T1", "T2")],
    "MatMulInteger": [("T1", "T2")],
}
CPU_PROVIDER = "CPUExecutionProvider"
REGENERATE = ("`.venv/bin/python tests/coverage/check_type_coverage.py --dump build/prism_registry_dump "
              "--unit-tests build/prism_unit_tests --conformance-runner build/prism_onnx_test "
              "--write-docs docs/operators.md`")

# (op, type) -> why Prism does not register it. These are deliberate, documented exceptions to
# "every type the spec allows is registered": reported as known gaps, never silently skipped.
# Keep this list short; an entry whose type the registry does register is reported as stale.
KNOWN_GAPS = {}

# ----------------------------------------------------------------------------------------------
# The spec
# ----------------------------------------------------------------------------------------------
Schema = collections.namedtuple("Schema", "op since end schema constraints")


def qualified(domain, op):
    """An op's name in CORE_OPS: bare for ai.onnx, "domain:op" for the other domains."""
    return op if domain in ("", "ai.onnx") else "%s:%s" % (domain, op)


def spec_schemas(ops):
    """{op: [Schema]} for schema versions up to MAX_OPSET (ai.onnx's; other domains' versions
    are far below it); end is inclusive."""
    by_op = collections.defaultdict(list)
    for s in onnx.defs.get_all_schemas_with_history():
        if qualified(s.domain, s.name) in ops and s.since_version <= MAX_OPSET:
            by_op[qualified(s.domain, s.name)].append(s)
    result = {}
    for op in ops:
        schemas = sorted(by_op.get(op, []), key=lambda s: s.since_version)
        if not schemas:
            raise SystemExit("onnx.defs has no schema for %s" % op)
        rows = []
        for i, s in enumerate(schemas):
            end = schemas[i + 1].since_version - 1 if i + 1 < len(schemas) else MAX_OPSET
            constraints = [(c.type_param_str, list(c.allowed_type_strs)) for c in s.type_constraints]
            # A deprecated ai.onnx.ml schema (TreeEnsembleRegressor/Classifier 5) ends the op:
            # models of that opset must use its replacement, so no kernel is expected.
            if s.deprecated and s.domain == "ai.onnx.ml":
                continue
            rows.append(Schema(op, s.since_version, end, s, constraints))
        result[op] = rows
    return result


def range_text(schema, last):
    if schema is last:
        return "%d+" % schema.since
    return str(schema.since) if schema.since == schema.end else "%d-%d" % (schema.since, schema.end)


def schema_for(schemas, version):
    for s in schemas:
        if s.since <= version <= s.end:
            return s
    return None


# ----------------------------------------------------------------------------------------------
# The registry dump
# ----------------------------------------------------------------------------------------------
def load_dump(path):
    """Runs prism_registry_dump (an executable) or reads its saved JSON."""
    if os.access(path, os.X_OK) and not path.endswith(".json"):
        text = subprocess.run([path], check=True, stdout=subprocess.PIPE, text=True).stdout
    else:
        with open(path) as f:
            text = f.read()
    kernels = json.loads(text)["kernels"]
    for k in kernels:
        if k["end_version"] is None:
            k["end_version"] = 1 << 30
    return kernels


def span(versions):
    versions = sorted(set(versions))
    return str(versions[0]) if len(versions) == 1 else "%d-%d" % (versions[0], versions[-1])


def check_registrations(spec, kernels):
    """(missing, notes): missing[(op, since, constraint, type)] = [versions not covered]."""
    by_op = collections.defaultdict(list)
    for k in kernels:
        by_op[qualified(k["domain"], k["op"])].append(k)
    missing = collections.OrderedDict()
    unknown_names = collections.defaultdict(list)  # (op, range, name) -> [versions]
    extra_types = collections.defaultdict(lambda: (set(), []))  # (op, range, name) -> types, versions
    for op, schemas in spec.items():
        regs = by_op.get(op, [])
        for s in schemas:
            spec_names = {name for name, _ in s.constraints}
            for v in range(s.since, s.end + 1):
                covering = [k for k in regs if k["since_version"] <= v <= k["end_version"]]
                for name, types in s.constraints:
                    registered = set()
                    for k in covering:
                        for c in k["constraints"]:
                            if c["name"] == name:
                                registered.update(c["type_strs"])
                    for t in types:
                        if t not in registered:
                            missing.setdefault((op, s.since, name, t), []).append(v)
                for k in covering:
                    for c in k["constraints"]:
                        key = (op, k["version_range"], c["name"])
                        if c["name"] not in spec_names:
                            unknown_names[key].append(v)
                            continue
                        extra = set(c["type_strs"]) - set(dict(s.constraints)[c["name"]])
                        if extra:
                            extra_types[key][0].update(extra)
                            extra_types[key][1].append(v)
    notes = []
    for (op, rng, name), versions in sorted(unknown_names.items()):
        notes.append("%s %s: constraint '%s' is not a type constraint of the spec (opsets %s); "
                     "it cannot be checked" % (op, rng, name, span(versions)))
    for (op, rng, name), (types, versions) in sorted(extra_types.items()):
        notes.append("%s %s: constraint %s also registers types the spec does not allow at "
                     "opsets %s: %s" % (op, rng, name, span(versions), ", ".join(sorted(types))))
    return missing, notes


# ----------------------------------------------------------------------------------------------
# Evidence: the computations that test binaries confirm (tests/common/compute_evidence.h)
# ----------------------------------------------------------------------------------------------
EVIDENCE_PREFIX = "@@PRISM_COMPUTED\t"
RUN_RE = re.compile(r"^\[ RUN      \] (\S+)")
OK_RE = re.compile(r"^\[       OK \] (\S+)")
FAILED_RE = re.compile(r"^\[  FAILED  \] (\S+) \(")
# One confirmed computation: the unit (test) it came from, the EP, the registration that computed
# (since, end; end None when open-ended), the node's opset and the type each constraint took.
Compute = collections.namedtuple("Compute", "unit provider domain op opset since end binding")


# Map types: onnxruntime's spelling in the evidence ("map(int64,tensor(float))", what Prism's
# ValueType::ToString writes), the spec's in onnx.defs and the registry dump ("map(int64, float)").
MAP_TYPE_RE = re.compile(r"map\((\w+),tensor\((\w+)\)\)")


def spec_type_string(type_str):
    """A type string of the evidence in the spec's spelling (only map types differ)."""
    return MAP_TYPE_RE.sub(r"map(\1, \2)", type_str)


def parse_compute(line):
    """The Compute of an evidence line, or None for any other line."""
    if not line.startswith(EVIDENCE_PREFIX):
        return None
    parts = line[len(EVIDENCE_PREFIX):].split("\t")
    if len(parts) != 8:
        raise SystemExit("malformed evidence line: %r" % line)
    unit, provider, domain, op, opset, since, end, binding = parts
    types = tuple((name, spec_type_string(type_str)) for name, type_str in
                  (item.split("=", 1) for item in binding.split(";") if item))
    return Compute(unit, provider, domain, op, int(opset), int(since),
                   None if int(end) < 0 else int(end), types)


def evidence_env():
    env = dict(os.environ)
    env["PRISM_COMPUTE_EVIDENCE"] = "1"
    env.pop("GTEST_FILTER", None)
    return env


def _run_lines(cmd, env, idle_timeout):
    """Yields the output lines of cmd; kills it after idle_timeout seconds without output."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    pending = b""
    try:
        while True:
            if not selector.select(timeout=idle_timeout):
                proc.kill()
                yield "@@PRISM_EVIDENCE_IDLE_TIMEOUT"
                break
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                yield line.decode("utf-8", "replace")
        if pending:
            yield pending.decode("utf-8", "replace")
    finally:
        proc.stdout.close()
        proc.wait()
        selector.close()


def gtest_evidence(binary, idle_timeout=120):
    """(computes, failed tests) of a gtest binary: the confirmed computations of passing tests.

    A test that crashes the binary or hangs (no output for idle_timeout seconds) counts as
    failed, and the binary is run again without the tests seen so far, so one broken test does
    not hide the others' evidence."""
    env = evidence_env()
    computes, passed, failed, seen = [], set(), set(), []
    tail = collections.deque(maxlen=40)
    while True:
        cmd = [binary, "--gtest_color=no", "--gtest_brief=0"]
        if seen:
            cmd.append("--gtest_filter=-" + ":".join(seen))
        current = None
        for line in _run_lines(cmd, env, idle_timeout):
            tail.append(line)
            compute = parse_compute(line)
            if compute is not None:
                computes.append(compute)
                continue
            m = RUN_RE.match(line)
            if m:
                current = m.group(1)
                seen.append(current)
                continue
            m = OK_RE.match(line)
            if m:
                passed.add(m.group(1))
                current = None
                continue
            m = FAILED_RE.match(line)
            if m:
                failed.add(m.group(1))
                current = None
        if current is None:
            break
        print("note: unit test %s crashed or hung; running the remaining tests" % current)
        failed.add(current)
    if not computes:
        raise SystemExit("%s confirmed no kernel computation with PRISM_COMPUTE_EVIDENCE=1: are "
                         "the compute trace hooks still installed (tests/common/"
                         "compute_evidence.cc)?\n%s" % (binary, "\n".join(tail)))
    # The binary prints evidence only for passing tests; the gtest verdict is checked again here.
    return [c for c in computes if c.unit in passed and c.unit not in failed], sorted(failed)


def conformance_evidence(runner, shared, suites, ops_file, expected_failures):
    """(computes, summary) of the conformance runner over suites, run as the conformance CTest
    entries run them. It prints evidence only for tests that passed; its report's verdicts are
    checked again here (a child that printed and then timed out counts as failed)."""
    with tempfile.TemporaryDirectory(prefix="prism-coverage-") as report_dir:
        cmd = [runner, "--shared", shared, "--report-dir", report_dir]
        for suite in suites:
            cmd += ["--suite", suite]
        if ops_file:
            cmd += ["--ops-file", ops_file]
        if expected_failures:
            cmd += ["--expected-failures", expected_failures]
        run = subprocess.run(cmd, env=evidence_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, errors="replace")
        summary_path = os.path.join(report_dir, "summary.json")
        if not os.path.exists(summary_path):
            raise SystemExit("the conformance runner wrote no report (exit %d):\n%s"
                             % (run.returncode, run.stdout[-4000:]))
        with open(summary_path) as f:
            report = json.load(f)
    passed = {"%s/%s" % (t["suite"], t["name"]) for t in report["tests"] if t["status"] == "passed"}
    computes = [c for c in map(parse_compute, run.stdout.splitlines())
                if c is not None and c.unit in passed]
    if run.returncode != 0:
        print("note: the conformance runner exited with %d (conformance_node_core reports why); "
              "its passing tests still count" % run.returncode)
    summary = "%d passed, %d failed, %d skipped, %d expected failures" % (
        report["passed"], report["failed"], report["skipped"], report["expected_failures"])
    return computes, summary


def cross_product_group(op, schema):
    """The constraints whose cross product the schema version of op requires, or None."""
    names = {name for name, _ in schema.constraints}
    return next((g for g in CROSS_PRODUCT_OPS.get(op, []) if set(g) <= names), None)


def index_evidence(spec, computes):
    """{(op, schema since, constraint label, type label): {unit}} of CPU computations.

    The labels are those of the rows: a constraint and a type, or for CROSS_PRODUCT_OPS also
    "T1,T2" and "tensor(a),tensor(b)"."""
    evidence = collections.defaultdict(set)
    for c in computes:
        op = qualified(c.domain, c.op)
        if c.provider != CPU_PROVIDER or op not in spec:
            continue
        if not (c.since <= c.opset and (c.end is None or c.opset <= c.end)):
            raise SystemExit("inconsistent evidence: %s opset %d computed by a registration for "
                             "opsets %d-%s (%s)" % (op, c.opset, c.since, c.end, c.unit))
        schema = schema_for(spec[op], c.opset)
        if schema is None:
            continue
        binding = dict(c.binding)
        for name, type_str in binding.items():
            evidence[(op, schema.since, name, type_str)].add(c.unit)
        group = cross_product_group(op, schema)
        if group and all(name in binding for name in group):
            evidence[(op, schema.since, ",".join(group),
                      ",".join(binding[name] for name in group))].add(c.unit)
    return evidence


# ----------------------------------------------------------------------------------------------
# Table and report
# ----------------------------------------------------------------------------------------------
# constraint and type are labels: "T" and "tensor(float)", or for CROSS_PRODUCT_OPS "T1,T2" and
# "tensor(int8),tensor(float)".
Row = collections.namedtuple(
    "Row", "op range since end constraint type registered unit conformance known_gap")


def split_known_gaps(missing):
    """Moves the allowlisted combinations out of missing: (missing, known)."""
    remaining, known = collections.OrderedDict(), collections.OrderedDict()
    for key, versions in missing.items():
        op, _, _, t = key
        (known if (op, t) in KNOWN_GAPS else remaining)[key] = versions
    return remaining, known


def build_rows(spec, missing, known, unit_ev, conf_ev):
    rows = []

    def status(op, s, parts):
        """(registered, known-gap reason) of the (constraint, type) parts of one row."""
        keys = [(op, s.since, name, t) for name, t in parts]
        reasons = [KNOWN_GAPS[(op, key[3])] for key in keys if key in known]
        registered = all(key not in missing and key not in known for key in keys)
        return registered, (reasons[0] if reasons else None)

    def add(op, s, last, label, type_label, parts):
        registered, reason = status(op, s, parts)
        key = (op, s.since, label, type_label)
        rows.append(Row(op, range_text(s, last), s.since, s.end, label, type_label, registered,
                        sorted(unit_ev.get(key, ())), sorted(conf_ev.get(key, ())), reason))

    for op, schemas in spec.items():
        for s in schemas:
            allowed = dict(s.constraints)
            group = cross_product_group(op, s) or ()
            if group:
                for types in itertools.product(*(allowed[name] for name in group)):
                    add(op, s, schemas[-1], ",".join(group), ",".join(types),
                        list(zip(group, types)))
            for name, types in s.constraints:
                if name in group:
                    continue
                for t in types:
                    add(op, s, schemas[-1], name, t, [(name, t)])
    return rows


def is_gap(row):
    return row.registered and not row.unit and not row.conformance


def short_list(items, limit=3):
    if not items:
        return ""
    shown = ", ".join("`%s`" % x for x in items[:limit])
    return shown + (" (+%d)" % (len(items) - limit) if len(items) > limit else "")


def short_type(type_str):
    """tensor(float) -> float; other kinds stay spelled out."""
    return type_str[len("tensor("):-1] if type_str.startswith("tensor(") else type_str


def split_label(label):
    """("T, T1", "T2") of "T,T1,T2": all but the last part, and the last."""
    parts = label.split(",")
    return ", ".join(parts[:-1]), parts[-1]


def combination_table(op_rows):
    """Markdown lines for a cross-product op: per range and types of all constraints but the last,
    how many types of the last one are exercised, and which are not."""
    leading, last = split_label(op_rows[0].constraint)
    lines = ["| versions | %s | registered | exercised | gaps (%s not exercised) | tests |"
             % (leading, last), "|---|---|---|---:|---|---|"]
    groups = collections.OrderedDict()  # (range, leading types) -> rows
    for r in op_rows:
        leading_types = ", ".join(short_type(t) for t in r.type.split(",")[:-1])
        groups.setdefault((r.range, leading_types), []).append(r)
    for (rng, leading_types), group in groups.items():
        tests = sorted({t for r in group for t in r.unit + r.conformance})
        unregistered = [r for r in group if not r.registered]
        gaps = [short_type(r.type.split(",")[-1]) for r in group if is_gap(r)]
        lines.append("| %s | %s | %s | %d of %d | %s | %s |" % (
            rng, leading_types,
            "yes" if not unregistered else "**NO** (%d)" % len(unregistered),
            sum(bool(r.unit or r.conformance) for r in group), len(group),
            "**gap**: " + ", ".join(gaps) if gaps else "", short_list(tests, 2)))
    return lines


def write_docs(path, rows, unit_note, conf_note, unschemed=()):
    known = [r for r in rows if r.known_gap]
    by_op = collections.OrderedDict()
    for r in rows:
        by_op.setdefault(r.op, []).append(r)
    lines = [
        "# Operators of the CPU execution provider",
        "",
        "<!-- GENERATED FILE: do not edit. -->",
        "This file is generated by `tests/coverage/check_type_coverage.py`. Regenerate it with",
        "",
        "    " + REGENERATE.strip("`"),
        "",
        "For every op of the core kernel set, every ai.onnx schema version up to opset %d (the "
        "ranges run from one schema version to the next; the last is open-ended) and every type "
        "each type constraint of the ONNX spec allows (onnx %s), it says whether a CPU kernel "
        "is registered and which tests exercise that combination." % (MAX_OPSET, onnx.__version__),
        "",
        "- **Exercised** means: a CPU kernel computed with that combination at an opset of that "
        "range, in a run that completed, and the test then matched the outputs against an oracle "
        "(ONNX test data, onnxruntime, or expected values worked out by hand) and passed. "
        "Building a session, a run that failed or was expected to fail, outputs never compared, "
        "and an `If` branch not taken do not count.",
        "- **Combinations**: for %s every tuple of types of the constraints named in their "
        "tables (the whole cross product onnx.defs allows), exercised only by a computation with "
        "exactly those types; for "
        "every other op every (constraint, type), exercised by any computation in which that "
        "constraint took that type." % ", ".join(sorted(CROSS_PRODUCT_OPS)),
        "- **Unit tests**: %s" % unit_note,
        "- **Conformance tests**: %s" % conf_note,
        "- A registered combination without any test is a *gap*: `check_type_coverage.py "
        "--strict` fails on gaps. A combination the spec allows but no kernel registers "
        "(registered: **NO**) always fails the check, unless it is a *known gap*: allowlisted in "
        "`KNOWN_GAPS` of the script with a reason (registered: **known gap**, listed below).",
        "",
        "## Known gaps",
        "",
    ]
    if known:
        lines += ["Combinations the spec allows that Prism deliberately does not register yet:", "",
                  "| op | versions | constraint | type | reason |", "|---|---|---|---|---|"]
        for r in known:
            lines.append("| %s | %s | %s | %s | %s |" % (r.op, r.range, r.constraint, r.type,
                                                        r.known_gap))
    else:
        lines.append("None.")
    if unschemed:
        lines += [
            "",
            "## Kernels without an onnx.defs schema",
            "",
            "onnxruntime's contrib ops (com.microsoft) and the few it registers in the default "
            "domain have no schema in onnx.defs, so the combinations above cannot cover them. "
            "Their registrations, and the tests whose checked computations used them (these "
            "kernels are checked against onnxruntime by the pytest files named in "
            "docs/status.md):",
            "",
            "| op | domain | versions | types | tests |",
            "|---|---|---|---|---|",
        ]
        for kernel, units in unschemed:
            types = "; ".join("%s: %s" % (c["name"], ", ".join(
                t.replace("tensor(", "").rstrip(")") for t in c["types"]))
                for c in kernel["constraints"])
            shown = sorted(units)
            lines.append("| %s | %s | %s | %s | %s |" % (
                kernel["op"], kernel["domain"] or "ai.onnx", kernel["version_range"], types,
                ", ".join("`%s`" % u for u in shown[:3]) + (
                    " (+%d)" % (len(shown) - 3) if len(shown) > 3 else "") if shown else "—"))
    lines += [
        "",
        "## Summary",
        "",
        "| op | versions | combinations | registered | with unit test | with conformance test | gaps |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for op, op_rows in by_op.items():
        ranges = []
        for r in op_rows:
            if r.range not in ranges:
                ranges.append(r.range)
        lines.append("| [%s](#%s) | %s | %d | %d | %d | %d | %d |" % (
            op, op.lower(), ", ".join(ranges), len(op_rows), sum(r.registered for r in op_rows),
            sum(bool(r.unit) for r in op_rows), sum(bool(r.conformance) for r in op_rows),
            sum(is_gap(r) for r in op_rows)))
    lines.append("| **all** | | %d | %d | %d | %d | %d |" % (
        len(rows), sum(r.registered for r in rows), sum(bool(r.unit) for r in rows),
        sum(bool(r.conformance) for r in rows), sum(is_gap(r) for r in rows)))
    for op, op_rows in by_op.items():
        lines += ["", "## %s" % op, ""]
        tuple_rows = [r for r in op_rows if "," in r.constraint]
        if tuple_rows:
            lines += combination_table(tuple_rows)
            op_rows = [r for r in op_rows if "," not in r.constraint]
            if not op_rows:
                continue
            lines.append("")
        lines += ["| versions | constraint | type | registered | unit tests | conformance tests |",
                  "|---|---|---|---|---|---|"]
        for r in op_rows:
            lines.append("| %s | %s | %s | %s | %s | %s |" % (
                r.range, r.constraint, r.type.replace("|", "\\|"),
                "yes" if r.registered else ("**known gap**" if r.known_gap else "**NO**"),
                short_list(r.unit) or ("**gap**" if is_gap(r) else ""),
                short_list(r.conformance)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def print_gaps(gaps):
    print("\n%d combinations have no exercising test (gaps)%s" % (len(gaps), ":" if gaps else ""))
    grouped = collections.OrderedDict()  # (op, range, what) -> [types]
    for r in gaps:
        if "," in r.constraint:  # a tuple: grouped by the types of all but the last constraint
            names, types = r.constraint.split(","), r.type.split(",")
            what = "%s=%s, %s" % (",".join(names[:-1]), ",".join(map(short_type, types[:-1])),
                                  names[-1])
            grouped.setdefault((r.op, r.range, what), []).append(short_type(types[-1]))
        else:
            grouped.setdefault((r.op, r.range, r.constraint), []).append(r.type)
    for (op, rng, what), types in grouped.items():
        print("  GAP %-18s opset %-6s %s: %s" % (op, rng, what, ", ".join(types)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dump", required=True,
                    help="prism_registry_dump executable, or a JSON file it wrote")
    ap.add_argument("--unit-tests", required=True,
                    help="prism_unit_tests executable (run with PRISM_COMPUTE_EVIDENCE=1)")
    ap.add_argument("--unit-idle-timeout", type=float, default=120,
                    help="seconds without output after which a unit test counts as hung")
    ap.add_argument("--conformance-runner",
                    help="prism_onnx_test executable (without it: no conformance evidence)")
    ap.add_argument("--shared", default=os.environ.get("PRISM_SHARED_DIR") or
                    os.path.normpath(os.path.join(REPO, "..", "shared")),
                    help="shared data root holding onnx-tests/<suite>")
    ap.add_argument("--conformance-suites", default="node,simple,pytorch-operator",
                    help="comma-separated suites of the conformance CTest entries")
    ap.add_argument("--conformance-ops", default=os.path.join(REPO, "tests", "conformance", "core_ops.txt"),
                    help="ops file of the conformance CTest entries ('': every test runs)")
    ap.add_argument("--expected-failures",
                    default=os.path.join(REPO, "tests", "conformance", "expected_failures.txt"))
    ap.add_argument("--ops", help="comma-separated subset of the core ops")
    ap.add_argument("--write-docs", help="write the table as markdown (docs/operators.md)")
    ap.add_argument("--json", help="write the rows as JSON")
    ap.add_argument("--strict", action="store_true", help="fail on gaps (combinations no test exercises)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every note")
    args = ap.parse_args(argv)

    ops = CORE_OPS if not args.ops else [o.strip() for o in args.ops.split(",") if o.strip()]
    unknown = sorted(set(ops) - set(CORE_OPS))
    if unknown:
        ap.error("not core ops: " + ", ".join(unknown))
    spec = spec_schemas(ops)
    kernels = load_dump(args.dump)
    missing, notes = check_registrations(spec, kernels)
    missing, known = split_known_gaps(missing)
    known_types = {(op, t) for op, _, _, t in known}
    for op, t in sorted(KNOWN_GAPS):
        if op in spec and (op, t) not in known_types:
            notes.append("KNOWN_GAPS entry (%s, %s) is stale: nothing of it is missing any more; "
                         "remove it" % (op, t))

    unit_computes, failed_tests = gtest_evidence(args.unit_tests, args.unit_idle_timeout)
    unit_ev = index_evidence(spec, unit_computes)
    unit_note = ("the passing gtest tests of `prism_unit_tests` that confirmed the computation "
                 "(run with `PRISM_COMPUTE_EVIDENCE=1`).")
    if failed_tests:
        print("note: %d failing unit tests do not count as evidence: %s"
              % (len(failed_tests), ", ".join(failed_tests[:10])))
    suites = [x.strip() for x in args.conformance_suites.split(",") if x.strip()]
    present = [x for x in suites if os.path.isdir(os.path.join(args.shared, "onnx-tests", x))]
    for suite in sorted(set(suites) - set(present)):
        print("warning: %s not found: no conformance evidence from it"
              % os.path.join(args.shared, "onnx-tests", suite))
    conf_computes, conf_summary = [], ""
    if not args.conformance_runner:
        conf_note = "not run (no `--conformance-runner`)."
    elif not present:
        conf_note = "not run (no suite under `onnx-tests`)."
    else:
        conf_computes, conf_summary = conformance_evidence(
            args.conformance_runner, args.shared, present, args.conformance_ops,
            args.expected_failures)
        conf_note = ("the ONNX backend tests (`onnx-tests/{%s}`) that `prism_onnx_test` passes "
                     "with the options of the conformance CTest entries (only core ops, expected "
                     "failures excluded), whose run confirmed the computation."
                     % ",".join(present))

    conf_ev = index_evidence(spec, conf_computes)
    rows = build_rows(spec, missing, known, unit_ev, conf_ev)
    # Unregistered combinations are reported as missing registrations, not again as gaps.
    gaps = [r for r in rows if is_gap(r)]

    print("type coverage of %d ops (%d combinations of op version range, constraint and type; "
          "cross products for %s)" % (len(spec), len(rows),
                                      ", ".join(sorted(set(CROSS_PRODUCT_OPS) & set(spec)))))
    if missing:
        print("\nMISSING REGISTRATIONS (%d combinations the spec allows, no kernel registers):"
              % len(missing))
        grouped = collections.OrderedDict()  # (op, versions, constraint) -> [types]
        for (op, since, name, t), versions in missing.items():
            grouped.setdefault((op, span(versions), name), []).append(t)
        for (op, versions, name), types in grouped.items():
            print("  %-18s opset %-6s %s: %s" % (op, versions, name, ", ".join(types)))
    if known:
        print("\nKNOWN GAPS (%d combinations the spec allows, allowlisted in KNOWN_GAPS):"
              % len(known))
        grouped = collections.OrderedDict()  # (op, versions, constraint, reason) -> [types]
        for (op, since, name, t), versions in known.items():
            grouped.setdefault((op, span(versions), name, KNOWN_GAPS[(op, t)]), []).append(t)
        for (op, versions, name, reason), types in grouped.items():
            print("  %-18s opset %-6s %s: %s: %s" % (op, versions, name, ", ".join(types), reason))
    stale = [n for n in notes if "is stale" in n]
    if notes and args.verbose:
        print("\nnotes (registered beyond the spec):")
        for n in notes:
            print("  " + n)
    elif notes:
        print("\n%d notes about registrations beyond the spec (-v lists them)" % len(notes))
    print_gaps(gaps)
    print("evidence: %d confirmed computations from %d unit tests, %d from %d conformance "
          "tests%s" % (len(unit_computes), len({c.unit for c in unit_computes}),
                       len(conf_computes), len({c.unit for c in conf_computes}),
                       " (runner: %s)" % conf_summary if conf_summary else ""))

    if args.write_docs:
        schemas = {(qualified(x.domain, x.name)) for x in onnx.defs.get_all_schemas_with_history()}
        units_by_op = collections.defaultdict(set)
        for c in list(unit_computes) + list(conf_computes):
            if c.provider == CPU_PROVIDER:
                units_by_op[qualified(c.domain, c.op)].add(c.unit)
        unschemed = [(k, units_by_op.get(qualified(k["domain"], k["op"]), set()))
                     for k in sorted(kernels, key=lambda k: (k["domain"], k["op"],
                                                            k["since_version"]))
                     if qualified(k["domain"], k["op"]) not in schemas]
        write_docs(args.write_docs, rows, unit_note, conf_note, unschemed)
        print("wrote %s" % args.write_docs)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([r._asdict() for r in rows], f, indent=1)

    failed = bool(missing) or (args.strict and bool(gaps)) or bool(stale)
    for n in stale:
        print("error: " + n)
    print("\n%s: %d missing registrations, %d known gaps (allowlisted), %d gaps%s" % (
        "FAILED" if failed else "OK", len(missing), len(known), len(gaps),
        " (strict)" if args.strict else " (gaps do not fail without --strict)"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
