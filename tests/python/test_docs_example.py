"""docs/python.md's Python blocks run, in order, as one script."""
import os
import re
import warnings

from conftest import REPO


def python_blocks():
    with open(os.path.join(REPO, "docs", "python.md"), encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_docs_example_runs(tmp_path, monkeypatch, capsys):
    blocks = python_blocks()
    assert len(blocks) >= 4
    monkeypatch.chdir(tmp_path)  # the example writes tiny.onnx into the working folder
    namespace = {"__name__": "__docs__"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the CUDA fallback warns by design
        for block in blocks:
            exec(compile(block, "docs/python.md", "exec"), namespace)
    out = capsys.readouterr().out
    assert "testdevice [2, 3] tensor(float)" in out
    assert "no such file:" in out and "invalid argument:" in out
