"""The one retry layer: which failures deserve another attempt, and how long to wait.

The openai client's own retries are switched off (max_retries=0) so that every
attempt is visible as a CallRecord and the overall deadline is ours. Retried:
408, 409, 429 (unless the quota is exhausted), 5xx, connection errors,
timeouts and streams that ended early. Never retried: other 4xx.
"""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass

RETRY_STATUS = frozenset({408, 409, 429})


@dataclass(frozen=True)
class RetryPolicy:
    """Jittered exponential backoff; Retry-After from the server wins when present."""

    base: float = 0.5           # first backoff (seconds), doubled per attempt
    cap: float = 30.0           # longest backoff without a Retry-After
    max_attempts: int = 8       # attempts per call, first one included
    max_retry_after: float = 300.0  # a longer Retry-After ends the call instead of waiting

    def backoff(self, attempt: int, rng: random.Random | None = None) -> float:
        """Wait after failed attempt number `attempt` (1-based): half fixed, half random."""
        ceiling = min(self.cap, self.base * (2 ** max(0, attempt - 1)))
        return ceiling / 2 + (rng or random).uniform(0, ceiling / 2)

    def wait(self, failure: "Failure", attempt: int, rng: random.Random | None = None) -> float:
        if failure.retry_after is not None:  # a little jitter so throttled calls do not return in a herd
            return failure.retry_after + (rng or random).uniform(0, min(self.base, 1.0))
        return self.backoff(attempt, rng)


class IncompleteStream(Exception):
    """The stream ended before the model said it had finished (no finish_reason, no [DONE])."""


class BadAnswer(Exception):
    """A 200 whose body is no chat completion: an error object, an HTML page, bytes that are not
    UTF-8 or JSON, a content that is not text. `retryable`: an error object may pass (a provider
    behind a router failed this once); a page that is not JSON is the wrong address."""

    def __init__(self, reason: str, retryable: bool) -> None:
        super().__init__(reason)
        self.retryable = retryable


@dataclass(frozen=True)
class Failure:
    """What went wrong with one attempt, in a form the retry loop can act on."""

    reason: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None
    throttled: bool = False     # a 429: the endpoint asks us to slow down


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: a number of seconds or an HTTP date."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


def _headers_retry_after(headers) -> float | None:
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    return parse_retry_after(headers.get("retry-after"))


def _is_quota(exc: BaseException) -> bool:
    parts = [getattr(exc, "code", None), getattr(exc, "type", None)]
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        parts += [body.get("code"), body.get("type")]
    return any(isinstance(p, str) and "insufficient_quota" in p for p in parts)


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _not_found(exc: BaseException, message: str) -> str:
    """A 404's reason: the server's word, the URL posted to, and the usual cause when its path
    has no /v1 (vLLM and Ollama serve the API under it)."""
    from pingpong.core.config import shown_url

    request = getattr(exc, "request", None)
    url = shown_url(str(request.url)) if request is not None else ""
    detail = getattr(exc, "body", None)
    if isinstance(detail, dict) and isinstance(detail.get("detail"), str):  # FastAPI's (vLLM's) body
        message = detail["detail"]
    hint = "; does base_url need /v1?" if url and "/v1" not in url else ""
    return _short(f"HTTP 404: {message} (posted to {url}{hint})" if url else f"HTTP 404: {message}", 400)


def timed_out(exc: BaseException) -> bool:
    """Whether the attempt ended by a timeout (ours or the transport's) rather than an answer."""
    import openai

    return isinstance(exc, (TimeoutError, openai.APITimeoutError))


def classify(exc: BaseException, timeout: float | None = None) -> Failure | None:
    """Failure for errors of the model call; None for anything else (a bug: let it raise).
    timeout: the model's configured timeout, named in a timeout's reason."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        body = getattr(exc, "body", None)
        message = body.get("message") if isinstance(body, dict) else None
        message = message if isinstance(message, str) and message else (getattr(exc, "message", None) or str(exc))
        reason = _short(f"HTTP {status}: {message}")
        if status == 404:
            return Failure(_not_found(exc, message), False, status)
        if status == 429 and _is_quota(exc):
            return Failure(_short(f"HTTP 429: quota exhausted: {message}"), False, status)
        retryable = status in RETRY_STATUS or status >= 500
        retry_after = _headers_retry_after(exc.response.headers) if retryable else None
        return Failure(reason, retryable, status, retry_after, throttled=status == 429)
    if isinstance(exc, openai.APITimeoutError):  # the transport waited `timeout` for a byte
        return Failure(f"timed out waiting for data (timeout = {timeout:g})" if timeout else "timed out (client)",
                       True)
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = f": {type(cause).__name__}" if cause is not None else ""
        if cause is not None and str(cause):
            detail += f": {cause}"  # e.g. the refused connection or the cut answer the transport saw
        return Failure(_short(f"connection error{detail}"), True)
    if isinstance(exc, openai.APIResponseValidationError):
        return Failure(_short(f"invalid response: {exc}"), True)
    if isinstance(exc, openai.APIError):  # e.g. an error event inside a stream
        return Failure(_short(f"API error: {exc}"), True)
    if isinstance(exc, IncompleteStream):
        return Failure(_short(f"stream ended early: {exc}"), True)
    if isinstance(exc, BadAnswer):
        return Failure(_short(f"unusable answer: {exc}"), exc.retryable)
    if isinstance(exc, TimeoutError):
        return Failure(f"timed out (timeout = {timeout:g})" if timeout else "timed out", True)
    module = type(exc).__module__ or ""
    if module.startswith(("httpx", "httpcore", "h11", "anyio")) or isinstance(exc, (ConnectionError, EOFError)):
        return Failure(_short(f"connection error: {type(exc).__name__}"), True)
    return None
