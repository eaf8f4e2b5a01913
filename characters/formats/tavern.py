"""Character Card V1 (flat), V2 (`chara_card_v2`) and V3 (`chara_card_v3`) JSON -> Character.

Mapping: persona = system_prompt + description + personality + scenario;
greeting = first_mes; example dialogue from mes_example; summary = the card's
`summary` when it carries one, else drawn from description, personality and
scenario (`derive_summary`). Creator notes are never the summary: they speak to
the card's users ("contest winner", "works best with..."), not about the character.
Macros ({{char}}, {{user}}, <BOT>, <USER>) are kept as written: they become names
when a prompt is built (core.macros.with_names), so {{user}} can be whoever sits in
the interrogator's seat. Whatever we do not map (creator, creator_notes,
alternate_greetings, character_book, post_history_instructions, ...) is kept
verbatim in extensions["source_card"]; the card's own `extensions` are kept as
they are at the top level of Character.extensions.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from pingpong.core.domain import Character
from pingpong.core.errors import UserError

from ..files import describe_validation
from ..text import first_sentences, guess_lang, slugify, unique_name
from .fields import Fields, clean_tags
from .macros import drop_original, example_fields

MAPPED = {"name", "description", "personality", "scenario", "first_mes", "mes_example", "tags", "extensions",
          "summary"}
LABELS = {"en": ("Personality", "Scenario"), "ru": ("Характер", "Обстановка")}
SOURCE_KEY = "source_card"
SUMMARY_LIMIT = 400

_EXAMPLES_START = re.compile(r"^\s*<START>\s*$", re.IGNORECASE | re.MULTILINE)
_PLIST = re.compile(r"^\s*\[(.+)\]\s*$")
_PLIST_LABEL = re.compile(r"^([^=:\[\]]{1,80}?)\s*[=:]\s*")


def _plain_lines(description: str) -> list[str]:
    """The description as plain lines: example chats after a <START> line dropped (Ali:Chat style),
    bracketed attribute lists ([Name's traits= "a", "b"], PList style) written out as "Name's traits: a, b"."""
    lines = []
    for line in _EXAMPLES_START.split(description, maxsplit=1)[0].splitlines():
        m = _PLIST.match(line)
        if m:
            inner = m.group(1).replace('"', "").strip()
            label = _PLIST_LABEL.match(inner)
            line = f"{label.group(1).strip()}: {inner[label.end():]}" if label else inner
        lines.append(line.strip())
    return [line for line in lines if line]


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".!?…\"'»*):;,—-" else text + "."


def derive_summary(description: str, personality: str, scenario: str, lang: str) -> str:
    """What the interrogator is told about a card without its own summary: the first sentences
    (about SUMMARY_LIMIT characters) of description, then personality and scenario. Macros stay."""
    label_p, label_s = LABELS.get(lang, LABELS["en"])
    parts = [_sentence(line) for line in _plain_lines(description)]
    if personality.strip():
        parts.append(_sentence(f"{label_p}: {personality.strip()}"))
    if scenario.strip():
        parts.append(_sentence(f"{label_s}: {scenario.strip()}"))
    return first_sentences(" ".join(parts), limit=SUMMARY_LIMIT)


def card_spec(obj: Any) -> str | None:
    """'chara_card_v3', 'chara_card_v2', 'chara_card_v1', or None when obj is not a card."""
    if not isinstance(obj, dict):
        return None
    spec = obj.get("spec")
    if spec in ("chara_card_v2", "chara_card_v3") and isinstance(obj.get("data"), dict):
        return spec
    if "name" in obj and ({"description", "personality", "first_mes", "mes_example"} & obj.keys()):
        return "chara_card_v1"
    return None


def _extras(obj: dict, data: dict) -> dict:
    """Everything of the card we do not map into Character, empty values dropped."""
    keep: dict[str, Any] = {}
    if obj is not data:
        keep = {k: v for k, v in obj.items() if k != "data" and v not in ("", None, [], {})}
    for key, value in data.items():
        if key not in MAPPED and value not in ("", None, [], {}):
            keep[key] = value
    return keep


def card_to_character(
    obj: Any, *, where: str, lang: str | None = None, taken: set[str] | None = None, origin: str | None = None
) -> Character:
    """Convert a parsed V1/V2/V3 card to our Character. taken: names to avoid (updated)."""
    spec = card_spec(obj)
    if spec is None:
        raise UserError(f"{where}: not a character card (no 'spec: chara_card_v2/v3' with 'data', no V1 'name' + 'description')")
    data = obj if spec == "chara_card_v1" else obj["data"]
    f = Fields(data, where, "" if spec == "chara_card_v1" else "data.")
    char_name = f.text("name").strip()
    if not char_name:
        raise UserError(f"{where}: {f.prefix}name: the card has no character name")
    description, personality, scenario = f.text("description"), f.text("personality"), f.text("scenario")
    system_prompt = drop_original(f.text("system_prompt"))
    first_mes, mes_example = f.text("first_mes"), f.text("mes_example")
    f.text("creator_notes")  # checked, kept in source_card; never the summary
    tags = clean_tags(f.texts("tags"))
    extensions = dict(f.mapping("extensions"))
    f.texts("alternate_greetings")

    lang = lang or guess_lang(description, personality, scenario, first_mes)
    label_p, label_s = LABELS.get(lang, LABELS["en"])
    parts = [system_prompt, description.strip()]
    if personality.strip():
        parts.append(f"{label_p}: {personality.strip()}")
    if scenario.strip():
        parts.append(f"{label_s}: {scenario.strip()}")
    persona = "\n\n".join(p for p in parts if p)
    if not persona:
        raise UserError(f"{where}: {f.prefix}description: the card has no description, personality or scenario")
    summary = " ".join(f.text("summary").split()) or derive_summary(description, personality, scenario, lang)
    if not summary:  # only a system prompt: its first sentences
        summary = first_sentences(persona, limit=SUMMARY_LIMIT)

    extras = _extras(obj, data)
    if extras:
        extensions[SOURCE_KEY] = extras
    taken = taken if taken is not None else set()
    try:
        return Character(
            name=unique_name(slugify(char_name), taken),
            char_name=char_name,
            lang=lang,
            summary=summary,
            persona=persona,
            greeting=first_mes.strip(),
            tags=tags,
            extensions=extensions,
            origin=origin or where,
            **example_fields(mes_example, char_name, lang),
        )
    except ValidationError as exc:
        raise UserError(describe_validation(where, exc)) from None
