"""The home screen: stored sessions (loaded in a thread, shown a page at a time) and the way out
to every other screen."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message as TMessage
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from pingpong.sessions import queries
from pingpong.tui.screens import in_view
from pingpong.tui.widgets.panels import EmptyState
from pingpong.tui.widgets.tables import SizedTable
from pingpong.tui.worker_store import WorkerStore

PAGE = 200
CHUNK = 1000
COLUMNS = (  # status and final come early so they stay in view on an 80-column terminal
    ("id", "id"), ("character", "character"), ("situation", "situation"), ("status", "status"),
    ("final", "final"), ("player", "player"), ("interrogator", "interrogator"), ("created", "created"),
)
EMPTY_TEXT = (
    "[b]No sessions yet.[/b]\n\n"
    "Press [b]n[/b] to start a new session. Every seat defaults to the built-in [i]offline[/i] "
    "model, which needs no key and no network, so you can watch a whole session run and get judged "
    "right away.\n\n"
    "Press [b]c[/b] to browse the character cards (and spot-check one yourself), or start a batch "
    "with [b]pingpong run[/b] in another terminal and press [b]w[/b] to watch it.\n"
    "[b]F1[/b] shows every key; [b]ctrl+p[/b] opens the command palette."
)


@dataclass
class Row:
    id: int
    character: str
    situation: str
    player: str
    interrogator: str
    status: str
    final: float | None
    created: str
    note: str = ""  # shown instead of a missing final score: "refusal", "no judges", "-"
    final_text: str = ""  # the final as sessions.scoring writes it ('4.40*' where a person changed a score)

    def cells(self) -> tuple:
        final = self.note if self.final is None else (self.final_text or f"{self.final:.2f}")
        return (str(self.id), self.character, self.situation, self.status, final, self.player,
                self.interrogator, self.created)

    def haystack(self) -> str:
        return " ".join(self.cells()).lower()


def final_note(status: str, judges: list[str], refused: bool) -> str:
    """What the final column says when there is no final score."""
    if refused:
        return "refusal"  # a judge flagged a refusal: that scoring is left out of the final
    if not judges:
        return "no judges"
    return "-" if status == "finished" else ""  # finished but unscored (a judge failed, say)


class SessionsChanged(TMessage):
    """The sessions table in the database changed since the last load."""


class SessionsLoaded(TMessage):
    def __init__(self, rows: list[Row], done: bool) -> None:
        super().__init__()
        self.rows = rows
        self.done = done


class FilterInput(Input):
    """The filter box takes the keys only when asked (/ or f, or a click): a first user's n or q
    must never land in it because the table had nothing to hold the focus."""

    can_focus = False

    def on_mouse_down(self) -> None:
        self.can_focus = True
        self.focus()

    def on_blur(self) -> None:
        self.can_focus = False


class HomeScreen(Screen):
    """Sessions table with filter, sort and pages; keys open the other screens."""

    # no auto focus on return: with nothing focused (no sessions yet) Textual would focus the filter,
    # and the keys typed next would become filter text instead of shortcuts
    AUTO_FOCUS = None

    # The footer fits 80 columns with short descriptions; the hidden ones are in the help (F1).
    BINDINGS = [
        Binding("n", "app.new_session", "New", tooltip="New session", id="home.new"),
        Binding("r", "resume", "Resume", tooltip="Resume the selected session", id="home.resume"),
        Binding("p", "replay", "Replay", tooltip="Replay the selected session (enter)", show=False,
                id="home.replay"),
        Binding("l", "app.leaderboard", "Board", tooltip="Leaderboard", id="home.leaderboard"),
        Binding("c", "app.characters", "Cards", tooltip="Character cards", id="home.characters"),
        Binding("w", "app.watch", "Watch", tooltip="Watch a batch run", id="home.watch"),
        Binding("v", "compare", "Versus", show=False,
                tooltip="Side by side with another player's session", id="home.compare"),
        Binding("a", "app.annotate", "Rate", show=False, tooltip="Rating queue: rate conversations blind",
                id="home.annotate"),
        Binding("slash,f", "filter", "Find", tooltip="Filter the sessions", id="home.filter"),
        Binding("s", "sort", "Sort", tooltip="Sort by the next column", id="home.sort"),
        Binding("left_square_bracket", "page(-1)", "Prev page", show=False, id="home.prev_page"),
        Binding("right_square_bracket", "page(1)", "Next page", show=False, id="home.next_page"),
        Binding("f5", "reload", "Reload", show=False, id="home.reload"),
        Binding("q", "app.quit", "Quit", tooltip="Quit pingpong", id="home.quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[Row] = []
        self.shown: list[Row] = []
        self.page = 0
        self.sort_index = 0  # index into COLUMNS
        self.sort_reverse = True
        self.loaded = False
        self._store = WorkerStore(lambda: self.app.open_store())
        self._stamp: tuple | None = None  # (max updated_at, count) of the last load
        self._check_store = WorkerStore(lambda: self.app.open_store())  # the check may overlap a load
        self._loader = None  # the running load worker

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="home-bar"):
            yield FilterInput(placeholder="filter: character, situation, model, status…", id="home-filter")
            yield Static("", id="home-count")
        yield SizedTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
        yield EmptyState(EMPTY_TEXT, id="home-empty")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, key in COLUMNS:
            table.add_column(label, key=key)
        self.query_one("#home-empty").display = False
        self.query_one("#home-count", Static).update("loading…")
        table.focus()
        self.reload()
        # another process (pingpong run) may write: look for changes now and then, cheaply
        self.set_interval(max(2.0 * self.app.watch_interval, 0.1), self.refresh_if_changed)

    def on_screen_resume(self) -> None:
        if self.loaded:
            self.reload()

    def reload(self) -> None:
        self._loader = self.load_sessions()

    def _loading(self) -> bool:
        return self._loader is not None and not self._loader.is_finished

    def refresh_if_changed(self) -> None:
        """Timer: reload when the stored sessions changed, only while this screen is shown."""
        if in_view(self) and self.loaded and not self._loading():
            self.check_changes()

    @work(thread=True, exclusive=True, group="home-check", exit_on_error=False)
    def check_changes(self) -> None:
        if self._loading():
            return
        with self._check_store.use() as store:
            if self._stamp is not None and self._read_stamp(store) != self._stamp:
                self.post_message(SessionsChanged())

    def on_sessions_changed(self) -> None:
        if not self._loading():
            self.reload()

    @staticmethod
    def _read_stamp(store) -> tuple:
        return queries.sessions_stamp(store.conn)

    def on_unmount(self) -> None:
        self._store.close()
        self._check_store.close()

    @work(thread=True, exclusive=True, group="home-load", exit_on_error=False)
    def load_sessions(self) -> None:
        """Read every session summary in chunks; the first chunk is shown at once."""
        with self._store.use() as store:
            self._post_sessions(store)

    def _post_sessions(self, store) -> None:
        """Post the first chunk as soon as it is read, then everything."""
        self._stamp = self._read_stamp(store)  # before reading: a change during the load shows next time
        refused = queries.refused_sessions(store.conn)
        live = self.app.runs.ids()  # running in this app (maybe in the background): shown as "live"
        rows: list[Row] = []
        offset = 0
        while True:
            chunk = store.sessions(limit=CHUNK, offset=offset, newest_first=True)
            for s in chunk:
                status = "live" if s.status == "running" and s.id in live else s.status
                rows.append(Row(s.id, s.character, s.situation, s.player, s.interrogator_seat, status, s.final,
                                (s.created_at or "")[5:16].replace("T", " "),
                                final_note(s.status, s.judges, s.id in refused), s.final_text))
            offset += len(chunk)
            done = len(chunk) < CHUNK
            if done or offset == CHUNK:
                self.post_message(SessionsLoaded(list(rows), done))
            if done:
                return

    def on_sessions_loaded(self, message: SessionsLoaded) -> None:
        self.rows = message.rows
        self.loaded = message.done or self.loaded
        self._apply(keep_view=True)

    # -- filtering, sorting, paging -----------------------------------------------------
    @on(Input.Changed, "#home-filter")
    def filter_changed(self) -> None:
        self.page = 0
        self._apply()

    @on(Input.Submitted, "#home-filter")
    def filter_done(self) -> None:
        self.query_one(DataTable).focus()

    @on(DataTable.HeaderSelected)
    def header_selected(self, event: DataTable.HeaderSelected) -> None:
        keys = [k for _, k in COLUMNS]
        index = keys.index(str(event.column_key.value))
        if index == self.sort_index:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_index, self.sort_reverse = index, False
        self._apply()

    def _apply(self, *, keep_view: bool = False) -> None:
        """Filter, sort and show a page. keep_view: stay on the selected session (by id) and keep
        it where it was on screen (a reload must not move what the person is looking at)."""
        needle = self.query_one("#home-filter", Input).value.strip().lower()
        words = needle.split()  # every word must match somewhere: "sherlock bedtime"
        rows = [r for r in self.rows if all(w in r.haystack() for w in words)] if words else list(self.rows)
        key = COLUMNS[self.sort_index][1]
        if key == "final":
            rows.sort(key=lambda r: (r.final is not None, r.final or 0.0), reverse=self.sort_reverse)
        elif key == "id":
            rows.sort(key=lambda r: r.id, reverse=self.sort_reverse)
        else:
            rows.sort(key=lambda r: (getattr(r, key if key != "created" else "created"), r.id),
                      reverse=self.sort_reverse)
        self.shown = rows
        pages = max(1, (len(rows) + PAGE - 1) // PAGE)
        self.page = max(0, min(self.page, pages - 1))
        table = self.query_one(DataTable)
        current = table.cursor_row
        selected = self._selected_id() if keep_view else None
        scroll_x, scroll_y = table.scroll_x, table.scroll_y
        table.clear()
        page_rows = rows[self.page * PAGE:(self.page + 1) * PAGE]
        for row in page_rows:
            table.add_row(*row.cells(), key=str(row.id))
        if table.row_count:
            index = next((i for i, r in enumerate(page_rows) if selected is not None and r.id == selected),
                         current)
            table.move_cursor(row=min(index, table.row_count - 1))
            if keep_view:
                # at the top, stay there (new sessions come in on top, in view) while the cursor is
                # still visible; else keep the selected session on the same line of the screen
                visible = table.scrollable_content_region.height - table.header_height
                shift = table.cursor_row - current
                y = 0 if scroll_y == 0 and table.cursor_row < visible else max(0, scroll_y + shift)
                table.call_after_refresh(table.scroll_to, x=scroll_x, y=y, animate=False)
        empty = not self.rows and self.loaded
        self.query_one("#home-empty").display = empty
        if table.display != (not empty):
            table.display = not empty
            # the first sessions arrived (a refresh): focus the table unless a filter is being typed
            if not empty and (self.focused is None or not needle):
                table.focus()
        arrow = "↓" if self.sort_reverse else "↑"
        count = f"{len(rows)} of {len(self.rows)}" if needle else f"{len(self.rows)}"
        page = f"  page {self.page + 1}/{pages} ([ ])" if pages > 1 else ""
        more = "" if self.loaded else " (loading…)"
        self.query_one("#home-count", Static).update(
            f"{count} session{'' if len(self.rows) == 1 else 's'}{more}  sort {COLUMNS[self.sort_index][0]}{arrow}{page}")

    def action_filter(self) -> None:
        box = self.query_one("#home-filter", Input)
        box.can_focus = True
        box.focus()

    def leave_input(self) -> None:
        """Escape in the filter: keep the filter, give the keys back to the table (n, q, ... work again)."""
        table = self.query_one(DataTable)
        if table.display:
            table.focus()
        else:
            self.set_focus(None)

    def action_sort(self) -> None:
        self.sort_index = (self.sort_index + 1) % len(COLUMNS)
        self.sort_reverse = COLUMNS[self.sort_index][1] in ("id", "final", "created")
        self._apply()

    def action_page(self, step: int) -> None:
        self.page += step
        self._apply()

    def action_reload(self) -> None:
        self.reload()

    # -- opening a session --------------------------------------------------------------
    def _selected_id(self) -> int | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return int(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def selected(self) -> Row | None:
        table = self.query_one(DataTable)
        if not table.row_count or not table.display:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((r for r in self.shown if str(r.id) == key), None)

    @on(DataTable.RowSelected)
    def row_selected(self) -> None:
        self.action_replay()

    def action_replay(self) -> None:
        row = self.selected()
        if row is None:
            self.notify("No session selected; n starts one", severity="warning")
        elif row.status == "live":
            self.app.open_live(row.id)  # this app runs it: its controls come back
        elif row.status == "running":
            self.app.open_live(row.id, follow=True)
        else:
            self.app.action_open_replay(row.id)

    def action_compare(self) -> None:
        row = self.selected()
        if row is None:
            self.notify("No session selected; n starts one", severity="warning")
        else:
            self.app.action_compare(row.id)

    def action_resume(self) -> None:
        row = self.selected()
        if row is None:
            self.notify("No session selected; n starts one", severity="warning")
        elif row.status == "finished":
            self.notify(f"Session {row.id} is finished; enter replays it", severity="information")
        elif row.status == "live":
            self.app.open_live(row.id)
        elif row.status == "running":
            self.app.open_live(row.id, follow=True)
        else:
            self.app.open_live(row.id)
