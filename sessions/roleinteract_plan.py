"""What a RoleInteract run owes: player x character x probe, for the characters with a probe set.

Each multiple-choice question and each memory probe of the language's probe sets is one session.
Memory probes take their padding from the language's pool, which is read only when memory probes
are planned (a missing or broken pool is then a one-line error naming the file). One probe on its
own (`play --situation PROBE`, the new-session form) is planned here too: `probe_item`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import NamedTuple

from pingpong.core.domain import Character
from pingpong.core.errors import UserError
from pingpong.core.methods.roleinteract_data import PaddingPool, ProbeSet, memory_dimension
from pingpong.core.methods.roleinteract_probes import memory_turns, probe_name, probe_situations
from pingpong.sessions.plan import PlanItem


class ProbeChoice(NamedTuple):
    """One probe of a set as a list offers it: its situation name, its dimension, a line about it."""

    name: str
    dimension: str
    about: str


def probe_choices(probe_set: ProbeSet) -> list[ProbeChoice]:
    """The set's probes by situation name, its questions then its memory probes (a run's order)."""
    return ([ProbeChoice(probe_name(probe_set, q.id), q.dimension,
                         f"Multiple choice ({q.dimension}), one turn: {q.question}") for q in probe_set.questions]
            + [ProbeChoice(probe_name(probe_set, m.id), memory_dimension(m),
                           f"Memory probe ({memory_dimension(m)}), {memory_turns(m)} turns: {m.plant}")
               for m in probe_set.memory])


def probe_owner(library, name: str) -> ProbeSet | None:
    """The probe set (of any language) that has a probe of situation name ``name``, or None."""
    return next((p for p in library.all() if any(c.name == name for c in probe_choices(p))), None)


def probe_item(library, padding: Callable[[], PaddingPool], player: str, card: Character, lang: str,
               name: str) -> PlanItem:
    """One probe of ``card``'s set in ``lang``, by its situation name, planned as a run plans it (a
    memory probe with its padding lines from ``padding``'s pool); UserError when the card has no
    such probe."""
    probe_set = library.find(card.name, lang)
    if probe_set is None or all(c.name != name for c in probe_choices(probe_set)):
        raise UserError(f"'{name}' is no RoleInteract probe of '{card.name}' in lang {lang}")
    items = roleinteract_plan(library, padding, [player], [card], lang, [name])
    return next(item for item in items if item.situation.name == name)


def _only(probe_set: ProbeSet, only: Sequence[str] | None, matched: set[str]) -> ProbeSet:
    """The probes --situations names: by situation name, question id or dimension (emotion, memory_long);
    the names that selected something are added to ``matched``."""
    if not only:
        return probe_set
    wanted = set(only)

    def keep(probe_id: str, dimension: str) -> bool:
        hits = {probe_name(probe_set, probe_id), probe_id, dimension} & wanted
        matched.update(hits)
        return bool(hits)

    return probe_set.model_copy(update={
        "questions": [q for q in probe_set.questions if keep(q.id, q.dimension)],
        "memory": [m for m in probe_set.memory if keep(m.id, memory_dimension(m))]})


def roleinteract_plan(library, padding: Callable[[], PaddingPool], players: Sequence[str], cards: Sequence[Character],
                      lang: str, only: Sequence[str] | None = None, every: int = 1,
                      required: bool = True) -> list[PlanItem]:
    """Every player answers every probe of every card that has a probe set in ``lang`` (``padding``
    gives the language's padding pool); ``only`` keeps the probes named (or of the dimensions named);
    ``every`` keeps every k-th probe of each card. UserError when nothing is left and ``required``."""
    if every < 1:
        raise UserError(f"--every: must be 1 or more, got {every}")
    if len(set(players)) != len(players):
        raise UserError("--player: a player is given twice")
    pool = cache(padding)
    items: list[PlanItem] = []
    matched: set[str] = set()
    for card in cards:
        probe_set = library.find(card.name, lang)
        if probe_set is None:
            continue
        probe_set = _only(probe_set, only, matched)
        probes = probe_situations(probe_set, card.char_name, pool() if probe_set.memory else None)
        for probe in probes[::every]:
            items += [PlanItem(player, card, probe) for player in players]
    unknown = [name for name in only or () if name not in matched]
    if unknown:
        raise UserError(f"--situations: '{unknown[0]}' is no group scene, probe, question id or dimension of "
                        f"these characters in lang {lang}")
    if not items and required:
        raise UserError(f"no RoleInteract probes for these characters in lang {lang}")
    return items
