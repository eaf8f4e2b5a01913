"""`pingpong cards list|show|validate|import`: the character library from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pingpong.core.errors import UserError
from pingpong.tui.commands.output import console, error, fields_grid, one_line, print_json, shown, warn

if TYPE_CHECKING:
    from pingpong.characters.importers import Imported


def card_row(card, source: str) -> dict:
    """The `cards list --format json` object of one card."""
    return {
        "name": card.name,
        "lang": card.lang,
        "char_name": card.char_name,
        "summary": card.summary,
        "tags": card.tags,
        "source_kind": card.source_kind,
        "role_type": card.role_type,
        "prompt_style": card.prompt_style,
        "source": source,
    }


def list_cards(args, home) -> int:
    from pingpong.characters.library import CardListing

    lib = CardListing(home)
    cards = lib.all(lang=args.lang)
    warn(lib.problems)
    if args.format == "json":
        print_json([card_row(c, lib.source(c.name)) for c in cards])
        return 0
    from pingpong.tui.commands.table import Column, print_table

    columns = [Column("name", 10), Column("lang", 9), Column("character", 8, short="char"), Column("kind", 3),
               Column("tags", 4), Column("source", 6, short="src")]
    body = [[c.name, c.lang, c.char_name, c.source_kind or "", ", ".join(c.tags), lib.source(c.name)] for c in cards]
    print_table(columns, body, args.format, title=f"{len(cards)} characters", empty="no characters")
    return 0


def show_card(args, home) -> int:
    from pingpong.characters.library import CardLibrary

    lib = CardLibrary(home)
    card = lib.get(args.name)
    if args.format == "json":
        print_json({**card.model_dump(mode="json"), "source": lib.source(card.name)})
        return 0
    from rich.panel import Panel
    from rich.text import Text

    out = console()
    out.print(fields_grid((
        ("name", card.name), ("character", card.char_name), ("lang", card.lang), ("tags", ", ".join(card.tags)),
        ("kind", card.source_kind), ("role", card.role_type), ("style", card.prompt_style),
        ("source", f"{lib.source(card.name)} ({lib.path(card.name)})"), ("imported from", card.origin),
    )))
    out.print(Panel(Text(shown(card.summary)), title="summary (the interrogator sees this)", title_align="left"))
    out.print(Panel(Text(shown(card.persona)), title="persona", title_align="left"))
    if card.catchphrases:
        out.print(Panel(Text(shown("\n".join(f"• {line}" for line in card.catchphrases))), title="catchphrases",
                        title_align="left"))
    if card.greeting:
        out.print(Panel(Text(shown(card.greeting)), title="greeting", title_align="left"))
    if card.example_dialogue:
        lines = Text()
        for turn in card.example_dialogue:
            lines.append("user: ", style="bold cyan").append(shown(turn.user) + "\n")
            lines.append(f"{shown(card.char_name)}: ", style="bold magenta").append(shown(turn.char) + "\n")
        out.print(Panel(lines, title="example dialogue", title_align="left"))
    if card.example_text:
        out.print(Panel(Text(shown(card.example_text)), title="example dialogue (text)", title_align="left"))
    if card.extensions:
        out.print(Text(one_line(f"extensions: {', '.join(card.extensions)}"), style="dim"))
    return 0


def _summary(path: str, imported) -> str:
    names = ", ".join(c.name for c in imported.characters) or "no characters"
    extra = f" (+ {len(imported.situations)} situations)" if imported.situations else ""
    return f"{path}: {names}{extra}"


def validate_cards(args, home) -> int:
    """Check each file (any importable format) without touching the library: import_file does
    everything `cards import` does short of writing, so "ok" means the import will work."""
    from pingpong.characters.importers import import_file
    from pingpong.core.errors import UserError

    failed = 0
    for path in args.paths:
        try:
            imported = import_file(path)
        except UserError as exc:
            failed += 1
            error(exc)
            continue
        print(one_line(f"ok: {_summary(path, imported)}"))
    return 2 if failed else 0


def _same_situation(lib, situation) -> str | None:
    """Name of a library situation with the same content (so re-importing adds no copies)."""
    key = situation.model_dump(exclude={"name"})
    for other in lib.all(lang=situation.lang):
        if other.model_dump(exclude={"name"}) == key:
            return other.name
    return None


def import_cards(args, home) -> int:
    """Convert every file first; only when all of them are good are they saved (all or nothing)."""
    from pingpong.characters.importers import import_file
    from pingpong.characters.library import CardLibrary
    from pingpong.core.safe_parse import real_path
    from pingpong.situations.library import SituationLibrary

    cards, situations = CardLibrary(home), SituationLibrary(home)
    force = getattr(args, "force", False)
    batch: list[Imported] = []
    for path in args.paths:
        origin = str(real_path(Path(path)))
        taken_cards = cards.names_for_import(origin, take=force) | {c.name for i in batch for c in i.characters}
        taken_situations = situations.names() | {s.name for i in batch for s in i.situations}
        batch.append(import_file(path, args.lang, taken_cards=taken_cards, taken_situations=taken_situations))
    if not force:
        for path, imported in zip(args.paths, batch):
            for card in imported.characters:
                if card.name in cards.names() and cards.source(card.name) == "user":
                    raise UserError(f"{path}: card '{card.name}' is already in your library "
                                    f"({cards.path(card.name)}); --force replaces it")
    for path, imported in zip(args.paths, batch):
        for card in imported.characters:
            saved = cards.save(card)
            print(one_line(f"imported {path}: {card.name} ({card.char_name}, {card.lang}) -> {saved}"))
        for situation in imported.situations:
            same = _same_situation(situations, situation)
            if same:
                print(f"skipped {path}: situation {situation.name}: already in your library as {same}")
                continue
            saved = situations.save(situation)
            print(f"imported {path}: situation {situation.name} ({situation.lang}, {situation.num_turns} turns) -> {saved}")
    return 0
