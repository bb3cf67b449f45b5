"""`.ci/check_dist.py`, the wheel hygiene check of CI and the release workflow, rejects what it
should: a synthetic wheel passes, and each kind of stray or missing file or metadata fails it."""

import importlib.util
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("check_dist", ROOT / ".ci" / "check_dist.py")
check_dist = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_dist)

VERSION = check_dist.workspace_version()
INFO = f"tractor_engine-{VERSION}.dist-info"
METADATA = f"""\
Metadata-Version: 2.4
Name: tractor-engine
Version: {VERSION}
Classifier: Development Status :: 4 - Beta
Classifier: License :: OSI Approved :: MIT License
Classifier: Operating System :: POSIX :: Linux
Classifier: Programming Language :: Python :: 3 :: Only
Classifier: Programming Language :: Rust
Classifier: Topic :: Games/Entertainment
Classifier: Typing :: Typed
Keywords: tractor,shengji
Requires-Python: >=3.9
Project-URL: Homepage, https://example.org
Project-URL: Source, https://example.org/src
Project-URL: Issues, https://example.org/issues

# tractor-engine
"""


def _files():
    files = {f"tractor/{m}": "" for m in check_dist.SOURCE_MODULES}
    files.update({f"tractor/weights/{w}": "" for w in check_dist.SOURCE_WEIGHTS})
    files.update({f"tractor/view/assets/{a}": "" for a in check_dist.SOURCE_ASSETS})
    files.update({
        "tractor/_core.abi3.so": "",
        "tractor/_core.pyi": "",
        "tractor/py.typed": "",
        f"{INFO}/METADATA": METADATA,
        f"{INFO}/WHEEL": "",
        f"{INFO}/entry_points.txt": "[console_scripts]\ntractor = tractor.cli:run\n",
        f"{INFO}/RECORD": "",
    })
    return files


def _wheel(tmp_path, files):
    path = tmp_path / f"tractor_engine-{VERSION}-cp39-abi3-manylinux2014_x86_64.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return path


def test_a_clean_wheel_passes(tmp_path):
    assert check_dist.check_wheel(_wheel(tmp_path, _files()), VERSION) == []


@pytest.mark.parametrize("extra", [
    "tests/test_cards.py", "tractor/tests/test_x.py", "benches/bench_sim.py", "tractor/__pycache__/cli.cpython-311.pyc",
    "target/release/lib_core.so", "tractor/_core.abi3.so.orig", "rust/core/src/lib.rs", f"{INFO}/stray.txt",
    "tractor/weights/stray.tnet", "tractor/weights/notes.txt", "tractor/view/assets/stray.js",
])
def test_a_stray_file_fails(tmp_path, extra):
    files = _files()
    files[extra] = ""
    assert check_dist.check_wheel(_wheel(tmp_path, files), VERSION)


@pytest.mark.parametrize("missing", ["tractor/_core.pyi", "tractor/py.typed", "tractor/_core.abi3.so",
                                     "tractor/cli.py", f"{INFO}/entry_points.txt", "tractor/weights/bc-greedy-v1.tnet",
                                     "tractor/view/assets/view.js"])
def test_a_missing_file_fails(tmp_path, missing):
    files = _files()
    del files[missing]
    assert check_dist.check_wheel(_wheel(tmp_path, files), VERSION)


@pytest.mark.parametrize("line", ["Version: ", "Keywords: ", "Project-URL: Source", "Classifier: Typing"])
def test_missing_metadata_fails(tmp_path, line):
    files = _files()
    files[f"{INFO}/METADATA"] = "\n".join(
        x for x in METADATA.splitlines() if not x.startswith(line)) + "\n"
    assert check_dist.check_wheel(_wheel(tmp_path, files), VERSION)
