"""The Agreement screen: can the judges be trusted? What `pingpong agreement` shows, in tables.

The report is the CLI's (sessions.agreement), computed in a thread worker, and its tables are the
CLI's cells (tui/commands/agreement_tables.py). `l` switches the turn and the conversation level,
`g` the language, as `--level` and `--lang` do. With nothing people scored to compare, the screen
says how to rate instead of showing an empty table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message as TMessage
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from pingpong.tui.widgets.footer import KeysFooter
from pingpong.tui.widgets.panels import EmptyState
from pingpong.tui.widgets.tables import SizedTable
from pingpong.tui.worker_store import StoreClosed, WorkerStore

if TYPE_CHECKING:
    from pingpong.sessions.agreement import AgreementReport
    from pingpong.tui.app import PingPongApp

EMPTY_TEXT = (
    "[b]No {units} carry both a person's score and a judge's yet{where}.[/b]\n\n"
    "The agreement compares the judges' scores with people's. To rate some:\n"
    "- the rating queue: [b]{annotate}[/b] on Home (or [b]pingpong annotate[/b]) shows conversations "
    "blind, one by one;\n"
    "- one score at a time: [b]{override}[/b] on a replay, or "
    "[b]pingpong sessions score ID --turn N --metric fluency --value 3[/b].\n\n"
    "A rating of a whole conversation counts at the conversation level: [b]{level}[/b] switches the level."
)


class AgreementLoaded(TMessage):
    """The report for a level and language, computed in the worker (None with the error line)."""

    def __init__(self, generation: int, report: AgreementReport | None, error: str | None = None) -> None:
        super().__init__()
        self.generation, self.report, self.error = generation, report, error


class AgreementLanguages(TMessage):
    """The languages stored sessions are in: what `g` goes through."""

    def __init__(self, langs: list[str]) -> None:
        super().__init__()
        self.langs = langs


class AgreementScreen(Screen):
    """Judges against people and against each other; l: level, g: language."""

    PLACE_ACTIONS = ("agreement",)
    """The palette's ways here (tui/palette.py): not offered while this screen is open."""

    app: PingPongApp

    BINDINGS = [
        Binding("l", "level", "Level", tooltip="Level: pair scores per turn or per conversation",
                id="agreement.level"),
        Binding("g", "lang", "Language", tooltip="Language filter", id="agreement.lang"),
        Binding("f5", "reload", "Reload", id="agreement.reload"),
        Binding("escape,q", "back", "Back", id="agreement.back"),
    ]

    def __init__(self, level: str = "turn") -> None:
        super().__init__()
        self.level = level
        self.langs: tuple[str | None, ...] = (None,)
        self.lang = 0  # an index into self.langs
        self.generation = 0  # of the request: a report for an earlier one is dropped
        self.report: AgreementReport | None = None
        self._store = WorkerStore(lambda: self.app.open_store())

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="agreement-note")
        yield EmptyState("", id="agreement-empty")
        yield VerticalScroll(id="agreement-body")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.sub_title = "agreement"
        self.query_one("#agreement-empty").display = False
        self.action_reload()
        self.load_languages()

    def on_unmount(self) -> None:
        self._store.close()

    def _describe(self) -> str:
        return f"level: {self.level}  ·  language: {self.langs[self.lang] or 'all'}"

    def action_reload(self) -> None:
        self.generation += 1
        self.query_one("#agreement-note", Static).update(f"computing ({self._describe()})…")
        self.compute(self.generation, self.level, self.langs[self.lang])

    def action_level(self) -> None:
        from pingpong.sessions.agreement import LEVELS

        self.level = LEVELS[(LEVELS.index(self.level) + 1) % len(LEVELS)]
        self.action_reload()

    def action_lang(self) -> None:
        self.lang = (self.lang + 1) % len(self.langs)
        self.action_reload()

    @work(thread=True, group="agreement-langs", exit_on_error=False)
    def load_languages(self) -> None:
        from pingpong.sessions.queries import languages

        try:
            with self._store.use() as store:
                self.post_message(AgreementLanguages(languages(store.conn)))
        except StoreClosed:
            return

    def on_agreement_languages(self, message: AgreementLanguages) -> None:
        shown = self.langs[self.lang]
        self.langs = (None, *message.langs)
        self.lang = self.langs.index(shown) if shown in self.langs else 0

    @work(thread=True, exclusive=True, group="agreement", exit_on_error=False)
    def compute(self, generation: int, level: str, lang: str | None) -> None:
        from pingpong.sessions.agreement import agreement_report

        try:
            with self._store.use() as store:
                report = agreement_report(store, level=level, lang=lang)
        except StoreClosed:
            return
        except Exception as exc:  # a broken database is a line on screen, not a crash
            self.post_message(AgreementLoaded(generation, None, str(exc)))
            return
        self.post_message(AgreementLoaded(generation, report))

    async def on_agreement_loaded(self, message: AgreementLoaded) -> None:
        from pingpong.tui.commands.agreement_tables import agreement_sections, has_people, units

        if message.generation != self.generation:
            return
        self.report = message.report
        note = self.query_one("#agreement-note", Static)
        body = self.query_one("#agreement-body", VerticalScroll)
        await body.remove_children()
        empty = self.query_one("#agreement-empty", EmptyState)
        if message.report is None:
            note.update(Text(message.error or "", style="bold red"))
            empty.display = False
            return
        report = message.report
        people = has_people(report)
        empty.display = not people
        if not people:
            lang = self.langs[self.lang]
            key = self.app.shown_key
            empty.update(EMPTY_TEXT.format(units=units(report.level), where=f" in {lang}" if lang else "",
                                           annotate=key("home.annotate", "a"), override=key("replay.override", "o"),
                                           level=key("agreement.level", "l")))
        sections = agreement_sections(report)
        if not people:
            sections = sections[1:]  # the note above stands for the empty judges-vs-people table
        for section in sections:
            title = Static(section.title, classes="agreement-title")
            if not section.body:
                await body.mount(title, Static(section.empty, classes="agreement-none"))
                continue
            table = SizedTable(classes="agreement-table", cursor_type="row", zebra_stripes=True)
            await body.mount(title, table)
            for column in section.columns:
                table.add_column(column.title)
            table.add_rows([[Text(cell, justify="right") if column.number else cell
                             for column, cell in zip(section.columns, cells)] for cells in section.body])
        note.update(self._describe())

    def tables(self) -> list[tuple[str, list[list[str]]]]:
        """Each shown table's title and its rows as text (what the person reads), for checks."""
        titles = [str(s.render()) for s in self.query(".agreement-title").results(Static)]
        rows = [[[str(c) for c in t.get_row_at(i)] for i in range(t.row_count)]
                for t in self.query(".agreement-table").results(DataTable)]
        return list(zip(titles, rows))

    def action_back(self) -> None:
        self.app.pop_screen()
