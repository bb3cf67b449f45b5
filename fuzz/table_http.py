"""Coverage-guided fuzzing (atheris) of the HTTP surface of ``tractor play``'s table
(``tractor.view.server``): raw requests built by the fuzzer, sent over a socket to a real server
on a free loopback port, with greedy bots playing the other three seats.

Each input is one connection carrying one to three requests (pipelined), each request built from
the input: the method, the target (the table's paths, other paths, absolute-form, ``*``, queries,
junk), the ``Host`` (the table's, ``localhost``, another host or port, none, two), the ``Origin``
and ``Sec-Fetch-Site``/``Sec-Fetch-Mode`` (same origin, another site, ``null``, none), the
secret ``X-Tractor-Table`` (right, wrong, cut, none, twice), ``Content-Length`` (right, wrong,
signed, huge, twice, none), ``Transfer-Encoding``, extra header lines from the input, and a body:
a JSON object with a legal action of the person's seat at this moment (or text from the input,
or a value of another type) and the current version (or a stale one, or another type), deeply
nested JSON, or raw bytes. The client then half-closes and reads everything until the server
closes.

A finding (an AssertionError, so atheris stops and writes the input):

- a 500 answer (there is no save folder, so no answer may be a 500);
- an exception on a server thread (``handle_error``) or on any thread (``threading.excepthook``)
  other than a connection the client broke, or the bots stopping with an error;
- a hang: no end of the answers within ``HANG`` seconds of the half-close;
- a leak: an answered state while the hand is in play that holds more than what the person's seat
  knows (a key outside ``describe``'s and the table's, a search's candidates), or a ``/record``
  answer that is not a finished hand;
- an action applied without the secret: when no request of the input carried the right
  ``X-Tractor-Table`` with the table's Host and no other-site header, the person's seat made no
  play and no hand was dealt.

Run it for an hour with

    pip install atheris
    mkdir -p /tmp/fuzz-table /tmp/fuzz-table-artifacts
    python fuzz/table_http.py -max_total_time=3600 -rss_limit_mb=4096 -timeout=60 \\
        -artifact_prefix=/tmp/fuzz-table-artifacts/ /tmp/fuzz-table

(``python fuzz/table_http.py FILE`` replays one finding). See FUZZING.md for the runs so far.
"""

from __future__ import annotations

import json
import socket
import sys
import threading

import atheris

with atheris.instrument_imports(include=["tractor", "http"]):
    from tractor.describe import describe
    from tractor.view.server import TOKEN_HEADER, Table, serve

HANG = 12.0  # seconds: past CLIENT_TIMEOUT (10 s), which a half-closed client never waits on

ERRORS: list = []
TABLE: Table = None  # type: ignore[assignment]
SERVER = None
PORT = 0
TOKEN = ""
STATE_KEYS: set = set()
TABLE_KEYS = {"version", "hand_ids", "trumps", "cards", "match_levels", "match_hand", "match_over", "policies", "thinking",
              "error", "last_decision", "saved", "offers"}


def _record_error(request, client_address) -> None:  # the server's handle_error
    e = sys.exc_info()[1]
    if not isinstance(e, (ConnectionError, TimeoutError)):
        ERRORS.append(f"server thread: {type(e).__name__}: {e}")


def _excepthook(args) -> None:
    if not isinstance(args.exc_value, (ConnectionError, TimeoutError)):
        ERRORS.append(f"thread {args.thread.name if args.thread else '?'}: {args.exc_type.__name__}: {args.exc_value}")


def _setup() -> None:
    global TABLE, SERVER, PORT, TOKEN, STATE_KEYS
    TABLE = Table(seat=0, opponents="greedy,greedy,greedy", seed=1)
    SERVER = serve(TABLE, 0)
    SERVER.handle_error = _record_error
    threading.excepthook = _excepthook
    PORT, TOKEN = SERVER.server_port, SERVER.token
    threading.Thread(target=SERVER.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    STATE_KEYS = set(json.loads(describe(TABLE.game, 0, limit=0))) | TABLE_KEYS


METHODS = ["GET", "POST", "HEAD", "PUT", "OPTIONS", "DELETE", "get", "PATCH", "CONNECT", "TRACE"]
PATHS = ["/", "/state", "/record", "/act", "/check", "/next", "/act?x=1", "/state#f", "//state", "/%2e%2e/act", "/act/",
         "*", "http://127.0.0.1:{port}/act", "http://evil.example/state", "evil.example/act", "", "/\x00", "/é", "/" + "a" * 70000]
HOSTS = ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "127.0.0.1", "evil.example:{port}", "127.0.0.1:{other}",
         "127.0.0.1:{port}@evil.example", "", None, "twice"]
ORIGINS = [None, None, "http://127.0.0.1:{port}", "http://localhost:{port}", "http://evil.example", "null",
           "http://127.0.0.1:{other}", "HTTP://127.0.0.1:{port}", ""]
SITES = [None, None, "same-origin", "none", "cross-site", "same-site", ""]
MODES = [None, None, "navigate", "no-cors", "cors", "same-origin"]


def _legal(fdp: "atheris.FuzzedDataProvider") -> str:
    g = TABLE.game.clone()
    if g.phase == "declare":
        offers = [str(a) for a in g.legal_actions()] if g.current_player == 0 else []
        return ["pass"] + offers[: 3]
    try:
        legal = g.legal_actions()
        n = legal.count()
        return [str(legal[fdp.ConsumeIntInRange(0, max(0, min(n, 50) - 1))])] if n else ["pass"]
    except Exception:  # not the seat's turn, the hand over: any text
        return ["pass"]


def _body(fdp: "atheris.FuzzedDataProvider", version: int) -> bytes:
    k = fdp.ConsumeIntInRange(0, 9)
    if k <= 4:  # an action of the seat, mostly legal, at the current version
        doc: dict = {}
        a = fdp.ConsumeIntInRange(0, 5)
        if a <= 2:
            doc["action"] = fdp.PickValueInList(_legal(fdp)) if a <= 1 else fdp.ConsumeUnicode(20)
        elif a == 3:
            doc["action"] = fdp.PickValueInList([3, None, [], {}, True, 1.5, ["pass"]])
        v = fdp.ConsumeIntInRange(0, 6)
        if v <= 3:
            doc["version"] = version
        elif v == 4:
            doc["version"] = fdp.PickValueInList([version - 1, version + 1, -1, 2**70, float(version), str(version), None, True])
        if fdp.ConsumeBool():
            doc[fdp.ConsumeUnicode(5)] = fdp.ConsumeUnicode(5)
        return json.dumps(doc).encode()
    if k == 5:  # nested
        d = fdp.ConsumeIntInRange(1, 20000)
        return fdp.PickValueInList([b"[" * d + b"]" * d, b'{"a":' * d + b"1" + b"}" * d, b"[" * d])
    if k == 6:
        return json.dumps(fdp.PickValueInList([[1, 2], "pass", 3, None, {"action": "pass"}])).encode()
    if k == 7:
        return b""
    return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 200))


def _fmt(s: str, other: int) -> str:
    return s.replace("{port}", str(PORT)).replace("{other}", str(other))


def _request(fdp: "atheris.FuzzedDataProvider", version: int):
    """(the request's bytes, whether it may act: the right secret, Host and no other-site header)."""
    other = (PORT % 60000) + 1
    method = fdp.PickValueInList(METHODS) if fdp.ConsumeIntInRange(0, 9) else fdp.ConsumeUnicode(8)
    target = _fmt(fdp.PickValueInList(PATHS), other) if fdp.ConsumeIntInRange(0, 9) else fdp.ConsumeUnicode(30)
    proto = fdp.PickValueInList(["HTTP/1.1", "HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.10", "", "http/1.1"])
    lines = [f"{method} {target} {proto}".rstrip() if proto else f"{method} {target}"]
    host = fdp.PickValueInList(HOSTS)
    good = host is not None and host in ("127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}")
    if host == "twice":
        lines += [f"Host: 127.0.0.1:{PORT}"] * 2
    elif host is not None:
        lines.append("Host: " + _fmt(host, other))
    origin = fdp.PickValueInList(ORIGINS)
    if origin is not None:
        lines.append("Origin: " + _fmt(origin, other))
        good = good and origin in ("http://127.0.0.1:{port}", "http://localhost:{port}", "HTTP://127.0.0.1:{port}")
    site = fdp.PickValueInList(SITES)
    if site is not None:
        lines.append("Sec-Fetch-Site: " + site)
        good = good and site in ("same-origin", "none")
    mode = fdp.PickValueInList(MODES)
    if mode is not None:
        lines.append("Sec-Fetch-Mode: " + mode)
    t = fdp.ConsumeIntInRange(0, 7)
    if t <= 3:
        lines.append(f"{TOKEN_HEADER}: {TOKEN}")
    elif t == 4:
        lines.append(f"{TOKEN_HEADER}: {TOKEN[:-1]}")
        good = False
    elif t == 5:
        lines += [f"{TOKEN_HEADER}: {TOKEN}", f"{TOKEN_HEADER}: x"]
    else:
        good = False
    body = _body(fdp, version)
    c = fdp.ConsumeIntInRange(0, 9)
    if c <= 5:
        lines.append(f"Content-Length: {len(body)}" if body or c else "")
    elif c == 6:
        lines.append("Content-Length: " + fdp.PickValueInList([str(len(body) + 5), str(max(0, len(body) - 3)), "-1", "+%d" % len(body),
                                                               "1" * 30, "0x10", " %d " % len(body), "%d, %d" % (len(body), len(body))]))
    elif c == 7:
        lines += [f"Content-Length: {len(body)}"] * 2
    elif c == 8:
        lines.append("Transfer-Encoding: " + fdp.PickValueInList(["chunked", "identity", "gzip, chunked", ""]))
        if fdp.ConsumeBool():
            body = b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"
    if fdp.ConsumeIntInRange(0, 3) == 0:
        lines.append(fdp.PickValueInList(["Connection: close", "Connection: keep-alive", "Expect: 100-continue",
                                          "Content-Type: text/plain", "X: " + "y" * 70000]))
    for _ in range(fdp.ConsumeIntInRange(0, 2) if fdp.ConsumeIntInRange(0, 4) == 0 else 0):
        lines.append(fdp.ConsumeUnicode(30))
    head = "\r\n".join(lines).encode("utf-8", "surrogatepass") + b"\r\n\r\n"
    return head + body, good


def _answers(raw: bytes):
    """The (status, body) of each answer in ``raw`` that has a Content-Length."""
    out = []
    while raw.startswith(b"HTTP/"):
        head, sep, rest = raw.partition(b"\r\n\r\n")
        if not sep:
            break
        first = head.split(b"\r\n")[0].split(b" ")
        status = int(first[1]) if len(first) > 1 and first[1].isdigit() else -1
        n = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                n = int(v.strip())
        out.append((status, rest[:n]))
        raw = rest[n:]
    return out


def _person_moves() -> tuple:
    with TABLE.lock:
        rec = TABLE.game.record()
        return len(TABLE.hands), sum(1 for a in rec["actions"] if a[0] == 0)


def _check_answer(status: int, body: bytes) -> None:
    assert status != 500, f"a 500: {body[:300]!r}"
    if status != 200 or not body.startswith(b"{"):
        return
    doc = json.loads(body)
    if "hand_ids" in doc:  # a state
        assert set(doc) <= STATE_KEYS, f"a state with keys {set(doc) - STATE_KEYS}"
        if doc["result"] is None and not doc["stopped"]:
            assert "stats" not in (doc["last_decision"] or {}), "a search's candidates while its hand is in play"
    elif "actions" in doc:  # a record: a finished hand only
        assert doc.get("result") is not None or doc.get("stopped"), "a record of a hand in play"


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    reqs, may_act = [], False
    for _ in range(fdp.ConsumeIntInRange(1, 3)):
        r, good = _request(fdp, TABLE.version)
        reqs.append(r)
        may_act = may_act or good
    before = _person_moves()
    s = socket.create_connection(("127.0.0.1", PORT), timeout=HANG)
    raw = b""
    try:
        try:
            s.sendall(b"".join(reqs))
            s.shutdown(socket.SHUT_WR)
        except OSError:  # BrokenPipe, ConnectionReset, ENOTCONN: the server closed first
            pass  # refused mid-send (a body too large, a bad head): the answer is still read
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, BrokenPipeError):
                break
            except socket.timeout:
                raise AssertionError(f"a hang: no end of the answers within {HANG} s; got {raw[:300]!r}") from None
            if not chunk:
                break
            raw += chunk
    finally:
        s.close()
    for status, body in _answers(raw):
        _check_answer(status, body)
    if not may_act:
        after = _person_moves()
        assert after == before, f"the table moved without the secret: {before} -> {after}"
    if TABLE.error is not None or TABLE.stopped:
        ERRORS.append(f"the bots stopped: {TABLE.error}")
    if ERRORS:
        raise AssertionError("; ".join(ERRORS))
    if TABLE.match.over:  # a new match: the fuzzer keeps playing hands
        _restart()


def _restart() -> None:
    global TABLE
    SERVER.table.stop()
    TABLE = Table(seat=0, opponents="greedy,greedy,greedy", seed=TABLE.seed + 1)
    SERVER.table = TABLE
    TABLE.start()


if __name__ == "__main__":
    _setup()
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
