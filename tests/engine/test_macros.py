"""{{char}}/{{user}} become names as plain text; any other braces stay exactly as written."""

from pingpong.core.domain import Character, ExampleTurn
from pingpong.core.macros import replace_macros, with_names


def test_replace_macros_is_plain_text():
    text = "{{char}} greets {{ User }}; <BOT> says {{ 7*7 }} and {% for x in y %} and \\1"
    assert replace_macros(text, "Ада", "ru") == "Ада greets Пользователь; Ада says {{ 7*7 }} and {% for x in y %} and \\1"


def test_with_names_covers_every_text_field():
    card = Character(
        name="c", char_name="Mira", lang="en", summary="{{char}} sells maps",
        persona="{{char}} trusts {{user}}", greeting="Hi {{user}}",
        example_dialogue=[ExampleTurn(user="Who are you, {{char}}?", char="{{char}}, at your service")],
        example_text="{{user}}: hello",
    )
    seen = with_names(card)
    assert (seen.summary, seen.persona, seen.greeting) == ("Mira sells maps", "Mira trusts User", "Hi User")
    assert seen.example_dialogue[0] == ExampleTurn(user="Who are you, Mira?", char="Mira, at your service")
    assert seen.example_text == "User: hello"
    assert card.persona == "{{char}} trusts {{user}}"
