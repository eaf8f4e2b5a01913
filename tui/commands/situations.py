"""`pingpong situations list|show`: the situation library from the command line."""

from __future__ import annotations

from pingpong.tui.commands.output import console, fields_grid, print_json, warn


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


def seed_row(seed, source: str) -> dict:
    """The `situations list --method dmt --format json` object of one seed."""
    return {**seed.model_dump(mode="json"), "num_turns": seed.max_rounds, "method": "dmt", "source": source}


def list_seeds(args, home) -> int:
    from pingpong.situations.seeds import SeedLibrary

    lib = SeedLibrary(home)
    items = lib.all(args.lang)
    warn(lib.problems)
    if args.format == "json":
        print_json([seed_row(s, lib.source(s.name)) for s in items])
        return 0
    from pingpong.tui.commands.table import Column, print_table

    columns = [Column("name", 10), Column("lang", 9), Column("character", 7, short="char"), Column("intent", 4),
               Column("rounds", 8, number=True, short="n"), Column("topic", 5)]
    body = [[s.name, s.lang, s.character, s.intent.value, str(s.max_rounds), s.topic] for s in items]
    print_table(columns, body, args.format, title=f"{len(items)} DMT seeds", empty="no DMT seeds")
    return 0


def list_situations(args, home) -> int:
    from pingpong.situations.library import SituationLibrary

    if getattr(args, "method", None) == "dmt":
        return list_seeds(args, home)

    lib = SituationLibrary(home)
    items = lib.all(lang=args.lang)
    warn(lib.problems)
    if args.format == "json":
        print_json([situation_row(s, lib.source(s.name)) for s in items])
        return 0
    from pingpong.tui.commands.table import Column, print_table

    columns = [Column("name", 10), Column("lang", 9), Column("turns", 8, number=True, short="n"), Column("tags", 4),
               Column("text", 6, least=12)]
    body = [[s.name, s.lang, str(s.num_turns), ", ".join(s.tags), s.text] for s in items]
    print_table(columns, body, args.format, title=f"{len(items)} situations", empty="no situations")
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
