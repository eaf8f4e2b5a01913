"""The Models screen: every configured model and whether its endpoint answers, as `pingpong models`.

The rows and the checks are the CLI's (tui/commands/models.py): a thread worker reads the config,
then asks every endpoint at once and posts each answer as it comes, so a slow or dead endpoint
holds up only its own row. Keys are read from the environment only to be sent; the rows the
screen gets carry the variable's name and whether it is set, never the key.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message as TMessage
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from pingpong.tui.widgets.footer import KeysFooter
from pingpong.tui.widgets.panels import EmptyState
from pingpong.tui.widgets.tables import SizedTable

if TYPE_CHECKING:
    from pingpong.tui.app import PingPongApp
    from pingpong.tui.commands.models import Answer, ModelRow

COLUMNS = ("Name", "Reachable", "Latency", "Model", "Endpoint", "Note")
CHECKING = "checking…"
EMPTY_TEXT = (
    "[b]No models configured yet[/b]: only the built-in [i]offline[/i] stand-in, which needs no key and no "
    "network.\n\n"
    "Add one to [b]{config}[/b]:\n\n"
    "  \\[models.gpt-4o-mini]\n"
    "  base_url = \"https://api.openai.com/v1\"\n"
    "  model = \"gpt-4o-mini\"\n"
    "  api_key_env = \"OPENAI_API_KEY\"   [dim]# its name, never the key[/dim]\n\n"
    "Any OpenAI-compatible endpoint works; README's \"Models\" section has every setting. "
    "Then press [b]{check}[/b] to check it."
)


class ModelsPlanned(TMessage):
    """The configured models read from config.toml (no answers yet), or the line saying why not."""

    def __init__(self, generation: int, rows: list[ModelRow], asked: set[int], error: str | None = None) -> None:
        super().__init__()
        self.generation, self.rows, self.asked, self.error = generation, rows, asked, error


class EndpointChecked(TMessage):
    """One endpoint's answer: the row it belongs to (its index) and what the check said."""

    def __init__(self, generation: int, index: int, answer: Answer) -> None:
        super().__init__()
        self.generation, self.index, self.answer = generation, index, answer


def latency_text(row: ModelRow) -> str:
    """How long a reachable endpoint took to answer ("" until then, or when it did not answer)."""
    if row.reachable != "yes" or row.seconds is None:
        return ""
    return f"{row.seconds * 1000:.0f} ms"


def settings_text(row: ModelRow) -> str:
    """The settings that bound a call to this model."""
    spec = row.spec
    parts = [f"max_concurrency {spec.max_concurrency}"]
    if spec.kind != "offline":
        parts += [f"timeout {spec.timeout:g}s", f"deadline {spec.deadline:g}s"]
        if spec.merge_system:
            parts.append("merge_system")
    return " · ".join(parts)


def params_text(row: ModelRow) -> str:
    """The params that override the role defaults, then the defaults themselves."""
    from pingpong.core.llm import ROLE_DEFAULTS

    defaults = ", ".join(f"{role} {v['temperature']:g}/{v['top_p']:g}/{v['max_tokens']:g}"
                         for role, v in ROLE_DEFAULTS.items())
    own = ", ".join(f"{k} = {v}" for k, v in row.spec.params.items())
    base = f"role defaults (temperature/top_p/max_tokens) {defaults}"
    return f"params: {own}, over the {base}" if own else f"params: the {base}"


class ModelsScreen(Screen):
    """The configured models; their endpoints are checked on opening and again with r."""

    PLACE_ACTIONS = ("models",)
    """The palette's ways here (tui/palette.py): not offered while this screen is open."""

    app: PingPongApp

    BINDINGS = [
        Binding("r,f5", "check", "Check again", tooltip="Check every endpoint again", id="models.check"),
        Binding("escape,q", "back", "Back", id="models.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[ModelRow] = []
        self.pending: set[int] = set()  # rows whose answer has not come yet
        self.generation = 0  # of the check: answers of an earlier one are dropped

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="models-note")
        yield SizedTable(id="models-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="models-detail")
        yield EmptyState("", id="models-empty")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.sub_title = "models"
        table = self.query_one(DataTable)
        for column in COLUMNS:
            table.add_column(column, key=column)
        self.query_one("#models-empty").display = False
        self.action_check()

    def action_check(self) -> None:
        self.generation += 1
        self.query_one("#models-note", Static).update("reading the models…")
        self.check(self.generation)

    @work(thread=True, exclusive=True, group="models-check", exit_on_error=False)
    def check(self, generation: int) -> None:
        """Read the config, post the rows, then post each endpoint's answer as it comes."""
        from pingpong.core.errors import UserError
        from pingpong.tui.commands.models import check_all, plan_rows

        try:
            rows = plan_rows(self.app.home)
        except UserError as exc:
            self.post_message(ModelsPlanned(generation, [], set(), str(exc)))
            return
        asked = {i for i, row in enumerate(rows) if row.probe is not None}
        self.post_message(ModelsPlanned(generation, [replace(row, probe=None) for row in rows], asked))  # no key

        def answered(index: int, answer: Answer) -> None:
            self.post_message(EndpointChecked(generation, index, answer))

        check_all(rows, answered)

    def on_models_planned(self, message: ModelsPlanned) -> None:
        if message.generation != self.generation:
            return
        self.rows = message.rows
        note = self.query_one("#models-note", Static)
        if message.error:
            note.update(Text(message.error, style="bold red"))
        table = self.query_one(DataTable)
        configured = [row for row in self.rows if row.spec.kind != "offline"]
        empty = not configured and not message.error
        table.display = not empty and not message.error
        self.query_one("#models-detail").display = table.display
        if table.display:
            table.focus()  # it was hidden (no models yet, a broken config): the arrows move in it again
        empty_state = self.query_one("#models-empty", EmptyState)
        empty_state.display = empty
        if empty:
            empty_state.update(EMPTY_TEXT.format(config=self.app.home.config_path,
                                                 check=self.app.shown_key("models.check", "r")))
        self.pending = set(message.asked)
        cursor = table.cursor_row
        table.clear()
        for i, row in enumerate(self.rows):
            table.add_row(*self._cells(row, i), key=str(i))
        if self.rows:
            table.move_cursor(row=min(cursor, len(self.rows) - 1))
        if not message.error:  # the error line stays in the note
            self._note()
        self._detail()

    def _cells(self, row: ModelRow, index: int) -> tuple[str | Text, ...]:
        from pingpong.core.config import shown_url

        if index in self.pending:
            reach: str | Text = Text(CHECKING, style="dim")
        else:
            style = {"yes": "green", "no": "bold red"}.get(row.reachable, "yellow")
            reach = Text(row.reachable, style=style)
        endpoint = shown_url(row.spec.base_url) if row.spec.base_url else "-"
        note = "" if index in self.pending else (row.reason or "")
        return (row.spec.name, reach, latency_text(row), row.spec.model or "-", endpoint, note)

    def on_endpoint_checked(self, message: EndpointChecked) -> None:
        if message.generation != self.generation or message.index >= len(self.rows):
            return
        row = self.rows[message.index]
        row.answered(message.answer)
        self.pending.discard(message.index)
        table = self.query_one(DataTable)
        for column, cell in zip(COLUMNS, self._cells(row, message.index)):
            table.update_cell(str(message.index), column, cell, update_width=True)
        self._note()
        if table.cursor_row == message.index:
            self._detail()

    def _note(self) -> None:
        """What the checks came to so far: how many endpoints answer, how many are still asked."""
        remote = [(i, row) for i, row in enumerate(self.rows) if row.spec.kind != "offline"]
        if not remote:
            self.query_one("#models-note", Static).update("")
            return
        done = [row.reachable for i, row in remote if i not in self.pending]
        parts = [f"{done.count('yes')} reachable", f"{done.count('no')} unreachable"]
        if done.count("skipped"):
            parts.append(f"{done.count('skipped')} not checked")
        if self.pending:
            parts.append(f"checking {len(self.pending)}…")
        head = f"{len(remote)} configured model{'s' if len(remote) != 1 else ''}: "
        self.query_one("#models-note", Static).update(head + ", ".join(parts))

    def on_data_table_row_highlighted(self, _message: DataTable.RowHighlighted) -> None:
        self._detail()

    def _detail(self) -> None:
        """Everything about the highlighted model: key variable, settings, params and the check's line."""
        from pingpong.tui.commands.models import key_text, reach_text

        table = self.query_one(DataTable)
        index = table.cursor_row
        if not self.rows or not 0 <= index < len(self.rows):
            return
        row = self.rows[index]
        out = Text()
        out.append(row.spec.name, style="bold")
        out.append(f"  {row.spec.kind}")
        if row.spec.kind != "offline":
            out.append(f"  key: {key_text(row) if row.key_set is not None else 'no key variable'}")
        out.append(f"\n{settings_text(row)}\n{params_text(row)}\n", style="dim")
        out.append("reachable: ")
        out.append(CHECKING if index in self.pending else reach_text(row),
                   style="bold red" if row.reachable == "no" and index not in self.pending else "")
        self.query_one("#models-detail", Static).update(out)

    def action_back(self) -> None:
        self.app.pop_screen()
