"""prism-serve: serve an ONNX model over HTTP with Ray Serve (see docs/serving.md).

    prism-serve MODEL [--replicas N] [--threads-per-replica T] [--max-batch-size B]
                      [--address RAY_ADDRESS] [--port P] ...

Without --address a local Ray instance is started (on this machine's cores, or --num-cpus);
with --address (``auto``, or ``HOST:6379`` of a ``ray start --head`` node) it joins that
cluster, whose other machines joined with ``ray start --address HOST:6379``. Runs until
interrupted (Ctrl-C), then deletes the application.
"""
import argparse
import json
import os
import signal
import sys
import time


def _key_values(items, what):
    out = {}
    for item in items or []:
        if "=" not in item:
            raise SystemExit("prism-serve: %s %r is not KEY=VALUE" % (what, item))
        key, value = item.split("=", 1)
        out[key] = value
    return out


def _typed(value):
    """A command-line value as int, float, bool or str."""
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def parser():
    p = argparse.ArgumentParser(
        prog="prism-serve", description="Serve an ONNX model over HTTP with Ray Serve: one "
        "Prism session per replica, request batching, JSON and .npy/.npz bodies. Routes: POST "
        "/infer (or /), GET /metadata, GET /health.")
    p.add_argument("model", help="the .onnx file")
    p.add_argument("--replicas", type=int, default=1, help="model replicas (default 1)")
    p.add_argument("--threads-per-replica", type=int, default=1,
                   help="intra-op threads of each replica's session, and the CPUs Ray reserves "
                   "for it (default 1); keep replicas x threads <= cores")
    p.add_argument("--max-batch-size", type=int, default=8,
                   help="requests per batch (default 8; 1 turns batching off)")
    p.add_argument("--batch-wait-timeout-s", type=float, default=0.005,
                   help="how long a batch waits to fill (default 0.005)")
    p.add_argument("--no-batching", action="store_true", help="run each request on its own")
    p.add_argument("--address", default=None,
                   help="Ray cluster to join (auto, or HOST:PORT of the head); default: start a "
                   "local Ray instance")
    p.add_argument("--num-cpus", type=int, default=None,
                   help="CPUs of the local Ray instance (default: all; ignored with --address)")
    p.add_argument("--host", default="0.0.0.0", help="HTTP host (default 0.0.0.0)")
    p.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    p.add_argument("--name", default=None, help="application name (default: the model's name)")
    p.add_argument("--route-prefix", default="/", help="URL prefix of the routes (default /)")
    p.add_argument("--backend", choices=("prism", "onnxruntime"), default="prism",
                   help="the runtime in the replicas (default prism)")
    p.add_argument("--providers", default=None,
                   help="execution providers in priority order, comma-separated")
    p.add_argument("--provider-option", action="append", metavar="PROVIDER:KEY=VALUE",
                   help="a provider option (repeatable)")
    p.add_argument("--session-option", action="append", metavar="KEY=VALUE",
                   help="a SessionOptions attribute (repeatable), e.g. "
                   "graph_optimization_level=ORT_ENABLE_ALL; config.KEY=VALUE adds a session "
                   "config entry")
    p.add_argument("--model-transfer", choices=("object-store", "init-args", "path"),
                   default="object-store",
                   help="how replicas get the model: its bytes through Ray's object store "
                   "(default; owned by this process), in the deployment's init args, or the path "
                   "(must exist on every node)")
    p.add_argument("--min-replicas", type=int, default=None, help="autoscaling: fewest replicas")
    p.add_argument("--max-replicas", type=int, default=None, help="autoscaling: most replicas")
    p.add_argument("--target-ongoing-requests", type=float, default=None,
                   help="autoscaling: ongoing requests per replica to aim for")
    p.add_argument("--autoscaling-config", default=None, metavar="JSON",
                   help="Ray Serve autoscaling_config as JSON (merged with the three above)")
    p.add_argument("--ingress-replicas", type=int, default=1,
                   help="HTTP ingress replicas (default 1; they use no reserved CPU)")
    p.add_argument("--retries", type=int, default=3,
                   help="retries of a request whose replica died (default 3)")
    return p


def _providers(args):
    providers = [p for p in (args.providers or "").split(",") if p] or None
    options = {}
    for item in args.provider_option or []:
        if ":" not in item or "=" not in item:
            raise SystemExit("prism-serve: --provider-option %r is not PROVIDER:KEY=VALUE" % item)
        name, rest = item.split(":", 1)
        key, value = rest.split("=", 1)
        options.setdefault(name, {})[key] = value
    if not options:
        return providers, None
    providers = providers or sorted(options) + ["CPUExecutionProvider"]
    return providers, [options.get(p, {}) for p in providers]


def _session_options(args):
    options = {}
    for key, value in _key_values(args.session_option, "--session-option").items():
        if key.startswith("config."):
            options.setdefault("config_entries", {})[key[len("config."):]] = value
        else:
            options[key] = _typed(value)
    return options or None


def _autoscaling(args):
    config = json.loads(args.autoscaling_config) if args.autoscaling_config else {}
    for key, value in (("min_replicas", args.min_replicas), ("max_replicas", args.max_replicas),
                       ("target_ongoing_requests", args.target_ongoing_requests)):
        if value is not None:
            config[key] = value
    if config:
        config.setdefault("initial_replicas", args.replicas)
    return config or None


def main(argv=None):
    args = parser().parse_args(argv)
    if not os.path.isfile(args.model):
        raise SystemExit("prism-serve: no such model file: %s" % args.model)
    import ray
    from ray import serve

    from .deployment import build_app

    providers, provider_options = _providers(args)
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(address="local", num_cpus=args.num_cpus, include_dashboard=False)
    if args.model_transfer == "path":
        model = os.path.abspath(args.model)
    else:
        with open(args.model, "rb") as f:
            data = f.read()
        model = data if args.model_transfer == "init-args" else [ray.put(data)]
    try:
        return _serve(args, serve, build_app, model, providers, provider_options)
    except KeyboardInterrupt:
        print("prism-serve: interrupted", file=sys.stderr)
        return 130


def _serve(args, serve, build_app, model, providers, provider_options):
    name = args.name or os.path.splitext(os.path.basename(args.model))[0]
    serve.start(http_options={"host": args.host, "port": args.port})
    app = build_app(model, backend=args.backend, providers=providers,
                    provider_options=provider_options, session_options=_session_options(args),
                    threads_per_replica=args.threads_per_replica, replicas=args.replicas,
                    batching=not args.no_batching, max_batch_size=args.max_batch_size,
                    batch_wait_timeout_s=args.batch_wait_timeout_s,
                    autoscaling_config=_autoscaling(args),
                    ingress_replicas=args.ingress_replicas, retries=args.retries)
    serve.run(app, name=name, route_prefix=args.route_prefix)
    prefix = args.route_prefix.rstrip("/")
    host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    print("prism-serve: %s is served at http://%s:%d%s/infer (metadata: %s/metadata, health: "
          "%s/health); Ctrl-C stops it" % (args.model, host, args.port, prefix, prefix, prefix),
          flush=True)
    stop = []
    for signum in (signal.SIGINT, signal.SIGTERM):  # Ctrl-C and `kill`: stop cleanly
        signal.signal(signum, lambda *_: stop.append(1))
    while not stop:
        time.sleep(0.2)
    print("prism-serve: stopping %s" % name, flush=True)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a second Ctrl-C ends it at once
    serve.delete(name)
    if not args.address:
        serve.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
