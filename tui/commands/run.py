"""`pingpong run`: the batch benchmark from the command line, with progress and a summary.

Order matters: every local check (models, keys, cards, situations, database)
first, then one GET per endpoint, and only then the first model request.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pingpong.core.domain import ModelSpec
    from pingpong.sessions.runner import RunProgress, RunSetup
    from pingpong.sessions.workers import WorkerGroup

from pingpong.tui.commands.output import command_line, judge_failures, one_line, warn


def run(args, home) -> int:
    from pingpong.core.errors import UserError

    workers = getattr(args, "workers", 1)
    if workers < 1:
        raise UserError(f"--workers: must be 1 or more, got {workers}")
    if workers > 1:
        from pingpong.sessions.workers import start_fork_server

        start_fork_server()   # first: it imports what the workers need while this process checks the input
    from pingpong.sessions.runner import prepare_run

    setup, specs = prepare_run(
        home, players=args.player, interrogator=args.interrogator, judges=args.judge,
        lang=args.lang, characters=args.characters, situations=args.situations,
        every=args.every, run_name=args.run_name, method=args.method,
        prompting=getattr(args, "prompting", None), prompt_format=getattr(args, "prompt_format", "detailed"))
    warn(list(setup.warnings))
    workers = min(workers, len(setup.items))  # a worker without a conversation would only start and wait
    if workers <= 1:
        return _run(args, home, setup, specs, None)
    from pingpong.sessions.workers import WorkerGroup

    group = WorkerGroup(workers)
    group.start()   # forked once the fork server has imported, while this process prepares the plan
    try:
        return _run(args, home, setup, specs, group)
    finally:
        group.stop()   # an error here must not leave workers running on


def _run(args, home, setup: RunSetup, specs: dict[str, ModelSpec], group: WorkerGroup | None) -> int:
    import asyncio

    from rich.console import Console

    from pingpong.core.config import prices
    from pingpong.core.errors import RunFailed, StorageError
    from pingpong.sessions.runner import BatchRunner, loop_factory
    from pingpong.sessions.store import Store

    price_of = prices(specs)
    home.ensure()
    store = Store(home.db_path)
    spend = None
    try:
        from pingpong.core.prompts import PromptRenderer

        runner = BatchRunner(store, None, setup, concurrency=args.concurrency,
                             renderer=PromptRenderer(home.templates_dir), freeze=True)
        console = Console()
        stopped: StorageError | None = None
        progress, interrupted, failed_judging = runner.progress, False, {}
        try:
            with asyncio.Runner(loop_factory=loop_factory()) as loop:
                try:
                    interrupted, progress = loop.run(_main(runner, specs, console, group, home))
                except asyncio.CancelledError:  # SIGTERM before the run began: as an early Ctrl-C
                    raise KeyboardInterrupt from None
            failed_judging = runner.failed_judges()
            if price_of:
                from pingpong.sessions.costs import run_spend

                spend = run_spend(store.conn, setup.name, price_of)
        except StorageError as exc:
            stopped = exc
    finally:
        store.close()
    from pingpong.tui.progress import summary

    console.print(summary(progress))
    if spend is not None:
        from pingpong.tui.progress import costs_table

        console.print(costs_table(spend))
    for error in progress.errors:
        print(f"failed: {one_line(error)}", file=sys.stderr)
    if stopped is not None:
        raise RunFailed(f"error: {stopped}; the run stopped there: run the same command again to go on "
                        f"with run '{setup.name}'")
    if group is not None and group.failures:
        ended = "; ".join(f"worker {n}: {why}" for n, why in sorted(group.failures.items()))
        if progress.done < progress.total and not interrupted:
            raise RunFailed(f"error: {ended}; the run stopped there: run the same command again to go on "
                            f"with run '{setup.name}'")
        warn([ended])
    if interrupted:
        print(f"pingpong: interrupted; {progress.interrupted_sessions} conversation(s) in flight "
              f"were saved as interrupted; run the same command again to resume run "
              f"'{setup.name}'", file=sys.stderr)
        return 130
    if progress.failed:
        raise RunFailed(f"{progress.failed} of {progress.total} conversations failed in run "
                        f"'{setup.name}'; run the same command again to retry them")
    if failed_judging:
        total = sum(n for n, _ in failed_judging.values())
        retry = command_line(args, "judge", "--run", setup.name, *(w for j in failed_judging for w in ("--judge", j)))
        raise RunFailed(f"{total} judge turn(s) failed in run '{setup.name}' ({judge_failures(failed_judging)});"
                        f" run the same command again (or `{retry}`) to retry them")
    return 0


async def _main(runner, specs, console, group: WorkerGroup | None, home) -> tuple[bool, "RunProgress"]:
    """Check endpoints, run with progress (here, or in the group's processes while this one shows
    their progress); (Ctrl-C stopped it, progress)."""
    import asyncio
    import signal

    from pingpong.sessions.plan_checks import check_reachable
    from pingpong.tui.progress import show_progress

    # SIGTERM (kill, systemd, `timeout`) stops a run as Ctrl-C does: the conversations in flight saved
    # as interrupted and the workers stopped, also where a script's background job ignores SIGINT.
    task = asyncio.current_task()
    assert task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    await check_reachable(specs.values())
    runner.prepare()
    if group is None:
        from pingpong.core.llm import ModelPool

        runner.pool = ModelPool(specs)
        try:
            async with show_progress(runner.progress, runner.setup.name, console):
                return await _run_here(runner), runner.progress
        finally:
            await runner.pool.aclose()
    import time

    from pingpong.sessions.workers import WorkerJob, merged_view

    view, refresh = merged_view(runner.progress, group)
    runner.progress.started = time.monotonic()
    group.begin(WorkerJob(home.db_path, home.templates_dir, runner.setup, specs, runner.concurrency))
    async with show_progress(view, runner.setup.name, console, refresh=refresh):
        interrupted = await _wait_for(group)
    return interrupted, refresh()


async def _wait_for(group: WorkerGroup) -> bool:
    """Until the workers have ended; True when Ctrl-C stopped them."""
    import asyncio

    try:
        await group.wait()
    except asyncio.CancelledError:   # Ctrl-C: the workers interrupt their conversations and end
        _uncancel()
        group.stop()
        await group.wait()
        return True
    return False


def _uncancel() -> None:
    """Ctrl-C was handled here: the task goes on (it waits for the workers, then reports)."""
    import asyncio

    task = asyncio.current_task()
    assert task is not None
    task.uncancel()


async def _run_here(runner) -> bool:
    """This process's share of the run; True when Ctrl-C stopped it."""
    import asyncio

    try:
        await runner.run()
    except asyncio.CancelledError:
        _uncancel()
        return True
    return False
