"""Group scenes stored and run end to end on the offline model: `pingpong run`, a resumed scene,
a fork, and the lossless JSONL carrying the cast."""

from __future__ import annotations

import io
from contextlib import aclosing

from pingpong.core.config import offline_spec
from pingpong.core.domain import SessionSpec
from pingpong.core.home import Home
from pingpong.core.llm import ModelPool
from pingpong.core.methods.roleinteract_scene import scene_cast, scene_situation
from pingpong.sessions import live
from pingpong.sessions.exchange_jsonl import export_jsonl, import_jsonl, parse_jsonl
from pingpong.sessions.store import Store
from pingpong.situations.probes import SceneLibrary
from tests.runner.conftest import pingpong, rows
from tests.scenes.support import CARDS, scene


def test_an_offline_run_plays_every_bundled_scene_of_a_language(tmp_path):
    home = tmp_path / "home"
    for lang in ("en", "ru"):
        scenes = ",".join(s.name for s in SceneLibrary(Home(home)).all(lang))
        result = pingpong(home, "run", "--method", "roleinteract", "--player", "offline", "--interrogator", "offline",
                          "--judge", "offline", "--lang", lang, "--situations", scenes)
        assert result.rc == 0, result.err
        assert "3/3 done" in result.out
    assert rows(home, "SELECT count(*), min(status), max(status) FROM sessions") == [(6, "finished", "finished")]
    assert rows(home, "SELECT count(*) FROM messages WHERE speaker IS NULL OR speaker = ''") == [(0,)]
    assert rows(home, "SELECT count(*) FROM sessions WHERE cast_snapshot IS NULL") == [(0,)]
    values = [v for (v,) in rows(home, "SELECT value FROM scores WHERE metric = 'social_preference_group'"
                                       " AND source = 'judge' AND by = 'roleinteract'")]
    assert len(values) == 30 and 0 < sum(values) < 30, "the offline player is right on some, wrong on others"
    scenes = ",".join(s.name for s in SceneLibrary(Home(home)).all("en"))
    again = pingpong(home, "run", "--method", "roleinteract", "--player", "offline", "--interrogator", "offline",
                     "--judge", "offline", "--lang", "en", "--situations", scenes)
    assert again.rc == 0 and rows(home, "SELECT count(*) FROM sessions") == [(6,)]
    one = pingpong(home, "run", "--method", "roleinteract", "--player", "offline", "--interrogator", "offline",
                   "--judge", "offline", "--situations", "no-such-scene")
    assert one.rc == 2 and "'no-such-scene' is no group scene, probe" in one.err


def _start(store: Store, **seats) -> int:
    the_scene = scene()
    cast = scene_cast(the_scene, None, player="offline", others="offline", seats=seats or None)
    spec = SessionSpec(method="roleinteract", character=the_scene.tested, situation=the_scene.name,
                       player="offline", interrogator="offline", cast=cast, lang="en")
    return live.start_session(store, spec, CARDS[the_scene.tested], scene_situation(the_scene),
                              cast=[CARDS[c.character] for c in cast])


async def _run(store: Store, pool: ModelPool, sid: int) -> None:
    async with aclosing(live.run_session(store, pool, sid)) as events:
        async for _ in events:
            pass


async def test_a_scene_stopped_after_a_question_resumes_with_its_answer(tmp_path):
    store = Store(tmp_path / "db")
    pool = ModelPool({"offline": offline_spec()})
    whole = _start(store)
    await _run(store, pool, whole)
    played = store.session(whole).messages
    assert played[3].notes == {"question": "q-01"} and played[3].role == "user"
    cut = _start(store)  # the same scene, stopped right after the narrator asked q-01
    for message in played[:4]:
        store.add_message(cut, message)
    store.set_status(cut, "interrupted")
    await _run(store, pool, cut)
    await pool.aclose()
    done = store.session(cut)
    assert done.status == "finished"
    assert [(m.turn, m.role) for m in done.messages] == [
        (1, "user"), (1, "assistant"), (2, "assistant"), (3, "user"), (3, "assistant"), (4, "assistant"),
        (5, "assistant"), (6, "user"), (6, "assistant")]
    said = [(m.speaker, m.author, m.text, m.notes) for m in done.messages]
    assert said == [(m.speaker, m.author, m.text, m.notes) for m in played], \
        "the offline seats play a resumed scene as they played it whole"
    assert [c.name for c in done.cast] == ["lighthouse-keeper", "harbour-master", "net-mender", "ferryman"]
    assert [s.turn for v in done.verdicts for s in v.scores] == [3, 6]
    assert done.to_json()["cast"][2] == {"character": "net-mender", "seat": "offline"}


async def test_a_fork_keeps_the_cast_and_the_jsonl_carries_it(tmp_path):
    store = Store(tmp_path / "db")
    pool = ModelPool({"offline": offline_spec()})
    sid = _start(store)
    await _run(store, pool, sid)
    fork = store.fork(sid, 2)
    await _run(store, pool, fork)
    await pool.aclose()
    parent, child = store.session(sid), store.session(fork)
    assert child.status == "finished" and child.spec.cast == parent.spec.cast and child.cast == parent.cast
    assert child.messages[:3] == parent.messages[:3] and len(child.messages) == len(parent.messages)

    out = io.StringIO()
    assert export_jsonl(store, out) == 2
    docs = parse_jsonl(out.getvalue(), "all.jsonl")
    first = next(iter(docs))
    assert [card["name"] for card in first["cast_snapshot"]][:2] == ["lighthouse-keeper", "harbour-master"]
    assert first["spec"]["cast"][0] == {"character": "lighthouse-keeper", "seat": "offline"}
    other = Store(tmp_path / "other")
    import_jsonl(other, docs, "all.jsonl")
    again = io.StringIO()
    export_jsonl(other, again)
    assert again.getvalue() == out.getvalue()
    assert other.session(1).cast == parent.cast
