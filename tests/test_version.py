"""One version, the Cargo workspace's, in tractor.__version__, `tractor --version` and the metadata."""

import importlib.metadata
import re
from pathlib import Path

import pytest

import tractor
from tractor.cli import main

CARGO = Path(__file__).resolve().parent.parent / "Cargo.toml"


def _workspace_version():
    text = CARGO.read_text(encoding="utf-8")
    section = re.search(r"^\[workspace\.package\]\s*$(.*?)(?=^\[|\Z)", text, flags=re.M | re.S)
    return re.search(r'^version\s*=\s*"([^"]+)"', section.group(1), flags=re.M).group(1)


def test_version_is_the_cargo_workspace_version():
    assert tractor.__version__ == _workspace_version()


def test_cli_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"tractor {tractor.__version__}"


def test_installed_metadata_version():
    assert importlib.metadata.version("tractor-engine") == tractor.__version__
