"""`pingpong report --out DIR [--run NAME]`: the stored sessions as static HTML (tui/report)."""

from __future__ import annotations

from pathlib import Path


def report(args, home) -> int:
    from pingpong.core.config import load_models, prices
    from pingpong.sessions.store import Store
    from pingpong.tui.report import write_report

    price_of = prices(load_models(home))
    with Store(home.db_path) as store:
        written = write_report(store, Path(args.out), run=args.run_name, prices=price_of)
    print(f"wrote {written.conversations} conversation(s) of {written.players} player(s): {written.index}")
    return 0
