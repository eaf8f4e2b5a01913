"""The leaderboard of player models and a score-by-turn plot, computed in a thread.

d goes through the methods' boards: PingPong (final score by turn), DMT-RoleBench, which plots each
player's DMT curve Score_1..Score_T (of all metrics, their mean at each tau, or, c, of one),
RoleInteract and RoleBench (shares and Rouge-L means with their intervals: rules score them, so
there is nothing by turn to plot) and PingPong version 1 (1-10 scale).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message as TMessage
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static
from textual_plotext import PlotextPlot

from pingpong.tui.widgets.footer import KeysFooter
from pingpong.tui.widgets.tables import SizedTable
from pingpong.tui.worker_store import WorkerStore

if TYPE_CHECKING:
    from collections.abc import Callable

    from pingpong.tui.app import PingPongApp

SOURCES = ("merged", "judges", "human")
LANGS = (None, "en", "ru")
"""What `g` cycles through before the stored languages are read: all, then the bundled cards' languages."""
BOARDS = ("pingpong", "dmt", "roleinteract", "rolebench", "pingpong-v1")
RULE_BOARDS = ("roleinteract", "rolebench")
"""Boards of rule-scored methods: their columns come from the CLI's table (tui/commands/*_board.py)."""
COLUMNS = {"#": 3, "player": 6, "conv": 5, "refus": 5, "IC": 4, "EN": 4, "FL": 4, "final": 9,
           "len-norm": 9, "len": 4}
"""Column widths are set before the rows go in (the layout never waits on DataTable's measuring); the
player's is its longest name's, from the header's width up to PLAYER_CAP or, wider, the room the screen has."""
DMT_COLUMNS = {"#": 3, "player": 6, "lang": 4, "conv": 5, "DMT-Score": 13, "metrics": 7, "T": 3}
PLAYER_CAP = 32


def cut_middle(name: str, width: int) -> str:
    """The name in `width` characters: its middle gives way to an ellipsis, so its start and its end
    (the "(en)" or "(ru)" that tells a model's rows apart) stay."""
    if len(name) <= width:
        return name
    tail = (width - 1) // 2
    return name[:width - 1 - tail] + "…" + name[len(name) - tail:]


class LanguagesLoaded(TMessage):
    """The languages stored sessions are in (read in a worker): what `g` cycles through."""

    def __init__(self, langs: list[str]) -> None:
        super().__init__()
        self.langs = langs


class BoardLoaded(TMessage):
    """A board's rows (and curves) computed in the worker; `langs`: the languages the method's stored
    sessions are in, read when there are no rows (the empty note says what the filters leave out)."""

    def __init__(self, rows: list[Any], curves: dict | None, error: str | None, board: str = "pingpong",
                 langs: list[str] | None = None) -> None:
        super().__init__()
        self.rows = rows
        self.curves = curves
        self.error = error
        self.board = board
        self.langs = langs


def _stored_langs(store, method: str, rows: list[Any]) -> list[str] | None:
    """The languages the method's sessions are in, read only for an empty board (its note names them)."""
    from pingpong.sessions.queries import languages

    return None if rows else languages(store.conn, method)


def empty_note(board: str, scores: str, lang: str | None, stored: list[str] | None,
               key: Callable[[str, str], str]) -> str:
    """Why a board has no rows: the language filter (`g`) when no session of the method is in `lang`,
    people's scores (`m`) when no session of it was scored by a person, else that there are no scored
    sessions yet and how to make some. `stored`: the languages the method's sessions are in; `key`:
    the key a binding has now (app.shown_key)."""
    where = f" in {lang}" if lang else ""
    if lang and stored and lang not in stored:
        return (f"No {board} sessions in {lang}; stored languages: {', '.join(stored)} "
                f"({key('board.lang', 'g')} switches the language).")
    if scores == "human":
        rate = key("replay.override", "o")
        how = f"{rate} on a replay" if board in RULE_BOARDS else f"pingpong annotate, or {rate} on a replay"
        return (f"No sessions people scored in this board{where} yet: rate some ({how}), "
                f"or {key('board.scores', 'm')} for the other scores.")
    if board in ("pingpong", "pingpong-v1"):
        return (f"No judged sessions{where} yet: finish a session ({key('home.new', 'n')} on the home "
                "screen) to fill the board.")
    if board == "dmt":
        return f"No labelled dmt sessions{where} yet: run `pingpong run --method dmt ...` to fill the board."
    return f"No finished {board} sessions{where} yet: run `pingpong run --method {board} ...` to fill the board."


def _f(value: Any, digits: int = 2) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _pm(value: Any, ci: Any) -> str:
    if value is None:
        return ""
    return f"{value:.2f}±{ci:.2f}" if ci is not None else f"{value:.2f}"


class LeaderboardScreen(Screen):
    """m switches the scores used (merged / judges / human), g the language, d the method's board;
    on the DMT board c picks the plotted metric; v shows judged pairs side by side."""

    PLACE_ACTIONS = ("leaderboard", "dmt_leaderboard")
    """The palette's ways here (tui/palette.py): not offered while this screen is open."""

    app: PingPongApp

    BINDINGS = [
        Binding("m", "source", "Scores", tooltip="Scores: judges, people or merged", id="board.scores"),
        Binding("g", "lang", "Language", tooltip="Language filter", id="board.lang"),
        Binding("v", "app.compare", "Versus", show=False, tooltip="Judged pairs side by side", id="board.compare"),
        Binding("d", "board", "Board", id="board.method",
                tooltip="next method's board: PingPong, DMT, RoleInteract, RoleBench, PingPong v1"),
        Binding("a", "app.agreement", "Agreement", show=False, id="board.agreement",
                tooltip="Agreement: judges against people, and with each other"),
        Binding("c", "curve", "Curve", id="board.curve", tooltip="which DMT metric's curve to plot"),
        Binding("f5", "reload", "Reload", id="board.reload"),
        Binding("escape,q", "back", "Back", id="board.back"),
    ]

    def __init__(self, board: str = "pingpong") -> None:
        super().__init__()
        self.source = 0
        self.lang = 0  # an index into self.langs
        self.langs: tuple[str | None, ...] = LANGS
        self.board = board
        self.curve: str | None = None  # the DMT metric plotted; None: all metrics' mean
        self.rows: list[Any] = []
        self._shown: tuple[str, int] | None = None  # the board whose columns the table has, its player width
        self._loaded: BoardLoaded | None = None  # the board shown last (drawn again when the room for names changes)
        self._store = WorkerStore(lambda: self.app.open_store())

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="board-note")
        yield SizedTable(id="board-table", cursor_type="row", zebra_stripes=True)
        yield PlotextPlot(id="board-plot")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.sub_title = "leaderboard"
        self.action_reload()
        self.load_languages()

    @work(thread=True, group="board-langs", exit_on_error=False)
    def load_languages(self) -> None:
        from pingpong.sessions.queries import languages

        with self._store.use() as store:
            self.post_message(LanguagesLoaded(languages(store.conn)))

    def on_languages_loaded(self, message: LanguagesLoaded) -> None:
        """`g` goes through every language a session is in (a user's own cards may add de or fr),
        keeping the one shown."""
        if message.langs:
            shown = self.langs[self.lang]
            self.langs = (None, *message.langs)
            self.lang = self.langs.index(shown) if shown in self.langs else 0

    def _player_width(self, board: str, players: list[str]) -> int:
        """As wide as the longest name, up to PLAYER_CAP or the room the other columns leave, if more."""
        widths = DMT_COLUMNS if board == "dmt" else COLUMNS
        pad = 2 * self.query_one(DataTable).cell_padding
        room = self.size.width - sum(w + pad for col, w in widths.items() if col != "player") - pad - 2  # scrollbar
        return min(max(PLAYER_CAP, room), max([widths["player"], *map(len, players)]))

    def _columns(self, board: str, players: list[str]) -> list[str]:
        """The board's columns, the player's as wide as _player_width; the names as they fit it."""
        widths = dict(DMT_COLUMNS if board == "dmt" else COLUMNS)
        widths["player"] = self._player_width(board, players)
        fitted = [cut_middle(p, widths["player"]) for p in players]
        if self._shown == (board, widths["player"]):
            return fitted
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.fixed_columns = 2  # rank and player stay while a narrow terminal scrolls the scores
        for col, width in widths.items():
            table.add_column(col, key=col, width=width)
        self._shown = (board, widths["player"])
        return fitted

    def _players(self, message: BoardLoaded) -> list[str]:
        """The player names a PingPong or DMT board shows, before they are fitted to the column."""
        if message.board == "dmt":
            return [r.player for r in message.rows]
        several = len({r.lang for r in message.rows}) > 1  # each language is ranked on its own
        return [f"{r.player} ({r.lang})" if several else r.player for r in message.rows]

    def on_resize(self) -> None:
        """Long names take the room a wider screen has (and give it back)."""
        loaded = self._loaded
        if loaded is None or loaded.board in RULE_BOARDS or self._shown is None:
            return
        if self._player_width(loaded.board, self._players(loaded)) != self._shown[1]:
            self.on_board_loaded(loaded)

    def on_unmount(self) -> None:
        self._store.close()

    def action_reload(self) -> None:
        self.query_one("#board-note", Static).update(f"computing ({self._describe()})…")
        self.compute(SOURCES[self.source], self.langs[self.lang], self.board)

    def _describe(self) -> str:
        scores = SOURCES[self.source]
        if self.board == "rolebench":  # its "judge" is the Rouge-L rule
            scores = {"merged": "Rouge-L, or a person's", "judges": "Rouge-L", "human": "people's"}[scores]
        return f"{self.board}, scores: {scores}, language: {self.langs[self.lang] or 'all'}"

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "curve":  # a DMT board with rows: nothing to plot over an empty one
            return self.board == "dmt" and bool(self.rows)
        return True

    @work(thread=True, exclusive=True, group="board", exit_on_error=False)
    def compute(self, scores: str, lang: str | None, board: str = "pingpong") -> None:
        from pingpong.sessions.curves import lines_by_lang
        from pingpong.sessions.leaderboard import compute_leaderboard

        if board == "dmt":
            self._compute_dmt(scores, lang)
            return
        if board in RULE_BOARDS:
            self._compute_rules(board, scores, lang)
            return
        with self._store.use() as store:
            try:
                rows = compute_leaderboard(store, method=board, lang=lang, scores=scores)
            except Exception as exc:  # a bad database is a message on screen, not a crash
                self.post_message(BoardLoaded([], None, str(exc), board))
                return
            curves, error = None, None
            try:  # a curve per row: per (player, lang), as each language is a board of its own
                langs = [lang] if lang is not None else list(dict.fromkeys(r.lang for r in rows))
                curves = lines_by_lang(store, method=board, langs=langs, scores=scores)
            except Exception as exc:
                error = f"score-by-turn plot unavailable: {exc}"
            stored = _stored_langs(store, board, rows)
        self.post_message(BoardLoaded(rows, curves, error, board, stored))

    def _compute_rules(self, board: str, scores: str, lang: str | None) -> None:
        from pingpong.sessions.aggregation.rolebench import rolebench_leaderboard
        from pingpong.sessions.aggregation.roleinteract import roleinteract_leaderboard

        with self._store.use() as store:
            try:
                rows = (roleinteract_leaderboard(store.conn, lang=lang, scores=scores) if board == "roleinteract"
                        else rolebench_leaderboard(store.conn, lang=lang, scores=scores))
            except Exception as exc:  # a bad database is a message on screen, not a crash
                self.post_message(BoardLoaded([], None, str(exc), board))
                return
            langs = _stored_langs(store, board, rows)
        self.post_message(BoardLoaded(rows, None, None, board, langs))

    def _compute_dmt(self, scores: str, lang: str | None) -> None:
        from pingpong.sessions.aggregation.dmt import dmt_leaderboard

        with self._store.use() as store:
            try:
                rows = dmt_leaderboard(store.conn, lang=lang, scores=scores)
            except Exception as exc:  # a bad database is a message on screen, not a crash
                self.post_message(BoardLoaded([], None, str(exc), "dmt"))
                return
            langs = _stored_langs(store, "dmt", rows)
        self.post_message(BoardLoaded(rows, None, None, "dmt", langs))

    def on_board_loaded(self, message: BoardLoaded) -> None:
        if message.board != self.board:
            return  # an answer for the board shown before the last switch
        self.rows = message.rows
        self._loaded = message
        self.refresh_bindings()  # `c` (curve) is offered over a DMT board with rows only
        self.query_one(PlotextPlot).display = message.board not in RULE_BOARDS
        if message.board in RULE_BOARDS:
            self._show_rules(message)
            return
        players = self._columns(message.board, self._players(message))
        if message.board == "dmt":
            self._show_dmt(message, players)
            return
        table = self.query_one(DataTable)
        table.clear()
        for r, player in zip(message.rows, players):
            table.add_row(
                str(r.rank or ""), player, str(r.conversations),
                _f(r.refusal_ratio), _f(r.in_character), _f(r.entertaining), _f(r.fluency), _pm(r.final, r.final_ci),
                _pm(r.length_norm, r.length_norm_ci), _f(r.avg_length, 0), key=f"{r.player}|{r.lang}",
            )
        note = self._describe() + "   (IC in_character, EN entertaining, FL fluency)"
        if not message.rows:
            note = f"{self._empty_note(message)}  {note}"
        if message.error:
            note += f"\n{message.error}"
        self.query_one("#board-note", Static).update(note)
        self._plot((message.curves or {}) if message.rows else {})  # the judges' curves over an empty board say nothing

    def _empty_note(self, message: BoardLoaded) -> str:
        return empty_note(message.board, SOURCES[self.source], self.langs[self.lang], message.langs, self.app.shown_key)

    def _show_dmt(self, message: BoardLoaded, players: list[str]) -> None:
        table = self.query_one(DataTable)
        table.clear()
        for r, player in zip(message.rows, players):
            score = "" if r.dmt_score is None else (
                f"{r.dmt_score:.3f}±{r.dmt_score_ci:.3f}" if r.dmt_score_ci is not None else f"{r.dmt_score:.3f}")
            longest = max((len(v["curve"]) for v in r.metrics.values()), default=0)
            table.add_row(str(r.rank or ""), player, r.lang or "", str(r.conversations), score,
                          str(len(r.metrics)), str(longest), key=f"{r.player}|{r.lang}")
        note = self._describe() + f"   plot: {self.curve or 'all metrics (mean)'}"
        if not message.rows:
            note = f"{self._empty_note(message)}  {note}"
        if message.error:
            note += f"\n{message.error}"
        self.query_one("#board-note", Static).update(note)
        self._plot_dmt()

    def _show_rules(self, message: BoardLoaded) -> None:
        """A rule-scored method's board, in the columns `pingpong leaderboard --method M` prints
        (which dimensions a RoleInteract board has depends on the sets its sessions used)."""
        from pingpong.tui.commands import rolebench_board, roleinteract_board

        board = rolebench_board if message.board == "rolebench" else roleinteract_board
        columns, body = board.board_cells(message.rows)
        table = self.query_one(DataTable)
        table.clear(columns=True)
        self._shown = None  # the next board sets its own columns
        for i, column in enumerate(columns):
            table.add_column(column.title, key=str(i))
        for r, line in zip(message.rows, body):
            table.add_row(*line, key=f"{r['player']}|{r['lang']}")
        table.fixed_columns = 4  # rank, player, lang and the mean stay while the dimensions scroll
        note = f"{board.TITLE}: {self._describe()}   {board.CAPTION}"
        if not message.rows:
            note = f"{self._empty_note(message)}  {note}"
        if message.error:
            note += f"\n{message.error}"
        self.query_one("#board-note", Static).update(note)

    def _plot_dmt(self) -> None:
        """Each player's DMT curve Score_tau (0..1) over tau = 1..T."""
        from pingpong.sessions.aggregation.dmt import dmt_curve_of

        widget = self.query_one(PlotextPlot)
        plt = widget.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title(f"DMT Score_tau: {self.curve or 'all metrics (mean)'}")
        plt.xlabel("rounds (tau)")
        last = 1
        several = len({r.lang for r in self.rows}) > 1
        for r in self.rows:
            curve = dmt_curve_of(r, self.curve)
            if curve:
                last = max(last, len(curve))
                label = f"{r.player} ({r.lang})" if several else r.player
                plt.plot(list(range(1, len(curve) + 1)), curve, label=label, marker="dot")
        plt.xticks(list(range(1, last + 1)))
        plt.ylim(0, 1)
        widget.refresh()

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
        self.lang = (self.lang + 1) % len(self.langs)
        self.action_reload()

    def action_board(self) -> None:
        self.board = BOARDS[(BOARDS.index(self.board) + 1) % len(BOARDS)]
        self.refresh_bindings()
        self.action_reload()

    def action_curve(self) -> None:
        """Plot the next metric's curve (metrics some row has, then back to all metrics' mean)."""
        from pingpong.core.methods.dmt_rules import DMT_METRICS

        present = [m for m in DMT_METRICS if any(m in r.metrics for r in self.rows)]
        choices: list[str | None] = [None, *present]
        self.curve = choices[(choices.index(self.curve) + 1) % len(choices)] if self.curve in choices else None
        self._plot_dmt()
        self.query_one("#board-note", Static).update(self._describe() + f"   plot: {self.curve or 'all metrics (mean)'}")

    def action_back(self) -> None:
        self.app.pop_screen()
