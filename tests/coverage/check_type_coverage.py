#!/usr/bin/env python3
"""Checks the CPU kernel registrations against the ONNX spec, and which test exercises each type.

The truth is the ONNX spec of the installed onnx package (onnx.defs), never Prism's registry.
For every op of the core kernel set, every ai.onnx schema version up to opset 28 and every type
that each type constraint allows, the registry dump (prism_registry_dump) must have a
registration that covers that opset version and lists that type for the constraint of the same
name. Missing combinations are reported and fail the check (exit 1), except those on the
KNOWN_GAPS allowlist below: each has a written reason, and is reported (and listed in
docs/operators.md) as a known gap instead of failing.

It then finds, mechanically, the tests that exercise each (op, version range, constraint, type):
  * unit tests: by default by running prism_unit_tests with libprism_kernel_trace.so preloaded,
    which records the kernel (and the type each constraint took) that every node of every test
    resolved to; only passing tests count. Without --unit-tests it greps tests/unit/**.cc
    instead (OpTester("Op", version), Input<T>/MakeTensor<T>, ElementType::kX; approximate).
  * conformance tests: the ONNX node tests (<shared>/onnx-tests/node) that the conformance CTest
    entry runs (models using only the ops of tests/conformance/core_ops.txt, minus
    tests/conformance/expected_failures.txt), whose models use the op at that opset with that
    type (read with onnx, types from shape inference).
A combination with no exercising test is a gap; gaps fail the check only with --strict.

    .venv/bin/python tests/coverage/check_type_coverage.py --dump build/prism_registry_dump \\
        --unit-tests build/prism_unit_tests --trace-lib build/libprism_kernel_trace.so \\
        [--write-docs docs/operators.md] [--strict]
"""
import argparse
import collections
import glob
import json
import os
import re
import selectors
import subprocess
import sys

import onnx
import onnx.defs
import onnx.shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MAX_OPSET = 28
CORE_OPS = ("Add Sub Mul Div Pow Sqrt Exp Erf MatMul Gemm Relu Sigmoid Tanh Softmax Conv MaxPool "
            "AveragePool GlobalAveragePool BatchNormalization LayerNormalization ReduceMean "
            "Reshape Flatten Transpose Concat Identity Constant Shape Gather Unsqueeze Squeeze "
            "Cast Clip If").split()
REGENERATE = ("`.venv/bin/python tests/coverage/check_type_coverage.py --dump build/prism_registry_dump "
              "--unit-tests build/prism_unit_tests --trace-lib build/libprism_kernel_trace.so "
              "--write-docs docs/operators.md`")

# (op, type) -> why Prism does not register it. These are deliberate, documented exceptions to
# "every type the spec allows is registered": reported as known gaps, never silently skipped.
# Keep this list short; an entry whose type the registry does register is reported as stale.
KNOWN_GAPS = {}

# ----------------------------------------------------------------------------------------------
# The spec
# ----------------------------------------------------------------------------------------------
Schema = collections.namedtuple("Schema", "op since end schema constraints")


def spec_schemas(ops):
    """{op: [Schema]} for ai.onnx schema versions up to MAX_OPSET; end is inclusive."""
    by_op = collections.defaultdict(list)
    for s in onnx.defs.get_all_schemas_with_history():
        if s.name in ops and s.domain in ("", "ai.onnx") and s.since_version <= MAX_OPSET:
            by_op[s.name].append(s)
    result = {}
    for op in ops:
        schemas = sorted(by_op.get(op, []), key=lambda s: s.since_version)
        if not schemas:
            raise SystemExit("onnx.defs has no ai.onnx schema for %s" % op)
        rows = []
        for i, s in enumerate(schemas):
            end = schemas[i + 1].since_version - 1 if i + 1 < len(schemas) else MAX_OPSET
            constraints = [(c.type_param_str, list(c.allowed_type_strs)) for c in s.type_constraints]
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
        if k["domain"] in ("", "ai.onnx"):
            by_op[k["op"]].append(k)
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
# Unit tests, traced: which kernel (and types) each test's nodes resolved to
# ----------------------------------------------------------------------------------------------
RUN_RE = re.compile(r"^\[ RUN      \] (\S+)")
OK_RE = re.compile(r"^\[       OK \] (\S+)")
FAILED_RE = re.compile(r"^\[  FAILED  \] (\S+) \(")


def _run_lines(cmd, env, idle_timeout):
    """Yields the output lines of cmd; kills it after idle_timeout seconds without output."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    buffer = b""
    try:
        while True:
            if not selector.select(timeout=idle_timeout):
                proc.kill()
                yield "@@PRISM_TRACE_IDLE_TIMEOUT"
                break
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                yield line.decode("utf-8", "replace")
        if buffer:
            yield buffer.decode("utf-8", "replace")
    finally:
        proc.stdout.close()
        proc.wait()
        selector.close()


def traced_unit_evidence(unit_tests, trace_lib, idle_timeout=120):
    """{(op, opset, constraint, type): {test}} from passing tests, plus the failed tests.

    Runs the whole binary with the shim preloaded. A test that crashes the binary or hangs (no
    output for idle_timeout seconds) counts as failed, and the binary is run again without the
    tests seen so far, so one broken test does not hide the others' evidence."""
    env = dict(os.environ)
    env["LD_PRELOAD"] = os.path.abspath(trace_lib) + (
        (":" + env["LD_PRELOAD"]) if env.get("LD_PRELOAD") else "")
    env.pop("GTEST_FILTER", None)
    records = collections.defaultdict(set)  # test -> {(op, opset, constraint, type)}
    passed, failed, seen = set(), set(), []
    traced = 0
    tail = collections.deque(maxlen=40)
    while True:
        cmd = [unit_tests, "--gtest_color=no", "--gtest_brief=0"]
        if seen:
            cmd.append("--gtest_filter=-" + ":".join(seen))
        current = None
        for line in _run_lines(cmd, env, idle_timeout):
            tail.append(line)
            if line.startswith("@@PRISM_KERNEL_TRACE_ERROR"):
                raise SystemExit("kernel trace shim failed: " + line)
            if line.startswith("@@PRISM_KERNEL\t"):
                traced += 1
                parts = line.split("\t")
                if current is None or len(parts) < 8 or parts[1] != "cpu" or parts[3] not in ("", "ai.onnx"):
                    continue
                op, opset = parts[2], int(parts[4])
                for binding in filter(None, parts[7].split(";")):
                    name, _, type_str = binding.partition("=")
                    records[current].add((op, opset, name, type_str))
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
    if traced == 0:
        raise SystemExit("no kernel lookups were traced from %s: is %s preloadable, and does "
                         "libprism_core.so still export KernelRegistry::Find?\n%s"
                         % (unit_tests, trace_lib, "\n".join(tail)))
    evidence = collections.defaultdict(set)
    for test, items in records.items():
        if test in passed:
            for item in items:
                evidence[item].add(test)
    return evidence, sorted(failed)


# ----------------------------------------------------------------------------------------------
# Unit tests, grepped (fallback without a test binary; approximate)
# ----------------------------------------------------------------------------------------------
CPP_TYPES = {
    "float": "float", "double": "double", "Float16": "float16", "BFloat16": "bfloat16",
    "int8_t": "int8", "int16_t": "int16", "int32_t": "int32", "int64_t": "int64",
    "uint8_t": "uint8", "uint16_t": "uint16", "uint32_t": "uint32", "uint64_t": "uint64",
    "bool": "bool", "std::string": "string", "string": "string",
}
TEST_RE = re.compile(r"^\s*(?:TYPED_)?TEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)", re.M)
OPTESTER_RE = re.compile(r'OpTester\s+\w+\s*\(\s*"(\w+)"\s*,\s*([^,)]+)')
TEMPLATE_ARG_RE = re.compile(r"\b(?:Input|Output|MakeTensor|Vals|Values|Run\w*|Check\w*|Test\w*)"
                             r"\s*<\s*([\w:]+)\s*>")
ENUM_RE = re.compile(r"\b(?:ElementType|E)::k(\w+)")
LOOP_INTS_RE = re.compile(r"for\s*\(\s*(?:const\s+)?(?:int|auto|int64_t)\s*&?\s*\w+\s*:\s*\{([\d,\s]+)\}")
TYPES_LIST_RE = re.compile(r"using\s+(\w+)\s*=\s*::testing::Types\s*<([^;]*)>\s*;")
TYPED_SUITE_RE = re.compile(r"TYPED_TEST_SUITE\(\s*(\w+)\s*,\s*(\w+)")


def enum_to_type(name):
    lowered = name.lower()
    return {"float": "float", "uint8": "uint8", "int8": "int8", "uint16": "uint16",
            "int16": "int16", "int32": "int32", "int64": "int64", "string": "string",
            "bool": "bool", "float16": "float16", "double": "double", "uint32": "uint32",
            "uint64": "uint64", "bfloat16": "bfloat16"}.get(lowered, lowered)


def static_unit_evidence(spec, unit_dir):
    """Greps test blocks: the ops of OpTester("Op", version) (or op-name literals passed to
    helpers), versions from the literal or a `for (int v : {...})` loop, and every element type
    the block names (template arguments, ElementType::kX, TypeParam via TYPED_TEST_SUITE).
    A test counts for every constraint of the op that allows one of its types."""
    evidence = collections.defaultdict(set)
    files = sorted(glob.glob(os.path.join(unit_dir, "**", "*.cc"), recursive=True))
    for path in files:
        with open(path, errors="replace") as f:
            text = f.read()
        type_lists = {m.group(1): [CPP_TYPES.get(t.strip(), t.strip())
                                   for t in m.group(2).split(",")]
                      for m in TYPES_LIST_RE.finditer(text)}
        suite_types = {m.group(1): type_lists.get(m.group(2), [])
                       for m in TYPED_SUITE_RE.finditer(text)}
        starts = [m for m in TEST_RE.finditer(text)]
        preamble = text[:starts[0].start()] if starts else text
        for i, m in enumerate(starts):
            block = text[m.start():starts[i + 1].start() if i + 1 < len(starts) else len(text)]
            test = "%s.%s" % (m.group(1), m.group(2))
            uses = []  # (op, [versions])
            loop_ints = [int(x) for g in LOOP_INTS_RE.findall(block) for x in g.split(",") if x.strip()]
            for op, version in OPTESTER_RE.findall(block):
                version = version.strip()
                uses.append((op, [int(version)] if version.isdigit() else loop_ints))
            if not uses:
                for op in CORE_OPS:
                    if '"%s"' % op in block:
                        uses.append((op, loop_ints or [int(x) for x in re.findall(r"\b(\d{1,2})\b", block)]))
            types = set()
            for t in TEMPLATE_ARG_RE.findall(block):
                if t in ("T", "TypeParam"):
                    types.update(suite_types.get(m.group(1), []))
                else:
                    types.add(CPP_TYPES.get(t, t))
            types.update(enum_to_type(e) for e in ENUM_RE.findall(block))
            if m.group(0).lstrip().startswith("TYPED_TEST"):
                types.update(suite_types.get(m.group(1), []))
            # Helpers defined before the tests may hold the OpTester; their types still count.
            if not types:
                types.update(CPP_TYPES.get(t, t) for t in TEMPLATE_ARG_RE.findall(preamble))
            for op, versions in uses:
                if op not in spec:
                    continue
                for v in versions:
                    s = schema_for(spec[op], v)
                    if s is None:
                        continue
                    for name, allowed in s.constraints:
                        for t in types:
                            if "tensor(%s)" % t in allowed:
                                evidence[(op, v, name, "tensor(%s)" % t)].add(test)
    return evidence


# ----------------------------------------------------------------------------------------------
# Conformance (node) tests
# ----------------------------------------------------------------------------------------------
def type_string(type_proto):
    which = type_proto.WhichOneof("value")
    if which == "tensor_type":
        return "tensor(%s)" % onnx.TensorProto.DataType.Name(type_proto.tensor_type.elem_type).lower()
    if which == "sequence_type":
        return "seq(%s)" % type_string(type_proto.sequence_type.elem_type)
    if which == "optional_type":
        return "optional(%s)" % type_string(type_proto.optional_type.elem_type)
    return None


def read_list(path, keep_comment=False):
    entries = set()
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    entries.update(line.split() if not keep_comment else [line.split()[0]])
    return entries


def graph_nodes(graph):
    for node in graph.node:
        yield node, graph
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from graph_nodes(attr.g)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    yield from graph_nodes(g)


def graph_types(graph, types):
    for vi in list(graph.input) + list(graph.output) + list(graph.value_info):
        t = type_string(vi.type)
        if t and "undefined" not in t:
            types[vi.name] = t
    for init in graph.initializer:
        types[init.name] = "tensor(%s)" % onnx.TensorProto.DataType.Name(init.data_type).lower()
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                graph_types(attr.g, types)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    graph_types(g, types)


def bound_types(node, onnx_schema, types):
    """{constraint: type} from the node's present inputs/outputs (formal params by position)."""
    result = {}
    for actual, formals in ((node.input, onnx_schema.inputs), (node.output, onnx_schema.outputs)):
        for i, name in enumerate(actual):
            if not name or not formals:
                continue
            formal = formals[min(i, len(formals) - 1)]
            if i >= len(formals) and formal.option != onnx.defs.OpSchema.FormalParameterOption.Variadic:
                continue
            t = types.get(name)
            if t and formal.type_str not in result and not formal.type_str.startswith(
                    ("tensor(", "seq(", "optional(")):
                result[formal.type_str] = t
    return result


def conformance_evidence(spec, node_dir, allowed_ops, expected_failures):
    evidence = collections.defaultdict(set)
    skipped = collections.Counter()
    if not node_dir or not os.path.isdir(node_dir):
        return evidence, skipped
    for test in sorted(os.listdir(node_dir)):
        path = os.path.join(node_dir, test, "model.onnx")
        if not os.path.exists(path):
            continue
        model = onnx.load(path, load_external_data=False)
        nodes = list(graph_nodes(model.graph))
        ops = {(n.domain if n.domain != "ai.onnx" else "", n.op_type) for n, _ in nodes}
        for f in model.functions:
            ops.update((n.domain, n.op_type) for n in f.node)
        if not any(d == "" and op in spec for d, op in ops):
            continue
        if allowed_ops is not None and any(d != "" or op not in allowed_ops for d, op in ops):
            skipped["uses ops outside the conformance op set"] += 1
            continue
        if "node/" + test in expected_failures:
            skipped["expected failure"] += 1
            continue
        opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)
        if opset is None:
            continue
        types = {}
        graph_types(model.graph, types)
        core_nodes = [n for n, _ in nodes if n.domain in ("", "ai.onnx") and n.op_type in spec]
        if any(name and name not in types for n in core_nodes for name in list(n.input) + list(n.output)):
            try:  # intermediate values: their types come from shape inference
                model = onnx.shape_inference.infer_shapes(model)
                graph_types(model.graph, types)
            except Exception:  # a failed inference leaves the declared types
                pass
        for node, _ in graph_nodes(model.graph):
            if node.domain not in ("", "ai.onnx") or node.op_type not in spec:
                continue
            try:
                onnx_schema = onnx.defs.get_schema(node.op_type, opset, "")
            except Exception:
                continue
            for name, t in bound_types(node, onnx_schema, types).items():
                evidence[(node.op_type, opset, name, t)].add(test)
    return evidence, skipped


# ----------------------------------------------------------------------------------------------
# Table and report
# ----------------------------------------------------------------------------------------------
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

    def collect(ev, op, s, name, t):
        tests = set()
        for v in range(s.since, s.end + 1):
            tests |= ev.get((op, v, name, t), set())
        return sorted(tests)

    for op, schemas in spec.items():
        for s in schemas:
            for name, types in s.constraints:
                for t in types:
                    key = (op, s.since, name, t)
                    rows.append(Row(op, range_text(s, schemas[-1]), s.since, s.end, name, t,
                                    key not in missing and key not in known,
                                    collect(unit_ev, op, s, name, t),
                                    collect(conf_ev, op, s, name, t),
                                    KNOWN_GAPS.get((op, t)) if key in known else None))
    return rows


def short_list(items, limit=3):
    if not items:
        return ""
    shown = ", ".join("`%s`" % x for x in items[:limit])
    return shown + (" (+%d)" % (len(items) - limit) if len(items) > limit else "")


def write_docs(path, rows, unit_mode, conf_note):
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
        "- **Unit tests**: %s" % unit_mode,
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
            sum(r.registered and not r.unit and not r.conformance for r in op_rows)))
    total = len(rows)
    lines.append("| **all** | | %d | %d | %d | %d | %d |" % (
        total, sum(r.registered for r in rows), sum(bool(r.unit) for r in rows),
        sum(bool(r.conformance) for r in rows),
        sum(r.registered and not r.unit and not r.conformance for r in rows)))
    for op, op_rows in by_op.items():
        lines += ["", "## %s" % op, "",
                  "| versions | constraint | type | registered | unit tests | conformance tests |",
                  "|---|---|---|---|---|---|"]
        for r in op_rows:
            gap = r.registered and not r.unit and not r.conformance
            lines.append("| %s | %s | %s | %s | %s | %s |" % (
                r.range, r.constraint, r.type.replace("|", "\\|"),
                "yes" if r.registered else ("**known gap**" if r.known_gap else "**NO**"),
                short_list(r.unit) or ("**gap**" if gap else ""),
                short_list(r.conformance)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dump", required=True,
                    help="prism_registry_dump executable, or a JSON file it wrote")
    ap.add_argument("--unit-tests", help="prism_unit_tests executable (traced; needs --trace-lib)")
    ap.add_argument("--trace-lib", help="libprism_kernel_trace.so (LD_PRELOAD shim)")
    ap.add_argument("--unit-idle-timeout", type=float, default=120,
                    help="seconds without output after which a traced unit test counts as hung")
    ap.add_argument("--unit-dir", default=os.path.join(REPO, "tests", "unit"),
                    help="unit test sources, grepped when --unit-tests is not given")
    ap.add_argument("--shared", default=os.environ.get("PRISM_SHARED_DIR") or
                    os.path.normpath(os.path.join(REPO, "..", "shared")),
                    help="shared data root holding onnx-tests/node")
    ap.add_argument("--conformance-ops", default=os.path.join(REPO, "tests", "conformance", "core_ops.txt"),
                    help="ops file of the conformance CTest entry ('' : every node test counts)")
    ap.add_argument("--expected-failures",
                    default=os.path.join(REPO, "tests", "conformance", "expected_failures.txt"))
    ap.add_argument("--ops", help="comma-separated subset of the core ops")
    ap.add_argument("--write-docs", help="write the table as markdown (docs/operators.md)")
    ap.add_argument("--json", help="write the rows as JSON")
    ap.add_argument("--strict", action="store_true", help="fail on gaps (combinations no test exercises)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every gap and note")
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

    if args.unit_tests:
        if not args.trace_lib:
            ap.error("--unit-tests needs --trace-lib")
        unit_ev, failed_tests = traced_unit_evidence(args.unit_tests, args.trace_lib,
                                                         args.unit_idle_timeout)
        unit_mode = ("traced: the passing gtest tests of `prism_unit_tests` whose nodes resolved "
                     "to a kernel of that version with that type (libprism_kernel_trace.so).")
        if failed_tests:
            print("note: %d failing unit tests do not count as evidence: %s"
                  % (len(failed_tests), ", ".join(failed_tests[:10])))
    else:
        unit_ev = static_unit_evidence(spec, args.unit_dir)
        unit_mode = ("grepped from tests/unit/**.cc (OpTester(\"Op\", version), element types "
                     "named in the test; approximate).")
    node_dir = os.path.join(args.shared, "onnx-tests", "node")
    allowed = read_list(args.conformance_ops) if args.conformance_ops else None
    xfail = read_list(args.expected_failures, keep_comment=True)
    conf_ev, conf_skipped = conformance_evidence(spec, node_dir, allowed, xfail)
    if not os.path.isdir(node_dir):
        print("warning: %s not found: no conformance evidence" % node_dir)
    conf_note = ("ONNX node tests (`onnx-tests/node`) run by the conformance CTest entry "
                 "(only core ops, expected failures excluded) whose model uses the op at an opset "
                 "of that range with that type bound to the constraint.")

    rows = build_rows(spec, missing, known, unit_ev, conf_ev)
    # Unregistered combinations are reported as missing registrations, not again as gaps.
    gaps = [r for r in rows if r.registered and not r.unit and not r.conformance]

    print("type coverage of %d ops (%d combinations of op version range, constraint and type)"
          % (len(spec), len(rows)))
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
    print("\n%d combinations have no exercising test (gaps)%s" % (len(gaps), ":" if gaps else ""))
    grouped = collections.OrderedDict()  # (op, range, constraint) -> [types]
    for r in gaps:
        grouped.setdefault((r.op, r.range, r.constraint), []).append(r.type)
    for (op, rng, name), types in grouped.items():
        print("  GAP %-18s opset %-6s %s: %s" % (op, rng, name, ", ".join(types)))
    for reason, count in sorted(conf_skipped.items()):
        print("conformance tests not counted (%s): %d" % (reason, count))

    if args.write_docs:
        write_docs(args.write_docs, rows, unit_mode, conf_note)
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
