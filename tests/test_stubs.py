"""The type stubs of tractor._core name exactly what the module exports."""

import ast
from pathlib import Path

import pytest

import tractor._core as core

STUB = Path(__file__).resolve().parent.parent / "python" / "tractor" / "_core.pyi"


def _stub_names():
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    top, members = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top.add(node.target.id)
        if isinstance(node, ast.ClassDef):
            members[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return top, members


def test_stub_covers_the_module():
    top, members = _stub_names()
    public = {n for n in dir(core) if not n.startswith("_")} | {"__version__"}
    assert public == top
    for cls, names in members.items():
        actual = {n for n in dir(getattr(core, cls)) if not n.startswith("_")}
        assert actual == {n for n in names if not n.startswith("_")}, cls


def test_stub_signatures_match_the_module():
    """mypy.stubtest checks every signature of the stub against the compiled module (argument
    names, kinds and defaults, classes final): not only the names."""
    import subprocess
    import sys

    pytest.importorskip("mypy.stubtest")
    allow = STUB.parent.parent.parent / ".ci" / "stubtest-allowlist.txt"
    p = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "tractor._core", "--allowlist", str(allow)],
        capture_output=True, text=True, timeout=600,
    )
    assert p.returncode == 0, p.stdout + p.stderr
