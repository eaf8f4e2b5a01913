"""A database for the HTML report: three players scored so that the published weightings rank them
differently, people's scores, a failed judge turn, text that tries to be markup, priced calls, and
real offline runs of the other methods; then `pingpong report` writes it once per test module."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pingpong.core.domain import CallRecord, Character, Message, SessionSpec, Situation
from pingpong.core.home import Home
from pingpong.sessions.store import Store
from tests.runner.conftest import pingpong
from tests.scores import judged, turn_scores

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian package `chromium`)")

RUN = "weights-demo"
PRICE = (2.0, 8.0)  # model-a's price per million tokens
INJECTED = '<script>document.title = "pwned"</script><img src="x" onerror="document.title = \'pwned\'">'
REASON = "<b>bold?</b> {{ 7*7 }} stays text"
# (in_character, entertaining, fluency) every judge gives each player's turns, and its reply length
PLAYERS = {"model-a": ((5, 2, 4), 160), "model-b": ((3, 5, 4), 60), "model-c": ((4, 3, 2), 80)}

KEEPER = Character(name="harbour-keeper", char_name="Oona Marsh", lang="en",
                   summary="A harbour master who counts every boat twice.",
                   persona="Oona Marsh runs a small northern harbour. She is brisk, precise and fond of tide tables.")
BAKER = Character(name="night-baker", char_name="Teodor Pell", lang="en",
                  summary="A baker who works while the town sleeps.",
                  persona="Teodor bakes from midnight to dawn and hums old marching songs while he kneads.")
STORM = Situation(name="storm-warning", lang="en", num_turns=2,
                  text="A storm is coming; ask whether the boats should stay in harbour.")
ORDER = Situation(name="big-order", lang="en", num_turns=2,
                  text="Order three hundred rolls for a wedding tomorrow morning.")


def _session(store: Store, run_id: int, player: str, card: Character, sit: Situation) -> int:
    (ic, en, fl), length = PLAYERS[player]
    spec = SessionSpec(character=card.name, situation=sit.name, player=player, interrogator="asker",
                       judges=["judge-x", "judge-y"], lang="en")
    sid = store.create_session(spec, card, sit, run_id)
    for turn in (1, 2):
        text = f"Question {turn} for {card.char_name}?"
        if player == "model-b" and card is KEEPER and turn == 1:
            text = INJECTED
        store.add_message(sid, Message(turn=turn, role="user", author="asker", text=text))
        store.add_message(sid, Message(turn=turn, role="assistant", author=player,
                                       text=(f"Reply {turn} of {card.char_name}. " * 20)[:length]))
        if player == "model-a":
            store.add_call(sid, CallRecord(role="player", model=player, turn=turn, status="ok",
                                           prompt_tokens=1000 * turn, completion_tokens=100 * turn))
    for judge in ("judge-x", "judge-y"):
        turns = [turn_scores(t, is_refusal=False, in_character=ic, entertaining=en, fluency=fl,
                             explanations={"in_character": "{{ 7*7 }} in the judge's words",
                                           "entertaining": f"{judge} found turn {t} lively"})
                 for t in (1, 2)]
        if player == "model-c" and judge == "judge-y" and card is BAKER:
            turns[1] = turn_scores(2, status="failed", error="judge-y gave no JSON")
        store.add_verdict(sid, judged(judge, turns))
    store.set_status(sid, "finished")
    return sid


def build(root: Path) -> Home:
    home = Home(root)
    home.ensure()
    home.config_path.write_text(
        f'[models.model-a]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "a"\n'
        f"price = {{ input = {PRICE[0]}, output = {PRICE[1]} }}\n", encoding="utf-8")
    with Store(home.db_path) as store:
        run_id = store.run_id(RUN)
        ids = {(p, c.name): _session(store, run_id, p, c, s)
               for p in PLAYERS for c, s in ((KEEPER, STORM), (BAKER, ORDER))}
        first = ids[("model-a", KEEPER.name)]
        store.add_human_score(first, 1, "in_character", 4, "rater-one", "first thought", created_at="2026-01-01T10:00:00")
        store.add_human_score(first, 1, "in_character", 5, "rater-two", REASON, created_at="2026-01-02T10:00:00")
    for extra in (("--method", "pingpong-v1", "--every", "16"), ("--method", "dmt", "--every", "24"),
                  ("--method", "rolebench", "--every", "60")):
        result = pingpong(root, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
                          *extra)
        assert result.rc == 0, result.err
    return home


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Home:
    return build(tmp_path_factory.mktemp("report") / "home")


@pytest.fixture(scope="module")
def written(built, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("out") / "my report"
    result = pingpong(built.root, "report", "--out", str(out))
    assert result.rc == 0, result.err
    return out


def dump_dom(page: Path, profile: Path, fragment: str = "") -> str:
    """The DOM of a file:// page after its scripts ran, as headless Chromium serialises it."""
    assert CHROMIUM is not None
    url = page.resolve().as_uri() + fragment
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def screenshot(page: Path, profile: Path, png: Path, size: str = "1280,1000") -> bytes:
    assert CHROMIUM is not None
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={size}",
                           "--hide-scrollbars", f"--screenshot={png}", page.resolve().as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return png.read_bytes()


class Tables(HTMLParser):
    """Every table of a page as rows of cell texts, by the table's id; every link's href; its text."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.links: list[str] = []
        self.title = ""
        self.texts = ""  # the text of the page outside its <title>
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._in_title = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._table = a.get("id") or f"table-{len(self.tables)}"
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self.tables[self._table].append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []
        elif tag == "a" and a.get("href"):
            self.links.append(a["href"])
        elif tag == "title":
            self._in_title = True

    def handle_endtag(self, tag):
        if tag == "table":
            self._table = None
        elif tag in ("td", "th") and self._cell is not None and self._table is not None:
            self.tables[self._table][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._in_title:
            self.title += data
        else:
            self.texts += data
