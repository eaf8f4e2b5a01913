"""The conversation as a scrollable column of message cards, with a selectable player turn.

Used by the live, follow and replay views. Each card names its author (model or "human");
player cards carry the judges' and people's scores once they exist. In a group scene each card
names its speaker instead of the role, in the speaker's own colour (name and left border); a DMT
round's cards say why the round went where it went (round_notes).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message as TMessage
from textual.reactive import reactive
from textual.widgets import Static

from pingpong.core.domain import HUMAN, JudgeVerdict, Message
from pingpong.tui.widgets.round_notes import round_note
from pingpong.tui.widgets.scoring import score_line

ROLE_LABEL = {"user": "interrogator", "assistant": "player"}
SPEAKER_COLOURS = ("#5fd7ff", "#ff87d7", "#87d75f", "#ffd75f", "#87afff",
                   "#ff8700", "#d7afff", "#5fffaf", "#ff5f5f", "#d7d787")
"""One colour per group scene member, in cast order (a scene seats at most ten)."""


class Speaker:
    """How a group scene's speaker is shown: the character's name and colour (narrator: neither)."""

    __slots__ = ("label", "colour")

    def __init__(self, label: str, colour: str | None = None) -> None:
        self.label = label
        self.colour = colour


def card_head(turn: int, role: str, author: str, speaker: Speaker | None, *, writing: bool = False,
              ending: str | None = None) -> Text:
    """A card's first line: the turn, who speaks (role or character) and who wrote it."""
    head = Text()
    head.append(f"{turn}", style="bold")
    if speaker is not None and speaker.colour:
        head.append(" ")
        head.append(speaker.label, style=f"bold {speaker.colour}")
        head.append(f" {author}", style="dim")
    elif speaker is not None:  # the narrator: its lines come from the scene file
        head.append(f" {speaker.label}", style="italic")
    else:
        head.append(f" {ROLE_LABEL.get(role, role)} ", style="dim")
        head.append(author, style="bold")
    if writing:
        head.append("  writing…", style="italic dim")
    if ending:  # "cut at max_tokens", "stopped by the provider's content filter"
        head.append(f"  {ending}", style="bold yellow")
    return head


class MessageCard(Static):
    """One completed message."""

    DEFAULT_CSS = """
    MessageCard { height: auto; padding: 0 1; margin: 0 0 1 0; }
    """

    def __init__(self, turn: int, role: str, author: str, text: str, *, ending: str | None = None,
                 speaker: Speaker | None = None, notes: dict[str, str] | None = None) -> None:
        super().__init__(classes=f"-{role}")
        self.turn = turn
        self.role = role
        self.author = author
        self.body = text
        self.notes = dict(notes or {})
        self.scores = Text()
        self.ending = ending  # how the model's reply ended, when not with a plain stop
        self.speaker = speaker
        if author == HUMAN:
            self.add_class("-human")

    def on_mount(self) -> None:
        if self.speaker is not None and self.speaker.colour and self.author != HUMAN:
            self.styles.border_left = ("thick", self.speaker.colour)
        self.redraw()

    def redraw(self) -> None:
        parts = [card_head(self.turn, self.role, self.author, self.speaker, ending=self.ending), Text(self.body)]
        note = round_note(self.role, self.notes)
        if note:
            parts.append(note)
        if self.scores:
            parts.append(self.scores)
        self.update(Text("\n").join(parts))


class StreamingCard(Vertical):
    """The message being written, drawn as it grows. Text is only ever added at its end, so once
    the lines it has finished come to BLOCK characters they go into a block of their own, drawn
    once; only the rest (the tail) is drawn again, however long the message grows. Each line
    wraps on its own, so the blocks look as one text would."""

    BLOCK = 1500  # fewer, larger blocks: each widget costs the screen's layout more than its text

    DEFAULT_CSS = """
    StreamingCard { height: auto; padding: 0 1; margin: 0 0 1 0; }
    StreamingCard > Static { height: auto; }
    """

    def __init__(self, turn: int, role: str, author: str, *, speaker: Speaker | None = None) -> None:
        super().__init__(classes=f"-{role}" + (" -human" if author == HUMAN else ""))
        self.turn = turn
        self.role = role
        self.author = author
        self.speaker = speaker
        self.body = ""
        self._done = 0  # characters of body in blocks
        self._tail = Static("…")

    def compose(self):
        yield Static(card_head(self.turn, self.role, self.author, self.speaker, writing=True))
        yield self._tail

    def on_mount(self) -> None:
        if self.speaker is not None and self.speaker.colour and self.author != HUMAN:
            self.styles.border_left = ("thick", self.speaker.colour)
        self._draw()

    def show(self, text: str) -> None:
        """The text so far: what is new is added; anything else (a retry starts over) is drawn anew."""
        if text == self.body:
            return
        if not text.startswith(self.body):
            self.query(".-block").remove()
            self._done = 0
        self.body = text
        self._draw()

    def _draw(self) -> None:
        rest = self.body[self._done:]
        end = rest.rfind("\n") if self.is_mounted else -1
        if end >= self.BLOCK:  # whole lines: a block of their own, before the tail
            self.mount(Static(Text(rest[:end]), classes="-block"), before=self._tail)
            self._done += end + 1
        self._tail.update(Text(self.body[self._done:] if self.body else "…"))


class Transcript(VerticalScroll):
    """Message cards; up/down (or [ ]) select a player turn for the explanations panel."""

    BINDINGS = [
        Binding("up,k", "select(-1)", "Prev turn", show=False, id="transcript.prev"),
        Binding("down,j", "select(1)", "Next turn", show=False, id="transcript.next"),
    ]

    selected_turn: reactive[int | None] = reactive(None, init=False)

    class TurnSelected(TMessage):
        def __init__(self, turn: int | None) -> None:
            super().__init__()
            self.turn = turn

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self._stream: StreamingCard | None = None
        self._verdicts: Sequence[JudgeVerdict] = ()
        self._human: Sequence[Any] = ()
        self._speakers: dict[str, Speaker] = {}
        self._greeting: Static | None = None

    def set_greeting(self, name: str, text: str | None) -> None:
        """The card's greeting above turn 1: what the player "said" before the conversation, as the
        player and a model interrogator were given it (a person in the seat reads it here)."""
        if self._greeting is not None:
            self._greeting.remove()
            self._greeting = None
        if text:
            line = Text.assemble((f"{name} (greeting, before turn 1)\n", "dim bold"), (text, "dim"))
            self._greeting = Static(line, classes="greeting")
            self.mount(self._greeting, before=0 if self.children else None)

    def set_cast(self, names: dict[str, str]) -> None:
        """A group scene's members (card name -> the name shown), in cast order: from now on cards
        name their speaker, each member in its own colour."""
        self._speakers = {name: Speaker(label, SPEAKER_COLOURS[i % len(SPEAKER_COLOURS)])
                          for i, (name, label) in enumerate(names.items())}

    def speaker_label(self, speaker: str | None) -> str:
        """The name a speaker is shown under (its card name when it is not in the cast)."""
        found = self._speakers.get(speaker or "")
        return found.label if found else (speaker or "")

    def _speaker(self, speaker: str | None) -> Speaker | None:
        if not self._speakers:
            return None
        return self._speakers.get(speaker or "") or Speaker(speaker or "narrator")

    def _card(self, message: Message, *, blind: bool = False) -> MessageCard:
        """A message's card; blind: without the author (a rating queue hides who played)."""
        return MessageCard(message.turn, message.role, "" if blind else message.author, message.text,
                           ending=message.ending, speaker=self._speaker(message.speaker), notes=message.notes)

    # -- content ------------------------------------------------------------------------
    def cards(self) -> list[MessageCard]:
        return list(self.query(MessageCard))

    def player_turns(self) -> list[int]:
        return [c.turn for c in self.cards() if c.role == "assistant"]

    def load(self, messages: Iterable[Message], verdicts: Sequence[JudgeVerdict] = (),
             human: Sequence[Any] = (), *, blind: bool = False, at_start: bool = False) -> None:
        """Replace everything (replay steps, read-only follow views; blind: no authors); the newest
        message in view, or the first with `at_start` (a conversation to be read through)."""
        self.remove_children(MessageCard)
        if self._stream is not None:
            self._stream.remove()
        self._stream = None
        cards = [self._card(m, blind=blind) for m in messages]
        if cards:
            self.mount_all(cards)
        self._verdicts, self._human = verdicts, human
        self.call_after_refresh(self._apply_scores)
        self.call_after_refresh(self.scroll_home if at_start else self.scroll_end, animate=False)

    def sync(self, messages: Iterable[Message], verdicts: Sequence[JudgeVerdict] = (),
             human: Sequence[Any] = ()) -> None:
        """Show a newer copy of the same session (follow views): mount only the new messages, so
        nothing flickers or jumps. Call anchor() once to keep the view at the end while it is there."""
        messages = list(messages)
        cards = self.cards()
        same = self._stream is None and len(cards) <= len(messages) and all(
            (c.turn, c.role, c.author, c.body) == (m.turn, m.role, m.author, m.text) for c, m in zip(cards, messages))
        if not same:
            self.load(messages, verdicts, human)
            return
        for card, m in zip(cards, messages):
            if card.notes != m.notes:
                card.notes = dict(m.notes)
                card.redraw()
        new = [self._card(m) for m in messages[len(cards):]]
        if new:
            self.mount_all(new)
        self._verdicts, self._human = verdicts, human
        self.call_after_refresh(self._apply_scores)

    def add_message(self, message: Message) -> None:
        """A completed message, after the others; the view goes to the end and stays there."""
        self.clear_streaming()
        self.mount(self._card(message))
        self.follow_end(scroll=True)

    def update_notes(self, message: Message) -> None:
        """Show a completed message's changed notes (a person ended the dialogue after it)."""
        for card in self.cards():
            if (card.turn, card.role) == (message.turn, message.role):
                card.notes = dict(message.notes)
                card.redraw()

    def set_streaming(self, turn: int, role: str, author: str, text: str, speaker: str | None = None) -> None:
        """The message being written, as far as it is: only what is new is drawn. A new message
        takes the view to the end; as it grows the view stays there, unless the person scrolls up."""
        if self._stream is None or (self._stream.turn, self._stream.role) != (turn, role):
            self.clear_streaming()
            self._stream = StreamingCard(turn, role, author, speaker=self._speaker(speaker))
            self.mount(self._stream)
            self.follow_end(scroll=True)
        else:
            self.follow_end(scroll=False)
        self._stream.show(text)

    def follow_end(self, *, scroll: bool) -> None:
        """Keep the view at the end as the content grows: anchored there (no scroll, and no second
        frame, each time it grows) once the content is taller than the view; anchored before,
        Textual would push short content down to the bottom. scroll: go to the end now."""
        if self.max_scroll_y > 0 and not self.is_anchored:
            self.anchor()
        if scroll:
            self.scroll_end(animate=False)

    def clear_streaming(self) -> None:
        if self._stream is not None:
            self._stream.remove()
            self._stream = None

    def set_scores(self, verdicts: Sequence[JudgeVerdict], human: Sequence[Any]) -> None:
        self._verdicts, self._human = verdicts, human
        self._apply_scores()

    def _apply_scores(self) -> None:
        for card in self.cards():
            if card.role == "assistant":
                card.scores = score_line(self._verdicts, self._human, card.turn)
                card.redraw()

    # -- selection ----------------------------------------------------------------------
    def select_turn(self, turn: int | None) -> None:
        self.selected_turn = turn

    def watch_selected_turn(self, turn: int | None) -> None:
        for card in self.cards():
            card.set_class(card.turn == turn, "-selected")
        if turn is not None:
            for card in self.cards():
                if card.turn == turn and card.role == "assistant":
                    self.scroll_to_widget(card, animate=False, top=True)  # the selected reply on top
        self.post_message(self.TurnSelected(turn))

    def action_select(self, step: int) -> None:
        turns = self.player_turns()
        if not turns:
            return
        if self.selected_turn not in turns:
            self.selected_turn = turns[-1] if step < 0 else turns[0]
            return
        i = turns.index(self.selected_turn) + step
        self.selected_turn = turns[max(0, min(len(turns) - 1, i))]
