"""The {{char}} / {{user}} name macros of role-play cards, swapped as plain text when a prompt is built.

Cards (ours and imported ones) keep {{char}} and {{user}} as written; they become
names only here, when the models are given the card. {{user}} is the name of
whoever sits in the interrogator's seat (config `user_name`); without one it is a
neutral name in the card's language. Substitution is plain string replacement,
never a template engine, so any other braces in a card reach the model exactly
as written.
"""

from __future__ import annotations

import re

from pingpong.core.domain import Character, ExampleTurn

USER_NAMES = {"en": "User", "ru": "Пользователь"}
"""The neutral {{user}} of each language, when nobody named the interrogator's seat."""

_CHAR = re.compile(r"\{\{\s*char\s*\}\}|<BOT>", re.IGNORECASE)
_USER = re.compile(r"\{\{\s*user\s*\}\}|<USER>", re.IGNORECASE)


def neutral_user_name(lang: str) -> str:
    """'User' for English cards (and any language we have no word for), 'Пользователь' for Russian ones."""
    return USER_NAMES.get(lang, USER_NAMES["en"])


def replace_macros(text: str, char_name: str, lang: str, user_name: str | None = None) -> str:
    """{{char}}/<BOT> -> char_name, {{user}}/<USER> -> user_name (default: the language's neutral name).

    Matching ignores case and inner spaces ({{Char}}, {{ user }}); the lambdas keep the
    replacement text literal (a name with a backslash is not a backreference).
    """
    user = user_name if user_name else neutral_user_name(lang)
    text = _CHAR.sub(lambda _: char_name, text)
    return _USER.sub(lambda _: user, text)


def with_names(card: Character, user_name: str | None = None) -> Character:
    """The card as the models see it: every text field (and its lorebook's entries) with its macros replaced.

    user_name: who {{user}} is (the interrogator seat's name, config `user_name`);
    None or "" gives the card language's neutral name ("User" in English).
    """

    def sub(text: str) -> str:
        return replace_macros(text, card.char_name, card.lang, user_name)

    from pingpong.core.lorebook import with_entry_text

    return with_entry_text(card.model_copy(update={
        "summary": sub(card.summary),
        "persona": sub(card.persona),
        "greeting": sub(card.greeting),
        "example_text": sub(card.example_text),
        "example_dialogue": [ExampleTurn(user=sub(t.user), char=sub(t.char)) for t in card.example_dialogue],
        "catchphrases": [sub(line) for line in card.catchphrases],
    }), sub)
