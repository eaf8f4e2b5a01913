"""`pingpong` (the TUI) and `pingpong play` (the TUI straight into a live session).

Names are checked before the app starts, so a typo is one line and exit status 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pingpong.core.errors import UserError
from pingpong.core.home import Home
from pingpong.core.vocabulary import HUMAN, OFFLINE

if TYPE_CHECKING:
    from pingpong.core.domain import Character, Situation
    from pingpong.tui.app import NewSessionRequest, PlayRequest


def open_tui(args, home: Home) -> int:
    from pingpong.tui.app import create_app

    _check_database(home, reading=True)  # a database it cannot write opens read-only: browse, replay
    create_app(home).run()
    return 0


def play(args, home: Home) -> int:
    from pingpong.tui.app import create_app

    create_app(home, initial=play_request(args, home)).run()
    return 0


def play_request(args, home: Home) -> PlayRequest | NewSessionRequest:
    """What `pingpong play` opens: the live session when the card and situation (for dmt, the seed) are
    known, else the new-session form prefilled with what was given. Bad names are UserErrors here."""
    from pingpong.characters.library import CardLibrary
    from pingpong.core.config import check_ready, load_models, resolve
    from pingpong.core.domain import SessionSpec
    from pingpong.core.methods import get_method
    from pingpong.core.vocabulary import MAX_TURNS, TESTER_SCORES
    from pingpong.sessions.plan_checks import seated_judges
    from pingpong.situations.library import SituationLibrary
    from pingpong.tui.app import NewSessionRequest, PlayRequest

    models = load_models(home)
    player = args.player or OFFLINE
    interrogator = args.interrogator or OFFLINE
    refusal = get_method(args.method).interrogator_refusal()
    if interrogator == HUMAN and refusal:
        raise UserError(f"--interrogator: {refusal}")
    judges = seated_judges(args.method, interrogator, args.judge or ([] if args.method in TESTER_SCORES else [OFFLINE]))
    for name in (player, interrogator):
        if name != HUMAN:
            check_ready(resolve(models, name))  # a missing key is one line now, not a failed session later
    for name in judges:
        if name == HUMAN:
            raise UserError("--judge: a judge must be a model, not 'human'")
        check_ready(resolve(models, name))
    if args.turns is not None and not 1 <= args.turns <= MAX_TURNS:
        raise UserError(f"--turns: expected 1 to {MAX_TURNS}, got {args.turns}")
    named = list(args.character or [])
    if args.method == "roleinteract" and args.situation:
        from pingpong.situations.probes import SceneLibrary

        scene = args.situation in SceneLibrary(home).names()
        request = _scene_request(args, home, models, player, interrogator, judges) if scene \
            else _probe_request(args, home, player, interrogator, judges)
        _check_database(home)
        return request
    if len(named) > 1:
        raise UserError("--character: several characters play together only in a group scene "
                        "(--method roleinteract --situation SCENE)")
    character = CardLibrary(home).get(named[0]) if named else None
    if args.method == "dmt":
        character, situation = _seed_choice(home, args.situation, character)
    elif args.method == "rolebench":
        situation = _question_choice(home, args.situation, character) if args.situation and character else None
    else:
        situation = SituationLibrary(home).get(args.situation) if args.situation else None
    _check_database(home)
    prompting, prompt_format = getattr(args, "prompting", None), getattr(args, "prompt_format", "detailed")
    if character is None or situation is None:
        return NewSessionRequest({
            "character": character.name if character else (named[0] if named else None),  # any of its names
            "situation": situation.name if situation else args.situation, "player": player,
            "interrogator": interrogator, "judges": judges, "turns": args.turns, "method": args.method,
            "lang": character.lang if character else None, "prompting": prompting, "prompt_format": prompt_format})
    refusal = get_method(args.method).interrogator_refusal(situation)
    if interrogator == HUMAN and refusal:
        raise UserError(f"--interrogator: {refusal}")
    spec = SessionSpec(character=character.name, situation=situation.name, player=player,
                       interrogator=interrogator, judges=judges, num_turns=args.turns,
                       method=args.method, lang=character.lang, prompting=prompting, prompt_format=prompt_format)
    return PlayRequest(spec, character, situation)


def _question_choice(home: Home, name: str, character: Character) -> Situation:
    """`play --method rolebench`: --situation names one of the card's RoleBench questions."""
    from pingpong.sessions.rolebench_plan import questions_for
    from pingpong.situations.questions import QuestionLibrary

    questions = questions_for(QuestionLibrary(home), character, character.lang)
    found = next((q for q in questions if q.name == name), None)
    if found is None:
        some = ", ".join(q.name for q in questions[:3]) + (", ..." if len(questions) > 3 else "")
        raise UserError(f"--situation: '{name}' is not a RoleBench question of '{character.name}' "
                        + (f"(its questions: {some}; see `pingpong situations list --method rolebench`)" if questions
                           else "(it has none: its answers need references)"))
    return found


def _seed_choice(home: Home, name: str | None, character: Character | None
                 ) -> tuple[Character | None, Situation | None]:
    """`play --method dmt`: --situation names a DMT seed; its card is the seed's unless --character says
    otherwise, which must then be the card the seed was written for."""
    from pingpong.characters.library import CardLibrary
    from pingpong.situations.seeds import SeedLibrary, seed_situation

    if not name:
        return character, None
    seed = SeedLibrary(home).get(name)
    if character is None:
        character = CardLibrary(home).get(seed.character)
    elif character.name != seed.character:
        raise UserError(f"--situation: seed '{seed.name}' is written for '{seed.character}', "
                        f"not '{character.name}'")
    return character, seed_situation(seed)


def annotate(args, home: Home) -> int:
    """The TUI on the rating queue; a queue that cannot be drawn is one line before it opens."""
    from pingpong.core.config import author
    from pingpong.sessions.annotate import open_queue
    from pingpong.sessions.store import Store
    from pingpong.tui.app import AnnotateRequest, create_app

    who = author(home, args.author)
    home.ensure()
    with Store(home.db_path) as store:
        open_queue(store, who, sample=args.sample, players=args.player, methods=args.method)
    create_app(home, initial=AnnotateRequest(args.sample, args.player, args.method, who)).run()
    return 0


def _probe_request(args, home: Home, player: str, interrogator: str, judges: list[str]) -> PlayRequest:
    """`play --method roleinteract --situation PROBE`: one memory or multiple-choice probe by the name
    `situations list --method roleinteract` gives it (`sherlock-holmes-mem-03`), built as a run builds
    it; the card is the probe set's. UserError when the name is no scene and no probe."""
    from pingpong.characters.library import CardLibrary
    from pingpong.core.domain import SessionSpec
    from pingpong.core.methods import get_method
    from pingpong.sessions.roleinteract_plan import probe_item, probe_owner
    from pingpong.situations.probes import ProbeLibrary, load_padding
    from pingpong.tui.app import PlayRequest

    probes = ProbeLibrary(home)
    owner = probe_owner(probes, args.situation)
    if owner is None:
        raise UserError(f"--situation: '{args.situation}' is no group scene or probe (see `pingpong situations "
                        "list --method roleinteract`)")
    if args.turns is not None:
        raise UserError("--turns: a probe's length comes from its file")
    card = CardLibrary(home).get(owner.character)
    if args.character and [CardLibrary(home).get(name).name for name in args.character] != [card.name]:
        raise UserError(f"--character: probe '{args.situation}' is {card.name}'s")
    item = probe_item(probes, lambda: load_padding(owner.lang, home), player, card, owner.lang, args.situation)
    refusal = get_method("roleinteract").interrogator_refusal(item.situation)
    if interrogator == HUMAN and refusal:  # the probe set writes every user line: a person would write none
        raise UserError(f"--interrogator: {refusal}")
    spec = SessionSpec(character=card.name, situation=item.situation.name, player=player, interrogator=interrogator,
                       judges=judges, method="roleinteract", lang=owner.lang,
                       prompting=getattr(args, "prompting", None), prompt_format=getattr(args, "prompt_format", "detailed"))
    return PlayRequest(spec, card, item.situation)


def _scene_request(args, home: Home, models: dict, player: str, interrogator: str, judges: list[str]):
    """`play --method roleinteract --situation SCENE [--character NAME[=SEAT]]...`: the scene's members
    (all, or those named), the tested one in the player seat, the others with their own seats or the
    default one. UserError names what is wrong."""
    from pingpong.characters.library import CardLibrary
    from pingpong.core.config import check_ready, resolve
    from pingpong.core.domain import SessionSpec
    from pingpong.core.methods.roleinteract_scene import default_member_seat, scene_cast, scene_situation
    from pingpong.situations.probes import SceneLibrary
    from pingpong.tui.app import PlayRequest

    scenes = SceneLibrary(home)
    if args.turns is not None:
        raise UserError("--turns: a group scene's length comes from its file (rounds and questions)")
    scene = scenes.get(args.situation)
    cards = CardLibrary(home)
    members: list[str] = []
    seats: dict[str, str] = {}
    for item in args.character or []:
        name, _, seat = item.partition("=")
        card = cards.get(name.strip())
        members.append(card.name)
        if seat.strip():
            seats[card.name] = seat.strip()
    if scene.tested in seats:
        seat = seats.pop(scene.tested)
        if args.player and args.player != seat:
            raise UserError(f"--character {scene.tested}={seat}: the tested member sits in the player seat, "
                            f"and --player says {args.player}")
        player = seat
    for seat in {player, *seats.values()} - {HUMAN}:
        check_ready(resolve(models, seat))
    try:
        cast = scene_cast(scene, members or None, player=player,
                          others=default_member_seat(player, interrogator), seats=seats)
    except ValueError as exc:
        raise UserError(f"--character: {exc}") from None
    spec = SessionSpec(character=scene.tested, situation=scene.name, player=player, interrogator=interrogator,
                       judges=judges, method="roleinteract", lang=scene.lang, cast=cast,
                       next_speaker=args.next_speaker, prompting=getattr(args, "prompting", None),
                       prompt_format=getattr(args, "prompt_format", "detailed"))
    member_cards = tuple(cards.get(c.character) for c in cast)
    tested = next(card for card in member_cards if card.name == scene.tested)
    return PlayRequest(spec, tested, scene_situation(scene), member_cards)


def _check_database(home: Home, *, reading: bool = False) -> None:
    """Open (and migrate) the database once, so a bad file is a one-line error, not a crash.
    reading: the app may open a database it cannot write, read-only (play, which writes, may not)."""
    from pingpong.sessions.store import Store

    home.ensure()
    Store(home.db_path, reading=reading).close()
