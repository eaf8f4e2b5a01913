"""What DMT-RoleBench's helper seats are told: the generator, the quality check, the stop check
and the labeller. Plain strings built here (no templates): each asks for one small JSON object.

The generator and the checks see the seed (topic, intent, goal) and the dialogue so far, never the
full card, as the interrogator never does; the labeller sees the card, the rubric of the metrics
that apply and the numbered rounds.
"""

from __future__ import annotations

from collections.abc import Sequence

from pingpong.core.domain import Character, Message, Situation
from pingpong.core.methods.dmt_rules import METRIC_DESCRIPTIONS
from pingpong.core.prompts import Messages

LANGUAGES = {"en": "English", "ru": "Russian"}


def language(lang: str | None) -> str:
    return LANGUAGES.get(lang or "en", lang or "English")


def seed_lines(situation: Situation) -> str:
    """The seed as the helper seats see it."""
    data = situation.data
    return "\n".join((
        f"Topic: {situation.topic or situation.text}",
        f"Evaluation intent: {situation.intent.value if situation.intent else 'free conversation'}",
        f"Goal of the dialogue: {data.get('goal', situation.text)}",
    ))


def dialogue(transcript: Sequence[Message], name: str) -> str:
    """The rounds so far, numbered, one line per message."""
    lines = []
    for m in transcript:
        who = "User" if m.role == "user" else name
        lines.append(f"[round {m.turn}] {who}: {m.text}")
    return "\n".join(lines) or "(nothing yet)"


def generate(character: Character, situation: Situation, transcript: Sequence[Message], *,
             turn: int, max_rounds: int, lang: str, rejected: Sequence[tuple[str, str]] = ()) -> Messages:
    """Ask for the next user query of round ``turn`` with its sub-topic and sub-intent."""
    system = (
        "You write the user's side of a test conversation with a role-play character. "
        f"The character is {character.char_name}: {character.summary}\n"
        f"{seed_lines(situation)}\n"
        "Before each new round you pick a sub-topic that grows out of the topic and what has been said, "
        "and a sub-intent that serves the evaluation intent at this point of the talk, then write the "
        "user's next message so that the dialogue moves toward its goal. Write as a real user would: "
        f"short, natural, in {language(lang)}, never mentioning tests, models or evaluation. "
        'Answer with JSON only: {"sub_topic": "...", "sub_intent": "...", "next_query": "..."}'
    )
    user = (f"Dialogue so far:\n{dialogue(transcript, character.char_name)}\n\n"
            f"Write round {turn} of at most {max_rounds}.")
    if rejected:
        notes = "\n".join(f"- {query!r} was rejected: {why}" for query, why in rejected)
        user += f"\nEarlier attempts for this round that a reviewer rejected:\n{notes}\nWrite a better one."
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def check(character: Character, situation: Situation, transcript: Sequence[Message], *,
          sub_topic: str, sub_intent: str, query: str, lang: str) -> Messages:
    """Ask whether a generated user query is fit to send."""
    system = (
        "You review user messages written for a test conversation with a role-play character "
        f"({character.char_name}: {character.summary}).\n{seed_lines(situation)}\n"
        "Accept the message when it reads like something a real user would say next, follows from the "
        f"dialogue, serves the stated sub-topic and sub-intent, is in {language(lang)}, and does not "
        "reveal that this is a test. Reject it otherwise and say why in one sentence. "
        'Answer with JSON only: {"accept": true|false, "reason": "..."}'
    )
    user = (f"Dialogue so far:\n{dialogue(transcript, character.char_name)}\n\n"
            f"Sub-topic: {sub_topic}\nSub-intent: {sub_intent}\nProposed next user message: {query}")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def stop(character: Character, situation: Situation, transcript: Sequence[Message]) -> Messages:
    """Ask whether the dialogue has reached the seed's goal."""
    system = (
        "You decide whether a test conversation with a role-play character has done its job. "
        f"The character is {character.char_name}.\n{seed_lines(situation)}\n"
        "Say stop only when the goal has been reached; otherwise say continue (the round limit ends "
        "the dialogue on its own). "
        'Answer with JSON only: {"stop": true|false, "reason": "..."}'
    )
    user = f"Dialogue so far:\n{dialogue(transcript, character.char_name)}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def label(character: Character, transcript: Sequence[Message], *, rounds: Sequence[int],
          metrics: Sequence[str]) -> Messages:
    """Ask for a good/bad label with an explanation per round and metric."""
    rubric = "\n".join(f"- {m}: {METRIC_DESCRIPTIONS[m]}" for m in metrics)
    fields = ", ".join(f'"{m}_explanation": "...", "{m}": "good"|"bad"' for m in metrics)
    system = (
        f"You evaluate how a model plays the character {character.char_name}. The character card:\n"
        f"{character.persona}\n\n"
        "Label each of the character's replies in the rounds listed, judging the reply alone in its "
        "context (not the user's lines), for each criterion below: good when the reply meets it, bad "
        "when it does not. Give a short explanation first, quoting the reply where there is a problem. "
        "Do not reward length.\n"
        f"Criteria:\n{rubric}\n\n"
        'Answer with JSON only: {"labels": [{"round": N, ' + fields + "}, ...]}"
    )
    user = (f"Dialogue:\n{dialogue(transcript, character.char_name)}\n\n"
            f"Label rounds: {', '.join(map(str, rounds))}")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def label_reask(messages: Messages, answer: str, missing: Sequence[tuple[int, str]]) -> Messages:
    """The labelling request again, with the judge's answer and the labels it left out."""
    by_round: dict[int, list[str]] = {}
    for turn, metric in missing:
        by_round.setdefault(turn, []).append(metric)
    wanted = "; ".join(f"round {t}: {', '.join(ms)}" for t, ms in sorted(by_round.items()))
    note = ("Some labels are missing from your answer. Give exactly these now, each good or bad with its "
            f'explanation, in the same JSON format ({{"labels": [...]}}): {wanted}')
    return [*messages, {"role": "assistant", "content": answer}, {"role": "user", "content": note}]
