#!/usr/bin/env python3
"""Requests/s and latency of prismrt.serve: Prism against onnxruntime behind the same deployment.

One command, one local Ray instance (--num-cpus, default 2). For every model and every
(backend, replicas, batching), an application is deployed with prismrt.serve.build_app (the same
ingress, batching and HTTP path; only the session's runtime differs), each replica with one
intra-op thread reserving one Ray CPU. The measurements alternate, round after round: each round
measures every (replicas, batching) configuration, the two backends back to back in an order that
flips every round; each measurement deploys its application, measures, and deletes it, so that
nothing else is deployed meanwhile (--keep-deployed deploys everything once instead). A
measurement is a closed loop of --concurrency client threads (one keep-alive connection each)
posting pre-encoded .npz bodies for --seconds after a --warmup-s warm-up. Reported: the medians
over the rounds of the throughput (requests/s) and of each round's p50 and p99 latency, the
foreign load (cores busy with processes outside this one and its Ray processes, from
/proc/stat), and the CPU time per request of each part of the serving path.

    .venv/bin/python benchmarks/serve_bench.py --models squeezenet1_1,bert_tiny \
        --markdown benchmarks/RESULTS.md
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import socket
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "models"))
from bench_models import ensure_models, load_sidecar, make_inputs, make_symbolic_batch  # noqa


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TreeCpu:
    """CPU time of this process and all its descendants (the Ray processes it started), and of
    the whole machine, from /proc; foreign = machine busy time minus the tree's."""

    @staticmethod
    def _machine_busy_s():
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
        return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _tree_s():
        return sum(TreeCpu._tree().values()) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _tree():
        """{pid: CPU ticks} of this process and its descendants."""
        parents, times = {}, {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % entry) as f:
                    data = f.read()
            except OSError:
                continue
            fields = data[data.rindex(")") + 2:].split()
            parents[int(entry)] = int(fields[1])
            times[int(entry)] = int(fields[11]) + int(fields[12])  # utime + stime
        tree, frontier = {os.getpid()}, [os.getpid()]
        while frontier:
            parent = frontier.pop()
            for pid, ppid in parents.items():
                if ppid == parent and pid not in tree:
                    tree.add(pid)
                    frontier.append(pid)
        return {pid: times.get(pid, 0) for pid in tree}

    @staticmethod
    def _role(pid, app):
        """Which part of the serving path a process is, for application APP."""
        if pid == os.getpid():
            return "client"
        try:
            with open("/proc/%d/cmdline" % pid) as f:
                title = f.read()
        except OSError:
            return "ray"
        if "ServeReplica:%s:PrismModel" % app in title:
            return "replicas"
        if "ServeReplica:%s:PrismIngress" % app in title:
            return "ingress"
        if "ProxyActor" in title:
            return "proxy"
        return "ray"  # raylet, GCS, the controller, the other (idle) applications

    def start(self):
        self.wall, self.busy = time.monotonic(), self._machine_busy_s()
        self.ticks = self._tree()

    def stop(self, app=None):
        wall = time.monotonic() - self.wall
        ticks = self._tree()
        hz = os.sysconf("SC_CLK_TCK")
        roles = {}
        for pid, value in ticks.items():
            role = self._role(pid, app)
            roles[role] = roles.get(role, 0.0) + (value - self.ticks.get(pid, 0)) / hz
        own = sum(roles.values())
        busy = self._machine_busy_s() - self.busy
        return {"own_cores": own / wall, "foreign_cores": max(0.0, busy - own) / wall,
                "cpu_s": roles}


def _http_sender(url, bodies):
    """send(i) posts body i over one keep-alive connection; returns None or an error."""
    from prismrt.serve.client import Client
    client = Client(url)

    def send(i):
        status, _, data = client.post(bodies[i % len(bodies)], "application/x-npz",
                                      accept="application/x-npz")
        return None if status == 200 else (status, data[:300])
    send.close = client.close
    return send


def _handle_sender(handle, feeds):
    """send(i) calls the model deployment's infer through a DeploymentHandle (no HTTP proxy, no
    ingress): the --path handle investigation."""
    def send(i):
        handle.infer.remote(feeds[i % len(feeds)]).result()
    send.close = lambda: None
    return send


def measure(make_sender, concurrency, seconds, warmup_s, app=None):
    """Closed loop of `concurrency` clients: (requests/s, latencies in ms, cpu)."""
    latencies, errors = [], []
    lock = threading.Lock()
    phase = {"record": False, "stop": False}

    def worker(k):
        send = make_sender()
        i = k
        local = []
        while not phase["stop"]:
            started = time.perf_counter()
            error = send(i)
            i += concurrency
            elapsed = time.perf_counter() - started
            if error is not None:
                with lock:
                    errors.append(error)
            elif phase["record"]:
                local.append((started, elapsed))
        send.close()
        with lock:
            latencies.extend(local)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(concurrency)]
    for t in threads:
        t.start()
    time.sleep(warmup_s)
    cpu = TreeCpu()
    cpu.start()
    window_start = time.perf_counter()
    phase["record"] = True
    time.sleep(seconds)
    phase["stop"] = True
    for t in threads:
        t.join()
    window_end = time.perf_counter()
    load = cpu.stop(app)
    if errors:
        raise RuntimeError("%d requests failed, first: %r" % (len(errors), errors[0]))
    # Requests started inside the window; those still running at its end finish within it.
    done = [(s, e) for s, e in latencies if s >= window_start]
    throughput = len(done) / (window_end - window_start)
    # CPU ms per request of each part of the path (requests answered in the window, tail included)
    answered = max(1, sum(1 for s, _ in latencies if s + _ >= window_start))
    load["cpu_ms_per_request"] = {role: 1000.0 * v / answered
                                  for role, v in load.pop("cpu_s").items()}
    return throughput, np.array([e * 1000.0 for _, e in done]), load


def percentile(values, p):
    return float(np.percentile(values, p)) if len(values) else float("nan")


def machine_description():
    import onnxruntime as ort
    import ray

    import prismrt
    cpu = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return ("%s, %d logical CPUs, %s, Python %s, ray %s, onnxruntime %s, prismrt %s, numpy %s"
            % (cpu, os.cpu_count(), platform.platform(), platform.python_version(),
               ray.__version__, ort.__version__, prismrt.__version__, np.__version__))


def prepare_model(name, models_dir, work_dir, n_bodies):
    """(model bytes, npz bodies, [(feeds, expected)]) with onnxruntime's outputs for checks."""
    import onnxruntime as ort

    from prismrt.serve import encode_npz
    ensure_models(models_dir, [name], sys.executable)
    sidecar = load_sidecar(models_dir, name)
    path = os.path.join(models_dir, name + ".onnx")
    if name.startswith("bert"):  # a symbolic batch dim, so that batching concatenates
        os.makedirs(work_dir, exist_ok=True)
        symbolic = os.path.join(work_dir, name + "_batch.onnx")
        make_symbolic_batch(path, symbolic)
        path = symbolic
    rng = np.random.default_rng(7)
    feeds = [make_inputs(sidecar, rng) for _ in range(n_bodies)]
    prepare_model.feeds = feeds
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    oracle = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    checks = [(f, oracle.run(None, f)) for f in feeds[:2]]
    with open(path, "rb") as f:
        data = f.read()
    return data, [encode_npz(f) for f in feeds], checks


def outputs_agree(url, checks):
    from prismrt.serve.client import Client
    client = Client(url)
    for feeds, expected in checks:
        got = list(client.infer(feeds).values())
        if len(got) != len(expected) or not all(
                np.allclose(g, e, rtol=1e-3, atol=1e-4) for g, e in zip(got, expected)):
            return False
    return True


def run(args):
    import ray
    from ray import serve

    from prismrt.serve import build_app
    models_dir = os.path.join(args.build_dir, "bench-models")
    work_dir = os.path.join(args.build_dir, "serve-bench")
    replicas_list = [int(r) for r in args.replicas.split(",")]
    batching_list = [b == "on" for b in args.batching.split(",")]
    backends = args.backends.split(",")
    configs = [(r, b) for r in replicas_list for b in batching_list]
    port = _free_port()
    ray.init(address="local", num_cpus=args.num_cpus, include_dashboard=False,
             log_to_driver=False, configure_logging=False)
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    results = {}
    try:
        for model in args.models.split(","):
            data, bodies, checks = prepare_model(model, models_dir, work_dir, args.bodies)
            keys = [(r, b, backend) for r, b in configs for backend in backends]
            samples = {key: [] for key in keys}
            agree = {}

            def deploy(key):
                replicas, batching, backend = key
                name = "%s-%s-r%d-%s" % (model, backend, replicas, "b" if batching else "nb")
                app = build_app(data, backend=backend, replicas=replicas, batching=batching,
                                max_batch_size=args.max_batch_size,
                                batch_wait_timeout_s=args.batch_wait_timeout_s,
                                max_ongoing_requests=args.max_ongoing_requests,
                                threads_per_replica=1,
                                replica_num_cpus=0 if args.keep_deployed else None)
                serve.run(app, name=name, route_prefix="/" + name)
                url = "http://127.0.0.1:%d/%s" % (port, name)
                if key not in agree:
                    agree[key] = outputs_agree(url, checks)
                    print("deployed %s (outputs agree with onnxruntime: %s)" % (
                        name, agree[key]), flush=True)
                return name, url

            deployed = {key: deploy(key) for key in keys} if args.keep_deployed else {}
            for round_index in range(args.rounds):
                order = backends if round_index % 2 == 0 else backends[::-1]
                for replicas, batching in configs:
                    for backend in order:
                        key = (replicas, batching, backend)
                        name, url = deployed[key] if args.keep_deployed else deploy(key)
                        if args.path == "http":
                            make_sender = (lambda u=url: _http_sender(u, bodies))
                        else:
                            handle = serve.get_deployment_handle("PrismModel", name)
                            make_sender = (lambda h=handle: _handle_sender(
                                h, prepare_model.feeds))
                        throughput, latencies, load = measure(
                            make_sender, args.concurrency, args.seconds, args.warmup_s,
                            app=name)
                        if not args.keep_deployed:
                            serve.delete(name)
                        samples[key].append({"rps": throughput,
                                             "p50": percentile(latencies, 50),
                                             "p99": percentile(latencies, 99),
                                             "count": len(latencies), **load})
                        print("round %d %s replicas=%d batching=%s %s: %.1f req/s, p50 %.1f ms, "
                              "p99 %.1f ms, foreign load %.2f cores" % (
                                  round_index + 1, model, replicas, "on" if batching else "off",
                                  backend, throughput, samples[key][-1]["p50"],
                                  samples[key][-1]["p99"], load["foreign_cores"]), flush=True)
            for name, _ in deployed.values():
                serve.delete(name)
            results[model] = {"samples": samples, "agree": agree}
    finally:
        serve.shutdown()
        ray.shutdown()
    return results, configs, backends


def summarize(results, configs, backends):
    rows = []
    for model, data in results.items():
        for replicas, batching in configs:
            for backend in backends:
                s = data["samples"][(replicas, batching, backend)]
                rows.append({
                    "model": model, "replicas": replicas, "batching": batching,
                    "backend": backend,
                    "rps": float(np.median([x["rps"] for x in s])),
                    "rps_rounds": [round(x["rps"], 1) for x in s],
                    "p50": float(np.median([x["p50"] for x in s])),
                    "p99": float(np.median([x["p99"] for x in s])),
                    "requests": int(sum(x["count"] for x in s)),
                    "foreign": float(np.mean([x["foreign_cores"] for x in s])),
                    "own": float(np.mean([x["own_cores"] for x in s])),
                    "cpu_ms": {role: float(np.median([x["cpu_ms_per_request"].get(role, 0.0)
                                                      for x in s]))
                               for role in ("replicas", "ingress", "proxy", "ray", "client")},
                    "agree": data["agree"][(replicas, batching, backend)]})
    return rows


def _row(rows, model, replicas, batching, backend):
    for r in rows:
        if (r["model"], r["replicas"], r["batching"], r["backend"]) == (model, replicas, batching,
                                                                        backend):
            return r
    return None


def markdown(rows, args, command, started, load_before, load_after):
    lines = [
        "## Serving run of %s (prismrt.serve, Ray Serve)" % started,
        "",
        "Command (from the repository root):",
        "",
        "    " + command,
        "",
        "Machine: %s. Load average before the run: %s; after: %s." % (
            machine_description(), load_before, load_after),
        "Local Ray instance with %d CPUs; one intra-op thread per replica; %s; %d client "
        "threads in a closed loop %s (%d distinct inputs); max_batch_size %d, "
        "batch_wait_timeout_s %g when batching is on; %d rounds of %g s (after %g s of "
        "warm-up) per configuration and backend, alternating. Throughput and latencies are the "
        "medians over the rounds; foreign load is the mean number of cores busy with processes "
        "other than the benchmark and its Ray processes; own is what the benchmark, Ray and the "
        "replicas used." % (args.num_cpus,
                            "every application deployed once, reserving no CPU"
                            if args.keep_deployed else
                            "each application deployed for its measurement only, one CPU per "
                            "replica", args.concurrency,
                            "posting .npz bodies over HTTP" if args.path == "http" else
                            "calling the model deployment through a DeploymentHandle (no HTTP "
                            "proxy, no ingress)", args.bodies, args.max_batch_size,
                            args.batch_wait_timeout_s, args.rounds, args.seconds,
                            args.warmup_s),
        "",
        "CPU ms per request: the CPU time of each part of the serving path during a measurement "
        "divided by the requests answered (replicas: the model replicas, runs included; ingress; "
        "Ray's HTTP proxy; ray: raylet, GCS, controller and the idle applications; client: this "
        "process's client threads), medians over the rounds.",
        "",
        "| model | replicas | batching | backend | requests/s | p50 ms | p99 ms | req/s per round "
        "| foreign load | own cores | CPU ms/request: replicas / ingress / proxy / ray / client "
        "| outputs agree |",
        "|---|---:|---|---|---:|---:|---:|---|---:|---:|---|---|",
    ]
    for r in rows:
        lines.append("| %s | %d | %s | %s | %.1f | %.1f | %.1f | %s | %.2f | %.2f | %s | %s |" % (
            r["model"], r["replicas"], "on" if r["batching"] else "off", r["backend"], r["rps"],
            r["p50"], r["p99"], ", ".join(str(v) for v in r["rps_rounds"]), r["foreign"],
            r["own"], " / ".join("%.1f" % r["cpu_ms"][k] for k in
                                 ("replicas", "ingress", "proxy", "ray", "client")),
            "yes" if r["agree"] else "NO"))
    lines += ["", "Ratios of the median throughputs:", ""]
    for model in dict.fromkeys(r["model"] for r in rows):
        for batching in dict.fromkeys(r["batching"] for r in rows):
            parts = []
            for backend in dict.fromkeys(r["backend"] for r in rows):
                one = _row(rows, model, 1, batching, backend)
                two = _row(rows, model, 2, batching, backend)
                if one and two:
                    parts.append("%s 2 replicas / 1 = %.2fx" % (backend, two["rps"] / one["rps"]))
            for replicas in dict.fromkeys(r["replicas"] for r in rows):
                prism = _row(rows, model, replicas, batching, "prism")
                ort = _row(rows, model, replicas, batching, "onnxruntime")
                if prism and ort:
                    parts.append("prism / onnxruntime at %d replica%s = %.2fx" % (
                        replicas, "s" if replicas > 1 else "", prism["rps"] / ort["rps"]))
            lines.append("- %s, batching %s: %s" % (model, "on" if batching else "off",
                                                   "; ".join(parts)))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build"),
                        help="where bench-models/ is (models generated there when missing)")
    parser.add_argument("--models", default="squeezenet1_1")
    parser.add_argument("--backends", default="prism,onnxruntime")
    parser.add_argument("--replicas", default="1,2")
    parser.add_argument("--batching", default="off,on")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--warmup-s", type=float, default=1.5)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--bodies", type=int, default=16, help="distinct inputs cycled through")
    parser.add_argument("--max-batch-size", type=int, default=8)
    parser.add_argument("--batch-wait-timeout-s", type=float, default=0.005)
    parser.add_argument("--num-cpus", type=int, default=2)
    parser.add_argument("--max-ongoing-requests", type=int, default=None,
                        help="per model replica (default: build_app's)")
    parser.add_argument("--path", choices=("http", "handle"), default="http",
                        help="http: through Ray's HTTP proxy and the ingress (what clients get); "
                        "handle: DeploymentHandle calls to the model deployment from this process "
                        "(no proxy, no ingress: how much the HTTP path costs)")
    parser.add_argument("--keep-deployed", action="store_true",
                        help="deploy every application once, reserving no CPU, instead of "
                        "deploying each one for its measurement (faster, but the idle "
                        "applications' background work lands in the measurements)")
    parser.add_argument("--json", default=None, help="write the rows here")
    parser.add_argument("--markdown", default=None, help="append a section to this file")
    args = parser.parse_args()
    command = " ".join(shlex.quote(a) for a in [".venv/bin/python",
                                                 os.path.relpath(__file__, REPO)] + sys.argv[1:])
    started = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    load_before = " ".join(open("/proc/loadavg").read().split()[:3])
    results, configs, backends = run(args)
    load_after = " ".join(open("/proc/loadavg").read().split()[:3])
    rows = summarize(results, configs, backends)
    text = markdown(rows, args, command, started, load_before, load_after)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if args.markdown:
        with open(args.markdown, "a") as f:
            f.write("\n" + text)
    return 0 if all(r["agree"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
