"""The viewer and the table in a real browser: Debian's headless Chromium driven by Selenium.

Skipped where Chromium, its driver or Selenium is missing, unless TRACTOR_BROWSER_TESTS=1
(CI sets it: there a missing browser fails). With TRACTOR_SCREENSHOTS=DIR the pictures in the
README are saved there (docs/img)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import tractor
from tractor.view import write_html
from tractor.view.server import TOKEN_HEADER, Table, serve
from tractor.view.saved import digest

sys.path.insert(0, os.path.dirname(__file__))
from test_records import GOLDEN_FILES  # noqa: E402
from _cli_util import _reset_sigint  # noqa: E402

REQUIRED = os.environ.get("TRACTOR_BROWSER_TESTS") == "1"
SHOTS = os.environ.get("TRACTOR_SCREENSHOTS")


def _browser_parts():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    try:
        import selenium  # noqa: F401
    except ImportError:
        return None, None, "selenium is not installed"
    if chromium is None or driver is None:
        return None, None, "Debian's chromium and chromium-driver are not installed"
    return chromium, driver, None


@pytest.fixture(scope="module")
def browser():
    chromium, driver, why = _browser_parts()
    if why is not None:
        if REQUIRED:
            pytest.fail(f"TRACTOR_BROWSER_TESTS=1 but {why}")
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000",
              "--no-first-run", "--disable-extensions"):
        opts.add_argument(a)
    opts.binary_location = chromium
    d = webdriver.Chrome(service=Service(driver), options=opts)
    d.set_page_load_timeout(30)
    try:
        yield d
    finally:
        d.quit()


def _by(d, testid):
    from selenium.webdriver.common.by import By

    return d.find_elements(By.CSS_SELECTOR, f'[data-testid="{testid}"]')


def _wait(cond, timeout=20.0, what="a condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _key(d, key):
    from selenium.webdriver.common.by import By

    d.find_element(By.TAG_NAME, "body").send_keys(key)


def _shot(d, name):
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        d.save_screenshot(str(Path(SHOTS) / name))


def _cards_text(el) -> list:
    from selenium.webdriver.common.by import By

    return [c.get_attribute("data-card") for c in el.find_elements(By.CSS_SELECTOR, ".card")]


# -- the viewer -----------------------------------------------------------------------------------

@pytest.mark.parametrize("fname", list(GOLDEN_FILES))
def test_viewer_shows_the_golden_hands(browser, tmp_path, fname):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    g = GOLDEN_FILES[fname]()
    page = tmp_path / "hand.html"
    write_html(page, g)
    d = browser
    d.get(page.as_uri())
    assert d.find_element(By.ID, "where").text.startswith("1 /")
    _key(d, Keys.END)
    n = int(d.find_element(By.TAG_NAME, "body").get_attribute("data-pos")) + 1
    assert d.find_element(By.ID, "where").text == f"{n} / {n}"
    # every trick: the plays, the winner, the points, as the engine has them
    for i, t in enumerate(g.tricks, 1):
        row = _by(d, f"trick-{i}")[0]
        assert row.find_element(By.CSS_SELECTOR, '[data-testid="trick-winner"]').text == str(t.winner)
        assert row.find_element(By.CSS_SELECTOR, '[data-testid="trick-points"]').text == str(t.points)
        want = " | ".join(f"{s}: " + " ".join(str(c) for c in cs) for s, cs in t.plays)
        assert row.find_element(By.CSS_SELECTOR, '[data-testid="trick-plays"]').text == want
    assert not _by(d, f"trick-{len(g.tricks) + 1}")
    r = g.result
    text = _by(d, "result")[0].text
    assert f"defenders' score {r.score}" in text and f"next banker seat {r.next_banker}" in text
    assert _by(d, "points")[0].text == str(g.defender_points)
    # jump to trick 3 and step back and forth with the keys
    from selenium.webdriver.support.ui import Select

    Select(d.find_element(By.ID, "jump")).select_by_value("3")
    plays = [_cards_text(_by(d, f"play-{s}")[0]) for s, _ in g.tricks[2].plays]
    assert plays == [[str(c) for c in cs] for _, cs in g.tricks[2].plays]
    assert "seat %d wins" % g.tricks[2].winner in _by(d, "trick-info")[0].text
    pos = int(d.find_element(By.TAG_NAME, "body").get_attribute("data-pos"))
    _key(d, Keys.ARROW_LEFT)
    assert int(d.find_element(By.TAG_NAME, "body").get_attribute("data-pos")) == pos - 1
    d.find_element(By.ID, "next").click()
    assert int(d.find_element(By.TAG_NAME, "body").get_attribute("data-pos")) == pos
    # the seat view: no other seat's card, only backs
    for seat in range(4):
        _key(d, str(seat))
        for other in range(4):
            panel = _by(d, f"seat-{other}")[0]
            cards = _cards_text(panel)
            if other == seat:
                assert "back" not in cards and len(cards) > 0
            else:
                assert set(cards) <= {"back"}
    _key(d, "w")
    if fname.startswith("guigang"):
        _shot(d, "viewer.png")


def test_viewer_hides_the_suit_until_the_reveal(browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    g = GOLDEN_FILES["guigang_seed7_policy11.txt"]()
    shows = g.showings()
    final = g.declarer
    other = (final + 1) % 4
    write_html(tmp_path / "h.html", g, seat=other)
    d = browser
    d.get((tmp_path / "h.html").as_uri())
    assert d.find_element(By.TAG_NAME, "body").get_attribute("data-viewer") == str(other)
    # step to the first showing: in another seat's view its suit is '?'
    body = d.find_element(By.TAG_NAME, "body")
    seen_hidden = False
    for _ in range(200):
        rows = _by(d, "showing")
        if rows and "the deal ends" not in _by(d, "label")[0].text:
            for row, sh in zip(rows, shows):
                suit = row.find_element(By.CSS_SELECTOR, '[data-testid="showing-suit"]')
                if sh.seat != other:
                    assert suit.text == "?" and suit.get_attribute("data-hidden") == "1"
                    seen_hidden = True
        if "the deal ends" in _by(d, "label")[0].text:
            break
        body.send_keys(Keys.ARROW_RIGHT)
    assert seen_hidden
    # after the reveal (R8.2) the final declarer's suit is shown
    last = _by(d, "showing")[-1].find_element(By.CSS_SELECTOR, '[data-testid="showing-suit"]')
    assert last.get_attribute("data-hidden") == "0"
    assert "trump" in _by(d, "trump")[0].text and "?" not in _by(d, "trump")[0].text


# -- the table ------------------------------------------------------------------------------------

class _Running:
    def __init__(self, table):
        self.table = table
        self.server = serve(table, 0)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/"

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.table.stop()


def _post(run, path, body, host=None):
    req = urllib.request.Request(run.url + path, data=json.dumps(body).encode() if not isinstance(body, bytes) else body,
                                 headers={"Content-Type": "application/json", TOKEN_HEADER: run.server.token}, method="POST")
    if host:
        req.add_header("Host", host)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _my_turn(d, t):
    """Waits until the page shows the person's turn (or the hand's end); returns the state."""
    def ready():
        st = t.state()
        body = d.find_element("tag name", "body")
        if st["result"] is not None or st["stopped"]:
            return st if _by(d, "result") else None
        if st["your_turn"] and body.get_attribute("data-version") == str(st["version"]) and body.get_attribute("data-turn") == "1":
            return st
        return None
    return _wait(ready, 60, "the person's turn")


def _click_cards(d, cards):
    """Clicks the hand's cards that make ``cards`` (a list of card strings)."""
    from selenium.webdriver.common.by import By

    for c in cards:  # each click redraws the hand: find the next card afresh
        found = _by(d, "hand")[0].find_elements(By.CSS_SELECTOR, f'.card.pick:not(.sel)[data-card="{c}"]')
        assert found, f"{c} is not in the drawn hand"
        found[0].click()


def test_play_a_whole_hand_by_clicking(browser, tmp_path):
    from selenium.webdriver.common.by import By

    t = Table(seat=0, opponents="greedy,greedy,greedy", seed=11, save_dir=str(tmp_path / "saves"))
    run = _Running(t)
    try:
        d = browser
        d.get(run.url)
        plays = illegal_seen = 0
        shot = False
        while True:
            st = _my_turn(d, t)
            if st["result"] is not None or st["stopped"]:
                break
            if st["phase"] == "declare":
                _by(d, "offer")[0].click()  # pass
            else:
                g = t.game.clone()
                legal = g.legal_actions()
                if not illegal_seen and g.current_trick and legal.count() < 5000:
                    # an illegal selection is explained, with the rule and an example, and changes nothing
                    hand = [str(c) for c in g.hand(0)]
                    n = len(g.current_trick[0][1])
                    bad = next((c for c in _subsets(hand, n) if tractor.parse(" ".join(c)) not in legal), None)
                    if bad is not None:
                        v = st["version"]
                        _click_cards(d, bad)
                        err = _wait(lambda: _by(d, "illegal"), 10, "the explanation")[0]
                        assert err.get_attribute("data-rule").startswith(("R5.2", "R5.3"))
                        assert _by(d, "example")[0].text
                        assert tractor.parse(_by(d, "example")[0].text) in legal
                        assert d.find_element(By.ID, "playbtn").get_attribute("disabled") is not None
                        assert t.version == v and t.game == g
                        if SHOTS:
                            _shot(d, "table.png")
                            shot = True
                        _by(d, "clear")[0].click()
                        illegal_seen += 1
                play = [str(c) for c in legal.sample(plays).cards]
                _click_cards(d, play)
                _wait(lambda: _by(d, "legal"), 10, "the selection to be checked")
                v = t.version
                d.find_element(By.ID, "playbtn").click()
                _wait(lambda: t.version > v, 10, "the play to arrive")
                plays += 1
        assert plays >= 20 and illegal_seen == 1 and (shot or not SHOTS)
        # the saved record is the game the server held
        saved = tmp_path / "saves" / "hand-0000.json"
        _wait(saved.exists, 10, "the saved hand")
        assert saved.read_text() == t.game.to_json()
        assert tractor.Game.from_json(saved.read_text()) == t.game
        # next hand: the finished one joins the saved match, from which a table resumes
        _by(d, "next-hand")[0].click()
        _wait(lambda: len(t.hands) == 1, 10, "the next hand")
        with t.lock:  # the match is saved under the lock
            doc = json.loads((tmp_path / "saves" / "match.json").read_text())
        assert doc["format"] == "tractor-engine/match" and len(doc["hands"]) == 1
        assert doc["hands"][0] == {"file": "hand-0000.json", "sha256": digest(saved.read_text())}
    finally:
        run.close()
    again = Table(resume=str(tmp_path / "saves" / "match.json"), save_dir=str(tmp_path / "saves"))
    assert again.match.levels == t.match.levels and again.seat == 0 and len(again.hands) == 1
    assert again.game == tractor.Game.from_record(doc["game"])


def _subsets(hand, n):
    import itertools

    seen = set()
    for c in itertools.combinations(range(len(hand)), n):
        key = tuple(sorted(hand[i] for i in c))
        if key not in seen:
            seen.add(key)
            yield list(key)
        if len(seen) > 3000:
            return


def test_search_bots_do_not_freeze_the_page_and_show_statistics(browser, tmp_path):
    t = Table(seat=1, opponents="ismcts:iterations=300,greedy,pimc:worlds=4,rollouts=2", seed=3)
    run = _Running(t)
    try:
        d = browser
        d.get(run.url)
        # the person's turns by the API; the bots search on their own thread meanwhile
        def decided():
            st = t.state()
            if st["last_decision"]:
                return st["last_decision"]
            if st["your_turn"]:
                g = t.game.clone()
                text = "pass" if g.phase == "declare" else str(g.legal_actions().sample(1))
                t.act(text, st["version"])
            return None

        t0 = time.monotonic()
        st = _wait(decided, 120, "a search decision")
        # while the hand is in play the candidates (the bot's hidden cards) are not shown
        assert st["policy"].startswith(("ismcts:", "pimc:")) and "stats" not in st and time.monotonic() - t0 < 120
        # while a search runs the page is answered at once
        a = time.monotonic()
        req = urllib.request.Request(run.url + "state", headers={TOKEN_HEADER: run.server.token})
        with urllib.request.urlopen(req, timeout=10) as r:
            json.loads(r.read())
        assert time.monotonic() - a < 2.0

        def over():  # the person plays on to the hand's end: then the candidates show
            st = t.state()
            if st["result"] is not None or st["stopped"]:
                return st
            if st["your_turn"]:
                t.act(str(t.game.clone().legal_actions().sample(1)) if st["phase"] == "play" else "pass", st["version"])
            return None

        assert _wait(over, 300, "the hand's end")["last_decision"]["stats"]
        from selenium.common.exceptions import StaleElementReferenceException

        # the page polls the state and re-renders: an element found may be gone when used
        def click_stats():
            try:
                for btn in _by(d, "show-bot-stats")[:1]:
                    btn.click()
                    return True
            except StaleElementReferenceException:
                pass
            return None

        def stats_text():  # the page shows the hand's end once it has polled the state again
            try:
                text = next((e.text for e in _by(d, "bot-stats") if e.is_displayed()), None)
            except StaleElementReferenceException:
                return None
            return text if text and '"stats"' in text else None

        _wait(click_stats, 20, "the statistics button")
        assert "visits" in _wait(stats_text, 20, "the statistics, once the page has the hand's end")
    finally:
        run.close()


def test_the_server_checks_every_request(tmp_path):
    t = Table(seat=0, opponents=["greedy"] * 3, seed=1)
    run = _Running(t)
    try:
        st = _wait(lambda: t.state() if t.state()["your_turn"] else None, 30, "seat 0's turn")
        before = t.game.to_json()
        # another host (a DNS-rebinding page) is refused
        code, body = _post(run, "act", {"action": "pass", "version": st["version"]}, host="evil.example:80")
        assert code == 403 and "loopback" in body["error"]
        # malformed requests: clear errors, nothing changed
        for bad in (b"not json", b"[1,2]", {"action": 3}, {"nothing": 1}):
            code, body = _post(run, "act", bad)
            assert code == 400 and body["ok"] is False and body["error"]
        code, body = _post(run, "act", {"action": "As As As As As", "version": st["version"]})
        assert code == 400 and body["ok"] is False
        code, body = _post(run, "act", {"action": "pass", "version": st["version"] + 5})
        assert code == 400 and "moved on" in body["error"]
        code, body = _post(run, "next", {"version": st["version"]})
        assert code == 400 and "not over" in body["error"]
        code, body = _post(run, "act", b"x" * 20000)
        assert code == 413
        assert t.game.to_json() == before
        req = urllib.request.Request(run.url + "state", headers={TOKEN_HEADER: run.server.token})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert json.loads(r.read())["version"] == st["version"]
    finally:
        run.close()


def test_cli_play_starts_and_stops_on_ctrl_c(tmp_path):
    import signal
    import subprocess

    p = subprocess.Popen([sys.executable, "-m", "tractor.cli", "play", "--no-browser", "--seed", "4", "--save", "s"],
                         cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=_reset_sigint)  # SIGINT at its default, however pytest was started
    try:
        line = p.stdout.readline()
        assert line.startswith("tractor table: http://127.0.0.1:"), line
        url = line.split()[2]
        with urllib.request.urlopen(url, timeout=10) as r:
            page = r.read().decode()
        assert "tractor-engine table" in page
        token = re.search(r'"token":"([^"]+)"', page).group(1)
        with urllib.request.urlopen(urllib.request.Request(url + "state", headers={TOKEN_HEADER: token}), timeout=10) as r:
            assert json.loads(r.read())["seat"] == 0
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        assert p.returncode == 0, err
        assert "stopped" in out and (tmp_path / "s" / "match.json").exists()
    finally:
        if p.poll() is None:
            p.kill()
    r = subprocess.run([sys.executable, "-m", "tractor.cli", "play", "--opponents", "greedy,nonsense,greedy", "--no-browser"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "opponents[1]" in r.stderr


# -- another origin's page, in the same browser, cannot play or read the table (issue 41) ---------

_ATTACK = """<!doctype html><meta charset="utf-8"><title>not the table</title><body>
<iframe name="sink" id="sink"></iframe><iframe id="framed"></iframe>
<script>
const T = %(targets)s, act = %(act)s, R = {};
window.results = R;
function note(k, v) { R[k] = v; }
async function tryRead(k, url, init) {
  try {
    const r = await fetch(url, init);
    let text = null;
    try { text = await r.text(); } catch (e) { text = "unreadable: " + e; }
    note(k, {type: r.type, status: r.status, text: text});
  } catch (e) { note(k, {error: String(e)}); }
}
function formPost(k, url, enctype) {  // a form may post across origins: what it sends, not what it reads
  return new Promise(done => {
    const f = document.createElement("form");
    f.method = "POST"; f.action = url; f.enctype = enctype; f.target = "sink";
    const i = document.createElement("input");
    const json = JSON.stringify(act);  // name=value becomes '{"action":...,"v":"=x"}' under text/plain
    i.name = json.slice(0, -1) + ',"v":"'; i.value = 'x"}';
    f.appendChild(i); document.body.appendChild(f);
    const sink = document.getElementById("sink");
    let fired = false;
    sink.onload = () => { if (!fired) { fired = true; note(k, "submitted"); done(); } };
    setTimeout(() => { if (!fired) { fired = true; note(k, "timeout"); done(); } }, 3000);
    f.submit();
  });
}
(async () => {
  const body = JSON.stringify(act);
  for (const base of T) {
    // a write with no read: a no-cors POST (text/plain: no preflight) and a beacon
    await tryRead(base + " act no-cors", base + "/act", {method: "POST", mode: "no-cors", body: body});
    await tryRead(base + " next no-cors", base + "/next", {method: "POST", mode: "no-cors", body: body});
    note(base + " beacon", navigator.sendBeacon(base + "/act", new Blob([body], {type: "text/plain"})));
    // the page's own header (preflighted: the server grants no CORS)
    await tryRead(base + " act with header", base + "/act", {method: "POST", mode: "cors", body: body,
        headers: {"Content-Type": "application/json", "X-Tractor-Table": "a-guess"}});
    // reads: the state, the record, the page that holds the secret
    for (const p of ["/state", "/record", "/"]) {
      await tryRead(base + " read " + p, base + p, {mode: "cors"});
      await tryRead(base + " opaque " + p, base + p, {mode: "no-cors"});
    }
    await formPost(base + " form text/plain", base + "/act", "text/plain");
    await formPost(base + " form urlencoded", base + "/act", "application/x-www-form-urlencoded");
  }
  // the table's page in a frame (it may not be framed), and its state as a script
  document.getElementById("framed").src = T[0] + "/";
  const s = document.createElement("script");
  s.src = T[0] + "/state";
  s.onerror = () => note("script /state", "error"); s.onload = () => note("script /state", "loaded");
  document.body.appendChild(s);
  await new Promise(r => setTimeout(r, 1000));
  try { note("framed text", document.getElementById("framed").contentDocument.body.innerText); }
  catch (e) { note("framed text", "unreadable: " + e); }
  window.done = true;
})();
</script>"""


def test_another_origins_page_in_chromium_cannot_play_or_read_the_table(browser):
    """A page from another local port, opened in the same Chromium, fires every request it can at
    the table (no-cors and preflighted fetches, a beacon, cross-origin form posts shaped as JSON,
    the page in a frame, the state as a script) with a legal play at the current version: the
    table answers each with a refusal, does not move, and the page reads nothing of it."""
    import http.server

    t = Table(seat=0, opponents="greedy,greedy,greedy", seed=5)
    run = _Running(t)
    seen = []

    class Seen(run.server.RequestHandlerClass):  # what the table answered, request by request
        def log_request(self, code="-", size="-"):
            seen.append((self.command, self.path, int(code), self.headers.get("Origin"), self.headers.get("Sec-Fetch-Site"),
                         self.headers.get("Sec-Fetch-Dest")))

    run.server.RequestHandlerClass = Seen
    port = run.server.server_port
    st = _wait(lambda: t.state() if t.state()["your_turn"] else None, 30, "seat 0's turn")
    with t.lock:
        g = t.game.clone()
        legal = g.legal_actions()
        act = {"action": "pass" if g.phase == "declare" else str(legal.sample(1)), "version": st["version"]}
        before, hand, v = t.game.to_json(), [str(c) for c in t.game.hand(0)], t.version
    page = (_ATTACK % {"targets": json.dumps([f"http://127.0.0.1:{port}", f"http://localhost:{port}"]),
                       "act": json.dumps(act)}).encode()

    class Attacker(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def do_POST(self):  # noqa: N802 - the forms' sink, should one land here
            self.do_GET()

        def log_message(self, *a):
            pass

    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    threading.Thread(target=evil.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    d = browser
    try:
        d.get(f"http://127.0.0.1:{evil.server_port}/")
        _wait(lambda: d.execute_script("return window.done === true"), 30, "the attacker's page to finish")
        results = d.execute_script("return window.results")
        time.sleep(0.5)  # a beacon may land after the page is done
        # the table did not move: the same version, the same hand, the seat's same cards
        with t.lock:
            assert t.version == v and t.game.to_json() == before and [str(c) for c in t.game.hand(0)] == hand
        # the requests reached the table, and every one was refused
        acts = [s for s in seen if s[1] in ("/act", "/next") and s[0] == "POST"]
        assert len(acts) >= 6 and {s[1] for s in acts} == {"/act", "/next"}, seen
        assert {"/state", "/record", "/"} <= {s[1] for s in seen}, seen
        # (but the frame's navigation to the page, which the page's X-Frame-Options keeps from showing)
        served = [s for s in seen if s[2] not in (403, 501)]
        assert served in ([], [("GET", "/", 200, None, "same-site", "iframe")]), served
        # and the page read nothing: no answer, no secret, no card
        text = json.dumps(results)
        assert run.server.token not in text and "hand_ids" not in text and '"phase"' not in text, results
        for k, r in results.items():
            if isinstance(r, dict) and "text" in r:
                assert r["type"] == "opaque" and r["status"] == 0 and r["text"] == "", (k, r)
        assert results["framed text"].startswith("unreadable") or results["framed text"] == "", results["framed text"]
        # the table's own page still plays
        code, body = _post(run, "act", act)
        assert code == 200 and body["ok"] and t.version > v
    finally:
        d.get("about:blank")
        evil.shutdown()
        evil.server_close()
        run.close()
