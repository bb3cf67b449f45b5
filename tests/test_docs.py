"""The documentation (README.md, docs/, the site built by mkdocs.yml) says what the package does.

- every public name (``tractor.__all__`` and the ``__all__`` of each public submodule, computed
  at run time) appears in the API reference (docs/api/*.md), as a ``::: name`` directive or a
  member of one;
- every relative link of README.md, docs/**.md, BENCHMARKS.md and benches/HISTORY.md, and every
  link into this repository on GitHub, points at an existing file and, where it names one, an
  existing heading; BENCHMARKS.md stays under 30 KiB;
- every ```python block of docs/**.md runs on its own, as written (a block whose first line
  is ``# excerpt`` is not run), and the tables that restate the code (the observation layout,
  the seed tags, the command's options) agree with it;
- the CLI flags used in shell blocks exist;
- ``mkdocs build --strict`` succeeds, where mkdocs is installed (the ``[docs]`` extra; CI
  builds the site in its own step, .ci/run).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import io
import os
import re
import subprocess
import sys
import time
import types
import unicodedata
from pathlib import Path

import pytest

import tractor

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
API = DOCS / "api"
REPO_URL = "https://github.com/tractor-engine/tractor-engine/blob/main/"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_griffe" not in p.parts)
SLOW_S = 20

# The public modules whose names the reference must cover (besides ``tractor`` itself).
# ``tractor.cli`` is documented as a command (docs/cli.md, checked below), not as an API.
PUBLIC_MODULES = [
    "tractor",
    "tractor.errors",
    "tractor.game",
    "tractor.search",
    "tractor.actions",
    "tractor.records",
    "tractor.sim",
    "tractor.envs",
    "tractor.envs.gym",
    "tractor.envs.pettingzoo",
    "tractor.envs.openspiel",
    "tractor.envs.sb3",
    "tractor.describe",
    "tractor.view",
]


# Modules of the package that are not checked although their names look public: each with why.
NOT_API = {
    "tractor.cli": "the command line, documented as a command in docs/cli.md (checked below)",
    "tractor.playthrough": "shadowed by its function: tractor.playthrough is the function",
}


def checked_modules() -> list:
    """PUBLIC_MODULES, and any other module of the package whose name is public and that
    declares ``__all__`` (a module added later is checked without being listed here)."""
    import pkgutil

    found = set(PUBLIC_MODULES)
    for info in pkgutil.walk_packages(tractor.__path__, "tractor."):
        name = info.name
        if any(part.startswith("_") for part in name.split(".")) or name in NOT_API or name in found:
            continue
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue  # an adapter whose library is missing: PUBLIC_MODULES reads it statically
        if hasattr(mod, "__all__"):
            found.add(name)
    return sorted(found)


def _rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


# -- reading Markdown ------------------------------------------------------------------------


def fenced_blocks(text: str):
    """(language, code) of every fenced block, in order."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M)]


def _outside_code(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def slugify(heading: str) -> str:
    """The anchor of a heading, as Python-Markdown's toc (mkdocs) and GitHub make it."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = text.replace("`", "").replace("*", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path: Path) -> set:
    out = set()
    for m in re.finditer(r"^#{1,6} (.+?)\s*#*$", _outside_code(path.read_text(encoding="utf-8")), flags=re.M):
        out.add(slugify(m.group(1)))
    return out


def links(text: str):
    """Every link target: inline ``[text](target)`` and reference definitions ``[id]: target``."""
    body = _outside_code(text)
    body = re.sub(r"`[^`\n]*`", "", body)  # code spans hold no links
    for m in re.finditer(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", body):
        yield m.group(1)
    for m in re.finditer(r"^\[[^\]]+\]:\s*(\S+)", body, flags=re.M):
        yield m.group(1)


# -- (a) every public name is in the API reference --------------------------------------------


def public_names(module: str) -> list:
    """``module.__all__`` at run time; where the module cannot be imported here (an adapter whose
    library is missing), its ``__all__`` read from the source."""
    try:
        mod = importlib.import_module(module)
    except ImportError:
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin, module
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                getattr(t, "id", None) == "__all__" for t in node.targets
            ):
                return list(ast.literal_eval(node.value))
        raise AssertionError(f"{module} has no __all__") from None
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [
            n for n, v in vars(mod).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)
        ]
    return list(names)


def directives():
    """(page, path, members or None) of every ``::: path`` directive of the reference."""
    out = []
    for page in sorted(API.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for m in re.finditer(r"^::: (\S+)\n((?:[ \t]+\S.*\n)*)", text, flags=re.M):
            options = m.group(2)
            members = re.search(r"^\s+members:\s*\[(.*?)\]\s*$", options, flags=re.M)
            names = None if members is None else [x.strip() for x in members.group(1).split(",") if x.strip()]
            out.append((page.name, m.group(1), names))
    return out


UNAVAILABLE = object()  # a module that exists but cannot be imported here (its extra is missing)


def _resolve(path: str):
    """The object at ``path`` (``tractor.x.y``), UNAVAILABLE, or None when there is none.

    As attribute access gives it (``tractor.playthrough`` is the function the package exports,
    not the module of that name); failing that, as griffe reads a path (the longest importable
    module, then attributes: ``tractor.playthrough.playthrough``)."""
    obj = _by_attributes(path)
    return obj if obj is not None else _by_modules(path)


def _by_attributes(path: str):
    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for k, part in enumerate(parts[1:], start=2):
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        module = ".".join(parts[:k])
        if not isinstance(obj, types.ModuleType) or not _is_module(module):
            return None
        try:
            obj = importlib.import_module(module)
        except ImportError:
            return UNAVAILABLE
    return obj


def _by_modules(path: str):
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        if not _is_module(module):
            continue
        try:
            obj = importlib.import_module(module)
        except ImportError:
            return UNAVAILABLE
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return None
            obj = getattr(obj, attr)
        return obj
    return None


def _is_module(path: str) -> bool:
    try:
        return importlib.util.find_spec(path) is not None
    except (ImportError, ValueError):
        return False


def documented():
    """Every path the reference renders, and the objects behind them."""
    paths = set()
    for page, path, members in directives():
        paths.add(path)
        if _is_module(path):
            if members is None:
                assert not public_names(path), (
                    f"docs/api/{page}: `::: {path}` must list its members (`options: members: [...]`)"
                )
            for name in members or []:
                paths.add(f"{path}.{name}")
    objects = {}
    for path in paths:
        obj = _resolve(path)
        if _has_identity(obj):
            objects[id(obj)] = path
    return paths, objects


def _has_identity(obj) -> bool:
    """Whether ``obj is other`` says two names are one thing (not so for small ints and strings)."""
    return obj is not None and obj is not UNAVAILABLE and not isinstance(obj, (int, float, str, bytes))


def test_every_public_name_is_in_the_api_reference():
    paths, objects = documented()
    missing = []
    for module in checked_modules():
        for name in public_names(module):
            full = f"{module}.{name}"
            if full in paths:
                continue
            obj = _resolve(full)
            if _has_identity(obj) and id(obj) in objects:
                continue  # the same object, documented under another of its names
            missing.append(full)
    assert not missing, f"public names missing from docs/api/*.md: {missing}"


def test_every_directive_names_something():
    for page, path, members in directives():
        obj = _resolve(path)
        assert obj is not None, f"docs/api/{page}: `::: {path}` names nothing"
        for name in members or []:
            assert obj is UNAVAILABLE or hasattr(obj, name), f"docs/api/{page}: {path} has no member {name}"


def test_every_page_is_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in PAGES:
        assert page.relative_to(DOCS).as_posix() in nav, f"{_rel(page)} is not in mkdocs.yml's nav"


# -- (b) links --------------------------------------------------------------------------------


@pytest.mark.parametrize("page", [ROOT / "README.md", ROOT / "BENCHMARKS.md", ROOT / "benches" / "HISTORY.md", *PAGES],
                         ids=lambda p: _rel(p))
def test_links_resolve(page):
    bad = []
    for target in links(page.read_text(encoding="utf-8")):
        if target.startswith(REPO_URL):
            path, _, anchor = target[len(REPO_URL) :].partition("#")
            file = ROOT / path
        elif re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
            continue  # another site: not checked here
        else:
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
        if not file.exists():
            bad.append(f"{target} (no file {path})")
        elif anchor and file.suffix == ".md":
            if anchor.startswith("tractor.") and API in file.parents:
                if _resolve(anchor) is None:
                    bad.append(f"{target} (no object {anchor})")
            elif anchor not in anchors(file):
                bad.append(f"{target} (no heading #{anchor} in {_rel(file)})")
    assert not bad, f"{_rel(page)}: broken links: {bad}"


BENCHMARKS_MAX_BYTES = 30 * 1024
"""BENCHMARKS.md is a page a reader finishes: the goals and one short table each; the commentary
and the trials live in benches/HISTORY.md."""


def test_the_benchmarks_page_stays_short():
    size = len((ROOT / "BENCHMARKS.md").read_bytes())
    assert size <= BENCHMARKS_MAX_BYTES, f"BENCHMARKS.md is {size:,} bytes: move commentary to benches/HISTORY.md"


def test_no_page_repeats_a_heading():
    for page in [ROOT / "README.md", *PAGES]:
        heads = re.findall(r"^#{1,6} (.+?)\s*$", _outside_code(page.read_text(encoding="utf-8")), flags=re.M)
        slugs = [slugify(h) for h in heads]
        assert len(slugs) == len(set(slugs)), (
            f"{_rel(page)} repeats a heading (its anchor would differ by site)"
        )


def test_the_site_links_into_the_repository_only_where_the_files_are():
    # the site holds docs/ only: other files of the repository are linked on GitHub, not by a
    # relative path that works in a checkout and breaks on the site
    for page in PAGES:
        for target in links(page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("#"):
                continue
            file = (page.parent / target.partition("#")[0]).resolve()
            assert DOCS in file.parents, f"{_rel(page)}: {target} is outside docs/: link it as {REPO_URL}..."


# -- (c) the docs' python blocks run, and their tables agree with the code ------------------------


def _doc_blocks():
    out = []
    for page in PAGES:
        for k, (lang, code) in enumerate(
            b for b in fenced_blocks(page.read_text(encoding="utf-8")) if b[0] == "python"
        ):
            out.append(pytest.param(page, code, id=f"{_rel(page)}[{k}]"))
    return out


@pytest.mark.parametrize("page,code", _doc_blocks())
def test_docs_python_block_runs_on_its_own(page, code, tmp_path, monkeypatch):
    if code.lstrip().startswith("# excerpt"):
        pytest.skip("marked as an excerpt in the page")
    monkeypatch.chdir(tmp_path)
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, _rel(page), "exec"), {"__name__": "__docs__"})  # noqa: S102
    elapsed = time.perf_counter() - t0
    assert elapsed < SLOW_S or re.search(r"takes about \d+ (seconds|minutes)", code), (
        f"{_rel(page)}: a block took {elapsed:.0f} s; make it faster or say how long it takes"
    )


def test_the_observation_table_is_the_layout():
    text = (DOCS / "learning.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \| (.*?) \|$", text, flags=re.M)
    layout = [(n, str(o), str(k), m) for n, o, k, m in tractor.actions.OBS_LAYOUT]
    assert rows == layout
    assert sum(int(k) for _, _, k, _ in rows) == tractor.actions.OBS_DIM
    assert "### Observation layout version 1" in text


def test_the_seed_tags_are_the_cores():
    from tractor import _core

    text = (DOCS / "determinism.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([A-Z_]+)` \| (\d+) \|", text, flags=re.M))
    tags = {name[: -len("_TAG")]: getattr(_core, name) for name in dir(_core) if name.endswith("_TAG")}
    assert {k: int(v) for k, v in rows.items()} == tags


def test_the_action_id_table_is_the_modules():
    text = (DOCS / "learning.md").read_text(encoding="utf-8")
    a = tractor.actions
    assert f"| {a.END_LEAD} | end the lead" in text and f"| {a.PASS} | pass" in text
    assert f"| {a.SHOW}–{a.NUM_ACTIONS - 1} | show" in text


# -- the command line ---------------------------------------------------------------------------


def _help(*argv: str) -> str:
    from tractor import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.main([*argv, "--help"])
    return out.getvalue()


def _options(help_text: str) -> set:
    return set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", help_text)) - {"-h", "--help"}


COMMANDS = ("simulate", "arena", "merge", "view", "play", "train", "demo")


def test_the_cli_page_lists_every_option():
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert set(re.findall(r"^## tractor (\w+)$", text, flags=re.M)) == set(COMMANDS)
    assert set(re.findall(r"\{(\w+(?:,\w+)*)\}", _help())[0].split(",")) == set(COMMANDS)
    for cmd in COMMANDS:
        section = text.split(f"## tractor {cmd}\n", 1)[1].split("\n## ", 1)[0]
        first_cells = re.findall(r"^\| (.*?) \|", section, flags=re.M)
        listed = {f for cell in first_cells for f in re.findall(r"`(--?[a-z][a-z-]*)[ `]", cell)}
        assert listed == _options(_help(cmd)), cmd


def _shell_commands():
    """Every ``tractor <cmd> ...`` invoked in a shell block of the README or the docs."""
    out = []
    for page in [ROOT / "README.md", *PAGES]:
        for lang, code in fenced_blocks(page.read_text(encoding="utf-8")):
            if lang not in ("", "bash", "sh", "shell", "console"):
                continue
            for line in code.splitlines():
                for part in re.split(r"&&|;|\|", line.split("#", 1)[0]):
                    words = part.split()
                    if len(words) >= 2 and words[0] == "tractor":
                        out.append((_rel(page), words))
    return out


def test_shell_blocks_use_real_flags():
    cmds = _shell_commands()
    assert any(words[1] == "simulate" for _, words in cmds)
    helps = {cmd: _options(_help(cmd)) for cmd in COMMANDS}
    for page, words in cmds:
        cmd = words[1]
        assert cmd in COMMANDS or cmd.startswith("--"), f"{page}: tractor {cmd}"
        flags = {w.split("=", 1)[0] for w in words[2:] if w.startswith("-")}
        unknown = flags - helps.get(cmd, {"--version", "--help"})
        assert not unknown, f"{page}: `{' '.join(words)}` uses flags that do not exist: {unknown}"


# -- the site ---------------------------------------------------------------------------------


def test_mkdocs_build_strict(tmp_path):
    missing = [
        m
        for m in ("mkdocs", "mkdocstrings", "mkdocstrings_handlers.python", "material")
        if importlib.util.find_spec(m.split(".")[0]) is None
    ]
    if missing:
        pytest.skip(f'the docs tools are not installed ({", ".join(missing)}): pip install ".[docs]"')
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    t0 = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "site" / "api" / "index.html").exists()
    assert time.perf_counter() - t0 < 120, "the site should build in well under a minute"
