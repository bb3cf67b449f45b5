"""A griffe extension for the API reference: the package's docstrings are written in a light
reStructuredText (Sphinx roles, ``literal`` spans, a ``::`` literal block, one simple table,
doctest examples); mkdocstrings renders Markdown. This rewrites, in every docstring of the
package, once it is loaded:

- ``:class:`~tractor.errors.RecordsError``` (any role) into a cross-reference,
  ``[`RecordsError`][tractor.errors.RecordsError]``, when the name resolves, from the
  docstring's own scope as Python would, to a public object; otherwise into ``code``;
- ``text::`` ending a paragraph into ``text:`` (the indented block after it is already a
  Markdown code block);
- a simple table (``=== ===`` rules) into a Markdown table;
- ``>>>`` examples into a fenced ``pycon`` block;
- ``#:`` comment lines above an attribute into its docstring (as Sphinx reads them);
- ``**`` outside code into ``\\*\\*`` (``2**64``, ``xoshiro256**`` are not bold).

Nothing in the package is changed; griffe reads the source, it never imports it. Only the
docs build loads this file (mkdocs.yml, ``extensions``).
"""

from __future__ import annotations

import re
from typing import Any, Optional

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|meth|func|attr|data|mod|exc|obj|const):`(~?)([^`]+)`")
RULE = re.compile(r"^(\s*)(=+)((?: +=+)+)\s*$")
CODE = re.compile(r"(``.+?``|`[^`]+`)")


def _public(path: str) -> bool:
    return not any(part.startswith("_") and not part.startswith("__") for part in path.split("."))


class RstToMarkdown(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        self.pkg = pkg
        self._walk(pkg, set())

    # -- walking -------------------------------------------------------------------------
    def _walk(self, obj: griffe.Object, seen: set) -> None:
        if obj.path in seen:
            return
        seen.add(obj.path)
        if obj.docstring is None and obj.is_attribute:
            self._comment_docstring(obj)
        if obj.docstring is not None:
            obj.docstring.value = self.convert(obj.docstring.value, obj)
        for member in list(obj.members.values()):
            if not member.is_alias:
                self._walk(member, seen)

    @staticmethod
    def _comment_docstring(obj: griffe.Object) -> None:
        """An attribute documented by ``#:`` comment lines right above it (Sphinx's way)."""
        if not obj.lineno or obj.module.filepath is None:
            return
        src = obj.module.lines
        i, text = obj.lineno - 2, []
        while 0 <= i < len(src) and src[i].strip().startswith("#:"):
            text.insert(0, src[i].strip()[2:].strip())
            i -= 1
        if text:
            obj.docstring = griffe.Docstring("\n".join(text), parent=obj)

    # -- names -----------------------------------------------------------------------------
    def _exists(self, path: str) -> bool:
        root, _, rest = path.partition(".")
        if root != self.pkg.name:
            return False
        try:
            obj = self.pkg[rest] if rest else self.pkg
            obj.canonical_path  # noqa: B018  (resolves an alias, or raises)
        except Exception:  # noqa: BLE001  (griffe raises KeyError or an alias error)
            return False
        return True

    def resolve(self, name: str, scope: griffe.Object) -> Optional[str]:
        """The path of ``name`` as seen from ``scope``, if it names a public object."""
        if name.startswith(self.pkg.name + "."):
            path = name
        else:
            head, _, tail = name.partition(".")
            path = None
            while scope is not None and path is None:
                try:
                    path = scope.resolve(head)
                except Exception:  # noqa: BLE001
                    scope = scope.parent
            if path is None:
                return None
            path = f"{path}.{tail}" if tail else path
        return path if _public(path) and self._exists(path) else None

    # -- text --------------------------------------------------------------------------------
    def convert(self, text: str, scope: griffe.Object) -> str:
        lines = text.split("\n")
        out: list = []
        i = 0
        while i < len(lines):
            line = lines[i]
            if RULE.match(line):
                end = i + 1
                while end < len(lines) and not RULE.match(lines[end]):
                    end += 1
                end += 1
                while end < len(lines) and lines[end].strip() and not RULE.match(lines[end]):
                    end += 1
                table, i = lines[i : end + 1], end + 1
                out.extend(self._table(table))
                continue
            if line.lstrip().startswith(">>> "):
                indent = line[: len(line) - len(line.lstrip())]
                block = []
                while (
                    i < len(lines)
                    and lines[i].lstrip().startswith((">>> ", "... ", ">>>", "..."))
                    and lines[i].strip()
                ):
                    block.append(lines[i][len(indent) :])
                    i += 1
                if out and out[-1].strip():
                    out.append("")
                out.extend([indent + "```pycon", *(indent + b for b in block), indent + "```", ""])
                continue
            if line.rstrip().endswith("::") and not line.rstrip().endswith(":::"):
                line = line.rstrip()[:-1]
            out.append(line)
            i += 1
        return self._inline("\n".join(out), scope)

    def _table(self, rows: list) -> list:
        rule = RULE.match(rows[0])
        assert rule
        spans = [(m.start(), m.end()) for m in re.finditer(r"=+", rows[0])]
        cells = []
        for row in rows:
            if RULE.match(row) or not row.strip():
                continue
            cols = []
            for k, (a, _) in enumerate(spans):
                b = spans[k + 1][0] if k + 1 < len(spans) else len(row)
                cols.append(row[a:b].strip())
            cells.append(cols)
        head, body = cells[0], cells[1:]
        md = ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        md += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in body]
        return md + [""]

    def _inline(self, text: str, scope: griffe.Object) -> str:
        fence = False
        out = []
        for line in text.split("\n"):
            if line.strip().startswith("```"):
                fence = not fence
            if fence or line.strip().startswith("```") or line.startswith("    "):
                out.append(line)
                continue
            out.append(self._inline_line(line, scope))
        return "\n".join(out)

    def _inline_line(self, line: str, scope: griffe.Object) -> str:
        def role(m: "re.Match[str]") -> str:
            short, name = m.group(1) == "~", m.group(2).strip()
            shown = name.rsplit(".", 1)[-1] if short else name
            path = self.resolve(name, scope)
            return f"[`{shown}`][{path}]" if path else f"`{shown}`"

        line = ROLE.sub(role, line)
        parts = CODE.split(line)
        for k in range(0, len(parts), 2):  # outside code spans only
            parts[k] = parts[k].replace("**", r"\*\*")
        return "".join(parts)
