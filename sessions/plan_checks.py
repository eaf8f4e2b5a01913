"""Checks a batch run makes before its first request: models, keys, endpoints.

A mistyped model name or a forgotten API key should cost one line and exit 2,
not sixty-four failed conversations. Local checks come first; the network
check (one GET {base_url}/models per distinct endpoint) comes last, so bad
local input never touches any server.
"""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping, Sequence

from pingpong.core.config import shown_url
from pingpong.core.domain import ModelSpec
from pingpong.core.errors import UserError

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


def direct_opener() -> urllib.request.OpenerDirector:
    """urllib without the environment's proxy variables: the model calls' own transport never
    reads them, so a check through `http_proxy` would test a road the calls do not take."""
    return urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _probe(url: str, timeout: float) -> str | None:
    """None when something answers HTTP at `url` (any status), else the reason it did not."""
    request = urllib.request.Request(url, method="GET", headers={"User-Agent": "pingpong"})
    try:
        with direct_opener().open(request, timeout=timeout):
            return None
    except urllib.error.HTTPError:
        return None  # 401, 404...: a server is there; the real calls will say more
    except urllib.error.URLError as exc:
        return str(exc.reason)
    except (OSError, ValueError) as exc:
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
            raise UserError(f"model '{endpoints[url]}': base URL {shown_url(url)} unreachable ({reason})")
