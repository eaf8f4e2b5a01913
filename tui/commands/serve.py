"""`pingpong serve`: the same TUI in a web browser, through textual-serve.

textual-serve starts one process per browser connection from a shell command,
so the command is built here: this Python running `pingpong.tui.cli` with the
same home, database and config the server was given (quoted with shlex, so
paths with spaces or quotes survive the shell).

Every request passes `Guard` first (an aiohttp middleware on textual-serve's app), since any web page
the user visits may open a websocket to 127.0.0.1 and a rebound DNS name may point at it: the Host
header must name the address served, a websocket's Origin must be the page's own, and every route
(page, websocket, static files, downloads) needs the secret token made at start, either as
`?token=` (the address printed) or as the cookie the first page load with it sets.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import re
import secrets
import shlex
import socket
import sys
from collections.abc import Awaitable, Callable

from aiohttp import web
from textual_serve.server import Server

from pingpong.core.errors import UserError
from pingpong.core.home import Home

WILDCARD_HOSTS = ("0.0.0.0", "::")
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
REFUSED = "pingpong serve: refused; open the address `pingpong serve` printed (it ends in ?token=...)\n"
_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::([0-9]{1,5}))?")  # a Host header, lowercased
_ORIGIN = re.compile(r"(https?)://(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::([0-9]{1,5}))?")


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


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _is_loopback(host: str) -> bool:
    return host in LOOPBACK_NAMES or (_is_ip(host) and ipaddress.ip_address(host).is_loopback)


def _host_port(match: re.Match[str] | None, host_group: int, default_port: int) -> tuple[str, int] | None:
    if match is None:
        return None
    host, port = match.group(host_group).strip("[]").rstrip("."), match.group(host_group + 1)
    return host, int(port) if port else default_port


class Guard:
    """Who may use the server: requests addressed to it by a name it serves (no DNS rebinding),
    websockets opened by its own page (no other site's page), and holders of the token."""

    def __init__(self, host: str, port: int, public_host: str, token: str) -> None:
        self.port, self.public_host, self.token = port, public_host.strip("[]").lower(), token
        self.cookie = f"pingpong-serve-{port}"  # cookies ignore ports: one name per port
        host = host.strip("[]").lower()
        self.any_ip = host in WILDCARD_HOSTS  # every address: any IP literal (a rebound name is never one)
        names = {host, self.public_host}
        if self.any_ip:
            names |= {socket.gethostname().lower()} | LOOPBACK_NAMES
        elif _is_loopback(host):
            names |= LOOPBACK_NAMES
        else:
            try:  # the addresses a name given to --host listens on
                names |= {str(info[4][0]).lower() for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)}
            except OSError:
                pass
        self.names = frozenset(names)

    def served_host(self, header: str | None) -> str | None:
        """The host a Host header names, if it is one this server answers to on its port."""
        parsed = _host_port(_HOST.fullmatch((header or "").strip().lower()), 1, 80)
        if parsed is None or parsed[1] != self.port:
            return None
        host = parsed[0]
        return host if host in self.names or (self.any_ip and _is_ip(host)) else None

    def same_origin(self, origin: str | None, host: str) -> bool:
        """Whether a websocket's Origin is the page this server serves at host (or its loopback alias)."""
        match = _ORIGIN.fullmatch((origin or "").strip().lower())
        parsed = _host_port(match, 2, 443 if match and match.group(1) == "https" else 80)
        if match is None or parsed is None or match.group(1) != "http" or parsed[1] != self.port:
            return False
        return parsed[0] == host or (_is_loopback(parsed[0]) and _is_loopback(host))

    def has_token(self, request: web.Request) -> bool:
        given = [request.query.get("token", ""), request.cookies.get(self.cookie, "")]
        return any(secrets.compare_digest(value.encode(), self.token.encode()) for value in given)

    @web.middleware
    async def middleware(self, request: web.Request,
                         handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        host = self.served_host(request.headers.get("Host"))
        if host is None or not self.has_token(request):
            return web.Response(status=403, text=REFUSED)
        if request.headers.get("Upgrade", "").lower() == "websocket" or request.path == "/ws":
            if not self.same_origin(request.headers.get("Origin"), host):
                return web.Response(status=403, text=REFUSED)
        if request.path == "/" and host != self.public_host:
            # the page's websocket and files point at the printed host, where the cookie must be set
            raise web.HTTPFound(f"http://{_bracketed(self.public_host)}:{self.port}{request.path_qs}")
        response = await handler(request)
        if request.path == "/":
            response.headers["Referrer-Policy"] = "no-referrer"
            if secrets.compare_digest(request.query.get("token", "").encode(), self.token.encode()):
                response.set_cookie(self.cookie, self.token, path="/", httponly=True, samesite="Strict")
        return response


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class TuiServer(Server):
    """textual-serve, announcing itself in one line once it listens (its own banner is printed before
    the port is bound), logging only warnings; ctrl+c and SIGTERM stop it gracefully."""

    def __init__(self, *args, token: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._browsers: set[asyncio.Task] = set()   # the handlers of connected browser tabs
        public_host = _HOST.fullmatch(self.public_url.split("://", 1)[1].lower())
        assert public_host is not None
        self.guard = Guard(self.host, self.port, public_host.group(1), token)

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self.guard.middleware)
        return app

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
        print(f"pingpong: serving the TUI at {self.public_url}/?token={self.guard.token} (ctrl+c stops)", flush=True)

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
    server = TuiServer(app_command(home), host=host, port=port, title="pingpong", public_url=public_url(host, port),
                       token=secrets.token_urlsafe(32))
    try:
        server.serve()
    except OSError as exc:
        reason = os.strerror(exc.errno).lower() if exc.errno else str(exc)
        raise UserError(f"cannot serve on {host}:{port}: {reason}") from None
    return 0
