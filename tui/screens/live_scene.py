"""The live screen's part in a group scene: the cast's names and seats, choosing the next speaker,
and a person taking (or handing back) a member's seat or the narrator's.

LiveScreen's base: it reads the screen's control, transcript and notices, and keeps what the
screen knows of each member's seat (the engine's SeatChanged events confirm requests).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

from pingpong.core.domain import HUMAN
from pingpong.tui.screens.pickers import ModelPicker
from pingpong.tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from pingpong.core.control import SessionControl
    from pingpong.sessions.records import StoredSession
    from pingpong.tui.app import PingPongApp

NARRATOR = "__narrator__"
"""The picker's id for the narrator's seat (the interrogator's: who speaks next)."""


def cast_names(stored: StoredSession) -> dict[str, str]:
    """A stored group session's members, card name -> the name shown, in cast order (empty: no cast)."""
    cards = {card.name: card.char_name for card in stored.cast}
    return {c.character: cards.get(c.character, c.character) for c in stored.spec.cast}


class GroupScene(Screen):
    """What LiveScreen does differently when its session seats a cast."""

    app: PingPongApp
    cast_names: dict[str, str]
    member_seats: dict[str, str]

    if TYPE_CHECKING:  # LiveScreen's own, which a scene reads and steers
        control: SessionControl | None
        running: bool
        seat: str
        _next_seat: dict[str, str]

        def _set_notice(self, text: str, *, warn: bool = False) -> None: ...
        def _take_narrator_seat(self) -> None: ...
        def _held_seat(self) -> str | None: ...
        def _take_back_typed_ahead(self) -> None: ...
        def _update_human_box(self) -> None: ...

    def _init_cast(self) -> None:
        self.cast_names = {}  # card name -> name shown, in cast order; empty: not a group scene
        self.member_seats = {}  # every member's seat as the screen knows it (requests included)
        self._speakers: dict[tuple[int, str], str | None] = {}  # the speaker of each message begun
        self._picking_speaker = False

    @property
    def is_scene(self) -> bool:
        return bool(self.cast_names)

    def label(self, speaker: str | None) -> str:
        return self.cast_names.get(speaker or "", speaker or "narrator")

    def _load_cast(self, stored: StoredSession) -> None:
        """Names and seats from the stored session (its spec, then who wrote each member's last line)."""
        spec = stored.spec
        if not spec.cast:
            return
        self.cast_names = cast_names(stored)
        self.member_seats = {c.character: spec.seat_of(c.character) for c in spec.cast}
        for m in stored.messages:
            if m.role == "assistant" and m.speaker in self.member_seats:
                self.member_seats[m.speaker] = m.author
        self.query_one(Transcript).set_cast(self.cast_names)

    def _holds_member_seat(self) -> bool:
        return HUMAN in self.member_seats.values()

    def _human_members(self) -> list[str]:
        return [name for name, seat in self.member_seats.items() if seat == HUMAN]

    # -- choosing who speaks next -------------------------------------------------------
    def _pick_speaker(self, title: str) -> None:
        if self._picking_speaker:
            return

        def chosen(name: str | None) -> None:
            self._picking_speaker = False
            if name and self.control is not None:
                self.control.choose_speaker(name)
                self._set_notice(f"next speaker: {self.label(name)} (your choice)")
            elif self.control is not None and self.running:
                self._set_notice("no choice made: ctrl+n chooses who speaks next")

        self._picking_speaker = True
        names = list(self.cast_names)
        self.app.push_screen(ModelPicker(names, title=title, labels=dict(self.cast_names)), chosen)

    def action_next_speaker(self) -> None:
        if not self.is_scene or self.control is None or not self.running:
            self.notify("Choosing the next speaker works in a running group scene", severity="warning")
            return
        self._pick_speaker("Who speaks next?")

    def speaker_wanted(self) -> None:
        """The engine waits for the person in the narrator seat to choose."""
        self._set_notice("you are the narrator: choose who speaks next (ctrl+n)")
        self._pick_speaker("You are the narrator: who speaks next?")

    # -- seats ----------------------------------------------------------------------------
    def _scene_take_seat(self) -> None:
        names = [NARRATOR, *self.cast_names]
        labels = {NARRATOR: "the narrator (choose who speaks)", **self.cast_names}

        def chosen(name: str | None) -> None:
            if not name or self.control is None:
                return
            if name == NARRATOR:
                self._take_narrator_seat()
                return
            if self._held_seat() is None and not self._holds_member_seat():
                self._take_back_typed_ahead()  # a seat taken again starts with nothing queued
            self.control.set_member_seat(name, HUMAN)
            self.member_seats[name] = HUMAN
            self._set_notice(f"you sit as {self.label(name)} from its next line")
            self._update_human_box()
            self.refresh_bindings()

        self.app.push_screen(ModelPicker(names, title="Sit as", labels=labels), chosen)

    def _scene_hand_back(self) -> None:
        held = ([NARRATOR] if self._next_seat.get("interrogator", self.seat) == HUMAN else []) + self._human_members()
        labels = {NARRATOR: "the narrator", **self.cast_names}
        if not held:
            self.notify("You hold no seat in this scene", severity="warning")
            return

        def to_model(seat: str) -> None:
            def chosen(model: str | None) -> None:
                if not model or self.control is None:
                    return
                if seat == NARRATOR:
                    self.control.set_seat("interrogator", model)
                    self._next_seat["interrogator"] = model
                else:
                    self.control.set_member_seat(seat, model)
                    self.member_seats[seat] = model
                self._take_back_typed_ahead()
                self._set_notice(f"{labels.get(seat, seat)} goes to {model}")
                self._update_human_box()
                self.refresh_bindings()

            self.app.push_screen(ModelPicker(list(self.app.models), title=f"Hand {labels.get(seat, seat)} to"),
                                 chosen)

        if len(held) == 1:
            to_model(held[0])
        else:
            self.app.push_screen(ModelPicker(held, title="Hand back which seat?", labels=labels),
                                 lambda seat: to_model(seat) if seat else None)
