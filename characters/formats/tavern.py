"""Character Card V1 (flat), V2 (`chara_card_v2`) and V3 (`chara_card_v3`) JSON -> Character.

Mapping: persona = system_prompt + description + personality + scenario;
greeting = first_mes; example dialogue from mes_example; summary = creator_notes
or the first sentences of the description. Whatever we do not map (creator,
alternate_greetings, character_book, post_history_instructions, ...) is kept
verbatim in extensions["source_card"]; the card's own `extensions` are kept as
they are at the top level of Character.extensions.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from pingpong.core.domain import Character
from pingpong.core.errors import UserError

from ..files import describe_validation
from ..text import first_sentences, guess_lang, slugify, unique_name
from .fields import Fields, clean_tags
from .macros import drop_original, example_fields, replace_macros

MAPPED = {"name", "description", "personality", "scenario", "first_mes", "mes_example", "tags", "extensions"}
LABELS = {"en": ("Personality", "Scenario"), "ru": ("Характер", "Обстановка")}
SOURCE_KEY = "source_card"


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
    creator_notes = f.text("creator_notes")
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
    persona = replace_macros("\n\n".join(p for p in parts if p), char_name, lang)
    if not persona:
        raise UserError(f"{where}: {f.prefix}description: the card has no description, personality or scenario")
    summary_src = creator_notes.strip() or description.strip() or personality.strip() or scenario.strip()
    summary = first_sentences(replace_macros(summary_src, char_name, lang))

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
            greeting=replace_macros(first_mes.strip(), char_name, lang),
            tags=tags,
            extensions=extensions,
            origin=origin or where,
            **example_fields(mes_example, char_name, lang),
        )
    except ValidationError as exc:
        raise UserError(describe_validation(where, exc)) from None
