"""Import character cards from any supported file into our Character model.

Formats: our YAML; Character Card V1/V2/V3 JSON; PNG with a `ccv3`/`chara`
chunk; `.charx`; PingPong settings JSON (many characters, plus situations).
The format is chosen by the file's suffix, and by its first bytes otherwise.
Imported names are slugs of the character's name, made unique against `taken`
(cards from our own YAML keep their name: a user card may override a bundled one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pingpong.core.domain import Character, Situation
from pingpong.core.errors import UserError
from pingpong.core.safe_parse import parse_json, real_path, show

from .files import (
    MAX_CONTAINER_BYTES,
    MAX_TEXT_BYTES,
    check_storable,
    decode_text,
    load_model_file,
    read_bytes,
    too_large,
)
from .formats.charx import card_json_from_charx
from .formats.pingpong import is_settings, settings_to_models
from .formats.png import SIGNATURE, card_json_from_png
from .formats.tavern import card_to_character


@dataclass
class Imported:
    """What one file held."""

    characters: list[Character] = field(default_factory=list)
    situations: list[Situation] = field(default_factory=list)
    format: str = ""


def _check_lang(lang: str | None) -> None:
    if lang is not None and not (len(lang) == 2 and lang.isascii() and lang.isalpha() and lang.islower()):
        raise UserError(f"--lang: '{show(lang)}' is not a two-letter language code (e.g. en, ru)")


def import_file(
    path: Path | str,
    lang: str | None = None,
    *,
    taken_cards: set[str] | None = None,
    taken_situations: set[str] | None = None,
) -> Imported:
    """Everything a card file holds. lang overrides the guess for single cards (settings files
    carry their own language keys). taken_* are names to avoid; they are updated.
    Whatever this returns is certain to save into a library and load back unchanged."""
    imported = _read(path, lang, taken_cards, taken_situations)
    where = str(path)
    for card in imported.characters:
        check_storable(card, where, "card")
    for situation in imported.situations:
        check_storable(situation, where, "situation")
    return imported


def _read(
    path: Path | str, lang: str | None, taken_cards: set[str] | None, taken_situations: set[str] | None
) -> Imported:
    _check_lang(lang)
    taken_cards = taken_cards if taken_cards is not None else set()
    p = Path(path)
    where, origin = str(p), str(real_path(p))
    suffix = p.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return Imported([load_model_file(p, Character, "card")], format="yaml")
    data = read_bytes(p, MAX_TEXT_BYTES if suffix == ".json" else MAX_CONTAINER_BYTES)
    obj: Any
    if suffix == ".png" or data.startswith(SIGNATURE):
        obj, fmt = card_json_from_png(data, where), "png"
    elif suffix == ".charx" or data.startswith(b"PK\x03\x04"):
        obj, fmt = card_json_from_charx(data, where), "charx"
    else:
        if len(data) > MAX_TEXT_BYTES:
            raise too_large(where, len(data), MAX_TEXT_BYTES)
        text = decode_text(data, where)
        if suffix != ".json" and not text.lstrip().startswith(("{", "[")):
            return Imported([load_model_file(p, Character, "card")], format="yaml")
        obj, fmt = parse_json(text, where), "json"
    if fmt == "json" and is_settings(obj):
        chars, situations = settings_to_models(
            obj, where, taken_cards=taken_cards, taken_situations=taken_situations, origin=origin
        )
        if not chars and not situations:
            raise UserError(f"{where}: PingPong settings file without characters or situations")
        return Imported(chars, situations, format="pingpong")
    card = card_to_character(obj, where=where, lang=lang, taken=taken_cards, origin=origin)
    spec = obj.get("spec", "chara_card_v1") if isinstance(obj, dict) else "?"
    return Imported([card], format=f"{fmt}:{spec}")


def import_card(path: Path | str, lang: str | None = None, *, taken: set[str] | None = None) -> list[Character]:
    """The characters in the file at path (one, or several for a PingPong settings file)."""
    imported = import_file(path, lang, taken_cards=taken)
    if not imported.characters:
        raise UserError(f"{path}: no characters in this file")
    return imported.characters
