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


#: What a page may load: nothing but its inlined style and scripts (and, for the table, requests
#: to the server that served it).
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def render(body: str, script: str, data: Dict[str, Any], title: str, connect: bool = False) -> str:
    """The page: ``page.html`` around the asset ``body``, with ``script`` and ``data``; a page
    with ``connect`` may call back the server that served it."""
    parts = {
        "/*CSP*/": _CSP + ("; connect-src 'self'" if connect else ""),
        "/*TITLE*/": html.escape(title),
        "/*STYLE*/": _asset("style.css"),
        "/*BODY*/": _asset(body),
        "/*CARDS*/": _asset("cards.js"),
        "/*SCRIPT*/": _asset(script),
        "/*DATA*/": _script_json(data),
    }
    # one pass over the frame: a value (a title, the data, the body) is never searched for a key
    return re.sub(r"/\*[A-Z]+\*/", lambda m: parts.get(m.group(0), m.group(0)), _asset("page.html"))
