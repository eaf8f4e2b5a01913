"""`pingpong judge`: score stored sessions with new judges, or retry failed judge turns.

Only the method's scoring runs: no player or interrogator call is made, and each verdict is
committed as it arrives. Exit 1 when judge turns are still failed at the end.
"""

from __future__ import annotations

import sys

from pingpong.core.errors import RunFailed, StorageError, UserError
from pingpong.core.home import Home
from pingpong.tui.commands.output import judge_failures


def judge(args, home: Home) -> int:
    import asyncio

    from pingpong.core.config import check_ready, load_models, resolve
    from pingpong.core.domain import HUMAN
    from pingpong.core.methods import get_method
    from pingpong.sessions import queries
    from pingpong.sessions.plan_checks import check_reachable
    from pingpong.sessions.store import Store

    if not args.runs and not args.sessions:
        raise UserError("judge: name the sessions to score with --run NAME or --session ID")
    if HUMAN in args.judge:
        raise UserError("--judge: a judge must be a model; people score with `pingpong sessions score`")
    models = load_models(home)
    specs = {name: resolve(models, name) for name in dict.fromkeys(args.judge)}
    for spec in specs.values():
        check_ready(spec)
    if args.concurrency < 1:
        raise UserError(f"--concurrency: must be 1 or more, got {args.concurrency}")
    store = Store(home.db_path)
    try:
        ids = list(dict.fromkeys(args.sessions))
        for sid in ids:  # an unknown id, or one these judges cannot score: one line, before any call
            stored = store.session(sid).spec
            get_method(stored.method).check_judgeable(sid, list(specs), stored.interrogator)
        passed: dict[str, int] = {}  # a run's sessions these judges do not score, by method: skipped
        refusal: UserError | None = None
        for run in args.runs:
            found = store.sessions(run=run, status="finished")
            if not found and not store.sessions(run=run):
                raise UserError(f"--run: no run named '{run}'")
            for s in found:
                try:
                    get_method(s.method).check_judgeable(s.id, list(specs), s.interrogator)
                except UserError as exc:
                    passed[s.method] = passed.get(s.method, 0) + 1
                    refusal = refusal or exc
                    continue
                if s.id not in ids:
                    ids.append(s.id)
        if refusal is not None and not ids:  # nothing these judges score: why, as for one session
            raise refusal
        if passed:
            print(f"skipped {_not_judged(passed)}", file=sys.stderr)
        asyncio.run(check_reachable(specs.values()))  # a dead endpoint: one line now, not a minute of retries
        try:
            with asyncio.Runner() as loop:
                elsewhere, asked = loop.run(_judge_all(store, models, ids, list(specs), args.concurrency))
        except StorageError as exc:  # verdicts stored so far are kept; the rest is retried next time
            raise RunFailed(f"error: {exc}; judging stopped there: run the same command again to go on") from None
        mine = [sid for sid in ids if sid not in elsewhere]
        left = queries.failed_judge_turns(store.conn, mine, list(specs))
        why = queries.failed_judges(store.conn, mine, list(specs))
    finally:
        store.close()
    failed = sum(left.values())
    skipped = f"; {len(elsewhere)} being scored by another process now, left to it" if elsewhere else ""
    done = len(mine) - len(asked)
    before = f"; {done} already had every score of {'them' if len(specs) > 1 else 'it'}" if done else ""
    print(f"judged {len(asked)} session(s) with {', '.join(specs)}{before}{skipped}", file=sys.stderr)
    if failed:
        raise RunFailed(f"{failed} judge turn(s) still failed in {len(left)} session(s) ({judge_failures(why)}); "
                        "run the same command again to retry them")
    return 0


def _not_judged(passed: dict[str, int]) -> str:
    """'3 rolebench session(s) (scored by exact rules, not by judge models)', and so on per method."""
    from pingpong.core.methods import get_method

    return "; ".join(f"{n} {method} session(s) (scored by {get_method(method).scorer}, not by judge models)"
                     for method, n in sorted(passed.items()))


async def _judge_all(store, models, ids: list[int], judges: list[str],
                     concurrency: int) -> tuple[set[int], set[int]]:
    """Judge the sessions; returns (those another process was scoring with the same judges, those a
    judge was asked about: the rest already had every score of these judges)."""
    import asyncio

    from pingpong.core.events import JudgeStarted
    from pingpong.core.llm import ModelPool
    from pingpong.sessions.live import JudgedElsewhere, judge_session

    pool = ModelPool(models)
    gate = asyncio.Semaphore(concurrency)
    elsewhere: set[int] = set()
    asked: set[int] = set()

    async def one(sid: int) -> None:
        async with gate:
            try:
                async for event in judge_session(store, pool, sid, judges):
                    if isinstance(event, JudgeStarted):
                        asked.add(sid)
            except JudgedElsewhere:
                elsewhere.add(sid)

    try:
        await asyncio.gather(*(one(sid) for sid in ids))
    finally:
        await pool.aclose()
    return elsewhere, asked
