"""The HTTP server of the table in the browser (``tractor play``): a person plays one seat
against any policies, hand after hand through a match.

**Who may use it.** The server listens on 127.0.0.1 and answers its own page only. A request
must come from a loopback peer, name the table as its ``Host`` (``127.0.0.1:PORT`` or
``localhost:PORT``: a DNS-rebinding page names another host), and be a same-origin one: an
``Origin`` or ``Sec-Fetch-Site`` that says another site is refused (403), as is a request to
anything but the page itself without the secret the page holds (``X-Tractor-Table``, a new
random token each time the server starts; a cross-origin page can neither read it nor send
the header without a CORS preflight, which the server never grants). Only a navigation may
load the page from elsewhere, and it may not be framed.

**What the page learns.** While a hand is in play the page receives what the person's seat
knows and nothing more: ``describe`` (the contract of ``tractor.describe``) plus the table's
own facts, and of a search bot's last decision only the policy, the play (public once made)
and the iterations; its candidate plays (the bot's hidden cards) and the whole record
(``/record``: every hand, the hand seed, the hidden showings of R8.2) once the hand is over.

**HTTP.** The stdlib's ``http.server``, hardened, rather than a third-party server (the package
depends on numpy only at runtime, and the table needs a dozen requests a second from one page):
the target must be a path (origin-form, RFC 9112 3.2.1), a body needs one plain Content-Length
(``Transfer-Encoding`` is refused with 411 and the connection closed, so a body is never read
as a second request), bodies are at most ``MAX_BODY`` bytes, a JSON body nested too deeply is
a 400. A response is written in one write with Nagle's algorithm off (headers and body in
separate segments waited on the peer's delayed ACK: 44 ms a request on a kept-alive
connection). No lock is held while a socket is read or written, a client silent for
``CLIENT_TIMEOUT`` seconds is dropped, and at most ``MAX_CONNECTIONS`` connections are served:
past that, the one that has waited longest for its request to arrive is closed to make room.

**The match is never lost.** Every request goes through the checked API
(``tractor.describe.apply_text``): a bad one is a JSON error naming what was wrong (and the
rule, for an illegal play) and changes nothing. The bots decide on a thread of their own, on a
copy of the game, so the page never waits on a search; a decision is applied only if the game
has not moved meanwhile. With a save folder (checked, and the match written, when the table
starts) the match is saved after each of the person's actions and at each hand's end (the
hand's record, its searches' statistics and ``match.json``, as ``view/saved.py`` says): an
action either takes effect and is saved, or neither, and the page is told which.
"""

from __future__ import annotations

import copy
import hmac
import json
import os
import re
import secrets
import shutil
import socket
import threading
import time
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

__all__ = ["Table", "serve", "SaveFailed"]

MAX_BODY = 16_384
"""The largest request body the server reads (a play is a few dozen bytes)."""

MAX_CONNECTIONS = 32
"""The most connections served at once (a page uses one or two)."""

CLIENT_TIMEOUT = 10.0
"""Seconds a client may stay silent mid-request, or idle between requests, or not read."""

TOKEN_HEADER = "X-Tractor-Table"
"""The header that carries the page's secret on every request but the page's own."""

_SEARCHES = ("pimc:", "ismcts:")

#: What a search's decision shows while its hand is in play: its candidates are its hidden cards.
_PUBLIC_DECISION = ("policy", "chosen", "iterations", "action")


class SaveFailed(Exception):
    """The save folder could not be written: the action that needed the save was not made."""


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


def _over(g: Game) -> bool:
    return g.phase == "over" or g.stopped


class Table:
    """A match with one seat for a person and policies at the others. Thread-safe: one lock
    guards the match; the bots' thread decides outside it, and no socket is written under it."""

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
        (None: nothing saved); it is made if need be, must not hold another saved match, and
        ``match.json`` is written at once. ``resume``: a saved match (``match.json``, its hand
        files beside it) to continue; its seat, opponents and seed are used. Raises
        InvalidArgument (an argument; a save folder that cannot be made, written, or holds
        another match), InvalidPolicy, InvalidSeat and, for ``resume``, InvalidRecord (the
        match is not one this table could have saved) and OSError."""
        self.hands: List[Dict[str, str]] = []  # the finished hands' files and digests
        self.current: Dict[int, Any] = {}  # the current hand's search statistics by action index
        folder = None
        if resume is not None:
            resume = os.fspath(resume)
            with open(resume, encoding="utf-8") as f:
                try:
                    doc = json.load(f)
                except ValueError as e:
                    raise InvalidArgument(f"{resume} is not JSON: {e}") from None
            if not saved.is_saved_match(doc):
                raise InvalidArgument(f"{resume} is not a saved match of the table")
            folder = os.path.dirname(os.path.abspath(resume))
            self.match, self.hands, self.current, table = saved.load(doc, folder)
            seat, opponents = table["seat"], table["opponents"]
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
        if self.save_dir is not None:
            self._open_folder(folder, resume)
        self._bots = threading.Thread(target=self._bot_loop, name="tractor-table-bots", daemon=True)

    def _open_folder(self, resumed_from: Optional[str], resume: Optional[str]) -> None:
        """Makes the save folder, refuses one that holds another match, brings the resumed
        match's hand files into it, and writes ``match.json``: a folder that cannot be written
        is found before the first hand, not at its end."""
        d = self.save_dir
        assert d is not None
        try:
            os.makedirs(d, exist_ok=True)
            same = resumed_from is not None and os.path.samefile(resumed_from, d)
        except OSError as e:
            raise InvalidArgument(f"the save folder {d} cannot be made: {e.strerror or e}") from None
        if not same and os.path.exists(os.path.join(d, "match.json")):
            hint = f"--resume {os.path.join(d, 'match.json')}" if resume is None else "save it in a folder of its own"
            raise InvalidArgument(f"the save folder {d} holds another saved match (match.json): {hint}, or choose another folder")
        try:
            if resumed_from is not None and not same:
                for i in range(len(self.hands)):
                    for name in (saved.hand_file(i), f"hand-{i:04d}.decisions.json"):
                        if os.path.exists(os.path.join(resumed_from, name)):
                            shutil.copyfile(os.path.join(resumed_from, name), os.path.join(d, name))
            self.save()
        except (OSError, SaveFailed) as e:
            raise InvalidArgument(f"the save folder {d} is not writable: {e}") from None

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
        d = dict(self.current[k], action=k)
        if not _over(self.game):  # the candidates are the bot's hidden cards: shown once the hand is over
            d = {key: d[key] for key in _PUBLIC_DECISION if key in d}
        return d

    def record(self) -> Optional[Dict[str, Any]]:
        """The current hand's whole record once it is over; None while it is in play (it holds
        every seat's cards, the hand seed and the hidden showings of R8.2)."""
        with self.lock:
            return self.game.record() if _over(self.game) else None

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

    def _fresh(self, version: Any) -> None:
        if type(version) is not int or version != self.version:
            raise IllegalAction(f"the table has moved on (version {self.version}, the page saw {version!r}): reload the state")

    def act(self, text: str, version: Any) -> Dict[str, Any]:
        """Plays ``text`` for the person's seat if the page saw the current state
        (``version``), and saves the match. Raises IllegalAction (stale, not the seat's turn,
        illegal) and the errors of ``apply_text``, and SaveFailed (the save folder could not be
        written); each changes nothing."""
        with self.lock:
            self._fresh(version)
            g = self.game.clone()
            apply_text(g, self.seat, text)
            self._commit(g, self.current, save=True)
            return {"ok": True, "version": self.version, "saved": self.save_dir is not None}

    def next_hand(self, version: Any) -> Dict[str, Any]:
        """Scores the finished hand, deals the next and saves the match; IllegalAction if the
        page did not see the current state or the hand is not over, SaveFailed if the save
        folder could not be written (then nothing changes)."""
        with self.lock:
            self._fresh(version)
            if not _over(self.game):
                raise IllegalAction("the hand is not over")
            if self.match.over:
                raise IllegalAction("C8: the match is over")
            m = copy.copy(self.match)
            record = m.game.to_json()
            m.next_hand()  # on a copy: a refusal changes nothing
            i = len(self.hands)
            hands = self.hands + [{"file": saved.hand_file(i), "sha256": saved.digest(record)}]
            if self.save_dir is not None:
                self._save_hand(i, record, self.current)
                self._write("match.json", saved.dump(m, m.game, hands, {}, self._table()))
            self.match, self.hands, self.current = m, hands, {}
            self._moved()
            return {"ok": True, "version": self.version, "saved": self.save_dir is not None}

    def _commit(self, g: Game, current: Dict[int, Any], save: bool) -> None:
        """Makes ``g`` the current hand, saved first (when ``save`` or the hand has ended):
        a failed save raises SaveFailed with nothing changed."""
        if self.save_dir is not None and (save or _over(g)):
            if _over(g):
                self._save_hand(len(self.hands), g.to_json(), current)
            self._write("match.json", saved.dump(self.match, g, self.hands, current, self._table()))
        self.match.game = g
        self.current = current
        self._moved()

    def _moved(self) -> None:
        self.version += 1
        self.error = None
        self.lock.notify_all()

    # -- saving ---------------------------------------------------------------------------------
    def _table(self) -> Dict[str, Any]:
        return {"seat": self.seat, "opponents": self.names}

    def _write(self, name: str, text: str) -> None:
        assert self.save_dir is not None
        path = os.path.join(self.save_dir, name)
        try:
            with replacing(path) as tmp:
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(text)
        except OSError as e:
            raise SaveFailed(f"{path} could not be written: {e.strerror or e}") from None

    def _save_hand(self, index: int, record: str, decisions: Dict[int, Any]) -> None:
        self._write(saved.hand_file(index), record)
        self._write(f"hand-{index:04d}.decisions.json", json.dumps({str(k): v for k, v in decisions.items()}))

    def save(self) -> Optional[str]:
        """Writes ``match.json`` (the finished hands' files, the current hand, who sits where)
        to the save folder; returns its path (None without a save folder). Call it with the
        lock held. Raises SaveFailed."""
        if self.save_dir is None:
            return None
        self._write("match.json", saved.dump(self.match, self.game, self.hands, self.current, self._table()))
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
                if self.version != version and error is None:
                    continue  # the game moved meanwhile: decide again
                if error is None:
                    g.apply(action)  # g is the copy the bot decided on, still the current hand
                    current = dict(self.current)
                    if stats is not None:
                        current[n] = stats
                    try:
                        self._commit(g, current, save=False)
                        continue
                    except SaveFailed as e:
                        error = f"the bots stopped: the hand's end could not be saved ({e}); the match is as last saved"
                self.error, self.stopped = error, True
                self.lock.notify_all()
                return


def _core_names() -> List[str]:
    from ..cards import CARDS

    return [str(CARDS[k]) for k in range(54)]


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"
    protocol_version = "HTTP/1.1"
    timeout = CLIENT_TIMEOUT  # the socket's: reads and writes that wait longer end the connection
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if self.server.verbose:
            super().log_message(format, *args)

    def handle_one_request(self) -> None:
        self.server.waiting(self.connection, True)  # until the request has arrived whole
        try:
            super().handle_one_request()
        finally:
            self.server.waiting(self.connection, False)

    def _send(self, status: int, body: bytes, kind: str, close: bool = False) -> None:
        if close:
            self.close_connection = True
        s = HTTPStatus(status)
        head = [f"HTTP/1.1 {s.value} {s.phrase}", f"Date: {self.date_time_string()}", f"Content-Type: {kind}",
                f"Content-Length: {len(body)}", "Cache-Control: no-store", "X-Content-Type-Options: nosniff",
                "Cross-Origin-Resource-Policy: same-origin", "X-Frame-Options: DENY",
                "Content-Security-Policy: frame-ancestors 'none'"]
        if self.close_connection:
            head.append("Connection: close")
        # one write: the head and the body in one segment (not two waiting on the peer's delayed ACK)
        self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        self.log_request(s.value, len(body))

    def _json(self, status: int, doc: Any, close: bool = False) -> None:
        self._send(status, json.dumps(doc).encode(), "application/json", close)

    def _refuse(self, status: int, error: str) -> None:
        """Answers ``status`` and ends the connection (a body left unread is never taken for
        a request); returns None, for ``_admit``."""
        self._json(status, {"ok": False, "error": error}, close=True)

    def _admit(self) -> Optional[bytes]:
        """The request's body if the table answers the request; else None, the refusal sent."""
        srv = self.server
        if not self.path.startswith("/"):  # (the base class has made a leading "//" one "/")
            return self._refuse(HTTPStatus.BAD_REQUEST, "the request target must be a path such as /state (RFC 9112 3.2.1)")
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1:
            return self._refuse(HTTPStatus.BAD_REQUEST, "a request needs exactly one Host header (RFC 9112 3.2)")
        if self.client_address[0] != "127.0.0.1" or hosts[0].lower() not in srv.hosts:
            return self._refuse(HTTPStatus.FORBIDDEN, f"this table answers loopback only, as {srv.origin}")
        if self.headers.get_all("Transfer-Encoding"):
            return self._refuse(HTTPStatus.LENGTH_REQUIRED, "a request body needs a Content-Length (Transfer-Encoding is not accepted)")
        lengths = self.headers.get_all("Content-Length") or []
        if len(lengths) > 1 or (lengths and not re.fullmatch(r"[0-9]{1,9}", lengths[0].strip())):
            return self._refuse(HTTPStatus.BAD_REQUEST, "a request body needs one Content-Length, a decimal number")
        n = int(lengths[0]) if lengths else 0
        if n > MAX_BODY:
            return self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"a request body is at most {MAX_BODY} bytes")
        if self.command == "GET" and n:
            return self._refuse(HTTPStatus.BAD_REQUEST, "a GET request has no body")
        page = self.command == "GET" and urlsplit(self.path).path == "/"
        if not (page and self.headers.get("Sec-Fetch-Mode", "navigate") == "navigate"):  # the page may be opened from anywhere
            origin, site = self.headers.get("Origin"), self.headers.get("Sec-Fetch-Site")
            if (origin is not None and origin.lower() not in srv.origins) or site not in (None, "same-origin", "none"):
                return self._refuse(HTTPStatus.FORBIDDEN, "this table answers its own page only, not another origin's")
        body = self.rfile.read(n) if n else b""
        if len(body) != n:  # the client is gone
            self.close_connection = True
            return None
        srv.waiting(self.connection, False)
        token = self.headers.get(TOKEN_HEADER, "").encode("latin-1", "replace")
        if not page and not hmac.compare_digest(token, srv.token.encode()):
            return self._refuse(HTTPStatus.FORBIDDEN, f"this table answers its own page only: the request lacks the page's {TOKEN_HEADER} (reload the page)")
        return body

    def _dispatch(self) -> None:
        body = self._admit()
        if body is None:
            return
        try:  # the answer is made under the table's lock; it is written after
            status, data, kind = self._answer(self.command, urlsplit(self.path).path, body)
        except IllegalFollow as e:
            ex = " ".join(map(str, e.example)) if e.example else None
            status, data, kind = HTTPStatus.CONFLICT, {"ok": False, "error": str(e), "rule": e.rule, "example": ex}, None
        except TractorError as e:
            status, data, kind = HTTPStatus.BAD_REQUEST, {"ok": False, "error": str(e)}, None
        except SaveFailed as e:
            status, data, kind = HTTPStatus.INTERNAL_SERVER_ERROR, {"ok": False, "saved": False, "error": f"{e}: nothing was changed"}, None
        except Exception as e:  # a fault of ours: said to the page, the server goes on
            status, data, kind = HTTPStatus.INTERNAL_SERVER_ERROR, {"ok": False, "error": f"{type(e).__name__}: {e}"}, None
        if kind is None:
            self._json(status, data)
        else:
            self._send(status, data, kind)

    do_GET = do_POST = _dispatch  # noqa: N815 - the base class's names

    def _answer(self, method: str, path: str, raw: bytes) -> Tuple[int, Any, Optional[str]]:
        """(status, the JSON document or the page's bytes, the page's type or None for JSON)."""
        t = self.server.table
        if method == "GET" and path == "/":
            page = render("table.html", "table.js", {"seat": t.seat, "policies": t.names, "token": self.server.token},
                          "tractor-engine table", connect=True)
            return HTTPStatus.OK, page.encode(), "text/html; charset=utf-8"
        if method == "GET" and path == "/state":
            return HTTPStatus.OK, t.state(), None
        if method == "GET" and path == "/record":
            rec = t.record()
            if rec is None:
                return HTTPStatus.FORBIDDEN, {"ok": False, "error": "the hand's record (every seat's cards) is given once the hand is over"}, None
            return HTTPStatus.OK, rec, None
        if method == "POST" and path in ("/check", "/act", "/next"):
            body = _json_object(raw)
            if path == "/check":
                return HTTPStatus.OK, t.check(_field(body, "action")), None
            if path == "/act":
                return HTTPStatus.OK, t.act(_field(body, "action"), body.get("version")), None
            return HTTPStatus.OK, t.next_hand(body.get("version")), None
        return HTTPStatus.NOT_FOUND, {"ok": False, "error": f"no such request: {method} {path}"}, None


def _json_object(raw: bytes) -> Dict[str, Any]:
    try:
        body = json.loads(raw)
    except RecursionError:
        raise InvalidArgument("the request body is not JSON this table reads: it is nested too deeply") from None
    except ValueError as e:
        raise InvalidArgument(f"the request body is not JSON: {e}") from None
    if not isinstance(body, dict):
        raise InvalidArgument("the request body must be a JSON object")
    return body


def _field(body: Dict[str, Any], key: str) -> str:
    v = body.get(key)
    if not isinstance(v, str):
        raise InvalidArgument(f"the request needs {key!r}: a text such as 'pass' or '9s 9s'")
    return v


_BUSY = b'{"ok": false, "error": "the table serves too many connections"}'


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, table: Table, port: int, verbose: bool) -> None:
        self.table, self.verbose = table, verbose
        self.token = secrets.token_urlsafe(32)
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._guard = threading.Lock()
        self._waiting: Dict[socket.socket, float] = {}  # connection -> since when it waits for a request
        super().__init__(("127.0.0.1", port), _Handler)
        p = self.server_port
        names = ["127.0.0.1", "localhost"]
        self.hosts = {f"{h}:{p}" for h in names} | (set(names) if p == 80 else set())
        self.origins = {f"http://{h}" for h in self.hosts}
        self.origin = f"http://127.0.0.1:{p}"

    def waiting(self, conn: socket.socket, yes: bool) -> None:
        with self._guard:
            if yes:
                self._waiting[conn] = time.monotonic()
            else:
                self._waiting.pop(conn, None)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            # full: the connection that has waited longest for its request makes room
            with self._guard:
                oldest = min(self._waiting, key=self._waiting.__getitem__, default=None)
                if oldest is not None:
                    del self._waiting[oldest]
            if oldest is not None:
                try:
                    oldest.shutdown(socket.SHUT_RDWR)  # its read ends: its thread gives its slot back
                except OSError:
                    pass
            if not self._slots.acquire(timeout=1.0):
                try:
                    request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
                                    b"Retry-After: 1\r\nContent-Length: %d\r\n\r\n%s" % (len(_BUSY), _BUSY))
                except OSError:
                    pass
                self.shutdown_request(request)
                return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if self.verbose:  # a client gone mid-answer is no fault of the table
            super().handle_error(request, client_address)


def serve(table: Table, port: int = 0, verbose: bool = False) -> "_Server":
    """A server for ``table`` on 127.0.0.1 (``port`` 0: a free one; ``server.server_port``
    says which; ``server.token`` is the secret its page holds). Start it with
    ``serve_forever()``; ``shutdown()`` and ``table.stop()`` stop it. Raises InvalidArgument
    (a port outside 0..65535) and OSError (the port is taken)."""
    port = _int(port, "port", 0, 65535)
    server = _Server(table, port, verbose)
    table.start()
    return server
