"""The help screen (F1 or ?): the keys of the screen you came from, and where things are."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Markdown

GUIDE = """\
# pingpong

A **player** model plays a character card, an **interrogator** (a model, or you) plays a user
inside a situation, and **judges** score each player turn (in_character, entertaining, fluency,
1-5, plus a refusal flag). Everything is stored, so sessions can be resumed, replayed and re-scored.

## Screens
- **Home**: n new session, r resume, enter/p replay (a running one opens read-only), l leaderboard,
  v compare side by side with another player's session, a rate conversations blind (a queue),
  c characters, w watch a batch run, / filter, s sort, [ ] pages. The list refreshes by itself
  every few seconds while sessions change (another terminal's run, say); F5 reloads it now.
- **Live session**: space pause/continue, s step one turn, x stop, t take the interrogator seat,
  h hand it to a model, up/down select a turn, o rate it, r retry a failed session. In a group
  scene: ctrl+n (or n) chooses who speaks next, t sits you as a member or as the narrator.
- **Rating**: t/c rate the turn or the whole conversation, 1-5 rate the focused metric, y/n refusal,
  ctrl+s save, escape cancel.
- **Rating queue** (a on Home, or `pingpong annotate`): whole conversations one by one, blind; 1-5 per
  metric, y/n refusal, ctrl+s saves and shows the judges, ctrl+n next; escape stops, and the queue
  continues there next time.
- **Replay**: left/right (k/j) step, home/end jump, o rate the shown turn, f fork from it (runs on live),
  J re-judge (ask the judges again for failed turns).
- **Leaderboard**: m switches judges / human / merged scores, v shows the judged pairs side by side,
  d switches between the PingPong and DMT boards, c picks the DMT metric whose curve is plotted.
- **Side by side** (v on a session of Home): two players' sessions of the same situation, each
  judge's verdict in both orders, and your pick: a (left better), b (right better), t (tie), stored
  with your name; it counts instead of the judges in `pingpong compare`. left/right move between pairs.
- **Watch a run**: runs on top (all, running, done, failed, intr = interrupted sessions), the
  selected run's sessions below; enter opens one read-only, updating as it is written.
- **Characters**: s spot-check the card yourself, i import a card file, e/r/a language filter.

ctrl+p opens the command palette; ctrl+q quits from anywhere.
"""


KEY_NAMES = {"slash": "/", "left_square_bracket": "[", "right_square_bracket": "]",
             "question_mark": "?", "escape": "esc"}


class HelpScreen(ModalScreen[None]):
    """Keys of the current screen, then the general guide."""

    BINDINGS = [Binding("escape,f1,question_mark,q", "close", "Close", id="help.close")]

    def __init__(self, under: Screen | None = None) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Markdown(self._keys() + GUIDE)

    def _keys(self) -> str:
        if self.under is None:
            return ""
        lines = [f"## Keys here ({type(self.under).__name__.removesuffix('Screen') or 'app'})", ""]
        seen = set()
        for binding in self.under.BINDINGS:
            # the tooltip is the long form of a description shortened for the footer
            key, desc = binding.key, binding.tooltip or binding.description  # type: ignore[union-attr]
            if desc and key not in seen:
                seen.add(key)
                keys = " ".join(KEY_NAMES.get(k.strip(), k.strip()) for k in key.split(","))
                lines.append(f"- `{keys}` {desc}")
        return "\n".join(lines) + "\n\n"

    def action_close(self) -> None:
        self.dismiss(None)
