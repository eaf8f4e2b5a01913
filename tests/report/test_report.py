"""`pingpong report`: static HTML opened from disk in headless Chromium: the leaderboards, the weight
selector's reranking (checked against `compute_leaderboard` for every published weighting), a player's
grid, a conversation page with its scores, user text kept as text, nothing fetched from outside."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from pingpong.sessions.leaderboard import compute_leaderboard
from pingpong.sessions.scoring import PUBLISHED_WEIGHTS
from pingpong.sessions.store import Store
from tests.report.conftest import (
    CHROMIUM,
    FLAGS,
    INJECTED,
    PRICE,
    REASON,
    RUN,
    Tables,
    dump_dom,
    needs_chromium,
    pingpong,
    screenshot,
)
from tests.tui.test_serve import DevTools, _wait_for


def board_rows(html: str, method: str = "pingpong") -> list[list[str]]:
    return Tables(html).tables[f"board-{method}"][1:]  # without the header row


def expected(home, weights) -> list[tuple[str, str, str, str]]:
    """(rank, player, length-norm, final) as the CLI's leaderboard computes them."""
    with Store(home.db_path) as store:
        rows = compute_leaderboard(store, method="pingpong", weights=weights)
    return [(str(r.rank), r.player, f"{r.length_norm:.2f}", f"{r.final:.2f}") for r in rows]


def shown(rows: list[list[str]]) -> list[tuple[str, str, str, str]]:
    return [(r[0], r[1], r[3].split(" ")[0], r[4].split(" ")[0]) for r in rows]


@needs_chromium
def test_index_shows_every_methods_leaderboard(written, built, tmp_path):
    html = dump_dom(written / "index.html", tmp_path / "profile")
    page = Tables(html)
    assert {"board-pingpong", "board-pingpong-v1", "board-dmt", "board-rolebench"} <= set(page.tables)
    rows = board_rows(html)
    assert shown(rows) == expected(built, (1, 1, 1))
    assert [r[1] for r in rows] == ["model-b", "model-a", "model-c"]
    assert page.tables["board-pingpong"][0][-2:] == ["Cost", "Player's"]  # model-a has a price
    cost = (3000 * PRICE[0] + 300 * PRICE[1]) * 2 / 1e6  # two sessions, turns 1 and 2
    assert next(r for r in rows if r[1] == "model-a")[-1] == f"${cost:.4f}"
    assert [r[1] for r in board_rows(html, "pingpong-v1")] == ["offline"]
    assert "<svg" in html and "polyline" in html  # the score-by-turn plot, inline
    assert any(link.startswith("players/model-a-") for link in page.links)


@needs_chromium
@pytest.mark.parametrize("name", list(PUBLISHED_WEIGHTS))
def test_each_published_weighting_ranks_as_the_leaderboard_does(written, built, tmp_path, name):
    weights = PUBLISHED_WEIGHTS[name]
    html = dump_dom(written / "index.html", tmp_path / "profile", "#weights=" + ",".join(f"{w:g}" for w in weights))
    assert shown(board_rows(html)) == expected(built, weights)
    shown_weights = ", ".join(f"{w:g}" for w in weights)
    assert f'<output id="weights-now" for="weighting">ranked by: {name} ({shown_weights})</output>' in html


@needs_chromium
def test_switching_weights_changes_the_order_and_custom_weights_work(written, built, tmp_path):
    equal = [r[1] for r in board_rows(dump_dom(written / "index.html", tmp_path / "p1"))]
    in_character = [r[1] for r in board_rows(dump_dom(written / "index.html", tmp_path / "p2", "#weights=2,1,1"))]
    assert equal == ["model-b", "model-a", "model-c"]
    assert in_character == ["model-a", "model-b", "model-c"]
    html = dump_dom(written / "index.html", tmp_path / "p3", "#weights=0,0,1")
    custom = board_rows(html)
    assert shown(custom) == expected(built, (0, 0, 1))
    assert all("±" not in r[4] for r in custom)  # intervals only for the published weightings
    assert "ranked by: custom (0, 0, 1)" in html


@needs_chromium
def test_player_grid_and_conversation_page(written, tmp_path):
    index = Tables(dump_dom(written / "index.html", tmp_path / "p1"))
    player_link = next(link for link in index.links if link.startswith("players/model-a-"))
    grid_html = dump_dom(written / player_link, tmp_path / "p2")
    grid = Tables(grid_html)
    table = next(t for t in grid.tables.values() if t[0][0].startswith("character"))
    assert table[0][1:] == ["big-order", "storm-warning"]
    assert [row[0] for row in table[1:]] == ["harbour-keeper", "night-baker"]
    cells = [cell for row in table[1:] for cell in row[1:]]
    assert len([c for c in cells if c]) == 2
    rated = re.fullmatch(r"#(\d+) 3\.67\*", next(c for c in cells if "*" in c))  # a person changed a score
    assert rated, cells
    session_link = f"../sessions/{rated.group(1)}.html"
    assert session_link in grid.links
    html = dump_dom((written / "players" / session_link).resolve(), tmp_path / "p3")
    page = Tables(html)
    judges = [t for t in page.tables.values() if t[0][:2] == ["Judge", "Metric"]]
    people = [t for t in page.tables.values() if t[0][:2] == ["Person", "Metric"]]
    assert len(judges) == 2  # turns 1 and 2
    assert ["judge-x", "in_character", "5", "{{ 7*7 }} in the judge's words"] in judges[0]
    assert ["judge-y", "entertaining", "2", "judge-y found turn 2 lively"] in judges[1]
    assert people and people[0][1][:4] == ["rater-one", "in_character", "4", "first thought"]
    assert people[0][2][:4] == ["rater-two", "in_character", "5", REASON]
    assert "(replaced)" in people[0][1][4]
    assert "<svg" in html and "The judges' mean score by turn" in html


@needs_chromium
def test_user_text_stays_text(written, tmp_path):
    sessions = sorted((written / "sessions").glob("*.html"))
    page = next(p for p in sessions if "pwned" in p.read_text(encoding="utf-8"))
    html = dump_dom(page, tmp_path / "profile")
    parsed = Tables(html)
    assert "pwned" not in parsed.title  # neither the script nor the image's handler ran
    assert "&lt;script&gt;" in html and "<script>document.title" not in html
    assert INJECTED not in html
    failed = next(p for p in sessions if "judge-y gave no JSON" in p.read_text(encoding="utf-8"))
    assert "failed" in failed.read_text(encoding="utf-8")


def test_nothing_is_fetched_from_anywhere(written):
    for page in written.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"<(script|img|link|iframe)[^>]*\s(src|href)=", text), page
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), page
        assert "@import" not in text and "url(" not in text, page


def test_run_filter_and_bad_input(built, tmp_path):
    result = pingpong(built.root, "report", "--out", str(tmp_path / "one-run"), "--run", RUN)
    assert result.rc == 0, result.err
    assert "wrote 6 conversation(s) of 3 player(s)" in result.out
    index = (tmp_path / "one-run" / "index.html").read_text(encoding="utf-8")
    assert 'id="board-pingpong"' in index and 'id="board-dmt"' not in index
    assert len(list((tmp_path / "one-run" / "sessions").glob("*.html"))) == 6

    missing = pingpong(built.root, "report", "--out", str(tmp_path / "x"), "--run", "no-such-run")
    assert missing.rc == 2 and missing.err.count("\n") == 1 and "no-such-run" in missing.err
    a_file = tmp_path / "a-file"
    a_file.write_text("", encoding="utf-8")
    blocked = pingpong(built.root, "report", "--out", str(a_file))
    assert blocked.rc == 2 and blocked.err == f"pingpong: error: --out: {a_file} is a file, not a folder\n"


def test_an_empty_database_still_writes_a_page(tmp_path):
    result = pingpong(tmp_path / "home", "report", "--out", str(tmp_path / "out"))
    assert result.rc == 0, result.err
    assert "No sessions yet" in (tmp_path / "out" / "index.html").read_text(encoding="utf-8")


@needs_chromium
def test_screenshots_show_a_rendered_page(written, tmp_path):
    for page in (written / "index.html", next((written / "sessions").glob("*.html"))):
        png = screenshot(page, tmp_path / "profile", tmp_path / "shot.png")
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000  # text, tables and a plot, not blank


@needs_chromium
async def test_the_selector_and_the_inputs_rerank_in_the_browser(written, built, tmp_path):
    """Driven as a person would: pick a weighting in the select, then type custom weights."""
    profile = tmp_path / "profile"
    proc = await asyncio.create_subprocess_exec(
        CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank",
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port_file = profile / "DevToolsActivePort"

    async def devtools_up() -> bool:
        return port_file.exists() and len(port_file.read_text().split()) >= 2

    order_js = ("JSON.stringify(Array.from(document.querySelectorAll('#board-pingpong tbody tr'))"
                ".map(tr => [tr.cells[0].textContent, tr.cells[1].textContent]))")
    try:
        await _wait_for(devtools_up)
        port = int(port_file.read_text().split()[0])
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/json/list") as response:
                target = next(t for t in await response.json() if t["type"] == "page")
            async with session.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                tools = DevTools(ws)
                await tools.call("Page.navigate", url=(written / "index.html").resolve().as_uri())

                async def loaded() -> bool:
                    return await tools.evaluate("document.readyState") == "complete"

                await _wait_for(loaded)
                assert [p for _, p in json.loads(await tools.evaluate(order_js))] == ["model-b", "model-a", "model-c"]
                await tools.evaluate("const s = document.getElementById('weighting');"
                                     " s.value = 'in_character x2'; s.dispatchEvent(new Event('change'))")
                picked = json.loads(await tools.evaluate(order_js))
                assert [(rank, p) for rank, p, *_ in expected(built, PUBLISHED_WEIGHTS["in_character x2"])] == \
                    [tuple(r) for r in picked]
                assert await tools.evaluate("location.hash") == "#weights=2,1,1"
                await tools.evaluate("for (const [name, v] of [['in_character', 0], ['entertaining', 1],"
                                     " ['fluency', 0]]) { const i = document.querySelector(`input[name=${name}]`);"
                                     " i.value = v; i.dispatchEvent(new Event('input')) }")
                typed = json.loads(await tools.evaluate(order_js))
                assert [(rank, p) for rank, p, *_ in expected(built, (0, 1, 0))] == [tuple(r) for r in typed]
                assert await tools.evaluate("document.getElementById('weighting').value") == "custom"
    finally:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 20)
        except TimeoutError:
            proc.kill()
            await proc.wait()


@needs_chromium
def test_each_language_is_ranked_on_its_own_in_the_page(tmp_path):
    """Rows per (player, lang): the page reranks each language apart, as the leaderboard does."""
    from pingpong.core.home import Home

    root = tmp_path / "home"
    root.mkdir()
    (root / "config.toml").write_text('[models.offline-b]\nkind = "offline"\n', encoding="utf-8")
    for lang in ("en", "ru"):
        done = pingpong(root, "run", "--player", "offline", "--player", "offline-b", "--interrogator", "offline",
                        "--judge", "offline", "--lang", lang, "--every", "6")
        assert done.rc == 0, done.err
    assert pingpong(root, "report", "--out", str(tmp_path / "out")).rc == 0
    for weights in ((1, 1, 1), (0, 0, 1)):
        html = dump_dom(tmp_path / "out" / "index.html", tmp_path / f"p{weights[0]}", "#weights=" + ",".join(map(str, weights)))
        with Store(Home(root).db_path) as store:
            want = [(str(r.rank), r.player, r.lang, f"{r.final:.2f}") for r in compute_leaderboard(store, weights=weights)]
        assert [(r[0], r[1], r[2], r[4].split(" ")[0]) for r in board_rows(html)] == want
        assert [lang for _, _, lang, _ in want] == ["en", "en", "ru", "ru"]


def test_the_score_by_turn_plot_draws_a_line_per_player_and_language(tmp_path):
    """Each language is a board of its own: its plot does not average a player's en and ru turns."""
    from pingpong.core.home import Home
    from pingpong.sessions.curves import score_by_turn
    from pingpong.sessions.report import collect

    root = tmp_path / "home"
    for lang in ("en", "ru"):
        done = pingpong(root, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
                        "--lang", lang, "--every", "6")
        assert done.rc == 0, done.err
    with Store(Home(root).db_path) as store:
        (board,) = collect(store).boards
        assert board.by_turn == {f"offline ({lang})": score_by_turn(store, lang=lang)["offline"] for lang in ("en", "ru")}
        assert board.by_turn["offline (en)"] != board.by_turn["offline (ru)"]


@needs_chromium
def test_the_roleinteract_board_shows_its_dimensions_as_the_cli_does(tmp_path):
    root = tmp_path / "home"
    done = pingpong(root, "run", "--method", "roleinteract", "--player", "offline", "--interrogator", "offline",
                    "--judge", "offline", "--lang", "en", "--every", "3")
    assert done.rc == 0, done.err
    board = json.loads(pingpong(root, "leaderboard", "--method", "roleinteract", "--format", "json").out)
    assert pingpong(root, "report", "--out", str(tmp_path / "out")).rc == 0
    table = Tables(dump_dom(tmp_path / "out" / "index.html", tmp_path / "profile")).tables["board-roleinteract"]
    (row,) = board
    assert table[0][:4] == ["Rank", "Player", "Lang", "Mean"] and table[0][-2:] == ["Unparseable", "Questions"]
    assert table[1][:4] == ["1", "offline", "en", f"{row['score']:.3f}"]
    assert table[1][-2:] == [str(row["unparseable"]), str(sum(row["questions"].values()))]
    assert len(table[0]) == 6 + len(row["dimensions"])


def _scored_home(root, turns: dict[str, list[tuple[int, int, int]]]):
    """A home with one session per player whose turns a judge scores as given (in_character,
    entertaining, fluency per turn); every reply has the same length, so the length rule is neutral."""
    from pingpong.core.domain import Message, SessionSpec, Situation
    from pingpong.core.home import Home
    from tests.report.conftest import KEEPER
    from tests.scores import judged, turn_scores

    home = Home(root)
    home.ensure()
    with Store(home.db_path) as store:
        for player, scores in turns.items():
            sit = Situation(name="long-talk", lang="en", num_turns=len(scores), text="Talk for a long while.")
            spec = SessionSpec(character=KEEPER.name, situation=sit.name, player=player, interrogator="asker",
                               judges=["judge-x"], lang="en")
            sid = store.create_session(spec, KEEPER, sit)
            for turn in range(1, len(scores) + 1):
                store.add_message(sid, Message(turn=turn, role="user", author="asker", text=f"Question {turn}?"))
                store.add_message(sid, Message(turn=turn, role="assistant", author=player, text="A reply. " * 8))
            store.add_verdict(sid, judged("judge-x", [
                turn_scores(t, is_refusal=False, in_character=ic, entertaining=en, fluency=fl)
                for t, (ic, en, fl) in enumerate(scores, 1)]))
            store.set_status(sid, "finished")
    return home


@needs_chromium
def test_tied_players_share_a_rank_and_the_next_is_numbered_by_position(tmp_path):
    """Competition ranks (1, 1, 3) in the page, as `pingpong leaderboard` numbers them; the tie is
    judged on scores rounded to two decimals (4.00 and 3.9375 -> 3.94 are 0.06 apart: shared)."""
    home = _scored_home(tmp_path / "home", {"tie-a": [(4, 4, 4)] * 48,
                                            "tie-b": [(3, 4, 4)] * 9 + [(4, 4, 4)] * 39,
                                            "last": [(2, 2, 2)] * 48})
    assert pingpong(home.root, "report", "--out", str(tmp_path / "out")).rc == 0
    for weights in ("1,1,1", "2,1,1"):
        board = json.loads(pingpong(home.root, "leaderboard", "--format", "json", "--weights", weights).out)
        html = dump_dom(tmp_path / "out" / "index.html", tmp_path / f"p{weights}", "#weights=" + weights)
        assert [(r[0], r[1]) for r in board_rows(html)] == [(str(r["rank"]), r["player"]) for r in board]
    assert [r["rank"] for r in json.loads(pingpong(home.root, "leaderboard", "--format", "json").out)] == [1, 1, 3]


RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE, never closed: it would reverse whatever follows it in its paragraph
READING_ORDER = """<script>
/* For each element that holds user text beside the page's own, whether its parts show in reading
   order: a part on the same line as the one before it must start right of where that one ends. */
(function () {
  var checked = 0, reversed = [];
  document.querySelectorAll("title ~ *, h1, nav.crumbs, dl.facts dd, .msg .who, .msg .text bdi, #players li, header p, td, th")
    .forEach(function (el) {
      var before = null;
      el.childNodes.forEach(function (node) {
        if (!node.textContent.trim()) { return; }
        var range = document.createRange();
        range.selectNode(node);
        var rects = Array.prototype.filter.call(range.getClientRects(), function (r) { return r.width > 0; });
        if (!rects.length) { return; }
        var first = rects[0], last = rects[rects.length - 1];
        if (before && Math.abs(first.top - before.top) < 2) {
          checked += 1;
          if (first.left < before.right - 1) { reversed.push(el.textContent.trim()); }
        }
        before = last;
      });
    });
  document.body.setAttribute("data-order", JSON.stringify({checked: checked, reversed: reversed}));
})();
</script>"""


def reading_order(page, profile) -> dict:
    """What READING_ORDER finds on a copy of the page (the report itself has no script there)."""
    probe = page.with_name(f"probe-{page.name}")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", READING_ORDER + "</body>"), encoding="utf-8")
    html = dump_dom(probe, profile)
    found = re.search(r'data-order="([^"]*)"', html)
    assert found, html[-2000:]
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


@needs_chromium
def test_a_bidi_override_in_user_text_never_reverses_the_page_around_it(tmp_path):
    from pingpong.core.domain import Character, Message, SessionSpec, Situation
    from pingpong.core.home import Home
    from tests.scores import judged, turn_scores

    home = Home(tmp_path / "home")
    home.ensure()
    card = Character(name="evil-card", char_name=f"Evil {RLO}RTL", lang="en", summary="s", persona="p")
    sit = Situation(name="evil-sit", lang="en", num_turns=1, text=f"Ask {RLO}backwards. Then more.")
    player = f"model\u2069{RLO}-x"  # a stray POP DIRECTIONAL ISOLATE must not end the isolation early
    with Store(home.db_path) as store:
        spec = SessionSpec(character=f"evil {RLO}card", situation=f"evil {RLO}sit", player=player,
                           interrogator=f"asker{RLO}-y", judges=[f"judge{RLO}-z"], lang="en")
        sid = store.create_session(spec, card, sit, store.run_id(f"run {RLO}one"))
        store.add_message(sid, Message(turn=1, role="user", author=f"asker{RLO}-y", text=f"Who are you, {RLO}Evil?"))
        store.add_message(sid, Message(turn=1, role="assistant", author=player, text=f"I am Evil {RLO}RTL."))
        store.add_verdict(sid, judged(f"judge{RLO}-z", [turn_scores(
            1, is_refusal=False, in_character=4, entertaining=3, fluency=5,
            explanations={"in_character": f"stays {RLO}in role"})]))
        store.add_human_score(sid, 1, "fluency", 4, f"rater{RLO}-w", f"reads {RLO}well")
        store.set_status(sid, "finished")
    out = tmp_path / "out"
    assert pingpong(home.root, "report", "--out", str(out)).rc == 0
    pages = [out / "index.html", *(out / "players").glob("*.html"), out / "sessions" / f"{sid}.html"]
    for n, page in enumerate(pages):
        found = reading_order(page, tmp_path / f"p{n}")
        assert found["checked"] >= 2 and found["reversed"] == [], (page.name, found)
    title = Tables((out / "sessions" / f"{sid}.html").read_text(encoding="utf-8")).title
    assert f"\u2068evil {RLO}card\u2069" in title and f"\u2068evil {RLO}sit\u2069" in title  # isolated in the tab too
    text = Tables((out / "sessions" / f"{sid}.html").read_text(encoding="utf-8")).texts
    assert "I am Evil ⟨RLO⟩RTL." in text and RLO not in text  # the reply's own override is named, not obeyed


def test_a_new_report_in_an_old_reports_folder_leaves_none_of_its_stale_pages(built, tmp_path):
    """The pages an earlier report wrote and the new one does not have go; what a person put there stays."""
    out = tmp_path / "site"
    assert pingpong(built.root, "report", "--out", str(out)).rc == 0
    everything = {p.name for p in (out / "sessions").glob("*.html")}
    mine = {out / "notes.html": "<p>mine</p>", out / "sessions" / "notes.txt": "mine",
            out / "sessions" / "999999.html": "<html>a page of mine named like a session</html>",
            out / "players" / "someone-0123abcd.html": "<html>mine too</html>"}
    for path, text in mine.items():
        path.write_text(text, encoding="utf-8")
    result = pingpong(built.root, "report", "--out", str(out), "--run", RUN)
    assert result.rc == 0, result.err
    assert "wrote 6 conversation(s) of 3 player(s)" in result.out
    left = {p.name for p in (out / "sessions").glob("*.html")}
    assert len(left - {"999999.html"}) == 6 and len(everything) > 6 and left - {"999999.html"} < everything
    players = sorted(p.name for p in (out / "players").glob("*.html"))
    assert [name.rsplit("-", 1)[0] for name in players] == ["model-a", "model-b", "model-c", "someone"]
    assert all(path.read_text(encoding="utf-8") == text for path, text in mine.items())
    index = Tables((out / "index.html").read_text(encoding="utf-8"))
    assert all((out / link).is_file() for link in index.links if link.startswith("players/"))


def test_a_symlink_in_the_reports_folder_is_replaced_not_written_through(tmp_path):
    """A report or export written into a shared folder (/tmp) must not overwrite what a planted
    link points to; the pages come out readable by others as any file the user writes (umask)."""
    victim = tmp_path / "precious.txt"
    victim.write_text("precious", encoding="utf-8")
    out = tmp_path / "shared"
    (out / "sessions").mkdir(parents=True)
    (out / "index.html").symlink_to(victim)
    export = tmp_path / "export.jsonl"
    export.symlink_to(victim)
    home = tmp_path / "home"
    assert pingpong(home, "report", "--out", str(out)).rc == 0
    assert pingpong(home, "export", "--format", "jsonl", "--out", str(export)).rc == 0
    assert victim.read_text(encoding="utf-8") == "precious"
    index = out / "index.html"
    assert not index.is_symlink() and "No sessions yet" in index.read_text(encoding="utf-8")
    assert not export.is_symlink() and (index.stat().st_mode & 0o777) == 0o666 & ~_umask()
    assert [p.name for p in out.iterdir() if p.name.endswith(".partial")] == []


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_report_killed_while_it_writes_leaves_the_earlier_one_whole(tmp_path):
    """Pages are written under hidden names and put in place together at the end: a kill on the
    way leaves the earlier report as it was (not its pages beside newer ones), and the next report
    removes what the killed one left."""
    home, out = tmp_path / "home", tmp_path / "out"
    seats = ["--player", "offline", "--interrogator", "offline", "--judge", "offline"]
    assert pingpong(home, "run", *seats, "--every", "2").rc == 0
    assert pingpong(home, "report", "--out", str(out)).rc == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert pingpong(home, "run", *seats, "--every", "1").rc == 0  # more sessions: new pages, a new index

    root = str(Path(__file__).resolve().parents[2])
    proc = subprocess.Popen([sys.executable, "-m", "pingpong", "--home", str(home), "report", "--out", str(out)],
                            cwd=root, env={**os.environ, "PYTHONPATH": root},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not any(p.name.endswith(".partial") for p in (out / "sessions").iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline, "the report ended before a page was staged"
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    visible = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and not p.name.endswith(".partial")}
    assert visible == before
    assert any(p.name.endswith(".partial") for p in out.rglob("*"))

    assert pingpong(home, "report", "--out", str(out)).rc == 0
    assert not any(p.name.endswith(".partial") for p in out.rglob("*"))
    assert len(list((out / "sessions").iterdir())) > len([p for p in before if p.parent.name == "sessions"])


def test_an_export_removes_what_a_killed_export_of_the_same_file_left(tmp_path):
    home, out = tmp_path / "home", tmp_path / "exports"
    out.mkdir()
    left = out / ".all.jsonl.90910cfb.partial"  # as a SIGKILL mid-export leaves it
    left.write_text("half of it", encoding="utf-8")
    other = out / ".notes.txt.0123abcd.partial"  # another file's: not this export's to remove
    other.write_text("keep", encoding="utf-8")
    mine = out / "all.jsonl.partial"  # a name of the user's own
    mine.write_text("keep", encoding="utf-8")
    assert pingpong(home, "export", "--format", "jsonl", "--out", str(out / "all.jsonl")).rc == 0
    assert not left.exists() and other.exists() and mine.exists() and (out / "all.jsonl").is_file()
