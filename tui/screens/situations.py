"""Browse what each method runs (situations, DMT seeds, RoleInteract probe sets and group scenes,
RoleBench question sets) and start a session with one.

The rows and the details are those of `pingpong situations list|show` (situations.catalog). The
libraries are read in a worker thread, so a big user library never stalls the screen; a user file
that does not load is left out and shown as a warning.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message as TMessage
from textual.screen import Screen
from textual.widgets import DataTable, Header, Label, Select, Static

from pingpong.core.methods import available
from pingpong.situations.catalog import SET_KINDS, Entry, Listing
from pingpong.tui.widgets.footer import KeysFooter
from pingpong.tui.widgets.tables import SizedTable

if TYPE_CHECKING:
    from pingpong.tui.app import PingPongApp

ALL = "all"
LANGS = (ALL, "en", "ru")
COLUMNS = ("name", "kind", "lang", "size", "character", "about")


class SituationsRead(TMessage):
    """What one method offers in one language, read in a worker thread (error: why nothing is listed)."""

    def __init__(self, method: str, lang: str, listing: Listing | None, error: str | None = None) -> None:
        super().__init__()
        self.method, self.lang, self.listing, self.error = method, lang, listing, error


def session_defaults(entry: Entry, method: str) -> dict[str, object]:
    """The new-session form's prefill for an item: the method, its language, the item as the
    situation and the card it is written for. A set starts with its first probe or question (the
    first general question that has some card's in-role answers), which the form lets one change."""
    if entry.kind in SET_KINDS and entry.children is not None:
        children = entry.children()
        entry = next((c for c in children if c.character), children[0]) if children else entry
    defaults: dict[str, object] = {"method": method, "lang": entry.lang, "situation": entry.name}
    if entry.character:
        defaults["character"] = entry.character
    return defaults


class SituationsScreen(Screen):
    """A method's items in a table, the highlighted one's details below; n starts a session with it."""

    PLACE_ACTIONS = ("situations",)
    """The palette's ways here (tui/palette.py): not offered while this screen is open."""

    app: PingPongApp

    BINDINGS = [
        Binding("n", "new_session", "New session", tooltip="New session with the selected item",
                id="situations.new_session"),
        Binding("m", "method", "Method", tooltip="Next method: " + ", ".join(available()), id="situations.switch_method"),
        Binding("g", "lang", "Language", tooltip="Language: all, en, ru", id="situations.switch_lang"),
        Binding("escape,q", "back", "Back", id="situations.back"),
    ]

    def __init__(self, method: str = "pingpong", lang: str = ALL) -> None:
        super().__init__()
        self.method, self.lang = method, lang
        self.listing: Listing | None = None
        self.rows: list[Entry] = []  # the table's rows in order: a set's items follow it when it is open
        self.opened: set[str] = set()  # names of the sets whose items are shown
        self.loaded = False  # the table shows the current method and language
        self.warned: set[str] = set()  # problems already told (every read of a library finds them again)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="sit-bar"):
            yield Label("Method", classes="sit-label")
            yield Select([(m, m) for m in available()], value=self.method, allow_blank=False, compact=True,
                         id="sit-method")
            yield Label("Language", classes="sit-label")
            yield Select([(lang, lang) for lang in LANGS], value=self.lang, allow_blank=False, compact=True,
                         id="sit-lang")
        yield Static("", id="sit-count")
        yield SizedTable(cursor_type="row", zebra_stripes=True, id="sit-table")
        with VerticalScroll(id="sit-detail"):
            yield Static("", id="sit-text")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.sub_title = "situations"
        self.reload()
        self.query_one(DataTable).focus()

    # -- reading ------------------------------------------------------------------------
    def reload(self) -> None:
        self.loaded = False
        self.query_one("#sit-count", Static).update("reading…")
        self._read(self.method, self.lang)

    @work(thread=True, exclusive=True, group="situations-read", exit_on_error=False)
    def _read(self, method: str, lang: str) -> None:
        from pingpong.situations.catalog import listing

        try:
            read = SituationsRead(method, lang, listing(self.app.catalog(), method, None if lang == ALL else lang))
        except Exception as exc:  # a broken bundled file (a bug of ours) or an unreadable folder
            read = SituationsRead(method, lang, None, error=str(exc))
        self.post_message(read)

    def on_situations_read(self, read: SituationsRead) -> None:
        if (read.method, read.lang) != (self.method, self.lang):
            return  # read for a method or language switched away from since
        if read.error:
            self.notify(read.error, title="situations", severity="error", timeout=10)
        self.listing = read.listing
        self.opened.clear()
        for problem in read.listing.problems if read.listing else []:
            if problem not in self.warned:
                self.warned.add(problem)
                self.notify(problem, title="skipped a file", severity="warning", timeout=8)
        self._fill()
        self.loaded = True

    # -- the table ----------------------------------------------------------------------
    def _fill(self, keep: Entry | None = None) -> None:
        """Rows for the listing (a set's items under it when opened); the cursor stays on `keep`."""
        entries = self.listing.entries if self.listing else []
        self.rows = []
        for entry in entries:
            self.rows.append(entry)
            if entry.name in self.opened and entry.children is not None:
                self.rows += entry.children()
        table = self.query_one(DataTable)
        # no character column where no item names a card (plain situations)
        columns = [c for c in COLUMNS if c != "character" or any(e.character for e in self.rows)]
        if [str(c.label) for c in table.columns.values()] != columns:
            table.clear(columns=True)
            table.add_columns(*columns)
        else:
            table.clear()
        for entry in self.rows:
            cells = dict(zip(COLUMNS, self._cells(entry)))
            table.add_row(*(cells[c] for c in columns))
        self._count(entries)
        if keep is not None and keep in self.rows:
            table.move_cursor(row=self.rows.index(keep), animate=False)
        self._show(self.current())

    def _cells(self, entry: Entry) -> tuple[str, ...]:
        if entry.kind in SET_KINDS:
            name = f"{'▾' if entry.name in self.opened else '▸'} {entry.name}"
        elif entry.kind in ("probe", "question"):
            name = f"    {entry.name}"
        else:
            name = entry.name
        about = entry.about or (" ".join(str(entry.row.get("text", "")).split()) if entry.kind == "situation" else "")
        return name, entry.label, entry.lang, entry.size, entry.character, about  # untagged: its text, as the CLI lists it

    def _count(self, entries: list[Entry]) -> None:
        problems = len(self.listing.problems) if self.listing else 0
        counts = Counter(e.label for e in entries)
        text = ", ".join(f"{n} {label}{'s' if n != 1 else ''}" for label, n in counts.items()) or "nothing listed"
        if problems:
            text += f" · {problems} file{'s' if problems > 1 else ''} skipped"
        self.query_one("#sit-count", Static).update(text)

    def current(self) -> Entry | None:
        row = self.query_one(DataTable).cursor_row
        return self.rows[row] if self.rows and 0 <= row < len(self.rows) else None

    def _show(self, entry: Entry | None) -> None:
        from pingpong.tui.situation_details import details_view

        text = self.query_one("#sit-text", Static)
        if entry is None:
            new = self.app.shown_key("situations.switch_method", "m")
            text.update(f"Nothing here. Press {new} for another method, or put your own files in "
                        f"{self.app.home.situations_dir}.")
        else:
            view = details_view(entry.show().details)
            if entry.kind in SET_KINDS:  # said here, where it shows at any width
                what = "close it" if entry.name in self.opened else "list what is in it"
                new = self.app.shown_key("situations.new_session", "n")
                view = Group(Text(f"enter: {what}; {new}: start a session with its first item", style="italic"), view)
            text.update(view)
        self.query_one("#sit-detail").scroll_home(animate=False)

    @on(DataTable.RowHighlighted, "#sit-table")
    def highlighted(self) -> None:
        self._show(self.current())

    @on(DataTable.RowSelected, "#sit-table")
    def selected(self) -> None:
        """enter: a set opens (or closes) to list its probes or questions; any other item starts a session."""
        entry = self.current()
        if entry is None:
            return
        if entry.kind not in SET_KINDS:
            self.action_new_session()
            return
        self.opened ^= {entry.name}
        self._fill(keep=entry)

    # -- choosing -----------------------------------------------------------------------
    @on(Select.Changed, "#sit-method")
    def method_changed(self, event: Select.Changed) -> None:
        if event.value is not Select.NULL and event.value != self.method:
            self.method = str(event.value)
            self.reload()
        self.query_one(DataTable).focus()  # a pick made, the keys are the list's again

    @on(Select.Changed, "#sit-lang")
    def lang_changed(self, event: Select.Changed) -> None:
        if event.value is not Select.NULL and event.value != self.lang:
            self.lang = str(event.value)
            self.reload()
        self.query_one(DataTable).focus()

    def action_method(self) -> None:
        methods = available()
        self.query_one("#sit-method", Select).value = methods[(methods.index(self.method) + 1) % len(methods)]

    def action_lang(self) -> None:
        self.query_one("#sit-lang", Select).value = LANGS[(LANGS.index(self.lang) + 1) % len(LANGS)]

    def action_new_session(self) -> None:
        entry = self.current()
        if entry is None:
            self.notify("Nothing selected", severity="warning")
            return
        self.app.action_new_session(session_defaults(entry, self.method))

    def action_back(self) -> None:
        self.app.pop_screen()
