"""PingPong settings JSON: {"<lang>": {"characters": [...], "situations": [...]}, ...}.

A character there has char_name, system_prompt, example_prompt,
initial_message, summary, tags; a situation has text, num_turns, tags (and
optionally name, topic, intent). The language comes from the top-level key.
Unknown character fields are kept in extensions["source_card"]; unknown situation
fields are dropped (Situation has no place for them).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from pingpong.core.domain import Character, Situation
from pingpong.core.errors import UserError
from pingpong.core.safe_parse import show

from ..files import describe_validation
from ..text import first_sentences, slugify, unique_name
from .fields import Fields, clean_tags
from .macros import example_fields

CHAR_FIELDS = {"char_name", "system_prompt", "example_prompt", "initial_message", "summary", "tags"}
SOURCE_KEY = "source_card"


def is_settings(obj: Any) -> bool:
    """True for a dict of language blocks that hold characters and/or situations."""
    return (
        isinstance(obj, dict)
        and bool(obj)
        and all(
            isinstance(k, str) and len(k) == 2 and isinstance(v, dict) and ("characters" in v or "situations" in v)
            for k, v in obj.items()
        )
    )


def _character(item: Any, lang: str, where: str, path: str, taken: set[str], origin: str) -> Character:
    if not isinstance(item, dict):
        raise UserError(f"{where}: {path}: expected an object, got {type(item).__name__}")
    f = Fields(item, where, path + ".")
    char_name = f.text("char_name").strip()
    if not char_name:
        raise UserError(f"{where}: {path}.char_name: missing character name")
    persona = f.text("system_prompt").strip()  # {{char}}/{{user}} stay: names are put in per prompt
    if not persona:
        raise UserError(f"{where}: {path}.system_prompt: missing (the character's description)")
    summary = f.text("summary").strip() or first_sentences(persona)
    extras = {k: v for k, v in item.items() if k not in CHAR_FIELDS}
    try:
        return Character(
            name=unique_name(slugify(char_name), taken),
            char_name=char_name,
            lang=lang,
            summary=summary,
            persona=persona,
            greeting=f.text("initial_message").strip(),
            tags=clean_tags(f.texts("tags")),
            extensions={SOURCE_KEY: extras} if extras else {},
            origin=origin,
            **example_fields(f.text("example_prompt"), char_name, lang),
        )
    except ValidationError as exc:
        raise UserError(describe_validation(where, exc, prefix=path + ".")) from None


def _situation(item: Any, lang: str, where: str, path: str, taken: set[str], origin: str) -> Situation:
    if not isinstance(item, dict):
        raise UserError(f"{where}: {path}: expected an object, got {type(item).__name__}")
    f = Fields(item, where, path + ".")
    text = f.text("text").strip()
    if not text:
        raise UserError(f"{where}: {path}.text: missing situation text")
    num_turns = f.integer("num_turns")
    if num_turns is None:
        raise UserError(f"{where}: {path}.num_turns: missing number of turns")
    base = slugify(f.text("name") or " ".join(text.split()[:6]), fallback="situation")
    data = {k: item[k] for k in ("topic", "intent") if item.get(k) is not None}
    try:
        return Situation(
            name=unique_name(base, taken), lang=lang, text=text, num_turns=num_turns,
            tags=clean_tags(f.texts("tags")), **data,
        )
    except ValidationError as exc:
        raise UserError(describe_validation(where, exc, prefix=path + ".")) from None


def settings_to_models(
    obj: dict,
    where: str,
    *,
    taken_cards: set[str] | None = None,
    taken_situations: set[str] | None = None,
    origin: str | None = None,
) -> tuple[list[Character], list[Situation]]:
    """All characters and situations of a settings file, names made unique against the taken sets."""
    taken_cards = taken_cards if taken_cards is not None else set()
    taken_situations = taken_situations if taken_situations is not None else set()
    chars: list[Character] = []
    situations: list[Situation] = []
    for lang, block in obj.items():
        if lang != lang.lower() or not lang.isalpha():
            raise UserError(f"{where}: {show(lang)}: not a language code (expected e.g. 'en', 'ru')")
        f = Fields(block, where, lang + ".")
        for i, item in enumerate(_listed(block, "characters", f)):
            chars.append(_character(item, lang, where, f"{lang}.characters.{i}", taken_cards, origin or where))
        for i, item in enumerate(_listed(block, "situations", f)):
            situations.append(_situation(item, lang, where, f"{lang}.situations.{i}", taken_situations,
                                         origin or where))
    return chars, situations


def _listed(block: dict, key: str, f: Fields) -> list:
    """The block's list under ``key`` (none: empty); anything else is a one-line error."""
    items = block.get(key)
    if items is None:
        return []
    if not isinstance(items, list):
        f.fail(key, "a list", items)
    return items
