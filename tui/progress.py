"""Progress of a batch run on a terminal: live bars on a TTY, plain lines elsewhere.

The view only reads sessions.runner.RunProgress counters on a timer; the runner
never waits for the screen, so drawing costs nothing per request.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping

from rich.console import Console, Group
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from pingpong.sessions.costs import PlayerSpend, total
from pingpong.sessions.runner import RunProgress


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"


def amount(n: int) -> str:
    for unit, size in (("M", 1_000_000), ("k", 1_000)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def status_line(p: RunProgress) -> str:
    """One line of totals: what a log file or CI output gets instead of bars."""
    extra = f", {p.elsewhere} run elsewhere" if p.elsewhere else ""
    gave_up = f", {p.failed_requests} gave up" if p.failed_requests else ""
    return (f"{p.done}/{p.total} done, {p.in_flight} in flight, {p.failed} failed{extra}"
            f" | requests {p.requests}, tokens {amount(p.tokens)}, retries {p.retries}{gave_up}"
            f" | elapsed {duration(p.elapsed)}, left ~{duration(p.eta)}")


def bars(p: RunProgress, title: str) -> Group:
    """One bar per player, then the totals line."""
    table = Table.grid(padding=(0, 1))
    for _ in range(6):
        table.add_column()
    for player, c in p.players.items():
        table.add_row(
            Text(player, style="bold"),
            ProgressBar(total=max(c.total, 1), completed=c.done, width=30),
            f"{c.done}/{c.total}",
            f"{c.in_flight} in flight",
            Text(f"{c.failed} failed", style="red" if c.failed else "dim"),
            Text(f"{c.elsewhere} elsewhere", style="yellow") if c.elsewhere else "",
        )
    return Group(Text(f"run {title}", style="bold cyan"), table, Text(status_line(p), style="dim"))


def summary(p: RunProgress) -> Table:
    """The closing table: per player done, failed, tokens, mean reply latency."""
    table = Table(title="run summary", title_justify="left",
                  caption="tokens, requests, retries: the calls this command made in the player's"
                          " conversations (all roles; a resumed run's earlier calls are in its costs);"
                          " latency: mean of the player's replies",
                  caption_justify="left")
    table.add_column("player")
    table.add_column("done", justify="right")
    table.add_column("failed", justify="right")
    table.add_column("tokens", justify="right")
    table.add_column("requests", justify="right")
    table.add_column("retries", justify="right")
    table.add_column("latency", justify="right")
    for player, c in p.players.items():
        latency = c.mean_latency_ms
        table.add_row(player, f"{c.done}/{c.total}", str(c.failed), amount(c.tokens),
                      str(c.requests), str(c.retries),
                      "-" if latency is None else f"{latency / 1000:.2f} s")
    return table


def costs_table(spend: Mapping[str, PlayerSpend]) -> Table:
    """What the run cost so far, per player: every seat's calls in its conversations, and the
    player's own replies; the figures are never cut (the caption gives way)."""
    table = Table(title=f"run costs: {total(spend.values()).text()}", title_justify="left",
                  caption="cost: every seat's calls (player, interrogator, judges); player's: the player's"
                          " replies; ~ priced partly from estimated tokens (no usage from the API), ≥ some model has no price",
                  caption_justify="left")
    table.add_column("player")
    for title in ("cost", "player's", "tokens", "estimated"):
        table.add_column(title, justify="right", no_wrap=True)
    for player, s in spend.items():
        table.add_row(player, s.total.text(), s.player.text(), amount(s.total.tokens),
                      amount(s.total.estimated_tokens))
    return table


@contextlib.asynccontextmanager
async def show_progress(p: RunProgress, title: str, console: Console | None = None,
                        *, interval: float = 0.25, plain_every: float = 10.0,
                        refresh: Callable[[], object] | None = None):
    """Draw `p` while the body runs: rich Live on a terminal, a line every `plain_every` s otherwise.
    refresh: called before each drawing (to merge the counters of worker processes into `p`)."""
    from pingpong.tui.commands.output import one_line

    console = console or Console()
    title = one_line(title)  # a run's name may come from an imported file

    def view() -> RunProgress:
        if refresh is not None:
            refresh()
        return p

    if console.is_terminal:
        with Live(bars(view(), title), console=console, auto_refresh=False, transient=False) as live:
            async def tick():
                while True:
                    await asyncio.sleep(interval)
                    live.update(bars(view(), title), refresh=True)

            task = asyncio.create_task(tick())
            try:
                yield
            finally:
                task.cancel()
                live.update(bars(view(), title), refresh=True)
    else:
        first = view()  # with workers, the merged view has its totals once refreshed
        skipped = sum(c.skipped for c in first.players.values())
        already = f", {skipped} already finished" if skipped else ""
        console.print(f"run {title}: {first.total} conversations planned{already}",
                      markup=False, highlight=False, soft_wrap=True)

        async def tick():
            while True:
                await asyncio.sleep(plain_every)
                console.print(status_line(view()), highlight=False, soft_wrap=True)

        task = asyncio.create_task(tick())
        try:
            yield
        finally:
            task.cancel()
            console.print(status_line(view()), highlight=False, soft_wrap=True)
