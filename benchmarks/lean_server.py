"""A fake OpenAI chat server light enough to leave the CPU to the runner being measured.

tests/fakeserver.py (a thread per connection, http.server) records every request and plays
scripted faults; it costs about as much CPU per request as the runner does, so on a 2-core
machine it takes the core a second runner process would use (aiohttp's own server costs
about the same). This one answers the same way (tests.fakeserver.default_responder: judge
JSON, interrogator JSON or a player line; streamed when asked) from a bare asyncio protocol
on uvloop: keep-alive HTTP/1.1 POSTs with a Content-Length and nothing else. It records
nothing and plays no faults: only for benchmarks.

    python benchmarks/lean_server.py [--latency 0.005] [--chunk-delay 0] [--reply-words 0]
prints its base URL, then serves until stdin closes.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakeserver import default_responder, split_text  # noqa: E402

_COUNTER = itertools.count()


def _head(status: str, kind: str, length: int | None) -> bytes:
    size = f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked"
    return f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\n{size}\r\nConnection: keep-alive\r\n\r\n".encode()


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


_MODEL = re.compile(rb'"model":\s*"([^"]*)"')
_STREAM = re.compile(rb'"stream":\s*true')
_ASKS = (b"in_character_score", b"next_user_utterance", b"next_utterance")


def _skim(raw: bytes) -> dict:
    """As much of a request as default_responder reads. Only a judge's is parsed whole (its
    answer scores the turns the prompt names); for the rest, the words that say what is asked,
    the model and the stream flag are found in the bytes: parsing every transcript would cost
    this server more CPU than the runner it serves on a 2-core machine."""
    if b"in_character_score" in raw:
        return json.loads(raw)
    model = _MODEL.search(raw)
    asked = next((word.decode() for word in _ASKS[1:] if word in raw), "")
    return {"model": model.group(1).decode() if model else "fake", "stream": bool(_STREAM.search(raw)),
            "messages": [{"role": "user", "content": asked}]}


class Chat(asyncio.Protocol):
    """One connection: requests in, answers out after the latency, in order."""

    def __init__(self, latency: float, chunk_delay: float, reply_words: int) -> None:
        self.latency, self.chunk_delay, self.reply_words = latency, chunk_delay, reply_words
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not an asyncio.Transport subclass

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].decode("latin-1").lower()
            at = head.find("content-length:")
            length = int(head[at + 15:].split("\r\n", 1)[0]) if at >= 0 else 0
            if len(self.buffer) < end + 4 + length:
                return
            raw = self.buffer[end + 4:end + 4 + length]
            self.buffer = self.buffer[end + 4 + length:]
            asyncio.get_running_loop().call_later(self.latency, self.answer, raw)

    def answer(self, raw: bytes) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        n = next(_COUNTER)
        body = _skim(raw)
        if self.reply_words and body.get("model") == "player":
            text = " ".join(f"word{i}" for i in range(self.reply_words))
        else:
            text = default_responder(body, n)
        prompt = len(raw) // 4 or 1  # about a token per four bytes: the runner only stores it
        usage = {"prompt_tokens": prompt, "completion_tokens": len(text.split()) or 1,
                 "total_tokens": prompt + (len(text.split()) or 1)}
        base = {"id": f"chatcmpl-{n}", "created": int(time.time()), "model": body.get("model", "fake")}
        if not body.get("stream"):
            data = json.dumps(dict(base, object="chat.completion", usage=usage, choices=[
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}])).encode()
            transport.write(_head("200 OK", "application/json", len(data)) + data)
            return
        events = [[{"index": 0, "delta": {"content": piece}, "finish_reason": None}] for piece in split_text(text)]
        events.append([{"index": 0, "delta": {}, "finish_reason": "stop"}])

        def event(choices: list, extra: dict | None = None) -> bytes:
            obj = dict(base, object="chat.completion.chunk", choices=choices, **(extra or {}))
            return _chunk(b"data: " + json.dumps(obj).encode() + b"\n\n")

        tail = event([], {"usage": usage}) + _chunk(b"data: [DONE]\n\n") + _chunk(b"")
        if not self.chunk_delay:
            transport.write(_head("200 OK", "text/event-stream", None) + b"".join(map(event, events)) + tail)
            return
        transport.write(_head("200 OK", "text/event-stream", None) + event(events[0]))
        loop = asyncio.get_running_loop()
        for i, choices in enumerate(events[1:], 1):
            loop.call_later(i * self.chunk_delay, self._write, event(choices))
        loop.call_later(len(events) * self.chunk_delay, self._write, tail)

    def _write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)


async def serve(latency: float, chunk_delay: float = 0.0, reply_words: int = 0) -> None:
    """Serve on 127.0.0.1 (a free port) until stdin closes; the base URL goes to stdout first."""
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Chat(latency, chunk_delay, reply_words), "127.0.0.1", 0, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    print(f"http://127.0.0.1:{port}/v1", flush=True)
    await loop.run_in_executor(None, sys.stdin.read)
    server.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.005)
    ap.add_argument("--chunk-delay", type=float, default=0.0)
    ap.add_argument("--reply-words", type=int, default=0)
    opts = ap.parse_args()
    import uvloop

    uvloop.run(serve(opts.latency, opts.chunk_delay, opts.reply_words))


if __name__ == "__main__":
    main()
