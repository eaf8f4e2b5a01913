"""{{char}}/{{user}} become names as plain text; any other braces stay exactly as written."""

import pytest

from pingpong.core.domain import Character, ExampleTurn
from pingpong.core.macros import replace_macros, with_names


def test_replace_macros_is_plain_text():
    text = "{{char}} greets {{ User }}; <BOT> says {{ 7*7 }} and {% for x in y %} and \\1"
    assert replace_macros(text, "Ада", "ru") == "Ада greets Пользователь; Ада says {{ 7*7 }} and {% for x in y %} and \\1"


def test_the_user_name_is_a_parameter_kept_literal():
    assert replace_macros("{{user}} meets <USER> and {{char}}", "Mira", "en", "Dr. \\1 Ng") == \
        "Dr. \\1 Ng meets Dr. \\1 Ng and Mira"
    assert replace_macros("{{user}}", "Mira", "en") == "User"
    assert replace_macros("{{user}}", "Mira", "de") == "User"
    assert replace_macros("{{user}}", "Mira", "en", "") == "User"


def _card(lang: str = "en") -> Character:
    return Character(
        name="c", char_name="Mira", lang=lang, summary="{{char}} sells maps",
        persona="{{char}} trusts {{user}}", greeting="Hi {{user}}",
        example_dialogue=[ExampleTurn(user="Who are you, {{char}}?", char="{{char}}, at your service")],
        example_text="{{user}}: hello", catchphrases=["Maps for {{user}}!"],
    )


def test_with_names_covers_every_text_field():
    card = _card()
    seen = with_names(card)
    assert (seen.summary, seen.persona, seen.greeting) == ("Mira sells maps", "Mira trusts User", "Hi User")
    assert seen.example_dialogue[0] == ExampleTurn(user="Who are you, Mira?", char="Mira, at your service")
    assert seen.example_text == "User: hello"
    assert seen.catchphrases == ["Maps for User!"]
    assert card.persona == "{{char}} trusts {{user}}"


@pytest.mark.parametrize(("lang", "user_name", "expected"), [
    ("en", "Alex", "Mira trusts Alex"),
    ("ru", "Алекс", "Mira trusts Алекс"),
    ("ru", None, "Mira trusts Пользователь"),
])
def test_with_names_takes_the_seat_name(lang, user_name, expected):
    seen = with_names(_card(lang=lang), user_name)
    assert seen.persona == expected
    assert seen.greeting == "Hi " + expected.rsplit(" ", 1)[1]
    assert seen.example_text.startswith(expected.rsplit(" ", 1)[1] + ":")
