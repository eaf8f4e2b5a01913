"""What a batch run will do: players x characters x situations, filtered and thinned.

Pure functions, no I/O: the plan is decided (and every name checked) before a
single request is sent, and the same arguments always give the same plan, so a
second run with the same command finds exactly the pairs of the first.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pingpong.core.domain import Character, Situation
from pingpong.core.errors import UserError
from pingpong.core.methods.dmt_seed import Seed


@dataclass(frozen=True)
class PlanItem:
    """One conversation the run owes: this player, this card, this situation (and, for a group
    scene, every member's card: the player sits as ``character``, the interrogator as the others)."""

    player: str
    character: Character
    situation: Situation
    cast: tuple[Character, ...] = ()

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.player, self.character.name, self.situation.name)


def pick(items: Sequence, names: Sequence[str] | None, kind: str, lang: str) -> list:
    """Keep the items named (in library order) by id or display name, ignoring case; UserError for a
    name not found in `lang`.

    Library order, not argument order, so `--characters b,a` and `a,b` plan the same run.
    """
    from pingpong.characters.collection import find_named

    if not names:
        return list(items)
    wanted = {find_named(items, name, kind, lambda i: (i.name, getattr(i, "char_name", "")),
                         f" for lang {lang}").name for name in names}
    return [item for item in items if item.name in wanted]


def diagonal_order(n: int, m: int) -> list[tuple[int, int]]:
    """All n x m index pairs, walking wrapped diagonals: pair k is (k mod n, (k + k // L) mod m).

    L = lcm(n, m). Within a block of L pairs both indices step by one, so any
    prefix of the order uses every character and every situation evenly (counts
    differ by at most one), and the g = gcd(n, m) blocks shift the diagonal so
    that the whole order visits each pair exactly once.
    """
    if not n or not m:
        return []
    lcm = n * m // math.gcd(n, m)
    return [(k % n, (k + k // lcm) % m) for k in range(n * m)]


def thin_pairs(characters: Sequence[Character], situations: Sequence[Situation],
               every: int) -> list[tuple[Character, Situation]]:
    """The first ceil(n / every) pairs of the diagonal order (all of them for every=1).

    Balanced: each character and each situation keeps its share of the kept pairs
    (8 x 8 with every=8 is one diagonal: each card once, each situation once).
    Nested: the pairs of --every 4 include those of --every 8, so making a run
    denser later reuses every conversation it already finished.
    """
    if every < 1:
        raise UserError(f"--every: must be 1 or more, got {every}")
    order = diagonal_order(len(characters), len(situations))
    kept = order[: math.ceil(len(order) / every)]
    return [(characters[ci], situations[si]) for ci, si in kept]


def build_plan(players: Sequence[str], characters: Sequence[Character],
               situations: Sequence[Situation], every: int = 1) -> list[PlanItem]:
    """Every player gets the same pairs; players interleave so their bars move together."""
    if len(set(players)) != len(players):
        dup = next(p for p in players if players.count(p) > 1)
        raise UserError(f"--player: '{dup}' given twice")
    pairs = thin_pairs(characters, situations, every)
    return [PlanItem(player, card, sit) for card, sit in pairs for player in players]


def build_seed_plan(players: Sequence[str], cards: Sequence[Character], seeds: Sequence[Seed], *,
                    characters: Sequence[str] | None = None, seed_names: Sequence[str] | None = None,
                    lang: str, every: int = 1, where: Callable[[str], object] | None = None,
                    skipped: list[str] | None = None) -> list[PlanItem]:
    """DMT runs: every player gets every seed of the language (its card is the seed's character).

    `characters` keeps the seeds written for those cards, `seed_names` the seeds so named; `every`
    keeps every k-th seed. A seed whose card is not in the library is a bad file (`where` names it):
    a line in `skipped` when one is given, else (and when the seed was named) a UserError.
    """
    from pingpong.situations.seeds import seed_situation

    if len(set(players)) != len(players):
        dup = next(p for p in players if players.count(p) > 1)
        raise UserError(f"--player: '{dup}' given twice")
    if every < 1:
        raise UserError(f"--every: must be 1 or more, got {every}")
    by_name = {card.name: card for card in cards}
    if characters:
        chosen = {card.name for card in pick(cards, characters, "character", lang)}
        seeds = [seed for seed in seeds if seed.character in chosen]
    seeds = pick(seeds, seed_names, "seed", lang)
    if not seeds:
        raise UserError(f"no DMT seeds for lang {lang}")
    items, lost = [], []
    for seed in list(seeds)[::every]:
        card = by_name.get(seed.character)
        if card is None:
            lost.append(f"{where(seed.name) if where else f'seed {seed.name!r}'}: "
                        f"no character card '{seed.character}' for lang {lang}")
            continue
        items += [PlanItem(player, card, seed_situation(seed)) for player in players]
    if lost and (skipped is None or seed_names or not items):
        raise UserError(lost[0])
    if skipped is not None:
        skipped += [f"{line}; skipped" for line in lost]
    return items


def _slug(text: str) -> str:
    """A model name as part of a run name: letters of any script and digits stay (two Cyrillic names
    must not both become "x", or the second run lands in the first and skips everything)."""
    return re.sub(r"[^\w.+-]+", "-", unicodedata.normalize("NFC", text).casefold()).strip("-") or "x"


def default_run_name(players: Sequence[str], interrogator: str, judges: Sequence[str],
                     lang: str, method: str = "pingpong") -> str:
    """A stable, readable name from the models, e.g. 'a+b-vs-offline-judged-by-j1+j2-en'.

    The players are part of the name: adding a player starts a new run, while the
    same command always lands in the same run and resumes it.
    """
    name = (f"{'+'.join(_slug(p) for p in players)}-vs-{_slug(interrogator)}"
            f"-judged-by-{'+'.join(_slug(j) for j in judges)}-{lang}")
    return name + ("" if method == "pingpong" else f"-{method.removeprefix('pingpong-')}")
