"""Who sat in a seat: one wording for every view (Home, sessions list/show, live, replay).

Each turn's occupant is the author of its message; who holds the seat now (and so writes the
next turn) is stored with the session when it changes hands (Store.set_seat).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

SPAN = tuple[str, int, int]
"""(author, first turn, last turn) of consecutive turns one occupant wrote."""


def spans(turns: Iterable[tuple[int, str]]) -> list[SPAN]:
    """Consecutive turns by the same author, from (turn, author) pairs in turn order."""
    out: list[SPAN] = []
    for turn, author in turns:
        if out and out[-1][0] == author:
            out[-1] = (author, out[-1][1], turn)
        else:
            out.append((author, turn, turn))
    return out


def seat_label(writers: Sequence[SPAN], current: str, going_on: bool) -> str:
    """Short: who wrote, in order of first appearance ("offline+human"), then "→ next" when the
    seat has changed hands since its last message and the session can still go on."""
    names = list(dict.fromkeys(author for author, _, _ in sorted(writers, key=lambda s: s[1])))
    if not names:
        return current
    label = "+".join(names)
    last = max(writers, key=lambda s: s[2])[0]
    return f"{label} → {current}" if going_on and current != last else label


def seat_detail(writers: Sequence[SPAN], current: str, going_on: bool) -> str:
    """Long: every stretch of turns and who wrote it ("offline turns 1-2, human turn 3 → offline"),
    or just the name when one occupant held the seat throughout."""
    if not writers or (len(writers) == 1 and writers[0][0] == current):
        return current  # one occupant throughout: just the name
    parts = [f"{a} turn {f}" if f == t else f"{a} turns {f}-{t}" for a, f, t in sorted(writers, key=lambda s: s[1])]
    last = max(writers, key=lambda s: s[2])[0]
    text = ", ".join(parts)
    return f"{text} → {current}" if going_on and current != last else text


def scored_by_rule(method: str) -> bool:
    """Whether a method is scored by exact rules (RoleBench's Rouge-L, RoleInteract's answers): no
    judge model is ever asked, whatever models its sessions list."""
    from pingpong.core.methods import get_method

    return get_method(method).scorer == "exact rules"


def asks_as_written(method: str) -> bool:
    """Whether a method writes every user line itself (RoleBench): the interrogator seat is never called."""
    from pingpong.core.vocabulary import ASKS_AS_WRITTEN

    return method in ASKS_AS_WRITTEN


def judges_words(method: str, judges: Sequence[str]) -> str:
    """The judges as views name them."""
    return RULE_WORDS if scored_by_rule(method) else ", ".join(judges) or "none"


def interrogator_words(method: str, seat: str) -> str:
    """The interrogator seat as views name it."""
    return AS_WRITTEN_WORDS if asks_as_written(method) else seat


RULE_WORDS = "none (scored by rule)"
AS_WRITTEN_WORDS = "none (the question as written)"
