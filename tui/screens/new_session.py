"""The new-session form: card, situation (or a free-form one), who sits where, judges, turns, method
and the player's prompting strategy.

With the roleinteract method the situations are group scenes, then the chosen card's probes (its
memory probes and multiple-choice questions, by name and dimension). A scene has the form pick the
cast (the scene's members, the tested one always in), which member the person sits as, and how the
next speaker is chosen; a probe is one session of the card, as `play --situation PROBE` starts it. With the `dmt` method the situation list offers the chosen card's DMT seeds
instead of situations, and with `rolebench` the card's RoleBench questions (the general ones it has
in-role answers for, then its own). Every seat defaults to the built-in offline model so a fresh
install runs end to end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message as TMessage
from textual.screen import Screen
from textual.widgets import Button, Header, Input, Label, Select, SelectionList, Static, TextArea

from pingpong.core.domain import HUMAN, OFFLINE, SessionSpec, Situation
from pingpong.core.methods import available, get_method
from pingpong.core.vocabulary import TESTER_SCORES
from pingpong.tui.widgets.clamped import ClampedText
from pingpong.tui.widgets.footer import KeysFooter

if TYPE_CHECKING:
    from pingpong.sessions.roleinteract_plan import ProbeChoice
    from pingpong.tui.app import PingPongApp

FREE = "__free__"
DEFAULT_PROMPTING = "default"
PROMPTING = (  # (label, value): the player's prompting strategy (README "Prompting strategies")
    ("default: every example as prior turns", DEFAULT_PROMPTING),
    ("zsp: description and catchphrases only", "zsp"),
    ("fsp: examples written into the prompt", "fsp"),
    ("fsd: 5 most similar examples as turns", "fsd"),
)
NOBODY = "__nobody__"
SCENE_METHOD = "roleinteract"


def _row(label: str, *widgets, id: str | None = None) -> Horizontal:
    return Horizontal(Label(label, classes="form-label"), *widgets, classes="form-row", id=id)


class LibrariesRead(TMessage):
    """What the form offers for one language, read in a worker thread (error: why it is empty)."""

    def __init__(self, lang: str, scene_mode: bool, first: bool, cards: list, situations: list, scenes: list,
                 seeds: list, questions: dict[str, list[Situation]] | None = None,
                 probes: dict[str, list[ProbeChoice]] | None = None, error: str | None = None) -> None:
        super().__init__()
        self.lang, self.scene_mode, self.first = lang, scene_mode, first
        self.cards, self.situations, self.scenes, self.seeds, self.error = cards, situations, scenes, seeds, error
        self.questions = questions or {}
        """{card name: its RoleBench questions as one-turn situations}."""
        self.probes = probes or {}
        """{card name: its RoleInteract probes in its language} (read for the roleinteract method only)."""


class NewSessionScreen(Screen):
    """Choose everything, then ctrl+s (or the Start button) opens the live session."""

    PLACE_ACTIONS = ("new_session",)
    """The palette's ways here (tui/palette.py): not offered while this screen is open."""

    app: PingPongApp

    BINDINGS = [
        Binding("ctrl+s", "start", "Start", id="new.start", priority=True),
        Binding("escape", "cancel", "Cancel", id="new.cancel"),
    ]

    def __init__(self, defaults: dict | None = None) -> None:
        super().__init__()
        self.defaults = defaults or {}
        self._cards: list = []
        self._situations: list = []
        self._scenes: list = []
        self._scene_mode = (self.defaults.get("method") or "pingpong") == SCENE_METHOD
        self._all_seeds: list = []
        self._seeds: list = []
        self._all_questions: dict[str, list[Situation]] = {}
        self._questions: list[Situation] = []
        self._all_probes: dict[str, list[ProbeChoice]] = {}
        self._probes: list[ProbeChoice] = []  # the chosen card's, offered after the scenes
        self._probe_card: str | None = None  # the card whose probes are offered
        self._filled_lang: str | None = None  # the language whose lists were asked for last
        self._offered = False  # the lists have been read once

    def _model_names(self) -> list[str]:
        try:
            return list(self.app.models)
        except Exception as exc:  # a broken config must not close the form
            self.notify(str(exc), severity="error", timeout=10)
            return [OFFLINE]

    def compose(self) -> ComposeResult:
        d = self.defaults
        models = self._model_names()
        lang = d.get("lang") or "en"
        seats = [(m, m) for m in models] + [(HUMAN, HUMAN)]
        judges = set(d.get("judges") or [OFFLINE])
        yield Header()
        with VerticalScroll(id="new-form"):
            yield _row("Language", Select([("English", "en"), ("Russian", "ru"), ("all", "all")],
                                          value=lang, allow_blank=False, compact=True, id="new-lang"))
            yield _row("Character", Select([], compact=True, id="new-character", prompt="choose a card"))
            yield _row("Situation", Select([], compact=True, id="new-situation", prompt="choose a situation"))
            yield ClampedText(lines=3, id="new-situation-text", classes="hint")
            yield TextArea("", id="new-free-text")
            yield _row("Cast", SelectionList(id="new-cast"), id="new-cast-row")
            yield _row("You sit as", Select([("nobody (models play every member)", NOBODY)], value=NOBODY,
                                             allow_blank=False, compact=True, id="new-sit-as"), id="new-sit-row")
            yield _row("Next speaker", Select([("the interrogator (narrator) picks", "narrator"), ("in turn", "turn")],
                                              value="narrator", allow_blank=False, compact=True, id="new-next"),
                       id="new-next-row")
            yield _row("Player", Select(seats, value=d.get("player") or OFFLINE, allow_blank=False,
                                        compact=True, id="new-player"))
            yield _row("Interrogator", Select(seats, value=d.get("interrogator") or OFFLINE,
                                              allow_blank=False, compact=True, id="new-interrogator"),
                       Static("", classes="form-note hint", id="new-interrogator-note"))
            yield _row("Judges", SelectionList(*[(m, m, m in judges) for m in models], id="new-judges"),
                       Static("", classes="form-note hint", id="new-judges-note"))
            yield _row("Turns", Input(str(d["turns"]) if d.get("turns") else "", placeholder="the situation's",
                                      type="integer", compact=True, id="new-turns"),
                       Static("", classes="form-note hint", id="new-turns-note"))
            yield _row("Method", Select([(name, name) for name in available()],
                                        value=d.get("method") or "pingpong", allow_blank=False, compact=True,
                                        id="new-method"))
            yield _row("Prompting", Select(list(PROMPTING), value=d.get("prompting") or DEFAULT_PROMPTING,
                                           allow_blank=False, compact=True, id="new-prompting"))
            with Horizontal(id="new-buttons"):
                yield Button("Start (ctrl+s)", variant="primary", id="new-start")
                yield Button("Cancel", id="new-cancel")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.sub_title = "new session"
        self.query_one("#new-free-text").display = False
        self._show_scene_rows()
        self._show_method_rows()
        self._fill(self.defaults.get("lang") or "en", first=True)
        self.query_one("#new-character").focus()

    # -- options ------------------------------------------------------------------------
    def _fill(self, lang: str, *, first: bool = False) -> None:
        """Offer the cards, situations (scenes, seeds) of `lang` once a worker has read them: a
        library of a thousand cards takes most of a second, which the form must not freeze for."""
        self._filled_lang = lang
        self._read_libraries(lang, self._scene_mode, first)

    @work(thread=True, exclusive=True, group="new-read", exit_on_error=False)
    def _read_libraries(self, lang: str, scene_mode: bool, first: bool) -> None:
        from pingpong.sessions.rolebench_plan import questions_for
        from pingpong.sessions.roleinteract_plan import probe_choices

        wanted = None if lang == "all" else lang
        try:
            cards = self.app.cards().all(lang=wanted)
            library = self.app.questions()
            probes = self.app.probes() if scene_mode else None
            read = LibrariesRead(lang, scene_mode, first, cards, self.app.situations().all(lang=wanted),
                                 self.app.scenes().all(lang=wanted) if scene_mode else [],
                                 self.app.seeds().all(wanted),
                                 {c.name: questions_for(library, c, c.lang) for c in cards},
                                 {c.name: probe_choices(found) for c in cards
                                  if probes and (found := probes.find(c.name, c.lang))})
        except Exception as exc:
            read = LibrariesRead(lang, scene_mode, first, [], [], [], [], error=f"library: {exc}")
        self.post_message(read)

    def on_libraries_read(self, read: LibrariesRead) -> None:
        if (read.lang, read.scene_mode) != (self._filled_lang, self._scene_mode):
            return  # read for a language or method switched away from since
        if read.error:
            self.notify(read.error, severity="error", timeout=10)
        self._cards, self._situations, self._scenes, self._all_seeds = (read.cards, read.situations, read.scenes,
                                                                        read.seeds)
        self._all_questions, self._all_probes = read.questions, read.probes
        self._offered = True
        first = read.first
        chars = self.query_one("#new-character", Select)
        chars.set_options([(f"{c.name} ({c.lang})", c.name) for c in self._cards])
        d = self.defaults if first else {}
        names = [c.name for c in self._cards]
        want = d.get("character")
        if want in names:
            chars.value = want
        elif names:
            chars.value = names[0]
        if self._scene_mode:
            self._fill_scenes(self.query_one("#new-situation", Select), d.get("situation"))
            return
        self._fill_situations(d.get("situation"), free_text=d.get("free_text", "") if first else "")

    def _dmt(self) -> bool:
        return self.query_one("#new-method", Select).value == "dmt"

    def _rolebench(self) -> bool:
        return self.query_one("#new-method", Select).value == "rolebench"

    def _nothing_offered(self) -> str:
        """The hint where the chosen card has no seed (dmt) or question (rolebench) to offer, else ""
        (the empty list's own change event shows it too, so it is not wiped right after it is set)."""
        if self._dmt() and not self._seeds:
            return "No DMT seeds for this character."
        if self._rolebench() and not self._questions:
            return "No RoleBench questions for this character: its answers need references."
        return ""

    def _fill_situations(self, want: str | None = None, *, free_text: str = "") -> None:
        """Situations (and free-form), or the chosen card's seeds (dmt) or questions (rolebench); keep the
        current choice if it is still offered."""
        sits = self.query_one("#new-situation", Select)
        want = want or (str(sits.value) if sits.value is not Select.NULL else None)
        if self._dmt():
            card = self.query_one("#new-character", Select).value
            self._seeds = [s for s in self._all_seeds if s.character == card]
            sits.set_options([(f"{s.name} ({s.lang}, up to {s.max_rounds} rounds)", s.name) for s in self._seeds])
            names = [s.name for s in self._seeds]
            if names:
                sits.value = want if want in names else names[0]
            else:
                self.query_one("#new-free-text").display = False
                self.query_one("#new-situation-text", ClampedText).set_text(self._nothing_offered())
            return
        if self._rolebench():
            self._questions = self._all_questions.get(str(self.query_one("#new-character", Select).value), [])
            sits.set_options([(f"{q.name} ({'SPE' if q.data.get('kind') == 'role_specific' else 'RAW, CUS'})",
                               q.name) for q in self._questions])
            names = [q.name for q in self._questions]
            if names:
                sits.value = want if want in names else names[0]
            else:
                self.query_one("#new-free-text").display = False
                self.query_one("#new-situation-text", ClampedText).set_text(self._nothing_offered())
            return
        sits.set_options([(f"{s.name} ({s.lang}, {s.num_turns} turn{'s' if s.num_turns != 1 else ''})", s.name)
                          for s in self._situations]
                         + [("free-form: write your own…", FREE)])
        snames = [s.name for s in self._situations]
        if want in snames:
            sits.value = want
        elif want == FREE or free_text:
            sits.value = FREE
            self.query_one("#new-free-text", TextArea).text = free_text
        elif snames:
            sits.value = snames[0]
        else:
            sits.value = FREE

    @on(Select.Changed, "#new-lang")
    def lang_changed(self, event: Select.Changed) -> None:
        # The select posts its first value on mount too: the lists of that language are being read already.
        if event.value is not Select.NULL and event.value != self._filled_lang:
            self._fill(str(event.value))

    # -- group scenes -------------------------------------------------------------------
    def _fill_scenes(self, sits: Select, want: str | None) -> None:
        """The group scenes, then the chosen card's probes; keep the current choice if still offered."""
        card = self.query_one("#new-character", Select).value
        self._probe_card = str(card) if card is not Select.NULL else None
        self._probes = self._all_probes.get(self._probe_card or "", [])
        sits.set_options([(f"{s.name} ({s.lang}, {len(s.members)} characters)", s.name) for s in self._scenes]
                         + [(f"{p.name} ({p.dimension})", p.name) for p in self._probes])
        names = [s.name for s in self._scenes] + [p.name for p in self._probes]
        if want in names:
            sits.value = want
        elif names:
            sits.value = names[0]
        else:
            self._fill_cast(None)
        self._show_scene_rows()

    def _probe(self) -> ProbeChoice | None:
        """The probe chosen (roleinteract), or None (a scene or nothing)."""
        name = self.query_one("#new-situation", Select).value
        return next((p for p in self._probes if p.name == name), None) if self._scene_mode else None

    def _show_scene_rows(self) -> None:
        """The cast rows for a group scene (or while none is chosen); the character row everywhere
        but there (roleinteract offers its probes); no turns for roleinteract (its files say)."""
        scene_rows = self._scene_mode and self._probe() is None
        for row in ("#new-cast-row", "#new-sit-row", "#new-next-row"):
            self.query_one(row).display = scene_rows
        self.query_one("#new-turns").parent.display = not self._scene_mode  # type: ignore[union-attr]

    def _show_method_rows(self) -> None:
        """A seat the chosen method never uses says so in place of its choice: pingpong-v1's tester (the
        interrogator) scores, so no judge is picked; RoleBench asks its question as written, scores it by
        rule and has one turn. (What the hidden choices hold is not used: action_start.)"""
        method = get_method(str(self.query_one("#new-method", Select).value))
        notes = {
            "judges": None if method.scorer is None else (
                f"none: {method.name} sessions are scored by {method.scorer}"
                + (" (the interrogator above)" if method.name in TESTER_SCORES else "")),
            "interrogator": f"none: {method.interrogator_needed}" if method.writes_questions else None,
            "turns": "1: one question, one answer" if method.writes_questions else None,
        }
        for row, note in notes.items():
            self.query_one(f"#new-{row}").display = note is None
            shown = self.query_one(f"#new-{row}-note", Static)
            shown.display = note is not None
            shown.update(note or "")

    def _scene(self):
        name = self.query_one("#new-situation", Select).value
        return next((s for s in self._scenes if s.name == name), None)

    def _fill_cast(self, scene) -> None:
        cast = self.query_one("#new-cast", SelectionList)
        cast.clear_options()
        sit_as = self.query_one("#new-sit-as", Select)
        if scene is None:
            sit_as.set_options([("nobody (models play every member)", NOBODY)])
            return
        cast.add_options([(f"{m.character} ({m.preference}{', tested' if m.character == scene.tested else ''})",
                           m.character, True) for m in scene.members])
        sit_as.set_options([("nobody (models play every member)", NOBODY)]
                           + [(m.character, m.character) for m in scene.members])
        sit_as.value = NOBODY

    @on(Select.Changed, "#new-method")
    def method_changed(self, event: Select.Changed) -> None:
        self._show_method_rows()
        scene_mode = event.value == SCENE_METHOD
        if scene_mode != self._scene_mode:
            self._scene_mode = scene_mode
            self._show_scene_rows()
            self._fill(str(self.query_one("#new-lang", Select).value))

    @on(Select.Changed, "#new-character")
    @on(Select.Changed, "#new-method")
    def seeds_may_change(self) -> None:
        if not self._offered:   # the lists are still being read (the method select's first value)
            return
        if self._scene_mode:   # the scenes stay; the probes are the card's (a new method: method_changed)
            card = self.query_one("#new-character", Select).value
            if card is not Select.NULL and card != self._probe_card:
                sits = self.query_one("#new-situation", Select)
                self._fill_scenes(sits, str(sits.value) if sits.value is not Select.NULL else None)
            return
        if self._dmt() or self._rolebench() or not any(s.name == self.query_one("#new-situation", Select).value
                                                       for s in self._situations):
            self._fill_situations()

    @on(Select.Changed, "#new-situation")
    def situation_changed(self, event: Select.Changed) -> None:
        if self._scene_mode:
            self._show_scene_rows()
            self.query_one("#new-free-text").display = False
            probe = self._probe()
            if probe is not None:
                self.query_one("#new-situation-text", ClampedText).set_text(probe.about)
                return
            scene = self._scene()
            self._fill_cast(scene)
            self.query_one("#new-situation-text", ClampedText).set_text(scene.setting if scene else "")
            return
        free = event.value == FREE
        self.query_one("#new-free-text").display = free
        hint = self.query_one("#new-situation-text", ClampedText)
        if self._dmt():
            seed = next((s for s in self._seeds if s.name == event.value), None)
            hint.set_text(f"{seed.topic} ({seed.intent.value.replace('_', ' ')}). Goal: {seed.goal}" if seed
                          else self._nothing_offered())
            return
        if self._rolebench():
            question = next((q for q in self._questions if q.name == event.value), None)
            hint.set_text(question.text if question else self._nothing_offered())
            return
        sit = next((s for s in self._situations if s.name == event.value), None)
        hint.set_text("Write the situation below; Turns sets its length (default 3)." if free
                    else (sit.text if sit else ""))

    @on(Button.Pressed, "#new-start")
    def start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#new-cancel")
    def cancel_pressed(self) -> None:
        self.action_cancel()

    def action_cancel(self) -> None:
        self.app.pop_screen()

    # -- start --------------------------------------------------------------------------
    def action_start(self) -> None:
        if self._scene_mode:
            if self._probe() is not None:
                self._start_probe()
            else:
                self._start_scene()
            return
        char_name = self.query_one("#new-character", Select).value
        card = next((c for c in self._cards if c.name == char_name), None)
        if card is None:
            self.notify("Choose a character", severity="warning")
            return
        method = get_method(str(self.query_one("#new-method", Select).value))
        turns_text = "" if method.writes_questions else self.query_one("#new-turns", Input).value.strip()
        try:
            turns = int(turns_text) if turns_text else None
        except ValueError:
            turns = 0
        if turns is not None and not 1 <= turns <= 50:
            self.notify("Turns: a number from 1 to 50", severity="warning")
            return
        sit_name = self.query_one("#new-situation", Select).value
        if self._dmt():
            from pingpong.situations.seeds import seed_situation

            seed = next((s for s in self._seeds if s.name == sit_name), None)
            if seed is None:
                self.notify("Choose a DMT seed (the card needs one)", severity="warning")
                return
            situation = seed_situation(seed)
        elif self._rolebench():
            question = next((q for q in self._questions if q.name == sit_name), None)
            if question is None:
                self.notify("Choose a RoleBench question (the card needs some)", severity="warning")
                return
            situation = question
        elif sit_name == FREE:
            text = self.query_one("#new-free-text", TextArea).text.strip()
            if not text:
                self.notify("Write the situation first", severity="warning")
                return
            situation = Situation(name="free-form", lang=card.lang, text=text, num_turns=turns or 3)
        else:
            chosen = next((s for s in self._situations if s.name == sit_name), None)
            if chosen is None:
                self.notify("Choose a situation", severity="warning")
                return
            situation = chosen
        interrogator = str(self.query_one("#new-interrogator", Select).value)
        if method.writes_questions and interrogator == HUMAN:
            interrogator = OFFLINE  # the seat is hidden and never called (RoleBench asks as written)
        judges = list(self.query_one("#new-judges", SelectionList).selected)
        if method.name in TESTER_SCORES:
            judges = [interrogator]  # the tester scores (the Judges row says so)
        shaping = self._prompting()
        if shaping is None:
            return
        spec = SessionSpec(
            character=card.name, situation=situation.name,
            player=str(self.query_one("#new-player", Select).value),
            interrogator=interrogator, judges=judges, num_turns=turns, method=method.name,
            lang=card.lang, prompting=shaping[0], prompt_format=shaping[1],
        )
        refusal = method.interrogator_refusal(situation)
        if spec.interrogator == HUMAN and refusal:
            self.notify(refusal, severity="warning")
            return
        try:
            session_id = self.app.start_session(spec, card, situation)
        except Exception as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return
        self.app.pop_screen()
        self.app.open_live(session_id)

    def _prompting(self) -> tuple[str | None, str] | None:
        """(prompting strategy, prompt format) the player gets: the form's strategy and the format
        `play --prompt-format` opened it with; None (said in a notice) when they do not go together."""
        from pingpong.core.vocabulary import prompting_problem

        chosen = str(self.query_one("#new-prompting", Select).value)
        prompting = None if chosen == DEFAULT_PROMPTING else chosen
        prompt_format = self.defaults.get("prompt_format") or "detailed"
        problem = prompting_problem(prompting, prompt_format)
        if problem:
            self.notify(f"Prompting {problem} (this form was opened with --prompt-format "
                        f"{prompt_format}): choose the default prompting", severity="warning")
            return None
        return prompting, prompt_format

    def _start_probe(self) -> None:
        """One RoleInteract probe of the chosen card, planned as `play --situation PROBE` plans it."""
        from pingpong.sessions.roleinteract_plan import probe_item

        probe = self._probe()
        card = next((c for c in self._cards if c.name == self.query_one("#new-character", Select).value), None)
        if probe is None or card is None:
            self.notify("Choose a character and one of its probes", severity="warning")
            return
        method = get_method(SCENE_METHOD)
        player = str(self.query_one("#new-player", Select).value)
        interrogator = str(self.query_one("#new-interrogator", Select).value)
        try:
            item = probe_item(self.app.probes(), lambda: self.app.padding(card.lang), player, card, card.lang,
                              probe.name)
        except Exception as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return
        refusal = method.interrogator_refusal(item.situation)
        if interrogator == HUMAN and refusal:
            self.notify(refusal, severity="warning")
            return
        shaping = self._prompting()
        if shaping is None:
            return
        spec = SessionSpec(
            character=card.name, situation=item.situation.name, player=player, interrogator=interrogator,
            judges=list(self.query_one("#new-judges", SelectionList).selected), method=method.name,
            lang=card.lang, prompting=shaping[0], prompt_format=shaping[1],
        )
        try:
            session_id = self.app.start_session(spec, card, item.situation)
        except Exception as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return
        self.app.pop_screen()
        self.app.open_live(session_id)

    def _start_scene(self) -> None:
        """A group scene: the checked members, the person in the member chosen (or none), the tested
        member in the player seat, the others with the interrogator's model (the narrator's)."""
        from pingpong.core.methods.roleinteract_scene import default_member_seat, scene_cast, scene_situation

        scene = self._scene()
        if scene is None:
            self.notify("Choose a group scene", severity="warning")
            return
        members = list(self.query_one("#new-cast", SelectionList).selected)
        player = str(self.query_one("#new-player", Select).value)
        interrogator = str(self.query_one("#new-interrogator", Select).value)
        sit_as = str(self.query_one("#new-sit-as", Select).value)
        seats = {}
        if sit_as == scene.tested:
            player = HUMAN
        elif sit_as != NOBODY:
            seats[sit_as] = HUMAN
        try:
            cast = scene_cast(scene, members, player=player, others=default_member_seat(player, interrogator),
                              seats=seats)
            cards = [self.app.cards().get(c.character) for c in cast]
        except Exception as exc:
            self.notify(str(exc), severity="warning", timeout=8)
            return
        shaping = self._prompting()
        if shaping is None:
            return
        spec = SessionSpec(
            character=scene.tested, situation=scene.name, player=player, interrogator=interrogator,
            judges=list(self.query_one("#new-judges", SelectionList).selected), method=SCENE_METHOD,
            lang=scene.lang, cast=cast, next_speaker=str(self.query_one("#new-next", Select).value),
            prompting=shaping[0], prompt_format=shaping[1],
        )
        tested = next(card for card in cards if card.name == scene.tested)
        try:
            session_id = self.app.start_session(spec, tested, scene_situation(scene), cards)
        except Exception as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return
        self.app.pop_screen()
        self.app.open_live(session_id)
