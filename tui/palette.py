"""The command palette, built from the screen it is opened over: what that screen's keys do now.

Every enabled binding of the current screen (and the app's) becomes a command showing its key,
so the palette lists only what applies here, and a remapped key ([keymap] in config.toml) shows
as remapped, and two keys for one action show once. The ways to the other screens are added where
no key of this screen leads there (a screen's PLACE_ACTIONS: the ways to itself).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

HIDDEN = {"leave-input", "help-alt"}
"""Binding ids never listed: they repeat another command or only make sense as a key."""

PLACES: tuple[tuple[str, str, str], ...] = (
    # (palette text, help, app action): where you can go from any screen
    ("New session", "start a new live session", "new_session"),
    ("Leaderboard", "leaderboard of player models with a score-by-turn plot", "leaderboard"),
    ("Character cards", "browse cards, spot-check one, import a card", "characters"),
    ("Situations", "what each method runs: situations, DMT seeds, probe sets, group scenes, question sets",
     "situations"),
    ("Compare side by side", "two players' sessions of the same situation, the judge's verdicts, your pick",
     "compare"),
    ("DMT leaderboard", "DMT-Score of player models with the curves Score_1..Score_T", "dmt_leaderboard"),
    ("Rating queue (annotate)", "rate conversations blind, judges' scores shown after you save", "annotate"),
    ("Watch a batch run", "follow a batch run written by another process", "watch"),
    ("Models", "configured models, each endpoint checked for reachability", "models"),
    ("Agreement", "how well the judges agree with people, and with each other", "agreement"),
    ("Help", "keys and screens", "help"),
)


@dataclass(frozen=True)
class Command:
    text: str
    key: str  # how the key shows ("space", "ctrl+t"); "" for a command with no key here
    help: str
    run: Callable[[], object]

    def display(self, text: Content | str | None = None) -> Content:
        """The command's text (highlighted where a search matched), then its key, dimmed."""
        return Content.assemble(text if text is not None else self.text, (f"  {self.key}" if self.key else "", "dim"))


class ScreenCommands(Provider):
    """The current screen's enabled bindings, with their keys, then the ways to other screens."""

    def _commands(self) -> Iterator[Command]:
        app, screen = self.app, self.screen
        actions: set[str] = set()
        seen: set[str] = set()
        for key, active in screen.active_bindings.items():
            binding = active.binding
            if not active.enabled or not binding.id or binding.id in HIDDEN or binding.id in seen:
                continue
            seen.add(binding.id)
            if binding.action.removeprefix("app.") in actions:
                continue  # another key of this screen does the same (q and ctrl+q quit): listed once
            text = binding.tooltip or binding.description
            if not text:
                continue
            actions.add(binding.action.removeprefix("app."))
            run = partial(app.call_later, app.run_action, binding.action, active.node)
            yield Command(text, app.get_key_display(binding), binding.description, run)
        here = set(getattr(screen, "PLACE_ACTIONS", ()))
        for text, help_text, action in PLACES:
            if action not in actions and action not in here:
                yield Command(text, "", help_text, partial(app.call_later, app.run_action, f"app.{action}"))

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(command.display(), command.run, text=command.text, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands():
            score = matcher.match(command.text)
            if score > 0:
                yield Hit(score, command.display(matcher.highlight(command.text)), command.run, text=command.text,
                          help=command.help)
