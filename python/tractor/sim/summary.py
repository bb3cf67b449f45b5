"""A run's summary as an aligned text table, numbers for people (``print(results)``)."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Tuple


def _human(v: float) -> str:
    """A float for people: 15,810 rather than 1.581e+04; 0.4213; 12.6."""
    if math.isnan(v) or math.isinf(v):
        return str(v)
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.4g}"


_NOTES = {
    "stopped": "hands with no result: nobody showed a trump in three deals (R8.5)",
    "elapsed_s": "seconds",
    "interrupted": "True: stopped early (Ctrl-C); the rows cover the hands that finished",
}


def format_summary(s: Dict[str, Any]) -> str:
    """The summary as an aligned text table, numbers for people."""
    rows: List[Tuple[str, str]] = []

    def fmt(v: Any) -> str:
        if isinstance(v, bool):
            return str(v)
        if isinstance(v, int):
            return f"{v:,}"
        if isinstance(v, float):
            return _human(v)
        if isinstance(v, tuple) and len(v) == 2 and all(isinstance(x, float) for x in v):
            return f"[{_human(v[0])}, {_human(v[1])}]"
        if isinstance(v, dict):
            return ", ".join(f"{k}: {fmt(x)}" for k, x in v.items())
        if isinstance(v, tuple):
            return ",".join(str(x) for x in v)
        return str(v)

    for k, v in s.items():
        if k == "teams":
            # the two teams' returns mirror each other (zero-sum): one row says it all
            (t0, r0), (t1, _) = list(v.items())[:2]
            m = r0["mean_return"]
            rows.append((t0, f"{'+' if m > 0 else ''}{fmt(m)} levels/hand over {t1}, 95% CI {fmt(r0['ci95'])}"))
        elif k == "duplicate":
            rows.append(
                (f"duplicate: {v['policy']} advantage", f"{fmt(v['advantage'])} levels/deal, 95% CI {fmt(v['ci95'])}")
            )
        elif k == "stopped":
            rows.append((k, f"{fmt(v)}  ({_NOTES[k]})" if v else fmt(v)))
        elif k == "interrupted" and v:
            rows.append((k, f"{fmt(v)}  ({_NOTES[k]})"))
        else:
            rows.append((k, fmt(v)))
    w = max(len(r[0]) for r in rows)
    return "\n".join(f"{a.ljust(w)}  {b}" for a, b in rows)
