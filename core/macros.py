"""The {{char}} / {{user}} name macros of role-play cards, swapped as plain text.

Cards (ours and imported ones) may say {{char}} and {{user}}. They are replaced
by string substitution, never by a template engine, so any other braces in a
card reach the model exactly as written.
"""

from __future__ import annotations

import re

from pingpong.core.domain import Character, ExampleTurn

USER_NAMES = {"en": "User", "ru": "Пользователь"}

_CHAR = re.compile(r"\{\{\s*char\s*\}\}|<BOT>", re.IGNORECASE)
_USER = re.compile(r"\{\{\s*user\s*\}\}|<USER>", re.IGNORECASE)


def user_name(lang: str) -> str:
    return USER_NAMES.get(lang, USER_NAMES["en"])


def replace_macros(text: str, char_name: str, lang: str) -> str:
    """Swap the name macros for names; the lambdas keep replacement text literal (no backrefs)."""
    text = _CHAR.sub(lambda _: char_name, text)
    return _USER.sub(lambda _: user_name(lang), text)


def with_names(card: Character) -> Character:
    """The card as the models see it: every text field with its macros replaced."""

    def sub(text: str) -> str:
        return replace_macros(text, card.char_name, card.lang)

    return card.model_copy(update={
        "summary": sub(card.summary),
        "persona": sub(card.persona),
        "greeting": sub(card.greeting),
        "example_text": sub(card.example_text),
        "example_dialogue": [ExampleTurn(user=sub(t.user), char=sub(t.char)) for t in card.example_dialogue],
    })
