"""The leaderboard of player models and a score-by-turn plot, computed in a thread."""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message as TMessage
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static
from textual_plotext import PlotextPlot

from pingpong.tui.widgets.tables import SizedTable
from pingpong.tui.worker_store import WorkerStore

SOURCES = ("merged", "judges", "human")
LANGS = (None, "en", "ru")
COLUMNS = {"#": 3, "player": 12, "conv": 5, "refus": 5, "IC": 4, "EN": 4, "FL": 4, "final": 9,
           "len-norm": 9, "len": 4}
"""Column widths are fixed (they fit 80 columns): the layout never waits on the data."""


class BoardLoaded(TMessage):
    def __init__(self, rows: list[Any], curves: dict | None, error: str | None) -> None:
        super().__init__()
        self.rows = rows
        self.curves = curves
        self.error = error


def _f(value: Any, digits: int = 2) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _pm(value: Any, ci: Any) -> str:
    if value is None:
        return ""
    return f"{value:.2f}±{ci:.2f}" if ci is not None else f"{value:.2f}"


class LeaderboardScreen(Screen):
    """m switches the scores used (merged / judges / human), g the language."""

    BINDINGS = [
        Binding("m", "source", "Scores", tooltip="Scores: judges, people or merged", id="board.scores"),
        Binding("g", "lang", "Language", tooltip="Language filter", id="board.lang"),
        Binding("f5", "reload", "Reload", id="board.reload"),
        Binding("escape,q", "back", "Back", id="board.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.source = 0
        self.lang = 0
        self.rows: list[Any] = []
        self._store = WorkerStore(lambda: self.app.open_store())

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="board-note")
        yield SizedTable(id="board-table", cursor_type="row", zebra_stripes=True)
        yield PlotextPlot(id="board-plot")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.sub_title = "leaderboard"
        table = self.query_one(DataTable)
        for col, width in COLUMNS.items():
            table.add_column(col, key=col, width=width)
        self.action_reload()

    def on_unmount(self) -> None:
        self._store.close()

    def action_reload(self) -> None:
        self.query_one("#board-note", Static).update(f"computing ({self._describe()})…")
        self.compute(SOURCES[self.source], LANGS[self.lang])

    def _describe(self) -> str:
        return f"scores: {SOURCES[self.source]}, language: {LANGS[self.lang] or 'all'}"

    @work(thread=True, exclusive=True, group="board", exit_on_error=False)
    def compute(self, scores: str, lang: str | None) -> None:
        from pingpong.sessions.curves import score_by_turn
        from pingpong.sessions.leaderboard import compute_leaderboard

        with self._store.use() as store:
            try:
                rows = compute_leaderboard(store, lang=lang, scores=scores)
            except Exception as exc:  # a bad database is a message on screen, not a crash
                self.post_message(BoardLoaded([], None, str(exc)))
                return
            curves, error = None, None
            try:
                curves = score_by_turn(store, lang=lang)
            except Exception as exc:
                error = f"score-by-turn plot unavailable: {exc}"
        self.post_message(BoardLoaded(rows, curves, error))

    def on_board_loaded(self, message: BoardLoaded) -> None:
        self.rows = message.rows
        table = self.query_one(DataTable)
        table.clear()
        for r in message.rows:
            table.add_row(
                str(r.rank or ""), r.player, str(r.conversations), _f(r.refusal_ratio),
                _f(r.in_character), _f(r.entertaining), _f(r.fluency), _pm(r.final, r.final_ci),
                _pm(r.length_norm, r.length_norm_ci), _f(r.avg_length, 0), key=r.player,
            )
        note = self._describe() + "   (IC in_character, EN entertaining, FL fluency)"
        if not message.rows:
            note = "No judged sessions yet: finish a session (n on the home screen) to fill the board.  " + note
        if message.error:
            note += f"\n{message.error}"
        self.query_one("#board-note", Static).update(note)
        self._plot(message.curves or {})

    def _plot(self, curves: dict) -> None:
        widget = self.query_one(PlotextPlot)
        plt = widget.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title("mean final score by turn")
        plt.xlabel("turn")
        last, top = 1, 0.0
        for player, points in sorted(curves.items()):
            pts = [(int(t), float(v)) for t, v in points if v is not None]
            if pts:
                last = max(last, pts[-1][0])
                top = max(top, *(v for _, v in pts))
                plt.plot([t for t, _ in pts], [v for _, v in pts], label=str(player), marker="dot")
        plt.xticks(list(range(1, last + 1)))
        plt.ylim(1, 5 if top <= 5 else 10)  # the whole scale (1-5, or 1-10 for version 1), not the data's span
        widget.refresh()

    def action_source(self) -> None:
        self.source = (self.source + 1) % len(SOURCES)
        self.action_reload()

    def action_lang(self) -> None:
        self.lang = (self.lang + 1) % len(LANGS)
        self.action_reload()

    def action_back(self) -> None:
        self.app.pop_screen()
