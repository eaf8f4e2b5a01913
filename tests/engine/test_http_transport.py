"""The HTTP/1.1 transport under our openai clients, against a server that writes exact bytes.

Each test plays a server on 127.0.0.1 that answers every request with scripted raw bytes,
split and paced as a real server or a broken one would send them, and talks to it through
the real openai client over LeanTransport.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import ssl
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx2
import openai
import pytest
import trustme

from pingpong.core.http_transport import LeanTransport
from pingpong.core.openai_client import LeanAsyncOpenAI, LeanHttpClient

Answer = Callable[[asyncio.StreamWriter, int], "asyncio.Future[None] | None"]
"""What the server does for request number n on a connection: writes (and may close)."""

BODY = {"model": "m", "messages": [{"role": "user", "content": "Hi"}]}


def completion(text: str) -> bytes:
    return json.dumps({"id": "c", "object": "chat.completion", "model": "m", "created": 0,
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop"}]}).encode()


def whole(body: bytes, *, status: str = "200 OK", extra: str = "") -> bytes:
    return (f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"{extra}\r\n").encode() + body


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def sse(text: str) -> bytes:
    event = {"id": "c", "object": "chat.completion.chunk", "model": "m", "created": 0,
             "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
    return b"data: " + json.dumps(event).encode() + b"\n\n"


class RawServer:
    """Reads each request whole (head and Content-Length body), then runs the script."""

    def __init__(self, script: Callable[[asyncio.StreamWriter, int, int], object]) -> None:
        self.script = script
        self.connections = 0
        self.requests: list[bytes] = []
        self.url = ""

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        conn, n = self.connections, 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                self.requests.append(head + await reader.readexactly(length))
                n += 1
                result = self.script(writer, conn, n)
                if asyncio.iscoroutine(result):
                    await result
                if writer.is_closing():
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            writer.close()


@asynccontextmanager
async def raw_server(script: Callable[[asyncio.StreamWriter, int, int], object],
                     tls: ssl.SSLContext | None = None) -> AsyncIterator[RawServer]:
    srv = RawServer(script)
    server = await asyncio.start_server(srv._serve, "127.0.0.1", 0, ssl=tls)
    srv.url = f"http{'s' if tls else ''}://localhost:{server.sockets[0].getsockname()[1]}/v1"
    try:
        yield srv
    finally:
        server.close()


@asynccontextmanager
async def client(url: str, timeout: float = 5.0, tls: ssl.SSLContext | None = None) -> AsyncIterator[LeanAsyncOpenAI]:
    http = LeanHttpClient(transport=LeanTransport(tls))  # as core.llm builds it
    async with LeanAsyncOpenAI(base_url=url, api_key="k", max_retries=0, timeout=timeout, http_client=http) as c:
        yield c


async def post(c: LeanAsyncOpenAI, timeout: float = 5.0) -> object:
    return await c.post_json("/chat/completions", BODY, timeout=timeout)


async def streamed_text(c: LeanAsyncOpenAI) -> tuple[str, bool]:
    stream = await c.post_json("/chat/completions", {**BODY, "stream": True}, timeout=5.0, stream=True)
    parts = [piece["choices"][0]["delta"]["content"] async for piece in stream if piece.get("choices")]
    await stream.close()
    return "".join(parts), stream.done


async def test_answers_share_one_kept_socket():
    def script(w, conn, n):
        w.write(whole(completion(f"answer {n}")))

    async with raw_server(script) as srv, client(srv.url) as c:
        texts = [(await post(c))["choices"][0]["message"]["content"] for _ in range(3)]
    assert texts == ["answer 1", "answer 2", "answer 3"]
    assert srv.connections == 1
    first = srv.requests[0]
    assert first.startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    assert json.loads(first.split(b"\r\n\r\n", 1)[1]) == BODY


async def test_https_with_the_endpoint_s_certificates():
    ca = trustme.CA()
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(served)
    trusted = ssl.create_default_context()
    ca.configure_trust(trusted)

    def script(w, conn, n):
        w.write(whole(completion(f"secure {n}")))

    async with raw_server(script, tls=served) as srv:
        async with client(srv.url, tls=trusted) as c:
            texts = [(await post(c))["choices"][0]["message"]["content"] for _ in range(2)]
        async with client(srv.url) as c:  # the system's certificates do not know this CA
            with pytest.raises(openai.APIConnectionError) as err:
                await post(c)
    assert texts == ["secure 1", "secure 2"] and srv.connections == 1  # one kept TLS socket
    assert "CERTIFICATE_VERIFY_FAILED" in str(err.value.__cause__)


async def test_a_body_in_pieces_and_a_stream_in_pieces_arrive_whole():
    async def script(w, conn, n):
        if b'"stream":true' not in srv.requests[-1]:  # a whole answer whose head and body come in three writes
            data = whole(completion("split across writes"))
            for part in (data[:10], data[10:90], data[90:]):
                w.write(part)
                await w.drain()
                await asyncio.sleep(0.01)
            return
        w.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        body = b"".join(chunk(sse(word)) for word in ("One ", "two ", "three.")) + chunk(b"data: [DONE]\n\n")
        body += b"0\r\n\r\n"
        for i in range(0, len(body), 7):  # chunk sizes, payloads and the end cut anywhere
            w.write(body[i:i + 7])
            await w.drain()
            await asyncio.sleep(0.001)

    async with raw_server(script) as srv, client(srv.url) as c:
        assert (await post(c))["choices"][0]["message"]["content"] == "split across writes"
        assert await streamed_text(c) == ("One two three.", True)
        assert (await post(c))["choices"][0]["message"]["content"] == "split across writes"
    assert srv.connections == 1  # the stream, read to its end, left the socket for the next answer


async def test_a_stream_that_arrived_whole_is_closed_before_its_reader_reaches_done():
    """Then openai, which stops reading at [DONE], has nothing left to drain; the socket is kept."""
    def script(w, conn, n):
        if n == 1:
            body = b"".join(chunk(sse(word)) for word in ("All ", "at ", "once.")) + chunk(b"data: [DONE]\n\n")
            w.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + body + b"0\r\n\r\n")
        else:
            w.write(whole(completion("next")))

    async with raw_server(script) as srv, client(srv.url) as c:
        stream = await c.post_json("/chat/completions", {**BODY, "stream": True}, timeout=5.0, stream=True)
        seen = [(piece["choices"][0]["delta"]["content"], stream.response.is_closed) async for piece in stream]
        await stream.close()
        assert (await post(c))["choices"][0]["message"]["content"] == "next"
    assert seen == [("All ", True), ("at ", True), ("once.", True)]
    assert stream.done and srv.connections == 1


async def test_a_socket_the_server_dropped_while_idle_is_replaced():
    def script(w, conn, n):
        w.write(whole(completion(f"conn {conn}")))
        if conn == 1:
            w.close()  # after answering: the client keeps a socket that is already closed

    async with raw_server(script) as srv, client(srv.url) as c:
        assert (await post(c))["choices"][0]["message"]["content"] == "conn 1"
        await asyncio.sleep(0.05)
        assert (await post(c))["choices"][0]["message"]["content"] == "conn 2"


async def test_connection_close_interim_answers_no_content_and_gzip():
    answers = [
        whole(completion("closing"), extra="Connection: close\r\n"),
        b"HTTP/1.1 100 Continue\r\n\r\n" + whole(completion("after an interim answer")),
        whole(gzip.compress(completion("unzipped")), extra="Content-Encoding: gzip\r\n"),
    ]

    def script(w, conn, n):
        w.write(answers[len(srv.requests) - 1])

    async with raw_server(script) as srv, client(srv.url) as c:
        texts = [(await post(c))["choices"][0]["message"]["content"] for _ in answers]
    assert texts == ["closing", "after an interim answer", "unzipped"]
    assert srv.connections == 2  # the first answer said close


async def test_a_body_that_runs_to_the_close():
    def script(w, conn, n):
        w.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + completion("until the end"))
        w.close()

    async with raw_server(script) as srv, client(srv.url) as c:
        data = await post(c)
    assert data["choices"][0]["message"]["content"] == "until the end"


async def test_an_error_status_keeps_its_body_and_headers():
    def script(w, conn, n):
        w.write(whole(b'{"error": {"message": "slow down"}}', status="429 Too Many Requests",
                      extra="Retry-After: 7\r\n"))

    async with raw_server(script) as srv, client(srv.url) as c:
        with pytest.raises(openai.RateLimitError) as err:
            await post(c)
    assert err.value.response.headers["retry-after"] == "7"
    assert "slow down" in str(err.value)


@pytest.mark.parametrize("answer", [
    b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"cut\": ",  # a body cut short
    b"NOT HTTP AT ALL\r\n\r\n",  # a status line that is not HTTP
    b"HTTP/1.1 200 OK\r\nContent-Length: many\r\n\r\n",  # a length that is not a number
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",  # a chunk size that is not hex
])
async def test_broken_answers_are_connection_errors(answer):
    def script(w, conn, n):
        w.write(answer)
        w.close()

    async with raw_server(script) as srv, client(srv.url) as c:
        with pytest.raises(openai.APIConnectionError) as err:
            await post(c)
    assert not isinstance(err.value, openai.APITimeoutError)
    assert isinstance(err.value.__cause__, httpx2.TransportError)


async def test_a_server_that_stays_silent_times_out():
    async def script(w, conn, n):
        await asyncio.sleep(5)

    async with raw_server(script) as srv, client(srv.url, timeout=0.2) as c:
        with pytest.raises(openai.APITimeoutError):
            await post(c, timeout=0.2)


async def test_nobody_listening_is_a_connection_error():
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    async with client(f"http://127.0.0.1:{port}/v1") as c:
        with pytest.raises(openai.APIConnectionError):
            await post(c)


async def test_a_stream_left_early_does_not_leave_its_bytes_for_the_next_answer():
    async def script(w, conn, n):
        if len(srv.requests) == 1:
            w.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            w.write(chunk(sse("first ")))
            await w.drain()
            await asyncio.sleep(0.05)
            w.write(chunk(sse("late words")))  # still coming when the client has stopped reading
            return
        w.write(whole(completion(f"fresh on {conn}")))

    async with raw_server(script) as srv, client(srv.url) as c:
        stream = await c.post_json("/chat/completions", {**BODY, "stream": True}, timeout=5.0, stream=True)
        async for _ in stream:
            break
        await stream.close()
        data = await post(c)
    assert data["choices"][0]["message"]["content"] == "fresh on 2"


STREAM_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


async def test_an_error_event_in_a_stream_is_openai_s_api_error():
    def script(w, conn, n):
        error = b'data: {"error": {"message": "the model fell over", "type": "server_error"}}\n\n'
        w.write(STREAM_HEAD + chunk(sse("Half ")) + chunk(error) + b"0\r\n\r\n")

    async with raw_server(script) as srv, client(srv.url) as c:
        with pytest.raises(openai.APIError, match="the model fell over") as err:
            await streamed_text(c)
    assert not isinstance(err.value, openai.APIConnectionError)


async def test_what_follows_done_is_read_so_the_socket_is_kept():
    """[DONE] and the body's last chunk may come in two reads: the socket goes back to the pool
    only once the body is read to its end."""
    async def script(w, conn, n):
        if n == 1:
            w.write(STREAM_HEAD + chunk(sse("Done ")) + chunk(sse("soon.")) + chunk(b"data: [DONE]\n\n"))
            await w.drain()
            await asyncio.sleep(0.05)
            w.write(b"0\r\n\r\n")
        else:
            w.write(whole(completion("next")))

    async with raw_server(script) as srv, client(srv.url) as c:
        assert await streamed_text(c) == ("Done soon.", True)
        assert (await post(c))["choices"][0]["message"]["content"] == "next"
    assert srv.connections == 1
