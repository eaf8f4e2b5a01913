"""The Agreement screen shows the numbers `pingpong agreement --format json` gives on the same
database, at either level and in a language, and says how to rate when nobody has."""

from __future__ import annotations

import json

from textual.widgets import Static

from pingpong.tui.cli import main
from pingpong.tui.screens.agreement import AgreementScreen
from pingpong.tui.screens.leaderboard import LeaderboardScreen
from tests.stats.conftest import add_session
from tests.stats.test_agreement_extras import populate
from tests.tui.conftest import write_session
from tests.tui.helpers import home_loaded, run_palette_command, wait_for


def cli_json(home, capsys, *options: str) -> dict:
    capsys.readouterr()
    assert main(["agreement", "--format", "json", "--home", str(home.root), *options]) == 0
    return json.loads(capsys.readouterr().out)


def shown_spearman(screen: AgreementScreen) -> dict[tuple[str, str, str], tuple[str, str, str]]:
    """{(table, who, metric): (n, spearman, p-value)} of every Spearman table on screen."""
    out = {}
    for title, rows in screen.tables():
        if "Spearman" in title and "among people" not in title:
            table = "annotators" if title.startswith("Each person") else "spearman"
            out.update({(table, who, metric): (n, rho, p) for who, metric, n, rho, p in rows})
    return out


def expected_spearman(report: dict) -> dict[tuple[str, str, str], tuple[str, str, str]]:
    def f(value, digits):
        return "-" if value is None else f"{value:.{digits}f}"

    out = {}
    for table, role in (("spearman", "judge"), ("annotators", "author")):
        out.update({(table, r[role], r["metric"]): (str(r["n"]), f(r["spearman"], 3), f(r["p_value"], 4))
                    for r in report[table]})
    return out


async def open_from_board(pilot) -> AgreementScreen:
    await home_loaded(pilot)
    await pilot.press("l")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, LeaderboardScreen))
    await pilot.press("a")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, AgreementScreen) and pilot.app.screen.report is not None)
    return pilot.app.screen


async def test_the_numbers_are_the_clis_at_both_levels(app, home, store, capsys):
    populate(store)
    for i, (ic, en) in enumerate(((4, 3), (2, 2), (5, 4))):  # people's turn scores too: the turn level has rows
        store.add_human_score(i + 1, 1, "in_character", ic, "dana")
        store.add_human_score(i + 1, 1, "entertaining", en, "dana")
    turn, conversation = cli_json(home, capsys), cli_json(home, capsys, "--level", "conversation")
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_from_board(pilot)
        assert screen.report.level == "turn"
        await wait_for(pilot, lambda: bool(screen.tables()))
        assert shown_spearman(screen) == expected_spearman(turn) and turn["spearman"]
        await pilot.press("l")
        await wait_for(pilot, lambda: screen.report.level == "conversation" and "conversation level" in
                       screen.tables()[0][0])
        assert shown_spearman(screen) == expected_spearman(conversation) and conversation["annotators"]
        people = dict(screen.tables())["Agreement among people"]
        assert [(r[0], r[3]) for r in people] == [(r["metric"], f"{r['alpha']:.3f}")
                                                 for r in conversation["krippendorff_alpha"]]
        assert "level: conversation" in str(screen.query_one("#agreement-note", Static).render())
        await pilot.press("l")
        await wait_for(pilot, lambda: screen.report.level == "turn")


async def test_the_language_key_filters_as_lang_does(app, home, store, capsys):
    populate(store)
    ru = add_session(store, "P", {"J1": [(4, 4, 4, 0), (2, 2, 2, 0)], "J2": [(3, 3, 3, 0), (1, 1, 1, 0)]},
                     lang="ru")
    store.add_human_score(ru, None, "in_character", 5, "ann")
    expected = expected_spearman(cli_json(home, capsys, "--level", "conversation", "--lang", "en"))
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_from_board(pilot)
        await pilot.press("l")
        await wait_for(pilot, lambda: screen.report.level == "conversation" and len(screen.langs) == 3)
        await pilot.press("g")  # all -> en
        await wait_for(pilot, lambda: "language: en" in str(screen.query_one("#agreement-note", Static).render()))
        assert shown_spearman(screen) == expected


async def test_without_peoples_scores_it_says_how_to_get_them(app, store):
    write_session(store)
    write_session(store, player="rival")
    async with app.run_test(size=(80, 24)) as pilot:
        await home_loaded(pilot)
        await run_palette_command(pilot, "agreement")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, AgreementScreen)
                       and pilot.app.screen.report is not None)
        screen = pilot.app.screen
        empty = screen.query_one("#agreement-empty", Static)
        assert empty.display
        text = str(empty.render())
        assert "No turns carry both a person's score and a judge's yet" in text
        assert "a on Home" in text and "pingpong sessions score" in text
        assert not any("Judges vs people" in title for title, _ in screen.tables())
        await pilot.press("l")
        await wait_for(pilot, lambda: "No conversations carry" in str(empty.render()))
