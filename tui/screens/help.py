"""The help screen (F1 or ?): the keys of the screen you came from, then every screen's keys.

The keys are read from the screens' bindings (with [keymap] remaps applied), the same source the
footer and the command palette use, so the three always agree.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Markdown

INTRO = """\
# pingpong

A **player** model plays a character card, an **interrogator** (a model, or you) plays a user
inside a situation, and **judges** score each player turn (in_character, entertaining, fluency,
1-5, plus a refusal flag). Everything is stored, so sessions can be resumed, replayed and re-scored.

Escape first leaves a text box (the Home filter, your message box); the next escape goes back.
Leaving a running session asks whether to keep it running in the background (Home shows it as
*live*; open it again to steer it) or to stop it. ctrl+p opens the command palette (what the
current screen can do, with its keys); ctrl+q quits, asking first while sessions run.
"""

KEY_NAMES = {"slash": "/", "left_square_bracket": "[", "right_square_bracket": "]",
             "question_mark": "?", "escape": "esc"}


def _screens() -> list[tuple[str, type[DOMNode]]]:
    from pingpong.tui.screens.agreement import AgreementScreen
    from pingpong.tui.screens.annotate import AnnotateScreen
    from pingpong.tui.screens.characters import CharactersScreen, SpotCheckScreen
    from pingpong.tui.screens.choice import ChoiceScreen
    from pingpong.tui.screens.compare import CompareScreen
    from pingpong.tui.screens.home import HomeScreen
    from pingpong.tui.screens.leaderboard import LeaderboardScreen
    from pingpong.tui.screens.live import LiveScreen
    from pingpong.tui.screens.models import ModelsScreen
    from pingpong.tui.screens.new_session import NewSessionScreen
    from pingpong.tui.screens.override import OverrideScreen
    from pingpong.tui.screens.pickers import ModelPicker, PathPrompt
    from pingpong.tui.screens.replay import ReplayScreen
    from pingpong.tui.screens.situations import SituationsScreen
    from pingpong.tui.screens.watch import WatchScreen
    from pingpong.tui.widgets.rating import LabelField, RatingField, RefusalField, ScopeField
    from pingpong.tui.widgets.transcript import Transcript

    return [("Home", HomeScreen), ("Live session", LiveScreen), ("Live session and replay: the transcript", Transcript),
            ("Rating", OverrideScreen), ("Rating: turn or whole conversation", ScopeField),
            ("Rating: a metric", RatingField), ("Rating: a DMT round's label", LabelField),
            ("Rating: the refusal flag", RefusalField), ("Rating queue", AnnotateScreen),
            ("Replay", ReplayScreen), ("New session", NewSessionScreen), ("Leaderboard", LeaderboardScreen),
            ("Side by side", CompareScreen), ("Watch a run", WatchScreen), ("Characters", CharactersScreen),
            ("Characters: spot check", SpotCheckScreen), ("Situations", SituationsScreen),
            ("Models", ModelsScreen), ("Agreement", AgreementScreen), ("Picking a model", ModelPicker),
            ("Asking for a file", PathPrompt), ("Asking a question", ChoiceScreen), ("This help", HelpScreen)]


def key_lines(bindings, keymap: dict[str, str]) -> list[str]:
    """One Markdown line per binding: its keys now, what it does, and its id (for [keymap])."""
    from pingpong.tui.keymap import keys_of

    lines, seen = [], set()
    for binding in bindings:
        if not isinstance(binding, Binding):
            continue
        desc = binding.tooltip or binding.description  # the tooltip is the long form of a footer word
        if not desc or (binding.id and binding.id in seen):
            continue
        seen.add(binding.id or "")
        keys = ", ".join(f"`{KEY_NAMES.get(k, k)}`" for k in keys_of(binding, keymap))
        lines.append(f"- {keys} {desc}" + (f" *({binding.id})*" if binding.id else ""))
    return lines


class HelpScreen(ModalScreen[None]):
    """Keys of the current screen, then the guide with every screen's keys."""

    PLACE_ACTIONS = ("help",)
    """The palette's ways here (tui/palette.py): not offered while this screen is open."""

    BINDINGS = [Binding("escape,f1,question_mark,q", "close", "Close", id="help.close")]

    def __init__(self, under: Screen | None = None) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Markdown(self._keys() + INTRO + self._all())

    def _keymap(self) -> dict[str, str]:
        return dict(getattr(self.app, "keymap", {}) or {})

    def _keys(self) -> str:
        if self.under is None:
            return ""
        name = type(self.under).__name__.removesuffix("Screen") or "app"
        lines = [f"## Keys here ({name})", "", *key_lines(self.under.BINDINGS, self._keymap())]
        return "\n".join(lines) + "\n\n"

    def _all(self) -> str:
        keymap = self._keymap()
        parts = ["\n## Every screen\n"]
        for title, cls in _screens():
            parts.append(f"\n### {title}\n\n" + "\n".join(key_lines(cls.BINDINGS, keymap)) + "\n")
        parts.append("\n### Everywhere\n\n" + "\n".join(key_lines(type(self.app).BINDINGS, keymap)) + "\n")
        return "".join(parts)

    def action_close(self) -> None:
        self.dismiss(None)
