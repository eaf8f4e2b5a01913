"""Command palette entries ("session: new", "judge: override", ...) for the pingpong app.

Commands that act on a session are forwarded to the current screen; when that screen has no
such action the app says so instead of failing.
"""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

COMMANDS: tuple[tuple[str, str, str], ...] = (
    # (palette text, help, app-level target: "app:<action>" or "screen:<action>")
    ("session: new", "start a new live session", "app:new_session"),
    ("session: take interrogator seat", "type the user's turns yourself", "screen:take_seat"),
    ("session: hand seat to model", "give the interrogator seat back to a model", "screen:hand_back"),
    ("session: pause / continue", "pause or continue the running session", "screen:toggle_pause"),
    ("session: step one turn", "run one turn, then pause", "screen:step"),
    ("session: stop", "stop the session (it can be resumed later)", "screen:stop"),
    ("session: retry", "resume a failed or interrupted session", "screen:retry"),
    ("session: end the dialogue", "dmt: stop before the next user message; the judges then label", "screen:end_dialogue"),
    ("judge: override", "record your own scores for the selected turn", "screen:override"),
    ("open leaderboard", "leaderboard of player models with a score-by-turn plot", "app:leaderboard"),
    ("compare: side by side", "two players' sessions of the same situation, the judge's verdicts, your pick",
     "app:compare"),
    ("open DMT leaderboard", "DMT-Score of player models with the curves Score_1..Score_T", "app:dmt_leaderboard"),
    ("open characters", "browse cards, spot-check one, import a card", "app:characters"),
    ("annotate: rating queue", "rate whole conversations blind, judges' scores shown after you save",
     "app:annotate"),
    ("watch run", "follow a batch run written by another process", "app:watch"),
    ("help", "keys and screens", "app:help"),
)


class PingPongCommands(Provider):
    """Palette provider for pingpong's screens and session controls."""

    def _run(self, target: str) -> None:
        kind, action = target.split(":", 1)
        app = self.app
        if kind == "app":
            getattr(app, f"action_{action}")()
        else:
            app.screen_action(action)  # type: ignore[attr-defined]

    async def discover(self) -> Hits:
        for text, help_text, target in COMMANDS:
            yield DiscoveryHit(text, partial(self._run, target), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, help_text, target in COMMANDS:
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self._run, target), text=text, help=help_text)
