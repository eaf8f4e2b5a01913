"""The player's prompting strategies (zsp, fsp, fsd): what reaches the model, from the renderer
and from a live session against the local server."""

from __future__ import annotations

from pingpong.core.domain import ExampleTurn, Message
from pingpong.core.engine import SessionEngine
from pingpong.core.prompts import PromptRenderer
from tests.engine.engine_support import card, collect, requests_for, situation, spec

EXAMPLES = [
    ExampleTurn(user="Do you fear the storm?", char="Storms are old friends of mine."),
    ExampleTurn(user="What do gulls eat?", char="Whatever I drop, mostly."),
    ExampleTurn(user="Who paints the tower?", char="I do, every spring."),
    ExampleTurn(user="Is the lamp oil expensive?", char="Dearer every year."),
    ExampleTurn(user="Do you read at night?", char="Only the sea."),
    ExampleTurn(user="Where were you born?", char="On the mainland, sadly."),
    ExampleTurn(user="Have you seen a shipwreck?", char="Three. I don't talk of them."),
]


def many_examples(**kw):
    return card(example_dialogue=EXAMPLES, catchphrases=["Wipe your boots!", "The light stays on."], **kw)


def ask(text: str) -> list[Message]:
    return [Message(turn=1, role="user", author="i", text=text)]


def prior_users(messages: list[dict]) -> list[str]:
    """The example user lines sent before the greeting (the chat's own lines excluded)."""
    return [m["content"] for m in messages[1:] if m["role"] == "user" and m["content"] in
            {ex.user for ex in EXAMPLES}]


def test_default_sends_every_example_as_turns():
    msgs = PromptRenderer().player(many_examples(), ask("hello"))
    assert len(prior_users(msgs)) == len(EXAMPLES)
    assert "Wipe your boots!" in msgs[0]["content"]


def test_zsp_sends_no_examples_but_keeps_catchphrases():
    msgs = PromptRenderer().player(many_examples(), ask("Tell me about the storm"), "zsp")
    assert prior_users(msgs) == []
    assert "Storms are old friends" not in msgs[0]["content"]
    assert "The light stays on." in msgs[0]["content"]


def test_fsp_writes_examples_into_the_system_prompt():
    msgs = PromptRenderer().player(many_examples(), ask("hello"), "fsp")
    assert prior_users(msgs) == []
    system = msgs[0]["content"]
    assert "User: Do you fear the storm?\nEdda: Storms are old friends of mine." in system
    assert "Wipe your boots!" in system


def test_fsd_keeps_the_five_most_like_the_question():
    msgs = PromptRenderer().player(many_examples(), ask("Was there a storm and a shipwreck?"), "fsd")
    users = prior_users(msgs)
    assert len(users) == 5
    assert "Do you fear the storm?" in users and "Have you seen a shipwreck?" in users
    assert users == [ex.user for ex in EXAMPLES if ex.user in users]  # the card's order


def test_fsd_with_few_examples_sends_all():
    msgs = PromptRenderer().player(card(), ask("anything"), "fsd")
    assert prior_users(msgs) == [] and msgs[1] == {"role": "user", "content": "Is the light ever off?"}


QUESTION = "Was there ever a storm with a shipwreck near the tower?"


async def _player_request(fake_pool, fake_server, prompting):
    import json

    from tests.fakeserver import default_responder

    fake_server.responder = lambda body: (json.dumps({"next_utterance": QUESTION})
                                          if body.get("model") == "interrogator" else default_responder(body))
    engine = SessionEngine(spec=spec(prompting=prompting, num_turns=1, judges=[]), character=many_examples(),
                           situation=situation(1), pool=fake_pool)
    await collect(engine)
    return requests_for(fake_server, "player")[0]["messages"]


async def test_fsd_request_carries_matching_examples_as_prior_turns(fake_server, fake_pool):
    messages = await _player_request(fake_pool, fake_server, "fsd")
    assert messages[-1] == {"role": "user", "content": QUESTION}
    users = prior_users(messages)
    assert len(users) == 5
    for sharing in ("Do you fear the storm?", "Have you seen a shipwreck?", "Who paints the tower?"):
        assert sharing in users
    index = messages.index({"role": "user", "content": users[0]})
    assert messages[index + 1]["role"] == "assistant"


async def test_zsp_request_carries_no_examples(fake_server, fake_pool):
    messages = await _player_request(fake_pool, fake_server, "zsp")
    assert prior_users(messages) == []
    assert "Wipe your boots!" in messages[0]["content"]


def test_lorebook_entries_reach_the_player_when_the_chat_mentions_their_keys():
    from pingpong.core.domain import Character, Message
    from pingpong.core.prompts import PromptRenderer

    book = {"scan_depth": 2, "entries": [
        {"keys": ["forest"], "content": "{{char}} guards the Eldmoor forest and its spring.", "insertion_order": 10},
        {"keys": ["tower"], "content": "The old tower fell in the great storm.", "insertion_order": 5},
    ]}
    card = Character(name="warden", char_name="Ilse", lang="en", summary="A forest warden.",
                     persona="Ilse keeps the woods.", extensions={"character_book": book})
    ask = [Message(turn=1, role="user", author="u", text="Is the forest safe at night?")]
    system = PromptRenderer().player(card, ask)[0]["content"]
    assert "Ilse guards the Eldmoor forest" in system and "tower fell" not in system
    other = [Message(turn=1, role="user", author="u", text="What do you eat?")]
    assert "Eldmoor" not in PromptRenderer().player(card, other)[0]["content"]


def test_lorebook_entries_name_the_user_as_the_rest_of_the_card_does():
    """{{user}} in a lore entry is the config's user_name, as in the greeting and the examples (the card
    the engine gives the models has its names filled in everywhere, its lorebook included)."""
    from pingpong.core.domain import Character, Message
    from pingpong.core.macros import with_names
    from pingpong.core.prompts import PromptRenderer

    book = {"entries": [{"keys": ["lamp"], "content": "{{char}} keeps the lamp for {{user}}."}]}
    for where in ({"character_book": book}, {"source_card": {"character_book": book}}):
        raw = Character(name="keeper", char_name="Marta", lang="en", summary="A keeper.", persona="Marta keeps it.",
                        greeting="Hello {{user}}.", extensions=where)
        named = with_names(raw, "Alexandra")
        messages = PromptRenderer().player(named, [Message(turn=1, role="user", author="u", text="The lamp?")])
        assert "Marta keeps the lamp for Alexandra." in messages[0]["content"]
        assert "Hello Alexandra." in [m["content"] for m in messages]
        assert raw.extensions == where  # the stored card keeps its macros


def test_the_user_side_sees_the_greeting_only_where_the_player_was_given_it():
    """A minimal or overview player never says the card's greeting: the interrogator (and v1's tester)
    must not read it as the conversation's first line either."""
    from pingpong.core.domain import Character, Situation
    from pingpong.core.prompts import PromptRenderer

    keeper = Character(name="keeper", char_name="Marta", lang="en", summary="A keeper.", persona="Marta keeps it.",
                       greeting="Wipe your boots, stranger.")
    sit = Situation(name="s", lang="en", num_turns=2, text="Ask for shelter.")
    r = PromptRenderer()
    # zsp, fsp and fsd (METHOD.md "RoleLLM") say exactly which prior turns the player has: none is the greeting
    for fmt, prompting, shown in (("detailed", None, True), ("minimal", None, False), ("overview", None, False),
                                  ("detailed", "zsp", False), ("detailed", "fsp", False), ("detailed", "fsd", False)):
        asked = r.interrogator(keeper, sit, [], turn=1, num_turns=2, prompt_format=fmt, prompting=prompting)
        tested = r.interrogator_judge(keeper, sit, [], turn=1, score_turn=None, num_turns=2, prompt_format=fmt,
                                      prompting=prompting)
        player = r.player(keeper, [], prompting, prompt_format=fmt)
        assert any("Wipe your boots" in m["content"] for m in player) is shown
        assert ("Wipe your boots" in asked[1]["content"]) is shown
        assert ("Wipe your boots" in tested[1]["content"]) is shown
