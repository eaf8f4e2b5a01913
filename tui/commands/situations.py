"""`pingpong situations list|show`: the situation library from the command line."""

from __future__ import annotations

from pingpong.tui.commands.output import clip, console, fields_grid, print_json, warn


def situation_row(s, source: str) -> dict:
    """The `situations list --format json` object of one situation."""
    return {
        "name": s.name,
        "lang": s.lang,
        "num_turns": s.num_turns,
        "tags": s.tags,
        "topic": s.topic,
        "intent": s.intent.value if s.intent else None,
        "text": s.text,
        "source": source,
    }


def list_situations(args, home) -> int:
    from pingpong.situations.library import SituationLibrary

    lib = SituationLibrary(home)
    items = lib.all(lang=args.lang)
    warn(lib.problems)
    if args.format == "json":
        print_json([situation_row(s, lib.source(s.name)) for s in items])
        return 0
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"{len(items)} situations", title_justify="left")
    table.add_column("name", no_wrap=True)
    table.add_column("lang", no_wrap=True)
    table.add_column("turns", no_wrap=True, justify="right")
    table.add_column("tags")
    table.add_column("text")
    for s in items:
        table.add_row(s.name, s.lang, str(s.num_turns), Text(", ".join(s.tags)), Text(clip(s.text, 70)))
    console().print(table)
    return 0


def show_situation(args, home) -> int:
    from pingpong.situations.library import SituationLibrary

    lib = SituationLibrary(home)
    s = lib.get(args.name)
    if args.format == "json":
        print_json({**s.model_dump(mode="json"), "source": lib.source(s.name)})
        return 0
    from rich.panel import Panel
    from rich.text import Text

    out = console()
    out.print(fields_grid((
        ("name", s.name), ("lang", s.lang), ("turns", s.num_turns), ("tags", ", ".join(s.tags)),
        ("topic", s.topic), ("intent", s.intent.value if s.intent else None),
        ("source", f"{lib.source(s.name)} ({lib.path(s.name)})"),
    )))
    out.print(Panel(Text(s.text), title="situation (the interrogator sees this)", title_align="left"))
    return 0
