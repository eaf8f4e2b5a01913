"""What the situation libraries offer each method, as data: `pingpong situations list|show` prints it
and the TUI's situations screen shows it.

One module decides which items a method lists (situations, DMT seeds, RoleInteract probe sets and
group scenes, RoleBench question sets), what each row says, what an item's details are and how a
name is looked up, so the command line and the screen never disagree. Nothing here prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Union

from pingpong.core.errors import UserError

if TYPE_CHECKING:
    from pingpong.core.domain import Situation
    from pingpong.core.home import Home
    from pingpong.core.methods.dmt_seed import Seed
    from pingpong.core.methods.rolebench_data import GeneralQuestion, QuestionSet, RoleQuestion
    from pingpong.core.methods.roleinteract_data import ChoiceQuestion, GroupScene, MemoryProbe, ProbeSet
    from pingpong.situations.library import SituationLibrary
    from pingpong.situations.probes import ProbeLibrary, SceneLibrary
    from pingpong.situations.questions import QuestionLibrary
    from pingpong.situations.seeds import SeedLibrary

    Probe = Union[ChoiceQuestion, MemoryProbe]
    Question = Union[GeneralQuestion, RoleQuestion]

Row = dict[str, object]
"""An item's `--format json` object."""

KIND_LABELS = {"situation": "situation", "seed": "DMT seed", "probe_set": "probe set", "scene": "group scene",
               "question_set": "question set", "probe": "probe", "question": "question"}
"""How each kind of item is named to a person."""

SET_KINDS = ("probe_set", "question_set")
"""Kinds that hold items of their own (`Entry.children`): each probe, each question is a session."""


@dataclass
class Catalog:
    """The five libraries a listing reads, each opened on first use. The CLI opens them from the home
    (`Catalog.of`); the TUI passes its own (tests replace the bundled folders there)."""

    open_situations: Callable[[], SituationLibrary]
    open_seeds: Callable[[], SeedLibrary]
    open_probes: Callable[[], ProbeLibrary]
    open_scenes: Callable[[], SceneLibrary]
    open_questions: Callable[[], QuestionLibrary]

    @classmethod
    def of(cls, home: Home | None) -> Catalog:
        from pingpong.situations.library import SituationLibrary
        from pingpong.situations.probes import ProbeLibrary, SceneLibrary
        from pingpong.situations.questions import QuestionLibrary
        from pingpong.situations.seeds import SeedLibrary

        return cls(lambda: SituationLibrary(home), lambda: SeedLibrary(home), lambda: ProbeLibrary(home),
                   lambda: SceneLibrary(home), lambda: QuestionLibrary(home))

    @cached_property
    def situations(self) -> SituationLibrary:
        return self.open_situations()

    @cached_property
    def seeds(self) -> SeedLibrary:
        return self.open_seeds()

    @cached_property
    def probes(self) -> ProbeLibrary:
        return self.open_probes()

    @cached_property
    def scenes(self) -> SceneLibrary:
        return self.open_scenes()

    @cached_property
    def questions(self) -> QuestionLibrary:
        return self.open_questions()


@dataclass(frozen=True)
class ItemTable:
    """A table inside an item's details (a set's probes or questions); the last column is the long text."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Details:
    """What `situations show` tells about one item: facts (empty ones are left out when shown), texts
    in boxes (title, text), and for a set the table of what it holds."""

    fields: tuple[tuple[str, object], ...]
    panels: tuple[tuple[str, str], ...] = ()
    table: ItemTable | None = None


@dataclass(frozen=True)
class Shown:
    """One item as `situations show` gives it: its JSON document and its details."""

    data: Row
    details: Details


@dataclass(frozen=True)
class Entry:
    """One item a method offers, as a row of `situations list` (and of the screen's table)."""

    name: str
    kind: str
    """situation, seed, probe_set, scene, question_set; probe and question inside a set."""
    lang: str
    size: str
    """How long a session of it is, or how many it holds: '3 turns', 'up to 5 rounds', '46 probes'."""
    character: str
    """The card it is written for ('' when any card plays it, or several)."""
    about: str
    """Its tags, intent or dimension, in one short line."""
    row: Row
    """The `situations list --format json` object."""
    show: Callable[[], Shown] = field(compare=False, repr=False)
    """Its details (read from the libraries already scanned)."""
    children: Callable[[], list[Entry]] | None = field(default=None, compare=False, repr=False)
    """A set's probes or questions, each one a session's situation; None for the others."""

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)


@dataclass
class Listing:
    """What one method offers in one language (None: every language), and the user files skipped."""

    method: str
    lang: str | None
    entries: list[Entry]
    problems: list[str]

    def of_kind(self, kind: str) -> list[Entry]:
        return [e for e in self.entries if e.kind == kind]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _source(source: str, path: object) -> str:
    return f"{source} ({path})"


# -- the JSON rows -------------------------------------------------------------------------------
def situation_row(s: Situation, source: str) -> Row:
    """The `situations list --format json` object of one situation."""
    return {"name": s.name, "lang": s.lang, "num_turns": s.num_turns, "tags": s.tags, "topic": s.topic,
            "intent": s.intent.value if s.intent else None, "text": s.text, "source": source}


def seed_row(seed: Seed, source: str) -> Row:
    """The `situations list --method dmt --format json` object of one seed."""
    return {**seed.model_dump(mode="json"), "num_turns": seed.max_rounds, "method": "dmt", "source": source}


def scene_row(scene: GroupScene, source: str) -> Row:
    """The `situations list --method roleinteract --format json` object of one group scene."""
    return {**scene.model_dump(mode="json"), "num_turns": scene.rounds + len(scene.questions), "tags": ["scene"],
            "method": "roleinteract", "kind": "scene", "source": source}


def probe_set_row(probe_set: ProbeSet, source: str) -> Row:
    """The `situations list --method roleinteract --format json` object of one probe set."""
    from pingpong.core.methods.roleinteract_data import DIMENSIONS, MEMORY_DIMENSIONS, memory_dimension
    from pingpong.core.methods.roleinteract_probes import memory_turns

    questions = {d: n for d in DIMENSIONS if (n := len(probe_set.by_dimension(d)))}
    memory = {d: n for d in MEMORY_DIMENSIONS if (n := sum(memory_dimension(m) == d for m in probe_set.memory))}
    return {"name": probe_set.character, "kind": "probe_set", "character": probe_set.character,
            "lang": probe_set.lang, "method": "roleinteract",
            "num_turns": max([1, *(memory_turns(m) for m in probe_set.memory)]),
            "tags": [*questions, *memory], "questions": questions, "memory": memory, "source": source}


def question_set_row(question_set: QuestionSet, source: str) -> Row:
    """The `situations list --method rolebench --format json` object of one question set."""
    from pingpong.core.methods.rolebench_data import GeneralSet

    general = isinstance(question_set, GeneralSet)
    characters = question_set.characters() if isinstance(question_set, GeneralSet) else [question_set.character]
    tags = ["raw", "cus"] if general else ["spe"]  # the RoleLLM subsets its answers score
    return {"name": question_set.name, "kind": question_set.kind, "lang": question_set.lang, "method": "rolebench",
            "num_turns": 1, "tags": tags, "questions": len(question_set.questions), "characters": characters,
            "source": source}


# -- each kind of item: its row and its details ---------------------------------------------------
def situation_entry(catalog: Catalog, s: Situation) -> Entry:
    lib = catalog.situations

    def show() -> Shown:
        return Shown({**s.model_dump(mode="json"), "source": lib.source(s.name)}, Details((
            ("name", s.name), ("lang", s.lang), ("turns", s.num_turns), ("tags", ", ".join(s.tags)),
            ("topic", s.topic), ("intent", s.intent.value if s.intent else None),
            ("source", _source(lib.source(s.name), lib.path(s.name)))),
            (("situation (the interrogator sees this)", s.text),)))

    return Entry(s.name, "situation", s.lang, _plural(s.num_turns, "turn"), "", ", ".join(s.tags),
                 situation_row(s, lib.source(s.name)), show)


def seed_entry(catalog: Catalog, seed: Seed) -> Entry:
    lib = catalog.seeds
    row = seed_row(seed, lib.source(seed.name))

    def show() -> Shown:
        return Shown(row, Details((
            ("name", seed.name), ("lang", seed.lang), ("method", "dmt"), ("character", seed.character),
            ("intent", seed.intent.value), ("topic", seed.topic), ("rounds", f"at most {seed.max_rounds}"),
            ("tags", ", ".join(seed.tags)), ("source", _source(lib.source(seed.name), lib.path(seed.name)))), (
            ("first query (round 1, sent as written)", seed.initial_query),
            ("goal (the stop check ends the dialogue once reached)", seed.goal))))

    return Entry(seed.name, "seed", seed.lang, f"up to {seed.max_rounds} rounds", seed.character, seed.intent.value,
                 row, show)


def scene_entry(catalog: Catalog, scene: GroupScene) -> Entry:
    lib = catalog.scenes
    row = scene_row(scene, lib.source(scene.name))

    def show() -> Shown:
        marked = sum(1 for q in scene.questions if q.after)
        return Shown(row, Details((
            ("name", scene.name), ("lang", scene.lang), ("method", "roleinteract (group scene)"),
            ("tested", f"{scene.tested} ({scene.tested_member.preference})"),
            ("members", ", ".join(f"{m.character} ({m.preference})" for m in scene.members)),
            ("rounds", scene.rounds),
            ("questions", f"{len(scene.questions)}" + (f", {marked} at marked points" if marked else "")),
            ("source", _source(lib.source(scene.name), lib.path(scene.name)))), (
            ("setting (every member is told)", scene.setting), ("opening (the narrator)", scene.opening))))

    return Entry(scene.name, "scene", scene.lang, _plural(scene.rounds, "round"), scene.tested,
                 f"{len(scene.members)} members", row, show)


def probe_set_entry(catalog: Catalog, probe_set: ProbeSet) -> Entry:
    from pingpong.core.methods.roleinteract_data import memory_dimension
    from pingpong.core.methods.roleinteract_probes import probe_name

    source = catalog.probes.source(probe_set.character, probe_set.lang)
    row = probe_set_row(probe_set, source)
    probes: list[Probe] = [*probe_set.questions, *probe_set.memory]

    def show() -> Shown:
        listed: list[tuple[str, str, str]] = [(probe_name(probe_set, q.id), q.dimension, q.question)
                                              for q in probe_set.questions]
        listed += [(probe_name(probe_set, m.id), memory_dimension(m), m.ask) for m in probe_set.memory]
        return Shown({**row, "probes": [{"name": n, "dimension": d, "question": q} for n, d, q in listed]}, Details(
            (("name", probe_set.character), ("lang", probe_set.lang), ("method", "roleinteract (probe set)"),
             ("source", source)),
            table=ItemTable(f"{len(listed)} probes (each one a session's situation)", ("name", "dimension", "question"),
                            tuple(listed))))

    return Entry(probe_set.character, "probe_set", probe_set.lang, _plural(len(probes), "probe"), probe_set.character,
                 ", ".join(str(t) for t in row["tags"]), row, show,  # type: ignore[attr-defined]
                 lambda: [probe_entry(probe_set, p) for p in probes])


def probe_entry(probe_set: ProbeSet, probe: Probe) -> Entry:
    from pingpong.core.methods.roleinteract_data import ChoiceQuestion, memory_dimension
    from pingpong.core.methods.roleinteract_probes import memory_turns, probe_name

    name = probe_name(probe_set, probe.id)
    choice = isinstance(probe, ChoiceQuestion)
    dimension = probe.dimension if isinstance(probe, ChoiceQuestion) else memory_dimension(probe)
    turns = 1 if isinstance(probe, ChoiceQuestion) else memory_turns(probe)
    row: Row = {"name": name, "set": probe_set.character, "lang": probe_set.lang, "method": "roleinteract",
                **probe.model_dump(mode="json")}

    def show() -> Shown:
        panels: list[tuple[str, str]] = []
        if isinstance(probe, ChoiceQuestion):
            if probe.context:
                panels.append(("context", probe.context))
            options = "\n".join(f"{letter}. {text}" for letter, text in probe.options.items())
            panels.append(("question", f"{probe.question}\n\n{options}"))
        else:
            panels += [("plant (the fact the user states)", probe.plant),
                       ("ask (the question after the padding)", probe.ask)]
        return Shown(row, Details((
            ("name", name), ("lang", probe_set.lang), ("method", "roleinteract"), ("set", probe_set.character),
            ("dimension", dimension),
            ("answer", ", ".join(probe.answer) if isinstance(probe, ChoiceQuestion) else None),
            ("keywords", None if isinstance(probe, ChoiceQuestion) else ", ".join(probe.keywords)),
            ("padding", None if isinstance(probe, ChoiceQuestion)
             else f"{probe.padding} utterances ({probe.padding_from})")), tuple(panels)))

    return Entry(name, "probe", probe_set.lang, _plural(turns, "turn"), probe_set.character,
                 dimension + ("" if choice else ", memory"), row, show)


def question_set_entry(catalog: Catalog, question_set: QuestionSet) -> Entry:
    lib = catalog.questions
    row = question_set_row(question_set, lib.source(question_set.name))
    characters: list[str] = row["characters"]  # type: ignore[assignment]

    def show() -> Shown:
        return Shown({**row, "questions": [q.model_dump(mode="json") for q in question_set.questions]}, Details(
            (("name", question_set.name), ("lang", question_set.lang), ("method", "rolebench"),
             ("kind", question_set.kind), ("characters", ", ".join(characters)),
             ("source", _source(str(row["source"]), lib.path(question_set.name)))),
            table=ItemTable(f"{len(question_set.questions)} questions (a session's situation is NAME-ID)",
                            ("id", "instruction"), tuple((q.id, q.instruction) for q in question_set.questions))))

    return Entry(question_set.name, "question_set", question_set.lang,
                 _plural(len(question_set.questions), "question"), characters[0] if len(characters) == 1 else "",
                 ", ".join(str(t).upper() for t in row["tags"]), row, show,  # type: ignore[attr-defined]
                 lambda: [question_entry(question_set, q) for q in question_set.questions])


def question_entry(question_set: QuestionSet, q: Question) -> Entry:
    from pingpong.core.methods.rolebench_data import GeneralQuestion

    name = f"{question_set.name}-{q.id}"
    references: Row = {"references": list(q.references)}
    if isinstance(q, GeneralQuestion):
        references["in_role"] = {c: list(answers) for c, answers in q.in_role.items()}
    row: Row = {"name": name, "set": question_set.name, "kind": question_set.kind, "lang": question_set.lang,
                "method": "rolebench", "num_turns": 1, "instruction": q.instruction, **references}
    characters = sorted(q.in_role) if isinstance(q, GeneralQuestion) else [question_set.name]

    def show() -> Shown:
        lines = [f"• {r}" for r in q.references]
        if isinstance(q, GeneralQuestion):
            lines += [f"{c}: {a}" for c, answers in q.in_role.items() for a in answers]
        return Shown(row, Details(
            (("name", name), ("lang", question_set.lang), ("method", "rolebench"),
             ("set", f"{question_set.name} ({question_set.kind})")),
            (("instruction (the player answers it)", q.instruction),
             ("references (Rouge-L against these)", "\n".join(lines)))))

    return Entry(name, "question", question_set.lang, "1 turn", characters[0] if characters else "",
                 "RAW, CUS" if isinstance(q, GeneralQuestion) else "SPE", row, show)


# -- listing and looking up ------------------------------------------------------------------------
def listing(catalog: Catalog, method: str | None = None, lang: str | None = None) -> Listing:
    """What `method` offers in `lang` (None: all): DMT seeds for dmt, probe sets then group scenes for
    roleinteract, question sets for rolebench, the situations for the others. A broken user file is
    left out and its one line kept in `problems`."""
    if method == "dmt":
        seeds = catalog.seeds.all(lang)
        return Listing("dmt", lang, [seed_entry(catalog, s) for s in seeds], list(catalog.seeds.problems))
    if method == "roleinteract":
        probe_sets = [probe_set_entry(catalog, p) for p in catalog.probes.all(lang)]
        scenes = [scene_entry(catalog, s) for s in catalog.scenes.all(lang)]
        return Listing("roleinteract", lang, [*probe_sets, *scenes],
                       [*catalog.probes.problems, *catalog.scenes.problems])
    if method == "rolebench":
        sets = [question_set_entry(catalog, q) for q in catalog.questions.all(lang)]
        return Listing("rolebench", lang, sets, list(catalog.questions.problems))
    situations = catalog.situations.all(lang=lang)
    return Listing(method or "pingpong", lang, [situation_entry(catalog, s) for s in situations],
                   list(catalog.situations.problems))


def find(catalog: Catalog, name: str, method: str | None = None) -> Entry:
    """Any name `situations list` gives, with or without a method: a situation, group scene, RoleBench
    question set or question, DMT seed, RoleInteract probe set (by its card's name) or one probe.
    `method` picks among kinds that share a name (sherlock-holmes has a probe set and a question set).
    UserError when there is no such item."""
    plain = method in (None, "pingpong", "pingpong-v1")
    if plain and name in catalog.situations.names():
        return situation_entry(catalog, catalog.situations.get(name))
    if method in (None, "roleinteract") and name in catalog.scenes.names():
        return scene_entry(catalog, catalog.scenes.get(name))
    if method in (None, "rolebench"):
        if name in catalog.questions.names():
            return question_set_entry(catalog, catalog.questions.get(name))
        for question_set in catalog.questions.all():
            for q in question_set.questions:
                if f"{question_set.name}-{q.id}" == name:
                    return question_entry(question_set, q)
    if method in (None, "dmt") and name in catalog.seeds.names():
        return seed_entry(catalog, catalog.seeds.get(name))
    if method in (None, "roleinteract"):
        found = _find_probes(catalog, name)
        if found is not None:
            return found
    if not plain:
        raise UserError(f"unknown {method} situation '{name}' (see `pingpong situations list --method {method}`)")
    return situation_entry(catalog, catalog.situations.get(name))  # by its file or display name, or close names


def _find_probes(catalog: Catalog, name: str) -> Entry | None:
    """A probe set by its card's name, or one probe by its situation name ('koschei-mem-01')."""
    from pingpong.core.methods.roleinteract_probes import probe_name

    sets = [p for p in catalog.probes.all() if p.character == name]
    if len(sets) > 1:
        raise UserError(f"probe sets for '{name}' exist in {', '.join(p.lang for p in sets)}; "
                        "see `pingpong situations list --method roleinteract --lang L`")
    if sets:
        return probe_set_entry(catalog, sets[0])
    for probe_set in catalog.probes.all():
        probes: list[Probe] = [*probe_set.questions, *probe_set.memory]
        for probe in probes:
            if probe_name(probe_set, probe.id) == name:
                return probe_entry(probe_set, probe)
    return None
