"""The AsyncOpenAI client our endpoints use: the library's, minus per-call work that never changes.

Every chat call of a run posts to the same URL with the same headers; only the JSON body
differs. The library builds each request from scratch (it parses the URL three times and
merges four sets of headers), about a third of its CPU per call in
benchmarks/runner_bench.py. This subclass lets the library build the first request of each
kind, keeps that request's URL, headers and timeout, and builds later requests of the same
kind from them with the new body. Anything unusual (query parameters, files, extra headers
or bodies, another URL or timeout beyond a few) goes the library's own way.

Imported only where a client is built: it imports openai, which takes a while.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import orjson
from httpx2._client import UseClientDefault
from httpx2._types import AuthTypes

# openai imports its optional aiohttp client whenever aiohttp is installed (the `serve` command
# needs it): a fifth of openai's import, a fifth of a second of every run's start, for a client
# we never use. A None in sys.modules makes that import fail the way openai expects without aiohttp.
sys.modules.setdefault("openai._vendor.httpx_aiohttp", None)  # type: ignore[arg-type]

from openai import (  # noqa: E402
    APIConnectionError,
    APIError,
    APITimeoutError,
    AsyncOpenAI,
    AsyncStream,
    DefaultAsyncHttpxClient,
)
from openai._httpx2 import request_exceptions, timeout_exceptions  # noqa: E402
from openai._models import FinalRequestOptions  # noqa: E402
from openai._streaming import ServerSentEvent  # noqa: E402

from pingpong.core.http_transport import end_within  # noqa: E402
from pingpong.core.sse import EventReader  # noqa: E402

KINDS = 8
"""Request templates kept per client (method, path, timeout): more kinds go the library's way."""

DONE_GRACE = 0.1
"""Seconds a stream's body may take to end after its [DONE]: the reply is whole by then, and a
server that holds the body open loses its socket instead of costing the reply."""

_PER_REQUEST = ("content-length", "transfer-encoding", "cookie")
"""Headers of the first request that are not the kind's: its body's length, the cookies of its time."""


def _body(json_data: dict[str, Any]) -> bytes:
    """The body as the library writes it: compact UTF-8 JSON, no NaN (the config refuses it).

    orjson writes it some twenty times faster than the json module, byte for byte the same
    but for a number's spelling in exponent form (1e-7 for 1e-07, the same value). What it
    refuses (integers beyond 64 bits, lone surrogates) goes the json module's way, with its
    result or its error as before."""
    try:
        return orjson.dumps(json_data)
    except orjson.JSONEncodeError:
        return json.dumps(json_data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def parsed(content: bytes | str) -> Any:
    """An answer's JSON: orjson's reading, or the json module's for what orjson refuses (NaN,
    integers beyond 64 bits), with its error as before."""
    try:
        return orjson.loads(content)
    except orjson.JSONDecodeError:
        return json.loads(content)


class LeanAsyncOpenAI(AsyncOpenAI):
    """AsyncOpenAI whose plain JSON requests reuse the URL and headers of the first of their kind."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._templates: dict[tuple[object, ...], tuple[httpx2.URL, httpx2.Headers, dict[str, Any]]] = {}
        self._posts: dict[str, FinalRequestOptions] = {}

    async def post_json(self, path: str, body: dict[str, Any], *, timeout: float, stream: bool = False) -> Any:
        """`post(path, cast_to=object, body=...)`: the answer as plain dicts (a RawStream of them
        when streamed). The request options are copied from one made per path instead of built
        from their defaults each call (a tenth of the client's CPU)."""
        base = self._posts.get(path)
        if base is None:
            base = self._posts[path] = FinalRequestOptions.construct(method="post", url=path)
        options = base.model_copy(update={"json_data": body, "timeout": timeout})
        if stream:
            return await self.request(object, options, stream=True, stream_cls=RawStream)
        # The answer itself, not the library's wrapper around it: it decodes the same JSON
        # after a dozen header lookups and checks of what to cast it to.
        response = await self.request(httpx2.Response, options)
        kind = response.headers.get("content-type", "").partition(";")[0].strip()
        if kind.endswith("json"):
            return parsed(response.content)
        try:  # a small wrapper or proxy may call its JSON text/plain, text/html or nothing at all
            return parsed(response.content)
        except ValueError:  # not JSON (nor UTF-8): the caller says what came instead
            return response.text

    def _idempotency_key(self) -> str:
        """The library makes a UUID per request for a header that only some clients send;
        OpenAI's sends none (a fiftieth of a call's CPU)."""
        return super()._idempotency_key() if self._idempotency_header else "unsent"

    @property
    def user_agent(self) -> str:
        """The library's own user agent (it names the class): servers see plain AsyncOpenAI."""
        return f"AsyncOpenAI/Python {self._version}"

    def _build_request(self, options: FinalRequestOptions, *, retries_taken: int = 0) -> httpx2.Request:
        if self._idempotency_header or not _plain(options):
            return super()._build_request(options, retries_taken=retries_taken)
        key = (options.method, options.url, options.timeout, retries_taken)
        template = self._templates.get(key)
        if template is None:
            request = super()._build_request(options, retries_taken=retries_taken)
            if len(self._templates) < KINDS:
                headers = httpx2.Headers([(k, v) for k, v in request.headers.raw if k.lower() not in _PER_REQUEST])
                self._templates[key] = (request.url, headers, dict(request.extensions))
            return request
        url, kind_headers, extensions = template
        assert isinstance(options.json_data, dict)
        body = _body(options.json_data)
        # Built from a stream, a Request adds no headers of its own: the kind's carry Host and
        # the content type; the length is this body's. A copy of headers forgets their encoding,
        # which httpx then finds by decoding every header again: it is the kind's.
        headers = httpx2.Headers(kind_headers, encoding=kind_headers.encoding)
        headers["Content-Length"] = str(len(body))
        request = httpx2.Request(options.method, url, headers=headers, stream=httpx2.ByteStream(body),
                                 extensions=dict(extensions))
        request.headers.encoding = headers.encoding
        request.read()
        if self._client.cookies:
            self._client.cookies.set_cookie_header(request)
        return request


class LeanHttpClient(DefaultAsyncHttpxClient):
    """openai's default httpx client, sending a request straight to its transport when
    nothing in between has work to do.

    httpx passes every request through an auth flow, a redirect loop and event hooks, wraps the
    answer's stream and offers it to the cookie jar: a tenth of the model layer's CPU per call,
    for none of which our clients are configured (no auth object, no hooks, no mounts; openai
    sends the key as a header). Such a request goes to the transport directly; a redirect, or
    any client or request that uses those features, takes httpx's own way.
    """

    async def send(self, request: httpx2.Request, *, stream: bool = False,
                   auth: AuthTypes | UseClientDefault | None = httpx2.USE_CLIENT_DEFAULT,
                   follow_redirects: bool | UseClientDefault = httpx2.USE_CLIENT_DEFAULT) -> httpx2.Response:
        if not self._direct(request, auth):
            return await super().send(request, stream=stream, auth=auth, follow_redirects=follow_redirects)
        response = await self._transport.handle_async_request(request)
        if response.has_redirect_location:  # rare: httpx follows it, or not, as configured
            await response.aclose()
            return await super().send(request, stream=stream, auth=auth, follow_redirects=follow_redirects)
        response.request = request
        if "set-cookie" in response.headers:
            self.cookies.extract_cookies(response)
        if _log.isEnabledFor(logging.INFO):
            _log.info('HTTP Request: %s %s "%s %d %s"', request.method, request.url, response.http_version,
                      response.status_code, response.reason_phrase)
        if not stream:
            try:
                await response.aread()
            except BaseException:
                await response.aclose()
                raise
        return response

    def _direct(self, request: httpx2.Request, auth: object) -> bool:
        """Whether httpx's layers between this client and its transport have nothing to do."""
        return ((auth is None or auth is httpx2.USE_CLIENT_DEFAULT) and self.auth is None and not self.is_closed
                and not self._mounts and not any(self.event_hooks.values())
                and "timeout" in request.extensions and not request.url.userinfo)


_log = logging.getLogger("httpx2")
"""httpx's own logger: the direct way logs each request as httpx does."""


class RawStream(AsyncStream[object]):
    """A stream of plain dicts that notes whether the server ended it with ``[DONE]``.

    openai swallows that event, but some servers never send a finish_reason: a stream they
    closed with [DONE] is whole, one that just stopped is not, and only this flag tells which.

    The events are read from the response's bytes with core.sse instead of openai's decoder
    (half the CPU of every chunk), and each turned into a dict as openai would: an event
    whose data holds an "error" raises APIError, and a failed read raises APITimeoutError or
    APIConnectionError. A compressed stream, or options asking for more, go openai's way.
    """

    done = False

    async def __stream__(self) -> AsyncIterator[object]:
        response = self.response
        if response.headers.get("content-encoding", "identity").lower() not in ("", "identity") or (
                self._options is not None and (self._options.stream_mode != "legacy"
                                               or self._options.synthesize_event_and_data)):
            async for item in super().__stream__():
                yield item
            return
        reader = EventReader()
        try:
            async for chunk in self._raw(response):
                if self.done:  # what follows [DONE] is read to its end (briefly), so the socket can be kept
                    continue
                for event, data in reader.feed(chunk):
                    if data.startswith("[DONE]"):
                        self.done = True
                        end_within(response.stream, DONE_GRACE)
                        break
                    item = parsed(data)
                    if isinstance(item, dict) and item.get("error"):
                        raise _stream_error(item["error"], response)
                    yield {"data": item, "event": event} if event and event.startswith("thread.") else item
        finally:
            await response.aclose()

    @staticmethod
    async def _raw(response: httpx2.Response) -> AsyncIterator[bytes]:
        """The body's bytes as the transport gives them; its failures as openai's errors."""
        try:
            async for chunk in response.stream:  # type: ignore[union-attr]  # an async stream: AsyncOpenAI's
                yield chunk
        except timeout_exceptions() as err:
            raise APITimeoutError(request=response.request) from err
        except request_exceptions() as err:
            raise APIConnectionError(request=response.request) from err

    async def _iter_events(self) -> AsyncIterator[ServerSentEvent]:
        async for sse in super()._iter_events():
            if sse.data.startswith("[DONE]"):
                self.done = True
            yield sse


def _stream_error(error: object, response: httpx2.Response) -> Exception:
    """The APIError openai raises for an error event in a stream."""
    message = error.get("message") if isinstance(error, dict) else None
    if not message or not isinstance(message, str):
        message = "An error occurred during streaming"
    return APIError(message=message, request=response.request, body=error)


def _plain(options: FinalRequestOptions) -> bool:
    """A POST of a JSON object and nothing else: the only kind whose template we may reuse."""
    return (isinstance(options.json_data, dict) and options.extra_json is None and options.content is None
            and options.files is None and not options.params and not options.headers
            and isinstance(options.timeout, float | int))
