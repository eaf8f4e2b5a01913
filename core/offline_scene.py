"""The offline model in a group scene: every member's line, the narrator's choice of the next
speaker, and the tested member's answers, all deterministic and marked as offline output.

A member's line is stitched from its card and its social preference, addressed to whoever spoke
last (or to the whole group). The narrator names, by a hash of the scene and the turn, a member other than the last
speaker. Answers pick the correct option for two questions in three and a wrong one otherwise, so
every scoring path runs offline.
"""

from __future__ import annotations

import json

from pingpong.core.llm import ChatRequest
from pingpong.core.offline import MARK, _get, _hash, _lang, _pick, _sentences

_LINES = {
    "en": {
        "positive": ["*steps closer* {other}, let us do this together. {fact}",
                     "{other}, you are right, and I will help. {fact}",
                     "Enough quarrelling, {other}: we share the work. {fact}"],
        "neutral": ["*shrugs* Do as you like, {other}; it is no affair of mine. {fact}",
                    "I will keep to my own business, {other}. {fact}",
                    "Settle it among yourselves, {other}. {fact}"],
        "negative": ["*turns away* I will manage on my own, {other}. {fact}",
                     "Work with you, {other}? I would rather not. {fact}",
                     "Each for himself, {other}, and I go first. {fact}"],
    },
    "ru": {
        "positive": ["*подходит ближе* {other}, давайте сделаем это вместе. {fact}",
                     "{other}, вы правы, и я помогу. {fact}",
                     "Хватит ссориться, {other}: поделим работу. {fact}"],
        "neutral": ["*пожимает плечами* Делайте как знаете, {other}, мне всё равно. {fact}",
                    "Я займусь своим делом, {other}. {fact}",
                    "Решайте это сами, {other}. {fact}"],
        "negative": ["*отворачивается* Я справлюсь сам, {other}. {fact}",
                     "Работать с вами, {other}? Увольте. {fact}",
                     "Каждый сам за себя, {other}, и я первый. {fact}"],
    },
}
_ANSWER = {"en": "My answer: {letter}.", "ru": "Мой ответ: {letter}."}
_SOMEONE = {"en": "friends", "ru": "друзья"}


def member_line(req: ChatRequest) -> str:
    """One group line of the member in ``context['character']``, in its social preference's voice."""
    card = req.context.get("character")
    scene = req.context.get("scene") or {}
    lang = _lang(req)
    name = _get(card, "char_name") or "?"
    facts = _sentences(_get(card, "persona", "")) or ["..."]
    other = scene.get("last") or _SOMEONE[lang]
    template = _pick(_LINES[lang][scene.get("preference") or "neutral"], "scene-line", scene.get("name"), name,
                     req.turn)
    fact = _pick(facts, "scene-fact", scene.get("name"), name, req.turn)
    return f"{MARK} " + template.format(other=other, fact=fact)


def next_speaker(req: ChatRequest) -> str:
    """The narrator's pick: a member other than the last speaker, by the scene and the turn."""
    data = req.context.get("scene_next") or {}
    members = [m for m in data.get("members") or [] if m != data.get("last")] or list(data.get("members") or [])
    chosen = _pick(members, "scene-next", data.get("scene"), req.turn) if members else ""
    return json.dumps({"next_speaker": chosen}, ensure_ascii=False)


def question_answer(req: ChatRequest) -> str:
    """Right for two questions in three, by the scene and the question's id; else the next letter."""
    data = req.context.get("scene_question") or {}
    letters, correct = list(data.get("letters") or ["A"]), list(data.get("answer") or ["A"])
    letter = correct[0]
    if _hash("scene-answer", data.get("scene"), data.get("id")) % 3 == 2:
        letter = letters[(letters.index(letter) + 1) % len(letters)] if letter in letters else letters[0]
    return f"{MARK} " + _ANSWER[_lang(req)].format(letter=letter)


def answer(req: ChatRequest) -> str:
    """The offline answer to a group scene's request (a line, a next speaker, or an answer)."""
    if req.task == "scene_next":
        return next_speaker(req)
    if req.context.get("scene_question"):
        return question_answer(req)
    return member_line(req)
