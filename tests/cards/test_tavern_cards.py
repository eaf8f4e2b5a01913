"""A SillyTavern default-style card as its users expect it: summary, lorebook, {{user}}, lookup by name.

The card below is our own stand-in with the shape of SillyTavern's bundled default character: a V2
PNG whose description is bracketed attribute lists followed by a <START> example chat, empty
personality/scenario/mes_example, creator notes that talk to the card's users, and a lorebook.
"""

from __future__ import annotations

import pytest

from pingpong.characters.formats.tavern import derive_summary
from pingpong.characters.importers import import_card
from pingpong.characters.library import CardLibrary
from pingpong.core.lorebook import active_entries, character_book
from pingpong.core.macros import with_names

from .builders import b64json, run_cli, text_chunk, v2_card, write_png

DESCRIPTION = (
    "[{{char}}'s nature= \"watchful\", \"gentle\", \"stubborn\", \"patient\", \"quietly funny\"]\n"
    "[{{char}}'s looks= \"silver hair\", \"moss-green cloak\", \"bare feet\", \"a staff of rowan\"]\n"
    "<START>\n"
    "{{user}}: \"Who are you?\"\n"
    "{{char}}: *She leans on her staff.* \"The keeper of this forest. You were lucky I found you first.\"\n"
)
HOLLOWMERE = "Hollowmere is an old forest whose paths shift at night; only its keeper walks them safely."
SHADOWKIN = "Shadowkin are beasts of smoke that fear rowan wood and the keeper's lantern."
CREATOR_NOTES = "Winner of our community's default-character contest! Works best with long replies."


def seraphina_card() -> dict:
    return v2_card(
        "Seraphina", description=DESCRIPTION, personality="", scenario="", mes_example="", system_prompt="",
        post_history_instructions="", alternate_greetings=[], tags=["fantasy", "guardian"],
        creator_notes=CREATOR_NOTES,
        first_mes="*You wake on a bed of ferns, bandaged.* \"Easy, {{user}}. The forest nearly kept you.\"",
        character_book={"name": "Hollowmere", "scan_depth": 3, "entries": [
            {"keys": ["forest", "Hollowmere"], "content": HOLLOWMERE, "enabled": True, "insertion_order": 100,
             "extensions": {}},
            {"keys": ["shadowkin", "/shadow ?beasts?/i"], "content": SHADOWKIN, "enabled": True,
             "insertion_order": 50, "extensions": {}},
        ]},
    )


@pytest.fixture
def seraphina(tmp_path):
    [card] = import_card(write_png(tmp_path / "Seraphina.png", text_chunk("chara", b64json(seraphina_card()))))
    return card


def test_the_summary_comes_from_the_description_never_the_creator_notes(seraphina):
    assert seraphina.summary == (
        "{{char}}'s nature: watchful, gentle, stubborn, patient, quietly funny. "
        "{{char}}'s looks: silver hair, moss-green cloak, bare feet, a staff of rowan."
    )
    assert "contest" not in seraphina.summary and "<START>" not in seraphina.summary
    assert with_names(seraphina).summary.startswith("Seraphina's nature: watchful")
    assert seraphina.extensions["source_card"]["creator_notes"] == CREATOR_NOTES


def test_summary_rules():
    long = " ".join(f"Sentence number {i} about the keeper." for i in range(40))
    summary = derive_summary(long, "", "", "en")
    assert 300 < len(summary) <= 400 and summary.endswith("keeper.")
    assert derive_summary("{{char}} keeps bees", "shy", "{{user}} visits", "en") == \
        "{{char}} keeps bees. Personality: shy. Scenario: {{user}} visits."
    assert derive_summary("", "ворчливый", "", "ru") == "Характер: ворчливый."
    assert derive_summary("Appearance:\ntall, grey\n\n[Likes: tea; rain]", "", "", "en") == \
        "Appearance: tall, grey. Likes: tea; rain."


def test_a_card_that_carries_a_summary_keeps_it(tmp_path):
    card = v2_card(summary="An airship captain,  in short.", creator_notes="Made for a jam.")
    [c] = import_card(write_png(tmp_path / "c.png", text_chunk("chara", b64json(card))))
    assert c.summary == "An airship captain, in short."
    assert "summary" not in c.extensions["source_card"]


def test_the_lorebook_entry_reaches_the_prompt_when_the_user_mentions_the_forest(seraphina):
    book = character_book(seraphina)
    assert book is not None
    greeting = with_names(seraphina).greeting
    assert active_entries(book, [greeting, "Where am I? What is this forest?"]) == [HOLLOWMERE]
    assert active_entries(book, ["Hello.", "Thank you for the bandages."]) == []
    assert active_entries(book, ["Something howled. Shadow beasts?", "Stay close."]) == [SHADOWKIN]
    assert active_entries(book, ["The forest is loud.", "Are shadowkin near?"]) == [SHADOWKIN, HOLLOWMERE]


def test_user_stays_a_macro_in_the_card_until_a_prompt_is_built(seraphina):
    assert "{{user}}" in seraphina.greeting and "{{user}}" in seraphina.persona
    seen = with_names(seraphina, "Alex")
    assert seen.greeting.endswith("\"Easy, Alex. The forest nearly kept you.\"")
    assert "Alex: \"Who are you?\"" in seen.persona


def test_cards_show_finds_the_card_by_its_display_name(tmp_path, seraphina):
    from pingpong.core.home import Home

    home = tmp_path / "home"
    CardLibrary(Home(home)).save(seraphina.model_copy(update={"name": "hollowmere-keeper"}))
    for asked in ("Seraphina", "seraphina", "SERAPHINA", "hollowmere-keeper"):
        result = run_cli(home, "cards", "show", asked, "--format", "json")
        assert result.returncode == 0, result.stderr
        assert '"char_name": "Seraphina"' in result.stdout
    result = run_cli(home, "cards", "show", "Serafina")
    assert result.returncode == 2 and "did you mean: hollowmere-keeper?" in result.stderr
