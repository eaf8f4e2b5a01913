"""The built-in `offline` model: a deterministic stand-in for every role, no network.

It lets the app run end to end on a fresh machine and in tests. It is not a
language model: player lines are stitched from the card, interrogator lines
from the situation, and judge scores come from simple text heuristics. All of
its output is marked as offline.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from typing import Any

from pingpong.core.domain import CallRecord, ModelSpec
from pingpong.core.llm import ChatRequest, Completion, PoolStats, role_of
from pingpong.core.tokens import estimate_messages, estimate_tokens

MARK = "[offline]"

_REFUSAL = re.compile(
    r"\b(i can(?:no|')t|i cannot|i won'?t|i'?m sorry,? but|as an ai|language model|i am an ai|"
    r"не могу|я не буду|как ии|языковая модель|я (?:—|-)? ?ии)\b",
    re.IGNORECASE,
)
_AI_TALK = re.compile(r"\b(as an ai|language model|assistant|chatbot|языковая модель|ассистент|нейросеть)\b",
                      re.IGNORECASE)
# a sentence ends at . ! ? or … followed by a space and what can start the next one
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[\"«(*A-ZА-ЯЁ])")
_WORDS = re.compile(r"\w+", re.UNICODE)
_PAIRS = (("«", "»"), ("(", ")"), ("“", "”"))

_PLAYER = {
    "en": ["{fact}", "*{name} thinks for a moment* {fact}", "You ask about {topic}? {fact}",
           "{fact} But why do you ask about {topic}?"],
    "ru": ["{fact}", "*{name} ненадолго задумывается* {fact}", "Ты спрашиваешь про «{topic}»? {fact}",
           "{fact} А почему тебя интересует «{topic}»?"],
}


def _pick(options: list[str], *keys: Any) -> str:
    digest = hashlib.sha256("|".join(map(str, keys)).encode()).digest()
    return options[int.from_bytes(digest[:4], "big") % len(options)]


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _whole(sentence: str) -> bool:
    """Not a fragment: its quotes and brackets are balanced and it does not start mid-quote."""
    if sentence[:1] in "»)”,;:—-" or sentence.count('"') % 2:
        return False
    return all(sentence.count(a) == sentence.count(b) for a, b in _PAIRS)


def _sentences(text: str) -> list[str]:
    """Whole sentences of `text` (lines and sentences), never a broken quote."""
    out = []
    for line in (text or "").splitlines():
        out += [s.strip() for s in _SENTENCE_END.split(line.strip()) if len(s.strip()) > 3]
    return [s for s in out if _whole(s)]


_PLAIN = {"everyone", "everything", "something", "anything", "thinking", "really", "honest", "сегодня",
          "серьёзно", "расскажи", "подробнее", "почему", "наверное", "кажется", "немного"}
"""Long words that are no topic to pick up."""


def _topic(text: str, skip: str) -> str:
    """The longest word (six letters or more) of a user's line that is neither the character's name
    nor a filler word: what the reply picks up; "" when there is none."""
    words = [w.lower() for w in _WORDS.findall(text.replace(MARK, "")) if len(w) >= 6]
    words = [w for w in words if w not in _PLAIN and w not in skip.lower()]
    return max(words, key=len) if words else ""


def _words(n: int) -> str:
    return f"{n} word" if n == 1 else f"{n} words"


def _clip(text: str, limit: int = 60) -> str:
    """One line of at most `limit` characters, without our own marker (quotes stay readable)."""
    text = " ".join((text or "").replace(MARK, "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _last_user(req: ChatRequest) -> str:
    for m in reversed(req.messages):
        if m.get("role") == "user" and isinstance(m.get("content"), str):
            return m["content"]
    return ""


def _lang(req: ChatRequest) -> str:
    lang = _get(req.context.get("situation"), "lang") or _get(req.context.get("character"), "lang") or "en"
    return lang if lang in _PLAYER else "en"


# --------------------------------------------------------------------------- the roles


def _own_voice(card: Any) -> list[str]:
    """The sentences the card gives the character to say itself (its example replies), which
    speak in the first person, where a persona is written about the character. Those that the
    offline judge would read as a refusal ("no, I won't do twenty" while haggling) are left out."""
    return [s for ex in _get(card, "example_dialogue", None) or () for s in _sentences(_get(ex, "char", ""))
            if not _REFUSAL.search(s)]


def player_line(req: ChatRequest) -> str:
    """A line from the card (a sentence of its example replies, else of its persona), sometimes
    picking up a word the user said."""
    card = req.context.get("character")
    name = _get(card, "char_name") or "The character"
    facts = (_own_voice(card) or _sentences(_get(card, "persona", "")) or _sentences(_get(card, "greeting", ""))
             or ["I am who I am."])
    said = _last_user(req)
    turn = req.turn or 1
    fact = _pick(facts, "fact", name, turn, said)
    topic = _topic(said, name)
    spoken = _get(card, "lang")  # the language of its sentences, whatever the situation's
    lang = spoken if spoken in _PLAYER else _lang(req)
    templates = [t for t in _PLAYER[lang] if topic or "{topic}" not in t]
    return f"{MARK} " + _pick(templates, "player", name, turn, said).format(name=name, fact=fact, topic=topic)


def interrogator_line(req: ChatRequest) -> str:
    """What a user in this situation might say at this turn (by its theme), never its instructions."""
    from pingpong.core.offline_lines import THEMES, theme_of

    situation = req.context.get("situation")
    card = req.context.get("character")
    theme = theme_of(list(_get(situation, "tags") or []), _get(situation, "text", ""))
    lang = _lang(req)
    lines = THEMES[theme][lang] + (THEMES["any"][lang] if theme != "any" else [])  # long situations go on
    line = lines[((req.turn or 1) - 1) % len(lines)]
    name = _get(card, "char_name") or ("друг" if _lang(req) == "ru" else "friend")
    return f"{MARK} " + line.format(name=name)


def _transcript_replies(req: ChatRequest) -> dict[int, str]:
    replies: dict[int, str] = {}
    for m in req.context.get("transcript") or []:
        if _get(m, "role") == "assistant":
            replies[int(_get(m, "turn"))] = _get(m, "text", "") or ""
    if not replies:  # no context: take assistant messages in order
        n = 0
        for m in req.messages:
            if m.get("role") == "assistant":
                n += 1
                replies[n] = m.get("content") or ""
    return replies


def score_reply(reply: str, persona: str, lang: str | None = None) -> dict[str, Any]:
    """Heuristic scores for one player reply: refusal, in_character, entertaining, fluency (1-5)."""
    words = [w.lower() for w in _WORDS.findall(reply)]
    persona_words = {w.lower() for w in _WORDS.findall(persona) if len(w) > 3}
    refusal = bool(_REFUSAL.search(reply))
    overlap = len({w for w in words if len(w) > 3} & persona_words)
    in_char = 3 + (overlap >= 2) + (overlap >= 5) - 2 * bool(_AI_TALK.search(reply)) - refusal
    distinct = len(set(words)) / len(words) if words else 0.0
    entertaining = 1 + (len(words) >= 8) + (len(words) >= 25) + (distinct > 0.6) + ("*" in reply or "!" in reply)
    fluency = 5
    if lang == "ru" and re.search(r"[A-Za-z]{3,}", reply.replace(MARK, "")):
        fluency -= 1
    if lang not in (None, "ru") and re.search(r"[А-Яа-яЁё]{3,}", reply):
        fluency -= 1
    if re.search(r"([!?.,])\1{3,}", reply) or re.search(r"\b(\w+) \1\b", reply, re.IGNORECASE):
        fluency -= 1
    if not reply.strip():
        in_char, entertaining, fluency = 1, 1, 1
    clamp = lambda v: max(1, min(5, int(v)))  # noqa: E731
    return {"is_refusal": refusal, "in_character": clamp(in_char), "entertaining": clamp(entertaining),
            "fluency": clamp(fluency), "overlap": overlap, "words": len(words)}


def judge_scores(req: ChatRequest) -> str:
    card = req.context.get("character")
    persona = f"{_get(card, 'persona', '')} {_get(card, 'summary', '')} {_get(card, 'char_name', '')}"
    lang = _get(card, "lang")
    replies = _transcript_replies(req)
    turns = list(req.context.get("turns") or sorted(replies) or [1])
    entries = []
    for t in turns:
        reply = replies.get(t, "")
        s = score_reply(reply, persona, lang)
        quote = f"\"{_clip(reply, 40)}\""
        entries.append({
            "turn": t,
            "is_refusal_explanation": f"{MARK} {quote}: refusal phrases {'found' if s['is_refusal'] else 'not found'}.",
            "is_refusal": s["is_refusal"],
            "in_character_explanation": f"{MARK} {quote}: {_words(s['overlap'])} shared with the card.",
            "in_character_score": s["in_character"],
            "entertaining_explanation": f"{MARK} {quote}: {_words(s['words'])}, variety counted.",
            "entertaining_score": s["entertaining"],
            "fluency_explanation": f"{MARK} {quote}: mixed scripts and repeats checked.",
            "fluency_score": s["fluency"],
        })
    return json.dumps({"scores": entries}, ensure_ascii=False)


def interrogator_judge(req: ChatRequest) -> str:
    """PingPong v1's tester: the last reply's refusal flag and three 1-10 scores, and the next line."""
    card = req.context.get("character")
    persona = f"{_get(card, 'persona', '')} {_get(card, 'summary', '')}"
    replies = _transcript_replies(req)
    answer: dict[str, Any] = {}
    if req.context.get("turns"):
        last = replies[max(replies)] if replies else ""
        s = score_reply(last, persona, _get(card, "lang"))
        quote = f"{MARK} \"{_clip(last, 40)}\""
        answer = {
            "is_refusal_explanation": f"{quote}: refusal phrases {'found' if s['is_refusal'] else 'not found'}.",
            "is_refusal": s["is_refusal"],
            "stay_in_character_explanation": f"{quote}: {_words(s['overlap'])} shared with the card.",
            "stay_in_character": max(1, min(10, s["in_character"] * 2)),
            "language_fluency_explanation": f"{quote}: mixed scripts and repeats checked.",
            "language_fluency": max(1, min(10, s["fluency"] * 2)),
            "entertainment_explanation": f"{quote}: {_words(s['words'])}, variety counted.",
            "entertainment": max(1, min(10, s["entertaining"] * 2 - 1)),
        }
    final_call = req.turn in (req.context.get("turns") or [])  # scoring the last reply: no line is due
    answer["next_user_utterance"] = "" if final_call else interrogator_line(req)
    return json.dumps(answer, ensure_ascii=False)


def rolebench_line(req: ChatRequest) -> str:
    """A RoleBench answer: by the question's hash, one of its in-role references whole, the first half
    of its plain reference, or the ordinary stitched line, so scores differ from question to question."""
    situation = req.context.get("situation")
    data = _get(situation, "data") or {}
    in_role, plain = data.get("in_role") or [], data.get("references") or []
    choice = int(_pick(["0", "1", "2"], "rolebench", _get(situation, "name")))
    if choice == 0 and in_role:
        return f"{MARK} {in_role[0]}"
    if choice == 1 and (plain or in_role):
        words = (plain or in_role)[0].split()
        return f"{MARK} " + " ".join(words[: max(1, len(words) // 2)])
    return player_line(req)


def _conversation_quality(messages: Any, card: Any) -> float:
    """Mean heuristic score of a conversation's player replies (score_reply's three metrics, a
    refusal costing 3); 0 without a reply."""
    persona = f"{_get(card, 'persona', '')} {_get(card, 'summary', '')} {_get(card, 'char_name', '')}"
    replies = [_get(m, "text", "") or "" for m in messages or [] if _get(m, "role") == "assistant"]
    if not replies:
        return 0.0
    total = 0.0
    for reply in replies:
        s = score_reply(reply, persona, _get(card, "lang"))
        total += s["in_character"] + s["entertaining"] + s["fluency"] - 3 * s["is_refusal"]
    return total / len(replies)


def pairwise_choice(req: ChatRequest) -> str:
    """A pairwise verdict from the same heuristics as the offline judge: the conversation whose replies
    score higher wins, by less than a quarter point it is a tie. The same in both orders."""
    card = req.context.get("character")
    first = _conversation_quality(req.context.get("first"), card)
    second = _conversation_quality(req.context.get("second"), card)
    better = "tie" if abs(first - second) < 0.25 else ("1" if first > second else "2")
    return json.dumps({"reason": f"{MARK} heuristic reply scores: {first:.2f} in conversation 1, "
                                 f"{second:.2f} in conversation 2.", "better": better})


# --------------------------------------------------------------------------- RoleInteract

_CHOICE_REPLIES = {
    "en": ["{letters}", "({letters})", "I would choose {letters}.", "*thinks it over* My answer is {letters}."],
    "ru": ["{letters}", "({letters})", "Я выбираю {letters}.", "*раздумывает* Мой ответ: {letters}."],
}
_AND = {"en": " and ", "ru": " и "}
NO_CHOICE = {"en": "Hm. None of these sits right with me, and I will not pretend otherwise.",
             "ru": "Хм. Ни один из них мне не по душе, и притворяться не стану."}
_RECALL = {"en": "You told me, and I have not forgotten: {words}.", "ru": "Ты мне говорил, я не забыл: {words}."}


def roleinteract_choice(req: ChatRequest, data: dict[str, Any]) -> str:
    """A multiple-choice answer, by the question's hash: mostly right, sometimes wrong, partly right
    (several answers), one wrong pick among right ones, or no letter at all (unparseable)."""
    question = data.get("question") or {}
    letters, right = list(question.get("options") or {}), list(question.get("answer") or [])
    wrong = [letter for letter in letters if letter not in right]
    name = _get(req.context.get("situation"), "name")
    lang = _lang(req)
    outcome = _hash("roleinteract", name) % 8
    if outcome == 7 or not right:
        return f"{MARK} {NO_CHOICE[lang]}"
    chosen = right
    if outcome == 4 and len(right) > 1:
        chosen = right[:1]
    elif outcome == 5 and wrong:
        chosen = right[:1] + wrong[:1] if len(right) > 1 else wrong[:1]
    elif outcome == 6 and wrong:
        chosen = wrong[-1:]
    template = _pick(_CHOICE_REPLIES[lang], "roleinteract-form", name)
    return f"{MARK} " + template.format(letters=_AND[lang].join(chosen))


def roleinteract_recall(req: ChatRequest, data: dict[str, Any]) -> str:
    """The reply to a memory probe's question: every keyword (the first in capitals), half of them,
    or the ordinary stitched line, by the probe's hash."""
    keywords = list((data.get("probe") or {}).get("keywords") or [])
    outcome = _hash("roleinteract-memory", _get(req.context.get("situation"), "name")) % 3
    recalled = keywords if outcome == 0 else keywords[: len(keywords) // 2] if outcome == 1 else []
    if not recalled:
        return player_line(req)
    words = [recalled[0].upper(), *recalled[1:]]
    return f"{MARK} " + _RECALL[_lang(req)].format(words=", ".join(words))


def roleinteract_probe(req: ChatRequest) -> str | None:
    """The player's answer to a probe, or the interrogator's small talk inside a memory probe (the
    padding lines the probe carries); None for anything else (a group scene's seats)."""
    situation = req.context.get("situation")
    data = _get(situation, "data") or {}
    kind = data.get("kind")
    if req.task == "player" and kind == "choice":
        return roleinteract_choice(req, data)
    if req.task == "player" and kind == "memory":
        return roleinteract_recall(req, data) if req.turn == _get(situation, "num_turns") else player_line(req)
    if req.task == "interrogator" and kind == "memory":
        lines = data.get("padding_lines") or ["..."]
        line = lines[((req.turn or 2) - 2) % len(lines)]
        return json.dumps({"next_utterance": f"{MARK} {line}"}, ensure_ascii=False)
    return None


# --------------------------------------------------------------------------- DMT-RoleBench


def _hash(*keys: Any) -> int:
    return int.from_bytes(hashlib.sha256("|".join(map(str, keys)).encode()).digest()[:4], "big")


def dmt_rounds(situation: Any) -> int:
    """How many rounds the offline stop check lets a seed's dialogue run: 2..max rounds, by the
    seed's name, so dialogues differ in length."""
    limit = int(_get(situation, "num_turns", 1) or 1)
    return limit if limit <= 2 else 2 + _hash("dmt-stop", _get(situation, "name")) % (limit - 1)


def dmt_generate(req: ChatRequest) -> str:
    situation = req.context.get("situation")
    turn = req.turn or 1
    ru = _lang(req) == "ru"
    topic = _get(situation, "topic") or _get(situation, "text", "")
    intent = _get(situation, "intent")
    intent = getattr(intent, "value", intent) or "conversation"
    return json.dumps({
        "sub_topic": f"{_clip(topic, 50)} ({'часть' if ru else 'part'} {turn})",
        "sub_intent": f"{intent}: {'шаг' if ru else 'step'} {turn}",
        "next_query": interrogator_line(req),
    }, ensure_ascii=False)


def dmt_check(req: ChatRequest) -> str:
    query = _last_user(req)
    ok = MARK in query
    return json.dumps({"accept": ok, "reason": f"{MARK} {'the query reads naturally' if ok else 'not ours'}"})


def dmt_stop(req: ChatRequest) -> str:
    done = (req.turn or 1) >= dmt_rounds(req.context.get("situation"))
    return json.dumps({"stop": done, "reason": f"{MARK} {'goal reached' if done else 'goal not reached yet'}"})


def dmt_labels(req: ChatRequest) -> str:
    from pingpong.core.methods.dmt_rules import metrics_for

    card = req.context.get("character")
    situation = req.context.get("situation")
    replies = _transcript_replies(req)
    entries = []
    for t in list(req.context.get("turns") or sorted(replies) or [1]):
        reply = replies.get(t, "")
        entry: dict[str, Any] = {"round": t}
        for metric in metrics_for(_get(card, "role_type")):
            bad = not reply.strip() or _hash("dmt-label", _get(situation, "name"), t, metric) % 6 == 0
            entry[f"{metric}_explanation"] = f"{MARK} \"{_clip(reply, 40)}\": {'a problem' if bad else 'fine'}."
            entry[metric] = "bad" if bad else "good"
        entries.append(entry)
    return json.dumps({"labels": entries}, ensure_ascii=False)


_DMT_TASKS = {"dmt_generate": dmt_generate, "dmt_check": dmt_check, "dmt_stop": dmt_stop, "dmt_label": dmt_labels}


def answer(req: ChatRequest) -> str:
    """The offline model's full answer for a request (deterministic)."""
    if req.task == "scene_next" or (req.task == "player" and ("scene" in req.context or "scene_question" in req.context)):
        from pingpong.core.offline_scene import answer as scene_answer

        return scene_answer(req)
    if req.task == "player" and req.context.get("method") == "rolebench":
        return rolebench_line(req)
    if req.context.get("method") == "roleinteract" and (probe := roleinteract_probe(req)) is not None:
        return probe
    if req.task == "player":
        return player_line(req)
    if req.task == "interrogator":
        return json.dumps({"next_utterance": interrogator_line(req)}, ensure_ascii=False)
    if req.task == "judge":
        return judge_scores(req)
    if req.task == "interrogator_judge":
        return interrogator_judge(req)
    if req.task in _DMT_TASKS:
        return _DMT_TASKS[req.task](req)
    if req.task == "pairwise":
        return pairwise_choice(req)
    raise ValueError(f"unknown task {req.task!r}")


class OfflineModel:
    """ChatModel for the built-in `offline` spec: a few streamed pieces, no network."""

    def __init__(self, spec: ModelSpec, stats: PoolStats | None = None) -> None:
        self.spec = spec
        self._stats = stats

    async def complete(self, req: ChatRequest, *, on_delta=None, on_call=None) -> Completion:
        t0 = time.monotonic()
        if self._stats is not None:
            self._stats.bump(self.spec.name, "requests")
            self._stats.bump(self.spec.name, "attempts")
        text = answer(req)
        if on_delta is not None:
            pieces = re.findall(r"\S+\s*", text) or [text]
            step = max(1, len(pieces) // 4)
            for i in range(0, len(pieces), step):
                on_delta("".join(pieces[i:i + step]))
                await asyncio.sleep(0)
        else:
            await asyncio.sleep(0)
        prompt, completion = estimate_messages(req.messages), estimate_tokens(text)
        latency_ms = (time.monotonic() - t0) * 1000
        if self._stats is not None:
            for attr, n in (("ok", 1), ("prompt_tokens", prompt), ("completion_tokens", completion)):
                self._stats.bump(self.spec.name, attr, n)
        if on_call is not None:
            on_call(CallRecord(role=role_of(req.task), model=self.spec.name, turn=req.turn, attempt=1,
                               status="ok", prompt_tokens=prompt, completion_tokens=completion,
                               tokens_estimated=True, latency_ms=latency_ms))
        return Completion(text, prompt, completion, True, latency_ms, 1, "stop")
