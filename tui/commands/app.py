"""`pingpong` (the TUI) and `pingpong play` (the TUI straight into a live session).

Names are checked before the app starts, so a typo is one line and exit status 2.
"""

from __future__ import annotations

from pingpong.core.domain import HUMAN, OFFLINE, SessionSpec
from pingpong.core.errors import UserError
from pingpong.core.home import Home


def open_tui(args, home: Home) -> int:
    from pingpong.tui.app import create_app

    _check_database(home)
    create_app(home).run()
    return 0


def play(args, home: Home) -> int:
    from pingpong.characters.library import CardLibrary
    from pingpong.core.config import check_ready, load_models, resolve
    from pingpong.core.methods import get_method
    from pingpong.situations.library import SituationLibrary
    from pingpong.tui.app import NewSessionRequest, PlayRequest, create_app

    models = load_models(home)
    player = args.player or OFFLINE
    interrogator = args.interrogator or OFFLINE
    judges = list(args.judge) if args.judge else [OFFLINE]
    for name in (player, interrogator):
        if name != HUMAN:
            check_ready(resolve(models, name))  # a missing key is one line now, not a failed session later
    for name in judges:
        if name == HUMAN:
            raise UserError("--judge: a judge must be a model, not 'human'")
        check_ready(resolve(models, name))
    if args.turns is not None and not 1 <= args.turns <= 50:
        raise UserError(f"--turns: expected 1 to 50, got {args.turns}")
    get_method(args.method)
    if args.method == "pingpong-v1" and interrogator == HUMAN:
        raise UserError("--interrogator: pingpong-v1 needs a model (its tester also scores)")
    character = CardLibrary(home).get(args.character) if args.character else None
    situation = SituationLibrary(home).get(args.situation) if args.situation else None
    _check_database(home)
    if character is None or situation is None:
        defaults = {"character": character.name if character else None,  # found by any of its names
                    "situation": situation.name if situation else None, "player": player,
                    "interrogator": interrogator, "judges": judges, "turns": args.turns,
                    "method": args.method, "lang": character.lang if character else None}
        create_app(home, initial=NewSessionRequest(defaults)).run()
        return 0
    spec = SessionSpec(character=character.name, situation=situation.name, player=player,
                       interrogator=interrogator, judges=judges, num_turns=args.turns,
                       method=args.method, lang=character.lang, prompting=getattr(args, "prompting", None))
    create_app(home, initial=PlayRequest(spec, character, situation)).run()
    return 0


def _check_database(home: Home) -> None:
    """Open (and migrate) the database once, so a bad file is a one-line error, not a crash."""
    from pingpong.sessions.store import Store

    home.ensure()
    Store(home.db_path).close()
