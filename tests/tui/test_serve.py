"""`pingpong serve`: a real server on 127.0.0.1, its page, the app's first screen over the websocket,
and a screenshot taken by headless Chromium (driven through its DevTools websocket).

Chromium's `--screenshot` flag alone cannot be used: its virtual time runs out before the app's first
bytes arrive over the websocket, so it photographs textual-serve's splash. Through DevTools the test
waits until the terminal has received the app's output, then until two screenshots in a row agree.
No test reaches the internet: Chromium resolves every host but 127.0.0.1 to "not found".

The server's guard (any page the user visits could otherwise drive it): without the printed token or
its cookie every route is refused, a Host naming another host (DNS rebinding) too, and a websocket
whose Origin is not the served page's own.
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
import select
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from pingpong.core.home import Home
from pingpong.tui.commands.serve import REFUSED, Guard, app_command, public_url

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0
ANSI = re.compile(rb"\x1b\[[0-9;?$]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
HOME_TEXT = "No sessions yet"  # the Home screen of an empty database (tui/screens/home.py EMPTY_TEXT)
BANNER = re.compile(r"pingpong: serving the TUI at (http://127\.0\.0\.1:([0-9]+))/\?token=([A-Za-z0-9_-]{43})"
                    r" \(ctrl\+c stops\)\n")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Served:
    """A running `pingpong serve`: its address, the token its banner printed, the line itself."""
    url: str  # http://127.0.0.1:P, the page's origin
    token: str
    banner: str
    proc: subprocess.Popen

    @property
    def printed(self) -> str:
        return f"{self.url}/?token={self.token}"

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    @property
    def browser(self) -> dict[str, str]:
        """The headers a browser sends once the printed address has set the cookie."""
        return {"Cookie": f"pingpong-serve-{self.port}={self.token}", "Origin": self.url}


def _start(home: Path) -> Served:
    """`pingpong serve --port P --home HOME` as a real process, once its banner is out."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pingpong.tui.cli", "serve", "--port", str(port), "--home", str(home)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    line, deadline = b"", time.monotonic() + START_TIMEOUT
    while b"\n" not in line and time.monotonic() < deadline and proc.poll() is None:
        if select.select([proc.stdout], [], [], 0.2)[0]:
            line += os.read(proc.stdout.fileno(), 4096)
    match = BANNER.fullmatch(line.decode())
    if match is None or match.group(1) != f"http://127.0.0.1:{port}":
        proc.kill()
        proc.communicate()
        pytest.fail(f"unexpected banner: {line!r}")
    return Served(match.group(1), match.group(3), line.decode(), proc)


def _stop(served: Served) -> str:
    """Stop it as ctrl+c would; what it wrote after its banner."""
    served.proc.send_signal(signal.SIGINT)
    try:
        rest, _ = served.proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        served.proc.kill()
        served.proc.communicate()
        raise
    assert served.proc.returncode == 0, rest.decode(errors="replace")
    assert b"Traceback" not in rest, rest.decode(errors="replace")
    return rest.decode(errors="replace")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`pingpong serve --port P --home TMP` as a real process; stopped as ctrl+c would."""
    server = _start(tmp_path_factory.mktemp("serve") / "my home")
    try:
        yield server
    finally:
        _stop(server)


def test_app_command_keeps_the_global_options_through_the_shell(tmp_path):
    home = Home(tmp_path / "it's a home", tmp_path / "d b.sqlite", tmp_path / "conf $HOME.toml")
    argv = shlex.split(app_command(home))
    assert argv == [sys.executable, "-m", "pingpong.tui.cli", "--home", str(home.root), "--db", str(home.db_override),
                    "--config", str(home.config_override)]
    assert shlex.split(app_command(Home(tmp_path)))[3:] == ["--home", str(tmp_path)]


def test_public_url():
    assert public_url("127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert public_url("::1", 9000) == "http://[::1]:9000"
    assert public_url("0.0.0.0", 80) == f"http://{socket.getfqdn()}:80"  # what another machine can open


def test_bad_port_is_one_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "serve", "--port", "70000", "--home",
                             str(tmp_path)], check=False, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr == "pingpong: error: --port: expected 1 to 65535, got 70000\n"


@pytest.mark.parametrize("host, message", [
    ("", "--host: must not be empty"),  # aiohttp would listen on every address, the banner said localhost
    ("nosuchhost.invalid", "--host nosuchhost.invalid: not an address this machine can listen on"),
])
def test_an_empty_or_unknown_host_is_one_line(tmp_path, host, message):
    result = subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "serve", "--port", "18123", "--host", host,
                             "--home", str(tmp_path)], check=False, cwd=REPO, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and message in result.stderr, result.stderr


@pytest.mark.parametrize("config, message", [
    ("[models\n", "config.toml: invalid TOML: Expected ']' at the end of a table declaration (at line 1, column 8)"),
    ('[keymap]\nno_such_binding = "ctrl+t"\n', "keymap.no_such_binding: no binding has this id"),
], ids=["broken-toml", "unknown-key-binding"])
def test_a_config_the_tui_refuses_stops_serve_before_it_listens(tmp_path, config, message):
    """As plain `pingpong` refuses it: one line, exit 2, rather than 'Application failed to start' per visitor."""
    (tmp_path / "config.toml").write_text(config, encoding="utf-8")
    tui = subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "--home", str(tmp_path)], check=False, cwd=REPO,
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    result = subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "serve", "--port", str(_free_port()), "--home",
                             str(tmp_path)], check=False, cwd=REPO, capture_output=True, text=True, timeout=30)
    assert result.returncode == tui.returncode == 2 and result.stderr == tui.stderr
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert result.stdout == ""


def test_busy_port_is_one_line(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "pingpong.tui.cli", "serve", "--port", str(port), "--home",
                                 str(tmp_path)], check=False, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr == f"pingpong: error: cannot serve on 127.0.0.1:{port}: address already in use\n"
    assert result.stdout == ""


async def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, \
            session.get(url, headers=headers, allow_redirects=False) as response:
        return response.status, await response.text()


async def _ws_status(url: str, headers: dict[str, str]) -> int:
    """The status a websocket handshake at url gets (101: accepted), closing it at once."""
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url, headers=headers):
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


async def _screen_text(served: Served, needle: str, timeout: float = START_TIMEOUT) -> str:
    """Connect as the browser page does and collect the app's output (ANSI stripped) until needle shows."""
    received = b""
    ws_url = served.url.replace("http:", "ws:") + "/ws?width=100&height=30"
    async with aiohttp.ClientSession() as session, session.ws_connect(ws_url, headers=served.browser) as ws:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                msg = await ws.receive(timeout=1.0)
            except TimeoutError:
                continue
            if msg.type == aiohttp.WSMsgType.BINARY:
                received += msg.data
            elif msg.type != aiohttp.WSMsgType.TEXT:
                break  # closed: the app exited
            if needle in ANSI.sub(b"", received).decode("utf-8", "replace"):
                break
    return ANSI.sub(b"", received).decode("utf-8", "replace")


async def test_page_is_textual_serve_and_the_app_shows_home(served):
    status, page = await _get(served.printed)
    assert status == 200
    assert 'class="textual-terminal"' in page
    assert f'data-session-websocket-url="{served.url.replace("http:", "ws:")}/ws"' in page
    assert "<div>pingpong</div>" in page  # the splash names our app, not the shell command
    text = await _screen_text(served, HOME_TEXT)
    assert HOME_TEXT in text, text[-2000:]
    assert "pingpong" in text and "0 sessions" in text


def _ws(served: Served, query: str = "") -> str:
    return served.url.replace("http:", "ws:") + "/ws" + query


def test_guard_hosts_and_origins():
    loop = Guard("127.0.0.1", 8000, "127.0.0.1", "t")
    assert [loop.served_host(h) for h in ("127.0.0.1:8000", "LOCALHOST:8000", "[::1]:8000", "localhost.:8000")] \
        == ["127.0.0.1", "localhost", "::1", "localhost"]
    for host in (None, "", "127.0.0.1", "127.0.0.1:8001", "evil.example:8000", "u@127.0.0.1:8000", "127.0.0.1:8000/x",
                 "10.0.0.1:8000", "127.0.0.1.evil.example:8000"):
        assert loop.served_host(host) is None, host
    assert loop.same_origin("http://127.0.0.1:8000", "127.0.0.1") and loop.same_origin("http://localhost:8000", "127.0.0.1")
    for origin in (None, "", "null", "http://evil.example:8000", "https://127.0.0.1:8000", "http://127.0.0.1",
                   "http://127.0.0.1:8001", "http://127.0.0.1:8000.evil.example", "http://127.0.0.1:8000/"):
        assert not loop.same_origin(origin, "127.0.0.1"), origin
    every = Guard("0.0.0.0", 8000, "Box.Example.org", "t")  # every address: any IP, the machine's names
    assert every.served_host("192.168.1.5:8000") == "192.168.1.5" and every.served_host("box.example.org:8000")
    assert every.served_host("evil.example:8000") is None and every.served_host("192.168.1.5:80") is None
    assert every.same_origin("http://192.168.1.5:8000", "192.168.1.5")
    assert not every.same_origin("http://10.0.0.9:8000", "192.168.1.5")  # another machine's page
    lan = Guard("192.168.1.5", 8000, "192.168.1.5", "t")
    assert lan.served_host("192.168.1.5:8000") and lan.served_host("localhost:8000") is None


async def test_the_printed_address_sets_a_strict_httponly_cookie_for_its_port(served):
    async with aiohttp.ClientSession() as session, session.get(served.printed, allow_redirects=False) as response:
        assert response.status == 200
        cookie = response.headers["Set-Cookie"]
    name_value, *attributes = (part.strip() for part in cookie.split(";"))
    assert name_value == f"pingpong-serve-{served.port}={served.token}"
    assert {a.lower() for a in attributes} >= {"httponly", "path=/", "samesite=strict"}
    cookie_only = {"Cookie": served.browser["Cookie"]}  # then the cookie alone opens the page and its files
    assert (await _get(served.url + "/", cookie_only))[0] == 200
    assert (await _get(served.url + "/static/js/textual.js", cookie_only))[0] == 200


async def test_without_the_token_every_route_is_refused(served):
    wrong = "A" * len(served.token)
    for headers, query in (({}, ""), ({"Cookie": f"pingpong-serve-{served.port}={wrong}"}, ""), ({}, f"?token={wrong}"),
                           ({"Cookie": f"pingpong-serve-{served.port + 1}={served.token}"}, "")):
        for path in ("/", "/static/js/textual.js", "/static/", "/download/key", "/no-such-page"):
            assert await _get(served.url + path + query, headers) == (403, REFUSED), (path, headers, query)
        assert await _ws_status(_ws(served, query), {**headers, "Origin": served.url}) == 403


async def test_a_websocket_from_another_origin_is_refused(served):
    port = served.port
    for origin in ("http://evil.example", f"http://evil.example:{port}", "http://127.0.0.1:1", "null",
                   f"https://127.0.0.1:{port}", f"http://127.0.0.1.evil.example:{port}", None):
        headers = {**served.browser, "Origin": origin} if origin else {"Cookie": served.browser["Cookie"]}
        assert await _ws_status(_ws(served), headers) == 403, origin
        assert await _ws_status(_ws(served, f"?token={served.token}"), headers) == 403, origin
    # the page opened as localhost: its websocket points at 127.0.0.1, which accepts it
    assert await _ws_status(_ws(served), {**served.browser, "Origin": f"http://localhost:{port}"}) == 101


async def test_a_host_header_naming_another_host_is_refused(served):
    """DNS rebinding: a name the attacker controls made to point at 127.0.0.1 reaches the port, its Host does not."""
    port = served.port
    for host in (f"attacker.example:{port}", "attacker.example", "127.0.0.1", "127.0.0.1:1",
                 f"127.0.0.1.attacker.example:{port}"):
        assert await _get(served.printed, {"Host": host}) == (403, REFUSED), host
        origin = f"http://{host}"
        assert await _ws_status(_ws(served), {**served.browser, "Host": host, "Origin": origin}) == 403, host
    # localhost is this host: its page is sent to the printed address, where the page's websocket points
    async with aiohttp.ClientSession() as session, \
            session.get(served.printed + "&fontsize=12", headers={"Host": f"localhost:{port}"},
                        allow_redirects=False) as response:
        assert response.status == 302 and "Set-Cookie" not in response.headers
        assert response.headers["Location"] == served.printed + "&fontsize=12"


async def test_the_token_stays_out_of_the_database_and_the_output(tmp_path):
    """Only the printed address shows it: not the server's output, not any file in the home."""
    home = tmp_path / "home"
    server = _start(home)
    try:
        assert (await _get(server.printed))[0] == 200
        assert (await _get(server.url + "/?token=" + "A" * 43))[0] == 403  # nor does a refusal print it
        assert HOME_TEXT in await _screen_text(server, HOME_TEXT)
    finally:
        rest = _stop(server)
    assert server.banner.count(server.token) == 1 and server.token not in rest, rest
    files = [path for path in home.rglob("*") if path.is_file()]
    assert Home(home).db_path in files, files
    for path in files:
        assert server.token.encode() not in path.read_bytes(), path


# -- Chromium -------------------------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--window-size=1200,800",
)
READY_JS = "document.body !== null && document.body.classList.contains('-first-byte')" \
           " && !document.body.classList.contains('-closed')"


class DevTools:
    """The few DevTools protocol calls the test needs, over one page's websocket."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse):
        self.ws, self.last_id = ws, 0

    async def call(self, method: str, **params) -> dict:
        self.last_id += 1
        await self.ws.send_json({"id": self.last_id, "method": method, "params": params})
        while True:
            msg = await self.ws.receive_json(timeout=START_TIMEOUT)
            if msg.get("id") == self.last_id:
                assert "error" not in msg, msg
                return msg["result"]

    async def evaluate(self, expression: str):
        return (await self.call("Runtime.evaluate", expression=expression, returnByValue=True))["result"].get("value")

    async def screenshot(self) -> bytes:
        return base64.b64decode((await self.call("Page.captureScreenshot", format="png"))["data"])


async def _wait_for(condition, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not await condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.1)


@asynccontextmanager
async def chromium(profile: Path) -> AsyncIterator[DevTools]:
    """Headless Chromium with one page, driven through DevTools."""
    assert CHROMIUM is not None
    proc = await asyncio.create_subprocess_exec(
        CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank",
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = profile / "DevToolsActivePort"

        async def devtools_up() -> bool:
            return port_file.exists() and len(port_file.read_text().split()) >= 2

        await _wait_for(devtools_up)
        port = int(port_file.read_text().split()[0])
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/json/list") as response:
                page = next(t for t in await response.json() if t["type"] == "page")
            async with session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                yield DevTools(ws)
    finally:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 20)
        except TimeoutError:
            proc.kill()
            await proc.wait()


async def rendered_screenshot(tools: DevTools, url: str) -> bytes:
    """A PNG of url once the terminal shows the app and has stopped changing."""
    await tools.call("Page.navigate", url=url)

    async def ready() -> bool:
        return bool(await tools.evaluate(READY_JS))

    await _wait_for(ready)
    shots = [await tools.screenshot()]
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:  # until two screenshots half a second apart agree
        await asyncio.sleep(0.5)
        shots.append(await tools.screenshot())
        if shots[-1] == shots[-2]:
            break
    assert await tools.evaluate(READY_JS), "the app's session ended in the browser"
    return shots[-1]


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, pixels) of an 8-bit RGB/RGBA PNG, every chunk's CRC checked."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, chunks = 8, {}
    while pos < len(data):
        (size,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body, crc = data[pos + 8:pos + 8 + size], data[pos + 8 + size:pos + 12 + size]
        assert struct.unpack(">I", crc)[0] == zlib.crc32(kind + body), f"bad CRC in {kind!r}"
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + size
    assert b"IEND" in chunks
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    bpp = 4 if colour == 6 else 3
    raw, stride, prev, pixels = zlib.decompress(chunks[b"IDAT"]), width * bpp, bytearray(width * bpp), []
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, cur = line[0], bytearray(line[1:])
        for i in range(stride):
            a, b, c = (cur[i - bpp] if i >= bpp else 0), prev[i], (prev[i - bpp] if i >= bpp else 0)
            if kind == 1:
                cur[i] = (cur[i] + a) & 0xFF
            elif kind == 2:
                cur[i] = (cur[i] + b) & 0xFF
            elif kind == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        pixels += [bytes(cur[i:i + 3]) for i in range(0, stride, bpp)]
        prev = cur
    return width, height, pixels


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian package `chromium`)")
async def test_chromium_shows_the_home_screen_at_the_printed_address(served, tmp_path):
    async with chromium(tmp_path / "profile") as tools:
        shot = await rendered_screenshot(tools, served.printed)
        assert served.token not in await tools.evaluate("document.cookie")  # HttpOnly: no script reads it
    (tmp_path / "home.png").write_bytes(shot)
    width, height, pixels = png_pixels(shot)
    assert width == 1200 and 500 <= height <= 800
    counts: dict[bytes, int] = {}
    for pixel in pixels:
        counts[pixel] = counts.get(pixel, 0) + 1
    assert len(counts) >= 16  # text, borders, footer keys: far from a blank or one-colour page
    assert max(counts.values()) < 0.97 * len(pixels)


ATTACKER_PAGE = """<!DOCTYPE html><script>
window.outcome = "pending";
const ws = new WebSocket("WS_URL");
ws.onopen = () => { window.outcome = "open"; };
ws.onclose = () => { if (window.outcome === "pending") window.outcome = "refused"; };
</script>"""


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian package `chromium`)")
async def test_in_chromium_another_sites_page_cannot_open_the_websocket(served, tmp_path):
    """In the browser that opened the printed address (so holds its cookie), a page from another origin on
    the same machine (the same site to cookies: ports do not count) tries the websocket and is refused."""
    async def attacker_page(_request: web.Request) -> web.Response:
        return web.Response(text=ATTACKER_PAGE.replace("WS_URL", _ws(served, "?width=80&height=24")),
                            content_type="text/html")

    app = web.Application()
    app.router.add_get("/", attacker_page)
    runner = web.AppRunner(app)
    await runner.setup()
    port = _free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        async with chromium(tmp_path / "profile") as tools:
            await tools.call("Page.navigate", url=served.printed)

            async def the_app_is_up() -> bool:
                return bool(await tools.evaluate(READY_JS))

            await _wait_for(the_app_is_up)  # the cookie works for the page's own websocket
            await tools.call("Page.navigate", url=f"http://127.0.0.1:{port}/")

            async def decided() -> bool:
                return await tools.evaluate("window.outcome") in ("open", "refused")

            await _wait_for(decided)
            assert await tools.evaluate("window.outcome") == "refused"
    finally:
        await runner.cleanup()


def test_a_signal_stops_serve_promptly_while_a_browser_tab_is_connected(tmp_path):
    """kill/systemd reach the server only, not the tab's TUI: it took 20 s and more to stop, no longer
    answering meanwhile. The tab's session is now closed at once and the command ends cleanly."""
    served = _start(tmp_path / "h")
    proc = served.proc

    async def connected_then_stopped() -> float:
        async with aiohttp.ClientSession() as session, \
                session.ws_connect(_ws(served, "?width=100&height=30"), headers=served.browser) as ws:
            received, deadline = b"", time.monotonic() + START_TIMEOUT
            while HOME_TEXT not in ANSI.sub(b"", received).decode("utf-8", "replace"):
                assert time.monotonic() < deadline, "the app never showed Home"
                msg = await ws.receive(timeout=START_TIMEOUT)
                received += msg.data if msg.type == aiohttp.WSMsgType.BINARY else b""
            started = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            while proc.poll() is None and time.monotonic() - started < 60:
                if ws.closed:
                    await asyncio.sleep(0.1)
                    continue
                try:  # reading answers the server's close, as a browser does
                    await ws.receive(timeout=0.1)
                except TimeoutError:
                    pass
            return time.monotonic() - started

    try:  # the banner comes once the port listens
        took = asyncio.run(connected_then_stopped())
    finally:
        if proc.poll() is None:
            proc.kill()
        out, _ = proc.communicate()
    assert proc.returncode == 0 and b"Traceback" not in out, out.decode(errors="replace")
    assert took < 10, f"serve took {took:.1f} s to stop with a tab connected"
