"""`pingpong situations list|show`: the situation library from the command line.

What each method lists and what an item's details are is decided in situations.catalog (the TUI's
situations screen reads the same); this module only prints it.
"""

from __future__ import annotations

from argparse import Namespace
from typing import cast

from pingpong.core.home import Home
from pingpong.situations.catalog import Catalog, Entry, Listing, find, listing
from pingpong.tui.commands.output import console, print_json, warn


def list_situations(args: Namespace, home: Home) -> int:
    found = listing(Catalog.of(home), getattr(args, "method", None), args.lang)  # the parser took a method's name
    warn(found.problems)
    if args.format == "json":
        print_json([e.row for e in found.entries])
        return 0
    print_listing(found, args.format)
    return 0


def show_situation(args: Namespace, home: Home) -> int:
    """Any name `situations list` gives, with or without --method (situations.catalog.find)."""
    shown = find(Catalog.of(home), args.name, getattr(args, "method", None)).show()
    if args.format == "json":
        print_json(shown.data)
        return 0
    from pingpong.tui.situation_details import details_view

    console().print(details_view(shown.details))
    return 0


def print_listing(found: Listing, fmt: str) -> None:
    """The method's table(s): roleinteract's probe sets, then its group scenes."""
    if found.method == "dmt":
        print_seeds(found.entries, fmt)
    elif found.method == "roleinteract":
        print_probe_sets(found.of_kind("probe_set"), fmt)
        print_scenes(found.of_kind("scene"), fmt)
    elif found.method == "rolebench":
        print_question_sets(found.entries, fmt)
    else:
        print_plain(found.entries, fmt)


def print_plain(entries: list[Entry], fmt: str) -> None:
    from pingpong.tui.commands.table import Column, print_table

    columns = [Column("name", 10), Column("lang", 9), Column("turns", 8, number=True, short="n"), Column("tags", 4),
               Column("text", 6, least=12)]
    body = [[e.name, e.lang, str(e.row["num_turns"]), e.about, str(e.row["text"])] for e in entries]
    print_table(columns, body, fmt, title=f"{len(entries)} situations", empty="no situations")


def print_seeds(entries: list[Entry], fmt: str) -> None:
    from pingpong.tui.commands.table import Column, print_table

    columns = [Column("name", 10), Column("lang", 9), Column("character", 7, short="char"), Column("intent", 4),
               Column("rounds", 8, number=True, short="n"), Column("topic", 5)]
    body = [[e.name, e.lang, e.character, e.about, str(e.row["max_rounds"]), str(e.row["topic"])] for e in entries]
    print_table(columns, body, fmt, title=f"{len(entries)} DMT seeds", empty="no DMT seeds")


def print_probe_sets(entries: list[Entry], fmt: str) -> None:
    from pingpong.tui.commands.roleinteract_board import TITLES
    from pingpong.tui.commands.table import Column, print_table

    def counts(row: dict) -> dict:
        return {**row["questions"], **row["memory"]}

    columns = [Column("name", 10, least=16), Column("lang", 9),
               *(Column(title, 5, number=True, name=dimension) for dimension, title in TITLES.items())]
    body = [[e.name, e.lang, *(str(counts(e.row).get(d, 0)) for d in TITLES)] for e in entries]
    print_table(columns, body, fmt, title=f"{len(entries)} RoleInteract probe sets", empty="no RoleInteract probe sets")


def print_scenes(entries: list[Entry], fmt: str) -> None:
    from pingpong.tui.commands.table import Column, print_table

    def tested(row: dict) -> str:
        preference = next(m["preference"] for m in row["members"] if m["character"] == row["tested"])
        return f"{row['tested']} ({preference})"

    columns = [Column("name", 10), Column("lang", 9), Column("tested", 8), Column("members", 6, number=True),
               Column("rounds", 6, number=True), Column("setting", 4, least=12)]
    body = [[e.name, e.lang, tested(e.row), str(len(cast(list, e.row["members"]))), str(e.row["rounds"]),
             str(e.row["setting"])] for e in entries]
    print_table(columns, body, fmt, title=f"{len(entries)} group scenes", empty="no group scenes")


def print_question_sets(entries: list[Entry], fmt: str) -> None:
    """RoleBench's question sets: each language's general instructions and each card's own questions."""
    from pingpong.tui.commands.table import Column, print_table

    columns = [Column("name", 10), Column("lang", 9), Column("kind", 6), Column("questions", 8, number=True, short="n"),
               Column("characters", 4, least=12)]
    body = [[e.name, e.lang, str(e.row["kind"]), str(e.row["questions"]), ", ".join(cast(list[str], e.row["characters"]))]
            for e in entries]
    print_table(columns, body, fmt, title=f"{len(entries)} RoleBench question sets (one question a session; "
                "`play --method rolebench --character C --situation SET-ID`)", empty="no RoleBench question sets")
