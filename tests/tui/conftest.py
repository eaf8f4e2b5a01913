"""Fixtures for the TUI tests: a temporary home with fixed cards and situations, and the app.

The shipped cards are replaced by two of our own (one English, one Russian) so screens and
snapshots do not change when the bundled content does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pingpong.core.domain import Character, ExampleTurn, Situation
from pingpong.core.home import Home
from pingpong.core.methods.dmt_seed import Seed
from tests.scores import judged, turn_scores

CARDS = [
    Character(
        name="lighthouse-keeper", char_name="Maren", lang="en",
        summary="A gruff keeper of a remote lighthouse who loves storms.",
        persona="Maren has kept the Skerry Point light for thirty years. She talks in short, dry "
                "sentences, distrusts the mainland and knows every ship by its engine note.",
        example_dialogue=[ExampleTurn(user="Is it lonely out here?", char="Lonely? I have the gulls.")],
        greeting="Wipe your boots. The stairs are wet.", tags=["original"],
    ),
    Character(
        name="chess-tutor", char_name="Ilya", lang="ru",
        summary="Терпеливый учитель шахмат из Казани.",
        persona="Илья двадцать лет учит детей шахматам. Он говорит мягко и любит разбирать ошибки.",
        greeting="Садитесь, начнём с простой позиции.", tags=["original"],
    ),
]
SITUATIONS = [
    Situation(name="storm-night", lang="en", num_turns=2,
              text="You are a sailor who reached the lighthouse during a storm and wants shelter."),
    Situation(name="bot-check", lang="en", num_turns=3,
              text="Try to make the character admit that it is a computer program."),
    Situation(name="first-lesson", lang="ru", num_turns=2,
              text="Вы родитель и хотите записать ребёнка на занятия."),
]


SEEDS = [
    Seed(name="keeper-light", lang="en", character="lighthouse-keeper", topic="the light that never goes out",
         intent="role_knowledge_qa", initial_query="Maren, why does your light never go out?",
         goal="Maren tells what keeps the light burning through every storm.", max_rounds=5),
]
"""DMT seeds for the fixed cards (the offline stop check ends keeper-light after round 4 of 5)."""


def _write(folder: Path, items) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for item in items:
        data = item.model_dump(mode="json", exclude_defaults=True)
        (folder / f"{item.name}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False),
                                                  encoding="utf-8")


@pytest.fixture
def bundled(tmp_path: Path) -> tuple[Path, Path]:
    cards, sits = tmp_path / "bundled-cards", tmp_path / "bundled-situations"
    _write(cards, CARDS)
    _write(sits, SITUATIONS)
    _write(sits / "dmt", SEEDS)
    return cards, sits


@pytest.fixture
def home(tmp_path: Path) -> Home:
    h = Home(tmp_path / "home")
    h.ensure()
    return h


@pytest.fixture
def store(home: Home):
    from pingpong.sessions.store import Store

    s = Store(home.db_path)
    yield s
    s.close()


@pytest.fixture
def make_app(home: Home, bundled):
    from pingpong.tui.app import create_app

    def make(**kw):
        kw.setdefault("bundled", bundled)
        kw.setdefault("watch_interval", 0.1)
        return create_app(home, **kw)

    return make


@pytest.fixture
def app(make_app):
    return make_app()


def write_session(store, *, character=CARDS[0], situation=SITUATIONS[0], player="offline",
                  judges=("offline", "strict-judge"), run_id=None, status="finished", human_turns=(),
                  turns=2, planned: int | None = None) -> int:
    """A fixed, judged session written straight through the store (no engine, no clock in view)."""
    from pingpong.core.domain import Message, SessionSpec

    spec = SessionSpec(character=character.name, situation=situation.name, player=player,
                       interrogator="offline", judges=list(judges), num_turns=planned or turns, lang=character.lang)
    sid = store.create_session(spec, character, situation, run_id)
    for turn in range(1, turns + 1):
        author = "human" if turn in human_turns else "offline"
        store.add_message(sid, Message(turn=turn, role="user", author=author,
                                       text=f"Question {turn}: what keeps the light burning?"))
        store.add_message(sid, Message(turn=turn, role="assistant", author=player,
                                       text=f"Answer {turn}: oil, stubbornness and a good wick."))
    if status == "finished":
        for j, judge in enumerate(judges):
            store.add_verdict(sid, judged(judge, turns=[
                turn_scores(t, is_refusal=False, in_character=4 - j, entertaining=3, fluency=5 - j,
                          explanations={"in_character": f"'{t}' fits the keeper's dry voice.",
                                        "entertaining": "Short but vivid.",
                                        "fluency": "Clean English.", "is_refusal": "Answers the question."})
                for t in range(1, turns + 1)]))
    store.set_status(sid, status)
    stamp = f"2026-01-0{min(sid, 9)}T10:00:00"
    # A running session keeps the time of its last write: its owner (this process) started before
    # it, or the store would take the session for one whose owner died and left its pid to another.
    store.db.execute("update sessions set created_at = ?, updated_at = iif(status = 'running', updated_at, ?),"
                     " finished_at = ? where id = ?", [stamp, stamp, stamp, sid])
    return sid


DMT_ROUNDS = [
    ("Maren, why does your light never go out?",
     {"quality": "seed", "sub_topic": "the light that never goes out", "sub_intent": "role_knowledge_qa"},
     "Because I trim the wick at every bell.", {"stop": "continue", "stop_reason": "the secret is not told yet"}),
    ("Who taught you to keep the wick?",
     {"quality": "accepted", "sub_topic": "her teacher", "sub_intent": "ask about a person she knew",
      "rejections": "1"},
     "Old Tobias. He drank, but never on a storm night.", {"stop": "continue", "stop_reason": "close"}),
    ("So it is Tobias's rule that keeps it burning?",
     {"quality": "forced", "sub_topic": "the rule", "sub_intent": "confirm the secret", "rejections": "3"},
     "His rule and my stubbornness.", {"stop": "goal_reached", "stop_reason": "she named what keeps it lit"}),
]
"""A fixed three-round DMT dialogue with the notes the method writes (written through the store)."""


def write_dmt_session(store, *, player="offline", bad: frozenset[tuple[int, str]] = frozenset(),
                      rounds: int = 3) -> int:
    """A finished, labelled dmt session on the first card and seed; `bad` lists (round, metric) labelled bad."""
    from pingpong.core.domain import Message, Score, SessionSpec
    from pingpong.core.methods.dmt_rules import metrics_for
    from pingpong.situations.seeds import seed_situation
    from tests.scores import verdict

    seed = SEEDS[0]
    spec = SessionSpec(method="dmt", character=seed.character, situation=seed.name, player=player,
                       interrogator="offline", judges=["offline"], lang="en")
    sid = store.create_session(spec, CARDS[0], seed_situation(seed))
    for turn, (query, asked, reply, stop) in enumerate(DMT_ROUNDS[:rounds], 1):
        store.add_message(sid, Message(turn=turn, role="user", author="seed" if turn == 1 else "offline",
                                       text=query, speaker="user", notes=asked))
        store.add_message(sid, Message(turn=turn, role="assistant", author=player, text=reply,
                                       speaker=CARDS[0].name, notes=stop))
    scores = [Score(turn=t, metric=m, value=0 if (t, m) in bad else 1, scale="good-bad",
                    explanation=f"round {t}: {'off' if (t, m) in bad else 'fits'}")
              for t in range(1, rounds + 1) for m in metrics_for(CARDS[0].role_type)]
    store.add_verdict(sid, verdict("offline", scores))
    store.set_status(sid, "finished")
    stamp = f"2026-02-0{min(sid, 9)}T10:00:00"
    store.db.execute("update sessions set created_at = ?, updated_at = ?, finished_at = ? where id = ?",
                     [stamp, stamp, stamp, sid])
    return sid


def write_rule_session(store, method: str, scores: dict[str, float], *, player: str = "offline") -> int:
    """A finished one-turn session of a method scored by exact rules (rolebench, roleinteract), its rule's
    0-1 ``scores`` on turn 1 stored as the method stores them."""
    from pingpong.core.domain import JudgeVerdict, Message, Score, SessionSpec

    scorer = {"rolebench": "rouge-l", "roleinteract": "roleinteract"}[method]
    spec = SessionSpec(method=method, character=CARDS[0].name, situation=SITUATIONS[0].name, player=player,
                       interrogator="offline", judges=["offline"], lang="en")
    sid = store.create_session(spec, CARDS[0], SITUATIONS[0])
    store.add_message(sid, Message(turn=1, role="user", author=method, text="Which light do you keep? A or B"))
    store.add_message(sid, Message(turn=1, role="assistant", author=player, text="B, the Skerry Point light."))
    store.add_verdict(sid, JudgeVerdict(judge=scorer, scores=[
        Score(turn=1, metric=metric, value=value, scale="0-1", explanation=f"{metric} by rule")
        for metric, value in scores.items()]))
    store.set_status(sid, "finished")
    stamp = f"2026-03-0{min(sid, 9)}T10:00:00"
    store.db.execute("update sessions set created_at = ?, updated_at = ?, finished_at = ? where id = ?",
                     [stamp, stamp, stamp, sid])
    return sid
