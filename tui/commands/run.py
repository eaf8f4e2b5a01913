"""`pingpong run`: the batch benchmark from the command line, with progress and a summary.

Order matters: every local check (models, keys, cards, situations, database)
first, then one GET per endpoint, and only then the first model request.
"""

from __future__ import annotations

import sys

from pingpong.tui.commands.output import warn


def run(args, home) -> int:
    import asyncio

    from rich.console import Console

    from pingpong.core.errors import RunFailed, StorageError
    from pingpong.sessions.runner import BatchRunner, loop_factory, prepare_run

    setup, specs = prepare_run(
        home, players=args.player, interrogator=args.interrogator, judges=args.judge,
        lang=args.lang, characters=args.characters, situations=args.situations,
        every=args.every, run_name=args.run_name, method=args.method,
        prompting=getattr(args, "prompting", None))
    warn(list(setup.warnings))
    from pingpong.sessions.store import Store

    home.ensure()
    store = Store(home.db_path)
    try:
        from pingpong.core.prompts import PromptRenderer

        runner = BatchRunner(store, None, setup, concurrency=args.concurrency,
                             renderer=PromptRenderer(home.templates_dir))
        console = Console()
        stopped: StorageError | None = None
        try:
            with asyncio.Runner(loop_factory=loop_factory()) as loop:
                interrupted = loop.run(_main(runner, specs, console))
            failed_judging = runner.failed_judge_turns()
        except StorageError as exc:
            stopped = exc
    finally:
        store.close()
    from pingpong.tui.progress import summary

    progress = runner.progress
    console.print(summary(progress))
    for error in progress.errors:
        print(f"failed: {error}", file=sys.stderr)
    if stopped is not None:
        raise RunFailed(f"error: {stopped}; the run stopped there: run the same command again to go on "
                        f"with run '{setup.name}'")
    if interrupted:
        print(f"pingpong: interrupted; {progress.interrupted_sessions} conversation(s) in flight "
              f"were saved as interrupted; run the same command again to resume run "
              f"'{setup.name}'", file=sys.stderr)
        return 130
    if progress.failed:
        raise RunFailed(f"{progress.failed} of {progress.total} conversations failed in run "
                        f"'{setup.name}'; run the same command again to retry them")
    if failed_judging:
        raise RunFailed(f"{failed_judging} judge turn(s) failed in run '{setup.name}'; run the same command "
                        f"again (or `pingpong judge --run {setup.name} --judge ...`) to retry them")
    return 0


async def _main(runner, specs, console) -> bool:
    """Check endpoints, run with progress; True when Ctrl-C stopped the run."""
    import asyncio

    from pingpong.core.llm import ModelPool
    from pingpong.sessions.plan_checks import check_reachable
    from pingpong.tui.progress import show_progress

    await check_reachable(specs.values())
    runner.pool = ModelPool(specs)
    try:
        runner.prepare()
        async with show_progress(runner.progress, runner.setup.name, console):
            try:
                await runner.run()
            except asyncio.CancelledError:
                asyncio.current_task().uncancel()
                return True
        return False
    finally:
        await runner.pool.aclose()
