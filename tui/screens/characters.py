"""Browse character cards, spot-check one yourself, import card files into the library."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message as TMessage
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Header, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from pingpong.core.domain import HUMAN, OFFLINE, Character, SessionSpec, Situation
from pingpong.core.macros import with_names
from pingpong.tui.screens.pickers import PathPrompt
from pingpong.tui.widgets.footer import KeysFooter

if TYPE_CHECKING:
    from pingpong.tui.app import PingPongApp

LANGS = (None, "en", "ru")
SPOT_CHECK = "spot-check"


def card_text(card: Character, user_name: str | None = None) -> Text:
    """The card as a person reads it (names in place of {{char}}/{{user}}, as the models get it;
    user_name: config `user_name`)."""
    card = with_names(card, user_name)
    text = Text()
    text.append(f"{card.char_name}", style="bold")
    text.append(f"  {card.name} · {card.lang}", style="dim")
    if card.tags:
        text.append(f"  [{', '.join(card.tags)}]", style="dim")
    text.append("\n\nSummary (what the interrogator sees)\n", style="bold underline")
    text.append(card.summary)
    text.append("\n\nPersona (what the player sees)\n", style="bold underline")
    text.append(card.persona)
    if card.catchphrases:
        text.append("\n\nCatchphrases\n", style="bold underline")
        text.append("\n".join(f"• {line}" for line in card.catchphrases))
    if card.example_dialogue or card.example_text:
        text.append("\n\nExample dialogue\n", style="bold underline")
        for turn in card.example_dialogue:
            text.append("user: ", style="bold")
            text.append(f"{turn.user}\n")
            text.append(f"{card.char_name}: ", style="bold")
            text.append(f"{turn.char}\n")
        if card.example_text:
            text.append(card.example_text)
    if card.greeting:
        text.append("\n\nGreeting\n", style="bold underline")
        text.append(card.greeting)
    if card.origin:
        text.append(f"\n\nimported from {card.origin}", style="dim")
    return text


class SpotCheckScreen(ModalScreen[tuple[str, str | None, int] | None]):
    """Who plays the card, who judges (optional), how many turns."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="spot.cancel"),
                Binding("ctrl+s", "start", "Start", id="spot.start", priority=True)]

    def __init__(self, card: Character, models: list[str]) -> None:
        super().__init__()
        self.card = card
        self.models = models

    def compose(self) -> ComposeResult:
        seats = [(m, m) for m in self.models]
        with Vertical(classes="dialog"):
            yield Label(f"Spot-check {self.card.char_name}: you write the user's lines", classes="dialog-title")
            yield Horizontal(Label("Player", classes="form-label"),
                             Select(seats, value=OFFLINE if OFFLINE in self.models else self.models[0],
                                    allow_blank=False, compact=True, id="spot-player"), classes="form-row")
            yield Horizontal(Label("Judge", classes="form-label"),
                             Select([("no judge", "")] + seats, value="", allow_blank=False, compact=True,
                                    id="spot-judge"), classes="form-row")
            yield Horizontal(Label("Turns", classes="form-label"),
                             Input("3", type="integer", compact=True, id="spot-turns"), classes="form-row")
            yield Button("Start (ctrl+s)", variant="primary", id="spot-start")

    @on(Button.Pressed, "#spot-start")
    def action_start(self) -> None:
        try:
            turns = int(self.query_one("#spot-turns", Input).value or "3")
        except ValueError:
            turns = 0
        if not 1 <= turns <= 50:
            self.notify("Turns: a number from 1 to 50", severity="warning")
            return
        judge = self.query_one("#spot-judge", Select).value
        self.dismiss((str(self.query_one("#spot-player", Select).value), str(judge) or None, turns))

    def action_cancel(self) -> None:
        self.dismiss(None)


class CardsRead(TMessage):
    """The cards of one language (None: all), read in a worker thread, and the files skipped."""

    def __init__(self, lang: str | None, cards: list[Character], problems: list[str], select: str | None) -> None:
        super().__init__()
        self.lang, self.cards, self.problems, self.select = lang, cards, problems, select


class CardsImported(TMessage):
    """How an import ended: the cards saved, or the names already in the library from the same file
    (`again`: ask before replacing them), or why it failed."""

    def __init__(self, path: str, cards: list[Character], *, again: list[str] | None = None,
                 error: str | None = None) -> None:
        super().__init__()
        self.path, self.cards, self.again, self.error = path, cards, again or [], error


class CharactersScreen(Screen):
    """Card list with a detail pane; g switches language, s spot-checks, i imports."""

    PLACE_ACTIONS = ("characters",)
    """The palette's ways here (tui/palette.py): not offered while this screen is open."""

    app: PingPongApp

    BINDINGS = [
        Binding("s", "spot_check", "Spot-check", tooltip="Spot-check the card: you write the user's lines",
                id="cards.spot_check"),
        Binding("i", "import_card", "Import", tooltip="Import a card file", id="cards.import"),
        Binding("g", "lang", "Language", tooltip="Language filter: all, en, ru", id="cards.lang"),
        Binding("escape,q", "back", "Back", id="cards.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.lang = 0
        self.cards: list[Character] = []
        self.loaded = False  # the list shows the cards of the current language
        self._last_path = ""  # the path of an import that failed

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="cards-bar")
        with Horizontal(id="cards-body"):
            yield OptionList(id="cards-list")
            with VerticalScroll(id="card-detail"):
                yield Static("", id="card-text")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.sub_title = "characters"
        self.reload()
        self.query_one(OptionList).focus()

    def reload(self, select: str | None = None) -> None:
        """Read the cards again (in a thread: a library of a thousand cards takes most of a second),
        then list them; `select`: the card to highlight."""
        self.loaded = False
        self.query_one("#cards-bar", Static).update(f"reading cards · language {LANGS[self.lang] or 'all'}…")
        self._read(LANGS[self.lang], select)

    @work(thread=True, exclusive=True, group="cards-read", exit_on_error=False)
    def _read(self, lang: str | None, select: str | None) -> None:
        try:
            library = self.app.cards()
            cards = library.all(lang=lang)
            problems = list(getattr(library, "problems", []))
        except Exception as exc:
            cards, problems = [], [str(exc)]
        self.post_message(CardsRead(lang, cards, problems, select))

    def on_cards_read(self, message: CardsRead) -> None:
        if message.lang != LANGS[self.lang]:
            return  # read for a language switched away from since
        self.cards, select = message.cards, message.select
        for problem in message.problems:
            self.notify(problem, severity="warning", timeout=8)
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(f"{c.name} ({c.lang})", id=c.name) for c in self.cards])
        key = self.app.shown_key
        lang_key, spot_key, import_key = key("cards.lang", "g"), key("cards.spot_check", "s"), key("cards.import", "i")
        bar = (f"{len(self.cards)} cards · language {LANGS[self.lang] or 'all'}   "
               f"{lang_key} language  {spot_key} spot-check  {import_key} import")
        self.query_one("#cards-bar", Static).update(bar)
        names = [c.name for c in self.cards]
        if names:
            options.highlighted = names.index(select) if select in names else 0
        else:
            self.query_one("#card-text", Static).update(
                f"No cards here. Press {import_key} to import a card file (Character Card V1/V2/V3 JSON, PNG, "
                f".charx, PingPong settings JSON or our YAML), or {lang_key} to switch language.")
        self.loaded = True

    @on(OptionList.OptionHighlighted, "#cards-list")
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        card = self.current()
        if card is not None:
            self.query_one("#card-text", Static).update(card_text(card, self._user_name()))
            self.query_one("#card-detail").scroll_home(animate=False)

    @on(OptionList.OptionSelected, "#cards-list")
    def selected(self) -> None:
        self.action_spot_check()

    def _user_name(self) -> str | None:
        from pingpong.core.config import user_name
        from pingpong.core.errors import UserError

        try:
            return user_name(self.app.home)
        except UserError as exc:
            self.notify(str(exc), severity="warning")
            return None

    def current(self) -> Character | None:
        index = self.query_one(OptionList).highlighted
        return self.cards[index] if index is not None and index < len(self.cards) else None

    def action_lang(self) -> None:
        card = self.current()
        self.lang = (self.lang + 1) % len(LANGS)
        self.reload(select=card.name if card else None)  # kept where the new language lists it

    def action_spot_check(self) -> None:
        card = self.current()
        if card is None:
            self.notify("No card selected", severity="warning")
            return
        if not self.app.writable("a spot-check session"):
            return
        try:
            models = list(self.app.models)
        except Exception as exc:
            self.notify(str(exc), severity="error")
            models = [OFFLINE]

        def chosen(result) -> None:
            if result is None:
                return
            player, judge, turns = result
            situation = Situation(name=SPOT_CHECK, lang=card.lang, text="spot-check chat", num_turns=turns)
            spec = SessionSpec(character=card.name, situation=SPOT_CHECK, player=player, interrogator=HUMAN,
                               judges=[judge] if judge else [], num_turns=turns, lang=card.lang)
            try:
                session_id = self.app.start_session(spec, card, situation)
            except Exception as exc:
                self.notify(str(exc), severity="error")
                return
            self.app.open_live(session_id)

        self.app.push_screen(SpotCheckScreen(card, models), chosen)

    def action_import_card(self) -> None:
        def chosen(path: str | None) -> None:
            if path:
                self._last_path = path  # shown again if the import fails, to fix a typo
                self.import_path(path)

        self.app.push_screen(PathPrompt("Import a card file",
                                        "Character Card JSON / PNG / .charx, PingPong settings JSON, our YAML",
                                        value=self._last_path), chosen)

    @work(thread=True, exclusive=True, group="cards-import", exit_on_error=False)
    def import_path(self, path: str, *, replace: bool = False) -> None:
        """Import every card in the file into the user's library, in a worker thread (it reads the
        whole library to name the new cards); the outcome comes back as CardsImported. Another
        file's card of the same name gets a new name; the same file imported again asks before its
        cards are replaced (as `cards import` wants --force)."""
        from pingpong.characters.importers import import_card
        from pingpong.core.safe_parse import real_path

        try:
            library = self.app.cards()
            origin = str(real_path(Path(path)))
            cards = import_card(path, taken=library.names_for_import(origin))
            again = [c.name for c in cards if c.name in library.names() and library.source(c.name) == "user"]
            if again and not replace:
                self.post_message(CardsImported(path, [], again=again))
                return
            for card in cards:
                library.save(card)
        except Exception as exc:
            self.post_message(CardsImported(path, [], error=str(exc)))
            return
        self.post_message(CardsImported(path, cards))

    def on_cards_imported(self, message: CardsImported) -> None:
        if message.error:
            self.notify(message.error, title="import failed", severity="error", timeout=10)
            return
        if message.again:
            self._ask_replace(message.path, message.again)
            return
        self._last_path = ""
        names = [c.name for c in message.cards]
        self.notify(f"imported {', '.join(names)}", title="cards imported")
        if LANGS[self.lang] is not None and all(c.lang != LANGS[self.lang] for c in message.cards):
            self.lang = 0
        self.reload(select=names[0] if names else None)

    def _ask_replace(self, path: str, names: list[str]) -> None:
        from pingpong.tui.screens.choice import ChoiceScreen

        def answered(choice: str | None) -> None:
            if choice == "replace":
                self.import_path(path, replace=True)

        self.app.push_screen(ChoiceScreen(
            "Replace your cards?", f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} already in your "
            f"library from this file; importing it again replaces {'it' if len(names) == 1 else 'them'}.",
            [("r", "Replace", "replace"), ("escape", "Keep mine", "keep")]), answered)

    def action_back(self) -> None:
        self.app.pop_screen()
