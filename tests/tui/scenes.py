"""A three-character group scene for the TUI tests: two more English cards beside the keeper, and
a scene that tests her, written into the test home (the shared bundled cards stay as they are)."""

from __future__ import annotations

import yaml

from pingpong.core.domain import Character
from pingpong.core.methods.roleinteract_data import GroupScene
from tests.tui.conftest import CARDS

MEMBERS = [
    Character(name="harbour-master", char_name="Osric", lang="en",
              summary="The harbour master, proud of his ledgers and quick to take offence.",
              persona="Osric runs the harbour by the book. He keeps every ledger himself and trusts nobody else's sums."),
    Character(name="net-mender", char_name="Tamsin", lang="en",
              summary="A net mender who hears every rumour on the quay.",
              persona="Tamsin mends nets on the quay. She says little, notices everything and owes nobody a favour."),
]

SCENE = GroupScene.model_validate({
    "name": "quay-at-dusk", "lang": "en",
    "setting": "A fishing boat is overdue and the three of them must decide who rows out to look for it.",
    "opening": "The tide turns. A lantern swings on the quay and the boat is still not in.",
    "tested": "lighthouse-keeper",
    "members": [{"character": "lighthouse-keeper", "preference": "positive"},
                {"character": "net-mender", "preference": "neutral"},
                {"character": "harbour-master", "preference": "negative"}],
    "rounds": 5,
    "questions": [
        {"id": "q-01", "dimension": "social_preference", "after": 2,
         "question": "Osric refuses to lend his boat. What do you do next?",
         "options": {"A": "Offer your own skiff and ask Tamsin to hold the lantern.", "B": "Go home to bed.",
                     "C": "Mock Osric in front of everyone."}, "answer": ["A"]},
        {"id": "q-02", "dimension": "social_preference",
         "question": "Tamsin says it is none of her business. What do you do next?",
         "options": {"A": "Leave her be.", "B": "Ask her kindly to watch the light while you row.",
                     "C": "Threaten to cut her nets."}, "answer": ["B"]},
    ],
})


def write_scene(home) -> None:
    """The two cards and the scene as the person's own files in the home folder."""
    home.characters_dir.mkdir(parents=True, exist_ok=True)
    for card in MEMBERS:
        data = card.model_dump(mode="json", exclude_defaults=True)
        (home.characters_dir / f"{card.name}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True),
                                                              encoding="utf-8")
    scenes = home.situations_dir / "scenes"
    scenes.mkdir(parents=True, exist_ok=True)
    data = SCENE.model_dump(mode="json", exclude_none=True)
    (scenes / f"{SCENE.name}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False),
                                               encoding="utf-8")


def scene_cards() -> dict[str, Character]:
    return {card.name: card for card in [CARDS[0], *MEMBERS]}


def write_scene_session(store, home, *, finished: bool = True) -> int:
    """A finished scene, written straight through the store: the keeper under test, Tamsin played by
    a person, Osric by the offline model, the two questions answered (one right) and scored by rule.
    finished=False: only its first four turns, interrupted (to be resumed)."""
    from pingpong.core.domain import JudgeVerdict, Message, Score, SessionSpec
    from pingpong.core.methods.roleinteract_scene import question_text, scene_cast, scene_situation

    write_scene(home)
    cards = scene_cards()
    cast = scene_cast(SCENE, None, player="offline", others="offline", seats={"net-mender": "human"})
    spec = SessionSpec(character=SCENE.tested, situation=SCENE.name, player="offline", interrogator="offline",
                       method="roleinteract", lang="en", cast=cast)
    sid = store.create_session(spec, cards[SCENE.tested], scene_situation(SCENE),
                               cast=[cards[c.character] for c in cast])
    q1, q2 = SCENE.questions
    rows = [
        (1, "user", "narrator", "scene", SCENE.opening, {"kind": "opening"}),
        (1, "assistant", "lighthouse-keeper", "offline", "Nobody rows out alone tonight. Osric, your boat.",
         {"next_by": "turn"}),
        (2, "assistant", "harbour-master", "offline", "My boat stays tied. The ledger says so.",
         {"next_by": "narrator", "narrator": "offline"}),
        (3, "user", "narrator", "scene", question_text(q1), {"question": "q-01"}),
        (3, "assistant", "lighthouse-keeper", "offline", "A. My skiff it is.", {"question": "q-01"}),
        (4, "assistant", "net-mender", "human", "Not my boat.", {"next_by": "person"}),
        (5, "assistant", "lighthouse-keeper", "offline", "Tamsin, hold the lantern high.", {"next_by": "person"}),
        (6, "assistant", "harbour-master", "offline", "Row, then. I will write it down.", {"next_by": "turn"}),
        (7, "assistant", "net-mender", "human", "*lifts the lantern*", {"next_by": "turn"}),
        (8, "user", "narrator", "scene", question_text(q2), {"question": "q-02"}),
        (8, "assistant", "lighthouse-keeper", "offline", "C, and gladly.", {"question": "q-02"}),
    ]
    for turn, role, speaker, author, text, notes in rows if finished else rows[:6]:
        store.add_message(sid, Message(turn=turn, role=role, speaker=speaker, author=author, text=text, notes=notes))
    if not finished:
        store.set_status(sid, "interrupted")
        return sid
    store.add_verdict(sid, JudgeVerdict(judge="roleinteract", scores=[
        Score(turn=3, metric="social_preference_group", value=1.0, scale="0-1", explanation="chose A; expected A"),
        Score(turn=8, metric="social_preference_group", value=0.0, scale="0-1", explanation="chose C; expected B")]))
    store.set_status(sid, "finished")
    stamp = "2026-01-01T10:00:00"
    store.db.execute("update sessions set created_at = ?, updated_at = ?, finished_at = ? where id = ?",
                     [stamp, stamp, stamp, sid])
    return sid
