"""`pingpong serve`: the same TUI in a web browser, through textual-serve.

textual-serve starts one process per browser connection from a shell command,
so the command is built here: this Python running `pingpong.tui.cli` with the
same home, database and config the server was given (quoted with shlex, so
paths with spaces or quotes survive the shell).
"""

from __future__ import annotations

import asyncio
import logging
import os
import shlex
import socket
import sys

from aiohttp import web
from textual_serve.server import Server

from pingpong.core.errors import UserError
from pingpong.core.home import Home

WILDCARD_HOSTS = ("0.0.0.0", "::")


def app_command(home: Home) -> str:
    """The shell command that opens the TUI on home, as textual-serve runs it for each browser."""
    argv = [sys.executable, "-m", "pingpong.tui.cli", "--home", str(home.root.resolve())]
    if home.db_override is not None:
        argv += ["--db", str(home.db_override.resolve())]
    if home.config_override is not None:
        argv += ["--config", str(home.config_override.resolve())]
    return shlex.join(argv)


def public_url(host: str, port: int) -> str:
    """The address a browser opens (and the page's websocket points back to)."""
    if host in WILDCARD_HOSTS:
        host = socket.getfqdn()
    if ":" in host:  # a bare IPv6 address
        host = f"[{host}]"
    return f"http://{host}:{port}"


class TuiServer(Server):
    """textual-serve, announcing itself in one line once it listens (its own banner is printed before
    the port is bound), logging only warnings; ctrl+c and SIGTERM stop it gracefully."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._browsers: set[asyncio.Task] = set()   # the handlers of connected browser tabs

    def initialize_logging(self) -> None:
        logging.basicConfig(level=logging.WARNING, format="pingpong serve: %(message)s")

    async def on_startup(self, app: web.Application) -> None:
        """No banner here: the port is not bound yet."""

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        task = asyncio.current_task()
        assert task is not None
        self._browsers.add(task)
        try:
            return await super().handle_websocket(request)
        finally:
            self._browsers.discard(task)

    async def on_shutdown(self, app: web.Application) -> None:
        """A signal (kill, systemd, a supervisor) reaches this process, not the tabs' TUI processes:
        each tab's handler is cancelled, which closes its socket and quits its TUI, instead of aiohttp
        waiting for the tabs (20 s and more) while the server no longer answers."""
        for task in list(self._browsers):
            task.cancel()

    def announce(self, _banner: str) -> None:
        print(f"pingpong: serving the TUI at {self.public_url} (ctrl+c stops)", flush=True)

    def serve(self, debug: bool = False) -> None:
        self.debug = debug
        self.initialize_logging()
        web.run_app(self._make_app(), host=self.host, port=self.port, handle_signals=True, print=self.announce)


def _check_database(home: Home) -> None:
    """Open (and migrate) the database once here, so a bad file is one line, not a broken page per visitor."""
    from pingpong.sessions.store import Store

    home.ensure()
    Store(home.db_path).close()


def _check_config(home: Home) -> None:
    """Read config.toml as the TUI does when it starts (its keymap: the TOML, then each entry), so a
    config it would refuse is one line here, not 'Application failed to start' per visitor."""
    from pingpong.tui.keymap import load_keymap

    load_keymap(home)


def serve(args, home: Home) -> int:
    host, port = args.host.strip(), args.port
    if not host:  # aiohttp would listen on every address, while the banner said localhost
        raise UserError("--host: must not be empty (0.0.0.0 listens on every address of this machine)")
    if not 1 <= port <= 65535:
        raise UserError(f"--port: expected 1 to 65535, got {port}")
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UserError(f"--host {host}: not an address this machine can listen on "
                        f"({getattr(exc, 'strerror', None) or exc})") from None
    _check_config(home)
    _check_database(home)
    server = TuiServer(app_command(home), host=host, port=port, title="pingpong", public_url=public_url(host, port))
    try:
        server.serve()
    except OSError as exc:
        reason = os.strerror(exc.errno).lower() if exc.errno else str(exc)
        raise UserError(f"cannot serve on {host}:{port}: {reason}") from None
    return 0
