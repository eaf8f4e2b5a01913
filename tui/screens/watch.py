"""Watch batch runs another process is writing: runs, their sessions and counts per status.

The database is polled in a thread (its own connection) every app.watch_interval seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message as TMessage
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from pingpong.sessions import queries
from pingpong.tui.screens import in_view
from pingpong.tui.widgets.tables import SizedTable
from pingpong.tui.worker_store import WorkerStore

NO_RUN = 0  # pseudo-run: sessions started one at a time (pingpong play, the TUI)
SINGLE = "single sessions"
STATUSES = ("running", "finished", "failed", "interrupted")
# short headers so the runs table fits 80 columns (the counts line below spells them out)
RUN_COLUMNS = ("id", "run", "planned", "running", "done", "failed", "intr")
SESSION_COLUMNS = ("id", "character", "situation", "status", "turns", "judged", "player")
NAMES = {"run", "character", "situation", "player"}  # the columns that share the room left


def short_name(name: str, width: int) -> str:
    """Cut in the middle when longer than `width` (a run name: players left, language right)."""
    if len(name) <= width:
        return name
    right = width // 3
    return name[:width - right - 1] + "…" + name[-right:]


def fit_names(titles: tuple[str, ...], rows: list[list[str]], width: int) -> list[list[str]]:
    """The rows with the name columns cut only as much as a table `width` cells wide needs."""
    from pingpong.tui.commands.table import Column, fit

    columns = [Column(t, least=12 if t in NAMES else 40, number=t not in NAMES) for t in titles]
    # a DataTable pads each cell by one on both sides (fit counts two between columns) and keeps
    # two cells for its scroll bar
    index, widths = fit(columns, rows, max(20, width - 4))
    return [[short_name(cell, w) if t in NAMES else cell for cell, t, w in zip(row, titles, widths)]
            for row in rows]


@dataclass(frozen=True)
class RunRow:
    id: int
    name: str
    total: int  # sessions written so far
    counts: tuple[int, int, int, int]  # per STATUSES
    planned: int  # sessions the run will have (its plan), at least those written


@dataclass(frozen=True)
class SessionRow:
    id: int
    character: str
    situation: str
    player: str
    status: str
    turns: int
    num_turns: int | None
    judged: int


class WatchLoaded(TMessage):
    def __init__(self, runs: list[RunRow], sessions: list[SessionRow], run_id: int | None) -> None:
        super().__init__()
        self.runs = runs
        self.sessions = sessions
        self.run_id = run_id


def read_runs(db) -> list[RunRow]:
    import json

    out = []
    for rid, name, config, total, *counts in queries.run_status_counts(db.conn, STATUSES):
        try:
            planned = int(json.loads(config or "{}").get("planned") or 0)
        except (ValueError, TypeError, AttributeError):
            planned = 0
        out.append(RunRow(NO_RUN if rid is None else rid, name or SINGLE, total,
                          tuple(int(x or 0) for x in counts), max(planned, total)))  # type: ignore[arg-type]
    return out


def read_sessions(db, run_id: int) -> list[SessionRow]:
    rows = queries.run_sessions(db.conn, None if run_id == NO_RUN else run_id)
    return [SessionRow(r[0], r[1], r[2], r[3], r[4], r[6], r[5], r[7]) for r in rows]


class WatchScreen(Screen):
    """Runs on top, the selected run's sessions below; enter follows a session live."""

    BINDINGS = [
        # priority: the tables' own (hidden) enter would hide it from the footer; action_open
        # does what enter did (runs table -> its sessions, sessions table -> open one)
        Binding("enter", "open", "Open", id="watch.open", show=True, priority=True),
        Binding("tab", "focus_next", "Switch", tooltip="Switch table", id="watch.switch"),
        Binding("escape,q", "back", "Back", id="watch.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.run_id: int | None = None
        self.runs: list[RunRow] = []
        self.sessions: list[SessionRow] = []
        self._store = WorkerStore(lambda: self.app.open_store())

    def compose(self) -> ComposeResult:
        yield Header()
        yield SizedTable(id="runs-table", cursor_type="row")
        yield Static("", id="watch-counts")
        yield SizedTable(id="run-sessions", cursor_type="row", zebra_stripes=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.sub_title = "watch a run"
        runs = self.query_one("#runs-table", DataTable)
        for col in RUN_COLUMNS:
            runs.add_column(col, key=col)
        sessions = self.query_one("#run-sessions", DataTable)
        for col in SESSION_COLUMNS:  # the player last: it may run off an 80-column screen
            sessions.add_column(col, key=col)
        self.query_one("#watch-counts", Static).update("reading the database…")
        self.set_interval(self.app.watch_interval, self.poll)
        self.poll()
        runs.focus()

    def on_unmount(self) -> None:
        self._store.close()

    def poll(self) -> None:
        if in_view(self):   # a session opened from here covers it: nothing to redraw meanwhile
            self.read(self.run_id)

    @work(thread=True, exclusive=True, group="watch", exit_on_error=False)
    def read(self, run_id: int | None) -> None:
        with self._store.use() as store:
            runs = read_runs(store.db)
            if run_id is None or all(r.id != run_id for r in runs):
                run_id = runs[0].id if runs else None
            sessions = read_sessions(store.db, run_id) if run_id is not None else []
        self.post_message(WatchLoaded(runs, sessions, run_id))

    def on_watch_loaded(self, message: WatchLoaded) -> None:
        if message.runs != self.runs:
            self.runs = message.runs
            table = self.query_one("#runs-table", DataTable)
            cursor = table.cursor_row
            table.clear()
            cells = [[str(r.id) if r.id else "-", r.name, str(r.planned), *map(str, r.counts)] for r in message.runs]
            for r, row in zip(message.runs, fit_names(RUN_COLUMNS, cells, self.size.width)):
                table.add_row(*row, key=str(r.id))
            if table.row_count:
                index = next((i for i, r in enumerate(message.runs) if r.id == message.run_id), cursor)
                table.move_cursor(row=min(index, table.row_count - 1))
        if self.run_id is None or self.run_id == message.run_id:
            self.run_id = message.run_id
            if message.sessions != self.sessions:
                self.sessions = message.sessions
                table = self.query_one("#run-sessions", DataTable)
                cursor = table.cursor_row
                table.clear()
                cells = [[str(s.id), s.character, s.situation, s.status,
                          f"{s.turns}/{s.num_turns}" if s.num_turns else str(s.turns), str(s.judged), s.player]
                         for s in message.sessions]
                for s, row in zip(message.sessions, fit_names(SESSION_COLUMNS, cells, self.size.width)):
                    table.add_row(*row, key=str(s.id))
                if table.row_count:
                    table.move_cursor(row=min(cursor, table.row_count - 1))
        self._counts()

    def _counts(self) -> None:
        run = next((r for r in self.runs if r.id == self.run_id), None)
        if run is None:
            self.query_one("#watch-counts", Static).update(
                "No runs yet. Start one in another terminal, e.g. "
                "pingpong run --player offline --interrogator offline --judge offline")
            return
        done = run.counts[STATUSES.index("finished")]
        parts = "".join(f", {name} {n}" for name, n in zip(STATUSES, run.counts) if n and name != "finished")
        # the counts first: a long run name may run off the line, the table above shows it too
        self.query_one("#watch-counts", Static).update(
            f"{done} of {run.planned} sessions done{parts}  enter opens  · {run.name}")

    def on_resize(self) -> None:
        """Names take the room there is: draw both tables again at the new width."""
        self.runs, self.sessions = [], []
        self.poll()

    @on(DataTable.RowHighlighted, "#runs-table")
    def run_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None or event.row_key.value is None:
            return
        run_id = int(event.row_key.value)
        if run_id != self.run_id:
            self.run_id = run_id
            self.sessions = []
            self.query_one("#run-sessions", DataTable).clear()
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
        self.app.open_live(int(key), follow=True)

    def action_back(self) -> None:
        self.app.pop_screen()
