"""Model access: one request in, one Completion out, with retries, streaming and limits.

Every OpenAI-compatible endpoint gets one AsyncOpenAI client (reused, its own
retries off) and one adaptive concurrency limiter. A call streams its answer,
reports every attempt through on_call (so retries are visible and partial text
can be discarded), and either returns the whole message or raises
ModelCallError. API keys never appear in errors or call records.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import random
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Literal, Protocol

from pingpong.core.config import api_key, check_ready, offline_spec, resolve
from pingpong.core.domain import OFFLINE, CallRecord, ModelSpec, SeatRole, finish_label
from pingpong.core.errors import UserError
from pingpong.core.reasoning import answer_of, split_reasoning
from pingpong.core.retry import BadAnswer, Failure, IncompleteStream, RetryPolicy, classify, timed_out
from pingpong.core.tokens import estimate_messages, estimate_tokens

if TYPE_CHECKING:
    import httpx2

ROLE_DEFAULTS: dict[str, dict[str, float]] = {
    "player": {"temperature": 0.6, "top_p": 0.9, "max_tokens": 1536},
    "interrogator": {"temperature": 0.8, "top_p": 0.95, "max_tokens": 1024},
    "judge": {"temperature": 0.1, "top_p": 0.95, "max_tokens": 4096},
}
"""Sampling and length limits per seat, as the published PingPong runs sent them."""

Task = Literal["player", "interrogator", "judge", "interrogator_judge",
               "dmt_generate", "dmt_check", "dmt_stop", "dmt_label", "pairwise", "scene_next"]

TASK_DEFAULTS: dict[str, dict[str, float]] = {
    "interrogator_judge": {"temperature": 0.1, "top_p": 0.9},  # PingPong v1's tester
    "dmt_check": {"temperature": 0.1, "top_p": 0.95},  # DMT's quality and stop checks
    "dmt_stop": {"temperature": 0.1, "top_p": 0.95},
    "scene_next": {"temperature": 0.3, "top_p": 0.95},  # a group scene's narrator names the next speaker
}
"""Sampling for tasks whose method fixes it, over their seat's ROLE_DEFAULTS."""

RECOVER_AFTER = 8
"""Successes in a row after which a throttled endpoint gets one more slot."""


def role_of(task: str) -> SeatRole:
    """The seat a task belongs to: the combined interrogator-judge counts as interrogator, DMT's
    labels and pairwise comparisons as judge, a scene's choice of the next speaker as interrogator."""
    if task in ("interrogator_judge", "dmt_generate", "dmt_check", "dmt_stop", "scene_next"):
        return "interrogator"
    return "judge" if task in ("dmt_label", "pairwise") else task  # type: ignore[return-value]


@dataclass
class ChatRequest:
    task: Task
    messages: list[dict]
    turn: int | None = None
    context: dict = field(default_factory=dict)
    """Plain data for the offline model only: character, situation, transcript, turns."""
    params: dict = field(default_factory=dict)
    """Per-call sampling overrides (highest priority)."""


@dataclass
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    tokens_estimated: bool
    latency_ms: float
    attempts: int
    finish_reason: str | None
    reasoning: bool = False
    """The server sent reasoning apart from the content (`reasoning_content` or `reasoning`)."""

    def answer(self) -> str:
        """The text without a leading reasoning block written inline (core.reasoning), stripped:
        what the character said."""
        return answer_of(self.text).strip() if self.text else ""

    def why_unusable(self, model: str, said: str = "") -> str:
        """What the server said of a reply that was empty or unusable, for the failure line:
        " (finish_reason: length; cut at max_tokens: raise max_tokens in [models.X.params])", or "".
        ``said``: what the line says already (a parser's "only reasoning" is not said twice)."""
        notes = [f"finish_reason: {self.finish_reason}"] if finish_label(self.finish_reason) else []  # not a stop
        raise_it = f"raise max_tokens in [models.{model}.params]"
        if (self.reasoning or split_reasoning(self.text)[0]) and not self.answer():
            budget = f"the model's reasoning used the budget; {raise_it}" if self.finish_reason == "length" else ""
            notes += [budget] if "only reasoning" in said else ["only reasoning, no answer" + (
                f": {budget}" if budget else "")]
            notes = [n for n in notes if n]
        elif self.finish_reason == "length":
            notes.append(f"cut at max_tokens; {raise_it}")
        elif self.finish_reason and finish_label(self.finish_reason):
            notes.append(str(finish_label(self.finish_reason)))
        return f" ({'; '.join(notes)})" if notes else ""


CHAT_PATH = "/chat/completions"


_UNREADABLE = (UnicodeDecodeError, json.JSONDecodeError, RecursionError)
"""What reading a body raises when its bytes are not UTF-8, not JSON, or nested past Python's limit."""


def _first_choice(data: Any) -> dict:
    """The first choice of a non-streamed answer; BadAnswer for a body that is no completion."""
    if not isinstance(data, dict):
        raise BadAnswer(f"not JSON but {' '.join(str(data).split())[:80]!r}", retryable=False)
    choices = data.get("choices")
    if not choices and data.get("error") is not None:
        error = data["error"]
        message = error.get("message") if isinstance(error, dict) else error
        raise BadAnswer(f"an error instead of a completion: {message}", retryable=True)
    return choices[0] if choices and isinstance(choices, list) and isinstance(choices[0], dict) else {}


def _content(value: Any) -> str:
    """A message's (or a delta's) content as text: a string, or the text of a list of parts, as
    some servers send it; BadAnswer for anything else."""
    if value is None or isinstance(value, str):
        return value or ""
    if isinstance(value, list):
        return "".join(p if isinstance(p, str) else p["text"] if isinstance(p, dict) and isinstance(p.get("text"), str)
                       else "" for p in value)
    raise BadAnswer(f"the message content is {type(value).__name__}, not text", retryable=False)


_Answer = tuple[str, "str | None", "dict | None", bool]
"""One attempt's answer: text, finish_reason, usage, whether reasoning came apart from the text."""

_NO_STREAM_OPTIONS: set[tuple[str, str | None]] = set()
"""(endpoint, model id) whose server refused `stream_options`: their streams go without it."""


def _reasoned(part: dict) -> bool:
    """A message or delta that carries reasoning apart from its content (reasoning parsers put
    it in `reasoning_content` or `reasoning`)."""
    return bool(part.get("reasoning_content") or part.get("reasoning"))


def _whole_answer(data: Any, on_delta: Callable[[str], None] | None) -> _Answer:
    """A completion's answer from its whole JSON body."""
    choice = _first_choice(data)
    message = choice.get("message") or {}
    text = _content(message.get("content"))
    if text and on_delta is not None:
        on_delta(text)
    return text, choice.get("finish_reason"), _usage(data), not text and _reasoned(message)


def _kind(response: httpx2.Response) -> str:
    """An answer's content type without its parameters, lower-case ("" when it names none)."""
    return response.headers.get("content-type", "").partition(";")[0].strip().lower()


async def _unstreamed(response: httpx2.Response, kind: str, on_delta: Callable[[str], None] | None) -> _Answer:
    """A streamed request's answer that came as something else: a whole completion (a server
    that ignores `stream`) is read as one; anything else (an HTML login page, a web UI) fails
    at once, naming what came and where from."""
    if not kind.endswith("json"):
        raise BadAnswer(f"the server answered {kind}, not an event stream, from {response.request.url}; "
                        "check base_url", retryable=False)
    try:
        data = _parsed_json(await response.aread())
    except _UNREADABLE as exc:
        raise BadAnswer(f"the body is not readable JSON ({type(exc).__name__})", retryable=False) from None
    return _whole_answer(data, on_delta)


def _parsed_json(body: bytes) -> Any:
    """A body's JSON, as the client's own reading gives it (orjson, the json module's errors)."""
    from pingpong.core.openai_client import parsed

    return parsed(body)


def _usage(data: Any) -> dict | None:
    usage = data.get("usage") if isinstance(data, dict) else None
    return usage if isinstance(usage, dict) else None


def _count(value: Any) -> int | None:
    """A token count from `usage`, or None when it is not a count (then it is estimated)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class ModelCallError(Exception):
    """A call that failed for good (after retries, or at once for a non-retryable error)."""

    def __init__(self, model: str, role: str, reason: str, retryable: bool) -> None:
        super().__init__(f"model '{model}' ({role}): {reason}")
        self.model = model
        self.role = role
        self.reason = reason
        self.retryable = retryable


class ChatModel(Protocol):
    spec: ModelSpec

    async def complete(
        self,
        req: ChatRequest,
        *,
        on_delta: Callable[[str], None] | None = None,
        on_call: Callable[[CallRecord], None] | None = None,
    ) -> Completion: ...


def _json_forms(char: str) -> str:
    """A pattern for one character of a key as it may stand in a JSON string."""
    forms = [re.escape(char), re.escape(f"\\u{ord(char):04x}")]
    if char == "/":
        forms.append(re.escape("\\/"))
    return f"(?:{'|'.join(forms)})"


def _key_start_at_end(text: str, secret: str) -> int:
    """How many characters at the end of `text` are the start of `secret` (in any case), counting
    four or more only: fewer are as likely to be the end of a word."""
    tail = text[-len(secret):].lower()
    return next((k for k in range(len(secret) - 1, 3, -1) if tail.endswith(secret[:k].lower())), 0)


def merge_system(messages: list[dict]) -> list[dict]:
    """For models without a system role, whose chat templates also want user and assistant
    to alternate starting with the user: the system text opens the first user message (or
    becomes one), and neighbouring messages of the same role are joined."""
    system = "\n\n".join(m["content"] for m in messages if m.get("role") == "system" and m.get("content"))
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if system:
        if rest and rest[0].get("role") == "user":
            rest[0]["content"] = f"{system}\n\n{rest[0].get('content') or ''}".rstrip()
        else:
            rest.insert(0, {"role": "user", "content": system})
    joined: list[dict] = []
    for m in rest:
        if joined and joined[-1].get("role") == m.get("role"):
            joined[-1]["content"] = f"{joined[-1].get('content') or ''}\n\n{m.get('content') or ''}".strip()
        else:
            joined.append(m)
    return joined


def sampling_params(spec: ModelSpec, req: ChatRequest) -> dict[str, Any]:
    """ROLE_DEFAULTS[role] < TASK_DEFAULTS[task] < spec.params < req.params.

    A model configured with `max_completion_tokens` (newer OpenAI models refuse `max_tokens`)
    does not get the default `max_tokens` beside it."""
    params = {**ROLE_DEFAULTS[role_of(req.task)], **TASK_DEFAULTS.get(req.task, {}), **spec.params, **req.params}
    if "max_completion_tokens" in params and "max_tokens" not in {**spec.params, **req.params}:
        del params["max_tokens"]
    return params


def seat_setup(spec: ModelSpec, task: Task) -> dict[str, Any]:
    """A seat's set-up as PingPong results files record it: the params its requests carry (before
    any per-call override) and the extra system prompt in front of ours (pingpong adds none)."""
    return {"system_prompt": "", "params": sampling_params(spec, ChatRequest(task=task, messages=[]))}


# --------------------------------------------------------------------------- statistics


@dataclass
class ModelStats:
    requests: int = 0        # calls started
    attempts: int = 0        # HTTP requests sent
    retries: int = 0         # attempts followed by another attempt
    failures: int = 0        # calls that failed for good
    ok: int = 0              # calls that returned a Completion
    prompt_tokens: int = 0
    completion_tokens: int = 0
    in_flight: int = 0       # attempts holding a concurrency slot right now
    waiting: int = 0         # calls waiting for a slot


@dataclass
class PoolStats:
    """Live counters of a ModelPool, per model; `total()` sums them when someone asks (a call
    pays for one counter per event, not a model's and the pool's)."""

    per_model: dict[str, ModelStats] = field(default_factory=dict)
    limits: dict[str, int] = field(default_factory=dict)   # endpoint -> current concurrency limit

    def model(self, name: str) -> ModelStats:
        return self.per_model.setdefault(name, ModelStats())

    def bump(self, name: str, attr: str, n: int = 1) -> None:
        m = self.model(name)
        setattr(m, attr, getattr(m, attr) + n)

    def total(self) -> ModelStats:
        """The counters summed over every model."""
        out = ModelStats()
        for m in self.per_model.values():
            for attr in ModelStats.__dataclass_fields__:
                setattr(out, attr, getattr(out, attr) + getattr(m, attr))
        return out


# --------------------------------------------------------------------------- concurrency


class AdaptiveLimiter:
    """AIMD concurrency cap: halves on a 429 (down to 1), +1 after a run of successes.

    First come, first served; everything happens synchronously on the event
    loop, so a release in a `finally` of a cancelled task never awaits.
    """

    def __init__(self, ceiling: int, recover_after: int = RECOVER_AFTER) -> None:
        self.ceiling = max(1, ceiling)
        self.limit = self.ceiling
        self.recover_after = recover_after
        self.in_flight = 0
        self._streak = 0
        self._waiters: collections.deque[asyncio.Future] = collections.deque()

    def lower_ceiling(self, ceiling: int) -> None:
        self.ceiling = max(1, min(self.ceiling, ceiling))
        self.limit = min(self.limit, self.ceiling)

    async def acquire(self) -> None:
        if self.in_flight < self.limit and not self._waiters:
            self.in_flight += 1
            return
        fut = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():  # granted just as we were cancelled
                self.release()
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(fut)
            raise

    def release(self) -> None:
        self.in_flight -= 1
        self._dispatch()

    def _dispatch(self) -> None:
        while self._waiters and self.in_flight < self.limit:
            fut = self._waiters.popleft()
            if not fut.done():
                self.in_flight += 1
                fut.set_result(None)

    def on_throttle(self) -> None:
        self._streak = 0
        self.limit = max(1, self.limit // 2)

    def on_success(self) -> None:
        if self.limit >= self.ceiling:
            return
        self._streak += 1
        if self._streak >= self.recover_after:
            self._streak = 0
            self.limit += 1
            self._dispatch()


# --------------------------------------------------------------------------- the OpenAI model


@dataclass
class _Endpoint:
    """One endpoint (base_url + key variable): its client, its limiter, its key."""

    key: str
    make_client: Callable[[], Any] = field(repr=False)   # -> openai.AsyncOpenAI
    limiter: AdaptiveLimiter
    secret: str = field(repr=False)   # the API key: never printed
    clients: list[Any] = field(default_factory=list)   # none until the first call, then one

    @functools.cached_property
    def secret_pattern(self) -> re.Pattern[str] | None:
        """The key, in any case, as a compiled pattern (None for a key too short to scrub). Each
        character may also be written as JSON escapes it (`\\u0073`, `\\/`): a judge's or an
        interrogator's answer is scrubbed before it is parsed, when the escapes are still there."""
        if not self.secret or len(self.secret) < 4:
            return None
        return re.compile("".join(_json_forms(c) for c in self.secret), re.IGNORECASE)

    def client(self) -> Any:
        """The endpoint's client, made on first use. One carries any number of requests: its
        transport keeps a socket per request in flight (core/http_transport.py)."""
        if not self.clients:
            self.clients.append(self.make_client())
        return self.clients[0]


class OpenAIChatModel:
    """A ChatModel over an OpenAI-compatible endpoint."""

    def __init__(self, spec: ModelSpec, endpoint: _Endpoint, stats: PoolStats, retry: RetryPolicy,
                 rng: random.Random | None = None) -> None:
        self.spec = spec
        self._ep = endpoint
        self._stats = stats
        self._retry = retry
        self._rng = rng or random.Random()

    async def complete(self, req: ChatRequest, *, on_delta=None, on_call=None) -> Completion:
        spec, role, stats = self.spec, role_of(req.task), self._stats
        counts, limiter = stats.model(spec.name), self._ep.limiter
        params = sampling_params(spec, req)
        stream = bool(params.pop("stream", req.task == "player"))  # only the player is watched as it types
        params.pop("stream_options", None)
        messages = merge_system(req.messages) if spec.merge_system else [dict(m) for m in req.messages]
        counts.requests += 1
        spent = 0.0  # seconds of attempts and backoff: waiting for a slot does not count
        attempt = 0
        cause = ""  # why the call is failing: a timeout of an attempt the deadline cut short keeps the one before
        while True:
            attempt += 1
            budget = min(spec.timeout, spec.deadline - spent)
            # a stream's timeout is an idle one (the transport's, per read): a slow model still
            # streaming is bounded by the deadline alone
            cap = spec.deadline - spent if stream else budget
            counts.waiting += 1
            try:
                await limiter.acquire()
            finally:
                counts.waiting -= 1
            counts.attempts += 1
            counts.in_flight += 1
            t0 = time.monotonic()
            cut_short = False
            try:
                async with asyncio.timeout(cap):
                    result = await self._attempt(messages, params, stream, budget, on_delta)
                failure = None
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # classified below; unknown ones are bugs and re-raised
                failure = classify(exc, spec.timeout)
                if failure is None:
                    raise
                cut_short = not stream and budget < spec.timeout and timed_out(exc)  # had only the deadline's rest
                if stream and isinstance(exc, TimeoutError):  # the deadline, not an idle read: it may
                    # have come while tokens arrived or while none had (a server that never answers)
                    failure = replace(failure, reason="the reply had not ended when the deadline was reached")
            finally:
                limiter.release()
                counts.in_flight -= 1
                elapsed = time.monotonic() - t0
                spent += elapsed
            latency_ms = elapsed * 1000
            if failure is None:
                text, finish, usage, reasoning = result
                completion = self._completion(messages, self._scrub(text), finish, usage, latency_ms, attempt)
                completion.reasoning = reasoning
                limiter.on_success()
                stats.limits[self._ep.key] = limiter.limit
                counts.ok += 1
                counts.prompt_tokens += completion.prompt_tokens
                counts.completion_tokens += completion.completion_tokens
                self._record(on_call, role, req, attempt, "ok", None, latency_ms, completion)
                return completion
            failure = replace(failure, reason=self._scrub(failure.reason))
            if not (cause and cut_short):
                cause = failure.reason
            if stream and self._drop_stream_options(failure):
                self._record(on_call, role, req, attempt, "retry", failure.reason, latency_ms)
                counts.retries += 1
                continue
            if failure.throttled:
                limiter.on_throttle()
                stats.limits[self._ep.key] = limiter.limit
            wait = self._retry.wait(failure, attempt, self._rng)
            give_up = self._give_up(failure, cause, attempt, spent, wait)
            if give_up is None:
                self._record(on_call, role, req, attempt, "retry", failure.reason, latency_ms)
                counts.retries += 1
                await asyncio.sleep(wait)
                spent += wait
                continue
            self._record(on_call, role, req, attempt, "failed", give_up, latency_ms)
            counts.failures += 1
            raise ModelCallError(spec.name, role, give_up, failure.retryable)

    def _give_up(self, failure: Failure, cause: str, attempt: int, spent: float, wait: float) -> str | None:
        """Why this call ends now, or None to try again."""
        if not failure.retryable:
            return failure.reason
        if attempt >= self._retry.max_attempts:
            return f"{cause} (gave up after {attempt} attempts)"
        if failure.retry_after is not None and failure.retry_after > self._retry.max_retry_after:
            return f"{failure.reason} (server asks to wait {failure.retry_after:.0f}s)"
        if spent + wait >= self.spec.deadline:
            return f"{cause} (deadline of {self.spec.deadline:g}s reached after {attempt} attempts)"
        return None

    async def _attempt(self, messages, params, stream: bool, timeout: float, on_delta) -> _Answer:
        """One HTTP request: (text, finish_reason, usage dict or None, reasoning received). The
        stream is always closed. A reply the server ended with finish_reason "error" is a failed
        attempt (BadAnswer, retried).

        The body goes out through the client's `post_json` and comes back as plain dicts
        (core.openai_client): the typed `create` path validates and rebuilds every message
        and every chunk, which costs more CPU than the rest of a batch run.
        """
        client = self._ep.client()
        body = {"model": self.spec.model, "messages": messages, **params}
        if not stream:
            try:
                data = await client.post_json(CHAT_PATH, body, timeout=timeout)
            except _UNREADABLE as exc:
                raise BadAnswer(f"the body is not readable JSON ({type(exc).__name__})", retryable=False) from None
            answer = _whole_answer(data, on_delta)
        else:
            body["stream"] = True
            if (self._ep.key, self.spec.model) not in _NO_STREAM_OPTIONS:
                body["stream_options"] = {"include_usage": True}
            response = await client.post_json(CHAT_PATH, body, timeout=timeout, stream=True)
            answer = await self._streamed(response, on_delta)
        if answer[1] == "error":
            raise BadAnswer('the server ended the reply with finish_reason "error"', retryable=True)
        return answer

    async def _streamed(self, response, on_delta) -> _Answer:
        """A streamed answer, read as its events arrive; one the server sent whole as JSON is
        read whole, and any other kind of body (an HTML page) is the wrong address."""
        parts: list[str] = []
        finish = None
        usage = None
        reasoning = False
        try:
            kind = _kind(response.response)
            if kind != "text/event-stream" and kind:
                return await _unstreamed(response.response, kind, on_delta)
            async for chunk in response:
                if not isinstance(chunk, dict):
                    raise BadAnswer(f"a stream event is not a JSON object: {str(chunk)[:80]!r}", retryable=False)
                usage = _usage(chunk) or usage
                for choice in chunk.get("choices") or ():
                    if not isinstance(choice, dict) or choice.get("index") not in (0, None):
                        continue
                    delta = choice.get("delta") or {}
                    piece = _content(delta.get("content"))
                    if piece:
                        parts.append(piece)
                        if on_delta is not None:
                            on_delta(piece)
                    elif not reasoning:
                        reasoning = _reasoned(delta)
                    finish = choice.get("finish_reason") or finish
        except _UNREADABLE as exc:
            raise BadAnswer(f"a stream event is not readable JSON ({type(exc).__name__})", retryable=False) from None
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(response.close())
        if finish is None and not response.done:
            raise IncompleteStream(f"no finish_reason nor [DONE] after {len(''.join(parts))} characters")
        return "".join(parts), finish, usage, reasoning

    def _drop_stream_options(self, failure: Failure) -> bool:
        """Whether to send this model's streams without `stream_options` from now on, and try
        again at once: the server refused the field (400 or 422 naming it; Azure's older API
        versions, some gateways). Remembered for the rest of the process."""
        key = (self._ep.key, self.spec.model)
        if failure.status not in (400, 422) or "stream_options" not in failure.reason or key in _NO_STREAM_OPTIONS:
            return False
        _NO_STREAM_OPTIONS.add(key)
        return True

    def _completion(self, messages, text, finish, usage, latency_ms, attempt) -> Completion:
        prompt = _count(usage.get("prompt_tokens")) if usage else None
        completion = _count(usage.get("completion_tokens")) if usage else None
        estimated = prompt is None or completion is None
        if prompt is None:
            prompt = estimate_messages(messages)
        if completion is None:
            completion = estimate_tokens(text)
        return Completion(text, prompt, completion, estimated, latency_ms, attempt, finish)

    def _scrub(self, text: str) -> str:
        """The text (a failure's reason, a reply a proxy wrote the key into) without the API key,
        in any case, even cut short at its end by `_short`."""
        pattern, secret = self._ep.secret_pattern, self._ep.secret
        if pattern is None or not text:
            return text
        scrubbed = pattern.sub("***", text)
        if scrubbed.endswith("..."):
            cut = _key_start_at_end(scrubbed[:-3], secret)
            if cut:
                scrubbed = scrubbed[:-3 - cut] + "***..."
        return scrubbed

    def _record(self, on_call, role, req, attempt, status, error, latency_ms, c: Completion | None = None):
        if on_call is None:
            return
        on_call(CallRecord(
            role=role, model=self.spec.name, turn=req.turn, attempt=attempt, status=status, error=error,
            prompt_tokens=c.prompt_tokens if c else None,
            completion_tokens=c.completion_tokens if c else None,
            tokens_estimated=c.tokens_estimated if c else False,
            latency_ms=latency_ms,
        ))


# --------------------------------------------------------------------------- the pool


def endpoint_key(spec: ModelSpec) -> str:
    return f"{(spec.base_url or '').rstrip('/')}|{spec.api_key_env or ''}"


class ModelPool:
    """Hands out ChatModels by name; one client and one limiter per endpoint, closed in aclose()."""

    def __init__(self, specs: dict[str, ModelSpec], *, retry: RetryPolicy | None = None,
                 seed: int | None = None) -> None:
        self.specs = dict(specs)
        self.specs.setdefault(OFFLINE, offline_spec())
        self.retry = retry or RetryPolicy()
        self._rng = random.Random(seed)
        self._endpoints: dict[str, _Endpoint] = {}
        self._models: dict[str, ChatModel] = {}
        self._stats = PoolStats()
        self._closed = False

    @property
    def stats(self) -> PoolStats:
        return self._stats

    def get(self, name: str) -> ChatModel:
        """The model called `name` (UserError if unknown, or if its key variable is missing)."""
        if name in self._models:
            return self._models[name]
        spec = resolve(self.specs, name)
        if spec.kind == "offline":
            from pingpong.core.offline import OfflineModel

            model: ChatModel = OfflineModel(spec, self._stats)
        else:
            check_ready(spec)
            model = OpenAIChatModel(spec, self._endpoint(spec), self._stats, self.retry, self._rng)
        self._models[name] = model
        return model

    def preload(self, names: Sequence[str]) -> None:
        """Import what the named models' calls need (openai, for any but the offline model), and
        build nothing: safe in a thread while the event loop goes on (the TUI imports this way
        before a session's first call; imported on the loop, openai stopped its drawing for
        nearly a second)."""
        for name in names:
            spec = self.specs.get(name)
            if spec is not None and spec.kind != "offline":
                import pingpong.core.http_transport  # noqa: F401
                import pingpong.core.openai_client  # noqa: F401
                return

    def warm(self, names: Sequence[str]) -> None:
        """Build the named models and one client per endpoint now (importing openai on the way),
        so the first wave of a run does not pay for it while holding its slots."""
        for name in dict.fromkeys(names):
            try:
                model = self.get(name)
            except UserError:  # the sessions that need it fail with this same message
                continue
            if isinstance(model, OpenAIChatModel):
                model._ep.client()

    def scrub_draft(self, text: str) -> str:
        """A reply still streaming, as it may be stored or shown: without any API key of the
        endpoints called so far, and without the start of one at its end (the next piece may
        finish it). The finished message is scrubbed by its own model."""
        for ep in self._endpoints.values():
            if ep.secret_pattern is not None:
                text = ep.secret_pattern.sub("***", text)
                text = text[:len(text) - _key_start_at_end(text, ep.secret)]
        return text

    def _endpoint(self, spec: ModelSpec) -> _Endpoint:
        if self._closed:
            raise RuntimeError("ModelPool is closed")
        key = endpoint_key(spec)
        ep = self._endpoints.get(key)
        if ep is None:
            from pingpong.core.http_transport import LeanTransport
            from pingpong.core.openai_client import LeanAsyncOpenAI, LeanHttpClient
            from pingpong.core.proxies import proxy_for

            secret = api_key(spec)
            proxy = proxy_for(spec.base_url or "")

            def make_client() -> Any:
                # through a proxy, httpx's own transport speaks to it (CONNECT for https)
                http = LeanHttpClient(transport=LeanTransport()) if proxy is None else LeanHttpClient(proxy=proxy)
                return LeanAsyncOpenAI(base_url=spec.base_url, api_key=secret, max_retries=0, timeout=spec.timeout,
                                       http_client=http)

            ep = _Endpoint(key, make_client, AdaptiveLimiter(spec.max_concurrency), secret)
            self._endpoints[key] = ep
        else:  # the strictest cap of the models sharing an endpoint wins
            ep.limiter.lower_ceiling(spec.max_concurrency)
        self._stats.limits[key] = ep.limiter.limit
        return ep

    async def aclose(self) -> None:
        self._closed = True
        endpoints, self._endpoints = list(self._endpoints.values()), {}
        self._models.clear()
        for client in (c for ep in endpoints for c in ep.clients):
            with contextlib.suppress(Exception):
                await client.close()

    async def __aenter__(self) -> "ModelPool":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()
