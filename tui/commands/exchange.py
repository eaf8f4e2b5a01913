"""`pingpong export` and `pingpong import`: move sessions in and out of the database."""

from __future__ import annotations

import sys

from pingpong.tui.commands.output import error


def export(args, home) -> int:
    from pingpong.sessions.exchange import export as do_export
    from pingpong.sessions.store import Store

    with Store(home.db_path, reading=True) as store:
        line = do_export(store, args.format, args.out, sys.stdout)
    if args.format in ("jsonl", "annotations") and not args.out:
        print(line, file=sys.stderr)  # stdout carries the JSONL itself
    else:
        print(line)
    return 0


def import_(args, home) -> int:
    """Each file in its own transaction: a bad file is reported (exit 2) and leaves nothing."""
    import os

    from pingpong.core.errors import UserError
    from pingpong.sessions.exchange import import_paths
    from pingpong.sessions.store import Store

    for path in args.paths:  # before anything is imported: a mistyped glob must not leave half an import
        if not os.path.lexists(path):
            raise UserError(f"{path}: no such file; nothing was imported")
        if os.path.isdir(path):
            raise UserError(f"{path}: is a folder (import takes files: {path}/*/*.json); nothing was imported")
    home.ensure()
    with Store(home.db_path) as store:
        done, errors = import_paths(store, args.paths)
    for summary in done:
        for warning in summary.warnings:
            print(f"pingpong: warning: {warning}", file=sys.stderr)
        print(summary.line())
    if errors:
        for line in errors[:-1]:
            error(line)
        raise UserError(errors[-1])
    return 0
