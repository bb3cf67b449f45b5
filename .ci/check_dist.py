#!/usr/bin/env python3
"""Wheel and sdist hygiene: what a release artifact of tractor-engine may and must hold.

    python .ci/check_dist.py dist/tractor_engine-*.whl [dist/tractor_engine-*.tar.gz]

A wheel holds the package (tractor/*.py), the extension module (one _core binary), the type
stubs (_core.pyi), the PEP 561 marker (py.typed) and the shipped agents' weights
(tractor/weights/*.tnet), the viewer's page assets (tractor/view/assets/*), plus its
.dist-info, and nothing else:
no tests, benches, Rust sources or build leftovers. Its metadata carries the version of the
Cargo workspace ([workspace.package] in Cargo.toml) and the project URLs, keywords and
classifiers PyPI shows. An sdist holds what `pip install` needs to build from source.
Standard library only, any Python >= 3.9: the release workflow runs it on every platform.
"""

from __future__ import annotations

import re
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "tractor"
DIST = "tractor_engine"
# The extension module, per platform: Linux and macOS abi3, Windows.
CORE = re.compile(r"^_core\.(abi3\.so|pyd)$")
# Modules the source tree ships, as paths inside the package (subpackages such as envs/
# included); a stray or missing one fails (keeps the check honest).
SOURCE_MODULES = sorted(
    p.relative_to(ROOT / "python" / PACKAGE).as_posix()
    for p in (ROOT / "python" / PACKAGE).rglob("*.py")
    if "__pycache__" not in p.parts
)
# The weights files of the learned agents the package ships (tractor/weights/*.tnet).
SOURCE_WEIGHTS = sorted(p.name for p in (ROOT / "python" / PACKAGE / "weights").glob("*.tnet"))
# The replay page's and the table's templates, style and scripts (tractor/view/assets/*).
SOURCE_ASSETS = sorted(p.name for p in (ROOT / "python" / PACKAGE / "view" / "assets").iterdir() if p.is_file())


def workspace_version() -> str:
    """[workspace.package] version in the root Cargo.toml: the one version of the project."""
    text = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    section = re.search(r"^\[workspace\.package\]\s*$(.*?)(?=^\[|\Z)", text, flags=re.M | re.S)
    if not section:
        raise SystemExit("Cargo.toml has no [workspace.package] section")
    m = re.search(r'^version\s*=\s*"([^"]+)"', section.group(1), flags=re.M)
    if not m:
        raise SystemExit("Cargo.toml [workspace.package] has no version")
    return m.group(1)


def check_metadata(text: str, version: str, errors: list) -> None:
    meta = Parser().parsestr(text)
    if meta["Name"] != "tractor-engine":
        errors.append(f"metadata Name is {meta['Name']!r}, not 'tractor-engine'")
    if meta["Version"] != version:
        errors.append(f"metadata Version is {meta['Version']!r}, Cargo workspace says {version!r}")
    urls = meta.get_all("Project-URL") or []
    labels = {u.split(",", 1)[0].strip().lower() for u in urls}
    for want in ("homepage", "source", "issues"):
        if want not in labels:
            errors.append(f"metadata has no Project-URL {want!r} (has {sorted(labels)})")
    if not (meta["Keywords"] or "").strip():
        errors.append("metadata has no Keywords")
    classifiers = meta.get_all("Classifier") or []
    for prefix in ("Development Status ::", "License ::", "Operating System ::",
                   "Programming Language :: Python :: 3 :: Only", "Programming Language :: Rust",
                   "Topic ::", "Typing :: Typed"):
        if not any(c.startswith(prefix) for c in classifiers):
            errors.append(f"metadata has no classifier {prefix!r}")
    if meta["Requires-Python"] != ">=3.9":
        errors.append(f"Requires-Python is {meta['Requires-Python']!r}, the abi3 floor is >=3.9")
    if not meta.get_payload().strip():
        errors.append("metadata has no long description (README)")


def check_wheel(path: Path, version: str) -> list:
    errors: list = []
    m = re.match(rf"^{DIST}-([^-]+)-cp39-abi3-(.+)\.whl$", path.name)
    if not m:
        errors.append(f"{path.name}: not a {DIST} cp39-abi3 wheel")
    elif m.group(1) != version:
        errors.append(f"{path.name}: file version {m.group(1)}, Cargo workspace says {version}")
    info = f"{DIST}-{version}.dist-info"
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        modules, cores, weights, assets = [], [], [], []
        for name in names:
            p = PurePosixPath(name)
            if p.parts[0] == info and len(p.parts) >= 2:
                allowed = p.parts[1] in {"METADATA", "WHEEL", "RECORD", "entry_points.txt"} or (
                    len(p.parts) >= 3 and p.parts[1] in {"licenses", "sboms"})
                if not allowed:
                    errors.append(f"unexpected file in .dist-info: {name}")
            elif p.parts[0] == PACKAGE and name.endswith(".py") and "__pycache__" not in p.parts:
                modules.append("/".join(p.parts[1:]))  # tractor/x.py, tractor/envs/y.py
            elif p.parts[0] == PACKAGE and len(p.parts) == 3 and p.parts[1] == "weights" and name.endswith(".tnet"):
                weights.append(p.parts[2])
            elif p.parts[0] == PACKAGE and len(p.parts) == 4 and p.parts[1:3] == ("view", "assets"):
                assets.append(p.parts[3])
            elif p.parts[0] == PACKAGE and len(p.parts) == 2:
                leaf = p.parts[1]
                if CORE.match(leaf):
                    cores.append(leaf)
                elif leaf not in {"_core.pyi", "py.typed"}:
                    errors.append(f"unexpected file in the package: {name}")
            else:
                # tests/, benches/, rust/, target/, __pycache__, *.pyc, .so leftovers, ...
                errors.append(f"unexpected file: {name}")
        if sorted(modules) != SOURCE_MODULES:
            errors.append(f"package modules {sorted(modules)} differ from python/tractor {SOURCE_MODULES}")
        if sorted(weights) != SOURCE_WEIGHTS:
            errors.append(f"shipped weights {sorted(weights)} differ from python/tractor/weights {SOURCE_WEIGHTS}")
        if sorted(assets) != SOURCE_ASSETS:
            errors.append(f"page assets {sorted(assets)} differ from python/tractor/view/assets {SOURCE_ASSETS}")
        if len(cores) != 1:
            errors.append(f"expected one extension module tractor/_core.(abi3.so|pyd), found {cores}")
        for want in (f"{PACKAGE}/_core.pyi", f"{PACKAGE}/py.typed", f"{info}/METADATA"):
            if want not in names:
                errors.append(f"missing {want}")
        if f"{info}/METADATA" in names:
            check_metadata(z.read(f"{info}/METADATA").decode("utf-8"), version, errors)
        if f"{info}/entry_points.txt" in names:
            ep = z.read(f"{info}/entry_points.txt").decode("utf-8")
            if not re.search(r"^tractor\s*=\s*tractor\.cli:run$", ep, flags=re.M):
                errors.append("entry_points.txt has no console script tractor = tractor.cli:run")
        else:
            errors.append("missing entry_points.txt (the tractor command)")
    return errors


def check_sdist(path: Path, version: str) -> list:
    errors: list = []
    top = f"{DIST}-{version}"
    if path.name != f"{top}.tar.gz":
        errors.append(f"{path.name}: expected {top}.tar.gz")
    with tarfile.open(path) as t:
        names = {PurePosixPath(n) for n in t.getnames()}
        rel = {PurePosixPath(*n.parts[1:]) for n in names if n.parts[0] == top and len(n.parts) > 1}
        if len(rel) != len(names) - (PurePosixPath(top) in names):
            errors.append(f"files outside {top}/")
        need = ["PKG-INFO", "pyproject.toml", "README.md", "Cargo.toml", "Cargo.lock",
                "rust/core/Cargo.toml", "rust/core/src/lib.rs", "rust/py/Cargo.toml", "rust/py/src/lib.rs",
                "python/tractor/_core.pyi", "python/tractor/py.typed"]
        need += [f"python/tractor/{m}" for m in SOURCE_MODULES]
        need += [f"python/tractor/view/assets/{a}" for a in SOURCE_ASSETS]
        for want in need:
            if PurePosixPath(want) not in rel:
                errors.append(f"sdist misses {want}")
        for p in rel:
            if p.parts[0] in {"target", "dist", ".venv", ".git"} or \
                    "__pycache__" in p.parts or p.suffix in {".so", ".pyd", ".pyc", ".whl"}:
                errors.append(f"sdist holds a build leftover or repo-only file: {p}")
        member = t.extractfile(f"{top}/PKG-INFO")
        check_metadata(member.read().decode("utf-8"), version, errors)
    return errors


def main(argv: list) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    version = workspace_version()
    failed = False
    for arg in argv:
        path = Path(arg)
        if path.name.endswith(".whl"):
            errors = check_wheel(path, version)
        elif path.name.endswith(".tar.gz"):
            errors = check_sdist(path, version)
        else:
            errors = [f"neither a wheel nor an sdist: {arg}"]
        for e in errors:
            print(f"check_dist: {path.name}: {e}", file=sys.stderr)
        if errors:
            failed = True
        else:
            print(f"check_dist: {path.name}: ok ({path.stat().st_size:,} bytes, version {version})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
