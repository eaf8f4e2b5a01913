"""Who sat in a seat, worded once for every view; the current occupant is stored with the session."""

from __future__ import annotations

from pingpong.core.domain import Message, SessionSpec
from pingpong.sessions.seats import seat_detail, seat_label, spans
from pingpong.sessions.store import Store
from tests.tui.conftest import CARDS, SITUATIONS


def test_wording():
    one = spans([(1, "offline"), (2, "offline")])
    mixed = spans([(1, "offline"), (2, "human"), (3, "human"), (4, "offline")])
    assert seat_label(one, "offline", True) == "offline" and seat_detail(one, "offline", True) == "offline"
    assert seat_label(one, "human", True) == "offline → human"  # handed over, not written yet
    assert seat_label(one, "human", False) == "offline"  # finished: who wrote is all there is
    assert seat_label(mixed, "offline", False) == "offline+human"
    assert seat_detail(mixed, "offline", False) == "offline turn 1, human turns 2-3, offline turn 4"
    assert seat_label([], "human", True) == "human"


def test_the_store_keeps_the_current_seat_and_lists_the_label(tmp_path):
    with Store(tmp_path / "db.sqlite") as store:
        spec = SessionSpec(character=CARDS[0].name, situation=SITUATIONS[0].name, player="offline",
                           interrogator="human", num_turns=3, lang="en")
        sid = store.create_session(spec, CARDS[0], SITUATIONS[0])
        store.add_message(sid, Message(turn=1, role="user", author="human", text="Hello?"))
        store.set_seat(sid, "interrogator", "offline")
        stored = store.session(sid)
        assert stored.seat("interrogator") == "offline" and stored.seat("player") == "offline"
        assert stored.spec.interrogator == "human"  # the first occupant stays in the spec
        [summary] = store.sessions()
        assert summary.interrogator_seat == stored.seat_label() == "human → offline"
        assert summary.to_json()["interrogator"] == "human"
