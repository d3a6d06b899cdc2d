"""The serve extra as installed by CTest's python_package_install: metadata, console script, and
`import prismrt` staying free of Ray."""
import os
import subprocess
import sys
from importlib import metadata


def test_import_prismrt_does_not_import_ray():
    code = "import prismrt, sys; assert 'ray' not in sys.modules, sorted(sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True, cwd="/tmp")


def test_wheel_declares_the_serve_extra_and_the_console_script():
    dist = metadata.distribution("prismrt")
    assert "serve" in (dist.metadata.get_all("Provides-Extra") or [])
    assert any(r.startswith("ray[serve]") and 'extra == "serve"' in r for r in dist.requires)
    scripts = {e.name: e.value for e in dist.entry_points if e.group == "console_scripts"}
    assert scripts == {"prism-serve": "prismrt.serve.cli:main"}


def test_prism_serve_help():
    command = os.path.join(os.path.dirname(sys.executable), "prism-serve")
    out = subprocess.run([command, "--help"], check=True, stdout=subprocess.PIPE, text=True,
                         cwd="/tmp").stdout
    for option in ("--replicas", "--threads-per-replica", "--max-batch-size", "--address",
                   "--port", "--min-replicas", "--max-replicas", "--autoscaling-config"):
        assert option in out, option


def test_prism_serve_options_to_build_app_arguments():
    from prismrt.serve import cli
    args = cli.parser().parse_args([
        "m.onnx", "--providers", "TestExecutionProvider,CPUExecutionProvider",
        "--provider-option", "TestExecutionProvider:ops=Add", "--session-option",
        "graph_optimization_level=ORT_ENABLE_ALL", "--session-option", "config.a.b=1",
        "--min-replicas", "1", "--max-replicas", "4", "--replicas", "2",
        "--autoscaling-config", '{"upscale_delay_s": 5}'])
    providers, options = cli._providers(args)
    assert providers == ["TestExecutionProvider", "CPUExecutionProvider"]
    assert options == [{"ops": "Add"}, {}]
    assert cli._session_options(args) == {"graph_optimization_level": "ORT_ENABLE_ALL",
                                          "config_entries": {"a.b": "1"}}
    assert cli._autoscaling(args) == {"upscale_delay_s": 5, "min_replicas": 1,
                                      "max_replicas": 4, "initial_replicas": 2}
    assert cli._autoscaling(cli.parser().parse_args(["m.onnx"])) is None
