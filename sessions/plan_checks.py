"""Checks a batch run makes before its first request: models, keys, endpoints.

A mistyped model name or a forgotten API key should cost one line and exit 2,
not sixty-four failed conversations. Local checks come first; the network
check (one GET {base_url}/models per distinct endpoint) comes last, so bad
local input never touches any server.
"""

from __future__ import annotations

import asyncio
import base64
import http.client
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping, Sequence

from pingpong.core.config import shown_url
from pingpong.core.domain import ModelSpec
from pingpong.core.errors import UserError
from pingpong.core.proxies import proxy_for

REACH_TIMEOUT = 3.0


def seated_judges(method: str, interrogator: str, judges: Sequence[str]) -> list[str]:
    """The judges a run or play of ``method`` seats: those given (at least one), except where the
    tester scores (PingPong v1), whose judge is its interrogator: another --judge is a UserError
    rather than a name stored on sessions it never scored."""
    from pingpong.core.vocabulary import TESTER_SCORES

    if method in TESTER_SCORES:
        stray = next((j for j in judges if j != interrogator), None)
        if stray is not None:
            raise UserError(f"--judge {stray}: {method} sessions are scored by their tester, the interrogator "
                            f"({interrogator}); leave --judge out")
        return [interrogator]
    if not judges:
        raise UserError(f"--judge: {method} needs a judge model (repeat --judge for several)")
    return list(dict.fromkeys(judges))


def resolve_models(models: Mapping[str, ModelSpec], names: Iterable[str]) -> dict[str, ModelSpec]:
    """The specs of the named models, each with its key present (UserError otherwise)."""
    from pingpong.core import config

    chosen: dict[str, ModelSpec] = {}
    for name in names:
        if name not in chosen:
            chosen[name] = config.resolve(dict(models), name)
    for spec in chosen.values():
        config.check_ready(spec)
    return chosen


class _KeyStaysHome(urllib.request.HTTPRedirectHandler):
    """Follows a redirect without the Authorization header when it leads to another origin: a key
    is for the server it was configured for (the model calls' client drops it the same way)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and _origin(new.full_url) != _origin(req.full_url):
            new.remove_header("Authorization")
        return new


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port


def probe_opener(url: str) -> urllib.request.OpenerDirector:
    """urllib as the model calls go to `url`: through the proxy core.proxies names for it, else
    directly (urllib's own reading of the proxy variables would differ on loopback addresses).
    UserError when that proxy is not an HTTP one."""
    proxy = proxy_for(url)
    proxies = {} if proxy is None else {urllib.parse.urlsplit(url).scheme: proxy}
    return urllib.request.build_opener(urllib.request.ProxyHandler(proxies), _KeyStaysHome())


def through(url: str) -> str:
    """' through proxy X' when the calls to `url` go through one, for a failure's line."""
    try:
        proxy = proxy_for(url)
    except UserError:
        return ""
    return "" if proxy is None else f" through proxy {shown_url(proxy)}"


def probe_request(url: str, headers: dict[str, str]) -> urllib.request.Request:
    """A GET of `url` urllib can send. Credentials written in the URL (user:password@host), which
    urllib would take for part of the host name, go in a Basic header, as the model calls send them."""
    parts = urllib.parse.urlsplit(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    if at:
        user, _, password = userinfo.partition(":")
        pair = f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password)}".encode()
        headers = {**headers, "Authorization": "Basic " + base64.b64encode(pair).decode("ascii")}
        url = parts._replace(netloc=host).geturl()
    return urllib.request.Request(url, headers=headers, method="GET")


# what a probe's request can fail with besides an answer: no route, a bad URL, a broken reply
PROBE_ERRORS = (OSError, ValueError, http.client.HTTPException)

PROXY_FAILURES = frozenset({407, 502, 504})
"""Statuses a proxy answers with when it could not, or would not, reach the server."""


def _probe(url: str, timeout: float) -> str | None:
    """None when something answers HTTP at `url` (any status), else the reason it did not."""
    request = probe_request(url, {"User-Agent": "pingpong"})
    try:
        with probe_opener(url).open(request, timeout=timeout):
            return None
    except urllib.error.HTTPError as exc:
        if exc.code in PROXY_FAILURES and proxy_for(url) is not None:
            return f"HTTP {exc.code} {exc.reason}"
        return None  # 401, 404...: a server is there; the real calls will say more
    except urllib.error.URLError as exc:
        return str(exc.reason)
    except PROBE_ERRORS as exc:
        return str(exc) or type(exc).__name__


async def check_reachable(specs: Iterable[ModelSpec], timeout: float = REACH_TIMEOUT) -> None:
    """UserError naming the first model whose base URL does not answer; offline is skipped."""
    endpoints: dict[str, str] = {}
    for spec in specs:
        if spec.kind == "offline" or not spec.base_url:
            continue
        endpoints.setdefault(spec.base_url.rstrip("/"), spec.name)
    if not endpoints:
        return
    urls = list(endpoints)
    reasons = await asyncio.gather(
        *(asyncio.to_thread(_probe, f"{url}/models", timeout) for url in urls))
    for url, reason in zip(urls, reasons):
        if reason is not None:
            raise UserError(f"model '{endpoints[url]}': base URL {shown_url(url)} unreachable{through(url)} ({reason})")
