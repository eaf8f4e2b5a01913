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
from collections.abc import AsyncIterator
from typing import Any

import httpx2
from openai import AsyncOpenAI, AsyncStream
from openai._models import FinalRequestOptions
from openai._streaming import ServerSentEvent

KINDS = 8
"""Request templates kept per client (method, path, timeout): more kinds go the library's way."""

_PER_REQUEST = ("content-length", "transfer-encoding", "cookie")
"""Headers of the first request that are not the kind's: its body's length, the cookies of its time."""


def _body(json_data: dict[str, Any]) -> bytes:
    """The body as the library writes it (compact UTF-8 JSON, no NaN)."""
    return json.dumps(json_data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


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
        return json.loads(response.content) if kind.endswith("json") else response.text

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


class RawStream(AsyncStream[object]):
    """A stream of plain dicts that notes whether the server ended it with ``[DONE]``.

    openai swallows that event, but some servers never send a finish_reason: a stream they
    closed with [DONE] is whole, one that just stopped is not, and only this flag tells which.
    """

    done = False

    async def _iter_events(self) -> AsyncIterator[ServerSentEvent]:
        async for sse in super()._iter_events():
            if sse.data.startswith("[DONE]"):
                self.done = True
            yield sse


def _plain(options: FinalRequestOptions) -> bool:
    """A POST of a JSON object and nothing else: the only kind whose template we may reuse."""
    return (isinstance(options.json_data, dict) and options.extra_json is None and options.content is None
            and options.files is None and not options.params and not options.headers
            and isinstance(options.timeout, float | int))
