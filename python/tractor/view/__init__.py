"""See a hand: a self-contained HTML replay (:func:`to_html`, ``tractor view``) and a table in
the browser where a person plays against the bots (:mod:`tractor.view.server`, ``tractor play``).

The page opens from disk with no network: style, scripts and the hand's frames are inlined,
and its Content-Security-Policy forbids every fetch. The frames come from the engine
(``tractor.view.model``); the page only draws them.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional, Tuple

from .._args import _int, _regular_file, _seat, _show, _text
from ..errors import InvalidArgument, InvalidRecord, RecordsError
from ..game import Game, Match
from . import model, saved
from .page import render

__all__ = ["to_html", "load", "write_html"]


def to_html(
    source: Any,
    seat: Optional[int] = None,
    title: Optional[str] = None,
    decisions: Optional[Dict[int, Any]] = None,
) -> str:
    """One self-contained HTML page replaying a hand: ``source`` is a :class:`~tractor.Game`
    (finished or not) or a :class:`~tractor.Match` (its current hand, with the match's levels).
    ``seat`` opens the page in that seat's view (None: the whole table). ``decisions`` maps an
    action's index in the record to the statistics of the search that chose it.

    Raises InvalidArgument (a source of another type, a bad seat or title)."""
    if isinstance(source, Match):
        source = source.game
    if not isinstance(source, Game):
        raise InvalidArgument(f"source must be a tractor.Game or tractor.Match, got {type(source).__name__}")
    seat = None if seat is None else _seat(seat)
    title = None if title is None else _text(title, "title")
    if decisions is not None and not isinstance(decisions, dict):
        raise InvalidArgument(f"decisions must map action indices to statistics, got {_show(decisions)}")
    data = model.build(source, decisions, title)
    data["initial_view"] = "all" if seat is None else str(seat)
    return render("view.html", "view.js", data, data["title"])


def load(path: Any, hand: Optional[int] = None) -> Tuple[Game, Dict[int, Any], str]:
    """The hand in ``path``: a JSON hand record (``Game.to_json``), a saved match of the table
    (hand ``hand``; None: its current hand) or a records file of ``simulate`` (hand ``hand``,
    counted from 0; None: the first). Returns (game, decisions, title).

    Raises InvalidArgument (a path or hand of the wrong type, a path that is not a regular
    file), OSError (the file cannot be read), InvalidRecord (not a record, or no such hand) and RecordsError (a damaged records
    file)."""
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidArgument(f"path must be a file path, got {_show(path)}")
    path = os.fspath(path)
    if hand is not None:
        hand = _int(hand, "hand", 0, 2**32 - 1)
    _regular_file(path, InvalidArgument)
    with open(path, "rb") as f:
        head = f.read(64).lstrip()
    name = os.path.basename(path)
    if head.startswith(b"{"):
        with open(path, encoding="utf-8") as f:
            try:
                doc = json.load(f)
            except RecursionError:
                raise InvalidRecord(f"{path}: not a hand record: its JSON is nested too deeply") from None
            except ValueError as e:
                raise InvalidRecord(f"{path}: not JSON: {e}") from None
        if saved.is_saved_match(doc):
            return saved.hand_of(doc, os.path.dirname(os.path.abspath(path)), hand)
        if hand not in (None, 0):
            raise InvalidRecord(f"{path} holds one hand: --hand {hand} is not in it")
        return Game.from_record(doc), saved.decisions_beside(path), name
    from ..records import read_records

    want = 0 if hand is None else hand
    with read_records(path, replay=False) as r:
        for rec in r:
            if rec.index == want:
                return rec.replay(), {}, f"{name}: hand {want}"
    raise RecordsError(f"{path}: no hand {want} (the file holds hands 0..{want - 1} at most)")


def write_html(path: Any, source: Any, seat: Optional[int] = None, title: Optional[str] = None,
               decisions: Optional[Dict[int, Any]] = None) -> None:
    """Writes :func:`to_html` to ``path`` (whole, or not at all: a partial file never stays)."""
    from .._outputs import replacing

    text = to_html(source, seat, title, decisions)
    with replacing(os.fspath(path)) as tmp:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
