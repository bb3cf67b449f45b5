#!/usr/bin/env python3
"""Smoke test of one built wheel, the way a user without Rust meets it.

    python .ci/wheel_smoke.py dist/tractor_engine-*.whl

In a temporary directory outside the repository: a fresh virtualenv made by this Python,
a PATH with no cargo or rustc on it (checked), the wheel installed (dependencies as binary
wheels only, so nothing can compile), then, from that directory:
  - `import tractor` comes from the virtualenv's site-packages, with _core.pyi and py.typed;
  - tractor.__version__, `tractor --version` and the installed metadata all say the Cargo
    workspace version;
  - the README's main command (first code block, line 1, after `&&`) with `--hands 300`;
  - a smoke subset of the test suite, copied out of tests/ and run there with
    `--import-mode=importlib`: the source tree (python/) is never importable.
Standard library only, any Python >= 3.9, Linux, macOS and Windows: the release workflow runs
it against every wheel it builds; .ci/wheel_test.sh runs it here.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / ".ci"))
from check_dist import workspace_version  # noqa: E402

# Fast, self-contained tests that exercise the compiled core end to end: cards and errors,
# golden playthroughs and records (bit-exact replays), the perft counts of the ladder, and the
# replay page (its assets ship in the wheel).
SMOKE_TESTS = ["test_cards.py", "test_errors.py", "test_records.py", "test_perft.py", "test_learning.py", "test_viewer.py"]
SMOKE_SUPPORT = ["_game_util.py", "golden", "data"]
SMOKE_HANDS = 300

CONFTEST = '''\
import sysconfig
from pathlib import Path

import tractor

_SITE = {Path(sysconfig.get_paths()[k]).resolve() for k in ("purelib", "platlib")}


def pytest_report_header(config):
    return f"tractor {tractor.__version__} from {Path(tractor.__file__).parent}"


def pytest_sessionstart(session):
    here = Path(tractor.__file__).resolve().parent
    assert here.parent in _SITE, f"tractor imported from {here}, not site-packages {_SITE}"
'''


def say(msg: str) -> None:
    print(f"wheel_smoke: {msg}", flush=True)


def no_rust_path(bindir: Path) -> str:
    """The venv's bin, then every PATH entry that holds neither cargo nor rustc."""
    keep = [str(bindir)]
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if entry and not (shutil.which("cargo", path=entry) or shutil.which("rustc", path=entry)):
            keep.append(entry)
    return os.pathsep.join(keep)


def run(cmd, env, cwd, capture=False):
    shown = [c if i == 0 or "\n" not in str(c) else "<script>" for i, c in enumerate(cmd)]
    say("$ " + " ".join(shlex.quote(str(c)) for c in shown))
    r = subprocess.run([str(c) for c in cmd], env=env, cwd=cwd, text=True,
                       stdout=subprocess.PIPE if capture else None)
    if r.returncode != 0:
        if capture:
            print(r.stdout)
        raise SystemExit(f"wheel_smoke: failed (exit {r.returncode}): {cmd[0]} ...")
    return r.stdout if capture else ""


def readme_main_command() -> list:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first = re.search(r"```\n(.*?)```", text, flags=re.S).group(1).strip().splitlines()[0]
    cmd = first.split("&&")[-1].strip()
    if not cmd.startswith("tractor simulate") or not re.search(r"--hands \d+", cmd):
        raise SystemExit(f"wheel_smoke: README line 1 is not `... && tractor simulate --hands N ...`: {first}")
    return shlex.split(re.sub(r"--hands \d+", f"--hands {SMOKE_HANDS}", cmd))


def main(argv: list) -> int:
    if len(argv) != 1 or not argv[0].endswith(".whl"):
        print("usage: python .ci/wheel_smoke.py WHEEL", file=sys.stderr)
        return 2
    wheel = Path(argv[0]).resolve()
    version = workspace_version()
    work = Path(tempfile.mkdtemp(prefix="tractor-wheel-smoke-"))
    try:
        env_dir = work / "venv"
        say(f"fresh virtualenv {env_dir} ({sys.executable})")
        venv.create(env_dir, with_pip=True)
        bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("CARGO", "RUSTUP", "RUSTC", "RUSTFLAGS", "PYTHON", "MATURIN"))}
        env["PATH"] = no_rust_path(bindir)
        env["VIRTUAL_ENV"] = str(env_dir)
        env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
        for tool in ("cargo", "rustc"):
            found = shutil.which(tool, path=env["PATH"])
            if found:
                raise SystemExit(f"wheel_smoke: {tool} is still on the PATH: {found}")
        say("no cargo or rustc on the PATH")
        py = shutil.which("python", path=str(bindir))
        run([py, "-m", "pip", "install", "--quiet", "--only-binary", ":all:", str(wheel), "pytest"],
            env, work)

        probe = (
            "import importlib.metadata as md, sysconfig, pathlib, tractor\n"
            "here = pathlib.Path(tractor.__file__).resolve().parent\n"
            "site = {pathlib.Path(sysconfig.get_paths()[k]).resolve() for k in ('purelib', 'platlib')}\n"
            "assert here.parent in site, (here, site)\n"
            "assert (here / '_core.pyi').is_file() and (here / 'py.typed').is_file()\n"
            "print(here, tractor.__version__, md.version('tractor-engine'))\n"
        )
        out = run([py, "-c", probe], env, work, capture=True).split()
        say(f"import tractor: {out[0]}")
        versions = {"Cargo.toml": version, "tractor.__version__": out[1], "metadata": out[2]}
        cli = run([shutil.which("tractor", path=str(bindir)), "--version"], env, work, capture=True)
        versions["tractor --version"] = cli.strip().removeprefix("tractor ")
        if len(set(versions.values())) != 1:
            raise SystemExit(f"wheel_smoke: versions differ: {versions}")
        say(f"one version everywhere: {version}")

        cmd = readme_main_command()
        cmd[0] = shutil.which("tractor", path=str(bindir))
        summary = run(cmd, env, work, capture=True)
        print(summary)
        if f"{SMOKE_HANDS:,}" not in summary and str(SMOKE_HANDS) not in summary:
            raise SystemExit("wheel_smoke: the simulate summary does not mention the hands played")

        tests = work / "smoke_tests"
        tests.mkdir()
        for name in SMOKE_TESTS + SMOKE_SUPPORT:
            src = ROOT / "tests" / name
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, tests / name)
        (tests / "conftest.py").write_text(CONFTEST, encoding="utf-8")
        run([py, "-m", "pytest", "-p", "no:cacheprovider", "--import-mode=importlib",
             "--rootdir", str(tests), str(tests)], env, work)
        say(f"ok: {wheel.name}")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
