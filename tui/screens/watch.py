"""Watch batch runs another process is writing: runs, their sessions and counts per status.

The database is polled in a thread (its own connection) every app.watch_interval seconds while the
screen is in view; sessions.run_watch reads only what changed, and only the changed cells of the
tables are drawn again (new sessions are appended, the cursor and scroll stay).
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message as TMessage
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from pingpong.sessions.run_watch import STATUSES, RunRow, RunWatch, SessionRow, WatchUpdate
from pingpong.tui.screens import in_view
from pingpong.tui.widgets.fitted_rows import FittedRows
from pingpong.tui.widgets.footer import KeysFooter
from pingpong.tui.widgets.tables import SizedTable
from pingpong.tui.worker_store import WorkerStore

if TYPE_CHECKING:
    from pingpong.tui.app import PingPongApp

# short headers so the runs table fits 80 columns (the counts line below spells them out)
RUN_COLUMNS = ("id", "run", "planned", "running", "done", "failed", "intr")
SESSION_COLUMNS = ("id", "character", "situation", "status", "turns", "judged", "player")
NAMES = {"run", "character", "situation", "player"}  # the columns that share the room left
LATE_POLLS = 5  # sessions out of view are drawn at least every this many polls (at once when scrolled to)


class WatchLoaded(TMessage):
    def __init__(self, update: WatchUpdate) -> None:
        super().__init__()
        self.update = update


def run_cells(run: RunRow) -> list[str]:
    return [str(run.id) if run.id else "-", run.name, str(run.planned), *map(str, run.counts)]


def session_cells(s: SessionRow) -> list[str]:
    turns = f"{s.turns}/{s.num_turns}" if s.num_turns else str(s.turns)
    return [str(s.id), s.character, s.situation, s.status, turns, str(s.judged), s.player]


class WatchScreen(Screen):
    """Runs on top, the selected run's sessions below; enter follows a session live."""

    PLACE_ACTIONS = ("watch",)
    """The palette's ways here (tui/palette.py): not offered while this screen is open."""

    app: PingPongApp

    BINDINGS = [
        # priority: the tables' own (hidden) enter would hide it from the footer; action_open
        # does what enter did (runs table -> its sessions, sessions table -> open one)
        Binding("enter", "open", "Open", id="watch.open", show=True, priority=True),
        Binding("tab", "app.focus_next", "Switch", tooltip="Switch table", id="watch.switch"),
        Binding("escape,q", "back", "Back", id="watch.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.run_id: int | None = None
        self.runs: list[RunRow] = []
        self.generation = 0  # of the last whole list of sessions shown (run_watch.WatchUpdate)
        self._late = 0  # polls since sessions out of view began to wait to be drawn
        self._reading = False  # a poll's read is under way
        self._watch = RunWatch()  # used by one read worker at a time (under the store's lock)
        self._store = WorkerStore(lambda: self.app.open_store())

    def compose(self) -> ComposeResult:
        yield Header()
        yield SizedTable(id="runs-table", cursor_type="row")
        yield Static("", id="watch-counts")
        yield SizedTable(id="run-sessions", cursor_type="row", zebra_stripes=True)
        yield KeysFooter(compact=True)

    @cached_property
    def _run_rows(self) -> FittedRows:
        return FittedRows(self.query_one("#runs-table", DataTable), RUN_COLUMNS, NAMES)

    @cached_property
    def _session_rows(self) -> FittedRows:
        return FittedRows(self.query_one("#run-sessions", DataTable), SESSION_COLUMNS, NAMES)

    def on_mount(self) -> None:
        self.sub_title = "watch a run"
        self.query_one("#watch-counts", Static).update("reading the database…")
        self.set_interval(self.app.watch_interval, self.poll)
        self.poll()
        self._run_rows.table.focus()
        self.watch(self._session_rows.table, "scroll_y", self._session_rows.show, init=False)

    def on_unmount(self) -> None:
        self._store.close()

    def poll(self) -> None:
        if in_view(self):   # a session opened from here covers it: nothing to redraw meanwhile
            self._draw_sessions(late=True)
            if not self._reading:  # a slow read (a big database's first) is not queued up behind
                self._reading = True
                self.read(self.run_id)

    @work(thread=True, group="watch", exit_on_error=False)
    def read(self, run_id: int | None) -> None:
        try:
            with self._store.use() as store:
                update = self._watch.read(store.conn, run_id)
                if update is not None:  # posted in the order read: each update builds on the one before
                    self.post_message(WatchLoaded(update))
        finally:
            self._reading = False

    def on_watch_loaded(self, message: WatchLoaded) -> None:
        update = message.update
        if update.runs != self.runs:
            self._show_runs(update.runs, update.run_id)
        if update.whole and self.run_id in (None, update.run_id):
            self.run_id, self.generation = update.run_id, update.generation
            self._session_rows.fill(((str(s.id), session_cells(s)) for s in update.sessions), self.size.width)
        elif not update.whole and (update.run_id, update.generation) == (self.run_id, self.generation):
            for s in update.sessions:
                self._session_rows.put(str(s.id), session_cells(s))
            self._draw_sessions()
        self._counts()

    def _draw_sessions(self, *, late: bool = False) -> None:
        """Changes on screen are drawn now; those out of view after LATE_POLLS polls (late: one more
        poll went by), or as soon as the table scrolls."""
        rows = self._session_rows
        if late and rows.waiting():
            self._late += 1
        if rows.waiting() and (rows.in_view() or self._late >= LATE_POLLS):
            rows.show()
        if not rows.waiting():
            self._late = 0

    def _show_runs(self, runs: list[RunRow], run_id: int | None) -> None:
        """Runs change their counts in place; a new run (it goes on top) fills the table again."""
        rows = [(str(r.id), run_cells(r)) for r in runs]
        if [r.id for r in runs] == [r.id for r in self.runs]:
            for key, cells in rows:
                self._run_rows.put(key, cells)
            self._run_rows.show()
        else:
            self._run_rows.fill(rows, self.size.width)
            table = self._run_rows.table
            selected = run_id if self.run_id is None else self.run_id
            index = next((i for i, r in enumerate(runs) if r.id == selected), None)
            if index is not None:
                table.move_cursor(row=index)
        self.runs = runs

    def _counts(self) -> None:
        run = next((r for r in self.runs if r.id == self.run_id), None)
        line = self.query_one("#watch-counts", Static)
        line.set_class(run is None, "-hint")  # the hint wraps (the command shows whole); counts keep one line
        if run is None:
            line.update("No runs yet. Start one in another terminal, e.g. "
                        "pingpong run --player offline --interrogator offline --judge offline")
            return
        done = run.counts[STATUSES.index("finished")]
        parts = "".join(f", {name} {n}" for name, n in zip(STATUSES, run.counts) if n and name != "finished")
        # the counts first: a long run name may run off the line, the table above shows it too
        text = f"{done} of {run.planned} sessions done{parts}  enter opens  · {run.name}"
        if str(line.render()) != text:
            line.update(text, layout=False)  # one line high (pingpong.tcss): no layout of the screen

    def on_resize(self) -> None:
        """Names take the room there is."""
        self._run_rows.resize(self.size.width)
        self._session_rows.resize(self.size.width)

    @on(DataTable.RowHighlighted, "#runs-table")
    def run_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None or event.row_key.value is None or event.cursor_row != event.data_table.cursor_row:
            return  # the cursor has moved on since (the table was filled, then its cursor placed)
        run_id = int(event.row_key.value)
        if run_id != self.run_id:
            self.run_id = run_id
            self._session_rows.fill([], self.size.width)
            self.read(run_id)

    @on(DataTable.RowSelected)
    def row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "runs-table":
            self.query_one("#run-sessions").focus()
        else:
            self.action_open()

    def action_open(self) -> None:
        table = self.query_one("#run-sessions", DataTable)
        if self.focused is self.query_one("#runs-table"):
            table.focus()
            return
        if not table.row_count:
            self.notify("No session to open", severity="warning")
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if key is not None:  # every row is added with its session id as key
            self.app.open_live(int(key), follow=True)

    def action_back(self) -> None:
        self.app.pop_screen()
