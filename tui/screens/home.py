"""The home screen: stored sessions and the way out to every other screen.

However many sessions the database holds, the screen keeps only their ids in list order and the
rows around the view (sessions.listing): moving past those rows reads the next ones, a filter or a
sort asks the database, and a refresh reads only the sessions written since the last look and puts
them in place without redrawing the others.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message as TMessage
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Header, Input, Static

from pingpong.sessions import listing, queries
from pingpong.sessions.listing import SORTS, Key, Listing, ListQuery, Row
from pingpong.tui.screens import in_view
from pingpong.tui.widgets.footer import KeysFooter
from pingpong.tui.widgets.panels import EmptyState
from pingpong.tui.widgets.tables import PagedTable
from pingpong.tui.worker_store import WorkerStore

if TYPE_CHECKING:
    from textual.worker import Worker

    from pingpong.tui.app import PingPongApp

PAGE = 200  # rows read at a time, and what [ and ] move by
FIRST = 60  # rows read for the first screen (the rest of the page follows once it is drawn)
MOST = 2 * PAGE  # rows the table holds at most: as the view moves on, the far ones are let go
FILTER_DELAY = 0.25  # seconds of no typing before the filter asks the database
NARROW = 110
"""Under this many columns the long names are cut (CUT), so player and interrogator stay in view."""
CUT = {1: 16, 2: 20}  # cell index (character, situation) -> its most characters on a narrow screen
EMPTY_TEXT = (
    "[b]No sessions yet.[/b]\n\n"
    "Press [b]{new}[/b] to start a new session. Every seat defaults to the built-in [i]offline[/i] "
    "model, which needs no key and no network, so you can watch a whole session run and get judged "
    "right away.\n\n"
    "Press [b]{cards}[/b] to browse the character cards (and spot-check one yourself), or start a batch "
    "with [b]pingpong run[/b] in another terminal and press [b]{watch}[/b] to watch it.\n"
    "[b]F1[/b] shows every key; [b]ctrl+p[/b] opens the command palette."
)


class ListRead(TMessage):
    """The top of a query's list (listing None: read before the whole order), or its whole order."""

    def __init__(self, generation: int, listing: Listing | None, top: list[int], rows: dict[int, Row],
                 stamp: queries.SessionsStamp) -> None:
        super().__init__()
        self.generation, self.listing, self.top, self.rows, self.stamp = generation, listing, top, rows, stamp


class RowsRead(TMessage):
    """Rows asked for to show a part of the list."""

    def __init__(self, generation: int, asked: list[int], rows: dict[int, Row]) -> None:
        super().__init__()
        self.generation, self.asked, self.rows = generation, asked, rows


class ListChanged(TMessage):
    """Sessions written since the last look: their new place in the list (None: no longer listed)."""

    def __init__(self, generation: int, query: ListQuery, places: dict[int, Key | None], stamp: queries.SessionsStamp) -> None:
        super().__init__()
        self.generation, self.query, self.places, self.stamp = generation, query, places, stamp


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

    app: PingPongApp

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
        Binding("t", "app.situations", "Situations", show=False,
                tooltip="Situations of every method", id="home.situations"),
        Binding("w", "app.watch", "Watch", tooltip="Watch a batch run", id="home.watch"),
        Binding("v", "compare", "Versus", show=False,
                tooltip="Side by side with another player's session", id="home.compare"),
        Binding("a", "app.annotate", "Rate", show=False, tooltip="Rating queue: rate conversations blind",
                id="home.annotate"),
        Binding("m", "app.models", "Models", show=False, tooltip="Models: configured, and whether they answer",
                id="home.models"),
        Binding("slash,f", "filter", "Find", tooltip="Filter the sessions", id="home.filter"),
        Binding("s", "sort", "Sort", tooltip="Sort by the next column", id="home.sort"),
        Binding("left_square_bracket", "page(-1)", "Prev page", show=False, id="home.prev_page"),
        Binding("right_square_bracket", "page(1)", "Next page", show=False, id="home.next_page"),
        Binding("f5", "reload", "Reload", show=False, id="home.reload"),
        Binding("q", "app.quit", "Quit", tooltip="Quit pingpong", id="home.quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.sort_index = 0  # index into SORTS
        self.sort_reverse = True
        self.loaded = False  # a whole list has been read and its first rows shown, once
        self.listing: Listing | None = None  # the order of the current query (None while it is read)
        self.total = 0  # sessions in the database
        self._query = ListQuery()
        self._top: list[int] = []  # the first ids, shown before the whole order is read
        self._start = 0  # list position of the table's first row
        self._rows: dict[int, Row] = {}  # rows read for the table, by id
        self._shown: dict[int, tuple[str, ...]] = {}  # the cells the table shows, by id
        self._stale: set[int] = set()  # shown rows written since they were read
        self._want: tuple[int, int, int | None] | None = None  # (start, size, cursor at) waiting for rows
        self._reading_rows = False
        self._generation = 0  # of the query: what a worker read for an older one is dropped
        self._narrow = False  # the screen is under NARROW columns: long names are cut
        self._stamp: queries.SessionsStamp | None = None  # when the shown list was read
        self._finals = listing.FinalCells()
        self._filter_timer: Timer | None = None
        self._store = WorkerStore(lambda: self.app.open_store())
        self._check_store = WorkerStore(lambda: self.app.open_store())  # the check may overlap a read
        self._loader: Worker[None] | None = None  # the worker reading the list

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="home-bar"):
            yield FilterInput(placeholder="filter: character, situation, model, status…", id="home-filter")
            yield Static("", id="home-count")
        yield PagedTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
        keys = {name: self.app.shown_key(f"home.{binding}", default)
                for name, binding, default in (("new", "new", "n"), ("cards", "characters", "c"), ("watch", "watch", "w"))}
        yield EmptyState(EMPTY_TEXT.format(**keys), id="home-empty")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        table = self.query_one(PagedTable)
        self._narrow = self.size.width < NARROW
        for key in SORTS:
            table.add_column(key, key=key)
        self.query_one("#home-empty").display = False
        self.query_one("#home-count", Static).update("loading…")
        table.focus()
        self.reload()
        # another process (pingpong run) may write: look for changes now and then, cheaply
        self.set_interval(max(2.0 * self.app.watch_interval, 0.1), self.refresh_if_changed)

    def on_screen_resume(self) -> None:
        if self.loaded:
            self.refresh_if_changed()

    def on_unmount(self) -> None:
        self._store.close()
        self._check_store.close()

    @property
    def rows(self) -> list[Row]:
        """The rows the table holds, in order."""
        return [self._rows[int(r.key.value or 0)] for r in self.query_one(PagedTable).ordered_rows]

    # -- reading the list -----------------------------------------------------------------
    def reload(self) -> None:
        """Read the list again from the top, for the filter and sort as they are now."""
        words = tuple(self.query_one("#home-filter", Input).value.split())
        self._query = ListQuery(words, SORTS[self.sort_index], self.sort_reverse, frozenset(self.app.runs.ids()))
        self._generation += 1
        self.listing, self._top, self._want, self._reading_rows = None, [], None, False
        self._stale |= set(self._shown)  # what the table shows is read again with the list
        self._loader = self.read_list(self._query, self._generation)
        self._show_count()

    def _loading(self) -> bool:
        return self._loader is not None and not self._loader.is_finished

    @work(thread=True, exclusive=True, group="home-load", exit_on_error=False)
    def read_list(self, query: ListQuery, generation: int, top_first: bool = True) -> None:
        """The top rows alone when that is cheap (the newest sessions: the whole order is read once
        they are on screen), else the whole order and its first rows."""
        with self._store.use() as store:
            stamp = queries.sessions_stamp(store.conn)  # before reading: a change during the read shows next time
            top = listing.newest(store.conn, query, FIRST) if top_first else None
            if top is not None:
                self.post_message(ListRead(generation, None, top, listing.rows(store, top, query.live), stamp))
                return
            order = listing.listing(store.conn, query, self._finals)
            rows = listing.rows(store, order.ids[:PAGE], query.live) if top_first else {}
            self.post_message(ListRead(generation, order, [], rows, stamp))

    def on_list_read(self, message: ListRead) -> None:
        if message.generation != self._generation:
            return
        first = self.listing is None and not self._top  # a new query: show its top, cursor on the first row
        self._stamp, self.total = message.stamp, message.stamp.count
        self._rows.update(message.rows)
        self._stale -= set(message.rows)
        if message.listing is None:
            self._top = message.top
            self.call_after_refresh(self._read_order, message.generation)
        else:
            self.listing, self._top = message.listing, []
        size = max(PAGE, self.query_one(PagedTable).row_count) if not first else PAGE
        self._show(0 if first else self._start, size, 0 if first else None)

    def _read_order(self, generation: int) -> None:
        if generation == self._generation:
            self._loader = self.read_list(self._query, generation, top_first=False)

    @work(thread=True, exclusive=True, group="home-rows", exit_on_error=False)
    def read_rows(self, ids: list[int], live: frozenset[int], generation: int) -> None:
        with self._store.use() as store:
            self.post_message(RowsRead(generation, ids, listing.rows(store, ids, live)))

    def on_rows_read(self, message: RowsRead) -> None:
        self._reading_rows = False
        if message.generation != self._generation:
            return
        self._rows.update(message.rows)
        self._stale -= set(message.rows)
        gone: dict[int, Key | None] = {sid: None for sid in message.asked if sid not in message.rows}
        if gone and self.listing is not None:
            self.listing.place(gone)  # no such session any more
        if self._want is not None:
            want, self._want = self._want, None
            self._show(*want)

    # -- refreshing what changed ----------------------------------------------------------
    def refresh_if_changed(self) -> None:
        """Timer: read what changed since the last look, only while this screen is shown."""
        if in_view(self) and self.loaded and self.listing is not None and not self._loading() and self._stamp:
            self.check_changes(replace(self._query, live=frozenset(self.app.runs.ids())), self._query.live,
                               self._stamp, self._generation)

    @staticmethod
    def _read_stamp(store) -> queries.SessionsStamp:
        return queries.sessions_stamp(store.conn)

    @work(thread=True, exclusive=True, group="home-check", exit_on_error=False)
    def check_changes(self, query: ListQuery, live_before: frozenset[int], stamp: queries.SessionsStamp,
                      generation: int) -> None:
        with self._check_store.use() as store:
            now = self._read_stamp(store)
            if now == stamp and query.live == live_before:
                return
            changed = set(queries.sessions_changed(store.conn, stamp)) | (query.live ^ live_before)
            places = listing.changes(store.conn, query, self._finals, sorted(changed))
            self.post_message(ListChanged(generation, query, places, now))

    def on_list_changed(self, message: ListChanged) -> None:
        if message.generation != self._generation or self.listing is None:
            return
        if message.stamp.count < self.total:
            self.reload()  # sessions were removed: read the list again
            return
        table = self.query_one(PagedTable)
        self._query = self.listing.query = message.query
        self._stamp, self.total = message.stamp, message.stamp.count
        selected = self._selected_id()
        self.listing.place(message.places)
        self._stale |= set(message.places) & set(self._shown)
        start = self._start
        at = self.listing.position(selected) if selected is not None else None
        if start and at is not None:
            start = max(0, at - table.cursor_row)  # the selected session stays on its line
        self._show(start, max(PAGE, table.row_count), None)

    # -- showing a part of the list -------------------------------------------------------
    def _order(self) -> list[int]:
        return self.listing.ids if self.listing is not None else self._top

    def _show(self, start: int, size: int, cursor: int | None) -> None:
        """Show list positions start..start+size (cursor: the position to put the cursor on, else
        it stays on the selected session); rows not read yet are read first."""
        order = self._order()
        start = max(0, min(start, len(order) - size))
        ids = order[start:start + size]
        missing = [sid for sid in ids if sid not in self._rows or sid in self._stale]
        if missing:
            self._want = (start, size, cursor)
            if not self._reading_rows:
                self._reading_rows = True
                self.read_rows(missing, self._query.live, self._generation)
            return
        self._present(start, ids, cursor)

    def _present(self, start: int, ids: list[int], cursor: int | None) -> None:
        """Make the table hold these rows, touching only those that differ, with the selected session
        (or the given position) under the cursor on the same line of the screen as before."""
        table = self.query_one(PagedTable)
        table.quiet = True
        selected = self._selected_id()
        old_row = table.cursor_row if table.row_count else 0
        line = old_row - round(table.scroll_y)
        at_top = self._start == 0 and table.scroll_y == 0
        old_start, self._start = self._start, start
        wanted = {sid: self._cut(self._rows[sid].cells()) for sid in ids}
        held = [int(r.key.value or 0) for r in table.ordered_rows]
        if len(set(held) & set(wanted)) * 2 < len(held):
            table.clear()  # little in common (a jump, a new filter): start afresh
            self._shown.clear()
            held = []
        table.remove_rows(str(sid) for sid in set(held) - set(wanted))
        for sid in set(held) - set(wanted):
            del self._shown[sid]
        for sid, cells in wanted.items():
            shown = self._shown.get(sid)
            if shown is None:
                table.add_row(*cells, key=str(sid))
            elif shown != cells:
                for key, old, new in zip(SORTS, shown, cells):
                    if old != new:
                        table.update_cell(str(sid), key, new, update_width=True)
            self._shown[sid] = cells
        if [int(r.key.value or 0) for r in table.ordered_rows] != ids:
            place = {str(sid): i for i, sid in enumerate(ids)}
            table.sort("id", key=place.__getitem__)
        self._rows = {sid: self._rows[sid] for sid in ids}  # let go of rows no longer held
        self.loaded = self.loaded or self.listing is not None
        if table.row_count:
            visible = table.visible_rows()
            if cursor is not None:
                row = min(max(0, cursor - start), table.row_count - 1)
                y = 0 if row < visible else row - visible + 1
            else:
                row = ids.index(selected) if selected in wanted else old_row + old_start - start
                row = min(max(0, row), table.row_count - 1)
                # at the top, stay there (new sessions come in on top, in view) while the cursor is
                # still visible; else keep the selected session on the same line of the screen
                y = 0 if at_top and start == 0 and row < visible else max(0, row - line)
            table.move_cursor(row=row, scroll=False)
            table.call_after_refresh(self._settled, table, y)
        else:
            table.quiet = False
        self._show_state()

    def _settled(self, table: PagedTable, y: int) -> None:
        table.scroll_to(y=y, animate=False, immediate=True)
        table.quiet = False
        table.check_edges()  # near an end of the rows held: read on

    @on(PagedTable.Edge)
    def edge(self, message: PagedTable.Edge) -> None:
        order = self.listing.ids if self.listing is not None else None
        if order is None:
            return
        if message.side == "first":
            self._show(0, PAGE, 0)
        elif message.side == "last":
            self._show(len(order) - PAGE, PAGE, len(order) - 1)
        if self._want is not None:
            return  # rows are on their way: the view is looked at again once they are shown
        table = self.query_one(PagedTable)
        start, held = self._start, table.row_count
        if message.side == "bottom" and start + held < len(order):
            end = min(len(order), start + held + PAGE)
            self._show(max(start, end - MOST), end - max(start, end - MOST), None)
        elif message.side == "top" and start > 0:
            first = max(0, start - PAGE)
            self._show(first, min(start + held, first + MOST) - first, None)

    def _show_state(self) -> None:
        """The empty-state panel instead of the table, and the focus, as the list now is."""
        table = self.query_one(PagedTable)
        empty = self.total == 0 and self.loaded
        self.query_one("#home-empty").display = empty
        if table.display != (not empty):
            table.display = not empty
            # the first sessions arrived (a refresh): focus the table unless a filter is being typed
            if not empty and (self.focused is None or not self._query.words):
                table.focus()
        self._show_count()

    def _show_count(self) -> None:
        arrow = "↓" if self.sort_reverse else "↑"
        listed = len(self.listing.ids) if self.listing is not None else None
        if self._query.words:
            count = f"{'…' if listed is None else listed} of {self.total}"
        else:
            count = f"{self.total if listed is None else listed}"
        pages = max(1, -(-(listed or 0) // PAGE))
        table = self.query_one(PagedTable)
        at = (self._start + table.cursor_row) // PAGE if table.row_count else 0
        page = f"  page {at + 1}/{pages} ([ ])" if pages > 1 else ""
        more = "" if self.listing is not None else " (loading…)"
        self.query_one("#home-count", Static).update(
            f"{count} session{'' if self.total == 1 else 's'}{more}  sort {SORTS[self.sort_index]}{arrow}{page}")

    @on(DataTable.RowHighlighted)
    def row_highlighted(self) -> None:
        self._show_count()  # the page the cursor is on

    # -- filtering, sorting, paging -----------------------------------------------------
    @on(Input.Changed, "#home-filter")
    def filter_changed(self) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(FILTER_DELAY, self.reload)

    @on(Input.Submitted, "#home-filter")
    def filter_done(self) -> None:
        self.query_one(PagedTable).focus()

    @on(DataTable.HeaderSelected)
    def header_selected(self, event: DataTable.HeaderSelected) -> None:
        index = SORTS.index(str(event.column_key.value))
        if index == self.sort_index:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_index, self.sort_reverse = index, False
        self.reload()

    def action_filter(self) -> None:
        box = self.query_one("#home-filter", Input)
        box.can_focus = True
        box.focus()

    def leave_input(self) -> None:
        """Escape in the filter: keep the filter, give the keys back to the table (n, q, ... work again)."""
        table = self.query_one(PagedTable)
        if table.display:
            table.focus()
        else:
            self.set_focus(None)

    def action_sort(self) -> None:
        self.sort_index = (self.sort_index + 1) % len(SORTS)
        self.sort_reverse = SORTS[self.sort_index] in ("id", "final", "created")
        self.reload()

    def action_page(self, step: int) -> None:
        """[ and ]: the previous or next PAGE sessions, the cursor on the first of them."""
        if self.listing is None or not self.listing.ids:
            return
        table = self.query_one(PagedTable)
        page = (self._start + table.cursor_row) // PAGE + step
        first = max(0, min(page, (len(self.listing.ids) - 1) // PAGE)) * PAGE
        self._show(first, PAGE, first)

    def action_reload(self) -> None:
        self.reload()

    # -- opening a session --------------------------------------------------------------
    def _cut(self, cells: tuple[str, ...]) -> tuple[str, ...]:
        """The cells as a screen this wide shows them: on a narrow one, long names end in an ellipsis."""
        if not self._narrow:
            return cells
        return tuple(c[:CUT[i] - 1] + "…" if i in CUT and len(c) > CUT[i] else c for i, c in enumerate(cells))

    def on_resize(self) -> None:
        narrow = self.size.width < NARROW
        if narrow == self._narrow:
            return
        self._narrow = narrow
        table = self.query_one(PagedTable)
        ids = [int(r.key.value or 0) for r in table.ordered_rows]
        selected = self._selected_id()
        table.clear(columns=True)  # columns only ever grow: new ones fit the cells as now cut
        for key in SORTS:
            table.add_column(key, key=key)
        self._shown.clear()
        if ids:
            at = self._start + ids.index(selected) if selected in ids else None
            self._present(self._start, ids, at)

    def _selected_id(self) -> int | None:
        table = self.query_one(PagedTable)
        if not table.row_count:
            return None
        return int(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value or 0)

    def selected(self) -> Row | None:
        table = self.query_one(PagedTable)
        if not table.row_count or not table.display:
            return None
        sid = self._selected_id()
        return self._rows.get(sid) if sid is not None else None

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
        elif row.status != "running" and not self.app.writable("resuming a session"):
            return
        elif row.status == "live":
            self.app.open_live(row.id)
        elif row.status == "running":
            self.app.open_live(row.id, follow=True)
        else:
            self.app.open_live(row.id)
