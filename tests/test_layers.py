"""The package's modules form one-way layers: every import line of ``python/tractor`` (``import``
and ``from ... import`` anywhere in a file, inside functions too, relative or absolute) names a
module of a lower layer than its own, per the list ``tractor._LAYERS`` declares once; so the
module graph has no cycle. Read from the source (ast), nothing imported. The map of both the
package and the core in docs/architecture.md names every module the trees hold, so it cannot go
stale."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "tractor"
INIT = "__init__"
"""The name of the package module itself (``tractor/__init__.py``) in the layer list."""


def modules(root: Path) -> Dict[str, Path]:
    """Every module of the package by its name relative to it (``"sim.run"``; a package by its
    folder, ``"sim"``; the package itself ``"__init__"``), and the compiled binding ``"_core"``
    (its stub ``_core.pyi`` stands for it)."""
    out: Dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1] or [INIT]
        out[".".join(parts)] = path
    assert (root / "_core.pyi").is_file(), "the binding's stub is missing"
    out["_core"] = root / "_core.pyi"
    return out


def _package_of(name: str, path: Path) -> List[str]:
    """The package a module's relative imports start from, as a list of names (``[]``: tractor)."""
    parts = [] if name == INIT else name.split(".")
    return parts if path.name == "__init__.py" else parts[:-1]


def imports(root: Path) -> Dict[str, Set[str]]:
    """Per module, the modules of the package its import lines name. ``from X import a`` names
    the module ``X.a`` when there is one, else ``X`` itself."""
    mods = modules(root)
    out: Dict[str, Set[str]] = {}
    for name, path in mods.items():
        found: Set[str] = set()
        if path.suffix == ".py":
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.Import):
                    targets = [(a.name, []) for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    if node.level:
                        base = _package_of(name, path)
                        assert node.level - 1 <= len(base), f"{name}: a relative import leaves the package"
                        base = base[: len(base) - (node.level - 1)]
                        target = ".".join(["tractor"] + base + ([node.module] if node.module else []))
                    else:
                        target = node.module or ""
                    targets = [(target, [a.name for a in node.names])]
                else:
                    continue
                for target, names in targets:
                    if target != "tractor" and not target.startswith("tractor."):
                        continue  # another library
                    rel = target[len("tractor."):] if target != "tractor" else INIT
                    subs = [f"{rel}.{n}" if rel != INIT else n for n in names]
                    named = [s for s in subs if s in mods]
                    found.update(named)
                    if len(named) < len(names) or not names:
                        assert rel in mods, f"{name} imports {target}, which is no module of the package"
                        found.add(rel)
        found.discard(name)
        out[name] = found
    return out


def layers() -> List[Tuple[str, ...]]:
    """``tractor._LAYERS``, read from the source."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["_LAYERS"]:
            return [tuple(layer) for layer in ast.literal_eval(node.value)]
    raise AssertionError("tractor/__init__.py declares no _LAYERS")


def violations(graph: Dict[str, Set[str]], order: List[Tuple[str, ...]]) -> List[str]:
    """Every import of a module of the same or a higher layer."""
    rank = {m: i for i, layer in enumerate(order) for m in layer}
    return sorted(
        f"{a} (layer {rank[a]}) imports {b} (layer {rank[b]})"
        for a, targets in graph.items()
        for b in targets
        if rank[b] >= rank[a]
    )


def cycle(graph: Dict[str, Set[str]]) -> List[str]:
    """A cycle of the graph (its modules in order, the first repeated at the end), or []."""
    state: Dict[str, int] = {}  # 1: on the current path, 2: done
    path: List[str] = []

    def visit(m: str) -> List[str]:
        state[m] = 1
        path.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return path[path.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        state[m] = 2
        path.pop()
        return []

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return []


def test_every_module_is_in_exactly_one_layer():
    order = layers()
    listed = [m for layer in order for m in layer]
    twice = sorted({m for m in listed if listed.count(m) > 1})
    assert not twice, f"listed twice in tractor._LAYERS: {twice}"
    mods, named = set(modules(PACKAGE)), set(listed)
    assert not mods - named, f"modules missing from tractor._LAYERS: {sorted(mods - named)}"
    assert not named - mods, f"tractor._LAYERS names modules that do not exist: {sorted(named - mods)}"
    assert order[0] == ("_core",), "the binding is the lowest layer"
    assert order[-1] == (INIT,), "the package itself is the top layer"


def test_no_module_imports_its_own_layer_or_a_higher_one():
    assert violations(imports(PACKAGE), layers()) == []


def test_the_module_graph_has_no_cycle():
    assert cycle(imports(PACKAGE)) == []


def test_the_graph_sees_lazy_relative_and_absolute_imports():
    graph = imports(PACKAGE)
    assert "sim.local" in graph["ray_backend"]  # from .sim.local import ...
    assert {"_core", "game", "errors"} <= graph["records"]  # from . import _core; from .game import Game
    assert "playthrough" in graph["cli"]  # inside a function: from .playthrough import playthrough
    assert "sim.run" in graph["sim"] and "records" in graph["sim"]  # from ..records import read_records
    assert graph["errors"] == set() and graph["_core"] == set()


@pytest.mark.parametrize("line,target", [
    ("    from .game import Game\n", "game"),  # lazy, inside a function
    ("import tractor.sim.run\n", "sim.run"),  # absolute
    ("from . import cards\n", "cards"),  # a sibling module by name
])
def test_a_reverse_import_is_caught(tmp_path, line, target):
    """The checks above are not vacuous: one import line added to a copy of the package, from
    its lowest Python module upwards, is a violation and closes a cycle."""
    root = tmp_path / "tractor"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    path = root / "errors.py"
    text = path.read_text(encoding="utf-8")
    if line.startswith(" "):
        text += "\n\ndef _added():\n" + line + "    return Game\n"
    else:
        text += "\n" + line
    path.write_text(text, encoding="utf-8")
    graph = imports(root)
    assert target in graph["errors"]
    found = violations(graph, layers())
    assert found == [f"errors ({_layer_of('errors')}) imports {target} ({_layer_of(target)})"]
    loop = cycle(graph)
    assert loop[0] == loop[-1] and "errors" in loop and target in loop, loop


def _layer_of(module: str) -> str:
    return next(f"layer {i}" for i, layer in enumerate(layers()) if module in layer)


# -- the map in docs/architecture.md ---------------------------------------------------------------

ROOT = PACKAGE.parent.parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"
CORE_SRC = ROOT / "rust" / "core" / "src"


def _section(heading: str) -> str:
    """The text of one ``## heading`` of docs/architecture.md."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def _quoted(text: str) -> List[str]:
    return re.findall(r"`([^`]+)`", text)


def page_layers() -> List[Tuple[str, ...]]:
    """The package's layers as the page lists them: one numbered item per layer (its indented
    lines too), lowest first, naming its modules in backquotes (and nothing else in backquotes)."""
    items = re.findall(r"^\d+\. (.*(?:\n {3}.*)*)", _section("The package's layers"), flags=re.M)
    return [tuple(_quoted(item)) for item in items]


def core_map() -> List[str]:
    """The layers of lib.rs's map, top first (a line that starts further in continues one)."""
    lib = (CORE_SRC / "lib.rs").read_text(encoding="utf-8")
    block = lib[lib.index("//! ```text\n") + 12:]
    lines = block[:block.index("//! ```")].splitlines()
    return [re.split(r"[/\s]", line[4:])[0] for line in lines if line[4:5].strip()]


def core_rows(section: str) -> Dict[str, Tuple[List[str], List[str]]]:
    """The core's table on the page: per layer (``run``, ``policy``), the names its modules
    column quotes and those its last column quotes, in the table's order."""
    rows: Dict[str, Tuple[List[str], List[str]]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 3:
            rows[cells[0].strip("`").rstrip("/")] = (_quoted(cells[1]), _quoted(cells[2]))
    return rows


def unnamed_core_modules(rows: Dict[str, Tuple[List[str], List[str]]], src: Path) -> List[str]:
    """What the page's core table leaves out or names wrongly, read from the tree: every layer
    (a folder or a file of ``src``) has a row; a folder layer's modules column quotes exactly
    its files and folders (``hand/``), a file layer's its file; and the row quotes every file of
    each folder module (``determinize/``'s ``counting``)."""
    out: List[str] = []
    layers = {p.stem: p for p in src.iterdir() if p.is_dir() or (p.suffix == ".rs" and p.name != "lib.rs")}
    out += [f"no row for the layer {name}" for name in sorted(set(layers) - set(rows))]
    out += [f"a row for {name}, which is no layer" for name in sorted(set(rows) - set(layers))]
    for name, path in sorted(layers.items()):
        modules, notes = rows.get(name, ([], []))
        if path.is_file():
            want = {path.name}
        else:
            want = {p.name + "/" if p.is_dir() else p.stem for p in path.iterdir()
                    if p.is_dir() or (p.suffix == ".rs" and p.name != "mod.rs")}
            for folder in (p for p in path.iterdir() if p.is_dir()):
                files = sorted(p.stem for p in folder.rglob("*.rs") if p.name != "mod.rs")
                out += [f"{name}/{folder.name}/{f}.rs is not named in its row" for f in files if f not in notes]
        if set(modules) != want and name in rows:
            out.append(f"{name}: the row lists {sorted(modules)}, the tree has {sorted(want)}")
    return out


def test_the_page_lists_the_package_layers():
    page = [sorted(layer) for layer in page_layers()]
    assert page == [sorted(layer) for layer in layers()], "docs/architecture.md's list of the package's layers is not tractor._LAYERS"


def test_the_page_names_every_core_module():
    rows = core_rows(_section("The core's layers"))
    assert unnamed_core_modules(rows, CORE_SRC) == []
    assert list(rows) == core_map(), "the page's core table is not in the order of lib.rs's map"


def test_a_module_left_off_the_page_is_caught(tmp_path):
    """Not vacuous: a file added to a folder module, a module added to a layer and a layer
    added to the crate are each reported."""
    src = tmp_path / "src"
    shutil.copytree(CORE_SRC, src)
    (src / "infoset" / "determinize" / "added.rs").write_text("", encoding="utf-8")
    (src / "search" / "added2.rs").write_text("", encoding="utf-8")
    (src / "added3").mkdir()
    rows = core_rows(_section("The core's layers"))
    found = unnamed_core_modules(rows, src)
    assert found[0] == "no row for the layer added3"
    assert "infoset/determinize/added.rs is not named in its row" in found
    assert any(f.startswith("search: the row lists") and "added2" in f for f in found)
    assert len(found) == 3, found
