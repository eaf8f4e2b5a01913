"""The HTTP/1.1 transport under our openai clients: keep-alive sockets and little else.

A chat call is one POST with a JSON body to one host, answered by a JSON body or a stream
of server-sent events. The transports httpx and openai ship (httpcore; aiohttp behind an
adapter) each rebuild a URL, a header map and a timeout object per request, and pass every
piece of an answer through several layers of buffering: a third of the model layer's CPU
per call in benchmarks/runner_bench.py. This transport writes the request's own bytes to a
socket kept per host and parses the answer from the socket's buffer: a body of known length
comes back whole with its head; a chunked stream gives, at each step, every chunk that has
arrived, and a timer is set only when it has to wait.

It speaks HTTP/1.1 over TCP, with TLS for https, and raises httpx's exceptions, which openai
turns into its own (APIConnectionError, APITimeoutError). It connects directly: an endpoint
behind a proxy (core/proxies.py) gets httpx's own transport instead.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import AsyncIterator

import httpx2

KEEPALIVE_SECONDS = 5.0
"""An idle socket older than this is closed rather than reused (servers drop theirs too)."""

MAX_IDLE = 256
"""Idle sockets kept per host; more are closed when their answer ends."""

WHOLE_BODY = 1024 * 1024
"""An answer of known length up to this size is read with its head, in one step."""

MAX_HEAD = 256 * 1024
"""The longest status line and headers accepted from a server."""

_PAUSE_AT = 4 * 1024 * 1024
"""Unread bytes at which the socket stops reading until they are taken."""

_NO_BODY = frozenset({204, 304})


class _Closed(Exception):
    """The server closed the socket; `before_answer`: before a byte of the answer arrived."""

    def __init__(self, before_answer: bool, error: Exception | None = None) -> None:
        why = f" ({type(error).__name__}: {error})" if error is not None else ""
        super().__init__(f"the server closed the connection before the answer was whole{why}")
        self.before_answer = before_answer


class _Socket(asyncio.Protocol):
    """One connection to one host: the bytes received and not yet parsed, and a way to wait for more."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.error: Exception | None = None
        self.idle_since = 0.0
        self._waiter: asyncio.Future[None] | None = None
        self._paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not an asyncio.Transport subclass

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > _PAUSE_AT and self.transport is not None and not self._paused:
            self._paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.closed = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.error = exc
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def take(self, n: int) -> bytes:
        """The first n buffered bytes, removed from the buffer."""
        data = bytes(self.buffer[:n])
        del self.buffer[:n]
        if self._paused and len(self.buffer) < _PAUSE_AT // 2 and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()
        return data

    async def more(self, timeout: float | None, *, started: bool = True) -> None:
        """Wait until more bytes arrive (TimeoutError after `timeout`); _Closed if none will.
        started: part of the answer was read (if not, the server may have dropped a kept socket)."""
        if self.closed:
            raise _Closed(before_answer=not started and not self.buffer, error=self.error)
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        # A timer that fails the waiter: asyncio.timeout() would cancel the task and take the
        # cancel back, twice the work for every wait of every answer.
        timer = None if timeout is None else loop.call_later(timeout, _expire, waiter)
        try:
            await waiter
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()

    def send(self, data: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            raise _Closed(before_answer=True)
        self.transport.write(data)

    def usable(self, now: float) -> bool:
        return (not self.closed and not self.buffer and self.transport is not None
                and not self.transport.is_closing() and now - self.idle_since < KEEPALIVE_SECONDS)

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())


_SOCKET_ERRORS = (TimeoutError, _Closed, OSError)


def _mapped(exc: BaseException, timeout_kind: type[httpx2.TimeoutException]) -> httpx2.TransportError:
    """A socket failure (one of _SOCKET_ERRORS) as the httpx exception openai turns into its own."""
    if isinstance(exc, TimeoutError):
        return timeout_kind(str(exc) or "timed out")
    if isinstance(exc, _Closed):
        return httpx2.RemoteProtocolError(str(exc))
    kind = httpx2.ConnectError if timeout_kind is httpx2.ConnectTimeout else httpx2.ReadError
    return kind(f"{type(exc).__name__}: {exc}")


class _Head:
    """An answer's status line and headers, and what they say of its body."""

    def __init__(self, raw: bytes) -> None:
        self.ascii = raw.isascii()
        lines = raw.split(b"\r\n")
        parts = lines[0].split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise httpx2.RemoteProtocolError(f"not an HTTP/1.x status line: {lines[0][:60]!r}")
        self.status = int(parts[1])
        self.reason = parts[2] if len(parts) > 2 else b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.length: int | None = None
        self.chunked = self.closing = self.encoded = False
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if not sep:
                raise httpx2.RemoteProtocolError(f"bad header line {line[:60]!r}")
            name, value = name.strip(), value.strip()
            self.headers.append((name, value))
            lowered = name.lower()
            if lowered == b"content-length":
                if not value.isdigit():
                    raise httpx2.RemoteProtocolError(f"bad Content-Length {value[:40]!r}")
                self.length = int(value)
            elif lowered == b"transfer-encoding":
                self.chunked = b"chunked" in value.lower()
            elif lowered == b"connection":
                self.closing = b"close" in value.lower()
            elif lowered == b"content-encoding":
                self.encoded = value.lower() not in (b"", b"identity")
        if self.chunked:
            self.length = None


async def _read_head(sock: _Socket, timeout: float | None) -> _Head:
    """The next final answer's head (1xx interim answers are skipped)."""
    interim = False
    while True:
        end = sock.buffer.find(b"\r\n\r\n")
        if end < 0:
            if len(sock.buffer) > MAX_HEAD:
                raise httpx2.RemoteProtocolError("the server sent a header block that is too long")
            await sock.more(timeout, started=interim)
            continue
        head = _Head(sock.take(end + 4)[:-4])
        if not 100 <= head.status < 200 or head.status == 101:
            return head
        interim = True


async def _read_exactly(sock: _Socket, n: int, timeout: float | None) -> bytes:
    while len(sock.buffer) < n:
        await sock.more(timeout)
    return sock.take(n)


def _chunks(sock: _Socket) -> tuple[list[bytes], bool]:
    """The payloads of the whole chunks in the buffer, and whether the last (empty) one came."""
    out: list[bytes] = []
    buf = sock.buffer
    at = 0
    while True:
        eol = buf.find(b"\r\n", at)
        if eol < 0:
            break
        try:
            size = int(bytes(buf[at:eol]).split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise httpx2.RemoteProtocolError(f"bad chunk size line {bytes(buf[at:eol])[:40]!r}") from None
        if size == 0:  # the last chunk, then optional trailers and an empty line
            trailers = buf.find(b"\r\n\r\n", eol)
            if trailers < 0 and buf[eol:eol + 4] != b"\r\n\r\n":
                break
            done_at = (trailers if trailers >= 0 else eol) + 4
            sock.take(done_at)
            return out, True
        if len(buf) < eol + 2 + size + 2:
            break
        out.append(bytes(buf[eol + 2:eol + 2 + size]))
        at = eol + 2 + size + 2
    if at:
        sock.take(at)
    return out, False


class _Body(httpx2.AsyncByteStream):
    """A streamed body as it arrives; the socket goes back to the pool once it is read whole.

    Where the reading stands is kept here, not in the iterator: openai stops reading at a
    stream's [DONE] and then drains the rest with a new iterator, which must find the body
    already whole rather than wait for bytes that will not come.

    Once the body has arrived whole, its response is closed before its last bytes are handed
    over: a reader that stops at the end of its data (openai at [DONE]) then finds it closed
    and skips its drain, a tenth of a streamed call's CPU (two anyio scopes and a timer)."""

    def __init__(self, transport: LeanTransport, key: tuple[str, str, int], sock: _Socket, head: _Head,
                 read_timeout: float | None) -> None:
        self._transport, self._key, self._head = transport, key, head
        self._sock: _Socket | None = sock
        self._timeout = read_timeout
        self._left = head.length  # bytes still to come of a body of known length
        self._whole = False
        self._until: float | None = None  # set by end_within: when to stop waiting for the body's end
        self.response: httpx2.Response | None = None

    def end_within(self, seconds: float) -> None:
        """The reader has what it wants (a stream's [DONE]): wait at most `seconds` more for the
        body's end, then stop without it. A server that holds the body open would otherwise keep
        a whole reply waiting for its timeout; a socket whose body did not end is closed, not kept."""
        self._until = time.monotonic() + seconds

    async def __aiter__(self) -> AsyncIterator[bytes]:
        sock, head = self._sock, self._head
        while sock is not None and not self._whole:
            if head.chunked:
                pieces, self._whole = _chunks(sock)
                data = b"".join(pieces)
            elif self._left is not None:
                data = sock.take(min(self._left, len(sock.buffer)))
                self._left -= len(data)
                self._whole = not self._left
            else:  # the body runs to the close of the connection
                data = sock.take(len(sock.buffer))
                self._whole = sock.closed
            if self._whole and self.response is not None:
                await self.response.aclose()
            if data:
                yield data
            if not self._whole:
                until = self._until
                try:
                    await sock.more(self._timeout if until is None else max(0.0, until - time.monotonic()))
                except _Closed as exc:
                    if until is not None:
                        return
                    if head.chunked or self._left is not None:
                        raise _mapped(exc, httpx2.ReadTimeout) from exc
                    self._whole = True  # a body without a length ends with the connection
                except _SOCKET_ERRORS as exc:
                    if until is not None:
                        return
                    raise _mapped(exc, httpx2.ReadTimeout) from exc

    async def aclose(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:  # unread bytes would be taken for the next answer on the socket
            keep = self._whole and not self._head.closing and (self._left is not None or self._head.chunked)
            self._transport._release(self._key, sock, keep=keep)


def end_within(stream: object, seconds: float) -> None:
    """Tell a body of ours (`_Body.end_within`) that its reader is done with it; any other
    stream is left to its own ways."""
    if isinstance(stream, _Body):
        stream.end_within(seconds)


class LeanTransport(httpx2.AsyncBaseTransport):
    """HTTP/1.1 with keep-alive on bare asyncio sockets, for one client's requests."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self._tls = tls  # None: the default context, made on the first https connection (it reads the CA files)
        self._idle: dict[tuple[str, str, int], list[_Socket]] = {}
        self._closed = False

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if self._closed:
            raise RuntimeError("the transport is closed")
        url = request.url
        if url.scheme not in ("http", "https"):
            raise httpx2.UnsupportedProtocol(f"unsupported URL scheme {url.scheme!r}")
        key = (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80))
        timeouts = request.extensions.get("timeout") or {}
        data = await _request_bytes(request)
        sock = self._reuse(key)
        if sock is not None:
            try:
                return await self._exchange(key, sock, data, request, timeouts.get("read"), kept=True)
            except _Dropped:
                pass  # the server had closed the kept socket before answering: a new one
        sock = await self._connect(key, timeouts.get("connect"), request)
        return await self._exchange(key, sock, data, request, timeouts.get("read"), kept=False)

    def _reuse(self, key: tuple[str, str, int]) -> _Socket | None:
        idle = self._idle.get(key)
        now = time.monotonic()
        while idle:
            sock = idle.pop()
            if sock.usable(now):
                return sock
            sock.close()
        return None

    async def _connect(self, key: tuple[str, str, int], timeout: float | None, request: httpx2.Request) -> _Socket:
        scheme, host, port = key
        tls = None
        if scheme == "https":
            if self._tls is None:
                self._tls = ssl.create_default_context()
            tls = self._tls
        sni = request.extensions.get("sni_hostname")
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                _, sock = await loop.create_connection(
                    _Socket, host, port, ssl=tls, server_hostname=(sni or host) if tls else None)
        except _SOCKET_ERRORS as exc:
            raise _mapped(exc, httpx2.ConnectTimeout) from exc
        return sock

    async def _exchange(self, key: tuple[str, str, int], sock: _Socket, data: bytes,
                        request: httpx2.Request, read_timeout: float | None, *, kept: bool) -> httpx2.Response:
        """Send the request and read the answer's head. A body of known length (a whole chat
        answer, an error) is read with it and the socket goes back to the pool; a stream is
        read by whoever reads the answer."""
        try:
            sock.send(data)
            head = await _read_head(sock, read_timeout)
            if request.method == "HEAD" or head.status in _NO_BODY:
                head.length, head.chunked = 0, False
            body = None
            if head.length is not None and head.length <= WHOLE_BODY:
                body = await _read_exactly(sock, head.length, read_timeout)
        except _SOCKET_ERRORS as exc:
            sock.close()
            if kept and isinstance(exc, _Closed) and exc.before_answer:
                raise _Dropped from exc
            raise _mapped(exc, httpx2.ReadTimeout) from exc
        except BaseException:
            sock.close()
            raise
        extensions = {"http_version": b"HTTP/1.1", "reason_phrase": head.reason}
        if body is not None:
            self._release(key, sock, keep=not head.closing)
            response = httpx2.Response(head.status, headers=head.headers, stream=httpx2.ByteStream(body),
                                       request=request, extensions=extensions)
            if not head.encoded:  # what reading it would give, without a decoder and a chunker per answer
                response._content = body
        else:
            stream = _Body(self, key, sock, head, read_timeout)
            response = stream.response = httpx2.Response(head.status, headers=head.headers, stream=stream,
                                                         request=request, extensions=extensions)
        if head.ascii:  # httpx would find that out by decoding every header, once per response
            response.headers.encoding = "ascii"
        return response

    def _release(self, key: tuple[str, str, int], sock: _Socket, *, keep: bool) -> None:
        """An answer read whole: its socket waits for the next request, or closes."""
        idle = self._idle.setdefault(key, [])
        if not keep or self._closed or sock.closed or len(idle) >= MAX_IDLE:
            sock.close()
            return
        sock.idle_since = time.monotonic()
        idle.append(sock)

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, {}
        for sock in (s for socks in idle.values() for s in socks):
            sock.close()


class _Dropped(Exception):
    """A kept socket the server had closed: the request never reached it."""


async def _request_bytes(request: httpx2.Request) -> bytes:
    """The request as it goes on the wire. A body that was a stream is read first and sent
    with its length."""
    try:
        body = request.content
        headers = request.headers.raw
    except httpx2.RequestNotRead:
        body = await request.aread()
        headers = [(k, v) for k, v in request.headers.raw
                   if k.lower() not in (b"transfer-encoding", b"content-length")]
        headers.append((b"Content-Length", str(len(body)).encode()))
    lines = [b"%s %s HTTP/1.1" % (request.method.encode(), request.url.raw_path)]
    lines.extend(b"%s: %s" % (k, v) for k, v in headers)
    return b"\r\n".join(lines) + b"\r\n\r\n" + body
