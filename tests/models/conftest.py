"""Options of the bench-model tests (bench_models_test.py)."""
import os


def pytest_addoption(parser):
    parser.addoption("--prism-build-dir", default=os.environ.get("PRISM_BUILD_DIR"),
                     help="Prism build folder (default: $PRISM_BUILD_DIR, else <repo>/build)")
    parser.addoption("--models-suite", default=os.environ.get("PRISM_MODELS_SUITE", "ci"),
                     choices=["ci", "full"], help="ci: the small models; full: every model")
