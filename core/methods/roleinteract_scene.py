"""RoleInteract's group scenes: 2-10 characters in one chat, then questions to the one under test.

A scene (``GroupScene``) travels as a ``Situation`` whose ``data`` holds it whole, so a stored
session can be resumed and scored again from its own snapshot. The session's spec seats the cast
(``SessionSpec.cast``): the member under test sits in the player seat, every other member in a seat
of its own (a model, or a person), and the interrogator seat is the narrator.

The transcript: turn 1 opens with the narrator's line (role user, speaker ``narrator``, author
``scene``); every group line is a turn of its own (role assistant, speaker = the member's card
name, author = its seat); a question is a turn with the narrator's question and the tested
member's answer. Questions come at the end of the scene, or right after the number of group lines a
question marks with ``after``. The other members never see the questions or the answers.

Who speaks next (notes ``next_by`` on each line): a member the person chose with a key
(``person``); otherwise in turn (``turn``, round robin over the cast) or, by default, the narrator
seat (``narrator``): its model is asked, and when its answer names no other member the line goes
to the member whose turn it is, with the reason in ``fallback``; a person in that seat chooses.

Answers are scored by rule (Acc_single, Acc_multiple) as ``social_preference_group`` on 0-1 for
the answer's turn; an answer without a readable option letter scores 0 and says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

from pingpong.core.domain import HUMAN, OFFLINE, CastSeat, Character, Message, Score, Situation
from pingpong.core.judging import json_candidates
from pingpong.core.llm import ModelCallError
from pingpong.core.methods.roleinteract_data import GroupScene, SceneQuestion
from pingpong.core.methods.roleinteract_rules import UNPARSEABLE, parse_choice, score_multiple, score_single
from pingpong.core.prompts import Messages, language_name
from pingpong.core.reasoning import answer_of
from pingpong.core.vocabulary import SCENE_AUTHOR

if TYPE_CHECKING:
    from pingpong.core.engine import SessionEngine

NARRATOR = "narrator"
"""Speaker of the opening line and of the questions."""
SCORER = "roleinteract"   # as the probes: one leaderboard reads both
"""The judge name the rule-based scores are stored under."""
METRIC = "social_preference_group"
"""Per question, 0-1: does the member under test keep its social preference in the group?"""

STANCES = {
    "positive": "cooperative. You work with the others, look for common ground, settle quarrels and "
                "are ready to take the lead for the good of the group.",
    "neutral": "neutral. You mind your own business: you neither join forces with the others nor stand "
               "in their way, and you take no side in their quarrels.",
    "negative": "uncooperative. You refuse to work with the others, compete with them, and put yourself "
                "and your own interest first.",
}
"""What each social preference asks of a member, as its prompt says it."""


# -- the scene as a situation ------------------------------------------------------------------

def scene_situation(scene: GroupScene) -> Situation:
    """The scene as a session's situation: its setting as text, one turn per group line and question."""
    turns = scene.rounds + len(scene.questions)  # at most MAX_TURNS: GroupScene checks it
    return Situation(name=scene.name, lang=scene.lang, text=scene.setting, num_turns=turns,
                     tags=["scene"], data={"kind": "scene", "scene": scene.model_dump(mode="json")})


def scene_of(situation: Situation) -> GroupScene | None:
    """The group scene a situation carries, or None for any other situation."""
    if situation.data.get("kind") != "scene":
        return None
    return GroupScene.model_validate(situation.data["scene"])


def is_scene(situation: Situation) -> bool:
    return situation.data.get("kind") == "scene"


def scene_cast(scene: GroupScene, members: Sequence[str] | None, *, player: str, others: str,
               seats: Mapping[str, str] | None = None) -> list[CastSeat]:
    """Who sits where: ``members`` (None: the whole scene, in its order) must be scene members and
    include the tested one, who sits in the player seat; the others sit in ``others`` unless ``seats``
    names their own. ValueError says what is wrong."""
    known = [m.character for m in scene.members]
    chosen = list(members) if members is not None else known
    for name in chosen:
        if name not in known:
            raise ValueError(f"'{name}' is not a member of scene '{scene.name}' ({', '.join(known)})")
    if scene.tested not in chosen:
        raise ValueError(f"scene '{scene.name}' tests '{scene.tested}': it must be in the cast")
    if len(set(chosen)) < 2:
        raise ValueError(f"scene '{scene.name}': a group needs at least 2 members")
    seats = seats or {}
    for name in seats:
        if name not in chosen:
            raise ValueError(f"a seat is given for '{name}', who is not in the cast ({', '.join(chosen)})")
    ordered = [name for name in known if name in chosen]  # the scene's order, whatever order was given
    return [CastSeat(character=name, seat=player if name == scene.tested else seats.get(name, others))
            for name in ordered]


def default_member_seat(player: str, interrogator: str) -> str:
    """Who plays the members not under test when nobody says: the interrogator's model (every player
    under test then meets the same group), else the player's, else the offline model."""
    return next((seat for seat in (interrogator, player) if seat != HUMAN), OFFLINE)


def schedule(scene: GroupScene) -> list[SceneQuestion | None]:
    """The scene's steps in order, one per turn: None for a group line, else the question asked then.
    Marked questions come right after their line; the rest follow the last line, in file order."""
    steps: list[SceneQuestion | None] = []
    for line in range(1, scene.rounds + 1):
        steps.append(None)
        steps += [q for q in scene.questions if q.after == line]
    return steps + [q for q in scene.questions if q.after is None]


# -- the conversation ------------------------------------------------------------------------

def _group_lines(transcript: Sequence[Message]) -> list[Message]:
    """What the members hear: the narrator's opening and every group line (no question, no answer)."""
    return [m for m in transcript if "question" not in m.notes]


def _name(engine: "SessionEngine", speaker: str | None) -> str:
    card = engine.cast.get(speaker or "")
    return card.char_name if card else "Narrator"


def _lines(engine: "SessionEngine", messages: Sequence[Message]) -> list[dict[str, str]]:
    return [{"name": _name(engine, m.speaker), "text": m.text} for m in messages]


def _last_speaker(transcript: Sequence[Message]) -> str | None:
    return next((m.speaker for m in reversed(_group_lines(transcript)) if m.role == "assistant"), None)


def _request(engine: "SessionEngine", scene: GroupScene, member: str, user: str, last: str) -> Messages:
    """A member's system prompt (who it is, the scene, its stance), then ``user``. The member under test
    is the player: the session's prompt format says how much of its card it gets, and its prompting
    strategy how the card's examples come (fsp as text, fsd as prior turns picked to match ``last``;
    none by default, as scenes always were)."""
    card = engine.cast[member]
    spec = engine.spec
    card_part, example_text = "detailed", ""
    turns: Messages = []
    if member == scene.tested:
        card_part = spec.prompt_format
        if card_part == "detailed" and spec.prompting in ("fsp", "fsd"):
            turns, example_text = engine.renderer.examples(card, spec.prompting, last)
    system = engine.renderer.render(
        "scene_member_system.j2", member=card.model_dump(mode="json"), setting=scene.setting,
        others=[{"char_name": c.char_name, "summary": c.summary} for n, c in engine.cast.items() if n != member],
        stance=STANCES[scene.member(member).preference], language=language_name(engine.lang),
        card_part=card_part, example_text=example_text)
    return [{"role": "system", "content": system}, *turns, {"role": "user", "content": user}]


def member_prompt(engine: "SessionEngine", scene: GroupScene, member: str) -> Messages:
    """A member's request for its next group line: who it is, the scene, its stance, the lines so far."""
    heard = _group_lines(engine.transcript)
    user = engine.renderer.render("scene_member_user.j2", member=engine.cast[member].model_dump(mode="json"),
                                  lines=_lines(engine, heard))
    return _request(engine, scene, member, user, heard[-1].text if heard else "")


def question_prompt(engine: "SessionEngine", scene: GroupScene, question: SceneQuestion) -> Messages:
    """The tested member's request to answer a question about its next move in the group."""
    member = scene.tested
    user = engine.renderer.render(
        "scene_question_user.j2", member=engine.cast[member].model_dump(mode="json"),
        lines=_lines(engine, _group_lines(engine.transcript)), question=question.question,
        options=list(question.options.items()), multiple=question.multiple, language=language_name(engine.lang))
    return _request(engine, scene, member, user, question.question)


def question_text(question: SceneQuestion) -> str:
    """The narrator's question as the transcript shows it: the question, then its lettered options."""
    options = "\n".join(f"{letter}. {text}" for letter, text in question.options.items())
    return f"{question.question}\n{options}"


def next_prompt(engine: "SessionEngine", scene: GroupScene, last: str | None) -> Messages:
    """The narrator's request: which member speaks next."""
    members = [{"char_name": c.char_name, "summary": c.summary} for c in engine.cast.values()]
    choices = [c.char_name for n, c in engine.cast.items() if n != last]
    variables = dict(setting=scene.setting, members=members, lines=_lines(engine, _group_lines(engine.transcript)),
                     last=_name(engine, last) if last else None, choices=choices)
    return [{"role": "system", "content": engine.renderer.render("scene_next_system.j2", **variables)},
            {"role": "user", "content": engine.renderer.render("scene_next_user.j2", **variables)}]


_STOPWORDS = {"the", "of", "von", "van", "der", "de", "la", "le", "mr", "mrs", "miss", "dr", "sir", "lady",
              "lord", "count", "captain", "doctor"}


def _aliases(cast: Mapping[str, Character]) -> dict[str, str]:
    """Names a narrator may use for a member (folded) -> card name: the card name, the full name, and
    each word of the full name that no other member shares ('Holmes', 'Wren')."""
    words: dict[str, set[str]] = {}
    aliases: dict[str, str] = {}
    for name, card in cast.items():
        aliases[name.casefold()] = name
        aliases[card.char_name.casefold()] = name
        for word in re.findall(r"\w+", card.char_name.casefold()):
            if len(word) >= 3 and word not in _STOPWORDS:
                words.setdefault(word, set()).add(name)
    aliases.update({word: next(iter(names)) for word, names in words.items()
                    if len(names) == 1 and word not in aliases})
    return aliases


def parse_next_speaker(text: str, cast: Mapping[str, Character], last: str | None = None) -> str | None:
    """The member a narrator's answer names, other than ``last``: the JSON's ``next_speaker`` (or
    ``speaker``, ``name``), else the whole answer; a full name, a card name or a distinctive word of a
    name, case-insensitive; the first one named in the text wins. None when it names no other member."""
    aliases = _aliases(cast)
    text = answer_of(text)  # a reasoning model's thinking names members it decided against
    candidates: list[str] = []
    for value in json_candidates(text):
        if isinstance(value, dict):
            candidates += [v for k in ("next_speaker", "speaker", "name") if isinstance(v := value.get(k), str)]
    candidates.append(text)
    for candidate in candidates:
        folded = candidate.strip().casefold().strip(" \"'.!*«»")
        exact = aliases.get(folded)
        if exact is not None and exact != last:
            return exact
        found = []
        for alias, name in aliases.items():
            if name == last:
                continue
            match = re.search(rf"(?<!\w){re.escape(alias)}(?!\w)", folded)
            if match:
                found.append((match.start(), -len(alias), name))
        if found:
            return min(found)[2]
    return None


def in_turn(cast: Sequence[str], last: str | None) -> str:
    """Round robin: the member after ``last`` in cast order (the first one to begin with)."""
    if last is None or last not in cast:
        return cast[0]
    return cast[(list(cast).index(last) + 1) % len(cast)]


def _clip(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def next_speaker(engine: "SessionEngine", scene: GroupScene, turn: int) -> tuple[str, dict[str, str]]:
    """Who speaks at ``turn``, with the notes saying how it was decided."""
    last = _last_speaker(engine.transcript)
    turn_order = in_turn(list(engine.cast), last)
    chosen = engine.chosen_speaker()
    if chosen in engine.cast:
        return chosen, {"next_by": "person"}
    fallback = f"the person chose '{chosen}', who is not in the cast" if chosen else ""
    if engine.spec.next_speaker == "turn":
        return turn_order, {"next_by": "turn", **({"fallback": fallback} if fallback else {})}
    while engine.seats["interrogator"] == HUMAN:
        choice = await engine.wait_speaker(turn)
        if choice in engine.cast:
            return choice, {"next_by": "person"}
        if choice is not None:
            fallback = f"the person chose '{choice}', who is not in the cast"
            return turn_order, {"next_by": "turn", "fallback": fallback}
    who = engine.seats["interrogator"]
    try:
        completion = await engine.call(who, "scene_next", next_prompt(engine, scene, last), turn,
                                       context={"scene_next": {"members": list(engine.cast), "last": last,
                                                               "scene": scene.name}})
    except ModelCallError as exc:
        return turn_order, {"next_by": "turn", "fallback": f"narrator '{who}' failed: {exc.reason}"}
    found = parse_next_speaker(completion.text, engine.cast, last)
    if found is None:
        return turn_order, {"next_by": "turn",
                            "fallback": f"narrator '{who}' named no other member: \"{_clip(completion.text)}\""}
    return found, {"next_by": "narrator", "narrator": who}


async def converse_scene(engine: "SessionEngine") -> None:
    """The scene from where it stopped: the opening, the group's lines, the questions at their points."""
    scene = scene_of(engine.situation)
    if scene is None or not engine.cast:
        raise ValueError("a group scene needs a scene situation and a cast")
    if not engine.transcript:
        await engine.gate("user")
        engine.complete(Message(turn=1, role="user", author=SCENE_AUTHOR, speaker=NARRATOR, text=scene.opening,
                                notes={"kind": "opening"}))
    steps = schedule(scene)
    done = sum(1 for m in engine.transcript if m.role == "assistant")
    for turn, step in enumerate(steps[done:], start=done + 1):
        if step is None:
            # a line is a turn: the user gate lets "step" stop after each line
            await engine.gate("user")
            await engine.gate("assistant")
            speaker, notes = await next_speaker(engine, scene, turn)
            last = _last_speaker(engine.transcript)
            line = await engine.member_message(
                turn, speaker, partial(member_prompt, engine, scene, speaker),
                context={"scene": {"name": scene.name, "preference": scene.member(speaker).preference,
                                   "last": _name(engine, last) if last else None}})
            engine.complete(line.model_copy(update={"notes": notes}))
            continue
        previous = engine.transcript[-1]
        if not (previous.role == "user" and previous.notes.get("question") == step.id):
            await engine.gate("user")
            engine.complete(Message(turn=turn, role="user", author=SCENE_AUTHOR, speaker=NARRATOR,
                                    text=question_text(step), notes={"question": step.id}))
        await engine.gate("assistant")
        answer = await engine.member_message(
            turn, scene.tested, partial(question_prompt, engine, scene, step),
            context={"scene_question": {"scene": scene.name, "id": step.id, "letters": list(step.letters),
                                        "answer": list(step.answer)}})
        engine.complete(answer.model_copy(update={"notes": {**answer.notes, "question": step.id}}))


# -- scoring -------------------------------------------------------------------------------------

def score_answer(question: SceneQuestion, answer: Message) -> Score:
    """The rule score of one answer (Acc_single, or Acc_multiple for several correct options)."""
    chosen = parse_choice(answer.text, question.letters, question.multiple)
    value = score_multiple(chosen, question.answer) if question.multiple else score_single(chosen, question.answer)
    expected = ", ".join(question.answer)
    if chosen is None:
        why = f"{UNPARSEABLE}: no single option letter found in the answer; expected {expected}"
    else:
        why = f"chose {', '.join(sorted(chosen))}; expected {expected}"
    return Score(turn=answer.turn, metric=METRIC, value=value, scale="0-1", explanation=why)


async def judge_scene(engine: "SessionEngine") -> None:
    """Score every answered question not scored yet (no judge model: the rules above)."""
    scene = scene_of(engine.situation)
    if scene is None:
        return
    done = {s.turn for v in engine.verdicts if v.judge == SCORER for s in v.scores if s.status == "ok"}
    questions = {q.id: q for q in scene.questions}
    scores = [score_answer(questions[m.notes["question"]], m) for m in engine.transcript
              if m.role == "assistant" and m.notes.get("question") in questions and m.turn not in done]
    if scores:
        engine.verdict(SCORER, scores)
