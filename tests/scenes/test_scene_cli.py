"""Group scenes on the command line: listing and showing them, and `play` with a cast."""

from __future__ import annotations

import json

import pytest

from pingpong.core.config import load_models
from pingpong.core.domain import HUMAN
from pingpong.core.errors import UserError
from pingpong.core.home import Home
from pingpong.tui.cli import build_parser, main
from pingpong.tui.commands.app import _scene_request

SCENE = "storm-at-the-crossroads-inn"


def test_situations_list_and_show_the_group_scenes(tmp_path, capsys):
    assert main(["situations", "list", "--home", str(tmp_path), "--method", "roleinteract", "--format", "json"]) == 0
    listed = [row for row in json.loads(capsys.readouterr().out) if row["kind"] == "scene"]
    assert len(listed) == 6 and {s["lang"] for s in listed} == {"en", "ru"}
    assert all(s["method"] == "roleinteract" and s["tags"] == ["scene"] for s in listed)
    storm = next(s for s in listed if s["name"] == SCENE)
    assert storm["num_turns"] == 8 + 5 and storm["tested"] == "don-quixote" and len(storm["members"]) == 5
    assert main(["situations", "list", "--home", str(tmp_path), "--method", "roleinteract", "--lang", "ru"]) == 0
    assert "3 group scenes" in capsys.readouterr().out
    assert main(["situations", "show", SCENE, "--home", str(tmp_path), "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["name"] == SCENE and shown["source"] == "bundled" and shown["questions"][0]["answer"] == ["C"]
    assert main(["situations", "show", SCENE, "--home", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "don-quixote (positive)" in text and "count-dracula (negative)" in text


@pytest.mark.parametrize("args, problem", [
    (["--situation", SCENE, "--character", "tally"], "'tally' is not a member of scene"),
    (["--situation", SCENE, "--character", "count-dracula", "--character", "jack-calloway"],
     "tests 'don-quixote': it must be in the cast"),
    (["--situation", SCENE, "--turns", "3"], "--turns: a group scene's length comes from its file"),
    (["--situation", "casual-greeting"], "'casual-greeting' is no group scene or probe"),
    (["--situation", SCENE, "--character", "count-dracula=gpt-nope"], "unknown model 'gpt-nope'"),
    (["--situation", SCENE, "--character", "don-quixote=human", "--player", "offline"],
     "the tested member sits in the player seat"),
])
def test_play_refuses_a_bad_cast_in_one_line(tmp_path, capsys, args, problem):
    assert main(["play", "--home", str(tmp_path), "--method", "roleinteract", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pingpong: error: ") and problem in err and err.count("\n") == 1


def test_several_characters_need_a_group_scene(tmp_path, capsys):
    assert main(["play", "--home", str(tmp_path), "--character", "tally", "--character", "juniper",
                 "--situation", "casual-greeting"]) == 2
    assert "only in a group scene" in capsys.readouterr().err


def _request(tmp_path, *args: str):
    parsed = build_parser(["play"]).parse_args(["play", "--method", "roleinteract", *args])
    home = Home(tmp_path)
    return _scene_request(parsed, home, load_models(home), parsed.player or "offline",
                          parsed.interrogator or "offline", ["offline"])


def test_play_seats_the_named_members_and_a_person(tmp_path):
    request = _request(tmp_path, "--situation", SCENE, "--character", "DON-QUIXOTE", "--character",
                       "jack-calloway=human", "--character", "count-dracula", "--next-speaker", "turn")
    spec = request.spec
    assert [(c.character, c.seat) for c in spec.cast] == [
        ("don-quixote", "offline"), ("count-dracula", "offline"), ("jack-calloway", HUMAN)]
    assert spec.character == "don-quixote" and spec.method == "roleinteract" and spec.next_speaker == "turn"
    assert [card.name for card in request.cast] == ["don-quixote", "count-dracula", "jack-calloway"]
    assert request.situation.data["scene"]["name"] == SCENE and request.character.name == "don-quixote"
    whole = _request(tmp_path, "--situation", SCENE, "--player", "human")
    assert len(whole.spec.cast) == 5 and whole.spec.player == HUMAN and whole.spec.seat_of("don-quixote") == HUMAN
    shaped = _request(tmp_path, "--situation", SCENE, "--prompt-format", "overview")
    assert shaped.spec.prompt_format == "overview"  # the member under test gets the name and summary


def test_sessions_show_names_the_speakers_and_the_rule_scores(tmp_path, capsys):
    assert main(["run", "--home", str(tmp_path), "--method", "roleinteract", "--player", "offline",
                 "--interrogator", "offline", "--judge", "offline", "--situations", SCENE]) == 0
    capsys.readouterr()
    assert main(["sessions", "show", "1", "--home", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "tested Don Quixote de la Mancha" in out and "narrator (scene): " in out
    assert "Don Quixote de la Mancha (offline): [offline] My answer: " in out
    assert "roleinteract: social_preference_group = " in out and "; expected C" in out


def test_play_opens_one_roleinteract_probe_by_its_listed_name(tmp_path, capsys):
    """`play --method roleinteract --situation sherlock-holmes-mem-01` said it was no group scene: a
    probe is played by hand as a run plays it (a person can watch it, or sit as the interrogator)."""
    from pingpong.tui.commands.app import play_request

    def request(*args: str):
        parsed = build_parser(["play"]).parse_args(["play", "--home", str(tmp_path), "--method", "roleinteract",
                                                     *args])
        parsed.method = "roleinteract"
        return play_request(parsed, Home(tmp_path))

    with pytest.raises(UserError, match="--interrogator: roleinteract needs a model in the interrogator seat"):
        request("--situation", "sherlock-holmes-emotion-02", "--interrogator", "human")  # the probe writes every line
    memory = request("--situation", "sherlock-holmes-mem-01")
    assert memory.spec.character == "sherlock-holmes" and memory.spec.situation == "sherlock-holmes-mem-01"
    assert memory.character.name == "sherlock-holmes" and memory.situation.num_turns > 2  # planted, padded, asked
    choice = request("--situation", "sherlock-holmes-emotion-02", "--character", "Sherlock Holmes")
    assert choice.situation.num_turns == 1 and choice.spec.method == "roleinteract"
    for args, says in ((("--situation", "no-such-probe"), "is no group scene or probe"),
                       (("--situation", "sherlock-holmes-mem-01", "--character", "ada-lovelace"), "sherlock-holmes's")):
        assert main(["play", "--home", str(tmp_path), "--method", "roleinteract", *args]) == 2
        assert says in capsys.readouterr().err
