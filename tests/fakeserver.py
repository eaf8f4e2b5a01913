"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks.

The engine is tested through the real `openai` client, so faults have to
happen on the wire: status codes, Retry-After headers, streams cut mid-way,
slow first bytes. This server runs in a background thread (stdlib
ThreadingHTTPServer) and is usable from sync and async code alike:

    with FakeServer() as srv:                 # or: async with FakeServer() as srv:
        srv.script(rate_limit(0.2), reply("hello"))
        ... AsyncOpenAI(base_url=srv.base_url, api_key="x") ...
        assert srv.requests[0].body["temperature"] == 0.6

What it answers, in order:
1. the next scripted behaviour for the request's model (``script(..., model="m")``),
2. else the next behaviour of the shared FIFO (``script(...)``),
3. else the default: with ``faults`` set, a seeded random 429 / 500 / cut,
   otherwise ``responder(body)`` (a callable you pass; it returns a str or a
   behaviour) or the built-in ``default_responder``.

Behaviours: ``reply(text, ...)`` (streamed or JSON, as the request asks),
``error(status, ...)``, ``rate_limit(retry_after)``, ``quota_exhausted()``,
``server_error()``, ``bad_request()``, ``cut(text, after=2)``, ``raw(body, status, content_type)``.
GET /models lists ``models``; ``models_status`` makes it answer an error instead and ``models_gate``
(a threading.Event) holds its answer until the event is set.
Global knobs: ``latency`` (seconds before the first byte of every answer),
``chunk_delay`` (seconds between stream chunks), ``faults=Faults(...)``.

The built-in default responder looks at the text of all request messages:
- contains ``in_character_score`` -> judge JSON ``{"scores": [...]}`` with one
  entry per player turn. Turns are 1..the largest of: numbers written as
  "turn N" / "[PLAYER TURN N]" / "ход N" in the text, and the number of
  assistant messages; at least 1. Over-counting is harmless (the engine
  ignores entries for turns that do not exist).
- contains ``next_user_utterance`` -> pingpong-v1 tester JSON: the refusal flag, three 1-10 scores
  (stay_in_character 7, language_fluency 8, entertainment 6) and ``next_user_utterance``.
- contains ``next_utterance`` -> ``{"next_utterance": "..."}``.
- otherwise a short plain player line naming the model and a counter.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

__all__ = [
    "FakeServer", "Faults", "RecordedRequest", "Reply", "Error", "Cut",
    "reply", "error", "rate_limit", "quota_exhausted", "server_error", "bad_request", "cut",
    "default_responder", "find_turns", "judge_json", "split_text",
]


# --------------------------------------------------------------------------- behaviours


@dataclass
class Reply:
    """A normal answer. usage=False omits the usage chunk / field; finish_reason=None leaves it out
    (some servers never send one); done=False ends a stream cleanly but without ``[DONE]``."""

    text: str
    usage: bool = True
    delay: float = 0.0          # seconds before the first byte
    chunk_delay: float | None = None  # seconds between chunks (None: server default)
    finish_reason: str | None = "stop"
    words_per_chunk: int = 3
    done: bool = True
    headers: dict[str, str] = field(default_factory=dict)  # sent with a whole (unstreamed) answer
    reasoning: str = ""         # sent apart from the content first, as a reasoning parser does (reasoning_content)
    hold: float = 0.0           # seconds a stream's body stays open after [DONE] (a proxy that holds it)
    pieces: tuple[str, ...] = ()  # a stream's chunks as given (they join to `text`), else words_per_chunk words each


@dataclass
class Error:
    """An HTTP error with an OpenAI-shaped body."""

    status: int
    message: str = "fake error"
    code: str | None = None
    type: str | None = None
    retry_after: str | float | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)  # more headers (a redirect's Location)


@dataclass
class Cut:
    """Stream `after` chunks of `text`, then drop the connection without [DONE]."""

    text: str = "This answer will never be finished because the line drops"
    after: int = 2
    delay: float = 0.0


@dataclass
class Raw:
    """A whole answer exactly as given: its status, content type and bytes (an HTML page with a 200,
    an error object where a completion belongs, bytes that are not UTF-8, a usage that lies)."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    delay: float = 0.0


Behaviour = Reply | Error | Cut | Raw


def reply(text: str, **kw: Any) -> Reply:
    return Reply(text, **kw)


def error(status: int, message: str = "fake error", **kw: Any) -> Error:
    return Error(status, message, **kw)


def rate_limit(retry_after: str | float | None = 0.2, message: str = "rate limited") -> Error:
    return Error(429, message, code="rate_limit_exceeded", type="requests", retry_after=retry_after)


def quota_exhausted() -> Error:
    return Error(429, "You exceeded your current quota", code="insufficient_quota", type="insufficient_quota")


def server_error(status: int = 500) -> Error:
    return Error(status, "internal error", type="server_error")


def bad_request(message: str = "invalid request") -> Error:
    return Error(400, message, code="invalid_request", type="invalid_request_error")


def cut(text: str = Cut.text, after: int = 2) -> Cut:
    return Cut(text, after)


def raw(body: bytes | str | dict, status: int = 200, content_type: str = "application/json") -> Raw:
    """A dict is sent as its JSON; a str as UTF-8."""
    data = json.dumps(body).encode() if isinstance(body, dict) else body.encode() if isinstance(body, str) else body
    return Raw(data, status, content_type)


@dataclass
class Faults:
    """Seeded random faults for the default answers (runner tests, benchmarks)."""

    p429: float = 0.0
    p500: float = 0.0
    pcut: float = 0.0
    retry_after: float = 0.05
    seed: int = 0


# --------------------------------------------------------------------------- default responder

_TURN_RE = re.compile(r"(?:\bturn|\bход)\W{0,3}(\d{1,2})\b", re.IGNORECASE)


def _all_text(body: dict) -> str:
    parts = []
    for m in body.get("messages") or []:
        c = m.get("content")
        if isinstance(c, str):
            parts.append(c)
        elif isinstance(c, list):
            parts.extend(p.get("text", "") for p in c if isinstance(p, dict))
    return "\n".join(parts)


def find_turns(body: dict) -> list[int]:
    """The player turns a judge request asks about (see the module docstring)."""
    text = _all_text(body)
    numbers = [int(n) for n in _TURN_RE.findall(text) if 1 <= int(n) <= 50]
    assistants = sum(1 for m in body.get("messages") or [] if m.get("role") == "assistant")
    top = max([1, assistants, *numbers])
    return list(range(1, top + 1))


def judge_json(turns: list[int]) -> str:
    scores = [
        {
            "turn": t,
            "is_refusal_explanation": "The reply answers in the role.",
            "is_refusal": False,
            "in_character_explanation": "Fits the description.",
            "in_character_score": 4,
            "entertaining_explanation": "Lively enough.",
            "entertaining_score": 3 + t % 2,
            "fluency_explanation": "No language errors.",
            "fluency_score": 5,
        }
        for t in turns
    ]
    return json.dumps({"scores": scores}, ensure_ascii=False)


def default_responder(body: dict, counter: int = 0) -> str:
    """Answer by inspecting the prompt: judge JSON, interrogator JSON or a player line."""
    text = _all_text(body)
    if "in_character_score" in text:
        return judge_json(find_turns(body))
    if "next_user_utterance" in text:
        return json.dumps({"is_refusal_explanation": "Plays along.", "is_refusal": False,
                           "stay_in_character_explanation": "Stays in role.", "stay_in_character": 7,
                           "language_fluency_explanation": "Clean.", "language_fluency": 8,
                           "entertainment_explanation": "Lively enough.", "entertainment": 6,
                           "next_user_utterance": f"Tell me more, please ({counter})."})
    if "next_utterance" in text:
        return json.dumps({"next_utterance": f"What do you do all day? ({counter})"})
    return f"Reply {counter} from {body.get('model', 'model')}: I stay who I am."


# --------------------------------------------------------------------------- recording


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]      # lower-case names
    body: dict | None
    time: float = field(default_factory=time.monotonic)


class _Cancelled(Exception):
    """The server is stopping: abandon the answer."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # small SSE writes must not wait for delayed ACKs
    server: "_HTTPServer"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # -- helpers
    def _fake(self) -> "FakeServer":
        return self.server.fake

    def _send_json(self, status: int, obj: Any, extra: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _sleep(self, seconds: float) -> None:
        if seconds > 0 and self._fake()._stop.wait(seconds):
            raise _Cancelled

    # -- routes
    def do_GET(self) -> None:
        fake = self._fake()
        fake._record(RecordedRequest("GET", self.path, {k.lower(): v for k, v in self.headers.items()}, None))
        if self.path.rstrip("/").endswith("/models"):
            while fake.models_gate is not None and not fake.models_gate.wait(0.02):
                if fake._stop.is_set():
                    self.close_connection = True
                    return
            if fake.models_status != 200:
                self._send_json(fake.models_status, {"error": {"message": "no list", "type": "not_found"}})
                return
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in fake.models]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, {"error": {"message": "not found", "type": "not_found"}})

    def do_POST(self) -> None:
        fake = self._fake()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        fake._record(RecordedRequest("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        if not self.path.rstrip("/").endswith("/chat/completions") or not isinstance(body, dict):
            self._send_json(404 if body is not None else 400,
                            {"error": {"message": "unsupported", "type": "invalid_request_error"}})
            return
        fake._enter()
        try:
            self._answer(body, fake._next_behaviour(body))
        except _Cancelled:
            self.close_connection = True
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, OSError):
            fake._note_disconnect()
            self.close_connection = True
        finally:
            fake._leave()

    def _answer(self, body: dict, b: Behaviour) -> None:
        fake = self._fake()
        self._sleep(fake.latency + getattr(b, "delay", 0.0))
        if isinstance(b, Error):
            err = {"message": b.message, "type": b.type or "error", "param": None, "code": b.code}
            extra = dict(b.headers) if b.retry_after is None else {**b.headers, "Retry-After": str(b.retry_after)}
            self._send_json(b.status, {"error": err}, extra)
            return
        if isinstance(b, Raw):
            self.send_response(b.status)
            self.send_header("Content-Type", b.content_type)
            self.send_header("Content-Length", str(len(b.body)))
            self.end_headers()
            self.wfile.write(b.body)
            self.wfile.flush()
            return
        stream = bool(body.get("stream"))
        model = body.get("model", "fake")
        if isinstance(b, Cut):
            self._stream(body, Reply(b.text), cut_after=b.after)
            return
        if stream:
            self._stream(body, b)
            return
        usage = fake.usage_for(body, b.text) if b.usage else None
        obj = {
            "id": f"chatcmpl-{fake._counter}", "object": "chat.completion", "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": b.text},
                         "finish_reason": b.finish_reason, "logprobs": None}],
        }
        if b.reasoning:
            obj["choices"][0]["message"]["reasoning_content"] = b.reasoning
        if usage:
            obj["usage"] = usage
        self._send_json(200, obj, b.headers)

    def _stream(self, body: dict, b: Reply, cut_after: int | None = None) -> None:
        fake = self._fake()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        base = {"id": f"chatcmpl-{fake._counter}", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": body.get("model", "fake")}

        def event(choices: list, usage: dict | None = None) -> None:
            obj = dict(base, choices=choices)
            if usage is not None:
                obj["usage"] = usage
            self._chunk(b"data: " + json.dumps(obj).encode() + b"\n\n")

        delay = fake.chunk_delay if b.chunk_delay is None else b.chunk_delay
        event([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
        for piece in split_text(b.reasoning, b.words_per_chunk) if b.reasoning else ():
            event([{"index": 0, "delta": {"content": None, "reasoning_content": piece}, "finish_reason": None}])
        pieces = list(b.pieces) or split_text(b.text, b.words_per_chunk)
        for i, piece in enumerate(pieces):
            if cut_after is not None and i >= cut_after:
                break
            if i:
                self._sleep(delay)
            event([{"index": 0, "delta": {"content": piece}, "finish_reason": None}])
        if cut_after is not None:
            fake._note_cut()
            self.close_connection = True
            try:  # drop the line: no terminating chunk, no [DONE]
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if b.finish_reason is not None:
            event([{"index": 0, "delta": {}, "finish_reason": b.finish_reason}])
        if b.usage and (body.get("stream_options") or {}).get("include_usage"):
            event([], fake.usage_for(body, b.text))
        if b.done:
            self._chunk(b"data: [DONE]\n\n")
        self._sleep(b.hold)
        self._chunk(b"")


def split_text(text: str, words_per_chunk: int = 3) -> list[str]:
    """Cut text into stream pieces that join back to exactly the text."""
    words = re.findall(r"\s*\S+\s*", text) or [text]
    n = max(1, words_per_chunk)
    return ["".join(words[i:i + n]) for i in range(0, len(words), n)]


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128
    fake: "FakeServer"

    def get_request(self):  # track sockets so stop() can drop keep-alive connections
        conn, addr = super().get_request()
        with self.fake._lock:
            self.fake._conns.add(conn)
        return conn, addr

    def shutdown_request(self, request) -> None:
        with self.fake._lock:
            self.fake._conns.discard(request)
        super().shutdown_request(request)


# --------------------------------------------------------------------------- the server


class FakeServer:
    """OpenAI chat completions on 127.0.0.1:<random port>, in a thread. See module docstring."""

    def __init__(
        self,
        *,
        responder: Callable[[dict], str | Behaviour] | None = None,
        latency: float = 0.0,
        chunk_delay: float = 0.0,
        faults: Faults | None = None,
        models: list[str] | None = None,
    ) -> None:
        self.responder = responder
        self.latency = latency
        self.chunk_delay = chunk_delay
        self._faults: Faults | None = None
        self.faults = faults  # (re)seeds the fault generator
        self.models = models or ["fake-model"]
        self.models_status = 200  # what GET /models answers with (404: a server that lists no models)
        self.models_gate: threading.Event | None = None  # when set to an Event, GET /models waits for it
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.disconnects = 0   # client went away while we were writing an answer
        self.cuts = 0          # streams we cut on purpose
        self._counter = 0
        self._lock = threading.Lock()
        self._queue: list[Behaviour] = []
        self._by_model: dict[str, list[Behaviour]] = {}
        self._stop = threading.Event()
        self._conns: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def faults(self) -> Faults | None:
        return self._faults

    @faults.setter
    def faults(self, value: Faults | None) -> None:
        self._faults = value
        self._rng = random.Random(value.seed if value else 0)

    # -- lifecycle
    def start(self) -> "FakeServer":
        if self._httpd is not None:
            return self
        self._stop.clear()
        httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        httpd.fake = self
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01},
                                        name="fakeserver", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stop.set()
        httpd.shutdown()
        httpd.server_close()
        with self._lock:
            conns, self._conns = list(self._conns), set()
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=2)

    def __enter__(self) -> "FakeServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    async def __aenter__(self) -> "FakeServer":
        return self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await asyncio.to_thread(self.stop)

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting
    def script(self, *behaviours: Behaviour | str, model: str | None = None) -> "FakeServer":
        """Queue behaviours (a str means reply(str)); with model=, only for requests to that model."""
        items = [reply(b) if isinstance(b, str) else b for b in behaviours]
        with self._lock:
            (self._by_model.setdefault(model, []) if model else self._queue).extend(items)
        return self

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue) + sum(len(q) for q in self._by_model.values())

    # -- inspection
    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.method == "POST"]

    def wait_until(self, predicate: Callable[["FakeServer"], bool], timeout: float = 5.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate(self):
                return True
            time.sleep(0.01)
        return predicate(self)

    async def wait_until_async(self, predicate: Callable[["FakeServer"], bool], timeout: float = 5.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate(self):
                return True
            await asyncio.sleep(0.01)
        return predicate(self)

    def usage_for(self, body: dict, text: str) -> dict:
        prompt = max(1, len(_all_text(body).split()))
        completion = max(1, len(text.split()))
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    # -- internals (called from handler threads)
    def _record(self, r: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(r)

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _note_disconnect(self) -> None:
        with self._lock:
            self.disconnects += 1

    def _note_cut(self) -> None:
        with self._lock:
            self.cuts += 1

    def _next_behaviour(self, body: dict) -> Behaviour:
        with self._lock:
            self._counter += 1
            counter = self._counter
            q = self._by_model.get(body.get("model"))
            if q:
                return q.pop(0)
            if self._queue:
                return self._queue.pop(0)
            if self.faults:
                x = self._rng.random()
                f = self.faults
                if x < f.p429:
                    return rate_limit(f.retry_after)
                if x < f.p429 + f.p500:
                    return server_error()
                cut_now = x < f.p429 + f.p500 + f.pcut
            else:
                cut_now = False
        answer = self.responder(body) if self.responder else default_responder(body, counter)
        if isinstance(answer, str):
            answer = Reply(answer)
        if cut_now:
            return Cut(answer.text if isinstance(answer, Reply) else Cut.text)
        return answer
