"""A table in the browser: a person plays one seat against any policies, hand after hand
through a match (``tractor play``).

The server listens on 127.0.0.1 only and answers loopback clients only (a request from
elsewhere, or naming another host, gets 403). Every request goes through the checked API
(``tractor.describe.apply_text``): a bad one is a JSON error naming what was wrong (and the
rule, for an illegal play) and changes nothing. The bots decide on a thread of their own, on a copy of the
game, so the page never waits on a search; a decision is applied only if the game has not
moved meanwhile. Every finished hand is saved (its record, the searches' statistics and the
match, from which ``tractor play --resume`` continues).
"""

from __future__ import annotations

import json
import os
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import urlsplit

from .. import _core
from .._args import _int, _policy_list, _profile, _seat, _seed, _split_policies
from .._outputs import replacing
from ..describe import action_text, apply_text, describe
from ..errors import IllegalAction, IllegalFollow, InvalidArgument, TractorError
from ..game import Game, Match
from . import saved
from .model import _arranged, _ctx, _trumps
from .page import render

__all__ = ["Table", "serve"]

MAX_BODY = 16_384
"""The largest request body the server reads (a play is a few dozen bytes)."""

_SEARCHES = ("pimc:", "ismcts:")


def _bot_choice(g: Game, policy: str, seed: int) -> Tuple[Any, Optional[Dict[str, Any]]]:
    """The action ``policy`` takes in ``g`` (a copy) and, for a search, its statistics."""
    if g.phase == "play" and policy.startswith(_SEARCHES):
        from ..search import _search

        r = _search(g, policy, seed, None)
        stats = {
            "policy": policy,
            "chosen": str(r.action),
            "stats": [{"play": str(s.play), "visits": s.visits, "mean": round(s.mean, 4), "spread": round(s.spread, 4)}
                      for s in r.stats],
            "iterations": r.iterations,
        }
        return r.action, stats
    return g.policy_action(policy, seed), None


class Table:
    """A match with one seat for a person and policies at the others. Thread-safe: one lock
    guards the match; the bots' thread decides outside it."""

    def __init__(
        self,
        seat: int = 0,
        opponents: Any = "greedy,greedy,greedy",
        profile: str = "guigang",
        seed: int = 0,
        save_dir: Optional[str] = None,
        resume: Optional[str] = None,
    ) -> None:
        """``opponents``: three policies (a list, or one text ``"a,b,c"``) for the seats after
        ``seat`` in play order. ``save_dir``: where finished hands and the match are saved
        (None: nothing saved). ``resume``: a saved match (``match.json``) to continue; its
        seat, opponents and seed are used. Raises InvalidArgument, InvalidPolicy, InvalidSeat
        and, for ``resume``, InvalidRecord and OSError."""
        self.hands: List[str] = []
        self.decisions: List[Dict[int, Any]] = []
        self.current: Dict[int, Any] = {}
        if resume is not None:
            with open(os.fspath(resume), encoding="utf-8") as f:
                doc = json.load(f)
            if not saved.is_saved_match(doc):
                raise InvalidArgument(f"{resume} is not a saved match of the table")
            m, hands, decisions, table = saved.load(doc)
            self.match = m
            self.hands = [h.to_json() for h in hands]
            self.decisions = decisions
            seat, opponents, seed = table.get("seat", seat), table.get("opponents", opponents), m.seed
        else:
            self.match = Match(_seed(seed), _profile(profile))
        self.seat = _seat(seat)
        self.opponents = _policy_list(opponents, 3, "opponents", "one per seat after yours")
        self.policies: Dict[int, str] = {(self.seat + 1 + i) % 4: p for i, p in enumerate(self.opponents)}
        self.names = _split_policies(opponents) if isinstance(opponents, str) else [str(p) for p in opponents]
        self.seed = self.match.seed
        self.save_dir = None if save_dir is None else os.fspath(save_dir)
        self.version = 0
        self.lock = threading.Condition()
        self.thinking: Optional[int] = None
        self.error: Optional[str] = None
        self.stopped = False
        self._bots = threading.Thread(target=self._bot_loop, name="tractor-table-bots", daemon=True)

    # -- state --------------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        return self.match.game

    def state(self) -> Dict[str, Any]:
        """What the person's seat knows (``describe``) and what the page draws."""
        with self.lock:
            g = self.game
            d = json.loads(describe(g, self.seat, limit=0))
            info = g.info(self.seat)
            ctx = _ctx(g.level, g.known_trump(self.seat), g.profile)
            d.update({
                "version": self.version,
                "hand_ids": _arranged(ctx, info.hand),
                "trumps": _trumps(ctx),
                "cards": _core_names(),
                "match_levels": list(self.match.levels),
                "match_hand": len(self.hands),
                "match_over": self.match.over,
                "policies": {str(k): v for k, v in self.policies.items()},
                "thinking": self.thinking,
                "error": self.error,
                "last_decision": self._last_decision(),
                "saved": self.save_dir,
            })
            if d["your_turn"] and g.phase == "declare":
                d["offers"] = [action_text(a) for a in g.legal_actions()]
            return d

    def _last_decision(self) -> Optional[Dict[str, Any]]:
        if not self.current:
            return None
        k = max(self.current)
        return dict(self.current[k], action=k)

    # -- the person's actions -------------------------------------------------------------------
    def check(self, text: str) -> Dict[str, Any]:
        """Would ``text`` be accepted now? Tried on a copy: nothing changes. An illegal
        selection is explained with the rule and a legal example."""
        with self.lock:
            trial = self.game.clone()
        try:
            apply_text(trial, self.seat, text)
        except IllegalFollow as e:
            example = " ".join(map(str, e.example)) if e.example else None
            return {"ok": False, "error": str(e), "rule": e.rule, "example": example}
        except TractorError as e:
            return {"ok": False, "error": str(e), "rule": str(e).split(":")[0] if str(e)[:1] in "RC" else None, "example": None}
        return {"ok": True}

    def act(self, text: str, version: Any) -> Dict[str, Any]:
        """Plays ``text`` for the person's seat if the page saw the current state
        (``version``); raises IllegalAction (stale, not the seat's turn, illegal) and the
        errors of ``apply_text``, changing nothing."""
        with self.lock:
            if version != self.version:
                raise IllegalAction(f"the table has moved on (version {self.version}, the page saw {version!r}): reload the state")
            apply_text(self.game, self.seat, text)
            self._moved()
            return {"ok": True, "version": self.version}

    def next_hand(self) -> Dict[str, Any]:
        """Saves the finished hand and deals the next; IllegalAction if the hand is not over."""
        with self.lock:
            if not self._over():
                raise IllegalAction("the hand is not over")
            if self.match.over:
                raise IllegalAction("C8: the match is over")
            record = self.game.to_json()
            self.match.next_hand()  # scored first: the saved match is never between hands
            self.hands.append(record)
            self.decisions.append(self.current)
            self.current = {}
            self.save()
            self._moved()
            return {"ok": True, "version": self.version}

    def _over(self) -> bool:
        return self.game.phase == "over" or self.game.stopped

    def _moved(self) -> None:
        self.version += 1
        self.error = None
        if self._over() and self.save_dir is not None:
            self._save_hand(len(self.hands), self.game.to_json(), self.current)
        self.lock.notify_all()

    # -- saving ---------------------------------------------------------------------------------
    def _write(self, name: str, text: str) -> None:
        assert self.save_dir is not None
        os.makedirs(self.save_dir, exist_ok=True)
        with replacing(os.path.join(self.save_dir, name)) as tmp:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)

    def _save_hand(self, index: int, record: str, decisions: Dict[int, Any]) -> None:
        self._write(f"hand-{index:04d}.json", record)
        self._write(f"hand-{index:04d}.decisions.json", json.dumps({str(k): v for k, v in decisions.items()}))
        self.save()

    def save(self) -> Optional[str]:
        """Writes ``match.json`` (the finished hands, the current hand, who sits where) to
        the save folder; returns its path (None without a save folder)."""
        if self.save_dir is None:
            return None
        table = {"seat": self.seat, "opponents": self.names}
        self._write("match.json", saved.dump(self.match, self.hands, self.decisions, table))
        return os.path.join(self.save_dir, "match.json")

    # -- the bots -------------------------------------------------------------------------------
    def start(self) -> None:
        self._bots.start()

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
            self.lock.notify_all()
        if self._bots.is_alive():
            self._bots.join(timeout=30)

    def _bot_loop(self) -> None:
        while True:
            with self.lock:
                while not self.stopped and (self.game.current_player is None or self.game.current_player == self.seat):
                    self.lock.wait()
                if self.stopped:
                    return
                g, version, seat = self.game.clone(), self.version, self.game.current_player
                policy = self.policies[seat]
                n = len(g.record()["actions"])
                seed = _core.derive_seed(self.seed, len(self.hands), n)
                self.thinking = seat
            try:  # off the lock: the page keeps being answered while a search runs
                action, stats = _bot_choice(g, policy, seed)
                error = None
            except TractorError as e:
                action, stats, error = None, None, f"seat {seat} ({policy}) could not decide: {e}"
            with self.lock:
                self.thinking = None
                if error is not None:
                    self.error, self.stopped = error, True
                    self.lock.notify_all()
                    return
                if self.version != version:
                    continue  # the game moved meanwhile: decide again
                self.game.apply(action)
                if stats is not None:
                    self.current[n] = stats
                self._moved()


def _core_names() -> List[str]:
    from ..cards import CARDS

    return [str(CARDS[k]) for k in range(54)]


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if self.server.verbose:
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, doc: Any) -> None:
        self._send(status, json.dumps(doc).encode(), "application/json")

    def _refused(self) -> bool:
        """Loopback only: the peer and the Host the page was opened under."""
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0].strip("[]").lower()
        if self.client_address[0] not in ("127.0.0.1", "::1") or host not in ("127.0.0.1", "localhost", "::1"):
            self._json(HTTPStatus.FORBIDDEN, {"ok": False, "error": "this table answers loopback only"})
            return True
        return False

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        if self._refused():
            return
        try:
            self._get(urlsplit(self.path).path)
        except Exception as e:  # a fault of ours: said to the page, the server goes on
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"ok": False, "error": f"{type(e).__name__}: {e}"})

    def _get(self, path: str) -> None:
        t = self.server.table
        if path == "/":
            page = render("table.html", "table.js", {"seat": t.seat, "policies": t.names}, "tractor-engine table", connect=True)
            self._send(HTTPStatus.OK, page.encode(), "text/html; charset=utf-8")
        elif path == "/state":
            self._json(HTTPStatus.OK, t.state())
        elif path == "/record":
            with t.lock:
                self._json(HTTPStatus.OK, t.game.record())
        else:
            self._json(HTTPStatus.NOT_FOUND, {"ok": False, "error": f"no such page: {path}"})

    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        if self._refused():
            return
        path = urlsplit(self.path).path
        t = self.server.table
        try:
            n = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            n = -1
        if not 0 <= n <= MAX_BODY:
            self.close_connection = True
            self._json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, {"ok": False, "error": f"a request body is at most {MAX_BODY} bytes"})
            return
        try:
            body = json.loads(self.rfile.read(n) or b"{}")
            if not isinstance(body, dict):
                raise InvalidArgument("the request body must be a JSON object")
            if path == "/check":
                self._json(HTTPStatus.OK, t.check(_field(body, "action")))
            elif path == "/act":
                self._json(HTTPStatus.OK, t.act(_field(body, "action"), body.get("version")))
            elif path == "/next":
                self._json(HTTPStatus.OK, t.next_hand())
            else:
                self._json(HTTPStatus.NOT_FOUND, {"ok": False, "error": f"no such action: {path}"})
        except IllegalFollow as e:
            ex = " ".join(map(str, e.example)) if e.example else None
            self._json(HTTPStatus.CONFLICT, {"ok": False, "error": str(e), "rule": e.rule, "example": ex})
        except TractorError as e:
            self._json(HTTPStatus.BAD_REQUEST, {"ok": False, "error": str(e)})
        except ValueError as e:  # not JSON
            self._json(HTTPStatus.BAD_REQUEST, {"ok": False, "error": f"the request body is not JSON: {e}"})
        except Exception as e:  # a fault of ours: said to the page, the server goes on
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"ok": False, "error": f"{type(e).__name__}: {e}"})


def _field(body: Dict[str, Any], key: str) -> str:
    v = body.get(key)
    if not isinstance(v, str):
        raise InvalidArgument(f"the request needs {key!r}: a text such as 'pass' or '9s 9s'")
    return v


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, table: Table, port: int, verbose: bool) -> None:
        self.table, self.verbose = table, verbose
        super().__init__(("127.0.0.1", port), _Handler)


def serve(table: Table, port: int = 0, verbose: bool = False) -> "_Server":
    """A server for ``table`` on 127.0.0.1 (``port`` 0: a free one; ``server.server_port``
    says which). Start it with ``serve_forever()``; ``shutdown()`` and ``table.stop()`` stop
    it. Raises InvalidArgument (a port outside 0..65535) and OSError (the port is taken)."""
    port = _int(port, "port", 0, 65535)
    server = _Server(table, port, verbose)
    table.start()
    return server
