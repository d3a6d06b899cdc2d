"""A small PEP 517 backend that packs prismrt with Prism's already-built libraries.

``pip install ./python`` calls build_wheel below. It needs nothing from the network and no build
tools: it copies the Python sources and the libraries of a Prism CMake build folder into a wheel.

The build folder is $PRISM_BUILD_DIR, else <repo>/build. It must hold libprism.so and
libprism_core.so; every libprism_provider_*.so found there is packed too, with the EP libraries
plugins open next to themselves (libprism_*_ep.so, e.g. the oneDNN EP's). They all land in
prismrt/_lib/, where libprism_core.so finds the plugin EPs (next to itself).
"""
import base64
import glob
import hashlib
import os
import re
import sys
import sysconfig
import zipfile

NAME = "prismrt"
_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the python/ folder
_REPO = os.path.dirname(_HERE)
_REQUIRED_LIBRARIES = ("libprism.so", "libprism_core.so")


def _version():
    """The project version from the top-level CMakeLists.txt (project(prism VERSION x.y.z))."""
    with open(os.path.join(_REPO, "CMakeLists.txt"), encoding="utf-8") as f:
        match = re.search(r"project\(\s*prism\s+VERSION\s+([0-9][0-9.]*)", f.read())
    if not match:
        raise RuntimeError("prismrt build: no 'project(prism VERSION ...)' in CMakeLists.txt")
    return match.group(1)


def _build_dir():
    return os.path.abspath(os.environ.get("PRISM_BUILD_DIR") or os.path.join(_REPO, "build"))


def _libraries():
    build_dir = _build_dir()
    missing = [name for name in _REQUIRED_LIBRARIES
               if not os.path.isfile(os.path.join(build_dir, name))]
    if missing:
        raise RuntimeError(
            "prismrt build: %s not found in %s. Build Prism first (make prism prism_core "
            "prism_provider_test) and point PRISM_BUILD_DIR at its build folder." %
            (", ".join(missing), build_dir))
    paths = [os.path.join(build_dir, name) for name in _REQUIRED_LIBRARIES]
    paths += sorted(glob.glob(os.path.join(build_dir, "libprism_provider_*.so")))
    paths += sorted(glob.glob(os.path.join(build_dir, "libprism_*_ep.so")))
    return paths


def _python_files():
    """(archive name, path) of every .py file of the package."""
    files = []
    package_dir = os.path.join(_HERE, NAME)
    for root, dirs, names in os.walk(package_dir):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "_lib"))
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                files.append((os.path.relpath(path, _HERE).replace(os.sep, "/"), path))
    return files


def _project():
    """The [project] table of python/pyproject.toml (dependencies, extras, console scripts)."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11: tomli, which get_requires_for_build_wheel asks for
        import tomli as tomllib
    with open(os.path.join(_HERE, "pyproject.toml"), "rb") as f:
        return tomllib.load(f).get("project", {})


def _platform_tag():
    return re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def _wheel_tag():
    # The libraries are native but Python-version independent (ctypes, no extension module).
    return "py3-none-" + _platform_tag()


def _metadata(version):
    project = _project()
    lines = ["Metadata-Version: 2.1",
             "Name: %s" % NAME,
             "Version: %s" % version,
             "Summary: Prism ONNX runtime with onnxruntime's Python API (import prismrt as ort)",
             "Requires-Python: %s" % project.get("requires-python", ">=3.8")]
    lines += ["Requires-Dist: %s" % r for r in project.get("dependencies", [])]
    for extra, requirements in sorted(project.get("optional-dependencies", {}).items()):
        lines.append("Provides-Extra: %s" % extra)
        lines += ['Requires-Dist: %s ; extra == "%s"' % (r, extra) for r in requirements]
    return "\n".join(lines) + "\n"


def _entry_points():
    """entry_points.txt (console scripts), or None when the project declares none."""
    scripts = _project().get("scripts", {})
    if not scripts:
        return None
    return "[console_scripts]\n" + "".join("%s = %s\n" % kv for kv in sorted(scripts.items()))


def _wheel_file():
    return ("Wheel-Version: 1.0\n"
            "Generator: prism_build_backend\n"
            "Root-Is-Purelib: false\n"
            "Tag: %s\n" % _wheel_tag())


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d\n" % (name, digest, len(data))


def _write(archive, name, data, executable=False):
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = ((0o755 if executable else 0o644) | 0o100000) << 16
    archive.writestr(info, data)
    return _record_line(name, data)


def _dist_info(version):
    return "%s-%s.dist-info" % (NAME, version)


# ---- PEP 517 hooks -----------------------------------------------------------------------
def get_requires_for_build_wheel(config_settings=None):
    return [] if sys.version_info >= (3, 11) else ["tomli"]


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = _version()
    dist_info = os.path.join(metadata_directory, _dist_info(version))
    os.makedirs(dist_info, exist_ok=True)
    with open(os.path.join(dist_info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(version))
    with open(os.path.join(dist_info, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_file())
    entry_points = _entry_points()
    if entry_points:
        with open(os.path.join(dist_info, "entry_points.txt"), "w", encoding="utf-8") as f:
            f.write(entry_points)
    return os.path.basename(dist_info)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    libraries = _libraries()  # fail before writing anything
    wheel_name = "%s-%s-%s.whl" % (NAME, version, _wheel_tag())
    dist_info = _dist_info(version)
    record = []
    path = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(path, "w") as archive:
        for name, source in _python_files():
            with open(source, "rb") as f:
                record.append(_write(archive, name, f.read()))
        for library in libraries:
            with open(library, "rb") as f:
                name = "%s/_lib/%s" % (NAME, os.path.basename(library))
                record.append(_write(archive, name, f.read(), executable=True))
        record.append(_write(archive, dist_info + "/METADATA", _metadata(version).encode()))
        record.append(_write(archive, dist_info + "/WHEEL", _wheel_file().encode()))
        record.append(_write(archive, dist_info + "/top_level.txt", (NAME + "\n").encode()))
        entry_points = _entry_points()
        if entry_points:
            record.append(_write(archive, dist_info + "/entry_points.txt", entry_points.encode()))
        record_name = dist_info + "/RECORD"
        archive.writestr(zipfile.ZipInfo(record_name, date_time=(2020, 1, 1, 0, 0, 0)),
                         "".join(record) + record_name + ",,\n")
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("prismrt is built from a Prism build folder; there is no sdist")
