"""One self-contained HTML page: the template with its style, scripts and data inlined (no
network: the page's Content-Security-Policy forbids every fetch)."""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from typing import Any, Dict


def _asset(name: str) -> str:
    return (resources.files("tractor.view") / "assets" / name).read_text(encoding="utf-8")


def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no "</" and no HTML comment openers survive."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render(template: str, script: str, data: Dict[str, Any], title: str) -> str:
    page = _asset(template)
    parts = {
        "/*TITLE*/": html.escape(title),
        "/*STYLE*/": _asset("style.css"),
        "/*CARDS*/": _asset("cards.js"),
        "/*SCRIPT*/": _asset(script),
        "/*DATA*/": _script_json(data),
    }
    # one pass over the template: a value (a title, the data) is never searched for a key
    return re.sub(r"/\*[A-Z]+\*/", lambda m: parts.get(m.group(0), m.group(0)), page)
