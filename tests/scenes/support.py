"""A four-member group scene of our own for the scene tests (three English cards beside the
engine tests' keeper), and an engine built over it."""

from __future__ import annotations

from pingpong.core.domain import Character, SessionSpec
from pingpong.core.engine import SessionEngine
from pingpong.core.methods.roleinteract_data import GroupScene
from pingpong.core.methods.roleinteract_scene import scene_cast, scene_situation
from tests.engine.engine_support import card

CARDS = {c.name: c for c in [
    card(),  # Edda, the lighthouse keeper
    Character(name="harbour-master", char_name="Osric Vane", lang="en", summary="A proud harbour master.",
              persona="Osric keeps every ledger himself and trusts nobody's sums."),
    Character(name="net-mender", char_name="Tamsin", lang="en", summary="A net mender who hears every rumour.",
              persona="Tamsin mends nets on the quay and owes nobody a favour."),
    Character(name="ferryman", char_name="Old Bram", lang="en", summary="A ferryman who has seen every storm.",
              persona="Bram has rowed the strait for fifty years and sings while he rows."),
]}


def scene(**changes) -> GroupScene:
    data = {
        "name": "quay-at-dusk", "lang": "en", "setting": "A boat is overdue; someone must row out.",
        "opening": "The tide turns and the boat is still not in.", "tested": "lighthouse-keeper",
        "members": [{"character": "lighthouse-keeper", "preference": "positive"},
                    {"character": "harbour-master", "preference": "negative"},
                    {"character": "net-mender", "preference": "neutral"},
                    {"character": "ferryman", "preference": "negative"}],
        "rounds": 4,
        "questions": [
            {"id": "q-01", "dimension": "social_preference", "after": 2,
             "question": "Osric refuses to lend his boat. What do you do next?",
             "options": {"A": "Offer your own skiff.", "B": "Go home.", "C": "Mock Osric."}, "answer": ["A"]},
            {"id": "q-02", "dimension": "social_preference",
             "question": "Tamsin shrugs. What do you do next?",
             "options": {"A": "Leave her be.", "B": "Ask her kindly to hold the lantern.", "C": "Cut her nets."},
             "answer": ["B"]},
        ],
    }
    data.update(changes)
    return GroupScene.model_validate(data)


def scene_engine(pool, the_scene: GroupScene | None = None, *, player: str = "player", others: str = "player",
                 interrogator: str = "interrogator", next_speaker: str = "narrator", seats=None,
                 control=None, history=(), **spec_changes) -> SessionEngine:
    the_scene = the_scene or scene()
    cast = scene_cast(the_scene, None, player=player, others=others, seats=seats)
    spec = SessionSpec(method="roleinteract", character=the_scene.tested, situation=the_scene.name, player=player,
                       interrogator=interrogator, cast=cast, next_speaker=next_speaker, lang=the_scene.lang,
                       **spec_changes)
    return SessionEngine(spec=spec, character=CARDS[the_scene.tested], situation=scene_situation(the_scene),
                         pool=pool, cast=[CARDS[c.character] for c in cast], control=control, history=history)
