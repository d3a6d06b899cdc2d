"""Ray Serve deployments for an ONNX model: one session per replica, batching, HTTP routes.

Two deployments make one application:

- ``PrismModel`` (``ModelReplica``): N replicas, each with one InferenceSession created in the
  replica (Prism by default, or onnxruntime with ``backend="onnxruntime"`` for comparisons) and
  ``intra_op_num_threads`` = threads per replica. Requests go through Ray Serve's ``@serve.batch``
  (``max_batch_size``, ``batch_wait_timeout_s``) unless batching is off; see _batching.py for how a
  batch runs. Runs happen on one worker thread per replica, so that a replica never uses more
  cores than its threads.
- ``PrismIngress`` (``HttpIngress``): the HTTP routes. It decodes and validates each request
  (a bad one is answered 400 here, before it can join a batch), calls the model deployment
  through a DeploymentHandle, and retries on another replica when the one serving the request
  dies (Ray Serve does not retry a request a replica had accepted); a request no replica could
  serve gets a 503 with the reason.

Routes (relative to the application's route prefix):
``POST /`` or ``POST /infer`` (JSON, .npy or .npz body; see _codec.py), ``GET /metadata``,
``GET /health``.
"""
import asyncio
import concurrent.futures
import importlib
import json
import logging
import os
import time

from ray import serve
from ray.exceptions import RayActorError
from ray.serve.exceptions import BackPressureError
from starlette.responses import Response

from . import _batching
from ._batching import run_batch
from ._codec import (InferenceError, RequestError, TensorSpec, batch_symbol, decode_request,
                     encode_response, response_kind, select_outputs, validate)

logger = logging.getLogger("ray.serve")

BACKENDS = {"prism": "prismrt", "onnxruntime": "onnxruntime"}
MODEL_DEPLOYMENT = "PrismModel"
INGRESS_DEPLOYMENT = "PrismIngress"


def _load_model(model):
    """The model as a path or bytes: a path, bytes, or a one-element list holding the ObjectRef
    of the bytes in Ray's object store (a list, so that Ray hands over the ref, not the value)."""
    if isinstance(model, (list, tuple)):
        import ray
        return ray.get(model[0])
    return model


def make_session(model, backend="prism", providers=None, provider_options=None,
                 session_options=None, threads=1):
    """An InferenceSession of the backend's package with intra_op_num_threads=threads.

    session_options: SessionOptions attributes by name; "config_entries" (a dict) goes to
    add_session_config_entry, and graph_optimization_level may be named ("ORT_ENABLE_ALL").
    """
    if backend not in BACKENDS:
        raise ValueError("unknown backend %r (%s)" % (backend, ", ".join(BACKENDS)))
    rt = importlib.import_module(BACKENDS[backend])
    options = rt.SessionOptions()
    options.intra_op_num_threads = int(threads)
    options.inter_op_num_threads = 1
    for key, value in (session_options or {}).items():
        if key == "config_entries":
            for entry, entry_value in value.items():
                options.add_session_config_entry(entry, str(entry_value))
            continue
        if key == "graph_optimization_level" and isinstance(value, str):
            value = getattr(rt.GraphOptimizationLevel, value)
        if not hasattr(options, key):
            raise ValueError("unknown session option %r" % key)
        setattr(options, key, value)
    return rt, rt.InferenceSession(model, options, providers=providers or
                                   ["CPUExecutionProvider"], provider_options=provider_options)


def partition_summary(session):
    """Prism's partition report up to its node list (nodes per provider, copies); None for a
    runtime without one (onnxruntime)."""
    report = getattr(session, "get_partition_report", None)
    if report is None:
        return None
    lines = []
    for line in report().splitlines():
        if line.startswith("Nodes:"):
            break
        lines.append(line.strip())
    return "; ".join(line for line in lines if line)


def _status_of(error):
    """400 for an error the runtime attributes to the inputs, 500 otherwise."""
    name = type(error).__name__
    return 400 if name in ("InvalidArgument", "INVALID_ARGUMENT") else 500


@serve.deployment(name=MODEL_DEPLOYMENT)
class ModelReplica:
    """One session per replica; see the module docstring."""

    def __init__(self, model, backend="prism", providers=None, provider_options=None,
                 session_options=None, threads=1, batching=True, max_batch_size=8,
                 batch_wait_timeout_s=0.005):
        started = time.perf_counter()
        self._backend = backend
        self._threads = int(threads)
        self._runtime, self._session = make_session(_load_model(model), backend, providers,
                                                    provider_options, session_options, threads)
        self._inputs = [TensorSpec.from_node_arg(a) for a in self._session.get_inputs()]
        self._outputs = [TensorSpec.from_node_arg(a) for a in self._session.get_outputs()]
        self._output_names = [s.name for s in self._outputs]
        self._batch_dim = batch_symbol(self._inputs, self._outputs)
        self._batching = bool(batching) and int(max_batch_size) > 1
        self._max_batch_size = int(max_batch_size)
        self._batch_wait_timeout_s = float(batch_wait_timeout_s)
        self._batched.set_max_batch_size(self._max_batch_size)
        self._batched.set_batch_wait_timeout_s(self._batch_wait_timeout_s)
        # One worker: runs never overlap in a replica, so it uses `threads` cores at most.
        self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="prism-run")
        self._replica_id = _replica_id()
        self._requests = 0
        self._runs = 0
        self._batches = 0
        logger.info("%s replica %s: %s session ready in %.2f s (batch dimension: %s)",
                    MODEL_DEPLOYMENT, self._replica_id, backend,
                    time.perf_counter() - started, self._batch_dim)

    def _run(self, feeds):
        self._runs += 1
        values = self._session.run(self._output_names, feeds)
        return dict(zip(self._output_names, values))

    def _run_requests(self, requests):
        return run_batch(self._run, requests, self._batch_dim is not None)

    @serve.batch(max_batch_size=8, batch_wait_timeout_s=0.005)
    async def _batched(self, requests):
        self._batches += 1
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._run_requests, requests)

    async def infer(self, feeds):
        """{output name: array} for validated feeds (every output)."""
        self._requests += 1
        if self._batching:
            result = await self._batched(feeds)
        else:
            loop = asyncio.get_running_loop()
            result = (await loop.run_in_executor(self._executor, self._run_requests, [feeds]))[0]
        if isinstance(result, BaseException):
            raise InferenceError("%s: %s" % (type(result).__name__, result), _status_of(result))
        return result

    def metadata(self):
        return {
            "backend": self._backend,
            "runtime_version": getattr(self._runtime, "__version__", None),
            "inputs": [s.to_dict() for s in self._inputs],
            "outputs": [s.to_dict() for s in self._outputs],
            "providers": self._session.get_providers(),
            "partition": partition_summary(self._session),
            "batch_dimension": self._batch_dim,
            "batching": {"enabled": self._batching, "max_batch_size": self._max_batch_size,
                         "batch_wait_timeout_s": self._batch_wait_timeout_s,
                         "concatenates": self._batching and self._batch_dim is not None},
            "threads_per_replica": self._threads,
        }

    def health(self):
        return {"status": "ok", "replica": self._replica_id, "pid": os.getpid(),
                "requests": self._requests, "runs": self._runs, "batches": self._batches}

    def check_health(self):
        """Called by Ray Serve's controller: a replica whose session is gone is replaced."""
        if self._session is None:
            raise RuntimeError("the replica has no session")


def _replica_id():
    try:
        return serve.get_replica_context().replica_id.unique_id
    except Exception:  # noqa: BLE001 (outside a replica: local testing)
        return "local"


def _json_error(status, message):
    return Response(json.dumps({"error": message}).encode("utf-8"), status_code=status,
                    media_type="application/json")


class _Unavailable(Exception):
    pass


@serve.deployment(name=INGRESS_DEPLOYMENT)
class HttpIngress:
    """The HTTP routes; see the module docstring."""

    def __init__(self, model_handle, retries=3, retry_backoff_s=0.25):
        self._model = model_handle
        self._retries = int(retries)
        self._retry_backoff_s = float(retry_backoff_s)
        self._meta = None
        self._meta_lock = asyncio.Lock()
        self._stats = {"requests": 0, "retries": 0, "unavailable": 0}

    async def _call(self, method, *args):
        """Calls the model deployment; retries on another replica when the replica dies."""
        last = None
        for attempt in range(self._retries + 1):
            try:
                return await getattr(self._model, method).remote(*args)
            except (RayActorError, BackPressureError) as error:
                if _batching.PLANT == "drop_on_replica_death":
                    return {}
                if _batching.PLANT == "no_retry":
                    raise
                last = error
                if attempt < self._retries:
                    self._stats["retries"] += 1
                logger.warning("%s.%s failed on a replica (%s: %s); attempt %d of %d",
                               MODEL_DEPLOYMENT, method, type(error).__name__,
                               str(error).splitlines()[0] if str(error) else "",
                               attempt + 1, self._retries + 1)
                if attempt < self._retries:
                    await asyncio.sleep(self._retry_backoff_s * (attempt + 1))
        self._stats["unavailable"] += 1
        raise _Unavailable("no replica of %s could serve the request after %d attempts: %s: %s"
                           % (MODEL_DEPLOYMENT, self._retries + 1, type(last).__name__,
                              str(last).splitlines()[0] if str(last) else ""))

    async def _metadata(self):
        if self._meta is None:
            async with self._meta_lock:
                if self._meta is None:
                    meta = await self._call("metadata")
                    self._inputs = [TensorSpec.from_dict(d) for d in meta["inputs"]]
                    self._outputs = [TensorSpec.from_dict(d) for d in meta["outputs"]]
                    self._meta = meta
        return self._meta

    async def __call__(self, request):
        path = request.url.path
        root = request.scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root):]
        path = "/" + path.strip("/")
        try:
            if path in ("/", "/infer"):
                if request.method != "POST":
                    return _json_error(405, "POST a JSON, .npy or .npz body to %s" % path)
                return await self._infer(request)
            if path == "/metadata":
                return _json_response(await self._metadata())
            if path == "/health":
                health = await self._call("health")
                return _json_response({"status": "ok", "model_replica": health,
                                       "ingress": dict(self._stats, replica=_replica_id())})
            return _json_error(404, "no route %s (POST /infer, GET /metadata, GET /health)" % path)
        except RequestError as error:
            return _json_error(error.status, str(error))
        except InferenceError as error:
            # Raised in the replica: Ray hands over a RayTaskError that is also an
            # InferenceError; its cause holds the message alone (no remote traceback).
            cause = getattr(error, "cause", None)
            return _json_error(error.status, str(cause if isinstance(cause, InferenceError)
                                                 else error))
        except _Unavailable as error:
            return _json_error(503, str(error))
        except Exception as error:  # noqa: BLE001 (answered, never dropped)
            logger.exception("request to %s failed", path)
            message = str(error).strip().splitlines()
            return _json_error(500, "%s: %s" % (type(error).__name__,
                                                message[-1] if message else ""))

    async def _infer(self, request):
        self._stats["requests"] += 1
        await self._metadata()
        body = await request.body()
        query = dict(request.query_params)
        feeds, requested, kind = decode_request(body, request.headers.get("content-type"),
                                                query, self._inputs)
        names = select_outputs(requested, self._outputs)
        out_kind = response_kind(kind, request.headers.get("accept"), query, len(names))
        if _batching.PLANT != "skip_validation":
            feeds = validate(feeds, self._inputs, self._meta["batch_dimension"])
        outputs = await self._call("infer", feeds)
        body, content_type = encode_response({n: outputs[n] for n in names if n in outputs},
                                             out_kind)
        return Response(body, media_type=content_type)


def _json_response(document):
    return Response(json.dumps(document).encode("utf-8"), media_type="application/json")


def build_app(model, *, backend="prism", providers=None, provider_options=None,
              session_options=None, threads_per_replica=1, replicas=1, batching=True,
              max_batch_size=8, batch_wait_timeout_s=0.005, max_ongoing_requests=None,
              autoscaling_config=None, replica_num_cpus=None, ingress_replicas=1, retries=3,
              ray_actor_options=None, access_log=True):
    """The Ray Serve application for one model: ``serve.run(build_app("model.onnx"))``.

    model: a path (read in each replica: it must exist on every node), bytes (sent with the
    deployment's init args), or ``[ray.put(bytes)]`` (fetched from Ray's object store).
    Each replica reserves ``replica_num_cpus`` CPUs from Ray (default: threads_per_replica), so
    Ray never places more replicas on a node than its cores allow. autoscaling_config is passed
    to Ray Serve as it is (then ``replicas`` is ignored). access_log=False turns off Ray Serve's
    per-request log lines of both deployments (the model deployment's are always off: the
    ingress logs each request with its status).
    """
    if backend not in BACKENDS:
        raise ValueError("unknown backend %r (%s)" % (backend, ", ".join(BACKENDS)))
    batching = bool(batching) and int(max_batch_size) > 1
    if max_ongoing_requests is None:
        max_ongoing_requests = max(2 * int(max_batch_size), 4) if batching else 4
    actor_options = dict(ray_actor_options or {})
    actor_options.setdefault("num_cpus", threads_per_replica if replica_num_cpus is None
                             else replica_num_cpus)
    model_options = {"ray_actor_options": actor_options,
                     "max_ongoing_requests": int(max_ongoing_requests),
                     "logging_config": {"enable_access_log": False}}
    if autoscaling_config:
        model_options["autoscaling_config"] = dict(autoscaling_config)
    else:
        model_options["num_replicas"] = int(replicas)
    model_app = ModelReplica.options(**model_options).bind(
        model, backend=backend, providers=providers, provider_options=provider_options,
        session_options=session_options, threads=threads_per_replica, batching=batching,
        max_batch_size=max_batch_size, batch_wait_timeout_s=batch_wait_timeout_s)
    return HttpIngress.options(num_replicas=int(ingress_replicas),
                               ray_actor_options={"num_cpus": 0}, max_ongoing_requests=1024,
                               logging_config={"enable_access_log": bool(access_log)}
                               ).bind(model_app, retries=retries)


def app_builder(args):
    """Application builder for Ray Serve config files and KubeRay's RayService
    (``import_path: prismrt.serve:app_builder``): args are build_app's keyword arguments plus
    ``model`` (a path that exists in every pod)."""
    args = dict(args)
    model = args.pop("model")
    for key in ("threads_per_replica", "replicas", "max_batch_size", "ingress_replicas",
                "retries"):
        if key in args:
            args[key] = int(args[key])
    if "batch_wait_timeout_s" in args:
        args["batch_wait_timeout_s"] = float(args["batch_wait_timeout_s"])
    if isinstance(args.get("batching"), str):
        args["batching"] = args["batching"].lower() not in ("0", "false", "no", "off")
    if isinstance(args.get("providers"), str):
        args["providers"] = [p for p in args["providers"].split(",") if p]
    return build_app(model, **args)
