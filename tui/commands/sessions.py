"""`pingpong sessions list|show|score|resume`: stored sessions from the command line."""

from __future__ import annotations

from pingpong.core.errors import RunFailed, StorageError, UserError
from pingpong.core.home import Home
from pingpong.tui.commands.output import command_line, print_json, safe
from pingpong.tui.commands.output import console as _console


def _store(home: Home, *, reading: bool = False):
    """reading: the command only reads, so a read-only database still serves it."""
    from pingpong.sessions.store import Store

    return Store(home.db_path, reading=reading)


def _fmt_num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _mark_orphans(store) -> None:
    """Sessions of dead processes become interrupted before they are shown; when the database cannot
    take that write (a full disk), they are shown as stored: reading must not need a write."""
    try:
        store.mark_orphans_interrupted()
    except StorageError:
        pass


def list_sessions(args, home: Home) -> int:
    """Sessions, newest first; orphans of dead processes are marked interrupted first."""
    store = _store(home, reading=True)
    try:
        _mark_orphans(store)
        rows = store.sessions(status=args.status, run=args.run_name, limit=args.limit, newest_first=True)
        if not rows and args.run_name is not None and not store.sessions(run=args.run_name, limit=1):
            raise UserError(f"--run: no run named '{args.run_name}'")  # as the other commands say it
    finally:
        store.close()
    if args.format == "json":
        print_json([r.to_json() for r in rows])
        return 0
    from pingpong.sessions.seats import interrogator_words, judges_words
    from pingpong.tui.commands.table import Column, print_table

    columns = [
        Column("id", 10, number=True), Column("status", 9, least=8), Column("method", 5), Column("run", 2),
        Column("character", 8),
        Column("situation", 7), Column("player", 8), Column("interrogator", 6, short="seat"),
        Column("judges", 3), Column("turns", 6, number=True), Column("people", 2, number=True, short="ppl"),
        Column("final", 9, number=True), Column("created", 4, number=True),
    ]
    body = [[str(r.id), r.status, r.method, r.run or "", r.character, r.situation, r.player,
             interrogator_words(r.method, r.interrogator_seat),
             judges_words(r.method, r.judges), f"{r.turns}/{r.num_turns or '?'}", str(r.human_turns or ""),
             r.final_text or _fmt_num(r.final), (r.created_at or "")[:16].replace("T", " ")] for r in rows]
    filtered = args.status or args.run_name
    print_table(columns, body, args.format, title=f"sessions in {home.db_path}",
                empty="no sessions match" if filtered else "no sessions yet")
    return 0


def show_session(args, home: Home) -> int:
    store = _store(home, reading=True)
    try:
        _mark_orphans(store)
        session = store.session(args.id)
    finally:
        store.close()
    if args.format == "json":
        print_json(session.to_json())
        return 0
    _print_session(session)
    return 0


def _label(value: float, scale: str, metric: str) -> str | None:
    """A refusal flag as yes/no and a DMT label as good/bad; None for a number."""
    if metric == "is_refusal":
        return "yes" if value else "no"
    if scale == "good-bad":
        return "good" if value else "bad"
    return None


def _score_text(score) -> str:
    """One score as `sessions show` prints it: good/bad for a label, the number otherwise, or why it failed."""
    if score.status == "failed":
        return f"[red]failed: {safe(score.error or '')}[/]"
    return _label(score.value, score.scale, score.metric) or _fmt_num(score.value, 3)


def _print_session(session) -> None:
    from rich.table import Table

    from pingpong.sessions.replay import conversation_people, steps_of
    from pingpong.sessions.scoring import LIKERT_METHODS
    from pingpong.sessions.seats import interrogator_words, judges_words

    console = _console()
    spec = session.spec
    console.print(
        f"[bold]session {session.id}[/] [dim]({session.status}"
        f"{', run ' + safe(session.run) if session.run else ''})[/]\n"
        f"character [bold]{safe(session.character.char_name)}[/] ({safe(session.character.name)}), "
        f"situation {safe(session.situation.name)}: {safe(session.situation.text)}\n"
        f"player {safe(session.seat_detail('player'))}, "
        f"interrogator {safe(interrogator_words(spec.method, session.seat_detail()))}, "
        f"judges {safe(judges_words(spec.method, spec.judges))}, "
        f"turns {session.turns_done}/{session.num_turns}, final {session.final.text() or '-'}"
    )
    names = {card.name: card.char_name for card in session.cast}
    if names:
        console.print("cast " + ", ".join(f"{safe(names.get(c.character, c.character))} ({spec.seat_of(c.character)})"
                                          for c in spec.cast) + f"; tested {safe(names.get(spec.character, ''))}")
    if session.error:
        console.print(f"[red]error:[/] {safe(session.error)}")
    for step in steps_of(session):
        console.rule(f"turn {step.turn}")
        for msg in (step.user, step.assistant):
            if msg is not None and names:  # a group scene: who speaks, then who wrote it
                speaker = names.get(msg.speaker or "", msg.speaker or "")
                console.print(f"[bold]{safe(speaker)}[/] [dim]({safe(msg.author)})[/]: {safe(msg.text)}")
            elif msg is not None:
                colour = "cyan" if msg.role == "user" else "magenta"
                cut = f" [bold yellow]({safe(msg.ending)})[/]" if msg.ending else ""
                console.print(f"[{colour}]{safe(msg.author)}[/] [dim]({msg.role})[/]{cut}: {safe(msg.text)}")
        likert = step.judges if spec.method in LIKERT_METHODS else {}
        for judge, s in step.judges.items():  # labels (dmt) and rule scores (rolebench, roleinteract): value and why
            if judge not in likert:
                for metric, one in s.scores.items():
                    why = f" - {safe(one.explanation)}" if one.explanation else ""
                    console.print(f"  {safe(judge)}: {metric} = {_score_text(one)}{why}")
        if likert:
            table = Table(box=None, pad_edge=False)
            for col in ("judge", "refusal", "in_character", "entertaining", "fluency", "overall"):
                table.add_column(col)
            for judge, s in likert.items():
                if s.status == "failed":
                    table.add_row(safe(judge), f"[red]failed: {safe(s.error or '')}[/]", "", "", "", "")
                    continue
                table.add_row(safe(judge), "-" if s.is_refusal is None else ("yes" if s.is_refusal else "no"),
                              *(_fmt_num(s.value(m), 1) for m in ("in_character", "entertaining", "fluency")),
                              _fmt_num(s.overall, 1))
            console.print(table)
        _print_people(console, step.people)
    whole = conversation_people(session)
    if whole:
        console.rule("whole conversation")
        _print_people(console, whole)


def _print_people(console, people) -> None:
    for p in people:
        s = p.score
        value = _label(s.value, s.scale, s.metric) or f"{s.value:g}"
        mark = "[bold green]current[/]" if p.current else "[dim]superseded[/]"
        reason = f" - {safe(s.reason)}" if s.reason else ""
        console.print(f"  person {safe(s.author)}: {s.metric} = {value} {mark}"
                      f" [dim]{(s.created_at or '')[:19]}[/]{reason}")


def score(args, home: Home) -> int:
    """Append a person's score for one player turn (or, without --turn, the whole conversation);
    earlier scores stay, the newest counts."""
    if getattr(args, "versus", None) is not None:
        return _prefer(args, home)
    if args.refusal is not None and (args.metric or args.value is not None):
        raise UserError("--refusal: give either --refusal or --metric with --value, not both")
    if args.refusal is None:
        if not args.metric:
            raise UserError("--metric: required (with --value), or give --refusal true|false")
        if args.value is None:
            raise UserError(f"--value: required with --metric {args.metric}")
        metric, value = args.metric, args.value
    else:
        metric, value = "is_refusal", args.refusal == "true"
    from pingpong.core.config import author as config_author

    author = config_author(home, args.author)
    store = _store(home)
    try:
        score_id = store.add_human_score(args.id, args.turn, metric, value, author, args.reason)
        stored = next(s for s in store.human_scores(args.id) if s.id == score_id)
    finally:
        store.close()
    shown = _label(stored.value, stored.scale, metric) or f"{stored.value:g}"  # what was stored, as `show` prints it
    where = f"turn {args.turn}" if args.turn is not None else "whole conversation"
    print(f"session {args.id} {where}: {metric} = {shown} by {author} (score #{score_id})")
    return 0


def _prefer(args, home: Home) -> int:
    """A person's pairwise preference between two sessions (it overrides the judges' for that pair)."""
    from pingpong.core.config import author as config_author
    from pingpong.core.domain import PAIRWISE

    if args.turn is not None or args.refusal is not None:
        raise UserError("--versus: a preference is for whole sessions; leave out --turn and --refusal")
    if args.metric not in (None, PAIRWISE):
        raise UserError(f"--metric: with --versus the metric is {PAIRWISE}, got {args.metric!r}")
    if args.value is None:
        raise UserError(f"--value: required with --versus: 1 (session {args.id} better), "
                        f"0 (session {args.versus} better) or 0.5 (as good)")
    author = config_author(home, args.author)
    store = _store(home)
    try:
        score_id = store.add_pair_preference(args.id, args.versus, args.value, author, args.reason)
    finally:
        store.close()
    print(f"session {args.id} vs session {args.versus}: {PAIRWISE} = {args.value} by {author} (score #{score_id})")
    return 0


def fork(args, home: Home) -> int:
    """Copy the first N turns into a new session, then run it on (as `sessions resume` does)."""
    from pingpong.core.config import check_ready, load_models, resolve
    from pingpong.core.domain import HUMAN

    models = load_models(home)
    if args.player == HUMAN:
        raise UserError("--player: a fork runs on without a terminal seat; use a model")
    store = _store(home)
    try:
        source = store.session(args.id)
        if args.interrogator == HUMAN:
            from pingpong.core.methods import get_method

            refusal = get_method(source.spec.method).interrogator_refusal(source.situation)
            if refusal:
                raise UserError(f"--interrogator: {refusal}")
        # every model the fork will call, the ones it inherits too: one line now, before it is written
        seats = (args.player or source.seat("player"), args.interrogator or source.seat("interrogator"),
                 *source.spec.judges)
        for name in dict.fromkeys(seats):
            if name != HUMAN:
                check_ready(resolve(models, name))
        new = store.fork(args.id, args.turn, player=args.player, interrogator=args.interrogator)
    finally:
        store.close()
    print(f"session {new}: forked from session {args.id} at turn {args.turn}")
    if args.interrogator == HUMAN:
        if _in_terminal():
            return _open_resumed(new, home)
        print(f"take the interrogator seat in a terminal: {command_line(args, 'sessions', 'resume', str(new))}")
        return 0
    args.id = new
    return resume(args, home)


def resume(args, home: Home) -> int:
    """Continue an interrupted (or failed) session from its last completed message."""
    import asyncio

    from pingpong.core.domain import HUMAN
    from pingpong.core.events import MessageCompleted, SessionFailed, SessionFinished, VerdictReady

    store = _store(home)
    try:
        store.mark_orphans_interrupted()
        session = store.session(args.id)
        if session.status == "finished":
            raise UserError(f"session {args.id}: already finished")
        if session.status == "running":
            raise UserError(f"session {args.id}: running in another process (pid {session.pid})")
        spec = session.spec
        seats = [session.seat("player"), session.seat("interrogator")]
        if session.turns_done < session.num_turns and HUMAN in seats:
            return _resume_in_tui(args, home)
        from pingpong.core.config import check_ready, load_models, resolve

        models = load_models(home)
        names = dict.fromkeys([*seats, *spec.judges])
        specs = {name: resolve(models, name) for name in names if name != HUMAN}
        for model in specs.values():
            check_ready(model)
        from pingpong.core.llm import ModelPool

        console = _console()
        outcome: dict[str, str | None] = {"status": None, "error": None}
        from pingpong.sessions.scoring import LIKERT_METHODS

        likert = spec.method in LIKERT_METHODS

        async def main() -> None:
            pool = ModelPool(models)
            try:
                from pingpong.sessions.live import run_session

                async for event in run_session(store, pool, args.id):
                    if isinstance(event, MessageCompleted):
                        m = event.message
                        colour = "cyan" if m.role == "user" else "magenta"
                        console.print(f"[dim]{m.turn}[/] [{colour}]{safe(m.author)}[/]: {safe(m.text)}")
                    elif isinstance(event, VerdictReady):
                        v = event.verdict
                        parts = []
                        for s in v.turns:
                            if s.status == "failed":
                                parts.append(f"{s.turn}: failed")
                            elif s.overall is not None:
                                parts.append(f"{s.turn}: {s.overall:g}")
                            elif likert:
                                parts.append(f"{s.turn}: " + "/".join("-" if x is None else f"{x:g}" for x in
                                                                      (s.in_character, s.entertaining, s.fluency))
                                             + (" refusal" if s.is_refusal else ""))
                            elif all(one.scale == "good-bad" for one in s.scores.values()):  # dmt's labels
                                bad = [m for m, one in s.scores.items() if not one.value]
                                parts.append(f"{s.turn}: " + (f"bad {' '.join(bad)}" if bad else "all good"))
                            else:  # rule scores
                                parts.append(f"{s.turn}: " + " ".join(
                                    f"{m} {_score_text(one)}" for m, one in s.scores.items()))
                        console.print(f"[green]judge {safe(v.judge)}[/] " + ", ".join(parts))
                    elif isinstance(event, SessionFinished):
                        outcome["status"] = "finished"
                    elif isinstance(event, SessionFailed):
                        outcome["status"], outcome["error"] = "failed", event.error
            finally:
                await pool.aclose()

        try:
            asyncio.run(main())
        except StorageError as exc:  # what was stored so far is kept; resuming goes on from there
            raise RunFailed(f"error: {exc}; the session stopped there: run `pingpong sessions resume "
                            f"{args.id}` to go on") from None
    finally:
        store.close()
    if outcome["status"] == "finished":
        console.print(f"session {args.id}: finished")
        return 0
    if outcome["status"] == "failed":
        raise RunFailed(f"session {args.id} failed: {outcome['error']}")
    raise RunFailed(f"session {args.id}: stopped before the end (interrupted)")


def _in_terminal() -> bool:
    import sys

    return sys.stdin.isatty() and sys.stdout.isatty()


def _resume_in_tui(args, home: Home) -> int:
    """A session with a person's seat goes on in the TUI, where that person types: opened on it in a
    terminal; from a script, one line saying how."""
    if not _in_terminal():
        again = command_line(args, "sessions", "resume", str(args.id))
        raise UserError(f"session {args.id}: a person sits in one of its seats; run `{again}` in a terminal "
                        f"(it opens the TUI there), or press r on it in `{command_line(args)}`")
    return _open_resumed(args.id, home)


def _open_resumed(session_id: int, home: Home) -> int:
    from pingpong.tui.app import ResumeRequest, create_app

    create_app(home, initial=ResumeRequest(session_id)).run()
    return 0
